/* examples/hacking/front_end.c: a front end of its own.  Builds the graph of
 *   t = x0 * x1;  y = exp(t) + x0
 * through the graph-building interface (no tape), linearizes it, eliminates
 * it under Markowitz and prints the Jacobian, which must be
 * (x1 e^t + 1, x0 e^t) at (0.5, 2).  spec/17-hacking_spec.lua compiles and
 * runs it:  cc -std=c99 -Icsrc front_end.c build/release/libcgwbcore.a -lm */
#include <stdio.h>

#include "elim/cg_lin.h"
#include "graph/cg_gbuild.h"

int main(void) {
  cg_error e;
  cg_ghints h = {"k.c", 0, 0, 2, 1};
  cg_gbuild *b = cg_gbuild_begin(NULL, NULL, 1, &h, &e);
  cg_origin o = {0, 0, 3, 5, CG_ORIGIN_SOURCE}; /* k.c:3:5 */
  uint64_t in[2] = {0, 1};
  cg_graph *g;
  cg_lin *lg;
  cg_order ord = {{{CG_ORD_MARKOWITZ, NULL, NULL, 0}}, 1, 0, 0};
  cg_cost c = {0};
  cg_jac J;
  uint32_t k;
  if (!b || cg_gbuild_file(b, "k.c", &o.file) || cg_gbuild_origin(b, &o) ||
      cg_gbuild_independent(b, 0, 0.5) || cg_gbuild_independent(b, 1, 2.0) ||
      cg_gbuild_op(b, 2, CG_G_MUL, 0, in, 2)) /* t (location 2) = x0 * x1 */
    return fprintf(stderr, "%s\n", e.msg), 2;
  in[0] = 2;
  if (cg_gbuild_op(b, 3, CG_G_EXP, 0, in, 1)) return fprintf(stderr, "%s\n", e.msg), 2;
  in[0] = 3, in[1] = 0;
  if (cg_gbuild_op(b, 4, CG_G_ADD, 0, in, 2) || cg_gbuild_dependent(b, 4))
    return fprintf(stderr, "%s\n", e.msg), 2;
  if (!(g = cg_gbuild_finish(b))) return fprintf(stderr, "%s\n", e.msg), 2;
  if (!(lg = cg_lin_from_graph(g, &e)) || cg_lin_eliminate(lg, &ord, &c, NULL, NULL, &e) ||
      cg_lin_jac_bipartite(lg, &J, &e))
    return fprintf(stderr, "%s\n", e.msg), 1;
  printf("nodes %u, mults %llu\n", g->n, (unsigned long long)c.mults);
  for (k = 0; k < J.nnz; k++) printf("J(%u,%u) = %.17g\n", J.row[k] + 1, J.col[k] + 1, J.val[k]);
  cg_jac_free(lg->A, &J);
  cg_lin_free(lg);
  cg_graph_free(g);
  return 0;
}
