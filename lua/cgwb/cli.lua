--- The cgwb command line: a thin layer over the Lua API.
-- Results go to stdout, everything else to stderr.  Exit status 0 on success,
-- 1 on a runtime error, 2 on bad usage or bad input, 3 when an evaluation
-- leaves the recorded branch (DESIGN.md, "Command line").
local argparse = require "argparse"

local M = {}

-- An error that carries its exit status through error().
local Fail = {}
Fail.__index = Fail
Fail.__tostring = function(f) return f.msg end

local function fail(code, msg) error(setmetatable({ code = code, msg = msg }, Fail), 0) end
M.fail = fail

-- Unwraps `nil, msg` results of the API as bad-input failures.
local function check(v, msg, code)
  if v == nil then fail(code or 2, msg) end
  return v
end

local function cgwb() return require "cgwb" end

-- Reads a point file (--at X).
-- Reads a point file (--at X) that must hold n values (bad input otherwise).
local function read_point(path, n)
  local x = check(cgwb().read_point(path))
  if #x ~= n then fail(2, ("%s: %d values for %d independents"):format(path, #x, n)) end
  return x
end

-- {==== commands ====}

local commands = {}

commands.stats = {
  help = "Tape statistics in the form of Table 1 of Bischof & Hu 1991.",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape (any file of the set).")
    p:flag("--json", "Machine-readable output.")
  end,
  run = function(a)
    local s = check(cgwb().tape_stats(a.tape))
    if a.json then
      local json = require "cgwb.json"
      local opcodes = {}
      for _, o in ipairs(s.opcodes) do
        if o.name ~= "death_not" then opcodes[o.name] = o.count end
      end
      local out = {
        file = a.tape, format = s.format, independents = s.independents,
        dependents = s.dependents, operations = s.operations,
        operation_bytes = s.operation_bytes, death_notices = s.death_notices,
        max_live = s.max_live, peak_live = s.peak_live, locations = s.locations,
        opcodes = opcodes, version = s.version, header = s.header,
        adolc_stats = s.stats,
      }
      io.write(json.encode(out, 2), "\n")
      return
    end
    local report = require "cgwb.report"
    io.write(("%s\n"):format(a.tape))
    io.write(table.concat(report.header_lines(s), "\n"), "\n\n")
    io.write(report.table1(s), "\n\n")
    io.write(("independents      %d\n"):format(s.independents))
    io.write(("dependents        %d\n"):format(s.dependents))
    io.write(("death notices     %d (%d bytes)\n"):format(s.death_notices, s.death_bytes))
    io.write(("max live (header) %d\n"):format(s.max_live))
    io.write(("locations used    %d\n"):format(s.locations))
    io.write(("peak live values  %d\n"):format(s.peak_live))
  end,
}

local function out_format(a)
  if a.format then return a.format end
  if a.output:match("%.txt$") or a.output:match("%.ttape$") then return "text" end
  return "classic"
end

commands.convert = {
  help = "Converts between tape formats (ADOL-C set -> classic, classic <-> text).",
  setup = function(p)
    p:argument("input", "Tape to read.")
    p:argument("output", "Tape to write (.txt: text, otherwise classic).")
    p:option("--at", "Values of the independents, one per line (ADOL-C tapes carry none).")
    p:option("--format", "Output format."):choices { "classic", "text" }
  end,
  run = function(a)
    local tape = check(cgwb().read_tape(a.input))
    if a.at then tape:set_x0(read_point(a.at, tape:n())) end
    check(tape:write(a.output, out_format(a)))
  end,
}

commands.trace = {
  help = "Records a tape from a Lua function through the tracer.",
  setup = function(p)
    p:argument("script", "A Lua script returning { f = function(x, T) ... end, x0 = {...} }.")
    p:option("-o --output", "Tape to write (.txt: text, otherwise classic)."):count(1)
    p:option("--format", "Output format."):choices { "classic", "text" }
    p:option("--set", "Script option NAME=VALUE (repeatable), passed in opts."):count("*")
  end,
  run = function(a)
    local opts = {}
    for _, kv in ipairs(a.set) do
      local k, v = kv:match("^([%w_]+)=(.*)$")
      if not k then fail(2, "--set expects NAME=VALUE, got " .. kv) end
      opts[k] = tonumber(v) or v
    end
    local tape = check(require("cgwb.trace").run_script(a.script, opts))
    check(tape:write(a.output, out_format(a)))
  end,
}

