/* cg_linearize.c: the linearized graph of a built graph (Hovland, Norris,
 * Utke & Strout, sec. 1): the vertices on a path from an independent to a
 * dependent, edges weighted with the local partials of the operation table
 * (cg_gops.h). */
#include <math.h>
#include <string.h>

#include "cg_lin_impl.h"

/* {==== linearization ====} */

/* The table's partials (cg_gop_partials_inline) in this file: a static
 * function the compiler allocates registers across (a call out of the file
 * costs the node loop spills). */
static void gop_partials_rare(unsigned op, double c, const double *a, double r, double *d,
                              uint8_t *mk) {
  cg_gop_partials_inline(op, c, a, r, d, mk);
}

/* The local partials of operation op (its row's, cg_gop_partials) with the
 * commonest operations inline (Hovland, Norris, Utke & Strout, sec. 1: the
 * edge weights).  The inline cases copy their rows of cg_gops.h; a debug
 * build checks them against the rows (check_node). */
static inline void gop_partials(unsigned op, double c, const double *a, double r, double *d,
                                uint8_t *mk) {
  mk[0] = mk[1] = mk[2] = CG_E_VAR;
  d[0] = d[1] = d[2] = 0;
  switch (op) {
    case CG_G_COPY: d[0] = 1, mk[0] = CG_E_PLUS1; break;
    case CG_G_ADD: d[0] = d[1] = 1, mk[0] = mk[1] = CG_E_PLUS1; break;
    case CG_G_SUB: d[0] = 1, d[1] = -1, mk[0] = CG_E_PLUS1, mk[1] = CG_E_MINUS1; break;
    case CG_G_MUL: d[0] = a[1], d[1] = a[0]; break;
    case CG_G_MULC: d[0] = c, mk[0] = CG_E_CONST; break;
    default: gop_partials_rare(op, c, a, r, d, mk); break;
  }
}

/* What gop_partials reads of an operation besides its constant: its
 * operands (READS_A) and its result (READS_R), from the rows' reads column.
 * Indexed by any byte, so an operation code out of range reads nothing. */
