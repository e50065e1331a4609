/*
 * jacobian.cpp: ADOL-C's jacobian() on tapes, for comparing cgwb's
 * eliminated Jacobians with Debian's ADOL-C (spec/adolc/run-jacobian.sh).
 *
 *   jacobian tape TAG N M XFILE OUT.mtx
 *       in a directory holding a COPY of the tape set ADOLC-*_TAG.tap (a
 *       process that only reads a disk tape deletes it at exit:
 *       doc/adolc-format.md section 11): jacobian() at the
 *       point in XFILE (one value per line), written as Matrix Market.
 *   jacobian random SEED TAG
 *       records a random program (seeded) as tape TAG in the current
 *       directory with trace_off(1), computes jacobian() in the same process,
 *       and writes random.x (the point) and adolc.mtx (the Jacobian).
 *
 * The Matrix Market files hold every entry whose value is not 0, 1-based,
 * rows = dependents, %.17g.
 */
#include <adolc/adolc.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// Writes the nonzeros of the dense m x n matrix J.
int write_mtx(const char *path, int m, int n, double **J) {
  FILE *f = std::fopen(path, "w");
  if (!f) return 1;
  long nnz = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) nnz += J[i][j] != 0;
  std::fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d %d %ld\n", m, n, nnz);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      if (J[i][j] != 0) std::fprintf(f, "%d %d %.17g\n", i + 1, j + 1, J[i][j]);
  return std::fclose(f) != 0;
}

int run_tape(int tag, int n, int m, const char *xfile, const char *out) {
  std::vector<double> x(n);
  FILE *f = std::fopen(xfile, "r");
  if (!f) return std::perror(xfile), 2;
  for (int i = 0; i < n; i++)
    if (std::fscanf(f, "%lf", &x[i]) != 1) return std::fprintf(stderr, "%s: short\n", xfile), 2;
  std::fclose(f);
  double **J = myalloc2(m, n);
  int rc = jacobian((short)tag, m, n, x.data(), J);
  if (rc < 0) return std::fprintf(stderr, "jacobian() returned %d\n", rc), 1;
  rc = write_mtx(out, m, n, J);
  myfree2(J);
  return rc;
}

// xorshift64*, as spec/rng.lua.
struct Rng {
  unsigned long long s;
  explicit Rng(unsigned long long seed) {
    s = (seed * 2654435761ull + 88172645463325252ull) & 0x7fffffffffffffffull;
    if (!s) s = 1;
  }
  unsigned long long next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return (s >> 11) & 0x1fffffffffffffull;
  }
  int pick(int lo, int hi) { return lo + (int)(next() % (unsigned long long)(hi - lo + 1)); }
  double real(double lo, double hi) { return lo + (hi - lo) * ((double)next() / 9007199254740992.0); }
};

// A random straight-line program over a small pool of active variables:
// binary and unary operations that stay finite, in place updates, and
// constants; the last m pool entries written become the dependents.
int run_random(unsigned long long seed, int tag) {
  Rng r(seed);
  int n = r.pick(1, 5), len = r.pick(10, 60), pool = n + r.pick(2, 5);
  int m = r.pick(1, pool < 4 ? pool : 4); // distinct dependent locations
  std::vector<double> x(n), y(m);
  for (int i = 0; i < n; i++) x[i] = r.real(-1.5, 1.5);
  trace_on((short)tag, 1);
  {
    std::vector<adouble> v(pool);
    for (int i = 0; i < n; i++) v[i] <<= x[i];
    for (int i = n; i < pool; i++) v[i] = v[i % n] * r.real(0.5, 2.0);
    for (int s = 0; s < len; s++) {
      int d = r.pick(0, pool - 1), a = r.pick(0, pool - 1), b = r.pick(0, pool - 1);
      double c = r.real(-2, 2);
      switch (r.pick(0, 10)) {
        case 0: v[d] = v[a] + v[b]; break;
        case 1: v[d] = v[a] - v[b]; break;
        case 2: v[d] = v[a] * v[b]; break;
        case 3: v[d] = v[a] / (1.5 + sin(v[b])); break;
        case 4: v[d] = sin(v[a]) * c; break;
        case 5: v[d] = cos(v[a]) + v[b]; break;
        case 6: v[d] = exp(0.25 * sin(v[a])); break;
        case 7: v[d] += v[a] * v[b]; break;
        case 8: v[d] *= c; break;
        case 9: v[d] = sqrt(1.0 + v[a] * v[a]); break;
        default: v[d] = atan(v[a]) - c * v[b]; break;
      }
    }
    for (int j = 0; j < m; j++) v[(pool - 1 - j) % pool] >>= y[j];
  }
  trace_off(1);
  FILE *f = std::fopen("random.x", "w");
  if (!f) return 1;
  for (int i = 0; i < n; i++) std::fprintf(f, "%.17g\n", x[i]);
  std::fclose(f);
  double **J = myalloc2(m, n);
  int rc = jacobian((short)tag, m, n, x.data(), J);
  if (rc < 0) return std::fprintf(stderr, "jacobian() returned %d\n", rc), 1;
  rc = write_mtx("adolc.mtx", m, n, J);
  myfree2(J);
  std::printf("%d %d\n", n, m);
  return rc;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc == 7 && !std::strcmp(argv[1], "tape"))
    return run_tape(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), argv[5], argv[6]);
  if (argc == 4 && !std::strcmp(argv[1], "random"))
    return run_random(std::strtoull(argv[2], nullptr, 10), std::atoi(argv[3]));
  std::fprintf(stderr, "usage: jacobian tape TAG N M XFILE OUT.mtx | jacobian random SEED TAG\n");
  return 2;
}
