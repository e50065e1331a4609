-- cgwb.elim.edgesearch: searches over edge elimination step sequences, as
-- edge mode's anneal and exact run them: the decoding of a sequence into a
-- valid elimination, simulated annealing over sequences, and the branch and
-- bound over edge elimination states with its lower bound.  Internal to
-- cgwb.elim (cgwb.elim.modes drives them).
local progress = require "cgwb.progress"
local search = require "cgwb.elim.search"

local rng, check_int, over_limit = search.rng, search.check_int, search.over_limit

local M = {}

-- Replays edge steps on a copy of lg, skipping the ones that are not
-- possible then (the edge is gone, or its middle vertex is no intermediate
-- any more), and finishes the intermediates left by back-eliminating their
-- out-edges (vertex elimination, in id order).  Returns the multiplications
-- (math.huge past the memory limit) and the steps done.
local function edge_decode(lg, steps)
  local c <close> = lg:copy()
  local done, mults = {}, 0
  local function step(i, k, side)
    local ok, cost = pcall(c.elim_edge, c, i, k, side, "anneal")
    if not ok then
      if over_limit(cost) then return false end
      error(cost, 0)
    end
    mults = mults + cost.mults
    done[#done + 1] = { i, k, side }
    return true
  end
  for _, st in ipairs(steps) do
    local i, k, side = st[1], st[2], st[3]
    if c:kind(side == "front" and k or i) == "intermediate" and c:weight(i, k) then
      if not step(i, k, side) then return math.huge, done end
    end
  end
  for _, v in ipairs(c:intermediates()) do
    for _, k in ipairs(c:succs(v)) do
      if not step(v, k, "back") then return math.huge, done end
    end
  end
  return mults, done
end

-- Simulated annealing over edge step sequences (seeded, budgeted), from
-- `steps` (a complete sequence costing `mults`).  A move swaps two steps,
-- moves one step elsewhere or switches a step's side (front <-> back: the
-- other end becomes the middle); the sequence is then decoded (edge_decode:
-- impossible steps skipped, the rest finished), so every state is a valid
-- elimination.  Returns the best steps and their multiplications.
local function edge_anneal(lg, steps, mults, opts)
  local budget = check_int(opts.budget, "anneal: budget", search.MAX_BUDGET) or 200
  local rand = rng(check_int(opts.seed, "anneal: seed", search.MAX_SEED) or 1)
  local cur, cur_steps = mults, steps
  local best, best_steps = mults, steps
  local temp = math.max(1, cur * 0.02)
  if #steps < 1 then return best_steps, best end
  local r = progress.start("annealing edges", budget)
  for k = 1, budget do
    r:update(k - 1)
    local s, n = {}, #cur_steps
    for q = 1, n do s[q] = cur_steps[q] end
    local move, p = rand(1, 3), rand(1, n)
    if move == 1 then
      local q = rand(1, n)
      s[p], s[q] = s[q], s[p]
    elseif move == 2 then
      local st = table.remove(s, p)
      table.insert(s, rand(1, n), st)
    else
      local st = s[p]
      s[p] = { st[1], st[2], st[3] == "front" and "back" or "front" }
    end
    local c, done = edge_decode(lg, s)
    if c <= cur or math.exp((cur - c) / temp) > rand(0, 1000000) / 1e6 then
      cur, cur_steps = c, done
      if c < best then best, best_steps = c, done end
    end
    temp = temp * 0.97
  end
  r:finish(budget)
  return best_steps, best
end

-- The edges of c as a string (the state of an edge elimination: its future
-- costs depend on nothing else).
local function edge_state(c)
  local parts = {}
  for v = 1, c:nv() do
    local s = c:succs(v)
    if #s > 0 then parts[#parts + 1] = v .. ">" .. table.concat(s, ",") end
  end
  return table.concat(parts, ";")
end

-- Are all intermediates of c alive with in- and out-edges (the invariant
-- the lower bound below needs)?
local function live_intermediates(c)
  local n = 0
  for _, v in ipairs(c:intermediates()) do
    if c:in_degree(v) == 0 or c:out_degree(v) == 0 then return nil end
    n = n + 1
  end
  return n
end

-- Branch and bound over edge elimination states (depth first, cheapest
-- step first, states memoised with the cheapest cost they were reached at),
-- from an incumbent.  The lower bound of a state is its cost plus the
-- number of intermediates left.  Proof: when every intermediate has in- and
-- out-edges, the steps keep it so (a front step removing j's last in-edge
-- removes j, a back step removing its last out-edge too).  Then an in-edge
-- (i, j) of an intermediate j leaves only by a front step with middle j, or
-- by a back step with middle i that adds (h, j) for every in-edge (h, i) of
-- i, of which there is one: so in(j) never empties, and j never goes,
-- without a step whose middle is j (likewise out(j)).  Steps with different
-- middles are different steps, and each costs |out(j)| or |in(j)| >= 1.
-- (Edge elimination can beat vertex elimination, so the vertex optimum is
-- no bound here.)  A graph whose intermediates lack in- or out-edges gets
-- the bound 0 beyond the cost.  Returns steps, mults, lower_bound, nodes;
-- the search is complete (lower_bound = mults) unless the deadline stopped it.
local function edge_bnb(lg, steps, mults, deadline)
  local best, best_steps = mults, steps
  local seen, path, nodes, complete = {}, {}, 0, true
  local bounded = live_intermediates(lg) ~= nil
  local function rec(c, cost)
    nodes = nodes + 1
    if os.clock() > deadline then complete = false return end
    local inter = c:intermediates()
    local left = bounded and #inter or 0
    if #inter == 0 then
      if cost < best then best, best_steps = cost, { table.unpack(path) } end
      return
    end
    if cost + left >= best then return end
    local key = edge_state(c)
    if seen[key] and seen[key] <= cost then return end
    seen[key] = cost
    local kids = {}
    for _, j in ipairs(inter) do
      local ins, outs = c:preds(j), c:succs(j)
      for _, i in ipairs(ins) do kids[#kids + 1] = { i, j, "front", #outs } end
      for _, k in ipairs(outs) do kids[#kids + 1] = { j, k, "back", #ins } end
    end
    if #kids == 0 then -- intermediates without in- or out-edges only: free to finish
      if cost < best then best, best_steps = cost, { table.unpack(path) } end
      return
    end
    table.sort(kids, function(a, b)
      if a[4] ~= b[4] then return a[4] < b[4] end
      if a[1] ~= b[1] then return a[1] < b[1] end
      if a[2] ~= b[2] then return a[2] < b[2] end
      return a[3] < b[3]
    end)
    for _, kid in ipairs(kids) do
      if cost + kid[4] + math.max(left - 1, 0) >= best or not complete then break end
      local d <close> = c:copy()
      local r = d:elim_edge(kid[1], kid[2], kid[3], "exact")
      path[#path + 1] = { kid[1], kid[2], kid[3] }
      rec(d, cost + r.mults)
      path[#path] = nil
    end
  end
  local root <close> = lg:copy()
  rec(root, 0)
  if complete then return best_steps, best, best, nodes end
  return best_steps, best, math.min(bounded and live_intermediates(lg) or 0, best), nodes
end

-- for edge mode's drivers (cgwb.elim.modes)
M.edge_anneal, M.edge_bnb, M.live_intermediates = edge_anneal, edge_bnb, live_intermediates

return M
