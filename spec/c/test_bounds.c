/* test_bounds.c: every limit a reader checks, tried exactly at the bound
 * (accepted) and one past it (refused, with a message naming the file and
 * the record or line).  Classic tapes (Bischof & Hu 1991, sec. 1.3; the format
 * of doc/formats.md) are written by cg_write_classic from text tapes and
 * then patched byte by byte: the largest location at max live - 1 and at max
 * live, the header's counts off by one either way, a record length byte off
 * by one, the length-byte encoding at 30 and 31 constants, a constant cut
 * short.  Variable-length records: counts up to 2^24.  Text tapes:
 * locations up to 2^32 - 2, operand counts exact.  Graph files (.cg):
 * vertex ids up to 2^32 - 2.  ADOL-C sets (the recorded Bratu tape copied
 * to tag 9917 and its Locations header patched): NUM_MAX_LIVES at 1 + the
 * largest location and at that location, at 2^32 - 1 and 2^32;
 * NUM_LOCATIONS one off either way.
 * Prints "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elim/cg_lin.h"
#include "tape/cg_tape.h"
#include "check.h"

#define PATH "spec-c-bounds.tap"
#define HEADER 80

/* {==== classic tape files ====} */

/* The bytes of the classic tape written from a text tape; *n its size. */
static unsigned char *classic_bytes(const char *text, size_t *n) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "b.txt", text, &e);
  unsigned char *b = NULL;
  FILE *f;
  long sz;
  if (!t) {
    fprintf(stderr, "text tape refused: %s\n", e.msg);
    return NULL;
  }
  if (cg_write_classic(t, PATH, &e) == CG_OK && (f = fopen(PATH, "rb")) != NULL) {
    fseek(f, 0, SEEK_END);
    sz = ftell(f);
    rewind(f);
    b = (unsigned char *)malloc((size_t)sz);
    if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) free(b), b = NULL;
    fclose(f);
    *n = (size_t)sz;
  }
  cg_tape_free(t);
  return b;
}

/* Loads the bytes as a classic tape file: CG_OK, or the error code with
 * its message in msg. */
static int load_bytes(const unsigned char *b, size_t n, char *msg, size_t cap) {
  cg_error e;
  cg_tape *t;
  FILE *f = fopen(PATH, "wb");
  msg[0] = '\0';
  if (!f || fwrite(b, 1, n, f) != n) {
    if (f) fclose(f);
    return CG_EIO;
  }
  fclose(f);
  t = cg_tape_load(NULL, PATH, &e);
  if (t) {
    cg_tape_free(t);
    return CG_OK;
  }
  snprintf(msg, cap, "%s", e.msg);
  return e.code;
}

/* Header field f (1-based) as a number / set to v. */
static unsigned long long get_field(const unsigned char *b, int f) {
  char s[11];
  memcpy(s, b + (f - 1) * 10, 10);
  s[10] = '\0';
  return strtoull(s, NULL, 10);
}

static void set_field(unsigned char *b, int f, unsigned long long v) {
  char s[16];
  snprintf(s, sizeof s, "%10llu", v);
  memcpy(b + (f - 1) * 10, s, 10);
}

/* True if msg names the file and holds the phrase. */
static int names(const char *msg, const char *phrase) {
  return strstr(msg, PATH) != NULL && strstr(msg, phrase) != NULL;
}

/* Loads a copy of b with header field f moved by delta; returns the code. */
static int load_with_field(const unsigned char *b, size_t n, int f, long long delta, char *msg,
                           size_t cap) {
  unsigned char *c = (unsigned char *)malloc(n);
  int rc;
  if (!c) return CG_ENOMEM;
  memcpy(c, b, n);
  set_field(c, f, (unsigned long long)((long long)get_field(b, f) + delta));
  rc = load_bytes(c, n, msg, cap);
  free(c);
  return rc;
}

