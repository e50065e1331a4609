/*
 * cg_eval.c: plain (zero-order) forward evaluation of an in-memory tape.
 *
 * Reproduces ADOL-C 2.7.2's zos_forward (ADOL-C/src/uni5_for.c, _ZOS_ case)
 * bit for bit: every opcode performs the same double operations in the same
 * order, on a zero-initialised store (doc/adolc-format.md
 * section 5 for the operand meanings; records arrive in cgwb's canonical
 * order, outputs first, see cg_ops.h).
 *
 * Where ADOL-C stops (a comparison record whose outcome changed: return -1)
 * or lowers its return code (abs/min/ceil/floor/condassign), cgwb counts the
 * record in a cg_branch and goes on: the values are still those of the taped
 * operation sequence.
 */
#include "cg_tape.h"

#include <math.h>
#include <string.h>

/* Evaluation state: the store, the argument/result cursors and the caller's
 * branch record. */
typedef struct ev_state {
  const cg_tape *t;
  double *s;      /* store, n doubles */
  uint64_t n;
  const double *x;
  double *y;
  uint64_t ix, iy; /* next independent / dependent */
  cg_branch *br;
  cg_error *e;
} ev_state;

/* An evaluation error naming the tape and the record. */
static int ev_err(ev_state *v, const cg_rec *r, const char *what, unsigned long long a) {
  char msg[300];
  snprintf(msg, sizeof msg, what, a);
  return cg_seterr(v->e, CG_EFORMAT, "%s: record %llu: %s",
                   v->t->source[0] ? cg_basename(v->t->source) : "tape",
                   (unsigned long long)r->index, msg);
}

/* Counts a record whose outcome differs from taping time. */
static void ev_switch(ev_state *v, const cg_rec *r) {
  if (!v->br) return;
  if (v->br->count++ == 0) {
    v->br->first = r->index;
    v->br->first_op = r->op;
  }
}

/* The location a reference holds: (size_t)trunc(fabs(value)) as ADOL-C
 * computes it (uni5_for.c ref_* cases), checked against the store. */
static int ev_ref(ev_state *v, const cg_rec *r, uint32_t ref, uint64_t *loc) {
  double d = trunc(fabs(v->s[ref]));
  if (!(d < (double)v->n))
    return cg_seterr(v->e, CG_EFORMAT, "%s: record %llu: reference %g is not a location < %llu",
                     v->t->source[0] ? cg_basename(v->t->source) : "tape",
                     (unsigned long long)r->index, v->s[ref], (unsigned long long)v->n);
  *loc = (uint64_t)d;
  return CG_OK;
}

/* Checks that [base, base+cnt) lies in the store (vector operands). */
static int ev_range(ev_state *v, const cg_rec *r, uint64_t base, uint64_t cnt) {
  if (base + cnt > v->n)
    return ev_err(v, r, "vector operand ends beyond the store at %llu", base + cnt);
  return CG_OK;
}

/* Next independent into *d. */
static int ev_indep(ev_state *v, const cg_rec *r, double *d) {
  if (v->ix >= v->t->n_indep) return ev_err(v, r, "more than %llu independents", v->t->n_indep);
  *d = v->x[v->ix++];
  return CG_OK;
}

/* cond_assign / cond_eq_assign (uni5_for.c): res = cond > 0 (>= 0) ? a : b;
 * the taped condition V0 tells whether the outcome changed. */
static void ev_cond(ev_state *v, const cg_rec *r, double *res, uint32_t c, uint32_t a,
                    uint32_t b, int eq) {
  double cv = v->s[c], tv = r->val[0];
  int now = eq ? cv >= 0 : cv > 0;
  int then = eq ? tv >= 0 : tv > 0;
  if (now != then) ev_switch(v, r);
  *res = now ? v->s[a] : v->s[b];
}

/* cond_assign_s / cond_eq_assign_s: only the true branch assigns. */
static void ev_cond_s(ev_state *v, const cg_rec *r, double *res, uint32_t c, uint32_t a,
                      int eq) {
  double cv = v->s[c], tv = r->val[0];
  int now = eq ? cv >= 0 : cv > 0;
  int then = eq ? tv >= 0 : tv > 0;
  if (now != then) ev_switch(v, r);
  if (now) *res = v->s[a];
}

