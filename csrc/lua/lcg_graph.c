/* lcg_graph.c: the cgwb.Graph userdata. Node ids seen from Lua are 1-based. */
#include <stdlib.h>
#include <string.h>

#include "../graph/cg_gbuild.h"
#include "../graph/cg_gtape.h"
#include "lcg.h"

#define LCG_GRAPH "cgwb.Graph"
#define LCG_GBUILD "cgwb.GraphBuilder"

typedef struct lgraph {
  cg_graph *g;
  cg_alloc A;
  uint32_t *height, *depth; /* computed on first use */
} lgraph;

static void g_release(lgraph *u) {
  if (!u->g) return;
  CG_FREE(&u->A, u->height, uint32_t, u->g->n);
  CG_FREE(&u->A, u->depth, uint32_t, u->g->n);
  cg_graph_free(u->g);
  u->g = NULL;
  u->height = u->depth = NULL;
}

static int g_free(lua_State *L) {
  g_release((lgraph *)luaL_checkudata(L, 1, LCG_GRAPH));
  return 0;
}

static lgraph *checkgraph(lua_State *L, int idx) {
  lgraph *u = (lgraph *)luaL_checkudata(L, idx, LCG_GRAPH);
  if (!u->g) luaL_argerror(L, idx, "cgwb.Graph used after free()");
  return u;
}

cg_graph *lcg_checkgraph(lua_State *L, int idx) { return checkgraph(L, idx)->g; }

cg_graph *lcg_graph_of(lua_State *L, int idx) {
  lgraph *u = (lgraph *)luaL_testudata(L, idx, LCG_GRAPH);
  return u ? u->g : NULL;
}

/* A 1-based node id argument, as a 0-based index. */
static uint32_t checknode(lua_State *L, lgraph *u, int idx) {
  return lcg_check_id(L, idx, u->g->n, "node");
}

static int optbool(lua_State *L, int t, const char *k, int def) {
  int r;
  if (lua_getfield(L, t, k) == LUA_TNIL) r = def;
  else r = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return r;
}

/* The builder's switches from the optional table at t (all on by default)
 * and its memory limit (mem_limit=, else the state's: lcg_budget). */
static void get_gopts(lua_State *L, int t, cg_gopts *o) {
  cg_gopts_default(o);
  o->mem_limit = lcg_budget(L)->limit;
  if (lua_isnoneornil(L, t)) return;
  luaL_checktype(L, t, LUA_TTABLE);
  o->assign_removal = optbool(L, t, "assign_removal", 1);
  o->hoist = optbool(L, t, "hoist", 1);
  o->dead_roots = optbool(L, t, "dead_roots", 1);
  o->recover_hoists = optbool(L, t, "recover_hoists", 1);
  o->guards = optbool(L, t, "guards", 1);
  o->death_unlink = optbool(L, t, "death_unlink", 1);
  if (lua_getfield(L, t, "mem_limit") != LUA_TNIL) {
    lua_Integer m = luaL_checkinteger(L, -1);
    luaL_argcheck(L, m >= 0, t, "mem_limit must be >= 0");
    o->mem_limit = (uint64_t)m;
  }
  lua_pop(L, 1);
}

/* core.build_graph(tape [, {assign_removal=, hoist=, dead_roots=,
 *   recover_hoists=, guards=, death_unlink=, mem_limit=, at={x...}}])
 *   -> Graph, branch changes, first changed record | nil, msg.  mem_limit:
 *   bytes (0 = none), by default the state's memory limit (lcg_budget). */
static int l_build_graph(lua_State *L) {
  ltape *t = lcg_checktape(L, 1);
  cg_gopts o;
  const double *x = NULL;
  lgraph *u;
  cg_error e;
  get_gopts(L, 2, &o);
  if (!lua_isnoneornil(L, 2)) {
    if (lua_getfield(L, 2, "at") != LUA_TNIL) {
      size_t n;
      x = lcg_numbers(L, -1, &n); /* stays on the stack */
      if (n != t->t->n_indep)
        return luaL_error(L, "at: %d values for %d independents", (int)n, (int)t->t->n_indep);
    }
  }
  u = (lgraph *)lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  lcg_alloc(L, &u->A);
  luaL_setmetatable(L, LCG_GRAPH);
  u->g = cg_graph_build(&u->A, t->t, x, &o, &e);
  if (!u->g) return lcg_fail(L, &e);
  lcg_push_branch(L, &u->g->branch);
  lua_pop(L, 1); /* the opcode's name: g:branch_changes() has it */
  return 3;
}

