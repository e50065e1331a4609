/*
 * cg_search.c: the optimal vertex elimination order by depth-first branch
 * and bound over elimination states (cg_search.h).
 *
 * States.  As cg_exact.c explains, the graph left after eliminating a set S
 * of intermediates does not depend on the order within S, and connected
 * components of intermediates are independent; so the search runs per
 * component over the sets S, a state's cost so far g(S) being that of the
 * path that reached it.  A state keeps, per remaining member, its current
 * predecessor and successor sets as bitsets over the component's local ids
 * (members and the independents and dependents next to them, numbered in
 * ascending vertex order); eliminating v costs |pred(v)| * |succ(v)| and
 * joins pred(v) to the predecessor sets of v's successors and succ(v) to the
 * successor sets of v's predecessors.
 *
 * The lower bound (admissible).  Let S0 be the current set and S a later one
 * (S0 within S, v not in S).  In the graph of S0, every path from an
 * independent to v has a last vertex u before v outside S (independents
 * are never eliminated), and the part from u to v runs through S: so u is a
 * predecessor of v when S is eliminated.  Vertex-disjoint paths (sharing
 * only v) give distinct such u, so when v is eliminated it has at least as
 * many predecessors as there are vertex-disjoint paths from the
 * independents to v in the graph of S0 (Menger: as many as the least vertex
 * cut between them), likewise successors and paths to the dependents.  The
 * term of v is paths_in(v) * paths_out(v); three built-in bounds, each at
 * least the one before it at every state:
 *   "paths": the terms with the paths packed greedily (each found by a
 *     depth-first search over unmarked vertices, marks kept: disjoint paths,
 *     so at most the maximum), their sum, plus the last vertex's excess: the
 *     vertex eliminated last pays exactly |X(v)| * |Y(v)| (the independents
 *     reaching v times the dependents it reaches), so the least excess of
 *     that over v's term adds to the sum;
 *   "flow": the same with the maximum numbers of disjoint paths (augmenting
 *     paths, unit vertex capacities);
 *   "pairs" (the default): "flow", plus pairs.  If u goes before w, w is
 *     eliminated in a state that contains u's elimination, so w pays at
 *     least its term in the state S0 + u (the argument above from there);
 *     that term is at least w's term in S0 (a vertex cut in the graph of
 *     S0 + u is one in the graph of S0: the paths through u became shorter
 *     paths over a subset of their vertices).  So u and w together pay at
 *     least term(u) + term(w) + min(rise of w when u goes first, rise of u
 *     when w goes first), and for disjoint pairs the excesses add.  The
 *     pairs are adjacent intermediates, matched greedily by excess; the
 *     last vertex's excess is counted with its own pair's given up.  The
 *     children of a state are scored by a quick form (the parent's terms
 *     without the child's vertex: no term falls, as just shown), the full
 *     bound computed when the search enters a state.
 *
 * The search.  Depth-first from the empty set; the children of a state are
 * the remaining members, each scored by f = g + cost + bound of the child,
 * tried in ascending f (ties: cheaper Markowitz degree, then lower id).  A
 * transposition table keeps, per state met (hashed bitset), the least g it
 * was reached with; a state met again with no less is cut, its subtree being
 * already searched (this round) or waiting on the stack.  A first phase cuts
 * at f >= U, the best order's cost (the incumbent, at first the order
 * given), to improve U: to the end without a limit (U is then optimal), for
 * a quarter of a time or node limit; then rounds (iterative deepening on the
 * bound, Korf 1985) cut at f >= t + 1 for the proven bound t (at first the
 * root's): a round that completes has found every order cheaper than t + 1,
 * so none exists if U > t, and the least f it cut becomes the next t.  When a
 * limit stops a round, the proven bound is the least f of the work left (the
 * children not tried at every level of the stack, a child stopped inside its
 * subtree counting its own bound, those cut counting the cut), and at least
 * t; when the rounds reach U, it is optimal.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cg_search.h"

#define NONE UINT32_MAX
#define DONE UINT64_MAX /* dfs: the subtree is searched */

typedef struct srch {
  const cg_lin *g;
  cg_alloc *A;
  const cg_search_opts *o;
  /* the component */
  uint32_t m, nl, W;       /* members, local ids, bitset words */
  uint32_t *vert;          /* local id -> vertex (ascending) */
  uint32_t *l2m, *m2l;     /* local id -> member index (NONE: outsider), member -> local */
  uint64_t *ismem;         /* W words */
  /* levels 0..m + 1 (m + 1: the bound's scratch): pred rows (m * W), succ rows (m * W), remaining (W) */
  uint64_t *st;
  size_t lvl;
  uint64_t *mark;          /* W words: the bound's path packing */
  uint64_t *reach, *term;  /* m * W: outsiders reached; m: each member's term of the bound */
  uint32_t *nx;            /* m: independents reaching each member */
  uint32_t *fprv, *fnxt, *fpar, *fq; /* the flows: nl, nl, 2 nl, 2 nl */
  uint8_t *fvis;           /* 2 nl: the flows' visited split vertices */
  uint64_t *dl;            /* m * m: dl[u * m + w], w's term's rise when u goes first */
  uint32_t *pu, *pw, *mate; /* m * m, m * m: adjacent pairs; m: the matching */
  uint64_t *pe;            /* m * m: the pairs' excesses */
  uint64_t hsum, ex1, ex2; /* the state last bounded: its terms' sum, the least two last - term */
  uint32_t ex1at;          /* whose is ex1 */
  int builtin;             /* the built-in bound's row in builtin_bounds */
  uint32_t *cand, *path, *best, *gbuf; /* m * m candidates, m path, m best (vertices), m hook buffer */
  uint64_t *fv, *mk;       /* m * m: f and cost of each candidate */
  uint64_t U;
  uint64_t cut, next_t;    /* this round's cut: f >= cut is not searched; the least f so cut (next round's) */
  /* transposition table: slots of (epoch, g, key W words), free unless of this epoch */
  uint64_t *tt, epoch;     /* epoch: the component's, from 1 */
  size_t ttcap, ttw;       /* slots (a power of 2), words per slot (Wmax + 2) */
  /* the run */
  uint64_t nodes, comp_nodes;
  uint64_t base_u, base_l;  /* sums over the components done (progress) */
  double t0, next_progress;
  double phase_t;           /* the first phase (improving the incumbent) stops at this time */
  uint64_t phase_nodes;     /* or this many states (0: no first phase) */
  int aborted, err;
  cg_search_stats stats;
} srch;

