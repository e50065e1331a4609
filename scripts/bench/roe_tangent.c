/* roe_tangent.c: the compiled side of the Roe flux benchmark
 * (scripts/bench-flatten.sh).  Linked with examples/kernels/roe.c and, built
 * with -DROE_D, with the tangent code of `cgwb flatten --emit tangent`
 * (roe_d, declared by the generated roe_d.h), each compiled apart so that no
 * call is inlined into the timing loops.
 *   roe_tangent primal REPS INNER    prints "primal SECONDS SUM"
 *   roe_tangent tangent REPS INNER   prints "tangent SECONDS SUM SECONDS1"
 *   roe_tangent vector REPS INNER    prints "vector SECONDS SUM" (built with
 *                                    -DROE_DV: roe_dv of --emit tangent-vector)
 * SECONDS: the best over REPS runs of the mean over INNER evaluations of the
 * flux (primal) or of the whole 4 x 11 Jacobian (tangent: 11 calls of roe_d,
 * one per unit input tangent, as fov_forward's 11 directions); SECONDS1 the
 * same for one call of roe_d (one direction); vector: one call of roe_dv
 * with the 11 directions at once; SUM the %.17g sum of the flux or of the
 * Jacobian's entries. */
#include <string.h>
#include "bench.h"
#include "roe_point.h"

void roe(const double *ql, const double *qr, double nx, double ny, double gamma, double *flux);
#ifdef ROE_D
#include "roe_d.h"
#endif
#ifdef ROE_DV
#include "roe_dv.h"
#endif

static volatile double sink; /* keeps the results alive */

static double primal(int inner, double *sum) {
  double f[ROE_M], t = now();
  int k, i;
  for (k = 0; k < inner; k++) {
    roe(ROE_X, ROE_X + 4, ROE_X[8], ROE_X[9], ROE_X[10], f);
    sink = f[0];
  }
  t = (now() - t) / inner;
  for (*sum = 0, i = 0; i < ROE_M; i++) *sum += f[i];
  return t;
}

#ifdef ROE_D
/* One Jacobian: 11 calls, input tangent j the j-th unit vector; J[i][j]. */
static void jacobian(double J[ROE_M][ROE_N]) {
  double x[ROE_N], xd[ROE_N], f[ROE_M], fd[ROE_M];
  int j, i;
  for (j = 0; j < ROE_N; j++) {
    memcpy(x, ROE_X, sizeof x);
    memset(xd, 0, sizeof xd);
    xd[j] = 1.0;
    roe_d(x, xd, x + 4, xd + 4, x[8], xd[8], x[9], xd[9], x[10], xd[10], f, fd);
    for (i = 0; i < ROE_M; i++) J[i][j] = fd[i];
  }
}

static double tangent(int inner, double *sum, double *one) {
  double J[ROE_M][ROE_N], x[ROE_N], xd[ROE_N], f[ROE_M], fd[ROE_M], t = now();
  int k, i, j;
  for (k = 0; k < inner; k++) {
    jacobian(J);
    sink = J[0][0];
  }
  t = (now() - t) / inner;
  for (*sum = 0, i = 0; i < ROE_M; i++)
    for (j = 0; j < ROE_N; j++) *sum += J[i][j];
  memcpy(x, ROE_X, sizeof x);
  memset(xd, 0, sizeof xd);
  xd[0] = 1.0;
  *one = now();
  for (k = 0; k < inner; k++) {
    roe_d(x, xd, x + 4, xd + 4, x[8], xd[8], x[9], xd[9], x[10], xd[10], f, fd);
    sink = fd[0];
  }
  *one = (now() - *one) / inner;
  return t;
}
#endif

#ifdef ROE_DV
/* One Jacobian: one call of roe_dv with the identity seed of the 11 inputs
 * (cell c's tangents at c * 11, in x's order ql, qr, nx, ny, gamma);
 * J[i][j] = fd[i * 11 + j]. */
static double vector(int inner, double *sum) {
  double x[ROE_N], xd[ROE_N * ROE_N], f[ROE_M], fd[ROE_M * ROE_N], t;
  int k, i, status = 0;
  memset(xd, 0, sizeof xd);
  for (i = 0; i < ROE_N; i++) xd[i * ROE_N + i] = 1.0;
  memcpy(x, ROE_X, sizeof x);
  t = now();
  for (k = 0; k < inner; k++) {
    status |= roe_dv(ROE_N, x, xd, x + 4, xd + 4 * ROE_N, x[8], xd + 8 * ROE_N, x[9], xd + 9 * ROE_N, x[10],
                     xd + 10 * ROE_N, f, fd); /* 0, or -1: ROE_N directions past CG_MAXDIR */
    sink = fd[0];
  }
  t = (now() - t) / inner;
  if (status) fprintf(stderr, "roe_dv: status %d (%d directions)\n", status, ROE_N), exit(1);
  for (*sum = 0, i = 0; i < ROE_M * ROE_N; i++) *sum += fd[i];
  return t;
}
#endif

int main(int argc, char **argv) {
  int reps = argc > 2 ? atoi(argv[2]) : 3, inner = argc > 3 ? atoi(argv[3]) : 1000, r;
  double best = 1e300, best1 = 1e300, sum = 0, one = 0, t;
  if (argc != 4 || reps < 1 || inner < 1) return fprintf(stderr, "usage: roe_tangent primal|tangent|vector REPS INNER\n"), 2;
  for (r = 0; r < reps; r++) {
    if (!strcmp(argv[1], "primal")) t = primal(inner, &sum);
#ifdef ROE_D
    else if (!strcmp(argv[1], "tangent")) t = tangent(inner, &sum, &one);
#endif
#ifdef ROE_DV
    else if (!strcmp(argv[1], "vector")) t = vector(inner, &sum);
#endif
    else return fprintf(stderr, "roe_tangent: no mode '%s' in this build\n", argv[1]), 2;
    if (t < best) best = t;
    if (one < best1) best1 = one;
  }
  if (!strcmp(argv[1], "primal")) printf("primal %.9g %.17g\n", best, sum);
  else if (!strcmp(argv[1], "vector")) printf("vector %.9g %.17g\n", best, sum);
  else printf("tangent %.9g %.17g %.9g\n", best, sum, best1);
  return 0;
}
