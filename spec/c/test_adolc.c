/*
 * test_adolc.c: the ADOL-C reader (cg_adolc.c) and the forward evaluator
 * (cg_eval.c) against Debian's ADOL-C 2.7.2.
 *
 * Usage: test_adolc DIR...
 *   Each DIR holds tapes recorded by spec/adolc/record.cpp and its output in
 *   DIR/out.txt (format documented at the top of record.cpp).  For every tape:
 *   the header stats equal tapestats(), counts of records and markers add up
 *   to NUM_OPERATIONS, rewind works, and cg_tape_forward equals zos_forward
 *   bit for bit at both points.  Then corrupted copies of the first DIR's
 *   tapes (written to DIR/bad/) must fail cleanly with a message naming the
 *   file and the record, and random byte flips must never crash.
 *
 * Prints failures, then "N passed, N failed"; exit status 1 if any failed.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../csrc/tape/cg_tape.h"

/* Defined in cg_adolc.c (not yet in cg_tape.h). */

#define MAXV 32

typedef struct tcase {
  int tag, n, m, rc0, rc1;
  char name[64];
  unsigned long long st[18];
  double x0[MAXV], x1[MAXV], y0[MAXV], y1[MAXV], yt0[MAXV], yt1[MAXV];
} tcase;

typedef struct suite {
  int passed, failed;
} suite;

/* Records one check; prints the failures. */
static void check(suite *S, int ok, const char *what, const char *detail) {
  if (ok) {
    S->passed++;
    return;
  }
  S->failed++;
  printf("FAIL %s%s%s\n", what, detail && *detail ? ": " : "", detail ? detail : "");
}

/* {==== record.cpp output ====} */

static int read_vec(FILE *fp, const char *key, double *v, int n) {
  char tok[64];
  int i;
  if (fscanf(fp, "%63s", tok) != 1 || strcmp(tok, key) != 0) return -1;
  for (i = 0; i < n; i++) {
    if (fscanf(fp, "%63s", tok) != 1) return -1;
    v[i] = strtod(tok, NULL);
  }
  return 0;
}

/* Reads the next "tape ... end" block; 1 if one was read, 0 at "done". */
static int read_case(FILE *fp, tcase *c) {
  char tok[64];
  int i;
  memset(c, 0, sizeof *c);
  if (fscanf(fp, "%63s", tok) != 1 || strcmp(tok, "tape") != 0) return 0;
  if (fscanf(fp, "%d %63s %d %d", &c->tag, c->name, &c->n, &c->m) != 4 || c->n > MAXV ||
      c->m > MAXV || fscanf(fp, "%63s", tok) != 1 || strcmp(tok, "stats") != 0)
    return -1;
  for (i = 0; i < 18; i++)
    if (fscanf(fp, "%llu", &c->st[i]) != 1) return -1;
  if (read_vec(fp, "x0", c->x0, c->n) || fscanf(fp, "%63s %d", tok, &c->rc0) != 2 ||
      read_vec(fp, "y0", c->y0, c->m) || read_vec(fp, "yt0", c->yt0, c->m) ||
      read_vec(fp, "x1", c->x1, c->n) || fscanf(fp, "%63s %d", tok, &c->rc1) != 2 ||
      read_vec(fp, "y1", c->y1, c->m) || read_vec(fp, "yt1", c->yt1, c->m) ||
      fscanf(fp, "%63s", tok) != 1 || strcmp(tok, "end") != 0)
    return -1;
  return 1;
}

/* {==== good tapes ====} */

static void tape_path(char *buf, size_t n, const char *dir, const char *kind, int tag) {
  int k = snprintf(buf, n, "%s/ADOLC-%s_%d.tap", dir, kind, tag);
  if (k < 0 || (size_t)k >= n) buf[0] = 0; /* too long: no such file */
}

/* Bitwise equality, any NaN equal to any NaN. */
static int same(double a, double b) {
  if (isnan(a) && isnan(b)) return 1;
  return memcmp(&a, &b, sizeof a) == 0;
}

/* {==== fast path against full checks ====} */

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  while (n--) h = (h ^ *b++) * 1099511628211ull;
  return h;
}

