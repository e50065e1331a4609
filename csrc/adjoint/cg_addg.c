/* cg_addg.c: the data-dependence graph of a kernel function and the
 * legality of adjoining its loops iteration by iteration (Hascoet,
 * Fidanova & Held, sec. 2 and 3); cg_addg.h gives the representation,
 * doc/adjoint-loops.md the rules. */
#include <stdio.h>
#include <string.h>

#include "cg_addg.h"

CG_KKINDS_SEEN(10, 32); /* the statement kinds and expression operators its switches handle */

#define NOLOOP (-1)

/* {==== names ====} */

static const struct { const char *name; unsigned flags; } classes[] = {
#define CG_AC_ROW(id, nm, fl) {nm, fl},
  CG_ACLASSES(CG_AC_ROW)
#undef CG_AC_ROW
};
const char *cg_addg_class_name(int c) { return c >= 0 && c < CG_AC_COUNT ? classes[c].name : NULL; }
unsigned cg_addg_class_flags(int c) { return c >= 0 && c < CG_AC_COUNT ? classes[c].flags : 0u; }
const char *cg_addg_edge_name(int kind) {
  static const char *const n[] = { "flow", "anti", "output" };
  return kind >= 0 && kind < 3 ? n[kind] : NULL;
}
const char *cg_addg_node_name(int kind) {
  static const char *const n[] = { "assign", "call", "cond", "loop" };
  return kind >= 0 && kind < 4 ? n[kind] : NULL;
}

int cg_addg_obj_scalar(const cg_kalias *al, int32_t o) {
  return al->obj_kind[o] == CG_KO_SCALAR && al->obj_cells[o] == 1;
}

/* }==== */

/* {==== expressions and statements ====} */

static int same_expr(const cg_kernel *k, int32_t x, int32_t y) {
  int32_t ox[3], oy[3];
  int n, i;
  if (x < 0 || y < 0) return x == y;
  if (CG_KEXPR(k, x, OP) != CG_KEXPR(k, y, OP) || CG_KEXPR(k, x, TYPE) != CG_KEXPR(k, y, TYPE) ||
      CG_KEXPR(k, x, SYM) != CG_KEXPR(k, y, SYM) || CG_KEXPR(k, x, IVAL) != CG_KEXPR(k, y, IVAL))
    return 0;
  n = cg_kexpr_operands(k, x, ox), cg_kexpr_operands(k, y, oy);
  for (i = 0; i < n; i++)
    if (!same_expr(k, ox[i], oy[i])) return 0;
  return 1;
}

/* Whether expression x names symbol s (a read of it or its address). */
static int mentions(const cg_kernel *k, int32_t x, int32_t s) {
  int32_t o[3];
  int n, i, op;
  if (x < 0) return 0;
  op = CG_KEXPR(k, x, OP);
  if ((op == CG_KE_VAR || op == CG_KE_ELEM || op == CG_KE_ADDR) && CG_KEXPR(k, x, SYM) == s) return 1;
  n = cg_kexpr_operands(k, x, o);
  for (i = 0; i < n; i++)
    if (mentions(k, o[i], s)) return 1;
  return 0;
}

/* Increment v = v + e, v = e + v, v = v - e (e not naming v): the
 * expression of the self-read, else -1. */
int32_t cg_addg_incr_self(const cg_kernel *k, int32_t st) {
  int32_t lhs, rhs, a, b, s;
  int op;
  if (CG_KSTMT(k, st, KIND) != CG_KST_ASSIGN) return -1;
  lhs = CG_KSTMT(k, st, ASSIGN_LHS), rhs = CG_KSTMT(k, st, ASSIGN_RHS), s = CG_KEXPR(k, lhs, SYM);
  if (CG_KEXPR(k, lhs, OP) == CG_KE_VAR && CG_KSYM(k, s, PTR)) return -1; /* a pointer's value */
  op = CG_KEXPR(k, rhs, OP);
  if (op != CG_KE_ADD && op != CG_KE_SUB) return -1;
  a = CG_KEXPR(k, rhs, A), b = CG_KEXPR(k, rhs, B);
  if (same_expr(k, a, lhs) && !mentions(k, b, s)) return a;
  if (op == CG_KE_ADD && same_expr(k, b, lhs) && !mentions(k, a, s)) return b;
  return -1;
}

static int is_cmp(int op) { return op >= CG_KE_LT && op <= CG_KE_NE; }

/* v = fmax(v, e), fmin, or a ?: choosing between v and e by comparing them. */
static int is_minmax(const cg_kernel *k, int32_t st) {
  int32_t lhs, rhs, c;
  if (CG_KSTMT(k, st, KIND) != CG_KST_ASSIGN) return 0;
  lhs = CG_KSTMT(k, st, ASSIGN_LHS), rhs = CG_KSTMT(k, st, ASSIGN_RHS);
  if (CG_KEXPR(k, rhs, OP) == CG_KE_INTRIN &&
      (CG_KEXPR(k, rhs, SYM) == CG_KI_FMAX || CG_KEXPR(k, rhs, SYM) == CG_KI_FMIN))
    return same_expr(k, CG_KEXPR(k, rhs, A), lhs) || same_expr(k, CG_KEXPR(k, rhs, B), lhs);
  if (CG_KEXPR(k, rhs, OP) != CG_KE_COND) return 0;
  c = CG_KEXPR(k, rhs, A);
  return is_cmp(CG_KEXPR(k, c, OP)) &&
         (same_expr(k, CG_KEXPR(k, c, A), lhs) || same_expr(k, CG_KEXPR(k, c, B), lhs)) &&
         (same_expr(k, CG_KEXPR(k, rhs, B), lhs) || same_expr(k, CG_KEXPR(k, rhs, C), lhs));
}

/* v = v * e, v = e * v, v = v / e. */
static int is_product(const cg_kernel *k, int32_t st) {
  int32_t lhs, rhs;
  int op;
  if (CG_KSTMT(k, st, KIND) != CG_KST_ASSIGN) return 0;
  lhs = CG_KSTMT(k, st, ASSIGN_LHS), rhs = CG_KSTMT(k, st, ASSIGN_RHS), op = CG_KEXPR(k, rhs, OP);
  if (op != CG_KE_MUL && op != CG_KE_DIV) return 0;
  return same_expr(k, CG_KEXPR(k, rhs, A), lhs) || (op == CG_KE_MUL && same_expr(k, CG_KEXPR(k, rhs, B), lhs));
}

/* Whether function g may write through (or let escape) its pointer parameter p. */
static int callee_writes(const cg_kernel *k, int32_t g, int32_t p) {
  uint32_t st;
  if (CG_KSYM(k, p, QUAL) & CG_KQ_CONST) return 0;
  for (st = 0; st < k->nstmt; st++) {
    int kind = CG_KSTMT(k, (int32_t)st, KIND);
    if (CG_KSTMT(k, (int32_t)st, FUNC) != g) continue;
    if (kind == CG_KST_ASSIGN) {
      int32_t lhs = CG_KSTMT(k, (int32_t)st, ASSIGN_LHS);
      if (CG_KEXPR(k, lhs, SYM) == p) return 1;
      if (CG_KEXPR(k, lhs, OP) == CG_KE_VAR && CG_KSYM(k, CG_KEXPR(k, lhs, SYM), PTR) &&
          mentions(k, CG_KSTMT(k, (int32_t)st, ASSIGN_RHS), p))
        return 1; /* a pointer copy: followed no further */
    } else if (kind == CG_KST_CALL) {
      int32_t a0 = CG_KSTMT(k, (int32_t)st, CALL_ARGS), na = CG_KSTMT_N(k, (int32_t)st, CALL_ARGS), i;
      for (i = 0; i < na; i++) {
        int32_t x = k->args[a0 + i], t = CG_KEXPR(k, x, TYPE);
        if ((t == CG_KT_PDOUBLE || t == CG_KT_PINT || t == CG_KT_PPDOUBLE || t == CG_KT_PPINT) && mentions(k, x, p))
          return 1;
      }
    }
  }
  return 0;
}

/* }==== */

/* {==== the state of a run ====} */

typedef struct run {
  cg_addg *g;
  cg_kalias *al;
  const cg_kernel *k;
  int err;
  int32_t *stmt_loop;  /* ns: the loop of a LOOP statement, -1 */
  int32_t *stmt_in;    /* ns: the innermost loop holding the statement (itself for a LOOP), -1 */
  int32_t *acc_obj;    /* nacc: the object of the first address, -1 */
  uint8_t *acc_eff;    /* nacc: a definition that writes (not a call's through a read-only parameter) */
  uint8_t *acc_incr;   /* nacc: part of an increment of its object (the write or the self-read) */
  int32_t *l_cvn;      /* per loop: the counter's number in the body, -1 */
  int64_t *l_lo, *l_hi; /* the counter's range when l_range */
  int64_t *l_step;      /* the counter's step (0: no counter) */
  uint8_t *l_range, *l_exit;
  int32_t *vn_loop;    /* nvn: the loop whose counter the number is, -1 */
  uint32_t *lacc_off;  /* nloop + 1: the accesses of each loop */
  int32_t *lacc;
  uint32_t nlacc;
} run;

static int32_t first_obj(const cg_kalias *al, int32_t a) {
  int32_t s = al->acc_set[a];
  return al->set_n[s] ? al->addr[al->set_off[s]].obj : -1;
}

static int32_t widx(const cg_kalias *al, int32_t st) { return st - al->s_lo; }

/* The enclosing loop of loop index l (-1). */
static int32_t loop_parent(const run *r, int32_t l) {
  int32_t p = r->k->stmt_parent[r->g->l_stmt[l]];
  while (p >= 0 && CG_KSTMT(r->k, p, KIND) != CG_KST_LOOP) p = r->k->stmt_parent[p];
  return p >= 0 ? r->stmt_loop[widx(r->al, p)] : -1;
}

/* }==== */

/* {==== loops and their counters ====} */

static int has_exit(const cg_kernel *k, int32_t from, int32_t n, int top);
/* A break or return inside slice from..n (top: the loop's own body, where
 * a break leaves it; a break of a nested loop leaves only that one). */