commands.run = {
  help = "Runs an experiment script with cgwb preloaded (arg and ... as in lua).",
  setup = function(p)
    p:argument("script", "The Lua script.")
    p:argument("args", "Arguments for the script."):args("*")
  end,
  run = function(a)
    local chunk, err = loadfile(a.script)
    if not chunk then fail(2, err) end
    package.loaded.cgwb = cgwb()
    local script_arg = { [0] = a.script }
    for i, v in ipairs(a.args) do script_arg[i] = v end
    _G.arg = script_arg
    _G.cgwb = cgwb() -- experiment scripts may use cgwb without require
    chunk(table.unpack(a.args))
  end,
}

-- The graph builder's switches, shared by every command that builds a graph.
local function graph_switches(p)
  p:flag("--no-assign-removal", "Keep assignments as copy nodes (Bischof & Hu 1991, sec. 2.2).")
  p:flag("--no-hoist", "Do not hoist unary chains into supernodes (section 2.3).")
  p:flag("--no-dead-roots", "Keep dead roots (section 2.4).")
  p:flag("--paper-hoists", "Give up hoists after dead-root removal, as Bischof & Hu did.")
  p:flag("--no-guards", "Drop branch records instead of keeping them as guards.")
  p:option("--at", "The point: values of the independents, one per line.")
end

-- Reads the tape and builds its graph with the switches of `a`.
local function build(a)
  local tape = check(cgwb().read_tape(a.tape))
  local opts = {
    assign_removal = not a.no_assign_removal, hoist = not a.no_hoist,
    dead_roots = not a.no_dead_roots, recover_hoists = not a.paper_hoists,
    guards = not a.no_guards,
  }
  -- eval builds at the tape's own point when it has one, and evaluates at --at
  if a.at and not (a.eval_at and tape:x0()) then
    opts.at = read_point(a.at, tape:n())
  end
  local g = check(cgwb().build_graph(tape, opts))
  local w = g:warnings()
  if w ~= "" then io.stderr:write(w) end
  return g, tape
end

-- Table 3: the graph written back as a tape against the original.
local function table3_counts(g, tape)
  local t2 = g:to_tape()
  local o_ops, o_bytes = tape:size()
  local n_ops, n_bytes = t2:size()
  t2:free()
  return { o_ops, o_bytes }, { n_ops, n_bytes }
end

