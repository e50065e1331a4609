/* cg_kernel.c: the kernel's intermediate form: names of its enumerations
 * (the loader, cg_kernel_load, is added beside them). */
#include "cg_kernel.h"

#include <stdarg.h>
#include <string.h>

CG_KKINDS_SEEN(10, 32); /* the statement kinds and expression operators its switches handle */

static const char *const type_names[] = {
#define N(id, nm) #nm,
    CG_KTYPES(N)
#undef N
};
static const char *const expr_names[] = {
#define N(id, nm) #nm,
    CG_KEXPRS(N)
#undef N
};
static const char *const stmt_names[] = {
#define N(id, nm) #nm,
    CG_KSTMTS(N)
#undef N
};
static const struct { const char *name; int arity, gop; const char *xaif; } intrinsics[] = {
#define N(id, nm, ar, g, xaif) {#nm, ar, CG_G_##g, #xaif},
    CG_KINTRINSICS(N)
#undef N
};

static const struct { const char *name; int bits, sgn; } ctypes[] = {
#define N(id, nm, bits, sgn) {#nm, bits, sgn},
    CG_KCTYPES(N)
#undef N
};

const char *cg_kctype_name(int ct) { return ct >= 0 && ct < CG_KC_COUNT ? ctypes[ct].name : NULL; }
int cg_kctype_bits(int ct) { return ct >= 0 && ct < CG_KC_COUNT ? ctypes[ct].bits : -1; }
int cg_kctype_signed(int ct) { return ct >= 0 && ct < CG_KC_COUNT ? ctypes[ct].sgn : -1; }

int32_t cg_kctype_wrap(int ct, int64_t v) {
  int bits = cg_kctype_bits(ct);
  uint64_t u, m;
  if (ct == CG_KC_BOOL) return v != 0;
  if (bits <= 0 || bits >= 32) return (int32_t)v;
  m = ((uint64_t)1 << bits) - 1;
  u = (uint64_t)v & m;
  if (ctypes[ct].sgn && (u >> (bits - 1))) return (int32_t)((int64_t)u - ((int64_t)1 << bits));
  return (int32_t)u;
}

int cg_kctype_fits(int ct, int64_t v) {
  int bits = cg_kctype_bits(ct);
  if (ct == CG_KC_BOOL) return v == 0 || v == 1;
  if (bits <= 0) return 0;
  if (ctypes[ct].sgn) return v >= -((int64_t)1 << (bits - 1)) && v < ((int64_t)1 << (bits - 1));
  return v >= 0 && v < ((int64_t)1 << bits);
}

const char *cg_ktype_name(int t) { return t >= 0 && t < CG_KT_COUNT ? type_names[t] : NULL; }
const char *cg_kexpr_name(int op) { return op >= 0 && op < CG_KE_COUNT ? expr_names[op] : NULL; }
const char *cg_kstmt_name(int kind) {
  return kind >= 0 && kind < CG_KST_COUNT ? stmt_names[kind] : NULL;
}
const char *cg_kintrinsic_name(int id) {
  return id >= 0 && id < CG_KI_COUNT ? intrinsics[id].name : NULL;
}
int cg_kintrinsic_arity(int id) { return id >= 0 && id < CG_KI_COUNT ? intrinsics[id].arity : -1; }
int cg_kintrinsic_gop(int id) { return id >= 0 && id < CG_KI_COUNT ? intrinsics[id].gop : -1; }
const char *cg_kintrinsic_xaif(int id) {
  return id >= 0 && id < CG_KI_COUNT ? intrinsics[id].xaif : NULL;
}

/* {==== the loader ====}
 * cg_kernel_load copies the front end's arrays, then checks them table by
 * table: first every row on its own (fields in range, kinds known), then
 * what ties rows together (expression trees under statements, statements
 * in exactly one body slice, types).  A check names the table, the 0-based
 * row and the field, so a front end's bug is found at its row. */

/* The message prefix "FILE: kernel form: " and the error. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int kerr(const cg_kernel *k, cg_error *e, const char *fmt, ...);

static int kerr(const cg_kernel *k, cg_error *e, const char *fmt, ...) {
  char buf[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return cg_seterr(e, CG_EFORMAT, "%s: kernel form: %s", k->file ? k->file : "kernel", buf);
}

static int is_ptr_type(int t) { return t == CG_KT_PDOUBLE || t == CG_KT_PINT; }
static int is_num_type(int t) { return t == CG_KT_INT || t == CG_KT_DOUBLE; }
/* The pointer type to cells of base b. */
static int ptr_of(int b) { return b == CG_KT_DOUBLE ? CG_KT_PDOUBLE : CG_KT_PINT; }

int cg_ksym_type(const cg_kernel *k, int32_t s) {
  int b = CG_KSYM(k, s, BASE);
  if (CG_KSYM(k, s, PTR) == 2) return b == CG_KT_DOUBLE ? CG_KT_PPDOUBLE : CG_KT_PPINT;
  return CG_KSYM(k, s, PTR) ? ptr_of(b) : b;
}

int32_t cg_ksym_dim(const cg_kernel *k, int32_t s, int d) {
  if (d < 0 || d >= CG_KSYM(k, s, NDIM)) return 0;
  return d == 0 ? CG_KSYM(k, s, DIM0) : d == 1 ? CG_KSYM(k, s, DIM1) : CG_KSYM(k, s, DIM2);
}

int64_t cg_ksym_stride(const cg_kernel *k, int32_t s, int d) {
  int64_t n = 1;
  int i, nd = CG_KSYM(k, s, NDIM);
  for (i = d + 1; i < nd; i++) n *= cg_ksym_dim(k, s, i);
  return n;
}

int64_t cg_ksym_cells(const cg_kernel *k, int32_t s) {
  int nd = CG_KSYM(k, s, NDIM);
  if (nd == 0) return CG_KSYM(k, s, PTR) ? 0 : 1;
  return (int64_t)CG_KSYM(k, s, DIM0) * cg_ksym_stride(k, s, 0);
}

int cg_kexpr_subscripts(const cg_kernel *k, int32_t x, int32_t out[CG_KMAX_DIM]) {
  int n = 0;
  out[0] = CG_KEXPR(k, x, A), out[1] = CG_KEXPR(k, x, B), out[2] = CG_KEXPR(k, x, C);
  while (n < CG_KMAX_DIM && out[n] >= 0) n++;
  return n;
}

void cg_kernel_free(cg_kernel *k) {
  uint32_t i;
  cg_alloc *A;
  if (!k) return;
  A = k->A;
  if (k->names)
    for (i = 0; i < k->nname; i++)
      if (k->names[i]) CG_FREE(A, k->names[i], char, strlen(k->names[i]) + 1);
  CG_FREE(A, k->names, char *, k->nname);
  if (k->file) CG_FREE(A, k->file, char, strlen(k->file) + 1);
  CG_FREE(A, k->func, int32_t, (size_t)k->nfunc * CG_KFUNC_W);
  CG_FREE(A, k->sym, int32_t, (size_t)k->nsym * CG_KSYM_W);
  CG_FREE(A, k->expr, int32_t, (size_t)k->nexpr * CG_KEXPR_W);
  CG_FREE(A, k->stmt, int32_t, (size_t)k->nstmt * CG_KSTMT_W);
  CG_FREE(A, k->list, int32_t, k->nlist);
  CG_FREE(A, k->args, int32_t, k->narg);
  CG_FREE(A, k->dconst, double, k->ndconst);
  CG_FREE(A, k->expr_stmt, int32_t, k->nexpr);
  CG_FREE(A, k->expr_parent, int32_t, k->nexpr);
  CG_FREE(A, k->stmt_parent, int32_t, k->nstmt);
  CG_FREE(A, k->stmt_loop, int32_t, k->nstmt);
  CG_FREE(A, k, cg_kernel, 1);
}

