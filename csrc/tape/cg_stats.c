/*
 * cg_stats.c: which locations a record reads and writes, and tape statistics
 * in the form of Table 1 of Bischof & Hu 1991 (section 4.1), computed while streaming.
 */
#include <math.h>
#include <string.h>

#include "../util/cg_map.h"
#include "cg_tape.h"

/* Adds a span to a list of at most 4. */
static void span(cg_span *s, int *n, uint64_t start, uint64_t len) {
  if (len == 0) return;
  s[*n].start = start;
  s[*n].len = len;
  (*n)++;
}

int cg_rec_uses(const cg_rec *r, cg_span *rd, int *nr, cg_span *wr, int *nw) {
  const cg_opinfo *oi = cg_op(r->op);
  const uint32_t *l = r->loc;
  uint32_t i, nin = r->nloc;
  *nr = *nw = 0;
  switch (r->op) {
    case CG_OP_death_not:
    case CG_OP_ext_diff:
    case CG_OP_ext_diff_iArr:
    case CG_OP_ext_diff_v2:
      return 0;
    case CG_OP_take_stock_op: /* [size, start] */
      span(wr, nw, l[1], l[0]);
      return 0;
    case CG_OP_vec_copy: /* [dst, src, n] */
      span(rd, nr, l[1], l[2]);
      span(wr, nw, l[0], l[2]);
      return 0;
    case CG_OP_vec_dot: /* [res, a, b, n] */
      span(rd, nr, l[1], l[3]);
      span(rd, nr, l[2], l[3]);
      span(wr, nw, l[0], 1);
      return 0;
    case CG_OP_vec_axpy: /* [res, s, x, y, n] */
      span(rd, nr, l[1], 1);
      span(rd, nr, l[2], l[4]);
      span(rd, nr, l[3], l[4]);
      span(wr, nw, l[0], l[4]);
      return 0;
    case CG_OP_subscript: /* [res, idx, base], V0 = vector length */
      span(rd, nr, l[1], 1);
      /* V0 comes from the file: clamped, as a double beyond uint64 does not convert */
      span(rd, nr, l[2], r->nval ? (uint64_t)(r->val[0] > 0 ? fmin(r->val[0], 4294967296.0) : 0) : 1);
      span(wr, nw, l[0], 1);
      return 0;
    case CG_OP_subscript_ref: /* the result holds a location number */
      span(rd, nr, l[1], 1);
      span(wr, nw, l[0], 1);
      return 0;
    default:
      break;
  }
  if (oi->flags & CG_OPF_PARAM) nin--; /* the last operand is a parameter index */
  if (oi->flags & CG_OPF_REF) { /* target unknown without values: the ref is read */
    for (i = 0; i < nin; i++) span(rd, nr, l[i], 1);
    return 0;
  }
  for (i = 0; i < oi->nout && i < nin; i++) span(wr, nw, l[i], 1);
  if (oi->flags & CG_OPF_INPLACE) span(rd, nr, l[0], 1);
  for (i = oi->nout; i < nin && *nr < 4; i++) span(rd, nr, l[i], 1);
  return 0;
}

/* {==== statistics ====} */

/* Records per cg_reader_next_batch call in the passes below. */
#define STATS_BATCH 256

/* First pass, one record: counts and bytes per opcode, highest location;
 * *nwrites counts the locations written, *ntouch those read or written. */
static void count_rec(cg_reader *R, const cg_rec *r, cg_stats *s, uint64_t *nwrites,
                      uint64_t *ntouch) {
  cg_span rd[4], wr[4];
  int nr, nw, k;
  uint64_t b = cg_reader_recbytes(R, r);
  s->count[r->op]++;
  s->bytes[r->op] += b;
  s->records++;
  if (r->op == CG_OP_death_not) {
    s->death_notices++;
    s->death_bytes += b;
  } else {
    s->operations++;
    s->op_bytes += b;
  }
  if (r->op == CG_OP_assign_ind || r->op == CG_OP_ref_assign_ind) s->n_indep++;
  if (r->op == CG_OP_assign_dep) s->n_dep++;
  cg_rec_uses(r, rd, &nr, wr, &nw);
  for (k = 0; k < nr; k++) {
    if (rd[k].start + rd[k].len > s->max_loc) s->max_loc = rd[k].start + rd[k].len;
    *ntouch += rd[k].len;
  }
  for (k = 0; k < nw; k++) {
    if (wr[k].start + wr[k].len > s->max_loc) s->max_loc = wr[k].start + wr[k].len;
    *nwrites += wr[k].len;
  }
}

