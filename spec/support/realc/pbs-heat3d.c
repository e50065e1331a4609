/* pbs-heat3d.c: explicit heat diffusion on a cube, two arrays swapped by
 * the time loop, in the style of the polyhedral suites' stencils (written
 * for cgwb's tests). */
#include "pbs.h"

#ifndef N
# define N 6
# define TSTEPS 3
#endif

static void init_array(int n, REAL PBS_3D(A, N, N, N, n, n, n), REAL PBS_3D(B, N, N, N, n, n, n))
{
  int i, j, k;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        A[i][j][k] = B[i][j][k] = (REAL) (i + j + (n - k)) * 10 / (n);
}

static void kernel_heat_3d(int tsteps, int n, REAL PBS_3D(A, N, N, N, n, n, n),
                           REAL PBS_3D(B, N, N, N, n, n, n))
{
  int t, i, j, k;

#pragma scop
  for (t = 1; t <= tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          B[i][j][k] = SCALAR(0.125) * (A[i + 1][j][k] - SCALAR(2.0) * A[i][j][k] + A[i - 1][j][k])
                     + SCALAR(0.125) * (A[i][j + 1][k] - SCALAR(2.0) * A[i][j][k] + A[i][j - 1][k])
                     + SCALAR(0.125) * (A[i][j][k + 1] - SCALAR(2.0) * A[i][j][k] + A[i][j][k - 1])
                     + A[i][j][k];
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = SCALAR(0.125) * (B[i + 1][j][k] - SCALAR(2.0) * B[i][j][k] + B[i - 1][j][k])
                     + SCALAR(0.125) * (B[i][j + 1][k] - SCALAR(2.0) * B[i][j][k] + B[i][j - 1][k])
                     + SCALAR(0.125) * (B[i][j][k + 1] - SCALAR(2.0) * B[i][j][k] + B[i][j][k - 1])
                     + B[i][j][k];
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N, tsteps = TSTEPS;
  REAL (*A)[N + PBS_PAD][N + PBS_PAD][N + PBS_PAD] = PBS_ALLOC_3D(REAL, N, N, N);
  REAL (*B)[N + PBS_PAD][N + PBS_PAD][N + PBS_PAD] = PBS_ALLOC_3D(REAL, N, N, N);

  init_array(n, *A, *B);
  PBS_TIMER_START();
  kernel_heat_3d(tsteps, n, *A, *B);
  PBS_TIMER_STOP();
  PBS_TIMER_PRINT();
  if (argc > 42) fprintf(stderr, REAL_FMT, A[0][1][1][1]);
  free((void *) A);
  free((void *) B);
  return 0;
}
