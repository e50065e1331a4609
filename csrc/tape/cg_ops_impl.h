/* cg_ops_impl.h: the opcode tables behind cg_op (cg_ops.c), for the hot paths
 * of the in-memory tape (cg_tape.c) and the loader (cg_load.c), which read
 * them without a call.  Internal: not installed, hidden in libcgwb.so. */
#ifndef CG_OPS_IMPL_H
#define CG_OPS_IMPL_H

#include "cg_ops.h"

/* cg_op(c) for every code, its permutation decoded. */
extern cg_opinfo cg_optab_full[256];
/* cg_optab_plain[c] == cg_op_plain(c). */
extern uint8_t cg_optab_plain[256];
/* Set once the tables are filled. */
extern int cg_optab_ready;
/* Fills the tables (what cg_op does on first use). */
void cg_optab_init(void);

#endif