/* First pass: count_rec over every record. */
static int pass_counts(cg_reader *R, cg_stats *s, uint64_t *nwrites, uint64_t *ntouch,
                       cg_error *e) {
  cg_rec rb[STATS_BATCH];
  int n, k;
  *nwrites = *ntouch = 0;
  while ((n = cg_reader_next_batch(R, rb, STATS_BATCH, e)) > 0)
    for (k = 0; k < n; k++) count_rec(R, &rb[k], s, nwrites, ntouch);
  *ntouch += *nwrites;
  return n;
}

/* The live-range passes need, per written value, the record of its last read.
 * cur is indexed by location (nloc entries).  For a sparse store
 * (cg_loc_sparse: a few locations spread up to 3e9) a first pass puts every
 * location used into `map`, numbered by rank, and the passes see each span
 * through its rank (rank_spans): a span's members are all in the map, so
 * their ranks are consecutive, and cur needs one entry per location used. */
typedef struct live_work {
  uint64_t *cur;  /* location (or its rank) -> number of the write that defined its value */
  uint64_t *last; /* write number -> record of its last read (or its own) */
  uint64_t *gone; /* write number -> 1 once counted dead (bitset) */
  uint64_t nloc, nwrites;
  cg_map map;     /* sparse store: location -> rank (map.cap == 0 for a dense one) */
} live_work;

/* A sparse store: the spans of a record by the ranks of their starts. */
static void rank_spans(const live_work *w, cg_span *rd, int nr, cg_span *wr, int nw) {
  int i;
  for (i = 0; i < nr; i++) rd[i].start = cg_map_get(&w->map, (uint32_t)rd[i].start);
  for (i = 0; i < nw; i++) wr[i].start = cg_map_get(&w->map, (uint32_t)wr[i].start);
}

/* Second pass, one record (number t): the last read of every written value;
 * *k counts the writes. */
static void lastread_rec(const cg_rec *r, live_work *w, uint64_t t, uint64_t *k) {
  cg_span rd[4], wr[4];
  uint64_t j;
  int nr, nw, i;
  cg_rec_uses(r, rd, &nr, wr, &nw);
  if (w->map.cap) rank_spans(w, rd, nr, wr, nw); /* one test per record */
  for (i = 0; i < nr; i++)
    for (j = rd[i].start; j < rd[i].start + rd[i].len; j++)
      if (w->cur[j] != UINT64_MAX) w->last[w->cur[j]] = t;
  for (i = 0; i < nw; i++)
    for (j = wr[i].start; j < wr[i].start + wr[i].len; j++) {
      w->cur[j] = *k;
      w->last[(*k)++] = t;
    }
}

/* Second pass: lastread_rec over every record. */
static int pass_lastread(cg_reader *R, live_work *w, cg_error *e) {
  cg_rec rb[STATS_BATCH];
  uint64_t k = 0, t = 0;
  int n, i;
  while ((n = cg_reader_next_batch(R, rb, STATS_BATCH, e)) > 0)
    for (i = 0; i < n; i++) lastread_rec(&rb[i], w, t++, &k);
  return n;
}

/* Third pass: replay, counting values live after each record. */
static int pass_peak(cg_reader *R, live_work *w, uint64_t *peak, cg_error *e) {
  cg_rec rb[STATS_BATCH];
  cg_span rd[4], wr[4];
  uint64_t k = 0, j, t = 0, live = 0;
  int n = 0, nr, nw, i, b = 0;
  for (j = 0; j < w->nloc; j++) w->cur[j] = UINT64_MAX;
  *peak = 0;
  for (;;) {
    const cg_rec *r;
    if (b == n) { /* batch used up: the next one */
      if ((n = cg_reader_next_batch(R, rb, STATS_BATCH, e)) <= 0) break;
      b = 0;
    }
    r = &rb[b++];
    cg_rec_uses(r, rd, &nr, wr, &nw);
    if (w->map.cap) rank_spans(w, rd, nr, wr, nw);
    for (i = 0; i < nw; i++) /* the old value of an overwritten location dies */
      for (j = wr[i].start; j < wr[i].start + wr[i].len; j++) {
        uint64_t old = w->cur[j];
        if (old != UINT64_MAX && !(w->gone[old / 64] >> (old % 64) & 1)) {
          w->gone[old / 64] |= 1ull << (old % 64);
          live--;
        }
        w->cur[j] = k++;
        live++;
      }
    if (live > *peak) *peak = live;
    for (i = 0; i < nr + nw; i++) { /* values read (or written) for the last time */
      const cg_span *sp = i < nr ? &rd[i] : &wr[i - nr];
      for (j = sp->start; j < sp->start + sp->len; j++) {
        uint64_t v = w->cur[j];
        if (v != UINT64_MAX && w->last[v] == t && !(w->gone[v / 64] >> (v % 64) & 1)) {
          w->gone[v / 64] |= 1ull << (v % 64);
          live--;
        }
      }
    }
    t++;
  }
  return n;
}

