/*
 * cg_elim.c: vertex elimination orderings (seed 004 section 1) and the exact
 * optimum for small components.
 *
 * The candidates (remaining intermediates) sit in a binary heap keyed by the
 * tuple of their rule scores, then the vertex id (highest first by default,
 * toward reverse mode, as ANGEL breaks ties).  Eliminating v changes the
 * scores only near v: the rules say how far (radius 0: nowhere; 1: v's
 * neighbours; 2: their neighbours too), and only those are rescored.  So a
 * Markowitz run costs O(sum of degrees touched * log V), not O(V^2).
 */
#include <math.h>
#include <string.h>

#include "cg_lin.h"

#define NONE UINT32_MAX

typedef struct run {
  cg_lin *g;
  const cg_order *o;
  cg_error *e;
  double *key;        /* nrules keys per vertex */
  uint32_t *heap, *pos, nheap;
  uint32_t *stamp, epoch;
  uint32_t *touched, ntouched;
  size_t captouched;
  uint32_t *xcnt, *ycnt; /* relative Markowitz: independents reaching v, dependents v reaches */
  int radius, err;
} run;

/* {==== scores ====} */

/* Edges (u, k) that eliminating v would create, over v's in-edges (ANGEL's
 * lowest fill-in). */
static uint64_t fill_of(const cg_lin *g, uint32_t v) {
  uint64_t f = 0;
  uint32_t a, b;
  for (a = 0; a < g->in[v].n; a++) {
    uint32_t u = g->tail[g->in[v].e[a]];
    for (b = 0; b < g->out[v].n; b++)
      if (cg_lin_find(g, u, g->head[g->out[v].e[b]]) == NONE) f++;
  }
  return f;
}

/* How much eliminating v enlarges the Markowitz degrees of its neighbours
 * (ANGEL's markowitz_enlargement_all_neighbors, no parallel edges). */
static double enlargement(const cg_lin *g, uint32_t v) {
  double enl = 0;
  uint32_t a, b;
  for (a = 0; a < g->in[v].n; a++) { /* predecessor u gains out-edges */
    uint32_t u = g->tail[g->in[v].e[a]], nw = 0;
    for (b = 0; b < g->out[v].n; b++)
      if (cg_lin_find(g, u, g->head[g->out[v].e[b]]) == NONE) nw++;
    enl += (double)g->in[u].n * ((double)nw - 1);
  }
  for (b = 0; b < g->out[v].n; b++) { /* successor k gains in-edges */
    uint32_t k = g->head[g->out[v].e[b]], nw = 0;
    for (a = 0; a < g->in[v].n; a++)
      if (cg_lin_find(g, g->tail[g->in[v].e[a]], k) == NONE) nw++;
    enl += (double)g->out[k].n * ((double)nw - 1);
  }
  return enl;
}

/* Rule r's score of v: lower is eliminated first. */
static double score(run *R, int r, uint32_t v) {
  const cg_lin *g = R->g;
  const cg_rule *ru = &R->o->rule[r];
  double mk = (double)cg_lin_markowitz(g, v);
  switch (ru->kind) {
    case CG_ORD_FORWARD: return v;
    case CG_ORD_REVERSE: return -(double)v;
    case CG_ORD_MARKOWITZ: return mk;
    case CG_ORD_REL_MARKOWITZ: return mk - (double)R->xcnt[v] * R->ycnt[v];
    case CG_ORD_MIN_FILL: return (double)fill_of(g, v);
    case CG_ORD_LMMD: return mk + enlargement(g, v);
    case CG_ORD_MOMR: return -(mk - enlargement(g, v)); /* largest reduction first */
    case CG_ORD_RANDOM: { /* a fixed pseudo-random key per vertex (splitmix64) */
      uint64_t z = R->o->seed + 0x9e3779b97f4a7c15ull * (v + 1ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      return (double)((z ^ (z >> 31)) >> 11);
    }
    case CG_ORD_CALLBACK: {
      int err = 0;
      double s = ru->fn(ru->ud, g, v, &err);
      if (err) R->err = err;
      return s;
    }
    default: return 0;
  }
}

/* {==== the candidate heap ====} */

/* a before b? Lexicographic on the rule keys, then on the id. */
static int before(const run *R, uint32_t a, uint32_t b) {
  int r, n = R->o->nrules;
  for (r = 0; r < n; r++) {
    double ka = R->key[(size_t)a * n + r], kb = R->key[(size_t)b * n + r];
    if (ka != kb) return ka < kb;
  }
  return R->o->lowest_first ? a < b : a > b;
}

static void heap_set(run *R, uint32_t i, uint32_t v) {
  R->heap[i] = v;
  R->pos[v] = i;
}

static void sift_up(run *R, uint32_t i) {
  uint32_t v = R->heap[i];
  while (i > 0) {
    uint32_t p = (i - 1) / 2;
    if (!before(R, v, R->heap[p])) break;
    heap_set(R, i, R->heap[p]);
    i = p;
  }
  heap_set(R, i, v);
}

static void sift_down(run *R, uint32_t i) {
  uint32_t v = R->heap[i];
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= R->nheap) break;
    if (c + 1 < R->nheap && before(R, R->heap[c + 1], R->heap[c])) c++;
    if (!before(R, R->heap[c], v)) break;
    heap_set(R, i, R->heap[c]);
    i = c;
  }
  heap_set(R, i, v);
}

