/* cg_gdot.c: DOT output and text dumps of graphs (Bischof & Hu 1991, sec. 3.3). */
#include <string.h>

#include "../util/cg_fmt.h"
#include "cg_graph.h"

/* Marks the nodes reachable from root through children (explicit stack), at
 * most limit of them; returns how many were marked. */
static uint32_t mark_sub(const cg_graph *g, uint32_t root, uint32_t limit, uint8_t *mark,
                         uint32_t *stack) {
  uint32_t top = 0, count = 0, k;
  stack[top++] = root;
  mark[root] = 1;
  while (top && count < limit) {
    uint32_t v = stack[--top];
    count++;
    for (k = g->kid_start[v]; k < g->kid_start[v + 1]; k++)
      if (!mark[g->kids[k]]) {
        mark[g->kids[k]] = 1;
        stack[top++] = g->kids[k];
      }
  }
  return count;
}

/* The label text of node v: its chain, e.g. "add exp" or "x3". */
static void chain_label(const cg_graph *g, uint32_t v, FILE *fp) {
  uint32_t o;
  for (o = g->op_start[v]; o < g->op_start[v + 1]; o++) {
    unsigned op = g->op[o];
    if (o > g->op_start[v]) fputs(" > ", fp);
    if (op == CG_G_INDEP) fprintf(fp, "x%.0f", g->opc[o] + 1);
    else if (op == CG_G_CONST) fprintf(fp, "%.6g", g->opc[o]);
    else if (cg_gop(op)->has_const && op != CG_G_MIN && op != CG_G_ABS && op != CG_G_COND &&
             op != CG_G_CONDEQ && op != CG_G_CEIL && op != CG_G_FLOOR)
      fprintf(fp, "%s %.6g", cg_gop(op)->name, g->opc[o]);
    else fputs(cg_gop(op)->name, fp);
  }
}

/* Runs f with the marks of the nodes to show (all, or the subgraph). */
static int with_marks(const cg_graph *g, uint32_t root, uint32_t limit, uint8_t **mark) {
  uint32_t *stack;
  size_t n = g->n ? g->n : 1;
  *mark = (uint8_t *)cg_malloc(g->A, n);
  if (!*mark) return CG_ENOMEM;
  if (root == UINT32_MAX) {
    memset(*mark, 1, n);
    return CG_OK;
  }
  memset(*mark, 0, n);
  stack = (uint32_t *)cg_malloc(g->A, (size_t)(g->kid_start[g->n] + 1) * 4);
  if (!stack) {
    cg_free(g->A, *mark, n);
    return CG_ENOMEM;
  }
  mark_sub(g, root, limit, *mark, stack);
  cg_free(g->A, stack, (size_t)(g->kid_start[g->n] + 1) * 4);
  return CG_OK;
}

int cg_graph_dot(const cg_graph *g, uint32_t root, uint32_t limit, FILE *fp) {
  uint8_t *mark;
  uint32_t v, k;
  if (root != UINT32_MAX && root >= g->n) return CG_EUSAGE;
  if (with_marks(g, root, limit, &mark)) return CG_ENOMEM;
  fputs("digraph cgwb {\n  rankdir=BT;\n  node [shape=ellipse, fontname=\"Helvetica\", fontsize=10];\n", fp);
  for (v = 0; v < g->n; v++) {
    unsigned op = g->op[g->op_start[v]];
    if (!mark[v]) continue;
    fprintf(fp, "  n%u [label=\"%u: ", v + 1, v + 1);
    chain_label(g, v, fp);
    fputs("\"", fp);
    if (op == CG_G_INDEP) fputs(", shape=box, style=filled, fillcolor=\"#cfe8ff\"", fp);
    else if (op == CG_G_CONST) fputs(", shape=plaintext", fp);
    if (g->flags[v] & CG_NF_DEP) fputs(", peripheries=2, style=filled, fillcolor=\"#ffe0b0\"", fp);
    if (g->op_start[v + 1] - g->op_start[v] > 1) fputs(", shape=box, style=rounded", fp);
    if (g->flags[v] & CG_NF_GUARD) fputs(", color=red", fp);
    fputs("];\n", fp);
  }
  for (v = 0; v < g->n; v++)
    if (mark[v])
      for (k = g->kid_start[v]; k < g->kid_start[v + 1]; k++)
        if (mark[g->kids[k]]) fprintf(fp, "  n%u -> n%u;\n", g->kids[k] + 1, v + 1);
  fputs("}\n", fp);
  cg_free(g->A, mark, g->n ? g->n : 1);
  return ferror(fp) ? CG_EIO : CG_OK;
}

/* "  value %.17g" */
static void put_value(FILE *fp, double v) {
  char b[8 + CG_FMT_G17_SIZE] = "  value ";
  cg_fmt_g17(b + 8, v);
  fputs(b, fp);
}

int cg_graph_print(const cg_graph *g, uint32_t root, uint32_t limit, FILE *fp) {
  uint8_t *mark;
  uint32_t v, k;
  if (root != UINT32_MAX && root >= g->n) return CG_EUSAGE;
  if (with_marks(g, root, limit, &mark)) return CG_ENOMEM;
  for (v = 0; v < g->n; v++) {
    if (!mark[v]) continue;
    fprintf(fp, "node %u: ", v + 1);
    chain_label(g, v, fp);
    fputs("  children", fp);
    if (g->kid_start[v] == g->kid_start[v + 1]) fputs(" -", fp);
    for (k = g->kid_start[v]; k < g->kid_start[v + 1]; k++) fprintf(fp, " %u", g->kids[k] + 1);
    fputs("  parents", fp);
    if (g->par_start[v] == g->par_start[v + 1]) fputs(" -", fp);
    for (k = g->par_start[v]; k < g->par_start[v + 1]; k++) fprintf(fp, " %u", g->pars[k] + 1);
    if (g->has_val) put_value(fp, g->val[v]);
    if (g->flags[v] & CG_NF_DEP) fputs("  dependent", fp);
    if (g->flags[v] & CG_NF_GUARD) fputs("  guarded", fp);
    if (g->flags[v] & CG_NF_BOGUS) fputs("  uninitialized", fp);
    fputc('\n', fp);
  }
  cg_free(g->A, mark, g->n ? g->n : 1);
  return ferror(fp) ? CG_EIO : CG_OK;
}