/* Hash of one record: its fields, operands and the bits of its constants. */
static uint64_t hash_rec(uint64_t h, const cg_rec *r) {
  uint64_t f[4];
  f[0] = r->op, f[1] = r->nloc, f[2] = r->nval, f[3] = r->index;
  h = fnv(h, f, sizeof f);
  h = fnv(h, r->loc, r->nloc * sizeof *r->loc);
  return fnv(h, r->val, r->nval * sizeof *r->val);
}

/* Streams a tape set and hashes every record, the end status and its message.
 * mode 0: cg_reader_next; 1: the same with the fast path off (the reference);
 * 2: 5-element buffers; 3: batches of 7 with 5-element buffers; 4: batches of
 * 256; 5: cg_reader_next and batches of 3 alternating; 6: the same through
 * windows of 512 elements (every window boundary of a larger tape); 7:
 * batches of 256 through full-size buffers (a cap above the buffer). */
static uint64_t stream_hash(const char *path, int mode, uint64_t *nrec) {
  cg_error e = {0, ""};
  cg_reader *R = cg_reader_open(NULL, path, &e);
  cg_rec rb[256];
  uint64_t h = 14695981039346656037ull;
  int rc, k, turn = 0;
  *nrec = 0;
  if (!R) return fnv(h, e.msg, strlen(e.msg));
  if (mode == 1) cg_adolc_debug(R, 0, 0);
  if (mode == 2 || mode == 3) cg_adolc_debug(R, 1, 5);
  if (mode == 6) cg_adolc_debug(R, 2, 0);
  if (mode == 7) cg_adolc_debug(R, 1, (size_t)1 << 30);
  do {
    int batch = mode == 3 ? 7 : mode == 4 || mode == 7 ? 256 : mode >= 5 && turn++ % 2 ? 3 : 0;
    rc = batch ? cg_reader_next_batch(R, rb, batch, &e) : cg_reader_next(R, rb, &e);
    for (k = 0; k < rc; k++) h = hash_rec(h, &rb[k]);
    if (rc > 0) *nrec += (uint64_t)rc;
  } while (rc > 0);
  h = fnv(h, &rc, sizeof rc);
  if (rc < 0) h = fnv(h, e.msg, strlen(e.msg));
  cg_reader_close(R);
  return h;
}

/* Every way of streaming gives the records, status and message of the
 * fully checked decoder. */
static void check_same_stream(suite *S, const char *path, const char *what) {
  uint64_t n1, n, ref = stream_hash(path, 1, &n1);
  char det[128];
  int mode;
  for (mode = 0; mode <= 7; mode++) {
    if (mode == 1) continue;
    if (stream_hash(path, mode, &n) == ref && n == n1) {
      S->passed++;
      continue;
    }
    snprintf(det, sizeof det, "stream mode %d differs from the checked decoder (%llu/%llu records)",
             mode, (unsigned long long)n, (unsigned long long)n1);
    check(S, 0, what, det);
  }
}

