/* cg_map.c: the open-addressing map of cg_map.h. */
#include "cg_map.h"

#include <stdlib.h>
#include <string.h>

/* Fibonacci hashing: the high bits of key * 2^32/phi spread runs of
 * consecutive locations (the usual case) over the whole table. */
static size_t slot_of(uint32_t key, size_t cap) {
  return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

void cg_map_init(cg_map *m, cg_alloc *A) {
  memset(m, 0, sizeof *m);
  m->A = A ? A : cg_default_alloc();
}

void cg_map_free(cg_map *m) {
  cg_free(m->A, m->key, m->cap * sizeof *m->key);
  cg_free(m->A, m->idx, m->cap * sizeof *m->idx);
  m->key = m->idx = NULL;
  m->cap = m->n = 0;
}

/* Moves every key into fresh arrays of `cap` slots (a power of 2). */
static int rehash(cg_map *m, size_t cap) {
  uint32_t *key = (uint32_t *)cg_malloc(m->A, cap * sizeof *key);
  uint32_t *idx = (uint32_t *)cg_malloc(m->A, cap * sizeof *idx);
  size_t s, j;
  if (!key || !idx) {
    cg_free(m->A, key, cap * sizeof *key);
    cg_free(m->A, idx, cap * sizeof *idx);
    return CG_ENOMEM;
  }
  memset(idx, 0xff, cap * sizeof *idx); /* every slot CG_MAP_NONE */
  for (s = 0; s < m->cap; s++) {
    if (m->idx[s] == CG_MAP_NONE) continue;
    for (j = slot_of(m->key[s], cap); idx[j] != CG_MAP_NONE; j = (j + 1) & (cap - 1)) {
    }
    key[j] = m->key[s];
    idx[j] = m->idx[s];
  }
  cg_free(m->A, m->key, m->cap * sizeof *m->key);
  cg_free(m->A, m->idx, m->cap * sizeof *m->idx);
  m->key = key, m->idx = idx, m->cap = cap;
  return CG_OK;
}

int cg_map_reserve(cg_map *m, size_t n) {
  size_t cap = 16;
  if (n >= CG_MAP_NONE) return CG_ENOMEM; /* indices are 32-bit, NONE excluded */
  while (cap / 4 * 3 <= n) { /* load factor below 3/4 */
    if (cap > SIZE_MAX / 2 / sizeof(uint32_t)) return CG_ENOMEM;
    cap *= 2;
  }
  return cap > m->cap ? rehash(m, cap) : CG_OK;
}

int cg_map_put(cg_map *m, uint32_t key, uint32_t *idx) {
  size_t s;
  int rc;
  if ((m->n + 1 >= m->cap / 4 * 3) && (rc = cg_map_reserve(m, m->n + 1 > 8 ? 2 * m->n : 8)))
    return rc;
  for (s = slot_of(key, m->cap); m->idx[s] != CG_MAP_NONE; s = (s + 1) & (m->cap - 1))
    if (m->key[s] == key) {
      *idx = m->idx[s];
      return 0;
    }
  m->key[s] = key;
  *idx = m->idx[s] = (uint32_t)m->n++;
  return 1;
}

uint32_t cg_map_get(const cg_map *m, uint32_t key) {
  size_t s;
  if (!m->cap) return CG_MAP_NONE;
  for (s = slot_of(key, m->cap); m->idx[s] != CG_MAP_NONE; s = (s + 1) & (m->cap - 1))
    if (m->key[s] == key) return m->idx[s];
  return CG_MAP_NONE;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

int cg_map_rank(cg_map *m, uint32_t **keys) {
  uint32_t *k = CG_NEW(m->A, uint32_t, m->n);
  size_t s;
  if (!k) return CG_ENOMEM;
  for (s = 0; s < m->cap; s++)
    if (m->idx[s] != CG_MAP_NONE) k[m->idx[s]] = m->key[s];
  qsort(k, m->n, sizeof *k, cmp_u32);
  for (s = 0; s < m->cap; s++) /* the keys are distinct: the rank is where bsearch finds it */
    if (m->idx[s] != CG_MAP_NONE)
      m->idx[s] = (uint32_t)((uint32_t *)bsearch(&m->key[s], k, m->n, sizeof *k, cmp_u32) - k);
  if (keys) *keys = k;
  else CG_FREE(m->A, k, uint32_t, m->n);
  return CG_OK;
}
