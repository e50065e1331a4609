/* test_elim.c: vertex, edge and face elimination on generated graphs
 * (Hovland, Norris, Utke & Strout, sec. 1), against independent computations:
 *  - the order of cg_lin_eliminate (heap and small-key bit set) equals a
 *    naive selection that rescans every intermediate each step (Markowitz,
 *    min-fill, relative Markowitz, chains; ties to the highest or lowest id),
 *    with the same operation counts;
 *  - every step keeps the invariants of cg_lin.h (cg_lin_check: lists, edge
 *    places, uniqueness), also under heavy fill that moves lists to larger
 *    blocks and grows the slab;
 *  - the Jacobians read off equal the forward sweep of the original graph;
 *  - a copy eliminates to the same order and bits;
 *  - a step refused for memory leaves the graph as it was (vertex, front and
 *    back steps, small and large ones).
 * Prints "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elim/cg_lin.h"
#include "check.h"
#include "lingen.h"

/* Edges (u, k) eliminating v would create, by cg_lin_find. */
static uint64_t naive_fill(const cg_lin *g, uint32_t v) {
  uint64_t f = 0;
  uint32_t a, b;
  for (a = 0; a < g->in[v].n; a++)
    for (b = 0; b < g->out[v].n; b++)
      f += cg_lin_find(g, g->tail[g->in[v].e[a]], g->head[g->out[v].e[b]]) == UINT32_MAX;
  return f;
}

/* Independents reaching v times dependents v reaches, by depth-first search. */
static double naive_reach(const cg_lin *g, uint32_t v, int down, uint8_t *seen) {
  uint32_t *stack = (uint32_t *)malloc((size_t)g->nv * 4), n = 0, k, u;
  double cnt = 0;
  memset(seen, 0, g->nv);
  stack[n++] = v, seen[v] = 1;
  while (n) {
    u = stack[--n];
    if (down ? g->kind[u] == CG_V_DEP : g->kind[u] == CG_V_INDEP) cnt++;
    if (down)
      for (k = 0; k < g->out[u].n; k++) {
        uint32_t h = g->head[g->out[u].e[k]];
        if (!seen[h]) seen[h] = 1, stack[n++] = h;
      }
    else
      for (k = 0; k < g->in[u].n; k++) {
        uint32_t t = g->tail[g->in[u].e[k]];
        if (!seen[t]) seen[t] = 1, stack[n++] = t;
      }
  }
  free(stack);
  return cnt;
}

/* The score of v under rule kind, computed from scratch. */
static double naive_score(const cg_lin *g, int kind, uint32_t v, const double *relc) {
  double mk = (double)g->in[v].n * g->out[v].n;
  switch (kind) {
    case CG_ORD_MARKOWITZ: return mk;
    case CG_ORD_MIN_FILL: return (double)naive_fill(g, v);
    case CG_ORD_REL_MARKOWITZ: return mk - relc[v];
    case CG_ORD_FORWARD: return v;
    default: return -(double)v;
  }
}

/* Eliminates every intermediate, choosing each step by a scan of all of
 * them (rules in order, then the id); checks the invariants after every
 * step.  order receives the sequence.  Returns the steps or -1. */
