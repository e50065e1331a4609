/* cg_util.c: allocator, errors, growable arrays, atomic output files. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#endif
#include "cg_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

static void *default_allocf(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, nsize);
}

static cg_alloc default_alloc = {default_allocf, NULL};

cg_alloc *cg_default_alloc(void) { return &default_alloc; }

/* Large blocks (graph pools, tapes: hundreds of MiB for 10^7 operations)
 * are first touched page by page, and on Linux a quarter of the time of a
 * graph build went into the faults of 4 KiB pages.  Asking for transparent
 * huge pages makes that 512 times fewer faults; where the kernel says no,
 * nothing changes.  Whatever allocator A is, its large blocks are mappings
 * of their own, so the advice concerns no other block. */
#define CG_HUGE_BYTES ((size_t)8 << 20)
static void *advise_large(void *p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p && n >= CG_HUGE_BYTES) {
    long pg = sysconf(_SC_PAGESIZE);
    if (pg > 0) {
      uintptr_t a = ((uintptr_t)p + (uintptr_t)pg - 1) / (uintptr_t)pg * (uintptr_t)pg;
      uintptr_t b = ((uintptr_t)p + n) / (uintptr_t)pg * (uintptr_t)pg;
      if (b > a) (void)madvise((void *)a, (size_t)(b - a), MADV_HUGEPAGE);
    }
  }
#else
  (void)n;
#endif
  return p;
}

void *cg_malloc(cg_alloc *A, size_t n) {
  if (!A) A = &default_alloc;
  if (n == 0) n = 1; /* a zero-size request still gets a distinct block */
  return advise_large(A->f(A->ud, NULL, 0, n), n);
}

/* A block asked for with size 0 has size 1 (cg_malloc): realloc and free
 * report that size back, so that an allocator keeping accounts (Lua's GC
 * debt, the tests' counting allocators) balances. */
void *cg_realloc(cg_alloc *A, void *p, size_t osize, size_t nsize) {
  if (!A) A = &default_alloc;
  if (nsize == 0) nsize = 1;
  if (p && osize == 0) osize = 1;
  return advise_large(A->f(A->ud, p, p ? osize : 0, nsize), nsize);
}

void cg_free(cg_alloc *A, void *p, size_t n) {
  if (!A) A = &default_alloc;
  if (n == 0) n = 1;
  if (p) A->f(A->ud, p, n, 0);
}

void *cg_malloc_n(cg_alloc *A, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL; /* the byte count would wrap */
  return cg_malloc(A, n * size);
}

void *cg_realloc_n(cg_alloc *A, void *p, size_t on, size_t nn, size_t size) {
  if (size && nn > SIZE_MAX / size) return NULL;
  return cg_realloc(A, p, on * size, nn * size);
}

void *cg_budget_allocf(void *ud, void *ptr, size_t osize, size_t nsize) {
  cg_budget *b = (cg_budget *)ud;
  size_t old = ptr ? osize : 0, grow = nsize > old ? nsize - old : 0;
  void *p;
  if (grow && b->limit && (grow > b->limit || b->used > b->limit - grow)) {
    b->hit = 1; /* the caller's failure is the limit's, not the system's */
    return NULL;
  }
  p = b->base.f(b->base.ud, ptr, osize, nsize);
  if (nsize == 0 || p) b->used = (b->used > old ? b->used - old : 0) + nsize;
  return p;
}

void cg_budget_init(cg_budget *b, cg_alloc base, size_t limit, cg_alloc *A) {
  b->base = base;
  b->used = 0;
  b->limit = limit;
  b->hit = 0;
  b->progress.fn = NULL, b->progress.ud = NULL;
  if (A) A->f = cg_budget_allocf, A->ud = b;
}

/* cg_progress_at's work, out of line: the loops that report keep their
 * registers (callgrind: an inlined hook test cost up to 1% of a build). */
void cg_progress_report(const cg_alloc *A, const char *what, uint64_t done, uint64_t total) {
  const cg_budget *b = cg_budget_of(A);
  if (b && b->progress.fn) b->progress.fn(b->progress.ud, what, done, total);
}

void cg_budget_stop(const cg_alloc *A) {
  cg_budget *b = cg_budget_of(A);
  if (b) b->hit = 1;
}

void cg_fmt_bytes(char *buf, size_t size, double bytes) {
  static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes >= 1024.0) bytes /= 1024.0, u++;
  snprintf(buf, size, "%.4g %s", bytes, unit[u]);
}

int cg_reserve(cg_alloc *A, void **arr, size_t *cap, size_t need, size_t elsize) {
  size_t ncap;
  void *p;
  if (need <= *cap) return CG_OK;
  ncap = *cap ? *cap : 16;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2) return CG_ENOMEM;
    ncap *= 2;
  }
  if (ncap > SIZE_MAX / elsize) return CG_ENOMEM;
  p = cg_realloc(A, *arr, *cap * elsize, ncap * elsize);
  if (!p) return CG_ENOMEM;
  *arr = p;
  *cap = ncap;
  return CG_OK;
}

/* One pass of cg_sort: the runs of w elements of src merged in pairs into
 * dst (on a tie the left run's first: stable). */
