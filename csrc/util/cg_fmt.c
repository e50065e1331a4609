/*
 * cg_fmt.c: "%.17g" without printf, byte for byte (see cg_fmt.h).
 *
 * The C standard (C99 7.19.6.1, the g conversion) with precision P = 17 and
 * no '#' flag: let X be the exponent that the e style would print, i.e. of v
 * rounded to 17 significant digits.  If P > X >= -4, the f style with
 * precision P - 1 - X = 16 - X; otherwise the e style with precision
 * P - 1 = 16 (exponent with at least two digits).  Trailing zeros of the
 * fraction are removed, and the '.' if no fraction is left.  glibc rounds
 * exactly, ties to even (the default rounding mode).
 *
 * Both styles round at the same position, 10^(E-16) with E = floor(log10 |v|)
 * (when rounding carries to 10^(E+1), X = E + 1 and the f style rounds at
 * 10^(E-15), which still gives 10^(E+1)).  So all that is needed is the
 * integer q = round_half_even(|v| / 10^(E-16)), 10^16 <= q <= 10^17, with E
 * exact.  With v = m 2^e (m < 2^53, normal doubles) and k = E - 16:
 *
 *   k <= 0:  |v| / 10^k = m 5^-k 2^(e-k); m 5^-k < 2^53 5^32 < 2^128 for
 *            k >= -32 (E >= -16), then an exact shift whose remainder is
 *            compared with the half.
 *   k > 0:   |v| / 10^k = m 2^(e-k) / 5^k; m 2^(e-k) < 2^128 for e - k <= 75
 *            (|v| < 2^159, and [1e48, 2^160)), then an exact 128-bit
 *            division whose remainder is compared with the half.
 *
 * E is estimated from the binary exponent and corrected by one step: the
 * floor f of |v| / 10^(E-16) lies in [10^16, 10^17) exactly when E is right,
 * so a wrong estimate can only cost time.  Everything outside (0, -0,
 * subnormals, inf, nan, |v| < 1e-16, |v| >= 2^160) and compilers without
 * unsigned __int128 go to snprintf.
 */
#include "cg_fmt.h"

#include <stdio.h>
#include <string.h>

const char cg_fmt_dig2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* The number of decimal digits of x. */
static int ndigits(uint64_t x) {
  int n = 1;
  while (x >= 10000) x /= 10000, n += 4;
  return n + (x >= 10) + (x >= 100) + (x >= 1000);
}

char *cg_fmt_u64_any(char *p, uint64_t x) {
  char *end = p + ndigits(x), *q = end;
  uint32_t y;
  for (; x > UINT32_MAX; x /= 100) q -= 2, memcpy(q, cg_fmt_dig2 + 2 * (x % 100), 2);
  for (y = (uint32_t)x; y >= 100; y /= 100) q -= 2, memcpy(q, cg_fmt_dig2 + 2 * (y % 100), 2);
  if (y >= 10) memcpy(q - 2, cg_fmt_dig2 + 2 * y, 2);
  else q[-1] = (char)('0' + y);
  return end;
}

/* {==== the fast path ====} */

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 cg_u128;

#define P16 UINT64_C(10000000000000000)
#define P17 UINT64_C(100000000000000000)

static const uint64_t pow5[28] = {
    UINT64_C(1), UINT64_C(5), UINT64_C(25), UINT64_C(125), UINT64_C(625), UINT64_C(3125),
    UINT64_C(15625), UINT64_C(78125), UINT64_C(390625), UINT64_C(1953125), UINT64_C(9765625),
    UINT64_C(48828125), UINT64_C(244140625), UINT64_C(1220703125), UINT64_C(6103515625),
    UINT64_C(30517578125), UINT64_C(152587890625), UINT64_C(762939453125),
    UINT64_C(3814697265625), UINT64_C(19073486328125), UINT64_C(95367431640625),
    UINT64_C(476837158203125), UINT64_C(2384185791015625), UINT64_C(11920928955078125),
    UINT64_C(59604644775390625), UINT64_C(298023223876953125), UINT64_C(1490116119384765625),
    UINT64_C(7450580596923828125)};

/* 5^k exactly, 0 <= k <= 54 (5^54 < 2^126). */
static cg_u128 pow5x(int k) {
  return k <= 27 ? (cg_u128)pow5[k] : (cg_u128)pow5[27] * pow5[k - 27];
}

/* floor(x log10 2), near enough: an error only costs a retry (see above). */
static int log10_pow2(int x) {
  long t = (long)x * 78913; /* 78913 / 2^18 = 0.30102920... */
  return (int)(t >= 0 ? t / 262144 : -((-t + 262143) / 262144));
}

/* f = floor(n / 2^s), s > 0, and whether rounding half-even goes up. */
static int shift_round(cg_u128 n, int s, uint64_t *f, int *up) {
  cg_u128 q, rem, half;
  if (s >= 128) return -1;
  q = n >> s;
  rem = n - (q << s);
  half = (cg_u128)1 << (s - 1);
  if (q >> 64) return -1;
  *f = (uint64_t)q;
  *up = rem > half || (rem == half && (q & 1));
  return 0;
}

/* f = floor(m 2^e / 10^k) exactly and whether rounding the quotient half-even
 * to an integer goes up; -1 when the operands do not fit 128 bits. */
