/* lcg_kanalysis.c: core.kernel_analyze(k, f, opts): the alias analysis,
 * ud/du-chains and activity of a kernel function as one plain table
 * (doc/kernel-analyses.md gives its shape). */
#include <stdlib.h>
#include <string.h>

#include "lcg.h"
#include "../kernel/cg_kactive.h"

/* What a call owns across Lua calls that may raise (the override, pushes):
 * a box, kept alive afterwards by the result's relation closure. */
typedef struct lanalysis {
  cg_alloc A; /* the state's allocator, which the analyses keep a pointer to */
  cg_kalias *al;
  cg_kchains *ch;
  cg_kactive *ac;
} lanalysis;

static void analysis_release(void *p, cg_alloc *A) {
  lanalysis *an = (lanalysis *)p;
  (void)A;
  cg_kactive_free(an->ac), cg_kchains_free(an->ch), cg_kalias_free(an->al);
  an->ac = NULL, an->ch = NULL, an->al = NULL;
}

/* {==== options ====} */

/* The parameter of f called name (its symbol), or -1. */
static int32_t param_named(const cg_kernel *k, int32_t f, const char *name, size_t len) {
  int32_t s0 = CG_KFUNC(k, f, SYM0), n = CG_KFUNC(k, f, NPARAM), s;
  for (s = s0; s < s0 + n; s++) {
    const char *nm = k->names[CG_KSYM(k, s, NAME)];
    if (strlen(nm) == len && !memcmp(nm, name, len)) return s;
  }
  return -1;
}

static const char *kfile(const cg_kernel *k) { return k->file ? k->file : "kernel"; }

/* Reads "a!=b" / "a==b" (spaces allowed) into *as; NULL or a message. */
static const char *read_assume(lua_State *L, const cg_kernel *k, int32_t f, const char *t,
                               cg_kassume *as) {
  const char *op = strstr(t, "!=");
  const char *eq = strstr(t, "==");
  const char *a = t, *ae, *b, *be;
  if (!op) op = eq;
  if (!op) return lua_pushfstring(L, "%s: assume '%s': expected 'a!=b' or 'a==b'", kfile(k), t);
  ae = op, b = op + 2, be = b + strlen(b);
  while (*a == ' ') a++;
  while (ae > a && ae[-1] == ' ') ae--;
  while (*b == ' ') b++;
  while (be > b && be[-1] == ' ') be--;
  as->a = param_named(k, f, a, (size_t)(ae - a));
  as->b = param_named(k, f, b, (size_t)(be - b));
  as->eq = op[0] == '=';
  if (as->a < 0 || as->b < 0 || !CG_KSYM(k, as->a, PTR) || !CG_KSYM(k, as->b, PTR) || as->a == as->b)
    return lua_pushfstring(L, "%s: assume '%s': not two pointer parameters of %s", kfile(k), t,
                           k->names[CG_KFUNC(k, f, NAME)]);
  return NULL;
}

/* opts[field] as parameter symbols (scratch pushed; NULL when absent);
 * "return" sets *ret. */
int32_t *lcg_kparams(lua_State *L, const cg_kernel *k, int32_t f, int opts, const char *field,
                            uint32_t *n, int *ret) {
  int32_t *ps;
  lua_Integer i, m;
  *n = 0;
  lua_getfield(L, opts, field);
  if (lua_isnil(L, -1)) { lua_pop(L, 1); lua_newuserdatauv(L, 1, 0); return NULL; }
  if (!lua_istable(L, -1)) luaL_error(L, "opts.%s: a table of parameter names expected", field);
  m = luaL_len(L, -1);
  ps = (int32_t *)lua_newuserdatauv(L, (size_t)m * sizeof *ps, 0);
  if (ret) *ret = 0;
  for (i = 1; i <= m; i++) {
    size_t len;
    const char *nm;
    lua_geti(L, -2, i);
    nm = luaL_tolstring(L, -1, &len);
    if (ret && !strcmp(nm, "return")) {
      if (CG_KFUNC(k, f, RET) != CG_KT_DOUBLE)
        luaL_error(L, "opts.%s: 'return': %s does not return a double", field, k->names[CG_KFUNC(k, f, NAME)]);
      *ret = 1, lua_pop(L, 2);
      continue;
    }
    ps[*n] = param_named(k, f, nm, len);
    if (ps[*n] < 0) luaL_error(L, "opts.%s: '%s' is not a parameter of %s", field, nm, k->names[CG_KFUNC(k, f, NAME)]);
    if (CG_KSYM(k, ps[*n], BASE) != CG_KT_DOUBLE) /* an int carries no derivative */
      luaL_error(L, "opts.%s: '%s' is an int parameter of %s (they are double parameters or pointers to double)",
                 field, nm, k->names[CG_KFUNC(k, f, NAME)]);
    (*n)++;
    lua_pop(L, 2);
  }
  lua_remove(L, -2);
  return ps;
}

