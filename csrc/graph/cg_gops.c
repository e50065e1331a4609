/* cg_gops.c: the graph operation table and the arithmetic of one operation. */
#include <math.h>
#include <string.h>

#include "cg_gops.h"

static const cg_gopinfo gop_table[CG_G_COUNT] = {
#define CG_GOP_INFO(id, nm, ar, hc, top) {#nm, ar, hc, CG_OP_##top},
    CG_GOPS(CG_GOP_INFO)
#undef CG_GOP_INFO
};

const cg_gopinfo *cg_gop(unsigned g) { return &gop_table[g < CG_G_COUNT ? g : 0]; }

int cg_gop_byname(const char *name) {
  unsigned g;
  for (g = 0; g < CG_G_COUNT; g++)
    if (strcmp(gop_table[g].name, name) == 0) return (int)g;
  return -1;
}

/* One operation on its operands a[] (arity of them; the running value for a
 * unary operation further down a chain).  The arithmetic is exactly that of
 * the tape opcode it stands for (cg_eval.c), so values stay bit-identical.
 * *sw is incremented when a taped outcome (condition, abs/min flag, ceil or
 * floor result) no longer holds. */
double cg_gop_apply(unsigned g, double c, const double *a, uint64_t *sw) {
  switch (g) {
    case CG_G_CONST: return c;
    case CG_G_COPY: return a[0];
    case CG_G_ADD: return a[0] + a[1];
    case CG_G_SUB: return a[0] - a[1];
    case CG_G_MUL: return a[0] * a[1];
    case CG_G_DIV: return a[0] / a[1];
    case CG_G_MIN: /* c = 1 if a <= b at taping (MIN_ADOLC) */
      if ((a[0] > a[1] && c != 0) || (a[0] < a[1] && c == 0)) (*sw)++;
      return a[0] > a[1] ? a[1] : a[0];
    case CG_G_ADDC: return a[0] + c;
    case CG_G_RSUB: return c - a[0];
    case CG_G_MULC: return a[0] * c;
    case CG_G_DIVC: return a[0] / c;
    case CG_G_RDIV: return c / a[0];
    case CG_G_POWC: return pow(a[0], c);
    case CG_G_NEG: return -a[0];
    case CG_G_EXP: return exp(a[0]);
    case CG_G_LOG: return log(a[0]);
    case CG_G_SQRT: return sqrt(a[0]);
    case CG_G_CBRT: return cbrt(a[0]);
    case CG_G_SIN: return sin(a[0]);
    case CG_G_COS: return cos(a[0]);
    case CG_G_TAN: return tan(a[0]);
    case CG_G_ASIN: return asin(a[0]);
    case CG_G_ACOS: return acos(a[0]);
    case CG_G_ATAN: return atan(a[0]);
    case CG_G_ASINH: return asinh(a[0]);
    case CG_G_ACOSH: return acosh(a[0]);
    case CG_G_ATANH: return atanh(a[0]);
    case CG_G_ERF: return erf(a[0]);
    case CG_G_ABS: /* c = 1 if a >= 0 at taping */
      if ((a[0] < 0.0 && c != 0) || (a[0] > 0.0 && c == 0)) (*sw)++;
      return fabs(a[0]);
    case CG_G_CEIL: {
      double r = ceil(a[0]);
      if (r != c) (*sw)++;
      return r;
    }
    case CG_G_FLOOR: {
      double r = floor(a[0]);
      if (r != c) (*sw)++;
      return r;
    }
    case CG_G_COND: /* [cond, a, b], c = condition at taping */
      if ((a[0] > 0) != (c > 0)) (*sw)++;
      return a[0] > 0 ? a[1] : a[2];
    case CG_G_CONDEQ:
      if ((a[0] >= 0) != (c >= 0)) (*sw)++;
      return a[0] >= 0 ? a[1] : a[2];
    default: /* INDEP: the caller supplies independents */
      return a ? a[0] : 0.0;
  }
}
