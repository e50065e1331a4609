/*
 * cavity.cpp -- the "Cavity" application of Bischof & Hu 1991 (section 4):
 * flow in a driven cavity, MINPACK-2 dfdcfj (Averick, October 1991): stream-function
 * formulation of the incompressible Navier-Stokes equations on the unit square,
 * lid moving with unit velocity along the top.  Default grid 31 x 31: 961
 * independents (stream function psi), 961 dependents.
 *
 * Usage: cavity [--grid NX NY] [--tag T] [--reynolds R] [--stats] OUTDIR
 *   writes OUTDIR/ADOLC-{Operations,Locations,Values}_<T>.tap, OUTDIR/cavity.x,
 *   OUTDIR/cavity.y (defaults: NX 31, NY 31, T 3, R 100).  NX, NY >= 2.
 *
 * PDE:  Laplace^2 psi - R * (psi_y * (Laplace psi)_x - psi_x * (Laplace psi)_y) = 0,
 *       psi = 0 on the boundary, d psi/dn = 0 on the boundary except
 *       d psi/dy = 1 on the top (y = 1, the moving lid).
 * Grid: x_j = (j+1)*hx, j = 0..NX-1, hx = 1/(NX+1); y_i = (i+1)*hy, i = 0..NY-1,
 *       hy = 1/(NY+1); unknown / residual index k = i*NX + j (j fastest).
 *
 * At each point the 13-point stencil values are copied into named variables
 * (MINPACK-2 names; b = bottom i-1, t = top i+1, l = left j-1, r = right j+1,
 * doubled letter = two away); a neighbour outside the grid is 0 (psi = 0 on the
 * wall), except the points two away across a wall, which reflect psi so that
 * the normal derivative vanishes (or is 1 on the lid):
 *     pbl = 0 if i = 0 or j = 0             else x[k-NX-1]
 *     pb  = 0 if i = 0                      else x[k-NX]
 *     pbb = x[k] if i = 0;  0 if i = 1;     else x[k-2NX]
 *     pbr = 0 if i = 0 or j = NX-1          else x[k-NX+1]
 *     pl  = 0 if j = 0                      else x[k-1]
 *     pll = x[k] if j = 0;  0 if j = 1;     else x[k-2]
 *     p   = x[k]
 *     pr  = 0 if j = NX-1                   else x[k+1]
 *     prr = x[k] if j = NX-1; 0 if j = NX-2; else x[k+2]
 *     ptl = 0 if i = NY-1 or j = 0          else x[k+NX-1]
 *     pt  = 0 if i = NY-1                   else x[k+NX]
 *     ptt = x[k] + 2*hy if i = NY-1;  0 if i = NY-2;  else x[k+2NX]
 *     ptr = 0 if i = NY-1 or j = NX-1       else x[k+NX+1]
 * With ihx2 = 1/hx^2, ihy2 = 1/hy^2, i2hx = 1/(2hx), i2hy = 1/(2hy):
 *     dpdy  = (pt - pb) * i2hy,   dpdx = (pr - pl) * i2hx
 *     pblap = (pbr - 2pb + pbl)*ihx2 + (p - 2pb + pbb)*ihy2
 *     pllap = (p - 2pl + pll)*ihx2 + (ptl - 2pl + pbl)*ihy2
 *     plap  = (pr - 2p + pl)*ihx2 + (pt - 2p + pb)*ihy2
 *     prlap = (prr - 2pr + p)*ihx2 + (ptr - 2pr + pbr)*ihy2
 *     ptlap = (ptr - 2pt + ptl)*ihx2 + (ptt - 2pt + p)*ihy2
 *     F_k = hx^2 hy^2 * [ (prlap - 2plap + pllap)*ihx2 + (ptlap - 2plap + pblap)*ihy2
 *                         - R * (dpdy*(prlap - pllap)*i2hx - dpdx*(ptlap - pblap)*i2hy) ]
 * (MINPACK-2 divides by hx2, 2hx, ...; here every division by a constant is a
 * product with its precomputed reciprocal, which is what ADOL-C tapes anyway,
 * so the plain double code computes the same bits as the tape.)
 *
 * Starting point x0 (MINPACK-2's is 0; this one is nonzero and shaped like the
 * solution: zero on the walls, slope 1 under the lid at mid-span):
 *     x0_k = 16 * X^2 (1-X)^2 * Y^2 (Y - 1),  X = (j+1)*hx, Y = (i+1)*hy.
 *
 * Coding rule (for a line-by-line Lua port): every right-hand side is a chain
 * in which each operation has at most one operand that is itself computed, so
 * the order of the taped operations is the order of the source text.  Each
 * Laplacian is computed in the helper cavity_lap (MINPACK-2's "bar").
 */
#include "common.h"

/* lap = (e - 2c + w)*ihx2 + (n - 2c + s)*ihy2, with the named temporaries t, s2. */
template <class T>
static void cavity_lap(const T &e, const T &c, const T &w, const T &n, const T &s,
                       double ihx2, double ihy2, T &t, T &s2, T &lap)
{
    t = 2.0 * c;
    s2 = e - t;
    s2 += w;
    s2 *= ihx2;
    lap = n - t;
    lap += s;
    lap *= ihy2;
    lap += s2;
}

