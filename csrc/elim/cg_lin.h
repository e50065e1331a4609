/*
 * cg_lin.h: linearized computational graphs and Jacobian accumulation by
 * elimination (Hovland, Norris, Utke & Strout, sec. 1, Utke, Flattening Basic Blocks, sec. 1).
 *
 * A linearized graph is a DAG whose edges carry the local partial
 * derivatives.  Vertices 0..nv-1 are in topological order (every edge goes
 * from a smaller to a larger id); x[0..n) are the independents, y[0..m) the
 * dependents, in tape order.  Independents have no in-edges; dependents have
 * no out-edges (a dependent that is not maximal, or an independent that is
 * also a dependent, gets a unit copy vertex, Utke, Flattening Basic Blocks, sec. 6.2).
 *
 * The graph is mutable: eliminations delete vertices and edges and add
 * fill-in.  Adjacency is kept per vertex as two lists of edge ids (in and
 * out); edges live in a pool with a free list (the most recently freed id is
 * reused first).  Invariants: an edge id appears exactly once in out[tail]
 * and once in in[head] while alive; at most one edge joins two vertices
 * (parallel partials are summed when linearizing); removed vertices have
 * empty lists.  Appending puts an id at the end of a list, removing one moves
 * the list's last id into its place: so the order inside each list, which
 * decides the ids of fill-in edges and the order of edge and face candidates,
 * is a function of the sequence of operations alone.  pin and pout give
 * each alive edge's place in its two lists, so a removal is O(1).
 *
 * Storage of the lists (cg_lin.c): every list of a graph is a block of the
 * graph's one slab array, cap = 2^c words (c >= 1) or no block (cap = 0,
 * e = NULL); a list that fills up moves to a block twice as large and its
 * old block joins the free chain of its size (threaded through the free
 * blocks' first words as slab offsets); an eliminated vertex's blocks go
 * there too.  A linearized graph (and a copy) is laid out in vertex order,
 * each block sized to a bound of the list's degree plus one, as a step adds
 * its fill-in before it removes the eliminated edges: a CSR layout that
 * fill-in later spills out of.  The slab may move when it grows, so a list's
 * e is valid only until the next edge is added.  One allocation per graph
 * instead of one per list, and no free() per list.
 */
#ifndef CG_LIN_H
#define CG_LIN_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include "../graph/cg_graph.h"

/* What is known of an edge's weight without its value: the marks of the
 * operation table's partials (cg_gops.h), which the linearizer copies. */
enum {
  CG_E_VAR = CG_PM_VAR, CG_E_CONST = CG_PM_CONST, CG_E_PLUS1 = CG_PM_PLUS1,
  CG_E_MINUS1 = CG_PM_MINUS1
};

/* Vertex kinds */
enum { CG_V_INTER = 0, CG_V_INDEP = 1, CG_V_DEP = 2, CG_V_GONE = 3 };

/* A list of edge (or face) ids.  In a cg_lin: a block of its slab (above);
 * elsewhere (cg_face.c) grown by cg_adj_push with its own allocation. */
typedef struct cg_adj {
  uint32_t *e;       /* edge ids */
  uint32_t n, cap;
} cg_adj;

/* One change of an elimination step, to undo it if the step runs out of
 * memory halfway (so a refused step leaves the graph unchanged). */
typedef struct cg_undo {
  double w;
  uint32_t eid;
  uint8_t mark, created;
} cg_undo;

