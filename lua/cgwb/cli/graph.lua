--- cgwb.cli.graph: `cgwb graph`, `cgwb eval` and `cgwb codegen`, the commands on a tape's graph.
-- @module cgwb.cli.graph
local C = require "cgwb.cli.common"
local T = require "cgwb.cli.tapeargs"
local fail, check, cgwb, readable, option, int_in, out_path = C.fail, C.check, C.cgwb, C.readable, C.option,
  C.int_in, C.out_path
local build, read_point, read_tape, graph_switches = T.build, T.read_point, T.read_tape, T.graph_switches
local MAX_ID = T.MAX_ID

local M = {}

--- The commands this module defines, by name: { example = "cgwb NAME ...", setup = function(p)
-- (its options), run = function(a) (the work) }; cgwb.cli.registry names them.
M.commands = {}
local commands = M.commands

-- Table 3: the graph written back as a tape against the original.
local function table3_counts(g, tape)
  local t2 = g:to_tape()
  local o_ops, o_bytes = tape:size()
  local n_ops, n_bytes = t2:size()
  t2:free()
  return { o_ops, o_bytes }, { n_ops, n_bytes }
end

commands.graph = {
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
      local msg = T.branch_message(n > 0 and n or changes, record or 0, op, "so are these values",
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

return M
