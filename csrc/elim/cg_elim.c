/*
 * cg_elim.c: vertex elimination orderings (Hovland, Norris, Utke & Strout, sec. 1) and the exact
 * optimum for small components.  The rules' scores, radii and needs come
 * from the registry of orderings (cg_order.c); this file is the loop.
 *
 * The candidates (remaining intermediates) sit in a binary heap keyed by the
 * tuple of their rule scores, then the vertex id (highest first by default,
 * toward reverse mode, as ANGEL breaks ties).  Eliminating v changes the
 * scores only near v: the rules say how far (radius 0: nowhere; 1: v's
 * neighbours; 2: their neighbours too), and only those are rescored.  So a
 * Markowitz run costs O(sum of degrees touched * log V), not O(V^2).
 *
 * Markowitz and min-fill (rows flagged CG_ORD_SMALL_INT) alone score in
 * small non-negative integers, most of them tied: there a candidate with a
 * key below SMALL_KEYS sits instead in a bit set over (key, id) ordered as
 * the heap orders them, whose first element is found in a few word
 * operations (O(log64 (SMALL_KEYS V))), not in log2 V comparisons; larger
 * keys stay in the heap, behind every key of the set.  Both give the same
 * order: one candidate is first by the keys. A single Lua score function
 * uses the bit set too for the scores that are small non-negative integers
 * (Markowitz written in Lua); its other scores (negative, fractional,
 * large, NaN) go to the heap, and the first candidate is then the first of
 * the two tops by the heap's ordering.
 */
#include <math.h>
#include <string.h>

#include "cg_order.h"

#define NONE UINT32_MAX
#define IN_SET (UINT32_MAX - 1) /* pos[v] of a candidate in the bit set */
#define SMALL_KEYS 32           /* keys 0 .. SMALL_KEYS - 1 go to the bit set */

/* A heap entry: the vertex and its first key, inline so that comparisons
 * mostly read the heap array alone. */
typedef struct hent {
  double k;
  uint32_t v;
} hent;

typedef struct run {
  cg_lin *g;
  const cg_order *o;
  const cg_ordering *row[CG_MAX_RULES]; /* each rule's row of the registry (NULL: callback) */
  cg_score_ctx sc;    /* what the rows' score functions read */
  cg_error *e;
  double *key;        /* nrules keys per vertex (key[v * nrules] is also in the heap entry) */
  hent *heap;         /* binary heap of the candidates, first to eliminate on top */
  uint32_t *pos, nheap; /* heap slot of each vertex or NONE */
  uint32_t *stamp, epoch;
  uint32_t *touched, ntouched; /* nv entries: a vertex is touched once per step */
  uint32_t *xcnt, *ycnt; /* relative Markowitz: independents reaching v, dependents v reaches */
  int nr, low;        /* rules, lowest_first */
  int exact;          /* no callback: keys are never NaN, compare as a total order */
  int small;          /* one rule scoring in non-negative integers: the bit set is used */
  int markowitz;      /* small, and the rule is markowitz */
  int mixed;          /* small, and heap keys may come before set keys (a callback) */
  uint64_t *set[6];   /* the bit set's levels: bits key << shift | rank, then one bit per nonzero word */
  size_t setw[6];     /* words per level */
  int nlev, shift;
  size_t lo;          /* no set bit lies below word lo of the bit level */
  size_t zw;          /* words 0 .. zw - 1 of the bit level are valid, the others unwritten */
  int radius, err;
  uint64_t total;     /* intermediates to eliminate, for the progress hook (0: off) */
} run;

/* {==== scores ====} */

/* Rule r's score of v: lower is eliminated first. */
static double score(run *R, int r, uint32_t v) {
  const cg_rule *ru = &R->o->rule[r];
  int err = 0;
  double s;
  if (R->row[r]) return R->row[r]->vertex(&R->sc, v);
  s = ru->fn(ru->ud, R->g, v, &err);
  if (err) R->err = err;
  return s;
}

/* Rule r's score of v, Markowitz's inline (the common case, scored most). */
static inline double score_of(run *R, int r, uint32_t v) {
  if (R->row[r] && (R->row[r]->flags & CG_ORD_FAST_MARKOWITZ))
    return (double)((uint64_t)R->g->in[v].n * R->g->out[v].n);
  return score(R, r, v);
}

