-- cgwb.elim.strategies: the registry of ways to accumulate the Jacobian on
-- the linearized graph (by elimination, by compressed sweeps) and its
-- look-ups.  Internal to cgwb.elim (lua/cgwb/elim/init.lua documents what
-- it exports).
local scale = require "cgwb.elim.scale"
local vertex = require "cgwb.elim.vertex"
local modes = require("cgwb.elim.modes").modes

local M = {}

-- How the Jacobian is accumulated on the linearized graph: by elimination
-- (the orderings of cgwb.elim) or by compressed sweeps over the same graph, the
-- standard alternative (Gebremedhin, Manne & Pothen 2005): the
-- sparsity pattern, a colouring of its columns or rows, one tangent or
-- adjoint sweep per colour, each entry read off its colour's sweep.  A row:
-- name, about (for --help), run(lg, a) -> J, info (or nil, message), with a
-- the options { order =, mode =, seed =, budget =, side =, colouring_order = }
-- and info { mults =, mults_nontrivial =, adds =, ... } in cg_cost's
-- accounting (the sweeps: one multiplication per edge and sweep).  A new
-- strategy is one row and one function here.

-- Compressed sweeps: J, info with colours and sweeps (lg unchanged).
local function sweeps(side, trivial)
  return function(lg, a)
    if trivial then
      local st = side == "row" and "reverse" or "forward"
      local fits, why = scale.check_scale(lg, nil, "vertex", { strategy = st })
      if not fits then return nil, ("strategy %s: %s"):format(st, why) end
    end
    return lg:jacobian_coloured { side = side or a.side or "column", trivial = trivial,
                                  order = not trivial and a.colouring_order or nil }
  end
end

-- Elimination under a.order and a.mode (lg is eliminated in place).
local function by_elimination(lg, a)
  local mode = a.mode or "vertex"
  local cost, order, name, extra
  if mode == "vertex" then
    cost, order, name, extra = vertex.eliminate(lg, a.order or "markowitz", a)
  elseif modes[mode] then
    cost, order, name, extra = modes[mode](lg, a.order or "markowitz", a)
  else
    return nil, ("unknown mode '%s'"):format(tostring(mode))
  end
  if not cost then return nil, order end
  local J, err = lg:jacobian()
  if not J then return nil, err end
  return J, { mults = cost.mults, mults_nontrivial = cost.mults_nontrivial, adds = cost.adds,
              fill = cost.fill, steps = cost.steps, peak_edges = cost.peak_edges,
              order = order, name = name, extra = extra, cost = cost }
end

M.strategies = {
  { name = "elimination", run = by_elimination,
    about = "vertex, edge or face elimination under --order and --mode (the default)" },
  { name = "colouring", run = sweeps(nil, false),
    about = "ColPack partial distance-2 colouring of the columns (--side column: one tangent sweep "
      .. "per colour) or rows (--side row: one adjoint sweep per colour), --colouring-order" },
  { name = "reverse", run = sweeps("row", true),
    about = "one adjoint sweep per dependent (for a gradient: one reverse sweep)" },
  { name = "forward", run = sweeps("column", true), about = "one tangent sweep per independent" },
}

-- elim.strategy (documented in cgwb.elim, lua/cgwb/elim/init.lua).
function M.strategy(name)
  for _, s in ipairs(M.strategies) do
    if s.name == name then return s end
  end
  return nil, ("unknown strategy '%s' (%s)"):format(tostring(name), table.concat(M.strategy_names(), ", "))
end

-- elim.strategy_names (documented in cgwb.elim, lua/cgwb/elim/init.lua).
function M.strategy_names()
  local names = {}
  for _, s in ipairs(M.strategies) do names[#names + 1] = s.name end
  return names
end

return M
