--- Jacobian accumulation by elimination (Hovland, Norris, Utke & Strout, sec. 1): orderings by
-- name or as Lua code, and the drivers the command line uses.
--
-- An ordering ("spec") is one of:
--   * a built-in name (M.orderings: the core's registry of rules, then the
--     drivers anneal, exact, best); a comma-separated chain
--     ("markowitz,forward") breaks ties by the later rules, and the last
--     resort is the highest vertex id (toward reverse mode, as ANGEL);
--   * a Lua function score(v, lg) -> number (lower is eliminated first),
--     kept in the core's priority queue and re-asked only for the vertices
--     whose neighbourhood an elimination changed;
--   * a table { rule, rule, ..., radius = 1, lowest_first = false } of names
--     and score functions (a filter chain: each breaks the ties of the last);
--   * a table { choose = function(lg, candidates) -> v } called at each step
--     with the remaining intermediates (full control, O(V) per step);
--   * a table { replay = {v1, v2, ...} }: a recorded order.
-- @module cgwb.elim

-- The package lua/cgwb/elim/ does these jobs in one file each, each file
-- requiring only the ones above it in this list:
--   scale.lua       what a run will cost (LIMITS, estimate), refused up front
--   orderings.lua   the registry of orderings, the names of a mode, the specs
--                   as the core takes them, --order resolved
--   search.lua      anneal, best and exact over vertex orders
--   vertex.lua      the vertex-mode driver, eliminate
--   translate.lua   vertex and edge orders as edge and face steps
--   edgesearch.lua  the searches over edge step sequences
--   modes.lua       the edge and face drivers (elim.modes)
--   strategies.lua  the ways to accumulate the Jacobian (elim.strategies)
--   graphs.lua      a tape's linearized graph, a graph file's text
--   replay.lua      a vertex order replayed in Lua, and its C code
-- This file is the module's interface: what they export, documented here.
local scale = require "cgwb.elim.scale"
local orderings = require "cgwb.elim.orderings"
local search = require "cgwb.elim.search"
local vertex = require "cgwb.elim.vertex"
local translate = require "cgwb.elim.translate"
local modes = require "cgwb.elim.modes"
local strategies = require "cgwb.elim.strategies"
local graphs = require "cgwb.elim.graphs"
local replay = require "cgwb.elim.replay"

local M = {}

-- {==== orderings ====}

--- The registry of built-in orderings, the one list the command line, its
-- help and `cgwb.orderings` read: name, the modes that have it (V vertex, E
-- edge, F face), whether a Lua driver runs it (else the core's rule of that
-- name), and what it eliminates first.  The core's rules come from its
-- registry (core.orderings(), csrc/elim/cg_order.c), in its order; the Lua
-- drivers follow.
-- @table orderings
M.orderings = orderings.orderings

--- The names of the built-in orderings of a mode ("vertex" by default), in
-- registry order; with core_only, only the core's rules (no drivers); with
-- fixed, only rules that need no seed (the deterministic ones best tries).
function M.ordering_names(mode, core_only, fixed) return orderings.ordering_names(mode, core_only, fixed) end

-- The core's vertex rules' names (elim.ordering_names("vertex", true)).
M.builtin = orderings.builtin

--- The spec as the core takes it, or nil and a message.
function M.core_spec(spec) return orderings.core_spec(spec) end

-- }====

-- {==== scale: what a run will cost, refused up front when too much ====}

