/*
 * record.cpp: records a set of ADOL-C 2.7.2 test tapes to disk and prints
 * what ADOL-C itself says about them, for spec/c/test_adolc.c.
 *
 * Usage: record [--obs N --lbs N --vbs N]   (in the directory to write to)
 *   Without options the default (large) buffers are used: single-block files.
 *   With small sizes the files are multi-block and carry block markers
 *   (doc/adolc-format.md 4.6; smallest working: 3/43/5).
 *
 * yt0/yt1 are the ground truth: zos_forward of Debian's 2.7.2 reads
 * ref_assign_p's operands in the wrong order, so y differs from yt there.
 *
 * Every tape is recorded with trace_off(1), tags 1..N, and evaluated with
 * zos_forward in the same process (a process that only reads a disk tape
 * deletes it at exit: doc/adolc-format.md section 11).
 *
 * Output (stdout), one block per tag, whitespace-separated tokens:
 *   tape <tag> <name> <n> <m>
 *   stats <18 integers: tapestats(), enum StatEntries order>
 *   x0 <n numbers>          the first point
 *   rc0 <zos_forward return code at x0>
 *   y0 <m numbers>          zos_forward at x0
 *   yt0 <m numbers>         the values computed while taping at x0
 *   x1 <n numbers>          the second point
 *   rc1 <code>              (-1: branch switch; y1 then incomplete)
 *   y1 <m numbers>          zos_forward at x1
 *   yt1 <m numbers>         the values computed while taping at x1 (a
 *                           scratch in-memory tape, tag + 1000)
 *   end
 * Numbers are printed with %.17g (exact round trip through strtod).
 * A last line "done <count>" ends the file.
 */
#include <adolc/adolc.h>
#include <adolc/advector.h>
#include <adolc/param.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Bufs {
  unsigned obs, lbs, vbs, tbs;
  bool small;
};

typedef void (*Body)(const std::vector<adouble> &x, std::vector<adouble> &y);

struct Case {
  const char *name;
  int n, m;
  Body body;
  double x0[8], x1[8];
};

// Plain arithmetic, in-place operators, eq_plus_prod / eq_min_prod.
void f_arith(const std::vector<adouble> &x, std::vector<adouble> &y) {
  adouble t = x[0] + x[1];
  adouble u = x[0] * x[1] - x[2] / x[0];
  adouble v = 3.0 * t + 2.0 - u;
  adouble w = 1.0 / x[2] - x[1] / 4.0 + (5.0 - x[0]);
  adouble s = 0.0;
  s += x[0] * x[1];                 // eq_plus_prod
  s -= x[1] * x[2];                 // eq_min_prod
  s += 2.5;
  s -= 0.5;
  s *= 1.5;
  s /= x[0];
  s += t;
  s -= u;
  s *= v;
  adouble k = x[2];
  k++;
  ++k;
  k--;
  adouble z = -x[0] + (+x[1]);
  y[0] = t * u;
  y[1] = v / w;
  y[2] = s;
  y[3] = k * z;
  y[4] = x[0] * x[0] * x[0] - x[1];
}

// Every elementary function ADOL-C tapes (tan, sinh, ... expand into others).
void f_elem(const std::vector<adouble> &x, std::vector<adouble> &y) {
  adouble a = x[0], b = x[1];  // a in (0,1), b > 0
  y[0] = exp(a) + log(b);
  y[1] = sin(a) * cos(b);
  y[2] = sqrt(b) + pow(a, 2.5);
  y[3] = pow(a, b);
  y[4] = atan(a) + asin(a) + acos(a);
  y[5] = asinh(b) + acosh(1.0 + b) + atanh(a);
  y[6] = erf(a - b);
  y[7] = fabs(a - b) + fmin(a, b) + fmax(a, b);
  y[8] = ceil(b) + floor(b * 3.0);
  y[9] = tan(a) + sinh(a) + cosh(b) + tanh(a);
  y[10] = log10(b) + atan2(a, b);
  y[11] = pow(2.0, a) + pow(a, 3);
}

