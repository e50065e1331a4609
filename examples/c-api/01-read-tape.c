/* examples/c-api/01-read-tape.c: reads a tape (any format, detected from its
 * content) and evaluates it at the point it was recorded at.  Prints the
 * dependents one per line (%.17g), as `cgwb eval TAPE` does, and a summary on
 * stderr.  doc/c-api.md, "Reading a tape".
 *   cc 01-read-tape.c $(pkg-config --cflags --libs cgwb) -o 01-read-tape */
#include <stdio.h>

#include <cgwb/cgwb.h>

int main(int argc, char **argv) {
  cg_error e;
  cg_tape *t;
  double *y;
  uint64_t j;
  if (argc != 2) return fprintf(stderr, "usage: %s TAPE\n", argv[0]), 2;
  if (!(t = cg_tape_load(NULL, argv[1], &e))) /* NULL: the default allocator */
    return fprintf(stderr, "%s\n", e.msg), 2;
  if (!t->has_x0) {
    fprintf(stderr, "%s: no values of the independents (an ADOL-C tape)\n", argv[1]);
    return cg_tape_free(t), 2;
  }
  if (!(y = CG_NEW(t->A, double, t->n_dep))) return cg_tape_free(t), 1;
  if (cg_tape_forward(t, NULL, y, NULL, &e)) { /* NULL: at the tape's own x0 */
    fprintf(stderr, "%s\n", e.msg);
    return CG_FREE(t->A, y, double, t->n_dep), cg_tape_free(t), 1;
  }
  for (j = 0; j < t->n_dep; j++) printf("%.17g\n", y[j]);
  fprintf(stderr, "%s: %zu operations, %llu independents, %llu dependents\n", argv[1], t->nops,
          (unsigned long long)t->n_indep, (unsigned long long)t->n_dep);
  CG_FREE(t->A, y, double, t->n_dep);
  cg_tape_free(t);
  return 0;
}
