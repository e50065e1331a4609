/* cg_kflat.c: flattening of basic blocks into term graphs (Utke,
 * Flattening Basic Blocks, secs. 3, 6, 6.2).  cg_kflat.h states the rules
 * and the representation; doc/flattening.md the departures from the
 * paper's pseudo-code. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "cg_kflat.h"

CG_KKINDS_SEEN(10, 32); /* the statement kinds and expression operators its switches handle */

/* {==== the built-in split strategies (CG_KFLAT_STRATEGIES, cg_kflat.h) ====}
 * cut_<name>(fl, q): 1 to start a new subgraph at active assignment
 * q->stmt, 0 to join it to the open one, statements fl->st[q->run0 ..
 * q->run1) (the engine cuts anyway where the join would change the
 * results).  q is what a decision hook is asked (cg_kflat_ask), without
 * legal and reason (-1, NULL: the engine tests legality after the cut
 * function, and only where it joins). */

static int cut_minimal(const cg_kflat *fl, const cg_kflat_ask *q) { /* Algorithm 2 */
  (void)fl, (void)q;
  return 0;
}
static int cut_statement(const cg_kflat *fl, const cg_kflat_ask *q) {
  (void)fl, (void)q;
  return 1;
}

static const struct {
  const char *name;
  int (*cut)(const cg_kflat *fl, const cg_kflat_ask *q);
} strategies[CG_KFLAT_NSTRATEGY] = {
#define CG_KFS_ROW(id, nm) {#nm, cut_##nm},
    CG_KFLAT_STRATEGIES(CG_KFS_ROW)
#undef CG_KFS_ROW
};

const char *cg_kflat_strategy_name(int s) {
  return s >= 0 && s < CG_KFLAT_NSTRATEGY ? strategies[s].name : NULL;
}
int cg_kflat_strategy(const char *name) {
  int s;
  for (s = 0; name && s < CG_KFLAT_NSTRATEGY; s++)
    if (!strcmp(name, strategies[s].name)) return s;
  return -1;
}

/* }==== */

static const char *const vkind_names[CG_KFV_COUNT] = {"independent", "operation", "intrinsic"};
const char *cg_kflat_vkind_name(int kind) {
  return kind >= 0 && kind < CG_KFV_COUNT ? vkind_names[kind] : NULL;
}

/* {==== the walk's state ====} */

/* Scratch of one run, indexed by the analysis' windows (statement s at
 * s - s_lo, expression x at x - x_lo). */
typedef struct ctx {
  cg_kflat *fl;
  const cg_kalias *al;
  const cg_kchains *ch;
  const cg_kactive *ac;
  int32_t *blk, *pos, *ing; /* per statement: block, position in it, subgraph (-1) */
  uint32_t *defv;           /* per statement: the vertex of its value */
  int32_t *xacc;            /* per expression: its double-use access (-1) */
  int32_t *direct;          /* per expression: the statement whose vertices read it directly */
  uint32_t *vout;           /* per vertex: successors in its subgraph */
  uint32_t *vsame;          /* per independent: the previous one of its set (NONE) */
  uint32_t *set_last;       /* per address set: its latest independent (NONE) */
  int32_t g;                /* the open subgraph, -1 none */
  int32_t gpos0;            /* its first statement's position in the block */
  /* the open subgraph's definitions by address, so that a passive write
   * asks O(1) counters instead of scanning them (no overrides: then the
   * relation of two sets follows from their addresses alone) */
  int fast;                 /* the counters are kept */
  uint32_t *addr_tc;        /* per address of al: its class of (object, offset terms);
                             * NONE: an unknown offset or a large constant */
  uint32_t *addr_ex;        /* per address: its class of (object, terms, constant) */
  uint32_t *reg_obj;        /* per region index: its object */
  uint32_t *cnt_tc, *cnt_ex; /* per class: the open subgraph's definition addresses in it */
  uint32_t *cnt_obj;        /* per object: the open subgraph's definition addresses on it */
  uint32_t *cnt_ovl;        /* per region: those on other regions that may overlap it */
  uint32_t cnt_big;         /* those with a large constant (then the scan decides) */
  uint8_t *carries;         /* per statement: its value has a vertex ("Passive values") */
  cg_kflat_decide decide;   /* a caller's split decisions, NULL: the strategy's */
  void *ud;
  cg_error *e;              /* where a hook's failure or a refusal is told */
  char why[320];            /* the reason a join is illegal */
} ctx;

#define SI(c, s) ((s) - (c)->al->s_lo)
#define NONE UINT32_MAX /* no vertex */
#define XI(c, x) ((x) - (c)->al->x_lo)

/* A double read (VAR or ELEM of type double). */
static int double_read(const cg_kernel *k, int32_t x) {
  int op = CG_KEXPR(k, x, OP);
  return (op == CG_KE_VAR || op == CG_KE_ELEM) && CG_KEXPR(k, x, TYPE) == CG_KT_DOUBLE;
}

/* The right-hand side of a statement that may be flattened: an
 * assignment's rhs, a return's value (-1: none). */
static int32_t rhs_of(const cg_kernel *k, int32_t s) {
  int kind = CG_KSTMT(k, s, KIND);
  return kind == CG_KST_ASSIGN   ? CG_KSTMT(k, s, ASSIGN_RHS)
         : kind == CG_KST_RETURN ? CG_KSTMT(k, s, RETURN_VALUE)
                                 : -1;
}

/* Whether s may be flattened: an assignment of a double, or `return e;` of
 * a double e (an assignment to the dependent "return"). */
static int flat_kind(const cg_kernel *k, int32_t s) {
  int kind = CG_KSTMT(k, s, KIND);
  if (kind == CG_KST_ASSIGN) return CG_KEXPR(k, CG_KSTMT(k, s, ASSIGN_LHS), TYPE) == CG_KT_DOUBLE;
  return kind == CG_KST_RETURN && CG_KSTMT(k, s, RETURN_VALUE) >= 0 &&
         CG_KEXPR(k, CG_KSTMT(k, s, RETURN_VALUE), TYPE) == CG_KT_DOUBLE;
}

/* }==== */

/* {==== passive values (Hovland, Norris, Utke & Strout, sec. 4) ====}
 * A double use is passive when no independent's value may reach it: every
 * entry of its ud-chain is a statement that does not carry one, or the
 * entry from before the function in a set that holds no independent (with
 * activity: none of its independents' objects; without: no by-value
 * parameter, pointer parameter's region or global, what cg_kflat_outside
 * counts).  A statement carries when it is a call (whatever it writes:
 * conservative), or flat_kind with a vertex input (a double read reached
 * through double operations) that is not passive, and, with activity,
 * active.  A passive use is no vertex: it is read in place, as `(double)i`
 * is, its value a constant of the graph (folded when every definition
 * reaching it assigns one constant, cg_kflat_graph).  carries is the least
 * fixpoint, from the statements that read outside values forward along the
 * du-chains, as cg_kactive's varied statements, over vertex inputs only. */

static int set_outside(const cg_kalias *al, uint32_t s, int params);

/* Whether the entry from before the function may bring an independent's
 * value into set s. */
static int source_set(const ctx *c, uint32_t s) {
  const cg_kalias *al = c->al;
  uint32_t i;
  if (!c->ac) return set_outside(al, s, 1);
  for (i = 0; i < al->set_n[s]; i++)
    if (c->ac->indep[al->addr[al->set_off[s] + i].obj]) return 1;
  return 0;
}

/* Whether use u (a double use access) is passive.  O(its chain). */
static int passive_use(const ctx *c, int32_t u) {
  const cg_kchains *ch = c->ch;
  uint32_t i;
  for (i = ch->ud_off[u]; i < ch->ud_off[u + 1]; i++) {
    int32_t r = ch->ud[i];
    if (r < 0 ? source_set(c, (uint32_t)c->al->acc_set[u]) : c->carries[SI(c, r)]) return 0;
  }
  return 1;
}

/* Whether expression x has a vertex input that is not passive (a read
 * without an access is an independent: not passive). */
static int rhs_carries(const ctx *c, int32_t x) {
  const cg_kernel *k = c->al->k;
  int32_t ops[3];
  int n, i, op = CG_KEXPR(k, x, OP);
  if (CG_KEXPR(k, x, TYPE) != CG_KT_DOUBLE || op == CG_KE_CAST) return 0;
  if (op == CG_KE_VAR || op == CG_KE_ELEM) return c->xacc[XI(c, x)] < 0 || !passive_use(c, c->xacc[XI(c, x)]);
  n = cg_kexpr_operands(k, x, ops);
  for (i = op == CG_KE_COND ? 1 : 0; i < n; i++)
    if (ops[i] >= 0 && rhs_carries(c, ops[i])) return 1;
  return 0;
}

