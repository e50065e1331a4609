/* cg_ops.c: the opcode table of cg_ops.h: names, operand counts, flags and
 * ADOL-C's operand permutations, and the operand counts of variable-length
 * records.  The bottom of the tape files: it calls none of them. */
#include <pthread.h>
#include <string.h>

#include "cg_ops_impl.h"
#include "cg_tape.h"

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

/* cg_optab_full and cg_optab_plain (cg_ops_impl.h) are filled once per
 * process, through pthread_once, and only read after: several threads (each
 * with its own lua_State, doc/c-api.md) may open tapes at once.
 * cg_optab_ready, read with acquire order, spares the readers' hot paths the
 * call of pthread_once once the tables are there. */
cg_opinfo cg_optab_full[256];
/* cg_optab_plain[c]: records of code c have fixed counts and every location
 * is a store index, so cg_tape_push needs no check beyond the counts. */
uint8_t cg_optab_plain[256];
static pthread_once_t op_once = PTHREAD_ONCE_INIT;
int cg_optab_ready = 0;

void cg_optab_init(void) {
  unsigned c, i;
  for (c = 0; c < 256; c++) {
    const cg_opinfo *oi = &op_table[c];
    cg_optab_full[c] = *oi;
    for (i = 0; i < 8; i++) cg_optab_full[c].perm[i] = (uint8_t)i;
    if (op_perm[c])
      for (i = 0; op_perm[c][i] && i < 8; i++) cg_optab_full[c].perm[i] = (uint8_t)(op_perm[c][i] - '0');
    cg_optab_plain[c] = oi->name && oi->nloc >= 0 && oi->nval >= 0 &&
                        !(oi->flags & (CG_OPF_MARKER | CG_OPF_REJECT | CG_OPF_PARAM | CG_OPF_VARLEN)) &&
                        c != CG_OP_death_not && c != CG_OP_ext_diff && c != CG_OP_vec_copy &&
                        c != CG_OP_vec_dot && c != CG_OP_vec_axpy;
  }
#ifdef __GNUC__
  __atomic_store_n(&cg_optab_ready, 1, __ATOMIC_RELEASE);
#endif
}

/* The tables, filled on first use. */
static void op_ensure(void) {
#ifdef __GNUC__
  if (__atomic_load_n(&cg_optab_ready, __ATOMIC_ACQUIRE)) return;
#endif
  pthread_once(&op_once, cg_optab_init);
}

int cg_op_plain(unsigned op) {
  op_ensure();
  return op < 256 && cg_optab_plain[op];
}

const cg_opinfo *cg_op(unsigned op) {
  op_ensure();
  return &cg_optab_full[op & 255];
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