/* The largest location, 6, is first met in plus_a_a: max live 7 holds it,
 * 6 does not.  The reader numbers records from 0 (record 2 is plus_a_a, at
 * byte 80 + 2 x 8 + 2 x 6 = 108). */
static const char *LOCS =
    "assign_ind 0 1.5\nassign_ind 1 2.5\nplus_a_a 6 0 1\nassign_dep 6\n";

static void test_classic_location(void) {
  size_t n = 0;
  unsigned char *b = classic_bytes(LOCS, &n);
  char msg[600];
  CHECK(b != NULL);
  if (!b) return;
  CHECK(get_field(b, 5) == 7);
  CHECK(load_bytes(b, n, msg, sizeof msg) == CG_OK); /* location 6 < max live 7 */
  CHECK(load_with_field(b, n, 5, -1, msg, sizeof msg) == CG_EFORMAT);
  CHECK(names(msg, "record 2 (byte 108)") && strstr(msg, "operand location 6 >= max live 6"));
  CHECK(load_with_field(b, n, 5, +1, msg, sizeof msg) == CG_OK); /* room to spare is fine */
  free(b);
}

/* A location in an earlier record at the bound, a later record within it. */
static void test_classic_location_first(void) {
  size_t n = 0;
  unsigned char *b = classic_bytes("assign_ind 9 1.0\nassign_a 2 9\nassign_dep 2\n", &n);
  char msg[600];
  CHECK(b != NULL);
  if (!b) return;
  CHECK(get_field(b, 5) == 10 && load_bytes(b, n, msg, sizeof msg) == CG_OK);
  CHECK(load_with_field(b, n, 5, -1, msg, sizeof msg) == CG_EFORMAT);
  CHECK(names(msg, "record 0 (byte 88)") && strstr(msg, "operand location 9 >= max live 9"));
  free(b);
}

/* The counts of fields 3 (dependents) and 7 (operations) must hold exactly
 * (checked at the end: record 4, byte 128);
 * field 2 (independents) sizes x0, so one more or less moves the records and
 * the length check of field 6 refuses it. */
static void test_classic_counts(void) {
  size_t n = 0;
  unsigned char *b = classic_bytes(LOCS, &n);
  char msg[600];
  static const int fields[] = {3, 7};
  int i;
  CHECK(b != NULL);
  if (!b) return;
  CHECK(get_field(b, 2) == 2 && get_field(b, 3) == 1 && get_field(b, 7) == 4);
  for (i = 0; i < 2; i++) {
    CHECK(load_with_field(b, n, fields[i], +1, msg, sizeof msg) == CG_EFORMAT);
      CHECK(names(msg, "record 4 (byte 128)") && strstr(msg, "records hold 4, 2, 1"));
    CHECK(load_with_field(b, n, fields[i], -1, msg, sizeof msg) == CG_EFORMAT);
    CHECK(names(msg, "records hold 4, 2, 1"));
  }
  CHECK(load_with_field(b, n, 2, +1, msg, sizeof msg) == CG_EFORMAT && names(msg, "shorter than its header says"));
  CHECK(load_with_field(b, n, 2, -1, msg, sizeof msg) == CG_EFORMAT && names(msg, "record bytes"));
  CHECK(load_with_field(b, n, 6, +1, msg, sizeof msg) == CG_EFORMAT && names(msg, "truncated classic tape"));
  CHECK(load_with_field(b, n, 6, -1, msg, sizeof msg) == CG_EFORMAT && names(msg, "record bytes"));
  free(b);
}

/* Each record's trailing length byte, one more and one less. */
static void test_classic_record_length(void) {
  size_t n = 0, off, k = 0;
  unsigned char *b = classic_bytes(LOCS, &n);
  char msg[600];
  static const size_t len[] = {6, 6, 14, 6}; /* assign_ind, assign_ind, plus_a_a, assign_dep */
  CHECK(b != NULL);
  if (!b) return;
  off = HEADER + 2 * 8;
  for (k = 0; k < 4; k++) {
    size_t last = off + len[k] - 1; /* the length byte: record bytes less 2 */
    CHECK(b[last] == len[k] - 2);
    b[last]++;
    CHECK(load_bytes(b, n, msg, sizeof msg) == CG_EFORMAT && names(msg, "record length"));
    b[last] -= 2;
    CHECK(load_bytes(b, n, msg, sizeof msg) == CG_EFORMAT && names(msg, "record length"));
    b[last]++;
    CHECK(load_bytes(b, n, msg, sizeof msg) == CG_OK);
    off += len[k];
  }
  free(b);
}

