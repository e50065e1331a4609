/*
 * cg_text.c: text tapes, one record per line in the style of Bischof & Hu's
 * tables: `plus_a_a 5 1 2`, `assign_d 3 3.0`, `assign_ind 0 1.5` (the value
 * of the independent is optional, all or none).  `#` starts a comment.  The
 * locations come in canonical order (cg_ops.h), then the constants.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cg_fmt.h"
#include "cg_tape.h"

typedef struct text_reader {
  cg_reader base;
  FILE *fp;            /* NULL when reading from memory */
  const char *mem;     /* in-memory source (owned copy) */
  size_t memlen, mempos;
  char *line;
  size_t cap_line;
  uint64_t lineno, rec;
  uint32_t *loc;
  double *val;
  size_t cap_loc, cap_val;
  size_t nx, cap_x;    /* values of assign_ind collected into base.x0 */
  int x_mode;          /* 0 unknown, 1 with values, 2 without */
  int commented;       /* a comment came before the first record */
} text_reader;

/* Reads the next line into T->line; 0 at end, 1 otherwise, <0 on error. */
static int tx_getline(text_reader *T, cg_error *e) {
  size_t n = 0;
  int c;
  for (;;) {
    if (T->fp) c = getc(T->fp);
    else c = T->mempos < T->memlen ? (unsigned char)T->mem[T->mempos++] : EOF;
    if (c == EOF && n == 0) return 0;
    if (cg_reserve(T->base.A, (void **)&T->line, &T->cap_line, n + 1, 1))
      return cg_seterr(e, CG_ENOMEM, "out of memory");
    if (c == EOF || c == '\n') break;
    T->line[n++] = (char)c;
  }
  T->line[n] = '\0';
  T->lineno++;
  return 1;
}

static int tx_fail(text_reader *T, cg_error *e, const char *fmt, const char *arg) {
  char what[256];
  snprintf(what, sizeof what, fmt, arg);
  return cg_seterr(e, CG_EFORMAT, "%s:%llu: %s", cg_basename(T->base.path),
                   (unsigned long long)T->lineno, what);
}

/* Splits off the next whitespace-separated token; NULL at end of line. */
static char *tx_token(char **s) {
  char *p = *s, *start;
  while (*p == ' ' || *p == '\t' || *p == '\r') p++;
  if (!*p || *p == '#') return NULL;
  start = p;
  while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '#') p++;
  if (*p == '#') *p = '\0';
  else if (*p) *p++ = '\0';
  *s = p;
  return start;
}

/* Parses a location: a decimal integer in 0 .. 2^32-2. */
static int tx_loc(text_reader *T, const char *tok, uint32_t *out, cg_error *e) {
  char *end;
  unsigned long long v;
  if (!tok) return tx_fail(T, e, "%smissing location", "");
  errno = 0;
  v = strtoull(tok, &end, 10);
  if (*end || tok[0] == '-' || tok[0] == '+' || errno || v >= 0xffffffffull)
    return tx_fail(T, e, "bad location '%s'", tok);
  *out = (uint32_t)v;
  return CG_OK;
}

static int tx_val(text_reader *T, const char *tok, double *out, cg_error *e) {
  char *end;
  if (!tok) return tx_fail(T, e, "%smissing constant", "");
  *out = strtod(tok, &end);
  if (*end || end == tok) return tx_fail(T, e, "bad constant '%s'", tok);
  return CG_OK;
}

/* Keeps the value of an independent (all assign_ind have one, or none). */
static int tx_indep(text_reader *T, const char *tok, char **rest, cg_error *e) {
  double v;
  int mode = tok ? 1 : 2;
  if (T->x_mode && T->x_mode != mode)
    return tx_fail(T, e, "%sassign_ind values must be given for all independents or none", "");
  T->x_mode = mode;
  if (!tok) return CG_OK;
  if (tx_val(T, tok, &v, e)) return e->code;
  if (cg_reserve(T->base.A, (void **)&T->base.x0, &T->cap_x, T->nx + 1, sizeof v))
    return cg_seterr(e, CG_ENOMEM, "out of memory");
  T->base.x0[T->nx++] = v;
  return tx_token(rest) ? tx_fail(T, e, "%stoo many operands", "") : CG_OK;
}

