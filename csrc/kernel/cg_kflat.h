/*
 * cg_kflat.h: flattening of the basic blocks of a kernel function into term
 * graphs (Utke, Flattening Basic Blocks, sec. 3 Algorithm 1, sec. 6
 * Algorithm 2 and sec. 6.2; doc/flattening.md says where cgwb departs from
 * the printed pseudo-code and why).
 *
 * Input: the alias analysis and ud/du-chains of one function (cg_kalias,
 * cg_kchains), its control flow graph (cg_kcfg) and optionally its activity
 * (cg_kactive: then statements that are not active are passive, "pruned").
 * A double use is passive when no independent's value may reach it (every
 * entry of its ud-chain a statement that carries none, or the value from
 * before the function in a set holding no independent: with activity none
 * of its independents, without it no parameter, pointer parameter's region
 * or global); a passive use is no vertex but a constant of the graph, read
 * in place (Hovland, Norris, Utke & Strout, sec. 4; doc/flattening.md,
 * "Passive values").  A statement is an active assignment when it assigns a
 * double, or is `return e;` of a double e (an assignment to the dependent
 * "return"), and its right-hand side has a vertex input (a double read
 * through double operations) that is not passive (with activity: and it is
 * active); else it is passive: int and pointer arithmetic, constant and
 * passive assignments, returns of no double or of a passive value, calls.
 *
 * Each block's active assignments are cut into subgraphs, each a run of
 * consecutive active assignments of the block:
 *  - CG_KFLAT_MINIMAL: Algorithm 2, a run grows while every use of the next
 *    statement is unambiguous in it (its ud-chain, restricted to the block,
 *    is either one statement of the run alone, or holds no statement of the
 *    run and no passive statement inside the run's span); since a suffix of
 *    a legal run is legal, growing greedily gives the fewest runs;
 *  - CG_KFLAT_STATEMENT: one subgraph per active assignment;
 *  - a decision hook (cg_kflat_run_hook): the caller chooses at each
 *    statement that could join, told whether joining is legal and why not;
 *    an illegal join is refused.
 * Passive statements inside a run's span are run between the subgraphs'
 * executions; one that reads a double the run defines, writes a double the
 * run may define, or is a call, ends the run before it.
 *
 * Semantics of a subgraph (what "executing the subgraphs in order equals
 * executing the block" means): its independent vertices read memory when
 * the run starts (before its first statement), its dependents are written
 * when it ends, in statement order (so two dependents that may share a
 * cell leave the later one's value), passive statements of the span run in
 * place.
 *
 * Representation (index arrays, 0-based, every array owned):
 *  - blocks 0..nblock-1: the CFG's BLOCK vertices in source order
 *    (block_vertex), active assignments st[block_st0[b] .. block_st0[b+1])
 *    and subgraphs block_g0[b] .. block_g0[b+1]-1;
 *  - st[i]: statement ids of the active assignments, in block order;
 *    st_dead[i]: its definition reaches no use nor the exit (reported);
 *    nst_pruned: assignments left out because activity said inactive;
 *  - subgraph g: active assignments st[g_st0[g] .. g_st0[g+1]), vertices
 *    g_v0[g] .. g_v0[g+1]-1, edges g_e0[g] .. g_e0[g+1]-1, dependents
 *    g_d0[g] .. g_d0[g+1]-1, reads g_r0[g] .. g_r0[g+1]-1;
 *  - read i: a double use r_expr[i] that is an argument of a vertex (or a
 *    right-hand side of its own), the vertex r_vertex[i] it reads, and
 *    r_def[i] the statement of the subgraph defining it (-1: an independent,
 *    possibly identified with an earlier use by Algorithm 1);
 *  - vertex v: v_kind (CG_KFV_*), v_expr the expression it comes from
 *    (the use for an independent: the first of the identified uses), v_acc
 *    the access of an independent (-1 otherwise), v_stmt its statement;
 *    vertices of a subgraph are in topological order;
 *  - edge i: e_src[i] -> e_dst[i] (vertex ids), e_pos[i] the argument slot
 *    (0, 1, 2) of the operation at e_dst;
 *  - dependent i: d_stmt[i] the assignment, d_vertex[i] its value's vertex
 *    (the maximal vertex of its right-hand side), d_acc[i] its definition
 *    access, d_aug[i] 1 when the vertex has successors in the subgraph (not
 *    maximal: sec. 6.2 adds a unit edge to an augmented vertex, reported
 *    apart, never a member of the vertices), d_collapsed[i] 1 when the vertex
 *    is an independent (`y = x`: Fig. 6c's collapsed vertex);
 *  - a return: a dependent of its subgraph always (its value leaves the
 *    function), d_acc -1, never dead, named "return";
 *  - names (cg_kflat_name): an access as the source's reader sees it, `x`,
 *    `p[k+1]` over the entry values of int parameters; the function's
 *    independents and dependents are those cg_kflat_outside and
 *    cg_kflat_observable accept (a return's dependent among them).
 */
#ifndef CG_KFLAT_H
#define CG_KFLAT_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif
#include "cg_kactive.h"
#include "cg_kcfg.h"
#include "../graph/cg_gbuild.h"

