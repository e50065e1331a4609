/*
 * adolc_nsloops: Debian's ADOL-C taping examples/kernels/nsloops.c (its text
 * over adoubles: the C file stays the single source) on a mesh of
 * scripts/bench/mesh.lua, and its gradient, for doc/results/adjoint-loops.md
 * (scripts/bench-adjoint.sh).  Independents: w0..w3, x, y (the kernel's
 * order); dependent: cost[0].
 *   usage: adolc_nsloops MESH REPS [GRADFILE]
 * Prints, one "key value..." a line:
 *   adolc_tape OPS LOCS VALS BYTES    (tapestats: operations, locations and
 *                                      values recorded, BYTES = OPS * 1 + LOCS
 *                                      * sizeof(locint) + VALS * 8)
 *   adolc_taylor VALUES BYTES         (the value stack the gradient's forward sweep keeps)
 *   adolc_lives MAXLIVE BYTES         (the most live locations: its adjoint vector, 8 bytes each)
 *   adolc_time TAPE GRADIENT BOTH     (medians over REPS, seconds: trace_on ..
 *                                      trace_off; gradient(); the two in a row)
 *   adolc_cost J
 * and writes the gradient (%.17g, one a line, w0..w3 then x, y) to GRADFILE.
 */
#include <adolc/adolc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "nsmesh.h"

#define restrict __restrict__
#define double adouble // the kernel's text, over adoubles
#include "../../examples/kernels/nsloops.c"
#undef double
#undef restrict

static double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Records the kernel at the point xin (w0..w3, x, y, 6 nv values) on tag 1; returns the cost.
static double record(const ns_mesh &m, const std::vector<double> &xin, double dt, double mu) {
  int nv = m.nv, nt = m.nt;
  double J = 0;
  trace_on(1);
  {
    std::vector<adouble> W(4 * nv), X(nv), Y(nv), work(21 * nv + 7 * nt + 1);
    for (int i = 0; i < 4 * nv; i++) W[i] <<= xin[i];
    for (int i = 0; i < nv; i++) X[i] <<= xin[4 * nv + i];
    for (int i = 0; i < nv; i++) Y[i] <<= xin[5 * nv + i];
    adouble *q = work.data();
    adouble *r = q, *u = r + nv, *v = u + nv, *p = v + nv, *rx = p + nv, *ry = rx + nv,
            *ux = ry + nv, *uy = ux + nv, *vx = uy + nv, *vy = vx + nv, *px = vy + nv,
            *py = px + nv, *dual = py + nv, *res0 = dual + nv, *res1 = res0 + nv,
            *res2 = res1 + nv, *res3 = res2 + nv, *wn0 = res3 + nv, *wn1 = wn0 + nv,
            *wn2 = wn1 + nv, *wn3 = wn2 + nv, *area = wn3 + nv,
            *gx = area + nt, *gy = gx + 3 * nt, *cost = gy + 3 * nt;
    nsloops(nv, m.ne, nt, m.tri, m.edge, X.data(), Y.data(), &W[0], &W[nv], &W[2 * nv],
            &W[3 * nv], r, u, v, p, rx, ry, ux, uy, vx, vy, px, py, dual, area, gx, gy, res0,
            res1, res2, res3, wn0, wn1, wn2, wn3, adouble(dt), adouble(mu),
            cost);
    cost[0] >>= J;
  }
  trace_off();
  return J;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4)
    return std::fprintf(stderr, "usage: adolc_nsloops MESH REPS [GRADFILE]\n"), 2;
  ns_mesh m;
  if (ns_read(argv[1], &m)) return 2;
  int reps = std::atoi(argv[2]), nv = m.nv, n = 6 * nv;
  if (reps < 1) reps = 1;
  std::vector<double> xin(n), g(n);
  ns_state(&m, &xin[0], &xin[nv], &xin[2 * nv], &xin[3 * nv]);
  std::copy(m.x, m.x + nv, &xin[4 * nv]);
  std::copy(m.y, m.y + nv, &xin[5 * nv]);
  double dt = 0.2 / m.n, mu = 0.01, J = 0;
  std::vector<double> tt, tg, tb;
  for (int k = 0; k < reps; k++) {
    double t0 = now();
    J = record(m, xin, dt, mu);
    double t1 = now();
    gradient(1, n, xin.data(), g.data());
    double t2 = now();
    gradient(1, n, xin.data(), g.data()); // again: the gradient alone, on a recorded tape
    double t3 = now();
    tt.push_back(t1 - t0);
    tb.push_back(t2 - t0);
    tg.push_back(t3 - t2);
  }
  size_t st[STAT_SIZE];
  tapestats(1, st);
  unsigned long long ops = st[NUM_OPERATIONS], locs = st[NUM_LOCATIONS], vals = st[NUM_VALUES];
  std::printf("adolc_tape %llu %llu %llu %llu\n", ops, locs, vals,
              ops + locs * (unsigned long long)sizeof(locint) + vals * 8ULL);
  std::printf("adolc_taylor %llu %llu\n", (unsigned long long)st[TAY_STACK_SIZE],
              8ULL * st[TAY_STACK_SIZE]);
  std::printf("adolc_lives %llu %llu\n", (unsigned long long)st[NUM_MAX_LIVES],
              8ULL * st[NUM_MAX_LIVES]);
  std::printf("adolc_time %.9g %.9g %.9g\n", median(tt), median(tg), median(tb));
  std::printf("adolc_cost %.17g\n", J);
  if (argc == 4) {
    FILE *f = std::fopen(argv[3], "w");
    if (!f) return std::fprintf(stderr, "%s: cannot write\n", argv[3]), 2;
    for (int i = 0; i < n; i++) std::fprintf(f, "%.17g\n", g[i]);
    if (std::fclose(f)) return std::fprintf(stderr, "%s: cannot write\n", argv[3]), 2;
  }
  ns_free(&m);
  return 0;
}
