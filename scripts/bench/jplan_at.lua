-- jplan_at.lua TAPE POINTS OUT.mtx: a kept plan (cgwb.jacobian_plan) at
-- every point of POINTS (one a line), timed in CPU time (os.clock) after one
-- call outside the timing; plan:at reuses its J table.  Prints "interpretive
-- POINTS SECONDS_PER_POINT NNZ BUILD_SECONDS"; the last Jacobian to OUT.mtx.
local cgwb = require "cgwb"
local tape, path, out = ...
local pts = {}
for line in io.lines(path) do
  local x = {}
  for w in line:gmatch("%S+") do x[#x + 1] = tonumber(w) end
  if #x > 0 then pts[#pts + 1] = x end
end
local t0 = os.clock()
local plan = assert(cgwb.jacobian_plan(tape))
local build = os.clock() - t0
local J = assert(plan:at(pts[1]))
t0 = os.clock()
for _, x in ipairs(pts) do J = assert(plan:at(x, J)) end
local per = (os.clock() - t0) / #pts
local fh = assert(io.open(out, "w"))
fh:write(("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n"):format(J.m, J.n, J.nnz))
for k = 1, J.nnz do fh:write(("%d %d %.17g\n"):format(J.rows[k], J.cols[k], J.vals[k])) end
fh:close()
print(("interpretive %d %.9f %d %.6f"):format(#pts, per, J.nnz, build))
