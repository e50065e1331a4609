/* test_gops.c: the operation table of cg_gops.h against its own spellings.
 *  - the columns agree with the spellings: an operation reads the operands
 *    its arity gives (a unary one A0 exactly once, as chains nest it), its
 *    partials read what `reads` says, a +1, -1 or constant mark goes with
 *    a partial spelled 1, -1 or in the constant alone, a taped outcome
 *    with a check and a constant;
 *  - the choosing operations (cond, condeq, min, abs, max) on their
 *    boundaries give the values the tape's opcodes give (worked out by
 *    hand), and a taped outcome of min or max that no longer holds counts
 *    a switch, a tie never;
 *  - the operations no tape records (pow, atan2, sinh, cosh, tanh, log10,
 *    max and the kernels' C99 functions after them) are exactly those whose
 *    tape_op is CG_GOP_NO_TAPE_OP, every other row names an opcode of
 *    cg_ops.h; the partials of pow, atan2, log10, hypot, round, trunc, fmod
 *    and copysign where their conventions matter (a zero or negative base,
 *    the origin, ln 10, the jumps, the signs) are the values worked out by
 *    hand in cg_gops.h, and a taped outcome of round, trunc, fmod or
 *    copysign that no longer holds counts a switch;
 *  - the support function cg_digamma against known values of digamma and
 *    central differences of lgamma; the values and checks call no support
 *    function, and only the partials of lgamma and tgamma call it;
 *  - the spellings of every value and partial, compiled by cc as a code
 *    generator would write them (placeholders replaced by variables), give
 *    the table's value and partials functions bit for bit at sample points
 *    (both sides printed with %a; the support functions' definitions,
 *    cg_gop_support_text, written in front), as do the inline copies generated from
 *    the rows (cg_gop_apply_inline, cg_gop_partials_inline).
 * Prints "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph/cg_gops.h"
#include "tape/cg_ops.h"
#include "check.h"

/* {==== tokens of a spelling ====} */

static int word_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_' || ch == '.';
}

/* How often the token tok occurs in spelling s (whole tokens only). */
static int count_token(const char *s, const char *tok) {
  int n = 0;
  size_t len = strlen(tok);
  while (*s) {
    size_t k = 0;
    while (word_char(s[k])) k++;
    if (k == len && strncmp(s, tok, len) == 0) n++;
    s += k ? k : 1;
  }
  return n;
}

/* s with its placeholders replaced by C variables, into out. */
static void expand(const char *s, char *out, size_t size) {
  size_t o = 0;
  out[0] = 0;
  while (*s && o + 32 < size) {
    size_t k = 0;
    while (word_char(s[k])) k++;
    if (k == 2 && s[0] == 'A' && s[1] >= '0' && s[1] <= '2')
      o += (size_t)sprintf(out + o, "a[%c]", s[1]);
    else if (k == 1 && s[0] == 'C') o += (size_t)sprintf(out + o, "c");
    else if (k == 1 && s[0] == 'R') o += (size_t)sprintf(out + o, "r");
    else if (k == 2 && s[0] == 'X' && s[1] == 'I') o += (size_t)sprintf(out + o, "a[0]");
    else o += (size_t)sprintf(out + o, "%.*s", (int)(k ? k : 1), s);
    s += k ? k : 1;
  }
}

/* {==== the columns ====} */

