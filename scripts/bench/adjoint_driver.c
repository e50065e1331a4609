/*
 * adjoint_driver: the primal examples/kernels/nsloops.c and its two adjoints
 * from `cgwb adjoint` (--loops none: the standard adjoint; --loops auto: the
 * loops adjoined per iteration, with dry runs) on a mesh of
 * scripts/bench/mesh.lua, for doc/results/adjoint-loops.md
 * (scripts/bench-adjoint.sh; spec/33-nsloops_spec.lua runs it on small meshes).
 * Build: the two generated files compiled apart, their entry points renamed
 * (-Dnsloops_b=nsloops_std_b -Dnsloops_b_stats=nsloops_std_b_stats
 * -Dnsloops_b_reset=nsloops_std_b_reset, and _tr_ likewise), each with its own
 * stack (cgwb_adstack.h: one per translation unit), linked with the kernel
 * compiled apart (cc -O2 examples/kernels/nsloops.c).
 *   usage: adjoint_driver MESH REPS [GRADFILE]
 * Independents w0..w3, x, y; dependent cost[0] (adjoint 1).  Prints, one
 * "key value..." a line:
 *   mesh NV NE NT
 *   memory ORIGINAL ADJOINT   bytes: the arrays nsloops reads and writes (ints
 *                             included); the adjoints of its double parameters
 *   standard PUSHED HIGH SNAP SNAPHIGH      cgwb_adstats of one call (bytes)
 *   transformed PUSHED HIGH SNAP SNAPHIGH
 *   reps REPS
 *   time PRIMAL STANDARD TRANSFORMED        medians over REPS calls, seconds
 *                                           (all five timings in turns, so each
 *                                           sees the same state of the machine);
 *                                           an adjoint call fresh: F_b_reset
 *                                           (freeing the stacks) before it
 *   time_warm STANDARD TRANSFORMED          the call right after: the stacks
 *                                           kept from the fresh call
 *   check std_vs_tr REL     max |g_std - g_tr| / max |g_std| over the gradient
 *   check fd REL            max over 4 random directions d of |<g, d> - cd| /
 *                           sum |g_i d_i|, cd the central difference of step
 *                           1e-6 (relative to the terms' size, not to <g, d>,
 *                           which may cancel below cd's rounding noise: the
 *                           cost sums a term per vertex)
 *   check primal SAME       1 when both adjoints leave cost and wn0..wn3 as
 *                           the kernel does (bit for bit) and cost's adjoint 0
 *   cost J
 * and writes the standard adjoint's gradient (%.17g a line) to GRADFILE.
 * Exit status 1 when a check fails (std_vs_tr > 1e-12, fd > 1e-6, primal 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nsmesh.h"

/* The counters of cgwb_adstack.h (its layout; the header itself defines the
 * stacks, one per translation unit, so only the generated files include it). */
typedef struct { size_t pushed, high_water, snapshot, snapshot_high; } cgwb_adstats;

#define KPARAMS_D(name, len) double *name;
typedef struct { NS_DOUBLE_ARRAYS(KPARAMS_D, &dummy) } ns_arrays;
#undef KPARAMS_D

void nsloops(int nv, int ne, int nt, const int *tri, const int *edge, const double *x,
             const double *y, const double *w0, const double *w1, const double *w2,
             const double *w3, double *r, double *u, double *v, double *p, double *rx,
             double *ry, double *ux, double *uy, double *vx, double *vy, double *px, double *py,
             double *dual, double *area, double *gx, double *gy, double *res0, double *res1,
             double *res2, double *res3, double *wn0, double *wn1, double *wn2, double *wn3,
             double dt, double mu, double *cost);

