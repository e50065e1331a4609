-- spec/42-manual_spec.lua: the manual and the API reference stay true to the code.
--
-- The API reference (`make doc`, LDoc over lua/cgwb/*.lua, the packages'
-- lua/cgwb/*/init.lua and the binding files csrc/lua/*.c, configured by
-- doc/config.ld) has an entry for every
-- public function: every function field of each module under lua/cgwb/ and
-- of cgwb.core (and of its tables of functions, as elim.modes.edge), every
-- method of every userdata class registered under a "cgwb." name (walked in
-- the registry, as `Tape:len`), and the methods of the Lua classes the
-- modules hand out (a kept Jacobian plan's `Plan:at`); and no entry names
-- something that does not exist.  LDoc itself must run without a warning (a
-- broken @{reference} is one).  Every fenced ```lua and ```sh block of
-- doc/manual.md runs, unless an HTML comment `<!-- no-run -->` stands just
-- above it: Lua blocks through `cgwb run`, shell blocks with bash -e and the
-- command on PATH as `cgwb`, both in a scratch directory where `examples`
-- is the repository's.  Each check runs once on a counterexample too.
local H = require "spec.helper"
local cgwb = require "cgwb"

local ROOT = assert(io.popen("pwd")):read("l")
local LDOC = "lua5.4 \"$(command -v ldoc)\" -c doc/config.ld"

-- {==== helpers ====}

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do
    if type(k) == "string" then keys[#keys + 1] = k end
  end
  table.sort(keys)
  return keys
end

-- Runs a shell command; returns its stdout and stderr (as text) and whether it exited 0.
local function run(cmd)
  local out, err = ROOT .. "/" .. H.tmp(".out"), ROOT .. "/" .. H.tmp(".err")
  local ok = os.execute(("%s >%s 2>%s"):format(cmd, out, err))
  local o, e = H.read(out), H.read(err)
  os.remove(out)
  os.remove(err)
  return o, e, ok == true
end

local function report(list)
  return #list .. " problem(s):\n  " .. table.concat(list, "\n  ")
end

-- {==== the live API ====}

-- The module names: lua/cgwb/NAME.lua is cgwb.NAME (init.lua is cgwb), a
-- package's lua/cgwb/DIR/init.lua cgwb.DIR, and a file of a subdirectory that
-- declares its @module, lua/cgwb/DIR/NAME.lua, cgwb.DIR.NAME (the command
-- line's modules, cgwb.util.*, ...; not the front end's lua/cgwb/kparse/,
-- which doc/config.ld leaves out); and cgwb.core.
local function module_names()
  local names = { "cgwb.core" }
  local p = assert(io.popen("ls lua/cgwb/*.lua lua/cgwb/*/init.lua; "
    .. "grep -l '^-- *@module' lua/cgwb/*/*.lua | grep -v '^lua/cgwb/kparse/\\|/init\\.lua$'"))
  local seen = {}
  for path in p:lines() do
    local n = path:match("^lua/(.-)%.lua$"):gsub("/init$", ""):gsub("/", ".")
    if not seen[n] then seen[n] = true; names[#names + 1] = n end
  end
  p:close()
  table.sort(names)
  return names
end

-- The public functions of a module table: "name" for a function field,
-- "table.name" for a function in a table of functions (not an array).
local function module_functions(mod)
  local out = {}
  for _, k in ipairs(sorted_keys(mod)) do
    local v = mod[k]
    if type(v) == "function" then
      out[#out + 1] = k
    elseif type(v) == "table" and #v == 0 and k ~= "core" and getmetatable(v) == nil then
      for _, k2 in ipairs(sorted_keys(v)) do
        if type(v[k2]) == "function" then out[#out + 1] = k .. "." .. k2 end
      end
    end
  end
  return out
end

-- The methods table of a metatable: its __index table, or the table a C
-- __index closure reads from (cgwb.SearchView), found among its upvalues.
local function methods_of(mt)
  if type(mt.__index) == "table" then return mt.__index end
  if type(mt.__index) == "function" then
    for i = 1, 10 do
      local name, v = debug.getupvalue(mt.__index, i)
      if name == nil then break end
      if type(v) == "table" then return v end
    end
  end
  return nil
end

-- "Class" -> {method = true} for every "cgwb.Class" metatable in reg that
-- has methods, plus the Lua classes given as extra ("Plan" -> metatable).
local function live_classes(reg, extra)
  local classes = {}
  local function add(cname, methods)
    classes[cname] = classes[cname] or {}
    for _, m in ipairs(sorted_keys(methods)) do
      if type(methods[m]) == "function" and not m:match("^__") then classes[cname][m] = true end
    end
  end
  for _, name in ipairs(sorted_keys(reg)) do
    local mt = reg[name]
    local cname = name:match("^cgwb%.(%u[%w_]*)$")
    if cname and type(mt) == "table" and methods_of(mt) then add(cname, methods_of(mt)) end
  end
  for cname, mt in pairs(extra or {}) do add(cname, mt.__index or mt) end
  return classes
end

-- The whole live surface as a set of "module\tname" and "Class:method" strings.
local function live_surface(modules, load, classes)
  local set = {}
  for _, m in ipairs(modules) do
    for _, f in ipairs(module_functions(load(m))) do set[m .. "\t" .. f] = true end
  end
  for cname, methods in pairs(classes) do
    for m in pairs(methods) do set[cname .. ":" .. m] = true end
  end
  return set
end

-- {==== the reference's entries ====}

-- Parses the filter's lines "module\ttype\tname" into {module=, type=, name=}.
local function parse_entries(text)
  local entries = {}
  for line in text:gmatch("[^\n]+") do
    local m, t, n = line:match("^([%w_.]+)\t(%a+)\t(%S+)$")
    if m then entries[#entries + 1] = { module = m, type = t, name = n } end
  end
  return entries
end

-- The key of an entry in the live surface: a method "Class:name" whatever
-- module documents it; any other entry "module\tname".
local function entry_key(e)
  if e.name:match("^%u[%w_]*:") then return e.name end
  return e.module .. "\t" .. e.name
end

-- Live functions without an entry, and function entries for nothing live.
local function compare(live, entries)
  local documented, missing, stray = {}, {}, {}
  for _, e in ipairs(entries) do
    documented[entry_key(e)] = true
    if e.type == "function" and not live[entry_key(e)] then
      stray[#stray + 1] = e.module .. ": " .. e.name .. " (no such function)"
    end
  end
  for _, k in ipairs(sorted_keys(live)) do
    if not documented[k] then missing[#missing + 1] = k:gsub("\t", ": ") .. " (no entry)" end
  end
  return missing, stray
end

-- Warnings in LDoc's output: its "file:line: message" lines and "warning" lines.
local function ldoc_warnings(text)
  local found = {}
  for line in text:gmatch("[^\n]+") do
    if line:match("^%S+:%d+: ") or line:lower():match("^warning") then found[#found + 1] = line end
  end
  return found
end

-- {==== the manual's examples ====}

-- The fenced blocks of a Markdown text: {lang=, line= (of the fence), code=,
-- skip= (an HTML comment <!-- no-run ... --> just above it)}.
local function fenced_blocks(text)
  local blocks, lines = {}, {}
  for l in (text .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = l end
  local i = 1
  while i <= #lines do
    local lang = lines[i]:match("^```(%w*)%s*$")
    if lang then
      local j, code = i + 1, {}
      while j <= #lines and not lines[j]:match("^```%s*$") do
        code[#code + 1] = lines[j]
        j = j + 1
      end
      local k = i - 1
      while k > 0 and lines[k]:match("^%s*$") do k = k - 1 end
      blocks[#blocks + 1] = { lang = lang, line = i, code = table.concat(code, "\n") .. "\n",
                              skip = k > 0 and lines[k]:match("^<!%-%- no%-run") ~= nil }
      i = j + 1
    else
      i = i + 1
    end
  end
  return blocks
end

-- A scratch directory with `examples` linked to the repository's and a bin/
-- holding `cgwb`; returns its path.
local function scratch()
  local dir = ROOT .. "/" .. H.tmp("-manual")
  os.execute(("mkdir -p %s/bin && ln -s %s/examples %s/examples"):format(dir, ROOT, dir))
  H.write(dir .. "/bin/cgwb", ("#!/bin/sh\nexec %s/scripts/cgwb \"$@\"\n"):format(ROOT))
  os.execute("chmod +x " .. dir .. "/bin/cgwb")
  return dir
end

-- Runs one block in dir; returns nil or "doc/manual.md:LINE: why".
local function run_block(b, dir, where)
  local file = ("%s/block%d.%s"):format(dir, b.line, b.lang == "lua" and "lua" or "sh")
  H.write(file, b.code)
  local build = H.build:match("^/") and H.build or (ROOT .. "/" .. H.build)
  local env = ("cd %s && CGWB_BUILD=%s CGWB_PROGRESS=never PATH=%s/bin:$PATH "):format(dir, build, dir)
  local cmd = b.lang == "lua" and (env .. "cgwb run " .. file) or (env .. "bash -e " .. file)
  local _, err, ok = run(cmd)
  if ok then return nil end
  return ("%s:%d: the %s block failed: %s"):format(where, b.line, b.lang, err:sub(1, 600))
end

-- {==== the specs ====}

describe("the API reference (make doc)", function()
  local out, err, ok = run(("LUA_PATH='%s/?.lua;;' %s --filter spec.support.ldoc_entries.print ."):format(ROOT, LDOC))
  local entries = parse_entries(out)

  it("LDoc runs and lists entries of every module", function()
    assert(ok, "ldoc failed: " .. err .. out)
    local seen = {}
    for _, e in ipairs(entries) do seen[e.module] = true end
    local absent = {}
    for _, m in ipairs(module_names()) do
      if not seen[m] then absent[#absent + 1] = m end
    end
    assert(#absent == 0, "modules without entries: " .. table.concat(absent, ", "))
  end)

  it("writes the HTML reference without a warning (a broken reference is one)", function()
    local dir = H.tmp("-api")
    local o, e, done = run(("%s --testing -d %s/%s ."):format(LDOC, ROOT, dir))
    os.execute("rm -rf " .. dir)
    assert(done, "ldoc failed: " .. e .. o)
    local w = ldoc_warnings(err .. "\n" .. o .. "\n" .. e)
    assert(#w == 0, report(w))
  end)

  it("has an entry for every public function and method, and none for what does not exist", function()
    require "cgwb.kernel" -- adds the Kernel's Lua methods to its class
    local tape = assert(cgwb.trace(function(x) return { x[1] * x[2] } end, { 2, 3 }))
    local plan = assert(cgwb.jacobian_plan(tape))
    local reporter = require("cgwb.progress").start("nothing")
    local classes = live_classes(debug.getregistry(), { Plan = getmetatable(plan), Reporter = getmetatable(reporter) })
    plan:free()
    reporter:finish()
    for _, c in ipairs({ "Tape", "Graph", "GraphBuilder", "Schedule", "LinGraph", "JPlan", "Kernel",
                         "SearchView", "Plan", "Reporter" }) do
      assert(classes[c] and next(classes[c]), "the walk found no methods of " .. c)
    end
    local missing, stray = compare(live_surface(module_names(), require, classes), entries)
    local all = {}
    for _, m in ipairs(missing) do all[#all + 1] = m end
    for _, s in ipairs(stray) do all[#all + 1] = s end
    assert(#all == 0, report(all))
  end)

  it("reports a function without an entry and an entry without a function", function()
    local mod = { read = print, modes = { edge = print }, list = { print } }
    local classes = live_classes({ ["cgwb.Tape"] = { __index = { len = print, n = print } },
                                   ["cgwb.Budget"] = {} }, { Plan = { __index = { at = print } } })
    local live = live_surface({ "m" }, function() return mod end, classes)
    local entries = parse_entries(table.concat({
      "m\tfunction\tread", "m\tfunction\tgone", "m\tfunction\tTape:len", "x\tfunction\tPlan:at",
      "m\tfield\tversion", "m\tfunction\tKernel:run", "noise line",
    }, "\n"))
    local missing, stray = compare(live, entries)
    assert.same({ "Tape:n (no entry)", "m: modes.edge (no entry)" }, missing)
    assert.same({ "m: gone (no such function)", "m: Kernel:run (no such function)" }, stray)
    assert.same({ "/x/a.lua:3: M.f: undocumented formal argument: 'o'", "warning: a warning here" },
                ldoc_warnings("output written to x\n/x/a.lua:3: M.f: undocumented formal argument: 'o'\n"
                              .. "warning: a warning here\nreading configuration from doc/config.ld\n"))
  end)
end)

describe("every example in doc/manual.md runs", function()
  local text = H.read("doc/manual.md")
  local blocks = fenced_blocks(text)
  local runnable = {}
  for _, b in ipairs(blocks) do
    if (b.lang == "lua" or b.lang == "sh") and not b.skip then runnable[#runnable + 1] = b end
  end

  it("finds Lua and shell examples", function()
    local n = { lua = 0, sh = 0 }
    for _, b in ipairs(runnable) do n[b.lang] = n[b.lang] + 1 end
    assert(n.lua >= 5 and n.sh >= 3, ("expected Lua and shell examples, found %d and %d"):format(n.lua, n.sh))
  end)

  it("lists every command in its table of commands", function()
    local missing = {}
    for _, name in ipairs(require("cgwb.cli").order) do
      if not text:find("\n| `cgwb " .. name .. " ", 1, true) then missing[#missing + 1] = name end
    end
    assert(#missing == 0, "commands missing from doc/manual.md's table: " .. table.concat(missing, ", "))
  end)

  it("runs each Lua and shell block", function()
    local dir = scratch()
    local failed = {}
    for _, b in ipairs(runnable) do failed[#failed + 1] = run_block(b, dir, "doc/manual.md") end
    os.execute("rm -rf " .. dir)
    assert(#failed == 0, report(failed))
  end)

  it("tells blocks apart, honours no-run, and names a failing block's line", function()
    local page = table.concat({
      "# t", "```lua", "assert(require('cgwb').version)", "```", "",
      "<!-- no-run: needs a cluster -->", "", "```sh", "false", "```",
      "```sh", "cgwb --help >/dev/null", "```", "```lua", "error('boom')", "```", "```c", "int x;", "```",
    }, "\n")
    local b = fenced_blocks(page)
    assert.same({ "lua", "sh", "sh", "lua", "c" }, { b[1].lang, b[2].lang, b[3].lang, b[4].lang, b[5].lang })
    assert.same({ false, true, false, false }, { b[1].skip, b[2].skip, b[3].skip, b[4].skip })
    local dir = scratch()
    local r1, r3, r4 = run_block(b[1], dir, "p.md"), run_block(b[3], dir, "p.md"), run_block(b[4], dir, "p.md")
    os.execute("rm -rf " .. dir)
    assert.is_nil(r1)
    assert.is_nil(r3)
    assert.truthy(r4 and r4:match("^p%.md:14: the lua block failed: .*boom"), r4)
  end)
end)