#define READS_A CG_GR_A
#define READS_R CG_GR_R
#define SELECTS 4 /* CG_GF_SELECT: a partial 0 for the whole chain is no edge */
static const uint8_t part_reads[256] = {
#include "../graph/cg_gopx_begin.h"
#define CG_GOP_READS(id, nm, ar, hc, top, fl, rd, ...) \
  [CG_G_##id] = (rd) | ((fl) & CG_GF_SELECT ? SELECTS : 0),
    CG_GOPS(CG_GOP_READS)
#undef CG_GOP_READS
#include "../graph/cg_gopx_end.h"
};

/* The partials of node v's whole chain with respect to its nk children, of
 * values a[]: the first operation's partials times the derivative of each
 * later one.  The result of an operation is needed only where its partials,
 * or the next operation's (reading its operand), read it: results are
 * computed up to the last one needed, and the last operation's result is
 * val[v], which the build computed with the same operations on the same
 * values (cg_build.c), so bitwise what the chain would give.  A result no
 * partial reads is left 0. */
static void chain_partials(const cg_graph *gr, uint32_t v, const double *a, uint32_t nk,
                           double *d, uint8_t *mk) {
  const uint8_t *op = gr->op;
  const double *opc = gr->opc;
  uint32_t o = gr->op_start[v], last = gr->op_start[v + 1] - 1, upto = o, q, i;
  double r, dd[3];
  uint8_t m2[3];
  uint64_t sw = 0;
  for (q = o; q < last; q++) /* results o .. upto - 1 are computed */
    if ((part_reads[op[q]] & READS_R) || (part_reads[op[q + 1]] & READS_A)) upto = q + 1;
  r = o < upto ? cg_gop_apply_inline(op[o], opc[o], a, &sw) : o == last ? gr->val[v] : 0;
  gop_partials(op[o], opc[o], a, r, d, mk);
  for (q = o + 1; q <= last; q++) {
    double x[3] = {r, 0, 0}; /* a unary operation: room for what its inline cases may read */
    r = q < upto ? cg_gop_apply_inline(op[q], opc[q], x, &sw) : q == last ? gr->val[v] : 0;
    gop_partials(op[q], opc[q], x, r, dd, m2);
    for (i = 0; i < nk; i++) {
      d[i] *= dd[0];
      mk[i] = mark_prod(mk[i], m2[0]);
    }
  }
  if (part_reads[op[o]] & SELECTS) /* cond, condeq, min */
    for (i = 0; i < nk; i++) /* a structural zero stays out of the graph */
      if (d[i] == 0) mk[i] = 0xff;
}

/* {==== the debug check of the inline copies ====} */

/* CG_LIN_SKEW(x) wraps the partials the inline copies compute: x itself;
 * a test defines it to skew them and see check_node stop the run. */
#ifndef CG_LIN_SKEW
#define CG_LIN_SKEW(x) (x)
#endif

#ifndef NDEBUG
#include <stdio.h>
#include <stdlib.h>

/* Stops the run unless the partials d[0..nk) and marks mk[] that
 * node_vertices computed for node v (its inline copies, or chain_partials
 * with gop_partials') equal, bit for bit, the chain computed from the
 * operation table's functions alone (cg_gop(op)->value and ->partials), as
 * chain_partials defines it: so an inline copy cannot drift from its row. */
static void check_node(const cg_graph *gr, uint32_t v, uint32_t nk, const double *d,
                       const uint8_t *mk) {
  uint32_t o = gr->op_start[v], last = gr->op_start[v + 1] - 1, q, i;
  double a[3] = {0, 0, 0}, r, t[3], dd[3];
  uint8_t tm[3], m2[3];
  uint64_t sw = 0;
  for (i = 0; i < nk; i++) a[i] = gr->val[gr->kids[gr->kid_start[v] + i]];
  r = o == last ? gr->val[v] : cg_gop(gr->op[o])->value(gr->opc[o], a, &sw); /* as chain_partials */
  cg_gop(gr->op[o])->partials(gr->opc[o], a, r, t, tm);
  for (q = o + 1; q <= last; q++) {
    double x[3] = {r, 0, 0};
    r = q == last ? gr->val[v] : cg_gop(gr->op[q])->value(gr->opc[q], x, &sw);
    cg_gop(gr->op[q])->partials(gr->opc[q], x, r, dd, m2);
    for (i = 0; i < nk; i++) t[i] *= dd[0], tm[i] = mark_prod(tm[i], m2[0]);
  }
  for (i = 0; i < nk; i++) {
    if ((cg_gop(gr->op[o])->flags & CG_GF_SELECT) && t[i] == 0) tm[i] = 0xff;
    if (memcmp(&t[i], &d[i], sizeof t[i]) != 0 || tm[i] != mk[i]) {
      fprintf(stderr, "cg_linearize.c: node %lu (%s): partial %lu is %a mark %d, the operation "
              "table's %a mark %d\n", (unsigned long)v, cg_gop(gr->op[o])->name, (unsigned long)i,
              d[i], mk[i], t[i], tm[i]);
      abort(); /* a debug build only: an inline copy drifted from its row in cg_gops.h */
    }
  }
}
#endif

/* rel[v] bits: reached from an independent (REL_FROM), reaching a dependent
 * (REL_TO); a dependent once (REL_DEP1), more than once (REL_DEP2). */
#define REL_FROM 1
#define REL_TO 2
#define REL_ON_PATH 3
#define REL_DEP1 4
#define REL_DEP2 8
#define on_path(r) (((r) & REL_ON_PATH) == REL_ON_PATH)

/* Marks the nodes reaching a dependent (REL_TO, a pass from the parents to
 * the children) and counts the dependents' occurrences.  REL_FROM is left
 * to node_vertices, which goes the other way anyway: it needs it only for
 * the nodes reaching a dependent, whose children reach one too (Hovland, Norris, Utke & Strout
 * section 1: only the vertices on a path from an independent to a
 * dependent matter).  Returns a bound of the nodes kept as vertices: the
 * independents, the dependents, and the other nodes reaching a dependent
 * except the leaves (constants); a node that reaches a dependent and no
 * independent (made of constants alone) is counted but not kept.  A node
 * has at most three children (cg_graph.h): the commonest counts without a
 * loop. */
static uint32_t reaching(const cg_graph *gr, uint8_t *rel) {
  /* the graph's arrays in locals: the byte stores into rel may alias
   * anything, so gr's fields would be reloaded after each */
  const uint32_t *ks = gr->kid_start, *kids = gr->kids, *os = gr->op_start, *dep = gr->dep;
  const uint8_t *op = gr->op, *flags = gr->flags;
  uint32_t v, k, k0, k1, bound = 0, n = gr->n, nd = gr->n_dep;
  memset(rel, 0, n);
  for (k = 0; k < nd; k++) /* a node that is two dependents: each gets a copy (number_copies) */
    rel[dep[k]] |= rel[dep[k]] & REL_DEP1 ? REL_TO | REL_DEP2 : REL_TO | REL_DEP1;
  for (v = n, k0 = ks[n]; v-- > 0;) { /* parents first: rel[v] is final here */
    uint8_t r = rel[v];
    k1 = k0, k0 = ks[v];
    if (k0 == k1) /* a leaf: kept if an independent or a dependent (node_vertices) */
      bound += op[os[v]] == CG_G_INDEP || (flags[v] & CG_NF_DEP);
    else if (!(r & REL_TO))
      bound += (flags[v] & CG_NF_DEP) != 0;
    else if (k1 - k0 == 2) /* the commonest first, without a jump table */
      rel[kids[k0]] |= REL_TO, rel[kids[k0 + 1]] |= REL_TO, bound++;
    else
      for (bound++, k = k0; k < k1; k++) rel[kids[k]] |= REL_TO;
  }
  return bound;
}

/* Numbers the copy vertices, after the kept nodes (numbered in node order
 * as they are visited): one per dependent that needs one, a dependent
 * having a parent p with (rel[p] & mask) == mask (on a path: mask
 * REL_ON_PATH; REL_TO gives a bound before REL_FROM is known).  Returns the
 * vertex count. */
static uint32_t number_copies(const cg_graph *gr, const uint8_t *rel, uint32_t kept,
                              uint8_t mask, uint32_t *ycopy) {
  uint32_t j, k, nv = kept;
  for (j = 0; j < gr->n_dep; j++) {
    uint32_t d = gr->dep[j];
    int maximal = 1;
    for (k = gr->par_start[d]; k < gr->par_start[d + 1]; k++)
      if ((rel[gr->pars[k]] & mask) == mask) maximal = 0;
    if (maximal && !(rel[d] & REL_DEP2) && gr->op[gr->op_start[d]] != CG_G_INDEP)
      ycopy[j] = NONE;
    else
      ycopy[j] = nv++; /* Utke, Flattening Basic Blocks, sec. 6.2: a unit copy edge */
  }
  return nv;
}

/* The words of the block of a list of at most d ids and one more (an
 * elimination step adds its fill-in before it removes the eliminated
 * edges): block_words(d + 1), none for d = 0; small d from a table. */
static inline uint32_t list_words(uint32_t d) {
  static const uint8_t small[8] = {0, 2, 4, 4, 8, 8, 8, 8};
#if defined(__GNUC__) || defined(__clang__)
  /* the power of two above d (d < 2^31): 2^(1 + the index of d's top bit) */
  return d < 8 ? small[d] : 2u << (31 - __builtin_clz(d));
#else
  return d < 8 ? small[d] : block_words(d + 1);
#endif
}

/* An empty list with a block for d ids and one more, carved at the slab's
 * end (reserve_slab made room). */
static inline void carve_list(cg_lin *g, cg_adj *a, uint32_t d) {
  a->n = 0;
  a->cap = list_words(d);
  a->e = d ? g->slab + g->nslab : NULL;
  g->nslab += a->cap;
}

/* Room for the blocks node_vertices carves (block_words(d + 1) <= 2 (d + 1):
 * at most twice the children and parents of all nodes plus four words a
 * vertex; what is left over serves fill-in) and for the edges. */
static int reserve_slab(cg_lin *g, const cg_graph *gr) {
  uint64_t kids = gr->kid_start[gr->n], pars = gr->par_start[gr->n];
  uint64_t words = 2 * (kids + pars) + 4 * (uint64_t)g->nv;
  if (words >= NONE || kids + gr->n_dep >= NONE) return CG_ENOMEM;
  if (cg_lin_slab_grow(g, (size_t)words)) return CG_ENOMEM;
  return cg_lin_grow_edges(g, cg_lin_edge_room(kids + gr->n_dep));
}

/* The next edge, from the vertex of node c into vertex u (its in-list ie,
 * of ni ids so far), weighted wc and marked mc: node_vertices' locals. */
#define IN_EDGE(c, wc, mc)                                                    \
  do {                                                                        \
    uint32_t eid_ = ne++;                                                     \
    pin[eid_] = ni, ie[ni++] = eid_;                                          \
    tail[eid_] = vid[c], head[eid_] = u, w[eid_] = (wc), mark[eid_] = (mc);   \
  } while (0)

/* The vertices of the kept nodes, numbered in node order into vid[] (NONE
 * for the others), with their lists and edges; returns how many.  Children
 * come first: REL_FROM of a node reaching a dependent follows from its
 * children's (reaching), and so does whether it is kept.  The lists are
 * carved in vertex order (a CSR layout fill-in later spills out of): a node
 * on a path gets an in-edge at most per child and an out-edge at most per
 * parent (pars holds one per edge); the others get no edges.  Each child
 * on a path gives an in-edge weighted with the partial of the node's chain
 * (Hovland, Norris, Utke & Strout, sec. 1); parallel partials (x * x) are summed into one edge
 * as cg_lin_add would: only v's own children give edges into vid[v], so the
 * earlier children are the only ones to check, and only when two of them
 * are the same node.  The commonest chains (a first operation whose
 * partials read no value but the children's, or any unary one, then
 * operations of constant derivative) compute at most the first result and
 * keep their partials in registers; chain_partials does the others.  The
 * out-lists are filled last, in edge id order (the order the edges would
 * be pushed in as they are made): the loop over the nodes keeps fewer
 * arrays live, and the scattered pushes come together.  The arrays are in
 * locals: the stores through them may alias anything, so g's and gr's
 * fields would be reloaded after each. */
CG_NOINLINE /* inlined, its loop spilled more (callgrind, Bratu 40x80: +1.7%) */
static uint32_t node_vertices(cg_lin *g, const cg_graph *gr, uint8_t *rel, uint32_t *vid) {
  const uint32_t *ks = gr->kid_start, *kids = gr->kids, *ps = gr->par_start, *os = gr->op_start;
  const uint8_t *op = gr->op, *flags = gr->flags;
  const double *val = gr->val, *opc = gr->opc;
  cg_adj *in = g->in, *out = g->out;
  uint32_t *node = g->node, *tail = g->tail, *head = g->head;
  uint32_t *pin = g->pin, *pout = g->pout;
  double *w = g->w;
  uint8_t *mark = g->mark;
  uint32_t *sp = g->slab + g->nslab; /* the next block */
  uint32_t n = gr->n, v, u = 0, ne0 = g->ne, ne = ne0, k1 = ks[0], p1 = ps[0], o1 = os[0], i;
  for (v = 0; v < n; v++) { /* each start array read once: v's end is v + 1's start */
    const uint32_t *kid;
    uint32_t k0 = k1, p0 = p1, o = o1, nk, ci, co, q, j, ni, made[3], *ie;
    double a[3], d[3], d0, d1, d2;
    uint8_t mk[3], m0, m1, m2, rv = rel[v];
    uint32_t from; /* bit i: child i reached from an independent (a leaf: itself) */
    int simple;
    if ((v & CG_PROGRESS_MASK) == 0) cg_progress_at(gr->A, "linearizing", v, n);
    k1 = ks[v + 1], p1 = ps[v + 1], o1 = os[v + 1];
    nk = k1 - k0, kid = kids + k0;
    from = 0;
    if (rv & REL_TO) { /* REL_FROM of the children, final: they reach a dependent */
      if (nk == 2) /* the commonest first, without a jump table */
        from = (rel[kid[0]] & REL_FROM) | (uint32_t)(rel[kid[1]] & REL_FROM) << 1;
      else if (nk == 1)
        from = rel[kid[0]] & REL_FROM;
      else if (nk == 0)
        from = op[o] == CG_G_INDEP;
      else
        for (i = 0; i < nk; i++) from |= (uint32_t)(rel[kid[i]] & REL_FROM) << i;
    }
    if (!from) { /* off every path: a vertex if an independent or a dependent */
      if ((nk == 0 && op[o] == CG_G_INDEP) || (flags[v] & CG_NF_DEP)) {
        vid[v] = u;
        node[u] = v;
        in[u].e = out[u].e = NULL;
        in[u].n = in[u].cap = out[u].n = out[u].cap = 0;
        u++;
      } else {
        vid[v] = NONE;
      }
      continue;
    }
    rel[v] = rv | REL_FROM;
    vid[v] = u;
    node[u] = v;
    ci = list_words(nk), co = list_words(p1 - p0);
    ie = ci ? sp : NULL, sp += ci;
    out[u].e = co ? sp : NULL, out[u].n = 0, out[u].cap = co, sp += co;
    in[u].e = ie, in[u].cap = ci;
    if (!nk) {
      in[u++].n = 0;
      continue;
    }
    simple = 1, d0 = d1 = d2 = 0, m0 = m1 = m2 = CG_E_VAR;
    switch (op[o]) { /* gop_partials of the commonest first operations, without a call */
      case CG_G_COPY: d0 = 1, m0 = CG_E_PLUS1; break;
      case CG_G_ADD: d0 = d1 = 1, m0 = m1 = CG_E_PLUS1; break;
      case CG_G_SUB: d0 = 1, d1 = -1, m0 = CG_E_PLUS1, m1 = CG_E_MINUS1; break;
      case CG_G_MUL: d0 = val[kid[1]], d1 = val[kid[0]]; break;
      case CG_G_MULC: d0 = CG_LIN_SKEW(opc[o]), m0 = CG_E_CONST; break;
      default:
        if (nk == 1) { /* another unary operation: its partial as chain_partials takes it */
          double r = 0, dd[3];
          uint8_t mm[3];
          uint64_t sw = 0;
          a[0] = val[kid[0]], a[1] = a[2] = 0; /* (GCC cannot see that a unary row reads a[0] only) */
          if (part_reads[op[o]] & READS_R) /* its result: the node's value if it is the last */
            r = o1 - o == 1 ? val[v] : cg_gop_apply_inline(op[o], opc[o], a, &sw);
          gop_partials(op[o], opc[o], a, r, dd, mm);
          d0 = dd[0], m0 = mm[0];
        } else {
          simple = 0;
        }
        break;
    }
    for (q = o + 1; simple && q < o1; q++) { /* constant derivatives, as gop_partials' */
      double f;
      uint8_t m;
      switch (op[q]) {
        case CG_G_COPY: f = 1, m = CG_E_PLUS1; break;
        case CG_G_ADDC: f = 1, m = CG_E_PLUS1; break;
        case CG_G_RSUB: f = -1, m = CG_E_MINUS1; break;
        case CG_G_NEG: f = -1, m = CG_E_MINUS1; break;
        case CG_G_MULC: f = opc[q], m = CG_E_CONST; break;
        case CG_G_DIVC: f = 1 / opc[q], m = CG_E_CONST; break;
        default: simple = 0, f = 0, m = CG_E_VAR; break; /* unused: redone below */
      }
      /* all three, without a loop: the partials stay in registers (those
       * past nk are never read) */
      d0 *= f, d1 *= f, d2 *= f;
      m0 = mark_prod(m0, m), m1 = mark_prod(m1, m), m2 = mark_prod(m2, m);
    }
    if (!simple) { /* the whole chain again (every partial rewritten) */
      for (i = 0; i < nk; i++) a[i] = val[kid[i]];
      chain_partials(gr, v, a, nk, d, mk);
      d0 = d[0], d1 = d[1], d2 = d[2], m0 = mk[0], m1 = mk[1], m2 = mk[2];
    }
#ifndef NDEBUG
    d[0] = d0, d[1] = d1, d[2] = d2, mk[0] = m0, mk[1] = m1, mk[2] = m2;
    check_node(gr, v, nk, d, mk);
#endif
    /* a child on a path gives an edge: v is on a path, so the child reaches
     * a dependent (reaching), and is on a path if reached from an
     * independent (bit i of from) */
    ni = 0;
    if (nk == 1 || (nk == 2 && kid[0] != kid[1])) { /* distinct children: an edge each */
      if ((from & 1) && m0 != 0xff) IN_EDGE(kid[0], d0, m0);
      if ((from & 2) && m1 != 0xff) IN_EDGE(kid[1], d1, m1);
    } else {
      d[0] = d0, d[1] = d1, d[2] = d2, mk[0] = m0, mk[1] = m1, mk[2] = m2;
      for (i = 0; i < nk; i++) {
        uint32_t c = kid[i];
        made[i] = NONE;
        if (!(from >> i & 1) || mk[i] == 0xff) continue;
        for (j = 0; j < i && (made[j] == NONE || kid[j] != c); j++) continue;
        if (j < i) { /* as cg_lin_add sums into an edge it finds */
          w[made[j]] += d[i];
          mark[made[j]] = mark_sum(mark[made[j]], mk[i]);
          continue;
        }
        made[i] = ne;
        IN_EDGE(c, d[i], mk[i]);
      }
    }
    in[u++].n = ni;
  }
  for (i = ne0; i < ne; i++) { /* the out-lists, in edge id order */
    cg_adj *o = &out[tail[i]];
    pout[i] = o->n;
    o->e[o->n++] = i;
  }
  g->nslab = (size_t)(sp - g->slab);
  g->ne = ne;
  g->nedges += ne - ne0;
  return u;
}
#undef IN_EDGE

/* Cuts the vertex arrays of g down to nv vertices (fewer than the bound
 * they were allocated for): new arrays, so that a failure (CG_ENOMEM)
 * leaves g as it was, and cg_lin_free frees each at the size it has. */
static int fit_vertices(cg_lin *g, uint32_t nv) {
  uint8_t *kind = CG_NEW(g->A, uint8_t, nv);
  uint32_t *node = CG_NEW(g->A, uint32_t, nv);
  cg_adj *in = CG_NEW(g->A, cg_adj, nv), *out = CG_NEW(g->A, cg_adj, nv);
  if (!kind || !node || !in || !out) {
    CG_FREE(g->A, kind, uint8_t, nv), CG_FREE(g->A, node, uint32_t, nv);
    CG_FREE(g->A, in, cg_adj, nv), CG_FREE(g->A, out, cg_adj, nv);
    return CG_ENOMEM;
  }
  memcpy(kind, g->kind, nv), CG_FREE(g->A, g->kind, uint8_t, g->nv), g->kind = kind;
  memcpy(node, g->node, (size_t)nv * 4), CG_FREE(g->A, g->node, uint32_t, g->nv), g->node = node;
  memcpy(in, g->in, nv * sizeof(cg_adj)), CG_FREE(g->A, g->in, cg_adj, g->nv), g->in = in;
  memcpy(out, g->out, nv * sizeof(cg_adj)), CG_FREE(g->A, g->out, cg_adj, g->nv), g->out = out;
  g->nv = nv;
  return CG_OK;
}

/* The workspace of cg_lin_from_graph: per node, its relation (REL_*) and
 * vertex; per dependent, its copy vertex and its vertex; per independent,
 * its vertex. */
typedef struct lin_work {
  const cg_graph *gr;
  uint8_t *rel;
  uint32_t *vid, *ycopy, *ys, *xs;
} lin_work;

/* Frees the workspace and returns g, or frees g too and returns NULL when
 * ok is 0 (the one exit of cg_lin_from_graph, as CSparse's cs_done). */
static cg_lin *lin_done(lin_work *W, cg_lin *g, int ok) {
  const cg_graph *gr = W->gr;
  CG_FREE(gr->A, W->rel, uint8_t, gr->n), CG_FREE(gr->A, W->vid, uint32_t, gr->n);
  CG_FREE(gr->A, W->ycopy, uint32_t, gr->n_dep), CG_FREE(gr->A, W->ys, uint32_t, gr->n_dep);
  CG_FREE(gr->A, W->xs, uint32_t, gr->n_indep);
  if (ok) return g;
  cg_lin_free(g);
  return NULL;
}

/* The dependents' copy vertices (Utke, Flattening Basic Blocks, sec. 6.2)
 * with their unit edges, and the independents and dependents of g. */
static int add_copies(cg_lin *g, lin_work *W, cg_error *e) {
  const cg_graph *gr = W->gr;
  uint32_t j, *ycopy = W->ycopy;
  for (j = 0; j < gr->n_dep; j++)
    if (ycopy[j] != NONE) { /* all lists valid before add_new may move the slab */
      carve_list(g, &g->in[ycopy[j]], 1);
      carve_list(g, &g->out[ycopy[j]], 0);
    }
  for (j = 0; j < gr->n_dep; j++) {
    W->ys[j] = ycopy[j] == NONE ? W->vid[gr->dep[j]] : ycopy[j];
    if (ycopy[j] != NONE) {
      g->node[ycopy[j]] = gr->dep[j];
      if (cg_lin_add_new(g, W->vid[gr->dep[j]], ycopy[j], 1.0, CG_E_PLUS1) == NONE)
        return cg_seterr(e, CG_ENOMEM, "out of memory");
    }
  }
  for (j = 0; j < gr->n_indep; j++) W->xs[j] = W->vid[gr->indep[j]];
  return cg_lin_set_xy(g, W->xs, gr->n_indep, W->ys, gr->n_dep, e);
}

/* Two passes over the nodes (Hovland, Norris, Utke & Strout, sec. 1): reaching marks the nodes
 * reaching a dependent, node_vertices the rest on its way.  The vertex
 * arrays are allocated before the count is known, for a bound of it, which
 * is the count unless some node made of constants alone reaches a
 * dependent: then fit_vertices cuts them down. */
cg_lin *cg_lin_from_graph(const cg_graph *gr, cg_error *e) {
  lin_work W;
  uint32_t nv, kept;
  cg_lin *g;
  if (!gr->has_val)
    return cg_seterr(e, CG_EUSAGE, "linearizing needs the values of the independents; give --at"),
           NULL;
  W.gr = gr;
  W.rel = CG_NEW(gr->A, uint8_t, gr->n), W.vid = CG_NEW(gr->A, uint32_t, gr->n);
  W.ycopy = CG_NEW(gr->A, uint32_t, gr->n_dep), W.ys = CG_NEW(gr->A, uint32_t, gr->n_dep);
  W.xs = CG_NEW(gr->A, uint32_t, gr->n_indep);
  if (!W.rel || !W.vid || !W.ycopy || !W.ys || !W.xs)
    return cg_seterr(e, CG_ENOMEM, "out of memory"), lin_done(&W, NULL, 0);
  kept = reaching(gr, W.rel);
  /* a bound: the count once REL_FROM is known */
  nv = number_copies(gr, W.rel, kept, REL_TO, W.ycopy);
  if (nv < kept) /* more vertices than ids */
    return cg_seterr(e, CG_ENOMEM, "out of memory"), lin_done(&W, NULL, 0);
  if (!(g = cg_lin_alloc(gr->A, nv, 0, e))) return lin_done(&W, NULL, 0); /* lists, nodes: below */
  if (reserve_slab(g, gr)) return cg_seterr(e, CG_ENOMEM, "out of memory"), lin_done(&W, g, 0);
  kept = node_vertices(g, gr, W.rel, W.vid);
  cg_progress_end(gr->A, "linearizing", gr->n);
  nv = number_copies(gr, W.rel, kept, REL_ON_PATH, W.ycopy);
  if (nv != g->nv && fit_vertices(g, nv))
    return cg_seterr(e, CG_ENOMEM, "out of memory"), lin_done(&W, g, 0);
  return lin_done(&W, g, add_copies(g, &W, e) == CG_OK);
}
