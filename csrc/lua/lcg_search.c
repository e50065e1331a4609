/* lcg_search.c: lg:search(opts), the branch and bound search for the
 * optimal vertex elimination order (csrc/elim/cg_search.h), with its Lua
 * hooks and the cgwb.SearchView they see. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../elim/cg_search.h"
#include "lcg.h"

#define LCG_VIEW "cgwb.SearchView"

/* The view userdata: the state during a hook call, NULL outside one. */
typedef struct lview {
  const cg_sview *v;
} lview;

/* What the hooks need: the state and the stack slots of the functions. */
typedef struct hooks {
  lua_State *L;
  int bound, branch, view; /* stack indices (0: none) */
  int failed;
  char msg[400];
  lcg_progress *progress; /* the state's renderer */
  double t0;              /* the search's start on the renderer's clock */
} hooks;

static const cg_sview *checkview(lua_State *L) {
  lview *u = (lview *)luaL_checkudata(L, 1, LCG_VIEW);
  if (!u->v) luaL_error(L, "a search view is valid only inside the hook it was given to");
  return u->v;
}

/* view:intermediates() -> the remaining intermediates, ascending */
static int view_intermediates(lua_State *L) {
  const cg_sview *v = checkview(L);
  uint32_t i, n = cg_sview_count(v);
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, (lua_Integer)cg_sview_at(v, i) + 1);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* A remaining intermediate at argument 2 (0-based). */
static uint32_t checkremaining(lua_State *L, const cg_sview *v) {
  lua_Integer x = luaL_checkinteger(L, 2);
  if (x < 1 || x > UINT32_MAX || !cg_sview_remaining(v, (uint32_t)(x - 1)))
    luaL_argerror(L, 2, "not a remaining intermediate of the component searched");
  return (uint32_t)(x - 1);
}

static int view_adj(lua_State *L, int side) {
  const cg_sview *v = checkview(L);
  uint32_t x = checkremaining(L, v), n;
  uint32_t *buf = (uint32_t *)lua_newuserdatauv(L, (size_t)cg_sview_room(v) * 4, 0);
  n = cg_sview_adj(v, x, side, buf);
  lcg_push_ids(L, buf, n);
  return 1;
}

/* view:preds(v), view:succs(v) -> current neighbours, ascending */
static int view_preds(lua_State *L) { return view_adj(L, 0); }
static int view_succs(lua_State *L) { return view_adj(L, 1); }

/* view:markowitz(v) -> |preds| * |succs| now */
static int view_markowitz(lua_State *L) {
  const cg_sview *v = checkview(L);
  uint32_t x = checkremaining(L, v);
  uint32_t *buf = (uint32_t *)lua_newuserdatauv(L, (size_t)cg_sview_room(v) * 4, 0);
  uint64_t p = cg_sview_adj(v, x, 0, buf);
  lua_pushinteger(L, (lua_Integer)(p * cg_sview_adj(v, x, 1, buf)));
  return 1;
}

/* view.cost and the methods */
static int view_index(lua_State *L) {
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "cost")) {
    lua_pushinteger(L, (lua_Integer)cg_sview_cost(checkview(L)));
    return 1;
  }
  lua_getfield(L, lua_upvalueindex(1), k);
  return 1;
}

/* Records a hook's failure (message at the top of the stack, popped):
 * no allocation, as memory may have run out. */
static void hook_fail(hooks *h, const char *what) {
  const char *m = lua_tostring(h->L, -1);
  snprintf(h->msg, sizeof h->msg, "exact: the %s function: %s", what, m ? m : "error");
  lua_pop(h->L, 1);
  h->failed = 1;
}

static void set_view(hooks *h, const cg_sview *v) {
  ((lview *)lua_touserdata(h->L, h->view))->v = v;
}

/* One hook call: everything that may raise runs under lua_pcall, so that no
 * error jumps over the search's C memory. */
typedef struct hookcall {
  hooks *h;
  int branch;      /* 0: bound, 1: branch */
  uint32_t *cand;  /* branch: the candidates, reordered in place */
  uint32_t n;
  double x;        /* bound: the value */
} hookcall;

/* Reads the reordered candidates (a permutation of cand) from the table at
 * index t into cand; 0 if it is one. */