static char *copy_string(cg_alloc *A, const char *s) {
  size_t n = strlen(s) + 1;
  char *c = CG_NEW(A, char, n);
  if (c) memcpy(c, s, n);
  return c;
}

/* Copies n int32 rows of width w (src may be NULL only when n is 0). */
static int32_t *copy_rows(cg_alloc *A, const int32_t *src, size_t n, size_t w) {
  int32_t *c;
  if (n && !src) return NULL;
  if (w && n > SIZE_MAX / sizeof(int32_t) / w) return NULL;
  c = CG_NEW(A, int32_t, n * w);
  if (c && n) memcpy(c, src, n * w * sizeof *c);
  return c;
}

/* Copies the arrays; CG_ENOMEM (or CG_EUSAGE for a NULL array) on failure. */
static int copy_src(cg_kernel *k, const cg_ksrc *s, cg_error *e) {
  cg_alloc *A = k->A;
  uint32_t i;
  k->nfunc = s->nfunc, k->nsym = s->nsym, k->nexpr = s->nexpr, k->nstmt = s->nstmt;
  k->nlist = s->nlist, k->narg = s->narg, k->ndconst = s->ndconst;
  if ((s->nname && !s->names) || (s->nfunc && !s->func) || (s->nsym && !s->sym) ||
      (s->nexpr && !s->expr) || (s->nstmt && !s->stmt) || (s->nlist && !s->list) ||
      (s->narg && !s->args) || (s->ndconst && !s->dconst))
    return cg_seterr(e, CG_EUSAGE, "cg_kernel_load: an array is NULL but its count is not 0");
  if (s->file && !(k->file = copy_string(A, s->file))) goto oom;
  if (!(k->names = CG_NEW(A, char *, s->nname))) goto oom;
  k->nname = s->nname;
  for (i = 0; i < s->nname; i++) k->names[i] = NULL;
  for (i = 0; i < s->nname; i++) {
    if (!s->names[i]) return kerr(k, e, "name %u: NULL", (unsigned)i);
    if (!(k->names[i] = copy_string(A, s->names[i]))) goto oom;
  }
  if (!(k->func = copy_rows(A, s->func, s->nfunc, CG_KFUNC_W)) ||
      !(k->sym = copy_rows(A, s->sym, s->nsym, CG_KSYM_W)) ||
      !(k->expr = copy_rows(A, s->expr, s->nexpr, CG_KEXPR_W)) ||
      !(k->stmt = copy_rows(A, s->stmt, s->nstmt, CG_KSTMT_W)) ||
      !(k->list = copy_rows(A, s->list, s->nlist, 1)) ||
      !(k->args = copy_rows(A, s->args, s->narg, 1)) ||
      !(k->dconst = CG_NEW(A, double, s->ndconst)) ||
      !(k->expr_stmt = CG_NEW(A, int32_t, s->nexpr)) ||
      !(k->expr_parent = CG_NEW(A, int32_t, s->nexpr)) ||
      !(k->stmt_parent = CG_NEW(A, int32_t, s->nstmt)) ||
      !(k->stmt_loop = CG_NEW(A, int32_t, s->nstmt)))
    goto oom;
  if (s->ndconst) memcpy(k->dconst, s->dconst, s->ndconst * sizeof(double));
  return CG_OK;
oom:
  return cg_seterr(e, CG_ENOMEM, "%s: kernel form: out of memory",
                   s->file ? s->file : "kernel");
}

/* {==== row checks ====} */

static int in_range(int32_t v, uint32_t n) { return v >= 0 && (uint32_t)v < n; }
/* A slice (start, count) of an array of n entries; count 0 takes any start
 * in -1..n. */
static int slice_ok(int32_t start, int32_t count, uint32_t n) {
  if (count < 0) return 0;
  if (count == 0) return start >= -1 && (int64_t)start <= (int64_t)n;
  return start >= 0 && (int64_t)start + count <= (int64_t)n;
}

static int check_pos(const cg_kernel *k, cg_error *e, const char *tab, uint32_t r, int32_t line,
                     int32_t col) {
  if (line < 1 || col < 1)
    return kerr(k, e, "%s %u: position %d:%d (lines and columns are 1-based)", tab, (unsigned)r,
                (int)line, (int)col);
  return CG_OK;
}

/* A function row alone: name, return type, its slices of symbols and list. */
static int check_func_row(const cg_kernel *k, uint32_t f, cg_error *e) {
  int32_t ret = CG_KFUNC(k, f, RET), nsym = CG_KFUNC(k, f, NSYM), np = CG_KFUNC(k, f, NPARAM);
  if (!in_range(CG_KFUNC(k, f, NAME), k->nname))
    return kerr(k, e, "func %u: name %d out of range", (unsigned)f, (int)CG_KFUNC(k, f, NAME));
  if (ret != CG_KT_VOID && !is_num_type(ret))
    return kerr(k, e, "func %u: return type %d is not void, int or double", (unsigned)f, (int)ret);
  if (!slice_ok(CG_KFUNC(k, f, SYM0), nsym, k->nsym))
    return kerr(k, e, "func %u: symbols %d+%d out of range", (unsigned)f,
                (int)CG_KFUNC(k, f, SYM0), (int)nsym);
  if (np < 0 || np > nsym)
    return kerr(k, e, "func %u: %d parameters of %d symbols", (unsigned)f, (int)np, (int)nsym);
  if (CG_KFUNC(k, f, BODY) == -1) { /* an external function: declared, no body */
    if (CG_KFUNC(k, f, NBODY) != 0 || nsym != np)
      return kerr(k, e, "func %u: external with a body or locals", (unsigned)f);
  } else if (!slice_ok(CG_KFUNC(k, f, BODY), CG_KFUNC(k, f, NBODY), k->nlist))
    return kerr(k, e, "func %u: body %d+%d out of range", (unsigned)f, (int)CG_KFUNC(k, f, BODY),
                (int)CG_KFUNC(k, f, NBODY));
  return check_pos(k, e, "func", f, CG_KFUNC(k, f, LINE), CG_KFUNC(k, f, COL));
}

/* Functions own disjoint symbol ranges, named uniquely; the first NPARAM
 * are parameters; a symbol outside every range is a global. */
static int check_funcs(cg_kernel *k, cg_error *e) {
  uint32_t f, g;
  int32_t s;
  int rc;
  for (f = 0; f < k->nfunc; f++)
    if ((rc = check_func_row(k, f, e))) return rc;
  for (f = 0; f < k->nfunc; f++) {
    for (s = CG_KFUNC(k, f, SYM0); s < CG_KFUNC(k, f, SYM0) + CG_KFUNC(k, f, NSYM); s++) {
      int pk = s - CG_KFUNC(k, f, SYM0) < CG_KFUNC(k, f, NPARAM);
      if (CG_KSYM(k, s, FUNC) != (int32_t)f)
        return kerr(k, e, "sym %d: in the symbols of func %u but its func is %d", (int)s,
                    (unsigned)f, (int)CG_KSYM(k, s, FUNC));
      if ((CG_KSYM(k, s, KIND) == CG_KS_PARAM) != pk)
        return kerr(k, e, "sym %d: kind %d, but it is %s parameter of func %u", (int)s,
                    (int)CG_KSYM(k, s, KIND), pk ? "a" : "not a", (unsigned)f);
    }
    for (g = 0; g < f; g++)
      if (!strcmp(k->names[CG_KFUNC(k, f, NAME)], k->names[CG_KFUNC(k, g, NAME)]))
        return kerr(k, e, "func %u: name '%s' is func %u's too", (unsigned)f,
                    k->names[CG_KFUNC(k, f, NAME)], (unsigned)g);
  }
  return CG_OK;
}

