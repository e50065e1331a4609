/*
 * common.h -- shared driver of the ADOL-C example programs (bratu, shallow, cavity).
 *
 * Each program defines its function once, as a template over the scalar type
 * (double for the plain evaluation, adouble for taping), and calls
 * ex_record() to
 *   1. evaluate the function in plain double at x0,
 *   2. chdir into OUTDIR and record the tape there with trace_on(tag) ...
 *      trace_off(1), so the files ADOLC-{Operations,Locations,Values}_<tag>.tap
 *      stay on disk (see doc/adolc-format.md),
 *   3. re-evaluate the tape with zos_forward in the same process (a process
 *      that only READS a disk tape deletes it at exit) and compare with step 1,
 *   4. write <name>.x (x0) and <name>.y (the dependents from zos_forward),
 *      one value per line, %.17g,
 *   5. with --stats, print ADOL-C's tape statistics and an opcode histogram
 *      counted from the Operations file.
 *
 * Common command line: prog [--grid NX NY] [--tag T] [--stats] [PROGRAM OPTIONS] OUTDIR
 * Exit status: 0 success, 1 runtime error (ADOL-C failure, mismatch, I/O), 2 bad usage.
 */
#ifndef CGWB_EXAMPLES_ADOLC_COMMON_H
#define CGWB_EXAMPLES_ADOLC_COMMON_H

#include <adolc/adolc.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

/* Options every example program understands. */
struct ExOptions {
    int nx, ny;          /* grid (meaning documented by each program) */
    int tag;             /* ADOL-C tape tag */
    int stats;           /* --stats: print tape statistics to stdout */
    const char *outdir;  /* where the tape and the .x/.y files go */
};

static inline void ex_usage_exit(const char *usage)
{
    fprintf(stderr, "usage: %s\n", usage);
    exit(2);
}

/* Parses a decimal int in [lo, hi]; exits with status 2 on anything else. */
static inline int ex_int_arg(const char *s, int lo, int hi, const char *usage)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "bad integer argument '%s' (expected %d..%d)\n", s, lo, hi);
        ex_usage_exit(usage);
    }
    return (int)v;
}

/* Parses a finite double; exits with status 2 on anything else. */
static inline double ex_double_arg(const char *s, const char *usage)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) {
        fprintf(stderr, "bad number argument '%s'\n", s);
        ex_usage_exit(usage);
    }
    return v;
}

/*
 * Handles the common option at argv[*i] (advancing *i over its values).
 * Returns 1 if it was a common option or the OUTDIR, 0 if the caller must
 * look at it.  Grid sizes are limited to 1..100000 per direction and 5e7 points.
 */
static inline int ex_common_option(int argc, char **argv, int *i, ExOptions *o, const char *usage)
{
    const char *a = argv[*i];
    if (strcmp(a, "--grid") == 0) {
        if (*i + 2 >= argc) ex_usage_exit(usage);
        o->nx = ex_int_arg(argv[++*i], 1, 100000, usage);
        o->ny = ex_int_arg(argv[++*i], 1, 100000, usage);
        if ((long)o->nx * o->ny > 50000000L) {   /* keeps every index in an int */
            fprintf(stderr, "grid %d x %d too large (at most 5e7 points)\n", o->nx, o->ny);
            ex_usage_exit(usage);
        }
        return 1;
    }
    if (strcmp(a, "--tag") == 0) {
        if (*i + 1 >= argc) ex_usage_exit(usage);
        o->tag = ex_int_arg(argv[++*i], 0, 32767, usage);   /* ADOL-C tags are shorts */
        return 1;
    }
    if (strcmp(a, "--stats") == 0) { o->stats = 1; return 1; }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
        printf("usage: %s\n", usage);
        exit(0);
    }
    if (a[0] == '-' && a[1] != '\0') return 0;   /* program option or unknown */
    if (o->outdir) ex_usage_exit(usage);         /* two OUTDIRs */
    o->outdir = a;
    return 1;
}

/* Writes v[0..n) one per line, %.17g. */
static inline int ex_write_vector(const char *path, const double *v, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) { fprintf(stderr, "%s: %s\n", path, strerror(errno)); return -1; }
    for (int k = 0; k < n; k++) fprintf(f, "%.17g\n", v[k]);
    if (fclose(f) != 0) { fprintf(stderr, "%s: write error\n", path); return -1; }
    return 0;
}

/* ADOL-C 2.7.2 opcode names (reference section 5), for the --stats histogram. */
static inline const char *ex_opname(int op)
{
    static const char *names[] = {
        "death_not", "assign_ind", "assign_dep", "assign_a", "assign_d", "eq_plus_d",
        "eq_plus_a", "eq_min_d", "eq_min_a", "eq_mult_d", "eq_mult_a", "plus_a_a",
        "plus_d_a", "min_a_a", "min_d_a", "mult_a_a", "mult_d_a", "div_a_a", "div_d_a",
        "exp_op", "cos_op", "sin_op", "atan_op", "log_op", "pow_op", "asin_op", "acos_op",
        "sqrt_op", "asinh_op", "acosh_op", "atanh_op", "gen_quad", "end_of_tape",
        "start_of_tape", "end_of_op", "end_of_int", "end_of_val", "cond_assign",
        "cond_assign_s", "take_stock_op", "assign_d_one", "assign_d_zero", "incr_a",
        "decr_a", "neg_sign_a", "pos_sign_a", "min_op", "abs_val", "eq_zero", "neq_zero",
        "le_zero", "gt_zero", "ge_zero", "lt_zero", "eq_plus_prod", "eq_min_prod"
    };
    if (op >= 0 && op < (int)(sizeof names / sizeof names[0])) return names[op];
    return "other";
}

