/*
 * shallow.cpp -- the "Shallow" application of Bischof & Hu 1991 (section 4):
 * shallow-water model on a doubly periodic M x N grid (default 9 x 9), 3 fields
 * (u, v, p) = 243 independents (the initial state), integrated over S = 31 time
 * steps; one dependent: the sum of squares between synthetic "measured" values
 * of p and the predicted p after every step.
 *
 * Usage: shallow [--grid M N] [--steps S] [--tag T] [--stats] OUTDIR
 *   writes OUTDIR/ADOLC-{Operations,Locations,Values}_<T>.tap, OUTDIR/shallow.x,
 *   OUTDIR/shallow.y (defaults: M 9, N 9, S 31, T 2).
 *
 * The scheme is Sadourny's energy-conserving finite-difference scheme on a
 * staggered C grid as in the classic SWM benchmark (Hoffmann, NCAR; SPEC
 * swm256), translated to 0-based indices: every array has (M+1) x (N+1)
 * entries a(i,j), i = 0..M, j = 0..N, stored at a[j*(M+1) + i]; row i = M and
 * column j = N are periodic copies.  Constants:
 *     dt = 90, dx = dy = 1e5, a = 1e6, alpha = 0.001, el = N*dx, pi = 4*atan(1),
 *     di = 2*pi/M, dj = 2*pi/N, pcf = pi*pi*a*a/(el*el),
 *     fsdx = 4/dx, fsdy = 4/dy, tdt = dt in step 1 (forward), 2*dt after (leapfrog),
 *     tdts8 = tdt/8, tdtsdx = tdt/dx, tdtsdy = tdt/dy.
 *
 * Independents (x, 3*M*N, in this order, i fastest):
 *     x[0*MN + j*M + i] = u(i+1, j),  x[1*MN + j*M + i] = v(i, j+1),
 *     x[2*MN + j*M + i] = p(i, j),    i = 0..M-1, j = 0..N-1.
 * Periodic continuation of a field of type U (stored at (i+1,j)), V (i,j+1),
 * Z (i+1,j+1) or P (i,j), for j = 0..N-1 and i = 0..M-1:
 *     U: a(0,j) = a(M,j);   a(i+1,N) = a(i+1,0);  a(0,N) = a(M,0)
 *     V: a(M,j+1) = a(0,j+1); a(i,0) = a(i,N);    a(M,0) = a(0,N)
 *     Z: a(0,j+1) = a(M,j+1); a(i+1,0) = a(i+1,N); a(0,0) = a(M,N)
 *     P: a(M,j) = a(0,j);   a(i,N) = a(i,0);      a(M,N) = a(0,0)
 * Start: u, v, p from x, continued; uold = u, vold = v, pold = p (all entries).
 * Each step n = 1..S (loops over i = 0..M-1, j = 0..N-1):
 *     cu(i+1,j)   = 0.5*(p(i+1,j) + p(i,j)) * u(i+1,j)
 *     cv(i,j+1)   = 0.5*(p(i,j+1) + p(i,j)) * v(i,j+1)
 *     z(i+1,j+1)  = (fsdx*(v(i+1,j+1) - v(i,j+1)) - fsdy*(u(i+1,j+1) - u(i+1,j)))
 *                   / (p(i,j) + p(i+1,j) + p(i+1,j+1) + p(i,j+1))
 *     h(i,j)      = p(i,j) + 0.25*(u(i+1,j)^2 + u(i,j)^2 + v(i,j+1)^2 + v(i,j)^2)
 *     continue cu (U), cv (V), z (Z), h (P)
 *     unew(i+1,j) = uold(i+1,j) + (z(i+1,j+1) + z(i+1,j))
 *                   * (cv(i+1,j+1) + cv(i,j+1) + cv(i,j) + cv(i+1,j)) * tdts8
 *                   - (h(i+1,j) - h(i,j)) * tdtsdx
 *     vnew(i,j+1) = vold(i,j+1) - (z(i+1,j+1) + z(i,j+1))
 *                   * (cu(i+1,j+1) + cu(i,j+1) + cu(i,j) + cu(i+1,j)) * tdts8
 *                   - (h(i,j+1) - h(i,j)) * tdtsdy
 *     pnew(i,j)   = pold(i,j) - (cu(i+1,j) - cu(i,j)) * tdtsdx
 *                   - (cv(i,j+1) - cv(i,j)) * tdtsdy
 *     continue unew (U), vnew (V), pnew (P)
 *     J += (pnew(i,j) - pobs(n,i,j))^2
 *     for all (M+1)(N+1) entries: step 1: uold = u, u = unew (same for v, p);
 *       later steps: uold = u + alpha*(unew - 2*u + uold), u = unew (same for v, p)
 * Dependent: y[0] = J.  Synthetic measurements (passive, computed in double):
 *     pobs(n,i,j) = 50000 + pcf*(cos(2*i*di) + cos(2*j*dj)) + 10*sin(i*di + 2*j*dj + 0.1*n)
 * Starting point x0 = the SWM initial state:
 *     psi(i,j) = a*sin((i+0.5)*di)*sin((j+0.5)*dj),        i = 0..M, j = 0..N
 *     u(i+1,j) = -(psi(i+1,j+1) - psi(i+1,j))/dy,  v(i,j+1) = (psi(i+1,j+1) - psi(i,j+1))/dx,
 *     p(i,j) = pcf*(cos(2*i*di) + cos(2*j*dj)) + 50000.
 *
 * Coding rule (for a line-by-line Lua port): every right-hand side is a chain
 * in which each operation has at most one operand that is itself computed, so
 * the order of the taped operations is the order of the source text; passive
 * values (coefficients, pobs) are computed in double.  Divisions by constants
 * are written as products with precomputed reciprocals (ADOL-C tapes x/c as
 * (1/c)*x anyway), so the plain double code computes the same bits as the tape.
 */
