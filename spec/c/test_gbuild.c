/* test_gbuild.c: the graph-building interface (csrc/graph/cg_gbuild.h).
 *
 * - cg_graph.h and cg_gbuild.h stand alone: they compile here before any
 *   tape header and do not pull cg_tape.h (or cg_ops.h) in;
 * - small graphs made directly: Figure 1 of Bischof & Hu 1991 (x += y), the
 *   rules behind the verbs (aliases, hoists, dead roots, lazy constants),
 *   origins (file:line:col per node and guard, in messages and the dump),
 *   bad arguments (refused, the builder goes on), failed allocations
 *   (every k-th one: NULL, nothing leaked);
 * - every example tape under every option set, built twice, by
 *   cg_graph_build and by a driver of the interface written here (record by
 *   record, its own opcode table), must give the same graph field by field.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "graph/cg_gbuild.h"
#include "graph/cg_graph.h"
#if defined(CG_TAPE_H) || defined(CG_OPS_H)
#error "cg_graph.h or cg_gbuild.h includes the tape's headers"
#endif

#include <math.h>

#include "check.h"
#include "graph/cg_gtape.h"

/* {==== small graphs ====} */

static uint64_t in1(uint64_t a, uint64_t *buf) { return buf[0] = a, 0; }

/* Figure 1: x = x + y makes a new node for x whose children are the old x and y. */
static void test_figure1(void) {
  cg_error e;
  cg_gbuild *b = cg_gbuild_begin(NULL, NULL, 1, NULL, &e);
  uint64_t in[2] = {0, 1};
  cg_graph *g;
  CHECK(b != NULL);
  CHECK(cg_gbuild_independent(b, 0, 2.0) == CG_OK);
  CHECK(cg_gbuild_independent(b, 1, 3.0) == CG_OK);
  CHECK(cg_gbuild_op(b, 0, CG_G_ADD, 0, in, 2) == CG_OK);
  CHECK(cg_gbuild_dependent(b, 0) == CG_OK);
  g = cg_gbuild_finish(b);
  CHECK(g && g->n == 3 && g->n_indep == 2 && g->n_dep == 1);
  CHECK(g && g->op[g->op_start[2]] == CG_G_ADD && g->kids[g->kid_start[2]] == 0 &&
        g->kids[g->kid_start[2] + 1] == 1 && g->val[2] == 5.0 && g->dep[0] == 2);
  CHECK(g && g->st.tape_ops == 4 && g->origin == NULL); /* no source origin: none kept */
  cg_graph_free(g);
}

/* Assignment aliases, a unary chain hoisted into one supernode, a
 * constant overwritten unread removed as a dead root, an uninitialized read. */
static void test_rules(void) {
  cg_error e;
  cg_gbuild *b = cg_gbuild_begin(NULL, NULL, 1, NULL, &e);
  uint64_t in[1];
  cg_graph *g;
  cg_gbuild_independent(b, 0, 0.5);
  CHECK(cg_gbuild_assign(b, 1, 0) == CG_OK);                       /* alias */
  in1(1, in);
  cg_gbuild_op(b, 2, CG_G_SIN, 0, in, 1);
  in1(2, in);
  cg_gbuild_op(b, 2, CG_G_EXP, 0, in, 1);                          /* hoisted: sin > exp */
  cg_gbuild_constant(b, 3, 7.0);
  cg_gbuild_constant(b, 3, 8.0);                                   /* 7 dies unread */
  in1(9, in);
  CHECK(cg_gbuild_op(b, 4, CG_G_NEG, 0, in, 1) == CG_OK);          /* 9 never written */
  cg_gbuild_dependent(b, 2);
  cg_gbuild_dependent(b, 4);
  g = cg_gbuild_finish(b);
  CHECK(g != NULL);
  if (!g) return;
  CHECK(g->st.assign_removed == 1 && g->st.hoists == 1 && g->st.bogus == 1);
  CHECK(g->st.dead_nodes >= 2); /* the constants 7 and 8 (8 is never read) */
  CHECK(g->n == 4);             /* x, sin>exp, the zero of location 9, neg */
  CHECK(g->op_start[2] - g->op_start[1] == 2 && g->op[g->op_start[1]] == CG_G_SIN &&
        g->op[g->op_start[1] + 1] == CG_G_EXP && g->val[1] == exp(sin(0.5)));
  CHECK(g->warnings && strstr(g->warnings, "graph: read of uninitialized location 9"));
  cg_graph_free(g);
}

