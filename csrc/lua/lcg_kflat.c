/* lcg_kflat.c: core.kernel_flatten(k, f, opts): the flattened basic blocks
 * of a kernel function as one plain table (doc/flattening.md gives its
 * shape).  opts: strategy ("minimal" default, "statement"), split (a Lua
 * function deciding each split; doc/flattening.md, "Split strategies"), assume (as
 * kernel_analyze), prune (true: activity decides what is active, with
 * opts.independents / opts.dependents as kernel_analyze). */
#include <string.h>

#include "lcg.h"
#include "lcg_kpoint.h"
#include "../kernel/cg_kflat.h"

/* What a call owns across Lua calls that may raise. */
typedef struct lflat {
  cg_alloc A;
  cg_kalias *al;
  cg_kchains *ch;
  cg_kcfg *cfg;
  cg_kactive *ac;
  cg_kflat *fl;
} lflat;

static void flat_release(void *p, cg_alloc *A) {
  lflat *x = (lflat *)p;
  (void)A;
  cg_kflat_free(x->fl), cg_kactive_free(x->ac), cg_kcfg_free(x->cfg);
  cg_kchains_free(x->ch), cg_kalias_free(x->al);
  memset(x, 0, sizeof *x);
}

/* {==== the result ====} */

static void push_text(lua_State *L, const cg_kernel *k, int32_t x) {
  char buf[256];
  cg_kexpr_text(k, x, buf, sizeof buf);
  lua_pushstring(L, buf);
}

/* The address text of access a's set ("z[0]", "z[k#2]"; a set of several
 * addresses joined by " | "). */
static void push_set_text(lua_State *L, const cg_kalias *al, uint32_t s);
static void push_addr(lua_State *L, const cg_kalias *al, int32_t a) {
  if (a < 0) lua_pushnil(L);
  else push_set_text(L, al, (uint32_t)al->acc_set[a]);
}

/* Sets t.name and t.exact (t at the top) for access a of expression x. */
static void set_name(lua_State *L, const cg_kflat *fl, int32_t a, int32_t x) {
  char buf[256];
  int exact = cg_kflat_name(fl, a, x, buf, sizeof buf);
  lua_pushstring(L, buf), lua_setfield(L, -2, "name");
  lua_pushboolean(L, exact), lua_setfield(L, -2, "exact");
}

static void push_vertex(lua_State *L, const cg_kflat *fl, uint32_t v) {
  const cg_kernel *k = fl->al->k;
  int32_t x = fl->v_expr[v];
  lua_createtable(L, 0, 7);
  lua_pushstring(L, cg_kflat_vkind_name(fl->v_kind[v])), lua_setfield(L, -2, "kind");
  lua_pushstring(L, fl->v_kind[v] == CG_KFV_INTRIN ? cg_kintrinsic_name(CG_KEXPR(k, x, SYM))
                                                   : cg_kexpr_name(CG_KEXPR(k, x, OP)));
  lua_setfield(L, -2, "op");
  lcg_push_id(L, (uint64_t)x), lua_setfield(L, -2, "expr");
  push_text(L, k, x), lua_setfield(L, -2, "text");
  lua_pushinteger(L, CG_KEXPR(k, x, LINE)), lua_setfield(L, -2, "line");
  lua_pushinteger(L, CG_KEXPR(k, x, COL)), lua_setfield(L, -2, "col");
  lcg_push_id(L, (uint64_t)fl->v_stmt[v]), lua_setfield(L, -2, "stmt"); /* an independent: its first use's */
  if (fl->v_acc[v] >= 0) push_addr(L, fl->al, fl->v_acc[v]), lua_setfield(L, -2, "addr");
  if (fl->v_kind[v] == CG_KFV_INDEP) set_name(L, fl, fl->v_acc[v], x);
}

static void push_lines(lua_State *L, const cg_kflat *fl, uint32_t i0, uint32_t i1, int dead) {
  uint32_t i;
  int n = 0;
  lua_createtable(L, (int)(i1 - i0), 0);
  for (i = i0; i < i1; i++)
    if (!dead || fl->st_dead[i])
      lua_pushinteger(L, CG_KSTMT(fl->al->k, fl->st[i], LINE)), lua_rawseti(L, -2, ++n);
}

