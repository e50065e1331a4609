/*
 * cg_exact.c: the optimal vertex elimination order (structural
 * multiplications), proven by dynamic programming over subsets.
 *
 * Two facts make it work.  The graph left after eliminating a set S does not
 * depend on the order within S: an edge (i, k) is there iff a path from i to
 * k has all its interior vertices in S.  So the Markowitz degree of v after S
 * is |P_S(v)| * |S_S(v)|, with P_S(v) the vertices outside S that reach v
 * through S, and best(S + v) = min over v of best(S) + that degree.  And
 * connected components of the intermediates (joined through intermediate
 * edges only) never touch each other's degrees: fill edges join a vertex's
 * predecessors and successors, which lie in its own component or among the
 * independents and dependents.  So the optimum is the sum of the optima of
 * the components, each found in O(2^m * m^2) steps for m vertices.
 */
#include <string.h>

#include "cg_lin.h"

#define NONE UINT32_MAX

typedef struct comp {
  const cg_lin *g;
  uint32_t m, q, words;   /* component vertices, outside neighbours, bitset words */
  uint32_t *vert;          /* local -> vertex, the m members then the q outsiders */
  uint64_t *pred, *succ;   /* per member: bit sets over the m + q local ids */
  uint64_t *scratch;
} comp;

/* Local id of vertex v in the component, registering outsiders. */
static uint32_t local_id(comp *C, uint32_t *loc, uint32_t v) {
  if (loc[v] == NONE) {
    loc[v] = C->m + C->q;
    C->vert[C->m + C->q++] = v;
  }
  return loc[v];
}

static void set_bit(uint64_t *b, uint32_t i) { b[i / 64] |= 1ull << (i % 64); }

/* Degree of member v after eliminating members S (a bit mask over members):
 * in-side and out-side closure through S. */
static uint64_t degree_after(const comp *C, uint64_t S, uint32_t v) {
  uint64_t *acc = C->scratch, reach, frontier, cnt[2] = {0, 0};
  uint32_t w, side, i;
  for (side = 0; side < 2; side++) {
    const uint64_t *adj = side ? C->succ : C->pred;
    memset(acc, 0, (size_t)C->words * 8);
    reach = 1ull << v;
    frontier = reach;
    while (frontier) { /* members of S reachable from v against/along edges */
      uint64_t next = 0;
      for (i = 0; i < C->m; i++)
        if (frontier >> i & 1) next |= adj[(size_t)i * C->words] & S & ~reach;
      reach |= next;
      frontier = next;
    }
    for (i = 0; i < C->m; i++)
      if (reach >> i & 1)
        for (w = 0; w < C->words; w++) acc[w] |= adj[(size_t)i * C->words + w];
    acc[0] &= ~(S | (1ull << v)); /* only the low word holds members */
    for (w = 0; w < C->words; w++) {
      uint64_t b = acc[w];
      while (b) {
        b &= b - 1;
        cnt[side]++;
      }
    }
  }
  return cnt[0] * cnt[1];
}

/* Members go to local ids 0..m-1 so that member masks fit the low word. */
static int build_comp(comp *C, const uint32_t *members, uint32_t m, uint32_t *loc) {
  const cg_lin *g = C->g;
  uint32_t i, k, nb = 0;
  cg_alloc *A = g->A;
  C->m = m;
  C->q = 0;
  for (i = 0; i < m; i++) nb += g->in[members[i]].n + g->out[members[i]].n;
  C->vert = (uint32_t *)cg_malloc(A, (size_t)(m + nb + 1) * 4);
  if (!C->vert) return CG_ENOMEM;
  for (i = 0; i < m; i++) {
    C->vert[i] = members[i];
    loc[members[i]] = i;
  }
  for (i = 0; i < m; i++) {
    uint32_t v = members[i];
    for (k = 0; k < g->in[v].n; k++) local_id(C, loc, g->tail[g->in[v].e[k]]);
    for (k = 0; k < g->out[v].n; k++) local_id(C, loc, g->head[g->out[v].e[k]]);
  }
  C->words = (m + C->q + 63) / 64;
  C->pred = (uint64_t *)cg_malloc(A, (size_t)m * C->words * 8);
  C->succ = (uint64_t *)cg_malloc(A, (size_t)m * C->words * 8);
  C->scratch = (uint64_t *)cg_malloc(A, (size_t)C->words * 8);
  if (!C->pred || !C->succ || !C->scratch) return CG_ENOMEM;
  memset(C->pred, 0, (size_t)m * C->words * 8);
  memset(C->succ, 0, (size_t)m * C->words * 8);
  for (i = 0; i < m; i++) {
    uint32_t v = members[i];
    for (k = 0; k < g->in[v].n; k++) set_bit(C->pred + (size_t)i * C->words, loc[g->tail[g->in[v].e[k]]]);
    for (k = 0; k < g->out[v].n; k++) set_bit(C->succ + (size_t)i * C->words, loc[g->head[g->out[v].e[k]]]);
  }
  return CG_OK;
}

