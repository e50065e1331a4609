/* cg_gops.h: the canonical operations of graph nodes (Bischof & Hu 1991, sec. 2.2). */
#ifndef CG_GOPS_H
#define CG_GOPS_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include "../util/cg_util.h"

/* {==== the operation table ====}
 *
 * The canonical graph operations: Bischof & Hu 1991, sec. 2.2 folds the
 * tape's many opcodes into a small set.  This list is the one place an
 * operation is defined; every consumer reads it: the enum below, the table
 * of cg_gop() (cg_gops.c), the value (cg_gop_apply_inline below), the local
 * partials (cg_gop_partials, the linearizer's edge weights, Hovland, Norris,
 * Utke & Strout, sec. 1), the generated C (cg_codegen.c, from the spellings),
 * the graph's text dump (cg_gdot.c) and the write-back as a tape (cg_gtape.c).
 *
 * Columns:
 *   id, name     CG_G_<id>; the name the dump, the bindings and .cg files use
 *   arity        operands (children of the node when the operation is a head)
 *   has_const    the operation carries a constant c (an operand, an
 *                independent's index, or the taped outcome)
 *   tape_op      cg_ops.h opcode used when the graph is written back as a tape;
 *                `none` (CG_GOP_NO_TAPE_OP) for an operation that no ADOL-C or
 *                classic tape records (those of the kernels' intrinsics:
 *                pow, atan2, sinh, cosh, tanh, log10, max, lgamma and
 *                the rows after it): it is made
 *                through the graph builder only, and cg_graph_to_tape
 *                refuses a graph holding one
 *   flags        CG_GF_OUTCOME: c is an outcome taped with the operation,
 *                checked by `check` (a true check counts a switch, *sw);
 *                CG_GF_SELECT: the operation selects one operand, its
 *                partials are 1 for it and 0 for the others, and a partial
 *                that is 0 for the whole chain is a structural zero (no edge)
 *   reads        what the partials read besides c: the operands (CG_GR_A),
 *                the result (CG_GR_R)
 *   value        the result as a C expression in A0, A1, A2 (the operands),
 *                C (the constant) and XI (the independent's value)
 *   check        the taped outcome's check, 0 if none (also reads R, the result)
 *   d0 m0 .. d2 m2  the partial with respect to each operand, a C expression
 *                as value (also reading R), and its structural mark
 *                (CG_PM_VAR, CG_PM_CONST, CG_PM_PLUS1, CG_PM_MINUS1); 0 and
 *                CG_PM_VAR past the arity
 *
 * The expressions are compiled as they stand (cg_gop_apply_inline,
 * cg_gops.c) and kept as text (#value, #d0, ...) for the code generators:
 * the same text, so generated code gives the table's values bit for bit
 * (compiled without FMA contraction).  A spelling is written with each
 * placeholder replaced by an operand's text (a primary expression), the
 * constant, or x[index] for XI; a unary operation's value holds A0 exactly
 * once, as a hoisted chain nests it (cg_codegen.c).
 *
 * Conventions of the rows whose derivative is not defined everywhere:
 *  - pow (x^y with both operands active, no tape opcode): d/dx is
 *    y * pow(x, y - 1), taken as 0 where y == 0 (as powc: x^0 is 1 for
 *    every x, so 0 is exact, also at x == 0 where pow(x, -1) is infinite).
 *    d/dy is x^y * log(x) for x > 0 and 0 for x <= 0, which is
 *      x == 0, y > 0: C's pow is 0, and 0^y stays 0 as y moves, so 0 is
 *        the derivative (where 0 * log(0) would be NaN);
 *      x == 0, y == 0: C's pow is 1, and x^y jumps between 0 and infinity
 *        as y crosses 0: no derivative; 0 keeps it finite, as the value;
 *      x == 0, y < 0: C's pow is infinite (the value is not finite);
 *      x < 0: C's pow is finite only at integer y, with no real values
 *        for y nearby: y is passive there, as in ADOL-C's
 *        pow(adouble, adouble).
 *    A NaN x gives NaN.
 *  - atan2: the partials y/(x^2+y^2) and -x/(x^2+y^2) are NaN at the
 *    origin, where atan2 is not differentiable.
 *  - hypot: the partials A0/R and A1/R are NaN at the origin, where hypot
 *    is not differentiable (as atan2).
 *  - lgamma and tgamma: the partials are digamma(x) and tgamma(x) *
 *    digamma(x), written with cg_digamma (a support function, below); at
 *    the poles (x = 0, -1, -2, ...) they are NaN.  lgamma is log|gamma|, so
 *    its derivative is digamma at a negative x too.
 *  - round and trunc (and floor and ceil): the result is piecewise
 *    constant, its partial 0 everywhere, also at the jumps; the taped
 *    outcome c is the result, a different result counts a switch.
 *  - fmod(a, b) = a - trunc(a / b) * b: d/da is 1 and d/db is
 *    -trunc(a / b), the quotient of the piece; c is that quotient, and a
 *    different one (a jump of fmod) counts a switch.
 *  - copysign(a, b) = |a| with b's sign: d/da is 1 where the signs of a
 *    and b agree (signbit), -1 where they differ, 0 at a == 0 (as abs);
 *    d/db is 0.  c != 0 when the signs agreed at recording; a change
 *    counts a switch.
 *  - min and max select an operand (CG_GF_SELECT); a tie picks A0 (for
 *    min as ADOL-C's min_op does; max mirrors it).  Their outcome c: for
 *    min c != 0 when A0 <= A1 held at recording, as min_op tapes it; for
 *    max c != 0 when A0 >= A1 held.  A strict inequality the other way
 *    counts a switch (a tie never does).  As the kernels' fmin and fmax
 *    (cg_kernel.h) they differ from the C library in two places only: fmin
 *    and fmax return the other operand of a NaN, and C leaves open which
 *    zero a tie of 0 and -0 gives (glibc: the second operand).
 *
 * Adding an operation (doc/hacking.md, "Adding an operation"): one row here
 * (the enum, names, values, partials and spellings follow), the tape
 * opcodes that map to it in the builder's norm_rows (cg_build.c), and a
 * tape for it in spec/12-codegen-ops_spec.lua and spec/14-partials_spec.lua,
 * which check the row against compiled code and central differences (for a
 * row without a tape opcode: a builder case in both, and its name in
 * spec/c/test_gops.c's list).  A partial that the C library cannot write
 * calls a support function (below), whose code is one macro of cg_gops.c. */
