/* cg_lin.c: linearized graphs: storage, linearization, reference Jacobians,
 * and the elimination steps (seed 004 section 1). */
#include <math.h>
#include <string.h>

#include "cg_lin.h"

#define NONE UINT32_MAX

/* {==== storage ====} */

cg_lin *cg_lin_new(cg_alloc *A, uint32_t nv, cg_error *e) {
  cg_lin *g = (cg_lin *)cg_malloc(A, sizeof *g);
  if (!g) return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
  memset(g, 0, sizeof *g);
  g->A = A;
  g->nv = nv;
  g->kind = (uint8_t *)cg_malloc(A, nv ? nv : 1);
  g->node = (uint32_t *)cg_malloc(A, (size_t)(nv ? nv : 1) * 4);
  g->in = (cg_adj *)cg_malloc(A, (size_t)(nv ? nv : 1) * sizeof(cg_adj));
  g->out = (cg_adj *)cg_malloc(A, (size_t)(nv ? nv : 1) * sizeof(cg_adj));
  /* empty lists first: cg_lin_free walks them when another array failed */
  if (g->in) memset(g->in, 0, (size_t)(nv ? nv : 1) * sizeof(cg_adj));
  if (g->out) memset(g->out, 0, (size_t)(nv ? nv : 1) * sizeof(cg_adj));
  if (!g->kind || !g->node || !g->in || !g->out) {
    cg_lin_free(g);
    return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
  }
  memset(g->kind, CG_V_INTER, nv ? nv : 1);
  memset(g->node, 0xff, (size_t)(nv ? nv : 1) * 4);
  g->has_w = 1;
  return g;
}

void cg_lin_free(cg_lin *g) {
  cg_alloc *A;
  uint32_t v, nv;
  if (!g) return;
  A = g->A;
  nv = g->nv ? g->nv : 1;
  for (v = 0; g->in && g->out && v < g->nv; v++) {
    cg_free(A, g->in[v].e, (size_t)g->in[v].cap * 4);
    cg_free(A, g->out[v].e, (size_t)g->out[v].cap * 4);
  }
  cg_free(A, g->in, nv * sizeof(cg_adj));
  cg_free(A, g->out, nv * sizeof(cg_adj));
  cg_free(A, g->kind, nv);
  cg_free(A, g->node, (size_t)nv * 4);
  cg_free(A, g->x, (size_t)(g->n ? g->n : 1) * 4);
  cg_free(A, g->y, (size_t)(g->m ? g->m : 1) * 4);
  cg_free(A, g->tail, (size_t)g->ecap * 4);
  cg_free(A, g->head, (size_t)g->ecap * 4);
  cg_free(A, g->w, (size_t)g->ecap * 8);
  cg_free(A, g->mark, g->ecap);
  cg_free(A, g->efree, (size_t)g->ecap * 4);
  cg_free(A, g->undo, g->capundo * sizeof(cg_undo));
  cg_free(A, g, sizeof *g);
}

/* Appends edge id to an adjacency list. */
int cg_adj_push(cg_alloc *A, cg_adj *a, uint32_t eid) {
  if (a->n == a->cap) {
    uint32_t nc = a->cap ? a->cap * 2 : 4;
    void *p = cg_realloc(A, a->e, (size_t)a->cap * 4, (size_t)nc * 4);
    if (!p) return CG_ENOMEM;
    a->e = (uint32_t *)p;
    a->cap = nc;
  }
  a->e[a->n++] = eid;
  return CG_OK;
}

void cg_adj_drop(cg_adj *a, uint32_t eid) {
  uint32_t i;
  for (i = 0; i < a->n; i++)
    if (a->e[i] == eid) {
      a->e[i] = a->e[--a->n]; /* order inside a list carries no meaning */
      return;
    }
}

/* Doubles the edge pool: all five arrays or none, so that a failure leaves
 * the pool as it was and cg_lin_free frees each array at the size it has. */
static int grow_edges(cg_lin *g) {
  uint32_t nc = g->ecap ? g->ecap * 2 : 64, oc = g->ecap;
  void **arr[5];
  void *p[5];
  static const size_t el[5] = {4, 4, 8, 1, 4};
  int i, ok = 1;
  if (nc < oc || nc >= NONE) return CG_ENOMEM;
  arr[0] = (void **)&g->tail, arr[1] = (void **)&g->head, arr[2] = (void **)&g->w;
  arr[3] = (void **)&g->mark, arr[4] = (void **)&g->efree;
  for (i = 0; i < 5; i++) ok &= (p[i] = cg_malloc(g->A, (size_t)nc * el[i])) != NULL;
  for (i = 0; i < 5; i++) {
    if (!ok) {
      cg_free(g->A, p[i], (size_t)nc * el[i]);
      continue;
    }
    if (oc) memcpy(p[i], *arr[i], (size_t)oc * el[i]);
    cg_free(g->A, *arr[i], (size_t)oc * el[i]);
    *arr[i] = p[i];
  }
  if (!ok) return CG_ENOMEM;
  g->ecap = nc;
  return CG_OK;
}