static int stmt_carries(const ctx *c, int32_t s) {
  const cg_kernel *k = c->al->k;
  if (CG_KSTMT(k, s, FUNC) != c->al->func) return 0;
  if (CG_KSTMT(k, s, KIND) == CG_KST_CALL) return 1;
  if (!flat_kind(k, s) || (c->ac && !c->ac->active[SI(c, s)])) return 0;
  return rhs_carries(c, rhs_of(k, s));
}

/* The least fixpoint of carries: a statement turning carrying re-examines
 * the users of its definitions.  stack: one entry per statement.  Cost: as
 * cg_kactive's forward pass, each statement examined once and again per
 * definition reaching it that turns carrying, an examination O(its
 * expressions' chains). */
static void mark_carrying(ctx *c, int32_t *stack) {
  const cg_kchains *ch = c->ch;
  uint32_t s, n = 0, i;
  for (s = 0; s < c->al->ns; s++)
    if (stmt_carries(c, c->al->s_lo + (int32_t)s)) c->carries[s] = 1, stack[n++] = c->al->s_lo + (int32_t)s;
  while (n) {
    int32_t d = stack[--n];
    for (i = ch->du_off[SI(c, d)]; i < ch->du_off[SI(c, d) + 1]; i++) {
      int32_t t = ch->du[i];
      if (t < 0 || c->carries[SI(c, t)] || !stmt_carries(c, t)) continue;
      c->carries[SI(c, t)] = 1, stack[n++] = t;
    }
  }
}

/* }==== */

/* {==== chains restricted to the block ====} */

/* Where definition r (from a ud-chain of a use in s) lies for the open
 * subgraph: 0 before it (outside the block, after s via a back edge, or
 * before the subgraph's first statement: its value is in memory when the
 * subgraph starts), 1 a statement of the subgraph, 2 a passive statement
 * inside its span (its value is not in memory at the start). */
static int where(const ctx *c, int32_t r, int32_t s) {
  if (r < 0 || c->blk[SI(c, r)] != c->blk[SI(c, s)] || c->pos[SI(c, r)] >= c->pos[SI(c, s)])
    return 0;
  if (c->g < 0 || c->pos[SI(c, r)] < c->gpos0) return 0;
  return c->ing[SI(c, r)] == c->g ? 1 : 2;
}

/* Use u in statement s against the open subgraph: -2 ambiguous (the
 * subgraph must end before s), -1 read at the subgraph's start, else the
 * defining statement in the subgraph. */
static int32_t resolve(const ctx *c, int32_t u, int32_t s) {
  uint32_t i, nin = 0, before = 0;
  int32_t d = -1;
  for (i = c->ch->ud_off[u]; i < c->ch->ud_off[u + 1]; i++) {
    int w = where(c, c->ch->ud[i], s);
    if (w == 2) return -2;
    if (w == 1) nin++, d = c->ch->ud[i];
    else before = 1;
  }
  if (nin == 0) return -1;
  return nin == 1 && !before ? d : -2;
}

/* The first definition of the open subgraph that may reach use u of
 * statement s, -1 none (a read in place, not a vertex input: a passive
 * statement of the span has already written its value; the subgraph's are
 * deferred). */
static int32_t reaches_in_place(const ctx *c, int32_t u, int32_t s) {
  uint32_t i;
  for (i = c->ch->ud_off[u]; i < c->ch->ud_off[u + 1]; i++)
    if (where(c, c->ch->ud[i], s) == 1) return c->ch->ud[i];
  return -1;
}

/* Marks the double reads of expression x that become vertex inputs (reached
 * from the right-hand side through double operations only). */
static void mark_direct(ctx *c, int32_t x, int32_t s) {
  const cg_kernel *k = c->al->k;
  int32_t ops[3];
  int n, i, op = CG_KEXPR(k, x, OP);
  if (CG_KEXPR(k, x, TYPE) != CG_KT_DOUBLE) return;
  if (op == CG_KE_VAR || op == CG_KE_ELEM) { c->direct[XI(c, x)] = s; return; }
  if (op == CG_KE_CAST) return;
  n = cg_kexpr_operands(k, x, ops);
  for (i = op == CG_KE_COND ? 1 : 0; i < n; i++)
    if (ops[i] >= 0) mark_direct(c, ops[i], s);
}

/* The reason use u (expression x) of s makes a join illegal, into c->why:
 * r the definition of the subgraph it reads (not a vertex input), or -2
 * ambiguous (the first conflicting entry of its chain is named). */
static void explain(ctx *c, int32_t u, int32_t x, int32_t s, int32_t r) {
  const cg_kernel *k = c->al->k;
  char text[96];
  const char *tail = " (may-alias)";
  uint32_t i, nin = 0;
  cg_kexpr_text(k, x, text, sizeof text);
  if (r >= 0) {
    snprintf(c->why, sizeof c->why, "the use of %s at %d:%d is not an argument of the graph "
             "(an address or a condition) and reads the definition of line %d", text,
             (int)CG_KEXPR(k, x, LINE), (int)CG_KEXPR(k, x, COL), (int)CG_KSTMT(k, r, LINE));
    return;
  }
  for (i = c->ch->ud_off[u]; i < c->ch->ud_off[u + 1]; i++) nin += where(c, c->ch->ud[i], s) == 1;
  for (i = c->ch->ud_off[u]; i < c->ch->ud_off[u + 1]; i++) {
    int w = where(c, c->ch->ud[i], s);
    if (w == 0) continue;
    r = c->ch->ud[i];
    if (w == 2) tail = ", a passive statement inside the subgraph";
    else if (nin > 1) tail = " (one of several definitions in the subgraph)";
    break;
  }
  if (r < 0) { /* not reached: resolve found a conflicting entry */
    snprintf(c->why, sizeof c->why, "the use of %s at %d:%d is ambiguous", text,
             (int)CG_KEXPR(k, x, LINE), (int)CG_KEXPR(k, x, COL));
    return;
  }
  snprintf(c->why, sizeof c->why, "the use of %s at %d:%d may read the definition of line %d%s",
           text, (int)CG_KEXPR(k, x, LINE), (int)CG_KEXPR(k, x, COL), (int)CG_KSTMT(k, r, LINE), tail);
}

/* Whether active assignment s can join the open subgraph: each double use
 * that is a vertex input resolves, and one read in place (for an address, a
 * condition, or a passive value: not a vertex input) needs no value of the
 * subgraph.  why: write the reason into c->why. */
static int joins(ctx *c, int32_t s, int why) {
  const cg_kalias *al = c->al;
  int32_t a0 = cg_kalias_acc0(al, s), na = cg_kalias_nacc(al, s), a, r;
  mark_direct(c, rhs_of(al->k, s), s);
  for (a = a0; a < a0 + na; a++) {
    int32_t x = al->acc_expr[a];
    if (al->acc_kind[a] != CG_KA_USE || x < 0 || !double_read(al->k, x)) continue;
    if (c->direct[XI(c, x)] != s || passive_use(c, a)) {
      if ((r = reaches_in_place(c, a, s)) >= 0) {
        if (why) explain(c, a, x, s, r);
        return 0;
      }
      continue;
    }
    r = resolve(c, a, s);
    if (r == -2) {
      if (why) explain(c, a, x, s, r);
      return 0;
    }
  }
  return 1;
}

/* }==== */

/* {==== vertices and edges ====} */

static uint32_t new_vertex(ctx *c, int kind, int32_t x, int32_t acc, int32_t s) {
  cg_kflat *fl = c->fl;
  uint32_t v = fl->nv++;
  fl->v_kind[v] = kind, fl->v_expr[v] = x, fl->v_acc[v] = acc, fl->v_stmt[v] = s;
  c->vout[v] = 0;
  return v;
}

/* Same chain (Algorithm 1's second condition): the two uses' ud-chains
 * name the same statements.  Both resolved to -1 (every definition lies
 * before the subgraph), so equal chains and one cell mean one value.  The
 * raw chains are compared, which may keep apart two uses whose chains differ
 * only outside the block: more vertices, never a wrong one. */
static int same_chain(const ctx *c, int32_t u1, int32_t u2) {
  const cg_kchains *ch = c->ch;
  uint32_t i, j;
  for (i = ch->ud_off[u1]; i < ch->ud_off[u1 + 1]; i++) {
    int32_t r = ch->ud[i];
    int found = 0;
    for (j = ch->ud_off[u2]; j < ch->ud_off[u2 + 1] && !found; j++) found = ch->ud[j] == r;
    if (!found) return 0;
  }
  return ch->ud_off[u1 + 1] - ch->ud_off[u1] == ch->ud_off[u2 + 1] - ch->ud_off[u2];
}