commands.graph = {
  help = "Builds the computational graph; Tables 2-4 of Bischof & Hu 1991, histograms, memory.",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape.")
    graph_switches(p)
    p:flag("--json", "Machine-readable output.")
    p:option("--dot", "Write the graph (or the subgraph of --node) as DOT to FILE.")
    p:option("--node", "Root of the subgraph for --dot and --print (1-based id)."):convert(tonumber)
    p:option("--limit", "At most this many nodes in a subgraph.", "500"):convert(tonumber)
    p:flag("--print", "Print the nodes (of the subgraph of --node) as text.")
    p:option("--tape", "Write the optimized graph back as a classic tape to FILE."):target("tape_out")
  end,
  run = function(a)
    local g, tape = build(a)
    if a.node and (a.node < 1 or a.node > g:n()) then
      fail(2, ("--node %d: the graph has %d nodes"):format(a.node, g:n()))
    end
    if a.dot then check(g:dot(a.dot, a.node, a.limit)) end
    if a.tape_out then
      local t2 = g:to_tape()
      check(t2:write(a.tape_out))
    end
    if a.print then
      io.write(g:print(nil, a.node, a.limit))
      return
    end
    local s = g:stats()
    local orig, new = table3_counts(g, tape)
    if a.json then
      s.table3 = { original_opcodes = orig[1], original_bytes = orig[2],
                   graph_opcodes = new[1], graph_bytes = new[2] }
      s.file = a.tape
      s.bytes_per_node = s.nodes > 0 and s.memory.total / s.nodes or 0
      io.write(require("cgwb.json").encode(s, 2), "\n")
      return
    end
    local report = require "cgwb.report"
    io.write(a.tape, "\n\nEffect of the graph optimizations (Bischof & Hu 1991, Table 2)\n")
    io.write(report.table2(s), "\n\nOpcodes per graph node (Table 4)\n")
    io.write(report.table4(s), "\n\nThe graph written back as a tape (Table 3)\n")
    io.write(report.table3(orig, new), "\n\n")
    io.write(("independents %d, dependents %d, guards %d, edges %d, uninitialized reads %d\n")
      :format(s.independents, s.dependents, s.guards, s.edges, s.uninitialized_reads))
    io.write(("hoists %d (%d recovered after dead-root removal), dead nodes %d\n")
      :format(s.hoists, s.hoists_recovered, s.dead_nodes))
    io.write("parents per node   ", report.histogram(s.parents_per_node), "\n")
    io.write("children per node  ", report.histogram(s.children_per_node), "\n")
    local m = s.memory
    io.write(("memory: nodes %d, children %d, parents %d, opcodes %d, values %d; total %d bytes (%.1f per node)\n")
      :format(m.nodes, m.children, m.parents, m.opcodes, m.values, m.total,
              s.nodes > 0 and m.total / s.nodes or 0))
  end,
}

