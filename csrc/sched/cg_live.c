/* cg_live.c: storage allocation by levels (Bischof & Hu 1991, sec. 3.1, the
 * double-stack live_analysis), the sequential allocation, and evaluation
 * through the slots (section 3.3's eval_graph). */
#include <string.h>

#include "cg_sched.h"

int cg_sched_inline_leaf(const cg_graph *g, uint32_t v) {
  uint32_t o = g->op_start[v];
  return g->op_start[v + 1] - o == 1 && (g->op[o] == CG_G_INDEP || g->op[o] == CG_G_CONST);
}

void cg_sched_free(cg_sched *s) {
  if (!s) return;
  CG_FREE(s->A, s->level, uint32_t, s->n);
  CG_FREE(s->A, s->order, uint32_t, s->n);
  CG_FREE(s->A, s->lev_start, uint32_t, (size_t)s->nlev + 1);
  CG_FREE(s->A, s->slot, uint32_t, s->n);
  cg_free(s->A, s, sizeof *s);
}

/* An empty schedule with order and slot arrays for n nodes. */
static cg_sched *sched_new(cg_alloc *A, uint32_t n, cg_error *e) {
  cg_sched *s = (cg_sched *)cg_malloc(A, sizeof *s);
  if (!s) return cg_seterr(e, CG_ENOMEM, "out of memory"), (cg_sched *)NULL;
  memset(s, 0, sizeof *s);
  s->A = A;
  s->n = n;
  s->order = CG_NEW(A, uint32_t, n);
  s->slot = CG_NEW(A, uint32_t, n);
  if (!s->order || !s->slot) {
    cg_sched_free(s);
    return cg_seterr(e, CG_ENOMEM, "out of memory"), (cg_sched *)NULL;
  }
  return s;
}

/* {==== slot pool ====} */

/* Free slots (a stack, so the most recently released is reused first) and
 * the slots released on the current level, which become free only when the
 * level ends (section 3.1: "we can reuse n's slot only at the next level"). */
typedef struct pool {
  uint32_t *free, nfree;
  uint32_t *pend, npend;
  uint32_t nslots;
} pool;

static uint32_t pool_take(pool *p) { return p->nfree ? p->free[--p->nfree] : p->nslots++; }

static void pool_release(pool *p, uint32_t slot) {
  if (slot != CG_NOSLOT) p->pend[p->npend++] = slot;
}

/* The level is over: released slots become free. */
static void pool_commit(pool *p) {
  while (p->npend) p->free[p->nfree++] = p->pend[--p->npend];
}

/* Node v was assigned: each child whose last parent this was releases its
 * slot, and so does v itself if nothing reads it.  cnt counts the parent
 * edges assigned so far; keep(v) marks slots held to the end. */
static void release_after(const cg_graph *g, uint32_t v, const uint32_t *slot, uint32_t *cnt,
                          const uint8_t *keep, pool *p) {
  uint32_t k;
  for (k = g->kid_start[v]; k < g->kid_start[v + 1]; k++) {
    uint32_t c = g->kids[k];
    if (++cnt[c] == g->par_start[c + 1] - g->par_start[c] && !keep[c]) pool_release(p, slot[c]);
  }
  if (g->par_start[v] == g->par_start[v + 1] && !keep[v]) pool_release(p, slot[v]);
}

/* {==== the double-stack scheme ====} */

/* Work arrays of the live analysis, one allocation. */
typedef struct live_ws {
  uint32_t *stack1, *stack2, *cnt;
  uint8_t *visited, *keep;
  pool p;
  void *mem;
  size_t size;
} live_ws;

static int ws_alloc(cg_alloc *A, live_ws *w, uint32_t n) {
  size_t m = n;
  memset(w, 0, sizeof *w);
  w->size = m * 4 * 5 + m * 2;
  w->mem = cg_malloc(A, w->size);
  if (!w->mem) return CG_ENOMEM;
  memset(w->mem, 0, w->size);
  w->stack1 = (uint32_t *)w->mem;
  w->stack2 = w->stack1 + m;
  w->cnt = w->stack2 + m;
  w->p.free = w->cnt + m;
  w->p.pend = w->p.free + m;
  w->visited = (uint8_t *)(w->p.pend + m);
  w->keep = w->visited + m;
  return CG_OK;
}

/* Marks the slots kept to the end: dependents. */
static void mark_keep(const cg_graph *g, uint8_t *keep) {
  uint32_t i;
  for (i = 0; i < g->n_dep; i++) keep[g->dep[i]] = 1;
}

/* Highest level, refusing levels so high that the level table would be
 * absurd (a Lua scheme gone wrong). */
