/*
 * cg_classic.c: classic tapes (Bischof & Hu 1991, sec. 1.3), read and written.
 *
 * Layout (doc/formats.md is the reference):
 *   header   8 fields, each a decimal integer right-aligned in 10 ASCII bytes:
 *            buffer dumps, independents, dependents, buffer size, max live,
 *            record bytes, operations (death notices not counted),
 *            locations freed by death notices
 *   x0       one little-endian float64 per independent (the recording point)
 *   records  opcode (1 byte), record, record length (1 byte)
 * A record is the locations (uint32 LE each), then, when the opcode has
 * constants, padding to a multiple of 8 bytes and the constants (float64 LE):
 * the natural layout of a C struct, which gives Table 1's sizes (assign_ind 6,
 * assign_a 10, assign_d 18, plus_a_a 14, mult_a_d 18, death notice 10).  A
 * record of 255 bytes or more stores 255 as its length byte, preceded by the
 * length as uint32.
 */
#include <errno.h>
#include <string.h>

#include "cg_tape.h"

#define CL_HEADER 80
#define CL_BUFSIZE 65536u /* written as field 4; the unit of field 1 */

/* {==== little-endian helpers ====} */

static uint32_t get_u32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static double get_f64(const unsigned char *p) {
  uint64_t u = 0;
  double d;
  int i;
  for (i = 7; i >= 0; i--) u = u << 8 | p[i];
  memcpy(&d, &u, sizeof d);
  return d;
}

static void put_u32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16);
  p[3] = (unsigned char)(v >> 24);
}

static void put_f64(unsigned char *p, double d) {
  uint64_t u;
  int i;
  memcpy(&u, &d, sizeof u);
  for (i = 0; i < 8; i++) p[i] = (unsigned char)(u >> (8 * i));
}

uint64_t cg_classic_recbytes(unsigned op, uint32_t nloc, uint32_t nval) {
  uint64_t r = 4ull * nloc;
  (void)op;
  if (nval) r = (r + 7) / 8 * 8 + 8ull * nval;
  return 1 + r + 1 + (r >= 255 ? 4 : 0);
}

/* {==== reader ====} */

typedef struct classic_reader {
  cg_reader base;
  FILE *fp;
  unsigned char *buf; /* CL_BUFSIZE bytes */
  size_t pos, len;
  uint64_t off;       /* file offset of buf[pos] */
  uint64_t rec_off;   /* file offset of the current record */
  uint64_t rec;       /* records returned */
  uint64_t ops, deaths, freed, nind, ndep;
  uint32_t *loc;
  double *val;
  size_t cap_loc, cap_val;
  uint64_t data_start, file_size;
  uint64_t end;       /* where the header says the records end (> file_size: truncated) */
} classic_reader;

/* Ensures n bytes are buffered at buf[pos]; 0 or CG_EFORMAT at end of file. */
static int cl_need(classic_reader *C, size_t n) {
  size_t got;
  if (C->len - C->pos >= n) return CG_OK;
  memmove(C->buf, C->buf + C->pos, C->len - C->pos);
  C->len -= C->pos;
  C->pos = 0;
  got = fread(C->buf + C->len, 1, CL_BUFSIZE - C->len, C->fp);
  C->len += got;
  return C->len >= n ? CG_OK : CG_EFORMAT;
}

/* A record's error; in a file shorter than its header says, the header may
 * be what is wrong, so the message says both. */
static int cl_fail(classic_reader *C, cg_error *e, int code, const char *what) {
  if (C->end > C->file_size && !strstr(what, "truncated"))
    return cg_seterr(e, code, "%s: record %llu (byte %llu): %s (the file is %llu bytes shorter "
                     "than its header says: truncated, or a wrong header)",
                     cg_basename(C->base.path), (unsigned long long)C->rec,
                     (unsigned long long)C->rec_off, what,
                     (unsigned long long)(C->end - C->file_size));
  return cg_seterr(e, code, "%s: record %llu (byte %llu): %s", cg_basename(C->base.path),
                   (unsigned long long)C->rec, (unsigned long long)C->rec_off, what);
}