/* {==== the candidate heap ====} */

/* a before b?  Lexicographic on the rule keys, then on the id. */
static int before(const run *R, const hent *a, const hent *b) {
  int r, n = R->nr;
  if (a->k != b->k) return a->k < b->k;
  for (r = 1; r < n; r++) {
    double ka = R->key[(size_t)a->v * n + r], kb = R->key[(size_t)b->v * n + r];
    if (ka != kb) return ka < kb;
  }
  return R->low ? a->v < b->v : a->v > b->v;
}

static void heap_set(run *R, uint32_t i, hent x) {
  R->heap[i] = x;
  R->pos[x.v] = i;
}

static void sift_up(run *R, uint32_t i) {
  hent x = R->heap[i];
  while (i > 0) {
    uint32_t p = (i - 1) / 2;
    if (!before(R, &x, &R->heap[p])) break;
    heap_set(R, i, R->heap[p]);
    i = p;
  }
  heap_set(R, i, x);
}

static void sift_down(run *R, uint32_t i) {
  hent x = R->heap[i];
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= R->nheap) break;
    if (c + 1 < R->nheap && before(R, &R->heap[c + 1], &R->heap[c])) c++;
    if (!before(R, &R->heap[c], &x)) break;
    heap_set(R, i, R->heap[c]);
    i = c;
  }
  heap_set(R, i, x);
}

static uint32_t heap_pop(run *R) {
  uint32_t top = R->heap[0].v;
  R->pos[top] = NONE;
  if (--R->nheap) {
    heap_set(R, 0, R->heap[R->nheap]);
    sift_down(R, 0);
  }
  return top;
}

/* Unqueues heap entry v (exact mode only: the hole is refilled from the end). */
static void heap_del(run *R, uint32_t v) {
  uint32_t i = R->pos[v];
  R->pos[v] = NONE;
  if (i == --R->nheap) return;
  heap_set(R, i, R->heap[R->nheap]);
  v = R->heap[i].v;
  sift_up(R, i);
  sift_down(R, R->pos[v]);
}

static void heap_push(run *R, uint32_t v, double k) {
  R->heap[R->nheap].k = k;
  R->heap[R->nheap].v = v;
  R->pos[v] = R->nheap++;
  sift_up(R, R->pos[v]);
}

/* {==== the bit set of small keys ====} */

/* The lowest set bit of x != 0: the compiler's instruction where there is
 * one, else a de Bruijn multiplication (portable C99). */
static inline unsigned low_bit(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
  return (unsigned)__builtin_ctzll(x);
#else
  static const unsigned char tab[64] = {
      0,  1,  2,  53, 3,  7,  54, 27, 4,  38, 41, 8,  34, 55, 48, 28, 62, 5,  39, 46, 44, 42,
      22, 9,  24, 35, 59, 56, 49, 18, 29, 11, 63, 52, 6,  26, 37, 40, 33, 47, 61, 45, 43, 21,
      23, 58, 17, 10, 51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12};
  return tab[((x & (0 - x)) * 0x022fdd63cc95386dull) >> 58];
#endif
}

/* A candidate's bit: keys first, then ids in tie-break order (the rank
 * takes the low `shift` bits: no division to read it back). */
static inline uint64_t set_bit_of(const run *R, uint32_t v, double k) {
  uint32_t rank = R->low ? v : R->g->nv - 1 - v;
  return (uint64_t)k << R->shift | rank;
}

/* Makes word w of the bit level valid: the words from zw up to it are
 * cleared first.  Keys are mostly far below SMALL_KEYS, so most of the
 * level is never written nor read (no bit above marks it). */
static inline void set_valid(run *R, size_t w) {
  if (w >= R->zw) {
    memset(R->set[0] + R->zw, 0, (w + 1 - R->zw) * 8);
    R->zw = w + 1;
  }
}

