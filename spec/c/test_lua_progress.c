/* test_lua_progress.c: the progress renderer belongs to its lua_State
 * (csrc/lua/lcg_progress.c keeps it in the registry, no C globals).  Two
 * states in one process, CGWB_PROGRESS=always and CGWB_PROGRESS_DELAY=0:
 * quieting one (what --quiet does) leaves the other drawing, each state's
 * budget carries its own hook (none on the quiet one), and the same work in
 * each writes a line for the loud state only.  stderr goes to a temporary
 * file that is read back.
 *
 * It embeds Lua and links the binding objects (scripts/run-tests.sh adds
 * the flags for test_lua_*).  Prints "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L /* setenv, fileno */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "check.h"
#include "lua/lcg.h"

int luaopen_cgwb_core(lua_State *L);

/* A state with cgwb.core in the global `core`. */
static lua_State *new_state(void) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "cgwb.core", luaopen_cgwb_core, 0);
  lua_setglobal(L, "core");
  return L;
}

/* Runs chunk s in L; 1 if it ran. */
static int run(lua_State *L, const char *s) {
  if (luaL_dostring(L, s) == LUA_OK) return 1;
  fprintf(stdout, "lua error: %s\n", lua_tostring(L, -1));
  lua_pop(L, 1);
  return 0;
}

/* The boolean chunk s returns in L (-1 on an error). */
static int truth(lua_State *L, const char *s) {
  int v;
  if (luaL_dostring(L, s) != LUA_OK) {
    fprintf(stdout, "lua error: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* What was written to the file at fd 2 since offset *off. */
static char *stderr_since(FILE *f, long *off) {
  static char buf[4096]; /* test-only scratch */
  size_t n;
  fflush(stderr);
  fseek(f, *off, SEEK_SET);
  n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  *off += (long)n;
  return buf;
}

#define WORK "local r = core.progress_clock(); core.progress_update('working', 5, 10, r); " \
             "core.progress_finish('working', 10, r)"

int main(void) {
  char path[] = "/tmp/cgwb-progress-XXXXXX";
  int fd = mkstemp(path), saved = dup(2);
  FILE *f;
  lua_State *a, *b;
  long off = 0;
  const char *out;
  CHECK(fd >= 0 && saved >= 0);
  if (fd < 0 || saved < 0) return check_report("test_lua_progress");
  setenv("CGWB_PROGRESS", "always", 1);
  setenv("CGWB_PROGRESS_DELAY", "0", 1);
  dup2(fd, 2);
  f = fdopen(fd, "r");
  a = new_state(), b = new_state();
  CHECK(truth(a, "return core.progress_enabled()") == 1);
  CHECK(truth(b, "return core.progress_enabled()") == 1);
  CHECK(run(a, "core.progress_quiet(true)"));
  CHECK(truth(a, "return core.progress_quiet()") == 1);
  CHECK(truth(a, "return not core.progress_enabled()") == 1);
  CHECK(truth(b, "return core.progress_quiet() == false and core.progress_enabled()") == 1);
  CHECK(lcg_budget(a)->progress.fn == NULL); /* the core's loops report nothing in a */
  CHECK(lcg_budget(b)->progress.fn != NULL && lcg_budget(b) != lcg_budget(a));
  CHECK(run(a, WORK));
  out = stderr_since(f, &off);
  CHECK(out[0] == 0); /* the quiet state writes nothing */
  CHECK(run(b, WORK));
  out = stderr_since(f, &off);
  CHECK(strstr(out, "\rcgwb: working 50% 5/10") != NULL);
  CHECK(strstr(out, "\rcgwb: working 100% 10/10") != NULL);
  CHECK(strlen(out) > 0 && out[strlen(out) - 1] == '\n');
  CHECK(run(b, "core.progress_quiet(true)")); /* and back: each flag is its own */
  CHECK(run(a, "core.progress_quiet(false)"));
  CHECK(run(b, WORK));
  CHECK(stderr_since(f, &off)[0] == 0);
  CHECK(run(a, WORK));
  CHECK(strstr(stderr_since(f, &off), "cgwb: working 100% 10/10") != NULL);
  lua_close(a);
  lua_close(b);
  dup2(saved, 2);
  fclose(f);
  remove(path);
  return check_report("test_lua_progress");
}
