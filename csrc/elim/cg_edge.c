/*
 * cg_edge.c: edge elimination (front and back) under scriptable orderings.
 *
 * Front-eliminating (i, j) folds it into j's out-edges: w(i, k) += w(i, j) *
 * w(j, k) for every out-edge (j, k), |out(j)| multiplications; back-
 * eliminating (j, k) folds it into j's in-edges, |in(j)| multiplications
 * (Hovland, Norris, Utke & Strout, sec. 1; ANGEL's eliminations.cpp counts the same).  Vertex
 * elimination of j is the front elimination of all its in-edges, so edge
 * orders include every vertex order.
 *
 * Candidates are (edge, side) pairs, id 2 * eid + back, kept in a cg_cand
 * heap.  A step changes degrees and neighbour sets only at the vertices it
 * touches (i, j and j's other neighbours), so only the candidates on edges
 * incident to those vertices are rescored, before and after the step.
 */
#include <string.h>

#include "cg_cand.h"
#include "cg_order.h"

#define NONE UINT32_MAX

void cg_steps_free(cg_alloc *A, cg_steps *s) {
  cg_free(A, s->a, s->cap * 4);
  memset(s, 0, sizeof *s);
}

int cg_steps_push_face(cg_alloc *A, cg_steps *s, uint32_t i, uint32_t j, uint32_t k,
                       uint32_t ra, uint32_t rb) {
  uint32_t *p;
  if (cg_reserve(A, (void **)&s->a, &s->cap, CG_STEP_WIDTH * (s->n + 1), 4)) return CG_ENOMEM;
  p = s->a + CG_STEP_WIDTH * s->n++;
  p[0] = i, p[1] = j, p[2] = k, p[3] = ra, p[4] = rb;
  return CG_OK;
}

int cg_steps_push(cg_alloc *A, cg_steps *s, uint32_t a, uint32_t b, uint32_t c) {
  return cg_steps_push_face(A, s, a, b, c, 0, 0);
}

typedef struct erun {
  cg_lin *g;
  const cg_xorder *o;
  const cg_ordering *row[CG_MAX_RULES]; /* each rule's row of the registry (NULL: callback) */
  cg_score_ctx sc;         /* what the rows' score functions read */
  cg_cand C;
  uint32_t *xcnt, *ycnt;   /* independents reaching v, dependents v reaches */
  uint32_t *stamp, epoch;  /* per edge id: collected in this step */
  size_t capstamp;
  uint32_t *buf;           /* edge ids to rescore */
  size_t nbuf, capbuf;
  int err, wide;       /* wide: a rule reads neighbour sets */
} erun;

/* {==== scores ====} */

/* Rule r's score of candidate (eid, back). */
static double escore(erun *R, int r, uint32_t eid, int back) {
  const cg_xrule *ru = &R->o->rule[r];
  uint32_t i = R->g->tail[eid], k = R->g->head[eid];
  int err = 0;
  double s;
  if (R->row[r]) return R->row[r]->edge(&R->sc, i, k, back);
  s = ru->fn(ru->ud, i, k, CG_NOV, back, &err);
  if (err) R->err = err;
  return s;
}

/* Final tie-break, toward reverse mode by default (ANGEL): the higher
 * intermediate end first, front before back, then the higher other end. */
static int etie(const void *ud, uint32_t a, uint32_t b) {
  const erun *R = (const erun *)ud;
  const cg_lin *g = R->g;
  uint32_t ea = a >> 1, eb = b >> 1, ba = a & 1, bb = b & 1;
  uint32_t ja = ba ? g->tail[ea] : g->head[ea], jb = bb ? g->tail[eb] : g->head[eb];
  uint32_t oa = ba ? g->head[ea] : g->tail[ea], ob = bb ? g->head[eb] : g->tail[eb];
  int low = R->o->lowest_first;
  if (ja != jb) return low ? ja < jb : ja > jb;
  if (ba != bb) return ba < bb;
  if (oa != ob) return low ? oa < ob : oa > ob;
  return a < b;
}