#define CG_GOPS(X)                                                                              \
  X(INDEP, indep, 0, 1, assign_ind, 0, 0, XI, 0, 0, V, 0, V, 0, V)                              \
  X(CONST, const, 0, 1, assign_d, 0, 0, C, 0, 0, V, 0, V, 0, V)                                 \
  X(COPY, copy, 1, 0, assign_a, 0, 0, (A0), 0, 1, P, 0, V, 0, V)                                \
  X(ADD, add, 2, 0, plus_a_a, 0, 0, (A0 + A1), 0, 1, P, 1, P, 0, V)                             \
  X(SUB, sub, 2, 0, min_a_a, 0, 0, (A0 - A1), 0, 1, P, -1, M, 0, V)                             \
  X(MUL, mul, 2, 0, mult_a_a, 0, GA, (A0 * A1), 0, A1, V, A0, V, 0, V)                          \
  X(DIV, div, 2, 0, div_a_a, 0, GA | GR, (A0 / A1), 0, 1 / A1, V, -R / A1, V, 0, V)             \
  X(MIN, min, 2, 1, min_op, OUT | SEL, GA, (A0 > A1 ? A1 : A0),                                 \
    (A0 > A1 && C != 0) || (A0 < A1 && C == 0), A0 > A1 ? 0 : 1, V, A0 > A1 ? 1 : 0, V, 0, V)  \
  X(ADDC, addc, 1, 1, plus_a_d, 0, 0, (A0 + C), 0, 1, P, 0, V, 0, V)                            \
  X(RSUB, rsub, 1, 1, min_d_a, 0, 0, (C - A0), 0, -1, M, 0, V, 0, V)                            \
  X(MULC, mulc, 1, 1, mult_a_d, 0, 0, (A0 * C), 0, C, K, 0, V, 0, V)                            \
  X(DIVC, divc, 1, 1, div_a_d, 0, 0, (A0 / C), 0, 1 / C, K, 0, V, 0, V)                         \
  X(RDIV, rdiv, 1, 1, div_d_a, 0, GA | GR, (C / A0), 0, -R / A0, V, 0, V, 0, V)                 \
  X(POWC, powc, 1, 1, pow_op, 0, GA, pow(A0, C), 0, C == 0 ? 0 : C * pow(A0, C - 1), V, 0, V,  \
    0, V)                                                                                       \
  X(NEG, neg, 1, 0, neg_sign_a, 0, 0, (-A0), 0, -1, M, 0, V, 0, V)                              \
  X(EXP, exp, 1, 0, exp_op, 0, GR, exp(A0), 0, R, V, 0, V, 0, V)                                \
  X(LOG, log, 1, 0, log_op, 0, GA, log(A0), 0, 1 / A0, V, 0, V, 0, V)                           \
  X(SQRT, sqrt, 1, 0, sqrt_op, 0, GR, sqrt(A0), 0, 0.5 / R, V, 0, V, 0, V)                      \
  X(CBRT, cbrt, 1, 0, cbrt_op, 0, GR, cbrt(A0), 0, 1 / (3 * R * R), V, 0, V, 0, V)              \
  X(SIN, sin, 1, 0, sin_op, 0, GA, sin(A0), 0, cos(A0), V, 0, V, 0, V)                          \
  X(COS, cos, 1, 0, cos_op, 0, GA, cos(A0), 0, -sin(A0), V, 0, V, 0, V)                         \
  X(TAN, tan, 1, 0, tan_op, 0, GR, tan(A0), 0, 1 + R * R, V, 0, V, 0, V)                        \
  X(ASIN, asin, 1, 0, asin_op, 0, GA, asin(A0), 0, 1 / sqrt(1 - A0 * A0), V, 0, V, 0, V)       \
  X(ACOS, acos, 1, 0, acos_op, 0, GA, acos(A0), 0, -1 / sqrt(1 - A0 * A0), V, 0, V, 0, V)      \
  X(ATAN, atan, 1, 0, atan_op, 0, GA, atan(A0), 0, 1 / (1 + A0 * A0), V, 0, V, 0, V)           \
  X(ASINH, asinh, 1, 0, asinh_op, 0, GA, asinh(A0), 0, 1 / sqrt(A0 * A0 + 1), V, 0, V, 0, V)   \
  X(ACOSH, acosh, 1, 0, acosh_op, 0, GA, acosh(A0), 0, 1 / sqrt(A0 * A0 - 1), V, 0, V, 0, V)   \
  X(ATANH, atanh, 1, 0, atanh_op, 0, GA, atanh(A0), 0, 1 / (1 - A0 * A0), V, 0, V, 0, V)       \
  X(ERF, erf, 1, 0, erf_op, 0, GA, erf(A0), 0, 1.1283791670955126 * exp(-A0 * A0), V, 0, V,    \
    0, V) /* 2 / sqrt(pi) */                                                                    \
  X(ABS, abs, 1, 1, abs_val, OUT, GA, fabs(A0), (A0 < 0.0 && C != 0) || (A0 > 0.0 && C == 0),   \
    A0 > 0 ? 1 : A0 < 0 ? -1 : 0, V, 0, V, 0, V)                                                \
  X(CEIL, ceil, 1, 1, ceil_op, OUT, 0, ceil(A0), R != C, 0, V, 0, V, 0, V)                      \
  X(FLOOR, floor, 1, 1, floor_op, OUT, 0, floor(A0), R != C, 0, V, 0, V, 0, V)                  \
  X(COND, cond, 3, 1, cond_assign, OUT | SEL, GA, (A0 > 0 ? A1 : A2), (A0 > 0) != (C > 0), 0,   \
    V, A0 > 0 ? 1 : 0, V, A0 > 0 ? 0 : 1, V)                                                    \
  X(CONDEQ, condeq, 3, 1, cond_eq_assign, OUT | SEL, GA, (A0 >= 0 ? A1 : A2),                   \
    (A0 >= 0) != (C >= 0), 0, V, A0 >= 0 ? 1 : 0, V, A0 >= 0 ? 0 : 1, V)                      \
  X(POW, pow, 2, 0, none, 0, GA | GR, pow(A0, A1), 0, A1 == 0 ? 0 : A1 * pow(A0, A1 - 1), V,    \
    A0 <= 0 ? 0 : R * log(A0), V, 0, V) /* d1 at A0 <= 0: see above */                        \
  X(ATAN2, atan2, 2, 0, none, 0, GA, atan2(A0, A1), 0, A1 / (A0 * A0 + A1 * A1), V,             \
    -A0 / (A0 * A0 + A1 * A1), V, 0, V)                                                         \
  X(SINH, sinh, 1, 0, none, 0, GA, sinh(A0), 0, cosh(A0), V, 0, V, 0, V)                        \
  X(COSH, cosh, 1, 0, none, 0, GA, cosh(A0), 0, sinh(A0), V, 0, V, 0, V)                        \
  X(TANH, tanh, 1, 0, none, 0, GR, tanh(A0), 0, 1 - R * R, V, 0, V, 0, V)                       \
  X(LOG10, log10, 1, 0, none, 0, GA, log10(A0), 0, 1 / (A0 * 2.302585092994046), V, 0, V, 0,    \
    V) /* ln 10, the double nearest */                                                          \
  X(MAX, max, 2, 1, none, OUT | SEL, GA, (A0 < A1 ? A1 : A0),                                   \
    (A0 < A1 && C != 0) || (A0 > A1 && C == 0), A0 < A1 ? 0 : 1, V, A0 < A1 ? 1 : 0, V, 0, V)  \
  X(LGAMMA, lgamma, 1, 0, none, 0, GA, lgamma(A0), 0, cg_digamma(A0), V, 0, V, 0, V)          \
  X(TGAMMA, tgamma, 1, 0, none, 0, GA | GR, tgamma(A0), 0, R * cg_digamma(A0), V, 0, V, 0, V)  \
  X(ERFC, erfc, 1, 0, none, 0, GA, erfc(A0), 0, -1.1283791670955126 * exp(-A0 * A0), V, 0, V,  \
    0, V) /* -2 / sqrt(pi) */                                                                   \
  X(EXPM1, expm1, 1, 0, none, 0, GR, expm1(A0), 0, R + 1, V, 0, V, 0, V)                        \
  X(LOG1P, log1p, 1, 0, none, 0, GA, log1p(A0), 0, 1 / (1 + A0), V, 0, V, 0, V)                 \
  X(LOG2, log2, 1, 0, none, 0, GA, log2(A0), 0, 1 / (A0 * 0.6931471805599453), V, 0, V, 0, V)   \
  X(EXP2, exp2, 1, 0, none, 0, GR, exp2(A0), 0, R * 0.6931471805599453, V, 0, V, 0, V)          \
  X(HYPOT, hypot, 2, 0, none, 0, GA | GR, hypot(A0, A1), 0, A0 / R, V, A1 / R, V, 0, V)         \
  X(ROUND, round, 1, 1, none, OUT, 0, round(A0), R != C, 0, V, 0, V, 0, V)                      \
  X(TRUNC, trunc, 1, 1, none, OUT, 0, trunc(A0), R != C, 0, V, 0, V, 0, V)                      \
  X(FMOD, fmod, 2, 1, none, OUT, GA, fmod(A0, A1), trunc(A0 / A1) != C, 1, P,                   \
    -trunc(A0 / A1), V, 0, V)                                                                   \
  X(COPYSIGN, copysign, 2, 1, none, OUT, GA, copysign(A0, A1),                                  \
    ((signbit(A0) != 0) == (signbit(A1) != 0)) != (C != 0),                                     \
    A0 == 0 ? 0 : (signbit(A0) != 0) == (signbit(A1) != 0) ? 1 : -1, V, 0, V, 0, V)            \
  /* (the end of the table: a new row goes above this line) */

