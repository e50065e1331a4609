/* cg_mtx.c: the Matrix Market writer (see cg_mtx.h). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* fallocate: a hint to the file system (mtx_reserve) */
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <fcntl.h>
#endif

#include "../util/cg_fmt.h"
#include "cg_mtx.h"

#define MTX_BUF 16384       /* the stack buffer when the heap has no room */
#define MTX_BIG (1ul << 20) /* the largest heap buffer (at most 2^20 / 2^18 write calls) */
#define MTX_LINE 64 /* room kept for a line: its fixed-size copies reach
                    * 11 + 11 + 32 bytes; the longest line is 47 bytes,
                    * "4294967295 4294967295 -1.2345678901234567e-308\n" */

static const char MTX_HEAD[] = "%%MatrixMarket matrix coordinate real general\n";

/* Writes n bytes of b; CG_EIO if the stream takes fewer. */
static int put(FILE *fp, const char *b, size_t n) {
  return fwrite(b, 1, n, fp) == n ? CG_OK : CG_EIO;
}

/* The last values formatted, by a hash of their bits: Jacobians of
 * structured problems repeat values (bratu's 15760 entries hold 238
 * distinct ones), and a copy costs less than formatting again.  Two ways
 * per set, the newer first: bratu's values then miss 239 times (once each
 * and one conflict), where 256 sets of one way missed 2231 times. */
#define MTX_SETS 512
typedef struct mtx_cache {
  uint64_t bits[MTX_SETS][2];
  unsigned char len[MTX_SETS][2]; /* each entry "0" at first (pos_init) */
  char txt[MTX_SETS][2][CG_FMT_G17_SIZE];
} mtx_cache;

/* Where a write is: the next entry, its row's "row " text, the cache. */
typedef struct mtx_pos {
  uint64_t i;
  int head; /* the header is still to be written */
  size_t nrow;
  char row[16];
  mtx_cache c;
} mtx_pos;

/* Writes v as "%.17g" at p (CG_FMT_G17_SIZE bytes of room); returns the end. */
static char *value(mtx_cache *c, char *p, double v) {
  uint64_t b;
  unsigned h, w;
  memcpy(&b, &v, sizeof b);
  h = (unsigned)((b * UINT64_C(0x9e3779b97f4a7c15)) >> 55); /* MTX_SETS = 2^9 */
  if (c->bits[h][0] == b) w = 0;
  else if (c->bits[h][1] == b) w = 1;
  else { /* the newer way moves to the older one's place */
    c->bits[h][1] = c->bits[h][0], c->len[h][1] = c->len[h][0];
    memcpy(c->txt[h][1], c->txt[h][0], CG_FMT_G17_SIZE);
    c->bits[h][0] = b, c->len[h][0] = (unsigned char)cg_fmt_g17(c->txt[h][0], v);
    w = 0;
  }
  memcpy(p, c->txt[h][w], CG_FMT_G17_SIZE); /* fixed size: no call */
  return p + c->len[h][w];
}

/* Formats "a b " at p; returns the end. */
static char *pair(char *p, uint64_t a, uint64_t b) {
  p = cg_fmt_u64(p, a);
  *p++ = ' ';
  p = cg_fmt_u64(p, b);
  *p++ = ' ';
  return p;
}

/* Every entry of the cache holds 0 ("0", bits all zero) at first, so a
 * lookup compares bits alone, with no test for an empty entry. */
static void pos_init(mtx_pos *s) {
  unsigned h;
  s->i = 0, s->head = 1, s->nrow = 0;
  memset(s->row, 0, sizeof s->row);
  memset(s->c.bits, 0, sizeof s->c.bits);
  memset(s->c.len, 1, sizeof s->c.len);
  for (h = 0; h < MTX_SETS; h++) memcpy(s->c.txt[h][0], "0", 2), memcpy(s->c.txt[h][1], "0", 2);
}

/* Formats the header and entries from s into buf (cap >= 2 MTX_LINE bytes)
 * while a line surely fits; returns the bytes written (0: all done).  J's
 * arrays and the row text in locals: the char stores may alias anything,
 * so fields would be reloaded after each. */