static void test_columns(void) {
  unsigned g, i;
  for (g = 0; g < CG_G_COUNT; g++) {
    const cg_gopinfo *op = cg_gop(g);
    int reads_a = 0, reads_r = 0, failed0 = failed;
    for (i = 0; i < 3; i++) {
      char tok[3] = {'A', (char)('0' + i), 0};
      int in_value = count_token(op->c_value, tok);
      if (g == CG_G_INDEP || g == CG_G_CONST) CHECK(in_value == 0);
      else if (op->arity == 1) CHECK(in_value == (i == 0)); /* chains nest at A0 */
      else CHECK((in_value > 0) == (i < op->arity));
      if (i >= op->arity) CHECK(strcmp(op->c_part[i], "0") == 0 && op->mark[i] == CG_PM_VAR);
      reads_a |= count_token(op->c_part[0], tok) + count_token(op->c_part[1], tok) +
                 count_token(op->c_part[2], tok) > 0;
      if (op->mark[i] == CG_PM_PLUS1) CHECK(strcmp(op->c_part[i], "1") == 0);
      if (op->mark[i] == CG_PM_MINUS1) CHECK(strcmp(op->c_part[i], "-1") == 0);
      if (op->mark[i] == CG_PM_CONST)
        CHECK(count_token(op->c_part[i], "C") > 0 && count_token(op->c_part[i], "A0") == 0 &&
              count_token(op->c_part[i], "R") == 0);
      reads_r |= count_token(op->c_part[i], "R") > 0;
    }
    CHECK(count_token(op->c_value, "R") == 0);
    CHECK(((op->reads & CG_GR_A) != 0) == reads_a);
    CHECK(((op->reads & CG_GR_R) != 0) == reads_r);
    CHECK(((op->flags & CG_GF_OUTCOME) != 0) == (strcmp(op->c_check, "0") != 0));
    if (op->flags & CG_GF_OUTCOME) CHECK(op->has_const);
    CHECK(cg_gop_byname(op->name) == (int)g);
    if (failed > failed0) fprintf(stderr, "  (operation %s)\n", op->name);
  }
}

/* {==== the branching operations at their boundaries ====} */

/* The operations that choose (cond, condeq, min, abs) on and about their
 * boundaries, against values worked out by hand from the tape opcodes'
 * semantics (cg_eval.c: cond_assign takes a if cond > 0, cond_eq_assign if
 * cond >= 0, min_op the second operand only when the first is greater),
 * with a taped outcome that still holds: so a row that moved a boundary is
 * caught, which neither its spellings nor a point off the recorded branch
 * would show. */
static void test_boundaries(void) {
  static const struct { unsigned g; double c, a0, a1, a2, want; } cases[] = {
      {CG_G_COND, -1, 0.0, 1, 2, 2},   {CG_G_COND, -1, -0.0, 1, 2, 2},
      {CG_G_COND, 1, 1e-300, 1, 2, 1}, {CG_G_COND, -1, -1, 1, 2, 2},
      {CG_G_CONDEQ, 1, 0.0, 1, 2, 1},  {CG_G_CONDEQ, 1, -0.0, 1, 2, 1},
      {CG_G_CONDEQ, -1, -1e-300, 1, 2, 2},
      {CG_G_MIN, 1, 2, 2, 0, 2},       {CG_G_MIN, 0, 3, 2, 0, 2}, {CG_G_MIN, 1, 1, 2, 0, 1},
      {CG_G_ABS, 1, -0.0, 0, 0, 0},    {CG_G_ABS, 0, -3, 0, 0, 3},
      {CG_G_MAX, 1, 2, 2, 0, 2},       {CG_G_MAX, 1, 3, 2, 0, 3}, {CG_G_MAX, 0, 1, 2, 0, 2},
  };
  unsigned i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double a[3] = {cases[i].a0, cases[i].a1, cases[i].a2};
    uint64_t sw = 0;
    double r = cg_gop(cases[i].g)->value(cases[i].c, a, &sw);
    CHECK(r == cases[i].want && !signbit(r) && sw == 0);
    if (r != cases[i].want || sw) fprintf(stderr, "  (case %u: %s)\n", i, cg_gop(cases[i].g)->name);
  }
}

/* The outcome of min and max: c != 0 says the first operand was chosen
 * (min: A0 <= A1; max: A0 >= A1) when recorded; the other operand strictly
 * better now counts one switch, a tie none; the value is the chosen one
 * either way, a tie giving A0 (+0 and -0 tell which). */
