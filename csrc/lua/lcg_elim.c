/* lcg_elim.c: the cgwb.LinGraph userdata: linearized graphs, eliminations,
 * Jacobians.  Vertex ids seen from Lua are 1-based. */
#include <stdlib.h>
#include <string.h>

#include "../elim/cg_lin.h"
#include "../elim/cg_order.h"
#include "../elim/cg_mtx.h"
#include "lcg.h"

#define LCG_LIN "cgwb.LinGraph"

/* busy: an elimination driven by Lua callbacks is running on g; the
 * callbacks may read the graph but not free or change it. */
typedef struct llin {
  cg_lin *g;
  cg_alloc A;
  int busy;
  cg_branch br; /* of the graph it was linearized from (cg_graph.branch) */
} llin;

static int lin_free(lua_State *L) {
  llin *u = (llin *)luaL_checkudata(L, 1, LCG_LIN);
  if (u->busy) return luaL_error(L, "cgwb.LinGraph freed inside its own elimination");
  cg_lin_free(u->g);
  u->g = NULL;
  return 0;
}

static llin *checklin(lua_State *L, int idx) {
  llin *u = (llin *)luaL_checkudata(L, idx, LCG_LIN);
  if (!u->g) luaL_argerror(L, idx, "cgwb.LinGraph used after free()");
  return u;
}

/* The graph at idx for an operation that changes it. */
static llin *checkidle(lua_State *L, int idx) {
  llin *u = checklin(L, idx);
  if (u->busy) luaL_argerror(L, idx, "cgwb.LinGraph changed inside its own elimination");
  return u;
}

static llin *newlin(lua_State *L) {
  llin *u = (llin *)lua_newuserdatauv(L, sizeof *u, 0);
  u->g = NULL;
  u->busy = 0;
  memset(&u->br, 0, sizeof u->br);
  lcg_alloc(L, &u->A);
  luaL_setmetatable(L, LCG_LIN);
  return u;
}

struct cg_lin **lcg_newlin(lua_State *L, cg_alloc **A) {
  llin *u = newlin(L);
  *A = &u->A;
  return &u->g;
}

struct cg_lin *lcg_checklin(lua_State *L, int idx, int **busy) {
  llin *u = checkidle(L, idx);
  if (busy) *busy = &u->busy;
  return u->g;
}

static uint32_t checkvertex(lua_State *L, llin *u, int idx) {
  return lcg_check_id(L, idx, u->g->nv, "vertex");
}

/* core.linearize(graph) -> LinGraph | nil, msg */
static int l_linearize(lua_State *L) {
  cg_graph *gr = lcg_checkgraph(L, 1);
  llin *u = newlin(L);
  cg_error e;
  u->g = cg_lin_from_graph(gr, &e);
  if (!u->g) return lcg_fail(L, &e);
  u->g->A = &u->A; /* the same Lua allocator, owned by this object: the graph may go first */
  u->br = gr->branch;
  return 1;
}

/* lg:branch_changes() -> count, first record (1-based) or nil, its opcode or
 * nil: as g:branch_changes() of the graph lg was linearized from. */
static int lin_branch_changes(lua_State *L) {
  return lcg_push_branch(L, &checklin(L, 1)->br);
}

/* A graph-file parser of csrc/elim (cg_lin_read_cg, cg_lin_read_eliad). */
typedef cg_lin *(*lin_parser)(cg_alloc *A, const char *name, const char *buf, size_t len,
                              cg_error *e);

/* (text [, name]) -> LinGraph | nil, msg, through parser p. */
static int read_with(lua_State *L, lin_parser p) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  const char *name = luaL_optstring(L, 2, "(string)");
  llin *u = newlin(L);
  cg_error e;
  u->g = p(&u->A, name, s, len, &e);
  if (!u->g) return lcg_fail(L, &e);
  return 1;
}

/* core.read_cg(text [, name]) -> LinGraph | nil, msg */
static int l_read_cg(lua_State *L) { return read_with(L, cg_lin_read_cg); }

/* The ints of list idx (1..n each) into a scratch array of Lua's (freed by
 * the GC, so a raise leaks nothing); *len its length. */
static uint32_t *vertex_list(lua_State *L, int idx, lua_Integer n, uint32_t *len, const char *what) {
  lua_Integer i, m = (lua_Integer)lua_rawlen(L, idx);
  uint32_t *a = (uint32_t *)lua_newuserdatauv(L, (size_t)m * sizeof *a, 0);
  for (i = 1; i <= m; i++) {
    lua_Integer v = (lua_rawgeti(L, idx, i), lua_tointeger(L, -1));
    lua_pop(L, 1);
    if (v < 1 || v > n) luaL_error(L, "core.lin_graph: %s %d is no vertex 1..%d", what, (int)v, (int)n);
    a[i - 1] = (uint32_t)(v - 1);
  }
  *len = (uint32_t)m;
  return a;
}

/* core.lin_graph(n, x, y, preds) -> LinGraph: the structural linearized
 * graph (no weights) of vertices 1..n (node ids 1..n), independents x and
 * dependents y (lists of vertices), preds[v] the predecessors of v, edges
 * added v by v in each list's order: the graph the .cg reader makes of
 * "X: x..", "Y: y..", "v: p.." lines, without the text (tangent code). */
