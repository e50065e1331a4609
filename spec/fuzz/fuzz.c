/*
 * fuzz.c: libFuzzer targets for every reader of cgwb (issue 6).
 *
 * One source, one table: each target is a function from the fuzz input to
 * nothing; it must never crash, hang, leak or trip a sanitizer, whatever the
 * bytes.  `make fuzz` builds one binary per row of the table, choosing the row
 * with -DFUZZ_TARGET="name"; without it, the CGWB_FUZZ_TARGET environment
 * variable chooses.  Adding a target is a function plus a row, and its name in
 * the Makefile's FUZZ_TARGETS.
 *
 * Every target allocates through a capped allocator (FUZZ_MEM_CAP bytes live
 * at most), so a hostile size field becomes CG_ENOMEM, a clean error, instead
 * of libFuzzer's malloc limit; the cap also exercises the out-of-memory paths.
 * Besides "no crash", the targets check properties that hold for any input
 * accepted: a tape read back from what cgwb wrote has the same records, and
 * a linearized graph satisfies its invariants after elimination.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elim/cg_lin.h"
#include "graph/cg_gtape.h"
#include "tape/cg_tape.h"

#define FUZZ_MEM_CAP ((size_t)256 << 20)
#define FUZZ_MAX_RECORDS 200000 /* the pipeline target skips longer tapes */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* {==== capped allocator ====} */

typedef struct capped {
  size_t live;
} capped;

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  capped *c = (capped *)ud;
  void *p;
  if (nsize == 0) {
    if (ptr) c->live -= osize;
    free(ptr);
    return NULL;
  }
  if (!ptr) osize = 0;
  if (nsize > osize && nsize - osize > FUZZ_MEM_CAP - c->live) return NULL;
  p = realloc(ptr, nsize);
  if (p) c->live = c->live - osize + nsize;
  return p;
}

/* Aborts (a finding for libFuzzer) when a property fails. */
static void fuzz_assert(int ok, const char *what) {
  if (ok) return;
  fprintf(stderr, "fuzz property failed: %s\n", what);
  abort();
}

