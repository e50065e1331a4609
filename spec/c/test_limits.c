/* test_limits.c: depth limits (issue 6).  A chain of 10^7 unary records on
 * one location (10^6 under AddressSanitizer, whose shadow memory makes the
 * full size slow) is built, evaluated, linearized and eliminated: hoisted
 * (one supernode of 10^7 operations) and not (10^7 nodes, built and
 * evaluated; linearized and eliminated at a fifth of the length, which keeps
 * the test near 15 s: 10^7 takes about 21 s more, measured).  No stage may
 * recurse along the chain: 8 MiB of stack overflows near 10^5 frames.
 * Prints "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elim/cg_lin.h"
#include "graph/cg_gtape.h"
#include "tape/cg_tape.h"
#include "check.h"

#if defined(__SANITIZE_ADDRESS__)
#define CHAIN 1000000u
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CHAIN 1000000u
#endif
#endif
#ifndef CHAIN
#define CHAIN 10000000u
#endif


/* x; then exp and log in turn on location 0, CHAIN records; y = the result.
 * The value stays near x and the derivative near 1. */
static cg_tape *chain_tape(uint32_t len) {
  cg_error e;
  cg_tape *t = cg_tape_new(NULL);
  uint32_t loc[2] = {0, 0};
  double x = 0.75;
  uint32_t i;
  int rc;
  if (!t) return NULL;
  rc = cg_tape_push(t, CG_OP_assign_ind, loc, 1, NULL, 0, &e);
  for (i = 0; i < len && !rc; i++)
    rc = cg_tape_push(t, i % 2 ? CG_OP_log_op : CG_OP_exp_op, loc, 2, NULL, 0, &e);
  if (!rc) rc = cg_tape_push(t, CG_OP_assign_dep, loc, 1, NULL, 0, &e);
  if (!rc) rc = cg_tape_set_x0(t, &x, 1, &e);
  if (rc) {
    fprintf(stderr, "chain tape: %s\n", e.msg);
    cg_tape_free(t);
    return NULL;
  }
  return t;
}

/* Builds and evaluates; linearizes and eliminates when full is set. */
static void run_chain(const cg_tape *t, uint32_t len, int hoist, int full) {
  cg_error e;
  cg_gopts o;
  cg_graph *g;
  cg_lin *lg = NULL;
  cg_order ord;
  cg_jac J;
  double y = 0;
  cg_gopts_default(&o);
  o.hoist = hoist;
  g = cg_graph_build(NULL, t, NULL, &o, &e);
  CHECK(g != NULL);
  if (!g) {
    fprintf(stderr, "build: %s\n", e.msg);
    return;
  }
  CHECK(hoist ? g->n == 2 : g->n == len + 1);
  CHECK(cg_graph_eval(g, NULL, NULL, &y, NULL, &e) == CG_OK && fabs(y - 0.75) < 1e-6);
  if (!full) {
    cg_graph_free(g);
    return;
  }
  lg = cg_lin_from_graph(g, &e);
  CHECK(lg != NULL);
  memset(&ord, 0, sizeof ord);
  memset(&J, 0, sizeof J);
  ord.rule[0].kind = CG_ORD_MARKOWITZ;
  ord.nrules = 1;
  if (lg) {
    CHECK(cg_lin_eliminate(lg, &ord, NULL, NULL, NULL, &e) == CG_OK);
    CHECK(cg_lin_jac_bipartite(lg, &J, &e) == CG_OK && J.nnz == 1 && fabs(J.val[0] - 1) < 1e-3);
    cg_jac_free(NULL, &J);
  }
  cg_lin_free(lg);
  cg_graph_free(g);
}

int main(void) {
  cg_tape *t = chain_tape(CHAIN);
  CHECK(t != NULL);
  if (t) {
    run_chain(t, CHAIN, 1, 1);
    run_chain(t, CHAIN, 0, CHAIN <= 1000000u);
    cg_tape_free(t);
  }
  if (CHAIN > 1000000u && (t = chain_tape(CHAIN / 5)) != NULL) {
    run_chain(t, CHAIN / 5, 0, 1);
    cg_tape_free(t);
  }
  printf("test_limits: chain of %u records\n", CHAIN);
  printf("test_limits: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
