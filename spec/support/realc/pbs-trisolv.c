/* pbs-trisolv.c: forward substitution L x = b, in the style of the
 * polyhedral suites' solvers (written for cgwb's tests). */
#include "pbs.h"

#ifndef N
# define N 8
#endif

static void init_array(int n, REAL PBS_2D(L, N, N, n, n), REAL PBS_1D(x, N, n), REAL PBS_1D(b, N, n))
{
  int i, j;

  for (i = 0; i < n; i++) {
    x[i] = -999;
    b[i] = i;
    for (j = 0; j <= i; j++)
      L[i][j] = (REAL) (i + n - j + 1) * 2 / n;
  }
}

static void kernel_trisolv(int n, REAL PBS_2D(L, N, N, n, n), REAL PBS_1D(x, N, n), REAL PBS_1D(b, N, n))
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N, i;
  REAL (*L)[N + PBS_PAD][N + PBS_PAD] = PBS_ALLOC_2D(REAL, N, N);
  REAL *x = (REAL *) pbs_alloc(N, sizeof(REAL));
  REAL *b = (REAL *) pbs_alloc(N, sizeof(REAL));

  init_array(n, *L, x, b);
  PBS_TIMER_START();
  kernel_trisolv(n, *L, x, b);
  PBS_TIMER_STOP();
  PBS_TIMER_PRINT();
  if (argc > 42)
    for (i = 0; i < n; i++) fprintf(stderr, REAL_FMT, x[i]);
  free((void *) L);
  free(x);
  free(b);
  return 0;
}
