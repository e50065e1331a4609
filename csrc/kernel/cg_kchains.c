/* cg_kchains.c: reaching definitions, ud-chains and du-chains of a kernel
 * function (Utke, Flattening, sec. 6): a structured dataflow over the
 * statement tree with a sparse state per class of objects.  cg_kchains.h
 * states the rules; here: the state, its joins, the walk, the chains. */
#include "cg_kchains.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

CG_KKINDS_SEEN(10, 32); /* the statement kinds and expression operators its switches handle */

/* {==== lists ====} */

/* A reaching definition: statement, set, and up to two exact sets written
 * since on every path (its mask, -1: none): the definition no longer
 * reaches a use of exactly those cells, though it may still reach others
 * (Hovland et al., Fig. 1: *b = ... after *a = ... hides the first from *b,
 * not from *a).  A full mask drops further entries: fewer masks only add
 * reaching definitions. */
typedef struct pr {
  int32_t s, set, m[2];
} pr;
typedef struct pvec { /* sorted, distinct pairs */
  pr *v;
  size_t n, cap;
} pvec;
typedef struct ivec { /* sorted, distinct set ids (exact sets written on every path) */
  int32_t *v;
  size_t n, cap;
} ivec;

static int pr_cmp(const pr *a, const pr *b) {
  if (a->s != b->s) return a->s < b->s ? -1 : 1;
  return a->set < b->set ? -1 : a->set > b->set;
}
static int pr_qcmp(const void *a, const void *b) { return pr_cmp(a, b); }

/* a's mask = a's n b's; 1 if a's changed. */
static int mask_inter(pr *a, const pr *b) {
  int i, ch = 0;
  for (i = 0; i < 2; i++)
    if (a->m[i] >= 0 && a->m[i] != b->m[0] && a->m[i] != b->m[1]) a->m[i] = -1, ch = 1;
  return ch;
}
static void mask_add(pr *a, int32_t x) {
  if (a->m[0] == x || a->m[1] == x) return;
  if (a->m[0] < 0) a->m[0] = x;
  else if (a->m[1] < 0) a->m[1] = x;
}
static int i_qcmp(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

typedef struct snap { /* the state of some classes at one point */
  uint32_t n;
  int32_t *cls;
  pvec *rd;
  ivec *mu;
  int live;
} snap;

typedef struct frame { /* an enclosing loop: what its breaks and continues carry */
  snap brk, cont;
} frame;

typedef struct cw {
  cg_kalias *al;
  const cg_kernel *k;
  cg_alloc *A;
  pvec *rd; /* ncls: the current state */
  ivec *mu;
  int live;
  ivec *udv;   /* nacc: a use's chain, rewritten on each visit */
  pvec ex;     /* definitions reaching the exit in regions */
  uint32_t *mark, stamp; /* ncls */
  ivec cls;    /* scratch of collected classes */
  ivec regcls; /* classes of regions */
  frame *fr;
  size_t nfr, capfr;
  pvec tmp;
  ivec itmp;
  int err;
  uint32_t passes;
  /* the index of exact cells (see "the index" below) */
  uint8_t *ixs;      /* ncls: IX_DIRTY, IX_ON, IX_OFF */
  int32_t *ixkey;    /* ncls: a set of the bucket (IX_ON) */
  uint32_t *ixstamp; /* ncls: the stamp of its pairs in sst */
  uint32_t ixclock;
  int32_t *spos;     /* by set: the statement of its one pair, when sst[set] is its class's stamp */
  uint32_t *sst;
  size_t capsp, capsst;
#ifndef NDEBUG
  pvec dbg; /* the plain scan's answer, compared against the index's */
  ivec dbgu;
#endif
} cw;

static int pv_room(cw *w, pvec *p, size_t n) {
  if (cg_reserve(w->A, (void **)&p->v, &p->cap, n, sizeof(pr))) return w->err = CG_ENOMEM;
  return CG_OK;
}
static int iv_room(cw *w, ivec *p, size_t n) {
  if (cg_reserve(w->A, (void **)&p->v, &p->cap, n, sizeof(int32_t))) return w->err = CG_ENOMEM;
  return CG_OK;
}
static void pv_free(cg_alloc *A, pvec *p) { CG_FREE(A, p->v, pr, p->cap); }
static void iv_free(cg_alloc *A, ivec *p) { CG_FREE(A, p->v, int32_t, p->cap); }

static void pv_copy(cw *w, pvec *d, const pvec *s) {
  if (pv_room(w, d, s->n)) return;
  if (s->n) memcpy(d->v, s->v, s->n * sizeof(pr));
  d->n = s->n;
}
static void iv_copy(cw *w, ivec *d, const ivec *s) {
  if (iv_room(w, d, s->n)) return;
  if (s->n) memcpy(d->v, s->v, s->n * sizeof(int32_t));
  d->n = s->n;
}

static void pv_insert(cw *w, pvec *p, pr x) {
  size_t lo = 0, hi = p->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (pr_cmp(&p->v[mid], &x) < 0) lo = mid + 1;
    else hi = mid;
  }
  if (lo < p->n && !pr_cmp(&p->v[lo], &x)) { /* written again: nothing hides it now */
    p->v[lo].m[0] = p->v[lo].m[1] = -1;
    return;
  }
  if (pv_room(w, p, p->n + 1)) return;
  memmove(&p->v[lo + 1], &p->v[lo], (p->n - lo) * sizeof(pr));
  p->v[lo] = x, p->n++;
}
static void iv_insert(cw *w, ivec *p, int32_t x) {
  size_t lo = 0, hi = p->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  if (lo < p->n && p->v[lo] == x) return;
  if (iv_room(w, p, p->n + 1)) return;
  memmove(&p->v[lo + 1], &p->v[lo], (p->n - lo) * sizeof(int32_t));
  p->v[lo] = x, p->n++;
}
static int iv_has(const ivec *p, int32_t x) {
  size_t lo = 0, hi = p->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < p->n && p->v[lo] == x;
}

