/* Utke, Flattening Basic Blocks, Fig. 4 (b): the expression *q + *r + *s
 * with q, r and s pointer parameters that may point into the same array
 * (plain C semantics: no restrict): each pair of uses may alias, none must,
 * so the graph has three vertices for them with may-alias (dashed) edges
 * between them; harmless, since all three are only read. */
#include <math.h>

double fig4b(double *q, double *r, double *s) {
  double y;
  y = *q + *r + *s;
  return y;
}
