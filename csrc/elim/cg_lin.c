/* cg_lin.c: linearized graphs: storage and the elimination steps
 * (Hovland, Norris, Utke & Strout, sec. 1).  Linearization is in
 * cg_linearize.c, the reference Jacobians in cg_jac.c. */
#include <math.h>
#include <string.h>

#include "cg_lin_impl.h"


/* {==== storage ====} */

/* A graph of nv vertices without edges; its lists are zeroed and its
 * vertices tied to no node only when blank (else the caller lays every list
 * out, presize_lists, and writes every node). */
static cg_lin *lin_alloc(cg_alloc *A, uint32_t nv, int blank, cg_error *e) {
  cg_lin *g = CG_NEW(A, cg_lin, 1);
  if (!g) return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
  memset(g, 0, sizeof *g);
  memset(g->sfree, 0xff, sizeof g->sfree); /* no free blocks */
  g->A = A;
  g->nv = nv;
  g->kind = CG_NEW(A, uint8_t, nv);
  g->node = CG_NEW(A, uint32_t, nv);
  g->in = CG_NEW(A, cg_adj, nv);
  g->out = CG_NEW(A, cg_adj, nv);
  if (!g->kind || !g->node || !g->in || !g->out) {
    cg_lin_free(g);
    return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
  }
  if (blank) { /* empty lists, no blocks, no nodes */
    memset(g->in, 0, (size_t)nv * sizeof(cg_adj));
    memset(g->out, 0, (size_t)nv * sizeof(cg_adj));
    memset(g->node, 0xff, (size_t)nv * 4);
  }
  memset(g->kind, CG_V_INTER, nv);
  g->has_w = 1;
  return g;
}

cg_lin *cg_lin_new(cg_alloc *A, uint32_t nv, cg_error *e) { return lin_alloc(A, nv, 1, e); }

void cg_lin_free(cg_lin *g) {
  cg_alloc *A;
  uint32_t nv;
  if (!g) return;
  A = g->A;
  nv = g->nv;
  CG_FREE(A, g->in, cg_adj, nv);
  CG_FREE(A, g->out, cg_adj, nv);
  CG_FREE(A, g->slab, uint32_t, g->capslab); /* every list's block at once */
  CG_FREE(A, g->kind, uint8_t, nv);
  CG_FREE(A, g->node, uint32_t, nv);
  CG_FREE(A, g->x, uint32_t, g->n);
  CG_FREE(A, g->y, uint32_t, g->m);
  CG_FREE(A, g->tail, uint32_t, g->ecap);
  CG_FREE(A, g->head, uint32_t, g->ecap);
  CG_FREE(A, g->w, double, g->ecap);
  CG_FREE(A, g->mark, uint8_t, g->ecap);
  CG_FREE(A, g->efree, uint32_t, g->ecap);
  CG_FREE(A, g->pin, uint32_t, g->ecap);
  CG_FREE(A, g->pout, uint32_t, g->ecap);
  CG_FREE(A, g->undo, cg_undo, g->capundo);
  CG_FREE(A, g->vmark, uint32_t, 2 * (size_t)nv);
  CG_FREE(A, g, cg_lin, 1);
}

/* Appends edge id to a list of its own (cg_face.c's line graph). */
int cg_adj_push(cg_alloc *A, cg_adj *a, uint32_t eid) {
  if (a->n == a->cap) {
    uint32_t nc = a->cap ? a->cap * 2 : 4;
    void *p;
    if (nc < a->cap) return CG_ENOMEM;
    if (!(p = CG_RENEW(A, a->e, uint32_t, a->cap, nc))) return CG_ENOMEM;
    a->e = (uint32_t *)p;
    a->cap = nc;
  }
  a->e[a->n++] = eid;
  return CG_OK;
}

/* Removes the one occurrence of eid, the last id taking its place.  From the
 * end: the same place (ids are unique), and O(1) when eid is the last. */
void cg_adj_drop(cg_adj *a, uint32_t eid) {
  uint32_t i = a->n;
  while (i-- > 0)
    if (a->e[i] == eid) {
      a->e[i] = a->e[--a->n];
      return;
    }
}

/* {==== the adjacency slab (invariants in cg_lin.h) ====} */

/* c with 2^c == cap (cap a power of two, at least 2): the count of
 * trailing zeros, the compiler's instruction where there is one. */
static inline unsigned slab_class(uint32_t cap) {
#if defined(__GNUC__) || defined(__clang__)
  return (unsigned)__builtin_ctz(cap);
#else
  unsigned c = 1;
  while ((1u << c) < cap) c++;
  return c;
#endif
}

