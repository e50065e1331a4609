/*
 * cg_tape.h: tapes, streaming readers, writers, forward evaluation, statistics.
 *
 * A tape is a sequence of records (cg_rec): an opcode of cg_ops.h, its
 * locations in canonical order (outputs first) and its constants.  Three file
 * formats are read (ADOL-C 2.x tape sets, classic tapes of Bischof & Hu 1991, sec. 1.3,
 * text tapes), the last two are written; doc/formats.md defines them.
 *
 * Readers stream: cg_reader_next hands out one record at a time (and
 * cg_reader_next_batch a run of them) with O(1) memory beyond the store-size
 * arrays, so statistics of a tape larger than memory can be computed.
 * cg_tape_load keeps a whole tape in memory as three flat arrays (opcodes,
 * locations, constants): about 14 bytes per operation.
 */
#ifndef CG_TAPE_H
#define CG_TAPE_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include "../util/cg_util.h"
#include "cg_ops.h"

enum { CG_FMT_ADOLC = 1, CG_FMT_CLASSIC = 2, CG_FMT_TEXT = 3 };

/* One record.  loc/val point into the reader's (or tape's) buffers and are
 * valid until the next call. */
typedef struct cg_rec {
  unsigned op;
  uint32_t nloc, nval;
  const uint32_t *loc;
  const double *val;
  uint64_t index; /* 0-based record number in the file (markers counted) */
} cg_rec;

/* What a tape's header (or its content) says. */
typedef struct cg_tapeinfo {
  int format;
  uint64_t n_indep, n_dep;
  uint64_t max_live;      /* header's claim: store capacity for ADOL-C */
  uint64_t n_ops;         /* operations per header (format dependent) */
  /* ADOL-C 2.x */
  int ver[3];
  uint64_t stats[18];
  uint64_t n_param;
  /* classic: the 8 header fields of Bischof & Hu 1991, sec. 1.3 */
  uint64_t classic[8];
} cg_tapeinfo;

typedef struct cg_reader cg_reader;

/* Opens any tape file; the format is detected from the content.  For an
 * ADOL-C set any one of its files may be named.  An empty file (or, for
 * text, one of white space only) is CG_EFORMAT "FILE: empty file, not a
 * tape"; a file that cannot be opened CG_EIO "FILE: cannot open: <strerror>". */
cg_reader *cg_reader_open(cg_alloc *A, const char *path, cg_error *e);
/* 1 and *r filled: a record; 0: end of tape; <0: error (in e). */
int cg_reader_next(cg_reader *R, cg_rec *r, cg_error *e);
/* Up to max >= 1 records into r[0 .. n): returns n >= 1, 0 at the end of the
 * tape, <0 on an error (in e; the records before it came in earlier calls).
 * Their loc/val are valid until the next call on R.  Same records as
 * cg_reader_next, fewer calls: ADOL-C tapes come in runs of up to 256. */
int cg_reader_next_batch(cg_reader *R, cg_rec *r, int max, cg_error *e);
/* Records in struct-of-arrays form, decoded straight into the caller's
 * arrays: opcodes into op[nop ..), their operands (canonical order) into
 * loc[nloc ..), constants into val[nval ..); the counts advance, and maxloc
 * becomes at least 1 + the highest location among them.  The caller leaves
 * room for at least one record of each kind (cap_* - n* >= 1 / 4 / 2) and
 * gets as many as fit.  Only the plain records of cg_op_plain come this way
 * (almost all of an ADOL-C tape); at anything else (or at the end) the call
 * returns 0 and the caller takes the next record through cg_reader_next or
 * cg_reader_next_batch, then may come back.  Returns the records added, or
 * <0 on an error.  Readers without this form always return 0. */
typedef struct cg_run {
  uint8_t *op;
  uint32_t *loc;
  double *val;
  size_t cap_op, cap_loc, cap_val;
  size_t nop, nloc, nval;
  uint64_t maxloc;
} cg_run;
int cg_reader_next_run(cg_reader *R, cg_run *u, cg_error *e);
/* Records of this code have fixed counts and only store locations as
 * operands: a tape takes them with no check beyond the locations' range. */
