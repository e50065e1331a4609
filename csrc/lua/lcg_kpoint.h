/* lcg_kpoint.h: what lcg_kflat.c uses of lcg_kpoint.c (values at a point
 * and linearized graphs of the flattened subgraphs). */
#ifndef LCG_KPOINT_H
#define LCG_KPOINT_H

#include "lcg.h"
#include "../kernel/cg_kflat.h"

/* The passive values of subgraph g, asked of Lua before building (so no
 * Lua error can jump past the builder) and handed out by lcg_kpassive_cb
 * in cg_kflat_passive_args' order. */
typedef struct lcg_pvctx {
  const double *v;
  uint32_t next, n;
} lcg_pvctx;
int lcg_kpassive_cb(void *ud, int32_t x, double *v, cg_error *e);
/* The passive arguments' values of subgraph g from the value at idx: a
 * function of the expression id, or an array of them in
 * cg_kflat_passive_args' order (scratch pushed); fills p.  what names the
 * caller in messages. */
void lcg_kpassive(lua_State *L, const cg_kflat *fl, uint32_t g, int idx, lcg_pvctx *p,
                  const char *what);

/* Sets res.values and res.lingraph on the table at the top: closures over
 * the box at index box (kept alive), *flp (the flattening, NULL once freed)
 * and the cgwb.Kernel at index kernel (checked alive). */
void lcg_kpoint_set(lua_State *L, int box, cg_kflat *const *flp, int kernel);

#endif
