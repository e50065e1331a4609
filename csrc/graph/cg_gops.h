/* cg_gops.h: the canonical operations of graph nodes (Bischof & Hu 1991, sec. 2.2). */
#ifndef CG_GOPS_H
#define CG_GOPS_H

#include "../util/cg_util.h"

/* The canonical graph operations: Bischof & Hu 1991, sec. 2.2 folds the tape's many
 * opcodes into a small set.  Columns: name, arity, uses constant, tape
 * opcode used when the graph is written back as a tape (the name of a
 * cg_ops.h opcode: only cg_gops.c expands it, so this header needs no tape). */
#define CG_GOPS(X)                 \
  X(INDEP, indep, 0, 1, assign_ind) \
  X(CONST, const, 0, 1, assign_d)   \
  X(COPY, copy, 1, 0, assign_a)     \
  X(ADD, add, 2, 0, plus_a_a)       \
  X(SUB, sub, 2, 0, min_a_a)        \
  X(MUL, mul, 2, 0, mult_a_a)       \
  X(DIV, div, 2, 0, div_a_a)        \
  X(MIN, min, 2, 1, min_op)         \
  X(ADDC, addc, 1, 1, plus_a_d)     \
  X(RSUB, rsub, 1, 1, min_d_a)      \
  X(MULC, mulc, 1, 1, mult_a_d)     \
  X(DIVC, divc, 1, 1, div_a_d)      \
  X(RDIV, rdiv, 1, 1, div_d_a)      \
  X(POWC, powc, 1, 1, pow_op)       \
  X(NEG, neg, 1, 0, neg_sign_a)     \
  X(EXP, exp, 1, 0, exp_op)         \
  X(LOG, log, 1, 0, log_op)         \
  X(SQRT, sqrt, 1, 0, sqrt_op)      \
  X(CBRT, cbrt, 1, 0, cbrt_op)      \
  X(SIN, sin, 1, 0, sin_op)         \
  X(COS, cos, 1, 0, cos_op)         \
  X(TAN, tan, 1, 0, tan_op)         \
  X(ASIN, asin, 1, 0, asin_op)      \
  X(ACOS, acos, 1, 0, acos_op)      \
  X(ATAN, atan, 1, 0, atan_op)      \
  X(ASINH, asinh, 1, 0, asinh_op)   \
  X(ACOSH, acosh, 1, 0, acosh_op)   \
  X(ATANH, atanh, 1, 0, atanh_op)   \
  X(ERF, erf, 1, 0, erf_op)         \
  X(ABS, abs, 1, 1, abs_val)        \
  X(CEIL, ceil, 1, 1, ceil_op)      \
  X(FLOOR, floor, 1, 1, floor_op)   \
  X(COND, cond, 3, 1, cond_assign)  \
  X(CONDEQ, condeq, 3, 1, cond_eq_assign)

enum {
#define CG_GOP_ENUM(id, nm, ar, hc, top) CG_G_##id,
  CG_GOPS(CG_GOP_ENUM)
#undef CG_GOP_ENUM
  CG_G_COUNT
};

typedef struct cg_gopinfo {
  const char *name;
  uint8_t arity, has_const;
  uint8_t tape_op; /* cg_ops.h code */
} cg_gopinfo;

const cg_gopinfo *cg_gop(unsigned g);
int cg_gop_byname(const char *name);

#include <math.h>

/* One operation on its operands a[] (arity of them; the running value for a
 * unary operation further down a chain).  The arithmetic is exactly that of
 * the tape opcode it stands for (cg_eval.c), so values stay bit-identical.
 * *sw is incremented when a taped outcome (condition, abs/min flag, ceil or
 * floor result) no longer holds. */
static inline double cg_gop_apply_inline(unsigned g, double c, const double *a, uint64_t *sw) {
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

/* The same, as a function (cg_gops.c). */
double cg_gop_apply(unsigned g, double c, const double *a, uint64_t *sw);

#endif
