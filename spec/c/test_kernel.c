/* test_kernel.c: the kernels' intermediate form in C (csrc/kernel): the
 * loader accepts a hand-written kernel and fills the derived arrays, and
 * refuses each broken invariant with a message naming table, row and
 * field; the control flow graph of the same kernel, vertex by vertex; the
 * interpreter on it; a kernel that allocates (ALLOC, FREE, its heap site)
 * loaded, run, its broken rows refused, a double free reported; and every allocation of load, graph and run failing
 * in turn (CG_ENOMEM, nothing leaked).  Prints "N passed, N failed". */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel/cg_kcfg.h"
#include "kernel/cg_kinterp.h"
#include "check.h"

/* {==== rows by hand ====} */

#define MAXR 2100
typedef struct kb {
  int32_t func[4 * CG_KFUNC_W], sym[32 * CG_KSYM_W], expr[MAXR * CG_KEXPR_W];
  int32_t stmt[64 * CG_KSTMT_W], list[64], args[16];
  double dconst[16];
  const char *names[40];
  uint32_t nf, ns, ne, nst, nl, na, nd, nn;
} kb;

static int32_t name(kb *b, const char *s) { b->names[b->nn] = s; return (int32_t)b->nn++; }

static int32_t sym(kb *b, const char *nm, int32_t f, int kind, int base, int ptr, int ndim, int dim0,
                   int qual) {
  int32_t *r = b->sym + b->ns * CG_KSYM_W;
  r[CG_KSYM_NAME] = name(b, nm), r[CG_KSYM_FUNC] = f, r[CG_KSYM_KIND] = kind, r[CG_KSYM_BASE] = base;
  r[CG_KSYM_PTR] = ptr, r[CG_KSYM_NDIM] = ndim, r[CG_KSYM_DIM0] = dim0, r[CG_KSYM_DIM1] = 0, r[CG_KSYM_DIM2] = 0;
  r[CG_KSYM_QUAL] = qual, r[CG_KSYM_INIT] = -1, r[CG_KSYM_NINIT] = 0, r[CG_KSYM_LINE] = 1, r[CG_KSYM_COL] = 1;
  if (f >= 0) b->func[f * CG_KFUNC_W + CG_KFUNC_NSYM]++;
  if (kind == CG_KS_PARAM) b->func[f * CG_KFUNC_W + CG_KFUNC_NPARAM]++;
  return (int32_t)b->ns++;
}

static int32_t ex(kb *b, int op, int type, int32_t a, int32_t bb, int32_t s, int32_t ival, int line) {
  int32_t *r = b->expr + b->ne * CG_KEXPR_W;
  r[CG_KEXPR_OP] = op, r[CG_KEXPR_TYPE] = type, r[CG_KEXPR_A] = a, r[CG_KEXPR_B] = bb;
  r[CG_KEXPR_C] = -1, r[CG_KEXPR_SYM] = s, r[CG_KEXPR_IVAL] = ival;
  r[CG_KEXPR_LINE] = line, r[CG_KEXPR_COL] = 3;
  return (int32_t)b->ne++;
}
static int32_t cd(kb *b, double v, int line) {
  b->dconst[b->nd] = v;
  return ex(b, CG_KE_CONST_D, CG_KT_DOUBLE, -1, -1, -1, (int32_t)b->nd++, line);
}

static int32_t st(kb *b, int kind, int32_t f, int flags, int line, const int32_t x[7]) {
  int32_t *r = b->stmt + b->nst * CG_KSTMT_W;
  int i;
  r[CG_KSTMT_KIND] = kind, r[CG_KSTMT_FUNC] = f, r[CG_KSTMT_LINE] = line, r[CG_KSTMT_COL] = 3;
  r[CG_KSTMT_PRAGMA] = -1, r[CG_KSTMT_FLAGS] = flags;
  for (i = 0; i < 7; i++) r[CG_KSTMT_X0 + i] = x[i];
  return (int32_t)b->nst++;
}
#define X7(...) ((const int32_t[7]){__VA_ARGS__})

/* A slice of list[] holding n statements. */
static int32_t slice(kb *b, int n, ...) {
  int32_t start = (int32_t)b->nl;
  va_list ap;
  va_start(ap, n);
  while (n-- > 0) b->list[b->nl++] = va_arg(ap, int32_t);
  va_end(ap);
  return start;
}

static int32_t func(kb *b, const char *nm, int ret) {
  int32_t *r = b->func + b->nf * CG_KFUNC_W;
  r[CG_KFUNC_NAME] = name(b, nm), r[CG_KFUNC_RET] = ret, r[CG_KFUNC_SYM0] = (int32_t)b->ns;
  r[CG_KFUNC_NSYM] = r[CG_KFUNC_NPARAM] = 0, r[CG_KFUNC_BODY] = -1, r[CG_KFUNC_NBODY] = 0;
  r[CG_KFUNC_LINE] = r[CG_KFUNC_COL] = 1;
  return (int32_t)b->nf++;
}

