--- cgwb: a research workbench for automatic differentiation.
-- `local cgwb = require "cgwb"` gives the whole Lua face; the C core is
-- `cgwb.core`.  Expected failures return `nil, message`; programmer errors
-- raise.  Submodules load on first use.
-- @module cgwb
local core = require "cgwb.core"

local M = {
  core = core,
  version = core.version,
  read_tape = core.read_tape,   -- (path) -> cgwb.Tape | nil, msg
  read_text = core.read_text,   -- (string [, name]) -> cgwb.Tape | nil, msg
  new_tape = core.tape_new,     -- () -> empty cgwb.Tape
  tape_stats = core.stats,      -- (path) -> table | nil, msg (streams)
  opcodes = core.opcodes,       -- () -> array of opcode descriptions
  progress = require "cgwb.progress", -- progress lines on stderr (start, quiet, enabled)
}

--- cgwb.progress.start(what [, total]) -> a reporter r (r:update(done), r:finish());
-- the module cgwb.progress, also reachable as cgwb.progress.
-- @function progress.start

--- cgwb.progress.run(what, total, f): runs f(r) between start and finish.
-- @function progress.run

--- cgwb.progress.quiet([flag]): silences progress for this state
-- (the command line's `--quiet` sets it).
-- @function progress.quiet

--- cgwb.progress.enabled() -> shown, drawn: whether progress shows, and redraws in place.
-- @function progress.enabled

--- Reads a tape file: (path) -> cgwb.Tape | nil, msg.  A classic, text or ADOL-C tape
-- (any one file of a set), detected from the content (core.read_tape; doc/formats.md).
-- @function read_tape

--- A tape from the text of a text tape: (text [, name]) -> cgwb.Tape | nil, msg
-- (core.read_text; name appears in messages).
-- @function read_text

--- An empty tape to push records into: () -> cgwb.Tape (core.tape_new).
-- @function new_tape

--- The statistics of a tape file, streamed: (path) -> table | nil, msg (core.stats;
-- Table 1 of Bischof & Hu 1991, cgwb.report.table1 lays it out).
-- @function tape_stats

--- The opcode table, in code order: () -> {{code=, name=, nloc=, nval=, nout=, adolc=,
-- inplace=, foreign=}...} (core.opcodes).
-- @function opcodes

-- build_graph is cgwb.elim's (lua/cgwb/elim/graphs.lua), where elim.linearize calls it
-- without the facade; the part loads at the first call.

--- Builds the computational graph of a tape (a cgwb.Tape or a path).
-- opts: assign_removal, hoist, dead_roots, recover_hoists, guards,
-- death_unlink (booleans, all on by default), at (the point).
-- Returns a cgwb.Graph, or nil and a message.
function M.build_graph(tape, opts)
  return require("cgwb.elim.graphs").build_graph(tape, opts)
end

--- A graph made directly through the graph-building interface (doc/graph.md,
-- "Building graphs"): ([opts]) -> cgwb.GraphBuilder, whose verbs (independent,
-- constant, op, assign, guard, value, dependent, unlink, origin) act on the
-- caller's locations (integers >= 0) and whose finish() gives a cgwb.Graph.
-- opts: the switches of build_graph, values (default true), name.
-- @function graph_builder
M.graph_builder = core.graph_builder
--- The graph operations b:op takes: {{name=, arity=, constant=}...}.
-- @function graph_ops
M.graph_ops = core.graph_ops

--- Levels of graph g for a scheme: a built-in name ("height", "depth",
-- "asap", "alap"), a function level(id, g) -> integer, or an array; checked
-- (every child strictly below its parents).  Returns an array of levels.
-- @function levels
M.levels = core.levels
--- A schedule (Bischof & Hu 1991, sec. 3.1): levels plus storage slots from the
-- double-stack live analysis.  (g [, scheme [, {inline_leaves=, sequential=}]])
-- @function schedule
M.schedule = core.schedule
--- The built-in level schemes: {"height", "depth", "asap", "alap"} (core.level_schemes).
-- @function level_schemes
M.level_schemes = core.level_schemes

--- C code for graph g (Bischof & Hu 1991, sec. 3.2); see cgwb.sched.codegen.
function M.codegen(g, opts)
  return require("cgwb.sched").codegen(g, opts)
end

--- The linearized graph of a tape (path or cgwb.Tape) at its point, or at
-- opts.at (Hovland, Norris, Utke & Strout, sec. 1).  Returns a cgwb.LinGraph or nil, message.
function M.linearize(tape, opts)
  return require("cgwb.elim").linearize(tape, opts)
end

--- A kept Jacobian plan of a tape (path or cgwb.Tape): the Jacobian, J*v and
-- w^T*J at many points without a rebuild; see cgwb.jplan.
function M.jacobian_plan(tape, opts)
  return require("cgwb.jplan").new(tape, opts)
end

--- A linearized graph from the text of a .cg graph file: (text [, name]) -> cgwb.LinGraph | nil, msg
-- (core.read_cg; doc/elimination.md).
-- @function read_cg
M.read_cg = core.read_cg -- (text [, name]) -> cgwb.LinGraph | nil, msg

--- The names of the built-in orderings of a mode ("vertex", "edge" or
-- "face"; default "vertex"), from the one registry (cgwb.elim.orderings,
-- which also says what each eliminates first).
function M.orderings(mode)
  return require("cgwb.elim").ordering_names(mode)
end

-- io.open's "path: why" in the wording of every other input: "path: cannot open: why".
local function cannot_open(path, err)
  return ("%s: cannot open: %s"):format(path, (tostring(err)):gsub("^" .. path:gsub("%p", "%%%0") .. ": ", ""))
end

--- Reads a graph file (.cg, or EliAD where supported) into a cgwb.LinGraph.
function M.read_graph(path)
  local fh, err = io.open(path, "rb")
  if not fh then return nil, cannot_open(path, err) end
  local text = fh:read("a")
  fh:close()
  local elim = require "cgwb.elim"
  if elim.read_graph_text then return elim.read_graph_text(text, path) end
  return core.read_cg(text, path)
end

--- Reads a kernel file of the C subset (doc/kernel-language.md), or its text:
-- (path_or_text [, name [, opts]]) -> cgwb.Kernel | nil, "file:line:col: message".
-- A string with no newline, brace or semicolon names a file; any other is
-- the kernel's text (doc/kernels.md).  opts: the preprocessor's flags
-- (doc/kernels.md, "The preprocessor") and functions: names of functions
-- that, with all they call, must be in the subset; functions that are not
-- are left alone (k:left_alone()).
function M.read_kernel(src, name, opts)
  return require("cgwb.kernel").read(src, name, opts)
end

--- Records a tape by running f on active numbers (see doc/tracer.md).
function M.trace(f, x0, opts)
  return require("cgwb.trace").record(f, x0, opts)
end

--- Reads a point: a file with one number per line ('#' comments allowed).
-- Returns an array of numbers, or nil and "file:line: message".
function M.read_point(path)
  local fh, err = io.open(path, "r")
  if not fh then return nil, cannot_open(path, err) end
  local x, n = {}, 0
  for line in fh:lines() do
    n = n + 1
    -- the commonest line is a number alone: tonumber skips the spaces around
    -- it as the trim below does, and the trim's pattern costs more than the rest
    local v = tonumber(line)
    if not v then
      local s = line:gsub("#.*", ""):match("^%s*(.-)%s*$")
      if s ~= "" then
        v = tonumber(s)
        if not v then
          fh:close()
          return nil, ("%s:%d: not a number: %s"):format(path, n, s)
        end
      end
    end
    if v then x[#x + 1] = v end
  end
  fh:close()
  return x
end

return M