/* Dependent d; a return's is named "return" (no address: the result). */
static void push_dependent(lua_State *L, const cg_kflat *fl, uint32_t d, uint32_t v0) {
  const cg_kernel *k = fl->al->k;
  int32_t s = fl->d_stmt[d];
  int ret = CG_KSTMT(k, s, KIND) == CG_KST_RETURN;
  lua_createtable(L, 0, 7);
  lua_pushinteger(L, (lua_Integer)(fl->d_vertex[d] - v0 + 1)), lua_setfield(L, -2, "vertex");
  lcg_push_id(L, (uint64_t)s), lua_setfield(L, -2, "stmt");
  lua_pushinteger(L, CG_KSTMT(k, s, LINE)), lua_setfield(L, -2, "line");
  if (ret) lua_pushliteral(L, "return");
  else push_text(L, k, CG_KSTMT(k, s, ASSIGN_LHS));
  lua_setfield(L, -2, "text");
  push_addr(L, fl->al, fl->d_acc[d]), lua_setfield(L, -2, "addr");
  lua_pushboolean(L, fl->d_aug[d]), lua_setfield(L, -2, "augmented");
  lua_pushboolean(L, fl->d_collapsed[d]), lua_setfield(L, -2, "collapsed");
  if (ret) {
    lua_pushliteral(L, "return"), lua_setfield(L, -2, "name");
    lua_pushboolean(L, 1), lua_setfield(L, -2, "exact");
  } else
    set_name(L, fl, fl->d_acc[d], CG_KSTMT(k, s, ASSIGN_LHS));
}

/* Subgraph g: vertex ids local to it, 1-based. */
static void push_subgraph(lua_State *L, const cg_kflat *fl, uint32_t g) {
  uint32_t v0 = fl->g_v0[g], i;
  int n = 0;
  lua_createtable(L, 0, 6);
  push_lines(L, fl, fl->g_st0[g], fl->g_st0[g + 1], 0), lua_setfield(L, -2, "lines");
  lua_createtable(L, (int)(fl->g_st0[g + 1] - fl->g_st0[g]), 0);
  for (i = fl->g_st0[g]; i < fl->g_st0[g + 1]; i++)
    lcg_push_id(L, (uint64_t)fl->st[i]), lua_rawseti(L, -2, (lua_Integer)(i - fl->g_st0[g] + 1));
  lua_setfield(L, -2, "statements");
  lua_createtable(L, (int)(fl->g_v0[g + 1] - v0), 0);
  for (i = v0; i < fl->g_v0[g + 1]; i++) push_vertex(L, fl, i), lua_rawseti(L, -2, (lua_Integer)(i - v0 + 1));
  lua_setfield(L, -2, "vertices");
  lua_createtable(L, (int)(fl->g_e0[g + 1] - fl->g_e0[g]), 0);
  for (i = fl->g_e0[g]; i < fl->g_e0[g + 1]; i++) {
    lua_createtable(L, 3, 0);
    lua_pushinteger(L, (lua_Integer)(fl->e_src[i] - v0 + 1)), lua_rawseti(L, -2, 1);
    lua_pushinteger(L, (lua_Integer)(fl->e_dst[i] - v0 + 1)), lua_rawseti(L, -2, 2);
    lua_pushinteger(L, fl->e_pos[i] + 1), lua_rawseti(L, -2, 3);
    lua_rawseti(L, -2, (lua_Integer)(i - fl->g_e0[g] + 1));
  }
  lua_setfield(L, -2, "edges");
  lua_newtable(L);
  for (i = v0; i < fl->g_v0[g + 1]; i++)
    if (fl->v_kind[i] == CG_KFV_INDEP) lua_pushinteger(L, (lua_Integer)(i - v0 + 1)), lua_rawseti(L, -2, ++n);
  lua_setfield(L, -2, "independents");
  lua_createtable(L, (int)(fl->g_d0[g + 1] - fl->g_d0[g]), 0);
  for (i = fl->g_d0[g]; i < fl->g_d0[g + 1]; i++)
    push_dependent(L, fl, i, v0), lua_rawseti(L, -2, (lua_Integer)(i - fl->g_d0[g] + 1));
  lua_setfield(L, -2, "dependents");
  lua_createtable(L, (int)(fl->g_r0[g + 1] - fl->g_r0[g]), 0);
  for (i = fl->g_r0[g]; i < fl->g_r0[g + 1]; i++) {
    lua_createtable(L, 0, 3);
    lcg_push_id(L, (uint64_t)fl->r_expr[i]), lua_setfield(L, -2, "expr");
    lua_pushinteger(L, (lua_Integer)(fl->r_vertex[i] - v0 + 1)), lua_setfield(L, -2, "vertex");
    if (fl->r_def[i] >= 0) lcg_push_id(L, (uint64_t)fl->r_def[i]), lua_setfield(L, -2, "def");
    lua_rawseti(L, -2, (lua_Integer)(i - fl->g_r0[g] + 1));
  }
  lua_setfield(L, -2, "reads");
}

