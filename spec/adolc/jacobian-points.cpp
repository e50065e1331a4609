/*
 * jacobian-points.cpp: ADOL-C's jacobian() of one tape at many points, for
 * comparing cgwb's kept Jacobian plans (spec/36-jplan_spec.lua).
 *
 *   jacobian-points TAG N M POINTS OUT
 *       in a directory holding a COPY of the tape set ADOLC-*_TAG.tap (a
 *       process that only reads a disk tape deletes it at exit:
 *       doc/adolc-format.md section 11): POINTS holds one point a line (N
 *       numbers); OUT receives per point a line "point K NNZ" then the
 *       nonzeros "ROW COL VALUE" (1-based, row-major, %.17g).
 */
#include <adolc/adolc.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 6) return std::fprintf(stderr, "usage: jacobian-points TAG N M POINTS OUT\n"), 2;
  int tag = std::atoi(argv[1]), n = std::atoi(argv[2]), m = std::atoi(argv[3]);
  FILE *in = std::fopen(argv[4], "r"), *out = std::fopen(argv[5], "w");
  if (!in || !out) return std::perror("jacobian-points"), 2;
  std::vector<double> x(n);
  double **J = myalloc2(m, n);
  for (int k = 1;; k++) {
    for (int i = 0; i < n; i++)
      if (std::fscanf(in, "%lf", &x[i]) != 1) {
        if (i == 0) return myfree2(J), std::fclose(in), std::fclose(out) != 0;
        return std::fprintf(stderr, "%s: point %d is short\n", argv[4], k), 2;
      }
    int rc = jacobian((short)tag, m, n, x.data(), J);
    if (rc < 0) return std::fprintf(stderr, "jacobian() returned %d\n", rc), 1;
    long nnz = 0;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) nnz += J[i][j] != 0;
    std::fprintf(out, "point %d %ld\n", k, nnz);
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++)
        if (J[i][j] != 0) std::fprintf(out, "%d %d %.17g\n", i + 1, j + 1, J[i][j]);
  }
}
