/* pbs-gemm.c: C := alpha*A*B + beta*C, a benchmark program in the style of
 * the polyhedral suites (written for cgwb's tests). */
#include "pbs.h"

#ifndef NI
# define NI 6
# define NJ 5
# define NK 4
#endif
#define _NI ni
#define _NJ nj
#define _NK nk

static void init_array(int ni, int nj, int nk, REAL *alpha, REAL *beta,
                       REAL PBS_2D(C, NI, NJ, ni, nj),
                       REAL PBS_2D(A, NI, NK, ni, nk),
                       REAL PBS_2D(B, NK, NJ, nk, nj))
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (REAL) ((i * j + 1) % ni) / ni;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (REAL) (i * (j + 1) % nk) / nk;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (REAL) (i * (j + 2) % nj) / nj;
}

static void print_array(int ni, int nj, REAL PBS_2D(C, NI, NJ, ni, nj))
{
  int i, j;

  PBS_DUMP_BEGIN("C");
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      if ((i * ni + j) % 20 == 0) fprintf(stderr, "\n");
      fprintf(stderr, REAL_FMT, C[i][j]);
    }
  PBS_DUMP_END("C");
}

static void kernel_gemm(int ni, int nj, int nk, REAL alpha, REAL beta,
                        REAL PBS_2D(C, NI, NJ, ni, nj),
                        REAL PBS_2D(A, NI, NK, ni, nk),
                        REAL PBS_2D(B, NK, NJ, nk, nj))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _NI; i++) {
    for (j = 0; j < _NJ; j++)
      C[i][j] *= beta;
    for (k = 0; k < _NK; k++) {
      for (j = 0; j < _NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int ni = NI, nj = NJ, nk = NK;
  REAL alpha, beta;
  REAL (*C)[NI + PBS_PAD][NJ + PBS_PAD] = PBS_ALLOC_2D(REAL, NI, NJ);
  REAL (*A)[NI + PBS_PAD][NK + PBS_PAD] = PBS_ALLOC_2D(REAL, NI, NK);
  REAL (*B)[NK + PBS_PAD][NJ + PBS_PAD] = PBS_ALLOC_2D(REAL, NK, NJ);

  init_array(ni, nj, nk, &alpha, &beta, *C, *A, *B);
  PBS_TIMER_START();
  kernel_gemm(ni, nj, nk, alpha, beta, *C, *A, *B);
  PBS_TIMER_STOP();
  PBS_TIMER_PRINT();
  PBS_KEEP(print_array(ni, nj, *C));
  free((void *) C);
  free((void *) A);
  free((void *) B);
  return 0;
}
