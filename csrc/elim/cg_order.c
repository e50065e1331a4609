/*
 * cg_order.c: the registry of built-in elimination orderings (cg_order.h)
 * and their score functions.
 *
 * Vertex rules after Hovland, Norris, Utke & Strout, sec. 1 and ANGEL
 * (lowest fill-in, lmmd, momr); edge rules score the multiplications and
 * fill of one front or back step; face rules after Naumann 2004.  Every
 * score is a function of the graph as it is and of the candidate alone, so
 * the loops may keep scores until a step changes the graph within the row's
 * radius.
 */
#include <string.h>

#include "cg_order.h"

#define NONE UINT32_MAX

/* {==== helpers ====} */

/* splitmix64's finalizer: a fixed pseudo-random key of 53 bits. */
static double mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (double)((z ^ (z >> 31)) >> 11);
}

static double markowitz_of(const cg_lin *g, uint32_t v) {
  return (double)((uint64_t)g->in[v].n * g->out[v].n);
}

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

/* Edges a step would create: front (i, j): (i, k) for k in out(j) absent;
 * back (j, k): (i, k) for i in in(j) absent. */
static double edge_fill(const cg_lin *g, uint32_t i, uint32_t k, int back) {
  uint32_t j = back ? i : k, a;
  const cg_adj *l = back ? &g->in[j] : &g->out[j];
  double f = 0;
  for (a = 0; a < l->n; a++) {
    uint32_t o = l->e[a];
    if (back ? cg_lin_find(g, g->tail[o], k) == NONE : cg_lin_find(g, i, g->head[o]) == NONE)
      f++;
  }
  return f;
}

/* {==== vertex scores ====} */

static double v_forward(const cg_score_ctx *c, uint32_t v) {
  (void)c;
  return v;
}

static double v_reverse(const cg_score_ctx *c, uint32_t v) {
  (void)c;
  return -(double)v;
}

static double v_markowitz(const cg_score_ctx *c, uint32_t v) { return markowitz_of(c->g, v); }

static double v_rel_markowitz(const cg_score_ctx *c, uint32_t v) {
  return markowitz_of(c->g, v) - (double)c->xcnt[v] * c->ycnt[v];
}

static double v_min_fill(const cg_score_ctx *c, uint32_t v) { return (double)fill_of(c->g, v); }

static double v_lmmd(const cg_score_ctx *c, uint32_t v) {
  return markowitz_of(c->g, v) + enlargement(c->g, v);
}

static double v_momr(const cg_score_ctx *c, uint32_t v) {
  return -(markowitz_of(c->g, v) - enlargement(c->g, v)); /* largest reduction first */
}

static double v_random(const cg_score_ctx *c, uint32_t v) {
  return mix(c->seed + 0x9e3779b97f4a7c15ull * (v + 1ull));
}

/* {==== edge scores ====} */

static double e_forward(const cg_score_ctx *c, uint32_t i, uint32_t k, int back) {
  (void)c;
  return 2.0 * (back ? i : k) + back; /* front first, lowest middle vertex: forward mode */
}

static double e_reverse(const cg_score_ctx *c, uint32_t i, uint32_t k, int back) {
  return -e_forward(c, i, k, back);
}

/* The multiplications of the step: |out(j)| front, |in(j)| back. */
static double e_markowitz(const cg_score_ctx *c, uint32_t i, uint32_t k, int back) {
  return back ? c->g->in[i].n : c->g->out[k].n;
}

static double e_rel_markowitz(const cg_score_ctx *c, uint32_t i, uint32_t k, int back) {
  return back ? (double)c->g->in[i].n - c->xcnt[i] : (double)c->g->out[k].n - c->ycnt[k];
}

static double e_min_fill(const cg_score_ctx *c, uint32_t i, uint32_t k, int back) {
  return edge_fill(c->g, i, k, back);
}

static double e_random(const cg_score_ctx *c, uint32_t i, uint32_t k, int back) {
  uint64_t key = (((uint64_t)i << 32) ^ k) * 31 + (uint32_t)back + 1;
  return mix(c->seed + 0x9e3779b97f4a7c15ull * key);
}

/* {==== face scores ====} */

static double f_forward(const cg_score_ctx *c, const cg_face_at *f) {
  (void)c;
  return f->j;
}

static double f_reverse(const cg_score_ctx *c, const cg_face_at *f) {
  (void)c;
  return -(double)f->j;
}

