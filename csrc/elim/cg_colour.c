/* cg_colour.c: the Jacobian by colouring (cg_colour.h): the structural
 * pattern, trivial colourings, the check of a colouring, and the compressed
 * sweeps with direct recovery. */
#include <string.h>

#include "cg_colour.h"
#include "cg_colpack.h"

/* {==== pattern ====} */

void cg_pattern_free(cg_alloc *A, cg_pattern *P) {
  CG_FREE(A, P->start, size_t, (size_t)P->m + 1);
  CG_FREE(A, P->col, uint32_t, P->nnz);
  memset(P, 0, sizeof *P);
}

/* Workspace of the pattern's searches, freed at one exit. */
typedef struct pat_work {
  uint32_t *ls, *lid; /* per vertex: the ids (rows or columns) it is, CSR: ls[v]..ls[v+1]-1 */
  uint32_t *stamp, *stack;
  uint32_t *pr, *pc;  /* entries found, (row, col) */
  size_t np, cap;
} pat_work;

/* cg_lin_pattern's one exit: frees the workspace, returns rc. */
static int pat_done(cg_alloc *A, const cg_lin *g, pat_work *w, uint32_t nids, int rc) {
  CG_FREE(A, w->ls, uint32_t, (size_t)g->nv + 1);
  CG_FREE(A, w->lid, uint32_t, nids);
  CG_FREE(A, w->stamp, uint32_t, g->nv);
  CG_FREE(A, w->stack, uint32_t, g->nv);
  CG_FREE(A, w->pr, uint32_t, w->cap);
  CG_FREE(A, w->pc, uint32_t, w->cap);
  return rc;
}

/* The vertex -> ids index of ids vid[0..k-1] (a vertex may be several). */
static void index_ids(const cg_lin *g, const uint32_t *vid, uint32_t k, pat_work *w) {
  uint32_t v, i;
  memset(w->ls, 0, ((size_t)g->nv + 1) * 4);
  for (i = 0; i < k; i++) w->ls[vid[i] + 1]++;
  for (v = 0; v < g->nv; v++) w->ls[v + 1] += w->ls[v];
  for (i = 0; i < k; i++) w->lid[w->stack[vid[i]]++ + w->ls[vid[i]]] = i; /* stack: fill counts */
}

/* Appends entry (r, c); growing moves both arrays to fresh ones of twice
 * the size, or leaves them as they were (CG_ENOMEM). */
static int pat_push(cg_alloc *A, pat_work *w, uint32_t r, uint32_t c) {
  if (w->np == w->cap) {
    size_t nc = w->cap ? w->cap * 2 : 64;
    uint32_t *a = CG_NEW(A, uint32_t, nc), *b = CG_NEW(A, uint32_t, nc);
    if (!a || !b) {
      CG_FREE(A, a, uint32_t, nc), CG_FREE(A, b, uint32_t, nc);
      return CG_ENOMEM;
    }
    if (w->np) memcpy(a, w->pr, w->np * 4), memcpy(b, w->pc, w->np * 4);
    CG_FREE(A, w->pr, uint32_t, w->cap), CG_FREE(A, w->pc, uint32_t, w->cap);
    w->pr = a, w->pc = b, w->cap = nc;
  }
  w->pr[w->np] = r, w->pc[w->np++] = c;
  return CG_OK;
}

/* Depth-first search from vertex s along out-edges (fwd) or in-edges,
 * pushing (row, col) for every vertex reached that is an id of the other
 * side; `me` is the searching id, stamp s + 1 marks the visited. */
static int pat_search(const cg_lin *g, pat_work *w, uint32_t s, uint32_t me, int fwd) {
  uint32_t sp = 0, k;
  w->stack[sp++] = s, w->stamp[s] = me + 1;
  while (sp) {
    uint32_t v = w->stack[--sp];
    const cg_adj *a = fwd ? &g->out[v] : &g->in[v];
    for (k = w->ls[v]; k < w->ls[v + 1]; k++)
      if (pat_push(g->A, w, fwd ? w->lid[k] : me, fwd ? me : w->lid[k])) return CG_ENOMEM;
    for (k = 0; k < a->n; k++) {
      uint32_t u = fwd ? g->head[a->e[k]] : g->tail[a->e[k]];
      if (w->stamp[u] != me + 1) w->stamp[u] = me + 1, w->stack[sp++] = u;
    }
  }
  return CG_OK;
}

