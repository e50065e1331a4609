/* examples/c-host/host.c: a C program that embeds cgwb: it creates its own
 * lua_States, points their package.path and package.cpath at an installed
 * cgwb (PREFIX/share/lua/5.4, PREFIX/lib/lua/5.4), requires "cgwb" and runs
 * a job script in them (doc/c-api.md, "Embedding cgwb's Lua face").  It
 * checks that states do not share cgwb's state: each has its own memory
 * limit (CGWB_MEMORY_LIMIT read when a state first uses the core,
 * core.memory_limit after) and its own results, closing one leaves the
 * others working, and states on two threads at once give the results they
 * give one after the other.  Prints one "ok"/"FAIL" line per check and ends
 * with "host: N passed, N failed".
 *   cc -std=c99 host.c $(pkg-config --cflags --libs lua5.4) -pthread -o host
 *   ./host PREFIX TAPE_A TAPE_B */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

/* The job: (tape [, limit]) -> "name: nnz N, mults M, sum S" of the Jacobian by
 * Markowitz elimination; raises when the memory limit stops it. */
static const char JOB[] =
    "local path, limit = ...\n"
    "local cgwb = require 'cgwb'\n"
    "if limit then cgwb.core.memory_limit(limit) end\n"
    "local tape = assert(cgwb.read_tape(path))\n"
    "local g = assert(cgwb.build_graph(tape))\n"
    "local lg = assert(cgwb.core.linearize(g))\n"
    "local cost = assert(lg:eliminate('markowitz'))\n"
    "local J = assert(lg:jacobian())\n"
    "local s = 0\n"
    "for k = 1, J.nnz do s = s + J.vals[k] end\n"
    "return ('%s: nnz %d, mults %d, sum %.17g'):format(path:match('[^/]*$'), J.nnz, cost.mults, s)\n";

/* Requires cgwb and reads the state's limit (the core's first use). */
static const char USE[] = "return tostring((require 'cgwb'.core.memory_limit()))";

static int passed, failed;
static const char *prefix;

static void check(int ok, const char *what, const char *detail) {
  if (ok) passed++, printf("ok %s\n", what);
  else failed++, printf("FAIL %s: %s\n", what, detail ? detail : "");
}

/* A new state with the standard libraries and package.path/cpath at prefix. */
static lua_State *new_state(void) {
  lua_State *L = luaL_newstate();
  if (!L) return NULL;
  luaL_openlibs(L);
  lua_getglobal(L, "package");
  lua_pushfstring(L, "%s/share/lua/5.4/?.lua;%s/share/lua/5.4/?/init.lua;", prefix, prefix);
  lua_getfield(L, -2, "path");
  lua_concat(L, 2); /* the install first, then the defaults (lpeg, argparse) */
  lua_setfield(L, -2, "path");
  lua_pushfstring(L, "%s/lib/lua/5.4/?.so;", prefix);
  lua_getfield(L, -2, "cpath");
  lua_concat(L, 2);
  lua_setfield(L, -2, "cpath");
  lua_pop(L, 1);
  return L;
}

/* Runs chunk with (a, limit >= 0 or none); the result string or the error
 * into out.  Returns 1 when it ran. */