/* The current record runs past the end of the file.  Kept out of line: the
 * readers' hot paths only branch to it. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int cl_truncated(classic_reader *C, cg_error *e);
static int cl_truncated(classic_reader *C, cg_error *e) {
  char what[160];
  if (C->end > C->file_size)
    snprintf(what, sizeof what, "truncated classic tape: the file ends at byte %llu, the header "
             "says at %llu", (unsigned long long)C->file_size, (unsigned long long)C->end);
  else
    snprintf(what, sizeof what, "truncated classic tape: the record runs past the end of the "
             "file at byte %llu", (unsigned long long)C->file_size);
  return cl_fail(C, e, CG_EFORMAT, what);
}

/* Reads `n` little-endian uint32 into C->loc[at..at+n). */
/* Grows C->loc or C->val (el bytes an item) to `need` items, of which the
 * last n are still to be read: counts of variable-length records come from
 * the file, so they are checked against what is left of it first. */
static int cl_grow(classic_reader *C, void **arr, size_t *cap, size_t need, uint64_t n, size_t el,
                   cg_error *e) {
  if (n * el > C->file_size - C->off) return cl_truncated(C, e);
  if (cg_reserve(C->base.A, arr, cap, need, el)) return cg_seterr(e, CG_ENOMEM, "out of memory");
  return CG_OK;
}

static int cl_locs(classic_reader *C, uint32_t at, uint32_t n, cg_error *e) {
  uint32_t i;
  int rc;
  if ((size_t)at + n > C->cap_loc && /* only a growth can allocate: one compare per call */
      (rc = cl_grow(C, (void **)&C->loc, &C->cap_loc, (size_t)at + n, n, sizeof *C->loc, e)))
    return rc;
  for (i = 0; i < n; i++) {
    if (cl_need(C, 4)) return cl_truncated(C, e);
    C->loc[at + i] = get_u32(C->buf + C->pos);
    C->pos += 4;
    C->off += 4;
  }
  return CG_OK;
}

static int cl_skip(classic_reader *C, size_t n, cg_error *e) {
  if (cl_need(C, n)) return cl_truncated(C, e);
  C->pos += n;
  C->off += n;
  return CG_OK;
}

/* Checks the locations against the header's max live. */
static int cl_check_locs(classic_reader *C, cg_rec *r, cg_error *e) {
  uint32_t i, n = r->nloc;
  if (r->op == CG_OP_take_stock_op || (r->op >= CG_OP_ext_diff && r->op <= CG_OP_ext_diff_v2))
    return CG_OK;
  if (r->op == CG_OP_vec_copy || r->op == CG_OP_vec_dot || r->op == CG_OP_vec_axpy) n--;
  for (i = 0; i < n; i++)
    if (r->loc[i] >= C->base.info.max_live) {
      char what[128];
      snprintf(what, sizeof what, "operand location %u >= max live %llu", (unsigned)r->loc[i],
               (unsigned long long)C->base.info.max_live);
      return cl_fail(C, e, CG_EFORMAT, what);
    }
  return CG_OK;
}

/* The checks at the end of the records: the header's counts must hold. */
static int cl_end(classic_reader *C, cg_error *e) {
  const uint64_t *h = C->base.info.classic;
  char what[160];
  if (C->ops != h[6] || C->nind != h[1] || C->ndep != h[2]) {
    snprintf(what, sizeof what,
             "header says %llu operations, %llu independents, %llu dependents; "
             "records hold %llu, %llu, %llu",
             (unsigned long long)h[6], (unsigned long long)h[1], (unsigned long long)h[2],
             (unsigned long long)C->ops, (unsigned long long)C->nind, (unsigned long long)C->ndep);
    return cl_fail(C, e, CG_EFORMAT, what);
  }
  return 0;
}