// Comparisons turned into branch records.
void f_branch(const std::vector<adouble> &x, std::vector<adouble> &y) {
  adouble r = 0.0;
  if (x[0] > 2.0) r = x[0] * 3.0; else r = x[0] / 3.0;
  if (x[0] < x[1]) r += x[1]; else r -= x[1];
  if (x[1] >= 0.0) r *= 2.0;
  if (x[1] <= 10.0) r += 1.0;
  if (x[0] != 0.0) r += x[0];
  if (x[0] == 7.0) r += 100.0;
  if (x[1] > 0.0) r *= x[1];
  y[0] = r;
}

// condassign / condeqassign, abs/min/max switches (return code 2).
void f_cond(const std::vector<adouble> &x, std::vector<adouble> &y) {
  adouble r, s = 5.0, q, p = 1.0;
  condassign(r, x[0] - 1.0, x[1] * 2.0, x[1] * 3.0);
  condassign(s, x[1], x[0]);
  condeqassign(q, x[0] - x[1], x[0], x[1]);
  condeqassign(p, x[1] - 2.0, x[0] + 1.0);
  y[0] = r + s;
  y[1] = q * p;
  y[2] = fabs(x[0] - 1.5) + fmin(x[0], x[1]) + fmax(x[0], 2.0);
}

// Default-constructed adoubles (assign_d_zero noise) and passive constants.
void f_noise(const std::vector<adouble> &x, std::vector<adouble> &y) {
  std::vector<adouble> work(6);
  adouble z = 3.0;  // passive constant, still taped
  adouble one = 1.0;
  adouble arr[4];
  for (int i = 0; i < 4; i++) arr[i] = x[i % 2] * (i + 1);
  work[2] = arr[1] + arr[3] * z;
  work[5] = work[2] * one;
  y[0] = work[5] + work[0];
  y[1] = arr[0] - z;
}

// Active subscripts: advector, subscript / subscript_ref / ref_* opcodes.
void f_advec(const std::vector<adouble> &x, std::vector<adouble> &y) {
  advector v(5);
  for (size_t i = 0; i < 5; i++) v[i] = x[0] * (double)(i + 1) + x[1];
  adouble idx = floor(x[2]);
  const advector &cv = v;
  adouble r = cv[idx];       // subscript
  adouble r2;
  r2 = v[idx];               // subscript_ref + ref_copyout
  v[idx] = x[0] * 2.0;       // subscript_ref + ref_assign_a
  v[idx] += x[1];            // ref_eq_plus_a
  v[idx] *= 3.0;             // ref_eq_mult_d
  v[idx] -= 0.5;             // ref_eq_min_d
  adouble j = idx + 1.0;
  v[j] = 4.0;                // ref_assign_d
  v[j] *= x[0];              // ref_eq_mult_a
  adouble s = 0.0;
  for (size_t i = 0; i < 5; i++) s += v[i];
  y[0] = r * r2;
  y[1] = s;
  advector w(4);  // nondecreasing, as lookupindex requires
  for (size_t i = 0; i < 4; i++) w[i] = (double)i;
  y[2] = w.lookupindex(x[0], x[1]);
}

// Parameters (pdouble): assign_p, plus_a_p, mult_a_p, ...
void f_param(const std::vector<adouble> &x, std::vector<adouble> &y) {
  pdouble p = mkparam(2.5), q = mkparam(-0.75);
  adouble a;
  a = p;                  // assign_p
  a += q;                 // eq_plus_p
  a *= x[0];
  adouble b = x[0] + p;   // plus_a_p
  adouble c = x[1] * q;   // mult_a_p
  adouble d = x[1] - p;   // min_a_p
  adouble e = p / x[0];   // div_p_a
  adouble f = pow(x[1], p);
  y[0] = a + b;
  y[1] = c * d;
  y[2] = e + f;
}

// Parameters through references: ref_eq_plus_p, ref_eq_mult_p, ref_eq_min_p.
void f_param_ref(const std::vector<adouble> &x, std::vector<adouble> &y) {
  pdouble p = mkparam(2.5), q = mkparam(-0.75);
  advector w(3);
  for (size_t i = 0; i < 3; i++) w[i] = x[0] * (double)i;
  adouble k = floor(x[1]);
  w[k] += p;
  w[k] *= q;
  w[k] -= p;
  y[0] = w[0] + w[1] + w[2];
}

