/* kernel_run.c: the compiled side of the interpreter benchmark.  Linked with
 * a kernel from scripts/kbench-gen.lua compiled by `cc -O2`; fills the
 * arrays exactly as scripts/bench/kernel_interp.lua does, runs all(...)
 * REPS times on fresh copies, and prints
 *   compiled SECONDS SUM
 * (best time of the runs; SUM the %.17g sum of u and w after a run, to be
 * compared bit for bit with the interpreter's). */
#include <string.h>
#include "bench.h"

void all(double *restrict u, const double *v, const int *idx, double *w, double s, int n);

/* The inputs of the run: the same formulas as kernel_interp.lua. */
static void fill(double *u, double *v, int *idx, double *w, int n) {
  int i;
  for (i = 0; i < n; i++) {
    u[i] = (double)i / (double)n;
    v[i] = (double)(n - i) / (double)n;
    w[i] = 0.5;
    idx[i] = (int)(((long)i * 7) % n);
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000, reps = argc > 2 ? atoi(argv[2]) : 3, r, i;
  double *u = malloc((size_t)n * sizeof *u), *v = malloc((size_t)n * sizeof *v);
  double *w = malloc((size_t)n * sizeof *w), best = 1e300, sum = 0;
  int *idx = malloc((size_t)n * sizeof *idx);
  if (n < 8 || !u || !v || !w || !idx) return 2;
  for (r = 0; r < reps; r++) {
    double t0;
    fill(u, v, idx, w, n);
    t0 = now();
    all(u, v, idx, w, 0.75, n);
    t0 = now() - t0;
    if (t0 < best) best = t0;
  }
  for (i = 0; i < n; i++) sum += u[i];
  for (i = 0; i < n; i++) sum += w[i];
  printf("compiled %.9f %.17g\n", best, sum);
  free(u), free(v), free(w), free(idx);
  return 0;
}
