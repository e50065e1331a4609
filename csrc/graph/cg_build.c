/*
 * cg_build.c: the graph-building interface (cg_gbuild.h) and its tape driver
 * (cg_gtape.h): building the computational graph in one pass (Bischof & Hu
 * 1991, secs. 2.1-2.4).
 *
 * One engine serves both: the public verbs (section "the interface") call
 * the same functions the tape loop (build_all) inlines, so a record-by-record
 * driver of the interface builds the graph the tape loop does; the loop only
 * skips the verbs' argument checks and dispatches on a table of normalized
 * opcodes (speed work kept to this one function).
 *
 * The live node table maps each location to the node holding its
 * current value.  A record creates a node from the nodes of its inputs and
 * installs it at its output location; the node that was there loses a live
 * reference.  A node with no live reference left is complete (it can gain no
 * more parents), and then, in this order:
 *  - hoisting (section 2.3): if it has exactly one parent, that parent is
 *    unary and still alive, and the node is neither a leaf nor a dependent
 *    nor guarded, its operation chain is spliced in front of the parent's
 *    and the parent takes over its children (Figures 7 and 8);
 *  - dead-root removal (section 2.4): if it has no parent and is neither an
 *    independent nor a dependent nor guarded, it is removed, and so are,
 *    recursively, its complete children that are left without parents
 *    (Figure 9), with an explicit stack.
 * Assignments (section 2.2) alias the live entry instead of making a node;
 * reference counts say how many live entries point at a node.
 *
 * Bischof & Hu gave up hoists whose parent was "no longer known" after a dead
 * root removal.  We recover them: each node keeps the XOR of its parents'
 * ids, which is the remaining parent exactly when one is left, so the hoist
 * is tried at once (cg_gopts.recover_hoists; off reproduces Bischof & Hu, which
 * remembers only the last parent added).
 *
 * During the build, nodes live in slots reused through a free list (as the
 * seed's node blocks); each slot records its birth number, `order` maps
 * birth numbers back to slots (NONE once freed, and for a constant not read
 * yet: see lazy constants), and compaction renumbers
 * the surviving nodes by birth, which is a topological order, in one pass.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "cg_gbuild.h"
#include "cg_gtape.h"

#define NONE UINT32_MAX
/* A live entry PENDING + b (b < PENDING - 1) is a constant of birth b whose
 * node is not made yet (see lazy constants below); slots and births stay
 * below PENDING (grow). */
#define PENDING 0x80000000u

/* The build loop's few hot functions are inlined into it; their rare paths
 * (growing pools, completing nodes) stay calls. */
#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#define COLD static __attribute__((noinline))
#else
#define HOT_INLINE static inline
#define COLD static
#endif
#define NF_FREED 0x80 /* slot on the free list (build only) */

/* A node slot during the build, 48 bytes.  k0..k2: children; head: the
 * first operation of its chain (its length is counted where it is needed),
 * whose last is always the node's own, op[birth] (hoisting puts chains in
 * front); npar: parent edges; par: with recovered hoists the XOR of the
 * parents' slots, else the last parent added (Bischof & Hu's p.parent, NONE once
 * it is gone); ref: live entries pointing here; birth: creation number
 * (topological order). */
typedef struct bnode {
  uint32_t k0, k1, k2, head, npar, par, ref, birth;
  uint8_t nk, fl;
  double val;
} bnode;

/* An operation of a chain, indexed by the birth of the node that created it
 * (one each): no free list, no capacity of its own to check.  The operations
 * of dead roots are not reused; the pool has as many entries as `order`. */
typedef struct bop {
  double c;
  uint32_t next;
  uint8_t code;
} bop;

/* How an opcode is normalized (see norm_rows).  The kind says how the build
 * loop handles it, in one dispatch: an operation over 1, 2 or 3 inputs, an
 * alias, a constant, or the general path (NK_OTHER). */
enum {
  NK_OTHER = 0, NK_OP1, NK_OP2, NK_OP3, NK_ALIAS, NK_CONST, NK_INDEP, NK_DEP,
  /* the same with the record's constant (NC_V0), or its negation (NC_NEGV0),
   * instead of the fixed one: where the constant comes from is part of the
   * dispatch, not a further branch per record */
  NK_OP1V, NK_OP1N, NK_OP2V, NK_OP3V, NK_CONSTV,
  /* the commonest operations, so that computing the value needs no switch of
   * its own: x+y, x-y, x*y (fixed constant) and x+c, x-c, c*x (the record's) */
  NK_ADD, NK_SUB, NK_MUL, NK_ADDCV, NK_ADDCN, NK_MULCV,
  /* constants made when first read (dead-root removal on; see set_pending) */
  NK_LCONST, NK_LCONSTV
};
enum { NC_NONE = 0, NC_V0, NC_NEGV0, NC_ONE, NC_MONE, NC_ZERO };
typedef struct bnorm {
  uint8_t kind, g, out, in[3];
  uint8_t nl, nv; /* operands and constants of the record (fixed-size opcodes) */
  uint8_t fixed;  /* nl and nv hold for every record of the opcode */
  double c;       /* the constant when it is fixed (kinds without V or N) */
} bnorm;

/* An origin given to the interface and the first birth it applies to: the
 * nodes' origins are runs of births, so making a node costs nothing more. */
typedef struct orun {
  uint64_t birth;
  cg_origin o;
} orun;

typedef struct cg_gbuild builder;
struct cg_gbuild {
  cg_alloc *A;
  const cg_tape *t;  /* the tape driver's tape; NULL through the interface */
  char name[512];    /* for messages (as long as a message: cg_error) */
  cg_origin org;     /* the current origin (interface) */
  int iface;         /* built through the interface: statements counted, guard origins kept */
  int in_stmt;       /* a verb was counted since the origin was set */
  int src;           /* a source origin was given: nodes' and guards' origins are kept */
  orun *run;
  size_t nrun, caprun;
  cg_origin *gorg;   /* guard origins (interface), one per guard */
  size_t capgorg;
  char **file;
  size_t nfile, capfile;
  cg_gopts o;
  cg_error *e;
  int rc;
  bnorm norm[256];   /* the normalization table (norm_init) */
  /* node slots: one record per slot, since building touches most fields of
   * a node at once (the built graph is struct-of-arrays) */
  size_t cap, nslots, cap_hint;
  bnode *nd;
  uint32_t free_node;
  uint32_t *order;        /* birth number -> slot, NONE once freed */
  uint32_t par0, parmask; /* bnode.par of a new node; kept bits when a parent comes */
  size_t cap_order;
  uint64_t live_kids; /* children of the slots in use (their operations: seq - dead_ops) */
  /* operation pool: singly linked chains, by birth (at least cap_order entries) */
  size_t ocap;
  bop *op;
  /* live node table */
  uint32_t *live;
  uint64_t nlive;
  /* independents, dependents, guards, work stack */
  uint32_t *ind, *dep, *stack;
  size_t nind, capind, ndep, capdep, nstack, capstack;
  cg_guard *guard;
  size_t nguard, capguard;
  const double *x;
  int has_val;
  uint64_t rec, seq, nfreed; /* nodes created, slots freed */
  char *warn;
  size_t nwarn, capwarn;
  unsigned warnings;
  cg_gstats st;
};

/* {==== errors and warnings ====} */

/* Where the builder is, for a message: "FILE:LINE:COL" under a source
 * origin, "NAME: record N" under a record (always, for a tape), else "NAME". */
static void b_where(const builder *B, char *buf, size_t size) {
  const cg_origin *o = &B->org;
  if (o->kind == CG_ORIGIN_SOURCE)
    snprintf(buf, size, "%.200s:%lu:%lu", B->file[o->file], (unsigned long)o->line,
             (unsigned long)o->col);
  else if (B->t || o->kind == CG_ORIGIN_RECORD)
    snprintf(buf, size, "%s: record %llu", B->name, (unsigned long long)B->rec);
  else
    snprintf(buf, size, "%s", B->name);
}

/* Fails the build (the first failure sticks). */
static int b_fail(builder *B, int code, const char *fmt, ...) {
  char what[300], where[600];
  va_list ap;
  if (B->rc) return B->rc;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  b_where(B, where, sizeof where);
  B->rc = cg_seterr(B->e, code, "%s: %s", where, what);
  return B->rc;
}

static int b_nomem(builder *B) {
  if (!B->rc) B->rc = cg_seterr(B->e, CG_ENOMEM, "out of memory building the graph");
  return B->rc;
}

/* Appends a warning line (the first 100 are kept, the rest counted). */
static void b_warn(builder *B, const char *fmt, ...) {
  char line[256];
  va_list ap;
  size_t n;
  B->warnings++;
  if (B->warnings > 100) return;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  n = strlen(line);
  if (cg_reserve(B->A, (void **)&B->warn, &B->capwarn, B->nwarn + n + 2, 1)) return;
  memcpy(B->warn + B->nwarn, line, n);
  B->nwarn += n;
  B->warn[B->nwarn++] = '\n';
  B->warn[B->nwarn] = '\0';
}

/* {==== slots and chains ====} */

/* Doubles a pool of the builder (the first size from the record count);
 * indices must stay below PENDING - 1, so that a pending constant's entry
 * PENDING + birth is neither a slot nor NONE. */
COLD int grow(builder *B, void **arr, size_t *cap, size_t elsize) {
  size_t nc = *cap ? *cap * 2 : B->cap_hint;
  void *p;
  if (nc > (size_t)PENDING - 1) nc = (size_t)PENDING - 1;
  if (nc <= *cap || nc > SIZE_MAX / elsize) return b_nomem(B);
  p = cg_realloc(B->A, *arr, *cap * elsize, nc * elsize);
  if (!p) return b_nomem(B);
  *arr = p;
  *cap = nc;
  return CG_OK;
}

/* Grows the arrays indexed by birth (order, op) together. */
COLD int grow_births(builder *B) {
  if (grow(B, (void **)&B->order, &B->cap_order, 4)) return B->rc;
  while (B->ocap < B->cap_order)
    if (grow(B, (void **)&B->op, &B->ocap, sizeof(bop))) return B->rc;
  return CG_OK;
}

