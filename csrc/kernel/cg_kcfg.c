/* cg_kcfg.c: the control flow graph of a kernel function (Utke,
 * Flattening, sec. 2), built in one walk over the function's body.
 *
 * The walk keeps the "dangling" edges: the vertices (with the label of the
 * edge: plain, then/body side, else/exit side) whose control goes to
 * whatever vertex comes next.  Making a vertex connects them all to it; a
 * statement joins the block being filled when that block alone dangles.
 * BREAK, CONTINUE and RETURN leave nothing dangling and are remembered as
 * jumps until their loop (or the function) closes. */
#include "cg_kcfg.h"

#include <string.h>

CG_KKINDS_SEEN(10, 32); /* the statement kinds and expression operators its switches handle */

static const char *const vert_names[] = {
#define N(id, nm) #nm,
    CG_KVERTS(N)
#undef N
};
const char *cg_kvert_name(int kind) {
  return kind >= 0 && kind < CG_KV_COUNT ? vert_names[kind] : NULL;
}

enum { L_PLAIN = 0, L_TRUE = 1, L_FALSE = 2 };
typedef struct dang {
  uint32_t v;
  uint8_t label;
} dang;
typedef struct edge {
  uint32_t from, to;
  uint8_t label;
} edge;
typedef struct jump {
  uint32_t v;   /* the block ending in it */
  int32_t stmt; /* the BREAK, CONTINUE or RETURN */
} jump;

/* The walk's growable arrays (cg_reserve) and where it is. */
typedef struct bld {
  const cg_kernel *k;
  cg_alloc *A;
  uint8_t *kind;
  int32_t *vstmt;
  uint32_t *bst_start;
  size_t nv, cap_kind, cap_vstmt, cap_bstart;
  int32_t *bst;
  size_t nbst, cap_bst;
  edge *edges;
  size_t ne, cap_e;
  dang *dang;
  size_t nd, cap_d, base; /* the dangling set is dang[base .. nd) */
  jump *jumps;
  size_t nj, cap_j;
  int open;               /* the last vertex is a block statements may join */
  int32_t *stmt_vertex;
} bld;

#define RESERVE(b, arr, cap, need) \
  cg_reserve((b)->A, (void **)&(b)->arr, &(b)->cap, (need), sizeof *(b)->arr)

static int push_dang(bld *b, uint32_t v, uint8_t label) {
  if (RESERVE(b, dang, cap_d, b->nd + 1)) return CG_ENOMEM;
  b->dang[b->nd].v = v, b->dang[b->nd++].label = label;
  return CG_OK;
}

static int add_edge(bld *b, uint32_t from, uint32_t to, uint8_t label) {
  if (RESERVE(b, edges, cap_e, b->ne + 1)) return CG_ENOMEM;
  b->edges[b->ne].from = from, b->edges[b->ne].to = to, b->edges[b->ne++].label = label;
  return CG_OK;
}

/* Edges from every dangling vertex to v; the set empties. */
static int connect_to(bld *b, uint32_t v) {
  size_t i;
  for (i = b->base; i < b->nd; i++)
    if (add_edge(b, b->dang[i].v, v, b->dang[i].label)) return CG_ENOMEM;
  b->nd = b->base;
  return CG_OK;
}

/* A new vertex; with link, the dangling edges lead to it and it alone
 * dangles after.  *v gets its id. */
static int new_vertex(bld *b, int kind, int32_t stmt, int link, uint32_t *v) {
  if (b->nv >= UINT32_MAX - 1 || RESERVE(b, kind, cap_kind, b->nv + 1) ||
      RESERVE(b, vstmt, cap_vstmt, b->nv + 1) || RESERVE(b, bst_start, cap_bstart, b->nv + 2))
    return CG_ENOMEM;
  *v = (uint32_t)b->nv;
  b->kind[b->nv] = (uint8_t)kind;
  b->vstmt[b->nv] = stmt;
  b->bst_start[b->nv++] = (uint32_t)b->nbst;
  b->open = kind == CG_KV_BLOCK;
  if (!link) return CG_OK;
  if (connect_to(b, *v)) return CG_ENOMEM;
  return push_dang(b, *v, L_PLAIN);
}

