/* cg_load.c: loading a whole tape into memory (cg_tape_load,
 * cg_tape_from_reader): records from a reader, ADOL-C parameters lowered to
 * constants, appended to an in-memory tape, which is then renumbered if its
 * location space is sparse.  It calls the readers through cg_reader.c, the
 * in-memory tape (cg_tape.c), cg_sparse.c and the opcode table; none of them
 * calls it. */
#include <string.h>

#include "cg_ops_impl.h"
#include "cg_reader_impl.h"
#include "cg_tape.h"
#include "cg_tape_impl.h"

/* Lowers an ADOL-C parameter opcode to the constant form of cgwb's table
 * (doc/adolc-format.md sections 5 and 6: P[q] as read at taping).  Bitwise the
 * same arithmetic: a - P == a + (-P), P / a is div_d_a. */
static int lower_param(cg_rec *r, const double *params, uint64_t np, uint32_t *loc,
                       double *val, cg_error *e, const char *path) {
  uint32_t p = r->loc[r->nloc - 1];
  unsigned op = r->op;
  if (op == CG_OP_ref_assign_p) p = r->loc[1];
  if (op == CG_OP_plus_a_p || op == CG_OP_min_a_p || op == CG_OP_mult_a_p ||
      op == CG_OP_div_p_a || op == CG_OP_pow_op_p)
    p = r->loc[2];
  if (p >= np)
    return cg_seterr(e, CG_EFORMAT, "%s: record %llu: parameter %u >= %llu parameters",
                     path, (unsigned long long)r->index, (unsigned)p, (unsigned long long)np);
  val[0] = params[p];
  loc[0] = r->loc[0];
  loc[1] = r->loc[1];
  r->nloc = 1;
  r->nval = 1;
  switch (op) {
    case CG_OP_assign_p: r->op = CG_OP_assign_d; break;
    case CG_OP_eq_plus_p: r->op = CG_OP_eq_plus_d; break;
    case CG_OP_eq_min_p: r->op = CG_OP_eq_min_d; break;
    case CG_OP_eq_mult_p: r->op = CG_OP_eq_mult_d; break;
    case CG_OP_ref_assign_p: r->op = CG_OP_ref_assign_d; break;
    case CG_OP_ref_eq_plus_p: r->op = CG_OP_ref_eq_plus_d; break;
    case CG_OP_ref_eq_min_p: r->op = CG_OP_ref_eq_min_d; break;
    case CG_OP_ref_eq_mult_p: r->op = CG_OP_ref_eq_mult_d; break;
    case CG_OP_neg_sign_p: r->op = CG_OP_assign_d; val[0] = -val[0]; break;
    case CG_OP_recipr_p: r->op = CG_OP_assign_d; val[0] = 1.0 / val[0]; break;
    case CG_OP_plus_a_p: r->op = CG_OP_plus_d_a; r->nloc = 2; break;
    case CG_OP_min_a_p: r->op = CG_OP_plus_d_a; r->nloc = 2; val[0] = -val[0]; break;
    case CG_OP_mult_a_p: r->op = CG_OP_mult_d_a; r->nloc = 2; break;
    case CG_OP_div_p_a: r->op = CG_OP_div_d_a; r->nloc = 2; break;
    case CG_OP_pow_op_p: r->op = CG_OP_pow_op; r->nloc = 2; break;
    default: return cg_seterr(e, CG_EFORMAT, "%s: cannot lower %s", path, cg_op(op)->name);
  }
  r->loc = loc;
  r->val = val;
  return CG_OK;
}

/* Records per cg_reader_next_batch call while loading. */
#define LOAD_BATCH 256

/* Room for a whole ADOL-C tape at once, exactly as its header counts it (the
 * reader has checked those counts against the file sizes; markers, padding
 * and parameters make them upper bounds, lowering parameters adds at most one
 * value per record): no regrowth, no copies.  Only a hint: if it fails, the
 * arrays grow as records come, and report a lack of memory then. */
