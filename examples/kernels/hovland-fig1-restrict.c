/* Hovland, Norris, Utke & Strout, Term Graphs for Imperative Programming
 * Languages, Fig. 1, with a, b and f restrict-qualified pointer parameters:
 * each points to cells no other pointer reaches, so *a, *b and *f are
 * separate addresses (must-alias with themselves only), the ud-chain of *a
 * in statement 3 is {statement 1} and of *b {statement 2}, and the three
 * term graphs merge into one as with locals (their Fig. 10). */
#include <math.h>

void fig1(double x, double y, double *restrict a, double *restrict b, double *restrict f) {
  *a = cos(x);          /* statement 1 */
  *b = sin(y) * y * y;  /* statement 2 */
  *f = exp(*a * *b);    /* statement 3 */
}
