/* cgwb_decode: times cgwb's tape layer on one tape.
 * usage: cgwb_decode TAPE [XFILE] REPEATS
 * Prints lines "stream|batch|run|load|forward RECORDS SECONDS maxrss_kb":
 * streaming decode of every record (cg_reader_next, cg_reader_next_batch,
 * cg_reader_next_run into arrays of 1024 records reused from run to run),
 * loading into memory, forward evaluation (best of REPEATS). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"

#include "tape/cg_tape.h"

static long maxrss(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

#define RUN_RECS 1024 /* the arrays stay in the L1 cache */
static uint8_t run_op[RUN_RECS];
static uint32_t run_loc[4 * RUN_RECS];
static double run_val[2 * RUN_RECS];

/* Every record through cg_reader_next_run (the struct-of-arrays form, into
 * arrays a consumer would empty after each call), the others one at a time. */
static int stream_runs(cg_reader *R, unsigned long long *nrec, cg_error *e) {
  cg_run u = {run_op, run_loc, run_val, RUN_RECS, 4 * RUN_RECS, 2 * RUN_RECS, 0, 0, 0, 0};
  cg_rec rec;
  int rc;
  for (;;) {
    while ((rc = cg_reader_next_run(R, &u, e)) > 0) {
      *nrec += (unsigned long long)rc;
      u.nop = u.nloc = u.nval = 0;
    }
    if (rc < 0) return rc;
    if ((rc = cg_reader_next(R, &rec, e)) != 1) return rc;
    (*nrec)++;
  }
}

/* Best time of streaming every record through the reader, one record per
 * cg_reader_next call (mode 0), in cg_reader_next_batch runs (1) or through
 * cg_reader_next_run (2). */
static double time_stream(const char *path, int reps, int mode, unsigned long long *nrec) {
  double best = 1e30;
  int r;
  for (r = 0; r < reps; r++) {
    cg_error e;
    cg_rec rec[256];
    double t0 = now(), t;
    int rc;
    cg_reader *R = cg_reader_open(NULL, path, &e);
    if (!R) {
      fprintf(stderr, "%s\n", e.msg);
      exit(2);
    }
    *nrec = 0;
    if (mode == 2)
      rc = stream_runs(R, nrec, &e);
    else if (mode == 1)
      while ((rc = cg_reader_next_batch(R, rec, 256, &e)) > 0) *nrec += (unsigned long long)rc;
    else
      while ((rc = cg_reader_next(R, rec, &e)) == 1) (*nrec)++;
    cg_reader_close(R);
    if (rc < 0) {
      fprintf(stderr, "%s\n", e.msg);
      exit(2);
    }
    t = now() - t0;
    if (t < best) best = t;
  }
  return best;
}

int main(int argc, char **argv) {
  cg_error e;
  cg_tape *t;
  unsigned long long nrec = 0;
  double ts, tl, tf = 1e30, t0, *x = NULL, *y, sum = 0;
  int reps, r;
  size_t j;
  if (argc < 3) {
    fprintf(stderr, "usage: cgwb_decode TAPE [XFILE] REPEATS\n");
    return 2;
  }
  reps = atoi(argv[argc - 1]);
  ts = time_stream(argv[1], reps, 0, &nrec);
  printf("stream %llu %.6f %ld\n", nrec, ts, maxrss());
  ts = time_stream(argv[1], reps, 1, &nrec);
  printf("batch %llu %.6f %ld\n", nrec, ts, maxrss());
  ts = time_stream(argv[1], reps, 2, &nrec);
  printf("run %llu %.6f %ld\n", nrec, ts, maxrss());
  t0 = now();
  t = cg_tape_load(NULL, argv[1], &e);
  tl = now() - t0;
  if (!t) {
    fprintf(stderr, "%s\n", e.msg);
    return 2;
  }
  printf("load %zu %.6f %ld\n", t->nops, tl, maxrss());
  if (argc == 4) x = read_x(argv[2], (size_t)t->n_indep);
  y = (double *)calloc(t->n_dep ? t->n_dep : 1, sizeof *y);
  for (r = 0; r < reps; r++) {
    double s = now(), d;
    if (cg_tape_forward(t, x, y, NULL, &e)) {
      fprintf(stderr, "%s\n", e.msg);
      return 2;
    }
    d = now() - s;
    if (d < tf) tf = d;
  }
  for (j = 0; j < t->n_dep; j++) sum += y[j];
  printf("forward %zu %.6f %ld %.17g\n", t->nops, tf, maxrss(), sum);
  cg_tape_free(t);
  free(x);
  free(y);
  return 0;
}
