-- The external functions of energy.c, with the C functions of blas.c
-- that give their derivatives (cgwb's default names: nrm2_d, nrm2_b, ...).
return {
  nrm2 = {},                       -- reads x only (const): nothing to declare
  scal = { cells = { x = "n" } },  -- overwrites x[0..n-1]
}