static void test_outcomes(void) {
  static const struct { unsigned g; double c, a0, a1, want; unsigned sw; } cases[] = {
      {CG_G_MIN, 1, 3, 2, 2, 1},       {CG_G_MIN, 0, 1, 2, 1, 1},
      {CG_G_MIN, 0, -0.0, 0.0, -0.0, 0}, {CG_G_MIN, 1, 0.0, -0.0, 0.0, 0},
      {CG_G_MAX, 1, 1, 2, 2, 1},       {CG_G_MAX, 0, 3, 2, 3, 1},
      {CG_G_MAX, 0, -0.0, 0.0, -0.0, 0}, {CG_G_MAX, 1, 0.0, -0.0, 0.0, 0},
      {CG_G_MAX, 0, 1, 2, 2, 0},       {CG_G_MAX, 1, 5, -5, 5, 0},
  };
  unsigned i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double a[3] = {cases[i].a0, cases[i].a1, 0};
    uint64_t sw = 0;
    double r = cg_gop(cases[i].g)->value(cases[i].c, a, &sw);
    CHECK(memcmp(&r, &cases[i].want, sizeof r) == 0 && sw == cases[i].sw);
    if (memcmp(&r, &cases[i].want, sizeof r) != 0 || sw != cases[i].sw)
      fprintf(stderr, "  (outcome case %u: %s)\n", i, cg_gop(cases[i].g)->name);
  }
}

/* {==== the rows no tape records ====} */

/* tape_op none exactly for the kernels' own operations; every other row
 * names an opcode the tape knows (cg_graph_to_tape writes it). */
static void test_tape_ops(void) {
  static const char *const none[] = {"pow",   "atan2", "sinh",  "cosh",  "tanh",  "log10",
                                     "max",   "lgamma", "tgamma", "erfc", "expm1", "log1p",
                                     "log2",  "exp2",  "hypot", "round", "trunc", "fmod",
                                     "copysign"};
  unsigned g, k;
  for (g = 0; g < CG_G_COUNT; g++) {
    const cg_gopinfo *op = cg_gop(g);
    int listed = 0;
    for (k = 0; k < sizeof none / sizeof none[0]; k++) listed |= strcmp(op->name, none[k]) == 0;
    CHECK((op->tape_op == CG_GOP_NO_TAPE_OP) == listed);
    if (!listed) CHECK(cg_op(op->tape_op)->name != NULL);
    if ((op->tape_op == CG_GOP_NO_TAPE_OP) != listed) fprintf(stderr, "  (operation %s)\n", op->name);
  }
  CHECK(cg_op(CG_GOP_NO_TAPE_OP)->name == NULL); /* none is no opcode */
}

/* The partials d[0], d[1] of row g at (a0, a1), against want (bitwise: a
 * 0 must not be -0, a NaN must be a NaN). */
static void check_partials(unsigned g, double a0, double a1, double w0, double w1) {
  double a[3] = {a0, a1, 0}, d[3], r;
  uint8_t mk[3];
  uint64_t sw = 0;
  int ok;
  r = cg_gop(g)->value(0, a, &sw);
  cg_gop(g)->partials(0, a, r, d, mk);
  ok = (isnan(w0) ? isnan(d[0]) : memcmp(&d[0], &w0, sizeof w0) == 0) &&
       (isnan(w1) ? isnan(d[1]) : memcmp(&d[1], &w1, sizeof w1) == 0);
  CHECK(ok);
  if (!ok)
    fprintf(stderr, "  (%s at (%g, %g): partials %.17g %.17g, want %.17g %.17g)\n", cg_gop(g)->name,
            a0, a1, d[0], d[1], w0, w1);
}

/* pow's conventions (cg_gops.h): d/dx is 0 at y == 0; d/dy is x^y log x
 * for x > 0, its limit 0 at x == 0 (also -0), 0 for x < 0 (y passive); a
 * NaN base stays NaN.  atan2's partials at the origin are NaN.  log10's
 * is 1 / (x ln 10) with ln 10 as the library's log(10). */