/* take_stock_op with 30 constants has R = 248 (one length byte); with 31,
 * R = 256 (255, then R as uint32): both round-trip. */
static void test_classic_long_record(void) {
  int nc;
  for (nc = 30; nc <= 31; nc++) {
    char text[2048], *p = text;
    size_t n = 0;
    unsigned char *b;
    char msg[600];
    int i;
    p += sprintf(p, "assign_ind 0 1.0\ntake_stock_op %d 1", nc);
    for (i = 0; i < nc; i++) p += sprintf(p, " %d.5", i);
    sprintf(p, "\nplus_a_a 40 0 %d\nassign_dep 40\n", nc);
    b = classic_bytes(text, &n);
    CHECK(b != NULL);
    if (!b) continue;
    CHECK(load_bytes(b, n, msg, sizeof msg) == CG_OK);
    if (nc == 31) { /* the uint32 length sits before the 255 */
      size_t end = HEADER + 8 + 6 + 1 + 8 + 8 * 31 + 4;
      CHECK(b[end] == 255 && b[end - 4] == 0 && b[end - 3] == 1); /* 256 */
      b[end - 4]++;
      CHECK(load_bytes(b, n, msg, sizeof msg) == CG_EFORMAT && names(msg, "record length 257"));
    } else {
      size_t end = HEADER + 8 + 6 + 1 + 8 + 8 * 30;
      CHECK(b[end] == 248);
    }
    free(b);
  }
}

/* A constant cut short: field 6 shortened with the file so that only the
 * record can notice.  All of it: accepted; its last byte (the length byte)
 * or the last two missing: refused naming the record. */
static void test_classic_constants(void) {
  size_t n = 0;
  unsigned char *b = classic_bytes("assign_ind 0 1.0\nassign_dep 0\nassign_d 1 2.5\n", &n);
  char msg[600];
  size_t cut;
  CHECK(b != NULL);
  if (!b) return;
  CHECK(n == HEADER + 8 + 6 + 6 + 18 && load_bytes(b, n, msg, sizeof msg) == CG_OK);
  for (cut = 1; cut <= 2; cut++) {
    set_field(b, 6, get_field(b, 6) - 1);
    CHECK(load_bytes(b, n - cut, msg, sizeof msg) == CG_EFORMAT);
    CHECK(names(msg, "record 2 (byte 100)") && strstr(msg, "truncated classic tape"));
  }
  free(b);
}

/* {==== text tapes ====} */

static int text_rc(const char *text, char *msg, size_t cap) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "b.txt", text, &e);
  msg[0] = '\0';
  if (t) {
    cg_tape_free(t);
    return CG_OK;
  }
  snprintf(msg, cap, "%s", e.msg);
  return e.code;
}

/* {==== variable-length records ====} */

#define MAXVAR (1u << 24) /* cg_ops.c's largest variable-length record */

/* The counts of variable-length records: up to 2^24 accepted, past it
 * refused (ext_diff_v2's total is 8 + 2 (nin + nout) with k = 1: even, so
 * 2^24 + 2 is the first past it). */