/* d = d u s (sorted merge; a definition in both keeps the masks both
 * have); 1 if d changed. */
static int pv_union(cw *w, pvec *d, const pvec *s) {
  size_t i = 0, j = 0, n = 0;
  int ch = 0;
  pvec t;
  if (pv_room(w, &w->tmp, d->n + s->n)) return 0;
  while (i < d->n || j < s->n) {
    int c = i >= d->n ? 1 : j >= s->n ? -1 : pr_cmp(&d->v[i], &s->v[j]);
    w->tmp.v[n] = c <= 0 ? d->v[i] : s->v[j];
    if (c == 0) ch |= mask_inter(&w->tmp.v[n], &s->v[j]);
    n++, i += c <= 0, j += c >= 0;
  }
  if (n == d->n && !ch) return 0;
  t = *d, *d = w->tmp, w->tmp = t;
  d->n = n;
  return 1;
}
/* d = d n s; 1 if d shrank. */
static int iv_inter(cw *w, ivec *d, const ivec *s) {
  size_t i = 0, j = 0, n = 0;
  (void)w;
  while (i < d->n && j < s->n) {
    if (d->v[i] < s->v[j]) i++;
    else if (s->v[j] < d->v[i]) j++;
    else d->v[n++] = d->v[i], i++, j++;
  }
  if (n == d->n) return 0;
  d->n = n;
  return 1;
}

/* }==== */

/* {==== states ====} */

static void ix_dirty(cw *w, int32_t c);

static int snap_init(cw *w, snap *s, const int32_t *cls, uint32_t n) {
  memset(s, 0, sizeof *s);
  s->cls = CG_NEW(w->A, int32_t, n);
  s->rd = CG_NEW(w->A, pvec, n);
  s->mu = CG_NEW(w->A, ivec, n);
  s->n = n;
  if (!s->cls || !s->rd || !s->mu) return w->err = CG_ENOMEM;
  if (n) memcpy(s->cls, cls, n * sizeof *cls);
  memset(s->rd, 0, n * sizeof *s->rd), memset(s->mu, 0, n * sizeof *s->mu);
  return CG_OK;
}
static void snap_free(cw *w, snap *s) {
  uint32_t i;
  for (i = 0; s->rd && s->mu && i < s->n; i++) pv_free(w->A, &s->rd[i]), iv_free(w->A, &s->mu[i]);
  CG_FREE(w->A, s->cls, int32_t, s->n);
  CG_FREE(w->A, s->rd, pvec, s->n);
  CG_FREE(w->A, s->mu, ivec, s->n);
  memset(s, 0, sizeof *s);
}
static void snap_take(cw *w, snap *s) {
  uint32_t i;
  for (i = 0; i < s->n; i++) pv_copy(w, &s->rd[i], &w->rd[s->cls[i]]), iv_copy(w, &s->mu[i], &w->mu[s->cls[i]]);
  s->live = w->live;
}
static void snap_put(cw *w, const snap *s) {
  uint32_t i;
  for (i = 0; i < s->n; i++) {
    pv_copy(w, &w->rd[s->cls[i]], &s->rd[i]), iv_copy(w, &w->mu[s->cls[i]], &s->mu[i]);
    ix_dirty(w, s->cls[i]);
  }
  w->live = s->live;
}
/* s = s join current; 1 if s changed. */
static int snap_join_cur(cw *w, snap *s) {
  uint32_t i;
  int ch = 0;
  if (!w->live) return 0;
  if (!s->live) { snap_take(w, s); return 1; }
  for (i = 0; i < s->n; i++) {
    ch |= pv_union(w, &s->rd[i], &w->rd[s->cls[i]]);
    ch |= iv_inter(w, &s->mu[i], &w->mu[s->cls[i]]);
  }
  return ch;
}
/* current = current join s. */
static void cur_join_snap(cw *w, const snap *s) {
  uint32_t i;
  if (!s->live) return;
  if (!w->live) { snap_put(w, s); return; }
  for (i = 0; i < s->n; i++) {
    pv_union(w, &w->rd[s->cls[i]], &s->rd[i]);
    iv_inter(w, &w->mu[s->cls[i]], &s->mu[i]);
    ix_dirty(w, s->cls[i]);
  }
}