static void test_conventions(void) {
  volatile double ten = 10, two = 2; /* computed at run time, as a kernel would */
  double ln2 = log(two), nan = NAN;
  unsigned k;
  check_partials(CG_G_POW, 2, 3, 12, 8 * ln2);
  check_partials(CG_G_POW, 2, 0, 0, ln2);       /* 2^y: d/dy at 0 is ln 2 */
  check_partials(CG_G_POW, 0, 2.5, 0, 0);       /* 0 * log(0) would be NaN */
  check_partials(CG_G_POW, -0.0, 2.5, 0, 0);
  check_partials(CG_G_POW, 0, 0, 0, 0);         /* 0^0 = 1: d/dx exact, d/dy finite */
  check_partials(CG_G_POW, -2, 3, 12, 0);       /* y passive at a negative base */
  check_partials(CG_G_POW, 0, -1, -INFINITY, 0);
  check_partials(CG_G_POW, nan, 1, 1, nan);
  check_partials(CG_G_ATAN2, 0, 0, nan, nan);
  check_partials(CG_G_ATAN2, 1, 0, 0, -1);
  check_partials(CG_G_ATAN2, 0, -2, -0.5, -0.0);
  check_partials(CG_G_ATAN2, 3, 4, 0.16, -0.12);
  for (k = 0; k < 6; k++) {
    static const double xs[] = {0.5, 1, 3e-5, 7.25, 1e300, 0.1};
    check_partials(CG_G_LOG10, xs[k], 0, 1 / (xs[k] * log(ten)), 0);
    check_partials(CG_G_LOG2, xs[k], 0, 1 / (xs[k] * log(two)), 0);
  }
  check_partials(CG_G_HYPOT, 3, 4, 0.6, 0.8);
  check_partials(CG_G_HYPOT, -3, 4, -0.6, 0.8);
  check_partials(CG_G_HYPOT, 0, 0, nan, nan);   /* the origin, as atan2 */
  check_partials(CG_G_ROUND, 2.5, 0, 0, 0);     /* piecewise constant: 0, at a jump too */
  check_partials(CG_G_ROUND, -0.7, 0, 0, 0);
  check_partials(CG_G_TRUNC, -2.5, 0, 0, 0);
  check_partials(CG_G_TRUNC, 3, 0, 0, 0);
  check_partials(CG_G_FMOD, 7, 2, 1, -3);       /* 7 - 3 * 2 */
  check_partials(CG_G_FMOD, -7, 2, 1, 3);       /* -7 - (-3) * 2 */
  check_partials(CG_G_FMOD, 7, -2, 1, 3);       /* 7 - (-3) * (-2) */
  check_partials(CG_G_FMOD, 1.5, 2, 1, -0.0);   /* quotient 0: -trunc(0.75) is -0 */
  check_partials(CG_G_COPYSIGN, 2, 5, 1, 0);    /* signs agree */
  check_partials(CG_G_COPYSIGN, -2, 5, -1, 0);  /* they differ: |a| grows as a falls */
  check_partials(CG_G_COPYSIGN, 2, -0.0, -1, 0); /* -0 has its sign */
  check_partials(CG_G_COPYSIGN, -2, -1, 1, 0);
  check_partials(CG_G_COPYSIGN, 0, 1, 0, 0);    /* a == 0: as abs */
  check_partials(CG_G_COPYSIGN, -0.0, -1, 0, 0);
  check_partials(CG_G_EXPM1, 0, 0, 1, 0);
  check_partials(CG_G_EXP2, 3, 0, 8 * log(two), 0);
  check_partials(CG_G_ERFC, 0, 0, -1.1283791670955126, 0);
}

/* The taped outcome of the piecewise rows: round and trunc tape their
 * result, fmod its quotient trunc(a / b), copysign whether the signs agreed
 * (c != 0); a different one now counts one switch, the value is the
 * library's either way. */