/* Algorithm 1's identification: an earlier independent of the subgraph
 * that must-aliases use u and has the same chain, else a new one.  Without
 * overrides, two sets relate "must" only when they are one exact set (sets
 * are interned, and only an identical address is "must"), so the candidates
 * are the subgraph's independents of u's set, chained through vsame; with
 * overrides, every independent of the subgraph is a candidate. */
static uint32_t independent(ctx *c, int32_t x, int32_t u, int32_t s) {
  cg_kflat *fl = c->fl;
  const cg_kalias *al = c->al;
  uint32_t set = (uint32_t)al->acc_set[u], v, g0 = fl->g_v0[c->g];
  if (!al->nover) {
    if (!al->set_exact[set]) return new_vertex(c, CG_KFV_INDEP, x, u, s);
    for (v = c->set_last[set]; v != NONE && v >= g0; v = c->vsame[v])
      if (same_chain(c, fl->v_acc[v], u)) return v;
  } else {
    for (v = g0; v < fl->nv; v++) {
      int32_t w = fl->v_acc[v];
      if (fl->v_kind[v] == CG_KFV_INDEP && w >= 0 &&
          cg_kalias_relation(al, (uint32_t)al->acc_set[w], set) == CG_KREL_MUST && same_chain(c, w, u))
        return v;
    }
  }
  v = new_vertex(c, CG_KFV_INDEP, x, u, s);
  c->vsame[v] = c->set_last[set], c->set_last[set] = v;
  return v;
}

static void add_read(ctx *c, int32_t x, uint32_t v, int32_t d) {
  cg_kflat *fl = c->fl;
  fl->r_expr[fl->nr] = x, fl->r_vertex[fl->nr] = v, fl->r_def[fl->nr] = d;
  fl->nr++;
}

static void add_edge(ctx *c, uint32_t src, uint32_t dst, int pos) {
  cg_kflat *fl = c->fl;
  fl->e_src[fl->ne] = src, fl->e_dst[fl->ne] = dst, fl->e_pos[fl->ne] = (uint8_t)pos;
  fl->ne++, c->vout[src]++;
}

/* The vertex of expression x of statement s (children first, so vertices
 * are in topological order), or NONE for a constant or passive value (a
 * passive use included: "Passive values"). */
static uint32_t vertex_of(ctx *c, int32_t x, int32_t s) {
  const cg_kernel *k = c->al->k;
  int32_t ops[3], u;
  uint32_t in[3] = {NONE, NONE, NONE}, v;
  int n, i, op = CG_KEXPR(k, x, OP), any = 0;
  if (CG_KEXPR(k, x, TYPE) != CG_KT_DOUBLE || op == CG_KE_CAST || op == CG_KE_CONST_D) return NONE;
  if (op == CG_KE_VAR || op == CG_KE_ELEM) {
    int32_t d = -1;
    u = c->xacc[XI(c, x)];
    if (u >= 0 && passive_use(c, u)) return NONE; /* read in place, a constant of the graph */
    if (u < 0) v = new_vertex(c, CG_KFV_INDEP, x, -1, s); /* no access: nothing to identify */
    else if ((d = resolve(c, u, s)) >= 0) v = c->defv[SI(c, d)];
    else v = independent(c, x, u, s);
    add_read(c, x, v, u < 0 ? -1 : d);
    return v;
  }
  n = cg_kexpr_operands(k, x, ops);
  for (i = op == CG_KE_COND ? 1 : 0; i < n; i++)
    if (ops[i] >= 0 && (in[i] = vertex_of(c, ops[i], s)) != NONE) any = 1;
  if (!any) return NONE;
  v = new_vertex(c, op == CG_KE_INTRIN ? CG_KFV_INTRIN : CG_KFV_OP, x, -1, s);
  for (i = 0; i < n; i++)
    if (in[i] != NONE) add_edge(c, in[i], v, i);
  return v;
}

/* }==== */

/* {==== subgraphs ====} */

/* The definition access of assignment s (its left-hand side); -1 for a
 * return, which defines nothing. */
static int32_t def_access(const cg_kalias *al, int32_t s) {
  int32_t a0 = cg_kalias_acc0(al, s), na = cg_kalias_nacc(al, s), a;
  int32_t lhs = CG_KSTMT(al->k, s, KIND) == CG_KST_ASSIGN ? CG_KSTMT(al->k, s, ASSIGN_LHS) : -1;
  for (a = a0; a < a0 + na; a++)
    if (al->acc_kind[a] == CG_KA_DEF && al->acc_expr[a] == lhs) return a;
  return -1;
}

/* Whether the definition of s (in subgraph g) may be read after the
 * subgraph: by a statement outside it, by one of it through a back edge,
 * or at the exit (sec. 6.2). */
static int escapes(const ctx *c, int32_t s) {
  uint32_t i, si = (uint32_t)SI(c, s);
  for (i = c->ch->du_off[si]; i < c->ch->du_off[si + 1]; i++) {
    int32_t t = c->ch->du[i];
    if (t < 0 || c->ing[SI(c, t)] != c->g || c->blk[SI(c, t)] != c->blk[SI(c, s)] ||
        c->pos[SI(c, t)] <= c->pos[SI(c, s)])
      return 1;
  }
  return 0;
}

static void count_def(ctx *c, int32_t s, int delta);

/* Ends the open subgraph: its dependents, in statement order. */
static void close_graph(ctx *c) {
  cg_kflat *fl = c->fl;
  uint32_t i;
  if (c->g < 0) return;
  for (i = fl->g_st0[c->g]; i < fl->nst; i++) {
    int32_t s = fl->st[i];
    uint32_t v = c->defv[SI(c, s)];
    count_def(c, s, -1); /* the counters start empty for the next subgraph */
    if (CG_KSTMT(c->al->k, s, KIND) != CG_KST_RETURN && !escapes(c, s)) continue; /* a return's value leaves */
    fl->d_stmt[fl->nd] = s, fl->d_acc[fl->nd] = def_access(c->al, s), fl->d_vertex[fl->nd] = v;
    fl->d_aug[fl->nd] = c->vout[v] > 0;
    fl->d_collapsed[fl->nd] = fl->v_kind[v] == CG_KFV_INDEP;
    fl->nd++;
  }
  fl->ng++;
  fl->g_st0[fl->ng] = fl->nst, fl->g_v0[fl->ng] = fl->nv, fl->g_e0[fl->ng] = fl->ne;
  fl->g_d0[fl->ng] = fl->nd, fl->g_r0[fl->ng] = fl->nr;
  c->g = -1;
}

static void open_graph(ctx *c, int32_t s) {
  c->g = (int32_t)c->fl->ng;
  c->gpos0 = c->pos[SI(c, s)];
}

/* Adds active assignment s to the open subgraph (a return: its value's
 * definition, never dead). */
static void add_statement(ctx *c, int32_t s) {
  cg_kflat *fl = c->fl;
  c->defv[SI(c, s)] = vertex_of(c, rhs_of(c->al->k, s), s);
  c->ing[SI(c, s)] = c->g;
  count_def(c, s, 1);
  fl->st_dead[fl->nst] = (uint8_t)(CG_KSTMT(c->al->k, s, KIND) != CG_KST_RETURN &&
                                   c->ch->du_off[SI(c, s)] == c->ch->du_off[SI(c, s) + 1]);
  fl->st[fl->nst++] = s;
}

/* {==== the open subgraph's definitions by address ====}
 * Without overrides two sets relate "no" exactly when no pair of their
 * addresses may meet (cg_kalias_relation0): two addresses of one object
 * meet unless their offsets have the same terms and different constants;
 * of two objects, when they are regions that may overlap.  So counting the
 * open subgraph's definition addresses per object, per (object, terms) and
 * per (object, terms, constant), and per region those on the regions that
 * may overlap it, answers a passive write in O(its addresses).  Constants
 * beyond BIG go to the scan: differences then stay far inside the alias
 * analysis' offset bound (2^40), beyond which it makes an offset unknown. */

#define BIG ((int64_t)1 << 30)

/* A hash of address d's object and offset terms (and constant). */
static uint64_t addr_hash(const cg_kaddr *d, int with_c) {
  uint64_t h = 1469598103934665603u ^ (uint64_t)(uint32_t)d->obj;
  int32_t i;
  for (i = 0; i < d->off.nt; i++)
    h = (h ^ (uint64_t)(uint32_t)d->off.vn[i]) * 1099511628211u, h = (h ^ (uint64_t)d->off.coef[i]) * 1099511628211u;
  if (with_c) h = (h ^ (uint64_t)d->off.c) * 1099511628211u;
  return h ^ (h >> 29);
}

