/* lcg_kernel.c: kernels from Lua: the layout of the front end's arrays
 * (core.kernel_layout), loading them (core.kernel_load) and the cgwb.Kernel
 * type. */
#include <string.h>

#include "lcg.h"
#include "../kernel/cg_kernel.h"

#define LCG_KERNEL "cgwb.Kernel"

/* {==== the layout ====} */

/* Pushes {name = offset + 1, ...} for a row's fields. */
#define PUSH_FIELD(f) lua_pushinteger(L, ++i), lua_setfield(L, -2, #f);
static void push_fields(lua_State *L, int which) {
  lua_Integer i = 0;
  lua_newtable(L);
  switch (which) {
    case 0: CG_KFUNC_FIELDS(PUSH_FIELD) break;
    case 1: CG_KSYM_FIELDS(PUSH_FIELD) break;
    case 2: CG_KEXPR_FIELDS(PUSH_FIELD) break;
    default: CG_KSTMT_FIELDS(PUSH_FIELD) break;
  }
}
#undef PUSH_FIELD

/* Pushes {name = code, ...} and an array of the names by code + 1. */
static void push_enum(lua_State *L, const char *(*name)(int), int count, const char *field) {
  int i;
  lua_newtable(L);
  for (i = 0; i < count; i++) {
    lua_pushinteger(L, i);
    lua_setfield(L, -2, name(i));
    lua_pushstring(L, name(i));
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, field);
}

static const char *sym_kind_name(int i) {
  static const char *const n[] = {"param", "local", "temp", "global"};
  return n[i];
}
static const char *loop_kind_name(int i) {
  static const char *const n[] = {"for", "while", "do"};
  return n[i];
}

/* core.kernel_layout() -> {func=, sym=, expr=, stmt= (field name -> 1-based
 * offset), width = {func=, sym=, expr=, stmt=}, types=, exprs=, stmts=,
 * intrinsics=, sym_kinds=, loop_kinds= (name -> code and code + 1 -> name),
 * arity = {intrinsic name -> arity}, qual = {const=, restrict=, addr=},
 * max_depth=}: what kparse.lua writes, read from cg_kernel.h. */
static int l_kernel_layout(lua_State *L) {
  static const char *const rows[] = {"func", "sym", "expr", "stmt"};
  static const int widths[] = {CG_KFUNC_W, CG_KSYM_W, CG_KEXPR_W, CG_KSTMT_W};
  int i;
  lua_newtable(L);
  lua_newtable(L);
  for (i = 0; i < 4; i++) {
    push_fields(L, i);
    lua_setfield(L, -3, rows[i]);
    lua_pushinteger(L, widths[i]);
    lua_setfield(L, -2, rows[i]);
  }
  lua_setfield(L, -2, "width");
  push_enum(L, cg_ktype_name, CG_KT_COUNT, "types");
  push_enum(L, cg_kexpr_name, CG_KE_COUNT, "exprs");
  push_enum(L, cg_kstmt_name, CG_KST_COUNT, "stmts");
  push_enum(L, cg_kintrinsic_name, CG_KI_COUNT, "intrinsics");
  push_enum(L, sym_kind_name, CG_KS_COUNT, "sym_kinds");
  push_enum(L, loop_kind_name, 3, "loop_kinds");
  lua_newtable(L);
  for (i = 0; i < CG_KI_COUNT; i++) {
    lua_pushinteger(L, cg_kintrinsic_arity(i));
    lua_setfield(L, -2, cg_kintrinsic_name(i));
  }
  lua_setfield(L, -2, "arity");
  lua_newtable(L);
  lua_pushinteger(L, CG_KQ_CONST), lua_setfield(L, -2, "const");
  lua_pushinteger(L, CG_KQ_RESTRICT), lua_setfield(L, -2, "restrict");
  lua_pushinteger(L, CG_KQ_ADDR), lua_setfield(L, -2, "addr");
  lua_setfield(L, -2, "qual");
  lua_pushinteger(L, CG_KMAX_DEPTH);
  lua_setfield(L, -2, "max_depth");
  return 1;
}

/* }==== */

/* {==== the Kernel userdata ====}
 * It owns the loaded kernel; created empty, then filled, so that an error
 * halfway leaves an object its __gc can free (STYLE.md rule 5). */

static void k_release(lkernel *u) {
  cg_kernel_free(u->k);
  u->k = NULL;
}

static int k_free(lua_State *L) {
  k_release((lkernel *)luaL_checkudata(L, 1, LCG_KERNEL));
  return 0;
}

