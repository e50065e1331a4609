/* test_fmt.c: cg_fmt_g17 against snprintf "%.17g", byte for byte: edge
 * cases (powers of ten and their neighbours, the f/e style boundaries, exact
 * halfway cases built on purpose, the carry to the next power of ten, zeros,
 * subnormals, DBL_MAX, inf, nan), then millions of seeded random doubles
 * (bit patterns, and log-uniform magnitudes); the fast path's range; the
 * Matrix Market writer against the fprintf loop it replaced; what output
 * files become when the path is a device, a link, a descriptor's link.
 * Prints "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L /* symlink, lstat, open: test_outfile */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "elim/cg_mtx.h"
#include "util/cg_fmt.h"
#include "check.h"

/* Random values per group (1.75 NRAND in all).  ASan makes every call
 * slower: fewer keep the test near 3 s there. */
#if defined(__SANITIZE_ADDRESS__)
#define NRAND 400000L
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NRAND 400000L
#endif
#endif
#ifndef NRAND
#define NRAND 2000000L
#endif

static long compared, fast_hits, mismatches;

/* Compares one value (and its negation); prints the first mismatches. */
static void cmp1(double v) {
  char want[64], got[64], fast[64];
  int nw = snprintf(want, sizeof want, "%.17g", v);
  int ng = cg_fmt_g17(got, v);
  int nf = cg_fmt_g17_fast(fast, v);
  int bad = ng != nw || strcmp(got, want) != 0 || (nf >= 0 && (nf != nw || strcmp(fast, want)));
  compared++;
  if (nf >= 0) fast_hits++;
  if (bad && mismatches++ < 20)
    fprintf(stderr, "mismatch: %a: snprintf \"%s\", cg_fmt_g17 \"%s\" (%d), fast %d\n", v, want, got,
            ng, nf);
}

static void cmp(double v) {
  cmp1(v);
  cmp1(-v);
}

/* v and its neighbours up to k ulps either side. */
static void around(double v, int k) {
  double up = v, dn = v;
  int i;
  cmp(v);
  for (i = 0; i < k; i++) {
    up = nextafter(up, INFINITY), dn = nextafter(dn, 0);
    cmp(up), cmp(dn);
  }
}

/* splitmix64 */
static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static double unit(uint64_t *s) { return (double)(next(s) >> 11) * 0x1p-53; }

static double from_bits(uint64_t b) {
  double v;
  memcpy(&v, &b, sizeof v);
  return v;
}

static void test_edges(void) {
  static const char *const bounds[] = {"1e16", "1e17", "1e-5", "1e-4", "1e15", "1e-16", "1e-17",
                                       "1e47", "1e48", "1e49", "0.1", "1",     "10"};
  static const double odd[] = {0.0, DBL_MIN, DBL_MAX, 0x1p-1074, 0x1.fffffffffffffp-1023,
                               0x1p159, 0x1p160, 0x1.6849b86a12b9bp-47 /* the carry to 1e-14 */,
                               1e15 + 0.25, 1e15 + 0.75, 99999999999999984.0, 9007199254740993.0,
                               123456789012345678.0, 0.5};
  char s[32];
  size_t i;
  int n;
  long before = mismatches;
  for (n = -325; n <= 308; n++) {
    snprintf(s, sizeof s, "1e%d", n);
    around(strtod(s, NULL), 3);
  }
  for (i = 0; i < sizeof bounds / sizeof *bounds; i++) around(strtod(bounds[i], NULL), 64);
  for (n = -1074; n <= 1023; n++) around(ldexp(1.0, n), 2);
  for (i = 0; i < sizeof odd / sizeof *odd; i++) around(odd[i], 4);
  cmp(INFINITY);
  cmp(NAN);
  CHECK(mismatches == before);
}

/* Exact ties: v = N / 2^j has the 18 significant digits of N 5^j (odd N,
 * N < 2^53) when N 5^j has 18 digits, the last a 5, so %.17g must round
 * exactly half-way, to even.  Checked on the digits snprintf prints. */
static void test_ties(void) {
  uint64_t seed = 42;
  long ties = 0, before = mismatches;
  int j, r;
  for (j = 1; j <= 24; j++) {
    double lo = ceil(1e17 / pow(5, j)), hi = floor(1e18 / pow(5, j));
    if (hi > 0x1p53 - 1) hi = 0x1p53 - 1;
    for (r = 0; r < 2000 && lo <= hi; r++) {
      double N = lo + floor(unit(&seed) * (hi - lo));
      double v;
      char d[64];
      if (fmod(N, 2) == 0) N += 1;
      v = ldexp(N, -j);
      snprintf(d, sizeof d, "%.40e", v);
      if (strlen(d) > 19 && d[18] == '5' && strspn(d + 19, "0") == strcspn(d + 19, "e")) ties++;
      around(v, 1);
      cmp(v * 0x1p-20), cmp(v * 0x1p20); /* the same mantissa, other magnitudes */
    }
  }
  CHECK(ties > 10000);
  CHECK(mismatches == before);
  printf("test_fmt: %ld exact halfway cases\n", ties);
}

