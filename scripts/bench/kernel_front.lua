-- kernel_front.lua KERNEL.c REPS: the front end and the analyses in one
-- process (run with `scripts/cgwb run`): best of REPS of each stage.  Prints
--   front IR_STATEMENTS FUNCTIONS PARSE LOAD ANALYSE
-- (IR_STATEMENTS: the canonical form's statements; seconds for
-- kparse.parse, core.kernel_load, and core.kernel_analyze of every function).
local kparse, core = require "cgwb.kparse", cgwb.core
local path, reps = arg[1], tonumber(arg[2] or "3")
local fh = assert(io.open(path, "rb"))
local text = fh:read("a")
fh:close()
local tp, tl, ta = math.huge, math.huge, math.huge
local nstmt, nfunc
local L = core.kernel_layout()
for _ = 1, reps do
  local t0 = os.clock()
  local flat = assert(kparse.parse(text, path))
  local t1 = os.clock()
  local k = assert(core.kernel_load(flat))
  local t2 = os.clock()
  nfunc = #flat.func // L.width.func
  for f = 1, nfunc do assert(core.kernel_analyze(k, f, {})) end
  local t3 = os.clock()
  nstmt = #flat.stmt // L.width.stmt
  tp, tl, ta = math.min(tp, t1 - t0), math.min(tl, t2 - t1), math.min(ta, t3 - t2)
  k:free()
  collectgarbage()
end
print(("front %d %d %.6f %.6f %.6f"):format(nstmt, nfunc, tp, tl, ta))