static int stmt_exit(const cg_kernel *k, int32_t st, int top) {
  switch (CG_KSTMT(k, st, KIND)) {
    case CG_KST_RETURN: return 1;
    case CG_KST_BREAK: return top;
    case CG_KST_IF:
      return has_exit(k, CG_KSTMT_SLICE(k, st, IF_THEN), top) || has_exit(k, CG_KSTMT_SLICE(k, st, IF_ELSE), top);
    case CG_KST_LOOP: return has_exit(k, CG_KSTMT_SLICE(k, st, LOOP_BODY), 0); /* pre, step: no jumps */
    default: return 0;
  }
}
/* The first ALLOC or FREE inside slice from..n (nested too), -1: none. */
static int32_t heap_stmt(const cg_kernel *k, int32_t from, int32_t n) {
  int32_t i, h = -1;
  for (i = 0; i < n && h < 0; i++) {
    int32_t st = k->list[from + i];
    switch (CG_KSTMT(k, st, KIND)) {
      case CG_KST_ALLOC: case CG_KST_FREE: h = st; break;
      case CG_KST_IF:
        if ((h = heap_stmt(k, CG_KSTMT_SLICE(k, st, IF_THEN))) < 0) h = heap_stmt(k, CG_KSTMT_SLICE(k, st, IF_ELSE));
        break;
      case CG_KST_LOOP: h = heap_stmt(k, CG_KSTMT_SLICE(k, st, LOOP_BODY)); break; /* pre, step: no allocs */
      default: break;
    }
  }
  return h;
}
/* The first passive call (printf, exit, ...) run by slice from..n, nested
 * or in a callee, -1: none; seen marks the functions already searched. */
static int32_t passive_stmt(const cg_kernel *k, int32_t from, int32_t n, uint8_t *seen) {
  int32_t i, h = -1;
  for (i = 0; i < n && h < 0; i++) {
    int32_t st = k->list[from + i], g;
    switch (CG_KSTMT(k, st, KIND)) {
      case CG_KST_PASSIVE: h = st; break;
      case CG_KST_CALL:
        g = CG_KSTMT(k, st, CALL_CALLEE);
        if (!seen[g]) seen[g] = 1, h = passive_stmt(k, CG_KFUNC(k, g, BODY), CG_KFUNC(k, g, NBODY), seen);
        break;
      case CG_KST_IF:
        if ((h = passive_stmt(k, CG_KSTMT_SLICE(k, st, IF_THEN), seen)) < 0)
          h = passive_stmt(k, CG_KSTMT_SLICE(k, st, IF_ELSE), seen);
        break;
      case CG_KST_LOOP: h = passive_stmt(k, CG_KSTMT_SLICE(k, st, LOOP_BODY), seen); break;
      default: break;
    }
  }
  return h;
}
static int has_exit(const cg_kernel *k, int32_t from, int32_t n, int top) {
  int32_t i;
  for (i = 0; i < n; i++)
    if (stmt_exit(k, k->list[from + i], top)) return 1;
  return 0;
}

/* Whether int scalar s is assigned anywhere in slice from..n (nested too). */
static int assigns(const cg_kernel *k, int32_t from, int32_t n, int32_t s) {
  int32_t i;
  for (i = 0; i < n; i++) {
    int32_t st = k->list[from + i], lhs = -1;
    switch (CG_KSTMT(k, st, KIND)) {
      case CG_KST_ASSIGN: lhs = CG_KSTMT(k, st, ASSIGN_LHS); break;
      case CG_KST_CALL: lhs = CG_KSTMT(k, st, CALL_LHS); break;
      case CG_KST_IF:
        if (assigns(k, CG_KSTMT_SLICE(k, st, IF_THEN), s) || assigns(k, CG_KSTMT_SLICE(k, st, IF_ELSE), s))
          return 1;
        break;
      case CG_KST_LOOP:
        if (assigns(k, CG_KSTMT_SLICE(k, st, LOOP_BODY), s) || assigns(k, CG_KSTMT_SLICE(k, st, LOOP_STEP), s) ||
            assigns(k, CG_KSTMT_SLICE(k, st, LOOP_PRE), s))
          return 1;
        break;
      default: break;
    }
    if (lhs >= 0 && CG_KEXPR(k, lhs, OP) == CG_KE_VAR && CG_KEXPR(k, lhs, SYM) == s) return 1;
  }
  return 0;
}

/* The counter of loop statement L: a for loop whose step is the single
 * statement i = i + c or i = i - c (c a nonzero int constant), i an int
 * scalar (its address not taken) assigned nowhere else in the loop, so its
 * values differ from one iteration to the next.  -1 otherwise; *step c. */
static int32_t counter_of(const cg_kernel *k, int32_t L, int64_t *step) {
  int32_t st, lhs, rhs, s, b;
  if (CG_KSTMT(k, L, FLAGS) != CG_KL_FOR || CG_KSTMT_N(k, L, LOOP_STEP) != 1) return -1;
  st = k->list[CG_KSTMT(k, L, LOOP_STEP)];
  if (CG_KSTMT(k, st, KIND) != CG_KST_ASSIGN) return -1;
  lhs = CG_KSTMT(k, st, ASSIGN_LHS), rhs = CG_KSTMT(k, st, ASSIGN_RHS);
  if (CG_KEXPR(k, lhs, OP) != CG_KE_VAR) return -1;
  s = CG_KEXPR(k, lhs, SYM);
  if (CG_KSYM(k, s, PTR) || CG_KSYM(k, s, NDIM) || CG_KSYM(k, s, BASE) != CG_KT_INT ||
      CG_KSYM(k, s, CTYPE) != CG_KC_INT || /* a char counter wraps: not an affine one */
      (CG_KSYM(k, s, QUAL) & CG_KQ_ADDR))
    return -1;
  if ((CG_KEXPR(k, rhs, OP) != CG_KE_ADD && CG_KEXPR(k, rhs, OP) != CG_KE_SUB) ||
      CG_KEXPR(k, CG_KEXPR(k, rhs, A), OP) != CG_KE_VAR || CG_KEXPR(k, CG_KEXPR(k, rhs, A), SYM) != s)
    return -1;
  b = CG_KEXPR(k, rhs, B);
  if (CG_KEXPR(k, b, OP) != CG_KE_CONST_I || CG_KEXPR(k, b, IVAL) == 0) return -1;
  *step = CG_KEXPR(k, rhs, OP) == CG_KE_ADD ? CG_KEXPR(k, b, IVAL) : -(int64_t)CG_KEXPR(k, b, IVAL);
  if (assigns(k, CG_KSTMT_SLICE(k, L, LOOP_BODY), s) || assigns(k, CG_KSTMT_SLICE(k, L, LOOP_PRE), s))
    return -1;
  return s;
}

/* The index of st in slice start..count, then *from, *n the slice; -1. */
static int32_t index_in(const cg_kernel *k, int32_t st, int32_t start, int32_t count, int32_t *from, int32_t *n) {
  int32_t j;
  for (j = 0; j < count; j++)
    if (k->list[start + j] == st) return *from = start, *n = count, j;
  return -1;
}

/* The slice and position holding statement st (*from, *n; returns the
 * index in it, -1): its function's body or one of the LIST parts of its
 * parent, whatever the parent's kind. */