/* Decimals with few digits (trailing zeros to strip), every layout. */
static void test_short(void) {
  uint64_t seed = 7;
  long before = mismatches;
  char s[64];
  int r;
  for (r = 0; r < 200000; r++) {
    int digits = 1 + (int)(next(&seed) % 17), ex = (int)(next(&seed) % 70) - 25;
    uint64_t d = next(&seed) % UINT64_C(100000000000000000);
    snprintf(s, sizeof s, "%llue%d", (unsigned long long)(d % (uint64_t)pow(10, digits)), ex);
    cmp(strtod(s, NULL));
  }
  CHECK(mismatches == before);
}

static void test_random(void) {
  uint64_t seed = UINT64_C(20240601);
  long r, before = mismatches;
  for (r = 0; r < NRAND / 2; r++) cmp1(from_bits(next(&seed))); /* every class, slow snprintf */
  for (r = 0; r < NRAND; r++) cmp1((next(&seed) & 1 ? -1 : 1) * pow(10, -8 + 26 * unit(&seed)));
  for (r = 0; r < NRAND / 4; r++) cmp1(pow(10, -18 + 68 * unit(&seed))); /* the fast range's ends */
  CHECK(mismatches == before);
}

/* The least double >= 10^x (glibc prints exactly: below 10^x the exponent
 * printed is x - 1). */
static double pow10_up(int x) {
  char s[64];
  double v;
  snprintf(s, sizeof s, "1e%d", x);
  v = strtod(s, NULL);
  snprintf(s, sizeof s, "%.30e", v);
  return atoi(strchr(s, 'e') + 1) < x ? nextafter(v, INFINITY) : v;
}

/* Where the fast path answers: normal doubles with 1e-16 <= |v| < 2^159,
 * and [1e48, 2^160) (cg_fmt.c). */
static void test_range(void) {
  char b[64];
  double lo = pow10_up(-16), hi = pow10_up(48);
  CHECK(cg_fmt_g17_fast(b, lo) > 0 && cg_fmt_g17_fast(b, nextafter(lo, 0)) < 0);
  CHECK(cg_fmt_g17_fast(b, nextafter(0x1p159, 0)) > 0 && cg_fmt_g17_fast(b, 0x1p159) < 0);
  CHECK(cg_fmt_g17_fast(b, hi) > 0 && cg_fmt_g17_fast(b, nextafter(hi, 0)) < 0);
  CHECK(cg_fmt_g17_fast(b, nextafter(0x1p160, 0)) > 0 && cg_fmt_g17_fast(b, 0x1p160) < 0);
  CHECK(cg_fmt_g17_fast(b, 1e-6) > 0 && cg_fmt_g17_fast(b, -1e16) > 0);
  CHECK(cg_fmt_g17_fast(b, 0.0) < 0 && cg_fmt_g17_fast(b, DBL_MIN) < 0);
  CHECK(cg_fmt_g17_fast(b, 0x1.6849b86a12b9bp-47) > 0 && strcmp(b, "1e-14") == 0); /* the carry */
}

static void test_u64(void) {
  static const uint64_t v[] = {0, 9, 10, 99, 100, 12345, UINT32_MAX, UINT64_MAX};
  uint64_t seed = 3;
  char a[32], b[32];
  size_t i;
  int ok = 1;
  for (i = 0; i < sizeof v / sizeof *v + 100000; i++) {
    uint64_t x = i < sizeof v / sizeof *v ? v[i] : next(&seed) >> (next(&seed) % 64);
    *cg_fmt_u64(a, x) = '\0';
    snprintf(b, sizeof b, "%llu", (unsigned long long)x);
    if (strcmp(a, b)) ok = 0;
  }
  CHECK(ok);
}

/* Reads a whole file into a malloc'd string. */
static char *slurp(const char *path, long *len) {
  FILE *fp = fopen(path, "rb");
  char *s;
  if (!fp) return NULL;
  fseek(fp, 0, SEEK_END);
  *len = ftell(fp);
  rewind(fp);
  s = (char *)malloc((size_t)*len + 1);
  if (s && fread(s, 1, (size_t)*len, fp) != (size_t)*len) free(s), s = NULL;
  if (s) s[*len] = '\0';
  fclose(fp);
  return s;
}

/* The writer against the fprintf loop it replaced, over more than one
 * buffer's worth of entries. */
