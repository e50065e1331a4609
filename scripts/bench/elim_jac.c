/*
 * elim_jac: cgwb's Jacobian of a tape by vertex elimination, timed end to
 * end (read the tape, build the graph, linearize, eliminate under
 * Markowitz, write the Jacobian as Matrix Market), for scripts/bench.sh.
 * Usage: elim_jac TAPE XFILE OUT.mtx REPEATS
 * Prints "elim TOTAL_S KiB NNZ SUM READ_S BUILD_S LIN_S ELIM_S WRITE_S MULTS".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "bench.h"

#include "elim/cg_lin.h"
#include "elim/cg_mtx.h"
#include "graph/cg_gtape.h"

static long maxrss(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

int main(int argc, char **argv) {
  double best[6] = {1e30, 1e30, 1e30, 1e30, 1e30, 1e30}, sum = 0;
  unsigned long long nnz = 0, mults = 0;
  long rss0 = maxrss();
  double *x;
  int r, reps;
  if (argc != 5) return fprintf(stderr, "usage: elim_jac TAPE XFILE OUT.mtx REPEATS\n"), 2;
  reps = atoi(argv[4]);
  { /* the point is read once, outside the timings (as scripts/bench/adolc_jac.cpp does) */
    cg_error e;
    cg_tape *tp = cg_tape_load(NULL, argv[1], &e);
    if (!tp) return fprintf(stderr, "%s\n", e.msg), 2;
    x = read_x(argv[2], (size_t)tp->n_indep);
    cg_tape_free(tp);
  }
  for (r = 0; r < reps; r++) {
    cg_error e;
    cg_order o = {{{CG_ORD_MARKOWITZ, NULL, NULL, 0}}, 1, 0, 0};
    cg_cost c = {0, 0, 0, 0, 0, 0};
    cg_jac J;
    double t[6];
    cg_tape *tp;
    cg_graph *g;
    cg_lin *lg;
    uint64_t k;
    remove(argv[3]); /* each run writes a new file (replacing one makes ext4 flush it) */
    t[0] = now();
    if (!(tp = cg_tape_load(NULL, argv[1], &e))) return fprintf(stderr, "%s\n", e.msg), 2;
    t[1] = now();
    if (!(g = cg_graph_build(NULL, tp, x, NULL, &e))) return fprintf(stderr, "%s\n", e.msg), 2;
    t[2] = now();
    if (!(lg = cg_lin_from_graph(g, &e))) return fprintf(stderr, "%s\n", e.msg), 2;
    t[3] = now();
    if (cg_lin_eliminate(lg, &o, &c, NULL, NULL, &e)) return fprintf(stderr, "%s\n", e.msg), 1;
    t[4] = now();
    if (cg_lin_jac_bipartite(lg, &J, &e)) return fprintf(stderr, "%s\n", e.msg), 1;
    if (cg_jac_write_mtx(&J, argv[3], &e)) return fprintf(stderr, "%s\n", e.msg), 1;
    t[5] = now();
    for (k = 0, sum = 0; k < J.nnz; k++) sum += J.val[k];
    nnz = J.nnz, mults = c.mults;
    cg_jac_free(lg->A, &J);
    cg_lin_free(lg);
    cg_graph_free(g);
    cg_tape_free(tp);
    for (k = 0; k < 5; k++)
      if (t[k + 1] - t[k] < best[k + 1]) best[k + 1] = t[k + 1] - t[k];
    if (t[5] - t[0] < best[0]) best[0] = t[5] - t[0];
  }
  free(x);
  printf("elim %.6f %ld %llu %.17g %.6f %.6f %.6f %.6f %.6f %llu\n", best[0], maxrss() - rss0, nnz,
         sum, best[1], best[2], best[3], best[4], best[5], mults);
  return 0;
}