/* The next birth number, its operation (g, c) put in the pool; NONE when
 * the arrays cannot grow.  The caller sets order[birth]. */
HOT_INLINE uint32_t new_birth(builder *B, unsigned g, double c) {
  uint32_t o;
  bop *O;
  if (B->seq == B->cap_order && grow_births(B)) return NONE;
  o = (uint32_t)B->seq++;
  O = B->op + o;
  O->c = c;
  O->next = NONE;
  O->code = (uint8_t)g;
  return o;
}

/* A node slot: the last freed one (its k0 links the free list), else a new
 * one at the end of the pool; NONE when the pool cannot grow. */
HOT_INLINE uint32_t take_slot(builder *B) {
  uint32_t v = B->free_node;
  if (v != NONE) {
    B->free_node = B->nd[v].k0;
    return v;
  }
  if (B->nslots == B->cap && grow(B, (void **)&B->nd, &B->cap, sizeof(bnode))) return NONE;
  return (uint32_t)B->nslots++;
}

/* CG_BUILD_SKEW(x) wraps the value new_node_inl's mulc case computes: x
 * itself; a test defines it to skew it and see check_built stop the build. */
#ifndef CG_BUILD_SKEW
#define CG_BUILD_SKEW(x) (x)
#endif

#ifndef NDEBUG
#include <stdio.h>
#include <stdlib.h>

/* Stops the build unless r, the value new_node_inl's inline cases gave the
 * node of birth o (operation g, constant c, operands a), equals the
 * operation table's (cg_gop(g)->value, cg_gops.h), bit for bit: a debug
 * build's check that the inline copies cannot drift from their rows. */
static void check_built(uint32_t o, unsigned g, double c, const double *a, double r) {
  uint64_t sw = 0;
  double t = cg_gop(g)->value(c, a, &sw);
  if (memcmp(&t, &r, sizeof t) != 0) {
    fprintf(stderr, "cg_build.c: birth %lu (%s): the inline value %a, the operation table's %a\n",
            (unsigned long)o, cg_gop(g)->name, r, t);
    abort(); /* a debug build only: an inline copy drifted from its row */
  }
}
#endif

/* A new node with one operation over its nk children k0.. (NONE past nk);
 * NONE on failure.  Its value is computed from the children's (same
 * arithmetic as the tape).  Slots in use are counted as seq - nfreed, their
 * peak where one is freed (free_node). */
HOT_INLINE uint32_t new_node_inl(builder *B, unsigned g, double c, uint32_t k0, uint32_t k1,
                                 uint32_t k2, int nk) {
  bnode *nd, *N;
  uint32_t v, o, par0 = B->par0, parmask = B->parmask;
  if ((v = take_slot(B)) == NONE || (o = new_birth(B, g, c)) == NONE) return NONE;
  nd = B->nd; /* locals from here on: the stores below cannot move B's arrays */
  N = nd + v;
  B->order[o] = v;
  N->birth = o;
  B->live_kids += (uint64_t)nk;
  N->k0 = k0;
  N->k1 = k1;
  N->k2 = k2;
  N->nk = (uint8_t)nk;
  N->head = o;
  N->npar = N->ref = 0;
  N->par = par0;
  N->fl = 0;
  if (nk > 0) nd[k0].npar++, nd[k0].par = (nd[k0].par & parmask) ^ v; /* XOR, or the last one */
  if (nk > 1) nd[k1].npar++, nd[k1].par = (nd[k1].par & parmask) ^ v;
  if (nk > 2) nd[k2].npar++, nd[k2].par = (nd[k2].par & parmask) ^ v;
  if (!B->has_val) {
    N->val = NAN;
  } else { /* an independent's value is set by rec_indep */
    double a[3];
    uint64_t sw = 0;
    a[0] = nk > 0 ? nd[k0].val : 0.0;
    a[1] = nk > 1 ? nd[k1].val : 0.0;
    a[2] = nk > 2 ? nd[k2].val : 0.0;
    switch (g) { /* the commonest without the table's switch; constants and
                  * independents (whose value the caller sets) are known when inlined */
      case CG_G_ADD: N->val = a[0] + a[1]; break;
      case CG_G_SUB: N->val = a[0] - a[1]; break;
      case CG_G_MUL: N->val = a[0] * a[1]; break;
      case CG_G_ADDC: N->val = a[0] + c; break;
      case CG_G_MULC: N->val = CG_BUILD_SKEW(a[0] * c); break;
      case CG_G_CONST: N->val = c; break;
      case CG_G_INDEP: N->val = 0.0; break;
      default: N->val = cg_gop_apply_inline(g, c, a, &sw); break;
    }
#ifndef NDEBUG
    if (g == CG_G_ADD || g == CG_G_SUB || g == CG_G_MUL || g == CG_G_ADDC || g == CG_G_MULC ||
        g == CG_G_CONST) /* the inline cases above (an independent's value is the caller's) */
      check_built(o, g, c, a, N->val);
#endif
  }
  return v;
}

/* new_node_inl for the general path, which may come here after an error. */
static uint32_t new_node(builder *B, unsigned g, double c, const uint32_t *kid, int nk) {
  if (B->rc) return NONE;
  return new_node_inl(B, g, c, nk > 0 ? kid[0] : NONE, nk > 1 ? kid[1] : NONE,
                      nk > 2 ? kid[2] : NONE, nk);
}

/* Returns a node's slot to the free list; with ops (a dead root), the
 * number of operations of its chain, which are dropped with it. */
HOT_INLINE uint32_t free_node(builder *B, uint32_t v, int ops) {
  uint32_t nops = 0, o;
  if (ops) {
    for (o = B->nd[v].head; o != NONE; o = B->op[o].next) nops++;
  }
  B->order[B->nd[v].birth] = NONE;
  B->live_kids -= B->nd[v].nk;
  B->nd[v].fl = NF_FREED;
  B->nd[v].k0 = B->free_node;
  B->free_node = v;
  if (B->seq - B->nfreed > B->st.peak_nodes) B->st.peak_nodes = B->seq - B->nfreed;
  B->nfreed++; /* slots in use only grow between frees: the peak is here or at the end */
  return nops;
}

/* {==== hoisting and dead roots ====} */

static uint32_t kid_at(const builder *B, uint32_t v, int i) {
  return i == 0 ? B->nd[v].k0 : i == 1 ? B->nd[v].k1 : B->nd[v].k2;
}

/* Bischof & Hu 1991, sec. 2.3: the parent complete node n can be hoisted into, or
 * NONE if a condition fails. */
HOT_INLINE uint32_t hoist_target(const builder *B, uint32_t n) {
  const bnode *nd = B->nd, *N = nd + n;
  uint32_t p;
  if (!B->o.hoist || N->ref || N->npar != 1 || N->nk == 0 || (N->fl & (CG_NF_DEP | CG_NF_GUARD)))
    return NONE;
  p = N->par;
  if (p == NONE || nd[p].ref == 0 || nd[p].nk != 1) return NONE; /* complete, or binary */
  return p;
}

/* Hoists n into p = hoist_target(B, n) (Figures 7 and 8). */
HOT_INLINE void hoist_into(builder *B, uint32_t n, uint32_t p, int recovered) {
  bnode *nd = B->nd, *N = nd + n, *P = nd + p;
  int i;
  B->op[N->birth].next = P->head; /* n's chain (ending in its own operation) first, then p's */
  P->head = N->head;
  B->live_kids += (uint64_t)N->nk - 1; /* free_node(n) takes n's off again */
  P->nk = N->nk;
  P->k0 = N->k0;
  P->k1 = N->k1;
  P->k2 = N->k2;
  if (B->o.recover_hoists) { /* n has a child (hoist_target) */
    uint32_t x = n ^ p;
    nd[N->k0].par ^= x;
    if (N->nk > 1) nd[N->k1].par ^= x;
    if (N->nk > 2) nd[N->k2].par ^= x;
  } else {
    for (i = 0; i < N->nk; i++) {
      bnode *C = nd + kid_at(B, n, i);
      if (C->par == n) C->par = p;
    }
  }
  free_node(B, n, 0);
  B->st.hoists++;
  if (recovered) B->st.hoists_recovered++;
}

/* Hoists complete node n into its only parent; returns the parent, or NONE
 * if a condition fails. */
static uint32_t hoist_once(builder *B, uint32_t n, int recovered) {
  uint32_t p = hoist_target(B, n);
  if (p != NONE) hoist_into(B, n, p, recovered);
  return p;
}

/* Hoists n into p, then keeps going down while p is left with a single
 * complete child whose only parent it is: after a dead-root removal such a
 * child could not be hoisted when it completed (its parent was complete
 * then), and now its parent is alive (recovered hoists only; an ordinary
 * completion needs no such loop, see complete). */
COLD void hoist_down(builder *B, uint32_t n, uint32_t p, int recovered) {
  hoist_into(B, n, p, recovered);
  while (B->o.recover_hoists && B->nd[p].nk == 1 && hoist_once(B, B->nd[p].k0, 1) != NONE)
    continue;
}

static void try_hoist(builder *B, uint32_t n, int recovered) {
  uint32_t p = hoist_target(B, n);
  if (p != NONE) hoist_down(B, n, p, recovered);
}

HOT_INLINE int removable(const builder *B, uint32_t v) {
  return !B->nd[v].ref && !B->nd[v].npar && !(B->nd[v].fl & (CG_NF_DEP | CG_NF_GUARD | NF_FREED)) &&
         B->op[B->nd[v].head].code != CG_G_INDEP;
}

static int push(builder *B, uint32_t v) {
  if (B->nstack == B->capstack &&
      cg_reserve(B->A, (void **)&B->stack, &B->capstack, B->nstack + 1, sizeof *B->stack))
    return b_nomem(B);
  B->stack[B->nstack++] = v;
  return CG_OK;
}

/* Bischof & Hu 1991, sec. 2.4 and Figure 9: removes dead root n and, recursively
 * (explicit stack), its complete children left without parents. */
