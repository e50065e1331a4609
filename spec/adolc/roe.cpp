/*
 * roe.cpp: Debian's ADOL-C differentiating examples/kernels/roe.c, for
 * spec/28-roe_spec.lua.  The kernel's own text is compiled with its doubles
 * retyped as adoubles (operator overloading, as ADOL-C is meant to be used),
 * so ADOL-C sees exactly the operations the kernel states.
 *
 *   roe < POINTS
 *       each line of POINTS holds the 11 inputs ql[0..3] qr[0..3] nx ny
 *       gamma; for each, records roe on tape 1 (trace_on/trace_off) and
 *       calls jacobian(); prints one line: the 4 flux values, then the 4 x 11
 *       Jacobian by rows, each as %a (inputs and outputs in the order above).
 *
 * Compile from the repository's root: g++ -O2 -I. spec/adolc/roe.cpp -ladolc
 */
#include <adolc/adolc.h>

#include <cstdio>

#define double adouble // the kernel below, over adoubles
#include "examples/kernels/roe.c"
#undef double

enum { N = 11, M = 4 };

// Records roe at x on tape tag; y gets the flux.
static void record(short tag, const double *x, double *y) {
  trace_on(tag);
  {
    adouble ql[4], qr[4], nx, ny, gamma, flux[4];
    for (int i = 0; i < 4; i++) ql[i] <<= x[i];
    for (int i = 0; i < 4; i++) qr[i] <<= x[4 + i];
    nx <<= x[8];
    ny <<= x[9];
    gamma <<= x[10];
    roe(ql, qr, nx, ny, gamma, flux);
    for (int i = 0; i < M; i++) flux[i] >>= y[i];
  }
  trace_off();
}

int main() {
  double x[N], y[M];
  double **J = myalloc2(M, N);
  for (;;) {
    int got = 0;
    for (int i = 0; i < N; i++) got += std::scanf("%lf", &x[i]) == 1;
    if (got == 0) break;
    if (got != N) return std::fprintf(stderr, "roe: a line needs %d numbers\n", N), 2;
    record(1, x, y);
    if (jacobian(1, M, N, x, J) < 0) return std::fprintf(stderr, "roe: jacobian() failed\n"), 1;
    for (int i = 0; i < M; i++) std::printf("%s%a", i ? " " : "", y[i]);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) std::printf(" %a", J[i][j]);
    std::printf("\n");
  }
  myfree2(J);
  return 0;
}
