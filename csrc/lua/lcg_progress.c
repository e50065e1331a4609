/* lcg_progress.c: the progress line on stderr, one renderer per lua_State.
 *
 * The core reports long work through the cg_progress hook of the state's
 * budget (cg_util.h); Lua code through cgwb.progress (core.progress_*); the
 * exact search through lcg_progress_update.  All of it is drawn here, so it
 * looks the same everywhere:
 *
 *   on a terminal   cgwb: building graph 45% 450000/1000000 1.2M/s 0.4 s left
 *                   redrawn in place (\r, \27[K) at most 10 times a second,
 *                   only once the work has run CGWB_PROGRESS_DELAY seconds
 *                   (default 1), closed by a newline when the work ends;
 *   elsewhere       cgwb: building graph: 1000000 in 2.31 s
 *                   one line when work that took at least the delay ends.
 *
 * CGWB_PROGRESS=auto (default: as stderr is), always (draw as on a terminal),
 * never (nothing).  progress.quiet(true) (what --quiet sets) silences it for
 * this state only.  The renderer's state is a userdata in the registry (no
 * C globals: several states in one process stay independent); the hook it
 * hangs on the budget points into it, and both live until lua_close.  The
 * hook runs inside core code: it never calls Lua and never raises. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lcg.h"

#define LCG_PROGRESS "cgwb.Progress" /* registry key of the state's renderer */
#define REDRAW 0.1                   /* seconds between redraws on a terminal */

enum { PM_NEVER, PM_AUTO, PM_ALWAYS };

/* The renderer: the mode read once from the environment, the quiet flag,
 * and the piece of work under way (what[0] == 0: none).  Work may nest (a
 * Lua loop over eliminations): a new `what` takes the line over without a
 * newline, and the outer work, reported again with its t0, takes it back. */
struct lcg_progress {
  int mode, tty, quiet;
  double delay;
  char what[64];
  double t0, last; /* start of the work; the last redraw of any work (< 0: none yet) */
  int shown;       /* the work under way has been drawn */
  uint64_t done0, done, total; /* done0: at the first report (the rate counts from it) */
  int onscreen; /* a line not closed by a newline is on the terminal */
  char extra[160];
};

double lcg_progress_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int env_mode(void) {
  const char *s = getenv("CGWB_PROGRESS");
  if (s && !strcmp(s, "never")) return PM_NEVER;
  if (s && !strcmp(s, "always")) return PM_ALWAYS;
  return PM_AUTO; /* "auto", unset, or anything else */
}

static double env_delay(void) {
  const char *s = getenv("CGWB_PROGRESS_DELAY");
  char *end;
  double d;
  if (!s || !*s) return 1.0;
  d = strtod(s, &end);
  return *end == 0 && d >= 0 && d < 1e9 ? d : 1.0;
}

int lcg_progress_enabled(const lcg_progress *p) { return p->mode != PM_NEVER && !p->quiet; }

/* "1.2M", "450k", "12" (a rate's number). */
static void fmt_count(char *buf, size_t size, double x) {
  if (x >= 1e9) snprintf(buf, size, "%.1fG", x / 1e9);
  else if (x >= 1e6) snprintf(buf, size, "%.1fM", x / 1e6);
  else if (x >= 1e4) snprintf(buf, size, "%.0fk", x / 1e3);
  else snprintf(buf, size, "%.0f", x);
}

/* Draws the line in place; `end`: the last one, with the time taken, and
 * a newline. */
