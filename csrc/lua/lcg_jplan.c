/* lcg_jplan.c: the cgwb.JPlan userdata: a kept Jacobian plan (cg_jplan.h).
 * Its first user value is the cgwb.Graph it evaluates, kept alive with it. */
#include <string.h>

#include "../elim/cg_jplan.h"
#include "lcg.h"

#define LCG_JPLAN "cgwb.JPlan"

typedef struct ljplan {
  cg_jplan *p;
  cg_alloc A;
} ljplan;

static int jp_free(lua_State *L) {
  ljplan *u = (ljplan *)luaL_checkudata(L, 1, LCG_JPLAN);
  cg_jplan_free(u->p);
  u->p = NULL;
  return 0;
}

/* The plan at idx, its graph still alive (g:free() frees it under the plan). */
static cg_jplan *checkplan(lua_State *L, int idx) {
  ljplan *u = (ljplan *)luaL_checkudata(L, idx, LCG_JPLAN);
  if (!u->p) luaL_argerror(L, idx, "cgwb.JPlan used after free()");
  lua_getiuservalue(L, idx, 1);
  if (lcg_graph_of(L, -1) != u->p->gr) luaL_argerror(L, idx, "the plan's cgwb.Graph was freed");
  lua_pop(L, 1);
  return u->p;
}

/* core.jacobian_plan(graph, lg, order) -> cgwb.JPlan | nil, msg: lg the
 * graph's linearized graph (not eliminated), order its vertex order (1-based). */
static int l_jplan_new(lua_State *L) {
  cg_graph *gr = lcg_checkgraph(L, 1);
  struct cg_lin *lg = lcg_checklin(L, 2, NULL);
  ljplan *u;
  size_t n, i;
  uint32_t *seq;
  cg_error e;
  luaL_checktype(L, 3, LUA_TTABLE);
  n = (size_t)luaL_len(L, 3);
  seq = (uint32_t *)lua_newuserdatauv(L, n * 4, 0); /* scratch: freed by Lua */
  for (i = 0; i < n; i++) {
    lua_Integer v;
    lua_rawgeti(L, 3, (lua_Integer)i + 1);
    v = lua_tointeger(L, -1);
    if (v < 1 || v > UINT32_MAX) luaL_argerror(L, 3, "vertex id out of range");
    seq[i] = (uint32_t)(v - 1);
    lua_pop(L, 1);
  }
  u = (ljplan *)lua_newuserdatauv(L, sizeof *u, 3);
  u->p = NULL;
  lcg_alloc(L, &u->A);
  luaL_setmetatable(L, LCG_JPLAN);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  u->p = cg_jplan_new(&u->A, gr, lg, seq, (uint32_t)n, &e);
  if (!u->p) return lcg_fail(L, &e);
  return 1;
}

/* Pushes the pattern as {m=, n=, nnz=, rows=, cols=} (1-based), the rows
 * and cols arrays made once and kept in user values 2 and 3 (shared by
 * every J the plan returns: read them, do not change them). */
static void push_pattern(lua_State *L, int idx, const cg_jplan *p) {
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, p->m), lua_setfield(L, -2, "m");
  lua_pushinteger(L, p->n), lua_setfield(L, -2, "n");
  lua_pushinteger(L, (lua_Integer)p->nnz), lua_setfield(L, -2, "nnz");
  if (lua_getiuservalue(L, idx, 2) != LUA_TTABLE) {
    lua_pop(L, 1);
    lcg_push_ids(L, p->row, (size_t)p->nnz);
    lua_pushvalue(L, -1), lua_setiuservalue(L, idx, 2);
    lcg_push_ids(L, p->col, (size_t)p->nnz);
    lua_setiuservalue(L, idx, 3);
  }
  lua_setfield(L, -2, "rows");
  lua_getiuservalue(L, idx, 3);
  lua_setfield(L, -2, "cols");
}

/* On a branch change: nil, "branch", changes, the first changed node (1-based). */
static int push_changed(lua_State *L, const cg_branch *br) {
  lua_pushnil(L);
  lua_pushliteral(L, "branch");
  lua_pushinteger(L, (lua_Integer)br->count);
  lcg_push_id(L, br->first);
  return 4;
}

/* The point at idx: n numbers (raises otherwise), in a scratch userdata. */
static const double *checkpoint(lua_State *L, int idx, uint32_t n, const char *what) {
  size_t len;
  const double *x = lcg_numbers(L, idx, &len);
  if (len != n) luaL_error(L, "bad argument #%d to '%s' (%d values expected, got %d)", idx, what,
                           (int)n, (int)len);
  return x;
}

