/* cg_tape.c: in-memory tapes: making, appending records (checked against
 * the opcode table), the values of the independents, walking the records.
 * It calls down into the opcode table (cg_ops.c) only. */
#include <string.h>

#include "cg_ops_impl.h"
#include "cg_tape.h"
#include "cg_tape_impl.h"

cg_tape *cg_tape_new(cg_alloc *A) {
  cg_tape *t;
  if (!A) A = cg_default_alloc();
  t = (cg_tape *)cg_malloc(A, sizeof *t);
  if (!t) return NULL;
  memset(t, 0, sizeof *t);
  t->A = A;
  t->info.format = CG_FMT_TEXT;
  return t;
}

void cg_tape_free(cg_tape *t) {
  if (!t) return;
  cg_free(t->A, t->op, t->cap_op);
  cg_free(t->A, t->loc, t->cap_loc * sizeof *t->loc);
  cg_free(t->A, t->val, t->cap_val * sizeof *t->val);
  CG_FREE(t->A, t->x0, double, t->n_indep);
  CG_FREE(t->A, t->locmap, uint32_t, t->nstore);
  cg_free(t->A, t, sizeof *t);
}

/* Checks a record against the opcode table (filled: the callers of
 * cg_tape_push_rec see to it); 0 if it is well formed. */
static int check_rec(unsigned op, const uint32_t *loc, uint32_t nloc, uint32_t nval,
                     cg_error *e) {
  const cg_opinfo *oi = &cg_optab_full[op & 255];
  uint32_t wl, wv;
  int rc;
  if (op > 255 || !oi->name)
    return cg_seterr(e, CG_EFORMAT, "unknown opcode %u", op);
  if (oi->flags & (CG_OPF_MARKER | CG_OPF_REJECT | CG_OPF_PARAM))
    return cg_seterr(e, CG_EFORMAT, "opcode %s cannot be stored in a cgwb tape", oi->name);
  rc = cg_rec_counts(op, loc, nloc, &wl, &wv);
  if (rc < 0) return cg_seterr(e, CG_EFORMAT, "%s: absurd operand counts", oi->name);
  if (rc == 0 || wl != nloc || wv != nval)
    return cg_seterr(e, CG_EFORMAT, "%s takes %u locations and %u constants, got %u and %u",
                     oi->name, (unsigned)wl, (unsigned)wv, (unsigned)nloc, (unsigned)nval);
  return CG_OK;
}

/* Highest location a record touches, +1 (vector operands included). */
static uint64_t rec_extent(unsigned op, const uint32_t *loc, uint32_t nloc) {
  uint64_t hi = 0;
  uint32_t i;
  switch (op) {
    case CG_OP_vec_copy: /* [dst, src, n] */
      return (uint64_t)(loc[0] > loc[1] ? loc[0] : loc[1]) + loc[2];
    case CG_OP_vec_dot: { /* [res, a, b, n] */
      uint64_t m = loc[1] > loc[2] ? loc[1] : loc[2];
      m += loc[3];
      return m > (uint64_t)loc[0] + 1 ? m : (uint64_t)loc[0] + 1;
    }
    case CG_OP_vec_axpy: { /* [res, s, x, y, n] */
      uint64_t m = loc[0];
      if (loc[2] > m) m = loc[2];
      if (loc[3] > m) m = loc[3];
      m += loc[4];
      return m > (uint64_t)loc[1] + 1 ? m : (uint64_t)loc[1] + 1;
    }
    case CG_OP_take_stock_op: /* [size, start] */
      return (uint64_t)loc[1] + loc[0];
    case CG_OP_ext_diff:
    case CG_OP_ext_diff_iArr:
    case CG_OP_ext_diff_v2:
      return 0; /* operands are counts and indices, checked on evaluation */
    case CG_OP_death_not: /* ADOL-C's final one spans the whole store (P5) */
      return (uint64_t)(loc[0] > loc[1] ? loc[0] : loc[1]) + 1;
    default:
      for (i = 0; i < nloc; i++)
        if ((uint64_t)loc[i] + 1 > hi) hi = (uint64_t)loc[i] + 1;
      return hi;
  }
}

int cg_tape_reserve(cg_tape *t, uint32_t nloc, uint32_t nval, cg_error *e) {
  if (cg_reserve(t->A, (void **)&t->op, &t->cap_op, t->nops + 1, 1) ||
      cg_reserve(t->A, (void **)&t->loc, &t->cap_loc, t->nlocs + nloc, sizeof *t->loc) ||
      cg_reserve(t->A, (void **)&t->val, &t->cap_val, t->nvals + nval, sizeof *t->val))
    return cg_seterr(e, CG_ENOMEM, "out of memory after %zu records", t->nops);
  return CG_OK;
}

