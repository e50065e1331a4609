/* test_kalias.c: the kernel analyses in C (cg_kalias, cg_kchains,
 * cg_kactive) on kernels written as rows by hand: Hovland, Norris, Utke &
 * Strout, Fig. 1 with pointer parameters (may-alias, an assumption that
 * separates them, one that makes them equal), a loop whose definition
 * reaches the next iteration's a[i-1] (the back-edge widening), and every
 * allocation of the three analyses failing in turn (CG_ENOMEM, nothing
 * leaked).  Prints "N passed, N failed". */
#include <string.h>

#include "kernel/cg_kactive.h"
#include "check.h"

/* {==== rows ====} */

typedef struct rows {
  int32_t func[2 * CG_KFUNC_W], sym[8 * CG_KSYM_W], expr[40 * CG_KEXPR_W];
  int32_t stmt[8 * CG_KSTMT_W], list[8];
  double dconst[2];
  const char *names[12];
  uint32_t ns, ne, nst, nl, nn;
} rows;

static int32_t add_sym(rows *r, const char *nm, int kind, int base, int ptr) {
  int32_t *y = r->sym + r->ns * CG_KSYM_W, i;
  for (i = 0; i < CG_KSYM_W; i++) y[i] = 0;
  r->names[r->nn] = nm;
  y[CG_KSYM_NAME] = (int32_t)r->nn++, y[CG_KSYM_FUNC] = 0, y[CG_KSYM_KIND] = kind;
  y[CG_KSYM_BASE] = base, y[CG_KSYM_PTR] = ptr, y[CG_KSYM_INIT] = -1, y[CG_KSYM_LINE] = 1;
  y[CG_KSYM_COL] = 1;
  r->func[CG_KFUNC_NSYM]++;
  if (kind == CG_KS_PARAM) r->func[CG_KFUNC_NPARAM]++;
  return (int32_t)r->ns++;
}

static int32_t add_ex(rows *r, int op, int type, int32_t a, int32_t b, int32_t sym, int32_t ival) {
  int32_t *x = r->expr + r->ne * CG_KEXPR_W;
  x[CG_KEXPR_OP] = op, x[CG_KEXPR_TYPE] = type, x[CG_KEXPR_A] = a, x[CG_KEXPR_B] = b;
  x[CG_KEXPR_C] = -1, x[CG_KEXPR_SYM] = sym, x[CG_KEXPR_IVAL] = ival;
  x[CG_KEXPR_LINE] = (int32_t)r->nst + 1, x[CG_KEXPR_COL] = 1;
  return (int32_t)r->ne++;
}
static int32_t var(rows *r, int32_t s, int type) { return add_ex(r, CG_KE_VAR, type, -1, -1, s, 0); }
static int32_t ci(rows *r, int32_t v) { return add_ex(r, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, v); }
static int32_t cell(rows *r, int32_t p, int32_t sub) { return add_ex(r, CG_KE_ELEM, CG_KT_DOUBLE, sub, -1, p, 0); }

static int32_t add_st(rows *r, int kind, int flags, int32_t x0, int32_t x1, int32_t x2, int32_t x3,
                      int32_t x4) {
  int32_t *s = r->stmt + r->nst * CG_KSTMT_W;
  s[CG_KSTMT_KIND] = kind, s[CG_KSTMT_FUNC] = 0, s[CG_KSTMT_LINE] = (int32_t)r->nst + 1;
  s[CG_KSTMT_COL] = 1, s[CG_KSTMT_PRAGMA] = -1, s[CG_KSTMT_FLAGS] = flags;
  s[CG_KSTMT_X0] = x0, s[CG_KSTMT_X1] = x1, s[CG_KSTMT_X2] = x2, s[CG_KSTMT_X3] = x3;
  s[CG_KSTMT_X4] = x4, s[CG_KSTMT_X5] = -1, s[CG_KSTMT_X6] = 0;
  return (int32_t)r->nst++;
}

