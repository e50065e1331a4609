/*
 * cg_sparse.c: tapes whose location space is sparse.
 *
 * Every later stage (forward evaluation, the graph builder's live table,
 * code generation) keeps one entry per location 0 .. nstore-1.  A two-line
 * tape that uses location 3000000000 would make that 24 GB.  So when a loaded
 * tape's store is much larger than the number of locations its records can
 * name, the loader renumbers its locations densely, keeping their order
 * (rank among the locations used), and keeps the map back for the writers.
 * Order is kept, rather than first appearance, because a vector operand or a
 * take_stock_op names a run of consecutive locations and a death notice a
 * range: every member of a run is in the set, so ranks keep runs consecutive,
 * and a range [lo, hi] becomes [rank lo, rank hi], the same locations.
 *
 * The decision is made once per tape from two counts (cg_loc_sparse), so
 * ordinary tapes never reach this file.
 */
#include <string.h>

#include "../util/cg_map.h"
#include "cg_tape.h"

/* Stores below this many locations (8 MiB of values) are never renumbered. */
#define SPARSE_MIN ((uint64_t)1 << 20)
/* ... nor those with more than one location in SPARSE_RATIO in use. */
#define SPARSE_RATIO 8

int cg_loc_sparse(uint64_t extent, uint64_t uses) {
  return extent > SPARSE_MIN && extent / SPARSE_RATIO > uses;
}

/* Records that address the store through values (a location number held in
 * a location, or an index added to a base): renumbering would change where
 * they read and write. */
static int by_value(unsigned op) {
  return (cg_op(op)->flags & CG_OPF_REF) || op == CG_OP_subscript ||
         op == CG_OP_subscript_ref || op == CG_OP_ref_copyout || op == CG_OP_ext_diff ||
         op == CG_OP_ext_diff_iArr || op == CG_OP_ext_diff_v2;
}

/* The number of consecutive locations operand i of r starts (a vector run,
 * at least 1 so that the start of an empty run is mapped too), or 0 when it
 * is a count, not a location. */
static uint64_t run_at(const cg_rec *r, uint32_t i) {
  const uint32_t *l = r->loc;
  switch (r->op) {
    case CG_OP_take_stock_op: /* [size, start] */
      return i == 0 ? 0 : l[0] ? l[0] : 1;
    case CG_OP_vec_copy: /* [dst, src, n] */
      return i == 2 ? 0 : l[2] ? l[2] : 1;
    case CG_OP_vec_dot: /* [res, a, b, n] */
      return i == 3 ? 0 : i == 0 || !l[3] ? 1 : l[3];
    case CG_OP_vec_axpy: /* [res, s, x, y, n] */
      return i == 4 ? 0 : i == 1 || !l[4] ? 1 : l[4];
    default:
      return 1;
  }
}

/* The locations t's records name, counted with repeats (vector runs by
 * their length): an upper bound on the locations used. */
static uint64_t count_uses(const cg_tape *t) {
  cg_tape_iter it;
  cg_rec r;
  uint64_t n = 0;
  uint32_t i;
  cg_tape_iter_init(&it, t);
  while (cg_tape_iter_next(&it, &r))
    for (i = 0; i < r.nloc; i++) n += run_at(&r, i);
  return n;
}

/* Puts every location of t into m. */
static int collect(const cg_tape *t, cg_map *m, cg_error *e) {
  cg_tape_iter it;
  cg_rec r;
  uint32_t i, idx;
  uint64_t j, n;
  cg_tape_iter_init(&it, t);
  while (cg_tape_iter_next(&it, &r))
    for (i = 0; i < r.nloc; i++)
      for (j = 0, n = run_at(&r, i); j < n; j++)
        if (cg_map_put(m, (uint32_t)(r.loc[i] + j), &idx) < 0)
          return cg_seterr(e, CG_ENOMEM, "out of memory renumbering %zu records", t->nops);
  return CG_OK;
}

/* Rewrites every location operand of t through m (keys -> ranks). */
static void remap(cg_tape *t, const cg_map *m) {
  cg_tape_iter it;
  cg_rec r;
  uint32_t i;
  cg_tape_iter_init(&it, t);
  while (cg_tape_iter_next(&it, &r)) {
    uint32_t *l = t->loc + (r.loc - t->loc); /* the iterator's view is const */
    for (i = 0; i < r.nloc; i++)
      if (run_at(&r, i)) l[i] = cg_map_get(m, l[i]);
  }
}

/* The first record that addresses the store by value, or nops. */
static size_t first_by_value(const cg_tape *t) {
  size_t i;
  for (i = 0; i < t->nops; i++)
    if (by_value(t->op[i])) return i;
  return t->nops;
}

int cg_tape_compact(cg_tape *t, cg_error *e) {
  cg_map m;
  uint32_t *keys;
  uint64_t uses;
  size_t bad;
  int rc;
  if (t->locmap || !cg_loc_sparse(t->nstore, t->nlocs)) return CG_OK; /* dense: one test */
  if (t->nstore > (uint64_t)UINT32_MAX + 1) return CG_OK; /* a run past 32-bit locations */
  if (!cg_loc_sparse(t->nstore, uses = count_uses(t))) return CG_OK; /* long vector runs */
  if ((bad = first_by_value(t)) < t->nops)
    return cg_seterr(e, CG_EFORMAT,
                     "%s: record %zu: %s addresses locations through values, so the sparse "
                     "location space (locations up to %llu, at most %llu in use) cannot be "
                     "renumbered, and a store of that size is not allocated",
                     t->source[0] ? cg_basename(t->source) : "tape", bad,
                     cg_op(t->op[bad])->name, (unsigned long long)(t->nstore - 1),
                     (unsigned long long)uses);
  cg_map_init(&m, t->A);
  if ((rc = collect(t, &m, e)) != CG_OK) {
    cg_map_free(&m);
    return rc;
  }
  if (cg_map_rank(&m, &keys)) {
    cg_map_free(&m);
    return cg_seterr(e, CG_ENOMEM, "out of memory renumbering %zu records", t->nops);
  }
  remap(t, &m);
  t->locmap = keys;
  t->nstore = m.n;
  cg_map_free(&m);
  return CG_OK;
}

uint64_t cg_tape_file_nstore(const cg_tape *t) {
  return t->locmap && t->nstore ? (uint64_t)t->locmap[t->nstore - 1] + 1 : t->nstore;
}

const uint32_t *cg_tape_file_locs(const cg_tape *t, const cg_rec *r, uint32_t *buf) {
  uint32_t i;
  if (!t->locmap) return r->loc;
  for (i = 0; i < r->nloc && i < CG_FILE_LOCS; i++)
    buf[i] = run_at(r, i) ? t->locmap[r->loc[i]] : r->loc[i];
  return buf;
}
