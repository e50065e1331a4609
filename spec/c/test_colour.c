/* test_colour.c: the Jacobian by colouring (cg_colour.h, Gebremedhin, Manne
 * & Pothen 2005) against independent computations:
 *  - the structural pattern equals a propagation of independent sets along
 *    the vertex order (not a search), and holds every nonzero of the forward
 *    sweep (cg_lin_jac_forward);
 *  - ColPack's colourings of the columns and rows pass cg_colour_check and
 *    use at least as many colours as the densest row (column) has entries;
 *  - the compressed sweeps with direct recovery equal the forward sweep
 *    (relative 1e-12) for ColPack's and the trivial colourings, each side;
 *  - mults = edges * colours, sweeps = colours;
 *  - cg_colour_check refuses a colouring that is not structurally
 *    orthogonal, a colour out of range and an uncoloured non-empty column;
 *  - every allocation failure is reported as CG_ENOMEM and leaks nothing.
 * On a hand-made graph and 200 generated ones.  Prints "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elim/cg_colour.h"
#include "check.h"
#define LINGEN_SEED 2463534242ull
#include "lingen.h"


/* The pattern as a dense m x n table, by propagating the set of independents
 * each vertex depends on along the vertex order (ids are topological). */
static unsigned char *dense_pattern(const cg_lin *g) {
  unsigned char *dep = (unsigned char *)calloc((size_t)g->nv * g->n + 1, 1);
  unsigned char *P = (unsigned char *)calloc((size_t)g->m * g->n + 1, 1);
  uint32_t v, k, j;
  for (j = 0; j < g->n; j++) dep[(size_t)g->x[j] * g->n + j] = 1;
  for (v = 0; v < g->nv; v++)
    for (k = 0; k < g->in[v].n; k++) {
      uint32_t t = g->tail[g->in[v].e[k]];
      for (j = 0; j < g->n; j++) dep[(size_t)v * g->n + j] |= dep[(size_t)t * g->n + j];
    }
  for (k = 0; k < g->m; k++)
    for (j = 0; j < g->n; j++) P[(size_t)k * g->n + j] = dep[(size_t)g->y[k] * g->n + j];
  free(dep);
  return P;
}

/* P equals the dense table D (and its rows are ascending). */
static int pattern_equals(const cg_pattern *P, const unsigned char *D) {
  uint32_t i, j;
  size_t p, cnt = 0;
  for (i = 0; i < P->m; i++)
    for (p = P->start[i]; p < P->start[i + 1]; p++) {
      if (!D[(size_t)i * P->n + P->col[p]]) return 0;
      if (p > P->start[i] && P->col[p] <= P->col[p - 1]) return 0;
    }
  for (i = 0; i < P->m; i++)
    for (j = 0; j < P->n; j++) cnt += D[(size_t)i * P->n + j];
  return cnt == P->nnz;
}

/* The largest entry count of a row (side column) or a column (side row). */
static uint32_t max_count(const cg_pattern *P, int side) {
  uint32_t i, best = 0, *cc = (uint32_t *)calloc((size_t)P->n + 1, 4);
  size_t p;
  for (i = 0; i < P->m; i++) {
    uint32_t r = (uint32_t)(P->start[i + 1] - P->start[i]);
    if (side == CG_SIDE_COLUMN && r > best) best = r;
    for (p = P->start[i]; p < P->start[i + 1]; p++) cc[P->col[p]]++;
  }
  if (side == CG_SIDE_ROW)
    for (i = 0; i < P->n; i++)
      if (cc[i] > best) best = cc[i];
  free(cc);
  return best;
}

/* J (P's entries) equals the forward sweep F: every entry of F is in J
 * with the same value, every other entry of J is zero (relative 1e-12). */
