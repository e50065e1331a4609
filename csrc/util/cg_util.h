/*
 * cg_util.h: the allocator, error reporting and growable arrays shared by the
 * whole C core.  Nothing here knows about Lua.
 *
 * Every allocation of the core goes through one function with the lua_Alloc
 * signature, the cg_alloc its caller passes (doc/hacking.md, "The floors of
 * the core"), so that the binding can hand in the Lua state's allocator and
 * tests can make the k-th allocation fail.
 */
#ifndef CG_UTIL_H
#define CG_UTIL_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Status codes returned by every fallible core function.  Negative = error. */
enum {
  CG_OK = 0,
  CG_EIO = -1,      /* cannot open/read/write a file */
  CG_EFORMAT = -2,  /* bad input: corrupt or unsupported data (exit 2) */
  CG_ENOMEM = -3,   /* an allocation failed */
  CG_EUSAGE = -4,   /* bad argument from the caller (exit 2) */
  CG_EBRANCH = -5,  /* evaluation left the recorded branch (exit 3) */
  CG_ERUNTIME = -6  /* anything else (exit 1) */
};

/* The allocator: f(ud, ptr, osize, nsize) as lua_Alloc.  nsize == 0 frees. */
typedef void *(*cg_allocf)(void *ud, void *ptr, size_t osize, size_t nsize);
typedef struct cg_alloc {
  cg_allocf f;
  void *ud;
} cg_alloc;

/* An error: a status code and a one-line message naming file and position. */
typedef struct cg_error {
  int code;
  char msg[512];
} cg_error;

/* The default allocator (realloc/free). */
cg_alloc *cg_default_alloc(void);

/* A NULL allocator means the default one. */
void *cg_malloc(cg_alloc *A, size_t n);
void *cg_realloc(cg_alloc *A, void *p, size_t osize, size_t nsize);
void cg_free(cg_alloc *A, void *p, size_t n);

/* Typed allocation, the way the core allocates arrays: CG_NEW gives an
 * array of n elements of type T (n may be 0: a valid block, as cg_malloc
 * gives one for size 0), NULL when memory runs out or n * sizeof(T)
 * overflows; CG_RENEW resizes one of on elements to nn (NULL: unchanged);
 * CG_FREE frees one of n elements (NULL is fine).  Allocate and free an
 * array with the same n: the sizes reach the allocator as counted. */
#define CG_NEW(A, T, n) ((T *)cg_malloc_n((A), (size_t)(n), sizeof(T)))
#define CG_RENEW(A, p, T, on, nn) \
  ((T *)cg_realloc_n((A), (p), (size_t)(on), (size_t)(nn), sizeof(T)))
#define CG_FREE(A, p, T, n) cg_free((A), (p), (size_t)(n) * sizeof(T))
void *cg_malloc_n(cg_alloc *A, size_t n, size_t size);
void *cg_realloc_n(cg_alloc *A, void *p, size_t on, size_t nn, size_t size);

/* A byte budget over another allocator (the Lua binding's memory limit,
 * CGWB_MEMORY_LIMIT): it counts the bytes of the blocks it hands out and
 * refuses (returns NULL for) a request that would take that count past
 * limit; frees and shrinks always pass.  hit records that the limit stopped
 * something (a refused request, or a step that would pass it,
 * cg_budget_stop) until the caller clears it, so a message can say which
 * limit was reached.  Requests with ptr NULL must have osize 0 (cg_malloc
 * and cg_realloc pass 0). */
/* Progress of long work: fn(ud, what, done, total) is called by the core's
 * long loops every 2^14..2^16 units (CG_PROGRESS_MASK), with `what` a static
 * string naming the work ("reading tape", "building graph", "linearizing",
 * "eliminating", ...), done counting up and total 0 when unknown; the last
 * call of a piece of work has done == total (its end: cg_progress_end), so
 * work of unknown total makes its first report at done > 0.  The callee
 * throttles by time; it must not longjmp (no Lua error) nor call Lua: it
 * runs inside core code.  A zeroed cg_progress is none. */
typedef void (*cg_progressf)(void *ud, const char *what, uint64_t done, uint64_t total);
typedef struct cg_progress {
  cg_progressf fn;
  void *ud;
} cg_progress;
#define CG_PROGRESS_MASK 0xffffu /* a loop reports when (i & mask) == 0 */

typedef struct cg_budget {
  cg_alloc base;      /* the allocator counted */
  size_t used, limit; /* bytes in blocks handed out; limit 0: none */
  int hit;
  cg_progress progress; /* the progress hook of the work done with it (zeroed: none) */
} cg_budget;
void *cg_budget_allocf(void *ud, void *ptr, size_t osize, size_t nsize);
/* A budget of `limit` bytes (0: none) over base; A (may be NULL) gets the
 * allocator to hand to core functions. */