static void merge_pass(const char *src, char *dst, size_t n, size_t size, size_t w, cg_cmpf cmp, void *ctx) {
  size_t lo, mid, hi, i, j, k;
  for (lo = 0; lo < n; lo = hi) {
    mid = w < n - lo ? lo + w : n;
    hi = w < n - mid ? mid + w : n;
    for (i = lo, j = mid, k = lo; i < mid && j < hi; k++) {
      const char *take = cmp(ctx, src + j * size, src + i * size) < 0 ? src + j++ * size : src + i++ * size;
      memcpy(dst + k * size, take, size);
    }
    if (i < mid) memcpy(dst + k * size, src + i * size, (mid - i) * size);
    else if (j < hi) memcpy(dst + k * size, src + j * size, (hi - j) * size);
  }
}

int cg_sort(cg_alloc *A, void *base, size_t n, size_t size, cg_cmpf cmp, void *ctx) {
  char *a = (char *)base, *b, *src, *dst, *t;
  size_t w;
  if (n < 2 || size == 0) return CG_OK;
  if (n > SIZE_MAX / 2 || !(b = (char *)cg_malloc_n(A, n, size))) return CG_ENOMEM;
  src = a, dst = b;
  for (w = 1; w < n; w *= 2) { /* w < n <= SIZE_MAX / 2: no wrap */
    merge_pass(src, dst, n, size, w, cmp, ctx);
    t = src, src = dst, dst = t;
  }
  if (src != a) memcpy(a, src, n * size);
  cg_free(A, b, n * size);
  return CG_OK;
}

int cg_seterr(cg_error *e, int code, const char *fmt, ...) {
  va_list ap;
  if (!e) return code;
  e->code = code;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return code;
}

const char *cg_basename(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* Is the link `path` one of an open descriptor's (/dev/stdout ->
 * /proc/self/fd/1, /dev/fd/N, /proc/self/fd/N)?  Its file is one a process
 * has open, `cgwb ... -o /dev/stdout > log` say: a rename would put a new
 * file in the place of log, and the shell's output would go on into the
 * old one, unlinked.  Such a link is written through, in place. */
static int fd_link(const char *path) {
  char text[16], dir[4096], *slash, *real;
  ssize_t n = readlink(path, text, sizeof text);
  int proc;
  if (n >= 6 && memcmp(text, "/proc/", 6) == 0) return 1;
  if (strlen(path) >= sizeof dir) return 1; /* cannot tell: in place is the safe side */
  strcpy(dir, path);
  if ((slash = strrchr(dir, '/')) == NULL) return 0; /* in the working directory */
  slash[slash == dir] = '\0'; /* "/x" -> "/" */
  if ((real = realpath(dir, NULL)) == NULL) return 1;
  proc = strncmp(real, "/proc/", 6) == 0;
  free(real);
  return proc;
}

/* Where the temporary file goes: `path` itself when it is absent or a
 * regular file; the file a symbolic link names when that is a regular
 * file (renaming over the link would replace the link, not its file); NULL
 * (write in place) for everything else: a device such as /dev/stdout, a
 * pipe, a dangling link, where a rename would put a regular file in the
 * place of the device.  *resolved is the realpath() block to free. */
static const char *rename_target(const char *path, char **resolved) {
  struct stat st;
  *resolved = NULL;
  if (lstat(path, &st) != 0) return errno == ENOENT ? path : NULL;
  if (S_ISREG(st.st_mode)) return path;
  if (!S_ISLNK(st.st_mode) || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || fd_link(path))
    return NULL;
  return (*resolved = realpath(path, NULL));
}

int cg_open_out(cg_outfile *o, const char *path, cg_error *e) {
  char *resolved;
  const char *target;
  int n;
  if (strlen(path) >= sizeof o->path) return cg_seterr(e, CG_EUSAGE, "%s: path too long", path);
  strcpy(o->path, path);
  o->direct = (target = rename_target(path, &resolved)) == NULL;
  if (o->direct) { /* no rename: an error midway may leave part of the output there */
    o->tmp[0] = '\0';
    o->fp = fopen(path, "wb");
  } else {
    n = snprintf(o->tmp, sizeof o->tmp, "%s.tmp%ld", target, (long)getpid());
    if (n >= 0 && (size_t)n < sizeof o->tmp) strcpy(o->target, target); /* shorter than tmp */
    free(resolved);
    if (n < 0 || (size_t)n >= sizeof o->tmp) return cg_seterr(e, CG_EUSAGE, "%s: path too long", path);
    o->fp = fopen(o->tmp, "wb");
  }
  if (!o->fp) return cg_seterr(e, CG_EIO, "%s: cannot open: %s", path, strerror(errno));
  return CG_OK;
}

int cg_commit_file(cg_outfile *o, cg_error *e) {
  int bad = ferror(o->fp);
  if (fclose(o->fp) != 0) bad = 1;
  o->fp = NULL;
  if (bad) {
    if (!o->direct) remove(o->tmp);
    return cg_seterr(e, CG_EIO, "%s: write failed", o->path);
  }
  if (!o->direct && rename(o->tmp, o->target) != 0) {
    int err = errno;
    remove(o->tmp);
    return cg_seterr(e, CG_EIO, "%s: cannot rename into place: %s", o->path, strerror(err));
  }
  return CG_OK;
}

void cg_abort_file(cg_outfile *o) {
  if (o->fp) fclose(o->fp);
  o->fp = NULL;
  if (!o->direct) remove(o->tmp);
}