static void open_func(rows *r, const char *nm) {
  memset(r, 0, sizeof *r);
  r->names[r->nn++] = nm;
  r->func[CG_KFUNC_NAME] = 0, r->func[CG_KFUNC_RET] = CG_KT_VOID, r->func[CG_KFUNC_SYM0] = 0;
  r->func[CG_KFUNC_BODY] = -1, r->func[CG_KFUNC_LINE] = r->func[CG_KFUNC_COL] = 1;
}

static cg_kernel *load(const rows *r) {
  cg_ksrc s;
  cg_error e;
  cg_kernel *k;
  s.file = "t.c", s.nname = r->nn, s.names = r->names, s.nfunc = 1, s.nsym = r->ns;
  s.nexpr = r->ne, s.nstmt = r->nst, s.nlist = r->nl, s.narg = 0, s.ndconst = 0;
  s.func = r->func, s.sym = r->sym, s.expr = r->expr, s.stmt = r->stmt, s.list = r->list;
  s.args = NULL, s.dconst = r->dconst;
  k = cg_kernel_load(NULL, &s, &e);
  if (!k) fprintf(stderr, "load: %s\n", e.msg);
  return k;
}

/* }==== */

/* void fig1(double x, double *a, double *b, double *f) {
 *   a[0] = cos(x);  b[0] = sin(x);  f[0] = a[0] * b[0];   statements 0, 1, 2 } */
static cg_kernel *fig1(int32_t *ua, int32_t *ub) {
  rows r;
  int32_t x, a, b, f, s0, s1, s2;
  open_func(&r, "fig1");
  x = add_sym(&r, "x", CG_KS_PARAM, CG_KT_DOUBLE, 0);
  a = add_sym(&r, "a", CG_KS_PARAM, CG_KT_DOUBLE, 1);
  b = add_sym(&r, "b", CG_KS_PARAM, CG_KT_DOUBLE, 1);
  f = add_sym(&r, "f", CG_KS_PARAM, CG_KT_DOUBLE, 1);
  s0 = add_st(&r, CG_KST_ASSIGN, 0, cell(&r, a, ci(&r, 0)),
              add_ex(&r, CG_KE_INTRIN, CG_KT_DOUBLE, var(&r, x, CG_KT_DOUBLE), -1, CG_KI_COS, 0), -1, -1, -1);
  s1 = add_st(&r, CG_KST_ASSIGN, 0, cell(&r, b, ci(&r, 0)),
              add_ex(&r, CG_KE_INTRIN, CG_KT_DOUBLE, var(&r, x, CG_KT_DOUBLE), -1, CG_KI_SIN, 0), -1, -1, -1);
  *ua = cell(&r, a, ci(&r, 0)), *ub = cell(&r, b, ci(&r, 0));
  s2 = add_st(&r, CG_KST_ASSIGN, 0, cell(&r, f, ci(&r, 0)), add_ex(&r, CG_KE_MUL, CG_KT_DOUBLE, *ua, *ub, -1, 0),
              -1, -1, -1);
  r.list[0] = s0, r.list[1] = s1, r.list[2] = s2, r.nl = 3;
  r.func[CG_KFUNC_BODY] = 0, r.func[CG_KFUNC_NBODY] = 3;
  return load(&r);
}

/* void lp(double *a, int n, double x) { int i;
 *   i = 1;                                  statement 0
 *   for (; i < n; i = i + 1)               statement 3 (step: statement 2)
 *     a[i] = a[i - 1] + x;                  statement 1 } */