/* {==== candidates ====} */

/* Is (eid, back) an allowed elimination now? */
static int eligible(const erun *R, uint32_t eid, int back) {
  const cg_lin *g = R->g;
  int sides = R->o->sides ? R->o->sides : 3;
  if (eid >= g->ne || g->tail[eid] == NONE) return 0;
  if (!(sides & (back ? 2 : 1))) return 0;
  return g->kind[back ? g->tail[eid] : g->head[eid]] == CG_V_INTER;
}

/* Queues, requeues or unqueues both candidates of edge id eid. */
static void refresh(erun *R, uint32_t eid) {
  double keys[CG_MAX_RULES];
  int back, r;
  for (back = 0; back < 2; back++) {
    uint32_t id = 2 * eid + (uint32_t)back;
    if (!eligible(R, eid, back)) {
      cg_cand_del(&R->C, id);
      continue;
    }
    for (r = 0; r < R->o->nrules; r++) keys[r] = escore(R, r, eid, back);
    cg_cand_set(&R->C, id, keys);
  }
}

/* Adds the edges of vertex v (both lists) to the rescoring buffer once. */
static int collect_vertex(erun *R, uint32_t v) {
  const cg_lin *g = R->g;
  int side;
  uint32_t a;
  for (side = 0; side < 2; side++) {
    const cg_adj *l = side ? &g->out[v] : &g->in[v];
    for (a = 0; a < l->n; a++) {
      uint32_t eid = l->e[a];
      if (R->stamp[eid] == R->epoch) continue;
      R->stamp[eid] = R->epoch;
      if (cg_reserve(g->A, (void **)&R->buf, &R->capbuf, R->nbuf + 1, 4)) return CG_ENOMEM;
      R->buf[R->nbuf++] = eid;
    }
  }
  return CG_OK;
}

/* The vertices a step on (eid, back) touches: both ends and the middle
 * vertex's neighbours on the far side.  Their ids go to *vs. */
static int touched(erun *R, uint32_t eid, int back, uint32_t **vs, size_t *nvs, size_t *cap) {
  const cg_lin *g = R->g;
  uint32_t i = g->tail[eid], k = g->head[eid], j = back ? i : k, a;
  const cg_adj *l = back ? &g->in[j] : &g->out[j];
  *nvs = 0;
  if (cg_reserve(g->A, (void **)vs, cap, (size_t)l->n + 2, 4)) return CG_ENOMEM;
  (*vs)[(*nvs)++] = i;
  (*vs)[(*nvs)++] = k;
  for (a = 0; a < l->n; a++) (*vs)[(*nvs)++] = back ? g->tail[l->e[a]] : g->head[l->e[a]];
  return CG_OK;
}

/* Adds the edges of one list (in or out of v) to the buffer once. */
static int collect_list(erun *R, uint32_t v, int out) {
  const cg_adj *l = out ? &R->g->out[v] : &R->g->in[v];
  uint32_t a;
  for (a = 0; a < l->n; a++) {
    uint32_t eid = l->e[a];
    if (R->stamp[eid] == R->epoch) continue;
    R->stamp[eid] = R->epoch;
    if (cg_reserve(R->g->A, (void **)&R->buf, &R->capbuf, R->nbuf + 1, 4)) return CG_ENOMEM;
    R->buf[R->nbuf++] = eid;
  }
  return CG_OK;
}

/* Adds edge eid to the buffer once. */
static int collect_edge(erun *R, uint32_t eid) {
  if (eid == NONE || R->stamp[eid] == R->epoch) return CG_OK;
  R->stamp[eid] = R->epoch;
  if (cg_reserve(R->g->A, (void **)&R->buf, &R->capbuf, R->nbuf + 1, 4)) return CG_ENOMEM;
  R->buf[R->nbuf++] = eid;
  return CG_OK;
}