COLD void try_dead(builder *B, uint32_t n) {
  if (!B->o.dead_roots || !removable(B, n)) return;
  if (B->nd[n].nk == 0) { /* a leaf (most dead roots are overwritten constants): no stack */
    B->st.dead_nodes++;
    B->st.dead_ops += free_node(B, n, 1);
    return;
  }
  B->nd[n].fl |= NF_FREED; /* marks "queued" until freed below */
  if (push(B, n)) return;
  while (B->nstack) {
    uint32_t m = B->stack[--B->nstack];
    int i, nk = B->nd[m].nk;
    for (i = 0; i < nk; i++) {
      uint32_t c = kid_at(B, m, i);
      B->nd[c].npar--;
      if (B->o.recover_hoists) B->nd[c].par ^= m;
      else if (B->nd[c].par == m) B->nd[c].par = NONE;
    }
    for (i = 0; i < nk; i++) {
      uint32_t c = kid_at(B, m, i);
      if (B->nd[c].ref || (B->nd[c].fl & NF_FREED)) continue; /* alive, or queued */
      if (removable(B, c)) {
        B->nd[c].fl |= NF_FREED;
        if (push(B, c)) return;
      } else if (B->nd[c].npar == 1 && B->o.recover_hoists) {
        try_hoist(B, c, 1);
      }
    }
    B->st.dead_nodes++;
    B->st.dead_ops += free_node(B, m, 1);
  }
}

/* A node lost its last live reference: it is complete.  Most completions
 * change nothing (two parents or more, or a parent that is not unary), so
 * the tests come first and the work is called.
 *
 * A hoist here needs no follow-up down the chain (hoist_down's loop), since
 * at rest no node c is hoistable: complete, one parent, not a leaf, not
 * flagged, that parent alive and unary.  Such a state can only arise when
 * c completes (complete tries it), when c loses a parent (try_dead tries
 * it, with recover_hoists, the only mode in which hoist_down loops), or when
 * c's parent becomes unary by taking over the children of a node hoisted
 * into it (c's fields do not change then: only its parent does).  Here n
 * was alive until now, so a child c of unary n that was complete, had one
 * parent, children and no flag was already such a state: it cannot exist,
 * and hoisting n into p does not change c's fields.  After a dead-root
 * removal the hoisted node was complete before, so try_hoist loops. */
COLD void complete(builder *B, uint32_t n) {
  uint32_t np = B->nd[n].npar, p; /* one parent: maybe hoisted; none: maybe dead */
  if (np == 1) {
    if ((p = hoist_target(B, n)) != NONE) hoist_into(B, n, p, 0); /* (no follow-up: above) */
  } else if (np == 0) {
    try_dead(B, n);
  }
}

/* {==== the live node table ====} */

/* Lazy constants.  Most constant records of a tape are overwritten before
 * anything reads them (ADOL-C zeroes locations it then assigns: 6408 of the
 * 6488 constants of the Bratu 40x80 tape) and die at once as dead roots
 * (section 2.4).  With dead-root removal on, a normalized constant record
 * therefore takes only its birth number and its operation, exactly as the
 * node would (so numbering, chains and statistics are those of an eager
 * build), and its live entry becomes PENDING + birth.  The first read makes
 * the node (materialize); an entry overwritten or unlinked unread is counted
 * as the dead leaf root try_dead would have freed (pending_dead).  A pending
 * constant has one live reference and nothing else: every read of its
 * location (aliases included) materializes it, and only reads can give a
 * node parents, flags or further live entries.  Slots in use are still
 * seq - nfreed: a pending constant counts as one until it dies. */

/* What free_node(B, n, 1) and try_dead count for a dead constant leaf. */
HOT_INLINE void pending_dead(builder *B) {
  B->st.dead_nodes++;
  B->st.dead_ops++;
  if (B->seq - B->nfreed > B->st.peak_nodes) B->st.peak_nodes = B->seq - B->nfreed;
  B->nfreed++;
}

/* A live entry was overwritten: its node loses a reference (and completes
 * with the last), or its pending constant dies unread. */
HOT_INLINE void drop_entry(builder *B, uint32_t old) {
  if (old < PENDING) {
    if (--B->nd[old].ref == 0) complete(B, old);
  } else if (old != NONE) {
    pending_dead(B);
  }
}

/* set_live for a location known to be in the store (a loaded tape's
 * invariant: every location is < nstore). */
HOT_INLINE int set_live_in(builder *B, uint64_t loc, uint32_t v) {
  uint32_t old = B->live[loc];
  if (v != NONE) B->nd[v].ref++;
  B->live[loc] = v;
  drop_entry(B, old);
  return B->rc;
}

/* A constant record at location loc: birth, operation, pending entry. */
HOT_INLINE int set_pending(builder *B, uint64_t loc, double c) {
  uint32_t old, o;
  if ((o = new_birth(B, CG_G_CONST, c)) == NONE) return B->rc;
  B->order[o] = NONE; /* (no slot yet; compaction skips it while pending) */
  old = B->live[loc];
  B->live[loc] = PENDING + o;
  drop_entry(B, old);
  return B->rc;
}

/* Makes the node of the pending constant entry e at loc, as new_node_inl
 * would have at its birth; NONE on failure. */
static uint32_t materialize(builder *B, uint64_t loc, uint32_t e) {
  uint32_t o = e - PENDING, v;
  bnode *N;
  if ((v = take_slot(B)) == NONE) return NONE;
  N = B->nd + v;
  B->order[o] = v;
  N->birth = N->head = o;
  N->k0 = N->k1 = N->k2 = NONE;
  N->nk = 0;
  N->npar = 0;
  N->ref = 1; /* the entry at loc */
  N->par = B->par0;
  N->fl = 0;
  N->val = B->has_val ? B->op[o].c : NAN;
  B->live[loc] = v;
  return v;
}

/* Points location loc at node v (NONE: unlinks it). */
static int set_live(builder *B, uint64_t loc, uint32_t v) {
  if (loc >= B->nlive) return b_fail(B, CG_EFORMAT, "location %llu beyond the store",
                                     (unsigned long long)loc);
  return set_live_in(B, loc, v);
}

/* The node holding location loc (a pending constant's is made now); an
 * uninitialized read gets a zero node and a warning (Bischof & Hu's bogus_node). */
static uint32_t get(builder *B, uint64_t loc) {
  uint32_t v;
  if (loc >= B->nlive) return b_fail(B, CG_EFORMAT, "location %llu beyond the store",
                                     (unsigned long long)loc), NONE;
  if ((v = B->live[loc]) < PENDING) return v;
  if (v != NONE) return materialize(B, loc, v);
  {
    char where[600];
    b_where(B, where, sizeof where);
    b_warn(B, "%s: read of uninitialized location %llu (taken as 0)", where,
           (unsigned long long)loc);
  }
  v = new_node(B, CG_G_CONST, 0.0, NULL, 0);
  if (v == NONE) return NONE;
  B->nd[v].fl |= CG_NF_BOGUS;
  B->st.bogus++;
  set_live(B, loc, v);
  return v;
}

/* {==== records ====} */

/* r = g(inputs...) : a new node installed at location r. */
static int op_node(builder *B, uint64_t r, unsigned g, double c, const uint64_t *in, int nin) {
  uint32_t kid[3], v;
  int i;
  for (i = 0; i < nin; i++)
    if ((kid[i] = get(B, in[i])) == NONE) return B->rc;
  v = new_node(B, g, c, kid, nin);
  if (v == NONE) return B->rc;
  return set_live(B, r, v);
}

static int unary(builder *B, uint64_t r, unsigned g, double c, uint64_t a) {
  return op_node(B, r, g, c, &a, 1);
}

static int binary(builder *B, uint64_t r, unsigned g, double c, uint64_t a, uint64_t b) {
  uint64_t in[2];
  in[0] = a;
  in[1] = b;
  return op_node(B, r, g, c, in, 2);
}

static int ternary(builder *B, uint64_t r, unsigned g, double c, uint64_t x, uint64_t a,
                   uint64_t b) {
  uint64_t in[3];
  in[0] = x;
  in[1] = a;
  in[2] = b;
  return op_node(B, r, g, c, in, 3);
}

/* r = a, by aliasing (section 2.2) or, with assignment removal off, a copy. */
static int assign(builder *B, uint64_t r, uint64_t a) {
  uint32_t v;
  if (!B->o.assign_removal) return unary(B, r, CG_G_COPY, 0, a);
  if ((v = get(B, a)) == NONE) return B->rc;
  B->st.assign_removed++;
  return set_live(B, r, v);
}

static int constant(builder *B, uint64_t r, double c) {
  uint32_t v = new_node(B, CG_G_CONST, c, NULL, 0);
  return v == NONE ? B->rc : set_live(B, r, v);
}

static int add_guard(builder *B, uint32_t v, unsigned kind, double taped) {
  if (v == NONE) return B->rc;
  if (!B->o.guards) return CG_OK;
  if (cg_reserve(B->A, (void **)&B->guard, &B->capguard, B->nguard + 1, sizeof *B->guard))
    return b_nomem(B);
  if (B->iface) { /* the interface keeps each guard's origin */
    if (cg_reserve(B->A, (void **)&B->gorg, &B->capgorg, B->nguard + 1, sizeof *B->gorg))
      return b_nomem(B);
    B->gorg[B->nguard] = B->org;
  }
  B->guard[B->nguard].node = v;
  B->guard[B->nguard].kind = (uint8_t)kind;
  B->guard[B->nguard].taped = taped;
  B->guard[B->nguard].record = B->rec;
  B->nguard++;
  B->nd[v].fl |= CG_NF_GUARD;
  return CG_OK;
}

