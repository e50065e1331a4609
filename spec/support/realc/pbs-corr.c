/* pbs-corr.c: the correlation matrix of m variables over n observations,
 * in the style of the polyhedral suites' data-mining kernels (written for
 * cgwb's tests). */
#include "pbs.h"

#ifndef M
# define M 5
# define N 7
#endif

static void init_array(int m, int n, REAL *float_n, REAL PBS_2D(data, N, M, n, m))
{
  int i, j;

  *float_n = (REAL) N;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = (REAL) (i * j) / M + i;
}

static void print_array(int m, REAL PBS_2D(corr, M, M, m, m))
{
  int i, j;

  PBS_DUMP_BEGIN("corr");
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++) {
      if ((i * m + j) % 20 == 0) fprintf(stderr, "\n");
      fprintf(stderr, REAL_FMT, corr[i][j]);
    }
  PBS_DUMP_END("corr");
}

static void kernel_correlation(int m, int n, REAL float_n,
                               REAL PBS_2D(data, N, M, n, m),
                               REAL PBS_2D(corr, M, M, m, m),
                               REAL PBS_1D(mean, M, m),
                               REAL PBS_1D(stddev, M, m))
{
  int i, j, k;
  REAL eps = SCALAR(0.1);

#pragma scop
  for (j = 0; j < m; j++) {
    mean[j] = SCALAR(0.0);
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }

  for (j = 0; j < m; j++) {
    stddev[j] = SCALAR(0.0);
    for (i = 0; i < n; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] /= float_n;
    stddev[j] = SQRT_OF(stddev[j]);
    /* a near-zero deviation would blow up the division below */
    stddev[j] = stddev[j] <= eps ? SCALAR(1.0) : stddev[j];
  }

  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= SQRT_OF(float_n) * stddev[j];
    }

  for (i = 0; i < m - 1; i++) {
    corr[i][i] = SCALAR(1.0);
    for (j = i + 1; j < m; j++) {
      corr[i][j] = SCALAR(0.0);
      for (k = 0; k < n; k++)
        corr[i][j] += (data[k][i] * data[k][j]);
      corr[j][i] = corr[i][j];
    }
  }
  corr[m - 1][m - 1] = SCALAR(1.0);
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N, m = M;
  REAL float_n;
  REAL (*data)[N + PBS_PAD][M + PBS_PAD] = PBS_ALLOC_2D(REAL, N, M);
  REAL (*corr)[M + PBS_PAD][M + PBS_PAD] = PBS_ALLOC_2D(REAL, M, M);
  REAL *mean = (REAL *) pbs_alloc(M, sizeof(REAL));
  REAL *stddev = (REAL *) pbs_alloc(M, sizeof(REAL));

  init_array(m, n, &float_n, *data);
  PBS_TIMER_START();
  kernel_correlation(m, n, float_n, *data, *corr, mean, stddev);
  PBS_TIMER_STOP();
  PBS_TIMER_PRINT();
  PBS_KEEP(print_array(m, *corr));
  free((void *) data);
  free((void *) corr);
  free(mean);
  free(stddev);
  return 0;
}