/* The built-in split strategies, one row each: id (CG_KFLAT_<id>) and name
 * (what --split, core.kernel_flatten's strategy and
 * core.kernel_layout().split_strategies give; the first is the default).
 * cg_kflat.c gives each its cut function, cut_<name>, which says at each
 * active assignment that could join the open subgraph whether a new one
 * starts there; the engine cuts anyway where joining would change the
 * results, so every strategy is legal.  A new row goes above the comment
 * that ends the table (doc/hacking.md, "Adding a split strategy"). */
#define CG_KFLAT_STRATEGIES(X) \
  X(MINIMAL, minimal)          \
  X(STATEMENT, statement)      \
  /* (the end of the table: a new row goes above this line) */
enum {
#define CG_KFS_ENUM(id, nm) CG_KFLAT_##id,
  CG_KFLAT_STRATEGIES(CG_KFS_ENUM)
#undef CG_KFS_ENUM
  CG_KFLAT_NSTRATEGY
};
enum { CG_KFV_INDEP, CG_KFV_OP, CG_KFV_INTRIN, CG_KFV_COUNT };

typedef struct cg_kflat {
  cg_alloc *A;
  const cg_kalias *al;
  const cg_kchains *ch;             /* the chains it was run with (names, function lists) */
  const cg_kactive *ac;             /* its activity, NULL: none */
  int strategy;
  uint32_t nblock, nst, ng, nv, ne, nd, nst_pruned;
  int32_t *block_vertex;            /* nblock */
  uint32_t *block_st0, *block_g0;   /* nblock + 1 */
  int32_t *st;                      /* nst */
  uint8_t *st_dead;                 /* nst */
  uint32_t *g_st0, *g_v0, *g_e0, *g_d0, *g_r0; /* ng + 1 */
  int32_t *v_kind, *v_expr, *v_acc, *v_stmt; /* nv */
  uint32_t *e_src, *e_dst;          /* ne */
  uint8_t *e_pos;                   /* ne */
  int32_t *d_stmt, *d_acc;          /* nd */
  uint32_t *d_vertex;               /* nd */
  uint8_t *d_aug, *d_collapsed;     /* nd */
  uint32_t nr;                      /* reads: the double uses wired into vertices */
  int32_t *r_expr, *r_def;          /* nr: the use; its defining statement, -1 independent */
  uint32_t *r_vertex;               /* nr: the vertex it reads */
  /* the bounds the arrays were allocated with (every array at its bound,
   * freed with the same count): the window's statements (st, dependents),
   * subgraphs, the window's expressions (vertices, edges, reads), blocks */
  uint32_t cap_st, cap_g, cap_v, cap_b;
} cg_kflat;

/* The strategy's name (its row's of CG_KFLAT_STRATEGIES), NULL out of
 * range; and the strategy named (-1: none). */
const char *cg_kflat_strategy_name(int s);
int cg_kflat_strategy(const char *name);
/* The name of a vertex kind ("independent", "operation", "intrinsic"). */
const char *cg_kflat_vkind_name(int kind);

/* Flattens the blocks of al's function.  ac NULL: no pruning.  NULL with e
 * set (CG_EUSAGE for a bad strategy or mismatched analyses, CG_ENOMEM).
 * Cost: linear in the function's statements, expressions and the alias
 * analysis' addresses, plus per use its ud-chain, plus per definition the
 * regions that may overlap its own (the counters a passive double write
 * asks), plus the passive uses' fixpoint (each statement examined once more
 * per definition reaching it that turns out to carry an independent's
 * value, as cg_kactive's varied statements); with overrides, per
 * independent and per passive double write a scan of its subgraph's
 * independents resp. definitions (doc/flattening.md, "Cost"). */
cg_kflat *cg_kflat_run(cg_alloc *A, const cg_kalias *al, const cg_kchains *ch,
                       const cg_kcfg *cfg, const cg_kactive *ac, int strategy, cg_error *e);
void cg_kflat_free(cg_kflat *fl);

/* {==== split decisions: a strategy written by the caller ====} */

enum { CG_KFLAT_JOIN = 0, CG_KFLAT_SPLIT = 1 };
#define CG_KFLAT_HOOK CG_KFLAT_NSTRATEGY /* fl->strategy: a decision hook split (no name) */

/* What a decision hook is asked: active assignment stmt, the index-th
 * (0-based) of block (0-based), could join the open subgraph, statements
 * fl->st[run0 .. run1).  legal: joining keeps the results (Algorithm 2's
 * test, as minimal applies it); else reason says why: the use (its text
 * and line:col) and the conflicting definition's line or the passive
 * statement.  walk: the engine's state, for cg_kflat_ask_before. */
typedef struct cg_kflat_ask {
  uint32_t block, index, run0, run1;
  int32_t stmt;
  int legal;
  const char *reason;
  const void *walk;
} cg_kflat_ask;

/* Whether statement r (a ud-chain entry, -1 outside) lies in q's block
 * before q's statement; every other entry reads a value from before the
 * block. */
