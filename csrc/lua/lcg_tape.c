/* lcg_tape.c: the cgwb.Tape userdata, tape reading, statistics. */
#include <string.h>

#include "lcg.h"

ltape *lcg_checktape(lua_State *L, int idx) {
  ltape *u = (ltape *)luaL_checkudata(L, idx, LCG_TAPE);
  if (!u->t) luaL_argerror(L, idx, "cgwb.Tape used after free()");
  return u;
}

ltape *lcg_newtape(lua_State *L) {
  ltape *u = (ltape *)lua_newuserdatauv(L, sizeof *u, 0);
  u->t = NULL;
  lcg_alloc(L, &u->A);
  luaL_setmetatable(L, LCG_TAPE);
  return u;
}

/* __gc, __close and :free() */
static int t_free(lua_State *L) {
  ltape *u = (ltape *)luaL_checkudata(L, 1, LCG_TAPE);
  cg_tape_free(u->t);
  u->t = NULL;
  return 0;
}

/* core.tape_new() -> an empty tape to push records into */
static int l_tape_new(lua_State *L) {
  ltape *u = lcg_newtape(L);
  u->t = cg_tape_new(&u->A);
  if (!u->t) return luaL_error(L, "out of memory");
  return 1;
}

/* core.read_tape(path) -> Tape | nil, msg */
static int l_read_tape(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  ltape *u = lcg_newtape(L);
  cg_error e;
  u->t = cg_tape_load(&u->A, path, &e);
  if (!u->t) return lcg_fail(L, &e);
  return 1;
}

/* core.read_text(string [, name]) -> Tape | nil, msg */
static int l_read_text(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  const char *name = luaL_optstring(L, 2, "(string)");
  ltape *u = lcg_newtape(L);
  cg_error e;
  cg_reader *R = cg_text_open(&u->A, name, s, len, &e);
  if (!R) return lcg_fail(L, &e);
  u->t = cg_tape_from_reader(&u->A, R, &e);
  cg_reader_close(R);
  if (!u->t) return lcg_fail(L, &e);
  return 1;
}

/* tape:push(opname, loc..., val...) in canonical operand order */
static int t_push(lua_State *L) {
  ltape *u = lcg_checktape(L, 1);
  const char *name = luaL_checkstring(L, 2);
  int op = cg_op_byname(name), top = lua_gettop(L), i;
  uint32_t loc[64], nl, nv, have;
  double val[16];
  cg_error e;
  int rc;
  if (op < 0) return luaL_argerror(L, 2, lua_pushfstring(L, "unknown opcode '%s'", name));
  have = 0;
  while ((rc = cg_rec_counts((unsigned)op, loc, have, &nl, &nv)) == 0 || have < nl) {
    if (rc < 0 || nl > 64) return luaL_error(L, "%s: record too long for push", name);
    for (; have < nl; have++) {
      lua_Integer v;
      if (3 + (int)have > top) return luaL_error(L, "%s: missing location %d", name, have + 1);
      v = luaL_checkinteger(L, 3 + (int)have);
      luaL_argcheck(L, v >= 0 && v < 0xffffffffLL, 3 + (int)have, "location out of range");
      loc[have] = (uint32_t)v;
    }
    if (rc == 1) break;
  }
  if (nv > 16) return luaL_error(L, "%s: record too long for push", name);
  if (top != 2 + (int)nl + (int)nv)
    return luaL_error(L, "%s takes %d locations and %d constants, got %d operands", name,
                      (int)nl, (int)nv, top - 2);
  for (i = 0; i < (int)nv; i++) val[i] = luaL_checknumber(L, 3 + (int)nl + i);
  if (cg_tape_push(u->t, (unsigned)op, loc, nl, val, nv, &e))
    return luaL_error(L, "%s", e.msg);
  lua_settop(L, 1);
  return 1;
}

/* tape:set_x0({x...}) */
static int t_set_x0(lua_State *L) {
  ltape *u = lcg_checktape(L, 1);
  size_t n;
  double *x = lcg_numbers(L, 2, &n);
  cg_error e;
  if (cg_tape_set_x0(u->t, x, n, &e)) return luaL_error(L, "%s", e.msg);
  lua_settop(L, 1);
  return 1;
}