static uint32_t heap_pop(run *R) {
  uint32_t top = R->heap[0];
  R->pos[top] = NONE;
  if (--R->nheap) {
    heap_set(R, 0, R->heap[R->nheap]);
    sift_down(R, 0);
  }
  return top;
}

/* Recomputes v's keys and restores the heap. */
static void rescore(run *R, uint32_t v) {
  int r, n = R->o->nrules;
  for (r = 0; r < n; r++) R->key[(size_t)v * n + r] = score(R, r, v);
  if (R->pos[v] != NONE) {
    sift_up(R, R->pos[v]);
    sift_down(R, R->pos[v]);
  }
}

/* {==== neighbourhoods ====} */

/* Adds v to the set of vertices to rescore (once per step). */
static int touch(run *R, uint32_t v) {
  if (R->stamp[v] == R->epoch || R->g->kind[v] != CG_V_INTER) return CG_OK;
  R->stamp[v] = R->epoch;
  if (cg_reserve(R->g->A, (void **)&R->touched, &R->captouched, R->ntouched + 1, 4))
    return CG_ENOMEM;
  R->touched[R->ntouched++] = v;
  return CG_OK;
}

/* The neighbours of v (before its elimination): the vertices whose scores
 * may change.  With radius 2, rescore() later adds their neighbours. */
static int collect(run *R, uint32_t v) {
  const cg_lin *g = R->g;
  uint32_t k;
  R->epoch++;
  R->ntouched = 0;
  if (R->radius == 0) return CG_OK;
  for (k = 0; k < g->in[v].n; k++)
    if (touch(R, g->tail[g->in[v].e[k]])) return CG_ENOMEM;
  for (k = 0; k < g->out[v].n; k++)
    if (touch(R, g->head[g->out[v].e[k]])) return CG_ENOMEM;
  return CG_OK;
}

/* After the elimination: for radius 2 widen to the neighbours' neighbours
 * (whose fill and damage scores read the changed lists), then rescore. */
static int update(run *R) {
  const cg_lin *g = R->g;
  uint32_t i, k, n1 = R->ntouched;
  if (R->radius >= 2)
    for (i = 0; i < n1; i++) {
      uint32_t u = R->touched[i];
      for (k = 0; k < g->in[u].n; k++)
        if (touch(R, g->tail[g->in[u].e[k]])) return CG_ENOMEM;
      for (k = 0; k < g->out[u].n; k++)
        if (touch(R, g->head[g->out[u].e[k]])) return CG_ENOMEM;
    }
  for (i = 0; i < R->ntouched; i++) rescore(R, R->touched[i]);
  return CG_OK;
}

/* {==== relative Markowitz counts ====} */

/* xcnt[v]: independents with a path to v; ycnt[v]: dependents reachable
 * from v.  Bit sets of 64 sources at a time, so O(E * n / 64). */
static int reach_counts(run *R) {
  cg_lin *g = R->g;
  uint64_t *bits = (uint64_t *)cg_malloc(g->A, (size_t)(g->nv ? g->nv : 1) * 8);
  uint32_t base, v, k, i;
  int side;
  if (!bits) return CG_ENOMEM;
  for (side = 0; side < 2; side++) {
    uint32_t nsrc = side ? g->m : g->n, *cnt = side ? R->ycnt : R->xcnt;
    memset(cnt, 0, (size_t)(g->nv ? g->nv : 1) * 4);
    for (base = 0; base < nsrc; base += 64) {
      memset(bits, 0, (size_t)(g->nv ? g->nv : 1) * 8);
      for (i = base; i < nsrc && i < base + 64; i++)
        bits[side ? g->y[i] : g->x[i]] |= 1ull << (i - base);
      if (!side) {
        for (v = 0; v < g->nv; v++)
          for (k = 0; k < g->in[v].n; k++) bits[v] |= bits[g->tail[g->in[v].e[k]]];
      } else {
        for (v = g->nv; v-- > 0;)
          for (k = 0; k < g->out[v].n; k++) bits[v] |= bits[g->head[g->out[v].e[k]]];
      }
      for (v = 0; v < g->nv; v++) {
        uint64_t b = bits[v];
        while (b) {
          b &= b - 1;
          cnt[v]++;
        }
      }
    }
  }
  cg_free(g->A, bits, (size_t)(g->nv ? g->nv : 1) * 8);
  return CG_OK;
}