/* Source origins: per node and per guard, in messages and in the dump. */
static void test_origins(void) {
  cg_error e;
  cg_ghints h;
  cg_gbuild *b;
  cg_origin o;
  uint32_t f;
  uint64_t in[2] = {0, 0};
  cg_graph *g;
  char *buf = NULL;
  size_t len = 0;
  FILE *fp;
  memset(&h, 0, sizeof h);
  memset(&o, 0, sizeof o);
  h.name = "k.c";
  b = cg_gbuild_begin(NULL, NULL, 1, &h, &e);
  CHECK(cg_gbuild_file(b, "k.c", &f) == CG_OK && f == 0);
  CHECK(cg_gbuild_file(b, "k.c", &f) == CG_OK && f == 0);
  o.kind = CG_ORIGIN_SOURCE, o.file = 1;
  CHECK(cg_gbuild_origin(b, &o) == CG_EUSAGE); /* file 1 was not named */
  o.file = 0, o.line = 3, o.col = 7;
  CHECK(cg_gbuild_origin(b, &o) == CG_OK);
  cg_gbuild_independent(b, 0, -1.0);
  o.line = 4, o.col = 2;
  cg_gbuild_origin(b, &o);
  CHECK(cg_gbuild_op(b, 1, CG_G_MUL, 0, in, 2) == CG_OK);
  CHECK(cg_gbuild_guard(b, 1, CG_GUARD_GT_ZERO, 0) == CG_OK);
  CHECK(cg_gbuild_guard(b, 1, 7, 0) == CG_EUSAGE);
  CHECK(strcmp(e.msg, "k.c:4:2: 7 is not a guard kind") == 0);
  CHECK(cg_gbuild_op(b, 1, CG_G_EXP, 0, in, 2) == CG_EUSAGE);
  CHECK(strcmp(e.msg, "k.c:4:2: exp takes 1 inputs, not 2") == 0);
  CHECK(cg_gbuild_op(b, 1, CG_G_COUNT, 0, in, 2) == CG_EUSAGE);
  CHECK(cg_gbuild_op(b, 1, CG_G_INDEP, 0, in, 0) == CG_EUSAGE);
  CHECK(cg_gbuild_dependent(b, 1) == CG_OK); /* the builder went on */
  g = cg_gbuild_finish(b);
  CHECK(g && g->origin && g->guard_origin && g->n_file == 1 && strcmp(g->file[0], "k.c") == 0);
  if (!g) return;
  CHECK(g->origin[0].kind == CG_ORIGIN_SOURCE && g->origin[0].line == 3 && g->origin[0].col == 7);
  CHECK(g->origin[1].line == 4 && g->origin[1].col == 2);
  CHECK(g->n_guard == 1 && g->guard_origin[0].line == 4 && g->guard[0].kind == CG_GUARD_GT_ZERO);
  CHECK(g->st.tape_ops == 2); /* two statements */
  fp = open_memstream(&buf, &len);
  cg_graph_print(g, UINT32_MAX, 100, fp);
  fclose(fp);
  CHECK(strstr(buf, "node 2: mul  children 1 1  parents -  value 1  dependent  guarded  at k.c:4:2\n") != NULL);
  CHECK(strstr(buf, "guard 1: node 2 gt_zero at k.c:4:2\n") != NULL);
  free(buf);
  cg_graph_free(g);
}

/* Failing the k-th allocation: NULL with CG_ENOMEM and nothing leaked. */
static void build_small(cg_alloc *A, int *ok, int *nomem) {
  cg_error e;
  cg_gbuild *b = cg_gbuild_begin(A, NULL, 1, NULL, &e);
  cg_origin o;
  uint32_t f = 0;
  uint64_t in[2] = {0, 1}, k;
  cg_graph *g;
  memset(&o, 0, sizeof o);
  if (!b) {
    *nomem += e.code == CG_ENOMEM;
    return;
  }
  cg_gbuild_file(b, "a.c", &f);
  o.kind = CG_ORIGIN_SOURCE, o.file = f;
  for (k = 0; k < 200; k++) {
    o.line = (uint32_t)k + 1;
    cg_gbuild_origin(b, &o);
    if (k < 2) cg_gbuild_independent(b, k, 1.0 + (double)k);
    else cg_gbuild_op(b, k % 5 + 2, k % 3 ? CG_G_ADD : CG_G_MUL, 0, in, 2);
    in[0] = k % 5 + 2 > 6 ? 0 : k % 5 + 2, in[1] = (k * 7) % 6;
    if (k % 11 == 0) cg_gbuild_guard(b, in[0], CG_GUARD_VALUE, 0);
    if (k % 13 == 0) cg_gbuild_unlink(b, 3, 4);
  }
  cg_gbuild_dependent(b, 2);
  cg_gbuild_dependent(b, 3);
  g = cg_gbuild_finish(b);
  if (g) *ok += 1;
  else *nomem += e.code == CG_ENOMEM;
  cg_graph_free(g);
}

