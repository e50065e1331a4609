/* test_alloc.c: the typed allocation macros of cg_util.h (CG_NEW, CG_RENEW,
 * CG_FREE) under an allocator that counts live bytes: an empty array is a
 * valid block that frees back to zero, a byte count that would wrap is
 * refused before the allocator is asked, and the objects built from empty
 * arrays (a graph of no vertices, an empty Jacobian) free every byte they
 * took.  Prints "N passed, N failed". */
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

int main(void) {
  test_macros();
  test_empty_objects();
  return check_report("test_alloc");
}
