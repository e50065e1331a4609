/* cg_mtx.c: the Matrix Market writer (see cg_mtx.h). */
#include <errno.h>
#include <string.h>

#include "../util/cg_fmt.h"
#include "cg_mtx.h"

#define MTX_BUF 65536
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
 * distinct ones), and a copy costs less than formatting again. */
#define MTX_CACHE 256
typedef struct mtx_cache {
  uint64_t bits[MTX_CACHE];
  unsigned char len[MTX_CACHE]; /* 0: empty */
  char txt[MTX_CACHE][CG_FMT_G17_SIZE];
} mtx_cache;

/* Writes v as "%.17g" at p (CG_FMT_G17_SIZE bytes of room); returns the end. */
static char *value(mtx_cache *c, char *p, double v) {
  uint64_t b;
  unsigned h;
  memcpy(&b, &v, sizeof b);
  h = (unsigned)((b * UINT64_C(0x9e3779b97f4a7c15)) >> 56); /* MTX_CACHE = 2^8 */
  if (!c->len[h] || c->bits[h] != b)
    c->bits[h] = b, c->len[h] = (unsigned char)cg_fmt_g17(c->txt[h], v);
  memcpy(p, c->txt[h], CG_FMT_G17_SIZE); /* fixed size: no call */
  return p + c->len[h];
}

/* Formats "a b " at p; returns the end. */
static char *pair(char *p, uint64_t a, uint64_t b) {
  p = cg_fmt_u64(p, a);
  *p++ = ' ';
  p = cg_fmt_u64(p, b);
  *p++ = ' ';
  return p;
}

int cg_jac_write_mtx_fp(const cg_jac *J, FILE *fp) {
  char buf[MTX_BUF], *p = buf, row[16] = "";
  size_t nrow = 0;
  uint64_t i;
  mtx_cache c;
  if (!J || !fp) return CG_EUSAGE;
  memset(&c, 0, sizeof c);
  memcpy(p, MTX_HEAD, sizeof MTX_HEAD - 1), p += sizeof MTX_HEAD - 1;
  p = pair(p, J->m, J->n);
  p = cg_fmt_u64(p, J->nnz);
  *p++ = '\n';
  for (i = 0; i < J->nnz; i++) {
    if (p > buf + MTX_BUF - MTX_LINE) {
      if (put(fp, buf, (size_t)(p - buf))) return CG_EIO;
      p = buf;
    }
    if (!i || J->row[i] != J->row[i - 1]) { /* rows repeat: "row " formatted once */
      char *q = cg_fmt_u64(row, J->row[i] + (uint64_t)1);
      *q++ = ' ';
      nrow = (size_t)(q - row);
    }
    memcpy(p, row, sizeof row), p += nrow; /* fixed size: no call */
    p = cg_fmt_u64(p, J->col[i] + (uint64_t)1);
    *p++ = ' ';
    p = value(&c, p, J->val[i]);
    *p++ = '\n';
  }
  if (put(fp, buf, (size_t)(p - buf))) return CG_EIO;
  return ferror(fp) ? CG_EIO : CG_OK;
}

int cg_jac_write_mtx(const cg_jac *J, const char *path, cg_error *e) {
  cg_outfile o;
  int rc;
  if (!J || !path) return cg_seterr(e, CG_EUSAGE, "write_mtx: no Jacobian or no path");
  if ((rc = cg_open_out(&o, path, e))) return rc;
  if (cg_jac_write_mtx_fp(J, o.fp)) {
    int err = errno;
    cg_abort_file(&o);
    return cg_seterr(e, CG_EIO, "%s: write failed: %s", path, strerror(err));
  }
  return cg_commit_file(&o, e);
}