int cg_op_plain(unsigned op);
/* Back to the first record. */
int cg_reader_rewind(cg_reader *R, cg_error *e);
const cg_tapeinfo *cg_reader_info(const cg_reader *R);
/* Values of the independents the file carries (NULL if it carries none). */
const double *cg_reader_x0(const cg_reader *R);
/* The pdouble parameters of an ADOL-C tape (n_param of them), else NULL. */
const double *cg_reader_params(const cg_reader *R);
/* Bytes the record takes in the file's own encoding (for Table 1). */
uint64_t cg_reader_recbytes(const cg_reader *R, const cg_rec *r);
const char *cg_reader_path(const cg_reader *R);
void cg_reader_close(cg_reader *R);

/* Block markers an ADOL-C reader has consumed so far (0 for other formats). */
uint64_t cg_adolc_markers(const cg_reader *R);
/* Test hook for an ADOL-C reader, right after opening: fast = 0 decodes every
 * record with the full checks only (the reference the fast path must agree
 * with); fast = 2 reads windows of 512 elements instead of 64 KiB, so that
 * tapes of a few kilobytes reach every window boundary; cap > 0 makes each
 * read take at most cap elements (at most the buffer), so that small tapes
 * reach every buffer boundary.
 * CG_EUSAGE for other readers. */
int cg_adolc_debug(cg_reader *R, int fast, size_t cap);

/* Format-specific openers (used by cg_reader_open). */
cg_reader *cg_adolc_open(cg_alloc *A, const char *path, cg_error *e);
cg_reader *cg_classic_open(cg_alloc *A, const char *path, cg_error *e);
cg_reader *cg_text_open(cg_alloc *A, const char *path, const char *buf, size_t len,
                        cg_error *e);

/* The reader vtable every format implements. */
struct cg_reader {
  int (*next)(cg_reader *R, cg_rec *r, cg_error *e);
  /* optional (NULL: one record per call through next) */
  int (*next_batch)(cg_reader *R, cg_rec *r, int max, cg_error *e);
  int (*next_run)(cg_reader *R, cg_run *u, cg_error *e); /* optional */
  int (*rewind)(cg_reader *R, cg_error *e);
  void (*close)(cg_reader *R);
  uint64_t (*recbytes)(const cg_reader *R, const cg_rec *r);
  cg_alloc *A;
  cg_tapeinfo info;
  double *x0;      /* n_indep values, or NULL */
  double *params;  /* n_param values, or NULL */
  char path[4096];
};

/* {==== in-memory tapes ====} */

/* Invariants: op[i] is a valid non-marker code; the locations of record i are
 * loc[lpos .. lpos+nloc) where lpos is the running sum (records are walked in
 * order, cg_tape_iter); for variable-length records nloc/nval follow from
 * their first locations exactly as in the file.  Every location is < nstore.
 * x0 is NULL or has n_indep entries. */
typedef struct cg_tape {
  cg_alloc *A;
  cg_tapeinfo info;   /* of the source file; counts below are authoritative */
  uint8_t *op;
  uint32_t *loc;
  double *val;
  size_t nops, nlocs, nvals;
  size_t cap_op, cap_loc, cap_val;
  uint64_t n_indep, n_dep;
  uint64_t nstore;    /* 1 + highest location used */
  uint32_t *locmap;   /* NULL, or (a renumbered sparse tape, cg_tape_compact)
                       * location i -> its number in the file, nstore entries,
                       * increasing */
  double *x0;
  int has_x0;
  char source[4096];
} cg_tape;

typedef struct cg_tape_iter {
  const cg_tape *t;
  size_t i, lpos, vpos;
} cg_tape_iter;

cg_tape *cg_tape_new(cg_alloc *A);
void cg_tape_free(cg_tape *t);
/* Appends one record (canonical operand order).  Checks the opcode and the
 * operand counts; on failure the tape is unchanged. */
int cg_tape_push(cg_tape *t, unsigned op, const uint32_t *loc, uint32_t nloc,
                 const double *val, uint32_t nval, cg_error *e);
