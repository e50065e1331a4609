/* lcg_kpoint.c: the flattened subgraphs at a point the kernel interpreter
 * reaches, and as linearized graphs (doc/flattening.md, "Values at a point
 * and linearized graphs"):
 *   res.values(call [, {instance = n, max_steps =, max_calls =}]) -> pts | nil, msg
 *   res.lingraph(block, sub, values [, passive]) -> cgwb.LinGraph, map | nil, msg */
#include <math.h>
#include <string.h>

#include "lcg_kpoint.h"
#include "../elim/cg_lin.h"
#include "../kernel/cg_kinterp.h"

#define NONE UINT32_MAX

/* {==== passive values ====} */

int lcg_kpassive_cb(void *ud, int32_t x, double *v, cg_error *e) {
  lcg_pvctx *p = (lcg_pvctx *)ud;
  (void)x;
  if (p->next >= p->n) return cg_seterr(e, CG_ERUNTIME, "graph: passive values out of step");
  *v = p->v[p->next++];
  return CG_OK;
}

void lcg_kpassive(lua_State *L, const cg_kflat *fl, uint32_t g, int idx, lcg_pvctx *p,
                  const char *what) {
  uint32_t m = cg_kflat_passive_args(fl, g, NULL), i;
  int32_t *xs = (int32_t *)lua_newuserdatauv(L, m * sizeof *xs, 0);
  double *v = (double *)lua_newuserdatauv(L, m * sizeof *v, 0);
  int fn = lua_isfunction(L, idx);
  if (!fn && !lua_istable(L, idx))
    luaL_argexpected(L, 0, idx, "a function or an array of the passive values");
  if (!fn && luaL_len(L, idx) != (lua_Integer)m)
    luaL_error(L, "%s: %d passive values for %d passive arguments", what, (int)luaL_len(L, idx), (int)m);
  cg_kflat_passive_args(fl, g, xs);
  for (i = 0; i < m; i++) {
    if (fn) {
      lua_pushvalue(L, idx);
      lcg_push_id(L, (uint64_t)xs[i]);
      lua_call(L, 1, 1);
    } else
      lua_geti(L, idx, (lua_Integer)i + 1);
    if (!lua_isnumber(L, -1))
      luaL_error(L, "%s: no number for the passive expression %d", what, (int)xs[i] + 1);
    v[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  p->v = v, p->next = 0, p->n = m;
}

/* }==== */

/* {==== values at a point ====} */

/* The recording of one interpreter run, in a box: per statement of the
 * function's window its subgraph, per subgraph how often it started, and
 * the values of the run being recorded (the instance-th of its subgraph)
 * kept per vertex, passive argument and dependent of the flattening. */
typedef struct vrun {
  cg_alloc A;
  const cg_kflat *fl;
  uint32_t instance, ns, npa;
  int32_t *sg;            /* ns: the subgraph of statement s_lo + i, -1 none */
  uint32_t *count;        /* ng: runs started */
  uint8_t *rec;           /* ng: the instance-th run was recorded */
  uint32_t *pa0;          /* ng + 1: passive arguments of g at pa0[g] .. */
  int32_t *pax;           /* npa: their expressions */
  double *vval, *pval, *dval; /* nv, npa, nd */
  uint8_t *vok;           /* nv: independent read */
  int32_t active;         /* the subgraph being recorded, -1 none */
  uint64_t frame;         /* its frame */
  uint32_t rcur, pcur, dcur; /* its next read, passive argument, dependent */
  cg_kresult r;
} vrun;

static void vrun_release(void *p, cg_alloc *A) {
  vrun *u = (vrun *)p;
  const cg_kflat *fl = u->fl;
  cg_kresult_free(&u->r);
  if (!fl) return;
  CG_FREE(A, u->sg, int32_t, u->ns), CG_FREE(A, u->count, uint32_t, fl->ng);
  CG_FREE(A, u->rec, uint8_t, fl->ng), CG_FREE(A, u->pa0, uint32_t, fl->ng + 1);
  CG_FREE(A, u->pax, int32_t, u->npa), CG_FREE(A, u->pval, double, u->npa);
  CG_FREE(A, u->vval, double, fl->nv), CG_FREE(A, u->vok, uint8_t, fl->nv);
  CG_FREE(A, u->dval, double, fl->nd);
  u->fl = NULL;
}

/* The arrays of u for flattening fl (raises on out of memory: the box
 * frees what was made). */
static void vrun_init(lua_State *L, vrun *u, const cg_kflat *fl) {
  cg_alloc *A = &u->A;
  uint32_t g, i;
  u->ns = fl->al->ns, u->active = -1;
  for (g = 0; g < fl->ng; g++) u->npa += cg_kflat_passive_args(fl, g, NULL);
  u->fl = fl;
  u->sg = CG_NEW(A, int32_t, u->ns), u->count = CG_NEW(A, uint32_t, fl->ng);
  u->rec = CG_NEW(A, uint8_t, fl->ng), u->pa0 = CG_NEW(A, uint32_t, fl->ng + 1);
  u->pax = CG_NEW(A, int32_t, u->npa), u->pval = CG_NEW(A, double, u->npa);
  u->vval = CG_NEW(A, double, fl->nv), u->vok = CG_NEW(A, uint8_t, fl->nv);
  u->dval = CG_NEW(A, double, fl->nd);
  if (!u->sg || !u->count || !u->rec || !u->pa0 || (u->npa && (!u->pax || !u->pval)) ||
      (fl->nv && (!u->vval || !u->vok)) || (fl->nd && !u->dval))
    lcg_nomem(L, "values");
  for (i = 0; i < u->ns; i++) u->sg[i] = -1;
  for (g = 0; g < fl->ng; g++) {
    u->count[g] = 0, u->rec[g] = 0;
    for (i = fl->g_st0[g]; i < fl->g_st0[g + 1]; i++) u->sg[fl->st[i] - fl->al->s_lo] = (int32_t)g;
  }
  for (g = 0, u->pa0[0] = 0; g < fl->ng; g++)
    u->pa0[g + 1] = u->pa0[g] + cg_kflat_passive_args(fl, g, u->pax ? u->pax + u->pa0[g] : NULL);
  for (i = 0; i < fl->nv; i++) u->vval[i] = NAN, u->vok[i] = 0;
  for (i = 0; i < u->npa; i++) u->pval[i] = NAN;
}

/* Before statement s of the recorded run: its reads of independents not yet
 * read, and its passive arguments.  An independent is read at a statement
 * of the run that uses it, and that value is memory's at the run's start:
 * Algorithm 2 made it an independent only because no statement of the run,
 * and no passive statement inside its span, may define what it reads (its
 * ud-chain restricted to the block holds none), so nothing written since the
 * start reaches it.  An evaluation that fails (a read only a ?: branch C
 * does not take would make: an uninitialized or out-of-range cell) is
 * retried at the next use of the same vertex, and leaves NaN if none reads
 * it (then no value of the run depends on it: its partial is 0). */
static void record_before(vrun *u, const cg_kpoint *p, int32_t s) {
  const cg_kflat *fl = u->fl;
  const cg_kernel *k = fl->al->k;
  uint32_t g = (uint32_t)u->active;
  cg_error e;
  double v;
  for (; u->rcur < fl->g_r0[g + 1] && k->expr_stmt[fl->r_expr[u->rcur]] == s; u->rcur++) {
    uint32_t w = fl->r_vertex[u->rcur];
    if (fl->r_def[u->rcur] >= 0 || fl->v_kind[w] != CG_KFV_INDEP || u->vok[w]) continue;
    if (cg_kpoint_eval(p, fl->r_expr[u->rcur], &v, &e) == CG_OK) u->vval[w] = v, u->vok[w] = 1;
  }
  for (; u->pcur < u->pa0[g + 1] && k->expr_stmt[u->pax[u->pcur]] == s; u->pcur++)
    if (cg_kpoint_eval(p, u->pax[u->pcur], &v, &e) == CG_OK) u->pval[u->pcur] = v;
}

/* After statement s of the recorded run: the values its dependents wrote
 * (the left-hand side read back; a return's: its value, read before it, as
 * the interpreter calls no hook after a return), and the run's end after
 * its last statement. */
static void record_after(vrun *u, const cg_kpoint *p, int32_t s) {
  const cg_kflat *fl = u->fl;
  const cg_kernel *k = fl->al->k;
  uint32_t g = (uint32_t)u->active;
  int32_t x = CG_KSTMT(k, s, KIND) == CG_KST_RETURN ? CG_KSTMT(k, s, RETURN_VALUE) : CG_KSTMT(k, s, ASSIGN_LHS);
  cg_error e;
  for (; u->dcur < fl->g_d0[g + 1] && fl->d_stmt[u->dcur] == s; u->dcur++)
    if (cg_kpoint_eval(p, x, &u->dval[u->dcur], &e) != CG_OK)
      u->dval[u->dcur] = NAN; /* a written cell reads back: not reached */
  if (s == fl->st[fl->g_st0[g + 1] - 1]) u->rec[g] = 1, u->active = -1;
}

/* The statement hook: runs of subgraphs in activations of the flattened
 * function (every one counted), the instance-th of each recorded.  A run
 * has no call inside its span (a call ends a subgraph), so runs of two
 * activations never interleave. */
static int values_hook(void *ud, const cg_kpoint *p, int32_t s, int32_t func, uint64_t frame,
                       int after, cg_error *e) {
  vrun *u = (vrun *)ud;
  const cg_kflat *fl = u->fl;
  int32_t g;
  (void)e;
  if (func != fl->al->func || s < fl->al->s_lo || (uint32_t)(s - fl->al->s_lo) >= u->ns) return CG_OK;
  if ((g = u->sg[s - fl->al->s_lo]) < 0) return CG_OK;
  if (!after && s == fl->st[fl->g_st0[g]] && ++u->count[g] == u->instance) {
    u->active = g, u->frame = frame;
    u->rcur = fl->g_r0[g], u->pcur = u->pa0[g], u->dcur = fl->g_d0[g];
  }
  if (u->active != g || u->frame != frame) return CG_OK;
  if (after) record_after(u, p, s);
  else {
    record_before(u, p, s);
    if (CG_KSTMT(fl->al->k, s, KIND) == CG_KST_RETURN) record_after(u, p, s); /* no hook after it */
  }
  return CG_OK;
}

/* pts[b][s] of recorded subgraph g (local index s of its block). */
static void push_point(lua_State *L, const vrun *u, uint32_t g) {
  const cg_kflat *fl = u->fl;
  uint32_t v, i;
  int n = 0;
  lua_createtable(L, 0, 4);
  lua_newtable(L);
  for (v = fl->g_v0[g]; v < fl->g_v0[g + 1]; v++)
    if (fl->v_kind[v] == CG_KFV_INDEP) lua_pushnumber(L, u->vval[v]), lua_rawseti(L, -2, ++n);
  lua_setfield(L, -2, "indep");
  lcg_push_numbers(L, u->pval + u->pa0[g], u->pa0[g + 1] - u->pa0[g]);
  lua_setfield(L, -2, "passive");
  lua_createtable(L, (int)(fl->g_d0[g + 1] - fl->g_d0[g]), 0);
  for (i = fl->g_d0[g]; i < fl->g_d0[g + 1]; i++)
    lua_pushnumber(L, u->dval[i]), lua_rawseti(L, -2, (lua_Integer)(i - fl->g_d0[g] + 1));
  lua_setfield(L, -2, "dependents");
  lua_pushinteger(L, (lua_Integer)u->count[g]), lua_setfield(L, -2, "count");
}

/* The live flattening of a closure (upvalue 2), its kernel checked alive
 * (upvalue 3). */
static const cg_kflat *live_flat(lua_State *L, const char *what) {
  cg_kflat *const *flp = (cg_kflat *const *)lua_touserdata(L, lua_upvalueindex(2));
  lkernel *ku = (lkernel *)lua_touserdata(L, lua_upvalueindex(3));
  if (!*flp) luaL_error(L, "%s: the flattening was freed", what);
  if (!ku->k || ku->k != (*flp)->al->k) luaL_error(L, "%s: its cgwb.Kernel was freed", what);
  return *flp;
}

/* values(call [, opts]) -> {[block] = {[sub] = {indep=, passive=, dependents=,
 * count=}}} | nil, msg: the interpreter runs call; each subgraph's
 * instance-th run (opts.instance, default 1) gives its point. */
static int l_values(lua_State *L) {
  const cg_kflat *fl = live_flat(L, "values");
  lkernel *ku = (lkernel *)lua_touserdata(L, lua_upvalueindex(3));
  lua_Integer inst = 1;
  cg_kcall *c;
  vrun *u;
  cg_error e;
  uint32_t b, g;
  lua_settop(L, 2);
  if (!lua_isnil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    if (lua_getfield(L, 2, "instance") != LUA_TNIL) inst = luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    luaL_argcheck(L, inst >= 1 && inst <= UINT32_MAX, 2, "instance must be >= 1");
  }
  c = lcg_kcall(L, fl->al->func, 1, 2); /* 3 */
  u = (vrun *)lcg_box(L, sizeof *u, vrun_release); /* 4 */
  lcg_alloc(L, &u->A);
  u->instance = (uint32_t)inst;
  vrun_init(L, u, fl);
  c->hook = values_hook, c->hook_ud = u;
  if (cg_kinterp_run(&u->A, ku->k, c, &u->r, &e)) return lcg_fail(L, &e);
  lua_createtable(L, (int)fl->nblock, 0);
  for (b = 0; b < fl->nblock; b++) {
    lua_newtable(L);
    for (g = fl->block_g0[b]; g < fl->block_g0[b + 1]; g++)
      if (u->rec[g]) push_point(L, u, g), lua_rawseti(L, -2, (lua_Integer)(g - fl->block_g0[b] + 1));
    lua_rawseti(L, -2, (lua_Integer)b + 1);
  }
  lcg_unbox(u);
  return 1;
}

/* }==== */

/* {==== linearized graphs ====} */

/* The term graph being linearized, owned by a box. */
typedef struct lterm {
  cg_alloc A;
  cg_graph *gr;
} lterm;

static void term_release(void *p, cg_alloc *A) {
  lterm *t = (lterm *)p;
  (void)A;
  cg_graph_free(t->gr);
  t->gr = NULL;
}

/* map = {vertex = {[v] = lin vertex}, dependent = {[d] = lin vertex}}
 * (1-based): a vertex by its node (a vertex on no path from an independent
 * to a dependent has none); the first LinGraph vertex of a node is its own,
 * the copies the linearizer adds come after. */
static void push_map(lua_State *L, const cg_kflat *fl, uint32_t g, const cg_graph *gr,
                     const cg_lin *lg, const uint32_t *node_of) {
  uint32_t *lin = (uint32_t *)lua_newuserdatauv(L, gr->n * sizeof *lin, 0);
  uint32_t i, nloc = fl->g_v0[g + 1] - fl->g_v0[g];
  for (i = 0; i < gr->n; i++) lin[i] = NONE;
  for (i = lg->nv; i-- > 0;)
    if (lg->node[i] < gr->n) lin[lg->node[i]] = i; /* downwards: the first wins */
  lua_createtable(L, 0, 2);
  lua_createtable(L, (int)nloc, 0);
  for (i = 0; i < nloc; i++)
    if (lin[node_of[i]] != NONE) lcg_push_id(L, lin[node_of[i]]), lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_setfield(L, -2, "vertex");
  lua_createtable(L, (int)lg->m, 0);
  for (i = 0; i < lg->m; i++) lcg_push_id(L, lg->y[i]), lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_setfield(L, -2, "dependent");
  lua_remove(L, -2);
}

/* lingraph(block, sub, values [, passive]) -> cgwb.LinGraph, map | nil, msg:
 * the term graph of the subgraph at the point (cg_kflat_term_graph: a node
 * per vertex, copies for augmented and collapsed dependents) linearized as
 * core.linearize does. */
static int l_lingraph(lua_State *L) {
  const cg_kflat *fl = live_flat(L, "lingraph");
  lua_Integer bi = luaL_checkinteger(L, 1), si = luaL_checkinteger(L, 2);
  uint32_t g, nind = 0, v, *node_of;
  const double *vals;
  lcg_pvctx p = {NULL, 0, 0};
  lterm *t;
  cg_lin **slot;
  cg_alloc *LA;
  cg_error e;
  lua_settop(L, 4);
  luaL_argcheck(L, bi >= 1 && (uint64_t)bi <= fl->nblock, 1, "block id out of range");
  g = fl->block_g0[bi - 1] + (uint32_t)(si - 1);
  luaL_argcheck(L, si >= 1 && g < fl->block_g0[bi], 2, "subgraph id out of range");
  for (v = fl->g_v0[g]; v < fl->g_v0[g + 1]; v++) nind += fl->v_kind[v] == CG_KFV_INDEP;
  vals = lcg_optpoint(L, 3, nind, "lingraph"); /* 5 */
  if (!vals) luaL_argerror(L, 3, "the independents' values expected");
  if (!lua_isnil(L, 4)) lcg_kpassive(L, fl, g, 4, &p, "lingraph");
  v = fl->g_v0[g + 1] - fl->g_v0[g];
  node_of = (uint32_t *)lua_newuserdatauv(L, v * sizeof *node_of, 0);
  t = (lterm *)lcg_box(L, sizeof *t, term_release);
  lcg_alloc(L, &t->A);
  if (!(t->gr = cg_kflat_term_graph(&t->A, fl, g, vals, lua_isnil(L, 4) ? NULL : lcg_kpassive_cb, &p,
                                    node_of, &e)))
    return lcg_fail(L, &e);
  slot = lcg_newlin(L, &LA);
  if (!(*slot = cg_lin_from_graph(t->gr, &e))) return lcg_fail(L, &e);
  (*slot)->A = LA; /* the same Lua allocator, owned by the LinGraph */
  push_map(L, fl, g, t->gr, *slot, node_of);
  lcg_unbox(t);
  return 2;
}

/* }==== */

void lcg_kpoint_set(lua_State *L, int box, cg_kflat *const *flp, int kernel) {
  lua_pushvalue(L, box), lua_pushlightuserdata(L, (void *)(uintptr_t)flp), lua_pushvalue(L, kernel);
  lua_pushcclosure(L, l_values, 3), lua_setfield(L, -2, "values");
  lua_pushvalue(L, box), lua_pushlightuserdata(L, (void *)(uintptr_t)flp), lua_pushvalue(L, kernel);
  lua_pushcclosure(L, l_lingraph, 3), lua_setfield(L, -2, "lingraph");
}
