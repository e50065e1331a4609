/*
 * cg_adolc.c: a streaming reader for ADOL-C 2.5.3 .. 2.7.x tape sets.
 *
 * The format is doc/adolc-format.md (cited as "fmt").  A
 * tape set is three files: Operations (one opcode byte per record), Locations
 * (a 168-byte header, then uint32 operands), Values (float64 constants, then
 * the pdouble parameters).  Each file is read through a buffer of fixed size
 * (AD_BUFBYTES), so memory does not grow with the tape.  The only
 * allocations that follow the data are the operands of one record and the
 * parameters, and both are bounded by the sizes of files that exist.  A file
 * truncated by another process while it is read is reported by the read
 * that comes up short.
 *
 * Files are read, not mapped: on the virtual machines cgwb is measured on, a
 * page fault costs more than copying the page out of the page cache, and
 * reading made decoding the 10^7-record Bratu tape 2.4x faster and loading
 * the 40x80 one (three files, 660 kB) 2.2x faster than 4 MiB mapped windows
 * (doc/benchmarks.md).
 *
 * Records come out in cgwb's canonical operand order (cg_ops.h `perm`);
 * index = position of the opcode byte in the Operations file.  Block markers
 * are consumed here (fmt 4.6) and counted, never returned.
 *
 * Two decoders share the cursors.  slow_next does every check of fmt 4.6 and
 * owns every error message; fast_batch decodes runs of ordinary records
 * straight from the buffers, table-driven, and hands anything else to
 * slow_next.  cg_reader_next serves records from a queue that fast_batch
 * fills 256 at a time; cg_reader_next_batch lets it fill the caller's array.
 */
#include "cg_tape.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define AD_HDR_BYTES 168 /* fmt 4.2: statSpace = 42 locints */
#define AD_HDR_LOCS 42
#define AD_BUFBYTES 65536 /* per stream: fits in L2, and larger reads gain nothing */
#define AD_QUEUE 256      /* records decoded per fast_batch */

/* fmt 4.5: enum StatEntries */
enum {
  ST_INDEP, ST_DEP, ST_MAXLIVE, ST_TAYSTACK, ST_OBS, ST_NOPS, ST_OPFILE, ST_NLOCS,
  ST_LOCFILE, ST_NVALS, ST_VALFILE, ST_LBS, ST_VBS, ST_TBS, ST_EQPROD, ST_NOMINMAX,
  ST_SWITCHES, ST_NPARAM, ST_COUNT
};

/* One input file read through a window: the buffer mem of `cap` elements.
 * Invariant: buf holds elements [base, base+len) of the file; the file
 * position is element `pos` (UINT64_MAX: unknown, seek before reading). */
typedef struct ad_stream {
  FILE *fp;
  const char *path;
  size_t elsize, cap, len;
  size_t bufcap; /* elements allocated; cap <= bufcap is what a read takes */
  uint64_t nel, base, pos;
  const unsigned char *buf; /* the window: mem (an empty stream's own pointer) */
  unsigned char *mem;
} ad_stream;

/* How the fast path (fast_batch) decodes one opcode: nl locations (0: slow
 * path) and nv constants; canonical operand i is at file position perm[i].
 * perm[i] = 0 for i >= nl, so copying and checking all four slots is
 * harmless (slot 0 is checked anyway) and needs no loop.  8 bytes, so that
 * the table is indexed without a multiplication. */
#define AD_FAST_NL 4 /* most locations of a fast record */
#define AD_FAST_NV 2 /* most constants of a fast record (top_up's margin) */
typedef struct ad_fastop {
  uint8_t nl, nv;
  uint8_t perm[AD_FAST_NL];
  uint8_t plain; /* cg_op_plain: may come through ad_next_run */
  uint8_t pad;
} ad_fastop;

/* The reader.  `base` must stay the first member (the vtable casts). */
typedef struct ad_reader {
  cg_reader base;
  ad_stream ops, locs, vals;
  uint64_t oi, li, vi; /* next op byte, locint, value (fmt 4.6) */
  uint64_t lb, vb;     /* current location / value block */
  uint64_t lend;       /* (lb + 1) * lbs: end of the current location block */
  /* fast_batch's limits (set_limits): the cursors oi, li, vi may advance up
   * to olim, llim, vlim without leaving their buffers, the location block or
   * the constants; olim = 0 shuts the fast path. */
  uint64_t olim, llim, vlim;
  ad_fastop fast[256];
  cg_rec tmpl[256];    /* op, nloc, nval of fast records, copied in one move */
  uint32_t hmask;      /* x & hmask == 0 implies x < maxlive (see build_fast) */
  /* Records fast_batch decoded ahead for ad_next, handed out in order:
   * [qp, qend) are still due; their operands are in qloc (4 per record). */
  cg_rec q[AD_QUEUE];
  uint32_t qloc[4 * AD_QUEUE];
  const cg_rec *qp, *qend;
  uint64_t obs, lbs, vbs, maxlive, nvalops;
  uint64_t markers;
  int done;
  uint32_t *floc, *cloc; /* operands of the current record: file / canonical order */
  size_t cap_floc, cap_cloc;
  double *val;
  size_t cap_val;
  char opath[4096], lpath[4096], vpath[4096];
} ad_reader;

/* Markers (block and tape markers) consumed so far; 0 for other readers. */

/* {==== buffered streams ====} */

/* A read that came up short: the file shrank after it was opened (its size
 * was checked then), or the device failed. */
static int st_ioerr(ad_stream *s, uint64_t idx, cg_error *e) {
  int eof = feof(s->fp), err = errno;
  s->len = 0;
  s->pos = UINT64_MAX;
  s->buf = s->mem;
  if (eof)
    return cg_seterr(e, CG_EFORMAT,
                     "%s: truncated ADOL-C tape file: it shrank while being read (a read from "
                     "byte %llu came up short)",
                     cg_basename(s->path), (unsigned long long)(idx * s->elsize));
  return cg_seterr(e, CG_EIO, "%s: read error at byte %llu: %s", cg_basename(s->path),
                   (unsigned long long)(idx * s->elsize), strerror(err));
}

/* Moves the window to the elements from idx < nel on.  Reading goes on
 * where the last read stopped, so only a jump (rewind, end_of_int) seeks. */