/* Makes the slab hold at least `need` words: a new array (at least twice
 * the old one), the lists re-pointed into it, the old one freed; so a
 * failure changes nothing.  Offsets must stay below UINT32_MAX. */
static int slab_grow(cg_lin *g, size_t need) {
  size_t nc = g->capslab * 2;
  uint32_t *p, v;
  if (nc < need) nc = need;
  if (need > (size_t)NONE || need > SIZE_MAX / 4) return CG_ENOMEM;
  if (nc > (size_t)NONE || nc > SIZE_MAX / 4) nc = need;
  if (!(p = CG_NEW(g->A, uint32_t, nc))) return CG_ENOMEM;
  if (g->nslab) memcpy(p, g->slab, g->nslab * 4);
  for (v = 0; g->nslab && v < g->nv; v++) { /* the lists follow their blocks */
    if (g->in[v].cap) g->in[v].e = p + (g->in[v].e - g->slab);
    if (g->out[v].cap) g->out[v].e = p + (g->out[v].e - g->slab);
  }
  CG_FREE(g->A, g->slab, uint32_t, g->capslab);
  g->slab = p;
  g->capslab = nc;
  return CG_OK;
}

/* A block of 2^c words: the first free one of that size, else carved at the
 * slab's end (the slab may move).  NULL when memory runs out: nothing
 * changed. */
static uint32_t *slab_take(cg_lin *g, unsigned c) {
  size_t w = (size_t)1 << c;
  uint32_t off = g->sfree[c];
  if (off != NONE) {
    g->sfree[c] = g->slab[off]; /* the next free block of this size */
    return g->slab + off;
  }
  if (g->capslab - g->nslab < w && slab_grow(g, g->nslab + w)) return NULL;
  g->nslab += w;
  return g->slab + (g->nslab - w);
}

/* Puts block b of 2^c words on its free chain. */
static void slab_give(cg_lin *g, uint32_t *b, unsigned c) {
  b[0] = g->sfree[c];
  g->sfree[c] = (uint32_t)(b - g->slab);
}

/* Makes room in list a for `room` more ids: its block moves to the
 * smallest one large enough when it has not; a failure (CG_ENOMEM) changes
 * nothing. */
static inline int list_room(cg_lin *g, cg_adj *a, uint32_t room) {
  uint64_t need = (uint64_t)a->n + room;
  unsigned c;
  uint32_t *b, q;
  if (need <= a->cap) return CG_OK;
  c = a->cap ? slab_class(a->cap) + 1 : 1; /* blocks hold 2^c words, c >= 1 */
  while (c < 31 && ((uint64_t)1 << c) < need) c++;
  if (((uint64_t)1 << c) < need || !(b = slab_take(g, c))) return CG_ENOMEM;
  if (a->cap) { /* a->e read after slab_take: it may have moved */
    for (q = 0; q < a->n; q++) b[q] = a->e[q];
    slab_give(g, a->e, slab_class(a->cap));
  }
  a->e = b;
  a->cap = 1u << c;
  return CG_OK;
}

/* Appends eid to a full list of g: it moves to a block twice as large. */
static int list_grow_push(cg_lin *g, cg_adj *a, uint32_t eid) {
  if (list_room(g, a, 1)) return CG_ENOMEM;
  a->e[a->n++] = eid;
  return CG_OK;
}

/* Appends eid to a list of g, its place going to pos[eid]. */
static inline int list_push(cg_lin *g, cg_adj *a, uint32_t *pos, uint32_t eid) {
  pos[eid] = a->n;
  if (a->n == a->cap) return list_grow_push(g, a, eid);
  a->e[a->n++] = eid;
  return CG_OK;
}

/* Removes eid from a list of g (pos: its places): the last id takes its
 * place, as cg_adj_drop does, in O(1). */
static inline void list_drop(cg_adj *a, uint32_t *pos, uint32_t eid) {
  uint32_t at = pos[eid], last = a->e[--a->n];
  a->e[at] = last;
  pos[last] = at;
}

/* Returns an empty list's block to the slab. */
static void list_release(cg_lin *g, cg_adj *a) {
  if (a->cap) slab_give(g, a->e, slab_class(a->cap));
  a->e = NULL;
  a->n = a->cap = 0;
}