/* Streams the tape twice (rewind) and checks counts against the header. */
static void check_stream(suite *S, const char *dir, const tcase *c) {
  char path[4096], what[256], det[512];
  cg_error e = {0, ""};
  cg_reader *R;
  cg_rec r;
  uint64_t recs[2] = {0, 0}, ind = 0, dep = 0, prod = 0, vec = 0, markers = 0;
  int pass, rc = 0, i, ok = 1;
  tape_path(path, sizeof path, dir, "Operations", c->tag);
  snprintf(what, sizeof what, "%s tag %d (%s): stream", dir, c->tag, c->name);
  R = cg_reader_open(NULL, path, &e);
  check(S, R != NULL, what, e.msg);
  if (!R) return;
  for (i = 0; i < 18; i++) ok &= R->info.stats[i] == c->st[i];
  check(S,
        ok && R->info.format == CG_FMT_ADOLC && R->info.ver[0] == 2 &&
            R->info.n_indep == (uint64_t)c->n && R->info.n_dep == (uint64_t)c->m,
        what, "header stats differ from tapestats()");
  for (pass = 0; pass < 2; pass++) {
    while ((rc = cg_reader_next(R, &r, &e)) == 1) {
      recs[pass]++;
      if (pass) continue;
      ind += r.op == CG_OP_assign_ind || r.op == CG_OP_ref_assign_ind;
      dep += r.op == CG_OP_assign_dep;
      prod += r.op == CG_OP_eq_plus_prod || r.op == CG_OP_eq_min_prod;
      vec += r.op == CG_OP_vec_dot || r.op == CG_OP_vec_axpy;
    }
    check(S, rc == 0, what, e.msg);
    if (pass == 0) markers = cg_adolc_markers(R);
    if (pass == 0) cg_reader_rewind(R, &e);
  }
  snprintf(det, sizeof det, "records %llu + markers %llu != NUM_OPERATIONS %llu",
           (unsigned long long)recs[0], (unsigned long long)markers, c->st[5]);
  check(S, recs[0] + markers == c->st[5], what, det);
  check(S, recs[1] == recs[0], what, "rewind gives another record count");
  if (c->st[5] > c->st[4]) /* more op bytes than one block: end_of_op pairs */
    check(S, markers >= 4, what, "multi-block tape without block markers");
  check(S, ind == (uint64_t)c->n && dep == (uint64_t)c->m, what, "assign_ind/dep counts");
  check(S, vec ? prod <= c->st[14] : prod == c->st[14], what, "NUM_EQ_PROD");
  cg_reader_close(R);
  check_same_stream(S, path, what);
}

/* One zos_forward point against cg_tape_forward.  Where Debian's
 * zos_forward disagrees with the values ADOL-C computed while taping (its
 * ref_assign_p reads the operands in the wrong order), the taping values are
 * the reference and a NOTE is printed. */
static void check_point(suite *S, const cg_tape *t, const tcase *c, const char *dir, int k) {
  const double *x = k ? c->x1 : c->x0, *yzos = k ? c->y1 : c->y0, *yt = k ? c->yt1 : c->yt0;
  int rcref = k ? c->rc1 : c->rc0, rc, i, ok = 1, zos_ok = 1;
  double y[MAXV];
  cg_branch br;
  cg_error e = {0, ""};
  char what[256], det[512] = "";
  snprintf(what, sizeof what, "%s tag %d (%s): forward at x%d", dir, c->tag, c->name, k);
  rc = cg_tape_forward(t, x, y, &br, &e);
  check(S, rc == CG_OK, what, e.msg);
  if (rc) return;
  if (rcref >= 0) { /* ADOL-C abandons the sweep on a branch switch (-1) */
    for (i = 0; i < c->m; i++) zos_ok &= same(yzos[i], yt[i]);
    if (!zos_ok)
      printf("NOTE %s: zos_forward differs from the taping values; compared with those\n", what);
    for (i = 0; i < c->m && ok; i++)
      if (!same(y[i], yt[i])) {
        ok = 0;
        snprintf(det, sizeof det, "y[%d] = %.17g, zos_forward %.17g, taping %.17g", i, y[i],
                 yzos[i], yt[i]);
      }
    check(S, ok, what, det);
  }
  snprintf(det, sizeof det, "zos_forward rc %d but %llu switches counted", rcref,
           (unsigned long long)br.count);
  /* ADOL-C's rc is a minimum: 3 nothing special, 2 an abs/min/ceil/floor/
   * condassign outcome changed, 1 a tie, 0 a condition exactly 0 or an
   * eq_zero record, -1 a comparison changed.  It does not notice a one-sided
   * condassign (cond_assign_s family) that no longer assigns; cgwb counts it. */
  if (rcref == -1 || rcref == 2)
    check(S, br.count > 0, what, det);
  else if (rcref == 3)
    check(S,
          br.count == 0 || br.first_op == CG_OP_cond_assign_s ||
              br.first_op == CG_OP_cond_eq_assign_s || br.first_op == CG_OP_ref_cond_assign_s ||
              br.first_op == CG_OP_ref_cond_eq_assign_s,
          what, det);
}