static void test_oom(void) {
  long k;
  int bad = 0;
  for (k = 1; k < 400; k++) {
    counting c = {0, 0, 0};
    cg_alloc A;
    int ok = 0, nomem = 0;
    c.fail_at = k;
    A.f = counting_alloc, A.ud = &c;
    build_small(&A, &ok, &nomem);
    if (c.live != 0 || ok + nomem != 1) bad++;
    if (ok && c.calls < k) break; /* past the last allocation */
  }
  CHECK(bad == 0);
  CHECK(k < 400);
}

/* {==== a record-by-record driver of the interface ====} */

/* How the driver reads an arithmetic record: graph operation, output
 * operand, inputs, constant (V: the record's, N: its negation, or fixed). */
typedef struct row {
  unsigned op, g, out, nin, in[3];
  char cm;
  double c;
} row;

static const row rows[] = {
    {CG_OP_plus_a_a, CG_G_ADD, 0, 2, {1, 2, 0}, 0, 0},
    {CG_OP_min_a_a, CG_G_SUB, 0, 2, {1, 2, 0}, 0, 0},
    {CG_OP_mult_a_a, CG_G_MUL, 0, 2, {1, 2, 0}, 0, 0},
    {CG_OP_div_a_a, CG_G_DIV, 0, 2, {1, 2, 0}, 0, 0},
    {CG_OP_eq_plus_a, CG_G_ADD, 0, 2, {0, 1, 0}, 0, 0},
    {CG_OP_eq_min_a, CG_G_SUB, 0, 2, {0, 1, 0}, 0, 0},
    {CG_OP_eq_mult_a, CG_G_MUL, 0, 2, {0, 1, 0}, 0, 0},
    {CG_OP_eq_div_a, CG_G_DIV, 0, 2, {0, 1, 0}, 0, 0},
    {CG_OP_eq_plus_d, CG_G_ADDC, 0, 1, {0}, 'V', 0},
    {CG_OP_eq_min_d, CG_G_ADDC, 0, 1, {0}, 'N', 0},
    {CG_OP_eq_mult_d, CG_G_MULC, 0, 1, {0}, 'V', 0},
    {CG_OP_eq_div_d, CG_G_DIVC, 0, 1, {0}, 'V', 0},
    {CG_OP_incr_a, CG_G_ADDC, 0, 1, {0}, 0, 1.0},
    {CG_OP_decr_a, CG_G_ADDC, 0, 1, {0}, 0, -1.0},
    {CG_OP_plus_d_a, CG_G_ADDC, 0, 1, {1}, 'V', 0},
    {CG_OP_plus_a_d, CG_G_ADDC, 0, 1, {1}, 'V', 0},
    {CG_OP_min_a_d, CG_G_ADDC, 0, 1, {1}, 'N', 0},
    {CG_OP_min_d_a, CG_G_RSUB, 0, 1, {1}, 'V', 0},
    {CG_OP_mult_d_a, CG_G_MULC, 0, 1, {1}, 'V', 0},
    {CG_OP_mult_a_d, CG_G_MULC, 0, 1, {1}, 'V', 0},
    {CG_OP_div_a_d, CG_G_DIVC, 0, 1, {1}, 'V', 0},
    {CG_OP_div_d_a, CG_G_RDIV, 0, 1, {1}, 'V', 0},
    {CG_OP_pow_op, CG_G_POWC, 0, 1, {1}, 'V', 0},
    {CG_OP_neg_sign_a, CG_G_NEG, 0, 1, {1}, 0, 0},
    {CG_OP_exp_op, CG_G_EXP, 0, 1, {1}, 0, 0},
    {CG_OP_log_op, CG_G_LOG, 0, 1, {1}, 0, 0},
    {CG_OP_sqrt_op, CG_G_SQRT, 0, 1, {1}, 0, 0},
    {CG_OP_cbrt_op, CG_G_CBRT, 0, 1, {1}, 0, 0},
    {CG_OP_tan_op, CG_G_TAN, 0, 1, {1}, 0, 0},
    {CG_OP_atan_op, CG_G_ATAN, 0, 1, {1}, 0, 0},
    {CG_OP_asin_op, CG_G_ASIN, 0, 1, {1}, 0, 0},
    {CG_OP_acos_op, CG_G_ACOS, 0, 1, {1}, 0, 0},
    {CG_OP_asinh_op, CG_G_ASINH, 0, 1, {1}, 0, 0},
    {CG_OP_acosh_op, CG_G_ACOSH, 0, 1, {1}, 0, 0},
    {CG_OP_atanh_op, CG_G_ATANH, 0, 1, {1}, 0, 0},
    {CG_OP_erf_op, CG_G_ERF, 0, 1, {1}, 0, 0},
    {CG_OP_abs_val, CG_G_ABS, 0, 1, {1}, 'V', 0},
    {CG_OP_ceil_op, CG_G_CEIL, 0, 1, {1}, 'V', 0},
    {CG_OP_floor_op, CG_G_FLOOR, 0, 1, {1}, 'V', 0},
    {CG_OP_min_op, CG_G_MIN, 0, 2, {1, 2}, 'V', 0},
    {CG_OP_cond_assign, CG_G_COND, 0, 3, {1, 2, 3}, 'V', 0},
    {CG_OP_cond_eq_assign, CG_G_CONDEQ, 0, 3, {1, 2, 3}, 'V', 0},
    {CG_OP_cond_assign_s, CG_G_COND, 0, 3, {1, 2, 0}, 'V', 0},
    {CG_OP_cond_eq_assign_s, CG_G_CONDEQ, 0, 3, {1, 2, 0}, 'V', 0},
};

