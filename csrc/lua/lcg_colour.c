/* lcg_colour.c: lg:jacobian_coloured, the Jacobian by colouring and
 * compressed sweeps (cg_colour.h), a method of cgwb.LinGraph added here. */
#include <string.h>

#include "../elim/cg_colour.h"
#include "lcg.h"

/* What one call holds while it pushes into Lua (which may raise). */
typedef struct colour_box {
  cg_pattern P;
  cg_colouring C;
  cg_jac J;
} colour_box;

static void colour_release(void *p, cg_alloc *A) {
  colour_box *b = (colour_box *)p;
  cg_pattern_free(A, &b->P);
  cg_colouring_free(A, &b->C);
  cg_jac_free(A, &b->J);
}

/* Reads opts (table at idx, may be absent): side, order, trivial. */
static void colour_opts(lua_State *L, int idx, int *side, const char **order, int *trivial) {
  static const char *const sides[] = {"column", "row", NULL};
  *side = CG_SIDE_COLUMN, *order = NULL, *trivial = 0;
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_getfield(L, idx, "side");
  if (!lua_isnil(L, -1)) *side = luaL_checkoption(L, -1, NULL, sides);
  lua_getfield(L, idx, "order");
  if (!lua_isnil(L, -1)) *order = luaL_checkstring(L, -1); /* stays on the stack */
  lua_getfield(L, idx, "trivial");
  *trivial = lua_toboolean(L, -1);
  lua_pop(L, 1);
}

/* Pushes info {colours=, sweeps=, mults=, mults_nontrivial=, adds=, side=,
 * colouring=, colour={...}} (colour: 1-based per column or row, 0 for an
 * uncoloured empty one). */
static void push_info(lua_State *L, const colour_box *b, const cg_cost *c, const char *how) {
  uint32_t k;
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, b->C.ncolours), lua_setfield(L, -2, "colours");
  lua_pushinteger(L, (lua_Integer)c->steps), lua_setfield(L, -2, "sweeps");
  lua_pushinteger(L, (lua_Integer)c->mults), lua_setfield(L, -2, "mults");
  lua_pushinteger(L, (lua_Integer)c->mults_nontrivial), lua_setfield(L, -2, "mults_nontrivial");
  lua_pushinteger(L, (lua_Integer)c->adds), lua_setfield(L, -2, "adds");
  lua_pushstring(L, b->C.side == CG_SIDE_COLUMN ? "column" : "row"), lua_setfield(L, -2, "side");
  lua_pushstring(L, how), lua_setfield(L, -2, "colouring");
  lua_createtable(L, (int)b->C.count, 0);
  for (k = 0; k < b->C.count; k++) {
    uint32_t col = b->C.colour[k];
    lua_pushinteger(L, col == CG_NOCOLOUR ? 0 : (lua_Integer)col + 1);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  lua_setfield(L, -2, "colour");
}

/* lg:jacobian_coloured([{side = "column"|"row", order = COLPACK_ORDER,
 * trivial = bool}]) -> J, info | nil, msg */
static int lin_jacobian_coloured(lua_State *L) {
  const cg_lin *g = lcg_checklin(L, 1, NULL);
  int side, trivial, rc;
  const char *order;
  cg_error e;
  cg_cost c;
  colour_box *b;
  colour_opts(L, 2, &side, &order, &trivial);
  b = (colour_box *)lcg_box(L, sizeof *b, colour_release);
  memset(&c, 0, sizeof c);
  rc = cg_lin_pattern(g, &b->P, &e);
  if (!rc) rc = trivial ? cg_colour_trivial(g->A, &b->P, side, &b->C, &e)
                        : cg_colour_colpack(g->A, &b->P, side, order, &b->C, &e);
  if (!rc) rc = cg_lin_jac_coloured(g, &b->P, &b->C, &b->J, &c, &e);
  if (rc) {
    lcg_unbox(b);
    return lcg_fail(L, &e);
  }
  lcg_push_jac(L, &b->J);
  push_info(L, b, &c, trivial ? "trivial" : order ? order : cg_colpack_orders[0]);
  lcg_unbox(b);
  return 2;
}

/* core.colouring_orders() -> {names}: ColPack's orderings offered, the
 * default first. */
static int l_colouring_orders(lua_State *L) {
  int i;
  lua_newtable(L);
  for (i = 0; cg_colpack_orders[i]; i++)
    lua_pushstring(L, cg_colpack_orders[i]), lua_rawseti(L, -2, i + 1);
  return 1;
}

void lcg_open_colour(lua_State *L) {
  static const luaL_Reg methods[] = {{"jacobian_coloured", lin_jacobian_coloured}, {NULL, NULL}};
  luaL_getmetatable(L, "cgwb.LinGraph");
  lua_getfield(L, -1, "__index");
  luaL_setfuncs(L, methods, 0);
  lua_pop(L, 2);
  lua_pushcfunction(L, l_colouring_orders);
  lua_setfield(L, -2, "colouring_orders");
}

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
@module cgwb.core
*/

/*** core.colouring_orders() -> {names}: ColPack's orderings offered, the default first.
@function colouring_orders
*/

/*** More methods of LinGraph.
@type LinGraph
*/

/*** lg:jacobian_coloured([{side = "column"|"row", order = COLPACK_ORDER, trivial = bool}]) ->
J, info | nil, msg
@function LinGraph:jacobian_coloured
*/

/* }==== */
