/*
 * elim_big: Markowitz vertex elimination on a generated linearized graph of
 * N vertices (default 10^6), for scripts/bench.sh.
 *   stencil (default): the shape of a PDE residual's tape: N/10
 *     independents, then per residual a block of 8 intermediates and the
 *     dependent, each taking 1 to 3 predecessors among the block's earlier
 *     vertices and the independents within 8 of the residual's index;
 *   front: a banded DAG, 1000 independents at the start and 1000
 *     dependents at the end, every other vertex with 1 to 3 predecessors
 *     among the 64 before it: everything depends on the first vertices, so
 *     Markowitz fills heavily (run with a smaller N).
 * An intermediate without a successor feeds the next dependent.
 * Usage: elim_big [N [stencil|front]]
 * Prints "big VERTICES N M EDGES SECONDS PEAK_KiB GRAPH_KiB JAC_NNZ MULTS FILL PEAK_EDGES".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "bench.h"

#include "elim/cg_lin.h"

static uint64_t rng_state = 88172645463325252ull;

static uint32_t rnd(uint32_t k) { /* xorshift64 in [0, k) */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state % k);
}

static long maxrss(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* The stencil graph: x, then blocks of 8 intermediates + 1 dependent. */
static cg_lin *stencil(uint32_t nv) {
  cg_error e;
  uint32_t n = nv / 10, nb = (nv - n) / 9, v, b, k, j;
  cg_lin *g = cg_lin_new(NULL, n + 9 * nb, &e);
  uint32_t *x = (uint32_t *)malloc((size_t)n * 4), *y = (uint32_t *)malloc((size_t)nb * 4);
  if (!g || !x || !y) exit(1);
  for (v = 0; v < n; v++) x[v] = v;
  for (b = 0; b < nb; b++) {
    uint32_t base = n + 9 * b, c = (uint32_t)((uint64_t)b * n / nb);
    uint32_t lo = c > 8 ? c - 8 : 0, hi = c + 8 < n ? c + 8 : n - 1;
    for (k = 0; k < 9; k++)
      for (j = 1 + rnd(3); j > 0; j--) {
        uint32_t p = k && rnd(2) ? base + rnd(k) : lo + rnd(hi - lo + 1);
        if (cg_lin_add(g, p, base + k, 0.5 + rnd(1000) / 1000.0, CG_E_VAR, NULL) == UINT32_MAX) exit(1);
      }
    for (k = 0; k < 8; k++)
      if (!g->out[base + k].n && cg_lin_add(g, base + k, base + 8, 1.0, CG_E_VAR, NULL) == UINT32_MAX)
        exit(1);
    y[b] = base + 8;
  }
  if (cg_lin_set_xy(g, x, n, y, nb, &e)) exit(1);
  free(x);
  free(y);
  return g;
}

/* The front-loaded banded graph (see above). */
static cg_lin *banded(uint32_t nv) {
  cg_error e;
  cg_lin *g = cg_lin_new(NULL, nv, &e);
  uint32_t *x = (uint32_t *)malloc(1000 * 4), *y = (uint32_t *)malloc(1000 * 4), v, k;
  if (!g || !x || !y) exit(1);
  for (v = 1000; v < nv; v++) {
    uint32_t top = v < nv - 1000 ? v : nv - 1000, lo = top - 64 < 1000 ? 0 : top - 64;
    for (k = 1 + rnd(3); k > 0; k--)
      if (cg_lin_add(g, lo + rnd(top - lo), v, 0.5 + rnd(1000) / 1000.0, CG_E_VAR, NULL) == UINT32_MAX)
        exit(1);
  }
  for (v = 1000; v < nv - 1000; v++)
    if (!g->out[v].n && cg_lin_add(g, v, v + 1 < nv - 1000 ? v + 1 : nv - 1, 1.0, CG_E_VAR, NULL) == UINT32_MAX)
      exit(1);
  for (k = 0; k < 1000; k++) x[k] = k, y[k] = nv - 1000 + k;
  if (cg_lin_set_xy(g, x, 1000, y, 1000, &e)) exit(1);
  free(x);
  free(y);
  return g;
}

int main(int argc, char **argv) {
  uint32_t nv = argc > 1 ? (uint32_t)atol(argv[1]) : 1000000u;
  int front = argc > 2 && argv[2][0] == 'f';
  cg_order o = {{{CG_ORD_MARKOWITZ, NULL, NULL, 0}}, 1, 0, 0};
  cg_cost c = {0, 0, 0, 0, 0, 0};
  cg_error e;
  cg_lin *g;
  cg_jac J;
  long rss0 = maxrss(), rss1;
  unsigned long long edges;
  double t;
  if (nv < 3000) return fprintf(stderr, "elim_big: N >= 3000\n"), 2;
  g = front ? banded(nv) : stencil(nv);
  rss1 = maxrss();
  edges = (unsigned long long)g->nedges;
  t = now();
  if (cg_lin_check(g, &e)) return fprintf(stderr, "%s\n", e.msg), 1;
  if (cg_lin_eliminate(g, &o, &c, NULL, NULL, &e)) return fprintf(stderr, "%s\n", e.msg), 1;
  t = now() - t;
  if (cg_lin_jac_bipartite(g, &J, &e)) return fprintf(stderr, "%s\n", e.msg), 1;
  printf("big %u %u %u %llu %.3f %ld %ld %llu %llu %llu %llu\n", nv, g->n, g->m, edges, t, maxrss() - rss0,
         rss1 - rss0, (unsigned long long)J.nnz, (unsigned long long)c.mults,
         (unsigned long long)c.fill, (unsigned long long)c.peak_edges);
  cg_jac_free(NULL, &J);
  cg_lin_free(g);
  return 0;
}
