/*
 * cg_sched.h: levels, storage slots and compiled evaluation code for a built
 * graph (Bischof & Hu 1991, sec. 3: 3.1 storage allocation, 3.2 code building; 4.3
 * the parallel schedule).
 *
 * A level scheme gives every node a level such that every child is strictly
 * below each of its parents; then "evaluate level 0, level 1, ..., each level
 * in any order" computes the function (section 3.1).  A schedule (cg_sched)
 * is such an evaluation order plus one storage slot per node:
 *  - order[lev_start[l] .. lev_start[l+1]) are the nodes of level l, in the
 *    order the live analysis assigned their slots;
 *  - slot[v] < nslots, or CG_NOSLOT for a leaf read in place (an independent
 *    read straight from x, a constant written as a literal);
 *  - two nodes share a slot only if the later one is on a strictly later
 *    level than every parent of the earlier one (section 3.1: "we can reuse
 *    n's slot only at the next level"), so any order within a level is right;
 *  - a dependent keeps its slot to the end (its value is copied out last).
 * A sequential schedule (sequential = 1) is the special case of one node per
 * level in id order, allocated in O(n + edges) (a slot is reused at the next
 * statement after its last reader).
 * All arrays are index arrays allocated through the schedule's allocator.
 */
#ifndef CG_SCHED_H
#define CG_SCHED_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include "../graph/cg_graph.h"

#define CG_NOSLOT UINT32_MAX

/* Built-in level schemes (cg_levels.c). */
enum {
  CG_LV_HEIGHT, /* longest path from a leaf: Bischof & Hu's default (section 3.1) */
  CG_LV_DEPTH,  /* max depth - depth: every root on the top level */
  CG_LV_ASAP,   /* height, but each leaf just below its lowest parent */
  CG_LV_ALAP,   /* roots at their height, every other node just below its lowest parent */
  CG_LV_COUNT
};
const char *cg_level_scheme_name(int scheme);
int cg_level_scheme_byname(const char *name); /* -1 if unknown */

/* Levels of a built-in scheme into level[0..n).  Cost O(n + edges). */
int cg_levels(const cg_graph *g, int scheme, uint32_t *level, cg_error *e);

/* Checks that every child is strictly below each of its parents; the error
 * names both nodes by their 1-based ids (as Lua sees them). */
int cg_levels_check(const cg_graph *g, const uint32_t *level, cg_error *e);

/* Schedule flags */
#define CG_SCHED_INLINE_LEAVES 0x1 /* no slot for one-operation independents and constants */

typedef struct cg_sched {
  cg_alloc *A;
  uint32_t n, nlev, nslots;
  int sequential;
  uint32_t *level;     /* n entries (NULL for a sequential schedule) */
  uint32_t *order;     /* n entries */
  uint32_t *lev_start; /* nlev + 1 entries */
  uint32_t *slot;      /* n entries */
  uint64_t stack_moves; /* work of the double-stack scheme */
} cg_sched;

/* The live analysis of Bischof & Hu 1991, sec. 3.1 (the double-stack scheme) for
 * the given levels (checked first).  Cost O(n + edges + moves), where moves
 * counts the nodes carried over from one level to the next on the stacks. */
cg_sched *cg_sched_live(cg_alloc *A, const cg_graph *g, const uint32_t *level, unsigned flags,
                        cg_error *e);

/* The sequential schedule: nodes in id (tape) order, one slot per value,
 * reused right after its last reader.  Cost O(n + edges). */
cg_sched *cg_sched_sequential(cg_alloc *A, const cg_graph *g, unsigned flags, cg_error *e);

void cg_sched_free(cg_sched *s);

/* Sequential slots for the nodes with need[v] != 0 (others get CG_NOSLOT),
 * in id order; dependents keep theirs.  Cost O(n + edges). */
int cg_slots_linear(cg_alloc *A, const cg_graph *g, const uint8_t *need, uint32_t *slot,
                    uint32_t *nslots);

/* True if node v is a leaf the code reads in place (see CG_SCHED_INLINE_LEAVES). */
int cg_sched_inline_leaf(const cg_graph *g, uint32_t v);

/* Evaluates the graph level by level through the slots only (section 3.3's
 * eval_graph): x has n_indep values (NULL: the build point); each level in
 * schedule order or, with reverse, backwards.  val_out (n values, may be NULL)
 * gets each node's value as it is computed, y the dependents (n_dep). */
int cg_sched_eval(const cg_graph *g, const cg_sched *s, const double *x, int reverse,
                  double *val_out, double *y, cg_error *e);

/* {==== code generation (section 3.2, Figure 10) ====} */

enum {
  CG_FORM_LEVELS,   /* one function per level (batches of at most `chunk` nodes) */
  CG_FORM_STRAIGHT, /* one straight-line function, tape order */
  CG_FORM_CHUNKED   /* functions of at most `chunk` statements, tape order, locals inside */
};

typedef struct cg_cgopts {
  const char *name; /* the C function: void name(const double *x, double *y) */
  int form;
  int parallel;     /* OpenMP, levels form only */
  uint32_t chunk;   /* statements per function (0: 1000 for levels, 2000 chunked) */
  const char *source; /* for the header comment (may be NULL) */
  const char *scheme; /* level scheme's name, for the header comment */
} cg_cgopts;

typedef struct cg_cgstats {
  uint64_t lines, functions, statements, slots, bytes;
} cg_cgstats;

/* Writes C99 code computing the dependents from the independents.  The
 * levels form uses s (a live-analysis schedule); the straight and chunked
 * forms build their own sequential slots and ignore s (may be NULL).
 * Output depends only on the inputs (deterministic). */
int cg_codegen(const cg_graph *g, const cg_sched *s, const cg_cgopts *o, FILE *fp,
               cg_cgstats *st, cg_error *e);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
