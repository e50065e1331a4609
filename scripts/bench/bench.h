/* bench.h: what the benchmark drivers share: a monotonic clock and reading
 * a point file (one value per line). */
#ifndef CG_BENCH_H
#define CG_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__GNUC__)
#define BENCH_UNUSED __attribute__((unused))
#else
#define BENCH_UNUSED
#endif

BENCH_UNUSED static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* n values from path into a new array; exits with status 2 on bad input. */
BENCH_UNUSED static double *read_x(const char *path, size_t n) {
  double *x = (double *)calloc(n ? n : 1, sizeof *x);
  FILE *f = fopen(path, "r");
  size_t i;
  if (!f || !x) exit(2);
  for (i = 0; i < n; i++)
    if (fscanf(f, "%lf", &x[i]) != 1) exit(2);
  fclose(f);
  return x;
}

#endif