/* The integer a subscript or reference record reads from location l. */
static int index_of(builder *B, uint64_t l, uint64_t *out) {
  uint32_t v = get(B, l);
  double d;
  if (v == NONE) return B->rc;
  if (!B->has_val)
    return b_fail(B, CG_EUSAGE, "%s needs the values of the independents (give --at)",
                  cg_op(B->t->op[B->rec])->name);
  d = trunc(fabs(B->nd[v].val));
  if (!(d < (double)B->nlive)) return b_fail(B, CG_EFORMAT, "index %g beyond the store", d);
  *out = (uint64_t)d;
  return add_guard(B, v, CG_GUARD_VALUE, B->nd[v].val);
}

/* The tape's arithmetic opcodes, normalized (Bischof & Hu 1991, sec. 2.2): one
 * row per opcode says which graph operation it becomes, which operand is
 * the output, which are the inputs (in the order they are read) and where
 * the constant comes from.  The build loop reads it (build_all); the
 * records it has no row for go through rec_other. */

static const struct { uint8_t op, g, out, nin, in0, in1, in2, cm; } norm_rows[] = {
  {CG_OP_eq_plus_d, CG_G_ADDC, 0, 1, 0, 0, 0, NC_V0},
  {CG_OP_eq_min_d, CG_G_ADDC, 0, 1, 0, 0, 0, NC_NEGV0}, /* x-c == x+(-c) */
  {CG_OP_eq_mult_d, CG_G_MULC, 0, 1, 0, 0, 0, NC_V0},
  {CG_OP_eq_div_d, CG_G_DIVC, 0, 1, 0, 0, 0, NC_V0},
  {CG_OP_incr_a, CG_G_ADDC, 0, 1, 0, 0, 0, NC_ONE},
  {CG_OP_decr_a, CG_G_ADDC, 0, 1, 0, 0, 0, NC_MONE},
  {CG_OP_eq_plus_a, CG_G_ADD, 0, 2, 0, 1, 0, NC_NONE},
  {CG_OP_eq_min_a, CG_G_SUB, 0, 2, 0, 1, 0, NC_NONE},
  {CG_OP_eq_mult_a, CG_G_MUL, 0, 2, 0, 1, 0, NC_NONE},
  {CG_OP_eq_div_a, CG_G_DIV, 0, 2, 0, 1, 0, NC_NONE},
  {CG_OP_plus_a_a, CG_G_ADD, 0, 2, 1, 2, 0, NC_NONE},
  {CG_OP_min_a_a, CG_G_SUB, 0, 2, 1, 2, 0, NC_NONE},
  {CG_OP_mult_a_a, CG_G_MUL, 0, 2, 1, 2, 0, NC_NONE},
  {CG_OP_div_a_a, CG_G_DIV, 0, 2, 1, 2, 0, NC_NONE},
  {CG_OP_plus_d_a, CG_G_ADDC, 0, 1, 1, 0, 0, NC_V0},
  {CG_OP_plus_a_d, CG_G_ADDC, 0, 1, 1, 0, 0, NC_V0},
  {CG_OP_min_a_d, CG_G_ADDC, 0, 1, 1, 0, 0, NC_NEGV0},
  {CG_OP_min_d_a, CG_G_RSUB, 0, 1, 1, 0, 0, NC_V0},
  {CG_OP_mult_d_a, CG_G_MULC, 0, 1, 1, 0, 0, NC_V0},
  {CG_OP_mult_a_d, CG_G_MULC, 0, 1, 1, 0, 0, NC_V0},
  {CG_OP_div_a_d, CG_G_DIVC, 0, 1, 1, 0, 0, NC_V0},
  {CG_OP_div_d_a, CG_G_RDIV, 0, 1, 1, 0, 0, NC_V0},
  {CG_OP_pow_op, CG_G_POWC, 0, 1, 1, 0, 0, NC_V0},
  {CG_OP_neg_sign_a, CG_G_NEG, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_exp_op, CG_G_EXP, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_log_op, CG_G_LOG, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_sqrt_op, CG_G_SQRT, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_cbrt_op, CG_G_CBRT, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_tan_op, CG_G_TAN, 0, 1, 1, 0, 0, NC_NONE},
  /* quadrature opcodes: the analytic partial is used, so the chain that
   * computed L[2] (the derivative) becomes a dead root (section 2.2) */
  {CG_OP_atan_op, CG_G_ATAN, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_asin_op, CG_G_ASIN, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_acos_op, CG_G_ACOS, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_asinh_op, CG_G_ASINH, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_acosh_op, CG_G_ACOSH, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_atanh_op, CG_G_ATANH, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_erf_op, CG_G_ERF, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_abs_val, CG_G_ABS, 0, 1, 1, 0, 0, NC_V0},
  {CG_OP_ceil_op, CG_G_CEIL, 0, 1, 1, 0, 0, NC_V0},
  {CG_OP_floor_op, CG_G_FLOOR, 0, 1, 1, 0, 0, NC_V0},
  {CG_OP_min_op, CG_G_MIN, 0, 2, 1, 2, 0, NC_V0},
  {CG_OP_cond_assign, CG_G_COND, 0, 3, 1, 2, 3, NC_V0},
  {CG_OP_cond_eq_assign, CG_G_CONDEQ, 0, 3, 1, 2, 3, NC_V0},
  {CG_OP_cond_assign_s, CG_G_COND, 0, 3, 1, 2, 0, NC_V0},
  {CG_OP_cond_eq_assign_s, CG_G_CONDEQ, 0, 3, 1, 2, 0, NC_V0},
  /* assignments (section 2.2) and constants */
  {CG_OP_assign_a, CG_G_COPY, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_pos_sign_a, CG_G_COPY, 0, 1, 1, 0, 0, NC_NONE},
  {CG_OP_assign_d, CG_G_CONST, 0, 0, 0, 0, 0, NC_V0},
  {CG_OP_assign_d_zero, CG_G_CONST, 0, 0, 0, 0, 0, NC_ZERO},
  {CG_OP_assign_d_one, CG_G_CONST, 0, 0, 0, 0, 0, NC_ONE},
};

/* Fills the table for this build: copies become aliases when assignment
 * removal is on. */
static void norm_init(builder *B) {
  size_t i;
  memset(B->norm, 0, sizeof B->norm);
  for (i = 0; i < 256; i++) { /* the counts of every fixed-size opcode, for the loop's stride */
    const cg_opinfo *oi = cg_op((unsigned)i);
    if (oi->nloc < 0 || oi->nval < 0) continue; /* (cg_opinfo counts fit a byte) */
    B->norm[i].fixed = 1;
    B->norm[i].nl = (uint8_t)oi->nloc;
    B->norm[i].nv = (uint8_t)oi->nval;
  }
  /* independents and dependents: handled in the loop, no dispatch through rec_other */
  if (B->norm[CG_OP_assign_ind].fixed) B->norm[CG_OP_assign_ind].kind = NK_INDEP;
  if (B->norm[CG_OP_assign_dep].fixed) B->norm[CG_OP_assign_dep].kind = NK_DEP;
  for (i = 0; i < sizeof norm_rows / sizeof norm_rows[0]; i++) {
    bnorm *d = &B->norm[norm_rows[i].op];
    const cg_opinfo *oi = cg_op(norm_rows[i].op);
    if (oi->nloc < 0 || oi->nval < 0) continue; /* not fixed-size: the general path */
    d->g = norm_rows[i].g;
    d->kind = d->g == CG_G_CONST ? NK_CONST
              : d->g == CG_G_COPY && B->o.assign_removal ? NK_ALIAS
              : (uint8_t)(NK_OP1 + norm_rows[i].nin - 1);
    if (norm_rows[i].cm == NC_V0 || norm_rows[i].cm == NC_NEGV0) { /* (only unary ones negate) */
      static const uint8_t v0[] = {[NK_OP1] = NK_OP1V, [NK_OP2] = NK_OP2V, [NK_OP3] = NK_OP3V,
                                   [NK_CONST] = NK_CONSTV};
      d->kind = norm_rows[i].cm == NC_NEGV0 && d->kind == NK_OP1 ? NK_OP1N : v0[d->kind];
    }
    if (B->o.dead_roots && (d->kind == NK_CONST || d->kind == NK_CONSTV))
      d->kind = d->kind == NK_CONST ? NK_LCONST : NK_LCONSTV;
    else if (d->kind == NK_OP2 && (d->g == CG_G_ADD || d->g == CG_G_SUB || d->g == CG_G_MUL))
      d->kind = d->g == CG_G_ADD ? NK_ADD : d->g == CG_G_SUB ? NK_SUB : NK_MUL;
    else if ((d->kind == NK_OP1V || d->kind == NK_OP1N) && d->g == CG_G_ADDC)
      d->kind = d->kind == NK_OP1V ? NK_ADDCV : NK_ADDCN;
    else if (d->kind == NK_OP1V && d->g == CG_G_MULC)
      d->kind = NK_MULCV;
    d->out = norm_rows[i].out;
    d->in[0] = norm_rows[i].in0;
    d->in[1] = norm_rows[i].in1;
    d->in[2] = norm_rows[i].in2;
    /* a constant that does not come from the record is fixed here */
    d->c = norm_rows[i].cm == NC_ONE ? 1.0 : norm_rows[i].cm == NC_MONE ? -1.0 : 0.0;
    d->nl = (uint8_t)oi->nloc;
    d->nv = (uint8_t)oi->nval;
  }
}


/* sin_op [s, c, a] and cos_op [c, s, a]: two nodes, the second output first,
 * as the tape evaluates them (so an output that is also the argument reads
 * like the tape does). */
static int rec_sincos(builder *B, const cg_rec *r) {
  const uint32_t *L = r->loc;
  unsigned first = r->op == CG_OP_sin_op ? CG_G_COS : CG_G_SIN;
  unsigned second = r->op == CG_OP_sin_op ? CG_G_SIN : CG_G_COS;
  if (unary(B, L[1], first, 0, L[2])) return B->rc;
  return unary(B, L[0], second, 0, L[2]);
}