/* }==== */

/* {==== the index ====} */

/* Two exact sets of one object whose affine offsets have the same variable
 * part (value numbers and coefficients) are the same set when their
 * constants are equal (interning) and related "no" otherwise
 * (cg_kalias_relation0: the difference has no term and a non-zero constant;
 * FAST_LIM keeps that difference below the limit where it would become
 * unknown; overrides change "may" answers only, but with overrides the
 * plain scans stay).  So while a class's reaching pairs are all of one such
 * bucket, each of a distinct set, a must-definition or a use of a set of
 * that bucket meets at most the pair of its own set: sst/spos find it, and
 * the scan of the whole list is skipped.  The index follows the list
 * through define(); joins, snapshots and widening mark it dirty and the
 * next access rebuilds it (a pass over the list, as one scan would). */
#define FAST_LIM ((int64_t)1 << 39)
enum { IX_DIRTY, IX_ON, IX_OFF };

static int fast_set(const cg_kalias *al, int32_t s) {
  const cg_kaddr *a = &al->addr[al->set_off[s]];
  return !al->nover && al->set_exact[s] && a->off.c <= FAST_LIM && a->off.c >= -FAST_LIM;
}
static int same_key(const cg_kalias *al, int32_t s1, int32_t s2) {
  const cg_kaddr *a = &al->addr[al->set_off[s1]], *b = &al->addr[al->set_off[s2]];
  int32_t i;
  if (a->obj != b->obj || a->off.nt != b->off.nt) return 0;
  for (i = 0; i < a->off.nt; i++)
    if (a->off.vn[i] != b->off.vn[i] || a->off.coef[i] != b->off.coef[i]) return 0;
  return 1;
}
static void ix_dirty(cw *w, int32_t c) { w->ixs[c] = IX_DIRTY; }
static int sp_room(cw *w) { /* widening adds sets as the walk goes */
  size_t n = w->al->nset, o = w->capsst;
  if (cg_reserve(w->A, (void **)&w->spos, &w->capsp, n, sizeof(int32_t)) ||
      cg_reserve(w->A, (void **)&w->sst, &w->capsst, n, sizeof(uint32_t)))
    return w->err = CG_ENOMEM;
  if (w->capsst > o) memset(w->sst + o, 0, (w->capsst - o) * sizeof(uint32_t));
  return CG_OK;
}
/* Whether the index of class c (set's, which is exact) answers for set. */
static int ix_ready(cw *w, int32_t c, int32_t set) {
  const cg_kalias *al = w->al;
  const pvec *p = &w->rd[c];
  size_t j;
  if (!fast_set(al, set) || sp_room(w)) return 0;
  if (w->ixs[c] == IX_DIRTY) {
    uint32_t t = ++w->ixclock;
    w->ixs[c] = IX_ON, w->ixkey[c] = p->n ? p->v[0].set : set, w->ixstamp[c] = t;
    for (j = 0; j < p->n; j++) {
      int32_t s = p->v[j].set;
      if (!fast_set(al, s) || !same_key(al, s, w->ixkey[c]) || w->sst[s] == t) {
        w->ixs[c] = IX_OFF;
        break;
      }
      w->sst[s] = t, w->spos[s] = p->v[j].s;
    }
    if (w->ixs[c] == IX_OFF) w->ixstamp[c] = ++w->ixclock; /* forget the partial marks */
  }
  return w->ixs[c] == IX_ON && same_key(al, set, w->ixkey[c]);
}
/* The position of the pair of set (in the index of class c), or -1. */
static ptrdiff_t ix_find(const cw *w, int32_t c, int32_t set) {
  const pvec *p = &w->rd[c];
  size_t lo = 0, hi = p->n;
  pr x;
  if (w->sst[set] != w->ixstamp[c]) return -1;
  x.s = w->spos[set], x.set = set;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (pr_cmp(&p->v[mid], &x) < 0) lo = mid + 1;
    else hi = mid;
  }
  assert(lo < p->n && !pr_cmp(&p->v[lo], &x));
  return (ptrdiff_t)lo;
}

/* }==== */

/* {==== definitions and uses ====} */

/* The classes set s touches, into w->cls (distinct). */
static void set_classes(cw *w, int32_t set) {
  const cg_kalias *al = w->al;
  uint32_t i;
  w->stamp++, w->cls.n = 0;
  for (i = 0; i < al->set_n[set]; i++) {
    int32_t c = al->obj_class[al->addr[al->set_off[set] + i].obj];
    if (w->mark[c] == w->stamp) continue;
    w->mark[c] = w->stamp;
    if (!iv_room(w, &w->cls, w->cls.n + 1)) w->cls.v[w->cls.n++] = c;
  }
}

