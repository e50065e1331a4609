/*
 * cg_kchains.h: reaching definitions of a kernel function at statement
 * granularity, as ud-chains and du-chains (Utke, Flattening, sec. 6;
 * Hovland, Norris, Utke & Strout, sec. 5), over the accesses and address
 * sets of a cg_kalias.
 *
 * A definition reaches a use when their sets are not related "no"
 * (cg_kalias_relation, overrides included); a definition whose set is exact
 * (not a may-definition) kills the reaching definitions "must"-related to
 * it; a may-definition kills nothing.  The walk is a structured dataflow
 * over the statement tree: an if joins its branches, a loop iterates to a
 * fixpoint at its header, and a definition that goes around a back edge
 * has the loop's value numbers widened out of its set (cg_kalias_widen).
 * The state is sparse: per class of objects, the sorted list of reaching
 * (statement, set) pairs and of exact sets written on every path.
 *
 * Results (C ids 0-based; -1 stands for "outside the function", which Lua
 * sees as 0):
 *  - ud: for access u, ud[ud_off[u] .. ud_off[u + 1]) the statements whose
 *    definitions may reach it (empty for a definition), ascending, -1 first
 *    when the value may come from outside (no path-wide exact definition);
 *  - du: for statement s, du[du_off[i] .. du_off[i + 1]) (i = s - s_lo) the statements
 *    using its definitions, ascending, -1 first when one of them may reach
 *    the exit in a region (a cell written through a pointer parameter);
 *  - exit pairs (ex_stmt[i], ex_set[i]): the definitions reaching the exit
 *    in regions, sorted.
 */
#ifndef CG_KCHAINS_H
#define CG_KCHAINS_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif
#include "cg_kalias.h"

typedef struct cg_kchains {
  cg_alloc *A;
  const cg_kalias *al;
  uint32_t nacc, nstmt; /* nstmt: the window of al, statements s_lo .. s_lo + nstmt - 1 */
  int32_t s_lo;
  uint32_t *ud_off; /* nacc + 1 */
  int32_t *ud;
  uint32_t *du_off; /* nstmt + 1 */
  int32_t *du;
  size_t ndu_alloc; /* du's allocated count (before duplicates went) */
  uint32_t nex;
  int32_t *ex_stmt, *ex_set;
  uint32_t passes; /* loop body walks, for the benchmark's record */
} cg_kchains;

/* Chains of al's function.  al gains the widened sets it needs.  NULL with
 * e set (CG_ENOMEM).  Cost: the walk (loops until their header state is
 * stable), each use and must-definition against the reaching pairs of its
 * class; while those pairs are all exact cells of one object with one
 * variable part of the offset (a[0], a[1], ... or a[i], a[i+1], ...), each
 * distinct, and no overrides exist, an index finds the one pair that can
 * meet an access of that kind in O(log n) (rebuilt in one pass after a
 * join, a snapshot or widening). */
cg_kchains *cg_kchains_run(cg_alloc *A, cg_kalias *al, cg_error *e);
void cg_kchains_free(cg_kchains *ch);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