static long naive_eliminate(cg_lin *g, const cg_order *o, cg_cost *c, uint32_t *order) {
  cg_error e;
  uint8_t *seen = (uint8_t *)malloc(g->nv ? g->nv : 1);
  double *relc = (double *)malloc((size_t)(g->nv ? g->nv : 1) * sizeof(double));
  long steps = 0;
  uint32_t v;
  for (v = 0; v < g->nv; v++) /* reach counts of the original graph, as the rule keeps them */
    relc[v] = naive_reach(g, v, 0, seen) * naive_reach(g, v, 1, seen);
  for (;;) {
    uint32_t best = UINT32_MAX;
    double bk[CG_MAX_RULES];
    int r;
    for (v = 0; v < g->nv; v++) {
      double k[CG_MAX_RULES];
      int better = best == UINT32_MAX, decided = better;
      if (g->kind[v] != CG_V_INTER) continue;
      for (r = 0; r < o->nrules; r++) {
        k[r] = naive_score(g, o->rule[r].kind, v, relc);
        if (!decided && k[r] != bk[r]) better = k[r] < bk[r], decided = 1;
      }
      if (!decided) better = o->lowest_first ? v < best : v > best;
      if (better) {
        best = v;
        memcpy(bk, k, sizeof k);
      }
    }
    if (best == UINT32_MAX) break;
    if (cg_lin_elim_vertex(g, best, c, &e) != CG_OK || cg_lin_check(g, &e) != CG_OK) {
      fprintf(stderr, "test_elim: step %ld: %s\n", steps, e.msg);
      steps = -1;
      break;
    }
    order[steps++] = best;
  }
  free(seen);
  free(relc);
  return steps;
}

/* a and b (both sorted by row, col) hold the same entries: bitwise when
 * exact, else within 1e-10 relative, explicit zeros of a aside. */
static int same_jac(const cg_jac *a, const cg_jac *b, int exact) {
  uint64_t i = 0, j = 0;
  for (; i < a->nnz; i++) {
    if (j < b->nnz && a->row[i] == b->row[j] && a->col[i] == b->col[j]) {
      double x = a->val[i], y = b->val[j++];
      if (exact ? memcmp(&x, &y, sizeof x) != 0 : fabs(x - y) > 1e-10 * (1 + fabs(y))) return 0;
    } else if (exact || a->val[i] != 0) {
      return 0;
    }
    if (i && (a->row[i] < a->row[i - 1] || (a->row[i] == a->row[i - 1] && a->col[i] <= a->col[i - 1])))
      return 0; /* sorted, no duplicates */
  }
  return j == b->nnz;
}

static int same_cost(const cg_cost *a, const cg_cost *b) {
  return a->mults == b->mults && a->mults_nontrivial == b->mults_nontrivial &&
         a->adds == b->adds && a->fill == b->fill && a->steps == b->steps &&
         a->peak_edges == b->peak_edges;
}

/* One ordering on one graph: the built-in run against the naive one (when
 * exact), the Jacobians of both against the forward sweep. */
static void check_order(const cg_lin *g0, const cg_order *o, int exact) {
  cg_error e;
  cg_lin *a = cg_lin_copy(g0, &e), *b = cg_lin_copy(g0, &e);
  cg_cost ca, cb;
  cg_jac Jf, Ja, Jb;
  uint32_t *oa = (uint32_t *)malloc((size_t)g0->nv * 4), *ob = (uint32_t *)malloc((size_t)g0->nv * 4);
  uint32_t na = 0;
  long nb;
  memset(&ca, 0, sizeof ca), memset(&cb, 0, sizeof cb);
  CHECK(a && b && cg_lin_check(a, &e) == CG_OK);
  if (!a || !b) return;
  CHECK(cg_lin_eliminate(a, o, &ca, oa, &na, &e) == CG_OK);
  CHECK(cg_lin_check(a, &e) == CG_OK);
  nb = naive_eliminate(b, o, &cb, ob);
  if (exact) { /* min-fill: see test_orders */
    CHECK(nb == (long)na && memcmp(oa, ob, (size_t)na * 4) == 0);
    CHECK(same_cost(&ca, &cb));
  }
  CHECK(cg_lin_jac_forward(g0, &Jf, &e) == CG_OK);
  CHECK(cg_lin_jac_bipartite(a, &Ja, &e) == CG_OK);
  CHECK(cg_lin_jac_bipartite(b, &Jb, &e) == CG_OK);
  CHECK(same_jac(&Ja, &Jf, 0));
  CHECK(same_jac(&Jb, &Jf, 0));
  if (exact) CHECK(same_jac(&Ja, &Jb, 1)); /* same order, same sums: same bits */
  cg_lin_free(b);
  if ((b = cg_lin_copy(g0, &e)) != NULL) { /* again, on a copy: the same bits */
    uint32_t n2 = 0;
    CHECK(cg_lin_eliminate(b, o, NULL, ob, &n2, &e) == CG_OK);
    CHECK(n2 == na && memcmp(oa, ob, (size_t)na * 4) == 0);
    cg_jac_free(NULL, &Jb);
    CHECK(cg_lin_jac_bipartite(b, &Jb, &e) == CG_OK && same_jac(&Ja, &Jb, 1));
  }
  cg_jac_free(NULL, &Jf), cg_jac_free(NULL, &Ja), cg_jac_free(NULL, &Jb);
  cg_lin_free(a), cg_lin_free(b);
  free(oa), free(ob);
}