static void test_mtx(void) {
  enum { NNZ = 20000 };
  static uint32_t row[NNZ], col[NNZ];
  static double val[NNZ];
  cg_jac J;
  cg_error e;
  uint64_t seed = 11;
  long la = 0, lb = 0;
  char *a, *b;
  FILE *fp;
  int k;
  for (k = 0; k < NNZ; k++) {
    row[k] = (uint32_t)(k / 7), col[k] = (uint32_t)(next(&seed) % 4000000000u);
    val[k] = k % 5 == 0 ? (double)(k % 3) : (unit(&seed) - 0.5) * pow(10, -10 + 20 * unit(&seed));
  }
  val[1] = NAN, val[2] = -INFINITY, val[3] = -0.0, val[4] = 1e300;
  J.m = NNZ / 7 + 1, J.n = 4000000000u, J.nnz = NNZ, J.row = row, J.col = col, J.val = val;
  fp = fopen("spec-c-fmt-ref.mtx", "wb");
  CHECK(fp != NULL);
  if (!fp) return;
  fprintf(fp, "%%%%MatrixMarket matrix coordinate real general\n%u %u %llu\n", J.m, J.n,
          (unsigned long long)J.nnz);
  for (k = 0; k < NNZ; k++) fprintf(fp, "%u %u %.17g\n", row[k] + 1, col[k] + 1, val[k]);
  fclose(fp);
  CHECK(cg_jac_write_mtx(&J, "spec-c-fmt.mtx", &e) == CG_OK);
  a = slurp("spec-c-fmt-ref.mtx", &la), b = slurp("spec-c-fmt.mtx", &lb);
  CHECK(a && b && la == lb && memcmp(a, b, (size_t)la) == 0);
  free(a), free(b);
  J.nnz = 0;
  CHECK(cg_jac_write_mtx(&J, "spec-c-fmt.mtx", &e) == CG_OK);
  b = slurp("spec-c-fmt.mtx", &lb);
  CHECK(b && strcmp(b, "%%MatrixMarket matrix coordinate real general\n2858 4000000000 0\n") == 0);
  free(b);
  J.nnz = NNZ;
  if ((fp = fopen("/dev/full", "wb"))) { /* a write that fails midway */
    CHECK(cg_jac_write_mtx_fp(&J, fp) == CG_EIO);
    fclose(fp);
  }
  CHECK(cg_jac_write_mtx(&J, "no-such-dir/x.mtx", &e) == CG_EIO);
  CHECK((fp = fopen("no-such-dir/x.mtx", "rb")) == NULL);
  remove("spec-c-fmt-ref.mtx"), remove("spec-c-fmt.mtx");
}

/* cg_open_out's cases (cg_util.h): a regular file is replaced atomically
 * (no temporary left); a device is written in place and stays a device
 * (a rename would put a regular file there); a link to a file keeps being
 * a link, its file replaced; a descriptor's link (/dev/fd/N) is written
 * through, into the file the descriptor has open. */
static void test_outfile(void) {
  cg_error e;
  cg_jac J;
  uint32_t row[2] = {0, 1}, col[2] = {1, 0};
  double val[2] = {0.5, -2};
  struct stat st, st2;
  char tmp[64], path[32], *b;
  long lb;
  int fd;
  J.m = 2, J.n = 2, J.nnz = 2, J.row = row, J.col = col, J.val = val;
  remove("spec-c-out.mtx"), remove("spec-c-real.mtx"), remove("spec-c-link.mtx");
  CHECK(cg_jac_write_mtx(&J, "spec-c-out.mtx", &e) == CG_OK);
  snprintf(tmp, sizeof tmp, "spec-c-out.mtx.tmp%ld", (long)getpid());
  CHECK(access(tmp, F_OK) != 0);
  b = slurp("spec-c-out.mtx", &lb);
  CHECK(b && strcmp(b, "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 0.5\n2 1 -2\n") == 0);
  free(b);
  if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
    CHECK(cg_jac_write_mtx(&J, "/dev/full", &e) == CG_EIO);
    CHECK(strstr(e.msg, "/dev/full: write failed") != NULL);
    CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
  }
  if ((fd = open("spec-c-real.mtx", O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0) close(fd);
  if (symlink("spec-c-real.mtx", "spec-c-link.mtx") == 0) {
    CHECK(cg_jac_write_mtx(&J, "spec-c-link.mtx", &e) == CG_OK);
    CHECK(lstat("spec-c-link.mtx", &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(stat("spec-c-real.mtx", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == lb);
  }
  if ((fd = open("spec-c-real.mtx", O_RDWR | O_TRUNC)) >= 0 && fstat(fd, &st) == 0) {
    snprintf(path, sizeof path, "/dev/fd/%d", fd);
    if (access(path, F_OK) == 0) { /* a system with /dev/fd */
      CHECK(cg_jac_write_mtx(&J, path, &e) == CG_OK);
      CHECK(stat("spec-c-real.mtx", &st2) == 0 && st2.st_ino == st.st_ino && st2.st_size == lb);
    }
    close(fd);
  }
  remove("spec-c-out.mtx"), remove("spec-c-real.mtx"), remove("spec-c-link.mtx");
}

int main(void) {
  test_edges();
  test_ties();
  test_short();
  test_random();
  test_range();
  test_u64();
  test_mtx();
  test_outfile();
  printf("test_fmt: %ld values compared with snprintf (%ld on the fast path), %ld mismatches\n",
         compared, fast_hits, mismatches);
  return check_report("test_fmt");
}
