/* lcg_kernel.c: kernels from Lua: the layout of the front end's arrays
 * (core.kernel_layout), loading them (core.kernel_load) and the cgwb.Kernel
 * type. */
#include <string.h>

#include "lcg.h"
#include "../kernel/cg_kcfg.h"
#include "../kernel/cg_kernel.h"
#include "../kernel/cg_kflat.h"
#include "../kernel/cg_kinterp.h"

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
  static const char *const n[] = {"param", "local", "temp", "global", "heap"};
  return n[i];
}
static const char *loop_kind_name(int i) {
  static const char *const n[] = {"for", "while", "do"};
  return n[i];
}

/* Pushes {kind name -> {{name =, what =, offset = 1-based}, ...}} from
 * CG_KSTMT_PARTS, names and kinds in lower case ("loop" -> {{name = "cond",
 * what = "expr", offset = ...}, {name = "body", what = "list", ...}}). */
static void push_lower(lua_State *L, const char *s) {
  char b[16];
  size_t i;
  for (i = 0; s[i] && i + 1 < sizeof b; i++) b[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
  lua_pushlstring(L, b, i);
}
#define PUSH_PART(kind, name, what, slot)                                             \
  if (!lua_getfield(L, -1, cg_kstmt_name(CG_KST_##kind))) {                          \
    lua_pop(L, 1), lua_newtable(L), lua_pushvalue(L, -1);                              \
    lua_setfield(L, -3, cg_kstmt_name(CG_KST_##kind));                                 \
  }                                                                                    \
  lua_createtable(L, 0, 3);                                                            \
  push_lower(L, #name), lua_setfield(L, -2, "name");                                   \
  push_lower(L, #what), lua_setfield(L, -2, "what");                                   \
  lua_pushinteger(L, CG_KSTMT_##kind##_##name + 1), lua_setfield(L, -2, "offset");     \
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);                              \
  lua_pop(L, 1);
static void push_stmt_parts(lua_State *L) {
  int i;
  lua_newtable(L);
  for (i = 0; i < CG_KST_COUNT; i++) lua_newtable(L), lua_setfield(L, -2, cg_kstmt_name(i)); /* break: no parts */
  CG_KSTMT_PARTS(PUSH_PART)
}
#undef PUSH_PART

/* core.kernel_layout() -> {func=, sym=, expr=, stmt= (field name -> 1-based
 * offset), width = {func=, sym=, expr=, stmt=}, types=, exprs=, stmts=,
 * intrinsics=, sym_kinds=, loop_kinds=, ctypes= (name -> code and code + 1 -> name;
 * ctypes: the C integer types of CG_KCTYPES by C spelling), ctype_bits =,
 * ctype_signed = {C spelling -> bits, signedness},
 * stmt_parts = {kind -> its named slots in order, see push_stmt_parts},
 * split_strategies = {"minimal", ...} (cg_kflat.c's built-in strategies),
 * arity = {intrinsic name -> arity}, gop = {intrinsic name -> 1-based row
 * of core.graph_ops()}, xaif = {intrinsic name -> its XAIF name}, qual = {const=, restrict=, addr=},
 * max_depth=, max_dim= (CG_KMAX_DIM)}: what kparse.lua writes, read from cg_kernel.h. */
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
  push_enum(L, cg_kctype_name, CG_KC_COUNT, "ctypes");
  lua_newtable(L); /* ctype_bits, ctype_signed = {C spelling -> bits / true if signed} */
  lua_newtable(L);
  for (i = 0; i < CG_KC_COUNT; i++) {
    lua_pushinteger(L, cg_kctype_bits(i));
    lua_setfield(L, -3, cg_kctype_name(i));
    lua_pushboolean(L, cg_kctype_signed(i));
    lua_setfield(L, -2, cg_kctype_name(i));
  }
  lua_setfield(L, -3, "ctype_signed");
  lua_setfield(L, -2, "ctype_bits");
  lua_newtable(L);
  for (i = 0; i < CG_KI_COUNT; i++) {
    lua_pushinteger(L, cg_kintrinsic_arity(i));
    lua_setfield(L, -2, cg_kintrinsic_name(i));
  }
  lua_setfield(L, -2, "arity");
  lua_newtable(L); /* gop = {intrinsic name -> 1-based row of core.graph_ops()} */
  for (i = 0; i < CG_KI_COUNT; i++) {
    lua_pushinteger(L, cg_kintrinsic_gop(i) + 1);
    lua_setfield(L, -2, cg_kintrinsic_name(i));
  }
  lua_setfield(L, -2, "gop");
  lua_newtable(L); /* xaif = {intrinsic name -> its XAIF name} */
  for (i = 0; i < CG_KI_COUNT; i++) {
    lua_pushstring(L, cg_kintrinsic_xaif(i));
    lua_setfield(L, -2, cg_kintrinsic_name(i));
  }
  lua_setfield(L, -2, "xaif");
  lua_newtable(L);
  lua_pushinteger(L, CG_KQ_CONST), lua_setfield(L, -2, "const");
  lua_pushinteger(L, CG_KQ_RESTRICT), lua_setfield(L, -2, "restrict");
  lua_pushinteger(L, CG_KQ_ADDR), lua_setfield(L, -2, "addr");
  lua_setfield(L, -2, "qual");
  lua_pushinteger(L, CG_KH_ZERO), lua_setfield(L, -2, "heap_zero"); /* ALLOC's FLAGS for calloc */
  lua_pushinteger(L, CG_KMAX_DEPTH);
  lua_setfield(L, -2, "max_depth");
  lua_pushinteger(L, CG_KMAX_DIM);
  lua_setfield(L, -2, "max_dim");
  push_stmt_parts(L);
  lua_setfield(L, -2, "stmt_parts");
  lua_newtable(L); /* passives = {{fn=, stream=, at=, text=, nargs=}, ...} in CG_KPASSIVES order */
  for (i = 0; i < CG_KPC_COUNT; i++) {
    lua_createtable(L, 0, 5);
    lua_pushstring(L, cg_kpassive_fn(i)), lua_setfield(L, -2, "fn");
    if (cg_kpassive_stream(i)) lua_pushstring(L, cg_kpassive_stream(i)), lua_setfield(L, -2, "stream");
    lua_pushinteger(L, cg_kpassive_at(i)), lua_setfield(L, -2, "at");
    lua_pushinteger(L, cg_kpassive_text(i)), lua_setfield(L, -2, "text");
    lua_pushinteger(L, cg_kpassive_nargs(i)), lua_setfield(L, -2, "nargs");
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "passives");
  lua_newtable(L); /* the flattener's built-in split strategies, in their order */
  for (i = 0; cg_kflat_strategy_name(i); i++) lua_pushstring(L, cg_kflat_strategy_name(i)), lua_rawseti(L, -2, i + 1);
  lua_setfield(L, -2, "split_strategies");
  return 1;
}

/* }==== */

/* {==== the Kernel userdata ====}
 * It owns the loaded kernel; created empty, then filled, so that an error
 * halfway leaves an object its __gc can free (doc/robustness.md, "Bindings"). */

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

/* {==== control flow ====} */

static void cfg_release(void *p, cg_alloc *A) {
  (void)A;
  cg_kcfg_free(*(cg_kcfg **)p);
}

/* The graph of the function at argument 2, owned by a box pushed on the
 * stack (so a raise while it is pushed to Lua frees it). */
static cg_kcfg *checkcfg(lua_State *L, lkernel *u) {
  int32_t f = lcg_checkkfunc(L, u->k, 2);
  cg_kcfg **box = (cg_kcfg **)lcg_box(L, sizeof *box, cfg_release);
  cg_error e;
  if (!(*box = cg_kcfg_build(&u->A, u->k, f, &e))) {
    lcg_fail(L, &e);
    lua_error(L); /* only out of memory gets here */
  }
  return *box;
}

static void push_u32s(lua_State *L, const uint32_t *a, uint32_t lo, uint32_t hi) {
  uint32_t i;
  lua_createtable(L, (int)(hi - lo), 0);
  for (i = lo; i < hi; i++) {
    lcg_push_id(L, a[i]);
    lua_rawseti(L, -2, (lua_Integer)(i - lo) + 1);
  }
}

static void push_vertex(lua_State *L, const cg_kcfg *g, uint32_t v) {
  uint32_t i;
  lua_createtable(L, 0, 6);
  lcg_push_id(L, v);
  lua_setfield(L, -2, "id");
  lua_pushstring(L, cg_kvert_name(g->kind[v]));
  lua_setfield(L, -2, "kind");
  lua_createtable(L, (int)(g->bst_start[v + 1] - g->bst_start[v]), 0);
  for (i = g->bst_start[v]; i < g->bst_start[v + 1]; i++) {
    lcg_push_id(L, (uint64_t)g->bst[i]);
    lua_rawseti(L, -2, (lua_Integer)(i - g->bst_start[v]) + 1);
  }
  lua_setfield(L, -2, "stmts");
  if (g->stmt[v] >= 0) lcg_push_id(L, (uint64_t)g->stmt[v]), lua_setfield(L, -2, "stmt");
  push_u32s(L, g->succ, g->succ_start[v], g->succ_start[v + 1]);
  lua_setfield(L, -2, "succ");
  push_u32s(L, g->pred, g->pred_start[v], g->pred_start[v + 1]);
  lua_setfield(L, -2, "pred");
}

/* k:cfg(f) -> {func=, entry=, exit=, vertices={{id=, kind=, stmts={...},
 * stmt=, succ={...}, pred={...}}...}, stmt_vertex={[stmt]=vertex}}: the
 * control flow graph of function f (a name or a 1-based id), every id
 * 1-based.  A BRANCH's and a LOOP's succ: the then/body side first. */
static int k_cfg(lua_State *L) {
  lkernel *u = lcg_checklkernel(L, 1);
  cg_kcfg *g = checkcfg(L, u);
  uint32_t v, s;
  lua_createtable(L, 0, 5);
  lcg_push_id(L, (uint64_t)g->func), lua_setfield(L, -2, "func");
  lcg_push_id(L, g->entry), lua_setfield(L, -2, "entry");
  lcg_push_id(L, g->exit), lua_setfield(L, -2, "exit");
  lua_createtable(L, (int)g->nv, 0);
  for (v = 0; v < g->nv; v++) {
    push_vertex(L, g, v);
    lua_rawseti(L, -2, (lua_Integer)v + 1);
  }
  lua_setfield(L, -2, "vertices");
  lua_newtable(L);
  for (s = 0; s < g->nstmt; s++)
    if (g->stmt_vertex[s] >= 0) {
      lcg_push_id(L, (uint64_t)g->stmt_vertex[s]);
      lua_rawseti(L, -2, (lua_Integer)s + 1);
    }
  lua_setfield(L, -2, "stmt_vertex");
  return 1;
}

/* k:cfg_dot(f [, path]) -> DOT text (or true, written to path) | nil, msg;
 * k:cfg_text(f [, path]) likewise for the text dump. */
static int cfg_out(lua_State *L, int dot) {
  lkernel *u = lcg_checklkernel(L, 1);
  const char *path = luaL_optstring(L, 3, NULL);
  cg_kcfg *g = checkcfg(L, u);
  cg_error e;
  lcg_sink *sk = lcg_sink_open(L, path, &e);
  int rc;
  if (!sk) return lcg_fail(L, &e);
  rc = dot ? cg_kcfg_dot(u->k, g, sk->fp, &e) : cg_kcfg_print(u->k, g, sk->fp, &e);
  return lcg_sink_close(L, sk, rc, &e);
}
static int k_cfg_dot(lua_State *L) { return cfg_out(L, 1); }
static int k_cfg_text(lua_State *L) { return cfg_out(L, 0); }

/* }==== */

/* {==== the interpreter ====}
 * The CALL table: {arrays = {{name=, type="double"|"int", values={...},
 * init={booleans} (optional)}...}, args = {{double=x} | {int=n} |
 * {array=i, offset=o} | {rows = {{array=i, offset=o}...}} (a double ** or
 * int **: its rows)...}} (i 1-based, o a 0-based cell). */

#define JAC_CHUNK 64 /* directions per tangent run of k:jacobian */

/* A call read from Lua, in a box: the C arrays it points into. */
typedef struct lcall {
  cg_kcall c;
  cg_karray *arrays;
  cg_karg *args;
  uint32_t **row_array; /* per argument: its rows' arrays and offsets (CG_KARG_ROWS), else NULL */
  int64_t **row_offset;
  double **values, **seeds;
  uint8_t **init;
  uint32_t na, nargs;
  double *seed_args;
  size_t nseed_args;
  cg_kaccess *trace; /* opts.trace: the accesses, in order */
  size_t ntrace, cap_trace;
  int trace_failed;
  lua_State *L;  /* opts.externals: the handler of external calls, at stack index ext_idx */
  int ext_idx;
  cg_alloc A;
} lcall;

static void lcall_release(void *p, cg_alloc *A) {
  lcall *u = (lcall *)p;
  uint32_t a;
  for (a = 0; a < u->na; a++) {
    uint32_t n = u->arrays ? u->arrays[a].n : 0;
    if (u->values) CG_FREE(A, u->values[a], double, n);
    if (u->init) CG_FREE(A, u->init[a], uint8_t, n);
    if (u->seeds) CG_FREE(A, u->seeds[a], double, (size_t)n * JAC_CHUNK);
  }
  CG_FREE(A, u->values, double *, u->na);
  CG_FREE(A, u->init, uint8_t *, u->na);
  CG_FREE(A, u->seeds, double *, u->na);
  CG_FREE(A, u->arrays, cg_karray, u->na);
  for (a = 0; u->row_array && u->row_offset && a < u->nargs; a++)
    if (u->row_array[a]) {
      CG_FREE(A, u->row_array[a], uint32_t, u->args[a].nrows);
      CG_FREE(A, u->row_offset[a], int64_t, u->args[a].nrows);
    }
  CG_FREE(A, u->row_array, uint32_t *, u->nargs);
  CG_FREE(A, u->row_offset, int64_t *, u->nargs);
  CG_FREE(A, u->args, cg_karg, u->nargs);
  CG_FREE(A, u->seed_args, double, u->nseed_args);
  CG_FREE(A, u->trace, cg_kaccess, u->cap_trace);
  u->na = u->nargs = 0;
}

static void collect_trace(void *ud, const cg_kaccess *a) {
  lcall *u = (lcall *)ud;
  if (u->trace_failed) return;
  if (cg_reserve(&u->A, (void **)&u->trace, &u->cap_trace, u->ntrace + 1, sizeof *u->trace)) {
    u->trace_failed = 1;
    return;
  }
  u->trace[u->ntrace++] = *a;
}

/* The number at t[field] (raises with the call's path otherwise). */
static double num_field(lua_State *L, int t, const char *field, const char *what, int i) {
  int isnum;
  double v;
  lua_getfield(L, t, field);
  v = lua_tonumberx(L, -1, &isnum);
  if (!isnum) luaL_error(L, "call: %s %d: %s is not a number", what, i, field);
  lua_pop(L, 1);
  return v;
}

/* call.arrays[a + 1] (the table on top) into u's array a. */
static void read_array(lua_State *L, lcall *u, uint32_t a) {
  int t = lua_gettop(L);
  size_t n, i;
  const char *ty;
  cg_karray *ar = &u->arrays[a];
  lua_getfield(L, t, "name");
  ar->name = lua_tostring(L, -1); /* the call table keeps it */
  lua_pop(L, 1);
  lua_getfield(L, t, "type");
  ty = lua_tostring(L, -1);
  ar->base = ty && !strcmp(ty, "int") ? CG_KT_INT : CG_KT_DOUBLE;
  if (ty && strcmp(ty, "int") && strcmp(ty, "double")) luaL_error(L, "call: array %d: type '%s'", (int)a + 1, ty);
  lua_pop(L, 1);
  if (lua_getfield(L, t, "values") != LUA_TTABLE) luaL_error(L, "call: array %d: no values", (int)a + 1);
  n = (size_t)luaL_len(L, -1);
  if (n > UINT32_MAX) luaL_error(L, "call: array %d: too long", (int)a + 1);
  ar->n = (uint32_t)n; /* first: lcall_release frees with it */
  if (!(u->values[a] = CG_NEW(&u->A, double, n)) || !(u->init[a] = CG_NEW(&u->A, uint8_t, n)))
    lcg_nomem(L, "call");
  for (i = 0; i < n; i++) {
    int isnum;
    lua_geti(L, -1, (lua_Integer)i + 1);
    u->values[a][i] = lua_tonumberx(L, -1, &isnum);
    if (!isnum) luaL_error(L, "call: array %d: value %d is not a number", (int)a + 1, (int)i + 1);
    lua_pop(L, 1);
    u->init[a][i] = 1;
  }
  lua_pop(L, 1);
  if (lua_getfield(L, t, "init") == LUA_TTABLE)
    for (i = 0; i < n; i++) u->init[a][i] = (uint8_t)(lua_geti(L, -1, (lua_Integer)i + 1), lua_toboolean(L, -1)), lua_pop(L, 1);
  lua_pop(L, 1);
  ar->values = u->values[a], ar->init = u->init[a];
}

/* call.args[i + 1] (on top) into u's argument i. */
static void read_arg(lua_State *L, lcall *u, uint32_t i) {
  int t = lua_gettop(L);
  cg_karg *g = &u->args[i];
  memset(g, 0, sizeof *g);
  if (!lua_istable(L, t)) luaL_error(L, "call: argument %d is not a table", (int)i + 1);
  if (lua_getfield(L, t, "double") != LUA_TNIL) {
    g->kind = CG_KARG_DOUBLE, g->d = num_field(L, t, "double", "argument", (int)i + 1);
  } else if (lua_getfield(L, t, "int") != LUA_TNIL) {
    lua_Integer v;
    int isint;
    v = lua_tointegerx(L, -1, &isint);
    if (!isint || v < INT32_MIN || v > INT32_MAX) luaL_error(L, "call: argument %d: int is not an int", (int)i + 1);
    g->kind = CG_KARG_INT, g->i = (int32_t)v;
    lua_pop(L, 1);
  } else if (lua_getfield(L, t, "null") != LUA_TNIL) { /* {null = true}: NULL for a pointer */
    g->kind = CG_KARG_NULL;
    lua_pop(L, 1);
  } else if (lua_getfield(L, t, "rows") != LUA_TNIL) { /* a double ** or int **: {{array=, offset=}, ...} */
    int rt = lua_gettop(L);
    lua_Integer n, r;
    uint32_t *ra;
    int64_t *ro;
    if (!lua_istable(L, rt)) luaL_error(L, "call: argument %d: rows is not a table", (int)i + 1);
    n = luaL_len(L, rt);
    if (n < 1 || n > 100000000) luaL_error(L, "call: argument %d: %d rows", (int)i + 1, (int)n);
    if (!(ra = CG_NEW(&u->A, uint32_t, (size_t)n))) lcg_nomem(L, "call");
    if (!(ro = CG_NEW(&u->A, int64_t, (size_t)n))) CG_FREE(&u->A, ra, uint32_t, (size_t)n), lcg_nomem(L, "call");
    g->kind = CG_KARG_ROWS, g->nrows = (uint32_t)n, g->row_array = ra, g->row_offset = ro;
    u->row_array[i] = ra, u->row_offset[i] = ro; /* lcall_release frees them */
    for (r = 0; r < n; r++) {
      lua_Integer a, o;
      int ok1, ok2;
      if (lua_geti(L, rt, r + 1) != LUA_TTABLE) luaL_error(L, "call: argument %d: row %d is not a table", (int)i + 1, (int)r + 1);
      lua_getfield(L, -1, "array");
      lua_getfield(L, -2, "offset");
      a = lua_tointegerx(L, -2, &ok1);
      o = lua_isnil(L, -1) ? (ok2 = 1, 0) : lua_tointegerx(L, -1, &ok2);
      if (!ok1 || !ok2 || a < 1 || a > (lua_Integer)u->na)
        luaL_error(L, "call: argument %d: row %d is not {array=1..%d, offset=}", (int)i + 1, (int)r + 1, (int)u->na);
      ra[r] = (uint32_t)(a - 1), ro[r] = o;
      lua_pop(L, 3);
    }
  } else {
    lua_Integer a, o;
    int ok1, ok2;
    lua_getfield(L, t, "array");
    lua_getfield(L, t, "offset");
    a = lua_tointegerx(L, -2, &ok1);
    o = lua_isnil(L, -1) ? (ok2 = 1, 0) : lua_tointegerx(L, -1, &ok2);
    if (!ok1 || !ok2 || a < 1 || a > (lua_Integer)u->na)
      luaL_error(L, "call: argument %d: not {double=}, {int=}, {null=true} or {array=1..%d, offset=}", (int)i + 1, (int)u->na);
    g->kind = CG_KARG_PTR, g->array = (uint32_t)(a - 1), g->offset = o;
    lua_pop(L, 2);
  }
  lua_settop(L, t);
}

/* The call table at idx and the options at oidx into a box pushed on the
 * stack. */
/* The values of external function calls (cg_kextf) from the Lua handler
 * opts.externals(fid, args, ndir) -> ret, ret_t, writes: args[i] a number
 * (an int or double; with ndir, a double's tangents in args.t[i]) or, for a
 * pointer, {base = "double"|"int", writable =, values = {cells, nil when not
 * initialized}, t = {{ndir tangents}...} (double cells, with ndir)};
 * writes[i] = {[cell] = value}, and with ndir writes.t[i] = {[cell] =
 * {tangents}}, for the writable ones (cgwb.kernel makes it from the
 * declarations of --externals). */
static int ext_cb(void *ud, cg_kextcall *x, cg_error *e) {
  lcall *u = (lcall *)ud;
  lua_State *L = u->L;
  int top = lua_gettop(L), rc = CG_OK;
  uint32_t i, d;
  int64_t c;
  if (!lua_checkstack(L, 12)) return cg_seterr(e, CG_ENOMEM, "out of Lua stack");
  lua_pushvalue(L, u->ext_idx);
  lua_pushinteger(L, x->func + 1);
  lua_createtable(L, (int)x->narg, 1);
  lua_createtable(L, (int)x->narg, 0); /* args.t */
  for (i = 0; i < x->narg; i++) {
    const cg_kextarg *a = &x->args[i];
    if (a->kind == CG_KARG_INT) lua_pushinteger(L, a->i);
    else if (a->kind == CG_KARG_DOUBLE) {
      lua_pushnumber(L, a->d);
      if (x->ndir) {
        lua_createtable(L, (int)x->ndir, 0);
        for (d = 0; d < x->ndir; d++) lua_pushnumber(L, a->dt[d]), lua_rawseti(L, -2, d + 1);
        lua_rawseti(L, -3, i + 1);
      }
    } else {
      lua_createtable(L, 0, 4);
      lua_pushstring(L, a->base == CG_KT_DOUBLE ? "double" : "int"), lua_setfield(L, -2, "base");
      lua_pushboolean(L, a->writable), lua_setfield(L, -2, "writable");
      lua_createtable(L, (int)(a->n > 1000000 ? 1000000 : a->n), 0);
      for (c = 0; c < a->n; c++) {
        if (!a->init[c]) continue;
        if (a->dv) lua_pushnumber(L, a->dv[c]);
        else lua_pushinteger(L, a->iv[c]);
        lua_rawseti(L, -2, c + 1);
      }
      lua_setfield(L, -2, "values");
      if (x->ndir && a->t) {
        lua_createtable(L, (int)a->n, 0);
        for (c = 0; c < a->n; c++) {
          lua_createtable(L, (int)x->ndir, 0);
          for (d = 0; d < x->ndir; d++) lua_pushnumber(L, a->t[(size_t)c * x->ndir + d]), lua_rawseti(L, -2, d + 1);
          lua_rawseti(L, -2, c + 1);
        }
        lua_setfield(L, -2, "t");
      }
    }
    lua_rawseti(L, -3, i + 1);
  }
  lua_setfield(L, -2, "t");
  lua_pushinteger(L, x->ndir);
  if (lua_pcall(L, 3, 3, 0) != LUA_OK) {
    rc = cg_seterr(e, CG_ERUNTIME, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "an error in its Lua value");
    lua_settop(L, top);
    return rc;
  }
  /* ret, ret_t, writes at -3, -2, -1 */
  if (lua_type(L, -3) == LUA_TNUMBER) x->ret = lua_tonumber(L, -3);
  if (x->ndir && lua_type(L, -2) == LUA_TTABLE)
    for (d = 0; d < x->ndir; d++) {
      lua_rawgeti(L, -2, d + 1), x->ret_t[d] = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : 0.0, lua_pop(L, 1);
    }
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_getfield(L, -1, "t"); /* writes.t at -1, writes at -2 */
    for (i = 0; i < x->narg && rc == CG_OK; i++) {
      cg_kextarg *a = &x->args[i];
      if (a->kind != CG_KARG_PTR || !a->writable || !a->wrote) continue;
      if (lua_rawgeti(L, -2, i + 1) != LUA_TTABLE) { lua_pop(L, 1); continue; }
      for (c = 0; c < a->n; c++) {
        if (lua_rawgeti(L, -1, c + 1) == LUA_TNUMBER) {
          if (a->dv) a->dv[c] = lua_tonumber(L, -1);
          else if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= INT32_MIN && lua_tointeger(L, -1) <= INT32_MAX)
            a->iv[c] = (int32_t)lua_tointeger(L, -1);
          else rc = cg_seterr(e, CG_ERUNTIME, "cell %lld of argument %u is not an int", (long long)c, i + 1);
          a->wrote[c] = 1;
          if (a->t && x->ndir) memset(a->t + (size_t)c * x->ndir, 0, x->ndir * sizeof(double));
        }
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
      if (a->t && x->ndir && lua_type(L, -1) == LUA_TTABLE && lua_rawgeti(L, -1, i + 1) == LUA_TTABLE) {
        for (c = 0; c < a->n; c++) {
          if (a->wrote[c] && lua_rawgeti(L, -1, c + 1) == LUA_TTABLE)
            for (d = 0; d < x->ndir; d++) {
              lua_rawgeti(L, -1, d + 1);
              a->t[(size_t)c * x->ndir + d] = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : 0.0;
              lua_pop(L, 1);
            }
          lua_pop(L, 1);
        }
        lua_pop(L, 1);
      } else if (a->t && x->ndir && lua_type(L, -1) == LUA_TTABLE) lua_pop(L, 1);
    }
  }
  lua_settop(L, top);
  return rc;
}

static lcall *read_call(lua_State *L, int32_t f, int idx, int oidx) {
  lcall *u;
  uint32_t i;
  size_t na, nargs;
  luaL_checktype(L, idx, LUA_TTABLE);
  u = (lcall *)lcg_box(L, sizeof *u, lcall_release);
  lcg_alloc(L, &u->A);
  if (lua_getfield(L, idx, "arrays") != LUA_TTABLE) lua_pop(L, 1), lua_newtable(L);
  if (lua_getfield(L, idx, "args") != LUA_TTABLE) lua_pop(L, 1), lua_newtable(L);
  na = (size_t)luaL_len(L, -2), nargs = (size_t)luaL_len(L, -1);
  if (na > 1000000 || nargs > 100000) luaL_error(L, "call: too many arrays or arguments");
  u->na = (uint32_t)na, u->nargs = (uint32_t)nargs; /* first: lcall_release frees at these sizes */
  if ((u->arrays = CG_NEW(&u->A, cg_karray, na)) != NULL) memset(u->arrays, 0, na * sizeof *u->arrays);
  if ((u->values = CG_NEW(&u->A, double *, na)) != NULL) for (i = 0; i < na; i++) u->values[i] = NULL;
  if ((u->init = CG_NEW(&u->A, uint8_t *, na)) != NULL) for (i = 0; i < na; i++) u->init[i] = NULL;
  if ((u->seeds = CG_NEW(&u->A, double *, na)) != NULL) for (i = 0; i < na; i++) u->seeds[i] = NULL;
  if (!u->arrays || !u->values || !u->init || !u->seeds || !(u->args = CG_NEW(&u->A, cg_karg, nargs)))
    lcg_nomem(L, "call"); /* lcall_release frees what is there (entries NULL, arrays of 0 cells) */
  memset(u->args, 0, nargs * sizeof *u->args);
  if ((u->row_array = CG_NEW(&u->A, uint32_t *, nargs)) != NULL) for (i = 0; i < nargs; i++) u->row_array[i] = NULL;
  if ((u->row_offset = CG_NEW(&u->A, int64_t *, nargs)) != NULL) for (i = 0; i < nargs; i++) u->row_offset[i] = NULL;
  if (!u->row_array || !u->row_offset) lcg_nomem(L, "call"); /* entries NULL: lcall_release frees what is there */
  for (i = 0; i < na; i++) {
    if (lua_geti(L, -2, (lua_Integer)i + 1) != LUA_TTABLE) luaL_error(L, "call: array %d is not a table", (int)i + 1);
    read_array(L, u, i);
    lua_pop(L, 1);
  }
  for (i = 0; i < nargs; i++) {
    lua_geti(L, -1, (lua_Integer)i + 1);
    read_arg(L, u, i);
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
  memset(&u->c, 0, sizeof u->c);
  u->c.func = f, u->c.narray = u->na, u->c.arrays = u->arrays, u->c.narg = u->nargs, u->c.args = u->args;
  if (!lua_isnoneornil(L, oidx)) {
    luaL_checktype(L, oidx, LUA_TTABLE);
    if (lua_getfield(L, oidx, "max_steps") != LUA_TNIL) {
      lua_Integer v = luaL_checkinteger(L, -1);
      luaL_argcheck(L, v > 0, oidx, "max_steps must be > 0");
      u->c.max_steps = (uint64_t)v;
    }
    if (lua_getfield(L, oidx, "max_calls") != LUA_TNIL) {
      lua_Integer v = luaL_checkinteger(L, -1);
      luaL_argcheck(L, v > 0 && v <= 100000, oidx, "max_calls must be in 1..100000");
      u->c.max_calls = (uint32_t)v;
    }
    lua_pop(L, 2);
    if (lua_getfield(L, oidx, "externals") == LUA_TFUNCTION) { /* kept on the stack for the run */
      u->L = L, u->ext_idx = lua_gettop(L);
      u->c.ext = ext_cb, u->c.ext_ud = u;
    } else
      lua_pop(L, 1);
  }
  return u;
}

cg_kcall *lcg_kcall(lua_State *L, int32_t f, int idx, int oidx) {
  return &read_call(L, f, idx, oidx)->c; /* c is the box's: it lives while the box does */
}

static void result_release(void *p, cg_alloc *A) {
  (void)A;
  cg_kresult_free((cg_kresult *)p); /* idempotent */
}

static void push_access(lua_State *L, const cg_kaccess *a) {
  lua_createtable(L, 0, 8);
  if (a->stmt >= 0) lcg_push_id(L, (uint64_t)a->stmt), lua_setfield(L, -2, "stmt");
  if (a->expr >= 0) lcg_push_id(L, (uint64_t)a->expr), lua_setfield(L, -2, "expr");
  lua_pushinteger(L, a->array >= 0 ? (lua_Integer)a->array + 1 : -((lua_Integer)a->sym + 1));
  lua_setfield(L, -2, "object");
  lua_pushinteger(L, a->cell), lua_setfield(L, -2, "cell");
  lua_pushboolean(L, a->write), lua_setfield(L, -2, "write");
  lua_pushinteger(L, (lua_Integer)a->frame), lua_setfield(L, -2, "frame");
  lua_pushinteger(L, (lua_Integer)a->block), lua_setfield(L, -2, "block");
  lua_pushnumber(L, a->value), lua_setfield(L, -2, "value");
}

/* k:run(f, call [, {max_steps=, max_calls=, trace=true}]) -> {arrays =
 * {{name=, values={...}, init={booleans}}...}, ret = value | nil, steps = n,
 * leaks = n, leak = "FILE:LINE:COL: note: ..." (blocks never freed, if any),
 * stdout = text, stderr = text (what passive calls wrote, if anything), exit = n,
 * exit_note = "FILE:LINE:COL: note: the kernel called exit(n)" (a run that exit ended),
 * trace = {{stmt=, expr=, object=, cell=, write=, frame=, block=, value=}...} (with
 * opts.trace)} | nil, "FILE:LINE:COL: message". */
static int k_run(lua_State *L) {
  lkernel *u = lcg_checklkernel(L, 1);
  int32_t f = lcg_checkkfunc(L, u->k, 2);
  lcall *c;
  lua_settop(L, 4);
  c = read_call(L, f, 3, 4);
  cg_kresult *r = (cg_kresult *)lcg_box(L, sizeof *r, result_release);
  cg_error e;
  uint32_t a, i;
  int rc, top = lua_gettop(L); /* (the boxes, and opts.externals's handler, stay) */
  if (!lua_isnoneornil(L, 4) && (lua_getfield(L, 4, "trace"), lua_toboolean(L, -1)))
    c->c.trace = collect_trace, c->c.trace_ud = c;
  lua_settop(L, top);
  rc = cg_kinterp_run(&u->A, u->k, &c->c, r, &e);
  if (rc) return lcg_fail(L, &e);
  if (c->trace_failed) {
    cg_kresult_free(r);
    return lcg_nomem(L, "run: trace");
  }
  lua_createtable(L, 0, 4);
  lua_createtable(L, (int)r->narray, 0);
  for (a = 0; a < r->narray; a++) {
    lua_createtable(L, 0, 3);
    if (c->arrays[a].name) lua_pushstring(L, c->arrays[a].name), lua_setfield(L, -2, "name");
    lcg_push_numbers(L, r->values[a], r->n[a]);
    lua_setfield(L, -2, "values");
    lua_createtable(L, (int)r->n[a], 0);
    for (i = 0; i < r->n[a]; i++) lua_pushboolean(L, r->init[a][i]), lua_rawseti(L, -2, (lua_Integer)i + 1);
    lua_setfield(L, -2, "init");
    lua_rawseti(L, -2, (lua_Integer)a + 1);
  }
  lua_setfield(L, -2, "arrays");
  if (r->has_ret) {
    if (r->ret_type == CG_KT_INT) lua_pushinteger(L, (lua_Integer)r->ret);
    else lua_pushnumber(L, r->ret);
    lua_setfield(L, -2, "ret");
  }
  lua_pushinteger(L, (lua_Integer)r->steps), lua_setfield(L, -2, "steps");
  if (r->leaks) { /* a note, not an error: C leaves it to the program */
    const cg_kernel *k = u->k;
    int32_t ls = r->leak_stmt;
    if (ls >= 0)
      lua_pushfstring(L, "%s:%d:%d: note: %d block%s of malloc or calloc never freed (the first from here)",
                      k->file ? k->file : "kernel", (int)CG_KSTMT(k, ls, LINE), (int)CG_KSTMT(k, ls, COL),
                      (int)r->leaks, r->leaks == 1 ? "" : "s");
    else
      lua_pushfstring(L, "%d blocks of malloc or calloc never freed", (int)r->leaks);
    lua_setfield(L, -2, "leak");
    lua_pushinteger(L, (lua_Integer)r->leaks), lua_setfield(L, -2, "leaks");
  }
  if (r->nout[0]) lua_pushlstring(L, r->out[0], r->nout[0]), lua_setfield(L, -2, "stdout");
  if (r->nout[1]) lua_pushlstring(L, r->out[1], r->nout[1]), lua_setfield(L, -2, "stderr");
  if (r->exited) { /* exit(n): the run ended as C's does, the memory as it stood */
    const cg_kernel *k = u->k;
    lua_pushinteger(L, r->exit_status), lua_setfield(L, -2, "exit");
    lua_pushfstring(L, "%s:%d:%d: note: the kernel called exit(%d)", k->file ? k->file : "kernel",
                    (int)CG_KSTMT(k, r->exit_stmt, LINE), (int)CG_KSTMT(k, r->exit_stmt, COL), (int)r->exit_status);
    lua_setfield(L, -2, "exit_note");
  }
  if (c->c.trace) {
    size_t t;
    lua_createtable(L, (int)c->ntrace, 0);
    for (t = 0; t < c->ntrace; t++) push_access(L, &c->trace[t]), lua_rawseti(L, -2, (lua_Integer)t + 1);
    lua_setfield(L, -2, "trace");
  }
  cg_kresult_free(r);
  return 1;
}

/* {==== the Jacobian ====} */

/* A column: caller array cell (array >= 0) or a by-value double
 * parameter (param). */
typedef struct jcol {
  int32_t array, param;
  uint32_t cell;
} jcol;

/* Whether the Jacobian has a row or column for caller array a: its cells
 * are doubles (an int array carries no derivative). */
static int double_array(const cg_kcall *kc, uint32_t a) { return kc->arrays[a].base == CG_KT_DOUBLE; }

/* The rows (double cells written, then a double return value) and columns
 * (double cells read before written, then by-value double parameters read)
 * from a plain run, pushed as tables; the columns also into a box
 * (returned) with *ncol. */
static jcol *rows_cols(lua_State *L, const cg_kernel *k, int32_t f, const cg_kcall *kc, const cg_kresult *r,
                       size_t *ncol) {
  jcol *cols;
  size_t nc = 0, nr = 0;
  uint32_t a, i;
  for (a = 0; a < r->narray; a++)
    for (i = 0; i < r->n[a] && double_array(kc, a); i++) nc += (r->acc[a][i] & CG_KACC_READ) != 0;
  for (i = 0; i < r->narg; i++)
    nc += r->arg_read[i] && !CG_KSYM(k, CG_KFUNC(k, f, SYM0) + (int32_t)i, PTR) &&
          CG_KSYM(k, CG_KFUNC(k, f, SYM0) + (int32_t)i, BASE) == CG_KT_DOUBLE;
  cols = (jcol *)lua_newuserdatauv(L, nc * sizeof *cols, 0);
  lua_newtable(L); /* rows */
  lua_newtable(L); /* cols */
  *ncol = 0;
  for (a = 0; a < r->narray; a++)
    for (i = 0; i < r->n[a] && double_array(kc, a); i++) {
      if (r->acc[a][i] & CG_KACC_WRITTEN) {
        lua_createtable(L, 0, 2);
        lua_pushinteger(L, (lua_Integer)a + 1), lua_setfield(L, -2, "array");
        lua_pushinteger(L, i), lua_setfield(L, -2, "cell");
        lua_rawseti(L, -3, (lua_Integer)++nr);
      }
      if (r->acc[a][i] & CG_KACC_READ) {
        cols[*ncol].array = (int32_t)a, cols[*ncol].cell = i, cols[*ncol].param = -1;
        lua_createtable(L, 0, 2);
        lua_pushinteger(L, (lua_Integer)a + 1), lua_setfield(L, -2, "array");
        lua_pushinteger(L, i), lua_setfield(L, -2, "cell");
        lua_rawseti(L, -2, (lua_Integer)++*ncol);
      }
    }
  for (i = 0; i < r->narg; i++) {
    int32_t s = CG_KFUNC(k, f, SYM0) + (int32_t)i;
    if (!r->arg_read[i] || CG_KSYM(k, s, PTR) || CG_KSYM(k, s, BASE) != CG_KT_DOUBLE) continue;
    cols[*ncol].array = -1, cols[*ncol].param = (int32_t)i, cols[*ncol].cell = 0;
    lua_createtable(L, 0, 1);
    lua_pushinteger(L, (lua_Integer)i + 1), lua_setfield(L, -2, "param");
    lua_rawseti(L, -2, (lua_Integer)++*ncol);
  }
  if (r->has_ret && r->ret_type == CG_KT_DOUBLE) { /* the last row */
    lua_createtable(L, 0, 1);
    lua_pushboolean(L, 1), lua_setfield(L, -2, "ret");
    lua_rawseti(L, -3, (lua_Integer)++nr);
  }
  return cols;
}

/* Room for the seeds of JAC_CHUNK directions (made once per call). */
static void alloc_seeds(lua_State *L, lcall *c) {
  uint32_t a;
  for (a = 0; a < c->na; a++)
    if (!(c->seeds[a] = CG_NEW(&c->A, double, (size_t)c->arrays[a].n * JAC_CHUNK)))
      lcg_nomem(L, "jacobian");
  if (!(c->seed_args = CG_NEW(&c->A, double, (size_t)c->nargs * JAC_CHUNK))) lcg_nomem(L, "jacobian");
  c->nseed_args = (size_t)c->nargs * JAC_CHUNK;
  c->c.seed_arrays = (const double *const *)c->seeds, c->c.seed_args = c->seed_args;
}

/* Seeds e_j for columns c0 .. c0+nd-1 (cell-major, stride nd). */
static void set_seeds(lcall *c, const jcol *cols, size_t c0, uint32_t nd) {
  uint32_t a, j;
  for (a = 0; a < c->na; a++) memset(c->seeds[a], 0, (size_t)c->arrays[a].n * nd * sizeof(double));
  memset(c->seed_args, 0, (size_t)c->nargs * nd * sizeof(double));
  c->c.ndir = nd;
  for (j = 0; j < nd; j++) {
    const jcol *col = &cols[c0 + j];
    if (col->array >= 0) c->seeds[col->array][(size_t)col->cell * nd + j] = 1.0;
    else c->seed_args[(size_t)col->param * nd + j] = 1.0;
  }
}

/* Stores the tangents of chunk c0.. (nd directions) into values[row][col]
 * (the values table at -1: one table per row, already made). */
static void store_chunk(lua_State *L, const cg_kcall *kc, const cg_kresult *r, size_t c0, uint32_t nd) {
  uint32_t a, i, j;
  lua_Integer row = 0;
  for (a = 0; a < r->narray; a++)
    for (i = 0; i < r->n[a] && double_array(kc, a); i++) {
      if (!(r->acc[a][i] & CG_KACC_WRITTEN)) continue;
      lua_rawgeti(L, -1, ++row);
      for (j = 0; j < nd; j++) {
        lua_pushnumber(L, r->tangents[a][(size_t)i * nd + j]);
        lua_rawseti(L, -2, (lua_Integer)(c0 + j) + 1);
      }
      lua_pop(L, 1);
    }
  if (r->has_ret && r->ret_type == CG_KT_DOUBLE && r->ret_t) {
    lua_rawgeti(L, -1, ++row);
    for (j = 0; j < nd; j++) lua_pushnumber(L, r->ret_t[j]), lua_rawseti(L, -2, (lua_Integer)(c0 + j) + 1);
    lua_pop(L, 1);
  }
}

/* k:jacobian(f, call [, opts]) -> {rows = {{array=, cell=}...}, cols =
 * {{array=, cell=} | {param=}...}, values = {{...} per row}} | nil, msg:
 * rows every double caller cell written, then {ret = true} for a double
 * return value, cols every double caller cell read before written and
 * every by-value double parameter read (array order, then parameter
 * order; arrays and parameters 1-based, cells 0-based), values
 * by tangent mode in chunks of 64 directions. */
static int k_jacobian(lua_State *L) {
  lkernel *u = lcg_checklkernel(L, 1);
  int32_t f = lcg_checkkfunc(L, u->k, 2);
  lcall *c;
  cg_kresult *r;
  cg_error e;
  jcol *cols;
  size_t ncol, c0, nrow;
  lua_Integer i;
  int top;
  lua_settop(L, 4);
  c = read_call(L, f, 3, 4);
  r = (cg_kresult *)lcg_box(L, sizeof *r, result_release);
  if (cg_kinterp_run(&u->A, u->k, &c->c, r, &e)) return lcg_fail(L, &e);
  cols = rows_cols(L, u->k, f, &c->c, r, &ncol); /* pushes cols' box, rows, cols */
  nrow = (size_t)luaL_len(L, -2);
  cg_kresult_free(r);
  lua_createtable(L, (int)nrow, 0);
  for (i = 1; i <= (lua_Integer)nrow; i++) lua_createtable(L, (int)ncol, 0), lua_rawseti(L, -2, i);
  top = lua_gettop(L);
  alloc_seeds(L, c);
  for (c0 = 0; c0 < ncol; c0 += JAC_CHUNK) {
    uint32_t nd = (uint32_t)(ncol - c0 < JAC_CHUNK ? ncol - c0 : JAC_CHUNK);
    set_seeds(c, cols, c0, nd);
    if (cg_kinterp_run(&u->A, u->k, &c->c, r, &e)) return lcg_fail(L, &e);
    store_chunk(L, &c->c, r, c0, nd);
    cg_kresult_free(r);
    lua_settop(L, top);
  }
  c->c.ndir = 0;
  lua_createtable(L, 0, 3);
  lua_pushvalue(L, top - 2), lua_setfield(L, -2, "rows");
  lua_pushvalue(L, top - 1), lua_setfield(L, -2, "cols");
  lua_pushvalue(L, top), lua_setfield(L, -2, "values");
  return 1;
}

/* }==== */

static const luaL_Reg kernel_methods[] = {
    {"ir", k_ir},   {"cfg", k_cfg},           {"cfg_dot", k_cfg_dot}, {"cfg_text", k_cfg_text},
    {"run", k_run}, {"jacobian", k_jacobian}, {"free", k_free},       {NULL, NULL}};
static const luaL_Reg kernel_meta[] = {
    {"__gc", k_free}, {"__close", k_free}, {"__tostring", k_tostring}, {NULL, NULL}};

/* }==== */

/* core.kernel_format(fmt) -> {"int" | "double" | "string", ...} (the arguments
 * printf format fmt takes, in order) | nil, why (cg_kformat_scan). */
static int l_kernel_format(lua_State *L) {
  cg_kconv conv[CG_KFMT_MAX_CONV];
  int types[CG_KFMT_MAX_CONV * 3], nconv, n, i;
  char why[160];
  n = cg_kformat_scan(luaL_checkstring(L, 1), conv, &nconv, types, why, sizeof why);
  if (n < 0) {
    lua_pushnil(L), lua_pushstring(L, why);
    return 2;
  }
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++)
    lua_pushstring(L, types[i] == CG_KFMT_STRING ? "string" : cg_ktype_name(types[i])), lua_rawseti(L, -2, i + 1);
  return 1;
}

void lcg_open_kernel(lua_State *L) {
  lua_pushcfunction(L, l_kernel_format);
  lua_setfield(L, -2, "kernel_format");
  lcg_newclass(L, LCG_KERNEL, kernel_methods, kernel_meta);
  lua_pushcfunction(L, l_kernel_layout);
  lua_setfield(L, -2, "kernel_layout");
  lua_pushcfunction(L, l_kernel_load);
  lua_setfield(L, -2, "kernel_load");
}

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
@module cgwb.core
*/

/*** core.kernel_layout() -> {func=, sym=, expr=, stmt= (field name -> 1-based offset), width =
{func=, sym=, expr=, stmt=}, types=, exprs=, stmts=, intrinsics=, sym_kinds=, loop_kinds=,
ctypes= (name -> code and code + 1 -> name; ctypes: the C integer types of a symbol's cells,
by C spelling), ctype_bits = {spelling -> bits}, ctype_signed = {spelling -> boolean}, arity = {intrinsic name -> arity}, gop = {intrinsic
name -> its 1-based row of core.graph_ops()}, xaif = {intrinsic name -> its XAIF name},
qual = {const=, restrict=, addr=}, max_depth=, max_dim= (the most dims of an array), stmt_parts=,
split_strategies=, passives = {{fn=, stream=, at=, text=, nargs=}, ...} (the passive calls,
CG_KPASSIVES)}: what kparse.lua writes, read from cg_kernel.h.
@function kernel_layout
*/

/*** core.kernel_format(fmt) -> {"int" | "double" | "string", ...} | nil, why: the arguments a
printf format takes, in order ("string": a plain %s, for a literal), or why the kernels' subset cannot format it (%s of a non-literal,
%p, a length modifier of another type).
@function kernel_format
*/

/*** core.kernel_load(flat) -> cgwb.Kernel | nil, "FILE: kernel form: ...": flat as
kparse.parse gives it ({file=, names=, func=, sym=, expr=, stmt=, list=, args=, dconst=}:
rows back to back, 0-based ids). Raises when a field is not an array of the right values
(a front end's bug).
@function kernel_load
*/

/*** A kernel in the C subset, loaded into the intermediate form (cgwb.Kernel; doc/kernels.md,
doc/kernel-ir.md). Made by cgwb.read_kernel; cgwb.kernel adds the Lua methods (analyze,
functions, symbols, ...); tostring(k) -> cgwb.Kernel (FILE: N functions, N statements).
@type Kernel
*/

/*** k:cfg(f) -> {func=, entry=, exit=, vertices={{id=, kind=, stmts={...}, stmt=, succ={...},
pred={...}}...}, stmt_vertex={[stmt]=vertex}}: the control flow graph of function f (a
name or a 1-based id), every id 1-based. A BRANCH's and a LOOP's succ: the then/body side
first.
@function Kernel:cfg
*/

/*** k:cfg_dot(f) -> the control flow graph of function f as DOT text.
@function Kernel:cfg_dot
*/

/*** k:cfg_text(f) -> the control flow graph of function f as text, one vertex a line.
@function Kernel:cfg_text
*/

/*** k:free(): releases the kernel now (also __gc and __close).
@function Kernel:free
*/

/*** k:ir() -> the flat table the kernel was loaded from (the same fields and values, 0-based
ids).
@function Kernel:ir
*/

/*** k:jacobian(f, call [, opts]) -> {rows = {{array=, cell=}...}, cols = {{array=, cell=} |
{param=}...}, values = {{...} per row}} | nil, msg: rows every double caller cell written,
then {ret = true} for a double return value, cols every double caller cell read before
written and every by-value double parameter read (array
order, then parameter order; arrays and parameters 1-based, cells 0-based), values by
tangent mode in chunks of 64 directions.
@function Kernel:jacobian
*/

/*** k:run(f, call [, {max_steps=, max_calls=, trace=true}]) -> {arrays = {{name=,
values={...}, init={booleans}}...}, ret = value | nil, steps = n, trace = {{stmt=, expr=,
object=, cell=, write=, frame=, block=, value=}...} (with opts.trace)} | nil,
"FILE:LINE:COL: message".
@function Kernel:run
*/

/* }==== */
