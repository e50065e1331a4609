/* examples/hacking/ordering.c: the rule of rules.h in use.  Its row is in the
 * registry (listed, found by name), and eliminating the Lighthouse graph
 * under it gives the forward sweep's Jacobian.  spec/17-hacking_spec.lua
 * compiles and runs it:
 *   cc -std=c99 -Icsrc -Iexamples/hacking ordering.c build/release/libcgwbcore.a -lm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elim/cg_lin.h"
#include "elim/cg_order.h"
#include "rules.h"
#include "elim/cg_order.c" /* the registry with the extra row */

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "examples/graphs/lighthouse.cg";
  int kind = cg_ordering_find("min-out-degree", strlen("min-out-degree"), CG_MODE_VERTEX);
  FILE *fp = fopen(path, "rb");
  static char buf[1 << 16];
  size_t n = fp ? fread(buf, 1, sizeof buf, fp) : 0;
  cg_error e;
  cg_lin *lg;
  cg_order ord = {{{0, NULL, NULL, 0}}, 1, 0, 0};
  cg_cost c = {0};
  cg_jac J, F;
  uint32_t k;
  double d = 0;
  if (fp) fclose(fp);
  if (kind < 0) return fprintf(stderr, "min-out-degree is not in the registry\n"), 1;
  ord.rule[0].kind = kind;
  if (!(lg = cg_lin_read_cg(NULL, path, buf, n, &e)) || cg_lin_jac_forward(lg, &F, &e) ||
      cg_lin_eliminate(lg, &ord, &c, NULL, NULL, &e) || cg_lin_jac_bipartite(lg, &J, &e))
    return fprintf(stderr, "%s\n", e.msg), 1;
  for (k = 0; k < J.nnz && J.nnz == F.nnz; k++) {
    double r = J.val[k] - F.val[k];
    if (J.row[k] != F.row[k] || J.col[k] != F.col[k]) d = 1e300;
    if ((r < 0 ? -r : r) > d) d = r < 0 ? -r : r;
  }
  printf("rule %d of %u: %s, %llu multiplications, largest difference from the sweep %.3g\n",
         kind, (unsigned)cg_orderings_count(), cg_ordering_at((unsigned)kind)->name,
         (unsigned long long)c.mults, J.nnz == F.nnz ? d : 1e300);
  cg_jac_free(lg->A, &J), cg_jac_free(lg->A, &F);
  cg_lin_free(lg);
  return 0;
}