/* }==== */

/* {==== the result ====} */

static const char *const kind_names[] = {"scalar", "array", "region", "global", "heap"};

static void push_objects(lua_State *L, const cg_kalias *al) {
  uint32_t o;
  lua_createtable(L, (int)al->nobj, 0);
  for (o = 0; o < al->nobj; o++) {
    lua_createtable(L, 0, 5);
    lua_pushstring(L, cg_kalias_obj_name(al, o)), lua_setfield(L, -2, "name");
    lua_pushstring(L, kind_names[al->obj_kind[o]]), lua_setfield(L, -2, "kind");
    lua_pushstring(L, al->obj_base[o] == CG_KT_INT ? "int" : "double"), lua_setfield(L, -2, "type");
    lua_pushinteger(L, al->obj_sym[o] + 1), lua_setfield(L, -2, "symbol");
    if (al->obj_cells[o] >= 0) lua_pushinteger(L, al->obj_cells[o]), lua_setfield(L, -2, "cells");
    lua_rawseti(L, -2, (lua_Integer)o + 1);
  }
}

static void push_set(lua_State *L, const cg_kalias *al, uint32_t s) {
  uint32_t i;
  char buf[256];
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, (lua_Integer)s + 1), lua_setfield(L, -2, "id");
  lua_createtable(L, (int)al->set_n[s], 0);
  for (i = 0; i < al->set_n[s]; i++) {
    cg_kalias_addr_text(al, &al->addr[al->set_off[s] + i], buf, sizeof buf);
    lua_pushstring(L, buf), lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "addresses");
  lua_pushboolean(L, al->set_exact[s]), lua_setfield(L, -2, "exact");
  lua_createtable(L, (int)al->set_n[s], 0);
  for (i = 0; i < al->set_n[s]; i++) {
    lua_pushinteger(L, al->addr[al->set_off[s] + i].obj + 1);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "objects");
}

static void push_access(lua_State *L, const cg_kalias *al, uint32_t a) {
  const cg_kernel *k = al->k;
  int32_t x = al->acc_expr[a], st = al->acc_stmt[a];
  char buf[512];
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, st + 1), lua_setfield(L, -2, "stmt");
  if (x >= 0) lua_pushinteger(L, x + 1), lua_setfield(L, -2, "expr");
  lua_pushstring(L, al->acc_kind[a] == CG_KA_USE ? "use" : "def"), lua_setfield(L, -2, "kind");
  lua_pushboolean(L, al->acc_may[a]), lua_setfield(L, -2, "may");
  lua_pushinteger(L, al->acc_set[a] + 1), lua_setfield(L, -2, "set");
  if (x >= 0) cg_kexpr_text(k, x, buf, sizeof buf);
  else buf[0] = 0;
  if (x >= 0 && (CG_KEXPR(k, x, TYPE) == CG_KT_PDOUBLE || CG_KEXPR(k, x, TYPE) == CG_KT_PINT))
    /* a call's pointer argument: the cells behind it */
    memmove(buf + 2, buf, strlen(buf) + 1 < sizeof buf - 3 ? strlen(buf) + 1 : sizeof buf - 3), buf[0] = '*', buf[1] = ' ';
  lua_pushstring(L, buf), lua_setfield(L, -2, "text");
  lua_pushinteger(L, x >= 0 ? CG_KEXPR(k, x, LINE) : CG_KSTMT(k, st, LINE)), lua_setfield(L, -2, "line");
  lua_pushinteger(L, x >= 0 ? CG_KEXPR(k, x, COL) : CG_KSTMT(k, st, COL)), lua_setfield(L, -2, "col");
}

