/* cg_kalias.c: alias analysis of a kernel function (Utke, Flattening,
 * sec. 4): objects, value numbering with affine forms, flow-sensitive
 * points-to sets with offsets, interned address sets, accesses, the
 * must/may/no relation and a researcher's overrides.  One walk over the
 * structured statement tree; loops are walked once, since a variable the
 * loop changes gets a fresh number at the header (and after the loop). */
#include "cg_kalias.h"

#include <stdlib.h>
#include <string.h>

CG_KKINDS_SEEN(10, 32); /* the statement kinds and expression operators its switches handle */

#define LS(al, s) cg_kalias_lsym((al), (s)) /* a symbol's local index */
#define SET_MAX 16            /* addresses of a set before offsets collapse to unknown */
#define AFF_LIM ((int64_t)1 << 40) /* coefficients beyond: the offset becomes unknown */

typedef struct walk {
  cg_kaff *ival;     /* k->nsym: an int scalar's value */
  int32_t *pval;     /* k->nsym: a pointer's points-to set */
  int32_t *expr_vn;  /* k->nexpr: the number of an opaque int expression, -1 */
  uint32_t *mark;    /* k->nsym: stamp of the last collection */
  uint32_t stamp;
  int32_t *ptr_idx;  /* k->nsym: a pointer symbol's row in fins, -1 */
  uint32_t nptr;
  uint8_t *fins;     /* nptr x nobj: objects a pointer may ever reach */
  int32_t *addrtaken; /* int scalars whose address is taken */
  uint32_t naddrtaken;
  int32_t *syms;     /* collected symbols (scratch stack) */
  size_t nsyms, capsyms;
  cg_kaddr *tmp;     /* scratch of set building */
  size_t captmp;
  int live;
  int32_t empty;     /* the empty set */
} walk;

/* {==== affine forms ====} */

static void aff_const(cg_kaff *a, int64_t c) {
  memset(a, 0, sizeof *a);
  a->c = c;
}
static void aff_top(cg_kaff *a) {
  memset(a, 0, sizeof *a);
  a->nt = -1;
}
static void aff_vn(cg_kaff *a, int32_t vn) {
  aff_const(a, 0);
  a->nt = 1, a->vn[0] = vn, a->coef[0] = 1;
}
static int too_big(int64_t v) { return v > AFF_LIM || v < -AFF_LIM; }

/* r = a + s * b (r may alias a or b); unknown when a term count or size overflows. */
static void aff_axpy(cg_kaff *r, const cg_kaff *a, int64_t s, const cg_kaff *b) {
  cg_kaff o;
  int32_t i = 0, j = 0;
  if (a->nt < 0 || b->nt < 0 || too_big(s)) { aff_top(r); return; }
  aff_const(&o, a->c + s * b->c);
  while (i < a->nt || j < b->nt) {
    int32_t v;
    int64_t c;
    if (j >= b->nt || (i < a->nt && a->vn[i] < b->vn[j])) v = a->vn[i], c = a->coef[i++];
    else if (i >= a->nt || b->vn[j] < a->vn[i]) v = b->vn[j], c = s * b->coef[j++];
    else v = a->vn[i], c = a->coef[i++] + s * b->coef[j++];
    if (c == 0) continue;
    if (o.nt == CG_KAFF_MAX || too_big(c)) { aff_top(r); return; }
    o.vn[o.nt] = v, o.coef[o.nt++] = c;
  }
  if (too_big(o.c)) { aff_top(r); return; }
  *r = o;
}
static void aff_scale(cg_kaff *r, const cg_kaff *a, int64_t s) {
  cg_kaff z;
  aff_const(&z, 0);
  aff_axpy(r, &z, s, a);
}
static int aff_eq(const cg_kaff *a, const cg_kaff *b) {
  int32_t i;
  if (a->nt != b->nt || a->c != b->c) return 0;
  for (i = 0; i < a->nt; i++)
    if (a->vn[i] != b->vn[i] || a->coef[i] != b->coef[i]) return 0;
  return 1;
}
static int aff_cmp(const cg_kaff *a, const cg_kaff *b) {
  int32_t i;
  if (a->nt != b->nt) return a->nt < b->nt ? -1 : 1;
  if (a->c != b->c) return a->c < b->c ? -1 : 1;
  for (i = 0; i < a->nt; i++) {
    if (a->vn[i] != b->vn[i]) return a->vn[i] < b->vn[i] ? -1 : 1;
    if (a->coef[i] != b->coef[i]) return a->coef[i] < b->coef[i] ? -1 : 1;
  }
  return 0;
}

/* }==== */

/* {==== value numbers ====} */

static int32_t new_vn(cg_kalias *al, int32_t sym) {
  size_t cap = al->capvn;
  if (cg_reserve(al->A, (void **)&al->vn_sym, &cap, al->nvn + 1, sizeof(int32_t))) return -1;
  al->capvn = (uint32_t)cap;
  al->vn_sym[al->nvn] = sym;
  return (int32_t)al->nvn++;
}

/* }==== */

/* {==== address sets ====} */

static int addr_cmp(const void *pa, const void *pb) {
  const cg_kaddr *a = pa, *b = pb;
  if (a->obj != b->obj) return a->obj < b->obj ? -1 : 1;
  return aff_cmp(&a->off, &b->off);
}

static uint64_t set_hash(const cg_kaddr *a, uint32_t n) {
  uint64_t h = 1469598103934665603u;
  uint32_t i;
  int32_t t;
#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211u)
  for (i = 0; i < n; i++) {
    MIX(a[i].obj), MIX(a[i].off.nt), MIX(a[i].off.c);
    for (t = 0; t < a[i].off.nt; t++) MIX(a[i].off.vn[t]), MIX(a[i].off.coef[t]);
  }
#undef MIX
  return h;
}

static int set_equals(const cg_kalias *al, uint32_t s, const cg_kaddr *a, uint32_t n) {
  uint32_t i;
  if (al->set_n[s] != n) return 0;
  for (i = 0; i < n; i++)
    if (addr_cmp(&al->addr[al->set_off[s] + i], &a[i])) return 0;
  return 1;
}

/* Doubles the interning table and reinserts every set. */
static int rehash(cg_kalias *al) {
  uint32_t ncap = al->hcap ? al->hcap * 2 : 64, s;
  uint32_t *t = CG_NEW(al->A, uint32_t, ncap);
  if (!t) return CG_ENOMEM;
  memset(t, 0, ncap * sizeof *t);
  for (s = 0; s < al->nset; s++) {
    uint32_t i = (uint32_t)set_hash(&al->addr[al->set_off[s]], al->set_n[s]) & (ncap - 1);
    while (t[i]) i = (i + 1) & (ncap - 1);
    t[i] = s + 1;
  }
  CG_FREE(al->A, al->hslot, uint32_t, al->hcap);
  al->hslot = t, al->hcap = ncap;
  return CG_OK;
}

/* Appends set a[0..n) (sorted, distinct) as set nset. */
static int32_t append_set(cg_kalias *al, const cg_kaddr *a, uint32_t n) {
  /* each array keeps its own capacity: a failure after another grew leaves both right */
  if (cg_reserve(al->A, (void **)&al->addr, &al->cap_set[3], al->naddr + n, sizeof *a) ||
      cg_reserve(al->A, (void **)&al->set_off, &al->cap_set[0], al->nset + 1, sizeof(uint32_t)) ||
      cg_reserve(al->A, (void **)&al->set_n, &al->cap_set[1], al->nset + 1, sizeof(uint32_t)) ||
      cg_reserve(al->A, (void **)&al->set_exact, &al->cap_set[2], al->nset + 1, 1))
    return -1;
  if (n) memcpy(&al->addr[al->naddr], a, n * sizeof *a); /* the empty set: addr may be NULL */
  al->set_off[al->nset] = al->naddr, al->set_n[al->nset] = n;
  al->set_exact[al->nset] = n == 1 && a[0].off.nt >= 0;
  al->naddr += n;
  return (int32_t)al->nset++;
}

/* Normalizes a[0..n) in place (a scalar's offset is 0; sorted, distinct;
 * past SET_MAX offsets become unknown) and interns it: its set id, -1 on
 * CG_ENOMEM. */
static int32_t intern(cg_kalias *al, cg_kaddr *a, uint32_t n) {
  uint32_t i, m = 0, h;
  int32_t s;
  for (i = 0; i < n; i++)
    if (al->obj_cells[a[i].obj] == 1) aff_const(&a[i].off, 0); /* one cell: any access is it */
  if (n > 1) qsort(a, n, sizeof *a, addr_cmp); /* qsort(NULL, 0, ...) is undefined */
  for (i = 0; i < n; i++)
    if (!m || addr_cmp(&a[m - 1], &a[i])) a[m++] = a[i];
  if (m > SET_MAX) {
    for (i = 0; i < m; i++)
      if (al->obj_cells[a[i].obj] != 1) aff_top(&a[i].off);
    return intern(al, a, m);
  }
  if ((al->nset + 1) * 2 > al->hcap && rehash(al)) return -1;
  h = (uint32_t)set_hash(a, m) & (al->hcap - 1);
  for (; al->hslot[h]; h = (h + 1) & (al->hcap - 1))
    if (set_equals(al, al->hslot[h] - 1, a, m)) return (int32_t)al->hslot[h] - 1;
  s = append_set(al, a, m);
  if (s >= 0) al->hslot[h] = (uint32_t)s + 1;
  return s;
}