static void presize(cg_tape *t, const cg_tapeinfo *info) {
  const uint64_t *st = info->stats;
  size_t nop = (size_t)st[5], nloc = (size_t)st[7], nval = (size_t)st[9];
  if (info->format != CG_FMT_ADOLC || t->cap_op || t->cap_loc || t->cap_val ||
      nloc > SIZE_MAX / sizeof *t->loc || nval > SIZE_MAX / sizeof *t->val)
    return;
  nop += 1, nloc += 4, nval += 2; /* the slack cg_reader_next_run asks for */
  t->op = (uint8_t *)cg_malloc(t->A, nop);
  t->loc = (uint32_t *)cg_malloc(t->A, nloc * sizeof *t->loc);
  t->val = (double *)cg_malloc(t->A, nval * sizeof *t->val);
  t->cap_op = t->op ? nop : 0;
  t->cap_loc = t->loc ? nloc : 0;
  t->cap_val = t->val ? nval : 0;
}

/* Appends one record of R to t, lowering a parameter opcode first. */
static int load_rec(cg_tape *t, cg_reader *R, cg_rec *r, cg_error *e) {
  uint32_t lloc[2];
  double lval[1];
  int rc;
  if (cg_optab_full[r->op & 255].flags & CG_OPF_PARAM) {
    rc = lower_param(r, cg_reader_params(R), cg_reader_info(R)->n_param, lloc, lval, e,
                     cg_basename(cg_reader_path(R)));
    if (rc) return rc;
  }
  rc = cg_tape_push_rec(t, r->op, r->loc, r->nloc, r->val, r->nval, e);
  if (rc) {
    char msg[sizeof e->msg];
    snprintf(msg, sizeof msg, "%s", e->msg);
    cg_seterr(e, rc, "%s: record %llu: %s", cg_basename(cg_reader_path(R)),
              (unsigned long long)r->index, msg);
  }
  return rc;
}

/* Appends a batch of records of R.  Plain records that fit the capacity
 * are copied in a tight loop with the counters in locals (what
 * cg_tape_push_rec would do, without its calls and reloads); anything else
 * goes through load_rec with the counters written back. */
static int load_batch(cg_tape *t, cg_reader *R, cg_rec *rb, int n, cg_error *e) {
  size_t nops = t->nops, nlocs = t->nlocs, nvals = t->nvals;
  uint64_t nstore = t->nstore, nin = t->n_indep, ndep = t->n_dep;
  int k, rc = CG_OK;
  for (k = 0; k < n && rc == CG_OK; k++) {
    const cg_rec *r = &rb[k];
    unsigned op = r->op;
    uint32_t nl = r->nloc, nv = r->nval, i, hi = 0, *dl;
    if (op > 255 || !cg_optab_plain[op] || cg_optab_full[op].nloc != (int)nl ||
        cg_optab_full[op].nval != (int)nv || nops >= t->cap_op || nl > t->cap_loc - nlocs ||
        nv > t->cap_val - nvals) {
      t->nops = nops, t->nlocs = nlocs, t->nvals = nvals;
      t->nstore = nstore, t->n_indep = nin, t->n_dep = ndep;
      rc = load_rec(t, R, &rb[k], e);
      nops = t->nops, nlocs = t->nlocs, nvals = t->nvals;
      nstore = t->nstore, nin = t->n_indep, ndep = t->n_dep;
      continue;
    }
    dl = t->loc + nlocs;
    for (i = 0; i < nl; i++) {
      dl[i] = r->loc[i];
      hi = r->loc[i] > hi ? r->loc[i] : hi;
    }
    if (nl && (uint64_t)hi >= nstore) nstore = (uint64_t)hi + 1; /* one compare per record */
    for (i = 0; i < nv; i++) t->val[nvals + i] = r->val[i];
    nlocs += nl;
    nvals += nv;
    nin += op == CG_OP_assign_ind || op == CG_OP_ref_assign_ind;
    ndep += op == CG_OP_assign_dep;
    t->op[nops++] = (uint8_t)op;
  }
  t->nops = nops, t->nlocs = nlocs, t->nvals = nvals;
  t->nstore = nstore, t->n_indep = nin, t->n_dep = ndep;
  return rc;
}

/* Adds the independents and dependents among opcodes p[0 .. n) to *nin and
 * *ndep.  Eight opcodes a step (SWAR): a byte-by-byte loop took a fifth of
 * loading an ADOL-C tape, and compilers do not vectorize it at -O2.  For
 * x = byte ^ code, ~(((x & 0x7f) + 0x7f) | x | 0x7f) is 0x80 exactly when
 * x == 0, with no carry between bytes; the multiplication sums the bytes. */