typedef struct driver {
  cg_gbuild *b;
  const cg_tape *t;
  const cg_gopts *o;
  uint64_t tmp; /* a location past the tape's store, for a product's term */
} driver;

static int op1(driver *D, uint64_t r, unsigned g, double c, uint64_t a) {
  return cg_gbuild_op(D->b, r, g, c, &a, 1);
}

static int op2(driver *D, uint64_t r, unsigned g, uint64_t a, uint64_t b) {
  uint64_t in[2];
  in[0] = a, in[1] = b;
  return cg_gbuild_op(D->b, r, g, 0, in, 2);
}

/* r = r +- a*b, the product through a temporary that dies at once. */
static int prod(driver *D, uint64_t r, unsigned g, uint64_t a, uint64_t b) {
  if (op2(D, D->tmp, CG_G_MUL, a, b) || op2(D, r, g, r, D->tmp)) return -1;
  return cg_gbuild_unlink(D->b, D->tmp, D->tmp);
}

/* r = c, or r = a with assignment removal on (copies otherwise). */
static int assign(driver *D, uint64_t r, uint64_t a) { return cg_gbuild_assign(D->b, r, a); }

/* The index a subscript or reference reads (guarded as its value). */
static int index_at(driver *D, uint64_t l, uint64_t *k) {
  double v;
  if (cg_gbuild_value(D->b, l, &v)) return -1;
  v = trunc(fabs(v));
  if (!(v < (double)D->t->nstore)) return -1;
  *k = (uint64_t)v;
  return cg_gbuild_guard(D->b, l, CG_GUARD_VALUE, 0);
}

