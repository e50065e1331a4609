/* test_jplan.c: kept Jacobian plans (csrc/elim/cg_jplan.h) in plain C: at
 * new points a plan's Jacobian equals a fresh build, linearization and
 * elimination there; J*v and w^T*J equal the products with that J; bad
 * orders are refused; every out-of-memory path while making a plan returns
 * CG_ENOMEM and leaks nothing, and a plan made after it is right; code
 * generation writes. */
#include <math.h>

#include "elim/cg_jplan.h"
#include "elim/cg_lin.h"
#include "graph/cg_gtape.h"
#include "tape/cg_tape.h"
#include "check.h"

static const char *TEXT =
    "assign_ind 0 0.5\nassign_ind 1 1.5\nassign_ind 2 -0.25\n"
    "mult_a_a 3 0 1\nsin_op 4 5 3\nplus_a_a 6 4 2\nexp_op 7 6\n"
    "mult_a_a 8 7 3\ndiv_a_a 9 8 6\nplus_a_a 10 9 0\nmult_a_a 11 10 4\n"
    "sqrt_op 12 7\neq_plus_a 12 11\nassign_dep 12\nassign_dep 11\nassign_dep 9\n";

static int close_to(double a, double b) { return fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b)) + 1e-15; }

/* The Markowitz order of lg (eliminated on a copy). */
static uint32_t markowitz_order(const cg_lin *lg, uint32_t *seq) {
  cg_order o;
  cg_error e;
  cg_lin *c = cg_lin_copy(lg, &e);
  uint32_t n = 0;
  memset(&o, 0, sizeof o);
  o.rule[0].kind = CG_ORD_MARKOWITZ, o.nrules = 1;
  CHECK(c && cg_lin_eliminate(c, &o, NULL, seq, &n, &e) == CG_OK);
  cg_lin_free(c);
  return n;
}

/* The Jacobian at x by a fresh build, linearization and Markowitz elimination. */
static int fresh(const cg_tape *t, const double *x, cg_jac *J, uint64_t *mults) {
  cg_error e;
  cg_graph *g = cg_graph_build(NULL, t, x, NULL, &e);
  cg_lin *lg = g ? cg_lin_from_graph(g, &e) : NULL;
  cg_order o;
  cg_cost c;
  int rc;
  memset(&o, 0, sizeof o), memset(&c, 0, sizeof c);
  o.rule[0].kind = CG_ORD_MARKOWITZ, o.nrules = 1;
  rc = lg ? cg_lin_eliminate(lg, &o, &c, NULL, NULL, &e) : CG_ERUNTIME;
  if (!rc) rc = cg_lin_jac_bipartite(lg, J, &e);
  *mults = c.mults;
  cg_lin_free(lg);
  cg_graph_free(g);
  return rc;
}

