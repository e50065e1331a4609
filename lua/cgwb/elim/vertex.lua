-- cgwb.elim.vertex: the driver of vertex elimination, eliminate: a spec
-- (a name or chain, a Lua rule, a choose function, a recorded order, or a
-- Lua driver: anneal, exact, best) checked against the limits and run.
-- Internal to cgwb.elim (lua/cgwb/elim/init.lua documents what it exports).
local orderings = require "cgwb.elim.orderings"
local scale = require "cgwb.elim.scale"
local search = require "cgwb.elim.search"

local refusal = scale.refusal

local M = {}

-- Runs a { choose = f } spec: f(lg, candidates) -> vertex, each step.
local function run_choose(lg, f, name)
  local order, total = {}, { mults = 0, mults_nontrivial = 0, adds = 0, fill = 0, steps = 0, peak_edges = 0 }
  while true do
    local cand = lg:intermediates()
    if #cand == 0 then break end
    local v = f(lg, cand)
    if math.type(v) ~= "integer" or v < 1 or v > lg:nv() or lg:kind(v) ~= "intermediate" then
      error(("choose returned %s, not a remaining intermediate"):format(tostring(v)), 0)
    end
    local c = lg:elim_vertex(v, name)
    for k, x in pairs(c) do
      if k == "peak_edges" then total[k] = math.max(total[k], x) else total[k] = total[k] + x end
    end
    order[#order + 1] = v
  end
  return total, order
end

-- elim.eliminate (documented in cgwb.elim, lua/cgwb/elim/init.lua).
function M.eliminate(lg, spec, opts)
  opts = opts or {}
  local fits, why = scale.check_scale(lg, spec, "vertex", opts)
  if not fits then return nil, refusal(spec, "vertex", why) end
  if spec == "exact" or spec == "anneal" or spec == "best" then
    local order, name, _ -- `_` too: an undeclared one is a global write
    if spec == "exact" then
      local res, err = search.exact(lg, opts)
      if not res then return nil, err end
      return lg:replay(res.order, "exact"), res.order, "exact", res
    elseif spec == "anneal" then
      order = search.anneal(lg, opts)
    else
      order, _, name = search.best(lg, opts)
    end
    name = name and (spec .. ":" .. name) or spec
    return lg:replay(order, name), order, name
  end
  if type(spec) == "table" and spec.replay then return lg:replay(spec.replay), spec.replay, "replay" end
  if type(spec) == "table" and spec.choose then
    local cost, order = run_choose(lg, spec.choose, spec.name or "lua")
    return cost, order, spec.name or "lua"
  end
  local cs, err = orderings.core_spec(spec)
  if not cs then return nil, err end
  if type(spec) == "string" then cs.seed = opts.seed end -- for the rows that need one (random)
  local cost, order = lg:eliminate(cs)
  if not cost then return nil, order end
  return cost, order, type(spec) == "string" and spec or (type(spec) == "table" and spec.name) or "lua"
end

return M
