/*
 * cg_kinterp.h: an interpreter of loaded kernels, so that flattened graphs
 * and generated derivative code can be checked against the kernel itself.
 *
 * Memory model.  Memory is a set of objects, each an array of int or
 * double cells with one "initialized" byte per cell: the caller's arrays
 * (objects 0..narray-1, given in the call), the globals (const, filled
 * from their initializers), and per activation of a function one object for
 * each non-pointer symbol (a scalar is an object of one cell, so that &x
 * works).  A pointer is a pair (object, offset).  Pointer parameters are
 * bound to (array, offset), so two of them may share an array: the aliased
 * cases.  Objects of a frame go when it returns; a pointer cannot outlive
 * them (no pointer is stored in memory or returned).  A `double **`
 * parameter is bound to an object of pointer cells (the caller's rows,
 * CG_KARG_ROWS), read only: a load `t = A[i]` reads cell i (an error past
 * the rows given).  An ALLOC makes an
 * object (sym: its HEAP site) in the frame that runs it; a FREE marks it
 * freed (kept, so that a later use is named); a block still live when its
 * frame returns is a leak, counted in the result.
 * Passive calls (CG_KPASSIVES): what printf, fprintf, puts, fputs and putchar
 * write to stdout or stderr is kept in the result (formatted by the C
 * library, at most CG_KMAX_OUT bytes a stream); exit(n) ends the run as C
 * does (the result as memory stands, exited set); abort() and an assert
 * that fails are errors naming the statement.
 *
 * Values are those of the compiled kernel bit for bit: each operation is
 * the same C operation on the same types in the same order, each intrinsic
 * the C library's function of that name; a store into a char, short or
 * _Bool cell (the symbol's CTYPE, a pointer's its cells') converts the int
 * value as the compiler does (cg_kctype_wrap), and so does the binding of
 * such a parameter; the caller's values for one (an int argument, the
 * initialized cells of an array bound to such a pointer) must lie in its
 * type's range (CG_EUSAGE otherwise), as a compiled caller's would.  Errors (CG_ERUNTIME, message
 * "FILE:LINE:COL: ..." at the expression or statement), never undefined
 * behaviour in cgwb: a dereference outside its object (pointer arithmetic
 * may reach one past the end, as C allows), a read of an uninitialized cell
 * or pointer, int overflow in + - * / % and unary minus (checked before it
 * happens), int division or modulo by 0, a double->int cast of NaN or out of
 * range, a write through a pointer to a const object, a read of a malloc'd
 * cell before it is written, a use of a block after its free, a double
 * free, a free of memory malloc or calloc did not give or not at its
 * block's start, the call depth or the
 * step limit (statements executed) reached, the value of a function that
 * ended without a return used by its caller.  Short-circuit && || ?:
 * evaluate only what C evaluates.  Bad arguments (a type, an offset outside
 * its array): CG_EUSAGE.
 *
 * Tangent mode (ndir > 0): every double value carries ndir tangents, seeded
 * on the caller's double cells and by-value double arguments; + - * / by the
 * usual rules, intrinsics by the operation table's partials
 * (cg_kintrinsic_gop, cg_gop_partials; an intrinsic without a row is an
 * error "no partials for X yet").  Cost: each statement O(its expressions
 * x (1 + ndir)); memory O(objects' cells x (1 + ndir) + expressions x ndir).
 *
 * Access trace: with a trace function, each read and write of a cell (VAR
 * and ELEM reads, assignment and call-result writes) is reported with its
 * statement, expression, object, cell, frame (activation number, 0 for the
 * called function) and block instance: a number given each time control
 * enters a basic block of the control flow graph (cg_kcfg.h) or a BRANCH
 * or LOOP test, from a counter; after a call returns, the caller's block
 * goes on with its own number.  Each access carries the cell's value after
 * it (the value read or written).
 *
 * Statement hook: with a hook function, it is called before each statement
 * runs (after = 0; an if or a loop once, before it starts) and after
 * each assignment has stored its value (after = 1), with the statement, the
 * function and activation number of its frame, and a point handle valid
 * during the call only.  cg_kpoint_eval evaluates an expression of that
 * statement in that frame, as the statement would, but quietly: no access
 * is traced nor marked read, no step is counted, and a failure (a read of
 * an uninitialized cell, a subscript outside its object, an int overflow)
 * is its status and message, the run going on.  Canonical form keeps calls
 * and assignments out of expressions, so an evaluation changes no memory.
 * A hook that returns a status other than CG_OK stops the run with it (e
 * set by the hook).  Without a hook the run costs one test per statement
 * more.
 */
#ifndef CG_KINTERP_H
#define CG_KINTERP_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif
#include "cg_kernel.h"

#define CG_KMAX_STEPS 1000000000ull /* default step limit */
#define CG_KMAX_CALLS 256u          /* default call depth limit */
#define CG_KMAX_OUT (1u << 20)      /* bytes of output kept per stream */

/* A caller array: n cells of base CG_KT_INT or CG_KT_DOUBLE, values as
 * doubles (an int array's must be ints), init NULL (all initialized) or n
 * bytes (0: uninitialized). */
typedef struct cg_karray {
  const char *name; /* for messages and the trace */
  int base;
  uint32_t n;
  const double *values;
  const uint8_t *init;
} cg_karray;

enum { CG_KARG_INT, CG_KARG_DOUBLE, CG_KARG_PTR, CG_KARG_ROWS, CG_KARG_NULL };
/* An argument: an int, a double, a pointer to cell `offset` (0..n) of
 * caller array `array`, NULL (for a pointer parameter), or (ROWS, for a `double **` or `int **` parameter)
 * nrows pointer cells, row r pointing to cell row_offset[r] of caller array
 * row_array[r] (the rows may share an array and overlap). */
