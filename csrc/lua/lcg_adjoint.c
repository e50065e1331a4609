/* lcg_adjoint.c: core.kernel_loops(k, f, opts): the data-dependence graph
 * of a kernel function and the verdict on each of its loops (Hascoet,
 * Fidanova & Held, sec. 2 and 3) as one plain table; doc/adjoint-loops.md
 * gives its shape.  opts: assume and alias (as kernel_flatten),
 * independents and dependents (checked names; the analysis does not
 * depend on them). */
#include <string.h>

#include "lcg.h"
#include "../adjoint/cg_addg.h"

CG_KKINDS_SEEN(10, 32); /* the statement kinds and expression operators its switches handle */

/* What a call owns across Lua calls that may raise. */
typedef struct lloops {
  cg_alloc A;
  cg_kalias *al;
  cg_addg *g;
} lloops;

static void loops_release(void *p, cg_alloc *A) {
  lloops *x = (lloops *)p;
  (void)A;
  cg_addg_free(x->g), cg_kalias_free(x->al);
  memset(x, 0, sizeof *x);
}

/* Expression x's text without the parentheses around all of it. */
static void add_expr(luaL_Buffer *b, const cg_kernel *k, int32_t x) {
  char buf[256];
  size_t n, i;
  int depth = 0, outer = 0;
  cg_kexpr_text(k, x, buf, sizeof buf);
  cg_addg_tidy(buf);
  n = strlen(buf);
  if (n > 2 && buf[0] == '(' && buf[n - 1] == ')')
    for (i = 0, outer = 1; i < n - 1 && outer; i++) { /* the first ( closes at the end only */
      depth += buf[i] == '(' ? 1 : buf[i] == ')' ? -1 : 0;
      if (depth == 0) outer = 0;
    }
  if (outer) buf[n - 1] = 0;
  luaL_addstring(b, outer ? buf + 1 : buf);
}

/* "name(a, b)": the arguments args[a0 .. a0 + na - 1]. */
static void add_call(luaL_Buffer *b, const cg_kernel *k, const char *name, int32_t a0, int32_t na) {
  int32_t i;
  luaL_addstring(b, name), luaL_addstring(b, "(");
  for (i = 0; i < na; i++) {
    if (i) luaL_addstring(b, ", ");
    add_expr(b, k, k->args[a0 + i]);
  }
  luaL_addstring(b, ")");
}

/* A node's text: "y[i] = x[i] * 2", "g(a, b)", "if (c)", "for (i < n)". */
static void push_node_text(lua_State *L, const cg_kernel *k, int32_t s) {
  luaL_Buffer b;
  int32_t c;
  luaL_buffinit(L, &b);
  switch (CG_KSTMT(k, s, KIND)) {
    case CG_KST_ASSIGN:
      add_expr(&b, k, CG_KSTMT(k, s, ASSIGN_LHS)), luaL_addstring(&b, " = ");
      add_expr(&b, k, CG_KSTMT(k, s, ASSIGN_RHS));
      break;
    case CG_KST_CALL:
      if (CG_KSTMT(k, s, CALL_LHS) >= 0)
        add_expr(&b, k, CG_KSTMT(k, s, CALL_LHS)), luaL_addstring(&b, " = ");
      add_call(&b, k, k->names[CG_KFUNC(k, CG_KSTMT(k, s, CALL_CALLEE), NAME)], CG_KSTMT_SLICE(k, s, CALL_ARGS));
      break;
    case CG_KST_ALLOC: /* p = malloc(n), p = calloc(n): the count in cells */
      add_expr(&b, k, CG_KSTMT(k, s, ALLOC_LHS));
      luaL_addstring(&b, (CG_KSTMT(k, s, FLAGS) & CG_KH_ZERO) ? " = calloc(" : " = malloc(");
      add_expr(&b, k, CG_KSTMT(k, s, ALLOC_COUNT)), luaL_addstring(&b, ")");
      break;
    case CG_KST_FREE:
      luaL_addstring(&b, "free("), add_expr(&b, k, CG_KSTMT(k, s, FREE_PTR)), luaL_addstring(&b, ")");
      break;
    case CG_KST_PASSIVE: /* printf(...), exit(...): the function and its value arguments */
      add_call(&b, k, cg_kpassive_fn(CG_KSTMT(k, s, FLAGS)), CG_KSTMT_SLICE(k, s, PASSIVE_ARGS));
      break;
    default: /* if, loop */
      luaL_addstring(&b, CG_KSTMT(k, s, KIND) == CG_KST_IF ? "if (" : CG_KSTMT(k, s, FLAGS) == CG_KL_FOR ? "for ("
                         : CG_KSTMT(k, s, FLAGS) == CG_KL_DO ? "do while (" : "while (");
      c = CG_KSTMT(k, s, KIND) == CG_KST_IF ? CG_KSTMT(k, s, IF_COND) : CG_KSTMT(k, s, LOOP_COND);
      if (c >= 0) add_expr(&b, k, c);
      luaL_addstring(&b, ")");
  }
  luaL_pushresult(&b);
}