/* A global's initializer: ninit constants in dconst, integers for an int. */
static int check_init(const cg_kernel *k, int32_t s, int64_t cells, cg_error *e) {
  int32_t init = CG_KSYM(k, s, INIT), n = CG_KSYM(k, s, NINIT), i;
  if (CG_KSYM(k, s, KIND) != CG_KS_GLOBAL) {
    if (n != 0) return kerr(k, e, "sym %d: an initializer on a non-global", (int)s);
    return CG_OK;
  }
  if (n > cells || !slice_ok(init, n, k->ndconst))
    return kerr(k, e, "sym %d: initializer %d+%d out of range", (int)s, (int)init, (int)n);
  for (i = 0; i < n && CG_KSYM(k, s, BASE) == CG_KT_INT; i++) {
    double v = k->dconst[init + i];
    if (!(v >= INT32_MIN && v <= INT32_MAX) || v != (double)(int32_t)v)
      return kerr(k, e, "sym %d: initializer %d is not an int (%.17g)", (int)s, (int)i, v);
    if (!cg_kctype_fits(CG_KSYM(k, s, CTYPE), (int64_t)v))
      return kerr(k, e, "sym %d: initializer %d (%.17g) is not a %s", (int)s, (int)i, v,
                  cg_kctype_name(CG_KSYM(k, s, CTYPE)));
  }
  return CG_OK;
}

/* The shape of a symbol: pointer, dims and qualifiers that fit its kind. */
static int check_shape(const cg_kernel *k, int32_t s, cg_error *e) {
  int32_t kind = CG_KSYM(k, s, KIND), ptr = CG_KSYM(k, s, PTR), nd = CG_KSYM(k, s, NDIM);
  int32_t q = CG_KSYM(k, s, QUAL);
  if (ptr < 0 || ptr > 2) return kerr(k, e, "sym %d: ptr %d is not 0, 1 or 2", (int)s, (int)ptr);
  if (nd < 0 || nd > CG_KMAX_DIM) return kerr(k, e, "sym %d: ndim %d", (int)s, (int)nd);
  if (ptr == 2 && (kind != CG_KS_PARAM || nd != 0))
    return kerr(k, e, "sym %d: a pointer to pointers that is not a plain parameter", (int)s);
  if (kind == CG_KS_HEAP) {
    if (ptr || nd != 1 || CG_KSYM(k, s, DIM0) != 0 || q != 0)
      return kerr(k, e, "sym %d: a heap site that is not a 1-D block of unknown size", (int)s);
    return CG_OK;
  }
  if (nd > 0 && CG_KSYM(k, s, DIM0) < (kind == CG_KS_PARAM && ptr ? 0 : 1))
    return kerr(k, e, "sym %d: dim0 %d", (int)s, (int)CG_KSYM(k, s, DIM0));
  if ((nd >= 2 ? CG_KSYM(k, s, DIM1) < 1 : CG_KSYM(k, s, DIM1) != 0))
    return kerr(k, e, "sym %d: dim1 %d with %d dims", (int)s, (int)CG_KSYM(k, s, DIM1), (int)nd);
  if ((nd >= 3 ? CG_KSYM(k, s, DIM2) < 1 : CG_KSYM(k, s, DIM2) != 0))
    return kerr(k, e, "sym %d: dim2 %d with %d dims", (int)s, (int)CG_KSYM(k, s, DIM2), (int)nd);
  if (nd > 1 && cg_ksym_stride(k, s, 0) > INT32_MAX)
    return kerr(k, e, "sym %d: more than %d cells in a row or plane", (int)s, (int)INT32_MAX);
  if (nd > 0 && cg_ksym_cells(k, s) > INT32_MAX)
    return kerr(k, e, "sym %d: more than %d cells", (int)s, (int)INT32_MAX);
  if (ptr && kind == CG_KS_GLOBAL) return kerr(k, e, "sym %d: a global pointer", (int)s);
  if (ptr && nd > 0 && kind != CG_KS_PARAM)
    return kerr(k, e, "sym %d: a pointer with dims that is not a parameter", (int)s);
  if (!ptr && nd > 0 && kind == CG_KS_PARAM)
    return kerr(k, e, "sym %d: an array parameter that is not a pointer", (int)s);
  if (q < 0 || q > 7) return kerr(k, e, "sym %d: qualifiers %d", (int)s, (int)q);
  if ((q & CG_KQ_RESTRICT) && !ptr) return kerr(k, e, "sym %d: restrict on a non-pointer", (int)s);
  if ((q & CG_KQ_ADDR) && (ptr || nd > 0))
    return kerr(k, e, "sym %d: address-taken flag on a pointer or array", (int)s);
  return CG_OK;
}

/* A symbol row: name, kind, owner, base type, shape, initializer. */
static int check_sym(const cg_kernel *k, int32_t s, cg_error *e) {
  int32_t kind = CG_KSYM(k, s, KIND), f = CG_KSYM(k, s, FUNC), b = CG_KSYM(k, s, BASE);
  int rc;
  if (!in_range(CG_KSYM(k, s, NAME), k->nname))
    return kerr(k, e, "sym %d: name %d out of range", (int)s, (int)CG_KSYM(k, s, NAME));
  if (kind < 0 || kind >= CG_KS_COUNT) return kerr(k, e, "sym %d: kind %d", (int)s, (int)kind);
  if ((kind == CG_KS_GLOBAL) != (f == -1))
    return kerr(k, e, "sym %d: func %d for a symbol of kind %d", (int)s, (int)f, (int)kind);
  if (f != -1 && (!in_range(f, k->nfunc) || s < CG_KFUNC(k, f, SYM0) ||
                  s >= CG_KFUNC(k, f, SYM0) + CG_KFUNC(k, f, NSYM)))
    return kerr(k, e, "sym %d: not in the symbols of its func %d", (int)s, (int)f);
  if (!is_num_type(b)) return kerr(k, e, "sym %d: base %d is not int or double", (int)s, (int)b);
  if (CG_KSYM(k, s, CTYPE) < 0 || CG_KSYM(k, s, CTYPE) >= CG_KC_COUNT ||
      (b != CG_KT_INT && CG_KSYM(k, s, CTYPE) != CG_KC_INT))
    return kerr(k, e, "sym %d: ctype %d for base %s", (int)s, (int)CG_KSYM(k, s, CTYPE), cg_ktype_name(b));
  if ((rc = check_shape(k, s, e))) return rc;
  if ((rc = check_init(k, s, cg_ksym_cells(k, s), e))) return rc;
  return check_pos(k, e, "sym", (uint32_t)s, CG_KSYM(k, s, LINE), CG_KSYM(k, s, COL));
}

/* {==== expression trees ====}
 * Operands an operator uses: A, B, C, and whether SYM names a symbol. */
