/*
 * cg_gbuild.h: the graph-building interface.  Every graph is made through it:
 * the tape reader is one driver (cg_gtape.h), a kernel flattener or the Lua
 * binding (cgwb.graph_builder) are others, and the rules of Bischof & Hu 1991,
 * sec. 2 (assignment removal 2.2, hoisting 2.3 with recovered hoists, dead
 * roots 2.4, lazy constants, guards, unlinking) live behind it, so every
 * driver gets them and no later stage can tell where a graph came from.
 *
 * The model is the tape's: the front end has *locations* (its variables,
 * integers >= 0 it chooses), and the builder keeps a live table mapping each
 * location to the node holding its current value.  An operation makes a node
 * from the nodes of its input locations and installs it at its output
 * location; the node that was there loses a live reference, and a node with
 * none left is complete (it can gain no parent): then it is hoisted into its
 * only parent or removed as a dead root.  Reading a location never written
 * is allowed: it reads a zero constant flagged uninitialized, counted in
 * cg_gstats.bogus, with a warning in the built graph (Bischof & Hu's
 * bogus_node).
 *
 * Errors.  Every verb returns CG_OK or a status and sets the cg_error given
 * to cg_gbuild_begin (which must outlive the builder).  Bad arguments (an
 * operation that is not one, a wrong operand count, a location >= 2^32 - 2,
 * an unknown guard kind) return CG_EUSAGE and leave the builder as it was;
 * running out of memory returns CG_ENOMEM and leaves the builder failed: every
 * later verb returns the same status, and cg_gbuild_finish returns NULL.
 * Messages name where the problem is: "FILE:LINE:COL: ..." under a source
 * origin, "NAME: record N: ..." under a record origin, else "NAME: ...".
 *
 * Costs.  Each verb costs O(1) amortized, plus the work of the nodes it
 * completes (a hoist is O(1); a dead-root removal is linear in the nodes it
 * removes, each removed once), plus, for a location past the live table,
 * growing the table (geometrically; O(1) amortized per location).
 */
#ifndef CG_GBUILD_H
#define CG_GBUILD_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include "cg_graph.h"

typedef struct cg_gbuild cg_gbuild;

/* Sizes the front end expects (0: not known; the arrays then start small and
 * grow) and the name messages give when there is no source origin. */
typedef struct cg_ghints {
  const char *name;   /* e.g. the front end's file; NULL: "graph" */
  uint64_t ops;       /* operations (sizes the node and operation pools) */
  uint64_t locs;      /* locations (sizes the live table) */
  uint32_t n_indep, n_dep;
} cg_ghints;

/* Starts a graph.  A: the allocator (NULL: malloc); o: the switches (NULL:
 * cg_gopts_default; mem_limit is checked against the estimate from the
 * hints); values: whether the independents' values are given, so every node
 * gets its value at that point (same arithmetic as the tape: cg_gops.h);
 * h: NULL or the hints.  Returns NULL with CG_ENOMEM on failure.  O(h->locs). */
cg_gbuild *cg_gbuild_begin(cg_alloc *A, const cg_gopts *o, int values, const cg_ghints *h,
                           cg_error *e);

/* Names a source file for origins; *id is its index in the built graph's
 * file[] (the same name given twice gets the same id).  O(files). */
int cg_gbuild_file(cg_gbuild *b, const char *name, uint32_t *id);

/* The origin of what the following verbs make (nodes, guards) until the next
 * call: a tape record or a source position (o->file from cg_gbuild_file;
 * CG_EUSAGE otherwise).  The built graph keeps every guard's origin
 * (cg_graph.guard_origin; a record origin also in cg_guard.record), and once
 * a source origin has been given, every node's (cg_graph.origin: kept as runs
 * of nodes while building, so a node costs nothing more; the tape driver
 * keeps none).  An origin is one statement of the front end: cg_gstats.tape_ops
 * counts statements (the first verb after each origin; with no origin ever
 * given, every verb), as death notices when that verb is cg_gbuild_unlink. */
int cg_gbuild_origin(cg_gbuild *b, const cg_origin *o);

/* The next independent (numbered in call order) at location loc, with its
 * value (ignored without values).  Independents are never removed. */
int cg_gbuild_independent(cg_gbuild *b, uint64_t loc, double value);

/* loc = c.  With dead-root removal on, the node is made when loc is first
 * read (a constant overwritten unread costs no slot: lazy constants). */
int cg_gbuild_constant(cg_gbuild *b, uint64_t loc, double c);

/* out = g(c; in[0..nin)): a node for graph operation g of cg_gops.h with
 * constant c (ignored unless the operation has one), nin = its arity.  The
 * inputs are read in order before out is written (out may be an input).
 * CG_G_INDEP and CG_G_CONST are refused (use the verbs above); CG_G_COPY
 * makes a copy node whatever the switches say (cg_gbuild_assign aliases). */
int cg_gbuild_op(cg_gbuild *b, uint64_t out, unsigned g, double c, const uint64_t *in,
                 unsigned nin);

/* r = a: with assignment removal on, r aliases a's node (Bischof & Hu 1991,
 * sec. 2.2: counted in cg_gstats.assign_removed); off, a copy node. */
int cg_gbuild_assign(cg_gbuild *b, uint64_t r, uint64_t a);

/* A guard on the value at loc: kind is CG_GUARD_EQ_ZERO .. CG_GUARD_LT_ZERO,
 * the comparison that held when the graph was recorded, or CG_GUARD_VALUE, an
 * index whose integer part must stay (taped: its value; with values the
 * node's own value is kept instead).  The node is kept (never hoisted nor
 * removed).  With guards off (cg_gopts.guards), nothing is kept. */
int cg_gbuild_guard(cg_gbuild *b, uint64_t loc, unsigned kind, double taped);

/* The value at loc at the build point (for a front end that resolves
 * subscripts itself: then guard it with CG_GUARD_VALUE).  CG_EUSAGE without
 * values. */
int cg_gbuild_value(cg_gbuild *b, uint64_t loc, double *v);

/* The value at loc is the next dependent (numbered in call order; a node may
 * be several dependents).  Dependents are never removed nor hoisted. */
int cg_gbuild_dependent(cg_gbuild *b, uint64_t loc);

/* Locations lo..hi die (what a tape's death notice does): their nodes lose
 * their live references and may complete.  lo > hi unlinks nothing.  The
 * cost is that of the locations in lo..hi the live table holds. */
int cg_gbuild_unlink(cg_gbuild *b, uint64_t lo, uint64_t hi);

/* Completes every live node, then numbers the surviving nodes in creation
 * order (a topological order) into a new graph with its statistics; frees
 * the builder in every case.  NULL on failure (the builder failed before, or
 * memory ran out: cg_error says which).  O(nodes made + locations). */
cg_graph *cg_gbuild_finish(cg_gbuild *b);

/* Frees a builder without making a graph (NULL: nothing). */
void cg_gbuild_abort(cg_gbuild *b);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