/* A chain, C -1 ("outside") as 0, ids 1-based. */
static void push_chain(lua_State *L, const int32_t *v, uint32_t from, uint32_t to) {
  uint32_t i;
  lua_createtable(L, (int)(to - from), 0);
  for (i = from; i < to; i++) lua_pushinteger(L, v[i] + 1), lua_rawseti(L, -2, (lua_Integer)(i - from) + 1);
}

static int stmt_defines(const cg_kalias *al, uint32_t s) {
  int32_t a;
  for (a = cg_kalias_acc0(al, (int32_t)s); a >= 0 && a < cg_kalias_acc0(al, (int32_t)s) + cg_kalias_nacc(al, (int32_t)s); a++)
    if (al->acc_kind[a] == CG_KA_DEF) return 1;
  return 0;
}

static void push_chains(lua_State *L, const cg_kalias *al, const cg_kchains *ch) {
  uint32_t i;
  lua_createtable(L, 0, 2);
  lua_newtable(L);
  for (i = 0; i < al->nacc; i++)
    if (al->acc_kind[i] == CG_KA_USE) push_chain(L, ch->ud, ch->ud_off[i], ch->ud_off[i + 1]), lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_setfield(L, -2, "ud");
  lua_newtable(L);
  for (i = 0; i < ch->nstmt; i++) {
    uint32_t s = (uint32_t)ch->s_lo + i;
    if (CG_KSTMT(al->k, s, FUNC) == al->func && stmt_defines(al, s))
      push_chain(L, ch->du, ch->du_off[i], ch->du_off[i + 1]), lua_rawseti(L, -2, (lua_Integer)s + 1);
  }
  lua_setfield(L, -2, "du");
}

/* }==== */

/* {==== activity ====} */

typedef struct named { /* qsort has no context: the name travels with the id */
  const char *name;
  uint32_t id;
} named;
static int by_name(const void *a, const void *b) {
  const named *x = (const named *)a, *y = (const named *)b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* Names of the objects with mark == want (doubles of the function), sorted, distinct. */
static void push_names(lua_State *L, const cg_kalias *al, const uint8_t *mark, int want, named *ids) {
  uint32_t o, n = 0, i, m = 0;
  for (o = 0; o < al->nobj; o++)
    if (al->obj_base[o] == CG_KT_DOUBLE && !!mark[o] == want && al->obj_kind[o] != CG_KO_GLOBAL)
      ids[n].name = cg_kalias_obj_name(al, o), ids[n++].id = o;
  qsort(ids, n, sizeof *ids, by_name);
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    if (i && !strcmp(ids[i].name, ids[i - 1].name)) continue;
    lua_pushstring(L, ids[i].name), lua_rawseti(L, -2, (lua_Integer)++m);
  }
}

static void push_stmt_list(lua_State *L, const cg_kalias *al, const uint8_t *flag, int want) {
  uint32_t s;
  lua_Integer n = 0;
  lua_newtable(L);
  for (s = 0; s < al->ns; s++)
    if (CG_KSTMT(al->k, al->s_lo + (int32_t)s, FUNC) == al->func && !!flag[s] == want)
      lua_pushinteger(L, (lua_Integer)al->s_lo + s + 1), lua_rawseti(L, -2, ++n);
}