/* Appends statement s to the block being filled, opening a new block
 * unless that block alone dangles (fresh: always a new block). */
static int join_block(bld *b, int32_t s, int fresh) {
  uint32_t v = (uint32_t)b->nv - 1;
  if (fresh || !b->open || b->nd != b->base + 1 || b->dang[b->base].v != v)
    if (new_vertex(b, CG_KV_BLOCK, -1, 1, &v)) return CG_ENOMEM;
  if (RESERVE(b, bst, cap_bst, b->nbst + 1)) return CG_ENOMEM;
  b->bst[b->nbst++] = s;
  b->stmt_vertex[s] = (int32_t)v;
  return CG_OK;
}

/* A run of ASSIGN/CALL (a loop's pre or step) as a block of its own. */
static int own_block(bld *b, int32_t start, int32_t n) {
  int32_t i;
  for (i = 0; i < n; i++)
    if (join_block(b, b->k->list[start + i], i == 0)) return CG_ENOMEM;
  return CG_OK;
}

static int walk_slice(bld *b, int32_t start, int32_t n);

/* BREAK, CONTINUE, RETURN: the end of a block, a jump resolved later. */
static int walk_jump(bld *b, int32_t s) {
  if (join_block(b, s, 0) || RESERVE(b, jumps, cap_j, b->nj + 1)) return CG_ENOMEM;
  b->jumps[b->nj].v = (uint32_t)b->stmt_vertex[s];
  b->jumps[b->nj++].stmt = s;
  b->nd = b->base; /* nothing falls through */
  b->open = 0;
  return CG_OK;
}

static int walk_if(bld *b, int32_t s) {
  const cg_kernel *k = b->k;
  size_t base = b->base, mid;
  uint32_t v, end;
  if (new_vertex(b, CG_KV_BRANCH, s, 1, &v)) return CG_ENOMEM;
  b->stmt_vertex[s] = (int32_t)v;
  b->dang[b->base].label = L_TRUE;
  b->open = 0;
  if (walk_slice(b, CG_KSTMT_SLICE(k, s, IF_THEN))) return CG_ENOMEM;
  mid = b->nd; /* the then side's dangling stay below the else side's */
  b->base = mid;
  if (push_dang(b, v, L_FALSE) || walk_slice(b, CG_KSTMT_SLICE(k, s, IF_ELSE)))
    return CG_ENOMEM;
  b->base = base;
  return new_vertex(b, CG_KV_ENDBRANCH, s, 1, &end);
}

/* The loop's jumps since mark: CONTINUEs dangle (to the step), BREAKs go
 * to the ENDLOOP (pushed later); the rest stay.  brk: which to take. */
static int take_jumps(bld *b, size_t mark, int brk) {
  size_t i, keep = mark;
  for (i = mark; i < b->nj; i++) {
    int is_brk = CG_KSTMT(b->k, b->jumps[i].stmt, KIND) == CG_KST_BREAK;
    if (is_brk == brk) {
      if (push_dang(b, b->jumps[i].v, L_PLAIN)) return CG_ENOMEM;
    } else
      b->jumps[keep++] = b->jumps[i];
  }
  b->nj = keep;
  return CG_OK;
}

/* Back edges from the dangling vertices to head, then ENDLOOP with the
 * loop's exit edge and its BREAKs. */
static int close_loop(bld *b, int32_t s, uint32_t loopv, uint32_t head, size_t mark) {
  uint32_t end;
  if (connect_to(b, head) || push_dang(b, loopv, L_FALSE) || take_jumps(b, mark, 1))
    return CG_ENOMEM;
  return new_vertex(b, CG_KV_ENDLOOP, s, 1, &end);
}