static int cl_next(cg_reader *R, cg_rec *r, cg_error *e) {
  classic_reader *C = (classic_reader *)R;
  const cg_opinfo *oi;
  uint32_t nl = 0, nv = 0, have = 0, i;
  uint64_t want, got;
  unsigned op;
  int rc;
  C->rec_off = C->off;
  if (C->off >= C->file_size) return C->end > C->file_size ? cl_truncated(C, e) : cl_end(C, e);
  if (cl_need(C, 1)) return cl_truncated(C, e);
  op = C->buf[C->pos++];
  C->off++;
  oi = cg_op(op);
  if (!oi->name || oi->flags & (CG_OPF_MARKER | CG_OPF_REJECT | CG_OPF_PARAM)) {
    char what[64];
    snprintf(what, sizeof what, "unknown opcode %u", op);
    return cl_fail(C, e, CG_EFORMAT, what);
  }
  while ((rc = cg_rec_counts(op, C->loc, have, &nl, &nv)) == 0) { /* variable length only */
    if ((rc = cl_locs(C, have, nl - have, e))) return rc;
    have = nl;
  }
  if (rc < 0) return cl_fail(C, e, CG_EFORMAT, "absurd operand counts");
  if ((rc = cl_locs(C, have, nl - have, e))) return rc;
  if (nv) {
    if (nl % 2 && (rc = cl_skip(C, 4, e))) return rc;
    if (nv > C->cap_val &&
        (rc = cl_grow(C, (void **)&C->val, &C->cap_val, nv, nv, sizeof *C->val, e)))
      return rc;
    for (i = 0; i < nv; i++) {
      if (cl_need(C, 8)) return cl_truncated(C, e);
      C->val[i] = get_f64(C->buf + C->pos);
      C->pos += 8;
      C->off += 8;
    }
  }
  want = cg_classic_recbytes(op, nl, nv) - 2;
  if (want >= 255) {
    if (cl_need(C, 5)) return cl_truncated(C, e);
    got = get_u32(C->buf + C->pos);
    if (C->buf[C->pos + 4] != 255) got = 0;
    want -= 4;
    C->pos += 5;
    C->off += 5;
  } else {
    if (cl_need(C, 1)) return cl_truncated(C, e);
    got = C->buf[C->pos++];
    C->off++;
  }
  if (got != want) {
    char what[96];
    snprintf(what, sizeof what, "%s: record length %llu, expected %llu", oi->name,
             (unsigned long long)got, (unsigned long long)want);
    return cl_fail(C, e, CG_EFORMAT, what);
  }
  r->op = op;
  r->nloc = nl;
  r->nval = nv;
  r->loc = C->loc;
  r->val = C->val;
  r->index = C->rec;
  if ((rc = cl_check_locs(C, r, e))) return rc;
  C->rec++;
  if (op == CG_OP_death_not) {
    C->deaths++;
    C->freed += r->loc[1] >= r->loc[0] ? (uint64_t)r->loc[1] - r->loc[0] + 1 : 0;
  } else {
    C->ops++;
  }
  if (op == CG_OP_assign_ind || op == CG_OP_ref_assign_ind) C->nind++;
  if (op == CG_OP_assign_dep) C->ndep++;
  return 1;
}

static int cl_rewind(cg_reader *R, cg_error *e) {
  classic_reader *C = (classic_reader *)R;
  if (fseek(C->fp, (long)C->data_start, SEEK_SET) != 0)
    return cg_seterr(e, CG_EIO, "%s: cannot seek", R->path);
  C->pos = C->len = 0;
  C->off = C->data_start;
  C->rec = C->ops = C->deaths = C->freed = C->nind = C->ndep = 0;
  return CG_OK;
}

static uint64_t cl_recbytes(const cg_reader *R, const cg_rec *r) {
  (void)R;
  return cg_classic_recbytes(r->op, r->nloc, r->nval);
}

static void cl_close(cg_reader *R) {
  classic_reader *C = (classic_reader *)R;
  cg_alloc *A = R->A;
  if (C->fp) fclose(C->fp);
  cg_free(A, C->buf, CL_BUFSIZE);
  cg_free(A, C->loc, C->cap_loc * sizeof *C->loc);
  cg_free(A, C->val, C->cap_val * sizeof *C->val);
  CG_FREE(A, R->x0, double, R->info.n_indep);
  cg_free(A, C, sizeof *C);
}