/* The entries of w into P, CSR by rows, columns ascending (counting sorts). */
static int pat_csr(cg_alloc *A, const pat_work *w, cg_pattern *P) {
  size_t i, *cnt = CG_NEW(A, size_t, (size_t)P->n + 1);
  uint32_t *byc = CG_NEW(A, uint32_t, w->np); /* entry ids sorted by column */
  P->start = CG_NEW(A, size_t, (size_t)P->m + 1);
  P->col = CG_NEW(A, uint32_t, w->np);
  if (!cnt || !byc || !P->start || !P->col) {
    CG_FREE(A, cnt, size_t, (size_t)P->n + 1), CG_FREE(A, byc, uint32_t, w->np);
    CG_FREE(A, P->start, size_t, (size_t)P->m + 1), CG_FREE(A, P->col, uint32_t, w->np);
    P->start = NULL, P->col = NULL;
    return CG_ENOMEM;
  }
  P->nnz = w->np;
  memset(cnt, 0, ((size_t)P->n + 1) * sizeof *cnt);
  for (i = 0; i < w->np; i++) cnt[w->pc[i] + 1]++;
  for (i = 0; i < P->n; i++) cnt[i + 1] += cnt[i];
  for (i = 0; i < w->np; i++) byc[cnt[w->pc[i]]++] = (uint32_t)i;
  memset(P->start, 0, ((size_t)P->m + 1) * sizeof *P->start);
  for (i = 0; i < w->np; i++) P->start[w->pr[i] + 1]++;
  for (i = 0; i < P->m; i++) P->start[i + 1] += P->start[i];
  for (i = 0; i < w->np; i++) { /* stable by row over the column order */
    uint32_t p = byc[i];
    P->col[P->start[w->pr[p]]++] = w->pc[p];
  }
  for (i = P->m; i > 0; i--) P->start[i] = P->start[i - 1];
  P->start[0] = 0;
  CG_FREE(A, cnt, size_t, (size_t)P->n + 1), CG_FREE(A, byc, uint32_t, w->np);
  return CG_OK;
}

int cg_lin_pattern(const cg_lin *g, cg_pattern *P, cg_error *e) {
  cg_alloc *A = g->A;
  pat_work w;
  int fwd = g->n <= g->m; /* search from the smaller side */
  uint32_t i, nids = fwd ? g->m : g->n, nsrc = fwd ? g->n : g->m;
  memset(P, 0, sizeof *P);
  memset(&w, 0, sizeof w);
  P->m = g->m, P->n = g->n;
  w.ls = CG_NEW(A, uint32_t, (size_t)g->nv + 1), w.lid = CG_NEW(A, uint32_t, nids);
  w.stamp = CG_NEW(A, uint32_t, g->nv), w.stack = CG_NEW(A, uint32_t, g->nv);
  if (!w.ls || !w.lid || !w.stamp || !w.stack)
    return pat_done(A, g, &w, nids, cg_seterr(e, CG_ENOMEM, "out of memory for the sparsity pattern"));
  memset(w.stack, 0, (size_t)g->nv * 4);
  index_ids(g, fwd ? g->y : g->x, nids, &w);
  memset(w.stamp, 0, (size_t)g->nv * 4);
  for (i = 0; i < nsrc; i++)
    if (pat_search(g, &w, fwd ? g->x[i] : g->y[i], i, fwd))
      return pat_done(A, g, &w, nids, cg_seterr(e, CG_ENOMEM, "out of memory for the sparsity pattern"));
  if (pat_csr(A, &w, P))
    return pat_done(A, g, &w, nids, cg_seterr(e, CG_ENOMEM, "out of memory for the sparsity pattern"));
  return pat_done(A, g, &w, nids, CG_OK);
}

/* }==== */

/* {==== colourings ====} */

void cg_colouring_free(cg_alloc *A, cg_colouring *C) {
  CG_FREE(A, C->colour, uint32_t, C->count);
  memset(C, 0, sizeof *C);
}