/* Grows the edge pool by one slot (ids freed earlier are reused first). */
static uint32_t edge_slot(cg_lin *g) {
  if (g->nfree) return g->efree[--g->nfree];
  if (g->ne == g->ecap && grow_edges(g)) return NONE;
  return g->ne++;
}

uint32_t cg_lin_find(const cg_lin *g, uint32_t i, uint32_t k) {
  const cg_adj *a = g->out[i].n <= g->in[k].n ? &g->out[i] : &g->in[k];
  uint32_t j;
  for (j = 0; j < a->n; j++) {
    uint32_t eid = a->e[j];
    if (g->tail[eid] == i && g->head[eid] == k) return eid;
  }
  return NONE;
}

/* The mark of a sum of two weights with marks a and b. */
static uint8_t mark_sum(uint8_t a, uint8_t b) {
  return (a != CG_E_VAR && b != CG_E_VAR) ? CG_E_CONST : CG_E_VAR;
}

/* The mark of a product. */
static uint8_t mark_prod(uint8_t a, uint8_t b) {
  if (a == CG_E_VAR || b == CG_E_VAR) return CG_E_VAR;
  if (a == CG_E_CONST || b == CG_E_CONST) return CG_E_CONST;
  return a == b ? CG_E_PLUS1 : CG_E_MINUS1;
}

/* A new edge (i, k) known to be absent; UINT32_MAX (nothing changed) when
 * memory runs out. */
static uint32_t add_new(cg_lin *g, uint32_t i, uint32_t k, double w, uint8_t mark) {
  uint32_t eid = edge_slot(g);
  if (eid == NONE) return NONE;
  if (cg_adj_push(g->A, &g->out[i], eid)) {
    g->efree[g->nfree++] = eid;
    return NONE;
  }
  if (cg_adj_push(g->A, &g->in[k], eid)) {
    g->out[i].n--;
    g->efree[g->nfree++] = eid;
    return NONE;
  }
  g->tail[eid] = i;
  g->head[eid] = k;
  g->w[eid] = w;
  g->mark[eid] = mark;
  g->nedges++;
  return eid;
}

uint32_t cg_lin_add(cg_lin *g, uint32_t i, uint32_t k, double w, uint8_t mark, int *created) {
  uint32_t eid = cg_lin_find(g, i, k);
  if (created) *created = eid == NONE;
  if (eid == NONE) return add_new(g, i, k, w, mark);
  g->w[eid] += w;
  g->mark[eid] = mark_sum(g->mark[eid], mark);
  return eid;
}

void cg_lin_remove(cg_lin *g, uint32_t eid) {
  cg_adj_drop(&g->out[g->tail[eid]], eid);
  cg_adj_drop(&g->in[g->head[eid]], eid);
  g->tail[eid] = g->head[eid] = NONE;
  g->efree[g->nfree++] = eid;
  g->nedges--;
}

int cg_lin_set_xy(cg_lin *g, const uint32_t *x, uint32_t n, const uint32_t *y, uint32_t m,
                  cg_error *e) {
  uint32_t i;
  g->x = (uint32_t *)cg_malloc(g->A, (size_t)(n ? n : 1) * 4);
  g->y = (uint32_t *)cg_malloc(g->A, (size_t)(m ? m : 1) * 4);
  g->n = n; /* before any return: cg_lin_free frees x and y at these sizes */
  g->m = m;
  if (!g->x || !g->y) return cg_seterr(e, CG_ENOMEM, "out of memory");
  for (i = 0; i < n; i++) {
    if (x[i] >= g->nv) return cg_seterr(e, CG_EFORMAT, "independent %u is not a vertex", x[i]);
    g->x[i] = x[i];
    g->kind[x[i]] = CG_V_INDEP;
  }
  for (i = 0; i < m; i++) {
    if (y[i] >= g->nv) return cg_seterr(e, CG_EFORMAT, "dependent %u is not a vertex", y[i]);
    g->y[i] = y[i];
    g->kind[y[i]] = g->kind[y[i]] == CG_V_INDEP ? CG_V_INDEP : CG_V_DEP;
  }
  return CG_OK;
}

