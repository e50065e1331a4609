#define _POSIX_C_SOURCE 200809L /* open_memstream */
/* test_oom.c: every allocation of the pipeline fails in turn (issue 6):
 * reading a tape, building its graph, linearizing, eliminating (Markowitz),
 * the Jacobian's arrays; then the same for edge and face elimination, a
 * copy and the .cg reader.  Each failure must give CG_ENOMEM and an "out of
 * memory" message, leak nothing (a counting allocator), and leave a refused
 * operation's object unchanged: a tape a record could not be pushed onto, a
 * linearized graph an elimination step could not complete (same invariants,
 * same Jacobian).  A byte budget (cg_budget, the binding's memory limit)
 * refuses what would pass its limit, and an elimination stops before a step
 * whose fill would.  Prints "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elim/cg_lin.h"
#include "graph/cg_gtape.h"
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
  long failures, leaks, bad_code, broken, changed, bad_msg;
} tally;

/* A failure's code and message: CG_ENOMEM, saying so. */
static void tally_failure(tally *T, int rc, const cg_error *e) {
  T->failures++;
  if (rc != CG_ENOMEM || e->code != CG_ENOMEM) T->bad_code++;
  else if (!strstr(e->msg, "out of memory") && T->bad_msg++ == 0)
    fprintf(stderr, "test_oom: message without 'out of memory': %s\n", e->msg);
}

/* A graph left by a refused operation: valid, with the reference Jacobian
 * (by a forward sweep: intermediates may be left). */
static void tally_graph(tally *T, cg_lin *lg, counting *c, const cg_jac *ref) {
  cg_jac J;
  cg_error e;
  c->fail_at = 0;
  memset(&J, 0, sizeof J);
  if (cg_lin_check(lg, &e) != CG_OK || cg_lin_jac_forward(lg, &J, &e) != CG_OK) T->broken++;
  else if (!same_jac(&J, ref)) T->changed++;
  cg_jac_free(lg->A, &J);
}

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
  if (!rc) { /* the Jacobian's arrays */
    cg_jac J;
    rc = cg_lin_jac_bipartite(lg, &J, &e);
    if (!rc && !same_jac(&J, ref)) T->changed++;
    if (!rc) cg_jac_free(&A, &J);
  }
  if (rc) tally_failure(T, rc, &e);
  if (rc && lg) tally_graph(T, lg, &c, ref); /* a refused step leaves the same Jacobian */
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
  tally T = {0, 0, 0, 0, 0, 0};
  long k;
  memset(&ref, 0, sizeof ref);
  CHECK(reference(&ref) == CG_OK);
  for (k = 1; k < 100000; k++)
    if (pipeline_once(k, &ref, &T)) break;
  printf("test_oom: %ld allocations failed in turn\n", k - 1);
  CHECK(T.failures == k - 1); /* every failure was noticed */
  CHECK(T.failures > 50);
  CHECK(T.bad_code == 0);
  CHECK(T.bad_msg == 0);
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

/* The stages after linearization, one at a time, with the k-th of their
 * allocations failing: 0 edge elimination, 1 face elimination (each then
 * the Jacobian's arrays), 2 a copy, 3 reading the graph's .cg text, 4 its
 * EliAD text (the readers' messages name the file and line). */
static const char *const STAGE[] = {"edges", "faces", "copy", "read_cg", "read_eliad"};
enum { NSTAGES = 5 };

static int stage_run(int stage, cg_lin *lg, const char *const *text, cg_error *e) {
  cg_xorder o;
  cg_lin *x = NULL;
  cg_jac J;
  int rc;
  memset(&o, 0, sizeof o);
  o.nrules = 1, o.rule[0].kind = CG_ORD_MARKOWITZ;
  if (stage >= 2) {
    x = stage == 2   ? cg_lin_copy(lg, e)
        : stage == 3 ? cg_lin_read_cg(lg->A, "oom.cg", text[0], strlen(text[0]), e)
                     : cg_lin_read_eliad(lg->A, "oom.eliad", text[1], strlen(text[1]), e);
    cg_lin_free(x);
    if (!x && stage >= 3 &&
        strncmp(e->msg, stage == 3 ? "oom.cg:" : "oom.eliad:", stage == 3 ? 7 : 10) != 0)
      return CG_ERUNTIME; /* counted as a bad code: the message lacks FILE:LINE */
    return x ? CG_OK : e->code;
  }
  rc = stage ? cg_lin_eliminate_faces(lg, &o, NULL, NULL, e)
             : cg_lin_eliminate_edges(lg, &o, NULL, NULL, e);
  if (!rc && !(rc = cg_lin_jac_bipartite(lg, &J, e))) cg_jac_free(lg->A, &J);
  return rc;
}

/* One run of a stage with its k-th allocation failing; 1 when it needed
 * fewer than k. */
