/* examples/c-api/03-linearize.c: linearizes the graph of a tape at its point
 * (Hovland, Norris, Utke & Strout, sec. 1: edges carry the local partials)
 * and prints its size, one "name value" line each, with the names and values
 * of `cgwb jacobian TAPE --json`; on stderr the entry of the Jacobian of
 * largest magnitude, by a forward sweep over the linearized graph.
 * doc/c-api.md, "Linearizing".
 *   cc 03-linearize.c $(pkg-config --cflags --libs cgwb) -o 03-linearize */
#include <math.h>
#include <stdio.h>

#include <cgwb/cgwb.h>

int main(int argc, char **argv) {
  cg_error e;
  cg_tape *t;
  cg_graph *g = NULL;
  cg_lin *lg = NULL;
  cg_jac J = {0};
  uint32_t v, inter = 0;
  uint64_t k, big = 0;
  int rc = 1;
  if (argc != 2) return fprintf(stderr, "usage: %s TAPE\n", argv[0]), 2;
  if (!(t = cg_tape_load(NULL, argv[1], &e))) return fprintf(stderr, "%s\n", e.msg), 2;
  if ((g = cg_graph_build(NULL, t, NULL, NULL, &e)) && /* NULL options: the defaults */
      (lg = cg_lin_from_graph(g, &e)) && !cg_lin_jac_forward(lg, &J, &e)) {
    for (v = 0; v < lg->nv; v++) inter += lg->kind[v] == CG_V_INTER;
    printf("edges %llu\n", (unsigned long long)lg->nedges);
    printf("intermediates %u\n", inter);
    printf("vertices %u\n", lg->nv);
    for (k = 1; k < J.nnz; k++) big = fabs(J.val[k]) > fabs(J.val[big]) ? k : big;
    if (J.nnz) fprintf(stderr, "J(%u,%u) = %.17g\n", J.row[big] + 1, J.col[big] + 1, J.val[big]);
    rc = 0;
  } else
    fprintf(stderr, "%s\n", e.msg);
  if (lg) cg_jac_free(lg->A, &J);
  cg_lin_free(lg); /* each free function takes NULL */
  cg_graph_free(g);
  cg_tape_free(t);
  return rc;
}
