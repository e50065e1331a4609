/* A realistic kernel for later issues: a small finite-volume flux kernel on
 * a triangle mesh with an index map: each triangle adds a flux to its three
 * vertices, q[tri[3*i+k]], so which cells alias is known only at run time.
 * What the analyses should find: the reads and writes of q through the
 * index map may alias each other (may-alias, not must), the int array tri is
 * not active, and res is active (written through a pointer parameter). */
#include <math.h>

static double flux(double a, double b, double c) {
  return 0.5 * (a * a + b * b) - c * fmax(fabs(a), fabs(b));
}

void residual(int ntri, const int *tri, const double *q, double *res, double c) {
  for (int i = 0; i < ntri; i++) {
    double f[3];
    for (int k = 0; k < 3; k++) {
      int a = tri[3 * i + k];
      int b = tri[3 * i + (k + 1) % 3];
      f[k] = flux(q[a], q[b], c);
    }
    for (int k = 0; k < 3; k++) {
      res[tri[3 * i + k]] += f[k] - f[(k + 2) % 3];
    }
  }
}
