/* test_map.c: C unit tests of the location map (csrc/util/cg_map.c): indices
 * in order of first insertion, lookups against a plain array, keys at both
 * ends of the 32-bit range, growth, and every allocation failing in turn
 * (map unchanged, nothing leaked).  Prints "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cg_map.h"
#include "check.h"

/* A small deterministic generator (xorshift32). */
static uint32_t next_rand(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* Hand-checked: the first keys get 0, 1, 2; a repeated key its old index. */
static void test_small(void) {
  cg_map m;
  uint32_t i = 99;
  cg_map_init(&m, NULL);
  CHECK(cg_map_get(&m, 7) == CG_MAP_NONE);
  CHECK(cg_map_put(&m, 3000000000u, &i) == 1 && i == 0);
  CHECK(cg_map_put(&m, 0, &i) == 1 && i == 1);
  CHECK(cg_map_put(&m, UINT32_MAX, &i) == 1 && i == 2);
  CHECK(cg_map_put(&m, 3000000000u, &i) == 0 && i == 0);
  CHECK(cg_map_get(&m, UINT32_MAX) == 2 && cg_map_get(&m, 0) == 1);
  CHECK(cg_map_get(&m, 1) == CG_MAP_NONE && m.n == 3);
  cg_map_free(&m);
  CHECK(m.cap == 0 && cg_map_get(&m, 0) == CG_MAP_NONE);
}

/* 200000 keys, half of them runs of consecutive locations (what tapes hold),
 * half random, many repeated: every index is that of the first insertion. */
static void test_many(void) {
  enum { N = 200000 };
  uint32_t *keys = (uint32_t *)malloc(N * sizeof *keys), *first = (uint32_t *)malloc(N * 4);
  uint32_t s = 12345, i, idx, distinct = 0, bad = 0;
  cg_map m;
  cg_map_init(&m, NULL);
  for (i = 0; i < N; i++)
    keys[i] = i % 2 ? next_rand(&s) % 50000u * 86413u : 4000000000u + i / 2 % 70000u;
  for (i = 0; i < N; i++) { /* first[j]: the j-th distinct key, as inserted */
    int r = cg_map_put(&m, keys[i], &idx);
    if (r == 1) {
      if (idx != distinct) bad++;
      first[distinct++] = keys[i];
    } else if (r != 0 || first[idx] != keys[i]) {
      bad++;
    }
  }
  CHECK(bad == 0 && m.n == distinct);
  for (i = 0, bad = 0; i < distinct; i++)
    if (cg_map_get(&m, first[i]) != i) bad++;
  CHECK(bad == 0);
  CHECK(cg_map_get(&m, 4000000000u + 70000u) == CG_MAP_NONE);
  CHECK(m.n < m.cap / 4 * 3 && (m.cap & (m.cap - 1)) == 0);
  cg_map_free(&m);
  free(keys);
  free(first);
}

/* cg_map_reserve makes later insertions allocation-free. */
static void test_reserve(void) {
  counting c = {0, 0, 0};
  cg_alloc A = {counting_alloc, &c};
  cg_map m;
  uint32_t i, idx;
  long calls;
  cg_map_init(&m, &A);
  CHECK(cg_map_reserve(&m, 1000) == CG_OK);
  calls = c.calls;
  for (i = 0; i < 1000; i++) cg_map_put(&m, i * 7919u, &idx);
  CHECK(c.calls == calls && m.n == 1000);
  cg_map_free(&m);
  CHECK(c.live == 0);
}

/* Ranks: indices by key order, so that consecutive keys get consecutive
 * indices; the sorted keys come back; a failed allocation changes nothing. */
static void test_rank(void) {
  static const uint32_t in[6] = {50, 3, 4000000000u, 7, 51, 52};
  static const uint32_t rank[6] = {2, 0, 5, 1, 3, 4};
  counting c = {0, 0, 0};
  cg_alloc A = {counting_alloc, &c};
  cg_map m;
  uint32_t i, idx, *keys = NULL;
  int bad = 0;
  long k;
  cg_map_init(&m, &A);
  for (i = 0; i < 6; i++) cg_map_put(&m, in[i], &idx);
  for (k = 1; k <= 4; k++) { /* each of its allocations failing */
    c.fail_at = c.calls + k;
    CHECK(cg_map_rank(&m, &keys) == CG_ENOMEM && keys == NULL);
    for (i = 0; i < 6; i++)
      if (cg_map_get(&m, in[i]) != i) bad++; /* still in order of insertion */
  }
  CHECK(bad == 0);
  c.fail_at = 0;
  CHECK(cg_map_rank(&m, &keys) == CG_OK && keys != NULL);
  for (i = 0; i < 6; i++)
    if (cg_map_get(&m, in[i]) != rank[i] || keys[rank[i]] != in[i]) bad++;
  CHECK(bad == 0);
  cg_free(&A, keys, 6 * sizeof *keys);
  CHECK(cg_map_rank(&m, NULL) == CG_OK && cg_map_get(&m, 52) == 4);
  cg_map_free(&m);
  CHECK(c.live == 0);
}

static int cmp_key(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Ranks of 200000 random keys (every bit of the key in play) against qsort. */
static void test_rank_many(void) {
  enum { N = 200000 };
  uint32_t *in = (uint32_t *)malloc(N * sizeof *in), *ref = (uint32_t *)malloc(N * sizeof *ref);
  uint32_t i, idx, n = 0, *keys = NULL, x = 2463534242u;
  cg_map m;
  int bad = 0;
  cg_map_init(&m, NULL);
  for (i = 0; i < N; i++) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5; /* xorshift32 */
    if (cg_map_put(&m, x, &idx) == 1) in[n] = ref[n] = x, n++;
  }
  qsort(ref, n, sizeof *ref, cmp_key);
  CHECK(cg_map_rank(&m, &keys) == CG_OK && m.n == n);
  for (i = 0; keys && i < n; i++) {
    if (keys[i] != ref[i]) bad++;
    if (keys[cg_map_get(&m, in[i])] != in[i]) bad++;
  }
  CHECK(bad == 0);
  CG_FREE(NULL, keys, uint32_t, n);
  cg_map_free(&m);
  free(in), free(ref);
}

/* Every allocation fails in turn: CG_ENOMEM, the map as it was, no leak. */
static void test_oom(void) {
  long k;
  int bad = 0;
  for (k = 1; k <= 12; k++) {
    counting c = {0, k, 0};
    cg_alloc A = {counting_alloc, &c};
    cg_map m;
    uint32_t i, idx, got = 0;
    int rc = 0;
    cg_map_init(&m, &A);
    for (i = 0; i < 300 && rc >= 0; i++) {
      size_t n = m.n;
      rc = cg_map_put(&m, i * 40503u + 3000000000u, &idx);
      if (rc < 0 && (rc != CG_ENOMEM || m.n != n)) bad++;
      if (rc >= 0) got++;
    }
    for (i = 0; i < got; i++)
      if (cg_map_get(&m, i * 40503u + 3000000000u) != i) bad++;
    cg_map_free(&m);
    if (c.live != 0) bad++;
  }
  CHECK(bad == 0);
}

int main(void) {
  test_small();
  test_many();
  test_reserve();
  test_rank();
  test_rank_many();
  test_oom();
  return check_report("test_map");
}