static void test_var_counts(void) {
  uint32_t loc[16] = {0}, nl = 0, nv = 0;
  char msg[600];
  loc[0] = MAXVAR;
  CHECK(cg_rec_counts(CG_OP_take_stock_op, loc, 1, &nl, &nv) == 1 && nv == MAXVAR && nl == 2);
  loc[0] = MAXVAR + 1;
  CHECK(cg_rec_counts(CG_OP_take_stock_op, loc, 1, &nl, &nv) < 0);
  loc[0] = MAXVAR;
  CHECK(cg_rec_counts(CG_OP_ext_diff_iArr, loc, 1, &nl, &nv) == 1 && nl == 8 + MAXVAR);
  loc[0] = MAXVAR + 1;
  CHECK(cg_rec_counts(CG_OP_ext_diff_iArr, loc, 1, &nl, &nv) < 0);
  loc[0] = 0, loc[1] = MAXVAR; /* k at the bound: more locations wanted */
  CHECK(cg_rec_counts(CG_OP_ext_diff_v2, loc, 2, &nl, &nv) == 0 && nl == 5 + MAXVAR);
  loc[1] = MAXVAR + 1;
  CHECK(cg_rec_counts(CG_OP_ext_diff_v2, loc, 2, &nl, &nv) < 0);
  loc[1] = 1, loc[4] = 4194302, loc[5] = 4194302; /* 7 + 1 + 2 (nin + nout) = 2^24 */
  CHECK(cg_rec_counts(CG_OP_ext_diff_v2, loc, 6, &nl, &nv) == 1 && nl == MAXVAR);
  loc[5] = 4194303; /* 2^24 + 2 */
  CHECK(cg_rec_counts(CG_OP_ext_diff_v2, loc, 6, &nl, &nv) < 0);
  CHECK(text_rc("assign_ind 0 1.0\ntake_stock_op 16777217 1\n", msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "b.txt:2:") && strstr(msg, "absurd operand counts"));
}

/* Locations are 0 .. 2^32 - 2 (2^32 - 1 is the core's "none"). */
static void test_text_locations(void) {
  char msg[600];
  cg_reader *R;
  cg_rec r;
  cg_error e;
  static const char *at = "assign_ind 4294967294 1.0\nassign_dep 4294967294\n";
  static const char *past = "assign_ind 0 1.0\nassign_ind 4294967295 1.0\n";
  R = cg_text_open(NULL, "b.txt", at, strlen(at), &e);
  CHECK(R != NULL);
  if (R) {
    CHECK(cg_reader_next(R, &r, &e) == 1 && r.loc[0] == 4294967294u);
    cg_reader_close(R);
  }
  CHECK(text_rc(past, msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "b.txt:2:") && strstr(msg, "bad location '4294967295'"));
  CHECK(text_rc("assign_ind 0 1.0\nassign_a 1 -1\n", msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "b.txt:2:") && strstr(msg, "bad location '-1'"));
}

/* The operand counts: exactly the opcode's, not one more or one less. */
static void test_text_counts(void) {
  char msg[600];
  CHECK(text_rc("assign_ind 0 1.0\nplus_a_a 2 0 0\nassign_dep 2\n", msg, sizeof msg) == CG_OK);
  CHECK(text_rc("assign_ind 0 1.0\nplus_a_a 2 0 0 0\n", msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "b.txt:2:") && strstr(msg, "too many operands for plus_a_a"));
  CHECK(text_rc("assign_ind 0 1.0\nplus_a_a 2 0\n", msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "b.txt:2:") && strstr(msg, "missing location"));
  CHECK(text_rc("assign_ind 0 1.0\nplus_d_a 2 0\n", msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "b.txt:2:") && strstr(msg, "missing constant"));
  CHECK(text_rc("assign_ind 0 1.0\ntake_stock_op 2 1 0.5 1.5\nassign_dep 2\n", msg, sizeof msg) == CG_OK);
  CHECK(text_rc("assign_ind 0 1.0\ntake_stock_op 2 1 0.5 1.5 2.5\n", msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "b.txt:2:"));
  CHECK(text_rc("assign_ind 0 1.0\ntake_stock_op 2 1 0.5\n", msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "b.txt:2:") && strstr(msg, "missing constant"));
}

/* {==== graph files ====} */