struct cg_sview {
  const srch *s;
  uint32_t d;
  uint64_t cost;
};

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint32_t popc(uint64_t x) {
#if defined(__GNUC__)
  return (uint32_t)__builtin_popcountll(x);
#else
  uint32_t n = 0;
  for (; x; x &= x - 1) n++;
  return n;
#endif
}

static uint32_t ctz(uint64_t x) {
#if defined(__GNUC__)
  return (uint32_t)__builtin_ctzll(x);
#else
  uint32_t n = 0;
  while (!(x & 1)) x >>= 1, n++;
  return n;
#endif
}

#define BIT(b, i) ((b)[(i) / 64] >> ((i) % 64) & 1)
#define SETBIT(b, i) ((b)[(i) / 64] |= 1ull << ((i) % 64))
#define CLRBIT(b, i) ((b)[(i) / 64] &= ~(1ull << ((i) % 64)))

static uint64_t *level(const srch *s, uint32_t d) { return s->st + (size_t)d * s->lvl; }
/* Row of member i on a side (0 preds, 1 succs) in level L. */
static uint64_t *row(const srch *s, uint64_t *L, int side, uint32_t i) {
  return L + ((size_t)side * s->m + i) * s->W;
}
static uint64_t *remaining(const srch *s, uint64_t *L) { return L + (size_t)2 * s->m * s->W; }

static uint32_t count_bits(const uint64_t *b, uint32_t W) {
  uint32_t w, n = 0;
  for (w = 0; w < W; w++) n += popc(b[w]);
  return n;
}

static uint64_t markowitz(const srch *s, uint64_t *L, uint32_t i) {
  return (uint64_t)count_bits(row(s, L, 0, i), s->W) * count_bits(row(s, L, 1, i), s->W);
}

/* N = L with member i eliminated; returns its cost. */
static uint64_t eliminate_into(const srch *s, uint64_t *L, uint64_t *N, uint32_t i) {
  const uint64_t *P = row(s, L, 0, i), *X = row(s, L, 1, i);
  uint32_t w, side, li = s->m2l[i];
  memcpy(N, L, s->lvl * 8);
  for (side = 0; side < 2; side++) {
    const uint64_t *from = side ? X : P, *add = side ? P : X; /* preds get succ(v), succs get pred(v) */
    for (w = 0; w < s->W; w++) {
      uint64_t b = from[w];
      for (; b; b &= b - 1) {
        uint32_t j = s->l2m[w * 64 + ctz(b)], k;
        uint64_t *r;
        if (j == NONE) continue;
        r = row(s, N, side ? 0 : 1, j);
        for (k = 0; k < s->W; k++) r[k] |= add[k];
        CLRBIT(r, li);
      }
    }
  }
  CLRBIT(remaining(s, N), li);
  return markowitz(s, L, i);
}

/* Level d + 1 = level d with member i eliminated; returns its cost. */
static uint64_t eliminate(const srch *s, uint32_t d, uint32_t i) {
  return eliminate_into(s, level(s, d), level(s, d + 1), i);
}

/* {==== the bound ====} */

/* Depth-first search from member local id l (marked) for an unmarked
 * outsider along side (0: against the edges, to an independent). */
static int reach_free(srch *s, uint64_t *L, uint32_t l, int side) {
  const uint64_t *r = row(s, L, side, s->l2m[l]);
  uint32_t w;
  for (w = 0; w < s->W; w++) {
    uint64_t b = r[w];
    for (; b; b &= b - 1) {
      uint32_t p = w * 64 + ctz(b);
      if (BIT(s->mark, p)) continue;
      SETBIT(s->mark, p);
      if (s->l2m[p] == NONE || reach_free(s, L, p, side)) return 1;
    }
  }
  return 0;
}

/* Greedy vertex-disjoint paths from the independents (side 0) or to the
 * dependents (side 1) to member i, sharing only i. */
static uint64_t disjoint_paths(srch *s, uint64_t *L, uint32_t i, int side) {
  uint32_t w, n = 0;
  memset(s->mark, 0, (size_t)s->W * 8);
  SETBIT(s->mark, s->m2l[i]);
  for (w = 0; w < s->W; w++) {
    uint64_t b = row(s, L, side, i)[w];
    for (; b; b &= b - 1) {
      uint32_t p = w * 64 + ctz(b);
      if (BIT(s->mark, p)) continue;
      SETBIT(s->mark, p);
      if (s->l2m[p] == NONE || reach_free(s, L, p, side)) n++;
    }
  }
  return n;
}

/* The outsiders (independents, side 0; dependents, side 1) connected to
 * each remaining member in level L, into s->reach (m rows of W words):
 * members in ascending order are topological (edges ascend, fill too). */
static void outsiders(srch *s, uint64_t *L, int side) {
  uint32_t a, w, k;
  for (a = 0; a < s->m; a++) {
    uint32_t i = side ? s->m - 1 - a : a;
    uint64_t *acc = s->reach + (size_t)i * s->W;
    memset(acc, 0, (size_t)s->W * 8);
    if (!BIT(remaining(s, L), s->m2l[i])) continue;
    for (w = 0; w < s->W; w++)
      for (uint64_t b = row(s, L, side, i)[w]; b; b &= b - 1) {
        uint32_t p = w * 64 + ctz(b), j = s->l2m[p];
        if (j == NONE) SETBIT(acc, p);
        else
          for (k = 0; k < s->W; k++) acc[k] |= s->reach[(size_t)j * s->W + k];
      }
  }
}

/* The exact number of vertex-disjoint paths from member i to the outsiders
 * along side (Menger: the least vertex cut; augmenting paths over the graph
 * with every vertex but i split in two, unit capacities).  Flow is kept as
 * fprv (a vertex's predecessor on its path, i for the first ones) and fnxt;
 * a search state is 2 x (entering x) or 2 x + 1 (leaving x). */
