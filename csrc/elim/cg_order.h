/*
 * cg_order.h: the registry of built-in elimination orderings, the one table
 * the elimination loops (cg_elim.c, cg_edge.c, cg_face.c), the bindings and
 * the command line read.
 *
 * A row names an ordering rule and gives its score function for each mode
 * it serves (vertex, edge, face; NULL where it does not), how far an
 * elimination step changes its scores (the radius the loops rescore), what
 * it needs before the first score (a seed, reach counts) and a one-line
 * description.  A rule of an ordering (cg_rule.kind, cg_xrule.kind) is the
 * index of its row, or CG_ORD_CALLBACK for a score function of the caller;
 * the built-in rows have the names CG_ORD_* of cg_lin.h as their indices.
 * Lower scores are eliminated first; ties go to the next rule of a chain,
 * then to the loop's final tie-break (cg_lin.h).
 *
 * Adding a built-in ordering is one score function and one row in
 * cg_order.c; the bindings, `cgwb.orderings`, `--order` and
 * `--list-orderings` then have it.  A program embedding the core can add
 * rows without editing cg_order.c by compiling it with
 * -DCG_EXTRA_ORDERINGS='"file.h"', where file.h defines the score functions
 * and CG_EXTRA_ROWS, the rows (doc/elimination.md, "Adding an ordering";
 * spec/c/test_order.c does this).  The table is constant: no registration
 * at run time, no global state.
 */
#ifndef CG_ORDER_H
#define CG_ORDER_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include "cg_lin.h"

/* The modes a row serves (cg_ordering_modes). */
enum { CG_MODE_VERTEX = 1, CG_MODE_EDGE = 2, CG_MODE_FACE = 4 };

/* What a row needs computed before its first score (cg_ordering.needs). */
enum {
  CG_NEED_SEED = 1, /* reads cg_score_ctx.seed (--seed) */
  CG_NEED_REACH = 2 /* reads xcnt and ycnt (vertex and edge modes) */
};

/* Fast paths a row allows (cg_ordering.flags). */
enum {
  CG_ORD_SMALL_INT = 1, /* vertex scores are mostly small non-negative integers: alone, the
                         * loop keeps them in its bit set (cg_elim.c) */
  CG_ORD_FAST_MARKOWITZ = 2 /* the rule is Markowitz's in every mode (vertex |in(v)| *
                             * |out(v)|, face npred * nsucc): the loops may score it
                             * inline, and alone the vertex loop runs its fast path */
};

/* What a score function may read.  Vertex and edge scores read the graph
 * g as it is before the candidate's step; face scores read the face's
 * degrees (cg_face_at) and the line graph through cg_face_absorbed (g's
 * edges are then the line graph's initial ones, not current). */
typedef struct cg_score_ctx {
  const cg_lin *g;
  uint64_t seed;               /* CG_NEED_SEED */
  const uint32_t *xcnt, *ycnt; /* CG_NEED_REACH: independents reaching v, dependents v reaches */
  void *line;                  /* face mode: the line graph (cg_face.c) */
} cg_score_ctx;

/* A face of the line graph: line vertex a = (i, j) to line vertex b = (j, k),
 * a's predecessors and b's successors counted (the degrees most face rules
 * read, at hand where the loop fills this in). */
typedef struct cg_face_at {
  uint32_t i, j, k, a, b;
  uint32_t npred, nsucc;
} cg_face_at;

/* Score of intermediate vertex v. */
typedef double (*cg_vscore)(const cg_score_ctx *c, uint32_t v);
/* Score of edge (i, k) front eliminated (back = 0: j = k the middle vertex)
 * or back eliminated (back = 1: j = i). */
typedef double (*cg_escore)(const cg_score_ctx *c, uint32_t i, uint32_t k, int back);
/* Score of face f. */
typedef double (*cg_fscore)(const cg_score_ctx *c, const cg_face_at *f);

typedef struct cg_ordering {
  const char *name;   /* what --order and lg:eliminate take */
  cg_vscore vertex;   /* NULL: not a vertex rule */
  cg_escore edge;     /* NULL: not an edge rule */
  cg_fscore face;     /* NULL: not a face rule */
  int radius;         /* what a step changes: 0 no score; 1 the scores of the vertices it
                       * touches (degrees); 2 also of their neighbours (neighbour sets) */
  unsigned needs;     /* CG_NEED_* */
  unsigned flags;     /* CG_ORD_SMALL_INT, CG_ORD_FAST_MARKOWITZ */
  const char *about;  /* what it eliminates first, one line */
} cg_ordering;

/* The number of rows (built-in and extra), and row i (NULL out of range). */
int cg_orderings_count(void);
const cg_ordering *cg_ordering_at(int i);
/* The index of the row named name (of length len) that serves every mode
 * in modes (0: any), or -1. */
int cg_ordering_find(const char *name, size_t len, unsigned modes);
/* CG_MODE_* bits of the modes row o serves. */
unsigned cg_ordering_modes(const cg_ordering *o);
/* "vertex", "edge" or "face" for one CG_MODE_* bit. */
const char *cg_mode_name(unsigned mode);
/* The row of rule kind for mode (CG_EUSAGE naming the rule when kind is
 * no row or its row does not serve the mode). */
int cg_ordering_check(int kind, unsigned mode, const cg_ordering **row, cg_error *e);

/* The line graph as face scores see it (cg_face.c): whether the product of
 * face (a, b) would be absorbed into an existing vertex (no fill). */
int cg_face_absorbed(const cg_score_ctx *c, uint32_t a, uint32_t b);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
