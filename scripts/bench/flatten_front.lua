-- flatten_front.lua KERNEL.c FUNCTION REPS: the flattening in one process
-- (run with `scripts/cgwb run`), best of REPS of each stage.  Prints
--   flatten ACTIVE SUBGRAPHS VERTICES PARSE LOAD ANALYSE FLATTEN
-- ACTIVE: active assignments in the function's blocks; SUBGRAPHS, VERTICES:
-- the minimal split's subgraphs and their vertices in all; seconds for
-- kparse.parse, core.kernel_load, core.kernel_analyze (alias sets, chains,
-- activity) and core.kernel_flatten (which runs those analyses again, then
-- Algorithms 1 and 2 and builds the result tables).  A full garbage
-- collection before each stage, outside its time, charges each stage with
-- its own work (the fresh process of bench-flatten.sh pays them all).
local kparse, core = require "cgwb.kparse", cgwb.core
local path, fname, reps = arg[1], arg[2], tonumber(arg[3] or "3")
local fh = assert(io.open(path, "rb"))
local text = fh:read("a")
fh:close()
local best = {math.huge, math.huge, math.huge, math.huge}
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
  for i, t in ipairs({t1 - t0, t2 - t1, t3 - ta, t4 - tf}) do best[i] = math.min(best[i], t) end
  res = nil
  k:free()
  collectgarbage()
end
print(("flatten %d %d %d %.6f %.6f %.6f %.6f"):format(active, nsub, nvert, table.unpack(best)))