/* F_b's parameters: F's, each double and double * followed by its adjoint. */
#define NS_B_PARAMS                                                                           \
  int nv, int ne, int nt, const int *tri, const int *edge, const double *x, double *xb,      \
      const double *y, double *yb, const double *w0, double *w0b, const double *w1,          \
      double *w1b, const double *w2, double *w2b, const double *w3, double *w3b, double *r,  \
      double *rb, double *u, double *ub, double *v, double *vb, double *p, double *pb,       \
      double *rx, double *rxb, double *ry, double *ryb, double *ux, double *uxb, double *uy, \
      double *uyb, double *vx, double *vxb, double *vy, double *vyb, double *px, double *pxb, \
      double *py, double *pyb, double *dual, double *dualb, double *area, double *areab,     \
      double *gx, double *gxb, double *gy, double *gyb, double *res0, double *res0b,         \
      double *res1, double *res1b, double *res2, double *res2b, double *res3, double *res3b, \
      double *wn0, double *wn0b, double *wn1, double *wn1b, double *wn2, double *wn2b,       \
      double *wn3, double *wn3b, double dt, double *dtb, double mu, double *mub,             \
      double *cost, double *costb
void nsloops_std_b(NS_B_PARAMS);
void nsloops_tr_b(NS_B_PARAMS);
void nsloops_std_b_stats(cgwb_adstats *out);
void nsloops_tr_b_stats(cgwb_adstats *out);
void nsloops_std_b_reset(void);
void nsloops_tr_b_reset(void);
typedef void adjoint_fn(NS_B_PARAMS);

/* The primal and adjoint arrays of one run, and the scalars. */
typedef struct {
  ns_mesh m;
  ns_arrays a, b; /* values, adjoints */
  double dt, mu, dtb, mub;
} ns_run;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void call_primal(ns_run *s) {
  ns_mesh *m = &s->m;
  ns_arrays *a = &s->a;
  nsloops(m->nv, m->ne, m->nt, m->tri, m->edge, a->x, a->y, a->w0, a->w1, a->w2, a->w3, a->r,
          a->u, a->v, a->p, a->rx, a->ry, a->ux, a->uy, a->vx, a->vy, a->px, a->py, a->dual,
          a->area, a->gx, a->gy, a->res0, a->res1, a->res2, a->res3, a->wn0, a->wn1, a->wn2,
          a->wn3, s->dt, s->mu, a->cost);
}

/* Every adjoint zero, cost's 1; then the adjoint f. */
static void call_adjoint(ns_run *s, adjoint_fn *f) {
  ns_mesh *m = &s->m;
  ns_arrays *a = &s->a, *b = &s->b;
#define ZERO(name, len) memset(b->name, 0, sizeof(double) * (size_t)(len));
  NS_DOUBLE_ARRAYS(ZERO, m)
#undef ZERO
  s->dtb = s->mub = 0;
  b->cost[0] = 1.0;
  f(m->nv, m->ne, m->nt, m->tri, m->edge, a->x, b->x, a->y, b->y, a->w0, b->w0, a->w1, b->w1,
    a->w2, b->w2, a->w3, b->w3, a->r, b->r, a->u, b->u, a->v, b->v, a->p, b->p, a->rx, b->rx,
    a->ry, b->ry, a->ux, b->ux, a->uy, b->uy, a->vx, b->vx, a->vy, b->vy, a->px, b->px, a->py,
    b->py, a->dual, b->dual, a->area, b->area, a->gx, b->gx, a->gy, b->gy, a->res0, b->res0,
    a->res1, b->res1, a->res2, b->res2, a->res3, b->res3, a->wn0, b->wn0, a->wn1, b->wn1,
    a->wn2, b->wn2, a->wn3, b->wn3, s->dt, &s->dtb, s->mu, &s->mub, a->cost, b->cost);
}

/* The gradient (w0..w3, x, y: 6 nv values) left in the adjoints. */
static void gradient(const ns_run *s, double *g) {
  int nv = s->m.nv;
  const double *src[6] = { s->b.w0, s->b.w1, s->b.w2, s->b.w3, s->b.x, s->b.y };
  for (int k = 0; k < 6; k++) memcpy(g + (size_t)k * nv, src[k], sizeof(double) * nv);
}

