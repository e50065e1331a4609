/* The Roe approximate Riemann solver (Roe 1981: P. L. Roe, Approximate
 * Riemann solvers, parameter vectors, and difference schemes, J. Comput.
 * Phys. 43 (1981) 357-372): the numerical flux of the 2-D Euler equations
 * across a cell face with unit normal (nx, ny), from the conserved states
 * left and right of it, q = (rho, rho u, rho v, E), for a perfect gas with
 * ratio of specific heats gamma.  The flux is the mean of the two physical
 * fluxes minus half the upwind dissipation |A(q_roe)| (qr - ql), written as
 * the sum over the four waves of |lambda_k| alpha_k r_k at the Roe-averaged
 * state.  The entropy fix bounds each |lambda_k| below by
 * delta = 0.1 (|u_n| + c) at the Roe state (as Harten's fix does, it keeps
 * the expansion shock out of sonic rarefactions, with a max in place of his
 * parabola), so the whole flux is one basic block of 64 active assignments:
 * the benchmark kernel of preaccumulated tangent code (doc/benchmarks.md).
 * Every input is active: the two states, the normal and gamma (11
 * independents, 4 dependents). */
#include <math.h>

void roe(const double *ql, const double *qr, double nx, double ny, double gamma, double *flux);

void roe(const double *ql, const double *qr, double nx, double ny, double gamma, double *flux) {
  double rl, ul, vl, el, pl, hl, unl, kl;
  double rr, ur, vr, er, pr, hr, unr, kr;
  double fl0, fl1, fl2, fl3, fr0, fr1, fr2, fr3;
  double sl, sr, w, u, v, h, q2, c2, c, un, rho;
  double dr, du, dv, dp, dun, dvt;
  double a1, a2, a3, a4, l1, l2, l3, delta;
  double g1, cc2, rc;
  double d0, d1, d2, d3;

  g1 = gamma - 1.0;
  /* the left state: primitives, the normal velocity, the physical flux */
  rl = ql[0];
  ul = ql[1] / rl;
  vl = ql[2] / rl;
  el = ql[3];
  kl = 0.5 * rl * (ul * ul + vl * vl);
  pl = g1 * (el - kl);
  hl = (el + pl) / rl;
  unl = ul * nx + vl * ny;
  fl0 = rl * unl;
  fl1 = fl0 * ul + pl * nx;
  fl2 = fl0 * vl + pl * ny;
  fl3 = (el + pl) * unl;
  /* the right state */
  rr = qr[0];
  ur = qr[1] / rr;
  vr = qr[2] / rr;
  er = qr[3];
  kr = 0.5 * rr * (ur * ur + vr * vr);
  pr = g1 * (er - kr);
  hr = (er + pr) / rr;
  unr = ur * nx + vr * ny;
  fr0 = rr * unr;
  fr1 = fr0 * ur + pr * nx;
  fr2 = fr0 * vr + pr * ny;
  fr3 = (er + pr) * unr;
  /* Roe's averages (weights sqrt(rho)) */
  sl = sqrt(rl);
  sr = sqrt(rr);
  w = sl + sr;
  u = (sl * ul + sr * ur) / w;
  v = (sl * vl + sr * vr) / w;
  h = (sl * hl + sr * hr) / w;
  rho = sl * sr;
  q2 = u * u + v * v;
  c2 = g1 * (h - 0.5 * q2);
  c = sqrt(c2);
  un = u * nx + v * ny;
  /* the jumps and the wave strengths */
  dr = rr - rl;
  du = ur - ul;
  dv = vr - vl;
  dp = pr - pl;
  dun = unr - unl;
  dvt = dv * nx - du * ny;
  cc2 = 2.0 * c2;
  rc = rho * c;
  a1 = (dp - rc * dun) / cc2;
  a2 = dr - dp / c2;
  a3 = (dp + rc * dun) / cc2;
  a4 = rho * dvt;
  /* the wave speeds with the entropy fix */
  delta = 0.1 * (fabs(un) + c);
  l1 = fmax(fabs(un - c), delta);
  l2 = fmax(fabs(un), delta);
  l3 = fmax(fabs(un + c), delta);
  a1 = l1 * a1;
  a2 = l2 * a2;
  a3 = l3 * a3;
  a4 = l2 * a4;
  /* the dissipation: sum of |lambda_k| alpha_k r_k */
  d0 = a1 + a2 + a3;
  d1 = a1 * (u - c * nx) + a2 * u + a3 * (u + c * nx) - a4 * ny;
  d2 = a1 * (v - c * ny) + a2 * v + a3 * (v + c * ny) + a4 * nx;
  d3 = a1 * (h - c * un) + a2 * 0.5 * q2 + a3 * (h + c * un) + a4 * (v * nx - u * ny);
  flux[0] = 0.5 * (fl0 + fr0 - d0);
  flux[1] = 0.5 * (fl1 + fr1 - d1);
  flux[2] = 0.5 * (fl2 + fr2 - d2);
  flux[3] = 0.5 * (fl3 + fr3 - d3);
}