static int stage_once(int stage, long k, const char *const *text, const cg_jac *ref,
                      tally *T) {
  counting c = {0, 0, 0};
  cg_alloc A = {counting_alloc, &c};
  cg_error e;
  cg_tape *t = check_tape_text(&A, "oom.txt", TEXT, &e);
  cg_graph *g = t ? cg_graph_build(&A, t, NULL, NULL, &e) : NULL;
  cg_lin *lg = g ? cg_lin_from_graph(g, &e) : NULL;
  int rc;
  if (!lg) {
    T->broken++;
    return 1;
  }
  c.calls = 0, c.fail_at = k;
  rc = stage_run(stage, lg, text, &e);
  if (rc) tally_failure(T, rc, &e);
  if (rc) tally_graph(T, lg, &c, ref);
  cg_lin_free(lg);
  cg_graph_free(g);
  cg_tape_free(t);
  if (c.live != 0 && ++T->leaks == 1)
    fprintf(stderr, "test_oom: %s: allocation %ld: %lld bytes leaked\n", STAGE[stage], k, c.live);
  return c.calls < k;
}

static void test_stages(void) {
  cg_jac ref;
  int stage;
  char *text[2] = {NULL, NULL};
  size_t len[2] = {0, 0};
  FILE *fp = open_memstream(&text[0], &len[0]), *fq = open_memstream(&text[1], &len[1]);
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "oom.txt", TEXT, &e);
  cg_graph *g = t ? cg_graph_build(NULL, t, NULL, NULL, &e) : NULL;
  cg_lin *lg = g ? cg_lin_from_graph(g, &e) : NULL;
  CHECK(lg != NULL && fp != NULL && fq != NULL);
  if (!lg || !fp || !fq) return;
  cg_lin_write_cg(lg, fp);
  fclose(fp);
  CHECK(cg_lin_write_eliad(lg, fq, &e) == CG_OK);
  fclose(fq);
  memset(&ref, 0, sizeof ref);
  CHECK(reference(&ref) == CG_OK);
  for (stage = 0; stage < NSTAGES; stage++) {
    tally T = {0, 0, 0, 0, 0, 0};
    long k;
    for (k = 1; k < 100000; k++)
      if (stage_once(stage, k, (const char *const *)text, &ref, &T)) break;
    printf("test_oom: %s: %ld allocations failed in turn\n", STAGE[stage], k - 1);
    CHECK(T.failures == k - 1 && T.failures > 3);
    CHECK(T.bad_code == 0);
    CHECK(T.bad_msg == 0);
    CHECK(T.leaks == 0);
    CHECK(T.broken == 0);
    CHECK(T.changed == 0);
  }
  cg_jac_free(NULL, &ref);
  free(text[0]);
  free(text[1]);
  cg_lin_free(lg);
  cg_graph_free(g);
  cg_tape_free(t);
}

/* The budget counts the bytes of its blocks, refuses a request past its
 * limit (setting hit), and always lets frees and shrinks through. */
static void test_budget(void) {
  counting c = {0, 0, 0};
  cg_alloc base = {counting_alloc, &c}, A;
  cg_budget b;
  char *p, *q;
  cg_budget_init(&b, base, 1000, &A);
  CHECK(cg_budget_of(&A) == &b && cg_alloc_limit(&A) == 1000 && cg_budget_of(&base) == NULL);
  p = (char *)cg_malloc(&A, 600);
  CHECK(p != NULL && b.used == 600 && !b.hit);
  q = (char *)cg_malloc(&A, 401); /* 1001 > 1000 */
  CHECK(q == NULL && b.hit && b.used == 600 && c.calls == 1);
  b.hit = 0;
  q = (char *)cg_realloc(&A, p, 600, 1000);
  CHECK(q != NULL && b.used == 1000);
  p = (char *)cg_realloc(&A, q, 1000, 1001);
  CHECK(p == NULL && b.hit && b.used == 1000);
  p = (char *)cg_realloc(&A, q, 1000, 10); /* shrinking passes */
  CHECK(p != NULL && b.used == 10);
  b.limit = 5; /* below what is held: growth refused, frees pass */
  CHECK(cg_realloc(&A, p, 10, 11) == NULL);
  cg_free(&A, p, 10);
  CHECK(b.used == 0 && c.live == 0);
  b.limit = 0; /* none */
  p = (char *)cg_malloc(&A, 1 << 20);
  CHECK(p != NULL);
  cg_free(&A, p, 1 << 20);
}

/* N independents -> hub -> N dependents: eliminating the hub makes N * N
 * edges.  Under a budget with room for the graph but not for that fill,
 * the step is refused before it starts (the fill check, no allocation
 * refused) and the graph is unchanged; edge and face elimination stop too,
 * the budget saying it was the limit. */