cg_lin *cg_lin_copy(const cg_lin *s, cg_error *e) {
  cg_lin *g = cg_lin_new(s->A, s->nv, e);
  uint32_t v, k;
  if (!g) return NULL;
  memcpy(g->kind, s->kind, s->nv);
  memcpy(g->node, s->node, (size_t)s->nv * 4);
  g->has_w = s->has_w;
  if (cg_lin_set_xy(g, s->x, s->n, s->y, s->m, e)) goto fail;
  memcpy(g->kind, s->kind, s->nv); /* set_xy rewrites kinds; keep the source's */
  for (v = 0; v < s->nv; v++)
    for (k = 0; k < s->out[v].n; k++) {
      uint32_t eid = s->out[v].e[k];
      if (cg_lin_add(g, v, s->head[eid], s->w[eid], s->mark[eid], NULL) == NONE) {
        cg_seterr(e, CG_ENOMEM, "out of memory");
        goto fail;
      }
    }
  return g;
fail:
  cg_lin_free(g);
  return NULL;
}

int cg_lin_check(const cg_lin *g, cg_error *e) {
  uint32_t v, k;
  uint64_t count = 0;
  for (v = 0; v < g->nv; v++) {
    for (k = 0; k < g->out[v].n; k++) {
      uint32_t eid = g->out[v].e[k], h = g->head[eid];
      if (g->tail[eid] != v || h <= v || h >= g->nv)
        return cg_seterr(e, CG_ERUNTIME, "edge %u: bad ends %u -> %u", eid, v, h);
      if (cg_lin_find(g, v, h) != eid)
        return cg_seterr(e, CG_ERUNTIME, "edge %u -> %u is not unique", v, h);
      count++;
    }
    if (g->kind[v] == CG_V_INDEP && g->in[v].n)
      return cg_seterr(e, CG_ERUNTIME, "independent vertex %u has in-edges", v);
  }
  if (count != g->nedges)
    return cg_seterr(e, CG_ERUNTIME, "edge count %llu, lists hold %llu",
                     (unsigned long long)g->nedges, (unsigned long long)count);
  return CG_OK;
}

uint64_t cg_lin_markowitz(const cg_lin *g, uint32_t v) {
  return (uint64_t)g->in[v].n * g->out[v].n;
}

/* {==== linearization ====} */

/* Local partials d[i] of graph operation op with operands a[] and result r,
 * and their marks (what is known of them structurally). */
static void gop_partials(unsigned op, double c, const double *a, double r, double *d,
                         uint8_t *mk) {
  mk[0] = mk[1] = mk[2] = CG_E_VAR;
  d[0] = d[1] = d[2] = 0;
  switch (op) {
    case CG_G_COPY: d[0] = 1, mk[0] = CG_E_PLUS1; break;
    case CG_G_ADD: d[0] = d[1] = 1, mk[0] = mk[1] = CG_E_PLUS1; break;
    case CG_G_SUB: d[0] = 1, d[1] = -1, mk[0] = CG_E_PLUS1, mk[1] = CG_E_MINUS1; break;
    case CG_G_MUL: d[0] = a[1], d[1] = a[0]; break;
    case CG_G_DIV: d[0] = 1 / a[1], d[1] = -r / a[1]; break;
    case CG_G_MIN: if (a[0] > a[1]) d[1] = 1; else d[0] = 1; break;
    case CG_G_ADDC: d[0] = 1, mk[0] = CG_E_PLUS1; break;
    case CG_G_RSUB: d[0] = -1, mk[0] = CG_E_MINUS1; break;
    case CG_G_MULC: d[0] = c, mk[0] = CG_E_CONST; break;
    case CG_G_DIVC: d[0] = 1 / c, mk[0] = CG_E_CONST; break;
    case CG_G_RDIV: d[0] = -r / a[0]; break;
    case CG_G_POWC: d[0] = c == 0 ? 0 : c * pow(a[0], c - 1); break;
    case CG_G_NEG: d[0] = -1, mk[0] = CG_E_MINUS1; break;
    case CG_G_EXP: d[0] = r; break;
    case CG_G_LOG: d[0] = 1 / a[0]; break;
    case CG_G_SQRT: d[0] = 0.5 / r; break;
    case CG_G_CBRT: d[0] = 1 / (3 * r * r); break;
    case CG_G_SIN: d[0] = cos(a[0]); break;
    case CG_G_COS: d[0] = -sin(a[0]); break;
    case CG_G_TAN: d[0] = 1 + r * r; break;
    case CG_G_ASIN: d[0] = 1 / sqrt(1 - a[0] * a[0]); break;
    case CG_G_ACOS: d[0] = -1 / sqrt(1 - a[0] * a[0]); break;
    case CG_G_ATAN: d[0] = 1 / (1 + a[0] * a[0]); break;
    case CG_G_ASINH: d[0] = 1 / sqrt(a[0] * a[0] + 1); break;
    case CG_G_ACOSH: d[0] = 1 / sqrt(a[0] * a[0] - 1); break;
    case CG_G_ATANH: d[0] = 1 / (1 - a[0] * a[0]); break;
    case CG_G_ERF: d[0] = 1.1283791670955126 * exp(-a[0] * a[0]); break;
    case CG_G_ABS: d[0] = a[0] > 0 ? 1 : a[0] < 0 ? -1 : 0; break;
    case CG_G_COND: if (a[0] > 0) d[1] = 1; else d[2] = 1; break;
    case CG_G_CONDEQ: if (a[0] >= 0) d[1] = 1; else d[2] = 1; break;
    default: break; /* INDEP, CONST, CEIL, FLOOR: no partials */
  }
}