static int addr_same(const cg_kaddr *a, const cg_kaddr *b, int with_c) {
  int32_t i;
  if (a->obj != b->obj || a->off.nt != b->off.nt || (with_c && a->off.c != b->off.c)) return 0;
  for (i = 0; i < a->off.nt; i++)
    if (a->off.vn[i] != b->off.vn[i] || a->off.coef[i] != b->off.coef[i]) return 0;
  return 1;
}

/* Numbers the addresses' classes into out (NONE: an unknown offset or a
 * large constant), with the open-addressing table tab of cap slots. */
static void classify(const cg_kalias *al, int with_c, uint32_t *out, uint32_t *tab, uint32_t cap) {
  uint32_t i, n = 0;
  for (i = 0; i < cap; i++) tab[i] = NONE;
  for (i = 0; i < al->naddr; i++) {
    const cg_kaddr *d = &al->addr[i];
    uint32_t h;
    if (d->off.nt < 0 || d->off.c > BIG || d->off.c < -BIG) { out[i] = NONE; continue; }
    for (h = (uint32_t)addr_hash(d, with_c) & (cap - 1); tab[h] != NONE; h = (h + 1) & (cap - 1))
      if (addr_same(&al->addr[tab[h]], d, with_c)) break;
    if (tab[h] == NONE) tab[h] = i, out[i] = n++;
    else out[i] = out[tab[h]];
  }
}

/* The counters (c->fast), when al has no overrides.  0 on CG_ENOMEM. */
static int counters_init(ctx *c, cg_alloc *A) {
  const cg_kalias *al = c->al;
  uint32_t N = al->naddr ? al->naddr : 1, cap = 16, *tab, o;
  if (al->nover) return 1;
  while (cap < 2 * N) cap *= 2; /* naddr < 2^31: the interned sets fit in memory */
  c->addr_tc = CG_NEW(A, uint32_t, N), c->addr_ex = CG_NEW(A, uint32_t, N);
  c->cnt_tc = CG_NEW(A, uint32_t, N), c->cnt_ex = CG_NEW(A, uint32_t, N);
  c->cnt_obj = CG_NEW(A, uint32_t, al->nobj + 1), c->cnt_ovl = CG_NEW(A, uint32_t, al->nreg + 1);
  c->reg_obj = CG_NEW(A, uint32_t, al->nreg + 1);
  tab = CG_NEW(A, uint32_t, cap);
  if (!c->addr_tc || !c->addr_ex || !c->cnt_tc || !c->cnt_ex || !c->cnt_obj || !c->cnt_ovl || !c->reg_obj || !tab) {
    CG_FREE(A, tab, uint32_t, cap);
    return 0;
  }
  classify(al, 0, c->addr_tc, tab, cap), classify(al, 1, c->addr_ex, tab, cap);
  CG_FREE(A, tab, uint32_t, cap);
  memset(c->cnt_tc, 0, N * sizeof *c->cnt_tc), memset(c->cnt_ex, 0, N * sizeof *c->cnt_ex);
  memset(c->cnt_obj, 0, (al->nobj + 1) * sizeof *c->cnt_obj);
  memset(c->cnt_ovl, 0, (al->nreg + 1) * sizeof *c->cnt_ovl);
  for (o = 0; o < al->nobj; o++)
    if (al->obj_reg[o] >= 0) c->reg_obj[al->obj_reg[o]] = o;
  c->fast = 1;
  return 1;
}

static void counters_done(ctx *c, cg_alloc *A) {
  const cg_kalias *al = c->al;
  uint32_t N = al->naddr ? al->naddr : 1;
  CG_FREE(A, c->addr_tc, uint32_t, N), CG_FREE(A, c->addr_ex, uint32_t, N);
  CG_FREE(A, c->cnt_tc, uint32_t, N), CG_FREE(A, c->cnt_ex, uint32_t, N);
  CG_FREE(A, c->cnt_obj, uint32_t, al->nobj + 1), CG_FREE(A, c->cnt_ovl, uint32_t, al->nreg + 1);
  CG_FREE(A, c->reg_obj, uint32_t, al->nreg + 1);
}

/* Counts (delta 1) or uncounts (-1) the definition of statement s.  O(its
 * addresses x regions). */
static void count_def(ctx *c, int32_t s, int delta) {
  const cg_kalias *al = c->al;
  int32_t d = def_access(al, s);
  uint32_t set, i, r;
  if (!c->fast || d < 0) return;
  set = (uint32_t)al->acc_set[d];
  for (i = al->set_off[set]; i < al->set_off[set] + al->set_n[set]; i++) {
    int32_t o = al->addr[i].obj, ro = al->obj_reg[o];
    c->cnt_obj[o] += (uint32_t)delta;
    if (c->addr_tc[i] != NONE) c->cnt_tc[c->addr_tc[i]] += (uint32_t)delta, c->cnt_ex[c->addr_ex[i]] += (uint32_t)delta;
    else if (al->addr[i].off.nt >= 0) c->cnt_big += (uint32_t)delta;
    for (r = 0; ro >= 0 && r < al->nreg; r++)
      if (r != (uint32_t)ro && al->overlap[(size_t)ro * al->nreg + r]) c->cnt_ovl[r] += (uint32_t)delta;
  }
}

/* Whether a definition of the open subgraph may share a cell with set s,
 * by scanning them (the reference; with overrides the only way). */
static int run_shares_scan(const ctx *c, uint32_t s) {
  const cg_kalias *al = c->al;
  uint32_t i;
  for (i = c->fl->g_st0[c->g]; i < c->fl->nst; i++) {
    int32_t d = def_access(al, c->fl->st[i]);
    if (d >= 0 && cg_kalias_relation(al, (uint32_t)al->acc_set[d], s) != CG_KREL_NO) return 1;
  }
  return 0;
}

/* The same by the counters; -1 when they cannot tell (large constants). */
static int run_shares_counted(const ctx *c, uint32_t s) {
  const cg_kalias *al = c->al;
  uint32_t i;
  if (c->cnt_big) return -1;
  for (i = al->set_off[s]; i < al->set_off[s] + al->set_n[s]; i++) {
    const cg_kaddr *b = &al->addr[i];
    int32_t ro = al->obj_reg[b->obj];
    if (ro >= 0 && c->cnt_ovl[ro]) return 1; /* another region that may overlap */
    if (!c->cnt_obj[b->obj]) continue;
    if (b->off.nt < 0) return 1;
    if (c->addr_tc[i] == NONE) return -1;
    if (c->cnt_obj[b->obj] != c->cnt_tc[c->addr_tc[i]]) return 1; /* other terms or unknown: may */
    if (c->cnt_ex[c->addr_ex[i]]) return 1;                     /* the same cell */
  }
  return 0;
}

static int run_shares(const ctx *c, uint32_t s) {
  int r = c->fast ? run_shares_counted(c, s) : -1;
  if (r < 0) return run_shares_scan(c, s);
  assert(r == run_shares_scan(c, s)); /* the debug build checks the counters against the scan */
  return r;
}

/* }==== */

/* Whether passive statement p must end the open subgraph before it: a
 * call, an allocation, a free or a passive call (printf prints the values
 * as they are; the subgraph's deferred writes through a
 * pointer land before the pointer or its block changes), a read of a double the subgraph may define, or a write of a double
 * a definition of the subgraph may share (its deferred write would land
 * after p's). */
static int passive_ends(const ctx *c, int32_t p) {
  const cg_kalias *al = c->al;
  int32_t a0 = cg_kalias_acc0(al, p), na = cg_kalias_nacc(al, p), a;
  int kind = CG_KSTMT(al->k, p, KIND);
  if (kind == CG_KST_CALL || kind == CG_KST_ALLOC || kind == CG_KST_FREE || kind == CG_KST_PASSIVE) return 1;
  for (a = a0; a < a0 + na; a++) {
    if (al->acc_kind[a] == CG_KA_USE) {
      if (al->acc_expr[a] >= 0 && double_read(al->k, al->acc_expr[a]) && reaches_in_place(c, a, p) >= 0)
        return 1;
      continue;
    }
    if (cg_kalias_set_double(al, (uint32_t)al->acc_set[a]) && run_shares(c, (uint32_t)al->acc_set[a]))
      return 1;
  }
  return 0;
}

/* A double-typed right-hand side with a vertex (not a constant). */
static int reads_double(const cg_kernel *k, int32_t x) {
  int32_t ops[3];
  int n, i, op = CG_KEXPR(k, x, OP);
  if (CG_KEXPR(k, x, TYPE) != CG_KT_DOUBLE || op == CG_KE_CAST) return 0;
  if (op == CG_KE_VAR || op == CG_KE_ELEM) return 1;
  n = cg_kexpr_operands(k, x, ops);
  for (i = op == CG_KE_COND ? 1 : 0; i < n; i++)
    if (ops[i] >= 0 && reads_double(k, ops[i])) return 1;
  return 0;
}

