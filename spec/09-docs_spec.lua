-- spec/09-docs_spec.lua: the documentation stays true to the code.
--
-- doc/api.md names every public function, method, metamethod and value: the
-- spec walks the module tables (cgwb, cgwb.core, cgwb.elim, cgwb.sched,
-- cgwb.report, cgwb.trace, cgwb.json, cgwb.kernel) and the methods of every userdata type
-- registered under a "cgwb." name, and looks each one up in the page.
-- Every repository path that README.md and doc/**/*.md write (in backticks
-- or not) or link to exists (generated files and `<name>` placeholders
-- allowed).  No project-internal paper numbers ("seed NNN") and no `shared/`
-- paths appear in the docs, README, lua/, csrc/, scripts/ or examples/, and
-- every author citation ("Bischof & Hu", "Naumann 2004") there and in the
-- specs is a short form of doc/references.md.  Every Markdown file the code
-- names (STYLE.md, doc/hacking.md) exists.  Each check is a function run
-- once on the repository and once on a small counterexample, so a check that
-- could never fail would fail here.
local H = require "spec.helper"
local cgwb = require "cgwb"

-- {==== helpers ====}

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do
    if type(k) == "string" then keys[#keys + 1] = k end
  end
  table.sort(keys)
  return keys
end

local function lines(cmd)
  local p = assert(io.popen(cmd))
  local out = {}
  for l in p:lines() do out[#out + 1] = l end
  p:close()
  return out
end

-- The repository's files: tracked and new (not ignored) ones, or every file
-- under the tree when this is not a git checkout.
local function repo_files()
  local files = lines("git ls-files --cached --others --exclude-standard 2>/dev/null")
  if #files == 0 then
    files = lines("find . -type f ! -path './.git/*' ! -path './build/*' | sed 's|^\\./||' | sort")
  end
  local set = {}
  for _, f in ipairs(files) do set[f] = true end
  return files, set
end

-- True when text mentions `name` with no identifier character on either side.
local function mentions(text, name)
  local from = 1
  while true do
    local i, j = text:find(name, from, true)
    if not i then return false end
    local before, after = text:sub(i - 1, i - 1), text:sub(j + 1, j + 1)
    if (i == 1 or not before:match("[%w_.]")) and not after:match("[%w_]") then return true end
    from = i + 1
  end
end

-- {==== public names ====}

-- Modules and the prefixes the page writes their members with.
local MODULES = {
  { name = "cgwb", prefixes = { "cgwb." } },
  { name = "cgwb.core", prefixes = { "core.", "cgwb.core." } },
  { name = "cgwb.elim", prefixes = { "elim.", "cgwb.elim." } },
  { name = "cgwb.sched", prefixes = { "sched.", "cgwb.sched." } },
  { name = "cgwb.report", prefixes = { "report.", "cgwb.report." } },
  { name = "cgwb.trace", prefixes = { "trace.", "cgwb.trace." } },
  { name = "cgwb.json", prefixes = { "json.", "cgwb.json." } },
  { name = "cgwb.kernel", prefixes = { "kernel.", "cgwb.kernel." } },
  { name = "cgwb.flatten", prefixes = { "flatten.", "cgwb.flatten." } },
  { name = "cgwb.xaif", prefixes = { "xaif.", "cgwb.xaif." } },
}

MODULES[#MODULES + 1] = { name = "cgwb.tangent", prefixes = { "tangent.", "cgwb.tangent." } }

-- The variable each userdata type's methods are written with (`t:len()`).
-- A new type must be added here and documented.
local METHOD_VAR = {
  ["cgwb.Tape"] = "t", ["cgwb.Graph"] = "g", ["cgwb.Schedule"] = "s", ["cgwb.LinGraph"] = "lg",
  ["cgwb.GraphBuilder"] = "b", ["cgwb.Kernel"] = "k",
}
METHOD_VAR["cgwb.JPlan"] = "jp"
MODULES[#MODULES + 1] = { name = "cgwb.jplan", prefixes = { "jplan.", "cgwb.jplan." } }
MODULES[#MODULES + 1] = { name = "cgwb.sweep", prefixes = { "sweep.", "cgwb.sweep." } }
MODULES[#MODULES + 1] = { name = "cgwb.progress", prefixes = { "progress.", "cgwb.progress." } }

-- Metamethods every type has, documented once for the whole page, and the
-- fields every metatable has; others (__tostring, __len, ...) must be named
-- in the type's own section.
local GENERIC_META = { __gc = true, __close = true }
local IMPLICIT_META = { __index = true, __name = true }

-- The forms in which a page shows a metamethod (tostring(t), #t).
local function meta_forms(mm, var)
  local shown = { __tostring = "tostring(" .. var .. ")", __len = "#" .. var }
  return { mm, shown[mm] }
end

-- Every public member of a module: "prefix.name" forms, nested one level for
-- tables of functions (elim.modes.edge).
local function module_names(mod)
  local out = {}
  for _, k in ipairs(sorted_keys(mod)) do
    local v = mod[k]
    out[#out + 1] = { k }
    if type(v) == "table" and #v == 0 and k ~= "core" then
      for _, k2 in ipairs(sorted_keys(v)) do
        if type(v[k2]) == "function" then out[#out + 1] = { k .. "." .. k2 } end
      end
    end
  end
  return out
end

-- Members of the modules that doc does not mention ("module.name" strings).
local function undocumented_module_names(doc, modules, load)
  local missing = {}
  for _, m in ipairs(modules) do
    for _, n in ipairs(module_names(load(m.name))) do
      local ok = false
      for _, p in ipairs(m.prefixes) do ok = ok or mentions(doc, p .. n[1]) end
      if not ok then missing[#missing + 1] = m.name .. "." .. n[1] end
    end
  end
  return missing
end

-- The section of doc that starts with the heading "## title".
local function section(doc, title)
  local s = doc:find("\n## " .. title .. "\n", 1, true)
  if not s then return nil end
  local e = doc:find("\n## ", s + 1, true)
  return doc:sub(s, e or #doc)
end

-- The userdata types registered under "cgwb." with an __index table of methods.
local function userdata_types(reg)
  local types = {}
  for _, name in ipairs(sorted_keys(reg)) do
    local mt = reg[name]
    if name:match("^cgwb%.") and type(mt) == "table" and type(mt.__index) == "table" then
      types[#types + 1] = name
    end
  end
  return types
end

-- Methods and metamethods of each type that its section of doc ("## cgwb.Tape")
-- does not mention.
local function undocumented_methods(doc, reg)
  local missing = {}
  for _, tname in ipairs(userdata_types(reg)) do
    local var, sec = METHOD_VAR[tname], section(doc, tname)
    if not var then
      missing[#missing + 1] = tname .. ": a new type (give it a variable in METHOD_VAR)"
    elseif not sec then
      missing[#missing + 1] = tname .. ": no section '## " .. tname .. "'"
    else
      local mt = reg[tname]
      for _, m in ipairs(sorted_keys(mt.__index)) do
        if not mentions(sec, var .. ":" .. m) then missing[#missing + 1] = tname .. ":" .. m end
      end
      for _, mm in ipairs(sorted_keys(mt)) do
        if mm:match("^__") and not IMPLICIT_META[mm] then
          local where, found = GENERIC_META[mm] and doc or sec, false
          for _, form in ipairs(meta_forms(mm, var)) do found = found or where:find(form, 1, true) end
          if not found then missing[#missing + 1] = tname .. " metamethod " .. mm end
        end
      end
    end
  end
  return missing
end

-- {==== paths ====}

-- Files made by `make examples` (and the benchmark builds), not in git.
local GENERATED = {
  "^examples/tapes/", "^examples/build/",
}

local ROOTS = { doc = true, csrc = true, lua = true, spec = true, scripts = true, examples = true }

-- A path as written (with <placeholders>, * globs and {a,b} sets) as a list
-- of Lua patterns anchored on both ends.
local function path_patterns(p)
  local alts = { p }
  while true do
    local done = true
    local nxt = {}
    for _, a in ipairs(alts) do
      local pre, body, post = a:match("^(.-){([^{}]*)}(.*)$")
      if pre then
        done = false
        for choice in (body .. ","):gmatch("([^,]*),") do nxt[#nxt + 1] = pre .. choice .. post end
      else
        nxt[#nxt + 1] = a
      end
    end
    alts = nxt
    if done then break end
  end
  local pats = {}
  for _, a in ipairs(alts) do
    local q = a:gsub("[%^%$%(%)%%%.%[%]%+%-%?]", "%%%0")
    q = q:gsub("<[^>]*>", "\1"):gsub("%*", "\2")
    q = q:gsub("\1", "[^/]+"):gsub("\2", "[^/]*")
    pats[#pats + 1] = "^" .. q .. "$"
  end
  return pats
end

-- Whether path (a file or a directory, possibly a pattern) exists in files.
local function path_exists(path, files, set)
  path = path:gsub("/$", "")
  if set[path] then return true end
  for _, g in ipairs(GENERATED) do
    if (path .. "/"):match(g) then return true end
  end
  for _, pat in ipairs(path_patterns(path)) do
    local dir = pat:sub(1, -2) .. "/"
    for _, f in ipairs(files) do
      if f:match(pat) or f:match(dir) then return true end
    end
  end
  return false
end

-- Candidate repository paths of a Markdown document at docpath: every word
-- (in backticks or not) that starts with a top-level directory, and every
-- relative link target (resolved against the document's directory).
local function cited_paths(text, docpath)
  local out = {}
  local dir = docpath:match("^(.*)/") or ""
  for word in text:gmatch("%S+") do -- in backticks, and in plain text too
    word = word:gsub("^[`\"'(%[*_]+", ""):match("^[^`]*"):gsub("'s$", "")
    word = word:gsub("[\"'),;:.!?%]*_]+$", "")
    local root = word:match("^(%a+)/")
    if root and ROOTS[root] and not word:match("^%a+/%?") then out[#out + 1] = word end
  end
  for target in text:gmatch("%]%(([^)%s]+)%)") do
    if not target:match("^%a+:") and not target:match("^#") then
      local t = target:gsub("#.*$", "")
      local full = dir ~= "" and (dir .. "/" .. t) or t
      repeat local n; full, n = full:gsub("[^/]+/%.%./", "", 1) until n == 0
      out[#out + 1] = full
    end
  end
  return out
end

-- "doc: path" for every cited path that does not exist.
local function missing_paths(docs, files, set, read)
  local missing = {}
  for _, d in ipairs(docs) do
    for _, p in ipairs(cited_paths(read(d), d)) do
      if not path_exists(p, files, set) then missing[#missing + 1] = d .. ": " .. p end
    end
  end
  return missing
end

-- {==== internal citations ====}

-- "seed" and a three-digit number, also across a comment's line break
-- ("seed\n-- 004"), or a shared/ path.
local function forbidden_mentions(text)
  local found = {}
  for m in text:gmatch("[Ss][Ee][Ee][Dd][%s%-%*/#]*%d%d%d%f[%D]") do found[#found + 1] = m end
  for m in text:gmatch("%f[%w_]shared/[%w_%.%-/]*") do found[#found + 1] = m end
  return found
end

local SCANNED = { "^README%.md$", "^doc/", "^lua/", "^csrc/", "^scripts/", "^examples/" }

local function scanned(f)
  for _, p in ipairs(SCANNED) do
    if f:match(p) then return true end
  end
  return false
end

-- "file: mention" for every forbidden mention in the content or name of a
-- scanned text file.
local function internal_citations(files, read)
  local bad = {}
  for _, f in ipairs(files) do
    if scanned(f) then
      for _, m in ipairs(forbidden_mentions(f)) do bad[#bad + 1] = f .. ": file name " .. m end
      local text = read(f)
      if text and not text:find("\0", 1, true) then
        for _, m in ipairs(forbidden_mentions(text)) do
          bad[#bad + 1] = f .. ": " .. m:gsub("%s+", " ")
        end
      end
    end
  end
  return bad
end

-- "file: NAME.md" for every Markdown file the code names (csrc/, lua/,
-- scripts/, examples/, spec/c/: in its comments) that is not in the
-- repository: as written (a path), or a file of that name anywhere in it.
local CODE_SCANNED = { "^lua/", "^csrc/", "^scripts/", "^examples/", "^spec/c/" }

local function missing_md_names(files, set, read)
  local names, bad = {}, {}
  for _, f in ipairs(files) do names[f:match("[^/]*$")] = true end
  for _, f in ipairs(files) do
    local code = false
    for _, p in ipairs(CODE_SCANNED) do code = code or f:match(p) ~= nil end
    local text = code and not f:match("%.md$") and read(f)
    if text and not text:find("\0", 1, true) then
      for at, name in text:gmatch("()%f[%w_%-./]([%w_%-./]+%.md)%f[^%w_]") do
        local before = text:sub(at - 1, at - 1) -- "$DIR/x.md", "[OUT.md]": made, not cited
        if before ~= "$" and before ~= "[" and not set[name] and not names[name] then
          bad[#bad + 1] = f .. ": " .. name
        end
      end
    end
  end
  return bad
end

-- {==== references ====}

-- The short forms of doc/references.md: the first cell of each table row.
local function short_forms(refs)
  local out = {}
  for cell in refs:gmatch("\n| ([^|\n]-) |") do out[#out + 1] = cell end
  return table.concat(out, "\n")
end

local NOT_AUTHORS = { The = true, October = true, Table = true, Tables = true, Figure = true }

-- Author citations in text: "Name & Name" pairs and "Name YYYY".
local function author_citations(text)
  local found = {}
  for a in text:gmatch("%f[%w][A-Z][a-z\195\171]+ & [A-Z][a-z\195\171]+%f[^%w\128-\255]") do
    found[#found + 1] = a
  end
  for name, year in text:gmatch("%f[%w]([A-Z][a-z\195\171]+) ([12]%d%d%d)%f[%D]") do
    if not NOT_AUTHORS[name] then found[#found + 1] = name .. " " .. year end
  end
  return found
end

-- This file, whose counterexamples would otherwise count as citations.
local SELF = "spec/09-docs_spec.lua"

-- "file: citation" for every author citation that forms does not list.
local function unlisted_citations(files, read, forms)
  local bad, seen = {}, {}
  for _, f in ipairs(files) do
    if f ~= "doc/references.md" and f ~= SELF
       and (scanned(f) or f:match("^spec/[^/]*%.lua$") or f:match("^spec/c/")) then
      local text = read(f)
      if text and not text:find("\0", 1, true) then
        for _, c in ipairs(author_citations(text)) do
          if not forms:find(c, 1, true) and not seen[f .. c] then
            seen[f .. c] = true
            bad[#bad + 1] = f .. ": " .. c
          end
        end
      end
    end
  end
  return bad
end

local read_or_nil = H.read_or_nil

local function report(list)
  return #list .. " problem(s):\n  " .. table.concat(list, "\n  ")
end

-- {==== the specs ====}

describe("doc/api.md covers the public API", function()
  local doc = H.read("doc/api.md")

  it("names every member of every module", function()
    local missing = undocumented_module_names(doc, MODULES, require)
    assert(#missing == 0, report(missing))
  end)

  it("names every method and metamethod of every userdata type", function()
    local missing = undocumented_methods(doc, debug.getregistry())
    assert(#missing == 0, report(missing))
  end)

  it("finds the six userdata types, so the walk is not empty", function()
    require "cgwb.kernel" -- adds the Kernel's Lua methods, which the walk then checks
    assert.same({ "cgwb.Graph", "cgwb.GraphBuilder", "cgwb.JPlan", "cgwb.Kernel", "cgwb.LinGraph", "cgwb.Schedule",
                  "cgwb.Tape" },
                userdata_types(debug.getregistry()))
  end)

  it("reports a member, a method and a metamethod that the page leaves out", function()
    local mod = { read_tape = print, shiny = print, modes = { edge = print } }
    local m = undocumented_module_names("`cgwb.read_tape(path)`, `cgwb.shiny_new`",
      { { name = "fake", prefixes = { "cgwb." } } }, function() return mod end)
    assert.same({ "fake.modes", "fake.modes.edge", "fake.shiny" }, m)
    local reg = { ["cgwb.Tape"] = { __index = { len = print, glow = print }, __gc = print,
                                    __len = print, __tostring = print } }
    local page = "__gc `t:glow()`\n## cgwb.Tape\n`t:len()` `t:glowing()`, tostring(t)\n## next\n#t"
    assert.same({ "cgwb.Tape:glow", "cgwb.Tape metamethod __len" }, undocumented_methods(page, reg))
    assert.same({ "cgwb.Odd: a new type (give it a variable in METHOD_VAR)" },
                undocumented_methods(page, { ["cgwb.Odd"] = { __index = {} } }))
  end)
end)

describe("the docs cite only files that exist", function()
  local files, set = repo_files()
  local docs = {}
  for _, f in ipairs(files) do
    if f == "README.md" or (f:match("^doc/") and f:match("%.md$")) then docs[#docs + 1] = f end
  end
  table.sort(docs)

  it("sees README.md and the doc pages", function()
    assert(set["README.md"] and #docs > 10, "expected README.md and doc/*.md, got " .. #docs)
  end)

  it("every repository path written or linked exists", function()
    local missing = missing_paths(docs, files, set, H.read)
    assert(#missing == 0, report(missing))
  end)

  it("reports paths that do not exist, and accepts placeholders and generated files", function()
    local fake = { "doc/a.md", "doc/results/b.md", "examples/x.lua", "spec/c/test_t.c" }
    local fset = {}
    for _, f in ipairs(fake) do fset[f] = true end
    local page = table.concat({
      "`doc/a.md` and `doc/gone.md`, [b](results/b.md), [c](results/c.md),",
      "`examples/tapes/bratu.tap` (made by make), `spec/c/test_<name>.c`, `examples/*.lua`,",
      "`doc/{a,z}.md`, `scripts/missing.sh --flag`, [web](https://example.org/x.md),",
      "doc/a.md's neighbour lua/none.lua, `examples/x.lua`'s twin",
    }, "\n")
    local missing = missing_paths({ "doc/page.md" }, fake, fset, function() return page end)
    assert.same({ "doc/page.md: doc/gone.md", "doc/page.md: scripts/missing.sh",
                  "doc/page.md: lua/none.lua", "doc/page.md: doc/results/c.md" }, missing)
  end)
end)

describe("the code names only Markdown files that exist", function()
  local files, set = repo_files()

  it("every NAME.md in csrc/, lua/, scripts/, examples/ and spec/c/ is in the repository", function()
    local bad = missing_md_names(files, set, read_or_nil)
    assert(#bad == 0, report(bad))
  end)

  it("reports a file the repository lacks, by name or by path", function()
    local texts = {
      ["csrc/a.c"] = "/* STYLE.md rule 2; doc/hacking.md, README.md; see formats.md */",
      ["lua/b.lua"] = "-- doc/missing.md; writes \"$DIR/out.md\" [OUT.md]",
      ["doc/c.md"] = "STYLE.md", -- the docs' paths are checked above
      ["doc/formats.md"] = "", ["doc/hacking.md"] = "", ["README.md"] = "",
    }
    local tf = sorted_keys(texts)
    local ts = {}
    for _, f in ipairs(tf) do ts[f] = true end
    assert.same({ "csrc/a.c: STYLE.md", "lua/b.lua: doc/missing.md" },
      missing_md_names(tf, ts, function(f) return texts[f] end))
  end)
end)

describe("doc/references.md lists every work cited", function()
  local files = repo_files()
  local forms = short_forms(H.read("doc/references.md"))

  it("every 'Name & Name' and 'Name YYYY' citation is a short form of doc/references.md", function()
    local bad = unlisted_citations(files, read_or_nil, forms)
    assert(#bad == 0, report(bad))
  end)

  it("reports a citation the page does not list", function()
    local texts = {
      ["csrc/a.c"] = "/* Bischof & Hu 1991, sec. 2; Curtis & Powell 1974; Naumann 2004 */",
      ["doc/b.md"] = "MINPACK-2 (Averick, October 1991); The 1991 sources; Table 2 & 3",
    }
    local page = "| short form | full |\n| Bischof & Hu 1991 | ... |\n| Naumann 2004 | ... |\n"
    assert.same({ "csrc/a.c: Curtis & Powell", "csrc/a.c: Powell 1974" },
                unlisted_citations(sorted_keys(texts), function(f) return texts[f] end,
                                   short_forms(page)))
  end)
end)

describe("no project-internal citations", function()
  local files = repo_files()

  it("no 'seed NNN' and no shared/ path in the docs, README, lua/, csrc/, scripts/, examples/", function()
    local bad = internal_citations(files, read_or_nil)
    assert(#bad == 0, report(bad))
  end)

  it("finds them in text, across a comment's line break, and in file names", function()
    local texts = {
      ["lua/a.lua"] = "-- as in seed\n-- 000 Figure 11\nlocal seed = 12345\n",
      ["csrc/b.c"] = "/* Seed 004, sec. 1 */ x = seed * 2654435761;",
      ["doc/c.md"] = "see `/work/shared/reference/x.md` and seeded runs (--seed 1)",
      ["examples/graphs/seed004.eliad"] = "",
      ["spec/d_spec.lua"] = "seed 004", -- spec/ is not scanned
    }
    local bad = internal_citations(sorted_keys(texts), function(f) return texts[f] end)
    assert.same({ "csrc/b.c: Seed 004", "doc/c.md: shared/reference/x.md",
                  "examples/graphs/seed004.eliad: file name seed004", "lua/a.lua: seed -- 000" }, bad)
  end)
end)
