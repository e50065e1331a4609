/*
 * cg_addg.h: the data-dependence graph of a kernel function and the
 * legality of adjoining its loops iteration by iteration (Hascoet,
 * Fidanova & Held, "Adjoining Independent Computations", sec. 2 and 3).
 * doc/adjoint-loops.md describes the rules; this header the representation.
 *
 * Built over a cg_kalias of the function (objects, address sets, affine
 * offsets over value numbers):
 *  - nodes 0..nnode-1, one per ASSIGN, CALL, IF (its condition) and LOOP
 *    statement of the function, in walk (source) order; node_stmt[n];
 *  - edges 0..nedge-1 between nodes for a variable (e_obj, an object of
 *    the cg_kalias): flow (write -> read), anti (read -> write), output
 *    (write -> write); e_carried[e] the loop (index into the loops) whose
 *    iterations it crosses, -1 for a dependence within one iteration or
 *    outside loops; e_to_acc the access of the `to` statement (its
 *    position), e_from_acc that of `from`.  Two increments x = x + e /
 *    x = x - e of the same object create no edge between each other;
 *  - loops 0..nloop-1 in source order: l_stmt, l_depth (1 outermost),
 *    l_parent (-1), l_counter (the counter's symbol or -1), the flags and
 *    reason (a NUL-terminated text in l_reason[i * CG_ADDG_REASON]);
 *  - per loop, its variables la_obj[la_off[i] .. la_off[i+1]) (objects it
 *    touches, the counter excluded, sorted by name) with la_class (CG_AC_*)
 *    and la_written, la_read; its carried, not exempted edges
 *    lc_edge[lc_off[i] ..]; its snapshot ls_obj[ls_off[i] ..] (sorted by
 *    name; the counter included).
 * Cost: the accesses of each object class in pairs, and per loop its
 * accesses times its nesting depth; linear in everything else.
 */
#ifndef CG_ADDG_H
#define CG_ADDG_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif
#include "../kernel/cg_kalias.h"

#define CG_ADDG_REASON 256 /* bytes of a reason */

enum { CG_AN_ASSIGN, CG_AN_CALL, CG_AN_COND, CG_AN_LOOP };
enum { CG_AE_FLOW, CG_AE_ANTI, CG_AE_OUTPUT };
/* The access classes of a loop's variables (doc/adjoint-loops.md, "Access
 * classes"), one row each: id (CG_AC_<id>), name, and what the class means
 * to the verdict and the dry run, CG_ACF_* bits:
 *   EXEMPT  the loop-carried dependences of a variable of the class do not
 *           refuse the loop (without it, the loop is refused naming it);
 *   INCR    it is only incremented (v = v + e): it reads no value (the
 *           paper's category i, sec. 2) for terminal loops, and a dry run
 *           snapshots it for F's entry state;
 *   FIRST   it is written before it is read in every iteration: a re-run
 *           needs none of its values.
 * classify() in cg_addg.c gives a variable its class: a new row goes above
 * the comment that ends the table, with its case there (doc/hacking.md,
 * "Adding a loop access class"). */
enum { CG_ACF_EXEMPT = 1, CG_ACF_INCR = 2, CG_ACF_FIRST = 4 };
#define CG_ACLASSES(X)                                          \
  X(READONLY, "read-only", CG_ACF_EXEMPT)                       \
  X(OWN, "own-index write", CG_ACF_EXEMPT)                      \
  X(INCR, "increment", CG_ACF_EXEMPT | CG_ACF_INCR)             \
  X(PRIVATE, "private", CG_ACF_EXEMPT | CG_ACF_FIRST)           \
  X(REDUCTION, "reduction", CG_ACF_EXEMPT | CG_ACF_INCR)        \
  X(MINMAX, "minmax", 0)                                        \
  X(OTHER, "other", 0)                                          \
  /* (the end of the table: a new row goes above this line) */
enum {
#define CG_AC_ENUM(id, nm, fl) CG_AC_##id,
  CG_ACLASSES(CG_AC_ENUM)
#undef CG_AC_ENUM
  CG_AC_COUNT
};

typedef struct cg_addg {
  cg_alloc *A;
  cg_kalias *al;
  int32_t func;
  /* nodes */
  uint32_t nnode;
  int32_t *node_stmt, *node_kind;
  int32_t *stmt_node; /* al->ns: the node of a statement of the window, -1 */
  /* edges */
  uint32_t nedge;
  size_t cap_e[6];
  int32_t *e_from, *e_to, *e_obj, *e_kind, *e_carried, *e_to_acc, *e_from_acc;
  size_t cap_e7;
  /* loops */
  uint32_t nloop;
  int32_t *l_stmt, *l_depth, *l_parent, *l_counter;
  uint8_t *l_pragma, *l_indep, *l_accept, *l_terminal;
  char *l_reason;
  uint32_t *la_off, *lc_off, *ls_off; /* nloop + 1 */
  int32_t *la_obj, *la_class;
  uint8_t *la_written, *la_read;
  int32_t *lc_edge, *ls_obj;
  size_t cap_la[4], cap_lc, cap_ls;
  uint32_t nla_tmp, nlc_tmp, nls_tmp; /* entries so far (the totals at the end) */
} cg_addg;

/* The graph and the loops' verdicts for al's function (al gains widened
 * sets).  NULL with e set (CG_ENOMEM). */
cg_addg *cg_addg_run(cg_alloc *A, cg_kalias *al, cg_error *e);
void cg_addg_free(cg_addg *g);
/* Names: "read-only", ...; "flow", "anti", "output"; "assign", ... (NULL out of range). */
const char *cg_addg_class_name(int c);
/* The CG_ACF_* bits of class c (0 out of range: the loop counter's -1). */
unsigned cg_addg_class_flags(int c);
const char *cg_addg_edge_name(int kind);
const char *cg_addg_node_name(int kind);
/* Whether statement st is an increment v = v + e, v = e + v or v = v - e
 * (e not naming v): the expression of its read of v, else -1. */
int32_t cg_addg_incr_self(const cg_kernel *k, int32_t st);
/* Drops the parentheses cg_kexpr_text puts around a whole subscript, in
 * place: "y[(i - 1)]" -> "y[i - 1]". */
void cg_addg_tidy(char *text);
/* Whether object o is a scalar (a variable of one cell, not a region). */
int cg_addg_obj_scalar(const cg_kalias *al, int32_t o);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