static uint64_t flow_paths(srch *s, uint64_t *L, uint32_t i, int side) {
  uint32_t src = s->m2l[i], x, n = 0, most = count_bits(row(s, L, side, i), s->W);
  uint32_t *prv = s->fprv, *nxt = s->fnxt, *par = s->fpar, *q = s->fq;
  for (x = 0; x < s->nl; x++) prv[x] = nxt[x] = NONE;
  while (n < most) {
    uint32_t head = 0, tail = 0, sink = NONE, st, w;
    memset(s->fvis, 0, (size_t)2 * s->nl);
    s->fvis[2 * src + 1] = 1, q[tail++] = 2 * src + 1;
    while (head < tail && sink == NONE) {
      st = q[head++], x = st >> 1;
      if (st & 1) { /* leaving x: unused edges x -> y, and back into x if x carries a path */
        const uint64_t *r = row(s, L, side, s->l2m[x]);
        for (w = 0; w < s->W; w++)
          for (uint64_t b = r[w]; b; b &= b - 1) {
            uint32_t y = w * 64 + ctz(b);
            if ((x == src ? prv[y] == src : nxt[x] == y) || s->fvis[2 * y]) continue;
            s->fvis[2 * y] = 1, par[2 * y] = st, q[tail++] = 2 * y;
          }
        if (x != src && prv[x] != NONE && !s->fvis[2 * x])
          s->fvis[2 * x] = 1, par[2 * x] = st, q[tail++] = 2 * x;
      } else if (prv[x] == NONE) { /* entering an unused x: a free outsider ends the path */
        if (s->l2m[x] == NONE) sink = x;
        else if (!s->fvis[st + 1]) s->fvis[st + 1] = 1, par[st + 1] = st, q[tail++] = st + 1;
      } else if (prv[x] != src && !s->fvis[2 * prv[x] + 1]) { /* used: back along its path */
        s->fvis[2 * prv[x] + 1] = 1, par[2 * prv[x] + 1] = st, q[tail++] = 2 * prv[x] + 1;
      }
    }
    if (sink == NONE) break;
    for (st = 2 * sink; st != 2 * src + 1; st = par[st]) /* cancel the edges walked backwards */
      if ((st & 1) && !(par[st] & 1) && (par[st] >> 1) != (st >> 1)) {
        uint32_t a = st >> 1, bb = par[st] >> 1; /* entering bb, then leaving a = prv[bb] */
        prv[bb] = NONE;
        if (a != src && nxt[a] == bb) nxt[a] = NONE;
      }
    for (st = 2 * sink; st != 2 * src + 1; st = par[st]) /* add the edges walked forwards */
      if (!(st & 1) && (par[st] & 1) && (par[st] >> 1) != (st >> 1)) {
        uint32_t a = par[st] >> 1, bb = st >> 1;
        prv[bb] = a;
        if (a != src) nxt[a] = bb;
      }
    n++;
  }
  return n;
}

typedef uint64_t (*paths_fn)(srch *s, uint64_t *L, uint32_t i, int side);

/* Each remaining member's term paths_in * paths_out into s->term; their sum. */
static uint64_t terms(srch *s, uint64_t *L, paths_fn paths) {
  uint64_t h = 0, *R = remaining(s, L);
  uint32_t w;
  for (w = 0; w < s->W; w++)
    for (uint64_t b = R[w]; b; b &= b - 1) {
      uint32_t i = s->l2m[w * 64 + ctz(b)];
      s->term[i] = paths(s, L, i, 0) * paths(s, L, i, 1);
      h += s->term[i];
    }
  return h;
}

/* The vertex eliminated last pays exactly |X(v)| * |Y(v)|, the independents
 * reaching v times the dependents it reaches (nothing else of the component
 * is left then): the least over the remaining v of that excess over v's
 * term, plus lose[v] (what the rest of the bound gives up when v is last;
 * NULL: nothing); 0 when nothing remains. */
static uint64_t last_excess(srch *s, uint64_t *L, const uint64_t *lose) {
  uint64_t extra = DONE, *R = remaining(s, L);
  uint32_t w;
  s->ex1 = s->ex2 = DONE, s->ex1at = NONE;
  outsiders(s, L, 0);
  for (w = 0; w < s->W; w++)
    for (uint64_t b = R[w]; b; b &= b - 1) {
      uint32_t i = s->l2m[w * 64 + ctz(b)];
      s->nx[i] = count_bits(s->reach + (size_t)i * s->W, s->W);
    }
  outsiders(s, L, 1);
  for (w = 0; w < s->W; w++)
    for (uint64_t b = R[w]; b; b &= b - 1) {
      uint32_t i = s->l2m[w * 64 + ctz(b)];
      uint64_t last = (uint64_t)s->nx[i] * count_bits(s->reach + (size_t)i * s->W, s->W);
      uint64_t x = last > s->term[i] ? last - s->term[i] : 0;
      if (x < s->ex1) s->ex2 = s->ex1, s->ex1 = x, s->ex1at = i;
      else if (x < s->ex2) s->ex2 = x;
      if (lose) x += lose[i];
      if (x < extra) extra = x;
    }
  return extra == DONE ? 0 : extra;
}

/* "paths": the terms by greedy path packing, plus the last vertex's excess. */
static uint64_t bound_paths(srch *s, uint64_t *L) {
  return terms(s, L, disjoint_paths) + last_excess(s, L, NULL);
}

/* "flow": the terms by exact path counts (max flow), plus the last vertex's excess. */
static uint64_t bound_flow(srch *s, uint64_t *L) {
  return terms(s, L, flow_paths) + last_excess(s, L, NULL);
}

static int desc_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* dl[u * m + w] for the remaining members w next to remaining u: how much
 * w's term rises in the state with u eliminated (w goes after u). */
static void rises(srch *s, uint64_t *L) {
  uint64_t *N = level(s, s->m + 1), *R = remaining(s, L);
  uint32_t w, k, side;
  for (w = 0; w < s->W; w++)
    for (uint64_t b = R[w]; b; b &= b - 1) {
      uint32_t u = s->l2m[w * 64 + ctz(b)];
      eliminate_into(s, L, N, u);
      for (side = 0; side < 2; side++)
        for (k = 0; k < s->W; k++)
          for (uint64_t c = row(s, L, side, u)[k]; c; c &= c - 1) {
            uint32_t x = s->l2m[k * 64 + ctz(c)];
            uint64_t t;
            if (x == NONE) continue;
            t = flow_paths(s, N, x, 0) * flow_paths(s, N, x, 1);
            s->dl[(size_t)u * s->m + x] = t > s->term[x] ? t - s->term[x] : 0; /* t >= term: see the top */
          }
    }
}