/* {---- sparse stores ----} */

/* Puts every location of one record's spans into m; <0 out of memory. */
static int collect_rec(const cg_rec *r, cg_map *m) {
  cg_span sp[8];
  uint64_t j;
  uint32_t idx;
  int nr, nw, i;
  cg_rec_uses(r, sp, &nr, sp + 4, &nw);
  for (i = 0; i < 8; i++)
    if (i < nr || (i >= 4 && i < 4 + nw))
      for (j = sp[i].start; j < sp[i].start + sp[i].len; j++)
        if (cg_map_put(m, (uint32_t)j, &idx) < 0) return CG_ENOMEM;
  return CG_OK;
}

/* The extra pass of a sparse store: every location used goes into w->map,
 * whose indices then become ranks; w->nloc the number of them.  1 when done,
 * 0 when it does not fit (a run past 32-bit locations, or no memory: the peak
 * stays unknown), <0 on a read error. */
static int pass_ranks(cg_reader *R, live_work *w, cg_error *e) {
  cg_rec rb[STATS_BATCH];
  int n, i;
  if (w->nloc > (uint64_t)UINT32_MAX + 1) return 0;
  while ((n = cg_reader_next_batch(R, rb, STATS_BATCH, e)) > 0)
    for (i = 0; i < n; i++)
      if (collect_rec(&rb[i], &w->map) < 0) return 0;
  if (n < 0) return n;
  if (cg_map_rank(&w->map, NULL)) return 0;
  w->nloc = w->map.n;
  return 1;
}

/* The arrays of the live-range passes; 0 when they do not fit (the peak is
 * then left 0, unknown). */
static int live_alloc(cg_alloc *A, live_work *w) {
  uint64_t j, nloc = w->nloc, nwrites = w->nwrites;
  if (nloc > SIZE_MAX / 8 || nwrites > SIZE_MAX / 8) return 0;
  w->cur = (uint64_t *)cg_malloc(A, nloc * 8);
  w->last = (uint64_t *)cg_malloc(A, nwrites * 8);
  w->gone = (uint64_t *)cg_malloc(A, (nwrites / 64 + 1) * 8);
  if (!w->cur || !w->last || !w->gone) return 0;
  for (j = 0; j < nloc; j++) w->cur[j] = UINT64_MAX;
  memset(w->gone, 0, (nwrites / 64 + 1) * 8);
  return 1;
}

/* Peak of live values; leaves 0 (unknown) if the work arrays do not fit.
 * ntouch (locations read or written, counted with repeats) decides whether
 * the store is sparse. */
static int live_peak(cg_alloc *A, cg_reader *R, cg_stats *s, uint64_t nwrites, uint64_t ntouch,
                     cg_error *e) {
  live_work w;
  int rc = CG_OK, fit = 1;
  memset(&w, 0, sizeof w);
  cg_map_init(&w.map, A);
  w.nloc = s->max_loc;
  w.nwrites = nwrites;
  if (cg_loc_sparse(w.nloc, ntouch)) {
    rc = cg_reader_rewind(R, e);
    if (!rc && (fit = pass_ranks(R, &w, e)) < 0) rc = fit;
  }
  if (!rc && fit > 0 && live_alloc(A, &w)) {
    rc = cg_reader_rewind(R, e);
    if (!rc) rc = pass_lastread(R, &w, e);
    if (!rc) rc = cg_reader_rewind(R, e);
    if (!rc) rc = pass_peak(R, &w, &s->peak_live, e);
  }
  cg_free(A, w.cur, w.nloc * 8);
  cg_free(A, w.last, nwrites * 8);
  cg_free(A, w.gone, (nwrites / 64 + 1) * 8);
  cg_map_free(&w.map);
  return rc;
}

int cg_tape_stats(cg_alloc *A, const char *path, cg_stats *s, cg_error *e) {
  cg_reader *R;
  uint64_t nwrites, ntouch;
  int rc;
  if (!A) A = cg_default_alloc();
  memset(s, 0, sizeof *s);
  R = cg_reader_open(A, path, e);
  if (!R) return e->code;
  rc = pass_counts(R, s, &nwrites, &ntouch, e);
  s->markers = cg_adolc_markers(R);
  if (!rc) rc = live_peak(A, R, s, nwrites, ntouch, e);
  s->info = *cg_reader_info(R);
  if (s->info.max_live == 0) s->info.max_live = s->max_loc; /* text: no header */
  cg_reader_close(R);
  return rc;
}