static int walk_loop(bld *b, int32_t s) {
  const cg_kernel *k = b->k;
  size_t mark = b->nj;
  uint32_t v, head;
  int is_do = CG_KSTMT(k, s, FLAGS) == CG_KL_DO;
  if (!is_do) { /* [pre] -> LOOP -> body -> [step] -> back */
    head = (uint32_t)b->nv; /* the pre block, when there is one */
    if (own_block(b, CG_KSTMT_SLICE(k, s, LOOP_PRE))) return CG_ENOMEM;
    if (new_vertex(b, CG_KV_LOOP, s, 1, &v)) return CG_ENOMEM;
    if (CG_KSTMT_N(k, s, LOOP_PRE) == 0) head = v;
    b->dang[b->base].label = L_TRUE;
  } else { /* entered at the body; body -> [step] -> [pre] -> LOOP */
    if (new_vertex(b, CG_KV_LOOP, s, 0, &v) || push_dang(b, v, L_TRUE)) return CG_ENOMEM;
    head = v;
  }
  b->stmt_vertex[s] = (int32_t)v;
  b->open = 0;
  if (walk_slice(b, CG_KSTMT_SLICE(k, s, LOOP_BODY)) || take_jumps(b, mark, 0) ||
      own_block(b, CG_KSTMT_SLICE(k, s, LOOP_STEP)))
    return CG_ENOMEM;
  if (is_do && own_block(b, CG_KSTMT_SLICE(k, s, LOOP_PRE))) return CG_ENOMEM;
  return close_loop(b, s, v, head, mark); /* a do loop's test edge went to the body's start */
}

static int walk_slice(bld *b, int32_t start, int32_t n) {
  int32_t i;
  for (i = 0; i < n; i++) {
    int32_t s = b->k->list[start + i];
    int rc;
    switch (CG_KSTMT(b->k, s, KIND)) {
      case CG_KST_ASSIGN: case CG_KST_CALL: case CG_KST_ALLOC: case CG_KST_FREE: case CG_KST_PASSIVE:
        rc = join_block(b, s, 0);
        break;
      case CG_KST_IF: rc = walk_if(b, s); break;
      case CG_KST_LOOP: rc = walk_loop(b, s); break;
      default: rc = walk_jump(b, s); break;
    }
    if (rc) return rc;
  }
  return CG_OK;
}

/* {==== the graph from the walk ====} */

static void bld_free(bld *b) {
  cg_alloc *A = b->A;
  CG_FREE(A, b->kind, uint8_t, b->cap_kind);
  CG_FREE(A, b->vstmt, int32_t, b->cap_vstmt);
  CG_FREE(A, b->bst_start, uint32_t, b->cap_bstart);
  CG_FREE(A, b->bst, int32_t, b->cap_bst);
  CG_FREE(A, b->edges, edge, b->cap_e);
  CG_FREE(A, b->dang, dang, b->cap_d);
  CG_FREE(A, b->jumps, jump, b->cap_j);
  CG_FREE(A, b->stmt_vertex, int32_t, b->k->nstmt);
}

void cg_kcfg_free(cg_kcfg *g) {
  cg_alloc *A;
  if (!g) return;
  A = g->A;
  CG_FREE(A, g->kind, uint8_t, g->nv);
  CG_FREE(A, g->stmt, int32_t, g->nv);
  CG_FREE(A, g->bst_start, uint32_t, g->nv + 1);
  CG_FREE(A, g->bst, int32_t, g->nbst);
  CG_FREE(A, g->succ_start, uint32_t, g->nv + 1);
  CG_FREE(A, g->succ, uint32_t, g->ne);
  CG_FREE(A, g->pred_start, uint32_t, g->nv + 1);
  CG_FREE(A, g->pred, uint32_t, g->ne);
  CG_FREE(A, g->stmt_vertex, int32_t, g->nstmt);
  CG_FREE(A, g, cg_kcfg, 1);
}

/* CSR of the edges by source (side 0) or target (side 1), in the order
 * they were made; successors then sorted by label (then/body side first). */
static void fill_csr(const bld *b, uint32_t *start, uint32_t *adj, int side) {
  size_t i;
  uint32_t v;
  memset(start, 0, (b->nv + 1) * sizeof *start);
  for (i = 0; i < b->ne; i++) start[(side ? b->edges[i].to : b->edges[i].from) + 1]++;
  for (v = 0; v < b->nv; v++) start[v + 1] += start[v];
  for (i = 0; i < b->ne; i++) {
    uint32_t at = side ? b->edges[i].to : b->edges[i].from;
    adj[start[at]++] = side ? b->edges[i].from : b->edges[i].to;
  }
  for (v = (uint32_t)b->nv; v > 0; v--) start[v] = start[v - 1];
  start[0] = 0;
}

