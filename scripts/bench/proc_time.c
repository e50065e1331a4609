/*
 * proc_time: a command as users run it, a fresh process each time, for
 * scripts/bench.sh's "command as users run it" section.  Runs PROG ARGS...
 * REPS times (fork + exec, standard output to /dev/null), each time after
 * the untimed shell command BEFORE when given (ADOL-C deletes the tapes it
 * reads: the copy is made there), and prints
 *   "proc MEDIAN_S MEDIAN_KiB MIN_S MAX_S"
 * the median wall time from fork to exit, the median peak resident set of
 * the child (wait4's ru_maxrss), the fastest and the slowest run.  Exits 1
 * when a run fails.  Usage: proc_time REPS [--before CMD] -- PROG ARGS...
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  const char *before = NULL;
  int reps, i, a = 2;
  double *t, *rss, tmin, tmax;
  if (argc < 4) return fprintf(stderr, "usage: proc_time REPS [--before CMD] -- PROG ARGS...\n"), 2;
  reps = atoi(argv[1]);
  if (a + 1 < argc && strcmp(argv[a], "--before") == 0) before = argv[a + 1], a += 2;
  if (a >= argc || strcmp(argv[a], "--") != 0 || a + 1 >= argc || reps < 1)
    return fprintf(stderr, "usage: proc_time REPS [--before CMD] -- PROG ARGS...\n"), 2;
  a++;
  t = (double *)malloc((size_t)reps * sizeof *t);
  rss = (double *)malloc((size_t)reps * sizeof *rss);
  if (!t || !rss) return 1;
  for (i = 0; i < reps; i++) {
    struct rusage ru;
    int status;
    pid_t pid;
    double t0;
    if (before && system(before) != 0) return fprintf(stderr, "proc_time: %s failed\n", before), 1;
    t0 = now();
    pid = fork();
    if (pid < 0) return perror("fork"), 1;
    if (pid == 0) {
      int fd = open("/dev/null", O_WRONLY);
      if (fd >= 0) dup2(fd, 1);
      execvp(argv[a], argv + a);
      _exit(127);
    }
    if (wait4(pid, &status, 0, &ru) != pid) return perror("wait4"), 1;
    t[i] = now() - t0;
    rss[i] = (double)ru.ru_maxrss;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      return fprintf(stderr, "proc_time: %s failed (status %d)\n", argv[a], status), 1;
  }
  tmin = tmax = t[0];
  for (i = 1; i < reps; i++) {
    if (t[i] < tmin) tmin = t[i];
    if (t[i] > tmax) tmax = t[i];
  }
  printf("proc %.6f %.0f %.6f %.6f\n", median(t, reps), median(rss, reps), tmin, tmax);
  free(t);
  free(rss);
  return 0;
}