--- The thresholds above which a run is refused before it starts (elim.check_scale):
-- raise one from Lua (`elim.LIMITS.mults = 1e9`) or with `--limit NAME=N`.
-- Each is a count of work or memory, never a time; the figures are from the
-- audit in doc/elimination.md, "What each ordering costs" (scripts/audit-scale.sh).
-- @table LIMITS
-- @field mults vertex forward and reverse: their multiplications (Shallow's forward, 5.3e7: 3 to 14 s)
-- @field x_mults edge and face forward and reverse (Shallow's forward, 5.3e7: over 100 s)
-- @field random_mults random, any mode: the worse of forward's and reverse's (Shallow: past 3 GiB in 55 s)
-- @field lua_steps edge and face anneal and exact: --budget x edges steps, each a Lua call (Bratu: 24 s)
-- @field replay_work vertex anneal, exact: --budget x (edges + sqrt(forward x reverse mults)) (Shallow: 59 s)
-- @field reach_work relative-markowitz's reach counts: (vertices + edges) x (n + m) / 64 word operations
-- @field hub_work edge min-fill, Lua edge and face rules: edges x the largest component (Shallow: over 60 s)
-- @field sweeps_work strategies reverse and forward: sweeps x edges
M.LIMITS = scale.LIMITS

--- The cheap counts of lg (lg:scale_counts, capped at LIMITS.reach_work)
-- and what `spec` in `mode` would cost by them: a table with the counts and
-- the estimate's fields mults, fill_edges and mults_limit (the limit's
-- name), lua_steps, per_replay, replay_work, reach_work, hub_work (hub_lua:
-- a Lua rule), sweeps, sweeps_work (absent: nothing to say).  opts: budget (for
-- anneal, exact), strategy ("reverse", "forward": sweeps instead), counts
-- (lg:scale_counts(LIMITS.reach_work) of lg as it is, when already known).
function M.estimate(lg, spec, mode, opts) return scale.estimate(lg, spec, mode, opts) end

--- Can `spec` run in `mode` on lg within M.LIMITS?  true, the estimate; or
-- nil, "<why: the estimate>; bound it with <option>", the estimate.
-- Costs lg:scale_counts (O(edges x (n + m) / 64) at most LIMITS.reach_work)
-- and nothing when the spec is a Lua rule or a built-in rule bounded by
-- itself (markowitz, min-fill, lmmd, momr; best skips the candidates that
-- do not fit).
function M.check_scale(lg, spec, mode, opts) return scale.check_scale(lg, spec, mode, opts) end

-- }====

-- {==== the searches over vertex orders ====}

--- Whether an error is the memory limit's: (err) -> boolean (CGWB_MEMORY_LIMIT; a driver
-- trying several orders skips the ones that do not fit).
-- @function over_limit
M.over_limit = search.over_limit

-- anneal's options: opts.budget, evaluations, an integer from 0 to
-- M.MAX_BUDGET (default 200); opts.seed, an integer from 0 to 2^53 (default 1).
M.MAX_BUDGET, M.MAX_SEED = search.MAX_BUDGET, search.MAX_SEED

--- Simulated annealing over vertex elimination orders: (lg, opts) -> cost, {order};
-- starts from the Markowitz order, seeded (opts.seed) and budgeted (opts.budget
-- evaluations, default 200; see above).
function M.anneal(lg, opts) return search.anneal(lg, opts) end

--- The cheapest of the built-in orderings (and exact, where it can be
-- proven); ties go to the earlier name.  Returns order, mults, name.
function M.best(lg, opts) return search.best(lg, opts) end

M.DEFAULT_TIME_LIMIT = search.DEFAULT_TIME_LIMIT

--- The optimal vertex order by branch and bound over elimination states
-- (csrc/elim/cg_search.c), per component of intermediates; lg is not changed.
-- opts: time_limit (seconds for the search, > 0, default 60), incumbent (a
-- vertex order to start from; default: the cheaper of M.best's and
-- M.anneal's), bound (function(view) -> a lower bound of what is left to
-- pay), builtin (the built-in bound used without one: "paths", "flow" or
-- "pairs", the default and strongest), branch (function(view, candidates) ->
-- the candidates reordered), progress (a line on stderr), max_nodes, seed and
-- budget (for anneal).
-- Returns { mults, lower_bound, proven, order, nodes, seconds, root_bound,
-- components = { {size, mults, lower_bound, root_bound, nodes, proven}, ... } }
-- or nil, message.
function M.exact(lg, opts) return search.exact(lg, opts) end

-- }====

-- {==== drivers ====}

--- Eliminates every intermediate of lg (in place) under spec.
-- Returns cost, order, the ordering's name; or nil and a message.
function M.eliminate(lg, spec, opts) return vertex.eliminate(lg, spec, opts) end

--- Loads an ordering from a Lua file: it returns a spec (see above).  The
-- file is a plug-in (cgwb.util.plugin: an environment of its own, `cgwb`
-- preloaded, run once); `nil, message` when it cannot be loaded or returns nothing.
function M.load_order(path) return orderings.load_order(path) end

--- Resolves a --order argument: a built-in name (or chain) or a .lua file.
-- mode: "vertex" (default), "edge" or "face"; names are checked for it.
function M.resolve(arg, mode) return orderings.resolve(arg, mode) end

--- Linearized graph of a tape (path or cgwb.Tape) at its point or `at`.
-- Returns lg, the number of branch records and conditionals whose outcome at
-- `at` differs from taping, and the first of them (a 1-based record, nil when
-- none): lg is the recorded branch's graph, so its derivatives are f's at
-- `at` only when the count is 0.  Or nil, message.
function M.linearize(tape, opts) return graphs.linearize(tape, opts) end