/* The faces the new vertex would carry: |pred(i, j)| * |succ(j, k)|. */
static double f_markowitz(const cg_score_ctx *c, const cg_face_at *f) {
  (void)c;
  return (double)f->npred * f->nsucc;
}

static double f_min_fill(const cg_score_ctx *c, const cg_face_at *f) {
  return !cg_face_absorbed(c, f->a, f->b);
}

static double f_random(const cg_score_ctx *c, const cg_face_at *f) {
  uint64_t key = (((uint64_t)f->i << 21) ^ f->j) * 1000003ull + f->k + 1;
  return mix(c->seed + 0x9e3779b97f4a7c15ull * key);
}

/* {==== the table ====} */

#ifdef CG_EXTRA_ORDERINGS
#include CG_EXTRA_ORDERINGS /* score functions and CG_EXTRA_ROWS (cg_order.h) */
#endif

/* One row per rule, in the order --list-orderings shows them; a built-in
 * row sits at the index its CG_ORD_* name gives. */
static const cg_ordering rows[] = {
    [CG_ORD_FORWARD] = {"forward", v_forward, e_forward, f_forward, 0, 0, 0,
                        "the lowest vertex id (forward mode)"},
    [CG_ORD_REVERSE] = {"reverse", v_reverse, e_reverse, f_reverse, 0, 0, 0,
                        "the highest vertex id (reverse mode)"},
    [CG_ORD_MARKOWITZ] = {"markowitz", v_markowitz, e_markowitz, f_markowitz, 1, 0,
                          CG_ORD_SMALL_INT | CG_ORD_FAST_MARKOWITZ,
                          "the lowest Markowitz degree (in-degree x out-degree)"},
    [CG_ORD_REL_MARKOWITZ] = {"relative-markowitz", v_rel_markowitz, e_rel_markowitz, NULL, 1,
                              CG_NEED_REACH, 0,
                              "the lowest Markowitz degree less (independents reaching v) x "
                              "(dependents v reaches)"},
    [CG_ORD_MIN_FILL] = {"min-fill", v_min_fill, e_min_fill, f_min_fill, 2, 0, CG_ORD_SMALL_INT,
                         "the fewest new edges"},
    [CG_ORD_LMMD] = {"lmmd", v_lmmd, NULL, NULL, 2, 0, 0,
                     "Markowitz degree plus how much it enlarges the neighbours' (ANGEL)"},
    [CG_ORD_MOMR] = {"momr", v_momr, NULL, NULL, 2, 0, 0,
                     "the largest reduction of the total Markowitz degree (ANGEL)"},
    [CG_ORD_RANDOM] = {"random", v_random, e_random, f_random, 0, CG_NEED_SEED, 0,
                       "a fixed pseudo-random key per candidate (--seed)"},
#ifdef CG_EXTRA_ROWS
    CG_EXTRA_ROWS
#endif
};

#define NROWS ((int)(sizeof rows / sizeof rows[0]))

int cg_orderings_count(void) { return NROWS; }

const cg_ordering *cg_ordering_at(int i) { return i >= 0 && i < NROWS ? &rows[i] : NULL; }

unsigned cg_ordering_modes(const cg_ordering *o) {
  return (o->vertex ? CG_MODE_VERTEX : 0u) | (o->edge ? CG_MODE_EDGE : 0u) |
         (o->face ? CG_MODE_FACE : 0u);
}

const char *cg_mode_name(unsigned mode) {
  return mode == CG_MODE_VERTEX ? "vertex" : mode == CG_MODE_EDGE ? "edge" : "face";
}

int cg_ordering_find(const char *name, size_t len, unsigned modes) {
  int i;
  for (i = 0; i < NROWS; i++)
    if (strlen(rows[i].name) == len && memcmp(rows[i].name, name, len) == 0 &&
        (cg_ordering_modes(&rows[i]) & modes) == modes)
      return i;
  return -1;
}

int cg_ordering_check(int kind, unsigned mode, const cg_ordering **row, cg_error *e) {
  const cg_ordering *o = cg_ordering_at(kind);
  *row = o;
  if (!o) return cg_seterr(e, CG_EUSAGE, "no ordering rule %d (of %d)", kind, NROWS);
  if (!(cg_ordering_modes(o) & mode))
    return cg_seterr(e, CG_EUSAGE, "%s is not defined for %s elimination", o->name,
                     cg_mode_name(mode));
  return CG_OK;
}