/* Room for n addresses in the walk's scratch. */
static int tmp_room(cg_kalias *al, walk *w, size_t n) {
  return cg_reserve(al->A, (void **)&w->tmp, &w->captmp, n, sizeof(cg_kaddr));
}

/* The set {(obj, off)}. */
static int32_t set1(cg_kalias *al, walk *w, int32_t obj, const cg_kaff *off) {
  if (tmp_room(al, w, 1)) return -1;
  w->tmp[0].obj = obj, w->tmp[0].off = *off;
  return intern(al, w->tmp, 1);
}

/* Set s with every offset moved by d (unknown stays unknown). */
static int32_t set_shift(cg_kalias *al, walk *w, int32_t s, const cg_kaff *d) {
  uint32_t i, n = al->set_n[s];
  if (tmp_room(al, w, n)) return -1;
  for (i = 0; i < n; i++) {
    w->tmp[i] = al->addr[al->set_off[s] + i];
    aff_axpy(&w->tmp[i].off, &w->tmp[i].off, 1, d);
  }
  return intern(al, w->tmp, n);
}

/* Set s with every offset unknown (what a call may touch through a pointer). */
static int32_t set_whole(cg_kalias *al, walk *w, int32_t s) {
  uint32_t i, n = al->set_n[s];
  if (tmp_room(al, w, n)) return -1;
  for (i = 0; i < n; i++) {
    w->tmp[i].obj = al->addr[al->set_off[s] + i].obj;
    aff_top(&w->tmp[i].off);
  }
  return intern(al, w->tmp, n);
}

static int32_t set_union(cg_kalias *al, walk *w, int32_t s1, int32_t s2) {
  uint32_t n1 = al->set_n[s1], n2 = al->set_n[s2];
  if (s1 == s2) return s1;
  if (tmp_room(al, w, (size_t)n1 + n2)) return -1;
  if (n1) memcpy(w->tmp, &al->addr[al->set_off[s1]], n1 * sizeof(cg_kaddr)); /* addr may be NULL */
  if (n2) memcpy(w->tmp + n1, &al->addr[al->set_off[s2]], n2 * sizeof(cg_kaddr));
  return intern(al, w->tmp, n1 + n2);
}

static int aff_names(const cg_kaff *a, int32_t vn0, int32_t vn1) {
  int32_t t;
  for (t = 0; t < a->nt; t++)
    if (a->vn[t] >= vn0 && a->vn[t] < vn1) return 1;
  return 0;
}

int32_t cg_kalias_widen(cg_kalias *al, uint32_t s, int32_t vn0, int32_t vn1) {
  uint32_t i, n = al->set_n[s], hit = 0;
  cg_kaddr *a;
  int32_t r;
  for (i = 0; i < n; i++) hit |= (uint32_t)aff_names(&al->addr[al->set_off[s] + i].off, vn0, vn1);
  if (!hit) return (int32_t)s;
  a = CG_NEW(al->A, cg_kaddr, n);
  if (!a) return -1;
  for (i = 0; i < n; i++) {
    a[i] = al->addr[al->set_off[s] + i];
    if (aff_names(&a[i].off, vn0, vn1)) aff_top(&a[i].off);
  }
  r = intern(al, a, n);
  CG_FREE(al->A, a, cg_kaddr, n);
  return r;
}

/* }==== */

/* {==== the relation ====} */

static int regions_overlap(const cg_kalias *al, int32_t o1, int32_t o2) {
  int32_t r1 = al->obj_reg[o1], r2 = al->obj_reg[o2];
  return r1 >= 0 && r2 >= 0 && al->overlap[(size_t)r1 * al->nreg + (size_t)r2];
}

/* 0: never the same cell, 1: may be, 2: the same cell. */
static int addr_rel(const cg_kalias *al, const cg_kaddr *a, const cg_kaddr *b) {
  cg_kaff d;
  if (a->obj != b->obj) return regions_overlap(al, a->obj, b->obj) ? 1 : 0;
  aff_axpy(&d, &a->off, -1, &b->off);
  if (d.nt != 0) return 1;
  return d.c == 0 ? 2 : 0;
}

int cg_kalias_relation0(const cg_kalias *al, uint32_t s1, uint32_t s2) {
  uint32_t i, j;
  int any = 0, r = 0;
  if (s1 == s2 && al->set_exact[s1]) return CG_KREL_MUST;
  for (i = 0; i < al->set_n[s1]; i++)
    for (j = 0; j < al->set_n[s2]; j++) {
      r = addr_rel(al, &al->addr[al->set_off[s1] + i], &al->addr[al->set_off[s2] + j]);
      if (r) any = 1;
    }
  if (!any) return CG_KREL_NO;
  if (r == 2 && al->set_exact[s1] && al->set_exact[s2]) return CG_KREL_MUST;
  return CG_KREL_MAY;
}

/* The override's row for (u, v), u < v, or -1 (binary search). */
static int32_t find_override(const cg_kalias *al, int32_t u, int32_t v) {
  uint32_t lo = 0, hi = al->nover;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (al->over_u[mid] < u || (al->over_u[mid] == u && al->over_v[mid] < v)) lo = mid + 1;
    else hi = mid;
  }
  return lo < al->nover && al->over_u[lo] == u && al->over_v[lo] == v ? (int32_t)lo : -1;
}

int cg_kalias_relation(const cg_kalias *al, uint32_t s1, uint32_t s2) {
  int r = cg_kalias_relation0(al, s1, s2);
  int32_t row;
  if (r != CG_KREL_MAY || !al->nover || s1 == s2) return r;
  row = s1 < s2 ? find_override(al, (int32_t)s1, (int32_t)s2)
                : find_override(al, (int32_t)s2, (int32_t)s1);
  return row < 0 ? r : al->over_rel[row];
}

static int add_override(cg_kalias *al, int32_t u, int32_t v, int rel) {
  if (cg_reserve(al->A, (void **)&al->over_u, &al->cap_over[0], al->nover + 1, sizeof(int32_t)) ||
      cg_reserve(al->A, (void **)&al->over_v, &al->cap_over[1], al->nover + 1, sizeof(int32_t)) ||
      cg_reserve(al->A, (void **)&al->over_rel, &al->cap_over[2], al->nover + 1, sizeof(int32_t)))
    return CG_ENOMEM;
  al->over_u[al->nover] = u, al->over_v[al->nover] = v, al->over_rel[al->nover++] = rel;
  return CG_OK;
}

/* The sets of each class (CSR into al->ov_*, owned by al: the override
 * may raise a Lua error through us, and al's owner frees it then). */
static int class_sets(cg_kalias *al) {
  uint32_t s, i, c, n = 0;
  for (s = 0; s < al->nset; s++) n += al->set_n[s];
  al->ov_n = n, al->ov_nset = al->nset; /* widening may add sets later */
  al->ov_off = CG_NEW(al->A, uint32_t, (size_t)al->ncls + 1);
  al->ov_set = CG_NEW(al->A, uint32_t, n);
  al->ov_mark = CG_NEW(al->A, uint32_t, al->nset);
  al->ov_list = CG_NEW(al->A, uint32_t, al->nset);
  if (!al->ov_off || !al->ov_set || !al->ov_mark || !al->ov_list) return CG_ENOMEM;
  memset(al->ov_off, 0, ((size_t)al->ncls + 1) * sizeof *al->ov_off);
  for (s = 0; s < al->nset; s++) al->ov_mark[s] = UINT32_MAX;
  for (s = 0; s < al->nset; s++)
    for (i = 0; i < al->set_n[s]; i++) al->ov_off[al->obj_class[al->addr[al->set_off[s] + i].obj] + 1]++;
  for (c = 0; c < al->ncls; c++) al->ov_off[c + 1] += al->ov_off[c];
  for (s = 0; s < al->nset; s++) /* ascending within each class; a set may repeat there */
    for (i = 0; i < al->set_n[s]; i++) al->ov_set[al->ov_off[al->obj_class[al->addr[al->set_off[s] + i].obj]]++] = s;
  for (c = al->ncls; c > 0; c--) al->ov_off[c] = al->ov_off[c - 1];
  al->ov_off[0] = 0;
  return CG_OK;
}