// ref_assign_p: Debian's zos_forward reads its operands in the wrong order.
void f_param_refassign(const std::vector<adouble> &x, std::vector<adouble> &y) {
  pdouble q = mkparam(-0.75);
  advector w(3);
  for (size_t i = 0; i < 3; i++) w[i] = x[0] * (double)i;
  adouble k = floor(x[1]);
  w[k] = q;
  y[0] = w[0] + w[1] + w[2];
}

// No constant at all: no Values file (doc/adolc-format.md P1).
void f_noconst(const std::vector<adouble> &x, std::vector<adouble> &y) {
  adouble p;
  p = x[0];
  for (size_t i = 1; i < x.size(); i++) p *= x[i];
  y[0] = p;
  y[1] = x[0] * x[1] + x[2] / x[3];
}

// A longer tape (a small Bratu-like stencil) for many blocks.
void f_long(const std::vector<adouble> &x, std::vector<adouble> &y) {
  const int n = 6;
  for (int i = 0; i < n; i++) {
    adouble l = i > 0 ? adouble(x[i - 1]) : adouble(0.0);
    adouble r = i < n - 1 ? adouble(x[i + 1]) : adouble(0.0);
    adouble c = x[i];
    y[i] = 2.0 * c - l - r - 0.1 * exp(c);
    for (int k = 0; k < 3; k++) y[i] += sin(c * (k + 1)) * 0.01;
  }
}

// Vector opcodes: vec_dot, vec_axpy, vec_copy (advector copy).
void f_vec(const std::vector<adouble> &x, std::vector<adouble> &y) {
  advector a(3), b(3), r(3);
  for (size_t i = 0; i < 3; i++) {
    a[i] = x[i] * 2.0;
    b[i] = x[i] + 1.0;
  }
  adouble s = adolc_vec_dot(&a[0], &b[0], 3);
  adolc_vec_axpy(&r[0], x[0], &a[0], &b[0], 3);
  advector c(r);  // vec_copy
  y[0] = s;
  y[1] = c[0] + c[1] + c[2];
}

// The rarer opcodes: recipr_p, neg_sign_p, eq_min_p, eq_mult_p, eq_zero,
// ref_assign_d_zero/one, ref_incr_a, ref_decr_a, ref_cond_assign(_s).
void f_misc(const std::vector<adouble> &x, std::vector<adouble> &y) {
  pdouble p = mkparam(4.0);
  adouble a = x[0] / p;  // recipr_p
  adouble b = 3.0 - p;   // neg_sign_p
  adouble c;
  c = x[1];
  c -= p;  // eq_min_p
  c *= p;  // eq_mult_p
  if (x[0] == 1.5) c += 1.0;  // eq_zero
  advector v(4);
  for (size_t i = 0; i < 4; i++) v[i] = x[1] * (double)i;
  adouble k = floor(x[0]), k1 = k + 1.0, k2 = k + 2.0;
  v[k] = 0.0;
  ++v[k];
  v[k1] = 1.0;
  --v[k1];
  {
    adubref r2 = v[k2], r0 = v[k];
    condassign(r2, x[1] - 2.5, x[0], x[1]);  // ref_cond_assign
    condeqassign(r0, x[1] - 2.5, x[0]);      // ref_cond_eq_assign_s
  }
  y[0] = a + b;
  y[1] = c;
  y[2] = v[0] + v[1] + v[2] + v[3];
}

const Case cases[] = {
    {"arith", 3, 5, f_arith, {1.5, -2.25, 3.0}, {0.7, 1.3, -2.9}},
    {"elem", 2, 12, f_elem, {0.3, 1.7}, {0.45, 2.6}},
    {"branch", 2, 1, f_branch, {3.0, 4.0}, {3.5, 5.0}},
    {"branch_switch", 2, 1, f_branch, {3.0, 4.0}, {1.0, 4.0}},
    {"cond", 2, 3, f_cond, {2.0, 1.0}, {0.5, 3.0}},
    {"noise", 2, 2, f_noise, {1.25, -0.5}, {2.0, 3.0}},
    {"advec", 3, 3, f_advec, {1.5, 0.25, 2.3}, {1.25, 0.5, 2.9}},
    {"param", 2, 3, f_param, {1.5, 2.0}, {0.8, 1.1}},
    {"noconst", 4, 2, f_noconst, {1.1, 2.2, 3.3, 4.4}, {-1.0, 0.5, 2.0, 8.0}},
    {"long", 6, 6, f_long, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, {0.6, 0.5, 0.4, 0.3, 0.2, 0.1}},
    {"vec", 3, 2, f_vec, {1.0, 2.0, 3.0}, {-1.5, 0.5, 4.0}},
    {"param_ref", 2, 1, f_param_ref, {1.5, 2.0}, {0.8, 1.1}},
    {"param_refassign", 2, 1, f_param_refassign, {1.5, 2.0}, {0.8, 1.1}},
    {"misc", 2, 3, f_misc, {1.5, 2.0}, {1.5, 3.7}},
};