/* "pairs": the flow terms, plus for disjoint pairs of adjacent members u, w
 * the least rise of the one going second (whichever it is), the pairs a
 * greedy matching by that excess; the last vertex's excess counted with the
 * excess of its own pair given up. */
static uint64_t bound_pairs(srch *s, uint64_t *L) {
  uint64_t h = terms(s, L, flow_paths), M = 0, *R = remaining(s, L);
  uint32_t w, k, np = 0, a;
  s->hsum = h;
  rises(s, L);
  for (w = 0; w < s->W; w++)
    for (uint64_t b = R[w]; b; b &= b - 1) {
      uint32_t u = s->l2m[w * 64 + ctz(b)];
      s->mate[u] = NONE;
      for (k = 0; k < s->W; k++) /* successors only: each pair once */
        for (uint64_t c = row(s, L, 1, u)[k]; c; c &= c - 1) {
          uint32_t x = s->l2m[k * 64 + ctz(c)];
          uint64_t e;
          if (x == NONE) continue;
          e = s->dl[(size_t)u * s->m + x] < s->dl[(size_t)x * s->m + u] ? s->dl[(size_t)u * s->m + x]
                                                                        : s->dl[(size_t)x * s->m + u];
          if (!e) continue;
          s->pu[np] = u, s->pw[np] = x, s->pe[np] = e << 32 | np;
          np++;
        }
    }
  qsort(s->pe, np, sizeof *s->pe, desc_u64);
  for (a = 0; a < np; a++) { /* greedy: the largest excesses first */
    uint32_t p = (uint32_t)(s->pe[a] & 0xffffffffu), u = s->pu[p], x = s->pw[p];
    if (s->mate[u] != NONE || s->mate[x] != NONE) continue;
    s->mate[u] = x, s->mate[x] = u;
    s->dl[(size_t)u * s->m + u] = s->dl[(size_t)x * s->m + x] = s->pe[a] >> 32; /* the pair's excess */
    M += s->pe[a] >> 32;
  }
  for (w = 0; w < s->W; w++) /* lose: the matching's excess less that of v's own pair */
    for (uint64_t b = R[w]; b; b &= b - 1) {
      uint32_t u = s->l2m[w * 64 + ctz(b)];
      s->pe[u] = M - (s->mate[u] == NONE ? 0 : s->dl[(size_t)u * s->m + u]);
    }
  return h + last_excess(s, L, s->pe);
}

static int cut(srch *s, uint64_t f);

/* The quick bound of the child eliminating member i of the state "pairs"
 * bounded last: every other term and last-vertex product as they were
 * (neither falls when a vertex is eliminated, see the top), without pairs. */
static uint64_t inherit(srch *s, uint64_t *L, uint32_t i) {
  uint64_t ex = s->ex1at == i ? s->ex2 : s->ex1;
  (void)L;
  return ex == DONE ? 0 : s->hsum - s->term[i] + ex;
}

/* The built-in bounds, each at least the one before it at every state (a
 * maximal flow packs at least the greedy paths; the pairs only add); quick:
 * a cheaper one scoring the children, the bound itself computed only for
 * the states the search enters (NULL: the bound does both). */
static const struct {
  const char *name;
  uint64_t (*fn)(srch *s, uint64_t *L);
  uint64_t (*quick)(srch *s, uint64_t *L, uint32_t i);
} builtin_bounds[] = {{"paths", bound_paths, NULL}, {"flow", bound_flow, NULL}, {"pairs", bound_pairs, inherit}};

#define NBOUNDS (sizeof builtin_bounds / sizeof builtin_bounds[0])

const char *cg_search_bound_name(uint32_t k) { return k < NBOUNDS ? builtin_bounds[k].name : NULL; }

/* The lower bound of what is left to pay from level d (reached at cost g);
 * i: the member the parent eliminated to reach it, for a built-in's quick
 * form if it has one (NONE: the bound itself). */
static uint64_t bound(srch *s, uint32_t d, uint64_t g, uint32_t i) {
  if (s->o->bound) {
    cg_sview v;
    double x;
    v.s = s, v.d = d, v.cost = g;
    x = s->o->bound(s->o->ud, &v, &s->err);
    if (s->err) s->aborted = 1;
    if (!(x > 0)) return 0; /* negative (or an error) */
    return x >= 1.8e19 ? DONE / 2 : (uint64_t)(x + 0.999999999); /* integral costs: round up */
  }
  if (i != NONE && builtin_bounds[s->builtin].quick) return builtin_bounds[s->builtin].quick(s, level(s, d), i);
  return builtin_bounds[s->builtin].fn(s, level(s, d));
}

/* A state entered with a quick bound f: the full bound raises f; 1 if
 * that cuts it. */
static int refine(srch *s, uint32_t d, uint64_t g, uint64_t *f) {
  uint64_t full;
  if (s->o->bound || !builtin_bounds[s->builtin].quick) return 0;
  full = g + builtin_bounds[s->builtin].fn(s, level(s, d));
  if (full > *f) *f = full;
  return cut(s, *f);
}

/* }==== */

/* {==== transposition table ====} */

static uint64_t hash_key(const uint64_t *k, uint32_t W) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  uint32_t w;
  for (w = 0; w < W; w++) {
    h ^= k[w] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
  }
  return h ^ (h >> 31);
}

/* 1 if the state key was met with cost <= g; else records g (when a slot
 * is free near its hash: a full table stops recording, it does not fail).
 * A slot is (epoch, g, key): one of an earlier component's epoch is free,
 * so starting a component costs nothing. */
static int tt_seen(srch *s, const uint64_t *key, uint64_t g) {
  uint64_t h;
  uint32_t probe;
  if (!s->tt) return 0;
  h = hash_key(key, s->W);
  for (probe = 0; probe < 16; probe++) {
    uint64_t *e = s->tt + ((h + probe) & (s->ttcap - 1)) * s->ttw;
    if (e[0] != s->epoch) {
      e[0] = s->epoch, e[1] = g;
      memcpy(e + 2, key, (size_t)s->W * 8);
      return 0;
    }
    if (!memcmp(e + 2, key, (size_t)s->W * 8)) {
      if (e[1] <= g) return 1;
      e[1] = g;
      return 0;
    }
  }
  return 0;
}

