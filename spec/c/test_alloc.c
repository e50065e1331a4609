/* test_alloc.c: the typed allocation macros of cg_util.h (CG_NEW, CG_RENEW,
 * CG_FREE) under an allocator that counts live bytes: an empty array is a
 * valid block that frees back to zero, a byte count that would wrap is
 * refused before the allocator is asked, and the objects built from empty
 * arrays (a graph of no vertices, an empty Jacobian) free every byte they
 * took.  cg_sort against qsort on random arrays (stable: ties keep their
 * order), its workspace through the allocator and given back, and a refused
 * workspace leaving the array as it was.  Prints "N passed, N failed". */
#include <stdint.h>

#include "elim/cg_lin.h"
#include "check.h"

static void test_macros(void) {
  counting c = {0, 0, 0};
  cg_alloc A = {counting_alloc, &c};
  double *d = CG_NEW(&A, double, 0);
  uint32_t *u;
  CHECK(d != NULL);
  CG_FREE(&A, d, double, 0);
  CHECK(c.live == 0);
  u = CG_NEW(&A, uint32_t, 3);
  CHECK(u != NULL && c.live == 12);
  u = CG_RENEW(&A, u, uint32_t, 3, 10);
  CHECK(u != NULL && c.live == 40);
  CG_FREE(&A, u, uint32_t, 10);
  CHECK(c.live == 0);
  c.calls = 0;
  CHECK(CG_NEW(&A, double, SIZE_MAX / 4) == NULL && c.calls == 0); /* wraps: refused */
  CHECK(c.live == 0);
}

static void test_empty_objects(void) {
  counting c = {0, 0, 0};
  cg_alloc A = {counting_alloc, &c};
  cg_error e;
  cg_jac J;
  cg_lin *g = cg_lin_new(&A, 0, &e);
  CHECK(g != NULL);
  if (!g) return;
  CHECK(cg_lin_set_xy(g, NULL, 0, NULL, 0, &e) == CG_OK);
  CHECK(cg_lin_jac_forward(g, &J, &e) == CG_OK && J.nnz == 0);
  cg_jac_free(&A, &J);
  CHECK(cg_lin_jac_bipartite(g, &J, &e) == CG_OK && J.nnz == 0);
  cg_jac_free(&A, &J);
  cg_lin_free(g);
  CHECK(c.live == 0); /* every empty array freed at the size it was taken */
}

/* Pairs sorted by key only: value tells equal keys apart (stability). */
typedef struct kv {
  int key, value;
} kv;

static int kv_key(void *ctx, const void *a, const void *b) {
  int x = ((const kv *)a)->key, y = ((const kv *)b)->key;
  (void)ctx;
  return (x > y) - (x < y);
}

static int kv_both(const void *a, const void *b) { /* qsort's: key, then value */
  int c = kv_key(NULL, a, b), x = ((const kv *)a)->value, y = ((const kv *)b)->value;
  return c ? c : (x > y) - (x < y);
}

static void test_sort(void) {
  static kv a[1000], b[1000];
  counting c = {0, 0, 0};
  cg_alloc A = {counting_alloc, &c};
  unsigned s = 12345;
  int n, i, bad = 0;
  for (n = 0; n <= 1000; n = n < 40 ? n + 1 : n * 2 + 7) {
    int m = n < 1000 ? n : 1000;
    for (i = 0; i < m; i++) s = s * 1103515245u + 12345u, a[i].key = (int)(s >> 16) % 17, a[i].value = i;
    memcpy(b, a, (size_t)m * sizeof *a);
    qsort(b, (size_t)m, sizeof *b, kv_both); /* values ascending within a key: the input order */
    CHECK(cg_sort(&A, a, (size_t)m, sizeof *a, kv_key, NULL) == CG_OK);
    for (i = 0; i < m; i++) bad += a[i].key != b[i].key || a[i].value != b[i].value;
    CHECK(c.live == 0);
  }
  CHECK(bad == 0);
  for (i = 0; i < 100; i++) a[i].key = 100 - i, a[i].value = i;
  c.fail_at = c.calls + 1;
  CHECK(cg_sort(&A, a, 100, sizeof *a, kv_key, NULL) == CG_ENOMEM);
  for (i = 0, bad = 0; i < 100; i++) bad += a[i].key != 100 - i;
  CHECK(bad == 0 && c.live == 0); /* unchanged */
  CHECK(cg_sort(&A, NULL, 0, sizeof *a, kv_key, NULL) == CG_OK); /* nothing to sort, nothing asked */
}

int main(void) {
  test_macros();
  test_sort();
  test_empty_objects();
  return check_report("test_alloc");
}
