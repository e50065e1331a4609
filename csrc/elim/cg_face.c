/*
 * cg_face.c: face elimination on the directed line graph (Naumann,
 * "Optimal accumulation of Jacobian matrices by elimination methods on the
 * dual computational graph", Math. Prog. 2004).
 *
 * The line graph L of a linearized graph g has one vertex per edge (i, j) of
 * g carrying its weight, one source vertex per independent x (read (-, x))
 * and one sink vertex per dependent y (read (y, +)).  Its edges, the faces,
 * join (i, j) to (j, k).  A face whose middle j is an intermediate is
 * eliminable: its two weights are multiplied and the product either added
 * into a vertex (i, k) that has exactly the predecessors of (i, j) and the
 * successors of (j, k) (absorption, one addition) or carried by a new such
 * vertex (fill-in); then the face goes, and any edge vertex left without
 * predecessors or successors goes with its faces.  Each step is one
 * multiplication; vertex and edge elimination are face sequences, and some
 * face sequences are cheaper than any of them.  When no eliminable face is
 * left, every edge vertex (i, k) joins an independent to a dependent, and
 * summing the parallel ones gives the Jacobian.
 *
 * Invariants of the line graph below: faces live in a pool with a free list,
 * each face id once in out of its tail vertex and once in in of its head
 * vertex; dead vertices have empty lists; bytail[i] lists the live edge
 * vertices with tail i (for the absorption test).
 */
#include <string.h>

#include "cg_cand.h"
#include "cg_order.h"

#define NONE UINT32_MAX

typedef struct lvert {
  uint32_t t, h;       /* g's tail and head; t = NONE: source, h = NONE: sink */
  double w;
  uint8_t mark, alive;
  cg_adj in, out;      /* face ids */
} lvert;

typedef struct lface {
  uint32_t a, b;       /* line vertices; a = NONE when free */
} lface;

typedef struct frun {
  cg_lin *g;
  const cg_xorder *o;
  const cg_ordering *row[CG_MAX_RULES]; /* each rule's row of the registry (NULL: callback) */
  char mk[CG_MAX_RULES]; /* the row is Markowitz's (CG_ORD_FAST_MARKOWITZ) */
  cg_score_ctx sc;     /* what the rows' score functions read (line: this run) */
  cg_cand C;
  lvert *V;
  size_t nl, capl;
  lface *F;
  size_t nf, capf;
  uint32_t *ffree;
  size_t nffree, capffree;
  cg_adj *bytail;      /* per vertex of g */
  uint32_t *stamp, epoch; /* per line vertex */
  size_t capstamp;
  uint32_t *work, *dirty; /* line vertices to check for death / to rescore */
  size_t nwork, capwork, ndirty, capdirty;
  uint64_t alive_edges;
  int local, err;      /* local: some rule's score depends on neighbours */
  int over;            /* a step stopped at the memory limit (fill_over) */
} frun;

/* {==== small lists ====} */

static int push_u32(cg_alloc *A, uint32_t **arr, size_t *n, size_t *cap, uint32_t v) {
  if (cg_reserve(A, (void **)arr, cap, *n + 1, 4)) return CG_ENOMEM;
  (*arr)[(*n)++] = v;
  return CG_OK;
}

/* {==== the line graph ====} */

/* A new line vertex; its id or NONE. */
static uint32_t new_vertex(frun *R, uint32_t t, uint32_t h, double w, uint8_t mark) {
  lvert *v;
  if (cg_reserve(R->g->A, (void **)&R->V, &R->capl, R->nl + 1, sizeof(lvert))) return NONE;
  if (t != NONE && h != NONE && cg_adj_push(R->g->A, &R->bytail[t], (uint32_t)R->nl)) return NONE;
  v = &R->V[R->nl];
  memset(v, 0, sizeof *v);
  v->t = t, v->h = h, v->w = w, v->mark = mark, v->alive = 1;
  if (t != NONE && h != NONE) R->alive_edges++;
  return (uint32_t)R->nl++;
}

