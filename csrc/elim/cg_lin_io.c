/*
 * cg_lin_io.c: cgwb's plain graph format (.cg), read and written.
 *
 *   # comment
 *   X: 0 1          the independents, in order
 *   Y: 5            the dependents, in order
 *   3: 0 1:2.5      vertex 3's predecessors, each with an optional weight
 *   5: 3
 *
 * Ids are non-negative integers; every edge goes from a smaller id to a
 * larger one (topological order).  Vertices are renumbered densely in
 * increasing id order.  A graph with any weight missing is structural
 * (has_w = 0: missing weights read as 1).
 *
 * A vertex is defined by its own line ("7:" alone for one without
 * predecessors) or, for an independent, by being some vertex's predecessor.
 * A name of anything else (in X:, Y: or as a predecessor) is a mistake the
 * reader refuses (a typo in Y: used to leave the edges into the intended
 * vertex to be eliminated unseen), as it refuses a vertex with two lines,
 * an id listed twice in X: or Y:, and a vertex both independent and
 * dependent.  Every message names the file and line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cg_fmt.h"
#include "cg_lin.h"

#define NONE UINT32_MAX

typedef struct triple {
  uint32_t v, p;
  double w;
  unsigned line;
} triple;

/* A vertex's own line ("v: ..."), in file order. */
typedef struct vline {
  uint32_t v;
  unsigned line;
} vline;

typedef struct cgparse {
  cg_alloc *A;
  const char *name;
  cg_error *e;
  triple *t;
  size_t nt, capt;
  uint32_t *ids, *x, *y;
  size_t nids, capids, nx, capx, ny, capy;
  vline *defs;
  size_t ndefs, capdefs;
  int xseen, yseen, missing_w;
  unsigned line, xline, yline; /* the line being read; those of X: and Y: */
} cgparse;

static int perr(cgparse *P, const char *fmt, const char *arg) {
  char what[200];
  snprintf(what, sizeof what, fmt, arg);
  return cg_seterr(P->e, CG_EFORMAT, "%s:%u: %s", P->name, P->line, what);
}

static int push_id(cgparse *P, uint32_t **arr, size_t *n, size_t *cap, uint32_t v) {
  if (cg_reserve(P->A, (void **)arr, cap, *n + 1, 4))
    return cg_seterr(P->e, CG_ENOMEM, "out of memory");
  (*arr)[(*n)++] = v;
  return CG_OK;
}

/* Parses an id at *s (advancing it). */
static int parse_id(cgparse *P, const char **s, uint32_t *out) {
  char *end;
  unsigned long long v;
  if (**s < '0' || **s > '9') return perr(P, "expected a vertex id at '%.20s'", *s);
  errno = 0;
  v = strtoull(*s, &end, 10);
  if (errno || v >= NONE) return perr(P, "vertex id out of range at '%.20s'", *s);
  *s = end;
  *out = (uint32_t)v;
  return push_id(P, &P->ids, &P->nids, &P->capids, (uint32_t)v);
}

static void skip_blank(const char **s) {
  while (**s == ' ' || **s == '\t' || **s == '\r') (*s)++;
}

