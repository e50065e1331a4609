/* cg_cand.c: the candidate priority queue of cg_cand.h (a binary heap with
 * positions, so keys can change in place). */
#include <string.h>

#include "cg_cand.h"

#define NONE UINT32_MAX

void cg_cand_init(cg_cand *C, cg_alloc *A, int nk, cg_cand_tie tie, const void *ud) {
  memset(C, 0, sizeof *C);
  C->A = A, C->nk = nk > 0 ? nk : 1, C->tie = tie, C->ud = ud;
}

void cg_cand_free(cg_cand *C) {
  cg_free(C->A, C->key, C->cap * (size_t)C->nk * sizeof(double));
  cg_free(C->A, C->heap, C->cap * 4);
  cg_free(C->A, C->pos, C->cap * 4);
  memset(C, 0, sizeof *C);
}

/* Grows all three arrays or none (new blocks, copied), so that a failure
 * leaves each array at the size cg_cand_free will report for it. */
int cg_cand_reserve(cg_cand *C, size_t n) {
  size_t nc = C->cap ? C->cap : 64, k = (size_t)C->nk;
  double *a;
  uint32_t *b, *d;
  if (n <= C->cap) return CG_OK;
  while (nc < n) {
    if (nc > ((size_t)NONE) / 2) return CG_ENOMEM;
    nc *= 2;
  }
  a = (double *)cg_malloc(C->A, nc * k * sizeof(double));
  b = (uint32_t *)cg_malloc(C->A, nc * 4);
  d = (uint32_t *)cg_malloc(C->A, nc * 4);
  if (!a || !b || !d) {
    cg_free(C->A, a, nc * k * sizeof(double));
    cg_free(C->A, b, nc * 4);
    cg_free(C->A, d, nc * 4);
    return CG_ENOMEM;
  }
  if (C->cap) {
    memcpy(a, C->key, C->cap * k * sizeof(double));
    memcpy(b, C->heap, C->nheap * 4);
    memcpy(d, C->pos, C->cap * 4);
  }
  memset(d + C->cap, 0xff, (nc - C->cap) * 4);
  cg_free(C->A, C->key, C->cap * k * sizeof(double));
  cg_free(C->A, C->heap, C->cap * 4);
  cg_free(C->A, C->pos, C->cap * 4);
  C->key = a, C->heap = b, C->pos = d;
  C->cap = nc;
  return CG_OK;
}

/* a before b? */
static int before(const cg_cand *C, uint32_t a, uint32_t b) {
  const double *ka = C->key + (size_t)a * C->nk, *kb = C->key + (size_t)b * C->nk;
  int r;
  for (r = 0; r < C->nk; r++)
    if (ka[r] != kb[r]) return ka[r] < kb[r];
  return C->tie(C->ud, a, b);
}

static void put(cg_cand *C, size_t i, uint32_t id) {
  C->heap[i] = id;
  C->pos[id] = (uint32_t)i;
}

static void sift_up(cg_cand *C, size_t i) {
  uint32_t id = C->heap[i];
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!before(C, id, C->heap[p])) break;
    put(C, i, C->heap[p]);
    i = p;
  }
  put(C, i, id);
}

static void sift_down(cg_cand *C, size_t i) {
  uint32_t id = C->heap[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= C->nheap) break;
    if (c + 1 < C->nheap && before(C, C->heap[c + 1], C->heap[c])) c++;
    if (!before(C, C->heap[c], id)) break;
    put(C, i, C->heap[c]);
    i = c;
  }
  put(C, i, id);
}

void cg_cand_set(cg_cand *C, uint32_t id, const double *keys) {
  memcpy(C->key + (size_t)id * C->nk, keys, (size_t)C->nk * sizeof(double));
  if (C->pos[id] == NONE) {
    put(C, C->nheap++, id);
    sift_up(C, C->nheap - 1);
  } else {
    sift_up(C, C->pos[id]);
    sift_down(C, C->pos[id]);
  }
}

void cg_cand_del(cg_cand *C, uint32_t id) {
  size_t i;
  uint32_t moved;
  if (id >= C->cap || C->pos[id] == NONE) return;
  i = C->pos[id];
  C->pos[id] = NONE;
  if (i == --C->nheap) return;
  moved = C->heap[C->nheap]; /* the last leaf fills the hole */
  put(C, i, moved);
  sift_up(C, i);
  sift_down(C, C->pos[moved]);
}

uint32_t cg_cand_pop(cg_cand *C) {
  uint32_t top = C->heap[0];
  cg_cand_del(C, top);
  return top;
}