static int l_lin_graph(lua_State *L) {
  lua_Integer n = luaL_checkinteger(L, 1), v, j;
  uint32_t nx, ny, *x, *y;
  llin *u;
  cg_error e;
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  luaL_argcheck(L, n >= 0 && n <= INT32_MAX, 1, "vertex count out of range");
  x = vertex_list(L, 2, n, &nx, "independent");
  y = vertex_list(L, 3, n, &ny, "dependent");
  u = newlin(L);
  if (!(u->g = cg_lin_new(&u->A, (uint32_t)n, &e))) return lcg_fail(L, &e);
  u->g->has_w = 0;
  for (v = 1; v <= n; v++) {
    u->g->node[v - 1] = (uint32_t)v;
    if (lua_rawgeti(L, 4, v) == LUA_TTABLE) {
      lua_Integer m = (lua_Integer)lua_rawlen(L, -1);
      for (j = 1; j <= m; j++) {
        lua_Integer p = (lua_rawgeti(L, -1, j), lua_tointeger(L, -1));
        int created;
        lua_pop(L, 1);
        if (p < 1 || p > n) return luaL_error(L, "core.lin_graph: predecessor %d of %d is no vertex", (int)p, (int)v);
        if (cg_lin_add(u->g, (uint32_t)(p - 1), (uint32_t)(v - 1), 0.0, CG_E_VAR, &created) == UINT32_MAX)
          return luaL_error(L, "out of memory");
        if (!created) return luaL_error(L, "core.lin_graph: edge %d -> %d given twice", (int)p, (int)v);
      }
    }
    lua_pop(L, 1);
  }
  if (cg_lin_set_xy(u->g, x, nx, y, ny, &e)) return lcg_fail(L, &e);
  return 1;
}

static int lin_copy(lua_State *L) {
  llin *s = checklin(L, 1), *u = newlin(L);
  cg_error e;
  u->g = cg_lin_copy(s->g, &e);
  if (!u->g) return lcg_fail(L, &e);
  u->g->A = &u->A; /* own the allocator: the source may be freed first */
  u->br = s->br;
  return 1;
}

static int lin_nv(lua_State *L) {
  lua_pushinteger(L, checklin(L, 1)->g->nv);
  return 1;
}

static int lin_counts(lua_State *L) {
  llin *u = checklin(L, 1);
  uint32_t v, inter = 0;
  for (v = 0; v < u->g->nv; v++) inter += u->g->kind[v] == CG_V_INTER;
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, u->g->nv), lua_setfield(L, -2, "vertices");
  lua_pushinteger(L, u->g->n), lua_setfield(L, -2, "independents");
  lua_pushinteger(L, u->g->m), lua_setfield(L, -2, "dependents");
  lua_pushinteger(L, inter), lua_setfield(L, -2, "intermediates");
  lua_pushinteger(L, (lua_Integer)u->g->nedges), lua_setfield(L, -2, "edges");
  lua_pushboolean(L, u->g->has_w), lua_setfield(L, -2, "weighted");
  return 1;
}

static void push_vertices(lua_State *L, const uint32_t *v, uint32_t n) { lcg_push_ids(L, v, n); }

static int lin_x(lua_State *L) {
  llin *u = checklin(L, 1);
  push_vertices(L, u->g->x, u->g->n);
  return 1;
}

static int lin_y(lua_State *L) {
  llin *u = checklin(L, 1);
  push_vertices(L, u->g->y, u->g->m);
  return 1;
}

static int lin_kind(lua_State *L) {
  static const char *const names[] = {"intermediate", "independent", "dependent", "eliminated"};
  llin *u = checklin(L, 1);
  lua_pushstring(L, names[u->g->kind[checkvertex(L, u, 2)]]);
  return 1;
}

static int lin_indeg(lua_State *L) {
  llin *u = checklin(L, 1);
  lua_pushinteger(L, u->g->in[checkvertex(L, u, 2)].n);
  return 1;
}

static int lin_outdeg(lua_State *L) {
  llin *u = checklin(L, 1);
  lua_pushinteger(L, u->g->out[checkvertex(L, u, 2)].n);
  return 1;
}

static int lin_markowitz(lua_State *L) {
  llin *u = checklin(L, 1);
  lua_pushinteger(L, (lua_Integer)cg_lin_markowitz(u->g, checkvertex(L, u, 2)));
  return 1;
}

/* lg:scale_counts([work]) -> the cheap counts of cg_lin_scale_counts (the
 * reach counts capped at `work` word operations, default 0: no cap). */
static int lin_scale_counts(lua_State *L) {
  llin *u = checklin(L, 1);
  double work = luaL_optnumber(L, 2, 0);
  cg_lin_scale s;
  cg_error e;
  if (cg_lin_scale_counts(u->g, work, &s, &e)) return lcg_fail(L, &e);
  lua_createtable(L, 0, 14);
  lua_pushinteger(L, (lua_Integer)s.inter), lua_setfield(L, -2, "intermediates");
  lua_pushinteger(L, (lua_Integer)s.edges), lua_setfield(L, -2, "edges");
  lua_pushnumber(L, s.markowitz_sum), lua_setfield(L, -2, "markowitz_sum");
  lua_pushinteger(L, s.max_markowitz), lua_setfield(L, -2, "max_markowitz");
  lua_pushinteger(L, s.max_degree), lua_setfield(L, -2, "max_degree");
  lua_pushnumber(L, s.forward_mults), lua_setfield(L, -2, "forward_mults");
  lua_pushnumber(L, s.reverse_mults), lua_setfield(L, -2, "reverse_mults");
  lua_pushnumber(L, s.forward_fill), lua_setfield(L, -2, "forward_fill");
  lua_pushnumber(L, s.reverse_fill), lua_setfield(L, -2, "reverse_fill");
  lua_pushinteger(L, s.components), lua_setfield(L, -2, "components");
  lua_pushinteger(L, s.max_component), lua_setfield(L, -2, "max_component");
  lua_pushboolean(L, s.partial), lua_setfield(L, -2, "partial");
  return 1;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Neighbours (in-side or out-side) of a vertex, in increasing id order (the
 * order inside an adjacency list carries no meaning). */
static int neighbours(lua_State *L, int pred) {
  llin *u = checklin(L, 1);
  uint32_t v = checkvertex(L, u, 2), k, n;
  const cg_adj *a = pred ? &u->g->in[v] : &u->g->out[v];
  uint32_t *tmp;
  n = a->n;
  tmp = (uint32_t *)lua_newuserdatauv(L, (size_t)n * 4, 0);
  for (k = 0; k < n; k++) tmp[k] = pred ? u->g->tail[a->e[k]] : u->g->head[a->e[k]];
  qsort(tmp, n, 4, cmp_u32);
  push_vertices(L, tmp, n);
  return 1;
}

static int lin_preds(lua_State *L) { return neighbours(L, 1); }
static int lin_succs(lua_State *L) { return neighbours(L, 0); }

/* lg:weight(i, k) -> w, mark | nil */
static int lin_weight(lua_State *L) {
  static const char *const marks[] = {"variable", "constant", "+1", "-1"};
  llin *u = checklin(L, 1);
  uint32_t i = checkvertex(L, u, 2), k = checkvertex(L, u, 3), eid = cg_lin_find(u->g, i, k);
  if (eid == UINT32_MAX) return luaL_pushfail(L), 1;
  lua_pushnumber(L, u->g->w[eid]);
  lua_pushstring(L, marks[u->g->mark[eid]]);
  return 2;
}

static void push_cost(lua_State *L, const cg_cost *c) {
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, (lua_Integer)c->mults), lua_setfield(L, -2, "mults");
  lua_pushinteger(L, (lua_Integer)c->mults_nontrivial), lua_setfield(L, -2, "mults_nontrivial");
  lua_pushinteger(L, (lua_Integer)c->adds), lua_setfield(L, -2, "adds");
  lua_pushinteger(L, (lua_Integer)c->fill), lua_setfield(L, -2, "fill");
  lua_pushinteger(L, (lua_Integer)c->steps), lua_setfield(L, -2, "steps");
  lua_pushinteger(L, (lua_Integer)c->peak_edges), lua_setfield(L, -2, "peak_edges");
}