typedef struct cg_karg {
  int kind;
  int32_t i;
  double d;
  uint32_t array;
  int64_t offset;
  uint32_t nrows;
  const uint32_t *row_array;
  const int64_t *row_offset;
} cg_karg;

/* One access to a cell: array >= 0 for a caller array, else sym is the
 * symbol of the (local, parameter or global) object. */
typedef struct cg_kaccess {
  int32_t stmt, expr; /* expr -1: a parameter bound at a call */
  int32_t array, sym;
  int64_t cell;
  int write;
  uint64_t frame, block;
  double value; /* the cell's value after the access (an int cell's as a double) */
} cg_kaccess;
typedef void (*cg_ktracef)(void *ud, const cg_kaccess *a);

typedef struct cg_kpoint cg_kpoint; /* a statement about to run or just run */
typedef int (*cg_khook)(void *ud, const cg_kpoint *p, int32_t stmt, int32_t func,
                        uint64_t frame, int after, cg_error *e);
/* The value of expression expr (of the hook's statement) in the hook's
 * frame, as a double (an int converted): CG_OK, else CG_ERUNTIME with e
 * ("FILE:LINE:COL: ...") or CG_EUSAGE for an expression of another
 * statement or of pointer type.  O(the expression). */
int cg_kpoint_eval(const cg_kpoint *p, int32_t expr, double *v, cg_error *e);

/* A call of an external function (CG_KFUNC_EXTERNAL) handed to the caller's
 * callback cg_kcall.ext: the arguments in parameter order, each an int, a
 * double (dt: its ndir tangents) or the cells from a pointer argument to its
 * object's end (n of them, of base CG_KT_INT (iv) or CG_KT_DOUBLE (dv),
 * their init bytes, t: their tangents, ndir a cell, or NULL).  The callback
 * reads what it needs, writes the cells the function writes (only when
 * writable: the parameter does not point to const) setting their bytes of
 * wrote, and their tangents; a function with a result sets ret (ret_t: its
 * ndir tangents).  It returns CG_OK, or a status with e (a message without
 * a place: the interpreter adds the call's). */
typedef struct cg_kextarg {
  int kind; /* CG_KARG_INT, CG_KARG_DOUBLE, CG_KARG_PTR (NULL: n 0, dv iv init wrote t NULL) */
  int32_t i;
  double d;
  const double *dt;
  int base, writable;
  int64_t n;
  double *dv;
  int32_t *iv;
  const uint8_t *init;
  uint8_t *wrote;
  double *t;
} cg_kextarg;
typedef struct cg_kextcall {
  int32_t func, stmt;
  uint32_t narg, ndir;
  cg_kextarg *args;
  double ret;
  double *ret_t;
} cg_kextcall;
typedef int (*cg_kextf)(void *ud, cg_kextcall *x, cg_error *e);

typedef struct cg_kcall {
  int32_t func;                /* the function called (0-based) */
  uint32_t narray;
  const cg_karray *arrays;
  uint32_t narg;               /* the function's parameter count */
  const cg_karg *args;
  uint64_t max_steps;          /* 0: CG_KMAX_STEPS */
  uint32_t max_calls;          /* 0: CG_KMAX_CALLS */
  uint32_t ndir;               /* tangent directions, 0: none */
  const double *const *seed_arrays; /* per array NULL or n * ndir (cell-major) */
  const double *seed_args;     /* NULL or narg * ndir (read for double arguments) */
  cg_ktracef trace;            /* NULL: none */
  void *trace_ud;
  cg_khook hook;               /* NULL: none */
  void *hook_ud;
  cg_kextf ext;                /* the external functions' values; NULL: a call of one is an error */
  void *ext_ud;
} cg_kcall;

/* What a call leaves: per caller array its cells, initialized bytes,
 * access flags (CG_KACC_*) and, with ndir, tangents (cell-major); per
 * argument whether a by-value parameter was read; the return value. */
enum { CG_KACC_READ = 1 /* read before written */, CG_KACC_WRITTEN = 2 };
typedef struct cg_kresult {
  cg_alloc *A;
  uint32_t narray, narg, ndir;
  uint32_t *n;          /* per array */
  double **values;
  uint8_t **init, **acc;
  double **tangents;    /* NULL without ndir */
  uint8_t *arg_read;    /* narg */
  int has_ret;          /* a value was returned */
  int ret_type;         /* CG_KT_INT or CG_KT_DOUBLE when has_ret */
  double ret;
  double *ret_t;        /* ndir tangents of a double return value */
  uint64_t steps;
  uint32_t leaks;       /* blocks of malloc/calloc never freed */
  int32_t leak_stmt;    /* the ALLOC statement of the first, -1: none */
  char *out[2];         /* what printf, puts, ... wrote to stdout and stderr (NULL: nothing) */
  size_t nout[2], capout[2]; /* capout: their allocations' sizes */
  int exited;           /* the run ended by exit(exit_status) at statement exit_stmt */
  int32_t exit_status, exit_stmt;
} cg_kresult;

/* Runs call c on kernel k; fills r (freed by cg_kresult_free, also after a
 * failure).  CG_OK, or CG_ERUNTIME / CG_EUSAGE / CG_ENOMEM with e. */
int cg_kinterp_run(cg_alloc *A, const cg_kernel *k, const cg_kcall *c, cg_kresult *r,
                   cg_error *e);
void cg_kresult_free(cg_kresult *r);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