#include "common.h"

/* Model constants (SWM). */
struct SwmConst {
    int m, n;
    double dt, dx, dy, a, alpha, el, pi, di, dj, pcf;
};

static SwmConst swm_const(int m, int n)
{
    SwmConst c;
    c.m = m;
    c.n = n;
    c.dt = 90.0;
    c.dx = 1.0e5;
    c.dy = 1.0e5;
    c.a = 1.0e6;
    c.alpha = 0.001;
    c.el = n * c.dx;
    c.pi = 4.0 * atan(1.0);
    c.di = 2.0 * c.pi / m;
    c.dj = 2.0 * c.pi / n;
    c.pcf = c.pi * c.pi * c.a * c.a / (c.el * c.el);
    return c;
}

/* Synthetic measurement of p at (i, j) after step `step`. */
static double swm_pobs(const SwmConst &c, int step, int i, int j)
{
    return 50000.0 + c.pcf * (cos(2.0 * i * c.di) + cos(2.0 * j * c.dj))
           + 10.0 * sin(i * c.di + 2.0 * j * c.dj + 0.1 * step);
}

/* Periodic continuation of the four staggered field types (see the header). */
template <class T>
static void periodic_u(int m, int n, T *a)
{
    int w = m + 1;
    for (int j = 0; j < n; j++) a[j * w + 0] = a[j * w + m];
    for (int i = 0; i < m; i++) a[n * w + i + 1] = a[0 * w + i + 1];
    a[n * w + 0] = a[0 * w + m];
}

template <class T>
static void periodic_v(int m, int n, T *a)
{
    int w = m + 1;
    for (int j = 0; j < n; j++) a[(j + 1) * w + m] = a[(j + 1) * w + 0];
    for (int i = 0; i < m; i++) a[0 * w + i] = a[n * w + i];
    a[0 * w + m] = a[n * w + 0];
}