static void push_activity(lua_State *L, const cg_kalias *al, const cg_kactive *ac) {
  named *ids = (named *)lua_newuserdatauv(L, al->nobj * sizeof(named), 0);
  uint8_t *act = (uint8_t *)lua_newuserdatauv(L, al->nobj, 0);
  uint32_t a, i;
  int top = lua_gettop(L);
  memset(act, 0, al->nobj);
  for (a = 0; a < al->nacc; a++)
    for (i = 0; ac->acc_active[a] && i < al->set_n[al->acc_set[a]]; i++)
      act[al->addr[al->set_off[al->acc_set[a]] + i].obj] = 1;
  lua_createtable(L, 0, 8);
  push_names(L, al, ac->indep, 1, ids), lua_setfield(L, -2, "independents");
  push_names(L, al, ac->dep, 1, ids);
  if (ac->dep_return) lua_pushstring(L, "return"), lua_rawseti(L, -2, luaL_len(L, -2) + 1);
  lua_setfield(L, -2, "dependents");
  push_stmt_list(L, al, ac->active, 1), lua_setfield(L, -2, "active_stmts");
  push_stmt_list(L, al, ac->active, 0), lua_setfield(L, -2, "passive_stmts");
  push_stmt_list(L, al, ac->varied, 1), lua_setfield(L, -2, "varied_stmts");
  push_stmt_list(L, al, ac->useful, 1), lua_setfield(L, -2, "useful_stmts");
  push_names(L, al, act, 1, ids), lua_setfield(L, -2, "active_symbols");
  push_names(L, al, act, 0, ids), lua_setfield(L, -2, "passive_symbols");
  lua_newtable(L);
  for (a = 0, i = 0; a < al->nacc; a++)
    if (ac->acc_active[a]) lua_pushinteger(L, (lua_Integer)a + 1), lua_rawseti(L, -2, ++i);
  lua_setfield(L, -2, "active_accesses");
  lua_remove(L, top - 1), lua_remove(L, top - 1);
}

/* }==== */

/* {==== overrides ====} */

/* What an override call needs (lcg_alias_overrides): the pair, how to push
 * the function and its arguments, the caller's values handed to it, and the
 * caller's slot for what stopped the analysis. */
typedef struct ovcall {
  lua_State *L;
  lcg_alias_push push;
  void *ud;
  const cg_kalias *al;
  uint32_t s1, s2;
  int vals[LCG_ALIAS_VALS], nval;
  int slot;   /* the caller's stack index of the error or the bad answer's text */
  int failed; /* 0, OV_RAISED or OV_BAD */
} ovcall;

enum { OV_RAISED = 1, OV_BAD = 2 };

/* Protected: (call, values...) -> the override's answer as a relation
 * (CG_KREL_NO, CG_KREL_MUST, -1), or that and the answer as text when it is
 * not "no", "must", "may" or nil. */
static int call_override(lua_State *L) {
  ovcall *c = (ovcall *)lua_touserdata(L, 1);
  const char *r;
  int rel = -1;
  c->push(L, 2, c->al, c->s1, c->s2, c->ud);
  lua_call(L, 2, 1);
  r = lua_tostring(L, -1);
  if (r && !strcmp(r, "no")) rel = CG_KREL_NO;
  if (r && !strcmp(r, "must")) rel = CG_KREL_MUST;
  lua_pushinteger(L, rel);
  if (!lua_isnil(L, -2) && !(r && (!strcmp(r, "no") || !strcmp(r, "must") || !strcmp(r, "may")))) {
    luaL_tolstring(L, -2, NULL);
    return 2;
  }
  return 1;
}

/* The callback of cg_kalias_override_all: the override runs under
 * lua_pcall, so no Lua error jumps through the core's frames; what stops
 * the analysis is kept in the caller's slot, for lcg_alias_overrides to
 * raise once the core has returned. */