/* Makes room for nl locations and nv constants, of which `more` operands
 * are still to be parsed from `rest`.  Only growing can allocate, so only
 * then is the line asked whether it can hold them (each operand at least
 * one character and a blank): counts of variable-length records come from
 * the line itself. */
static int tx_room(text_reader *T, unsigned op, const char *rest, uint32_t nl, uint32_t nv,
                   uint64_t more, cg_error *e) {
  if (nl <= T->cap_loc && nv <= T->cap_val) return CG_OK;
  if (more > 16 && more > (strlen(rest) + 1) / 2)
    return tx_fail(T, e, "too few operands for %s", cg_op(op)->name);
  if (cg_reserve(T->base.A, (void **)&T->loc, &T->cap_loc, nl, sizeof *T->loc) ||
      cg_reserve(T->base.A, (void **)&T->val, &T->cap_val, nv, sizeof *T->val))
    return cg_seterr(e, CG_ENOMEM, "out of memory");
  return CG_OK;
}

/* Parses one record line (the opcode already split off). */
static int tx_record(text_reader *T, unsigned op, char *rest, cg_rec *r, cg_error *e) {
  uint32_t nl = 0, nv = 0, have = 0, i;
  int rc;
  while ((rc = cg_rec_counts(op, T->loc, have, &nl, &nv)) == 0) { /* variable length */
    if ((rc = tx_room(T, op, rest, nl, 0, nl - have, e)) != CG_OK) return rc;
    for (; have < nl; have++)
      if (tx_loc(T, tx_token(&rest), &T->loc[have], e)) return e->code;
  }
  if (rc < 0) return tx_fail(T, e, "%sabsurd operand counts", "");
  if ((rc = tx_room(T, op, rest, nl, nv, (uint64_t)nl - have + nv, e)) != CG_OK) return rc;
  for (; have < nl; have++)
    if (tx_loc(T, tx_token(&rest), &T->loc[have], e)) return e->code;
  for (i = 0; i < nv; i++)
    if (tx_val(T, tx_token(&rest), &T->val[i], e)) return e->code;
  if (op == CG_OP_assign_ind) {
    if (tx_indep(T, tx_token(&rest), &rest, e)) return e->code;
  } else if (tx_token(&rest)) {
    return tx_fail(T, e, "too many operands for %s", cg_op(op)->name);
  }
  r->op = op;
  r->nloc = nl;
  r->nval = nv;
  r->loc = T->loc;
  r->val = T->val;
  r->index = T->rec++;
  return 1;
}

static int tx_next(cg_reader *R, cg_rec *r, cg_error *e) {
  text_reader *T = (text_reader *)R;
  char *rest, *tok;
  int rc, op;
  for (;;) {
    if ((rc = tx_getline(T, e)) <= 0) {
      if (rc == 0 && T->x_mode != 1 && R->x0) { /* no values after all */
        cg_free(R->A, R->x0, T->cap_x * sizeof *R->x0);
        R->x0 = NULL;
      }
      if (rc == 0 && T->rec == 0 && !T->commented && T->fp) /* white space at most */
        return cg_seterr(e, CG_EFORMAT, "%s: empty file, not a tape", R->path);
      return rc;
    }
    rest = T->line;
    if (T->rec == 0 && !T->commented && strchr(T->line, '#')) T->commented = 1;
    if ((tok = tx_token(&rest)) != NULL) break;
  }
  op = cg_op_byname(tok);
  if (op < 0 || cg_op((unsigned)op)->flags & (CG_OPF_MARKER | CG_OPF_REJECT | CG_OPF_PARAM))
    return tx_fail(T, e, "unknown opcode '%s'", tok);
  rc = tx_record(T, (unsigned)op, rest, r, e);
  if (rc == 1) {
    if (op == CG_OP_assign_ind || op == CG_OP_ref_assign_ind) R->info.n_indep++;
    if (op == CG_OP_assign_dep) R->info.n_dep++;
    if (op != CG_OP_death_not) R->info.n_ops++;
  }
  return rc;
}

