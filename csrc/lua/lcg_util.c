/* lcg_util.c: the helpers every binding file shares (lcg.h): the state's
 * memory limit and allocator, failures, arrays and ids, boxes and sinks.  It
 * calls no other binding file. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lcg.h"

/* {==== the memory limit ====} */

#define LCG_BUDGET "cgwb.Budget" /* registry key of the state's cg_budget */

/* The limit CGWB_MEMORY_LIMIT sets, in bytes: a number with an optional K, M
 * or G suffix (0 = none); without it, the physical memory. */
static size_t env_mem_limit(void) {
  const char *s = getenv("CGWB_MEMORY_LIMIT");
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (s && *s) {
    char *end;
    double v = strtod(s, &end);
    if (*end == 'K' || *end == 'k') v *= 1024.0;
    else if (*end == 'M' || *end == 'm') v *= 1048576.0;
    else if (*end == 'G' || *end == 'g') v *= 1073741824.0;
    return v > 0 && v < (double)SIZE_MAX / 2 ? (size_t)v : 0;
  }
  return pages > 0 && psize > 0 ? (size_t)pages * (size_t)psize : 0;
}

/* The state's budget: a userdata in the registry, made on first use over
 * Lua's allocator with the limit read once from the environment.  It has
 * no __gc, so at lua_close it outlives the finalizers of the objects that
 * count on it (Lua frees memory only after running every finalizer). */
cg_budget *lcg_budget(lua_State *L) {
  cg_budget *b;
  if (lua_getfield(L, LUA_REGISTRYINDEX, LCG_BUDGET) == LUA_TUSERDATA) {
    b = (cg_budget *)lua_touserdata(L, -1);
  } else {
    cg_alloc base;
    base.f = (cg_allocf)lua_getallocf(L, &base.ud);
    b = (cg_budget *)lua_newuserdatauv(L, sizeof *b, 0);
    cg_budget_init(b, base, env_mem_limit(), NULL);
    lua_setfield(L, LUA_REGISTRYINDEX, LCG_BUDGET);
  }
  lua_pop(L, 1);
  return b;
}

void lcg_alloc(lua_State *L, cg_alloc *A) {
  A->f = cg_budget_allocf;
  A->ud = lcg_budget(L);
}

/* If the limit stopped the failed call (and clears that), the limit
 * formatted into buf; else NULL. */
static const char *limit_reached(lua_State *L, const cg_error *e, char *buf, size_t size) {
  cg_budget *b = lcg_budget(L);
  int hit = b->hit;
  b->hit = 0;
  if (!hit || e->code != CG_ENOMEM) return NULL;
  cg_fmt_bytes(buf, size, (double)b->limit);
  return buf;
}

int lcg_fail(lua_State *L, const cg_error *e) {
  char lim[32];
  if (limit_reached(L, e, lim, sizeof lim)) { /* no position: the message says where */
    lua_pushfstring(L, "%s: memory limit of %s reached (CGWB_MEMORY_LIMIT); raise it "
                    "(CGWB_MEMORY_LIMIT=4G, 0 for none)", e->msg, lim);
    return lua_error(L);
  }
  luaL_pushfail(L);
  lua_pushstring(L, e->msg);
  return 2;
}

int lcg_fail_order(lua_State *L, const cg_error *e, const char *order) {
  char lim[32];
  if (limit_reached(L, e, lim, sizeof lim)) {
    lua_pushfstring(L, "this ordering (%s) would need more than %s of memory "
                    "(CGWB_MEMORY_LIMIT); try --order markowitz or raise the limit (%s)",
                    order, lim, e->msg);
    return lua_error(L);
  }
  return lcg_fail(L, e);
}

int lcg_nomem(lua_State *L, const char *what) {
  cg_error e;
  cg_seterr(&e, CG_ENOMEM, "%s: out of memory", what);
  lcg_fail(L, &e); /* raises when the limit refused the allocation */
  return luaL_error(L, "%s", e.msg);
}

/* }==== */

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
  v = (double *)lua_newuserdatauv(L, len * sizeof *v, 0);
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

void lcg_push_id(lua_State *L, uint64_t id) { lua_pushinteger(L, (lua_Integer)id + 1); }