static void push_block(lua_State *L, const cg_kflat *fl, const cg_kcfg *cfg, uint32_t b) {
  uint32_t g, v = (uint32_t)fl->block_vertex[b];
  lua_createtable(L, 0, 7);
  lcg_push_id(L, v), lua_setfield(L, -2, "vertex");
  lua_createtable(L, (int)(cfg->bst_start[v + 1] - cfg->bst_start[v]), 0);
  for (g = cfg->bst_start[v]; g < cfg->bst_start[v + 1]; g++)
    lcg_push_id(L, (uint64_t)cfg->bst[g]), lua_rawseti(L, -2, (lua_Integer)(g - cfg->bst_start[v] + 1));
  lua_setfield(L, -2, "block_statements");
  push_lines(L, fl, fl->block_st0[b], fl->block_st0[b + 1], 0), lua_setfield(L, -2, "lines");
  push_lines(L, fl, fl->block_st0[b], fl->block_st0[b + 1], 1), lua_setfield(L, -2, "dead");
  lua_pushinteger(L, (lua_Integer)(fl->block_g0[b + 1] - fl->block_g0[b])), lua_setfield(L, -2, "n_subgraphs");
  lua_pushinteger(L, (lua_Integer)(fl->block_st0[b + 1] - fl->block_st0[b]));
  lua_setfield(L, -2, "statement_level_subgraphs");
  lua_createtable(L, (int)(fl->block_g0[b + 1] - fl->block_g0[b]), 0);
  for (g = fl->block_g0[b]; g < fl->block_g0[b + 1]; g++)
    push_subgraph(L, fl, g), lua_rawseti(L, -2, (lua_Integer)(g - fl->block_g0[b] + 1));
  lua_setfield(L, -2, "subgraphs");
}

/* Appends name to the list at -2 unless the set at -1 holds it. */
static void add_unique(lua_State *L, const char *name, lua_Integer *n) {
  if (lua_getfield(L, -1, name) == LUA_TNIL) {
    lua_pushboolean(L, 1), lua_setfield(L, -3, name);
    lua_pushstring(L, name), lua_rawseti(L, -4, ++*n);
  }
  lua_pop(L, 1);
}

/* res.independents: the function's independents (cg_kflat_outside), names
 * unique, in first-occurrence order (blocks in source order). */
static void push_fn_independents(lua_State *L, const cg_kflat *fl) {
  char buf[256];
  lua_Integer n = 0;
  uint32_t v;
  lua_newtable(L), lua_newtable(L); /* the list, the set of its names */
  for (v = 0; v < fl->nv; v++)
    if (cg_kflat_outside(fl, v)) {
      cg_kflat_name(fl, fl->v_acc[v], fl->v_expr[v], buf, sizeof buf);
      add_unique(L, buf, &n);
    }
  lua_pop(L, 1);
}