static cg_ksrc src_of(const kb *b) {
  cg_ksrc s;
  s.file = "t.c", s.nname = b->nn, s.names = b->names;
  s.nfunc = b->nf, s.nsym = b->ns, s.nexpr = b->ne, s.nstmt = b->nst, s.nlist = b->nl;
  s.narg = b->na, s.ndconst = b->nd;
  s.func = b->func, s.sym = b->sym, s.expr = b->expr, s.stmt = b->stmt, s.list = b->list;
  s.args = b->args, s.dconst = b->dconst;
  return s;
}

/* }==== */

/* The kernel of the tests (ids in the comments):
 *   double f(double *y, const double *x, int n) {      func 0, syms 0-4
 *     int i; double s;
 *     s = 0.0;                                   st 0 (line 2)
 *     i = 0;                                     st 1 (line 3)
 *     for (; i < n; i = i + 1) {                 st 2 loop, step st 7
 *       if (x[i] > 1.5) continue;                st 3 if, st 4 continue
 *       s = s + x[i];                            st 5 (line 5)
 *       y[i] = sin(s);                           st 6 (line 6)
 *     }
 *     return s;                                  st 8 (line 8)
 *   }
 *   void g(double *z) { t = f(z, z, 2); z[2] = t; }   func 1: st 9 call, st 10
 */
typedef struct ids {
  int32_t add_s, sin_x, s5, loop, cont, call, x_elem_cond, ret_var, y_param;
} ids;