/* lg:elim_vertex(v [, ordering]) -> cost (ordering: the name a memory
 * limit message gives the caller's order) */
static int lin_elim_vertex(lua_State *L) {
  llin *u = checkidle(L, 1);
  uint32_t v = checkvertex(L, u, 2);
  const char *order = luaL_optstring(L, 3, "elim_vertex");
  cg_cost c;
  cg_error e;
  memset(&c, 0, sizeof c);
  if (cg_lin_elim_vertex(u->g, v, &c, &e)) return lcg_fail_order(L, &e, order);
  push_cost(L, &c);
  return 1;
}

/* lg:elim_edge(i, k, "front"|"back" [, ordering]) -> cost */
static int lin_elim_edge(lua_State *L) {
  static const char *const sides[] = {"front", "back", NULL};
  llin *u = checkidle(L, 1);
  uint32_t i = checkvertex(L, u, 2), k = checkvertex(L, u, 3), eid;
  int back = luaL_checkoption(L, 4, NULL, sides);
  const char *order = luaL_optstring(L, 5, "elim_edge");
  cg_cost c;
  cg_error e;
  memset(&c, 0, sizeof c);
  eid = cg_lin_find(u->g, i, k);
  if (eid == UINT32_MAX) return luaL_error(L, "no edge %d -> %d", (int)i + 1, (int)k + 1);
  if ((back ? cg_lin_elim_back : cg_lin_elim_front)(u->g, eid, &c, &e))
    return lcg_fail_order(L, &e, order);
  push_cost(L, &c);
  return 1;
}

/* {==== orderings from Lua ====} */

/* A Lua score function called by the core: fn(v, lg, in_degree, out_degree)
 * -> number (the degrees come with the call: most rules of Hovland, Norris, Utke & Strout are
 * functions of them, and asking lg for them costs two method calls). */
typedef struct luascore {
  lua_State *L;
  int fn_idx, lin_idx;
  char msg[400];
} luascore;

/* Calls the score function whose nargs arguments are pushed above it and
 * returns its number; on an error or a result that is no number, *err and
 * s->msg (naming vertex v, unless v is CG_NOV). */
static double finish_score(luascore *s, int nargs, uint32_t v, int *err) {
  lua_State *L = s->L;
  double r;
  int isnum;
  if (lua_pcall(L, nargs, 1, 0) != LUA_OK) {
    snprintf(s->msg, sizeof s->msg, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "error");
    lua_pop(L, 1);
    *err = 1;
    return 0;
  }
  r = lua_tonumberx(L, -1, &isnum);
  lua_pop(L, 1);
  if (!isnum) {
    if (v == CG_NOV) snprintf(s->msg, sizeof s->msg, "score function returned no number");
    else snprintf(s->msg, sizeof s->msg, "score function returned no number for vertex %u", v + 1);
    *err = 1;
  }
  return r;
}

static double call_score(void *ud, const cg_lin *g, uint32_t v, int *err) {
  luascore *s = (luascore *)ud;
  lua_State *L = s->L;
  lua_pushvalue(L, s->fn_idx);
  lcg_push_id(L, v);
  lua_pushvalue(L, s->lin_idx);
  lua_pushinteger(L, (lua_Integer)g->in[v].n);
  lua_pushinteger(L, (lua_Integer)g->out[v].n);
  return finish_score(s, 4, v, err);
}

/* {==== the registry of orderings ====} */

/* The rule named by the string at idx for mode (a CG_MODE_* bit): the index
 * of its row in the registry; an unknown name raises, listing the mode's. */
static int check_rule_name(lua_State *L, int idx, unsigned mode) {
  size_t len;
  const char *name = luaL_checklstring(L, idx, &len);
  int kind = cg_ordering_find(name, len, mode), i, n = 0;
  luaL_Buffer b;
  if (kind >= 0) return kind;
  luaL_buffinit(L, &b);
  for (i = 0; i < cg_orderings_count(); i++)
    if (cg_ordering_modes(cg_ordering_at(i)) & mode) {
      if (n++) luaL_addstring(&b, ", ");
      luaL_addstring(&b, cg_ordering_at(i)->name);
    }
  luaL_pushresult(&b);
  return luaL_error(L, "unknown ordering '%s' for %s elimination (one of %s)", name,
                    cg_mode_name(mode), lua_tostring(L, -1));
}