/* res.dependents: the function's dependents (cg_kflat_observable; a
 * flattened return as "return"), in statement order within the blocks. */
static void push_fn_dependents(lua_State *L, const cg_kflat *fl, const cg_kcfg *cfg) {
  char buf[256];
  lua_Integer n = 0;
  uint32_t b, i, d;
  lua_newtable(L), lua_newtable(L);
  for (b = 0; b < fl->nblock; b++) {
    uint32_t v = (uint32_t)fl->block_vertex[b], dend = fl->g_d0[fl->block_g0[b + 1]];
    d = fl->g_d0[fl->block_g0[b]];
    for (i = cfg->bst_start[v]; i < cfg->bst_start[v + 1]; i++) {
      int32_t s = cfg->bst[i];
      for (; d < dend && fl->d_stmt[d] == s; d++) {
        if (!cg_kflat_observable(fl, d)) continue;
        if (CG_KSTMT(fl->al->k, s, KIND) == CG_KST_RETURN) add_unique(L, "return", &n);
        else {
          cg_kflat_name(fl, fl->d_acc[d], CG_KSTMT(fl->al->k, s, ASSIGN_LHS), buf, sizeof buf);
          add_unique(L, buf, &n);
        }
      }
    }
  }
  lua_pop(L, 1);
}

/* }==== */

/* {==== overrides ====} */

/* The address text of set s. */
static void push_set_text(lua_State *L, const cg_kalias *al, uint32_t s) {
  luaL_Buffer b;
  uint32_t i;
  char buf[256];
  luaL_buffinit(L, &b);
  for (i = 0; i < al->set_n[s]; i++) {
    if (i) luaL_addstring(&b, " | ");
    cg_kalias_addr_text(al, &al->addr[al->set_off[s] + i], buf, sizeof buf);
    luaL_addstring(&b, buf);
  }
  luaL_pushresult(&b);
}

/* opts.alias(text1, text2), protected: opts at base. */
static void push_texts(lua_State *L, int base, const cg_kalias *al, uint32_t s1, uint32_t s2,
                       void *ud) {
  (void)ud;
  lua_getfield(L, base, "alias");
  push_set_text(L, al, s1), push_set_text(L, al, s2);
}

int lcg_alias_override(lua_State *L, cg_kalias *al, cg_error *e) {
  int rc = CG_OK, opts = 3;
  lua_getfield(L, 3, "alias");
  if (!lua_isnil(L, -1)) {
    luaL_argexpected(L, lua_isfunction(L, -1), 3, "a function as opts.alias");
    rc = lcg_alias_overrides(L, al, push_texts, NULL, &opts, 1, e);
  }
  lua_pop(L, 1);
  return rc;
}

/* }==== */

/* {==== graphs at a point ====} */

/* graph(block, sub, values [, passive]) -> cgwb.Graph | nil, msg: subgraph
 * sub of block at the point values (its independents in vertex order);
 * passive: passive(expr) gives the value of a passive argument (expression
 * id), or an array of them in cg_kflat_passive_args' order.  Upvalues: the box,
 * its payload, the cgwb.Kernel (its rows are read: raises after k:free()). */
static int l_graph(lua_State *L) {
  const lflat *x = (const lflat *)lua_touserdata(L, lua_upvalueindex(2));
  lua_Integer bi = luaL_checkinteger(L, 1), si = luaL_checkinteger(L, 2);
  const cg_kflat *fl = x->fl;
  uint32_t g, nind = 0, v;
  const double *vals;
  cg_graph **slot;
  cg_alloc *A;
  cg_error e;
  lcg_pvctx p;
  lkernel *ku = (lkernel *)lua_touserdata(L, lua_upvalueindex(3));
  if (!fl) return luaL_error(L, "graph: the flattening was freed");
  if (!ku->k || ku->k != fl->al->k) return luaL_error(L, "graph: its cgwb.Kernel was freed");
  lua_settop(L, 4);
  luaL_argcheck(L, bi >= 1 && (uint64_t)bi <= fl->nblock, 1, "block id out of range");
  g = fl->block_g0[bi - 1] + (uint32_t)(si - 1);
  luaL_argcheck(L, si >= 1 && g < fl->block_g0[bi], 2, "subgraph id out of range");
  for (v = fl->g_v0[g]; v < fl->g_v0[g + 1]; v++) nind += fl->v_kind[v] == CG_KFV_INDEP;
  vals = lcg_optpoint(L, 3, nind, "graph");
  if (!vals) luaL_argerror(L, 3, "the independents' values expected");
  p.v = NULL, p.next = p.n = 0;
  if (!lua_isnoneornil(L, 4)) lcg_kpassive(L, fl, g, 4, &p, "graph"); /* a function or an array */
  slot = lcg_newgraph(L, &A);
  if (!(*slot = cg_kflat_graph(A, fl, g, vals, lua_isnoneornil(L, 4) ? NULL : lcg_kpassive_cb, &p, NULL, &e)))
    return lcg_fail(L, &e);
  (*slot)->A = A;
  return 1;
}

