/* test_order.c: the registry of orderings (csrc/elim/cg_order.h).
 *
 * Adding an ordering is one score function and one row: this file adds a
 * "min-in-degree" vertex rule the way doc/elimination.md ("Adding an
 * ordering") describes, by compiling cg_order.c with extra rows (its
 * symbols then replace the library's cg_order.o), and checks that the rule
 *  - is listed after the built-in rows and found by name for vertex mode
 *    only (the edge and face loops refuse it by name);
 *  - drives cg_lin_eliminate: the order equals a naive selection that
 *    rescans every intermediate each step (so the row's radius suffices),
 *    and the Jacobian equals the forward sweep of the original graph.
 * Also: every built-in row sits at the index its CG_ORD_* name gives, and a
 * rule that is no row of the registry is a usage error, not a score of 0.
 * Prints "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "elim/cg_order.h"

/* The new rule's score function: the fewest in-edges first. */
static double min_in_degree(const cg_score_ctx *c, uint32_t v) { return c->g->in[v].n; }

/* Its row: a vertex rule only; eliminating v changes the in-degrees of v's
 * successors alone (radius 1). */
#define CG_EXTRA_ROWS                                                                    \
  {"min-in-degree", min_in_degree, NULL, NULL, 1, 0, 0, "the fewest in-edges (a test rule)"},

#include "elim/cg_order.c"

#include "check.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t k) { /* xorshift64 in [0, k) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng % k);
}

/* A random graph: nin independents, then vertices with 1 to 3 predecessors
 * among the 12 before them; vertices left without successors feed one of
 * the last nout, the dependents. */
static cg_lin *random_graph(uint32_t nv, uint32_t nin, uint32_t nout) {
  cg_error e;
  cg_lin *g = cg_lin_new(NULL, nv, &e);
  uint32_t x[16], y[16], v, k;
  if (!g) return NULL;
  for (v = nin; v < nv; v++) {
    uint32_t lo = v > 12 ? v - 12 : 0, top = v < nv - nout ? v : nv - nout;
    for (k = 1 + rnd(3); k > 0; k--)
      if (cg_lin_add(g, lo + rnd(top - lo), v, 0.5 + rnd(100) / 64.0, CG_E_VAR, NULL) == NONE)
        goto fail;
  }
  for (v = nin; v < nv - nout; v++)
    if (!g->out[v].n && cg_lin_add(g, v, nv - nout + rnd(nout), 0.75, CG_E_VAR, NULL) == NONE)
      goto fail;
  for (v = 0; v < nin; v++) x[v] = v;
  for (v = 0; v < nout; v++) y[v] = nv - nout + v;
  if (cg_lin_set_xy(g, x, nin, y, nout, &e)) goto fail;
  return g;
fail:
  cg_lin_free(g);
  return NULL;
}

/* The order by rescanning: the lowest in-degree, ties to the highest id. */
static uint32_t naive_order(cg_lin *g, uint32_t *order) {
  uint32_t n = 0;
  cg_error e;
  for (;;) {
    uint32_t v, best = NONE;
    for (v = 0; v < g->nv; v++)
      if (g->kind[v] == CG_V_INTER && (best == NONE || g->in[v].n <= g->in[best].n)) best = v;
    if (best == NONE || cg_lin_elim_vertex(g, best, NULL, &e)) return n;
    order[n++] = best;
  }
}

static int near_jac(const cg_jac *a, const cg_jac *b) {
  uint64_t k;
  if (a->nnz != b->nnz) return 0;
  for (k = 0; k < a->nnz; k++)
    if (a->row[k] != b->row[k] || a->col[k] != b->col[k] ||
        fabs(a->val[k] - b->val[k]) > 1e-12 * (1 + fabs(b->val[k])))
      return 0;
  return 1;
}

