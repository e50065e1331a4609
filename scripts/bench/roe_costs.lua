-- roe_costs.lua MIN.json STMT.json: the costs `cgwb flatten --json` reports
-- with --emit tangent (doc/tangent-code.md) for the minimal and the
-- statement-level split of the Roe flux, as one sentence of
-- doc/benchmarks.md (scripts/bench-flatten.sh).  The report counts one call
-- of the tangent code (one input direction): the eliminations run in every
-- call, the local Jacobians are applied once.
local json = require "cgwb.json"
local function load(path)
  local f = assert(io.open(path, "rb"))
  local t = assert(json.decode(f:read("a")))
  f:close()
  return t
end
local function subgraphs(t) -- the subgraphs and their elimination's multiplications
  local n, mults = 0, 0
  for _, b in ipairs(t.blocks) do
    for _, g in ipairs(b.subgraphs) do n, mults = n + 1, mults + (g.mults or 0) end
  end
  return n, mults
end
local m, s = load(arg[1]), load(arg[2])
local mn, mm = subgraphs(m)
local sn, sm = subgraphs(s)
local c = assert(m.cost, "no cost in " .. arg[1])
local function n_of(n, what) return ("%d %s%s"):format(n, what, n == 1 and "" or "s") end
print(("minimal split: %s, %d multiplications in the eliminations (with the products " ..
  "by +1 or -1); statement-level split: %s, %d. For one call of the tangent code (one " ..
  "direction): preaccumulation %d multiplications (elimination %d, application %d), statement-level " ..
  "preaccumulation %d, plain tangent mode %d"):format(
  n_of(mn, "subgraph"), mm, n_of(sn, "subgraph"), sm, c.preaccumulation.total, c.preaccumulation.elimination, c.preaccumulation.application,
  c.statement_level.total, c.tangent))