int cg_kflat_ask_before(const cg_kflat_ask *q, int32_t r) {
  const ctx *c = (const ctx *)q->walk;
  return r >= 0 && c->blk[SI(c, r)] == c->blk[SI(c, q->stmt)] && c->pos[SI(c, r)] < c->pos[SI(c, q->stmt)];
}

/* The hook's decision for active assignment s against the open subgraph:
 * 1 split, 0 join, a negative status (c->e set) to stop; an illegal join
 * is refused. */
static int ask_hook(ctx *c, int32_t s, uint32_t b) {
  const cg_kflat *fl = c->fl;
  const cg_kernel *k = c->al->k;
  cg_kflat_ask q;
  int r;
  q.block = b, q.index = fl->nst - fl->block_st0[b], q.run0 = fl->g_st0[c->g], q.run1 = fl->nst;
  q.stmt = s, q.legal = joins(c, s, 1), q.reason = q.legal ? NULL : c->why, q.walk = c;
  if ((r = c->decide(c->ud, fl, &q, c->e)) < 0) return r;
  if (r == CG_KFLAT_JOIN && !q.legal)
    return cg_seterr(c->e, CG_EUSAGE, "%s:%d:%d: the split strategy joins line %d to the subgraph of "
                     "lines %d-%d, which would change the results: %s", k->file ? k->file : "kernel",
                     (int)CG_KSTMT(k, s, LINE), (int)CG_KSTMT(k, s, COL), (int)CG_KSTMT(k, s, LINE),
                     (int)CG_KSTMT(k, fl->st[q.run0], LINE), (int)CG_KSTMT(k, fl->st[q.run1 - 1], LINE), c->why);
  return r != CG_KFLAT_JOIN;
}

/* The built-in strategy's decision for active assignment s of block b
 * against the open subgraph: 1 split, 0 join. */
static int cut_builtin(ctx *c, int32_t s, uint32_t b) {
  const cg_kflat *fl = c->fl;
  cg_kflat_ask q;
  q.block = b, q.index = fl->nst - fl->block_st0[b], q.run0 = fl->g_st0[c->g], q.run1 = fl->nst;
  q.stmt = s, q.legal = -1, q.reason = NULL, q.walk = c;
  return strategies[fl->strategy].cut(fl, &q) || !joins(c, s, 0);
}

/* One block: Algorithm 2, or the cuts of another strategy or of the hook.
 * CG_OK or the hook's status. */
static int flatten_block(ctx *c, const cg_kcfg *cfg, uint32_t v, uint32_t b) {
  cg_kflat *fl = c->fl;
  const cg_kernel *k = c->al->k;
  uint32_t i;
  for (i = cfg->bst_start[v]; i < cfg->bst_start[v + 1]; i++) {
    int32_t s = cfg->bst[i];
    /* active: a double assignment or return whose value has a vertex (not a
     * constant, not passive) and, with activity, active */
    int act = flat_kind(k, s) && c->carries[SI(c, s)];
    if (!act && c->ac && flat_kind(k, s) && !c->ac->active[SI(c, s)] && reads_double(k, rhs_of(k, s)))
      fl->nst_pruned++;
    if (!act) {
      if (c->g >= 0 && passive_ends(c, s)) close_graph(c);
      continue;
    }
    if (c->g >= 0) {
      int split = c->decide ? ask_hook(c, s, b) : cut_builtin(c, s, b);
      if (split < 0) return split;
      if (split) close_graph(c);
    }
    if (c->g < 0) open_graph(c, s);
    add_statement(c, s);
  }
  close_graph(c);
  return CG_OK;
}

/* }==== */

/* {==== allocation ====} */

void cg_kflat_free(cg_kflat *fl) {
  cg_alloc *A;
  uint32_t S, G, V, B;
  if (!fl) return;
  A = fl->A, S = fl->cap_st, G = fl->cap_g + 1, V = fl->cap_v, B = fl->cap_b;
  CG_FREE(A, fl->block_vertex, int32_t, B);
  CG_FREE(A, fl->block_st0, uint32_t, B + 1), CG_FREE(A, fl->block_g0, uint32_t, B + 1);
  CG_FREE(A, fl->st, int32_t, S), CG_FREE(A, fl->st_dead, uint8_t, S);
  CG_FREE(A, fl->g_st0, uint32_t, G), CG_FREE(A, fl->g_v0, uint32_t, G);
  CG_FREE(A, fl->g_e0, uint32_t, G), CG_FREE(A, fl->g_d0, uint32_t, G);
  CG_FREE(A, fl->v_kind, int32_t, V), CG_FREE(A, fl->v_expr, int32_t, V);
  CG_FREE(A, fl->v_acc, int32_t, V), CG_FREE(A, fl->v_stmt, int32_t, V);
  CG_FREE(A, fl->e_src, uint32_t, V), CG_FREE(A, fl->e_dst, uint32_t, V);
  CG_FREE(A, fl->e_pos, uint8_t, V);
  CG_FREE(A, fl->g_r0, uint32_t, G), CG_FREE(A, fl->r_expr, int32_t, V);
  CG_FREE(A, fl->r_def, int32_t, V), CG_FREE(A, fl->r_vertex, uint32_t, V);
  CG_FREE(A, fl->d_stmt, int32_t, S), CG_FREE(A, fl->d_acc, int32_t, S);
  CG_FREE(A, fl->d_vertex, uint32_t, S);
  CG_FREE(A, fl->d_aug, uint8_t, S), CG_FREE(A, fl->d_collapsed, uint8_t, S);
  CG_FREE(A, fl, cg_kflat, 1);
}

/* Every array at its bound: a statement of the window is at most one
 * active assignment, subgraph or dependent; an expression at most one
 * vertex and one edge (each edge enters a distinct operation from a
 * distinct argument slot, i.e. an expression). */
static int alloc_result(cg_kflat *fl) {
  cg_alloc *A = fl->A;
  uint32_t S = fl->cap_st, G = fl->cap_g + 1, V = fl->cap_v, B = fl->cap_b;
  fl->block_vertex = CG_NEW(A, int32_t, B);
  fl->block_st0 = CG_NEW(A, uint32_t, B + 1), fl->block_g0 = CG_NEW(A, uint32_t, B + 1);
  fl->st = CG_NEW(A, int32_t, S), fl->st_dead = CG_NEW(A, uint8_t, S);
  fl->g_st0 = CG_NEW(A, uint32_t, G), fl->g_v0 = CG_NEW(A, uint32_t, G);
  fl->g_e0 = CG_NEW(A, uint32_t, G), fl->g_d0 = CG_NEW(A, uint32_t, G);
  fl->v_kind = CG_NEW(A, int32_t, V), fl->v_expr = CG_NEW(A, int32_t, V);
  fl->v_acc = CG_NEW(A, int32_t, V), fl->v_stmt = CG_NEW(A, int32_t, V);
  fl->e_src = CG_NEW(A, uint32_t, V), fl->e_dst = CG_NEW(A, uint32_t, V);
  fl->e_pos = CG_NEW(A, uint8_t, V);
  fl->g_r0 = CG_NEW(A, uint32_t, G), fl->r_expr = CG_NEW(A, int32_t, V);
  fl->r_def = CG_NEW(A, int32_t, V), fl->r_vertex = CG_NEW(A, uint32_t, V);
  fl->d_stmt = CG_NEW(A, int32_t, S), fl->d_acc = CG_NEW(A, int32_t, S);
  fl->d_vertex = CG_NEW(A, uint32_t, S);
  fl->d_aug = CG_NEW(A, uint8_t, S), fl->d_collapsed = CG_NEW(A, uint8_t, S);
  return fl->block_vertex && fl->block_st0 && fl->block_g0 && fl->st && fl->st_dead &&
         fl->g_st0 && fl->g_v0 && fl->g_e0 && fl->g_d0 && fl->v_kind && fl->v_expr &&
         fl->v_acc && fl->v_stmt && fl->e_src && fl->e_dst && fl->e_pos && fl->d_stmt &&
         fl->d_acc && fl->d_vertex && fl->d_aug && fl->d_collapsed && fl->g_r0 && fl->r_expr &&
         fl->r_def && fl->r_vertex;
}

/* The scratch's one exit: frees what was allocated (NULL is fine). */
static void ctx_done(ctx *c, cg_alloc *A) {
  uint32_t S = c->al->ns, X = c->al->nx;
  CG_FREE(A, c->blk, int32_t, S), CG_FREE(A, c->pos, int32_t, S), CG_FREE(A, c->ing, int32_t, S);
  CG_FREE(A, c->defv, uint32_t, S), CG_FREE(A, c->xacc, int32_t, X);
  CG_FREE(A, c->direct, int32_t, X), CG_FREE(A, c->vout, uint32_t, X);
  CG_FREE(A, c->vsame, uint32_t, X), CG_FREE(A, c->set_last, uint32_t, c->al->nset);
  CG_FREE(A, c->carries, uint8_t, S);
  counters_done(c, A);
}