template <class T>
static void periodic_z(int m, int n, T *a)
{
    int w = m + 1;
    for (int j = 0; j < n; j++) a[(j + 1) * w + 0] = a[(j + 1) * w + m];
    for (int i = 0; i < m; i++) a[0 * w + i + 1] = a[n * w + i + 1];
    a[0 * w + 0] = a[n * w + m];
}

template <class T>
static void periodic_p(int m, int n, T *a)
{
    int w = m + 1;
    for (int j = 0; j < n; j++) a[j * w + m] = a[j * w + 0];
    for (int i = 0; i < m; i++) a[n * w + i] = a[0 * w + i];
    a[n * w + m] = a[0 * w + 0];
}

/* The model: x = initial (u, v, p), y[0] = misfit after `steps` steps. */
template <class T>
static void shallow_model(const SwmConst &c, int steps, const T *x, T *y)
{
    int m = c.m, n = c.n, w = m + 1, mn = m * n, sz = (m + 1) * (n + 1);
    std::vector<T> u(sz), v(sz), p(sz), uold(sz), vold(sz), pold(sz);
    std::vector<T> unew(sz), vnew(sz), pnew(sz), cu(sz), cv(sz), z(sz), h(sz);
    double fsdx = 4.0 / c.dx, fsdy = 4.0 / c.dy;
    double tdt = c.dt;
    T t1, t2, t3, d, d2, J;

#define A(i, j) ((j) * w + (i))
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < m; i++) {
            u[A(i + 1, j)] = x[0 * mn + j * m + i];
            v[A(i, j + 1)] = x[1 * mn + j * m + i];
            p[A(i, j)] = x[2 * mn + j * m + i];
        }
    }
    periodic_u(m, n, u.data());
    periodic_v(m, n, v.data());
    periodic_p(m, n, p.data());
    for (int k = 0; k < sz; k++) {
        uold[k] = u[k];
        vold[k] = v[k];
        pold[k] = p[k];
    }
    J = 0.0;

    for (int step = 1; step <= steps; step++) {
        /* capital U, capital V, vorticity z and height h */
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < m; i++) {
                cu[A(i + 1, j)] = 0.5 * (p[A(i + 1, j)] + p[A(i, j)]) * u[A(i + 1, j)];
                cv[A(i, j + 1)] = 0.5 * (p[A(i, j + 1)] + p[A(i, j)]) * v[A(i, j + 1)];
                t1 = fsdx * (v[A(i + 1, j + 1)] - v[A(i, j + 1)]);
                t2 = fsdy * (u[A(i + 1, j + 1)] - u[A(i + 1, j)]);
                t3 = p[A(i, j)] + p[A(i + 1, j)] + p[A(i + 1, j + 1)] + p[A(i, j + 1)];
                t1 -= t2;
                z[A(i + 1, j + 1)] = t1 / t3;
                t1 = u[A(i + 1, j)] * u[A(i + 1, j)];
                t2 = u[A(i, j)] * u[A(i, j)];
                t1 += t2;
                t2 = v[A(i, j + 1)] * v[A(i, j + 1)];
                t1 += t2;
                t2 = v[A(i, j)] * v[A(i, j)];
                t1 += t2;
                h[A(i, j)] = p[A(i, j)] + 0.25 * t1;
            }
        }
        periodic_u(m, n, cu.data());
        periodic_v(m, n, cv.data());
        periodic_z(m, n, z.data());
        periodic_p(m, n, h.data());

        /* new u, v and p */
        double tdts8 = tdt / 8.0, tdtsdx = tdt / c.dx, tdtsdy = tdt / c.dy;
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < m; i++) {
                t1 = z[A(i + 1, j + 1)] + z[A(i + 1, j)];
                t2 = cv[A(i + 1, j + 1)] + cv[A(i, j + 1)] + cv[A(i, j)] + cv[A(i + 1, j)];
                t1 *= t2;
                t1 *= tdts8;
                t2 = h[A(i + 1, j)] - h[A(i, j)];
                t2 *= tdtsdx;
                unew[A(i + 1, j)] = uold[A(i + 1, j)] + t1 - t2;
                t1 = z[A(i + 1, j + 1)] + z[A(i, j + 1)];
                t2 = cu[A(i + 1, j + 1)] + cu[A(i, j + 1)] + cu[A(i, j)] + cu[A(i + 1, j)];
                t1 *= t2;
                t1 *= tdts8;
                t2 = h[A(i, j + 1)] - h[A(i, j)];
                t2 *= tdtsdy;
                vnew[A(i, j + 1)] = vold[A(i, j + 1)] - t1 - t2;
                t1 = cu[A(i + 1, j)] - cu[A(i, j)];
                t1 *= tdtsdx;
                t2 = cv[A(i, j + 1)] - cv[A(i, j)];
                t2 *= tdtsdy;
                pnew[A(i, j)] = pold[A(i, j)] - t1 - t2;
            }
        }
        periodic_u(m, n, unew.data());
        periodic_v(m, n, vnew.data());
        periodic_p(m, n, pnew.data());

        /* misfit against the measurements */
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < m; i++) {
                d = pnew[A(i, j)] - swm_pobs(c, step, i, j);
                d2 = d * d;
                J += d2;
            }
        }

        /* time smoothing and update for the next step */
        if (step == 1) {
            tdt = tdt + tdt;
            for (int k = 0; k < sz; k++) {
                uold[k] = u[k];
                vold[k] = v[k];
                pold[k] = p[k];
                u[k] = unew[k];
                v[k] = vnew[k];
                p[k] = pnew[k];
            }
        } else {
            for (int k = 0; k < sz; k++) {
                t1 = unew[k] - 2.0 * u[k] + uold[k];
                uold[k] = u[k] + c.alpha * t1;
                t1 = vnew[k] - 2.0 * v[k] + vold[k];
                vold[k] = v[k] + c.alpha * t1;
                t1 = pnew[k] - 2.0 * p[k] + pold[k];
                pold[k] = p[k] + c.alpha * t1;
                u[k] = unew[k];
                v[k] = vnew[k];
                p[k] = pnew[k];
            }
        }
    }
    y[0] = J;
