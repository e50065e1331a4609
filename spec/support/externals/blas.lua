-- The external functions of energy.c (doc/kernels.md, "External
-- functions"): the C functions of blas.c give their derivatives to
-- generated code (cgwb's default names: nrm2_d, nrm2_b, scal_d, scal_b);
-- the Lua values and tangents here are the interpreter's.
return {
  nrm2 = { -- reads x only (const): no cells to declare
    value = function(n, x)
      local s = 0.0
      for i = 1, n do s = s + x[i] * x[i] end
      return math.sqrt(s)
    end,
    tangent_value = function(a, da) -- a = {n, x}, da = {_, xd}: the result's tangent
      local n, x, xd = a[1], a[2], da[2]
      local s, sd = 0.0, 0.0
      for i = 1, n do s, sd = s + x[i] * x[i], sd + x[i] * xd[i] end
      return sd / math.sqrt(s)
    end,
  },
  scal = { -- overwrites x[0..n-1]
    cells = { x = "n" },
    value = function(n, a, x) for i = 1, n do x[i] = x[i] * a end end,
    tangent_value = function(args, d) -- sets the tangents of the cells it writes
      local n, a, x = args[1], args[2], args[3]
      for i = 1, n do d[3][i] = d[2] * x[i] + a * d[3][i] end
    end,
  },
}