static void build(kb *b, ids *I) {
  int32_t f, g, y, x, n, i, s, z, t, e1, e2, body, step, thenl, fb, gb, a0;
  memset(b, 0, sizeof *b);
  f = func(b, "f", CG_KT_DOUBLE);
  y = sym(b, "y", f, CG_KS_PARAM, CG_KT_DOUBLE, 1, 0, 0, 0);
  x = sym(b, "x", f, CG_KS_PARAM, CG_KT_DOUBLE, 1, 0, 0, CG_KQ_CONST);
  n = sym(b, "n", f, CG_KS_PARAM, CG_KT_INT, 0, 0, 0, 0);
  i = sym(b, "i", f, CG_KS_LOCAL, CG_KT_INT, 0, 0, 0, 0);
  s = sym(b, "s", f, CG_KS_LOCAL, CG_KT_DOUBLE, 0, 0, 0, 0);
  I->y_param = y;
  st(b, CG_KST_ASSIGN, f, 0, 2, X7(ex(b, CG_KE_VAR, CG_KT_DOUBLE, -1, -1, s, 0, 2), cd(b, 0.0, 2), -1, -1, -1, -1, -1));
  st(b, CG_KST_ASSIGN, f, 0, 3, X7(ex(b, CG_KE_VAR, CG_KT_INT, -1, -1, i, 0, 3), ex(b, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, 0, 3), -1, -1, -1, -1, -1));
  /* the loop's parts first, the loop row after (st 2 must be the loop:
   * rows are made in the order below, so the ids follow the comment) */
  b->nst = 2 + 1; /* st 2 reserved for the loop */
  I->x_elem_cond = ex(b, CG_KE_ELEM, CG_KT_DOUBLE, ex(b, CG_KE_VAR, CG_KT_INT, -1, -1, i, 0, 4), -1, x, 0, 4);
  e1 = ex(b, CG_KE_GT, CG_KT_INT, I->x_elem_cond, cd(b, 1.5, 4), -1, 0, 4);
  I->cont = 4;
  b->nst = 4;
  st(b, CG_KST_CONTINUE, f, 0, 4, X7(-1, -1, -1, -1, -1, -1, -1));
  thenl = slice(b, 1, (int32_t)4);
  b->nst = 3;
  st(b, CG_KST_IF, f, 0, 4, X7(e1, thenl, 1, -1, 0, -1, 0));
  b->nst = 5;
  I->add_s = ex(b, CG_KE_ADD, CG_KT_DOUBLE, ex(b, CG_KE_VAR, CG_KT_DOUBLE, -1, -1, s, 0, 5),
                ex(b, CG_KE_ELEM, CG_KT_DOUBLE, ex(b, CG_KE_VAR, CG_KT_INT, -1, -1, i, 0, 5), -1, x, 0, 5), -1, 0, 5);
  I->s5 = st(b, CG_KST_ASSIGN, f, 0, 5, X7(ex(b, CG_KE_VAR, CG_KT_DOUBLE, -1, -1, s, 0, 5), I->add_s, -1, -1, -1, -1, -1));
  I->sin_x = ex(b, CG_KE_INTRIN, CG_KT_DOUBLE, ex(b, CG_KE_VAR, CG_KT_DOUBLE, -1, -1, s, 0, 6), -1, CG_KI_SIN, 0, 6);
  st(b, CG_KST_ASSIGN, f, 0, 6, X7(ex(b, CG_KE_ELEM, CG_KT_DOUBLE, ex(b, CG_KE_VAR, CG_KT_INT, -1, -1, i, 0, 6), -1, y, 0, 6), I->sin_x, -1, -1, -1, -1, -1));
  st(b, CG_KST_ASSIGN, f, 0, 4, X7(ex(b, CG_KE_VAR, CG_KT_INT, -1, -1, i, 0, 4),
                                   ex(b, CG_KE_ADD, CG_KT_INT, ex(b, CG_KE_VAR, CG_KT_INT, -1, -1, i, 0, 4), ex(b, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, 1, 4), -1, 0, 4), -1, -1, -1, -1, -1));
  body = slice(b, 3, (int32_t)3, (int32_t)5, (int32_t)6);
  step = slice(b, 1, (int32_t)7);
  e2 = ex(b, CG_KE_LT, CG_KT_INT, ex(b, CG_KE_VAR, CG_KT_INT, -1, -1, i, 0, 4), ex(b, CG_KE_VAR, CG_KT_INT, -1, -1, n, 0, 4), -1, 0, 4);
  b->nst = 2;
  I->loop = st(b, CG_KST_LOOP, f, CG_KL_FOR, 4, X7(e2, body, 3, step, 1, -1, 0));
  b->nst = 8;
  I->ret_var = ex(b, CG_KE_VAR, CG_KT_DOUBLE, -1, -1, s, 0, 8);
  st(b, CG_KST_RETURN, f, 0, 8, X7(I->ret_var, -1, -1, -1, -1, -1, -1));
  fb = slice(b, 4, (int32_t)0, (int32_t)1, (int32_t)2, (int32_t)8);
  b->func[f * CG_KFUNC_W + CG_KFUNC_BODY] = fb, b->func[f * CG_KFUNC_W + CG_KFUNC_NBODY] = 4;
  g = func(b, "g", CG_KT_VOID);
  z = sym(b, "z", g, CG_KS_PARAM, CG_KT_DOUBLE, 1, 0, 0, 0);
  t = sym(b, "t", g, CG_KS_LOCAL, CG_KT_DOUBLE, 0, 0, 0, 0);
  a0 = (int32_t)b->na;
  b->args[b->na++] = ex(b, CG_KE_VAR, CG_KT_PDOUBLE, -1, -1, z, 0, 9);
  b->args[b->na++] = ex(b, CG_KE_VAR, CG_KT_PDOUBLE, -1, -1, z, 0, 9);
  b->args[b->na++] = ex(b, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, 2, 9);
  I->call = st(b, CG_KST_CALL, g, 0, 9, X7(f, a0, 3, ex(b, CG_KE_VAR, CG_KT_DOUBLE, -1, -1, t, 0, 9), -1, -1, -1));
  st(b, CG_KST_ASSIGN, g, 0, 10, X7(ex(b, CG_KE_ELEM, CG_KT_DOUBLE, ex(b, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, 2, 10), -1, z, 0, 10),
                                    ex(b, CG_KE_VAR, CG_KT_DOUBLE, -1, -1, t, 0, 10), -1, -1, -1, -1, -1));
  gb = slice(b, 2, (int32_t)9, (int32_t)10);
  b->func[g * CG_KFUNC_W + CG_KFUNC_BODY] = gb, b->func[g * CG_KFUNC_W + CG_KFUNC_NBODY] = 2;
}

/* {==== the loader ====} */

static void test_loads(void) {
  kb b;
  ids I;
  cg_ksrc s;
  cg_error e;
  cg_kernel *k;
  build(&b, &I);
  s = src_of(&b);
  k = cg_kernel_load(NULL, &s, &e);
  CHECK(k != NULL);
  if (!k) {
    fprintf(stderr, "test_kernel: %s\n", e.msg);
    return;
  }
  CHECK(k->expr_stmt[I.add_s] == I.s5);
  CHECK(k->expr_parent[CG_KEXPR(k, I.add_s, A)] == I.add_s);
  CHECK(k->expr_parent[I.add_s] == -1);
  CHECK(k->stmt_parent[4] == 3 && k->stmt_parent[3] == I.loop && k->stmt_parent[0] == -1);
  CHECK(k->stmt_loop[4] == I.loop && k->stmt_loop[5] == -1);
  CHECK(k->expr_stmt[b.args[0]] == I.call);
  CHECK(cg_kernel_find(k, "g") == 1 && cg_kernel_find(k, "h") == -1);
  CHECK(cg_ksym_type(k, I.y_param) == CG_KT_PDOUBLE);
  b.names[0] = "changed"; /* the kernel holds copies */
  CHECK(!strcmp(k->names[0], "f"));
  cg_kernel_free(k);
}