static int st_fill(ad_stream *s, uint64_t idx, cg_error *e) {
  uint64_t want = s->nel - idx < s->cap ? s->nel - idx : s->cap;
  s->buf = s->mem;
  if ((idx != s->pos && fseek(s->fp, (long)(idx * s->elsize), SEEK_SET) != 0) ||
      fread(s->mem, s->elsize, (size_t)want, s->fp) != want)
    return st_ioerr(s, idx, e);
  s->base = idx;
  s->len = (size_t)want;
  s->pos = idx + want;
  return CG_OK;
}

/* Copies elements [idx, idx+n) of the stream to dst; the caller has checked
 * idx+n <= nel.  CG_EIO if the file shrank under us. */
static int st_get(ad_stream *s, uint64_t idx, size_t n, void *dst, cg_error *e) {
  unsigned char *out = (unsigned char *)dst;
  int rc;
  while (n > 0) {
    size_t take;
    if ((idx < s->base || idx >= s->base + s->len) && (rc = st_fill(s, idx, e)) != CG_OK)
      return rc;
    take = (size_t)(s->base + s->len - idx);
    if (take > n) take = n;
    memcpy(out, s->buf + (idx - s->base) * s->elsize, take * s->elsize);
    out += take * s->elsize;
    idx += take;
    n -= take;
  }
  return CG_OK;
}

/* Opens one file of the set.  A missing optional file is an empty stream. */
static int st_open(cg_alloc *A, ad_stream *s, const char *path, size_t elsize, int optional,
                   cg_error *e) {
  struct stat st;
  s->path = path;
  s->elsize = elsize;
  s->cap = AD_BUFBYTES / elsize;
  if (stat(path, &st) != 0) {
    if (optional && errno == ENOENT) { /* empty, but with a buffer to point into */
      s->cap = s->bufcap = 1;
      s->buf = s->mem = (unsigned char *)cg_malloc(A, elsize);
      return s->mem ? CG_OK : cg_seterr(e, CG_ENOMEM, "out of memory");
    }
    return cg_seterr(e, CG_EIO, "%s: cannot open: %s", path, strerror(errno));
  }
  if (S_ISDIR(st.st_mode))
    return cg_seterr(e, CG_EFORMAT, "%s: cannot open: %s", path, strerror(EISDIR));
  if (st.st_size % (off_t)elsize != 0)
    return cg_seterr(e, CG_EFORMAT,
                     "%s: truncated ADOL-C tape file: %lld bytes is not a whole number of "
                     "%u-byte items", cg_basename(path), (long long)st.st_size, (unsigned)elsize);
  s->nel = (uint64_t)st.st_size / elsize;
  s->fp = fopen(path, "rb");
  if (!s->fp) return cg_seterr(e, CG_EIO, "%s: cannot open: %s", path, strerror(errno));
  setvbuf(s->fp, NULL, _IONBF, 0); /* buf is the buffer: no second copy in stdio */
  s->pos = UINT64_MAX;
  s->bufcap = s->cap;
  s->buf = s->mem = (unsigned char *)cg_malloc(A, s->cap * elsize);
  if (!s->mem) return cg_seterr(e, CG_ENOMEM, "out of memory");
  return CG_OK;
}

static void st_close(cg_alloc *A, ad_stream *s) {
  if (s->fp) fclose(s->fp);
  if (s->mem) cg_free(A, s->mem, s->bufcap * s->elsize);
  s->fp = NULL;
  s->buf = s->mem = NULL;
}

/* {==== file names and header ====} */

/* Derives the three names of the set from any one of them (fmt section 1):
 * <dir>/ADOLC-<Kind>_<tag>.tap. */
static int derive_names(ad_reader *R, const char *path, cg_error *e) {
  const char *b = cg_basename(path), *us;
  size_t dirlen = (size_t)(b - path);
  int n1, n2, n3;
  if (strncmp(b, "ADOLC-", 6) != 0 || !(us = strchr(b + 6, '_')) ||
      strlen(us) < 5 || strcmp(us + strlen(us) - 4, ".tap") != 0)
    return cg_seterr(e, CG_EFORMAT, "%s: not an ADOL-C tape name (ADOLC-Operations_<tag>.tap)",
                     path);
  n1 = snprintf(R->opath, sizeof R->opath, "%.*sADOLC-Operations%s", (int)dirlen, path, us);
  n2 = snprintf(R->lpath, sizeof R->lpath, "%.*sADOLC-Locations%s", (int)dirlen, path, us);
  n3 = snprintf(R->vpath, sizeof R->vpath, "%.*sADOLC-Values%s", (int)dirlen, path, us);
  if (n1 < 0 || n2 < 0 || n3 < 0 || (size_t)n1 >= sizeof R->opath ||
      (size_t)n2 >= sizeof R->lpath || (size_t)n3 >= sizeof R->vpath)
    return cg_seterr(e, CG_EUSAGE, "%s: path too long", path);
  return CG_OK;
}

