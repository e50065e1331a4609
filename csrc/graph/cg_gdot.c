/* cg_gdot.c: DOT output and text dumps of graphs (Bischof & Hu 1991, sec. 3.3). */
#include <string.h>

#include "../util/cg_fmt.h"
#include "cg_graph.h"

/* Marks the nodes of the subgraph rooted at root that are shown: the
 * first `limit` (at least the root) in breadth-first order over children,
 * frontier nodes (shown, not expanded) counted.  A shown node with a child
 * that is not shown is where the subgraph was cut (hidden_kids).  Every
 * node enters the queue once, so queue needs n entries. */
static void mark_sub(const cg_graph *g, uint32_t root, uint32_t limit, uint8_t *mark,
                     uint32_t *queue) {
  uint32_t head = 0, tail = 0, shown = 1, k;
  queue[tail++] = root;
  mark[root] = 1;
  while (head < tail && shown < limit) {
    uint32_t v = queue[head++];
    for (k = g->kid_start[v]; k < g->kid_start[v + 1] && shown < limit; k++)
      if (!mark[g->kids[k]]) {
        mark[g->kids[k]] = 1;
        queue[tail++] = g->kids[k];
        shown++;
      }
  }
}

/* How many distinct children of shown node v are not shown (0 for the
 * whole graph): where a subgraph was cut.  Marks them 2 meanwhile, so a
 * child listed twice counts once, then puts them back to 0. */
static uint32_t hidden_kids(const cg_graph *g, uint32_t v, uint8_t *mark) {
  uint32_t k, n = 0;
  for (k = g->kid_start[v]; k < g->kid_start[v + 1]; k++)
    if (!mark[g->kids[k]]) mark[g->kids[k]] = 2, n++;
  for (k = g->kid_start[v]; k < g->kid_start[v + 1]; k++)
    if (mark[g->kids[k]] == 2) mark[g->kids[k]] = 0;
  return n;
}

/* The label text of node v: its chain, e.g. "add exp" or "x3". */
static void chain_label(const cg_graph *g, uint32_t v, FILE *fp) {
  uint32_t o;
  for (o = g->op_start[v]; o < g->op_start[v + 1]; o++) {
    unsigned op = g->op[o];
    if (o > g->op_start[v]) fputs(" > ", fp);
    if (op == CG_G_INDEP) fprintf(fp, "x%.0f", g->opc[o] + 1);
    else if (op == CG_G_CONST) fprintf(fp, "%.6g", g->opc[o]);
    else if (cg_gop(op)->has_const && !(cg_gop(op)->flags & CG_GF_OUTCOME)) /* not a taped outcome */
      fprintf(fp, "%s %.6g", cg_gop(op)->name, g->opc[o]);
    else fputs(cg_gop(op)->name, fp);
  }
}

int cg_origin_print(const cg_graph *g, const cg_origin *o, FILE *fp) {
  if (o->kind == CG_ORIGIN_RECORD) return fprintf(fp, "record %llu", (unsigned long long)o->record);
  if (o->kind != CG_ORIGIN_SOURCE) return 0;
  return fprintf(fp, "%s:%lu:%lu", o->file < g->n_file ? g->file[o->file] : "?",
                 (unsigned long)o->line, (unsigned long)o->col);
}

/* Runs f with the marks of the nodes to show (all, or the subgraph). */
static int with_marks(const cg_graph *g, uint32_t root, uint32_t limit, uint8_t **mark) {
  uint32_t *queue;
  size_t n = g->n;
  *mark = CG_NEW(g->A, uint8_t, n);
  if (!*mark) return CG_ENOMEM;
  if (root == UINT32_MAX) {
    memset(*mark, 1, n);
    return CG_OK;
  }
  memset(*mark, 0, n);
  queue = CG_NEW(g->A, uint32_t, n);
  if (!queue) {
    CG_FREE(g->A, *mark, uint8_t, n);
    return CG_ENOMEM;
  }
  mark_sub(g, root, limit, *mark, queue);
  CG_FREE(g->A, queue, uint32_t, n);
  return CG_OK;
}

/* The attributes of node v after its label, each once: a node may be an
 * independent, a dependent, a supernode, guarded and cut at once, and DOT
 * keeps only the last of repeated attributes (a dependent supernode lost its
 * fill).  The order is that of the single kinds, so their lines are as
 * before: shape, peripheries, style (values joined), fillcolor, color. */
