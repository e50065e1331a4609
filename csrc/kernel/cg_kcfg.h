/*
 * cg_kcfg.h: the control flow graph of a kernel function (Utke, Flattening,
 * sec. 2): vertices ENTRY, EXIT, LOOP, ENDLOOP, BRANCH, ENDBRANCH and BLOCK,
 * where a BLOCK holds a maximal straight-line run of statements.
 *
 * Representation (indices, not pointers; every array owned):
 *  - vertices 0..nv-1 numbered in pre-order of the source: ENTRY is 0, each
 *    vertex is made when the walk over the body reaches it, EXIT is nv-1;
 *  - kind[v] a CG_KV_*; stmt[v] the IF (BRANCH, ENDBRANCH) or LOOP (LOOP,
 *    ENDLOOP) statement v comes from, -1 for the others;
 *  - a BLOCK's statements are bst[bst_start[v] .. bst_start[v+1]), in order:
 *    ASSIGN, CALL, ALLOC and FREE, ended by at most one RETURN, BREAK or CONTINUE (which
 *    ends the run: RETURN with an edge to EXIT, BREAK to its loop's ENDLOOP,
 *    CONTINUE to the loop's step block, else its pre block, else the LOOP
 *    vertex); a loop's pre and step slices are blocks of their own;
 *  - successors succ[succ_start[v] .. succ_start[v+1]) and predecessors
 *    pred[...] likewise (CSR).  A BRANCH has exactly two successors, the
 *    then side first; a LOOP too, the body first, ENDLOOP second (also for
 *    a loop without a condition: the graph is structural).  Edges from
 *    one vertex to the same vertex may repeat (an if without branches);
 *  - stmt_vertex[s] for each statement s of the kernel: the BLOCK holding
 *    it, the BRANCH of an IF, the LOOP of a LOOP; -1 for statements of
 *    other functions.
 * A for or while loop: [pre block] -> LOOP -> body ... -> [step block] ->
 * back to the pre block or LOOP; LOOP -> ENDLOOP.  A do loop: entered at
 * its body; the body, step and pre lead to LOOP, whose test goes back to
 * the body or on to ENDLOOP.  Unreachable code (after a return) gets
 * blocks without predecessors; an ENDBRANCH both of whose sides return
 * has none either.
 */
#ifndef CG_KCFG_H
#define CG_KCFG_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif
#include <stdio.h>

#include "cg_kernel.h"

#define CG_KVERTS(X) X(ENTRY, entry) X(EXIT, exit) X(LOOP, loop) X(ENDLOOP, endloop) \
  X(BRANCH, branch) X(ENDBRANCH, endbranch) X(BLOCK, block)
enum {
#define CG_KV_ENUM(id, nm) CG_KV_##id,
  CG_KVERTS(CG_KV_ENUM)
#undef CG_KV_ENUM
  CG_KV_COUNT
};

typedef struct cg_kcfg {
  cg_alloc *A;
  int32_t func;        /* the function */
  uint32_t nv, ne;     /* vertices, edges */
  uint32_t nstmt;      /* the kernel's statements (length of stmt_vertex) */
  uint32_t nbst;       /* statements held by blocks */
  uint8_t *kind;       /* nv */
  int32_t *stmt;       /* nv */
  uint32_t *bst_start; /* nv + 1 */
  int32_t *bst;        /* nbst */
  uint32_t *succ_start, *succ; /* nv + 1, ne */
  uint32_t *pred_start, *pred; /* nv + 1, ne */
  int32_t *stmt_vertex;        /* nstmt */
  uint32_t entry, exit;
} cg_kcfg;

/* The name of a vertex kind ("block", ...), NULL out of range. */
const char *cg_kvert_name(int kind);
/* Builds the graph of function f (0-based) of a loaded kernel.  NULL and e
 * (CG_EUSAGE for a bad f, CG_ENOMEM) on failure.  Cost O(statements and
 * expressions of f + statements of the kernel). */
cg_kcfg *cg_kcfg_build(cg_alloc *A, const cg_kernel *k, int32_t f, cg_error *e);
void cg_kcfg_free(cg_kcfg *g);
/* A text dump, one line per vertex: "3 block [s4 s5] -> 4 (line 7)" style,
 * statements 0-based.  CG_EIO when the stream fails. */
int cg_kcfg_print(const cg_kernel *k, const cg_kcfg *g, FILE *fp, cg_error *e);
/* The graph in DOT: a node per vertex labelled with its kind and source
 * lines, edges labelled T/F out of BRANCH and LOOP vertices. */
int cg_kcfg_dot(const cg_kernel *k, const cg_kcfg *g, FILE *fp, cg_error *e);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
