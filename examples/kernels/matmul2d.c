/* A realistic kernel for later issues: 2-D arrays, y = A x with A a 3 x 4
 * array parameter, plus a local 2-D array with an initializer and a call of
 * another function of the file.
 * What the analyses should find: A[i][j] with constant or value-numbered
 * subscripts; the local array W is separate from every parameter (must-alias
 * by constant subscripts); y is the dependent, A and x the independents. */
#include <math.h>

static double dot4(const double *a, const double *b) {
  double s = 0.0;
  for (int j = 0; j < 4; j++) s += a[j] * b[j];
  return s;
}

void matvec(double A[3][4], const double *x, double *y) {
  double W[2][2] = {{1.0, 0.5}, {0.25}};
  for (int i = 0; i < 3; i++) {
    y[i] = dot4(A[i], x) * W[i % 2][0] + W[1][1];
  }
}
