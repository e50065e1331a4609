/* test_kintrinsics.c: the kernels' math.h intrinsics (CG_KINTRINSICS,
 * csrc/kernel/cg_kernel.h) tied to the graph operation table (cg_gops.h).
 *  - every intrinsic maps to a row (cg_kintrinsic_gop in range) of its own
 *    arity, and out-of-range ids give -1 and NULL;
 *  - the row's value is the C library function of the intrinsic's name, bit
 *    for bit, on sample points that cross every domain edge (0, -0, +-inf,
 *    NaN, overflow, negative bases): the interpreter calls the library and
 *    flattening will use the row, so the two must not drift apart.  Two
 *    documented differences, both in fmin and fmax (cg_gops.h): they treat
 *    a NaN operand as missing (returning the other), while min and max, like
 *    ADOL-C's min_op, compare; and the sign of a tie of 0 and -0 is left
 *    open by C (glibc returns the second operand, the rows the first), so
 *    pairs holding a NaN and ties of opposite zeros are skipped for those
 *    two.  Everywhere else they agree.
 * The library functions are called through pointers on operands read from a
 * volatile array, so the compiler cannot evaluate them itself.
 * Prints "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernel/cg_kernel.h"
#include "check.h"

typedef double (*fn1)(double);
typedef double (*fn2)(double, double);

/* The C library's functions by name, written out here independently of
 * the kernel table (a name missing here fails the test). */
static const struct { const char *name; fn1 f1; fn2 f2; } libm[] = {
    {"sin", sin, NULL},     {"cos", cos, NULL},   {"tan", tan, NULL},     {"asin", asin, NULL},
    {"acos", acos, NULL},   {"atan", atan, NULL}, {"atan2", NULL, atan2}, {"sinh", sinh, NULL},
    {"cosh", cosh, NULL},   {"tanh", tanh, NULL}, {"exp", exp, NULL},     {"log", log, NULL},
    {"log10", log10, NULL}, {"sqrt", sqrt, NULL}, {"pow", NULL, pow},     {"fabs", fabs, NULL},
    {"fmin", NULL, fmin},   {"fmax", NULL, fmax}, {"floor", floor, NULL}, {"ceil", ceil, NULL},
    {"cbrt", cbrt, NULL},   {"acosh", acosh, NULL}, {"atanh", atanh, NULL}, {"erf", erf, NULL},
    {"erfc", erfc, NULL},   {"lgamma", lgamma, NULL}, {"tgamma", tgamma, NULL},
    {"expm1", expm1, NULL}, {"log1p", log1p, NULL}, {"log2", log2, NULL}, {"exp2", exp2, NULL},
    {"hypot", NULL, hypot}, {"fmod", NULL, fmod}, {"round", round, NULL}, {"trunc", trunc, NULL},
    {"copysign", NULL, copysign},
};
#define NLIBM (sizeof libm / sizeof libm[0])

static volatile double points[] = {0.5,  -1.3, 2.2, 0.05, -7,   3e-5,   1e10, 0.0,      -0.0, 0.75,
                                   -0.25, 1,   -1,  2.5,  710, -745.5, 1e-310, INFINITY, -INFINITY,
                                   NAN,   3,   -2};
#define NP (sizeof points / sizeof points[0])

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The row's value function at (x, y), its outcome constant 0 (an outcome
 * only counts switches; the value is the operands'). */
static double row_value(int g, double x, double y) {
  double a[3] = {x, y, 0};
  uint64_t sw = 0;
  return cg_gop((unsigned)g)->value(0, a, &sw);
}

/* Intrinsic id against the library function lib[k] on every point (every
 * pair for two operands); the number of points that differ. */
static int compare_on_points(int id, unsigned k) {
  int g = cg_kintrinsic_gop(id), bad = 0;
  int selects = strcmp(libm[k].name, "fmin") == 0 || strcmp(libm[k].name, "fmax") == 0;
  unsigned i, j;
  for (i = 0; i < NP; i++)
    for (j = 0; j < (libm[k].f2 ? NP : 1); j++) {
      double x = points[i], y = points[j], want, got;
      if (selects && (isnan(x) || isnan(y) || (x == y && !same_bits(x, y))))
        continue; /* documented above */
      want = libm[k].f2 ? libm[k].f2(x, y) : libm[k].f1(x);
      got = row_value(g, x, y);
      if (same_bits(want, got)) continue;
      if (bad++ < 3)
        fprintf(stderr, "  %s(%.17g, %.17g): library %.17g, row %s %.17g\n", libm[k].name, x, y,
                want, cg_gop((unsigned)g)->name, got);
    }
  return bad;
}

static void test_rows(void) {
  int id;
  for (id = 0; id < CG_KI_COUNT; id++) {
    const char *name = cg_kintrinsic_name(id);
    int g = cg_kintrinsic_gop(id);
    unsigned k;
    CHECK(name != NULL && g >= 0 && g < CG_G_COUNT);
    if (!name || g < 0 || g >= CG_G_COUNT) continue;
    CHECK((int)cg_gop((unsigned)g)->arity == cg_kintrinsic_arity(id));
    CHECK(cg_kintrinsic_xaif(id) != NULL && cg_kintrinsic_xaif(id)[0] != '\0');
    for (k = 0; k < NLIBM && strcmp(libm[k].name, name) != 0; k++) continue;
    CHECK(k < NLIBM); /* the test knows the function */
    if (k == NLIBM) {
      fprintf(stderr, "  (intrinsic %s: no library function in the test)\n", name);
      continue;
    }
    CHECK((libm[k].f2 ? 2 : 1) == cg_kintrinsic_arity(id));
    CHECK(compare_on_points(id, k) == 0);
  }
  CHECK(cg_kintrinsic_gop(-1) == -1 && cg_kintrinsic_gop(CG_KI_COUNT) == -1);
  CHECK(cg_kintrinsic_name(CG_KI_COUNT) == NULL && cg_kintrinsic_arity(CG_KI_COUNT) == -1);
  CHECK(cg_kintrinsic_xaif(-1) == NULL && cg_kintrinsic_xaif(CG_KI_COUNT) == NULL);
}

int main(void) {
  test_rows();
  return check_report("test_kintrinsics");
}
