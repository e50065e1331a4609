/* A loop that must be dry-run (Hascoet, Fidanova & Held, Fig. 5): it
 * updates u in place (own-index) through a private e, and the loop after
 * it reads u, so it is not terminal; its snapshot holds u (and e and the
 * counter).  The second loop only increments f and ends the function:
 * terminal. */
#include <math.h>

void dryrun(int n, double *restrict u, const double *restrict w, double *restrict f) {
  int i;
  double e;
  f[0] = 0.0;
  for (i = 0; i < n; i++) {
    e = w[i] * u[i];
    u[i] = u[i] * cos(e);
  }
  for (i = 0; i < n; i++) {
    f[0] += u[i] * u[i];
  }
}