/* A fresh allocator per input; at the end nothing may be live. */
#define FUZZ_ALLOC(name) \
  capped name##_c = {0}; \
  cg_alloc name = {capped_alloc, &name##_c}
#define FUZZ_NO_LEAK(name) \
  do { \
    if (name##_c.live) fprintf(stderr, "%zu bytes live\n", name##_c.live); \
    fuzz_assert(name##_c.live == 0, "bytes still allocated after the input"); \
  } while (0)

/* {==== scratch files ====} */

static char tmpdir[256];

static void make_tmpdir(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/cgwb-fuzz.XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    exit(1);
  }
}

static void cleanup_tmpdir(void) {
  static const char *names[] = {"t.tap",      "t.txt",         "w.tap",
                                "w.txt",      "ADOLC-Operations_1.tap",
                                "ADOLC-Locations_1.tap", "ADOLC-Values_1.tap"};
  char p[512];
  size_t i;
  for (i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(p, sizeof p, "%s/%s", tmpdir, names[i]);
    remove(p);
  }
  rmdir(tmpdir);
}

/* Writes bytes to tmpdir/name; the path goes to out. */
static void put_file(const char *name, const uint8_t *d, size_t n, char *out, size_t cap) {
  FILE *fp;
  snprintf(out, cap, "%s/%s", tmpdir, name);
  fp = fopen(out, "wb");
  if (!fp || (n && fwrite(d, 1, n, fp) != n) || fclose(fp) != 0) {
    perror(out);
    abort();
  }
}

/* {==== shared checks ====} */

/* Same constants: bit for bit, except that a NaN's payload may change (the
 * text format writes nan or -nan). */
static int same_vals(const double *a, const double *b, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; i++) {
    if (isnan(a[i]) && isnan(b[i]) && !signbit(a[i]) == !signbit(b[i])) continue;
    if (memcmp(&a[i], &b[i], sizeof a[i]) != 0) return 0;
  }
  return 1;
}

/* Same records in two tapes. */
static int same_records(const cg_tape *a, const cg_tape *b) {
  cg_tape_iter ia, ib;
  cg_rec ra, rb;
  if (a->nops != b->nops || a->n_indep != b->n_indep || a->n_dep != b->n_dep) return 0;
  cg_tape_iter_init(&ia, a);
  cg_tape_iter_init(&ib, b);
  while (cg_tape_iter_next(&ia, &ra)) {
    if (!cg_tape_iter_next(&ib, &rb) || ra.op != rb.op || ra.nloc != rb.nloc ||
        ra.nval != rb.nval || (ra.nloc && memcmp(ra.loc, rb.loc, (size_t)ra.nloc * 4)) ||
        !same_vals(ra.val, rb.val, ra.nval))
      return 0;
  }
  return 1;
}

/* A loaded tape survives writing in both formats and reading back. */
static void roundtrip(cg_alloc *A, const cg_tape *t) {
  char path[512];
  cg_error e;
  cg_tape *u;
  snprintf(path, sizeof path, "%s/w.tap", tmpdir);
  if (!t->has_x0) { /* a classic tape carries the point: refused without one */
    fuzz_assert(cg_write_classic(t, path, &e) != CG_OK, "classic tape written without x0");
  } else if (cg_write_classic(t, path, &e) == CG_OK &&
             (u = cg_tape_load(A, path, &e)) != NULL) {
    fuzz_assert(same_records(t, u), "classic round trip changed the tape");
    cg_tape_free(u);
  } else {
    fprintf(stderr, "%s\n", e.msg);
    fuzz_assert(e.code == CG_ENOMEM, "classic round trip failed");
  }
  snprintf(path, sizeof path, "%s/w.txt", tmpdir);
  if (cg_write_text(t, path, &e) == CG_OK && (u = cg_tape_load(A, path, &e)) != NULL) {
    fuzz_assert(same_records(t, u), "text round trip changed the tape");
    cg_tape_free(u);
  } else {
    fprintf(stderr, "%s\n", e.msg);
    fuzz_assert(e.code == CG_ENOMEM, "text round trip failed");
  }
}

/* Loads a tape file, computes its statistics, round-trips it. */
static void tape_file(const char *path) {
  FUZZ_ALLOC(A);
  cg_error e;
  cg_stats s;
  cg_tape *t = cg_tape_load(&A, path, &e);
  if (t) {
    if (t->nops <= FUZZ_MAX_RECORDS) roundtrip(&A, t);
    cg_tape_free(t);
  }
  (void)cg_tape_stats(&A, path, &s, &e);
  FUZZ_NO_LEAK(A);
}

/* Eliminates every intermediate of a linearized graph (Markowitz) and checks
 * the invariants and the Jacobian read-off. */
static void eliminate(cg_lin *g) {
  cg_order o;
  cg_cost c;
  cg_error e;
  cg_jac J;
  memset(&o, 0, sizeof o);
  memset(&c, 0, sizeof c);
  memset(&J, 0, sizeof J);
  o.rule[0].kind = CG_ORD_MARKOWITZ;
  o.nrules = 1;
  fuzz_assert(cg_lin_check(g, &e) == CG_OK, "linearized graph invariants before elimination");
  if (cg_lin_jac_forward(g, &J, &e) == CG_OK) cg_jac_free(g->A, &J);
  if (cg_lin_eliminate(g, &o, &c, NULL, NULL, &e) != CG_OK) {
    fuzz_assert(e.code == CG_ENOMEM, "elimination failed with an error other than ENOMEM");
    return;
  }
  fuzz_assert(cg_lin_check(g, &e) == CG_OK, "linearized graph invariants after elimination");
  if (cg_lin_jac_bipartite(g, &J, &e) == CG_OK) cg_jac_free(g->A, &J);
}

/* {==== targets ====} */

/* Any file cg_reader_open accepts: the format is detected from the content
 * (classic or text here). */
static void fuzz_classic(const uint8_t *d, size_t n) {
  char path[512];
  put_file("t.tap", d, n, path, sizeof path);
  tape_file(path);
}

/* Text tapes, parsed from memory. */
static void fuzz_text(const uint8_t *d, size_t n) {
  FUZZ_ALLOC(A);
  cg_error e;
  cg_reader *R = cg_text_open(&A, "t.txt", (const char *)d, n, &e);
  cg_tape *t = NULL;
  if (R) {
    t = cg_tape_from_reader(&A, R, &e);
    cg_reader_close(R);
  }
  if (t) {
    if (t->nops <= FUZZ_MAX_RECORDS) roundtrip(&A, t);
    cg_tape_free(t);
  }
  FUZZ_NO_LEAK(A);
}

/* An ADOL-C tape set: the input is split into the three files.  Bytes 0..7:
 * the lengths of the Operations and Locations files (uint32 LE, each taken
 * modulo what is left); the rest is the Values file.  Locations and values
 * are cut to whole items unless bit 31 of the first length is set. */
static void fuzz_adolc(const uint8_t *d, size_t n) {
  char po[512], pl[512], pv[512];
  uint32_t lo, ll;
  size_t rest;
  int whole;
  if (n < 8) return;
  lo = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
  ll = (uint32_t)d[4] | (uint32_t)d[5] << 8 | (uint32_t)d[6] << 16 | (uint32_t)d[7] << 24;
  whole = !(lo & 0x80000000u);
  lo &= 0x7fffffffu;
  d += 8, n -= 8;
  lo = (uint32_t)(lo % (n + 1)), rest = n - lo;
  ll = (uint32_t)(ll % (rest + 1)), rest -= ll;
  put_file("ADOLC-Operations_1.tap", d, lo, po, sizeof po);
  put_file("ADOLC-Locations_1.tap", d + lo, whole ? ll / 4 * 4 : ll, pl, sizeof pl);
  put_file("ADOLC-Values_1.tap", d + lo + ll, whole ? rest / 8 * 8 : rest, pv, sizeof pv);
  tape_file(po);
  (void)pl, (void)pv;
}

/* .cg graphs, parsed from memory, then eliminated. */
static void fuzz_cg(const uint8_t *d, size_t n) {
  FUZZ_ALLOC(A);
  cg_error e;
  cg_lin *g = cg_lin_read_cg(&A, "t.cg", (const char *)d, n, &e);
  if (g) {
    eliminate(g);
    cg_lin_free(g);
  }
  FUZZ_NO_LEAK(A);
}

/* A text tape through the whole pipeline: graph, evaluation, linearization,
 * elimination. */
static void fuzz_pipeline(const uint8_t *d, size_t n) {
  FUZZ_ALLOC(A);
  cg_error e;
  cg_reader *R = cg_text_open(&A, "t.txt", (const char *)d, n, &e);
  cg_tape *t = NULL;
  cg_graph *g = NULL;
  cg_gopts o;
  cg_lin *lg;
  if (R) {
    t = cg_tape_from_reader(&A, R, &e);
    cg_reader_close(R);
  }
  if (t && t->nops <= FUZZ_MAX_RECORDS) {
    cg_gopts_default(&o);
    o.hoist = n % 2; /* both builds, chosen by the input */
    o.mem_limit = FUZZ_MEM_CAP;
    g = cg_graph_build(&A, t, NULL, &o, &e);
  }
  if (g && g->has_val) {
    double *y = (double *)malloc((g->n_dep ? g->n_dep : 1) * sizeof *y);
    (void)cg_graph_eval(g, NULL, NULL, y, NULL, &e);
    free(y);
    if ((lg = cg_lin_from_graph(g, &e)) != NULL) {
      eliminate(lg);
      cg_lin_free(lg);
    }
  }
  cg_graph_free(g);
  cg_tape_free(t);
  FUZZ_NO_LEAK(A);
}

typedef struct fuzz_target {
  const char *name;
  void (*run)(const uint8_t *d, size_t n);
} fuzz_target;

static const fuzz_target targets[] = {
    {"adolc", fuzz_adolc},   {"classic", fuzz_classic},   {"text", fuzz_text},
    {"cg", fuzz_cg},         {"pipeline", fuzz_pipeline},
};

/* {==== libFuzzer entry points ====} */

static const fuzz_target *chosen;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
#ifdef FUZZ_TARGET
  const char *name = FUZZ_TARGET;
#else
  const char *name = getenv("CGWB_FUZZ_TARGET");
#endif
  size_t i;
  (void)argc, (void)argv;
  for (i = 0; name && i < sizeof targets / sizeof *targets; i++)
    if (strcmp(targets[i].name, name) == 0) chosen = &targets[i];
  if (!chosen) {
    fprintf(stderr, "fuzz: unknown target '%s'; targets:", name ? name : "");
    for (i = 0; i < sizeof targets / sizeof *targets; i++) fprintf(stderr, " %s", targets[i].name);
    fputc('\n', stderr);
    exit(2);
  }
  make_tmpdir();
  atexit(cleanup_tmpdir);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  chosen->run(data, size);
  return 0;
}