/* g:branch_changes() -> count, first record (1-based) or nil, its opcode or
 * nil: the branch records and conditionals whose outcome at the point the
 * graph was built at differs from taping (0 at the tape's own point). */
static int g_branch_changes(lua_State *L) {
  return lcg_push_branch(L, &checkgraph(L, 1)->g->branch);
}

static int g_n(lua_State *L) {
  lua_pushinteger(L, checkgraph(L, 1)->g->n);
  return 1;
}

static int g_independents(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  lcg_push_ids(L, u->g->indep, u->g->n_indep);
  return 1;
}

static int g_dependents(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  lcg_push_ids(L, u->g->dep, u->g->n_dep);
  return 1;
}

/* Nodes without parents (roots) or without children (leaves), in id order. */
static int g_select(lua_State *L, int roots) {
  lgraph *u = checkgraph(L, 1);
  const cg_graph *g = u->g;
  uint32_t v;
  lua_Integer k = 0;
  lua_newtable(L);
  for (v = 0; v < g->n; v++) {
    int none = roots ? g->par_start[v] == g->par_start[v + 1] : g->kid_start[v] == g->kid_start[v + 1];
    if (none) {
      lcg_push_id(L, v);
      lua_rawseti(L, -2, ++k);
    }
  }
  return 1;
}

static int g_roots(lua_State *L) { return g_select(L, 1); }
static int g_leaves(lua_State *L) { return g_select(L, 0); }

static int g_children(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  uint32_t v = checknode(L, u, 2);
  lcg_push_ids(L, u->g->kids + u->g->kid_start[v], u->g->kid_start[v + 1] - u->g->kid_start[v]);
  return 1;
}

static int g_parents(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  uint32_t v = checknode(L, u, 2);
  lcg_push_ids(L, u->g->pars + u->g->par_start[v], u->g->par_start[v + 1] - u->g->par_start[v]);
  return 1;
}

/* g:chain(i) -> {"add", "exp"}, {constants} */
static int g_chain(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  uint32_t v = checknode(L, u, 2), o, k = 0;
  const cg_graph *g = u->g;
  lua_createtable(L, (int)(g->op_start[v + 1] - g->op_start[v]), 0);
  lua_createtable(L, (int)(g->op_start[v + 1] - g->op_start[v]), 0);
  for (o = g->op_start[v]; o < g->op_start[v + 1]; o++) {
    k++;
    lua_pushstring(L, cg_gop(g->op[o])->name);
    lua_rawseti(L, -3, k);
    lua_pushnumber(L, g->opc[o]);
    lua_rawseti(L, -2, k);
  }
  return 2;
}

static int g_value(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  uint32_t v = checknode(L, u, 2);
  if (!u->g->has_val) return luaL_pushfail(L), 1;
  lua_pushnumber(L, u->g->val[v]);
  return 1;
}

static int g_flags(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  uint32_t v = checknode(L, u, 2);
  uint8_t f = u->g->flags[v];
  lua_createtable(L, 0, 3);
  lua_pushboolean(L, f & CG_NF_DEP);
  lua_setfield(L, -2, "dependent");
  lua_pushboolean(L, f & CG_NF_GUARD);
  lua_setfield(L, -2, "guarded");
  lua_pushboolean(L, f & CG_NF_BOGUS);
  lua_setfield(L, -2, "uninitialized");
  return 1;
}

/* Heights or depths, computed once per graph. */
static uint32_t *levels(lua_State *L, lgraph *u, int depth) {
  uint32_t **slot = depth ? &u->depth : &u->height;
  cg_error e;
  if (!*slot) {
    uint32_t *a = CG_NEW(&u->A, uint32_t, u->g->n);
    if (!a) lcg_nomem(L, depth ? "depth" : "height");
    if (depth) cg_graph_depths(u->g, a, &e);
    else cg_graph_heights(u->g, a, &e);
    *slot = a;
  }
  return *slot;
}

static int g_height(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  uint32_t v = checknode(L, u, 2);
  lua_pushinteger(L, levels(L, u, 0)[v]);
  return 1;
}

static int g_depth(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  uint32_t v = checknode(L, u, 2);
  lua_pushinteger(L, levels(L, u, 1)[v]);
  return 1;
}

/* g:eval([x]) -> {y...}, branch changes, first node (1-based) | nil, msg */
static int g_eval(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  const double *x = lcg_optpoint(L, 2, u->g->n_indep, "eval");
  double *y = (double *)lua_newuserdatauv(L, (size_t)u->g->n_dep * 8, 0);
  cg_branch br;
  cg_error e;
  if (cg_graph_eval(u->g, x, NULL, y, &br, &e)) return lcg_fail(L, &e);
  return lcg_push_evaluation(L, y, u->g->n_dep, &br);
}

