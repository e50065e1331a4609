--- spec/ktrace.lua: the soundness check of the kernel analyses against a
-- traced run of the interpreter (k:run(f, call, {trace = true})), shared by
-- spec/20-kanalysis_spec.lua and spec/51-rank3_spec.lua: (a) every
-- dynamic read's last writer is in its ud-chain (and the read in the
-- writer's du-chain); (b) accesses of one block instance that touched one
-- cell do not relate "no", and a "must" pair touched one cell.
local M = {}

--- Checks one traced run against the analysis; returns a list of violations.
function M.check_trace(res, trace)
  local bad = {}
  local acc_of = {}
  for i, a in ipairs(res.alias.accesses) do
    if a.expr then acc_of[a.expr .. (a.kind == "def" and "w" or "r")] = i end
  end
  local function has(list, x)
    for _, v in ipairs(list or {}) do if v == x then return true end end
    return false
  end
  local last = {}       -- cell -> writing statement (0: outside)
  local block, seen = nil, {}
  for _, t in ipairs(trace) do
    if t.frame == 0 and t.expr then
      local cell = t.object .. ":" .. t.cell
      local ai = acc_of[t.expr .. (t.write and "w" or "r")]
      if ai then
        if not t.write then -- (a) the last writer is in the ud-chain, the reader in its du-chain
          local w = last[cell] or 0
          if not has(res.chains.ud[ai], w) then
            bad[#bad + 1] = ("ud of access %d (%s, line %d) lacks %d"):format(ai, res.alias.accesses[ai].text, res.alias.accesses[ai].line, w)
          elseif w ~= 0 and not has(res.chains.du[w], t.stmt) then
            bad[#bad + 1] = ("du of %d lacks %d"):format(w, t.stmt)
          end
        end
        if t.block ~= block then block, seen = t.block, {} end -- (b) one block instance
        for _, o in ipairs(seen) do
          local r = res.alias.relation(res.alias.accesses[o.ai].set, res.alias.accesses[ai].set)
          if o.cell == cell and r == "no" then
            bad[#bad + 1] = ("accesses %d and %d touched one cell but relate no"):format(o.ai, ai)
          elseif o.cell ~= cell and r == "must" then
            bad[#bad + 1] = ("accesses %d and %d relate must but touched two cells"):format(o.ai, ai)
          end
        end
        seen[#seen + 1] = {ai = ai, cell = cell}
      end
    end
    if t.frame == 0 and t.write then last[t.object .. ":" .. t.cell] = t.stmt or 0 end
  end
  return bad
end

return M
