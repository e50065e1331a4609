/*
 * cg_fmt.h: fast number formatting for cgwb's text outputs.
 *
 * Every float cgwb writes goes out as "%.17g", which reads back as the same
 * double.  cg_fmt_g17 writes exactly the bytes of snprintf(buf, n, "%.17g",
 * v) in about 20 ns instead of glibc's 500-1000 ns for the magnitudes
 * Jacobians hold, so large outputs (Matrix Market, .cg weights, text tapes)
 * need not pay printf per value.
 */
#ifndef CG_FMT_H
#define CG_FMT_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include <stdint.h>
#include <string.h>

/* Longest "%.17g" is "-1.2345678901234567e-308": 24 bytes and the NUL. */
#define CG_FMT_G17_SIZE 32

/* Writes v as snprintf "%.17g" would into buf (at least CG_FMT_G17_SIZE
 * bytes), NUL-terminated; returns the length.  Exact integer arithmetic for
 * normal doubles with 1e-16 <= |v| < 2^159 (see cg_fmt.c), snprintf for
 * everything else. */
int cg_fmt_g17(char *buf, double v);

/* The fast path alone: the length as cg_fmt_g17, or -1 where cg_fmt_g17
 * would call snprintf (buf is then unspecified).  For tests. */
int cg_fmt_g17_fast(char *buf, double v);

/* The two-digit pairs "00".."99" (cg_fmt_u64). */
extern const char cg_fmt_dig2[201];

/* cg_fmt_u64 for any x (the loop). */
char *cg_fmt_u64_any(char *p, uint64_t x);

/* Writes x in decimal at p (no NUL); returns the end.  At most 20 bytes.
 * Inline for x below 10^4, the commonest (the indices of Matrix Market
 * lines and of .cg edges): no digit count, no loop, no call. */
static inline char *cg_fmt_u64(char *p, uint64_t x) {
  uint32_t y = (uint32_t)x, hi = y / 100, lo = y % 100;
  if (x >= 10000) return cg_fmt_u64_any(p, x);
  if (y < 10) return *p = (char)('0' + y), p + 1;
  if (y < 100) return memcpy(p, cg_fmt_dig2 + 2 * y, 2), p + 2;
  if (y < 1000) return *p = (char)('0' + hi), memcpy(p + 1, cg_fmt_dig2 + 2 * lo, 2), p + 3;
  return memcpy(p, cg_fmt_dig2 + 2 * hi, 2), memcpy(p + 2, cg_fmt_dig2 + 2 * lo, 2), p + 4;
}

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