/* Sets the values of the independents (n_indep of them). */
int cg_tape_set_x0(cg_tape *t, const double *x, size_t n, cg_error *e);
/* Reads a whole tape; ADOL-C parameter opcodes are lowered to constants. */
cg_tape *cg_tape_load(cg_alloc *A, const char *path, cg_error *e);
cg_tape *cg_tape_from_reader(cg_alloc *A, cg_reader *R, cg_error *e);

void cg_tape_iter_init(cg_tape_iter *it, const cg_tape *t);
int cg_tape_iter_next(cg_tape_iter *it, cg_rec *r);

/* Number of locations and values of a record whose first locations are known
 * (variable-length opcodes); returns CG_EFORMAT if they are inconsistent. */
int cg_rec_counts(unsigned op, const uint32_t *loc, uint32_t have, uint32_t *nloc,
                  uint32_t *nval);

/* A run of consecutive locations. */
typedef struct cg_span {
  uint64_t start, len;
} cg_span;

/* The locations a record reads and writes (at most 4 spans each).  Vector
 * operands are spans; the target of a ref_* record is unknown without values,
 * so only the ref location counts as read; parameter indices are not
 * locations.  An in-place record reads its output. */
int cg_rec_uses(const cg_rec *r, cg_span *rd, int *nr, cg_span *wr, int *nw);

/* {==== sparse location spaces (cg_sparse.c) ====} */

/* True when a store of `extent` locations is sparse for a tape whose records
 * name at most `uses` locations: then it is renumbered (or, in statistics,
 * hashed).  Stores under 2^20 locations never are, so ordinary tapes keep
 * their numbers and their fast paths. */
int cg_loc_sparse(uint64_t extent, uint64_t uses);
/* Renumbers a tape whose location space is sparse (cg_loc_sparse(nstore,
 * nlocs)) densely, in increasing order, so that nstore becomes the number of
 * locations used; t->locmap keeps the file's numbers.  Vector runs and death
 * notice ranges stay what they were.  Does nothing to other tapes.  A sparse
 * tape with records that address locations through values (ref_*,
 * subscript, ext_diff, ...) cannot be renumbered: CG_EFORMAT.  cg_tape_load
 * calls it; O(nlocs) expected, plus a sort of the locations used. */
int cg_tape_compact(cg_tape *t, cg_error *e);
/* The operands of record r of t as the file numbers them: r->loc itself,
 * or for a renumbered tape buf (CG_FILE_LOCS entries) filled through
 * t->locmap (counts kept). */
#define CG_FILE_LOCS 8
const uint32_t *cg_tape_file_locs(const cg_tape *t, const cg_rec *r, uint32_t *buf);
/* 1 + the highest location in the file's numbering. */
uint64_t cg_tape_file_nstore(const cg_tape *t);

/* {==== writers ====} */
int cg_write_classic(const cg_tape *t, const char *path, cg_error *e);
int cg_write_text(const cg_tape *t, const char *path, cg_error *e);
/* Bytes a record takes in the classic encoding (doc/formats.md). */
uint64_t cg_classic_recbytes(unsigned op, uint32_t nloc, uint32_t nval);

/* {==== forward evaluation ====} */

/* (cg_branch, what an evaluation found about branches: cg_util.h) */

/* Plain forward evaluation of the tape at x (n_indep values; NULL = x0):
 * exactly the operations of the tape in tape order, so the result is the one
 * a zos_forward of the same tape gives.  y gets n_dep values. */
int cg_tape_forward(const cg_tape *t, const double *x, double *y, cg_branch *br,
                    cg_error *e);

/* {==== statistics ====} */
typedef struct cg_stats {
  cg_tapeinfo info;
  uint64_t count[256], bytes[256];
  uint64_t records;       /* all records but markers */
  uint64_t operations;    /* records that compute or assign a value */
  uint64_t op_bytes;      /* bytes of those */
  uint64_t death_notices, death_bytes;
  uint64_t markers;
  uint64_t max_loc;       /* 1 + highest location used */
  uint64_t peak_live;     /* real peak of simultaneously live locations */
  uint64_t n_indep, n_dep;
} cg_stats;

/* Two streaming passes over the file: counts, then live ranges. */
int cg_tape_stats(cg_alloc *A, const char *path, cg_stats *s, cg_error *e);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