static void set_int(lua_State *L, const char *k, uint64_t v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

/* Histogram of counts (index i+1 holds the nodes with i items). */
static void push_hist(lua_State *L, const uint32_t *start, uint32_t n) {
  uint32_t v, maxc = 0, *h;
  for (v = 0; v < n; v++)
    if (start[v + 1] - start[v] > maxc) maxc = start[v + 1] - start[v];
  h = (uint32_t *)lua_newuserdatauv(L, (size_t)(maxc + 1) * 4, 0);
  memset(h, 0, (size_t)(maxc + 1) * 4);
  for (v = 0; v < n; v++) h[start[v + 1] - start[v]]++;
  lua_createtable(L, (int)maxc + 1, 0);
  for (v = 0; v <= maxc; v++) {
    lua_pushinteger(L, h[v]);
    lua_rawseti(L, -2, (lua_Integer)v + 1);
  }
  lua_remove(L, -2);
}

/* g:stats() -> the numbers of Tables 2 and 4 of Bischof & Hu 1991, histograms, memory */
static int g_stats(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  const cg_graph *g = u->g;
  const cg_gstats *s = &g->st;
  cg_gmem m;
  lua_newtable(L);
  set_int(L, "tape_operations", s->tape_ops);
  set_int(L, "assignments_removed", s->assign_removed);
  set_int(L, "dead_opcodes", s->dead_ops);
  set_int(L, "dead_nodes", s->dead_nodes);
  set_int(L, "hoisted_opcodes", s->hoisted_ops);
  set_int(L, "hoists", s->hoists);
  set_int(L, "hoists_recovered", s->hoists_recovered);
  set_int(L, "nodes", g->n);
  set_int(L, "opcodes", g->op_start[g->n]);
  set_int(L, "edges", g->kid_start[g->n]);
  set_int(L, "nodes_created", s->nodes_created);
  set_int(L, "opcodes_created", s->ops_created);
  set_int(L, "dependents", g->n_dep);
  set_int(L, "independents", g->n_indep);
  set_int(L, "guards", g->n_guard);
  set_int(L, "uninitialized_reads", s->bogus);
  set_int(L, "death_notices", s->death_notices);
  set_int(L, "peak_nodes", s->peak_nodes);
  push_hist(L, g->op_start, g->n);
  lua_setfield(L, -2, "opcodes_per_node");
  push_hist(L, g->par_start, g->n);
  lua_setfield(L, -2, "parents_per_node");
  push_hist(L, g->kid_start, g->n);
  lua_setfield(L, -2, "children_per_node");
  cg_graph_memory(g, &m);
  lua_createtable(L, 0, 6);
  set_int(L, "nodes", m.nodes);
  set_int(L, "children", m.kids);
  set_int(L, "parents", m.parents);
  set_int(L, "opcodes", m.ops);
  set_int(L, "values", m.values);
  set_int(L, "total", m.total);
  lua_setfield(L, -2, "memory");
  return 1;
}

static int g_warnings(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  if (u->g->warnings) lua_pushstring(L, u->g->warnings);
  else lua_pushliteral(L, "");
  return 1;
}

/* Writes DOT or a text dump to a file (path) or returns it as a string. */
static int g_output(lua_State *L, int dot) {
  lgraph *u = checkgraph(L, 1);
  const char *path = luaL_optstring(L, 2, NULL);
  uint32_t root = lua_isnoneornil(L, 3) ? UINT32_MAX : checknode(L, u, 3);
  lua_Integer lim = luaL_optinteger(L, 4, 500);
  uint32_t limit = lim > (lua_Integer)UINT32_MAX ? UINT32_MAX : (uint32_t)lim;
  lcg_sink *out;
  cg_error e;
  int rc;
  luaL_argcheck(L, lim >= 1, 4, "the limit must be at least 1 node");
  if (!(out = lcg_sink_open(L, path, &e))) return lcg_fail(L, &e);
  rc = dot ? cg_graph_dot(u->g, root, limit, out->fp) : cg_graph_print(u->g, root, limit, out->fp);
  if (rc) cg_seterr(&e, rc, "%s: cannot write the graph", path ? path : "(string)");
  return lcg_sink_close(L, out, rc, &e);
}

static int g_dot(lua_State *L) { return g_output(L, 1); }
static int g_print(lua_State *L) { return g_output(L, 0); }

/* g:to_tape() -> the graph written back as a cgwb.Tape (Table 3) */
static int g_to_tape(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  ltape *t = lcg_newtape(L);
  cg_error e;
  t->t = cg_graph_to_tape(u->g, &e);
  if (!t->t) return lcg_fail(L, &e);
  t->t->A = &t->A; /* the same Lua allocator, owned by the tape: the graph may go first */
  return 1;
}

/* for id in g:nodes() do ... end (ids in topological order) */
static int nodes_step(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2) + 1;
  if (i > (lua_Integer)u->g->n) return 0;
  lua_pushinteger(L, i);
  return 1;
}