/* One broken field and the message it must give. */
typedef struct breakage {
  const char *what;
  int table; /* 0 func, 1 sym, 2 expr, 3 stmt, 4 list, 5 args */
  int row, field, value;
  const char *msg;
} breakage;

static int32_t *cell_of(kb *b, int table, int row, int field) {
  switch (table) {
    case 0: return &b->func[row * CG_KFUNC_W + field];
    case 1: return &b->sym[row * CG_KSYM_W + field];
    case 2: return &b->expr[row * CG_KEXPR_W + field];
    case 3: return &b->stmt[row * CG_KSTMT_W + field];
    case 4: return &b->list[row];
    default: return &b->args[row];
  }
}

static void expect_refused(kb *b, const char *what, const char *msg) {
  cg_ksrc s = src_of(b);
  cg_error e;
  cg_kernel *k = cg_kernel_load(NULL, &s, &e);
  CHECK(k == NULL);
  if (k) {
    fprintf(stderr, "test_kernel: %s: loaded\n", what);
    cg_kernel_free(k);
    return;
  }
  CHECK(e.code == CG_EFORMAT && strstr(e.msg, msg) && !strncmp(e.msg, "t.c: kernel form: ", 18));
  if (!strstr(e.msg, msg)) fprintf(stderr, "test_kernel: %s: '%s' lacks '%s'\n", what, e.msg, msg);
}

