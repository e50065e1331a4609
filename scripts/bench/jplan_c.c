/* jplan_c.c: a kept Jacobian plan (csrc/elim/cg_jplan.h) at many points
 * from C, without Lua's tables (scripts/bench-jplan.sh): the interpreted
 * path itself.
 *
 *   jplan_c TAPE POINTS
 * Builds the plan at the tape's point (Markowitz), then calls cg_jplan_at
 * at every point, timed in process CPU time after one call outside the
 * timing.  Prints "interpretive_c POINTS SECONDS_PER_POINT NNZ". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "elim/cg_jplan.h"
#include "graph/cg_gtape.h"

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  cg_error e;
  cg_order o = {{{CG_ORD_MARKOWITZ, NULL, NULL, 0}}, 1, 0, 0};
  cg_tape *tp;
  cg_graph *g;
  cg_lin *lg, *c;
  cg_jplan *p;
  cg_branch br;
  uint32_t *seq, len = 0;
  double *pts, *y, *J, t0;
  int np = 0, cap = 16, i, k;
  size_t n;
  FILE *f;
  if (argc != 3) return fprintf(stderr, "usage: jplan_c TAPE POINTS\n"), 2;
  if (!(tp = cg_tape_load(NULL, argv[1], &e)) || !(g = cg_graph_build(NULL, tp, NULL, NULL, &e)) ||
      !(lg = cg_lin_from_graph(g, &e)) || !(c = cg_lin_copy(lg, &e)))
    return fprintf(stderr, "%s\n", e.msg), 2;
  seq = malloc((size_t)lg->nv * sizeof *seq);
  if (!seq || cg_lin_eliminate(c, &o, NULL, seq, &len, &e) ||
      !(p = cg_jplan_new(NULL, g, lg, seq, len, &e)))
    return fprintf(stderr, "%s\n", seq ? e.msg : "out of memory"), 2;
  n = p->n;
  if (!(f = fopen(argv[2], "r"))) return perror(argv[2]), 2;
  pts = malloc((size_t)cap * n * sizeof *pts);
  for (;;) {
    if (np == cap) pts = realloc(pts, (size_t)(cap *= 2) * n * sizeof *pts);
    for (i = 0; i < (int)n && fscanf(f, "%lf", &pts[(size_t)np * n + i]) == 1; i++) continue;
    if (i == 0) break;
    np++;
  }
  fclose(f);
  y = malloc((size_t)p->m * sizeof *y + 8), J = malloc((size_t)p->nnz * sizeof *J + 8);
  if (!np || !y || !J || cg_jplan_at(p, pts, y, J, &br, &e) || br.count)
    return fprintf(stderr, "jplan_c: no points, no memory or a branch change\n"), 2;
  t0 = cpu_seconds();
  for (k = 0; k < np; k++)
    if (cg_jplan_at(p, pts + (size_t)k * n, y, J, &br, &e) || br.count)
      return fprintf(stderr, "point %d: a branch change\n", k + 1), 3;
  printf("interpretive_c %d %.9f %lu\n", np, (cpu_seconds() - t0) / np, (unsigned long)p->nnz);
  cg_jplan_free(p), cg_lin_free(c), cg_lin_free(lg), cg_graph_free(g), cg_tape_free(tp);
  free(seq), free(pts), free(y), free(J);
  return 0;
}