/* Branch records (eq_zero .. lt_zero): 1 if the taped outcome still holds,
 * with ADOL-C's exact comparisons (NaN passes where ADOL-C lets it pass). */
static int ev_branch_ok(unsigned op, double d) {
  switch (op) {
    case CG_OP_eq_zero: return !(d != 0);
    case CG_OP_neq_zero: return !(d == 0);
    case CG_OP_le_zero: return !(d > 0);
    case CG_OP_gt_zero: return !(d <= 0);
    case CG_OP_ge_zero: return !(d < 0);
    default: return !(d >= 0); /* lt_zero */
  }
}

/* Records that read or write through a reference (ref_* opcodes). */
static int ev_refop(ev_state *v, const cg_rec *r) {
  const uint32_t *L = r->loc;
  double *s = v->s;
  uint64_t t;
  int rc = ev_ref(v, r, L[0], &t);
  if (rc) return rc;
  switch (r->op) {
    case CG_OP_ref_assign_d_zero: s[t] = 0.0; break;
    case CG_OP_ref_assign_d_one: s[t] = 1.0; break;
    case CG_OP_ref_assign_d: s[t] = r->val[0]; break;
    case CG_OP_ref_assign_a: s[t] = s[L[1]]; break;
    case CG_OP_ref_assign_ind: return ev_indep(v, r, &s[t]);
    case CG_OP_ref_incr_a: s[t]++; break;
    case CG_OP_ref_decr_a: s[t]--; break;
    case CG_OP_ref_eq_plus_d: s[t] += r->val[0]; break;
    case CG_OP_ref_eq_min_d: s[t] -= r->val[0]; break;
    case CG_OP_ref_eq_plus_a: s[t] += s[L[1]]; break;
    case CG_OP_ref_eq_min_a: s[t] -= s[L[1]]; break;
    case CG_OP_ref_eq_mult_d: s[t] *= r->val[0]; break;
    case CG_OP_ref_eq_mult_a: s[t] *= s[L[1]]; break;
    case CG_OP_ref_cond_assign: ev_cond(v, r, &s[t], L[1], L[2], L[3], 0); break;
    case CG_OP_ref_cond_eq_assign: ev_cond(v, r, &s[t], L[1], L[2], L[3], 1); break;
    case CG_OP_ref_cond_assign_s: ev_cond_s(v, r, &s[t], L[1], L[2], 0); break;
    case CG_OP_ref_cond_eq_assign_s: ev_cond_s(v, r, &s[t], L[1], L[2], 1); break;
    default: return ev_err(v, r, "opcode %llu cannot be evaluated", r->op);
  }
  return CG_OK;
}

/* subscript / subscript_ref [res, idx, base], V0 = vector length. */
static int ev_subscript(ev_state *v, const cg_rec *r) {
  const uint32_t *L = r->loc;
  double d = trunc(fabs(v->s[L[1]]));
  uint64_t at;
  if (L[2] >= v->n || !(d < (double)v->n) || (uint64_t)d >= v->n - L[2])
    return ev_err(v, r, "subscript beyond the store (index %llu)",
                  d < 1e19 ? (unsigned long long)d : ~0ull);
  at = L[2] + (uint64_t)d;
  if (r->op == CG_OP_subscript) v->s[L[0]] = v->s[at];
  else v->s[L[0]] = (double)at;
  return CG_OK;
}

