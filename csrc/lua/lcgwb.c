/* lcgwb.c: luaopen_cgwb_core and the helpers every binding file shares. */
#include <stdlib.h>
#include <string.h>

#include "lcg.h"

void lcg_alloc(lua_State *L, cg_alloc *A) {
  A->f = (cg_allocf)lua_getallocf(L, &A->ud);
}

int lcg_fail(lua_State *L, const cg_error *e) {
  luaL_pushfail(L);
  lua_pushstring(L, e->msg);
  return 2;
}

void lcg_newclass(lua_State *L, const char *name, const luaL_Reg *methods,
                  const luaL_Reg *meta) {
  luaL_newmetatable(L, name);
  luaL_setfuncs(L, meta, 0);
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

double *lcg_numbers(lua_State *L, int idx, size_t *n) {
  size_t i, len;
  double *v;
  idx = lua_absindex(L, idx);
  luaL_checktype(L, idx, LUA_TTABLE);
  len = (size_t)luaL_len(L, idx);
  v = (double *)lua_newuserdatauv(L, (len ? len : 1) * sizeof *v, 0);
  for (i = 0; i < len; i++) {
    int isnum;
    lua_geti(L, idx, (lua_Integer)i + 1);
    v[i] = lua_tonumberx(L, -1, &isnum);
    if (!isnum) luaL_error(L, "element %d of the array is not a number", (int)i + 1);
    lua_pop(L, 1);
  }
  *n = len;
  return v;
}

void lcg_push_numbers(lua_State *L, const double *v, size_t n) {
  size_t i;
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

void lcg_push_ids(lua_State *L, const uint32_t *ids, size_t n) {
  size_t i;
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, (lua_Integer)ids[i] + 1);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

const double *lcg_optpoint(lua_State *L, int idx, uint64_t n, const char *fn) {
  size_t got;
  const double *x;
  if (lua_isnoneornil(L, idx)) return NULL;
  x = lcg_numbers(L, idx, &got);
  if (got != n) luaL_error(L, "%s: %d values for %d independents", fn, (int)got, (int)n);
  return x;
}

int lcg_push_evaluation(lua_State *L, const double *y, size_t m, const cg_branch *br) {
  lcg_push_numbers(L, y, m);
  lua_pushinteger(L, (lua_Integer)br->count);
  if (br->count) lua_pushinteger(L, (lua_Integer)br->first + 1);
  else lua_pushnil(L);
  return 3;
}

int lcg_push_branch(lua_State *L, const cg_branch *br) {
  const cg_opinfo *op = br->count ? cg_op(br->first_op) : NULL;
  lua_pushinteger(L, (lua_Integer)br->count);
  if (br->count) lua_pushinteger(L, (lua_Integer)br->first + 1);
  else lua_pushnil(L);
  if (op && op->name) lua_pushstring(L, op->name);
  else lua_pushnil(L);
  return 3;
}

int lcg_sink_open(lua_State *L, lcg_sink *s, const char *path, cg_error *e) {
  memset(s, 0, sizeof *s);
  s->path = path;
  if (path) {
    int rc = cg_open_out(&s->o, path, e);
    s->fp = s->o.fp;
    return rc;
  }
  if (!(s->fp = open_memstream(&s->buf, &s->len))) luaL_error(L, "out of memory");
  return CG_OK;
}

int lcg_sink_close(lua_State *L, lcg_sink *s, int rc, cg_error *e) {
  if (s->path) {
    if (rc) cg_abort_file(&s->o);
    else rc = cg_commit_file(&s->o, e);
    if (rc) return lcg_fail(L, e);
    lua_pushboolean(L, 1);
    return 1;
  }
  fclose(s->fp);
  if (rc) {
    free(s->buf);
    return lcg_fail(L, e);
  }
  lua_pushlstring(L, s->buf, s->len);
  free(s->buf);
  return 1;
}

/* cgwb.core.version */
LCG_EXPORT int luaopen_cgwb_core(lua_State *L);

LCG_EXPORT int luaopen_cgwb_core(lua_State *L) {
  lua_newtable(L);
  lcg_open_tape(L);
  lcg_open_graph(L);
  lcg_open_sched(L);
  lcg_open_elim(L);
  lua_pushliteral(L, "0.1.0");
  lua_setfield(L, -2, "version");
  return 1;
}
