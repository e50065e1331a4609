-- cgwb.elim.search: the searches over vertex elimination orders: simulated
-- annealing (anneal), the cheapest of the built-in rules (best) and the
-- exact search (exact, the core's branch and bound from their incumbent),
-- with the helpers the edge-level search shares (the seeded generator, the
-- integer options' check, the memory limit's error).  Internal to
-- cgwb.elim (lua/cgwb/elim/init.lua documents what it exports).
local progress = require "cgwb.progress"
local orderings = require "cgwb.elim.orderings"
local scale = require "cgwb.elim.scale"

local M = {}

-- A small seeded generator (xorshift64*) for anneal.
local function rng(seed)
  local s = (seed * 2654435761 + 88172645463325252) & 0x7fffffffffffffff
  if s == 0 then s = 1 end
  return function(lo, hi)
    s = s ~ (s << 13)
    s = s ~ (s >> 7)
    s = s ~ (s << 17)
    return lo + ((s >> 11) & 0x1fffffffffffff) % (hi - lo + 1)
  end
end

-- Is err the memory limit's (CGWB_MEMORY_LIMIT) error?  The core raises
-- those; a driver trying several orders skips the ones that do not fit.
local function over_limit(err)
  return type(err) == "string" and err:find("(CGWB_MEMORY_LIMIT)", 1, true) ~= nil
end
-- elim.over_limit (documented in cgwb.elim, lua/cgwb/elim/init.lua).
M.over_limit = over_limit

-- Cost of replaying `order` on a copy of lg (math.huge past the memory limit).
local function replay_cost(lg, order)
  local c <close> = lg:copy()
  local ok, cost = pcall(c.replay, c, order, "anneal")
  if ok then return cost.mults end
  if over_limit(cost) then return math.huge end
  error(cost, 0)
end

-- Simulated annealing over elimination orders (seeded, budgeted): starts
-- from the Markowitz order; a move swaps two positions.
-- opts.budget: evaluations, an integer from 0 to M.MAX_BUDGET (default 200);
-- opts.seed: an integer from 0 to 2^53 (default 1).
M.MAX_BUDGET, M.MAX_SEED = 10000000, 2 ^ 53
local function check_int(v, what, hi)
  if v ~= nil and (math.type(v) ~= "integer" and not (type(v) == "number" and v == math.floor(v))
      or v < 0 or v > hi) then
    error(("%s must be an integer from 0 to %.0f, got %s"):format(what, hi, tostring(v)), 3)
  end
  return v and math.tointeger(v)
end

-- elim.anneal (documented in cgwb.elim, lua/cgwb/elim/init.lua).
function M.anneal(lg, opts)
  opts = opts or {}
  local budget = check_int(opts.budget, "anneal: budget", M.MAX_BUDGET) or 200
  local rand = rng(check_int(opts.seed, "anneal: seed", M.MAX_SEED) or 1)
  local c0 <close> = lg:copy()
  local _, order = c0:eliminate({ "markowitz" })
  local cur = replay_cost(lg, order)
  local best, best_order = cur, { table.unpack(order) }
  local temp = math.max(1, cur * 0.02)
  if #order < 2 then return best_order, best end
  local r = progress.start("annealing", budget)
  for k = 1, budget do
    r:update(k - 1)
    local i, j = rand(1, #order), rand(1, #order)
    order[i], order[j] = order[j], order[i]
    local c = replay_cost(lg, order)
    if c <= cur or math.exp((cur - c) / temp) > rand(0, 1000000) / 1e6 then
      cur = c
      if c < best then best, best_order = c, { table.unpack(order) } end
    else
      order[i], order[j] = order[j], order[i]
    end
    temp = temp * 0.97
  end
  r:finish(budget)
  return best_order, best
end

-- elim.best (documented in cgwb.elim, lua/cgwb/elim/init.lua).
function M.best(lg, opts)
  opts = opts or {}
  local best, best_order, best_name
  local names = { "reverse" } -- first: ties go toward reverse mode, as the core's final tie-break
  for _, name in ipairs(orderings.ordering_names("vertex", true, true)) do
    if name ~= "reverse" then names[#names + 1] = name end
  end
  -- forward's and reverse's costs are known before they run (lg:scale_counts):
  -- each runs only if it is the cheapest, so best on a gradient does not pay
  -- forward's fill to learn it loses.
  local sc = lg:scale_counts(scale.LIMITS.reach_work)
  local known = not sc.partial and { forward = sc.forward_mults, reverse = sc.reverse_mults } or {}
  local last_err
  local r = progress.start("trying orderings", #names + 1)
  local function try(name) -- mults, order; nil past the memory limit
    local c <close> = lg:copy()
    local ok, cost, order = pcall(c.eliminate, c, { name })
    if not ok and not over_limit(cost) then error(cost, 0) end
    if not ok then last_err = cost return nil end -- past the memory limit: not a candidate
    return cost.mults, order
  end
  local cands = {}
  for i, name in ipairs(names) do
    r:update(i - 1)
    -- over elim.LIMITS: not a candidate
    if scale.check_scale(lg, name, "vertex", { budget = opts.budget, counts = sc }) then
      if known[name] then cands[#cands + 1] = { name = name, mults = known[name] }
      else
        local m, o = try(name)
        if m then cands[#cands + 1] = { name = name, mults = m, order = o } end
      end
    end
  end
  while not best do -- the first of the cheapest; a deferred one runs now
    local pick
    for _, cd in ipairs(cands) do
      if not cd.dropped and (not pick or cd.mults < pick.mults) then pick = cd end
    end
    if not pick then break end
    if not pick.order then pick.mults, pick.order = try(pick.name) end
    if pick.order then best, best_order, best_name = pick.mults, pick.order, pick.name
    else pick.dropped = true end
  end
  if not best then r:finish(); error(last_err, 0) end
  r:update(#names)
  local c <close> = lg:copy()
  local ok, mults, order = pcall(c.exact, c, opts.max_component or 16)
  r:finish(#names + 1)
  if not ok and not over_limit(mults) then error(mults, 0) end
  if not ok then mults = nil end -- past the memory limit: not a candidate
  if mults and mults < best then best, best_order, best_name = mults, order, "exact" end
  return best_order, best, best_name
end

-- {==== the exact search ====}

M.DEFAULT_TIME_LIMIT = 60

-- elim.exact (documented in cgwb.elim, lua/cgwb/elim/init.lua).
function M.exact(lg, opts)
  opts = opts or {}
  local limit = opts.time_limit or M.DEFAULT_TIME_LIMIT
  if type(limit) ~= "number" or not (limit > 0) or limit == math.huge then
    return nil, ("exact: time_limit must be a number of seconds > 0, got %s"):format(tostring(limit))
  end
  local incumbent = opts.incumbent
  if incumbent == nil then
    local border, bmults = M.best(lg, opts)
    local aorder, amults = M.anneal(lg, opts)
    incumbent = amults < bmults and aorder or border
  end
  return lg:search { time_limit = limit, incumbent = incumbent, bound = opts.bound, branch = opts.branch,
                     progress = opts.progress, max_nodes = opts.max_nodes, builtin = opts.builtin }
end

-- }====

-- for the edge-level search (cgwb.elim.edgesearch)
M.rng, M.check_int = rng, check_int

return M
