/*
 * cg_jplan.h: a kept Jacobian plan: the Jacobian of one built graph at many
 * points, without rebuilding anything.
 *
 * A plan is made once from a graph (not owned: it must outlive the plan),
 * its linearized graph at the build point (not changed) and a vertex
 * elimination order (Hovland, Norris, Utke & Strout, sec. 1).  It records:
 *  - the partial program: per vertex of the linearized graph with in-edges,
 *    its graph node and, per operand of the node's chain, the edge slot the
 *    operand's partial goes into (or NONE: an operand off every path, or a
 *    structural zero of a conditional); unit copy edges are slots set to 1;
 *  - the elimination as a flat program of multiply-adds over edge slots,
 *    three uint32 per product: dst (top bit set: dst += a * b, else
 *    dst = a * b), a, b; its length is the elimination's mults (cg_cost);
 *  - the output map: the slot of each nonzero of the Jacobian's pattern,
 *    row-major, sorted by (row, column) as cg_lin_jac_bipartite;
 *  - the linearized graph's edges (tail, head, sorted by head) for tangent
 *    and adjoint sweeps.
 * Slots are the edge ids of a copy of the linearized graph eliminated in the
 * order: a fill edge reuses a freed id, whose old value is dead by then.
 *
 * Per point (cg_jplan_at): the graph evaluated at x (cg_graph_eval, with
 * its branch checks), the partials into the slots, the program, the
 * outputs.  Nothing is allocated per point.  A point where a branch or a
 * guard changes outcome gives br->count > 0 and no Jacobian.
 */
#ifndef CG_JPLAN_H
#define CG_JPLAN_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include <stdio.h>

#include "cg_lin.h"

#define CG_JP_ADD 0x80000000u /* in a program's dst: accumulate */

typedef struct cg_jplan {
  cg_alloc *A;
  const cg_graph *gr;       /* not owned */
  uint32_t nval;            /* entries of val: the graph's nodes (the graph may go first) */
  uint32_t n, m, nv;        /* independents, dependents, vertices of the linearized graph */
  /* the partial program */
  uint32_t np, *pnode, *pslot; /* np entries; 3 slots each (NONE, or CG_JP_ADD | slot) */
  uint32_t nunit, *uslot;   /* slots of the unit copy edges */
  /* the elimination */
  uint64_t nops, opcap;
  uint32_t *ops;            /* 3 per product (above); room for opcap */
  cg_cost cost;             /* of the elimination, as cg_lin_eliminate_seq counts it */
  /* the Jacobian */
  uint64_t nnz;
  uint32_t *row, *col, *oslot; /* 0-based */
  /* the linearized graph, for sweeps: ne0 edges sorted by head (slot = edge) */
  uint32_t ne0, *etail, *ehead, *eslot;
  uint32_t *x, *y;          /* vertices of the independents, dependents */
  /* workspace */
  uint32_t nslots;
  double *val, *w, *t;      /* gr->n node values, nslots weights, nv sweep values */
  double *yout, *jout, *vout; /* for a caller's results: m, nnz, max(n, m) values */
} cg_jplan;

/* Makes a plan, allocated with A, from graph gr, its linearized graph lg (at gr's values, not
 * eliminated; not changed) and the vertex order seq (0-based, len entries,
 * every intermediate of lg once).  NULL and e on bad input (CG_EUSAGE) or
 * out of memory.  Cost O(nodes + edges + the elimination). */
cg_jplan *cg_jplan_new(cg_alloc *A, const cg_graph *gr, const cg_lin *lg, const uint32_t *seq,
                       uint32_t len, cg_error *e);
void cg_jplan_free(cg_jplan *p);

/* The Jacobian's nonzeros at x (n values) into J (nnz values, row-major as
 * p->row, p->col) and the dependents into y (m values, may be NULL).  br
 * receives the branch changes at x (cg_graph_eval); when br->count > 0, J
 * is left unset.  O(nodes + program). */
int cg_jplan_at(cg_jplan *p, const double *x, double *y, double *J, cg_branch *br, cg_error *e);
/* J*v (m values into jv) by a tangent sweep over the linearized graph at x,
 * and w^T*J (n values into wj) by an adjoint sweep; y and br as above. */
int cg_jplan_jvp(cg_jplan *p, const double *x, const double *v, double *y, double *jv,
                 cg_branch *br, cg_error *e);
int cg_jplan_vjp(cg_jplan *p, const double *x, const double *wt, double *y, double *wj,
                 cg_branch *br, cg_error *e);

/* {==== C code of a plan (cg_jplan_code.c) ====} */

/* What cg_jplan_codegen wrote. */
typedef struct cg_jcstats {
  uint64_t functions, statements, bytes;
} cg_jcstats;

/* Writes one C99 file computing the plan at any x (Bischof & Hu 1991, sec. 3:
 * the graph's evaluation as straight-line code, here with the local
 * partials, then the recorded multiply-adds): NAME_jac_checked(x, y, J)
 * returns the number of recorded branch conditions and guards whose outcome
 * differs at x (0: J is valid; else J is left unchanged), NAME_jac(x, y, J)
 * calls it; NAME_jac_nnz, NAME_jac_rows[], NAME_jac_cols[] give the pattern
 * (1-based, rows the dependents).  Statements go into functions of at most
 * chunk statements (0: 2000) so gcc -O2 copes.  source names the tape in
 * the header comment (may be NULL). */
int cg_jplan_codegen(const cg_jplan *p, const char *name, const char *source, uint32_t chunk,
                     FILE *fp, cg_jcstats *st, cg_error *e);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