static int run(lua_State *L, const char *chunk, const char *a, long limit, char *out, size_t size) {
  int nargs = limit >= 0 ? 2 : 1, ok;
  if (luaL_loadstring(L, chunk) != LUA_OK) return snprintf(out, size, "%s", lua_tostring(L, -1)), lua_pop(L, 1), 0;
  lua_pushstring(L, a);
  if (limit >= 0) lua_pushinteger(L, limit);
  ok = lua_pcall(L, nargs, 1, 0) == LUA_OK;
  snprintf(out, size, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(no message)");
  lua_pop(L, 1);
  return ok;
}

/* The state's memory limit, through core.memory_limit(). */
static long limit_of(lua_State *L) {
  char out[64];
  run(L, USE, "", -1, out, sizeof out);
  return atol(out);
}

/* {==== two states, interleaved ====} */

static void interleaved(const char *ta, const char *tb, char *ref_a, char *ref_b) {
  char out[1024];
  lua_State *A, *B;
  setenv("CGWB_MEMORY_LIMIT", "256K", 1); /* read when A first uses the core */
  A = new_state();
  check(A && run(A, USE, "", -1, out, sizeof out), "A requires cgwb", out);
  setenv("CGWB_MEMORY_LIMIT", "0", 1); /* B: no limit */
  B = new_state();
  check(B && run(B, USE, "", -1, out, sizeof out), "B requires cgwb", out);
  unsetenv("CGWB_MEMORY_LIMIT");
  check(limit_of(A) == 256 * 1024 && limit_of(B) == 0, "A and B keep their own limits", NULL);
  check(!run(A, JOB, ta, -1, out, sizeof out) && strstr(out, "memory limit"),
        "A's limit stops A's job", out);
  check(run(B, JOB, tb, -1, ref_b, 1024), "B's job runs (no limit)", ref_b);
  check(limit_of(B) == 0, "A's refusal leaves B's limit", NULL);
  check(run(A, JOB, ta, 0, ref_a, 1024), "A runs once its limit is lifted", ref_a);
  check(strcmp(ref_a, ref_b) != 0, "A and B have their own results", ref_a);
  /* B keeps a linearized graph across A's close */
  check(run(B, "local cgwb = require 'cgwb'\n"
               "KEPT = assert(cgwb.core.linearize(assert(cgwb.build_graph(...))))\nreturn 'kept'",
            tb, -1, out, sizeof out), "B keeps a graph", out);
  lua_close(A);
  check(run(B, "local cost = assert(KEPT:eliminate('markowitz'))\n"
               "local J = assert(KEPT:jacobian()); KEPT = nil; collectgarbage()\n"
               "return ('%d %d'):format(J.nnz, cost.mults)", "", -1, out, sizeof out),
        "B works on after A is closed", out);
  check(run(B, JOB, tb, -1, out, sizeof out) && strcmp(out, ref_b) == 0,
        "B's job gives the same result after A is closed", out);
  lua_close(B);
}

/* }==== */

/* {==== two states on two threads ====} */

typedef struct job {
  const char *tape, *ref;
  long limit;
  int runs, ok, refused;
  char out[1024];
} job;

/* Runs the job `runs` times in a state of its own, under its limit; then
 * once under a limit far too small, which must refuse. */
static void *thread_main(void *ud) {
  job *j = (job *)ud;
  lua_State *L = new_state();
  int k;
  if (!L) return NULL;
  j->ok = 1;
  for (k = 0; k < j->runs; k++)
    if (!run(L, JOB, j->tape, j->limit, j->out, sizeof j->out) || strcmp(j->out, j->ref) != 0) j->ok = 0;
  j->refused = !run(L, JOB, j->tape, 64 * 1024, j->out, sizeof j->out) && strstr(j->out, "memory limit");
  lua_close(L);
  return NULL;
}

static void threads(const char *ta, const char *tb, const char *ref_a, const char *ref_b) {
  job j[2] = {{ta, ref_a, 1L << 30, 3, 0, 0, ""}, {tb, ref_b, 0, 3, 0, 0, ""}};
  pthread_t th[2];
  int k, started = 1;
  for (k = 0; k < 2; k++) started &= pthread_create(&th[k], NULL, thread_main, &j[k]) == 0;
  check(started, "two threads start", NULL);
  if (!started) return;
  for (k = 0; k < 2; k++) pthread_join(th[k], NULL);
  check(j[0].ok, "thread 1 (limit 1 GiB) gives A's result", j[0].out);
  check(j[1].ok, "thread 2 (no limit) gives B's result", j[1].out);
  check(j[0].refused && j[1].refused, "a 64 KiB limit refuses on each thread", j[0].out);
}

/* }==== */

int main(int argc, char **argv) {
  char ref_a[1024] = "", ref_b[1024] = "";
  if (argc != 4) return fprintf(stderr, "usage: %s PREFIX TAPE_A TAPE_B\n", argv[0]), 2;
  prefix = argv[1];
  interleaved(argv[2], argv[3], ref_a, ref_b);
  printf("A: %s\nB: %s\n", ref_a, ref_b);
  threads(argv[2], argv[3], ref_a, ref_b);
  printf("host: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
