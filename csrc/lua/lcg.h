/* lcg.h: what the binding files share.  Only csrc/lua/ includes lua.h.  The
 * helpers are lcg_util.c's (it calls no other binding file); the functions
 * declared with a file's name are that file's; lcgwb.c, the module opener,
 * calls each file's lcg_open_*. */
#ifndef LCG_H
#define LCG_H

#include <lauxlib.h>
#include <lua.h>

#include "../tape/cg_tape.h"

#if defined(__GNUC__)
#define LCG_EXPORT __attribute__((visibility("default")))
#else
#define LCG_EXPORT
#endif

#define LCG_TAPE "cgwb.Tape"

/* A Tape userdata: the core object and the allocator it uses.  The
 * userdata is created empty first, so an error halfway leaves an object its
 * __gc can free (doc/robustness.md, "Bindings"). */
typedef struct ltape {
  cg_tape *t;
  cg_alloc A;
} ltape;

/* The state's allocator as a core allocator: Lua's, counted against the
 * state's memory limit (lcg_budget). */
void lcg_alloc(lua_State *L, cg_alloc *A);
/* The state's memory limit (CGWB_MEMORY_LIMIT, core.memory_limit). */
cg_budget *lcg_budget(lua_State *L);
/* Pushes nil and the message; returns 2 (for `return nil, msg`).  A failure
 * the memory limit caused raises instead, with the message saying so: it is
 * a runtime error, not bad input. */
int lcg_fail(lua_State *L, const cg_error *e);
/* lcg_fail for an elimination under the ordering named `order`: the limit
 * is then said to be the ordering's. */
int lcg_fail_order(lua_State *L, const cg_error *e, const char *order);
/* Raises "<what>: out of memory" for a failed core allocation made here,
 * naming the memory limit when it refused it. */
int lcg_nomem(lua_State *L, const char *what);
/* Registers a userdata type: methods in __index, plus metamethods. */
void lcg_newclass(lua_State *L, const char *name, const luaL_Reg *methods,
                  const luaL_Reg *meta);
/* Reads the array of numbers at `idx` into a scratch userdata it pushes (so
 * an error cannot leak it); *n gets the length. */
double *lcg_numbers(lua_State *L, int idx, size_t *n);

/* An array of numbers, or of 0-based ids pushed 1-based. */
void lcg_push_numbers(lua_State *L, const double *v, size_t n);
void lcg_push_ids(lua_State *L, const uint32_t *ids, size_t n);
/* Lua sees 1-based ids, the core 0-based ones: the only places that add or
 * take the 1 are these.  lcg_push_id pushes a 0-based id (a node, vertex,
 * record, row or column) as id + 1; lcg_check_id reads argument idx as an
 * id in 1..n and returns it 0-based, else raises "bad argument #idx to
 * 'f' (<what> id out of range)". */
void lcg_push_id(lua_State *L, uint64_t id);
uint32_t lcg_check_id(lua_State *L, int idx, uint32_t n, const char *what);
/* The optional point at idx (NULL if absent); raises unless it has n values.
 * The values live in a scratch userdata pushed on the stack. */
const double *lcg_optpoint(lua_State *L, int idx, uint64_t n, const char *fn);
/* Pushes {y}, the number of branch changes, the first (1-based) or nil. */
int lcg_push_evaluation(lua_State *L, const double *y, size_t m, const cg_branch *br);
/* Pushes the number of branch changes, the first changed record (1-based)
 * and its opcode's name (both nil when none); returns 3. */
int lcg_push_branch(lua_State *L, const cg_branch *br);

/* {==== boxes ====}
 * C memory that must live across a Lua call that may raise (lua_push*,
 * luaL_check*, a callback) is owned by a box: a userdata made before the
 * memory, whose __gc (and __close) releases it, as lauxlib's luaL_Buffer
 * box does (no C local owns memory across a call that may raise:
 * doc/robustness.md, "Bindings").  The payload starts zeroed; release
 * frees what it holds, given the state's allocator (lcg_alloc, kept in the
 * box by value: the budget it points to outlives every finalizer). */