static void push_ddg(lua_State *L, const cg_addg *g) {
  const cg_kalias *al = g->al;
  const cg_kernel *k = al->k;
  uint32_t i;
  lua_createtable(L, 0, 2);
  lua_createtable(L, (int)g->nnode, 0);
  for (i = 0; i < g->nnode; i++) {
    int32_t s = g->node_stmt[i];
    lua_createtable(L, 0, 6);
    lcg_push_id(L, (uint64_t)s), lua_setfield(L, -2, "stmt");
    lua_pushinteger(L, CG_KSTMT(k, s, LINE)), lua_setfield(L, -2, "line");
    lua_pushinteger(L, CG_KSTMT(k, s, COL)), lua_setfield(L, -2, "col");
    lua_pushstring(L, cg_addg_node_name(g->node_kind[i])), lua_setfield(L, -2, "kind");
    push_node_text(L, k, s), lua_setfield(L, -2, "text");
    lua_pushboolean(L, cg_addg_incr_self(k, s) >= 0), lua_setfield(L, -2, "increment");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "nodes");
  lua_createtable(L, (int)g->nedge, 0);
  for (i = 0; i < g->nedge; i++) {
    int32_t x = al->acc_expr[g->e_to_acc[i]], st = al->acc_stmt[g->e_to_acc[i]];
    lua_createtable(L, 0, 7);
    lcg_push_id(L, (uint64_t)g->e_from[i]), lua_setfield(L, -2, "from");
    lcg_push_id(L, (uint64_t)g->e_to[i]), lua_setfield(L, -2, "to");
    lua_pushstring(L, cg_kalias_obj_name(al, (uint32_t)g->e_obj[i])), lua_setfield(L, -2, "var");
    lua_pushstring(L, cg_addg_edge_name(g->e_kind[i])), lua_setfield(L, -2, "kind");
    if (g->e_carried[i] >= 0)
      lcg_push_id(L, (uint64_t)g->stmt_node[g->l_stmt[g->e_carried[i]] - al->s_lo]);
    else lua_pushboolean(L, 0);
    lua_setfield(L, -2, "carried");
    lua_pushinteger(L, x >= 0 ? CG_KEXPR(k, x, LINE) : CG_KSTMT(k, st, LINE)), lua_setfield(L, -2, "line");
    lua_pushinteger(L, x >= 0 ? CG_KEXPR(k, x, COL) : CG_KSTMT(k, st, COL)), lua_setfield(L, -2, "col");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "edges");
}

static const char *type_text(const cg_kalias *al, int32_t o) {
  const cg_kernel *k = al->k;
  int32_t s = al->obj_sym[o];
  int ptr = CG_KSYM(k, s, PTR) || CG_KSYM(k, s, NDIM);
  if (CG_KSYM(k, s, BASE) == CG_KT_INT) return ptr ? "int *" : "int";
  return ptr ? "double *" : "double";
}

/* A sorted list of the names of the loop's variables with flag f set. */
static void push_names(lua_State *L, const cg_addg *g, uint32_t l, const uint8_t *flag) {
  uint32_t i;
  int n = 0;
  lua_newtable(L);
  for (i = g->la_off[l]; i < g->la_off[l + 1]; i++)
    if (flag[i]) lua_pushstring(L, cg_kalias_obj_name(g->al, (uint32_t)g->la_obj[i])), lua_rawseti(L, -2, ++n);
}