/* Allocates the table once (halving until it fits; none if nothing fits). */
static void tt_alloc(srch *s, uint32_t Wmax) {
  size_t n = s->o->tt_entries ? s->o->tt_entries : (size_t)1 << 20, p = 1024;
  while (p < n) p *= 2;
  s->ttw = (size_t)Wmax + 2;
  for (; p >= 1024 && !s->tt; p /= 2) {
    s->tt = CG_NEW(s->A, uint64_t, p * s->ttw);
    if (s->tt) s->ttcap = p, memset(s->tt, 0, p * s->ttw * 8);
  }
}

/* }==== */

/* {==== the search ====} */

/* Time, node limit and progress; sets aborted. */
static void check_limits(srch *s) {
  double t = now_seconds() - s->t0;
  const cg_search_opts *o = s->o;
  if ((o->time_limit > 0 && t >= o->time_limit) || (o->max_nodes && s->nodes >= o->max_nodes))
    s->aborted = 1;
  if (s->phase_nodes && (t >= s->phase_t || s->nodes >= s->phase_nodes)) s->aborted = 1;
  if (o->progress && t >= s->next_progress) {
    s->stats.nodes = s->nodes;
    s->stats.seconds = t;
    o->progress(o->progress_ud, &s->stats);
    s->next_progress = t + (o->progress_every > 0 ? o->progress_every : 0.25);
  }
}

/* Sorts the n candidates of level d by (f, cost, id). */
static void sort_cands(srch *s, uint32_t d, uint32_t n) {
  uint32_t *c = s->cand + (size_t)d * s->m, a, b;
  uint64_t *f = s->fv + (size_t)d * s->m, *k = s->mk + (size_t)d * s->m;
  for (a = 1; a < n; a++) {
    uint32_t cv = c[a];
    uint64_t fv = f[a], kv = k[a];
    for (b = a; b > 0 && (f[b - 1] > fv || (f[b - 1] == fv && (k[b - 1] > kv ||
                                                                 (k[b - 1] == kv && c[b - 1] > cv))));
         b--)
      c[b] = c[b - 1], f[b] = f[b - 1], k[b] = k[b - 1];
    c[b] = cv, f[b] = fv, k[b] = kv;
  }
}

/* The branch hook: reorders the candidates of level d (a permutation). */
static void hook_branch(srch *s, uint32_t d, uint32_t n, uint64_t g) {
  uint32_t *c = s->cand + (size_t)d * s->m, a, b;
  uint64_t *f = s->fv + (size_t)d * s->m, *k = s->mk + (size_t)d * s->m;
  cg_sview v;
  v.s = s, v.d = d, v.cost = g;
  for (a = 0; a < n; a++) s->gbuf[a] = s->vert[s->m2l[c[a]]];
  if (s->o->branch(s->o->ud, &v, s->gbuf, n)) {
    s->err = 1, s->aborted = 1;
    return;
  }
  for (a = 0; a < n; a++) { /* move the entry of gbuf[a] to place a */
    for (b = a; b < n && s->vert[s->m2l[c[b]]] != s->gbuf[a]; b++) {}
    if (b == n) { /* not a permutation: the binding checks, this is a safety net */
      s->err = 1, s->aborted = 1;
      return;
    }
    {
      uint32_t tc = c[a];
      uint64_t tf = f[a], tk = k[a];
      c[a] = c[b], f[a] = f[b], k[a] = k[b];
      c[b] = tc, f[b] = tf, k[b] = tk;
    }
  }
}

/* 1 if a state of bound f is not searched this round (f >= the cut); the
 * least such f below U is where the next round's cut goes. */
static int cut(srch *s, uint64_t f) {
  if (f < s->cut && f < s->U) return 0;
  if (f < s->next_t) s->next_t = f;
  return 1;
}

/* The children of level d (reached at g) worth trying; their number. */
static uint32_t expand(srch *s, uint32_t d, uint64_t g) {
  uint64_t *R = remaining(s, level(s, d));
  uint32_t w, n = 0;
  for (w = 0; w < s->W && !s->aborted; w++) {
    uint64_t b = R[w];
    for (; b && !s->aborted; b &= b - 1) {
      uint32_t i = s->l2m[w * 64 + ctz(b)];
      uint64_t c = markowitz(s, level(s, d), i), f;
      if (cut(s, g + c)) continue; /* f >= g + c */
      eliminate(s, d, i);
      if (tt_seen(s, remaining(s, level(s, d + 1)), g + c)) continue;
      f = g + c + bound(s, d + 1, g + c, i);
      if (cut(s, f)) continue;
      s->cand[(size_t)d * s->m + n] = i;
      s->fv[(size_t)d * s->m + n] = f;
      s->mk[(size_t)d * s->m + n] = c;
      n++;
    }
  }
  return n;
}

/* Searches below level d (cost g, bound f).  Returns DONE when the subtree
 * is searched, else (stopped) a lower bound of what is left in it. */
static uint64_t dfs(srch *s, uint32_t d, uint64_t g, uint64_t f) {
  uint32_t n, k;
  uint64_t ret = DONE;
  if (d == s->m) {
    if (g < s->U) {
      s->U = g, s->stats.incumbent = s->base_u + g;
      for (k = 0; k < d; k++) s->best[k] = s->vert[s->m2l[s->path[k]]];
    }
    return DONE;
  }
  s->nodes++, s->comp_nodes++;
  if ((s->nodes & 15) == 0) check_limits(s);
  if (s->aborted) return f;
  if (refine(s, d, g, &f)) return DONE; /* cut at f >= the cut: searched for this round */
  n = expand(s, d, g);
  sort_cands(s, d, n);
  if (s->o->branch && n > 1 && !s->aborted) hook_branch(s, d, n, g);
  for (k = 0; k < n; k++) {
    uint32_t i = s->cand[(size_t)d * s->m + k];
    uint64_t fk = s->fv[(size_t)d * s->m + k], r;
    if (cut(s, fk)) continue;
    if (s->aborted) {
      if (fk < ret) ret = fk;
      continue;
    }
    eliminate(s, d, i);
    s->path[d] = i;
    r = dfs(s, d + 1, g + s->mk[(size_t)d * s->m + k], fk);
    if (r != DONE && (r > fk ? r : fk) < ret) ret = r > fk ? r : fk;
  }
  return ret != DONE && ret < f ? f : ret; /* f bounds the whole subtree */
}

