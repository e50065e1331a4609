/*
 * cg_cand.h: a candidate priority queue shared by the edge and face
 * elimination drivers (internal to csrc/elim).
 *
 * Candidates are small integer ids (an edge id times two plus the side, a
 * face id); each carries nk double keys compared lexicographically, lower
 * first, then a final tie-break function.  pos[id] is the heap slot of id or
 * UINT32_MAX when id is not queued.  Capacity grows with the largest id seen;
 * a failed growth leaves the queue unchanged.
 */
#ifndef CG_CAND_H
#define CG_CAND_H

#include "../util/cg_util.h"

/* 1 when candidate a goes before b (their keys being equal). */
typedef int (*cg_cand_tie)(const void *ud, uint32_t a, uint32_t b);

typedef struct cg_cand {
  cg_alloc *A;
  int nk;
  double *key;            /* nk per id */
  uint32_t *heap, *pos;   /* heap of ids; slot of each id */
  size_t nheap, cap;      /* queued; id capacity */
  cg_cand_tie tie;
  const void *ud;
} cg_cand;

void cg_cand_init(cg_cand *C, cg_alloc *A, int nk, cg_cand_tie tie, const void *ud);
void cg_cand_free(cg_cand *C);
/* Makes room for ids below n. */
int cg_cand_reserve(cg_cand *C, size_t n);
/* Queues id with the given keys, or moves it if queued (id < capacity). */
void cg_cand_set(cg_cand *C, uint32_t id, const double *keys);
/* Unqueues id if queued. */
void cg_cand_del(cg_cand *C, uint32_t id);
/* Removes and returns the first id (the queue must not be empty). */
uint32_t cg_cand_pop(cg_cand *C);

#endif
