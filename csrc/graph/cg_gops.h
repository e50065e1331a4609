/* cg_gops.h: the canonical operations of graph nodes (seed 000 section 2.2). */
#ifndef CG_GOPS_H
#define CG_GOPS_H

#include "../tape/cg_tape.h"

/* The canonical graph operations: seed 000 section 2.2 folds the tape's many
 * opcodes into a small set.  Columns: name, arity, uses constant, tape
 * opcode used when the graph is written back as a tape. */
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

/* One operation on its operands (see cg_gops.c). */
double cg_gop_apply(unsigned g, double c, const double *a, uint64_t *sw);

#endif
