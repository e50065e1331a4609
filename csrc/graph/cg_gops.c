/* cg_gops.c: the graph operation table (its rows in cg_gops.h): one value
 * and one partials function per row, compiled from the row's expressions,
 * beside their text for the code generators. */
#include <math.h>
#include <string.h>

#include "../tape/cg_tape.h" /* the tape opcodes of the table's last column */
#include "cg_gops.h"

/* {==== the functions of the rows ====} */

#include "cg_gopx_begin.h"

/* The value function of a row: its value, then its check. */
#define CG_GOP_VALUE(id, nm, ar, hc, top, fl, rd, val, chk, ...)     \
  static double value_##nm(double c, const double *a, uint64_t *sw) { \
    double r;                                                         \
    (void)c, (void)a;                                                 \
    r = (val);                                                        \
    if (chk) (*sw)++;                                                 \
    return r;                                                         \
  }
CG_GOPS(CG_GOP_VALUE)
#undef CG_GOP_VALUE

/* The partials function of a row: every column, past the arity too (0 and
 * CG_PM_VAR), so a caller needs no clearing. */
#define CG_GOP_PARTIALS(id, nm, ar, hc, top, fl, rd, val, chk, d0, m0, d1, m1, d2, m2) \
  static void partials_##nm(double c, const double *a, double r, double *d,           \
                            uint8_t *mk) {                                            \
    (void)c, (void)a, (void)r;                                                        \
    d[0] = (d0), d[1] = (d1), d[2] = (d2);                                            \
    mk[0] = (m0), mk[1] = (m1), mk[2] = (m2);                                         \
  }
CG_GOPS(CG_GOP_PARTIALS)
#undef CG_GOP_PARTIALS

/* {==== the table ====} */

/* `none` in the tape_op column: no tape opcode (cg_gops.h).  Every code of
 * cg_ops.h lies below it, so none can be mistaken for one. */
#define CG_OP_none CG_GOP_NO_TAPE_OP
typedef char tape_opcodes_below_none[CG_OP_COUNT <= CG_GOP_NO_TAPE_OP ? 1 : -1];

static const cg_gopinfo gop_table[CG_G_COUNT] = {
#define CG_GOP_INFO(id, nm, ar, hc, top, fl, rd, val, chk, d0, m0, d1, m1, d2, m2) \
  {#nm, ar, hc, CG_OP_##top, fl, rd, {m0, m1, m2}, value_##nm, partials_##nm,      \
   #val, #chk, {#d0, #d1, #d2}},
    CG_GOPS(CG_GOP_INFO)
#undef CG_GOP_INFO
};

#include "cg_gopx_end.h"

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

void cg_gop_partials(unsigned g, double c, const double *a, double r, double *d, uint8_t *mk) {
  if (g < CG_G_COUNT) {
    gop_table[g].partials(c, a, r, d, mk);
    return;
  }
  d[0] = d[1] = d[2] = 0; /* an operation code out of range has no partials */
  mk[0] = mk[1] = mk[2] = CG_PM_VAR;
}