static void test_refuses(void) {
  kb b;
  ids I;
  size_t i;
  build(&b, &I);
  {
    const breakage B[] = {
        {"operand out of range", 2, I.add_s, CG_KEXPR_A, 9999, "operand 9999 out of range"},
        {"shared operand", 2, I.add_s, CG_KEXPR_B, I.sin_x, "a second parent"},
        {"self parent", 2, I.sin_x, CG_KEXPR_A, I.sin_x, "a second parent"},
        {"wrong type", 2, I.add_s, CG_KEXPR_TYPE, CG_KT_INT, "add of type int"},
        {"unknown operator", 2, I.add_s, CG_KEXPR_OP, 99, "operator 99"},
        {"unknown kind", 3, 0, CG_KSTMT_KIND, 77, "stmt 0: kind 77"},
        {"break outside a loop", 3, 0, CG_KSTMT_KIND, CG_KST_BREAK, "break outside a loop body"},
        {"statement twice", 4, 1, 0, 0, "stmt 0: in two body slices"},
        {"argument count", 3, I.call, CG_KSTMT_X2, 2, "2 arguments to f, which takes 3"},
        {"argument type", 5, 2, 0, I.ret_var, "a second parent"},
        {"lhs kind", 2, CG_KSTMT(&(cg_kernel){.stmt = b.stmt}, 0, X0), CG_KEXPR_OP, CG_KE_CONST_D,
         "is a const_d, not a var or elem"},
        {"function name", 0, 0, CG_KFUNC_NAME, 99, "func 0: name 99 out of range"},
        {"symbol's function", 1, 4, CG_KSYM_FUNC, 1, "sym 4: in the symbols of func 0 but its func is 1"},
        {"restrict on a scalar", 1, 2, CG_KSYM_QUAL, CG_KQ_RESTRICT, "restrict on a non-pointer"},
        {"body out of range", 0, 1, CG_KFUNC_NBODY, 99, "body"},
        {"line 0", 3, 5, CG_KSTMT_LINE, 0, "position 0:3"},
        {"intrinsic arity", 2, I.sin_x, CG_KEXPR_B, 0, "sin takes 1 argument"},
        {"loop flags", 3, 2, CG_KSTMT_FLAGS, 5, "loop flags 5"},
        {"void return value", 0, 0, CG_KFUNC_RET, CG_KT_VOID, "returns a value from a void func"},
        {"pointer param as value", 1, 0, CG_KSYM_PTR, 0, "subscript of a scalar"},
        {"var of the wrong type", 2, I.ret_var, CG_KEXPR_TYPE, CG_KT_INT, "type int, but sym 4 gives double"},
        {"write through const", 1, 0, CG_KSYM_QUAL, CG_KQ_CONST, "a pointer to const"},
        {"duplicate function name", 0, 1, CG_KFUNC_NAME, 0, "func 1: name 'f' is func 0's too"},
        {"a local as parameter", 1, 3, CG_KSYM_KIND, CG_KS_PARAM, "sym 3: kind 0, but it is not a parameter"},
        {"pragma", 3, 0, CG_KSTMT_PRAGMA, 99, "stmt 0: pragma 99 out of range"},
        {"return type", 0, 0, CG_KFUNC_RET, CG_KT_INT, "returns double from a func returning int"},
        {"another function's statement", 3, 0, CG_KSTMT_FUNC, 1, "stmt 0: of func 1 in a body of func 0"},
        {"dims", 1, 3, CG_KSYM_NDIM, 4, "sym 3: ndim 4"},
        {"dim2 of a scalar", 1, 3, CG_KSYM_DIM2, 5, "sym 3: dim2 5 with 0 dims"},
        {"base", 1, 3, CG_KSYM_BASE, CG_KT_VOID, "sym 3: base 0 is not int or double"},
        {"initializer on a local", 1, 3, CG_KSYM_NINIT, 1, "sym 3: an initializer on a non-global"},
        {"argument slice", 3, I.call, CG_KSTMT_X1, 7, "arguments 7+3 out of range"},
        {"callee", 3, I.call, CG_KSTMT_X0, 5, "callee 5 out of range"},
        {"list entry", 4, 0, 0, 99, "list 0: statement 99 out of range"},
        {"constant", 2, 1, CG_KEXPR_IVAL, 99, "expr 1: constant 99 out of range"},
        {"symbol", 2, 0, CG_KEXPR_SYM, 99, "expr 0: symbol 99 out of range"},
        {"a statement in two slices", 4, 8, 0, 4, "stmt 4: in two body slices"},
        {"subscript type", 2, CG_KEXPR(&(cg_kernel){.expr = b.expr}, I.x_elem_cond, A), CG_KEXPR_TYPE,
         CG_KT_DOUBLE, "type double, but sym 3 gives int"},
    };
    for (i = 0; i < sizeof B / sizeof B[0]; i++) {
      int32_t *c = cell_of(&b, B[i].table, B[i].row, B[i].field), old = *c;
      *c = B[i].value;
      expect_refused(&b, B[i].what, B[i].msg);
      *c = old;
    }
  }
  { /* the continue in the step slice, the step's assignment in the then slice */
    build(&b, &I);
    b.list[0] = 7, b.list[4] = 4;
    expect_refused(&b, "continue in a step", "stmt 4: a continue in a loop's pre or step slice");
  }
  { /* a global written */
    build(&b, &I);
    b.sym[4 * CG_KSYM_W + CG_KSYM_KIND] = CG_KS_GLOBAL;
    b.sym[4 * CG_KSYM_W + CG_KSYM_FUNC] = -1;
    b.func[CG_KFUNC_NSYM] = 4; /* s leaves f's symbols */
    expect_refused(&b, "global written", "writes global sym 4");
  }
  { /* expressions nested too deep: -(-(...(s)...)) */
    int32_t x, d;
    build(&b, &I);
    x = ex(&b, CG_KE_VAR, CG_KT_DOUBLE, -1, -1, 4, 0, 8);
    for (d = 0; d < CG_KMAX_DEPTH; d++) x = ex(&b, CG_KE_NEG, CG_KT_DOUBLE, x, -1, -1, 0, 8);
    b.stmt[8 * CG_KSTMT_W + CG_KSTMT_X0] = x;
    b.expr[I.ret_var * CG_KEXPR_W + CG_KEXPR_OP] = CG_KE_VAR;
    expect_refused(&b, "depth", "nested deeper than 2000");
  }
  { /* two expressions parent to each other, under no statement */
    build(&b, &I);
    ex(&b, CG_KE_NEG, CG_KT_DOUBLE, (int32_t)b.ne + 1, -1, -1, 0, 1);
    ex(&b, CG_KE_NEG, CG_KT_DOUBLE, (int32_t)b.ne - 1, -1, -1, 0, 1);
    expect_refused(&b, "cycle", "under no statement");
  }
}

/* }==== */

/* {==== control flow ====} */

