--- cgwb.cli.tapeargs: the arguments of the commands that read tapes and
-- build graphs: tapes, points, the graph switches, branch changes.
-- @module cgwb.cli.tapeargs
local C = require "cgwb.cli.common"
local fail, check, cgwb, readable = C.fail, C.check, C.cgwb, C.readable

local M = {}

--- Node ids and limits are 32-bit.
M.MAX_ID = 4294967295

-- Whether a file that failed to read as one kind reads as the other: the
-- hint for the wrong command (only on the failure path, so its cost is moot).

--- Whether path reads as a graph file (.cg or EliAD).
function M.is_graph_file(path) return cgwb().read_graph(path) ~= nil end

--- Whether path reads as a tape.
function M.is_tape(path) return cgwb().read_tape(path) ~= nil end

--- Reads a tape, or fails with a hint when the file is a graph file.
function M.read_tape(path)
  local tape, err = cgwb().read_tape(readable(path))
  if tape then return tape end
  if M.is_graph_file(path) then
    fail(2, ("%s is a graph file (.cg or EliAD), not a tape: use `cgwb eliminate %s`"):format(path, path))
  end
  fail(2, err)
end

--- Reads a point file that must hold n values: (path, n) -> values (bad input
-- otherwise; the file of --at X).
function M.read_point(path, n)
  local x = check(cgwb().read_point(readable(path)))
  if #x ~= n then fail(2, ("%s: %d values for %d independents"):format(path, #x, n)) end
  return x
end

--- The message for a point that leaves the recorded branch (exit 3):
-- (changes, record, op, what, ignoring) -> text; ignoring: --ignore-branches
-- was given (a warning, not a failure).
function M.branch_message(changes, record, op, what, ignoring)
  return ("%d branch or conditional outcome(s) differ from the recorded point, first at record %d%s: "
    .. "the tape is not valid there, %s%s")
    :format(changes, record, op and (" (" .. op .. ")") or "", what,
            ignoring and "" or " (--ignore-branches goes on anyway)")
end

--- Fails with status 3 when the graph was built at a point that leaves the
-- tape's branch, unless --ignore-branches; warns on stderr if it is given.
function M.check_branches(g, a, what)
  local changes, record, op = g:branch_changes()
  if changes == 0 then return end
  local msg = M.branch_message(changes, record, op, what, a.ignore_branches)
  if not a.ignore_branches then fail(3, msg) end
  io.stderr:write("cgwb ", a.command, ": warning: ", msg, "\n")
end

--- The graph builder's switches, shared by every command that builds a graph.
function M.graph_switches(p)
  p:flag("--no-assign-removal", "Keep assignments as copy nodes (Bischof & Hu 1991, sec. 2.2).")
  p:flag("--no-hoist", "Do not hoist unary chains into supernodes (sec. 2.3).")
  p:flag("--no-dead-roots", "Keep dead roots (sec. 2.4).")
  p:flag("--paper-hoists", "Give up hoists after dead-root removal, as Bischof & Hu did.")
  p:flag("--no-guards", "Drop branch records instead of keeping them as guards.")
  C.option(p, "--at", "The point: values of the independents, one per line.")
end

--- Reads the tape and builds its graph with the switches of `a`: -> graph, tape.
function M.build(a)
  local tape = M.read_tape(a.tape)
  local opts = {
    assign_removal = not a.no_assign_removal, hoist = not a.no_hoist,
    dead_roots = not a.no_dead_roots, recover_hoists = not a.paper_hoists,
    guards = not a.no_guards,
  }
  -- eval builds at the tape's own point when it has one, and evaluates at --at
  if a.at and not (a.eval_at and tape:x0()) then
    opts.at = M.read_point(a.at, tape:n())
  end
  local g = check(cgwb().build_graph(tape, opts))
  local w = g:warnings()
  if w ~= "" then io.stderr:write(w) end
  return g, tape
end

return M