/* eq_plus_prod / eq_min_prod [r, a, b]: r +-= a*b as two nodes (same rounding). */
static int rec_prod(builder *B, const cg_rec *r) {
  uint64_t in[2];
  uint32_t kid[2], t;
  in[0] = r->loc[1];
  in[1] = r->loc[2];
  if ((kid[0] = get(B, in[0])) == NONE || (kid[1] = get(B, in[1])) == NONE) return B->rc;
  if ((t = new_node(B, CG_G_MUL, 0, kid, 2)) == NONE) return B->rc;
  if ((kid[0] = get(B, r->loc[0])) == NONE) return B->rc;
  kid[1] = t;
  t = new_node(B, r->op == CG_OP_eq_plus_prod ? CG_G_ADD : CG_G_SUB, 0, kid, 2);
  return t == NONE ? B->rc : set_live(B, r->loc[0], t);
}

/* vec_copy, vec_dot, vec_axpy, take_stock_op: element by element, in the
 * order the tape evaluates them. */
static int rec_vector(builder *B, const cg_rec *r) {
  const uint32_t *L = r->loc;
  uint64_t i;
  switch (r->op) {
    case CG_OP_take_stock_op:
      for (i = 0; i < L[0] && !B->rc; i++) constant(B, (uint64_t)L[1] + i, r->val[i]);
      return B->rc;
    case CG_OP_vec_copy:
      for (i = 0; i < L[2] && !B->rc; i++) assign(B, (uint64_t)L[0] + i, (uint64_t)L[1] + i);
      return B->rc;
    case CG_OP_vec_dot:
      if (constant(B, L[0], 0.0)) return B->rc;
      for (i = 0; i < L[3] && !B->rc; i++) {
        uint32_t kid[2], t;
        if ((kid[0] = get(B, (uint64_t)L[1] + i)) == NONE) break;
        if ((kid[1] = get(B, (uint64_t)L[2] + i)) == NONE) break;
        if ((t = new_node(B, CG_G_MUL, 0, kid, 2)) == NONE) break;
        if ((kid[0] = get(B, L[0])) == NONE) break;
        kid[1] = t;
        if ((t = new_node(B, CG_G_ADD, 0, kid, 2)) == NONE) break;
        set_live(B, L[0], t);
      }
      return B->rc;
    default: /* vec_axpy [res, s, x, y, n]: res[i] = s*x[i] + y[i] */
      for (i = 0; i < L[4] && !B->rc; i++) {
        uint32_t kid[2], t;
        if ((kid[0] = get(B, L[1])) == NONE) break;
        if ((kid[1] = get(B, (uint64_t)L[2] + i)) == NONE) break;
        if ((t = new_node(B, CG_G_MUL, 0, kid, 2)) == NONE) break;
        kid[0] = t;
        if ((kid[1] = get(B, (uint64_t)L[3] + i)) == NONE) break;
        if ((t = new_node(B, CG_G_ADD, 0, kid, 2)) == NONE) break;
        set_live(B, (uint64_t)L[0] + i, t);
      }
      return B->rc;
  }
}

/* ref_* records: the same operation on the location a reference names. */
static int rec_ref(builder *B, const cg_rec *r) {
  const uint32_t *L = r->loc;
  const double *V = r->val;
  uint64_t t;
  if (index_of(B, L[0], &t)) return B->rc;
  switch (r->op) {
    case CG_OP_ref_assign_d_zero: return constant(B, t, 0.0);
    case CG_OP_ref_assign_d_one: return constant(B, t, 1.0);
    case CG_OP_ref_assign_d: return constant(B, t, V[0]);
    case CG_OP_ref_assign_a: return assign(B, t, L[1]);
    case CG_OP_ref_incr_a: return unary(B, t, CG_G_ADDC, 1.0, t);
    case CG_OP_ref_decr_a: return unary(B, t, CG_G_ADDC, -1.0, t);
    case CG_OP_ref_eq_plus_d: return unary(B, t, CG_G_ADDC, V[0], t);
    case CG_OP_ref_eq_min_d: return unary(B, t, CG_G_ADDC, -V[0], t);
    case CG_OP_ref_eq_mult_d: return unary(B, t, CG_G_MULC, V[0], t);
    case CG_OP_ref_eq_plus_a: return binary(B, t, CG_G_ADD, 0, t, L[1]);
    case CG_OP_ref_eq_min_a: return binary(B, t, CG_G_SUB, 0, t, L[1]);
    case CG_OP_ref_eq_mult_a: return binary(B, t, CG_G_MUL, 0, t, L[1]);
    case CG_OP_ref_cond_assign: return ternary(B, t, CG_G_COND, V[0], L[1], L[2], L[3]);
    case CG_OP_ref_cond_eq_assign: return ternary(B, t, CG_G_CONDEQ, V[0], L[1], L[2], L[3]);
    case CG_OP_ref_cond_assign_s: return ternary(B, t, CG_G_COND, V[0], L[1], L[2], t);
    case CG_OP_ref_cond_eq_assign_s: return ternary(B, t, CG_G_CONDEQ, V[0], L[1], L[2], t);
    default: return b_fail(B, CG_EFORMAT, "%s is not supported by the graph builder",
                           cg_op(r->op)->name);
  }
}

/* A new independent at location l (in the store: a loaded tape's operand, or
 * an index index_of checked); inlined into the build loop. */
HOT_INLINE int rec_indep(builder *B, uint64_t l, double x) {
  uint32_t v;
  if (B->nind == B->capind && /* b_init sized it from the tape's count */
      cg_reserve(B->A, (void **)&B->ind, &B->capind, B->nind + 1, sizeof *B->ind))
    return b_nomem(B);
  v = new_node_inl(B, CG_G_INDEP, (double)B->nind, NONE, NONE, NONE, 0);
  if (v == NONE) return B->rc;
  if (B->has_val) B->nd[v].val = x;
  B->ind[B->nind++] = v;
  return set_live_in(B, l, v);
}

static int rec_dep(builder *B, uint64_t l) {
  uint32_t v = get(B, l);
  if (v == NONE) return B->rc;
  if (B->ndep == B->capdep &&
      cg_reserve(B->A, (void **)&B->dep, &B->capdep, B->ndep + 1, sizeof *B->dep))
    return b_nomem(B);
  B->dep[B->ndep++] = v;
  B->nd[v].fl |= CG_NF_DEP;
  B->st.dependents++;
  return CG_OK;
}

/* The value of the tape's next independent (any, without values). */
HOT_INLINE double indep_x(const builder *B) { return B->has_val ? B->x[B->nind] : 0.0; }

/* Locations lo..hi die: their entries are unlinked (a death notice). */
static int unlink_range(builder *B, uint64_t lo, uint64_t hi) {
  uint64_t i;
  for (i = lo; i <= hi && i < B->nlive && !B->rc; i++)
    if (B->live[i] != NONE) set_live_in(B, i, NONE);
  return B->rc;
}

/* Records that are not plain arithmetic. */
static int rec_other(builder *B, const cg_rec *r) {
  const uint32_t *L = r->loc;
  uint64_t k;
  switch (r->op) {
    case CG_OP_death_not: /* Bischof & Hu: these locations' values gain no parents */
      B->st.death_notices++;
      if (!B->o.death_unlink) return CG_OK;
      return unlink_range(B, L[0], L[1]);
    case CG_OP_assign_ind: return rec_indep(B, L[0], indep_x(B));
    case CG_OP_ref_assign_ind:
      return index_of(B, L[0], &k) ? B->rc : rec_indep(B, k, indep_x(B));
    case CG_OP_assign_dep: return rec_dep(B, L[0]);
    case CG_OP_sin_op: case CG_OP_cos_op: return rec_sincos(B, r);
    case CG_OP_eq_plus_prod: case CG_OP_eq_min_prod: return rec_prod(B, r);
    case CG_OP_eq_zero: case CG_OP_neq_zero: case CG_OP_le_zero:
    case CG_OP_gt_zero: case CG_OP_ge_zero: case CG_OP_lt_zero:
      return add_guard(B, get(B, L[0]), r->op, 0);
    case CG_OP_take_stock_op: case CG_OP_vec_copy: case CG_OP_vec_dot: case CG_OP_vec_axpy:
      return rec_vector(B, r);
    case CG_OP_subscript: /* [r, idx, base]: r = L[base + trunc|idx|] */
      if (index_of(B, L[1], &k)) return B->rc;
      return assign(B, L[0], (uint64_t)L[2] + k);
    case CG_OP_subscript_ref:
      if (index_of(B, L[1], &k)) return B->rc;
      return constant(B, L[0], (double)((uint64_t)L[2] + k));
    case CG_OP_ref_copyout:
      if (index_of(B, L[1], &k)) return B->rc;
      return assign(B, L[0], k);
    default:
      if (cg_op(r->op)->flags & CG_OPF_REF) return rec_ref(B, r);
      return b_fail(B, CG_EFORMAT, "%s is not supported by the graph builder",
                    cg_op(r->op)->name);
  }
}

/* A record the normalization table has no row for. */
static int build_rec(builder *B, const cg_rec *r) {
  int rc;
  B->rec = r->index;
  rc = rec_other(B, r);
  return B->rc ? B->rc : rc;
}

/* The node of input location l of record i in the build loop: the live
 * entry, or get's (a pending constant, an uninitialized read; NONE on an
 * error). */
HOT_INLINE uint32_t fast_get(builder *B, uint64_t l, size_t i) {
  uint32_t v = B->live[l];
  if (v < PENDING) return v;
  B->rec = i; /* for get's warning */
  return get(B, l);
}

/* One pass over the tape (section 2.1).  Records are walked here rather
 * than through cg_tape_iter: the normalized opcodes are handled inline, as
 * op_node and assign would, with the locations known to be in the store;
 * everything else goes through build_rec.  Only the general path needs
 * B->rec (the inline ones set it before an uninitialized read), and the
 * records that compute or assign are counted at the end (cg_graph_build). */