typedef void (*lcg_release)(void *payload, cg_alloc *A);
/* Pushes a box with a zeroed payload of `size` bytes; returns the payload. */
void *lcg_box(lua_State *L, size_t size, lcg_release release);
/* Releases a box's payload now (the normal path); its __gc then does
 * nothing.  Idempotent. */
void lcg_unbox(void *payload);
/* Registers the box metatable (cgwb.Box): first thing luaopen_cgwb_core does. */
void lcg_open_util(lua_State *L);

/* Where text output goes: a file written through a temporary name, or a
 * string returned to Lua (path NULL).  It lives in a box: an error before
 * lcg_sink_close removes the temporary or frees the text. */
typedef struct lcg_sink {
  FILE *fp;
  cg_outfile o;
  char *buf;
  size_t len;
  const char *path;
} lcg_sink;
/* Pushes the sink's box and opens it; NULL and e when the file cannot be
 * opened (the box stays on the stack). */
lcg_sink *lcg_sink_open(lua_State *L, const char *path, cg_error *e);
/* Finishes: rc != 0 discards the output and returns nil, e->msg; else pushes
 * true (a file) or the text.  Returns the number of values pushed (2 on a
 * failure). */
int lcg_sink_close(lua_State *L, lcg_sink *s, int rc, cg_error *e);
/* }==== */

ltape *lcg_checktape(lua_State *L, int idx);
ltape *lcg_newtape(lua_State *L);

/* The built graph of a cgwb.Graph argument (lcg_graph.c). */
struct cg_graph *lcg_checkgraph(lua_State *L, int idx);
/* Pushes an empty cgwb.Graph userdata (its __gc frees what *slot holds
 * later); *A gets the allocator to build the graph with (the graph's A must
 * then be set to it, as b:finish() does).  Returns the slot. */
struct cg_graph **lcg_newgraph(lua_State *L, cg_alloc **A);
/* The graph of the value at idx if it is a live cgwb.Graph, else NULL. */
struct cg_graph *lcg_graph_of(lua_State *L, int idx);

/* A cgwb.Kernel userdata (lcg_kernel.c): the loaded kernel it owns and the
 * allocator it was loaded with. */
struct cg_kernel;
typedef struct lkernel {
  struct cg_kernel *k;
  cg_alloc A;
} lkernel;
/* The loaded kernel of a cgwb.Kernel argument (raises otherwise, and after
 * k:free()). */
struct cg_kernel *lcg_checkkernel(lua_State *L, int idx);
lkernel *lcg_checklkernel(lua_State *L, int idx);
/* A kernel function named (string) or numbered (1-based) by argument idx,
 * 0-based; raises when there is none. */
int32_t lcg_checkkfunc(lua_State *L, const struct cg_kernel *k, int idx);

/* Pushes an empty cgwb.LinGraph userdata (lcg_elim.c); the linearized graph
 * put into the slot it returns is freed with it, its A to be set to *A. */
struct cg_lin;
struct cg_lin **lcg_newlin(lua_State *L, cg_alloc **A);
/* The graph of a cgwb.LinGraph argument not busy, and its busy flag (set
 * it while Lua callbacks run on the graph; busy may be NULL). */
struct cg_lin *lcg_checklin(lua_State *L, int idx, int **busy);
/* Reads the CALL table at idx (as k:run takes it; options max_steps,
 * max_calls at oidx) for kernel function f into a box pushed on the stack;
 * the call returned lives while the box does (lcg_kernel.c). */
struct cg_kcall;
struct cg_kcall *lcg_kcall(lua_State *L, int32_t f, int idx, int oidx);
/* opts.alias (opts at stack index 3), when not nil, as the override of al's
 * "may" pairs: raises unless it is a function, else calls it with the two
 * sets' address texts through lcg_alias_overrides (lcg_kflat.c, used by
 * lcg_adjoint.c too).  Returns the status (e: a failure of the core). */
