/* cg_jplan.c: kept Jacobian plans (cg_jplan.h): a vertex elimination
 * (Hovland, Norris, Utke & Strout, sec. 1) recorded once as multiply-adds
 * over edge slots, replayed at new points of the same graph. */
#include <stdlib.h>
#include <string.h>

#include "cg_jplan.h"
#include "cg_lin_impl.h"

/* {==== making a plan ====} */

/* The workspace of cg_jplan_new: the copy it eliminates and the column of
 * each vertex that is an independent (NONE for the others). */
typedef struct jp_work {
  cg_alloc *A;
  cg_lin *c;
  uint32_t *col_of, nv;
} jp_work;

/* Frees the workspace; frees p too unless ok (the one exit of cg_jplan_new). */
static cg_jplan *jp_done(jp_work *W, cg_jplan *p, int ok) {
  CG_FREE(W->A, W->col_of, uint32_t, W->nv);
  cg_lin_free(W->c);
  if (ok) return p;
  cg_jplan_free(p);
  return NULL;
}

void cg_jplan_free(cg_jplan *p) {
  cg_alloc *A;
  if (!p) return;
  A = p->A;
  CG_FREE(A, p->pnode, uint32_t, p->np), CG_FREE(A, p->pslot, uint32_t, 3 * (size_t)p->np);
  CG_FREE(A, p->uslot, uint32_t, p->nunit);
  CG_FREE(A, p->ops, uint32_t, 3 * (size_t)p->opcap);
  CG_FREE(A, p->row, uint32_t, p->nnz), CG_FREE(A, p->col, uint32_t, p->nnz);
  CG_FREE(A, p->oslot, uint32_t, p->nnz);
  CG_FREE(A, p->etail, uint32_t, p->ne0), CG_FREE(A, p->ehead, uint32_t, p->ne0);
  CG_FREE(A, p->eslot, uint32_t, p->ne0);
  CG_FREE(A, p->x, uint32_t, p->n), CG_FREE(A, p->y, uint32_t, p->m);
  CG_FREE(A, p->val, double, p->nval), CG_FREE(A, p->w, double, p->nslots);
  CG_FREE(A, p->t, double, p->nv);
  CG_FREE(A, p->yout, double, p->m), CG_FREE(A, p->jout, double, p->nnz);
  CG_FREE(A, p->vout, double, p->n > p->m ? p->n : p->m);
  CG_FREE(A, p, cg_jplan, 1);
}

/* The partial program: per vertex with in-edges that are not a unit copy
 * edge, its node and the slot of each operand's partial (the first operand
 * of a child sets the edge, a repeated one adds, as the linearizer sums
 * parallel partials); unit copy edges (tail and head of the same node,
 * Utke, Flattening Basic Blocks, sec. 6.2) into uslot. */
static int partial_program(cg_jplan *p, const cg_lin *c, cg_error *e) {
  const cg_graph *gr = p->gr;
  uint32_t u, k, i, np = 0, nu = 0;
  for (u = 0; u < c->nv; u++)
    if (c->in[u].n) {
      if (c->node[c->tail[c->in[u].e[0]]] == c->node[u]) nu += c->in[u].n;
      else np++;
    }
  p->pnode = CG_NEW(p->A, uint32_t, np), p->pslot = CG_NEW(p->A, uint32_t, 3 * (size_t)np);
  p->uslot = CG_NEW(p->A, uint32_t, nu);
  if (!p->pnode || !p->pslot || !p->uslot) {
    CG_FREE(p->A, p->pnode, uint32_t, np), CG_FREE(p->A, p->pslot, uint32_t, 3 * (size_t)np);
    CG_FREE(p->A, p->uslot, uint32_t, nu);
    p->pnode = p->pslot = p->uslot = NULL;
    return cg_seterr(e, CG_ENOMEM, "out of memory");
  }
  p->np = np, p->nunit = nu, np = nu = 0;
  for (u = 0; u < c->nv; u++) {
    uint32_t v = c->node[u], *ps;
    if (!c->in[u].n) continue;
    if (c->node[c->tail[c->in[u].e[0]]] == v) { /* a copy vertex: unit edges */
      for (k = 0; k < c->in[u].n; k++) p->uslot[nu++] = c->in[u].e[k];
      continue;
    }
    ps = p->pslot + 3 * (size_t)np;
    p->pnode[np++] = v;
    ps[0] = ps[1] = ps[2] = NONE;
    for (k = 0; k < c->in[u].n; k++) {
      uint32_t eid = c->in[u].e[k], tn = c->node[c->tail[eid]], flag = 0, hit = 0;
      for (i = 0; i < gr->kid_start[v + 1] - gr->kid_start[v]; i++)
        if (gr->kids[gr->kid_start[v] + i] == tn) ps[i] = eid | flag, flag = CG_JP_ADD, hit = 1;
      if (!hit)
        return cg_seterr(e, CG_EUSAGE, "edge %u -> %u of the linearized graph is no operand "
                         "of node %u: not the graph's linearized graph", c->tail[eid] + 1, u + 1,
                         v + 1);
    }
  }
  return CG_OK;
}