static int ref_rec(driver *D, const cg_rec *r) {
  const uint32_t *L = r->loc;
  const double *V = r->val;
  uint64_t t, in[3];
  if (index_at(D, L[0], &t)) return -1;
  switch (r->op) {
    case CG_OP_ref_assign_d_zero: return cg_gbuild_constant(D->b, t, 0.0);
    case CG_OP_ref_assign_d_one: return cg_gbuild_constant(D->b, t, 1.0);
    case CG_OP_ref_assign_d: return cg_gbuild_constant(D->b, t, V[0]);
    case CG_OP_ref_assign_a: return assign(D, t, L[1]);
    case CG_OP_ref_incr_a: return op1(D, t, CG_G_ADDC, 1.0, t);
    case CG_OP_ref_decr_a: return op1(D, t, CG_G_ADDC, -1.0, t);
    case CG_OP_ref_eq_plus_d: return op1(D, t, CG_G_ADDC, V[0], t);
    case CG_OP_ref_eq_min_d: return op1(D, t, CG_G_ADDC, -V[0], t);
    case CG_OP_ref_eq_mult_d: return op1(D, t, CG_G_MULC, V[0], t);
    case CG_OP_ref_eq_plus_a: return op2(D, t, CG_G_ADD, t, L[1]);
    case CG_OP_ref_eq_min_a: return op2(D, t, CG_G_SUB, t, L[1]);
    case CG_OP_ref_eq_mult_a: return op2(D, t, CG_G_MUL, t, L[1]);
    case CG_OP_ref_cond_assign: case CG_OP_ref_cond_eq_assign:
    case CG_OP_ref_cond_assign_s: case CG_OP_ref_cond_eq_assign_s:
      in[0] = L[1], in[1] = L[2];
      in[2] = r->op == CG_OP_ref_cond_assign || r->op == CG_OP_ref_cond_eq_assign ? L[3] : t;
      return cg_gbuild_op(D->b, t,
                          r->op == CG_OP_ref_cond_assign || r->op == CG_OP_ref_cond_assign_s
                              ? CG_G_COND : CG_G_CONDEQ, V[0], in, 3);
    default: return -1;
  }
}

/* Vector records, element by element. */
static int vec_rec(driver *D, const cg_rec *r) {
  const uint32_t *L = r->loc;
  uint64_t i;
  int rc = 0;
  switch (r->op) {
    case CG_OP_take_stock_op:
      for (i = 0; i < L[0] && !rc; i++) rc = cg_gbuild_constant(D->b, (uint64_t)L[1] + i, r->val[i]);
      return rc;
    case CG_OP_vec_copy:
      for (i = 0; i < L[2] && !rc; i++) rc = assign(D, (uint64_t)L[0] + i, (uint64_t)L[1] + i);
      return rc;
    case CG_OP_vec_dot:
      rc = cg_gbuild_constant(D->b, L[0], 0.0);
      for (i = 0; i < L[3] && !rc; i++) rc = prod(D, L[0], CG_G_ADD, L[1] + i, L[2] + i);
      return rc;
    default: /* vec_axpy: res[i] = s*x[i] + y[i] */
      for (i = 0; i < L[4] && !rc; i++) {
        rc = op2(D, D->tmp, CG_G_MUL, L[1], (uint64_t)L[2] + i);
        if (!rc) rc = op2(D, (uint64_t)L[0] + i, CG_G_ADD, D->tmp, (uint64_t)L[3] + i);
        if (!rc) rc = cg_gbuild_unlink(D->b, D->tmp, D->tmp);
      }
      return rc;
  }
}

static int other_rec(driver *D, const cg_rec *r, size_t *nind) {
  const uint32_t *L = r->loc;
  uint64_t k;
  double x;
  switch (r->op) {
    case CG_OP_death_not:
      if (D->o->death_unlink) return cg_gbuild_unlink(D->b, L[0], L[1]);
      return cg_gbuild_unlink(D->b, 1, 0); /* counted, nothing dies */
    case CG_OP_assign_ind: case CG_OP_ref_assign_ind:
      x = D->t->has_x0 ? D->t->x0[*nind] : 0.0;
      ++*nind;
      if (r->op == CG_OP_assign_ind) return cg_gbuild_independent(D->b, L[0], x);
      return index_at(D, L[0], &k) ? -1 : cg_gbuild_independent(D->b, k, x);
    case CG_OP_assign_dep: return cg_gbuild_dependent(D->b, L[0]);
    case CG_OP_assign_a: case CG_OP_pos_sign_a: return assign(D, L[0], L[1]);
    case CG_OP_assign_d: return cg_gbuild_constant(D->b, L[0], r->val[0]);
    case CG_OP_assign_d_zero: return cg_gbuild_constant(D->b, L[0], 0.0);
    case CG_OP_assign_d_one: return cg_gbuild_constant(D->b, L[0], 1.0);
    case CG_OP_sin_op: case CG_OP_cos_op: /* the second output first, as the tape */
      if (op1(D, L[1], r->op == CG_OP_sin_op ? CG_G_COS : CG_G_SIN, 0, L[2])) return -1;
      return op1(D, L[0], r->op == CG_OP_sin_op ? CG_G_SIN : CG_G_COS, 0, L[2]);
    case CG_OP_eq_plus_prod: return prod(D, L[0], CG_G_ADD, L[1], L[2]);
    case CG_OP_eq_min_prod: return prod(D, L[0], CG_G_SUB, L[1], L[2]);
    case CG_OP_eq_zero: case CG_OP_neq_zero: case CG_OP_le_zero:
    case CG_OP_gt_zero: case CG_OP_ge_zero: case CG_OP_lt_zero:
      return cg_gbuild_guard(D->b, L[0], r->op, 0);
    case CG_OP_take_stock_op: case CG_OP_vec_copy: case CG_OP_vec_dot: case CG_OP_vec_axpy:
      return vec_rec(D, r);
    case CG_OP_subscript:
      return index_at(D, L[1], &k) ? -1 : assign(D, L[0], (uint64_t)L[2] + k);
    case CG_OP_subscript_ref:
      return index_at(D, L[1], &k) ? -1 : cg_gbuild_constant(D->b, L[0], (double)(L[2] + k));
    case CG_OP_ref_copyout:
      return index_at(D, L[1], &k) ? -1 : assign(D, L[0], k);
    default:
      return ref_rec(D, r);
  }
}

