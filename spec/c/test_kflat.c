/* test_kflat.c: flattening in C (cg_kflat) on a kernel written as rows by
 * hand, Hovland, Norris, Utke & Strout, Fig. 1 with pointer parameters a
 * and b that may alias:
 *   a[0] = cos(x);  b[0] = sin(y) * y;  f[0] = a[0] * b[0];
 * minimal: statements 0 and 1 share a subgraph (1 reads nothing 0 writes),
 * 2 is cut off (its a[0] may be statement 0's or 1's value); statement: three
 * subgraphs; with a != b assumed: one.  Names of the independents and
 * dependents (x, y, a[0], ...).  A decision hook: splitting when illegal is
 * minimal; always joining is refused with the reason; a failing hook stops
 * the run, nothing leaked.  The first subgraph built as a graph
 * at a point gives cos(x) and sin(y) y.  Then every allocation of the
 * flattening and of the graph building failing in turn (CG_ENOMEM, nothing
 * leaked).  Prints "N passed, N failed". */
#include <math.h>
#include <string.h>

#include "kernel/cg_kflat.h"
#include "check.h"

/* {==== a kernel as rows ====} */

typedef struct krows {
  int32_t func[CG_KFUNC_W], sym[8 * CG_KSYM_W], expr[32 * CG_KEXPR_W];
  int32_t stmt[4 * CG_KSTMT_W], list[4];
  const char *names[8];
  uint32_t ns, ne, nst, nn;
} krows;

static int32_t param(krows *r, const char *nm, int ptr) {
  int32_t *y = r->sym + r->ns * CG_KSYM_W;
  memset(y, 0, CG_KSYM_W * sizeof *y);
  r->names[r->nn] = nm;
  y[CG_KSYM_NAME] = (int32_t)r->nn++, y[CG_KSYM_KIND] = CG_KS_PARAM, y[CG_KSYM_BASE] = CG_KT_DOUBLE;
  y[CG_KSYM_PTR] = ptr, y[CG_KSYM_INIT] = -1, y[CG_KSYM_LINE] = y[CG_KSYM_COL] = 1;
  r->func[CG_KFUNC_NSYM]++, r->func[CG_KFUNC_NPARAM]++;
  return (int32_t)r->ns++;
}

static int32_t ex(krows *r, int op, int type, int32_t a, int32_t b, int32_t sym, int32_t ival) {
  int32_t *x = r->expr + r->ne * CG_KEXPR_W;
  x[CG_KEXPR_OP] = op, x[CG_KEXPR_TYPE] = type, x[CG_KEXPR_A] = a, x[CG_KEXPR_B] = b;
  x[CG_KEXPR_C] = -1, x[CG_KEXPR_SYM] = sym, x[CG_KEXPR_IVAL] = ival;
  x[CG_KEXPR_LINE] = (int32_t)r->nst + 1, x[CG_KEXPR_COL] = 1;
  return (int32_t)r->ne++;
}
static int32_t dvar(krows *r, int32_t s) { return ex(r, CG_KE_VAR, CG_KT_DOUBLE, -1, -1, s, 0); }
static int32_t cell0(krows *r, int32_t p) {
  return ex(r, CG_KE_ELEM, CG_KT_DOUBLE, ex(r, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, 0), -1, p, 0);
}
static int32_t intrin(krows *r, int id, int32_t a) { return ex(r, CG_KE_INTRIN, CG_KT_DOUBLE, a, -1, id, 0); }

static void assign(krows *r, int32_t lhs, int32_t rhs) {
  int32_t *s = r->stmt + r->nst * CG_KSTMT_W, i;
  for (i = 0; i < CG_KSTMT_W; i++) s[i] = -1;
  s[CG_KSTMT_KIND] = CG_KST_ASSIGN, s[CG_KSTMT_FUNC] = 0, s[CG_KSTMT_LINE] = (int32_t)r->nst + 1;
  s[CG_KSTMT_COL] = 1, s[CG_KSTMT_FLAGS] = 0, s[CG_KSTMT_X0] = lhs, s[CG_KSTMT_X1] = rhs;
  s[CG_KSTMT_X2] = s[CG_KSTMT_X3] = s[CG_KSTMT_X4] = s[CG_KSTMT_X6] = 0;
  r->list[r->nst] = (int32_t)r->nst;
  r->nst++;
}