static int same_jacobian(const cg_jac *J, const cg_jac *F) {
  uint64_t a = 0, b;
  for (b = 0; b < F->nnz; b++) {
    while (a < J->nnz && (J->row[a] < F->row[b] || (J->row[a] == F->row[b] && J->col[a] < F->col[b]))) {
      if (J->val[a] != 0) return 0;
      a++;
    }
    if (a == J->nnz || J->row[a] != F->row[b] || J->col[a] != F->col[b]) return 0;
    if (fabs(J->val[a] - F->val[b]) > 1e-12 * fmax(1, fabs(F->val[b]))) return 0;
    a++;
  }
  for (; a < J->nnz; a++)
    if (J->val[a] != 0) return 0;
  return 1;
}

/* Colours g both ways (ColPack and trivial, each side) and checks each. */
static void check_graph(const cg_lin *g) {
  cg_error e;
  cg_pattern P;
  cg_jac F;
  unsigned char *D = dense_pattern(g);
  int side, trivial;
  CHECK(cg_lin_pattern(g, &P, &e) == CG_OK);
  CHECK(pattern_equals(&P, D));
  CHECK(cg_lin_jac_forward(g, &F, &e) == CG_OK);
  for (side = 0; side < 2; side++)
    for (trivial = 0; trivial < 2; trivial++) {
      cg_colouring C;
      cg_jac J;
      cg_cost c;
      memset(&c, 0, sizeof c);
      CHECK((trivial ? cg_colour_trivial(g->A, &P, side, &C, &e)
                     : cg_colour_colpack(g->A, &P, side, NULL, &C, &e)) == CG_OK);
      CHECK(cg_colour_check(g->A, &P, &C, &e) == CG_OK);
      CHECK(C.ncolours >= max_count(&P, side));
      CHECK(cg_lin_jac_coloured(g, &P, &C, &J, &c, &e) == CG_OK);
      CHECK(same_jacobian(&J, &F));
      CHECK(c.mults == g->nedges * C.ncolours && c.steps == C.ncolours);
      CHECK(c.mults_nontrivial <= c.mults);
      cg_jac_free(g->A, &J);
      cg_colouring_free(g->A, &C);
    }
  cg_jac_free(g->A, &F);
  cg_pattern_free(g->A, &P);
  free(D);
}

/* A hand-made graph: v3 = x0 * x1, y0 = v4 = v3, y1 = v5 = v3 + x2, y2 = x2
 * (x2 is also a dependent).  J = [x1 x0 0; x1 x0 1; 0 0 1] at x0 = 3,
 * x1 = 5: three columns share row 2 (three colours); rows 1 and 3 share no
 * column (two colours). */
