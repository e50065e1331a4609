/* test_kpoint.c: the interpreter's statement hook (cg_kcall.hook,
 * cg_kpoint_eval) on a kernel written as rows by hand, Hovland, Norris,
 * Utke & Strout, Fig. 1 with pointer parameters:
 *   a[0] = cos(x);  b[0] = sin(y) * y;  f[0] = a[0] * b[0];
 * The hook is called before each statement and after each assignment, in
 * order; an expression of the statement evaluates as the statement does
 * (bit for bit against the same C operations); the evaluation is quiet (the
 * trace, the read flags, the step count and the tangents are those of a run
 * without hook); a failing evaluation is reported and the run goes on; an
 * expression of another statement is refused; a hook's status stops the
 * run.  Then the term graph of the flattened block (a != b assumed: one
 * subgraph whose dependents a[0] and b[0] feed f[0]): one node per vertex at
 * the node cg_kflat_term_graph reports, a[0] and b[0] copy nodes (Utke,
 * Flattening, sec. 6.2), the values; and every allocation failing in turn.
 * Prints "N passed, N failed". */
#include <math.h>
#include <string.h>

#include "kernel/cg_kflat.h"
#include "kernel/cg_kinterp.h"
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

static int32_t lhs[3], rhs[3]; /* the statements' expressions */

