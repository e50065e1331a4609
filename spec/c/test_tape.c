/* test_tape.c: C unit tests of the tape layer: canonical records, classic and
 * text round trips, and every allocation failing in turn (clean error, no
 * leak).  Prints "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tape/cg_tape.h"
#include "check.h"



static const char *TEXT =
    "assign_ind 1 1.0\nassign_ind 2 2.0\nassign_d 3 3.0\nplus_a_a 5 1 2\n"
    "assign_a 4 5\ndeath_not 5 5\nmult_a_d 5 4 2.0\ndeath_not 5 5\n"
    "div_d_a 5 1 3.0\nsqrt_op 5 5\nsin_op 6 7 5\ntake_stock_op 3 8 0.5 1.5 2.5\n"
    "plus_a_a 9 6 10\nassign_dep 5\nassign_dep 9\n";

static void test_values(void) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "t.txt", TEXT, &e);
  double y[2];
  CHECK(t != NULL);
  if (!t) return;
  CHECK(t->nops == 15 && t->n_indep == 2 && t->n_dep == 2 && t->nstore == 11);
  CHECK(cg_tape_forward(t, NULL, y, NULL, &e) == CG_OK);
  CHECK(y[0] == sqrt(3.0 / 1.0));
  CHECK(y[1] == sin(sqrt(3.0)) + 2.5);
  cg_tape_free(t);
}

static void test_roundtrip(void) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "t.txt", TEXT, &e), *c;
  cg_tape_iter a, b;
  cg_rec ra, rb;
  int same = 1;
  CHECK(t && cg_write_classic(t, "spec-c-rt.tap", &e) == CG_OK);
  c = cg_tape_load(NULL, "spec-c-rt.tap", &e);
  CHECK(c != NULL);
  if (!t || !c) return;
  cg_tape_iter_init(&a, t);
  cg_tape_iter_init(&b, c);
  while (cg_tape_iter_next(&a, &ra)) {
    if (!cg_tape_iter_next(&b, &rb) || ra.op != rb.op || ra.nloc != rb.nloc ||
        ra.nval != rb.nval || memcmp(ra.loc, rb.loc, ra.nloc * 4) ||
        memcmp(ra.val, rb.val, ra.nval * 8))
      same = 0;
  }
  CHECK(same && !cg_tape_iter_next(&b, &rb));
  CHECK(c->has_x0 && c->x0[0] == 1.0 && c->x0[1] == 2.0);
  cg_tape_free(t);
  cg_tape_free(c);
  remove("spec-c-rt.tap");
}

/* Every allocation of reading, writing, loading and statistics fails in turn. */
static void test_oom(void) {
  long k, failures = 0, leaks = 0, bad = 0;
  for (k = 1; k < 400; k++) {
    counting c = {0, k, 0};
    cg_alloc A = {counting_alloc, &c};
    cg_error e;
    cg_stats s;
    cg_tape *t = check_tape_text(&A, "t.txt", TEXT, &e), *u = NULL;
    int ok = t != NULL;
    if (!t && e.code != CG_ENOMEM) bad++;
    if (t) {
      if (cg_write_classic(t, "spec-c-oom.tap", &e)) bad++;
      u = cg_tape_load(&A, "spec-c-oom.tap", &e);
      if (!u && e.code != CG_ENOMEM) bad++;
      if (cg_tape_stats(&A, "spec-c-oom.tap", &s, &e) && e.code != CG_ENOMEM) bad++;
      ok = ok && u;
    }
    cg_tape_free(u);
    cg_tape_free(t);
    if (c.live != 0) leaks++;
    if (!ok) failures++;
    if (c.calls < k) break; /* the whole run needed fewer than k allocations */
  }
  remove("spec-c-oom.tap");
  CHECK(failures > 10); /* the loop did reach the failing allocations */
  CHECK(leaks == 0);
  CHECK(bad == 0);
}

static void test_push_unchanged_on_error(void) {
  cg_error e;
  cg_tape *t = cg_tape_new(NULL);
  uint32_t loc[3] = {1, 2, 3};
  size_t n;
  CHECK(cg_tape_push(t, CG_OP_assign_ind, loc, 1, NULL, 0, &e) == CG_OK);
  n = t->nops;
  CHECK(cg_tape_push(t, CG_OP_plus_a_a, loc, 2, NULL, 0, &e) == CG_EFORMAT);
  CHECK(cg_tape_push(t, CG_OP_end_of_tape, loc, 0, NULL, 0, &e) == CG_EFORMAT);
  CHECK(cg_tape_push(t, 200, loc, 0, NULL, 0, &e) == CG_EFORMAT);
  CHECK(t->nops == n && t->n_indep == 1);
  cg_tape_free(t);
}

int main(void) {
  test_values();
  test_roundtrip();
  test_oom();
  test_push_unchanged_on_error();
  printf("test_tape: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