/* The graph of t through the interface, record by record. */
static cg_graph *drive(const cg_tape *t, const cg_gopts *o, cg_error *e) {
  driver D;
  cg_ghints h;
  cg_tape_iter it;
  cg_rec r;
  cg_origin org;
  size_t i, nind = 0;
  memset(&h, 0, sizeof h);
  memset(&org, 0, sizeof org);
  h.name = t->source[0] ? cg_basename(t->source) : "tape";
  h.ops = t->nops, h.locs = t->nstore;
  D.t = t, D.o = o, D.tmp = t->nstore;
  if (!(D.b = cg_gbuild_begin(NULL, o, t->has_x0, &h, e))) return NULL;
  cg_tape_iter_init(&it, t);
  org.kind = CG_ORIGIN_RECORD;
  while (cg_tape_iter_next(&it, &r)) {
    int rc = 0;
    org.record = r.index;
    cg_gbuild_origin(D.b, &org);
    for (i = 0; i < sizeof rows / sizeof rows[0] && rows[i].op != r.op; i++) continue;
    if (i < sizeof rows / sizeof rows[0]) {
      const row *w = &rows[i];
      uint64_t in[3];
      double c = w->cm == 'V' ? r.val[0] : w->cm == 'N' ? -r.val[0] : w->c;
      unsigned k;
      for (k = 0; k < w->nin; k++) in[k] = r.loc[w->in[k]];
      rc = cg_gbuild_op(D.b, r.loc[w->out], w->g, c, in, w->nin);
    } else {
      rc = other_rec(&D, &r, &nind);
    }
    if (rc) {
      cg_gbuild_abort(D.b);
      return NULL;
    }
  }
  return cg_gbuild_finish(D.b);
}

/* {==== comparing graphs ====} */

static int same_u32(const uint32_t *a, const uint32_t *b, size_t n) {
  return n == 0 || memcmp(a, b, n * 4) == 0;
}

/* Field by field (doubles bit for bit); 0 if they differ, naming where. */
static int same_graph(const cg_graph *a, const cg_graph *b, const char *what) {
  uint32_t n = a->n, k;
  const char *bad = NULL;
  if (a->n != b->n) bad = "n";
  else if (!same_u32(a->kid_start, b->kid_start, n + 1) || !same_u32(a->kids, b->kids, a->kid_start[n]))
    bad = "children";
  else if (!same_u32(a->par_start, b->par_start, n + 1) || !same_u32(a->pars, b->pars, a->par_start[n]))
    bad = "parents";
  else if (!same_u32(a->op_start, b->op_start, n + 1) ||
           memcmp(a->op, b->op, a->op_start[n]) != 0 ||
           memcmp(a->opc, b->opc, (size_t)a->op_start[n] * 8) != 0)
    bad = "chains";
  else if (memcmp(a->flags, b->flags, n) != 0) bad = "flags";
  else if (a->has_val != b->has_val || (a->has_val && memcmp(a->val, b->val, (size_t)n * 8) != 0))
    bad = "values";
  else if (a->n_indep != b->n_indep || !same_u32(a->indep, b->indep, a->n_indep)) bad = "independents";
  else if (a->n_dep != b->n_dep || !same_u32(a->dep, b->dep, a->n_dep)) bad = "dependents";
  else if (a->n_guard != b->n_guard) bad = "guards";
  else if (memcmp(&a->st, &b->st, sizeof a->st) != 0) bad = "statistics";
  else if ((a->warnings == NULL) != (b->warnings == NULL) ||
           (a->warnings && strcmp(a->warnings, b->warnings) != 0))
    bad = "warnings";
  else if (memcmp(&a->branch, &b->branch, sizeof a->branch) != 0) bad = "branch";
  for (k = 0; !bad && k < a->n_guard; k++)
    if (a->guard[k].node != b->guard[k].node || a->guard[k].kind != b->guard[k].kind ||
        memcmp(&a->guard[k].taped, &b->guard[k].taped, 8) != 0 ||
        a->guard[k].record != b->guard[k].record)
      bad = "a guard";
  if (bad) fprintf(stderr, "%s: the graphs differ in %s\n", what, bad);
  return bad == NULL;
}