/* Appends the product (dst, a, b) to the program, growing it geometrically. */
static int push_op(cg_jplan *p, uint32_t dst, uint32_t a, uint32_t b) {
  if (p->nops == p->opcap) {
    uint64_t cap = p->opcap ? 2 * p->opcap : 64;
    uint32_t *o;
    if (cap > SIZE_MAX / 12) return CG_ENOMEM;
    o = CG_RENEW(p->A, p->ops, uint32_t, 3 * (size_t)p->opcap, 3 * (size_t)cap);
    if (!o) return CG_ENOMEM;
    p->ops = o, p->opcap = cap;
  }
  p->ops[3 * p->nops] = dst, p->ops[3 * p->nops + 1] = a, p->ops[3 * p->nops + 2] = b;
  p->nops++;
  return CG_OK;
}

/* Eliminates vertex v of c, recording each product w(i, k) (+)= w(i, v) *
 * w(v, k) and counting as cg_cost does; then v's edges go. */
static int record_vertex(cg_jplan *p, cg_lin *c, uint32_t v, cg_error *e) {
  uint32_t a, b, ni = c->in[v].n, no = c->out[v].n;
  if (v >= c->nv || c->kind[v] != CG_V_INTER)
    return cg_seterr(e, CG_EUSAGE, "vertex %u is not an intermediate", v + 1);
  for (a = 0; a < ni; a++)
    for (b = 0; b < no; b++) {
      uint32_t ei = c->in[v].e[a], eo = c->out[v].e[b]; /* re-read: adding may move the slab */
      uint32_t i = c->tail[ei], k = c->head[eo], dst;
      uint8_t mp = mark_prod(c->mark[ei], c->mark[eo]);
      int created = 0;
      p->cost.mults_nontrivial += c->mark[ei] < CG_E_PLUS1 && c->mark[eo] < CG_E_PLUS1;
      dst = cg_lin_add(c, i, k, 0.0, mp, &created);
      if (dst == NONE || push_op(p, created ? dst : dst | CG_JP_ADD, ei, eo))
        return cg_seterr(e, CG_ENOMEM, "out of memory");
      p->cost.mults++;
      if (created) p->cost.fill++;
      else p->cost.adds++;
    }
  while (c->in[v].n) cg_lin_remove(c, c->in[v].e[c->in[v].n - 1]);
  while (c->out[v].n) cg_lin_remove(c, c->out[v].e[c->out[v].n - 1]);
  c->kind[v] = CG_V_GONE;
  p->cost.steps++;
  if (c->nedges > p->cost.peak_edges) p->cost.peak_edges = c->nedges;
  return CG_OK;
}

/* The output map: per dependent, its in-edges (all from independents once
 * every intermediate is gone), sorted by column. */
static int output_map(cg_jplan *p, const cg_lin *c, const uint32_t *col_of, cg_error *e) {
  uint64_t nnz = 0, q = 0;
  uint32_t j, k;
  for (j = 0; j < c->m; j++) nnz += c->in[c->y[j]].n;
  p->row = CG_NEW(p->A, uint32_t, nnz), p->col = CG_NEW(p->A, uint32_t, nnz);
  p->oslot = CG_NEW(p->A, uint32_t, nnz);
  p->nnz = nnz; /* freed at this size by cg_jplan_free, whatever came */
  if (!p->row || !p->col || !p->oslot) return cg_seterr(e, CG_ENOMEM, "out of memory");
  for (j = 0; j < c->m; j++) {
    const cg_adj *in = &c->in[c->y[j]];
    uint64_t r0 = q;
    for (k = 0; k < in->n; k++, q++) { /* insertion by column: rows are short */
      uint32_t eid = in->e[k], col = col_of[c->tail[eid]];
      uint64_t z = q;
      if (col == NONE)
        return cg_seterr(e, CG_EUSAGE, "the order leaves vertex %u of the linearized graph "
                         "uneliminated", c->tail[eid] + 1);
      for (; z > r0 && p->col[z - 1] > col; z--)
        p->col[z] = p->col[z - 1], p->oslot[z] = p->oslot[z - 1];
      p->row[q] = j, p->col[z] = col, p->oslot[z] = eid;
    }
  }
  return CG_OK;
}

/* The linearized graph's edges sorted by head (a counting sort), for the
 * sweeps, and the independents' and dependents' vertices. */