static void build_all(builder *B) {
  static const uint32_t no_loc[1] = {0}; /* for tapes without operands or */
  static const double no_val[1] = {0.0}; /* constants: NULL + 0 is undefined */
  const cg_tape *t = B->t;
  const uint32_t *L0 = t->loc ? t->loc : no_loc, *L = L0;
  const double *V = t->val ? t->val : no_val;
  size_t i;
  for (i = 0; i < t->nops && !B->rc; i++) {
    unsigned op = t->op[i];
    const bnorm *d = &B->norm[op];
    if ((i & CG_PROGRESS_MASK) == 0) cg_progress_at(B->A, "building graph", i, t->nops);
    uint32_t v, k0, k1, k2;
    double c;
    cg_rec r;
    uint32_t nl, nv;
    /* a unary or binary record of operation G (in the node kinds below, a
     * constant: new_node_inl computes the value without a switch) */
#define OP1_REC(G)                                                             \
  if ((k0 = fast_get(B, L[d->in[0]], i)) == NONE) return;                      \
  if ((v = new_node_inl(B, (G), c, k0, NONE, NONE, 1)) == NONE) return;        \
  set_live_in(B, L[d->out], v);
#define OP2_REC(G)                                                             \
  if ((k0 = fast_get(B, L[d->in[0]], i)) == NONE) return;                      \
  if ((k1 = fast_get(B, L[d->in[1]], i)) == NONE) return;                      \
  if ((v = new_node_inl(B, (G), c, k0, k1, NONE, 2)) == NONE) return;          \
  set_live_in(B, L[d->out], v);
    switch (d->kind) { /* inputs in the order the tape reads them */
      case NK_ADD: c = d->c; OP2_REC(CG_G_ADD) break;
      case NK_SUB: c = d->c; OP2_REC(CG_G_SUB) break;
      case NK_MUL: c = d->c; OP2_REC(CG_G_MUL) break;
      case NK_ADDCV: c = V[0]; OP1_REC(CG_G_ADDC) break;
      case NK_ADDCN: c = -V[0]; OP1_REC(CG_G_ADDC) break;
      case NK_MULCV: c = V[0]; OP1_REC(CG_G_MULC) break;
      case NK_OP1V: c = V[0]; goto op1;
      case NK_OP1N: c = -V[0]; goto op1;
      case NK_OP1:
        c = d->c;
      op1:
        OP1_REC(d->g)
        break;
      case NK_OP2V: c = V[0]; goto op2;
      case NK_OP2:
        c = d->c;
      op2:
        OP2_REC(d->g)
        break;
      case NK_OP3V: c = V[0]; goto op3;
      case NK_OP3:
        c = d->c;
      op3:
        if ((k0 = fast_get(B, L[d->in[0]], i)) == NONE) return;
        if ((k1 = fast_get(B, L[d->in[1]], i)) == NONE) return;
        if ((k2 = fast_get(B, L[d->in[2]], i)) == NONE) return;
        v = new_node_inl(B, d->g, c, k0, k1, k2, 3);
        if (v == NONE) return;
        set_live_in(B, L[d->out], v);
        break;
      case NK_ALIAS: /* section 2.2: the live entry is aliased */
        if ((v = fast_get(B, L[d->in[0]], i)) == NONE) return;
        B->st.assign_removed++;
        set_live_in(B, L[d->out], v);
        break;
      case NK_CONSTV: c = V[0]; goto cst;
      case NK_CONST:
        c = d->c;
      cst:
        if ((v = new_node_inl(B, CG_G_CONST, c, NONE, NONE, NONE, 0)) == NONE) return;
        set_live_in(B, L[d->out], v);
        break;
      case NK_LCONSTV: c = V[0]; goto lcst;
      case NK_LCONST:
        c = d->c;
      lcst:
        if (set_pending(B, L[d->out], c)) return;
        break;
      case NK_INDEP:
        B->rec = i;
        if (rec_indep(B, L[0], indep_x(B))) return;
        break;
      case NK_DEP:
        B->rec = i;
        if (rec_dep(B, L[0])) return;
        break;
      default:
        if (d->fixed) {
          nl = d->nl, nv = d->nv;
        } else if (cg_rec_counts(op, L, (uint32_t)(t->nlocs - (size_t)(L - L0)), &nl, &nv) != 1) {
          B->rec = i;
          b_fail(B, CG_EFORMAT, "%s: inconsistent operand counts", cg_op(op)->name);
          return;
        }
        r.op = op, r.nloc = nl, r.nval = nv, r.loc = L, r.val = V, r.index = i;
        build_rec(B, &r);
        L += nl;
        V += nv;
        continue;
    }
    L += d->nl;
    V += d->nv;
  }
#undef OP1_REC
#undef OP2_REC
}

/* {==== compaction ====} */

/* Frees n file names (each allocated with its terminating zero). */
static void free_files(cg_alloc *A, char **file, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) cg_free(A, file[i], strlen(file[i]) + 1);
}

static void b_free(builder *B) {
  cg_alloc *A = B->A;
  cg_free(A, B->nd, B->cap * sizeof(bnode));
  cg_free(A, B->order, B->cap_order * 4);
  cg_free(A, B->op, B->ocap * sizeof(bop));
  CG_FREE(A, B->live, uint32_t, B->nlive);
  cg_free(A, B->ind, B->capind * 4); cg_free(A, B->dep, B->capdep * 4);
  cg_free(A, B->stack, B->capstack * 4);
  cg_free(A, B->guard, B->capguard * sizeof *B->guard);
  cg_free(A, B->warn, B->capwarn);
  cg_free(A, B->run, B->caprun * sizeof *B->run);
  cg_free(A, B->gorg, B->capgorg * sizeof *B->gorg);
  free_files(A, B->file, B->nfile);
  cg_free(A, B->file, B->capfile * sizeof *B->file);
}

void cg_graph_free(cg_graph *g) {
  cg_alloc *A;
  size_t n, nk, np, no;
  if (!g) return;
  A = g->A;
  n = g->n;
  nk = g->kid_start ? g->kid_start[n] : 0;
  np = g->par_start ? g->par_start[n] : 0;
  no = g->op_start ? g->op_start[n] : 0;
  CG_FREE(A, g->kid_start, uint32_t, n + 1); CG_FREE(A, g->kids, uint32_t, nk);
  CG_FREE(A, g->par_start, uint32_t, n + 1); CG_FREE(A, g->pars, uint32_t, np);
  CG_FREE(A, g->op_start, uint32_t, n + 1); CG_FREE(A, g->op, uint8_t, no);
  CG_FREE(A, g->opc, double, no); CG_FREE(A, g->flags, uint8_t, n);
  CG_FREE(A, g->val, double, n);
  CG_FREE(A, g->indep, uint32_t, g->n_indep);
  CG_FREE(A, g->dep, uint32_t, g->n_dep);
  CG_FREE(A, g->guard, cg_guard, g->n_guard);
  cg_free(A, g->warnings, g->warnings_len + 1);
  CG_FREE(A, g->origin, cg_origin, n);
  CG_FREE(A, g->guard_origin, cg_origin, g->n_guard);
  if (g->file) free_files(A, g->file, g->n_file);
  cg_free(A, g->file, g->n_file * sizeof *g->file);
  cg_free(A, g, sizeof *g);
}

/* Frees what g_alloc got, with the sizes it asked for (cg_graph_free reads
 * them from kid_start[n] and op_start[n], not filled yet). */
static void g_unalloc(cg_graph *g, size_t nk, size_t no) {
  cg_alloc *A = g->A;
  size_t n = g->n;
  CG_FREE(A, g->kid_start, uint32_t, n + 1); CG_FREE(A, g->par_start, uint32_t, n + 1);
  CG_FREE(A, g->op_start, uint32_t, n + 1);
  CG_FREE(A, g->kids, uint32_t, nk); CG_FREE(A, g->pars, uint32_t, nk);
  CG_FREE(A, g->op, uint8_t, no); CG_FREE(A, g->opc, double, no);
  CG_FREE(A, g->flags, uint8_t, n); CG_FREE(A, g->val, double, n);
  CG_FREE(A, g->indep, uint32_t, g->n_indep);
  CG_FREE(A, g->dep, uint32_t, g->n_dep);
  CG_FREE(A, g->guard, cg_guard, g->n_guard);
  g->kid_start = g->par_start = g->op_start = g->kids = g->pars = g->indep = g->dep = NULL;
  g->op = g->flags = NULL;
  g->opc = g->val = NULL;
  g->guard = NULL;
}

/* Allocates the graph's arrays for n nodes, nk kid slots, no operations. */
static int g_alloc(cg_graph *g, size_t nk, size_t no) {
  cg_alloc *A = g->A;
  size_t n = g->n;
  g->kid_start = CG_NEW(A, uint32_t, n + 1);
  g->par_start = CG_NEW(A, uint32_t, n + 1);
  g->op_start = CG_NEW(A, uint32_t, n + 1);
  g->kids = CG_NEW(A, uint32_t, nk);
  g->pars = CG_NEW(A, uint32_t, nk);
  g->op = CG_NEW(A, uint8_t, no);
  g->opc = CG_NEW(A, double, no);
  g->flags = CG_NEW(A, uint8_t, n);
  g->val = CG_NEW(A, double, n);
  g->indep = CG_NEW(A, uint32_t, g->n_indep);
  g->dep = CG_NEW(A, uint32_t, g->n_dep);
  g->guard = CG_NEW(A, cg_guard, g->n_guard);
  if (!g->kid_start || !g->par_start || !g->op_start || !g->kids || !g->pars || !g->op ||
      !g->opc || !g->flags || !g->val || !g->indep || !g->dep || !g->guard) {
    g_unalloc(g, nk, no);
    return CG_ENOMEM;
  }
  g->kid_start[0] = g->op_start[0] = 0;
  return CG_OK;
}

/* Renumbers surviving slots by birth (a topological order) into g, in one
 * pass: a node's children were born before it, so they have their new ids
 * (kept in `birth`) by the time it is written.  The parent lists are filled
 * in the same pass: a node's list starts where its predecessors' npar (its
 * parent edges, exact for the slots in use) end, and npar then becomes its
 * fill position; parents come in increasing id, so each list is sorted. */
