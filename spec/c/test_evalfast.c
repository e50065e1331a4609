/* test_evalfast.c: the debug check of graph evaluation's inline values
 * (cg_graph.c, check_value) fires when an inline case drifts from its row
 * of the operation table (cg_gops.h).  cg_graph.c is compiled into this
 * test with its hook CG_EVAL_SKEW adding `skew` to the inline value of a
 * mulc head: with skew 0 the graph evaluates to the row's value; with skew
 * 1e-3, in a child process, the run stops (abort) naming the node.  The
 * check is compiled in unless NDEBUG, as in the debug build.
 * Prints "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double skew;
#define CG_EVAL_SKEW(x) ((x) + skew)
#include "graph/cg_graph.c"
#include "graph/cg_gtape.h"
#include "check.h"
#include "drift.h"

static const char *TEXT = "assign_ind 0 0.5\nmult_a_d 1 0 3\nassign_dep 1\n";

/* Builds TEXT's graph and evaluates it at its point into *y. */
static int evaluate(double *y) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "evalfast.txt", TEXT, &e);
  cg_graph *g = t ? cg_graph_build(NULL, t, NULL, NULL, &e) : NULL;
  int rc = g ? cg_graph_eval(g, NULL, NULL, y, NULL, &e) : e.code;
  if (rc) fprintf(stderr, "evalfast: %s\n", e.msg);
  cg_graph_free(g);
  if (t) cg_tape_free(t);
  return rc;
}

static void test_agrees(void) {
  double y = 0;
  skew = 0;
  CHECK(evaluate(&y) == CG_OK && y == 1.5);
}

/* The run with the inline copy skewed (in drift.h's child). */
static void drifted(void) {
  double y;
  skew = 1e-3;
  evaluate(&y);
}

static void test_drift_stops(void) { check_drift_aborts(drifted, "cg_graph.c: node 1 (mulc): the inline value"); }

int main(void) {
  test_agrees();
  test_drift_stops();
  return check_report("test_evalfast");
}