static int max_level(const cg_graph *g, const uint32_t *level, uint32_t *top, cg_error *e) {
  uint32_t v, m = 0;
  uint64_t cap = (uint64_t)g->n * 4 + 1024;
  for (v = 0; v < g->n; v++) {
    if (level[v] >= cap)
      return cg_seterr(e, CG_EUSAGE, "levels: node %lu has level %lu; at most %llu allowed",
                       (unsigned long)v + 1, (unsigned long)level[v], (unsigned long long)cap - 1);
    if (level[v] > m) m = level[v];
  }
  *top = m;
  return CG_OK;
}

/* One pass over stack1 at level cur (the loop body of section 3.1's
 * pseudocode): nodes of this level get a slot and push their unvisited
 * parents; the others move to stack2.  Returns the new stack2 size. */
static uint32_t live_pass(const cg_graph *g, cg_sched *s, live_ws *w, uint32_t n1, uint32_t cur,
                          unsigned flags, uint32_t *norder) {
  uint32_t n2 = 0, k;
  while (n1) {
    uint32_t v = w->stack1[--n1];
    if (s->level[v] != cur) {
      w->stack2[n2++] = v;
      s->stack_moves++;
      continue;
    }
    s->slot[v] = (flags & CG_SCHED_INLINE_LEAVES) && cg_sched_inline_leaf(g, v)
                     ? CG_NOSLOT
                     : pool_take(&w->p);
    s->order[(*norder)++] = v;
    for (k = g->par_start[v]; k < g->par_start[v + 1]; k++) {
      uint32_t p = g->pars[k];
      if (!w->visited[p]) {
        w->visited[p] = 1;
        w->stack2[n2++] = p;
      }
    }
    release_after(g, v, s->slot, w->cnt, w->keep, &w->p);
  }
  return n2;
}

/* Runs the double stack over all levels, filling order, lev_start, slot. */
static void live_run(const cg_graph *g, cg_sched *s, live_ws *w, unsigned flags) {
  uint32_t v, n1 = 0, cur, norder = 0, *t;
  for (v = 0; v < g->n; v++) /* put leaves on stack1 (last id popped first) */
    if (g->kid_start[v] == g->kid_start[v + 1]) {
      w->stack1[n1++] = v;
      w->visited[v] = 1;
    }
  for (cur = 0; cur < s->nlev; cur++) {
    s->lev_start[cur] = norder;
    n1 = live_pass(g, s, w, n1, cur, flags, &norder);
    t = w->stack1; /* stack1 <-> stack2 */
    w->stack1 = w->stack2;
    w->stack2 = t;
    pool_commit(&w->p);
  }
  s->lev_start[s->nlev] = norder;
  s->nslots = w->p.nslots;
}

cg_sched *cg_sched_live(cg_alloc *A, const cg_graph *g, const uint32_t *level, unsigned flags,
                        cg_error *e) {
  cg_sched *s;
  live_ws w;
  uint32_t top = 0;
  if (!g || !level) return cg_seterr(e, CG_EUSAGE, "cg_sched_live: no graph"), (cg_sched *)NULL;
  if (cg_levels_check(g, level, e) || max_level(g, level, &top, e)) return NULL;
  if (!(s = sched_new(A, g->n, e))) return NULL;
  s->nlev = g->n ? top + 1 : 0;
  s->level = CG_NEW(A, uint32_t, g->n);
  s->lev_start = CG_NEW(A, uint32_t, (size_t)s->nlev + 1);
  if (!s->level || !s->lev_start || ws_alloc(A, &w, g->n)) {
    cg_sched_free(s);
    return cg_seterr(e, CG_ENOMEM, "out of memory"), (cg_sched *)NULL;
  }
  if (g->n) memcpy(s->level, level, (size_t)g->n * 4);
  mark_keep(g, w.keep);
  live_run(g, s, &w, flags);
  cg_free(A, w.mem, w.size);
  return s;
}

/* {==== sequential ====} */

int cg_slots_linear(cg_alloc *A, const cg_graph *g, const uint8_t *need, uint32_t *slot,
                    uint32_t *nslots) {
  live_ws w;
  uint32_t v;
  if (ws_alloc(A, &w, g->n)) return CG_ENOMEM;
  mark_keep(g, w.keep);
  for (v = 0; v < g->n; v++) { /* every statement is its own level */
    slot[v] = need[v] ? pool_take(&w.p) : CG_NOSLOT;
    release_after(g, v, slot, w.cnt, w.keep, &w.p);
    pool_commit(&w.p);
  }
  *nslots = w.p.nslots;
  cg_free(A, w.mem, w.size);
  return CG_OK;
}

