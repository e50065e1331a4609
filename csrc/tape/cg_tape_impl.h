/* cg_tape_impl.h: what the loader (cg_load.c) takes from the in-memory tape
 * (cg_tape.c) beyond cg_tape.h.  Internal: not installed, hidden in
 * libcgwb.so. */
#ifndef CG_TAPE_IMPL_H
#define CG_TAPE_IMPL_H

#include "cg_tape.h"

/* Grows the three arrays for one more record of nloc locations and nval
 * constants; the tape is unchanged on failure. */
int cg_tape_reserve(cg_tape *t, uint32_t nloc, uint32_t nval, cg_error *e);
/* cg_tape_push without its checks of the tables and of a renumbered tape
 * (the opcode tables must be filled: cg_optab_init): a plain record with
 * the right counts (the bulk of every tape) needs only its highest
 * location, any other is checked against the opcode table. */
int cg_tape_push_rec(cg_tape *t, unsigned op, const uint32_t *loc, uint32_t nloc,
                     const double *val, uint32_t nval, cg_error *e);

#endif
