/*
 * cg_kactive.h: activity analysis of a kernel function (Hovland, Norris,
 * Utke & Strout, sec. 4) over its ud/du-chains, on doubles: a statement is
 * varied when a double it reads may carry a value of an independent (on
 * entry, through a chain's -1, or from a varied statement), useful when a
 * double it writes may reach a dependent (the exit in a dependent's region,
 * a double return, or a useful statement's use); active when both.
 * Conditions carry no activity (control dependence is not followed).
 */
#ifndef CG_KACTIVE_H
#define CG_KACTIVE_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif
#include "cg_kchains.h"

typedef struct cg_kactive {
  cg_alloc *A;
  uint32_t nstmt, nacc, nobj; /* nstmt: al's window, statements s_lo .. s_lo + nstmt - 1 */
  int32_t s_lo;
  uint8_t *indep, *dep;   /* nobj: the independents' and dependents' objects */
  int dep_return;         /* the double result is a dependent */
  uint8_t *varied, *useful, *active; /* nstmt: statement s at s - s_lo */
  uint8_t *acc_active;    /* nacc: a double access of an active statement carrying activity */
} cg_kactive;

/* indep, dep: parameter symbols of the function (NULL: the defaults, the
 * double parameters and pointers to double that f reads, resp. the pointers
 * to double that f writes through);
 * dep_return -1: a double result is a dependent by default.  A symbol that
 * is not a double parameter or pointer to double: CG_EUSAGE.  Cost: linear
 * in the chains. */
cg_kactive *cg_kactive_run(cg_alloc *A, const cg_kalias *al, const cg_kchains *ch,
                           const int32_t *indep, uint32_t nindep, const int32_t *dep,
                           uint32_t ndep, int dep_return, cg_error *e);
void cg_kactive_free(cg_kactive *ac);
/* Whether set s holds a double cell (its objects' cell type). */
int cg_kalias_set_double(const cg_kalias *al, uint32_t s);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