/* }==== */

/* {==== split strategies in Lua ====} */

/* What the decision hook needs: the state (its slots 1 the kernel, 8 the
 * function opts.split, 9 the error it raised). */
typedef struct hookctx {
  lua_State *L;
} hookctx;

enum { SLOT_SPLIT = 8, SLOT_ERR = 9 };

/* Whether expression x holds an intrinsic call. */
static int has_intrinsic(const cg_kernel *k, int32_t x) {
  int32_t ops[3];
  int n, i;
  if (CG_KEXPR(k, x, OP) == CG_KE_INTRIN) return 1;
  n = cg_kexpr_operands(k, x, ops);
  for (i = 0; i < n; i++)
    if (ops[i] >= 0 && has_intrinsic(k, ops[i])) return 1;
  return 0;
}

/* The right-hand side of an active assignment: a return's value. */
static int32_t rhs_of(const cg_kernel *k, int32_t s) {
  return CG_KSTMT(k, s, KIND) == CG_KST_RETURN ? CG_KSTMT(k, s, RETURN_VALUE) : CG_KSTMT(k, s, ASSIGN_RHS);
}

/* The statement's text, "y = sin(x) * a", "return x * y" (the right-hand
 * side's outer parentheses dropped when they enclose all of it). */
static void push_stmt_text(lua_State *L, const cg_kernel *k, int32_t s) {
  char lhs[128], rhs[256];
  size_t n;
  int depth = 0, outer = 0, ret = CG_KSTMT(k, s, KIND) == CG_KST_RETURN;
  if (ret) strcpy(lhs, "return");
  else cg_kexpr_text(k, CG_KSTMT(k, s, ASSIGN_LHS), lhs, sizeof lhs);
  cg_kexpr_text(k, rhs_of(k, s), rhs, sizeof rhs);
  n = strlen(rhs);
  if (n > 2 && rhs[0] == '(' && rhs[n - 1] == ')') {
    size_t i;
    for (i = 0, outer = 1; i < n - 1 && outer; i++) { /* the first ( closes at the end only */
      depth += rhs[i] == '(' ? 1 : rhs[i] == ')' ? -1 : 0;
      if (depth == 0) outer = 0;
    }
  }
  if (outer) rhs[n - 1] = 0;
  lua_pushfstring(L, ret ? "%s %s" : "%s = %s", lhs, outer ? rhs + 1 : rhs);
}

/* The ud-chain of use u as lines: 0 (first) for a value from before the
 * block, else the lines of the block's statements before q's. */
static void push_chain(lua_State *L, const cg_kflat *fl, const cg_kflat_ask *q, int32_t u) {
  const cg_kchains *ch = fl->ch;
  uint32_t i;
  int zero = 0, n = 0;
  lua_Integer last = -1;
  lua_newtable(L);
  for (i = ch->ud_off[u]; i < ch->ud_off[u + 1]; i++) zero |= !cg_kflat_ask_before(q, ch->ud[i]);
  if (zero) lua_pushinteger(L, 0), lua_rawseti(L, -2, ++n);
  for (i = ch->ud_off[u]; i < ch->ud_off[u + 1]; i++) {
    lua_Integer line;
    if (!cg_kflat_ask_before(q, ch->ud[i])) continue;
    line = CG_KSTMT(fl->al->k, ch->ud[i], LINE);
    if (line != last) lua_pushinteger(L, line), lua_rawseti(L, -2, ++n);
    last = line;
  }
}

