// spec/adolc/kernel-gradient.cpp: ADOL-C's gradient() of the kernel
// spec/support/realc/baenergy.c, the same text compiled with REAL = adouble
// (spec/52-realc-adolc_spec.lua).  Reads from stdin: nobs ncams npts, the
// obs pairs, the feats, the cams and X values (%.17g); prints the energy and
// then the gradient with respect to cams and X, one %a per line.
#include <adolc/adolc.h>
#include <cstdio>
#include <vector>
#define REAL adouble
#include "baenergy.c"

int main() {
  int nobs, ncams, npts;
  if (std::scanf("%d %d %d", &nobs, &ncams, &npts) != 3) return 2;
  std::vector<int> obs(2 * nobs);
  std::vector<double> feats(2 * nobs), x(BA_NCAM * ncams + BA_NPT * npts);
  for (int &o : obs) if (std::scanf("%d", &o) != 1) return 2;
  for (double &f : feats) if (std::scanf("%lf", &f) != 1) return 2;
  for (double &v : x) if (std::scanf("%lf", &v) != 1) return 2;
  const int n = (int)x.size();
  double y;
  trace_on(1);
  {
    std::vector<adouble> ax(n);
    for (int j = 0; j < n; j++) ax[j] <<= x[j];
    adouble e = ba_energy(nobs, ax.data(), ax.data() + BA_NCAM * ncams, obs.data(), feats.data());
    e >>= y;
  }
  trace_off();
  std::vector<double> g(n);
  if (gradient(1, n, x.data(), g.data()) < 0) return 3;
  std::printf("%a\n", y);
  for (double v : g) std::printf("%a\n", v);
  return 0;
}