static void test_piecewise_outcomes(void) {
  static const struct { unsigned g; double c, a0, a1; unsigned sw; } cases[] = {
      {CG_G_ROUND, 3, 2.5, 0, 0},      {CG_G_ROUND, 2, 2.5, 0, 1},
      {CG_G_ROUND, -3, -2.5, 0, 0},    {CG_G_ROUND, -0.0, -0.4, 0, 0},
      {CG_G_TRUNC, 2, 2.9, 0, 0},      {CG_G_TRUNC, 3, 2.9, 0, 1},
      {CG_G_TRUNC, -2, -2.9, 0, 0},
      {CG_G_FMOD, 3, 7, 2, 0},         {CG_G_FMOD, 3, 8.5, 2, 1},
      {CG_G_FMOD, -3, -7, 2, 0},       {CG_G_FMOD, 0, 1.5, 2, 0},
      {CG_G_COPYSIGN, 1, 2, 5, 0},     {CG_G_COPYSIGN, 1, 2, -5, 1},
      {CG_G_COPYSIGN, 0, 2, -5, 0},    {CG_G_COPYSIGN, 0, 2, 5, 1},
      {CG_G_COPYSIGN, 1, -0.0, -1, 0}, {CG_G_COPYSIGN, 1, 0.0, -0.0, 1},
  };
  unsigned i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double a[3] = {cases[i].a0, cases[i].a1, 0}, want;
    uint64_t sw = 0;
    double r = cg_gop(cases[i].g)->value(cases[i].c, a, &sw);
    switch (cases[i].g) {
      case CG_G_ROUND: want = round(a[0]); break;
      case CG_G_TRUNC: want = trunc(a[0]); break;
      case CG_G_FMOD: want = fmod(a[0], a[1]); break;
      default: want = copysign(a[0], a[1]); break;
    }
    CHECK(memcmp(&r, &want, sizeof r) == 0 && sw == cases[i].sw);
    if (memcmp(&r, &want, sizeof r) != 0 || sw != cases[i].sw)
      fprintf(stderr, "  (piecewise case %u: %s)\n", i, cg_gop(cases[i].g)->name);
  }
}

/* {==== the support functions ====} */

/* cg_digamma against digamma's known values (-gamma, -gamma - 2 log 2,
 * 1 - gamma, and the reflection's: digamma(-0.5) = 2 - gamma - 2 log 2),
 * to 1e-15 (relative; absolute where |digamma| < 1), and against central differences of lgamma on both
 * sides of 0; NaN at the poles.  Only lgamma's and tgamma's partials call
 * it, no value or check calls a support function, and its text is a
 * static definition of that name. */