void print_vec(const char *key, const double *v, int n) {
  std::printf("%s", key);
  for (int i = 0; i < n; i++) std::printf(" %.17g", v[i]);
  std::printf("\n");
}

// Tapes case c at x on `tag` and returns the taping-time values in yv: the
// overloaded arithmetic itself, the ground truth at x.  to_disk: trace_off(1)
// with the requested buffers; otherwise an in-memory scratch tape.
void tape_at(short tag, const Case &c, const double *xv, std::vector<double> &yv,
             const Bufs &b, bool to_disk) {
  bool stock = std::strcmp(c.name, "noise") == 0;
  adouble *pre = stock ? new adouble(4.0) : 0;  // alive at trace_on: take_stock_op
  if (to_disk && b.small)
    trace_on(tag, 0, b.obs, b.lbs, b.vbs, b.tbs, 1);
  else
    trace_on(tag);
  {
    std::vector<adouble> x(c.n), y(c.m);
    for (int i = 0; i < c.n; i++) x[i] <<= xv[i];
    c.body(x, y);
    if (pre) y[1] += *pre;
    for (int i = 0; i < c.m; i++) y[i] >>= yv[i];
  }
  trace_off(to_disk ? 1 : 0);
  delete pre;
}

// Records one case on tag `tag` and prints what ADOL-C says about it.
void run_case(short tag, const Case &c, const Bufs &b) {
  std::vector<double> yt0(c.m), yt1(c.m), y0(c.m), y1(c.m);
  tape_at((short)(tag + 1000), c, c.x1, yt1, b, false);  // truth at x1
  tape_at(tag, c, c.x0, yt0, b, true);
  size_t st[STAT_SIZE];
  tapestats(tag, st);
  std::printf("tape %d %s %d %d\nstats", tag, c.name, c.n, c.m);
  for (int i = 0; i < STAT_SIZE; i++) std::printf(" %zu", st[i]);
  std::printf("\n");
  print_vec("x0", c.x0, c.n);
  int rc0 = zos_forward(tag, c.m, c.n, 0, c.x0, y0.data());
  std::printf("rc0 %d\n", rc0);
  print_vec("y0", y0.data(), c.m);
  print_vec("yt0", yt0.data(), c.m);
  print_vec("x1", c.x1, c.n);
  int rc1 = zos_forward(tag, c.m, c.n, 0, c.x1, y1.data());
  std::printf("rc1 %d\n", rc1);
  print_vec("y1", y1.data(), c.m);
  print_vec("yt1", yt1.data(), c.m);
  std::printf("end\n");
}

unsigned arg_uint(int argc, char **argv, const char *key, unsigned dflt) {
  for (int i = 1; i + 1 < argc; i++)
    if (std::strcmp(argv[i], key) == 0) return (unsigned)std::strtoul(argv[i + 1], 0, 10);
  return dflt;
}

}  // namespace

int main(int argc, char **argv) {
  Bufs b;
  b.obs = arg_uint(argc, argv, "--obs", 0);
  b.lbs = arg_uint(argc, argv, "--lbs", 0);
  b.vbs = arg_uint(argc, argv, "--vbs", 0);
  b.tbs = arg_uint(argc, argv, "--tbs", 64);
  b.small = b.obs || b.lbs || b.vbs;
  if (b.small) {
    if (!b.obs) b.obs = 16;
    if (!b.lbs) b.lbs = 64;
    if (!b.vbs) b.vbs = 8;
  }
  int ncase = (int)(sizeof cases / sizeof cases[0]);
  for (int i = 0; i < ncase; i++) run_case((short)(i + 1), cases[i], b);
  std::printf("done %d\n", ncase);
  return 0;
}