static void assign(krows *r, int32_t l, int32_t x) {
  int32_t *s = r->stmt + r->nst * CG_KSTMT_W, i;
  for (i = 0; i < CG_KSTMT_W; i++) s[i] = -1;
  s[CG_KSTMT_KIND] = CG_KST_ASSIGN, s[CG_KSTMT_FUNC] = 0, s[CG_KSTMT_LINE] = (int32_t)r->nst + 1;
  s[CG_KSTMT_COL] = 1, s[CG_KSTMT_FLAGS] = 0, s[CG_KSTMT_X0] = l, s[CG_KSTMT_X1] = x;
  s[CG_KSTMT_X2] = s[CG_KSTMT_X3] = s[CG_KSTMT_X4] = s[CG_KSTMT_X6] = 0;
  lhs[r->nst] = l, rhs[r->nst] = x;
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

/* {==== a call: x, y by value; a, b, f cells 0, 1, 2 of one array ====} */

typedef struct bind {
  cg_karray arr;
  cg_karg args[5];
  double cells[3];
  uint8_t init[3];
  cg_kcall c;
} bind;

static void make_call(bind *bd, double x, double y, int a_init) {
  int i;
  memset(bd, 0, sizeof *bd);
  bd->cells[0] = 7.0, bd->cells[1] = bd->cells[2] = 0.0;
  bd->init[0] = (uint8_t)a_init, bd->init[1] = bd->init[2] = 1;
  bd->arr.name = "M", bd->arr.base = CG_KT_DOUBLE, bd->arr.n = 3;
  bd->arr.values = bd->cells, bd->arr.init = bd->init;
  bd->args[0].kind = CG_KARG_DOUBLE, bd->args[0].d = x;
  bd->args[1].kind = CG_KARG_DOUBLE, bd->args[1].d = y;
  for (i = 2; i < 5; i++) bd->args[i].kind = CG_KARG_PTR, bd->args[i].array = 0, bd->args[i].offset = i - 2;
  bd->c.func = 0, bd->c.narray = 1, bd->c.arrays = &bd->arr, bd->c.narg = 5, bd->c.args = bd->args;
}

/* }==== */

/* {==== the hook ====} */

/* What the test hook saw: the calls in order as "b0 a0 b1 ...", the
 * right-hand sides' values before each statement, the left-hand sides'
 * after, a's cell before statement 0 (its status), and, with stop_at >= 0,
 * the status it returns at that call. */
typedef struct seen {
  char calls[64];
  double before[3], after[3], a_before;
  int a_rc, other_rc, stop_at, n;
  char a_msg[512];
} seen;

static int hook(void *ud, const cg_kpoint *p, int32_t s, int32_t func, uint64_t frame, int after,
                cg_error *e) {
  seen *w = (seen *)ud;
  cg_error e2;
  double other;
  size_t len = strlen(w->calls);
  snprintf(w->calls + len, sizeof w->calls - len, "%s%c%d", len ? " " : "", after ? 'a' : 'b', (int)s);
  if (func != 0 || frame != 0) return cg_seterr(e, CG_ERUNTIME, "hook: frame %d of %d", (int)frame, (int)func);
  if (w->n++ == w->stop_at) return cg_seterr(e, CG_ERUNTIME, "hook: stopped");
  if (after) return cg_kpoint_eval(p, lhs[s], &w->after[s], e);
  if (s == 0) {
    w->a_rc = cg_kpoint_eval(p, lhs[0], &w->a_before, &e2); /* a[0] before it is written */
    if (w->a_rc) snprintf(w->a_msg, sizeof w->a_msg, "%s", e2.msg);
    w->other_rc = cg_kpoint_eval(p, rhs[2], &other, &e2);
  }
  return cg_kpoint_eval(p, rhs[s], &w->before[s], e);
}

static void collect(void *ud, const cg_kaccess *a) {
  (void)a;
  (*(int *)ud)++;
}

/* }==== */

static void test_values(const cg_kernel *k) {
  double x = 0.3, y = 1.7, a0 = cos(x), b0 = sin(y) * y;
  bind bd;
  seen w;
  cg_kresult r;
  cg_error e;
  memset(&w, 0, sizeof w);
  w.stop_at = -1;
  make_call(&bd, x, y, 1);
  bd.c.hook = hook, bd.c.hook_ud = &w;
  CHECK(cg_kinterp_run(NULL, k, &bd.c, &r, &e) == CG_OK);
  CHECK(!strcmp(w.calls, "b0 a0 b1 a1 b2 a2"));
  /* bit for bit the C operations the statements make */
  CHECK(w.before[0] == a0 && w.before[1] == b0 && w.before[2] == a0 * b0);
  CHECK(w.after[0] == a0 && w.after[1] == b0 && w.after[2] == a0 * b0);
  CHECK(w.a_rc == CG_OK && w.a_before == 7.0); /* the cell as the caller gave it */
  CHECK(w.other_rc == CG_EUSAGE);              /* statement 2's expression at statement 0 */
  CHECK(r.values[0][2] == a0 * b0);
  /* quiet: a[0] was read by the hook only, then written: not "read before written" */
  CHECK(r.acc[0][0] == CG_KACC_WRITTEN);
  cg_kresult_free(&r);
}

static void test_failures(const cg_kernel *k) {
  bind bd;
  seen w;
  cg_kresult r;
  cg_error e;
  memset(&w, 0, sizeof w);
  w.stop_at = -1;
  make_call(&bd, 0.3, 1.7, 0); /* a[0] uninitialized */
  bd.c.hook = hook, bd.c.hook_ud = &w;
  CHECK(cg_kinterp_run(NULL, k, &bd.c, &r, &e) == CG_OK); /* the run goes on */
  CHECK(w.a_rc == CG_ERUNTIME && strstr(w.a_msg, "fig1.c:1:1: read of uninitialized M[0]"));
  cg_kresult_free(&r);
  memset(&w, 0, sizeof w);
  w.stop_at = 3; /* after statement 1 */
  CHECK(cg_kinterp_run(NULL, k, &bd.c, &r, &e) == CG_ERUNTIME && !strcmp(e.msg, "hook: stopped"));
  CHECK(!strcmp(w.calls, "b0 a0 b1 a1"));
  cg_kresult_free(&r);
}

/* The same run with and without the hook: trace, steps, read flags,
 * tangents. */
static void test_quiet(const cg_kernel *k) {
  double seeds[3 * 2] = {1, 0, 0, 1, 0, 0}, sargs[5 * 2] = {1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  const double *sa[1];
  int n0 = 0, n1 = 0, i;
  bind b0, b1;
  seen w;
  cg_kresult r0, r1;
  cg_error e;
  sa[0] = seeds;
  memset(&w, 0, sizeof w);
  w.stop_at = -1;
  make_call(&b0, 0.3, 1.7, 1), make_call(&b1, 0.3, 1.7, 1);
  b0.c.trace = b1.c.trace = collect, b0.c.trace_ud = &n0, b1.c.trace_ud = &n1;
  b0.c.ndir = b1.c.ndir = 2, b0.c.seed_arrays = b1.c.seed_arrays = sa;
  b0.c.seed_args = b1.c.seed_args = sargs;
  b1.c.hook = hook, b1.c.hook_ud = &w;
  CHECK(cg_kinterp_run(NULL, k, &b0.c, &r0, &e) == CG_OK);
  CHECK(cg_kinterp_run(NULL, k, &b1.c, &r1, &e) == CG_OK);
  CHECK(n0 == n1 && n0 > 0 && r0.steps == r1.steps);
  for (i = 0; i < 3; i++) CHECK(r0.acc[0][i] == r1.acc[0][i] && r0.values[0][i] == r1.values[0][i]);
  for (i = 0; i < 6; i++) CHECK(r0.tangents[0][i] == r1.tangents[0][i]);
  CHECK(r1.tangents[0][4] == -sin(0.3) * (sin(1.7) * 1.7)); /* df/dx */
  cg_kresult_free(&r0), cg_kresult_free(&r1);
}

/* {==== the term graph ====} */

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

/* Flattening of function 0 with a != b (symbols 2 and 3). */
static int flatten(cg_alloc *A, const cg_kernel *k, run *r, cg_error *e) {
  cg_kassume ne = {2, 3, 0};
  memset(r, 0, sizeof *r);
  if ((r->al = cg_kalias_run(A, k, 0, &ne, 1, e)) && (r->ch = cg_kchains_run(A, r->al, e)) &&
      (r->cfg = cg_kcfg_build(A, k, 0, e)) &&
      (r->fl = cg_kflat_run(A, r->al, r->ch, r->cfg, NULL, CG_KFLAT_MINIMAL, e)))
    return 1;
  run_free(r);
  return 0;
}

static void test_term_graph(const cg_kernel *k) {
  double pt[2] = {0.3, 0.7}, y[3], a0 = cos(0.3), b0 = sin(0.7) * 0.7;
  uint32_t node_of[8], v, nv;
  cg_graph *g;
  cg_error e;
  run r;
  if (!flatten(NULL, k, &r, &e)) { CHECK(0); return; }
  nv = r.fl->g_v0[1] - r.fl->g_v0[0];
  CHECK(r.fl->ng == 1 && nv == 6 && r.fl->nd == 3); /* x, cos, y, sin, *, * */
  g = cg_kflat_term_graph(NULL, r.fl, 0, pt, NULL, NULL, node_of, &e);
  CHECK(g != NULL);
  if (g) {
    CHECK(g->n == nv + 2 && g->n_dep == 3); /* a node per vertex, two copies */
    for (v = 0; v < nv; v++) CHECK(node_of[v] == v); /* no constants: creation order */
    CHECK(g->op[g->op_start[g->dep[0]]] == CG_G_COPY && g->op[g->op_start[g->dep[1]]] == CG_G_COPY);
    CHECK(g->kids[g->kid_start[g->dep[0]]] == node_of[r.fl->d_vertex[0]]);
    CHECK(g->dep[2] == node_of[r.fl->d_vertex[2]]); /* f[0]: maximal, its vertex */
    CHECK(cg_graph_eval(g, NULL, NULL, y, NULL, &e) == CG_OK);
    CHECK(y[0] == a0 && y[1] == b0 && y[2] == a0 * b0);
    cg_graph_free(g);
  }
  run_free(&r);
}

static void test_term_oom(const cg_kernel *k) {
  double pt[2] = {0.3, 0.7};
  uint32_t node_of[8];
  long at;
  int done = 0, bad = 0;
  for (at = 1; !done && at < 100000; at++) {
    counting c = {0, 0, 0};
    cg_alloc A = {counting_alloc, &c};
    cg_graph *g = NULL;
    cg_error e;
    run r;
    if (!flatten(&A, k, &r, &e)) { bad++; break; }
    c.fail_at = c.calls + at; /* the graph's allocations only */
    g = cg_kflat_term_graph(&A, r.fl, 0, pt, NULL, NULL, node_of, &e);
    if (!g && e.code != CG_ENOMEM) bad++;
    done = g != NULL && c.calls < c.fail_at;
    cg_graph_free(g);
    run_free(&r);
    if (c.live != 0) bad++;
  }
  CHECK(done);
  CHECK(bad == 0);
  CHECK(at > 5);
}

/* }==== */

int main(void) {
  cg_kernel *k = hovland_fig1();
  CHECK(k != NULL);
  if (k) {
    test_values(k);
    test_failures(k);
    test_quiet(k);
    test_term_graph(k);
    test_term_oom(k);
    cg_kernel_free(k);
  }
  return check_report("test_kpoint");
}