/* A new face a -> b, queued later through the dirty list. */
static int new_face(frun *R, uint32_t a, uint32_t b) {
  cg_alloc *A = R->g->A;
  uint32_t f;
  if (R->nffree) f = R->ffree[--R->nffree];
  else {
    if (cg_reserve(A, (void **)&R->F, &R->capf, R->nf + 1, sizeof(lface)) ||
        cg_reserve(A, (void **)&R->ffree, &R->capffree, R->nf + 1, 4)) /* del_face's room */
      return CG_ENOMEM;
    f = (uint32_t)R->nf++;
  }
  R->F[f].a = R->F[f].b = NONE;
  if (cg_adj_push(A, &R->V[a].out, f)) {
    R->ffree[R->nffree++] = f;
    return CG_ENOMEM;
  }
  if (cg_adj_push(A, &R->V[b].in, f)) {
    R->V[a].out.n--;
    R->ffree[R->nffree++] = f;
    return CG_ENOMEM;
  }
  R->F[f].a = a, R->F[f].b = b;
  if (push_u32(A, &R->dirty, &R->ndirty, &R->capdirty, b) ||
      push_u32(A, &R->dirty, &R->ndirty, &R->capdirty, a))
    return CG_ENOMEM;
  return CG_OK;
}

static void del_face(frun *R, uint32_t f) {
  cg_adj_drop(&R->V[R->F[f].a].out, f);
  cg_adj_drop(&R->V[R->F[f].b].in, f);
  R->F[f].a = R->F[f].b = NONE;
  cg_cand_del(&R->C, f);
  R->ffree[R->nffree++] = f; /* room: the free list is as large as the pool */
}

static int is_edge(const lvert *v) { return v->t != NONE && v->h != NONE; }

/* Removes dead edge vertices (no predecessors or no successors) from the
 * work list, and those their removal kills in turn. */
static int sweep_dead(frun *R) {
  while (R->nwork) {
    uint32_t x = R->work[--R->nwork];
    lvert *v = &R->V[x];
    if (!v->alive || !is_edge(v) || (v->in.n && v->out.n)) continue;
    while (v->in.n || v->out.n) {
      int side = v->in.n ? 0 : 1;
      uint32_t f = side ? v->out.e[v->out.n - 1] : v->in.e[v->in.n - 1];
      uint32_t other = side ? R->F[f].b : R->F[f].a;
      del_face(R, f);
      if (push_u32(R->g->A, &R->work, &R->nwork, &R->capwork, other) ||
          push_u32(R->g->A, &R->dirty, &R->ndirty, &R->capdirty, other))
        return CG_ENOMEM;
    }
    v->alive = 0;
    cg_adj_drop(&R->bytail[v->t], x);
    R->alive_edges--;
  }
  return CG_OK;
}