/* The partials of node v's whole chain with respect to its children: the
 * first operation's partials times the derivative of each later one. */
static int node_partials(const cg_graph *gr, uint32_t v, double *d, uint8_t *mk) {
  uint32_t o = gr->op_start[v], nk = gr->kid_start[v + 1] - gr->kid_start[v], i;
  double a[3], r, dd[3];
  uint8_t m2[3];
  uint64_t sw = 0;
  for (i = 0; i < nk; i++) a[i] = gr->val[gr->kids[gr->kid_start[v] + i]];
  r = cg_gop_apply(gr->op[o], gr->opc[o], a, &sw);
  gop_partials(gr->op[o], gr->opc[o], a, r, d, mk);
  for (o++; o < gr->op_start[v + 1]; o++) {
    double x = r;
    r = cg_gop_apply(gr->op[o], gr->opc[o], &x, &sw);
    gop_partials(gr->op[o], gr->opc[o], &x, r, dd, m2);
    for (i = 0; i < nk; i++) {
      d[i] *= dd[0];
      mk[i] = mark_prod(mk[i], m2[0]);
    }
  }
  for (i = 0; i < nk; i++) /* a structural zero stays out of the graph */
    if (d[i] == 0 && (gr->op[gr->op_start[v]] == CG_G_COND || gr->op[gr->op_start[v]] == CG_G_CONDEQ ||
                      gr->op[gr->op_start[v]] == CG_G_MIN))
      mk[i] = 0xff;
  return (int)nk;
}

/* Marks nodes on a path from an independent to a dependent (rel[v] = 3). */
static void relevant(const cg_graph *gr, uint8_t *rel) {
  uint32_t v, k;
  memset(rel, 0, gr->n ? gr->n : 1);
  for (v = 0; v < gr->n; v++) {
    if (gr->op[gr->op_start[v]] == CG_G_INDEP) rel[v] |= 1;
    for (k = gr->kid_start[v]; k < gr->kid_start[v + 1]; k++) rel[v] |= rel[gr->kids[k]] & 1;
  }
  for (k = 0; k < gr->n_dep; k++) rel[gr->dep[k]] |= 2;
  for (v = gr->n; v-- > 0;)
    if (rel[v] & 2)
      for (k = gr->kid_start[v]; k < gr->kid_start[v + 1]; k++) rel[gr->kids[k]] |= 2;
}

/* Numbers the vertices: relevant nodes, independents and dependents in node
 * order, then one copy vertex per dependent that needs one. */
static uint32_t number_vertices(const cg_graph *gr, const uint8_t *rel, uint32_t *vid,
                                uint8_t *ydone, uint32_t *ycopy) {
  uint32_t v, j, k, nv = 0;
  for (v = 0; v < gr->n; v++) {
    int keep = rel[v] == 3 || gr->op[gr->op_start[v]] == CG_G_INDEP || (gr->flags[v] & CG_NF_DEP);
    vid[v] = keep ? nv++ : NONE;
  }
  memset(ydone, 0, gr->n ? gr->n : 1);
  for (j = 0; j < gr->n_dep; j++) /* a node that is two dependents: each gets a copy */
    if (ydone[gr->dep[j]] < 2) ydone[gr->dep[j]]++;
  for (j = 0; j < gr->n_dep; j++) {
    uint32_t d = gr->dep[j];
    int maximal = 1;
    for (k = gr->par_start[d]; k < gr->par_start[d + 1]; k++)
      if (rel[gr->pars[k]] == 3) maximal = 0;
    if (maximal && ydone[d] == 1 && gr->op[gr->op_start[d]] != CG_G_INDEP) {
      ydone[d] = 1;
      ycopy[j] = NONE;
    } else {
      ycopy[j] = nv++; /* seed 002 section 6.2: a unit copy edge */
    }
  }
  return nv;
}

/* Adds the edges into vertex vid[v] from its relevant children. */
static int node_edges(cg_lin *g, const cg_graph *gr, const uint8_t *rel, const uint32_t *vid,
                      uint32_t v) {
  double d[3];
  uint8_t mk[3];
  int nk, i;
  if (gr->kid_start[v] == gr->kid_start[v + 1] || rel[v] != 3) return CG_OK;
  nk = node_partials(gr, v, d, mk);
  for (i = 0; i < nk; i++) {
    uint32_t c = gr->kids[gr->kid_start[v] + (uint32_t)i];
    if (rel[c] != 3 || mk[i] == 0xff) continue;
    if (cg_lin_add(g, vid[c], vid[v], d[i], mk[i], NULL) == NONE) return CG_ENOMEM;
  }
  return CG_OK;
}