/* The independents as one vector (read or written). */
static void independents(ns_run *s, double *z, int write) {
  int nv = s->m.nv;
  double *dst[6] = { s->a.w0, s->a.w1, s->a.w2, s->a.w3, s->a.x, s->a.y };
  for (int k = 0; k < 6; k++) {
    if (write) memcpy(dst[k], z + (size_t)k * nv, sizeof(double) * nv);
    else memcpy(z + (size_t)k * nv, dst[k], sizeof(double) * nv);
  }
}

static int alloc_run(ns_run *s) {
  int ok = 1;
#define ALLOC(name, len)                                          \
  s->a.name = (double *)calloc((size_t)(len), sizeof(double));  \
  s->b.name = (double *)calloc((size_t)(len), sizeof(double));  \
  ok = ok && s->a.name && s->b.name;
  NS_DOUBLE_ARRAYS(ALLOC, &s->m)
#undef ALLOC
  return ok;
}

static void free_run(ns_run *s) {
#define FREE(name, len) free(s->a.name); free(s->b.name);
  NS_DOUBLE_ARRAYS(FREE, &s->m)
#undef FREE
  ns_free(&s->m);
}

/* 1 when cost and wn0..wn3 equal the primal's (bit for bit) and cost's adjoint is 0. */
static int same_primal(const ns_run *s, const double *keep) {
  int nv = s->m.nv;
  const double *now_[5] = { s->a.wn0, s->a.wn1, s->a.wn2, s->a.wn3, s->a.cost };
  for (int k = 0; k < 5; k++)
    if (memcmp(now_[k], keep + (size_t)k * nv, sizeof(double) * (k < 4 ? nv : 1))) return 0;
  return s->b.cost[0] == 0.0;
}

static void save_primal(const ns_run *s, double *keep) {
  int nv = s->m.nv;
  const double *src[5] = { s->a.wn0, s->a.wn1, s->a.wn2, s->a.wn3, s->a.cost };
  for (int k = 0; k < 5; k++) memcpy(keep + (size_t)k * nv, src[k], sizeof(double) * (k < 4 ? nv : 1));
}

/* Max over 4 seeded random directions of the difference between <g, d> and
 * the central difference of the compiled kernel, relative to sum |g_i d_i|. */
static double fd_check(ns_run *s, const double *g, int n) {
  double *z = malloc(sizeof(double) * n), *zp = malloc(sizeof(double) * n);
  double *d = malloc(sizeof(double) * n), worst = 0, h = 1e-6;
  unsigned long long st = 12345;
  if (!z || !zp || !d) { free(z); free(zp); free(d); return 1e300; }
  independents(s, z, 0);
  for (int dir = 0; dir < 4; dir++) {
    double gd = 0, scale = 0, jp, jm;
    for (int i = 0; i < n; i++) {
      st = st * 6364136223846793005ULL + 1442695040888963407ULL; /* MMIX LCG */
      d[i] = (double)(st >> 11) / 9007199254740992.0 - 0.5;
      gd += g[i] * d[i];
      scale += fabs(g[i] * d[i]); /* the size of the sum's terms: <g, d> itself may cancel */
    }
    for (int i = 0; i < n; i++) zp[i] = z[i] + h * d[i];
    independents(s, zp, 1);
    call_primal(s);
    jp = s->a.cost[0];
    for (int i = 0; i < n; i++) zp[i] = z[i] - h * d[i];
    independents(s, zp, 1);
    call_primal(s);
    jm = s->a.cost[0];
    double cd = (jp - jm) / (2 * h), rel = scale > 0 ? fabs(gd - cd) / scale : (cd != 0 ? 1 : 0);
    if (rel > worst) worst = rel;
  }
  independents(s, z, 1);
  free(z); free(zp); free(d);
  return worst;
}

