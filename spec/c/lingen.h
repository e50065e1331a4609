/*
 * lingen.h: seeded random linearized graphs for the C tests (test_elim.c,
 * test_colour.c).  Include after elim/cg_lin.h; define LINGEN_SEED first for
 * another sequence.
 */
#ifndef LINGEN_H
#define LINGEN_H

#ifndef LINGEN_SEED
#define LINGEN_SEED 88172645463325252ull
#endif

static uint64_t rng = LINGEN_SEED;

static uint32_t rnd(uint32_t k) { /* xorshift64 in [0, k) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng % k);
}

/* A random linearized graph: nin independents first, then vertices with 1
 * to maxp predecessors among the `window` before them (repeats summed), a
 * random mark each; vertices left without successors feed one of the last
 * nout, the dependents.  With share, independent 0 is also a dependent. */
static cg_lin *random_graph(cg_alloc *A, uint32_t nv, uint32_t nin, uint32_t nout, uint32_t maxp,
                            uint32_t window, int share) {
  static const uint8_t marks[4] = {CG_E_VAR, CG_E_CONST, CG_E_PLUS1, CG_E_MINUS1};
  cg_error e;
  cg_lin *g = cg_lin_new(A, nv, &e);
  uint32_t x[64], y[65], v, k, ny = 0;
  if (!g) return NULL;
  for (v = nin; v < nv; v++) {
    uint32_t lo = v > window ? v - window : 0, top = v < nv - nout ? v : nv - nout;
    for (k = 1 + rnd(maxp); k > 0; k--) {
      uint8_t mk = marks[rnd(4)];
      double w = mk == CG_E_PLUS1 ? 1 : mk == CG_E_MINUS1 ? -1 : 0.25 + rnd(1000) / 500.0;
      if (top > lo && cg_lin_add(g, lo + rnd(top - lo), v, w, mk, NULL) == UINT32_MAX) goto fail;
    }
  }
  for (v = nin; v < nv - nout; v++)
    if (!g->out[v].n && cg_lin_add(g, v, nv - nout + rnd(nout), 0.5, CG_E_VAR, NULL) == UINT32_MAX)
      goto fail;
  for (v = 0; v < nin; v++) x[v] = v;
  if (share) y[ny++] = 0;
  for (v = nv - nout; v < nv; v++) y[ny++] = v;
  if (cg_lin_set_xy(g, x, nin, y, ny, &e)) goto fail;
  return g;
fail:
  cg_lin_free(g);
  return NULL;
}

#endif
