/* cg_reader.c: the reader interface: format detection (cg_reader_open
 * picks the format's reader from the file's name and first bytes) and the
 * calls through a reader's vtable.  It calls the format readers' openers
 * (cg_adolc.c, cg_classic.c, cg_text.c); they never call it. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cg_reader_impl.h"
#include "cg_tape.h"

/* True if the first n bytes (all of the file when n < 80) are the 8
 * ten-byte ASCII integers of a classic tape's header (Bischof & Hu 1991,
 * sec. 1.3), or the start of them: a file cut inside its header is still
 * a classic tape, and so reported, since no text tape starts with a digit. */
static int looks_classic(const unsigned char *b, size_t n) {
  size_t f, i;
  for (f = 0; f < 8 && f * 10 < n; f++) {
    int digits = 0;
    for (i = 0; i < 10 && f * 10 + i < n; i++) {
      unsigned char c = b[f * 10 + i];
      if (c == ' ' && !digits) continue;
      if (c >= '0' && c <= '9') digits++;
      else return 0;
    }
    if (!digits && f * 10 + 10 <= n) return 0; /* a whole field of blanks */
  }
  return n > 0; /* blanks only, under 80 bytes: the start of the first field */
}

/* True if the bytes cannot start a text tape (control bytes other than
 * white space; UTF-8 in comments is fine): then it must be a classic tape. */
static int looks_binary(const unsigned char *b, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if ((b[i] < 32 && b[i] != '\t' && b[i] != '\n' && b[i] != '\r') || b[i] == 127) return 1;
  return 0;
}

static int is_adolc_name(const char *path) {
  const char *b = cg_basename(path);
  return strncmp(b, "ADOLC-", 6) == 0;
}

cg_reader *cg_reader_open(cg_alloc *A, const char *path, cg_error *e) {
  struct stat st;
  unsigned char head[80];
  size_t n;
  FILE *fp;
  if (!A) A = cg_default_alloc();
  if (stat(path, &st) != 0)
    return cg_seterr(e, CG_EIO, "%s: cannot open: %s", path, strerror(errno)), NULL;
  if (S_ISDIR(st.st_mode))
    return cg_seterr(e, CG_EFORMAT, "%s: cannot open: %s", path, strerror(EISDIR)), NULL;
  if (is_adolc_name(path)) return cg_adolc_open(A, path, e);
  fp = fopen(path, "rb");
  if (!fp) return cg_seterr(e, CG_EIO, "%s: cannot open: %s", path, strerror(errno)), NULL;
  n = fread(head, 1, sizeof head, fp);
  fclose(fp);
  if (n == 0) /* a pipe may say size 0 and hold bytes: what was read decides */
    return cg_seterr(e, CG_EFORMAT, "%s: empty file, not a tape", path), NULL;
  if (looks_classic(head, n) || looks_binary(head, n)) return cg_classic_open(A, path, e);
  return cg_text_open(A, path, NULL, 0, e);
}

int cg_reader_next(cg_reader *R, cg_rec *r, cg_error *e) { return R->next(R, r, e); }
int cg_reader_next_run(cg_reader *R, cg_run *u, cg_error *e) { return cg_reader_run_of(R, u, e); }

int cg_reader_next_batch(cg_reader *R, cg_rec *r, int max, cg_error *e) {
  if (max < 1) return cg_seterr(e, CG_EUSAGE, "batch of %d records", max);
  return cg_reader_batch_of(R, r, max, e);
}
int cg_reader_rewind(cg_reader *R, cg_error *e) { return R->rewind(R, e); }
const cg_tapeinfo *cg_reader_info(const cg_reader *R) { return &R->info; }
const double *cg_reader_x0(const cg_reader *R) { return R->x0; }
const double *cg_reader_params(const cg_reader *R) { return R->params; }
const char *cg_reader_path(const cg_reader *R) { return R->path; }
uint64_t cg_reader_recbytes(const cg_reader *R, const cg_rec *r) { return R->recbytes(R, r); }
void cg_reader_close(cg_reader *R) {
  if (R) R->close(R);
}