static int sweep_edges(cg_jplan *p, const cg_lin *lg, const cg_lin *c, cg_error *e) {
  uint32_t eid, v, *start;
  p->ne0 = c->ne;
  p->etail = CG_NEW(p->A, uint32_t, p->ne0), p->ehead = CG_NEW(p->A, uint32_t, p->ne0);
  p->eslot = CG_NEW(p->A, uint32_t, p->ne0);
  p->x = CG_NEW(p->A, uint32_t, p->n), p->y = CG_NEW(p->A, uint32_t, p->m);
  start = CG_NEW(p->A, uint32_t, (size_t)c->nv + 1);
  if (!p->etail || !p->ehead || !p->eslot || !p->x || !p->y || !start) {
    CG_FREE(p->A, start, uint32_t, (size_t)c->nv + 1);
    return cg_seterr(e, CG_ENOMEM, "out of memory");
  }
  memcpy(p->x, lg->x, (size_t)p->n * 4), memcpy(p->y, lg->y, (size_t)p->m * 4);
  memset(start, 0, ((size_t)c->nv + 1) * 4);
  for (eid = 0; eid < c->ne; eid++) start[c->head[eid] + 1]++;
  for (v = 0; v < c->nv; v++) start[v + 1] += start[v];
  for (eid = 0; eid < c->ne; eid++) {
    uint32_t at = start[c->head[eid]]++;
    p->etail[at] = c->tail[eid], p->ehead[at] = c->head[eid], p->eslot[at] = eid;
  }
  CG_FREE(p->A, start, uint32_t, (size_t)c->nv + 1);
  return CG_OK;
}

cg_jplan *cg_jplan_new(cg_alloc *A, const cg_graph *gr, const cg_lin *lg, const uint32_t *seq,
                       uint32_t len, cg_error *e) {
  jp_work W;
  cg_jplan *p;
  uint32_t i;
  memset(&W, 0, sizeof W);
  W.A = A;
  if (!(p = CG_NEW(A, cg_jplan, 1))) return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
  memset(p, 0, sizeof *p);
  p->A = A, p->gr = gr, p->n = lg->n, p->m = lg->m, p->nv = lg->nv;
  for (i = 0; i < lg->nv && lg->kind[i] != CG_V_GONE; i++) continue;
  if (lg->n != gr->n_indep || lg->m != gr->n_dep || i < lg->nv || !lg->node)
    return cg_seterr(e, CG_EUSAGE, "a plan needs the graph's linearized graph, not eliminated"),
           jp_done(&W, p, 0);
  if (!(W.c = cg_lin_copy(lg, e))) return jp_done(&W, p, 0);
  W.nv = lg->nv;
  if (!(W.col_of = CG_NEW(p->A, uint32_t, W.nv)))
    return cg_seterr(e, CG_ENOMEM, "out of memory"), jp_done(&W, p, 0);
  for (i = 0; i < W.nv; i++) W.col_of[i] = NONE;
  for (i = 0; i < lg->n; i++) W.col_of[lg->x[i]] = i;
  if (sweep_edges(p, lg, W.c, e) || partial_program(p, W.c, e)) return jp_done(&W, p, 0);
  for (i = 0; i < len; i++)
    if (seq[i] >= W.nv) return cg_seterr(e, CG_EUSAGE, "vertex %u out of range", seq[i] + 1),
                        jp_done(&W, p, 0);
    else if (record_vertex(p, W.c, seq[i], e)) return jp_done(&W, p, 0);
  for (i = 0; i < W.nv; i++)
    if (W.c->kind[i] == CG_V_INTER)
      return cg_seterr(e, CG_EUSAGE, "the order leaves vertex %u of the linearized graph "
                       "uneliminated", i + 1), jp_done(&W, p, 0);
  if (output_map(p, W.c, W.col_of, e)) return jp_done(&W, p, 0);
  p->nslots = W.c->ne;
  p->nval = gr->n;
  p->val = CG_NEW(p->A, double, gr->n), p->w = CG_NEW(p->A, double, p->nslots);
  p->t = CG_NEW(p->A, double, p->nv);
  p->yout = CG_NEW(p->A, double, p->m), p->jout = CG_NEW(p->A, double, p->nnz);
  p->vout = CG_NEW(p->A, double, p->n > p->m ? p->n : p->m);
  if (!p->val || !p->w || !p->t || !p->yout || !p->jout || !p->vout)
    return cg_seterr(e, CG_ENOMEM, "out of memory"), jp_done(&W, p, 0);
  return jp_done(&W, p, 1);
}

/* {==== at a point ====} */

/* The partials of node v's chain at the values val (as the linearizer's
 * chain_partials: the first operation's partials times the derivative of
 * each later one), from the operation table (cg_gops.h). */