static inline void set_add(run *R, uint64_t b) {
  int l;
  set_valid(R, (size_t)(b >> 6));
  if (b >> 6 < R->lo) R->lo = (size_t)(b >> 6);
  for (l = 0; l < R->nlev; l++) {
    uint64_t w = R->set[l][b >> 6];
    R->set[l][b >> 6] = w | 1ull << (b & 63);
    if (w) break; /* the levels above know this word already */
    b >>= 6;
  }
}

static inline void set_del(run *R, uint64_t b) {
  int l;
  for (l = 0; l < R->nlev; l++)
    if ((R->set[l][b >> 6] &= ~(1ull << (b & 63))) != 0) break;
    else b >>= 6;
}

/* The first bit of a nonempty set.  No bit lies below word lo of the bits
 * (set_add lowers lo): when that word is not empty the answer is in it,
 * else the descent from the one top word finds it and lo moves up. */
static uint64_t set_first(run *R) {
  uint64_t i = 0, w = R->set[0][R->lo];
  int l;
  if (w) return (uint64_t)R->lo * 64 + low_bit(w);
  for (l = R->nlev - 1; l > 0; l--) i = i * 64 + low_bit(R->set[l][i]);
  R->lo = (size_t)i;
  return i * 64 + low_bit(R->set[0][i]);
}

/* Removes b, the set's first bit (set_first): the lowest of its word, so
 * clearing it there takes one operation, and set_del (which clears the
 * levels above) is needed only when the word empties. */
static inline void set_del_first(run *R, uint64_t b) {
  uint64_t *w = &R->set[0][b >> 6];
  if ((*w &= *w - 1) == 0) set_del(R, b);
}

/* Allocates the levels over SMALL_KEYS << shift bits (2^shift >= nv), all
 * clear: the levels above the first, and the first up to zw (none yet). */
static int set_init(run *R) {
  size_t n, total = 0, from;
  uint64_t *p;
  int l;
  for (R->shift = 0; R->shift < 32 && (1ull << R->shift) < R->g->nv; R->shift++) continue;
  n = (size_t)(((uint64_t)SMALL_KEYS << R->shift) + 63) / 64;
  for (R->nlev = 0; R->nlev < 6; n = (n + 63) / 64) {
    R->setw[R->nlev++] = n;
    total += n;
    if (n == 1) break;
  }
  if (R->setw[R->nlev - 1] != 1) return CG_ENOMEM; /* over 2^36 bits: nv above 2^31 */
  if (!(p = (uint64_t *)cg_malloc(R->g->A, total * 8))) return CG_ENOMEM;
  from = R->nlev > 1 ? R->setw[0] : 0; /* a single level is also the top, read whole */
  memset(p + from, 0, (total - from) * 8);
  R->zw = R->setw[0] - from;
  for (l = 0; l < R->nlev; p += R->setw[l++]) R->set[l] = p;
  return CG_OK;
}

/* Sets the bits of the levels above the first from the words below them:
 * after run_init has set first-level bits directly, in one pass instead of
 * a set_add per candidate (the same set). */
static void set_build(run *R) {
  int l;
  for (l = 1; l < R->nlev; l++) {
    const uint64_t *below = R->set[l - 1];
    size_t i;
    for (i = 0; i < (l == 1 ? R->zw : R->setw[l - 1]); i++)
      if (below[i]) R->set[l][i >> 6] |= 1ull << (i & 63);
  }
}

/* {==== the candidates: heap and bit set ====} */

/* A key the bit set takes: an integer in [0, SMALL_KEYS) (NaN fails). */
static inline int small_key(double k) { return k >= 0 && k < SMALL_KEYS && k == (double)(int)k; }

/* Queues candidate v with first key k. */
static void cand_add(run *R, uint32_t v, double k) {
  if (R->small && small_key(k)) {
    set_add(R, set_bit_of(R, v, k));
    R->pos[v] = IN_SET;
  } else {
    heap_push(R, v, k);
  }
}

/* Unqueues candidate v, queued with first key k. */
static void cand_del(run *R, uint32_t v, double k) {
  if (R->pos[v] == IN_SET) {
    set_del(R, set_bit_of(R, v, k));
    R->pos[v] = NONE;
  } else {
    heap_del(R, v);
  }
}

static int cand_any(const run *R) { return R->nheap || (R->small && R->set[R->nlev - 1][0]); }

