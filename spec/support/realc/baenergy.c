/* baenergy.c: a bundle-adjustment energy (a robust sum over the
 * observations of squared reprojection errors, with an angle-axis rotation
 * and radial distortion), written once over the type REAL: as C (REAL is
 * double) it is cgwb's kernel; as C++ with REAL defined as ADOL-C's adouble
 * it is the function ADOL-C records (spec/adolc/kernel-gradient.cpp), so
 * both tools differentiate the same text (written for cgwb's tests, in the
 * style of the objectives AD tools are compared on). */
#ifndef REAL
#define REAL double
#endif
#include <math.h>

#define BA_NCAM 9 /* per camera: rotation (3), centre (3), focal length, two distortion terms */
#define BA_NPT 3

/* q = R(w) p, R the rotation by |w| about w / |w|; near the identity the
 * first-order formula (no division by a vanishing angle) */
static void rotate(const REAL *w, const REAL *p, REAL *q)
{
  REAL t2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
  if (t2 > 1e-16) {
    REAL t = sqrt(t2);
    REAL c = cos(t), s = sin(t);
    REAL k[3];
    int i;
    for (i = 0; i < 3; i++) k[i] = w[i] / t;
    REAL kp = (k[0] * p[0] + k[1] * p[1] + k[2] * p[2]) * (1.0 - c);
    q[0] = p[0] * c + (k[1] * p[2] - k[2] * p[1]) * s + k[0] * kp;
    q[1] = p[1] * c + (k[2] * p[0] - k[0] * p[2]) * s + k[1] * kp;
    q[2] = p[2] * c + (k[0] * p[1] - k[1] * p[0]) * s + k[2] * kp;
  } else {
    q[0] = p[0] + w[1] * p[2] - w[2] * p[1];
    q[1] = p[1] + w[2] * p[0] - w[0] * p[2];
    q[2] = p[2] + w[0] * p[1] - w[1] * p[0];
  }
}

/* observation i sees point obs[2i + 1] from camera obs[2i] at feats[2i..2i+1] */
REAL ba_energy(int nobs, const REAL *cams, const REAL *X, const int *obs, const double *feats)
{
  REAL e = 0.0;
  int i, k;
  for (i = 0; i < nobs; i++) {
    const REAL *cam = &cams[BA_NCAM * obs[2 * i]];
    const REAL *x = &X[BA_NPT * obs[2 * i + 1]];
    REAL p[3], q[3];
    for (k = 0; k < 3; k++) p[k] = x[k] - cam[3 + k];
    rotate(cam, p, q);
    REAL u = q[0] / q[2], v = q[1] / q[2];
    REAL r2 = u * u + v * v;
    REAL f = cam[6] * (1.0 + cam[7] * r2 + cam[8] * r2 * r2);
    REAL du = f * u - feats[2 * i], dv = f * v - feats[2 * i + 1];
    e += log(1.0 + du * du + dv * dv);
  }
  return e;
}