static void draw(lcg_progress *p, double t, int end) {
  double el = t - p->t0, rate = el > 0 && p->done > p->done0 ? (double)(p->done - p->done0) / el : 0;
  char r[32];
  fprintf(stderr, "\rcgwb: %s", p->what);
  if (p->total && p->done <= p->total)
    fprintf(stderr, " %d%% %llu/%llu", (int)(100.0 * (double)p->done / (double)p->total),
            (unsigned long long)p->done, (unsigned long long)p->total);
  else fprintf(stderr, " %llu", (unsigned long long)p->done);
  if (rate > 0) fmt_count(r, sizeof r, rate), fprintf(stderr, " %s/s", r);
  if (end) fprintf(stderr, " in %.2f s", el);
  else if (rate > 0 && p->total && p->done <= p->total)
    fprintf(stderr, " %.1f s left", (double)(p->total - p->done) / rate);
  fprintf(stderr, "%s\033[K%s", p->extra, end ? "\n" : "");
  fflush(stderr);
  p->onscreen = !end;
  p->shown = 1;
  p->last = t;
}

/* Closes a line left on the terminal (before other output: an error). */
static void close_line(lcg_progress *p) {
  if (p->onscreen) fputc('\n', stderr), fflush(stderr);
  p->onscreen = 0;
  p->what[0] = 0;
}

/* Makes `what` the work under way (started at t0, or now when t0 < 0). */
static void stage(lcg_progress *p, const char *what, uint64_t done, double t0, double t) {
  if (p->what[0] && !strcmp(p->what, what)) {
    if (t0 >= 0) p->t0 = t0;
    return;
  }
  snprintf(p->what, sizeof p->what, "%s", what);
  p->t0 = t0 >= 0 ? t0 : t;
  p->done0 = t0 >= 0 ? 0 : done; /* a start the caller knows: counts from 0 */
  p->done = p->total = 0;
  p->shown = 0;
  p->extra[0] = 0;
}

void lcg_progress_update(lcg_progress *p, const char *what, uint64_t done, uint64_t total,
                         double t0, const char *extra) {
  double t;
  if (!lcg_progress_enabled(p)) return;
  t = lcg_progress_now();
  stage(p, what, done, t0, t);
  p->done = done, p->total = total;
  if (extra) snprintf(p->extra, sizeof p->extra, "%s", extra);
  if (!p->tty || t - p->t0 < p->delay || (done == 0 && !extra)) return;
  if (!p->shown || t - p->last >= REDRAW) draw(p, t, 0); /* a new work draws at once */
}

void lcg_progress_finish(lcg_progress *p, const char *what, uint64_t done, double t0) {
  double t;
  if (!lcg_progress_enabled(p)) return;
  t = lcg_progress_now();
  stage(p, what, done, t0, t);
  p->done = done;
  if (done == 0 && !p->shown) { /* nothing was to be done: no line */
    p->what[0] = 0;
    return;
  }
  p->total = done; /* the work is done: a header's count or an estimate may have been off */
  if (p->tty) {
    if (p->shown || t - p->t0 >= p->delay) draw(p, t, 1);
  } else if (t - p->t0 >= p->delay) {
    fprintf(stderr, "cgwb: %s: %llu in %.2f s\n", p->what, (unsigned long long)done, t - p->t0);
    fflush(stderr);
  }
  p->what[0] = 0;
}

/* The core's hook (cg_progress): done == total ends the work. */
static void hook(void *ud, const char *what, uint64_t done, uint64_t total) {
  lcg_progress *p = (lcg_progress *)ud;
  if (done == total) lcg_progress_finish(p, what, done, -1);
  else lcg_progress_update(p, what, done, total, -1, NULL);
}

/* Hangs the hook on the state's budget, or takes it off. */
static void install(lua_State *L, lcg_progress *p) {
  cg_budget *b = lcg_budget(L);
  b->progress.fn = lcg_progress_enabled(p) ? hook : NULL;
  b->progress.ud = p;
}

lcg_progress *lcg_progress_of(lua_State *L) {
  lcg_progress *p;
  if (lua_getfield(L, LUA_REGISTRYINDEX, LCG_PROGRESS) == LUA_TUSERDATA) {
    p = (lcg_progress *)lua_touserdata(L, -1);
    lua_pop(L, 1);
    return p;
  }
  lua_pop(L, 1);
  p = (lcg_progress *)lua_newuserdatauv(L, sizeof *p, 0);
  memset(p, 0, sizeof *p);
  p->mode = env_mode();
  p->tty = p->mode == PM_ALWAYS || (p->mode == PM_AUTO && isatty(2));
  p->delay = env_delay();
  p->last = -1;
  lua_setfield(L, LUA_REGISTRYINDEX, LCG_PROGRESS);
  install(L, p);
  return p;
}

