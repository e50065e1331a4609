--- The cgwb command line: a thin layer over the Lua API.
-- Results go to stdout, everything else to stderr.  Exit status 0 on success,
-- 1 on a runtime error (out of memory too), 2 on bad usage or bad input, 3 when a point leaves the
-- branch recorded on the tape (doc/usage.md, "Exit status").
-- @module cgwb.cli
local argparse = require "argparse"

local M = {}

-- An error that carries its exit status through error().
local Fail = {}
Fail.__index = Fail
Fail.__tostring = function(f) return f.msg end

local function fail(code, msg) error(setmetatable({ code = code, msg = msg }, Fail), 0) end
--- Raises an error that carries its exit status: fail(code, msg) (the commands' way out).
-- @function fail
M.fail = fail

-- Unwraps `nil, msg` results of the API as bad-input failures.
local function check(v, msg, code)
  if v == nil then fail(code or 2, msg) end
  return v
end

local function cgwb() return require "cgwb" end

-- {==== arguments ====}

-- Long options that take a value (filled by `option`), so that a negative
-- number after one is its value, not an option.
local valued = {}

-- p:option(names, ...) that remembers the option's names in `valued`.
local function option(p, names, ...)
  for name in names:gmatch("%S+") do valued[name] = true end
  return p:option(names, ...)
end

-- A converter for an integer option: lo <= value <= hi, else a usage error.
local function int_in(name, lo, hi)
  return function(s)
    local v = math.tointeger(tonumber(s))
    if not v or v < lo or v > hi then
      return nil, ("%s takes an integer from %.0f to %.0f, got '%s'"):format(name, lo, hi, s)
    end
    return v
  end
end

-- "-" names standard output wherever a file is written.
local function out_path(path)
  if path == "-" then return "/dev/stdout" end
  return path
end

-- The one wording for an input that cannot be read: "FILE: cannot open: why".
local function readable(path)
  local fh, err = io.open(path, "rb")
  if not fh then
    fail(2, ("%s: cannot open: %s"):format(path, (err or ""):gsub("^.-: ", "")))
  end
  local ok, why = fh:read(0) -- a directory opens but cannot be read
  fh:close()
  if ok == nil and why then fail(2, ("%s: cannot open: %s"):format(path, (why:gsub("^.-: ", "")))) end
  return path
end

-- Whether a file that failed to read as one kind reads as the other: the
-- hint for the wrong command (only on the failure path, so its cost is moot).
local function is_graph_file(path) return cgwb().read_graph(path) ~= nil end
local function is_tape(path) return cgwb().read_tape(path) ~= nil end

-- Reads a tape, or fails with a hint when the file is a graph file.
local function read_tape(path)
  local tape, err = cgwb().read_tape(readable(path))
  if tape then return tape end
  if is_graph_file(path) then
    fail(2, ("%s is a graph file (.cg or EliAD), not a tape: use `cgwb eliminate %s`"):format(path, path))
  end
  fail(2, err)
end

-- Reads a point file (--at X) that must hold n values (bad input otherwise).
local function read_point(path, n)
  local x = check(cgwb().read_point(readable(path)))
  if #x ~= n then fail(2, ("%s: %d values for %d independents"):format(path, #x, n)) end
  return x
end

-- The message for a point that leaves the recorded branch (exit 3).
-- ignoring: --ignore-branches was given (a warning, not a failure).
local function branch_message(changes, record, op, what, ignoring)
  return ("%d branch or conditional outcome(s) differ from the recorded point, first at record %d%s: "
    .. "the tape is not valid there, %s%s")
    :format(changes, record, op and (" (" .. op .. ")") or "", what,
            ignoring and "" or " (--ignore-branches goes on anyway)")
end

-- Fails with status 3 when the graph was built at a point that leaves the
-- tape's branch, unless --ignore-branches; warns on stderr if it is given.
local function check_branches(g, a, what)
  local changes, record, op = g:branch_changes()
  if changes == 0 then return end
  local msg = branch_message(changes, record, op, what, a.ignore_branches)
  if not a.ignore_branches then fail(3, msg) end
  io.stderr:write("cgwb ", a.command, ": warning: ", msg, "\n")
end

-- {==== commands ====}

local commands = {}

commands.stats = {
  help = "Tape statistics in the form of Table 1 of Bischof & Hu 1991.",
  example = "cgwb stats examples/tapes/bratu.tap --json",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape (any file of the set).")
    p:flag("--json", "Machine-readable output.")
  end,
  run = function(a)
    local s, err = cgwb().tape_stats(readable(a.tape))
    if not s then
      if is_graph_file(a.tape) then read_tape(a.tape) end -- fails with the hint
      fail(2, err)
    end
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

local function out_format(a, path)
  if a.format then return a.format end
  if path:match("%.txt$") or path:match("%.ttape$") then return "text" end
  return "classic"
end

commands.convert = {
  help = "Converts between tape formats (ADOL-C set -> classic, classic <-> text).",
  example = "cgwb convert examples/tapes/ADOLC-Operations_3.tap cavity.tap --at examples/tapes/cavity.x",
  setup = function(p)
    p:argument("input", "Tape to read.")
    p:argument("output", "Tape to write (.txt: text, otherwise classic; - for standard output).")
    option(p, "--at", "Values of the independents, one per line (ADOL-C tapes carry none).")
    option(p, "--format", "Output format."):choices { "classic", "text" }
  end,
  run = function(a)
    local tape = read_tape(a.input)
    if a.at then tape:set_x0(read_point(a.at, tape:n())) end
    check(tape:write(out_path(a.output), out_format(a, a.output)))
  end,
}

commands.trace = {
  help = "Records a tape from a Lua function through the tracer.",
  example = "cgwb trace examples/lua/bratu.lua --set nx=10 --set ny=10 -o bratu-small.tap",
  setup = function(p)
    p:argument("script", "A Lua script returning { f = function(x, T, o) ... end, x0 = {...} or "
      .. "function(o), options = {...}, name = ... } (doc/tracer.md).")
    option(p, "-o --output", "Tape to write (.txt: text, otherwise classic; - for standard output)."):count(1)
    option(p, "--format", "Output format."):choices { "classic", "text" }
    option(p, "--set", "Script option NAME=VALUE (repeatable), passed in opts."):count("*")
  end,
  run = function(a)
    local opts = {}
    for _, kv in ipairs(a.set) do
      local k, v = kv:match("^([%w_]+)=(.*)$")
      if not k then fail(2, "--set expects NAME=VALUE, got " .. kv) end
      opts[k] = tonumber(v) or v
    end
    local tape = check(require("cgwb.trace").run_script(readable(a.script), opts))
    check(tape:write(out_path(a.output), out_format(a, a.output)))
  end,
}

commands.run = {
  help = "Runs an experiment script with cgwb preloaded; every argument after the script "
    .. "is the script's (arg and ... as in lua).",
  example = "cgwb run examples/markowitz.lua examples/tapes/bratu.tap --at examples/tapes/bratu.x",
  setup = function(p)
    p:argument("script", "The Lua script.")
    p:argument("args", "Arguments for the script, passed as they are (options too)."):args("*")
  end,
  run = function(a)
    -- The script's globals (arg, cgwb without require, its own) live in an
    -- environment of its own that reads through to _G: running it writes
    -- no global of the process.
    local env = setmetatable({}, { __index = _G })
    local chunk, err = loadfile(readable(a.script), "bt", env)
    if not chunk then fail(2, err) end
    package.loaded.cgwb = cgwb()
    local script_arg = { [0] = a.script }
    for i, v in ipairs(a.args) do script_arg[i] = v end
    env.arg = script_arg
    env.cgwb = cgwb()
    chunk(table.unpack(a.args))
  end,
}

-- The graph builder's switches, shared by every command that builds a graph.
local function graph_switches(p)
  p:flag("--no-assign-removal", "Keep assignments as copy nodes (Bischof & Hu 1991, sec. 2.2).")
  p:flag("--no-hoist", "Do not hoist unary chains into supernodes (sec. 2.3).")
  p:flag("--no-dead-roots", "Keep dead roots (sec. 2.4).")
  p:flag("--paper-hoists", "Give up hoists after dead-root removal, as Bischof & Hu did.")
  p:flag("--no-guards", "Drop branch records instead of keeping them as guards.")
  option(p, "--at", "The point: values of the independents, one per line.")
end

-- Reads the tape and builds its graph with the switches of `a`.
local function build(a)
  local tape = read_tape(a.tape)
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

local MAX_ID = 4294967295 -- node ids and limits are 32-bit

commands.graph = {
  help = "Builds the computational graph; Tables 2-4 of Bischof & Hu 1991, histograms, memory.",
  example = "cgwb graph examples/tapes/cavity.tap --dot cavity.dot --node 100 --limit 50",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape.")
    graph_switches(p)
    p:flag("--json", "Machine-readable output.")
    option(p, "--dot", "Write the graph (or the subgraph of --node) as DOT to FILE (- for standard output).")
    option(p, "--node", "Root of the subgraph for --dot and --print (1-based id)."):convert(int_in("--node", 1, MAX_ID))
    option(p, "--limit", "At most this many nodes in a subgraph, the cut frontier included.", "500")
      :convert(int_in("--limit", 1, MAX_ID))
    p:flag("--print", "Print the nodes (of the subgraph of --node) as text.")
    option(p, "--tape", "Write the optimized graph back as a classic tape to FILE (- for standard output).")
      :target("tape_out")
  end,
  run = function(a)
    local g, tape = build(a)
    if a.node and a.node > g:n() then
      fail(2, ("--node %d: the graph has %d nodes"):format(a.node, g:n()))
    end
    io.stdout:flush()
    if a.dot then check(g:dot(out_path(a.dot), a.node, a.limit)) end
    if a.tape_out then
      local t2 = g:to_tape()
      check(t2:write(out_path(a.tape_out)))
    end
    if a.dot == "-" or a.tape_out == "-" then return end -- standard output holds the file
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
  help = "Evaluates the dependents through the graph, one value per line (exit 3 if the point "
    .. "leaves a recorded branch).",
  example = "cgwb eval examples/tapes/shallow.tap --at examples/tapes/shallow.x",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape.")
    graph_switches(p)
    p:flag("--ignore-branches", "Print the values even if a branch changed (exit 0, a warning on stderr).")
  end,
  run = function(a)
    a.eval_at = true
    local g, tape = build(a)
    local x = a.at and read_point(a.at, #g:independents())
    local y, changes = g:eval(x)
    if not y then fail(2, changes) end
    if changes > 0 then -- the tape's own sweep names the record
      local _, n, record = tape:forward(x)
      local op = record and tape:record(record)
      local msg = branch_message(n > 0 and n or changes, record or 0, op, "so are these values",
                                 a.ignore_branches)
      if not a.ignore_branches then fail(3, msg) end
      io.stderr:write("cgwb eval: warning: ", msg, "\n")
    end
    local out = {}
    for i, v in ipairs(y) do out[i] = ("%.17g"):format(v) end
    if #out > 0 then io.write(table.concat(out, "\n"), "\n") end
  end,
}

-- {==== cgwb codegen --jacobian ====}

-- The C code of a kept Jacobian plan (cgwb.jacobian_plan, plan:codegen).
local function run_jac_codegen(a)
  if a.name and not a.name:match("^[%a_][%w_]*$") then
    fail(2, ("--name '%s' is not a C identifier"):format(a.name))
  end
  if a.parallel or a.form ~= "levels" or a.inline_leaves or a.histogram then
    fail(2, "--jacobian writes straight-line code: no --parallel, --form, --inline-leaves or --histogram")
  end
  if a.order:match("%.lua$") then readable(a.order) end
  local spec, err = require("cgwb.elim").resolve(a.order, "vertex")
  if not spec then fail(2, err) end
  local tape = read_tape(a.tape)
  local plan, perr, changes = cgwb().jacobian_plan(tape, {
    assign_removal = not a.no_assign_removal, hoist = not a.no_hoist, dead_roots = not a.no_dead_roots,
    recover_hoists = not a.paper_hoists, guards = not a.no_guards, order = spec,
    at = a.at and read_point(a.at, tape:n()),
  })
  if not plan then fail(changes and 3 or 2, a.tape .. ": " .. perr) end
  io.stdout:flush()
  local ok, st = plan:codegen(out_path(a.output), { name = a.name, source = a.tape:match("[^/]*$"),
                                                     chunk = a.chunk })
  if not ok then fail(1, st) end
  local c, pat = plan:costs(), plan:pattern()
  local res = { file = a.tape, output = a.output, name = a.name .. "_jac", order = c.order, mults = c.mults,
                nnz = pat.nnz, n = pat.n, m = pat.m, functions = st.functions,
                statements = st.statements, bytes = st.bytes }
  if a.json and a.output ~= "-" then io.write(require("cgwb.json").encode(res, 2), "\n") end
  io.stderr:write(("%s: %s_jac: %d multiply-adds (%s), nnz %d, %d statements in %d functions\n")
    :format(a.tape, a.name, c.mults, c.order, pat.nnz, st.statements, st.functions))
end
-- }====

commands.codegen = {
  help = "C code for the graph, scheduled by levels, slots from the live analysis (Bischof & Hu 1991, sec. 3).",
  example = "cgwb codegen examples/tapes/cavity.tap --form chunked -o cavity.c",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape.")
    graph_switches(p)
    option(p, "-o --output", "The C file to write (- for standard output; the summary then goes to stderr).")
      :count(1)
    option(p, "--levels", "Level scheme: " .. table.concat(cgwb().core.level_schemes(), ", ")
      .. ", or FILE.lua returning level(id, g).", "height")
    option(p, "--form", "levels: one function per level (batches of --chunk); straight: one "
      .. "function in tape order; chunked: functions of --chunk statements in tape order.", "levels")
      :choices { "levels", "straight", "chunked" }
    option(p, "--chunk", "Statements per batch (levels form, default 1000) or per function (chunked form, "
      .. "default 2000), 1 to 10000000.")
      :convert(int_in("--chunk", 1, 10000000))
    p:flag("--parallel", "OpenMP: each level's batches shared among threads, a barrier between levels.")
    option(p, "--name", "Name of the generated function.", "f")
    p:flag("--inline-leaves", "Levels form: read independents and constants in place (no slot).")
    option(p, "--histogram", "Write the level distribution (Figure 11) to FILE.csv or FILE.png.")
    p:flag("--json", "Machine-readable summary.")
    p:flag("--jacobian", "The Jacobian instead: NAME_jac(x, y, J), NAME_jac_checked (the branch changes "
      .. "at x), NAME_jac_nnz, NAME_jac_rows, NAME_jac_cols (doc/codegen.md, \"Jacobian code\").")
    option(p, "--order", "With --jacobian: the vertex ordering recorded (as cgwb jacobian --order).", "markowitz")
  end,
  run = function(a)
    if a.jacobian then return run_jac_codegen(a) end
    local sched = require "cgwb.sched"
    if a.parallel and a.form ~= "levels" then fail(2, "--parallel needs --form levels") end
    if a.name and not a.name:match("^[%a_][%w_]*$") then
      fail(2, ("--name '%s' is not a C identifier"):format(a.name))
    end
    if a.levels:match("%.lua$") then readable(a.levels) end
    local scheme, scheme_name = sched.scheme(a.levels)
    if not scheme then fail(2, scheme_name) end
    local g, tape = build(a)
    local oks, s = pcall(cgwb().schedule, g, scheme, { inline_leaves = a.inline_leaves })
    if not oks then fail(2, ("%s: %s"):format(scheme_name, tostring(s))) end
    if a.histogram then
      check(sched.write_histogram(s:histogram(), a.histogram,
        ("%s: nodes per level (%s)"):format(a.tape:match("[^/]*$"), scheme_name)), nil, 1)
    end
    io.stdout:flush()
    local okc, st = s:codegen(out_path(a.output), {
      name = a.name, form = a.form, parallel = a.parallel, chunk = a.chunk,
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
    local fp = a.output == "-" and io.stderr or io.stdout -- the code holds standard output
    if a.json then
      fp:write(require("cgwb.json").encode(out, 2), "\n")
      return
    end
    fp:write(("%s -> %s (%s form)\n"):format(a.tape, a.output, a.form))
    fp:write(("nodes %d, levels (%s) %d, widest level %d nodes\n")
      :format(out.nodes, scheme_name, out.level_count, out.widest_level))
    fp:write(("slots: live analysis %d, in the code %d; tape locations %d, tape peak live %s\n")
      :format(out.live_analysis_slots, out.code_slots, out.tape_locations,
              tostring(out.tape_peak_live or "?")))
    fp:write(("code: %d lines, %d functions, %d statements, %d bytes\n")
      :format(out.lines, out.functions, out.statements, out.bytes))
  end,
}

-- {==== elimination ====}

-- The registry of orderings as a table for --list-orderings.
local function orderings_text()
  local elim = require "cgwb.elim"
  local rows = { { "ordering", "modes", "eliminates first" } }
  local modes = { V = "vertex", E = "edge", F = "face" }
  for _, o in ipairs(elim.orderings) do
    local m = {}
    for c in o.modes:gmatch(".") do m[#m + 1] = modes[c] end
    rows[#rows + 1] = { o.name, table.concat(m, ","), o.about }
  end
  local w1, w2, lines = 0, 0, {}
  for _, r in ipairs(rows) do w1, w2 = math.max(w1, #r[1]), math.max(w2, #r[2]) end
  for _, r in ipairs(rows) do
    lines[#lines + 1] = ("%-" .. w1 .. "s  %-" .. w2 .. "s  %s"):format(r[1], r[2], r[3])
  end
  return table.concat(lines, "\n") .. "\n\n"
    .. "Chain names with commas (markowitz,forward): each breaks the ties of the one before; the\n"
    .. "last ties go to the highest vertex id.  Edge mode also takes front, back and lowest.\n"
    .. "FILE.lua: a Lua ordering (doc/elimination.md, \"Lua interface\").\n"
end

local function elim_options(p)
  local names = table.concat(require("cgwb.elim").ordering_names("vertex"), ", ")
  option(p, "--order", "Ordering: " .. names .. " (edge and face modes have fewer: "
    .. "--list-orderings), a comma-separated chain of them, or FILE.lua.", "markowitz")
  option(p, "--mode", "Elimination mode.", "vertex"):choices { "vertex", "edge", "face" }
  option(p, "-o --output", "Write the Jacobian (Matrix Market, 1-based, rows = dependents; - for standard output).")
  p:flag("--json", "Print n, m, nnz, mults, adds, order, mode, ... as JSON.")
  p:flag("--check", "Also compare with forward and reverse sweeps (exit 1 on a mismatch).")
  option(p, "--seed", "Seed for random and anneal, an integer from 0 to 2^53.", "1")
    :convert(int_in("--seed", 0, 2 ^ 53))
  option(p, "--budget", "Evaluations for anneal (edge and face modes: also of exact's search over edge "
    .. "steps), an integer from 0 to 10000000.", "200")
    :convert(int_in("--budget", 0, 10000000))
  p:flag("--list-orderings", "List the built-in orderings and the modes that have them, then exit.")
  -- strategies (elim.strategies): sweeps over the same graph instead of elimination
  local strategies = {}
  for _, st in ipairs(require("cgwb.elim").strategies) do strategies[#strategies + 1] = st.name .. ": " .. st.about end
  option(p, "--strategy", "How to accumulate the Jacobian: " .. table.concat(strategies, "; ") .. ".",
    "elimination"):choices(require("cgwb.elim").strategy_names())
  option(p, "--side", "For --strategy colouring: colour the columns (tangent sweeps) or the rows "
    .. "(adjoint sweeps); default column."):choices { "column", "row" }
  option(p, "--colouring-order", "For --strategy colouring: ColPack's vertex ordering, one of "
    .. table.concat(cgwb().core.colouring_orders(), ", ") .. " (default "
    .. cgwb().core.colouring_orders()[1] .. ").")
  p:flag("--compare", "With a --strategy other than elimination: also eliminate a copy of the graph "
    .. "under --order and --mode and report its multiplications (elim_mults).")
  -- the exact search
  option(p, "--time-limit", "Seconds for --order exact's search, a number > 0; when it runs out, the best order "
    .. "found is used and its gap to the proven lower bound reported.", "60")
    :convert(function(s)
      local v = tonumber(s)
      if not v or not (v > 0) or v == math.huge then
        return nil, ("--time-limit takes a number of seconds > 0, got '%s'"):format(s)
      end
      return v
    end)
  -- scale: the thresholds of elim.LIMITS (doc/elimination.md, "What each ordering costs")
  local limits = {}
  for k in pairs(require("cgwb.elim").LIMITS) do limits[#limits + 1] = k end
  table.sort(limits)
  option(p, "--limit", "NAME=N (repeatable): raise or lower one of the thresholds above which a run is refused "
    .. "before it starts (" .. table.concat(limits, ", ") .. "; doc/elimination.md, \"What each ordering costs\")."):count("*")
end

-- Applies --limit NAME=N to elim.LIMITS (exit 2 on a bad one).
local function set_limits(list)
  local elim = require "cgwb.elim"
  for _, s in ipairs(list or {}) do
    local name, v = s:match("^([%w_]+)=(.+)$")
    local n = tonumber(v)
    if not name or elim.LIMITS[name] == nil or not n or not (n >= 0) then
      local names = {}
      for k in pairs(elim.LIMITS) do names[#names + 1] = k end
      table.sort(names)
      fail(2, ("--limit takes NAME=N with N >= 0 and NAME one of %s, got '%s'"):format(table.concat(names, ", "), s))
    end
    elim.LIMITS[name] = n
  end
end

-- Refuses (exit 2), before it starts, a run that elim.check_scale says is
-- over elim.LIMITS: "<ordering> on <file>: <why: the estimate>; bound it with <option>".
-- Returns lg's scale counts when the check took them (the drivers' own check
-- reuses them: opts.counts), else nil.
local function check_scale(lg, a, what)
  local elim = require "cgwb.elim"
  set_limits(a.limit)
  local trivial = a.strategy == "reverse" or a.strategy == "forward"
  local spec = not trivial and a.order or nil
  if spec and spec:match("%.lua$") then spec = elim.resolve(readable(spec), a.mode) end -- a Lua rule: its spec
  local fits, why = elim.check_scale(lg, spec, a.mode,
                                     { budget = a.budget, strategy = trivial and a.strategy or nil })
  if not fits then fail(2, ("%s on %s: %s"):format(trivial and "strategy " .. a.strategy or a.order, what, why)) end
  return type(why) == "table" and why.counts or nil -- why: the estimate, when it fits
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

local CHECK_TOL = 1e-10

-- --check's verdict: exit 1 when a sweep differs, else a line on stderr.
local function check_verdict(out, what, nnz)
  if out.check_forward > CHECK_TOL or out.check_reverse > CHECK_TOL then
    fail(1, ("Jacobian differs from the sweeps: largest relative difference %.3g (forward), %.3g (reverse), "
      .. "tolerance %g"):format(out.check_forward, out.check_reverse, CHECK_TOL))
  end
  io.stderr:write(("%s: check passed: the %d entries match the forward and reverse sweeps "
    .. "(largest relative difference %.3g and %.3g, tolerance %g)\n")
    :format(what, nnz, out.check_forward, out.check_reverse, CHECK_TOL))
end

-- Writes J as Matrix Market to path ("-" or nil: standard output).
local function write_jac(J, path)
  local lines = { ("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n"):format(J.m, J.n, J.nnz) }
  for i = 1, J.nnz do lines[#lines + 1] = ("%d %d %.17g\n"):format(J.rows[i], J.cols[i], J.vals[i]) end
  if not path or path == "-" then return io.write(table.concat(lines)) end
  local f, err = io.open(path, "w")
  if not f then fail(1, err) end
  local ok, werr = f:write(table.concat(lines))
  local cok, cerr = f:close()
  if not ok or not cok then fail(1, ("%s: %s"):format(path, werr or cerr)) end
end

-- Accumulates the Jacobian of lg by a strategy other than elimination
-- (elim.strategies); reports strategy, colours, sweeps and its own mults,
-- with --compare the elimination's (elim_mults) on a copy of the same graph.
local function run_strategy(lg, a, what)
  local elim = require "cgwb.elim"
  local st = elim.strategy(a.strategy) -- argparse checked the name against the registry
  if a.json and a.output == "-" then fail(2, "--json and -o - would both write to standard output") end
  local counts = lg:counts()
  local out = { n = counts.independents, m = counts.dependents, strategy = a.strategy,
                vertices = counts.vertices, edges = counts.edges, intermediates = counts.intermediates }
  if a.compare then
    if a.order:match("%.lua$") then readable(a.order) end
    local spec, err = elim.resolve(a.order, a.mode)
    if not spec then fail(2, err) end
    local c <close> = lg:copy()
    local opts = { order = spec, mode = a.mode, seed = a.seed, budget = a.budget, time_limit = a.time_limit }
    local J0, info = elim.strategy("elimination").run(c, opts)
    if not J0 then fail(2, info) end
    out.elim_mults, out.elim_mults_nontrivial, out.elim_order = info.mults, info.mults_nontrivial, info.name
  end
  local t0 = os.clock()
  local J, info = st.run(lg, { side = a.side, colouring_order = a.colouring_order })
  if not J then fail(2, info) end
  out.seconds = os.clock() - t0
  out.nnz, out.mults, out.mults_nontrivial, out.adds = J.nnz, info.mults, info.mults_nontrivial, info.adds
  out.colours, out.sweeps, out.side, out.colouring = info.colours, info.sweeps, info.side, info.colouring
  if a.check then
    if not counts.weighted then fail(2, what .. ": --check needs a weighted graph") end
    out.check_forward = jac_diff(J, lg:jacobian("forward"))
    out.check_reverse = jac_diff(J, lg:jacobian("reverse"))
  end
  if a.output and a.output ~= "-" then write_jac(J, a.output) end
  if a.json then
    io.write(require("cgwb.json").encode(out, 2), "\n")
  else
    if not a.output or a.output == "-" then write_jac(J) end
    io.stderr:write(("%s: %s strategy: %d colours (%s side), %d sweeps, %d multiplications (%d nontrivial), "
      .. "%d additions, nnz %d%s\n"):format(what, out.strategy, out.colours, out.side, out.sweeps, out.mults,
      out.mults_nontrivial, out.adds, out.nnz,
      out.elim_mults and (("; %s elimination: %d multiplications"):format(out.elim_order, out.elim_mults)) or ""))
  end
  if a.check then
    check_verdict(out, what, J.nnz)
  end
end

-- Eliminates lg under the options; reports; writes the Jacobian.
local function run_elimination(lg, a, what)
  local elim = require "cgwb.elim"
  if a.strategy ~= "colouring" and (a.side or a.colouring_order) then
    fail(2, "--side and --colouring-order go with --strategy colouring")
  end
  local scale_counts = check_scale(lg, a, what)
  if a.strategy ~= "elimination" then return run_strategy(lg, a, what) end
  if a.order:match("%.lua$") then readable(a.order) end
  local spec, err = elim.resolve(a.order, a.mode)
  if not spec then fail(2, err) end
  if a.json and a.output == "-" then fail(2, "--json and -o - would both write to standard output") end
  local ref_f, ref_r
  if a.check then
    if not lg:counts().weighted then fail(2, what .. ": --check needs a weighted graph") end
    ref_f = lg:jacobian("forward")
    ref_r = lg:jacobian("reverse")
  end
  local counts = lg:counts()
  local t0 = os.clock()
  local cost, order, name, extra
  local opts = { seed = a.seed, budget = a.budget, time_limit = a.time_limit, counts = scale_counts,
                 progress = not a.json } -- drawn or not by the renderer (cgwb.progress)
  if a.mode == "vertex" then
    cost, order, name, extra = elim.eliminate(lg, spec, opts)
  else
    cost, order, name, extra = elim.modes[a.mode](lg, spec, opts)
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
  if type(extra) == "table" then
    -- the exact search (vertex, edge): its bound; edge and face drivers: the vertex figure
    out.lower_bound, out.proven, out.nodes = extra.lower_bound, extra.proven, extra.nodes
    if a.mode ~= "vertex" then out.vertex_mults, out.better = extra.vertex_mults, extra.better end
  end
  if a.check then
    out.check_forward = jac_diff(J, ref_f)
    out.check_reverse = jac_diff(J, ref_r)
  end
  io.stdout:flush()
  if a.output and a.output ~= "-" then check(lg:write_mtx(a.output)) end
  if a.json then
    io.write(require("cgwb.json").encode(out, 2), "\n")
  elseif not a.output or a.output == "-" then
    local lines = { ("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n"):format(J.m, J.n, J.nnz) }
    for i = 1, J.nnz do lines[#lines + 1] = ("%d %d %.17g\n"):format(J.rows[i], J.cols[i], J.vals[i]) end
    io.write(table.concat(lines))
  end
  if not a.json then
    io.stderr:write(("%s: %s %s elimination: %d multiplications (%d nontrivial), %d additions, %d fill-in, nnz %d\n")
      :format(what, out.order, out.mode, out.mults, out.mults_nontrivial, out.adds, out.fill, out.nnz))
    if out.lower_bound then
      io.stderr:write(out.proven and ("%s: proven optimal (%d states searched)\n"):format(what, out.nodes)
        or ("%s: gap %.2f%% to the proven lower bound %d (%d states searched, time limit reached)\n")
          :format(what, 100 * (out.mults - out.lower_bound) / math.max(out.mults, 1), out.lower_bound, out.nodes))
    end
    if out.better then
      io.stderr:write(("%s: strictly better than vertex elimination (%d)\n"):format(what, out.vertex_mults))
    end
  end
  if a.check then
    check_verdict(out, what, J.nnz)
  end
end

-- {==== Jacobians at many points (--points) ====}

-- Reads a points file: one point a line (n numbers separated by blanks or
-- commas; '#' starts a comment, blank lines are skipped).  Returns the
-- points and the line of each.
local function read_points(path, n)
  local fh = assert(io.open(readable(path), "r"))
  local points, lines, ln = {}, {}, 0
  for line in fh:lines() do
    ln = ln + 1
    local s = line:gsub("#.*", "")
    if s:match("%S") then
      local x = {}
      for word in s:gmatch("[^%s,]+") do
        local v = tonumber(word)
        if not v then fh:close() fail(2, ("%s:%d: not a number: %s"):format(path, ln, word)) end
        x[#x + 1] = v
      end
      if #x ~= n then fh:close() fail(2, ("%s:%d: %d values for %d independents"):format(path, ln, #x, n)) end
      points[#points + 1], lines[#lines + 1] = x, ln
    end
  end
  fh:close()
  return points, lines
end

-- cgwb jacobian TAPE --points FILE: one kept plan (cgwb.jacobian_plan), the
-- Jacobian at each point; a Matrix Market block per point (doc/usage.md),
-- exit 3 at the first point that leaves a recorded branch.
local function run_points(a)
  if a.mode ~= "vertex" then fail(2, "--points keeps a vertex elimination: --mode vertex only") end
  if a.strategy ~= "elimination" then fail(2, "--points keeps an elimination: --strategy elimination only") end
  if a.json and a.output == "-" then fail(2, "--json and -o - would both write to standard output") end
  local elim = require "cgwb.elim"
  if a.order:match("%.lua$") then readable(a.order) end
  local spec, err = elim.resolve(a.order, "vertex")
  if not spec then fail(2, err) end
  local tape = read_tape(a.tape)
  local opts = {
    assign_removal = not a.no_assign_removal, hoist = not a.no_hoist, dead_roots = not a.no_dead_roots,
    recover_hoists = not a.paper_hoists, guards = not a.no_guards, order = spec, seed = a.seed,
    budget = a.budget, at = a.at and read_point(a.at, tape:n()),
  }
  local points, lines = read_points(a.points, tape:n())
  local plan, perr, changes = cgwb().jacobian_plan(tape, opts)
  if not plan then fail(changes and 3 or 2, a.tape .. ": " .. perr) end
  local out = io.stdout
  if a.output and a.output ~= "-" then out = assert(io.open(a.output, "w")) end
  local quiet = a.json and out == io.stdout
  local seconds, J, worst = 0, nil, 0
  for k, x in ipairs(points) do
    local msg, ch
    local t0 = os.clock()
    J, msg, ch = plan:at(x, J)
    seconds = seconds + (os.clock() - t0)
    if not J then
      if out ~= io.stdout then out:close() end
      fail(ch and 3 or 2, ("%s:%d: point %d: %s"):format(a.points, lines[k], k, msg))
    end
    if not quiet then
      local b = { ("%%%%MatrixMarket matrix coordinate real general\n%% point %d (%s:%d)\n%d %d %d\n")
        :format(k, a.points, lines[k], J.m, J.n, J.nnz) }
      for i = 1, J.nnz do b[i + 1] = ("%d %d %.17g\n"):format(J.rows[i], J.cols[i], J.vals[i]) end
      out:write(table.concat(b))
    end
    if a.check then
      local lg = check(cgwb().linearize(tape, { at = x }))
      worst = math.max(worst, jac_diff(J, lg:jacobian("forward")), jac_diff(J, lg:jacobian("reverse")))
      lg:free()
    end
  end
  if out ~= io.stdout then out:close() end
  local c = plan:costs()
  local res = {
    n = J and J.n or plan:pattern().n, m = plan:pattern().m, nnz = plan:pattern().nnz, mults = c.mults,
    mults_nontrivial = c.mults_nontrivial, adds = c.adds, fill = c.fill, order = c.order, mode = "vertex",
    points = #points, seconds_per_point = #points > 0 and seconds / #points or 0,
  }
  if a.check then res.check = worst end
  if a.json then io.write(require("cgwb.json").encode(res, 2), "\n") end
  io.stderr:write(("%s: %d points, %s vertex elimination kept: %d multiplications a point, nnz %d, "
    .. "%.3g s a point\n"):format(a.tape, res.points, res.order, res.mults, res.nnz, res.seconds_per_point))
  if a.check then
    if worst > CHECK_TOL then
      fail(1, ("Jacobians differ from the sweeps at a fresh build: largest relative difference %.3g, "
        .. "tolerance %g"):format(worst, CHECK_TOL))
    end
    io.stderr:write(("%s: check passed at the %d points (largest relative difference %.3g, tolerance %g)\n")
      :format(a.tape, #points, worst, CHECK_TOL))
  end
end
-- }====

commands.jacobian = {
  help = "Accumulates the Jacobian of a tape by elimination on its linearized graph "
    .. "(exit 3 if --at leaves a recorded branch).",
  example = "cgwb jacobian examples/tapes/bratu.tap --order min-fill --json --check",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape.")
    graph_switches(p)
    p:flag("--ignore-branches", "Go on when --at leaves a recorded branch (the Jacobian is then the "
      .. "recorded branch's, not f's; a warning on stderr).")
    elim_options(p)
    option(p, "--points", "A file of points, one a line (n numbers): the Jacobian at each from one kept "
      .. "plan (a Matrix Market block per point; exit 3 at the first point that leaves a recorded branch).")
  end,
  run = function(a)
    if a.points then return run_points(a) end
    local g, tape = build(a)
    tape:free() -- the graph does not refer to it: less memory held through the elimination
    check_branches(g, a, "the Jacobian there would be the recorded branch's, not f's")
    local lg = check(cgwb().core.linearize(g))
    g:free()
    run_elimination(lg, a, a.tape)
  end,
}

commands.eliminate = {
  help = "Eliminates a graph file (.cg or EliAD), for ordering research without a tape.",
  example = "cgwb eliminate examples/graphs/lighthouse.cg --order exact --json",
  setup = function(p)
    p:argument("graph", "A .cg (or EliAD) graph file.")
    elim_options(p)
  end,
  run = function(a)
    local lg, err = cgwb().read_graph(readable(a.graph))
    if not lg then
      if is_tape(a.graph) then
        fail(2, ("%s is a tape, not a graph file: use `cgwb jacobian %s`"):format(a.graph, a.graph))
      end
      fail(2, err)
    end
    run_elimination(lg, a, a.graph)
  end,
}

-- {==== kernels ====}

-- Reads a kernel file (exit 2 with "file:line:col: ..." when it is not one).
local function read_kernel(path)
  return check(cgwb().read_kernel(readable(path), path))
end

-- The functions --function names (a name or a 1-based id), or all of them.
local function kernel_functions(k, which)
  if which == nil then
    local ids = {}
    for _, f in ipairs(k:functions()) do ids[#ids + 1] = f.id end
    return ids
  end
  local id, err = k:function_id(math.tointeger(tonumber(which)) or which)
  if not id then fail(2, err) end
  return { id }
end

-- The --assume options as the analyses take them ({"a!=b", ...}), each
-- checked to be NAME!=NAME or NAME==NAME.
local function assumptions(list)
  for _, s in ipairs(list) do
    local a, op, b = s:match("^%s*([%a_][%w_]*)%s*([!=]=)%s*([%a_][%w_]*)%s*$")
    if not (a and op and b) then
      fail(2, ("--assume '%s': expected NAME!=NAME or NAME==NAME"):format(s))
    end
  end
  return list
end

local alias_text, chains_text, activity_text, assumptions_for

-- The names of function id's pointer parameters, as a set.
local function pointer_params(k, id)
  local set = {}
  for _, sy in ipairs(k:symbols(id)) do
    if sy.kind == "param" and (sy.pointer or #sy.dims > 0) then set[sy.name] = true end
  end
  return set
end

-- The --assume options that name two pointer parameters of function id: an
-- assumption is about the caller of the functions that have such parameters.
function assumptions_for(k, id, list)
  local ptr, out = pointer_params(k, id), {}
  for _, s in ipairs(list) do
    local a, b = s:match("^%s*([%a_][%w_]*)%s*[!=]=%s*([%a_][%w_]*)%s*$")
    if ptr[a] and ptr[b] then out[#out + 1] = s end
  end
  return out
end

-- Fails unless each --assume applies to one of the functions ids at least.
local function check_assumptions(k, ids, list)
  for _, s in ipairs(list) do
    local used = false
    for _, id in ipairs(ids) do used = used or #assumptions_for(k, id, { s }) > 0 end
    if not used then
      fail(2, ("--assume '%s': no function shown has these two pointer parameters"):format(s))
    end
  end
end

-- The control flow graph of k:cfg without its index by statement (the
-- vertices' stmts say the same), lists marked as arrays for JSON.
local function cfg_plain(g)
  local json = require "cgwb.json"
  local vs = json.array({})
  for i, v in ipairs(g.vertices) do
    vs[i] = { id = v.id, kind = v.kind, stmt = v.stmt, stmts = json.array(v.stmts),
              succ = json.array(v.succ), pred = json.array(v.pred) }
  end
  return { entry = g.entry, exit = g.exit, vertices = vs }
end

-- The control flow graph as text: a vertex a line, its successors, then the
-- statements of a block (Utke, Flattening, sec. 2).
local function cfg_text(g, r, out)
  local where = {}
  for _, st in ipairs(r.statements) do where[st.id] = st end
  out[#out + 1] = "  control flow graph (vertex kind -> successors):"
  for _, v in ipairs(g.vertices) do
    local succ = {}
    for i, w in ipairs(v.succ) do succ[i] = "V" .. w end
    local h = v.stmt and where[v.stmt] -- a loop's or a branch's head
    local head = h and ("  %s %d:%d"):format(h.text, h.line, h.col) or ""
    out[#out + 1] = ("    V%-4d %-9s -> %s%s"):format(v.id, v.kind,
      #succ > 0 and table.concat(succ, " ") or "(none)", head)
    for _, s in ipairs(v.stmts) do
      local st = where[s]
      out[#out + 1] = ("           s%-4d %-8s %s"):format(st.id, st.line .. ":" .. st.col, st.text)
    end
  end
end

-- Integer keys of a sparse table, ascending.
local function int_keys(t)
  local keys = {}
  for key in pairs(t) do keys[#keys + 1] = key end
  table.sort(keys)
  return keys
end

-- The chains as lists in ascending order: {ud = {{access=, text=, line=, col=,
-- stmts={...}}...}, du = {{stmt=, stmts={...}}...}} (0 in stmts: outside).
local function chains_list(an)
  local json = require "cgwb.json"
  local ud, du = json.array({}), json.array({})
  for _, u in ipairs(int_keys(an.chains.ud)) do
    local ac = an.alias.accesses[u]
    ud[#ud + 1] = { access = u, text = ac.text, line = ac.line, col = ac.col,
                    stmts = json.array({ table.unpack(an.chains.ud[u]) }) }
  end
  for _, d in ipairs(int_keys(an.chains.du)) do
    du[#du + 1] = { stmt = d, stmts = json.array({ table.unpack(an.chains.du[d]) }) }
  end
  return { ud = ud, du = du }
end

-- One function's part of the report: a plain table (see doc/kernels.md).
local function kernel_report(k, id, a, funcs)
  local fi = funcs[id]
  local r = { id = id, name = fi.name, ret = fi.ret, params = fi.params, line = fi.line, col = fi.col,
              symbols = k:symbols(id), statements = k:statements(id) }
  if a.cfg then r.cfg = cfg_plain(k:cfg(id)) end
  if a.alias or a.chains or a.activity then
    local an = check(k:analyze(id, { assume = assumptions_for(k, id, a.assume) }))
    if a.alias then
      local al = an.alias
      r.alias = { objects = al.objects, sets = al.sets, accesses = al.accesses, assumed = al.assumed,
                  pairs = require("cgwb.kernel").alias_pairs(al) }
    end
    if a.chains then r.chains = chains_list(an) end
    if a.activity then r.activity = an.activity end
  end
  return r
end

-- "S3 {a[0], b[?]} exact": an address set by its id and addresses.
local function set_text(sets, id)
  local st = sets[id]
  return ("S%d {%s}%s"):format(id, table.concat(st.addresses, ", "), st.exact and " exact" or "")
end

-- The alias part (Utke, Flattening, sec. 4): sets, accesses, aliasing pairs.
function alias_text(al, out)
  out[#out + 1] = "  address sets:"
  for id = 1, #al.sets do out[#out + 1] = "    " .. set_text(al.sets, id) end
  out[#out + 1] = "  accesses (line:col, use or def, text, address set):"
  for id, ac in ipairs(al.accesses) do
    out[#out + 1] = ("    A%-4d %-8s %s%s  %-16s S%d"):format(id, ac.line .. ":" .. ac.col, ac.kind,
      ac.kind == "def" and (ac.may and " may " or " must") or "     ", ac.text, ac.set)
  end
  out[#out + 1] = "  aliasing sets (may or must; every other pair: no):"
  for _, pr in ipairs(al.pairs) do
    out[#out + 1] = ("    S%d S%d %s"):format(pr.u, pr.v, pr.relation)
  end
  for _, as in ipairs(al.assumed or {}) do
    out[#out + 1] = ("    assumed: S%d S%d %s"):format(as.u, as.v, as.answer)
  end
end

-- The chains part (Utke, Flattening, sec. 6): ud by use, du by statement.
function chains_text(ch, out)
  local function stmts(list)
    local items = {}
    for i, s in ipairs(list) do items[i] = s == 0 and "0" or ("s%d"):format(s) end
    return table.concat(items, ", ")
  end
  out[#out + 1] = "  ud-chains (a use <- the statements whose definitions may reach it; 0: outside):"
  for _, u in ipairs(ch.ud) do
    out[#out + 1] = ("    A%-4d %-16s <- %s"):format(u.access, ("%s %d:%d"):format(u.text, u.line, u.col),
      stmts(u.stmts))
  end
  out[#out + 1] = "  du-chains (a defining statement -> the statements its definitions may reach; 0: outside):"
  for _, d in ipairs(ch.du) do
    out[#out + 1] = ("    %-6s -> %s"):format(stmts({ d.stmt }), stmts(d.stmts))
  end
end

-- The activity part (Hovland, Norris, Utke & Strout, sec. 4).
function activity_text(ac, out)
  local function list(t) return #t > 0 and table.concat(t, " ") or "(none)" end
  out[#out + 1] = "  activity:"
  out[#out + 1] = "    independents     " .. list(ac.independents)
  out[#out + 1] = "    dependents       " .. list(ac.dependents)
  out[#out + 1] = "    active symbols   " .. list(ac.active_symbols)
  out[#out + 1] = "    passive symbols  " .. list(ac.passive_symbols)
  local function stmts(t)
    local o = {}
    for i, x in ipairs(t) do o[i] = "s" .. x end
    return list(o)
  end
  out[#out + 1] = "    active statements  " .. stmts(ac.active_stmts)
  out[#out + 1] = "    passive statements " .. stmts(ac.passive_stmts)
end

-- A C declaration of name with type text t: "double *a", "int m[4]".
local function c_decl(t, name)
  local base, dims = t:match("^(.-)(%[.*)$")
  if base then return base .. " " .. name .. dims end
  if t:match("%*$") then return t .. name end
  return t .. " " .. name
end

-- The text form of one function's report.
local function kernel_text(r)
  local params = {}
  for i, p in ipairs(r.params) do params[i] = c_decl(p.type, p.name) end
  local out = { ("function %s: %s %s(%s)  %d:%d")
    :format(r.id, r.ret, r.name, table.concat(params, ", "), r.line, r.col) }
  out[#out + 1] = "  symbols:"
  for _, s in ipairs(r.symbols) do
    out[#out + 1] = ("    %-12s %-6s %s%s  %d:%d"):format(s.name, s.kind, s.type,
      s.address_taken and " (address taken)" or "", s.line, s.col)
  end
  out[#out + 1] = "  statements:"
  for _, st in ipairs(r.statements) do
    local part = (st.part ~= "body" and st.part ~= "then") and (st.part .. ": ") or ""
    out[#out + 1] = ("    s%-4d %-8s %s%s%s%s"):format(st.id, st.line .. ":" .. st.col,
      ("  "):rep(st.depth), part, st.text,
      st.pragma and ("   #pragma cgwb " .. st.pragma) or "")
  end
  if r.cfg then cfg_text(r.cfg, r, out) end
  if r.alias then alias_text(r.alias, out) end
  if r.chains then chains_text(r.chains, out) end
  if r.activity then activity_text(r.activity, out) end
  return table.concat(out, "\n") .. "\n"
end

-- The DOT text of the control flow graphs of the functions ids: one graph,
-- each function a cluster (its node names prefixed with the function's id).
local function kernel_dot(k, ids)
  if #ids == 1 then return k:cfg_dot(ids[1]) end
  local parts, funcs = { "digraph kernel {" }, k:functions()
  for _, id in ipairs(ids) do
    local body = check(k:cfg_dot(id), nil, 1):match("^%s*digraph[^{]*{(.*)}%s*$")
    if not body then fail(1, "cfg_dot: not a digraph") end
    -- vertex names v0, v1, ... become f<id>v0 ...: outside quoted labels only
    local pieces, pos = {}, 1
    while pos <= #body do
      local q0, q1 = body:find('"[^"]*"', pos)
      local plain = body:sub(pos, (q0 or #body + 1) - 1)
      pieces[#pieces + 1] = plain:gsub("%f[%w_]v(%d+)%f[^%w_]", "f" .. id .. "v%1")
      if not q0 then break end
      pieces[#pieces + 1] = body:sub(q0, q1)
      pos = q1 + 1
    end
    parts[#parts + 1] = ("subgraph cluster_%d {\n  label=%q;%s}"):format(id, funcs[id].name,
      table.concat(pieces))
  end
  parts[#parts + 1] = "}\n"
  return table.concat(parts, "\n")
end

-- Prints the report of each function as soon as it is made, so that only one
-- function's analyses are alive at a time (a kernel of 10^5 statements keeps
-- thousands).  The JSON is what json.encode gives for {file=, functions=[...]}
-- with an indent of 2: each function's object indented one level deeper.
local function kernel_stream(k, ids, a)
  local json, funcs = require "cgwb.json", k:functions()
  local function head() -- written with the first report: a failure there leaves stdout empty
    if a.json then
      io.write('{\n  "file": ', json.encode(a.kernel), ',\n  "functions": [')
    else
      io.write(a.kernel, "\n")
    end
  end
  if #ids == 0 then head() end
  for i, id in ipairs(ids) do
    local r = kernel_report(k, id, a, funcs)
    if i == 1 then head() end
    if a.json then
      local text = json.encode(r, 2, { inline_arrays = true }):gsub("\n", "\n    ")
      io.write(i > 1 and "," or "", "\n    ", text)
    else
      io.write("\n", kernel_text(r))
    end
  end
  if a.json then io.write(#ids > 0 and "\n  ]\n}\n" or "]\n}\n") end
end

-- The decoded CALL.json at path (cgwb kernel --call, cgwb adjoint --call).
local function read_call(path)
  local fh = io.open(readable(path), "rb")
  local text = fh:read("a")
  fh:close()
  return check(require("cgwb.json").decode(text, path))
end

-- Runs the interpreter (--call, --jacobian) and prints the issue's JSON.
local function kernel_call(k, a)
  local ids = kernel_functions(k, a["function"])
  if #ids ~= 1 then fail(2, "--call needs --function (the kernel has several functions)") end
  local json = require "cgwb.json"
  local c = read_call(a.call)
  local r, err, kind = k:call(ids[1], c, { name = a.call })
  if not r then fail(kind == "input" and 2 or 1, err) end
  local out = { arrays = r.arrays, scalars = r.scalars, ["return"] = r["return"] }
  if a.jacobian then
    local J, jerr, jkind = k:jacobian_named(ids[1], c, { name = a.call })
    if not J then fail(jkind == "input" and 2 or 1, jerr) end
    out.jacobian = J
  end
  io.write(json.encode(out, 2, { inline_arrays = true, nonfinite = true }), "\n") -- a NaN is no void return
end

commands.kernel = {
  help = "Reads a kernel in the C subset: functions, statements, control flow, alias sets, "
    .. "chains, activity (Utke, Flattening; Hovland, Norris, Utke & Strout); runs it with --call.",
  example = "cgwb kernel examples/kernels/utke-fig2.c --alias --chains\n"
    .. "  cgwb kernel examples/kernels/utke-fig2.c --call examples/kernels/utke-fig2.json --jacobian",
  setup = function(p)
    p:argument("kernel", "A kernel file in the C subset (doc/kernel-language.md).")
    option(p, "--function", "One function, by name or 1-based id (default: all).")
    p:flag("--cfg", "The control flow graph.")
    p:flag("--alias", "Address sets of every use and definition, must- and may-alias.")
    p:flag("--chains", "Reaching definitions: ud- and du-chains.")
    p:flag("--activity", "Activity analysis: the active variables.")
    option(p, "--assume", "An assumption on pointer parameters, 'a!=b' (never alias) or 'a==b' "
      .. "(repeatable)."):count("*")
    p:flag("--json", "Machine-readable output.")
    option(p, "--dot", "Write the control flow graph as DOT to FILE (- for standard output; all "
      .. "functions as clusters when no --function).")
    option(p, "--call", "Run the function on CALL.json (arrays and arguments; doc/kernels.md) and "
      .. "print arrays, scalars and return value as JSON.")
    p:flag("--jacobian", "With --call: also the Jacobian, by the interpreter's tangent mode.")
  end,
  run = function(a)
    if a.jacobian and not a.call then fail(2, "--jacobian needs --call CALL.json") end
    local k = read_kernel(a.kernel)
    if a.call then return kernel_call(k, a) end
    assumptions(a.assume)
    local ids = kernel_functions(k, a["function"])
    check_assumptions(k, ids, a.assume)
    if a.dot then
      local fh = io.open(out_path(a.dot), "wb")
      if not fh then fail(1, a.dot .. ": cannot write") end
      fh:write(kernel_dot(k, ids))
      fh:close()
      if a.dot == "-" then return end
    end
    kernel_stream(k, ids, a)
  end,
}

-- {==== flattening ====}

-- Writes text to path ("-": standard output) through a temporary name and a
-- rename, so that a failure leaves no half-written file (exit 2).
local function write_text(path, text)
  if path == "-" then io.stdout:write(text) return end
  local tmp = path .. ".tmp"
  local fh, err = io.open(tmp, "wb")
  if not fh then fail(2, ("%s: cannot write: %s"):format(path, (err or ""):gsub("^.-: ", ""))) end
  local ok, werr = fh:write(text)
  local cok, cerr = fh:close()
  if not ok or not cok then
    os.remove(tmp)
    fail(2, ("%s: write failed: %s"):format(path, tostring(werr or cerr)))
  end
  local rok, rerr = os.rename(tmp, path)
  if not rok then
    os.remove(tmp)
    fail(2, ("%s: cannot write: %s"):format(path, tostring(rerr)))
  end
end

-- A module of another part of cgwb that may be absent from this build
-- (cgwb.tangent, cgwb.xaif): the module or nil; any other error raises.
local function optional(name)
  local ok, m = pcall(require, name)
  if ok then return m end
  if tostring(m):find("module '" .. name .. "' not found", 1, true) then return nil end
  error(m, 0)
end

-- The module an option needs, or exit 2 saying it is not available.
local function needed(name, option_name)
  local m = optional(name)
  if not m then fail(2, ("%s is not available: this build has no %s module"):format(option_name, name)) end
  return m
end

-- A comma-separated list of parameter names (--independents x,z).
local function name_list(s, what)
  if s == nil then return nil end
  local out = {}
  for item in (s .. ","):gmatch("([^,]*),") do
    item = item:match("^%s*(.-)%s*$")
    if not item:match("^[%a_][%w_]*$") then
      fail(2, ("%s '%s': expected parameter names separated by commas"):format(what, s))
    end
    out[#out + 1] = item
  end
  return out
end

-- The one function to flatten: --function (a name or 1-based id), or the
-- kernel's only function.
local function one_function(k, which)
  if which ~= nil then return kernel_functions(k, which)[1] end
  local funcs = k:functions()
  if #funcs == 1 then return funcs[1].id end
  local names = {}
  for i, f in ipairs(funcs) do names[i] = f.name end
  fail(2, ("%s: --function F is needed (functions: %s)"):format(k:file(), table.concat(names, ", ")))
end

-- Whether the input is an XAIF file: named .xaif, or XML text.
local function is_xaif(path)
  if path:match("%.xaif$") then return true end
  local fh = io.open(path, "rb")
  if not fh then return false end
  local head = fh:read(5)
  fh:close()
  return head == "<?xml"
end

-- The report (describe's table) as --json or as text.
local function flatten_report(t, a)
  if a.json then return require("cgwb.json").encode(t, 2, { inline_arrays = true }) .. "\n" end
  return require("cgwb.flatten").text(t, a.input)
end

-- cgwb flatten FILE.xaif: the graphs an XAIF file describes, as for a kernel.
local function flatten_xaif(a)
  for _, o in ipairs { "function", "split", "dot", "xaif", "emit", "independents", "dependents" } do
    if a[o] then fail(2, ("%s: --%s needs a kernel (an XAIF file is only described)"):format(a.input, o)) end
  end
  if a.prune or #a.assume > 0 then
    fail(2, ("%s: --%s needs a kernel (an XAIF file is only described)"):format(a.input, a.prune and "prune" or "assume"))
  end
  local xaif = needed("cgwb.xaif", "XAIF import")
  local fh = io.open(readable(a.input), "rb")
  local text = fh:read("a")
  fh:close()
  local model = check(xaif.read(text, a.input))
  io.write(flatten_report(xaif.describe(model), a))
end

-- Fails unless at most one output is standard output.
local function one_stdout(a)
  local seen
  for _, o in ipairs { "dot", "xaif", "output" } do
    if a[o] == "-" then
      if seen then fail(2, ("--%s - and --%s - would both write to standard output"):format(seen, o)) end
      seen = o
    end
  end
  return seen
end

commands.flatten = {
  help = "Flattens a kernel function's basic blocks into term graphs (Utke, Flattening Basic Blocks, "
    .. "Algorithms 1 and 2); preaccumulated tangent code, XAIF.",
  example = "cgwb flatten examples/kernels/utke-fig2.c --function fig2 --json\n"
    .. "  cgwb flatten examples/kernels/flux1d.c --split examples/split-intrinsics.lua",
  setup = function(p)
    p:argument("input", "A kernel file in the C subset (doc/kernel-language.md), or an XAIF file "
      .. "(.xaif or XML text: its graphs are described).")
    option(p, "--function", "The function, by name or 1-based id (default: the kernel's only one).")
    option(p, "--split", "Split strategy: " .. table.concat(require("cgwb.flatten").strategies, ", ")
      .. ", or FILE.lua returning a function split(info) (default minimal).")
    option(p, "--independents", "Independent parameters for activity, comma separated (with --prune).")
    option(p, "--dependents", "Dependent parameters (or return) for activity, comma separated (with --prune).")
    option(p, "--assume", "An assumption on pointer parameters, 'a!=b' or 'a==b' (repeatable)."):count("*")
    p:flag("--prune", "Activity analysis decides what is active; dead assignments are left out.")
    p:flag("--json", "Machine-readable output (doc/flattening.md, \"cgwb flatten\").")
    option(p, "--dot", "Write the term graphs as DOT to FILE (- for standard output).")
    option(p, "--xaif", "Write the flattened function as XAIF to FILE (- for standard output).")
    option(p, "--emit", "Write code: 'tangent' (preaccumulated tangent code, to -o), 'tangent-vector' (its "
      .. "vector mode, F_dv: many directions a call)."):choices { "tangent", "tangent-vector" }
    option(p, "-o --output", "The file --emit writes (- for standard output).")
    option(p, "--order", "Elimination ordering of the subgraphs, as `cgwb eliminate --order` takes it.",
      "markowitz")
  end,
  run = function(a)
    if is_xaif(a.input) then return flatten_xaif(a) end
    if a.emit and not a.output then fail(2, "--emit " .. a.emit .. " needs -o OUT.c") end
    if a.output and not a.emit then fail(2, "-o needs --emit tangent") end
    local to_stdout = one_stdout(a)
    assumptions(a.assume)
    local k = read_kernel(a.input)
    local id = one_function(k, a["function"])
    check_assumptions(k, { id }, a.assume)
    if a.split and a.split:match("%.lua$") then readable(a.split) end
    if a.order:match("%.lua$") then readable(a.order) end
    local tangent = optional "cgwb.tangent"
    local spec -- as tangent code takes it, where tangent code is available
    if tangent then spec = check(tangent.order_spec({ order = a.order }))
    else spec = check(require("cgwb.elim").resolve(a.order, "vertex")) end
    local flatten, fname = require "cgwb.flatten", k:functions()[id].name
    local opts = { split = a.split, assume = assumptions_for(k, id, a.assume), prune = a.prune,
                   independents = name_list(a.independents, "--independents"),
                   dependents = name_list(a.dependents, "--dependents") }
    collectgarbage() -- the parse's garbage, before the flattening's tables (peak memory)
    local res = check(flatten.run(k, fname, opts))
    collectgarbage() -- the analyses' garbage
    local costs = tangent and check(tangent.costs(res, { order = spec, kernel = k, assume = opts.assume, prune = opts.prune,
      independents = opts.independents, dependents = opts.dependents })) -- the kernel: for the statement-level costs
    local outputs = {} -- every text is made before any file is written
    if a.dot then outputs[#outputs + 1] = { a.dot, flatten.dot(res) } end
    if a.xaif then outputs[#outputs + 1] = { a.xaif, check(needed("cgwb.xaif", "--xaif").write(k, fname, res, opts)) } end
    if a.emit then
      local eopts = { order = spec, vector = a.emit == "tangent-vector" }
      for key, v in pairs(opts) do eopts[key] = v end
      outputs[#outputs + 1] = { a.output, check(needed("cgwb.tangent", "--emit tangent").emit(k, fname, eopts)) }
    end
    local report = flatten_report(flatten.describe(res, costs), a)
    io.stdout:flush()
    for _, o in ipairs(outputs) do write_text(o[1], o[2]) end
    if to_stdout then io.stdout:flush(); io.stderr:write(report) else io.write(report) end
  end,
}

-- {==== loops: the dependence graph and the loops' verdicts ====}

commands.loops = {
  help = "The data-dependence graph of a kernel function and which loops may be adjoined iteration by "
    .. "iteration: access classes, verdict, terminal, dry run, snapshot (Hascoet, Fidanova & Held).",
  example = "cgwb loops examples/kernels/hfh-dryrun.c --function dryrun\n"
    .. "  cgwb loops examples/kernels/hfh-overlap.c --assume 'a!=b' --json",
  setup = function(p)
    p:argument("input", "A kernel file in the C subset (doc/kernel-language.md).")
    option(p, "--function", "The function, by name or 1-based id (default: the kernel's only one).")
    option(p, "--assume", "An assumption on pointer parameters, 'a!=b' or 'a==b' (repeatable)."):count("*")
    p:flag("--json", "Machine-readable output: the loops as `cgwb adjoint --report` lists them (doc/adjoint-loops.md).")
    option(p, "--dot", "Write the data-dependence graph as DOT to FILE (- for standard output).")
  end,
  run = function(a)
    assumptions(a.assume)
    local k = read_kernel(a.input)
    local id = one_function(k, a["function"])
    check_assumptions(k, { id }, a.assume)
    local loops = require "cgwb.loops"
    local info = check(loops.analyse(k, id, { assume = assumptions_for(k, id, a.assume) }))
    local report
    if a.json then
      report = require("cgwb.json").encode({ ["function"] = info.func, loops = loops.report(info) }, 2,
        { inline_arrays = true }) .. "\n"
    else
      report = loops.text(info, a.input)
    end
    if a.dot then
      local dot = loops.dot(info)
      if a.dot == "-" then io.stdout:write(dot); io.stderr:write(report) return end
      write_text(a.dot, dot)
    end
    io.write(report)
  end,
}

-- }====

local order = { "run", "stats", "convert", "trace", "graph", "eval", "codegen", "jacobian", "eliminate", "kernel", "flatten" }
order[#order + 1] = "loops"

-- {==== adjoint: adjoint code, loops adjoined per iteration ====}

-- --loops: "auto", "none", a comma-separated list of line numbers, or a Lua
-- file returning a function of a loop's row (true: adjoin it per iteration).
local function loops_choice(s)
  if s == "auto" or s == "none" then return s end
  if s:match("%.lua$") then return check(require("cgwb.flatten").load_split(s, "decide(loop)")) end
  local out = {}
  for item in (s .. ","):gmatch("([^,]*),") do
    local v = math.tointeger(tonumber(item))
    if not v or v < 1 then fail(2, ("--loops '%s': expected auto, none or line numbers separated by commas"):format(s)) end
    out[#out + 1] = v
  end
  return out
end

commands.adjoint = {
  help = "Adjoint C code of a kernel function (F_b); independent loops adjoined iteration by iteration, "
    .. "dry-run when not terminal (Hascoet, Fidanova & Held).",
  example = "cgwb adjoint examples/kernels/meshflux.c --function residual --loops auto -o residual_b.c "
    .. "--report residual.json",
  setup = function(p)
    p:argument("input", "A kernel file in the C subset (doc/kernel-language.md).")
    option(p, "--function", "The function, by name or 1-based id (default: the kernel's only one).")
    option(p, "--independents", "Independent parameters, comma separated (default: the double parameters read).")
    option(p, "--dependents", "Dependent parameters (or return), comma separated (default: those written).")
    option(p, "--loops", "Which loops are adjoined per iteration: auto (every one the analysis accepts), "
      .. "none (the standard adjoint), the lines of their `for`, comma separated, or FILE.lua returning "
      .. "a function decide(loop) of the loop's row (doc/adjoint-loops.md); a loop the analysis refuses is "
      .. "refused with its reason either way.", "auto")
    option(p, "--assume", "An assumption on pointer parameters, 'a!=b' or 'a==b' (repeatable)."):count("*")
    option(p, "-o --output", "The C file to write (cgwb_adstack.h is written next to it).")
    option(p, "--report", "Write the loops' verdicts and the function's activity as JSON to FILE.")
    option(p, "--call", "With --report: a CALL.json (as `cgwb kernel --call`): compiles the standard and the "
      .. "transformed adjoint with cc and measures their tape and snapshot bytes on that call.")
  end,
  run = function(a)
    if not a.output then fail(2, "cgwb adjoint needs -o OUT.c") end
    if a.call and not a.report then fail(2, "--call needs --report FILE.json (the measures go there)") end
    local sel = loops_choice(a.loops)
    assumptions(a.assume)
    local k = read_kernel(a.input)
    local id = one_function(k, a["function"])
    check_assumptions(k, { id }, a.assume)
    local adjoint = require "cgwb.adjoint"
    local fname = k:functions()[id].name
    local opts = { assume = assumptions_for(k, id, a.assume), loops = sel,
                   independents = name_list(a.independents, "--independents"),
                   dependents = name_list(a.dependents, "--dependents") }
    local call
    if a.call then
      call = check(require("cgwb.kernel").core_call(k, id, read_call(a.call), { name = a.call }))
    end
    local code, report = adjoint.emit(k, fname, opts)
    if not code then fail(2, report) end
    local hdr_path = adjoint.runtime_header()
    if not hdr_path then fail(1, "the runtime header cgwb_adstack.h is not installed with the modules") end
    local fh = assert(io.open(hdr_path, "rb"))
    local hdr = fh:read("a")
    fh:close()
    if call then
      local function with_loops(loops) -- opts with another loop choice
        local o = {}
        for key, v in pairs(opts) do o[key] = v end
        o.loops = loops
        return o
      end
      local std = opts.loops == "none" and code or check(adjoint.emit(k, fname, with_loops("none")))
      local tr = opts.loops == "none" and check(adjoint.emit(k, fname, with_loops("auto"))) or code
      local m = check(adjoint.measure(k, fname, { standard = std, transformed = tr }, call))
      report.variants = m
    end
    local outputs = { { a.output, code } } -- every text is made before any file is written
    if a.output ~= "-" then
      local dir = a.output:match("^(.*)/[^/]*$") or "."
      outputs[#outputs + 1] = { dir .. "/cgwb_adstack.h", hdr }
    end
    if a.report then
      outputs[#outputs + 1] = { a.report, require("cgwb.json").encode(report, 2, { inline_arrays = true }) .. "\n" }
    end
    for _, o in ipairs(outputs) do write_text(o[1], o[2]) end
    if #report.work > 0 and not a.quiet then
      io.stderr:write(("cgwb adjoint: note: %s %s active but neither independent nor dependent (work arrays): "
        .. "F_b reads their adjoints where %s overwrites them; pass them zeroed\n"):format(table.concat(report.work, ", "),
        #report.work == 1 and "is" or "are", fname))
    end
  end,
}
order[#order + 1] = "adjoint"

-- }====
-- {==== sweep: many jobs from a plan, one JSON line each, merged (doc/sweep.md) ====}

-- The command a sweep's jobs run: the launcher this process runs as (made
-- absolute), else CGWB_COMMAND, else cgwb on the PATH.
local function sweep_cgwb()
  local self = arg and arg[0]
  if type(self) == "string" and self:match("cgwb$") and self:find("/") then
    local p = io.popen("realpath -- " .. require("cgwb.sweep").shell_quote(self) .. " 2>/dev/null")
    local abs = p:read("l")
    p:close()
    if abs and abs ~= "" then return abs end
  end
  return os.getenv("CGWB_COMMAND") or "cgwb"
end

-- The job --job names: a 1-based index into the plan's jobs or an id.
local function sweep_find(jobs, which)
  if #which == 16 and which:match("^%x+$") then
    for _, j in ipairs(jobs) do if j.id == which then return j end end
  else
    local k = math.tointeger(tonumber(which))
    if k and jobs[k] then return jobs[k] end
  end
  fail(2, ("--job %s: no such job (an index from 1 to %d or a job's id)"):format(which, #jobs))
end

-- Writes DIR/results.csv (or --output) and prints the summary (--json: as
-- JSON); only: the ids of the plan's jobs (a run merges its plan's records).
local function sweep_merge(dir, a, only)
  local sweep = require "cgwb.sweep"
  local rows = check(sweep.merge(dir, only))
  write_text(a.output or (dir .. "/results.csv"), sweep.csv(rows))
  local s = sweep.summary(rows)
  if a.json then io.write(require("cgwb.json").encode(s, 2), "\n") else io.write(sweep.summary_text(s)) end
end

-- The parallel and ssh runners: GNU parallel runs `cgwb sweep PLAN --job ID`
-- (here or on the machines of --sshloginfile); each job prints its record,
-- which is written here; a job parallel killed (--timeout) or that printed
-- nothing gets a record from parallel's job log.
local function sweep_parallel(plan, todo, dir, a, r)
  local sweep = require "cgwb.sweep"
  local q = sweep.shell_quote
  local ids, byid = {}, {}
  for i, j in ipairs(todo) do ids[i], byid[j.id] = j.id, j end
  write_text(dir .. "/todo.txt", table.concat(ids, "\n") .. "\n")
  local log = dir .. "/parallel.log"
  os.remove(log)
  local timeout = a.timeout or plan.timeout
  local remote = a.runner == "ssh"
  local job = ("CGWB_PROGRESS=never %s sweep %s --job {} --quiet%s"):format(remote and "cgwb" or q(sweep_cgwb()),
    q(plan.path), timeout and (" --timeout %.17g"):format(timeout) or "")
  local opts = { "parallel", "--will-cite", "--joblog", q(log), "-a", q(dir .. "/todo.txt") }
  if a.jobs then opts[#opts + 1] = "--jobs " .. a.jobs end
  if timeout then opts[#opts + 1] = ("--timeout %.17g"):format(timeout * 1.5 + 10) end -- after timeout(1)'s own
  local only_here = true -- every login is ':' (this machine): nothing to copy
  for line in io.lines(readable(a.sshloginfile or "/dev/null")) do
    local here = line:match("^%s*:?%s*$") or line:match("^%s*%d+/:%s*$") or line:match("^%s*#")
    if not here then only_here = false end
  end
  if remote then
    opts[#opts + 1] = "--sshloginfile " .. q(a.sshloginfile) .. " --workdir ."
  end
  if remote and only_here and not os.execute("command -v cgwb >/dev/null 2>&1") then
    fail(2, "--runner ssh runs `cgwb` on each machine's PATH, and this machine (':') has none")
  end
  if remote and not only_here then
    local files, seen = { plan.path }, {}
    for _, j in ipairs(todo) do
      for _, f in ipairs(sweep.job_files(j)) do files[#files + 1] = f end
    end
    for _, f in ipairs(files) do
      if not seen[f] then seen[f] = true; opts[#opts + 1] = "--basefile " .. q(f) end
    end
  end
  local p = io.popen(table.concat(opts, " ") .. " " .. q(job) .. " </dev/null")
  local got, done = {}, 0
  for line in p:lines() do
    local rec = require("cgwb.json").decode(line, "job output")
    if type(rec) == "table" and byid[rec.id] and not got[rec.id] then
      got[rec.id] = true
      check(sweep.write_record(dir, rec), nil, 1)
      done = done + 1
      r:update(done)
    end
  end
  p:close()
  local fh = io.open(log, "r")
  for line in fh and fh:lines() or function() end do
    local f = {}
    for x in (line .. "\t"):gmatch("([^\t]*)\t") do f[#f + 1] = x end
    local id = f[9] and f[9]:match("%-%-job (%x+)")
    if id and byid[id] and not got[id] then
      got[id] = true
      local killed = tonumber(f[8]) ~= 0
      local rec = killed and timeout
        and sweep.lost_record(byid[id], "timeout", 124, ("killed by GNU parallel's --timeout after %.17g s")
          :format(timeout * 1.5 + 10), tonumber(f[4]))
        or sweep.lost_record(byid[id], "failed", tonumber(f[7]) or 1, f[7] == "127"
          and ("%s: cgwb: command not found (it must be on the PATH there)"):format(f[2])
          or ("no record from the job (exit %s, signal %s)"):format(f[7], f[8]), tonumber(f[4]))
      check(sweep.write_record(dir, rec), nil, 1)
    end
  end
  if fh then fh:close() end
  for _, j in ipairs(todo) do
    if not got[j.id] then
      check(sweep.write_record(dir, sweep.lost_record(j, "failed", 1, "GNU parallel did not run the job")), nil, 1)
    end
  end
end

-- The slurm runner: DIR/sweep.sbatch, one array task a job (by index).
local function sweep_slurm(plan, jobs, dir, a)
  local q = require("cgwb.sweep").shell_quote
  local p = io.popen("pwd")
  local cwd = p:read("l")
  p:close()
  local timeout = a.timeout or plan.timeout
  local lines = {
    "#!/bin/sh",
    ("# cgwb sweep %s: %d jobs, one array task each (doc/sweep.md); submit with: sbatch %s/sweep.sbatch")
      :format(plan.path, #jobs, dir),
    "#SBATCH --job-name=cgwb-" .. plan.name,
    ("#SBATCH --array=1-%d"):format(#jobs),
    ("#SBATCH --output=%s/slurm/%%A_%%a.log"):format(dir),
  }
  if timeout then lines[#lines + 1] = ("#SBATCH --time=%d"):format(math.ceil(timeout / 60) + 1) end
  lines[#lines + 1] = "cd " .. q(cwd) .. " || exit 1"
  lines[#lines + 1] = ("exec %s sweep %s --job \"$SLURM_ARRAY_TASK_ID\" --out %s --quiet%s%s"):format(q(sweep_cgwb()),
    q(plan.path), q(dir), timeout and (" --timeout %.17g"):format(timeout) or "",
    a.rerun_failed and " --rerun-failed" or "")
  os.execute("mkdir -p " .. q(dir .. "/slurm"))
  write_text(dir .. "/sweep.sbatch", table.concat(lines, "\n") .. "\n")
  io.write(("%s/sweep.sbatch: %d array tasks; submit with `sbatch %s/sweep.sbatch`, then merge with "
    .. "`cgwb sweep --merge %s`\n"):format(dir, #jobs, dir, dir))
end

commands.sweep = {
  help = "Runs a plan of jobs (inputs x orderings x modes x seeds x budgets), one JSON line each, "
    .. "here, with GNU parallel, over ssh or as a Slurm array; merges them into a CSV and a summary.",
  example = "cgwb sweep examples/sweep/orderings.lua --runner parallel --jobs 2 --out sweep-orderings\n"
    .. "  cgwb sweep --merge sweep-orderings -o orderings.csv",
  setup = function(p)
    p:argument("plan", "A Lua file returning the plan's table (doc/sweep.md)."):args("?")
    option(p, "--runner", "Where the jobs run: local (one after the other), parallel (GNU parallel here), "
      .. "ssh (GNU parallel on the machines of --sshloginfile; cgwb on their PATH), slurm (writes "
      .. "DIR/sweep.sbatch, a job array, and does not submit it).", "local")
      :choices { "local", "parallel", "ssh", "slurm" }
    option(p, "--jobs", "Jobs at once for the parallel and ssh runners (GNU parallel's --jobs; "
      .. "default one a core).")
      :argname("N"):convert(int_in("--jobs", 1, 100000))
    option(p, "--sshloginfile", "For --runner ssh: GNU parallel's list of machines (':' is this one).")
      :argname("FILE")
    option(p, "--out", "The sweep's directory: jobs/<id>.json, results.csv (default sweep-NAME, "
      .. "NAME the plan's name).")
      :argname("DIR")
    option(p, "--timeout", "Seconds a job may take (over the plan's timeout); a job past it is "
      .. "recorded as timed out.")
      :argname("S"):convert(function(s)
        local v = tonumber(s)
        if not v or not (v > 0) or v == math.huge then
          return nil, ("--timeout takes seconds > 0, got '%s'"):format(s)
        end
        return v
      end)
    p:flag("--dry-run", "List the jobs (id, state, command) and run nothing.")
    p:flag("--rerun-failed", "Run again the jobs recorded as failed or timed out (ok ones never run again).")
    option(p, "--job", "Run one job of the plan, by index (1-based) or id: its record goes to "
      .. "--out DIR's jobs/ (unless it is recorded ok), or without --out to standard output.")
      :argname("K")
    option(p, "--merge", "Merge DIR's records: DIR/results.csv (or -o) and the summary; no plan.")
      :argname("DIR")
    option(p, "-o --output", "The merged CSV file to write (default DIR/results.csv).")
      :argname("FILE.csv")
    p:flag("--json", "Print the summary as JSON.")
  end,
  run = function(a)
    local sweep = require "cgwb.sweep"
    if a.merge then
      if a.plan then fail(2, "--merge DIR takes no plan") end
      return sweep_merge(a.merge, a)
    end
    if not a.plan then fail(2, "cgwb sweep needs a PLAN.lua (or --merge DIR)") end
    local plan = check(sweep.load_plan(readable(a.plan)))
    local jobs = check(sweep.expand(plan))
    if a.timeout then for _, j in ipairs(jobs) do j.timeout = a.timeout end end
    if a.job and not a.out then -- a job's record on stdout (the parallel and ssh runners read it)
      io.write(sweep.record_line(sweep.run_job(sweep_find(jobs, a.job), { cgwb = sweep_cgwb() })))
      return
    end
    local dir = a.out or ("sweep-" .. plan.name)
    if a.runner == "ssh" and not a.sshloginfile then fail(2, "--runner ssh needs --sshloginfile FILE") end
    if a.runner ~= "ssh" and a.sshloginfile then fail(2, "--sshloginfile goes with --runner ssh") end
    if a.jobs and a.runner ~= "parallel" and a.runner ~= "ssh" then
      fail(2, "--jobs goes with --runner parallel or ssh")
    end
    if (a.runner == "parallel" or a.runner == "ssh") and not a.dry_run
        and not os.execute("command -v parallel >/dev/null 2>&1") then
      fail(2, "--runner " .. a.runner .. " needs GNU parallel on the PATH (Debian package parallel)")
    end
    if a.runner == "slurm" and not a.dry_run then return sweep_slurm(plan, jobs, dir, a) end
    local todo = {}
    for _, j in ipairs(a.job and { sweep_find(jobs, a.job) } or jobs) do
      if sweep.pending(dir, j, a.rerun_failed or a.job ~= nil) then todo[#todo + 1] = j end
    end
    if a.dry_run then
      for _, j in ipairs(jobs) do
        local rec = sweep.read_record(dir, j.id)
        local cmd = {}
        for i, x in ipairs(j.args) do cmd[i] = sweep.shell_quote(x) end
        io.write(("%s %s cgwb %s\n"):format(j.id, rec and rec.status or "todo", table.concat(cmd, " ")))
      end
      io.write(("%d jobs, %d to run\n"):format(#jobs, #todo))
      return
    end
    os.execute("mkdir -p " .. sweep.shell_quote(dir .. "/jobs"))
    local r = sweep.progress("sweep jobs", #todo, a.quiet)
    if a.runner == "local" then
      local cmd = sweep_cgwb()
      for k, j in ipairs(todo) do
        check(sweep.write_record(dir, sweep.run_job(j, { cgwb = cmd })), nil, 1)
        r:update(k)
      end
    elseif #todo > 0 then
      sweep_parallel(plan, todo, dir, a, r)
    end
    r:finish()
    if a.job then return end
    io.stderr:write(("cgwb sweep: %s: %d jobs, %d run, %d already recorded\n"):format(plan.path, #jobs, #todo,
      #jobs - #todo))
    local ids = {}
    for _, j in ipairs(jobs) do ids[j.id] = true end
    sweep_merge(dir, a, ids)
  end,
}
order[#order + 1] = "sweep"

-- }====

M.commands, M.order = commands, order

-- {==== main ====}

local function version_text()
  return ("cgwb %s (%s)"):format(cgwb().version, _VERSION)
end

-- The parser and one sub-parser per command (for their usage lines).  With
-- `only` (a command's name), only that command's options are set up: a
-- process runs one command, and the other commands' options (some ask the
-- core for lists of names) would only cost start-up time.
-- Whether sub-parser `sub` has an option named `name` already.
local function has_option(sub, name)
  for _, o in ipairs(sub._options) do
    for _, alias in ipairs(o._aliases) do
      if alias == name then return true end
    end
  end
  return false
end

local function build_parser(only)
  local p = argparse("cgwb", "A Lua-scriptable research workbench for automatic differentiation.")
    :epilog("Examples:\n  cgwb run examples/markowitz.lua examples/tapes/bratu.tap\n"
      .. "  cgwb help jacobian\n\n`cgwb help COMMAND` or `cgwb COMMAND --help` for a command's options; "
      .. "doc/usage.md for the manual.")
  p:command_target("command")
  p:require_command(true)
  p:flag("--version", "Print the version and exit.")
  local subs = {}
  for _, name in ipairs(order) do
    local c = commands[name]
    local sub = p:command(name, c.help)
    if not only or only == name then
      c.setup(sub)
      if not has_option(sub, "--quiet") then -- a command may say more about it
        sub:flag("--quiet", "No progress on stderr (doc/usage.md, \"Progress and --quiet\").")
      end
      sub:epilog("Example:\n  " .. c.example)
    end
    subs[name] = sub
  end
  p:command("help", "Show the help of a command: cgwb help COMMAND."):argument("topic"):args("?")
  return p, subs
end
--- The argparse parser of the command line: () -> parser, subcommands (for the tests).
-- @function build_parser
M.build_parser = build_parser -- for the tests: the parser of one command against the whole one

-- A negative number after an option that takes a value is that value:
-- "--seed -3" becomes "--seed=-3" (argparse would take "-3" for an option).
local function join_negatives(list)
  local out = {}
  for i = 1, #list do
    local prev = out[#out]
    if prev and valued[prev] and prev:match("^%-%-") and list[i]:match("^%-[%d.]") and tonumber(list[i]) then
      out[#out] = prev .. "=" .. list[i]
    else
      out[#out + 1] = list[i]
    end
  end
  return out
end

-- A message as stderr shows it: a byte that is not part of UTF-8 text, and
-- a control byte but tab and newline, as \xHH (a NUL as \x00), whatever it
-- quotes (an argument, a path); kparse shows the kernel's own bytes so.
local function shown(msg)
  local out, i = {}, 1
  while true do
    local ok, bad = utf8.len(msg, i)
    if ok then out[#out + 1] = msg:sub(i) break end
    out[#out + 1] = msg:sub(i, bad - 1)
    out[#out + 1] = ("\\x%02x"):format(msg:byte(bad))
    i = bad + 1
  end
  return (table.concat(out):gsub("%c", function(c)
    return (c == "\t" or c == "\n") and c or ("\\x%02x"):format(c:byte())
  end))
end
--- A message as the command line prints it: (msg) -> text, bytes that are not UTF-8 text and
-- control bytes (but tab and newline) as \xHH.
-- @function shown
M.shown = shown

-- Prints the usage of the command named in list (or the top level's), then
-- the message; returns 2.
local function usage_error(parser, subs, list, msg)
  local name
  for _, w in ipairs(list) do
    if subs[w] then name = w; break end
  end
  local usage = name and subs[name]:get_usage() or parser:get_usage()
  io.stderr:write(usage, "\n\ncgwb", name and (" " .. name) or "", ": ", shown(tostring(msg)), "\n")
  if name then io.stderr:write("(cgwb help ", name, " for the options)\n") end
  return 2
end

-- Whether a failure's message is the memory's, not the input's: the memory
-- limit (CGWB_MEMORY_LIMIT: "memory limit of ... reached", an ordering that
-- "would need more than ...", the graph build's "over the memory limit of"),
-- an allocation the core could not make (CG_ENOMEM: "... out of memory ...")
-- or one Lua could not ("not enough memory").  The API returns some of them
-- as nil, message, the way it returns bad input; their exit status is 1.
local function memory_failure(msg)
  if type(msg) ~= "string" then return false end
  for _, s in ipairs { "(CGWB_MEMORY_LIMIT)", "over the memory limit of", "out of memory", "not enough memory" } do
    if msg:find(s, 1, true) then return true end
  end
  return false
end
--- Whether an error message is a memory failure (the memory limit, the core's or Lua's out of
-- memory): (msg) -> boolean.  The command line exits 1 on those, never 2.
-- @function memory_failure
M.memory_failure = memory_failure

-- The failure of a command's run as {code, msg, trace}.  A memory error of
-- Lua's own (LUA_ERRMEM) reaches here as its message: xpcall runs no
-- handler for it.  A memory failure exits 1 whichever path reported it.
local function failure(err)
  if type(err) ~= "table" then err = { code = 1, msg = tostring(err) } end
  if err.code == 2 and memory_failure(err.msg) then err.code = 1 end
  return err
end

-- Runs command `name` with the parsed arguments `a`; returns the exit status.
local function dispatch(name, a)
  a.command = name
  if a.quiet then require("cgwb.progress").quiet(true) end
  local ok, err = xpcall(commands[name].run, function(e)
    if getmetatable(e) == Fail then return e end
    return { code = 1, msg = tostring(e), trace = debug.traceback() }
  end, a)
  if ok then
    io.stdout:flush()
    return 0
  end
  err = failure(err)
  require("cgwb.progress").quiet(true) -- closes a progress line left open before the message
  io.stderr:write("cgwb ", name, ": ", shown(err.msg), "\n")
  if err.trace and os.getenv("CGWB_DEBUG") then io.stderr:write(err.trace, "\n") end
  return err.code
end

--- Runs the command line `args` (an arg table); returns the exit status.
function M.main(args)
  local list = {}
  for i = 1, #args do list[i] = args[i] end
  if list[1] == "--version" then
    print(version_text())
    return 0
  end
  local only = list[1] == "help" and list[2] or list[1]
  local parser, subs = build_parser(commands[only] and only or nil)
  if list[1] == "help" then
    local topic = list[2]
    if topic == nil then io.write(parser:get_help(), "\n") return 0 end
    if not subs[topic] then return usage_error(parser, subs, {}, ("unknown command '%s'"):format(topic)) end
    io.write(subs[topic]:get_help(), "\n")
    return 0
  end
  -- cgwb run SCRIPT ARGS...: everything after the script is the script's
  if list[1] == "run" and list[2] and not list[2]:match("^%-") then
    return dispatch("run", { script = list[2], args = { table.unpack(list, 3) } })
  end
  if (list[1] == "jacobian" or list[1] == "eliminate") then
    for _, w in ipairs(list) do
      if w == "--list-orderings" then io.write(orderings_text()) return 0 end
    end
  end
  local ok, a = parser:pparse(join_negatives(list))
  if not ok then return usage_error(parser, subs, list, a) end
  return dispatch(a.command, a)
end

return M
