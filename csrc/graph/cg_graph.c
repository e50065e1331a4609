/* cg_graph.c: evaluating a built graph, heights and depths, memory. */
#include <math.h>
#include <string.h>

#include "cg_graph.h"

double cg_graph_node_eval(const cg_graph *g, uint32_t v, const double *kv, uint64_t *sw) {
  uint32_t o = g->op_start[v], end = g->op_start[v + 1];
  double r = cg_gop_apply(g->op[o], g->opc[o], kv, sw);
  for (o++; o < end; o++) r = cg_gop_apply(g->op[o], g->opc[o], &r, sw);
  return r;
}

const char *cg_guard_kind_name(unsigned kind) {
  static const char *const cmp[] = {"eq_zero", "neq_zero", "le_zero", "gt_zero", "ge_zero",
                                    "lt_zero"};
  if (kind >= CG_GUARD_EQ_ZERO && kind <= CG_GUARD_LT_ZERO) return cmp[kind - CG_GUARD_EQ_ZERO];
  return kind == CG_GUARD_VALUE ? "value" : NULL;
}

/* True if a guard still holds for value d (cg_eval.c's comparisons). */
static int guard_holds(const cg_guard *gd, double d) {
  switch (gd->kind) {
    case CG_GUARD_EQ_ZERO: return !(d != 0);
    case CG_GUARD_NEQ_ZERO: return !(d == 0);
    case CG_GUARD_LE_ZERO: return !(d > 0);
    case CG_GUARD_GT_ZERO: return !(d <= 0);
    case CG_GUARD_GE_ZERO: return !(d < 0);
    case CG_GUARD_LT_ZERO: return !(d >= 0);
    default: return trunc(fabs(d)) == trunc(fabs(gd->taped)); /* an index */
  }
}

/* Value of node i from the values of its children: the whole chain, with
 * the operation table inlined (the hot loop of evaluation). */
static double eval_node(const cg_graph *g, uint32_t i, const double *v, const double *x,
                        uint64_t *sw) {
  uint32_t o = g->op_start[i], end = g->op_start[i + 1], k = g->kid_start[i];
  uint32_t nk = g->kid_start[i + 1] - k, j;
  const uint32_t *kid = g->kids + k;
  double r, kv[3];
  if (g->op[o] == CG_G_INDEP) {
    r = x ? x[(size_t)g->opc[o]] : g->val[i];
  } else {
    for (j = 0; j < nk; j++) kv[j] = v[kid[j]];
    r = cg_gop_apply_inline(g->op[o], g->opc[o], kv, sw);
  }
  for (o++; o < end; o++) r = cg_gop_apply_inline(g->op[o], g->opc[o], &r, sw);
  return r;
}

/* CG_EVAL_SKEW(x) wraps the values the evaluation loop's inline cases
 * compute: x itself; a test defines it to skew them and see check_value
 * stop the run. */
#ifndef CG_EVAL_SKEW
#define CG_EVAL_SKEW(x) (x)
#endif

#ifndef NDEBUG
#include <stdio.h>
#include <stdlib.h>

/* Stops the run unless r, the value the evaluation loop's inline cases
 * gave node i's first operation, equals the operation table's
 * (cg_gop(op)->value, cg_gops.h), bit for bit: a debug build's check that
 * the inline copies cannot drift from their rows. */
static void check_value(const cg_graph *g, uint32_t i, const double *v, double r) {
  uint32_t o = g->op_start[i], k, nk = g->kid_start[i + 1] - g->kid_start[i];
  double kv[3] = {0, 0, 0}, t;
  uint64_t sw = 0;
  for (k = 0; k < nk && k < 3; k++) kv[k] = v[g->kids[g->kid_start[i] + k]];
  t = cg_gop(g->op[o])->value(g->opc[o], kv, &sw);
  if (memcmp(&t, &r, sizeof t) != 0) {
    fprintf(stderr, "cg_graph.c: node %lu (%s): the inline value %a, the operation table's %a\n",
            (unsigned long)i, cg_gop(g->op[o])->name, r, t);
    abort(); /* a debug build only: an inline copy drifted from its row */
  }
}
#endif