/* {==== core.progress_*: the Lua face (lua/cgwb/progress.lua) ====} */

/* core.progress_update(what, done [, total [, t0]]): draws when due. */
static int l_update(lua_State *L) {
  const char *what = luaL_checkstring(L, 1);
  lua_Integer done = luaL_checkinteger(L, 2), total = luaL_optinteger(L, 3, 0);
  double t0 = luaL_optnumber(L, 4, -1);
  luaL_argcheck(L, done >= 0, 2, "must be >= 0");
  luaL_argcheck(L, total >= 0, 3, "must be >= 0");
  lcg_progress_update(lcg_progress_of(L), what, (uint64_t)done, (uint64_t)total, t0, NULL);
  return 0;
}

/* core.progress_finish(what, done [, t0]): the last line of the work. */
static int l_finish(lua_State *L) {
  const char *what = luaL_checkstring(L, 1);
  lua_Integer done = luaL_checkinteger(L, 2);
  double t0 = luaL_optnumber(L, 3, -1);
  luaL_argcheck(L, done >= 0, 2, "must be >= 0");
  lcg_progress_finish(lcg_progress_of(L), what, (uint64_t)done, t0);
  return 0;
}

/* core.progress_quiet([flag]) -> flag: silences this state's progress. */
static int l_quiet(lua_State *L) {
  lcg_progress *p = lcg_progress_of(L);
  if (!lua_isnone(L, 1)) {
    if (lua_toboolean(L, 1)) close_line(p);
    p->quiet = lua_toboolean(L, 1);
    install(L, p);
  }
  lua_pushboolean(L, p->quiet);
  return 1;
}

/* core.progress_enabled() -> whether progress is shown at all (not never,
 * not quiet); the second value: whether lines are drawn in place. */
static int l_enabled(lua_State *L) {
  lcg_progress *p = lcg_progress_of(L);
  lua_pushboolean(L, lcg_progress_enabled(p));
  lua_pushboolean(L, lcg_progress_enabled(p) && p->tty);
  return 2;
}

/* core.progress_clock() -> seconds on the renderer's monotonic clock. */
static int l_clock(lua_State *L) {
  lua_pushnumber(L, lcg_progress_now());
  return 1;
}

static const luaL_Reg funcs[] = {{"progress_update", l_update},   {"progress_finish", l_finish},
                                 {"progress_quiet", l_quiet},     {"progress_enabled", l_enabled},
                                 {"progress_clock", l_clock},     {NULL, NULL}};

void lcg_open_progress(lua_State *L) {
  luaL_setfuncs(L, funcs, 0); /* the core's table is at the top */
  lcg_progress_of(L);
}

/* }==== */

/* {==== API reference: LDoc entries (make doc -> build/doc/api/; doc/manual.md) ====} */

/***
The C module: tapes, graphs, schedules, linearized graphs and eliminations, kernels.
@module cgwb.core
*/

/*** core.progress_update(what, done [, total [, t0]]): reports `done` units of the work `what`
(of `total`, 0 or nil: unknown) started at `t0` (core.progress_clock()); draws when due.
@function progress_update
*/

/*** core.progress_finish(what, done [, t0]): ends the work `what` (its last line).
@function progress_finish
*/

/*** core.progress_quiet([flag]) -> flag: silences this state's progress (what `--quiet` sets).
@function progress_quiet
*/

/*** core.progress_enabled() -> shown, drawn: whether progress is shown at all, and redrawn in place.
@function progress_enabled
*/

/*** core.progress_clock() -> seconds on the renderer's monotonic clock.
@function progress_clock
*/

/* }==== */