/* Collects the edges whose scores a step may change (stamps sized to the
 * pool).  Degree rules: a front step (i, j) changes |out(i)| (rescores the
 * in-edges of i), |in(j)| and |in(k)| for k in out(j) (their out-edges), and
 * creates edges (i, k); a back step (j, k) mirrors it.  So hub vertices (a
 * dependent everything flows into) are never scanned whole.  Rules reading
 * neighbour sets (min-fill, Lua scores) take both lists of every touched
 * vertex.  after: the step is done; add the created edges. */
static int collect_all(erun *R, uint32_t eid, const uint32_t *vs, size_t nvs, int back, int after) {
  size_t a, old = R->capstamp;
  int rc = CG_OK;
  if (cg_reserve(R->g->A, (void **)&R->stamp, &R->capstamp, R->g->ecap + 1, 4))
    return CG_ENOMEM;
  if (R->capstamp > old) memset(R->stamp + old, 0, (R->capstamp - old) * 4);
  if (!after && collect_edge(R, eid)) return CG_ENOMEM;
  for (a = 0; a < nvs && !rc; a++) {
    if (R->wide) rc = collect_vertex(R, vs[a]);
    else if (a == 0) rc = collect_list(R, vs[0], 0);       /* in-edges of the tail */
    else if (a == 1) rc = collect_list(R, vs[1], 1);       /* out-edges of the head */
    else rc = collect_list(R, vs[a], !back);
    if (!rc && after && a >= 2)
      rc = collect_edge(R, back ? cg_lin_find(R->g, vs[a], vs[1]) : cg_lin_find(R->g, vs[0], vs[a]));
  }
  return rc;
}

/* {==== relative Markowitz counts ====} */

/* xcnt / ycnt by bit sets of 64 sources at a time, O(E * (n + m) / 64). */
static int reach_counts(erun *R) {
  cg_lin *g = R->g;
  size_t nv = g->nv;
  uint64_t *bits = CG_NEW(g->A, uint64_t, nv);
  uint32_t base, v, k, i;
  int side;
  if (!bits) return CG_ENOMEM;
  for (side = 0; side < 2; side++) {
    uint32_t nsrc = side ? g->m : g->n, *cnt = side ? R->ycnt : R->xcnt;
    memset(cnt, 0, nv * 4);
    for (base = 0; base < nsrc; base += 64) {
      memset(bits, 0, nv * 8);
      for (i = base; i < nsrc && i < base + 64; i++) bits[side ? g->y[i] : g->x[i]] |= 1ull << (i - base);
      for (v = 0; v < g->nv; v++) {
        uint32_t u = side ? g->nv - 1 - v : v;
        const cg_adj *l = side ? &g->out[u] : &g->in[u];
        for (k = 0; k < l->n; k++) bits[u] |= bits[side ? g->head[l->e[k]] : g->tail[l->e[k]]];
      }
      for (v = 0; v < g->nv; v++) {
        uint64_t b = bits[v];
        for (; b; b &= b - 1) cnt[v]++;
      }
    }
  }
  CG_FREE(g->A, bits, uint64_t, nv);
  return CG_OK;
}

/* {==== the elimination loop ====} */

static void erun_free(erun *R) {
  size_t nv = R->g->nv;
  cg_cand_free(&R->C);
  CG_FREE(R->g->A, R->xcnt, uint32_t, nv);
  CG_FREE(R->g->A, R->ycnt, uint32_t, nv);
  cg_free(R->g->A, R->stamp, R->capstamp * 4);
  cg_free(R->g->A, R->buf, R->capbuf * 4);
}