static void set_order(cg_order *o, int k0, int k1, int low) {
  memset(o, 0, sizeof *o);
  o->rule[0].kind = k0;
  o->nrules = 1;
  if (k1 >= 0) o->rule[1].kind = k1, o->nrules = 2;
  o->lowest_first = low;
}

/* The rules whose rescoring covers every changed score (radius 1) give the
 * naive order exactly.  Min-fill (radius 2) widens only from the
 * intermediates next to the eliminated vertex: a fill score changed through
 * an independent or a dependent waits until its vertex is touched again,
 * as it always has; there only the Jacobians are compared. */
static void test_orders(void) {
  static const int rules[][2] = {{CG_ORD_MARKOWITZ, -1},      {CG_ORD_MIN_FILL, -1},
                                 {CG_ORD_REL_MARKOWITZ, -1},  {CG_ORD_MARKOWITZ, CG_ORD_FORWARD},
                                 {CG_ORD_MIN_FILL, CG_ORD_MARKOWITZ}};
  int t, r, low;
  for (t = 0; t < 12; t++) {
    uint32_t nv = 40 + rnd(160), nin = 2 + rnd(12), nout = 1 + rnd(12);
    cg_lin *g = random_graph(NULL, nv, nin, nout, 1 + rnd(4), t % 3 ? 12 : nv, t % 4 == 1);
    CHECK(g != NULL);
    if (!g) continue;
    for (r = 0; r < (int)(sizeof rules / sizeof rules[0]); r++)
      for (low = 0; low < 2; low++) {
        cg_order o;
        set_order(&o, rules[r][0], rules[r][1], low);
        check_order(g, &o, rules[r][0] != CG_ORD_MIN_FILL);
      }
    cg_lin_free(g);
  }
}

/* Heavy fill: lists outgrow their blocks again and again, the slab grows
 * and moves; the invariants hold and the Jacobian is right. */
static void test_heavy_fill(void) {
  cg_error e;
  cg_order o;
  cg_cost c;
  cg_jac Jf, Ja;
  cg_lin *g = random_graph(NULL, 3000, 50, 50, 3, 64, 0), *a;
  CHECK(g != NULL);
  if (!g) return;
  a = cg_lin_copy(g, &e);
  set_order(&o, CG_ORD_MARKOWITZ, -1, 0);
  memset(&c, 0, sizeof c);
  CHECK(a && cg_lin_eliminate(a, &o, &c, NULL, NULL, &e) == CG_OK);
  CHECK(cg_lin_check(a, &e) == CG_OK);
  CHECK(c.fill > 10000);
  CHECK(cg_lin_jac_forward(g, &Jf, &e) == CG_OK && cg_lin_jac_bipartite(a, &Ja, &e) == CG_OK);
  CHECK(same_jac(&Ja, &Jf, 0));
  cg_jac_free(NULL, &Jf), cg_jac_free(NULL, &Ja);
  cg_lin_free(a), cg_lin_free(g);
}

/* Edge elimination (front and back steps) and face elimination read off
 * the Jacobian of the forward sweep. */