/* Residual F(x) of MINPACK-2 dfdcfj; T = double or adouble. */
template <class T>
static void cavity_residual(int nx, int ny, double r, const T *x, T *f)
{
    double hx = 1.0 / (nx + 1), hy = 1.0 / (ny + 1);
    double ihx2 = 1.0 / (hx * hx), ihy2 = 1.0 / (hy * hy);
    double i2hx = 1.0 / (2.0 * hx), i2hy = 1.0 / (2.0 * hy);
    double scale = hx * hx * hy * hy;
    T pbb, pbl, pb, pbr, pll, pl, p, pr, prr, ptl, pt, ptr, ptt;
    T dpdy, dpdx, plap, pblap, pllap, prlap, ptlap, t, s2, a, b, fk;

    for (int i = 0; i < ny; i++) {
        for (int j = 0; j < nx; j++) {
            int k = i * nx + j;
            if (i == 0 || j == 0) pbl = 0.0; else pbl = x[k - nx - 1];
            if (i == 0) { pb = 0.0; pbb = x[k]; }
            else if (i == 1) { pb = x[k - nx]; pbb = 0.0; }
            else { pb = x[k - nx]; pbb = x[k - 2 * nx]; }
            if (i == 0 || j == nx - 1) pbr = 0.0; else pbr = x[k - nx + 1];
            if (j == 0) { pl = 0.0; pll = x[k]; }
            else if (j == 1) { pl = x[k - 1]; pll = 0.0; }
            else { pl = x[k - 1]; pll = x[k - 2]; }
            p = x[k];
            if (j == nx - 2) { pr = x[k + 1]; prr = 0.0; }
            else if (j == nx - 1) { pr = 0.0; prr = x[k]; }
            else { pr = x[k + 1]; prr = x[k + 2]; }
            if (i == ny - 1 || j == 0) ptl = 0.0; else ptl = x[k + nx - 1];
            if (i == ny - 2) { pt = x[k + nx]; ptt = 0.0; }
            else if (i == ny - 1) { pt = 0.0; ptt = x[k] + 2.0 * hy; }
            else { pt = x[k + nx]; ptt = x[k + 2 * nx]; }
            if (i == ny - 1 || j == nx - 1) ptr = 0.0; else ptr = x[k + nx + 1];

            dpdy = pt - pb;
            dpdy *= i2hy;
            dpdx = pr - pl;
            dpdx *= i2hx;

            /* Laplacians at the five points of the stencil */
            cavity_lap(pbr, pb, pbl, p, pbb, ihx2, ihy2, t, s2, pblap);
            cavity_lap(p, pl, pll, ptl, pbl, ihx2, ihy2, t, s2, pllap);
            cavity_lap(pr, p, pl, pt, pb, ihx2, ihy2, t, s2, plap);
            cavity_lap(prr, pr, p, ptr, pbr, ihx2, ihy2, t, s2, prlap);
            cavity_lap(ptr, pt, ptl, ptt, p, ihx2, ihy2, t, s2, ptlap);

            /* biharmonic part: Laplacian of the Laplacian */
            cavity_lap(prlap, plap, pllap, ptlap, pblap, ihx2, ihy2, t, s2, fk);
            /* convective part */
            a = prlap - pllap;
            a *= dpdy;
            a *= i2hx;
            b = ptlap - pblap;
            b *= dpdx;
            b *= i2hy;
            a -= b;
            a *= r;
            fk -= a;
            fk *= scale;
            f[k] = fk;
        }
    }
}

/* The starting point documented above. */
static void cavity_start(int nx, int ny, double *x)
{
    double hx = 1.0 / (nx + 1), hy = 1.0 / (ny + 1);
    for (int i = 0; i < ny; i++) {
        double yy = (i + 1) * hy;
        for (int j = 0; j < nx; j++) {
            double xx = (j + 1) * hx;
            x[i * nx + j] = 16.0 * xx * xx * (1.0 - xx) * (1.0 - xx) * yy * yy * (yy - 1.0);
        }
    }
}

int main(int argc, char **argv)
{
    const char *usage = "cavity [--grid NX NY] [--tag T] [--reynolds R] [--stats] OUTDIR";
    ExOptions o = {31, 31, 3, 0, NULL};
    double reynolds = 100.0;
    for (int i = 1; i < argc; i++) {
        if (ex_common_option(argc, argv, &i, &o, usage)) continue;
        if (strcmp(argv[i], "--reynolds") == 0 && i + 1 < argc)
            reynolds = ex_double_arg(argv[++i], usage);
        else
            ex_usage_exit(usage);
    }
    if (!o.outdir || o.nx < 2 || o.ny < 2) ex_usage_exit(usage);

    int n = o.nx * o.ny;
    std::vector<double> x0(n), y(n);
    cavity_start(o.nx, o.ny, x0.data());
    cavity_residual<double>(o.nx, o.ny, reynolds, x0.data(), y.data());
    return ex_record("cavity", &o, n, n, x0, y, [&](const adouble *x, adouble *f) {
        cavity_residual<adouble>(o.nx, o.ny, reynolds, x, f);
    });
}
