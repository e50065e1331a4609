-- The built-in "paths" bound of the exact search, in Lua (csrc/elim/cg_search.c
-- explains why it is a lower bound): each remaining v pays at least
-- paths_in(v) * paths_out(v), the numbers of vertex-disjoint paths from the
-- independents to v and from v to the dependents, found greedily; the vertex
-- eliminated last pays exactly |X(v)| * |Y(v)|, the independents reaching it
-- times the dependents it reaches.  Use: elim.exact(lg, { bound = dofile(this) }).
return function(view)
  local rem, total, excess = {}, 0, math.huge
  local ints = view:intermediates()
  for _, v in ipairs(ints) do rem[v] = true end
  local function paths(v, adj) -- greedy packing, marks kept (as the C code)
    local mark, n = { [v] = true }, 0
    local function free(u)
      for _, p in ipairs(adj(view, u)) do
        if not mark[p] then
          mark[p] = true
          if not rem[p] or free(p) then return true end
        end
      end
      return false
    end
    for _, p in ipairs(adj(view, v)) do
      if not mark[p] then
        mark[p] = true
        if not rem[p] or free(p) then n = n + 1 end
      end
    end
    return n
  end
  local function outside(v, adj, memo) -- the non-intermediates connected to v
    if memo[v] then return memo[v] end
    local set = {}
    for _, p in ipairs(adj(view, v)) do
      if rem[p] then for q in pairs(outside(p, adj, memo)) do set[q] = true end else set[p] = true end
    end
    memo[v] = set
    return set
  end
  local function size(set) local n = 0 for _ in pairs(set) do n = n + 1 end return n end
  local xs, ys = {}, {}
  for _, v in ipairs(ints) do
    local term = paths(v, view.preds) * paths(v, view.succs)
    total = total + term
    excess = math.min(excess, size(outside(v, view.preds, xs)) * size(outside(v, view.succs, ys)) - term)
  end
  return excess == math.huge and total or total + excess
end
