/*
 * nsmesh.h: the mesh files of scripts/bench/mesh.lua and the arrays of the
 * kernel examples/kernels/nsloops.c, shared by scripts/bench/adjoint_driver.c
 * (C99) and scripts/bench/adolc_nsloops.cpp (C++).  Header only, static
 * functions: include it once per program.
 *
 * ns_read(path, &m) reads and checks a mesh (its FNV-1a checksum, counts,
 * ids in range); ns_state(&m, w0..w3) fills a smooth, deterministic flow
 * state (density, velocity, pressure of a perturbed uniform flow, as
 * conservative variables).  NS_DOUBLE_ARRAYS lists the kernel's double *
 * parameters in the kernel's order with their lengths, so the drivers
 * allocate them, their adjoints, and count their bytes from one list.
 */
#ifndef NSMESH_H
#define NSMESH_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int n, nv, ne, nt, nb;
  double *x, *y;  /* nv coordinates */
  int *tri;       /* 3 nt vertex ids */
  int *edge;      /* 2 ne vertex ids (the kernel's edge map) */
  int *etri;      /* 2 ne triangle ids (-1: none) */
} ns_mesh;

/* X(name, length) for every double * parameter of nsloops, in its order. */
#define NS_DOUBLE_ARRAYS(X, m)                                                               \
  X(x, (m)->nv) X(y, (m)->nv) X(w0, (m)->nv) X(w1, (m)->nv) X(w2, (m)->nv) X(w3, (m)->nv)  \
  X(r, (m)->nv) X(u, (m)->nv) X(v, (m)->nv) X(p, (m)->nv)                                  \
  X(rx, (m)->nv) X(ry, (m)->nv) X(ux, (m)->nv) X(uy, (m)->nv)                              \
  X(vx, (m)->nv) X(vy, (m)->nv) X(px, (m)->nv) X(py, (m)->nv)                              \
  X(dual, (m)->nv) X(area, (m)->nt) X(gx, 3 * (m)->nt) X(gy, 3 * (m)->nt)                  \
  X(res0, (m)->nv) X(res1, (m)->nv) X(res2, (m)->nv) X(res3, (m)->nv)                      \
  X(wn0, (m)->nv) X(wn1, (m)->nv) X(wn2, (m)->nv) X(wn3, (m)->nv) X(cost, 1)

static void ns_free(ns_mesh *m) {
  free(m->x);
  free(m->y);
  free(m->tri);
  free(m->edge);
  free(m->etri);
  memset(m, 0, sizeof *m);
}

/* FNV-1a, 64 bits (as scripts/bench/mesh.lua). */
static unsigned long long ns_fnv1a(const char *s, size_t len) {
  unsigned long long h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
  return h;
}

/* The whole file as a NUL-terminated string, or NULL. */
static char *ns_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = (char *)malloc(cap + 1);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    char *nb = (char *)realloc(buf, 2 * cap + 1);
    if (!nb) { free(buf); buf = NULL; break; }
    buf = nb;
    cap *= 2;
  }
  fclose(f);
  if (buf) buf[n] = '\0';
  *len = n;
  return buf;
}

/* The next number of *q (strtod/strtol: sscanf would measure the rest of the
 * file at every call); 1 when there was one. */
static int ns_num(const char **q, double *out) {
  char *end;
  *out = strtod(*q, &end);
  if (end == *q) return 0;
  *q = end;
  return 1;
}

static int ns_int(const char **q, int *out) {
  char *end;
  long l = strtol(*q, &end, 10);
  if (end == *q || l < -1 || l > 0x7fffffffL) return 0;
  *out = (int)l;
  *q = end;
  return 1;
}

/* lo <= v < hi */
static int ns_in(int v, int lo, int hi) { return v >= lo && v < hi; }

/* Reads the mesh at path into m; 0, or -1 with a message on stderr. */
static int ns_read(const char *path, ns_mesh *m) {
  size_t len;
  memset(m, 0, sizeof *m);
  char *s = ns_slurp(path, &len);
  if (!s) return fprintf(stderr, "%s: cannot read\n", path), -1;
  char *ck = strstr(s, "\nchecksum ");
  unsigned long long want = 0;
  int ok = ck && sscanf(ck + 10, "%16llx", &want) == 1 &&
           ns_fnv1a(s, (size_t)(ck + 1 - s)) == want;
  if (!ok) {
    free(s);
    return fprintf(stderr, "%s: not a cgwb mesh or checksum mismatch\n", path), -1;
  }
  int seed, pos = 0;
  const char *q = s;
  ok = sscanf(q, "cgwb-mesh 1 n %d seed %d nv %d ne %d nt %d nb %d%n", &m->n, &seed, &m->nv,
              &m->ne, &m->nt, &m->nb, &pos) == 6 && m->nv > 0 && m->ne > 0 && m->nt > 0;
  q += pos;
  if (ok) {
    m->x = (double *)malloc(sizeof(double) * m->nv);
    m->y = (double *)malloc(sizeof(double) * m->nv);
    m->tri = (int *)malloc(sizeof(int) * 3 * m->nt);
    m->edge = (int *)malloc(sizeof(int) * 2 * m->ne);
    m->etri = (int *)malloc(sizeof(int) * 2 * m->ne);
    ok = m->x && m->y && m->tri && m->edge && m->etri;
  }
  for (int i = 0; ok && i < m->nv; i++)
    ok = ns_num(&q, &m->x[i]) && ns_num(&q, &m->y[i]);
  for (int i = 0; ok && i < 3 * m->nt; i++)
    ok = ns_int(&q, &m->tri[i]) && m->tri[i] >= 0 && m->tri[i] < m->nv;
  for (int i = 0; ok && i < m->ne; i++)
    ok = ns_int(&q, &m->edge[2 * i]) && ns_int(&q, &m->edge[2 * i + 1]) &&
         ns_int(&q, &m->etri[2 * i]) && ns_int(&q, &m->etri[2 * i + 1]) &&
         ns_in(m->edge[2 * i], 0, m->nv) && ns_in(m->edge[2 * i + 1], 0, m->nv) &&
         ns_in(m->etri[2 * i], 0, m->nt) && ns_in(m->etri[2 * i + 1], -1, m->nt);
  free(s);
  if (!ok) {
    ns_free(m);
    return fprintf(stderr, "%s: malformed mesh (or out of memory)\n", path), -1;
  }
  return 0;
}

/* A perturbed uniform flow (Mach about 0.35, density and pressure near 1 and
 * 1/1.4), as conservative variables: smooth in x, y. */
static void ns_state(const ns_mesh *m, double *w0, double *w1, double *w2, double *w3) {
  const double pi = 3.14159265358979323846;
  for (int i = 0; i < m->nv; i++) {
    double X = m->x[i], Y = m->y[i];
    double rho = 1.0 + 0.1 * sin(2 * pi * X) * cos(pi * Y);
    double u = 0.3 + 0.05 * cos(2 * pi * Y);
    double v = 0.1 * sin(pi * X + 0.5);
    double p = 1.0 / 1.4 + 0.05 * cos(pi * X) * sin(2 * pi * Y);
    w0[i] = rho;
    w1[i] = rho * u;
    w2[i] = rho * v;
    w3[i] = p / 0.4 + 0.5 * rho * (u * u + v * v);
  }
}

#endif