static int16_t get_i16(const unsigned char *p) {
  int16_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Parses and checks the 168-byte Locations header (fmt 4.2, 4.5, 10). */
static int read_header(ad_reader *R, cg_error *e) {
  unsigned char h[AD_HDR_BYTES];
  const char *ln = cg_basename(R->lpath);
  int v, s, l, i;
  if (R->locs.nel < AD_HDR_LOCS)
    return cg_seterr(e, CG_EFORMAT,
                     "%s: truncated ADOL-C tape file: %llu bytes, the header alone takes %d", ln,
                     (unsigned long long)R->locs.nel * 4, AD_HDR_BYTES);
  R->locs.pos = UINT64_MAX; /* the stream's idea of the file position is void */
  if (fseek(R->locs.fp, 0, SEEK_SET) != 0 || fread(h, 1, sizeof h, R->locs.fp) != sizeof h)
    return cg_seterr(e, CG_EIO, "%s: cannot read the header", ln);
  v = get_i16(h), s = get_i16(h + 2), l = get_i16(h + 4);
  R->base.info.ver[0] = v, R->base.info.ver[1] = s, R->base.info.ver[2] = l;
  if (v != 2 || s < 5 || s > 7 || (s == 5 && l < 3))
    return cg_seterr(e, CG_EFORMAT,
                     "%s: written by ADOL-C %d.%d.%d; only 2.5.3 .. 2.7.x tapes are supported",
                     ln, v, s, l);
  if (get_i16(h + 6) != 4 || get_i16(h + 8) != 8 || get_i16(h + 10) != 8)
    return cg_seterr(e, CG_EFORMAT,
                     "%s: ADOL-C %d.%d.%d tape with locint/revreal/size_t sizes %d/%d/%d; "
                     "only 4/8/8 is supported",
                     ln, v, s, l, get_i16(h + 6), get_i16(h + 8), get_i16(h + 10));
  for (i = 0; i < ST_COUNT; i++) memcpy(&R->base.info.stats[i], h + 12 + 8 * i, 8);
  return CG_OK;
}

/* Checks that the header and the three file sizes describe one tape. */
static int check_sizes(ad_reader *R, cg_error *e) {
  const uint64_t *st = R->base.info.stats;
  const char *ln = cg_basename(R->lpath);
  static const struct { int stat; size_t off; const char *what; } chk[3] = {
      {ST_NLOCS, offsetof(ad_reader, locs), "locints"},
      {ST_NOPS, offsetof(ad_reader, ops), "operation bytes"},
      {ST_NVALS, offsetof(ad_reader, vals), "values"}};
  int i;
  for (i = 0; i < 3; i++) {
    const ad_stream *s = (const ad_stream *)(const void *)((const char *)R + chk[i].off);
    uint64_t want = st[chk[i].stat];
    if (!s->fp && want > 0)
      return cg_seterr(e, CG_EFORMAT, "%s: missing, but the header of %s says %llu %s",
                       cg_basename(s->path), ln, (unsigned long long)want, chk[i].what);
    if (s->nel < want)
      return cg_seterr(e, CG_EFORMAT,
                       "%s: truncated ADOL-C tape file: %llu %s but the header of %s says %llu "
                       "(or files of different tapes)",
                       cg_basename(s->path), (unsigned long long)s->nel, chk[i].what, ln,
                       (unsigned long long)want);
    if (s->nel > want)
      return cg_seterr(e, CG_EFORMAT, "%s: %llu %s but the header of %s says %llu (%s)",
                       cg_basename(s->path), (unsigned long long)s->nel, chk[i].what, ln,
                       (unsigned long long)want, "files of different tapes?");
  }
  if (st[ST_MAXLIVE] > 0xffffffffull) /* a locint is 32 bits; UINT32_MAX is no location */
    return cg_seterr(e, CG_EFORMAT, "%s: store capacity %llu beyond 32-bit locations", ln,
                     (unsigned long long)st[ST_MAXLIVE]);
  if (st[ST_NPARAM] > st[ST_NVALS])
    return cg_seterr(e, CG_EFORMAT, "%s: %llu parameters but only %llu values", ln,
                     (unsigned long long)st[ST_NPARAM], (unsigned long long)st[ST_NVALS]);
  if (st[ST_OBS] < 2 || st[ST_LBS] <= AD_HDR_LOCS || st[ST_VBS] < 1)
    return cg_seterr(e, CG_EFORMAT,
                     "%s: unusable block sizes %llu/%llu/%llu (ops/locs/vals; need >= 2/43/1)", ln,
                     (unsigned long long)st[ST_OBS], (unsigned long long)st[ST_LBS],
                     (unsigned long long)st[ST_VBS]);
  return CG_OK;
}

/* Fills the public info from the stats and reads the parameters (the last
 * NUM_PARAM values, fmt 4.3). */
static int load_info(ad_reader *R, cg_error *e) {
  cg_tapeinfo *in = &R->base.info;
  const uint64_t *st = in->stats;
  in->format = CG_FMT_ADOLC;
  in->n_indep = st[ST_INDEP];
  in->n_dep = st[ST_DEP];
  in->max_live = st[ST_MAXLIVE];
  in->n_ops = st[ST_NOPS];
  in->n_param = st[ST_NPARAM];
  R->obs = st[ST_OBS], R->lbs = st[ST_LBS], R->vbs = st[ST_VBS];
  R->maxlive = st[ST_MAXLIVE];
  R->nvalops = st[ST_NVALS] - st[ST_NPARAM];
  if (in->n_param == 0) return CG_OK;
  R->base.params = (double *)cg_malloc(R->base.A, (size_t)in->n_param * sizeof(double));
  if (!R->base.params) return cg_seterr(e, CG_ENOMEM, "out of memory");
  return st_get(&R->vals, R->nvalops, (size_t)in->n_param, R->base.params, e);
}

/* {==== record decoding ====} */

/* A CG_EFORMAT error prefixed with the Operations file and record number. */
static int rec_err(ad_reader *R, cg_error *e, uint64_t idx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int rec_err(ad_reader *R, cg_error *e, uint64_t idx, const char *fmt, ...) {
  char buf[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return cg_seterr(e, CG_EFORMAT, "%s: record %llu: %s", cg_basename(R->opath),
                   (unsigned long long)idx, buf);
}

/* Reads the locint at li+k of the current record (for length fields). */
static int peek_loc(ad_reader *R, uint64_t k, uint64_t idx, uint32_t *v, cg_error *e) {
  if (R->li + k >= R->locs.nel)
    return rec_err(R, e, idx, "operands run past the end of %s", cg_basename(R->lpath));
  return st_get(&R->locs, R->li + k, 1, v, e);
}

/* Operand counts of a record in the file (fmt 5; variable-length ops decode
 * their lengths from their leading locints). */
static int rec_counts(ad_reader *R, const cg_opinfo *oi, unsigned op, uint64_t idx,
                      uint64_t *nl, uint64_t *nv, cg_error *e) {
  uint32_t a, b, c;
  int rc;
  *nl = oi->nloc >= 0 ? (uint64_t)oi->nloc : 0;
  *nv = oi->nval >= 0 ? (uint64_t)oi->nval : 0;
  switch (op) {
    case CG_OP_take_stock_op: /* [size, start], size values */
      if ((rc = peek_loc(R, 0, idx, &a, e))) return rc;
      *nv = a;
      return CG_OK;
    case CG_OP_ext_diff_iArr: /* [k, iArr[k], k, six of ext_diff] */
      if ((rc = peek_loc(R, 0, idx, &a, e))) return rc;
      *nl = 8 + (uint64_t)a;
      return CG_OK;
    case CG_OP_ext_diff_v2: /* [idx, k, iArr[k], k, nin, nout, pairs, nin, nout] */
      if ((rc = peek_loc(R, 1, idx, &a, e)) || (rc = peek_loc(R, 4 + (uint64_t)a, idx, &b, e)) ||
          (rc = peek_loc(R, 5 + (uint64_t)a, idx, &c, e)))
        return rc;
      *nl = 7 + (uint64_t)a + 2 * ((uint64_t)b + c);
      return CG_OK;
    default:
      return CG_OK;
  }
}

/* Checks that a vector operand [loc, loc+n) lies in the store. */
static int check_range(ad_reader *R, cg_error *e, uint64_t idx, uint32_t loc, uint64_t n) {
  if ((uint64_t)loc + n > R->maxlive || (n == 0 && loc >= R->maxlive))
    return rec_err(R, e, idx, "operand locations %u .. %llu beyond store size %llu",
                   (unsigned)loc, (unsigned long long)(loc + (n ? n - 1 : 0)),
                   (unsigned long long)R->maxlive);
  return CG_OK;
}

/* Checks the ext_diff operand block [fct, n, m, xloc, yloc, cp] at f. */
static int check_ext(ad_reader *R, cg_error *e, uint64_t idx, const uint32_t *f) {
  int rc = 0;
  if (f[1]) rc = check_range(R, e, idx, f[3], f[1]);
  if (!rc && f[2]) rc = check_range(R, e, idx, f[4], f[2]);
  return rc;
}

/* Checks every operand that is a store location (file order) against
 * NUM_MAX_LIVES; counts, indices and parameter numbers are skipped. */
static int check_locs(ad_reader *R, const cg_opinfo *oi, unsigned op, uint64_t idx,
                      const uint32_t *f, uint64_t nl, cg_error *e) {
  uint64_t i, k, npair;
  int rc = 0;
  switch (op) {
    case CG_OP_take_stock_op: return check_range(R, e, idx, f[1], f[0]);
    case CG_OP_ext_diff: return check_ext(R, e, idx, f);
    case CG_OP_ext_diff_iArr: return check_ext(R, e, idx, f + 2 + f[0]);
    case CG_OP_ext_diff_v2:
      k = f[1];
      npair = (uint64_t)f[4 + k] + f[5 + k];
      for (i = 0; i < npair && !rc; i++)
        if (f[6 + k + 2 * i]) rc = check_range(R, e, idx, f[7 + k + 2 * i], f[6 + k + 2 * i]);
      return rc;
    case CG_OP_vec_copy: /* file [src, n, dst] */
      if (f[1] == 0) return CG_OK;
      return check_range(R, e, idx, f[0], f[1]) || check_range(R, e, idx, f[2], f[1])
                 ? CG_EFORMAT : CG_OK;
    case CG_OP_vec_dot: /* file [a, b, n, res] */
      if (f[2] && (check_range(R, e, idx, f[0], f[2]) || check_range(R, e, idx, f[1], f[2])))
        return CG_EFORMAT;
      return check_range(R, e, idx, f[3], 1);
    case CG_OP_vec_axpy: /* file [s, x, y, n, res] */
      if (f[3] && (check_range(R, e, idx, f[1], f[3]) || check_range(R, e, idx, f[2], f[3]) ||
                   check_range(R, e, idx, f[4], f[3])))
        return CG_EFORMAT;
      return check_range(R, e, idx, f[0], 1);
    default: break;
  }
  for (i = 0; i < nl; i++) {
    uint32_t x;
    if ((oi->flags & CG_OPF_PARAM) && i == oi->perm[nl - 1]) continue; /* P[p] index */
    x = f[i];
    if (x >= R->maxlive)
      return rec_err(R, e, idx, "operand location %u >= store size %llu", (unsigned)x,
                     (unsigned long long)R->maxlive);
  }
  return CG_OK;
}

/* Rejects what cgwb cannot read: unknown codes, cgwb-only codes, AMPI,
 * advanced branching, MeDiPack (fmt 5, P12). */
static int check_opcode(ad_reader *R, const cg_opinfo *oi, unsigned op, uint64_t idx,
                        cg_error *e) {
  if (!oi->name || !(oi->flags & CG_OPF_ADOLC))
    return rec_err(R, e, idx, "unknown opcode %u", op);
  if (!(oi->flags & CG_OPF_REJECT)) return CG_OK;
  if (op >= CG_OP_ampi_send && op <= CG_OP_ampi_allreduce)
    return rec_err(R, e, idx, "AMPI opcode %s is not supported", oi->name);
  return rec_err(R, e, idx, "opcode %u (%s) is not supported", op, oi->name);
}

/* Makes room for the operands of one record. */
static int reserve_rec(ad_reader *R, uint64_t nl, uint64_t nv, cg_error *e) {
  cg_alloc *A = R->base.A;
  if (cg_reserve(A, (void **)&R->floc, &R->cap_floc, (size_t)nl, sizeof *R->floc) ||
      cg_reserve(A, (void **)&R->cloc, &R->cap_cloc, (size_t)nl, sizeof *R->cloc) ||
      cg_reserve(A, (void **)&R->val, &R->cap_val, (size_t)nv, sizeof *R->val))
    return cg_seterr(e, CG_ENOMEM, "out of memory");
  return CG_OK;
}

/* Decodes the operands of a non-marker record whose opcode byte was at idx. */
static int read_record(ad_reader *R, unsigned op, uint64_t idx, cg_rec *r, cg_error *e) {
  const cg_opinfo *oi = cg_op(op);
  uint64_t nl, nv, blockend, i;
  int rc;
  if ((rc = check_opcode(R, oi, op, idx, e)) || (rc = rec_counts(R, oi, op, idx, &nl, &nv, e)))
    return rc;
  if (nl > R->locs.nel - R->li)
    return rec_err(R, e, idx, "%s needs %llu operands, %s ends after %llu", oi->name,
                   (unsigned long long)nl, cg_basename(R->lpath),
                   (unsigned long long)(R->locs.nel - R->li));
  blockend = R->lend;
  if (R->li + nl > blockend) /* fmt 4.2: operands never straddle a block */
    return rec_err(R, e, idx, "operands of %s cross the location block ending at %llu",
                   oi->name, (unsigned long long)blockend);
  if (R->vi > R->nvalops || nv > R->nvalops - R->vi)
    return rec_err(R, e, idx, "%s needs %llu constants at value %llu, %s holds %llu", oi->name,
                   (unsigned long long)nv, (unsigned long long)R->vi, cg_basename(R->vpath),
                   (unsigned long long)R->nvalops);
  if ((rc = reserve_rec(R, nl, nv, e)) || (rc = st_get(&R->locs, R->li, (size_t)nl, R->floc, e)) ||
      (rc = st_get(&R->vals, R->vi, (size_t)nv, R->val, e)))
    return rc;
  if ((rc = check_locs(R, oi, op, idx, R->floc, nl, e))) return rc;
  for (i = 0; i < nl; i++) R->cloc[i] = R->floc[i < 8 ? oi->perm[i] : i];
  R->li += nl;
  R->vi += nv;
  r->op = op;
  r->nloc = (uint32_t)nl;
  r->nval = (uint32_t)nv;
  r->loc = R->cloc;
  r->val = R->val;
  r->index = idx;
  return 1;
}

/* (lb + 1) * lbs, saturated: where the current location block ends. */
static uint64_t block_end(const ad_reader *R) {
  return R->lb + 1 > UINT64_MAX / R->lbs ? UINT64_MAX : (R->lb + 1) * R->lbs;
}

/* end_of_int: the rest of the location block is padding whose last slot
 * counts the unused slots (fmt 4.2, 4.6, P10); go to the next block. */
static int skip_loc_block(ad_reader *R, uint64_t idx, cg_error *e) {
  uint64_t next;
  uint32_t r;
  int rc;
  if (R->lb + 1 > UINT64_MAX / R->lbs || (next = (R->lb + 1) * R->lbs) > R->locs.nel)
    return rec_err(R, e, idx, "end_of_int jumps past the end of %s", cg_basename(R->lpath));
  if (next > R->li) {
    if ((rc = st_get(&R->locs, next - 1, 1, &r, e))) return rc;
    if ((uint64_t)r != next - R->li)
      return rec_err(R, e, idx, "end_of_int: location block ends with count %u, expected %llu",
                     (unsigned)r, (unsigned long long)(next - R->li));
  }
  R->lb++;
  R->li = next;
  R->lend = block_end(R);
  return CG_OK;
}

/* end_of_val: consumes one locint (the unused count, ignored as ADOL-C's
 * forward reader does) and goes to the next value block (fmt 4.6). */
static int skip_val_block(ad_reader *R, uint64_t idx, cg_error *e) {
  if (R->li >= R->locs.nel)
    return rec_err(R, e, idx, "end_of_val: %s ends before its count", cg_basename(R->lpath));
  if (R->vb + 1 > UINT64_MAX / R->vbs)
    return rec_err(R, e, idx, "end_of_val: value block number overflows");
  R->li++;
  R->vb++;
  R->vi = R->vb * R->vbs;
  return CG_OK;
}

/* end_of_tape: everything the header counted must have been consumed. */
static int finish(ad_reader *R, uint64_t idx, cg_error *e) {
  R->done = 1;
  if (R->oi != R->ops.nel)
    return rec_err(R, e, idx, "end_of_tape before the end of the file (%llu of %llu bytes)",
                   (unsigned long long)R->oi, (unsigned long long)R->ops.nel);
  if (R->li != R->locs.nel)
    return rec_err(R, e, idx, "tape ends after %llu of %llu locints of %s",
                   (unsigned long long)R->li, (unsigned long long)R->locs.nel,
                   cg_basename(R->lpath));
  if (R->vi != R->nvalops)
    return rec_err(R, e, idx, "tape ends after %llu of %llu values of %s",
                   (unsigned long long)R->vi, (unsigned long long)R->nvalops,
                   cg_basename(R->vpath));
  return 0;
}

/* The reader loop of fmt 4.6: markers are consumed, records returned.
 * Every case fast_batch declines comes here, so all checks and messages
 * live in this one place. */
#if defined(__GNUC__)
__attribute__((noinline)) /* rare (markers, buffer ends): keeps its callers' frames small */
#endif
static int slow_next(ad_reader *R, cg_rec *r, cg_error *e) {
  unsigned char op;
  int rc;
  for (;;) {
    uint64_t idx = R->oi;
    if (R->done) return 0;
    if (R->oi >= R->ops.nel)
      return rec_err(R, e, idx, "end of file without end_of_tape");
    if ((rc = st_get(&R->ops, R->oi++, 1, &op, e))) return rc;
    switch (op) {
      case CG_OP_end_of_op: /* the next block starts with a second end_of_op */
        R->markers += 2;
        if (R->oi % R->obs != 0) /* fmt 4.1: the last byte of a full block */
          return rec_err(R, e, idx, "end_of_op inside an operation block of %llu bytes",
                         (unsigned long long)R->obs);
        if (R->oi >= R->ops.nel || (rc = st_get(&R->ops, R->oi++, 1, &op, e)) != 0)
          return rc ? rc : rec_err(R, e, idx, "end_of_op at the end of the file");
        if (op != CG_OP_end_of_op)
          return rec_err(R, e, idx, "end_of_op not repeated at the start of the next block");
        break;
      case CG_OP_end_of_int:
        R->markers++;
        if ((rc = skip_loc_block(R, idx, e))) return rc;
        break;
      case CG_OP_end_of_val:
        R->markers++;
        if ((rc = skip_val_block(R, idx, e))) return rc;
        break;
      case CG_OP_start_of_tape:
        R->markers++;
        break;
      case CG_OP_end_of_tape:
        R->markers++;
        return finish(R, idx, e);
      default:
        return read_record(R, op, idx, r, e);
    }
  }
}

/* How far a cursor at `cur` may go in the buffer of s, clipped to `end`
 * (never below cur).  A cursor outside the window (after a rewind or a block
 * jump) gets an empty window of its own, so the buffer offset cur - base is
 * always valid. */
static uint64_t window_limit(ad_stream *s, uint64_t cur, uint64_t end) {
  uint64_t lim;
  if (cur < s->base || cur - s->base > s->len) {
    s->base = cur;
    s->len = 0;
  }
  lim = s->base + s->len;
  if (lim > end) lim = end;
  return lim < cur ? cur : lim;
}

/* Recomputes fast_batch's limits after anything that moved a cursor or
 * refilled a buffer (slow_next, rewind).  A cursor already past its end is
 * an error slow_next reports, so the fast path is then shut. */
static void set_limits(ad_reader *R) {
  R->olim = window_limit(&R->ops, R->oi, R->ops.nel);
  R->llim = window_limit(&R->locs, R->li, R->lend);
  R->vlim = window_limit(&R->vals, R->vi, R->nvalops);
  if (R->done || R->li > R->lend || R->vi > R->nvalops) R->olim = 0;
}

/* The fast path of the reader loop, for the ordinary records that make up
 * almost every tape: decodes up to max records from oi on straight from the
 * three buffers into out[], their operands into loc (4 slots per record).
 * The batch is cut so that even records of the largest size stay in the
 * operation and location buffers, so only the values need a bounds check
 * per record.  It stops before anything unusual (a marker, a special opcode,
 * an operand that may be out of range, the end of a buffer or block), so
 * that slow_next decodes that record with every check and message.  Its
 * conditions imply those under which read_record succeeds, and it computes
 * the same records (spec/c/test_adolc.c compares the two on every tape and
 * every fuzzed mutant). */
/* Where the fast decoders read (the next opcode, operand and constant in
 * their windows) and how many records they may decode there: the batch is
 * cut so that even records of the largest size stay in the operation and
 * location windows.  set_limits has put the cursors in their windows. */
static uint64_t fast_view(const ad_reader *R, const unsigned char **ob, const uint32_t **L,
                          const double **V) {
  uint64_t k = R->olim - R->oi, kl = (R->llim - R->li) / AD_FAST_NL;
  *ob = R->ops.buf + (R->oi - R->ops.base);
  *L = (const uint32_t *)(const void *)R->locs.buf + (R->li - R->locs.base);
  *V = (const double *)(const void *)R->vals.buf + (R->vi - R->vals.base);
  return k < kl ? k : kl;
}

/* Moves the cursors past n decoded records whose operands end at L and
 * which took nv constants. */
static void fast_advance(ad_reader *R, uint64_t n, const uint32_t *L, uint64_t nv) {
  R->oi += n;
  R->li = R->locs.base + (uint64_t)(L - (const uint32_t *)(const void *)R->locs.buf);
  R->vi += nv;
}

static int fast_batch(ad_reader *R, cg_rec *out, int max, uint32_t *loc) {
  const ad_fastop *fast = R->fast;
  const cg_rec *tmpl = R->tmpl;
  const unsigned char *ob;
  const uint32_t *L;
  const double *V, *V0;
  uint32_t hmask = R->hmask;
  uint64_t oi = R->oi, k, vrem = R->vlim - R->vi;
  int n;
  if (oi >= R->olim) return 0;
  k = fast_view(R, &ob, &L, &V);
  if (k > (uint64_t)max) k = (uint64_t)max;
  V0 = V;
  for (n = 0; n < (int)k; n++) {
    const ad_fastop *f = fast + ob[n];
    uint32_t c0, c1, c2, c3, *c = loc + 4 * n;
    if (f->nl == 0 || f->nv > vrem) break; /* values: tapes end with runs of none */
    c0 = L[f->perm[0]];
    c1 = L[f->perm[1]];
    c2 = L[f->perm[2]];
    c3 = L[f->perm[3]];
    if ((c0 | c1 | c2 | c3) & hmask) break;
    c[0] = c0; /* compilers merge these four stores into one */
    c[1] = c1;
    c[2] = c2;
    c[3] = c3;
    memcpy(&out[n], &tmpl[ob[n]], offsetof(cg_rec, loc)); /* op, nloc, nval in one move */
    out[n].loc = c;
    out[n].val = V;
    out[n].index = oi + (uint64_t)n;
    L += f->nl;
    V += f->nv;
    vrem -= f->nv;
  }
  fast_advance(R, (uint64_t)n, L, (uint64_t)(V - V0));
  return n;
}

/* fast_batch in struct-of-arrays form (cg_reader_next_run): the same
 * records, the same limits, written straight into u's arrays; stops also
 * before a record that is not plain or that would not fit.  Opcodes and
 * constants of consecutive records are consecutive in the files, so they are
 * copied in one move each after the loop; only operands are permuted. */
#if defined(__GNUC__) && !defined(__clang__)
/* its own registers: the loop must not spill; GCC's SLP vectorizer turns
 * the four operand stores into eight instructions */
__attribute__((noinline, optimize("no-tree-slp-vectorize")))
#elif defined(__GNUC__)
__attribute__((noinline))
#endif
static int fast_soa(ad_reader *R, cg_run *u) {
  const ad_fastop *restrict fast = R->fast;
  const unsigned char *restrict ob;
  const uint32_t *restrict L;
  const double *V;
  uint32_t hmask = R->hmask;
  uint64_t oi = R->oi, k, kf, vrem = R->vlim - R->vi, nv = 0, top = u->maxloc;
  uint32_t *restrict dl = u->loc + u->nloc, *dl0 = dl;
  uint32_t *dlend = u->loc + u->cap_loc - AD_FAST_NL; /* room for 4 more slots */
  size_t n;
  if (oi >= R->olim || u->cap_loc - u->nloc < AD_FAST_NL) return 0;
  { /* through plain pointers: restrict ones do not convert */
    const unsigned char *ob0;
    const uint32_t *L0;
    k = fast_view(R, &ob0, &L0, &V);
    ob = ob0, L = L0;
  }
  if (k > u->cap_op - u->nop) k = u->cap_op - u->nop;
  if (vrem > u->cap_val - u->nval) vrem = u->cap_val - u->nval;
  /* The first kf records fit the constants and the operand room left even
   * at the largest size, so a copy of the loop without those checks takes
   * them; the checked one goes on from there. */
#define SOA_LOOP(LIMIT, ROOM_SHORT)                                                     \
  for (; n < (LIMIT); n++) {                                                            \
    const ad_fastop *f = fast + ob[n];                                                  \
    uint32_t c0, c1, c2, c3, any;                                                       \
    if (!f->plain || (ROOM_SHORT)) break; /* (plain implies nl > 0) */                 \
    c0 = L[f->perm[0]];                                                                 \
    c1 = L[f->perm[1]];                                                                 \
    c2 = L[f->perm[2]];                                                                 \
    c3 = L[f->perm[3]];                                                                 \
    dl[0] = c0; /* slots past nl are overwritten by the next record */                  \
    dl[1] = c1;                                                                         \
    dl[2] = c2;                                                                         \
    dl[3] = c3;                                                                         \
    any = c0 | c1 | c2 | c3; /* slots past nl repeat slot 0 (perm) */                   \
    if (any & hmask) break;                                                             \
    if (any >= top) { /* no operand exceeds their OR: most records skip the max */      \
      c0 = c0 > c1 ? c0 : c1;                                                           \
      c2 = c2 > c3 ? c2 : c3;                                                           \
      c0 = c0 > c2 ? c0 : c2;                                                           \
      if (c0 >= top) top = (uint64_t)c0 + 1;                                            \
    }                                                                                   \
    dl += f->nl;                                                                        \
    L += f->nl;                                                                         \
    nv += f->nv;                                                                        \
  }
  kf = (size_t)(dlend - dl) / AD_FAST_NL + 1;
  if (kf > vrem / AD_FAST_NV) kf = vrem / AD_FAST_NV;
  if (kf > k) kf = k;
  n = 0;
  SOA_LOOP(kf, 0)
  if (n == kf) SOA_LOOP(k, nv + f->nv > vrem || dl > dlend)
#undef SOA_LOOP
  if (n == 0) return 0;
  memcpy(u->op + u->nop, ob, n);
  if (nv) memcpy(u->val + u->nval, V, (size_t)nv * sizeof *V);
  u->maxloc = top;
  u->nop += n;
  u->nloc += (size_t)(dl - dl0);
  u->nval += (size_t)nv;
  fast_advance(R, n, L, nv);
  return (int)n;
}

/* Moves the window of s to the cursor when fewer than `need` elements are
 * left in it but the file has more, so that fast_batch is not cut short at
 * every buffer end.  set_limits has put cur inside the window. */
static int top_up(ad_stream *s, uint64_t cur, uint64_t need, cg_error *e) {
  uint64_t end = s->base + s->len;
  if (end - cur >= need || end >= s->nel) return CG_OK;
  return st_fill(s, cur, e);
}

/* Tops up the buffers and sets the fast path's limits: 1 if a fast decoder
 * may run, 0 if the next record needs the slow path, <0 on an error. */
static int fast_ready(ad_reader *R, cg_error *e) {
  int rc;
  if (R->done || R->li > R->lend || R->vi > R->nvalops) return 0; /* see set_limits */
  if ((rc = top_up(&R->ops, R->oi, 1, e)) || (rc = top_up(&R->locs, R->li, AD_FAST_NL, e)) ||
      (rc = top_up(&R->vals, R->vi, AD_FAST_NV, e)))
    return rc;
  set_limits(R);
  return 1;
}

/* Decodes the next run of records into out; 0 if the next record needs the
 * slow path. */
static int fast_run(ad_reader *R, cg_rec *out, int max, uint32_t *loc, cg_error *e) {
  int rc = fast_ready(R, e);
  return rc <= 0 ? rc : fast_batch(R, out, max, loc);
}

/* cg_reader_next_run: first the plain records ad_next decoded ahead into
 * its queue, else plain records decoded straight into u after topping up
 * the buffers; 0 at the end and before anything that is not plain (the
 * caller takes it through ad_next or ad_next_batch). */
static int ad_next_run(cg_reader *base, cg_run *u, cg_error *e) {
  ad_reader *R = (ad_reader *)base;
  int rc, n = 0;
  while (R->qp < R->qend && R->fast[R->qp->op].plain && u->nop < u->cap_op &&
         u->cap_loc - u->nloc >= AD_FAST_NL && u->cap_val - u->nval >= AD_FAST_NV) {
    const cg_rec *q = R->qp++; /* decoded ahead for ad_next: handed over first */
    uint32_t i;
    u->op[u->nop++] = (uint8_t)q->op;
    for (i = 0; i < q->nloc; i++) {
      u->loc[u->nloc++] = q->loc[i];
      if ((uint64_t)q->loc[i] + 1 > u->maxloc) u->maxloc = (uint64_t)q->loc[i] + 1;
    }
    for (i = 0; i < q->nval; i++) u->val[u->nval++] = q->val[i];
    n++;
  }
  if (n > 0 || R->qp < R->qend) return n;
  return (rc = fast_ready(R, e)) <= 0 ? rc : fast_soa(R, u);
}

/* One record the slow way, then the fast path's limits anew. */
static int slow_record(ad_reader *R, cg_rec *r, cg_error *e) {
  int rc = slow_next(R, r, e);
  set_limits(R);
  return rc;
}

/* The queue is empty: decodes the next records into it, or one the slow way. */
#if defined(__GNUC__)
__attribute__((noinline)) /* keeps ad_next a few instructions long */
#endif
static int refill_next(ad_reader *R, cg_rec *r, cg_error *e) {
  int n = fast_run(R, R->q, AD_QUEUE, R->qloc, e);
  R->qp = R->q;
  R->qend = R->q + (n > 0 ? n : 0);
  if (n < 0) return n;
  if (n == 0) return slow_record(R, r, e);
  *r = *R->qp++;
  return 1;
}

static int ad_next(cg_reader *base, cg_rec *r, cg_error *e) {
  ad_reader *R = (ad_reader *)base;
  if (R->qp < R->qend) {
    *r = *R->qp++;
    return 1;
  }
  return refill_next(R, r, e);
}

/* The batch form: what the queue still holds, else fresh records decoded
 * straight into r (their operands into qloc, which the empty queue frees). */
static int ad_next_batch(cg_reader *base, cg_rec *r, int max, cg_error *e) {
  ad_reader *R = (ad_reader *)base;
  int n = 0;
  if (R->qp < R->qend) {
    for (; n < max && R->qp < R->qend; n++) r[n] = *R->qp++;
    return n;
  }
  R->qp = R->qend = R->q;
  n = fast_run(R, r, max < AD_QUEUE ? max : AD_QUEUE, R->qloc, e);
  return n != 0 ? n : slow_record(R, r, e);
}

/* Fills R->fast with the opcodes fast_batch may decode: ADOL-C's ordinary
 * fixed-size records whose operands are all store locations (the default
 * case of check_locs; parameter and vector operands take the slow path).
 * Its range check is one mask: p = the largest power of two <= maxlive
 * (ADOL-C's store sizes are powers of two, so p = maxlive on real tapes),
 * x < p iff x & ~(p - 1) == 0; a location in [p, maxlive) takes the slow
 * path, which accepts it. */
static void build_fast(ad_reader *R) {
  uint64_t p = 1;
  unsigned c, i;
  memset(R->fast, 0, sizeof R->fast);
  memset(R->tmpl, 0, sizeof R->tmpl);
  if (R->maxlive == 0) return; /* no location is valid: all slow */
  while (p <= UINT32_MAX && p * 2 <= R->maxlive) p *= 2;
  R->hmask = p > UINT32_MAX ? 0 : ~(uint32_t)(p - 1);
  for (c = 0; c < 256; c++) {
    const cg_opinfo *oi = cg_op(c);
    if (!oi->name || !(oi->flags & CG_OPF_ADOLC) ||
        (oi->flags & (CG_OPF_REJECT | CG_OPF_MARKER | CG_OPF_VARLEN | CG_OPF_PARAM)) ||
        oi->nloc < 1 || oi->nloc > AD_FAST_NL || oi->nval < 0 || oi->nval > AD_FAST_NV ||
        c == CG_OP_take_stock_op || c == CG_OP_ext_diff || c == CG_OP_vec_copy ||
        c == CG_OP_vec_dot || c == CG_OP_vec_axpy)
      continue;
    R->fast[c].nl = (uint8_t)oi->nloc;
    R->fast[c].plain = (uint8_t)cg_op_plain(c);
    R->fast[c].nv = (uint8_t)oi->nval;
    for (i = 0; i < (unsigned)oi->nloc; i++) R->fast[c].perm[i] = oi->perm[i];
    R->tmpl[c].op = c;
    R->tmpl[c].nloc = (uint32_t)oi->nloc;
    R->tmpl[c].nval = (uint32_t)oi->nval;
  }
}

/* Back to the first record (fmt 4.6: oi = 0, li = 42, vi = 0). */
static int ad_rewind(cg_reader *base, cg_error *e) {
  ad_reader *R = (ad_reader *)base;
  (void)e;
  R->oi = 0;
  R->li = AD_HDR_LOCS;
  R->vi = 0;
  R->lb = AD_HDR_LOCS / R->lbs;
  R->lend = block_end(R);
  R->vb = 0;
  R->markers = 0;
  R->done = 0;
  R->qp = R->qend = R->q;
  set_limits(R);
  return CG_OK;
}

static void ad_close(cg_reader *base) {
  ad_reader *R = (ad_reader *)base;
  cg_alloc *A = base->A;
  st_close(A, &R->ops);
  st_close(A, &R->locs);
  st_close(A, &R->vals);
  cg_free(A, R->floc, R->cap_floc * sizeof *R->floc);
  cg_free(A, R->cloc, R->cap_cloc * sizeof *R->cloc);
  cg_free(A, R->val, R->cap_val * sizeof *R->val);
  cg_free(A, base->params, (size_t)base->info.n_param * sizeof(double));
  cg_free(A, R, sizeof *R);
}

/* On-disk bytes of a record: opcode, locints, values. */
static uint64_t ad_recbytes(const cg_reader *R, const cg_rec *r) {
  (void)R;
  return 1 + 4 * (uint64_t)r->nloc + 8 * (uint64_t)r->nval;
}

int cg_adolc_debug(cg_reader *base, int fast, size_t cap) {
  ad_reader *R = (ad_reader *)(void *)base;
  if (!base || base->info.format != CG_FMT_ADOLC) return CG_EUSAGE;
  ad_stream *st[3];
  int i;
  st[0] = &R->ops, st[1] = &R->locs, st[2] = &R->vals;
  if (!fast) memset(R->fast, 0, sizeof R->fast); /* every opcode takes the slow path */
  for (i = 0; i < 3; i++) {
    if (fast == 2 && cap == 0) cap = 512; /* windows of 512 elements: many window moves */
    if (cap > 0) st[i]->cap = cap < st[i]->bufcap ? cap : st[i]->bufcap;
  }
  return CG_OK;
}

uint64_t cg_adolc_markers(const cg_reader *R) {
  if (!R || R->info.format != CG_FMT_ADOLC) return 0;
  return ((const ad_reader *)(const void *)R)->markers;
}

/* Opens the three files of the set, checks the header, reads the parameters. */
static int ad_setup(ad_reader *R, const char *path, cg_error *e) {
  int rc;
  if ((rc = derive_names(R, path, e))) return rc;
  snprintf(R->base.path, sizeof R->base.path, "%s", R->opath);
  if ((rc = st_open(R->base.A, &R->ops, R->opath, 1, 0, e)) ||
      (rc = st_open(R->base.A, &R->locs, R->lpath, 4, 0, e)) ||
      (rc = st_open(R->base.A, &R->vals, R->vpath, 8, 1, e)) || (rc = read_header(R, e)) ||
      (rc = check_sizes(R, e)) || (rc = load_info(R, e)))
    return rc;
  build_fast(R);
  return ad_rewind(&R->base, e);
}

cg_reader *cg_adolc_open(cg_alloc *A, const char *path, cg_error *e) {
  ad_reader *R;
  if (!A) A = cg_default_alloc();
  if (!path) return cg_seterr(e, CG_EUSAGE, "no path given"), NULL;
  R = (ad_reader *)cg_malloc(A, sizeof *R);
  if (!R) return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
  memset(R, 0, sizeof *R);
  R->base.next = ad_next;
  R->base.next_batch = ad_next_batch;
  R->base.next_run = ad_next_run;
  R->base.rewind = ad_rewind;
  R->base.close = ad_close;
  R->base.recbytes = ad_recbytes;
  R->base.A = A;
  if (ad_setup(R, path, e) != CG_OK) {
    ad_close(&R->base);
    return NULL;
  }
  return &R->base;
}
