-- cgwb.elim.modes: the drivers of edge and face elimination (elim.modes.edge,
-- elim.modes.face): a spec checked against the limits and run by the core,
-- a recorded sequence replayed, or the Lua drivers best, anneal and exact,
-- which start from the vertex mode's result translated and the mode's
-- cheapest rule, then search edge step sequences (cgwb.elim.edgesearch).
-- Loading it also marks anneal and exact as serving edge and face modes in
-- the registry (cgwb.elim.orderings).  Internal to cgwb.elim
-- (lua/cgwb/elim/init.lua documents what it exports).
local progress = require "cgwb.progress"
local orderings = require "cgwb.elim.orderings"
local scale = require "cgwb.elim.scale"
local search = require "cgwb.elim.search"
local translate = require "cgwb.elim.translate"
local edgesearch = require "cgwb.elim.edgesearch"

local over_limit, refusal = search.over_limit, scale.refusal
local edge_anneal, edge_bnb, live_intermediates = edgesearch.edge_anneal, edgesearch.edge_bnb,
  edgesearch.live_intermediates

local M = {}

-- Replays recorded edge steps {{i, j, "front"|"back"}, ...}, then finishes
-- with any intermediates left (vertex elimination, in id order).
local function replay_edges(lg, steps, name)
  local total = { mults = 0, mults_nontrivial = 0, adds = 0, fill = 0, steps = 0, peak_edges = 0 }
  local function add(c)
    for k, x in pairs(c) do
      if k == "peak_edges" then total[k] = math.max(total[k], x) else total[k] = total[k] + x end
    end
  end
  for _, st in ipairs(steps) do add(lg:elim_edge(st[1], st[2], st[3], name)) end
  for _, v in ipairs(lg:intermediates()) do add(lg:elim_vertex(v, name)) end
  return total
end

