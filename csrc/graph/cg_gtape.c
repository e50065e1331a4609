/* cg_gtape.c: writing a graph back as a tape (Bischof & Hu 1991, sec. 4.2, Table 3). */
#include <string.h>

#include "cg_gtape.h"

#define NONE UINT32_MAX

/* A guard's kind is its branch record's opcode (cg_graph.h): a negative array
 * size stops the build if the two tables drift apart. */
typedef char guard_kinds_are_branch_opcodes[
    ((int)CG_GUARD_EQ_ZERO == (int)CG_OP_eq_zero && (int)CG_GUARD_NEQ_ZERO == (int)CG_OP_neq_zero &&
     (int)CG_GUARD_LE_ZERO == (int)CG_OP_le_zero && (int)CG_GUARD_GT_ZERO == (int)CG_OP_gt_zero &&
     (int)CG_GUARD_GE_ZERO == (int)CG_OP_ge_zero && (int)CG_GUARD_LT_ZERO == (int)CG_OP_lt_zero) ? 1 : -1];

/* Locations: a stack of free ones, plus a high-water mark. */
typedef struct locs {
  uint32_t *free, nfree, next;
} locs;

static uint32_t loc_get(locs *L) { return L->nfree ? L->free[--L->nfree] : L->next++; }
static void loc_put(locs *L, uint32_t l) { L->free[L->nfree++] = l; }

/* Appends the record for operation o of node v: the first operation reads
 * the children's locations, later ones (a hoisted chain) update in place. */
static int emit_op(const cg_graph *g, cg_tape *t, uint32_t v, uint32_t o, const uint32_t *at,
                   locs *L, cg_error *e) {
  const cg_gopinfo *gi = cg_gop(g->op[o]);
  uint32_t loc[5], nl = 1, k, nk = g->kid_start[v + 1] - g->kid_start[v];
  double c = g->opc[o];
  int first = o == g->op_start[v], rc;
  loc[0] = at[v];
  if (g->op[o] == CG_G_INDEP) return cg_tape_push(t, CG_OP_assign_ind, loc, 1, NULL, 0, e);
  if (g->op[o] == CG_G_SIN || g->op[o] == CG_G_COS) /* second output: a scratch location */
    loc[nl++] = loc_get(L);
  if (first)
    for (k = 0; k < nk; k++) loc[nl++] = at[g->kids[g->kid_start[v] + k]];
  else
    loc[nl++] = at[v];
  if (g->op[o] >= CG_G_ASIN && g->op[o] <= CG_G_ERF) { /* ADOL-C's derivative operand */
    loc[nl] = loc[nl - 1]; /* not recomputed: it names the argument (doc/graph.md) */
    nl++;
  }
  rc = cg_tape_push(t, gi->tape_op, loc, nl, &c, gi->has_const, e);
  if (g->op[o] == CG_G_SIN || g->op[o] == CG_G_COS) loc_put(L, loc[1]);
  return rc;
}

/* CG_OK if every operation of g has a tape opcode; else CG_EUSAGE naming
 * the first node that has none (with its source position when the front
 * end gave one): an operation of the kernels' intrinsics, such as pow with
 * both operands active, has no exact spelling as tape records, and an
 * approximate one would change the values. */
static int check_tape_ops(const cg_graph *g, cg_error *e) {
  uint32_t v, o;
  for (v = 0; v < g->n; v++)
    for (o = g->op_start[v]; o < g->op_start[v + 1]; o++) {
      const cg_gopinfo *gi = cg_gop(g->op[o]);
      const cg_origin *at = g->origin ? &g->origin[v] : NULL;
      if (gi->tape_op != CG_GOP_NO_TAPE_OP) continue;
      if (at && at->kind == CG_ORIGIN_SOURCE && at->file < g->n_file)
        return cg_seterr(e, CG_EUSAGE, "%s:%lu:%lu: node %lu: operation %s has no tape opcode",
                         g->file[at->file], (unsigned long)at->line, (unsigned long)at->col,
                         (unsigned long)v + 1, gi->name); /* as the dump numbers nodes */
      return cg_seterr(e, CG_EUSAGE, "node %lu: operation %s has no tape opcode",
                       (unsigned long)v + 1, gi->name);
    }
  return CG_OK;
}

cg_tape *cg_graph_to_tape(const cg_graph *g, cg_error *e) {
  cg_tape *t;
  uint32_t *at = NULL, *rem = NULL, v, k, o;
  locs L = {NULL, 0, 0};
  size_t n = g->n;
  int rc = CG_OK;
  if (check_tape_ops(g, e)) return NULL; /* before anything is written */
  if (!(t = cg_tape_new(g->A))) return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
  at = CG_NEW(g->A, uint32_t, n);
  rem = CG_NEW(g->A, uint32_t, n);
  L.free = CG_NEW(g->A, uint32_t, n + 1);
  if (!at || !rem || !L.free) rc = cg_seterr(e, CG_ENOMEM, "out of memory");
  for (v = 0; !rc && v < g->n; v++) rem[v] = g->par_start[v + 1] - g->par_start[v];
  for (v = 0; !rc && v < g->n; v++) {
    at[v] = loc_get(&L);
    for (o = g->op_start[v]; !rc && o < g->op_start[v + 1]; o++) rc = emit_op(g, t, v, o, at, &L, e);
    for (k = g->kid_start[v]; !rc && k < g->kid_start[v + 1]; k++) {
      uint32_t c = g->kids[k];
      if (--rem[c] == 0 && !(g->flags[c] & (CG_NF_DEP | CG_NF_GUARD))) loc_put(&L, at[c]);
    }
    if (!rc && rem[v] == 0 && !(g->flags[v] & (CG_NF_DEP | CG_NF_GUARD))) loc_put(&L, at[v]);
  }
  for (k = 0; !rc && k < g->n_guard; k++) /* branch records at the end; indices are dropped */
    if (g->guard[k].kind != CG_GUARD_VALUE)
      rc = cg_tape_push(t, g->guard[k].kind, &at[g->guard[k].node], 1, NULL, 0, e);
  for (k = 0; !rc && k < g->n_dep; k++) rc = cg_tape_push(t, CG_OP_assign_dep, &at[g->dep[k]], 1, NULL, 0, e);
  if (!rc && g->has_val) {
    double *x = CG_NEW(g->A, double, g->n_indep);
    if (!x) rc = cg_seterr(e, CG_ENOMEM, "out of memory");
    for (k = 0; x && k < g->n_indep; k++) x[k] = g->val[g->indep[k]];
    if (!rc) rc = cg_tape_set_x0(t, x, g->n_indep, e);
    CG_FREE(g->A, x, double, g->n_indep);
  }
  CG_FREE(g->A, at, uint32_t, n);
  CG_FREE(g->A, rem, uint32_t, n);
  CG_FREE(g->A, L.free, uint32_t, n + 1);
  if (rc) {
    cg_tape_free(t);
    return NULL;
  }
  snprintf(t->source, sizeof t->source, "%.4000s (graph)", g->source);
  return t;
}