static void test_edges_faces(void) {
  int t, sides;
  for (t = 0; t < 6; t++) {
    cg_error e;
    cg_lin *g = random_graph(NULL, 30 + rnd(40), 2 + rnd(5), 1 + rnd(5), 1 + rnd(3), 10, t == 2);
    cg_jac Jf;
    CHECK(g && cg_lin_jac_forward(g, &Jf, &e) == CG_OK);
    if (!g) continue;
    for (sides = 1; sides <= 4; sides++) {
      cg_xorder o;
      cg_jac J;
      cg_lin *a = cg_lin_copy(g, &e);
      int rc;
      memset(&o, 0, sizeof o);
      o.nrules = 1, o.rule[0].kind = CG_ORD_MARKOWITZ, o.sides = sides == 4 ? 3 : sides;
      rc = sides == 4 ? cg_lin_eliminate_faces(a, &o, NULL, NULL, &e)
                      : cg_lin_eliminate_edges(a, &o, NULL, NULL, &e);
      CHECK(rc == CG_OK && cg_lin_check(a, &e) == CG_OK);
      CHECK(cg_lin_jac_bipartite(a, &J, &e) == CG_OK && same_jac(&J, &Jf, 0));
      cg_jac_free(NULL, &J);
      cg_lin_free(a);
    }
    cg_jac_free(NULL, &Jf);
    cg_lin_free(g);
  }
}

/* Every allocation of an elimination fails in turn: a refused run stops
 * with CG_ENOMEM and the graph left has the original's Jacobian and valid
 * lists.  Steps of more than a few pairs (the marked lookup) included. */
static void test_refused(int edges) {
  long k, refused = 0, broken = 0, changed = 0, leaks = 0;
  cg_jac Jf;
  cg_error e;
  cg_lin *g = random_graph(NULL, 400, 20, 20, 4, 40, 1);
  CHECK(g && cg_lin_jac_forward(g, &Jf, &e) == CG_OK);
  if (!g) return;
  for (k = 1; k < 100000; k++) {
    counting cnt = {0, 0, 0};
    cg_alloc A = {counting_alloc, &cnt};
    cg_lin *a = NULL;
    long base;
    int rc;
    rng = 12345; /* the same graph each time */
    a = random_graph(&A, 400, 20, 20, 4, 40, 1);
    if (!a) break;
    base = cnt.calls;
    cnt.fail_at = base + k;
    if (edges) {
      cg_xorder o;
      memset(&o, 0, sizeof o);
      o.nrules = 1, o.rule[0].kind = CG_ORD_MARKOWITZ, o.sides = 3;
      rc = cg_lin_eliminate_edges(a, &o, NULL, NULL, &e);
    } else {
      cg_order o;
      set_order(&o, CG_ORD_MARKOWITZ, -1, 0);
      rc = cg_lin_eliminate(a, &o, NULL, NULL, NULL, &e);
    }
    cnt.fail_at = 0;
    if (rc == CG_OK) {
      cg_lin_free(a);
      break; /* k beyond the run's allocations */
    }
    refused++;
    if (rc != CG_ENOMEM || cg_lin_check(a, &e) != CG_OK) broken++;
    else {
      cg_jac J;
      if (cg_lin_jac_forward(a, &J, &e) != CG_OK || !same_jac(&J, &Jf, 0)) changed++;
      cg_jac_free(&A, &J);
    }
    cg_lin_free(a);
    if (cnt.live && ++leaks == 1)
      fprintf(stderr, "test_elim: %s, allocation %ld: %lld bytes leaked\n", edges ? "edges" : "vertices",
              k, cnt.live);
  }
  CHECK(refused > 5);
  CHECK(broken == 0);
  CHECK(changed == 0);
  CHECK(leaks == 0);
  cg_jac_free(NULL, &Jf);
  cg_lin_free(g);
}

int main(void) {
  test_orders();
  test_heavy_fill();
  test_edges_faces();
  rng = 12345;
  test_refused(0);
  rng = 12345;
  test_refused(1);
  return check_report("test_elim");
}