struct cg_kalias;
int lcg_alias_override(lua_State *L, struct cg_kalias *al, struct cg_error *e);

/* {==== progress (lcg_progress.c) ====}
 * The state's progress renderer: made on first use, in the registry, with
 * its hook hung on the state's budget unless CGWB_PROGRESS=never or quiet. */
typedef struct lcg_progress lcg_progress;
lcg_progress *lcg_progress_of(lua_State *L);
/* Whether progress is shown at all (not never, not quiet). */
int lcg_progress_enabled(const lcg_progress *p);
/* Work `what` has done `done` of `total` (0: unknown) units since t0 (a
 * progress_clock time; < 0: since its first report); extra (may be NULL)
 * is appended to the line.  Draws when due; never raises or calls Lua. */
void lcg_progress_update(lcg_progress *p, const char *what, uint64_t done, uint64_t total,
                         double t0, const char *extra);
/* Work `what` ended with `done` units: its last line. */
void lcg_progress_finish(lcg_progress *p, const char *what, uint64_t done, double t0);
/* Seconds on the renderer's monotonic clock (for t0). */
double lcg_progress_now(void);
void lcg_open_progress(lua_State *L);
/* }==== */

void lcg_open_tape(lua_State *L);
void lcg_open_elim(lua_State *L);
void lcg_open_graph(lua_State *L);
void lcg_open_sched(lua_State *L);
void lcg_open_kernel(lua_State *L);
void lcg_open_kanalysis(lua_State *L);
void lcg_open_kflat(lua_State *L);
void lcg_open_adjoint(lua_State *L);
void lcg_open_colour(lua_State *L);
/* A Jacobian pushed as lg:jacobian() pushes it (lcg_elim.c). */
struct cg_jac;
void lcg_push_jac(lua_State *L, const struct cg_jac *J);
void lcg_open_search(lua_State *L); /* after lcg_open_elim: adds lg:search */
void lcg_open_jplan(lua_State *L);

/* Kernel analysis options (lcg_kanalysis.c), read from the table at
 * argument 3: opts.assume as assumptions (pushes a scratch userdata; on bad
 * input pushes the message instead and returns NULL), opts[field] as
 * parameter symbols (scratch pushed; NULL when absent; "return" sets *ret
 * when ret is given). */
struct cg_kassume;
struct cg_kassume *lcg_kassumes(lua_State *L, const struct cg_kernel *k, int32_t f, uint32_t *n);
int32_t *lcg_kparams(lua_State *L, const struct cg_kernel *k, int32_t f, int opts,
                     const char *field, uint32_t *n, int *ret);

/* A Lua function answering the "may" pairs of an alias analysis
 * (cg_kalias_override_all; lcg_kanalysis.c): "no", "must", "may" or nil.
 * It runs under lua_pcall, never raising through the core: an error it
 * raises, or another answer, stops the analysis, which unwinds, and is
 * raised once the core has returned (the error itself, or "opts.alias:
 * returned X; expected ..."), as if it had raised there.  push pushes the
 * function and its two arguments for sets s1 and s2 (it runs protected: it
 * may raise); the caller's values at vals[0 .. nval) (nval <=
 * LCG_ALIAS_VALS) are at base .. base + nval - 1 of its stack.  Returns the
 * status of the core (e) when nothing raised. */
#define LCG_ALIAS_VALS 4
typedef void (*lcg_alias_push)(lua_State *L, int base, const struct cg_kalias *al, uint32_t s1,
                               uint32_t s2, void *ud);
int lcg_alias_overrides(lua_State *L, struct cg_kalias *al, lcg_alias_push push, void *ud,
                        const int *vals, int nval, struct cg_error *e);

#endif