static void test_fill_stop(void) {
  enum { NX = 60 };
  cg_budget b;
  cg_alloc A;
  cg_error e;
  cg_lin *g;
  cg_order o;
  cg_xorder xo;
  uint32_t i, x[NX], y[NX], hub = NX;
  uint64_t edges;
  cg_budget_init(&b, *cg_default_alloc(), 0, &A);
  g = cg_lin_new(&A, 2 * NX + 1, &e);
  CHECK(g != NULL);
  if (!g) return;
  for (i = 0; i < NX; i++) {
    int created;
    x[i] = i, y[i] = NX + 1 + i;
    cg_lin_add(g, i, hub, 1.0 + i, CG_E_VAR, &created);
    cg_lin_add(g, hub, NX + 1 + i, 2.0 + i, CG_E_VAR, &created);
  }
  CHECK(cg_lin_set_xy(g, x, NX, y, NX, &e) == CG_OK);
  edges = g->nedges;
  b.limit = b.used + 30000; /* the runs' arrays fit; the fill, NX * NX edges, about 130 KiB, not */
  order_markowitz(&o);
  CHECK(cg_lin_eliminate(g, &o, NULL, NULL, NULL, &e) == CG_ENOMEM);
  CHECK(b.hit && strstr(e.msg, "eliminating vertex 61 could make 3720 edges") != NULL);
  CHECK(strstr(e.msg, "over the memory limit of") != NULL);
  CHECK(g->nedges == edges && g->kind[hub] == CG_V_INTER && cg_lin_check(g, &e) == CG_OK);
  b.hit = 0;
  memset(&xo, 0, sizeof xo);
  xo.nrules = 1, xo.rule[0].kind = CG_ORD_FORWARD;
  CHECK(cg_lin_eliminate_edges(g, &xo, NULL, NULL, &e) == CG_ENOMEM && b.hit);
  CHECK(cg_lin_check(g, &e) == CG_OK); /* partly eliminated: an allocation of the run or the
                                          * fill check may stop it first, either sets hit */
  b.hit = 0;
  edges = g->nedges;
  CHECK(cg_lin_eliminate_faces(g, &xo, NULL, NULL, &e) == CG_ENOMEM && b.hit);
  CHECK(cg_lin_check(g, &e) == CG_OK && g->nedges == edges); /* unchanged */
  b.limit = 0;
  CHECK(cg_lin_eliminate(g, &o, NULL, NULL, NULL, &e) == CG_OK && g->nedges == NX * NX);
  cg_lin_free(g);
  CHECK(b.used == 0);
}

/* A hub graph (NX independents -> 1 -> NX dependents, structural weights)
 * whose bipartite graph has more edges than it: reading it off after face
 * elimination needs new edges and list room.  With the k-th allocation of
 * the run failing, the graph is left as it was (it used to be left with its
 * edges removed and part of the new ones added). */
static cg_lin *hub_graph(cg_alloc *A, uint32_t nx) {
  cg_error e;
  cg_lin *g = cg_lin_new(A, 2 * nx + 1, &e);
  uint32_t i, x[8], y[8];
  int created;
  if (!g) return NULL;
  for (i = 0; i < nx; i++) {
    x[i] = i, y[i] = nx + 1 + i;
    cg_lin_add(g, i, nx, 1.0 + i, CG_E_VAR, &created);
    cg_lin_add(g, nx, nx + 1 + i, 2.0 - i, CG_E_VAR, &created);
  }
  cg_lin_set_xy(g, x, nx, y, nx, &e);
  return g;
}

static void test_face_read_off(void) {
  cg_jac ref;
  cg_error e;
  cg_xorder o;
  cg_lin *g0 = hub_graph(NULL, 4);
  tally T = {0, 0, 0, 0, 0, 0};
  long k;
  memset(&ref, 0, sizeof ref);
  CHECK(g0 && cg_lin_jac_forward(g0, &ref, &e) == CG_OK);
  cg_lin_free(g0);
  memset(&o, 0, sizeof o);
  o.nrules = 1, o.rule[0].kind = CG_ORD_FORWARD;
  for (k = 1; k < 10000; k++) {
    counting c = {0, 0, 0};
    cg_alloc A = {counting_alloc, &c};
    cg_lin *g = hub_graph(&A, 4);
    int rc;
    if (!g) break;
    c.calls = 0, c.fail_at = k;
    rc = cg_lin_eliminate_faces(g, &o, NULL, NULL, &e);
    if (rc) tally_failure(&T, rc, &e);
    if (rc) tally_graph(&T, g, &c, &ref);
    cg_lin_free(g);
    if (c.live) T.leaks++;
    if (!rc) break;
  }
  CHECK(T.failures == k - 1 && T.failures > 10);
  CHECK(T.bad_code == 0 && T.leaks == 0 && T.broken == 0);
  CHECK(T.changed == 0);
  cg_jac_free(NULL, &ref);
}

int main(void) {
  test_budget();
  test_fill_stop();
  test_pipeline();
  test_stages();
  test_face_read_off();
  test_push();
  test_mem_limit();
  printf("test_oom: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
