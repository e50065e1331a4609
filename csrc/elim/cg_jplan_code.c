/* cg_jplan_code.c: C code of a kept Jacobian plan (cg_jplan.h): the graph's
 * evaluation (Bischof & Hu 1991, sec. 3) with the local partials (the
 * operation table's spellings, cg_gops.h), then the recorded multiply-adds
 * of the elimination (Hovland, Norris, Utke & Strout, sec. 1), straight-line
 * code in functions of a bounded number of statements. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "cg_jplan.h"
#include "cg_lin_impl.h"

typedef struct jgen {
  const cg_jplan *p;
  const char *name;
  FILE *fp;
  cg_jcstats st;
  uint32_t chunk, in_fn, nfn; /* statements in the open function, functions made */
  int err;
  const uint32_t *entry;      /* plan entry of each node, or NONE */
} jgen;

static void put(jgen *G, const char *fmt, ...) {
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vfprintf(G->fp, fmt, ap);
  va_end(ap);
  if (n < 0) G->err = 1;
  else G->st.bytes += (uint64_t)n;
}

/* A double constant as C reads it back exactly (hex float; NaN, inf named). */
static void put_const(jgen *G, double c) {
  if (c != c) put(G, signbit(c) ? "(-NAN)" : "NAN");
  else if (c > 1.7976931348623157e308 || c < -1.7976931348623157e308)
    put(G, c > 0 ? "HUGE_VAL" : "(-HUGE_VAL)");
  else put(G, "(%a)", c);
}

static int word_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_';
}

/* Writes spelling s with A0..A2 as the text in a[] (NULL: past the arity),
 * R as r, C as the constant c, XI as x[c] (cg_gops.h). */
static void put_spell(jgen *G, const char *s, char a[3][32], const char *r, double c) {
  while (*s) {
    size_t n = 0;
    if (word_char(*s)) {
      while (word_char(s[n]) || s[n] == '.') n++;
      if (n == 2 && s[0] == 'A' && s[1] >= '0' && s[1] <= '2') put(G, "%s", a[s[1] - '0']);
      else if (n == 1 && s[0] == 'R') put(G, "%s", r);
      else if (n == 1 && s[0] == 'C') put_const(G, c);
      else if (n == 2 && s[0] == 'X' && s[1] == 'I') put(G, "x[%lu]", (unsigned long)c);
      else put(G, "%.*s", (int)n, s);
      s += n;
    } else {
      put(G, "%c", *s++);
    }
  }
}

/* Opens the next function of statements when the open one is full. */
static void statement(jgen *G) {
  if (G->in_fn && G->in_fn < G->chunk) {
    G->in_fn++;
    return;
  }
  if (G->in_fn) put(G, "}\n\n");
  put(G, "static void %s_jac_%lu(const double *restrict x) {\n  (void)x;\n", G->name,
      (unsigned long)G->nfn);
  G->nfn++, G->in_fn = 1;
  G->st.functions++;
}

/* Whether what put_node writes for node v calls support function nm
 * (cg_gops.h): its chain's values and checks, and the partials the plan
 * needs. */
static int node_calls(const jgen *G, uint32_t v, const char *nm) {
  const cg_graph *gr = G->p->gr;
  uint32_t o = gr->op_start[v], last = gr->op_start[v + 1] - 1, k0 = gr->kid_start[v];
  uint32_t nk = gr->kid_start[v + 1] - k0, q, i, e = G->entry[v];
  if (gr->op[o] == CG_G_INDEP) return 0;
  for (q = o; q <= last; q++)
    if (cg_gop_text_calls(cg_gop(gr->op[q])->c_value, nm) ||
        cg_gop_text_calls(cg_gop(gr->op[q])->c_check, nm))
      return 1;
  if (e == NONE) return 0;
  for (i = 0; i < nk; i++) {
    if (G->p->pslot[3 * (size_t)e + i] == NONE) continue;
    if (cg_gop_text_calls(cg_gop(gr->op[o])->c_part[i], nm)) return 1;
    for (q = o + 1; q <= last; q++)
      if (cg_gop_text_calls(cg_gop(gr->op[q])->c_part[0], nm)) return 1;
  }
  return 0;
}