/* The plain filter of a must-definition of set over the pairs p. */
static void kill_scan(const cg_kalias *al, pvec *p, int32_t set) {
  size_t j, m = 0;
  for (j = 0; j < p->n; j++) { /* a filter: the order stays sorted */
    int r = cg_kalias_relation(al, (uint32_t)set, (uint32_t)p->v[j].set);
    if (r == CG_KREL_MUST) continue;
    p->v[m] = p->v[j];
    if (r == CG_KREL_MAY) mask_add(&p->v[m], set);
    m++;
  }
  p->n = m;
}

/* A definition: an exact one kills what it must overwrite, and is then
 * written on every path; any one reaches on. */
static void define(cw *w, int32_t st, int32_t set, int may) {
  const cg_kalias *al = w->al;
  int must = !may && al->set_exact[set];
  size_t i;
  pr x;
  set_classes(w, set);
  x.s = st, x.set = set, x.m[0] = x.m[1] = -1;
  for (i = 0; i < w->cls.n; i++) {
    int32_t c = w->cls.v[i];
    pvec *p = &w->rd[c];
    if (must && ix_ready(w, c, set)) { /* only the pair of set itself is "must", the rest "no" */
      ptrdiff_t k = ix_find(w, c, set);
#ifndef NDEBUG
      pv_copy(w, &w->dbg, p);
      if (!w->err) kill_scan(al, &w->dbg, set);
#endif
      if (k >= 0) memmove(&p->v[k], &p->v[k + 1], (p->n - (size_t)k - 1) * sizeof(pr)), p->n--;
      assert(w->err || (w->dbg.n == p->n && (!p->n || !memcmp(w->dbg.v, p->v, p->n * sizeof(pr)))));
      iv_insert(w, &w->mu[c], set);
      pv_insert(w, p, x);
      w->sst[set] = w->ixstamp[c], w->spos[set] = st;
      continue;
    }
    if (must) {
      size_t n0 = p->n;
      kill_scan(al, p, set);
      iv_insert(w, &w->mu[c], set);
      if (w->ixs[c] == IX_ON || p->n < n0) ix_dirty(w, c); /* an off index stays off until a pair goes */
    } else if (w->ixs[c] == IX_ON) ix_dirty(w, c);
    pv_insert(w, p, x);
  }
}

/* Whether a must-definition after r covers every cell of use set u. */
static int hidden(const cg_kalias *al, const pr *r, int32_t u) {
  int i;
  for (i = 0; i < 2; i++)
    if (r->m[i] >= 0 && cg_kalias_relation(al, (uint32_t)u, (uint32_t)r->m[i]) == CG_KREL_MUST) return 1;
  return 0;
}

/* Whether an exact set written on every path (in mu) covers set u: u
 * itself, or, when researchers' overrides exist, a set they made "must"
 * related to u (without overrides distinct sets are never "must"; the scan
 * is then skipped, keeping a use O(log) here). */
static int written_must(const cg_kalias *al, const ivec *mu, int32_t u) {
  size_t i;
  if (iv_has(mu, u)) return 1;
  if (!al->nover) return 0;
  for (i = 0; i < mu->n; i++)
    if (cg_kalias_relation(al, (uint32_t)u, (uint32_t)mu->v[i]) == CG_KREL_MUST) return 1;
  return 0;
}

/* A use's chain by the plain scan of the pairs of w->cls (after -1). */
static void use_scan(cw *w, int32_t set, ivec *out) {
  const cg_kalias *al = w->al;
  size_t i, j;
  for (i = 0; i < w->cls.n; i++) { /* a class's pairs are sorted by statement */
    const pvec *p = &w->rd[w->cls.v[i]];
    for (j = 0; j < p->n; j++)
      if (cg_kalias_relation(al, (uint32_t)set, (uint32_t)p->v[j].set) != CG_KREL_NO &&
          !hidden(al, &p->v[j], set) && !iv_room(w, out, out->n + 1))
        out->v[out->n++] = p->v[j].s;
  }
}

/* A use's chain: the reaching statements whose sets may meet it, -1 when
 * its cell is not written on every path. */
static void use(cw *w, uint32_t u) {
  const cg_kalias *al = w->al;
  int32_t set = al->acc_set[u];
  ivec *out = &w->udv[u];
  size_t i, j, start;
  int outside = 1;
  out->n = 0;
  set_classes(w, set);
  for (i = 0; i < w->cls.n; i++)
    if (al->set_exact[set] && written_must(al, &w->mu[w->cls.v[i]], set)) outside = 0;
  if (outside && !iv_room(w, out, 1)) out->v[out->n++] = -1;
  start = out->n;
  if (w->cls.n == 1 && ix_ready(w, w->cls.v[0], set)) { /* only the pair of set may meet it */
    int32_t c = w->cls.v[0];
    ptrdiff_t k = ix_find(w, c, set);
    if (k >= 0 && !hidden(al, &w->rd[c].v[k], set) && !iv_room(w, out, out->n + 1))
      out->v[out->n++] = w->rd[c].v[k].s;
#ifndef NDEBUG
    w->dbgu.n = 0;
    use_scan(w, set, &w->dbgu);
    assert(w->err || (w->dbgu.n == out->n - start &&
                      (!w->dbgu.n || !memcmp(w->dbgu.v, out->v + start, w->dbgu.n * sizeof(int32_t)))));
#endif
    return;
  }
  use_scan(w, set, out);
  if (w->cls.n > 1 && out->n - start > 1) /* several classes: merge them */
    qsort(out->v + start, out->n - start, sizeof(int32_t), i_qcmp);
  for (i = 0, j = 0; i < out->n; i++)
    if (!j || out->v[j - 1] != out->v[i]) out->v[j++] = out->v[i];
  out->n = j;
}

