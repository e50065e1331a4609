/* examples/c-api/02-build.c: builds the computational graph of a tape
 * (Bischof & Hu 1991, sec. 2: assignment removal, hoisting, dead roots) under
 * a memory budget of 1 GiB, and prints what building did, one "name value"
 * line each, with the names and values of `cgwb graph TAPE --json`.
 * doc/c-api.md, "Building the graph".
 *   cc 02-build.c $(pkg-config --cflags --libs cgwb) -o 02-build */
#include <stdio.h>

#include <cgwb/cgwb.h>

int main(int argc, char **argv) {
  cg_error e;
  cg_budget budget;
  cg_alloc A; /* every allocation below is counted against the budget */
  cg_gopts o;
  cg_tape *t;
  cg_graph *g;
  if (argc != 2) return fprintf(stderr, "usage: %s TAPE\n", argv[0]), 2;
  cg_budget_init(&budget, *cg_default_alloc(), (size_t)1 << 30, &A);
  if (!(t = cg_tape_load(&A, argv[1], &e))) return fprintf(stderr, "%s\n", e.msg), 2;
  cg_gopts_default(&o); /* everything on, as the command line */
  if (!(g = cg_graph_build(&A, t, NULL, &o, &e)))
    return fprintf(stderr, "%s\n", e.msg), cg_tape_free(t), e.code == CG_EFORMAT ? 2 : 1;
  printf("assignments_removed %llu\n", (unsigned long long)g->st.assign_removed);
  printf("dead_nodes %llu\n", (unsigned long long)g->st.dead_nodes);
  printf("dependents %u\n", g->n_dep);
  printf("edges %u\n", g->kid_start[g->n]);
  printf("hoisted_opcodes %llu\n", (unsigned long long)g->st.hoisted_ops);
  printf("independents %u\n", g->n_indep);
  printf("nodes %u\n", g->n);
  fprintf(stderr, "%s: %zu bytes in use\n", argv[1], budget.used);
  cg_graph_free(g); /* the graph does not refer to the tape: either may go first */
  cg_tape_free(t);
  return 0;
}