int cg_kflat_ask_before(const cg_kflat_ask *q, int32_t r);

/* A split decision for q: CG_KFLAT_SPLIT (a new subgraph starts at
 * q->stmt), CG_KFLAT_JOIN, or a negative status with e set (the run stops
 * and returns it).  Called only where a choice exists: not for a block's
 * first active assignment nor after a passive statement ended the run. */
typedef int (*cg_kflat_decide)(void *ud, const cg_kflat *fl, const cg_kflat_ask *q, cg_error *e);

/* cg_kflat_run with the splits decided by decide (fl->strategy is
 * CG_KFLAT_HOOK).  A join the engine finds illegal is refused: NULL with e
 * CG_EUSAGE "FILE:LINE:COL: the split strategy joins line L to the subgraph
 * of lines A-B, which would change the results: REASON".  Cost: as
 * cg_kflat_run plus the calls. */
cg_kflat *cg_kflat_run_hook(cg_alloc *A, const cg_kalias *al, const cg_kchains *ch,
                            const cg_kcfg *cfg, const cg_kactive *ac, cg_kflat_decide decide,
                            void *ud, cg_error *e);

/* }==== */

/* Names (doc/flattening.md, "Names").  The name of access a (a double
 * use or definition of the function) into buf: a scalar by its name (`x`),
 * a cell as `p[e]` with p the object (a pointer parameter's region by the
 * parameter, an array, a global) and e its offset printed over the entry
 * values of int parameters (`k`, `2*k-1`; a 2-D or 3-D array `t[1][2]`, `w[1][0][2]` when the
 * offset is constant).  Returns 1 when so (exact); 0 when the address is
 * not expressible so (several addresses, an unknown offset, a term that is
 * not an int parameter's entry value): then buf is the text of expression
 * x (the subscript as the source writes it).  O(1). */
int cg_kflat_name(const cg_kflat *fl, int32_t a, int32_t x, char *buf, size_t size);
/* Whether independent vertex v reads a value from outside the function
 * (its ud-chain holds -1) in a by-value double parameter, memory through a
 * pointer parameter or a global: an independent of the function. */
int cg_kflat_outside(const cg_kflat *fl, uint32_t v);
/* Whether dependent d may reach the exit (its du-chain holds -1) in
 * observable memory (through a pointer parameter), or is a return's: a
 * dependent of the function. */
int cg_kflat_observable(const cg_kflat *fl, uint32_t d);
/* Whether statement s is a `return e;` that was flattened (an active
 * assignment to the dependent "return": e has a vertex input that is not
 * passive; with activity, the return is active).  O(dependents). */
int cg_kflat_active_return(const cg_kflat *fl, int32_t s);

/* The value at the build point of a passive argument expression (one that
 * is neither a vertex nor a constant: `(double)i`, a ?:'s condition, a
 * passive read whose value is not one constant): into *v, CG_OK, else a
 * status with e set.  A passive read every definition reaching which
 * assigns one constant expression (the same value, bit for bit) is that
 * constant, folded, never asked. */
typedef int (*cg_kflat_passive)(void *ud, int32_t expr, double *v, cg_error *e);

/* The passive argument expressions of subgraph g that are not constants,
 * in the order cg_kflat_graph asks pv for them, into out (NULL: only
 * counted); returns their count (at most 3 per vertex). */
uint32_t cg_kflat_passive_args(const cg_kflat *fl, uint32_t g, int32_t *out);

/* Subgraph g (0..ng-1) built through the graph-building interface
 * (cg_gbuild.h) at a point: indep gives its independent vertices' values in
 * vertex order, pv the passive arguments' values (NULL: only constants
 * allowed); operations are the kernel's mapped to CG_G_* rows (intrinsics
 * through cg_kintrinsic_gop), the dependents those of the subgraph in
 * order.  An augmented dependent (its vertex has successors) and a
 * collapsed one (its vertex is an independent, `y = x`) are a COPY node of
 * their vertex, so each is a vertex of its own with a unit edge (Utke,
 * Flattening, sec. 6.2 and Fig. 6c); the other dependents are their
 * vertices.  Locations: vertex v at v - g_v0[g], scratch constants above,
 * then the copies.  NULL with e (CG_EUSAGE: a bad g, a passive value
 * needed without pv, an operation without a row; CG_ENOMEM).  O(subgraph). */
cg_graph *cg_kflat_graph(cg_alloc *A, const cg_kflat *fl, uint32_t g, const double *indep,
                         cg_kflat_passive pv, void *ud, const cg_gopts *o, cg_error *e);

/* cg_kflat_graph with hoisting and dead-root removal off: the term graph as
 * flattened, one node per vertex (none folded into another's chain), per
 * constant argument and per copy.  node_of (NULL, or one entry per vertex
 * of g) gets each vertex's node, checked against the built graph (its
 * operation); the dependents are the graph's dep[] in order.  Errors as
 * cg_kflat_graph's. */
cg_graph *cg_kflat_term_graph(cg_alloc *A, const cg_kflat *fl, uint32_t g, const double *indep,
                              cg_kflat_passive pv, void *ud, uint32_t *node_of, cg_error *e);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