-- The cheapest of the built-in rules of a mode: order, cost, name.
local function x_best(lg, names, run, opts)
  local best, best_steps, best_name, last_err
  local fixed = {}
  for _, o in ipairs(orderings.orderings) do fixed[o.name] = not o.driver and not o.needs.seed end
  local r = progress.start("trying orderings", #names)
  for i, name in ipairs(names) do
    r:update(i - 1)
    if fixed[name] and scale.check_scale(lg, name, names == orderings.face_builtin and "face" or "edge", opts) then
      local c <close> = lg:copy()
      local ok, cost, steps = pcall(run, c, orderings.x_spec(name, names, opts))
      if not ok and not over_limit(cost) then error(cost, 0) end
      if not ok then last_err = cost -- past the memory limit: not a candidate
      elseif not best or cost.mults < best.mults then best, best_steps, best_name = cost, steps, name end
    end
  end
  r:finish(#names)
  if not best then error(last_err, 0) end
  return best_steps, best, best_name
end

-- {==== edge and face drivers ====}

M.X_EXACT_MAX = 20 -- intermediates, as the vertex mode's subset dynamic programming

-- The vertex mode's result for a driver spec ("best", "anneal", "exact"):
-- order, mults, the exact search's result (when it ran).  Exact without
-- the exact search (elim.exact) uses the subset dynamic programming where
-- every component is small enough, else the best heuristic.
local function vertex_result(lg, spec, opts)
  if spec == "best" then
    local o, m = search.best(lg, opts)
    return o, m
  elseif spec == "anneal" then
    local o, m = search.anneal(lg, opts)
    return o, m
  end
  if search.exact then
    local r = search.exact(lg, opts)
    return r.order, r.mults, r
  end
  local c <close> = lg:copy()
  local ok, m, o = pcall(c.exact, c, opts.max_component or M.X_EXACT_MAX)
  if ok and m then return o, m end
  if not ok and not over_limit(m) then error(m, 0) end
  local o2, m2 = search.best(lg, opts)
  return o2, m2
end

local function run_edges(g, s) return g:eliminate_edges(s) end
local function run_faces(g, s) return g:eliminate_faces(s) end

-- Edge mode's best, anneal or exact: steps, mults, name, extra.  The
-- candidates: the vertex mode's order for the same spec translated (so the
-- result never costs more), the edge rules' best; anneal and exact then
-- search edge step sequences from the cheaper, exact last runs the branch
-- and bound where the graph has at most opts.max_component (X_EXACT_MAX)
-- intermediates.
local function edge_result(lg, spec, opts)
  local t0 = os.clock() -- exact: one time limit for the vertex search and the edge one together
  local vorder, vmults, vres = vertex_result(lg, spec, opts)
  local steps, mults, name = assert(translate.vertex_to_edges(lg, vorder)), vmults, "vertex"
  local hsteps, hcost, hname = x_best(lg, orderings.edge_builtin, run_edges, opts)
  if hcost.mults < mults then steps, mults, name = hsteps, hcost.mults, hname end
  local extra = { vertex_mults = vmults }
  if spec ~= "best" then
    local s, m = edge_anneal(lg, steps, mults, opts)
    if m < mults then steps, mults, name = s, m, "search" end
  end
  if spec == "exact" then
    local limit = opts.time_limit or 60
    local small = lg:counts().intermediates <= (opts.max_component or M.X_EXACT_MAX)
    local lb, nodes = math.min(live_intermediates(lg) or 0, mults), 0
    if small then
      local s, m
      s, m, lb, nodes = edge_bnb(lg, steps, mults, t0 + limit)
      if m < mults then steps, mults, name = s, m, "branch-and-bound" end
    end
    extra.lower_bound, extra.proven, extra.nodes = lb, lb == mults, nodes
    if vres and vres.lower_bound then extra.vertex_lower_bound = vres.lower_bound end
  end
  extra.better = mults < vmults
  return steps, mults, name, extra
end

-- Face mode's best, anneal or exact: the edge mode's result for the same
-- spec translated (so neither the vertex nor the edge result is cheaper)
-- and the face rules' best.
local function face_result(lg, spec, opts)
  local esteps, emults, ename, eextra = edge_result(lg, spec, opts)
  local steps, mults, name = assert(translate.edges_to_faces(lg, esteps)), emults, "edge-" .. ename
  local hsteps, hcost, hname = x_best(lg, orderings.face_builtin, run_faces, opts)
  if hcost.mults < mults then steps, mults, name = hsteps, hcost.mults, hname end
  local extra = { vertex_mults = eextra.vertex_mults, edge_mults = emults, better = mults < eextra.vertex_mults }
  return steps, mults, name, extra
end

-- A driver for `cgwb ... --mode edge|face`: (lg, spec, opts) -> cost, steps, name [, extra].
local function x_driver(names, method, replay, result)
  local mode = method == "eliminate_edges" and "edge" or "face"
  return function(lg, spec, opts)
    opts = opts or {}
    local fits, why = scale.check_scale(lg, spec, mode, opts)
    if not fits then return nil, refusal(spec, mode, why) end
    local run = function(g, s) return g[method](g, s) end
    if spec == "best" or spec == "anneal" or spec == "exact" then
      local steps, _, name, extra = result(lg, spec, opts)
      name = spec .. ":" .. name
      return replay(lg, steps, name), steps, name, extra
    end
    if type(spec) == "table" and spec.replay then return replay(lg, spec.replay, "replay"), spec.replay, "replay" end
    if type(spec) == "table" and spec.choose then
      return nil, "this ordering is available for vertex elimination only"
    end
    local cs, err = orderings.x_spec(spec, names, opts)
    if not cs then return nil, err end
    local cost, steps = run(lg, cs)
    return cost, steps, type(spec) == "string" and spec or (type(spec) == "table" and spec.name) or "lua"
  end
end

-- The drivers anneal and exact serve edge and face modes too (edge_result).
for _, o in ipairs(orderings.orderings) do
  if o.name == "anneal" or o.name == "exact" then
    o.modes = "VEF"
    o.about = o.about .. (o.name == "anneal" and "; edge, face: over edge steps from the vertex result"
      or "; edge: branch and bound (20 intermediates), face: the edge result")
  end
end

M.modes = M.modes or {}
-- elim.modes.edge (documented in cgwb.elim, lua/cgwb/elim/init.lua).
M.modes.edge = x_driver(orderings.edge_builtin, "eliminate_edges", replay_edges, edge_result)
-- elim.modes.face (documented in cgwb.elim, lua/cgwb/elim/init.lua).
M.modes.face = x_driver(orderings.face_builtin, "eliminate_faces",
                        function(lg, steps, name) return lg:replay_faces(steps, name) end, face_result)

return M
