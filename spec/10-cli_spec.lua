-- spec/10-cli_spec.lua: what a user meets first: points that leave a recorded
-- branch, arguments, help, exit statuses, standard output, wrong inputs.
local H = require "spec.helper"
local cgwb = require "cgwb"

-- f(x1, x2) = x1 x2 if x1 > 0 else -x1 x2, traced at (1, 2): record 4 is the
-- branch (gt_zero of x1 - 0).
local BRANCH_TAPE = [[
assign_ind 0 1
assign_ind 1 2
min_a_d 2 0 0
gt_zero 2
death_not 2 2
mult_a_a 2 0 1
assign_dep 2
]]

-- g(x) = |x1| x2 traced at (1, 2): record 3 is abs_val (taped with x1 >= 0).
local ABS_TAPE = [[
assign_ind 0 1
assign_ind 1 2
abs_val 2 0 1
mult_a_a 3 2 1
assign_dep 3
]]

local function point(values)
  local lines = {}
  for i, v in ipairs(values) do lines[i] = ("%.17g"):format(v) end
  return H.write(H.tmp(".x"), table.concat(lines, "\n") .. "\n")
end

-- The entries of a Matrix Market text (after its size line).
local function mtx_values(text)
  local vals, body = {}, text:match("^%%%%[^\n]*\n[^\n]*\n(.*)$")
  for r, c, v in body:gmatch("(%d+) (%d+) (%S+)") do vals[#vals + 1] = { tonumber(r), tonumber(c), tonumber(v) } end
  return vals
end

describe("cli: a point that leaves a recorded branch", function()
  local tape = H.write(H.tmp(".txt"), BRANCH_TAPE)

  it("jacobian --at exits 3 naming the first changed record", function()
    local out, err, code = H.cgwb(("jacobian %s --at %s"):format(tape, point { -1, 2 }))
    assert.equal(3, code)
    assert.equal("", out)
    assert.truthy(err:find("first at record 4 (gt_zero)", 1, true), err)
  end)

  it("jacobian --at --ignore-branches gives the recorded branch's Jacobian with a warning", function()
    local out, err, code = H.cgwb(("jacobian %s --at %s --ignore-branches"):format(tape, point { -1, 2 }))
    assert.equal(0, code)
    assert.truthy(err:find("warning", 1, true), err)
    assert.same({ { 1, 1, 2 }, { 1, 2, -1 } }, mtx_values(out)) -- x2, x1 of the branch x1 x2
  end)

  it("jacobian --at on the recorded branch is f's Jacobian, exit 0", function()
    local out, _, code = H.cgwb(("jacobian %s --at %s"):format(tape, point { 3, 5 }))
    assert.equal(0, code)
    assert.same({ { 1, 1, 5 }, { 1, 2, 3 } }, mtx_values(out))
  end)

  it("eval names the record too", function()
    local _, err, code = H.cgwb(("eval %s --at %s"):format(tape, point { -1, 2 }))
    assert.equal(3, code)
    assert.truthy(err:find("first at record 4 (gt_zero)", 1, true), err)
  end)

  it("a conditional operation (abs) that switches counts as a change", function()
    local t2 = H.write(H.tmp(".txt"), ABS_TAPE)
    local _, err, code = H.cgwb(("jacobian %s --at %s"):format(t2, point { -1, 2 }))
    assert.equal(3, code)
    assert.truthy(err:find("first at record 3 (abs_val)", 1, true), err)
  end)

  it("from Lua: the count and the first record beside every result", function()
    local t <close> = assert(cgwb.read_text(BRANCH_TAPE))
    local g, n, first = cgwb.build_graph(t, { at = { -1, 2 } })
    assert.equal(1, n)
    assert.equal(4, first)
    assert.same({ 1, 4, "gt_zero" }, { g:branch_changes() })
    local lg, n2, first2 = cgwb.linearize(t, { at = { -1, 2 } })
    assert.same({ 1, 4 }, { n2, first2 })
    local copy <close> = lg:copy()
    assert.same({ 1, 4, "gt_zero" }, { copy:branch_changes() })
    local J = lg:jacobian()
    assert.same({ 1, 4, "gt_zero" }, { J.branch_changes, J.first_changed_record, J.first_changed_op })
    local lg0, n0, first0 = cgwb.linearize(t)
    assert.same({ 0 }, { n0, first0 })
    assert.is_nil(lg0:jacobian().branch_changes)
    local lg1 <close> = assert(cgwb.core.linearize(g))
    assert.same({ 1, 4, "gt_zero" }, { lg1:branch_changes() })
  end)

  it("property: on many points, a change is reported exactly when the branch differs, "
    .. "and otherwise the Jacobian is f's", function()
    local rng = require "spec.rng"
    local r = rng.new(7)
    local t <close> = assert(cgwb.read_text(BRANCH_TAPE))
    for _ = 1, 200 do
      local x1, x2 = r:float(-3, 3), r:float(-3, 3)
      local lg, n = cgwb.linearize(t, { at = { x1, x2 } })
      assert.equal(x1 > 0 and 0 or 1, n, ("at (%.17g, %.17g)"):format(x1, x2))
      local J = lg:jacobian()
      if n == 0 then
        assert.same({ x2, x1 }, J.vals)
      else
        assert.equal(1, J.branch_changes)
      end
      lg:free()
    end
  end)
end)

describe("cli: arguments and help", function()
  it("run passes every argument after the script to it, options included", function()
    local script = H.write(H.tmp(".lua"), "print(select('#', ...), table.concat({...}, '|'), arg[0] ~= nil)")
    local out, err, code = H.cgwb(("run %s a --at b -x -3"):format(script))
    assert.equal(0, code, err)
    assert.equal("5\ta|--at|b|-x|-3\ttrue\n", out)
  end)

  it("--version, help CMD, and an example in every command's help", function()
    local out, _, code = H.cgwb("--version")
    assert.equal(0, code)
    assert.truthy(out:match("^cgwb %d+%.%d+%.%d+"), out)
    for _, name in ipairs(require("cgwb.cli").order) do
      local h, _, c = H.cgwb("help " .. name)
      assert.equal(0, c, name)
      assert.truthy(h:find("Example:\n  cgwb " .. name, 1, true), name)
      local h2 = H.cgwb(name .. " --help")
      assert.equal(h, h2, name)
    end
    local _, err, c = H.cgwb("help nosuch")
    assert.equal(2, c)
    assert.truthy(err:find("unknown command 'nosuch'", 1, true))
  end)

  it("a usage error prints the command's usage, not the top level's", function()
    local _, err, code = H.cgwb("jacobian examples/tapes/bratu.tap --nosuch")
    assert.equal(2, code)
    assert.truthy(err:find("^Usage: cgwb jacobian"), err)
    assert.truthy(err:find("cgwb jacobian: unknown option '--nosuch'", 1, true), err)
  end)

  it("--order's help and error list the orderings of the registry", function()
    local h = H.cgwb("help jacobian")
    local _, err, code = H.cgwb("jacobian examples/tapes/bratu.tap --order nosuch")
    assert.equal(2, code)
    for _, name in ipairs(cgwb.orderings("vertex")) do
      assert.truthy(h:find(name, 1, true), name)
      assert.truthy(err:find(name, 1, true), name)
    end
    local list = H.cgwb("eliminate --list-orderings")
    for _, o in ipairs(require("cgwb.elim").orderings) do assert.truthy(list:find(o.name, 1, true)) end
    _, err = H.cgwb("jacobian examples/tapes/bratu.tap --mode face --order lmmd")
    assert.truthy(err:find("unknown ordering 'lmmd' for face elimination", 1, true), err)
  end)

  it("every registered ordering runs in each mode the registry gives it", function()
    local lg <close> = assert(cgwb.read_graph("examples/graphs/lighthouse.cg"))
    local elim = require "cgwb.elim"
    for _, mode in ipairs { "vertex", "edge", "face" } do
      for _, name in ipairs(cgwb.orderings(mode)) do
        local c <close> = lg:copy()
        local run = mode == "vertex" and elim.eliminate or elim.modes[mode]
        local cost, err = run(c, assert(elim.resolve(name, mode)), { seed = 1, budget = 20 })
        assert.truthy(cost, ("%s %s: %s"):format(mode, name, tostring(err)))
      end
    end
  end)

  it("integers in a stated range: budgets, seeds, chunks, limits; others exit 2", function()
    local bad = {
      "jacobian examples/tapes/bratu.tap --order anneal --budget 1e300",
      "jacobian examples/tapes/bratu.tap --budget -1",
      "jacobian examples/tapes/bratu.tap --budget 2.5",
      "jacobian examples/tapes/bratu.tap --seed nan",
      "jacobian examples/tapes/bratu.tap --seed -3",
      "codegen examples/tapes/bratu.tap --chunk 1e9 -o " .. H.tmp(".c"),
      "codegen examples/tapes/bratu.tap --chunk 0 -o " .. H.tmp(".c"),
      "graph examples/tapes/bratu.tap --limit 0",
      "graph examples/tapes/bratu.tap --node -1",
      "graph examples/tapes/bratu.tap --node 1e99",
    }
    for _, args in ipairs(bad) do
      local _, err, code = H.cgwb(args)
      assert.equal(2, code, args)
      assert.truthy(err:find("takes an integer from", 1, true), args .. ": " .. err)
      assert.falsy(err:find("%.lua:%d+:"), args .. ": " .. err) -- no internal position
    end
    assert.has_error(function()
      local lg <close> = assert(cgwb.read_graph("examples/graphs/lighthouse.cg"))
      require("cgwb.elim").anneal(lg, { budget = 1e300 })
    end)
  end)
end)

describe("cli: output and messages", function()
  it("-o - writes to standard output wherever -o is taken", function()
    local ref = H.cgwb("jacobian examples/graphs/../tapes/bratu.tap")
    local out, _, code = H.cgwb("jacobian examples/tapes/bratu.tap -o -")
    assert.equal(0, code)
    assert.equal(ref, out)
    local file = H.tmp(".c")
    assert.equal(0, select(3, H.cgwb("codegen examples/tapes/cavity.tap -o " .. file)))
    local code_out, err, c2 = H.cgwb("codegen examples/tapes/cavity.tap -o -")
    assert.equal(0, c2)
    assert.equal(H.read(file), code_out)
    assert.truthy(err:find("nodes", 1, true)) -- the summary went to stderr
    local txt = H.cgwb("convert examples/tapes/cavity.tap - --format text")
    assert.truthy(txt:find("^# cgwb text tape"), txt:sub(1, 80))
    local dot = H.cgwb("graph examples/tapes/cavity.tap --dot - --node 50 --limit 10")
    assert.truthy(dot:find("^digraph"), dot:sub(1, 80))
    local _, err2, c3 = H.cgwb("jacobian examples/tapes/bratu.tap -o - --json")
    assert.equal(2, c3)
    assert.truthy(err2:find("standard output", 1, true))
  end)

  it("--check says on stderr that it passed and by how much", function()
    local _, err, code = H.cgwb("eliminate examples/graphs/lighthouse.cg --check -o " .. H.tmp(".mtx"))
    assert.equal(0, code)
    assert.truthy(err:find("check passed: the %d+ entries match the forward and reverse sweeps %(largest "
      .. "relative difference [%d.e+-]+ and [%d.e+-]+, tolerance 1e%-10%)"), err)
  end)

  it("the wrong command for the input says which command to use", function()
    local _, err, code = H.cgwb("jacobian examples/graphs/lighthouse.cg")
    assert.equal(2, code)
    assert.truthy(err:find("is a graph file (.cg or EliAD), not a tape: use `cgwb eliminate", 1, true), err)
    _, err, code = H.cgwb("eliminate examples/tapes/bratu.tap")
    assert.equal(2, code)
    assert.truthy(err:find("is a tape, not a graph file: use `cgwb jacobian", 1, true), err)
    _, err, code = H.cgwb("stats examples/graphs/lighthouse.cg")
    assert.equal(2, code)
    assert.truthy(err:find("use `cgwb eliminate", 1, true), err)
  end)

  it("a missing file has one wording everywhere", function()
    local missing = H.tmp(".none")
    local cases = {
      "stats %s", "graph %s", "eval %s", "jacobian %s", "eliminate %s", "convert %s x.txt",
      "trace %s -o x.tap", "run %s", "codegen %s -o x.c",
      "jacobian examples/tapes/bratu.tap --at %s", "jacobian examples/tapes/bratu.tap --order %s.lua",
      "codegen examples/tapes/bratu.tap --levels %s.lua -o x.c",
    }
    for _, c in ipairs(cases) do
      local _, err, code = H.cgwb(c:format(missing))
      assert.equal(2, code, c)
      assert.truthy(err:find(": cannot open: No such file or directory\n", 1, true), c .. ": " .. err)
      assert.equal(1, select(2, err:gsub("\n", "\n")), c .. ": one line: " .. err)
    end
    assert.equal(missing .. ": cannot open: No such file or directory", select(2, cgwb.read_graph(missing)))
    assert.equal(missing .. ": cannot open: No such file or directory", select(2, cgwb.read_point(missing)))
  end)

  -- Asserts that text holds no byte outside printable ASCII but newline.
  local function all_text(text, what)
    local at = text:find("[^\n\32-\126]")
    assert.is_nil(at, ("%s: raw byte %s in %q"):format(what, at and ("\\x%02x"):format(text:byte(at)) or "", text))
  end

  it("a kernel without a function definition, or of binary bytes, is refused by every kernel command (exit 2)", function()
    local files = {
      { "", ":1:1: no function definition (a kernel is a file of C functions: doc/kernel-language.md)" },
      { "double g;\nint h(int a);\n", ":2:5: no function definition (a kernel is a file of C functions" },
      { "\227\129\0abc\n", ":1:1: found '\\xe3', expected a declaration" },
      { "void f(double *y) { y[0] = 1.0; }\n\0zz\n", ":2:1: found '\\x00', expected a declaration" },
    }
    local out = H.tmp(".c")
    for _, f in ipairs(files) do
      local path = H.write(H.tmp(".c"), f[1])
      for _, c in ipairs { "kernel %s", "kernel %s --json", "flatten %s", "loops %s", "adjoint %s -o " .. out } do
        local args = c:format(path)
        local o, err, code = H.cgwb(args)
        assert.equal(2, code, args .. ": " .. err)
        assert.equal("", o, args)
        assert.truthy(err:find(path .. f[2], 1, true), args .. ": " .. err)
        assert.is_nil(err:find("--function F is needed", 1, true), err)
        all_text(err, args)
      end
    end
    assert.is_nil(io.open(out, "rb"))
  end)

  it("an argument's bytes that are not text are shown escaped, UTF-8 text as it is", function()
    local _, err, code = H.cgwb("loops examples/kernels/utke-fig1.c --function $(printf 'f\\343\\001')")
    assert.equal(2, code)
    assert.equal("cgwb loops: examples/kernels/utke-fig1.c: no function 'f\\xe3\\x01'\n", err)
    _, err = H.cgwb("flatten examples/kernels/hovland-fig1-aliased.c --assume $(printf 'a\\343!=b')")
    assert.equal("cgwb flatten: --assume 'a\\xe3!=b': expected NAME!=NAME or NAME==NAME\n", err)
    _, err = H.cgwb("kernel examples/kernels/utke-fig1.c --bogus$(printf '\\343')")
    all_text(err, "an unknown option")
    local shown = require("cgwb.cli").shown
    assert.equal("donn\195\169es.c: a\tb\\x00\\x7f\\xff", shown("donn\195\169es.c: a\tb\0\127\255"))
  end)
end)

-- {==== the registry of commands (cgwb.cli.registry) ====}

-- The problems of a registry against the command modules: a command a
-- module defines that has no row naming that module, a row whose command its
-- module does not define, a row without its one-line help, a command without
-- an example (starting "cgwb NAME"), setup or run, a name registered twice.
-- modules: module name -> the module's table.
local function registry_problems(registry, modules)
  local problems, row_of = {}, {}
  for _, r in ipairs(registry) do
    if row_of[r.name] then problems[#problems + 1] = r.name .. ": registered twice" end
    row_of[r.name] = r
    if type(r.help) ~= "string" or r.help == "" then problems[#problems + 1] = r.name .. ": no help" end
    local m = modules[r.module]
    local c = m and m.commands and m.commands[r.name]
    if not c then
      problems[#problems + 1] = ("%s: registered in %s, which does not define it"):format(r.name, tostring(r.module))
    else
      if type(c.example) ~= "string" or not c.example:find("^cgwb " .. r.name .. " ") then
        problems[#problems + 1] = r.name .. ": no example (cgwb " .. r.name .. " ...)"
      end
      if type(c.setup) ~= "function" then problems[#problems + 1] = r.name .. ": no setup" end
      if type(c.run) ~= "function" then problems[#problems + 1] = r.name .. ": no run" end
    end
  end
  local names = {}
  for name in pairs(modules) do names[#names + 1] = name end
  table.sort(names)
  for _, mod in ipairs(names) do
    local cmds = {}
    for cname in pairs(modules[mod].commands or {}) do cmds[#cmds + 1] = cname end
    table.sort(cmds)
    for _, cname in ipairs(cmds) do
      local r = row_of[cname]
      if not r then
        problems[#problems + 1] = ("%s: defined in %s but not registered (a command that does not exist)")
          :format(cname, mod)
      elseif r.module ~= mod then
        problems[#problems + 1] = ("%s: defined in %s but registered to %s"):format(cname, mod, r.module)
      end
    end
  end
  return problems
end

-- Every module lua/cgwb/cli/NAME.lua (but init.lua), required: name -> table.
local function cli_modules()
  local mods = {}
  local p = assert(io.popen("ls lua/cgwb/cli/*.lua"))
  for path in p:lines() do
    local n = path:match("lua/cgwb/cli/(.-)%.lua$")
    if n ~= "init" then mods["cgwb.cli." .. n] = require("cgwb.cli." .. n) end
  end
  p:close()
  return mods
end

describe("cli: the registry of commands", function()
  local cli = require "cgwb.cli"

  it("registers every command a module of lua/cgwb/cli/ defines, each with help, example, setup, run", function()
    local mods = cli_modules()
    local n = 0
    for _, m in pairs(mods) do for _ in pairs(m.commands or {}) do n = n + 1 end end
    assert.is_true(n >= 14, "the modules define " .. n .. " commands")
    local problems = registry_problems(cli.registry, mods)
    assert(#problems == 0, table.concat(problems, "\n"))
  end)

  it("reports a command left out, a row for nothing and a row without help or example", function()
    local mods = {
      ["cgwb.cli.x"] = { commands = { a = { example = "cgwb a x", setup = print, run = print },
                                      b = { example = "cgwb b x", setup = print, run = print },
                                      c = { setup = print, run = print } } },
    }
    local registry = { { name = "a", module = "cgwb.cli.x", help = "A." },
                       { name = "c", module = "cgwb.cli.x", help = "C." },
                       { name = "d", module = "cgwb.cli.x", help = "" },
                       { name = "a", module = "cgwb.cli.y", help = "A again." } }
    assert.same({
      "c: no example (cgwb c ...)",
      "d: no help",
      "d: registered in cgwb.cli.x, which does not define it",
      "a: registered twice",
      "a: registered in cgwb.cli.y, which does not define it",
      "a: defined in cgwb.cli.x but registered to cgwb.cli.y",
      "b: defined in cgwb.cli.x but not registered (a command that does not exist)",
    }, registry_problems(registry, mods))
  end)

  it("builds the help's list of commands and the dispatch from the registry, in its order", function()
    local names = {}
    for i, r in ipairs(cli.registry) do names[i] = r.name end
    assert.same(names, cli.order)
    local help = H.cgwb("--help")
    local listed = {}
    for line in help:match("Commands:\n(.-)\n\n"):gmatch("[^\n]+") do
      listed[#listed + 1] = line:match("^   (%S+)%s") -- a command's first line (the others: its help wrapped)
    end
    table.remove(listed) -- help, the parser's own
    assert.same(names, listed)
    for _, r in ipairs(cli.registry) do
      assert.truthy(help:find(r.help:sub(1, 30), 1, true), r.name)
      assert.equal(r.help, cli.commands[r.name].help, r.name)
    end
    local _, err, code = H.cgwb("nosuch")
    assert.equal(2, code)
    assert.truthy(err:find("unknown command 'nosuch'", 1, true), err)
  end)

  it("requires only the module of the command being run", function()
    local script = H.write(H.tmp(".lua"), [[
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
package.cpath = os.getenv("CGWB_BUILD") .. "/?.so;" .. package.cpath
local cli = require "cgwb.cli"
io.output("/dev/null")
local rc = cli.main(arg)
local mods = {}
for name in pairs(package.loaded) do
  if name:match("^cgwb%.cli%.") then mods[#mods + 1] = name end
end
table.sort(mods)
io.stderr:write(rc, " ", table.concat(mods, " "), "\n")
]])
    local function loaded(args)
      local err = H.tmp(".err")
      os.execute(("CGWB_BUILD=%s lua5.4 %s %s 2>%s >/dev/null"):format(H.build, script, args, err))
      return (H.read(err):gsub("\n$", ""))
    end
    assert.equal("0 cgwb.cli.common cgwb.cli.tape cgwb.cli.tapeargs", loaded("stats examples/tapes/bratu.tap"))
    assert.equal("0 cgwb.cli.common cgwb.cli.kernel cgwb.cli.kernelargs",
                 loaded("kernel examples/kernels/utke-fig1.c"))
    assert.equal("0 cgwb.cli.common cgwb.cli.run", loaded("run " .. H.write(H.tmp(".lua"), "return 1\n")))
    assert.equal("0 ", loaded("--version"))
  end)
end)

-- {==== the plug-ins: every decision point's Lua file through cgwb.util.plugin ====}

describe("cli: a Lua file at every decision point (cgwb.util.plugin)", function()
  local function plug(text) return H.write(H.tmp(".lua"), text) end
  -- a path as Lua's own messages name a chunk (at most 59 bytes, else "..." and its end)
  local function chunk(p) return (#p + 1 <= 60) and p or ("..." .. p:sub(-56)) end
  local T, K = "examples/tapes/bratu.tap", "examples/kernels/"
  local SYN, RT, PLAIN = "return function(v)\n  return v *\nend\n", "local x = nil\nreturn x.y\n", "error('plain', 0)\n"
  -- {command line with P for the file, file text (nil: no file), exit status, stderr with P and W (chunk)}
  local cases = {
    { "jacobian " .. T .. " --order P", SYN, 2, "cgwb jacobian: W:3: unexpected symbol near 'end'\n" },
    { "jacobian " .. T .. " --order P", RT, 2, "cgwb jacobian: W:2: attempt to index a nil value (local 'x')\n" },
    { "jacobian " .. T .. " --order P", PLAIN, 2, "cgwb jacobian: plain\n" },
    { "eliminate examples/graphs/lighthouse.cg --order P", "local x = 1\n", 2,
      "cgwb eliminate: P: the ordering file returns nothing\n" },
    { "jacobian " .. T .. " --order P", nil, 2, "cgwb jacobian: P: cannot open: No such file or directory\n" },
    { "codegen " .. T .. " -o - --levels P", RT, 2, "cgwb codegen: P: W:2: attempt to index a nil value (local 'x')\n" },
    { "codegen " .. T .. " -o - --levels P", PLAIN, 2, "cgwb codegen: P: plain\n" },
    { "codegen " .. T .. " -o - --levels P", "return 7\n", 2,
      "cgwb codegen: P: must return a function level(id, g) or a table with one\n" },
    { "flatten " .. K .. "utke-fig1.c --split P", PLAIN, 2, "cgwb flatten: P: plain\n" },
    { "flatten " .. K .. "utke-fig1.c --split P", RT, 2, "cgwb flatten: W:2: attempt to index a nil value (local 'x')\n" },
    { "flatten " .. K .. "utke-fig1.c --split P --emit tangent -o -", "return 42\n", 2,
      "cgwb flatten: P: must return a function split(info) (returned a number)\n" },
    { "adjoint " .. K .. "meshflux.c --function residual -o - --loops P", "return 3\n", 2,
      "cgwb adjoint: P: must return a function decide(loop) (returned a number)\n" },
    { "trace P -o -", "error({})\n", 2, "cgwb trace: W:1: (error object is a table value)\n" },
    { "trace P -o -", "return 5\n", 2,
      "cgwb trace: P: the script must return a table { name = ..., x0 = ..., f = function(x, T) ... end }\n" },
    { "sweep P --dry-run", PLAIN, 2, "cgwb sweep: plain\n" },
    { "sweep P --dry-run", "return 5\n", 2, "cgwb sweep: P: a plan returns a table, got number\n" },
    { "run P", "print(1\n", 2, "cgwb run: W:2: ')' expected (to close '(' at line 1) near <eof>\n" },
    { "run P", "error('boom')\n", 1, "cgwb run: W:1: boom\n" },
  }

  it("reports a file that cannot be read, does not compile, raises or returns the wrong thing, as each did", function()
    for _, c in ipairs(cases) do
      local p = c[2] and plug(c[2]) or H.tmp(".lua")
      local args = c[1]:gsub("P", p)
      local out, err, code = H.cgwb(args)
      assert.equal(c[3], code, args .. ": " .. err)
      assert.equal(c[4]:gsub("W", chunk(p)):gsub("P", p), err, args)
      assert.equal("", out, args)
    end
  end)

  it("gives every file cgwb preloaded, in an environment of its own", function()
    local function ok(args, text)
      local p = plug(text)
      local out, err, code = H.cgwb((args:gsub("P", p)))
      assert.equal(0, code, args .. ": " .. err)
      return out, err
    end
    local seen = "assert(cgwb.version and rawget(_G, 'cgwb') == nil)\nLEAK = true\n"
    ok("jacobian " .. T .. " --order P -o /dev/null", seen .. "return 'markowitz'\n")
    ok("codegen " .. T .. " -o /dev/null --levels P", seen .. "return function(id, g) return g:height(id) end\n")
    ok("flatten " .. K .. "utke-fig1.c --split P", seen .. "return function(info) return false end\n")
    ok("adjoint " .. K .. "meshflux.c --function residual -o /dev/null --loops P",
      seen .. "return function(loop) return false end\n")
    ok("trace P -o /dev/null", seen .. "return { x0 = { 1 }, f = function(x, T) return { T.exp(x[1]) } end }\n")
    ok("sweep P --dry-run --out " .. H.tmp("-sweep"), seen .. "return { name = 'p', inputs = { '"
      .. io.popen("pwd"):read("l") .. "/examples/graphs/lighthouse.cg' } }\n")
    assert.equal("true\n", (ok("run P", "print(cgwb == require('cgwb'))\n")))
  end)
end)