static void print_stats(const char *what, void (*stats)(cgwb_adstats *)) {
  cgwb_adstats st;
  stats(&st);
  printf("%s %zu %zu %zu %zu\n", what, st.pushed, st.high_water, st.snapshot, st.snapshot_high);
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) return fprintf(stderr, "usage: adjoint_driver MESH REPS [GRADFILE]\n"), 2;
  ns_run s;
  memset(&s, 0, sizeof s);
  if (ns_read(argv[1], &s.m)) return 2;
  int reps = atoi(argv[2]), nv = s.m.nv, n = 6 * nv, status = 0;
  if (reps < 1) reps = 1;
  double *gs = malloc(sizeof(double) * n), *gt = malloc(sizeof(double) * n);
  double *keep = malloc(sizeof(double) * (4 * (size_t)nv + 1)), *tp = malloc(sizeof(double) * 5 * reps);
  if (!alloc_run(&s) || !gs || !gt || !keep || !tp) return fprintf(stderr, "out of memory\n"), 2;
  ns_state(&s.m, s.a.w0, s.a.w1, s.a.w2, s.a.w3);
  memcpy(s.a.x, s.m.x, sizeof(double) * nv);
  memcpy(s.a.y, s.m.y, sizeof(double) * nv);
  s.dt = 0.2 / s.m.n;
  s.mu = 0.01;

  size_t orig = sizeof(int) * (3 * (size_t)s.m.nt + 2 * (size_t)s.m.ne), adj = 2 * sizeof(double);
#define BYTES(name, len) orig += sizeof(double) * (size_t)(len); adj += sizeof(double) * (size_t)(len);
  NS_DOUBLE_ARRAYS(BYTES, &s.m)
#undef BYTES
  printf("mesh %d %d %d\n", s.m.nv, s.m.ne, s.m.nt);
  printf("memory %zu %zu\n", orig, adj);

  call_primal(&s);
  save_primal(&s, keep);
  double J = s.a.cost[0];
  nsloops_std_b_reset();
  call_adjoint(&s, nsloops_std_b);
  int same = same_primal(&s, keep);
  gradient(&s, gs);
  print_stats("standard", nsloops_std_b_stats);
  nsloops_tr_b_reset();
  call_adjoint(&s, nsloops_tr_b);
  same = same && same_primal(&s, keep);
  gradient(&s, gt);
  print_stats("transformed", nsloops_tr_b_stats);

  for (int k = 0; k < reps; k++) { /* in turns */
    double t[6];
    t[0] = now();
    call_primal(&s);
    t[1] = now();
    nsloops_std_b_reset(); /* fresh: the stacks freed, grown again in the call */
    call_adjoint(&s, nsloops_std_b);
    t[2] = now();
    call_adjoint(&s, nsloops_std_b); /* warm: the stacks the last call grew */
    t[3] = now();
    nsloops_tr_b_reset();
    call_adjoint(&s, nsloops_tr_b);
    t[4] = now();
    call_adjoint(&s, nsloops_tr_b);
    t[5] = now();
    for (int j = 0; j < 5; j++) tp[j * reps + k] = t[j + 1] - t[j];
  }
  printf("reps %d\n", reps);
  printf("time %.9g %.9g %.9g\n", median(tp, reps), median(tp + reps, reps), median(tp + 3 * reps, reps));
  printf("time_warm %.9g %.9g\n", median(tp + 2 * reps, reps), median(tp + 4 * reps, reps));

  double dmax = 0, gmax = 0;
  for (int i = 0; i < n; i++) {
    if (fabs(gs[i] - gt[i]) > dmax) dmax = fabs(gs[i] - gt[i]);
    if (fabs(gs[i]) > gmax) gmax = fabs(gs[i]);
  }
  double rel = gmax > 0 ? dmax / gmax : dmax, fd = fd_check(&s, gs, n);
  printf("check std_vs_tr %.3g\n", rel);
  printf("check fd %.3g\n", fd);
  printf("check primal %d\n", same);
  printf("cost %.17g\n", J);
  if (rel > 1e-12 || fd > 1e-6 || !same) status = 1;
  if (argc == 4) {
    FILE *f = fopen(argv[3], "w");
    if (!f) return fprintf(stderr, "%s: cannot write\n", argv[3]), 2;
    for (int i = 0; i < n; i++) fprintf(f, "%.17g\n", gs[i]);
    if (fclose(f)) return fprintf(stderr, "%s: cannot write\n", argv[3]), 2;
  }
  free(gs); free(gt); free(keep); free(tp);
  free_run(&s);
  return status;
}
