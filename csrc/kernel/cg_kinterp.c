/* cg_kinterp.c: the kernel interpreter (cg_kinterp.h): a tree walk over the
 * loaded intermediate form, one C frame per statement nesting and call. */
#include "cg_kinterp.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

CG_KKINDS_SEEN(10, 32); /* the statement kinds and expression operators its switches handle */

/* The C stack's guard: statement slices nested, summed over the active
 * calls (expressions add at most CG_KMAX_DEPTH on top). */
#define MAX_NEST 12000u

/* A value: an int (i), a double (d) or a pointer (object obj, offset i). */
typedef struct kv {
  double d;
  int64_t i;
  int32_t obj;
} kv;

/* An object: n cells of base type; sym the symbol it is for, or array the
 * caller array it is; konst: writes through pointers are refused. */
typedef struct kobj {
  int32_t sym, array;
  uint8_t base, konst;
  uint8_t heap; /* H_LIVE: a block of an ALLOC (its sym the site), H_FREED after its free */
  int32_t freed_at; /* the FREE statement, H_FREED */
  int64_t n;
  double *d;
  int32_t *iv;
  uint8_t *init, *acc;
  double *t; /* n * ndir tangents of a double object in tangent mode */
  int32_t *pobj; /* an object of pointer cells (the rows of a ptr-2 parameter): n pointers */
  int64_t *poff;
} kobj;

/* An activation: per symbol of f its object (-1 for a pointer) and, for a
 * pointer, its value (pobj -1: not set). */
typedef struct frame {
  int32_t f;
  uint32_t nsym;
  int32_t *obj, *pobj;
  int64_t *poff;
  uint64_t id;
  size_t obj0; /* the objects from obj0 on are this frame's */
} frame;

typedef struct km {
  const cg_kernel *k;
  cg_alloc *A;
  const cg_kcall *c;
  cg_error *e;
  kobj *obj;
  size_t nobj, cap;
  int32_t *gobj; /* per symbol: a global's object, else -1 */
  uint32_t ndir;
  double *xt;    /* nexpr * ndir: tangents of expression values */
  double *rt;    /* ndir: a returned value's tangents */
  kv ret;
  int has_ret;
  uint64_t steps, max_steps, frames;
  uint64_t block, blocks; /* the current block instance; instances made */
  uint32_t calls, max_calls, nest;
  uint32_t leaks;    /* blocks never freed (counted as their frame ends) */
  int32_t leak_stmt; /* the ALLOC of the first, -1 */
  cg_ktracef rtrace; /* the trace of reads: c->trace, NULL while a hook evaluates */
  uint8_t readmark;  /* CG_KACC_READ, 0 while a hook evaluates */
  char *out[2];      /* stdout, stderr of passive calls */
  size_t nout[2], capout[2];
  int32_t exit_status, exit_stmt;
} km;

/* The statement hook's handle: the statement and its frame. */
struct cg_kpoint {
  km *m;
  const frame *fr;
  int32_t stmt;
};

enum { X_BREAK = 1, X_CONT = 2, X_RET = 3, X_EXIT = 4 };
enum { KNULL = -2 }; /* the object of a null pointer value (-1 in a frame: not set) */
enum { H_NONE = 0, H_LIVE = 1, H_FREED = 2 };