/* Vector records: take_stock_op, vec_copy, vec_dot, vec_axpy. */
static int ev_vector(ev_state *v, const cg_rec *r) {
  const uint32_t *L = r->loc;
  double *s = v->s;
  uint64_t i, n;
  int rc;
  switch (r->op) {
    case CG_OP_take_stock_op: /* [size, start], V = the values */
      if ((rc = ev_range(v, r, L[1], L[0]))) return rc;
      for (i = 0; i < L[0]; i++) s[L[1] + i] = r->val[i];
      return CG_OK;
    case CG_OP_vec_copy: /* [dst, src, n] */
      n = L[2];
      if ((rc = ev_range(v, r, L[0], n)) || (rc = ev_range(v, r, L[1], n))) return rc;
      for (i = 0; i < n; i++) s[L[0] + i] = s[L[1] + i];
      return CG_OK;
    case CG_OP_vec_dot: /* [res, a, b, n] */
      n = L[3];
      if ((rc = ev_range(v, r, L[1], n)) || (rc = ev_range(v, r, L[2], n))) return rc;
      s[L[0]] = 0;
      for (i = 0; i < n; i++) s[L[0]] += s[L[1] + i] * s[L[2] + i];
      return CG_OK;
    default: /* vec_axpy [res, s, x, y, n] */
      n = L[4];
      if ((rc = ev_range(v, r, L[0], n)) || (rc = ev_range(v, r, L[2], n)) ||
          (rc = ev_range(v, r, L[3], n)))
        return rc;
      for (i = 0; i < n; i++) s[L[0] + i] = s[L[1]] * s[L[2] + i] + s[L[3] + i];
      return CG_OK;
  }
}

/* One record that needs more than arithmetic: independents, dependents,
 * branch and condition checks, references, vectors, and the errors.  Each
 * case is the _ZOS_ line of uni5_for.c for that opcode, in canonical
 * operand order. */
static int ev_step(ev_state *v, const cg_rec *r) {
  const uint32_t *L = r->loc;
  const double *V = r->val;
  double *s = v->s;
  switch (r->op) {
    case CG_OP_assign_ind: return ev_indep(v, r, &s[L[0]]);
    case CG_OP_assign_dep:
      if (v->iy >= v->t->n_dep) return ev_err(v, r, "more than %llu dependents", v->t->n_dep);
      if (v->y) v->y[v->iy] = s[L[0]];
      v->iy++;
      break;
    case CG_OP_gen_quad: /* [res, arg, deriv], V = (arg at taping, result) */
      if (V[0] != s[L[1]]) ev_switch(v, r); /* ADOL-C: "tape invalid", rc -2 */
      s[L[0]] = V[1];
      break;
    case CG_OP_min_op: { /* [res, a, b], V0 = 1 if a <= b at taping */
      double a = s[L[1]], b = s[L[2]];
      if ((a > b && V[0] != 0) || (a < b && V[0] == 0)) ev_switch(v, r);
      s[L[0]] = a > b ? b : a; /* MIN_ADOLC */
      break;
    }
    case CG_OP_abs_val: { /* [res, arg], V0 = 1 if arg >= 0 at taping */
      double a = s[L[1]];
      if ((a < 0.0 && V[0] != 0) || (a > 0.0 && V[0] == 0)) ev_switch(v, r);
      s[L[0]] = fabs(a);
      break;
    }
    case CG_OP_ceil_op:
      s[L[0]] = ceil(s[L[1]]);
      if (V[0] != s[L[0]]) ev_switch(v, r);
      break;
    case CG_OP_floor_op:
      s[L[0]] = floor(s[L[1]]);
      if (V[0] != s[L[0]]) ev_switch(v, r);
      break;
    case CG_OP_eq_zero: case CG_OP_neq_zero: case CG_OP_le_zero:
    case CG_OP_gt_zero: case CG_OP_ge_zero: case CG_OP_lt_zero:
      if (!ev_branch_ok(r->op, s[L[0]])) ev_switch(v, r);
      break;
    case CG_OP_cond_assign: ev_cond(v, r, &s[L[0]], L[1], L[2], L[3], 0); break;
    case CG_OP_cond_eq_assign: ev_cond(v, r, &s[L[0]], L[1], L[2], L[3], 1); break;
    case CG_OP_cond_assign_s: ev_cond_s(v, r, &s[L[0]], L[1], L[2], 0); break;
    case CG_OP_cond_eq_assign_s: ev_cond_s(v, r, &s[L[0]], L[1], L[2], 1); break;
    case CG_OP_subscript: case CG_OP_subscript_ref: return ev_subscript(v, r);
    case CG_OP_ref_copyout: { /* [res, ref] */
      uint64_t t;
      int rc = ev_ref(v, r, L[1], &t);
      if (rc) return rc;
      s[L[0]] = s[t];
      break;
    }
    case CG_OP_take_stock_op: case CG_OP_vec_copy: case CG_OP_vec_dot: case CG_OP_vec_axpy:
      return ev_vector(v, r);
    case CG_OP_ext_diff: case CG_OP_ext_diff_iArr: case CG_OP_ext_diff_v2:
      return ev_err(v, r, "external function (record of opcode %llu) cannot be evaluated",
                    r->op);
    default:
      if (cg_op(r->op)->flags & CG_OPF_REF) return ev_refop(v, r);
      return ev_err(v, r, "opcode %llu cannot be evaluated", r->op);
  }
  return CG_OK;
}