void cg_budget_init(cg_budget *b, cg_alloc base, size_t limit, cg_alloc *A);
/* The budget behind A, or NULL when A is none: O(1), for checks per step. */
static inline cg_budget *cg_budget_of(const cg_alloc *A) {
  return A && A->f == cg_budget_allocf ? (cg_budget *)A->ud : NULL;
}
/* The limit of A's budget (0: none, or no budget). */
static inline size_t cg_alloc_limit(const cg_alloc *A) {
  const cg_budget *b = cg_budget_of(A);
  return b ? b->limit : 0;
}
/* Reports progress to A's budget's hook (a no-op when A has no budget or
 * the budget no hook).  Callers test a loop counter against
 * CG_PROGRESS_MASK first, so the cost when off is a mask test, then this
 * pointer test. */
void cg_progress_report(const cg_alloc *A, const char *what, uint64_t done, uint64_t total)
#if defined(__GNUC__)
    __attribute__((cold, noinline)) /* out of the hot loops that call it */
#endif
    ;
static inline void cg_progress_at(const cg_alloc *A, const char *what, uint64_t done,
                                  uint64_t total) {
  if (A) cg_progress_report(A, what, done, total);
}
/* Whether A's budget has a progress hook (to skip counting a total). */
static inline int cg_progress_on(const cg_alloc *A) {
  const cg_budget *b = cg_budget_of(A);
  return b && b->progress.fn;
}
/* The end of a piece of work of n units: cg_progress_at with done == total. */
static inline void cg_progress_end(const cg_alloc *A, const char *what, uint64_t n) {
  cg_progress_at(A, what, n, n);
}
/* Records that a step stopped because it would pass A's limit (a no-op
 * without a budget). */
void cg_budget_stop(const cg_alloc *A);
/* Formats a byte count for messages: "500 MiB", "1.5 GiB", "64 KiB", "100 bytes". */
void cg_fmt_bytes(char *buf, size_t size, double bytes);

/* Makes room for at least `need` elements of `elsize` bytes in *arr (capacity
 * *cap, grown geometrically with an overflow check).  On failure the array is
 * unchanged and CG_ENOMEM is returned. */
int cg_reserve(cg_alloc *A, void **arr, size_t *cap, size_t need, size_t elsize);

/* Sorts the n elements of `size` bytes at base by cmp(ctx, a, b) (< 0, 0,
 * > 0), stably: a merge sort whose workspace (as large as the array) comes
 * from A.  The core sorts what may be large through it, not qsort, whose
 * workspace comes from malloc, outside A and its budget (glibc's qsort
 * merges through a malloc'd copy of the array).  At most n log2 n
 * comparisons.  CG_ENOMEM, the array unchanged, when the workspace cannot
 * be had. */
typedef int (*cg_cmpf)(void *ctx, const void *a, const void *b);
int cg_sort(cg_alloc *A, void *base, size_t n, size_t size, cg_cmpf cmp, void *ctx);

/* Records an error (printf-style) and returns its code. */
int cg_seterr(cg_error *e, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The base name of a path, for messages. */
const char *cg_basename(const char *path);

/* Opens `path` for writing under a temporary name beside it; cg_commit_file
 * renames it into place, cg_abort_file removes it.  An error midway thus never
 * leaves a truncated output file.  A symbolic link to a regular file gets
 * its file replaced (the link stays); a path that is neither a regular file
 * nor absent (/dev/stdout, a pipe, a device) is written in place (direct),
 * since renaming would replace the device by a regular file. */
typedef struct cg_outfile {
  FILE *fp;
  int direct;         /* written in place: no temporary, no rename */
  char tmp[4096];     /* the temporary file (not direct) */
  char target[4096];  /* what the temporary is renamed to: path, or the file its link names */
  char path[4096];    /* as given, for messages */
} cg_outfile;
int cg_open_out(cg_outfile *o, const char *path, cg_error *e);
int cg_commit_file(cg_outfile *o, cg_error *e);
void cg_abort_file(cg_outfile *o);

/* What an evaluation found about branches (like ADOL-C's return codes); here
 * rather than in tape/ since graphs report them too and must not include the
 * tape's header. */
typedef struct cg_branch {
  uint64_t count;       /* records whose outcome differs from taping time */
  uint64_t first;       /* index of the first one */
  unsigned first_op;
} cg_branch;

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