static void push_loop(lua_State *L, const cg_addg *g, uint32_t l) {
  const cg_kalias *al = g->al;
  const cg_kernel *k = al->k;
  int32_t s = g->l_stmt[l];
  uint32_t i;
  int n = 0;
  lua_createtable(L, 0, 20);
  lcg_push_id(L, (uint64_t)s), lua_setfield(L, -2, "stmt");
  lua_pushinteger(L, CG_KSTMT(k, s, LINE)), lua_setfield(L, -2, "line");
  lua_pushinteger(L, CG_KSTMT(k, s, COL)), lua_setfield(L, -2, "col");
  lua_pushinteger(L, g->l_depth[l]), lua_setfield(L, -2, "depth");
  if (g->l_parent[l] >= 0) lcg_push_id(L, (uint64_t)g->l_parent[l]);
  else lua_pushboolean(L, 0);
  lua_setfield(L, -2, "parent");
  if (g->l_counter[l] >= 0) lua_pushstring(L, k->names[CG_KSYM(k, g->l_counter[l], NAME)]);
  else lua_pushboolean(L, 0);
  lua_setfield(L, -2, "index");
  lua_pushboolean(L, g->l_pragma[l]), lua_setfield(L, -2, "pragma");
  lua_pushboolean(L, g->l_indep[l]), lua_setfield(L, -2, "independent");
  lua_pushstring(L, g->l_accept[l] ? "accept" : "refuse"), lua_setfield(L, -2, "verdict");
  lua_pushstring(L, g->l_reason + (size_t)l * CG_ADDG_REASON), lua_setfield(L, -2, "reason");
  if (g->l_pragma[l]) lua_pushstring(L, g->l_accept[l] ? "confirmed" : "refused");
  else lua_pushboolean(L, 0);
  lua_setfield(L, -2, "pragma_status");
  lua_newtable(L);
  for (i = g->la_off[l]; i < g->la_off[l + 1]; i++) {
    int32_t o = g->la_obj[i];
    if (g->la_class[i] < 0) continue; /* the counter */
    lua_createtable(L, 0, 5);
    lua_pushstring(L, cg_kalias_obj_name(al, (uint32_t)o)), lua_setfield(L, -2, "name");
    lcg_push_id(L, (uint64_t)al->obj_sym[o]), lua_setfield(L, -2, "sym");
    lua_pushstring(L, cg_addg_class_name(g->la_class[i])), lua_setfield(L, -2, "class");
    lua_pushboolean(L, cg_addg_obj_scalar(al, o)), lua_setfield(L, -2, "scalar");
    lua_pushstring(L, type_text(al, o)), lua_setfield(L, -2, "type");
    lua_rawseti(L, -2, ++n);
  }
  lua_setfield(L, -2, "access");
  lua_createtable(L, (int)(g->lc_off[l + 1] - g->lc_off[l]), 0);
  for (i = g->lc_off[l]; i < g->lc_off[l + 1]; i++)
    lcg_push_id(L, (uint64_t)g->lc_edge[i]), lua_rawseti(L, -2, (lua_Integer)(i - g->lc_off[l] + 1));
  lua_setfield(L, -2, "carried");
  lua_pushboolean(L, g->l_terminal[l]), lua_setfield(L, -2, "terminal");
  lua_pushboolean(L, g->l_accept[l] && !g->l_terminal[l]), lua_setfield(L, -2, "dry_run");
  lua_createtable(L, (int)(g->ls_off[l + 1] - g->ls_off[l]), 0);
  for (i = g->ls_off[l]; i < g->ls_off[l + 1]; i++) {
    int32_t o = g->ls_obj[i];
    lua_createtable(L, 0, 3);
    lua_pushstring(L, cg_kalias_obj_name(al, (uint32_t)o)), lua_setfield(L, -2, "name");
    lcg_push_id(L, (uint64_t)al->obj_sym[o]), lua_setfield(L, -2, "sym");
    lua_pushboolean(L, cg_addg_obj_scalar(al, o)), lua_setfield(L, -2, "scalar");
    lua_rawseti(L, -2, (lua_Integer)(i - g->ls_off[l] + 1));
  }
  lua_setfield(L, -2, "snapshot");
  push_names(L, g, l, g->la_written), lua_setfield(L, -2, "writes");
  push_names(L, g, l, g->la_read), lua_setfield(L, -2, "reads");
}

/* What the tables of core.kernel_loops take of Lua's heap, measured on Lua
 * 5.4 (collectgarbage("count") around the call, kernels of 10^2 to 10^7
 * edges): an edge's table of seven fields with its slot 264 bytes, a node's
 * with its text under 384, a loop's under 2 KiB, a row of its access,
 * snapshot, writes and reads lists under 160, a carried edge's id 16. */
enum { LUA_EDGE = 264, LUA_NODE = 384, LUA_LOOP = 2048, LUA_ROW = 160, LUA_ID = 16 };

/* The memory limit counts what the core allocates, and Lua's heap holds
 * the tables made here: a function of n statements may have n^2 edges,
 * each 28 bytes in the core and 264 as a table.  So the tables are refused
 * as an allocation of the core is, when their estimate would take what the
 * budget counts past its limit: CG_ENOMEM with e and the budget's mark set
 * (lcg_fail then names the limit), else CG_OK. */
