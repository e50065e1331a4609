/* A parallel loop whose iterations are independent and that nothing after
 * it reads: terminal (Hascoet, Fidanova & Held, Fig. 3 and 4).  Each
 * iteration reads x[i] and writes y[i] only (own-index), through a private
 * temporary t; the adjoint of an iteration can follow its forward sweep
 * at once. */
#include <math.h>

void terminal(int n, const double *restrict x, double *restrict y, double c) {
  int i;
  double t;
  for (i = 0; i < n; i++) {
    t = c * x[i];
    y[i] = sin(t) * x[i];
  }
}