static inline void node_partials(const cg_graph *gr, const double *val, uint32_t v, double *d) {
  uint32_t o = gr->op_start[v], last = gr->op_start[v + 1] - 1, k0 = gr->kid_start[v];
  uint32_t nk = gr->kid_start[v + 1] - k0, q, i;
  double a[3] = {0, 0, 0}, r, dd[3];
  uint8_t mk[3];
  uint64_t sw = 0;
  for (i = 0; i < nk; i++) a[i] = val[gr->kids[k0 + i]];
  r = o == last ? val[v] : cg_gop_apply_inline(gr->op[o], gr->opc[o], a, &sw);
  cg_gop_partials_inline(gr->op[o], gr->opc[o], a, r, d, mk);
  for (q = o + 1; q <= last; q++) {
    double x[3] = {r, 0, 0};
    r = q == last ? val[v] : cg_gop_apply_inline(gr->op[q], gr->opc[q], x, &sw);
    cg_gop_partials_inline(gr->op[q], gr->opc[q], x, r, dd, mk);
    for (i = 0; i < nk; i++) d[i] *= dd[0];
  }
}

/* Evaluates the graph at x and, unless a branch changed, puts the local
 * partials into the slots of the linearized graph's edges. */
static int weights_at(cg_jplan *p, const double *x, double *y, cg_branch *br, cg_error *e) {
  const cg_graph *gr = p->gr;
  const uint32_t *ps = p->pslot;
  double *w = p->w, d[3];
  uint32_t k, i;
  int rc = cg_graph_eval(p->gr, x, p->val, y, br, e);
  if (rc || br->count) return rc;
  for (k = 0; k < p->np; k++, ps += 3) {
    uint32_t v = p->pnode[k], o = gr->op_start[v];
    const uint32_t *kid = gr->kids + gr->kid_start[v];
    switch (gr->op_start[v + 1] - o == 1 ? gr->op[o] : CG_G_COUNT) { /* the commonest, inline */
      case CG_G_ADD: d[0] = d[1] = 1; break;
      case CG_G_SUB: d[0] = 1, d[1] = -1; break;
      case CG_G_MUL: d[0] = p->val[kid[1]], d[1] = p->val[kid[0]]; break;
      case CG_G_MULC: d[0] = gr->opc[o]; break;
      default: node_partials(gr, p->val, v, d); break; /* the table's rows (cg_gops.h) */
    }
    for (i = 0; i < 3; i++)
      if (ps[i] != NONE) {
        if (ps[i] & CG_JP_ADD) w[ps[i] & ~CG_JP_ADD] += d[i];
        else w[ps[i]] = d[i];
      }
  }
  for (k = 0; k < p->nunit; k++) w[p->uslot[k]] = 1.0;
  return CG_OK;
}

int cg_jplan_at(cg_jplan *p, const double *x, double *y, double *J, cg_branch *br, cg_error *e) {
  const uint32_t *op = p->ops, *end = p->ops + 3 * p->nops;
  double *w = p->w;
  uint64_t k;
  int rc;
  if ((rc = weights_at(p, x, y, br, e)) || br->count) return rc;
  for (; op < end; op += 3) { /* the recorded elimination */
    uint32_t dst = op[0];
    if (dst & CG_JP_ADD) w[dst & ~CG_JP_ADD] += w[op[1]] * w[op[2]];
    else w[dst] = w[op[1]] * w[op[2]];
  }
  for (k = 0; k < p->nnz; k++) J[k] = w[p->oslot[k]];
  return CG_OK;
}

int cg_jplan_jvp(cg_jplan *p, const double *x, const double *v, double *y, double *jv,
                 cg_branch *br, cg_error *e) {
  double *t = p->t;
  uint32_t k;
  int rc;
  if ((rc = weights_at(p, x, y, br, e)) || br->count) return rc;
  memset(t, 0, (size_t)p->nv * sizeof *t);
  for (k = 0; k < p->n; k++) t[p->x[k]] = v[k];
  for (k = 0; k < p->ne0; k++) /* by head: every tail is final before its heads */
    t[p->ehead[k]] += p->w[p->eslot[k]] * t[p->etail[k]];
  for (k = 0; k < p->m; k++) jv[k] = t[p->y[k]];
  return CG_OK;
}

int cg_jplan_vjp(cg_jplan *p, const double *x, const double *wt, double *y, double *wj,
                 cg_branch *br, cg_error *e) {
  double *t = p->t;
  uint32_t k;
  int rc;
  if ((rc = weights_at(p, x, y, br, e)) || br->count) return rc;
  memset(t, 0, (size_t)p->nv * sizeof *t);
  for (k = 0; k < p->m; k++) t[p->y[k]] += wt[k];
  for (k = p->ne0; k-- > 0;) /* heads downward: every head is final before its tails */
    t[p->etail[k]] += p->w[p->eslot[k]] * t[p->ehead[k]];
  for (k = 0; k < p->n; k++) wj[k] = t[p->x[k]];
  return CG_OK;
}