/* Lays out every list of a graph whose slab is empty, in vertex order (the
 * CSR layout): each list's cap holds a bound of its degree on entry and the
 * size of its block on return, with room for one more id (an elimination
 * step adds its fill-in before it removes the eliminated edges), plus
 * `slack` words for the blocks fill-in needs later.  On failure the lists
 * have no blocks. */
static int presize_lists(cg_lin *g, size_t slack) {
  cg_adj *in = g->in, *out = g->out;
  size_t total = 0;
  uint32_t v;
  for (v = 0; v < g->nv; v++) {
    uint32_t ci = in[v].cap, co = out[v].cap;
    if (ci >= 1u << 31 || co >= 1u << 31) total = (size_t)NONE + 1;
    in[v].cap = ci = ci ? block_words(ci + 1) : 0;
    out[v].cap = co = co ? block_words(co + 1) : 0;
    total += (size_t)ci + co;
  }
  if (total <= (size_t)NONE) /* offsets fit, the slack if it can */
    total += slack < (size_t)NONE - total ? slack : (size_t)NONE - total;
  if (total > (size_t)NONE || (total > g->capslab && slab_grow(g, total))) {
    for (v = 0; v < g->nv; v++) { /* valid empty lists */
      in[v].cap = out[v].cap = in[v].n = out[v].n = 0;
      in[v].e = out[v].e = NULL;
    }
    return CG_ENOMEM;
  }
  for (v = 0; v < g->nv; v++) {
    in[v].n = out[v].n = 0;
    in[v].e = in[v].cap ? g->slab + g->nslab : NULL;
    g->nslab += in[v].cap;
    out[v].e = out[v].cap ? g->slab + g->nslab : NULL;
    g->nslab += out[v].cap;
  }
  return CG_OK;
}

/* Makes the edge pool hold at least `need` edges (at least doubling): all
 * seven arrays or none, so that a failure leaves the pool as it was and
 * cg_lin_free frees each array at the size it has. */
