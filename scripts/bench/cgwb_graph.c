/* cgwb_graph: times building the graph of a tape and evaluating it.
 * usage: cgwb_graph TAPE XFILE REPEATS
 * Prints "build OPS SECONDS NODES BYTES_PER_NODE PEAK_BUILD_KB" and
 * "geval NODES SECONDS SUM" (best of REPEATS). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"

#include "graph/cg_graph.h"

int main(int argc, char **argv) {
  cg_error e;
  cg_tape *t;
  cg_graph *g = NULL;
  cg_gmem m;
  double *x, *y, tb = 1e30, te = 1e30, sum = 0;
  int reps, r;
  size_t j;
  long rss0, rss1;
  struct rusage ru;
  if (argc != 4) {
    fprintf(stderr, "usage: cgwb_graph TAPE XFILE REPEATS\n");
    return 2;
  }
  reps = atoi(argv[3]);
  if (!(t = cg_tape_load(NULL, argv[1], &e))) {
    fprintf(stderr, "%s\n", e.msg);
    return 2;
  }
  x = read_x(argv[2], (size_t)t->n_indep);
  getrusage(RUSAGE_SELF, &ru);
  rss0 = ru.ru_maxrss;
  for (r = 0; r < reps; r++) {
    double s = now(), d;
    cg_graph_free(g);
    g = cg_graph_build(NULL, t, x, NULL, &e);
    d = now() - s;
    if (!g) {
      fprintf(stderr, "%s\n", e.msg);
      return 2;
    }
    if (d < tb) tb = d;
  }
  getrusage(RUSAGE_SELF, &ru);
  rss1 = ru.ru_maxrss;
  cg_graph_memory(g, &m);
  printf("build %llu %.6f %u %.1f %ld\n", (unsigned long long)g->st.tape_ops, tb, g->n,
         (double)m.total / g->n, rss1 - rss0);
  y = (double *)calloc(g->n_dep ? g->n_dep : 1, sizeof *y);
  for (r = 0; r < reps; r++) {
    double s = now(), d;
    if (cg_graph_eval(g, x, NULL, y, NULL, &e)) {
      fprintf(stderr, "%s\n", e.msg);
      return 2;
    }
    d = now() - s;
    if (d < te) te = d;
  }
  for (j = 0; j < g->n_dep; j++) sum += y[j];
  printf("geval %u %.6f %.17g\n", g->n, te, sum);
  cg_graph_free(g);
  cg_tape_free(t);
  free(x);
  free(y);
  return 0;
}