/* Fills (or makes) the array at the top of the stack with v[0..n). */
static void fill_numbers(lua_State *L, const double *v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) lua_pushnumber(L, v[i]), lua_rawseti(L, -2, (lua_Integer)i + 1);
}

/* plan:_at(x [, J]) -> J, y | nil, "branch", changes, node: J is a new
 * table, or the given one (a J of this plan) with its vals overwritten. */
static int jp_at(lua_State *L) {
  cg_jplan *p = checkplan(L, 1);
  const double *x = checkpoint(L, 2, p->n, "at");
  double *y = p->yout, *J = p->jout; /* the plan's: read before the next call */
  cg_branch br;
  cg_error e;
  if (cg_jplan_at(p, x, y, J, &br, &e)) return lcg_fail(L, &e);
  if (br.count) return push_changed(L, &br);
  if (lua_istable(L, 3)) {
    lua_pushvalue(L, 3);
    if (lua_getfield(L, -1, "vals") != LUA_TTABLE) luaL_argerror(L, 3, "a J of this plan expected");
  } else {
    push_pattern(L, 1, p);
    lua_createtable(L, (int)p->nnz, 0);
    lua_pushvalue(L, -1), lua_setfield(L, -3, "vals");
  }
  fill_numbers(L, J, (size_t)p->nnz);
  lua_pop(L, 1);
  lua_createtable(L, (int)p->m, 0);
  fill_numbers(L, y, p->m);
  return 2;
}

/* plan:_jvp(x, v) / plan:_vjp(x, w) -> product, y | nil, "branch", changes, node */
static int sweep(lua_State *L, int reverse) {
  cg_jplan *p = checkplan(L, 1);
  const double *x = checkpoint(L, 2, p->n, reverse ? "vjp" : "jvp");
  const double *v = checkpoint(L, 3, reverse ? p->m : p->n, reverse ? "vjp" : "jvp");
  uint32_t nout = reverse ? p->n : p->m;
  double *y = p->yout, *r = p->vout;
  cg_branch br;
  cg_error e;
  int rc = reverse ? cg_jplan_vjp(p, x, v, y, r, &br, &e) : cg_jplan_jvp(p, x, v, y, r, &br, &e);
  if (rc) return lcg_fail(L, &e);
  if (br.count) return push_changed(L, &br);
  lua_createtable(L, (int)nout, 0);
  fill_numbers(L, r, nout);
  lua_createtable(L, (int)p->m, 0);
  fill_numbers(L, y, p->m);
  return 2;
}
static int jp_jvp(lua_State *L) { return sweep(L, 0); }
static int jp_vjp(lua_State *L) { return sweep(L, 1); }

/* plan:pattern() -> {m=, n=, nnz=, rows=, cols=} */
static int jp_pattern(lua_State *L) {
  push_pattern(L, 1, checkplan(L, 1));
  return 1;
}

/* plan:costs() -> {mults=, mults_nontrivial=, adds=, fill=, steps=, ops=,
 * partials=, slots=, edges=}: the recorded elimination's counts (as
 * cg_cost), the program's products, the nodes whose partials a point
 * computes, the edge slots, the linearized graph's edges (a sweep's mults). */
static int jp_costs(lua_State *L) {
  cg_jplan *p = checkplan(L, 1);
  lua_createtable(L, 0, 9);
#define SETI(k, v) (lua_pushinteger(L, (lua_Integer)(v)), lua_setfield(L, -2, k))
  SETI("mults", p->cost.mults), SETI("mults_nontrivial", p->cost.mults_nontrivial);
  SETI("adds", p->cost.adds), SETI("fill", p->cost.fill), SETI("steps", p->cost.steps);
  SETI("ops", p->nops), SETI("partials", p->np), SETI("slots", p->nslots);
  SETI("edges", p->ne0);
#undef SETI
  return 1;
}

/* plan:program() -> {dst=, a=, b=, add=}: the recorded products as arrays
 * (slots 1-based; add[k] true for dst += a * b, false for dst = a * b). */