int cg_colour_trivial(cg_alloc *A, const cg_pattern *P, int side, cg_colouring *C,
                      cg_error *e) {
  uint32_t k;
  memset(C, 0, sizeof *C);
  C->side = side;
  C->count = C->ncolours = side == CG_SIDE_COLUMN ? P->n : P->m;
  if (!(C->colour = CG_NEW(A, uint32_t, C->count)))
    return cg_seterr(e, CG_ENOMEM, "out of memory for the colouring");
  for (k = 0; k < C->count; k++) C->colour[k] = k;
  return CG_OK;
}

/* The transpose of P's structure (CSC: column j's rows at row[start[j]..]),
 * rows ascending. */
static int pattern_csc(cg_alloc *A, const cg_pattern *P, size_t **start, uint32_t **row) {
  size_t p, *s = CG_NEW(A, size_t, (size_t)P->n + 1);
  uint32_t i, *r = CG_NEW(A, uint32_t, P->nnz);
  if (!s || !r) {
    CG_FREE(A, s, size_t, (size_t)P->n + 1), CG_FREE(A, r, uint32_t, P->nnz);
    return CG_ENOMEM;
  }
  memset(s, 0, ((size_t)P->n + 1) * sizeof *s);
  for (p = 0; p < P->nnz; p++) s[P->col[p] + 1]++;
  for (i = 0; i < P->n; i++) s[i + 1] += s[i];
  for (i = 0; i < P->m; i++)
    for (p = P->start[i]; p < P->start[i + 1]; p++) r[s[P->col[p]]++] = i;
  for (i = P->n; i > 0; i--) s[i] = s[i - 1];
  s[0] = 0;
  *start = s, *row = r;
  return CG_OK;
}

/* Structural orthogonality over lists (rows for a column colouring,
 * columns for a row colouring): no colour twice in one list.  who and seen
 * have ncolours entries; *clash gets the list, and the two items. */
static int lists_orthogonal(const size_t *start, const uint32_t *item, uint32_t nlists,
                            const uint32_t *colour, uint32_t *who, uint32_t *seen,
                            uint32_t clash[3]) {
  uint32_t l;
  size_t p;
  for (l = 0; l < nlists; l++)
    for (p = start[l]; p < start[l + 1]; p++) {
      uint32_t k = colour[item[p]];
      if (seen[k] == l + 1) {
        clash[0] = l, clash[1] = who[k], clash[2] = item[p];
        return 0;
      }
      seen[k] = l + 1, who[k] = item[p];
    }
  return 1;
}

/* Every non-empty item coloured in range, every colour in range or none. */
static int colours_in_range(const cg_pattern *P, const cg_colouring *C, const size_t *cstart,
                            uint32_t *bad) {
  uint32_t k;
  for (k = 0; k < C->count; k++) {
    int empty = C->side == CG_SIDE_COLUMN ? cstart[k] == cstart[k + 1]
                                          : P->start[k] == P->start[k + 1];
    if (C->colour[k] == CG_NOCOLOUR ? !empty : C->colour[k] >= C->ncolours) {
      *bad = k;
      return 0;
    }
  }
  return 1;
}

/* check's one exit: frees its workspace. */
static int check_done(cg_alloc *A, const cg_pattern *P, const cg_colouring *C, size_t *cs,
                      uint32_t *cr, uint32_t *who, uint32_t *seen, int rc) {
  CG_FREE(A, cs, size_t, (size_t)P->n + 1), CG_FREE(A, cr, uint32_t, P->nnz);
  CG_FREE(A, who, uint32_t, C->ncolours), CG_FREE(A, seen, uint32_t, C->ncolours);
  return rc;
}

