/* test_sparse.c: C unit tests of sparse location spaces (csrc/tape/cg_sparse.c,
 * the live-range passes of cg_stats.c): a tape naming locations up to 4e9
 * loads into a dense store of the locations it uses, with vector runs, death
 * ranges and take_stock_op runs kept; writers give back the file's numbers;
 * statistics need memory of the locations used; every allocation failing in
 * turn gives CG_ENOMEM and leaks nothing.  No allocation may exceed 64 MiB,
 * so that a store sized by the highest location fails at once.
 * Prints "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tape/cg_tape.h"

/* The counting allocator, refusing any block over 64 MiB. */
static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  if (nsize > ((size_t)64 << 20)) return NULL;
  return counting_alloc(ud, ptr, osize, nsize);
}

/* y = x1 * 1 + x2 * 2 + x1 * 3 through a take_stock_op run, a vec_copy and a
 * vec_dot, with the final death notice over a store of 4e9 + 1 locations. */
static const char *SPARSE =
    "assign_ind 2000000000 1.5\n"
    "assign_ind 2000000001 2.5\n"
    "take_stock_op 3 3000000000 1 2 3\n"
    "vec_copy 100 2000000000 2\n"
    "assign_a 102 2000000000\n"
    "vec_dot 7 3000000000 100 3\n"
    "death_not 0 4000000000\n"
    "assign_dep 7\n";

/* What the text writer gives back: the same records, the same numbers. */
static const char *SPARSE_OUT =
    "# cgwb text tape: 2 independents, 1 dependents, 8 records\n"
    "assign_ind 2000000000 1.5\n"
    "assign_ind 2000000001 2.5\n"
    "take_stock_op 3 3000000000 1 2 3\n"
    "vec_copy 100 2000000000 2\n"
    "assign_a 102 2000000000\n"
    "vec_dot 7 3000000000 100 3\n"
    "death_not 0 4000000000\n"
    "assign_dep 7\n";

static char *slurp(const char *path) {
  FILE *fp = fopen(path, "rb");
  char *s = (char *)calloc(1, 4096);
  if (fp) {
    size_t n = fread(s, 1, 4095, fp);
    s[n] = '\0';
    fclose(fp);
  }
  return s;
}

/* Renumbered in increasing order: 0 7 100 101 102 2e9 2e9+1 3e9 .. 3e9+2 4e9. */
static void test_renumber(void) {
  counting c = {0, 0, 0};
  cg_alloc A = {capped_alloc, &c};
  cg_error e;
  cg_tape *t = check_tape_text(&A, "sparse.txt", SPARSE, &e);
  double y[1];
  char *s;
  CHECK(t != NULL);
  if (!t) return;
  CHECK(t->nstore == 11 && t->locmap != NULL);
  CHECK(t->locmap && t->locmap[0] == 0 && t->locmap[4] == 102 && t->locmap[10] == 4000000000u);
  CHECK(t->loc[0] == 5 && t->loc[1] == 6);               /* assign_ind 2e9, 2e9 + 1 */
  CHECK(t->loc[2] == 3 && t->loc[3] == 7);               /* take_stock_op: count kept */
  CHECK(t->loc[4] == 2 && t->loc[5] == 5 && t->loc[6] == 2); /* vec_copy: count kept */
  CHECK(t->loc[13] == 0 && t->loc[14] == 10);            /* the death notice's range */
  CHECK(cg_tape_file_nstore(t) == 4000000001ull);
  CHECK(cg_tape_forward(t, NULL, y, NULL, &e) == CG_OK);
  CHECK(y[0] == 1.5 * 1 + 2.5 * 2 + 1.5 * 3);
  CHECK(cg_write_text(t, "spec-c-sparse.txt", &e) == CG_OK);
  s = slurp("spec-c-sparse.txt");
  CHECK(strcmp(s, SPARSE_OUT) == 0);
  free(s);
  CHECK(cg_write_classic(t, "spec-c-sparse.tap", &e) == CG_OK);
  cg_tape_free(t);
  t = cg_tape_load(&A, "spec-c-sparse.tap", &e); /* the same numbers, from a classic tape */
  CHECK(t && t->nstore == 11 && t->info.max_live == 4000000001ull);
  if (t) CHECK(cg_write_text(t, "spec-c-sparse.txt", &e) == CG_OK);
  s = slurp("spec-c-sparse.txt");
  CHECK(strcmp(s, SPARSE_OUT) == 0);
  free(s);
  cg_tape_free(t);
  CHECK(c.live == 0);
  remove("spec-c-sparse.txt");
  remove("spec-c-sparse.tap");
}