static void node_attrs(const cg_graph *g, uint32_t v, int cut, FILE *fp) {
  unsigned op = g->op[g->op_start[v]];
  int indep = op == CG_G_INDEP, dep = (g->flags[v] & CG_NF_DEP) != 0;
  int super = g->op_start[v + 1] - g->op_start[v] > 1;
  const char *style[3];
  int ns = 0, i;
  if (indep || super) fputs(", shape=box", fp);
  else if (op == CG_G_CONST) fputs(", shape=plaintext", fp);
  if (dep) fputs(", peripheries=2", fp);
  if (indep || dep) style[ns++] = "filled";
  if (super) style[ns++] = "rounded";
  if (cut) style[ns++] = "dashed";
  if (ns == 1) fprintf(fp, ", style=%s", style[0]);
  if (ns > 1) {
    fputs(", style=\"", fp);
    for (i = 0; i < ns; i++) fprintf(fp, "%s%s", i ? "," : "", style[i]);
    fputc('"', fp);
  }
  if (indep || dep) fprintf(fp, ", fillcolor=\"%s\"", dep ? "#ffe0b0" : "#cfe8ff");
  if (g->flags[v] & CG_NF_GUARD) fputs(", color=red", fp);
}

int cg_graph_dot(const cg_graph *g, uint32_t root, uint32_t limit, FILE *fp) {
  uint8_t *mark;
  uint32_t v, k;
  if (root != UINT32_MAX && root >= g->n) return CG_EUSAGE;
  if (with_marks(g, root, limit, &mark)) return CG_ENOMEM;
  fputs("digraph cgwb {\n  rankdir=BT;\n  node [shape=ellipse, fontname=\"Helvetica\", fontsize=10];\n", fp);
  for (v = 0; v < g->n; v++) {
    uint32_t hidden;
    if (!mark[v]) continue;
    hidden = hidden_kids(g, v, mark);
    fprintf(fp, "  n%u [label=\"%u: ", v + 1, v + 1);
    chain_label(g, v, fp);
    if (g->origin && g->origin[v].kind != CG_ORIGIN_NONE) { /* only built with origins */
      fputs("\\n", fp);
      cg_origin_print(g, &g->origin[v], fp);
    }
    fputs("\"", fp);
    node_attrs(g, v, hidden > 0, fp);
    fputs("];\n", fp);
    if (hidden) /* the cut: a dashed edge from a note of what is not shown */
      fprintf(fp, "  cut%u [label=\"... (cut) %u %s not shown\", shape=plaintext];\n"
              "  cut%u -> n%u [style=dashed];\n", v + 1, hidden,
              hidden == 1 ? "child" : "children", v + 1, v + 1);
  }
  for (v = 0; v < g->n; v++)
    if (mark[v])
      for (k = g->kid_start[v]; k < g->kid_start[v + 1]; k++)
        if (mark[g->kids[k]]) fprintf(fp, "  n%u -> n%u;\n", g->kids[k] + 1, v + 1);
  fputs("}\n", fp);
  CG_FREE(g->A, mark, uint8_t, g->n);
  return ferror(fp) ? CG_EIO : CG_OK;
}

/* "  value %.17g" */
static void put_value(FILE *fp, double v) {
  char b[8 + CG_FMT_G17_SIZE] = "  value ";
  cg_fmt_g17(b + 8, v);
  fputs(b, fp);
}

/* The guards of the shown nodes, when the graph has origins (a tape's graph
 * prints as before: its guards are its branch records). */
static void print_guards(const cg_graph *g, const uint8_t *mark, FILE *fp) {
  uint32_t k;
  if (!g->guard_origin) return;
  for (k = 0; k < g->n_guard; k++) {
    const cg_guard *gd = &g->guard[k];
    if (!mark[gd->node]) continue;
    fprintf(fp, "guard %u: node %u %s", k + 1, gd->node + 1, cg_guard_kind_name(gd->kind));
    if (gd->kind == CG_GUARD_VALUE) fprintf(fp, " %.17g", gd->taped);
    if (g->guard_origin[k].kind != CG_ORIGIN_NONE) {
      fputs(" at ", fp);
      cg_origin_print(g, &g->guard_origin[k], fp);
    }
    fputc('\n', fp);
  }
}

int cg_graph_print(const cg_graph *g, uint32_t root, uint32_t limit, FILE *fp) {
  uint8_t *mark;
  uint32_t v, k, hidden;
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
    if (g->origin && g->origin[v].kind != CG_ORIGIN_NONE) {
      fputs("  at ", fp);
      cg_origin_print(g, &g->origin[v], fp);
    }
    fputc('\n', fp);
    if ((hidden = hidden_kids(g, v, mark)) > 0)
      fprintf(fp, "  ... (cut) %u %s not shown\n", hidden, hidden == 1 ? "child" : "children");
  }
  print_guards(g, mark, fp);
  CG_FREE(g->A, mark, uint8_t, g->n);
  return ferror(fp) ? CG_EIO : CG_OK;
}
