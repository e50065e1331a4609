/* lcg_sched.c: levels, the cgwb.Schedule userdata (slots of Bischof & Hu 1991
 * section 3.1) and code generation (section 3.2).  Node ids seen from Lua
 * are 1-based; levels are 0-based as in Bischof & Hu (leaves at height 0). */
#include <stdlib.h>
#include <string.h>

#include "../sched/cg_sched.h"
#include "lcg.h"

#define LCG_SCHED "cgwb.Schedule"
#define LCG_GRAPH "cgwb.Graph"

/* A Schedule: the core object; user value 1 holds its Graph userdata. */
typedef struct lsched {
  cg_sched *s;
  const cg_graph *g; /* the graph it was made for, checked on each use */
  cg_alloc A;
} lsched;

static const cg_graph *checkgraph(lua_State *L, int idx) { return lcg_checkgraph(L, idx); }

static int s_free(lua_State *L) {
  lsched *u = (lsched *)luaL_checkudata(L, 1, LCG_SCHED);
  cg_sched_free(u->s);
  u->s = NULL;
  return 0;
}

/* The schedule at idx, whose graph must still be alive. */
static lsched *checksched(lua_State *L, int idx) {
  lsched *u = (lsched *)luaL_checkudata(L, idx, LCG_SCHED);
  const cg_graph *g;
  if (!u->s) luaL_argerror(L, idx, "cgwb.Schedule used after free()");
  lua_getiuservalue(L, idx, 1);
  g = lcg_graph_of(L, -1);
  lua_pop(L, 1);
  if (!g || g != u->g) luaL_argerror(L, idx, "the schedule's graph was freed");
  return u;
}

/* {==== levels ====} */

/* Levels from a Lua function level(id, graph) -> integer, one call per node.
 * The graph is fetched again after each call: the function may free it. */
static void levels_from_function(lua_State *L, const cg_graph *g, int fidx, int gidx,
                                 uint32_t *level) {
  uint32_t v;
  for (v = 0; v < g->n; v++, g = checkgraph(L, gidx)) {
    int isint;
    lua_Integer l;
    lua_pushvalue(L, fidx);
    lcg_push_id(L, v);
    lua_pushvalue(L, gidx);
    lua_call(L, 2, 1);
    l = lua_tointegerx(L, -1, &isint);
    if (!isint || l < 0 || l > (lua_Integer)UINT32_MAX - 1)
      luaL_error(L, "levels: the level of node %d is %s, not an integer >= 0", (int)v + 1,
                 luaL_tolstring(L, -1, NULL));
    level[v] = (uint32_t)l;
    lua_pop(L, 1);
  }
}

/* Levels from an array of integers, one per node. */
static void levels_from_table(lua_State *L, const cg_graph *g, int tidx, uint32_t *level) {
  uint32_t v;
  if (luaL_len(L, tidx) != (lua_Integer)g->n)
    luaL_error(L, "levels: %d levels for %d nodes", (int)luaL_len(L, tidx), (int)g->n);
  for (v = 0; v < g->n; v++) {
    int isint;
    lua_Integer l;
    lua_geti(L, tidx, (lua_Integer)v + 1);
    l = lua_tointegerx(L, -1, &isint);
    if (!isint || l < 0 || l > (lua_Integer)UINT32_MAX - 1)
      luaL_error(L, "levels: the level of node %d is not an integer >= 0", (int)v + 1);
    level[v] = (uint32_t)l;
    lua_pop(L, 1);
  }
}

/* Levels (a scratch userdata it pushes) for the scheme at sidx: a built-in
 * name, a function or an array.  Raises on an invalid scheme. */
static uint32_t *get_levels(lua_State *L, int gidx, int sidx) {
  const cg_graph *g = checkgraph(L, gidx);
  uint32_t *level = (uint32_t *)lua_newuserdatauv(L, (size_t)g->n * 4, 0);
  cg_error e;
  if (lua_isnoneornil(L, sidx) || lua_type(L, sidx) == LUA_TSTRING) {
    const char *name = luaL_optstring(L, sidx, "height");
    int sc = cg_level_scheme_byname(name);
    if (sc < 0) luaL_error(L, "levels: unknown scheme '%s' (height, depth, asap, alap)", name);
    cg_levels(g, sc, level, &e);
  } else if (lua_isfunction(L, sidx)) levels_from_function(L, g, sidx, gidx, level);
  else if (lua_istable(L, sidx)) levels_from_table(L, g, sidx, level);
  else luaL_typeerror(L, sidx, "scheme name, function or array");
  g = checkgraph(L, gidx); /* a level function may have freed it */
  if (cg_levels_check(g, level, &e)) luaL_error(L, "%s", e.msg);
  return level;
}