int cg_graph_eval(const cg_graph *g, const double *x, double *val_out, double *y,
                  cg_branch *br, cg_error *e) {
  double *v = val_out;
  uint64_t sw = 0, seen = 0;
  uint32_t i;
  if (br) memset(br, 0, sizeof *br);
  if (!x && !g->has_val)
    return cg_seterr(e, CG_EUSAGE, "the graph has no values of the independents; give --at");
  if (!v) /* guard kept: CG_NEW here made the Bratu evaluation 1.7% longer (callgrind) */
    v = (double *)cg_malloc(g->A, (size_t)(g->n ? g->n : 1) * 8);
  if (!v) return cg_seterr(e, CG_ENOMEM, "out of memory");
  for (i = 0; i < g->n; i++) {
    uint32_t o = g->op_start[i], oe = g->op_start[i + 1];
    const uint32_t *kd = g->kids + g->kid_start[i];
    double r;
    switch (g->op[o]) { /* the commonest first operations without the operand copy */
      case CG_G_ADD: r = v[kd[0]] + v[kd[1]]; break;
      case CG_G_SUB: r = v[kd[0]] - v[kd[1]]; break;
      case CG_G_MUL: r = v[kd[0]] * v[kd[1]]; break;
      case CG_G_ADDC: r = v[kd[0]] + g->opc[o]; break;
      case CG_G_MULC: r = CG_EVAL_SKEW(v[kd[0]] * g->opc[o]); break;
      default: r = eval_node(g, i, v, x, &sw); o = oe; break; /* the whole chain */
    }
#ifndef NDEBUG
    if (o < oe) check_value(g, i, v, r); /* an inline case above */
#endif
    for (o++; o < oe; o++) r = cg_gop_apply_inline(g->op[o], g->opc[o], &r, &sw);
    v[i] = r;
    if (sw > seen) { /* a conditional, abs, min, ceil or floor switched */
      if (br && br->count == 0) {
        br->first = i;
        br->first_op = g->op[g->op_start[i]];
      }
      seen = sw;
    }
  }
  if (br) br->count = sw;
  for (i = 0; i < g->n_guard; i++)
    if (!guard_holds(&g->guard[i], v[g->guard[i].node]) && br) {
      if (br->count == 0) {
        br->first = g->guard[i].node;
        br->first_op = g->guard[i].kind;
      }
      br->count++;
    }
  if (y)
    for (i = 0; i < g->n_dep; i++) y[i] = v[g->dep[i]];
  if (v != val_out) cg_free(g->A, v, (size_t)(g->n ? g->n : 1) * 8); /* as allocated */
  return CG_OK;
}

int cg_graph_heights(const cg_graph *g, uint32_t *h, cg_error *e) {
  uint32_t i, k;
  (void)e;
  for (i = 0; i < g->n; i++) { /* children first: ids are topological */
    uint32_t m = 0;
    for (k = g->kid_start[i]; k < g->kid_start[i + 1]; k++)
      if (h[g->kids[k]] + 1 > m) m = h[g->kids[k]] + 1;
    h[i] = m;
  }
  return CG_OK;
}

int cg_graph_depths(const cg_graph *g, uint32_t *d, cg_error *e) {
  uint32_t i, k;
  (void)e;
  for (i = g->n; i-- > 0;) { /* parents first */
    uint32_t m = 0;
    for (k = g->par_start[i]; k < g->par_start[i + 1]; k++)
      if (d[g->pars[k]] + 1 > m) m = d[g->pars[k]] + 1;
    d[i] = m;
  }
  return CG_OK;
}

void cg_graph_memory(const cg_graph *g, cg_gmem *m) {
  uint64_t n = g->n, nk = g->kid_start[g->n], no = g->op_start[g->n];
  m->nodes = (n + 1) * 4 * 3 + n;   /* kid/par/op starts, flags */
  m->kids = nk * 4;
  m->parents = nk * 4;
  m->ops = no * 9;
  m->values = g->has_val ? n * 8 : 0;
  m->total = m->nodes + m->kids + m->parents + m->ops + m->values +
             (uint64_t)(g->n_indep + g->n_dep) * 4 + (uint64_t)g->n_guard * sizeof(cg_guard);
}