uint32_t lcg_check_id(lua_State *L, int idx, uint32_t n, const char *what) {
  lua_Integer i = luaL_checkinteger(L, idx);
  if (i < 1 || i > (lua_Integer)n) luaL_argerror(L, idx, lua_pushfstring(L, "%s id out of range", what));
  return (uint32_t)(i - 1);
}

void lcg_push_ids(lua_State *L, const uint32_t *ids, size_t n) {
  size_t i;
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    lcg_push_id(L, ids[i]);
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
  if (br->count) lcg_push_id(L, br->first);
  else lua_pushnil(L);
  return 3;
}

int lcg_push_branch(lua_State *L, const cg_branch *br) {
  const cg_opinfo *op = br->count ? cg_op(br->first_op) : NULL;
  lua_pushinteger(L, (lua_Integer)br->count);
  if (br->count) lcg_push_id(L, br->first);
  else lua_pushnil(L);
  if (op && op->name) lua_pushstring(L, op->name);
  else lua_pushnil(L);
  return 3;
}

/* {==== boxes ====} */

#define LCG_BOX "cgwb.Box"

/* A box's userdata: the release function (NULL once released), the
 * allocator, then the payload, aligned for any type the core stores. */
typedef struct box {
  lcg_release release;
  cg_alloc A;
  union {
    double d;
    void *p;
    uint64_t u;
  } payload[1];
} box;

static box *box_of(void *payload) {
  return (box *)(void *)((char *)payload - offsetof(box, payload));
}

void lcg_unbox(void *payload) {
  box *b = box_of(payload);
  lcg_release f = b->release;
  b->release = NULL; /* first: a release that fails halfway is not retried */
  if (f) f(b->payload, &b->A);
}

/* __gc and __close of a box */
static int box_gc(lua_State *L) {
  box *b = (box *)luaL_checkudata(L, 1, LCG_BOX);
  lcg_unbox(b->payload);
  return 0;
}

void *lcg_box(lua_State *L, size_t size, lcg_release release) {
  size_t least = sizeof(((box *)0)->payload); /* a payload of 0 bytes still has its place */
  size_t all = offsetof(box, payload) + (size > least ? size : least);
  box *b = (box *)lua_newuserdatauv(L, all, 0);
  memset(b, 0, all);
  lcg_alloc(L, &b->A);
  luaL_setmetatable(L, LCG_BOX);
  b->release = release; /* only now: the payload is zeroed and the box armed */
  return b->payload;
}

void lcg_open_util(lua_State *L) {
  static const luaL_Reg meta[] = {{"__gc", box_gc}, {"__close", box_gc}, {NULL, NULL}};
  luaL_newmetatable(L, LCG_BOX);
  luaL_setfuncs(L, meta, 0);
  lua_pop(L, 1);
}

/* A sink's release: an unfinished file is removed, a text freed. */
static void sink_release(void *p, cg_alloc *A) {
  lcg_sink *s = (lcg_sink *)p;
  (void)A; /* a memory stream's text is malloc'd by the C library */
  if (s->fp && s->path) cg_abort_file(&s->o);
  else if (s->fp) fclose(s->fp);
  s->fp = NULL;
  free(s->buf);
  s->buf = NULL;
}

lcg_sink *lcg_sink_open(lua_State *L, const char *path, cg_error *e) {
  lcg_sink *s = (lcg_sink *)lcg_box(L, sizeof *s, sink_release);
  s->path = path;
  if (path) {
    if (cg_open_out(&s->o, path, e)) return NULL;
    s->fp = s->o.fp;
  } else if (!(s->fp = open_memstream(&s->buf, &s->len))) {
    luaL_error(L, "out of memory");
  }
  return s;
}

int lcg_sink_close(lua_State *L, lcg_sink *s, int rc, cg_error *e) {
  if (s->path) {
    if (rc) cg_abort_file(&s->o);
    else rc = cg_commit_file(&s->o, e);
    s->fp = NULL; /* closed either way */
    if (rc) return lcg_fail(L, e);
    lua_pushboolean(L, 1);
    return 1;
  }
  fclose(s->fp);
  s->fp = NULL;
  if (!rc) lua_pushlstring(L, s->buf, s->len); /* may raise: the box frees buf */
  lcg_unbox(s);
  return rc ? lcg_fail(L, e) : 1;
}

/* }==== */