/* The static definitions of the support functions the code calls, only
 * those (-Wall warns of an unused static function). */
static void put_support(jgen *G) {
  unsigned k;
  uint32_t v;
  for (k = 0; k < cg_gop_support_count(); k++) {
    const char *nm = cg_gop_support_name(k);
    for (v = 0; v < G->p->gr->n && !node_calls(G, v, nm); v++) {}
    if (v < G->p->gr->n) {
      size_t len = cg_gop_support_text(k, NULL, 0);
      char *text = CG_NEW(G->p->A, char, len + 1);
      if (!text) {
        G->err = 2;
        return;
      }
      cg_gop_support_text(k, text, len + 1);
      put(G, "%s\n", text);
      CG_FREE(G->p->A, text, char, len + 1);
    }
  }
}

/* Node v: its value (the chain's results r0, r1, ... in a block), the taped
 * outcomes its operations check, and, if the plan needs its partials, the
 * chain's partials into its edge slots (as cg_jplan.c's node_partials). */
static void put_node(jgen *G, uint32_t v) {
  const cg_graph *gr = G->p->gr;
  uint32_t o = gr->op_start[v], last = gr->op_start[v + 1] - 1, k0 = gr->kid_start[v];
  uint32_t nk = gr->kid_start[v + 1] - k0, q, i, e = G->entry[v];
  char a[3][32], r[32], prev[3][32];
  const char *N = G->name;
  statement(G);
  for (i = 0; i < 3; i++)
    if (i < nk) snprintf(a[i], sizeof a[i], "%s_v[%lu]", N, (unsigned long)gr->kids[k0 + i]);
    else snprintf(a[i], sizeof a[i], "0.0");
  put(G, "  {\n");
  for (q = o; q <= last; q++) {
    const cg_gopinfo *op = cg_gop(gr->op[q]);
    snprintf(r, sizeof r, "r%lu", (unsigned long)(q - o));
    if (q > o) snprintf(a[0], sizeof a[0], "r%lu", (unsigned long)(q - o - 1)),
               snprintf(a[1], sizeof a[1], "0.0"), snprintf(a[2], sizeof a[2], "0.0");
    put(G, "    double %s = ", r);
    put_spell(G, op->c_value, a, r, gr->opc[q]);
    put(G, ";\n");
    if (strcmp(op->c_check, "0") != 0) {
      put(G, "    if (");
      put_spell(G, op->c_check, a, r, gr->opc[q]);
      put(G, ") %s_sw++;\n", N);
    }
  }
  put(G, "    %s_v[%lu] = r%lu;\n", N, (unsigned long)v, (unsigned long)(last - o));
  if (e != NONE) {
    const uint32_t *ps = G->p->pslot + 3 * (size_t)e;
    for (i = 0; i < nk; i++) {
      if (ps[i] == NONE) continue;
      put(G, "    %s_w[%lu] %s= ", N, (unsigned long)(ps[i] & ~CG_JP_ADD), ps[i] & CG_JP_ADD ? "+" : "");
      for (q = o; q <= last; q++) { /* the head's partial i, then each later d0 */
        char rr[32];
        snprintf(rr, sizeof rr, "r%lu", (unsigned long)(q - o));
        if (q == o) {
          memcpy(prev, a, sizeof prev);
          if (nk) {
            uint32_t j;
            for (j = 0; j < 3; j++)
              if (j < nk) snprintf(prev[j], sizeof prev[j], "%s_v[%lu]", N, (unsigned long)gr->kids[k0 + j]);
          }
          put(G, "(");
          put_spell(G, cg_gop(gr->op[q])->c_part[i], prev, rr, gr->opc[q]);
        } else {
          snprintf(prev[0], sizeof prev[0], "r%lu", (unsigned long)(q - o - 1));
          put(G, ") * (");
          put_spell(G, cg_gop(gr->op[q])->c_part[0], prev, rr, gr->opc[q]);
        }
      }
      put(G, ");\n");
    }
  }
  put(G, "  }\n");
  G->st.statements++;
}

