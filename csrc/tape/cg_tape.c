/* cg_tape.c: the opcode table, in-memory tapes, loading, format detection. */
#include "cg_tape.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

/* {==== opcode table ====} */

static const cg_opinfo op_table[256] = {
#define CG_OP_INFO(code, nm, nl, nv, no, fl, pm) [code] = {#nm, nl, nv, no, fl, {0}},
    CG_OPS(CG_OP_INFO)
#undef CG_OP_INFO
};

/* The permutations, decoded once from the digit strings of cg_ops.h. */
static const char *const op_perm[256] = {
#define CG_OP_PERM(code, nm, nl, nv, no, fl, pm) [code] = pm,
    CG_OPS(CG_OP_PERM)
#undef CG_OP_PERM
};

/* op_full and op_plain are filled once per process, through pthread_once, and
 * only read after: several threads (each with its own lua_State, doc/c-api.md)
 * may open tapes at once.  op_ready, read with acquire order, spares the
 * readers' hot paths the call of pthread_once once the tables are there. */
static cg_opinfo op_full[256];
/* op_plain[c]: records of code c have fixed counts and every location is a
 * store index, so cg_tape_push needs no check beyond the counts. */
static uint8_t op_plain[256];
static pthread_once_t op_once = PTHREAD_ONCE_INIT;
static int op_ready = 0;

static void op_init(void) {
  unsigned c, i;
  for (c = 0; c < 256; c++) {
    const cg_opinfo *oi = &op_table[c];
    op_full[c] = *oi;
    for (i = 0; i < 8; i++) op_full[c].perm[i] = (uint8_t)i;
    if (op_perm[c])
      for (i = 0; op_perm[c][i] && i < 8; i++) op_full[c].perm[i] = (uint8_t)(op_perm[c][i] - '0');
    op_plain[c] = oi->name && oi->nloc >= 0 && oi->nval >= 0 &&
                  !(oi->flags & (CG_OPF_MARKER | CG_OPF_REJECT | CG_OPF_PARAM | CG_OPF_VARLEN)) &&
                  c != CG_OP_death_not && c != CG_OP_ext_diff && c != CG_OP_vec_copy &&
                  c != CG_OP_vec_dot && c != CG_OP_vec_axpy;
  }
#ifdef __GNUC__
  __atomic_store_n(&op_ready, 1, __ATOMIC_RELEASE);
#endif
}

/* The tables, filled on first use. */
static void op_ensure(void) {
#ifdef __GNUC__
  if (__atomic_load_n(&op_ready, __ATOMIC_ACQUIRE)) return;
#endif
  pthread_once(&op_once, op_init);
}

int cg_op_plain(unsigned op) {
  op_ensure();
  return op < 256 && op_plain[op];
}

const cg_opinfo *cg_op(unsigned op) {
  op_ensure();
  return &op_full[op & 255];
}

int cg_op_byname(const char *name) {
  unsigned c;
  for (c = 0; c < 256; c++)
    if (op_table[c].name && strcmp(op_table[c].name, name) == 0) return (int)c;
  return -1;
}

/* Largest variable-length record accepted (guards against absurd counts). */
#define CG_MAXVAR (1u << 24)

/* Counts of a variable-length record from its leading locations: returns 1
 * when *nloc and *nval are final, 0 when `have` locations are too few (then *nloc
 * is how many are needed to go on), CG_EFORMAT when the counts are absurd. */
int cg_rec_counts(unsigned op, const uint32_t *loc, uint32_t have, uint32_t *nloc,
                  uint32_t *nval) {
  const cg_opinfo *oi = cg_op(op);
  uint64_t k, n;
  *nval = oi->nval < 0 ? 0 : (uint32_t)oi->nval;
  if (oi->nloc >= 0 && oi->nval >= 0) {
    *nloc = (uint32_t)oi->nloc;
    return 1;
  }
  switch (op) {
    case CG_OP_take_stock_op: /* [size, start], size values */
      *nloc = 2;
      if (have < 1) return 0;
      if (loc[0] > CG_MAXVAR) return CG_EFORMAT;
      *nval = loc[0];
      return 1;
    case CG_OP_ext_diff_iArr: /* [k, iArr[k], k, six of ext_diff] */
      if (have < 1) return (*nloc = 1, 0);
      if (loc[0] > CG_MAXVAR) return CG_EFORMAT;
      *nloc = 8 + loc[0];
      return 1;
    case CG_OP_ext_diff_v2: /* [idx, k, iArr[k], k, nin, nout, pairs, nin, nout] */
      if (have < 2) return (*nloc = 2, 0);
      k = loc[1];
      if (k > CG_MAXVAR) return CG_EFORMAT;
      if (have < 5 + k) return (*nloc = (uint32_t)(5 + k), 0);
      n = 7 + k + 2 * ((uint64_t)loc[3 + k] + loc[4 + k]);
      if (n > CG_MAXVAR) return CG_EFORMAT;
      *nloc = (uint32_t)n;
      return 1;
    default:
      return CG_EFORMAT;
  }
}

