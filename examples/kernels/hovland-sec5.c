/* Hovland, Norris, Utke & Strout, Term Graphs for Imperative Programming
 * Languages, sec. 5: Fig. 1 with b an array indexed by run-time values,
 * after a preceding statement 0 that defines b[k]:
 *   b[k] = 2*x; a = cos(x); b[i] = sin(y)*y*y; f = exp(a*b[j]);
 * What the analyses should find: b[i], b[j] and b[k] may be the same cell
 * (i, j, k unknown), so the ud-chain of b[j] in statement 3 is
 * {statement 2, statement 0, 0}; the use of a still has the single
 * definition statement 1. */
#include <math.h>

double sec5(double x, double y, double *b, int i, int j, int k) {
  double a, f;
  b[k] = 2 * x;        /* statement 0 */
  a = cos(x);          /* statement 1 */
  b[i] = sin(y) * y * y; /* statement 2 */
  f = exp(a * b[j]);   /* statement 3 */
  return f;
}