/* One rule from a string or a function at stack index idx. */
static void get_rule(lua_State *L, int idx, cg_rule *r, luascore *ls, int lin_idx, int radius) {
  if (lua_isfunction(L, idx)) {
    ls->L = L;
    ls->fn_idx = lua_absindex(L, idx);
    ls->lin_idx = lin_idx;
    ls->msg[0] = '\0';
    r->kind = CG_ORD_CALLBACK;
    r->fn = call_score;
    r->ud = ls;
    r->radius = radius;
  } else {
    r->kind = check_rule_name(L, idx, CG_MODE_VERTEX);
  }
}

/* The name of an ordering for messages: its rules' names from the
 * registry, "lua" for a score function, joined by commas. */
static void order_label(char *buf, size_t size, const int *kinds, int n) {
  int i;
  size_t len = 0;
  buf[0] = '\0';
  for (i = 0; i < n && len < size; i++) {
    const cg_ordering *row = cg_ordering_at(kinds[i]);
    int w = snprintf(buf + len, size - len, "%s%s", i ? "," : "", row ? row->name : "lua");
    if (w < 0) break;
    len += (size_t)w;
  }
}

/* lcg_fail_order under the name of vertex ordering o. */
static int fail_rules(lua_State *L, const cg_error *e, const cg_order *o) {
  int kinds[CG_MAX_RULES], i;
  char name[128];
  for (i = 0; i < o->nrules; i++) kinds[i] = o->rule[i].kind;
  order_label(name, sizeof name, kinds, o->nrules);
  return lcg_fail_order(L, e, name);
}

/* lg:eliminate(spec) -> cost, {order}
 * spec: a rule name, a score function, or a table
 *   {rule, rule, ..., radius = 1, lowest_first = false, seed = 1}
 * where each rule is a name or a score function (lower first). */
static int lin_eliminate(lua_State *L) {
  llin *u = checkidle(L, 1);
  int rc;
  cg_order o;
  luascore ls[CG_MAX_RULES];
  cg_cost c;
  cg_error e;
  uint32_t *order, nout = 0, i;
  int radius = 1;
  memset(&o, 0, sizeof o);
  memset(&c, 0, sizeof c);
  if (lua_istable(L, 2)) {
    int n = (int)luaL_len(L, 2);
    if (n < 1 || n > CG_MAX_RULES) return luaL_error(L, "an ordering takes 1 to %d rules", CG_MAX_RULES);
    if (lua_getfield(L, 2, "radius") != LUA_TNIL) radius = (int)luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 2, "lowest_first");
    o.lowest_first = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (lua_getfield(L, 2, "seed") != LUA_TNIL) o.seed = (uint64_t)luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    for (i = 0; i < (uint32_t)n; i++) {
      lua_geti(L, 2, (lua_Integer)i + 1); /* stays on the stack while the run goes */
      get_rule(L, -1, &o.rule[i], &ls[i], 1, radius);
    }
    o.nrules = n;
  } else {
    get_rule(L, 2, &o.rule[0], &ls[0], 1, radius);
    o.nrules = 1;
  }
  order = (uint32_t *)lua_newuserdatauv(L, (size_t)u->g->nv * 4, 0);
  u->busy = 1; /* score callbacks run inside (they catch their errors) */
  rc = cg_lin_eliminate(u->g, &o, &c, order, &nout, &e);
  u->busy = 0;
  if (rc) {
    for (i = 0; i < (uint32_t)o.nrules; i++)
      if (o.rule[i].kind == CG_ORD_CALLBACK && ls[i].msg[0])
        return luaL_error(L, "ordering: %s", ls[i].msg);
    return fail_rules(L, &e, &o);
  }
  push_cost(L, &c);
  push_vertices(L, order, nout);
  return 2;
}

/* lg:replay({v...} [, ordering]) -> cost (ordering: the name a memory limit
 * message gives the order) */
static int lin_replay(lua_State *L) {
  llin *u = checkidle(L, 1);
  const char *order = luaL_optstring(L, 3, "replay");
  cg_cost c;
  cg_error e;
  lua_Integer i, n;
  luaL_checktype(L, 2, LUA_TTABLE);
  n = luaL_len(L, 2);
  memset(&c, 0, sizeof c);
  for (i = 1; i <= n; i++) {
    lua_Integer v;
    lua_geti(L, 2, i);
    v = luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    if (v < 1 || v > (lua_Integer)u->g->nv) return luaL_error(L, "replay: vertex %d out of range", (int)v);
    if (cg_lin_elim_vertex(u->g, (uint32_t)(v - 1), &c, &e)) return lcg_fail_order(L, &e, order);
  }
  push_cost(L, &c);
  return 1;
}

/* lg:exact([max_component]) -> multiplications, {order} | nil, msg */
static int lin_exact(lua_State *L) {
  llin *u = checklin(L, 1);
  uint32_t maxc = (uint32_t)luaL_optinteger(L, 2, 20), nout = 0;
  uint64_t best;
  uint32_t *order = (uint32_t *)lua_newuserdatauv(L, (size_t)u->g->nv * 4, 0);
  cg_error e;
  if (cg_lin_exact(u->g, maxc, &best, order, &nout, &e)) return lcg_fail(L, &e);
  lua_pushinteger(L, (lua_Integer)best);
  push_vertices(L, order, nout);
  return 2;
}

