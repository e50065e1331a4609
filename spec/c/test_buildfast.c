/* test_buildfast.c: the debug check of the graph builder's inline values
 * (cg_build.c, check_built) fires when an inline case of new_node_inl
 * drifts from its row of the operation table (cg_gops.h).  cg_build.c is
 * compiled into this test with its hook CG_BUILD_SKEW adding `skew` to the
 * value the builder gives a mulc node: with skew 0 the built graph holds
 * the row's value; with skew 1e-3, in a child process, the build stops
 * (abort) naming the birth and the operation.  The check is compiled in
 * unless NDEBUG, as in the debug build.  Prints "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double skew;
#define CG_BUILD_SKEW(x) ((x) + skew)
#include "graph/cg_build.c"
#include "check.h"
#include "drift.h"

/* x0 = 0.5, y = 3 * x0: the product is built by the builder's mulc case. */
static const char *TEXT = "assign_ind 0 0.5\nmult_a_d 1 0 3\nassign_dep 1\n";

/* Builds TEXT's graph at its point and gives its dependent's value in *y. */
static int build(double *y) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "buildfast.txt", TEXT, &e);
  cg_graph *g = t ? cg_graph_build(NULL, t, NULL, NULL, &e) : NULL;
  int rc = g ? CG_OK : e.code;
  if (rc) fprintf(stderr, "buildfast: %s\n", e.msg);
  else *y = g->has_val && g->n_dep == 1 ? g->val[g->dep[0]] : -1.0;
  cg_graph_free(g);
  if (t) cg_tape_free(t);
  return rc;
}

static void test_agrees(void) {
  double y = 0;
  skew = 0;
  CHECK(build(&y) == CG_OK && y == 1.5);
}

/* The run with the inline copy skewed (in drift.h's child). */
static void drifted(void) {
  double y;
  skew = 1e-3;
  build(&y);
}

static void test_drift_stops(void) { check_drift_aborts(drifted, "cg_build.c: birth 1 (mulc): the inline value"); }

int main(void) {
  test_agrees();
  test_drift_stops();
  return check_report("test_buildfast");
}