/* }==== */

/* {==== components (cg_lin_component) ====} */

static void free_comp(srch *s) {
  cg_alloc *A = s->A;
  uint32_t m = s->m;
  CG_FREE(A, s->vert, uint32_t, s->nl);
  CG_FREE(A, s->l2m, uint32_t, s->nl);
  CG_FREE(A, s->m2l, uint32_t, m);
  CG_FREE(A, s->ismem, uint64_t, s->W);
  CG_FREE(A, s->st, uint64_t, (size_t)(m + 2) * s->lvl);
  CG_FREE(A, s->mark, uint64_t, s->W);
  CG_FREE(A, s->reach, uint64_t, (size_t)m * s->W);
  CG_FREE(A, s->term, uint64_t, m);
  CG_FREE(A, s->nx, uint32_t, m);
  CG_FREE(A, s->cand, uint32_t, (size_t)m * m);
  CG_FREE(A, s->fv, uint64_t, (size_t)m * m);
  CG_FREE(A, s->mk, uint64_t, (size_t)m * m);
  CG_FREE(A, s->path, uint32_t, m);
  CG_FREE(A, s->best, uint32_t, m);
  CG_FREE(A, s->gbuf, uint32_t, m);
  CG_FREE(A, s->fprv, uint32_t, s->nl);
  CG_FREE(A, s->fnxt, uint32_t, s->nl);
  CG_FREE(A, s->fpar, uint32_t, (size_t)2 * s->nl);
  CG_FREE(A, s->fq, uint32_t, (size_t)2 * s->nl);
  CG_FREE(A, s->fvis, uint8_t, (size_t)2 * s->nl);
  CG_FREE(A, s->dl, uint64_t, (size_t)m * m);
  CG_FREE(A, s->pu, uint32_t, (size_t)m * m);
  CG_FREE(A, s->pw, uint32_t, (size_t)m * m);
  CG_FREE(A, s->pe, uint64_t, (size_t)m * m);
  CG_FREE(A, s->mate, uint32_t, m);
  s->fprv = s->fnxt = s->fpar = s->fq = s->pu = s->pw = s->mate = NULL;
  s->fvis = NULL;
  s->dl = s->pe = NULL;
  s->vert = s->l2m = s->m2l = s->cand = s->path = s->best = s->gbuf = NULL;
  s->ismem = s->st = s->mark = s->fv = s->mk = s->reach = s->term = NULL;
  s->nx = NULL;
}

/* Local ids: the members and their outside neighbours, in ascending vertex
 * order (loc: vertex -> local id scratch, all NONE on entry and exit). */
static int build_comp(srch *s, const uint32_t *members, uint32_t m, uint32_t *loc, uint32_t *tmp) {
  const cg_lin *g = s->g;
  uint32_t i, k, nl = 0, v;
  for (i = 0; i < m; i++) {
    v = members[i];
    if (loc[v] == NONE) loc[v] = 0, tmp[nl++] = v;
    for (k = 0; k < g->in[v].n + g->out[v].n; k++) {
      uint32_t w = k < g->in[v].n ? g->tail[g->in[v].e[k]] : g->head[g->out[v].e[k - g->in[v].n]];
      if (loc[w] == NONE) loc[w] = 0, tmp[nl++] = w;
    }
  }
  for (i = 0; i < nl; i++) loc[tmp[i]] = NONE;
  s->m = m, s->nl = nl, s->W = (nl + 63) / 64;
  s->lvl = (size_t)(2 * m + 1) * s->W;
  s->vert = CG_NEW(s->A, uint32_t, nl), s->l2m = CG_NEW(s->A, uint32_t, nl);
  s->m2l = CG_NEW(s->A, uint32_t, m), s->ismem = CG_NEW(s->A, uint64_t, s->W);
  s->st = CG_NEW(s->A, uint64_t, (size_t)(m + 2) * s->lvl), s->mark = CG_NEW(s->A, uint64_t, s->W);
  s->cand = CG_NEW(s->A, uint32_t, (size_t)m * m), s->fv = CG_NEW(s->A, uint64_t, (size_t)m * m);
  s->mk = CG_NEW(s->A, uint64_t, (size_t)m * m), s->path = CG_NEW(s->A, uint32_t, m);
  s->best = CG_NEW(s->A, uint32_t, m), s->gbuf = CG_NEW(s->A, uint32_t, m);
  s->reach = CG_NEW(s->A, uint64_t, (size_t)m * s->W), s->term = CG_NEW(s->A, uint64_t, m);
  s->nx = CG_NEW(s->A, uint32_t, m);
  s->fprv = CG_NEW(s->A, uint32_t, nl), s->fnxt = CG_NEW(s->A, uint32_t, nl);
  s->fpar = CG_NEW(s->A, uint32_t, (size_t)2 * nl), s->fq = CG_NEW(s->A, uint32_t, (size_t)2 * nl);
  s->fvis = CG_NEW(s->A, uint8_t, (size_t)2 * nl), s->dl = CG_NEW(s->A, uint64_t, (size_t)m * m);
  s->pu = CG_NEW(s->A, uint32_t, (size_t)m * m), s->pw = CG_NEW(s->A, uint32_t, (size_t)m * m);
  s->pe = CG_NEW(s->A, uint64_t, (size_t)m * m), s->mate = CG_NEW(s->A, uint32_t, m);
  if (!s->fprv || !s->fnxt || !s->fpar || !s->fq || !s->fvis || !s->dl || !s->pu || !s->pw || !s->pe ||
      !s->mate)
    return CG_ENOMEM;
  if (!s->reach || !s->term || !s->nx) return CG_ENOMEM;
  if (!s->vert || !s->l2m || !s->m2l || !s->ismem || !s->st || !s->mark || !s->cand || !s->fv ||
      !s->mk || !s->path || !s->best || !s->gbuf)
    return CG_ENOMEM;
  /* ascending vertex ids: a counting pass over the vertex range would cost nv; sort instead */
  memcpy(s->vert, tmp, (size_t)nl * 4);
  for (i = 1; i < nl; i++) { /* insertion sort: components are searched, so small */
    uint32_t x = s->vert[i];
    for (k = i; k > 0 && s->vert[k - 1] > x; k--) s->vert[k] = s->vert[k - 1];
    s->vert[k] = x;
  }
  memset(s->ismem, 0, (size_t)s->W * 8);
  memset(level(s, 0), 0, s->lvl * 8);
  for (i = 0; i < nl; i++) loc[s->vert[i]] = i, s->l2m[i] = NONE;
  for (i = 0, k = 0; i < nl; i++)
    if (g->kind[s->vert[i]] == CG_V_INTER) s->l2m[i] = k, s->m2l[k] = i, SETBIT(s->ismem, i), k++;
  for (i = 0; i < m; i++) {
    uint64_t *L = level(s, 0);
    v = s->vert[s->m2l[i]];
    SETBIT(remaining(s, L), s->m2l[i]);
    for (k = 0; k < g->in[v].n; k++) SETBIT(row(s, L, 0, i), loc[g->tail[g->in[v].e[k]]]);
    for (k = 0; k < g->out[v].n; k++) SETBIT(row(s, L, 1, i), loc[g->head[g->out[v].e[k]]]);
  }
  for (i = 0; i < nl; i++) loc[s->vert[i]] = NONE;
  return CG_OK;
}

