/* test_search.c: the branch and bound search (cg_search.h) against the
 * subset dynamic programming (cg_lin_exact) on seeded random graphs: the same
 * optimum, proven, an order that replays to it, a root bound not above it;
 * a node limit gives a sound answer; every allocation failing in turn gives
 * CG_ENOMEM (or, for the transposition table, a smaller table and the same
 * answer) and leaks nothing.  Prints "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elim/cg_lin.h"
#include "elim/cg_search.h"
#include "check.h"

/* A seeded generator (xorshift64*). */
static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
  rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 2685821657736338717ull) >> 33) % n;
}

/* A .cg text: n independents, k intermediates on recent operands, m dependents. */
static void gen_text(char *buf, size_t size, uint64_t seed, uint32_t n, uint32_t k, uint32_t m) {
  uint32_t v, j, i;
  size_t len = 0;
  uint8_t *hassucc = (uint8_t *)calloc(n + k + m, 1);
  uint32_t *extra = (uint32_t *)calloc(m, sizeof *extra); /* a dependent's extra operand + 1 */
  rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
  len += (size_t)snprintf(buf + len, size - len, "X:");
  for (i = 0; i < n; i++) len += (size_t)snprintf(buf + len, size - len, " %u", i);
  len += (size_t)snprintf(buf + len, size - len, "\nY:");
  for (j = 0; j < m; j++) len += (size_t)snprintf(buf + len, size - len, " %u", n + k + j);
  len += (size_t)snprintf(buf + len, size - len, "\n");
  for (v = n; v < n + k; v++) {
    uint32_t a = v > n && rnd(5) ? v - 1 - rnd(v - n < 6 ? v - n : 6) : rnd(v);
    uint32_t b = rnd(10) < 7 ? rnd(v) : a;
    hassucc[a] = hassucc[b] = 1;
    if (a == b) len += (size_t)snprintf(buf + len, size - len, "%u: %u:1.5\n", v, a);
    else len += (size_t)snprintf(buf + len, size - len, "%u: %u:1.5 %u:-0.5\n", v, a < b ? a : b, a < b ? b : a);
  }
  for (v = n; v < n + k; v++)
    if (!hassucc[v]) { /* every intermediate reaches a dependent */
      j = rnd(m);
      if (!extra[j]) extra[j] = v + 1, hassucc[v] = 1;
    }
  for (j = 0; j < m; j++) {
    uint32_t a = k ? n + k - 1 - j % k : rnd(n);
    if (extra[j] && extra[j] - 1 != a)
      len += (size_t)snprintf(buf + len, size - len, "%u: %u:2 %u:3\n", n + k + j,
                              a < extra[j] - 1 ? a : extra[j] - 1, a < extra[j] - 1 ? extra[j] - 1 : a);
    else len += (size_t)snprintf(buf + len, size - len, "%u: %u:2\n", n + k + j, a);
  }
  for (i = 0; i < n; i++)
    if (!hassucc[i]) len += (size_t)snprintf(buf + len, size - len, "%u:\n", i);
  free(hassucc);
  free(extra);
}

static cg_lin *gen_graph(cg_alloc *A, uint64_t seed, uint32_t n, uint32_t k, uint32_t m) {
  static char buf[1 << 16];
  cg_error e;
  cg_lin *g;
  gen_text(buf, sizeof buf, seed, n, k, m);
  g = cg_lin_read_cg(A, "gen.cg", buf, strlen(buf), &e);
  if (!g) fprintf(stderr, "%s\n%s", e.msg, buf);
  return g;
}

/* The multiplications of replaying order on a copy. */
static uint64_t replay(const cg_lin *g, const uint32_t *order, uint32_t n) {
  cg_error e;
  cg_cost c;
  cg_lin *h = cg_lin_copy(g, &e);
  memset(&c, 0, sizeof c);
  if (!h || cg_lin_eliminate_seq(h, order, n, &c, &e)) c.mults = UINT64_MAX;
  else if (cg_lin_check(h, &e)) c.mults = UINT64_MAX - 1;
  cg_lin_free(h);
  return c.mults;
}

static uint32_t intermediates(const cg_lin *g) {
  uint32_t v, n = 0;
  for (v = 0; v < g->nv; v++) n += g->kind[v] == CG_V_INTER;
  return n;
}