static void test_support(void) {
  static const struct { double x, want; } known[] = {
      {1, -0.57721566490153286}, {0.5, -1.9635100260214235}, {2, 0.42278433509846714},
      {10, 2.2517525890667211},  {-0.5, 0.036489973978576520}, {1.4616321449683622, 0},
      {100, 4.6001618527380874}, {1e-8, -100000000.57721566},
  };
  static const double xs[] = {0.3, 0.9, 1.7, 3.25, 7.5, 12, 40, -0.3, -1.6, -2.5, -7.2};
  char buf[2048];
  unsigned k, g, i;
  for (k = 0; k < sizeof known / sizeof known[0]; k++) {
    double got = cg_digamma(known[k].x);
    int ok = fabs(got - known[k].want) <= 1e-15 * (fabs(known[k].want) > 1 ? fabs(known[k].want) : 1);
    CHECK(ok);
    if (!ok) fprintf(stderr, "  (digamma(%.17g) = %.17g, want %.17g)\n", known[k].x, got, known[k].want);
  }
  for (k = 0; k < sizeof xs / sizeof xs[0]; k++) {
    double x = xs[k], h = 1e-5 * (fabs(x) > 1 ? fabs(x) : 1);
    double fd = (lgamma(x + h) - lgamma(x - h)) / (2 * h), got = cg_digamma(x);
    int ok = fabs(got - fd) <= 1e-7 * (1 + fabs(fd));
    CHECK(ok);
    if (!ok) fprintf(stderr, "  (digamma(%g) = %.17g, central difference %.17g)\n", x, got, fd);
  }
  CHECK(isnan(cg_digamma(0)) && isnan(cg_digamma(-0.0)) && isnan(cg_digamma(-3)));
  CHECK(isnan(cg_digamma(NAN)) && isnan(cg_digamma(-INFINITY)) && cg_digamma(INFINITY) == INFINITY);
  CHECK(cg_gop_support_count() == 1 && strcmp(cg_gop_support_name(0), "cg_digamma") == 0);
  CHECK(cg_gop_support_name(1) == NULL && cg_gop_support_text(1, buf, sizeof buf) == 0);
  CHECK(cg_gop_support_text(0, buf, sizeof buf) < sizeof buf);
  CHECK(strncmp(buf, "static double cg_digamma(double cg_x) {\n", 40) == 0);
  CHECK(cg_gop_support_text(0, buf, 10) > 10 && strlen(buf) == 9); /* truncated as snprintf */
  CHECK(cg_gop_text_calls("a * cg_digamma (x)", "cg_digamma") &&
        !cg_gop_text_calls("my_cg_digamma(x) + cg_digamma_2(x) + cg_digamma", "cg_digamma"));
  for (g = 0; g < CG_G_COUNT; g++) {
    const cg_gopinfo *op = cg_gop(g);
    int calls = 0;
    for (k = 0; k < cg_gop_support_count(); k++) {
      const char *nm = cg_gop_support_name(k);
      CHECK(!cg_gop_text_calls(op->c_value, nm) && !cg_gop_text_calls(op->c_check, nm));
      for (i = 0; i < 3; i++) calls |= cg_gop_text_calls(op->c_part[i], nm);
    }
    CHECK(calls == (g == CG_G_LGAMMA || g == CG_G_TGAMMA));
  }
}

/* {==== the spellings compiled ====} */

static const double vals[] = {0.5, -1.3, 2.2, 0.05, -7, 3e-5, 1e10, 0.0, -0.0, 0.75, -0.25, 1.0};
static const double consts[] = {0.7, -1.3333333333333333, 3, 0, 1, -0.5, 2.5};
#define NV (sizeof vals / sizeof vals[0])
#define NC (sizeof consts / sizeof consts[0])

/* The sample point k: operands and constant. */
static void sample(unsigned k, double *a, double *c) {
  a[0] = vals[k % NV], a[1] = vals[(k + 3) % NV], a[2] = vals[(k + 7) % NV];
  *c = consts[k % NC];
}

/* One line per operation and sample: the value, the partials (with %a). */
static void print_line(FILE *fp, unsigned g, unsigned k, double r, const double *d) {
  fprintf(fp, "%u %u %a %a %a %a\n", g, k, r, d[0], d[1], d[2]);
}