/* Builds the line graph of g: sources, edge vertices, sinks, all faces. */
static int build(frun *R) {
  cg_lin *g = R->g;
  uint32_t *lv_of = CG_NEW(g->A, uint32_t, g->ne);
  uint32_t *src = CG_NEW(g->A, uint32_t, 2 * (size_t)g->nv), *snk; /* and snk */
  uint32_t v, a, b;
  int rc = CG_ENOMEM;
  if (!lv_of || !src) goto done;
  snk = src + g->nv;
  memset(src, 0xff, (size_t)g->nv * 8);
  for (a = 0; a < g->n; a++)
    if ((src[g->x[a]] = new_vertex(R, NONE, g->x[a], 1, CG_E_PLUS1)) == NONE) goto done;
  for (v = 0; v < g->nv; v++)
    for (a = 0; a < g->out[v].n; a++) {
      uint32_t eid = g->out[v].e[a];
      if ((lv_of[eid] = new_vertex(R, v, g->head[eid], g->w[eid], g->mark[eid])) == NONE) goto done;
    }
  for (a = 0; a < g->m; a++)
    if (snk[g->y[a]] == NONE && (snk[g->y[a]] = new_vertex(R, g->y[a], NONE, 1, CG_E_PLUS1)) == NONE)
      goto done;
  for (v = 0; v < g->nv; v++) {
    uint32_t nin = g->in[v].n + (src[v] != NONE), nout = g->out[v].n + (snk[v] != NONE);
    for (a = 0; a < nin; a++)
      for (b = 0; b < nout; b++) {
        uint32_t la = a < g->in[v].n ? lv_of[g->in[v].e[a]] : src[v];
        uint32_t lb = b < g->out[v].n ? lv_of[g->out[v].e[b]] : snk[v];
        if (R->V[la].t == NONE && R->V[lb].h == NONE) continue; /* x also a dependent */
        if (new_face(R, la, lb)) goto done;
      }
  }
  for (a = 0; a < R->nl; a++)
    if (push_u32(g->A, &R->work, &R->nwork, &R->capwork, a)) goto done;
  rc = sweep_dead(R);
done:
  CG_FREE(g->A, lv_of, uint32_t, g->ne);
  CG_FREE(g->A, src, uint32_t, 2 * (size_t)g->nv);
  return rc;
}

/* {==== absorption ====} */

/* Stamps for every line vertex (new ones zeroed). */
static int ensure_stamp(frun *R) {
  size_t old = R->capstamp;
  if (cg_reserve(R->g->A, (void **)&R->stamp, &R->capstamp, R->nl + 1, 4)) return CG_ENOMEM;
  if (R->capstamp > old) memset(R->stamp + old, 0, (R->capstamp - old) * 4);
  return CG_OK;
}

/* Marks the predecessors of a (stamp = epoch) and returns their count. */
static uint32_t mark_side(frun *R, uint32_t a, int succ) {
  const cg_adj *l = succ ? &R->V[a].out : &R->V[a].in;
  uint32_t k;
  R->epoch++;
  for (k = 0; k < l->n; k++) R->stamp[succ ? R->F[l->e[k]].b : R->F[l->e[k]].a] = R->epoch;
  return l->n;
}

/* Does x have exactly the marked vertices (count n) on that side? */
static int same_side(const frun *R, uint32_t x, int succ, uint32_t n) {
  const cg_adj *l = succ ? &R->V[x].out : &R->V[x].in;
  uint32_t k;
  if (l->n != n) return 0;
  for (k = 0; k < l->n; k++)
    if (R->stamp[succ ? R->F[l->e[k]].b : R->F[l->e[k]].a] != R->epoch) return 0;
  return 1;
}

/* The vertex (i, k) the product of face (a, b) can be added into, or NONE. */
static uint32_t absorber(frun *R, uint32_t a, uint32_t b) {
  uint32_t i = R->V[a].t, k = R->V[b].h, q, np, ns;
  const cg_adj *l = &R->bytail[i];
  for (q = 0; q < l->n; q++) {
    uint32_t x = l->e[q];
    if (R->V[x].h != k || x == a || x == b) continue;
    np = mark_side(R, a, 0);
    if (!same_side(R, x, 0, np)) continue;
    ns = mark_side(R, b, 1);
    if (same_side(R, x, 1, ns)) return x;
  }
  return NONE;
}

/* {==== scores ====} */

/* The line graph as the registry's face scores see it (cg_order.h). */
int cg_face_absorbed(const cg_score_ctx *c, uint32_t a, uint32_t b) {
  return absorber((frun *)c->line, a, b) != NONE; /* absorber's stamps are scratch */
}

