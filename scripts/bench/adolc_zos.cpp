// adolc_zos: times ADOL-C's zos_forward on a tape set in the current directory.
// usage: adolc_zos TAG XFILE REPEATS
// Prints: "zos_forward ops_per_eval SECONDS_PER_EVAL maxrss_kb" and the sum of y.
// ADOL-C deletes a disk tape that a process only reads, so run this on a copy.
#include <adolc/adolc.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include <vector>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: adolc_zos TAG XFILE REPEATS\n");
    return 2;
  }
  short tag = (short)atoi(argv[1]);
  int reps = atoi(argv[3]);
  size_t st[STAT_SIZE];
  tapestats(tag, st);
  int n = (int)st[NUM_INDEPENDENTS], m = (int)st[NUM_DEPENDENTS];
  std::vector<double> x(n), y(m);
  FILE *f = fopen(argv[2], "r");
  if (!f) return 1;
  for (int i = 0; i < n; i++)
    if (fscanf(f, "%lf", &x[i]) != 1) return 1;
  fclose(f);
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    int rc = zos_forward(tag, m, n, 0, x.data(), y.data());
    double t = now() - t0;
    if (rc < 0) return 1;
    if (t < best) best = t;
  }
  double sum = 0;
  for (int j = 0; j < m; j++) sum += y[j];
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("zos_forward %lu %.6f %ld %.17g\n", (unsigned long)st[NUM_OPERATIONS], best,
         ru.ru_maxrss, sum);
  return 0;
}