static cg_kernel *hovland_fig1(void) {
  krows r;
  cg_ksrc s;
  cg_error e;
  cg_kernel *k;
  int32_t x, y, a, b, f;
  memset(&r, 0, sizeof r);
  r.names[r.nn++] = "fig1";
  r.func[CG_KFUNC_RET] = CG_KT_VOID, r.func[CG_KFUNC_LINE] = r.func[CG_KFUNC_COL] = 1;
  x = param(&r, "x", 0), y = param(&r, "y", 0);
  a = param(&r, "a", 1), b = param(&r, "b", 1), f = param(&r, "f", 1);
  assign(&r, cell0(&r, a), intrin(&r, CG_KI_COS, dvar(&r, x)));
  assign(&r, cell0(&r, b), ex(&r, CG_KE_MUL, CG_KT_DOUBLE, intrin(&r, CG_KI_SIN, dvar(&r, y)), dvar(&r, y), -1, 0));
  assign(&r, cell0(&r, f), ex(&r, CG_KE_MUL, CG_KT_DOUBLE, cell0(&r, a), cell0(&r, b), -1, 0));
  r.func[CG_KFUNC_BODY] = 0, r.func[CG_KFUNC_NBODY] = 3;
  memset(&s, 0, sizeof s);
  s.file = "fig1.c", s.nname = r.nn, s.names = r.names, s.nfunc = 1, s.nsym = r.ns;
  s.nexpr = r.ne, s.nstmt = r.nst, s.nlist = r.nst;
  s.func = r.func, s.sym = r.sym, s.expr = r.expr, s.stmt = r.stmt, s.list = r.list;
  k = cg_kernel_load(NULL, &s, &e);
  if (!k) fprintf(stderr, "load: %s\n", e.msg);
  return k;
}

/* }==== */

/* The analyses and the flattening of function 0 (NULL on a failure, e set;
 * whatever was made is freed). */
typedef struct run {
  cg_kalias *al;
  cg_kchains *ch;
  cg_kcfg *cfg;
  cg_kflat *fl;
} run;

static void run_free(run *r) {
  cg_kflat_free(r->fl), cg_kcfg_free(r->cfg), cg_kchains_free(r->ch), cg_kalias_free(r->al);
  memset(r, 0, sizeof *r);
}

static int flatten(cg_alloc *A, const cg_kernel *k, const cg_kassume *as, uint32_t nas, int strategy,
                   run *r, cg_error *e) {
  memset(r, 0, sizeof *r);
  if ((r->al = cg_kalias_run(A, k, 0, as, nas, e)) && (r->ch = cg_kchains_run(A, r->al, e)) &&
      (r->cfg = cg_kcfg_build(A, k, 0, e)) &&
      (r->fl = cg_kflat_run(A, r->al, r->ch, r->cfg, NULL, strategy, e)))
    return 1;
  run_free(r);
  return 0;
}

/* The statement ranges of the subgraphs, as "{0,1}{2}". */
static void ranges(const cg_kflat *fl, char *buf, size_t size) {
  uint32_t g, i;
  size_t n = 0;
  buf[0] = 0;
  for (g = 0; g < fl->ng && n + 16 < size; g++) {
    n += (size_t)snprintf(buf + n, size - n, "{");
    for (i = fl->g_st0[g]; i < fl->g_st0[g + 1]; i++)
      n += (size_t)snprintf(buf + n, size - n, i > fl->g_st0[g] ? ",%d" : "%d", (int)fl->st[i]);
    n += (size_t)snprintf(buf + n, size - n, "}");
  }
}