static int32_t slot_of(const cg_kernel *k, int32_t st, int32_t *from, int32_t *n) {
  int32_t p = k->stmt_parent[st], f = CG_KSTMT(k, st, FUNC), j;
  int kind;
  if (p < 0) return index_in(k, st, CG_KFUNC(k, f, BODY), CG_KFUNC(k, f, NBODY), from, n);
  kind = CG_KSTMT(k, p, KIND);
#define LIST_PART(kd, name, what, slot)                                       \
  if (kind == CG_KST_##kd && CG_KP_##what == CG_KP_LIST &&                    \
      (j = index_in(k, st, CG_KSTMT_SLICE(k, p, kd##_##name), from, n)) >= 0) \
    return j;
  CG_KSTMT_PARTS(LIST_PART)
#undef LIST_PART
  return -1;
}

/* The range lo..hi of counter s of loop L when known: the statement
 * before L is s = C0, the step +1, the condition s < C1 or s <= C1. */
static int counter_range(const cg_kernel *k, int32_t L, int32_t s, int64_t step, int64_t *lo, int64_t *hi) {
  int32_t from, n, j = slot_of(k, L, &from, &n), prev, c, rhs;
  if (j <= 0 || step != 1) return 0;
  prev = k->list[from + j - 1];
  if (CG_KSTMT(k, prev, KIND) != CG_KST_ASSIGN) return 0;
  if (CG_KEXPR(k, CG_KSTMT(k, prev, ASSIGN_LHS), OP) != CG_KE_VAR ||
      CG_KEXPR(k, CG_KSTMT(k, prev, ASSIGN_LHS), SYM) != s)
    return 0;
  rhs = CG_KSTMT(k, prev, ASSIGN_RHS);
  if (CG_KEXPR(k, rhs, OP) != CG_KE_CONST_I) return 0;
  c = CG_KSTMT(k, L, LOOP_COND);
  if (c < 0 || (CG_KEXPR(k, c, OP) != CG_KE_LT && CG_KEXPR(k, c, OP) != CG_KE_LE)) return 0;
  if (CG_KEXPR(k, CG_KEXPR(k, c, A), OP) != CG_KE_VAR || CG_KEXPR(k, CG_KEXPR(k, c, A), SYM) != s) return 0;
  if (CG_KEXPR(k, CG_KEXPR(k, c, B), OP) != CG_KE_CONST_I) return 0;
  *lo = CG_KEXPR(k, rhs, IVAL);
  *hi = CG_KEXPR(k, CG_KEXPR(k, c, B), IVAL) - (CG_KEXPR(k, c, OP) == CG_KE_LT);
  return *hi >= *lo;
}

/* }==== */

/* {==== own-index subscripts ====} */

/* Access acc's offset in loop l as a * i + b + r: i the counter's number, b
 * the terms invariant in l (numbers born before it), r in [rlo, rhi] the
 * constant plus, at most, the counter of a loop nested in l with a known
 * range times its coefficient.  1 when it has that form.  Two iterations'
 * counters differ by a multiple of the step, so accesses of one a and b
 * whose r all lie in a window narrower than |a * step| never meet across
 * iterations (y[i] and y[i + 1] with i += 2; res[3 * t + k], k in 0..2). */
typedef struct ownf {
  int64_t a, rlo, rhi;
  cg_kaff b; /* c unused: 0 */
} ownf;

static int own_form(const run *r, int32_t acc, int32_t l, ownf *o) {
  const cg_kalias *al = r->al;
  int32_t s = al->acc_set[acc], L = r->g->l_stmt[l], vn0 = al->loop_vn0[widx(al, L)], vn1 = al->loop_vn1[widx(al, L)];
  const cg_kaff *f;
  int32_t t, inner = 0;
  if (al->set_n[s] != 1 || r->l_cvn[l] < 0) return 0;
  f = &al->addr[al->set_off[s]].off;
  if (f->nt < 0) return 0;
  o->a = 0, o->rlo = o->rhi = f->c, o->b.c = 0, o->b.nt = 0;
  for (t = 0; t < f->nt; t++) {
    int32_t v = f->vn[t];
    if (v < vn0) { /* invariant in l */
      o->b.vn[o->b.nt] = v, o->b.coef[o->b.nt++] = f->coef[t];
    } else if (v >= vn1) {
      return 0;
    } else if (v == r->l_cvn[l]) {
      o->a = f->coef[t];
    } else {
      int32_t kl = r->vn_loop[v];
      int64_t x, y;
      if (kl < 0 || inner || !r->l_range[kl]) return 0;
      x = f->coef[t] * r->l_lo[kl], y = f->coef[t] * r->l_hi[kl];
      o->rlo += x < y ? x : y, o->rhi += x < y ? y : x, inner = 1;
    }
  }
  return o->a != 0;
}

static int same_b(const ownf *x, const ownf *y) {
  int32_t t;
  if (x->a != y->a || x->b.nt != y->b.nt) return 0;
  for (t = 0; t < x->b.nt; t++)
    if (x->b.vn[t] != y->b.vn[t] || x->b.coef[t] != y->b.coef[t]) return 0;
  return 1;
}

/* The distance between two iterations' cells of offset a * i: |a * step|. */
static int64_t own_gap(const run *r, int32_t l, int64_t a) {
  int64_t g = a * r->l_step[l];
  return g < 0 ? -g : g;
}

/* Accesses a1 and a2 never touch one cell at two iterations of loop l. */
static int own_pair(const run *r, int32_t a1, int32_t a2, int32_t l) {
  ownf x, y;
  int64_t lo, hi;
  if (!own_form(r, a1, l, &x) || !own_form(r, a2, l, &y) || !same_b(&x, &y)) return 0;
  lo = x.rlo < y.rlo ? x.rlo : y.rlo, hi = x.rhi > y.rhi ? x.rhi : y.rhi;
  return hi - lo < own_gap(r, l, x.a);
}

/* }==== */

/* {==== edges ====} */

static void add_edge(run *r, int32_t a_from, int32_t a_to, int32_t carried) {
  cg_addg *g = r->g;
  cg_kalias *al = r->al;
  uint32_t i = g->nedge;
  int df = al->acc_kind[a_from] == CG_KA_DEF && r->acc_eff[a_from];
  int dt = al->acc_kind[a_to] == CG_KA_DEF && r->acc_eff[a_to];
  if (!df && !dt) return;
  if (cg_reserve(g->A, (void **)&g->e_from, &g->cap_e[0], i + 1, 4) ||
      cg_reserve(g->A, (void **)&g->e_to, &g->cap_e[1], i + 1, 4) ||
      cg_reserve(g->A, (void **)&g->e_obj, &g->cap_e[2], i + 1, 4) ||
      cg_reserve(g->A, (void **)&g->e_kind, &g->cap_e[3], i + 1, 4) ||
      cg_reserve(g->A, (void **)&g->e_carried, &g->cap_e[4], i + 1, 4) ||
      cg_reserve(g->A, (void **)&g->e_to_acc, &g->cap_e[5], i + 1, 4) ||
      cg_reserve(g->A, (void **)&g->e_from_acc, &g->cap_e7, i + 1, 4)) {
    r->err = CG_ENOMEM;
    return;
  }
  g->e_from[i] = g->stmt_node[widx(al, al->acc_stmt[a_from])];
  g->e_to[i] = g->stmt_node[widx(al, al->acc_stmt[a_to])];
  g->e_obj[i] = r->acc_obj[a_to];
  g->e_kind[i] = df && dt ? CG_AE_OUTPUT : df ? CG_AE_FLOW : CG_AE_ANTI;
  g->e_carried[i] = carried, g->e_to_acc[i] = a_to, g->e_from_acc[i] = a_from;
  g->nedge++;
}

/* Whether loop l holds statement st (st itself a loop: l or inside). */
static int in_loop(const run *r, int32_t st, int32_t l) {
  int32_t m = r->stmt_in[widx(r->al, st)];
  while (m >= 0 && m != l) m = r->g->l_parent[m];
  return m == l;
}

/* The edges between accesses a1 <= a2 (walk order) of one class. */
static void pair_edges(run *r, int32_t a1, int32_t a2) {
  cg_kalias *al = r->al;
  int32_t s1 = al->acc_stmt[a1], s2 = al->acc_stmt[a2], l;
  if (r->g->stmt_node[widx(al, s1)] < 0 || r->g->stmt_node[widx(al, s2)] < 0) return;
  if (!(al->acc_kind[a1] == CG_KA_DEF && r->acc_eff[a1]) && !(al->acc_kind[a2] == CG_KA_DEF && r->acc_eff[a2]))
    return; /* two reads: no dependence */
  if (r->acc_incr[a1] && r->acc_incr[a2] && r->acc_obj[a1] == r->acc_obj[a2]) return; /* increments commute */
  if (a1 != a2 && s1 != s2 && cg_kalias_relation(al, (uint32_t)al->acc_set[a1], (uint32_t)al->acc_set[a2]) != CG_KREL_NO)
    add_edge(r, a1, a2, -1);
  for (l = r->stmt_in[widx(al, s1)]; l >= 0 && !r->err; l = r->g->l_parent[l]) {
    int32_t L = r->g->l_stmt[l], w1, w2;
    if (!in_loop(r, s2, l)) continue;
    w1 = cg_kalias_widen(al, (uint32_t)al->acc_set[a1], al->loop_vn0[widx(al, L)], al->loop_vn1[widx(al, L)]);
    w2 = cg_kalias_widen(al, (uint32_t)al->acc_set[a2], al->loop_vn0[widx(al, L)], al->loop_vn1[widx(al, L)]);
    if (w1 < 0 || w2 < 0) { r->err = CG_ENOMEM; return; }
    if (cg_kalias_relation(al, (uint32_t)w1, (uint32_t)w2) == CG_KREL_NO || own_pair(r, a1, a2, l)) continue;
    add_edge(r, a1, a2, l);
    if (a1 != a2) add_edge(r, a2, a1, l);
  }
}

/* The smallest class of set s shared with set t (-1). */
static int32_t shared_class(const cg_kalias *al, int32_t s, int32_t t) {
  uint32_t i, j;
  int32_t best = -1;
  for (i = 0; i < al->set_n[s]; i++)
    for (j = 0; j < al->set_n[t]; j++) {
      int32_t c = al->obj_class[al->addr[al->set_off[s] + i].obj];
      if (c == al->obj_class[al->addr[al->set_off[t] + j].obj] && (best < 0 || c < best)) best = c;
    }
  return best;
}

/* The edges' sort keys, in order: from, to, carried, kind, obj, to_acc,
 * from_acc (the first five decide duplicates). */
typedef struct ekeys {
  const int32_t *col[7];
} ekeys;

static int ekeys_cmp(const ekeys *k, uint32_t a, uint32_t b, int nkeys) {
  int f;
  for (f = 0; f < nkeys; f++)
    if (k->col[f][a] != k->col[f][b]) return k->col[f][a] < k->col[f][b] ? -1 : 1;
  return 0;
}

static int edge_cmp(void *ctx, const void *pa, const void *pb) {
  return ekeys_cmp((const ekeys *)ctx, *(const uint32_t *)pa, *(const uint32_t *)pb, 7);
}

/* Column *c of capacity *cap shrunk to n >= 1 entries (left as it is if
 * the allocator refuses). */
static void shrink_col(cg_alloc *A, int32_t **c, size_t *cap, uint32_t n) {
  int32_t *p;
  if (n >= *cap) return;
  if ((p = CG_RENEW(A, *c, int32_t, *cap, n)) != NULL) *c = p, *cap = n;
}

/* Sorts the edges and drops the duplicates (another access pair, same
 * key): a permutation is sorted (cg_sort: 4 + 4 bytes an edge from g->A,
 * where rows of the seven keys took 28 and qsort's copy of them 28 more,
 * from malloc, outside the memory limit), each column is gathered through
 * it, and the columns shrink to the edges kept. */
static int sort_edges(cg_addg *g) {
  uint32_t n = g->nedge, i, cnt = 0, *p;
  int32_t **cols[7], *v;
  size_t *caps[7];
  ekeys k;
  int f;
  if (n == 0) return CG_OK; /* the columns are NULL */
  cols[0] = &g->e_from, cols[1] = &g->e_to, cols[2] = &g->e_carried, cols[3] = &g->e_kind;
  cols[4] = &g->e_obj, cols[5] = &g->e_to_acc, cols[6] = &g->e_from_acc;
  caps[0] = &g->cap_e[0], caps[1] = &g->cap_e[1], caps[2] = &g->cap_e[4], caps[3] = &g->cap_e[3];
  caps[4] = &g->cap_e[2], caps[5] = &g->cap_e[5], caps[6] = &g->cap_e7;
  for (f = 0; f < 7; f++) k.col[f] = *cols[f];
  if (!(p = CG_NEW(g->A, uint32_t, n))) return CG_ENOMEM;
  for (i = 0; i < n; i++) p[i] = i;
  if (cg_sort(g->A, p, n, sizeof *p, edge_cmp, &k)) return CG_FREE(g->A, p, uint32_t, n), CG_ENOMEM;
  for (i = 0; i < n; i++)
    if (cnt == 0 || ekeys_cmp(&k, p[cnt - 1], p[i], 5)) p[cnt++] = p[i];
  if (!(v = CG_NEW(g->A, int32_t, cnt))) return CG_FREE(g->A, p, uint32_t, n), CG_ENOMEM;
  for (f = 0; f < 7; f++) {
    int32_t *c = *cols[f];
    for (i = 0; i < cnt; i++) v[i] = c[p[i]];
    memcpy(c, v, cnt * sizeof *v);
    shrink_col(g->A, cols[f], caps[f], cnt);
  }
  g->nedge = cnt;
  CG_FREE(g->A, v, int32_t, cnt), CG_FREE(g->A, p, uint32_t, n);
  return CG_OK;
}

/* Whether access a's set names class c before its address i (each class once). */
static int class_seen(const cg_kalias *al, int32_t a, uint32_t i, int32_t c) {
  uint32_t j;
  for (j = 0; j < i; j++)
    if (al->obj_class[al->addr[al->set_off[al->acc_set[a]] + j].obj] == c) return 1;
  return 0;
}

/* The accesses of each class: mem[off[c] .. off[c + 1]) in walk order. */
static int class_buckets(cg_addg *g, uint32_t **off, int32_t **mem, uint32_t *nm) {
  const cg_kalias *al = g->al;
  uint32_t a, i, c, *fill;
  *nm = 0, *mem = NULL;
  if (!(*off = CG_NEW(g->A, uint32_t, al->ncls + 1))) return CG_ENOMEM;
  memset(*off, 0, (al->ncls + 1) * sizeof **off);
  for (a = 0; a < al->nacc; a++)
    for (i = 0; i < al->set_n[al->acc_set[a]]; i++) {
      int32_t cl = al->obj_class[al->addr[al->set_off[al->acc_set[a]] + i].obj];
      if (!class_seen(al, (int32_t)a, i, cl)) (*off)[cl + 1]++, (*nm)++;
    }
  for (c = 0; c < al->ncls; c++) (*off)[c + 1] += (*off)[c];
  fill = CG_NEW(g->A, uint32_t, al->ncls + 1);
  *mem = CG_NEW(g->A, int32_t, *nm + 1);
  if (!fill || !*mem) {
    CG_FREE(g->A, fill, uint32_t, al->ncls + 1);
    return CG_ENOMEM;
  }
  memcpy(fill, *off, (al->ncls + 1) * sizeof *fill);
  for (a = 0; a < al->nacc; a++)
    for (i = 0; i < al->set_n[al->acc_set[a]]; i++) {
      int32_t cl = al->obj_class[al->addr[al->set_off[al->acc_set[a]] + i].obj];
      if (!class_seen(al, (int32_t)a, i, cl)) (*mem)[fill[cl]++] = (int32_t)a;
    }
  CG_FREE(g->A, fill, uint32_t, al->ncls + 1);
  return CG_OK;
}

/* The edges: every pair of accesses of one class (each pair in the bucket
 * of the smallest class they share), then sorted. */
static int build_edges(run *r) {
  cg_kalias *al = r->al;
  cg_addg *g = r->g;
  uint32_t *off = NULL, nm = 0, i, j, c;
  int32_t *mem = NULL;
  if (class_buckets(g, &off, &mem, &nm)) r->err = CG_ENOMEM;
  for (c = 0; c < al->ncls && !r->err; c++)
    for (i = off[c]; i < off[c + 1] && !r->err; i++)
      for (j = i; j < off[c + 1] && !r->err; j++)
        if (shared_class(al, al->acc_set[mem[i]], al->acc_set[mem[j]]) == (int32_t)c) pair_edges(r, mem[i], mem[j]);
  CG_FREE(g->A, off, uint32_t, al->ncls + 1), CG_FREE(g->A, mem, int32_t, nm + 1);
  if (!r->err && sort_edges(g)) r->err = CG_ENOMEM;
  return r->err;
}

/* }==== */

/* {==== private: written before read on every path of an iteration ====} */

typedef struct pstate {
  int32_t *set; /* exact sets of the object written on every path so far */
  uint32_t n, cap;
  int whole;    /* every cell of the object written on every path */
} pstate;

typedef struct pwalk {
  run *r;
  int32_t obj;
  int ok;
} pwalk;

static int ps_has(const pstate *p, int32_t s) {
  uint32_t i;
  for (i = 0; i < p->n; i++)
    if (p->set[i] == s) return 1;
  return 0;
}

static void pw_slice(pwalk *w, int32_t from, int32_t n, pstate *p);

/* The statement's own accesses of the object: reads checked, writes recorded. */
static void pw_own(pwalk *w, int32_t st, pstate *p) {
  cg_kalias *al = w->r->al;
  int32_t a0 = cg_kalias_acc0(al, st), na = cg_kalias_nacc(al, st), a;
  for (a = a0; a < a0 + na; a++) {
    int32_t s = al->acc_set[a];
    uint32_t i, hit = 0;
    for (i = 0; i < al->set_n[s]; i++) hit |= al->addr[al->set_off[s] + i].obj == w->obj;
    if (!hit) continue;
    if (al->acc_kind[a] == CG_KA_USE) {
      if (!p->whole && !ps_has(p, s)) w->ok = 0;
    } else if (!al->acc_may[a] && al->set_exact[s] && !ps_has(p, s) && p->n < p->cap) {
      p->set[p->n++] = s;
    }
  }
}

static int pw_copy(pwalk *w, const pstate *p, pstate *q) {
  q->cap = p->cap, q->n = p->n, q->whole = p->whole;
  if (!(q->set = CG_NEW(w->r->g->A, int32_t, q->cap + 1))) return w->r->err = CG_ENOMEM;
  if (p->n) memcpy(q->set, p->set, p->n * sizeof(int32_t));
  return CG_OK;
}

static void pw_loop_iter(pwalk *w, int32_t L, pstate *p) {
  const cg_kernel *k = w->r->k;
  if (CG_KSTMT(k, L, FLAGS) == CG_KL_DO) {
    pw_slice(w, CG_KSTMT_SLICE(k, L, LOOP_BODY), p), pw_slice(w, CG_KSTMT_SLICE(k, L, LOOP_STEP), p);
    pw_slice(w, CG_KSTMT_SLICE(k, L, LOOP_PRE), p), pw_own(w, L, p);
  } else {
    pw_slice(w, CG_KSTMT_SLICE(k, L, LOOP_PRE), p), pw_own(w, L, p);
    pw_slice(w, CG_KSTMT_SLICE(k, L, LOOP_BODY), p), pw_slice(w, CG_KSTMT_SLICE(k, L, LOOP_STEP), p);
  }
}

/* Whether loop statement K, run at least once (a known, nonempty counter
 * range; no break, return or continue of its own), leaves every cell of
 * the object written: its iteration does (t, the state after one), or a
 * statement of its body (not under an if) writes o[k + c] with k + c
 * covering 0 .. cells - 1. */
static int runs_whole(pwalk *w, int32_t K, const pstate *t) {
  run *r = w->r;
  cg_kalias *al = r->al;
  const cg_kernel *k = r->k;
  int32_t kl = r->stmt_loop[widx(al, K)], from = CG_KSTMT(k, K, LOOP_BODY), n = CG_KSTMT_N(k, K, LOOP_BODY), i, a;
  uint32_t s;
  if (kl < 0 || !r->l_range[kl] || r->l_cvn[kl] < 0 || r->l_exit[kl]) return 0;
  for (s = 0; s < al->ns; s++) /* a continue of K ends some iteration early */
    if (CG_KSTMT(k, al->s_lo + (int32_t)s, KIND) == CG_KST_CONTINUE && k->stmt_loop[al->s_lo + (int32_t)s] == K) return 0;
  if (t->whole) return 1;
  if (al->obj_cells[w->obj] <= 0) return 0;
  for (i = 0; i < n; i++) {
    int32_t st = k->list[from + i], a0 = cg_kalias_acc0(al, st), na = cg_kalias_nacc(al, st);
    for (a = a0; a < a0 + na; a++) {
      int32_t set = al->acc_set[a];
      const cg_kaff *f;
      if (al->acc_kind[a] != CG_KA_DEF || al->acc_may[a] || al->set_n[set] != 1) continue;
      if (al->addr[al->set_off[set]].obj != w->obj) continue;
      f = &al->addr[al->set_off[set]].off;
      if (f->nt == 1 && f->vn[0] == r->l_cvn[kl] && f->coef[0] == 1 && r->l_lo[kl] + f->c <= 0 &&
          r->l_hi[kl] + f->c >= al->obj_cells[w->obj] - 1)
        return 1;
    }
  }
  return 0;
}

static void pw_stmt(pwalk *w, int32_t st, pstate *p) {
  const cg_kernel *k = w->r->k;
  pstate q, t;
  uint32_t i, n;
  switch (CG_KSTMT(k, st, KIND)) {
    case CG_KST_ASSIGN: case CG_KST_CALL: case CG_KST_RETURN: pw_own(w, st, p); break;
    case CG_KST_IF:
      pw_own(w, st, p);
      if (pw_copy(w, p, &q)) return;
      pw_slice(w, CG_KSTMT_SLICE(k, st, IF_THEN), &q);
      pw_slice(w, CG_KSTMT_SLICE(k, st, IF_ELSE), p);
      for (i = n = 0; i < p->n; i++) /* written on both sides */
        if (ps_has(&q, p->set[i])) p->set[n++] = p->set[i];
      p->n = n, p->whole = p->whole && q.whole;
      CG_FREE(w->r->g->A, q.set, int32_t, q.cap + 1);
      break;
    case CG_KST_LOOP: /* may run no iteration: what it writes is not certain after it ... */
      if (pw_copy(w, p, &t)) return;
      pw_loop_iter(w, st, &t);
      if (runs_whole(w, st, &t)) p->whole = 1; /* ... unless it runs and fills the object */
      CG_FREE(w->r->g->A, t.set, int32_t, t.cap + 1);
      break;
    default: break;
  }
}

static void pw_slice(pwalk *w, int32_t from, int32_t n, pstate *p) {
  int32_t i;
  for (i = 0; i < n && w->ok && !w->r->err; i++) pw_stmt(w, w->r->k->list[from + i], p);
}

/* Whether object o is private to loop l. */
static int is_private(run *r, int32_t l, int32_t o) {
  pwalk w;
  pstate p;
  w.r = r, w.obj = o, w.ok = 1;
  p.n = 0, p.cap = r->lacc_off[l + 1] - r->lacc_off[l], p.whole = 0;
  if (!(p.set = CG_NEW(r->g->A, int32_t, p.cap + 1))) return r->err = CG_ENOMEM, 0;
  pw_loop_iter(&w, r->g->l_stmt[l], &p);
  CG_FREE(r->g->A, p.set, int32_t, p.cap + 1);
  return w.ok && !r->err;
}

/* }==== */

/* {==== the loops' variables, verdicts, terminal loops, snapshots ====} */

typedef struct grp {
  const char *name;   /* the object's */
  int32_t obj, first; /* the first access (walk order) */
  int cls, written, read, callw, minmax, product;
  int32_t why; /* the access naming the problem: a call's, the min/max or product write */
} grp;

static int grp_cmp(void *ctx, const void *pa, const void *pb) {
  const grp *a = (const grp *)pa, *b = (const grp *)pb;
  int c = strcmp(a->name, b->name);
  (void)ctx;
  return c ? c : (a->obj > b->obj) - (a->obj < b->obj);
}

static int exempt(int cls) { return (cg_addg_class_flags(cls) & CG_ACF_EXEMPT) != 0; }
static int incr_class(int cls) { return (cg_addg_class_flags(cls) & CG_ACF_INCR) != 0; }

/* The argument slot of expression x in call st (-1). */
static int32_t arg_slot(const cg_kernel *k, int32_t st, int32_t x) {
  int32_t a0 = CG_KSTMT(k, st, CALL_ARGS), na = CG_KSTMT_N(k, st, CALL_ARGS), i;
  for (i = 0; i < na; i++)
    if (k->args[a0 + i] == x) return i;
  return -1;
}

/* Classifies object o's accesses acc[0..n) in loop l into *gp. */
static void classify(run *r, int32_t l, const int32_t *acc, uint32_t n, grp *gp) {
  cg_kalias *al = r->al;
  const cg_kernel *k = r->k;
  uint32_t i;
  int own = 1, incr = 1;
  ownf first = { 0, 0, 0, { 0, 0, { 0 }, { 0 } } };
  int64_t lo = 0, hi = 0;
  int32_t o = gp->obj;
  gp->first = acc[0], gp->written = gp->read = gp->callw = gp->minmax = gp->product = 0, gp->why = -1;
  for (i = 0; i < n; i++) {
    int32_t a = acc[i], st = al->acc_stmt[a];
    ownf f;
    int def = al->acc_kind[a] == CG_KA_DEF && r->acc_eff[a];
    if (al->acc_kind[a] == CG_KA_USE) gp->read = 1;
    if (def) gp->written = 1;
    if (def && CG_KSTMT(k, st, KIND) == CG_KST_CALL && al->acc_expr[a] != CG_KSTMT(k, st, CALL_LHS) && !gp->callw)
      gp->callw = 1, gp->why = a;
    if (def && is_minmax(k, st) && !gp->minmax) gp->minmax = 1, gp->why = gp->callw ? gp->why : a;
    if (def && is_product(k, st) && !gp->product) gp->product = 1, gp->why = gp->callw || gp->minmax ? gp->why : a;
    if ((def || al->acc_kind[a] == CG_KA_USE) && !r->acc_incr[a]) incr = 0;
    if (!own_form(r, a, l, &f)) own = 0;
    else if (i == 0) first = f, lo = f.rlo, hi = f.rhi;
    else if (!same_b(&first, &f)) own = 0;
    else lo = f.rlo < lo ? f.rlo : lo, hi = f.rhi > hi ? f.rhi : hi;
  }
  if (own && n > 0 && hi - lo >= own_gap(r, l, first.a)) own = 0;
  if (!gp->written) gp->cls = CG_AC_READONLY;
  else if (gp->callw) gp->cls = CG_AC_OTHER;
  else if (own && !cg_addg_obj_scalar(al, o)) gp->cls = CG_AC_OWN;
  else if (incr) gp->cls = cg_addg_obj_scalar(al, o) ? CG_AC_REDUCTION : CG_AC_INCR;
  else if (gp->minmax) gp->cls = CG_AC_MINMAX;
  else if (gp->product) gp->cls = CG_AC_OTHER;
  else if ((cg_addg_obj_scalar(al, o) || al->obj_kind[o] == CG_KO_ARRAY) && is_private(r, l, o))
    gp->cls = CG_AC_PRIVATE;
  else gp->cls = CG_AC_OTHER;
}

static int push_i32(cg_alloc *A, int32_t **arr, size_t *cap, uint32_t n, int32_t v) {
  if (cg_reserve(A, (void **)arr, cap, (size_t)n + 1, sizeof(int32_t))) return CG_ENOMEM;
  (*arr)[n] = v;
  return CG_OK;
}

static void say(run *r, int32_t l, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#include <stdarg.h>
static void say(run *r, int32_t l, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->g->l_reason + (size_t)l * CG_ADDG_REASON, CG_ADDG_REASON, fmt, ap);
  va_end(ap);
}

static void expr_pos(const cg_kernel *k, int32_t x, int32_t st, int *line, int *col) {
  *line = x >= 0 ? CG_KEXPR(k, x, LINE) : CG_KSTMT(k, st, LINE);
  *col = x >= 0 ? CG_KEXPR(k, x, COL) : CG_KSTMT(k, st, COL);
}

void cg_addg_tidy(char *t) {
  size_t i, j, n = strlen(t);
  for (i = 0; i + 1 < n; i++) {
    int depth = 0;
    if (t[i] != '[' || t[i + 1] != '(') continue;
    for (j = i + 1; j < n; j++) {
      depth += t[j] == '(' ? 1 : t[j] == ')' ? -1 : 0;
      if (depth == 0) break;
    }
    if (j + 1 < n && t[j + 1] == ']') {
      memmove(t + j, t + j + 1, n - j), n--;         /* the ')' */
      memmove(t + i + 1, t + i + 2, n - i - 1), n--; /* the '(' */
    }
  }
}

/* The reason of a refusal for group gp of loop l. */
static void refusal(run *r, int32_t l, const grp *gp) {
  cg_kalias *al = r->al;
  const cg_kernel *k = r->k;
  const char *nm = cg_kalias_obj_name(al, (uint32_t)gp->obj);
  char text[128];
  int line, col;
  uint32_t i;
  if (gp->why >= 0) {
    int32_t st = al->acc_stmt[gp->why];
    expr_pos(k, CG_KSTMT(k, st, KIND) == CG_KST_CALL ? -1 : CG_KSTMT(k, st, ASSIGN_LHS), st, &line, &col);
    if (gp->callw)
      say(r, l, "call to %s at %d:%d may write %s", k->names[CG_KFUNC(k, CG_KSTMT(k, st, CALL_CALLEE), NAME)],
          line, col, nm);
    else if (gp->cls == CG_AC_MINMAX)
      say(r, l, "min/max scatter into %s at %d:%d is not an increment", nm, line, col);
    else say(r, l, "product reduction into %s at %d:%d", nm, line, col);
    return;
  }
  for (i = r->g->lc_off[l]; i < r->g->nlc_tmp; i++) {
    int32_t e = r->g->lc_edge[i], ta = r->g->e_to_acc[e], fa = r->g->e_from_acc[e], x = al->acc_expr[ta];
    int sc = cg_addg_obj_scalar(al, gp->obj);
    const char *what = r->g->e_kind[e] == CG_AE_FLOW ? "read" : "written";
    const char *verb = r->g->e_kind[e] == CG_AE_ANTI ? "reads" : "writes";
    if (r->acc_obj[ta] != gp->obj && r->acc_obj[fa] != gp->obj) continue;
    cg_kexpr_text(k, x, text, sizeof text);
    cg_addg_tidy(text);
    expr_pos(k, x, al->acc_stmt[ta], &line, &col);
    say(r, l, sc ? "%s at %d:%d is %s in another iteration than line %d %s it"
                 : "%s at %d:%d is %s at another iteration's index than line %d %s it",
        text, line, col, what, (int)CG_KSTMT(k, al->acc_stmt[fa], LINE), verb);
    return;
  }
  say(r, l, "%s is neither read-only, an own-index write, an increment nor private", nm);
}

typedef struct cls_use {
  uint8_t *wr, *rd, *wincr; /* ncls: written (incr only in wincr), read */
  uint8_t *iw;              /* ncls: an int the body writes (each iteration's reverse puts it back) */
} cls_use;

/* Whether loop l (accepted, outermost) is terminal. */
static int terminal(run *r, int32_t l, const grp *gs, uint32_t ng, cls_use *cu) {
  cg_kalias *al = r->al;
  uint32_t i, j, last = (uint32_t)r->lacc[r->lacc_off[l + 1] - 1];
  int ok = 1;
  int32_t cobj = r->g->l_counter[l] >= 0 ? al->sym_obj[cg_kalias_lsym(al, r->g->l_counter[l])] : -1;
  int32_t parent = r->k->stmt_parent[r->g->l_stmt[l]];
  memset(cu->wr, 0, al->ncls), memset(cu->rd, 0, al->ncls), memset(cu->wincr, 0, al->ncls);
  memset(cu->iw, 0, al->ncls);
  for (i = 0; i < ng; i++) {
    int32_t c = al->obj_class[gs[i].obj];
    if (al->obj_base[gs[i].obj] != CG_KT_DOUBLE) { /* ints carry no adjoint, but each iteration's reverse puts */
      if (gs[i].written && gs[i].obj != cobj) cu->iw[c] = 1; /* them back (the counter runs plainly) */
      continue;
    }
    if (gs[i].written) cu->wr[c] = 1, cu->wincr[c] |= (uint8_t)(incr_class(gs[i].cls) ? 1 : 2);
    if (gs[i].read && !incr_class(gs[i].cls)) cu->rd[c] = 1; /* an increment reads nothing (sec. 2: category i) */
  }
  for (i = last + 1; i < al->nacc && ok; i++) {
    int32_t s = al->acc_set[i];
    int def = al->acc_kind[i] == CG_KA_DEF && r->acc_eff[i];
    for (j = 0; j < al->set_n[s]; j++) {
      int32_t o = al->addr[al->set_off[s] + j].obj, c = al->obj_class[o];
      if (cu->wr[c] && !(cu->wincr[c] == 1 && r->acc_incr[i])) ok = 0;
      if (cu->rd[c] && def) ok = 0;
      if (cu->iw[c] && al->acc_kind[i] == CG_KA_USE) ok = 0; /* reads the value the reverse put back */
      if (cu->iw[c] && def && !al->acc_may[i] && al->set_n[s] == 1 && al->obj_cells[o] == 1 &&
          r->k->stmt_parent[al->acc_stmt[i]] == parent)
        cu->iw[c] = 0; /* a scalar set again after the loop, on every path (the next loop's j = 0) */
    }
  }
  return ok;
}

/* Whether object o is read before loop l or anywhere in a loop enclosing it. */
static int read_around(run *r, int32_t l, int32_t o) {
  cg_kalias *al = r->al;
  uint32_t i, j, first = (uint32_t)r->lacc[r->lacc_off[l]];
  int32_t c = al->obj_class[o], top = l;
  while (r->g->l_parent[top] >= 0) top = r->g->l_parent[top];
  for (i = 0; i < al->nacc; i++) {
    int32_t s = al->acc_set[i];
    if (al->acc_kind[i] != CG_KA_USE || r->acc_incr[i]) continue; /* an increment needs no value */
    if (i >= first && !(top != l && in_loop(r, al->acc_stmt[i], top))) continue;
    for (j = 0; j < al->set_n[s]; j++)
      if (al->obj_class[al->addr[al->set_off[s] + j].obj] == c) return 1;
  }
  return 0;
}

/* An (object, access) pair of a loop; sorted by object, then walk order. */
typedef struct oacc {
  int32_t obj, acc;
} oacc;

static int oacc_cmp(void *ctx, const void *pa, const void *pb) {
  const oacc *a = (const oacc *)pa, *b = (const oacc *)pb;
  (void)ctx;
  if (a->obj != b->obj) return a->obj < b->obj ? -1 : 1;
  return (a->acc > b->acc) - (a->acc < b->acc);
}

/* The variables of loop l, classified, sorted by name, into gs (ng of them;
 * room for np, the loop's (object, access) pairs). */
static int loop_groups(run *r, int32_t l, grp **gs, uint32_t *ng, uint32_t *np) {
  cg_addg *g = r->g;
  cg_kalias *al = r->al;
  uint32_t i, j, n = 0, na = r->lacc_off[l + 1] - r->lacc_off[l];
  int32_t cobj = g->l_counter[l] >= 0 ? al->sym_obj[cg_kalias_lsym(al, g->l_counter[l])] : -1, *acc;
  oacc *pr;
  *np = 0, *ng = 0;
  for (i = 0; i < na; i++) *np += al->set_n[al->acc_set[r->lacc[r->lacc_off[l] + i]]];
  pr = CG_NEW(g->A, oacc, *np + 1), acc = CG_NEW(g->A, int32_t, *np + 1), *gs = CG_NEW(g->A, grp, *np + 1);
  if (pr && acc && *gs) {
    for (i = 0; i < na; i++) {
      int32_t a = r->lacc[r->lacc_off[l] + i], s = al->acc_set[a];
      for (j = 0; j < al->set_n[s]; j++) pr[n].obj = al->addr[al->set_off[s] + j].obj, pr[n++].acc = a;
    }
    if (cg_sort(g->A, pr, n, sizeof *pr, oacc_cmp, NULL)) r->err = CG_ENOMEM;
    for (i = 0; i < n; i++) acc[i] = pr[i].acc;
    for (i = 0; i < n && !r->err; i = j) {
      grp *gp = &(*gs)[(*ng)++];
      for (j = i; j < n && pr[j].obj == pr[i].obj; j++) {}
      gp->obj = pr[i].obj, gp->name = cg_kalias_obj_name(al, (uint32_t)pr[i].obj);
      classify(r, l, acc + i, j - i, gp);
      if (pr[i].obj == cobj) gp->cls = -1; /* the counter: no class */
    }
    if (!r->err && cg_sort(g->A, *gs, *ng, sizeof **gs, grp_cmp, NULL)) r->err = CG_ENOMEM;
  } else {
    r->err = CG_ENOMEM;
  }
  CG_FREE(g->A, pr, oacc, *np + 1), CG_FREE(g->A, acc, int32_t, *np + 1);
  return r->err;
}

/* Two regions of one class the loop touches, one of them written: their
 * names into o1, o2 (the first parameter first); 1 if found. */
static int find_overlap(const cg_kalias *al, const grp *gs, uint32_t ng, char *o1, char *o2, size_t size) {
  uint32_t i, j;
  for (i = 0; i < ng; i++)
    for (j = i + 1; j < ng; j++) {
      int32_t a = gs[i].obj, b = gs[j].obj;
      if (al->obj_kind[a] == CG_KO_REGION && al->obj_kind[b] == CG_KO_REGION &&
          al->obj_class[a] == al->obj_class[b] && (gs[i].written || gs[j].written)) {
        int lo = al->obj_sym[a] < al->obj_sym[b];
        snprintf(o1, size, "%s", cg_kalias_obj_name(al, (uint32_t)(lo ? a : b)));
        snprintf(o2, size, "%s", cg_kalias_obj_name(al, (uint32_t)(lo ? b : a)));
        return 1;
      }
    }
  return 0;
}

/* Appends loop l's variables to the table; *bad the group refused first
 * (its first access earliest), -1. */
static int loop_table(cg_addg *g, int32_t l, const grp *gs, uint32_t ng, int32_t *bad) {
  uint32_t i;
  *bad = -1;
  g->la_off[l] = g->nla_tmp;
  for (i = 0; i < ng; i++) {
    uint32_t n = g->nla_tmp;
    if (cg_reserve(g->A, (void **)&g->la_obj, &g->cap_la[0], n + 1, 4) ||
        cg_reserve(g->A, (void **)&g->la_class, &g->cap_la[1], n + 1, 4) ||
        cg_reserve(g->A, (void **)&g->la_written, &g->cap_la[2], n + 1, 1) ||
        cg_reserve(g->A, (void **)&g->la_read, &g->cap_la[3], n + 1, 1))
      return CG_ENOMEM;
    g->la_obj[n] = gs[i].obj, g->la_class[n] = gs[i].cls;
    g->la_written[n] = (uint8_t)gs[i].written, g->la_read[n] = (uint8_t)gs[i].read;
    g->nla_tmp++;
    if (gs[i].cls >= 0 && !exempt(gs[i].cls) && (*bad < 0 || gs[i].first < gs[*bad].first)) *bad = (int32_t)i;
  }
  return CG_OK;
}

/* Appends the edges loop l carries that no class exempts (the counter's
 * are; a region's are not when regions may overlap). */
static int loop_carried(cg_addg *g, int32_t l, const grp *gs, uint32_t ng, int overlap) {
  uint32_t i, j;
  g->lc_off[l] = g->nlc_tmp;
  for (i = 0; i < g->nedge; i++) {
    int32_t o = g->e_obj[i], cl = -2;
    if (g->e_carried[i] != l) continue;
    for (j = 0; j < ng; j++)
      if (gs[j].obj == o) cl = gs[j].cls;
    if (cl == -1 || (cl >= 0 && exempt(cl) && !(overlap && g->al->obj_kind[o] == CG_KO_REGION))) continue;
    if (push_i32(g->A, &g->lc_edge, &g->cap_lc, g->nlc_tmp, (int32_t)i)) return CG_ENOMEM;
    g->nlc_tmp++;
  }
  return CG_OK;
}

/* Appends the snapshot of an accepted loop that is not terminal: the
 * counter, what L reads and writes (in place: the re-run reads the entry
 * value, an increment of itself included, y[i] = y[i] + a[i]), and what code
 * before L reads the value of.  Increment and reduction targets too,
 * although neither the re-run nor the adjoint needs their values: the
 * adjoint code recomputes F's results from F's entry state once the
 * reverse sweep has restored it, and a target's entry value may be what
 * the increments add to.  (The runtime saves each cell once per run.)
 * What is only read by increments elsewhere is restored by those. */
static int loop_snapshot(run *r, int32_t l, const grp *gs, uint32_t ng) {
  cg_addg *g = r->g;
  uint32_t i;
  g->ls_off[l] = g->nls_tmp;
  if (!g->l_accept[l] || g->l_terminal[l]) return CG_OK;
  for (i = 0; i < ng; i++) {
    int incr = incr_class(gs[i].cls); /* for F's entry state: see below */
    int in_place = (gs[i].read || incr) && !(cg_addg_class_flags(gs[i].cls) & CG_ACF_FIRST); /* a private is written first */
    if (!gs[i].written || !(in_place || gs[i].cls == -1 || read_around(r, l, gs[i].obj))) continue;
    if (push_i32(g->A, &g->ls_obj, &g->cap_ls, g->nls_tmp, gs[i].obj)) return CG_ENOMEM;
    g->nls_tmp++;
  }
  return CG_OK;
}

/* Loop l: its variables, verdict and reason, terminal, snapshot. */
/* {==== pointer variables carried from one iteration to the next ====}
 * A pointer variable is no object of the alias analysis (its value is
 * followed, not accessed), so a loop that assigns one and reads it before
 * the assignment in an iteration (best = &a[i] after `a[i] > *best`; q++)
 * carries a value the data-dependence graph does not see. */

typedef struct pcw {
  const cg_kernel *k;
  cg_alloc *A;
  const uint8_t *asg; /* per symbol: a pointer variable the loop assigns */
  int32_t found, at;  /* the first such read: its symbol and expression, -1 */
  int err;
} pcw;

/* Marks the pointer variables slice from..n assigns (nested too). */
static void ptr_assigned(const cg_kernel *k, int32_t from, int32_t n, uint8_t *asg) {
  int32_t i;
  for (i = 0; i < n; i++) {
    int32_t st = k->list[from + i], lhs = -1;
    switch (CG_KSTMT(k, st, KIND)) {
      case CG_KST_ASSIGN: lhs = CG_KSTMT(k, st, ASSIGN_LHS); break;
      case CG_KST_ALLOC: lhs = CG_KSTMT(k, st, ALLOC_LHS); break;
      case CG_KST_IF:
        ptr_assigned(k, CG_KSTMT_SLICE(k, st, IF_THEN), asg), ptr_assigned(k, CG_KSTMT_SLICE(k, st, IF_ELSE), asg);
        break;
      case CG_KST_LOOP:
        ptr_assigned(k, CG_KSTMT_SLICE(k, st, LOOP_PRE), asg), ptr_assigned(k, CG_KSTMT_SLICE(k, st, LOOP_BODY), asg);
        ptr_assigned(k, CG_KSTMT_SLICE(k, st, LOOP_STEP), asg);
        break;
      default: break;
    }
    if (lhs >= 0 && CG_KEXPR(k, lhs, OP) == CG_KE_VAR && CG_KSYM(k, CG_KEXPR(k, lhs, SYM), PTR))
      asg[CG_KEXPR(k, lhs, SYM)] = 1;
  }
}

/* The reads of expression x (skip: the lhs variable itself, a definition). */
static void pc_reads(pcw *w, int32_t x, const uint8_t *def, int skip) {
  int32_t o[3], s;
  int n, i, op;
  if (x < 0 || w->found >= 0) return;
  op = CG_KEXPR(w->k, x, OP), s = CG_KEXPR(w->k, x, SYM);
  if ((op == CG_KE_VAR || op == CG_KE_ELEM || op == CG_KE_ADDR) && !skip && CG_KSYM(w->k, s, PTR) && w->asg[s] &&
      !def[s]) {
    w->found = s, w->at = x;
    return;
  }
  n = cg_kexpr_operands(w->k, x, o);
  for (i = 0; i < n; i++) pc_reads(w, o[i], def, 0);
}

static void pc_slice(pcw *w, int32_t from, int32_t n, uint8_t *def);

/* One statement, def the pointer variables surely assigned before it in this iteration. */
static void pc_stmt(pcw *w, int32_t st, uint8_t *def) {
  const cg_kernel *k = w->k;
  int32_t i, lhs;
  uint8_t *d2;
  switch (CG_KSTMT(k, st, KIND)) {
    case CG_KST_ASSIGN: case CG_KST_ALLOC:
      lhs = CG_KSTMT(k, st, KIND) == CG_KST_ASSIGN ? CG_KSTMT(k, st, ASSIGN_LHS) : CG_KSTMT(k, st, ALLOC_LHS);
      pc_reads(w, CG_KSTMT(k, st, KIND) == CG_KST_ASSIGN ? CG_KSTMT(k, st, ASSIGN_RHS) : CG_KSTMT(k, st, ALLOC_COUNT), def, 0);
      pc_reads(w, lhs, def, CG_KEXPR(k, lhs, OP) == CG_KE_VAR);
      if (CG_KEXPR(k, lhs, OP) == CG_KE_VAR && CG_KSYM(k, CG_KEXPR(k, lhs, SYM), PTR)) def[CG_KEXPR(k, lhs, SYM)] = 1;
      break;
    case CG_KST_CALL:
      for (i = 0; i < CG_KSTMT_N(k, st, CALL_ARGS); i++) pc_reads(w, k->args[CG_KSTMT(k, st, CALL_ARGS) + i], def, 0);
      pc_reads(w, CG_KSTMT(k, st, CALL_LHS), def, 0);
      break;
    case CG_KST_PASSIVE:
      for (i = 0; i < CG_KSTMT_N(k, st, PASSIVE_ARGS); i++) pc_reads(w, k->args[CG_KSTMT(k, st, PASSIVE_ARGS) + i], def, 0);
      break;
    case CG_KST_RETURN: pc_reads(w, CG_KSTMT(k, st, RETURN_VALUE), def, 0); break;
    case CG_KST_FREE: pc_reads(w, CG_KSTMT(k, st, FREE_PTR), def, 0); break;
    case CG_KST_IF:
      pc_reads(w, CG_KSTMT(k, st, IF_COND), def, 0);
      if (!(d2 = CG_NEW(w->A, uint8_t, k->nsym + 1))) { w->err = CG_ENOMEM; return; }
      memcpy(d2, def, k->nsym);
      pc_slice(w, CG_KSTMT_SLICE(k, st, IF_THEN), d2);
      pc_slice(w, CG_KSTMT_SLICE(k, st, IF_ELSE), def);
      for (i = 0; i < (int32_t)k->nsym; i++) def[i] = def[i] && d2[i]; /* assigned on both sides */
      CG_FREE(w->A, d2, uint8_t, k->nsym + 1);
      break;
    case CG_KST_LOOP: /* its first iteration sees this iteration's values; it may run none */
      pc_slice(w, CG_KSTMT_SLICE(k, st, LOOP_PRE), def);
      if (!(d2 = CG_NEW(w->A, uint8_t, k->nsym + 1))) { w->err = CG_ENOMEM; return; }
      memcpy(d2, def, k->nsym);
      if (CG_KSTMT(k, st, FLAGS) != CG_KL_DO) pc_reads(w, CG_KSTMT(k, st, LOOP_COND), d2, 0);
      pc_slice(w, CG_KSTMT_SLICE(k, st, LOOP_BODY), d2), pc_slice(w, CG_KSTMT_SLICE(k, st, LOOP_STEP), d2);
      if (CG_KSTMT(k, st, FLAGS) == CG_KL_DO) {
        pc_reads(w, CG_KSTMT(k, st, LOOP_COND), d2, 0);
        memcpy(def, d2, k->nsym); /* a do loop runs its body once */
      }
      CG_FREE(w->A, d2, uint8_t, k->nsym + 1);
      break;
    default: break;
  }
}

static void pc_slice(pcw *w, int32_t from, int32_t n, uint8_t *def) {
  int32_t i;
  for (i = 0; i < n && w->found < 0 && !w->err; i++) pc_stmt(w, w->k->list[from + i], def);
}

/* The first read in loop statement L of a pointer variable the loop
 * assigns, where an iteration may read the value of an earlier one: its
 * expression, -1 none (*err CG_ENOMEM on failure). */
static int32_t ptr_carried(cg_alloc *A, const cg_kernel *k, int32_t L, int *err) {
  pcw w;
  uint8_t *asg = CG_NEW(A, uint8_t, k->nsym + 1), *def = CG_NEW(A, uint8_t, k->nsym + 1);
  w.k = k, w.A = A, w.asg = asg, w.found = w.at = -1, w.err = 0;
  if (!asg || !def) w.err = CG_ENOMEM;
  else {
    memset(asg, 0, k->nsym), memset(def, 0, k->nsym);
    ptr_assigned(k, CG_KSTMT_SLICE(k, L, LOOP_BODY), asg), ptr_assigned(k, CG_KSTMT_SLICE(k, L, LOOP_STEP), asg);
    if (CG_KSTMT(k, L, FLAGS) != CG_KL_DO) pc_reads(&w, CG_KSTMT(k, L, LOOP_COND), def, 0);
    pc_slice(&w, CG_KSTMT_SLICE(k, L, LOOP_BODY), def), pc_slice(&w, CG_KSTMT_SLICE(k, L, LOOP_STEP), def);
    if (CG_KSTMT(k, L, FLAGS) == CG_KL_DO) pc_reads(&w, CG_KSTMT(k, L, LOOP_COND), def, 0);
  }
  if (asg) CG_FREE(A, asg, uint8_t, k->nsym + 1);
  if (def) CG_FREE(A, def, uint8_t, k->nsym + 1);
  *err = w.err;
  return w.at;
}

/* }==== */

static int do_loop(run *r, int32_t l, cls_use *cu) {
  cg_addg *g = r->g;
  uint32_t ng = 0, np = 0;
  int32_t bad = -1, pcx = -1;
  grp *gs = NULL;
  int overlap = 0;
  char o1[64] = "", o2[64] = "";
  /* a block allocated in the loop: every iteration's is one abstract object
   * (the site's), so its cells' dependences are not the loop's to judge */
  int32_t heap = heap_stmt(r->k, CG_KSTMT_SLICE(r->k, g->l_stmt[l], LOOP_BODY));
  if (!loop_groups(r, l, &gs, &ng, &np)) {
    overlap = find_overlap(r->al, gs, ng, o1, o2, sizeof o1);
    if (loop_table(g, l, gs, ng, &bad) || loop_carried(g, l, gs, ng, overlap)) r->err = CG_ENOMEM;
  }
  if (!r->err) pcx = ptr_carried(g->A, r->k, g->l_stmt[l], &r->err);
  if (!r->err) {
    g->l_indep[l] = (uint8_t)(!overlap && bad < 0 && pcx < 0);
    if (heap >= 0) g->l_indep[l] = 0;
    g->l_accept[l] = (uint8_t)(g->l_indep[l] && g->l_counter[l] >= 0 && !r->l_exit[l]);
    if (heap >= 0)
      say(r, l, "%s at %d:%d inside the loop (its blocks are one object of the analysis)",
          CG_KSTMT(r->k, heap, KIND) == CG_KST_ALLOC ? "an allocation" : "a free", (int)CG_KSTMT(r->k, heap, LINE),
          (int)CG_KSTMT(r->k, heap, COL));
    else if (overlap) say(r, l, "%s and %s may overlap", o1, o2);
    else if (bad >= 0) refusal(r, l, &gs[bad]);
    else if (pcx >= 0)
      say(r, l, "the pointer %s at %d:%d may hold an earlier iteration's value", r->k->names[CG_KSYM(r->k,
          CG_KEXPR(r->k, pcx, SYM), NAME)], (int)CG_KEXPR(r->k, pcx, LINE), (int)CG_KEXPR(r->k, pcx, COL));
    else if (r->l_exit[l]) say(r, l, "a break or return leaves the loop before its last iteration");
    else if (g->l_counter[l] < 0) say(r, l, "no loop counter: not a for loop stepping one int variable by a constant");
    else say(r, l, "no loop-carried dependence");
    g->l_terminal[l] = (uint8_t)(g->l_accept[l] && g->l_parent[l] < 0 && terminal(r, l, gs, ng, cu));
    if (g->l_accept[l] && !g->l_terminal[l]) { /* a dry run snapshots what it writes: not a block of the heap */
      uint32_t i;
      uint8_t *seen = CG_NEW(g->A, uint8_t, r->k->nfunc + 1);
      int32_t p = -1;
      if (!seen) r->err = CG_ENOMEM; /* (gs is freed below) */
      else {
        memset(seen, 0, r->k->nfunc + 1);
        p = passive_stmt(r->k, CG_KSTMT_SLICE(r->k, g->l_stmt[l], LOOP_BODY), seen);
        CG_FREE(g->A, seen, uint8_t, r->k->nfunc + 1);
      }
      if (p >= 0) {
        g->l_accept[l] = 0;
        say(r, l, "a dry run would run %s at %d:%d again when it recomputes an iteration",
            cg_kpassive_fn(CG_KSTMT(r->k, p, FLAGS)), (int)CG_KSTMT(r->k, p, LINE), (int)CG_KSTMT(r->k, p, COL));
      }
      for (i = 0; i < ng; i++)
        if (gs[i].written && r->al->obj_kind[gs[i].obj] == CG_KO_HEAP) {
          if (!g->l_accept[l]) break;
          g->l_accept[l] = 0;
          say(r, l, "a dry run would snapshot %s, a block whose address only the run knows",
              cg_kalias_obj_name(r->al, (uint32_t)gs[i].obj));
          break;
        }
    }
    if (loop_snapshot(r, l, gs, ng)) r->err = CG_ENOMEM;
  }
  CG_FREE(g->A, gs, grp, np + 1);
  return r->err;
}

/* }==== */

/* {==== running ====} */

void cg_addg_free(cg_addg *g) {
  cg_alloc *A;
  if (!g) return;
  A = g->A;
  CG_FREE(A, g->node_stmt, int32_t, g->al->ns + 1), CG_FREE(A, g->node_kind, int32_t, g->al->ns + 1);
  CG_FREE(A, g->stmt_node, int32_t, g->al->ns + 1);
  CG_FREE(A, g->e_from, int32_t, g->cap_e[0]), CG_FREE(A, g->e_to, int32_t, g->cap_e[1]);
  CG_FREE(A, g->e_obj, int32_t, g->cap_e[2]), CG_FREE(A, g->e_kind, int32_t, g->cap_e[3]);
  CG_FREE(A, g->e_carried, int32_t, g->cap_e[4]), CG_FREE(A, g->e_to_acc, int32_t, g->cap_e[5]);
  CG_FREE(A, g->e_from_acc, int32_t, g->cap_e7);
  CG_FREE(A, g->l_stmt, int32_t, g->nloop + 1), CG_FREE(A, g->l_depth, int32_t, g->nloop + 1);
  CG_FREE(A, g->l_parent, int32_t, g->nloop + 1), CG_FREE(A, g->l_counter, int32_t, g->nloop + 1);
  CG_FREE(A, g->l_pragma, uint8_t, g->nloop + 1), CG_FREE(A, g->l_indep, uint8_t, g->nloop + 1);
  CG_FREE(A, g->l_accept, uint8_t, g->nloop + 1), CG_FREE(A, g->l_terminal, uint8_t, g->nloop + 1);
  CG_FREE(A, g->l_reason, char, (size_t)(g->nloop + 1) * CG_ADDG_REASON);
  CG_FREE(A, g->la_off, uint32_t, g->nloop + 1), CG_FREE(A, g->lc_off, uint32_t, g->nloop + 1);
  CG_FREE(A, g->ls_off, uint32_t, g->nloop + 1);
  CG_FREE(A, g->la_obj, int32_t, g->cap_la[0]), CG_FREE(A, g->la_class, int32_t, g->cap_la[1]);
  CG_FREE(A, g->la_written, uint8_t, g->cap_la[2]), CG_FREE(A, g->la_read, uint8_t, g->cap_la[3]);
  CG_FREE(A, g->lc_edge, int32_t, g->cap_lc), CG_FREE(A, g->ls_obj, int32_t, g->cap_ls);
  CG_FREE(A, g, cg_addg, 1);
}

static void run_free(run *r) {
  cg_alloc *A = r->g->A;
  uint32_t ns = r->al->ns, nl = r->g->nloop;
  CG_FREE(A, r->stmt_loop, int32_t, ns + 1), CG_FREE(A, r->stmt_in, int32_t, ns + 1);
  CG_FREE(A, r->acc_obj, int32_t, r->al->nacc + 1), CG_FREE(A, r->acc_eff, uint8_t, r->al->nacc + 1);
  CG_FREE(A, r->acc_incr, uint8_t, r->al->nacc + 1);
  CG_FREE(A, r->l_cvn, int32_t, nl + 1), CG_FREE(A, r->l_lo, int64_t, nl + 1), CG_FREE(A, r->l_hi, int64_t, nl + 1);
  CG_FREE(A, r->l_range, uint8_t, nl + 1), CG_FREE(A, r->l_exit, uint8_t, nl + 1);
  CG_FREE(A, r->l_step, int64_t, nl + 1);
  CG_FREE(A, r->vn_loop, int32_t, r->al->nvn + 1);
  CG_FREE(A, r->lacc_off, uint32_t, nl + 2), CG_FREE(A, r->lacc, int32_t, r->nlacc + 1);
}

/* Whether text (pragmas joined by newlines) has a line equal to want. */
static int has_line(const char *text, const char *want) {
  size_t n = strlen(want);
  while (text) {
    const char *nl = strchr(text, '\n');
    size_t len = nl ? (size_t)(nl - text) : strlen(text);
    if (len == n && !strncmp(text, want, n)) return 1;
    text = nl ? nl + 1 : NULL;
  }
  return 0;
}

/* Nodes, loops, counters, the accesses' facts. */
static int prepare(run *r) {
  cg_addg *g = r->g;
  cg_kalias *al = r->al;
  const cg_kernel *k = r->k;
  uint32_t i, ns = al->ns, nl = 0, a;
  cg_alloc *A = g->A;
  g->node_stmt = CG_NEW(A, int32_t, ns + 1), g->node_kind = CG_NEW(A, int32_t, ns + 1);
  g->stmt_node = CG_NEW(A, int32_t, ns + 1);
  r->stmt_loop = CG_NEW(A, int32_t, ns + 1), r->stmt_in = CG_NEW(A, int32_t, ns + 1);
  if (!g->node_stmt || !g->node_kind || !g->stmt_node || !r->stmt_loop || !r->stmt_in) return CG_ENOMEM;
  for (i = 0; i < ns; i++) {
    int32_t st = al->s_lo + (int32_t)i;
    int kind = CG_KSTMT(k, st, KIND);
    g->stmt_node[i] = r->stmt_loop[i] = r->stmt_in[i] = -1;
    if (CG_KSTMT(k, st, FUNC) != g->func) continue;
    if (kind == CG_KST_LOOP) r->stmt_loop[i] = (int32_t)nl++;
    if (kind == CG_KST_ASSIGN || kind == CG_KST_CALL || kind == CG_KST_IF || kind == CG_KST_LOOP) {
      g->node_stmt[g->nnode] = st, g->stmt_node[i] = (int32_t)g->nnode;
      g->node_kind[g->nnode++] = kind == CG_KST_ASSIGN ? CG_AN_ASSIGN : kind == CG_KST_CALL ? CG_AN_CALL
                                 : kind == CG_KST_IF ? CG_AN_COND : CG_AN_LOOP;
    }
  }
  g->nloop = nl;
  g->l_stmt = CG_NEW(A, int32_t, nl + 1), g->l_depth = CG_NEW(A, int32_t, nl + 1);
  g->l_parent = CG_NEW(A, int32_t, nl + 1), g->l_counter = CG_NEW(A, int32_t, nl + 1);
  g->l_pragma = CG_NEW(A, uint8_t, nl + 1), g->l_indep = CG_NEW(A, uint8_t, nl + 1);
  g->l_accept = CG_NEW(A, uint8_t, nl + 1), g->l_terminal = CG_NEW(A, uint8_t, nl + 1);
  g->l_reason = CG_NEW(A, char, (size_t)(nl + 1) * CG_ADDG_REASON);
  g->la_off = CG_NEW(A, uint32_t, nl + 1), g->lc_off = CG_NEW(A, uint32_t, nl + 1);
  g->ls_off = CG_NEW(A, uint32_t, nl + 1);
  r->l_cvn = CG_NEW(A, int32_t, nl + 1), r->l_lo = CG_NEW(A, int64_t, nl + 1), r->l_hi = CG_NEW(A, int64_t, nl + 1);
  r->l_range = CG_NEW(A, uint8_t, nl + 1), r->l_exit = CG_NEW(A, uint8_t, nl + 1);
  r->l_step = CG_NEW(A, int64_t, nl + 1);
  r->vn_loop = CG_NEW(A, int32_t, al->nvn + 1);
  r->acc_obj = CG_NEW(A, int32_t, al->nacc + 1), r->acc_eff = CG_NEW(A, uint8_t, al->nacc + 1);
  r->acc_incr = CG_NEW(A, uint8_t, al->nacc + 1);
  r->lacc_off = CG_NEW(A, uint32_t, nl + 2);
  if (!g->l_stmt || !g->l_depth || !g->l_parent || !g->l_counter || !g->l_pragma || !g->l_indep ||
      !g->l_accept || !g->l_terminal || !g->l_reason || !g->la_off || !g->lc_off || !g->ls_off ||
      !r->l_cvn || !r->l_lo || !r->l_hi || !r->l_range || !r->l_exit || !r->vn_loop || !r->acc_obj ||
      !r->acc_eff || !r->acc_incr || !r->lacc_off || !r->l_step)
    return CG_ENOMEM;
  memset(g->l_reason, 0, (size_t)(nl + 1) * CG_ADDG_REASON);
  for (i = 0; i < al->nvn; i++) r->vn_loop[i] = -1;
  for (i = 0; i < ns; i++) {
    int32_t st = al->s_lo + (int32_t)i, p;
    if (CG_KSTMT(k, st, FUNC) != g->func) continue;
    for (p = st; p >= 0 && CG_KSTMT(k, p, KIND) != CG_KST_LOOP; p = k->stmt_parent[p]) {}
    r->stmt_in[i] = p >= 0 ? r->stmt_loop[widx(al, p)] : -1;
    if (r->stmt_loop[i] >= 0) g->l_stmt[r->stmt_loop[i]] = st;
  }
  for (i = 0; i < nl; i++) {
    int32_t L = g->l_stmt[i], pr = CG_KSTMT(k, L, PRAGMA), v;
    int64_t step = 0;
    g->l_parent[i] = loop_parent(r, (int32_t)i);
    for (v = g->l_parent[i], g->l_depth[i] = 1; v >= 0; v = loop_parent(r, v)) g->l_depth[i]++;
    g->l_pragma[i] = (uint8_t)(pr >= 0 && has_line(k->names[pr], "independent"));
    g->l_counter[i] = counter_of(k, L, &step);
    r->l_step[i] = g->l_counter[i] >= 0 ? step : 0;
    r->l_exit[i] = (uint8_t)has_exit(k, CG_KSTMT_SLICE(k, L, LOOP_BODY), 1);
    r->l_cvn[i] = -1, r->l_range[i] = 0;
    if (g->l_counter[i] >= 0) {
      for (v = al->loop_vn0[widx(al, L)]; v < al->loop_vn1[widx(al, L)]; v++)
        if (al->vn_sym[v] == g->l_counter[i]) { r->l_cvn[i] = v; break; }
      if (r->l_cvn[i] >= 0) r->vn_loop[r->l_cvn[i]] = (int32_t)i;
      r->l_range[i] = (uint8_t)counter_range(k, L, g->l_counter[i], step, &r->l_lo[i], &r->l_hi[i]);
    }
  }
  for (a = 0; a < al->nacc; a++) {
    int32_t st = al->acc_stmt[a], x = al->acc_expr[a], sx = cg_addg_incr_self(k, st);
    r->acc_obj[a] = first_obj(al, (int32_t)a);
    r->acc_eff[a] = al->acc_kind[a] == CG_KA_DEF;
    if (r->acc_eff[a] && CG_KSTMT(k, st, KIND) == CG_KST_CALL && x != CG_KSTMT(k, st, CALL_LHS)) {
      int32_t slot = arg_slot(k, st, x), callee = CG_KSTMT(k, st, CALL_CALLEE);
      r->acc_eff[a] = (uint8_t)(slot < 0 || callee_writes(k, callee, CG_KFUNC(k, callee, SYM0) + slot));
    }
    r->acc_incr[a] =
        (uint8_t)(sx >= 0 && (x == sx || (al->acc_kind[a] == CG_KA_DEF && x == CG_KSTMT(k, st, ASSIGN_LHS))));
  }
  /* the accesses of each loop (its own and its nested loops'), walk order */
  memset(r->lacc_off, 0, (nl + 2) * sizeof(uint32_t));
  for (a = 0; a < al->nacc; a++) {
    int32_t l;
    for (l = r->stmt_in[widx(al, al->acc_stmt[a])]; l >= 0; l = g->l_parent[l]) r->lacc_off[l + 2]++;
  }
  for (i = 0; i < nl; i++) r->lacc_off[i + 2] += r->lacc_off[i + 1];
  r->nlacc = r->lacc_off[nl + 1];
  if (!(r->lacc = CG_NEW(A, int32_t, r->nlacc + 1))) return CG_ENOMEM;
  for (a = 0; a < al->nacc; a++) {
    int32_t l;
    for (l = r->stmt_in[widx(al, al->acc_stmt[a])]; l >= 0; l = g->l_parent[l]) r->lacc[r->lacc_off[l + 1]++] = (int32_t)a;
  }
  return CG_OK;
}

/* The message of a run that ran out of memory with nedge edges made. */
static void oom(const cg_kalias *al, uint32_t nedge, cg_error *e) {
  const cg_kernel *k = al->k;
  cg_seterr(e, CG_ENOMEM, "%s: %s: out of memory for the dependence graph (%u edges made)",
            k->file ? k->file : "kernel", k->names[CG_KFUNC(k, al->func, NAME)], nedge);
}

cg_addg *cg_addg_run(cg_alloc *A, cg_kalias *al, cg_error *e) {
  cg_addg *g = CG_NEW(A, cg_addg, 1);
  run r;
  cls_use cu;
  uint32_t l;
  if (!g) return oom(al, 0, e), NULL;
  memset(g, 0, sizeof *g);
  memset(&r, 0, sizeof r);
  memset(&cu, 0, sizeof cu);
  g->A = A, g->al = al, g->func = al->func;
  r.g = g, r.al = al, r.k = al->k;
  if (prepare(&r) || build_edges(&r)) goto oom;
  cu.wr = CG_NEW(A, uint8_t, 4 * (size_t)al->ncls + 1);
  if (!cu.wr) goto oom;
  cu.rd = cu.wr + al->ncls, cu.wincr = cu.rd + al->ncls, cu.iw = cu.wincr + al->ncls;
  for (l = 0; l < g->nloop; l++)
    if (do_loop(&r, (int32_t)l, &cu)) goto oom;
  g->la_off[g->nloop] = g->nla_tmp, g->lc_off[g->nloop] = g->nlc_tmp, g->ls_off[g->nloop] = g->nls_tmp;
  CG_FREE(A, cu.wr, uint8_t, 4 * (size_t)al->ncls + 1);
  run_free(&r);
  return g;
oom:
  if (cu.wr) CG_FREE(A, cu.wr, uint8_t, 4 * (size_t)al->ncls + 1);
  run_free(&r);
  oom(al, g->nedge, e);
  cg_addg_free(g);
  return NULL;
}

/* }==== */
