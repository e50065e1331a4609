/* test_oom.c: every allocation of the pipeline fails in turn (issue 6):
 * reading a tape, building its graph, linearizing, eliminating (Markowitz).
 * Each failure must give CG_ENOMEM, leak nothing (a counting allocator), and
 * leave a refused operation's object unchanged: a tape a record could not be
 * pushed onto, a linearized graph an elimination step could not complete
 * (same invariants, same Jacobian).  Prints "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elim/cg_lin.h"
#include "graph/cg_graph.h"
#include "tape/cg_tape.h"
#include "check.h"



/* Two independents, dependents sharing intermediates: elimination makes fill
 * and accumulates into existing edges. */
static const char *TEXT =
    "assign_ind 0 0.5\nassign_ind 1 1.5\nassign_ind 2 -0.25\n"
    "mult_a_a 3 0 1\nsin_op 4 5 3\nplus_a_a 6 4 2\nexp_op 7 6\n"
    "mult_a_a 8 7 3\ndiv_a_a 9 8 6\nplus_a_a 10 9 0\nmult_a_a 11 10 4\n"
    "sqrt_op 12 7\neq_plus_a 12 11\nassign_dep 12\nassign_dep 11\nassign_dep 9\n";

static void order_markowitz(cg_order *o) {
  memset(o, 0, sizeof *o);
  o->rule[0].kind = CG_ORD_MARKOWITZ;
  o->nrules = 1;
}

static int same_jac(const cg_jac *a, const cg_jac *b) {
  uint64_t i;
  if (a->nnz != b->nnz) return 0;
  for (i = 0; i < a->nnz; i++)
    if (a->row[i] != b->row[i] || a->col[i] != b->col[i] ||
        fabs(a->val[i] - b->val[i]) > 1e-12 * (1 + fabs(a->val[i])))
      return 0;
  return 1;
}

/* The reference Jacobian, computed without failures. */
static int reference(cg_jac *J) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "oom.txt", TEXT, &e);
  cg_graph *g = t ? cg_graph_build(NULL, t, NULL, NULL, &e) : NULL;
  cg_lin *lg = g ? cg_lin_from_graph(g, &e) : NULL;
  int rc = lg ? cg_lin_jac_forward(lg, J, &e) : CG_ERUNTIME;
  cg_lin_free(lg);
  cg_graph_free(g);
  cg_tape_free(t);
  return rc;
}

typedef struct tally {
  long failures, leaks, bad_code, broken, changed;
} tally;

/* One run of the pipeline with the k-th allocation failing.  Returns 1 when
 * the run needed fewer than k allocations (the loop is done). */
static int pipeline_once(long k, const cg_jac *ref, tally *T) {
  counting c = {0, k, 0};
  cg_alloc A = {counting_alloc, &c};
  cg_error e;
  cg_order o;
  cg_tape *t = check_tape_text(&A, "oom.txt", TEXT, &e);
  cg_graph *g = NULL;
  cg_lin *lg = NULL;
  int rc = t ? CG_OK : e.code;
  if (!rc && !(g = cg_graph_build(&A, t, NULL, NULL, &e))) rc = e.code;
  if (!rc && !(lg = cg_lin_from_graph(g, &e))) rc = e.code;
  order_markowitz(&o);
  if (!rc) rc = cg_lin_eliminate(lg, &o, NULL, NULL, NULL, &e);
  if (rc) {
    T->failures++;
    if (rc != CG_ENOMEM || e.code != CG_ENOMEM) T->bad_code++;
  }
  if (rc && lg) { /* a refused elimination leaves a graph with the same Jacobian */
    cg_jac J;
    c.fail_at = 0;
    memset(&J, 0, sizeof J);
    if (cg_lin_check(lg, &e) != CG_OK || cg_lin_jac_forward(lg, &J, &e) != CG_OK) T->broken++;
    else if (!same_jac(&J, ref)) T->changed++;
    cg_jac_free(&A, &J);
  }
  cg_lin_free(lg);
  cg_graph_free(g);
  cg_tape_free(t);
  if (c.live != 0 && ++T->leaks == 1)
    fprintf(stderr, "test_oom: allocation %ld: %lld bytes leaked (stage %d)\n", k, c.live,
            !t ? 0 : !g ? 1 : !lg ? 2 : 3);
  return c.calls < k;
}

