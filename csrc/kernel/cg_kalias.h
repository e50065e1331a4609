/*
 * cg_kalias.h: alias analysis of a kernel function (Utke, Flattening,
 * sec. 4): abstract objects, value numbers, addresses with affine offsets,
 * the vector of address sets, and the accesses (uses and definitions of
 * ints and doubles) that index into it.  doc/kernel-analyses.md describes
 * the model; this header the representation.
 *
 * Invariants of a cg_kalias:
 *  - objects 0..nobj-1: obj_sym the symbol (a pointer parameter for a
 *    region), obj_kind CG_KO_*, obj_base CG_KT_INT or DOUBLE, obj_cells the
 *    cell count (-1 unknown; a HEAP object, one per allocation site, stands
 *    for every block that site gives: Utke, Flattening, sec. 4), obj_class the class of objects that may share
 *    cells (regions that may overlap share one class; every other object is
 *    a class of its own); classes 0..ncls-1;
 *  - address sets 0..nset-1 are interned: set s holds set_n[s] addresses
 *    addr[set_off[s] ..], sorted and distinct, so equal sets have equal ids;
 *    set_exact[s]: one address with a known offset;
 *  - accesses 0..nacc-1 in walk (program) order; a statement's accesses are
 *    consecutive: stmt_acc[i] .. stmt_acc[i] + stmt_nacc[i] - 1 for
 *    statement s_lo + i (nacc 0 for a statement of no access or of another
 *    function inside the window); cg_kalias_acc0/nacc read them by id;
 *  - value numbers 0..nvn-1 are born in walk order; a loop statement L owns
 *    the numbers loop_vn0[L] <= v < loop_vn1[L] born while it was walked
 *    (its header's, its body's, its nested loops').
 */
#ifndef CG_KALIAS_H
#define CG_KALIAS_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif
#include "cg_kernel.h"
#include "../util/cg_map.h"

#define CG_KAFF_MAX 4 /* terms of an affine offset; more: unknown */

/* An offset in cells: c + sum coef[t] * vn[t] (vn ascending, coef != 0), or
 * unknown (nt < 0). */
typedef struct cg_kaff {
  int64_t c;
  int32_t nt;
  int32_t vn[CG_KAFF_MAX];
  int64_t coef[CG_KAFF_MAX];
} cg_kaff;

typedef struct cg_kaddr {
  int32_t obj;
  cg_kaff off;
} cg_kaddr;

enum { CG_KO_SCALAR, CG_KO_ARRAY, CG_KO_REGION, CG_KO_GLOBAL, CG_KO_HEAP };
enum { CG_KA_USE, CG_KA_DEF };
enum { CG_KREL_NO, CG_KREL_MAY, CG_KREL_MUST };

/* An assumption about two pointer parameters (symbols): eq 1 "a==b", 0 "a!=b". */
typedef struct cg_kassume {
  int32_t a, b;
  int eq;
} cg_kassume;

typedef struct cg_kalias {
  cg_alloc *A;
  const cg_kernel *k;
  int32_t func;
  /* windows: the analysis' arrays cover f alone (a kernel of many
   * functions is analysed function by function in linear time): statements
   * s_lo .. s_lo+ns-1 and expressions x_lo .. x_lo+nx-1 hold f's; symbols
   * are numbered locally, f's own (y0 + i -> i) first, then the globals f
   * reads (gmap: symbol -> i - nyf) */
  int32_t s_lo, x_lo, y0;
  uint32_t ns, nx, nyf, ny;
  cg_map gmap;
  uint8_t *addr_of; /* nyf: f takes the address of its symbol y0 + i */
  /* objects and classes */
  uint32_t nobj, ncls;
  int32_t *obj_sym, *obj_kind, *obj_base, *obj_cells, *obj_class;
  int32_t *sym_obj; /* ny, by local symbol: its object (its region for a pointer parameter), -1 */
  uint8_t *overlap; /* nreg x nreg: regions that may share cells */
  int32_t *obj_reg; /* an object's region index, -1 */
  uint32_t nreg;
  /* value numbers */
  uint32_t nvn, capvn;
  int32_t *vn_sym;  /* the symbol whose value it was born as, -1: opaque */
  int32_t *loop_vn0, *loop_vn1; /* ns: numbers owned by a loop */
  /* address sets */
  uint32_t nset, naddr;
  size_t cap_set[4]; /* set_off, set_n, set_exact, addr */
  uint32_t *set_off, *set_n;
  uint8_t *set_exact;
  cg_kaddr *addr;
  uint32_t *hslot; /* interning table: set id + 1, 0 free; hcap slots */
  uint32_t hcap;
  /* accesses */
  uint32_t nacc;
  size_t cap_acc[5];
  int32_t *acc_stmt, *acc_expr, *acc_kind, *acc_set, *acc_may; /* may: a definition that need not write */
  int32_t *stmt_acc, *stmt_nacc; /* ns */
  /* overrides: sorted pairs (u < v) and answers */
  uint32_t nover;
  size_t cap_over[3];
  int32_t *over_u, *over_v, *over_rel;
  /* the sets of each class, for enumerating the pairs to override */
  uint32_t *ov_off, *ov_set, *ov_mark, *ov_list, ov_n, ov_nset;
  /* scratch of the walk */
  void *walk;
} cg_kalias;