/* {==== support functions of the spellings ====}
 *
 * A partial that the C library cannot write (lgamma's is digamma) calls a
 * support function: compiled into the core (the rows above call it) and
 * kept as the text of a static C99 definition of the same code, which a
 * code generator writes into a generated file whose text calls it (only
 * then: -Wall warns of an unused static function), so generated files stay
 * self-contained and give the core's values bit for bit.  The values and
 * checks call only the C library (spec/c/test_gops.c checks); a support
 * function is for partials. */
#define CG_GOP_SUPPORT(X) X(cg_digamma)

/* digamma(x) = d/dx log|gamma(x)|: after the recurrence digamma(x) =
 * digamma(x + 1) - 1/x shifts x to at least 10, the asymptotic series
 * log x - 1/(2x) - sum B_2k / (2k x^2k) to k = 7 (Abramowitz & Stegun
 * 6.3.5 and 6.3.18); at x <= 0 the reflection digamma(x) = digamma(1 - x)
 * - pi cot(pi x) (6.3.7).  NaN at the poles 0, -1, -2, ... and for NaN,
 * -inf.  Its error is about 1e-15 for x > 0 (relative; absolute where
 * |digamma(x)| < 1, as about its zero at 1.4616...): the recurrence's sum
 * and the logarithm cancel to the result. */