enum { U_A = 1, U_B = 2, U_C = 4, U_SYM = 8, U_OPTA = 16, U_OPTB = 32, U_OPTC = 64 };
static const unsigned char expr_uses[CG_KE_COUNT] = {
    0,                             /* CONST_I */
    0,                             /* CONST_D */
    U_SYM,                         /* VAR */
    U_SYM | U_A | U_OPTB | U_OPTC, /* ELEM */
    U_SYM | U_OPTA | U_OPTB | U_OPTC, /* ADDR */
    U_A | U_B,                     /* PTRADD */
    U_A, U_A,                      /* NEG NOT */
    U_A | U_B, U_A | U_B, U_A | U_B, U_A | U_B, U_A | U_B, /* ADD SUB MUL DIV MOD */
    U_A | U_B, U_A | U_B, U_A | U_B, U_A | U_B, U_A | U_B, U_A | U_B, /* LT .. NE */
    U_A | U_B, U_A | U_B,          /* AND OR */
    U_A | U_B | U_C,               /* COND */
    U_A,                           /* CAST */
    U_A | U_OPTB,                  /* INTRIN */
    0,                             /* NULLP */
    U_A | U_B,                     /* PTRDIFF */
    U_A | U_B, U_A | U_B, U_A | U_B, U_A | U_B, U_A | U_B, /* BAND BOR BXOR SHL SHR */
    U_A                            /* BNOT */
};

static int etype(const cg_kernel *k, int32_t x) { return CG_KEXPR(k, x, TYPE); }

/* Which of A, B, C expression x uses (its operands: -1 where optional and
 * absent).  op must be valid. */
int cg_kexpr_operands(const cg_kernel *k, int32_t x, int32_t out[3]) {
  int op = CG_KEXPR(k, x, OP), i, n = 0;
  unsigned u = expr_uses[op];
  for (i = 0; i < 3; i++) out[i] = -1;
  if (u & (U_A | U_OPTA)) out[0] = CG_KEXPR(k, x, A), n = 1;
  if (u & (U_B | U_OPTB)) out[1] = CG_KEXPR(k, x, B), n = 2;
  if (u & (U_C | U_OPTC)) out[2] = CG_KEXPR(k, x, C), n = 3;
  return n;
}

/* The fields of row x alone: operator, operands and symbol in range. */
static int check_expr_row(const cg_kernel *k, int32_t x, cg_error *e) {
  int op = CG_KEXPR(k, x, OP), i;
  int32_t o[3];
  if (op < 0 || op >= CG_KE_COUNT) return kerr(k, e, "expr %d: operator %d", (int)x, op);
  cg_kexpr_operands(k, x, o);
  for (i = 0; i < 3; i++) {
    unsigned must = i == 0 ? U_A : i == 1 ? U_B : U_C;
    unsigned may = i == 0 ? U_OPTA : i == 1 ? U_OPTB : U_OPTC;
    if ((expr_uses[op] & must) && !in_range(o[i], k->nexpr))
      return kerr(k, e, "expr %d: operand %d out of range", (int)x, (int)o[i]);
    if ((expr_uses[op] & may) && o[i] != -1 && !in_range(o[i], k->nexpr))
      return kerr(k, e, "expr %d: operand %d out of range", (int)x, (int)o[i]);
  }
  if ((expr_uses[op] & U_SYM) && !in_range(CG_KEXPR(k, x, SYM), k->nsym))
    return kerr(k, e, "expr %d: symbol %d out of range", (int)x, (int)CG_KEXPR(k, x, SYM));
  if (op == CG_KE_CONST_D && !in_range(CG_KEXPR(k, x, IVAL), k->ndconst))
    return kerr(k, e, "expr %d: constant %d out of range", (int)x, (int)CG_KEXPR(k, x, IVAL));
  if (op == CG_KE_INTRIN) {
    int ar = cg_kintrinsic_arity(CG_KEXPR(k, x, SYM));
    if (ar < 0) return kerr(k, e, "expr %d: intrinsic %d", (int)x, (int)CG_KEXPR(k, x, SYM));
    if ((ar == 2) != (o[1] != -1))
      return kerr(k, e, "expr %d: %s takes %d argument%s", (int)x,
                  cg_kintrinsic_name(CG_KEXPR(k, x, SYM)), ar, ar == 1 ? "" : "s");
  }
  return check_pos(k, e, "expr", (uint32_t)x, CG_KEXPR(k, x, LINE), CG_KEXPR(k, x, COL));
}

/* The subscripts of ELEM and ADDR: ints, a prefix of A, B, C; ELEM has as
 * many as the symbol's dims (one for a plain pointer), ADDR at most that. */
static int check_subscripts(const cg_kernel *k, int32_t x, cg_error *e) {
  int32_t s = CG_KEXPR(k, x, SYM), a = CG_KEXPR(k, x, A), sub[CG_KMAX_DIM];
  int nd = CG_KSYM(k, s, NDIM), op = CG_KEXPR(k, x, OP), scalar = !CG_KSYM(k, s, PTR) && nd == 0;
  int i, n = cg_kexpr_subscripts(k, x, sub), most = nd > 0 ? nd : 1;
  for (i = 0; i < n; i++)
    if (etype(k, sub[i]) != CG_KT_INT) return kerr(k, e, "expr %d: a subscript that is not an int", (int)x);
  for (i = n; i < CG_KMAX_DIM; i++)
    if (sub[i] != -1) return kerr(k, e, "expr %d: subscript %d after a missing one", (int)x, i + 1);
  if (n > most && !scalar)
    return kerr(k, e, "expr %d: %d subscripts of a %d-D symbol", (int)x, n, most);
  if (op == CG_KE_ELEM) {
    if (scalar) return kerr(k, e, "expr %d: subscript of a scalar", (int)x);
    if (n < most) return kerr(k, e, "expr %d: %d subscript%s of a %d-D array", (int)x, n, n == 1 ? "" : "s", nd);
    return CG_OK;
  }
  if (scalar && (a != -1 || !(CG_KSYM(k, s, QUAL) & CG_KQ_ADDR)))
    return kerr(k, e, "expr %d: address of scalar sym %d %s", (int)x, (int)s,
                a != -1 ? "with a subscript" : "without the address-taken flag");
  if (CG_KSYM(k, s, PTR) && a == -1)
    return kerr(k, e, "expr %d: address of pointer sym %d (no pointers to pointers)", (int)x,
                (int)s);
  return CG_OK; /* a global's address too: the front end lets only pointers to const hold it */
}

/* Memory access: the symbol belongs to function f or is a global, and fits
 * the operator (VAR: a scalar or a pointer; ELEM, ADDR: subscripts). */
