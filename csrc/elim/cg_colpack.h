/* cg_colpack.h: the extern "C" shim over ColPack (cg_colpack.cpp, the one
 * C++ file of the core), in plain C types so that either language reads it. */
#ifndef CG_COLPACK_H
#define CG_COLPACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ColPack's partial distance-2 colouring of the columns (row_side 0) or
 * rows of the m x n pattern in CSR (row i's columns col[start[i] ..
 * start[i+1]-1]) under the vertex ordering named (a ColPack name, checked by
 * the caller).  colour receives n (or m) colours, 0-based, as ColPack
 * numbers them.  Returns 0; 1 when memory ran out; 2 on another failure,
 * with a message in msg.  ColPack allocates with new, outside cg_alloc. */
int cg_colpack_raw(uint32_t m, uint32_t n, const size_t *start, const uint32_t *col,
                   int row_side, const char *order, int32_t *colour, char *msg, size_t msgsize);

#ifdef __cplusplus
}
#endif

#endif
