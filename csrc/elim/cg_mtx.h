/*
 * cg_mtx.h: Jacobians written as Matrix Market coordinate files:
 *
 *   %%MatrixMarket matrix coordinate real general
 *   m n nnz
 *   row col value        (1-based, one line per entry, in J's order)
 *
 * Values are "%.17g" (every float cgwb writes is: it reads back as the same
 * double), formatted by cg_fmt_g17 (a value met again is copied from a cache
 * of 512 sets of two), not by one fprintf per entry, into a heap buffer of up
 * to 1 MiB written in chunks (a stack buffer of 16 KiB when the heap has no
 * room).
 */
#ifndef CG_MTX_H
#define CG_MTX_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include "cg_lin.h"

/* Writes J to an open stream; CG_OK, CG_EUSAGE for a NULL argument, or
 * CG_EIO when a write fails (errno then tells why).  The stream is not
 * flushed.  Cost O(nnz), about 60 KiB of stack. */
int cg_jac_write_mtx_fp(const cg_jac *J, FILE *fp);

/* Writes J to `path` under a temporary name renamed into place at the end
 * (cg_open_out), so a failure leaves no partial file.  CG_OK, CG_EUSAGE,
 * or CG_EIO with the message in e. */
int cg_jac_write_mtx(const cg_jac *J, const char *path, cg_error *e);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