/* Runs every record: the hot interpreter loop, as Lua's luaV_execute.  It
 * walks the tape as cg_tape_iter_next does (fixed counts from a table, only
 * variable-length records ask cg_rec_counts); its cases are the pure
 * arithmetic _ZOS_ lines of uni5_for.c, canonical operand order, and
 * everything else goes to ev_step with a cg_rec.  No cg_rec is built for
 * the arithmetic, so the cursors and the store stay in registers. */
static int ev_run(ev_state *v) {
  const cg_tape *t = v->t;
  const uint8_t *ops = t->op;
  double *s = v->s;
  int8_t fl[256], fv[256]; /* fixed counts per opcode, -1 = variable */
  size_t i, nops = t->nops;
  const uint32_t *L = t->loc;
  const double *V = t->val;
  unsigned c;
  for (c = 0; c < 256; c++) {
    fl[c] = cg_op(c)->nloc;
    fv[c] = cg_op(c)->nval;
  }
  for (i = 0; i < nops; i++) {
    unsigned op = ops[i];
    cg_rec r;
    int rc;
    switch (op) {
      case CG_OP_death_not: break;
      case CG_OP_assign_a: s[L[0]] = s[L[1]]; break;
      case CG_OP_assign_d: s[L[0]] = V[0]; break;
      case CG_OP_assign_d_one: s[L[0]] = 1.0; break;
      case CG_OP_assign_d_zero: s[L[0]] = 0.0; break;
      case CG_OP_eq_plus_d: s[L[0]] += V[0]; break;
      case CG_OP_eq_plus_a: s[L[0]] += s[L[1]]; break;
      case CG_OP_eq_min_d: s[L[0]] -= V[0]; break;
      case CG_OP_eq_min_a: s[L[0]] -= s[L[1]]; break;
      case CG_OP_eq_mult_d: s[L[0]] *= V[0]; break;
      case CG_OP_eq_mult_a: s[L[0]] *= s[L[1]]; break;
      case CG_OP_incr_a: s[L[0]]++; break;
      case CG_OP_decr_a: s[L[0]]--; break;
      case CG_OP_plus_a_a: s[L[0]] = s[L[1]] + s[L[2]]; break;
      case CG_OP_plus_d_a: s[L[0]] = s[L[1]] + V[0]; break;
      case CG_OP_min_a_a: s[L[0]] = s[L[1]] - s[L[2]]; break;
      case CG_OP_min_d_a: s[L[0]] = V[0] - s[L[1]]; break;
      case CG_OP_mult_a_a: s[L[0]] = s[L[1]] * s[L[2]]; break;
      case CG_OP_mult_d_a: s[L[0]] = s[L[1]] * V[0]; break;
      case CG_OP_div_a_a: s[L[0]] = s[L[1]] / s[L[2]]; break;
      case CG_OP_div_d_a: s[L[0]] = V[0] / s[L[1]]; break;
      case CG_OP_eq_plus_prod: s[L[0]] += s[L[1]] * s[L[2]]; break;
      case CG_OP_eq_min_prod: s[L[0]] -= s[L[1]] * s[L[2]]; break;
      case CG_OP_pos_sign_a: s[L[0]] = s[L[1]]; break;
      case CG_OP_neg_sign_a: s[L[0]] = -s[L[1]]; break;
      case CG_OP_exp_op: s[L[0]] = exp(s[L[1]]); break;
      case CG_OP_log_op: s[L[0]] = log(s[L[1]]); break;
      case CG_OP_sqrt_op: s[L[0]] = sqrt(s[L[1]]); break;
      case CG_OP_cbrt_op: s[L[0]] = cbrt(s[L[1]]); break; /* ADOL-C rejects it (P3) */
      case CG_OP_pow_op: s[L[0]] = pow(s[L[1]], V[0]); break;
      case CG_OP_sin_op: /* [res, cos, arg]: the partial first, as ADOL-C */
        s[L[1]] = cos(s[L[2]]);
        s[L[0]] = sin(s[L[2]]);
        break;
      case CG_OP_cos_op: /* [res, sin, arg] */
        s[L[1]] = sin(s[L[2]]);
        s[L[0]] = cos(s[L[2]]);
        break;
      case CG_OP_atan_op: s[L[0]] = atan(s[L[1]]); break; /* L[2]: derivative input */
      case CG_OP_asin_op: s[L[0]] = asin(s[L[1]]); break;
      case CG_OP_acos_op: s[L[0]] = acos(s[L[1]]); break;
      case CG_OP_asinh_op: s[L[0]] = asinh(s[L[1]]); break;
      case CG_OP_acosh_op: s[L[0]] = acosh(s[L[1]]); break;
      case CG_OP_atanh_op: s[L[0]] = atanh(s[L[1]]); break;
      case CG_OP_erf_op: s[L[0]] = erf(s[L[1]]); break;
      /* cgwb-only opcodes (cg_ops.h, codes 150..156) */
      case CG_OP_plus_a_d: s[L[0]] = s[L[1]] + V[0]; break;
      case CG_OP_min_a_d: s[L[0]] = s[L[1]] - V[0]; break;
      case CG_OP_mult_a_d: s[L[0]] = s[L[1]] * V[0]; break;
      case CG_OP_div_a_d: s[L[0]] = s[L[1]] / V[0]; break;
      case CG_OP_eq_div_d: s[L[0]] /= V[0]; break;
      case CG_OP_eq_div_a: s[L[0]] /= s[L[1]]; break;
      case CG_OP_tan_op: s[L[0]] = tan(s[L[1]]); break;
      default:
        r.op = op;
        r.loc = L;
        r.val = V;
        r.index = i;
        if (fl[op] >= 0 && fv[op] >= 0) {
          r.nloc = (uint32_t)fl[op];
          r.nval = (uint32_t)fv[op];
        } else if (cg_rec_counts(op, L, (uint32_t)(t->nlocs - (size_t)(L - t->loc)), &r.nloc,
                                 &r.nval) != 1) {
          return CG_OK; /* as cg_tape_iter_next: the tape ends here */
        }
        if ((rc = ev_step(v, &r)) != CG_OK) return rc;
        L += r.nloc;
        V += r.nval;
        continue;
    }
    L += fl[op]; /* every case above has fixed counts */
    V += fv[op];
  }
  return CG_OK;
}

int cg_tape_forward(const cg_tape *t, const double *x, double *y, cg_branch *br,
                    cg_error *e) {
  ev_state v;
  int rc;
  if (!t) return cg_seterr(e, CG_EUSAGE, "no tape");
  if (!x && !t->has_x0)
    return cg_seterr(e, CG_EUSAGE, "tape carries no values of the independents; give --at");
  memset(&v, 0, sizeof v);
  v.t = t;
  v.x = x ? x : t->x0;
  v.y = y;
  v.br = br;
  v.e = e;
  v.n = t->nstore;
  if (br) memset(br, 0, sizeof *br);
  if (v.n > SIZE_MAX / sizeof(double)) return cg_seterr(e, CG_ENOMEM, "store too large");
  v.s = CG_NEW(t->A, double, v.n);
  if (!v.s) return cg_seterr(e, CG_ENOMEM, "out of memory for a store of %llu values",
                             (unsigned long long)v.n);
  memset(v.s, 0, (size_t)v.n * sizeof(double));
  rc = ev_run(&v);
  CG_FREE(t->A, v.s, double, v.n);
  return rc;
}