static void free_comp(comp *C, uint32_t nb) {
  cg_alloc *A = C->g->A;
  cg_free(A, C->vert, (size_t)(C->m + nb + 1) * 4);
  cg_free(A, C->pred, (size_t)C->m * C->words * 8);
  cg_free(A, C->succ, (size_t)C->m * C->words * 8);
  cg_free(A, C->scratch, (size_t)C->words * 8);
}

/* The DP over subsets of one component; appends its optimal order. */
static int solve_comp(comp *C, uint64_t *best_out, uint32_t *order, uint32_t *nout) {
  cg_alloc *A = C->g->A;
  size_t full = ((size_t)1 << C->m) - 1, S;
  uint64_t *best = (uint64_t *)cg_malloc(A, (full + 1) * 8);
  uint8_t *choice = (uint8_t *)cg_malloc(A, full + 1);
  uint32_t v, k, *tmp;
  if (!best || !choice) {
    cg_free(A, best, (full + 1) * 8);
    cg_free(A, choice, full + 1);
    return CG_ENOMEM;
  }
  memset(best, 0xff, (full + 1) * 8);
  best[0] = 0;
  for (S = 0; S < full; S++) {
    if (best[S] == UINT64_MAX) continue;
    for (v = 0; v < C->m; v++) {
      size_t T = S | ((size_t)1 << v);
      uint64_t c;
      if (T == S) continue;
      c = best[S] + degree_after(C, S, v);
      if (c < best[T]) best[T] = c, choice[T] = (uint8_t)v;
    }
  }
  *best_out += best[full];
  tmp = order + *nout; /* reconstruct backwards, then reverse */
  for (S = full, k = 0; S; k++) {
    v = choice[S];
    tmp[k] = C->vert[v];
    S &= ~((size_t)1 << v);
  }
  for (v = 0; v < k / 2; v++) {
    uint32_t t = tmp[v];
    tmp[v] = tmp[k - 1 - v];
    tmp[k - 1 - v] = t;
  }
  *nout += k;
  cg_free(A, best, (full + 1) * 8);
  cg_free(A, choice, full + 1);
  return CG_OK;
}

uint32_t cg_lin_component(const cg_lin *g, uint32_t v, uint8_t *seen, uint32_t *members) {
  uint32_t n = 0, head = 0, k;
  members[n++] = v;
  seen[v] = 1;
  while (head < n) {
    uint32_t u = members[head++];
    for (k = 0; k < g->in[u].n + g->out[u].n; k++) {
      uint32_t w = k < g->in[u].n ? g->tail[g->in[u].e[k]] : g->head[g->out[u].e[k - g->in[u].n]];
      if (g->kind[w] == CG_V_INTER && !seen[w]) {
        seen[w] = 1;
        members[n++] = w;
      }
    }
  }
  return n;
}

int cg_lin_exact(const cg_lin *g, uint32_t max_comp, uint64_t *best, uint32_t *order_out,
                 uint32_t *nout, cg_error *e) {
  size_t nv = g->nv;
  uint8_t *seen = CG_NEW(g->A, uint8_t, nv);
  uint32_t *members = CG_NEW(g->A, uint32_t, nv), *loc = CG_NEW(g->A, uint32_t, nv);
  uint32_t v, i;
  int rc = CG_OK;
  *best = 0;
  *nout = 0;
  if (max_comp > 24) max_comp = 24;
  if (!seen || !members || !loc) rc = cg_seterr(e, CG_ENOMEM, "out of memory");
  if (!rc) {
    memset(seen, 0, nv);
    memset(loc, 0xff, nv * 4);
  }
  for (v = 0; !rc && v < g->nv; v++) {
    comp C;
    uint32_t m, nb = 0;
    if (g->kind[v] != CG_V_INTER || seen[v]) continue;
    m = cg_lin_component(g, v, seen, members);
    if (m > max_comp) {
      rc = cg_seterr(e, CG_EUSAGE,
                     "exact: a component of %u intermediates (vertex %u) is larger than %u",
                     m, v + 1, max_comp);
      break;
    }
    memset(&C, 0, sizeof C);
    C.g = g;
    for (i = 0; i < m; i++) nb += g->in[members[i]].n + g->out[members[i]].n;
    if (build_comp(&C, members, m, loc) || solve_comp(&C, best, order_out, nout))
      rc = cg_seterr(e, CG_ENOMEM, "out of memory");
    for (i = 0; C.vert && i < C.m + C.q; i++) loc[C.vert[i]] = NONE;
    free_comp(&C, nb);
  }
  CG_FREE(g->A, seen, uint8_t, nv);
  CG_FREE(g->A, members, uint32_t, nv);
  CG_FREE(g->A, loc, uint32_t, nv);
  return rc;
}
