/* cg_jac.c: Jacobians of a linearized graph: the reference forward and
 * reverse sweeps the eliminations are checked against, and the read-off of
 * a graph whose intermediates are all eliminated. */
#include <string.h>

#include "cg_lin_impl.h"

/* {==== reference Jacobians ====} */

void cg_jac_free(cg_alloc *A, cg_jac *J) {
  CG_FREE(A, J->row, uint32_t, J->nnz);
  CG_FREE(A, J->col, uint32_t, J->nnz);
  CG_FREE(A, J->val, double, J->nnz);
  memset(J, 0, sizeof *J);
}

/* Moves J's entries into fresh arrays of n entries, all three or none, so
 * their sizes stay known (cap, the old ones'): a failure leaves J as it
 * was, and jac_free_cap frees it at the sizes it has. */
static int jac_move(cg_alloc *A, cg_jac *J, size_t cap, size_t n) {
  uint32_t *r = CG_NEW(A, uint32_t, n), *c = CG_NEW(A, uint32_t, n);
  double *v = CG_NEW(A, double, n);
  if (!r || !c || !v) {
    CG_FREE(A, r, uint32_t, n), CG_FREE(A, c, uint32_t, n), CG_FREE(A, v, double, n);
    return CG_ENOMEM;
  }
  if (J->nnz) {
    memcpy(r, J->row, (size_t)J->nnz * 4);
    memcpy(c, J->col, (size_t)J->nnz * 4);
    memcpy(v, J->val, (size_t)J->nnz * 8);
  }
  if (J->row) CG_FREE(A, J->row, uint32_t, cap), CG_FREE(A, J->col, uint32_t, cap), CG_FREE(A, J->val, double, cap);
  J->row = r, J->col = c, J->val = v;
  return CG_OK;
}

/* Frees arrays of cap entries (jac_push's, before jac_fit). */
static void jac_free_cap(cg_alloc *A, cg_jac *J, size_t cap) {
  if (J->row) CG_FREE(A, J->row, uint32_t, cap), CG_FREE(A, J->col, uint32_t, cap), CG_FREE(A, J->val, double, cap);
  memset(J, 0, sizeof *J);
}

/* Appends an entry, growing the arrays (capacity in *cap). */
static int jac_push(cg_alloc *A, cg_jac *J, size_t *cap, uint32_t r, uint32_t c, double v) {
  if (J->nnz == *cap) {
    size_t nc = *cap ? *cap * 2 : 64;
    if (jac_move(A, J, *cap, nc)) return CG_ENOMEM;
    *cap = nc;
  }
  J->row[J->nnz] = r;
  J->col[J->nnz] = c;
  J->val[J->nnz++] = v;
  return CG_OK;
}

/* Shrinks the arrays to nnz (so cg_jac_free's sizes are exact; no entry:
 * empty arrays). */
static int jac_fit(cg_alloc *A, cg_jac *J, size_t cap) {
  size_t n = (size_t)J->nnz;
  return J->row && n == cap ? CG_OK : jac_move(A, J, cap, n);
}

/* Frees jac_sort's workspace (arrays of n entries, nc counts) and returns
 * rc: its one exit, as CSparse's cs_done. */
static int sort_done(cg_alloc *A, uint32_t *r, uint32_t *c, double *v, size_t n, size_t *cnt,
                     size_t nc, int rc) {
  CG_FREE(A, r, uint32_t, n), CG_FREE(A, c, uint32_t, n), CG_FREE(A, v, double, n);
  CG_FREE(A, cnt, size_t, nc);
  return rc;
}

/* Sorts entries by (row, col): a counting sort by column, then by row,
 * stable, into fresh arrays. */
static int jac_sort(cg_alloc *A, cg_jac *J) {
  size_t n = (size_t)J->nnz, nc = (size_t)(J->m > J->n ? J->m : J->n) + 1, i, *cnt;
  uint32_t *r2, *c2, *ri, *ci;
  double *v2, *vi;
  int pass;
  if (n < 2) return CG_OK;
  r2 = CG_NEW(A, uint32_t, n), c2 = CG_NEW(A, uint32_t, n), v2 = CG_NEW(A, double, n);
  cnt = CG_NEW(A, size_t, nc);
  if (!r2 || !c2 || !v2 || !cnt) return sort_done(A, r2, c2, v2, n, cnt, nc, CG_ENOMEM);
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
  return sort_done(A, r2, c2, v2, n, cnt, nc, CG_OK);
}

/* One tangent (dir = 1) or adjoint (dir = 0) sweep per independent or
 * dependent, over the graph's current edges. */
