/* A realistic kernel for later issues: explicit time steps of the 1-D heat
 * equation with a three-point stencil, u and w pointer parameters that may
 * alias (the caller decides), a loop nest, an intrinsic.
 * What the analyses should find: w[i] and u[i-1], u[i], u[i+1] may alias
 * (plain C); u[i-1] and u[i+1] are provably different cells (value
 * numbering of the subscripts); the loop body is one basic block. */
#include <math.h>

void heat(int n, int steps, double nu, double *u, double *w) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++) {
      w[i] = u[i] + nu * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - 0.01 * sin(u[i]);
    }
    w[0] = u[0];
    w[n - 1] = u[n - 1];
    for (int i = 0; i < n; i++) u[i] = w[i];
  }
}
