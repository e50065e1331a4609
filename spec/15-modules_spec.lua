-- spec/15-modules_spec.lua: the Lua modules set no globals.  Each module's
-- file is loaded with an environment that reads through to the real globals
-- and records every write; requiring it must write nothing.  Then each
-- module's main functions run with _G watched, and must write nothing either.
local H = require "spec.helper"

local modules = { "cgwb", "cgwb.cli", "cgwb.elim", "cgwb.sched", "cgwb.report", "cgwb.trace",
                  "cgwb.json", "cgwb.kernel", "cgwb.kparse",
                  "cgwb.flatten",
                  "cgwb.xaif" }

modules[#modules + 1] = "cgwb.tangent"
modules[#modules + 1] = "cgwb.loops"
modules[#modules + 1] = "cgwb.adjoint"
modules[#modules + 1] = "cgwb.adjoint_measure"
modules[#modules + 1] = "cgwb.jplan"
modules[#modules + 1] = "cgwb.sweep"
modules[#modules + 1] = "cgwb.progress"
modules[#modules + 1] = "cgwb.ir"

-- The parts of a package (a directory lua/cgwb/NAME/ with an init.lua, the
-- module cgwb.NAME): checked for globals when loaded; their functions run
-- through the package's.
local parts = { "cgwb.xaif.names", "cgwb.xaif.export", "cgwb.xaif.import", "cgwb.xaif.describe",
                "cgwb.ir.cprint", "cgwb.ir.emit", "cgwb.ir.unparse", "cgwb.tangent.subgraph", "cgwb.tangent.costs",
                "cgwb.adjoint.base", "cgwb.adjoint.shadow", "cgwb.adjoint.check", "cgwb.adjoint.sweeps",
                "cgwb.adjoint.loops", "cgwb.adjoint.bodies", "cgwb.adjoint.externals" }

-- cgwb.elim's parts, each requiring only the ones before it (lua/cgwb/elim/init.lua)
local elim_parts = { "cgwb.elim.scale", "cgwb.elim.orderings", "cgwb.elim.search", "cgwb.elim.vertex",
                     "cgwb.elim.translate", "cgwb.elim.edgesearch", "cgwb.elim.modes",
                     "cgwb.elim.strategies", "cgwb.elim.graphs", "cgwb.elim.replay" }
for _, m in ipairs(elim_parts) do parts[#parts + 1] = m end

-- the subdirectories of issue 27's layout: the command line's modules, the
-- utilities, the presentation and the drivers
for _, m in ipairs { "cgwb.util.errors", "cgwb.util.plugin", "cgwb.util.files", "cgwb.present.kreport",
                     "cgwb.drive.sweeprun", "cgwb.cli.common", "cgwb.cli.tapeargs", "cgwb.cli.kernelargs",
                     "cgwb.cli.run", "cgwb.cli.tape", "cgwb.cli.trace", "cgwb.cli.graph", "cgwb.cli.elim",
                     "cgwb.cli.kernel", "cgwb.cli.flatten", "cgwb.cli.loops", "cgwb.cli.adjoint",
                     "cgwb.cli.sweep" } do
  modules[#modules + 1] = m
end

-- The file of module name: lua/a/b.lua, or lua/a/b/init.lua (cgwb, cgwb.cli).
local function module_path(name)
  local base = "lua/" .. name:gsub("%.", "/")
  local f = io.open(base .. ".lua", "r")
  if f then f:close() return base .. ".lua" end
  return base .. "/init.lua"
end

describe("modules", function()
  it("every module under lua/cgwb/ is in the list", function()
    local listed = {}
    for _, m in ipairs(modules) do listed[m] = true end
    for _, m in ipairs(parts) do listed[m] = true end
    local p = io.popen("ls lua/cgwb/*.lua lua/cgwb/cli/*.lua lua/cgwb/util/*.lua lua/cgwb/present/*.lua "
      .. "lua/cgwb/drive/*.lua lua/cgwb/*/init.lua")
    local n = 0
    for path in p:lines() do
      local name = path:match("^lua/(.-)%.lua$"):gsub("/init$", ""):gsub("/", ".")
      assert.is_true(listed[name] ~= nil, name .. " is not checked for globals")
      local dir = path:match("^(lua/cgwb/[%w_]+)/init%.lua$")
      if dir then -- a package: each of its files too
        local q = io.popen("ls " .. dir .. "/*.lua")
        for part in q:lines() do
          local pname = "cgwb." .. part:match("lua/cgwb/(.-)%.lua$"):gsub("/", ".")
          assert.is_true(pname:match("%.init$") ~= nil or listed[pname] ~= nil, pname .. " is not checked for globals")
          n = n + 1
        end
        q:close()
      end
    end
    p:close()
    assert.is_true(n > 0, "the packages' files were listed")
  end)

  local all = {}
  for _, m in ipairs(modules) do all[#all + 1] = m end
  for _, m in ipairs(parts) do all[#all + 1] = m end
  for _, name in ipairs(all) do
    it(name .. " writes no global", function()
      local path = module_path(name)
      local writes = {}
      local env = setmetatable({}, {
        __index = _G,
        __newindex = function(t, k, v)
          writes[#writes + 1] = tostring(k)
          rawset(t, k, v)
        end,
      })
      local chunk = assert(loadfile(path, "t", env))
      local result = chunk(name)
      assert.is_table(result, name .. " returns its table")
      table.sort(writes)
      assert.are.same({}, writes, name .. " wrote globals: " .. table.concat(writes, ", "))
    end)
  end
end)

-- {==== global writes while functions run ====}
-- Loading is not all: a function can write a global when it runs (a
-- forgotten `local`).  Each module's main functions run here with _G
-- watched: a new key (through __newindex) or a changed or removed one (a
-- snapshot compared after) is a write.  What was written is undone.

-- Runs f with _G watched; returns the sorted names written and f's error.
local function global_writes(f)
  local before, seen, names = {}, {}, {}
  for k, v in pairs(_G) do before[k] = v end
  local function note(k)
    k = tostring(k)
    if not seen[k] then seen[k] = true; names[#names + 1] = k end
  end
  local mt = getmetatable(_G)
  setmetatable(_G, {
    __index = mt and mt.__index,
    __newindex = function(t, k, v) note(k); rawset(t, k, v) end,
  })
  local ok, err = pcall(f)
  setmetatable(_G, mt)
  for k, v in pairs(_G) do
    if before[k] ~= v then note(k); rawset(_G, k, before[k]) end
  end
  for k, v in pairs(before) do
    if rawget(_G, k) == nil then note(k); rawset(_G, k, v) end
  end
  table.sort(names)
  return names, not ok and tostring(err) or nil
end

local TINY = [[
return {
  name = "tiny",
  x0 = { 0.5, 1.5, -0.25 },
  f = function(x, T)
    local t = T.var()
    t:assign(x[1] * x[2])
    if t > 0.5 then t:add(x[3]) end
    return { T.exp(t) * T.sin(x[1]), T.sqrt(x[2]) / (x[1] + x[3]), t }
  end,
}
]]

-- The command line's output goes to a scratch file while it runs.
local function quiet(f)
  local out, stdout, stderr = io.output(), io.stdout, io.stderr
  local sink = assert(io.open(H.tmp(".out"), "w"))
  io.output(sink)
  io.stdout, io.stderr = sink, sink
  local ok, e = pcall(f)
  io.output(out)
  io.stdout, io.stderr = stdout, stderr
  sink:close()
  if not ok then error(e, 0) end
end

-- Each module's functions, run on small inputs (every ordering, mode and
-- form the command line has), asserting they worked.
local function runs()
  local script = H.write(H.tmp(".lua"), TINY)
  local tap = H.tmp(".tap")
  local cli = require "cgwb.cli"
  local function main(args)
    local rc
    quiet(function() rc = cli.main(args) end)
    assert(rc == 0, table.concat(args, " ") .. ": exit " .. tostring(rc))
  end
  local elim = require "cgwb.elim"
  local names = elim.ordering_names("vertex")
  return {
    ["cgwb.trace"] = function()
      local trace = require "cgwb.trace"
      assert(trace.run_script(script))
      assert(trace.record(function(x, T) return { T.exp(x[1]) * x[2] } end, { 1, 2 }))
    end,
    cgwb = function()
      local cgwb = require "cgwb"
      local t = assert(cgwb.trace(function(x, T) return { T.log(x[1] + x[2]) } end, { 1, 2 }))
      local g = assert(cgwb.build_graph(t))
      assert(cgwb.codegen(g, {}))
      assert(cgwb.linearize(t))
      assert(cgwb.orderings("vertex"))
      assert(cgwb.read_graph("examples/graphs/lighthouse.cg"))
    end,
    ["cgwb.cli"] = function()
      main { "trace", script, "-o", tap }
      main { "stats", tap }
      main { "convert", tap, H.tmp(".txt") }
      main { "graph", tap, "--json" }
      main { "eval", tap }
      for _, form in ipairs { "levels", "straight", "chunked" } do
        main { "codegen", tap, "-o", H.tmp(".c"), "--form", form }
      end
      for _, o in ipairs(names) do main { "jacobian", tap, "--order", o, "-o", H.tmp(".mtx") } end
      main { "jacobian", tap, "--order", "markowitz,forward", "--json", "--check" }
      local ordering = H.write(H.tmp(".lua"), "return function(v, lg, i, o) return i * o end\n")
      main { "jacobian", tap, "--order", ordering, "-o", H.tmp(".mtx") }
      local choose = H.write(H.tmp(".lua"), "return { choose = function(lg, c) return c[1] end }\n")
      main { "jacobian", tap, "--order", choose, "-o", H.tmp(".mtx") }
      for _, mode in ipairs { "edge", "face" } do
        for _, o in ipairs(elim.ordering_names(mode)) do
          main { "jacobian", tap, "--mode", mode, "--order", o, "-o", H.tmp(".mtx") }
        end
      end
      for _, o in ipairs(names) do
        main { "eliminate", "examples/graphs/lighthouse.cg", "--order", o, "--json" }
      end
      main { "run", H.write(H.tmp(".lua"), "local cgwb = require 'cgwb' assert(cgwb)\n") }
      main { "kernel", "examples/kernels/utke-fig2.c", "--cfg", "--alias", "--chains", "--activity" }
      main { "kernel", "examples/kernels/utke-fig2.c", "--json", "--cfg", "--alias", "--chains", "--activity",
             "--dot", H.tmp(".dot") }
      main { "kernel", "examples/kernels/utke-fig2.c", "--call", "examples/kernels/utke-fig2.json", "--jacobian" }
    end,
    ["cgwb.util.errors"] = function()
      local errors = require "cgwb.util.errors"
      local e = errors.input("x.c:1:2: found ';'")
      assert(errors.is(e, "input") and e.code == 2 and tostring(e) == e.msg)
      assert(errors.refused(2, "no", { pos = 1 }).data.pos == 1 and errors.runtime("r").code == 1)
      assert(errors.branch("b").code == 3 and errors.bug("x", "trace").kind == "bug")
      assert(errors.legacy({ kparse = "k" }).msg == "k" and errors.legacy({ refused = "w", pos = 3 }).data.pos == 3)
      assert(not errors.legacy("a string") and not errors.is({ msg = "m" }))
      local v, msg = errors.try(errors.fail, 2, "bad")
      assert(v == nil and msg == "bad")
      assert(select(2, errors.catch(function() return 1 end)) == 1)
      assert(not pcall(errors.try, error, "a bug"))
    end,
    ["cgwb.util.plugin"] = function()
      local plugin = require "cgwb.util.plugin"
      local path = H.write(H.tmp(".lua"), "local n = ... return function() return cgwb ~= nil, n end\n")
      local f = plugin.load(path, { expect = "function", args = { 3 } })
      assert(f() == true and select(2, f()) == 3 and plugin.load(path) == f)
      assert(plugin.load(path, { cache = false }) ~= f)
      plugin.forget(path)
      plugin.forget()
      assert(not plugin.pload(path, { expect = "table" }) and not plugin.pload(H.tmp(".lua")))
      local chunk, env = plugin.compile(path, { env = { x = 1 } })
      assert(type(chunk) == "function" and env.x == 1 and env.print == print)
    end,
    ["cgwb.util.files"] = function()
      local files = require "cgwb.util.files"
      local path = H.tmp(".txt")
      files.write_text(path, "text\n")
      assert(files.readable(path) == path and H.read(path) == "text\n")
      assert(not pcall(files.readable, H.tmp(".none")))
    end,
    ["cgwb.present.kreport"] = function()
      local cgwb, kreport = require "cgwb", require "cgwb.present.kreport"
      local k = assert(cgwb.read_kernel("examples/kernels/utke-fig2.c"))
      local ids = {}
      for i, f in ipairs(k:functions()) do ids[i] = f.id end
      assert(kreport.dot(k, ids) and kreport.dot(k, { ids[1] }))
      main { "kernel", "examples/kernels/utke-fig2.c", "--cfg", "--alias", "--chains", "--activity" }
    end,
    ["cgwb.drive.sweeprun"] = function()
      local sweep, run = require "cgwb.sweep", require "cgwb.drive.sweeprun"
      local plan = assert(sweep.load_plan("examples/sweep/orderings.lua"))
      local jobs = assert(sweep.expand(plan))
      assert(run.find(jobs, "1") == jobs[1] and run.find(jobs, jobs[2].id) == jobs[2] and run.command())
      jobs[1].timeout = 30
      local dir = H.tmp("-sweeprun")
      os.execute("mkdir -p " .. dir .. "/jobs")
      local r = sweep.progress("sweep jobs", 1, true)
      run.run_local({ jobs[1] }, dir, r, "env CGWB_BUILD=" .. H.build .. " scripts/cgwb")
      r:finish()
      quiet(function() run.merge(dir, { output = H.tmp(".csv") }, { [jobs[1].id] = true }) end)
    end,
    ["cgwb.cli.common"] = function()
      local C = require "cgwb.cli.common"
      assert(C.check(1, "x") == 1 and not pcall(C.check, nil, "x") and C.out_path("-") == "/dev/stdout")
      assert(C.int_in("--n", 1, 3)("2") == 2 and not C.int_in("--n", 1, 3)("4"))
      assert(C.out_format({}, "a.txt") == "text" and C.optional("cgwb.json") and not C.optional("cgwb.nosuch"))
      assert(C.read_call("examples/kernels/utke-fig2.json") and C.cgwb() == require "cgwb")
    end,
    ["cgwb.cli.tapeargs"] = function()
      main { "eval", "examples/tapes/bratu.tap", "--at", "examples/tapes/bratu.x" }
      main { "graph", "examples/tapes/bratu.tap", "--json" }
    end,
    ["cgwb.cli.kernelargs"] = function()
      main { "loops", "examples/kernels/hfh-overlap.c", "--assume", "a!=b" }
      main { "flatten", "examples/kernels/meshflux.c", "--function", "residual", "--prune", "--independents", "q" }
    end,
    ["cgwb.cli.run"] = function()
      main { "run", H.write(H.tmp(".lua"), "assert(cgwb and arg[1] == 'x')\n"), "x" }
    end,
    ["cgwb.cli.tape"] = function()
      main { "stats", "examples/tapes/bratu.tap", "--json" }
      main { "convert", "examples/tapes/bratu.tap", H.tmp(".txt") }
    end,
    ["cgwb.cli.trace"] = function()
      main { "trace", script, "-o", H.tmp(".tap") }
    end,
    ["cgwb.cli.graph"] = function()
      main { "codegen", tap, "-o", H.tmp(".c"), "--jacobian" }
      main { "codegen", tap, "-o", H.tmp(".c"), "--json" }
    end,
    ["cgwb.cli.elim"] = function()
      main { "jacobian", tap, "--strategy", "colouring", "--compare", "--check", "-o", H.tmp(".mtx") }
      main { "eliminate", "examples/graphs/lighthouse.cg", "--mode", "edge", "--check", "--json" }
    end,
    ["cgwb.cli.kernel"] = function()
      main { "kernel", "examples/kernels/utke-fig2.c", "--json", "--alias" }
    end,
    ["cgwb.cli.flatten"] = function()
      main { "flatten", "examples/kernels/utke-fig2.c", "--json", "--dot", H.tmp(".dot") }
      main { "flatten", "examples/kernels/utke-fig1.c", "--emit", "tangent", "-o", H.tmp(".c") }
    end,
    ["cgwb.cli.loops"] = function()
      main { "loops", "examples/kernels/hfh-dryrun.c", "--function", "dryrun", "--json", "--dot", H.tmp(".dot") }
    end,
    ["cgwb.cli.adjoint"] = function()
      main { "adjoint", "examples/kernels/hfh-dryrun.c", "--function", "dryrun", "-o", H.tmp(".c"),
             "--report", H.tmp(".json") }
    end,
    ["cgwb.cli.sweep"] = function()
      local dir = H.tmp("-sweepcli")
      main { "sweep", "examples/sweep/orderings.lua", "--dry-run", "--out", dir }
    end,
    ["cgwb.elim"] = function()
      local core = require "cgwb.core"
      local t = assert(core.read_text(H.read("examples/graphs/lighthouse.cg") and
        "assign_ind 0 0.5\nassign_ind 1 1.5\nmult_a_a 2 0 1\nsin_op 3 4 2\nassign_dep 3\nassign_dep 2\n"))
      for _, o in ipairs(names) do
        local lg = assert(elim.linearize(t))
        assert(elim.eliminate(lg, o, { seed = 1, budget = 20 }))
      end
      local lg = assert(elim.linearize(t))
      assert(elim.eliminate(lg, function(v, g, i, o) return i * o end))
      assert(elim.read_graph_text(H.read("examples/graphs/lighthouse.cg"), "lighthouse.cg"))
      local order = select(2, assert(elim.linearize(t)):eliminate("markowitz"))
      assert(elim.preaccumulation_code(assert(elim.linearize(t)), order, {}))
    end,
    ["cgwb.sched"] = function()
      local core, sched = require "cgwb.core", require "cgwb.sched"
      local t = assert(core.read_text("assign_ind 0 0.5\nexp_op 1 0\nassign_dep 1\n"))
      local g = assert(core.build_graph(t))
      for _, s in ipairs(core.level_schemes()) do
        assert(sched.codegen(g, { scheme = s }))
        assert(sched.histogram_csv(core.schedule(g, s):histogram()))
      end
    end,
    ["cgwb.report"] = function()
      local core, report = require "cgwb.core", require "cgwb.report"
      local path = H.write(H.tmp(".txt"), "assign_ind 0 0.5\nassign_ind 1 1.5\nmult_a_a 2 0 1\n" ..
        "sin_op 3 4 2\nassign_dep 3\nassign_dep 2\n")
      local s = assert(core.stats(path))
      assert(report.table1(s))
      local t = assert(core.read_tape(path))
      local g = assert(core.build_graph(t))
      assert(report.table3({ t:size() }, { g:to_tape():size() }))
      assert(report.table2(g:stats()))
      assert(report.table4(g:stats()))
      assert(report.histogram(g:stats().parents_per_node))
    end,
    ["cgwb.json"] = function()
      local json = require "cgwb.json"
      assert(json.encode({ a = json.array { 1, 2.5, "x" }, b = { c = true } }, 2, { inline_arrays = true }))
      local v = assert(json.decode('{"b": [1, -0, null], "a": "x"}'))
      assert(json.keys(v) and json.is_array(v.b))
    end,
    ["cgwb.tangent"] = function()
      local cgwb, core, tangent = require "cgwb", require "cgwb.core", require "cgwb.tangent"
      local k = assert(cgwb.read_kernel("examples/kernels/utke-fig2.c"))
      assert(tangent.emit(k, "fig2", { order = "min-fill" }))
      assert(tangent.costs(assert(core.kernel_flatten(k, "fig2")), { kernel = k }))
    end,
    ["cgwb.kernel"] = function()
      local cgwb, json = require "cgwb", require "cgwb.json"
      local k = assert(cgwb.read_kernel("examples/kernels/utke-fig2.c"))
      assert(k:functions() and k:symbols(1) and k:statements("fig2") and k:globals() and k:file() and k:flat())
      local an = assert(k:analyze("fig2", { assume = {} }))
      assert(require("cgwb.kernel").alias_pairs(an.alias))
      local c = assert(json.decode(H.read("examples/kernels/utke-fig2.json")))
      assert(k:call("fig2", c) and k:jacobian_named("fig2", c))
      assert(require("cgwb.kernel").core_call(k, 1, c))
    end,
    ["cgwb.flatten"] = function()
      local cgwb, flatten = require "cgwb", require "cgwb.flatten"
      local k = assert(cgwb.read_kernel("examples/kernels/utke-fig2.c"))
      local res = assert(flatten.run(k, "fig2", { split = "statement" }))
      assert(flatten.text(flatten.describe(res)) and flatten.dot(res) and flatten.active_blocks(res))
      assert(not flatten.load_split("examples/kernels/utke-fig2.c"))
    end,
    ["cgwb.xaif"] = function()
      local cgwb, flatten, xaif = require "cgwb", require "cgwb.flatten", require "cgwb.xaif"
      local k = assert(cgwb.read_kernel("examples/kernels/utke-fig2.c"))
      local res = assert(flatten.run(k, "fig2"))
      assert(xaif.describe(assert(xaif.read(assert(xaif.write(k, "fig2", res)), "fig2.xaif"))))
      assert(not xaif.read("<x", "bad.xaif"))
    end,
    ["cgwb.kparse"] = function()
      local kparse = require "cgwb.kparse"
      local flat = assert(kparse.read("examples/kernels/hovland-sec5.c"))
      assert(kparse.unparse(flat))
      assert(not kparse.parse("struct s;", "bad.c"))
    end,
    ["cgwb.ir"] = function()
      local ir, kparse = require "cgwb.ir", require "cgwb.kparse"
      local v = ir.view(assert(kparse.read("examples/kernels/utke-fig2.c")))
      local P = require("cgwb.ir.cprint").new(v)
      local em = require("cgwb.ir.emit").new()
      v:walk(v:func(0).body, function(r)
        if r.kind == "assign" then em:line(P:expr(r.lhs) .. " = " .. P:expr(r.rhs) .. ";", nil, {}) end
      end)
      assert(em:text() ~= "")
      assert(not pcall(ir.cases, "stmt", "partial", {}))
    end,
    ["cgwb.loops"] = function()
      local cgwb, loops = require "cgwb", require "cgwb.loops"
      local k = assert(cgwb.read_kernel("examples/kernels/hfh-dryrun.c"))
      local info = assert(loops.analyse(k, "dryrun"))
      assert(loops.text(info) and loops.dot(info) and loops.report(info))
      assert(not loops.analyse(k, "nope"))
    end,
    ["cgwb.adjoint"] = function()
      local cgwb, adjoint = require "cgwb", require "cgwb.adjoint"
      local k = assert(cgwb.read_kernel("examples/kernels/hfh-dryrun.c"))
      assert(adjoint.emit(k, "dryrun", { loops = "auto" }))
      assert(adjoint.runtime_header())
      assert(not adjoint.emit(k, "nope"))
    end,
    ["cgwb.adjoint_measure"] = function()
      local cgwb, adjoint, measure = require "cgwb", require "cgwb.adjoint", require "cgwb.adjoint_measure"
      local json, kernel = require "cgwb.json", require "cgwb.kernel"
      local k = assert(cgwb.read_kernel("examples/kernels/utke-fig2.c"))
      local call = assert(kernel.core_call(k, 1, json.decode(H.read("examples/kernels/utke-fig2.json")), {}))
      local code = assert(adjoint.emit(k, "fig2"))
      local m = assert(measure.measure(k, "fig2", { standard = code }, call, { header = adjoint.runtime_header() }))
      assert(m.standard.tape_bytes > 0)
      assert(not measure.measure(k, "fig2", { standard = code }, call, { cc = "cgwb-no-such-cc" }))
    end,
    ["cgwb.sweep"] = function()
      local sweep = require "cgwb.sweep"
      local plan = assert(sweep.load_plan("examples/sweep/orderings.lua"))
      local jobs = assert(sweep.expand(plan))
      jobs[1].timeout = 30
      local rec = sweep.run_job(jobs[1], { cgwb = "env CGWB_BUILD=" .. H.build .. " scripts/cgwb" })
      assert(rec.status == "ok", rec.stderr)
      local dir = H.tmp("-sweep")
      os.execute("mkdir -p " .. dir .. "/jobs")
      assert(sweep.write_record(dir, rec) and sweep.read_record(dir, rec.id))
      assert(not sweep.pending(dir, jobs[1], true) and sweep.pending(dir, jobs[2]))
      local rows = assert(sweep.merge(dir))
      assert(sweep.csv(rows) and sweep.summary_text(sweep.summary(rows)))
      sweep.progress("sweep jobs", 1, false):finish()
      assert(not sweep.check_plan({ inputs = { "x" }, nosuch = 1 }, "p.lua"))
    end,
    ["cgwb.jplan"] = function()
      local cgwb, jplan = require "cgwb", require "cgwb.jplan"
      local tape = assert(cgwb.read_tape("examples/tapes/bratu.tap"))
      local plan = assert(jplan.new(tape, {}))
      local x = assert(cgwb.read_point("examples/tapes/bratu.x"))
      local v, w = {}, {}
      for i = 1, #x do v[i] = 1 end
      for i = 1, plan:pattern().m do w[i] = 1 end
      assert(plan:at(x) and plan:jvp(x, v) and plan:vjp(x, w) and plan:costs() and plan:program())
      plan:free()
    end,
    ["cgwb.progress"] = function()
      local progress = require "cgwb.progress"
      local was = progress.quiet()
      progress.quiet(true)
      local r = progress.start("probing", 2)
      r:update(1)
      r:finish(2)
      assert(progress.run("probing", 1, function(q) q:update(1) return true end))
      assert(not progress.enabled())
      progress.quiet(was)
    end,
  }
end

describe("modules, while their functions run", function()
  local fns = runs()
  it("every module has functions run here", function()
    for _, name in ipairs(modules) do assert.is_function(fns[name], name .. " has no run") end
  end)
  for _, name in ipairs(modules) do
    it(name .. " writes no global when its functions run", function()
      local writes, err = global_writes(fns[name])
      assert.is_nil(err, name .. ": " .. tostring(err))
      assert.are.same({}, writes, name .. " wrote globals: " .. table.concat(writes, ", "))
    end)
  end

  it("the watch sees a write a function makes", function() -- the check itself can fail
    local writes = global_writes(function() rawset(_G, "cgwb_probe", 1); _G.cgwb_probe2 = 2 end)
    assert.are.same({ "cgwb_probe", "cgwb_probe2" }, writes)
    assert.is_nil(rawget(_G, "cgwb_probe"))
  end)
end)

-- {==== what a module may require ====}
-- No module below the facade requires it (issue 27: the back ends required
-- `cgwb`, a cycle hidden by a lazy require): only the command line's modules
-- (lua/cgwb/cli/) and the plug-in loader (lua/cgwb/util/plugin.lua, which
-- gives users' files `cgwb`) may.  cgwb.elim's parts require only the parts
-- before them in elim_parts, and never the package itself.

-- The modules a Lua text requires by a literal name, comments left out.
local function required(text)
  local out = {}
  for line in (text .. "\n"):gmatch("(.-)\n") do
    local code = line:match("^%s*%-%-") and "" or line:gsub("%s%-%-%s.*$", "")
    for name in code:gmatch("require%s*%(?%s*[\"']([%w_.]+)[\"']") do out[#out + 1] = name end
  end
  return out
end

local FACADE_USERS = { ["lua/cgwb/init.lua"] = true, ["lua/cgwb/util/plugin.lua"] = true }

-- "path" for every file of paths (but the command line's and FACADE_USERS) that requires "cgwb".
local function facade_requires(paths, read)
  local bad = {}
  for _, path in ipairs(paths) do
    if not FACADE_USERS[path] and not path:match("^lua/cgwb/cli/") then
      for _, name in ipairs(required(read(path))) do
        if name == "cgwb" then bad[#bad + 1] = path end
      end
    end
  end
  return bad
end

-- "part -> required" for every require of a part of cgwb.elim that is not before it in order.
local function upward_requires(order, read)
  local rank, bad = {}, {}
  for i, m in ipairs(order) do rank[m] = i end
  for i, m in ipairs(order) do
    for _, name in ipairs(required(read(m))) do
      local later = name:match("^cgwb%.elim%.") and not (rank[name] and rank[name] < i)
      if name == "cgwb" or name == "cgwb.elim" or later then
        bad[#bad + 1] = m .. " -> " .. name
      end
    end
  end
  return bad
end

describe("what a module may require", function()
  it("no module below the facade requires it (only the command line and the plug-in loader)", function()
    local paths, p = {}, io.popen("find lua/cgwb -name '*.lua' | sort")
    for path in p:lines() do paths[#paths + 1] = path end
    p:close()
    assert.is_true(#paths > 40, "the modules were listed")
    assert.are.same({}, facade_requires(paths, H.read))
  end)

  it("cgwb.elim's parts require only the parts before them", function()
    assert.are.same({}, upward_requires(elim_parts, function(m) return H.read(module_path(m)) end))
    local listed, p = {}, io.popen("ls lua/cgwb/elim/*.lua")
    for _, m in ipairs(elim_parts) do listed[m] = true end
    for path in p:lines() do
      local m = path:match("^lua/(.-)%.lua$"):gsub("/", ".")
      assert.is_true(m == "cgwb.elim.init" or listed[m] ~= nil, m .. " is not in elim_parts")
    end
    p:close()
  end)

  it("the checks see a require of the facade and of a later part", function() -- they can fail
    local texts = {
      ["lua/cgwb/a.lua"] = 'local x = require "cgwb.core"\nlocal function f() return require("cgwb") end\n',
      ["lua/cgwb/b.lua"] = '-- require "cgwb" in a comment\nlocal y = 1 -- and require "cgwb" here\n',
      ["lua/cgwb/cli/c.lua"] = 'local cgwb = require "cgwb"\n',
      p1 = 'local q = require "cgwb.elim.p2"\n', p2 = "local c = require 'cgwb.core'\n",
      p3 = 'local e = require("cgwb.elim")\n',
    }
    local function read(k) return texts[k] end
    local paths = { "lua/cgwb/a.lua", "lua/cgwb/b.lua", "lua/cgwb/cli/c.lua" }
    assert.are.same({ "lua/cgwb/a.lua" }, facade_requires(paths, read))
    assert.are.same({ "p1 -> cgwb.elim.p2", "p3 -> cgwb.elim" }, upward_requires({ "p1", "p2", "p3" }, read))
  end)
end)
