/*
 * adolc_jac: Debian's ADOL-C computing a tape's Jacobian two ways, for the
 * elimination benchmark (scripts/bench.sh):
 *   dense   jacobian() (vector forward or reverse mode over all directions);
 *   colour  jac_pat (sparsity pattern) + a ColPack partial distance-2
 *           column colouring (SMALLEST_LAST) + one compressed fov_forward +
 *           recovery of the entries.
 * Run in a directory holding a COPY of the tape set (ADOL-C deletes tapes it
 * only reads).  Usage: adolc_jac TAG N M XFILE REPEATS
 * Prints: "dense SECONDS KiB NNZ SUM" and "colour SECONDS KiB NNZ SUM COLOURS
 * PATTERN_S COLOUR_S FORWARD_S"; SUM is the sum of the nonzero entries.
 */
#include <adolc/adolc.h>
#include <adolc/sparse/sparsedrivers.h>
#include <ColPack/ColPackHeaders.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

static double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static long maxrss() {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

int main(int argc, char **argv) {
  if (argc != 6) return std::fprintf(stderr, "usage: adolc_jac TAG N M XFILE REPEATS\n"), 2;
  short tag = (short)std::atoi(argv[1]);
  int n = std::atoi(argv[2]), m = std::atoi(argv[3]), reps = std::atoi(argv[5]);
  std::vector<double> x(n), y(m);
  FILE *f = std::fopen(argv[4], "r");
  for (int i = 0; i < n; i++)
    if (!f || std::fscanf(f, "%lf", &x[i]) != 1) return 2;
  std::fclose(f);

  double **J = myalloc2(m, n), best = 1e30, sum = 0;
  long nnz = 0, rss0 = maxrss();
  for (int r = 0; r < reps; r++) {
    double t = now();
    if (jacobian(tag, m, n, x.data(), J) < 0) return 1;
    t = now() - t;
    if (t < best) best = t;
  }
  long rss1 = maxrss();
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      if (J[i][j] != 0) nnz++, sum += J[i][j];
  std::printf("dense %.6f %ld %ld %.17g\n", best, rss1 - rss0, nnz, sum);
  myfree2(J);

  double bp = 1e30, bc = 1e30, bf = 1e30, bt = 1e30, csum = 0;
  long cnnz = 0;
  int colours = 0;
  for (int r = 0; r < reps; r++) {
    unsigned int **JP = (unsigned int **)std::malloc(m * sizeof(unsigned int *));
    int ctrl[3] = {0, 0, 0};
    double t0 = now();
    if (jac_pat(tag, m, n, x.data(), JP, ctrl) < 0) return 1;
    double t1 = now();
    ColPack::BipartiteGraphPartialColoringInterface g(SRC_MEM_ADOLC, JP, m, n);
    g.PartialDistanceTwoColoring("SMALLEST_LAST", "COLUMN_PARTIAL_DISTANCE_TWO");
    int sr = 0, sc = 0;
    double **seed = g.GetSeedMatrix(&sr, &sc);
    double t2 = now();
    double **Yc = myalloc2(m, sc);
    fov_forward(tag, m, n, sc, x.data(), seed, y.data(), Yc);
    double t3 = now();
    std::vector<int> colour(n, 0);
    for (int j = 0; j < n; j++)
      for (int c = 0; c < sc; c++)
        if (seed[j][c] != 0) colour[j] = c;
    csum = 0, cnnz = 0;
    for (int i = 0; i < m; i++)
      for (unsigned k = 1; k <= JP[i][0]; k++) {
        double v = Yc[i][colour[JP[i][k]]];
        if (v != 0) cnnz++, csum += v;
      }
    double t4 = now();
    colours = sc;
    if (t1 - t0 < bp) bp = t1 - t0;
    if (t2 - t1 < bc) bc = t2 - t1;
    if (t3 - t2 < bf) bf = t3 - t2;
    if (t4 - t0 < bt) bt = t4 - t0;
    myfree2(Yc);
    for (int i = 0; i < m; i++) std::free(JP[i]);
    std::free(JP);
  }
  std::printf("colour %.6f %ld %ld %.17g %d %.6f %.6f %.6f\n", bt, maxrss() - rss1, cnnz, csum,
              colours, bp, bc, bf);
  return 0;
}
