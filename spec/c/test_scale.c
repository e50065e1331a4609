/* test_scale.c: cg_lin_scale_counts (csrc/elim/cg_scale.c), the counts
 * the drivers' up-front checks read (doc/elimination.md, "What each ordering
 * costs"): figures by hand on a small graph, vertex forward's and reverse's
 * multiplications against the eliminations themselves, the capped reach
 * counts as lower bounds, and every allocation failing in turn (CG_ENOMEM,
 * nothing leaked). */
#include "check.h"
#include "elim/cg_lin.h"

/* Two components: a (3, 4) <- x0, x1 and b (5) <- x1; 3 -> 4 -> y6, 5 -> y7, 4 -> y7. */
static const char *small =
    "X: 0 1\nY: 6 7\n3: 0 1\n4: 3 0\n5: 1\n6: 4\n7: 5 4\n";

static cg_lin *read_small(cg_alloc *A, cg_error *e) {
  return cg_lin_read_cg(A, "small.cg", small, strlen(small), e);
}

/* The multiplications of a vertex elimination of g (on a copy) under rule kind. */
static double run_mults(const cg_lin *g, int kind) {
  cg_error e;
  cg_lin *c = cg_lin_copy(g, &e);
  cg_order o;
  cg_cost cost;
  double m;
  memset(&o, 0, sizeof o);
  memset(&cost, 0, sizeof cost);
  o.rule[0].kind = kind, o.nrules = 1;
  if (!c || cg_lin_eliminate(c, &o, &cost, NULL, NULL, &e)) m = -1;
  else m = (double)cost.mults;
  cg_lin_free(c);
  return m;
}

static void by_hand(void) {
  cg_alloc A = {counting_alloc, &(counting){0, 0, 0}};
  cg_error e;
  cg_lin *g = read_small(&A, &e);
  cg_lin_scale s;
  CHECK(g != NULL);
  if (!g) return;
  CHECK(cg_lin_scale_counts(g, 0, &s, &e) == CG_OK);
  CHECK(s.inter == 3 && s.edges == 8);
  /* in x out: 3: 2 x 1, 4: 2 x 2, 5: 1 x 1 */
  CHECK(s.markowitz_sum == 7 && s.max_markowitz == 4);
  /* X: 3 {0,1}, 4 {0,1}, 5 {1}; forward: 2x1 + 2x2 + 1x1 */
  CHECK(s.forward_fill == 5 && s.forward_mults == 7);
  /* Y: 3 {6,7}, 4 {6,7}, 5 {7}; reverse: 2x2 + 2x2 + 1x1 */
  CHECK(s.reverse_fill == 5 && s.reverse_mults == 9);
  CHECK(s.components == 2 && s.max_component == 2);
  CHECK(s.max_degree == 2 && !s.partial);
  CHECK(run_mults(g, CG_ORD_FORWARD) == s.forward_mults);
  CHECK(run_mults(g, CG_ORD_REVERSE) == s.reverse_mults);
  cg_lin_free(g);
}

/* A cap below one pass: the reach figures are 0, lower bounds, partial. */
static void capped(void) {
  cg_alloc A = {counting_alloc, &(counting){0, 0, 0}};
  cg_error e;
  cg_lin *g = read_small(&A, &e);
  cg_lin_scale s;
  if (!g) return;
  CHECK(cg_lin_scale_counts(g, 1, &s, &e) == CG_OK);
  CHECK(s.partial && s.forward_mults == 0 && s.reverse_mults == 0);
  CHECK(s.markowitz_sum == 7 && s.components == 2); /* the rest is not capped */
  cg_lin_free(g);
}

/* Every allocation of the counts failing in turn: CG_ENOMEM and nothing
 * left allocated beyond the graph. */
static void oom(void) {
  counting cnt = {0, 0, 0};
  cg_alloc A = {counting_alloc, &cnt};
  cg_error e;
  cg_lin *g = read_small(&A, &e);
  long k;
  int rc = CG_ENOMEM;
  if (!g) return;
  for (k = 1; rc != CG_OK && k < 20; k++) {
    long long live = cnt.live;
    cg_lin_scale s;
    cnt.fail_at = cnt.calls + k;
    rc = cg_lin_scale_counts(g, 0, &s, &e);
    CHECK(rc == CG_OK || rc == CG_ENOMEM);
    CHECK(cnt.live == live);
  }
  CHECK(rc == CG_OK && k > 3); /* three arrays: the first three requests failed */
  cnt.fail_at = 0;
  cg_lin_free(g);
  CHECK(cnt.live == 0);
}

int main(void) {
  by_hand();
  capped();
  oom();
  return check_report("test_scale");
}