cg_lin *cg_lin_from_graph(const cg_graph *gr, cg_error *e) {
  uint8_t *rel = NULL, *ydone = NULL;
  uint32_t *vid = NULL, *ycopy = NULL, *ys = NULL, *xs = NULL, v, j, nv;
  cg_lin *g = NULL;
  size_t n = gr->n ? gr->n : 1;
  if (!gr->has_val)
    return cg_seterr(e, CG_EUSAGE, "linearizing needs the values of the independents; give --at"),
           NULL;
  rel = (uint8_t *)cg_malloc(gr->A, n);
  ydone = (uint8_t *)cg_malloc(gr->A, n);
  vid = (uint32_t *)cg_malloc(gr->A, n * 4);
  ycopy = (uint32_t *)cg_malloc(gr->A, (size_t)(gr->n_dep ? gr->n_dep : 1) * 4);
  ys = (uint32_t *)cg_malloc(gr->A, (size_t)(gr->n_dep ? gr->n_dep : 1) * 4);
  xs = (uint32_t *)cg_malloc(gr->A, (size_t)(gr->n_indep ? gr->n_indep : 1) * 4);
  if (!rel || !ydone || !vid || !ycopy || !ys || !xs) {
    cg_seterr(e, CG_ENOMEM, "out of memory");
    goto done;
  }
  relevant(gr, rel);
  nv = number_vertices(gr, rel, vid, ydone, ycopy);
  if (!(g = cg_lin_new(gr->A, nv, e))) goto done;
  for (v = 0; v < gr->n; v++)
    if (vid[v] != NONE) {
      g->node[vid[v]] = v;
      if (node_edges(g, gr, rel, vid, v)) {
        cg_seterr(e, CG_ENOMEM, "out of memory");
        goto fail;
      }
    }
  for (j = 0; j < gr->n_dep; j++) {
    ys[j] = ycopy[j] == NONE ? vid[gr->dep[j]] : ycopy[j];
    if (ycopy[j] != NONE) {
      g->node[ycopy[j]] = gr->dep[j];
      if (cg_lin_add(g, vid[gr->dep[j]], ycopy[j], 1.0, CG_E_PLUS1, NULL) == NONE) {
        cg_seterr(e, CG_ENOMEM, "out of memory");
        goto fail;
      }
    }
  }
  for (j = 0; j < gr->n_indep; j++) xs[j] = vid[gr->indep[j]];
  if (cg_lin_set_xy(g, xs, gr->n_indep, ys, gr->n_dep, e)) goto fail;
  goto done;
fail:
  cg_lin_free(g);
  g = NULL;
done:
  cg_free(gr->A, rel, n);
  cg_free(gr->A, ydone, n);
  cg_free(gr->A, vid, n * 4);
  cg_free(gr->A, ycopy, (size_t)(gr->n_dep ? gr->n_dep : 1) * 4);
  cg_free(gr->A, ys, (size_t)(gr->n_dep ? gr->n_dep : 1) * 4);
  cg_free(gr->A, xs, (size_t)(gr->n_indep ? gr->n_indep : 1) * 4);
  return g;
}

/* {==== reference Jacobians ====} */

void cg_jac_free(cg_alloc *A, cg_jac *J) {
  size_t n = (size_t)(J->nnz ? J->nnz : 1);
  cg_free(A, J->row, n * 4);
  cg_free(A, J->col, n * 4);
  cg_free(A, J->val, n * 8);
  memset(J, 0, sizeof *J);
}

/* Appends an entry, growing the arrays (capacity in *cap). */
static int jac_push(cg_alloc *A, cg_jac *J, size_t *cap, uint32_t r, uint32_t c, double v) {
  if (J->nnz == *cap) {
    size_t nc = *cap ? *cap * 2 : 64;
    void *a = cg_realloc(A, J->row, *cap * 4, nc * 4), *b, *d;
    if (!a) return CG_ENOMEM;
    J->row = (uint32_t *)a;
    b = cg_realloc(A, J->col, *cap * 4, nc * 4);
    if (!b) return CG_ENOMEM;
    J->col = (uint32_t *)b;
    d = cg_realloc(A, J->val, *cap * 8, nc * 8);
    if (!d) return CG_ENOMEM;
    J->val = (double *)d;
    *cap = nc;
  }
  J->row[J->nnz] = r;
  J->col[J->nnz] = c;
  J->val[J->nnz++] = v;
  return CG_OK;
}