/* The cost of the incumbent restricted to the component (members it lacks
 * follow in ascending order); fills best. */
static uint64_t incumbent(srch *s, const uint32_t *loc_member, uint8_t *used) {
  const cg_search_opts *o = s->o;
  uint32_t k, d = 0;
  uint64_t cost = 0;
  memset(used, 0, s->m);
  for (k = 0; o->incumbent && k < o->nincumbent; k++) {
    uint32_t i = loc_member[o->incumbent[k]];
    if (i == NONE || used[i]) continue;
    used[i] = 1, s->path[d++] = i;
  }
  for (k = 0; k < s->m; k++)
    if (!used[k]) s->path[d++] = k;
  for (k = 0; k < s->m; k++) {
    cost += eliminate(s, k, s->path[k]);
    s->best[k] = s->vert[s->m2l[s->path[k]]];
  }
  return cost;
}

/* The first phase: depth-first branch and bound cut at U only, for a
 * quarter of the time (or states) left when there is a limit, else to the
 * optimum; it improves the incumbent.  The rounds that follow cut lower and
 * raise the proven bound, but find only orders below their cut.  Returns
 * the bound proven. */
static uint64_t improve(srch *s, uint64_t h0) {
  const cg_search_opts *o = s->o;
  double left = o->time_limit > 0 ? o->time_limit - (now_seconds() - s->t0) : 0;
  uint64_t r;
  if (o->time_limit > 0 || o->max_nodes) { /* else no phase limit: to the optimum */
    s->phase_t = o->time_limit > 0 ? o->time_limit - left * 0.75 : 1e300;
    s->phase_nodes = o->max_nodes ? s->nodes + (o->max_nodes - s->nodes) / 4 + 1 : UINT64_MAX;
  }
  s->cut = DONE, s->next_t = DONE;
  s->epoch++;
  tt_seen(s, remaining(s, level(s, 0)), 0);
  r = dfs(s, 0, 0, h0);
  s->phase_nodes = 0;
  if (r == DONE) return s->U; /* searched: U is optimal */
  if (!s->err) s->aborted = 0, check_limits(s); /* only the phase's limit stops the rounds */
  return r > h0 ? (r < s->U ? r : s->U) : h0;
}

/* Searches one component (built); fills c and appends its order. */
static void search_comp(srch *s, cg_search_comp *c, uint32_t *loc_member, uint8_t *used) {
  uint64_t h0, r, t;
  uint32_t k;
  for (k = 0; k < s->m; k++) loc_member[s->vert[s->m2l[k]]] = k;
  s->U = incumbent(s, loc_member, used);
  for (k = 0; k < s->m; k++) loc_member[s->vert[s->m2l[k]]] = NONE;
  s->stats.incumbent = s->base_u + s->U;
  s->comp_nodes = 0;
  s->epoch++; /* a fresh table */
  h0 = bound(s, 0, 0, NONE);
  c->size = s->m, c->root_bound = h0;
  s->stats.bound = s->base_l + h0;
  check_limits(s);
  t = h0; /* proven: no order of the component costs less than t */
  if (!s->aborted && t < s->U) t = improve(s, h0);
  while (!s->aborted && t < s->U) { /* rounds: f < t + 1, then the least f cut, ... */
    s->stats.bound = s->base_l + t;
    s->cut = t + 1, s->next_t = s->U;
    s->epoch++;
    tt_seen(s, remaining(s, level(s, 0)), 0);
    r = dfs(s, 0, 0, h0);
    if (!s->aborted) t = s->next_t; /* every order below the cut found, the rest cut at f >= next_t */
    else t = t > r ? t : r < s->cut ? r : s->cut; /* left: f >= r, or cut at f >= cut */
  }
  c->mults = s->U;
  c->lower_bound = t < s->U ? t : s->U;
  c->proven = c->lower_bound == s->U;
  c->nodes = s->comp_nodes;
  s->base_u += c->mults, s->base_l += c->lower_bound;
}

/* }==== */

void cg_search_result_free(cg_alloc *A, cg_search_result *r) {
  CG_FREE(A, r->comps, cg_search_comp, r->ncomps);
  r->comps = NULL;
  r->ncomps = 0;
}

typedef struct work {
  uint8_t *seen, *used;
  uint32_t *members, *loc, *tmp, *start, *locm;
} work;

static void free_work(cg_alloc *A, work *w, size_t nv) {
  CG_FREE(A, w->seen, uint8_t, nv);
  CG_FREE(A, w->used, uint8_t, nv);
  CG_FREE(A, w->members, uint32_t, nv);
  CG_FREE(A, w->loc, uint32_t, nv);
  CG_FREE(A, w->tmp, uint32_t, nv);
  CG_FREE(A, w->start, uint32_t, nv + 1);
  CG_FREE(A, w->locm, uint32_t, nv);
}

/* The components, members grouped in w->members, w->start[c] .. [c + 1];
 * returns their number and the largest bitset width. */