/* info.uses: the statement's double uses with their chains. */
static void push_uses(lua_State *L, const cg_kflat *fl, const cg_kflat_ask *q) {
  const cg_kalias *al = fl->al;
  const cg_kernel *k = al->k;
  int32_t a0 = cg_kalias_acc0(al, q->stmt), na = cg_kalias_nacc(al, q->stmt), a;
  int n = 0;
  lua_newtable(L);
  for (a = a0; a < a0 + na; a++) {
    int32_t x = al->acc_expr[a];
    int op;
    if (al->acc_kind[a] != CG_KA_USE || x < 0) continue;
    op = CG_KEXPR(k, x, OP);
    if ((op != CG_KE_VAR && op != CG_KE_ELEM) || CG_KEXPR(k, x, TYPE) != CG_KT_DOUBLE) continue;
    lua_createtable(L, 0, 4);
    push_text(L, k, x), lua_setfield(L, -2, "text");
    lua_pushinteger(L, CG_KEXPR(k, x, LINE)), lua_setfield(L, -2, "line");
    lua_pushinteger(L, CG_KEXPR(k, x, COL)), lua_setfield(L, -2, "col");
    push_chain(L, fl, q, a), lua_setfield(L, -2, "chain");
    lua_rawseti(L, -2, ++n);
  }
}

/* The info table of one decision (doc/flattening.md, "Split strategies"). */
static void push_info(lua_State *L, const cg_kflat *fl, const cg_kflat_ask *q) {
  const cg_kernel *k = fl->al->k;
  int32_t s = q->stmt;
  uint32_t i;
  lua_createtable(L, 0, 12);
  lua_pushinteger(L, (lua_Integer)q->block + 1), lua_setfield(L, -2, "block");
  lcg_push_id(L, (uint64_t)s), lua_setfield(L, -2, "stmt");
  lua_pushinteger(L, CG_KSTMT(k, s, LINE)), lua_setfield(L, -2, "line");
  lua_pushinteger(L, CG_KSTMT(k, s, COL)), lua_setfield(L, -2, "col");
  push_stmt_text(L, k, s), lua_setfield(L, -2, "text");
  lua_pushinteger(L, (lua_Integer)q->index + 1), lua_setfield(L, -2, "index");
  lua_createtable(L, 0, 2);
  lua_createtable(L, (int)(q->run1 - q->run0), 0);
  for (i = q->run0; i < q->run1; i++) lcg_push_id(L, (uint64_t)fl->st[i]), lua_rawseti(L, -2, i - q->run0 + 1);
  lua_setfield(L, -2, "statements");
  push_lines(L, fl, q->run0, q->run1, 0), lua_setfield(L, -2, "lines");
  lua_setfield(L, -2, "run");
  lua_pushboolean(L, q->legal), lua_setfield(L, -2, "legal");
  if (q->reason) lua_pushstring(L, q->reason), lua_setfield(L, -2, "reason");
  push_uses(L, fl, q), lua_setfield(L, -2, "uses");
  lua_pushboolean(L, has_intrinsic(k, rhs_of(k, s))), lua_setfield(L, -2, "intrinsic");
}

/* Protected: split(info) -> a boolean (1 fn, 2 fl, 3 q); a bad answer or
 * an error raises a string. */
static int call_split(lua_State *L) {
  const cg_kflat *fl = (const cg_kflat *)lua_touserdata(L, 2);
  const cg_kflat_ask *q = (const cg_kflat_ask *)lua_touserdata(L, 3);
  lua_pushvalue(L, 1);
  push_info(L, fl, q);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    if (!lua_isstring(L, -1)) luaL_tolstring(L, -1, NULL);
    return lua_error(L);
  }
  if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
    return luaL_error(L, "opts.split: returned %s for line %d; expected true (split), false or nil (join)",
                      luaL_typename(L, -1), (int)CG_KSTMT(fl->al->k, q->stmt, LINE));
  lua_pushboolean(L, lua_toboolean(L, -1));
  return 1;
}

