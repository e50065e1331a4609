/* roe_point.h: the point of the Roe flux benchmark (scripts/bench-flatten.sh),
 * shared by the ADOL-C driver and the compiled one: ql[0..3], qr[0..3], nx,
 * ny, gamma of examples/kernels/roe.c.  A subsonic face (Mach about 0.3)
 * with an oblique normal, away from the entropy fix's switch points. */
#ifndef ROE_POINT_H
#define ROE_POINT_H

enum { ROE_N = 11, ROE_M = 4 };
static const double ROE_X[ROE_N] = {
    1.0, 0.3, 0.1, 2.55,                   /* rho, rho u, rho v, E: u = 0.3, v = 0.1, p = 1 */
    0.9, 0.225, -0.045, 2.02925,            /* u = 0.25, v = -0.05, p = 0.8 */
    0.955336489125606, 0.29552020666133955, /* cos 0.3, sin 0.3 */
    1.4};

#endif
