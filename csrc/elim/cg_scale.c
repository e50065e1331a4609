/*
 * cg_scale.c: cheap counts that say what an elimination will cost before it
 * runs (cg_lin.h, "scale"; doc/elimination.md, "What each ordering costs").
 * The Lua drivers (lua/cgwb/elim/scale.lua, elim.estimate) compare them with
 * elim.LIMITS and refuse, up front, the runs that would take minutes or
 * gigabytes.
 */
#include <string.h>

#include "cg_lin.h"

typedef struct scratch {
  cg_alloc *A;
  size_t nv;
  uint64_t *bits; /* reach bit sets, 64 sources at a time */
  uint32_t *cnt;  /* per vertex: sources reaching it (reached from it) */
  uint32_t *up;   /* union-find parents over the intermediates */
} scratch;

/* The one exit: frees whatever was allocated, returns rc. */
static int done(scratch *w, int rc) {
  CG_FREE(w->A, w->bits, uint64_t, w->nv);
  CG_FREE(w->A, w->cnt, uint32_t, w->nv);
  CG_FREE(w->A, w->up, uint32_t, w->nv);
  return rc;
}

/* Degrees and Markowitz degrees: one pass over the vertices. */
static void degrees(const cg_lin *g, cg_lin_scale *s) {
  uint32_t v;
  for (v = 0; v < g->nv; v++) {
    uint32_t din = g->in[v].n, dout = g->out[v].n;
    if (din > s->max_degree) s->max_degree = din;
    if (dout > s->max_degree) s->max_degree = dout;
    if (g->kind[v] != CG_V_INTER) continue;
    s->inter++;
    s->markowitz_sum += (double)din * dout;
    if ((uint64_t)din * dout > s->max_markowitz)
      s->max_markowitz = (uint64_t)din * dout > UINT32_MAX ? UINT32_MAX : din * dout;
  }
}

/* cnt[v] = sources of one side reaching v (side 0: independents, along
 * in-edges in vertex order) or reached from v (side 1: dependents, along
 * out-edges backwards); 64 sources a pass, as relative Markowitz counts them
 * (cg_elim.c).  Stops, setting *partial, when the next pass would take the
 * side's word operations past work (0: no cap). */
static void reach(const cg_lin *g, int side, scratch *w, double work, int *partial) {
  uint32_t nsrc = side ? g->m : g->n, base, v, k, i;
  double pass = (double)g->nv + (double)g->nedges, spent = 0;
  memset(w->cnt, 0, w->nv * sizeof *w->cnt);
  for (base = 0; base < nsrc; base += 64) {
    if (work > 0 && spent + pass > work) {
      *partial = 1; /* the counts so far are lower bounds */
      return;
    }
    spent += pass;
    memset(w->bits, 0, w->nv * sizeof *w->bits);
    for (i = base; i < nsrc && i < base + 64; i++) w->bits[side ? g->y[i] : g->x[i]] |= 1ull << (i - base);
    if (!side) {
      for (v = 0; v < g->nv; v++)
        for (k = 0; k < g->in[v].n; k++) w->bits[v] |= w->bits[g->tail[g->in[v].e[k]]];
    } else {
      for (v = g->nv; v-- > 0;)
        for (k = 0; k < g->out[v].n; k++) w->bits[v] |= w->bits[g->head[g->out[v].e[k]]];
    }
    for (v = 0; v < g->nv; v++) {
      uint64_t b = w->bits[v];
      for (; b; b &= b - 1) w->cnt[v]++;
    }
  }
}

/* Sums a side's reach counts into the forward (reverse) figures. */
static void reach_sums(const cg_lin *g, int side, const uint32_t *cnt, cg_lin_scale *s) {
  uint32_t v;
  for (v = 0; v < g->nv; v++) {
    if (g->kind[v] != CG_V_INTER) continue;
    if (!side) {
      s->forward_mults += (double)cnt[v] * g->out[v].n;
      s->forward_fill += cnt[v];
    } else {
      s->reverse_mults += (double)cnt[v] * g->in[v].n;
      s->reverse_fill += cnt[v];
    }
  }
}

/* The root of v's set, halving the path on the way. */
static uint32_t root(uint32_t *up, uint32_t v) {
  while (up[v] != v) v = up[v] = up[up[v]];
  return v;
}

/* Components of the intermediates joined by the edges between them (the
 * components the exact search and the subset DP work on): how many, and the
 * largest.  cnt is reused for the sizes. */
static void components(const cg_lin *g, scratch *w, cg_lin_scale *s) {
  uint32_t v, k;
  for (v = 0; v < g->nv; v++) w->up[v] = v, w->cnt[v] = 0;
  for (v = 0; v < g->nv; v++) {
    if (g->kind[v] != CG_V_INTER) continue;
    for (k = 0; k < g->out[v].n; k++) {
      uint32_t h = g->head[g->out[v].e[k]], a, b;
      if (g->kind[h] != CG_V_INTER) continue;
      a = root(w->up, v), b = root(w->up, h);
      if (a != b) w->up[a > b ? a : b] = a > b ? b : a; /* the lower id is the root */
    }
  }
  for (v = 0; v < g->nv; v++) {
    uint32_t r;
    if (g->kind[v] != CG_V_INTER) continue;
    r = root(w->up, v);
    if (r == v) s->components++;
    if (++w->cnt[r] > s->max_component) s->max_component = w->cnt[r];
  }
}

int cg_lin_scale_counts(const cg_lin *g, double work, cg_lin_scale *s, cg_error *e) {
  scratch w;
  int side;
  if (!g || !s) return cg_seterr(e, CG_EUSAGE, "cg_lin_scale_counts: no graph");
  memset(s, 0, sizeof *s);
  memset(&w, 0, sizeof w);
  w.A = g->A, w.nv = g->nv;
  s->edges = g->nedges;
  degrees(g, s);
  w.bits = CG_NEW(w.A, uint64_t, w.nv);
  w.cnt = CG_NEW(w.A, uint32_t, w.nv);
  w.up = CG_NEW(w.A, uint32_t, w.nv);
  if (w.nv && (!w.bits || !w.cnt || !w.up))
    return done(&w, cg_seterr(e, CG_ENOMEM, "cg_lin_scale_counts: out of memory"));
  for (side = 0; side < 2; side++) {
    reach(g, side, &w, work / 2, &s->partial); /* half the work each side */
    reach_sums(g, side, w.cnt, s);
  }
  components(g, &w, s);
  return done(&w, CG_OK);
}
