/* cg_lin.c: linearized graphs: storage, linearization, reference Jacobians,
 * and the elimination steps (Hovland, Norris, Utke & Strout, sec. 1). */
#include <math.h>
#include <string.h>

#include "cg_lin.h"

#define NONE UINT32_MAX

/* {==== storage ====} */

/* A graph of nv vertices without edges; its lists are zeroed and its
 * vertices tied to no node only when blank (else the caller lays every list
 * out, presize_lists, and writes every node). */
static cg_lin *lin_alloc(cg_alloc *A, uint32_t nv, int blank, cg_error *e) {
  cg_lin *g = (cg_lin *)cg_malloc(A, sizeof *g);
  if (!g) return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
  memset(g, 0, sizeof *g);
  memset(g->sfree, 0xff, sizeof g->sfree); /* no free blocks */
  g->A = A;
  g->nv = nv;
  g->kind = (uint8_t *)cg_malloc(A, nv ? nv : 1);
  g->node = (uint32_t *)cg_malloc(A, (size_t)(nv ? nv : 1) * 4);
  g->in = (cg_adj *)cg_malloc(A, (size_t)(nv ? nv : 1) * sizeof(cg_adj));
  g->out = (cg_adj *)cg_malloc(A, (size_t)(nv ? nv : 1) * sizeof(cg_adj));
  if (!g->kind || !g->node || !g->in || !g->out) {
    cg_lin_free(g);
    return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
  }
  if (blank) { /* empty lists, no blocks, no nodes */
    memset(g->in, 0, (size_t)(nv ? nv : 1) * sizeof(cg_adj));
    memset(g->out, 0, (size_t)(nv ? nv : 1) * sizeof(cg_adj));
    memset(g->node, 0xff, (size_t)(nv ? nv : 1) * 4);
  }
  memset(g->kind, CG_V_INTER, nv ? nv : 1);
  g->has_w = 1;
  return g;
}

cg_lin *cg_lin_new(cg_alloc *A, uint32_t nv, cg_error *e) { return lin_alloc(A, nv, 1, e); }

void cg_lin_free(cg_lin *g) {
  cg_alloc *A;
  uint32_t nv;
  if (!g) return;
  A = g->A;
  nv = g->nv ? g->nv : 1;
  cg_free(A, g->in, nv * sizeof(cg_adj));
  cg_free(A, g->out, nv * sizeof(cg_adj));
  cg_free(A, g->slab, g->capslab * 4); /* every list's block at once */
  cg_free(A, g->kind, nv);
  cg_free(A, g->node, (size_t)nv * 4);
  cg_free(A, g->x, (size_t)(g->n ? g->n : 1) * 4);
  cg_free(A, g->y, (size_t)(g->m ? g->m : 1) * 4);
  cg_free(A, g->tail, (size_t)g->ecap * 4);
  cg_free(A, g->head, (size_t)g->ecap * 4);
  cg_free(A, g->w, (size_t)g->ecap * 8);
  cg_free(A, g->mark, g->ecap);
  cg_free(A, g->efree, (size_t)g->ecap * 4);
  cg_free(A, g->pin, (size_t)g->ecap * 4);
  cg_free(A, g->pout, (size_t)g->ecap * 4);
  cg_free(A, g->undo, g->capundo * sizeof(cg_undo));
  cg_free(A, g->vmark, (size_t)nv * 8);
  cg_free(A, g, sizeof *g);
}