static int check_access(const cg_kernel *k, int32_t x, int32_t f, cg_error *e) {
  int32_t s = CG_KEXPR(k, x, SYM);
  int op = CG_KEXPR(k, x, OP), want, rc;
  if (CG_KSYM(k, s, FUNC) != f && CG_KSYM(k, s, KIND) != CG_KS_GLOBAL)
    return kerr(k, e, "expr %d: sym %d belongs to func %d, not %d", (int)x, (int)s,
                (int)CG_KSYM(k, s, FUNC), (int)f);
  if (CG_KSYM(k, s, PTR) == 2 && op == CG_KE_VAR && k->expr_parent[x] == -1 &&
      CG_KSTMT(k, k->expr_stmt[x], KIND) == CG_KST_CALL) { /* passed on to a callee's pointer to pointers */
    int32_t st = k->expr_stmt[x], a0 = CG_KSTMT(k, st, CALL_ARGS), g = CG_KSTMT(k, st, CALL_CALLEE), i, p = -1;
    for (i = 0; i < CG_KSTMT_N(k, st, CALL_ARGS); i++)
      if (k->args[a0 + i] == x && i < CG_KFUNC(k, g, NPARAM)) p = CG_KFUNC(k, g, SYM0) + i;
    if (p < 0 || CG_KSYM(k, p, PTR) != 2 || CG_KSYM(k, p, BASE) != CG_KSYM(k, s, BASE) ||
        CG_KSYM(k, p, CTYPE) != CG_KSYM(k, s, CTYPE))
      return kerr(k, e, "expr %d: pointer-to-pointer sym %d passed to no parameter of its type", (int)x, (int)s);
    want = cg_ksym_type(k, s);
  } else if (CG_KSYM(k, s, PTR) == 2) { /* rows: only a load t = A[i] */
    int32_t st = k->expr_stmt[x];
    if (op != CG_KE_ELEM)
      return kerr(k, e, "expr %d: a %s of pointer-to-pointer sym %d (only a load of a row)", (int)x,
                  cg_kexpr_name(op), (int)s);
    if (k->expr_parent[x] != -1 || CG_KSTMT(k, st, KIND) != CG_KST_ASSIGN ||
        CG_KSTMT(k, st, ASSIGN_RHS) != x)
      return kerr(k, e, "expr %d: a row of sym %d that is not the rhs of an assignment", (int)x, (int)s);
    if ((rc = check_subscripts(k, x, e))) return rc;
    want = ptr_of(CG_KSYM(k, s, BASE));
  } else if (op == CG_KE_VAR) {
    if (!CG_KSYM(k, s, PTR) && CG_KSYM(k, s, NDIM) > 0)
      return kerr(k, e, "expr %d: value of array sym %d (its address is ADDR)", (int)x, (int)s);
    want = cg_ksym_type(k, s);
  } else {
    if ((rc = check_subscripts(k, x, e))) return rc;
    want = op == CG_KE_ELEM ? CG_KSYM(k, s, BASE) : ptr_of(CG_KSYM(k, s, BASE));
  }
  if (etype(k, x) != want)
    return kerr(k, e, "expr %d: type %s, but sym %d gives %s", (int)x,
                cg_ktype_name(etype(k, x)) ? cg_ktype_name(etype(k, x)) : "?", (int)s,
                cg_ktype_name(want));
  return CG_OK;
}

/* The result and operand types of an operator (CG_KEXPRS). */
static int check_expr_types(const cg_kernel *k, int32_t x, cg_error *e) {
  int op = CG_KEXPR(k, x, OP), t = etype(k, x), ta, tb = -1, ok;
  int32_t o[3];
  cg_kexpr_operands(k, x, o);
  ta = o[0] >= 0 ? etype(k, o[0]) : -1;
  if (o[1] >= 0) tb = etype(k, o[1]);
  switch (op) {
    case CG_KE_CONST_I: ok = t == CG_KT_INT; break;
    case CG_KE_CONST_D: ok = t == CG_KT_DOUBLE; break;
    case CG_KE_PTRADD: ok = is_ptr_type(t) && ta == t && tb == CG_KT_INT; break;
    case CG_KE_NEG: ok = is_num_type(t) && ta == t; break;
    case CG_KE_NOT: ok = t == CG_KT_INT && is_num_type(ta); break;
    case CG_KE_MOD: ok = t == CG_KT_INT && ta == t && tb == t; break;
    case CG_KE_ADD: case CG_KE_SUB: case CG_KE_MUL: case CG_KE_DIV:
      ok = is_num_type(t) && ta == t && tb == t;
      break;
    case CG_KE_AND: case CG_KE_OR: ok = t == CG_KT_INT && is_num_type(ta) && is_num_type(tb); break;
    case CG_KE_COND:
      ok = (is_num_type(t) || is_ptr_type(t)) && is_num_type(ta) && tb == t && etype(k, o[2]) == t;
      break;
    case CG_KE_CAST:
      ok = is_num_type(t) && is_num_type(ta) &&
           (CG_KEXPR(k, x, IVAL) == -1 || CG_KEXPR(k, x, IVAL) == CG_KC_INT ||
            (t == CG_KT_INT && CG_KEXPR(k, x, IVAL) > CG_KC_INT && CG_KEXPR(k, x, IVAL) < CG_KC_COUNT));
      break;
    case CG_KE_INTRIN: ok = t == CG_KT_DOUBLE && ta == t && (o[1] < 0 || tb == t); break;
    case CG_KE_NULLP: ok = is_ptr_type(t); break;
    case CG_KE_PTRDIFF: ok = t == CG_KT_INT && is_ptr_type(ta) && ta == tb; break;
    case CG_KE_BAND: case CG_KE_BOR: case CG_KE_BXOR: case CG_KE_SHL: case CG_KE_SHR:
      ok = t == CG_KT_INT && ta == t && tb == t;
      break;
    case CG_KE_BNOT: ok = t == CG_KT_INT && ta == t; break;
    default: ok = t == CG_KT_INT && (is_num_type(ta) || is_ptr_type(ta)) && ta == tb; break; /* comparisons */
  }
  if (!ok)
    return kerr(k, e, "expr %d: %s of type %s with operands of types %s, %s", (int)x,
                cg_kexpr_name(op), cg_ktype_name(t) ? cg_ktype_name(t) : "?",
                ta >= 0 && cg_ktype_name(ta) ? cg_ktype_name(ta) : "-",
                tb >= 0 && cg_ktype_name(tb) ? cg_ktype_name(tb) : "-");
  return CG_OK;
}

/* Visits the tree under x (parent: expression or -1) of statement st in
 * function f: one parent each, depth bounded, rows and types checked. */
static int visit_expr(cg_kernel *k, int32_t x, int32_t parent, int32_t st, int32_t f, int depth,
                      cg_error *e) {
  int32_t o[3];
  int i, rc, op;
  if (k->expr_stmt[x] != -1)
    return kerr(k, e, "expr %d: a second parent (expressions are trees)", (int)x);
  if (depth > CG_KMAX_DEPTH)
    return kerr(k, e, "expr %d: nested deeper than %d", (int)x, CG_KMAX_DEPTH);
  k->expr_stmt[x] = st;
  k->expr_parent[x] = parent;
  if ((rc = check_expr_row(k, x, e))) return rc;
  op = CG_KEXPR(k, x, OP);
  cg_kexpr_operands(k, x, o);
  for (i = 0; i < 3; i++)
    if (o[i] >= 0 && (rc = visit_expr(k, o[i], x, st, f, depth + 1, e))) return rc;
  if (op == CG_KE_VAR || op == CG_KE_ELEM || op == CG_KE_ADDR) return check_access(k, x, f, e);
  return check_expr_types(k, x, e);
}

/* {==== statements ====} */

/* Where a slice is: its loop for BREAK/CONTINUE (-1: none), whether only
 * ASSIGN and CALL may appear (a loop's pre and step), the depth. */
typedef struct where {
  int32_t f, parent, loop;
  int straight, depth;
} where;

static int visit_slice(cg_kernel *k, int32_t start, int32_t n, where w, cg_error *e);

/* The parts of the kinds (CG_KSTMT_PARTS), by kind and slot: the sort and
 * the word a message names the part by (PART_WORD_<NAME>: a new part name
 * does not compile without one). */