static int tx_rewind(cg_reader *R, cg_error *e) {
  text_reader *T = (text_reader *)R;
  if (T->fp && fseek(T->fp, 0, SEEK_SET) != 0)
    return cg_seterr(e, CG_EIO, "%s: cannot seek", R->path);
  T->mempos = 0;
  T->lineno = T->rec = 0;
  T->nx = 0;
  T->x_mode = 0;
  T->commented = 0;
  R->info.n_indep = R->info.n_dep = R->info.n_ops = 0;
  return CG_OK;
}

static uint64_t tx_recbytes(const cg_reader *R, const cg_rec *r) {
  (void)R;
  return cg_classic_recbytes(r->op, r->nloc, r->nval);
}

static void tx_close(cg_reader *R) {
  text_reader *T = (text_reader *)R;
  cg_alloc *A = R->A;
  if (T->fp) fclose(T->fp);
  cg_free(A, (void *)(uintptr_t)T->mem, T->memlen + 1);
  cg_free(A, T->line, T->cap_line);
  cg_free(A, T->loc, T->cap_loc * sizeof *T->loc);
  cg_free(A, T->val, T->cap_val * sizeof *T->val);
  cg_free(A, R->x0, T->cap_x * sizeof *R->x0);
  cg_free(A, T, sizeof *T);
}

cg_reader *cg_text_open(cg_alloc *A, const char *path, const char *buf, size_t len,
                        cg_error *e) {
  text_reader *T = (text_reader *)cg_malloc(A, sizeof *T);
  if (!T) return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
  memset(T, 0, sizeof *T);
  T->base.next = tx_next;
  T->base.rewind = tx_rewind;
  T->base.close = tx_close;
  T->base.recbytes = tx_recbytes;
  T->base.A = A;
  T->base.info.format = CG_FMT_TEXT;
  snprintf(T->base.path, sizeof T->base.path, "%s", path);
  if (buf) {
    char *copy = (char *)cg_malloc(A, len + 1);
    if (!copy) {
      tx_close(&T->base);
      return cg_seterr(e, CG_ENOMEM, "out of memory"), NULL;
    }
    memcpy(copy, buf, len);
    copy[len] = '\0';
    T->mem = copy;
    T->memlen = len;
  } else if (!(T->fp = fopen(path, "rb"))) {
    cg_seterr(e, CG_EIO, "%s: cannot open: %s", path, strerror(errno));
    tx_close(&T->base);
    return NULL;
  }
  return &T->base;
}

/* {==== writer ====} */

/* Writes a double so that reading it back gives the same bits. */
static void put_double(FILE *fp, double v) {
  char b[CG_FMT_G17_SIZE + 1] = " ";
  if (isnan(v)) fputs(signbit(v) ? " -nan" : " nan", fp); /* the payload is lost */
  else if (isinf(v)) fputs(v > 0 ? " inf" : " -inf", fp);
  else cg_fmt_g17(b + 1, v), fputs(b, fp); /* " %.17g" */
}

int cg_write_text(const cg_tape *t, const char *path, cg_error *e) {
  cg_outfile o;
  cg_tape_iter it;
  cg_rec r;
  uint64_t nind = 0;
  uint32_t i;
  int rc;
  if ((rc = cg_open_out(&o, path, e))) return rc;
  fprintf(o.fp, "# cgwb text tape: %llu independents, %llu dependents, %zu records\n",
          (unsigned long long)t->n_indep, (unsigned long long)t->n_dep, t->nops);
  cg_tape_iter_init(&it, t);
  while (cg_tape_iter_next(&it, &r)) {
    uint32_t buf[CG_FILE_LOCS];
    const uint32_t *l = cg_tape_file_locs(t, &r, buf); /* the file's numbers */
    fputs(cg_op(r.op)->name, o.fp);
    for (i = 0; i < r.nloc; i++) fprintf(o.fp, " %u", (unsigned)l[i]);
    for (i = 0; i < r.nval; i++) put_double(o.fp, r.val[i]);
    if (r.op == CG_OP_assign_ind && t->has_x0) put_double(o.fp, t->x0[nind++]);
    fputc('\n', o.fp);
  }
  return cg_commit_file(&o, e);
}