static int read_perm(lua_State *L, int t, uint32_t *cand, uint32_t n) {
  uint32_t *orig = (uint32_t *)lua_newuserdatauv(L, (size_t)n * 5, 0), i, k;
  uint8_t *taken = (uint8_t *)(orig + n);
  memcpy(orig, cand, (size_t)n * 4);
  memset(taken, 0, n);
  if (luaL_len(L, t) != (lua_Integer)n) return 1;
  for (i = 0; i < n; i++) {
    lua_Integer x;
    lua_geti(L, t, (lua_Integer)i + 1);
    x = lua_tointeger(L, -1);
    lua_pop(L, 1);
    for (k = 0; k < n && (orig[k] + 1 != x || taken[k]); k++) {}
    if (k == n) return 1;
    taken[k] = 1;
  }
  for (i = 0; i < n; i++) { /* a permutation: now write it */
    lua_geti(L, t, (lua_Integer)i + 1);
    cand[i] = (uint32_t)(lua_tointeger(L, -1) - 1);
    lua_pop(L, 1);
  }
  return 0;
}

/* protected_hook(hookcall, f, view) */
static int protected_hook(lua_State *L) {
  hookcall *c = (hookcall *)lua_touserdata(L, 1);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  if (c->branch) lcg_push_ids(L, c->cand, c->n);
  lua_call(L, c->branch ? 2 : 1, 1);
  if (!c->branch) {
    int isnum;
    c->x = lua_tonumberx(L, -1, &isnum);
    if (!isnum || c->x != c->x) return luaL_error(L, "returned %s, not a number", isnum ? "nan" : luaL_typename(L, -1));
  } else if (!lua_istable(L, -1)) {
    return luaL_error(L, "returned %s, not a table of the candidates", luaL_typename(L, -1));
  } else if (read_perm(L, lua_gettop(L), c->cand, c->n)) {
    return luaL_error(L, "returned a table that is not a reordering of the candidates");
  }
  return 0;
}

/* Runs a hook; 1 (and h->failed) if it failed. */
static int run_hook(hooks *h, hookcall *c, const cg_sview *v) {
  lua_State *L = h->L;
  if (!lua_checkstack(L, 6)) {
    snprintf(h->msg, sizeof h->msg, "exact: the %s function: not enough memory (Lua stack)",
             c->branch ? "branch" : "bound");
    return h->failed = 1;
  }
  lua_pushcfunction(L, protected_hook);
  lua_pushlightuserdata(L, c);
  lua_pushvalue(L, c->branch ? h->branch : h->bound);
  lua_pushvalue(L, h->view);
  set_view(h, v);
  if (lua_pcall(L, 3, 0, 0)) hook_fail(h, c->branch ? "branch" : "bound");
  set_view(h, NULL);
  return h->failed;
}

static double call_bound(void *ud, const cg_sview *v, int *err) {
  hookcall c;
  memset(&c, 0, sizeof c);
  c.h = (hooks *)ud;
  *err = run_hook(c.h, &c, v);
  return c.x;
}

static int call_branch(void *ud, const cg_sview *v, uint32_t *cand, uint32_t n) {
  hookcall c;
  memset(&c, 0, sizeof c);
  c.h = (hooks *)ud, c.branch = 1, c.cand = cand, c.n = n;
  return run_hook(c.h, &c, v);
}

/* The search's progress line, through the state's renderer (lcg_progress.c):
 * states searched, their rate, and how far the incumbent is from the bound. */
static void show_progress(void *ud, const cg_search_stats *st) {
  hooks *h = (hooks *)ud;
  double gap = st->incumbent ? 100.0 * (double)(st->incumbent - st->bound) / (double)st->incumbent : 0;
  char extra[160];
  snprintf(extra, sizeof extra, "; incumbent %llu, bound %llu, gap %.2f%%, %.1f/%g s",
           (unsigned long long)st->incumbent, (unsigned long long)st->bound, gap, st->seconds,
           st->time_limit);
  lcg_progress_update(h->progress, "exact search", st->nodes, 0, h->t0, extra);
}

static void release_result(void *p, cg_alloc *A) { cg_search_result_free(A, (cg_search_result *)p); }