/* {==== the elimination loop ====} */

static void run_free(run *R) {
  cg_alloc *A = R->g->A;
  size_t nv = R->g->nv ? R->g->nv : 1;
  cg_free(A, R->key, nv * (size_t)(R->o->nrules ? R->o->nrules : 1) * 8);
  cg_free(A, R->heap, nv * 4);
  cg_free(A, R->pos, nv * 4);
  cg_free(A, R->stamp, nv * 4);
  cg_free(A, R->touched, R->captouched * 4);
  cg_free(A, R->xcnt, nv * 4);
  cg_free(A, R->ycnt, nv * 4);
}

/* Rule radius: how far an elimination changes this rule's scores. */
static int rule_radius(const cg_rule *r) {
  switch (r->kind) {
    case CG_ORD_FORWARD: case CG_ORD_REVERSE: case CG_ORD_RANDOM: return 0;
    case CG_ORD_MARKOWITZ: case CG_ORD_REL_MARKOWITZ: return 1;
    case CG_ORD_CALLBACK: return r->radius;
    default: return 2;
  }
}

static int run_init(run *R, cg_lin *g, const cg_order *o, cg_error *e) {
  size_t nv = g->nv ? g->nv : 1;
  uint32_t v;
  int r;
  memset(R, 0, sizeof *R);
  R->g = g, R->o = o, R->e = e;
  if (o->nrules < 1 || o->nrules > CG_MAX_RULES)
    return cg_seterr(e, CG_EUSAGE, "an ordering needs 1 to %d rules", CG_MAX_RULES);
  for (r = 0; r < o->nrules; r++)
    if (rule_radius(&o->rule[r]) > R->radius) R->radius = rule_radius(&o->rule[r]);
  R->key = (double *)cg_malloc(g->A, nv * (size_t)o->nrules * 8);
  R->heap = (uint32_t *)cg_malloc(g->A, nv * 4);
  R->pos = (uint32_t *)cg_malloc(g->A, nv * 4);
  R->stamp = (uint32_t *)cg_malloc(g->A, nv * 4);
  R->xcnt = (uint32_t *)cg_malloc(g->A, nv * 4);
  R->ycnt = (uint32_t *)cg_malloc(g->A, nv * 4);
  if (!R->key || !R->heap || !R->pos || !R->stamp || !R->xcnt || !R->ycnt)
    return cg_seterr(e, CG_ENOMEM, "out of memory");
  memset(R->stamp, 0, nv * 4);
  for (r = 0; r < o->nrules; r++)
    if (o->rule[r].kind == CG_ORD_REL_MARKOWITZ && reach_counts(R))
      return cg_seterr(e, CG_ENOMEM, "out of memory");
  for (v = 0; v < g->nv; v++) {
    R->pos[v] = NONE;
    if (g->kind[v] != CG_V_INTER) continue;
    for (r = 0; r < o->nrules; r++) R->key[(size_t)v * o->nrules + r] = score(R, r, v);
    R->heap[R->nheap] = v;
    R->pos[v] = R->nheap++;
  }
  for (v = R->nheap / 2 + 1; v-- > 0;)
    if (v < R->nheap) sift_down(R, v);
  return R->err ? cg_seterr(e, CG_ERUNTIME, "the ordering's score function failed") : CG_OK;
}

int cg_lin_eliminate(cg_lin *g, const cg_order *o, cg_cost *c, uint32_t *order_out,
                     uint32_t *nout, cg_error *e) {
  run R;
  int rc = run_init(&R, g, o, e);
  uint32_t count = 0;
  while (!rc && R.nheap) {
    uint32_t v = heap_pop(&R);
    if ((rc = collect(&R, v)) != 0) rc = cg_seterr(e, CG_ENOMEM, "out of memory");
    else if (!(rc = cg_lin_elim_vertex(g, v, c, e))) {
      if (order_out) order_out[count] = v;
      count++;
      if (update(&R)) rc = cg_seterr(e, CG_ENOMEM, "out of memory");
      else if (R.err) rc = cg_seterr(e, CG_ERUNTIME, "the ordering's score function failed");
    }
  }
  if (nout) *nout = count;
  run_free(&R);
  return rc;
}

int cg_lin_eliminate_seq(cg_lin *g, const uint32_t *seq, uint32_t len, cg_cost *c,
                         cg_error *e) {
  uint32_t i;
  int rc;
  for (i = 0; i < len; i++)
    if ((rc = cg_lin_elim_vertex(g, seq[i], c, e))) return rc;
  return CG_OK;
}