/* Pushes a Jacobian as {m=, n=, nnz=, rows={}, cols={}, vals={}} (1-based). */
static void push_jac(lua_State *L, const cg_jac *J) {
  uint64_t i;
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, J->m), lua_setfield(L, -2, "m");
  lua_pushinteger(L, J->n), lua_setfield(L, -2, "n");
  lua_pushinteger(L, (lua_Integer)J->nnz), lua_setfield(L, -2, "nnz");
  lcg_push_ids(L, J->row, (size_t)J->nnz);
  lua_setfield(L, -2, "rows");
  lcg_push_ids(L, J->col, (size_t)J->nnz);
  lua_setfield(L, -2, "cols");
  lua_createtable(L, (int)J->nnz, 0);
  for (i = 0; i < J->nnz; i++) lua_pushnumber(L, J->val[i]), lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_setfield(L, -2, "vals");
}

/* For the other binding files: push_jac. */
void lcg_push_jac(lua_State *L, const struct cg_jac *J) { push_jac(L, J); }

static void jac_release(void *J, cg_alloc *A) { cg_jac_free(A, (cg_jac *)J); }

/* The Jacobian of u read off as the option at idx says, in a box it pushes
 * (pushing it into Lua may raise); NULL and e on a failure. */
static cg_jac *jacobian_at(lua_State *L, llin *u, int idx, cg_error *e) {
  static const char *const how[] = {"bipartite", "forward", "reverse", NULL};
  int k = luaL_checkoption(L, idx, "bipartite", how);
  cg_jac *J = (cg_jac *)lcg_box(L, sizeof *J, jac_release);
  int rc = k == 0 ? cg_lin_jac_bipartite(u->g, J, e)
           : k == 1 ? cg_lin_jac_forward(u->g, J, e) : cg_lin_jac_reverse(u->g, J, e);
  return rc ? NULL : J;
}

/* lg:jacobian(["bipartite"|"forward"|"reverse"]) -> table | nil, msg */
static int lin_jacobian(lua_State *L) {
  llin *u = checklin(L, 1);
  cg_error e;
  cg_jac *J = jacobian_at(L, u, 2, &e);
  if (!J) return lcg_fail(L, &e);
  push_jac(L, J);
  lcg_unbox(J);
  if (u->br.count) { /* never a silent value: J is the recorded branch's */
    lcg_push_branch(L, &u->br);
    lua_setfield(L, -4, "first_changed_op");
    lua_setfield(L, -3, "first_changed_record");
    lua_setfield(L, -2, "branch_changes");
  }
  return 1;
}

/* lg:write_mtx([path [, how]]) -> true | text | nil, msg: the Jacobian as
 * Matrix Market, to a file or (no path) returned as a string */
static int lin_write_mtx(lua_State *L) {
  llin *u = checklin(L, 1);
  const char *path = luaL_optstring(L, 2, NULL);
  cg_error e;
  cg_jac *J = jacobian_at(L, u, 3, &e);
  lcg_sink *out;
  int rc;
  if (!J) return lcg_fail(L, &e);
  if (path) { /* the core's writer: reserved chunks, no stdio copies */
    rc = cg_jac_write_mtx(J, path, &e);
    lcg_unbox(J);
    if (rc) return lcg_fail(L, &e);
    lua_pushboolean(L, 1);
    return 1;
  }
  out = lcg_sink_open(L, NULL, &e);
  rc = cg_jac_write_mtx_fp(J, out->fp);
  if (rc) cg_seterr(&e, rc, "(string): cannot write the Jacobian");
  return lcg_sink_close(L, out, rc, &e);
}

/* Writes .cg or DOT to a path, or returns the text. */
static int lin_output(lua_State *L, int dot) {
  llin *u = checklin(L, 1);
  const char *path = luaL_optstring(L, 2, NULL);
  lcg_sink *out;
  cg_error e;
  int rc;
  if (!(out = lcg_sink_open(L, path, &e))) return lcg_fail(L, &e);
  rc = dot ? cg_lin_write_dot(u->g, out->fp) : cg_lin_write_cg(u->g, out->fp);
  if (rc) cg_seterr(&e, rc, "%s: cannot write the graph", path ? path : "(string)");
  return lcg_sink_close(L, out, rc, &e);
}

static int lin_write_cg(lua_State *L) { return lin_output(L, 0); }
static int lin_dot(lua_State *L) { return lin_output(L, 1); }

static int lin_check(lua_State *L) {
  llin *u = checklin(L, 1);
  cg_error e;
  if (cg_lin_check(u->g, &e)) return lcg_fail(L, &e);
  lua_pushboolean(L, 1);
  return 1;
}

/* lg:intermediates() -> remaining intermediate vertices, in id order */
static int lin_intermediates(lua_State *L) {
  llin *u = checklin(L, 1);
  uint32_t v;
  lua_Integer k = 0;
  lua_newtable(L);
  for (v = 0; v < u->g->nv; v++)
    if (u->g->kind[v] == CG_V_INTER) lcg_push_id(L, v), lua_rawseti(L, -2, ++k);
  return 1;
}

/* lg:node(v) -> the graph node (1-based) or file id a vertex stands for */
static int lin_node(lua_State *L) {
  llin *u = checklin(L, 1);
  uint32_t v = checkvertex(L, u, 2);
  if (u->g->node[v] == UINT32_MAX) return luaL_pushfail(L), 1;
  lcg_push_id(L, u->g->node[v]);
  return 1;
}

static int lin_tostring(lua_State *L) {
  llin *u = (llin *)luaL_checkudata(L, 1, LCG_LIN);
  if (!u->g) lua_pushliteral(L, "cgwb.LinGraph (freed)");
  else lua_pushfstring(L, "cgwb.LinGraph (%d vertices, %d edges, %d independents, %d dependents)",
                       (int)u->g->nv, (int)u->g->nedges, (int)u->g->n, (int)u->g->m);
  return 1;
}


/* {==== edge and face orderings ====} */

/* A Lua score for an edge or face: fn(i, j, side, lg) for edges (side
 * "front" or "back"), fn(i, j, k, lg) for faces; 1-based ids. */