/* {==== errors ====} */

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static int rterr(km *m, int code, int32_t line, int32_t col, const char *fmt, ...) {
  char buf[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return cg_seterr(m->e, code, "%s:%d:%d: %s", m->k->file ? m->k->file : "kernel", (int)line,
                   (int)col, buf);
}
#define XERR(m, x, ...) rterr((m), CG_ERUNTIME, CG_KEXPR((m)->k, x, LINE), CG_KEXPR((m)->k, x, COL), __VA_ARGS__)
#define SERR(m, s, ...) rterr((m), CG_ERUNTIME, CG_KSTMT((m)->k, s, LINE), CG_KSTMT((m)->k, s, COL), __VA_ARGS__)

static int nomem(km *m) {
  return cg_seterr(m->e, CG_ENOMEM, "%s: interpreter: out of memory",
                   m->k->file ? m->k->file : "kernel");
}

/* The name of object o for messages. */
static const char *oname(const km *m, int32_t o) {
  const kobj *b = &m->obj[o];
  if (b->array >= 0) return m->c->arrays[b->array].name ? m->c->arrays[b->array].name : "array";
  return m->k->names[CG_KSYM(m->k, b->sym, NAME)];
}

/* }==== */

/* {==== objects ====} */

static void free_obj(km *m, kobj *b) {
  size_t n = (size_t)b->n;
  CG_FREE(m->A, b->d, double, b->d ? n : 0);
  CG_FREE(m->A, b->iv, int32_t, b->iv ? n : 0);
  CG_FREE(m->A, b->init, uint8_t, n);
  CG_FREE(m->A, b->acc, uint8_t, n);
  if (b->t) CG_FREE(m->A, b->t, double, n * m->ndir);
  if (b->pobj) CG_FREE(m->A, b->pobj, int32_t, n), CG_FREE(m->A, b->poff, int64_t, n);
}

/* Pushes an object of n cells, uninitialized (tangents 0); *o its id. */
static int new_obj(km *m, int32_t sym, int32_t array, int base, int konst, int64_t n, int32_t *o) {
  kobj *b;
  if (m->nobj >= INT32_MAX || cg_reserve(m->A, (void **)&m->obj, &m->cap, m->nobj + 1, sizeof *m->obj))
    return nomem(m);
  b = &m->obj[m->nobj];
  memset(b, 0, sizeof *b);
  b->sym = sym, b->array = array, b->base = (uint8_t)base, b->konst = (uint8_t)konst, b->n = n;
  if (base == CG_KT_DOUBLE ? !(b->d = CG_NEW(m->A, double, n)) : !(b->iv = CG_NEW(m->A, int32_t, n)))
    return free_obj(m, b), nomem(m);
  if (!(b->init = CG_NEW(m->A, uint8_t, n)) || !(b->acc = CG_NEW(m->A, uint8_t, n)) ||
      (m->ndir && base == CG_KT_DOUBLE && !(b->t = CG_NEW(m->A, double, (size_t)n * m->ndir))))
    return free_obj(m, b), nomem(m);
  memset(b->init, 0, (size_t)n);
  memset(b->acc, 0, (size_t)n);
  if (b->t) memset(b->t, 0, (size_t)n * m->ndir * sizeof *b->t);
  *o = (int32_t)m->nobj++;
  return CG_OK;
}

static void pop_objs(km *m, size_t to) {
  while (m->nobj > to) {
    kobj *b = &m->obj[--m->nobj];
    if (b->heap == H_LIVE && !m->leaks++) m->leak_stmt = b->freed_at; /* freed_at: its ALLOC while live */
    free_obj(m, b);
  }
}

/* A pointer into object o used (expression x) after o was freed. */
static int after_free(km *m, int32_t x, int32_t o) {
  return XERR(m, x, "use of %s after its free (line %d)", oname(m, o),
              (int)CG_KSTMT(m->k, m->obj[o].freed_at, LINE));
}

static void trace(km *m, int32_t st, int32_t x, int32_t o, int64_t cell, int write,
                  uint64_t frame_id) {
  cg_kaccess a;
  a.stmt = st, a.expr = x, a.array = m->obj[o].array, a.sym = m->obj[o].sym;
  a.cell = cell, a.write = write, a.frame = frame_id, a.block = m->block;
  a.value = m->obj[o].d ? m->obj[o].d[cell] : (double)m->obj[o].iv[cell]; /* read or just written */
  m->c->trace(m->c->trace_ud, &a);
}

/* Reads cell of object o for expression x: value into v, tangents into t. */
static int read_cell(km *m, const frame *fr, int32_t x, int32_t o, int64_t cell, kv *v, double *t) {
  kobj *b = &m->obj[o];
  if (!b->init[cell]) {
    if (b->n == 1 && b->array < 0) return XERR(m, x, "read of uninitialized %s", oname(m, o));
    return XERR(m, x, "read of uninitialized %s[%lld]", oname(m, o), (long long)cell);
  }
  if (b->d) {
    v->d = b->d[cell];
    if (m->ndir) memcpy(t, b->t + (size_t)cell * m->ndir, m->ndir * sizeof *t);
  } else
    v->i = b->iv[cell];
  if (!(b->acc[cell] & CG_KACC_WRITTEN)) b->acc[cell] |= m->readmark;
  if (m->rtrace) trace(m, m->k->expr_stmt[x], x, o, cell, 0, fr->id);
  return CG_OK;
}

/* Writes v (tangents t, NULL: zero) into cell of object o. */
static void write_cell(km *m, uint64_t frame_id, int32_t st, int32_t x, int32_t o, int64_t cell,
                       kv v, const double *t) {
  kobj *b = &m->obj[o];
  if (b->d) {
    b->d[cell] = v.d;
    if (m->ndir) {
      if (t) memcpy(b->t + (size_t)cell * m->ndir, t, m->ndir * sizeof *t);
      else memset(b->t + (size_t)cell * m->ndir, 0, m->ndir * sizeof *t);
    }
  } else
    b->iv[cell] = (int32_t)v.i;
  b->init[cell] = 1;
  b->acc[cell] |= CG_KACC_WRITTEN;
  if (m->c->trace) trace(m, st, x, o, cell, 1, frame_id);
}

/* }==== */

/* {==== expressions ====} */

#define T(m, x) ((m)->xt + (size_t)(x) * (m)->ndir)

static int eval(km *m, const frame *fr, int32_t x, kv *v);

static int32_t sym_obj(const km *m, const frame *fr, int32_t s) {
  if (CG_KSYM(m->k, s, KIND) == CG_KS_GLOBAL) return m->gobj[s];
  return fr->obj[s - CG_KFUNC(m->k, fr->f, SYM0)];
}

/* The value of pointer symbol s (expression x for messages). */
static int ptr_value(km *m, const frame *fr, int32_t x, int32_t s, kv *v) {
  int32_t slot = s - CG_KFUNC(m->k, fr->f, SYM0);
  if (fr->pobj[slot] == -1)
    return XERR(m, x, "pointer %s used before it is set", m->k->names[CG_KSYM(m->k, s, NAME)]);
  v->obj = fr->pobj[slot], v->i = fr->poff[slot];
  if (v->obj != KNULL && m->obj[v->obj].heap == H_FREED) return after_free(m, x, v->obj);
  return CG_OK;
}

/* The values of the subscripts of ELEM/ADDR x into v (a prefix of A, B, C);
 * *n: how many. */
static int subscripts(km *m, const frame *fr, int32_t x, int64_t v[CG_KMAX_DIM], int *n) {
  int32_t sub[CG_KMAX_DIM];
  kv a;
  int rc, d;
  *n = cg_kexpr_subscripts(m->k, x, sub);
  for (d = 0; d < *n; d++) {
    if ((rc = eval(m, fr, sub[d], &a))) return rc;
    v[d] = a.i;
  }
  return CG_OK;
}

/* The name of subscript d of an nd-D array in messages. */
static const char *sub_name(int nd, int d) {
  static const char *const names[CG_KMAX_DIM][CG_KMAX_DIM] = {
      {"cell", "", ""}, {"row", "column", ""}, {"plane", "row", "column"}};
  return names[nd - 1][d];
}

/* Where ELEM or ADDR x points: *o and the offset *cell, its subscripts
 * checked (each within its dim: a column within its row, a row within its
 * plane, an array's first subscript within the array; a pointer's first
 * subscript is not bounded); elem: a dereference (inside the object), else
 * an address (up to one past its end). */
static int locate(km *m, const frame *fr, int32_t x, int elem, int32_t *o, int64_t *cell) {
  const cg_kernel *k = m->k;
  int32_t s = CG_KEXPR(k, x, SYM);
  int nd = CG_KSYM(k, s, NDIM), ptr = CG_KSYM(k, s, PTR), rc, n, d;
  int64_t v[CG_KMAX_DIM], off = 0;
  kv p;
  if ((rc = subscripts(m, fr, x, v, &n))) return rc;
  if (ptr) {
    if ((rc = ptr_value(m, fr, x, s, &p))) return rc;
    if (p.obj == KNULL)
      return XERR(m, x, "%s through %s, which is NULL", elem ? "access" : "address of a cell",
                  k->names[CG_KSYM(k, s, NAME)]);
    *o = p.obj, off = p.i;
  } else
    *o = sym_obj(m, fr, s);
  for (d = 0; d < n && nd >= 2; d++) {
    int64_t dim = cg_ksym_dim(k, s, d);
    if (d == 0 && ptr) continue;
    if (v[d] < 0 || v[d] > dim - elem)
      return XERR(m, x, "%s %lld of %s outside 0..%lld", sub_name(nd, d), (long long)v[d],
                  k->names[CG_KSYM(k, s, NAME)], (long long)(dim - elem));
  }
  for (d = 0; d < n; d++) off += v[d] * cg_ksym_stride(k, s, d);
  *cell = off;
  if (m->obj[*o].pobj && (off < 0 || off >= m->obj[*o].n))
    return XERR(m, x, "read of row %lld of %s, which has %lld rows given", (long long)off,
                k->names[CG_KSYM(k, s, NAME)], (long long)m->obj[*o].n);
  if (off < 0 || off > m->obj[*o].n - elem)
    return XERR(m, x, "%s %lld of %s, which has %lld cells", elem ? "access to cell" : "address of cell",
                (long long)off, oname(m, *o), (long long)m->obj[*o].n);
  return CG_OK;
}

static int int_result(km *m, int32_t x, int64_t r, kv *v) {
  if (r < INT32_MIN || r > INT32_MAX)
    return XERR(m, x, "int overflow in %s (the result %lld does not fit an int)",
                cg_kexpr_name(CG_KEXPR(m->k, x, OP)), (long long)r);
  v->i = r;
  return CG_OK;
}

static int int_binary(km *m, int32_t x, int op, int64_t a, int64_t b, kv *v) {
  switch (op) {
    case CG_KE_ADD: return int_result(m, x, a + b, v);
    case CG_KE_SUB: return int_result(m, x, a - b, v);
    case CG_KE_MUL: return int_result(m, x, a * b, v);
    default:
      if (b == 0) return XERR(m, x, "int %s by 0", op == CG_KE_DIV ? "division" : "modulo");
      if (a == INT32_MIN && b == -1) return int_result(m, x, -a, v); /* overflows: reported */
      return int_result(m, x, op == CG_KE_DIV ? a / b : a % b, v);
  }
}

/* A double + - * / and its tangents (d[0], d[1]: the partials). */
static void dbl_binary(km *m, int32_t x, int op, const kv *a, const kv *b, int32_t xa, int32_t xb,
                       kv *v) {
  double d0, d1;
  uint32_t j;
  switch (op) {
    case CG_KE_ADD: v->d = a->d + b->d, d0 = 1, d1 = 1; break;
    case CG_KE_SUB: v->d = a->d - b->d, d0 = 1, d1 = -1; break;
    case CG_KE_MUL: v->d = a->d * b->d, d0 = b->d, d1 = a->d; break;
    default: v->d = a->d / b->d, d0 = 1 / b->d, d1 = -v->d / b->d; break;
  }
  for (j = 0; j < m->ndir; j++) T(m, x)[j] = d0 * T(m, xa)[j] + d1 * T(m, xb)[j];
}

static int compare(int op, const kv *a, const kv *b, int dbl) {
  if (dbl) switch (op) {
      case CG_KE_LT: return a->d < b->d;
      case CG_KE_LE: return a->d <= b->d;
      case CG_KE_GT: return a->d > b->d;
      case CG_KE_GE: return a->d >= b->d;
      case CG_KE_EQ: return a->d == b->d;
      default: return a->d != b->d;
    }
  switch (op) {
    case CG_KE_LT: return a->i < b->i;
    case CG_KE_LE: return a->i <= b->i;
    case CG_KE_GT: return a->i > b->i;
    case CG_KE_GE: return a->i >= b->i;
    case CG_KE_EQ: return a->i == b->i;
    default: return a->i != b->i;
  }
}

static int truth(const cg_kernel *k, int32_t x, const kv *v) {
  return CG_KEXPR(k, x, TYPE) == CG_KT_DOUBLE ? v->d != 0 : v->i != 0;
}

/* The C library's function of intrinsic id, from its CG_KINTRINSICS row:
 * a new row is evaluated with no edit here. */
#define CG_KI_CALL_1(nm) nm(a)
#define CG_KI_CALL_2(nm) nm(a, b)
static double intrinsic_value(int id, double a, double b) {
  switch (id) {
#define CG_KI_VALUE(id_, nm, ar, g, xaif) \
  case CG_KI_##id_: return CG_KI_CALL_##ar(nm);
    CG_KINTRINSICS(CG_KI_VALUE)
#undef CG_KI_VALUE
    default: break;
  }
  (void)b;
  return NAN; /* not an intrinsic id: the loader refuses it before */
}
#undef CG_KI_CALL_1
#undef CG_KI_CALL_2

static int eval_intrin(km *m, const frame *fr, int32_t x, kv *v) {
  int32_t xa = CG_KEXPR(m->k, x, A), xb = CG_KEXPR(m->k, x, B);
  int id = CG_KEXPR(m->k, x, SYM), rc;
  kv a, b;
  double in[3] = {0, 0, 0}, d[3];
  uint8_t mk[3];
  uint32_t j;
  b.d = 0;
  if ((rc = eval(m, fr, xa, &a)) || (xb >= 0 && (rc = eval(m, fr, xb, &b)))) return rc;
  v->d = intrinsic_value(id, a.d, b.d);
  if (!m->ndir) return CG_OK;
  if (cg_kintrinsic_gop(id) < 0)
    return XERR(m, x, "no partials for %s yet (tangent mode)", cg_kintrinsic_name(id));
  in[0] = a.d, in[1] = b.d;
  cg_gop_partials((unsigned)cg_kintrinsic_gop(id), 0.0, in, v->d, d, mk);
  for (j = 0; j < m->ndir; j++)
    T(m, x)[j] = d[0] * T(m, xa)[j] + (xb >= 0 ? d[1] * T(m, xb)[j] : 0.0);
  return CG_OK;
}

static int eval_cast(km *m, const frame *fr, int32_t x, kv *v) {
  int32_t xa = CG_KEXPR(m->k, x, A);
  int to = CG_KEXPR(m->k, x, TYPE), from = CG_KEXPR(m->k, xa, TYPE), rc, ct;
  kv a;
  if ((rc = eval(m, fr, xa, &a))) return rc;
  if (to == CG_KT_DOUBLE) {
    v->d = from == CG_KT_DOUBLE ? a.d : (double)a.i;
    if (m->ndir) {
      if (from == CG_KT_DOUBLE) memcpy(T(m, x), T(m, xa), m->ndir * sizeof(double));
      else memset(T(m, x), 0, m->ndir * sizeof(double));
    }
    return CG_OK;
  }
  ct = CG_KEXPR(m->k, x, IVAL);
  if (from == CG_KT_INT) return v->i = ct > CG_KC_INT ? cg_kctype_wrap(ct, a.i) : a.i, CG_OK;
  if (ct == CG_KC_BOOL) return v->i = a.d != 0.0, CG_OK; /* C99 6.3.1.2, also NaN: 1 */
  if (!(a.d > -2147483649.0 && a.d < 2147483648.0)) /* also NaN */
    return XERR(m, x, "cast of %.17g to int: out of range", a.d);
  v->i = (int32_t)a.d;
  if (ct > CG_KC_INT && !cg_kctype_fits(ct, v->i)) /* C99 6.3.1.4: undefined */
    return XERR(m, x, "conversion of %.17g to %s: out of range", a.d, cg_kctype_name(ct));
  return CG_OK;
}

static int eval_ptradd(km *m, const frame *fr, int32_t x, kv *v) {
  kv a, b;
  int rc;
  if ((rc = eval(m, fr, CG_KEXPR(m->k, x, A), &a)) || (rc = eval(m, fr, CG_KEXPR(m->k, x, B), &b)))
    return rc;
  if (a.obj == KNULL) return XERR(m, x, "arithmetic on a null pointer");
  if (m->obj[a.obj].heap == H_FREED) return after_free(m, x, a.obj);
  v->obj = a.obj, v->i = a.i + b.i;
  if (v->i < 0 || v->i > m->obj[a.obj].n)
    return XERR(m, x, "pointer arithmetic leaves %s (offset %lld of %lld cells)", oname(m, a.obj),
                (long long)v->i, (long long)m->obj[a.obj].n);
  return CG_OK;
}

/* Pointers a, b of expression x (a comparison or PTRDIFF) as offsets into
 * one object: EQ and NE compare any two (the same cell, or both NULL); the
 * others need one object (C99 6.5.8, 6.5.6), as a check with x's place. */
static int ptr_pair(km *m, int32_t x, int op, kv *a, kv *b) {
  if (op == CG_KE_EQ || op == CG_KE_NE) {
    if (a->obj != b->obj) a->i = 0, b->i = 1; /* different objects: unequal */
    return CG_OK;
  }
  if (a->obj == KNULL || b->obj == KNULL)
    return XERR(m, x, "%s of a null pointer", op == CG_KE_PTRDIFF ? "difference" : "ordered comparison");
  if (a->obj != b->obj)
    return XERR(m, x, "%s of pointers into %s and %s (only within one object)",
                op == CG_KE_PTRDIFF ? "difference" : "ordered comparison", oname(m, a->obj), oname(m, b->obj));
  return CG_OK;
}

/* An int & | ^ << >> (C99 6.5.7: the shifts' undefined cases are errors). */
static int eval_bits(km *m, const frame *fr, int32_t x, int op, kv *v) {
  kv a, b;
  int rc;
  if ((rc = eval(m, fr, CG_KEXPR(m->k, x, A), &a)) || (rc = eval(m, fr, CG_KEXPR(m->k, x, B), &b))) return rc;
  switch (op) {
    case CG_KE_BAND: return v->i = a.i & b.i, CG_OK;
    case CG_KE_BOR: return v->i = a.i | b.i, CG_OK;
    case CG_KE_BXOR: return v->i = a.i ^ b.i, CG_OK;
    default: break;
  }
  if (b.i < 0 || b.i > 31)
    return XERR(m, x, "shift by %lld (an int shifts by 0..31)", (long long)b.i);
  if (op == CG_KE_SHR) return v->i = a.i >> b.i, CG_OK; /* int64 holding an int: arithmetic, as gcc */
  if (a.i < 0) return XERR(m, x, "left shift of the negative int %lld", (long long)a.i);
  return int_result(m, x, a.i * ((int64_t)1 << b.i), v);
}

/* A binary arithmetic operator or comparison. */
static int eval_binary(km *m, const frame *fr, int32_t x, int op, kv *v) {
  int32_t xa = CG_KEXPR(m->k, x, A), xb = CG_KEXPR(m->k, x, B);
  int ta = CG_KEXPR(m->k, xa, TYPE), dbl = ta == CG_KT_DOUBLE, rc;
  kv a, b;
  if ((rc = eval(m, fr, xa, &a)) || (rc = eval(m, fr, xb, &b))) return rc;
  if (ta == CG_KT_PDOUBLE || ta == CG_KT_PINT) { /* pointer comparison or difference */
    if ((rc = ptr_pair(m, x, op, &a, &b))) return rc;
    if (op == CG_KE_PTRDIFF) return int_result(m, x, a.i - b.i, v);
  }
  if (op >= CG_KE_LT) return v->i = compare(op, &a, &b, dbl), CG_OK;
  if (!dbl) return int_binary(m, x, op, a.i, b.i, v);
  dbl_binary(m, x, op, &a, &b, xa, xb, v);
  return CG_OK;
}

/* The value of x (and, for a double in tangent mode, T(m, x)). */
static int eval(km *m, const frame *fr, int32_t x, kv *v) {
  const cg_kernel *k = m->k;
  int op = CG_KEXPR(k, x, OP), rc;
  int32_t o, s = CG_KEXPR(k, x, SYM);
  int64_t cell;
  kv a;
  uint32_t j;
  switch (op) {
    case CG_KE_CONST_I: v->i = CG_KEXPR(k, x, IVAL); return CG_OK;
    case CG_KE_CONST_D:
      v->d = k->dconst[CG_KEXPR(k, x, IVAL)];
      if (m->ndir) memset(T(m, x), 0, m->ndir * sizeof(double));
      return CG_OK;
    case CG_KE_VAR:
      if (CG_KSYM(k, s, PTR)) return ptr_value(m, fr, x, s, v);
      return read_cell(m, fr, x, sym_obj(m, fr, s), 0, v, T(m, x));
    case CG_KE_ELEM:
      if ((rc = locate(m, fr, x, 1, &o, &cell))) return rc;
      if (m->obj[o].pobj) { /* a load of a row pointer */
        v->obj = m->obj[o].pobj[cell], v->i = m->obj[o].poff[cell];
        return CG_OK;
      }
      return read_cell(m, fr, x, o, cell, v, T(m, x));
    case CG_KE_ADDR:
      if (!CG_KSYM(k, s, PTR) && CG_KSYM(k, s, NDIM) == 0)
        return v->obj = sym_obj(m, fr, s), v->i = 0, CG_OK;
      if ((rc = locate(m, fr, x, 0, &v->obj, &v->i))) return rc;
      return CG_OK;
    case CG_KE_PTRADD: return eval_ptradd(m, fr, x, v);
    case CG_KE_NEG:
      if ((rc = eval(m, fr, CG_KEXPR(k, x, A), &a))) return rc;
      if (CG_KEXPR(k, x, TYPE) == CG_KT_INT) return int_result(m, x, -a.i, v);
      v->d = -a.d;
      for (j = 0; j < m->ndir; j++) T(m, x)[j] = -T(m, CG_KEXPR(k, x, A))[j];
      return CG_OK;
    case CG_KE_NOT:
      if ((rc = eval(m, fr, CG_KEXPR(k, x, A), &a))) return rc;
      v->i = !truth(k, CG_KEXPR(k, x, A), &a);
      return CG_OK;
    case CG_KE_AND: case CG_KE_OR:
      if ((rc = eval(m, fr, CG_KEXPR(k, x, A), &a))) return rc;
      if (truth(k, CG_KEXPR(k, x, A), &a) == (op == CG_KE_OR)) return v->i = op == CG_KE_OR, CG_OK;
      if ((rc = eval(m, fr, CG_KEXPR(k, x, B), &a))) return rc;
      v->i = truth(k, CG_KEXPR(k, x, B), &a);
      return CG_OK;
    case CG_KE_COND: {
      int32_t pick;
      if ((rc = eval(m, fr, CG_KEXPR(k, x, A), &a))) return rc;
      pick = truth(k, CG_KEXPR(k, x, A), &a) ? CG_KEXPR(k, x, B) : CG_KEXPR(k, x, C);
      if ((rc = eval(m, fr, pick, v))) return rc;
      if (m->ndir && CG_KEXPR(k, x, TYPE) == CG_KT_DOUBLE)
        memcpy(T(m, x), T(m, pick), m->ndir * sizeof(double));
      return CG_OK;
    }
    case CG_KE_CAST: return eval_cast(m, fr, x, v);
    case CG_KE_INTRIN: return eval_intrin(m, fr, x, v);
    case CG_KE_NULLP: return v->obj = KNULL, v->i = 0, CG_OK;
    case CG_KE_BNOT:
      if ((rc = eval(m, fr, CG_KEXPR(k, x, A), &a))) return rc;
      return v->i = ~a.i, CG_OK;
    case CG_KE_BAND: case CG_KE_BOR: case CG_KE_BXOR: case CG_KE_SHL: case CG_KE_SHR: return eval_bits(m, fr, x, op, v);
    case CG_KE_PTRDIFF: return eval_binary(m, fr, x, op, v);
    default: return eval_binary(m, fr, x, op, v);
  }
}

/* }==== */

/* {==== statements and calls ====} */

static int exec_slice(km *m, frame *fr, int32_t start, int32_t n);
static int call_func(km *m, int32_t g, const frame *caller, int32_t st);
static int call_external(km *m, int32_t g, const frame *caller, int32_t st);

/* Stores v (tangents of expression xv, or none) into lhs expression l of
 * statement st: a variable, a pointer variable, or a cell. */
static int store(km *m, frame *fr, int32_t st, int32_t l, kv v, const double *t) {
  const cg_kernel *k = m->k;
  int32_t s = CG_KEXPR(k, l, SYM), o;
  int64_t cell = 0;
  int rc;
  if (CG_KEXPR(k, l, OP) == CG_KE_VAR) {
    int32_t slot = s - CG_KFUNC(k, fr->f, SYM0);
    if (CG_KSYM(k, s, PTR)) { /* pointer assignment */
      fr->pobj[slot] = v.obj, fr->poff[slot] = v.i;
      return CG_OK;
    }
    o = fr->obj[slot];
  } else {
    if ((rc = locate(m, fr, l, 1, &o, &cell))) return rc;
    if (CG_KSYM(k, s, PTR) && m->obj[o].konst)
      return XERR(m, l, "write through %s to const %s", k->names[CG_KSYM(k, s, NAME)], oname(m, o));
  }
  if (CG_KSYM(k, s, CTYPE) != CG_KC_INT) v.i = cg_kctype_wrap(CG_KSYM(k, s, CTYPE), v.i);
  write_cell(m, fr->id, st, l, o, cell, v, m->obj[o].base == CG_KT_DOUBLE ? t : NULL);
  return CG_OK;
}

static int exec_call(km *m, frame *fr, int32_t s) {
  const cg_kernel *k = m->k;
  int32_t g = CG_KSTMT(k, s, CALL_CALLEE), l = CG_KSTMT(k, s, CALL_LHS);
  int rc = call_func(m, g, fr, s), has;
  if (rc) return rc;
  has = m->has_ret;
  m->has_ret = 0; /* the caller's own return is yet to come */
  if (l < 0) return CG_OK;
  if (!has)
    return SERR(m, s, "%s ended without returning a value, which is used here",
                k->names[CG_KFUNC(k, g, NAME)]);
  return store(m, fr, s, l, m->ret, m->ndir ? m->rt : NULL);
}

/* p = malloc(n cells) or calloc: a new object for the site's block, its
 * cells indeterminate (malloc) or 0 (calloc); p points to its start. */
static int exec_alloc(km *m, frame *fr, int32_t s) {
  const cg_kernel *k = m->k;
  int32_t l = CG_KSTMT(k, s, ALLOC_LHS), h = CG_KEXPR(k, CG_KSTMT(k, s, ALLOC_BLOCK), SYM), o;
  int zero = (CG_KSTMT(k, s, FLAGS) & CG_KH_ZERO) != 0, rc;
  kv n, p;
  kobj *b;
  if ((rc = eval(m, fr, CG_KSTMT(k, s, ALLOC_COUNT), &n))) return rc;
  if (n.i < 0) return SERR(m, s, "%s of %lld cells", zero ? "calloc" : "malloc", (long long)n.i);
  if ((rc = new_obj(m, h, -1, CG_KSYM(k, h, BASE), 0, n.i, &o))) return rc;
  b = &m->obj[o];
  b->heap = H_LIVE, b->freed_at = s;
  if (zero) {
    if (b->d) memset(b->d, 0, (size_t)n.i * sizeof *b->d);
    else memset(b->iv, 0, (size_t)n.i * sizeof *b->iv);
    memset(b->init, 1, (size_t)n.i);
  }
  p.obj = o, p.i = 0, p.d = 0;
  return store(m, fr, s, l, p, NULL);
}

/* free(p): p the start of a live block. */
static int exec_free(km *m, frame *fr, int32_t s) {
  const cg_kernel *k = m->k;
  int32_t x = CG_KSTMT(k, s, FREE_PTR);
  kv p;
  int rc;
  kobj *b;
  if (CG_KEXPR(k, x, OP) == CG_KE_VAR) { /* its value as it is: a freed block is named below */
    int32_t slot = CG_KEXPR(k, x, SYM) - CG_KFUNC(k, fr->f, SYM0);
    if (fr->pobj[slot] == -1)
      return XERR(m, x, "pointer %s used before it is set", k->names[CG_KSYM(k, CG_KEXPR(k, x, SYM), NAME)]);
    p.obj = fr->pobj[slot], p.i = fr->poff[slot];
  } else if ((rc = eval(m, fr, x, &p)))
    return rc;
  if (p.obj == KNULL) return CG_OK; /* free(NULL) does nothing (C99 7.20.3.2) */
  b = &m->obj[p.obj];
  if (b->heap == H_NONE)
    return SERR(m, s, "free of %s, which malloc or calloc did not give", oname(m, p.obj));
  if (b->heap == H_FREED)
    return SERR(m, s, "double free of %s (freed before at line %d)", oname(m, p.obj),
                (int)CG_KSTMT(k, b->freed_at, LINE));
  if (p.i != 0)
    return SERR(m, s, "free of cell %lld of %s, not its start", (long long)p.i, oname(m, p.obj));
  b->heap = H_FREED, b->freed_at = s;
  return CG_OK;
}

/* A loop's test, a step of its own (so that an empty loop ends at the
 * limit): *go is 0 when the loop ends. */
static int loop_test(km *m, frame *fr, int32_t s, int *go) {
  int32_t c = CG_KSTMT(m->k, s, LOOP_COND);
  kv v;
  int rc;
  *go = 1;
  if ((rc = exec_slice(m, fr, CG_KSTMT_SLICE(m->k, s, LOOP_PRE)))) return rc;
  if (++m->steps > m->max_steps)
    return SERR(m, s, "step limit of %llu reached", (unsigned long long)m->max_steps);
  m->block = ++m->blocks; /* the LOOP vertex */
  if (c < 0) return CG_OK;
  if ((rc = eval(m, fr, c, &v))) return rc;
  *go = truth(m->k, c, &v);
  return CG_OK;
}

/* for and while: pre, test, body, step; do: body, step, pre, test. */
static int exec_loop(km *m, frame *fr, int32_t s) {
  const cg_kernel *k = m->k;
  int is_do = CG_KSTMT(k, s, FLAGS) == CG_KL_DO, rc, go;
  for (;;) {
    if (!is_do && ((rc = loop_test(m, fr, s, &go)) || !go)) return rc;
    rc = exec_slice(m, fr, CG_KSTMT_SLICE(k, s, LOOP_BODY));
    if (rc == X_BREAK) return CG_OK;
    if (rc != CG_OK && rc != X_CONT) return rc;
    if ((rc = exec_slice(m, fr, CG_KSTMT_SLICE(k, s, LOOP_STEP)))) return rc;
    if (is_do && ((rc = loop_test(m, fr, s, &go)) || !go)) return rc;
  }
}

/* {==== passive calls ====} */

/* Room for n more bytes of stream fd's output: CG_OK, else an error of s. */
static int out_room(km *m, int32_t s, int fd, size_t n) {
  size_t cap = m->capout[fd];
  char *p;
  if (m->nout[fd] + n + 1 <= cap) return CG_OK;
  if (m->nout[fd] + n > CG_KMAX_OUT)
    return SERR(m, s, "more than %u bytes of output to %s", CG_KMAX_OUT, fd ? "stderr" : "stdout");
  while (cap < m->nout[fd] + n + 1) cap = cap ? 2 * cap : 256;
  if (!(p = cg_realloc(m->A, m->out[fd], m->capout[fd], cap))) return nomem(m);
  m->out[fd] = p, m->capout[fd] = cap;
  return CG_OK;
}

static int out_add(km *m, int32_t s, int fd, const char *t, size_t n) {
  int rc = out_room(m, s, fd, n);
  if (rc) return rc;
  memcpy(m->out[fd] + m->nout[fd], t, n);
  m->nout[fd] += n, m->out[fd][m->nout[fd]] = 0;
  return CG_OK;
}

/* One conversion spec (NUL-terminated) of value v with the `*` fields
 * st[0..nstar-1], as snprintf makes it, appended to stream fd. */
static int out_conv(km *m, int32_t s, int fd, const char *spec, int nstar, const int *st, int dbl, const kv *v) {
  int n, i;
  for (i = 0; i < nstar; i++)
    if (st[i] < -9999 || st[i] > 9999) return SERR(m, s, "a `*` width or precision of %d", st[i]);
  int iv = (int)v->i; /* an int conversion takes an int (kv holds it in 64 bits) */
#define CONV(buf, size)                                                                             \
  (nstar == 0   ? (dbl ? snprintf(buf, size, spec, v->d) : snprintf(buf, size, spec, iv))          \
   : nstar == 1 ? (dbl ? snprintf(buf, size, spec, st[0], v->d) : snprintf(buf, size, spec, st[0], iv)) \
                : (dbl ? snprintf(buf, size, spec, st[0], st[1], v->d) : snprintf(buf, size, spec, st[0], st[1], iv)))
  n = CONV(NULL, 0);
  if (n < 0) return SERR(m, s, "printf's conversion '%s' failed", spec);
  if ((i = out_room(m, s, fd, (size_t)n))) return i;
  CONV(m->out[fd] + m->nout[fd], (size_t)n + 1);
#undef CONV
  m->nout[fd] += (size_t)n;
  return CG_OK;
}

/* printf-style format t on values vals (of the format's types, the loader
 * checked) to stream fd. */
static int out_format(km *m, int32_t s, int fd, const char *t, const kv *vals) {
  cg_kconv conv[CG_KFMT_MAX_CONV];
  int types[CG_KFMT_MAX_CONV * 3], nconv, c, a = 0, rc;
  uint32_t at = 0;
  char spec[48];
  if (cg_kformat_scan(t, conv, &nconv, types, spec, sizeof spec) < 0) return SERR(m, s, "printf's format: %s", spec);
  for (c = 0; c < nconv; c++) {
    int st[2] = {0, 0}, j;
    size_t len = conv[c].end - conv[c].start;
    if ((rc = out_add(m, s, fd, t + at, conv[c].start - at))) return rc;
    at = conv[c].end;
    if (conv[c].type == CG_KT_VOID) {
      if ((rc = out_add(m, s, fd, "%", 1))) return rc;
      continue;
    }
    if (len >= sizeof spec || conv[c].type == CG_KFMT_STRING)
      return SERR(m, s, "printf's conversion of %u bytes", (unsigned)len); /* the loader refused both */
    memcpy(spec, t + conv[c].start, len), spec[len] = 0;
    for (j = 0; j < conv[c].nstar; j++) st[j] = vals[a++].i;
    if ((rc = out_conv(m, s, fd, spec, conv[c].nstar, st, conv[c].type == CG_KT_DOUBLE, &vals[a++]))) return rc;
  }
  return out_add(m, s, fd, t + at, strlen(t + at));
}

static int exec_passive(km *m, frame *fr, int32_t s) {
  const cg_kernel *k = m->k;
  int id = CG_KSTMT(k, s, FLAGS), i, rc, fd;
  int32_t a0 = CG_KSTMT(k, s, PASSIVE_ARGS), na = CG_KSTMT_N(k, s, PASSIVE_ARGS), t = CG_KSTMT(k, s, X0);
  const char *text = t >= 0 ? k->names[t] : NULL, *stream = cg_kpassive_stream(id);
  kv vals[CG_KFMT_MAX_CONV * 3];
  char c;
  for (i = 0; i < na; i++) /* the arguments first, in order (a read of an unset cell is named) */
    if ((rc = eval(m, fr, k->args[a0 + i], &vals[i]))) return rc;
  fd = stream && !strcmp(stream, "stderr");
  switch (id) {
    case CG_KPC_PRINTF: case CG_KPC_FPRINTF_STDOUT: case CG_KPC_FPRINTF_STDERR: return out_format(m, s, fd, text, vals);
    case CG_KPC_PUTS: return (rc = out_add(m, s, fd, text, strlen(text))) ? rc : out_add(m, s, fd, "\n", 1);
    case CG_KPC_FPUTS_STDOUT: case CG_KPC_FPUTS_STDERR: return out_add(m, s, fd, text, strlen(text));
    case CG_KPC_PUTCHAR: c = (char)(unsigned char)vals[0].i; return out_add(m, s, fd, &c, 1);
    case CG_KPC_EXIT: m->exit_status = vals[0].i, m->exit_stmt = s; return X_EXIT;
    case CG_KPC_ABORT: return SERR(m, s, "the kernel called abort()");
    case CG_KPC_ASSERT:
      if (!truth(k, k->args[a0], &vals[0])) return SERR(m, s, "assertion '%s' failed", text);
      return CG_OK;
    default: return CG_OK; /* fflush */
  }
}

/* }==== */

static int exec_stmt(km *m, frame *fr, int32_t s) {
  const cg_kernel *k = m->k;
  int32_t x;
  kv v;
  int rc;
  switch (CG_KSTMT(k, s, KIND)) {
    case CG_KST_ASSIGN:
      x = CG_KSTMT(k, s, ASSIGN_RHS);
      if ((rc = eval(m, fr, x, &v))) return rc;
      return store(m, fr, s, CG_KSTMT(k, s, ASSIGN_LHS), v, m->ndir ? T(m, x) : NULL);
    case CG_KST_CALL: return exec_call(m, fr, s);
    case CG_KST_IF:
      x = CG_KSTMT(k, s, IF_COND);
      m->block = ++m->blocks; /* the BRANCH vertex */
      if ((rc = eval(m, fr, x, &v))) return rc;
      if (truth(k, x, &v)) return exec_slice(m, fr, CG_KSTMT_SLICE(k, s, IF_THEN));
      return exec_slice(m, fr, CG_KSTMT_SLICE(k, s, IF_ELSE));
    case CG_KST_LOOP: return exec_loop(m, fr, s);
    case CG_KST_BREAK: return X_BREAK;
    case CG_KST_CONTINUE: return X_CONT;
    case CG_KST_ALLOC: return exec_alloc(m, fr, s);
    case CG_KST_FREE: return exec_free(m, fr, s);
    case CG_KST_PASSIVE: return exec_passive(m, fr, s);
    default: /* return */
      x = CG_KSTMT(k, s, RETURN_VALUE);
      if (x >= 0) {
        if ((rc = eval(m, fr, x, &m->ret))) return rc;
        m->has_ret = 1;
        if (m->ndir && CG_KEXPR(k, x, TYPE) == CG_KT_DOUBLE)
          memcpy(m->rt, T(m, x), m->ndir * sizeof(double));
      }
      return X_RET;
  }
}

/* Statement s between the hook's two calls (the second after an
 * assignment that completed). */
static int hooked_stmt(km *m, frame *fr, int32_t s) {
  const cg_kcall *c = m->c;
  cg_kpoint p;
  int rc;
  p.m = m, p.fr = fr, p.stmt = s;
  if ((rc = c->hook(c->hook_ud, &p, s, fr->f, fr->id, 0, m->e)) != CG_OK) return rc;
  if ((rc = exec_stmt(m, fr, s)) != CG_OK || CG_KSTMT(m->k, s, KIND) != CG_KST_ASSIGN) return rc;
  return c->hook(c->hook_ud, &p, s, fr->f, fr->id, 1, m->e);
}

int cg_kpoint_eval(const cg_kpoint *p, int32_t x, double *v, cg_error *e) {
  km *m = p->m;
  const cg_kernel *k = m->k;
  cg_error *saved = m->e;
  kv r = {0.0, 0, -1};
  int rc, ty;
  if (x < 0 || (uint32_t)x >= k->nexpr || k->expr_stmt[x] != p->stmt)
    return cg_seterr(e, CG_EUSAGE, "cg_kpoint_eval: expression %d is not one of statement %d",
                     (int)x + 1, (int)p->stmt + 1);
  ty = CG_KEXPR(k, x, TYPE);
  if (ty != CG_KT_INT && ty != CG_KT_DOUBLE)
    return cg_seterr(e, CG_EUSAGE, "cg_kpoint_eval: expression %d is not a number", (int)x + 1);
  m->e = e, m->rtrace = NULL, m->readmark = 0; /* quiet: no trace, no read marks */
  rc = eval(m, p->fr, x, &r); /* tangent mode: only T of x's subtree, which the statement redoes */
  m->e = saved, m->rtrace = m->c->trace, m->readmark = CG_KACC_READ;
  if (rc == CG_OK) *v = ty == CG_KT_DOUBLE ? r.d : (double)r.i;
  return rc;
}

/* Runs a slice; a BREAK, CONTINUE or RETURN ends it (returned as X_*).  A
 * simple statement after a compound one or a jump, or first in its slice,
 * enters a new basic block (as cg_kcfg builds them). */
static int exec_slice(km *m, frame *fr, int32_t start, int32_t n) {
  const cg_kernel *k = m->k;
  int32_t i;
  int rc = CG_OK, simple_before = 0;
  if (++m->nest > MAX_NEST) {
    m->nest--;
    if (n == 0) return CG_OK;
    return SERR(m, k->list[start], "statements nested deeper than %u across calls", MAX_NEST);
  }
  for (i = 0; i < n && rc == CG_OK; i++) {
    int32_t s = k->list[start + i];
    int kind = CG_KSTMT(k, s, KIND), simple = kind == CG_KST_ASSIGN || kind == CG_KST_CALL ||
                                                        kind == CG_KST_ALLOC || kind == CG_KST_FREE ||
                                                        kind == CG_KST_PASSIVE;
    if (++m->steps > m->max_steps) {
      rc = SERR(m, s, "step limit of %llu reached", (unsigned long long)m->max_steps);
      break;
    }
    if (kind != CG_KST_IF && kind != CG_KST_LOOP && !simple_before) m->block = ++m->blocks;
    simple_before = simple;
    rc = m->c->hook ? hooked_stmt(m, fr, s) : exec_stmt(m, fr, s);
  }
  m->nest--;
  return rc;
}

static void frame_free(km *m, frame *fr) {
  pop_objs(m, fr->obj0);
  CG_FREE(m->A, fr->obj, int32_t, fr->nsym);
  CG_FREE(m->A, fr->pobj, int32_t, fr->nsym);
  CG_FREE(m->A, fr->poff, int64_t, fr->nsym);
}

/* A frame for function g: an object per non-pointer symbol, pointers unset. */
static int frame_new(km *m, int32_t g, frame *fr) {
  const cg_kernel *k = m->k;
  uint32_t i;
  memset(fr, 0, sizeof *fr);
  fr->f = g, fr->nsym = (uint32_t)CG_KFUNC(k, g, NSYM), fr->obj0 = m->nobj, fr->id = m->frames++;
  if (!(fr->obj = CG_NEW(m->A, int32_t, fr->nsym)) || !(fr->pobj = CG_NEW(m->A, int32_t, fr->nsym)) ||
      !(fr->poff = CG_NEW(m->A, int64_t, fr->nsym)))
    return nomem(m);
  for (i = 0; i < fr->nsym; i++) fr->obj[i] = fr->pobj[i] = -1, fr->poff[i] = 0;
  for (i = 0; i < fr->nsym; i++) {
    int32_t s = CG_KFUNC(k, g, SYM0) + (int32_t)i;
    int konst = (CG_KSYM(k, s, QUAL) & CG_KQ_CONST) != 0;
    if (CG_KSYM(k, s, PTR) || CG_KSYM(k, s, KIND) == CG_KS_HEAP) continue; /* a site: blocks come at its ALLOC */
    if (new_obj(m, s, -1, CG_KSYM(k, s, BASE), konst, cg_ksym_cells(k, s), &fr->obj[i])) return CG_ENOMEM;
  }
  return CG_OK;
}

/* Binds parameter p (slot i of fr) to value v with tangents t (pointer:
 * the pointer). */
static void bind(km *m, frame *fr, uint32_t i, int32_t st, kv v, const double *t) {
  int32_t s = CG_KFUNC(m->k, fr->f, SYM0) + (int32_t)i;
  if (CG_KSYM(m->k, s, PTR)) fr->pobj[i] = v.obj, fr->poff[i] = v.i;
  else {
    if (CG_KSYM(m->k, s, CTYPE) != CG_KC_INT) v.i = cg_kctype_wrap(CG_KSYM(m->k, s, CTYPE), v.i);
    write_cell(m, fr->id, st, -1, fr->obj[i], 0, v, t);
  }
}

/* Runs function g on the frame fr (its parameters bound). */
static int run_body(km *m, frame *fr) {
  int rc;
  m->has_ret = 0;
  rc = exec_slice(m, fr, CG_KFUNC(m->k, fr->f, BODY), CG_KFUNC(m->k, fr->f, NBODY));
  if (rc == X_RET || rc == CG_OK) return CG_OK;
  return rc; /* BREAK/CONTINUE cannot leave a body: the loader checked */
}

/* A call of external function g from statement st of frame caller: its
 * arguments evaluated there, handed to the caller's callback (cg_kextcall);
 * every cell a pointer argument reaches counts as read, those the callback
 * wrote as written. */
static int call_external(km *m, int32_t g, const frame *caller, int32_t st) {
  const cg_kernel *k = m->k;
  int32_t a0 = CG_KSTMT(k, st, CALL_ARGS), np = CG_KFUNC(k, g, NPARAM), i;
  size_t nd = m->ndir;
  cg_kextarg *xa;
  double *dts;
  kv *pv; /* each pointer argument's value, as evaluated once */
  cg_kextcall xc;
  cg_error e2;
  int rc = CG_OK;
  if (!m->c->ext)
    return SERR(m, st, "a call of the external function '%s', which has no value here (give its declaration a "
                "Lua value: --externals)", k->names[CG_KFUNC(k, g, NAME)]);
  xa = CG_NEW(m->A, cg_kextarg, (size_t)np + 1), dts = CG_NEW(m->A, double, ((size_t)np + 1) * (nd + 1));
  pv = CG_NEW(m->A, kv, (size_t)np + 1);
  if (!xa || !dts || !pv) {
    CG_FREE(m->A, xa, cg_kextarg, (size_t)np + 1), CG_FREE(m->A, dts, double, ((size_t)np + 1) * (nd + 1));
    CG_FREE(m->A, pv, kv, (size_t)np + 1);
    return nomem(m);
  }
  memset(xa, 0, ((size_t)np + 1) * sizeof *xa);
  for (i = 0; i < np && !rc; i++) {
    int32_t x = k->args[a0 + i], p = CG_KFUNC(k, g, SYM0) + i, o;
    kv v;
    kobj *b;
    int64_t c;
    if ((rc = eval(m, caller, x, &v))) break;
    pv[i] = v;
    if (CG_KSYM(k, p, PTR) && v.obj == KNULL) {
      xa[i].kind = CG_KARG_PTR, xa[i].base = CG_KSYM(k, p, BASE); /* n 0, no cells */
    } else if (CG_KSYM(k, p, PTR)) {
      o = v.obj, b = &m->obj[o];
      if (b->heap == H_FREED) {
        rc = XERR(m, x, "use of %s after its free (line %d)", oname(m, o), (int)CG_KSTMT(k, b->freed_at, LINE));
        break;
      }
      xa[i].kind = CG_KARG_PTR, xa[i].base = b->base, xa[i].n = b->n - v.i;
      xa[i].dv = b->d ? b->d + v.i : NULL, xa[i].iv = b->iv ? b->iv + v.i : NULL;
      xa[i].init = b->init + v.i, xa[i].t = (b->t && nd) ? b->t + (size_t)v.i * nd : NULL;
      xa[i].writable = !(CG_KSYM(k, p, QUAL) & CG_KQ_CONST) && !b->konst;
      if (xa[i].writable && xa[i].n > 0 && !(xa[i].wrote = CG_NEW(m->A, uint8_t, (size_t)xa[i].n))) {
        rc = nomem(m);
        break;
      }
      if (xa[i].wrote) memset(xa[i].wrote, 0, (size_t)xa[i].n);
      for (c = v.i; c < b->n; c++) /* it may read any of them */
        if (b->init[c] && !(b->acc[c] & CG_KACC_WRITTEN)) b->acc[c] |= m->readmark;
    } else if (CG_KEXPR(k, x, TYPE) == CG_KT_DOUBLE) {
      xa[i].kind = CG_KARG_DOUBLE, xa[i].d = v.d;
      xa[i].dt = dts + (size_t)i * (nd + 1);
      if (nd) memcpy(dts + (size_t)i * (nd + 1), T(m, x), nd * sizeof(double));
    } else
      xa[i].kind = CG_KARG_INT, xa[i].i = (int32_t)v.i;
  }
  if (!rc) {
    memset(&xc, 0, sizeof xc);
    xc.func = g, xc.stmt = st, xc.narg = (uint32_t)np, xc.ndir = (uint32_t)nd, xc.args = xa, xc.ret_t = m->rt;
    if (nd) memset(m->rt, 0, nd * sizeof(double));
    memset(&e2, 0, sizeof e2);
    rc = m->c->ext(m->c->ext_ud, &xc, &e2);
    if (rc == CG_ENOMEM) rc = nomem(m);
    else if (rc) rc = SERR(m, st, "the external function '%s': %s", k->names[CG_KFUNC(k, g, NAME)], e2.msg);
  }
  for (i = 0; i < np; i++) {
    if (!rc && xa[i].wrote) {
      int32_t o = pv[i].obj;
      int64_t c, off = pv[i].i;
      for (c = 0; c < xa[i].n; c++)
        if (xa[i].wrote[c]) {
          m->obj[o].init[off + c] = 1, m->obj[o].acc[off + c] |= CG_KACC_WRITTEN;
          if (m->c->trace) trace(m, st, -1, o, off + c, 1, caller->id);
        }
    }
    if (xa[i].wrote) CG_FREE(m->A, xa[i].wrote, uint8_t, (size_t)xa[i].n);
  }
  CG_FREE(m->A, xa, cg_kextarg, (size_t)np + 1), CG_FREE(m->A, dts, double, ((size_t)np + 1) * (nd + 1));
  CG_FREE(m->A, pv, kv, (size_t)np + 1);
  if (rc) return rc;
  m->has_ret = CG_KFUNC(k, g, RET) != CG_KT_VOID;
  if (CG_KFUNC(k, g, RET) == CG_KT_DOUBLE) m->ret.d = xc.ret;
  else m->ret.i = (int64_t)xc.ret;
  return CG_OK;
}

/* A call of g from statement st of frame caller: the arguments evaluated
 * there, bound in a new frame, the body run. */
static int call_func(km *m, int32_t g, const frame *caller, int32_t st) {
  const cg_kernel *k = m->k;
  int32_t a0 = CG_KSTMT(k, st, CALL_ARGS);
  uint32_t i;
  uint64_t saved;
  frame fr;
  int rc;
  if (m->calls >= m->max_calls)
    return SERR(m, st, "call depth limit of %u reached", (unsigned)m->max_calls);
  if (CG_KFUNC_EXTERNAL(k, g)) return call_external(m, g, caller, st);
  if ((rc = frame_new(m, g, &fr))) return frame_free(m, &fr), rc;
  for (i = 0; i < (uint32_t)CG_KFUNC(k, g, NPARAM); i++) {
    int32_t x = k->args[a0 + (int32_t)i];
    kv v;
    if ((rc = eval(m, caller, x, &v))) return frame_free(m, &fr), rc;
    bind(m, &fr, i, st, v, m->ndir && CG_KEXPR(k, x, TYPE) == CG_KT_DOUBLE ? T(m, x) : NULL);
  }
  m->calls++;
  saved = m->block;
  rc = run_body(m, &fr);
  m->block = saved; /* the caller's block goes on after the CALL */
  m->calls--;
  frame_free(m, &fr);
  return rc;
}

/* }==== */

/* {==== the call from outside ====} */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int usage(km *m, int32_t f, const char *fmt, ...) {
  char buf[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return cg_seterr(m->e, CG_EUSAGE, "%s: call of %s: %s", m->k->file ? m->k->file : "kernel",
                   m->k->names[CG_KFUNC(m->k, f, NAME)], buf);
}

/* The caller's arrays as objects 0..narray-1: values, initialized bytes,
 * seeds. */
static int load_arrays(km *m) {
  const cg_kcall *c = m->c;
  uint32_t a, i;
  for (a = 0; a < c->narray; a++) {
    const cg_karray *ar = &c->arrays[a];
    int32_t o;
    kobj *b;
    if (ar->base != CG_KT_INT && ar->base != CG_KT_DOUBLE)
      return usage(m, c->func, "array %u: base type %d", (unsigned)a + 1, ar->base);
    if (ar->n && !ar->values) return usage(m, c->func, "array %u: no values", (unsigned)a + 1);
    if (new_obj(m, -1, (int32_t)a, ar->base, 0, ar->n, &o)) return CG_ENOMEM;
    b = &m->obj[o];
    for (i = 0; i < ar->n; i++) {
      double v = ar->values[i];
      b->init[i] = ar->init ? ar->init[i] != 0 : 1;
      if (b->d) {
        b->d[i] = v;
        continue;
      }
      if (b->init[i] && !(v >= INT32_MIN && v <= INT32_MAX && v == (double)(int32_t)v))
        return usage(m, c->func, "array %u (%s): cell %u is not an int (%.17g)", (unsigned)a + 1,
                     ar->name ? ar->name : "?", (unsigned)i, v);
      b->iv[i] = b->init[i] ? (int32_t)v : 0;
    }
    if (b->t && c->seed_arrays && c->seed_arrays[a])
      memcpy(b->t, c->seed_arrays[a], (size_t)ar->n * m->ndir * sizeof(double));
  }
  return CG_OK;
}

/* The globals: const objects holding their initializers (the rest 0). */
static int load_globals(km *m) {
  const cg_kernel *k = m->k;
  uint32_t s;
  int64_t i;
  for (s = 0; s < k->nsym; s++) {
    int32_t o, init = CG_KSYM(k, s, INIT), n = CG_KSYM(k, s, NINIT);
    kobj *b;
    m->gobj[s] = -1;
    if (CG_KSYM(k, s, KIND) != CG_KS_GLOBAL) continue;
    if (new_obj(m, (int32_t)s, -1, CG_KSYM(k, s, BASE), 1, cg_ksym_cells(k, (int32_t)s), &o))
      return CG_ENOMEM;
    b = &m->obj[o];
    for (i = 0; i < b->n; i++) {
      double v = i < n ? k->dconst[init + i] : 0.0;
      if (b->d) b->d[i] = v;
      else b->iv[i] = (int32_t)v;
      b->init[i] = 1;
    }
    m->gobj[s] = o;
  }
  return CG_OK;
}

/* The rows of ptr-2 parameter s (argument i): an object of pointer cells,
 * each (array, offset) checked as a pointer argument's. */
static int rows_arg(km *m, uint32_t i, int32_t s, const cg_karg *a, kv *v) {
  const cg_kernel *k = m->k;
  const char *pn = k->names[CG_KSYM(k, s, NAME)];
  int32_t o;
  uint32_t r;
  kobj *b;
  if (!a->nrows || !a->row_array || !a->row_offset)
    return usage(m, m->c->func, "argument %u (%s): no rows", (unsigned)i + 1, pn);
  for (r = 0; r < a->nrows; r++) {
    uint32_t ar = a->row_array[r];
    if (ar >= m->c->narray)
      return usage(m, m->c->func, "argument %u (%s): row %u: array %u out of range", (unsigned)i + 1, pn,
                   (unsigned)r, (unsigned)ar + 1);
    if (m->c->arrays[ar].base != CG_KSYM(k, s, BASE))
      return usage(m, m->c->func, "argument %u (%s): row %u: a %s array expected", (unsigned)i + 1, pn,
                   (unsigned)r, cg_ktype_name(CG_KSYM(k, s, BASE)));
    if (a->row_offset[r] < 0 || a->row_offset[r] > (int64_t)m->c->arrays[ar].n)
      return usage(m, m->c->func, "argument %u (%s): row %u: offset %lld outside 0..%u", (unsigned)i + 1,
                   pn, (unsigned)r, (long long)a->row_offset[r], (unsigned)m->c->arrays[ar].n);
    if (CG_KSYM(k, s, CTYPE) != CG_KC_INT) { /* rows of chars hold chars */
      const cg_karray *y = &m->c->arrays[ar];
      uint32_t c;
      for (c = 0; c < y->n; c++)
        if ((!y->init || y->init[c]) && !cg_kctype_fits(CG_KSYM(k, s, CTYPE), (int64_t)y->values[c]))
          return usage(m, m->c->func, "argument %u (%s): row %u: cell %u of array %u is %.17g, not a %s",
                       (unsigned)i + 1, pn, (unsigned)r, (unsigned)c, (unsigned)ar + 1, y->values[c],
                       cg_kctype_name(CG_KSYM(k, s, CTYPE)));
    }
  }
  if (new_obj(m, s, -1, CG_KT_INT, 1, a->nrows, &o)) return CG_ENOMEM; /* iv unused: the cells are pointers */
  b = &m->obj[o];
  if (!(b->pobj = CG_NEW(m->A, int32_t, b->n)) || !(b->poff = CG_NEW(m->A, int64_t, b->n))) return nomem(m);
  for (r = 0; r < a->nrows; r++) b->pobj[r] = (int32_t)a->row_array[r], b->poff[r] = a->row_offset[r];
  v->obj = o, v->i = 0;
  return CG_OK;
}

/* The caller's argument i for parameter s: checked against its type. */
static int top_arg(km *m, uint32_t i, int32_t s, kv *v) {
  const cg_kernel *k = m->k;
  const cg_karg *a = &m->c->args[i];
  const char *pn = k->names[CG_KSYM(k, s, NAME)];
  int want = CG_KSYM(k, s, PTR) == 2 ? CG_KARG_ROWS : CG_KSYM(k, s, PTR) ? CG_KARG_PTR
           : CG_KSYM(k, s, BASE) == CG_KT_INT ? CG_KARG_INT : CG_KARG_DOUBLE;
  static const char *const kinds[] = {"an int", "a double", "an array and offset", "rows"};
  if (a->kind == CG_KARG_NULL && want == CG_KARG_PTR) return v->obj = KNULL, v->i = 0, CG_OK;
  if (a->kind != want)
    return usage(m, m->c->func, "argument %u (%s): %s expected", (unsigned)i + 1, pn, kinds[want]);
  if (want == CG_KARG_ROWS) return rows_arg(m, i, s, a, v);
  if (want == CG_KARG_INT) {
    if (!cg_kctype_fits(CG_KSYM(k, s, CTYPE), a->i))
      return usage(m, m->c->func, "argument %u (%s): %lld is not a %s", (unsigned)i + 1, pn, (long long)a->i,
                   cg_kctype_name(CG_KSYM(k, s, CTYPE)));
    return v->i = a->i, CG_OK;
  }
  if (want == CG_KARG_DOUBLE) return v->d = a->d, CG_OK;
  if (a->array >= m->c->narray)
    return usage(m, m->c->func, "argument %u (%s): array %u out of range", (unsigned)i + 1, pn,
                 (unsigned)a->array + 1);
  if (m->c->arrays[a->array].base != CG_KSYM(k, s, BASE))
    return usage(m, m->c->func, "argument %u (%s): a %s array expected", (unsigned)i + 1, pn,
                 cg_ktype_name(CG_KSYM(k, s, BASE)));
  if (a->offset < 0 || a->offset > (int64_t)m->c->arrays[a->array].n)
    return usage(m, m->c->func, "argument %u (%s): offset %lld outside 0..%u", (unsigned)i + 1, pn,
                 (long long)a->offset, (unsigned)m->c->arrays[a->array].n);
  if (CG_KSYM(k, s, CTYPE) != CG_KC_INT) { /* a char array holds chars: its values in range */
    const cg_karray *ar = &m->c->arrays[a->array];
    uint32_t c;
    for (c = 0; c < ar->n; c++)
      if ((!ar->init || ar->init[c]) && !cg_kctype_fits(CG_KSYM(k, s, CTYPE), (int64_t)ar->values[c]))
        return usage(m, m->c->func, "argument %u (%s): cell %u of array %u (%s) is %.17g, not a %s",
                     (unsigned)i + 1, pn, (unsigned)c, (unsigned)a->array + 1, ar->name ? ar->name : "?",
                     ar->values[c], cg_kctype_name(CG_KSYM(k, s, CTYPE)));
  }
  v->obj = (int32_t)a->array, v->i = a->offset;
  return CG_OK;
}

/* The top frame with the caller's arguments bound (tangents: seed_args). */
static int bind_top(km *m, frame *fr) {
  const cg_kernel *k = m->k;
  uint32_t i;
  int rc;
  if (m->c->narg != (uint32_t)CG_KFUNC(k, m->c->func, NPARAM))
    return usage(m, m->c->func, "%u arguments for %d parameters", (unsigned)m->c->narg,
                 (int)CG_KFUNC(k, m->c->func, NPARAM));
  if (m->c->narg && !m->c->args) return usage(m, m->c->func, "no arguments");
  if ((rc = frame_new(m, m->c->func, fr))) return rc;
  for (i = 0; i < m->c->narg; i++) {
    int32_t s = CG_KFUNC(k, fr->f, SYM0) + (int32_t)i;
    const double *t = m->ndir && m->c->seed_args ? m->c->seed_args + (size_t)i * m->ndir : NULL;
    kv v = {0.0, 0, -1};
    if ((rc = top_arg(m, i, s, &v))) return rc;
    bind(m, fr, i, -1, v, t);
    if (fr->obj[i] >= 0) m->obj[fr->obj[i]].acc[0] = 0; /* read-before-written starts now */
  }
  return CG_OK;
}

void cg_kresult_free(cg_kresult *r) {
  uint32_t a;
  cg_alloc *A;
  if (!r) return;
  A = r->A;
  for (a = 0; a < r->narray && r->n; a++) {
    if (r->values) CG_FREE(A, r->values[a], double, r->n[a]);
    if (r->init) CG_FREE(A, r->init[a], uint8_t, r->n[a]);
    if (r->acc) CG_FREE(A, r->acc[a], uint8_t, r->n[a]);
    if (r->tangents) CG_FREE(A, r->tangents[a], double, (size_t)r->n[a] * r->ndir);
  }
  CG_FREE(A, r->values, double *, r->narray);
  CG_FREE(A, r->init, uint8_t *, r->narray);
  CG_FREE(A, r->acc, uint8_t *, r->narray);
  if (r->tangents) CG_FREE(A, r->tangents, double *, r->narray);
  CG_FREE(A, r->n, uint32_t, r->narray);
  CG_FREE(A, r->arg_read, uint8_t, r->narg);
  CG_FREE(A, r->ret_t, double, r->ndir);
  CG_FREE(A, r->out[0], char, r->capout[0]), CG_FREE(A, r->out[1], char, r->capout[1]);
  memset(r, 0, sizeof *r);
}

/* The result's arrays, all zeroed before r owns them (so that
 * cg_kresult_free can run after a failure halfway). */
static int result_arrays(km *m, cg_kresult *r) {
  cg_alloc *A = m->A;
  uint32_t na = m->c->narray;
  r->narg = m->c->narg, r->ndir = m->ndir;
  if (!(r->arg_read = CG_NEW(A, uint8_t, r->narg)) || !(r->ret_t = CG_NEW(A, double, m->ndir)) ||
      !(r->n = CG_NEW(A, uint32_t, na)) || !(r->values = CG_NEW(A, double *, na)) ||
      !(r->init = CG_NEW(A, uint8_t *, na)) || !(r->acc = CG_NEW(A, uint8_t *, na)) ||
      (m->ndir && !(r->tangents = CG_NEW(A, double *, na)))) {
    r->narray = na; /* every entry array is NULL or allocated: freed as such */
    if (r->n) memset(r->n, 0, na * sizeof *r->n);
    if (r->values) memset(r->values, 0, na * sizeof *r->values);
    if (r->init) memset(r->init, 0, na * sizeof *r->init);
    if (r->acc) memset(r->acc, 0, na * sizeof *r->acc);
    return nomem(m);
  }
  memset(r->values, 0, na * sizeof *r->values);
  memset(r->init, 0, na * sizeof *r->init);
  memset(r->acc, 0, na * sizeof *r->acc);
  if (r->tangents) memset(r->tangents, 0, na * sizeof *r->tangents);
  memset(r->n, 0, na * sizeof *r->n);
  r->narray = na;
  return CG_OK;
}

/* Takes each caller array's cells out of its object into r. */
static int take_results(km *m, const frame *fr, cg_kresult *r) {
  cg_alloc *A = m->A;
  uint32_t a, i;
  if (result_arrays(m, r)) return CG_ENOMEM;
  for (a = 0; a < r->narray; a++) { /* moved: the init and acc bytes, tangents */
    kobj *b = &m->obj[a];
    r->n[a] = (uint32_t)b->n, r->init[a] = b->init, r->acc[a] = b->acc;
    if (r->tangents) r->tangents[a] = b->t;
    b->init = b->acc = NULL, b->t = NULL;
  }
  for (a = 0; a < r->narray; a++) { /* then the values (ints as doubles) */
    kobj *b = &m->obj[a];
    if (!(r->values[a] = CG_NEW(A, double, b->n))) return nomem(m);
    for (i = 0; i < b->n; i++) r->values[a][i] = b->d ? b->d[i] : (double)b->iv[i];
    if (r->tangents && !r->tangents[a]) { /* an int array: tangents 0 */
      if (!(r->tangents[a] = CG_NEW(A, double, (size_t)b->n * m->ndir))) return nomem(m);
      memset(r->tangents[a], 0, (size_t)b->n * m->ndir * sizeof(double));
    }
  }
  for (i = 0; i < r->narg; i++)
    r->arg_read[i] = fr->obj[i] >= 0 && (m->obj[fr->obj[i]].acc[0] & CG_KACC_READ);
  r->has_ret = m->has_ret, r->steps = m->steps;
  r->ret_type = CG_KFUNC(m->k, m->c->func, RET);
  r->ret = r->ret_type == CG_KT_DOUBLE ? m->ret.d : (double)m->ret.i;
  if (m->ndir && r->has_ret && r->ret_type == CG_KT_DOUBLE) memcpy(r->ret_t, m->rt, m->ndir * sizeof(double));
  else if (m->ndir) memset(r->ret_t, 0, m->ndir * sizeof(double));
  return CG_OK;
}

static void km_free(km *m) {
  pop_objs(m, 0);
  CG_FREE(m->A, m->obj, kobj, m->cap);
  CG_FREE(m->A, m->gobj, int32_t, m->k->nsym);
  CG_FREE(m->A, m->xt, double, (size_t)m->k->nexpr * m->ndir);
  CG_FREE(m->A, m->rt, double, m->ndir);
  CG_FREE(m->A, m->out[0], char, m->capout[0]), CG_FREE(m->A, m->out[1], char, m->capout[1]);
}

/* The machine and its arrays: objects, globals, tangent scratch. */
static int km_init(km *m, cg_alloc *A, const cg_kernel *k, const cg_kcall *c, cg_error *e) {
  memset(m, 0, sizeof *m);
  m->k = k, m->A = A, m->c = c, m->e = e, m->ndir = c->ndir;
  m->max_steps = c->max_steps ? c->max_steps : CG_KMAX_STEPS;
  m->max_calls = c->max_calls ? c->max_calls : CG_KMAX_CALLS;
  m->rtrace = c->trace, m->readmark = CG_KACC_READ, m->leak_stmt = -1;
  if (c->ndir && (size_t)k->nexpr > SIZE_MAX / sizeof(double) / c->ndir) return nomem(m);
  if (!(m->gobj = CG_NEW(A, int32_t, k->nsym)) ||
      !(m->xt = CG_NEW(A, double, (size_t)k->nexpr * c->ndir)) || !(m->rt = CG_NEW(A, double, c->ndir)))
    return nomem(m);
  return CG_OK;
}

int cg_kinterp_run(cg_alloc *A, const cg_kernel *k, const cg_kcall *c, cg_kresult *r,
                   cg_error *e) {
  km m;
  frame fr;
  int rc;
  memset(r, 0, sizeof *r);
  r->A = A;
  if (!k || !c || c->func < 0 || (uint32_t)c->func >= k->nfunc || (c->narray && !c->arrays))
    return cg_seterr(e, CG_EUSAGE, "cg_kinterp_run: bad call");
  if (CG_KFUNC_EXTERNAL(k, c->func))
    return cg_seterr(e, CG_EUSAGE, "cg_kinterp_run: %s is an external function (no body)", k->names[CG_KFUNC(k, c->func, NAME)]);
  memset(&fr, 0, sizeof fr);
  rc = km_init(&m, A, k, c, e);
  if (!rc) rc = load_arrays(&m);
  if (!rc) rc = load_globals(&m);
  if (!rc) rc = bind_top(&m, &fr);
  if (!rc) {
    m.calls = 1;
    rc = run_body(&m, &fr);
  }
  if (rc == X_EXIT) rc = CG_OK, r->exited = 1, r->exit_status = m.exit_status, r->exit_stmt = m.exit_stmt;
  if (!rc) rc = take_results(&m, &fr, r);
  frame_free(&m, &fr);
  if (!rc) r->leaks = m.leaks, r->leak_stmt = m.leak_stmt;
  if (!rc) {
    int fd;
    for (fd = 0; fd < 2; fd++) /* the output moves to the result */
      r->out[fd] = m.out[fd], r->nout[fd] = m.nout[fd], r->capout[fd] = m.capout[fd], m.out[fd] = NULL, m.capout[fd] = 0;
  }
  km_free(&m);
  if (rc) cg_kresult_free(r);
  return rc;
}

/* }==== */