static int override_cb(void *ud, const cg_kalias *al, uint32_t s1, uint32_t s2, cg_error *e) {
  ovcall *c = (ovcall *)ud;
  lua_State *L = c->L;
  int i, rel;
  if (!lua_checkstack(L, 3 + c->nval)) return cg_seterr(e, CG_ERUNTIME, "opts.alias: the Lua stack is full");
  c->al = al, c->s1 = s1, c->s2 = s2;
  lua_pushcfunction(L, call_override);
  lua_pushlightuserdata(L, c);
  for (i = 0; i < c->nval; i++) lua_pushvalue(L, c->vals[i]);
  if (lua_pcall(L, 1 + c->nval, 2, 0) != LUA_OK) {
    lua_replace(L, c->slot);
    c->failed = OV_RAISED;
    return cg_seterr(e, CG_ERUNTIME, "opts.alias raised an error");
  }
  if (lua_type(L, -1) == LUA_TSTRING) {
    lua_replace(L, c->slot), lua_pop(L, 1);
    c->failed = OV_BAD;
    return cg_seterr(e, CG_ERUNTIME, "opts.alias: a bad answer");
  }
  rel = (int)lua_tointeger(L, -2);
  lua_pop(L, 2);
  return rel;
}

int lcg_alias_overrides(lua_State *L, cg_kalias *al, lcg_alias_push push, void *ud, const int *vals,
                        int nval, cg_error *e) {
  ovcall c;
  int i, rc;
  memset(&c, 0, sizeof c);
  c.L = L, c.push = push, c.ud = ud, c.nval = nval;
  for (i = 0; i < nval && i < LCG_ALIAS_VALS; i++) c.vals[i] = lua_absindex(L, vals[i]);
  lua_pushnil(L);
  c.slot = lua_gettop(L);
  rc = cg_kalias_override_all(al, override_cb, &c, e);
  if (c.failed == OV_RAISED) return lua_error(L); /* the error, at the top */
  if (c.failed == OV_BAD)
    return luaL_error(L, "opts.alias: returned %s; expected \"no\", \"must\", \"may\" or nil",
                      lua_tostring(L, c.slot));
  lua_pop(L, 1);
  return rc;
}

/* The accesses of the sets (CSR), and the stack index of the table of every
 * access's table. */
typedef struct ovctx {
  int accs;
  uint32_t *off, *acc;
} ovctx;

/* A set as the override sees it: push_set's fields plus its accesses' tables. */
static void push_set_for(lua_State *L, const cg_kalias *al, const ovctx *o, uint32_t s) {
  uint32_t i;
  push_set(L, al, s);
  lua_createtable(L, (int)(o->off[s + 1] - o->off[s]), 0);
  for (i = o->off[s]; i < o->off[s + 1]; i++)
    lua_geti(L, o->accs, (lua_Integer)o->acc[i] + 1), lua_rawseti(L, -2, (lua_Integer)(i - o->off[s]) + 1);
  lua_setfield(L, -2, "accesses");
}

/* opts.alias(set1, set2), protected: the function at base, the accesses'
 * table at base + 1. */
static void push_sets_for(lua_State *L, int base, const cg_kalias *al, uint32_t s1, uint32_t s2,
                          void *ud) {
  ovctx o = *(const ovctx *)ud;
  o.accs = base + 1;
  lua_pushvalue(L, base);
  push_set_for(L, al, &o, s1), push_set_for(L, al, &o, s2);
}

/* Calls opts.alias (at fn) for every "may" pair; accesses at accs. */
static void run_overrides(lua_State *L, lanalysis *an, int fn, int accs) {
  const cg_kalias *al = an->al;
  ovctx o;
  cg_error e;
  int vals[2];
  uint32_t a, s, *off = (uint32_t *)lua_newuserdatauv(L, ((size_t)al->nset + 1 + al->nacc) * sizeof(uint32_t), 0);
  o.accs = accs, o.off = off, o.acc = off + al->nset + 1;
  memset(off, 0, ((size_t)al->nset + 1) * sizeof *off);
  for (a = 0; a < al->nacc; a++) off[al->acc_set[a] + 1]++;
  for (s = 0; s < al->nset; s++) off[s + 1] += off[s];
  for (a = 0; a < al->nacc; a++) o.acc[off[al->acc_set[a]]++] = a;
  for (s = al->nset; s > 0; s--) off[s] = off[s - 1];
  off[0] = 0;
  vals[0] = fn, vals[1] = accs;
  if (lcg_alias_overrides(L, an->al, push_sets_for, &o, vals, 2, &e)) lcg_fail(L, &e), lua_error(L);
  lua_pop(L, 1);
}