/* {==== in-memory tapes ====} */

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

/* Checks a record against the opcode table; 0 if it is well formed. */
static int check_rec(unsigned op, const uint32_t *loc, uint32_t nloc, uint32_t nval,
                     cg_error *e) {
  const cg_opinfo *oi = cg_op(op);
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

/* Grows the three arrays for one more record; the tape is unchanged on failure. */
static int push_reserve(cg_tape *t, uint32_t nloc, uint32_t nval, cg_error *e) {
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
      (rc = push_reserve(t, nloc, nval, e)))
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

/* The fast path of cg_tape_push: a plain record with the right counts (the
 * bulk of every tape) needs only its highest location. */
static int push_rec(cg_tape *t, unsigned op, const uint32_t *loc, uint32_t nloc,
                    const double *val, uint32_t nval, cg_error *e) {
  uint64_t ext = 0;
  uint32_t i;
  int rc;
  if (op < 256 && op_plain[op] && op_full[op].nloc == (int)nloc && op_full[op].nval == (int)nval) {
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
  if (!op_ready) op_init();
  if (t->locmap) /* its numbers are no longer those of any file */
    return cg_seterr(e, CG_EUSAGE, "a renumbered tape cannot take more records");
  return push_rec(t, op, loc, nloc, val, nval, e);
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
  if (!op_ready) op_init();
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
  if (op_full[op].nloc >= 0 && op_full[op].nval >= 0) { /* fixed size: most records */
    nl = (uint32_t)op_full[op].nloc;
    nv = (uint32_t)op_full[op].nval;
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

/* {==== loading ====} */

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
  if (op_full[r->op & 255].flags & CG_OPF_PARAM) {
    rc = lower_param(r, cg_reader_params(R), cg_reader_info(R)->n_param, lloc, lval, e,
                     cg_basename(cg_reader_path(R)));
    if (rc) return rc;
  }
  rc = push_rec(t, r->op, r->loc, r->nloc, r->val, r->nval, e);
  if (rc) {
    char msg[sizeof e->msg];
    snprintf(msg, sizeof msg, "%s", e->msg);
    cg_seterr(e, rc, "%s: record %llu: %s", cg_basename(cg_reader_path(R)),
              (unsigned long long)r->index, msg);
  }
  return rc;
}

/* Appends a batch of records of R.  Plain records that fit the capacity
 * are copied in a tight loop with the counters in locals (what push_rec
 * would do, without its calls and reloads); anything else goes through
 * load_rec with the counters written back. */
static int load_batch(cg_tape *t, cg_reader *R, cg_rec *rb, int n, cg_error *e) {
  size_t nops = t->nops, nlocs = t->nlocs, nvals = t->nvals;
  uint64_t nstore = t->nstore, nin = t->n_indep, ndep = t->n_dep;
  int k, rc = CG_OK;
  for (k = 0; k < n && rc == CG_OK; k++) {
    const cg_rec *r = &rb[k];
    unsigned op = r->op;
    uint32_t nl = r->nloc, nv = r->nval, i, hi = 0, *dl;
    if (op > 255 || !op_plain[op] || op_full[op].nloc != (int)nl ||
        op_full[op].nval != (int)nv || nops >= t->cap_op || nl > t->cap_loc - nlocs ||
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
        (n = push_reserve(t, 4, 2, e)) != CG_OK) /* the room one run needs; capacities double */
      return n;
    u.op = t->op, u.loc = t->loc, u.val = t->val;
    u.cap_op = t->cap_op, u.cap_loc = t->cap_loc, u.cap_val = t->cap_val;
    u.nop = t->nops, u.nloc = t->nlocs, u.nval = t->nvals;
    u.maxloc = t->nstore;
    if ((n = cg_reader_next_run(R, &u, e)) <= 0) return n;
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
  if (!op_ready) op_init();
  snprintf(t->source, sizeof t->source, "%s", cg_reader_path(R));
  presize(t, info);
  if (total) cg_progress_at(A, "reading tape", 0, total);
  for (;;) { /* runs of plain records, and the others one by one between them */
    if ((rc = load_runs(t, R, e)) != 0) break;
    if ((n = cg_reader_next_batch(R, rb, R->next_run ? 1 : LOAD_BATCH, e)) == 0) break;
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

/* {==== readers: detection and dispatch ====} */

/* True if the first n bytes (all of the file when n < 80) are the 8
 * ten-byte ASCII integers of a classic tape's header (Bischof & Hu 1991,
 * sec. 1.3), or the start of them: a file cut inside its header is still
 * a classic tape, and so reported, since no text tape starts with a digit. */
static int looks_classic(const unsigned char *b, size_t n) {
  size_t f, i;
  for (f = 0; f < 8 && f * 10 < n; f++) {
    int digits = 0;
    for (i = 0; i < 10 && f * 10 + i < n; i++) {
      unsigned char c = b[f * 10 + i];
      if (c == ' ' && !digits) continue;
      if (c >= '0' && c <= '9') digits++;
      else return 0;
    }
    if (!digits && f * 10 + 10 <= n) return 0; /* a whole field of blanks */
  }
  return n > 0; /* blanks only, under 80 bytes: the start of the first field */
}

/* True if the bytes cannot start a text tape (control bytes other than
 * white space; UTF-8 in comments is fine): then it must be a classic tape. */
static int looks_binary(const unsigned char *b, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if ((b[i] < 32 && b[i] != '\t' && b[i] != '\n' && b[i] != '\r') || b[i] == 127) return 1;
  return 0;
}

static int is_adolc_name(const char *path) {
  const char *b = cg_basename(path);
  return strncmp(b, "ADOLC-", 6) == 0;
}

cg_reader *cg_reader_open(cg_alloc *A, const char *path, cg_error *e) {
  struct stat st;
  unsigned char head[80];
  size_t n;
  FILE *fp;
  if (!A) A = cg_default_alloc();
  if (stat(path, &st) != 0)
    return cg_seterr(e, CG_EIO, "%s: cannot open: %s", path, strerror(errno)), NULL;
  if (S_ISDIR(st.st_mode))
    return cg_seterr(e, CG_EFORMAT, "%s: cannot open: %s", path, strerror(EISDIR)), NULL;
  if (is_adolc_name(path)) return cg_adolc_open(A, path, e);
  fp = fopen(path, "rb");
  if (!fp) return cg_seterr(e, CG_EIO, "%s: cannot open: %s", path, strerror(errno)), NULL;
  n = fread(head, 1, sizeof head, fp);
  fclose(fp);
  if (n == 0) /* a pipe may say size 0 and hold bytes: what was read decides */
    return cg_seterr(e, CG_EFORMAT, "%s: empty file, not a tape", path), NULL;
  if (looks_classic(head, n) || looks_binary(head, n)) return cg_classic_open(A, path, e);
  return cg_text_open(A, path, NULL, 0, e);
}

int cg_reader_next(cg_reader *R, cg_rec *r, cg_error *e) { return R->next(R, r, e); }
int cg_reader_next_run(cg_reader *R, cg_run *u, cg_error *e) {
  return R->next_run ? R->next_run(R, u, e) : 0;
}

int cg_reader_next_batch(cg_reader *R, cg_rec *r, int max, cg_error *e) {
  if (max < 1) return cg_seterr(e, CG_EUSAGE, "batch of %d records", max);
  return R->next_batch ? R->next_batch(R, r, max, e) : R->next(R, r, e);
}
int cg_reader_rewind(cg_reader *R, cg_error *e) { return R->rewind(R, e); }
const cg_tapeinfo *cg_reader_info(const cg_reader *R) { return &R->info; }
const double *cg_reader_x0(const cg_reader *R) { return R->x0; }
const double *cg_reader_params(const cg_reader *R) { return R->params; }
const char *cg_reader_path(const cg_reader *R) { return R->path; }
uint64_t cg_reader_recbytes(const cg_reader *R, const cg_rec *r) { return R->recbytes(R, r); }
void cg_reader_close(cg_reader *R) {
  if (R) R->close(R);
}
