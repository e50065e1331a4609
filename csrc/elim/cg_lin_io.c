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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cg_fmt.h"
#include "cg_lin.h"

#define NONE UINT32_MAX

typedef struct triple {
  uint32_t v, p;
  double w;
} triple;

typedef struct cgparse {
  cg_alloc *A;
  const char *name;
  cg_error *e;
  triple *t;
  size_t nt, capt;
  uint32_t *ids, *x, *y;
  size_t nids, capids, nx, capx, ny, capy;
  int xseen, yseen, missing_w;
  unsigned line;
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
    s++;
  } else if (parse_id(P, &s, &v)) {
    return P->e->code;
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
  cg_free(P->A, P->t, P->capt * sizeof *P->t);
  cg_free(P->A, P->ids, P->capids * 4);
  cg_free(P->A, P->x, P->capx * 4);
  cg_free(P->A, P->y, P->capy * 4);
}

/* Builds the graph from the parsed lines. */
static cg_lin *assemble(cgparse *P) {
  cg_lin *g;
  size_t i, u = 0;
  if (P->nids) qsort(P->ids, P->nids, 4, cmp_u32); /* ids is NULL when empty */
  for (i = 0; i < P->nids; i++)
    if (i == 0 || P->ids[i] != P->ids[i - 1]) P->ids[u++] = P->ids[i];
  P->nids = u;
  if (!(g = cg_lin_new(P->A, (uint32_t)u, P->e))) return NULL;
  g->has_w = !P->missing_w;
  for (i = 0; i < P->nx; i++) P->x[i] = dense(P, P->x[i]);
  for (i = 0; i < P->ny; i++) P->y[i] = dense(P, P->y[i]);
  for (i = 0; i < P->nt; i++) {
    uint32_t a = dense(P, P->t[i].p), b = dense(P, P->t[i].v);
    int created;
    if (cg_lin_add(g, a, b, P->t[i].w, CG_E_VAR, &created) == NONE) {
      cg_seterr(P->e, CG_ENOMEM, "out of memory");
      goto fail;
    }
    if (!created) {
      cg_seterr(P->e, CG_EFORMAT, "%s: edge %u -> %u given twice", P->name, P->t[i].p, P->t[i].v);
      goto fail;
    }
  }
  for (i = 0; i < u; i++) g->node[i] = P->ids[i];
  if (cg_lin_set_xy(g, P->x, (uint32_t)P->nx, P->y, (uint32_t)P->ny, P->e)) goto fail;
  for (i = 0; i < P->nx; i++)
    if (g->in[P->x[i]].n) {
      cg_seterr(P->e, CG_EFORMAT, "%s: independent %u has predecessors", P->name,
                P->ids[P->x[i]]);
      goto fail;
    }
  return g;
fail:
  cg_lin_free(g);
  return NULL;
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
  if (!P.xseen || !P.yseen) {
    cg_seterr(e, CG_EFORMAT, "%s: no %s line", name, P.xseen ? "Y:" : "X:");
    goto done;
  }
  g = assemble(&P);
done:
  cg_free(A, line, capline);
  parse_free(&P);
  return g;
}

/* Orders (tail << 32 | edge id) keys, i.e. in-edges by their tails. */
static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
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
    if (!g->in[v].n) continue;
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

typedef struct eliad {
  const char *name, *buf;
  size_t len, pos;
  unsigned line;
  cg_error *e;
} eliad;

/* The next line into out (NUL-terminated, cut at cap - 1); 0 at the end. */
static int next_line(eliad *P, char *out, size_t cap) {
  size_t n = 0;
  if (P->pos >= P->len) return 0;
  P->line++;
  while (P->pos < P->len && P->buf[P->pos] != '\n') {
    if (n + 1 < cap) out[n++] = P->buf[P->pos];
    P->pos++;
  }
  P->pos++;
  out[n] = '\0';
  return 1;
}

