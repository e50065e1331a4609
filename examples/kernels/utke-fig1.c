/* Utke, Flattening Basic Blocks, Fig. 1: the assignments a1: z = -(z * x)
 * and a2: y = z / x on scalars.
 * What the analyses should find: every use and definition has a single
 * address (must-alias); the use of z in a2 is defined by a1 only (ud-chain
 * {a1}), the uses of x and of z in a1 by nothing in scope (ud-chain {0});
 * flattening gives the one graph of the figure. */
#include <math.h>

double fig1(double x, double z) {
  double y;
  z = -(z * x); /* a1 */
  y = z / x;    /* a2 */
  return y;
}