/* A tape loaded through a reader set up by cg_adolc_debug(fast, cap). */
static cg_tape *load_debug(const char *path, int fast, size_t cap, cg_error *e) {
  cg_reader *R = cg_reader_open(NULL, path, e);
  cg_tape *t;
  if (!R) return NULL;
  cg_adolc_debug(R, fast, cap);
  t = cg_tape_from_reader(NULL, R, e);
  cg_reader_close(R);
  return t;
}

static int same_tape(const cg_tape *a, const cg_tape *b) {
  return a && b && a->nops == b->nops && a->nlocs == b->nlocs && a->nvals == b->nvals &&
         a->nstore == b->nstore && a->n_indep == b->n_indep && a->n_dep == b->n_dep &&
         (!a->nops || memcmp(a->op, b->op, a->nops) == 0) &&
         (!a->nlocs || memcmp(a->loc, b->loc, a->nlocs * sizeof *a->loc) == 0) &&
         (!a->nvals || memcmp(a->val, b->val, a->nvals * sizeof *a->val) == 0);
}

/* Loading (plain records decoded in struct-of-arrays runs) gives the tape
 * that the fully checked decoder's records give, also through one-page
 * windows and through read buffers. */
static void check_load_same(suite *S, const char *path, const char *what, int may_fail) {
  cg_error e = {0, ""}, e2 = {0, ""};
  cg_tape *ref = load_debug(path, 0, 0, &e), *t;
  static const int fast[3] = {1, 2, 1};
  static const size_t cap[3] = {0, 0, 5};
  static const char *how[3] = {"load differs from the checked decoder",
                               "load through one-page windows differs",
                               "load through 5-element buffers differs"};
  int k;
  if (!may_fail) check(S, ref != NULL, what, e.msg);
  for (k = 0; k < 3; k++) { /* the same tape, or the same error */
    t = load_debug(path, fast[k], cap[k], &e2);
    check(S, ref ? same_tape(ref, t) : !t && strcmp(e.msg, e2.msg) == 0, what, how[k]);
    cg_tape_free(t);
  }
  cg_tape_free(ref);
}

/* Loads one tape and evaluates it at both points. */
static void check_eval(suite *S, const char *dir, const tcase *c) {
  char path[4096], what[256];
  cg_error e = {0, ""};
  cg_tape *t;
  double y[MAXV];
  tape_path(path, sizeof path, dir, "Locations", c->tag); /* any file of the set */
  snprintf(what, sizeof what, "%s tag %d (%s): load", dir, c->tag, c->name);
  t = cg_tape_load(NULL, path, &e);
  check(S, t != NULL, what, e.msg);
  if (!t) return;
  check(S, t->n_indep == (uint64_t)c->n && t->n_dep == (uint64_t)c->m, what, "n/m");
  check_load_same(S, path, what, 0);
  check_point(S, t, c, dir, 0);
  check_point(S, t, c, dir, 1);
  cg_tape_free(t);
  tape_path(path, sizeof path, dir, c->st[9] ? "Values" : "Operations", c->tag);
  t = cg_tape_load(NULL, path, &e); /* the same tape, named by another file */
  check(S, t != NULL, what, e.msg);
  if (!t) return;
  check_point(S, t, c, dir, 0);
  check(S, cg_tape_forward(t, NULL, y, NULL, &e) == CG_EUSAGE && strstr(e.msg, "--at"), what,
        "no x0 must ask for --at");
  cg_tape_free(t);
}

/* All tapes of one recording directory; returns the number of tapes. */
static int check_dir(suite *S, const char *dir) {
  char path[4096];
  FILE *fp;
  tcase c;
  int rc, n = 0;
  snprintf(path, sizeof path, "%s/out.txt", dir);
  fp = fopen(path, "r");
  check(S, fp != NULL, path, "cannot open record.cpp output");
  if (!fp) return 0;
  while ((rc = read_case(fp, &c)) == 1) {
    check_stream(S, dir, &c);
    check_eval(S, dir, &c);
    n++;
  }
  check(S, rc == 0 && n > 0, path, "malformed record.cpp output");
  fclose(fp);
  return n;
}

/* {==== bad tapes ====} */

/* A file in memory. */
typedef struct blob {
  unsigned char *p;
  size_t n;
} blob;

