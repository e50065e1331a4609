-- flatten_front.lua KERNEL.c FUNCTION REPS: the flattening in one process
-- (run with `scripts/cgwb run`), best of REPS of each stage.  Prints
--   flatten ACTIVE SUBGRAPHS VERTICES PARSE LOAD ANALYSE FLATTEN
-- ACTIVE: active assignments in the function's blocks; SUBGRAPHS, VERTICES:
-- the minimal split's subgraphs and their vertices in all; seconds for
-- kparse.parse, core.kernel_load, core.kernel_analyze (alias sets, chains,
-- activity) and core.kernel_flatten (which runs those analyses again, then
-- Algorithms 1 and 2 and builds the result tables); TABLE: what `--json`
-- adds, tangent.costs of the result, flatten.describe and json.encode (-
-- when this build has no cgwb.tangent or cgwb.flatten).  A full garbage
-- collection before each stage, outside its time, charges each stage with
-- its own work (the fresh process of bench-flatten.sh pays them all).
local kparse, core = require "cgwb.kparse", cgwb.core
local path, fname, reps = arg[1], arg[2], tonumber(arg[3] or "3")
local fh = assert(io.open(path, "rb"))
local text = fh:read("a")
fh:close()
local best = {math.huge, math.huge, math.huge, math.huge, math.huge}
local has_table, flatten = pcall(require, "cgwb.flatten")
local tangent
if has_table then has_table, tangent = pcall(require, "cgwb.tangent") end
local json = require "cgwb.json"
local active, nsub, nvert
for _ = 1, reps do
  collectgarbage()
  local t0 = os.clock()
  local flat = assert(kparse.parse(text, path))
  local t1 = os.clock()
  local k = assert(core.kernel_load(flat))
  local t2 = os.clock()
  flat = nil -- as `cgwb flatten` does: the arrays are in the core now
  collectgarbage()
  local ta = os.clock()
  local an = assert(core.kernel_analyze(k, fname, {}))
  local t3 = os.clock()
  an = nil
  collectgarbage()
  local tf = os.clock()
  local res = assert(core.kernel_flatten(k, fname))
  local t4 = os.clock()
  active, nsub, nvert = 0, 0, 0
  for _, b in ipairs(res.blocks) do
    active = active + #b.lines
    for _, g in ipairs(b.subgraphs) do nsub, nvert = nsub + 1, nvert + #g.vertices end
  end
  local tt = 0
  if has_table then
    collectgarbage()
    local t5 = os.clock()
    local text = json.encode(flatten.describe(res, tangent.costs(res)))
    tt = os.clock() - t5
    assert(#text > 0)
  end
  for i, t in ipairs({t1 - t0, t2 - t1, t3 - ta, t4 - tf, tt}) do best[i] = math.min(best[i], t) end
  res = nil
  k:free()
  collectgarbage()
end
print(("flatten %d %d %d %.6f %.6f %.6f %.6f %s"):format(active, nsub, nvert, best[1], best[2], best[3], best[4],
  has_table and ("%.6f"):format(best[5]) or "-"))