static double call_xscore(void *ud, uint32_t i, uint32_t j, uint32_t k, int back, int *err) {
  luascore *s = (luascore *)ud;
  lua_State *L = s->L;
  lua_pushvalue(L, s->fn_idx);
  lcg_push_id(L, i);
  lcg_push_id(L, j);
  if (k == CG_NOV) lua_pushstring(L, back ? "back" : "front");
  else lcg_push_id(L, k);
  lua_pushvalue(L, s->lin_idx);
  return finish_score(s, 4, CG_NOV, err);
}

/* One edge or face rule (mode CG_MODE_EDGE or CG_MODE_FACE) from a string
 * or a function at stack index idx. */
static void get_xrule(lua_State *L, int idx, cg_xrule *r, luascore *ls, unsigned mode) {
  if (lua_isfunction(L, idx)) {
    ls->L = L;
    ls->fn_idx = lua_absindex(L, idx);
    ls->lin_idx = 1;
    ls->msg[0] = '\0';
    r->kind = CG_ORD_CALLBACK;
    r->fn = call_xscore;
    r->ud = ls;
  } else {
    r->kind = check_rule_name(L, idx, mode);
  }
}

/* Reads spec at index 2 (a name, a function, or a table of them with
 * sides = "front"|"back"|"both", lowest_first, seed); the rules' values stay
 * on the stack while the run goes. */
static void get_xorder(lua_State *L, cg_xorder *o, luascore *ls, unsigned mode) {
  static const char *const sides[] = {"front", "back", "both", NULL};
  int i, n;
  memset(o, 0, sizeof *o);
  memset(ls, 0, sizeof(luascore) * CG_MAX_RULES);
  o->sides = 3;
  if (!lua_istable(L, 2)) {
    get_xrule(L, 2, &o->rule[0], &ls[0], mode);
    o->nrules = 1;
    return;
  }
  n = (int)luaL_len(L, 2);
  if (n < 1 || n > CG_MAX_RULES) luaL_error(L, "an ordering takes 1 to %d rules", CG_MAX_RULES);
  lua_getfield(L, 2, "lowest_first");
  o->lowest_first = lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (lua_getfield(L, 2, "seed") != LUA_TNIL) o->seed = (uint64_t)luaL_checkinteger(L, -1);
  lua_pop(L, 1);
  if (lua_getfield(L, 2, "sides") != LUA_TNIL) o->sides = 1 + luaL_checkoption(L, -1, NULL, sides);
  lua_pop(L, 1);
  for (i = 0; i < n; i++) {
    lua_geti(L, 2, (lua_Integer)i + 1);
    get_xrule(L, -1, &o->rule[i], &ls[i], mode);
  }
  o->nrules = n;
}

/* Turns a failed run into a Lua error (a callback's message, the memory
 * limit) or nil, msg. */
static int xfail(lua_State *L, const cg_xorder *o, const luascore *ls, cg_error *e) {
  int kinds[CG_MAX_RULES], i;
  char name[128];
  for (i = 0; i < o->nrules; i++)
    if (o->rule[i].kind == CG_ORD_CALLBACK && ls[i].msg[0])
      return luaL_error(L, "ordering: %s", ls[i].msg);
  for (i = 0; i < o->nrules; i++) kinds[i] = o->rule[i].kind;
  order_label(name, sizeof name, kinds, o->nrules);
  return lcg_fail_order(L, e, name);
}

/* A steps list as {{i, j, "front"|"back"}, ...} or {{i, j, k [, ra, rb]}, ...}
 * (a face step's ranks, 1-based, only where a label is ambiguous: cg_steps). */
static void push_steps(lua_State *L, const cg_steps *st, int faces) {
  size_t q;
  lua_createtable(L, (int)st->n, 0);
  for (q = 0; q < st->n; q++) {
    const uint32_t *p = st->a + CG_STEP_WIDTH * q;
    lua_createtable(L, 3, 0);
    lcg_push_id(L, p[0]), lua_rawseti(L, -2, 1);
    lcg_push_id(L, p[1]), lua_rawseti(L, -2, 2);
    if (faces) lcg_push_id(L, p[2]);
    else lua_pushstring(L, p[2] ? "back" : "front");
    lua_rawseti(L, -2, 3);
    if (faces && (p[3] || p[4])) {
      lcg_push_id(L, p[3]), lua_rawseti(L, -2, 4); /* ranks: 1-based like ids */
      lcg_push_id(L, p[4]), lua_rawseti(L, -2, 5);
    }
    lua_rawseti(L, -2, (lua_Integer)q + 1);
  }
}

static void steps_release(void *s, cg_alloc *A) { cg_steps_free(A, (cg_steps *)s); }

/* A steps list in a box it pushes: an error cannot leak it. */
static cg_steps *new_steps(lua_State *L) {
  return (cg_steps *)lcg_box(L, sizeof(cg_steps), steps_release);
}

/* lg:eliminate_edges(spec) -> cost, steps  /  lg:eliminate_faces(spec) */
static int eliminate_x(lua_State *L, int faces) {
  llin *u = checkidle(L, 1);
  cg_xorder o;
  luascore ls[CG_MAX_RULES];
  cg_cost c;
  cg_error e;
  cg_steps *st;
  int rc;
  get_xorder(L, &o, ls, faces ? CG_MODE_FACE : CG_MODE_EDGE);
  st = new_steps(L);
  memset(&c, 0, sizeof c);
  u->busy = 1; /* score callbacks run inside (they catch their errors) */
  rc = faces ? cg_lin_eliminate_faces(u->g, &o, &c, st, &e)
             : cg_lin_eliminate_edges(u->g, &o, &c, st, &e);
  u->busy = 0;
  if (rc) return xfail(L, &o, ls, &e);
  push_cost(L, &c);
  push_steps(L, st, faces);
  lcg_unbox(st);
  return 2;
}

static int lin_eliminate_edges(lua_State *L) { return eliminate_x(L, 0); }
static int lin_eliminate_faces(lua_State *L) { return eliminate_x(L, 1); }

