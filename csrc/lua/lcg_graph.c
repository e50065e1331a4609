/* lcg_graph.c: the cgwb.Graph userdata. Node ids seen from Lua are 1-based. */
#include <stdlib.h>
#include <string.h>

#include "../graph/cg_graph.h"
#include "lcg.h"

#define LCG_GRAPH "cgwb.Graph"

typedef struct lgraph {
  cg_graph *g;
  cg_alloc A;
  uint32_t *height, *depth; /* computed on first use */
} lgraph;

static void g_release(lgraph *u) {
  if (!u->g) return;
  cg_free(&u->A, u->height, (size_t)(u->g->n ? u->g->n : 1) * 4);
  cg_free(&u->A, u->depth, (size_t)(u->g->n ? u->g->n : 1) * 4);
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
  cg_gopts_default(&o);
  o.mem_limit = lcg_budget(L)->limit;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    o.assign_removal = optbool(L, 2, "assign_removal", 1);
    o.hoist = optbool(L, 2, "hoist", 1);
    o.dead_roots = optbool(L, 2, "dead_roots", 1);
    o.recover_hoists = optbool(L, 2, "recover_hoists", 1);
    o.guards = optbool(L, 2, "guards", 1);
    o.death_unlink = optbool(L, 2, "death_unlink", 1);
    if (lua_getfield(L, 2, "mem_limit") != LUA_TNIL) {
      lua_Integer m = luaL_checkinteger(L, -1);
      luaL_argcheck(L, m >= 0, 2, "mem_limit must be >= 0");
      o.mem_limit = (uint64_t)m;
    }
    lua_pop(L, 1);
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
    uint32_t *a = (uint32_t *)cg_malloc(&u->A, (size_t)(u->g->n ? u->g->n : 1) * 4);
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
  double *y = (double *)lua_newuserdatauv(L, (size_t)(u->g->n_dep ? u->g->n_dep : 1) * 8, 0);
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
    {"nodes", g_nodes},   {"free", g_free},                 {NULL, NULL}};

static const luaL_Reg graph_meta[] = {{"__gc", g_free}, {"__close", g_free},
                                      {"__tostring", g_tostring}, {"__len", g_n},
                                      {NULL, NULL}};

static const luaL_Reg graph_funcs[] = {{"build_graph", l_build_graph}, {NULL, NULL}};

void lcg_open_graph(lua_State *L) {
  lcg_newclass(L, LCG_GRAPH, graph_methods, graph_meta);
  luaL_setfuncs(L, graph_funcs, 0);
}