static void test_points(void) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "jplan.txt", TEXT, &e);
  cg_graph *g = cg_graph_build(NULL, t, NULL, NULL, &e);
  cg_lin *lg = cg_lin_from_graph(g, &e);
  uint32_t seq[64], len = markowitz_order(lg, seq), k, i;
  cg_jplan *p = cg_jplan_new(NULL, g, lg, seq, len, &e);
  double x[3], y[3], J[64], v[3], w[3], jv[3], wj[3];
  CHECK(p != NULL);
  if (!p) return;
  for (k = 0; k < 25; k++) { /* points around the tape's */
    cg_jac R;
    cg_branch br;
    uint64_t mults = 0, q;
    for (i = 0; i < 3; i++) x[i] = g->val[g->indep[i]] * (1 + 0.03 * sin(7.0 * k + i)), v[i] = cos(k + i), w[i] = sin(k * 3.0 + i);
    CHECK(cg_jplan_at(p, x, y, J, &br, &e) == CG_OK && br.count == 0);
    CHECK(fresh(t, x, &R, &mults) == CG_OK);
    CHECK(R.nnz == p->nnz && mults == p->cost.mults && p->nops == mults);
    for (q = 0; q < R.nnz && q < p->nnz; q++)
      CHECK(R.row[q] == p->row[q] && R.col[q] == p->col[q] && close_to(R.val[q], J[q]));
    CHECK(cg_jplan_jvp(p, x, v, y, jv, &br, &e) == CG_OK);
    CHECK(cg_jplan_vjp(p, x, w, y, wj, &br, &e) == CG_OK);
    for (i = 0; i < 3; i++) { /* against R's products */
      double a = 0, b = 0, sa = 0, sb = 0;
      for (q = 0; q < R.nnz; q++) {
        if (R.row[q] == i) a += R.val[q] * v[R.col[q]], sa += fabs(R.val[q] * v[R.col[q]]);
        if (R.col[q] == i) b += w[R.row[q]] * R.val[q], sb += fabs(w[R.row[q]] * R.val[q]);
      }
      CHECK(fabs(jv[i] - a) <= 1e-12 * sa + 1e-15 && fabs(wj[i] - b) <= 1e-12 * sb + 1e-15);
    }
    cg_jac_free(NULL, &R);
  }
  cg_jplan_free(p);
  /* bad orders: a vertex left out, a vertex out of range, an independent */
  CHECK(cg_jplan_new(NULL, g, lg, seq, len - 1, &e) == NULL && e.code == CG_EUSAGE);
  seq[0] = 1000;
  CHECK(cg_jplan_new(NULL, g, lg, seq, len, &e) == NULL && e.code == CG_EUSAGE);
  seq[0] = lg->x[0];
  CHECK(cg_jplan_new(NULL, g, lg, seq, len, &e) == NULL && e.code == CG_EUSAGE);
  cg_lin_free(lg);
  cg_graph_free(g);
  cg_tape_free(t);
}

/* Every allocation of cg_jplan_new failing in turn: CG_ENOMEM, nothing
 * leaked; then the plan at the tape's point and its code. */
static void test_oom(void) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "jplan.txt", TEXT, &e);
  cg_graph *g = cg_graph_build(NULL, t, NULL, NULL, &e);
  cg_lin *lg = cg_lin_from_graph(g, &e);
  uint32_t seq[64], len = markowitz_order(lg, seq);
  long k, failures = 0, leaks = 0, bad = 0;
  int done = 0;
  for (k = 1; !done && k < 100000; k++) {
    counting c = {0, k, 0};
    cg_alloc A = {counting_alloc, &c};
    cg_jplan *p = cg_jplan_new(&A, g, lg, seq, len, &e);
    if (!p) {
      failures++;
      if (e.code != CG_ENOMEM || !strstr(e.msg, "out of memory")) bad++;
    } else {
      double x[3] = {0.5, 1.5, -0.25}, y[3], J[64];
      cg_branch br;
      FILE *fp = tmpfile();
      cg_jcstats st;
      c.fail_at = 0;
      CHECK(cg_jplan_at(p, x, y, J, &br, &e) == CG_OK && br.count == 0);
      CHECK(fp && cg_jplan_codegen(p, "t", "jplan.txt", 5, fp, &st, &e) == CG_OK && st.statements > 0);
      if (fp) fclose(fp);
      cg_jplan_free(p);
      done = c.calls < k;
    }
    if (c.live != 0) leaks++;
  }
  CHECK(done && failures > 5 && leaks == 0 && bad == 0);
  cg_lin_free(lg);
  cg_graph_free(g);
  cg_tape_free(t);
}

/* A plan freed after its graph and linearized graph (Lua's collector may
 * finalize them in either order): freeing it reads neither (under ASan a
 * read of the freed graph fails this test). */
static void test_graph_first(void) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "jplan.txt", TEXT, &e);
  cg_graph *g = cg_graph_build(NULL, t, NULL, NULL, &e);
  cg_lin *lg = cg_lin_from_graph(g, &e);
  uint32_t seq[64], len = markowitz_order(lg, seq);
  cg_jplan *p = cg_jplan_new(NULL, g, lg, seq, len, &e);
  CHECK(p != NULL);
  cg_lin_free(lg);
  cg_graph_free(g);
  cg_jplan_free(p);
  cg_tape_free(t);
}

int main(void) {
  test_points();
  test_oom();
  test_graph_first();
  return check_report("test_jplan");
}
