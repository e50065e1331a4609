/* cgwb_graph: times building the graph of a tape and evaluating it.
 * usage: cgwb_graph TAPE XFILE REPEATS
 * Prints "build OPS SECONDS NODES BYTES_PER_NODE PEAK_BUILD_KB" and
 * "geval NODES SECONDS SUM" (values into a new array per call, as with
 * val_out = NULL) and "gevalbuf NODES SECONDS SUM" (into the caller's
 * array, reused from call to call), best of REPEATS. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"

#include "graph/cg_gtape.h"

int main(int argc, char **argv) {
  cg_error e;
  cg_tape *t;
  cg_graph *g = NULL;
  cg_gmem m;
  double *x, *y, *vbuf, tb = 1e30, te = 1e30, tv = 1e30, sum = 0;
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
  vbuf = (double *)calloc(g->n ? g->n : 1, sizeof *vbuf);
  for (r = 0; r < 2 * reps; r++) { /* alternating, so that both see the same machine */
    double s = now(), d;
    if (cg_graph_eval(g, x, r % 2 ? vbuf : NULL, y, NULL, &e)) {
      fprintf(stderr, "%s\n", e.msg);
      return 2;
    }
    d = now() - s;
    if (r % 2 == 0 && d < te) te = d;
    if (r % 2 == 1 && d < tv) tv = d;
  }
  for (j = 0; j < g->n_dep; j++) sum += y[j];
  printf("geval %u %.6f %.17g\n", g->n, te, sum);
  printf("gevalbuf %u %.6f %.17g\n", g->n, tv, sum);
  free(vbuf);
  cg_graph_free(g);
  cg_tape_free(t);
  free(x);
  free(y);
  return 0;
}