/* lg:replay_faces({{i, j, k}, ...} [, ordering]) -> cost */
static int lin_replay_faces(lua_State *L) {
  llin *u = checkidle(L, 1);
  const char *order = luaL_optstring(L, 3, "replay_faces");
  cg_cost c;
  cg_error e;
  cg_steps *st;
  lua_Integer q, n;
  luaL_checktype(L, 2, LUA_TTABLE);
  n = luaL_len(L, 2);
  st = new_steps(L);
  for (q = 1; q <= n; q++) {
    lua_Integer t[5];
    int r;
    lua_geti(L, 2, q);
    luaL_checktype(L, -1, LUA_TTABLE);
    for (r = 0; r < 5; r++) { /* i, j, k, then the optional ranks (1 when absent) */
      lua_geti(L, -1, r + 1);
      t[r] = r < 3 || !lua_isnil(L, -1) ? luaL_checkinteger(L, -1) : 1;
      lua_pop(L, 1);
      if (t[r] < 1 || (r < 3 && t[r] > (lua_Integer)u->g->nv) || t[r] > (lua_Integer)UINT32_MAX)
        return luaL_error(L, "replay_faces: step %d: %s out of range", (int)q, r < 3 ? "vertex" : "rank");
    }
    lua_pop(L, 1);
    if (cg_steps_push_face(&u->A, st, (uint32_t)t[0] - 1, (uint32_t)t[1] - 1, (uint32_t)t[2] - 1,
                           (uint32_t)t[3] - 1, (uint32_t)t[4] - 1)) {
      cg_seterr(&e, CG_ENOMEM, "replay_faces: step %d: out of memory", (int)q);
      return lcg_fail_order(L, &e, order);
    }
  }
  memset(&c, 0, sizeof c);
  if (cg_lin_replay_faces(u->g, st, &c, &e)) return lcg_fail_order(L, &e, order);
  lcg_unbox(st);
  push_cost(L, &c);
  return 1;
}

/* Pushes registry row o as {name=, modes={"vertex", ...}, about=, radius=,
 * needs={seed=true, reach=true}}. */
static void push_ordering(lua_State *L, const cg_ordering *o) {
  unsigned modes = cg_ordering_modes(o), m;
  int n = 0;
  lua_createtable(L, 0, 5);
  lua_pushstring(L, o->name), lua_setfield(L, -2, "name");
  lua_pushstring(L, o->about), lua_setfield(L, -2, "about");
  lua_pushinteger(L, o->radius), lua_setfield(L, -2, "radius");
  lua_createtable(L, 3, 0);
  for (m = CG_MODE_VERTEX; m <= CG_MODE_FACE; m <<= 1)
    if (modes & m) lua_pushstring(L, cg_mode_name(m)), lua_rawseti(L, -2, ++n);
  lua_setfield(L, -2, "modes");
  lua_createtable(L, 0, 2);
  if (o->needs & CG_NEED_SEED) lua_pushboolean(L, 1), lua_setfield(L, -2, "seed");
  if (o->needs & CG_NEED_REACH) lua_pushboolean(L, 1), lua_setfield(L, -2, "reach");
  lua_setfield(L, -2, "needs");
}

/* core.orderings() -> the registry's rows in order (push_ordering): the
 * names lg:eliminate, lg:eliminate_edges and lg:eliminate_faces take. */