static blob slurp(const char *path) {
  blob b = {NULL, 0};
  FILE *fp = fopen(path, "rb");
  long sz;
  if (!fp) return b;
  if (fseek(fp, 0, SEEK_END) == 0 && (sz = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0) {
    b.p = (unsigned char *)malloc((size_t)sz + 1);
    if (b.p && fread(b.p, 1, (size_t)sz, fp) == (size_t)sz) b.n = (size_t)sz;
  }
  fclose(fp);
  return b;
}

static void spill(const char *path, const unsigned char *p, size_t n) {
  FILE *fp = fopen(path, "wb");
  if (!fp) return;
  if (n) fwrite(p, 1, n, fp);
  fclose(fp);
}

/* A tape set in memory (the three files of one tag). */
typedef struct tset {
  blob ops, locs, vals;
} tset;

/* Writes `s` as tag `tag` under dir (no Values file if vals.p == NULL). */
static void put_set(const char *dir, int tag, const tset *s) {
  char path[4096];
  tape_path(path, sizeof path, dir, "Operations", tag);
  spill(path, s->ops.p, s->ops.n);
  tape_path(path, sizeof path, dir, "Locations", tag);
  spill(path, s->locs.p, s->locs.n);
  tape_path(path, sizeof path, dir, "Values", tag);
  remove(path);
  if (s->vals.p) spill(path, s->vals.p, s->vals.n);
}

/* Loads tag `tag` of dir and expects failure with `code` and a message that
 * contains every needle (NULL-terminated list). */
static void expect_fail(suite *S, const char *dir, int tag, const char *what, int code, ...) {
  char path[4096], det[700];
  cg_error e = {0, ""};
  cg_tape *t;
  const char *needle;
  va_list ap;
  int ok;
  tape_path(path, sizeof path, dir, "Operations", tag);
  t = cg_tape_load(NULL, path, &e);
  ok = t == NULL && e.code == code;
  va_start(ap, code);
  while (ok && (needle = va_arg(ap, const char *)) != NULL) ok = strstr(e.msg, needle) != NULL;
  va_end(ap);
  snprintf(det, sizeof det, "got code %d, message \"%s\"", t ? 0 : e.code, e.msg);
  check(S, ok, what, det);
  cg_tape_free(t);
}

/* A copy of a set with one change applied through `fix`. */
static tset copy_set(const tset *s) {
  tset c;
  c.ops.n = s->ops.n, c.locs.n = s->locs.n, c.vals.n = s->vals.n;
  c.ops.p = (unsigned char *)malloc(s->ops.n + 1);
  c.locs.p = (unsigned char *)malloc(s->locs.n + 1);
  c.vals.p = s->vals.p ? (unsigned char *)malloc(s->vals.n + 1) : NULL;
  memcpy(c.ops.p, s->ops.p, s->ops.n);
  memcpy(c.locs.p, s->locs.p, s->locs.n);
  if (c.vals.p) memcpy(c.vals.p, s->vals.p, s->vals.n);
  return c;
}

static void free_set(tset *s) {
  free(s->ops.p);
  free(s->locs.p);
  free(s->vals.p);
}

static tset get_set(const char *dir, int tag) {
  char path[4096];
  tset s;
  tape_path(path, sizeof path, dir, "Operations", tag);
  s.ops = slurp(path);
  tape_path(path, sizeof path, dir, "Locations", tag);
  s.locs = slurp(path);
  tape_path(path, sizeof path, dir, "Values", tag);
  s.vals = slurp(path);
  return s;
}

/* The hand-made corruptions of section "bad input" of the brief. */
static void check_bad(suite *S, const char *bad, const tset *a, const tset *b) {
  tset c;
  uint32_t big = 9000;
  uint64_t huge = 1000000000000000ull;
  char path[4096];

  c = copy_set(a), c.ops.n--, put_set(bad, 1, &c), free_set(&c);
  expect_fail(S, bad, 1, "truncated Operations", CG_EFORMAT, "ADOLC-Operations_1.tap", "truncated",
              NULL);
  c = copy_set(a), c.locs.n -= 4, put_set(bad, 2, &c), free_set(&c);
  expect_fail(S, bad, 2, "truncated Locations", CG_EFORMAT, "ADOLC-Locations_2.tap", "truncated",
              NULL);
  c = copy_set(a), c.locs.n = 100, put_set(bad, 3, &c), free_set(&c);
  expect_fail(S, bad, 3, "Locations shorter than its header", CG_EFORMAT, "ADOLC-Locations_3.tap",
              "header", NULL);
  c = copy_set(a), c.vals.n -= 8, put_set(bad, 4, &c), free_set(&c);
  expect_fail(S, bad, 4, "truncated Values", CG_EFORMAT, "ADOLC-Values_4.tap", "truncated", NULL);
  c = copy_set(a), c.vals.n -= 3, put_set(bad, 5, &c), free_set(&c);
  expect_fail(S, bad, 5, "Values not whole doubles", CG_EFORMAT, "ADOLC-Values_5.tap", NULL);
  c = copy_set(a), c.locs.p[2] = 4, put_set(bad, 6, &c), free_set(&c);
  expect_fail(S, bad, 6, "version 2.4.x", CG_EFORMAT, "ADOLC-Locations_6.tap", "2.4.2", "supported",
              NULL);
  c = copy_set(a), c.locs.p[0] = 3, c.locs.p[2] = 0, put_set(bad, 7, &c), free_set(&c);
  expect_fail(S, bad, 7, "version 3.0", CG_EFORMAT, "3.0.2", NULL);
  c = copy_set(a), c.locs.p[6] = 8, put_set(bad, 8, &c), free_set(&c);
  expect_fail(S, bad, 8, "locint size 8", CG_EFORMAT, "ADOLC-Locations_8.tap", "4/8/8", NULL);
  c = copy_set(a);
  free(c.locs.p), c.locs.p = (unsigned char *)malloc(b->locs.n), c.locs.n = b->locs.n;
  memcpy(c.locs.p, b->locs.p, b->locs.n), put_set(bad, 9, &c), free_set(&c);
  expect_fail(S, bad, 9, "Locations of another tape", CG_EFORMAT, "different tapes", NULL);
  c = copy_set(a), c.ops.p[5] = 70, put_set(bad, 10, &c), free_set(&c);
  expect_fail(S, bad, 10, "unknown opcode", CG_EFORMAT,
              "ADOLC-Operations_10.tap: record 5: unknown opcode 70", NULL);
  c = copy_set(a), c.ops.p[5] = 131, put_set(bad, 11, &c), free_set(&c);
  expect_fail(S, bad, 11, "AMPI opcode", CG_EFORMAT,
              "record 5: AMPI opcode ampi_send is not supported", NULL);
  c = copy_set(a), c.ops.p[5] = 125, put_set(bad, 12, &c), free_set(&c);
  expect_fail(S, bad, 12, "advanced branching opcode", CG_EFORMAT, "record 5: opcode 125 (eq_a_a)",
              NULL);
  c = copy_set(a), memcpy(c.locs.p + 168, &big, 4), put_set(bad, 13, &c), free_set(&c);
  expect_fail(S, bad, 13, "location >= store", CG_EFORMAT, "ADOLC-Operations_13.tap: record",
              "9000 >= store size", NULL);
  c = copy_set(a), memcpy(c.locs.p + 12 + 8 * 5, &huge, 8), put_set(bad, 14, &c), free_set(&c);
  expect_fail(S, bad, 14, "header claims 1e15 operations", CG_EFORMAT, "ADOLC-Operations_14.tap",
              "truncated", NULL);
  c = copy_set(a), c.ops.p[c.ops.n / 2] = CG_OP_end_of_tape, put_set(bad, 15, &c), free_set(&c);
  expect_fail(S, bad, 15, "early end_of_tape", CG_EFORMAT, "end_of_tape before the end", NULL);
  c = copy_set(a), c.ops.p[c.ops.n - 1] = CG_OP_assign_d_zero, put_set(bad, 16, &c), free_set(&c);
  expect_fail(S, bad, 16, "no end_of_tape", CG_EFORMAT, "ADOLC-Operations_16.tap: record", NULL);
  c = copy_set(a), put_set(bad, 17, &c), free_set(&c);
  tape_path(path, sizeof path, bad, "Locations", 17), remove(path);
  expect_fail(S, bad, 17, "missing Locations", CG_EIO, "ADOLC-Locations_17.tap", NULL);
  c = copy_set(a), put_set(bad, 18, &c), free_set(&c);
  tape_path(path, sizeof path, bad, "Locations", 18), remove(path), mkdir(path, 0755);
  expect_fail(S, bad, 18, "Locations is a directory", CG_EFORMAT, "ADOLC-Locations_18.tap",
              "directory", NULL);
  tape_path(path, sizeof path, bad, "Operations", 19), mkdir(path, 0755);
  expect_fail(S, bad, 19, "Operations is a directory", CG_EFORMAT, "directory", NULL);
  c = copy_set(a), free(c.vals.p), c.vals.p = NULL, put_set(bad, 20, &c), free_set(&c);
  expect_fail(S, bad, 20, "missing Values file of a tape with constants", CG_EFORMAT,
              "ADOLC-Values_20.tap", NULL);
}

/* Random byte flips: each must load or fail with a message, never crash. */
static void check_fuzz(suite *S, const char *bad, const tset *a, int rounds) {
  unsigned seed = 12345;
  int i, bad_msg = 0, loaded = 0;
  for (i = 0; i < rounds; i++) {
    tset c = copy_set(a);
    blob *f;
    cg_error e = {0, ""};
    cg_tape *t;
    char path[4096];
    double y[MAXV];
    seed = seed * 1103515245u + 12345u;
    f = (seed >> 16) % 3 == 0 ? &c.ops : (seed >> 16) % 3 == 1 ? &c.locs : &c.vals;
    seed = seed * 1103515245u + 12345u;
    if (f->p && f->n) f->p[(seed >> 8) % f->n] ^= (unsigned char)(1u << ((seed >> 4) & 7));
    put_set(bad, 100, &c);
    free_set(&c);
    tape_path(path, sizeof path, bad, "Operations", 100);
    check_same_stream(S, path, "fuzz");
    check_load_same(S, path, "fuzz", 1);
    t = cg_tape_load(NULL, path, &e);
    if (t) {
      loaded++;
      if (t->n_indep <= MAXV && t->n_dep <= MAXV) {
        double x[MAXV] = {0.5, 1.5, 2.5, 0.25};
        cg_tape_forward(t, x, y, NULL, &e); /* any outcome but a crash */
      }
      cg_tape_free(t);
    } else if (!strstr(e.msg, "ADOLC-") || e.code >= 0) {
      bad_msg++;
      printf("fuzz %d: message without a file name: %s\n", i, e.msg);
    }
  }
  check(S, bad_msg == 0, "fuzz: every error names its file", NULL);
  printf("fuzz: %d of %d mutants still loaded\n", loaded, rounds);
}

int main(int argc, char **argv) {
  suite S = {0, 0};
  char bad[4096];
  int i;
  tset a, b;
  if (argc < 2) {
    fprintf(stderr, "usage: test_adolc DIR...\n");
    return 2;
  }
  for (i = 1; i < argc; i++) {
    int n = check_dir(&S, argv[i]);
    printf("%s: %d tapes\n", argv[i], n);
  }
  snprintf(bad, sizeof bad, "%s/bad", argv[1]);
  if (mkdir(bad, 0755) != 0 && errno != EEXIST) {
    printf("cannot create %s\n", bad);
    return 1;
  }
  a = get_set(argv[1], 1);
  b = get_set(argv[1], 2);
  check(&S, a.ops.p && a.locs.p && a.vals.p && b.locs.p, "tapes 1 and 2 present", NULL);
  if (a.ops.p && a.locs.p && a.vals.p && b.locs.p) {
    check_bad(&S, bad, &a, &b);
    check_fuzz(&S, bad, &a, 400);
  }
  free_set(&a);
  free_set(&b);
  for (i = 1; i < argc; i++) { /* the long tape of every recording */
    a = get_set(argv[i], 10);
    if (a.ops.p && a.locs.p) check_fuzz(&S, bad, &a, 300);
    free_set(&a);
  }
  printf("%d passed, %d failed\n", S.passed, S.failed);
  return S.failed != 0;
}