commands.eval = {
  help = "Evaluates the dependents through the graph, one value per line.",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape.")
    graph_switches(p)
    p:flag("--ignore-branches", "Print the values even if a branch changed (exit 0).")
  end,
  run = function(a)
    a.eval_at = true
    local g = build(a)
    local x = a.at and read_point(a.at, #g:independents())
    local y, changes, first = g:eval(x)
    if not y then fail(2, changes) end
    if changes > 0 and not a.ignore_branches then
      fail(3, ("%d branch or conditional outcome(s) differ from the recorded point, first at node %d; "
        .. "the tape is not valid there (--ignore-branches prints the values anyway)")
        :format(changes, first))
    end
    local out = {}
    for i, v in ipairs(y) do out[i] = ("%.17g"):format(v) end
    if #out > 0 then io.write(table.concat(out, "\n"), "\n") end
  end,
}

commands.codegen = {
  help = "C code for the graph, scheduled by levels, slots from the live analysis (Bischof & Hu 1991, sec. 3).",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape.")
    graph_switches(p)
    p:option("-o --output", "The C file to write."):count(1)
    p:option("--levels", "Level scheme: height, depth, asap, alap, or FILE.lua returning level(id, g).",
      "height")
    p:option("--form", "levels: one function per level (batches of --chunk); straight: one "
      .. "function in tape order; chunked: functions of --chunk statements in tape order.", "levels")
      :choices { "levels", "straight", "chunked" }
    p:option("--chunk", "Statements per function (default 1000 for levels, 2000 for chunked).")
      :convert(tonumber)
    p:flag("--parallel", "OpenMP: each level's batches shared among threads, a barrier between levels.")
    p:option("--name", "Name of the generated function.", "f")
    p:flag("--inline-leaves", "Levels form: read independents and constants in place (no slot).")
    p:option("--histogram", "Write the level distribution (Figure 11) to FILE.csv or FILE.png.")
    p:flag("--json", "Machine-readable summary.")
  end,
  run = function(a)
    local sched = require "cgwb.sched"
    if a.parallel and a.form ~= "levels" then fail(2, "--parallel needs --form levels") end
    if a.chunk and (a.chunk ~= math.floor(a.chunk) or a.chunk < 1) then
      fail(2, "--chunk must be a positive integer")
    end
    local scheme, scheme_name = sched.scheme(a.levels)
    if not scheme then fail(2, scheme_name) end
    local g, tape = build(a)
    local oks, s = pcall(cgwb().schedule, g, scheme, { inline_leaves = a.inline_leaves })
    if not oks then fail(2, ("%s: %s"):format(scheme_name, tostring(s))) end
    if a.histogram then
      check(sched.write_histogram(s:histogram(), a.histogram,
        ("%s: nodes per level (%s)"):format(a.tape:match("[^/]*$"), scheme_name)), nil, 1)
    end
    local okc, st = s:codegen(a.output, {
      name = a.name, form = a.form, parallel = a.parallel, chunk = a.chunk and math.tointeger(a.chunk),
      source = a.tape:match("[^/]*$"), scheme = scheme_name,
    })
    if not okc then fail(1, st) end
    local ts = cgwb().tape_stats(a.tape)
    local ss = s:stats()
    local out = {
      file = a.tape, output = a.output, form = a.form, levels = scheme_name,
      nodes = g:n(), level_count = ss.levels, widest_level = ss.widest_level,
      live_analysis_slots = ss.slots, code_slots = st.slots, tape_locations = tape:nstore(),
      tape_peak_live = ts and ts.peak_live or nil, lines = st.lines, functions = st.functions,
      statements = st.statements, bytes = st.bytes,
    }
    if a.json then
      io.write(require("cgwb.json").encode(out, 2), "\n")
      return
    end
    io.write(("%s -> %s (%s form)\n"):format(a.tape, a.output, a.form))
    io.write(("nodes %d, levels (%s) %d, widest level %d nodes\n")
      :format(out.nodes, scheme_name, out.level_count, out.widest_level))
    io.write(("slots: live analysis %d, in the code %d; tape locations %d, tape peak live %s\n")
      :format(out.live_analysis_slots, out.code_slots, out.tape_locations,
              tostring(out.tape_peak_live or "?")))
    io.write(("code: %d lines, %d functions, %d statements, %d bytes\n")
      :format(out.lines, out.functions, out.statements, out.bytes))
  end,
}

-- {==== elimination ====}

local function elim_options(p)
  p:option("--order", "Ordering: a built-in name (chain with commas) or FILE.lua.", "markowitz")
  p:option("--mode", "Elimination mode.", "vertex"):choices { "vertex", "edge", "face" }
  p:option("-o --output", "Write the Jacobian (Matrix Market, 1-based, rows = dependents).")
  p:flag("--json", "Print n, m, nnz, mults, adds, order, mode, ... as JSON.")
  p:flag("--check", "Also compare with forward and reverse sweeps (exit 1 on a mismatch).")
  p:option("--seed", "Seed for random and anneal.", "1"):convert(tonumber)
  p:option("--budget", "Evaluations for anneal.", "200"):convert(tonumber)
end

-- The largest relative difference between two sorted sparse Jacobians
-- (math.huge if their patterns differ).  Explicit zeros do not count: the
-- sweeps drop them, an elimination keeps an entry whose products cancel.
local function jac_diff(a, b)
  local function nz(J)
    local r = { rows = {}, cols = {}, vals = {}, nnz = 0 }
    for i = 1, J.nnz do
      if J.vals[i] ~= 0 then
        r.nnz = r.nnz + 1
        r.rows[r.nnz], r.cols[r.nnz], r.vals[r.nnz] = J.rows[i], J.cols[i], J.vals[i]
      end
    end
    return r
  end
  a, b = nz(a), nz(b)
  if a.nnz ~= b.nnz then return math.huge end
  local d = 0
  for i = 1, a.nnz do
    if a.rows[i] ~= b.rows[i] or a.cols[i] ~= b.cols[i] then return math.huge end
    local r = math.abs(a.vals[i] - b.vals[i]) / math.max(1, math.abs(b.vals[i]))
    if r > d then d = r end
  end
  return d
end

-- Eliminates lg under the options; reports; writes the Jacobian.
local function run_elimination(lg, a, what)
  local elim = require "cgwb.elim"
  local spec, err = elim.resolve(a.order)
  if not spec then fail(2, err) end
  local ref_f, ref_r
  if a.check then
    if not lg:counts().weighted then fail(2, what .. ": --check needs a weighted graph") end
    ref_f = lg:jacobian("forward")
    ref_r = lg:jacobian("reverse")
  end
  local counts = lg:counts()
  local t0 = os.clock()
  local cost, order, name
  local driver = elim.modes and elim.modes[a.mode]
  if a.mode == "vertex" then
    cost, order, name = elim.eliminate(lg, spec, { seed = a.seed, budget = a.budget })
  elseif driver then
    cost, order, name = driver(lg, spec, { seed = a.seed, budget = a.budget })
  else
    fail(2, ("--mode %s is not available"):format(a.mode))
  end
  if not cost then fail(2, order) end
  local seconds = os.clock() - t0
  local J = check(lg:jacobian())
  local out = {
    n = counts.independents, m = counts.dependents, nnz = J.nnz, mults = cost.mults,
    mults_nontrivial = cost.mults_nontrivial, adds = cost.adds, fill = cost.fill,
    peak_edges = cost.peak_edges, steps = cost.steps, order = name, mode = a.mode,
    vertices = counts.vertices, edges = counts.edges, intermediates = counts.intermediates,
    seconds = seconds,
  }
  if a.check then
    out.check_forward = jac_diff(J, ref_f)
    out.check_reverse = jac_diff(J, ref_r)
  end
  if a.output then check(lg:write_mtx(a.output)) end
  if a.json then
    io.write(require("cgwb.json").encode(out, 2), "\n")
  elseif not a.output then
    io.write(("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n"):format(J.m, J.n, J.nnz))
    for i = 1, J.nnz do io.write(("%d %d %.17g\n"):format(J.rows[i], J.cols[i], J.vals[i])) end
  end
  if not a.json then
    io.stderr:write(("%s: %s %s elimination: %d multiplications (%d nontrivial), %d additions, %d fill-in, nnz %d\n")
      :format(what, out.order, out.mode, out.mults, out.mults_nontrivial, out.adds, out.fill, out.nnz))
  end
  if a.check and (out.check_forward > 1e-10 or out.check_reverse > 1e-10) then
    fail(1, ("Jacobian differs from the sweeps: forward %.3g, reverse %.3g")
      :format(out.check_forward, out.check_reverse))
  end
end

commands.jacobian = {
  help = "Accumulates the Jacobian of a tape by elimination on its linearized graph.",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape.")
    graph_switches(p)
    elim_options(p)
  end,
  run = function(a)
    local g = build(a)
    local lg = check(cgwb().core.linearize(g))
    g:free()
    run_elimination(lg, a, a.tape)
  end,
}

commands.eliminate = {
  help = "Eliminates a graph file (.cg or EliAD), for ordering research without a tape.",
  setup = function(p)
    p:argument("graph", "A .cg (or EliAD) graph file.")
    elim_options(p)
  end,
  run = function(a)
    local lg = check(cgwb().read_graph(a.graph))
    run_elimination(lg, a, a.graph)
  end,
}

local order = { "run", "stats", "convert", "trace", "graph", "eval", "codegen", "jacobian", "eliminate" }
M.commands, M.order = commands, order

-- {==== main ====}

local function build_parser()
  local p = argparse("cgwb", "A Lua-scriptable research workbench for automatic differentiation.")
  p:command_target("command")
  p:require_command(true)
  for _, name in ipairs(order) do
    local c = commands[name]
    local sub = p:command(name, c.help)
    c.setup(sub)
  end
  return p
end

--- Runs the command line `args` (an arg table); returns the exit status.
function M.main(args)
  local parser = build_parser()
  local list = {}
  for i = 1, #args do list[i] = args[i] end
  local ok, a = parser:pparse(list)
  if not ok then
    io.stderr:write(parser:get_usage(), "\n\ncgwb: ", a, "\n")
    return 2
  end
  local ok2, err = xpcall(commands[a.command].run, function(e)
    if getmetatable(e) == Fail then return e end
    return { code = 1, msg = tostring(e), trace = debug.traceback() }
  end, a)
  if ok2 then
    io.stdout:flush()
    return 0
  end
  io.stderr:write("cgwb ", a.command, ": ", err.msg, "\n")
  if err.trace and os.getenv("CGWB_DEBUG") then io.stderr:write(err.trace, "\n") end
  return err.code
end

return M