/* Every built-in bound (0: the default, 1..3 by row), and each one's root
 * bound at least the weaker one's. */
static void agrees_with_dp(void) {
  uint64_t seed, before = 0;
  int bad = 0;
  uint32_t builtin;
  CHECK(cg_search_bound_name(2) && !strcmp(cg_search_bound_name(2), "pairs") && !cg_search_bound_name(3));
  for (seed = 1; seed <= 200 * 4; seed++) {
    cg_lin *g = gen_graph(NULL, (seed + 3) / 4, 1 + (seed + 3) / 4 % 4, 1 + (seed + 3) / 4 % 15, 1 + (seed + 3) / 4 % 3);
    uint32_t *o1 = (uint32_t *)malloc((g->nv + 1) * 4), *o2 = (uint32_t *)malloc((g->nv + 1) * 4), n1;
    uint64_t best;
    cg_search_opts so;
    cg_search_result r;
    cg_error e;
    memset(&so, 0, sizeof so);
    builtin = (uint32_t)((seed - 1) % 4);
    if (!builtin) {
      so.builtin = 4; /* out of range */
      CHECK(cg_lin_search(g, &so, &r, o2, &e) == CG_EUSAGE);
    }
    so.builtin = builtin;
    CHECK(cg_lin_exact(g, 24, &best, o1, &n1, &e) == CG_OK);
    CHECK(cg_lin_search(g, &so, &r, o2, &e) == CG_OK);
    if (r.mults != best || !r.proven || r.lower_bound != best || r.root_bound > best ||
        r.norder != intermediates(g) || replay(g, o2, r.norder) != best)
      bad++;
    if (builtin >= 2 && r.root_bound < before) bad++; /* flow >= paths, pairs >= flow */
    before = builtin == 0 ? 0 : r.root_bound;
    cg_search_result_free(g->A, &r);
    cg_lin_free(g);
    free(o1);
    free(o2);
  }
  CHECK(bad == 0);
}

/* A node limit stops it: the answer is still an order and a sound bound. */
static void stops_soundly(void) {
  cg_lin *g = gen_graph(NULL, 77, 5, 70, 4);
  uint32_t *o = (uint32_t *)malloc(g->nv * 4);
  cg_search_opts so;
  cg_search_result r;
  cg_error e;
  memset(&so, 0, sizeof so);
  so.max_nodes = 20;
  CHECK(cg_lin_search(g, &so, &r, o, &e) == CG_OK);
  CHECK(r.lower_bound <= r.mults && r.root_bound <= r.mults);
  CHECK(r.norder == intermediates(g) && replay(g, o, r.norder) == r.mults);
  CHECK(r.nodes <= 20 + 16); /* checked every 16 states */
  cg_search_result_free(g->A, &r);
  cg_lin_free(g);
  free(o);
}

/* Every allocation fails in turn. */
static void out_of_memory(void) {
  counting c = {0, 0, 0};
  cg_alloc A = {counting_alloc, &c};
  cg_lin *g = gen_graph(&A, 5, 3, 12, 2);
  uint32_t *o = (uint32_t *)malloc(g->nv * 4);
  cg_search_opts so;
  cg_search_result r;
  cg_error e;
  long long base = c.live;
  uint64_t ref;
  long k;
  int bad = 0;
  memset(&so, 0, sizeof so);
  CHECK(cg_lin_search(g, &so, &r, o, &e) == CG_OK);
  ref = r.mults;
  cg_search_result_free(&A, &r);
  CHECK(c.live == base);
  for (k = 1;; k++) {
    int rc;
    c.fail_at = c.calls + k;
    rc = cg_lin_search(g, &so, &r, o, &e);
    if (rc == CG_OK) {
      if (r.mults != ref || !r.proven) bad++;
      cg_search_result_free(&A, &r);
    } else if (rc != CG_ENOMEM || !strstr(e.msg, "out of memory")) bad++;
    if (c.live != base) bad++, c.live = base;
    if (rc == CG_OK && c.calls < c.fail_at) break; /* no failure left to inject */
  }
  c.fail_at = 0;
  CHECK(bad == 0 && k > 10);
  cg_lin_free(g);
  CHECK(c.live == 0);
  free(o);
}

int main(void) {
  agrees_with_dp();
  stops_soundly();
  out_of_memory();
  return check_report("test_search");
}