static int l_orderings(lua_State *L) {
  int i, n = cg_orderings_count();
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    push_ordering(L, cg_ordering_at(i));
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* core.read_eliad(text [, name]) -> LinGraph | nil, msg */
static int l_read_eliad(lua_State *L) { return read_with(L, cg_lin_read_eliad); }

/* lg:write_eliad() -> text | nil, msg */
static int lin_write_eliad(lua_State *L) {
  llin *u = checklin(L, 1);
  cg_error e;
  lcg_sink *out = lcg_sink_open(L, NULL, &e); /* a string: cannot fail but by raising */
  return lcg_sink_close(L, out, cg_lin_write_eliad(u->g, out->fp, &e), &e);
}

static const luaL_Reg lin_methods[] = {
    {"nv", lin_nv},               {"counts", lin_counts},       {"x", lin_x},
    {"y", lin_y},                 {"kind", lin_kind},           {"in_degree", lin_indeg},
    {"out_degree", lin_outdeg},   {"markowitz", lin_markowitz}, {"preds", lin_preds},
    {"succs", lin_succs},         {"weight", lin_weight},       {"copy", lin_copy},
    {"elim_vertex", lin_elim_vertex}, {"elim_edge", lin_elim_edge}, {"eliminate", lin_eliminate},
    {"replay", lin_replay},       {"exact", lin_exact},         {"jacobian", lin_jacobian},
    {"branch_changes", lin_branch_changes},
    {"write_mtx", lin_write_mtx}, {"write_cg", lin_write_cg},   {"dot", lin_dot},
    {"check", lin_check},         {"intermediates", lin_intermediates}, {"node", lin_node},
    {"eliminate_edges", lin_eliminate_edges}, {"eliminate_faces", lin_eliminate_faces},
    {"replay_faces", lin_replay_faces}, {"write_eliad", lin_write_eliad},
    {"scale_counts", lin_scale_counts},
    {"free", lin_free},           {NULL, NULL}};

static const luaL_Reg lin_meta[] = {{"__gc", lin_free}, {"__close", lin_free},
                                    {"__tostring", lin_tostring}, {"__len", lin_nv},
                                    {NULL, NULL}};

static const luaL_Reg lin_funcs[] = {{"linearize", l_linearize}, {"read_cg", l_read_cg}, {"lin_graph", l_lin_graph},
                                     {"read_eliad", l_read_eliad}, {"orderings", l_orderings},
                                     {NULL, NULL}};

void lcg_open_elim(lua_State *L) {
  lcg_newclass(L, LCG_LIN, lin_methods, lin_meta);
  luaL_setfuncs(L, lin_funcs, 0);
}

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
@module cgwb.core
*/

/*** core.linearize(graph) -> LinGraph | nil, msg
@function linearize
*/

/*** core.orderings() -> the registry's rows in order (push_ordering): the names lg:eliminate,
lg:eliminate_edges and lg:eliminate_faces take.
@function orderings
*/

/*** core.read_cg(text [, name]) -> LinGraph | nil, msg
@function read_cg
*/

/*** core.read_eliad(text [, name]) -> LinGraph | nil, msg
@function read_eliad
*/

/*** core.lin_graph(n, x, y, preds) -> LinGraph: the structural graph (no weights) of
vertices 1..n, independents x, dependents y, preds[v] the predecessors of v, as the .cg
reader builds it from "X:", "Y:" and "v: p..." lines (tangent code's subgraphs).
@function lin_graph
*/

/*** A linearized computational graph: a DAG with local partials on its edges (cgwb.LinGraph;
Hovland, Norris, Utke & Strout, sec. 1; doc/elimination.md). Made by cgwb.linearize,
cgwb.read_cg or cgwb.read_graph; eliminations change it in place and return a cost table
{mults=, mults_nontrivial=, adds=, fill=, steps=, peak_edges=}; tostring(lg) ->
cgwb.LinGraph (N vertices, N edges, N independents, N dependents).
@type LinGraph
*/

/*** lg:branch_changes() -> count, first record (1-based) or nil, its opcode or nil: as
g:branch_changes() of the graph lg was linearized from.
@function LinGraph:branch_changes
*/

/*** lg:check() -> true | nil, what is wrong: the graph's invariants (a debugging aid).
@function LinGraph:check
*/

/*** lg:copy() -> an independent copy of the linearized graph (branch changes kept).
@function LinGraph:copy
*/

/*** lg:counts() -> {vertices=, independents=, dependents=, intermediates=, edges=, weighted=}.
@function LinGraph:counts
*/

/*** lg:dot([path]) -> true (written to path) or the DOT text | nil, msg.
@function LinGraph:dot
*/

/*** lg:elim_edge(i, k, "front"|"back" [, ordering]) -> cost
@function LinGraph:elim_edge
*/

/*** lg:elim_vertex(v [, ordering]) -> cost (ordering: the name a memory limit message gives
the caller's order)
@function LinGraph:elim_vertex
*/

/*** lg:eliminate(spec) -> cost, {order} spec: a rule name, a score function, or a table {rule,
rule, ..., radius = 1, lowest_first = false, seed = 1} where each rule is a name or a
score function (lower first).
@function LinGraph:eliminate
*/

/*** lg:eliminate_edges(spec) -> cost, {{i, k, "front"|"back"}...}: edge elimination under a
built-in rule name, a score function f(i, j, side, lg) (lower first) or a chain table
(lowest_first, seed, sides = "front"|"back"|"both").
@function LinGraph:eliminate_edges
*/

/*** lg:eliminate_faces(spec) -> cost, {{i, j, k}...}: face elimination under a built-in rule
name, a score function f(i, j, k, lg) (lower first) or a chain table.
@function LinGraph:eliminate_faces
*/

/*** lg:exact([max_component]) -> multiplications, {order} | nil, msg
@function LinGraph:exact
*/

/*** lg:free(): releases the graph now (also __gc and __close); tostring(lg) then says (freed).
@function LinGraph:free
*/

/*** lg:in_degree(v) -> the number of predecessors of v now.
@function LinGraph:in_degree
*/

/*** lg:intermediates() -> remaining intermediate vertices, in id order
@function LinGraph:intermediates
*/

/*** lg:jacobian(["bipartite"|"forward"|"reverse"]) -> table | nil, msg
@function LinGraph:jacobian
*/

/*** lg:kind(v) -> "intermediate", "independent", "dependent" or "eliminated".
@function LinGraph:kind
*/

/*** lg:markowitz(v) -> in_degree * out_degree of v now (the Markowitz degree).
@function LinGraph:markowitz
*/

/*** lg:node(v) -> the graph node (1-based) or file id a vertex stands for
@function LinGraph:node
*/

/*** lg:nv() -> the number of vertices (also #lg).
@function LinGraph:nv
*/

/*** lg:out_degree(v) -> the number of successors of v now.
@function LinGraph:out_degree
*/

/*** lg:preds(v) -> the predecessors of v, sorted.
@function LinGraph:preds
*/

/*** lg:replay({v...} [, ordering]) -> cost (ordering: the name a memory limit message gives
the order)
@function LinGraph:replay
*/

/*** lg:replay_faces({{i, j, k}, ...} [, ordering]) -> cost
@function LinGraph:replay_faces
*/

/*** lg:succs(v) -> the successors of v, sorted.
@function LinGraph:succs
*/

/*** lg:weight(i, k) -> w, mark | nil
@function LinGraph:weight
*/

/*** lg:write_cg([path]) -> true (written to path) or the .cg text | nil, msg.
@function LinGraph:write_cg
*/

/*** lg:write_eliad() -> text | nil, msg
@function LinGraph:write_eliad
*/

/*** lg:write_mtx([path [, how]]) -> true | text | nil, msg: the Jacobian as Matrix Market, to
a file or (no path) returned as a string
@function LinGraph:write_mtx
*/

/*** lg:scale_counts([work]) -> the cheap counts that bound what an elimination costs before it
runs: inter, edges, markowitz_sum, max_markowitz, max_degree, forward_mults, reverse_mults,
forward_fill, reverse_fill, components, max_component, partial (the reach counts stopped past
`work` word operations: those figures are then lower bounds). doc/elimination.md, "What each
ordering costs".
@function LinGraph:scale_counts
*/

/*** lg:x() -> the independent vertices, in order.
@function LinGraph:x
*/

/*** lg:y() -> the dependent vertices, in order.
@function LinGraph:y
*/

/* }==== */
