#define _POSIX_C_SOURCE 200809L /* mkdtemp */
/* test_lua_oom.c: the bindings under a Lua state whose allocator refuses
 * the k-th request and every one after it (k = 1, 2, ... until a call needs
 * no refusal), for each binding that returns a large result.  A refused
 * call must end in LUA_ERRMEM or a message about memory (never a crash),
 * the same call must work once memory is back (the state survives), and
 * after lua_close nothing may be left: no byte of the state's allocator
 * (counted here), no malloc'd block (LeakSanitizer, in the ASan build), no
 * temporary file beside an output.  This is what catches C memory held
 * across a Lua call that raises (doc/robustness.md, "Bindings").
 *
 * It embeds Lua and links the binding objects, which the module itself
 * never does (scripts/run-tests.sh adds the flags for this test):
 *   cc -std=c99 -Wall -Wextra -O2 -Icsrc -I/usr/include/lua5.4 spec/c/test_lua_oom.c \
 *      build/release/csrc/lua/\*.o build/release/libcgwbcore.a -llua5.4 -lm
 * Each case runs in a child process (its leaks are its own).  Prints
 * "N passed, N failed" (one check per case). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "check.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAK_CHECK() __lsan_do_recoverable_leak_check()
#else
#define LEAK_CHECK() 0 /* the release build counts the state's bytes only */
#endif

int luaopen_cgwb_core(lua_State *L);

/* Refuses every growing request from the fail_at-th on (0: none) until
 * disarmed: Lua retries a refused request after an emergency collection,
 * so failing one request alone would never reach the bindings' error
 * paths.  Shrinks and frees always pass, as Lua requires. */
typedef struct failing {
  long calls, fail_at, refused;
  long long live;
} failing;

static void *failing_alloc(void *ud, void *p, size_t osize, size_t nsize) {
  failing *a = (failing *)ud;
  size_t old = p ? osize : 0;
  void *q;
  if (nsize == 0) {
    a->live -= (long long)old;
    free(p);
    return NULL;
  }
  if (nsize > old && ++a->calls >= a->fail_at && a->fail_at > 0) {
    a->refused++;
    return NULL;
  }
  q = realloc(p, nsize);
  if (q) a->live += (long long)nsize - (long long)old;
  return q;
}

/* Two independents, dependents sharing intermediates (as test_oom.c). */
static const char *TEXT =
    "assign_ind 0 0.5\nassign_ind 1 1.5\nassign_ind 2 -0.25\n"
    "mult_a_a 3 0 1\nsin_op 4 5 3\nplus_a_a 6 4 2\nexp_op 7 6\n"
    "mult_a_a 8 7 3\ndiv_a_a 9 8 6\nplus_a_a 10 9 0\nmult_a_a 11 10 4\n"
    "sqrt_op 12 7\neq_plus_a 12 11\nassign_dep 12\nassign_dep 11\nassign_dep 9\n";

/* What every case starts from: globals core, TEXT, DIR, t, g, lg (and
 * done, a fully eliminated copy). */
static const char *SETUP =
    "core = require 'cgwb.core'\n"
    "t = assert(core.read_text(TEXT, 'oom.txt'))\n"
    "g = assert(core.build_graph(t))\n"
    "lg = assert(core.linearize(g))\n"
    "done = lg:copy(); done:eliminate('markowitz')\n"
    "local f = assert(io.open(DIR .. '/oom.txt', 'wb')); f:write(TEXT); f:close()\n"
    /* a flattened kernel (res.values, res.lingraph: lcg_kpoint.c) */
    "package.path = 'lua/?.lua;' .. package.path\n"
    "K = assert(core.kernel_load(assert(require('cgwb.kparse').parse("
    "'double f(double *a, double x, int n) {\\n  double y;\\n  int i;\\n  y = 0.0;\\n'"
    ".. '  for (i = 0; i < n; i++) {\\n    a[i] = sin(a[i] * x) + (double)i;\\n    y = y + a[i];\\n  }\\n'"
    ".. '  return y;\\n}\\n', 'k.c'))))\n"
    "FL = assert(core.kernel_flatten(K, 'f'))\n"
    "CALL = {arrays = {{name = 'A', values = {1, 2, 3}}}, args = {{array = 1}, {double = 0.5}, {int = 3}}}\n"
    /* a double ** parameter: the rows argument of a call (lcg_kernel.c read_arg) */
    "K2 = assert(core.kernel_load(assert(require('cgwb.kparse').parse("
    "'void mv(int n, double **A, double *y) {\\n  int i;\\n  for (i = 0; i < n; i++) y[i] = A[i][0] + A[i][1];\\n}\\n',"
    " 'r.c'))))\n"
    "RCALL = {arrays = {{name = 'M', values = {1, 2, 3, 4}}, {name = 'y', values = {0, 0}}}, args = {{int = 2}, "
    "{rows = {{array = 1, offset = 0}, {array = 1, offset = 2}}}, {array = 2}}}\n";