static int jac_sweep(const cg_lin *g, cg_jac *J, int fwd, cg_error *e) {
  double *t = CG_NEW(g->A, double, g->nv);
  size_t cap = 0;
  uint32_t s, v, k, nseed = fwd ? g->n : g->m;
  int rc = CG_OK;
  memset(J, 0, sizeof *J);
  J->m = g->m;
  J->n = g->n;
  if (!t) return cg_seterr(e, CG_ENOMEM, "out of memory");
  for (s = 0; s < nseed && !rc; s++) {
    memset(t, 0, (size_t)g->nv * 8);
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
  CG_FREE(g->A, t, double, g->nv);
  if (!rc && (rc = jac_fit(g->A, J, cap)) == CG_OK) cap = (size_t)J->nnz;
  if (!rc) rc = jac_sort(g->A, J);
  if (rc) {
    jac_free_cap(g->A, J, cap); /* the sizes they have, not nnz's */
    return cg_seterr(e, CG_ENOMEM, "out of memory for the Jacobian");
  }
  return CG_OK;
}

int cg_lin_jac_forward(const cg_lin *g, cg_jac *J, cg_error *e) { return jac_sweep(g, J, 1, e); }
int cg_lin_jac_reverse(const cg_lin *g, cg_jac *J, cg_error *e) { return jac_sweep(g, J, 0, e); }

/* The entries of the bipartite graph by rows: cnt[k] counts row k's (the
 * edges into dependent y[k] after row_of, and the identity entry of an
 * independent that is also a dependent); CG_EUSAGE names a vertex left. */
static int bipartite_counts(const cg_lin *g, const uint32_t *row_of, size_t *cnt, cg_error *e) {
  uint32_t i, k;
  for (i = 0; i < g->n; i++) {
    const cg_adj *l = &g->out[g->x[i]];
    for (k = 0; k < l->n; k++) {
      uint32_t h = g->head[l->e[k]];
      if (g->kind[h] != CG_V_DEP)
        return cg_seterr(e, CG_EUSAGE, "vertex %u is not eliminated yet", h + 1);
      cnt[row_of[h]]++;
    }
  }
  for (k = 0; k < g->m; k++) cnt[k] += g->kind[g->y[k]] == CG_V_INDEP;
  return CG_OK;
}

/* Puts entry (r, c, v) at the next place of row r. */
static void jac_put(cg_jac *J, size_t *next, uint32_t r, uint32_t c, double v) {
  size_t p = next[r]++;
  J->row[p] = r, J->col[p] = c, J->val[p] = v;
}

/* Fills J from the bipartite graph, sorted by (row, col): the columns are
 * visited in order, so each row's edge entries arrive sorted; an identity
 * entry, put last, is moved to its place. */
static void bipartite_fill(const cg_lin *g, uint32_t *row_of, size_t *next, cg_jac *J) {
  /* the arrays in locals: the stores into J's may alias the list lengths */
  uint32_t *jr = J->row, *jc = J->col, i, k;
  double *jv = J->val;
  const uint32_t *head = g->head;
  const double *w = g->w;
  for (i = 0; i < g->n; i++) {
    const uint32_t *le = g->out[g->x[i]].e;
    uint32_t n = g->out[g->x[i]].n;
    for (k = 0; k < n; k++) {
      uint32_t eid = le[k], r = row_of[head[eid]];
      size_t p = next[r]++;
      jr[p] = r, jc[p] = i, jv[p] = w[eid]; /* jac_put */
    }
  }
  /* row_of now maps independents to columns: O(n + m), not O(n m) */
  for (i = 0; i < g->n; i++) row_of[g->x[i]] = i;
  for (k = 0; k < g->m; k++) {
    size_t p;
    if (g->kind[g->y[k]] != CG_V_INDEP) continue;
    jac_put(J, next, k, row_of[g->y[k]], 1.0);
    for (p = next[k] - 1; p > 0 && J->row[p - 1] == k && J->col[p - 1] > J->col[p]; p--) {
      uint32_t c = J->col[p];
      double v = J->val[p];
      J->col[p] = J->col[p - 1], J->val[p] = J->val[p - 1];
      J->col[p - 1] = c, J->val[p - 1] = v;
    }
  }
}

/* Frees cg_lin_jac_bipartite's workspace and returns rc (its one exit). */
static int bipartite_done(const cg_lin *g, uint32_t *row_of, size_t *cnt, int rc) {
  CG_FREE(g->A, row_of, uint32_t, g->nv);
  CG_FREE(g->A, cnt, size_t, (size_t)g->m + 1);
  return rc;
}

int cg_lin_jac_bipartite(const cg_lin *g, cg_jac *J, cg_error *e) {
  size_t nv = g->nv, nc = (size_t)g->m + 1, nnz = 0, k, *cnt;
  uint32_t *row_of;
  int rc;
  memset(J, 0, sizeof *J);
  J->m = g->m;
  J->n = g->n;
  row_of = CG_NEW(g->A, uint32_t, nv);
  cnt = CG_NEW(g->A, size_t, nc);
  if (!row_of || !cnt)
    return bipartite_done(g, row_of, cnt, cg_seterr(e, CG_ENOMEM, "out of memory"));
  /* row_of is read only at dependents (kind CG_V_DEP, which only set_xy
   * gives the y[k]) and, in bipartite_fill, at independents after they are
   * set: the rest is never read, so not cleared (a quarter of the phase) */
  memset(cnt, 0, nc * sizeof(size_t));
  for (k = 0; k < g->m; k++) row_of[g->y[k]] = (uint32_t)k;
  if ((rc = bipartite_counts(g, row_of, cnt, e)) == CG_OK) {
    for (k = 0; k < g->m; k++) { /* cnt[k]: where row k starts */
      size_t c = cnt[k];
      cnt[k] = nnz, nnz += c;
    }
    J->nnz = nnz;
    J->row = CG_NEW(g->A, uint32_t, nnz);
    J->col = CG_NEW(g->A, uint32_t, nnz);
    J->val = CG_NEW(g->A, double, nnz);
    if (!J->row || !J->col || !J->val) {
      cg_jac_free(g->A, J); /* sizes for nnz: as allocated */
      rc = cg_seterr(e, CG_ENOMEM, "out of memory for the Jacobian");
    } else {
      bipartite_fill(g, row_of, cnt, J);
    }
  } else {
    cg_jac_free(g->A, J); /* as the error leaves it: empty */
  }
  return bipartite_done(g, row_of, cnt, rc);
}
