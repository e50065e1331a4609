--[[
bratu.lua: the "Bratu" application of Bischof & Hu 1991 (section 4)
for the Lua tracer, a line-by-line port of examples/adolc/bratu.cpp (see its
header for the PDE, the grid and the starting point).

  cgwb trace examples/lua/bratu.lua -o bratu.tap

Options (script table `options`, overridable by the caller): nx = 40, ny = 80,
lambda = 2.  Independents: u on the grid, k = j*nx + i (0-based, i fastest);
dependents: the residuals F_k in the same order.  Like the C++ program the
code is imperative with named variables (T.var, ADOL-C's `adouble u, ...`),
so every `u = x[k]` and `f[k] = fk` is a visible assign_a.
]]

local BRATU_R = 1.0 -- chamber radius
local BRATU_L = 2.0 -- chamber section length

-- The standard starting point: lambda/(lambda+1) * sqrt(distance to the
-- nearest Dirichlet boundary).  Returns a 1-based array (index k + 1).
local function bratu_start(o)
  local nx, ny, lambda = o.nx, o.ny, o.lambda
  local hr, hz = BRATU_R / nx, BRATU_L / (ny + 1)
  local c = lambda / (lambda + 1.0)
  local x = {}
  for j = 0, ny - 1 do
    local dz = (j + 1 < ny - j and j + 1 or ny - j) * hz
    for i = 0, nx - 1 do
      local dr = (nx - i) * hr
      x[j * nx + i + 1] = c * math.sqrt(dr < dz and dr or dz)
    end
  end
  return x
end

-- Residual F(x) of the discretized problem; x[k + 1] holds u_k.
local function bratu_residual(x, T, o)
  local nx, ny, lambda = o.nx, o.ny, o.lambda
  local hr, hz = BRATU_R / nx, BRATU_L / (ny + 1)
  local hzdhr, hrdhz = hz / hr, hr / hz
  local c0 = 4.0 * hzdhr -- axis coefficient
  local hrhzlam = hr * hz * lambda
  local u, ul, ur, urr = T.var(), T.var(), T.var(), T.var()
  local t, uzz, e, fk = T.var(), T.var(), T.var(), T.var()
  local f = {}
  for k = 1, nx * ny do f[k] = T.var() end -- the C++ driver's `new adouble[m]`

  for j = 0, ny - 1 do
    for i = 0, nx - 1 do
      local k = j * nx + i + 1 -- 1-based index of u_k
      u:assign(x[k])
      if i < nx - 1 then ur:assign(x[k + 1]) else ur:assign(0.0) end
      if i == 0 then
        urr:assign(u - ur)
        urr:mul(c0)
      else
        local cp = (1.0 + 0.5 / i) * hzdhr
        local cm = (1.0 - 0.5 / i) * hzdhr
        ul:assign(x[k - 1])
        urr:assign(u - ur)
        urr:mul(cp)
        t:assign(u - ul)
        t:mul(cm)
        urr:add(t)
      end
      uzz:assign(2.0 * u)
      if j < ny - 1 then uzz:sub(x[k + nx]) end -- ut; zero on the end z = L
      if j > 0 then uzz:sub(x[k - nx]) end      -- ub; zero on the end z = 0
      uzz:mul(hrdhz)
      e:assign(T.exp(u))
      e:mul(hrhzlam)
      fk:assign(urr + uzz)
      fk:sub(e)
      f[k]:assign(fk)
    end
  end
  return f
end

return {
  name = "bratu",
  options = { nx = 40, ny = 80, lambda = 2.0 },
  x0 = bratu_start,
  f = bratu_residual,
}