static void test_cfg(void) {
  static const uint8_t kinds[] = {CG_KV_ENTRY, CG_KV_BLOCK, CG_KV_LOOP,  CG_KV_BRANCH,
                                  CG_KV_BLOCK, CG_KV_ENDBRANCH, CG_KV_BLOCK, CG_KV_BLOCK,
                                  CG_KV_ENDLOOP, CG_KV_BLOCK, CG_KV_EXIT};
  /* successors, -1 ending each vertex's list */
  static const int succ[] = {1, -1, 2, -1, 3, 8, -1, 4, 5, -1, 7, -1, 6, -1, 7, -1, 2, -1, 9, -1, 10, -1, -1};
  kb b;
  ids I;
  cg_ksrc s;
  cg_error e;
  cg_kernel *k;
  cg_kcfg *g;
  uint32_t v, j;
  int at = 0, same = 1;
  build(&b, &I);
  s = src_of(&b);
  k = cg_kernel_load(NULL, &s, &e);
  g = k ? cg_kcfg_build(NULL, k, 0, &e) : NULL;
  CHECK(g != NULL);
  if (!g) return;
  CHECK(g->nv == sizeof kinds);
  for (v = 0; v < g->nv && v < sizeof kinds; v++) {
    same &= g->kind[v] == kinds[v];
    for (j = g->succ_start[v]; j < g->succ_start[v + 1]; j++) same &= succ[at++] == (int)g->succ[j];
    same &= succ[at++] == -1;
  }
  CHECK(same);
  CHECK(g->bst_start[2] - g->bst_start[1] == 2 && g->bst[g->bst_start[1]] == 0);
  CHECK(g->stmt_vertex[4] == 4 && g->stmt_vertex[I.loop] == 2 && g->stmt_vertex[I.call] == -1);
  CHECK(g->pred_start[8] - g->pred_start[7] == 2); /* step block: after the body and the continue */
  cg_kcfg_free(g);
  cg_kernel_free(k);
}

/* }==== */

/* {==== the interpreter ====} */

static int run_g(cg_alloc *A, const cg_kernel *k, uint32_t ndir, cg_kresult *r, cg_error *e,
                 long *ntrace);
static void count_trace(void *ud, const cg_kaccess *a) { (void)a, (*(long *)ud)++; }

static int run_g(cg_alloc *A, const cg_kernel *k, uint32_t ndir, cg_kresult *r, cg_error *e,
                 long *ntrace) {
  static const double z[4] = {0.5, 2.0, 9.0, 9.0};
  static const double seed[8] = {1, 0, 0, 1, 0, 0, 0, 0};
  const double *seeds[1] = {seed};
  cg_karray arr = {"Z", CG_KT_DOUBLE, 4, z, NULL};
  cg_karg arg;
  cg_kcall c;
  memset(&c, 0, sizeof c);
  memset(&arg, 0, sizeof arg);
  arg.kind = CG_KARG_PTR, arg.array = 0, arg.offset = 0;
  c.func = 1, c.narray = 1, c.arrays = &arr, c.narg = 1, c.args = &arg, c.ndir = ndir;
  c.seed_arrays = ndir ? seeds : NULL;
  c.trace = count_trace, c.trace_ud = ntrace;
  return cg_kinterp_run(A, k, &c, r, e);
}

static void test_interp(void) {
  kb b;
  ids I;
  cg_ksrc s;
  cg_error e;
  cg_kresult r;
  cg_kernel *k;
  long nt = 0;
  build(&b, &I);
  s = src_of(&b);
  k = cg_kernel_load(NULL, &s, &e);
  if (!k) return;
  CHECK(run_g(NULL, k, 2, &r, &e, &nt) == CG_OK);
  /* f(z, z, 2): s = z[0]; z[0] = sin(s); z[1] > 1.5: continue; then z[2] = s */
  CHECK(r.values[0][0] == sin(0.5) && r.values[0][1] == 2.0 && r.values[0][2] == 0.5 && r.values[0][3] == 9.0);
  CHECK(r.tangents[0][0] == cos(0.5) && r.tangents[0][1] == 0 && r.tangents[0][4] == 1.0);
  CHECK(r.acc[0][0] == (CG_KACC_READ | CG_KACC_WRITTEN) && r.acc[0][2] == CG_KACC_WRITTEN);
  CHECK(nt > 10);
  cg_kresult_free(&r);
  cg_kernel_free(k);
}

/* {==== the heap ====}
 * void h(double *y) { double *p; p = malloc(2 cells); p[0] = y[0]; y[1] = p[0];
 *   free(p); }   (syms 0 y, 1 p, 2 the site p@2; st 0 alloc, 1, 2, 3 free) */
typedef struct hids {
  int32_t site, block, count, alloc, fr, ptr;
} hids;

