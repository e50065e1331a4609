-- spec/52-realc-adolc_spec.lua: gradients of a real-C objective against
-- ADOL-C's.  spec/support/realc/baenergy.c (a bundle-adjustment energy with
-- an angle-axis rotation, #defined sizes and a robust log term) is written
-- once over REAL: cgwb reads it as C (REAL double); ADOL-C records the same
-- text compiled as C++ with REAL adouble (spec/adolc/kernel-gradient.cpp)
-- and gives gradient().  On generated problems, cgwb's compiled adjoint
-- code (cgwb adjoint) and the interpreter's Jacobian agree with ADOL-C's
-- gradient to 1e-13 relative, and the compiled primal energy is ADOL-C's,
-- bit for bit.
local H = require "spec.helper"
local cgwb = require "cgwb"
local rng = require "rng"
local A = require "addriver"

local FILE = "spec/support/realc/baenergy.c"
local NCAM, NPT = 9, 3

local function close(a, b, tol)
  return a == b or math.abs(a - b) <= tol * math.max(1, math.abs(a), math.abs(b))
end

--- A problem: ncams cameras, npts points, nobs observations of (camera, point).
local function problem(r, ncams, npts, nobs)
  local P = { ncams = ncams, npts = npts, nobs = nobs, obs = {}, feats = {}, cams = {}, X = {} }
  for i = 0, nobs - 1 do
    P.obs[2 * i + 1], P.obs[2 * i + 2] = i % ncams, (i * 7 + i // ncams) % npts
    P.feats[2 * i + 1], P.feats[2 * i + 2] = r:float(-0.3, 0.3), r:float(-0.3, 0.3)
  end
  for c = 0, ncams - 1 do
    local v = { r:float(-0.4, 0.4), r:float(-0.4, 0.4), r:float(-0.4, 0.4), -- rotation
                r:float(-0.2, 0.2), r:float(-0.2, 0.2), r:float(-6, -4),     -- centre, behind the points
                r:float(0.8, 1.2), r:float(-0.05, 0.05), r:float(-0.01, 0.01) }
    if c == 0 then v[1], v[2], v[3] = 1e-9, -1e-9, 0 end -- the first-order branch
    for j = 1, NCAM do P.cams[#P.cams + 1] = v[j] end
  end
  for _ = 1, NPT * npts do P.X[#P.X + 1] = r:float(-1, 1) end
  return P
end

--- ADOL-C's energy and gradient (cams, then X) of problem P.
local function adolc_gradient(P)
  local dir = H.tmp("-adolc")
  os.execute("mkdir -p " .. dir)
  local exe = dir .. "/kernel-gradient"
  assert(os.execute(("g++ -std=c++11 -O1 -Wall -Werror -Ispec/support/realc -o %s spec/adolc/kernel-gradient.cpp -ladolc")
    :format(exe)))
  local function line(t, fmt)
    local s = {}
    for i, v in ipairs(t) do s[i] = (fmt):format(v) end
    return table.concat(s, " ")
  end
  H.write(dir .. "/in", table.concat({ ("%d %d %d"):format(P.nobs, P.ncams, P.npts), line(P.obs, "%d"),
    line(P.feats, "%.17g"), line(P.cams, "%.17g"), line(P.X, "%.17g") }, "\n") .. "\n")
  local p = assert(io.popen(("cd %s && ./kernel-gradient <in"):format(dir)))
  local out = {}
  for l in p:lines() do out[#out + 1] = tonumber(l) end
  assert(p:close(), "kernel-gradient failed")
  os.execute("rm -rf " .. dir)
  return table.remove(out, 1), out
end

local function call_of(P)
  return { arrays = { { name = "cams", type = "double", values = P.cams }, { name = "X", type = "double", values = P.X },
                      { name = "obs", type = "int", values = P.obs }, { name = "feats", type = "double", values = P.feats } },
           args = { { int = P.nobs }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 },
                    { array = 4, offset = 0 } } }
end

describe("a real-C objective against ADOL-C (the same text as C and as adouble C++)", function()
  local text = H.read(FILE)
  local k = assert(cgwb.read_kernel(FILE, nil, { functions = { "ba_energy" } }))
  local src = assert(require("cgwb.adjoint").emit(k, "ba_energy", { independents = { "cams", "X" } }))
  local exe = A.compile_adjoint(src, "ba_energy", text)

  for n, size in ipairs { { 1, 1, 1 }, { 2, 4, 6 }, { 3, 5, 12 } } do
    it(("%d cameras, %d points, %d observations: the adjoint code's and the interpreter's gradients are ADOL-C's")
        :format(size[1], size[2], size[3]), function()
      local P = problem(rng.new(520 + n), size[1], size[2], size[3])
      local y, g = adolc_gradient(P)
      assert.equal(#P.cams + #P.X, #g)
      local call = call_of(P)
      -- the compiled adjoint code (ba_energy_b, seeded with the result's adjoint 1)
      local res = A.run(exe, call, { arrays = {}, ret = 1 })
      assert.is_true(H.same_bits(y, res.R), ("energy: ADOL-C %.17g, compiled %.17g"):format(y, res.R))
      local got = {}
      for _, v in ipairs(res.B[1]) do got[#got + 1] = v end
      for _, v in ipairs(res.B[2]) do got[#got + 1] = v end
      for j = 1, #g do
        assert(close(g[j], got[j], 1e-13), ("gradient %d: ADOL-C %.17g, cgwb adjoint %.17g"):format(j, g[j], got[j]))
      end
      -- the interpreter's Jacobian (its tangent mode): the row of the result
      local J = assert(k:jacobian("ba_energy", call))
      assert.equal(1, #J.rows)
      for j, c in ipairs(J.cols) do
        local at = c.array == 1 and c.cell + 1 or c.array == 2 and #P.cams + c.cell + 1 or nil
        if at then
          assert(close(g[at], J.values[1][j], 1e-13), ("column %d: ADOL-C %.17g, interpreter %.17g"):format(j, g[at],
            J.values[1][j]))
        end
      end
    end)
  end
end)