/* Removes and returns the first candidate: any key in the set is below
 * every key in the heap. */
static uint32_t cand_pop(run *R) {
  uint64_t b;
  uint32_t v, rank;
  if (!R->small || !R->set[R->nlev - 1][0]) return heap_pop(R);
  b = set_first(R);
  if (R->mixed && R->nheap) { /* the set's first against the heap's top */
    hent x;
    x.k = (double)(b >> R->shift);
    rank = (uint32_t)(b & ((1ull << R->shift) - 1));
    x.v = R->low ? rank : R->g->nv - 1 - rank;
    if (before(R, &R->heap[0], &x)) return heap_pop(R);
  }
  set_del_first(R, b);
  rank = (uint32_t)(b & ((1ull << R->shift) - 1));
  v = R->low ? rank : R->g->nv - 1 - rank;
  R->pos[v] = NONE;
  return v;
}

/* Recomputes v's keys and restores the heap.  An unchanged key leaves a
 * total-order heap as it is, so the sifts are skipped (not so with a
 * callback, whose NaN would compare differently). */
static void rescore(run *R, uint32_t v) {
  int r, n = R->nr, same = 1;
  double *k = R->key + (size_t)v * n, old = k[0];
  if (R->markowitz) { /* the common case, the same steps without the dispatch */
    double s = (double)((uint64_t)R->g->in[v].n * R->g->out[v].n);
    if (s == old) return;
    k[0] = s;
    if (R->pos[v] != NONE) cand_del(R, v, old), cand_add(R, v, s);
    return;
  }
  for (r = 0; r < n; r++) {
    double s = score_of(R, r, v);
    same &= s == k[r];
    k[r] = s;
  }
  if (R->pos[v] == NONE || (same && R->exact)) return;
  if (R->small) { /* one rule, old key in old */
    cand_del(R, v, old);
    cand_add(R, v, k[0]);
    return;
  }
  R->heap[R->pos[v]].k = k[0];
  sift_up(R, R->pos[v]);
  sift_down(R, R->pos[v]);
}

/* {==== neighbourhoods ====} */

/* Adds the neighbours of v to the set of vertices to rescore, each once
 * per step: stamp[u] is the step that touched u last, or NONE for vertices
 * that are not intermediates (neighbours of live vertices are never
 * eliminated ones), so one comparison decides.  touched has nv entries from
 * run_init and never overflows, so a step needs no reservation.  The work
 * is in locals: its stores could otherwise alias the list lengths and the
 * count, forcing reloads. */
static inline void touch_neighbours(run *R, uint32_t v) {
  const cg_lin *g = R->g;
  const uint32_t *ie = g->in[v].e, *oe = g->out[v].e, *tail = g->tail, *head = g->head;
  uint32_t ni = g->in[v].n, no = g->out[v].n, k, n = R->ntouched, ep = R->epoch;
  uint32_t *stamp = R->stamp, *touched = R->touched;
  for (k = 0; k < ni; k++) {
    uint32_t u = tail[ie[k]];
    if (stamp[u] < ep) stamp[u] = ep, touched[n++] = u;
  }
  for (k = 0; k < no; k++) {
    uint32_t u = head[oe[k]];
    if (stamp[u] < ep) stamp[u] = ep, touched[n++] = u;
  }
  R->ntouched = n;
}

/* The neighbours of v (before its elimination): the vertices whose scores
 * may change.  With radius 2, update() later adds their neighbours. */
static void collect(run *R, uint32_t v) {
  R->epoch++;
  R->ntouched = 0;
  if (R->radius != 0) touch_neighbours(R, v);
}

/* After the elimination: for radius 2 widen to the neighbours' neighbours
 * (whose fill and damage scores read the changed lists), then rescore. */
static void update(run *R) {
  uint32_t i, n1 = R->ntouched;
  if (R->radius >= 2)
    for (i = 0; i < n1; i++) touch_neighbours(R, R->touched[i]);
  for (i = 0; i < R->ntouched; i++) rescore(R, R->touched[i]);
}

/* {==== relative Markowitz counts ====} */

