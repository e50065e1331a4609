/* test_addg.c: the data-dependence graph in C (cg_addg) on the kernel of
 * krows.h (Hovland, Norris, Utke & Strout, Fig. 1), a = cos(x); b = sin(y)
 * y; f = a * b through pointer parameters a, b, f that may alias: three
 * nodes; the edges by hand, each with the variable of its target access
 * (b[0] may overwrite a[0]: output 0->1 on b; statement 2 reads a[0] and
 * b[0], either may be what 0 or 1 wrote: flow 0->2 and 1->2 on a and on b;
 * f[0] may overwrite both: output 0->2, 1->2 on f);
 * with a!=b, a!=f, b!=f assumed only the flow edges remain; no loops.
 * Then every allocation failing in turn (CG_ENOMEM, nothing leaked).  The
 * loops' verdicts are checked in spec/30-loops_spec.lua on parsed kernels.
 * Prints "N passed, N failed". */
#include <string.h>

#include "adjoint/cg_addg.h"
#include "check.h"
#include "krows.h"

/* The edges as "from>to:kind " text, nodes 0-based. */
static void edges(const cg_addg *g, char *buf, size_t size) {
  uint32_t i;
  size_t n = 0;
  buf[0] = 0;
  for (i = 0; i < g->nedge && n + 24 < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%d>%d:%s:%s%s ", (int)g->e_from[i], (int)g->e_to[i],
                          cg_addg_edge_name(g->e_kind[i]), cg_kalias_obj_name(g->al, (uint32_t)g->e_obj[i]),
                          g->e_carried[i] >= 0 ? "/c" : "");
}

static void test_graph(const cg_kernel *k) {
  cg_kassume as[3] = { { 2, 3, 0 }, { 2, 4, 0 }, { 3, 4, 0 } }; /* a!=b, a!=f, b!=f */
  cg_error e;
  char buf[512];
  cg_kalias *al = cg_kalias_run(NULL, k, 0, NULL, 0, &e);
  cg_addg *g = al ? cg_addg_run(NULL, al, &e) : NULL;
  CHECK(g != NULL);
  if (g) {
    CHECK(g->nnode == 3 && g->nloop == 0);
    CHECK(g->node_kind[0] == CG_AN_ASSIGN && g->node_stmt[2] == 2);
    edges(g, buf, sizeof buf);
    CHECK(!strcmp(buf, "0>1:output:b 0>2:flow:a 0>2:flow:b 0>2:output:f 1>2:flow:a 1>2:flow:b 1>2:output:f "));
    if (strcmp(buf, "0>1:output:b 0>2:flow:a 0>2:flow:b 0>2:output:f 1>2:flow:a 1>2:flow:b 1>2:output:f ")) fprintf(stderr, "edges: %s\n", buf);
  }
  cg_addg_free(g), cg_kalias_free(al);
  al = cg_kalias_run(NULL, k, 0, as, 3, &e);
  g = al ? cg_addg_run(NULL, al, &e) : NULL;
  CHECK(g != NULL);
  if (g) {
    edges(g, buf, sizeof buf);
    CHECK(!strcmp(buf, "0>2:flow:a 1>2:flow:b "));
    if (strcmp(buf, "0>2:flow:a 1>2:flow:b ")) fprintf(stderr, "edges (restricted): %s\n", buf);
  }
  cg_addg_free(g), cg_kalias_free(al);
  CHECK(!strcmp(cg_addg_class_name(CG_AC_OWN), "own-index write") && cg_addg_class_name(CG_AC_COUNT) == NULL);
  CHECK(cg_addg_class_flags(CG_AC_PRIVATE) == (CG_ACF_EXEMPT | CG_ACF_FIRST) && cg_addg_class_flags(CG_AC_OTHER) == 0);
  CHECK(cg_addg_class_flags(-1) == 0 && cg_addg_class_flags(CG_AC_COUNT) == 0); /* the counter: -1 */
  CHECK(!strcmp(cg_addg_edge_name(CG_AE_ANTI), "anti") && cg_addg_edge_name(3) == NULL);
}

static void test_oom(const cg_kernel *k) {
  long at;
  int done = 0, bad = 0;
  for (at = 1; !done && at < 100000; at++) {
    counting c = {0, 0, 0};
    cg_alloc A = {counting_alloc, &c};
    cg_error e;
    cg_kalias *al;
    cg_addg *g = NULL;
    c.fail_at = at;
    al = cg_kalias_run(&A, k, 0, NULL, 0, &e);
    if (al) g = cg_addg_run(&A, al, &e);
    if (!g && e.code != CG_ENOMEM) bad++, fprintf(stderr, "at %ld: %s\n", at, e.msg);
    done = g != NULL && c.calls < at;
    cg_addg_free(g), cg_kalias_free(al);
    if (c.live != 0) bad++, fprintf(stderr, "at %ld: %ld bytes leaked\n", at, (long)c.live);
  }
  CHECK(done);
  CHECK(bad == 0);
  CHECK(at > 20);
}

int main(void) {
  cg_kernel *k = hovland_fig1(NULL);
  CHECK(k != NULL);
  if (k) {
    test_graph(k);
    test_oom(k);
    cg_kernel_free(k);
  }
  return check_report("test_addg");
}