/* The options of lg:search into o; pushes the hooks' values at fixed slots 3.. */
static void read_opts(lua_State *L, cg_search_opts *o, hooks *h, uint32_t nv) {
  lua_Integer n;
  memset(o, 0, sizeof *o);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  lua_getfield(L, 2, "time_limit");
  o->time_limit = luaL_optnumber(L, -1, 0);
  luaL_argcheck(L, o->time_limit >= 0 && o->time_limit == o->time_limit, 2, "time_limit must be >= 0");
  lua_getfield(L, 2, "max_nodes");
  n = luaL_optinteger(L, -1, 0);
  luaL_argcheck(L, n >= 0, 2, "max_nodes must be >= 0");
  o->max_nodes = (uint64_t)n;
  lua_getfield(L, 2, "tt_entries");
  n = luaL_optinteger(L, -1, 0);
  luaL_argcheck(L, n >= 0 && n <= ((lua_Integer)1 << 32), 2, "tt_entries must be from 0 to 2^32");
  o->tt_entries = (size_t)n;
  lua_getfield(L, 2, "builtin"); /* a built-in bound by name (default: the strongest) */
  if (!lua_isnil(L, -1)) {
    const char *name = luaL_checkstring(L, -1);
    uint32_t k;
    for (k = 0; cg_search_bound_name(k) && strcmp(cg_search_bound_name(k), name); k++) {}
    if (!cg_search_bound_name(k)) luaL_error(L, "exact: no built-in bound '%s'", name);
    o->builtin = k + 1;
  }
  lua_getfield(L, 2, "progress");
  o->progress = lua_toboolean(L, -1) ? show_progress : NULL;
  o->progress_ud = h;
  lua_settop(L, 2);
  lua_getfield(L, 2, "bound");  /* 3 */
  lua_getfield(L, 2, "branch"); /* 4 */
  if (!lua_isnil(L, 3)) luaL_checktype(L, 3, LUA_TFUNCTION), o->bound = call_bound, h->bound = 3;
  if (!lua_isnil(L, 4)) luaL_checktype(L, 4, LUA_TFUNCTION), o->branch = call_branch, h->branch = 4;
  o->ud = h;
  ((lview *)lua_newuserdatauv(L, sizeof(lview), 0))->v = NULL; /* 5 */
  luaL_setmetatable(L, LCG_VIEW);
  h->view = 5;
  lua_getfield(L, 2, "incumbent"); /* 6 */
  if (!lua_isnil(L, 6)) {
    lua_Integer i, len;
    uint32_t *inc;
    luaL_checktype(L, 6, LUA_TTABLE);
    len = luaL_len(L, 6);
    inc = (uint32_t *)lua_newuserdatauv(L, (size_t)len * 4 + 4, 0); /* 7 */
    for (i = 1; i <= len; i++) {
      lua_Integer v;
      lua_geti(L, 6, i);
      v = lua_tointeger(L, -1);
      lua_pop(L, 1);
      if (v < 1 || v > (lua_Integer)nv) luaL_error(L, "exact: incumbent entry %d is not a vertex", (int)i);
      inc[i - 1] = (uint32_t)(v - 1);
    }
    o->incumbent = inc, o->nincumbent = (uint32_t)len;
  } else lua_pushnil(L); /* 7 */
}

static void push_comps(lua_State *L, const cg_search_result *r) {
  uint32_t c;
  lua_createtable(L, (int)r->ncomps, 0);
  for (c = 0; c < r->ncomps; c++) {
    const cg_search_comp *k = &r->comps[c];
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, k->size), lua_setfield(L, -2, "size");
    lua_pushinteger(L, (lua_Integer)k->mults), lua_setfield(L, -2, "mults");
    lua_pushinteger(L, (lua_Integer)k->lower_bound), lua_setfield(L, -2, "lower_bound");
    lua_pushinteger(L, (lua_Integer)k->root_bound), lua_setfield(L, -2, "root_bound");
    lua_pushinteger(L, (lua_Integer)k->nodes), lua_setfield(L, -2, "nodes");
    lua_pushboolean(L, k->proven), lua_setfield(L, -2, "proven");
    lua_rawseti(L, -2, (lua_Integer)c + 1);
  }
}