/* The decision hook: Lua runs under lua_pcall (no jump through the
 * engine's frames); an error is kept in SLOT_ERR.  The kernel must still
 * be alive afterwards: the engine goes on reading its rows. */
static int split_cb(void *ud, const cg_kflat *fl, const cg_kflat_ask *q, cg_error *e) {
  lua_State *L = ((hookctx *)ud)->L;
  int r;
  if (!lua_checkstack(L, 8)) return cg_seterr(e, CG_ERUNTIME, "opts.split: the Lua stack is full");
  lua_pushcfunction(L, call_split);
  lua_pushvalue(L, SLOT_SPLIT);
  lua_pushlightuserdata(L, (void *)(uintptr_t)fl), lua_pushlightuserdata(L, (void *)(uintptr_t)q);
  if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
    lua_replace(L, SLOT_ERR);
    return cg_seterr(e, CG_ERUNTIME, "opts.split raised an error");
  }
  r = lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (((lkernel *)lua_touserdata(L, 1))->k != fl->al->k)
    return cg_seterr(e, CG_EUSAGE, "opts.split: the cgwb.Kernel was freed during the flattening");
  return r ? CG_KFLAT_SPLIT : CG_KFLAT_JOIN;
}

/* }==== */

/* The strategy named by opts.strategy (default minimal); raises otherwise. */
static int get_strategy(lua_State *L) {
  int s;
  lua_getfield(L, 3, "strategy");
  s = lua_isnil(L, -1) ? CG_KFLAT_MINIMAL : cg_kflat_strategy(luaL_checkstring(L, -1));
  if (s < 0) luaL_error(L, "opts.strategy: '%s' is not a split strategy (minimal, statement)", lua_tostring(L, -1));
  lua_pop(L, 1);
  return s;
}