/* Rule r's score of face f. */
static double fscore(frun *R, int r, uint32_t f) {
  const cg_xrule *ru = &R->o->rule[r];
  cg_face_at at;
  int err = 0;
  double s;
  at.a = R->F[f].a, at.b = R->F[f].b;
  at.npred = R->V[at.a].in.n, at.nsucc = R->V[at.b].out.n;
  if (R->mk[r]) return (double)at.npred * at.nsucc; /* f_markowitz inline: scored most */
  at.i = R->V[at.a].t, at.j = R->V[at.a].h, at.k = R->V[at.b].h;
  if (R->row[r]) return R->row[r]->face(&R->sc, &at);
  s = ru->fn(ru->ud, at.i, at.j, at.k, 0, &err);
  if (err) R->err = err;
  return s;
}

/* Final tie-break: middle vertex, then tail, then head, highest first
 * (toward reverse mode) unless lowest_first; then the face id. */
static int ftie(const void *ud, uint32_t x, uint32_t y) {
  const frun *R = (const frun *)ud;
  const lface *fx = &R->F[x], *fy = &R->F[y];
  uint32_t kx[3], ky[3];
  int q;
  kx[0] = R->V[fx->a].h, kx[1] = R->V[fx->a].t, kx[2] = R->V[fx->b].h;
  ky[0] = R->V[fy->a].h, ky[1] = R->V[fy->a].t, ky[2] = R->V[fy->b].h;
  for (q = 0; q < 3; q++)
    if (kx[q] != ky[q]) return R->o->lowest_first ? kx[q] < ky[q] : kx[q] > ky[q];
  return x < y;
}

/* Queues or rescores face f (if eliminable). */
static void requeue(frun *R, uint32_t f) {
  double keys[CG_MAX_RULES];
  int r;
  if (R->F[f].a == NONE || !is_edge(&R->V[R->F[f].a]) || !is_edge(&R->V[R->F[f].b])) return;
  for (r = 0; r < R->o->nrules; r++) keys[r] = fscore(R, r, f);
  cg_cand_set(&R->C, f, keys);
}

/* Rescores the faces at the dirty vertices (all faces when local, else
 * only those not queued yet). */
static int flush_dirty(frun *R) {
  size_t q;
  uint32_t k;
  if (cg_cand_reserve(&R->C, R->nf + 1) || ensure_stamp(R)) return CG_ENOMEM;
  for (q = 0; q < R->ndirty; q++) {
    const lvert *v = &R->V[R->dirty[q]];
    if (!is_edge(v)) continue; /* faces at sources and sinks are never eliminable */
    for (k = 0; k < v->in.n; k++)
      if (R->local || R->C.pos[v->in.e[k]] == NONE) requeue(R, v->in.e[k]);
    for (k = 0; k < v->out.n; k++)
      if (R->local || R->C.pos[v->out.e[k]] == NONE) requeue(R, v->out.e[k]);
  }
  R->ndirty = 0;
  return R->err ? CG_ERUNTIME : CG_OK;
}

/* {==== the elimination loop ====} */

/* Bytes of a line vertex and of a face: the arrays, the lists and the
 * candidate entries (a key and a heap place) they come with. */
#define LVERT_BYTES (sizeof(lvert) + 4 + 4)
#define LFACE_BYTES (sizeof(lface) + 2 * 4 + 4 + 8 * CG_MAX_RULES + 8)

/* Would a fill step, one new line vertex and `faces` new faces, take the
 * line graph past the memory limit of g's allocator?  O(1), before the step
 * changes anything: a run then stops at once (R->over). */
static int fill_over(frun *R, uint64_t faces) {
  size_t limit = cg_alloc_limit(R->g->A);
  double bytes = (double)(R->nl + 1) * LVERT_BYTES +
                 (double)(R->nf - R->nffree + faces) * LFACE_BYTES;
  if (!limit || bytes <= (double)limit) return 0;
  cg_budget_stop(R->g->A);
  R->over = 1;
  return 1;
}

/* The rank of edge vertex x among the live vertices of its label (t, h), in
 * the order of bytail[t] (cg_steps: what makes a face step unambiguous). */