/* xcnt[v]: independents with a path to v; ycnt[v]: dependents reachable
 * from v.  Bit sets of 64 sources at a time, so O(E * n / 64). */
static int reach_counts(run *R) {
  cg_lin *g = R->g;
  uint64_t *bits = CG_NEW(g->A, uint64_t, g->nv);
  uint32_t base, v, k, i;
  int side;
  if (!bits) return CG_ENOMEM;
  for (side = 0; side < 2; side++) {
    uint32_t nsrc = side ? g->m : g->n, *cnt = side ? R->ycnt : R->xcnt;
    memset(cnt, 0, (size_t)g->nv * 4);
    for (base = 0; base < nsrc; base += 64) {
      memset(bits, 0, (size_t)g->nv * 8);
      for (i = base; i < nsrc && i < base + 64; i++)
        bits[side ? g->y[i] : g->x[i]] |= 1ull << (i - base);
      if (!side) {
        for (v = 0; v < g->nv; v++)
          for (k = 0; k < g->in[v].n; k++) bits[v] |= bits[g->tail[g->in[v].e[k]]];
      } else {
        for (v = g->nv; v-- > 0;)
          for (k = 0; k < g->out[v].n; k++) bits[v] |= bits[g->head[g->out[v].e[k]]];
      }
      for (v = 0; v < g->nv; v++) {
        uint64_t b = bits[v];
        while (b) {
          b &= b - 1;
          cnt[v]++;
        }
      }
    }
  }
  CG_FREE(g->A, bits, uint64_t, g->nv);
  return CG_OK;
}

/* {==== the elimination loop ====} */

static void run_free(run *R) {
  cg_alloc *A = R->g->A;
  size_t nv = R->g->nv;
  CG_FREE(A, R->key, double, nv * (size_t)R->o->nrules);
  CG_FREE(A, R->heap, hent, nv);
  CG_FREE(A, R->pos, uint32_t, nv);
  CG_FREE(A, R->stamp, uint32_t, nv);
  CG_FREE(A, R->touched, uint32_t, nv);
  CG_FREE(A, R->xcnt, uint32_t, nv);
  CG_FREE(A, R->ycnt, uint32_t, nv);
  if (R->nlev) { /* the levels are one block */
    size_t total = 0;
    int l;
    for (l = 0; l < R->nlev; l++) total += R->setw[l];
    cg_free(A, R->set[0], total * 8);
  }
}

/* Rule r's radius: how far an elimination changes its scores. */
static int rule_radius(const run *R, int r) {
  return R->row[r] ? R->row[r]->radius : R->o->rule[r].radius;
}

/* run_init's queuing under Markowitz alone: the same keys, bits and heap
 * entries in integers, without score_of's dispatch and small_key's
 * conversions, and the arrays in locals (the stores through them could
 * alias the run's fields). */
static void init_markowitz(run *R) {
  const cg_lin *g = R->g;
  const uint8_t *kind = g->kind;
  const cg_adj *in = g->in, *out = g->out;
  uint32_t *pos = R->pos, *stamp = R->stamp, nv = g->nv, nheap = 0, v;
  uint64_t *s0 = R->set[0];
  double *key = R->key;
  hent *heap = R->heap;
  int shift = R->shift, low = R->low;
  for (v = 0; v < nv; v++) {
    uint64_t s, b;
    if (kind[v] != CG_V_INTER) {
      pos[v] = stamp[v] = NONE;
      continue;
    }
    stamp[v] = 0;
    s = (uint64_t)in[v].n * out[v].n;
    key[v] = (double)s;
    if (s < SMALL_KEYS) { /* the first level only: set_build */
      b = s << shift | (low ? v : nv - 1 - v);
      set_valid(R, (size_t)(b >> 6));
      s0[b >> 6] |= 1ull << (b & 63);
      pos[v] = IN_SET;
    } else {
      heap[nheap].k = (double)s, heap[nheap].v = v;
      pos[v] = nheap++;
    }
  }
  R->nheap = nheap;
}