/* Appends edge id to a list of its own (cg_face.c's line graph). */
int cg_adj_push(cg_alloc *A, cg_adj *a, uint32_t eid) {
  if (a->n == a->cap) {
    uint32_t nc = a->cap ? a->cap * 2 : 4;
    void *p;
    if (nc < a->cap) return CG_ENOMEM;
    if (!(p = cg_realloc(A, a->e, (size_t)a->cap * 4, (size_t)nc * 4))) return CG_ENOMEM;
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
  if (!(p = (uint32_t *)cg_malloc(g->A, nc * 4))) return CG_ENOMEM;
  if (g->nslab) memcpy(p, g->slab, g->nslab * 4);
  for (v = 0; g->nslab && v < g->nv; v++) { /* the lists follow their blocks */
    if (g->in[v].cap) g->in[v].e = p + (g->in[v].e - g->slab);
    if (g->out[v].cap) g->out[v].e = p + (g->out[v].e - g->slab);
  }
  cg_free(g->A, g->slab, g->capslab * 4);
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

/* The words of the smallest block holding d ids (d <= 2^31). */
static uint32_t block_words(uint32_t d) {
  if (d <= 2) return 2;
  if (d <= 4) return 4;
  d--;
  d |= d >> 1, d |= d >> 2, d |= d >> 4, d |= d >> 8, d |= d >> 16;
  return d + 1;
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

/* The mark of a sum of two weights with marks a and b. */
static inline uint8_t mark_sum(uint8_t a, uint8_t b) {
  return (a != CG_E_VAR && b != CG_E_VAR) ? CG_E_CONST : CG_E_VAR;
}

/* The mark of a product: variable if a factor is, else constant if a
 * factor is, else the product of the signs.  A table of 2 bits per pair
 * (a, b) at bit 2 (4a + b), read without a branch (the marks are 0..3). */
static inline uint8_t mark_prod(uint8_t a, uint8_t b) {
  return (uint8_t)(0xb4e45400u >> ((a & 3u) << 3 | (b & 3u) << 1) & 3u);
}

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

/* {==== linearization ====} */

/* Local partials d[i] of graph operation op with operands a[] and result r,
 * and their marks (what is known of them structurally): the operations
 * gop_partials leaves out, into d and mk already cleared. */
static void gop_partials_rare(unsigned op, double c, const double *a, double r, double *d,
                              uint8_t *mk) {
  switch (op) {
    case CG_G_DIV: d[0] = 1 / a[1], d[1] = -r / a[1]; break;
    case CG_G_MIN: if (a[0] > a[1]) d[1] = 1; else d[0] = 1; break;
    case CG_G_ADDC: d[0] = 1, mk[0] = CG_E_PLUS1; break;
    case CG_G_RSUB: d[0] = -1, mk[0] = CG_E_MINUS1; break;
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

/* The local partials of operation op (as gop_partials_rare) with the
 * commonest operations inline (Hovland, Norris, Utke & Strout, sec. 1: the edge weights). */
static inline void gop_partials(unsigned op, double c, const double *a, double r, double *d,
                                uint8_t *mk) {
  mk[0] = mk[1] = mk[2] = CG_E_VAR;
  d[0] = d[1] = d[2] = 0;
  switch (op) {
    case CG_G_COPY: d[0] = 1, mk[0] = CG_E_PLUS1; break;
    case CG_G_ADD: d[0] = d[1] = 1, mk[0] = mk[1] = CG_E_PLUS1; break;
    case CG_G_SUB: d[0] = 1, d[1] = -1, mk[0] = CG_E_PLUS1, mk[1] = CG_E_MINUS1; break;
    case CG_G_MUL: d[0] = a[1], d[1] = a[0]; break;
    case CG_G_MULC: d[0] = c, mk[0] = CG_E_CONST; break;
    default: gop_partials_rare(op, c, a, r, d, mk); break;
  }
}

/* What gop_partials reads of an operation besides its constant: its
 * operands (READS_A) and its result (READS_R).  Indexed by any byte, so an
 * operation code out of range reads nothing. */
#define READS_A 1
#define READS_R 2
static const uint8_t part_reads[256] = {
  [CG_G_MUL] = READS_A, [CG_G_DIV] = READS_A | READS_R, [CG_G_MIN] = READS_A,
  [CG_G_RDIV] = READS_A | READS_R, [CG_G_POWC] = READS_A, [CG_G_EXP] = READS_R,
  [CG_G_LOG] = READS_A, [CG_G_SQRT] = READS_R, [CG_G_CBRT] = READS_R, [CG_G_SIN] = READS_A,
  [CG_G_COS] = READS_A, [CG_G_TAN] = READS_R, [CG_G_ASIN] = READS_A, [CG_G_ACOS] = READS_A,
  [CG_G_ATAN] = READS_A, [CG_G_ASINH] = READS_A, [CG_G_ACOSH] = READS_A,
  [CG_G_ATANH] = READS_A, [CG_G_ERF] = READS_A, [CG_G_ABS] = READS_A, [CG_G_COND] = READS_A,
  [CG_G_CONDEQ] = READS_A};

/* The partials of node v's whole chain with respect to its nk children, of
 * values a[]: the first operation's partials times the derivative of each
 * later one.  The result of an operation is needed only where its partials,
 * or the next operation's (reading its operand), read it: results are
 * computed up to the last one needed, and the last operation's result is
 * val[v], which the build computed with the same operations on the same
 * values (cg_build.c), so bitwise what the chain would give.  A result no
 * partial reads is left 0. */
static void chain_partials(const cg_graph *gr, uint32_t v, const double *a, uint32_t nk,
                           double *d, uint8_t *mk) {
  const uint8_t *op = gr->op;
  const double *opc = gr->opc;
  uint32_t o = gr->op_start[v], last = gr->op_start[v + 1] - 1, upto = o, q, i;
  double r, dd[3];
  uint8_t m2[3];
  uint64_t sw = 0;
  for (q = o; q < last; q++) /* results o .. upto - 1 are computed */
    if ((part_reads[op[q]] & READS_R) || (part_reads[op[q + 1]] & READS_A)) upto = q + 1;
  r = o < upto ? cg_gop_apply_inline(op[o], opc[o], a, &sw) : o == last ? gr->val[v] : 0;
  gop_partials(op[o], opc[o], a, r, d, mk);
  for (q = o + 1; q <= last; q++) {
    double x[3] = {r, 0, 0}; /* a unary operation: room for what its inline cases may read */
    r = q < upto ? cg_gop_apply_inline(op[q], opc[q], x, &sw) : q == last ? gr->val[v] : 0;
    gop_partials(op[q], opc[q], x, r, dd, m2);
    for (i = 0; i < nk; i++) {
      d[i] *= dd[0];
      mk[i] = mark_prod(mk[i], m2[0]);
    }
  }
  if (op[o] == CG_G_COND || op[o] == CG_G_CONDEQ || op[o] == CG_G_MIN)
    for (i = 0; i < nk; i++) /* a structural zero stays out of the graph */
      if (d[i] == 0) mk[i] = 0xff;
}

/* rel[v] bits: reached from an independent (REL_FROM), reaching a dependent
 * (REL_TO); a dependent once (REL_DEP1), more than once (REL_DEP2). */
#define REL_FROM 1
#define REL_TO 2
#define REL_ON_PATH 3
#define REL_DEP1 4
#define REL_DEP2 8
#define on_path(r) (((r) & REL_ON_PATH) == REL_ON_PATH)

/* Marks the nodes reaching a dependent (REL_TO, a pass from the parents to
 * the children) and counts the dependents' occurrences.  REL_FROM is left
 * to node_vertices, which goes the other way anyway: it needs it only for
 * the nodes reaching a dependent, whose children reach one too (Hovland, Norris, Utke & Strout
 * section 1: only the vertices on a path from an independent to a
 * dependent matter).  Returns a bound of the nodes kept as vertices: the
 * independents, the dependents, and the other nodes reaching a dependent
 * except the leaves (constants); a node that reaches a dependent and no
 * independent (made of constants alone) is counted but not kept.  A node
 * has at most three children (cg_graph.h): the commonest counts without a
 * loop. */
static uint32_t reaching(const cg_graph *gr, uint8_t *rel) {
  /* the graph's arrays in locals: the byte stores into rel may alias
   * anything, so gr's fields would be reloaded after each */
  const uint32_t *ks = gr->kid_start, *kids = gr->kids, *os = gr->op_start, *dep = gr->dep;
  const uint8_t *op = gr->op, *flags = gr->flags;
  uint32_t v, k, k0, k1, bound = 0, n = gr->n, nd = gr->n_dep;
  memset(rel, 0, n);
  for (k = 0; k < nd; k++) /* a node that is two dependents: each gets a copy (number_copies) */
    rel[dep[k]] |= rel[dep[k]] & REL_DEP1 ? REL_TO | REL_DEP2 : REL_TO | REL_DEP1;
  for (v = n, k0 = ks[n]; v-- > 0;) { /* parents first: rel[v] is final here */
    uint8_t r = rel[v];
    k1 = k0, k0 = ks[v];
    if (k0 == k1) /* a leaf: kept if an independent or a dependent (node_vertices) */
      bound += op[os[v]] == CG_G_INDEP || (flags[v] & CG_NF_DEP);
    else if (!(r & REL_TO))
      bound += (flags[v] & CG_NF_DEP) != 0;
    else if (k1 - k0 == 2) /* the commonest first, without a jump table */
      rel[kids[k0]] |= REL_TO, rel[kids[k0 + 1]] |= REL_TO, bound++;
    else
      for (bound++, k = k0; k < k1; k++) rel[kids[k]] |= REL_TO;
  }
  return bound;
}

/* Numbers the copy vertices, after the kept nodes (numbered in node order
 * as they are visited): one per dependent that needs one, a dependent
 * having a parent p with (rel[p] & mask) == mask (on a path: mask
 * REL_ON_PATH; REL_TO gives a bound before REL_FROM is known).  Returns the
 * vertex count. */
static uint32_t number_copies(const cg_graph *gr, const uint8_t *rel, uint32_t kept,
                              uint8_t mask, uint32_t *ycopy) {
  uint32_t j, k, nv = kept;
  for (j = 0; j < gr->n_dep; j++) {
    uint32_t d = gr->dep[j];
    int maximal = 1;
    for (k = gr->par_start[d]; k < gr->par_start[d + 1]; k++)
      if ((rel[gr->pars[k]] & mask) == mask) maximal = 0;
    if (maximal && !(rel[d] & REL_DEP2) && gr->op[gr->op_start[d]] != CG_G_INDEP)
      ycopy[j] = NONE;
    else
      ycopy[j] = nv++; /* Utke, Flattening Basic Blocks, sec. 6.2: a unit copy edge */
  }
  return nv;
}

/* The words of the block of a list of at most d ids and one more (an
 * elimination step adds its fill-in before it removes the eliminated
 * edges): block_words(d + 1), none for d = 0; small d from a table. */
static inline uint32_t list_words(uint32_t d) {
  static const uint8_t small[8] = {0, 2, 4, 4, 8, 8, 8, 8};
#if defined(__GNUC__) || defined(__clang__)
  /* the power of two above d (d < 2^31): 2^(1 + the index of d's top bit) */
  return d < 8 ? small[d] : 2u << (31 - __builtin_clz(d));
#else
  return d < 8 ? small[d] : block_words(d + 1);
#endif
}

/* An empty list with a block for d ids and one more, carved at the slab's
 * end (reserve_slab made room). */
static inline void carve_list(cg_lin *g, cg_adj *a, uint32_t d) {
  a->n = 0;
  a->cap = list_words(d);
  a->e = d ? g->slab + g->nslab : NULL;
  g->nslab += a->cap;
}

/* Room for the blocks node_vertices carves (block_words(d + 1) <= 2 (d + 1):
 * at most twice the children and parents of all nodes plus four words a
 * vertex; what is left over serves fill-in) and for the edges. */
static int reserve_slab(cg_lin *g, const cg_graph *gr) {
  uint64_t kids = gr->kid_start[gr->n], pars = gr->par_start[gr->n];
  uint64_t words = 2 * (kids + pars) + 4 * (uint64_t)g->nv;
  if (words >= NONE || kids + gr->n_dep >= NONE) return CG_ENOMEM;
  if (slab_grow(g, words ? (size_t)words : 1)) return CG_ENOMEM;
  return grow_edges(g, edge_room(kids + gr->n_dep));
}

/* The next edge, from the vertex of node c into vertex u (its in-list ie,
 * of ni ids so far), weighted wc and marked mc: node_vertices' locals. */
#define IN_EDGE(c, wc, mc)                                                    \
  do {                                                                        \
    uint32_t eid_ = ne++;                                                     \
    pin[eid_] = ni, ie[ni++] = eid_;                                          \
    tail[eid_] = vid[c], head[eid_] = u, w[eid_] = (wc), mark[eid_] = (mc);   \
  } while (0)

/* The vertices of the kept nodes, numbered in node order into vid[] (NONE
 * for the others), with their lists and edges; returns how many.  Children
 * come first: REL_FROM of a node reaching a dependent follows from its
 * children's (reaching), and so does whether it is kept.  The lists are
 * carved in vertex order (a CSR layout fill-in later spills out of): a node
 * on a path gets an in-edge at most per child and an out-edge at most per
 * parent (pars holds one per edge); the others get no edges.  Each child
 * on a path gives an in-edge weighted with the partial of the node's chain
 * (Hovland, Norris, Utke & Strout, sec. 1); parallel partials (x * x) are summed into one edge
 * as cg_lin_add would: only v's own children give edges into vid[v], so the
 * earlier children are the only ones to check, and only when two of them
 * are the same node.  The commonest chains (a first operation whose
 * partials read no value but the children's, or any unary one, then
 * operations of constant derivative) compute at most the first result and
 * keep their partials in registers; chain_partials does the others.  The
 * out-lists are filled last, in edge id order (the order the edges would
 * be pushed in as they are made): the loop over the nodes keeps fewer
 * arrays live, and the scattered pushes come together.  The arrays are in
 * locals: the stores through them may alias anything, so g's and gr's
 * fields would be reloaded after each. */
static uint32_t node_vertices(cg_lin *g, const cg_graph *gr, uint8_t *rel, uint32_t *vid) {
  const uint32_t *ks = gr->kid_start, *kids = gr->kids, *ps = gr->par_start, *os = gr->op_start;
  const uint8_t *op = gr->op, *flags = gr->flags;
  const double *val = gr->val, *opc = gr->opc;
  cg_adj *in = g->in, *out = g->out;
  uint32_t *node = g->node, *tail = g->tail, *head = g->head;
  uint32_t *pin = g->pin, *pout = g->pout;
  double *w = g->w;
  uint8_t *mark = g->mark;
  uint32_t *sp = g->slab + g->nslab; /* the next block */
  uint32_t n = gr->n, v, u = 0, ne0 = g->ne, ne = ne0, k1 = ks[0], p1 = ps[0], o1 = os[0], i;
  for (v = 0; v < n; v++) { /* each start array read once: v's end is v + 1's start */
    const uint32_t *kid;
    uint32_t k0 = k1, p0 = p1, o = o1, nk, ci, co, q, j, ni, made[3], *ie;
    double a[3], d[3], d0, d1, d2;
    uint8_t mk[3], m0, m1, m2, rv = rel[v];
    uint32_t from; /* bit i: child i reached from an independent (a leaf: itself) */
    int simple;
    k1 = ks[v + 1], p1 = ps[v + 1], o1 = os[v + 1];
    nk = k1 - k0, kid = kids + k0;
    from = 0;
    if (rv & REL_TO) { /* REL_FROM of the children, final: they reach a dependent */
      if (nk == 2) /* the commonest first, without a jump table */
        from = (rel[kid[0]] & REL_FROM) | (uint32_t)(rel[kid[1]] & REL_FROM) << 1;
      else if (nk == 1)
        from = rel[kid[0]] & REL_FROM;
      else if (nk == 0)
        from = op[o] == CG_G_INDEP;
      else
        for (i = 0; i < nk; i++) from |= (uint32_t)(rel[kid[i]] & REL_FROM) << i;
    }
    if (!from) { /* off every path: a vertex if an independent or a dependent */
      if ((nk == 0 && op[o] == CG_G_INDEP) || (flags[v] & CG_NF_DEP)) {
        vid[v] = u;
        node[u] = v;
        in[u].e = out[u].e = NULL;
        in[u].n = in[u].cap = out[u].n = out[u].cap = 0;
        u++;
      } else {
        vid[v] = NONE;
      }
      continue;
    }
    rel[v] = rv | REL_FROM;
    vid[v] = u;
    node[u] = v;
    ci = list_words(nk), co = list_words(p1 - p0);
    ie = ci ? sp : NULL, sp += ci;
    out[u].e = co ? sp : NULL, out[u].n = 0, out[u].cap = co, sp += co;
    in[u].e = ie, in[u].cap = ci;
    if (!nk) {
      in[u++].n = 0;
      continue;
    }
    simple = 1, d0 = d1 = d2 = 0, m0 = m1 = m2 = CG_E_VAR;
    switch (op[o]) { /* gop_partials of the commonest first operations, without a call */
      case CG_G_COPY: d0 = 1, m0 = CG_E_PLUS1; break;
      case CG_G_ADD: d0 = d1 = 1, m0 = m1 = CG_E_PLUS1; break;
      case CG_G_SUB: d0 = 1, d1 = -1, m0 = CG_E_PLUS1, m1 = CG_E_MINUS1; break;
      case CG_G_MUL: d0 = val[kid[1]], d1 = val[kid[0]]; break;
      case CG_G_MULC: d0 = opc[o], m0 = CG_E_CONST; break;
      default:
        if (nk == 1) { /* another unary operation: its partial as chain_partials takes it */
          double r = 0, dd[3];
          uint8_t mm[3];
          uint64_t sw = 0;
          a[0] = val[kid[0]];
          if (part_reads[op[o]] & READS_R) /* its result: the node's value if it is the last */
            r = o1 - o == 1 ? val[v] : cg_gop_apply_inline(op[o], opc[o], a, &sw);
          gop_partials(op[o], opc[o], a, r, dd, mm);
          d0 = dd[0], m0 = mm[0];
        } else {
          simple = 0;
        }
        break;
    }
    for (q = o + 1; simple && q < o1; q++) { /* constant derivatives, as gop_partials' */
      double f;
      uint8_t m;
      switch (op[q]) {
        case CG_G_COPY: f = 1, m = CG_E_PLUS1; break;
        case CG_G_ADDC: f = 1, m = CG_E_PLUS1; break;
        case CG_G_RSUB: f = -1, m = CG_E_MINUS1; break;
        case CG_G_NEG: f = -1, m = CG_E_MINUS1; break;
        case CG_G_MULC: f = opc[q], m = CG_E_CONST; break;
        case CG_G_DIVC: f = 1 / opc[q], m = CG_E_CONST; break;
        default: simple = 0, f = 0, m = CG_E_VAR; break; /* unused: redone below */
      }
      /* all three, without a loop: the partials stay in registers (those
       * past nk are never read) */
      d0 *= f, d1 *= f, d2 *= f;
      m0 = mark_prod(m0, m), m1 = mark_prod(m1, m), m2 = mark_prod(m2, m);
    }
    if (!simple) { /* the whole chain again (every partial rewritten) */
      for (i = 0; i < nk; i++) a[i] = val[kid[i]];
      chain_partials(gr, v, a, nk, d, mk);
      d0 = d[0], d1 = d[1], d2 = d[2], m0 = mk[0], m1 = mk[1], m2 = mk[2];
    }
    /* a child on a path gives an edge: v is on a path, so the child reaches
     * a dependent (reaching), and is on a path if reached from an
     * independent (bit i of from) */
    ni = 0;
    if (nk == 1 || (nk == 2 && kid[0] != kid[1])) { /* distinct children: an edge each */
      if ((from & 1) && m0 != 0xff) IN_EDGE(kid[0], d0, m0);
      if ((from & 2) && m1 != 0xff) IN_EDGE(kid[1], d1, m1);
    } else {
      d[0] = d0, d[1] = d1, d[2] = d2, mk[0] = m0, mk[1] = m1, mk[2] = m2;
      for (i = 0; i < nk; i++) {
        uint32_t c = kid[i];
        made[i] = NONE;
        if (!(from >> i & 1) || mk[i] == 0xff) continue;
        for (j = 0; j < i && (made[j] == NONE || kid[j] != c); j++) continue;
        if (j < i) { /* as cg_lin_add sums into an edge it finds */
          w[made[j]] += d[i];
          mark[made[j]] = mark_sum(mark[made[j]], mk[i]);
          continue;
        }
        made[i] = ne;
        IN_EDGE(c, d[i], mk[i]);
      }
    }
    in[u++].n = ni;
  }
  for (i = ne0; i < ne; i++) { /* the out-lists, in edge id order */
    cg_adj *o = &out[tail[i]];
    pout[i] = o->n;
    o->e[o->n++] = i;
  }
  g->nslab = (size_t)(sp - g->slab);
  g->ne = ne;
  g->nedges += ne - ne0;
  return u;
}
#undef IN_EDGE

/* Cuts the vertex arrays of g down to nv vertices (fewer than the bound
 * they were allocated for): new arrays, so that a failure (CG_ENOMEM)
 * leaves g as it was, and cg_lin_free frees each at the size it has. */
static int fit_vertices(cg_lin *g, uint32_t nv) {
  size_t m = nv ? nv : 1, o = g->nv ? g->nv : 1;
  uint8_t *kind = (uint8_t *)cg_malloc(g->A, m);
  uint32_t *node = (uint32_t *)cg_malloc(g->A, m * 4);
  cg_adj *in = (cg_adj *)cg_malloc(g->A, m * sizeof(cg_adj));
  cg_adj *out = (cg_adj *)cg_malloc(g->A, m * sizeof(cg_adj));
  if (!kind || !node || !in || !out) {
    cg_free(g->A, kind, m);
    cg_free(g->A, node, m * 4);
    cg_free(g->A, in, m * sizeof(cg_adj));
    cg_free(g->A, out, m * sizeof(cg_adj));
    return CG_ENOMEM;
  }
  memcpy(kind, g->kind, m), cg_free(g->A, g->kind, o), g->kind = kind;
  memcpy(node, g->node, m * 4), cg_free(g->A, g->node, o * 4), g->node = node;
  memcpy(in, g->in, m * sizeof(cg_adj)), cg_free(g->A, g->in, o * sizeof(cg_adj)), g->in = in;
  memcpy(out, g->out, m * sizeof(cg_adj)), cg_free(g->A, g->out, o * sizeof(cg_adj)), g->out = out;
  g->nv = nv;
  return CG_OK;
}

/* Two passes over the nodes (Hovland, Norris, Utke & Strout, sec. 1): reaching marks the nodes
 * reaching a dependent, node_vertices the rest on its way.  The vertex
 * arrays are allocated before the count is known, for a bound of it, which
 * is the count unless some node made of constants alone reaches a
 * dependent: then fit_vertices cuts them down. */
cg_lin *cg_lin_from_graph(const cg_graph *gr, cg_error *e) {
  uint8_t *rel = NULL;
  uint32_t *vid = NULL, *ycopy = NULL, *ys = NULL, *xs = NULL, j, nv, kept;
  cg_lin *g = NULL;
  size_t n = gr->n ? gr->n : 1;
  if (!gr->has_val)
    return cg_seterr(e, CG_EUSAGE, "linearizing needs the values of the independents; give --at"),
           NULL;
  rel = (uint8_t *)cg_malloc(gr->A, n);
  vid = (uint32_t *)cg_malloc(gr->A, n * 4);
  ycopy = (uint32_t *)cg_malloc(gr->A, (size_t)(gr->n_dep ? gr->n_dep : 1) * 4);
  ys = (uint32_t *)cg_malloc(gr->A, (size_t)(gr->n_dep ? gr->n_dep : 1) * 4);
  xs = (uint32_t *)cg_malloc(gr->A, (size_t)(gr->n_indep ? gr->n_indep : 1) * 4);
  if (!rel || !vid || !ycopy || !ys || !xs) {
    cg_seterr(e, CG_ENOMEM, "out of memory");
    goto done;
  }
  kept = reaching(gr, rel);
  nv = number_copies(gr, rel, kept, REL_TO, ycopy); /* a bound: the count once REL_FROM is known */
  if (nv < kept) { /* more vertices than ids */
    cg_seterr(e, CG_ENOMEM, "out of memory");
    goto done;
  }
  if (!(g = lin_alloc(gr->A, nv, 0, e))) goto done; /* every list and node written below */
  if (reserve_slab(g, gr)) {
    cg_seterr(e, CG_ENOMEM, "out of memory");
    goto fail;
  }
  kept = node_vertices(g, gr, rel, vid);
  nv = number_copies(gr, rel, kept, REL_ON_PATH, ycopy);
  if (nv != g->nv && fit_vertices(g, nv)) {
    cg_seterr(e, CG_ENOMEM, "out of memory");
    goto fail;
  }
  for (j = 0; j < gr->n_dep; j++)
    if (ycopy[j] != NONE) { /* all lists valid before add_new may move the slab */
      carve_list(g, &g->in[ycopy[j]], 1);
      carve_list(g, &g->out[ycopy[j]], 0);
    }
  for (j = 0; j < gr->n_dep; j++) {
    ys[j] = ycopy[j] == NONE ? vid[gr->dep[j]] : ycopy[j];
    if (ycopy[j] != NONE) {
      g->node[ycopy[j]] = gr->dep[j];
      if (add_new(g, vid[gr->dep[j]], ycopy[j], 1.0, CG_E_PLUS1) == NONE) {
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

/* Moves J's entries into fresh arrays of n entries, all three or none, so
 * their sizes stay known (cap, the old ones'): a failure leaves J as it
 * was, and cg_jac_free or jac_free_cap frees it at the sizes it has. */
static int jac_move(cg_alloc *A, cg_jac *J, size_t cap, size_t n) {
  uint32_t *r = (uint32_t *)cg_malloc(A, n * 4), *c = (uint32_t *)cg_malloc(A, n * 4);
  double *v = (double *)cg_malloc(A, n * 8);
  if (!r || !c || !v) {
    cg_free(A, r, n * 4), cg_free(A, c, n * 4), cg_free(A, v, n * 8);
    return CG_ENOMEM;
  }
  if (J->nnz) {
    memcpy(r, J->row, (size_t)J->nnz * 4);
    memcpy(c, J->col, (size_t)J->nnz * 4);
    memcpy(v, J->val, (size_t)J->nnz * 8);
  }
  cg_free(A, J->row, cap * 4), cg_free(A, J->col, cap * 4), cg_free(A, J->val, cap * 8);
  J->row = r, J->col = c, J->val = v;
  return CG_OK;
}

/* Frees arrays of cap entries (jac_push's, before jac_fit). */
static void jac_free_cap(cg_alloc *A, cg_jac *J, size_t cap) {
  cg_free(A, J->row, cap * 4), cg_free(A, J->col, cap * 4), cg_free(A, J->val, cap * 8);
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

/* Shrinks the arrays to nnz (so cg_jac_free's sizes are exact). */
static int jac_fit(cg_alloc *A, cg_jac *J, size_t cap) {
  size_t n = (size_t)(J->nnz ? J->nnz : 1);
  return n == cap ? CG_OK : jac_move(A, J, cap, n);
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
  if (!rc && (rc = jac_fit(g->A, J, cap)) == CG_OK) cap = (size_t)(J->nnz ? J->nnz : 1);
  if (!rc) rc = jac_sort(g->A, J);
  if (rc) {
    jac_free_cap(g->A, J, cap); /* the sizes they have, not nnz's (issue 13, bindings) */
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

int cg_lin_jac_bipartite(const cg_lin *g, cg_jac *J, cg_error *e) {
  size_t nv = g->nv ? g->nv : 1, nc = (size_t)g->m + 1, nnz = 0, k, *cnt;
  uint32_t *row_of;
  int rc;
  memset(J, 0, sizeof *J);
  J->m = g->m;
  J->n = g->n;
  row_of = (uint32_t *)cg_malloc(g->A, nv * 4);
  cnt = (size_t *)cg_malloc(g->A, nc * sizeof(size_t));
  if (!row_of || !cnt) {
    cg_free(g->A, row_of, nv * 4);
    cg_free(g->A, cnt, nc * sizeof(size_t));
    return cg_seterr(e, CG_ENOMEM, "out of memory");
  }
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
    J->row = (uint32_t *)cg_malloc(g->A, (nnz ? nnz : 1) * 4);
    J->col = (uint32_t *)cg_malloc(g->A, (nnz ? nnz : 1) * 4);
    J->val = (double *)cg_malloc(g->A, (nnz ? nnz : 1) * 8);
    if (!J->row || !J->col || !J->val) {
      cg_jac_free(g->A, J); /* sizes for nnz: as allocated */
      rc = cg_seterr(e, CG_ENOMEM, "out of memory for the Jacobian");
    } else {
      bipartite_fill(g, row_of, cnt, J);
    }
  } else {
    cg_jac_free(g->A, J); /* as the error leaves it: empty */
  }
  cg_free(g->A, row_of, nv * 4);
  cg_free(g->A, cnt, nc * sizeof(size_t));
  return rc;
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
    size_t n = (size_t)(g->nv ? g->nv : 1) * 8;
    if (!(g->vmark = (uint32_t *)cg_malloc(g->A, n))) return CG_ENOMEM;
    memset(g->vmark, 0, n);
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
