/* cg_codegen.c: C code that evaluates a graph (Bischof & Hu 1991, sec. 3.2, the
 * buildcode routine and Figure 10; section 4.3, the parallel schedule in
 * batches of 1000 with a barrier between levels).
 *
 * Each node becomes one statement whose right-hand side is its whole
 * operation chain as a single expression, written from the operation
 * table's spellings (cg_gops.h), the text of the expressions cg_gop_apply
 * compiles, so compiled without FMA contraction the code gives the graph's
 * values bit for bit. */
#include <stdarg.h>
#include <string.h>

#include "cg_sched.h"

#define NONE UINT32_MAX

/* The length a generated array of n entries is declared with: C has no
 * arrays of length 0, so an empty one (no slots, no independents or
 * dependents, no batches) gets one entry, which the code never reads. */
static unsigned long c_len(uint64_t n) { return n == 0 ? 1 : (unsigned long)n; }

/* Generation state.  chunk[v] (chunked form) is the function that computes
 * v, NONE if v is not emitted; slot[v] the slot of v's value, NONE if it is
 * read in place (a leaf), from its chunk's local or from y. */
typedef struct gen {
  const cg_graph *g;
  const cg_cgopts *o;
  FILE *fp;
  const uint32_t *slot;
  uint32_t nslots;
  uint32_t *chunk, *first_dep, *dep_next;
  uint32_t cur;
  int form;
  cg_cgstats st;
} gen;