#define PART_WORD_LHS "lhs"
#define PART_WORD_RHS "rhs"
#define PART_WORD_CALLEE "callee"
#define PART_WORD_ARGS "arguments"
#define PART_WORD_COND "condition"
#define PART_WORD_THEN "slice"
#define PART_WORD_ELSE "slice"
#define PART_WORD_PRE "slice"
#define PART_WORD_BODY "slice"
#define PART_WORD_STEP "slice"
#define PART_WORD_VALUE "value"
#define PART_WORD_COUNT "count"
#define PART_WORD_BLOCK "block"
#define PART_WORD_PTR "pointer"
static const struct part {
  int sort;
  const char *word; /* NULL: the slot is not a part of the kind */
} parts[CG_KST_COUNT][CG_KSTMT_W] = {
#define P(kind, name, what, slot) \
  [CG_KST_##kind][CG_KSTMT_##kind##_##name] = {CG_KP_##what, PART_WORD_##name},
    CG_KSTMT_PARTS(P)
#undef P
};

/* The one check of a part's slot (part `slot` of statement s's kind, the
 * kind valid), by its sort: EXPR -1 or an expression id, FUNC a function
 * id, LIST a slice of list[], ARGS a slice of args[].  Each kind's visit
 * below calls it where it first reads the part, so that of several faults
 * of a statement the first in the visit's order is the one named. */
static int part_ok(const cg_kernel *k, int32_t s, int slot, cg_error *e) {
  const struct part *p = &parts[CG_KSTMT(k, s, KIND)][slot];
  const int32_t *v = &k->stmt[(size_t)s * CG_KSTMT_W + (size_t)slot];
  int ok = 0;
  switch (p->sort) {
    case CG_KP_EXPR: ok = v[0] == -1 || in_range(v[0], k->nexpr); break;
    case CG_KP_FUNC: ok = in_range(v[0], k->nfunc); break;
    case CG_KP_LIST: case CG_KP_ARGS:
      if (slice_ok(v[0], v[1], p->sort == CG_KP_LIST ? k->nlist : k->narg)) return CG_OK;
      return kerr(k, e, "stmt %d: %s %d+%d out of range", (int)s, p->word, (int)v[0], (int)v[1]);
  }
  return ok ? CG_OK : kerr(k, e, "stmt %d: %s %d out of range", (int)s, p->word, (int)v[0]);
}

/* An expression of statement s (a part's or an argument's, named word in
 * messages): in range, then its tree. */
static int stmt_expr(cg_kernel *k, int32_t s, int32_t x, const char *word, int32_t f,
                     cg_error *e) {
  if (!in_range(x, k->nexpr))
    return kerr(k, e, "stmt %d: %s %d out of range", (int)s, word, (int)x);
  return visit_expr(k, x, -1, s, f, 1, e);
}

/* Expression part `slot` of statement s, which must hold one (-1 is
 * refused here): its slot, then its tree. */
static int part_expr(cg_kernel *k, int32_t s, int slot, int32_t f, cg_error *e) {
  int rc = part_ok(k, s, slot, e);
  if (rc) return rc;
  return stmt_expr(k, s, k->stmt[(size_t)s * CG_KSTMT_W + (size_t)slot],
                   parts[CG_KSTMT(k, s, KIND)][slot].word, f, e);
}

/* LIST part `slot` of statement s: its slot, then the statements of the
 * slice, from w. */
static int part_list(cg_kernel *k, int32_t s, int slot, where w, cg_error *e) {
  int rc = part_ok(k, s, slot, e);
  if (rc) return rc;
  return visit_slice(k, k->stmt[(size_t)s * CG_KSTMT_W + (size_t)slot],
                     k->stmt[(size_t)s * CG_KSTMT_W + (size_t)slot + 1], w, e);
}

/* A left-hand side: a variable or a cell its function may write. */
static int check_lhs(const cg_kernel *k, int32_t s, int32_t x, cg_error *e) {
  int op = CG_KEXPR(k, x, OP);
  int32_t y;
  if (op != CG_KE_VAR && op != CG_KE_ELEM)
    return kerr(k, e, "stmt %d: lhs expr %d is a %s, not a var or elem", (int)s, (int)x,
                cg_kexpr_name(op));
  y = CG_KEXPR(k, x, SYM);
  if (CG_KSYM(k, y, KIND) == CG_KS_GLOBAL)
    return kerr(k, e, "stmt %d: writes global sym %d", (int)s, (int)y);
  if (CG_KSYM(k, y, PTR) == 2)
    return kerr(k, e, "stmt %d: stores into pointer-to-pointer sym %d", (int)s, (int)y);
  if (op == CG_KE_ELEM && CG_KSYM(k, y, PTR) && (CG_KSYM(k, y, QUAL) & CG_KQ_CONST))
    return kerr(k, e, "stmt %d: writes through sym %d, a pointer to const", (int)s, (int)y);
  return CG_OK;
}

static int check_assign(cg_kernel *k, int32_t s, int32_t f, cg_error *e) {
  int32_t l = CG_KSTMT(k, s, ASSIGN_LHS), r = CG_KSTMT(k, s, ASSIGN_RHS);
  int rc;
  if ((rc = part_expr(k, s, CG_KSTMT_ASSIGN_LHS, f, e)) ||
      (rc = part_expr(k, s, CG_KSTMT_ASSIGN_RHS, f, e)) || (rc = check_lhs(k, s, l, e)))
    return rc;
  if (etype(k, l) != etype(k, r))
    return kerr(k, e, "stmt %d: assigns %s to %s", (int)s, cg_ktype_name(etype(k, r)),
                cg_ktype_name(etype(k, l)));
  return CG_OK;
}

/* The type a parameter takes: its pointer type or its scalar type. */
static int param_type(const cg_kernel *k, int32_t p) { return cg_ksym_type(k, p); }

static int check_call(cg_kernel *k, int32_t s, int32_t f, cg_error *e) {
  int32_t g = CG_KSTMT(k, s, CALL_CALLEE), a0 = CG_KSTMT(k, s, CALL_ARGS);
  int32_t na = CG_KSTMT_N(k, s, CALL_ARGS), l = CG_KSTMT(k, s, CALL_LHS), i;
  int rc;
  if ((rc = part_ok(k, s, CG_KSTMT_CALL_CALLEE, e))) return rc;
  if (na != CG_KFUNC(k, g, NPARAM))
    return kerr(k, e, "stmt %d: %d arguments to %s, which takes %d", (int)s, (int)na,
                k->names[CG_KFUNC(k, g, NAME)], (int)CG_KFUNC(k, g, NPARAM));
  if ((rc = part_ok(k, s, CG_KSTMT_CALL_ARGS, e))) return rc;
  for (i = 0; i < na; i++) {
    int32_t x = k->args[a0 + i], p = CG_KFUNC(k, g, SYM0) + i;
    if ((rc = stmt_expr(k, s, x, "argument", f, e))) return rc;
    if (etype(k, x) != param_type(k, p))
      return kerr(k, e, "stmt %d: argument %d of type %s for a parameter of type %s", (int)s,
                  (int)i + 1, cg_ktype_name(etype(k, x)), cg_ktype_name(param_type(k, p)));
  }
  if (l == -1) return CG_OK;
  if ((rc = part_expr(k, s, CG_KSTMT_CALL_LHS, f, e)) || (rc = check_lhs(k, s, l, e))) return rc;
  if (etype(k, l) != CG_KFUNC(k, g, RET))
    return kerr(k, e, "stmt %d: the result of %s (%s) into a %s", (int)s,
                k->names[CG_KFUNC(k, g, NAME)], cg_ktype_name(CG_KFUNC(k, g, RET)),
                cg_ktype_name(etype(k, l)));
  return CG_OK;
}

/* A condition (part `slot` of s): an int or a double (true when not 0). */
static int check_cond(cg_kernel *k, int32_t s, int slot, int32_t f, cg_error *e) {
  int32_t x = k->stmt[(size_t)s * CG_KSTMT_W + (size_t)slot];
  int rc = part_expr(k, s, slot, f, e);
  if (!rc && !is_num_type(etype(k, x)))
    return kerr(k, e, "stmt %d: condition of type %s", (int)s, cg_ktype_name(etype(k, x)));
  return rc;
}

static int check_if(cg_kernel *k, int32_t s, where w, cg_error *e) {
  int rc = check_cond(k, s, CG_KSTMT_IF_COND, w.f, e);
  w.parent = s, w.depth++;
  if (!rc) rc = part_list(k, s, CG_KSTMT_IF_THEN, w, e);
  if (!rc) rc = part_list(k, s, CG_KSTMT_IF_ELSE, w, e);
  return rc;
}

static int check_loop(cg_kernel *k, int32_t s, where w, cg_error *e) {
  int32_t fl = CG_KSTMT(k, s, FLAGS);
  int rc = CG_OK;
  if (fl < CG_KL_FOR || fl > CG_KL_DO) return kerr(k, e, "stmt %d: loop flags %d", (int)s, (int)fl);
  if (CG_KSTMT(k, s, LOOP_COND) != -1) rc = check_cond(k, s, CG_KSTMT_LOOP_COND, w.f, e);
  w.parent = s, w.depth++;
  w.loop = s, w.straight = 0;
  if (!rc) rc = part_list(k, s, CG_KSTMT_LOOP_BODY, w, e);
  w.loop = -1, w.straight = 1;
  if (!rc) rc = part_list(k, s, CG_KSTMT_LOOP_STEP, w, e);
  if (!rc) rc = part_list(k, s, CG_KSTMT_LOOP_PRE, w, e);
  return rc;
}

static int check_return(cg_kernel *k, int32_t s, int32_t f, cg_error *e) {
  int32_t x = CG_KSTMT(k, s, RETURN_VALUE);
  int ret = CG_KFUNC(k, f, RET), rc;
  if (x == -1) return CG_OK; /* C allows it; the interpreter stops if the value is used */
  if (ret == CG_KT_VOID) return kerr(k, e, "stmt %d: returns a value from a void func", (int)s);
  if ((rc = part_expr(k, s, CG_KSTMT_RETURN_VALUE, f, e))) return rc;
  if (etype(k, x) != ret)
    return kerr(k, e, "stmt %d: returns %s from a func returning %s", (int)s,
                cg_ktype_name(etype(k, x)), cg_ktype_name(ret));
  return CG_OK;
}

/* p = malloc/calloc: a pointer variable, an int count, the block an ADDR
 * of a heap site of this function (one ALLOC each) whose cells are the
 * pointer's. */
static int check_alloc(cg_kernel *k, int32_t s, int32_t f, cg_error *e) {
  int32_t l = CG_KSTMT(k, s, ALLOC_LHS), c = CG_KSTMT(k, s, ALLOC_COUNT), b = CG_KSTMT(k, s, ALLOC_BLOCK), y, h;
  int rc;
  if ((rc = part_expr(k, s, CG_KSTMT_ALLOC_LHS, f, e)) || (rc = check_lhs(k, s, l, e))) return rc;
  if (CG_KEXPR(k, l, OP) != CG_KE_VAR || !is_ptr_type(etype(k, l)))
    return kerr(k, e, "stmt %d: allocates into a %s, not a pointer variable", (int)s, cg_ktype_name(etype(k, l)));
  if ((rc = part_expr(k, s, CG_KSTMT_ALLOC_COUNT, f, e))) return rc;
  if (etype(k, c) != CG_KT_INT) return kerr(k, e, "stmt %d: a count of type %s", (int)s, cg_ktype_name(etype(k, c)));
  if ((rc = part_expr(k, s, CG_KSTMT_ALLOC_BLOCK, f, e))) return rc;
  h = CG_KEXPR(k, b, SYM);
  if (CG_KEXPR(k, b, OP) != CG_KE_ADDR || CG_KEXPR(k, b, A) != -1 || CG_KSYM(k, h, KIND) != CG_KS_HEAP)
    return kerr(k, e, "stmt %d: the block is not the address of a heap site", (int)s);
  if ((CG_KSTMT(k, s, FLAGS) & ~CG_KH_ZERO) != 0)
    return kerr(k, e, "stmt %d: alloc flags %d", (int)s, (int)CG_KSTMT(k, s, FLAGS));
  y = CG_KEXPR(k, l, SYM);
  if (CG_KSYM(k, h, BASE) != CG_KSYM(k, y, BASE))
    return kerr(k, e, "stmt %d: a block of %s for a pointer to %s", (int)s, cg_ktype_name(CG_KSYM(k, h, BASE)),
                cg_ktype_name(CG_KSYM(k, y, BASE)));
  return CG_OK;
}

static int check_free(cg_kernel *k, int32_t s, int32_t f, cg_error *e) {
  int32_t x = CG_KSTMT(k, s, FREE_PTR);
  int rc = part_expr(k, s, CG_KSTMT_FREE_PTR, f, e);
  if (rc) return rc;
  if (!is_ptr_type(etype(k, x))) return kerr(k, e, "stmt %d: frees a %s", (int)s, cg_ktype_name(etype(k, x)));
  return CG_OK;
}

/* A passive call: a row of CG_KPASSIVES in FLAGS, its text where the row
 * has one (a format the interpreter can format: cg_kformat_scan), value
 * arguments of the types the row or its format says. */
static int check_passive(cg_kernel *k, int32_t s, int32_t f, cg_error *e) {
  int id = CG_KSTMT(k, s, FLAGS), types[CG_KFMT_MAX_CONV * 3], nconv, want, i, rc;
  int32_t t = CG_KSTMT(k, s, X0), a0, na;
  cg_kconv conv[CG_KFMT_MAX_CONV];
  char why[160];
  if (id < 0 || id >= CG_KPC_COUNT) return kerr(k, e, "stmt %d: passive call %d", (int)s, id);
  if ((t == -1) != (cg_kpassive_text(id) == 0))
    return kerr(k, e, "stmt %d: %s with%s a text", (int)s, cg_kpassive_fn(id), t == -1 ? "out" : "");
  if (t != -1 && !in_range(t, k->nname)) return kerr(k, e, "stmt %d: text %d out of range", (int)s, (int)t);
  if ((rc = part_ok(k, s, CG_KSTMT_PASSIVE_ARGS, e))) return rc;
  a0 = CG_KSTMT(k, s, PASSIVE_ARGS), na = CG_KSTMT_N(k, s, PASSIVE_ARGS);
  want = cg_kpassive_nargs(id);
  if (want < 0 && (want = cg_kformat_scan(k->names[t], conv, &nconv, types, why, sizeof why)) < 0)
    return kerr(k, e, "stmt %d: %s's format: %s", (int)s, cg_kpassive_fn(id), why);
  if (na != want)
    return kerr(k, e, "stmt %d: %d arguments to %s, which takes %d", (int)s, (int)na, cg_kpassive_fn(id), want);
  for (i = 0; cg_kpassive_nargs(id) < 0 && i < want; i++)
    if (types[i] == CG_KFMT_STRING) return kerr(k, e, "stmt %d: %s's format converts a string", (int)s, cg_kpassive_fn(id));
  for (i = 0; i < na; i++) {
    int32_t x = k->args[a0 + i];
    int ty = cg_kpassive_nargs(id) < 0 ? types[i] : CG_KT_INT;
    if ((rc = stmt_expr(k, s, x, "argument", f, e))) return rc;
    if (etype(k, x) != ty && !(id == CG_KPC_ASSERT && is_num_type(etype(k, x))))
      return kerr(k, e, "stmt %d: argument %d of %s of type %s, not %s", (int)s, (int)i + 1,
                  cg_kpassive_fn(id), cg_ktype_name(etype(k, x)), cg_ktype_name(ty));
  }
  return CG_OK;
}

/* Statement s, reached once from a slice described by w. */
static int visit_stmt(cg_kernel *k, int32_t s, where w, cg_error *e) {
  int kind = CG_KSTMT(k, s, KIND), rc;
  if (k->stmt_parent[s] != -2) return kerr(k, e, "stmt %d: in two body slices", (int)s);
  if (w.depth > CG_KMAX_DEPTH) return kerr(k, e, "stmt %d: nested deeper than %d", (int)s, CG_KMAX_DEPTH);
  k->stmt_parent[s] = w.parent;
  if (kind < 0 || kind >= CG_KST_COUNT) return kerr(k, e, "stmt %d: kind %d", (int)s, kind);
  if (CG_KSTMT(k, s, FUNC) != w.f)
    return kerr(k, e, "stmt %d: of func %d in a body of func %d", (int)s,
                (int)CG_KSTMT(k, s, FUNC), (int)w.f);
  if ((rc = check_pos(k, e, "stmt", (uint32_t)s, CG_KSTMT(k, s, LINE), CG_KSTMT(k, s, COL))))
    return rc;
  if (CG_KSTMT(k, s, PRAGMA) != -1 && !in_range(CG_KSTMT(k, s, PRAGMA), k->nname))
    return kerr(k, e, "stmt %d: pragma %d out of range", (int)s, (int)CG_KSTMT(k, s, PRAGMA));
  if (w.straight && kind != CG_KST_ASSIGN && kind != CG_KST_CALL)
    return kerr(k, e, "stmt %d: a %s in a loop's pre or step slice", (int)s, cg_kstmt_name(kind));
  if (kind != CG_KST_LOOP && kind != CG_KST_ALLOC && kind != CG_KST_PASSIVE && CG_KSTMT(k, s, FLAGS) != 0)
    return kerr(k, e, "stmt %d: flags %d on a %s", (int)s, (int)CG_KSTMT(k, s, FLAGS),
                cg_kstmt_name(kind));
  switch (kind) {
    case CG_KST_ASSIGN: return check_assign(k, s, w.f, e);
    case CG_KST_CALL: return check_call(k, s, w.f, e);
    case CG_KST_IF: return check_if(k, s, w, e);
    case CG_KST_LOOP: return check_loop(k, s, w, e);
    case CG_KST_RETURN: return check_return(k, s, w.f, e);
    case CG_KST_ALLOC: return check_alloc(k, s, w.f, e);
    case CG_KST_FREE: return check_free(k, s, w.f, e);
    case CG_KST_PASSIVE: return check_passive(k, s, w.f, e);
    default:
      if (w.loop < 0) return kerr(k, e, "stmt %d: %s outside a loop body", (int)s, cg_kstmt_name(kind));
      k->stmt_loop[s] = w.loop;
      return CG_OK;
  }
}

/* The statements of a slice of list[] already checked (check_func_row,
 * part_ok). */
static int visit_slice(cg_kernel *k, int32_t start, int32_t n, where w, cg_error *e) {
  int32_t i;
  int rc;
  for (i = 0; i < n; i++) {
    int32_t s = k->list[start + i];
    if (!in_range(s, k->nstmt))
      return kerr(k, e, "list %d: statement %d out of range", (int)(start + i), (int)s);
    if ((rc = visit_stmt(k, s, w, e))) return rc;
  }
  return CG_OK;
}

/* {==== load ====} */

/* Each heap site is the block of exactly one ALLOC, and no other
 * expression names it. */
static int check_sites(cg_kernel *k, cg_error *e) {
  uint32_t i;
  int32_t *n = CG_NEW(k->A, int32_t, k->nsym ? k->nsym : 1);
  int rc = CG_OK;
  if (!n) return cg_seterr(e, CG_ENOMEM, "%s: kernel form: out of memory", k->file ? k->file : "kernel");
  memset(n, 0, (k->nsym ? k->nsym : 1) * sizeof *n);
  for (i = 0; i < k->nexpr && !rc; i++) {
    int op = CG_KEXPR(k, i, OP);
    int32_t y = CG_KEXPR(k, i, SYM), st = k->expr_stmt[i];
    if ((op != CG_KE_VAR && op != CG_KE_ELEM && op != CG_KE_ADDR) || CG_KSYM(k, y, KIND) != CG_KS_HEAP) continue;
    if (CG_KSTMT(k, st, KIND) != CG_KST_ALLOC || CG_KSTMT(k, st, ALLOC_BLOCK) != (int32_t)i)
      rc = kerr(k, e, "expr %u: names heap site sym %d outside its alloc", (unsigned)i, (int)y);
    else if (n[y]++)
      rc = kerr(k, e, "stmt %d: heap site sym %d is another alloc's too", (int)st, (int)y);
  }
  for (i = 0; i < k->nsym && !rc; i++)
    if (CG_KSYM(k, i, KIND) == CG_KS_HEAP && n[i] != 1)
      rc = kerr(k, e, "sym %u: a heap site of no alloc", (unsigned)i);
  CG_FREE(k->A, n, int32_t, k->nsym ? k->nsym : 1);
  return rc;
}

static int check_all(cg_kernel *k, cg_error *e) {
  uint32_t i;
  int rc;
  for (i = 0; i < k->nexpr; i++) k->expr_stmt[i] = -1, k->expr_parent[i] = -1;
  for (i = 0; i < k->nstmt; i++) k->stmt_parent[i] = -2, k->stmt_loop[i] = -1;
  if ((rc = check_funcs(k, e))) return rc;
  for (i = 0; i < k->nsym; i++)
    if ((rc = check_sym(k, (int32_t)i, e))) return rc;
  for (i = 0; i < k->nfunc; i++) {
    where w = {(int32_t)i, -1, -1, 0, 1};
    if ((rc = visit_slice(k, CG_KFUNC(k, i, BODY), CG_KFUNC(k, i, NBODY), w, e))) return rc;
  }
  for (i = 0; i < k->nstmt; i++)
    if (k->stmt_parent[i] == -2) return kerr(k, e, "stmt %u: in no body slice", (unsigned)i);
  for (i = 0; i < k->nexpr; i++)
    if (k->expr_stmt[i] == -1) return kerr(k, e, "expr %u: under no statement", (unsigned)i);
  return check_sites(k, e);
}

cg_kernel *cg_kernel_load(cg_alloc *A, const cg_ksrc *src, cg_error *e) {
  cg_kernel *k;
  int rc;
  if (!src) {
    cg_seterr(e, CG_EUSAGE, "cg_kernel_load: no source");
    return NULL;
  }
  if (!(k = CG_NEW(A, cg_kernel, 1))) {
    cg_seterr(e, CG_ENOMEM, "%s: kernel form: out of memory", src->file ? src->file : "kernel");
    return NULL;
  }
  memset(k, 0, sizeof *k);
  k->A = A;
  rc = copy_src(k, src, e);
  if (!rc) rc = check_all(k, e);
  if (rc) {
    cg_kernel_free(k);
    return NULL;
  }
  return k;
}

int32_t cg_kernel_find(const cg_kernel *k, const char *name) {
  uint32_t f;
  for (f = 0; f < k->nfunc; f++)
    if (!strcmp(k->names[CG_KFUNC(k, f, NAME)], name)) return (int32_t)f;
  return -1;
}
