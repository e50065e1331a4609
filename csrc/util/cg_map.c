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

/* Sorts n pairs (key << 32 | index) by key: least significant digit first,
 * three passes of 11 bits over the key (keys are distinct: no tie to keep);
 * tmp holds n too.  Returns the array that holds the result. */
static uint64_t *radix_by_key(uint64_t *a, uint64_t *tmp, size_t n) {
  size_t cnt[2049], i;
  int shift;
  for (shift = 32; shift < 64; shift += 11) {
    uint64_t *t;
    memset(cnt, 0, sizeof cnt);
    for (i = 0; i < n; i++) cnt[(a[i] >> shift & 0x7ff) + 1]++;
    for (i = 1; i <= 2048; i++) cnt[i] += cnt[i - 1];
    for (i = 0; i < n; i++) tmp[cnt[a[i] >> shift & 0x7ff]++] = a[i];
    t = a, a = tmp, tmp = t;
  }
  return a;
}

int cg_map_rank(cg_map *m, uint32_t **keys) {
  size_t n = m->n, s, i;
  uint64_t *pair = CG_NEW(m->A, uint64_t, n), *tmp = CG_NEW(m->A, uint64_t, n);
  uint32_t *k = CG_NEW(m->A, uint32_t, n), *rank = CG_NEW(m->A, uint32_t, n);
  int rc = CG_ENOMEM;
  if (pair && tmp && k && rank) {
    for (s = 0, i = 0; s < m->cap; s++)
      if (m->idx[s] != CG_MAP_NONE) pair[i++] = (uint64_t)m->key[s] << 32 | m->idx[s];
    const uint64_t *r = radix_by_key(pair, tmp, n); /* O(n): every sparse tape, every location */
    for (i = 0; i < n; i++) k[i] = (uint32_t)(r[i] >> 32), rank[(uint32_t)r[i]] = (uint32_t)i;
    for (s = 0; s < m->cap; s++)
      if (m->idx[s] != CG_MAP_NONE) m->idx[s] = rank[m->idx[s]];
    rc = CG_OK;
  }
  CG_FREE(m->A, pair, uint64_t, n), CG_FREE(m->A, tmp, uint64_t, n);
  CG_FREE(m->A, rank, uint32_t, n);
  if (!rc && keys) *keys = k;
  else CG_FREE(m->A, k, uint32_t, n);
  return rc;
}