/* Shrinks the arrays to nnz (so cg_jac_free's sizes are exact). */
static int jac_fit(cg_alloc *A, cg_jac *J, size_t cap) {
  size_t n = (size_t)(J->nnz ? J->nnz : 1);
  void *a, *b, *c;
  if (!J->row) {
    J->row = (uint32_t *)cg_malloc(A, 4);
    J->col = (uint32_t *)cg_malloc(A, 4);
    J->val = (double *)cg_malloc(A, 8);
    return J->row && J->col && J->val ? CG_OK : CG_ENOMEM;
  }
  a = cg_realloc(A, J->row, cap * 4, n * 4);
  if (a) J->row = (uint32_t *)a;
  b = cg_realloc(A, J->col, cap * 4, n * 4);
  if (b) J->col = (uint32_t *)b;
  c = cg_realloc(A, J->val, cap * 8, n * 8);
  if (c) J->val = (double *)c;
  return a && b && c ? CG_OK : CG_ENOMEM;
}

/* Sorts entries by (row, col): a counting sort by column, then by row,
 * stable, into fresh arrays. */
static int jac_sort(cg_alloc *A, cg_jac *J) {
  size_t n = (size_t)J->nnz, i, *cnt;
  uint32_t *r2, *c2, *ri, *ci;
  double *v2, *vi;
  int pass;
  if (n < 2) return CG_OK;
  r2 = (uint32_t *)cg_malloc(A, n * 4);
  c2 = (uint32_t *)cg_malloc(A, n * 4);
  v2 = (double *)cg_malloc(A, n * 8);
  cnt = (size_t *)cg_malloc(A, ((size_t)(J->m > J->n ? J->m : J->n) + 1) * sizeof(size_t));
  if (!r2 || !c2 || !v2 || !cnt) {
    cg_free(A, r2, n * 4), cg_free(A, c2, n * 4), cg_free(A, v2, n * 8);
    cg_free(A, cnt, ((size_t)(J->m > J->n ? J->m : J->n) + 1) * sizeof(size_t));
    return CG_ENOMEM;
  }
  for (pass = 0; pass < 2; pass++) { /* LSD radix: column, then row */
    uint32_t *key = pass == 0 ? J->col : J->row, nk = pass == 0 ? J->n : J->m;
    memset(cnt, 0, ((size_t)nk + 1) * sizeof(size_t));
    for (i = 0; i < n; i++) cnt[key[i] + 1]++;
    for (i = 1; i <= nk; i++) cnt[i] += cnt[i - 1];
    for (i = 0; i < n; i++) {
      size_t p = cnt[key[i]]++;
      r2[p] = J->row[i], c2[p] = J->col[i], v2[p] = J->val[i];
    }
    ri = J->row, ci = J->col, vi = J->val;
    J->row = r2, J->col = c2, J->val = v2;
    r2 = ri, c2 = ci, v2 = vi;
  }
  cg_free(A, r2, n * 4);
  cg_free(A, c2, n * 4);
  cg_free(A, v2, n * 8);
  cg_free(A, cnt, ((size_t)(J->m > J->n ? J->m : J->n) + 1) * sizeof(size_t));
  return CG_OK;
}

/* One tangent (dir = 1) or adjoint (dir = 0) sweep per independent or
 * dependent, over the graph's current edges. */
static int jac_sweep(const cg_lin *g, cg_jac *J, int fwd, cg_error *e) {
  double *t = (double *)cg_malloc(g->A, (size_t)(g->nv ? g->nv : 1) * 8);
  size_t cap = 0;
  uint32_t s, v, k, nseed = fwd ? g->n : g->m;
  int rc = CG_OK;
  memset(J, 0, sizeof *J);
  J->m = g->m;
  J->n = g->n;
  if (!t) return cg_seterr(e, CG_ENOMEM, "out of memory");
  for (s = 0; s < nseed && !rc; s++) {
    memset(t, 0, (size_t)(g->nv ? g->nv : 1) * 8);
    if (fwd) {
      t[g->x[s]] = 1;
      for (v = 0; v < g->nv; v++)
        for (k = 0; k < g->in[v].n; k++) {
          uint32_t eid = g->in[v].e[k];
          t[v] += g->w[eid] * t[g->tail[eid]];
        }
      for (k = 0; k < g->m && !rc; k++)
        if (t[g->y[k]] != 0) rc = jac_push(g->A, J, &cap, k, s, t[g->y[k]]);
    } else {
      t[g->y[s]] = 1;
      for (v = g->nv; v-- > 0;)
        for (k = 0; k < g->out[v].n; k++) {
          uint32_t eid = g->out[v].e[k];
          t[v] += g->w[eid] * t[g->head[eid]];
        }
      for (k = 0; k < g->n && !rc; k++)
        if (t[g->x[k]] != 0) rc = jac_push(g->A, J, &cap, s, k, t[g->x[k]]);
    }
  }
  cg_free(g->A, t, (size_t)(g->nv ? g->nv : 1) * 8);
  if (!rc) rc = jac_fit(g->A, J, cap);
  if (!rc) rc = jac_sort(g->A, J);
  if (rc) {
    cg_jac_free(g->A, J);
    return cg_seterr(e, CG_ENOMEM, "out of memory for the Jacobian");
  }
  return CG_OK;
}