static int by_id(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* The sets v > u sharing a class with u, ascending, into ov_list; their count. */
static uint32_t partners(cg_kalias *al, uint32_t u) {
  uint32_t i, j, n = 0;
  for (i = 0; i < al->set_n[u]; i++) {
    int32_t c = al->obj_class[al->addr[al->set_off[u] + i].obj];
    for (j = al->ov_off[c]; j < al->ov_off[c + 1]; j++) {
      uint32_t v = al->ov_set[j];
      if (v <= u || al->ov_mark[v] == u) continue;
      al->ov_mark[v] = u, al->ov_list[n++] = v;
    }
  }
  if (n > 1) qsort(al->ov_list, n, sizeof *al->ov_list, by_id);
  return n;
}

/* Pairs are visited by ascending (u, v), so the rows come out sorted; only
 * pairs sharing a class can relate "may". */
int cg_kalias_override_all(cg_kalias *al, cg_kalias_override ov, void *ud, cg_error *e) {
  uint32_t u, i, n;
  if (!al->ov_off && class_sets(al)) return cg_seterr(e, CG_ENOMEM, "alias overrides: out of memory");
  for (u = 0; u < al->nset; u++)
    for (n = partners(al, u), i = 0; i < n; i++) {
      uint32_t v = al->ov_list[i];
      int r;
      if (cg_kalias_relation0(al, u, v) != CG_KREL_MAY) continue;
      r = ov(ud, al, u, v, e);
      if (r < -1) return r;
      if ((r == CG_KREL_NO || r == CG_KREL_MUST) && add_override(al, (int32_t)u, (int32_t)v, r))
        return cg_seterr(e, CG_ENOMEM, "alias overrides: out of memory");
    }
  return CG_OK;
}

/* }==== */

/* {==== objects ====} */

static int32_t sym_cells(const cg_kernel *k, int32_t s) {
  int32_t d0 = CG_KSYM(k, s, DIM0), nd = CG_KSYM(k, s, NDIM);
  if (nd == 0) return 1;
  if (d0 <= 0) return -1;
  return (int32_t)cg_ksym_cells(k, s); /* the loader keeps it within an int32 */
}

static int32_t add_object(cg_kalias *al, int32_t sym, int kind) {
  int32_t o = (int32_t)al->nobj++;
  al->obj_sym[o] = sym, al->obj_kind[o] = kind;
  al->obj_base[o] = CG_KSYM(al->k, sym, BASE);
  al->obj_cells[o] = kind == CG_KO_REGION ? -1 : sym_cells(al->k, sym);
  al->obj_reg[o] = -1;
  al->sym_obj[LS(al, sym)] = o;
  return o;
}

static int is_region_sym(const cg_kernel *k, int32_t s) {
  return CG_KSYM(k, s, KIND) == CG_KS_PARAM && CG_KSYM(k, s, PTR);
}

/* The assumption about pointer parameters a and b: 1 "==", 0 "!=", -1 none. */
static int assumed(const cg_kassume *as, uint32_t nas, int32_t a, int32_t b) {
  uint32_t i;
  for (i = 0; i < nas; i++)
    if ((as[i].a == a && as[i].b == b) || (as[i].a == b && as[i].b == a)) return as[i].eq;
  return -1;
}

static int check_assumptions(cg_kalias *al, const cg_kassume *as, uint32_t nas, cg_error *e) {
  const cg_kernel *k = al->k;
  const char *file = k->file ? k->file : "kernel";
  uint32_t i;
  for (i = 0; i < nas; i++) {
    int32_t a = as[i].a, b = as[i].b;
    if (a < 0 || b < 0 || (uint32_t)a >= k->nsym || (uint32_t)b >= k->nsym || a == b ||
        !is_region_sym(k, a) || !is_region_sym(k, b) || CG_KSYM(k, a, FUNC) != al->func ||
        CG_KSYM(k, b, FUNC) != al->func)
      return cg_seterr(e, CG_EUSAGE, "%s: assumption %u: not two pointer parameters of %s",
                       file, i + 1, k->names[CG_KFUNC(k, al->func, NAME)]);
    if (as[i].eq && (CG_KSYM(k, a, PTR) == 2 || CG_KSYM(k, b, PTR) == 2))
      return cg_seterr(e, CG_EUSAGE, "%s: assumption '%s==%s': a double ** or int ** takes only '!='", file,
                       k->names[CG_KSYM(k, a, NAME)], k->names[CG_KSYM(k, b, NAME)]);
    if (as[i].eq && CG_KSYM(k, a, BASE) != CG_KSYM(k, b, BASE))
      return cg_seterr(e, CG_EUSAGE, "%s: assumption '%s==%s': their cell types differ", file,
                       k->names[CG_KSYM(k, a, NAME)], k->names[CG_KSYM(k, b, NAME)]);
  }
  return CG_OK;
}

/* A restrict pointer parameter: its region shares no cell with another.
 * The rows of `double **restrict A` still may (restrict names the row
 * pointers' cells, not the rows): only --assume separates them. */
static int restricted(const cg_kernel *k, int32_t s) {
  return CG_KSYM(k, s, PTR) == 1 && (CG_KSYM(k, s, QUAL) & CG_KQ_RESTRICT);
}

static int32_t find_root(int32_t *par, int32_t o) {
  while (par[o] != o) o = par[o] = par[par[o]];
  return o;
}

/* Regions, their overlap, and classes: a union-find of overlapping regions,
 * renumbered densely in object order. */
static void make_classes(cg_kalias *al, const cg_kassume *as, uint32_t nas) {
  const cg_kernel *k = al->k;
  int32_t *par = al->obj_class;
  uint32_t o, p, r = 0;
  for (o = 0; o < al->nobj; o++) /* regions were counted into nreg */
    if (al->obj_kind[o] == CG_KO_REGION) al->obj_reg[o] = (int32_t)r++;
  for (o = 0; o < al->nobj; o++) par[o] = (int32_t)o;
  for (o = 0; o < al->nobj; o++)
    for (p = 0; al->obj_reg[o] >= 0 && p < al->nobj; p++) {
      int32_t so = al->obj_sym[o], sp = al->obj_sym[p], a, b;
      int ov;
      if (al->obj_reg[p] < 0) continue;
      ov = o == p || (al->obj_base[o] == al->obj_base[p] && !restricted(k, so) && !restricted(k, sp) &&
                      assumed(as, nas, so, sp) != 0);
      al->overlap[(size_t)al->obj_reg[o] * al->nreg + (size_t)al->obj_reg[p]] = (uint8_t)ov;
      if (!ov) continue;
      a = find_root(par, (int32_t)o), b = find_root(par, (int32_t)p);
      if (a < b) par[b] = a;
      else par[a] = b;
    }
  for (o = 0; o < al->nobj; o++) par[o] = find_root(par, (int32_t)o);
  for (o = 0, r = 0; o < al->nobj; o++) /* a root is the smallest of its class: numbered first */
    par[o] = par[o] == (int32_t)o ? (int32_t)r++ : par[par[o]];
  al->ncls = r;
}

/* Objects of f's symbols and of the globals; a==b gives b a's region. */
static int make_objects(cg_kalias *al, const cg_kassume *as, uint32_t nas, cg_error *e) {
  const cg_kernel *k = al->k;
  int32_t s0 = CG_KFUNC(k, al->func, SYM0), ns = CG_KFUNC(k, al->func, NSYM), s;
  uint32_t i, base;
  if (check_assumptions(al, as, nas, e)) return e->code;
  for (i = 0; i < al->ny; i++) al->sym_obj[i] = -1;
  for (s = s0; s < s0 + ns; s++) {
    int32_t merged = -1;
    if (is_region_sym(k, s)) {
      for (i = 0; i < nas; i++)
        if (as[i].eq && (as[i].a == s || as[i].b == s)) {
          int32_t other = as[i].a == s ? as[i].b : as[i].a;
          if (other < s && al->sym_obj[LS(al, other)] >= 0) merged = al->sym_obj[LS(al, other)];
        }
      if (merged >= 0) al->sym_obj[LS(al, s)] = merged;
      else add_object(al, s, CG_KO_REGION);
    } else if (CG_KSYM(k, s, KIND) == CG_KS_HEAP) {
      add_object(al, s, CG_KO_HEAP);
    } else if (!CG_KSYM(k, s, PTR)) {
      add_object(al, s, CG_KSYM(k, s, NDIM) ? CG_KO_ARRAY : CG_KO_SCALAR);
    }
  }
  base = al->nobj; /* the globals f reads, in the order it first reads them */
  for (i = 0; i < al->gmap.cap; i++)
    if (al->gmap.idx[i] != CG_MAP_NONE) al->obj_sym[base + al->gmap.idx[i]] = (int32_t)al->gmap.key[i];
  for (i = 0; i < al->gmap.n; i++) add_object(al, al->obj_sym[base + i], CG_KO_GLOBAL);
  for (i = 0; i < al->nobj; i++) al->nreg += al->obj_kind[i] == CG_KO_REGION;
  al->overlap = CG_NEW(al->A, uint8_t, (size_t)al->nreg * al->nreg);
  if (!al->overlap) return cg_seterr(e, CG_ENOMEM, "alias analysis: out of memory");
  make_classes(al, as, nas);
  return CG_OK;
}

const char *cg_kalias_obj_name(const cg_kalias *al, uint32_t o) {
  return al->k->names[CG_KSYM(al->k, al->obj_sym[o], NAME)];
}

/* }==== */

/* {==== the walk: values ====} */

static int is_int_scalar(const cg_kernel *k, int32_t s) {
  return !CG_KSYM(k, s, PTR) && !CG_KSYM(k, s, NDIM) && CG_KSYM(k, s, BASE) == CG_KT_INT;
}

/* A set id from a builder: on CG_ENOMEM the walk records it and goes on
 * with the empty set (the run then fails). */
static int32_t ok_set(walk *w, int32_t s, int *err) {
  if (s < 0) *err = CG_ENOMEM;
  return s < 0 ? w->empty : s;
}

typedef struct ctx {
  cg_kalias *al;
  walk *w;
  int err;
} ctx;

static void fresh(ctx *c, int32_t sym, cg_kaff *r) {
  int32_t v = new_vn(c->al, sym);
  if (v < 0) c->err = CG_ENOMEM, v = 0;
  aff_vn(r, v);
}

/* The value of int expression x as an affine form; what is not affine
 * (a product of variables, a cell, a cast) is an opaque number, one per
 * expression (the walk visits each expression once). */
static void aff_of(ctx *c, int32_t x, cg_kaff *r) {
  const cg_kernel *k = c->al->k;
  int op = CG_KEXPR(k, x, OP);
  cg_kaff b;
  if (CG_KEXPR(k, x, TYPE) == CG_KT_INT) switch (op) {
      case CG_KE_CONST_I: aff_const(r, CG_KEXPR(k, x, IVAL)); return;
      case CG_KE_VAR:
        if (is_int_scalar(k, CG_KEXPR(k, x, SYM))) { *r = c->w->ival[LS(c->al, CG_KEXPR(k, x, SYM))]; return; }
        break;
      case CG_KE_ADD: case CG_KE_SUB:
        aff_of(c, CG_KEXPR(k, x, A), r), aff_of(c, CG_KEXPR(k, x, B), &b);
        aff_axpy(r, r, op == CG_KE_ADD ? 1 : -1, &b);
        return;
      case CG_KE_NEG: aff_of(c, CG_KEXPR(k, x, A), r), aff_scale(r, r, -1); return;
      case CG_KE_MUL:
        aff_of(c, CG_KEXPR(k, x, A), r), aff_of(c, CG_KEXPR(k, x, B), &b);
        if (b.nt == 0) { aff_scale(r, r, b.c); return; }
        if (r->nt == 0) { aff_scale(r, &b, r->c); return; }
        break;
      default: break;
    }
  if (c->w->expr_vn[x - c->al->x_lo] < 0) {
    int32_t v = new_vn(c->al, -1);
    if (v < 0) c->err = CG_ENOMEM, v = 0;
    c->w->expr_vn[x - c->al->x_lo] = v;
  }
  aff_vn(r, c->w->expr_vn[x - c->al->x_lo]);
}

/* The offset of cell [a][b][c] of symbol s that ELEM or ADDR x names: the
 * sum of each subscript times its stride (no subscript: the start; fewer
 * than the dims: the first cell of that row or plane). */
static void cell_off(ctx *c, int32_t x, cg_kaff *r) {
  const cg_kernel *k = c->al->k;
  int32_t s = CG_KEXPR(k, x, SYM), sub[CG_KMAX_DIM];
  int d, n = cg_kexpr_subscripts(k, x, sub);
  cg_kaff t;
  aff_const(r, 0);
  for (d = 0; d < n; d++) {
    aff_of(c, sub[d], &t);
    aff_scale(&t, &t, (int32_t)cg_ksym_stride(k, s, d));
    aff_axpy(r, r, 1, &t);
  }
}

/* The addresses of &s[a][b][c] (ELEM or ADDR x on symbol s): through s's
 * points-to set when s is a pointer. */
static int32_t cell_set(ctx *c, int32_t x) {
  int32_t s = CG_KEXPR(c->al->k, x, SYM);
  cg_kaff off;
  cell_off(c, x, &off);
  if (CG_KSYM(c->al->k, s, PTR))
    return ok_set(c->w, set_shift(c->al, c->w, c->w->pval[LS(c->al, s)], &off), &c->err);
  return ok_set(c->w, set1(c->al, c->w, c->al->sym_obj[LS(c->al, s)], &off), &c->err);
}

/* The points-to set of pointer expression x. */
static int32_t pts_of(ctx *c, int32_t x) {
  const cg_kernel *k = c->al->k;
  int32_t s1, s2;
  cg_kaff d;
  switch (CG_KEXPR(k, x, OP)) {
    case CG_KE_VAR: return c->w->pval[LS(c->al, CG_KEXPR(k, x, SYM))];
    case CG_KE_ADDR: return cell_set(c, x);
    case CG_KE_ELEM: /* a row of a ptr-2 parameter: somewhere in its rows' object */
      aff_top(&d);
      return ok_set(c->w, set1(c->al, c->w, c->al->sym_obj[LS(c->al, CG_KEXPR(k, x, SYM))], &d), &c->err);
    case CG_KE_PTRADD:
      s1 = pts_of(c, CG_KEXPR(k, x, A));
      aff_of(c, CG_KEXPR(k, x, B), &d);
      return ok_set(c->w, set_shift(c->al, c->w, s1, &d), &c->err);
    case CG_KE_COND:
      s1 = pts_of(c, CG_KEXPR(k, x, B)), s2 = pts_of(c, CG_KEXPR(k, x, C));
      return ok_set(c->w, set_union(c->al, c->w, s1, s2), &c->err);
    default: return c->w->empty; /* a loaded kernel has no other pointer expression */
  }
}

/* A fresh points-to set for pointer s: every object it may ever reach, at
 * one fresh offset (a loop header, after a loop). */
static int32_t fresh_pts(ctx *c, int32_t s) {
  cg_kalias *al = c->al;
  walk *w = c->w;
  uint32_t o, n = 0;
  cg_kaff v;
  fresh(c, s, &v);
  if (tmp_room(al, w, al->nobj)) return c->err = CG_ENOMEM, w->empty;
  for (o = 0; o < al->nobj; o++)
    if (w->fins[(size_t)w->ptr_idx[LS(al, s)] * al->nobj + o]) w->tmp[n].obj = (int32_t)o, w->tmp[n++].off = v;
  return ok_set(w, intern(al, w->tmp, n), &c->err);
}

/* }==== */

/* {==== the walk: accesses ====} */

static void add_access(ctx *c, int32_t stmt, int32_t x, int kind, int32_t set, int may) {
  cg_kalias *al = c->al;
  uint32_t i = al->nacc;
  if (cg_reserve(al->A, (void **)&al->acc_stmt, &al->cap_acc[0], i + 1, 4) ||
      cg_reserve(al->A, (void **)&al->acc_expr, &al->cap_acc[1], i + 1, 4) ||
      cg_reserve(al->A, (void **)&al->acc_kind, &al->cap_acc[2], i + 1, 4) ||
      cg_reserve(al->A, (void **)&al->acc_set, &al->cap_acc[3], i + 1, 4) ||
      cg_reserve(al->A, (void **)&al->acc_may, &al->cap_acc[4], i + 1, 4)) {
    c->err = CG_ENOMEM;
    return;
  }
  if (al->stmt_nacc[stmt - al->s_lo] == 0) al->stmt_acc[stmt - al->s_lo] = (int32_t)i;
  al->stmt_nacc[stmt - al->s_lo]++;
  al->acc_stmt[i] = stmt, al->acc_expr[i] = x, al->acc_kind[i] = kind;
  al->acc_set[i] = set, al->acc_may[i] = may;
  al->nacc++;
}

static int is_data_scalar(const cg_kernel *k, int32_t s) {
  return !CG_KSYM(k, s, PTR) && !CG_KSYM(k, s, NDIM);
}

/* The uses of expression x in evaluation order (operands first). */
static void uses(ctx *c, int32_t x, int32_t stmt) {
  const cg_kernel *k = c->al->k;
  int32_t s;
  cg_kaff zero;
  if (x < 0) return;
  s = CG_KEXPR(k, x, SYM);
  switch (CG_KEXPR(k, x, OP)) {
    case CG_KE_CONST_I: case CG_KE_CONST_D: return;
    case CG_KE_VAR:
      if (!is_data_scalar(k, s)) return; /* a pointer's value: followed, not an access */
      aff_const(&zero, 0);
      add_access(c, stmt, x, CG_KA_USE, ok_set(c->w, set1(c->al, c->w, c->al->sym_obj[LS(c->al, s)], &zero), &c->err), 0);
      return;
    case CG_KE_ELEM:
      uses(c, CG_KEXPR(k, x, A), stmt), uses(c, CG_KEXPR(k, x, B), stmt);
      uses(c, CG_KEXPR(k, x, C), stmt);
      if (CG_KSYM(k, s, PTR) == 2) return; /* a row pointer's load: no int or double read, never written */
      add_access(c, stmt, x, CG_KA_USE, cell_set(c, x), 0);
      return;
    case CG_KE_INTRIN:
      uses(c, CG_KEXPR(k, x, A), stmt), uses(c, CG_KEXPR(k, x, B), stmt);
      return;
    default:
      uses(c, CG_KEXPR(k, x, A), stmt), uses(c, CG_KEXPR(k, x, B), stmt);
      uses(c, CG_KEXPR(k, x, C), stmt);
  }
}

/* The set an lhs (VAR or ELEM) writes; -1 for a pointer variable. */
static int32_t lhs_set(ctx *c, int32_t x) {
  const cg_kernel *k = c->al->k;
  int32_t s = CG_KEXPR(k, x, SYM);
  cg_kaff zero;
  if (CG_KEXPR(k, x, OP) == CG_KE_ELEM) return cell_set(c, x);
  if (!is_data_scalar(k, s)) return -1;
  aff_const(&zero, 0);
  return ok_set(c->w, set1(c->al, c->w, c->al->sym_obj[LS(c->al, s)], &zero), &c->err);
}

/* An int scalar that set s may write gets a fresh number. */
static void refresh_ints(ctx *c, int32_t set) {
  cg_kalias *al = c->al;
  uint32_t i;
  for (i = 0; i < al->set_n[set]; i++) {
    int32_t o = al->addr[al->set_off[set] + i].obj;
    if (al->obj_base[o] == CG_KT_INT && al->obj_cells[o] == 1 && al->obj_kind[o] == CG_KO_SCALAR)
      fresh(c, al->obj_sym[o], &c->w->ival[LS(al, al->obj_sym[o])]);
  }
}

static void lhs_subscripts(ctx *c, int32_t x, int32_t stmt) {
  const cg_kernel *k = c->al->k;
  if (CG_KEXPR(k, x, OP) != CG_KE_ELEM) return;
  uses(c, CG_KEXPR(k, x, A), stmt), uses(c, CG_KEXPR(k, x, B), stmt);
  uses(c, CG_KEXPR(k, x, C), stmt);
}

/* v := e: uses, then the definition, then the variable's new value. */
static void walk_assign(ctx *c, int32_t st) {
  const cg_kernel *k = c->al->k;
  int32_t lhs = CG_KSTMT(k, st, ASSIGN_LHS), rhs = CG_KSTMT(k, st, ASSIGN_RHS), s = CG_KEXPR(k, lhs, SYM);
  int32_t set, ps = -1;
  cg_kaff v;
  int var = CG_KEXPR(k, lhs, OP) == CG_KE_VAR;
  uses(c, rhs, st);
  lhs_subscripts(c, lhs, st);
  if (var && is_int_scalar(k, s)) {
    aff_of(c, rhs, &v);
    if (CG_KSYM(k, s, CTYPE) != CG_KC_INT) { /* the store converts: a constant wraps, the rest is opaque */
      if (v.nt == 0) v.c = cg_kctype_wrap(CG_KSYM(k, s, CTYPE), v.c);
      else fresh(c, s, &v);
    }
  }
  if (var && CG_KSYM(k, s, PTR)) ps = pts_of(c, rhs);
  set = lhs_set(c, lhs);
  if (set >= 0) add_access(c, st, lhs, CG_KA_DEF, set, !c->al->set_exact[set]);
  if (var && is_int_scalar(k, s)) c->w->ival[LS(c->al, s)] = v;
  else if (ps >= 0) c->w->pval[LS(c->al, s)] = ps;
  else if (set >= 0) refresh_ints(c, set);
}

static int is_ptr_type(int t) { return t == CG_KT_PDOUBLE || t == CG_KT_PINT; }
static int is_pptr_type(int t) { return t == CG_KT_PPDOUBLE || t == CG_KT_PPINT; } /* a double ** passed on */

/* Whether argument x of call st is passed to a pointer-to-const parameter:
 * the callee cannot write through it (the front end refuses such writes and
 * the casts that would drop the const). */
static int const_param(const cg_kernel *k, int32_t st, int32_t x) {
  int32_t a0 = CG_KSTMT(k, st, CALL_ARGS), na = CG_KSTMT_N(k, st, CALL_ARGS), g = CG_KSTMT(k, st, CALL_CALLEE), i;
  for (i = 0; i < na; i++)
    if (k->args[a0 + i] == x) return (CG_KSYM(k, CG_KFUNC(k, g, SYM0) + i, QUAL) & CG_KQ_CONST) != 0;
  return 0;
}

/* A call: argument uses, then every cell reachable through a pointer
 * argument used and may-defined (unless the parameter points to const),
 * then the result's definition. */
static void walk_call(ctx *c, int32_t st) {
  const cg_kernel *k = c->al->k;
  int32_t a0 = CG_KSTMT(k, st, CALL_ARGS), na = CG_KSTMT_N(k, st, CALL_ARGS), lhs = CG_KSTMT(k, st, CALL_LHS), i;
  int32_t first = (int32_t)c->al->nacc, end, set;
  for (i = 0; i < na; i++) uses(c, k->args[a0 + i], st);
  for (i = 0; i < na; i++) {
    int32_t x = k->args[a0 + i];
    if (!is_ptr_type(CG_KEXPR(k, x, TYPE)) && !is_pptr_type(CG_KEXPR(k, x, TYPE))) continue;
    set = ok_set(c->w, set_whole(c->al, c->w, pts_of(c, x)), &c->err);
    add_access(c, st, x, CG_KA_USE, set, 0);
  }
  if (lhs >= 0) lhs_subscripts(c, lhs, st);
  end = (int32_t)c->al->nacc;
  for (i = first; i < end; i++)
    if (c->al->acc_kind[i] == CG_KA_USE && c->al->acc_expr[i] >= 0 &&
        (is_ptr_type(CG_KEXPR(k, c->al->acc_expr[i], TYPE)) || is_pptr_type(CG_KEXPR(k, c->al->acc_expr[i], TYPE))) &&
        !const_param(k, st, c->al->acc_expr[i])) {
      add_access(c, st, c->al->acc_expr[i], CG_KA_DEF, c->al->acc_set[i], 1);
      refresh_ints(c, c->al->acc_set[i]);
    }
  if (lhs < 0) return;
  set = lhs_set(c, lhs);
  if (set < 0) return;
  add_access(c, st, lhs, CG_KA_DEF, set, !c->al->set_exact[set]);
  if (CG_KEXPR(k, lhs, OP) == CG_KE_VAR && is_int_scalar(k, CG_KEXPR(k, lhs, SYM)))
    fresh(c, CG_KEXPR(k, lhs, SYM), &c->w->ival[LS(c->al, CG_KEXPR(k, lhs, SYM))]);
  else refresh_ints(c, set);
}

/* p = malloc/calloc: the count's uses, then p points to offset 0 of the
 * site's object.  calloc's zeros are constants: no definition is recorded
 * (a read of a cell no write reaches reads a zero, passive). */
static void walk_alloc(ctx *c, int32_t st) {
  const cg_kernel *k = c->al->k;
  int32_t lhs = CG_KSTMT(k, st, ALLOC_LHS);
  uses(c, CG_KSTMT(k, st, ALLOC_COUNT), st);
  c->w->pval[LS(c->al, CG_KEXPR(k, lhs, SYM))] = pts_of(c, CG_KSTMT(k, st, ALLOC_BLOCK));
}

/* }==== */

/* {==== the walk: control flow ====} */

/* The int scalars and pointers a slice may change. */
typedef struct mods {
  int32_t *sym;
  cg_kaff *iv; /* a saved state */
  int32_t *pv;
  uint32_t n;
} mods;

static void push_sym(ctx *c, int32_t s) {
  walk *w = c->w;
  if (w->mark[LS(c->al, s)] == w->stamp) return;
  if (cg_reserve(c->al->A, (void **)&w->syms, &w->capsyms, w->nsyms + 1, sizeof(int32_t))) {
    c->err = CG_ENOMEM;
    return;
  }
  w->mark[LS(c->al, s)] = w->stamp;
  w->syms[w->nsyms++] = s;
}

static void collect(ctx *c, int32_t from, int32_t n);

/* The slices of IF or LOOP st collected, in this order (it numbers the
 * symbols' fresh values): then, else | body, step, pre. */
static void collect_slices(ctx *c, int32_t st) {
  const cg_kernel *k = c->al->k;
  if (CG_KSTMT(k, st, KIND) == CG_KST_IF) {
    collect(c, CG_KSTMT_SLICE(k, st, IF_THEN));
    collect(c, CG_KSTMT_SLICE(k, st, IF_ELSE));
    return;
  }
  collect(c, CG_KSTMT_SLICE(k, st, LOOP_BODY));
  collect(c, CG_KSTMT_SLICE(k, st, LOOP_STEP));
  collect(c, CG_KSTMT_SLICE(k, st, LOOP_PRE));
}

static void collect(ctx *c, int32_t from, int32_t n) {
  const cg_kernel *k = c->al->k;
  int32_t i;
  for (i = 0; i < n; i++) {
    int32_t st = k->list[from + i], lhs = -1;
    switch (CG_KSTMT(k, st, KIND)) {
      case CG_KST_ASSIGN: lhs = CG_KSTMT(k, st, ASSIGN_LHS); break;
      case CG_KST_CALL: lhs = CG_KSTMT(k, st, CALL_LHS); break;
      case CG_KST_ALLOC: lhs = CG_KSTMT(k, st, ALLOC_LHS); break;
      case CG_KST_IF: case CG_KST_LOOP: collect_slices(c, st); break;
      default: break;
    }
    if (lhs >= 0 && CG_KEXPR(k, lhs, OP) == CG_KE_VAR) {
      int32_t s = CG_KEXPR(k, lhs, SYM);
      if (is_int_scalar(k, s) || CG_KSYM(k, s, PTR)) push_sym(c, s);
    }
  }
}

/* The symbols statement st's slices may change (its IF or LOOP slices),
 * plus every int scalar whose address is taken; with room for a state. */
static int mods_of(ctx *c, int32_t st, mods *m) {
  walk *w = c->w;
  uint32_t i;
  w->nsyms = 0, w->stamp++;
  collect_slices(c, st);
  for (i = 0; i < w->naddrtaken; i++) push_sym(c, w->addrtaken[i]);
  m->n = (uint32_t)w->nsyms;
  m->sym = CG_NEW(c->al->A, int32_t, m->n);
  m->iv = CG_NEW(c->al->A, cg_kaff, m->n);
  m->pv = CG_NEW(c->al->A, int32_t, m->n);
  if (!m->sym || !m->iv || !m->pv) return c->err = CG_ENOMEM;
  if (m->n) memcpy(m->sym, w->syms, m->n * sizeof(int32_t)); /* syms may be NULL when empty */
  return CG_OK;
}

static void mods_free(ctx *c, mods *m) {
  CG_FREE(c->al->A, m->sym, int32_t, m->n);
  CG_FREE(c->al->A, m->iv, cg_kaff, m->n);
  CG_FREE(c->al->A, m->pv, int32_t, m->n);
}

static void mods_save(ctx *c, mods *m) {
  uint32_t i;
  for (i = 0; i < m->n; i++) m->iv[i] = c->w->ival[LS(c->al, m->sym[i])], m->pv[i] = c->w->pval[LS(c->al, m->sym[i])];
}
static void mods_swap(ctx *c, mods *m) {
  uint32_t i;
  for (i = 0; i < m->n; i++) {
    int32_t s = LS(c->al, m->sym[i]), p = c->w->pval[s];
    cg_kaff v = c->w->ival[s];
    c->w->ival[s] = m->iv[i], c->w->pval[s] = m->pv[i];
    m->iv[i] = v, m->pv[i] = p;
  }
}

static void walk_slice(ctx *c, int32_t from, int32_t n);

/* The join after an if: a value both branches agree on stays, an int
 * that differs gets a fresh number, a pointer the union of its sets. */
static void walk_if(ctx *c, int32_t st) {
  const cg_kernel *k = c->al->k;
  mods m;
  uint32_t i;
  int live0 = c->w->live, live1;
  uses(c, CG_KSTMT(k, st, IF_COND), st);
  memset(&m, 0, sizeof m);
  if (mods_of(c, st, &m)) { mods_free(c, &m); return; }
  mods_save(c, &m);
  walk_slice(c, CG_KSTMT_SLICE(k, st, IF_THEN));
  live1 = c->w->live, c->w->live = live0;
  mods_swap(c, &m); /* m: the then-state; the walk: the state before */
  walk_slice(c, CG_KSTMT_SLICE(k, st, IF_ELSE));
  for (i = 0; live1 && i < m.n; i++) {
    int32_t s = m.sym[i], ls = LS(c->al, s);
    if (!c->w->live) {
      c->w->ival[ls] = m.iv[i], c->w->pval[ls] = m.pv[i];
    } else if (is_int_scalar(k, s)) {
      if (!aff_eq(&c->w->ival[ls], &m.iv[i])) fresh(c, s, &c->w->ival[ls]);
    } else {
      c->w->pval[ls] = ok_set(c->w, set_union(c->al, c->w, c->w->pval[ls], m.pv[i]), &c->err);
    }
  }
  c->w->live = c->w->live || live1;
  mods_free(c, &m);
}

/* Everything the loop changes is fresh at its header and after it. */
static void refresh_mods(ctx *c, const mods *m) {
  uint32_t i;
  for (i = 0; i < m->n; i++) {
    int32_t s = m->sym[i];
    if (is_int_scalar(c->al->k, s)) fresh(c, s, &c->w->ival[LS(c->al, s)]);
    else c->w->pval[LS(c->al, s)] = fresh_pts(c, s);
  }
}

static void walk_loop(ctx *c, int32_t st) {
  const cg_kernel *k = c->al->k;
  mods m;
  int do_loop = CG_KSTMT(k, st, FLAGS) == CG_KL_DO;
  memset(&m, 0, sizeof m);
  if (mods_of(c, st, &m)) { mods_free(c, &m); return; }
  c->al->loop_vn0[st - c->al->s_lo] = (int32_t)c->al->nvn;
  refresh_mods(c, &m);
  if (do_loop) walk_slice(c, CG_KSTMT_SLICE(k, st, LOOP_BODY));
  if (do_loop) walk_slice(c, CG_KSTMT_SLICE(k, st, LOOP_STEP));
  c->w->live = 1;
  walk_slice(c, CG_KSTMT_SLICE(k, st, LOOP_PRE));
  uses(c, CG_KSTMT(k, st, LOOP_COND), st);
  if (!do_loop) walk_slice(c, CG_KSTMT_SLICE(k, st, LOOP_BODY));
  c->w->live = 1; /* continue reaches the step */
  if (!do_loop) walk_slice(c, CG_KSTMT_SLICE(k, st, LOOP_STEP));
  c->al->loop_vn1[st - c->al->s_lo] = (int32_t)c->al->nvn;
  refresh_mods(c, &m);
  c->w->live = 1;
  mods_free(c, &m);
}

static void walk_stmt(ctx *c, int32_t st) {
  const cg_kernel *k = c->al->k;
  switch (CG_KSTMT(k, st, KIND)) {
    case CG_KST_ASSIGN: walk_assign(c, st); break;
    case CG_KST_CALL: walk_call(c, st); break;
    case CG_KST_IF: walk_if(c, st); break;
    case CG_KST_LOOP: walk_loop(c, st); break;
    case CG_KST_RETURN: uses(c, CG_KSTMT(k, st, RETURN_VALUE), st); c->w->live = 0; break;
    case CG_KST_ALLOC: walk_alloc(c, st); break;
    case CG_KST_FREE: break; /* reads no cell; the block's cells are not read again (the interpreter checks) */
    case CG_KST_PASSIVE: {
      int32_t i;
      for (i = 0; i < CG_KSTMT_N(k, st, PASSIVE_ARGS); i++) uses(c, k->args[CG_KSTMT(k, st, PASSIVE_ARGS) + i], st);
      break;
    }
    default: c->w->live = 0; break; /* break, continue */
  }
}

static void walk_slice(ctx *c, int32_t from, int32_t n) {
  int32_t i;
  for (i = 0; i < n && !c->err; i++) walk_stmt(c, c->al->k->list[from + i]);
}

/* }==== */

/* {==== running ====} */

/* Adds the objects pointer expression x may reach to row r of fins; 1 if new. */
static int fins_expr(cg_kalias *al, walk *w, int32_t x, uint8_t *row) {
  const cg_kernel *k = al->k;
  int32_t s = CG_KEXPR(k, x, SYM);
  uint32_t o;
  int grew = 0;
  switch (CG_KEXPR(k, x, OP)) {
    case CG_KE_VAR: case CG_KE_ADDR: case CG_KE_ELEM: /* ELEM: a row load, into A's rows */
      if (CG_KSYM(k, s, PTR)) {
        const uint8_t *src = &w->fins[(size_t)w->ptr_idx[LS(al, s)] * al->nobj];
        for (o = 0; o < al->nobj; o++)
          if (src[o] && !row[o]) row[o] = 1, grew = 1;
      } else if (!row[al->sym_obj[LS(al, s)]]) {
        row[al->sym_obj[LS(al, s)]] = 1, grew = 1;
      }
      return grew;
    case CG_KE_PTRADD: return fins_expr(al, w, CG_KEXPR(k, x, A), row);
    case CG_KE_COND:
      grew = fins_expr(al, w, CG_KEXPR(k, x, B), row);
      return fins_expr(al, w, CG_KEXPR(k, x, C), row) || grew;
    default: return 0;
  }
}

/* Flow-insensitive: the objects each pointer of f may ever reach (a
 * fixpoint over f's pointer assignments; a handful of passes). */
static int make_fins(cg_kalias *al, walk *w) {
  const cg_kernel *k = al->k;
  int32_t s0 = CG_KFUNC(k, al->func, SYM0), ns = CG_KFUNC(k, al->func, NSYM), s;
  uint32_t st;
  int grew = 1;
  for (s = s0; s < s0 + ns; s++)
    if (CG_KSYM(k, s, PTR)) w->ptr_idx[LS(al, s)] = (int32_t)w->nptr++;
  w->fins = CG_NEW(al->A, uint8_t, (size_t)w->nptr * al->nobj);
  if (!w->fins) return CG_ENOMEM;
  memset(w->fins, 0, (size_t)w->nptr * al->nobj);
  for (s = s0; s < s0 + ns; s++)
    if (is_region_sym(k, s)) w->fins[(size_t)w->ptr_idx[LS(al, s)] * al->nobj + (size_t)al->sym_obj[LS(al, s)]] = 1;
  while (grew) {
    grew = 0;
    for (st = 0; st < al->ns; st++) { /* p = e and p = malloc(...) (the block's object) */
      int32_t g = al->s_lo + (int32_t)st, lhs = CG_KSTMT(k, g, ASSIGN_LHS), kind = CG_KSTMT(k, g, KIND);
      if (CG_KSTMT(k, g, FUNC) != al->func || (kind != CG_KST_ASSIGN && kind != CG_KST_ALLOC) ||
          CG_KEXPR(k, lhs, OP) != CG_KE_VAR || !CG_KSYM(k, CG_KEXPR(k, lhs, SYM), PTR))
        continue;
      grew |= fins_expr(al, w, kind == CG_KST_ALLOC ? CG_KSTMT(k, g, ALLOC_BLOCK) : CG_KSTMT(k, g, ASSIGN_RHS),
                        &w->fins[(size_t)w->ptr_idx[LS(al, CG_KEXPR(k, lhs, SYM))] * al->nobj]);
    }
  }
  return CG_OK;
}

/* Values on entry: every int a number of its own, a pointer parameter at
 * offset 0 of its region, a local pointer nowhere yet. */
static void entry_values(ctx *c) {
  const cg_kernel *k = c->al->k;
  int32_t s0 = CG_KFUNC(k, c->al->func, SYM0), ns = CG_KFUNC(k, c->al->func, NSYM), s;
  uint32_t g;
  cg_kaff zero;
  aff_const(&zero, 0);
  for (s = s0; s < s0 + ns; s++) {
    if (is_int_scalar(k, s)) fresh(c, s, &c->w->ival[LS(c->al, s)]);
    if (CG_KSYM(k, s, PTR))
      c->w->pval[LS(c->al, s)] = is_region_sym(k, s)
                          ? ok_set(c->w, set1(c->al, c->w, c->al->sym_obj[LS(c->al, s)], &zero), &c->err)
                          : c->w->empty;
  }
  for (g = 0; g < c->al->nobj; g++) /* a global int: some value, the same all along */
    if (c->al->obj_kind[g] == CG_KO_GLOBAL && is_int_scalar(k, c->al->obj_sym[g]))
      fresh(c, c->al->obj_sym[g], &c->w->ival[LS(c->al, c->al->obj_sym[g])]);
}

/* Whether s is an int scalar whose address f takes: a call or a pointer
 * may then change it, so every loop and if counts it as changed.  Read from
 * f's ADDR expressions (gathered once, in windows); the loader also insists
 * on the CG_KQ_ADDR mark for such symbols, so the two agree. */
static int addr_taken(const cg_kalias *al, int32_t s) {
  return is_int_scalar(al->k, s) && al->addr_of[s - al->y0];
}

static void walk_free(cg_kalias *al, walk *w) {
  CG_FREE(al->A, w->ival, cg_kaff, al->ny);
  CG_FREE(al->A, w->pval, int32_t, al->ny);
  CG_FREE(al->A, w->expr_vn, int32_t, al->nx);
  CG_FREE(al->A, w->mark, uint32_t, al->ny);
  CG_FREE(al->A, w->ptr_idx, int32_t, al->ny);
  CG_FREE(al->A, w->fins, uint8_t, (size_t)w->nptr * al->nobj);
  CG_FREE(al->A, w->addrtaken, int32_t, w->naddrtaken);
  CG_FREE(al->A, w->syms, int32_t, w->capsyms);
  CG_FREE(al->A, w->tmp, cg_kaddr, w->captmp);
}

static int walk_init(cg_kalias *al, walk *w) {
  const cg_kernel *k = al->k;
  int32_t s0 = CG_KFUNC(k, al->func, SYM0), ns = CG_KFUNC(k, al->func, NSYM), s;
  uint32_t i;
  w->ival = CG_NEW(al->A, cg_kaff, al->ny);
  w->pval = CG_NEW(al->A, int32_t, al->ny);
  w->expr_vn = CG_NEW(al->A, int32_t, al->nx);
  w->mark = CG_NEW(al->A, uint32_t, al->ny);
  w->ptr_idx = CG_NEW(al->A, int32_t, al->ny);
  for (s = s0; s < s0 + ns; s++) w->naddrtaken += addr_taken(al, s);
  w->addrtaken = CG_NEW(al->A, int32_t, w->naddrtaken);
  if (!w->ival || !w->pval || !w->expr_vn || !w->mark || !w->ptr_idx || !w->addrtaken)
    return CG_ENOMEM;
  for (i = 0; i < al->ny; i++) w->pval[i] = -1, w->mark[i] = 0, w->ptr_idx[i] = -1;
  for (i = 0; i < al->nx; i++) w->expr_vn[i] = -1;
  for (s = s0, i = 0; s < s0 + ns; s++)
    if (addr_taken(al, s)) w->addrtaken[i++] = s;
  if (make_fins(al, w)) return CG_ENOMEM;
  w->empty = intern(al, w->tmp, 0);
  return w->empty < 0 ? CG_ENOMEM : CG_OK;
}

void cg_kalias_free(cg_kalias *al) {
  cg_alloc *A;
  if (!al) return;
  A = al->A;
  CG_FREE(A, al->obj_sym, int32_t, al->ny);
  CG_FREE(A, al->obj_kind, int32_t, al->ny);
  CG_FREE(A, al->obj_base, int32_t, al->ny);
  CG_FREE(A, al->obj_cells, int32_t, al->ny);
  CG_FREE(A, al->obj_class, int32_t, al->ny);
  CG_FREE(A, al->obj_reg, int32_t, al->ny);
  CG_FREE(A, al->sym_obj, int32_t, al->ny);
  CG_FREE(A, al->overlap, uint8_t, (size_t)al->nreg * al->nreg);
  CG_FREE(A, al->vn_sym, int32_t, al->capvn);
  CG_FREE(A, al->loop_vn0, int32_t, al->ns);
  CG_FREE(A, al->loop_vn1, int32_t, al->ns);
  CG_FREE(A, al->set_off, uint32_t, al->cap_set[0]);
  CG_FREE(A, al->set_n, uint32_t, al->cap_set[1]);
  CG_FREE(A, al->set_exact, uint8_t, al->cap_set[2]);
  CG_FREE(A, al->addr, cg_kaddr, al->cap_set[3]);
  CG_FREE(A, al->hslot, uint32_t, al->hcap);
  CG_FREE(A, al->acc_stmt, int32_t, al->cap_acc[0]);
  CG_FREE(A, al->acc_expr, int32_t, al->cap_acc[1]);
  CG_FREE(A, al->acc_kind, int32_t, al->cap_acc[2]);
  CG_FREE(A, al->acc_set, int32_t, al->cap_acc[3]);
  CG_FREE(A, al->acc_may, int32_t, al->cap_acc[4]);
  CG_FREE(A, al->stmt_acc, int32_t, al->ns);
  CG_FREE(A, al->stmt_nacc, int32_t, al->ns);
  CG_FREE(A, al->over_u, int32_t, al->cap_over[0]);
  CG_FREE(A, al->over_v, int32_t, al->cap_over[1]);
  CG_FREE(A, al->over_rel, int32_t, al->cap_over[2]);
  cg_map_free(&al->gmap);
  CG_FREE(A, al->addr_of, uint8_t, al->nyf);
  CG_FREE(A, al->ov_off, uint32_t, al->ov_off ? (size_t)al->ncls + 1 : 0);
  CG_FREE(A, al->ov_set, uint32_t, al->ov_n);
  CG_FREE(A, al->ov_mark, uint32_t, al->ov_nset);
  CG_FREE(A, al->ov_list, uint32_t, al->ov_nset);
  CG_FREE(A, al, cg_kalias, 1);
}

/* {==== windows ====} */

static void win_expr(cg_kalias *al, int32_t x, int32_t *hi, int *err) {
  const cg_kernel *k = al->k;
  int op;
  uint32_t g;
  if (x < 0) return;
  if (x < al->x_lo) al->x_lo = x;
  if (x + 1 > *hi) *hi = x + 1;
  op = CG_KEXPR(k, x, OP);
  if (op == CG_KE_ADDR && al->addr_of && CG_KEXPR(k, x, SYM) >= al->y0 &&
      CG_KEXPR(k, x, SYM) < al->y0 + (int32_t)al->nyf)
    al->addr_of[CG_KEXPR(k, x, SYM) - al->y0] = 1;
  if ((op == CG_KE_VAR || op == CG_KE_ELEM || op == CG_KE_ADDR) &&
      CG_KSYM(k, CG_KEXPR(k, x, SYM), KIND) == CG_KS_GLOBAL &&
      cg_map_put(&al->gmap, (uint32_t)CG_KEXPR(k, x, SYM), &g) < 0)
    *err = CG_ENOMEM;
  win_expr(al, CG_KEXPR(k, x, A), hi, err), win_expr(al, CG_KEXPR(k, x, B), hi, err);
  win_expr(al, CG_KEXPR(k, x, C), hi, err);
}

static void win_slice(cg_kalias *al, int32_t from, int32_t n, int32_t *shi, int32_t *xhi, int *err) {
  const cg_kernel *k = al->k;
  int32_t i, j;
  for (i = 0; i < n; i++) {
    int32_t st = k->list[from + i];
    int kind = CG_KSTMT(k, st, KIND);
    if (st < al->s_lo) al->s_lo = st;
    if (st + 1 > *shi) *shi = st + 1;
    switch (kind) { /* in this order: it numbers the globals */
      case CG_KST_ASSIGN:
        win_expr(al, CG_KSTMT(k, st, ASSIGN_RHS), xhi, err);
        win_expr(al, CG_KSTMT(k, st, ASSIGN_LHS), xhi, err);
        break;
      case CG_KST_CALL:
        for (j = 0; j < CG_KSTMT_N(k, st, CALL_ARGS); j++)
          win_expr(al, k->args[CG_KSTMT(k, st, CALL_ARGS) + j], xhi, err);
        win_expr(al, CG_KSTMT(k, st, CALL_LHS), xhi, err);
        break;
      case CG_KST_IF:
        win_expr(al, CG_KSTMT(k, st, IF_COND), xhi, err);
        win_slice(al, CG_KSTMT_SLICE(k, st, IF_THEN), shi, xhi, err);
        win_slice(al, CG_KSTMT_SLICE(k, st, IF_ELSE), shi, xhi, err);
        break;
      case CG_KST_LOOP:
        win_expr(al, CG_KSTMT(k, st, LOOP_COND), xhi, err);
        win_slice(al, CG_KSTMT_SLICE(k, st, LOOP_BODY), shi, xhi, err);
        win_slice(al, CG_KSTMT_SLICE(k, st, LOOP_STEP), shi, xhi, err);
        win_slice(al, CG_KSTMT_SLICE(k, st, LOOP_PRE), shi, xhi, err);
        break;
      case CG_KST_RETURN: win_expr(al, CG_KSTMT(k, st, RETURN_VALUE), xhi, err); break;
      case CG_KST_ALLOC:
        win_expr(al, CG_KSTMT(k, st, ALLOC_COUNT), xhi, err);
        win_expr(al, CG_KSTMT(k, st, ALLOC_LHS), xhi, err);
        win_expr(al, CG_KSTMT(k, st, ALLOC_BLOCK), xhi, err);
        break;
      case CG_KST_FREE: win_expr(al, CG_KSTMT(k, st, FREE_PTR), xhi, err); break;
      case CG_KST_PASSIVE:
        for (j = 0; j < CG_KSTMT_N(k, st, PASSIVE_ARGS); j++)
          win_expr(al, k->args[CG_KSTMT(k, st, PASSIVE_ARGS) + j], xhi, err);
        break;
      default: break; /* break, continue */
    }
  }
}

/* The windows of f's statements, expressions and symbols: one walk of f. */
static int windows(cg_kalias *al) {
  const cg_kernel *k = al->k;
  int32_t shi = 0, xhi = 0;
  int err = CG_OK;
  cg_map_init(&al->gmap, al->A);
  al->s_lo = INT32_MAX, al->x_lo = INT32_MAX;
  al->y0 = CG_KFUNC(k, al->func, SYM0), al->nyf = (uint32_t)CG_KFUNC(k, al->func, NSYM);
  al->addr_of = CG_NEW(al->A, uint8_t, al->nyf);
  if (!al->addr_of) return CG_ENOMEM;
  memset(al->addr_of, 0, al->nyf);
  win_slice(al, CG_KFUNC(k, al->func, BODY), CG_KFUNC(k, al->func, NBODY), &shi, &xhi, &err);
  if (shi == 0) al->s_lo = 0;
  if (xhi == 0) al->x_lo = 0;
  al->ns = (uint32_t)(shi - al->s_lo), al->nx = (uint32_t)(xhi - al->x_lo);
  al->ny = al->nyf + (uint32_t)al->gmap.n;
  return err;
}

/* }==== */

static int alloc_fixed(cg_kalias *al) {
  uint32_t i;
  al->obj_sym = CG_NEW(al->A, int32_t, al->ny);
  al->obj_kind = CG_NEW(al->A, int32_t, al->ny);
  al->obj_base = CG_NEW(al->A, int32_t, al->ny);
  al->obj_cells = CG_NEW(al->A, int32_t, al->ny);
  al->obj_class = CG_NEW(al->A, int32_t, al->ny);
  al->obj_reg = CG_NEW(al->A, int32_t, al->ny);
  al->sym_obj = CG_NEW(al->A, int32_t, al->ny);
  al->loop_vn0 = CG_NEW(al->A, int32_t, al->ns);
  al->loop_vn1 = CG_NEW(al->A, int32_t, al->ns);
  al->stmt_acc = CG_NEW(al->A, int32_t, al->ns);
  al->stmt_nacc = CG_NEW(al->A, int32_t, al->ns);
  if (!al->obj_sym || !al->obj_kind || !al->obj_base || !al->obj_cells || !al->obj_class ||
      !al->obj_reg || !al->sym_obj || !al->loop_vn0 || !al->loop_vn1 || !al->stmt_acc ||
      !al->stmt_nacc)
    return CG_ENOMEM;
  for (i = 0; i < al->ns; i++)
    al->loop_vn0[i] = al->loop_vn1[i] = -1, al->stmt_acc[i] = -1, al->stmt_nacc[i] = 0;
  return CG_OK;
}

/* The walk over f's body, with its scratch freed on every path. */
static int analyse(cg_kalias *al) {
  walk w;
  ctx c;
  int st;
  memset(&w, 0, sizeof w);
  c.al = al, c.w = &w, c.err = walk_init(al, &w);
  if (!c.err) {
    w.live = 1;
    entry_values(&c);
    walk_slice(&c, CG_KFUNC(al->k, al->func, BODY), CG_KFUNC(al->k, al->func, NBODY));
  }
  st = c.err;
  walk_free(al, &w);
  return st;
}

cg_kalias *cg_kalias_run(cg_alloc *A, const cg_kernel *k, int32_t f, const cg_kassume *as,
                         uint32_t nas, cg_error *e) {
  cg_kalias *al;
  int st;
  if (!k || f < 0 || (uint32_t)f >= k->nfunc) {
    cg_seterr(e, CG_EUSAGE, "%s: no function %d", k && k->file ? k->file : "kernel", (int)f + 1);
    return NULL;
  }
  al = CG_NEW(A, cg_kalias, 1);
  if (!al) { cg_seterr(e, CG_ENOMEM, "alias analysis: out of memory"); return NULL; }
  memset(al, 0, sizeof *al);
  al->A = A, al->k = k, al->func = f;
  st = windows(al);
  if (!st) st = alloc_fixed(al);
  if (!st) st = make_objects(al, as, nas, e);
  if (!st) st = analyse(al);
  if (st) {
    if (st == CG_ENOMEM) cg_seterr(e, CG_ENOMEM, "alias analysis: out of memory");
    cg_kalias_free(al);
    return NULL;
  }
  return al;
}

/* }==== */

/* {==== text ====} */

typedef struct tbuf {
  char *b;
  size_t size, len;
} tbuf;

static void tput(tbuf *t, const char *s) {
  while (*s && t->len + 1 < t->size) t->b[t->len++] = *s++;
  t->b[t->len < t->size ? t->len : t->size - 1] = 0;
}
static void tnum(tbuf *t, long long v) {
  char n[32];
  snprintf(n, sizeof n, "%lld", v);
  tput(t, n);
}

static void aff_text(const cg_kalias *al, const cg_kaff *a, tbuf *t) {
  int32_t i;
  if (a->nt < 0) { tput(t, "?"); return; }
  for (i = 0; i < a->nt; i++) {
    int32_t s = al->vn_sym[a->vn[i]];
    int64_t co = a->coef[i];
    if (co < 0) tput(t, "-");
    else if (i) tput(t, "+");
    if (co != 1 && co != -1) tnum(t, co < 0 ? -co : co), tput(t, "*");
    tput(t, s >= 0 ? al->k->names[CG_KSYM(al->k, s, NAME)] : "v");
    tput(t, "#"), tnum(t, a->vn[i] + 1);
  }
  if (a->c > 0 && a->nt) tput(t, "+");
  if (a->c || !a->nt) tnum(t, a->c);
}

void cg_kalias_addr_text(const cg_kalias *al, const cg_kaddr *a, char *buf, size_t size) {
  tbuf t;
  t.b = buf, t.size = size, t.len = 0;
  if (!size) return;
  buf[0] = 0;
  tput(&t, cg_kalias_obj_name(al, (uint32_t)a->obj));
  if (CG_KSYM(al->k, al->obj_sym[a->obj], PTR) == 2) tput(&t, "[][]"); /* the rows' cells: "A[][][?]" */
  if (al->obj_cells[a->obj] == 1 && al->obj_kind[a->obj] != CG_KO_REGION) return;
  tput(&t, "["), aff_text(al, &a->off, &t), tput(&t, "]");
}

static void expr_text(const cg_kernel *k, int32_t x, tbuf *t) {
  static const char *const bin[] = {"+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=",
                                    "&&", "||"};
  int op = CG_KEXPR(k, x, OP);
  int32_t a = CG_KEXPR(k, x, A), b = CG_KEXPR(k, x, B), s = CG_KEXPR(k, x, SYM);
  char n[40];
  switch (op) {
    case CG_KE_CONST_I: tnum(t, CG_KEXPR(k, x, IVAL)); return;
    case CG_KE_CONST_D: snprintf(n, sizeof n, "%.17g", k->dconst[CG_KEXPR(k, x, IVAL)]); tput(t, n); return;
    case CG_KE_VAR: tput(t, k->names[CG_KSYM(k, s, NAME)]); return;
    case CG_KE_ELEM: case CG_KE_ADDR:
      if (op == CG_KE_ADDR) tput(t, "&");
      tput(t, k->names[CG_KSYM(k, s, NAME)]);
      if (a >= 0) tput(t, "["), expr_text(k, a, t), tput(t, "]");
      if (b >= 0) tput(t, "["), expr_text(k, b, t), tput(t, "]");
      if (CG_KEXPR(k, x, C) >= 0) tput(t, "["), expr_text(k, CG_KEXPR(k, x, C), t), tput(t, "]");
      return;
    case CG_KE_PTRADD: tput(t, "("), expr_text(k, a, t), tput(t, " + "), expr_text(k, b, t), tput(t, ")"); return;
    case CG_KE_PTRDIFF: tput(t, "("), expr_text(k, a, t), tput(t, " - "), expr_text(k, b, t), tput(t, ")"); return;
    case CG_KE_NULLP: tput(t, "NULL"); return;
    case CG_KE_BNOT: tput(t, "~"), expr_text(k, a, t); return;
    case CG_KE_BAND: case CG_KE_BOR: case CG_KE_BXOR: case CG_KE_SHL: case CG_KE_SHR: {
      static const char *const bits[] = {"&", "|", "^", "<<", ">>"};
      tput(t, "("), expr_text(k, a, t), tput(t, " "), tput(t, bits[op - CG_KE_BAND]);
      tput(t, " "), expr_text(k, b, t), tput(t, ")");
      return;
    }
    case CG_KE_NEG: case CG_KE_NOT: tput(t, op == CG_KE_NEG ? "-" : "!"), expr_text(k, a, t); return;
    case CG_KE_COND:
      tput(t, "("), expr_text(k, a, t), tput(t, " ? "), expr_text(k, b, t);
      tput(t, " : "), expr_text(k, CG_KEXPR(k, x, C), t), tput(t, ")");
      return;
    case CG_KE_CAST:
      tput(t, "("), tput(t, CG_KEXPR(k, x, IVAL) > CG_KC_INT ? cg_kctype_name(CG_KEXPR(k, x, IVAL))
                                                              : cg_ktype_name(CG_KEXPR(k, x, TYPE)));
      tput(t, ")"), expr_text(k, a, t);
      return;
    case CG_KE_INTRIN:
      tput(t, cg_kintrinsic_name(s)), tput(t, "("), expr_text(k, a, t);
      if (b >= 0) tput(t, ", "), expr_text(k, b, t);
      tput(t, ")");
      return;
    default:
      tput(t, "("), expr_text(k, a, t), tput(t, " "), tput(t, bin[op - CG_KE_ADD]);
      tput(t, " "), expr_text(k, b, t), tput(t, ")");
  }
}

void cg_kexpr_text(const cg_kernel *k, int32_t x, char *buf, size_t size) {
  tbuf t;
  t.b = buf, t.size = size, t.len = 0;
  if (!size) return;
  buf[0] = 0;
  expr_text(k, x, &t);
}

/* }==== */