#undef A
}

/* The SWM initial state documented above. */
static void shallow_start(const SwmConst &c, double *x)
{
    int m = c.m, n = c.n, w = m + 1, mn = m * n;
    std::vector<double> psi((m + 1) * (n + 1));
    for (int j = 0; j <= n; j++)
        for (int i = 0; i <= m; i++)
            psi[j * w + i] = c.a * sin((i + 0.5) * c.di) * sin((j + 0.5) * c.dj);
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < m; i++) {
            x[0 * mn + j * m + i] = -(psi[(j + 1) * w + i + 1] - psi[j * w + i + 1]) / c.dy;
            x[1 * mn + j * m + i] = (psi[(j + 1) * w + i + 1] - psi[(j + 1) * w + i]) / c.dx;
            x[2 * mn + j * m + i] = c.pcf * (cos(2.0 * i * c.di) + cos(2.0 * j * c.dj)) + 50000.0;
        }
    }
}

int main(int argc, char **argv)
{
    const char *usage = "shallow [--grid M N] [--steps S] [--tag T] [--stats] OUTDIR";
    ExOptions o = {9, 9, 2, 0, NULL};
    int steps = 31;
    for (int i = 1; i < argc; i++) {
        if (ex_common_option(argc, argv, &i, &o, usage)) continue;
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            steps = ex_int_arg(argv[++i], 0, 1000000, usage);
        else
            ex_usage_exit(usage);
    }
    if (!o.outdir) ex_usage_exit(usage);

    SwmConst c = swm_const(o.nx, o.ny);
    int n = 3 * o.nx * o.ny;
    std::vector<double> x0(n), y(1);
    shallow_start(c, x0.data());
    shallow_model<double>(c, steps, x0.data(), y.data());
    return ex_record("shallow", &o, n, 1, x0, y, [&](const adouble *x, adouble *f) {
        shallow_model<adouble>(c, steps, x, f);
    });
}