typedef struct cg_lin {
  cg_alloc *A;
  uint32_t nv, n, m;     /* vertices, independents, dependents */
  uint32_t *x, *y;       /* vertex of independent i / dependent j */
  uint8_t *kind;         /* CG_V_* per vertex */
  uint32_t *node;        /* graph node a vertex comes from (or UINT32_MAX) */
  cg_adj *in, *out;
  uint32_t *slab;        /* every list's block (above) */
  size_t nslab, capslab; /* words used (blocks carved), allocated */
  uint32_t sfree[32];    /* first free block of 2^c words (slab offset) or UINT32_MAX */
  /* edge pool */
  uint32_t *tail, *head;
  uint32_t *pin, *pout;  /* where an edge sits: in[head].e[pin], out[tail].e[pout] */
  double *w;
  uint8_t *mark;         /* CG_E_* */
  uint32_t ne, ecap, nfree, *efree; /* pool size, free ids */
  uint64_t nedges;       /* alive */
  int has_w;             /* weights known (else structure only) */
  cg_undo *undo;         /* the step in progress (cg_lin.c) */
  size_t nundo, capundo;
  uint32_t *vmark;       /* 2 per vertex: stamp and slot of the lookups of large steps (or NULL) */
  uint32_t epoch;        /* stamp of the current lookup in vmark */
} cg_lin;

/* Lists outside a cg_lin (cg_face.c's line graph): append (CG_ENOMEM leaves
 * the list unchanged; the block is the caller's, freed with cg_free at cap
 * words) and remove one occurrence (the last id takes its place). */
int cg_adj_push(cg_alloc *A, cg_adj *a, uint32_t id);
void cg_adj_drop(cg_adj *a, uint32_t id);

cg_lin *cg_lin_new(cg_alloc *A, uint32_t nv, cg_error *e);
void cg_lin_free(cg_lin *g);
cg_lin *cg_lin_copy(const cg_lin *g, cg_error *e);

/* Adds w to edge (i, k), creating it if absent; returns its id or
 * UINT32_MAX on out-of-memory.  *created is set when it was new. */
uint32_t cg_lin_add(cg_lin *g, uint32_t i, uint32_t k, double w, uint8_t mark, int *created);
/* The edge (i, k), or UINT32_MAX. */
uint32_t cg_lin_find(const cg_lin *g, uint32_t i, uint32_t k);
/* Removes an edge. */
void cg_lin_remove(cg_lin *g, uint32_t eid);
/* Sets the independents and dependents (copied) and the vertex kinds. */
int cg_lin_set_xy(cg_lin *g, const uint32_t *x, uint32_t n, const uint32_t *y, uint32_t m,
                  cg_error *e);

/* The linearized graph of a built graph at its values (cg_linearize.c;
 * Hovland, Norris, Utke & Strout, sec. 1):
 * one vertex per graph node that lies on a path from an independent to a
 * dependent, edge weights the local partials with each supernode's chain
 * folded into one weight per input. */
cg_lin *cg_lin_from_graph(const cg_graph *gr, cg_error *e);

/* Checks the invariants (for tests); CG_OK or CG_ERUNTIME with a message. */
int cg_lin_check(const cg_lin *g, cg_error *e);

/* The .cg format (cg_lin_io.c): parse from memory (name for messages), write. */
cg_lin *cg_lin_read_cg(cg_alloc *A, const char *name, const char *buf, size_t len, cg_error *e);
int cg_lin_write_cg(const cg_lin *g, FILE *fp);
int cg_lin_write_dot(const cg_lin *g, FILE *fp);

/* {==== Jacobians (cg_jac.c) ====} */

/* A sparse matrix in coordinate form, rows = dependents, sorted by (row, col). */
typedef struct cg_jac {
  uint32_t m, n;
  uint64_t nnz;
  uint32_t *row, *col;
  double *val;
} cg_jac;
void cg_jac_free(cg_alloc *A, cg_jac *J);

/* The Jacobian by a forward (tangent) sweep over the linearized graph,
 * independent by independent: the reference the eliminations are checked
 * against.  Cost O(n * edges). */
int cg_lin_jac_forward(const cg_lin *g, cg_jac *J, cg_error *e);
/* The same by reverse (adjoint) sweeps, dependent by dependent. */
int cg_lin_jac_reverse(const cg_lin *g, cg_jac *J, cg_error *e);
/* The Jacobian read off a graph whose intermediates are all eliminated. */
int cg_lin_jac_bipartite(const cg_lin *g, cg_jac *J, cg_error *e);

