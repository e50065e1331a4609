/* Utke, Flattening Basic Blocks, Fig. 2: the assignments of Fig. 1 through
 * a pointer that moves by a run-time amount between them:
 *   a1: *z = -(*z * x);   z += k;   a2: y = *z / x
 * What the analyses should find: *z in a1 is the cell z[0] (must), *z in a2
 * is z[k], which may or may not be that cell (may-alias: k is unknown), so
 * the ud-chain of *z in a2 is {a1, 0} and the graph is ambiguous.  The same
 * kernel is the one split in Fig. 5 (utke-fig5.c). */
#include <math.h>

double fig2(double x, double *z, int k) {
  double y;
  *z = -(*z * x); /* a1 */
  z += k;
  y = *z / x; /* a2 */
  return y;
}