static uint32_t label_rank(const frun *R, uint32_t x) {
  const cg_adj *l = &R->bytail[R->V[x].t];
  uint32_t q, r = 0;
  for (q = 0; q < l->n && l->e[q] != x; q++) r += R->V[l->e[q]].h == R->V[x].h;
  return r;
}

/* The live vertex of label (t, h) and rank r, or NONE. */
static uint32_t by_label(const frun *R, uint32_t t, uint32_t h, uint32_t r) {
  const cg_adj *l = &R->bytail[t];
  uint32_t q;
  for (q = 0; q < l->n; q++)
    if (R->V[l->e[q]].h == h && r-- == 0) return l->e[q];
  return NONE;
}

/* Eliminates face f (Naumann 2004): product, absorption or a new
 * vertex, the face goes, dead vertices go. */
static int fstep(frun *R, uint32_t f, cg_cost *c, cg_steps *steps) {
  cg_alloc *A = R->g->A;
  uint32_t a = R->F[f].a, b = R->F[f].b, n, q;
  double p = R->V[a].w * R->V[b].w;
  uint8_t ma = R->V[a].mark, mb = R->V[b].mark;
  uint8_t mp = (ma == CG_E_VAR || mb == CG_E_VAR) ? CG_E_VAR
               : (ma == CG_E_CONST || mb == CG_E_CONST) ? CG_E_CONST
               : ma == mb ? CG_E_PLUS1 : CG_E_MINUS1;
  if (steps && cg_steps_push_face(A, steps, R->V[a].t, R->V[a].h, R->V[b].h, label_rank(R, a),
                                  label_rank(R, b)))
    return CG_ENOMEM;
  if (ensure_stamp(R)) return CG_ENOMEM;
  c->mults++;
  if (ma < CG_E_PLUS1 && mb < CG_E_PLUS1) c->mults_nontrivial++;
  c->steps++;
  n = absorber(R, a, b);
  if (n != NONE) {
    R->V[n].w += p;
    R->V[n].mark = (R->V[n].mark != CG_E_VAR && mp != CG_E_VAR) ? CG_E_CONST : CG_E_VAR;
    c->adds++;
  } else {
    if (fill_over(R, (uint64_t)R->V[a].in.n + R->V[b].out.n)) return CG_ENOMEM;
    if ((n = new_vertex(R, R->V[a].t, R->V[b].h, p, mp)) == NONE) return CG_ENOMEM;
    c->fill++;
    for (q = 0; q < R->V[a].in.n; q++)
      if (new_face(R, R->F[R->V[a].in.e[q]].a, n)) return CG_ENOMEM;
    for (q = 0; q < R->V[b].out.n; q++)
      if (new_face(R, n, R->F[R->V[b].out.e[q]].b)) return CG_ENOMEM;
  }
  if (R->alive_edges > c->peak_edges) c->peak_edges = R->alive_edges;
  del_face(R, f);
  if (push_u32(A, &R->work, &R->nwork, &R->capwork, a) ||
      push_u32(A, &R->work, &R->nwork, &R->capwork, b) ||
      push_u32(A, &R->dirty, &R->ndirty, &R->capdirty, a) ||
      push_u32(A, &R->dirty, &R->ndirty, &R->capdirty, b) || sweep_dead(R))
    return CG_ENOMEM;
  return flush_dirty(R);
}

/* Replaces g's edges by the bipartite graph read off the line graph.  The
 * bipartite graph is built apart and swapped in only when complete, so an
 * allocation failing midway (the memory limit, near its peak here) leaves g
 * as it was, not with part of its Jacobian. */
