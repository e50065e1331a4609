/* pbs.h: a benchmark harness header in the style of the suites numerical
 * kernels come from (written for cgwb's tests): sizes chosen by macros,
 * arrays declared through macros that expand to fixed or C99 variable
 * dimensions, a timer, a dump of results on stderr. */
#ifndef PBS_H
#define PBS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/time.h>

#ifndef PBS_PAD
# define PBS_PAD 0
#endif

#ifdef PBS_C99_PROTOTYPES
# define PBS_DIM(fixed, runtime) runtime
#else
# define PBS_DIM(fixed, runtime) (fixed)
#endif

#define PBS_1D(v, n1, r1) v[PBS_DIM(n1, r1) + PBS_PAD]
#define PBS_2D(v, n1, n2, r1, r2) v[PBS_DIM(n1, r1) + PBS_PAD][PBS_DIM(n2, r2) + PBS_PAD]
#define PBS_3D(v, n1, n2, n3, r1, r2, r3) \
  v[PBS_DIM(n1, r1) + PBS_PAD][PBS_DIM(n2, r2) + PBS_PAD][PBS_DIM(n3, r3) + PBS_PAD]

#define PBS_ALLOC_2D(type, n1, n2) ((type (*)[n1 + PBS_PAD][n2 + PBS_PAD]) pbs_alloc((n1) * (n2), sizeof(type)))
#define PBS_ALLOC_3D(type, n1, n2, n3) \
  ((type (*)[n1 + PBS_PAD][n2 + PBS_PAD][n3 + PBS_PAD]) pbs_alloc((n1) * (n2) * (n3), sizeof(type)))

#ifndef REAL
# define REAL double
# define REAL_FMT "%0.6lf "
# define SQRT_OF sqrt
# define EXP_OF exp
#endif
#define SCALAR(x) x

#ifdef PBS_TIME
# define PBS_TIMER_START() pbs_timer_start()
# define PBS_TIMER_STOP() pbs_timer_stop()
# define PBS_TIMER_PRINT() pbs_timer_print()
#else
# define PBS_TIMER_START()
# define PBS_TIMER_STOP()
# define PBS_TIMER_PRINT()
#endif

#define PBS_KEEP(x) if (argc > 42 && !strcmp(argv[0], "")) x

static double pbs_t0, pbs_t1;

static double pbs_now(void)
{
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (double) tv.tv_sec + (double) tv.tv_usec * 1.0e-6;
}

static void pbs_timer_start(void) { pbs_t0 = pbs_now(); }
static void pbs_timer_stop(void) { pbs_t1 = pbs_now(); }
static void pbs_timer_print(void) { printf("%0.6f\n", pbs_t1 - pbs_t0); }

static void *pbs_alloc(size_t n, size_t size)
{
  void *p = calloc(n, size);
  if (!p) {
    fprintf(stderr, "[pbs] cannot allocate %zu cells\n", n);
    exit(1);
  }
  return p;
}

#define PBS_DUMP_BEGIN(name) fprintf(stderr, "begin dump: %s", name)
#define PBS_DUMP_END(name) fprintf(stderr, "\nend   dump: %s\n", name)

#endif