static int compact(builder *B, cg_graph *g) {
  bnode *nd = B->nd;
  const bop *op = B->op;
  const uint32_t *order = B->order;
  uint32_t *kids, *pars, *kid_start, *par_start, *op_start;
  uint8_t *gop, *flags;
  double *opc, *val;
  size_t s, seq = B->seq;
  uint32_t id = 0, i, ko = 0, po = 0, oo = 0;
  uint64_t inuse = B->seq - B->nfreed;
  if (inuse > B->st.peak_nodes) B->st.peak_nodes = inuse;
  g->n = (uint32_t)inuse;
  g->n_indep = (uint32_t)B->nind;
  g->n_dep = (uint32_t)B->ndep;
  g->n_guard = (uint32_t)B->nguard;
  if (g_alloc(g, (size_t)B->live_kids, (size_t)(B->seq - B->st.dead_ops))) return b_nomem(B);
  /* the arrays in locals: the byte stores (op, flags) may alias anything, so
   * through g every iteration reloaded them */
  kids = g->kids, pars = g->pars, kid_start = g->kid_start, par_start = g->par_start;
  op_start = g->op_start, gop = g->op, flags = g->flags, opc = g->opc, val = g->val;
  for (s = 0; s < seq; s++) {
    uint32_t v = order[s], o, np;
    bnode *N, *K;
    if (v == NONE) continue;
    N = nd + v;
    switch (N->nk) {
      case 3:
        K = nd + N->k0, kids[ko++] = K->birth, pars[K->npar++] = id;
        K = nd + N->k1, kids[ko++] = K->birth, pars[K->npar++] = id;
        K = nd + N->k2, kids[ko++] = K->birth, pars[K->npar++] = id;
        break;
      case 2:
        K = nd + N->k0, kids[ko++] = K->birth, pars[K->npar++] = id;
        K = nd + N->k1, kids[ko++] = K->birth, pars[K->npar++] = id;
        break;
      case 1:
        K = nd + N->k0, kids[ko++] = K->birth, pars[K->npar++] = id;
        break;
      default:
        break;
    }
    kid_start[id + 1] = ko;
    par_start[id] = po;
    np = N->npar;
    N->npar = po;
    po += np;
    if ((o = N->head) == s) { /* nothing hoisted into it: only its own operation */
      gop[oo] = (uint8_t)op[s].code;
      opc[oo++] = op[s].c;
    } else {
      do {
        gop[oo] = (uint8_t)op[o].code;
        opc[oo++] = op[o].c;
      } while ((o = op[o].next) != NONE);
    }
    op_start[id + 1] = oo;
    flags[id] = N->fl;
    val[id] = N->val;
    N->birth = id++;
  }
  par_start[id] = po;
  B->st.hoisted_ops += oo - id;
  for (i = 0; i < B->nind; i++) g->indep[i] = nd[B->ind[i]].birth;
  for (i = 0; i < B->ndep; i++) g->dep[i] = nd[B->dep[i]].birth;
  for (i = 0; i < B->nguard; i++) {
    g->guard[i] = B->guard[i];
    g->guard[i].node = nd[B->guard[i].node].birth;
  }
  return CG_OK;
}

void cg_gopts_default(cg_gopts *o) {
  o->assign_removal = o->hoist = o->dead_roots = o->recover_hoists = 1;
  o->guards = o->death_unlink = 1;
  o->mem_limit = 0;
}

/* Per record: a build slot and a pool operation (cap_hint sizes both from the
 * record count), then the built graph's node arrays (kid_start, par_start,
 * op_start, flags, value), up to three child and parent edges, one chain
 * operation, and the compaction map. */
uint64_t cg_graph_estimate(const cg_tape *t) {
  uint64_t per = sizeof(bnode) + sizeof(bop) + 3 * 4 + 1 + 8 + 3 * (4 + 4) + (1 + 8) + 4;
  uint64_t n = t->nops < 1024 ? 1024 : t->nops;
  return n * per + t->nstore * 4;
}

/* Refuses a build the memory limit cannot hold, before allocating anything. */
static int check_limit(const cg_tape *t, uint64_t limit, cg_error *e) {
  uint64_t need = cg_graph_estimate(t);
  if (!limit || need <= limit) return CG_OK;
  return cg_seterr(e, CG_ENOMEM,
                   "%s: building the graph of %llu records needs about %.1f MiB, over the "
                   "memory limit of %.1f MiB",
                   t->source[0] ? cg_basename(t->source) : "tape", (unsigned long long)t->nops,
                   (double)need / 1048576.0, (double)limit / 1048576.0);
}

/* The engine's state for a build with these switches: the live table for
 * nlive locations, the pools sized for about `ops` nodes, the independents'
 * and dependents' arrays for the counts expected (0: grown as needed). */
static int b_setup(builder *B, cg_alloc *A, const cg_gopts *o, int has_val, uint64_t ops,
                   uint64_t nlive, uint64_t nind, uint64_t ndep, cg_error *e) {
  uint64_t i;
  B->A = A;
  B->e = e;
  if (o) B->o = *o;
  else cg_gopts_default(&B->o);
  B->par0 = B->o.recover_hoists ? 0 : NONE;
  B->parmask = B->o.recover_hoists ? NONE : 0;
  B->free_node = NONE;
  B->has_val = has_val;
  B->nlive = nlive;
  /* first allocation sized from the expected count (nodes <= records,
   * roughly), so the arrays are rarely copied while growing */
  B->cap_hint = ops < 1024 ? 1024 : ops > ((size_t)1 << 30) ? ((size_t)1 << 30) : (size_t)ops;
  if (B->nlive > ((size_t)1 << 32) - 2)
    return cg_seterr(e, CG_EUSAGE, "store of %llu locations is too large for a graph",
                     (unsigned long long)B->nlive);
  B->live = CG_NEW(A, uint32_t, B->nlive);
  if (!B->live) return cg_seterr(e, CG_ENOMEM, "out of memory for the live node table");
  for (i = 0; i < B->nlive; i++) B->live[i] = NONE;
  /* one allocation each for the counts expected */
  if ((nind && nind < NONE && cg_reserve(A, (void **)&B->ind, &B->capind, (size_t)nind, sizeof *B->ind)) ||
      (ndep && ndep < NONE && cg_reserve(A, (void **)&B->dep, &B->capdep, (size_t)ndep, sizeof *B->dep)))
    return cg_seterr(e, CG_ENOMEM, "out of memory for the independents and dependents");
  return CG_OK;
}

/* The tape driver's state: the engine's, sized from the tape, and the
 * normalization table of the build loop. */
static int b_init(builder *B, cg_alloc *A, const cg_tape *t, const double *x,
                  const cg_gopts *o, cg_error *e) {
  int rc;
  memset(B, 0, sizeof *B);
  B->t = t;
  B->e = e;
  snprintf(B->name, sizeof B->name, "%s", t->source[0] ? cg_basename(t->source) : "tape");
  B->x = x ? x : (t->has_x0 ? t->x0 : NULL);
  if ((rc = check_limit(t, o ? o->mem_limit : 0, e)) != CG_OK) return rc;
  if ((rc = b_setup(B, A, o, B->x != NULL, t->nops, t->nstore, t->n_indep, t->n_dep, e)))
    return rc;
  norm_init(B);
  return CG_OK;
}

/* Completes every node still in the live table, in location order. */
static void b_finish(builder *B) {
  uint64_t l;
  for (l = 0; l < B->nlive && !B->rc; l++)
    if (B->live[l] != NONE) set_live_in(B, l, NONE);
}

/* The guards' origins as the interface was given them. */
static int keep_guard_origins(builder *B, cg_graph *g) {
  g->guard_origin = CG_NEW(B->A, cg_origin, g->n_guard);
  if (!g->guard_origin) return b_nomem(B);
  if (B->nguard) memcpy(g->guard_origin, B->gorg, B->nguard * sizeof *B->gorg);
  return CG_OK;
}

/* The nodes' origins, from the runs of births cg_gbuild_origin left, in
 * the surviving nodes' order (compaction's), and the file names. */
static int keep_origins(builder *B, cg_graph *g) {
  size_t s, r = 0;
  uint32_t id = 0;
  cg_origin none;
  memset(&none, 0, sizeof none);
  g->origin = CG_NEW(B->A, cg_origin, g->n);
  if (!g->origin) return b_nomem(B);
  for (s = 0; s < B->seq; s++) {
    while (r < B->nrun && B->run[r].birth <= s) r++; /* run r-1 holds birth s */
    if (B->order[s] != NONE) g->origin[id++] = r ? B->run[r - 1].o : none;
  }
  if (B->nfile) { /* the names move to the graph, in an array of their number */
    char **f = (char **)cg_realloc(B->A, B->file, B->capfile * sizeof *f, B->nfile * sizeof *f);
    if (!f) return b_nomem(B);
    g->file = f;
    g->n_file = (uint32_t)B->nfile;
    B->file = NULL;
    B->nfile = B->capfile = 0;
  }
  return CG_OK;
}

/* Completes the live nodes and makes the graph: compaction, statistics,
 * warnings, origins.  NULL on failure (B->rc). */
static cg_graph *b_graph(builder *B) {
  cg_graph *g = NULL;
  if (!B->rc) b_finish(B);
  if (!B->rc && !(g = (cg_graph *)cg_malloc(B->A, sizeof *g))) b_nomem(B);
  if (!B->rc) {
    memset(g, 0, sizeof *g);
    g->A = B->A;
    compact(B, g);
  }
  if (!B->rc && B->iface) keep_guard_origins(B, g);
  if (!B->rc && B->src) keep_origins(B, g);
  if (B->rc) {
    cg_graph_free(g);
    return NULL;
  }
  B->st.nodes_created = B->st.ops_created = B->seq; /* one node, one operation each */
  B->st.guards = B->nguard;
  g->st = B->st;
  g->has_val = B->has_val;
  if (B->nwarn) {
    g->warnings = B->warn;
    g->warnings_len = B->capwarn - 1;
    B->warn = NULL;
  }
  return g;
}

