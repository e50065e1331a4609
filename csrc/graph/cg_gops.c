/* cg_gops.c: the graph operation table and the arithmetic of one operation. */
#include <math.h>
#include <string.h>

#include "../tape/cg_tape.h" /* the tape opcodes of the table's last column */
#include "cg_gops.h"

static const cg_gopinfo gop_table[CG_G_COUNT] = {
#define CG_GOP_INFO(id, nm, ar, hc, top) {#nm, ar, hc, CG_OP_##top},
    CG_GOPS(CG_GOP_INFO)
#undef CG_GOP_INFO
};

const cg_gopinfo *cg_gop(unsigned g) { return &gop_table[g < CG_G_COUNT ? g : 0]; }

int cg_gop_byname(const char *name) {
  unsigned g;
  for (g = 0; g < CG_G_COUNT; g++)
    if (strcmp(gop_table[g].name, name) == 0) return (int)g;
  return -1;
}

double cg_gop_apply(unsigned g, double c, const double *a, uint64_t *sw) {
  return cg_gop_apply_inline(g, c, a, sw);
}