static int cg_rc(const char *text, char *msg, size_t cap) {
  cg_error e;
  cg_lin *g = cg_lin_read_cg(NULL, "b.cg", text, strlen(text), &e);
  msg[0] = '\0';
  if (g) {
    cg_lin_free(g);
    return CG_OK;
  }
  snprintf(msg, cap, "%s", e.msg);
  return e.code;
}

/* Vertex ids 0 .. 2^32 - 2, as vertices, predecessors, X and Y entries. */
static void test_cg_ids(void) {
  char msg[600];
  CHECK(cg_rc("X: 0\nY: 4294967294\n4294967294: 0:2.5\n", msg, sizeof msg) == CG_OK);
  CHECK(cg_rc("X: 4294967293\nY: 4294967294\n4294967294: 4294967293:2.5\n", msg, sizeof msg) == CG_OK);
  CHECK(cg_rc("X: 0\nY: 4294967295\n4294967295: 0:2.5\n", msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "b.cg:2:") && strstr(msg, "vertex id out of range"));
  CHECK(cg_rc("X: 0\nY: 1\n1: 4294967295:2.5\n", msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "b.cg:3:") && strstr(msg, "vertex id out of range"));
  CHECK(cg_rc("X: 0\nY: 1\n4294967295: 0:2.5\n", msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "b.cg:3:") && strstr(msg, "vertex id out of range"));
}

/* {==== ADOL-C tape sets ====} */

#define AD_SRC "examples/tapes/ADOLC-%s_1.tap"
#define AD_DST "ADOLC-%s_9917.tap"
#define AD_OPS "ADOLC-Operations_9917.tap"
#define AD_MAXLIVE_AT (12 + 8 * 2) /* NUM_MAX_LIVES in the Locations header */
#define AD_NLOCS_AT (12 + 8 * 7)   /* NUM_LOCATIONS */

static const char *const AD_FILES[] = {"Operations", "Locations", "Values"};

static unsigned char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  unsigned char *b;
  long sz;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  sz = ftell(f);
  rewind(f);
  b = (unsigned char *)malloc(sz > 0 ? (size_t)sz : 1);
  if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) free(b), b = NULL;
  fclose(f);
  *n = (size_t)sz;
  return b;
}

static int write_file(const char *path, const unsigned char *b, size_t n) {
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(b, 1, n, f) == n;
  if (f) fclose(f);
  return ok;
}