/* {==== eliminations ====} */

/* Operation counts of an elimination run.  mults counts every product of two
 * edge weights (structural); mults_nontrivial leaves out products with a +1
 * or -1 edge (free, at most a sign change); adds counts accumulations into
 * an existing edge; fill counts edges created. */
typedef struct cg_cost {
  uint64_t mults, mults_nontrivial, adds, fill, steps, peak_edges;
} cg_cost;

/* Eliminates intermediate vertex v (Hovland, Norris, Utke & Strout, sec. 1): for every in-edge
 * (i, v) and out-edge (v, k), w(i, k) += w(i, v) * w(v, k); then v and its
 * edges go.  Counts into c (may be NULL). */
int cg_lin_elim_vertex(cg_lin *g, uint32_t v, cg_cost *c, cg_error *e);
/* Front-eliminates edge (i, j): for every out-edge (j, k),
 * w(i, k) += w(i, j) * w(j, k); the edge goes; j goes if left without in-edges. */
int cg_lin_elim_front(cg_lin *g, uint32_t eid, cg_cost *c, cg_error *e);
/* Back-eliminates edge (j, k): for every in-edge (i, j), w(i, k) += w(i, j) * w(j, k). */
int cg_lin_elim_back(cg_lin *g, uint32_t eid, cg_cost *c, cg_error *e);

/* Ordering rules.  A rule is a row of the registry of orderings
 * (cg_order.h: name, score functions, what it needs), named by its index;
 * the built-in rows have these names (the registry places each row at its
 * name's index; rows added there need no name here).  CG_ORD_CALLBACK is a
 * score function of the caller instead.  A rule scores candidates (lower is
 * eliminated first); ties go to the next rule of a chain, and finally to
 * the highest vertex id (toward reverse mode, as ANGEL breaks them). */
enum {
  CG_ORD_FORWARD, CG_ORD_REVERSE, CG_ORD_MARKOWITZ, CG_ORD_REL_MARKOWITZ,
  CG_ORD_MIN_FILL, CG_ORD_LMMD, CG_ORD_MOMR, CG_ORD_RANDOM
};
#define CG_ORD_CALLBACK (-1)

/* A score callback (a Lua function, through the binding): returns the score
 * of vertex v; nonzero *err stops the run. */
typedef double (*cg_score_fn)(void *ud, const cg_lin *g, uint32_t v, int *err);

typedef struct cg_rule {
  int kind;            /* a row of the registry (CG_ORD_*) or CG_ORD_CALLBACK */
  cg_score_fn fn;      /* for CG_ORD_CALLBACK */
  void *ud;
  int radius;          /* neighbourhood whose scores an elimination changes (callback) */
} cg_rule;

#define CG_MAX_RULES 4
typedef struct cg_order {
  cg_rule rule[CG_MAX_RULES];
  int nrules;
  int lowest_first;    /* final tie-break: 1 = lowest id first, 0 = highest (default) */
  uint64_t seed;       /* for rules that need one (CG_ORD_RANDOM) */
} cg_order;

/* Eliminates every intermediate vertex in the order the rules choose.
 * order_out (nv entries, may be NULL) receives the sequence; *nout its length. */
int cg_lin_eliminate(cg_lin *g, const cg_order *o, cg_cost *c, uint32_t *order_out,
                     uint32_t *nout, cg_error *e);
/* Eliminates the given vertices in the given order (replay). */
int cg_lin_eliminate_seq(cg_lin *g, const uint32_t *seq, uint32_t len, cg_cost *c,
                         cg_error *e);
/* The proven minimum of structural multiplications over all vertex
 * elimination orders, by dynamic programming over subsets of each connected
 * component of intermediates (components of at most max_comp vertices; else
 * CG_EUSAGE).  The optimal order goes to order_out. */