int cg_colour_check(cg_alloc *A, const cg_pattern *P, const cg_colouring *C, cg_error *e) {
  size_t *cs = NULL;
  uint32_t *cr = NULL, *who, *seen, bad, clash[3];
  int col = C->side == CG_SIDE_COLUMN;
  const char *items = col ? "columns" : "rows";
  if (C->count != (col ? P->n : P->m))
    return cg_seterr(e, CG_EUSAGE, "a colouring of %u %s for a pattern of %u", C->count, items,
                     col ? P->n : P->m);
  who = CG_NEW(A, uint32_t, C->ncolours), seen = CG_NEW(A, uint32_t, C->ncolours);
  if (!who || !seen || pattern_csc(A, P, &cs, &cr))
    return check_done(A, P, C, cs, cr, who, seen, cg_seterr(e, CG_ENOMEM, "out of memory checking a colouring"));
  if (!colours_in_range(P, C, cs, &bad))
    return check_done(A, P, C, cs, cr, who, seen,
                      cg_seterr(e, CG_ERUNTIME, "%s %u: colour %u out of range (%u colours)",
                                col ? "column" : "row", bad + 1, C->colour[bad], C->ncolours));
  if (C->ncolours) memset(seen, 0, (size_t)C->ncolours * 4);
  if (!(col ? lists_orthogonal(P->start, P->col, P->m, C->colour, who, seen, clash)
            : lists_orthogonal(cs, cr, P->n, C->colour, who, seen, clash)))
    return check_done(A, P, C, cs, cr, who, seen,
                      cg_seterr(e, CG_ERUNTIME, "not structurally orthogonal: %s %u and %u of colour "
                                "%u share %s %u", items, clash[1] + 1, clash[2] + 1,
                                C->colour[clash[2]] + 1, col ? "row" : "column", clash[0] + 1));
  return check_done(A, P, C, cs, cr, who, seen, CG_OK);
}

/* ColPack's RANDOM is left out (not reproducible); it knows no other name
 * for partial distance-2 colouring (it prints "Unknown Ordering Method"). */
const char *const cg_colpack_orders[] = {"SMALLEST_LAST", "NATURAL", "LARGEST_FIRST",
                                         "INCIDENCE_DEGREE", NULL};

/* The index of order in cg_colpack_orders, or -1. */
static int colpack_order(const char *order) {
  int i;
  for (i = 0; cg_colpack_orders[i]; i++)
    if (!strcmp(order, cg_colpack_orders[i])) return i;
  return -1;
}

/* ColPack's colours renumbered 0.. by first use in item order (so the
 * numbering depends on the colouring alone); empty items CG_NOCOLOUR. */
static int renumber(cg_alloc *A, const cg_pattern *P, const int32_t *raw, cg_colouring *C,
                    cg_error *e) {
  uint32_t k, *map = CG_NEW(A, uint32_t, C->count);
  size_t *cs = NULL;
  uint32_t *cr = NULL;
  if (!map || (C->side == CG_SIDE_ROW ? 0 : pattern_csc(A, P, &cs, &cr))) {
    CG_FREE(A, map, uint32_t, C->count);
    return cg_seterr(e, CG_ENOMEM, "out of memory for the colouring");
  }
  for (k = 0; k < C->count; k++) map[k] = CG_NOCOLOUR;
  for (k = 0; k < C->count && C->ncolours != CG_NOCOLOUR; k++) {
    int empty = cs ? cs[k] == cs[k + 1] : P->start[k] == P->start[k + 1];
    if (empty) C->colour[k] = CG_NOCOLOUR;
    else if (raw[k] < 0 || (uint32_t)raw[k] >= C->count) C->ncolours = CG_NOCOLOUR;
    else {
      if (map[raw[k]] == CG_NOCOLOUR) map[raw[k]] = C->ncolours++;
      C->colour[k] = map[raw[k]];
    }
  }
  CG_FREE(A, map, uint32_t, C->count);
  if (cs) CG_FREE(A, cs, size_t, (size_t)P->n + 1), CG_FREE(A, cr, uint32_t, P->nnz);
  if (C->ncolours == CG_NOCOLOUR)
    return cg_seterr(e, CG_ERUNTIME, "ColPack gave colour %d to item %u of %u", raw[k - 1], k, C->count);
  return CG_OK;
}

