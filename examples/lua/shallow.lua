--[[
shallow.lua: the "Shallow" application of Bischof & Hu 1991 (
section 4) for the Lua tracer, a line-by-line port of
examples/adolc/shallow.cpp (see its header for Sadourny's scheme, the
periodic continuation, the synthetic measurements and the starting point).

  cgwb trace examples/lua/shallow.lua -o shallow.tap

Options: nx = 9 (M), ny = 9 (N), steps = 31.  Independents: the initial
(u, v, p), 3*M*N of them; one dependent: the misfit J after `steps` steps.
Arrays keep the C++ 0-based index A(i, j) = j*(M+1) + i, stored at A + 1.
]]

-- Model constants (SWM).
local function swm_const(m, n)
  local c = { m = m, n = n, dt = 90.0, dx = 1.0e5, dy = 1.0e5, a = 1.0e6, alpha = 0.001 }
  c.el = n * c.dx
  c.pi = 4.0 * math.atan(1.0) -- atan2(1, 1) = atan(1) = pi/4 exactly rounded
  c.di = 2.0 * c.pi / m
  c.dj = 2.0 * c.pi / n
  c.pcf = c.pi * c.pi * c.a * c.a / (c.el * c.el)
  return c
end

-- Synthetic measurement of p at (i, j) after step `step`.
local function swm_pobs(c, step, i, j)
  return 50000.0 + c.pcf * (math.cos(2.0 * i * c.di) + math.cos(2.0 * j * c.dj))
         + 10.0 * math.sin(i * c.di + 2.0 * j * c.dj + 0.1 * step)
end

-- Periodic continuation of the four staggered field types; a[idx + 1] holds
-- entry idx, so `a[p]:assign(a[q])` is the C++ `a[p-1] = a[q-1]`.
local function periodic_u(m, n, a)
  local w = m + 1
  for j = 0, n - 1 do a[j * w + 0 + 1]:assign(a[j * w + m + 1]) end
  for i = 0, m - 1 do a[n * w + i + 1 + 1]:assign(a[0 * w + i + 1 + 1]) end
  a[n * w + 0 + 1]:assign(a[0 * w + m + 1])
end

local function periodic_v(m, n, a)
  local w = m + 1
  for j = 0, n - 1 do a[(j + 1) * w + m + 1]:assign(a[(j + 1) * w + 0 + 1]) end
  for i = 0, m - 1 do a[0 * w + i + 1]:assign(a[n * w + i + 1]) end
  a[0 * w + m + 1]:assign(a[n * w + 0 + 1])
end

local function periodic_z(m, n, a)
  local w = m + 1
  for j = 0, n - 1 do a[(j + 1) * w + 0 + 1]:assign(a[(j + 1) * w + m + 1]) end
  for i = 0, m - 1 do a[0 * w + i + 1 + 1]:assign(a[n * w + i + 1 + 1]) end
  a[0 * w + 0 + 1]:assign(a[n * w + m + 1])
end

local function periodic_p(m, n, a)
  local w = m + 1
  for j = 0, n - 1 do a[j * w + m + 1]:assign(a[j * w + 0 + 1]) end
  for i = 0, m - 1 do a[n * w + i + 1]:assign(a[0 * w + i + 1]) end
  a[n * w + m + 1]:assign(a[0 * w + 0 + 1])
end

-- sz default-constructed variables (the C++ `std::vector<adouble> u(sz)`).
local function field(T, sz)
  local a = {}
  for k = 1, sz do a[k] = T.var() end
  return a
end