/* A call and what it must give when memory suffices: a value, or (raises)
 * an error whose message holds `raises`. */
typedef struct lcase {
  const char *name, *call, *raises;
} lcase;

static const lcase CASES[] = {
    {"read_text", "return core.read_text(TEXT)", NULL},
    {"read_tape", "return core.read_tape(DIR .. '/oom.txt')", NULL},
    {"stats", "return core.stats(DIR .. '/oom.txt')", NULL},
    {"records", "local n = 0 for i, op, l, v in t:records() do n = n + #l end return n", NULL},
    {"forward", "return t:forward({1, 2, 3})", NULL},
    {"build_graph", "return core.build_graph(t, {at = {1, 2, 3}})", NULL},
    {"graph stats", "return g:stats()", NULL},
    {"graph eval", "return g:eval({1, 2, 3})", NULL},
    {"to_tape", "return g:to_tape()", NULL},
    {"to_tape outliving its graph", /* the tape must not use the graph's allocator */
     "local g2 = core.build_graph(t) local t2 = g2:to_tape() g2 = nil "
     "collectgarbage() collectgarbage() return t2:forward({1, 2, 3})", NULL},
    {"levels", "return core.levels(g, function(v, gr) return gr:height(v) end)", NULL},
    {"schedule eval", "return core.schedule(g):eval({1, 2, 3})", NULL},
    {"codegen string", "return core.schedule(g):codegen(nil, {form = 'chunked', chunk = 3})", NULL},
    {"codegen file", "return core.schedule(g):codegen(DIR .. '/f.c')", NULL},
    {"dot string", "return g:dot()", NULL},
    {"print string", "return g:print()", NULL},
    {"linearize", "return core.linearize(g)", NULL},
    {"copy", "return lg:copy()", NULL},
    {"eliminate", "local c = lg:copy() return c:eliminate('markowitz')", NULL},
    {"eliminate lua",
     "local c = lg:copy() return c:eliminate(function(v, l, i, o) return i * o end)", NULL},
    {"eliminate raising",
     "local c = lg:copy() return c:eliminate(function(v) if v > 5 then error('boom') end return v end)",
     "boom"},
    {"search", "return lg:search{}", NULL},
    {"search with hooks",
     "return lg:search{bound = function(v) return #v:intermediates() end, "
     "branch = function(v, c) return c end}", NULL},
    {"edges", "local c = lg:copy() return c:eliminate_edges('markowitz')", NULL},
    {"faces", "local c = lg:copy() return c:eliminate_faces('markowitz')", NULL},
    {"replay_faces",
     "local c = lg:copy() local _, st = c:eliminate_faces('forward') return lg:copy():replay_faces(st)",
     NULL},
    {"exact", "return lg:exact()", NULL},
    {"jacobian", "return done:jacobian()", NULL},
    {"jacobian forward", "return lg:jacobian('forward')", NULL},
    {"write_mtx string", "return done:write_mtx()", NULL},
    {"write_mtx file", "return done:write_mtx(DIR .. '/j.mtx')", NULL},
    {"write_cg string", "return lg:write_cg()", NULL},
    {"dot lin string", "return lg:dot()", NULL},
    {"write_eliad", "return lg:write_eliad()", NULL},
    {"read_cg", "return core.read_cg(lg:write_cg())", NULL},
    {"kernel_loops", "return core.kernel_loops(K, 'f')", NULL},
    {"kernel run with rows", "return assert(K2:run(1, RCALL)).arrays[2].values[2]", NULL},
    {"flatten values", "return FL.values(CALL, {instance = 2})", NULL},
    {"flatten lingraph",
     "local b = 0 for i, bl in ipairs(FL.blocks) do if #bl.lines > 0 and b == 0 then b = i end end "
     "local p = FL.values(CALL)[b][1] return FL.lingraph(b, 1, p.indep, p.passive)", NULL},
};