int cg_lin_jac_forward(const cg_lin *g, cg_jac *J, cg_error *e) { return jac_sweep(g, J, 1, e); }
int cg_lin_jac_reverse(const cg_lin *g, cg_jac *J, cg_error *e) { return jac_sweep(g, J, 0, e); }

int cg_lin_jac_bipartite(const cg_lin *g, cg_jac *J, cg_error *e) {
  uint32_t *row_of, i, k;
  size_t cap = 0;
  int rc = CG_OK;
  memset(J, 0, sizeof *J);
  J->m = g->m;
  J->n = g->n;
  row_of = (uint32_t *)cg_malloc(g->A, (size_t)(g->nv ? g->nv : 1) * 4);
  if (!row_of) return cg_seterr(e, CG_ENOMEM, "out of memory");
  memset(row_of, 0xff, (size_t)(g->nv ? g->nv : 1) * 4);
  for (k = 0; k < g->m; k++) row_of[g->y[k]] = k;
  for (i = 0; i < g->n && !rc; i++) {
    uint32_t xv = g->x[i];
    for (k = 0; k < g->out[xv].n && !rc; k++) {
      uint32_t eid = g->out[xv].e[k], h = g->head[eid];
      if (g->kind[h] != CG_V_DEP) {
        cg_free(g->A, row_of, (size_t)(g->nv ? g->nv : 1) * 4);
        cg_jac_free(g->A, J);
        return cg_seterr(e, CG_EUSAGE, "vertex %u is not eliminated yet", h + 1);
      }
      rc = jac_push(g->A, J, &cap, row_of[h], i, g->w[eid]);
    }
  }
  /* an independent that is also a dependent: its identity entry (row_of now
   * maps independents to columns: O(n + m), not O(n m)) */
  for (i = 0; i < g->n; i++) row_of[g->x[i]] = i;
  for (k = 0; k < g->m && !rc; k++)
    if (g->kind[g->y[k]] == CG_V_INDEP) rc = jac_push(g->A, J, &cap, k, row_of[g->y[k]], 1.0);
  cg_free(g->A, row_of, (size_t)(g->nv ? g->nv : 1) * 4);
  if (!rc) rc = jac_fit(g->A, J, cap);
  if (!rc) rc = jac_sort(g->A, J);
  if (rc) {
    cg_jac_free(g->A, J);
    return cg_seterr(e, CG_ENOMEM, "out of memory for the Jacobian");
  }
  return CG_OK;
}

/* {==== elimination steps ====} */

/* Starts a step of at most `pairs` accumulations: the undo log gets room
 * for all of them first, so a failure here changes nothing. */
static int step_begin(cg_lin *g, uint64_t pairs) {
  g->nundo = 0;
  if (pairs > SIZE_MAX / sizeof(cg_undo)) return CG_ENOMEM;
  return cg_reserve(g->A, (void **)&g->undo, &g->capundo, (size_t)pairs, sizeof(cg_undo));
}

/* Undoes the step in progress, newest change first. */
static void step_rollback(cg_lin *g) {
  while (g->nundo) {
    const cg_undo *u = &g->undo[--g->nundo];
    if (u->created) cg_lin_remove(g, u->eid);
    else g->w[u->eid] = u->w, g->mark[u->eid] = u->mark;
  }
}

/* w(i, k) += a * b with the accounting of cg_cost, logged for undo. */
static int accumulate(cg_lin *g, uint32_t i, uint32_t k, double a, uint8_t ma, double b,
                      uint8_t mb, cg_cost *c) {
  uint8_t mp = mark_prod(ma, mb);
  uint32_t eid = cg_lin_find(g, i, k);
  cg_undo *u = &g->undo[g->nundo];
  if (eid != NONE) {
    u->w = g->w[eid], u->mark = g->mark[eid], u->eid = eid, u->created = 0;
    g->w[eid] += a * b;
    g->mark[eid] = mark_sum(g->mark[eid], mp);
  } else {
    if ((eid = add_new(g, i, k, a * b, mp)) == NONE) return CG_ENOMEM;
    u->eid = eid, u->created = 1;
  }
  g->nundo++;
  if (c) {
    c->mults++;
    if (ma < CG_E_PLUS1 && mb < CG_E_PLUS1) c->mults_nontrivial++;
    if (u->created) c->fill++;
    else c->adds++;
    if (g->nedges > c->peak_edges) c->peak_edges = g->nedges;
  }
  return CG_OK;
}