/* printf to the output, counting bytes and lines (newlines only in fmt). */
static void put(gen *G, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(gen *G, const char *fmt, ...) {
  va_list ap;
  int r;
  const char *p;
  va_start(ap, fmt);
  r = vfprintf(G->fp, fmt, ap);
  va_end(ap);
  if (r > 0) G->st.bytes += (uint64_t)r;
  for (p = fmt; *p; p++) G->st.lines += *p == '\n';
}

/* n characters of s, no newline among them (a spelling's text): as put,
 * without a format to read. */
static void put_lit(gen *G, const char *s, size_t n) {
  G->st.bytes += fwrite(s, 1, n, G->fp);
}

/* A double as a C literal that reads back to the same bits. */
static void put_const(gen *G, double c) {
  char b[40];
  if (c != c) {
    put(G, signbit(c) ? "(-NAN)" : "NAN"); /* the sign of a NaN constant is kept */
    return;
  }
  if (c > 1.7976931348623157e308 || c < -1.7976931348623157e308) {
    put(G, c > 0 ? "HUGE_VAL" : "(-HUGE_VAL)");
    return;
  }
  snprintf(b, sizeof b, "%.17g", c);
  if (!strpbrk(b, ".e")) strcat(b, ".0"); /* a double, and -0 keeps its sign */
  put(G, c < 0 || (c == 0 && b[0] == '-') ? "(%s)" : "%s", b);
}

/* {==== operands and expressions ====} */

static uint32_t slot_of(const gen *G, uint32_t c) { return G->slot[c]; }

/* How a parent reads node c. */
static void put_operand(gen *G, uint32_t c) {
  const cg_graph *g = G->g;
  uint32_t o = g->op_start[c];
  if (G->form == CG_FORM_CHUNKED && G->chunk[c] != NONE && G->chunk[c] == G->cur) put(G, "v%lu", (unsigned long)c);
  else if (slot_of(G, c) != NONE) put(G, "%s_t[%lu]", G->o->name, (unsigned long)slot_of(G, c));
  else if (G->form == CG_FORM_CHUNKED && G->chunk[c] != NONE && G->first_dep[c] != NONE)
    put(G, "y[%lu]", (unsigned long)G->first_dep[c]); /* a statement's dependent; a leaf is read in place */
  else if (g->op[o] == CG_G_INDEP) put(G, "x[%lu]", (unsigned long)g->opc[o]);
  else put_const(G, g->opc[o]); /* a constant leaf */
}

/* {==== spellings (cg_gops.h) ====} */

/* The length of the token at s: an identifier or a number (letters, digits,
 * '_' and '.' after a first letter, digit or '_'), 0 for anything else. */
static int word_char(char ch) { /* ASCII, whatever the locale */
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_';
}
static size_t token_len(const char *s) {
  size_t n = 0;
  if (!word_char(*s)) return 0;
  while (word_char(s[n]) || s[n] == '.') n++;
  return n;
}

/* Which placeholder the token t of n characters is: '0' + i for Ai (an
 * operand), 'C' (the constant), 'X' (XI, an independent), 0 for none. */
static int placeholder(const char *t, size_t n) {
  if (n == 2 && t[0] == 'A' && t[1] >= '0' && t[1] <= '2') return t[1];
  if (n == 1 && t[0] == 'C') return 'C';
  if (n == 2 && t[0] == 'X' && t[1] == 'I') return 'X';
  return 0;
}

/* Writes the spelling s up to end, its placeholders replaced: Ai by how v
 * reads its child k[i] (only the head of a chain has children), C by the
 * constant c, XI by x[c].  Text between placeholders goes out in one piece. */
static void put_spell(gen *G, const char *s, const char *end, const uint32_t *k, double c) {
  const char *lit = s;
  while (s < end) {
    size_t n = token_len(s);
    int ph = n ? placeholder(s, n) : 0;
    if (!ph) {
      s += n ? n : 1;
      continue;
    }
    if (s > lit) put_lit(G, lit, (size_t)(s - lit));
    if (ph == 'C') put_const(G, c);
    else if (ph == 'X') put(G, "x[%lu]", (unsigned long)c);
    else put_operand(G, k[ph - '0']);
    s += n, lit = s;
  }
  if (end > lit) put_lit(G, lit, (size_t)(end - lit));
}

/* Where operation op's value spelling reads its operand A0: a unary
 * operation further down a chain nests the expression before it there
 * (cg_gops.h: A0 exactly once). */
static const char *operand_at(unsigned op) {
  const char *s = cg_gop(op)->c_value;
  while (*s) {
    size_t n = token_len(s);
    if (n && placeholder(s, n) == '0') return s;
    s += n ? n : 1;
  }
  return s;
}

/* The text before the operand of a unary operation. */
static void put_pre(gen *G, unsigned op, double c) {
  const char *s = cg_gop(op)->c_value;
  put_spell(G, s, operand_at(op), NULL, c);
}

/* The text after the operand of a unary operation. */
static void put_post(gen *G, unsigned op, double c) {
  const char *s = operand_at(op);
  if (*s) s += 2; /* past A0 */
  put_spell(G, s, s + strlen(s), NULL, c);
}

/* The first operation of a chain on the node's children. */
static void put_head(gen *G, uint32_t v) {
  const cg_graph *g = G->g;
  uint32_t o = g->op_start[v];
  const char *s = cg_gop(g->op[o])->c_value;
  put_spell(G, s, s + strlen(s), g->kids + g->kid_start[v], g->opc[o]);
}

/* The whole chain of v as one expression: op_n(...op_2(op_1(children))). */
static void put_expr(gen *G, uint32_t v) {
  const cg_graph *g = G->g;
  uint32_t a = g->op_start[v], b = g->op_start[v + 1], o;
  for (o = b; o-- > a + 1;) put_pre(G, g->op[o], g->opc[o]);
  put_head(G, v);
  for (o = a + 1; o < b; o++) put_post(G, g->op[o], g->opc[o]);
}

/* {==== file frame ====} */

static void put_prologue(gen *G, const char *form) {
  const cg_graph *g = G->g;
  const cg_cgopts *o = G->o;
  put(G, "/* Generated by cgwb codegen (Bischof & Hu 1991, sec. 3.2) from %s.\n",
      o->source ? o->source : "a graph");
  put(G, " * %lu nodes, %lu independents, %lu dependents; form %s, levels %s, %lu slots.\n",
      (unsigned long)g->n, (unsigned long)g->n_indep, (unsigned long)g->n_dep, form,
      o->scheme ? o->scheme : "-", (unsigned long)G->nslots);
  put(G, " * void %s(const double *x, double *y): x and y in tape order.\n", o->name);
  put(G, " * Bit-identical to the graph when compiled without FMA contraction\n");
  put(G, " * (-ffp-contract=off, the default of -std=c99) and, where a math call\n");
  put(G, " * reads constants only, without evaluating it at compile time\n");
  put(G, " * (-fno-builtin): the compiler rounds it its own way. */\n");
  put(G, "#include <math.h>\n\n");
  put(G, "void %s(const double *restrict x, double *restrict y);\n\n", o->name);
  put(G, "static double %s_t[%lu];\n\n", o->name, c_len(G->nslots));
}

/* main under -DCGWB_MAIN: x from stdin, one value per line; y to stdout. */
static void put_main(gen *G) {
  const cg_graph *g = G->g;
  const char *nm = G->o->name;
  put(G, "\n#ifdef CGWB_MAIN\n#include <stdio.h>\n\n");
  put(G, "int main(void) {\n  static double x[%lu], y[%lu];\n  int i;\n",
      c_len(g->n_indep), c_len(g->n_dep));
  put(G, "  for (i = 0; i < %lu; i++)\n    if (scanf(\"%%lf\", &x[i]) != 1) {\n",
      (unsigned long)g->n_indep);
  put(G, "      fprintf(stderr, \"%s: expected %lu values on stdin\\n\");\n      return 2;\n    }\n",
      nm, (unsigned long)g->n_indep);
  put(G, "  %s(x, y);\n  for (i = 0; i < %lu; i++) printf(\"%%.17g\\n\", y[i]);\n",
      nm, (unsigned long)g->n_dep);
  put(G, "  return 0;\n}\n#endif\n");
}

/* Copies the dependents out of their slots (or computes an inlined leaf). */
static void put_copy_out(gen *G) {
  uint32_t i;
  for (i = 0; i < G->g->n_dep; i++) {
    put(G, "  y[%lu] = ", (unsigned long)i);
    put_operand(G, G->g->dep[i]);
    put(G, ";\n");
  }
}

/* One statement: the slot of v gets its value. */
static void put_assign(gen *G, uint32_t v) {
  put(G, "  %s_t[%lu] = ", G->o->name, (unsigned long)G->slot[v]);
  put_expr(G, v);
  put(G, ";\n");
  if ((G->st.statements++ & CG_PROGRESS_MASK) == 0)
    cg_progress_at(G->g->A, "generating code", G->st.statements - 1, G->g->n);
}

/* {==== levels form ====} */

/* Batch b of level l: the nodes order[a..z) that have slots. */
static void put_batch(gen *G, const cg_sched *s, uint32_t l, uint32_t b, int split, uint32_t a,
                      uint32_t z) {
  uint32_t i;
  if (split) put(G, "static void %s_level_%lu_%lu(const double *restrict x) {\n", G->o->name,
                 (unsigned long)l, (unsigned long)b);
  else put(G, "static void %s_level_%lu(const double *restrict x) {\n", G->o->name, (unsigned long)l);
  put(G, "  (void)x;\n");
  for (i = a; i < z; i++)
    if (s->slot[s->order[i]] != NONE) put_assign(G, s->order[i]);
  put(G, "}\n\n");
  G->st.functions++;
}

/* Nodes of level l that are statements (not leaves read in place). */
static uint32_t level_statements(const cg_sched *s, uint32_t l) {
  uint32_t i, c = 0;
  for (i = s->lev_start[l]; i < s->lev_start[l + 1]; i++) c += s->slot[s->order[i]] != NONE;
  return c;
}

/* Emits the batch functions of every level; bstart[l] is the first batch of
 * level l (nlev + 1 entries). */
static void put_levels(gen *G, const cg_sched *s, uint32_t chunk, uint32_t *bstart) {
  uint32_t l, nb = 0;
  for (l = 0; l < s->nlev; l++) {
    uint32_t i = s->lev_start[l], end = s->lev_start[l + 1], c = level_statements(s, l), b = 0;
    bstart[l] = nb;
    while (c && i < end) { /* batches of `chunk` statements */
      uint32_t z = i, got = 0;
      while (z < end && got < chunk) got += s->slot[s->order[z++]] != NONE;
      while (z < end && s->slot[s->order[z]] == NONE) z++;
      put_batch(G, s, l, b++, c > chunk, i, z);
      i = z;
    }
    nb += b;
  }
  bstart[s->nlev] = nb;
}

/* Name of batch number `which` (global index), given the level table. */
static void put_batch_name(gen *G, const cg_sched *s, const uint32_t *bstart, uint32_t l,
                           uint32_t b) {
  if (bstart[l + 1] - bstart[l] > 1)
    put(G, "%s_level_%lu_%lu", G->o->name, (unsigned long)l, (unsigned long)b);
  else put(G, "%s_level_%lu", G->o->name, (unsigned long)l);
  (void)s;
}

/* The serial driver: every batch in level order (Figure 10c's main). */
static void put_levels_serial(gen *G, const cg_sched *s, const uint32_t *bstart) {
  uint32_t l, b;
  put(G, "void %s(const double *restrict x, double *restrict y) {\n  (void)%s_t;\n", G->o->name,
      G->o->name);
  for (l = 0; l < s->nlev; l++)
    for (b = 0; b < bstart[l + 1] - bstart[l]; b++) {
      put(G, "  ");
      put_batch_name(G, s, bstart, l, b);
      put(G, "(x);\n");
    }
  put_copy_out(G);
  put(G, "}\n");
}

/* The parallel driver (section 4.3): each level's batches shared among the
 * threads, the implicit barrier of `omp for` between levels. */
static void put_levels_parallel(gen *G, const cg_sched *s, const uint32_t *bstart) {
  uint32_t l, b;
  const char *nm = G->o->name;
  put(G, "static void (*const %s_batch[%lu])(const double *restrict) = {\n", nm,
      c_len(bstart[s->nlev]));
  for (l = 0; l < s->nlev; l++)
    for (b = 0; b < bstart[l + 1] - bstart[l]; b++) {
      put(G, "  ");
      put_batch_name(G, s, bstart, l, b);
      put(G, ",\n");
    }
  if (!bstart[s->nlev]) put(G, "  0\n");
  put(G, "};\n\nstatic const long %s_level_batches[%lu] = {", nm, (unsigned long)s->nlev + 1);
  for (l = 0; l <= s->nlev; l++) put(G, l % 16 ? " %lu," : "\n  %lu,", (unsigned long)bstart[l]);
  put(G, "\n};\n\nvoid %s(const double *restrict x, double *restrict y) {\n  (void)%s_t;\n", nm, nm);
  put(G, "#ifdef _OPENMP\n#pragma omp parallel\n#endif\n  {\n    long l, b;\n");
  put(G, "    for (l = 0; l < %lu; l++) {\n#ifdef _OPENMP\n#pragma omp for schedule(static)\n#endif\n",
      (unsigned long)s->nlev);
  put(G, "      for (b = %s_level_batches[l]; b < %s_level_batches[l + 1]; b++) %s_batch[b](x);\n",
      nm, nm, nm);
  put(G, "    }\n  }\n");
  put_copy_out(G);
  put(G, "}\n");
}

static int gen_levels(gen *G, const cg_sched *s) {
  uint32_t chunk = G->o->chunk ? G->o->chunk : 1000;
  uint32_t *bstart = CG_NEW(s->A, uint32_t, (size_t)s->nlev + 1);
  if (!bstart) return CG_ENOMEM;
  G->slot = s->slot;
  G->nslots = s->nslots;
  put_prologue(G, G->o->parallel ? "levels, parallel" : "levels");
  put_levels(G, s, chunk, bstart);
  if (G->o->parallel) put_levels_parallel(G, s, bstart);
  else put_levels_serial(G, s, bstart);
  put_main(G);
  CG_FREE(s->A, bstart, uint32_t, (size_t)s->nlev + 1);
  return CG_OK;
}

/* {==== straight and chunked forms (tape order) ====} */

/* Marks the nodes the dependents need (parents before children). */
static void mark_needed(const cg_graph *g, uint8_t *need) {
  uint32_t v, k;
  memset(need, 0, g->n);
  for (v = 0; v < g->n_dep; v++) need[g->dep[v]] = 1;
  for (v = g->n; v-- > 0;)
    if (need[v])
      for (k = g->kid_start[v]; k < g->kid_start[v + 1]; k++) need[g->kids[k]] = 1;
}

/* Chunk of every emitted node: needed, not a leaf read in place; chunks of
 * at most `chunk` statements in id order.  Returns the number of chunks. */
static uint32_t assign_chunks(const cg_graph *g, const uint8_t *need, uint32_t chunk,
                              uint32_t *ch) {
  uint32_t v, c = 0, in = 0;
  for (v = 0; v < g->n; v++) {
    ch[v] = NONE;
    if (!need[v] || cg_sched_inline_leaf(g, v)) continue;
    if (in == chunk) c++, in = 0;
    ch[v] = c;
    in++;
  }
  return in ? c + 1 : c;
}

/* Which emitted values need a slot: read by a parent in another chunk and
 * not a dependent (those are read back from y). */
static void chunk_needs(const cg_graph *g, const uint32_t *ch, const uint32_t *first_dep,
                        uint8_t *need) {
  uint32_t v, k;
  for (v = 0; v < g->n; v++) {
    int other = 0;
    for (k = g->par_start[v]; k < g->par_start[v + 1] && !other; k++)
      other = ch[g->pars[k]] != NONE && ch[g->pars[k]] != ch[v];
    need[v] = ch[v] != NONE && first_dep[v] == NONE && other;
  }
}

/* The statements of chunk c: nodes [a, z) of the id order. */
static void put_chunk(gen *G, uint32_t c, uint32_t a, uint32_t z) {
  uint32_t v, j;
  G->cur = c;
  put(G, "static void %s_c%lu(const double *restrict x, double *restrict y) {\n", G->o->name,
      (unsigned long)c);
  put(G, "  (void)x;\n  (void)y;\n");
  for (v = a; v < z; v++) {
    if (G->chunk[v] != c) continue;
    put(G, "  const double v%lu = ", (unsigned long)v);
    put_expr(G, v);
    put(G, ";\n");
    if ((G->st.statements++ & CG_PROGRESS_MASK) == 0)
      cg_progress_at(G->g->A, "generating code", G->st.statements - 1, G->g->n);
    if (G->slot[v] != NONE)
      put(G, "  %s_t[%lu] = v%lu;\n", G->o->name, (unsigned long)G->slot[v], (unsigned long)v);
    for (j = G->first_dep[v]; j != NONE; j = G->dep_next[j]) /* a node may be several */
      put(G, "  y[%lu] = v%lu;\n", (unsigned long)j, (unsigned long)v);
  }
  put(G, "}\n\n");
  G->st.functions++;
}

/* The chunk functions and the driver that calls them in order. */
static void put_chunked(gen *G, uint32_t nch) {
  const cg_graph *g = G->g;
  uint32_t v = 0, c, i;
  for (c = 0; c < nch; c++) {
    uint32_t a = v;
    while (v < g->n && (G->chunk[v] == NONE || G->chunk[v] <= c)) v++;
    put_chunk(G, c, a, v);
  }
  G->cur = NONE;
  put(G, "void %s(const double *restrict x, double *restrict y) {\n  (void)%s_t;\n", G->o->name,
      G->o->name);
  for (c = 0; c < nch; c++) put(G, "  %s_c%lu(x, y);\n", G->o->name, (unsigned long)c);
  for (i = 0; i < g->n_dep; i++) /* dependents computed by no chunk: leaves */
    if (G->chunk[g->dep[i]] == NONE) {
      put(G, "  y[%lu] = ", (unsigned long)i);
      put_operand(G, g->dep[i]);
      put(G, ";\n");
    }
  put(G, "}\n");
}

/* The straight-line function: every needed node in id order, through slots. */
static void put_straight(gen *G) {
  const cg_graph *g = G->g;
  uint32_t v;
  put(G, "void %s(const double *restrict x, double *restrict y) {\n  (void)x;\n  (void)%s_t;\n",
      G->o->name, G->o->name);
  for (v = 0; v < g->n; v++)
    if (G->slot[v] != NONE) put_assign(G, v);
  put_copy_out(G);
  put(G, "}\n");
  G->st.functions++;
}

/* Work arrays of the tape-order forms. */
typedef struct seq_ws {
  uint8_t *need;
  uint32_t *slot, *chunk, *first_dep, *dep_next;
} seq_ws;

static void seq_free(cg_alloc *A, seq_ws *w, const cg_graph *g) {
  uint32_t n = g->n;
  CG_FREE(A, w->dep_next, uint32_t, g->n_dep);
  CG_FREE(A, w->need, uint8_t, n);
  CG_FREE(A, w->slot, uint32_t, n);
  CG_FREE(A, w->chunk, uint32_t, n);
  CG_FREE(A, w->first_dep, uint32_t, n);
}

static int seq_alloc(cg_alloc *A, seq_ws *w, const cg_graph *g) {
  uint32_t n = g->n;
  memset(w, 0, sizeof *w);
  w->dep_next = CG_NEW(A, uint32_t, g->n_dep);
  w->need = CG_NEW(A, uint8_t, n);
  w->slot = CG_NEW(A, uint32_t, n);
  w->chunk = CG_NEW(A, uint32_t, n);
  w->first_dep = CG_NEW(A, uint32_t, n);
  if (w->need && w->slot && w->chunk && w->first_dep && w->dep_next) return CG_OK;
  seq_free(A, w, g);
  return CG_ENOMEM;
}

static int gen_sequential(gen *G) {
  const cg_graph *g = G->g;
  cg_alloc *A = g->A;
  seq_ws w;
  uint32_t v, nch = 0;
  int rc;
  if (seq_alloc(A, &w, g)) return CG_ENOMEM;
  for (v = 0; v < g->n; v++) w.first_dep[v] = NONE;
  for (v = g->n_dep; v-- > 0;) { /* lists of dependents per node, increasing */
    w.dep_next[v] = w.first_dep[g->dep[v]];
    w.first_dep[g->dep[v]] = v;
  }
  mark_needed(g, w.need);
  if (G->form == CG_FORM_CHUNKED) {
    nch = assign_chunks(g, w.need, G->o->chunk ? G->o->chunk : 2000, w.chunk);
    chunk_needs(g, w.chunk, w.first_dep, w.need);
  } else
    for (v = 0; v < g->n; v++) w.need[v] = w.need[v] && !cg_sched_inline_leaf(g, v);
  rc = cg_slots_linear(A, g, w.need, w.slot, &G->nslots);
  if (rc == CG_OK) {
    G->slot = w.slot;
    G->chunk = w.chunk;
    G->first_dep = w.first_dep;
    G->dep_next = w.dep_next;
    put_prologue(G, G->form == CG_FORM_CHUNKED ? "chunked" : "straight");
    if (G->form == CG_FORM_CHUNKED) put_chunked(G, nch);
    else put_straight(G);
    put_main(G);
  }
  seq_free(A, &w, g);
  return rc;
}

/* True if name is a C identifier of sensible length. */
static int c_identifier(const char *name) {
  size_t i;
  if (!name || !name[0] || strlen(name) > 60 || (name[0] >= '0' && name[0] <= '9')) return 0;
  for (i = 0; name[i]; i++)
    if (!(name[i] == '_' || (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
          (name[i] >= '0' && name[i] <= '9')))
      return 0;
  return 1;
}

int cg_codegen(const cg_graph *g, const cg_sched *s, const cg_cgopts *o, FILE *fp,
               cg_cgstats *st, cg_error *e) {
  gen G;
  int rc;
  if (!g || !o || !fp || !o->name) return cg_seterr(e, CG_EUSAGE, "cg_codegen: missing argument");
  if (!c_identifier(o->name))
    return cg_seterr(e, CG_EUSAGE, "codegen: function name '%s' is not a C identifier", o->name);
  if (o->form == CG_FORM_LEVELS && (!s || s->n != g->n || s->sequential))
    return cg_seterr(e, CG_EUSAGE, "cg_codegen: the levels form needs a level schedule");
  if (o->parallel && o->form != CG_FORM_LEVELS)
    return cg_seterr(e, CG_EUSAGE, "codegen: --parallel needs the levels form");
  memset(&G, 0, sizeof G);
  G.g = g;
  G.o = o;
  G.fp = fp;
  G.form = o->form;
  rc = o->form == CG_FORM_LEVELS ? gen_levels(&G, s) : gen_sequential(&G);
  cg_progress_end(g->A, "generating code", G.st.statements);
  if (rc) return cg_seterr(e, rc, "out of memory");
  if (ferror(fp)) return cg_seterr(e, CG_EIO, "codegen: write error");
  G.st.slots = G.nslots;
  if (st) *st = G.st;
  return CG_OK;
}
