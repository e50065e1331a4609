/* cg_lin_impl.h: what the files of linearized graphs share (cg_lin.c,
 * cg_linearize.c, cg_jac.c) and no one else needs: small inline helpers and
 * the storage functions the linearizer lays a graph out with. */
#ifndef CG_LIN_IMPL_H
#define CG_LIN_IMPL_H

#include <string.h>

#include "cg_lin.h"

#define NONE UINT32_MAX

/* A hot loop kept out of line, so that its register allocation does not
 * follow the shape of its caller. */
#if defined(__GNUC__) || defined(__clang__)
#define CG_NOINLINE __attribute__((noinline))
#else
#define CG_NOINLINE
#endif

/* The words of the smallest block holding d ids (d <= 2^31). */
static inline uint32_t block_words(uint32_t d) {
  if (d <= 2) return 2;
  if (d <= 4) return 4;
  d--;
  d |= d >> 1, d |= d >> 2, d |= d >> 4, d |= d >> 8, d |= d >> 16;
  return d + 1;
}

/* The mark of a sum of two weights with marks a and b. */
static inline uint8_t mark_sum(uint8_t a, uint8_t b) {
  return (a != CG_E_VAR && b != CG_E_VAR) ? CG_E_CONST : CG_E_VAR;
}

/* The mark of a product: variable if a factor is, else constant if a
 * factor is, else the product of the signs.  A table of 2 bits per pair
 * (a, b) at bit 2 (4a + b), read without a branch (the marks are 0..3). */
static inline uint8_t mark_prod(uint8_t a, uint8_t b) {
  return (uint8_t)(0xb4e45400u >> ((a & 3u) << 3 | (b & 3u) << 1) & 3u);
}

/* Storage (cg_lin.c): a graph of nv vertices without edges (its lists
 * zeroed and its vertices tied to no node only when blank); the slab made
 * to hold need words; the edge pool made to hold need edges; the pool for
 * a graph of n edges about to be eliminated; a new edge (i, k) known to be
 * absent (NONE when memory runs out, nothing changed). */
cg_lin *cg_lin_alloc(cg_alloc *A, uint32_t nv, int blank, cg_error *e);
int cg_lin_slab_grow(cg_lin *g, size_t need);
int cg_lin_grow_edges(cg_lin *g, uint32_t need);
uint32_t cg_lin_edge_room(uint64_t n);
uint32_t cg_lin_add_new(cg_lin *g, uint32_t i, uint32_t k, double w, uint8_t mark);

#endif