static void build_heap(kb *b, hids *I) {
  int32_t f, y, p, body;
  memset(b, 0, sizeof *b);
  f = func(b, "h", CG_KT_VOID);
  y = sym(b, "y", f, CG_KS_PARAM, CG_KT_DOUBLE, 1, 0, 0, 0);
  p = sym(b, "p", f, CG_KS_LOCAL, CG_KT_DOUBLE, 1, 0, 0, 0);
  I->site = sym(b, "p@2", f, CG_KS_HEAP, CG_KT_DOUBLE, 0, 1, 0, 0);
  I->count = ex(b, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, 2, 2);
  I->block = ex(b, CG_KE_ADDR, CG_KT_PDOUBLE, -1, -1, I->site, 0, 2);
  I->alloc = st(b, CG_KST_ALLOC, f, 0, 2, X7(ex(b, CG_KE_VAR, CG_KT_PDOUBLE, -1, -1, p, 0, 2), I->count, I->block, -1, -1, -1, -1));
  st(b, CG_KST_ASSIGN, f, 0, 3, X7(ex(b, CG_KE_ELEM, CG_KT_DOUBLE, ex(b, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, 0, 3), -1, p, 0, 3),
                                   ex(b, CG_KE_ELEM, CG_KT_DOUBLE, ex(b, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, 0, 3), -1, y, 0, 3), -1, -1, -1, -1, -1));
  st(b, CG_KST_ASSIGN, f, 0, 4, X7(ex(b, CG_KE_ELEM, CG_KT_DOUBLE, ex(b, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, 1, 4), -1, y, 0, 4),
                                   ex(b, CG_KE_ELEM, CG_KT_DOUBLE, ex(b, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, 0, 4), -1, p, 0, 4), -1, -1, -1, -1, -1));
  I->ptr = ex(b, CG_KE_VAR, CG_KT_PDOUBLE, -1, -1, p, 0, 5);
  I->fr = st(b, CG_KST_FREE, f, 0, 5, X7(I->ptr, -1, -1, -1, -1, -1, -1));
  body = slice(b, 4, (int32_t)0, (int32_t)1, (int32_t)2, (int32_t)3);
  b->func[f * CG_KFUNC_W + CG_KFUNC_BODY] = body, b->func[f * CG_KFUNC_W + CG_KFUNC_NBODY] = 4;
}

/* Runs h on y = {0.5, 9}: its status (y[1] becomes 0.5). */
static int run_h(cg_kernel *k, cg_kresult *r, cg_error *e) {
  static const double y[2] = {0.5, 9.0};
  cg_karray a = {"y", CG_KT_DOUBLE, 2, y, NULL};
  cg_karg arg = {CG_KARG_PTR, 0, 0, 0, 0, 0, NULL, NULL};
  cg_kcall c;
  memset(&c, 0, sizeof c);
  c.func = 0, c.narray = 1, c.arrays = &a, c.narg = 1, c.args = &arg;
  return cg_kinterp_run(NULL, k, &c, r, e);
}

static void test_heap(void) {
  kb b;
  hids I;
  cg_ksrc s;
  cg_error e;
  cg_kresult r;
  cg_kernel *k;
  size_t i;
  build_heap(&b, &I);
  s = src_of(&b);
  k = cg_kernel_load(NULL, &s, &e);
  CHECK(k != NULL);
  if (!k) {
    fprintf(stderr, "test_kernel: heap: %s\n", e.msg);
    return;
  }
  CHECK(run_h(k, &r, &e) == CG_OK && r.values[0][1] == 0.5 && r.leaks == 0);
  cg_kresult_free(&r);
  cg_kernel_free(k);
  {
    const breakage B[] = {
        {"block not an address", 2, 0, CG_KEXPR_OP, CG_KE_VAR, "names heap site"},
        {"count of type double", 2, 0, CG_KEXPR_TYPE, CG_KT_DOUBLE, "const_i of type double"},
        {"alloc flags", 3, 0, CG_KSTMT_FLAGS, 2, "stmt 0: alloc flags 2"},
        {"a site with dims", 1, 2, CG_KSYM_NDIM, 2, "sym 2: a heap site that is not a 1-D block of unknown size"},
        {"a block of ints for doubles", 1, 2, CG_KSYM_BASE, CG_KT_INT, "but sym 2 gives int *"},
        {"flags on a free", 3, 3, CG_KSTMT_FLAGS, 1, "stmt 3: flags 1 on a free"},
    };
    for (i = 0; i < sizeof B / sizeof B[0]; i++) { /* expr rows: 0 the block, else the count */
      int row = B[i].table == 2 && i == 0 ? I.block : B[i].table == 2 ? I.count : B[i].row;
      *cell_of(&b, B[i].table, row, B[i].field) = B[i].value;
      if (i == 0) b.expr[I.block * CG_KEXPR_W + CG_KEXPR_TYPE] = CG_KT_DOUBLE, b.expr[I.block * CG_KEXPR_W + CG_KEXPR_OP] = CG_KE_ELEM,
        b.expr[I.block * CG_KEXPR_W + CG_KEXPR_A] = ex(&b, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, 0, 2);
      expect_refused(&b, B[i].what, i == 0 ? "the block is not the address of a heap site" : B[i].msg);
      build_heap(&b, &I);
    }
  }
  { /* the site named by another expression */
    build_heap(&b, &I);
    b.expr[I.ptr * CG_KEXPR_W + CG_KEXPR_OP] = CG_KE_ADDR, b.expr[I.ptr * CG_KEXPR_W + CG_KEXPR_SYM] = I.site;
    expect_refused(&b, "site elsewhere", "names heap site sym 2 outside its alloc");
  }
  { /* the site of no alloc: the alloc's block is a local's address */
    build_heap(&b, &I);
    b.sym[I.site * CG_KSYM_W + CG_KSYM_KIND] = CG_KS_LOCAL, b.sym[I.site * CG_KSYM_W + CG_KSYM_DIM0] = 2;
    expect_refused(&b, "no site", "the block is not the address of a heap site");
  }
  { /* a double free: the interpreter's error at the second */
    int32_t body;
    build_heap(&b, &I);
    st(&b, CG_KST_FREE, 0, 0, 6, X7(ex(&b, CG_KE_VAR, CG_KT_PDOUBLE, -1, -1, 1, 0, 6), -1, -1, -1, -1, -1, -1));
    body = slice(&b, 5, (int32_t)0, (int32_t)1, (int32_t)2, (int32_t)3, (int32_t)4);
    b.func[CG_KFUNC_BODY] = body, b.func[CG_KFUNC_NBODY] = 5;
    s = src_of(&b);
    k = cg_kernel_load(NULL, &s, &e);
    CHECK(k != NULL);
    if (k) {
      CHECK(run_h(k, &r, &e) == CG_ERUNTIME && strstr(e.msg, "t.c:6:3: double free of p@2 (freed before at line 5)"));
      cg_kresult_free(&r);
      cg_kernel_free(k);
    }
  }
}

