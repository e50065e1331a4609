/* lcg_kernel.c: kernels from Lua: the layout of the front end's arrays
 * (core.kernel_layout), loading them (core.kernel_load) and the cgwb.Kernel
 * type. */
#include "lcg.h"
#include "../kernel/cg_kernel.h"

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

void lcg_open_kernel(lua_State *L) {
  lua_pushcfunction(L, l_kernel_layout);
  lua_setfield(L, -2, "kernel_layout");
}