static int ctx_init(ctx *c, cg_alloc *A) {
  const cg_kalias *al = c->al;
  uint32_t S = al->ns, X = al->nx, i;
  c->blk = CG_NEW(A, int32_t, S), c->pos = CG_NEW(A, int32_t, S), c->ing = CG_NEW(A, int32_t, S);
  c->defv = CG_NEW(A, uint32_t, S), c->xacc = CG_NEW(A, int32_t, X);
  c->direct = CG_NEW(A, int32_t, X), c->vout = CG_NEW(A, uint32_t, X);
  c->vsame = CG_NEW(A, uint32_t, X), c->set_last = CG_NEW(A, uint32_t, al->nset);
  c->carries = CG_NEW(A, uint8_t, S);
  if (!c->blk || !c->pos || !c->ing || !c->defv || !c->xacc || !c->direct || !c->vout || !c->vsame ||
      !c->set_last || !c->carries)
    return 0;
  for (i = 0; i < al->nset; i++) c->set_last[i] = NONE;
  for (i = 0; i < S; i++) c->blk[i] = -1, c->pos[i] = 0, c->ing[i] = -1, c->defv[i] = NONE, c->carries[i] = 0;
  for (i = 0; i < X; i++) c->xacc[i] = -1, c->direct[i] = -1;
  for (i = 0; i < al->nacc; i++) {
    int32_t x = al->acc_expr[i];
    if (al->acc_kind[i] == CG_KA_USE && x >= 0 && double_read(al->k, x)) c->xacc[XI(c, x)] = (int32_t)i;
  }
  c->g = -1;
  /* the stack of mark_carrying borrows defv (one entry per statement), not yet used */
  mark_carrying(c, (int32_t *)c->defv);
  for (i = 0; i < S; i++) c->defv[i] = NONE;
  return counters_init(c, A);
}

/* }==== */

/* Positions of the statements of the CFG's blocks; the blocks in source
 * order (the CFG numbers vertices in pre-order of the source). */
static void number_blocks(ctx *c, const cg_kcfg *cfg) {
  cg_kflat *fl = c->fl;
  uint32_t v, i;
  for (v = 0; v < cfg->nv; v++) {
    if (cfg->kind[v] != CG_KV_BLOCK) continue;
    for (i = cfg->bst_start[v]; i < cfg->bst_start[v + 1]; i++) {
      int32_t s = cfg->bst[i];
      c->blk[SI(c, s)] = (int32_t)fl->nblock, c->pos[SI(c, s)] = (int32_t)(i - cfg->bst_start[v]);
    }
    fl->block_vertex[fl->nblock++] = (int32_t)v;
  }
}

/* The run, with the splits of strategy or of decide (non-NULL). */
static cg_kflat *run(cg_alloc *A, const cg_kalias *al, const cg_kchains *ch, const cg_kcfg *cfg,
                     const cg_kactive *ac, int strategy, cg_kflat_decide dec, void *ud, cg_error *e) {
  cg_kflat *fl;
  ctx c;
  uint32_t b;
  int st = CG_OK;
  if (!al || !ch || !cfg || ch->al != al || cfg->func != al->func ||
      (ac && ac->s_lo != al->s_lo) || (!dec && !cg_kflat_strategy_name(strategy))) {
    cg_seterr(e, CG_EUSAGE, "flatten: bad arguments (analyses of different functions or no strategy)");
    return NULL;
  }
  memset(&c, 0, sizeof c);
  c.al = al, c.ch = ch, c.ac = ac, c.decide = dec, c.ud = ud, c.e = e;
  if (!(fl = CG_NEW(A, cg_kflat, 1))) goto nomem;
  memset(fl, 0, sizeof *fl);
  fl->A = A, fl->al = al, fl->ch = ch, fl->ac = ac, fl->strategy = dec ? CG_KFLAT_HOOK : strategy;
  fl->cap_st = al->ns, fl->cap_g = al->ns, fl->cap_v = al->nx, fl->cap_b = cfg->nv;
  c.fl = fl;
  if (!alloc_result(fl) || !ctx_init(&c, A)) goto nomem;
  number_blocks(&c, cfg);
  fl->g_st0[0] = fl->g_v0[0] = fl->g_e0[0] = fl->g_d0[0] = fl->g_r0[0] = 0;
  for (b = 0; b < fl->nblock && st == CG_OK; b++) {
    cg_progress_at(A, "flattening", b, fl->nblock); /* per block: few, each long */
    fl->block_st0[b] = fl->nst, fl->block_g0[b] = fl->ng;
    st = flatten_block(&c, cfg, (uint32_t)fl->block_vertex[b], b);
  }
  if (st == CG_OK) cg_progress_end(A, "flattening", fl->nblock);
  ctx_done(&c, A);
  if (st != CG_OK) { /* the hook's failure or a refused join: e says which */
    cg_kflat_free(fl);
    return NULL;
  }
  fl->block_st0[fl->nblock] = fl->nst, fl->block_g0[fl->nblock] = fl->ng;
  return fl;
nomem:
  cg_seterr(e, CG_ENOMEM, "flatten: out of memory");
  if (c.fl) ctx_done(&c, A);
  cg_kflat_free(fl);
  return NULL;
}

cg_kflat *cg_kflat_run(cg_alloc *A, const cg_kalias *al, const cg_kchains *ch,
                       const cg_kcfg *cfg, const cg_kactive *ac, int strategy, cg_error *e) {
  return run(A, al, ch, cfg, ac, strategy, NULL, NULL, e);
}

cg_kflat *cg_kflat_run_hook(cg_alloc *A, const cg_kalias *al, const cg_kchains *ch,
                            const cg_kcfg *cfg, const cg_kactive *ac, cg_kflat_decide decide,
                            void *ud, cg_error *e) {
  if (!decide) {
    cg_seterr(e, CG_EUSAGE, "flatten: no decision hook");
    return NULL;
  }
  return run(A, al, ch, cfg, ac, CG_KFLAT_HOOK, decide, ud, e);
}

/* {==== names ====} */

/* Appends to buf (truncating at size). */
static void nput(char *buf, size_t size, size_t *len, const char *s) {
  while (*s && *len + 1 < size) buf[(*len)++] = *s++;
  if (size) buf[*len] = 0;
}
static void nnum(char *buf, size_t size, size_t *len, long long v) {
  char n[32];
  snprintf(n, sizeof n, "%lld", v);
  nput(buf, size, len, n);
}

/* The int parameter whose entry value is number vn, -1 when vn is another
 * value (a loop counter, a cell's content).  The alias analysis gives the
 * function's int scalars their numbers first, in symbol order, and
 * parameters are the first symbols: the first numbers are the int
 * parameters' entry values. */
static int32_t entry_param(const cg_kalias *al, int32_t vn) {
  const cg_kernel *k = al->k;
  int32_t s0 = CG_KFUNC(k, al->func, SYM0), np = CG_KFUNC(k, al->func, NPARAM), s, n = 0;
  for (s = s0; s < s0 + np; s++) {
    if (CG_KSYM(k, s, PTR) || CG_KSYM(k, s, NDIM) || CG_KSYM(k, s, BASE) != CG_KT_INT) continue;
    if (n++ == vn) return al->vn_sym[vn] == s ? s : -1;
  }
  return -1;
}

/* Offset a over int parameters' entry values ("k", "2*k-1", "n-1", "3");
 * 0 when a term is another value or the offset is unknown. */
static int offset_text(const cg_kalias *al, const cg_kaff *a, char *buf, size_t size, size_t *len) {
  int32_t i;
  if (a->nt < 0) return 0;
  for (i = 0; i < a->nt; i++) {
    int32_t p = entry_param(al, a->vn[i]);
    int64_t co = a->coef[i];
    if (p < 0) return 0;
    if (co < 0) nput(buf, size, len, "-");
    else if (i) nput(buf, size, len, "+");
    if (co != 1 && co != -1) nnum(buf, size, len, co < 0 ? -co : co), nput(buf, size, len, "*");
    nput(buf, size, len, al->k->names[CG_KSYM(al->k, p, NAME)]);
  }
  if (a->c > 0 && a->nt) nput(buf, size, len, "+");
  if (a->c || !a->nt) nnum(buf, size, len, a->c);
  return 1;
}