lkernel *lcg_checklkernel(lua_State *L, int idx) {
  lkernel *u = (lkernel *)luaL_checkudata(L, idx, LCG_KERNEL);
  if (!u->k) luaL_argerror(L, idx, "cgwb.Kernel used after free()");
  return u;
}

struct cg_kernel *lcg_checkkernel(lua_State *L, int idx) { return lcg_checklkernel(L, idx)->k; }

/* The scratch arrays of a load: the ints and doubles read from the flat
 * table, in a box so that a raise while reading cannot leak them. */
typedef struct kscratch {
  int32_t *a[6];
  size_t n[6];
  double *d;
  size_t nd;
  const char **names;
  size_t nnames;
} kscratch;

static const char *const int_fields[6] = {"func", "sym", "expr", "stmt", "list", "args"};

static void scratch_release(void *p, cg_alloc *A) {
  kscratch *s = (kscratch *)p;
  int i;
  for (i = 0; i < 6; i++) CG_FREE(A, s->a[i], int32_t, s->n[i]);
  CG_FREE(A, s->d, double, s->nd);
  CG_FREE(A, s->names, const char *, s->nnames);
}

/* The length of flat[field], an array (raises unless a table). */
static size_t field_len(lua_State *L, const char *field) {
  size_t n;
  if (lua_getfield(L, 1, field) != LUA_TTABLE)
    luaL_error(L, "kernel_load: flat.%s is not a table", field);
  n = (size_t)luaL_len(L, -1);
  lua_pop(L, 1);
  return n;
}