static int erun_init(erun *R, cg_lin *g, const cg_xorder *o, cg_error *e) {
  size_t nv = g->nv;
  uint32_t v, a;
  int r, reach = 0;
  memset(R, 0, sizeof *R);
  R->g = g, R->o = o;
  cg_cand_init(&R->C, g->A, o->nrules, etie, R);
  if (o->nrules < 1 || o->nrules > CG_MAX_RULES)
    return cg_seterr(e, CG_EUSAGE, "an ordering needs 1 to %d rules", CG_MAX_RULES);
  for (r = 0; r < o->nrules; r++)
    if (o->rule[r].kind != CG_ORD_CALLBACK &&
        cg_ordering_check(o->rule[r].kind, CG_MODE_EDGE, &R->row[r], e))
      return CG_EUSAGE;
  R->xcnt = CG_NEW(g->A, uint32_t, nv);
  R->ycnt = CG_NEW(g->A, uint32_t, nv);
  if (!R->xcnt || !R->ycnt || cg_cand_reserve(&R->C, 2 * (size_t)g->ecap + 2))
    return cg_seterr(e, CG_ENOMEM, "out of memory");
  R->sc.g = g, R->sc.seed = o->seed, R->sc.xcnt = R->xcnt, R->sc.ycnt = R->ycnt;
  for (r = 0; r < o->nrules; r++) {
    if (!R->row[r] || R->row[r]->radius >= 2) R->wide = 1; /* scores read neighbour sets */
    if (R->row[r] && (R->row[r]->needs & CG_NEED_REACH)) reach = 1;
  }
  if (reach && reach_counts(R)) return cg_seterr(e, CG_ENOMEM, "out of memory");
  for (v = 0; v < g->nv; v++)
    for (a = 0; a < g->out[v].n; a++) refresh(R, g->out[v].e[a]);
  return R->err ? cg_seterr(e, CG_ERUNTIME, "the ordering's score function failed") : CG_OK;
}

/* One step: eliminates candidate id and rescores around it. */
static int estep(erun *R, uint32_t id, cg_cost *c, cg_steps *steps, uint32_t **vs,
                 size_t *capvs, cg_error *e) {
  cg_lin *g = R->g;
  uint32_t eid = id >> 1, i = g->tail[eid], k = g->head[eid];
  int back = (int)(id & 1), rc;
  size_t nvs, a;
  R->epoch++;
  R->nbuf = 0;
  if (touched(R, eid, back, vs, &nvs, capvs) || collect_all(R, eid, *vs, nvs, back, 0))
    return cg_seterr(e, CG_ENOMEM, "out of memory");
  if (steps && cg_steps_push(g->A, steps, i, k, (uint32_t)back))
    return cg_seterr(e, CG_ENOMEM, "out of memory");
  rc = back ? cg_lin_elim_back(g, eid, c, e) : cg_lin_elim_front(g, eid, c, e);
  if (rc) return rc;
  if (cg_cand_reserve(&R->C, 2 * (size_t)g->ecap + 2) ||
      collect_all(R, eid, *vs, nvs, back, 1))
    return cg_seterr(e, CG_ENOMEM, "out of memory");
  for (a = 0; a < R->nbuf; a++) refresh(R, R->buf[a]);
  return R->err ? cg_seterr(e, CG_ERUNTIME, "the ordering's score function failed") : CG_OK;
}

int cg_lin_eliminate_edges(cg_lin *g, const cg_xorder *o, cg_cost *c, cg_steps *steps,
                           cg_error *e) {
  erun R;
  uint32_t *vs = NULL;
  size_t capvs = 0;
  uint64_t k;
  int rc = erun_init(&R, g, o, e);
  for (k = 0; !rc && R.C.nheap; k++) { /* total unknown: a step can make edges */
    if ((k & CG_PROGRESS_MASK) == 0 && k) cg_progress_at(g->A, "eliminating edges", k, 0);
    rc = estep(&R, cg_cand_pop(&R.C), c, steps, &vs, &capvs, e);
  }
  if (!rc) cg_progress_end(g->A, "eliminating edges", k);
  if (!rc) { /* left: intermediates without in-edges (front only) or isolated */
    uint32_t v;
    for (v = 0; v < g->nv && !rc; v++)
      if (g->kind[v] == CG_V_INTER) rc = cg_lin_elim_vertex(g, v, c, e);
  }
  cg_free(g->A, vs, capvs * 4);
  erun_free(&R);
  return rc;
}
