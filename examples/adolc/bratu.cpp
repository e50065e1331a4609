/*
 * bratu.cpp -- the "Bratu" application of Bischof & Hu 1991 (section 4):
 * solid-fuel ignition (Bratu) problem in a section of a cylindrical combustion
 * chamber, radial symmetry, two-dimensional (r, z) grid with mixed boundary
 * conditions.  Default grid 40 x 80: 3200 independents, 3200 dependents.
 *
 * Usage: bratu [--grid NX NY] [--tag T] [--lambda L] [--stats] OUTDIR
 *   writes OUTDIR/ADOLC-{Operations,Locations,Values}_<T>.tap, OUTDIR/bratu.x,
 *   OUTDIR/bratu.y (defaults: NX 40, NY 80, T 1, L 2).  NX >= 2, NY >= 1.
 *
 * PDE (domain 0 <= r <= R = 1, 0 <= z <= L = 2, Frank-Kamenetskii parameter lambda):
 *     -(1/r) d/dr (r du/dr) - d2u/dz2 - lambda exp(u) = 0
 *     du/dr = 0 at r = 0 (axis of symmetry: Neumann),
 *     u = 0 at r = R (wall) and at z = 0, z = L (ends: Dirichlet).
 *
 * Grid (vertex centred in r so the axis is a grid line):
 *     r_i = i*hr,      i = 0..NX-1,  hr = R/NX      (r_NX = R is the wall, u = 0)
 *     z_j = (j+1)*hz,  j = 0..NY-1,  hz = L/(NY+1)  (z_-1 = 0, z_NY = L, u = 0)
 *     unknown / residual index k = j*NX + i (0-based; i runs fastest).
 *
 * Residual, scaled by hr*hz as in MINPACK-2 dsfifj (u = u_k, ul/ur = u at i-1/i+1,
 * ub/ut = u at j-1/j+1; ur = 0 at i = NX-1, ub = 0 at j = 0, ut = 0 at j = NY-1;
 * in the code a zero ub/ut term is skipped, a zero ur is assigned as 0.0):
 *     i >= 1:  urr = (u - ur) * cp_i + (u - ul) * cm_i,
 *              cp_i = (1 + 1/(2i)) * hz/hr,  cm_i = (1 - 1/(2i)) * hz/hr
 *              (finite volumes: r_{i+-1/2} / r_i = 1 +- 1/(2i))
 *     i = 0:   urr = (u - ur) * 4*hz/hr
 *              (r -> 0 limit -(1/r)(r u_r)_r = -2 u_rr, ghost u_-1 = u_1)
 *     uzz = (2u - ut - ub) * hr/hz
 *     F_k = urr + uzz - (hr*hz*lambda) * exp(u)
 *
 * Starting point x0 (MINPACK-2 dsfifj style, nonzero everywhere):
 *     x0_k = lambda/(lambda+1) * sqrt(min((NX - i)*hr, min(j+1, NY-j)*hz))
 *     (distance to the nearest Dirichlet boundary; the axis is not one).
 *
 * Tape (ADOL-C 2.7.2): assign_d_zero for the default-constructed arrays and
 * temporaries, assign_ind, assign_a for every copy of a named variable
 * (u = x[k], ur, ul, f[k] = fk), assign_d_zero for ur = 0 at the wall,
 * min_a_a / mult_d_a / eq_* / exp_op / plus_a_a for the formulas, assign_dep.
 * Default 40 x 80: 66 809 operations (death_not included, start/end_of_tape not;
 * bratu --stats prints the histogram).
 *
 * Coding rule (for a line-by-line Lua port): every right-hand side is a chain
 * in which each operation has at most one operand that is itself computed, so
 * the order of the taped operations is the order of the source text; passive
 * coefficients are computed in double outside the active statements.
 */
#include "common.h"

static const double BRATU_R = 1.0;   /* chamber radius */
static const double BRATU_L = 2.0;   /* chamber section length */

/* Residual F(x) of the discretized problem; T = double or adouble. */
template <class T>
static void bratu_residual(int nx, int ny, double lambda, const T *x, T *f)
{
    double hr = BRATU_R / nx, hz = BRATU_L / (ny + 1);
    double hzdhr = hz / hr, hrdhz = hr / hz;
    double c0 = 4.0 * hzdhr;          /* axis coefficient */
    double hrhzlam = hr * hz * lambda;
    T u, ul, ur, urr, t, uzz, e, fk;

    for (int j = 0; j < ny; j++) {
        for (int i = 0; i < nx; i++) {
            int k = j * nx + i;
            u = x[k];
            if (i < nx - 1) ur = x[k + 1]; else ur = 0.0;
            if (i == 0) {
                urr = u - ur;
                urr *= c0;
            } else {
                double cp = (1.0 + 0.5 / i) * hzdhr;
                double cm = (1.0 - 0.5 / i) * hzdhr;
                ul = x[k - 1];
                urr = u - ur;
                urr *= cp;
                t = u - ul;
                t *= cm;
                urr += t;
            }
            uzz = 2.0 * u;
            if (j < ny - 1) uzz -= x[k + nx];   /* ut; zero on the end z = L */
            if (j > 0) uzz -= x[k - nx];        /* ub; zero on the end z = 0 */
            uzz *= hrdhz;
            e = exp(u);
            e *= hrhzlam;
            fk = urr + uzz;
            fk -= e;
            f[k] = fk;
        }
    }
}

/* The standard starting point documented above. */
static void bratu_start(int nx, int ny, double lambda, double *x)
{
    double hr = BRATU_R / nx, hz = BRATU_L / (ny + 1);
    double c = lambda / (lambda + 1.0);
    for (int j = 0; j < ny; j++) {
        double dz = (j + 1 < ny - j ? j + 1 : ny - j) * hz;
        for (int i = 0; i < nx; i++) {
            double dr = (nx - i) * hr;
            x[j * nx + i] = c * sqrt(dr < dz ? dr : dz);
        }
    }
}

int main(int argc, char **argv)
{
    const char *usage = "bratu [--grid NX NY] [--tag T] [--lambda L] [--stats] OUTDIR";
    ExOptions o = {40, 80, 1, 0, NULL};
    double lambda = 2.0;
    for (int i = 1; i < argc; i++) {
        if (ex_common_option(argc, argv, &i, &o, usage)) continue;
        if (strcmp(argv[i], "--lambda") == 0 && i + 1 < argc)
            lambda = ex_double_arg(argv[++i], usage);
        else
            ex_usage_exit(usage);
    }
    if (!o.outdir || o.nx < 2) ex_usage_exit(usage);

    int n = o.nx * o.ny;
    std::vector<double> x0(n), y(n);
    bratu_start(o.nx, o.ny, lambda, x0.data());
    bratu_residual<double>(o.nx, o.ny, lambda, x0.data(), y.data());
    return ex_record("bratu", &o, n, n, x0, y, [&](const adouble *x, adouble *f) {
        bratu_residual<adouble>(o.nx, o.ny, lambda, x, f);
    });
}