/* }==== */

static const char *const rel_names[] = {"no", "may", "must"};

/* relation(s1, s2) -> "no" | "may" | "must" (upvalues: the box, its payload). */
static int l_relation(lua_State *L) {
  const lanalysis *an = (const lanalysis *)lua_touserdata(L, lua_upvalueindex(2));
  uint32_t s1, s2;
  if (!an->al) return luaL_error(L, "relation: the analysis was released");
  s1 = lcg_check_id(L, 1, an->al->nset, "set"), s2 = lcg_check_id(L, 2, an->al->nset, "set");
  lua_pushstring(L, rel_names[cg_kalias_relation(an->al, s1, s2)]);
  return 1;
}

/* Pushes alias = {objects, sets, accesses, relation, stats}; leaves the
 * accesses table's index in *accs. */
static void push_alias(lua_State *L, const cg_kalias *al, int box) {
  uint32_t i;
  lua_createtable(L, 0, 5);
  push_objects(L, al), lua_setfield(L, -2, "objects");
  lua_createtable(L, (int)al->nset, 0);
  for (i = 0; i < al->nset; i++) push_set(L, al, i), lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_setfield(L, -2, "sets");
  lua_createtable(L, (int)al->nacc, 0);
  for (i = 0; i < al->nacc; i++) push_access(L, al, i), lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_setfield(L, -2, "accesses");
  lua_pushvalue(L, box), lua_pushlightuserdata(L, lua_touserdata(L, box + 1));
  lua_pushcclosure(L, l_relation, 2), lua_setfield(L, -2, "relation");
}

static void push_overrides(lua_State *L, const cg_kalias *al) {
  uint32_t i;
  lua_createtable(L, (int)al->nover, 0);
  for (i = 0; i < al->nover; i++) {
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, al->over_u[i] + 1), lua_setfield(L, -2, "u");
    lua_pushinteger(L, al->over_v[i] + 1), lua_setfield(L, -2, "v");
    lua_pushstring(L, rel_names[al->over_rel[i]]), lua_setfield(L, -2, "answer");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* nset0: the sets before the chains widened some (alias.sets lists those). */
static void push_stats(lua_State *L, const lanalysis *an, uint32_t nset0) {
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, an->al->nobj), lua_setfield(L, -2, "objects");
  lua_pushinteger(L, nset0), lua_setfield(L, -2, "sets");
  lua_pushinteger(L, an->al->nset - nset0), lua_setfield(L, -2, "widened_sets");
  lua_pushinteger(L, an->al->nacc), lua_setfield(L, -2, "accesses");
  lua_pushinteger(L, an->al->nvn), lua_setfield(L, -2, "values");
  lua_pushinteger(L, an->ch->passes), lua_setfield(L, -2, "loop_passes");
}

/* Reads opts.assume into the userdata it pushes; on bad input pushes a
 * message instead of the userdata and returns NULL. */
cg_kassume *lcg_kassumes(lua_State *L, const cg_kernel *k, int32_t f, uint32_t *n) {
  lua_Integer i, m;
  cg_kassume *as;
  lua_getfield(L, 3, "assume");
  m = lua_isnil(L, -1) ? 0 : (luaL_argexpected(L, lua_istable(L, -1), 3, "opts.assume as a table"), luaL_len(L, -1));
  as = (cg_kassume *)lua_newuserdatauv(L, (size_t)m * sizeof *as, 0);
  for (i = 1; i <= m; i++) {
    const char *msg;
    lua_geti(L, -2, i);
    if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "opts.assume[%d]: a string expected", (int)i);
    msg = read_assume(L, k, f, lua_tostring(L, -1), &as[i - 1]);
    if (msg) return NULL; /* the message is on top */
    lua_pop(L, 1);
  }
  lua_remove(L, -2);
  *n = (uint32_t)m;
  return as;
}