/* Orders each BRANCH's and LOOP's two successors: the label-1 edge first. */
static void order_succ(const bld *b, cg_kcfg *g) {
  size_t i;
  for (i = 0; i < b->ne; i++) {
    uint32_t v = b->edges[i].from, *s = g->succ + g->succ_start[v];
    if (b->edges[i].label == L_TRUE && g->succ_start[v + 1] - g->succ_start[v] == 2)
      if (s[0] != b->edges[i].to) s[1] = s[0], s[0] = b->edges[i].to;
  }
}

/* Moves the walk's arrays into g (exact sizes). */
static int finish(bld *b, cg_kcfg *g) {
  cg_alloc *A = b->A;
  g->nv = (uint32_t)b->nv, g->ne = (uint32_t)b->ne, g->nbst = (uint32_t)b->nbst;
  if (!(g->kind = CG_NEW(A, uint8_t, g->nv)) || !(g->stmt = CG_NEW(A, int32_t, g->nv)) ||
      !(g->bst_start = CG_NEW(A, uint32_t, g->nv + 1)) || !(g->bst = CG_NEW(A, int32_t, g->nbst)) ||
      !(g->succ_start = CG_NEW(A, uint32_t, g->nv + 1)) || !(g->succ = CG_NEW(A, uint32_t, g->ne)) ||
      !(g->pred_start = CG_NEW(A, uint32_t, g->nv + 1)) || !(g->pred = CG_NEW(A, uint32_t, g->ne)))
    return CG_ENOMEM;
  memcpy(g->kind, b->kind, g->nv);
  memcpy(g->stmt, b->vstmt, g->nv * sizeof *g->stmt);
  memcpy(g->bst_start, b->bst_start, g->nv * sizeof *g->bst_start);
  g->bst_start[g->nv] = g->nbst;
  if (g->nbst) memcpy(g->bst, b->bst, g->nbst * sizeof *g->bst);
  fill_csr(b, g->succ_start, g->succ, 0);
  fill_csr(b, g->pred_start, g->pred, 1);
  order_succ(b, g);
  g->stmt_vertex = b->stmt_vertex; /* moved */
  b->stmt_vertex = NULL;
  g->entry = 0, g->exit = g->nv - 1;
  return CG_OK;
}

/* ENTRY, the body, EXIT with the RETURNs and the fall-through. */
static int walk_func(bld *b, int32_t f) {
  uint32_t v;
  size_t i;
  if (new_vertex(b, CG_KV_ENTRY, -1, 1, &v) ||
      walk_slice(b, CG_KFUNC(b->k, f, BODY), CG_KFUNC(b->k, f, NBODY)))
    return CG_ENOMEM;
  for (i = 0; i < b->nj; i++) /* only RETURNs are left */
    if (push_dang(b, b->jumps[i].v, L_PLAIN)) return CG_ENOMEM;
  return new_vertex(b, CG_KV_EXIT, -1, 1, &v);
}

cg_kcfg *cg_kcfg_build(cg_alloc *A, const cg_kernel *k, int32_t f, cg_error *e) {
  bld b;
  cg_kcfg *g;
  uint32_t i;
  int rc;
  if (!k || f < 0 || (uint32_t)f >= k->nfunc) {
    cg_seterr(e, CG_EUSAGE, "cg_kcfg_build: function %d out of range", (int)f);
    return NULL;
  }
  memset(&b, 0, sizeof b);
  b.k = k, b.A = A;
  if (!(g = CG_NEW(A, cg_kcfg, 1))) goto oom;
  memset(g, 0, sizeof *g);
  g->A = A, g->func = f, g->nstmt = k->nstmt;
  if (!(b.stmt_vertex = CG_NEW(A, int32_t, k->nstmt))) goto oom;
  for (i = 0; i < k->nstmt; i++) b.stmt_vertex[i] = -1;
  rc = walk_func(&b, f);
  if (!rc) rc = finish(&b, g);
  if (rc) goto oom;
  bld_free(&b);
  return g;
oom:
  bld_free(&b);
  cg_kcfg_free(g);
  cg_seterr(e, CG_ENOMEM, "%s: control flow graph: out of memory", k->file ? k->file : "kernel");
  return NULL;
}