/* Appends a record that has been checked (ext: its highest location + 1). */
static int push_checked(cg_tape *t, unsigned op, const uint32_t *loc, uint32_t nloc,
                        const double *val, uint32_t nval, uint64_t ext, cg_error *e) {
  uint32_t i;
  int rc;
  if ((t->nops >= t->cap_op || t->nlocs + nloc > t->cap_loc || t->nvals + nval > t->cap_val) &&
      (rc = cg_tape_reserve(t, nloc, nval, e)))
    return rc;
  t->op[t->nops++] = (uint8_t)op;
  for (i = 0; i < nloc; i++) t->loc[t->nlocs + i] = loc[i];
  for (i = 0; i < nval; i++) t->val[t->nvals + i] = val[i];
  t->nlocs += nloc;
  t->nvals += nval;
  if (op == CG_OP_assign_ind || op == CG_OP_ref_assign_ind) t->n_indep++;
  if (op == CG_OP_assign_dep) t->n_dep++;
  if (ext > t->nstore) t->nstore = ext;
  return CG_OK;
}

int cg_tape_push_rec(cg_tape *t, unsigned op, const uint32_t *loc, uint32_t nloc,
                     const double *val, uint32_t nval, cg_error *e) {
  uint64_t ext = 0;
  uint32_t i;
  int rc;
  if (op < 256 && cg_optab_plain[op] && cg_optab_full[op].nloc == (int)nloc &&
      cg_optab_full[op].nval == (int)nval) {
    for (i = 0; i < nloc; i++)
      if ((uint64_t)loc[i] + 1 > ext) ext = (uint64_t)loc[i] + 1;
  } else {
    if ((rc = check_rec(op, loc, nloc, nval, e))) return rc;
    ext = rec_extent(op, loc, nloc);
  }
  return push_checked(t, op, loc, nloc, val, nval, ext, e);
}

int cg_tape_push(cg_tape *t, unsigned op, const uint32_t *loc, uint32_t nloc,
                 const double *val, uint32_t nval, cg_error *e) {
  if (!cg_optab_ready) cg_optab_init();
  if (t->locmap) /* its numbers are no longer those of any file */
    return cg_seterr(e, CG_EUSAGE, "a renumbered tape cannot take more records");
  return cg_tape_push_rec(t, op, loc, nloc, val, nval, e);
}

int cg_tape_set_x0(cg_tape *t, const double *x, size_t n, cg_error *e) {
  double *nx;
  if (n != t->n_indep)
    return cg_seterr(e, CG_EUSAGE, "%zu values given for %llu independents", n,
                     (unsigned long long)t->n_indep);
  nx = CG_NEW(t->A, double, n);
  if (!nx) return cg_seterr(e, CG_ENOMEM, "out of memory");
  if (n) memcpy(nx, x, n * sizeof *x);
  CG_FREE(t->A, t->x0, double, t->n_indep);
  t->x0 = nx;
  t->has_x0 = 1;
  return CG_OK;
}

void cg_tape_iter_init(cg_tape_iter *it, const cg_tape *t) {
  if (!cg_optab_ready) cg_optab_init();
  it->t = t;
  it->i = it->lpos = it->vpos = 0;
}

/* Next record in tape order; 0 at the end. */
int cg_tape_iter_next(cg_tape_iter *it, cg_rec *r) {
  const cg_tape *t = it->t;
  unsigned op;
  uint32_t nl, nv;
  if (it->i >= t->nops) return 0;
  op = t->op[it->i];
  r->loc = t->loc ? t->loc + it->lpos : NULL; /* NULL + 0 is undefined */
  if (cg_optab_full[op].nloc >= 0 && cg_optab_full[op].nval >= 0) { /* fixed size: most records */
    nl = (uint32_t)cg_optab_full[op].nloc;
    nv = (uint32_t)cg_optab_full[op].nval;
  } else if (cg_rec_counts(op, r->loc, (uint32_t)(t->nlocs - it->lpos), &nl, &nv) != 1) {
    return 0;
  }
  r->op = op;
  r->nloc = nl;
  r->nval = nv;
  r->val = t->val ? t->val + it->vpos : NULL;
  r->index = it->i++;
  it->lpos += nl;
  it->vpos += nv;
  return 1;
}