/*
 * Prints ADOL-C's stats for the tape and an opcode histogram counted from the
 * Operations file (one byte per opcode).  "operations" excludes the block
 * markers end_of_op/end_of_int/end_of_val (34-36) and start/end_of_tape.
 */
static inline int ex_print_stats(const char *name, int tag)
{
    size_t st[STAT_SIZE];
    char path[64];
    long count[256] = {0};
    long total = 0;
    int c;
    tapestats((short)tag, st);
    printf("%s: tag %d  NUM_INDEPENDENTS %zu  NUM_DEPENDENTS %zu  NUM_MAX_LIVES %zu  "
           "TAY_STACK_SIZE %zu\n", name, tag, st[NUM_INDEPENDENTS], st[NUM_DEPENDENTS],
           st[NUM_MAX_LIVES], st[TAY_STACK_SIZE]);
    printf("%s: NUM_OPERATIONS %zu (bytes)  NUM_LOCATIONS %zu  NUM_VALUES %zu  NUM_EQ_PROD %zu\n",
           name, st[NUM_OPERATIONS], st[NUM_LOCATIONS], st[NUM_VALUES], st[NUM_EQ_PROD]);
    snprintf(path, sizeof path, "ADOLC-Operations_%d.tap", tag);
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "%s: %s\n", path, strerror(errno)); return -1; }
    while ((c = getc(f)) != EOF) count[c]++;
    fclose(f);
    for (c = 0; c < 256; c++)
        if (c < 32 || c > 36) total += count[c];
    printf("%s: operations (without start/end/block markers): %ld\n", name, total);
    for (c = 0; c < 256; c++) {
        if (count[c] == 0 || (c >= 32 && c <= 36)) continue;
        printf("  %-14s %3d %10ld %6.1f%%\n", ex_opname(c), c, count[c], 100.0 * count[c] / total);
    }
    printf("  markers: end_of_op %ld, end_of_int %ld, end_of_val %ld\n",
           count[34], count[35], count[36]);
    return 0;
}

/* max_k |a_k - b_k| relative to max(1, |b_k|); NaN if any entry is not finite. */
static inline double ex_max_reldiff(const double *a, const double *b, int n)
{
    double m = 0.0;
    for (int k = 0; k < n; k++) {
        if (!isfinite(a[k]) || !isfinite(b[k])) return NAN;
        double d = fabs(a[k] - b[k]) / fmax(1.0, fabs(b[k]));
        if (d > m) m = d;
    }
    return m;
}

/*
 * Records fn (a functor taking (const adouble *x, adouble *y)) on tape `tag`
 * in o->outdir at x0, checks zos_forward against yplain (the plain double
 * evaluation) and writes <name>.x and <name>.y.  Returns the exit status.
 */
template <class Fn>
static inline int ex_record(const char *name, const ExOptions *o, int n, int m,
                     const std::vector<double> &x0, const std::vector<double> &yplain, Fn fn)
{
    std::vector<double> ytaped(m), yzos(m);
    char path[512];
    if (mkdir(o->outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: %s\n", o->outdir, strerror(errno));
        return 1;
    }
    if (chdir(o->outdir) != 0) {   /* ADOL-C writes its files into the cwd */
        fprintf(stderr, "%s: %s\n", o->outdir, strerror(errno));
        return 1;
    }
    trace_on((short)o->tag);
    {
        adouble *ax = new adouble[n];   /* each default construction tapes assign_d_zero */
        adouble *ay = new adouble[m];
        for (int k = 0; k < n; k++) ax[k] <<= x0[k];
        fn((const adouble *)ax, ay);
        for (int k = 0; k < m; k++) ay[k] >>= ytaped[k];
        delete[] ay;
        delete[] ax;
    }
    trace_off(1);                      /* 1: keep the files on disk */

    int rc = zos_forward((short)o->tag, m, n, 0, x0.data(), yzos.data());
    if (rc < 0) {
        fprintf(stderr, "%s: zos_forward failed (rc %d)\n", name, rc);
        return 1;
    }
    double dtape = ex_max_reldiff(ytaped.data(), yplain.data(), m);
    double dzos = ex_max_reldiff(yzos.data(), yplain.data(), m);
    if (o->stats) {
        printf("%s: n %d  m %d  max rel. diff plain double vs taping %.3g, vs zos_forward %.3g\n",
               name, n, m, dtape, dzos);
        if (ex_print_stats(name, o->tag) != 0) return 1;
    }
    if (!(dzos <= 1e-12) || !(dtape <= 1e-12)) {   /* also catches NaN */
        fprintf(stderr, "%s: tape and plain evaluation differ (taping %.3g, zos_forward %.3g)\n",
                name, dtape, dzos);
        return 1;
    }
    snprintf(path, sizeof path, "%s.x", name);
    if (ex_write_vector(path, x0.data(), n) != 0) return 1;
    snprintf(path, sizeof path, "%s.y", name);
    if (ex_write_vector(path, yzos.data(), m) != 0) return 1;
    return 0;
}

#endif
