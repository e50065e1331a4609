/* nsloops: a Navier-Stokes-like residual and cost on an unstructured triangle
 * mesh, the shape of the kernel of Hascoet, Fidanova & Held, "Adjoining
 * Independent Computations", sec. 4: seven parallel loops over vertices,
 * triangles and edges (the benchmark of doc/results/adjoint-loops.md, on the
 * meshes of scripts/bench/mesh.lua).  Vertex-centred, compressible, gamma =
 * 1.4: the state w0..w3 (density, momentum x and y, energy) of each vertex.
 *   1. vertices:  conservative -> primitive (r, u, v, p); gradients, dual
 *                 areas and residuals zeroed              (own-index writes)
 *   2. triangles: areas and the gradients of the P1 basis  (own-index, 3*t+k)
 *   3. triangles: P1 gradients of r, u, v, p scattered to the vertices with
 *                 weight area/3, dual areas likewise      (increments via tri)
 *   4. vertices:  gradients divided by the dual area, in place (own-index
 *                 in place: its dry run needs a snapshot of them)
 *   5. edges:     MUSCL reconstruction with van Albada's limiter (in its
 *                 smooth form, eps > 0, so finite differences apply) and a
 *                 Rusanov flux; res[a] += f, res[b] -= f  (increments via edge)
 *   6. triangles: viscous stresses from the P1 velocity gradient
 *                 (increments via tri)
 *   7. vertices:  explicit update wn = w - dt res / dual, cost += dual p^2
 *                 (own-index writes, an increment of cost[0]); terminal
 * Every array is its own parameter (struct of arrays), so each loop writes
 * cell i of its own arrays only.  All pointers are `restrict`: the caller
 * (scripts/bench/adjoint_driver.c, the specs) passes disjoint arrays, and the
 * analysis would otherwise have to refuse every loop ("a and b may overlap").
 * tri holds 3 vertex ids per triangle (counter-clockwise), edge 2 per edge.
 * Every loop should be accepted; loops 1-6 are dry-run, loop 7 is terminal.
 * It compiles as C99, and as C++ over adoubles (scripts/bench/adolc_nsloops.cpp). */
#include <math.h>