/* core.kernel_flatten(k, f [, opts]) -> {func, strategy, pruned, blocks} | nil, msg */
static int l_kernel_flatten(lua_State *L) {
  const cg_kernel *k = lcg_checkkernel(L, 1);
  int32_t f = lcg_checkkfunc(L, k, 2), *ind, *dep;
  uint32_t nas = 0, nind = 0, ndep = 0, b;
  int dret = -1, strategy, prune;
  cg_kassume *as;
  lflat *x;
  cg_error e;
  if (lua_isnoneornil(L, 3)) lua_settop(L, 2), lua_newtable(L);
  luaL_checktype(L, 3, LUA_TTABLE);
  lua_settop(L, 3);
  strategy = get_strategy(L);
  lua_getfield(L, 3, "prune");
  prune = lua_toboolean(L, -1);
  lua_pop(L, 1);
  as = lcg_kassumes(L, k, f, &nas); /* 4 */
  if (!as) return luaL_pushfail(L), lua_insert(L, -2), 2;
  ind = lcg_kparams(L, k, f, 3, "independents", &nind, NULL); /* 5 */
  dep = lcg_kparams(L, k, f, 3, "dependents", &ndep, &dret);  /* 6 */
  if (dep || dret > 0) dret = dret > 0;
  x = (lflat *)lcg_box(L, sizeof *x, flat_release); /* 7 */
  lcg_alloc(L, &x->A);
  lua_getfield(L, 3, "split"); /* 8 */
  if (lua_type(L, -1) == LUA_TSTRING) { /* a built-in strategy's name, as opts.strategy */
    if ((strategy = cg_kflat_strategy(lua_tostring(L, -1))) < 0)
      return luaL_error(L, "opts.split: '%s' is not a split strategy (minimal, statement, or a function)",
                        lua_tostring(L, -1));
    lua_pushnil(L), lua_replace(L, -2);
  }
  luaL_argexpected(L, lua_isnil(L, -1) || lua_isfunction(L, -1), 3, "a function as opts.split");
  lua_pushnil(L); /* 9: an error raised by opts.split */
  if (!(x->al = cg_kalias_run(&x->A, k, f, as, nas, &e))) return lcg_fail(L, &e);
  if (lcg_alias_override(L, x->al, &e)) return lcg_fail(L, &e);
  if (!(x->ch = cg_kchains_run(&x->A, x->al, &e))) return lcg_fail(L, &e);
  if (!(x->cfg = cg_kcfg_build(&x->A, k, f, &e))) return lcg_fail(L, &e);
  if (prune && !(x->ac = cg_kactive_run(&x->A, x->al, x->ch, ind, nind, dep, ndep, dret, &e)))
    return lcg_fail(L, &e);
  if (lua_isnil(L, SLOT_SPLIT)) x->fl = cg_kflat_run(&x->A, x->al, x->ch, x->cfg, x->ac, strategy, &e);
  else {
    hookctx h;
    h.L = L;
    x->fl = cg_kflat_run_hook(&x->A, x->al, x->ch, x->cfg, x->ac, split_cb, &h, &e);
  }
  if (!x->fl && !lua_isnil(L, SLOT_ERR)) return luaL_pushfail(L), lua_pushvalue(L, SLOT_ERR), 2;
  if (!x->fl) return lcg_fail(L, &e);
  lua_createtable(L, 0, 7);
  lua_pushstring(L, k->names[CG_KFUNC(k, f, NAME)]), lua_setfield(L, -2, "func");
  lua_pushstring(L, x->fl->strategy == CG_KFLAT_HOOK ? "lua" : cg_kflat_strategy_name(strategy));
  lua_setfield(L, -2, "strategy");
  lua_pushinteger(L, x->fl->nst_pruned), lua_setfield(L, -2, "pruned");
  lua_createtable(L, (int)x->fl->nblock, 0);
  for (b = 0; b < x->fl->nblock; b++) push_block(L, x->fl, x->cfg, b), lua_rawseti(L, -2, (lua_Integer)b + 1);
  lua_setfield(L, -2, "blocks");
  push_fn_independents(L, x->fl), lua_setfield(L, -2, "independents");
  push_fn_dependents(L, x->fl, x->cfg), lua_setfield(L, -2, "dependents");
  lua_pushvalue(L, 7), lua_pushlightuserdata(L, x), lua_pushvalue(L, 1); /* the kernel: kept, checked */
  lua_pushcclosure(L, l_graph, 3), lua_setfield(L, -2, "graph");
  lcg_kpoint_set(L, 7, &x->fl, 1); /* res.values, res.lingraph (lcg_kpoint.c) */
  return 1;
}

void lcg_open_kflat(lua_State *L) {
  lua_pushcfunction(L, l_kernel_flatten);
  lua_setfield(L, -2, "kernel_flatten");
}

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
@module cgwb.core
*/

/*** core.kernel_flatten(k, f [, opts]) -> {func, strategy, pruned, blocks} | nil, msg.
The basic blocks of function f flattened into term graphs (Utke, Flattening, Algorithm 2):
{func=, strategy=, pruned=, independents = {names}, dependents = {names}, blocks =
{{vertex=, block_statements=, lines=, dead=, n_subgraphs=, statement_level_subgraphs=,
subgraphs = {{lines=, statements=, vertices=, edges=, independents=, dependents=,
reads=}...}}...}} with three functions: graph(block, sub, values [, passive]) -> cgwb.Graph
of a subgraph; values(call [, opts]) -> the values of each subgraph's independents, passive
arguments and dependents when the interpreter runs call; lingraph(block, sub, values [,
passive]) -> the subgraph's cgwb.LinGraph and its vertex map (doc/flattening.md, "Values
at a point and linearized graphs"). opts: strategy ("minimal", "statement"), split (a
function info -> true to split, or a built-in strategy's name; an illegal join gives nil,
"FILE:LINE:COL: the split strategy joins ..."), assume, alias, prune, independents,
dependents. cgwb.flatten.run calls it.
@function kernel_flatten
*/

/* }==== */
