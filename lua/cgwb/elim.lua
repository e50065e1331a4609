--- Jacobian accumulation by elimination (seed 004 section 1): orderings by
-- name or as Lua code, and the drivers the command line uses.
--
-- An ordering ("spec") is one of:
--   * a built-in name: forward, reverse, markowitz, relative-markowitz,
--     min-fill, lmmd, momr, random, exact, anneal, best; a comma-separated
--     chain ("markowitz,forward") breaks ties by the later rules, and the
--     last resort is the highest vertex id (toward reverse mode, as ANGEL);
--   * a Lua function score(v, lg) -> number (lower is eliminated first),
--     kept in the core's priority queue and re-asked only for the vertices
--     whose neighbourhood an elimination changed;
--   * a table { rule, rule, ..., radius = 1, lowest_first = false } of names
--     and score functions (a filter chain: each breaks the ties of the last);
--   * a table { choose = function(lg, candidates) -> v } called at each step
--     with the remaining intermediates (full control, O(V) per step);
--   * a table { replay = {v1, v2, ...} }: a recorded order.
local core = require "cgwb.core"

local M = {}

M.builtin = { "forward", "reverse", "markowitz", "relative-markowitz", "min-fill", "lmmd",
              "momr", "random" }
local builtin_set = {}
for _, n in ipairs(M.builtin) do builtin_set[n] = true end

--- The spec as the core takes it, or nil and a message.
function M.core_spec(spec)
  if type(spec) == "string" then
    local rules = {}
    for name in spec:gmatch("[^,%s]+") do
      if not builtin_set[name] then return nil, ("unknown ordering '%s'"):format(name) end
      rules[#rules + 1] = name
    end
    if #rules == 0 then return nil, "empty ordering" end
    return rules
  end
  return spec
end

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

-- Cost of replaying `order` on a copy of lg.
local function replay_cost(lg, order)
  local c <close> = lg:copy()
  return c:replay(order).mults
end

--- Simulated annealing over elimination orders (seeded, budgeted): starts
-- from the Markowitz order; a move swaps two positions.
function M.anneal(lg, opts)
  opts = opts or {}
  local budget, rand = opts.budget or 200, rng(opts.seed or 1)
  local c0 <close> = lg:copy()
  local _, order = c0:eliminate({ "markowitz" })
  local cur = replay_cost(lg, order)
  local best, best_order = cur, { table.unpack(order) }
  local temp = math.max(1, cur * 0.02)
  if #order < 2 then return best_order, best end
  for _ = 1, budget do
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
  return best_order, best
end

--- The cheapest of the built-in orderings (and exact, where it can be
-- proven); ties go to the earlier name.  Returns order, mults, name.
function M.best(lg, opts)
  opts = opts or {}
  local best, best_order, best_name
  local names = { "reverse", "forward", "markowitz", "relative-markowitz", "min-fill", "lmmd", "momr" }
  for _, name in ipairs(names) do
    local c <close> = lg:copy()
    local cost, order = c:eliminate({ name })
    if not best or cost.mults < best then best, best_order, best_name = cost.mults, order, name end
  end
  local c <close> = lg:copy()
  local mults, order = c:exact(opts.max_component or 16)
  if mults and mults < best then best, best_order, best_name = mults, order, "exact" end
  return best_order, best, best_name
end

-- Runs a { choose = f } spec: f(lg, candidates) -> vertex, each step.
local function run_choose(lg, f)
  local order, total = {}, { mults = 0, mults_nontrivial = 0, adds = 0, fill = 0, steps = 0, peak_edges = 0 }
  while true do
    local cand = lg:intermediates()
    if #cand == 0 then break end
    local v = f(lg, cand)
    if math.type(v) ~= "integer" or lg:kind(v) ~= "intermediate" then
      error(("choose returned %s, not a remaining intermediate"):format(tostring(v)), 0)
    end
    local c = lg:elim_vertex(v)
    for k, x in pairs(c) do
      if k == "peak_edges" then total[k] = math.max(total[k], x) else total[k] = total[k] + x end
    end
    order[#order + 1] = v
  end
  return total, order
end

--- Eliminates every intermediate of lg (in place) under spec.
-- Returns cost, order, the ordering's name; or nil and a message.
function M.eliminate(lg, spec, opts)
  opts = opts or {}
  if spec == "exact" or spec == "anneal" or spec == "best" then
    local order, name
    if spec == "exact" then
      local mults, o = lg:exact(opts.max_component or 20)
      if not mults then return nil, o end
      order = o
    elseif spec == "anneal" then
      order = M.anneal(lg, opts)
    else
      order, _, name = M.best(lg, opts)
    end
    return lg:replay(order), order, name and (spec .. ":" .. name) or spec
  end
  if type(spec) == "table" and spec.replay then return lg:replay(spec.replay), spec.replay, "replay" end
  if type(spec) == "table" and spec.choose then
    local cost, order = run_choose(lg, spec.choose)
    return cost, order, spec.name or "lua"
  end
  local cs, err = M.core_spec(spec)
  if not cs then return nil, err end
  local cost, order = lg:eliminate(cs)
  if not cost then return nil, order end
  return cost, order, type(spec) == "string" and spec or (type(spec) == "table" and spec.name) or "lua"
end

--- Loads an ordering from a Lua file: it returns a spec (see above).
function M.load_order(path)
  local chunk, err = loadfile(path)
  if not chunk then return nil, err end
  local ok, spec = pcall(chunk)
  if not ok then return nil, tostring(spec) end
  if spec == nil then return nil, path .. ": the ordering file returns nothing" end
  return spec
end

--- Resolves a --order argument: a built-in name (or chain) or a .lua file.
function M.resolve(arg)
  if arg == nil then return "markowitz" end
  if arg:match("%.lua$") then return M.load_order(arg) end
  if arg == "exact" or arg == "anneal" or arg == "best" then return arg end
  local ok, err = M.core_spec(arg)
  if not ok then return nil, err end
  return arg
end

--- Linearized graph of a tape (path or cgwb.Tape) at its point or `at`.
function M.linearize(tape, opts)
  local cgwb = require "cgwb"
  local g, err = cgwb.build_graph(tape, opts)
  if not g then return nil, err end
  local lg, err2 = core.linearize(g)
  g:free()
  return lg, err2
end

return M