/* A statement's accesses in order: uses read the state, definitions change it. */
static void accesses(cw *w, int32_t st) {
  const cg_kalias *al = w->al;
  int32_t a0 = cg_kalias_acc0(al, st), i;
  for (i = 0; i < cg_kalias_nacc(al, st); i++) {
    uint32_t a = (uint32_t)(a0 + i);
    if (al->acc_kind[a] == CG_KA_USE) use(w, a);
    else define(w, st, al->acc_set[a], al->acc_may[a]);
  }
}

/* The definitions reaching the exit in regions. */
static void reach_exit(cw *w) {
  size_t i, j;
  if (!w->live) return;
  for (i = 0; i < w->regcls.n; i++) {
    const pvec *p = &w->rd[w->regcls.v[i]];
    if (pv_room(w, &w->ex, w->ex.n + p->n)) return;
    for (j = 0; j < p->n; j++) w->ex.v[w->ex.n++] = p->v[j];
  }
}

/* }==== */

/* {==== the walk ====} */

static void collect_cls(cw *w, int32_t from, int32_t n);

/* collect_cls over the slices of statement st: its LIST parts, whatever
 * its kind (in the table's order: mods_of sorts the classes). */
static void collect_slices(cw *w, int32_t st) {
  const cg_kernel *k = w->k;
  int kind = CG_KSTMT(k, st, KIND);
#define LIST_PART(kd, name, what, slot) \
  if (kind == CG_KST_##kd && CG_KP_##what == CG_KP_LIST) collect_cls(w, CG_KSTMT_SLICE(k, st, kd##_##name));
  CG_KSTMT_PARTS(LIST_PART)
#undef LIST_PART
}

static void collect_cls(cw *w, int32_t from, int32_t n) {
  const cg_kalias *al = w->al;
  const cg_kernel *k = w->k;
  int32_t i, a;
  uint32_t j;
  for (i = 0; i < n; i++) {
    int32_t st = k->list[from + i];
    for (a = cg_kalias_acc0(al, st); a >= 0 && a < cg_kalias_acc0(al, st) + cg_kalias_nacc(al, st); a++) {
      int32_t set = al->acc_set[a];
      if (al->acc_kind[a] != CG_KA_DEF) continue;
      for (j = 0; j < al->set_n[set]; j++) {
        int32_t c = al->obj_class[al->addr[al->set_off[set] + j].obj];
        if (w->mark[c] == w->stamp) continue;
        w->mark[c] = w->stamp;
        if (!iv_room(w, &w->cls, w->cls.n + 1)) w->cls.v[w->cls.n++] = c;
      }
    }
    collect_slices(w, st);
  }
}

/* A snapshot over the classes statement st's slices may define. */
static int mods_of(cw *w, int32_t st, snap *s) {
  w->stamp++, w->cls.n = 0;
  collect_slices(w, st);
  if (w->cls.n > 1) qsort(w->cls.v, w->cls.n, sizeof(int32_t), i_qcmp); /* never qsort(NULL, 0, ...) */
  return snap_init(w, s, w->cls.v, (uint32_t)w->cls.n);
}

static void walk_slice(cw *w, int32_t from, int32_t n);

static void walk_if(cw *w, int32_t st) {
  const cg_kernel *k = w->k;
  snap s0, s1;
  accesses(w, st);
  if (mods_of(w, st, &s0) || snap_init(w, &s1, s0.cls, s0.n)) goto done;
  snap_take(w, &s0);
  walk_slice(w, CG_KSTMT_SLICE(k, st, IF_THEN));
  snap_take(w, &s1);
  snap_put(w, &s0);
  walk_slice(w, CG_KSTMT_SLICE(k, st, IF_ELSE));
  cur_join_snap(w, &s1);
done:
  snap_free(w, &s0), snap_free(w, &s1);
}

/* A definition that goes around the back edge of loop st no longer names
 * the loop's value numbers: they name the next iteration's values. */
static void widen_back(cw *w, const snap *h, int32_t st) {
  int32_t vn0 = w->al->loop_vn0[st - w->al->s_lo], vn1 = w->al->loop_vn1[st - w->al->s_lo];
  uint32_t i;
  size_t j, m;
  for (i = 0; i < h->n && w->live; i++) {
    pvec *p = &w->rd[h->cls[i]];
    int hit = 0;
    ix_dirty(w, h->cls[i]);
    for (j = 0; j < p->n; j++) {
      int32_t s = cg_kalias_widen(w->al, (uint32_t)p->v[j].set, vn0, vn1);
      int t;
      if (s < 0) { w->err = CG_ENOMEM; return; }
      hit |= s != p->v[j].set;
      p->v[j].set = s;
      for (t = 0; t < 2; t++) { /* a mask naming this iteration's cells says nothing of the next */
        int32_t mt = p->v[j].m[t];
        if (mt < 0) continue;
        s = cg_kalias_widen(w->al, (uint32_t)mt, vn0, vn1);
        if (s < 0) { w->err = CG_ENOMEM; return; }
        if (s != mt) p->v[j].m[t] = -1;
      }
    }
    if (!hit) continue;
    if (p->n > 1) qsort(p->v, p->n, sizeof(pr), pr_qcmp); /* never qsort(NULL, 0, ...) */
    for (j = 0, m = 0; j < p->n; j++)
      if (!m || pr_cmp(&p->v[m - 1], &p->v[j])) p->v[m++] = p->v[j];
      else mask_inter(&p->v[m - 1], &p->v[j]);
    p->n = m;
  }
}

static int push_frame(cw *w, const snap *h) {
  frame *f;
  if (cg_reserve(w->A, (void **)&w->fr, &w->capfr, w->nfr + 1, sizeof(frame))) return w->err = CG_ENOMEM;
  f = &w->fr[w->nfr++];
  memset(f, 0, sizeof *f);
  if (snap_init(w, &f->brk, h->cls, h->n)) return w->err;
  return snap_init(w, &f->cont, h->cls, h->n);
}

/* One pass of loop st from its header state: returns with the state at the
 * back edge; e gathers the state where the condition fails. */
static void loop_pass(cw *w, int32_t st, snap *e) {
  const cg_kernel *k = w->k;
  int do_loop = CG_KSTMT(k, st, FLAGS) == CG_KL_DO, cond = CG_KSTMT(k, st, LOOP_COND) >= 0;
  size_t f = w->nfr - 1;
  if (!do_loop) {
    walk_slice(w, CG_KSTMT_SLICE(k, st, LOOP_PRE));
    accesses(w, st);
    if (cond) snap_join_cur(w, e);
  }
  walk_slice(w, CG_KSTMT_SLICE(k, st, LOOP_BODY));
  cur_join_snap(w, &w->fr[f].cont);
  walk_slice(w, CG_KSTMT_SLICE(k, st, LOOP_STEP));
  if (do_loop) {
    walk_slice(w, CG_KSTMT_SLICE(k, st, LOOP_PRE));
    accesses(w, st);
    if (cond) snap_join_cur(w, e);
  }
}

/* Iterates to the fixpoint at the header; the uses' chains of the last
 * pass (made from the stable header state) are the answer. */
static void walk_loop(cw *w, int32_t st) {
  snap h, e;
  memset(&e, 0, sizeof e);
  if (mods_of(w, st, &h) || snap_init(w, &e, h.cls, h.n) || push_frame(w, &h)) goto done;
  snap_take(w, &h);
  for (;;) {
    w->passes++;
    w->fr[w->nfr - 1].brk.live = w->fr[w->nfr - 1].cont.live = e.live = 0;
    snap_put(w, &h);
    loop_pass(w, st, &e);
    widen_back(w, &h, st);
    if (w->err || !snap_join_cur(w, &h)) break;
  }
  snap_put(w, &e);
  cur_join_snap(w, &w->fr[w->nfr - 1].brk);
done:
  if (w->nfr && w->fr[w->nfr - 1].brk.cls) {
    snap_free(w, &w->fr[w->nfr - 1].brk), snap_free(w, &w->fr[w->nfr - 1].cont);
    w->nfr--;
  }
  snap_free(w, &h), snap_free(w, &e);
}

static void walk_stmt(cw *w, int32_t st) {
  switch (CG_KSTMT(w->k, st, KIND)) {
    case CG_KST_IF: walk_if(w, st); break;
    case CG_KST_LOOP: walk_loop(w, st); break;
    case CG_KST_BREAK: snap_join_cur(w, &w->fr[w->nfr - 1].brk), w->live = 0; break;
    case CG_KST_CONTINUE: snap_join_cur(w, &w->fr[w->nfr - 1].cont), w->live = 0; break;
    case CG_KST_RETURN: accesses(w, st), reach_exit(w), w->live = 0; break;
    default: accesses(w, st); break;
  }
}

static void walk_slice(cw *w, int32_t from, int32_t n) {
  int32_t i;
  for (i = 0; i < n && !w->err; i++) walk_stmt(w, w->k->list[from + i]);
}

/* }==== */

/* {==== the chains ====} */

static int build_ud(cw *w, cg_kchains *ch) {
  uint32_t u;
  size_t n = 0;
  ch->ud_off = CG_NEW(w->A, uint32_t, (size_t)ch->nacc + 1);
  if (!ch->ud_off) return CG_ENOMEM;
  for (u = 0; u < ch->nacc; u++) ch->ud_off[u] = (uint32_t)n, n += w->udv[u].n;
  ch->ud_off[ch->nacc] = (uint32_t)n;
  ch->ud = CG_NEW(w->A, int32_t, n);
  if (!ch->ud) return CG_ENOMEM;
  for (u = 0; u < ch->nacc; u++)
    if (w->udv[u].n) memcpy(&ch->ud[ch->ud_off[u]], w->udv[u].v, w->udv[u].n * sizeof(int32_t));
  return CG_OK;
}

/* du by inverting ud, plus -1 for what reaches the exit in a region. */
/* Visits the (definition, user) pairs in ascending order of the user, each
 * once: fill 0 counts them into du_off, fill 1 writes them at pos. */
static void du_pairs(const cg_kalias *al, cg_kchains *ch, int32_t *last, uint32_t *pos, int fill) {
  uint32_t t, i;
  int32_t a;
  for (t = 0; t < ch->nstmt; t++) {
    int32_t st = ch->s_lo + (int32_t)t;
    for (a = cg_kalias_acc0(al, st); a >= 0 && a < cg_kalias_acc0(al, st) + cg_kalias_nacc(al, st); a++)
      for (i = ch->ud_off[a]; i < ch->ud_off[a + 1]; i++) {
        int32_t d = ch->ud[i] - ch->s_lo;
        if (ch->ud[i] < 0 || last[d] == st) continue;
        last[d] = st;
        if (fill) ch->du[pos[d]++] = st;
        else ch->du_off[d + 1]++;
      }
  }
}

/* du by inverting ud (a counting pass and a filling pass in the users'
 * order, so every list comes out ascending without a sort), with -1 first
 * for what reaches the exit in a region. */
static int build_du(cw *w, cg_kchains *ch) {
  uint32_t s, i, n = ch->nstmt;
  int32_t *last = CG_NEW(w->A, int32_t, n);
  uint32_t *pos = CG_NEW(w->A, uint32_t, n);
  int st = CG_ENOMEM;
  ch->du_off = CG_NEW(w->A, uint32_t, (size_t)n + 1);
  if (!last || !pos || !ch->du_off) goto done;
  memset(ch->du_off, 0, ((size_t)n + 1) * sizeof *ch->du_off);
  for (s = 0; s < n; s++) last[s] = INT32_MIN;
  for (i = 0; i < ch->nex; i++) /* ex is sorted: one -1 per statement */
    if (!i || ch->ex_stmt[i] != ch->ex_stmt[i - 1]) ch->du_off[ch->ex_stmt[i] - ch->s_lo + 1]++;
  du_pairs(w->al, ch, last, pos, 0);
  for (s = 0; s < n; s++) ch->du_off[s + 1] += ch->du_off[s];
  ch->du = CG_NEW(w->A, int32_t, ch->du_off[n]);
  if (!ch->du) goto done;
  ch->ndu_alloc = ch->du_off[n];
  for (s = 0; s < n; s++) pos[s] = ch->du_off[s], last[s] = INT32_MIN;
  for (i = 0; i < ch->nex; i++)
    if (!i || ch->ex_stmt[i] != ch->ex_stmt[i - 1]) ch->du[pos[ch->ex_stmt[i] - ch->s_lo]++] = -1;
  du_pairs(w->al, ch, last, pos, 1);
  st = CG_OK;
done:
  CG_FREE(w->A, last, int32_t, n);
  CG_FREE(w->A, pos, uint32_t, n);
  return st;
}

static int build_exit(cw *w, cg_kchains *ch) {
  size_t i, m = 0;
  if (w->ex.n > 1) qsort(w->ex.v, w->ex.n, sizeof(pr), pr_qcmp); /* never qsort(NULL, 0, ...) */
  for (i = 0; i < w->ex.n; i++)
    if (!m || pr_cmp(&w->ex.v[m - 1], &w->ex.v[i])) w->ex.v[m++] = w->ex.v[i];
  ch->nex = (uint32_t)m;
  ch->ex_stmt = CG_NEW(w->A, int32_t, m);
  ch->ex_set = CG_NEW(w->A, int32_t, m);
  if (!ch->ex_stmt || !ch->ex_set) return CG_ENOMEM;
  for (i = 0; i < m; i++) ch->ex_stmt[i] = w->ex.v[i].s, ch->ex_set[i] = w->ex.v[i].set;
  return CG_OK;
}

static int cw_init(cw *w, cg_alloc *A, cg_kalias *al) {
  uint32_t o;
  memset(w, 0, sizeof *w);
  w->al = al, w->k = al->k, w->A = A, w->live = 1;
  w->rd = CG_NEW(A, pvec, al->ncls);
  w->mu = CG_NEW(A, ivec, al->ncls);
  w->udv = CG_NEW(A, ivec, al->nacc);
  w->mark = CG_NEW(A, uint32_t, al->ncls);
  w->ixs = CG_NEW(A, uint8_t, al->ncls);
  w->ixkey = CG_NEW(A, int32_t, al->ncls);
  w->ixstamp = CG_NEW(A, uint32_t, al->ncls);
  if (w->rd) memset(w->rd, 0, al->ncls * sizeof *w->rd); /* first: cw_free reads them */
  if (w->mu) memset(w->mu, 0, al->ncls * sizeof *w->mu);
  if (w->udv) memset(w->udv, 0, al->nacc * sizeof *w->udv);
  if (!w->rd || !w->mu || !w->udv || !w->mark || !w->ixs || !w->ixkey || !w->ixstamp) return CG_ENOMEM;
  memset(w->ixs, IX_DIRTY, al->ncls), memset(w->ixstamp, 0, al->ncls * sizeof *w->ixstamp);
  memset(w->mark, 0, al->ncls * sizeof *w->mark);
  w->stamp++;
  for (o = 0; o < al->nobj; o++) {
    int32_t c = al->obj_class[o];
    if (al->obj_kind[o] != CG_KO_REGION || w->mark[c] == w->stamp) continue;
    w->mark[c] = w->stamp;
    if (iv_room(w, &w->regcls, w->regcls.n + 1)) return CG_ENOMEM;
    w->regcls.v[w->regcls.n++] = c;
  }
  return CG_OK;
}

static void cw_free(cw *w) {
  uint32_t i;
  for (i = 0; w->rd && w->mu && i < w->al->ncls; i++) pv_free(w->A, &w->rd[i]), iv_free(w->A, &w->mu[i]);
  for (i = 0; w->udv && i < w->al->nacc; i++) iv_free(w->A, &w->udv[i]);
  CG_FREE(w->A, w->rd, pvec, w->al->ncls);
  CG_FREE(w->A, w->mu, ivec, w->al->ncls);
  CG_FREE(w->A, w->udv, ivec, w->al->nacc);
  CG_FREE(w->A, w->mark, uint32_t, w->al->ncls);
  CG_FREE(w->A, w->ixs, uint8_t, w->al->ncls);
  CG_FREE(w->A, w->ixkey, int32_t, w->al->ncls);
  CG_FREE(w->A, w->ixstamp, uint32_t, w->al->ncls);
  CG_FREE(w->A, w->spos, int32_t, w->capsp);
  CG_FREE(w->A, w->sst, uint32_t, w->capsst);
#ifndef NDEBUG
  pv_free(w->A, &w->dbg), iv_free(w->A, &w->dbgu);
#endif
  CG_FREE(w->A, w->fr, frame, w->capfr);
  pv_free(w->A, &w->ex), pv_free(w->A, &w->tmp);
  iv_free(w->A, &w->cls), iv_free(w->A, &w->regcls), iv_free(w->A, &w->itmp);
}

void cg_kchains_free(cg_kchains *ch) {
  if (!ch) return;
  CG_FREE(ch->A, ch->ud, int32_t, ch->ud_off ? ch->ud_off[ch->nacc] : 0);
  CG_FREE(ch->A, ch->ud_off, uint32_t, (size_t)ch->nacc + 1);
  CG_FREE(ch->A, ch->du_off, uint32_t, (size_t)ch->nstmt + 1);
  CG_FREE(ch->A, ch->du, int32_t, ch->ndu_alloc);
  CG_FREE(ch->A, ch->ex_stmt, int32_t, ch->nex);
  CG_FREE(ch->A, ch->ex_set, int32_t, ch->nex);
  CG_FREE(ch->A, ch, cg_kchains, 1);
}

cg_kchains *cg_kchains_run(cg_alloc *A, cg_kalias *al, cg_error *e) {
  cw w;
  cg_kchains *ch = CG_NEW(A, cg_kchains, 1);
  int st;
  if (!ch) { cg_seterr(e, CG_ENOMEM, "chains: out of memory"); return NULL; }
  memset(ch, 0, sizeof *ch);
  ch->A = A, ch->al = al, ch->nacc = al->nacc, ch->nstmt = al->ns, ch->s_lo = al->s_lo;
  st = cw_init(&w, A, al);
  if (!st) {
    walk_slice(&w, CG_KFUNC(al->k, al->func, BODY), CG_KFUNC(al->k, al->func, NBODY));
    reach_exit(&w);
    st = w.err;
  }
  if (!st) st = build_ud(&w, ch);
  if (!st) st = build_exit(&w, ch);
  if (!st) st = build_du(&w, ch);
  ch->passes = w.passes;
  cw_free(&w);
  if (st) {
    cg_seterr(e, CG_ENOMEM, "chains: out of memory");
    cg_kchains_free(ch);
    return NULL;
  }
  return ch;
}

/* }==== */
