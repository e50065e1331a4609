/*
 * cg_stats.c: which locations a record reads and writes, and tape statistics
 * in the form of Table 1 of Bischof & Hu 1991 (section 4.1), computed while streaming.
 */
#include <string.h>

#include <math.h>

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

/* First pass, one record: counts and bytes per opcode, highest location. */
static void count_rec(cg_reader *R, const cg_rec *r, cg_stats *s, uint64_t *nwrites) {
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
  for (k = 0; k < nr; k++)
    if (rd[k].start + rd[k].len > s->max_loc) s->max_loc = rd[k].start + rd[k].len;
  for (k = 0; k < nw; k++) {
    if (wr[k].start + wr[k].len > s->max_loc) s->max_loc = wr[k].start + wr[k].len;
    *nwrites += wr[k].len;
  }
}

/* First pass: count_rec over every record. */
static int pass_counts(cg_reader *R, cg_stats *s, uint64_t *nwrites, cg_error *e) {
  cg_rec rb[STATS_BATCH];
  int n, k;
  *nwrites = 0;
  while ((n = cg_reader_next_batch(R, rb, STATS_BATCH, e)) > 0)
    for (k = 0; k < n; k++) count_rec(R, &rb[k], s, nwrites);
  return n;
}

/* The live-range passes need, per written value, the record of its last read. */
typedef struct live_work {
  uint64_t *cur;  /* location -> number of the write that defined its value */
  uint64_t *last; /* write number -> record of its last read (or its own) */
  uint64_t *gone; /* write number -> 1 once counted dead (bitset) */
  uint64_t nloc, nwrites;
} live_work;

/* Second pass, one record (number t): the last read of every written value;
 * *k counts the writes. */
static void lastread_rec(const cg_rec *r, live_work *w, uint64_t t, uint64_t *k) {
  cg_span rd[4], wr[4];
  uint64_t j;
  int nr, nw, i;
  cg_rec_uses(r, rd, &nr, wr, &nw);
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

/* Peak of live values; leaves 0 (unknown) if the work arrays do not fit. */
static int live_peak(cg_alloc *A, cg_reader *R, cg_stats *s, uint64_t nwrites, cg_error *e) {
  live_work w;
  uint64_t j;
  int rc = CG_OK;
  memset(&w, 0, sizeof w);
  w.nloc = s->max_loc;
  w.nwrites = nwrites;
  if (w.nloc > SIZE_MAX / 8 || nwrites > SIZE_MAX / 8) return CG_OK;
  w.cur = (uint64_t *)cg_malloc(A, w.nloc * 8);
  w.last = (uint64_t *)cg_malloc(A, nwrites * 8);
  w.gone = (uint64_t *)cg_malloc(A, (nwrites / 64 + 1) * 8);
  if (w.cur && w.last && w.gone) {
    for (j = 0; j < w.nloc; j++) w.cur[j] = UINT64_MAX;
    memset(w.gone, 0, (nwrites / 64 + 1) * 8);
    rc = cg_reader_rewind(R, e);
    if (!rc) rc = pass_lastread(R, &w, e);
    if (!rc) rc = cg_reader_rewind(R, e);
    if (!rc) rc = pass_peak(R, &w, &s->peak_live, e);
  }
  cg_free(A, w.cur, w.nloc * 8);
  cg_free(A, w.last, nwrites * 8);
  cg_free(A, w.gone, (nwrites / 64 + 1) * 8);
  return rc;
}

int cg_tape_stats(cg_alloc *A, const char *path, cg_stats *s, cg_error *e) {
  cg_reader *R;
  uint64_t nwrites;
  int rc;
  if (!A) A = cg_default_alloc();
  memset(s, 0, sizeof *s);
  R = cg_reader_open(A, path, e);
  if (!R) return e->code;
  rc = pass_counts(R, s, &nwrites, e);
  s->markers = cg_adolc_markers(R);
  if (!rc) rc = live_peak(A, R, s, nwrites, e);
  s->info = *cg_reader_info(R);
  if (s->info.max_live == 0) s->info.max_live = s->max_loc; /* text: no header */
  cg_reader_close(R);
  return rc;
}
