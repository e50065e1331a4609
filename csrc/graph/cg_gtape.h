/*
 * cg_gtape.h: graphs and tapes, the tape reader's driver of the
 * graph-building interface (cg_gbuild.h) and the way back.  The only header of
 * csrc/graph/ that includes the tape's: a front end that does not read tapes
 * (csrc/kernel/) includes cg_graph.h and cg_gbuild.h alone.
 */
#ifndef CG_GTAPE_H
#define CG_GTAPE_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include "../tape/cg_tape.h"
#include "cg_graph.h"

/* Builds the graph of a tape (one pass, Bischof & Hu 1991, sec. 2.1).  x: the point
 * (n_indep values) or NULL for the tape's own x0; without either the graph
 * has no values, and tapes whose structure depends on values (subscripts,
 * references) are refused.  A build whose estimate (cg_graph_estimate)
 * exceeds o->mem_limit is refused at once with CG_ENOMEM and a message giving
 * the estimate.  Built at x, g->branch reports the branch records and
 * conditionals whose outcome at x differs from taping (first: the 0-based
 * record), as cg_tape_forward counts them: the graph is that of the recorded
 * branch, so values and derivatives from it are not f's at x when the count is
 * not 0.  Each record drives the verbs of cg_gbuild.h (the common ones through
 * the same engine functions, inlined: cg_build.c), so the graph is the one a
 * record-by-record driver of the interface builds.  Guards keep their record
 * (cg_guard.record); nodes have no origins.  Cost O(records); memory about
 * cg_graph_estimate bytes. */
cg_graph *cg_graph_build(cg_alloc *A, const cg_tape *t, const double *x, const cg_gopts *o,
                         cg_error *e);

/* Peak bytes building the graph of t takes, estimated from its record and
 * location counts (an upper bound for tapes without vector operations). */
uint64_t cg_graph_estimate(const cg_tape *t);

/* Writes the graph back as a tape (Table 3): one location per live value,
 * reused once its last parent has read it.  counts: records and bytes. */
cg_tape *cg_graph_to_tape(const cg_graph *g, cg_error *e);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