static cg_kernel *loop_kernel(int32_t *use) {
  rows r;
  int32_t a, n, x, i, s0, s1, s2, s3;
  open_func(&r, "lp");
  a = add_sym(&r, "a", CG_KS_PARAM, CG_KT_DOUBLE, 1);
  n = add_sym(&r, "n", CG_KS_PARAM, CG_KT_INT, 0);
  x = add_sym(&r, "x", CG_KS_PARAM, CG_KT_DOUBLE, 0);
  i = add_sym(&r, "i", CG_KS_LOCAL, CG_KT_INT, 0);
  s0 = add_st(&r, CG_KST_ASSIGN, 0, var(&r, i, CG_KT_INT), ci(&r, 1), -1, -1, -1);
  *use = cell(&r, a, add_ex(&r, CG_KE_SUB, CG_KT_INT, var(&r, i, CG_KT_INT), ci(&r, 1), -1, 0));
  s1 = add_st(&r, CG_KST_ASSIGN, 0, cell(&r, a, var(&r, i, CG_KT_INT)),
              add_ex(&r, CG_KE_ADD, CG_KT_DOUBLE, *use, var(&r, x, CG_KT_DOUBLE), -1, 0), -1, -1, -1);
  s2 = add_st(&r, CG_KST_ASSIGN, 0, var(&r, i, CG_KT_INT),
              add_ex(&r, CG_KE_ADD, CG_KT_INT, var(&r, i, CG_KT_INT), ci(&r, 1), -1, 0), -1, -1, -1);
  r.list[0] = s1, r.list[1] = s2;
  s3 = add_st(&r, CG_KST_LOOP, CG_KL_FOR,
              add_ex(&r, CG_KE_LT, CG_KT_INT, var(&r, i, CG_KT_INT), var(&r, n, CG_KT_INT), -1, 0), 0, 1, 1, 1);
  r.list[2] = s0, r.list[3] = s3, r.nl = 4;
  r.func[CG_KFUNC_BODY] = 2, r.func[CG_KFUNC_NBODY] = 2;
  return load(&r);
}

/* The access of expression x with kind kind, or -1. */
static int32_t access_of(const cg_kalias *al, int32_t x, int kind) {
  uint32_t a;
  for (a = 0; a < al->nacc; a++)
    if (al->acc_expr[a] == x && al->acc_kind[a] == kind) return (int32_t)a;
  return -1;
}

/* Whether the ud-chain of access a is exactly want[0..n). */
static int ud_is(const cg_kchains *ch, int32_t a, const int32_t *want, uint32_t n) {
  uint32_t i;
  if (a < 0 || ch->ud_off[a + 1] - ch->ud_off[a] != n) return 0;
  for (i = 0; i < n; i++)
    if (ch->ud[ch->ud_off[a] + i] != want[i]) return 0;
  return 1;
}

/* A researcher who says the may pairs never meet; counts the questions. */
static int say_no(void *ud, const cg_kalias *al, uint32_t s1, uint32_t s2, cg_error *e) {
  (void)al, (void)e;
  ++*(int *)ud;
  return s1 < s2 ? CG_KREL_NO : -1;
}