static int grow_edges(cg_lin *g, uint32_t need) {
  uint32_t nc = g->ecap ? g->ecap * 2 : 64, oc = g->ecap;
  void **arr[7];
  void *p[7];
  static const size_t el[7] = {4, 4, 8, 1, 4, 4, 4};
  int i, ok = 1;
  if (nc < oc || nc >= NONE) return CG_ENOMEM;
  if (nc < need) nc = need;
  arr[0] = (void **)&g->tail, arr[1] = (void **)&g->head, arr[2] = (void **)&g->w;
  arr[3] = (void **)&g->mark, arr[4] = (void **)&g->efree;
  arr[5] = (void **)&g->pin, arr[6] = (void **)&g->pout;
  for (i = 0; i < 7; i++) ok &= (p[i] = cg_malloc(g->A, (size_t)nc * el[i])) != NULL;
  for (i = 0; i < 7; i++) {
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

/* The pool for a graph of n edges about to be eliminated: a quarter more,
 * as the first fill-in comes before any edge is freed. */
static uint32_t edge_room(uint64_t n) {
  uint64_t r = n + n / 4 + 64;
  return r >= NONE ? NONE - 1 : (uint32_t)r;
}

/* Grows the edge pool by one slot (ids freed earlier are reused first). */
static uint32_t edge_slot(cg_lin *g) {
  if (g->nfree) return g->efree[--g->nfree];
  if (g->ne == g->ecap && grow_edges(g, 0)) return NONE;
  return g->ne++;
}

/* The edge (i, k) or NONE: a scan of the shorter of out(i) and in(k),
 * whose ids all have tail i (head k) already. */
static inline uint32_t find_edge(const cg_lin *g, uint32_t i, uint32_t k) {
  const cg_adj *o = &g->out[i], *n = &g->in[k];
  uint32_t q;
  if (o->n <= n->n) {
    for (q = 0; q < o->n; q++)
      if (g->head[o->e[q]] == k) return o->e[q];
  } else {
    for (q = 0; q < n->n; q++)
      if (g->tail[n->e[q]] == i) return n->e[q];
  }
  return NONE;
}

uint32_t cg_lin_find(const cg_lin *g, uint32_t i, uint32_t k) { return find_edge(g, i, k); }

/* A new edge (i, k) known to be absent; UINT32_MAX (nothing changed) when
 * memory runs out. */
static inline uint32_t add_new(cg_lin *g, uint32_t i, uint32_t k, double w, uint8_t mark) {
  uint32_t eid = edge_slot(g);
  if (eid == NONE) return NONE;
  if (list_push(g, &g->out[i], g->pout, eid)) {
    g->efree[g->nfree++] = eid;
    return NONE;
  }
  if (list_push(g, &g->in[k], g->pin, eid)) {
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

/* add_new where presize_lists and the pool left room: no growth, no free
 * ids (linearizing, copying). */
static inline uint32_t add_presized(cg_lin *g, uint32_t i, uint32_t k, double w, uint8_t mark) {
  uint32_t eid = g->ne++;
  cg_adj *o = &g->out[i], *n = &g->in[k];
  g->pout[eid] = o->n, o->e[o->n++] = eid;
  g->pin[eid] = n->n, n->e[n->n++] = eid;
  g->tail[eid] = i, g->head[eid] = k, g->w[eid] = w, g->mark[eid] = mark;
  g->nedges++;
  return eid;
}

uint32_t cg_lin_add(cg_lin *g, uint32_t i, uint32_t k, double w, uint8_t mark, int *created) {
  uint32_t eid = find_edge(g, i, k);
  if (created) *created = eid == NONE;
  if (eid == NONE) return add_new(g, i, k, w, mark);
  g->w[eid] += w;
  g->mark[eid] = mark_sum(g->mark[eid], mark);
  return eid;
}

/* Returns edge id eid, out of its lists already, to the pool. */
static inline void free_edge(cg_lin *g, uint32_t eid) {
  g->tail[eid] = g->head[eid] = NONE;
  g->efree[g->nfree++] = eid;
  g->nedges--;
}

void cg_lin_remove(cg_lin *g, uint32_t eid) {
  list_drop(&g->out[g->tail[eid]], g->pout, eid);
  list_drop(&g->in[g->head[eid]], g->pin, eid);
  free_edge(g, eid);
}

int cg_lin_set_xy(cg_lin *g, const uint32_t *x, uint32_t n, const uint32_t *y, uint32_t m,
                  cg_error *e) {
  uint32_t i;
  g->x = CG_NEW(g->A, uint32_t, n);
  g->y = CG_NEW(g->A, uint32_t, m);
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
  cg_lin *g = lin_alloc(s->A, s->nv, 0, e); /* presize_lists writes every list, memcpy every node */
  uint32_t v, k;
  if (!g) return NULL;
  memcpy(g->kind, s->kind, s->nv);
  memcpy(g->node, s->node, (size_t)s->nv * 4);
  g->has_w = s->has_w;
  if (cg_lin_set_xy(g, s->x, s->n, s->y, s->m, e)) goto fail;
  memcpy(g->kind, s->kind, s->nv); /* set_xy rewrites kinds; keep the source's */
  for (v = 0; v < s->nv; v++) g->in[v].cap = s->in[v].n, g->out[v].cap = s->out[v].n;
  if (presize_lists(g, (size_t)s->nedges) || grow_edges(g, edge_room(s->nedges))) goto oom;
  for (v = 0; v < s->nv; v++) /* edges in the source's out-list order: ids 0, 1, ... */
    for (k = 0; k < s->out[v].n; k++) {
      uint32_t eid = s->out[v].e[k];
      add_presized(g, v, s->head[eid], s->w[eid], s->mark[eid]);
    }
  return g;
oom:
  cg_seterr(e, CG_ENOMEM, "out of memory");
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
      if (g->pout[eid] != k) return cg_seterr(e, CG_ERUNTIME, "edge %u: bad out place", eid);
      count++;
    }
    for (k = 0; k < g->in[v].n; k++) {
      uint32_t eid = g->in[v].e[k];
      if (g->head[eid] != v || g->pin[eid] != k)
        return cg_seterr(e, CG_ERUNTIME, "edge %u: bad in-list entry", eid);
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

/* {==== for the linearizer (cg_lin_impl.h) ====} */

cg_lin *cg_lin_alloc(cg_alloc *A, uint32_t nv, int blank, cg_error *e) {
  return lin_alloc(A, nv, blank, e);
}
int cg_lin_slab_grow(cg_lin *g, size_t need) { return slab_grow(g, need); }
int cg_lin_grow_edges(cg_lin *g, uint32_t need) { return grow_edges(g, need); }
uint32_t cg_lin_edge_room(uint64_t n) { return edge_room(n); }
uint32_t cg_lin_add_new(cg_lin *g, uint32_t i, uint32_t k, double w, uint8_t mark) {
  return add_new(g, i, k, w, mark);
}

/* {==== elimination steps ====} */

/* Steps of at most this many pairs scan for each pair's edge (accumulate);
 * larger ones mark vertices (lookup_pairs). */
#define FEW_PAIRS 4

/* Starts a step of at most `pairs` accumulations: the undo log gets room
 * for all of them, and a large step's lookup its vertex marks, first, so a
 * failure here changes nothing. */
static inline int step_begin(cg_lin *g, uint64_t pairs) {
  g->nundo = 0;
  if (pairs <= g->capundo && (pairs <= FEW_PAIRS || g->vmark)) return CG_OK;
  if (pairs > SIZE_MAX / sizeof(cg_undo)) return CG_ENOMEM;
  if (pairs > FEW_PAIRS && !g->vmark) {
    if (!(g->vmark = CG_NEW(g->A, uint32_t, 2 * (size_t)g->nv))) return CG_ENOMEM;
    memset(g->vmark, 0, 2 * (size_t)g->nv * 4);
    g->epoch = 0;
  }
  return cg_reserve(g->A, (void **)&g->undo, &g->capundo, (size_t)pairs, sizeof(cg_undo));
}

/* A fresh stamp for vmark (all stamps cleared when the counter wraps). */
static uint32_t next_epoch(cg_lin *g) {
  uint32_t v;
  if (++g->epoch == 0) {
    for (v = 0; v < g->nv; v++) g->vmark[2 * v] = 0;
    g->epoch = 1;
  }
  return g->epoch;
}

/* Before a step changes anything, finds the edge (i, k) for every tail
 * i = tail[ie[a]] and head k = head[oe[b]] (a < ni, b < no; distinct tails,
 * distinct heads): undo[a * no + b].eid, or NONE when the step will create
 * it (Hovland, Norris, Utke & Strout, sec. 1: fill-in).  One pass over the out-lists of the
 * tails, or over the in-lists of the heads when they are shorter, with the
 * other side's vertices marked: O(ni + no + that pass), not a search per
 * pair. */
static void lookup_pairs(cg_lin *g, const uint32_t *ie, uint32_t ni, const uint32_t *oe,
                         uint32_t no) {
  uint32_t *mk = g->vmark, ep, a, b, q;
  uint64_t sout = 0, sin = 0;
  cg_undo *u = g->undo;
  size_t p, np = (size_t)ni * no;
  for (p = 0; p < np; p++) u[p].eid = NONE;
  for (a = 0; a < ni; a++) sout += g->out[g->tail[ie[a]]].n;
  for (b = 0; b < no; b++) sin += g->in[g->head[oe[b]]].n;
  ep = next_epoch(g);
  if (sout <= sin) { /* mark the heads, walk the tails' out-lists */
    for (b = 0; b < no; b++) {
      uint32_t k = g->head[oe[b]];
      mk[2 * k] = ep, mk[2 * k + 1] = b;
    }
    for (a = 0; a < ni; a++) {
      const cg_adj *l = &g->out[g->tail[ie[a]]];
      for (q = 0; q < l->n; q++) {
        uint32_t h = g->head[l->e[q]];
        if (mk[2 * h] == ep) u[(size_t)a * no + mk[2 * h + 1]].eid = l->e[q];
      }
    }
  } else { /* mark the tails, walk the heads' in-lists */
    for (a = 0; a < ni; a++) {
      uint32_t i = g->tail[ie[a]];
      mk[2 * i] = ep, mk[2 * i + 1] = a;
    }
    for (b = 0; b < no; b++) {
      const cg_adj *l = &g->in[g->head[oe[b]]];
      for (q = 0; q < l->n; q++) {
        uint32_t t = g->tail[l->e[q]];
        if (mk[2 * t] == ep) u[(size_t)mk[2 * t + 1] * no + b].eid = l->e[q];
      }
    }
  }
}

/* Finds the edges (i, k) of a step before it starts when it has more than
 * a few pairs (lookup_pairs); returns 1 then, else 0: accumulate scans per
 * pair, which costs less than the marking. */
static int find_pairs(cg_lin *g, const uint32_t *ie, uint32_t ni, const uint32_t *oe,
                      uint32_t no) {
  if ((uint64_t)ni * no <= FEW_PAIRS) return 0;
  lookup_pairs(g, ie, ni, oe, no);
  return 1;
}

/* Undoes the step in progress, newest change first. */
static void step_rollback(cg_lin *g) {
  while (g->nundo) {
    const cg_undo *u = &g->undo[--g->nundo];
    if (u->created) cg_lin_remove(g, u->eid);
    else g->w[u->eid] = u->w, g->mark[u->eid] = u->mark;
  }
}

/* w(i, k) += a * b, logged for undo; the edge (i, k) is the next undo
 * entry's when `known` (find_pairs), else found now; NONE: created. */
static inline int accumulate(cg_lin *g, uint32_t i, uint32_t k, double a, uint8_t ma, double b,
                             uint8_t mb, int known) {
  cg_undo *u = &g->undo[g->nundo];
  uint8_t mp = mark_prod(ma, mb);
  uint32_t eid = known ? u->eid : find_edge(g, i, k);
  if (eid != NONE) {
    u->w = g->w[eid], u->mark = g->mark[eid], u->created = 0;
    g->w[eid] += a * b;
    g->mark[eid] = mark_sum(g->mark[eid], mp);
  } else {
    if ((eid = add_new(g, i, k, a * b, mp)) == NONE) return CG_ENOMEM;
    u->eid = eid, u->created = 1;
  }
  g->nundo++;
  return CG_OK;
}

/* Counts a step's `pairs` accumulations into c: `nontriv` of them without a
 * +-1 factor, `made` creating an edge (fill), the others adds, given the
 * edge count after them: it only grows during them, so its peak is that
 * count (elim_one_use reuses edges, so its graph never holds that many at
 * once; the peak is counted as for the general step all the same). */
static void count_step_at(cg_cost *c, uint64_t pairs, uint64_t nontriv, uint64_t made,
                          uint64_t edges) {
  if (!c) return;
  c->mults += pairs;
  c->mults_nontrivial += nontriv;
  c->fill += made;
  c->adds += pairs - made;
  if (pairs && edges > c->peak_edges) c->peak_edges = edges;
  c->steps++;
}

/* count_step_at at the graph's edge count (the general steps). */
static void count_step(const cg_lin *g, cg_cost *c, uint64_t pairs, uint64_t nontriv,
                       uint64_t made) {
  count_step_at(c, pairs, nontriv, made, g->nedges);
}

/* How many edges of list l have a weight other than +-1. */
static inline uint32_t count_nontrivial(const cg_lin *g, const cg_adj *l) {
  uint32_t q, n = 0;
  for (q = 0; q < l->n; q++) n += g->mark[l->e[q]] < CG_E_PLUS1;
  return n;
}

/* Bytes an edge takes: its pool entries (tail, head, w, mark, efree, pin,
 * pout) and its place in two lists. */
#define EDGE_BYTES (4 + 4 + 8 + 1 + 4 + 4 + 4 + 2 * 4)

/* What the budget holds for g's edge storage (pool arrays and slab). */
static uint64_t edge_bytes_held(const cg_lin *g) {
  return (uint64_t)g->ecap * (EDGE_BYTES - 8) + (uint64_t)g->capslab * 4;
}

/* The refusal of fill_check, apart so that the check stays small. */
static int fill_refuse(cg_lin *g, uint64_t edges, cg_error *e, const char *what, uint32_t id) {
  char need[32], lim[32];
  cg_budget_stop(g->A);
  cg_fmt_bytes(need, sizeof need, (double)edges * EDGE_BYTES);
  cg_fmt_bytes(lim, sizeof lim, (double)cg_alloc_limit(g->A));
  return cg_seterr(e, CG_ENOMEM,
                   "eliminating %s %u could make %llu edges (%s), over the memory limit of %s "
                   "(nothing changed)", what, id + 1, (unsigned long long)edges, need, lim);
}

/* Refuses, before it changes anything, a step of up to `fill` new edges
 * that would take g's edges past the memory limit of its allocator's budget
 * (cg_budget), less what the budget holds besides g's edge storage: the
 * step's fill is at most its pairs, so this is O(1), and a run stops at
 * once instead of growing until an allocation fails. */
static inline int fill_check(cg_lin *g, uint64_t fill, cg_error *e, const char *what,
                             uint32_t id) {
  const cg_budget *b = cg_budget_of(g->A);
  uint64_t edges = g->nedges + fill;
  if (!b || !b->limit || edges * EDGE_BYTES + b->used <= b->limit + edge_bytes_held(g))
    return CG_OK;
  return fill_refuse(g, edges, e, what, id);
}

/* Ends a step that failed: the graph as it was. */
static int step_fail(cg_lin *g, cg_error *e, const char *what, uint32_t id) {
  step_rollback(g);
  return cg_seterr(e, CG_ENOMEM, "out of memory eliminating %s %u (nothing changed)", what,
                   id + 1);
}

/* Removes vertex v and its remaining edges (ids freed in the order of
 * cg_lin_remove from the ends of its lists); its blocks go back to the slab. */
static void drop_vertex(cg_lin *g, uint32_t v) {
  cg_adj *in = &g->in[v], *out = &g->out[v];
  while (in->n) {
    uint32_t eid = in->e[--in->n];
    list_drop(&g->out[g->tail[eid]], g->pout, eid);
    free_edge(g, eid);
  }
  while (out->n) {
    uint32_t eid = out->e[--out->n];
    list_drop(&g->in[g->head[eid]], g->pin, eid);
    free_edge(g, eid);
  }
  list_release(g, in);
  list_release(g, out);
  g->kind[v] = CG_V_GONE;
}

/* Eliminates v with one out-edge (v, k) and at most FEW_PAIRS in-edges,
 * the commonest step (every intermediate of a tree-shaped expression has
 * one use): each in-edge (i, v) becomes (i, k) where that edge is not there
 * yet, keeping its id and its place in out(i), else its product is added
 * into (i, k) and it goes.  Room for the new ids in in(k) is made first, so
 * nothing fails once the step has begun and it needs no undo log.  The
 * weights, marks and costs are those of the general step (each product
 * w(i, v) w(v, k) is formed once, in the same order); only edge ids and the
 * order within lists differ, which no result reads (Jacobians are sorted,
 * lists sorted where shown, each edge takes one product per step). */
static int elim_one_use(cg_lin *g, uint32_t v, cg_cost *c) {
  cg_adj *in = &g->in[v], *out = &g->out[v], *tk;
  uint32_t eo = out->e[0], k = g->head[eo], ni = in->n, a, hole = g->pin[eo];
  uint64_t nontriv = 0, made = 0, edges = g->nedges;
  uint8_t mo = g->mark[eo];
  double wo = g->w[eo];
  if (ni > 1 && list_room(g, &g->in[k], ni - 1)) return CG_ENOMEM; /* the first new id fills hole */
  tk = &g->in[k];
  for (a = 0; a < ni; a++) {
    /* (i, k) can exist only beside (i, v) in out(i): none to look for when that is all */
    uint32_t ei = in->e[a], i = g->tail[ei], ex = g->out[i].n > 1 ? find_edge(g, i, k) : NONE;
    uint8_t mi = g->mark[ei], mp = mark_prod(mi, mo);
    double p = g->w[ei] * wo;
    nontriv += mi < CG_E_PLUS1 && mo < CG_E_PLUS1;
    if (ex != NONE) {
      g->w[ex] += p;
      g->mark[ex] = mark_sum(g->mark[ex], mp);
      list_drop(&g->out[i], g->pout, ei);
      free_edge(g, ei);
    } else { /* the first takes the place of (v, k) in in(k), the others go at its end */
      uint32_t at = made ? tk->n++ : hole;
      g->head[ei] = k, g->w[ei] = p, g->mark[ei] = mp;
      g->pin[ei] = at, tk->e[at] = ei;
      made++;
    }
  }
  count_step_at(c, ni, nontriv, made, edges + made);
  if (!made) list_drop(tk, g->pin, eo);
  free_edge(g, eo);
  list_release(g, in); /* (it empties them) */
  list_release(g, out);
  g->kind[v] = CG_V_GONE;
  return CG_OK;
}

int cg_lin_elim_vertex(cg_lin *g, uint32_t v, cg_cost *c, cg_error *e) {
  uint32_t a, b, ni, no;
  uint64_t nontriv = 0, made = 0, pairs;
  int known;
  if (v >= g->nv || g->kind[v] != CG_V_INTER)
    return cg_seterr(e, CG_EUSAGE, "vertex %u is not an intermediate", v + 1);
  ni = g->in[v].n, no = g->out[v].n, pairs = (uint64_t)ni * no;
  if (fill_check(g, pairs, e, "vertex", v)) return CG_ENOMEM;
  if (no == 1 && ni <= FEW_PAIRS) {
    if (elim_one_use(g, v, c))
      return cg_seterr(e, CG_ENOMEM, "out of memory eliminating vertex %u (nothing changed)",
                       v + 1);
    return CG_OK;
  }
  if (step_begin(g, pairs))
    return cg_seterr(e, CG_ENOMEM, "out of memory eliminating vertex %u (nothing changed)", v + 1);
  known = find_pairs(g, g->in[v].e, ni, g->out[v].e, no);
  if (no == 1) { /* one use of v, the commonest shape: the same pairs in the same order,
                  * with the out-edge read once (no step writes it) */
    uint32_t eo = g->out[v].e[0], k = g->head[eo];
    uint8_t mo = g->mark[eo];
    double wo = g->w[eo];
    for (a = 0; a < ni; a++) { /* lists re-read: a new edge may move the slab */
      uint32_t ei = g->in[v].e[a];
      uint8_t mi = g->mark[ei];
      if (accumulate(g, g->tail[ei], k, g->w[ei], mi, wo, mo, known))
        return step_fail(g, e, "vertex", v);
      made += g->undo[g->nundo - 1].created;
      nontriv += mi < CG_E_PLUS1 && mo < CG_E_PLUS1;
    }
  } else {
    for (a = 0; a < ni; a++)
      for (b = 0; b < no; b++) { /* lists re-read: a new edge may move the slab */
        uint32_t ei = g->in[v].e[a], eo = g->out[v].e[b];
        uint8_t mi = g->mark[ei], mo = g->mark[eo];
        if (accumulate(g, g->tail[ei], g->head[eo], g->w[ei], mi, g->w[eo], mo, known))
          return step_fail(g, e, "vertex", v);
        made += g->undo[g->nundo - 1].created;
        nontriv += mi < CG_E_PLUS1 && mo < CG_E_PLUS1;
      }
  }
  count_step(g, c, pairs, nontriv, made);
  drop_vertex(g, v);
  return CG_OK;
}

int cg_lin_elim_front(cg_lin *g, uint32_t eid, cg_cost *c, cg_error *e) {
  uint32_t i, j, b, no;
  uint64_t made = 0;
  int known;
  double wij;
  uint8_t mij;
  if (eid >= g->ne || g->tail[eid] == NONE) return cg_seterr(e, CG_EUSAGE, "no such edge");
  i = g->tail[eid], j = g->head[eid], wij = g->w[eid], mij = g->mark[eid];
  if (g->kind[j] != CG_V_INTER)
    return cg_seterr(e, CG_EUSAGE, "edge %u -> %u ends in a dependent", i + 1, j + 1);
  no = g->out[j].n;
  if (fill_check(g, no, e, "edge", eid)) return CG_ENOMEM;
  if (step_begin(g, no))
    return cg_seterr(e, CG_ENOMEM, "out of memory eliminating edge %u (nothing changed)", eid + 1);
  known = find_pairs(g, &eid, 1, g->out[j].e, no);
  for (b = 0; b < no; b++) { /* (i, k) is never (i, j): k follows j */
    uint32_t eo = g->out[j].e[b];
    if (accumulate(g, i, g->head[eo], wij, mij, g->w[eo], g->mark[eo], known))
      return step_fail(g, e, "edge", eid);
    made += g->undo[b].created;
  }
  count_step(g, c, no, mij < CG_E_PLUS1 ? count_nontrivial(g, &g->out[j]) : 0, made);
  cg_lin_remove(g, eid);
  if (g->in[j].n == 0) drop_vertex(g, j); /* nothing flows through j any more */
  return CG_OK;
}

int cg_lin_elim_back(cg_lin *g, uint32_t eid, cg_cost *c, cg_error *e) {
  uint32_t j, k, a, ni;
  uint64_t made = 0;
  int known;
  double wjk;
  uint8_t mjk;
  if (eid >= g->ne || g->tail[eid] == NONE) return cg_seterr(e, CG_EUSAGE, "no such edge");
  j = g->tail[eid], k = g->head[eid], wjk = g->w[eid], mjk = g->mark[eid];
  if (g->kind[j] != CG_V_INTER)
    return cg_seterr(e, CG_EUSAGE, "edge %u -> %u starts at an independent", j + 1, k + 1);
  ni = g->in[j].n;
  if (fill_check(g, ni, e, "edge", eid)) return CG_ENOMEM;
  if (step_begin(g, ni))
    return cg_seterr(e, CG_ENOMEM, "out of memory eliminating edge %u (nothing changed)", eid + 1);
  known = find_pairs(g, g->in[j].e, ni, &eid, 1);
  for (a = 0; a < ni; a++) { /* (i, k) is never (j, k): i precedes j */
    uint32_t ei = g->in[j].e[a];
    if (accumulate(g, g->tail[ei], k, g->w[ei], g->mark[ei], wjk, mjk, known))
      return step_fail(g, e, "edge", eid);
    made += g->undo[a].created;
  }
  count_step(g, c, ni, mjk < CG_E_PLUS1 ? count_nontrivial(g, &g->in[j]) : 0, made);
  cg_lin_remove(g, eid);
  if (g->out[j].n == 0) drop_vertex(g, j);
  return CG_OK;
}