static int run_init(run *R, cg_lin *g, const cg_order *o, cg_error *e) {
  size_t nv = g->nv;
  uint32_t v;
  int r;
  memset(R, 0, sizeof *R);
  R->g = g, R->o = o, R->e = e;
  if (o->nrules < 1 || o->nrules > CG_MAX_RULES)
    return cg_seterr(e, CG_EUSAGE, "an ordering needs 1 to %d rules", CG_MAX_RULES);
  R->nr = o->nrules, R->low = o->lowest_first, R->exact = 1;
  for (r = 0; r < o->nrules; r++) {
    if (o->rule[r].kind == CG_ORD_CALLBACK) R->exact = 0; /* NaN scores: no total order */
    else if (cg_ordering_check(o->rule[r].kind, CG_MODE_VERTEX, &R->row[r], e))
      return CG_EUSAGE;
    if (rule_radius(R, r) > R->radius) R->radius = rule_radius(R, r);
  }
  R->small = o->nrules == 1 && (!R->row[0] || (R->row[0]->flags & CG_ORD_SMALL_INT));
  R->mixed = R->small && !R->row[0];
  R->markowitz = R->small && R->row[0] && (R->row[0]->flags & CG_ORD_FAST_MARKOWITZ);
  R->key = CG_NEW(g->A, double, nv * (size_t)o->nrules);
  R->heap = CG_NEW(g->A, hent, nv);
  R->pos = CG_NEW(g->A, uint32_t, nv);
  R->stamp = CG_NEW(g->A, uint32_t, nv);
  R->touched = CG_NEW(g->A, uint32_t, nv);
  R->xcnt = CG_NEW(g->A, uint32_t, nv);
  R->ycnt = CG_NEW(g->A, uint32_t, nv);
  if (!R->key || !R->heap || !R->pos || !R->stamp || !R->touched || !R->xcnt || !R->ycnt ||
      (R->small && set_init(R)))
    return cg_seterr(e, CG_ENOMEM, "out of memory");
  R->sc.g = g, R->sc.seed = o->seed, R->sc.xcnt = R->xcnt, R->sc.ycnt = R->ycnt;
  for (r = 0; r < o->nrules; r++)
    if (R->row[r] && (R->row[r]->needs & CG_NEED_REACH)) {
      if (reach_counts(R)) return cg_seterr(e, CG_ENOMEM, "out of memory");
      break; /* once for every rule */
    }
  if (R->markowitz)
    init_markowitz(R);
  else
    for (v = 0; v < g->nv; v++) {
      R->pos[v] = NONE;
      R->stamp[v] = g->kind[v] == CG_V_INTER ? 0 : NONE;
      if (g->kind[v] != CG_V_INTER) continue;
      for (r = 0; r < o->nrules; r++) R->key[(size_t)v * o->nrules + r] = score_of(R, r, v);
      if (R->small && small_key(R->key[v])) { /* the first level only: set_build */
        uint64_t b = set_bit_of(R, v, R->key[v]);
        set_valid(R, (size_t)(b >> 6));
        R->set[0][b >> 6] |= 1ull << (b & 63);
        R->pos[v] = IN_SET;
        continue;
      }
      R->heap[R->nheap].k = R->key[(size_t)v * o->nrules];
      R->heap[R->nheap].v = v;
      R->pos[v] = R->nheap++;
    }
  if (R->small) set_build(R);
  for (v = R->nheap / 2 + 1; v-- > 0;)
    if (v < R->nheap) sift_down(R, v);
  return R->err ? cg_seterr(e, CG_ERUNTIME, "the ordering's score function failed") : CG_OK;
}

/* cand_pop without a callback's heap (mixed is off), inline in the loop.
 * The loop's constants (the top level, the rank's mask and direction) come
 * as arguments: read from R they were reloaded after every store. */
static inline uint32_t pop_markowitz(run *R, const uint64_t *top, uint64_t mask, int low,
                                     uint32_t last) {
  uint64_t b;
  uint32_t rank, v;
  if (!top[0]) return heap_pop(R);
  b = set_first(R);
  set_del_first(R, b);
  rank = (uint32_t)(b & mask);
  v = low ? rank : last - rank;
  R->pos[v] = NONE;
  return v;
}