int cg_colour_colpack(cg_alloc *A, const cg_pattern *P, int side, const char *order,
                      cg_colouring *C, cg_error *e) {
  int32_t *raw;
  char msg[128];
  int rc;
  uint32_t k;
  memset(C, 0, sizeof *C);
  if (!order) order = cg_colpack_orders[0];
  if (colpack_order(order) < 0)
    return cg_seterr(e, CG_EUSAGE, "unknown colouring order '%s' (SMALLEST_LAST, NATURAL, "
                     "LARGEST_FIRST or INCIDENCE_DEGREE)", order);
  C->side = side;
  C->count = side == CG_SIDE_COLUMN ? P->n : P->m;
  if (!(C->colour = CG_NEW(A, uint32_t, C->count)))
    return cg_seterr(e, CG_ENOMEM, "out of memory for the colouring");
  if (!P->nnz) { /* nothing to colour: no sweep (ColPack wants edges) */
    for (k = 0; k < C->count; k++) C->colour[k] = CG_NOCOLOUR;
    return CG_OK;
  }
  if (!(raw = CG_NEW(A, int32_t, C->count))) {
    cg_colouring_free(A, C);
    return cg_seterr(e, CG_ENOMEM, "out of memory for the colouring");
  }
  rc = cg_colpack_raw(P->m, P->n, P->start, P->col, side == CG_SIDE_ROW, order, raw, msg,
                      sizeof msg);
  rc = rc == 1 ? cg_seterr(e, CG_ENOMEM, "%s", msg)
       : rc ? cg_seterr(e, CG_ERUNTIME, "%s", msg) : renumber(A, P, raw, C, e);
  CG_FREE(A, raw, int32_t, C->count);
  if (rc) cg_colouring_free(A, C);
  return rc;
}

/* }==== */

/* {==== compressed sweeps ====} */

/* Workspace of the sweeps: values and seed stamps per vertex, the items
 * (columns or rows) by colour and the entries by colour, CSR. */
typedef struct sweep_work {
  double *t;
  uint32_t *seeded, *rowof, *items, *ents, *ekey;
  size_t *istart, *estart;
} sweep_work;

/* cg_lin_jac_coloured's one exit: frees the workspace, returns rc. */
static int sweep_done(cg_alloc *A, const cg_lin *g, const cg_pattern *P, const cg_colouring *C,
                      sweep_work *w, int rc) {
  CG_FREE(A, w->t, double, g->nv), CG_FREE(A, w->seeded, uint32_t, g->nv);
  CG_FREE(A, w->rowof, uint32_t, P->nnz), CG_FREE(A, w->items, uint32_t, C->count);
  CG_FREE(A, w->ents, uint32_t, P->nnz), CG_FREE(A, w->ekey, uint32_t, P->nnz);
  CG_FREE(A, w->istart, size_t, (size_t)C->ncolours + 1);
  CG_FREE(A, w->estart, size_t, (size_t)C->ncolours + 1);
  return rc;
}

/* Sorts ids 0..n-1 by key (skipping CG_NOCOLOUR) into out, CSR over
 * ncolours keys in start. */
static void bucket(const uint32_t *key, size_t n, uint32_t nk, size_t *start, uint32_t *out) {
  size_t i;
  memset(start, 0, ((size_t)nk + 1) * sizeof *start);
  for (i = 0; i < n; i++)
    if (key[i] != CG_NOCOLOUR) start[key[i] + 1]++;
  for (i = 0; i < nk; i++) start[i + 1] += start[i];
  for (i = 0; i < n; i++)
    if (key[i] != CG_NOCOLOUR) out[start[key[i]]++] = (uint32_t)i;
  for (i = nk; i > 0; i--) start[i] = start[i - 1];
  start[0] = 0;
}

/* One compressed sweep of colour k: tangent (col) or adjoint; the
 * accumulations into an already set value go to *adds. */
static void sweep_one(const cg_lin *g, sweep_work *w, int col, uint32_t k, uint64_t *adds) {
  uint32_t v, q;
  size_t p;
  memset(w->t, 0, (size_t)g->nv * 8);
  for (p = w->istart[k]; p < w->istart[k + 1]; p++) {
    uint32_t s = col ? g->x[w->items[p]] : g->y[w->items[p]];
    w->t[s] = 1, w->seeded[s] = k + 1;
  }
  for (q = 0; q < g->nv; q++) {
    const cg_adj *a;
    double s;
    uint32_t j;
    v = col ? q : g->nv - 1 - q; /* ids are topological: forward, or backward */
    a = col ? &g->in[v] : &g->out[v];
    if (!a->n) continue;
    s = w->t[v];
    for (j = 0; j < a->n; j++) {
      uint32_t eid = a->e[j];
      s += g->w[eid] * w->t[col ? g->tail[eid] : g->head[eid]];
    }
    w->t[v] = s;
    *adds += a->n - 1 + (w->seeded[v] == k + 1);
  }
}

