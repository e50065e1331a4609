/*
 * cg_search.h: the optimal vertex elimination order by depth-first branch
 * and bound over elimination states, with an admissible lower bound, a
 * transposition table and a time limit (cg_search.c).  Answers, even when
 * stopped early, with the best order found and a proven lower bound.
 */
#ifndef CG_SEARCH_H
#define CG_SEARCH_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include "cg_lin.h"

/* A state of the search, as the hooks see it (valid only during the call):
 * the remaining intermediates of the component being searched and their
 * current predecessors and successors (the graph after the eliminated set,
 * closed through it). */
typedef struct cg_sview cg_sview;
/* The remaining intermediates, ascending vertex ids (0-based). */
uint32_t cg_sview_count(const cg_sview *s);
uint32_t cg_sview_at(const cg_sview *s, uint32_t i);
/* 1 if vertex v is a remaining intermediate of the component. */
int cg_sview_remaining(const cg_sview *s, uint32_t v);
/* Current predecessors (side 0) or successors (side 1) of remaining v,
 * ascending, into out (room for cg_sview_room(s) ids); their number. */
uint32_t cg_sview_adj(const cg_sview *s, uint32_t v, int side, uint32_t *out);
uint32_t cg_sview_room(const cg_sview *s);
/* Multiplications spent reaching the state (within the component). */
uint64_t cg_sview_cost(const cg_sview *s);

/* Hooks.  bound: a lower bound of the multiplications still to pay from the
 * state (replaces the built-in one; negative reads as 0); nonzero *err
 * stops the search.  branch: reorders the n candidate vertices in place
 * (the built-in order first); nonzero return stops the search. */
typedef double (*cg_bound_fn)(void *ud, const cg_sview *s, int *err);
typedef int (*cg_branch_fn)(void *ud, const cg_sview *s, uint32_t *cand, uint32_t n);

/* Progress of a run, for the progress hook (about every progress_every s). */
typedef struct cg_search_stats {
  uint64_t nodes, incumbent, bound; /* so far, over the components done and the current one */
  double seconds, time_limit;
} cg_search_stats;
typedef void (*cg_progress_fn)(void *ud, const cg_search_stats *st);

typedef struct cg_search_opts {
  double time_limit;           /* seconds for the whole run; <= 0: none */
  uint64_t max_nodes;          /* states entered (a state cut on entry counts); 0: none */
  size_t tt_entries;           /* transposition table slots (0: 2^20); fewer if memory is short */
  const uint32_t *incumbent;   /* a vertex order (0-based) to start from, or NULL */
  uint32_t nincumbent;
  cg_bound_fn bound;           /* NULL: the built-in bound */
  uint32_t builtin;            /* the built-in bound: 0 the strongest, k the one named cg_search_bound_name(k - 1) */
  cg_branch_fn branch;         /* NULL: the built-in order */
  void *ud;                    /* for bound and branch */
  cg_progress_fn progress;     /* NULL: none */
  void *progress_ud;
  double progress_every;       /* seconds (0: 0.25) */
} cg_search_opts;

/* The built-in bounds' names, weakest first (each at least the one
 * before it at every state): "paths", "flow", "pairs"; NULL past the last. */
const char *cg_search_bound_name(uint32_t k);

/* The answer for one component of intermediates. */
typedef struct cg_search_comp {
  uint32_t size;
  uint64_t mults, lower_bound, root_bound, nodes;
  int proven;
} cg_search_comp;

typedef struct cg_search_result {
  uint64_t mults, lower_bound, root_bound, nodes; /* sums over the components */
  double seconds;
  int proven;                  /* every component proven */
  uint32_t norder;             /* order_out's length (every intermediate) */
  cg_search_comp *comps;       /* ncomps of them (free with cg_search_result_free) */
  uint32_t ncomps;
} cg_search_result;

/* Searches every component of intermediates of g (unchanged) for the vertex
 * order with the fewest structural multiplications; order_out (nv entries)
 * gets the best order found.  Errors: CG_ENOMEM, CG_EUSAGE (a bad incumbent),
 * CG_ERUNTIME (a hook stopped it, message from the hook left in e if set). */
int cg_lin_search(const cg_lin *g, const cg_search_opts *o, cg_search_result *r,
                  uint32_t *order_out, cg_error *e);
void cg_search_result_free(cg_alloc *A, cg_search_result *r);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