/* Reads flat[field] (an array of int32) into a[0..n). */
static void read_ints(lua_State *L, const char *field, int32_t *a, size_t n) {
  size_t i;
  lua_getfield(L, 1, field);
  for (i = 0; i < n; i++) {
    int isint;
    lua_Integer v;
    lua_geti(L, -1, (lua_Integer)i + 1);
    v = lua_tointegerx(L, -1, &isint);
    if (!isint || v < INT32_MIN || v > INT32_MAX)
      luaL_error(L, "kernel_load: flat.%s[%d] is not an int32", field, (int)i + 1);
    a[i] = (int32_t)v;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* Reads flat.names (strings without NUL bytes; they stay alive in flat)
 * and flat.dconst. */
static void read_names_consts(lua_State *L, kscratch *s) {
  size_t i, len;
  lua_getfield(L, 1, "names");
  for (i = 0; i < s->nnames; i++) {
    lua_geti(L, -1, (lua_Integer)i + 1);
    if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "kernel_load: flat.names[%d] is not a string", (int)i + 1);
    s->names[i] = lua_tolstring(L, -1, &len);
    if (strlen(s->names[i]) != len)
      luaL_error(L, "kernel_load: flat.names[%d] holds a NUL byte", (int)i + 1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_getfield(L, 1, "dconst");
  for (i = 0; i < s->nd; i++) {
    int isnum;
    lua_geti(L, -1, (lua_Integer)i + 1);
    s->d[i] = lua_tonumberx(L, -1, &isnum);
    if (!isnum) luaL_error(L, "kernel_load: flat.dconst[%d] is not a number", (int)i + 1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* Fills the scratch box from the flat table at 1 and src from it. */
static void read_flat(lua_State *L, kscratch *s, cg_ksrc *src, cg_alloc *A) {
  static const int widths[6] = {CG_KFUNC_W, CG_KSYM_W, CG_KEXPR_W, CG_KSTMT_W, 1, 1};
  int i;
  for (i = 0; i < 6; i++) {
    size_t n = field_len(L, int_fields[i]);
    if (n % (size_t)widths[i])
      luaL_error(L, "kernel_load: flat.%s has %d values, not a multiple of %d", int_fields[i],
                 (int)n, widths[i]);
    if (!(s->a[i] = CG_NEW(A, int32_t, n))) lcg_nomem(L, "kernel_load");
    s->n[i] = n;
    read_ints(L, int_fields[i], s->a[i], n);
  }
  s->nnames = field_len(L, "names");
  if (!(s->names = CG_NEW(A, const char *, s->nnames))) lcg_nomem(L, "kernel_load");
  s->nd = field_len(L, "dconst");
  if (!(s->d = CG_NEW(A, double, s->nd))) lcg_nomem(L, "kernel_load");
  read_names_consts(L, s);
  memset(src, 0, sizeof *src);
  lua_getfield(L, 1, "file");
  src->file = lua_tostring(L, -1); /* NULL: "kernel"; flat keeps the string */
  lua_pop(L, 1);
  src->nname = (uint32_t)s->nnames, src->names = s->names;
  src->nfunc = (uint32_t)(s->n[0] / CG_KFUNC_W), src->func = s->a[0];
  src->nsym = (uint32_t)(s->n[1] / CG_KSYM_W), src->sym = s->a[1];
  src->nexpr = (uint32_t)(s->n[2] / CG_KEXPR_W), src->expr = s->a[2];
  src->nstmt = (uint32_t)(s->n[3] / CG_KSTMT_W), src->stmt = s->a[3];
  src->nlist = (uint32_t)s->n[4], src->list = s->a[4];
  src->narg = (uint32_t)s->n[5], src->args = s->a[5];
  src->ndconst = (uint32_t)s->nd, src->dconst = s->d;
}

/* core.kernel_load(flat) -> cgwb.Kernel | nil, "FILE: kernel form: ...":
 * flat as kparse.parse gives it ({file=, names=, func=, sym=, expr=, stmt=,
 * list=, args=, dconst=}: rows back to back, 0-based ids).  Raises when a
 * field is not an array of the right values (a front end's bug). */
static int l_kernel_load(lua_State *L) {
  kscratch *s;
  cg_ksrc src;
  cg_error e;
  lkernel *u;
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  u = (lkernel *)lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  lcg_alloc(L, &u->A);
  luaL_setmetatable(L, LCG_KERNEL);
  s = (kscratch *)lcg_box(L, sizeof *s, scratch_release);
  read_flat(L, s, &src, &u->A);
  u->k = cg_kernel_load(&u->A, &src, &e);
  lcg_unbox(s);
  lua_pop(L, 1);
  if (!u->k) return lcg_fail(L, &e);
  return 1;
}

static void push_ints(lua_State *L, const int32_t *a, size_t n, const char *field) {
  size_t i;
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, a[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, field);
}

/* k:ir() -> the flat table the kernel was loaded from (the same fields and
 * values, 0-based ids). */
static int k_ir(lua_State *L) {
  const cg_kernel *k = lcg_checkkernel(L, 1);
  uint32_t i;
  lua_newtable(L);
  if (k->file) lua_pushstring(L, k->file), lua_setfield(L, -2, "file");
  lua_createtable(L, (int)k->nname, 0);
  for (i = 0; i < k->nname; i++) lua_pushstring(L, k->names[i]), lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_setfield(L, -2, "names");
  push_ints(L, k->func, (size_t)k->nfunc * CG_KFUNC_W, "func");
  push_ints(L, k->sym, (size_t)k->nsym * CG_KSYM_W, "sym");
  push_ints(L, k->expr, (size_t)k->nexpr * CG_KEXPR_W, "expr");
  push_ints(L, k->stmt, (size_t)k->nstmt * CG_KSTMT_W, "stmt");
  push_ints(L, k->list, k->nlist, "list");
  push_ints(L, k->args, k->narg, "args");
  lcg_push_numbers(L, k->dconst, k->ndconst);
  lua_setfield(L, -2, "dconst");
  return 1;
}

/* The function named or numbered (1-based) by argument idx, 0-based. */
int32_t lcg_checkkfunc(lua_State *L, const cg_kernel *k, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING) {
    int32_t f = cg_kernel_find(k, lua_tostring(L, idx));
    if (f < 0) luaL_argerror(L, idx, lua_pushfstring(L, "no function '%s' in the kernel", lua_tostring(L, idx)));
    return f;
  }
  return (int32_t)lcg_check_id(L, idx, k->nfunc, "function");
}

static int k_tostring(lua_State *L) {
  lkernel *u = (lkernel *)luaL_checkudata(L, 1, LCG_KERNEL);
  if (!u->k) lua_pushstring(L, "cgwb.Kernel (freed)");
  else
    lua_pushfstring(L, "cgwb.Kernel (%s: %d functions, %d statements)",
                    u->k->file ? u->k->file : "kernel", (int)u->k->nfunc, (int)u->k->nstmt);
  return 1;
}

static const luaL_Reg kernel_methods[] = {{"ir", k_ir}, {"free", k_free}, {NULL, NULL}};
static const luaL_Reg kernel_meta[] = {
    {"__gc", k_free}, {"__close", k_free}, {"__tostring", k_tostring}, {NULL, NULL}};

/* }==== */

void lcg_open_kernel(lua_State *L) {
  lcg_newclass(L, LCG_KERNEL, kernel_methods, kernel_meta);
  lua_pushcfunction(L, l_kernel_layout);
  lua_setfield(L, -2, "kernel_layout");
  lua_pushcfunction(L, l_kernel_load);
  lua_setfield(L, -2, "kernel_load");
}
