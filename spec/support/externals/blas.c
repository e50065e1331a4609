/* Library routines in the style of the BLAS, with hand-written tangents
 * and adjoints in the calling conventions cgwb states (doc/kernels.md,
 * "External functions"): a tangent returns the value and its tangent
 * through a pointer; an adjoint gets the values the routine got, adds to
 * the adjoints of its inputs (a NULL adjoint: a passive argument) and
 * consumes those of what it overwrites. */
#include <math.h>
#include <stddef.h>

double nrm2(int n, const double *x) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

double nrm2_d(int n, const double *x, const double *xd, double *nrm2_ret_d) {
  double r = nrm2(n, x), sd = 0.0;
  int i;
  for (i = 0; i < n; i++) sd += x[i] * xd[i];
  *nrm2_ret_d = sd / r;
  return r;
}

void nrm2_b(int n, const double *x, double *xb, double nrm2_retb) {
  double r = nrm2(n, x);
  int i;
  if (xb)
    for (i = 0; i < n; i++) xb[i] += nrm2_retb * x[i] / r;
}

void scal(int n, double a, double *x) {
  int i;
  for (i = 0; i < n; i++) x[i] *= a;
}

void scal_d(int n, double a, double ad, double *x, double *xd) {
  int i;
  for (i = 0; i < n; i++) {
    xd[i] = ad * x[i] + a * xd[i];
    x[i] *= a;
  }
}

void scal_b(int n, double a, double *ab, double *x, double *xb) {
  int i;
  for (i = 0; i < n; i++) {
    if (ab) *ab += x[i] * xb[i];
    xb[i] *= a;
  }
}
