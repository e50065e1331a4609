/* examples/c-api/04-eliminate.c: accumulates the Jacobian of a tape by vertex
 * elimination under an ordering of the registry (default markowitz; Hovland,
 * Norris, Utke & Strout, sec. 1) and prints the operation counts, one
 * "name value" line each, with the names and values of
 * `cgwb jacobian TAPE --order NAME --json`.  doc/c-api.md, "Eliminating".
 *   cc 04-eliminate.c $(pkg-config --cflags --libs cgwb) -o 04-eliminate */
#include <stdio.h>
#include <string.h>

#include <cgwb/cgwb.h>

int main(int argc, char **argv) {
  const char *name = argc > 2 ? argv[2] : "markowitz";
  cg_order ord = {{{0, NULL, NULL, 0}}, 1, 0, 0}; /* one rule, ties to the highest id */
  cg_error e;
  cg_cost c = {0};
  cg_jac J = {0};
  cg_tape *t;
  cg_graph *g = NULL;
  cg_lin *lg = NULL;
  int rc = 1;
  if (argc < 2 || argc > 3) return fprintf(stderr, "usage: %s TAPE [ORDERING]\n", argv[0]), 2;
  if ((ord.rule[0].kind = cg_ordering_find(name, strlen(name), CG_MODE_VERTEX)) < 0)
    return fprintf(stderr, "%s: no vertex ordering of that name\n", name), 2;
  if (!(t = cg_tape_load(NULL, argv[1], &e))) return fprintf(stderr, "%s\n", e.msg), 2;
  if ((g = cg_graph_build(NULL, t, NULL, NULL, &e)) && (lg = cg_lin_from_graph(g, &e)) &&
      !cg_lin_eliminate(lg, &ord, &c, NULL, NULL, &e) && !cg_lin_jac_bipartite(lg, &J, &e)) {
    printf("adds %llu\n", (unsigned long long)c.adds);
    printf("fill %llu\n", (unsigned long long)c.fill);
    printf("mults %llu\n", (unsigned long long)c.mults);
    printf("mults_nontrivial %llu\n", (unsigned long long)c.mults_nontrivial);
    printf("nnz %llu\n", (unsigned long long)J.nnz);
    printf("steps %llu\n", (unsigned long long)c.steps);
    rc = 0;
  } else
    fprintf(stderr, "%s\n", e.msg);
  if (lg) cg_jac_free(lg->A, &J);
  cg_lin_free(lg);
  cg_graph_free(g);
  cg_tape_free(t);
  return rc;
}