/* tape:x0() -> {x...} | nil */
static int t_x0(lua_State *L) {
  ltape *u = lcg_checktape(L, 1);
  if (!u->t->has_x0) return luaL_pushfail(L), 1;
  lcg_push_numbers(L, u->t->x0, (size_t)u->t->n_indep);
  return 1;
}

static int t_len(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)lcg_checktape(L, 1)->t->nops);
  return 1;
}

static int t_n(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)lcg_checktape(L, 1)->t->n_indep);
  return 1;
}

static int t_m(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)lcg_checktape(L, 1)->t->n_dep);
  return 1;
}

static int t_nstore(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)lcg_checktape(L, 1)->t->nstore);
  return 1;
}

/* tape:record(i) -> opname, {locs}, {vals} (i 1-based; walks from the start,
 * so use tape:records() to visit them all) */
static int t_record(lua_State *L) {
  ltape *u = lcg_checktape(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  cg_tape_iter it;
  cg_rec r;
  uint32_t k;
  luaL_argcheck(L, i >= 1 && (size_t)i <= u->t->nops, 2, "record out of range");
  cg_tape_iter_init(&it, u->t);
  while (cg_tape_iter_next(&it, &r) && r.index + 1 < (uint64_t)i) continue;
  lua_pushstring(L, cg_op(r.op)->name);
  lua_createtable(L, (int)r.nloc, 0);
  for (k = 0; k < r.nloc; k++) {
    lua_pushinteger(L, r.loc[k]);
    lua_rawseti(L, -2, k + 1);
  }
  lcg_push_numbers(L, r.val, r.nval);
  return 3;
}

/* Iterator state for tape:records(): a tape iterator in a userdata. */
static int records_step(lua_State *L) {
  cg_tape_iter *it = (cg_tape_iter *)lua_touserdata(L, lua_upvalueindex(1));
  ltape *u = lcg_checktape(L, lua_upvalueindex(2));
  cg_rec r;
  uint32_t k;
  it->t = u->t;
  if (!cg_tape_iter_next(it, &r)) return 0;
  lcg_push_id(L, r.index);
  lua_pushstring(L, cg_op(r.op)->name);
  lua_createtable(L, (int)r.nloc, 0);
  for (k = 0; k < r.nloc; k++) {
    lua_pushinteger(L, r.loc[k]);
    lua_rawseti(L, -2, k + 1);
  }
  lcg_push_numbers(L, r.val, r.nval);
  return 4;
}

/* for i, name, locs, vals in tape:records() do ... end */
static int t_records(lua_State *L) {
  ltape *u = lcg_checktape(L, 1);
  cg_tape_iter *it = (cg_tape_iter *)lua_newuserdatauv(L, sizeof *it, 0);
  cg_tape_iter_init(it, u->t);
  lua_pushvalue(L, 1);
  lua_pushcclosure(L, records_step, 2);
  return 1;
}

/* tape:forward([x]) -> {y...}, branches, first_branch_record | nil, msg */
static int t_forward(lua_State *L) {
  ltape *u = lcg_checktape(L, 1);
  const double *x = lcg_optpoint(L, 2, u->t->n_indep, "forward");
  double *y = (double *)lua_newuserdatauv(L, (size_t)u->t->n_dep * 8, 0);
  cg_branch br;
  cg_error e;
  memset(&br, 0, sizeof br);
  if (cg_tape_forward(u->t, x, y, &br, &e)) return lcg_fail(L, &e);
  return lcg_push_evaluation(L, y, (size_t)u->t->n_dep, &br);
}

/* tape:size() -> operations (death notices excluded), their classic-tape
 * bytes, death notices, their bytes: Table 3's measures */
static int t_size(lua_State *L) {
  ltape *u = lcg_checktape(L, 1);
  cg_tape_iter it;
  cg_rec r;
  uint64_t ops = 0, bytes = 0, deaths = 0, dbytes = 0;
  cg_tape_iter_init(&it, u->t);
  while (cg_tape_iter_next(&it, &r)) {
    uint64_t b = cg_classic_recbytes(r.op, r.nloc, r.nval);
    if (r.op == CG_OP_death_not) {
      deaths++;
      dbytes += b;
    } else {
      ops++;
      bytes += b;
    }
  }
  lua_pushinteger(L, (lua_Integer)ops);
  lua_pushinteger(L, (lua_Integer)bytes);
  lua_pushinteger(L, (lua_Integer)deaths);
  lua_pushinteger(L, (lua_Integer)dbytes);
  return 4;
}

/* tape:write(path [, "classic"|"text"]) -> true | nil, msg */
static int t_write(lua_State *L) {
  static const char *const fmts[] = {"classic", "text", NULL};
  ltape *u = lcg_checktape(L, 1);
  const char *path = luaL_checkstring(L, 2);
  int fmt = luaL_checkoption(L, 3, "classic", fmts);
  cg_error e;
  int rc = fmt == 0 ? cg_write_classic(u->t, path, &e) : cg_write_text(u->t, path, &e);
  if (rc) return lcg_fail(L, &e);
  lua_pushboolean(L, 1);
  return 1;
}

static const char *format_name(int f) {
  return f == CG_FMT_ADOLC ? "adolc" : f == CG_FMT_CLASSIC ? "classic" : "text";
}

static void set_int(lua_State *L, const char *k, uint64_t v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

/* The header fields of a tape info as a table. */
static void push_info(lua_State *L, const cg_tapeinfo *in) {
  int i;
  lua_newtable(L);
  lua_pushstring(L, format_name(in->format));
  lua_setfield(L, -2, "format");
  set_int(L, "independents", in->n_indep);
  set_int(L, "dependents", in->n_dep);
  set_int(L, "max_live", in->max_live);
  if (in->format == CG_FMT_ADOLC) {
    lua_pushfstring(L, "%d.%d.%d", in->ver[0], in->ver[1], in->ver[2]);
    lua_setfield(L, -2, "version");
    lua_createtable(L, 18, 0);
    for (i = 0; i < 18; i++) {
      lua_pushinteger(L, (lua_Integer)in->stats[i]);
      lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "stats");
    set_int(L, "parameters", in->n_param);
  } else if (in->format == CG_FMT_CLASSIC) {
    lua_createtable(L, 8, 0);
    for (i = 0; i < 8; i++) {
      lua_pushinteger(L, (lua_Integer)in->classic[i]);
      lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "header");
  }
}

/* tape:info() -> table of what the source file's header said */
static int t_info(lua_State *L) {
  ltape *u = lcg_checktape(L, 1);
  push_info(L, &u->t->info);
  lua_pushstring(L, u->t->source);
  lua_setfield(L, -2, "source");
  return 1;
}

static int t_tostring(lua_State *L) {
  ltape *u = (ltape *)luaL_checkudata(L, 1, LCG_TAPE);
  if (!u->t) lua_pushliteral(L, "cgwb.Tape (freed)");
  else
    lua_pushfstring(L, "cgwb.Tape (%d records, %d independents, %d dependents)",
                    (int)u->t->nops, (int)u->t->n_indep, (int)u->t->n_dep);
  return 1;
}

/* core.stats(path) -> table | nil, msg (streams the file) */
static int l_stats(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  cg_stats *s = (cg_stats *)lua_newuserdatauv(L, sizeof *s, 0);
  cg_alloc A;
  cg_error e;
  unsigned c;
  lcg_alloc(L, &A);
  if (cg_tape_stats(&A, path, s, &e)) return lcg_fail(L, &e);
  push_info(L, &s->info);
  set_int(L, "operations", s->operations);
  set_int(L, "operation_bytes", s->op_bytes);
  set_int(L, "records", s->records);
  set_int(L, "death_notices", s->death_notices);
  set_int(L, "death_bytes", s->death_bytes);
  set_int(L, "markers", s->markers);
  set_int(L, "locations", s->max_loc);
  set_int(L, "peak_live", s->peak_live);
  set_int(L, "independents", s->n_indep);
  set_int(L, "dependents", s->n_dep);
  lua_newtable(L); /* opcodes: array of {name, code, count, bytes} in code order */
  for (c = 0; c < 256; c++) {
    if (!s->count[c]) continue;
    lua_createtable(L, 0, 4);
    lua_pushstring(L, cg_op(c)->name);
    lua_setfield(L, -2, "name");
    set_int(L, "code", c);
    set_int(L, "count", s->count[c]);
    set_int(L, "bytes", s->bytes[c]);
    lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
  }
  lua_setfield(L, -2, "opcodes");
  return 1;
}

/* core.opcodes() -> array of {code, name, nloc, nval, nout, adolc, inplace} */
static int l_opcodes(lua_State *L) {
  unsigned c;
  lua_newtable(L);
  for (c = 0; c < 256; c++) {
    const cg_opinfo *oi = cg_op(c);
    if (!oi->name) continue;
    lua_createtable(L, 0, 8);
    set_int(L, "code", c);
    lua_pushstring(L, oi->name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, oi->nloc);
    lua_setfield(L, -2, "nloc");
    lua_pushinteger(L, oi->nval);
    lua_setfield(L, -2, "nval");
    lua_pushinteger(L, oi->nout);
    lua_setfield(L, -2, "nout");
    lua_pushboolean(L, oi->flags & CG_OPF_ADOLC);
    lua_setfield(L, -2, "adolc");
    lua_pushboolean(L, oi->flags & CG_OPF_INPLACE);
    lua_setfield(L, -2, "inplace");
    lua_pushboolean(L, oi->flags & (CG_OPF_MARKER | CG_OPF_REJECT | CG_OPF_PARAM));
    lua_setfield(L, -2, "foreign");
    lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
  }
  return 1;
}

static const luaL_Reg tape_methods[] = {
    {"push", t_push},     {"set_x0", t_set_x0},   {"x0", t_x0},       {"len", t_len},
    {"n", t_n},           {"m", t_m},             {"nstore", t_nstore}, {"record", t_record},
    {"records", t_records}, {"forward", t_forward}, {"write", t_write}, {"info", t_info}, {"size", t_size},
    {"free", t_free},     {NULL, NULL}};

static const luaL_Reg tape_meta[] = {
    {"__gc", t_free}, {"__close", t_free}, {"__tostring", t_tostring}, {"__len", t_len},
    {NULL, NULL}};

static const luaL_Reg tape_funcs[] = {{"tape_new", l_tape_new}, {"read_tape", l_read_tape},
                                      {"read_text", l_read_text}, {"stats", l_stats},
                                      {"opcodes", l_opcodes},     {NULL, NULL}};

void lcg_open_tape(lua_State *L) {
  lcg_newclass(L, LCG_TAPE, tape_methods, tape_meta);
  luaL_setfuncs(L, tape_funcs, 0);
}

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
@module cgwb.core
*/

/*** core.opcodes() -> array of {code, name, nloc, nval, nout, adolc, inplace}
@function opcodes
*/

/*** core.read_tape(path) -> Tape | nil, msg
@function read_tape
*/

/*** core.read_text(string [, name]) -> Tape | nil, msg
@function read_text
*/

/*** core.stats(path) -> table | nil, msg (streams the file)
@function stats
*/

/*** core.tape_new() -> an empty tape to push records into
@function tape_new
*/

/*** A tape: the records of one evaluation (cgwb.Tape; doc/formats.md). Made by cgwb.read_tape,
cgwb.read_text, cgwb.new_tape or cgwb.trace; tostring(tape) -> cgwb.Tape (N records, N
independents, N dependents).
@type Tape
*/

/*** tape:forward([x]) -> {y...}, branches, first_branch_record | nil, msg
@function Tape:forward
*/

/*** tape:free(): releases the tape now (also __gc and __close).
@function Tape:free
*/

/*** tape:info() -> table of what the source file's header said
@function Tape:info
*/

/*** tape:len() -> the number of records (also #tape).
@function Tape:len
*/

/*** tape:m() -> the number of dependents.
@function Tape:m
*/

/*** tape:n() -> the number of independents.
@function Tape:n
*/

/*** tape:nstore() -> the number of locations (dense after renumbering).
@function Tape:nstore
*/

/*** tape:push(opname, loc..., val...) in canonical operand order
@function Tape:push
*/

/*** tape:record(i) -> opname, {locs}, {vals} (i 1-based; walks from the start, so use
tape:records() to visit them all)
@function Tape:record
*/

/*** for i, name, locs, vals in tape:records() do ... end
@function Tape:records
*/

/*** tape:set_x0({x...})
@function Tape:set_x0
*/

/*** tape:size() -> operations (death notices excluded), their classic-tape bytes, death
notices, their bytes: Table 3's measures
@function Tape:size
*/

/*** tape:write(path [, "classic"|"text"]) -> true | nil, msg
@function Tape:write
*/

/*** tape:x0() -> {x...} | nil
@function Tape:x0
*/

/* }==== */