/* }==== */

/* {==== out of memory ====} */

/* Fails each allocation of load + graph + a tangent run with a trace in
 * turn: CG_ENOMEM each time, nothing left allocated. */
static void test_oom(void) {
  kb b;
  ids I;
  cg_ksrc s;
  long at, fails = 0, bad = 0, leaks = 0;
  build(&b, &I);
  s = src_of(&b);
  for (at = 1; at < 10000; at++) {
    counting c = {0, at, 0};
    cg_alloc A = {counting_alloc, &c};
    cg_error e;
    cg_kresult r;
    cg_kcfg *g = NULL;
    long nt = 0;
    int rc = CG_OK;
    cg_kernel *k = cg_kernel_load(&A, &s, &e);
    if (!k) rc = e.code;
    if (k && !(g = cg_kcfg_build(&A, k, 0, &e))) rc = e.code;
    if (g) {
      rc = run_g(&A, k, 2, &r, &e, &nt);
      cg_kresult_free(&r);
    }
    cg_kcfg_free(g);
    cg_kernel_free(k);
    if (c.live) leaks++;
    if (rc == CG_OK) break;
    fails++;
    if (rc != CG_ENOMEM || !strstr(e.msg, "out of memory")) bad++;
  }
  CHECK(fails > 30);
  CHECK(bad == 0);
  CHECK(leaks == 0);
  if (bad || leaks) fprintf(stderr, "test_kernel: oom: %ld bad, %ld leaks\n", bad, leaks);
}

/* }==== */

/* Rank 3: x made a pointer parameter `double x[][2][3]`, its cell x[i]
 * lacks two subscripts; a third subscript after a missing second is
 * refused; dims of another rank's fields too. */
static void test_rank3(void) {
  kb b;
  ids I;
  int32_t *xs, *xe;
  build(&b, &I);
  xs = b.sym + 1 * CG_KSYM_W, xe = b.expr + I.x_elem_cond * CG_KEXPR_W;
  xs[CG_KSYM_NDIM] = 3, xs[CG_KSYM_DIM0] = 0, xs[CG_KSYM_DIM1] = 2, xs[CG_KSYM_DIM2] = 3;
  expect_refused(&b, "rank 3, one subscript", "1 subscript of a 3-D array");
  xs[CG_KSYM_DIM2] = 0;
  expect_refused(&b, "rank 3 without dim2", "sym 1: dim2 0 with 3 dims");
  xs[CG_KSYM_NDIM] = 1, xs[CG_KSYM_DIM1] = 0;
  xe[CG_KEXPR_C] = ex(&b, CG_KE_CONST_I, CG_KT_INT, -1, -1, -1, 1, 4); /* its only parent */
  expect_refused(&b, "a third subscript after a missing second", "subscript 3 after a missing one");
}

int main(void) {
  test_loads();
  test_refuses();
  test_rank3();
  test_cfg();
  test_interp();
  test_heap();
  test_oom();
  return check_report("test_kernel");
}