/* {==== dumps ====} */

/* The source line of vertex v: its statement's, its first statement's, or 0. */
static int32_t vline(const cg_kernel *k, const cg_kcfg *g, uint32_t v) {
  if (g->stmt[v] >= 0) return CG_KSTMT(k, g->stmt[v], LINE);
  if (g->bst_start[v] < g->bst_start[v + 1]) return CG_KSTMT(k, g->bst[g->bst_start[v]], LINE);
  return 0;
}

int cg_kcfg_print(const cg_kernel *k, const cg_kcfg *g, FILE *fp, cg_error *e) {
  uint32_t v, i;
  fprintf(fp, "cfg %s: %u vertices, %u edges\n", k->names[CG_KFUNC(k, g->func, NAME)],
          (unsigned)g->nv, (unsigned)g->ne);
  for (v = 0; v < g->nv; v++) {
    fprintf(fp, "%u %s", (unsigned)v, cg_kvert_name(g->kind[v]));
    if (g->stmt[v] >= 0) fprintf(fp, " s%d", (int)g->stmt[v]);
    if (g->kind[v] == CG_KV_BLOCK) {
      fputs(" [", fp);
      for (i = g->bst_start[v]; i < g->bst_start[v + 1]; i++)
        fprintf(fp, "%ss%d", i > g->bst_start[v] ? " " : "", (int)g->bst[i]);
      fputc(']', fp);
    }
    fputs(" ->", fp);
    for (i = g->succ_start[v]; i < g->succ_start[v + 1]; i++) fprintf(fp, " %u", (unsigned)g->succ[i]);
    if (vline(k, g, v)) fprintf(fp, " (line %d)", (int)vline(k, g, v));
    fputc('\n', fp);
  }
  if (ferror(fp)) return cg_seterr(e, CG_EIO, "control flow graph: write failed");
  return CG_OK;
}

int cg_kcfg_dot(const cg_kernel *k, const cg_kcfg *g, FILE *fp, cg_error *e) {
  uint32_t v, i;
  fprintf(fp, "digraph \"%s\" {\n  node [shape=box, fontname=\"monospace\"];\n",
          k->names[CG_KFUNC(k, g->func, NAME)]);
  for (v = 0; v < g->nv; v++) {
    int kind = g->kind[v];
    fprintf(fp, "  v%u [label=\"%u %s", (unsigned)v, (unsigned)v, cg_kvert_name(kind));
    if (kind == CG_KV_BLOCK)
      for (i = g->bst_start[v]; i < g->bst_start[v + 1]; i++)
        fprintf(fp, "\\n%s line %d", cg_kstmt_name(CG_KSTMT(k, g->bst[i], KIND)),
                (int)CG_KSTMT(k, g->bst[i], LINE));
    else if (g->stmt[v] >= 0)
      fprintf(fp, "\\nline %d", (int)CG_KSTMT(k, g->stmt[v], LINE));
    fprintf(fp, "\"%s];\n", kind == CG_KV_BLOCK ? "" : ", shape=ellipse");
  }
  for (v = 0; v < g->nv; v++)
    for (i = g->succ_start[v]; i < g->succ_start[v + 1]; i++) {
      int two = g->kind[v] == CG_KV_BRANCH || g->kind[v] == CG_KV_LOOP;
      fprintf(fp, "  v%u -> v%u", (unsigned)v, (unsigned)g->succ[i]);
      if (two) fprintf(fp, " [label=\"%s\"]", i == g->succ_start[v] ? "T" : "F");
      fputs(";\n", fp);
    }
  fputs("}\n", fp);
  if (ferror(fp)) return cg_seterr(e, CG_EIO, "control flow graph: write failed");
  return CG_OK;
}