static void count_io(const uint8_t *p, size_t n, uint64_t *nin, uint64_t *ndep) {
  const uint64_t ones = 0x0101010101010101u, low7 = 0x7f7f7f7f7f7f7f7fu;
  const uint64_t ci = ones * CG_OP_assign_ind, cd = ones * CG_OP_assign_dep;
  uint64_t a = 0, b = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w, x, y;
    memcpy(&w, p + i, 8);
    x = w ^ ci;
    y = w ^ cd;
    x = ~(((x & low7) + low7) | x | low7);
    y = ~(((y & low7) + low7) | y | low7);
    a += ((x >> 7) * ones) >> 56;
    b += ((y >> 7) * ones) >> 56;
  }
  for (; i < n; i++) {
    a += p[i] == CG_OP_assign_ind;
    b += p[i] == CG_OP_assign_dep;
  }
  *nin += a;
  *ndep += b;
}

/* Takes the plain records R decodes in struct-of-arrays form straight into
 * t's arrays (cg_reader_next_run), growing them as needed; 0 when the next
 * record must come another way. */
static int load_runs(cg_tape *t, cg_reader *R, cg_error *e) {
  int n;
  if (!R->next_run) return 0;
  for (;;) {
    cg_run u;
    if ((t->cap_op - t->nops < 1 || t->cap_loc - t->nlocs < 4 || t->cap_val - t->nvals < 2) &&
        (n = cg_tape_reserve(t, 4, 2, e)) != CG_OK) /* the room one run needs; capacities double */
      return n;
    u.op = t->op, u.loc = t->loc, u.val = t->val;
    u.cap_op = t->cap_op, u.cap_loc = t->cap_loc, u.cap_val = t->cap_val;
    u.nop = t->nops, u.nloc = t->nlocs, u.nval = t->nvals;
    u.maxloc = t->nstore;
    if ((n = cg_reader_run_of(R, &u, e)) <= 0) return n;
    count_io(u.op + t->nops, u.nop - t->nops, &t->n_indep, &t->n_dep);
    t->nops = u.nop, t->nlocs = u.nloc, t->nvals = u.nval, t->nstore = u.maxloc;
  }
}

/* Reports `done` records read of total (the header's count; past it:
 * unknown); returns the count at which to report next (about every 2^16).
 * Out of line: the loading loop keeps its registers (callgrind). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static uint64_t read_tick(const cg_alloc *A, uint64_t done, uint64_t total) {
  cg_progress_at(A, "reading tape", done, done < total ? total : 0);
  return (done | CG_PROGRESS_MASK) + 1;
}

cg_tape *cg_tape_from_reader(cg_alloc *A, cg_reader *R, cg_error *e) {
  cg_tape *t = cg_tape_new(A);
  const cg_tapeinfo *info = cg_reader_info(R);
  const double *x0;
  cg_rec rb[LOAD_BATCH];
  uint64_t total = info->n_ops, mark = CG_PROGRESS_MASK + 1; /* read before the text readers count */
  int rc = 0, n;
  if (!t) return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
  if (!cg_optab_ready) cg_optab_init();
  snprintf(t->source, sizeof t->source, "%s", cg_reader_path(R));
  presize(t, info);
  if (total) cg_progress_at(A, "reading tape", 0, total);
  for (;;) { /* runs of plain records, and the others one by one between them */
    if ((rc = load_runs(t, R, e)) != 0) break;
    if ((n = cg_reader_batch_of(R, rb, R->next_run ? 1 : LOAD_BATCH, e)) == 0) break;
    if ((rc = n < 0 ? n : load_batch(t, R, rb, n, e)) != 0) break;
    if (t->nops >= mark) mark = read_tick(A, t->nops, total);
  }
  cg_progress_end(A, "reading tape", t->nops);
  t->info = *info;     /* text readers complete it while reading */
  x0 = cg_reader_x0(R); /* likewise */
  if (rc == 0 && x0) rc = cg_tape_set_x0(t, x0, (size_t)t->n_indep, e);
  if (rc == 0) rc = cg_tape_compact(t, e); /* one test for a dense tape */
  if (rc) {
    cg_tape_free(t);
    return NULL;
  }
  return t;
}

cg_tape *cg_tape_load(cg_alloc *A, const char *path, cg_error *e) {
  cg_reader *R = cg_reader_open(A, path, e);
  cg_tape *t;
  if (!R) return NULL;
  t = cg_tape_from_reader(A, R, e);
  cg_reader_close(R);
  return t;
}