static void test_rows(void) {
  static const char *const builtin[] = {"forward",  "reverse", "markowitz", "relative-markowitz",
                                        "min-fill", "lmmd",    "momr",      "random"};
  int i, extra = cg_ordering_find("min-in-degree", 13, CG_MODE_VERTEX);
  for (i = 0; i < 8; i++) CHECK(strcmp(cg_ordering_at(i)->name, builtin[i]) == 0);
  CHECK(cg_ordering_at(CG_ORD_RANDOM) == &rows[CG_ORD_RANDOM]);
  CHECK(cg_orderings_count() == 9 && extra == 8);
  CHECK(cg_ordering_modes(cg_ordering_at(extra)) == CG_MODE_VERTEX);
  CHECK(cg_ordering_find("min-in-degree", 13, CG_MODE_EDGE) == -1);
  CHECK(cg_ordering_find("min-in-degree", 13, 0) == extra);
  CHECK(cg_ordering_find("min", 3, 0) == -1); /* whole names only */
  CHECK(cg_ordering_at(9) == NULL && cg_ordering_at(-1) == NULL);
  CHECK(cg_ordering_modes(cg_ordering_at(CG_ORD_REL_MARKOWITZ)) == (CG_MODE_VERTEX | CG_MODE_EDGE));
  CHECK(cg_ordering_at(CG_ORD_RANDOM)->needs == CG_NEED_SEED);
}

/* The new rule by name, against the naive order and the forward sweep. */
static void test_new_rule(void) {
  int t;
  for (t = 0; t < 40; t++) {
    cg_lin *g = random_graph(20 + rnd(60), 1 + rnd(5), 1 + rnd(5)), *h, *n;
    cg_order o;
    cg_error e;
    cg_jac J0, J1;
    uint32_t got[128], want[128], ngot = 0, nwant, v;
    int same = 1;
    if (!g) {
      CHECK(!"out of memory");
      return;
    }
    h = cg_lin_copy(g, &e), n = cg_lin_copy(g, &e);
    memset(&o, 0, sizeof o);
    o.nrules = 1, o.rule[0].kind = cg_ordering_find("min-in-degree", 13, CG_MODE_VERTEX);
    CHECK(h && n && cg_lin_jac_forward(g, &J0, &e) == CG_OK);
    CHECK(cg_lin_eliminate(h, &o, NULL, got, &ngot, &e) == CG_OK);
    nwant = naive_order(n, want);
    CHECK(ngot == nwant);
    for (v = 0; v < ngot && v < nwant; v++) same &= got[v] == want[v];
    CHECK(same);
    CHECK(cg_lin_jac_bipartite(h, &J1, &e) == CG_OK && near_jac(&J1, &J0));
    cg_jac_free(NULL, &J0), cg_jac_free(NULL, &J1);
    cg_lin_free(g), cg_lin_free(h), cg_lin_free(n);
  }
}

/* A rule outside the registry, or outside its modes, is refused by name. */
static void test_refused(void) {
  cg_lin *g = random_graph(30, 3, 2);
  cg_order o;
  cg_xorder xo;
  cg_error e;
  memset(&o, 0, sizeof o), memset(&xo, 0, sizeof xo);
  o.nrules = 1, o.rule[0].kind = 99;
  CHECK(g && cg_lin_eliminate(g, &o, NULL, NULL, NULL, &e) == CG_EUSAGE);
  CHECK(strcmp(e.msg, "no ordering rule 99 (of 9)") == 0);
  xo.nrules = 1, xo.rule[0].kind = cg_ordering_find("min-in-degree", 13, 0);
  CHECK(cg_lin_eliminate_edges(g, &xo, NULL, NULL, &e) == CG_EUSAGE);
  CHECK(strcmp(e.msg, "min-in-degree is not defined for edge elimination") == 0);
  xo.rule[0].kind = CG_ORD_REL_MARKOWITZ;
  CHECK(cg_lin_eliminate_faces(g, &xo, NULL, NULL, &e) == CG_EUSAGE);
  CHECK(strcmp(e.msg, "relative-markowitz is not defined for face elimination") == 0);
  xo.rule[0].kind = CG_ORD_LMMD;
  CHECK(cg_lin_eliminate_edges(g, &xo, NULL, NULL, &e) == CG_EUSAGE);
  CHECK(g && cg_lin_check(g, &e) == CG_OK); /* refused before any step */
  cg_lin_free(g);
}

int main(void) {
  test_rows();
  test_new_rule();
  test_refused();
  return check_report("test_order");
}