cg_sched *cg_sched_sequential(cg_alloc *A, const cg_graph *g, unsigned flags, cg_error *e) {
  cg_sched *s;
  uint8_t *need;
  uint32_t v;
  int rc;
  if (!g) return cg_seterr(e, CG_EUSAGE, "cg_sched_sequential: no graph"), (cg_sched *)NULL;
  if (!(s = sched_new(A, g->n, e))) return NULL;
  s->sequential = 1;
  s->nlev = 1;
  s->lev_start = CG_NEW(A, uint32_t, 2);
  need = CG_NEW(A, uint8_t, g->n);
  rc = s->lev_start && need ? CG_OK : CG_ENOMEM;
  for (v = 0; rc == CG_OK && v < g->n; v++) {
    s->order[v] = v;
    need[v] = !((flags & CG_SCHED_INLINE_LEAVES) && cg_sched_inline_leaf(g, v));
  }
  if (rc == CG_OK) rc = cg_slots_linear(A, g, need, s->slot, &s->nslots);
  CG_FREE(A, need, uint8_t, g->n);
  if (rc) {
    cg_sched_free(s);
    return cg_seterr(e, CG_ENOMEM, "out of memory"), (cg_sched *)NULL;
  }
  s->lev_start[0] = 0;
  s->lev_start[1] = g->n;
  return s;
}

/* {==== evaluation through the slots ====} */

/* The point of the build when no x is given (one-operation independents). */
static int build_point(const cg_graph *g, double *x, cg_error *e) {
  uint32_t i;
  if (!g->has_val) return cg_seterr(e, CG_EUSAGE, "the graph has no values; give x");
  for (i = 0; i < g->n_indep; i++) {
    uint32_t v = g->indep[i];
    if (g->op_start[v + 1] - g->op_start[v] != 1)
      return cg_seterr(e, CG_EUSAGE, "independent %lu is a supernode; give x", (unsigned long)i + 1);
    x[i] = g->val[v];
  }
  return CG_OK;
}

/* Value of a leaf read in place (cg_sched_inline_leaf). */
static double leaf_value(const cg_graph *g, uint32_t v, const double *x) {
  uint32_t o = g->op_start[v];
  return g->op[o] == CG_G_INDEP ? x[(size_t)g->opc[o]] : g->opc[o];
}

/* Value of node v, reading its children from their slots (or in place). */
static double eval_slots(const cg_graph *g, const cg_sched *s, uint32_t v, const double *t,
                         const double *x) {
  uint32_t k, j = 0, o = g->op_start[v];
  double kv[3], r;
  uint64_t sw = 0;
  if (g->op[o] == CG_G_INDEP) {
    r = x[(size_t)g->opc[o]];
    for (o++; o < g->op_start[v + 1]; o++) r = cg_gop_apply(g->op[o], g->opc[o], &r, &sw);
    return r;
  }
  for (k = g->kid_start[v]; k < g->kid_start[v + 1]; k++, j++) {
    uint32_t c = g->kids[k];
    kv[j] = s->slot[c] != CG_NOSLOT ? t[s->slot[c]] : leaf_value(g, c, x);
  }
  return cg_graph_node_eval(g, v, kv, &sw);
}

/* Evaluates every node in schedule order (levels backwards if reverse). */
static void eval_levels(const cg_graph *g, const cg_sched *s, const double *x, int reverse,
                        double *t, double *val_out) {
  uint32_t l, i;
  for (l = 0; l < s->nlev; l++) {
    uint32_t a = s->lev_start[l], b = s->lev_start[l + 1];
    for (i = 0; i < b - a; i++) {
      uint32_t v = s->order[reverse && !s->sequential ? b - 1 - i : a + i];
      double r = eval_slots(g, s, v, t, x);
      if (s->slot[v] != CG_NOSLOT) t[s->slot[v]] = r;
      if (val_out) val_out[v] = r;
    }
  }
}

/* Frees cg_sched_eval's slots t (ts of them) and point xx (xs) and returns
 * rc: its one exit, as CSparse's cs_done. */
static int eval_done(const cg_sched *s, double *t, size_t ts, double *xx, size_t xs, int rc) {
  CG_FREE(s->A, t, double, ts);
  CG_FREE(s->A, xx, double, xs);
  return rc;
}

int cg_sched_eval(const cg_graph *g, const cg_sched *s, const double *x, int reverse,
                  double *val_out, double *y, cg_error *e) {
  double *t, *xx = NULL;
  int rc;
  size_t ts = s->nslots, xs = g->n_indep;
  uint32_t i;
  if (!g || !s || s->n != g->n) return cg_seterr(e, CG_EUSAGE, "cg_sched_eval: schedule of another graph");
  t = CG_NEW(s->A, double, ts);
  if (!x) xx = CG_NEW(s->A, double, xs);
  if (!t || (!x && !xx)) return eval_done(s, t, ts, xx, xs, cg_seterr(e, CG_ENOMEM, "out of memory"));
  if (!x && (rc = build_point(g, xx, e)) != CG_OK) return eval_done(s, t, ts, xx, xs, rc);
  eval_levels(g, s, x ? x : xx, reverse, t, val_out);
  for (i = 0; y && i < g->n_dep; i++) {
    uint32_t v = g->dep[i];
    y[i] = s->slot[v] != CG_NOSLOT ? t[s->slot[v]] : leaf_value(g, v, x ? x : xx);
  }
  return eval_done(s, t, ts, xx, xs, CG_OK);
}