/* Parses the 80-byte header. */
static int cl_header(classic_reader *C, const unsigned char *h, cg_error *e) {
  cg_tapeinfo *in = &C->base.info;
  int f, i;
  for (f = 0; f < 8; f++) {
    uint64_t v = 0;
    for (i = 0; i < 10; i++) {
      unsigned char c = h[f * 10 + i];
      if (c >= '0' && c <= '9') v = v * 10 + (uint64_t)(c - '0');
      else if (c != ' ')
        return cg_seterr(e, CG_EFORMAT, "%s: header field %d is not a number", C->base.path, f + 1);
    }
    in->classic[f] = v;
  }
  in->format = CG_FMT_CLASSIC;
  in->n_indep = in->classic[1];
  in->n_dep = in->classic[2];
  in->max_live = in->classic[4];
  in->n_ops = in->classic[6];
  return CG_OK;
}

/* Reads the header and the x0 section, checking sizes against the file.  A
 * file shorter than its header says is read up to where it ends, so that
 * the error names the record it cuts (cl_truncated); a longer one is
 * refused here. */
static int cl_start(classic_reader *C, cg_error *e) {
  unsigned char h[CL_HEADER], b[8];
  const char *name = cg_basename(C->base.path);
  uint64_t n, i, size;
  size_t got;
  if (fseek(C->fp, 0, SEEK_END) != 0) return cg_seterr(e, CG_EIO, "%s: cannot seek", name);
  size = C->file_size = (uint64_t)ftell(C->fp);
  rewind(C->fp);
  if ((got = fread(h, 1, CL_HEADER, C->fp)) != CL_HEADER)
    return cg_seterr(e, CG_EFORMAT,
                     "%s: truncated classic tape: the file ends at byte %zu, inside the "
                     "%d-byte header", name, got, CL_HEADER);
  if (cl_header(C, h, e)) return e->code;
  n = C->base.info.n_indep;
  if (n > (size - CL_HEADER) / 8)
    return cg_seterr(e, CG_EFORMAT,
                     "%s: truncated classic tape: the file ends at byte %llu, inside the values "
                     "of the %llu independents the header declares (%llu bytes from byte 80)",
                     name, (unsigned long long)size, (unsigned long long)n,
                     (unsigned long long)(n > UINT64_MAX / 8 ? UINT64_MAX : 8 * n));
  C->data_start = CL_HEADER + 8 * n;
  C->end = C->base.info.classic[5] > UINT64_MAX - C->data_start
               ? UINT64_MAX : C->data_start + C->base.info.classic[5];
  if (size > C->end)
    return cg_seterr(e, CG_EFORMAT, "%s: header says %llu record bytes, file holds %llu", name,
                     (unsigned long long)C->base.info.classic[5],
                     (unsigned long long)(size - C->data_start));
  C->base.x0 = CG_NEW(C->base.A, double, n);
  if (!C->base.x0) return cg_seterr(e, CG_ENOMEM, "out of memory");
  for (i = 0; i < n; i++) {
    if (fread(b, 1, 8, C->fp) != 8) return cg_seterr(e, CG_EIO, "%s: cannot read x0", name);
    C->base.x0[i] = get_f64(b);
  }
  C->off = C->data_start;
  return CG_OK;
}

cg_reader *cg_classic_open(cg_alloc *A, const char *path, cg_error *e) {
  classic_reader *C = (classic_reader *)cg_malloc(A, sizeof *C);
  if (!C) return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
  memset(C, 0, sizeof *C);
  C->base.next = cl_next;
  C->base.rewind = cl_rewind;
  C->base.close = cl_close;
  C->base.recbytes = cl_recbytes;
  C->base.A = A;
  snprintf(C->base.path, sizeof C->base.path, "%s", path);
  C->buf = (unsigned char *)cg_malloc(A, CL_BUFSIZE);
  C->fp = fopen(path, "rb");
  if (!C->buf || !C->fp) {
    if (C->buf) cg_seterr(e, CG_EIO, "%s: cannot open: %s", path, strerror(errno));
    else cg_seterr(e, CG_ENOMEM, "out of memory");
    cl_close(&C->base);
    return NULL;
  }
  if (cl_start(C, e)) {
    cl_close(&C->base);
    return NULL;
  }
  return &C->base;
}

