/* A small flux function for the split strategies of `cgwb flatten`
 * (examples/split-intrinsics.lua): a local Lax-Friedrichs flux of a 1-D
 * isothermal gas across a face of angle theta, between a left state (rl, ul)
 * and a right state (rr, ur) at temperature t, with a smoothness weight on
 * the dissipation.  One basic block of scalars and two distinct result cells:
 * `minimal` flattens it into one graph, `statement` into eight, and the
 * script that starts a subgraph at every intrinsic (sqrt, sin, exp) into
 * three: lines 13, 14-17 and 18-20. */
#include <math.h>

void flux1d(double rl, double ul, double rr, double ur, double t, double theta, double *f) {
  double c, n, vl, vr, s, d;
  c = sqrt(t);                            /* isothermal sound speed */
  n = sin(theta);                         /* normal component of the face */
  vl = ul * n;
  vr = ur * n;
  s = 0.5 * (vl + vr) + c;                /* wave speed estimate */
  d = exp(-(rr - rl) * (rr - rl));        /* smoothness weight */
  f[0] = 0.5 * (rl * vl + rr * vr) - 0.5 * s * d * (rr - rl);
  f[1] = 0.5 * (rl * vl * vl + rr * vr * vr + t * (rl + rr)) - 0.5 * s * d * (rr * vr - rl * vl);
}