/* lg:search{time_limit=, max_nodes=, tt_entries=, incumbent=, bound=, builtin=, branch=,
 * progress=} -> {mults=, lower_bound=, root_bound=, proven=, order=, nodes=,
 * seconds=, components=} | nil, msg (out of memory); hook errors raise. */
static int lin_search(lua_State *L) {
  int *busy, rc;
  struct cg_lin *g = lcg_checklin(L, 1, &busy);
  cg_search_opts o;
  hooks h;
  cg_error e;
  uint32_t *order;
  cg_search_result *r;
  memset(&h, 0, sizeof h);
  h.L = L;
  h.progress = lcg_progress_of(L);
  h.t0 = lcg_progress_now();
  read_opts(L, &o, &h, g->nv);
  order = (uint32_t *)lua_newuserdatauv(L, (size_t)g->nv * 4 + 4, 0); /* 8 */
  r = (cg_search_result *)lcg_box(L, sizeof *r, release_result);  /* 9 */
  *busy = 1;
  rc = cg_lin_search(g, &o, r, order, &e);
  *busy = 0;
  if (o.progress) lcg_progress_finish(h.progress, "exact search", r->nodes, h.t0);
  if (h.failed) return luaL_error(L, "%s", h.msg);
  if (rc) return lcg_fail(L, &e);
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, (lua_Integer)r->mults), lua_setfield(L, -2, "mults");
  lua_pushinteger(L, (lua_Integer)r->lower_bound), lua_setfield(L, -2, "lower_bound");
  lua_pushinteger(L, (lua_Integer)r->root_bound), lua_setfield(L, -2, "root_bound");
  lua_pushboolean(L, r->proven), lua_setfield(L, -2, "proven");
  lua_pushinteger(L, (lua_Integer)r->nodes), lua_setfield(L, -2, "nodes");
  lua_pushnumber(L, r->seconds), lua_setfield(L, -2, "seconds");
  lcg_push_ids(L, order, r->norder), lua_setfield(L, -2, "order");
  push_comps(L, r), lua_setfield(L, -2, "components");
  lcg_unbox(r);
  return 1;
}

static const luaL_Reg view_methods[] = {{"intermediates", view_intermediates}, {"preds", view_preds},
                                        {"succs", view_succs},                 {"markowitz", view_markowitz},
                                        {NULL, NULL}};

/* core.stderr_is_terminal() -> whether progress lines can be redrawn there */
static int l_stderr_is_terminal(lua_State *L) {
  lua_pushboolean(L, isatty(2));
  return 1;
}

void lcg_open_search(lua_State *L) {
  lua_pushcfunction(L, l_stderr_is_terminal); /* the core's table is at the top */
  lua_setfield(L, -2, "stderr_is_terminal");
  luaL_newmetatable(L, LCG_VIEW);
  lua_newtable(L);
  luaL_setfuncs(L, view_methods, 0);
  lua_pushcclosure(L, view_index, 1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  luaL_getmetatable(L, "cgwb.LinGraph");
  lua_getfield(L, -1, "__index");
  lua_pushcfunction(L, lin_search);
  lua_setfield(L, -2, "search");
  lua_pop(L, 2);
}

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
@module cgwb.core
*/

/*** core.stderr_is_terminal() -> whether progress lines can be redrawn there
@function stderr_is_terminal
*/

/*** What the hooks of lg:search see of the graph being searched (cgwb.SearchView), valid
during the call only; view.cost is the cost so far.
@type SearchView
*/

/*** view:intermediates() -> the remaining intermediates, ascending
@function SearchView:intermediates
*/

/*** view:markowitz(v) -> |preds| |succs| now
@function SearchView:markowitz
*/

/*** view:preds(v) -> the current predecessors of v, ascending.
@function SearchView:preds
*/

/*** view:succs(v) -> the current successors of v, ascending.
@function SearchView:succs
*/

/*** More methods of LinGraph.
@type LinGraph
*/

/*** lg:search{time_limit=, max_nodes=, tt_entries=, incumbent=, bound=, builtin=, branch=,
progress=} -> {mults=, lower_bound=, root_bound=, proven=, order=, nodes=, seconds=,
components=} | nil, msg (out of memory); hook errors raise.
@function LinGraph:search
*/

/* }==== */