int cg_lin_exact(const cg_lin *g, uint32_t max_comp, uint64_t *best, uint32_t *order_out,
                 uint32_t *nout, cg_error *e);

/* The connected component of intermediate v (joined through edges between
 * intermediates), breadth first from v: its vertices go to members, each
 * marked in seen (nv bytes, v's unmarked on entry); returns their number.
 * Components never touch each other's costs (cg_exact.c), so the exact
 * eliminations solve them one by one. */
uint32_t cg_lin_component(const cg_lin *g, uint32_t v, uint8_t *seen, uint32_t *members);

/* Markowitz degree |in(v)| * |out(v)|. */
uint64_t cg_lin_markowitz(const cg_lin *g, uint32_t v);

/* {==== edge and face elimination (cg_edge.c, cg_face.c) ====} */

/* A growable list of elimination steps, CG_STEP_WIDTH uint32 per step: for
 * edges (tail, head, 1 if back else 0, 0, 0); for faces (i, j, k, ra, rb),
 * the face joining the line-graph vertices (i, j) and (j, k), where ra and
 * rb say which ones when the line graph holds several vertices of the same
 * label: the 0-based rank of (i, j) among the live vertices labelled (i, j)
 * in the order of bytail[i], and of (j, k) in bytail[j] (a fill vertex that
 * absorption could not merge has the label of one that exists).  The ranks
 * are a function of the steps done, so a replay finds the same vertices.
 * Free with cg_steps_free. */
#define CG_STEP_WIDTH 5
typedef struct cg_steps {
  uint32_t *a;
  size_t n, cap;   /* n steps; cap in uint32 */
} cg_steps;
void cg_steps_free(cg_alloc *A, cg_steps *s);
int cg_steps_push(cg_alloc *A, cg_steps *s, uint32_t a, uint32_t b, uint32_t c);
int cg_steps_push_face(cg_alloc *A, cg_steps *s, uint32_t i, uint32_t j, uint32_t k,
                       uint32_t ra, uint32_t rb);

/* Edge and face orderings take the rules of the same registry (the rows
 * that serve the mode); lower score first, ties to the next rule, finally
 * toward reverse mode unless lowest_first. */

/* A score callback for an edge or face candidate: for an edge (i, j) front
 * eliminated, (i, j, CG_NOV, 0); back eliminated, (i, j, CG_NOV, 1); for a
 * face, (i, j, k, 0) with j the vertex in the middle.  Nonzero *err stops. */
#define CG_NOV UINT32_MAX
typedef double (*cg_xscore_fn)(void *ud, uint32_t i, uint32_t j, uint32_t k, int back,
                               int *err);

typedef struct cg_xrule {
  int kind;            /* a row of the registry (CG_ORD_*) or CG_ORD_CALLBACK */
  cg_xscore_fn fn;
  void *ud;
} cg_xrule;

typedef struct cg_xorder {
  cg_xrule rule[CG_MAX_RULES];
  int nrules;
  int sides;           /* edges: 1 front only, 2 back only, 3 both (0 = 3) */
  int lowest_first;    /* final tie-break toward forward mode */
  uint64_t seed;       /* for rules that need one (CG_ORD_RANDOM) */
} cg_xorder;

/* Edge elimination (front and back, Hovland, Norris, Utke & Strout, sec. 1 generalised): until
 * no intermediate is left, eliminates the candidate edge the rules rank
 * first.  A front candidate (i, j) has j intermediate, a back candidate
 * (j, k) has j intermediate.  Scores: forward 2j + back (front first, lowest
 * j: forward mode), reverse -(2j + back) (back first, highest j: reverse
 * mode), markowitz the edge's Markowitz degree (front: |out(j)|, back:
 * |in(j)|, the multiplications it costs), relative-markowitz the same less
 * the dependents (front) or independents (back) j reaches, min-fill the
 * edges it creates.  Only candidates incident to the vertices a step touched
 * are rescored: O(sum of touched degrees * log E) per step.  steps may be
 * NULL. */
