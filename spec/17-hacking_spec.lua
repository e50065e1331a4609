-- spec/17-hacking_spec.lua: doc/hacking.md stays true.  The floors of the
-- core include only the floors below them, and the tape files and the
-- binding files form no cycle; every code block of the page is code of the
-- tree (the worked examples in examples/hacking/, or the core's lines it
-- quotes), and every recipe's diff block applies to the tree as it is
-- (spec/47-recipes_spec.lua applies them to a scratch copy and checks what
-- they add); every C file that goes case by case over the kernels' kinds
-- states the kinds it handles (CG_KKINDS_SEEN); the worked examples compile,
-- run and give their results.
local H = require "spec.helper"
local R = require "recipes"

local function lines_of(path)
  local t = {}
  for l in (H.read(path) .. "\n"):gmatch("(.-)\n") do t[#t + 1] = l end
  return t
end

local function ls(pattern)
  local out, p = {}, io.popen("ls " .. pattern .. " 2>/dev/null")
  for l in p:lines() do out[#out + 1] = l end
  p:close()
  return out
end

-- The floor of an #include "..." seen from a file of floor `area`.
local function floor_of(area, inc)
  return inc:match("^%.%./(%a+)/") or inc:match("^(%a+)/") or area
end

-- {==== the graph of the files of a floor ====}

-- C text with its comments, strings and character constants blanked (lines kept).
local function code_of(text)
  local out, i = {}, 1
  while true do
    local j = text:find("[/\"']", i)
    if not j then break end
    local c, k = text:sub(j, j), nil
    if c == "/" and text:sub(j + 1, j + 1) == "*" then
      k = (text:find("*/", j + 2, true) or #text - 1) + 1
    elseif c == "/" and text:sub(j + 1, j + 1) == "/" then
      k = (text:find("\n", j, true) or #text + 1) - 1
    elseif c ~= "/" then -- a string or character constant, escapes skipped
      k = j + 1
      while k <= #text and text:sub(k, k) ~= c do k = k + (text:sub(k, k) == "\\" and 2 or 1) end
    end
    if k then
      out[#out + 1] = text:sub(i, j - 1)
      out[#out + 1] = text:sub(j, k):gsub("[^\n]", " ")
      i = k + 1
    else
      out[#out + 1] = text:sub(i, j)
      i = j + 1
    end
  end
  out[#out + 1] = text:sub(i)
  return table.concat(out)
end

-- The functions and objects a file's code defines with external linkage: a
-- line at column 0, not static (nor a typedef, extern, enum or directive),
-- whose first name followed by "(", "[", "=" or ";" is the one defined (a
-- function only when its "{" comes before any ";": not a prototype).
local function external_defs(code)
  local names, pos = {}, 1
  for line in (code .. "\n"):gmatch("(.-)\n") do
    if line:match("^[%a_]") and not line:match("^static%f[%W]") and not line:match("^typedef%f[%W]")
       and not line:match("^extern%f[%W]") and not line:match("^enum%f[%W]") then
      local at, name, c = line:match("()([%a_][%w_]*)%s*([%(%[=;])")
      if name and not name:match("^__") then
        local b, sc = code:find("{", pos + at - 1, true), code:find(";", pos + at - 1, true)
        if c ~= "(" or (b and (not sc or b < sc)) then names[name] = true end
      end
    end
    pos = pos + #line + 1
  end
  return names
end

-- The graph of the .c files of a folder (texts: file -> its text): f -> g when
-- f uses a function or object g defines, or includes g's private header
-- (g's name with _impl.h for .c).  graph[f] is the sorted list of such g.
local function file_graph(texts)
  local files, owner, codes, graph = {}, {}, {}, {}
  for f, text in pairs(texts) do
    files[#files + 1] = f
    codes[f] = code_of(text)
    for n in pairs(external_defs(codes[f])) do owner[n] = f end
  end
  table.sort(files)
  for _, f in ipairs(files) do
    local to, list = {}, {}
    for w in codes[f]:gmatch("[%a_][%w_]*") do
      if owner[w] and owner[w] ~= f then to[owner[w]] = true end
    end
    for inc in texts[f]:gmatch('#include%s*"([^"/]+)_impl%.h"') do
      local g = f:gsub("[^/]*$", inc .. ".c")
      if texts[g] and g ~= f then to[g] = true end
    end
    for g in pairs(to) do list[#list + 1] = g end
    table.sort(list)
    graph[f] = list
  end
  return graph, files
end

-- The first cycle of the graph (a list of files, the first repeated last), or nil.
local function find_cycle(graph, files)
  local state, stack = {}, {}
  local function visit(f)
    state[f] = "open"
    stack[#stack + 1] = f
    for _, g in ipairs(graph[f]) do
      if state[g] == "open" then
        local cyc, on = {}, false
        for _, h in ipairs(stack) do
          on = on or h == g
          if on then cyc[#cyc + 1] = h end
        end
        cyc[#cyc + 1] = g
        return cyc
      elseif not state[g] then
        local cyc = visit(g)
        if cyc then return cyc end
      end
    end
    stack[#stack] = nil
    state[f] = "done"
  end
  for _, f in ipairs(files) do
    if not state[f] then
      local cyc = visit(f)
      if cyc then return cyc end
    end
  end
end

-- The texts of the .c files of a folder.
local function c_texts(dir)
  local texts = {}
  for _, f in ipairs(ls(dir .. "/*.c")) do texts[f:match("[^/]*$")] = H.read(f) end
  return texts
end

-- The cycle of a folder's files as "a -> b -> a" from its first file in
-- sorted order, or nil.
local function cycle_text(texts)
  local cyc = find_cycle(file_graph(texts))
  if not cyc then return nil end
  cyc[#cyc] = nil
  local m = 1
  for i = 2, #cyc do if cyc[i] < cyc[m] then m = i end end
  local out = {}
  for i = 0, #cyc do out[#out + 1] = cyc[(m - 1 + i) % #cyc + 1] end
  return table.concat(out, " -> ")
end

-- }====

-- The C files (path -> text) whose code goes case by case over the
-- statement kinds or expression operators (a `case CG_KST_` or `case CG_KE_`)
-- without stating the kinds they handle, CG_KKINDS_SEEN (cg_kernel.h), sorted.
local function unstated_kinds(texts)
  local out = {}
  for path, text in pairs(texts) do
    local code = code_of(text)
    if (code:find("case%s+CG_KST_") or code:find("case%s+CG_KE_")) and not ("\n" .. code):find("\nCG_KKINDS_SEEN%(") then
      out[#out + 1] = path
    end
  end
  table.sort(out)
  return out
end

local read_or_nil = H.read_or_nil

-- Compiles a C example against the core (extra flags) and returns its output.
local function compile_run(src, flags)
  local exe = H.tmp(".exe")
  local san = H.build:find("debug") and "-fsanitize=address,undefined" or "" -- the sanitizer build's library
  assert.is_true(os.execute(("cc -std=c99 -Wall -Wextra -Werror %s -Icsrc %s %s %s/libcgwbcore.a -lm -o %s")
    :format(san, flags or "", src, H.build, exe)) == true)
  local p = io.popen(exe)
  local out = p:read("a")
  p:close()
  os.remove(exe)
  return out
end

describe("doc/hacking.md", function()
  it("the floors of the core include only the floors below them", function()
    local allowed = {
      util = {}, tape = { util = true }, graph = { util = true, tape = true },
      sched = { graph = true, util = true }, elim = { graph = true, util = true },
      kernel = { graph = true, util = true },
      adjoint = { kernel = true, graph = true, util = true },
    }
    local tape_free = { ["csrc/graph/cg_graph.h"] = true, ["csrc/graph/cg_gbuild.h"] = true,
                        ["csrc/graph/cg_gops.h"] = true }
    local bad = {}
    for area in pairs(allowed) do
      for _, f in ipairs(ls("csrc/" .. area .. "/*.[ch]")) do
        local text = H.read(f)
        assert.falsy(text:find("#include%s*[<\"]lua"), f .. " includes Lua")
        for inc in text:gmatch('#include%s*"([^"]+)"') do
          local fl = floor_of(area, inc)
          if fl ~= area and not allowed[area][fl] then bad[#bad + 1] = f .. " -> " .. inc end
          if tape_free[f] and fl == "tape" then bad[#bad + 1] = f .. " -> " .. inc .. " (must not see a tape)" end
        end
      end
    end
    table.sort(bad)
    assert.are.same({}, bad)
  end)

  it("the tape files form no cycle: readers call down, the loader and the detection call the readers", function()
    local texts = c_texts("csrc/tape")
    assert.is_nil(cycle_text(texts))
    local graph = file_graph(texts)
    local edges = {}
    for f, to in pairs(graph) do
      for _, g in ipairs(to) do edges[f .. " -> " .. g] = true end
    end
    for _, e in ipairs { -- the derived graph sees the arrows that must be there
      "cg_tape.c -> cg_ops.c", "cg_sparse.c -> cg_tape.c", "cg_adolc.c -> cg_ops.c",
      "cg_classic.c -> cg_tape.c", "cg_text.c -> cg_tape.c", "cg_reader.c -> cg_adolc.c",
      "cg_reader.c -> cg_classic.c", "cg_reader.c -> cg_text.c", "cg_load.c -> cg_reader.c",
      "cg_load.c -> cg_tape.c", "cg_load.c -> cg_sparse.c", "cg_stats.c -> cg_reader.c",
    } do
      assert.is_true(edges[e], e)
    end
    assert.same({}, graph["cg_ops.c"])
    -- An arrow back fails: the opcode table loading a tape, a reader detecting a format.
    local back = {}
    for f, t in pairs(texts) do back[f] = t end
    back["cg_ops.c"] = texts["cg_ops.c"] .. "\nint cg_back(void) { return cg_tape_load(0, 0, 0) != 0; }\n"
    assert.equal("cg_load.c -> cg_ops.c -> cg_load.c", cycle_text(back))
    back["cg_ops.c"] = texts["cg_ops.c"]
    back["cg_text.c"] = texts["cg_text.c"] .. "\nstatic void *back(void) { return cg_reader_open; }\n"
    assert.equal("cg_reader.c -> cg_text.c -> cg_reader.c", cycle_text(back))
    back["cg_text.c"] = texts["cg_text.c"]
    back["cg_ops.c"] = '#include "cg_tape_impl.h"\n' .. texts["cg_ops.c"] -- a private header is an arrow too
    assert.equal("cg_ops.c -> cg_tape.c -> cg_ops.c", cycle_text(back))
  end)

  it("the binding files form no cycle: lcg_util.c calls none, lcgwb.c (the opener) is called by none", function()
    local texts = c_texts("csrc/lua")
    assert.is_nil(cycle_text(texts))
    local graph = file_graph(texts)
    assert.same({}, graph["lcg_util.c"])
    local opened = {}
    for f, to in pairs(graph) do
      local uses = {}
      for _, g in ipairs(to) do uses[g] = true end
      assert.is_nil(uses["lcgwb.c"], f .. " -> lcgwb.c")
      assert.is_true(f == "lcg_util.c" or uses["lcg_util.c"], f .. " does not use lcg_util.c")
    end
    for _, g in ipairs(graph["lcgwb.c"]) do opened[g] = true end
    for _, f in ipairs { "lcg_tape.c", "lcg_graph.c", "lcg_kflat.c", "lcg_progress.c", "lcg_util.c" } do
      assert.is_true(opened[f], "lcgwb.c -> " .. f)
    end
    local back = {}
    for f, t in pairs(texts) do back[f] = t end
    back["lcg_util.c"] = texts["lcg_util.c"] .. "\nint lcg_back(lua_State *L) { return lcg_checktape(L, 1) != 0; }\n"
    assert.equal("lcg_tape.c -> lcg_util.c -> lcg_tape.c", cycle_text(back))
  end)

  it("every code block is code of the tree", function()
    local page = H.read("doc/hacking.md")
    local sources = ls("examples/hacking/*")
    for _, f in ipairs { "csrc/graph/cg_gops.h", "csrc/tape/cg_reader.c" } do sources[#sources + 1] = f end
    local known = {}
    for _, f in ipairs(sources) do
      for _, l in ipairs(lines_of(f)) do known[l:gsub("%s+$", "")] = true end
    end
    local blocks = 0
    for info, body in page:gmatch("```(%a*)\n(.-)```") do
      if info == "diff" then goto continue end -- a recipe's edits: below
      blocks = blocks + 1
      for l in body:gmatch("(.-)\n") do
        local line = l:gsub("%s+$", "")
        if line ~= "" then assert.is_true(known[line] ~= nil, "not in the tree: " .. line) end
      end
      ::continue::
    end
    assert.is_true(blocks >= 6)
    for path in page:gmatch("`(examples/hacking/[%w_.]+)`") do
      assert.truthy(io.open(path), path .. " is missing")
    end
  end)

  it("every recipe's edits apply to the tree as it is: each hunk's context occurs once in its file", function()
    local hunks = R.parse(H.read("doc/hacking.md"))
    assert.is_true(#hunks >= 15, "the recipes' hunks were read")
    local texts = R.apply(hunks, read_or_nil) -- raises naming a hunk that does not apply
    local files = 0
    for path, text in pairs(texts) do
      files = files + 1
      assert.are_not.equal(read_or_nil(path), text, path .. " unchanged")
    end
    assert.is_true(files >= 10)
    -- a hunk whose context the file lacks, or holds twice, is refused by name
    local function refused(hunk, text)
      local ok, err = pcall(R.apply, { hunk }, function() return text end)
      return not ok and tostring(err) or nil
    end
    local h = { path = "x.c", n = 1, line = 7, section = "s", old = { "a" }, new = { "a", "b" },
                ops = { { " ", "a" }, { "+", "b" } } }
    assert.truthy((refused(h, "c\n") or ""):find("x.c#1 (doc/hacking.md line 7, s): its context occurs 0 times", 1, true))
    assert.truthy((refused(h, "a\nc\na\n") or ""):find("occurs 2 times", 1, true))
    assert.same({ ["x.c"] = "c\na  \nb\n" }, R.apply({ h }, function() return "c\na  \n" end)) -- the file's own line
    assert.same({ ["x.c"] = "a\nb\n" }, R.apply({ h }, function() return "a\n" end))
  end)

  it("every C file that goes case by case over the kernels' kinds states them (CG_KKINDS_SEEN)", function()
    local texts = {}
    for _, f in ipairs(ls("csrc/*/*.c")) do texts[f] = H.read(f) end
    assert.same({}, unstated_kinds(texts))
    local n = 0
    for _, t in pairs(texts) do n = n + (t:find("\nCG_KKINDS_SEEN%(") and 1 or 0) end
    assert.is_true(n >= 8, "the files that state them were found")
    assert.same({ "b.c" }, unstated_kinds({ ["a.c"] = "CG_KKINDS_SEEN(9, 24);\nint f(int k) { switch (k) { case CG_KST_IF: return 1; } return 0; }\n",
      ["b.c"] = "/* CG_KKINDS_SEEN(9, 24) */\nint f(int k) { switch (k) { case CG_KE_ADD: return 1; } return 0; }\n",
      ["c.c"] = "int f(int k) { return k == CG_KST_IF; }\n" }))
  end)

  it("the front end in C builds a graph without a tape and gives its Jacobian", function()
    local out = compile_run("examples/hacking/front_end.c")
    local e = math.exp(1.0)
    assert.are.equal(("nodes 4, mults 2\nJ(1,1) = %.17g\nJ(1,2) = %.17g\n"):format(2 * e + 1, 0.5 * e), out)
  end)

  it("the front end in Lua gives the same", function()
    local out, err, code = H.cgwb("run examples/hacking/front_end.lua")
    assert.are.equal(0, code, err)
    local e = math.exp(1.0)
    assert.are.equal(("J(1,1) = %.17g\nJ(1,2) = %.17g\n"):format(2 * e + 1, 0.5 * e), out)
  end)

  it("the ordering of rules.h is in the registry and gives the sweep's Jacobian", function()
    local out = compile_run("examples/hacking/ordering.c", "-Iexamples/hacking")
    local diff = tonumber(out:match("largest difference from the sweep (%S+)"))
    assert.truthy(out:find("min%-out%-degree, %d+ multiplications"), out)
    assert.is_true(diff ~= nil and diff < 1e-12, out)
  end)

  it("the level scheme in Lua schedules and generates code", function()
    local out, err, code = H.cgwb("run examples/hacking/levels.lua examples/tapes/cavity.tap")
    assert.are.equal(0, code, err)
    local lv, hv = out:match("(%d+) levels %(height: (%d+)%)")
    assert.are.equal(2 * (tonumber(hv) - 1) + 1, tonumber(lv), out) -- levels 0, 2, ..., 2 (h - 1)
    assert.truthy(out:find("generated %d+ bytes of C"), out)
  end)
end)