/* core.kernel_analyze(k, f [, opts]) -> {func, alias, chains, activity, stats} | nil, msg */
static int l_kernel_analyze(lua_State *L) {
  const cg_kernel *k = lcg_checkkernel(L, 1);
  int32_t f = lcg_checkkfunc(L, k, 2), *ind, *dep;
  uint32_t nas = 0, nind = 0, ndep = 0, nset0;
  int dret = -1, box;
  cg_kassume *as;
  lanalysis *an;
  cg_error e;
  if (lua_isnoneornil(L, 3)) lua_settop(L, 2), lua_newtable(L);
  luaL_checktype(L, 3, LUA_TTABLE);
  lua_settop(L, 3);
  as = lcg_kassumes(L, k, f, &nas); /* 4 */
  if (!as) return luaL_pushfail(L), lua_insert(L, -2), 2;
  ind = lcg_kparams(L, k, f, 3, "independents", &nind, NULL); /* 5 */
  dep = lcg_kparams(L, k, f, 3, "dependents", &ndep, &dret);  /* 6 */
  if (dep || dret > 0) dret = dret > 0; /* naming dependents names "return" or leaves it out */
  an = (lanalysis *)lcg_box(L, sizeof *an, analysis_release); /* 7 */
  box = lua_gettop(L);
  lcg_alloc(L, &an->A);
  lua_pushlightuserdata(L, an); /* 8: the payload, for the closure */
  if (!(an->al = cg_kalias_run(&an->A, k, f, as, nas, &e))) return lcg_fail(L, &e);
  lua_createtable(L, 0, 6); /* 9: the result */
  lua_pushstring(L, k->names[CG_KFUNC(k, f, NAME)]), lua_setfield(L, -2, "func");
  push_alias(L, an->al, box);
  lua_getfield(L, 3, "alias");
  if (!lua_isnil(L, -1)) {
    luaL_argexpected(L, lua_isfunction(L, -1), 3, "a function as opts.alias");
    lua_getfield(L, -2, "accesses");
    run_overrides(L, an, lua_gettop(L) - 1, lua_gettop(L));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  push_overrides(L, an->al), lua_setfield(L, -2, "assumed");
  lua_setfield(L, -2, "alias");
  nset0 = an->al->nset;
  if (!(an->ch = cg_kchains_run(&an->A, an->al, &e))) return lcg_fail(L, &e);
  push_chains(L, an->al, an->ch), lua_setfield(L, -2, "chains");
  if (!(an->ac = cg_kactive_run(&an->A, an->al, an->ch, ind, nind, dep, ndep, dret, &e))) return lcg_fail(L, &e);
  push_activity(L, an->al, an->ac), lua_setfield(L, -2, "activity");
  push_stats(L, an, nset0), lua_setfield(L, -2, "stats");
  return 1;
}

void lcg_open_kanalysis(lua_State *L) {
  lua_pushcfunction(L, l_kernel_analyze);
  lua_setfield(L, -2, "kernel_analyze");
}

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
@module cgwb.core
*/

/*** core.kernel_analyze(k, f [, opts]) -> {func, alias, chains, activity, stats} | nil, msg.
The analyses of function f (a name or 1-based id) of kernel k, one plain table (the kernel
analyses; doc/kernel-analyses.md gives the whole shape): alias = {objects, sets (address
sets), accesses, relation = function(s1, s2) -> "no"|"may"|"must", assumed}; chains = {ud, du}
(reaching definitions, Hovland, Norris, Utke & Strout); activity = {independents,
dependents, active_stmts, passive_stmts, varied_stmts, useful_stmts, active_symbols,
passive_symbols, active_accesses}; stats = {objects, sets, widened_sets, accesses}.
opts: assume ({"a!=b", ...}), alias (a function answering "may" pairs with "no" or "must"),
independents and dependents (parameter names, for activity). k:analyze(f, opts) of
cgwb.kernel calls it.
@function kernel_analyze
*/

/* }==== */