-- The model: x = initial (u, v, p), returns { J }, the misfit after o.steps steps.
local function shallow_model(x, T, o)
  local c = swm_const(o.nx, o.ny)
  local steps = o.steps
  local m, n = c.m, c.n
  local w, mn, sz = m + 1, m * n, (m + 1) * (n + 1)
  local u, v, p = field(T, sz), field(T, sz), field(T, sz)
  local uold, vold, pold = field(T, sz), field(T, sz), field(T, sz)
  local unew, vnew, pnew = field(T, sz), field(T, sz), field(T, sz)
  local cu, cv, z, h = field(T, sz), field(T, sz), field(T, sz), field(T, sz)
  local fsdx, fsdy = 4.0 / c.dx, 4.0 / c.dy
  local tdt = c.dt
  local t1, t2, t3, d, d2, J = T.var(), T.var(), T.var(), T.var(), T.var(), T.var()
  local function A(i, j) return j * w + i + 1 end -- 1-based slot of entry (i, j)

  for j = 0, n - 1 do
    for i = 0, m - 1 do
      u[A(i + 1, j)]:assign(x[0 * mn + j * m + i + 1])
      v[A(i, j + 1)]:assign(x[1 * mn + j * m + i + 1])
      p[A(i, j)]:assign(x[2 * mn + j * m + i + 1])
    end
  end
  periodic_u(m, n, u)
  periodic_v(m, n, v)
  periodic_p(m, n, p)
  for k = 1, sz do
    uold[k]:assign(u[k])
    vold[k]:assign(v[k])
    pold[k]:assign(p[k])
  end
  J:assign(0.0)

  for step = 1, steps do
    -- capital U, capital V, vorticity z and height h
    for j = 0, n - 1 do
      for i = 0, m - 1 do
        cu[A(i + 1, j)]:assign(0.5 * (p[A(i + 1, j)] + p[A(i, j)]) * u[A(i + 1, j)])
        cv[A(i, j + 1)]:assign(0.5 * (p[A(i, j + 1)] + p[A(i, j)]) * v[A(i, j + 1)])
        t1:assign(fsdx * (v[A(i + 1, j + 1)] - v[A(i, j + 1)]))
        t2:assign(fsdy * (u[A(i + 1, j + 1)] - u[A(i + 1, j)]))
        t3:assign(p[A(i, j)] + p[A(i + 1, j)] + p[A(i + 1, j + 1)] + p[A(i, j + 1)])
        t1:sub(t2)
        z[A(i + 1, j + 1)]:assign(t1 / t3)
        t1:assign(u[A(i + 1, j)] * u[A(i + 1, j)])
        t2:assign(u[A(i, j)] * u[A(i, j)])
        t1:add(t2)
        t2:assign(v[A(i, j + 1)] * v[A(i, j + 1)])
        t1:add(t2)
        t2:assign(v[A(i, j)] * v[A(i, j)])
        t1:add(t2)
        h[A(i, j)]:assign(p[A(i, j)] + 0.25 * t1)
      end
    end
    periodic_u(m, n, cu)
    periodic_v(m, n, cv)
    periodic_z(m, n, z)
    periodic_p(m, n, h)

    -- new u, v and p
    local tdts8, tdtsdx, tdtsdy = tdt / 8.0, tdt / c.dx, tdt / c.dy
    for j = 0, n - 1 do
      for i = 0, m - 1 do
        t1:assign(z[A(i + 1, j + 1)] + z[A(i + 1, j)])
        t2:assign(cv[A(i + 1, j + 1)] + cv[A(i, j + 1)] + cv[A(i, j)] + cv[A(i + 1, j)])
        t1:mul(t2)
        t1:mul(tdts8)
        t2:assign(h[A(i + 1, j)] - h[A(i, j)])
        t2:mul(tdtsdx)
        unew[A(i + 1, j)]:assign(uold[A(i + 1, j)] + t1 - t2)
        t1:assign(z[A(i + 1, j + 1)] + z[A(i, j + 1)])
        t2:assign(cu[A(i + 1, j + 1)] + cu[A(i, j + 1)] + cu[A(i, j)] + cu[A(i + 1, j)])
        t1:mul(t2)
        t1:mul(tdts8)
        t2:assign(h[A(i, j + 1)] - h[A(i, j)])
        t2:mul(tdtsdy)
        vnew[A(i, j + 1)]:assign(vold[A(i, j + 1)] - t1 - t2)
        t1:assign(cu[A(i + 1, j)] - cu[A(i, j)])
        t1:mul(tdtsdx)
        t2:assign(cv[A(i, j + 1)] - cv[A(i, j)])
        t2:mul(tdtsdy)
        pnew[A(i, j)]:assign(pold[A(i, j)] - t1 - t2)
      end
    end
    periodic_u(m, n, unew)
    periodic_v(m, n, vnew)
    periodic_p(m, n, pnew)

    -- misfit against the measurements
    for j = 0, n - 1 do
      for i = 0, m - 1 do
        d:assign(pnew[A(i, j)] - swm_pobs(c, step, i, j))
        d2:assign(d * d)
        J:add(d2)
      end
    end

    -- time smoothing and update for the next step
    if step == 1 then
      tdt = tdt + tdt
      for k = 1, sz do
        uold[k]:assign(u[k])
        vold[k]:assign(v[k])
        pold[k]:assign(p[k])
        u[k]:assign(unew[k])
        v[k]:assign(vnew[k])
        p[k]:assign(pnew[k])
      end
    else
      for k = 1, sz do
        t1:assign(unew[k] - 2.0 * u[k] + uold[k])
        uold[k]:assign(u[k] + c.alpha * t1)
        t1:assign(vnew[k] - 2.0 * v[k] + vold[k])
        vold[k]:assign(v[k] + c.alpha * t1)
        t1:assign(pnew[k] - 2.0 * p[k] + pold[k])
        pold[k]:assign(p[k] + c.alpha * t1)
        u[k]:assign(unew[k])
        v[k]:assign(vnew[k])
        p[k]:assign(pnew[k])
      end
    end
  end
  return { J }
end

-- The SWM initial state (the C++ shallow_start), 1-based.
local function shallow_start(o)
  local c = swm_const(o.nx, o.ny)
  local m, n = c.m, c.n
  local w, mn = m + 1, m * n
  local psi, x = {}, {}
  for j = 0, n do
    for i = 0, m do
      psi[j * w + i] = c.a * math.sin((i + 0.5) * c.di) * math.sin((j + 0.5) * c.dj)
    end
  end
  for j = 0, n - 1 do
    for i = 0, m - 1 do
      x[0 * mn + j * m + i + 1] = -(psi[(j + 1) * w + i + 1] - psi[j * w + i + 1]) / c.dy
      x[1 * mn + j * m + i + 1] = (psi[(j + 1) * w + i + 1] - psi[(j + 1) * w + i]) / c.dx
      x[2 * mn + j * m + i + 1] = c.pcf * (math.cos(2.0 * i * c.di) + math.cos(2.0 * j * c.dj)) + 50000.0
    end
  end
  return x
end

return {
  name = "shallow",
  options = { nx = 9, ny = 9, steps = 31 },
  x0 = shallow_start,
  f = shallow_model,
}
