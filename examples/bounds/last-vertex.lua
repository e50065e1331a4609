-- A bound a researcher might try first: every remaining intermediate that
-- lies on a path from an independent to a dependent costs at least one
-- multiplication (it keeps a predecessor and a successor), and the one
-- eliminated last costs exactly |X(v)| * |Y(v)|: the independents that
-- reach it times the dependents it reaches, as nothing else is left then.
-- Sound, weaker than the built-in one.  Use: elim.exact(lg, { bound = dofile(this) }).
return function(view)
  local ints, rem = view:intermediates(), {}
  for _, v in ipairs(ints) do rem[v] = true end
  local function outside(v, adj, seen, n) -- counts the non-intermediates connected to v
    for _, p in ipairs(adj(view, v)) do
      if not seen[p] then
        seen[p] = true
        n = rem[p] and outside(p, adj, seen, n) or n + 1
      end
    end
    return n
  end
  local ones, excess = 0, 0
  for i, v in ipairs(ints) do
    local xy = outside(v, view.preds, {}, 0) * outside(v, view.succs, {}, 0)
    local one = xy > 0 and 1 or 0
    ones = ones + one
    if i == 1 or xy - one < excess then excess = xy - one end
  end
  return ones + excess
end