/* The pattern: nnz and the 1-based rows and columns. */
static void put_pattern(jgen *G) {
  const cg_jplan *p = G->p;
  uint64_t k;
  int f;
  put(G, "const int %s_jac_nnz = %lu;\n", G->name, (unsigned long)p->nnz);
  for (f = 0; f < 2; f++) {
    if (p->nnz == 0) { /* C has no empty arrays: one entry, never read */
      put(G, "const int %s_jac_%s[1] = {0};\n", G->name, f ? "cols" : "rows");
      continue;
    }
    put(G, "const int %s_jac_%s[%lu] = {", G->name, f ? "cols" : "rows", (unsigned long)p->nnz);
    for (k = 0; k < p->nnz; k++)
      put(G, "%s%lu", k % 16 ? ", " : (k ? ",\n  " : "\n  "),
          (unsigned long)(f ? p->col[k] : p->row[k]) + 1);
    put(G, "};\n");
  }
}

/* A static table of indices, NAME_<what>[]. */
static void put_table(jgen *G, const char *what, const uint32_t *v, uint64_t n) {
  uint64_t k;
  if (n == 0) { /* C has no empty arrays: one entry, never read */
    put(G, "static const unsigned %s_%s[1] = {0};\n", G->name, what);
    return;
  }
  put(G, "static const unsigned %s_%s[%lu] = {", G->name, what, (unsigned long)n);
  for (k = 0; k < n; k++) put(G, "%s%lu", k % 16 ? ", " : (k ? ",\n  " : "\n  "), (unsigned long)v[k]);
  put(G, "};\n");
}

/* The length a workspace array of n entries is declared with: C has no
 * arrays of length 0, so an empty one (a graph without nodes, a plan
 * without slots) gets one entry, which the code never reads. */
static unsigned long c_len(uint64_t n) { return n == 0 ? 1 : (unsigned long)n; }

/* The guards (cg_graph.h), as cg_graph_eval checks them. */
static void put_guards(jgen *G) {
  const cg_graph *gr = G->p->gr;
  static const char *const cmp[] = {"!= 0", "== 0", "> 0", "<= 0", "< 0", ">= 0"};
  uint32_t i;
  for (i = 0; i < gr->n_guard; i++) {
    const cg_guard *g = &gr->guard[i];
    put(G, "  if (");
    if (g->kind >= CG_GUARD_EQ_ZERO && g->kind <= CG_GUARD_LT_ZERO)
      put(G, "%s_v[%lu] %s", G->name, (unsigned long)g->node, cmp[g->kind - CG_GUARD_EQ_ZERO]);
    else {
      put(G, "trunc(fabs(%s_v[%lu])) != trunc(fabs(", G->name, (unsigned long)g->node);
      put_const(G, g->taped);
      put(G, "))");
    }
    put(G, ") %s_sw++; /* guard %lu */\n", G->name, (unsigned long)i);
  }
}

/* Frees the node-to-entry map and returns rc (the one exit of cg_jplan_codegen). */
static int code_done(jgen *G, uint32_t *entry, int rc, cg_error *e) {
  CG_FREE(G->p->A, entry, uint32_t, G->p->gr->n);
  if (rc == CG_OK && (G->err || ferror(G->fp)))
    return cg_seterr(e, CG_ERUNTIME, "writing the code failed");
  return rc;
}