static int read_off(frun *R, cg_cost *c) {
  cg_lin *g = R->g, *b, old;
  cg_error e;
  uint32_t v;
  size_t x;
  uint64_t adds = 0;
  if (!(b = cg_lin_new(g->A, g->nv, &e))) return CG_ENOMEM;
  if (cg_lin_set_xy(b, g->x, g->n, g->y, g->m, &e)) goto fail;
  b->has_w = g->has_w;
  for (v = 0; v < g->nv; v++) {
    b->node[v] = g->node[v];
    if (b->kind[v] == CG_V_INTER) b->kind[v] = CG_V_GONE; /* every intermediate went */
  }
  for (x = 0; x < R->nl; x++) {
    const lvert *lv = &R->V[x];
    int created;
    if (!lv->alive || !is_edge(lv)) continue;
    if (cg_lin_add(b, lv->t, lv->h, lv->w, lv->mark, &created) == NONE) goto fail;
    adds += !created; /* parallel vertices summed */
  }
  c->adds += adds;
  old = *g, *g = *b, *b = old; /* g takes the new contents; b's block frees the old */
  cg_lin_free(b);
  return CG_OK;
fail:
  cg_lin_free(b);
  return CG_ENOMEM;
}

/* The message of a run that ran out of memory; g is unchanged (the line
 * graph is a copy), unless read_off failed. */
static int frun_nomem(frun *R, cg_error *e) {
  const cg_budget *b = cg_budget_of(R->g->A);
  char lim[32];
  if (!R->over && !(b && b->hit)) return cg_seterr(e, CG_ENOMEM, "out of memory");
  cg_fmt_bytes(lim, sizeof lim, (double)cg_alloc_limit(R->g->A));
  return cg_seterr(e, CG_ENOMEM, "face elimination could make a line graph of %zu vertices, "
                   "over the memory limit of %s (the graph is unchanged)", R->nl + 1, lim);
}

static void frun_free(frun *R) {
  cg_alloc *A = R->g->A;
  size_t x;
  for (x = 0; x < R->nl; x++) {
    cg_free(A, R->V[x].in.e, (size_t)R->V[x].in.cap * 4);
    cg_free(A, R->V[x].out.e, (size_t)R->V[x].out.cap * 4);
  }
  for (x = 0; R->bytail && x < R->g->nv; x++)
    cg_free(A, R->bytail[x].e, (size_t)R->bytail[x].cap * 4);
  CG_FREE(A, R->bytail, cg_adj, R->g->nv);
  cg_free(A, R->V, R->capl * sizeof(lvert));
  cg_free(A, R->F, R->capf * sizeof(lface));
  cg_free(A, R->ffree, R->capffree * 4);
  cg_free(A, R->stamp, R->capstamp * 4);
  cg_free(A, R->work, R->capwork * 4);
  cg_free(A, R->dirty, R->capdirty * 4);
  cg_cand_free(&R->C);
}

static int frun_init(frun *R, cg_lin *g, const cg_xorder *o, cg_error *e) {
  size_t nv = g->nv;
  int r;
  memset(R, 0, sizeof *R);
  R->g = g, R->o = o;
  cg_cand_init(&R->C, g->A, o->nrules, ftie, R);
  if (o->nrules < 1 || o->nrules > CG_MAX_RULES)
    return cg_seterr(e, CG_EUSAGE, "an ordering needs 1 to %d rules", CG_MAX_RULES);
  for (r = 0; r < o->nrules; r++) {
    if (o->rule[r].kind != CG_ORD_CALLBACK &&
        cg_ordering_check(o->rule[r].kind, CG_MODE_FACE, &R->row[r], e))
      return CG_EUSAGE;
    if (!R->row[r] || R->row[r]->radius >= 1) R->local = 1; /* scores read the neighbours */
    R->mk[r] = R->row[r] && (R->row[r]->flags & CG_ORD_FAST_MARKOWITZ);
  }
  R->sc.g = g, R->sc.seed = o->seed, R->sc.line = R;
  R->bytail = CG_NEW(g->A, cg_adj, nv);
  if (!R->bytail) return cg_seterr(e, CG_ENOMEM, "out of memory");
  memset(R->bytail, 0, nv * sizeof(cg_adj));
  if (build(R) || ensure_stamp(R)) return cg_seterr(e, CG_ENOMEM, "out of memory");
  return CG_OK;
}

