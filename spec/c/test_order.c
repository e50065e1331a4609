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
 * The fast paths the flags of a row select (CG_ORD_FAST_MARKOWITZ: the
 * vertex loop's Markowitz loop, inline scores in the vertex and face loops;
 * CG_ORD_SMALL_INT: the bit set) give the same steps, costs and bits as the
 * same score functions in a row without flags, in every mode.
 * Also: every built-in row sits at the index its CG_ORD_* name gives, and a
 * rule that is no row of the registry is a usage error, not a score of 0.
 * Prints "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elim/cg_order.h"

/* The new rule's score function: the fewest in-edges first. */
static double min_in_degree(const cg_score_ctx *c, uint32_t v) { return c->g->in[v].n; }

/* Its row: a vertex rule only; eliminating v changes the in-degrees of v's
 * successors alone (radius 1).  Then the plain paths of the built-in rows
 * that have fast ones: Markowitz's and min-fill's score functions without
 * their flags (no inline scores, no Markowitz loop, no bit set), which the
 * flagged rows must match step for step. */
#define CG_EXTRA_ROWS                                                                    \
  {"min-in-degree", min_in_degree, NULL, NULL, 1, 0, 0, "the fewest in-edges (a test rule)"}, \
  {"markowitz-plain", v_markowitz, e_markowitz, f_markowitz, 1, 0, 0, "markowitz, plain"},   \
  {"min-fill-plain", v_min_fill, e_min_fill, f_min_fill, 2, 0, 0, "min-fill, plain"},

#include "elim/cg_order.c"

#include "check.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t k) { /* xorshift64 in [0, k) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng % k);
}

/* A random graph: nin independents, then vertices with 1 to maxp
 * predecessors among the 12 before them; vertices left without successors
 * feed one of the last nout, the dependents. */