static int jp_program(lua_State *L) {
  cg_jplan *p = checkplan(L, 1);
  uint64_t k;
  int f;
  static const char *const names[] = {"dst", "a", "b"};
  lua_createtable(L, 0, 4);
  for (f = 0; f < 3; f++) {
    lua_createtable(L, (int)p->nops, 0);
    for (k = 0; k < p->nops; k++) {
      lua_pushinteger(L, (lua_Integer)(p->ops[3 * k + f] & ~CG_JP_ADD) + 1);
      lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_setfield(L, -2, names[f]);
  }
  lua_createtable(L, (int)p->nops, 0);
  for (k = 0; k < p->nops; k++)
    lua_pushboolean(L, (p->ops[3 * k] & CG_JP_ADD) != 0), lua_rawseti(L, -2, (lua_Integer)k + 1);
  lua_setfield(L, -2, "add");
  return 1;
}

/* plan:codegen([path [, {name=, source=, chunk=}]]) -> true, stats (written
 * to path) or code, stats | nil, msg: the plan as C (cg_jplan_codegen). */
static int jp_codegen(lua_State *L) {
  cg_jplan *p = checkplan(L, 1);
  const char *path = luaL_optstring(L, 2, NULL), *name = "f", *source = NULL;
  lua_Integer chunk = 0;
  cg_jcstats st;
  cg_error e;
  lcg_sink *out;
  int rc;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    if (lua_getfield(L, 3, "name") != LUA_TNIL) name = luaL_checkstring(L, -1);
    if (lua_getfield(L, 3, "source") != LUA_TNIL) source = luaL_checkstring(L, -1);
    if (lua_getfield(L, 3, "chunk") != LUA_TNIL) chunk = luaL_checkinteger(L, -1);
    lua_pop(L, 3);
  }
  if (chunk < 0 || chunk > 100000000) luaL_argerror(L, 3, "chunk must be in 1..1e8");
  if (!(out = lcg_sink_open(L, path, &e))) return lcg_fail(L, &e);
  rc = cg_jplan_codegen(p, name, source, (uint32_t)chunk, out->fp, &st, &e);
  if (lcg_sink_close(L, out, rc, &e) != 1) return 2;
  lua_createtable(L, 0, 3);
  lua_pushinteger(L, (lua_Integer)st.functions), lua_setfield(L, -2, "functions");
  lua_pushinteger(L, (lua_Integer)st.statements), lua_setfield(L, -2, "statements");
  lua_pushinteger(L, (lua_Integer)st.bytes), lua_setfield(L, -2, "bytes");
  return 2;
}

static const luaL_Reg jp_methods[] = {
    {"codegen", jp_codegen},
    {"_at", jp_at},         {"_jvp", jp_jvp},     {"_vjp", jp_vjp},
    {"pattern", jp_pattern}, {"costs", jp_costs}, {"program", jp_program},
    {"free", jp_free},      {NULL, NULL}};
static const luaL_Reg jp_meta[] = {{"__gc", jp_free}, {"__close", jp_free}, {NULL, NULL}};

void lcg_open_jplan(lua_State *L) {
  lcg_newclass(L, LCG_JPLAN, jp_methods, jp_meta);
  lua_pushcfunction(L, l_jplan_new);
  lua_setfield(L, -2, "jacobian_plan");
}

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
@module cgwb.core
*/

/*** core.jacobian_plan(graph, lg, order) -> cgwb.JPlan | nil, msg: lg the graph's linearized
graph (not eliminated), order its vertex order (1-based).
@function jacobian_plan
*/

/*** The C side of a kept Jacobian plan (cgwb.JPlan): a recorded elimination replayed at new
points. cgwb.jacobian_plan (cgwb.jplan.new) wraps it in a Lua object whose at, jvp and vjp
call the underscored methods.
@type JPlan
*/

/*** plan:_at(x [, J]) -> J, y | nil, "branch", changes, node: J is a new table, or the given
one (a J of this plan) with its vals overwritten.
@function JPlan:_at
*/

/*** plan:_jvp(x, v) -> J*v, y | nil, "branch", changes, node: the tangent sweep that jplan's
plan:jvp wraps.
@function JPlan:_jvp
*/

/*** plan:_vjp(x, w) -> w^T*J, y | nil, "branch", changes, node: the adjoint sweep that jplan's
plan:vjp wraps.
@function JPlan:_vjp
*/

/*** plan:codegen([path [, {name=, source=, chunk=}]]) -> true, stats (written to path) or
code, stats | nil, msg: the plan as C (cg_jplan_codegen).
@function JPlan:codegen
*/

/*** plan:costs() -> {mults=, mults_nontrivial=, adds=, fill=, steps=, ops=, partials=, slots=,
edges=}: the recorded elimination's counts (as cg_cost), the program's products, the nodes
whose partials a point computes, the edge slots, the linearized graph's edges (a sweep's
mults).
@function JPlan:costs
*/

/*** plan:free(): releases the plan (also __gc and __close).
@function JPlan:free
*/

/*** plan:pattern() -> {m=, n=, nnz=, rows=, cols=}
@function JPlan:pattern
*/

/*** plan:program() -> {dst=, a=, b=, add=}: the recorded products as arrays (slots 1-based;
add[k] true for dst += a b, false for dst = a b).
@function JPlan:program
*/

/* }==== */