/* Queues every face, then eliminates until none is left, then reads off. */
static int frun_loop(frun *R, cg_cost *c, cg_steps *steps, cg_error *e) {
  size_t x;
  int rc;
  R->ndirty = 0;
  for (x = 0; x < R->nl; x++)
    if (R->V[x].alive && push_u32(R->g->A, &R->dirty, &R->ndirty, &R->capdirty, (uint32_t)x))
      return cg_seterr(e, CG_ENOMEM, "out of memory");
  if ((rc = flush_dirty(R)) != 0) goto fail;
  for (x = 0; R->C.nheap; x++) { /* total unknown: a step can make faces */
    if ((x & CG_PROGRESS_MASK) == 0 && x) cg_progress_at(R->g->A, "eliminating faces", x, 0);
    if ((rc = fstep(R, cg_cand_pop(&R->C), c, steps)) != 0) goto fail;
  }
  cg_progress_end(R->g->A, "eliminating faces", x);
  if (read_off(R, c)) return cg_seterr(e, CG_ENOMEM, "out of memory");
  return CG_OK;
fail:
  if (rc == CG_ERUNTIME) return cg_seterr(e, CG_ERUNTIME, "the ordering's score function failed");
  return frun_nomem(R, e);
}

int cg_lin_eliminate_faces(cg_lin *g, const cg_xorder *o, cg_cost *c, cg_steps *steps,
                           cg_error *e) {
  frun R;
  cg_cost dummy;
  int rc = frun_init(&R, g, o, e);
  if (!c) c = &dummy;
  if (!rc) rc = frun_loop(&R, c, steps, e);
  frun_free(&R);
  return rc;
}

/* The face from the vertex of label (i, j) and rank ra to the vertex of
 * label (j, k) and rank rb, or NONE. */
static uint32_t find_face(const frun *R, uint32_t i, uint32_t j, uint32_t k, uint32_t ra,
                          uint32_t rb) {
  uint32_t a, b, q;
  if (i >= R->g->nv || j >= R->g->nv || k >= R->g->nv) return NONE;
  a = by_label(R, i, j, ra), b = by_label(R, j, k, rb);
  if (a == NONE || b == NONE) return NONE;
  for (q = 0; q < R->V[a].out.n; q++)
    if (R->F[R->V[a].out.e[q]].b == b) return R->V[a].out.e[q];
  return NONE;
}

int cg_lin_replay_faces(cg_lin *g, const cg_steps *seq, cg_cost *c, cg_error *e) {
  frun R;
  cg_xorder o;
  cg_cost dummy;
  size_t s;
  int rc;
  memset(&o, 0, sizeof o);
  o.nrules = 1, o.rule[0].kind = CG_ORD_FORWARD, o.lowest_first = 1;
  if (!c) c = &dummy;
  rc = frun_init(&R, g, &o, e);
  for (s = 0; !rc && s < seq->n; s++) {
    const uint32_t *p = seq->a + CG_STEP_WIDTH * s;
    uint32_t i = p[0], j = p[1], k = p[2];
    uint32_t f = find_face(&R, i, j, k, p[3], p[4]);
    if (f == NONE) {
      rc = cg_seterr(e, CG_EUSAGE, "step %zu: no face (%u, %u) -> (%u, %u)", s + 1, i + 1,
                     j + 1, j + 1, k + 1);
      break;
    }
    R.ndirty = 0;
    if (fstep(&R, f, c, NULL)) rc = frun_nomem(&R, e);
  }
  if (!rc) rc = frun_loop(&R, c, NULL, e);
  frun_free(&R);
  return rc;
}