/* One "v: p p:w ..." line, or "X: ..." / "Y: ...". */
static int parse_line(cgparse *P, const char *s) {
  uint32_t v, p;
  int which = 0; /* 0 vertex, 1 X, 2 Y */
  skip_blank(&s);
  if (!*s || *s == '#') return CG_OK;
  if ((s[0] == 'X' || s[0] == 'Y') && (s[1] == ':' || s[1] == ' ')) {
    which = s[0] == 'X' ? 1 : 2;
    if ((which == 1 && P->xseen++) || (which == 2 && P->yseen++))
      return perr(P, "%s given twice", which == 1 ? "X:" : "Y:");
    *(which == 1 ? &P->xline : &P->yline) = P->line;
    s++;
  } else if (parse_id(P, &s, &v)) {
    return P->e->code;
  } else {
    if (cg_reserve(P->A, (void **)&P->defs, &P->capdefs, P->ndefs + 1, sizeof *P->defs))
      return cg_seterr(P->e, CG_ENOMEM, "out of memory");
    P->defs[P->ndefs].v = v, P->defs[P->ndefs++].line = P->line;
  }
  skip_blank(&s);
  if (*s != ':') return perr(P, "expected ':' at '%.20s'", s);
  s++;
  for (;;) {
    skip_blank(&s);
    if (!*s || *s == '#') return CG_OK;
    if (parse_id(P, &s, &p)) return P->e->code;
    if (which == 1 && push_id(P, &P->x, &P->nx, &P->capx, p)) return P->e->code;
    if (which == 2 && push_id(P, &P->y, &P->ny, &P->capy, p)) return P->e->code;
    if (which) {
      if (*s == ':') return perr(P, "%sX: and Y: take no weights", "");
      continue;
    }
    if (cg_reserve(P->A, (void **)&P->t, &P->capt, P->nt + 1, sizeof *P->t))
      return cg_seterr(P->e, CG_ENOMEM, "out of memory");
    P->t[P->nt].v = v;
    P->t[P->nt].p = p;
    P->t[P->nt].w = 1.0;
    P->t[P->nt].line = P->line;
    if (*s == ':') {
      char *end;
      s++;
      P->t[P->nt].w = strtod(s, &end);
      if (end == s) return perr(P, "bad weight at '%.20s'", s);
      s = end;
    } else {
      P->missing_w = 1;
    }
    if (p >= v) {
      char msg[80];
      snprintf(msg, sizeof msg, "edge %u -> %u is not in topological order", p, v);
      return perr(P, "%s", msg);
    }
    P->nt++;
    if (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '#')
      return perr(P, "unexpected '%.20s'", s);
  }
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Dense id of a file id (binary search in the sorted unique ids). */
static uint32_t dense(const cgparse *P, uint32_t id) {
  size_t lo = 0, hi = P->nids;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (P->ids[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return (uint32_t)lo;
}

static void parse_free(cgparse *P) {
  cg_free(P->A, P->defs, P->capdefs * sizeof *P->defs);
  cg_free(P->A, P->t, P->capt * sizeof *P->t);
  cg_free(P->A, P->ids, P->capids * 4);
  cg_free(P->A, P->x, P->capx * 4);
  cg_free(P->A, P->y, P->capy * 4);
}

/* An error at a line: "FILE:LINE: ..." (printf-style). */
static int lerr(cgparse *P, unsigned line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int lerr(cgparse *P, unsigned line, const char *fmt, ...) {
  char what[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return cg_seterr(P->e, CG_EFORMAT, "%s:%u: %s", P->name, line, what);
}

/* Per dense vertex: the line of its own line (0: none), and where X: and
 * Y: list it (bits), to check the definitions (file header). */
enum { IN_X = 1, IN_Y = 2, AS_PRED = 4 };
typedef struct defs {
  unsigned *line;
  uint8_t *role;
} defs;

/* Marks X:, Y: and predecessor uses; refuses an id listed twice, a vertex
 * with two lines, one both independent and dependent. */
static int mark_roles(cgparse *P, defs *D) {
  size_t i;
  for (i = 0; i < P->ndefs; i++) {
    uint32_t d = dense(P, P->defs[i].v);
    if (D->line[d])
      return lerr(P, P->defs[i].line, "vertex %u has a second line (the first is line %u)",
                  P->defs[i].v, D->line[d]);
    D->line[d] = P->defs[i].line;
  }
  for (i = 0; i < P->nx; i++) {
    if (D->role[P->x[i]] & IN_X)
      return lerr(P, P->xline, "X: vertex %u listed twice", P->ids[P->x[i]]);
    D->role[P->x[i]] |= IN_X;
  }
  for (i = 0; i < P->ny; i++) {
    if (D->role[P->y[i]] & IN_Y)
      return lerr(P, P->yline, "Y: vertex %u listed twice", P->ids[P->y[i]]);
    if (D->role[P->y[i]] & IN_X)
      return lerr(P, P->yline, "vertex %u is both independent (X:, line %u) and dependent",
                  P->ids[P->y[i]], P->xline);
    D->role[P->y[i]] |= IN_Y;
  }
  for (i = 0; i < P->nt; i++) D->role[dense(P, P->t[i].p)] |= AS_PRED;
  return CG_OK;
}

/* Refuses names of vertices never defined (file header), at the line that
 * names them. */
static int check_defined(cgparse *P, const defs *D) {
  size_t i;
  for (i = 0; i < P->nt; i++) {
    uint32_t d = dense(P, P->t[i].p);
    if (!D->line[d] && !(D->role[d] & IN_X))
      return lerr(P, P->t[i].line, "edge %u -> %u: vertex %u is never defined (no line of its "
                  "own, not in X:)", P->t[i].p, P->t[i].v, P->t[i].p);
    if (D->role[dense(P, P->t[i].v)] & IN_X)
      return lerr(P, P->t[i].line, "independent %u has predecessors", P->t[i].v);
  }
  for (i = 0; i < P->nx; i++)
    if (!D->line[P->x[i]] && !(D->role[P->x[i]] & AS_PRED))
      return lerr(P, P->xline, "X: vertex %u is never defined (no line of its own, no "
                  "successor; write '%u:' for an unused independent)",
                  P->ids[P->x[i]], P->ids[P->x[i]]);
  for (i = 0; i < P->ny; i++)
    if (!D->line[P->y[i]])
      return lerr(P, P->yline, "Y: vertex %u is never defined (no line of its own; write "
                  "'%u:' for a constant dependent)", P->ids[P->y[i]], P->ids[P->y[i]]);
  return CG_OK;
}

/* mark_roles and check_defined with their arrays. */
static int check_names(cgparse *P) {
  defs D;
  size_t n = P->nids;
  int rc;
  D.line = CG_NEW(P->A, unsigned, n);
  D.role = CG_NEW(P->A, uint8_t, n);
  if (!D.line || !D.role) rc = cg_seterr(P->e, CG_ENOMEM, "out of memory");
  else {
    memset(D.line, 0, n * sizeof(unsigned));
    memset(D.role, 0, n);
    rc = mark_roles(P, &D);
    if (!rc) rc = check_defined(P, &D);
  }
  CG_FREE(P->A, D.line, unsigned, n);
  CG_FREE(P->A, D.role, uint8_t, n);
  return rc;
}

/* Builds the graph from the parsed lines. */
static cg_lin *assemble(cgparse *P) {
  cg_lin *g;
  size_t i, u = 0;
  if (P->nids) qsort(P->ids, P->nids, 4, cmp_u32); /* ids is NULL when empty */
  for (i = 0; i < P->nids; i++)
    if (i == 0 || P->ids[i] != P->ids[i - 1]) P->ids[u++] = P->ids[i];
  P->nids = u;
  for (i = 0; i < P->nx; i++) P->x[i] = dense(P, P->x[i]);
  for (i = 0; i < P->ny; i++) P->y[i] = dense(P, P->y[i]);
  if (check_names(P)) return NULL;
  if (!(g = cg_lin_new(P->A, (uint32_t)u, P->e))) return NULL;
  g->has_w = !P->missing_w;
  for (i = 0; i < P->nt; i++) {
    uint32_t a = dense(P, P->t[i].p), b = dense(P, P->t[i].v);
    int created;
    if (cg_lin_add(g, a, b, P->t[i].w, CG_E_VAR, &created) == NONE) {
      cg_seterr(P->e, CG_ENOMEM, "out of memory");
      goto fail;
    }
    if (!created) {
      lerr(P, P->t[i].line, "edge %u -> %u given twice", P->t[i].p, P->t[i].v);
      goto fail;
    }
  }
  for (i = 0; i < u; i++) g->node[i] = P->ids[i];
  if (cg_lin_set_xy(g, P->x, (uint32_t)P->nx, P->y, (uint32_t)P->ny, P->e)) goto fail;
  return g;
fail:
  cg_lin_free(g);
  return NULL;
}

/* Names the file and the line reached in a reader's out-of-memory message
 * (the allocation sites below say only "out of memory"). */
static void nomem_at(cg_error *e, const char *name, unsigned line) {
  if (e && e->code == CG_ENOMEM)
    cg_seterr(e, CG_ENOMEM, "%s:%u: out of memory", name, line ? line : 1);
}

cg_lin *cg_lin_read_cg(cg_alloc *A, const char *name, const char *buf, size_t len, cg_error *e) {
  cgparse P;
  cg_lin *g = NULL;
  size_t pos = 0;
  char *line = NULL;
  size_t capline = 0;
  memset(&P, 0, sizeof P);
  P.A = A, P.name = name, P.e = e;
  while (pos < len) {
    size_t end = pos;
    while (end < len && buf[end] != '\n') end++;
    P.line++;
    if (memchr(buf + pos, '\0', end - pos)) {
      perr(&P, "%sNUL byte in the line", "");
      goto done;
    }
    if (cg_reserve(A, (void **)&line, &capline, end - pos + 1, 1)) {
      cg_seterr(e, CG_ENOMEM, "out of memory");
      goto done;
    }
    memcpy(line, buf + pos, end - pos);
    line[end - pos] = '\0';
    if (parse_line(&P, line)) goto done;
    pos = end + 1;
  }
  if (!P.xseen || !P.yseen) { /* at the end: the last line */
    cg_seterr(e, CG_EFORMAT, "%s:%u: no %s line in the file", name, P.line ? P.line : 1,
              P.xseen ? "Y:" : "X:");
    goto done;
  }
  g = assemble(&P);
done:
  if (!g) nomem_at(e, name, P.line);
  cg_free(A, line, capline);
  parse_free(&P);
  return g;
}

/* Orders (tail << 32 | edge id) keys, i.e. in-edges by their tails. */
static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Does v need a line without predecessors to be defined (file header)?  A
 * dependent or a used non-independent without in-edges, an unused
 * independent; never an eliminated or isolated intermediate. */
static int empty_line(const cg_lin *g, uint32_t v) {
  if (g->in[v].n || g->kind[v] == CG_V_GONE) return 0;
  if (g->kind[v] == CG_V_INDEP) return g->out[v].n == 0;
  return g->kind[v] == CG_V_DEP || g->out[v].n > 0;
}

int cg_lin_write_cg(const cg_lin *g, FILE *fp) {
  uint32_t v, k, maxin = 1;
  uint64_t *tmp;
  for (v = 0; v < g->nv; v++)
    if (g->in[v].n > maxin) maxin = g->in[v].n;
  tmp = (uint64_t *)cg_malloc(g->A, (size_t)maxin * 8);
  if (!tmp) return CG_ENOMEM;
  fputs("# cgwb linearized graph\nX:", fp);
  for (k = 0; k < g->n; k++) fprintf(fp, " %u", g->x[k]);
  fputs("\nY:", fp);
  for (k = 0; k < g->m; k++) fprintf(fp, " %u", g->y[k]);
  fputc('\n', fp);
  for (v = 0; v < g->nv; v++) {
    if (!g->in[v].n) {
      if (empty_line(g, v)) fprintf(fp, "%u:\n", v);
      continue;
    }
    for (k = 0; k < g->in[v].n; k++)
      tmp[k] = (uint64_t)g->tail[g->in[v].e[k]] << 32 | g->in[v].e[k];
    qsort(tmp, g->in[v].n, 8, cmp_u64);
    fprintf(fp, "%u:", v);
    for (k = 0; k < g->in[v].n; k++) {
      uint32_t eid = (uint32_t)tmp[k];
      char b[24 + CG_FMT_G17_SIZE], *p = b;
      *p++ = ' ';
      p = cg_fmt_u64(p, g->tail[eid]);
      if (g->has_w) *p++ = ':', p += cg_fmt_g17(p, g->w[eid]); /* " %u:%.17g" */
      fwrite(b, 1, (size_t)(p - b), fp);
    }
    fputc('\n', fp);
  }
  cg_free(g->A, tmp, (size_t)maxin * 8);
  return ferror(fp) ? CG_EIO : CG_OK;
}

int cg_lin_write_dot(const cg_lin *g, FILE *fp) {
  uint32_t v, k;
  fputs("digraph lin {\n  rankdir=BT;\n  node [fontname=\"Helvetica\", fontsize=10];\n", fp);
  for (v = 0; v < g->nv; v++) {
    if (g->kind[v] == CG_V_GONE) continue;
    fprintf(fp, "  v%u [label=\"%u\"%s];\n", v + 1, v + 1,
            g->kind[v] == CG_V_INDEP ? ", shape=box, style=filled, fillcolor=\"#cfe8ff\""
            : g->kind[v] == CG_V_DEP ? ", peripheries=2, style=filled, fillcolor=\"#ffe0b0\""
                                     : "");
  }
  for (v = 0; v < g->nv; v++)
    for (k = 0; k < g->out[v].n; k++) {
      uint32_t eid = g->out[v].e[k];
      if (g->has_w) fprintf(fp, "  v%u -> v%u [label=\"%.6g\"%s];\n", v + 1, g->head[eid] + 1,
                            g->w[eid], g->mark[eid] >= CG_E_PLUS1 ? ", style=dashed" : "");
      else fprintf(fp, "  v%u -> v%u;\n", v + 1, g->head[eid] + 1);
    }
  fputs("}\n", fp);
  return ferror(fp) ? CG_EIO : CG_OK;
}

/* {==== EliAD format (ANGEL's read_graph_eliad / write_graph_eliad) ====} */

/* Every message names the file and a line: the line at fault, the line
 * declaring the vertex count for a vertex without edges, the last line for
 * what the end of the file lacks. */
typedef struct eliad {
  const char *name, *buf;
  size_t len, pos;
  unsigned line, nline; /* the line read last; the vertex count's */
  cg_error *e;
} eliad;

/* An error at line `line` (the last line read when 0). */
static int eerr(eliad *P, unsigned line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int eerr(eliad *P, unsigned line, const char *fmt, ...) {
  char what[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (!line) line = P->line ? P->line : 1;
  return cg_seterr(P->e, CG_EFORMAT, "%s:%u: %s", P->name, line, what);
}

/* The next line into out (NUL-terminated); 0 at the end, -1 (and the
 * error) for a line of cap or more characters, which would be cut. */
static int next_line(eliad *P, char *out, size_t cap) {
  size_t n = 0;
  if (P->pos >= P->len) return 0;
  P->line++;
  while (P->pos < P->len && P->buf[P->pos] != '\n') {
    if (n + 1 >= cap) return eerr(P, 0, "line longer than %zu characters", cap - 1), -1;
    out[n++] = P->buf[P->pos++];
  }
  P->pos++;
  out[n] = '\0';
  return 1;
}

/* The vertex count: the first number in the first line holding a digit. */
static int eliad_header(eliad *P, long *nv) {
  char line[256], *cp, *end;
  int r;
  do {
    if ((r = next_line(P, line, sizeof line)) <= 0)
      return r ? CG_EFORMAT : eerr(P, 0, "no vertex count in the file");
  } while (!(cp = strpbrk(line, "0123456789")));
  *nv = strtol(cp, &end, 10);
  P->nline = P->line;
  if (*nv < 1 || *nv >= (long)NONE) return eerr(P, 0, "bad vertex count");
  do { /* the "CG = [" line */
    if ((r = next_line(P, line, sizeof line)) <= 0)
      return r ? CG_EFORMAT : eerr(P, 0, "no 'CG = [' line in the file");
  } while (!strchr(line, '['));
  return CG_OK;
}

/* One "target source triviality" line into g; *done at the ']'. */
static int eliad_edge(eliad *P, cg_lin *g, const char *line, int *done) {
  long t, s, tr;
  char *end;
  const char *p = line;
  int created;
  while (*p == ' ' || *p == '\t' || *p == '\r') p++;
  if (*p == ']') return *done = 1, CG_OK;
  if (!*p || *p == '#' || *p == '%') return CG_OK;
  t = strtol(p, &end, 10);
  if (end == p) goto bad;
  s = strtol(p = end, &end, 10);
  if (end == p) goto bad;
  tr = strtol(p = end, &end, 10);
  if (end == p) goto bad;
  while (*end == ' ' || *end == '\t' || *end == '\r') end++;
  if (*end && *end != '#' && *end != '%') return eerr(P, 0, "unexpected '%.20s'", end);
  if (s < 1 || t < 1 || s > (long)g->nv || t > (long)g->nv)
    return eerr(P, 0, "vertex %ld out of range 1..%u (n = %u, line %u)",
                s < 1 || s > (long)g->nv ? s : t, g->nv, g->nv, P->nline);
  if (s >= t) return eerr(P, 0, "edge %ld -> %ld is not in topological order", s, t);
  if (cg_lin_add(g, (uint32_t)s - 1, (uint32_t)t - 1, 1.0, tr == 1 ? CG_E_PLUS1 : CG_E_VAR,
                 &created) == NONE)
    return cg_seterr(P->e, CG_ENOMEM, "%s:%u: out of memory", P->name, P->line);
  if (!created) return eerr(P, 0, "edge %ld -> %ld given twice", s, t);
  return CG_OK;
bad:
  return eerr(P, 0, "expected 'target source triviality'");
}

/* Independents: vertices without in-edges; dependents: without out-edges. */
static int eliad_xy(eliad *P, cg_lin *g) {
  uint32_t *x = (uint32_t *)cg_malloc(g->A, (size_t)g->nv * 8), *y, v, n = 0, m = 0;
  int rc;
  if (!x) return cg_seterr(P->e, CG_ENOMEM, "out of memory");
  y = x + g->nv;
  for (v = 0; v < g->nv; v++) {
    if (!g->in[v].n && !g->out[v].n) { /* at the line whose count declares it */
      cg_free(g->A, x, (size_t)g->nv * 8);
      return eerr(P, P->nline, "vertex %u (of n = %u) has no edge", v + 1, g->nv);
    }
    if (!g->in[v].n) x[n++] = v;
    if (!g->out[v].n) y[m++] = v;
  }
  rc = cg_lin_set_xy(g, x, n, y, m, P->e);
  cg_free(g->A, x, (size_t)g->nv * 8);
  return rc;
}

cg_lin *cg_lin_read_eliad(cg_alloc *A, const char *name, const char *buf, size_t len,
                          cg_error *e) {
  eliad P;
  long nv = 0;
  int done = 0, r = 0;
  char line[256];
  cg_lin *g;
  memset(&P, 0, sizeof P);
  P.name = name, P.buf = buf, P.len = len, P.e = e;
  if (memchr(buf, '\0', len)) { /* at its line */
    const char *z = (const char *)memchr(buf, '\0', len), *q;
    for (q = buf, P.line = 1; q < z; q++) P.line += *q == '\n';
    return eerr(&P, P.line, "NUL byte in the line"), NULL;
  }
  if (eliad_header(&P, &nv)) return NULL;
  if (!(g = cg_lin_new(A, (uint32_t)nv, e))) return nomem_at(e, name, P.line), NULL;
  g->has_w = 0;
  while (!done && (r = next_line(&P, line, sizeof line)) > 0)
    if (eliad_edge(&P, g, line, &done)) goto fail;
  if (r < 0) goto fail;
  if (!done) {
    eerr(&P, 0, "no closing ']' in the file");
    goto fail;
  }
  if (eliad_xy(&P, g)) goto fail;
  for (nv = 0; nv < (long)g->nv; nv++) g->node[nv] = (uint32_t)nv + 1;
  return g;
fail:
  nomem_at(e, name, P.line);
  cg_lin_free(g);
  return NULL;
}

int cg_lin_write_eliad(const cg_lin *g, FILE *fp, cg_error *e) {
  uint32_t v, k, nx = 0, ny = 0, n = 0, *num;
  num = CG_NEW(g->A, uint32_t, g->nv);
  if (!num) return cg_seterr(e, CG_ENOMEM, "out of memory");
  for (v = 0; v < g->nv; v++) { /* the format numbers connected vertices only */
    int conn = g->in[v].n || g->out[v].n;
    num[v] = conn ? ++n : 0;
    if (!conn) continue;
    if (!g->in[v].n && (nx >= g->n || g->x[nx++] != v)) break;
    if (!g->out[v].n && (ny >= g->m || g->y[ny++] != v)) break;
  }
  if (v < g->nv || nx != g->n || ny != g->m) {
    CG_FREE(g->A, num, uint32_t, g->nv);
    return cg_seterr(e, CG_EUSAGE,
                     "EliAD cannot say this graph's independents and dependents (they must be "
                     "exactly its sources and sinks, in id order)");
  }
  fprintf(fp, "n = %u\nCG = [\n", n);
  for (v = 0; v < g->nv; v++) {
    uint64_t *tmp = CG_NEW(g->A, uint64_t, g->in[v].n);
    if (!tmp) {
      CG_FREE(g->A, num, uint32_t, g->nv);
      return cg_seterr(e, CG_ENOMEM, "out of memory");
    }
    for (k = 0; k < g->in[v].n; k++) /* tails in id order: same graph, same bytes */
      tmp[k] = (uint64_t)g->tail[g->in[v].e[k]] << 32 | g->in[v].e[k];
    qsort(tmp, g->in[v].n, 8, cmp_u64);
    for (k = 0; k < g->in[v].n; k++) {
      uint32_t eid = (uint32_t)tmp[k];
      fprintf(fp, "   %u   %u   %d\n", num[v], num[g->tail[eid]], g->mark[eid] == CG_E_PLUS1 ? 1 : 2);
    }
    CG_FREE(g->A, tmp, uint64_t, g->in[v].n);
  }
  fputs("]\n", fp);
  CG_FREE(g->A, num, uint32_t, g->nv);
  return ferror(fp) ? cg_seterr(e, CG_EIO, "write error") : CG_OK;
}