static int scale(uint64_t m, int e, int k, uint64_t *f, int *up) {
  cg_u128 n, d, q, rem;
  int t;
  if (k <= 0) { /* m 5^-k 2^(e-k) */
    if (k < -32) return -1;
    n = (cg_u128)m * pow5x(-k); /* < 2^53 5^32 < 2^128 */
    t = e - k;
    if (t < 0) return shift_round(n, -t, f, up);
    if (t >= 64 || n > (UINT64_MAX >> t)) return -1;
    *f = (uint64_t)n << t, *up = 0;
    return 0;
  }
  t = e - k; /* m 2^(e-k) / 5^k */
  if (k > 54 || t < 0 || t > 75) return -1;
  n = (cg_u128)m << t; /* < 2^53 2^75 */
  d = pow5x(k);
  q = n / d;
  rem = n - q * d;
  if (q >> 64) return -1;
  *f = (uint64_t)q;
  *up = 2 * rem > d || (2 * rem == d && (q & 1)); /* 2 rem < 2 d < 2^127 */
  return 0;
}

/* Writes x (< 10^8) as 8 digits, two at a time from f = x 2^50 / 10^6 in
 * fixed point: M = ceil(2^50 / 10^6) makes f at most x < 10^8 units of 2^-50
 * high, under 10^-7 in the fraction, which stays below the 10^-6 gap to the
 * next pair even after the three multiplications by 100 (checked for every
 * x < 10^8 when written). */
static void put8(char *d, uint32_t x) {
  const uint64_t M = UINT64_C(1125899907), MASK = (UINT64_C(1) << 50) - 1;
  uint64_t f = x * M; /* < 10^8 M < 2^57 */
  memcpy(d, cg_fmt_dig2 + 2 * (f >> 50), 2);
  f = (f & MASK) * 100;
  memcpy(d + 2, cg_fmt_dig2 + 2 * (f >> 50), 2);
  f = (f & MASK) * 100;
  memcpy(d + 4, cg_fmt_dig2 + 2 * (f >> 50), 2);
  f = (f & MASK) * 100;
  memcpy(d + 6, cg_fmt_dig2 + 2 * (f >> 50), 2);
}

/* Writes q (10^16 <= q < 10^17) as its 17 digits. */
static void put17(char *d, uint64_t q) {
  uint32_t hi = (uint32_t)(q / 100000000), lo = (uint32_t)(q % 100000000);
  d[0] = (char)('0' + hi / 100000000);
  put8(d + 1, hi % 100000000);
  put8(d + 9, lo);
}

/* Lays out the 17 digits of q with decimal exponent X as %.17g does.  The
 * digits are written once, one place right of where they go, and the
 * leading ones moved left to make room for the '.'. */
static int layout(char *buf, int neg, uint64_t q, int X) {
  char *p = buf + neg, *end;
  int nz = 17;
  buf[0] = '-';
  if (X >= 0 && X < 17) { /* f style, 16 - X decimals */
    put17(p + 1, q);
    while (p[nz] == '0') nz--; /* trailing zeros; p[1] != '0' */
    if (X == 0) p[0] = p[1]; /* the common case, without a call to memmove */
    else memmove(p, p + 1, (size_t)X + 1);
    p[X + 1] = '.';
    end = nz > X + 1 ? p + nz + 1 : p + X + 1; /* no fraction, no '.' */
  } else if (X < 0 && X >= -4) { /* f style, 0.000ddd */
    memcpy(p, "0.0000", 6);
    put17(p + 1 - X, q);
    while (p[nz - X] == '0') nz--;
    end = p + nz + 1 - X;
  } else { /* e style */
    int ax = X < 0 ? -X : X;
    put17(p + 1, q);
    while (p[nz] == '0') nz--;
    p[0] = p[1], p[1] = '.';
    end = p + (nz > 1 ? nz + 1 : 1);
    *end++ = 'e', *end++ = X < 0 ? '-' : '+';
    if (ax >= 100) *end++ = (char)('0' + ax / 100), ax %= 100;
    memcpy(end, cg_fmt_dig2 + 2 * ax, 2), end += 2;
  }
  *end = '\0';
  return (int)(end - buf);
}

/* The fast path: the length, or -1 where snprintf must answer. */
static int g17_fast(char *buf, double v) {
  uint64_t bits, m, f;
  int b, e, E, up, tries;
  memcpy(&bits, &v, sizeof bits);
  b = (int)(bits >> 52 & 0x7ff);
  if (b == 0 || b == 0x7ff) return -1; /* zero, subnormal, inf, nan */
  m = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
  e = b - 1075;
  E = log10_pow2(e + 52); /* |v| >= 2^(e+52) */
  for (tries = 0;; tries++) { /* one call site, so that scale is inlined */
    int rc = scale(m, e, E - 16, &f, &up);
    if (!rc && f >= P16 && f < P17) break;
    if (tries) return -1;
    E += rc || f >= P17 ? 1 : -1; /* one low, or out of reach where one more fits */
  }
  f += (uint64_t)up;
  if (f == P17) f = P16, E++; /* rounded up to 10^(E+1) */
  return layout(buf, (int)(bits >> 63), f, E);
}

#else

static int g17_fast(char *buf, double v) {
  (void)buf, (void)v;
  return -1;
}

#endif

/* }==== */

int cg_fmt_g17_fast(char *buf, double v) { return g17_fast(buf, v); }

int cg_fmt_g17(char *buf, double v) {
  int n = g17_fast(buf, v);
  return n >= 0 ? n : snprintf(buf, CG_FMT_G17_SIZE, "%.17g", v);
}