static size_t fill(const cg_jac *J, mtx_pos *s, char *buf, size_t cap) {
  char *p = buf, *end = buf + cap - MTX_LINE, row[16];
  const uint32_t *jr = J->row, *jc = J->col;
  const double *jv = J->val;
  uint64_t i = s->i, nnz = J->nnz;
  size_t nrow = s->nrow;
  mtx_cache *c = &s->c;
  memcpy(row, s->row, sizeof row);
  if (s->head) {
    memcpy(p, MTX_HEAD, sizeof MTX_HEAD - 1), p += sizeof MTX_HEAD - 1;
    p = pair(p, J->m, J->n);
    p = cg_fmt_u64(p, J->nnz);
    *p++ = '\n';
    s->head = 0;
  }
  for (; i < nnz && p <= end; i++) {
    if (!i || jr[i] != jr[i - 1]) { /* rows repeat: "row " formatted once */
      char *q = cg_fmt_u64(row, jr[i] + (uint64_t)1);
      *q++ = ' ';
      nrow = (size_t)(q - row);
    }
    memcpy(p, row, sizeof row), p += nrow; /* fixed size: no call */
    p = cg_fmt_u64(p, jc[i] + (uint64_t)1);
    *p++ = ' ';
    p = value(c, p, jv[i]);
    *p++ = '\n';
  }
  memcpy(s->row, row, sizeof row);
  s->i = i, s->nrow = nrow;
  return (size_t)(p - buf);
}

/* Allocates the n bytes at offset off of a file about to be written there,
 * where the system can: with ext4's delayed allocation the write then
 * takes half the time (the blocks are not reserved page by page), and
 * renaming the file over an existing one does not flush it.  Only a hint:
 * a failure (no such call, a file system without it) changes nothing,
 * and the write then reports what matters (no emulation by writing zeros
 * as glibc's posix_fallocate does). */
static void mtx_reserve(FILE *fp, uint64_t off, size_t n) {
#if defined(__linux__)
  int fd = fileno(fp);
  if (fd >= 0 && n && (sizeof(off_t) >= 8 || off + n <= 0x7fffffff)) /* offsets that fit */
    (void)fallocate(fd, 0, (off_t)off, (off_t)n);
#else
  (void)fp, (void)off, (void)n;
#endif
}

/* Writes J to fp in chunks formatted into a heap buffer large enough for
 * most Jacobians at once (a write call costs microseconds, so fewer is
 * better), each reserved first when `reserve` (mtx_reserve); a stack
 * buffer serves when the heap has no room. */
static int write_chunks(const cg_jac *J, FILE *fp, int reserve) {
  uint64_t bound = (uint64_t)J->nnz * 47 + 128, off = 0; /* lines of at most 47 bytes */
  size_t cap = bound < MTX_BIG ? (size_t)bound : MTX_BIG, n;
  char *heap = (char *)cg_malloc(NULL, sizeof(mtx_pos) + cap), *buf;
  char small[MTX_BUF];
  mtx_pos spos, *s = heap ? (mtx_pos *)(void *)heap : &spos; /* malloc aligns for any type */
  int rc = CG_OK;
  buf = heap ? heap + sizeof(mtx_pos) : small;
  if (!heap) cap = sizeof small;
  pos_init(s);
  while (!rc && (n = fill(J, s, buf, cap)) != 0) {
    if (reserve) mtx_reserve(fp, off, n);
    off += n;
    rc = put(fp, buf, n);
  }
  cg_free(NULL, heap, sizeof(mtx_pos) + cap);
  return rc || ferror(fp) ? CG_EIO : CG_OK;
}

int cg_jac_write_mtx_fp(const cg_jac *J, FILE *fp) {
  if (!J || !fp) return CG_EUSAGE;
  return write_chunks(J, fp, 0);
}

int cg_jac_write_mtx(const cg_jac *J, const char *path, cg_error *e) {
  cg_outfile o;
  int rc;
  if (!J || !path) return cg_seterr(e, CG_EUSAGE, "write_mtx: no Jacobian or no path");
  if ((rc = cg_open_out(&o, path, e))) return rc;
  setvbuf(o.fp, NULL, _IONBF, 0); /* each chunk one write call, not 4 KiB copies and two calls */
  if (write_chunks(J, o.fp, 1)) {
    int err = errno;
    cg_abort_file(&o);
    return cg_seterr(e, CG_EIO, "%s: write failed: %s", path, strerror(err));
  }
  return cg_commit_file(&o, e);
}