int cg_jplan_codegen(const cg_jplan *p, const char *name, const char *source, uint32_t chunk,
                     FILE *fp, cg_jcstats *st, cg_error *e) {
  const cg_graph *gr = p->gr;
  jgen G;
  uint32_t *entry, v, k, nchunks_eval;
  uint64_t q;
  memset(&G, 0, sizeof G);
  G.p = p, G.name = name, G.fp = fp, G.chunk = chunk ? chunk : 2000;
  if (!(entry = CG_NEW(p->A, uint32_t, gr->n))) return cg_seterr(e, CG_ENOMEM, "out of memory");
  for (v = 0; v < gr->n; v++) entry[v] = NONE;
  for (k = 0; k < p->np; k++) entry[p->pnode[k]] = k;
  G.entry = entry;
  put(&G, "/* Generated by cgwb codegen --jacobian from %s: the Jacobian of a kept plan.\n",
      source ? source : "a graph");
  put(&G, " * The graph's evaluation with the local partials (Bischof & Hu 1991, sec. 3),\n");
  put(&G, " * then %lu multiply-adds of a vertex elimination (Hovland, Norris, Utke &\n",
      (unsigned long)p->nops);
  put(&G, " * Strout, sec. 1).  %lu independents, %lu dependents, %lu nonzeros.\n",
      (unsigned long)p->n, (unsigned long)p->m, (unsigned long)p->nnz);
  put(&G, " * int %s_jac_checked(x, y, J): the recorded branch conditions and guards whose\n", name);
  put(&G, " * outcome differs at x (0: J holds the nonzeros, row-major as %s_jac_rows and\n", name);
  put(&G, " * %s_jac_cols, 1-based; else J is left unchanged).  void %s_jac(x, y, J) calls\n", name, name);
  put(&G, " * it.  The workspace is static: not reentrant. */\n");
  put(&G, "#include <math.h>\n\n");
  put_support(&G);
  put(&G, "int %s_jac_checked(const double *restrict x, double *restrict y, double *restrict J);\n", name);
  put(&G, "void %s_jac(const double *restrict x, double *restrict y, double *restrict J);\n", name);
  put(&G, "extern const int %s_jac_nnz, %s_jac_rows[], %s_jac_cols[];\n\n", name, name, name);
  put(&G, "static double %s_v[%lu], %s_w[%lu];\nstatic unsigned long %s_sw;\n\n", name,
      c_len(gr->n), name, c_len(p->nslots), name);
  put_pattern(&G);
  put(&G, "\n");
  for (v = 0; v < gr->n; v++) { /* the evaluation and the partials */
    uint32_t o = gr->op_start[v];
    if (gr->op[o] == CG_G_INDEP) {
      statement(&G);
      put(&G, "  %s_v[%lu] = x[%lu];\n", name, (unsigned long)v, (unsigned long)gr->opc[o]);
      G.st.statements++;
    } else {
      put_node(&G, v);
    }
  }
  if (G.in_fn) put(&G, "}\n\n");
  nchunks_eval = G.nfn, G.in_fn = 0;
  for (q = 0; q < p->nops; q++) { /* the elimination */
    const uint32_t *op = p->ops + 3 * q;
    statement(&G);
    put(&G, "  %s_w[%lu] %s= %s_w[%lu] * %s_w[%lu];\n", name, (unsigned long)(op[0] & ~CG_JP_ADD),
        op[0] & CG_JP_ADD ? "+" : "", name, (unsigned long)op[1], name, (unsigned long)op[2]);
    G.st.statements++;
  }
  if (G.in_fn) put(&G, "}\n\n");
  put_table(&G, "dep", gr->dep, p->m);
  put_table(&G, "unit", p->uslot, p->nunit);
  put_table(&G, "out", p->oslot, p->nnz);
  put(&G, "int %s_jac_checked(const double *restrict x, double *restrict y, double *restrict J) {\n", name);
  put(&G, "  long i;\n  (void)J, (void)%s_w; /* a Jacobian without entries uses neither */\n  %s_sw = 0;\n",
      name, name);
  for (k = 0; k < nchunks_eval; k++) put(&G, "  %s_jac_%lu(x);\n", name, (unsigned long)k);
  put_guards(&G);
  put(&G, "  for (i = 0; i < %lu; i++) y[i] = %s_v[%s_dep[i]];\n", (unsigned long)p->m, name, name);
  put(&G, "  if (%s_sw) return (int)(%s_sw < 2147483647ul ? %s_sw : 2147483647ul);\n", name, name, name);
  put(&G, "  for (i = 0; i < %lu; i++) %s_w[%s_unit[i]] = 1.0;\n", (unsigned long)p->nunit, name, name);
  for (k = nchunks_eval; k < G.nfn; k++) put(&G, "  %s_jac_%lu(x);\n", name, (unsigned long)k);
  put(&G, "  for (i = 0; i < %lu; i++) J[i] = %s_w[%s_out[i]];\n", (unsigned long)p->nnz, name, name);
  put(&G, "  return 0;\n}\n\n");
  put(&G, "void %s_jac(const double *restrict x, double *restrict y, double *restrict J) {\n", name);
  put(&G, "  (void)%s_jac_checked(x, y, J);\n}\n", name);
  G.st.functions += 2;
  if (st) *st = G.st;
  return code_done(&G, entry, CG_OK, e);
}