/* A symbol's local index (-1: neither f's nor a global f reads). */
static inline int32_t cg_kalias_lsym(const cg_kalias *al, int32_t s) {
  uint32_t g;
  if (s >= al->y0 && s < al->y0 + (int32_t)al->nyf) return s - al->y0;
  g = cg_map_get(&al->gmap, (uint32_t)s);
  return g == CG_MAP_NONE ? -1 : (int32_t)(al->nyf + g);
}
/* Statement st's first access and access count (0 outside f). */
static inline int32_t cg_kalias_acc0(const cg_kalias *al, int32_t st) {
  return st >= al->s_lo && st < al->s_lo + (int32_t)al->ns ? al->stmt_acc[st - al->s_lo] : -1;
}
static inline int32_t cg_kalias_nacc(const cg_kalias *al, int32_t st) {
  return st >= al->s_lo && st < al->s_lo + (int32_t)al->ns ? al->stmt_nacc[st - al->s_lo] : 0;
}

/* A researcher's answer for a pair of sets the analysis relates "may":
 * CG_KREL_NO, CG_KREL_MUST, or -1 to keep "may".  A negative status below
 * -1 (CG_ERUNTIME...) stops the analysis with that status (e names why). */
typedef int (*cg_kalias_override)(void *ud, const cg_kalias *al, uint32_t s1, uint32_t s2,
                                  cg_error *e);

/* Analyses function f of k under the assumptions (may be NULL/0).  NULL with
 * e set on failure (CG_EUSAGE for a bad function or assumption, CG_ENOMEM).
 * Cost: O(size of f) interning and walking, plus the sets' sizes. */
cg_kalias *cg_kalias_run(cg_alloc *A, const cg_kernel *k, int32_t f, const cg_kassume *as,
                         uint32_t nas, cg_error *e);
void cg_kalias_free(cg_kalias *al);
/* Calls ov for every pair of distinct sets (ascending) that share a class
 * and relate "may", and records its answers.  Status. */
int cg_kalias_override_all(cg_kalias *al, cg_kalias_override ov, void *ud, cg_error *e);
/* The relation of two sets, overrides included. */
int cg_kalias_relation(const cg_kalias *al, uint32_t s1, uint32_t s2);
/* The relation before overrides. */
int cg_kalias_relation0(const cg_kalias *al, uint32_t s1, uint32_t s2);
/* The set s with every offset naming a number in [vn0, vn1) made unknown
 * (interned; s itself when nothing changes); -1 on CG_ENOMEM. */
int32_t cg_kalias_widen(cg_kalias *al, uint32_t s, int32_t vn0, int32_t vn1);
/* Writes an address ("x", "a[2]", "b[i#3+1]", "c[?]") into buf. */
void cg_kalias_addr_text(const cg_kalias *al, const cg_kaddr *a, char *buf, size_t size);
/* The name of object o (the symbol's). */
const char *cg_kalias_obj_name(const cg_kalias *al, uint32_t o);
/* Writes expression x as C text ("a[i + 1]") into buf (truncated to size). */
void cg_kexpr_text(const cg_kernel *k, int32_t x, char *buf, size_t size);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
