/*
 * cg_graph.h: the computational graph of Bischof & Hu 1991, sec. 2.
 *
 * A node is a value, not a storage location (Bischof & Hu 1991, sec. 2, Figure 1).
 * Its operation is a chain of graph operations (cg_gop): the first combines
 * the node's children (0 to 3 of them), each further one is unary and applies
 * to the result so far.  Chains longer than one come from hoisting (section
 * 2.3): a supernode.
 *
 * Invariants of a built graph (cg_graph):
 *  - node ids are 0..n-1 and every child has a smaller id than its parents,
 *    so increasing id order is a topological order;
 *  - kids of node v are kids[kid_start[v] .. kid_start[v+1]), in operand
 *    order (a child appears twice in x*x); pars[] lists each parent once per
 *    edge, in increasing id order;
 *  - the chain of v is op[op_start[v] .. op_start[v+1]) with constants opc[];
 *  - indep[i] is the node of the i-th independent, dep[j] that of the j-th
 *    dependent (a node may be several dependents);
 *  - val (when has_val) holds every node's value at the build point,
 *    computed with exactly the operations of the tape, in the same order.
 *  - origin (NULL unless the front end gave source positions, doc/graph.md,
 *    "Building graphs") holds every node's origin, guard_origin every guard's;
 *    their CG_ORIGIN_SOURCE files index file[0 .. n_file).
 * All arrays are index arrays (uint32_t), allocated through the graph's
 * allocator.  Graphs are built by the graph-building interface (cg_gbuild.h),
 * of which the tape reader (cg_gtape.h) is one driver.
 */
#ifndef CG_GRAPH_H
#define CG_GRAPH_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include "cg_gops.h"

/* Node flags */
#define CG_NF_DEP 0x01   /* a dependent */
#define CG_NF_GUARD 0x02 /* read by a guard: kept, never hoisted */
#define CG_NF_BOGUS 0x04 /* stands for a read of an uninitialized location */

/* Where a node or a guard comes from: a tape record, or a position in a
 * source file (the front end's; the file names are kept in the graph). */
enum { CG_ORIGIN_NONE = 0, CG_ORIGIN_RECORD, CG_ORIGIN_SOURCE };
typedef struct cg_origin {
  uint64_t record;       /* CG_ORIGIN_RECORD: the 0-based tape record */
  uint32_t file;         /* CG_ORIGIN_SOURCE: index into cg_graph.file */
  uint32_t line, col;    /* CG_ORIGIN_SOURCE: 1-based (0: not known) */
  uint8_t kind;          /* CG_ORIGIN_* */
} cg_origin;

/* Guard kinds: that a value compared with zero as it did when the graph was
 * recorded (eq: == 0, neq: != 0, le: <= 0, gt: > 0, ge: >= 0, lt: < 0), or
 * CG_GUARD_VALUE: that an index (a subscript's, a reference's) keeps its
 * integer part.  The comparison codes are those of the tape's branch opcodes
 * (cg_ops.h: cg_gtape.c checks it at compile time), so a guard written back
 * as a tape is its branch record and reports name the same opcode. */
enum {
  CG_GUARD_EQ_ZERO = 48, CG_GUARD_NEQ_ZERO, CG_GUARD_LE_ZERO, CG_GUARD_GT_ZERO,
  CG_GUARD_GE_ZERO, CG_GUARD_LT_ZERO,
  CG_GUARD_VALUE = 255
};
/* "eq_zero" ... "lt_zero", "value"; NULL for a code that is not a kind. */
const char *cg_guard_kind_name(unsigned kind);

/* A guard, checked when the graph is evaluated elsewhere. */
typedef struct cg_guard {
  uint32_t node;
  uint8_t kind;     /* CG_GUARD_* */
  double taped;     /* for CG_GUARD_VALUE: the value at taping */
  uint64_t record;  /* the tape record it comes from (0 without one) */
} cg_guard;