static cg_lin *random_graph(uint32_t nv, uint32_t nin, uint32_t nout, uint32_t maxp) {
  cg_error e;
  cg_lin *g = cg_lin_new(NULL, nv, &e);
  uint32_t x[16], y[16], v, k;
  if (!g) return NULL;
  for (v = nin; v < nv; v++) {
    uint32_t lo = v > 12 ? v - 12 : 0, top = v < nv - nout ? v : nv - nout;
    for (k = 1 + rnd(maxp); k > 0; k--)
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
  CHECK(cg_orderings_count() == 11 && extra == 8);
  CHECK(cg_ordering_modes(cg_ordering_at(extra)) == CG_MODE_VERTEX);
  CHECK(cg_ordering_find("min-in-degree", 13, CG_MODE_EDGE) == -1);
  CHECK(cg_ordering_find("min-in-degree", 13, 0) == extra);
  CHECK(cg_ordering_find("min", 3, 0) == -1); /* whole names only */
  CHECK(cg_ordering_at(11) == NULL && cg_ordering_at(-1) == NULL);
  CHECK(cg_ordering_modes(cg_ordering_at(CG_ORD_REL_MARKOWITZ)) == (CG_MODE_VERTEX | CG_MODE_EDGE));
  CHECK(cg_ordering_at(CG_ORD_RANDOM)->needs == CG_NEED_SEED);
}

/* The new rule by name, against the naive order and the forward sweep. */
static void test_new_rule(void) {
  int t;
  for (t = 0; t < 40; t++) {
    cg_lin *g = random_graph(20 + rnd(60), 1 + rnd(5), 1 + rnd(5), 3), *h, *n;
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
  cg_lin *g = random_graph(30, 3, 2, 3);
  cg_order o;
  cg_xorder xo;
  cg_error e;
  memset(&o, 0, sizeof o), memset(&xo, 0, sizeof xo);
  o.nrules = 1, o.rule[0].kind = 99;
  CHECK(g && cg_lin_eliminate(g, &o, NULL, NULL, NULL, &e) == CG_EUSAGE);
  CHECK(strcmp(e.msg, "no ordering rule 99 (of 11)") == 0);
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

/* Runs rule kind in mode (0 vertex, 1 edge, 2 face) on a copy of g0: the
 * cost, the steps (vertex order, or edge / face steps) and the Jacobian. */
static int run_mode(const cg_lin *g0, int mode, int kind, int low, cg_cost *c, cg_steps *st,
                    cg_jac *J) {
  cg_error e;
  cg_lin *g = cg_lin_copy(g0, &e);
  int rc = CG_ENOMEM;
  memset(c, 0, sizeof *c), memset(st, 0, sizeof *st), memset(J, 0, sizeof *J);
  if (!g) return rc;
  if (mode == 0) {
    cg_order o;
    uint32_t n = 0;
    memset(&o, 0, sizeof o);
    o.nrules = 1, o.rule[0].kind = kind, o.lowest_first = low;
    st->cap = (size_t)g->nv + 1, st->a = (uint32_t *)calloc(st->cap, 4);
    rc = st->a ? cg_lin_eliminate(g, &o, c, st->a, &n, &e) : CG_ENOMEM;
    st->n = n;
  } else {
    cg_xorder o;
    memset(&o, 0, sizeof o);
    o.nrules = 1, o.rule[0].kind = kind, o.lowest_first = low;
    rc = mode == 1 ? cg_lin_eliminate_edges(g, &o, c, st, &e)
                   : cg_lin_eliminate_faces(g, &o, c, st, &e);
  }
  if (!rc) rc = cg_lin_jac_bipartite(g, J, &e);
  cg_lin_free(g);
  return rc;
}

static int same_cost(const cg_cost *a, const cg_cost *b) {
  return a->mults == b->mults && a->mults_nontrivial == b->mults_nontrivial &&
         a->adds == b->adds && a->fill == b->fill && a->steps == b->steps &&
         a->peak_edges == b->peak_edges;
}

static int same_bits(const cg_jac *a, const cg_jac *b) {
  return a->nnz == b->nnz && memcmp(a->row, b->row, a->nnz * 4) == 0 &&
         memcmp(a->col, b->col, a->nnz * 4) == 0 && memcmp(a->val, b->val, a->nnz * 8) == 0;
}

/* A flagged row against its plain twin, every mode, both tie-breaks. */
static void test_fast_paths(void) {
  static const char *const pairs[][2] = {{"markowitz", "markowitz-plain"},
                                         {"min-fill", "min-fill-plain"}};
  int t, p, mode, low;
  for (t = 0; t < 12; t++) {
    cg_lin *g = random_graph(20 + rnd(40), 1 + rnd(5), 1 + rnd(5), 2 + t % 4);
    CHECK(g != NULL);
    for (p = 0; g && p < 2; p++)
      for (mode = 0; mode < 3; mode++)
        for (low = 0; low < 2; low++) {
          int fast = cg_ordering_find(pairs[p][0], strlen(pairs[p][0]), 0);
          int plain = cg_ordering_find(pairs[p][1], strlen(pairs[p][1]), 0);
          cg_cost c1, c2;
          cg_steps s1, s2;
          cg_jac J1, J2;
          CHECK(run_mode(g, mode, fast, low, &c1, &s1, &J1) == CG_OK);
          CHECK(run_mode(g, mode, plain, low, &c2, &s2, &J2) == CG_OK);
          CHECK(same_cost(&c1, &c2) && s1.n == s2.n);
          CHECK(mode == 0 ? memcmp(s1.a, s2.a, s1.n * 4) == 0
                          : memcmp(s1.a, s2.a, s1.n * CG_STEP_WIDTH * 4) == 0);
          CHECK(same_bits(&J1, &J2));
          if (mode == 0) free(s1.a), free(s2.a);
          else cg_steps_free(NULL, &s1), cg_steps_free(NULL, &s2);
          cg_jac_free(NULL, &J1), cg_jac_free(NULL, &J2);
        }
    cg_lin_free(g);
  }
}

int main(void) {
  test_rows();
  test_new_rule();
  test_fast_paths();
  test_refused();
  return check_report("test_order");
}