static uint32_t components(const cg_lin *g, work *w, uint32_t *Wmax) {
  uint32_t v, n = 0, nc = 0;
  *Wmax = 1;
  for (v = 0; v < g->nv; v++) {
    uint32_t k, mm, deg = 0;
    if (g->kind[v] != CG_V_INTER || w->seen[v]) continue;
    w->start[nc++] = n;
    mm = cg_lin_component(g, v, w->seen, w->members + n);
    for (k = 0; k < mm; k++) deg += g->in[w->members[n + k]].n + g->out[w->members[n + k]].n;
    if ((mm + deg + 63) / 64 > *Wmax) *Wmax = (mm + deg + 63) / 64; /* at most that many local ids */
    n += mm;
  }
  w->start[nc] = n;
  return nc;
}

int cg_lin_search(const cg_lin *g, const cg_search_opts *o, cg_search_result *r,
                  uint32_t *order_out, cg_error *e) {
  srch s;
  work w;
  size_t nv = g->nv;
  uint32_t nc = 0, c, Wmax = 1, k;
  int rc = CG_OK;
  memset(&s, 0, sizeof s);
  memset(&w, 0, sizeof w);
  memset(r, 0, sizeof *r);
  for (k = 0; o->incumbent && k < o->nincumbent; k++)
    if (o->incumbent[k] >= g->nv)
      return cg_seterr(e, CG_EUSAGE, "exact: incumbent vertex %u out of range", o->incumbent[k] + 1);
  if (o->builtin > NBOUNDS) return cg_seterr(e, CG_EUSAGE, "exact: no built-in bound %u", o->builtin);
  s.builtin = o->builtin ? (int)o->builtin - 1 : (int)NBOUNDS - 1;
  s.g = g, s.A = g->A, s.o = o, s.t0 = now_seconds();
  s.stats.time_limit = o->time_limit;
  s.next_progress = o->progress_every > 0 ? o->progress_every : 0.25;
  w.seen = CG_NEW(s.A, uint8_t, nv), w.used = CG_NEW(s.A, uint8_t, nv);
  w.members = CG_NEW(s.A, uint32_t, nv), w.loc = CG_NEW(s.A, uint32_t, nv);
  w.tmp = CG_NEW(s.A, uint32_t, nv), w.start = CG_NEW(s.A, uint32_t, nv + 1);
  w.locm = CG_NEW(s.A, uint32_t, nv);
  if (!w.seen || !w.used || !w.members || !w.loc || !w.tmp || !w.start || !w.locm) rc = CG_ENOMEM;
  if (!rc) {
    memset(w.seen, 0, nv);
    memset(w.loc, 0xff, nv * 4);
    memset(w.locm, 0xff, nv * 4);
    nc = components(g, &w, &Wmax);
    r->comps = CG_NEW(s.A, cg_search_comp, nc);
    if (!r->comps) rc = CG_ENOMEM;
    else r->ncomps = nc;
  }
  if (!rc) tt_alloc(&s, Wmax);
  for (c = 0; !rc && c < nc; c++) {
    uint32_t m = w.start[c + 1] - w.start[c];
    rc = build_comp(&s, w.members + w.start[c], m, w.loc, w.tmp);
    if (!rc) {
      search_comp(&s, &r->comps[c], w.locm, w.used);
      if (s.err) rc = CG_ERUNTIME;
      memcpy(order_out + r->norder, s.best, (size_t)m * 4);
      r->norder += m;
      r->mults += r->comps[c].mults, r->lower_bound += r->comps[c].lower_bound;
      r->root_bound += r->comps[c].root_bound, r->nodes += r->comps[c].nodes;
    }
    free_comp(&s);
  }
  CG_FREE(s.A, s.tt, uint64_t, s.ttcap * s.ttw);
  free_work(s.A, &w, nv);
  if (rc) {
    cg_search_result_free(s.A, r);
    if (rc == CG_ENOMEM) return cg_seterr(e, rc, "exact: out of memory");
    return cg_seterr(e, rc, "exact: a search hook failed");
  }
  r->proven = r->lower_bound == r->mults;
  r->seconds = now_seconds() - s.t0;
  if (o->progress) {
    s.stats.nodes = s.nodes, s.stats.seconds = r->seconds;
    s.stats.incumbent = r->mults, s.stats.bound = r->lower_bound;
    o->progress(o->progress_ud, &s.stats);
  }
  return CG_OK;
}

/* {==== the view ====} */

uint32_t cg_sview_count(const cg_sview *v) {
  const srch *s = v->s;
  return count_bits(remaining(s, level(s, v->d)), s->W);
}

uint32_t cg_sview_at(const cg_sview *v, uint32_t i) {
  const srch *s = v->s;
  const uint64_t *R = remaining(s, level(s, v->d));
  uint32_t w;
  for (w = 0; w < s->W; w++) {
    uint32_t n = popc(R[w]);
    uint64_t b = R[w];
    if (i >= n) {
      i -= n;
      continue;
    }
    while (i--) b &= b - 1;
    return s->vert[w * 64 + ctz(b)];
  }
  return NONE;
}

/* Local id of vertex v, or NONE (binary search: vert ascends). */
static uint32_t local_of(const srch *s, uint32_t v) {
  uint32_t lo = 0, hi = s->nl;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (s->vert[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo < s->nl && s->vert[lo] == v ? lo : NONE;
}

int cg_sview_remaining(const cg_sview *v, uint32_t vertex) {
  const srch *s = v->s;
  uint32_t l = local_of(s, vertex);
  return l != NONE && s->l2m[l] != NONE && BIT(remaining(s, level(s, v->d)), l);
}

uint32_t cg_sview_adj(const cg_sview *v, uint32_t vertex, int side, uint32_t *out) {
  const srch *s = v->s;
  uint32_t l = local_of(s, vertex), w, n = 0;
  const uint64_t *r;
  if (!cg_sview_remaining(v, vertex)) return 0;
  r = row(s, level(s, v->d), side, s->l2m[l]);
  for (w = 0; w < s->W; w++)
    for (uint64_t b = r[w]; b; b &= b - 1) out[n++] = s->vert[w * 64 + ctz(b)];
  return n;
}

uint32_t cg_sview_room(const cg_sview *v) { return v->s->nl; }
uint64_t cg_sview_cost(const cg_sview *v) { return v->cost; }

/* }==== */
