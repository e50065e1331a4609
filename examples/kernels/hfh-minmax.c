/* A min/max scatter: u[map[i]] = fmax(u[map[i]], x[i]).  Not an increment:
 * which iteration wins depends on the order, refused. */
#include <math.h>

void minmax(int n, const int *restrict map, const double *restrict x, double *restrict u) {
  int i;
  for (i = 0; i < n; i++) {
    u[map[i]] = fmax(u[map[i]], x[i]);
  }
}