static int g_nodes(lua_State *L) {
  checkgraph(L, 1);
  lua_pushcfunction(L, nodes_step);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

/* Pushes origin o as "file:line:col" or "record N" (1-based), or nil. */
static void push_origin(lua_State *L, const cg_graph *g, const cg_origin *o) {
  if (o->kind == CG_ORIGIN_SOURCE)
    lua_pushfstring(L, "%s:%d:%d", o->file < g->n_file ? g->file[o->file] : "?", (int)o->line,
                    (int)o->col);
  else if (o->kind == CG_ORIGIN_RECORD)
    lua_pushfstring(L, "record %I", (lua_Integer)o->record + 1);
  else
    lua_pushnil(L);
}

/* g:origin(i) -> "file:line:col" | "record N" | nil (built without origins) */
static int g_origin(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  uint32_t v = checknode(L, u, 2);
  if (!u->g->origin) return luaL_pushfail(L), 1;
  push_origin(L, u->g, &u->g->origin[v]);
  return 1;
}

/* g:guards() -> {{node=, kind=, taped=, record=, origin=}...}: node 1-based,
 * kind "gt_zero" ... or "value", record the tape record (1-based; nil for a
 * guard the builder made under no record origin), origin as g:origin (only
 * for a graph made through the builder). */
static int g_guards(lua_State *L) {
  lgraph *u = checkgraph(L, 1);
  const cg_graph *g = u->g;
  uint32_t k;
  lua_createtable(L, (int)g->n_guard, 0);
  for (k = 0; k < g->n_guard; k++) {
    const cg_guard *gd = &g->guard[k];
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, (lua_Integer)gd->node + 1);
    lua_setfield(L, -2, "node");
    lua_pushstring(L, cg_guard_kind_name(gd->kind));
    lua_setfield(L, -2, "kind");
    lua_pushnumber(L, gd->taped);
    lua_setfield(L, -2, "taped");
    if (!g->guard_origin || g->guard_origin[k].kind == CG_ORIGIN_RECORD) { /* a tape's, or given */
      lua_pushinteger(L, (lua_Integer)gd->record + 1);
      lua_setfield(L, -2, "record");
    }
    if (g->guard_origin) {
      push_origin(L, g, &g->guard_origin[k]);
      lua_setfield(L, -2, "origin");
    }
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  return 1;
}

static int g_tostring(lua_State *L) {
  lgraph *u = (lgraph *)luaL_checkudata(L, 1, LCG_GRAPH);
  if (!u->g) lua_pushliteral(L, "cgwb.Graph (freed)");
  else lua_pushfstring(L, "cgwb.Graph (%d nodes, %d independents, %d dependents)", (int)u->g->n,
                       (int)u->g->n_indep, (int)u->g->n_dep);
  return 1;
}

static const luaL_Reg graph_methods[] = {
    {"n", g_n},           {"independents", g_independents}, {"dependents", g_dependents},
    {"roots", g_roots},   {"leaves", g_leaves},             {"children", g_children},
    {"parents", g_parents}, {"chain", g_chain},             {"value", g_value},
    {"flags", g_flags},   {"height", g_height},             {"depth", g_depth},
    {"eval", g_eval},     {"branch_changes", g_branch_changes},     {"stats", g_stats},               {"warnings", g_warnings},
    {"dot", g_dot},       {"print", g_print},               {"to_tape", g_to_tape},
    {"nodes", g_nodes},   {"free", g_free},                 {"origin", g_origin},
    {"guards", g_guards}, {NULL, NULL}};

static const luaL_Reg graph_meta[] = {{"__gc", g_free}, {"__close", g_free},
                                      {"__tostring", g_tostring}, {"__len", g_n},
                                      {NULL, NULL}};

/* {==== cgwb.GraphBuilder: the graph-building interface (cg_gbuild.h) ====} */

/* The builder and what it points to: its allocator and error live here, so
 * they outlive it. */
typedef struct lgbuild {
  cg_gbuild *b;
  cg_alloc A;
  cg_error e;
} lgbuild;

static int b_free(lua_State *L) {
  lgbuild *u = (lgbuild *)luaL_checkudata(L, 1, LCG_GBUILD);
  cg_gbuild_abort(u->b);
  u->b = NULL;
  return 0;
}

static lgbuild *checkbuilder(lua_State *L) {
  lgbuild *u = (lgbuild *)luaL_checkudata(L, 1, LCG_GBUILD);
  if (!u->b) luaL_argerror(L, 1, "cgwb.GraphBuilder used after finish() or free()");
  return u;
}

/* A location argument: an integer >= 0 (else nil, message through *bad). */
static int checkloc(lua_State *L, lgbuild *u, int idx, uint64_t *loc) {
  lua_Integer l = luaL_checkinteger(L, idx);
  *loc = 0;
  if (l < 0) return cg_seterr(&u->e, CG_EUSAGE, "location %d is negative", (int)l);
  *loc = (uint64_t)l;
  return CG_OK;
}

/* The result of a verb: true, or nil and the message. */
static int verb_result(lua_State *L, lgbuild *u, int rc) {
  if (rc) return lcg_fail(L, &u->e);
  lua_pushboolean(L, 1);
  return 1;
}

/* core.graph_builder([{assign_removal=, hoist=, dead_roots=, recover_hoists=,
 *   guards=, death_unlink=, values=true, name=}]) -> cgwb.GraphBuilder */
static int l_graph_builder(lua_State *L) {
  cg_gopts o;
  cg_ghints h;
  int values = 1;
  lgbuild *u;
  get_gopts(L, 1, &o);
  memset(&h, 0, sizeof h);
  if (!lua_isnoneornil(L, 1)) {
    values = optbool(L, 1, "values", 1);
    if (lua_getfield(L, 1, "name") != LUA_TNIL) h.name = luaL_checkstring(L, -1);
    lua_pop(L, 1); /* (the table keeps the string alive while begin copies it) */
  }
  u = (lgbuild *)lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  lcg_alloc(L, &u->A);
  luaL_setmetatable(L, LCG_GBUILD);
  if (!(u->b = cg_gbuild_begin(&u->A, &o, values, &h, &u->e))) return lcg_fail(L, &u->e);
  return 1;
}

/* b:origin("file", line, col) or b:origin(record): where what follows comes from
 * (record 1-based, as g:branch_changes reports them). */
static int b_origin(lua_State *L) {
  lgbuild *u = checkbuilder(L);
  cg_origin o;
  int rc;
  memset(&o, 0, sizeof o);
  if (lua_type(L, 2) == LUA_TSTRING) {
    lua_Integer line = luaL_optinteger(L, 3, 0), col = luaL_optinteger(L, 4, 0);
    luaL_argcheck(L, line >= 0 && line <= (lua_Integer)UINT32_MAX, 3, "line out of range");
    luaL_argcheck(L, col >= 0 && col <= (lua_Integer)UINT32_MAX, 4, "column out of range");
    o.kind = CG_ORIGIN_SOURCE;
    o.line = (uint32_t)line, o.col = (uint32_t)col;
    if ((rc = cg_gbuild_file(u->b, lua_tostring(L, 2), &o.file))) return verb_result(L, u, rc);
  } else {
    lua_Integer r = luaL_checkinteger(L, 2);
    luaL_argcheck(L, r >= 1, 2, "records are numbered from 1");
    o.kind = CG_ORIGIN_RECORD;
    o.record = (uint64_t)r - 1;
  }
  return verb_result(L, u, cg_gbuild_origin(u->b, &o));
}

/* b:independent(loc [, value]) */
static int b_independent(lua_State *L) {
  lgbuild *u = checkbuilder(L);
  uint64_t l;
  if (checkloc(L, u, 2, &l)) return lcg_fail(L, &u->e);
  return verb_result(L, u, cg_gbuild_independent(u->b, l, luaL_optnumber(L, 3, 0.0)));
}

/* b:constant(loc, c) */
static int b_constant(lua_State *L) {
  lgbuild *u = checkbuilder(L);
  uint64_t l;
  if (checkloc(L, u, 2, &l)) return lcg_fail(L, &u->e);
  return verb_result(L, u, cg_gbuild_constant(u->b, l, luaL_checknumber(L, 3)));
}

/* b:op(out, name, {inputs} [, c]): name as cgwb.core.graph_ops() lists it. */
static int b_op(lua_State *L) {
  lgbuild *u = checkbuilder(L);
  const char *name = luaL_checkstring(L, 3);
  int g = cg_gop_byname(name);
  uint64_t out, in[3];
  lua_Integer n, k;
  if (checkloc(L, u, 2, &out)) return lcg_fail(L, &u->e);
  luaL_checktype(L, 4, LUA_TTABLE);
  if (g < 0) return cg_seterr(&u->e, CG_EUSAGE, "unknown graph operation '%s'", name), lcg_fail(L, &u->e);
  n = (lua_Integer)lua_rawlen(L, 4);
  if (n > 3) return cg_seterr(&u->e, CG_EUSAGE, "%s takes %u inputs, not %d", name,
                              (unsigned)cg_gop((unsigned)g)->arity, (int)n), lcg_fail(L, &u->e);
  for (k = 0; k < n; k++) {
    lua_rawgeti(L, 4, k + 1);
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0)
      return cg_seterr(&u->e, CG_EUSAGE, "%s: input %d is not a location (an integer >= 0)",
                       name, (int)k + 1), lcg_fail(L, &u->e);
    in[k] = (uint64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
  return verb_result(L, u, cg_gbuild_op(u->b, out, (unsigned)g, luaL_optnumber(L, 5, 0.0), in,
                                        (unsigned)n));
}

/* b:assign(r, a): r = a */
static int b_assign(lua_State *L) {
  lgbuild *u = checkbuilder(L);
  uint64_t r, a;
  if (checkloc(L, u, 2, &r) || checkloc(L, u, 3, &a)) return lcg_fail(L, &u->e);
  return verb_result(L, u, cg_gbuild_assign(u->b, r, a));
}

/* b:guard(loc, kind [, taped]): kind "eq_zero" ... "lt_zero" or "value". */
static int b_guard(lua_State *L) {
  lgbuild *u = checkbuilder(L);
  const char *kind = luaL_checkstring(L, 3);
  unsigned k;
  uint64_t l;
  if (checkloc(L, u, 2, &l)) return lcg_fail(L, &u->e);
  for (k = 0; k < 256 && !(cg_guard_kind_name(k) && strcmp(cg_guard_kind_name(k), kind) == 0); k++)
    continue;
  if (k == 256) return cg_seterr(&u->e, CG_EUSAGE, "unknown guard kind '%s'", kind), lcg_fail(L, &u->e);
  return verb_result(L, u, cg_gbuild_guard(u->b, l, k, luaL_optnumber(L, 4, 0.0)));
}

/* b:value(loc) -> the value at loc | nil, msg */
static int b_value(lua_State *L) {
  lgbuild *u = checkbuilder(L);
  uint64_t l;
  double v;
  if (checkloc(L, u, 2, &l) || cg_gbuild_value(u->b, l, &v)) return lcg_fail(L, &u->e);
  lua_pushnumber(L, v);
  return 1;
}

/* b:dependent(loc) */
static int b_dependent(lua_State *L) {
  lgbuild *u = checkbuilder(L);
  uint64_t l;
  if (checkloc(L, u, 2, &l)) return lcg_fail(L, &u->e);
  return verb_result(L, u, cg_gbuild_dependent(u->b, l));
}

/* b:unlink(lo [, hi]): locations lo..hi (default lo) die */
static int b_unlink(lua_State *L) {
  lgbuild *u = checkbuilder(L);
  uint64_t lo, hi;
  if (checkloc(L, u, 2, &lo)) return lcg_fail(L, &u->e);
  if (lua_isnoneornil(L, 3)) hi = lo;
  else if (checkloc(L, u, 3, &hi)) return lcg_fail(L, &u->e);
  return verb_result(L, u, cg_gbuild_unlink(u->b, lo, hi));
}

cg_graph **lcg_newgraph(lua_State *L, cg_alloc **A) {
  lgraph *gu = (lgraph *)lua_newuserdatauv(L, sizeof *gu, 0);
  memset(gu, 0, sizeof *gu);
  lcg_alloc(L, &gu->A);
  luaL_setmetatable(L, LCG_GRAPH);
  *A = &gu->A;
  return &gu->g;
}

/* b:finish() -> cgwb.Graph | nil, msg; the builder is spent either way. */
static int b_finish(lua_State *L) {
  lgbuild *u = checkbuilder(L);
  lgraph *gu = (lgraph *)lua_newuserdatauv(L, sizeof *gu, 0);
  cg_gbuild *b = u->b;
  memset(gu, 0, sizeof *gu);
  lcg_alloc(L, &gu->A);
  luaL_setmetatable(L, LCG_GRAPH);
  u->b = NULL;
  if (!(gu->g = cg_gbuild_finish(b))) return lcg_fail(L, &u->e);
  gu->g->A = &gu->A; /* the same allocator, held by the graph's userdata from now on */
  return 1;
}

static int b_tostring(lua_State *L) {
  lgbuild *u = (lgbuild *)luaL_checkudata(L, 1, LCG_GBUILD);
  lua_pushstring(L, u->b ? "cgwb.GraphBuilder" : "cgwb.GraphBuilder (spent)");
  return 1;
}

/* The row's C spellings (cg_gops.h) into the table at -1: value = the
 * value's text, partials = {d0, ...} and marks = {"variable" | "constant" |
 * "+1" | "-1", ...} for each operand (the code generators' input). */
static void push_spellings(lua_State *L, const cg_gopinfo *op) {
  static const char *const marks[] = {"variable", "constant", "+1", "-1"}; /* CG_PM_* order */
  unsigned i;
  lua_pushstring(L, op->c_value), lua_setfield(L, -2, "value");
  lua_createtable(L, op->arity, 0);
  for (i = 0; i < op->arity; i++) lua_pushstring(L, op->c_part[i]), lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_setfield(L, -2, "partials");
  lua_createtable(L, op->arity, 0);
  for (i = 0; i < op->arity; i++) lua_pushstring(L, marks[op->mark[i] & 3]), lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_setfield(L, -2, "marks");
}

/* core.graph_ops() -> {{name=, arity=, constant=, value=, partials=,
 * marks=}...}: the operations of b:op, from the operation table
 * (cg_gops.h), in its order, with their C spellings. */
static int l_graph_ops(lua_State *L) {
  unsigned g;
  lua_createtable(L, CG_G_COUNT, 0);
  for (g = 0; g < CG_G_COUNT; g++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, cg_gop(g)->name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, cg_gop(g)->arity);
    lua_setfield(L, -2, "arity");
    lua_pushboolean(L, cg_gop(g)->has_const);
    lua_setfield(L, -2, "constant");
    push_spellings(L, cg_gop(g));
    lua_rawseti(L, -2, (lua_Integer)g + 1);
  }
  return 1;
}

/* core.graph_support() -> {{name=, text=}...}: the support functions the
 * spellings call (cg_gops.h), each with its static C definition. */
static int l_graph_support(lua_State *L) {
  unsigned k, n = cg_gop_support_count();
  lua_createtable(L, (int)n, 0);
  for (k = 0; k < n; k++) {
    luaL_Buffer b;
    size_t len = cg_gop_support_text(k, NULL, 0);
    char *p;
    lua_createtable(L, 0, 2);
    lua_pushstring(L, cg_gop_support_name(k));
    lua_setfield(L, -2, "name");
    p = luaL_buffinitsize(L, &b, len + 1);
    cg_gop_support_text(k, p, len + 1);
    luaL_pushresultsize(&b, len);
    lua_setfield(L, -2, "text");
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  return 1;
}

static const luaL_Reg builder_methods[] = {
    {"origin", b_origin},     {"independent", b_independent}, {"constant", b_constant},
    {"op", b_op},             {"assign", b_assign},           {"guard", b_guard},
    {"value", b_value},       {"dependent", b_dependent},     {"unlink", b_unlink},
    {"finish", b_finish},     {"free", b_free},               {NULL, NULL}};

static const luaL_Reg builder_meta[] = {{"__gc", b_free}, {"__close", b_free},
                                        {"__tostring", b_tostring}, {NULL, NULL}};

static const luaL_Reg graph_funcs[] = {{"build_graph", l_build_graph},
                                       {"graph_builder", l_graph_builder},
                                       {"graph_ops", l_graph_ops},
                                       {"graph_support", l_graph_support},
                                       {NULL, NULL}};

void lcg_open_graph(lua_State *L) {
  lcg_newclass(L, LCG_GRAPH, graph_methods, graph_meta);
  lcg_newclass(L, LCG_GBUILD, builder_methods, builder_meta);
  luaL_setfuncs(L, graph_funcs, 0);
}

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
@module cgwb.core
*/

/*** core.build_graph(tape [, {assign_removal=, hoist=, dead_roots=, recover_hoists=, guards=,
death_unlink=, mem_limit=, at={x...}}]) -> Graph, branch changes, first changed record |
nil, msg. mem_limit: bytes (0 = none), by default the state's memory limit (lcg_budget).
@function build_graph
*/

/*** core.graph_builder([{assign_removal=, hoist=, dead_roots=, recover_hoists=, guards=,
death_unlink=, values=true, name=}]) -> cgwb.GraphBuilder
@function graph_builder
*/

/*** core.graph_ops() -> {{name=, arity=, constant=, value=, partials=, marks=}...}: the
operations of b:op, from the operation table (cg_gops.h), in its order, with their C
spellings.
@function graph_ops
*/

/*** core.graph_support() -> {{name=, text=}...}: the support functions that the operation
table's spellings call (cg_gops.h: cg_digamma, in lgamma's and tgamma's partials), each with
the text of its static C definition, which a code generator writes into a file whose text
calls it.
@function graph_support
*/

/*** A computational graph of supernodes (cgwb.Graph; Bischof & Hu 1991, sec. 2; doc/graph.md).
Made by cgwb.build_graph or a GraphBuilder's finish; tostring(g) -> cgwb.Graph (N nodes, N
independents, N dependents).
@type Graph
*/

/*** g:branch_changes() -> count, first record (1-based) or nil, its opcode or nil: the branch
records and conditionals whose outcome at the point the graph was built at differs from
taping (0 at the tape's own point).
@function Graph:branch_changes
*/

/*** g:chain(i) -> {"add", "exp"}, {constants}
@function Graph:chain
*/

/*** g:children(v) -> the operands of node v.
@function Graph:children
*/

/*** g:dependents() -> the dependent nodes, in tape order.
@function Graph:dependents
*/

/*** g:depth(v) -> the depth of node v (roots 0; computed once).
@function Graph:depth
*/

/*** g:dot([path [, root [, limit]]]) -> true (written to path) or the DOT text; root restricts
to a subgraph of at most limit nodes (default 500).
@function Graph:dot
*/

/*** g:eval([x]) -> {y...}, branch changes, first node (1-based) | nil, msg
@function Graph:eval
*/

/*** g:flags(v) -> {dependent=, guarded=, uninitialized=}.
@function Graph:flags
*/

/*** g:free(): releases the graph now (also __gc and __close).
@function Graph:free
*/

/*** g:guards() -> {{node=, kind=, taped=, record=, origin=}...}: node 1-based, kind "gt_zero"
... or "value", record the tape record (1-based; nil for a guard the builder made under no
record origin), origin as g:origin (only for a graph made through the builder).
@function Graph:guards
*/

/*** g:height(v) -> the height of node v (leaves 0; computed once).
@function Graph:height
*/

/*** g:independents() -> the independent nodes, in tape order.
@function Graph:independents
*/

/*** g:leaves() -> the nodes without children, in id order.
@function Graph:leaves
*/

/*** g:n() -> the number of nodes (also #g).
@function Graph:n
*/

/*** for v in g:nodes() do ... end: every node in topological order, no copy.
@function Graph:nodes
*/

/*** g:origin(i) -> "file:line:col" | "record N" | nil (built without origins)
@function Graph:origin
*/

/*** g:parents(v) -> the nodes that read node v.
@function Graph:parents
*/

/*** g:print([path [, root [, limit]]]) -> true (written to path) or the text dump; root and
limit as for g:dot.
@function Graph:print
*/

/*** g:roots() -> the nodes without parents, in id order.
@function Graph:roots
*/

/*** g:stats() -> the numbers of Tables 2 and 4 of Bischof & Hu 1991, histograms, memory
@function Graph:stats
*/

/*** g:to_tape() -> the graph written back as a cgwb.Tape (Table 3)
@function Graph:to_tape
*/

/*** g:value(v) -> the value of node v (nil when the graph has no values).
@function Graph:value
*/

/*** g:warnings() -> the build's warnings as text ("" when none).
@function Graph:warnings
*/

/*** A graph made verb by verb through the graph-building interface (cgwb.GraphBuilder;
doc/graph.md, Building graphs). Each verb returns true or nil, msg; locations are the
caller's integers >= 0; tostring(b) -> cgwb.GraphBuilder or cgwb.GraphBuilder (spent).
@type GraphBuilder
*/

/*** b:assign(r, a): r = a
@function GraphBuilder:assign
*/

/*** b:constant(loc, c)
@function GraphBuilder:constant
*/

/*** b:dependent(loc)
@function GraphBuilder:dependent
*/

/*** b:finish() -> cgwb.Graph | nil, msg; the builder is spent either way.
@function GraphBuilder:finish
*/

/*** b:free(): releases an unfinished builder (also __gc and __close).
@function GraphBuilder:free
*/

/*** b:guard(loc, kind [, taped]): kind "eq_zero" ... "lt_zero" or "value".
@function GraphBuilder:guard
*/

/*** b:independent(loc [, value])
@function GraphBuilder:independent
*/

/*** b:op(out, name, {inputs} [, c]): name as cgwb.core.graph_ops() lists it.
@function GraphBuilder:op
*/

/*** b:origin("file", line, col) or b:origin(record): where what follows comes from (record
1-based, as g:branch_changes reports them).
@function GraphBuilder:origin
*/

/*** b:unlink(lo [, hi]): locations lo..hi (default lo) die
@function GraphBuilder:unlink
*/

/*** b:value(loc) -> the value at loc | nil, msg
@function GraphBuilder:value
*/

/* }==== */
