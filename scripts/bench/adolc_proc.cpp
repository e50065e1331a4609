/*
 * adolc_proc: one process as a user runs it: read a point, call ADOL-C's
 * jacobian() (dense, m x n) or gradient() (m = 1) once on a tape, print the
 * sum of the entries, exit.  For scripts/bench.sh's "command as users run
 * it" section, timed from outside as a whole process (wall, max RSS).
 * Run in a directory holding a COPY of the tape set (ADOL-C deletes tapes it
 * only reads).  Usage: adolc_proc jacobian|gradient TAG N M XFILE
 */
#include <adolc/adolc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 6) return std::fprintf(stderr, "usage: adolc_proc jacobian|gradient TAG N M XFILE\n"), 2;
  bool grad = std::strcmp(argv[1], "gradient") == 0;
  short tag = (short)std::atoi(argv[2]);
  int n = std::atoi(argv[3]), m = std::atoi(argv[4]);
  std::vector<double> x(n);
  FILE *f = std::fopen(argv[5], "r");
  for (int i = 0; i < n; i++)
    if (!f || std::fscanf(f, "%lf", &x[i]) != 1) return 2;
  std::fclose(f);
  double sum = 0;
  if (grad) {
    std::vector<double> g(n);
    if (m != 1 || gradient(tag, n, x.data(), g.data()) < 0) return 1;
    for (int j = 0; j < n; j++) sum += g[j];
  } else {
    double **J = myalloc2(m, n);
    if (jacobian(tag, m, n, x.data(), J) < 0) return 1;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) sum += J[i][j];
    myfree2(J);
  }
  std::printf("%.17g\n", sum);
  return 0;
}