cg_graph *cg_graph_build(cg_alloc *A, const cg_tape *t, const double *x, const cg_gopts *o,
                         cg_error *e) {
  builder B;
  cg_graph *g = NULL;
  if (!A) A = t->A;
  if (b_init(&B, A, t, x, o, e)) {
    b_free(&B);
    return NULL;
  }
  build_all(&B);
  cg_progress_end(A, "building graph", t->nops);
  if ((g = b_graph(&B)) != NULL) {
    g->st.tape_ops = t->nops - B.st.death_notices; /* every record but death notices */
    snprintf(g->source, sizeof g->source, "%s", t->source);
  }
  b_free(&B);
  if (g && x && cg_tape_forward(t, x, NULL, &g->branch, e)) { /* a new point: did it leave the tape's branch? */
    cg_graph_free(g);
    g = NULL;
  }
  return g;
}

/* {==== the interface (cg_gbuild.h) ====} */

/* Bytes per expected operation (cg_graph_estimate's), for mem_limit. */
static uint64_t hint_estimate(const cg_ghints *h) {
  uint64_t per = sizeof(bnode) + sizeof(bop) + 3 * 4 + 1 + 8 + 3 * (4 + 4) + (1 + 8) + 4;
  uint64_t n = h->ops < 1024 ? 1024 : h->ops;
  return n * per + h->locs * 4;
}

cg_gbuild *cg_gbuild_begin(cg_alloc *A, const cg_gopts *o, int values, const cg_ghints *h,
                           cg_error *e) {
  cg_ghints none;
  builder *B = (builder *)cg_malloc(A, sizeof *B);
  if (!B) return cg_seterr(e, CG_ENOMEM, "out of memory for a graph builder"), NULL;
  memset(B, 0, sizeof *B);
  memset(&none, 0, sizeof none);
  if (!h) h = &none;
  B->iface = 1;
  snprintf(B->name, sizeof B->name, "%s", h->name ? h->name : "graph");
  if (o && o->mem_limit && hint_estimate(h) > o->mem_limit) {
    cg_seterr(e, CG_ENOMEM, "%s: building a graph of %llu operations needs about %.1f MiB, "
              "over the memory limit of %.1f MiB", B->name, (unsigned long long)h->ops,
              (double)hint_estimate(h) / 1048576.0, (double)o->mem_limit / 1048576.0);
    cg_free(A, B, sizeof *B);
    return NULL;
  }
  if (b_setup(B, A, o, values != 0, h->ops, h->locs, h->n_indep, h->n_dep, e)) {
    cg_gbuild_abort(B);
    return NULL;
  }
  return B;
}

void cg_gbuild_abort(cg_gbuild *B) {
  if (!B) return;
  b_free(B);
  cg_free(B->A, B, sizeof *B);
}

cg_graph *cg_gbuild_finish(cg_gbuild *B) {
  cg_graph *g;
  if (!B) return NULL;
  g = b_graph(B);
  if (g) snprintf(g->source, sizeof g->source, "%s", B->name);
  cg_gbuild_abort(B);
  return g;
}

/* A bad argument: the message says where, the builder is left as it was. */
static int b_usage(builder *B, const char *fmt, ...) {
  char what[300], where[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  b_where(B, where, sizeof where);
  return cg_seterr(B->e, CG_EUSAGE, "%s: %s", where, what);
}

/* Makes loc a location of the live table, growing it (geometrically). */
static int b_loc(builder *B, uint64_t loc) {
  size_t cap, i;
  uint32_t *p;
  if (loc < B->nlive) return CG_OK;
  if (loc >= (uint64_t)NONE - 1) return b_usage(B, "location %llu is too large for a graph",
                                                  (unsigned long long)loc);
  cap = B->nlive < 32 ? 64 : (size_t)B->nlive * 2;
  if (cap <= loc) cap = (size_t)loc + 1;
  if (cap > (size_t)NONE - 1) cap = (size_t)NONE - 1;
  p = CG_RENEW(B->A, B->live, uint32_t, B->nlive, cap);
  if (!p) return b_nomem(B);
  for (i = (size_t)B->nlive; i < cap; i++) p[i] = NONE;
  B->live = p;
  B->nlive = cap;
  return CG_OK;
}

/* A verb starts: the builder has not failed, loc is a location, and the
 * statement is counted (its first verb; every verb without origins). */
static int b_verb(builder *B, uint64_t loc, int unlink) {
  if (B->rc) return B->rc;
  if (b_loc(B, loc)) return B->rc ? B->rc : CG_EUSAGE;
  if (!B->in_stmt) {
    if (unlink) B->st.death_notices++;
    else B->st.tape_ops++;
    B->in_stmt = B->org.kind != CG_ORIGIN_NONE; /* without origins each verb is one */
  }
  return CG_OK;
}

int cg_gbuild_file(cg_gbuild *B, const char *name, uint32_t *id) {
  size_t i, n = strlen(name) + 1;
  char *copy;
  if (B->rc) return B->rc;
  for (i = 0; i < B->nfile; i++)
    if (strcmp(B->file[i], name) == 0) return *id = (uint32_t)i, CG_OK;
  if (B->nfile >= NONE) return b_usage(B, "too many files");
  if (cg_reserve(B->A, (void **)&B->file, &B->capfile, B->nfile + 1, sizeof *B->file))
    return b_nomem(B);
  if (!(copy = (char *)cg_malloc(B->A, n))) return b_nomem(B);
  memcpy(copy, name, n);
  B->file[B->nfile] = copy;
  *id = (uint32_t)B->nfile++;
  return CG_OK;
}

int cg_gbuild_origin(cg_gbuild *B, const cg_origin *o) {
  if (B->rc) return B->rc;
  if (o->kind > CG_ORIGIN_SOURCE) return b_usage(B, "unknown origin kind %u", (unsigned)o->kind);
  if (o->kind == CG_ORIGIN_SOURCE && o->file >= B->nfile)
    return b_usage(B, "origin file %lu was not named (cg_gbuild_file)", (unsigned long)o->file);
  if (B->nrun && B->run[B->nrun - 1].birth == B->seq) {
    B->nrun--; /* no node under the previous origin: replaced */
  } else if (cg_reserve(B->A, (void **)&B->run, &B->caprun, B->nrun + 1, sizeof *B->run)) {
    return b_nomem(B);
  }
  B->run[B->nrun].birth = B->seq;
  B->run[B->nrun++].o = *o;
  B->org = *o;
  B->rec = o->kind == CG_ORIGIN_RECORD ? o->record : 0;
  B->in_stmt = 0;
  if (o->kind == CG_ORIGIN_SOURCE) B->src = 1;
  return CG_OK;
}

int cg_gbuild_independent(cg_gbuild *B, uint64_t loc, double value) {
  if (b_verb(B, loc, 0)) return B->rc ? B->rc : CG_EUSAGE;
  return rec_indep(B, loc, value);
}

int cg_gbuild_constant(cg_gbuild *B, uint64_t loc, double c) {
  if (b_verb(B, loc, 0)) return B->rc ? B->rc : CG_EUSAGE;
  if (B->o.dead_roots) return set_pending(B, loc, c); /* lazy, as the tape loop's */
  return constant(B, loc, c);
}

int cg_gbuild_op(cg_gbuild *B, uint64_t out, unsigned g, double c, const uint64_t *in,
                 unsigned nin) {
  unsigned i;
  if (B->rc) return B->rc;
  if (g >= CG_G_COUNT) return b_usage(B, "%u is not a graph operation", g);
  if (g == CG_G_INDEP || g == CG_G_CONST)
    return b_usage(B, "%s is made by its own verb, not as an operation", cg_gop(g)->name);
  if (nin != cg_gop(g)->arity)
    return b_usage(B, "%s takes %u inputs, not %u", cg_gop(g)->name,
                   (unsigned)cg_gop(g)->arity, nin);
  for (i = 0; i < nin; i++)
    if (b_loc(B, in[i])) return B->rc ? B->rc : CG_EUSAGE;
  if (b_verb(B, out, 0)) return B->rc ? B->rc : CG_EUSAGE;
  if (!cg_gop(g)->has_const) c = 0.0; /* the tape's records carry none */
  return op_node(B, out, g, c, in, (int)nin);
}

int cg_gbuild_assign(cg_gbuild *B, uint64_t r, uint64_t a) {
  if (B->rc) return B->rc;
  if (b_loc(B, a)) return B->rc ? B->rc : CG_EUSAGE;
  if (b_verb(B, r, 0)) return B->rc ? B->rc : CG_EUSAGE;
  return assign(B, r, a);
}

int cg_gbuild_guard(cg_gbuild *B, uint64_t loc, unsigned kind, double taped) {
  uint32_t v;
  if (B->rc) return B->rc;
  if (!cg_guard_kind_name(kind)) return b_usage(B, "%u is not a guard kind", kind);
  if (b_verb(B, loc, 0)) return B->rc ? B->rc : CG_EUSAGE;
  if ((v = get(B, loc)) == NONE) return B->rc;
  if (kind != CG_GUARD_VALUE) taped = 0.0;
  else if (B->has_val) taped = B->nd[v].val; /* what index_of keeps */
  return add_guard(B, v, kind, taped);
}

int cg_gbuild_value(cg_gbuild *B, uint64_t loc, double *val) {
  uint32_t v;
  if (B->rc) return B->rc;
  if (!B->has_val) return b_usage(B, "the graph is built without values");
  if (b_loc(B, loc)) return B->rc ? B->rc : CG_EUSAGE;
  if ((v = get(B, loc)) == NONE) return B->rc;
  *val = B->nd[v].val;
  return CG_OK;
}

int cg_gbuild_dependent(cg_gbuild *B, uint64_t loc) {
  if (b_verb(B, loc, 0)) return B->rc ? B->rc : CG_EUSAGE;
  return rec_dep(B, loc);
}

int cg_gbuild_unlink(cg_gbuild *B, uint64_t lo, uint64_t hi) {
  if (B->rc) return B->rc;
  if (b_verb(B, 0, 1)) return B->rc ? B->rc : CG_EUSAGE;
  return unlink_range(B, lo, hi);
}
