/* test_linfast.c: the debug check of the linearizer's inline partials
 * (cg_linearize.c, check_node) fires when an inline copy drifts from its
 * row of the operation table (cg_gops.h).  The linearizer is compiled into
 * this test (not taken from the library) with its hook CG_LIN_SKEW adding
 * `skew` to the inline partial of a mulc head: with skew 0 the graph
 * linearizes to the row's weight; with skew 1e-3, in a child process, the
 * run stops (abort) naming the node and the table.  The check is compiled
 * in unless NDEBUG, as in the debug build. Prints "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double skew;
#define CG_LIN_SKEW(x) ((x) + skew)
#include "elim/cg_linearize.c"
#include "graph/cg_gtape.h"
#include "check.h"
#include "drift.h"

static const char *TEXT = "assign_ind 0 0.5\nmult_a_d 1 0 3\nassign_dep 1\n";

/* The linearized graph of TEXT (NULL on an error, reported). */
static cg_lin *linearize(cg_graph **gp) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "linfast.txt", TEXT, &e);
  cg_graph *g = t ? cg_graph_build(NULL, t, NULL, NULL, &e) : NULL;
  cg_lin *lg = g ? cg_lin_from_graph(g, &e) : NULL;
  if (!lg) fprintf(stderr, "linfast: %s\n", e.msg);
  if (t) cg_tape_free(t);
  *gp = g;
  return lg;
}

static void test_agrees(void) {
  cg_graph *g;
  cg_lin *lg;
  skew = 0;
  lg = linearize(&g);
  CHECK(lg != NULL);
  if (lg) {
    CHECK(lg->nedges == 1 && lg->w[0] == 3 && lg->mark[0] == CG_E_CONST);
    cg_lin_free(lg);
  }
  if (g) cg_graph_free(g);
}

/* The run with the inline copy skewed (in drift.h's child). */
static void drifted(void) {
  cg_graph *g;
  skew = 1e-3;
  linearize(&g);
}

static void test_drift_stops(void) { check_drift_aborts(drifted, "cg_linearize.c: node 1 (mulc): partial 0"); }

int main(void) {
  test_agrees();
  test_drift_stops();
  return check_report("test_linfast");
}