static void test_fig1(void) {
  int32_t ua, ub;
  cg_kernel *k = fig1(&ua, &ub);
  cg_error e;
  cg_kassume apart = {1, 2, 0}, same = {1, 2, 1};
  cg_kalias *al;
  cg_kchains *ch;
  cg_kactive *ac;
  CHECK(k != NULL);
  if (!k) return;
  al = cg_kalias_run(NULL, k, 0, NULL, 0, &e);
  ch = al ? cg_kchains_run(NULL, al, &e) : NULL;
  CHECK(al && ch);
  if (al && ch) {
    int32_t a = access_of(al, ua, CG_KA_USE), b = access_of(al, ub, CG_KA_USE);
    CHECK(cg_kalias_relation(al, (uint32_t)al->acc_set[a], (uint32_t)al->acc_set[b]) == CG_KREL_MAY);
    CHECK(ud_is(ch, a, (const int32_t[]){0, 1}, 2)); /* statement 1 may overwrite *a */
    CHECK(ud_is(ch, b, (const int32_t[]){1}, 1));    /* and must overwrite *b */
    ac = cg_kactive_run(NULL, al, ch, NULL, 0, NULL, 0, -1, &e);
    CHECK(ac && ac->active[0] && ac->active[1] && ac->active[2]);
    cg_kactive_free(ac);
  }
  cg_kchains_free(ch), cg_kalias_free(al);
  al = cg_kalias_run(NULL, k, 0, &apart, 1, &e);
  ch = al ? cg_kchains_run(NULL, al, &e) : NULL;
  CHECK(al && ch && ud_is(ch, access_of(al, ua, CG_KA_USE), (const int32_t[]){0}, 1));
  cg_kchains_free(ch), cg_kalias_free(al);
  al = cg_kalias_run(NULL, k, 0, &same, 1, &e);
  ch = al ? cg_kchains_run(NULL, al, &e) : NULL;
  CHECK(al && ch && ud_is(ch, access_of(al, ua, CG_KA_USE), (const int32_t[]){1}, 1));
  CHECK(al && al->acc_set[access_of(al, ua, CG_KA_USE)] == al->acc_set[access_of(al, ub, CG_KA_USE)]);
  cg_kchains_free(ch), cg_kalias_free(al);
  al = cg_kalias_run(NULL, k, 0, NULL, 0, &e);
  {
    int asked = 0;
    CHECK(al && cg_kalias_override_all(al, say_no, &asked, &e) == CG_OK);
    CHECK(asked == 3 && al && al->nover == 3); /* a-b, a-f, b-f */
    ch = al ? cg_kchains_run(NULL, al, &e) : NULL;
    CHECK(ch && ud_is(ch, access_of(al, ua, CG_KA_USE), (const int32_t[]){0}, 1));
    cg_kchains_free(ch);
  }
  cg_kalias_free(al);
  same.b = 0; /* x is no pointer */
  CHECK(cg_kalias_run(NULL, k, 0, &same, 1, &e) == NULL && e.code == CG_EUSAGE);
  CHECK(cg_kalias_run(NULL, k, 3, NULL, 0, &e) == NULL && e.code == CG_EUSAGE);
  cg_kernel_free(k);
}

static void test_loop(void) {
  int32_t use;
  cg_kernel *k = loop_kernel(&use);
  cg_error e;
  cg_kalias *al;
  cg_kchains *ch;
  CHECK(k != NULL);
  if (!k) return;
  al = cg_kalias_run(NULL, k, 0, NULL, 0, &e);
  ch = al ? cg_kchains_run(NULL, al, &e) : NULL;
  /* a[i] of one iteration is a[i-1] of the next: statement 1 and outside */
  CHECK(al && ch && ud_is(ch, access_of(al, use, CG_KA_USE), (const int32_t[]){-1, 1}, 2));
  CHECK(ch && ch->passes == 2); /* the header state is stable after the second pass */
  cg_kchains_free(ch), cg_kalias_free(al);
  cg_kernel_free(k);
}

/* Every allocation of the three analyses fails in turn: NULL and CG_ENOMEM,
 * nothing left allocated; then a run that fails nothing. */
static void test_oom(void) {
  int32_t ua, ub;
  cg_kernel *k = fig1(&ua, &ub);
  long at;
  int done = 0, bad = 0;
  if (!k) return;
  for (at = 1; !done && at < 100000; at++) {
    counting c = {0, 0, 0};
    cg_alloc A = {counting_alloc, &c};
    cg_error e;
    cg_kalias *al;
    cg_kchains *ch = NULL;
    cg_kactive *ac = NULL;
    c.fail_at = at;
    int asked = 0;
    al = cg_kalias_run(&A, k, 0, NULL, 0, &e);
    if (al && cg_kalias_override_all(al, say_no, &asked, &e)) cg_kalias_free(al), al = NULL;
    if (al) ch = cg_kchains_run(&A, al, &e);
    if (ch) ac = cg_kactive_run(&A, al, ch, NULL, 0, NULL, 0, -1, &e);
    if (!ac && e.code != CG_ENOMEM) bad++;
    done = ac != NULL && c.calls < at;
    cg_kactive_free(ac), cg_kchains_free(ch), cg_kalias_free(al);
    if (c.live != 0) bad++;
  }
  CHECK(done);
  CHECK(bad == 0);
  CHECK(at > 20); /* the analyses do allocate: the loop saw failures */
  cg_kernel_free(k);
}

int main(void) {
  test_fig1();
  test_loop();
  test_oom();
  return check_report("test_kalias");
}
