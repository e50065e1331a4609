/* test_progress.c: the core's progress hook (cg_progress on the budget,
 * cg_util.h).  A chain of 140000 products read from a text tape, built,
 * linearized and eliminated by Markowitz under a budget with a hook must
 * reach the hook for each stage ("reading tape", "building graph",
 * "linearizing", "eliminating") with done values that never go back, at
 * least one report between the first and the last (the loops report every
 * 2^16 units), and a last report with done == total (the end); the same
 * work under a budget without a hook, and with no budget at all, must give
 * the same results and never reach it. */
#include "check.h"
#include "elim/cg_lin.h"
#include "graph/cg_graph.h"
#include "graph/cg_gtape.h"

#define NCHAIN 140000
#define NSTAGE 4

static const char *const stage_name[NSTAGE] = {"reading tape", "building graph", "linearizing",
                                               "eliminating"};

/* What the hook saw per stage. */
typedef struct seen {
  long calls[NSTAGE], ends[NSTAGE], other;
  uint64_t last[NSTAGE];
  int backwards, after_end;
} seen;

static void hook(void *ud, const char *what, uint64_t done, uint64_t total) {
  seen *s = (seen *)ud;
  int k;
  for (k = 0; k < NSTAGE && strcmp(what, stage_name[k]); k++) continue;
  if (k == NSTAGE) {
    s->other++;
    return;
  }
  if (s->ends[k]) s->after_end = 1;
  if (s->calls[k] && done < s->last[k]) s->backwards = 1;
  s->calls[k]++;
  s->last[k] = done;
  if (done == total) s->ends[k]++;
}

/* y = (x0 + x1) * x2 * x3 * x0 * ... : NCHAIN products, one intermediate each. */
static char *chain_text(void) {
  size_t cap = (size_t)NCHAIN * 24 + 256, n = 0;
  char *s = (char *)malloc(cap);
  int i;
  if (!s) return NULL;
  n += (size_t)snprintf(s + n, cap - n, "assign_ind 0 1.5\nassign_ind 1 0.5\nassign_ind 2 1.0\n"
                                        "assign_ind 3 -1.0\nplus_a_a 4 0 1\n");
  for (i = 0; i < NCHAIN; i++) n += (size_t)snprintf(s + n, cap - n, "mult_a_a 4 4 %d\n", i % 4);
  snprintf(s + n, cap - n, "assign_dep 4\n");
  return s;
}

/* Reads, builds, linearizes and eliminates under A; the multiplications
 * counted (0 on a failure). */
static uint64_t run(cg_alloc *A, const char *text) {
  cg_error e;
  cg_gopts go;
  cg_order o;
  cg_cost c;
  cg_tape *t = check_tape_text(A, "chain.txt", text, &e);
  cg_graph *g = NULL;
  cg_lin *lg = NULL;
  uint64_t mults = 0;
  memset(&o, 0, sizeof o);
  memset(&c, 0, sizeof c);
  o.nrules = 1, o.rule[0].kind = CG_ORD_MARKOWITZ;
  cg_gopts_default(&go);
  if (t) g = cg_graph_build(A, t, t->x0, &go, &e);
  if (g) lg = cg_lin_from_graph(g, &e);
  if (lg && cg_lin_eliminate(lg, &o, &c, NULL, NULL, &e) == CG_OK) mults = c.mults;
  if (!mults) fprintf(stderr, "test_progress: %s\n", e.msg);
  cg_lin_free(lg);
  cg_graph_free(g);
  cg_tape_free(t);
  return mults;
}

int main(void) {
  char *text = chain_text();
  cg_budget b;
  cg_alloc A;
  seen s;
  uint64_t with, without, plain;
  int k;
  CHECK(text != NULL);
  if (!text) return check_report("test_progress");
  memset(&s, 0, sizeof s);
  cg_budget_init(&b, *cg_default_alloc(), 0, &A);
  CHECK(b.progress.fn == NULL); /* cg_budget_init: no hook */
  b.progress.fn = hook, b.progress.ud = &s;
  with = run(&A, text);
  CHECK(with > 0);
  for (k = 0; k < NSTAGE; k++) {
    CHECK(s.calls[k] >= 3); /* the start, 2^16 and 2^17 units, the end */
    CHECK(s.ends[k] == 1);
    if (s.calls[k] < 3 || s.ends[k] != 1) fprintf(stderr, "stage %s: %ld calls, %ld ends\n",
                                                  stage_name[k], s.calls[k], s.ends[k]);
  }
  CHECK(s.last[1] >= NCHAIN && s.last[3] >= NCHAIN); /* every record built, every product eliminated */
  CHECK(!s.backwards);
  CHECK(!s.after_end);
  CHECK(s.other == 0);
  memset(&s, 0, sizeof s);
  b.progress.fn = NULL; /* a budget without a hook */
  without = run(&A, text);
  plain = run(NULL, text); /* no budget */
  CHECK(without == with && plain == with);
  for (k = 0; k < NSTAGE; k++) CHECK(s.calls[k] == 0);
  CHECK(b.used == 0); /* everything freed through the budget */
  free(text);
  return check_report("test_progress");
}