int cg_lin_eliminate_edges(cg_lin *g, const cg_xorder *o, cg_cost *c, cg_steps *steps,
                           cg_error *e);

/* Face elimination on the directed line graph (Naumann 2004).  The line graph has a vertex per edge of g plus one
 * source vertex per independent and one sink vertex per dependent; a face is a
 * pair of adjacent line vertices ((i, j), (j, k)).  Eliminating a face with j
 * intermediate multiplies the two weights and either adds the product into
 * a vertex (i, k) with the same predecessors and successors (absorption) or
 * creates a new vertex (fill); a vertex left without predecessors or
 * successors goes.  When no intermediate face is left, g is replaced by the
 * bipartite graph read off the line graph (parallel (i, k) vertices summed,
 * counted as additions).  Scores: forward j, reverse -j, markowitz
 * |pred(i, j)| * |succ(j, k)| (the faces the new vertex would carry),
 * min-fill 0 if the product would be absorbed else 1. */
int cg_lin_eliminate_faces(cg_lin *g, const cg_xorder *o, cg_cost *c, cg_steps *steps,
                           cg_error *e);

/* Replays face eliminations (i, j, k) (steps->n of them) and reads off the
 * bipartite graph as cg_lin_eliminate_faces does; a face must exist.  An
 * order that leaves faces is completed by the forward rule. */
int cg_lin_replay_faces(cg_lin *g, const cg_steps *seq, cg_cost *c, cg_error *e);

/* {==== EliAD format (ANGEL's read_graph_eliad) ====} */

/* Parses an EliAD graph: a first line holding the number of vertices
 * ("n = 9"), a line "CG = [", then one line "target source triviality" per
 * edge (1-based), and a line with "]".  Vertices without in-edges are the
 * independents, without out-edges the dependents, in id order.  Triviality 1
 * reads as a +1 edge, anything else as a variable one; the graph is
 * structural (weights 1). */
cg_lin *cg_lin_read_eliad(cg_alloc *A, const char *name, const char *buf, size_t len,
                          cg_error *e);
/* Writes g in EliAD format: intermediates with edges only; +1 edges as
 * triviality 1, others 2.  Independents must be sources and dependents sinks
 * of g, as the format cannot say otherwise (else CG_EUSAGE). */
int cg_lin_write_eliad(const cg_lin *g, FILE *fp, cg_error *e);

/* {==== scale: what an elimination will cost, from cheap counts ====} */

/* Counts of g that bound what an elimination costs before it runs
 * (doc/elimination.md, "What each ordering costs"; cg_scale.c).  X(v) are
 * the independents with a path to v, Y(v) the dependents v reaches.  In
 * forward order every intermediate predecessor of v is gone when v is
 * eliminated, so its in-edges are exactly X(v): vertex forward costs
 * sum |X(v)| out(v) multiplications and leaves up to sum |X(v)| fill edges
 * (reverse: sum |Y(v)| in(v)).  The reach counts take O(E n / 64) word
 * operations; past `work` of them (0: no cap) the rest of the sources are
 * skipped and `partial` is set: every reach figure is then a lower bound. */
typedef struct cg_lin_scale {
  uint64_t inter, edges;           /* intermediates, edges alive */
  double markowitz_sum;            /* sum in(v) out(v) over intermediates */
  uint32_t max_markowitz;          /* the largest of them */
  uint32_t max_degree;             /* the largest in- or out-degree of any vertex */
  double forward_mults, reverse_mults; /* vertex forward's, reverse's multiplications */
  double forward_fill, reverse_fill;   /* sum |X(v)|, sum |Y(v)| over intermediates */
  uint32_t components, max_component; /* of the intermediates (edges between them) */
  int partial;                     /* the reach counts stopped at `work` */
} cg_lin_scale;
int cg_lin_scale_counts(const cg_lin *g, double work, cg_lin_scale *s, cg_error *e);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