/* Ordinary tapes keep their numbers; so does a store of up to 2^20. */
static void test_dense_kept(void) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "d.txt", "assign_ind 1048575 1.0\nassign_dep 1048575\n", &e);
  CHECK(t && t->locmap == NULL && t->nstore == 1048576);
  cg_tape_free(t);
  t = check_tape_text(NULL, "d.txt", "assign_ind 1048576 1.0\nassign_dep 1048576\n", &e);
  CHECK(t && t->locmap != NULL && t->nstore == 1);
  cg_tape_free(t);
  /* few records, but vector runs that fill a quarter of the store: dense */
  t = check_tape_text(NULL, "d.txt",
                      "assign_ind 2000000 1.0\nvec_copy 0 2000000 300000\nassign_dep 0\n", &e);
  CHECK(t && t->locmap == NULL && t->nstore == 2300000);
  cg_tape_free(t);
  /* a run past 2^32: not renumbered (32-bit keys would wrap); later stages refuse it */
  t = check_tape_text(NULL, "d.txt",
                      "assign_ind 4294967294 1.0\nvec_copy 4294967290 4294967294 100\n", &e);
  CHECK(t && t->locmap == NULL && t->nstore == 4294967394ull);
  cg_tape_free(t);
}

/* Records that address the store through values make a sparse tape an error. */
static void test_refused(void) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "r.txt",
                               "assign_ind 3000000000 1.0\nassign_d 5 3000000000\n"
                               "ref_assign_d_zero 5\nassign_dep 3000000000\n",
                               &e);
  CHECK(t == NULL && e.code == CG_EFORMAT);
  CHECK(strstr(e.msg, "r.txt: record 2: ref_assign_d_zero addresses locations through values"));
  cg_tape_free(t);
}

/* Statistics of the sparse tape: max_loc is the file's, peak live exact. */
static void test_stats(void) {
  counting c = {0, 0, 0};
  cg_alloc A = {capped_alloc, &c};
  cg_error e;
  cg_stats s;
  FILE *fp = fopen("spec-c-sparse.txt", "wb");
  fputs(SPARSE, fp);
  fclose(fp);
  CHECK(cg_tape_stats(&A, "spec-c-sparse.txt", &s, &e) == CG_OK);
  CHECK(s.max_loc == 3000000003ull && s.records == 8);
  CHECK(s.peak_live == 7); /* x1 x2, three constants, two copies, then x2 dies and 102 comes */
  CHECK(c.live == 0);
  remove("spec-c-sparse.txt");
}

/* Every allocation of loading (renumbering included) and of statistics
 * fails in turn: a clean CG_ENOMEM (or a peak left 0), nothing leaked. */
static void test_oom(void) {
  long k;
  int bad = 0, leaks = 0;
  FILE *fp = fopen("spec-c-sparse.txt", "wb");
  fputs(SPARSE, fp);
  fclose(fp);
  for (k = 1; k < 200; k++) {
    counting c = {0, k, 0};
    cg_alloc A = {capped_alloc, &c};
    cg_error e;
    cg_stats s;
    cg_tape *t = cg_tape_load(&A, "spec-c-sparse.txt", &e);
    if (!t && e.code != CG_ENOMEM) bad++;
    cg_tape_free(t);
    if (c.live) leaks++;
    c.calls = 0, c.live = 0;
    if (cg_tape_stats(&A, "spec-c-sparse.txt", &s, &e) != CG_OK && e.code != CG_ENOMEM) bad++;
    if (c.live) leaks++;
  }
  CHECK(bad == 0 && leaks == 0);
  remove("spec-c-sparse.txt");
}

/* A record whose counts the file cannot hold (take_stock_op of 16e6
 * constants, ext_diff_v2 of 16e6 locations) is refused before anything is
 * allocated for it, in both formats that carry such counts in the record;
 * a classic tape of no independents frees its x0 at the size it took. */
static void test_claimed_counts(void) {
  static const unsigned char rec[] = {39, 0x00, 0x24, 0xf4, 0x00, 0, 0, 0, 0}; /* 16e6 at 0 */
  static const unsigned char zeros[4 + 8 * 16] = {0};
  counting c = {0, 0, 0};
  cg_alloc A = {capped_alloc, &c};
  cg_error e;
  cg_tape *t;
  FILE *fp = fopen("spec-c-claim.tap", "wb");
  fprintf(fp, "%10d%10d%10d%10d%10d%10d%10d%10d", 0, 0, 0, 65536, 1, 141, 1, 0);
  fwrite(rec, 1, sizeof rec, fp);
  fwrite(zeros, 1, sizeof zeros, fp); /* padding, then 16 of the 16e6 constants */
  fclose(fp);
  t = cg_tape_load(&A, "spec-c-claim.tap", &e);
  CHECK(t == NULL && e.code == CG_EFORMAT);
  CHECK(strstr(e.msg, "record 0 (byte 80): truncated classic tape: the record runs past") != NULL);
  remove("spec-c-claim.tap");
  t = check_tape_text(&A, "claim.txt", "take_stock_op 16000000 0 1.0 2.0\n", &e);
  CHECK(t == NULL && e.code == CG_EFORMAT && strstr(e.msg, "claim.txt:1: too few operands"));
  t = check_tape_text(&A, "claim.txt", "ext_diff_v2 0 16000000 1 2 3\n", &e);
  CHECK(t == NULL && e.code == CG_EFORMAT && strstr(e.msg, "claim.txt:1: too few operands"));
  CHECK(c.live == 0);
}

int main(void) {
  test_renumber();
  test_dense_kept();
  test_refused();
  test_stats();
  test_oom();
  test_claimed_counts();
  return check_report("test_sparse");
}
