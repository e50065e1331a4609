-- compare-jac.lua A.mtx B.mtx: compares two Matrix Market Jacobians entry by
-- entry, a missing entry reading as 0.  Equal to rounding: |a - b| <=
-- 1e-12 * max(|a|, |b|) + 1e-15 (ADOL-C leaves some exact zeros as 1e-17,
-- doc/adolc-format.md section 11).  Prints one line;
-- exit 0 when equal.
local function read(path)
  local f = assert(io.open(path))
  local head = f:read("l")
  assert(head:match("^%%%%MatrixMarket"), path .. ": not Matrix Market")
  local m, n, nnz = f:read("n", "n", "n")
  local t = {}
  for _ = 1, nnz do
    local i, j, v = f:read("n", "n", "n")
    t[i * (n + 1) + j] = (t[i * (n + 1) + j] or 0) + v
  end
  f:close()
  return t, m, n, nnz
end

local a, ma, na, za = read(arg[1])
local b, mb, nb, zb = read(arg[2])
if ma ~= mb or na ~= nb then
  print(("shape differs: %dx%d vs %dx%d"):format(ma, na, mb, nb))
  os.exit(1)
end
local worst, where, bad = 0, nil, 0
local function check(k)
  local x, y = a[k] or 0, b[k] or 0
  local err = math.abs(x - y)
  local tol = 1e-12 * math.max(math.abs(x), math.abs(y)) + 1e-15
  if err > tol then bad = bad + 1 end
  if err > worst then worst, where = err, k end
end
for k in pairs(a) do check(k) end
for k in pairs(b) do if a[k] == nil then check(k) end end
local msg = ("%dx%d, %d and %d entries, max abs diff %.3g"):format(ma, na, za, zb, worst)
if bad > 0 then
  print(("%s; %d entries differ (worst at row %d col %d)"):format(msg, bad, where // (na + 1), where % (na + 1)))
  os.exit(1)
end
print(msg)
