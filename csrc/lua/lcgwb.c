/* lcgwb.c: luaopen_cgwb_core, the module opener: the module table, each
 * binding file's registration, and the module's own fields.  The binding
 * files share lcg_util.c's helpers; only this file calls into all of them. */
#include "lcg.h"

/* core.memory_limit([bytes]) -> limit, bytes in use: the limit on what the
 * core allocates for this state (0: none), set when bytes is given. */
static int l_memory_limit(lua_State *L) {
  cg_budget *b = lcg_budget(L);
  if (!lua_isnoneornil(L, 1)) {
    lua_Integer n = luaL_checkinteger(L, 1);
    luaL_argcheck(L, n >= 0, 1, "the limit must be >= 0");
    b->limit = (size_t)n;
  }
  lua_pushinteger(L, (lua_Integer)b->limit);
  lua_pushinteger(L, (lua_Integer)b->used);
  return 2;
}

/* cgwb.core.version */
LCG_EXPORT int luaopen_cgwb_core(lua_State *L);

LCG_EXPORT int luaopen_cgwb_core(lua_State *L) {
  lua_newtable(L);
  lcg_open_util(L);
  lcg_open_tape(L);
  lcg_open_graph(L);
  lcg_open_sched(L);
  lcg_open_elim(L);
  lcg_open_colour(L);
  lcg_open_search(L);
  lcg_open_kernel(L);
  lcg_open_kanalysis(L);
  lcg_open_kflat(L);
  lcg_open_adjoint(L);
  lcg_open_jplan(L);
  lcg_open_progress(L);
  lua_pushcfunction(L, l_memory_limit);
  lua_setfield(L, -2, "memory_limit");
  lua_pushliteral(L, "0.1.0");
  lua_setfield(L, -2, "version");
  return 1;
}

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
`require "cgwb"` re-exports most of it (as cgwb.read_tape for core.read_tape, ...);
each binding file csrc/lua/lcg_*.c documents its functions and classes at its end.
Ids seen from Lua are 1-based; expected failures return nil, msg; every object has
free(), __gc and __close.
@module cgwb.core
*/

/*** core.memory_limit([bytes]) -> limit, bytes in use: the limit on what the core allocates
for this state (0: none), set when bytes is given.
@function memory_limit
*/

/* }==== */
