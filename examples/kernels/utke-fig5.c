/* Utke, Flattening Basic Blocks, Fig. 5: the kernel of Fig. 2, whose graph
 * is split into two unambiguous subgraphs: a1 defines the cell z[0], the
 * use of *z in a2 (the cell z[k]) may be that cell or one defined before the
 * block, so its ud-chain is {a1, 0} and a2 starts a new graph, ordered
 * after a1's by a virtual edge. */
#include <math.h>

double fig5(double x, double *z, int k) {
  double y;
  *z = -(*z * x); /* a1 */
  z += k;
  y = *z / x; /* a2 */
  return y;
}