void nsloops(int nv, int ne, int nt, const int *restrict tri, const int *restrict edge,
             const double *restrict x, const double *restrict y,
             const double *restrict w0, const double *restrict w1,
             const double *restrict w2, const double *restrict w3,
             double *restrict r, double *restrict u, double *restrict v, double *restrict p,
             double *restrict rx, double *restrict ry, double *restrict ux, double *restrict uy,
             double *restrict vx, double *restrict vy, double *restrict px, double *restrict py,
             double *restrict dual, double *restrict area,
             double *restrict gx, double *restrict gy,
             double *restrict res0, double *restrict res1,
             double *restrict res2, double *restrict res3,
             double *restrict wn0, double *restrict wn1,
             double *restrict wn2, double *restrict wn3,
             double dt, double mu, double *restrict cost) {
  cost[0] = 0.0;
  for (int i = 0; i < nv; i++) { /* 1: conservative -> primitive */
    double ri = w0[i];
    double ui = w1[i] / ri;
    double vi = w2[i] / ri;
    r[i] = ri;
    u[i] = ui;
    v[i] = vi;
    p[i] = 0.4 * (w3[i] - 0.5 * ri * (ui * ui + vi * vi));
    rx[i] = 0.0;
    ry[i] = 0.0;
    ux[i] = 0.0;
    uy[i] = 0.0;
    vx[i] = 0.0;
    vy[i] = 0.0;
    px[i] = 0.0;
    py[i] = 0.0;
    dual[i] = 0.0;
    res0[i] = 0.0;
    res1[i] = 0.0;
    res2[i] = 0.0;
    res3[i] = 0.0;
  }
  for (int t = 0; t < nt; t++) { /* 2: areas, gradients of the basis functions */
    int a = tri[3 * t];
    int b = tri[3 * t + 1];
    int c = tri[3 * t + 2];
    double d2 = (x[b] - x[a]) * (y[c] - y[a]) - (x[c] - x[a]) * (y[b] - y[a]);
    area[t] = 0.5 * d2;
    for (int k = 0; k < 3; k++) {
      int j1 = tri[3 * t + (k + 1) % 3];
      int j2 = tri[3 * t + (k + 2) % 3];
      gx[3 * t + k] = (y[j1] - y[j2]) / d2;
      gy[3 * t + k] = (x[j2] - x[j1]) / d2;
    }
  }
  for (int t = 0; t < nt; t++) { /* 3: gradients scattered to the vertices */
    double grx = 0.0, gry = 0.0, gux = 0.0, guy = 0.0;
    double gvx = 0.0, gvy = 0.0, gpx = 0.0, gpy = 0.0;
    for (int k = 0; k < 3; k++) {
      int j = tri[3 * t + k];
      grx = grx + r[j] * gx[3 * t + k];
      gry = gry + r[j] * gy[3 * t + k];
      gux = gux + u[j] * gx[3 * t + k];
      guy = guy + u[j] * gy[3 * t + k];
      gvx = gvx + v[j] * gx[3 * t + k];
      gvy = gvy + v[j] * gy[3 * t + k];
      gpx = gpx + p[j] * gx[3 * t + k];
      gpy = gpy + p[j] * gy[3 * t + k];
    }
    double s = area[t] / 3.0;
    for (int k = 0; k < 3; k++) {
      int j = tri[3 * t + k];
      rx[j] += s * grx;
      ry[j] += s * gry;
      ux[j] += s * gux;
      uy[j] += s * guy;
      vx[j] += s * gvx;
      vy[j] += s * gvy;
      px[j] += s * gpx;
      py[j] += s * gpy;
      dual[j] += s;
    }
  }
  for (int i = 0; i < nv; i++) { /* 4: gradients divided by the dual area, in place */
    double di = dual[i];
    rx[i] = rx[i] / di;
    ry[i] = ry[i] / di;
    ux[i] = ux[i] / di;
    uy[i] = uy[i] / di;
    vx[i] = vx[i] / di;
    vy[i] = vy[i] / di;
    px[i] = px[i] / di;
    py[i] = py[i] / di;
  }
  for (int e = 0; e < ne; e++) { /* 5: limited convective fluxes */
    int a = edge[2 * e];
    int b = edge[2 * e + 1];
    double dx = x[b] - x[a];
    double dy = y[b] - y[a];
    double nx = dy; /* the edge turned by -90 degrees, as long as the edge */
    double ny = -dx;
    double eps = 1e-4; /* van Albada's smoothing: limiter smooth everywhere */
    double dq, da, db;
    dq = r[b] - r[a];
    da = rx[a] * dx + ry[a] * dy;
    db = rx[b] * dx + ry[b] * dy;
    double rl = r[a] + 0.5 * (da * (dq * dq + eps) + dq * (da * da + eps)) / (da * da + dq * dq + 2.0 * eps);
    double rr = r[b] - 0.5 * (db * (dq * dq + eps) + dq * (db * db + eps)) / (db * db + dq * dq + 2.0 * eps);
    dq = u[b] - u[a];
    da = ux[a] * dx + uy[a] * dy;
    db = ux[b] * dx + uy[b] * dy;
    double ul = u[a] + 0.5 * (da * (dq * dq + eps) + dq * (da * da + eps)) / (da * da + dq * dq + 2.0 * eps);
    double ur = u[b] - 0.5 * (db * (dq * dq + eps) + dq * (db * db + eps)) / (db * db + dq * dq + 2.0 * eps);
    dq = v[b] - v[a];
    da = vx[a] * dx + vy[a] * dy;
    db = vx[b] * dx + vy[b] * dy;
    double vl = v[a] + 0.5 * (da * (dq * dq + eps) + dq * (da * da + eps)) / (da * da + dq * dq + 2.0 * eps);
    double vr = v[b] - 0.5 * (db * (dq * dq + eps) + dq * (db * db + eps)) / (db * db + dq * dq + 2.0 * eps);
    dq = p[b] - p[a];
    da = px[a] * dx + py[a] * dy;
    db = px[b] * dx + py[b] * dy;
    double pl = p[a] + 0.5 * (da * (dq * dq + eps) + dq * (da * da + eps)) / (da * da + dq * dq + 2.0 * eps);
    double pr = p[b] - 0.5 * (db * (dq * dq + eps) + dq * (db * db + eps)) / (db * db + dq * dq + 2.0 * eps);
    double unl = ul * nx + vl * ny;
    double unr = ur * nx + vr * ny;
    double el = pl / 0.4 + 0.5 * rl * (ul * ul + vl * vl);
    double er = pr / 0.4 + 0.5 * rr * (ur * ur + vr * vr);
    double len = sqrt(nx * nx + ny * ny);
    double sl = sqrt(unl * unl + eps * len * len) + sqrt(1.4 * pl / rl) * len; /* smooth |un| + c */
    double sr = sqrt(unr * unr + eps * len * len) + sqrt(1.4 * pr / rr) * len;
    double sm = 0.5 * (sl + sr);
    double f0 = 0.5 * (rl * unl + rr * unr) - 0.5 * sm * (rr - rl);
    double f1 = 0.5 * (rl * ul * unl + pl * nx + rr * ur * unr + pr * nx) - 0.5 * sm * (rr * ur - rl * ul);
    double f2 = 0.5 * (rl * vl * unl + pl * ny + rr * vr * unr + pr * ny) - 0.5 * sm * (rr * vr - rl * vl);
    double f3 = 0.5 * ((el + pl) * unl + (er + pr) * unr) - 0.5 * sm * (er - el);
    res0[a] += f0;
    res1[a] += f1;
    res2[a] += f2;
    res3[a] += f3;
    res0[b] -= f0;
    res1[b] -= f1;
    res2[b] -= f2;
    res3[b] -= f3;
  }
  for (int t = 0; t < nt; t++) { /* 6: viscous fluxes */
    double gux = 0.0, guy = 0.0, gvx = 0.0, gvy = 0.0, um = 0.0, vm = 0.0;
    for (int k = 0; k < 3; k++) {
      int j = tri[3 * t + k];
      gux = gux + u[j] * gx[3 * t + k];
      guy = guy + u[j] * gy[3 * t + k];
      gvx = gvx + v[j] * gx[3 * t + k];
      gvy = gvy + v[j] * gy[3 * t + k];
      um = um + u[j] / 3.0;
      vm = vm + v[j] / 3.0;
    }
    double dv = (gux + gvy) * 2.0 / 3.0;
    double sxx = mu * (2.0 * gux - dv);
    double syy = mu * (2.0 * gvy - dv);
    double sxy = mu * (guy + gvx);
    for (int k = 0; k < 3; k++) {
      int j = tri[3 * t + k];
      double fx = area[t] * (sxx * gx[3 * t + k] + sxy * gy[3 * t + k]);
      double fy = area[t] * (sxy * gx[3 * t + k] + syy * gy[3 * t + k]);
      res1[j] += fx;
      res2[j] += fy;
      res3[j] += um * fx + vm * fy;
    }
  }
  for (int i = 0; i < nv; i++) { /* 7: update and cost */
    double s = dt / dual[i];
    double a0 = w0[i] - s * res0[i];
    double a1 = w1[i] - s * res1[i];
    double a2 = w2[i] - s * res2[i];
    double a3 = w3[i] - s * res3[i];
    wn0[i] = a0;
    wn1[i] = a1;
    wn2[i] = a2;
    wn3[i] = a3;
    double pn = 0.4 * (a3 - 0.5 * (a1 * a1 + a2 * a2) / a0);
    cost[0] += dual[i] * pn * pn;
  }
}