-- }====

-- {==== edge and face modes ====}

-- The core's edge and face rules' names (x_spec tells the modes apart by these very tables).
M.edge_builtin, M.face_builtin = orderings.edge_builtin, orderings.face_builtin

--- The spec of an edge or face ordering as the core takes it: a chain of
-- names ("markowitz,forward"), where the words `front` or `back` restrict
-- edge elimination to one side and `lowest` breaks the final ties toward
-- the lowest ids; functions and tables pass through.
function M.x_spec(spec, names, opts) return orderings.x_spec(spec, names, opts) end

-- }====

-- {==== translations: vertex and edge orders as edge and face steps ====}

--- The edge steps of a vertex order (Hovland, Norris, Utke & Strout, sec. 1):
-- eliminating v is back-eliminating each of its out-edges (v, k) in turn,
-- |in(v)| multiplications each, the same products w(i, v) * w(v, k) added
-- into the same edges (i, k), the last one removing v.  Returns
-- {{v, k, "back"}, ...} (1-based), which replay to the order's
-- multiplications and Jacobian; or nil and a message (lg is unchanged).
function M.vertex_to_edges(lg, order) return translate.vertex_to_edges(lg, order) end

--- The face steps of edge steps (Naumann 2004): front-eliminating (i, j) is
-- eliminating the faces (i, j) -> (j, k) for every out-edge (j, k), back-
-- eliminating (j, k) the faces (i, j) -> (j, k) for every in-edge (i, j); the
-- intermediates edge steps leave are finished as replay does (by vertex, in
-- id order: all faces through them).  While the steps are these, the line
-- graph stays the line graph of the edge-eliminated graph (one vertex per
-- label, so every rank is the first), each product is absorbed exactly
-- where the edge step adds into an existing edge, and the count is the
-- same.  Returns {{i, j, k}, ...} or nil and a message.
function M.edges_to_faces(lg, steps) return translate.edges_to_faces(lg, steps) end

--- The face steps of a vertex order: vertex_to_edges, then edges_to_faces.
function M.vertex_to_faces(lg, order) return translate.vertex_to_faces(lg, order) end

-- }====

-- {==== edge and face drivers ====}

-- the most intermediates edge mode's exact runs its branch and bound on
M.X_EXACT_MAX = modes.X_EXACT_MAX
M.modes = modes.modes

--- The edge-elimination driver: (lg, spec) -> cost, steps; spec as lg:eliminate_edges takes
-- it, plus the drivers anneal and exact.
-- @function modes.edge

--- The face-elimination driver: (lg, spec) -> cost, steps; spec as lg:eliminate_faces takes
-- it, plus the drivers anneal and exact.
-- @function modes.face

-- }====

-- {==== strategies ====}

-- How the Jacobian is accumulated on the linearized graph: the rows
-- {name, about, run(lg, a) -> J, info} (lua/cgwb/elim/strategies.lua).
M.strategies = strategies.strategies

--- The row of the strategy named, or nil and a message listing them.
function M.strategy(name) return strategies.strategy(name) end

--- The strategies' names, in registry order.
function M.strategy_names() return strategies.strategy_names() end

-- }====

-- {==== formats ====}

--- A graph from the text of a .cg or EliAD file (EliAD has a "CG = [" line).
function M.read_graph_text(text, path) return graphs.read_graph_text(text, path) end

-- }====

-- {==== independent replay and preaccumulation code ====}

--- Replays a vertex order on a Lua copy of lg's structure (not through the
-- core): returns the multiplications (sum of |in| * |out| at elimination)
-- and, when emit is given, calls emit(kind, dst, a, b) for each product:
-- kind "new" (dst = a * b) or "add" (dst += a * b); edges are keys i..":"..k.
function M.simulate(lg, order, emit) return replay.simulate(lg, order, emit) end

--- C code of the multiply-add sequence that a vertex order performs
-- (Hovland, Norris, Utke & Strout, sec. 1: each elimination generates code): a function
--   void NAME(const double *w, double *J)
-- where w holds the local partials of lg's edges in the order of `inputs`
-- (by head, then tail: {i, k} pairs, 1-based vertices) and J receives the
-- Jacobian's entries in the order of `outputs` ({row, col}, 1-based, sorted
-- by row then column, as lg:jacobian()).  Returns code, inputs, outputs.
function M.preaccumulation_code(lg, order, opts) return replay.preaccumulation_code(lg, order, opts) end

-- }====

return M
