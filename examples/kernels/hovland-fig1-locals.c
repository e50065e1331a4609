/* Hovland, Norris, Utke & Strout, Term Graphs for Imperative Programming
 * Languages, Fig. 1, with a and b local scalars:
 *   a = cos(x); b = sin(y)*y*y; f = exp(a*b);
 * What the analyses should find: no aliasing; the ud-chain of a in
 * statement 3 is {statement 1}, of b {statement 2} (sec. 5), and the three
 * term graphs merge into one (their Fig. 10).  Active: x, y, a, b, f. */
#include <math.h>

double fig1(double x, double y) {
  double a, b, f;
  a = cos(x);       /* statement 1 */
  b = sin(y) * y * y; /* statement 2 */
  f = exp(a * b);   /* statement 3 */
  return f;
}