/* What building did, for Tables 2-4 of Bischof & Hu 1991. */
typedef struct cg_gstats {
  uint64_t tape_ops;        /* records that compute or assign (no death notices) */
  uint64_t assign_removed;  /* copies turned into aliases (section 2.2) */
  uint64_t dead_ops, dead_nodes; /* removed as dead roots (section 2.4) */
  uint64_t hoisted_ops;     /* opcodes amalgamated into supernodes (section 2.3) */
  uint64_t hoists, hoists_recovered;
  uint64_t nodes_created, ops_created;
  uint64_t dependents, guards, bogus;
  uint64_t death_notices;
  uint64_t peak_nodes;      /* nodes alive at the peak of the build (as slots if every
                             * constant took one at once) */
} cg_gstats;

/* Switches (all on by default). */
typedef struct cg_gopts {
  int assign_removal, hoist, dead_roots;
  int recover_hoists; /* hoists Bischof & Hu gave up after a dead-root removal */
  int guards;         /* keep branch records as guards (off: they die as dead roots) */
  int death_unlink;   /* a death notice completes the nodes of its locations */
  uint64_t mem_limit; /* refuse a build estimated above this many bytes (0: none) */
} cg_gopts;
void cg_gopts_default(cg_gopts *o);

typedef struct cg_graph {
  cg_alloc *A;
  uint32_t n;
  uint32_t *kid_start, *kids;
  uint32_t *par_start, *pars;
  uint32_t *op_start;
  uint8_t *op;
  double *opc;
  uint8_t *flags;
  double *val;
  int has_val;
  uint32_t n_indep, n_dep, n_guard;
  uint32_t *indep, *dep;
  cg_guard *guard;
  cg_gstats st;
  cg_branch branch; /* built at a new point: the records whose outcome differs
                     * from taping there (the tape's own forward sweep); else 0 */
  char *warnings; /* newline-separated, NULL if none */
  size_t warnings_len;
  cg_origin *origin, *guard_origin; /* n and n_guard entries, or NULL (above) */
  char **file;                      /* n_file names, each its own allocation */
  uint32_t n_file;
  char source[4096];
} cg_graph;

/* Frees the graph and everything it owns (NULL: nothing). */
void cg_graph_free(cg_graph *g);
/* Evaluates the chain of node v given its children's values. */
double cg_graph_node_eval(const cg_graph *g, uint32_t v, const double *kv, uint64_t *switches);

/* Evaluates every node at x (n_indep values; NULL: the build point) into
 * val_out (n values, may be NULL) and the dependents into y (n_dep values).
 * br counts guards and conditionals whose outcome differs from taping. */
int cg_graph_eval(const cg_graph *g, const double *x, double *val_out, double *y,
                  cg_branch *br, cg_error *e);

/* Heights (0 at leaves) and depths (0 at roots) into arrays of n entries. */
int cg_graph_heights(const cg_graph *g, uint32_t *h, cg_error *e);
int cg_graph_depths(const cg_graph *g, uint32_t *d, cg_error *e);

/* Bytes the graph's arrays take, per pool. */
typedef struct cg_gmem {
  uint64_t nodes, kids, parents, ops, values, total;
} cg_gmem;
void cg_graph_memory(const cg_graph *g, cg_gmem *m);

/* DOT of the whole graph (root == UINT32_MAX) or of the subgraph rooted at
 * root: its first `limit` nodes (at least the root) in breadth-first order
 * over children, the frontier counted.  A node with children not shown is
 * dashed, with a note "... (cut) N children not shown". */
int cg_graph_dot(const cg_graph *g, uint32_t root, uint32_t limit, FILE *fp);
/* Writes origin o of graph g as "file:line:col" or "record N" (nothing for
 * CG_ORIGIN_NONE); returns what fprintf does. */
int cg_origin_print(const cg_graph *g, const cg_origin *o, FILE *fp);

/* Text dump of the graph or subgraph (the same nodes as cg_graph_dot, a cut
 * node followed by a line "  ... (cut) N children not shown"; Bischof & Hu
 * 1991, sec. 3.3).  With origins, each node line ends "  at ORIGIN" and the
 * guards follow, one line each: "guard K: node V KIND at ORIGIN". */
int cg_graph_print(const cg_graph *g, uint32_t root, uint32_t limit, FILE *fp);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