/* {==== writer ====} */

/* Counts of a tape for the header. */
static void cl_counts(const cg_tape *t, uint64_t *bytes, uint64_t *ops, uint64_t *freed) {
  cg_tape_iter it;
  cg_rec r;
  *bytes = *ops = *freed = 0;
  cg_tape_iter_init(&it, t);
  while (cg_tape_iter_next(&it, &r)) {
    uint32_t buf[CG_FILE_LOCS];
    const uint32_t *l = cg_tape_file_locs(t, &r, buf); /* the freed count is the file's */
    *bytes += cg_classic_recbytes(r.op, r.nloc, r.nval);
    if (r.op != CG_OP_death_not) (*ops)++;
    else if (l[1] >= l[0]) *freed += (uint64_t)l[1] - l[0] + 1;
  }
}

static void cl_write_rec(FILE *fp, const cg_rec *r, const uint32_t *loc) {
  unsigned char b[16];
  uint64_t len = cg_classic_recbytes(r->op, r->nloc, r->nval) - 2;
  uint32_t i;
  b[0] = (unsigned char)r->op;
  fwrite(b, 1, 1, fp);
  for (i = 0; i < r->nloc; i++) {
    put_u32(b, loc[i]);
    fwrite(b, 1, 4, fp);
  }
  if (r->nval) {
    if (r->nloc % 2) {
      memset(b, 0, 4);
      fwrite(b, 1, 4, fp);
    }
    for (i = 0; i < r->nval; i++) {
      put_f64(b, r->val[i]);
      fwrite(b, 1, 8, fp);
    }
  }
  if (len >= 255) {
    put_u32(b, (uint32_t)(len - 4));
    b[4] = 255;
    fwrite(b, 1, 5, fp);
  } else {
    b[0] = (unsigned char)len;
    fwrite(b, 1, 1, fp);
  }
}

int cg_write_classic(const cg_tape *t, const char *path, cg_error *e) {
  cg_outfile o;
  cg_tape_iter it;
  cg_rec r;
  uint64_t bytes, ops, freed, f[8], i;
  unsigned char b[8];
  int rc;
  if (!t->has_x0)
    return cg_seterr(e, CG_EUSAGE,
                     "%s: a classic tape carries the values of the independents; give --at",
                     path);
  cl_counts(t, &bytes, &ops, &freed);
  f[0] = bytes / CL_BUFSIZE;
  f[1] = t->n_indep;
  f[2] = t->n_dep;
  f[3] = CL_BUFSIZE;
  f[4] = cg_tape_file_nstore(t);
  f[5] = bytes;
  f[6] = ops;
  f[7] = freed;
  for (i = 0; i < 8; i++)
    if (f[i] > 9999999999ull)
      return cg_seterr(e, CG_EUSAGE, "%s: header field %d does not fit in 10 digits", path,
                       (int)i + 1);
  if ((rc = cg_open_out(&o, path, e))) return rc;
  for (i = 0; i < 8; i++) fprintf(o.fp, "%10llu", (unsigned long long)f[i]);
  for (i = 0; i < t->n_indep; i++) {
    put_f64(b, t->x0[i]);
    fwrite(b, 1, 8, o.fp);
  }
  cg_tape_iter_init(&it, t);
  while (cg_tape_iter_next(&it, &r)) {
    uint32_t buf[CG_FILE_LOCS];
    cl_write_rec(o.fp, &r, cg_tape_file_locs(t, &r, buf));
  }
  return cg_commit_file(&o, e);
}