static int tables_fit(lua_State *L, const cg_addg *g, cg_error *e) {
  const cg_kernel *k = g->al->k;
  cg_budget *b = lcg_budget(L);
  double need = (double)g->nedge * LUA_EDGE + (double)g->nnode * LUA_NODE + (double)g->nloop * LUA_LOOP +
                (3.0 * g->nla_tmp + g->nls_tmp) * LUA_ROW + (double)g->nlc_tmp * LUA_ID;
  char size[32], used[32];
  if (!b->limit || (double)b->used + need <= (double)b->limit) return CG_OK;
  b->hit = 1;
  cg_fmt_bytes(size, sizeof size, need), cg_fmt_bytes(used, sizeof used, (double)b->used);
  return cg_seterr(e, CG_ENOMEM, "%s: %s: the dependence graph's %u nodes and %u edges need about %s as Lua tables "
                   "beside the %s in use", k->file ? k->file : "kernel", k->names[CG_KFUNC(k, g->func, NAME)],
                   g->nnode, g->nedge, size, used);
}

/* core.kernel_loops(k, f [, opts]) -> {func, ddg, loops} | nil, msg */
static int l_kernel_loops(lua_State *L) {
  const cg_kernel *k = lcg_checkkernel(L, 1);
  int32_t f = lcg_checkkfunc(L, k, 2);
  uint32_t nas = 0, nind = 0, ndep = 0, l;
  int dret = -1;
  cg_kassume *as;
  lloops *x;
  cg_error e;
  if (lua_isnoneornil(L, 3)) lua_settop(L, 2), lua_newtable(L);
  luaL_checktype(L, 3, LUA_TTABLE);
  lua_settop(L, 3);
  as = lcg_kassumes(L, k, f, &nas); /* 4 */
  if (!as) return luaL_pushfail(L), lua_insert(L, -2), 2;
  lcg_kparams(L, k, f, 3, "independents", &nind, NULL); /* 5: checked only */
  lcg_kparams(L, k, f, 3, "dependents", &ndep, &dret);  /* 6 */
  x = (lloops *)lcg_box(L, sizeof *x, loops_release); /* 7 */
  lcg_alloc(L, &x->A);
  if (!(x->al = cg_kalias_run(&x->A, k, f, as, nas, &e))) return lcg_fail(L, &e);
  if (lcg_alias_override(L, x->al, &e)) return lcg_fail(L, &e);
  if (!(x->g = cg_addg_run(&x->A, x->al, &e)) || tables_fit(L, x->g, &e)) return lcg_fail(L, &e);
  lua_createtable(L, 0, 3);
  lua_pushstring(L, k->names[CG_KFUNC(k, f, NAME)]), lua_setfield(L, -2, "func");
  push_ddg(L, x->g), lua_setfield(L, -2, "ddg");
  lua_createtable(L, (int)x->g->nloop, 0);
  for (l = 0; l < x->g->nloop; l++) push_loop(L, x->g, l), lua_rawseti(L, -2, (lua_Integer)l + 1);
  lua_setfield(L, -2, "loops");
  return 1;
}

void lcg_open_adjoint(lua_State *L) {
  lua_pushcfunction(L, l_kernel_loops);
  lua_setfield(L, -2, "kernel_loops");
}

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
@module cgwb.core
*/

/*** core.kernel_loops(k, f [, opts]) -> {func, ddg, loops} | nil, msg.
The data-dependence graph of function f (a name or 1-based id) of kernel k and every loop's
verdict (Hascoet, Fidanova & Held, sec. 2 and 3): ddg = {nodes = {{stmt=, line=, col=,
kind=, text=, increment=}...}, edges = {{from=, to=, var=, kind = "flow"|"anti"|"output",
carried=, line=, col=}...}}; loops = {{stmt=, line=, col=, depth=, parent=, index=, pragma=,
independent=, verdict = "accept"|"refuse", reason=, pragma_status=, access=, carried=,
terminal=, dry_run=, snapshot=, writes=, reads=}...} (doc/adjoint-loops.md).
opts: assume, alias (as core.kernel_flatten), independents, dependents (checked names).
A graph, or tables for it (estimated before they are made: about 264 bytes an edge), past
the memory limit raises the limit's message.  cgwb.loops.analyse calls it (and returns that
message as nil, message).
@function kernel_loops
*/

/* }==== */
