/*
 * adolc_sparse_jac.cpp: ADOL-C's sparse_jac with repeat = 1 at many points
 * (scripts/bench-jplan.sh).  Debian's libadolc refuses sparse_jac ("can only
 * be used if linked with ColPack"), so this does what it does, with the same
 * calls: at the first point, outside the timing (repeat = 0), the sparsity
 * pattern (jac_pat) and a ColPack partial distance-2 column colouring
 * (SMALLEST_LAST) with its seed matrix; then at every point (repeat = 1) one
 * compressed fov_forward and the recovery of the entries.
 *
 *   adolc_sparse_jac TAG N M POINTS OUT.mtx
 *       in a directory holding a copy of the tape set ADOLC-*_TAG.tap; timed
 *       in process CPU time.
 *       Prints "sparse_jac POINTS SECONDS_PER_POINT NNZ"; the Jacobian at the
 *       last point goes to OUT.mtx.
 */
#include <adolc/adolc.h>
#include <adolc/sparse/sparsedrivers.h>
#include <ColPack/ColPackHeaders.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

static double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 6) return std::fprintf(stderr, "usage: adolc_sparse_jac TAG N M POINTS OUT.mtx\n"), 2;
  short tag = (short)std::atoi(argv[1]);
  int n = std::atoi(argv[2]), m = std::atoi(argv[3]);
  FILE *f = std::fopen(argv[4], "r");
  if (!f) return std::perror(argv[4]), 2;
  std::vector<std::vector<double>> pts;
  for (;;) {
    std::vector<double> x(n);
    int i;
    for (i = 0; i < n && std::fscanf(f, "%lf", &x[i]) == 1; i++) continue;
    if (i == 0) break;
    if (i < n) return std::fprintf(stderr, "%s: a short point\n", argv[4]), 2;
    pts.push_back(x);
  }
  std::fclose(f);
  if (pts.empty()) return std::fprintf(stderr, "%s: no points\n", argv[4]), 2;
  /* repeat = 0: the pattern, the colouring, the seed matrix, the recovery map */
  unsigned int **JP = (unsigned int **)std::malloc(m * sizeof(unsigned int *));
  int ctrl[3] = {0, 0, 0};
  if (jac_pat(tag, m, n, pts[0].data(), JP, ctrl) < 0) return std::fprintf(stderr, "jac_pat failed\n"), 1;
  ColPack::BipartiteGraphPartialColoringInterface g(SRC_MEM_ADOLC, JP, m, n);
  g.PartialDistanceTwoColoring("SMALLEST_LAST", "COLUMN_PARTIAL_DISTANCE_TWO");
  int sr = 0, sc = 0;
  double **seed = g.GetSeedMatrix(&sr, &sc);
  std::vector<int> colour(n, 0);
  for (int j = 0; j < n; j++)
    for (int c = 0; c < sc; c++)
      if (seed[j][c] != 0) colour[j] = c;
  std::vector<unsigned> rind, cind;
  for (int i = 0; i < m; i++)
    for (unsigned k = 1; k <= JP[i][0]; k++) rind.push_back((unsigned)i), cind.push_back(JP[i][k]);
  int nnz = (int)rind.size();
  std::vector<double> values(nnz), y(m);
  double **Yc = myalloc2(m, sc);
  /* repeat = 1 at every point */
  double t0 = cpu_seconds();
  for (const auto &x : pts) {
    fov_forward(tag, m, n, sc, x.data(), seed, y.data(), Yc);
    for (int k = 0; k < nnz; k++) values[k] = Yc[rind[k]][colour[cind[k]]];
  }
  double per = (cpu_seconds() - t0) / (double)pts.size();
  FILE *o = std::fopen(argv[5], "w");
  if (!o) return std::perror(argv[5]), 1;
  std::fprintf(o, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", m, n, nnz);
  for (int k = 0; k < nnz; k++) std::fprintf(o, "%u %u %.17g\n", rind[k] + 1, cind[k] + 1, values[k]);
  std::fclose(o);
  std::printf("sparse_jac %zu %.9f %d %d\n", pts.size(), per, nnz, sc);
  myfree2(Yc);
  for (int i = 0; i < m; i++) std::free(JP[i]);
  std::free(JP);
  return 0;
}
