/* Utke, Flattening Basic Blocks, Fig. 4 (a): the expression *q + *r + *s
 * where q, r and s are the same pointer: the three uses have one address
 * each and it is the same one (|A| = 1, A_*q = A_*r = A_*s, must-alias), so
 * they are identified with one vertex. */
#include <math.h>

double fig4a(double *p) {
  double *q = p;
  double *r = p;
  double *s = p;
  double y;
  y = *q + *r + *s;
  return y;
}