/* A C program printing the lines from the spellings alone. */
static int write_program(const char *path) {
  FILE *fp = fopen(path, "w");
  unsigned g, i, k;
  char buf[1024];
  if (!fp) return -1;
  fprintf(fp, "#include <math.h>\n#include <stdio.h>\n\n");
  for (k = 0; k < cg_gop_support_count(); k++) {
    char text[4096];
    if (cg_gop_support_text(k, text, sizeof text) >= sizeof text) return -1;
    fprintf(fp, "%s\n", text);
  }
  for (g = 0; g < CG_G_COUNT; g++) {
    const cg_gopinfo *op = cg_gop(g);
    expand(op->c_value, buf, sizeof buf);
    fprintf(fp, "static double v%u(double c, const double *a) {\n", g);
    fprintf(fp, "  (void)c, (void)a;\n  return %s;\n}\n", buf);
    fprintf(fp, "static void p%u(double c, const double *a, double r, double *d) {\n", g);
    fprintf(fp, "  (void)c, (void)a, (void)r;\n");
    for (i = 0; i < 3; i++) {
      expand(op->c_part[i], buf, sizeof buf);
      fprintf(fp, "  d[%u] = (%s);\n", i, buf);
    }
    fprintf(fp, "}\n");
  }
  /* the samples are read at run time (volatile), as a generated
   * function reads its inputs: no constant folding by the compiler */
  fprintf(fp, "static volatile double S[%u][4] = {\n", (unsigned)(NV * NC));
  for (k = 0; k < NV * NC; k++) {
    double s[3], sc;
    sample(k, s, &sc);
    fprintf(fp, "  {%a, %a, %a, %a},\n", s[0], s[1], s[2], sc);
  }
  fprintf(fp, "};\n\nint main(void) {\n  double a[3], d[3], c, r;\n  unsigned k;\n");
  for (g = 0; g < CG_G_COUNT; g++) {
    fprintf(fp, "  for (k = 0; k < %u; k++) {\n", (unsigned)(NV * NC));
    fprintf(fp, "    a[0] = S[k][0], a[1] = S[k][1], a[2] = S[k][2], c = S[k][3];\n");
    fprintf(fp, "    r = v%u(c, a), p%u(c, a, r, d);\n", g, g);
    fprintf(fp, "    printf(\"%u %%u %%a %%a %%a %%a\\n\", k, r, d[0], d[1], d[2]);\n  }\n", g);
  }
  fprintf(fp, "  return 0;\n}\n");
  return fclose(fp);
}

/* The same lines from the table's functions. */
static int write_expected(const char *path) {
  FILE *fp = fopen(path, "w");
  unsigned g, k;
  if (!fp) return -1;
  for (g = 0; g < CG_G_COUNT; g++)
    for (k = 0; k < NV * NC; k++) {
      double a[3], c, r, d[3];
      uint8_t mk[3];
      uint64_t sw = 0;
      sample(k, a, &c);
      r = cg_gop(g)->value(c, a, &sw);
      CHECK(memcmp(&r, &(double){cg_gop_apply(g, c, a, &sw)}, sizeof r) == 0);
      cg_gop(g)->partials(c, a, r, d, mk);
      { /* the inline copies of the table (generated from the same rows) agree */
        double d2[3];
        uint8_t mk2[3];
        cg_gop_partials_inline(g, c, a, r, d2, mk2);
        CHECK(memcmp(d, d2, sizeof d2) == 0 && memcmp(mk, mk2, sizeof mk2) == 0);
      }
      print_line(fp, g, k, r, d);
    }
  return fclose(fp);
}

static void test_compiled(void) {
  char dir[] = "/tmp/cgwb-gops-XXXXXX", src[64], exe[64], got[64], want[64], cmd[512];
  if (!mkdtemp(dir)) {
    CHECK(!"mkdtemp");
    return;
  }
  snprintf(src, sizeof src, "%s/ops.c", dir), snprintf(exe, sizeof exe, "%s/ops", dir);
  snprintf(got, sizeof got, "%s/got", dir), snprintf(want, sizeof want, "%s/want", dir);
  CHECK(write_program(src) == 0);
  CHECK(write_expected(want) == 0);
  snprintf(cmd, sizeof cmd,
           "cc -std=c99 -O2 -ffp-contract=off -Wall -Werror %s -o %s -lm && %s > %s",
           src, exe, exe, got);
  CHECK(system(cmd) == 0);
  snprintf(cmd, sizeof cmd, "cmp %s %s", got, want);
  CHECK(system(cmd) == 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (!failed && system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

int main(void) {
  test_columns();
  test_boundaries();
  test_outcomes();
  test_tape_ops();
  test_conventions();
  test_piecewise_outcomes();
  test_support();
  test_compiled();
  return check_report("test_gops");
}