static void test_hand(void) {
  cg_error e;
  cg_lin *g;
  uint32_t x[3] = {0, 1, 2}, y[3] = {4, 5, 2};
  static const double want[6] = {5, 3, 5, 3, 1, 1};
  cg_pattern P;
  cg_colouring C;
  cg_jac J;
  cg_cost c;
  int k;
  g = cg_lin_new(NULL, 6, &e);
  cg_lin_add(g, 0, 3, 5, CG_E_VAR, NULL), cg_lin_add(g, 1, 3, 3, CG_E_VAR, NULL);
  cg_lin_add(g, 3, 4, 1, CG_E_PLUS1, NULL), cg_lin_add(g, 3, 5, 1, CG_E_PLUS1, NULL);
  cg_lin_add(g, 2, 5, 1, CG_E_PLUS1, NULL);
  CHECK(cg_lin_set_xy(g, x, 3, y, 3, &e) == CG_OK);
  CHECK(cg_lin_pattern(g, &P, &e) == CG_OK && P.nnz == 6);
  CHECK(cg_colour_colpack(g->A, &P, CG_SIDE_COLUMN, NULL, &C, &e) == CG_OK && C.ncolours == 3);
  memset(&c, 0, sizeof c);
  CHECK(cg_lin_jac_coloured(g, &P, &C, &J, &c, &e) == CG_OK && J.nnz == 6);
  for (k = 0; k < 6 && J.nnz == 6; k++) CHECK(J.val[k] == want[k]);
  CHECK(c.mults == 15 && c.mults_nontrivial == 6);
  CHECK(c.adds == 6); /* v3 and v5 add two products each sweep */
  cg_jac_free(NULL, &J);
  /* not structurally orthogonal: columns 1 and 3 share row 2 */
  C.colour[0] = 0, C.colour[1] = 1, C.colour[2] = 0;
  CHECK(cg_colour_check(NULL, &P, &C, &e) == CG_ERUNTIME && strstr(e.msg, "share row 2"));
  CHECK(cg_lin_jac_coloured(g, &P, &C, &J, &c, &e) == CG_ERUNTIME);
  C.colour[2] = 7; /* out of range */
  CHECK(cg_colour_check(NULL, &P, &C, &e) == CG_ERUNTIME && strstr(e.msg, "out of range"));
  C.colour[2] = CG_NOCOLOUR; /* a non-empty column uncoloured */
  CHECK(cg_colour_check(NULL, &P, &C, &e) == CG_ERUNTIME);
  C.colour[2] = 2;
  CHECK(cg_colour_check(NULL, &P, &C, &e) == CG_OK);
  cg_colouring_free(NULL, &C);
  CHECK(cg_colour_colpack(NULL, &P, CG_SIDE_ROW, "NO_SUCH", &C, &e) == CG_EUSAGE);
  CHECK(cg_colour_colpack(NULL, &P, CG_SIDE_ROW, "LARGEST_FIRST", &C, &e) == CG_OK);
  CHECK(C.ncolours == 2 && C.colour[0] == C.colour[2] && cg_colour_check(NULL, &P, &C, &e) == CG_OK);
  memset(&c, 0, sizeof c); /* adjoint sweeps: v3 adds twice (once a sweep), x2 = y2 once (seeded) */
  CHECK(cg_lin_jac_coloured(g, &P, &C, &J, &c, &e) == CG_OK && c.adds == 3 && c.mults == 10);
  for (k = 0; k < 6 && J.nnz == 6; k++) CHECK(J.val[k] == want[k]);
  cg_jac_free(NULL, &J);
  cg_colouring_free(NULL, &C);
  cg_pattern_free(NULL, &P);
  cg_lin_free(g);
}

/* The whole pipeline on side `side` with the k-th allocation failing, k =
 * 1, 2, ... until one run needs fewer: CG_ENOMEM or success, and no byte
 * left either way. */
static void test_oom(int side) {
  int k, done = 0, nomem = 0;
  for (k = 1; k < 100000 && !done; k++) {
    counting cnt = {0, 0, 0};
    cg_alloc A = {counting_alloc, &cnt};
    cg_lin *g;
    cg_pattern P;
    cg_colouring C;
    cg_jac J;
    cg_error e;
    int rc;
    rng = 99;
    g = random_graph(&A, 60, 5, 4, 3, 12, 1);
    CHECK(g != NULL);
    if (!g) return;
    cnt.fail_at = cnt.calls + k;
    memset(&P, 0, sizeof P), memset(&C, 0, sizeof C), memset(&J, 0, sizeof J);
    rc = cg_lin_pattern(g, &P, &e);
    if (!rc) rc = cg_colour_colpack(&A, &P, side, NULL, &C, &e);
    if (!rc) rc = cg_lin_jac_coloured(g, &P, &C, &J, NULL, &e);
    if (rc) nomem++;
    else done = cnt.calls < cnt.fail_at;
    CHECK(rc == CG_OK || rc == CG_ENOMEM);
    cg_jac_free(&A, &J), cg_colouring_free(&A, &C), cg_pattern_free(&A, &P);
    cg_lin_free(g);
    CHECK(cnt.live == 0);
  }
  CHECK(done && nomem > 10);
}

int main(void) {
  int i;
  test_hand();
  for (i = 0; i < 200; i++) {
    uint32_t nin = 1 + rnd(12), nout = 1 + rnd(12), nv = nin + nout + rnd(80);
    cg_lin *g;
    rng += (uint64_t)i * 7919;
    g = random_graph(NULL, nv, nin, nout, 1 + rnd(4), 2 + rnd(20), rnd(4) == 0);
    CHECK(g != NULL);
    if (g) check_graph(g), cg_lin_free(g);
  }
  test_oom(CG_SIDE_COLUMN);
  test_oom(CG_SIDE_ROW);
  return check_report("test_colour");
}