/* The exact name of address d into buf, 0 when it has none. */
static int addr_name(const cg_kalias *al, const cg_kaddr *d, char *buf, size_t size) {
  const cg_kernel *k = al->k;
  int32_t o = d->obj, sym = al->obj_sym[o];
  size_t len = 0;
  nput(buf, size, &len, cg_kalias_obj_name(al, (uint32_t)o));
  if (al->obj_kind[o] != CG_KO_REGION && !CG_KSYM(k, sym, NDIM)) return 1; /* a scalar (t[1] is an array) */
  if (al->obj_kind[o] != CG_KO_REGION && CG_KSYM(k, sym, NDIM) >= 2) { /* t[r][c], t[p][r][c] */
    int dd, nd = CG_KSYM(k, sym, NDIM);
    int64_t rest = d->off.c;
    if (d->off.nt != 0 || rest < 0) return 0;
    for (dd = 0; dd < nd; dd++) {
      int64_t w = cg_ksym_stride(k, sym, dd);
      if (w <= 0) return 0;
      nput(buf, size, &len, "["), nnum(buf, size, &len, rest / w), nput(buf, size, &len, "]");
      rest %= w;
    }
    return 1;
  }
  nput(buf, size, &len, "[");
  if (!offset_text(al, &d->off, buf, size, &len)) return 0;
  nput(buf, size, &len, "]");
  return 1;
}

int cg_kflat_name(const cg_kflat *fl, int32_t a, int32_t x, char *buf, size_t size) {
  const cg_kalias *al = fl->al;
  uint32_t set;
  if (!size) return 0;
  if (a >= 0 && (uint32_t)a < al->nacc) {
    set = (uint32_t)al->acc_set[a];
    if (al->set_n[set] == 1 && addr_name(al, &al->addr[al->set_off[set]], buf, size)) return 1;
  }
  cg_kexpr_text(al->k, x, buf, size); /* not expressible: the source's text */
  return 0;
}

/* Whether set s holds an address of an object the caller sees: memory
 * through a pointer parameter, a global, or (params 1) a by-value
 * parameter. */
static int set_outside(const cg_kalias *al, uint32_t s, int params) {
  uint32_t i;
  for (i = 0; i < al->set_n[s]; i++) {
    int32_t o = al->addr[al->set_off[s] + i].obj;
    if (al->obj_kind[o] == CG_KO_REGION || al->obj_kind[o] == CG_KO_GLOBAL) return 1;
    if (params && CG_KSYM(al->k, al->obj_sym[o], KIND) == CG_KS_PARAM) return 1;
  }
  return 0;
}

int cg_kflat_outside(const cg_kflat *fl, uint32_t v) {
  int32_t u;
  if (v >= fl->nv || fl->v_kind[v] != CG_KFV_INDEP || (u = fl->v_acc[v]) < 0) return 0;
  if (fl->ch->ud_off[u] == fl->ch->ud_off[u + 1] || fl->ch->ud[fl->ch->ud_off[u]] != -1) return 0;
  return set_outside(fl->al, (uint32_t)fl->al->acc_set[u], 1);
}

int cg_kflat_observable(const cg_kflat *fl, uint32_t d) {
  const cg_kchains *ch = fl->ch;
  uint32_t i;
  if (d < fl->nd && CG_KSTMT(fl->al->k, fl->d_stmt[d], KIND) == CG_KST_RETURN) return 1; /* the result */
  if (d >= fl->nd || fl->d_acc[d] < 0) return 0;
  i = (uint32_t)(fl->d_stmt[d] - ch->s_lo);
  if (ch->du_off[i] == ch->du_off[i + 1] || ch->du[ch->du_off[i]] != -1) return 0;
  return set_outside(fl->al, (uint32_t)fl->al->acc_set[fl->d_acc[d]], 0);
}

int cg_kflat_active_return(const cg_kflat *fl, int32_t s) {
  uint32_t d;
  if (CG_KSTMT(fl->al->k, s, KIND) != CG_KST_RETURN) return 0;
  for (d = 0; d < fl->nd; d++)
    if (fl->d_stmt[d] == s) return 1;
  return 0;
}

/* }==== */

/* {==== building a subgraph as a cg_graph ====} */

static int fold(const cg_kflat *fl, int32_t x, int chains, double *v);

/* The constant a passive double read x holds (1), 0 when it is not one:
 * every definition its ud-chain names assigns a constant expression (read
 * no variable) and all have one value, bit for bit; an entry from before
 * the function is none.  O(the statement's accesses + the chain). */
static int defined_constant(const cg_kflat *fl, int32_t x, double *v) {
  const cg_kalias *al = fl->al;
  const cg_kernel *k = al->k;
  int32_t s = k->expr_stmt[x], a, a0, na, u = -1;
  uint32_t i;
  if (s < al->s_lo || s >= al->s_lo + (int32_t)al->ns) return 0;
  a0 = cg_kalias_acc0(al, s), na = cg_kalias_nacc(al, s);
  for (a = a0; a >= 0 && a < a0 + na && u < 0; a++)
    if (al->acc_kind[a] == CG_KA_USE && al->acc_expr[a] == x) u = a;
  if (u < 0 || fl->ch->ud_off[u] == fl->ch->ud_off[u + 1]) return 0;
  for (i = fl->ch->ud_off[u]; i < fl->ch->ud_off[u + 1]; i++) {
    int32_t r = fl->ch->ud[i];
    double w;
    if (r < 0 || CG_KSTMT(k, r, KIND) != CG_KST_ASSIGN || !fold(fl, CG_KSTMT(k, r, ASSIGN_RHS), 0, &w)) return 0;
    if (i > fl->ch->ud_off[u] && memcmp(&w, v, sizeof w)) return 0;
    *v = w;
  }
  return 1;
}

/* The value of a constant subexpression into *v (1), or 0 when it reads a
 * variable (chains: a passive read holding a constant, defined_constant,
 * counts as one; only vertex arguments are folded, and a passive read is
 * never a vertex).  The arithmetic is the kernel's (doubles; an int constant
 * converted as C does); an intrinsic is the operation table's value, the
 * same C function. */
static int fold(const cg_kflat *fl, int32_t x, int chains, double *v) {
  const cg_kernel *k = fl->al->k;
  int32_t ops[3];
  double a[3] = {0, 0, 0};
  uint64_t sw = 0; /* the switch a branching operation reports: a constant has none to keep */
  int n, i, op = CG_KEXPR(k, x, OP);
  if (op == CG_KE_CONST_D) return *v = k->dconst[CG_KEXPR(k, x, IVAL)], 1;
  if (op == CG_KE_CAST && CG_KEXPR(k, CG_KEXPR(k, x, A), OP) == CG_KE_CONST_I)
    return *v = (double)(CG_KEXPR(k, x, IVAL) > CG_KC_INT
                             ? cg_kctype_wrap(CG_KEXPR(k, x, IVAL), CG_KEXPR(k, CG_KEXPR(k, x, A), IVAL))
                             : CG_KEXPR(k, CG_KEXPR(k, x, A), IVAL)),
           1;
  if (CG_KEXPR(k, x, TYPE) != CG_KT_DOUBLE) return 0;
  if (chains && (op == CG_KE_VAR || op == CG_KE_ELEM)) return defined_constant(fl, x, v);
  if (op != CG_KE_NEG && op != CG_KE_ADD && op != CG_KE_SUB && op != CG_KE_MUL && op != CG_KE_DIV &&
      op != CG_KE_INTRIN)
    return 0;
  n = cg_kexpr_operands(k, x, ops);
  for (i = 0; i < n; i++)
    if (ops[i] >= 0 && !fold(fl, ops[i], chains, &a[i])) return 0;
  switch (op) {
  case CG_KE_NEG: *v = -a[0]; break;
  case CG_KE_ADD: *v = a[0] + a[1]; break;
  case CG_KE_SUB: *v = a[0] - a[1]; break;
  case CG_KE_MUL: *v = a[0] * a[1]; break;
  case CG_KE_DIV: *v = a[0] / a[1]; break;
  default: *v = cg_gop_apply((unsigned)cg_kintrinsic_gop(CG_KEXPR(k, x, SYM)), 0, a, &sw);
  }
  return 1;
}

/* The graph operation of an operation vertex's expression (-1: none). */
static int vertex_gop(const cg_kernel *k, int32_t x) {
  switch (CG_KEXPR(k, x, OP)) {
  case CG_KE_NEG: return CG_G_NEG;
  case CG_KE_ADD: return CG_G_ADD;
  case CG_KE_SUB: return CG_G_SUB;
  case CG_KE_MUL: return CG_G_MUL;
  case CG_KE_DIV: return CG_G_DIV;
  case CG_KE_COND: return CG_G_COND;
  case CG_KE_INTRIN: return cg_kintrinsic_gop(CG_KEXPR(k, x, SYM));
  default: return -1;
  }
}

/* Puts the value of passive argument x at location loc: a folded constant,
 * else the caller's value at the point. */
