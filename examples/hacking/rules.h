/* examples/hacking/rules.h: a vertex ordering of one's own, as one score
 * function and one row (cg_order.h).  Compiled into the registry with
 *   -DCG_EXTRA_ORDERINGS='"../../examples/hacking/rules.h"'
 * (the path is found from csrc/elim/), or by including cg_order.c after it
 * as ordering.c does. */

/* The fewest out-edges first (a vertex that feeds few others is cheap to
 * eliminate late; a toy rule to show the row). */
static double v_min_out_degree(const cg_score_ctx *c, uint32_t v) { return c->g->out[v].n; }

#define CG_EXTRA_ROWS \
  {"min-out-degree", v_min_out_degree, NULL, NULL, 1, 0, 0, "the fewest out-edges"},