/* A fresh state with the module, the inputs and the objects of SETUP. */
static lua_State *new_state(failing *a, const char *dir) {
  lua_State *L = lua_newstate(failing_alloc, a);
  if (!L) return NULL;
  luaL_openlibs(L);
  luaL_requiref(L, "cgwb.core", luaopen_cgwb_core, 0);
  lua_pop(L, 1);
  lua_pushstring(L, TEXT);
  lua_setglobal(L, "TEXT");
  lua_pushstring(L, dir);
  lua_setglobal(L, "DIR");
  if (luaL_dostring(L, SETUP) != LUA_OK) {
    fprintf(stderr, "test_lua_oom: setup: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return NULL;
  }
  return L;
}

static int mentions(lua_State *L, int idx, const char *what) {
  const char *s = lua_tostring(L, idx);
  return s && strstr(s, what) != NULL;
}

/* Runs c's call once with the allocator armed at k (0: not armed); the
 * outcome: 1 it did what the case expects, 0 a clean memory failure, -1
 * anything else. */
static int run(lua_State *L, failing *a, const lcase *c, long k) {
  int top = lua_gettop(L), st, r;
  if (luaL_loadstring(L, c->call) != LUA_OK) return -1;
  a->refused = 0;
  a->fail_at = k ? a->calls + k : 0;
  st = lua_pcall(L, 0, 2, 0);
  a->fail_at = 0;
  if (c->raises && st == LUA_ERRRUN && mentions(L, -1, c->raises)) r = 1;
  else if (!c->raises && st == LUA_OK && !lua_isnil(L, -2)) r = 1;
  else if (st == LUA_ERRMEM || (st == LUA_ERRRUN && mentions(L, -1, "memory"))) r = 0;
  else if (st == LUA_OK && lua_isnil(L, -2) && mentions(L, -1, "memory")) r = 0; /* nil, msg */
  else r = -1;
  if (r == 1 && a->refused) r = 0; /* a refusal the call recovered from */
  if (r < 0)
    fprintf(stderr, "test_lua_oom: %s at k = %ld: status %d, %s\n", c->name, k, st,
            lua_tostring(L, -1) ? lua_tostring(L, -1) : "(no message)");
  lua_settop(L, top);
  return r;
}

/* Nothing in dir but the inputs and finished outputs: no temporary. */
static int no_temporaries(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *de;
  int clean = 1;
  if (!d) return 0;
  while ((de = readdir(d)) != NULL)
    if (strstr(de->d_name, ".tmp")) {
      fprintf(stderr, "test_lua_oom: temporary left: %s/%s\n", dir, de->d_name);
      clean = 0;
    }
  closedir(d);
  return clean;
}

/* Every k for one case in one state, then the state closed. */
static void check_case(const lcase *c, const char *dir) {
  failing a;
  lua_State *L;
  long k, bad = 0, broken = 0, refusals = 0;
  int r = 0, leaks;
  memset(&a, 0, sizeof a);
  L = new_state(&a, dir);
  CHECK(L != NULL);
  if (!L) return;
  if (run(L, &a, c, 0) != 1) { /* the case itself is wrong */
    CHECK(!"the call works with memory enough");
    lua_close(L);
    return;
  }
  for (k = 1; k < 200000 && (r = run(L, &a, c, k)) != 1; k++) {
    refusals++;
    if (r < 0) bad++;
    if (run(L, &a, c, 0) != 1) broken++; /* the state survives */
    if (bad || broken) break; /* said once is enough */
    if (k % 64 == 0) lua_gc(L, LUA_GCCOLLECT); /* finalizers run while the state lives */
  }
  if (bad || broken || r != 1)
    fprintf(stderr, "test_lua_oom: %s: %ld bad failures, %ld broken states, %s\n", c->name, bad,
            broken, r == 1 ? "finished" : "never finished");
  CHECK(r == 1);
  CHECK(bad == 0);
  CHECK(broken == 0);
  CHECK(refusals > 0);
  lua_close(L);
  if (a.live != 0) fprintf(stderr, "test_lua_oom: %s: %lld bytes left\n", c->name, a.live);
  CHECK(a.live == 0);
  leaks = LEAK_CHECK();
  if (leaks) fprintf(stderr, "test_lua_oom: %s leaks (see above)\n", c->name);
  CHECK(leaks == 0);
  CHECK(no_temporaries(dir));
}

/* Each case in a child process, so a leak is charged to its own case. */
static void check_case_apart(const lcase *c, const char *dir) {
  int status = 0;
  pid_t pid;
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    passed = failed = 0; /* the parent's tally is not the child's */
    check_case(c, dir);
    exit(failed != 0);
  }
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fprintf(stderr, "test_lua_oom: %s failed\n", c->name);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void) {
  char dir[] = "/tmp/cgwb-lua-oom-XXXXXX";
  size_t i;
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  for (i = 0; i < sizeof CASES / sizeof CASES[0]; i++) check_case_apart(&CASES[i], dir);
  {
    char cmd[64 + sizeof dir];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "test_lua_oom: cannot remove %s\n", dir);
  }
  return check_report("test_lua_oom");
}