/* An array of levels (0-based, as in Bischof & Hu: not ids). */
static void push_levels(lua_State *L, const uint32_t *a, uint32_t n) {
  uint32_t i;
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, (lua_Integer)a[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* core.levels(g [, scheme]) -> {level of node 1, ...} (validated) */
static int l_levels(lua_State *L) {
  const cg_graph *g = checkgraph(L, 1);
  uint32_t *level;
  lua_settop(L, 2);
  level = get_levels(L, 1, 2);
  g = checkgraph(L, 1); /* a level function may have freed it */
  push_levels(L, level, g->n);
  return 1;
}

/* core.level_schemes() -> {"height", "depth", "asap", "alap"} */
static int l_level_schemes(lua_State *L) {
  int i;
  lua_createtable(L, CG_LV_COUNT, 0);
  for (i = 0; i < CG_LV_COUNT; i++) {
    lua_pushstring(L, cg_level_scheme_name(i));
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* {==== schedules ====} */

static int optflag(lua_State *L, int t, const char *k) {
  int r;
  if (lua_isnoneornil(L, t)) return 0;
  lua_getfield(L, t, k);
  r = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return r;
}

/* core.schedule(g [, scheme [, {inline_leaves=, sequential=}]]) -> Schedule
 * scheme: a built-in name, a function level(id, g) -> integer, or an array. */
static int l_schedule(lua_State *L) {
  const cg_graph *g = checkgraph(L, 1);
  unsigned flags;
  int seq;
  uint32_t *level;
  lsched *u;
  cg_error e;
  lua_settop(L, 3);
  if (!lua_isnil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  flags = optflag(L, 3, "inline_leaves") ? CG_SCHED_INLINE_LEAVES : 0;
  seq = optflag(L, 3, "sequential");
  level = seq ? NULL : get_levels(L, 1, 2);
  g = checkgraph(L, 1); /* a level function may have freed it */
  u = (lsched *)lua_newuserdatauv(L, sizeof *u, 1);
  memset(u, 0, sizeof *u);
  lcg_alloc(L, &u->A);
  luaL_setmetatable(L, LCG_SCHED);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  u->g = g;
  u->s = seq ? cg_sched_sequential(&u->A, g, flags, &e) : cg_sched_live(&u->A, g, level, flags, &e);
  if (!u->s) return luaL_error(L, "%s", e.msg);
  return 1;
}

static int s_nslots(lua_State *L) {
  lua_pushinteger(L, checksched(L, 1)->s->nslots);
  return 1;
}

static int s_nlevels(lua_State *L) {
  lua_pushinteger(L, checksched(L, 1)->s->nlev);
  return 1;
}

/* s:levels() -> level of each node (nil entries impossible: sequential
 * schedules give node i level i - 1). */
static int s_levels(lua_State *L) {
  lsched *u = checksched(L, 1);
  uint32_t i;
  if (u->s->level) push_levels(L, u->s->level, u->s->n);
  else {
    lua_createtable(L, (int)u->s->n, 0);
    for (i = 0; i < u->s->n; i++) {
      lua_pushinteger(L, (lua_Integer)i);
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
  }
  return 1;
}

/* s:slots() -> slot of each node, 0-based as in the generated code; -1 for
 * a leaf read in place. */
static int s_slots(lua_State *L) {
  lsched *u = checksched(L, 1);
  uint32_t i;
  lua_createtable(L, (int)u->s->n, 0);
  for (i = 0; i < u->s->n; i++) {
    lua_pushinteger(L, u->s->slot[i] == CG_NOSLOT ? -1 : (lua_Integer)u->s->slot[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* s:order() -> node ids in evaluation order */
static int s_order(lua_State *L) {
  lsched *u = checksched(L, 1);
  lcg_push_ids(L, u->s->order, u->s->n);
  return 1;
}

/* s:histogram() -> {nodes on level 0, on level 1, ...} (Figure 11) */
static int s_histogram(lua_State *L) {
  lsched *u = checksched(L, 1);
  uint32_t l;
  lua_createtable(L, (int)u->s->nlev, 0);
  for (l = 0; l < u->s->nlev; l++) {
    lua_pushinteger(L, (lua_Integer)(u->s->lev_start[l + 1] - u->s->lev_start[l]));
    lua_rawseti(L, -2, (lua_Integer)l + 1);
  }
  return 1;
}

/* s:stats() -> {nodes, levels, slots, stack_moves, widest, sequential} */
static int s_stats(lua_State *L) {
  lsched *u = checksched(L, 1);
  uint32_t l, w = 0;
  for (l = 0; l < u->s->nlev; l++)
    if (u->s->lev_start[l + 1] - u->s->lev_start[l] > w) w = u->s->lev_start[l + 1] - u->s->lev_start[l];
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, u->s->n);
  lua_setfield(L, -2, "nodes");
  lua_pushinteger(L, u->s->nlev);
  lua_setfield(L, -2, "levels");
  lua_pushinteger(L, u->s->nslots);
  lua_setfield(L, -2, "slots");
  lua_pushinteger(L, (lua_Integer)u->s->stack_moves);
  lua_setfield(L, -2, "stack_moves");
  lua_pushinteger(L, w);
  lua_setfield(L, -2, "widest_level");
  lua_pushboolean(L, u->s->sequential);
  lua_setfield(L, -2, "sequential");
  return 1;
}

/* s:eval([x [, reverse]]) -> {y...}, {value of each node} | nil, msg
 * Evaluates level by level through the slots only (Bischof & Hu 1991, sec. 3.3). */
static int s_eval(lua_State *L) {
  lsched *u = checksched(L, 1);
  const double *x = NULL;
  double *y, *val;
  size_t n;
  cg_error e;
  int reverse = lua_toboolean(L, 3);
  if (!lua_isnoneornil(L, 2)) {
    x = lcg_numbers(L, 2, &n);
    if (n != u->g->n_indep)
      return luaL_error(L, "eval: %d values for %d independents", (int)n, (int)u->g->n_indep);
  }
  y = (double *)lua_newuserdatauv(L, (size_t)u->g->n_dep * 8, 0);
  val = (double *)lua_newuserdatauv(L, (size_t)u->g->n * 8, 0);
  if (cg_sched_eval(u->g, u->s, x, reverse, val, y, &e)) return lcg_fail(L, &e);
  lua_createtable(L, (int)u->g->n_dep, 0);
  for (n = 0; n < u->g->n_dep; n++) {
    lua_pushnumber(L, y[n]);
    lua_rawseti(L, -2, (lua_Integer)n + 1);
  }
  lua_createtable(L, (int)u->g->n, 0);
  for (n = 0; n < u->g->n; n++) {
    lua_pushnumber(L, val[n]);
    lua_rawseti(L, -2, (lua_Integer)n + 1);
  }
  return 2;
}

/* {==== code generation ====} */

static const char *optstr(lua_State *L, int t, const char *k, const char *def) {
  const char *r = def;
  if (lua_isnoneornil(L, t)) return def;
  if (lua_getfield(L, t, k) != LUA_TNIL) r = luaL_checkstring(L, -1);
  lua_pop(L, 1); /* the string stays referenced by the options table */
  return r;
}

/* Reads {name=, form=, parallel=, chunk=, source=, scheme=} into o. */
static void codegen_opts(lua_State *L, int t, cg_cgopts *o) {
  static const char *const forms[] = {"levels", "straight", "chunked", NULL};
  const char *form = optstr(L, t, "form", "levels");
  int i;
  memset(o, 0, sizeof *o);
  o->name = optstr(L, t, "name", "f");
  o->source = optstr(L, t, "source", NULL);
  o->scheme = optstr(L, t, "scheme", NULL);
  o->parallel = optflag(L, t, "parallel");
  for (i = 0; forms[i] && strcmp(forms[i], form) != 0; i++) {}
  if (!forms[i]) luaL_error(L, "codegen: unknown form '%s' (levels, straight, chunked)", form);
  o->form = i;
  if (!lua_isnoneornil(L, t)) {
    lua_getfield(L, t, "chunk");
    if (!lua_isnil(L, -1)) {
      lua_Integer c = luaL_checkinteger(L, -1);
      if (c < 1 || c > 100000000) luaL_error(L, "codegen: chunk must be in 1..1e8");
      o->chunk = (uint32_t)c;
    }
    lua_pop(L, 1);
  }
}

static void push_cgstats(lua_State *L, const cg_cgstats *st) {
  lua_createtable(L, 0, 5);
  lua_pushinteger(L, (lua_Integer)st->lines);
  lua_setfield(L, -2, "lines");
  lua_pushinteger(L, (lua_Integer)st->functions);
  lua_setfield(L, -2, "functions");
  lua_pushinteger(L, (lua_Integer)st->statements);
  lua_setfield(L, -2, "statements");
  lua_pushinteger(L, (lua_Integer)st->slots);
  lua_setfield(L, -2, "slots");
  lua_pushinteger(L, (lua_Integer)st->bytes);
  lua_setfield(L, -2, "bytes");
}

/* s:codegen([path [, opts]]) -> true, stats (written to path) or code, stats */
static int s_codegen(lua_State *L) {
  lsched *u = checksched(L, 1);
  const char *path = luaL_optstring(L, 2, NULL);
  cg_cgopts o;
  cg_cgstats st;
  cg_error e;
  lcg_sink *out;
  int rc;
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  codegen_opts(L, 3, &o);
  if (!(out = lcg_sink_open(L, path, &e))) return lcg_fail(L, &e);
  rc = cg_codegen(u->g, u->s, &o, out->fp, &st, &e);
  if (rc && e.code == CG_EUSAGE) { /* bad options: a programmer error */
    lcg_unbox(out);
    return luaL_error(L, "%s", e.msg);
  }
  if (lcg_sink_close(L, out, rc, &e) != 1) return 2; /* nil, msg */
  push_cgstats(L, &st);
  return 2;
}

static int s_tostring(lua_State *L) {
  lsched *u = (lsched *)luaL_checkudata(L, 1, LCG_SCHED);
  if (!u->s) lua_pushliteral(L, "cgwb.Schedule (freed)");
  else lua_pushfstring(L, "cgwb.Schedule (%d nodes, %d levels, %d slots)", (int)u->s->n,
                       (int)u->s->nlev, (int)u->s->nslots);
  return 1;
}

static const luaL_Reg sched_methods[] = {
    {"nslots", s_nslots}, {"nlevels", s_nlevels},     {"levels", s_levels},
    {"slots", s_slots},   {"order", s_order},         {"histogram", s_histogram},
    {"stats", s_stats},   {"eval", s_eval},           {"codegen", s_codegen},
    {"free", s_free},     {NULL, NULL}};

static const luaL_Reg sched_meta[] = {
    {"__gc", s_free}, {"__close", s_free}, {"__tostring", s_tostring}, {NULL, NULL}};

static const luaL_Reg sched_funcs[] = {{"levels", l_levels},
                                       {"level_schemes", l_level_schemes},
                                       {"schedule", l_schedule},
                                       {NULL, NULL}};

void lcg_open_sched(lua_State *L) {
  lcg_newclass(L, LCG_SCHED, sched_methods, sched_meta);
  luaL_setfuncs(L, sched_funcs, 0);
}

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
@module cgwb.core
*/

/*** core.level_schemes() -> {"height", "depth", "asap", "alap"}
@function level_schemes
*/

/*** core.levels(g [, scheme]) -> {level of node 1, ...} (validated)
@function levels
*/

/*** core.schedule(g [, scheme [, {inline_leaves=, sequential=}]]) -> Schedule scheme: a
built-in name, a function level(id, g) -> integer, or an array.
@function schedule
*/

/*** Levels plus storage slots of a graph (cgwb.Schedule; Bischof & Hu 1991, sec. 3;
doc/codegen.md). Made by cgwb.schedule; tostring(s) -> cgwb.Schedule (N nodes, N levels, N
slots).
@type Schedule
*/

/*** s:codegen([path [, opts]]) -> true, stats (written to path) or code, stats
@function Schedule:codegen
*/

/*** s:eval([x [, reverse]]) -> {y...}, {value of each node} | nil, msg Evaluates level by
level through the slots only (Bischof & Hu 1991, sec. 3.3).
@function Schedule:eval
*/

/*** s:free(): releases the schedule now (also __gc and __close).
@function Schedule:free
*/

/*** s:histogram() -> {nodes on level 0, on level 1, ...} (Figure 11)
@function Schedule:histogram
*/

/*** s:levels() -> level of each node (nil entries impossible: sequential schedules give node i
level i - 1).
@function Schedule:levels
*/

/*** s:nlevels() -> the number of levels.
@function Schedule:nlevels
*/

/*** s:nslots() -> the number of storage slots.
@function Schedule:nslots
*/

/*** s:order() -> node ids in evaluation order
@function Schedule:order
*/

/*** s:slots() -> slot of each node, 0-based as in the generated code; -1 for a leaf read in
place.
@function Schedule:slots
*/

/*** s:stats() -> {nodes, levels, slots, stack_moves, widest, sequential}
@function Schedule:stats
*/

/* }==== */
