--[[
cavity.lua: the "Cavity" application of Bischof & Hu 1991 (
section 4) for the Lua tracer, a line-by-line port of
examples/adolc/cavity.cpp (MINPACK-2 dfdcfj: stream-function formulation of
the driven cavity; see the C++ header for the stencil and the starting point).

  cgwb trace examples/lua/cavity.lua -o cavity.tap

Options: nx = 31, ny = 31, reynolds = 100.  Independents: psi at
k = i*nx + j (0-based, j fastest); dependents: the residuals in that order.
]]

-- lap = (e - 2c + w)*ihx2 + (n - 2c + s)*ihy2, with the named temporaries t, s2.
local function cavity_lap(e, c, w, n, s, ihx2, ihy2, t, s2, lap)
  t:assign(2.0 * c)
  s2:assign(e - t)
  s2:add(w)
  s2:mul(ihx2)
  lap:assign(n - t)
  lap:add(s)
  lap:mul(ihy2)
  lap:add(s2)
end

-- Residual F(x) of MINPACK-2 dfdcfj; x[k + 1] holds psi_k.
local function cavity_residual(x, T, o)
  local nx, ny, r = o.nx, o.ny, o.reynolds
  local hx, hy = 1.0 / (nx + 1), 1.0 / (ny + 1)
  local ihx2, ihy2 = 1.0 / (hx * hx), 1.0 / (hy * hy)
  local i2hx, i2hy = 1.0 / (2.0 * hx), 1.0 / (2.0 * hy)
  local scale = hx * hx * hy * hy
  local pbb, pbl, pb, pbr, pll = T.var(), T.var(), T.var(), T.var(), T.var()
  local pl, p, pr, prr, ptl = T.var(), T.var(), T.var(), T.var(), T.var()
  local pt, ptr, ptt = T.var(), T.var(), T.var()
  local dpdy, dpdx, plap, pblap, pllap = T.var(), T.var(), T.var(), T.var(), T.var()
  local prlap, ptlap, t, s2, a, b, fk = T.var(), T.var(), T.var(), T.var(), T.var(), T.var(), T.var()
  local f = {}
  for k = 1, nx * ny do f[k] = T.var() end -- the C++ driver's `new adouble[m]`

  for i = 0, ny - 1 do
    for j = 0, nx - 1 do
      local k = i * nx + j + 1 -- 1-based index of psi_k
      if i == 0 or j == 0 then pbl:assign(0.0) else pbl:assign(x[k - nx - 1]) end
      if i == 0 then pb:assign(0.0); pbb:assign(x[k])
      elseif i == 1 then pb:assign(x[k - nx]); pbb:assign(0.0)
      else pb:assign(x[k - nx]); pbb:assign(x[k - 2 * nx]) end
      if i == 0 or j == nx - 1 then pbr:assign(0.0) else pbr:assign(x[k - nx + 1]) end
      if j == 0 then pl:assign(0.0); pll:assign(x[k])
      elseif j == 1 then pl:assign(x[k - 1]); pll:assign(0.0)
      else pl:assign(x[k - 1]); pll:assign(x[k - 2]) end
      p:assign(x[k])
      if j == nx - 2 then pr:assign(x[k + 1]); prr:assign(0.0)
      elseif j == nx - 1 then pr:assign(0.0); prr:assign(x[k])
      else pr:assign(x[k + 1]); prr:assign(x[k + 2]) end
      if i == ny - 1 or j == 0 then ptl:assign(0.0) else ptl:assign(x[k + nx - 1]) end
      if i == ny - 2 then pt:assign(x[k + nx]); ptt:assign(0.0)
      elseif i == ny - 1 then pt:assign(0.0); ptt:assign(x[k] + 2.0 * hy)
      else pt:assign(x[k + nx]); ptt:assign(x[k + 2 * nx]) end
      if i == ny - 1 or j == nx - 1 then ptr:assign(0.0) else ptr:assign(x[k + nx + 1]) end

      dpdy:assign(pt - pb)
      dpdy:mul(i2hy)
      dpdx:assign(pr - pl)
      dpdx:mul(i2hx)

      -- Laplacians at the five points of the stencil
      cavity_lap(pbr, pb, pbl, p, pbb, ihx2, ihy2, t, s2, pblap)
      cavity_lap(p, pl, pll, ptl, pbl, ihx2, ihy2, t, s2, pllap)
      cavity_lap(pr, p, pl, pt, pb, ihx2, ihy2, t, s2, plap)
      cavity_lap(prr, pr, p, ptr, pbr, ihx2, ihy2, t, s2, prlap)
      cavity_lap(ptr, pt, ptl, ptt, p, ihx2, ihy2, t, s2, ptlap)

      -- biharmonic part: Laplacian of the Laplacian
      cavity_lap(prlap, plap, pllap, ptlap, pblap, ihx2, ihy2, t, s2, fk)
      -- convective part
      a:assign(prlap - pllap)
      a:mul(dpdy)
      a:mul(i2hx)
      b:assign(ptlap - pblap)
      b:mul(dpdx)
      b:mul(i2hy)
      a:sub(b)
      a:mul(r)
      fk:sub(a)
      fk:mul(scale)
      f[k]:assign(fk)
    end
  end
  return f
end

-- The starting point 16 X^2 (1-X)^2 Y^2 (Y-1), 1-based.
local function cavity_start(o)
  local nx, ny = o.nx, o.ny
  local hx, hy = 1.0 / (nx + 1), 1.0 / (ny + 1)
  local x = {}
  for i = 0, ny - 1 do
    local yy = (i + 1) * hy
    for j = 0, nx - 1 do
      local xx = (j + 1) * hx
      x[i * nx + j + 1] = 16.0 * xx * xx * (1.0 - xx) * (1.0 - xx) * yy * yy * (yy - 1.0)
    end
  end
  return x
end

return {
  name = "cavity",
  options = { nx = 31, ny = 31, reynolds = 100.0 },
  x0 = cavity_start,
  f = cavity_residual,
}