/* cg_lin_eliminate under Markowitz alone, the commonest ordering: the
 * neighbours of v are listed before its elimination and rescored after it
 * without stamps (rescoring a vertex twice finds its key unchanged).  The order is the general loop's:
 * one candidate is first by the keys, however they were reached. */
static int eliminate_markowitz(run *R, cg_cost *c, uint32_t *order_out, uint32_t *count,
                               cg_error *e) {
  cg_lin *g = R->g;
  uint32_t *nb = R->touched;
  const uint64_t *top = R->set[R->nlev - 1], mask = (1ull << R->shift) - 1;
  const uint8_t *kind = g->kind;
  int rc = CG_OK, low = R->low;
  uint32_t last = g->nv - 1, done = *count; /* in a register: the progress test reads it */
  while (R->nheap || top[0]) {
    uint32_t v = pop_markowitz(R, top, mask, low, last), ni = g->in[v].n, no = g->out[v].n, k,
             n = 0;
    const uint32_t *ie = g->in[v].e, *oe = g->out[v].e, *tail = g->tail, *head = g->head;
    if (ni + (uint64_t)no > g->nv) { /* more than nb holds: not a simple graph */
      collect(R, v);
      if ((rc = cg_lin_elim_vertex(g, v, c, e))) break;
      update(R);
    } else {
      const cg_adj *out = g->out;
      /* The candidates only: no step changes a kind but v's.  With one
       * out-edge (v, k), a predecessor u trades (u, v) for (u, k) or merges
       * it into an (u, k) it has already (Hovland, Norris, Utke & Strout, sec. 1), so its degrees
       * and key change only when it has another out-edge: the others are
       * not rescored. */
      for (k = 0; k < ni; k++) {
        uint32_t u = tail[ie[k]];
        nb[n] = u, n += kind[u] == CG_V_INTER && (no != 1 || out[u].n > 1);
      }
      for (k = 0; k < no; k++) {
        uint32_t u = head[oe[k]];
        nb[n] = u, n += kind[u] == CG_V_INTER;
      }
      if ((rc = cg_lin_elim_vertex(g, v, c, e))) break;
      for (k = 0; k < n; k++) rescore(R, nb[k]);
    }
    if (order_out) order_out[done] = v;
    if ((++done & CG_PROGRESS_MASK) == 0) cg_progress_at(g->A, "eliminating", done, R->total);
  }
  *count = done;
  return rc;
}

/* The intermediates of g, the total of the progress line (0 when off). */
static uint64_t inter_total(const cg_lin *g) {
  uint64_t n = 0;
  uint32_t v;
  if (!cg_progress_on(g->A)) return 0;
  for (v = 0; v < g->nv; v++) n += g->kind[v] == CG_V_INTER;
  return n;
}

int cg_lin_eliminate(cg_lin *g, const cg_order *o, cg_cost *c, uint32_t *order_out,
                     uint32_t *nout, cg_error *e) {
  run R;
  int rc = run_init(&R, g, o, e);
  uint32_t count = 0;
  R.total = inter_total(g);
  if (R.total) cg_progress_at(g->A, "eliminating", 0, R.total); /* 0: an end, or off */
  if (!rc && R.markowitz) rc = eliminate_markowitz(&R, c, order_out, &count, e);
  while (!rc && cand_any(&R)) {
    uint32_t v = cand_pop(&R);
    collect(&R, v);
    if (!(rc = cg_lin_elim_vertex(g, v, c, e))) {
      if (order_out) order_out[count] = v;
      if ((++count & CG_PROGRESS_MASK) == 0) cg_progress_at(g->A, "eliminating", count, R.total);
      update(&R);
      if (R.err) rc = cg_seterr(e, CG_ERUNTIME, "the ordering's score function failed");
    }
  }
  if (nout) *nout = count;
  if (!rc) cg_progress_end(g->A, "eliminating", count);
  run_free(&R);
  return rc;
}

int cg_lin_eliminate_seq(cg_lin *g, const uint32_t *seq, uint32_t len, cg_cost *c,
                         cg_error *e) {
  uint32_t i;
  int rc;
  for (i = 0; i < len; i++)
    if ((rc = cg_lin_elim_vertex(g, seq[i], c, e))) return rc;
  return CG_OK;
}
