/*
 * adolc_roe: Debian's ADOL-C computing the Jacobian of the Roe flux
 * (examples/kernels/roe.c, its text over adoubles) for the benchmark of
 * preaccumulated tangent code (scripts/bench-flatten.sh): the tape is
 * recorded once, then fov_forward with p = 11 directions (the identity seed)
 * gives the 4 x 11 Jacobian in one sweep.  Usage: adolc_roe REPS INNER.
 * Prints "adolc_fov SECONDS SUM SECONDS1": SECONDS the best over REPS runs of
 * the mean time of one fov_forward over INNER calls, SUM the %.17g sum of
 * the Jacobian's entries, SECONDS1 the same for fos_forward (one direction,
 * the first unit vector).
 */
#include <adolc/adolc.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "roe_point.h"

#define double adouble // the kernel's text, over adoubles
#include "../../examples/kernels/roe.c"
#undef double

static double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 3) return std::fprintf(stderr, "usage: adolc_roe REPS INNER\n"), 2;
  int reps = std::atoi(argv[1]), inner = std::atoi(argv[2]);
  double x[ROE_N], y[ROE_M];
  for (int i = 0; i < ROE_N; i++) x[i] = ROE_X[i];
  trace_on(1);
  {
    adouble ql[4], qr[4], nx, ny, gamma, flux[4];
    for (int i = 0; i < 4; i++) ql[i] <<= x[i];
    for (int i = 0; i < 4; i++) qr[i] <<= x[4 + i];
    nx <<= x[8];
    ny <<= x[9];
    gamma <<= x[10];
    roe(ql, qr, nx, ny, gamma, flux);
    for (int i = 0; i < ROE_M; i++) flux[i] >>= y[i];
  }
  trace_off();
  double **X = myalloc2(ROE_N, ROE_N), **Y = myalloc2(ROE_M, ROE_N), best = 1e30, sum = 0;
  for (int i = 0; i < ROE_N; i++)
    for (int j = 0; j < ROE_N; j++) X[i][j] = i == j;
  double xd[ROE_N] = {1.0}, yd[ROE_M], best1 = 1e30;
  for (int r = 0; r < reps; r++) {
    double t = now();
    for (int k = 0; k < inner; k++) fov_forward(1, ROE_M, ROE_N, ROE_N, x, X, y, Y);
    t = (now() - t) / inner;
    if (t < best) best = t;
    t = now();
    for (int k = 0; k < inner; k++) fos_forward(1, ROE_M, ROE_N, 0, x, xd, y, yd);
    t = (now() - t) / inner;
    if (t < best1) best1 = t;
  }
  for (int i = 0; i < ROE_M; i++)
    for (int j = 0; j < ROE_N; j++) sum += Y[i][j];
  std::printf("adolc_fov %.9g %.17g %.9g\n", best, sum, best1);
  myfree2(X);
  myfree2(Y);
  return 0;
}