static int passive_arg(cg_gbuild *b, const cg_kflat *fl, int32_t x, uint64_t loc,
                       cg_kflat_passive pv, void *ud, cg_error *e) {
  const cg_kernel *k = fl->al->k;
  double v;
  int rc;
  if (!fold(fl, x, 1, &v)) {
    char text[128];
    if (!pv) {
      cg_kexpr_text(k, x, text, sizeof text);
      return cg_seterr(e, CG_EUSAGE, "%s:%d:%d: the value of the passive expression %s is needed",
                       k->file ? k->file : "kernel", CG_KEXPR(k, x, LINE), CG_KEXPR(k, x, COL), text);
    }
    if ((rc = pv(ud, x, &v, e)) != CG_OK) return rc;
  }
  return cg_gbuild_constant(b, loc, v);
}

/* One operation vertex v of subgraph g: inputs from its edges (contiguous,
 * made right after v), the other slots passive (each a constant node,
 * counted in *nodes); the vertex at location v - v0, scratch locations
 * from nloc. */
static int build_op(cg_gbuild *b, const cg_kflat *fl, uint32_t g, uint32_t v, uint32_t *edge,
                    cg_kflat_passive pv, void *ud, uint32_t *nodes, cg_error *e) {
  const cg_kernel *k = fl->al->k;
  uint32_t v0 = fl->g_v0[g], nloc = fl->g_v0[g + 1] - v0;
  int32_t x = fl->v_expr[v], ops[3];
  uint64_t in[3];
  int n = cg_kexpr_operands(k, x, ops), i, rc, gop = vertex_gop(k, x);
  while (n > 0 && ops[n - 1] < 0) n--; /* a unary intrinsic leaves its B slot unused */
  if (gop < 0) return cg_seterr(e, CG_EUSAGE, "flatten: no graph operation for %s", cg_kexpr_name(CG_KEXPR(k, x, OP)));
  for (i = 0; i < n; i++) in[i] = (uint64_t)nloc + (uint64_t)i;
  for (; *edge < fl->g_e0[g + 1] && fl->e_dst[*edge] == v; (*edge)++)
    in[fl->e_pos[*edge]] = fl->e_src[*edge] - v0;
  for (i = 0; i < n; i++) {
    if (in[i] < nloc) continue;
    if ((rc = passive_arg(b, fl, ops[i], in[i], pv, ud, e)) != CG_OK) return rc;
    (*nodes)++; /* a constant node (made at once in a term graph) */
  }
  return cg_gbuild_op(b, v - v0, (unsigned)gop, 0, in, (unsigned)n);
}

/* The build's state: the node count so far (each verb of a term graph makes
 * one node: hoisting and dead-root removal are off) and, when wanted, the
 * node of each vertex (local index). */
typedef struct gstate {
  uint32_t nodes;
  uint32_t *node_of;
} gstate;

/* The dependents of subgraph g: an augmented one (its vertex has successors)
 * or a collapsed one (its vertex is an independent, `y = x`) gets a COPY
 * node that is the dependent, a unit edge from its vertex (Utke, Flattening,
 * sec. 6.2 and Fig. 6c); the others are their vertices.  Copies at
 * locations from base. */
static int build_dependents(cg_gbuild *b, const cg_kflat *fl, uint32_t g, uint64_t base, gstate *gs) {
  uint32_t d, v0 = fl->g_v0[g];
  int rc = CG_OK;
  for (d = fl->g_d0[g]; d < fl->g_d0[g + 1] && rc == CG_OK; d++) {
    uint64_t loc = fl->d_vertex[d] - v0;
    if (fl->d_aug[d] || fl->d_collapsed[d]) {
      uint64_t in[1];
      in[0] = loc, loc = base + (d - fl->g_d0[g]);
      if ((rc = cg_gbuild_op(b, loc, CG_G_COPY, 0, in, 1)) != CG_OK) break;
      gs->nodes++;
    }
    rc = cg_gbuild_dependent(b, loc);
  }
  return rc;
}

/* Builds subgraph g (the vertices, then the dependents) with switches o;
 * gs counts the nodes made (a term graph's numbering). */
static cg_graph *build(cg_alloc *A, const cg_kflat *fl, uint32_t g, const double *indep,
                       cg_kflat_passive pv, void *ud, const cg_gopts *o, gstate *gs, cg_error *e) {
  cg_gbuild *b;
  cg_ghints h;
  uint32_t v, edge, ni = 0, nloc;
  int rc = CG_OK;
  if (!fl || g >= fl->ng || (!indep && fl->g_v0[g + 1] > fl->g_v0[g])) {
    cg_seterr(e, CG_EUSAGE, "flatten: no subgraph %u", (unsigned)g + 1);
    return NULL;
  }
  nloc = fl->g_v0[g + 1] - fl->g_v0[g];
  memset(&h, 0, sizeof h);
  h.name = fl->al->k->file, h.ops = nloc + (fl->g_d0[g + 1] - fl->g_d0[g]);
  h.locs = h.ops + 3;
  if (!(b = cg_gbuild_begin(A, o, 1, &h, e))) return NULL;
  for (v = fl->g_v0[g], edge = fl->g_e0[g]; v < fl->g_v0[g + 1] && rc == CG_OK; v++) {
    if (fl->v_kind[v] == CG_KFV_INDEP) rc = cg_gbuild_independent(b, v - fl->g_v0[g], indep[ni++]);
    else rc = build_op(b, fl, g, v, &edge, pv, ud, &gs->nodes, e);
    if (gs->node_of) gs->node_of[v - fl->g_v0[g]] = gs->nodes;
    gs->nodes++;
  }
  if (rc == CG_OK) rc = build_dependents(b, fl, g, (uint64_t)nloc + 3, gs);
  if (rc != CG_OK) {
    cg_gbuild_abort(b);
    return NULL;
  }
  return cg_gbuild_finish(b);
}

cg_graph *cg_kflat_graph(cg_alloc *A, const cg_kflat *fl, uint32_t g, const double *indep,
                         cg_kflat_passive pv, void *ud, const cg_gopts *o, cg_error *e) {
  gstate gs = {0, NULL};
  return build(A, fl, g, indep, pv, ud, o, &gs, e);
}

/* Whether node n of gr is vertex v's: an independent, or an operation whose
 * own operation (its chain's last) is v's. */
static int node_is(const cg_graph *gr, const cg_kflat *fl, uint32_t v, uint32_t n) {
  unsigned op;
  if (n >= gr->n) return 0;
  op = gr->op[gr->op_start[n + 1] - 1];
  if (fl->v_kind[v] == CG_KFV_INDEP) return op == CG_G_INDEP;
  return gr->op_start[n + 1] - gr->op_start[n] == 1 && (int)op == vertex_gop(fl->al->k, fl->v_expr[v]);
}

cg_graph *cg_kflat_term_graph(cg_alloc *A, const cg_kflat *fl, uint32_t g, const double *indep,
                              cg_kflat_passive pv, void *ud, uint32_t *node_of, cg_error *e) {
  cg_gopts o;
  gstate gs;
  cg_graph *gr;
  uint32_t v;
  cg_gopts_default(&o);
  o.hoist = o.recover_hoists = o.dead_roots = 0; /* every verb keeps its node, in creation order */
  gs.nodes = 0, gs.node_of = node_of;
  if (!(gr = build(A, fl, g, indep, pv, ud, &o, &gs, e))) return NULL;
  for (v = 0; node_of && v < fl->g_v0[g + 1] - fl->g_v0[g]; v++)
    if (!node_is(gr, fl, fl->g_v0[g] + v, node_of[v])) { /* the numbering is the builder's */
      cg_graph_free(gr);
      cg_seterr(e, CG_ERUNTIME, "flatten: vertex %u of subgraph %u is not node %u of its graph",
                (unsigned)v + 1, (unsigned)g + 1, (unsigned)node_of[v] + 1);
      return NULL;
    }
  return gr;
}

/* }==== */

uint32_t cg_kflat_passive_args(const cg_kflat *fl, uint32_t g, int32_t *out) {
  const cg_kernel *k = fl->al->k;
  uint32_t v, n = 0, edge = fl->g_e0[g];
  for (v = fl->g_v0[g]; v < fl->g_v0[g + 1]; v++) {
    int32_t ops[3];
    int i, m, has[3] = {0, 0, 0};
    double c;
    if (fl->v_kind[v] == CG_KFV_INDEP) continue;
    for (; edge < fl->g_e0[g + 1] && fl->e_dst[edge] == v; edge++) has[fl->e_pos[edge]] = 1;
    m = cg_kexpr_operands(k, fl->v_expr[v], ops);
    for (i = 0; i < m; i++)
      if (!has[i] && ops[i] >= 0 && !fold(fl, ops[i], 1, &c)) {
        if (out) out[n] = ops[i];
        n++;
      }
  }
  return n;
}
