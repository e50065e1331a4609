/* cg_colour.h: the Jacobian by colouring, the standard alternative to
 * elimination on the same linearized graph
 * (Gebremedhin, Manne & Pothen 2005, its four-step procedure): the structural sparsity
 * pattern, a partial distance-2 colouring of its columns (or rows), one
 * compressed tangent (or adjoint) sweep per colour, and the direct recovery
 * of each entry from its colour's compressed column (or row).  The colouring
 * comes from ColPack (cg_colpack.cpp) or is trivial (one colour per column:
 * forward mode; per row: reverse mode). */
#ifndef CG_COLOUR_H
#define CG_COLOUR_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include "cg_lin.h"

/* The structural pattern of the Jacobian, CSR by rows (rows = dependents,
 * columns = independents, 0-based): row i's columns are col[start[i] ..
 * start[i+1]-1], ascending.  Entry (i, j) is present iff a path of edges
 * joins independent j's vertex to dependent i's (a vertex that is both is
 * its own entry). */
typedef struct cg_pattern {
  uint32_t m, n;
  size_t nnz;
  size_t *start;  /* m + 1 */
  uint32_t *col;  /* nnz */
} cg_pattern;

/* The pattern of g's current edges: one depth-first search per independent
 * (or per dependent, whichever side is smaller).  Cost O(min(n, m) * edges). */
int cg_lin_pattern(const cg_lin *g, cg_pattern *P, cg_error *e);
void cg_pattern_free(cg_alloc *A, cg_pattern *P);

enum { CG_SIDE_COLUMN = 0, CG_SIDE_ROW = 1 };
#define CG_NOCOLOUR UINT32_MAX

/* A colouring of the columns (side column) or the rows (side row) of a
 * pattern: colour[k] in 0..ncolours-1 for each of the n columns (m rows);
 * an empty one may instead be CG_NOCOLOUR (no sweep needs it). */
typedef struct cg_colouring {
  int side;
  uint32_t count;     /* n (column) or m (row) */
  uint32_t ncolours;
  uint32_t *colour;   /* count */
} cg_colouring;
void cg_colouring_free(cg_alloc *A, cg_colouring *C);

/* One colour per column or row, empty ones too (forward or reverse mode:
 * one sweep per independent or dependent). */
int cg_colour_trivial(cg_alloc *A, const cg_pattern *P, int side, cg_colouring *C,
                      cg_error *e);
/* ColPack's partial distance-2 colouring (cg_colpack.cpp) under the vertex
 * ordering named (cg_colpack_orders; NULL: SMALLEST_LAST); colours
 * renumbered 0.. by first use, empty columns (rows) CG_NOCOLOUR (no entry at
 * all: no colour, no sweep).  An unknown ordering is CG_EUSAGE. */
int cg_colour_colpack(cg_alloc *A, const cg_pattern *P, int side, const char *order,
                      cg_colouring *C, cg_error *e);
/* The orderings ColPack offers here (NULL-terminated); the first is the default. */
extern const char *const cg_colpack_orders[];

/* Checks that C is a valid colouring of P: every colour in range, empty
 * columns (rows) coloured, and structurally orthogonal: no two columns
 * of one colour share a row (side column), no two rows of one colour share a
 * column (side row).  CG_OK, or CG_ERUNTIME naming the clash. */
int cg_colour_check(cg_alloc *A, const cg_pattern *P, const cg_colouring *C, cg_error *e);

/* The Jacobian of g by one compressed sweep per colour over its current
 * edges (side column: tangent, seeded with 1 at the independents of the
 * colour; side row: adjoint, seeded at the dependents of the colour), each
 * entry of P read from its colour's sweep.  Counts as cg_cost does: mults =
 * edges * colours (one product per edge and sweep), mults_nontrivial the
 * same without the +1 and -1 edges, adds the accumulations into a value
 * already set, steps = sweeps.  J has P's entries, sorted row-major. */
int cg_lin_jac_coloured(const cg_lin *g, const cg_pattern *P, const cg_colouring *C,
                        cg_jac *J, cg_cost *c, cg_error *e);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