static void test_splits(const cg_kernel *k) {
  cg_kassume ne = {2, 3, 0}; /* a != b (symbols 2 and 3) */
  char buf[64];
  cg_error e;
  run r;
  CHECK(flatten(NULL, k, NULL, 0, CG_KFLAT_MINIMAL, &r, &e));
  ranges(r.fl, buf, sizeof buf);
  CHECK(!strcmp(buf, "{0,1}{2}"));
  /* subgraph 0: x, cos, y (one vertex for both uses), sin, *; dependents a[0], b[0] */
  CHECK(r.fl->g_v0[1] == 5 && r.fl->g_e0[1] == 4 && r.fl->g_d0[1] == 2);
  CHECK(r.fl->g_d0[2] - r.fl->g_d0[1] == 1);
  run_free(&r);
  CHECK(flatten(NULL, k, NULL, 0, CG_KFLAT_STATEMENT, &r, &e));
  ranges(r.fl, buf, sizeof buf);
  CHECK(!strcmp(buf, "{0}{1}{2}"));
  run_free(&r);
  CHECK(flatten(NULL, k, &ne, 1, CG_KFLAT_MINIMAL, &r, &e));
  ranges(r.fl, buf, sizeof buf);
  CHECK(!strcmp(buf, "{0,1,2}"));
  /* a[0] and b[0] feed the product: not maximal, augmented (sec. 6.2) */
  CHECK(r.fl->nd == 3 && r.fl->d_aug[0] && r.fl->d_aug[1] && !r.fl->d_aug[2]);
  run_free(&r);
  CHECK(!cg_kflat_run(NULL, NULL, NULL, NULL, NULL, 0, &e) && e.code == CG_EUSAGE);
}

/* Names: cells through the pointer parameters as p[0], the by-value
 * doubles by name; the function's independents and dependents. */
static void test_names(const cg_kernel *k) {
  static const char *const ind[] = {"x", "y", "a[0]", "b[0]"}, *const dep[] = {"a[0]", "b[0]", "f[0]"};
  char buf[64];
  uint32_t v, d, ni = 0, nd = 0;
  cg_error e;
  run r;
  if (!flatten(NULL, k, NULL, 0, CG_KFLAT_MINIMAL, &r, &e)) { CHECK(0); return; }
  for (v = 0; v < r.fl->nv; v++) /* x, y in subgraph 0; a[0], b[0] read at subgraph 1's start */
    if (r.fl->v_kind[v] == CG_KFV_INDEP) {
      CHECK(cg_kflat_name(r.fl, r.fl->v_acc[v], r.fl->v_expr[v], buf, sizeof buf) == 1);
      CHECK(ni < 4 && !strcmp(buf, ind[ni]));
      CHECK(cg_kflat_outside(r.fl, v) == (ni != 2 && ni != 3)); /* a[0], b[0]: this block's values */
      ni++;
    }
  for (d = 0; d < r.fl->nd; d++) {
    CHECK(cg_kflat_name(r.fl, r.fl->d_acc[d], CG_KSTMT(k, r.fl->d_stmt[d], X0), buf, sizeof buf) == 1);
    CHECK(nd < 3 && !strcmp(buf, dep[nd]) && cg_kflat_observable(r.fl, d));
    nd++;
  }
  CHECK(ni == 4 && nd == 3);
  CHECK(cg_kflat_name(r.fl, -1, r.fl->v_expr[0], buf, sizeof buf) == 0 && !strcmp(buf, "x"));
  CHECK(cg_kflat_name(r.fl, 0, 0, buf, 0) == 0);
  run_free(&r);
}

/* Decision hooks: *mode 0 split when illegal (minimal), 1 always join, 2
 * fail on the first question; counts the questions in mode[1]. */
static int hook(void *ud, const cg_kflat *fl, const cg_kflat_ask *q, cg_error *e) {
  int *mode = (int *)ud;
  (void)fl;
  mode[1]++;
  if (mode[0] == 2) return cg_seterr(e, CG_ERUNTIME, "hook failed at %d", (int)q->stmt);
  return mode[0] == 1 ? CG_KFLAT_JOIN : !q->legal;
}

