/* krows.h: a kernel written as rows by hand (Hovland, Norris, Utke & Strout,
 * Fig. 1), shared by the C tests of the flattening and of values at a point:
 * x, y by value, a, b, f pointers; a = cos(x); b = sin(y) * y; f = a * b,
 * each as *p (cell 0).  hovland_fig1(out) also hands back the rows, whose
 * lhs[] and rhs[] name each statement's expressions. */
#ifndef KROWS_H
#define KROWS_H
#include <stdio.h>
#include <string.h>

#include "kernel/cg_kernel.h"

typedef struct krows {
  int32_t func[CG_KFUNC_W], sym[8 * CG_KSYM_W], expr[32 * CG_KEXPR_W];
  int32_t stmt[4 * CG_KSTMT_W], list[4];
  const char *names[8];
  uint32_t ns, ne, nst, nn;
  int32_t lhs[4], rhs[4]; /* the statements' expressions */
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
  r->lhs[r->nst] = lhs, r->rhs[r->nst] = rhs;
  r->list[r->nst] = (int32_t)r->nst;
  r->nst++;
}

static cg_kernel *hovland_fig1(krows *out) {
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
  if (out) *out = r;
  if (!k) fprintf(stderr, "load: %s\n", e.msg);
  return k;
}


#endif