/* Every option set (every sets_step-th): the six switches on and off. */
static void same_builds(const cg_tape *t, const char *path, int sets_step) {
  cg_error e;
  int s, ok = 1, built = 0;
  for (s = 0; s < 64; s += sets_step) {
    cg_gopts o;
    cg_graph *a, *b;
    char what[600];
    cg_gopts_default(&o);
    o.assign_removal = s & 1, o.hoist = (s >> 1) & 1, o.dead_roots = (s >> 2) & 1;
    o.recover_hoists = (s >> 3) & 1, o.guards = (s >> 4) & 1, o.death_unlink = (s >> 5) & 1;
    a = cg_graph_build(NULL, t, NULL, &o, &e);
    b = a ? drive(t, &o, &e) : NULL;
    snprintf(what, sizeof what, "%s, option set %d", path, s);
    if (a && !b) fprintf(stderr, "%s: the driver failed: %s\n", what, e.msg);
    if (a) ok &= b && same_graph(a, b, what), built++;
    cg_graph_free(a);
    cg_graph_free(b);
  }
  CHECK(ok && built > 0);
}

static void test_tape(const char *path, int sets_step) {
  cg_error e;
  cg_tape *t = cg_tape_load(NULL, path, &e);
  if (!t) fprintf(stderr, "%s\n", e.msg);
  CHECK(t != NULL);
  if (t) same_builds(t, path, sets_step);
  cg_tape_free(t);
}

/* The records the example tapes lack: subscripts and references (value
 * guards), vectors, products, an uninitialized read (location 4). */
static void test_special_records(void) {
  static const char *text =
      "assign_ind 0 0.75\nassign_ind 1 1.25\nassign_d 5 2\nassign_d 6 1.7\n"
      "subscript 2 6 4 1\nref_copyout 3 6\nsubscript_ref 7 5 0 2\nref_assign_d 7 3.5\n"
      "ref_eq_plus_a 7 1\nref_cond_assign 7 0 1 2 1\ntake_stock_op 2 8 1 2\n"
      "vec_dot 10 0 8 2\nvec_axpy 11 0 8 0 2\neq_plus_prod 3 0 1\nvec_copy 13 0 2\n"
      "gt_zero 0\nsin_op 15 16 1\nassign_dep 2\nassign_dep 3\nassign_dep 10\n"
      "assign_dep 11\nassign_dep 12\nassign_dep 13\nassign_dep 14\nassign_dep 15\n";
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "special.txt", text, &e);
  if (!t) fprintf(stderr, "%s\n", e.msg);
  CHECK(t != NULL);
  if (t) same_builds(t, "special.txt", 1);
  cg_tape_free(t);
}

int main(int argc, char **argv) {
  static const char *tapes[] = {"bratu", "shallow", "cavity", "bratu-lua", "shallow-lua",
                                "cavity-lua", "ADOLC-Operations_1", "ADOLC-Operations_2",
                                "ADOLC-Operations_3", "ADOLC-Values_1", "ADOLC-Values_2",
                                "ADOLC-Values_3", "ADOLC-Locations_1", "ADOLC-Locations_2",
                                "ADOLC-Locations_3"};
  const char *dir = argc > 1 ? argv[1] : "examples/tapes";
  size_t i;
  test_figure1();
  test_rules();
  test_origins();
  test_oom();
  test_special_records();
  for (i = 0; i < sizeof tapes / sizeof tapes[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.tap", dir, tapes[i]);
    test_tape(path, i < 3 ? 1 : 3); /* every set on the big three, every third elsewhere */
  }
  return check_report("test_gbuild");
}