/* The edges without a +1 or -1 weight. */
static uint64_t nontrivial_edges(const cg_lin *g) {
  uint64_t n = 0;
  uint32_t v, j;
  for (v = 0; v < g->nv; v++)
    for (j = 0; j < g->in[v].n; j++) {
      uint8_t mk = g->mark[g->in[v].e[j]];
      n += mk != CG_E_PLUS1 && mk != CG_E_MINUS1;
    }
  return n;
}

/* J as P's structure with zero values (all three arrays or none). */
static int jac_of_pattern(cg_alloc *A, const cg_pattern *P, cg_jac *J, uint32_t *rowof) {
  uint32_t i;
  size_t p;
  memset(J, 0, sizeof *J);
  J->row = CG_NEW(A, uint32_t, P->nnz), J->col = CG_NEW(A, uint32_t, P->nnz);
  J->val = CG_NEW(A, double, P->nnz);
  if (!J->row || !J->col || !J->val) {
    CG_FREE(A, J->row, uint32_t, P->nnz), CG_FREE(A, J->col, uint32_t, P->nnz);
    CG_FREE(A, J->val, double, P->nnz);
    memset(J, 0, sizeof *J);
    return CG_ENOMEM;
  }
  J->m = P->m, J->n = P->n, J->nnz = P->nnz;
  for (i = 0; i < P->m; i++)
    for (p = P->start[i]; p < P->start[i + 1]; p++) J->row[p] = rowof[p] = i;
  if (P->nnz) memcpy(J->col, P->col, P->nnz * 4), memset(J->val, 0, P->nnz * 8);
  return CG_OK;
}

int cg_lin_jac_coloured(const cg_lin *g, const cg_pattern *P, const cg_colouring *C,
                        cg_jac *J, cg_cost *c, cg_error *e) {
  cg_alloc *A = g->A;
  sweep_work w;
  int col = C->side == CG_SIDE_COLUMN, rc;
  uint32_t k;
  size_t p;
  uint64_t adds = 0;
  memset(J, 0, sizeof *J);
  memset(&w, 0, sizeof w);
  if (P->m != g->m || P->n != g->n)
    return cg_seterr(e, CG_EUSAGE, "a %ux%u pattern for a graph of %u dependents and %u independents",
                     P->m, P->n, g->m, g->n);
  if ((rc = cg_colour_check(A, P, C, e))) return rc;
  w.t = CG_NEW(A, double, g->nv), w.seeded = CG_NEW(A, uint32_t, g->nv);
  w.rowof = CG_NEW(A, uint32_t, P->nnz), w.items = CG_NEW(A, uint32_t, C->count);
  w.ents = CG_NEW(A, uint32_t, P->nnz), w.ekey = CG_NEW(A, uint32_t, P->nnz);
  w.istart = CG_NEW(A, size_t, (size_t)C->ncolours + 1);
  w.estart = CG_NEW(A, size_t, (size_t)C->ncolours + 1);
  if (!w.t || !w.seeded || !w.rowof || !w.items || !w.ents || !w.ekey || !w.istart ||
      !w.estart || jac_of_pattern(A, P, J, w.rowof))
    return sweep_done(A, g, P, C, &w, cg_seterr(e, CG_ENOMEM, "out of memory for the coloured Jacobian"));
  memset(w.seeded, 0, (size_t)g->nv * 4);
  bucket(C->colour, C->count, C->ncolours, w.istart, w.items);
  for (p = 0; p < P->nnz; p++) w.ekey[p] = C->colour[col ? P->col[p] : w.rowof[p]];
  bucket(w.ekey, P->nnz, C->ncolours, w.estart, w.ents);
  for (k = 0; k < C->ncolours; k++) {
    sweep_one(g, &w, col, k, &adds);
    for (p = w.estart[k]; p < w.estart[k + 1]; p++) { /* direct recovery */
      uint32_t q = w.ents[p];
      J->val[q] = w.t[col ? g->y[w.rowof[q]] : g->x[P->col[q]]];
    }
  }
  if (c) {
    c->mults += g->nedges * C->ncolours;
    c->mults_nontrivial += nontrivial_edges(g) * C->ncolours;
    c->adds += adds;
    c->steps += C->ncolours;
    if (g->nedges > c->peak_edges) c->peak_edges = g->nedges;
  }
  return sweep_done(A, g, P, C, &w, CG_OK);
}

/* }==== */