double cg_digamma(double x);

/* The number of support functions; the name of support function k (NULL
 * past them); its static C definition, written into buf (at most cap
 * bytes, NUL included, as snprintf: the length it needs is returned). */
unsigned cg_gop_support_count(void);
const char *cg_gop_support_name(unsigned k);
size_t cg_gop_support_text(unsigned k, char *buf, size_t cap);
/* Whether C text s calls name (an identifier followed by '('). */
int cg_gop_text_calls(const char *s, const char *name);

/* The tape_op of a row that no tape opcode stands for (`none` in the
 * table): beyond every cg_ops.h code. */
#define CG_GOP_NO_TAPE_OP 0xff

enum {
#define CG_GOP_ENUM(id, nm, ar, hc, top, ...) CG_G_##id,
  CG_GOPS(CG_GOP_ENUM)
#undef CG_GOP_ENUM
  CG_G_COUNT
};

/* Flags, reads and structural marks of a row (the mark values are cg_lin.h's
 * CG_E_*: an edge weight carries its partial's mark). */
enum { CG_GF_OUTCOME = 1, CG_GF_SELECT = 2 };
enum { CG_GR_A = 1, CG_GR_R = 2 };
enum { CG_PM_VAR = 0, CG_PM_CONST = 1, CG_PM_PLUS1 = 2, CG_PM_MINUS1 = 3 };

