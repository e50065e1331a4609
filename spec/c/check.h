/* check.h: what the C unit tests share: a CHECK macro that counts, the
 * closing "N passed, N failed" line, an allocator that fails at the k-th
 * request and counts live bytes (every allocation of the core goes through
 * the allocator its caller passes: doc/hacking.md), and tapes from text. */
#ifndef CG_SPEC_CHECK_H
#define CG_SPEC_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tape/cg_tape.h"

#if defined(__GNUC__)
#define CHECK_UNUSED __attribute__((unused))
#else
#define CHECK_UNUSED
#endif

static int passed, failed;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (cond) passed++;                                                          \
    else {                                                                       \
      failed++;                                                                  \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);  \
    }                                                                            \
  } while (0)

/* Prints the closing line; the exit status for main. */
CHECK_UNUSED static int check_report(const char *name) {
  printf("%s: %d passed, %d failed\n", name, passed, failed);
  return failed != 0;
}

/* Fails the fail_at-th request (0: never); live = bytes still allocated. */
typedef struct counting {
  long calls, fail_at;
  long long live;
} counting;

CHECK_UNUSED static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  counting *c = (counting *)ud;
  if (nsize == 0) {
    if (ptr) c->live -= (long long)osize;
    free(ptr);
    return NULL;
  }
  if (++c->calls == c->fail_at) return NULL;
  ptr = realloc(ptr, nsize);
  if (ptr) c->live += (long long)nsize - (long long)osize;
  return ptr;
}

/* A tape from a text tape held in memory (name: for messages); NULL and e
 * on an error. */
CHECK_UNUSED static cg_tape *check_tape_text(cg_alloc *A, const char *name, const char *text,
                                             cg_error *e) {
  cg_reader *R = cg_text_open(A, name, text, strlen(text), e);
  cg_tape *t;
  if (!R) return NULL;
  t = cg_tape_from_reader(A, R, e);
  cg_reader_close(R);
  return t;
}

#endif
