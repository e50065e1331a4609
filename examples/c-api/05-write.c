/* examples/c-api/05-write.c: writes what the stages made: the Jacobian of a
 * tape (Markowitz vertex elimination) as a Matrix Market file, byte for byte
 * what `cgwb jacobian TAPE -o J.mtx` writes, and the tape as a text tape, what
 * `cgwb convert TAPE T.txt` writes (doc/formats.md).  Each file is written
 * under a temporary name and renamed into place, so a failure leaves none.
 * doc/c-api.md, "Writing".
 *   cc 05-write.c $(pkg-config --cflags --libs cgwb) -o 05-write */
#include <stdio.h>

#include <cgwb/cgwb.h>

int main(int argc, char **argv) {
  cg_order ord = {{{CG_ORD_MARKOWITZ, NULL, NULL, 0}}, 1, 0, 0};
  cg_error e;
  cg_jac J = {0};
  cg_tape *t;
  cg_graph *g = NULL;
  cg_lin *lg = NULL;
  int rc = 1;
  if (argc != 4) return fprintf(stderr, "usage: %s TAPE J.mtx T.txt\n", argv[0]), 2;
  if (!(t = cg_tape_load(NULL, argv[1], &e))) return fprintf(stderr, "%s\n", e.msg), 2;
  if ((g = cg_graph_build(NULL, t, NULL, NULL, &e)) && (lg = cg_lin_from_graph(g, &e)) &&
      !cg_lin_eliminate(lg, &ord, NULL, NULL, NULL, &e) && !cg_lin_jac_bipartite(lg, &J, &e) &&
      !cg_jac_write_mtx(&J, argv[2], &e) && !cg_write_text(t, argv[3], &e))
    rc = 0;
  else
    fprintf(stderr, "%s\n", e.msg);
  if (lg) cg_jac_free(lg->A, &J);
  cg_lin_free(lg);
  cg_graph_free(g);
  cg_tape_free(t);
  return rc;
}