/* The value of an operation on its operands a[] (arity of them; the running
 * value for a unary operation further down a chain); *sw counts a taped
 * outcome that no longer holds. */
typedef double (*cg_gop_valuef)(double c, const double *a, uint64_t *sw);
/* The partials d[0..2] and their marks mk[0..2] of an operation with
 * operands a[] and result r (read only as `reads` says). */
typedef void (*cg_gop_partf)(double c, const double *a, double r, double *d, uint8_t *mk);

/* A row of the table, as cg_gop() gives it. */
typedef struct cg_gopinfo {
  const char *name;
  uint8_t arity, has_const;
  uint8_t tape_op;          /* cg_ops.h code, CG_GOP_NO_TAPE_OP for none */
  uint8_t flags, reads;     /* CG_GF_*, CG_GR_* */
  uint8_t mark[3];          /* CG_PM_* of each partial */
  cg_gop_valuef value;
  cg_gop_partf partials;
  const char *c_value;      /* spellings in A0..A2, C, R, XI (above) */
  const char *c_check;      /* "0" without a taped outcome */
  const char *c_part[3];    /* "0" past the arity */
} cg_gopinfo;

/* The row of operation g (row 0, INDEP, for g out of range); the operation
 * called name, or -1. */
const cg_gopinfo *cg_gop(unsigned g);
int cg_gop_byname(const char *name);

#include <math.h>

/* The value of operation g (as the row's value function), inline for the
 * hot loops.  The arithmetic is exactly that of the tape opcode it stands
 * for (cg_eval.c), so values stay bit-identical.  g out of range: a[0] (0
 * without operands). */
static inline double cg_gop_apply_inline(unsigned g, double c, const double *a, uint64_t *sw) {
  double r;
  switch (g) {
#include "cg_gopx_begin.h"
#define CG_GOP_CASE(id, nm, ar, hc, top, fl, rd, val, chk, ...) \
  case CG_G_##id:                                               \
    r = (val);                                                  \
    if (chk) (*sw)++;                                           \
    return r;
    CG_GOPS(CG_GOP_CASE)
#undef CG_GOP_CASE
#include "cg_gopx_end.h"
    default: return a ? a[0] : 0.0;
  }
}

/* The partials of operation g into d[0..2] and mk[0..2] (as the row's
 * partials function), inline: a caller in a hot loop keeps the switch in
 * its own file.  g out of range: zeros and CG_PM_VAR. */
static inline void cg_gop_partials_inline(unsigned g, double c, const double *a, double r,
                                          double *d, uint8_t *mk) {
  (void)c, (void)a, (void)r;
  switch (g) {
#include "cg_gopx_begin.h"
#define CG_GOP_CASE(id, nm, ar, hc, top, fl, rd, val, chk, d0, m0, d1, m1, d2, m2) \
  case CG_G_##id:                                                                  \
    d[0] = (d0), d[1] = (d1), d[2] = (d2);                                         \
    mk[0] = (m0), mk[1] = (m1), mk[2] = (m2);                                      \
    return;
    CG_GOPS(CG_GOP_CASE)
#undef CG_GOP_CASE
#include "cg_gopx_end.h"
    default:
      d[0] = d[1] = d[2] = 0;
      mk[0] = mk[1] = mk[2] = CG_PM_VAR;
  }
}

/* The value, as a function (cg_gops.c). */
double cg_gop_apply(unsigned g, double c, const double *a, uint64_t *sw);
/* The partials of operation g into d[0..2] and mk[0..2] (the row's partials
 * function; zeros and CG_PM_VAR for g out of range). */
void cg_gop_partials(unsigned g, double c, const double *a, double r, double *d, uint8_t *mk);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
