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
#include "kernel/cg_kcfg.h"
#include "kernel/cg_kinterp.h"
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

/* {==== kernels ====}
 * The bytes as a kernel's flat arrays (csrc/kernel/cg_kernel.h): a header
 * of 7 counts (each byte masked to a small bound: functions - 1, symbols,
 * expressions, statements, list, arguments, constants), then every
 * int32 field of every row as one signed byte (small values, so that ids
 * are often in range), then one byte per double constant (b / 16).  Bytes
 * past the end read as -1.  When the kernel loads, every function gets its
 * control flow graph and a run of the interpreter (step and call limits
 * small; tangent mode and the trace on alternate inputs) on arrays of 16
 * cells. */

typedef struct bytes {
  const uint8_t *d;
  size_t n, at;
} bytes;

static int32_t next_i8(bytes *b) { return b->at < b->n ? (int8_t)b->d[b->at++] : -1; }

static int32_t *fill_ints(bytes *b, int32_t *a, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) a[i] = next_i8(b);
  return a;
}

static void count_access(void *ud, const cg_kaccess *a) { (void)a, (*(uint64_t *)ud)++; }

/* Runs function f on arrays of 16 doubles and 16 ints (pointers bound by
 * base, offsets from the bytes), ints 2, doubles 0.5. */
static void fuzz_run_kernel(cg_alloc *A, const cg_kernel *k, int32_t f, bytes *b) {
  double dv[16], iv[16];
  cg_karray arrs[2] = {{"D", CG_KT_DOUBLE, 16, dv, NULL}, {"I", CG_KT_INT, 16, iv, NULL}};
  cg_karg args[64];
  cg_kcall c;
  cg_kresult r;
  cg_error e;
  uint64_t accesses = 0;
  int32_t i, np = CG_KFUNC(k, f, NPARAM);
  if (np > 64) return;
  for (i = 0; i < 16; i++) dv[i] = 0.25 * i - 1, iv[i] = i % 4;
  memset(&c, 0, sizeof c);
  for (i = 0; i < np; i++) {
    int32_t s = CG_KFUNC(k, f, SYM0) + i;
    memset(&args[i], 0, sizeof args[i]);
    if (CG_KSYM(k, s, PTR)) {
      args[i].kind = CG_KARG_PTR;
      args[i].array = CG_KSYM(k, s, BASE) == CG_KT_INT;
      args[i].offset = (next_i8(b) & 15);
    } else if (CG_KSYM(k, s, BASE) == CG_KT_INT)
      args[i].kind = CG_KARG_INT, args[i].i = 2;
    else
      args[i].kind = CG_KARG_DOUBLE, args[i].d = 0.5;
  }
  c.func = f, c.narray = 2, c.arrays = arrs, c.narg = (uint32_t)np, c.args = args;
  c.max_steps = 5000, c.max_calls = 16, c.ndir = b->n & 1 ? 2 : 0;
  if (b->n & 2) c.trace = count_access, c.trace_ud = &accesses;
  if (cg_kinterp_run(A, k, &c, &r, &e) == CG_OK) cg_kresult_free(&r);
}

static void fuzz_kernel(const uint8_t *d, size_t n) {
  static const char *const pool[8] = {"f", "g", "x", "y", "%d %g", "%-*.*f|%%%x %5.2e %c", "i", "pragma text"}; /* names, texts */
  int32_t func[4 * CG_KFUNC_W], sym[16 * CG_KSYM_W], expr[64 * CG_KEXPR_W];
  int32_t stmt[32 * CG_KSTMT_W], list[32], args[8];
  double dconst[4];
  bytes b = {d, n, 0};
  cg_ksrc s;
  cg_error e;
  cg_kernel *k;
  uint32_t i;
  FUZZ_ALLOC(A);
  memset(&s, 0, sizeof s);
  s.file = "fuzz.c";
  s.nfunc = (uint32_t)(next_i8(&b) & 3) + 1, s.nsym = (uint32_t)(next_i8(&b) & 15);
  s.nexpr = (uint32_t)(next_i8(&b) & 63), s.nstmt = (uint32_t)(next_i8(&b) & 31);
  s.nlist = (uint32_t)(next_i8(&b) & 31), s.narg = (uint32_t)(next_i8(&b) & 7);
  s.ndconst = (uint32_t)(next_i8(&b) & 3), s.nname = 8, s.names = pool;
  s.func = fill_ints(&b, func, (size_t)s.nfunc * CG_KFUNC_W);
  s.sym = fill_ints(&b, sym, (size_t)s.nsym * CG_KSYM_W);
  s.expr = fill_ints(&b, expr, (size_t)s.nexpr * CG_KEXPR_W);
  s.stmt = fill_ints(&b, stmt, (size_t)s.nstmt * CG_KSTMT_W);
  s.list = fill_ints(&b, list, s.nlist);
  s.args = fill_ints(&b, args, s.narg);
  for (i = 0; i < s.ndconst; i++) dconst[i] = next_i8(&b) / 16.0;
  s.dconst = dconst;
  if ((k = cg_kernel_load(&A, &s, &e)) != NULL) {
    int32_t f;
    for (f = 0; f < (int32_t)k->nfunc; f++) {
      cg_kcfg *g = cg_kcfg_build(&A, k, f, &e);
      if (g) {
        fuzz_assert(g->kind[g->entry] == CG_KV_ENTRY && g->kind[g->exit] == CG_KV_EXIT, "cfg ends");
        fuzz_assert(g->succ_start[g->nv] == g->ne && g->pred_start[g->nv] == g->ne, "cfg edges");
      }
      cg_kcfg_free(g);
      fuzz_run_kernel(&A, k, f, &b);
    }
    cg_kernel_free(k);
  }
  FUZZ_NO_LEAK(A);
}

/* }==== */

typedef struct fuzz_target {
  const char *name;
  void (*run)(const uint8_t *d, size_t n);
} fuzz_target;

static const fuzz_target targets[] = {
    {"adolc", fuzz_adolc},   {"classic", fuzz_classic},   {"text", fuzz_text},
    {"cg", fuzz_cg},         {"pipeline", fuzz_pipeline}, {"kernel", fuzz_kernel},
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
