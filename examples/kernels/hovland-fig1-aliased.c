/* Hovland, Norris, Utke & Strout, Term Graphs for Imperative Programming
 * Languages, Fig. 1, with a and b pointer parameters that may point to the
 * same cell (plain C: no restrict):
 *   *a = cos(x); *b = sin(y)*y*y; *f = exp(*a * *b);
 * What the analyses should find: *a and *b may alias, so the ud-chain of *a
 * in statement 3 is {statement 1, statement 2} (statement 2 may overwrite
 * it: a may-definition does not kill), that of *b is {statement 2}; when a
 * and b are bound to the same cell the graph is their Fig. 6, and without
 * knowing, the statements stay separate term graphs (their Fig. 7). */
#include <math.h>

void fig1(double x, double y, double *a, double *b, double *f) {
  *a = cos(x);          /* statement 1 */
  *b = sin(y) * y * y;  /* statement 2 */
  *f = exp(*a * *b);    /* statement 3 */
}