/* The vertex count: the first number in the first line holding a digit. */
static int eliad_header(eliad *P, long *nv) {
  char line[256], *cp, *end;
  do {
    if (!next_line(P, line, sizeof line))
      return cg_seterr(P->e, CG_EFORMAT, "%s: no vertex count", P->name);
  } while (!(cp = strpbrk(line, "0123456789")));
  *nv = strtol(cp, &end, 10);
  if (*nv < 1 || *nv >= (long)NONE)
    return cg_seterr(P->e, CG_EFORMAT, "%s:%u: bad vertex count", P->name, P->line);
  do { /* the "CG = [" line */
    if (!next_line(P, line, sizeof line))
      return cg_seterr(P->e, CG_EFORMAT, "%s: no 'CG = [' line", P->name);
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
  if (s < 1 || t < 1 || s > (long)g->nv || t > (long)g->nv)
    return cg_seterr(P->e, CG_EFORMAT, "%s:%u: vertex out of range", P->name, P->line);
  if (s >= t)
    return cg_seterr(P->e, CG_EFORMAT, "%s:%u: edge %ld -> %ld is not in topological order",
                     P->name, P->line, s, t);
  if (cg_lin_add(g, (uint32_t)s - 1, (uint32_t)t - 1, 1.0, tr == 1 ? CG_E_PLUS1 : CG_E_VAR,
                 &created) == NONE)
    return cg_seterr(P->e, CG_ENOMEM, "out of memory");
  if (!created)
    return cg_seterr(P->e, CG_EFORMAT, "%s:%u: edge %ld -> %ld given twice", P->name, P->line, s, t);
  return CG_OK;
bad:
  return cg_seterr(P->e, CG_EFORMAT, "%s:%u: expected 'target source triviality'", P->name, P->line);
}

/* Independents: vertices without in-edges; dependents: without out-edges. */
static int eliad_xy(eliad *P, cg_lin *g) {
  uint32_t *x = (uint32_t *)cg_malloc(g->A, (size_t)g->nv * 8), *y, v, n = 0, m = 0;
  int rc;
  if (!x) return cg_seterr(P->e, CG_ENOMEM, "out of memory");
  y = x + g->nv;
  for (v = 0; v < g->nv; v++) {
    if (!g->in[v].n && !g->out[v].n) {
      cg_free(g->A, x, (size_t)g->nv * 8);
      return cg_seterr(P->e, CG_EFORMAT, "%s: vertex %u is not connected", P->name, v + 1);
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
  int done = 0;
  char line[256];
  cg_lin *g;
  memset(&P, 0, sizeof P);
  P.name = name, P.buf = buf, P.len = len, P.e = e;
  if (memchr(buf, '\0', len)) return cg_seterr(e, CG_EFORMAT, "%s: NUL byte", name), NULL;
  if (eliad_header(&P, &nv)) return NULL;
  if (!(g = cg_lin_new(A, (uint32_t)nv, e))) return NULL;
  g->has_w = 0;
  while (!done && next_line(&P, line, sizeof line))
    if (eliad_edge(&P, g, line, &done)) goto fail;
  if (!done) {
    cg_seterr(e, CG_EFORMAT, "%s: no closing ']'", name);
    goto fail;
  }
  if (eliad_xy(&P, g)) goto fail;
  for (nv = 0; nv < (long)g->nv; nv++) g->node[nv] = (uint32_t)nv + 1;
  return g;
fail:
  cg_lin_free(g);
  return NULL;
}

int cg_lin_write_eliad(const cg_lin *g, FILE *fp, cg_error *e) {
  uint32_t v, k, nx = 0, ny = 0, n = 0, *num;
  num = (uint32_t *)cg_malloc(g->A, (size_t)(g->nv ? g->nv : 1) * 4);
  if (!num) return cg_seterr(e, CG_ENOMEM, "out of memory");
  for (v = 0; v < g->nv; v++) { /* the format numbers connected vertices only */
    int conn = g->in[v].n || g->out[v].n;
    num[v] = conn ? ++n : 0;
    if (!conn) continue;
    if (!g->in[v].n && (nx >= g->n || g->x[nx++] != v)) break;
    if (!g->out[v].n && (ny >= g->m || g->y[ny++] != v)) break;
  }
  if (v < g->nv || nx != g->n || ny != g->m) {
    cg_free(g->A, num, (size_t)(g->nv ? g->nv : 1) * 4);
    return cg_seterr(e, CG_EUSAGE,
                     "EliAD cannot say this graph's independents and dependents (they must be "
                     "exactly its sources and sinks, in id order)");
  }
  fprintf(fp, "n = %u\nCG = [\n", n);
  for (v = 0; v < g->nv; v++) {
    uint64_t *tmp = (uint64_t *)cg_malloc(g->A, (size_t)(g->in[v].n ? g->in[v].n : 1) * 8);
    if (!tmp) {
      cg_free(g->A, num, (size_t)(g->nv ? g->nv : 1) * 4);
      return cg_seterr(e, CG_ENOMEM, "out of memory");
    }
    for (k = 0; k < g->in[v].n; k++) /* tails in id order: same graph, same bytes */
      tmp[k] = (uint64_t)g->tail[g->in[v].e[k]] << 32 | g->in[v].e[k];
    qsort(tmp, g->in[v].n, 8, cmp_u64);
    for (k = 0; k < g->in[v].n; k++) {
      uint32_t eid = (uint32_t)tmp[k];
      fprintf(fp, "   %u   %u   %d\n", num[v], num[g->tail[eid]], g->mark[eid] == CG_E_PLUS1 ? 1 : 2);
    }
    cg_free(g->A, tmp, (size_t)(g->in[v].n ? g->in[v].n : 1) * 8);
  }
  fputs("]\n", fp);
  cg_free(g->A, num, (size_t)(g->nv ? g->nv : 1) * 4);
  return ferror(fp) ? cg_seterr(e, CG_EIO, "write error") : CG_OK;
}