static void test_pipeline(void) {
  cg_jac ref;
  tally T = {0, 0, 0, 0, 0};
  long k;
  memset(&ref, 0, sizeof ref);
  CHECK(reference(&ref) == CG_OK);
  for (k = 1; k < 100000; k++)
    if (pipeline_once(k, &ref, &T)) break;
  printf("test_oom: %ld allocations failed in turn\n", k - 1);
  CHECK(T.failures == k - 1); /* every failure was noticed */
  CHECK(T.failures > 50);
  CHECK(T.bad_code == 0);
  CHECK(T.leaks == 0);
  CHECK(T.broken == 0);
  /* a refused elimination step is undone: the Jacobian of the graph that is
   * left is the one of the original graph */
  CHECK(T.changed == 0);
  cg_jac_free(NULL, &ref);
}

/* A refused push leaves the tape as it was, whichever allocation fails. */
static void test_push(void) {
  long k, changed = 0, leaks = 0, bad = 0, refused = 0;
  for (k = 1; k < 200; k++) {
    counting c = {0, 0, 0};
    cg_alloc A = {counting_alloc, &c};
    cg_error e;
    cg_tape *t = cg_tape_new(&A);
    uint32_t loc[3] = {0, 0, 0};
    double v = 2.0;
    int i, rc = CG_OK;
    if (!t) break;
    c.calls = 0, c.fail_at = k; /* counted from the first push on */
    for (i = 0; i < 3000 && rc == CG_OK; i++) {
      size_t nops = t->nops, nlocs = t->nlocs, nvals = t->nvals;
      uint64_t nstore = t->nstore, nind = t->n_indep;
      loc[0] = (uint32_t)(i % 50), loc[1] = (uint32_t)(i % 7);
      if (i == 0) rc = cg_tape_push(t, CG_OP_assign_ind, loc, 1, NULL, 0, &e);
      else rc = cg_tape_push(t, CG_OP_mult_d_a, loc, 2, &v, 1, &e);
      if (rc) {
        refused++;
        if (rc != CG_ENOMEM) bad++;
        if (t->nops != nops || t->nlocs != nlocs || t->nvals != nvals || t->nstore != nstore ||
            t->n_indep != nind)
          changed++;
      }
    }
    cg_tape_free(t);
    if (c.live) leaks++;
    if (rc == CG_OK) break; /* 3000 pushes needed fewer than k allocations */
  }
  CHECK(refused > 3);
  CHECK(bad == 0);
  CHECK(changed == 0);
  CHECK(leaks == 0);
}

/* A graph above the memory limit is refused before anything is allocated,
 * with the estimate in the message. */
static void test_mem_limit(void) {
  counting c = {0, 0, 0};
  cg_alloc A = {counting_alloc, &c};
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "oom.txt", TEXT, &e);
  cg_gopts o;
  cg_graph *g;
  long calls;
  CHECK(t != NULL);
  if (!t) return;
  cg_gopts_default(&o);
  CHECK(o.mem_limit == 0);
  o.mem_limit = cg_graph_estimate(t) - 1;
  calls = c.calls;
  g = cg_graph_build(&A, t, NULL, &o, &e);
  CHECK(g == NULL && e.code == CG_ENOMEM && c.calls == calls);
  CHECK(strstr(e.msg, "MiB") != NULL && strstr(e.msg, "memory limit") != NULL);
  o.mem_limit = cg_graph_estimate(t);
  g = cg_graph_build(&A, t, NULL, &o, &e);
  CHECK(g != NULL);
  cg_graph_free(g);
  CHECK(c.live == 0);
  cg_tape_free(t);
}

int main(void) {
  test_pipeline();
  test_push();
  test_mem_limit();
  printf("test_oom: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