/* Ends a step that failed: the graph and the counts as they were. */
static int step_fail(cg_lin *g, cg_cost *c, const cg_cost *saved, cg_error *e, const char *what,
                     uint32_t id) {
  step_rollback(g);
  if (c) *c = *saved;
  return cg_seterr(e, CG_ENOMEM, "out of memory eliminating %s %u (nothing changed)", what,
                   id + 1);
}

/* Removes vertex v and its remaining edges. */
static void drop_vertex(cg_lin *g, uint32_t v) {
  while (g->in[v].n) cg_lin_remove(g, g->in[v].e[g->in[v].n - 1]);
  while (g->out[v].n) cg_lin_remove(g, g->out[v].e[g->out[v].n - 1]);
  g->kind[v] = CG_V_GONE;
}

int cg_lin_elim_vertex(cg_lin *g, uint32_t v, cg_cost *c, cg_error *e) {
  uint32_t a, b;
  cg_cost saved;
  if (v >= g->nv || g->kind[v] != CG_V_INTER)
    return cg_seterr(e, CG_EUSAGE, "vertex %u is not an intermediate", v + 1);
  if (c) saved = *c;
  if (step_begin(g, (uint64_t)g->in[v].n * g->out[v].n))
    return cg_seterr(e, CG_ENOMEM, "out of memory eliminating vertex %u (nothing changed)", v + 1);
  for (a = 0; a < g->in[v].n; a++)
    for (b = 0; b < g->out[v].n; b++) {
      uint32_t ei = g->in[v].e[a], eo = g->out[v].e[b];
      if (accumulate(g, g->tail[ei], g->head[eo], g->w[ei], g->mark[ei], g->w[eo],
                     g->mark[eo], c))
        return step_fail(g, c, &saved, e, "vertex", v);
    }
  drop_vertex(g, v);
  if (c) c->steps++;
  return CG_OK;
}

int cg_lin_elim_front(cg_lin *g, uint32_t eid, cg_cost *c, cg_error *e) {
  uint32_t i, j, b;
  double wij;
  uint8_t mij;
  cg_cost saved;
  if (eid >= g->ne || g->tail[eid] == NONE) return cg_seterr(e, CG_EUSAGE, "no such edge");
  i = g->tail[eid], j = g->head[eid], wij = g->w[eid], mij = g->mark[eid];
  if (g->kind[j] != CG_V_INTER)
    return cg_seterr(e, CG_EUSAGE, "edge %u -> %u ends in a dependent", i + 1, j + 1);
  if (c) saved = *c;
  if (step_begin(g, g->out[j].n))
    return cg_seterr(e, CG_ENOMEM, "out of memory eliminating edge %u (nothing changed)", eid + 1);
  for (b = 0; b < g->out[j].n; b++) { /* (i, k) is never (i, j): k follows j */
    uint32_t eo = g->out[j].e[b];
    if (accumulate(g, i, g->head[eo], wij, mij, g->w[eo], g->mark[eo], c))
      return step_fail(g, c, &saved, e, "edge", eid);
  }
  cg_lin_remove(g, eid);
  if (g->in[j].n == 0) drop_vertex(g, j); /* nothing flows through j any more */
  if (c) c->steps++;
  return CG_OK;
}

int cg_lin_elim_back(cg_lin *g, uint32_t eid, cg_cost *c, cg_error *e) {
  uint32_t j, k, a;
  double wjk;
  uint8_t mjk;
  cg_cost saved;
  if (eid >= g->ne || g->tail[eid] == NONE) return cg_seterr(e, CG_EUSAGE, "no such edge");
  j = g->tail[eid], k = g->head[eid], wjk = g->w[eid], mjk = g->mark[eid];
  if (g->kind[j] != CG_V_INTER)
    return cg_seterr(e, CG_EUSAGE, "edge %u -> %u starts at an independent", j + 1, k + 1);
  if (c) saved = *c;
  if (step_begin(g, g->in[j].n))
    return cg_seterr(e, CG_ENOMEM, "out of memory eliminating edge %u (nothing changed)", eid + 1);
  for (a = 0; a < g->in[j].n; a++) { /* (i, k) is never (j, k): i precedes j */
    uint32_t ei = g->in[j].e[a];
    if (accumulate(g, g->tail[ei], k, g->w[ei], g->mark[ei], wjk, mjk, c))
      return step_fail(g, c, &saved, e, "edge", eid);
  }
  cg_lin_remove(g, eid);
  if (g->out[j].n == 0) drop_vertex(g, j);
  if (c) c->steps++;
  return CG_OK;
}
