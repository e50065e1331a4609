/* jplan_driver.c: a compiled NAME_jac (cgwb codegen --jacobian --name bratu)
 * at many points (scripts/bench-jplan.sh).
 *
 *   jplan_driver N M POINTS OUT.mtx
 * One call outside the timing (first touches of the static workspace), then
 * every point timed in process CPU time.  Prints "compiled POINTS
 * SECONDS_PER_POINT NNZ"; the Jacobian at the last point goes to OUT.mtx.
 * Exits 3 if NAME_jac_checked reports a branch change at a point. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int bratu_jac_checked(const double *x, double *y, double *J);
extern const int bratu_jac_nnz, bratu_jac_rows[], bratu_jac_cols[];

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  int n, m, np = 0, cap = 16, i, k;
  double *pts, *y, *J, t0, per;
  FILE *f, *o;
  if (argc != 5) return fprintf(stderr, "usage: jplan_driver N M POINTS OUT.mtx\n"), 2;
  n = atoi(argv[1]), m = atoi(argv[2]);
  if (!(f = fopen(argv[3], "r"))) return perror(argv[3]), 2;
  pts = malloc((size_t)cap * n * sizeof *pts);
  for (;;) {
    if (np == cap) pts = realloc(pts, (size_t)(cap *= 2) * n * sizeof *pts);
    for (i = 0; i < n && fscanf(f, "%lf", &pts[(size_t)np * n + i]) == 1; i++) continue;
    if (i == 0) break;
    if (i < n) return fprintf(stderr, "%s: a short point\n", argv[3]), 2;
    np++;
  }
  fclose(f);
  y = malloc((size_t)m * sizeof *y), J = malloc((size_t)(bratu_jac_nnz + 1) * sizeof *J);
  if (!np || !pts || !y || !J) return fprintf(stderr, "jplan_driver: no points or no memory\n"), 2;
  if (bratu_jac_checked(pts, y, J)) return fprintf(stderr, "point 1: a branch changed\n"), 3;
  t0 = cpu_seconds();
  for (k = 0; k < np; k++)
    if (bratu_jac_checked(pts + (size_t)k * n, y, J))
      return fprintf(stderr, "point %d: a branch changed\n", k + 1), 3;
  per = (cpu_seconds() - t0) / np;
  if (!(o = fopen(argv[4], "w"))) return perror(argv[4]), 1;
  fprintf(o, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", m, n, bratu_jac_nnz);
  for (k = 0; k < bratu_jac_nnz; k++)
    fprintf(o, "%d %d %.17g\n", bratu_jac_rows[k], bratu_jac_cols[k], J[k]);
  fclose(o);
  printf("compiled %d %.9f %d\n", np, per, bratu_jac_nnz);
  free(pts), free(y), free(J);
  return 0;
}