static void put_u64(unsigned char *p, unsigned long long v) {
  int i;
  for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* Copies the recorded Bratu tape set to tag 9917 with the Locations header
 * field at `at` set to v (no change when at is 0). */
static int ad_copy(size_t at, unsigned long long v) {
  int i, ok = 1;
  for (i = 0; i < 3 && ok; i++) {
    char src[64], dst[64];
    size_t n = 0;
    unsigned char *b;
    snprintf(src, sizeof src, AD_SRC, AD_FILES[i]);
    snprintf(dst, sizeof dst, AD_DST, AD_FILES[i]);
    b = read_file(src, &n);
    if (!b) return 0;
    if (i == 1 && at) put_u64(b + at, v);
    ok = write_file(dst, b, n);
    free(b);
  }
  return ok;
}

static void ad_remove(void) {
  int i;
  for (i = 0; i < 3; i++) {
    char dst[64];
    snprintf(dst, sizeof dst, AD_DST, AD_FILES[i]);
    remove(dst);
  }
}

/* Streams every record of the copy; CG_OK or the code and message of the
 * first error.  *maxloc: the largest location read (canonical records). */
static int ad_stream(unsigned long long *maxloc, char *msg, size_t cap) {
  cg_error e;
  cg_rec r;
  cg_reader *R = cg_reader_open(NULL, AD_OPS, &e);
  int rc;
  uint32_t i;
  msg[0] = '\0';
  if (!R) {
    snprintf(msg, cap, "%s", e.msg);
    return e.code;
  }
  while ((rc = cg_reader_next(R, &r, &e)) == 1)
    for (i = 0; i < r.nloc; i++)
      if (maxloc && r.loc[i] > *maxloc) *maxloc = r.loc[i];
  cg_reader_close(R);
  if (rc < 0 || rc > 1) {
    snprintf(msg, cap, "%s", e.msg);
    return e.code;
  }
  return CG_OK;
}

/* The same through the bulk loader (its fast decoders). */
static int ad_load(char *msg, size_t cap) {
  cg_error e;
  cg_tape *t = cg_tape_load(NULL, AD_OPS, &e);
  msg[0] = '\0';
  if (t) {
    cg_tape_free(t);
    return CG_OK;
  }
  snprintf(msg, cap, "%s", e.msg);
  return e.code;
}

/* NUM_MAX_LIVES exactly 1 + the largest location: accepted by the streaming
 * reader and the loader; one less: refused by both, naming the Operations
 * file, the record and the location. */
static void test_adolc_max_live(void) {
  unsigned long long maxloc = 0;
  char msg[600], want[96];
  CHECK(ad_copy(0, 0) && ad_stream(&maxloc, msg, sizeof msg) == CG_OK);
  CHECK(maxloc > 0 && maxloc < 8192);
  CHECK(ad_copy(AD_MAXLIVE_AT, maxloc + 1));
  CHECK(ad_stream(NULL, msg, sizeof msg) == CG_OK);
  CHECK(ad_load(msg, sizeof msg) == CG_OK);
  CHECK(ad_copy(AD_MAXLIVE_AT, maxloc));
  snprintf(want, sizeof want, "operand location %llu >= store size %llu", maxloc, maxloc);
  CHECK(ad_stream(NULL, msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, AD_OPS ": record ") && strstr(msg, want));
  CHECK(ad_load(msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, AD_OPS ": record ") && strstr(msg, want));
  /* a locint is 32 bits: a store of 2^32 - 1 locations is the largest */
  CHECK(ad_copy(AD_MAXLIVE_AT, 0xffffffffull) && ad_stream(NULL, msg, sizeof msg) == CG_OK);
  CHECK(ad_copy(AD_MAXLIVE_AT, 0x100000000ull) && ad_stream(NULL, msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "ADOLC-Locations_9917.tap: store capacity 4294967296 beyond 32-bit locations"));
  ad_remove();
}

/* NUM_LOCATIONS must equal the Locations file's count, not one more or less. */
static void test_adolc_sizes(void) {
  size_t n = 0;
  unsigned char *b = read_file("examples/tapes/ADOLC-Locations_1.tap", &n);
  unsigned long long nlocs = 0;
  char msg[600];
  int i;
  CHECK(b != NULL);
  if (!b) return;
  for (i = 7; i >= 0; i--) nlocs = nlocs << 8 | b[AD_NLOCS_AT + i];
  free(b);
  CHECK(nlocs == n / 4);
  CHECK(ad_copy(AD_NLOCS_AT, nlocs) && ad_stream(NULL, msg, sizeof msg) == CG_OK);
  CHECK(ad_copy(AD_NLOCS_AT, nlocs + 1) && ad_stream(NULL, msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "ADOLC-Locations_9917.tap: ") && strstr(msg, "truncated"));
  CHECK(ad_copy(AD_NLOCS_AT, nlocs - 1) && ad_stream(NULL, msg, sizeof msg) == CG_EFORMAT);
  CHECK(strstr(msg, "ADOLC-Locations_9917.tap: ") && strstr(msg, "files of different tapes"));
  ad_remove();
}

int main(void) {
  test_classic_location();
  test_classic_location_first();
  test_classic_counts();
  test_classic_record_length();
  test_classic_long_record();
  test_classic_constants();
  test_var_counts();
  test_text_locations();
  test_text_counts();
  test_cg_ids();
  test_adolc_max_live();
  test_adolc_sizes();
  remove(PATH);
  return check_report("test_bounds");
}