static void test_hook(const cg_kernel *k) {
  counting c = {0, 0, 0};
  cg_alloc A = {counting_alloc, &c};
  cg_kalias *al = cg_kalias_run(&A, k, 0, NULL, 0, NULL);
  cg_kchains *ch = al ? cg_kchains_run(&A, al, NULL) : NULL;
  cg_kcfg *cfg = cg_kcfg_build(&A, k, 0, NULL);
  cg_kflat *fl;
  char buf[64];
  cg_error e;
  int mode[2] = {0, 0};
  if (!ch || !cfg) { CHECK(0); return; }
  fl = cg_kflat_run_hook(&A, al, ch, cfg, NULL, hook, mode, &e);
  CHECK(fl && fl->strategy == CG_KFLAT_HOOK && mode[1] == 2); /* statements 1 and 2 asked */
  if (fl) {
    ranges(fl, buf, sizeof buf);
    CHECK(!strcmp(buf, "{0,1}{2}"));
  }
  cg_kflat_free(fl);
  mode[0] = 1, mode[1] = 0;
  CHECK(!cg_kflat_run_hook(&A, al, ch, cfg, NULL, hook, mode, &e) && e.code == CG_EUSAGE);
  CHECK(strstr(e.msg, "fig1.c:3:1: the split strategy joins line 3 to the subgraph of lines 1-2, "
                      "which would change the results: the use of a[0] at 3:1 may read the definition of line 1") != NULL);
  mode[0] = 2, mode[1] = 0;
  CHECK(!cg_kflat_run_hook(&A, al, ch, cfg, NULL, hook, mode, &e) && e.code == CG_ERUNTIME && mode[1] == 1);
  CHECK(!strcmp(e.msg, "hook failed at 1"));
  CHECK(!cg_kflat_run_hook(&A, al, ch, cfg, NULL, NULL, mode, &e) && e.code == CG_EUSAGE);
  cg_kcfg_free(cfg), cg_kchains_free(ch), cg_kalias_free(al);
  CHECK(c.live == 0); /* the refused and failed runs freed everything */
}

static void test_graph(const cg_kernel *k) {
  double pt[2] = {0.3, 0.7}, y[2];
  cg_graph *g;
  cg_error e;
  run r;
  if (!flatten(NULL, k, NULL, 0, CG_KFLAT_MINIMAL, &r, &e)) { CHECK(0); return; }
  g = cg_kflat_graph(NULL, r.fl, 0, pt, NULL, NULL, NULL, &e);
  CHECK(g != NULL);
  if (g) {
    CHECK(g->n_indep == 2 && g->n_dep == 2);
    CHECK(cg_graph_eval(g, NULL, NULL, y, NULL, &e) == CG_OK);
    CHECK(y[0] == cos(0.3) && y[1] == sin(0.7) * 0.7);
    cg_graph_free(g);
  }
  CHECK(!cg_kflat_graph(NULL, r.fl, 9, pt, NULL, NULL, NULL, &e) && e.code == CG_EUSAGE);
  run_free(&r);
}

static void test_oom(const cg_kernel *k) {
  double pt[2] = {0.3, 0.7};
  long at;
  int done = 0, bad = 0;
  for (at = 1; !done && at < 100000; at++) {
    counting c = {0, 0, 0};
    cg_alloc A = {counting_alloc, &c};
    cg_graph *g = NULL;
    cg_error e;
    run r;
    c.fail_at = at;
    if (flatten(&A, k, NULL, 0, CG_KFLAT_MINIMAL, &r, &e)) g = cg_kflat_graph(&A, r.fl, 0, pt, NULL, NULL, NULL, &e);
    if (!g && e.code != CG_ENOMEM) bad++;
    done = g != NULL && c.calls < at;
    cg_graph_free(g);
    run_free(&r);
    if (c.live != 0) bad++;
  }
  CHECK(done);
  CHECK(bad == 0);
  CHECK(at > 20);
}

int main(void) {
  cg_kernel *k = hovland_fig1();
  CHECK(k != NULL);
  if (k) {
    test_splits(k);
    test_names(k);
    test_hook(k);
    test_graph(k);
    test_oom(k);
    cg_kernel_free(k);
  }
  return check_report("test_kflat");
}
