/*
 * cg_kernel.h: the intermediate form of kernels written in the C subset of
 * doc/kernels.md, in canonical form (Utke, Flattening, sec. 2: C1-C5).
 *
 * The LPeg front end (lua/cgwb/kparse.lua) parses, resolves names and types,
 * canonicalizes, and hands the result over once as flat integer arrays: the
 * cg_ksrc below, with a fixed number of int32 fields per row whose layout is
 * given by the X-macros of this header (the binding passes the same layout
 * to Lua, core.kernel_layout(), so neither side hard-codes a number).
 * cg_kernel_load checks every row (indices in range, types consistent,
 * expressions trees, bodies disjoint) and keeps the arrays as the kernel's
 * intermediate form, plus what it derives (owners, parents).  Everything
 * later (control flow, alias analysis, chains, activity, the interpreter,
 * flattening, adjoint code) reads a loaded cg_kernel and never the source.
 *
 * Invariants of a loaded kernel (checked by cg_kernel_load; CG_EFORMAT with
 * "FILE: kernel form: TABLE ROW: ..." otherwise):
 *  - every id field is -1 where the table allows "none", else in range;
 *  - each expression has exactly one parent (a statement field, an argument
 *    slot, or another expression): expressions are trees, never shared;
 *  - each statement appears in exactly one body slice of list[] (a
 *    function's body, an if's then/else, a loop's pre/body/step), and the
 *    slices of a function hold only that function's statements;
 *  - an expression's type is its operator's result type as stated in
 *    CG_KEXPRS (operands of arithmetic have the result's type: the front end
 *    inserts CAST nodes for C's usual conversions);
 *  - expression nesting is at most CG_KMAX_DEPTH deep, body nesting too;
 *  - BREAK and CONTINUE lie inside a loop's body (not its pre or step).
 * All ids are 0-based here; Lua sees them 1-based.
 */
#ifndef CG_KERNEL_H
#define CG_KERNEL_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif
#include "../util/cg_util.h"
#include "../graph/cg_gops.h"

#define CG_KMAX_DEPTH 2000 /* expression and statement nesting */
#define CG_KMAX_DIM 3      /* arrays have 1, 2 or 3 dimensions */

/* {==== types ====}
 * Value types of expressions and the base of symbols.  A pointer is a
 * pointer to double or to int; a 2-D or 3-D array decays to a pointer to
 * its first cell (its row length and plane shape stay with the symbol).
 * PPDOUBLE, PPINT: a `double **` or `int **` parameter's type (ptr 2); no
 * expression has it (its rows are read only by a load, see ELEM). */
#define CG_KTYPES(X) \
  X(VOID, void)      \
  X(INT, int)        \
  X(DOUBLE, double)  \
  X(PDOUBLE, double *) \
  X(PINT, int *)     \
  X(PPDOUBLE, double **) \
  X(PPINT, int **)
enum {
#define CG_KT_ENUM(id, nm) CG_KT_##id,
  CG_KTYPES(CG_KT_ENUM)
#undef CG_KT_ENUM
  CG_KT_COUNT
};

/* {==== C integer types ====}
 * The C type of an INT symbol's cells (or of the cells an int pointer
 * points to): column id (CG_KC_<id>), the C spelling (every printer's),
 * the bits of its values and whether it is signed.  Each promotes to int
 * in every expression (C99 6.3.1.1), so arithmetic stays INT; what differs
 * is storage: a store into such a cell converts the int value to the type
 * (cg_kctype_wrap: modulo 2^bits, two's complement for the signed ones, as
 * gcc does; _Bool: value != 0).  Plain char is signed, as gcc's on the
 * machines cgwb is built on (x86-64 and its kin; -funsigned-char is not
 * supported).  A new row goes above the comment that ends the table. */
#define CG_KCTYPES(X)                      \
  X(INT, int, 32, 1)                       \
  X(CHAR, char, 8, 1)                      \
  X(SCHAR, signed char, 8, 1)              \
  X(UCHAR, unsigned char, 8, 0)            \
  X(SHORT, short, 16, 1)                   \
  X(USHORT, unsigned short, 16, 0)         \
  X(BOOL, _Bool, 1, 0)                     \
  /* (the end of the C integer types: a new one goes above this line) */
enum {
#define CG_KC_ENUM(id, nm, bits, sgn) CG_KC_##id,
  CG_KCTYPES(CG_KC_ENUM)
#undef CG_KC_ENUM
  CG_KC_COUNT
};

/* {==== symbols ====}
 * kind: PARAM (in parameter order, first in its function), LOCAL, TEMP (a
 * temporary of canonicalization, named "t<N>@<line>" after the source line
 * it comes from), GLOBAL (file scope, read-only: a write is a front-end
 * error).  base: INT or DOUBLE (the cell type).  ptr: 1 for a pointer
 * (a pointer parameter or local pointer variable; an array parameter is a
 * pointer with its declared dims kept for indexing); 2 for a `double **` or
 * `int **` parameter (only a PARAM, ndim 0: its rows are pointer cells the
 * function reads, never stores).  ndim 0: a scalar (or
 * a plain pointer); 1, 2 or 3: an array of dim0 (x dim1 (x dim2)) cells
 * (dim0 0 = unknown, only for a parameter such as `double a[][4]`,
 * `double a[][4][5]` or `double a[]`; the dims past ndim are 0).  qual:
 * CG_KQ_* bits.  init, ninit: for a GLOBAL, its initializer, ninit values
 * in dconst[init..] (cells past ninit are 0, as C says); -1/0 otherwise
 * (locals are initialized by statements).  HEAP: an allocation site (one
 * ALLOC statement), the abstract object of every block that site gives
 * (Utke, Flattening, sec. 4: an address set per site); named
 * "<pointer>@<line>", base the cell type, ptr 0, ndim 1, dim0 0 (its size
 * is the ALLOC's count, known when it runs); no code declares it.  ctype:
 * for an INT base, the C integer type of the cells (CG_KC_*; CG_KC_INT for
 * int); CG_KC_INT for a DOUBLE base. */
enum { CG_KS_PARAM, CG_KS_LOCAL, CG_KS_TEMP, CG_KS_GLOBAL, CG_KS_HEAP, CG_KS_COUNT };
enum {
  CG_KQ_CONST = 1,    /* the object (or, for a pointer, what it points to) is const */
  CG_KQ_RESTRICT = 2, /* a restrict-qualified pointer */
  CG_KQ_ADDR = 4      /* a scalar whose address is taken (&x) */
};
#define CG_KSYM_FIELDS(X) \
  X(NAME) X(FUNC) X(KIND) X(BASE) X(PTR) X(NDIM) X(DIM0) X(DIM1) X(DIM2) X(QUAL) X(INIT) X(NINIT) \
  X(LINE) X(COL) X(CTYPE)

/* {==== expressions ====}
 * Side-effect free trees (C1).  Columns: id, name (the dump's and Lua's),
 * result type (VOID: the row's `type` field says: INT or DOUBLE for
 * arithmetic, a pointer type for REF/ADDR/PTRADD/COND), operand fields used.
 * Fields of an expression row: OP, TYPE, A, B, C (operand expressions or -1),
 * SYM (symbol; for INTRIN the intrinsic id), IVAL (CONST_I: the value;
 * CONST_D: index into dconst), LINE, COL.
 *   CONST_I     IVAL                    int constant
 *   CONST_D     IVAL = dconst index     double constant (%.17g exact)
 *   VAR         SYM                     a scalar variable's value (int, double or pointer)
 *   ELEM        SYM, A, B, C            cell A (2-D: row A, column B; 3-D: plane A, row B,
 *                                       column C) of array or pointer SYM, one subscript
 *                                       per dim; `*p` is ELEM(p, 0), `*(p+i)` is ELEM(p, i);
 *                                       of a ptr-2 SYM: row pointer A (type PDOUBLE or
 *                                       PINT), only the rhs of an ASSIGN to a pointer
 *                                       variable (a load)
 *   ADDR        SYM, A, B, C            the address &SYM[A][B][C]: A, B, C -1 for &x or a
 *                                       decayed array; fewer subscripts than dims (a prefix:
 *                                       B -1 implies C -1): the address of the first cell of
 *                                       row A (2-D), plane A or row B of plane A (3-D)
 *   PTRADD      A (pointer), B (int)    A + B cells (p - k is PTRADD(p, NEG(k)))
 *   NEG NOT     A                       -A, !A (NOT: int result)
 *   ADD SUB MUL DIV MOD  A, B            int or double (MOD int only; int DIV truncates)
 *   LT LE GT GE EQ NE    A, B            comparisons of ints or doubles, or of two pointers of
 *                                       one type (EQ NE: the same cell or both NULL; LT ..
 *                                       GE only within one object, C99 6.5.8): int 0/1
 *   AND OR      A, B                    short-circuit: B is evaluated only when needed
 *   COND        A ? B : C               B, C of the row's type
 *   CAST        A, IVAL                 to the row's type (INT <-> DOUBLE; double to int
 *                                       truncates, as C); IVAL -1 or CG_KC_INT (plain), or for an INT row a
 *                                       CG_KC_* type the value is converted to (then
 *                                       promoted back: `(char)x`, and assignments of a
 *                                       double to a char cell); a double converts as C
 *                                       says (_Bool: x != 0; the others: truncated,
 *                                       and outside the type's range undefined in C, an
 *                                       error of the interpreter)
 *   INTRIN      SYM = intrinsic, A, B   a math.h intrinsic (CG_KINTRINSICS)
 *   NULLP       -                       the null pointer of the row's (pointer) type
 *   BAND BOR BXOR SHL SHR  A, B         int & | ^ << >> (C99 6.5.7, 6.5.10-12; a shift by
 *                                       less than 0 or 32 or more, a left shift of a negative
 *                                       int or out of int: undefined, an interpreter error;
 *                                       >> of a negative int is arithmetic, as gcc's)
 *   BNOT        A                       ~A of an int
 *   PTRDIFF     A, B (pointers)         A - B in cells, an int: two pointers of one type
 *                                       into one object (C99 6.5.6: ptrdiff_t, here int)
 * The reads of memory are VAR and ELEM (the uses of Utke, Flattening,
 * sec. 4); ADDR reads no cell, only its subscripts. */
#define CG_KEXPRS(X) \
  X(CONST_I, const_i) X(CONST_D, const_d) X(VAR, var) X(ELEM, elem) X(ADDR, addr) \
  X(PTRADD, ptradd) X(NEG, neg) X(NOT, not) X(ADD, add) X(SUB, sub) X(MUL, mul) \
  X(DIV, div) X(MOD, mod) X(LT, lt) X(LE, le) X(GT, gt) X(GE, ge) X(EQ, eq) X(NE, ne) \
  X(AND, and) X(OR, or) X(COND, cond) X(CAST, cast) X(INTRIN, intrin) X(NULLP, null) \
  X(PTRDIFF, ptrdiff) X(BAND, band) X(BOR, bor) X(BXOR, bxor) X(SHL, shl) X(SHR, shr) X(BNOT, bnot)
enum {
#define CG_KE_ENUM(id, nm) CG_KE_##id,
  CG_KEXPRS(CG_KE_ENUM)
#undef CG_KE_ENUM
  CG_KE_COUNT
};
#define CG_KEXPR_FIELDS(X) X(OP) X(TYPE) X(A) X(B) X(C) X(SYM) X(IVAL) X(LINE) X(COL)

/* {==== intrinsics ====}
 * The math.h functions of the subset, one row each: id (CG_KI_<id>), the C
 * name (the kernel's and the C library's: the interpreter and every code
 * generator call that function), arity, the graph operation (cg_gops.h)
 * that gives its partials, and its XAIF name (the Intrinsic of XAIF's
 * inlinable catalogue where it has one, cgwb_<name>_scal[_scal] where it
 * has none; doc/xaif.md).  The kernel's value is the C library's own call,
 * so the interpreter equals compiled code bit for bit; the partials are the
 * operation table's.  POW with a constant exponent is still POW here;
 * flattening may choose POWC.  spec/c/test_kintrinsics.c checks that each
 * row's operation gives the C function's value.  A new row goes above the
 * comment that ends the table (doc/hacking.md, "Adding an intrinsic"). */
#define CG_KINTRINSICS(X)                                     \
  X(SIN, sin, 1, SIN, sin_scal)                               \
  X(COS, cos, 1, COS, cos_scal)                               \
  X(TAN, tan, 1, TAN, tan_scal)                               \
  X(ASIN, asin, 1, ASIN, arcsin_scal)                         \
  X(ACOS, acos, 1, ACOS, arccos_scal)                         \
  X(ATAN, atan, 1, ATAN, arctan_scal)                         \
  X(ATAN2, atan2, 2, ATAN2, cgwb_atan2_scal_scal)             \
  X(SINH, sinh, 1, SINH, sinh_scal)                           \
  X(COSH, cosh, 1, COSH, cosh_scal)                           \
  X(TANH, tanh, 1, TANH, tanh_scal)                           \
  X(EXP, exp, 1, EXP, exp_scal)                               \
  X(LOG, log, 1, LOG, ln_scal)                                \
  X(LOG10, log10, 1, LOG10, log10)                            \
  X(SQRT, sqrt, 1, SQRT, sqrt_scal)                           \
  X(POW, pow, 2, POW, pow_scal_scal)                          \
  X(FABS, fabs, 1, ABS, abs_scal)                             \
  X(FMIN, fmin, 2, MIN, nc_min_scal_scal)                     \
  X(FMAX, fmax, 2, MAX, nc_max_scal_scal)                     \
  X(FLOOR, floor, 1, FLOOR, cgwb_floor_scal)                  \
  X(CEIL, ceil, 1, CEIL, cgwb_ceil_scal)                      \
  X(CBRT, cbrt, 1, CBRT, cgwb_cbrt_scal)                      \
  X(ACOSH, acosh, 1, ACOSH, cgwb_acosh_scal)                  \
  X(ATANH, atanh, 1, ATANH, cgwb_atanh_scal)                  \
  X(ERF, erf, 1, ERF, cgwb_erf_scal)                          \
  X(ERFC, erfc, 1, ERFC, cgwb_erfc_scal)                      \
  X(LGAMMA, lgamma, 1, LGAMMA, cgwb_lgamma_scal)              \
  X(TGAMMA, tgamma, 1, TGAMMA, cgwb_tgamma_scal)              \
  X(EXPM1, expm1, 1, EXPM1, cgwb_expm1_scal)                  \
  X(LOG1P, log1p, 1, LOG1P, cgwb_log1p_scal)                  \
  X(LOG2, log2, 1, LOG2, cgwb_log2_scal)                      \
  X(EXP2, exp2, 1, EXP2, cgwb_exp2_scal)                      \
  X(HYPOT, hypot, 2, HYPOT, cgwb_hypot_scal_scal)             \
  X(FMOD, fmod, 2, FMOD, cgwb_fmod_scal_scal)                 \
  X(ROUND, round, 1, ROUND, cgwb_round_scal)                  \
  X(TRUNC, trunc, 1, TRUNC, cgwb_trunc_scal)                  \
  X(COPYSIGN, copysign, 2, COPYSIGN, cgwb_copysign_scal_scal) \
  /* (the end of the table: a new row goes above this line) */
enum {
#define CG_KI_ENUM(id, nm, ar, g, xaif) CG_KI_##id,
  CG_KINTRINSICS(CG_KI_ENUM)
#undef CG_KI_ENUM
  CG_KI_COUNT
};

/* {==== statements ====}
 * Fields: KIND, FUNC, LINE, COL, PRAGMA (index into names[] of the text
 * after `#pragma cgwb` on the line before, or -1), then X0..X6 by kind:
 *   ASSIGN    X0 lhs (VAR or ELEM; a pointer VAR for pointer assignment),
 *             X1 rhs
 *   CALL      X0 callee function, X1 first argument in args[], X2 count,
 *             X3 lhs receiving the result (VAR or ELEM) or -1 (C3, C4: a
 *             call is a statement of its own, arguments side-effect free)
 *   IF        X0 condition (int), X1 X2 then slice of list[], X3 X4 else
 *   LOOP      X0 condition (int) or -1 (none: true), X1 X2 body slice,
 *             X3 X4 step slice (run after the body and on continue),
 *             X5 X6 pre slice (run before each test: hoisted calls of the
 *             condition); FLAGS: CG_KL_* (for, while or do; do tests after
 *             the body).  A for's init is in the enclosing body before it.
 *   BREAK CONTINUE  (the innermost loop)
 *   RETURN    X0 value or -1
 *   ALLOC     X0 lhs (a pointer VAR), X1 count (int: cells, not bytes),
 *             X2 block (ADDR of the site's HEAP symbol, whose base is the
 *             cell type: the object the alias analysis gives the lhs);
 *             FLAGS: CG_KH_ZERO for calloc (cells 0), else indeterminate
 *             (malloc: a read before a write is an error)
 *   FREE      X0 pointer (a pointer expression: the start of a live block)
 *   PASSIVE   a C library call with no derivative (CG_KPASSIVES, its row's id in
 *             FLAGS): X0 its text (index into names[] of a string literal's
 *             bytes, or of an assert's condition as written) or -1, X1 X2
 *             its value arguments in args[] (int or double)
 */
#define CG_KSTMTS(X) X(ASSIGN, assign) X(CALL, call) X(IF, if) X(LOOP, loop) \
  X(BREAK, break) X(CONTINUE, continue) X(RETURN, return) X(ALLOC, alloc) X(FREE, free) \
  X(PASSIVE, passive)
/* The slots X0..X6 by name, per kind: kind, field, what it holds, slot.
 * EXPR: an expression id (-1: none); FUNC: a function id; LIST: a slice
 * of list[] (statement ids), ARGS: a slice of args[] (expression ids),
 * both with the start in the slot and the count in the next one; a kind's
 * LIST parts come in the order they run (a loop: pre, body, step).  C reads
 * them as CG_KSTMT(k, s, LOOP_BODY) and CG_KSTMT_N(k, s, LOOP_BODY) (the
 * count); core.kernel_layout() gives Lua the same table (stmt_parts), from
 * which cgwb.ir builds its records. */
#define CG_KSTMT_PARTS(X)                                                        \
  X(ASSIGN, LHS, EXPR, X0) X(ASSIGN, RHS, EXPR, X1)                               \
  X(CALL, CALLEE, FUNC, X0) X(CALL, ARGS, ARGS, X1) X(CALL, LHS, EXPR, X3)        \
  X(IF, COND, EXPR, X0) X(IF, THEN, LIST, X1) X(IF, ELSE, LIST, X3)               \
  X(LOOP, COND, EXPR, X0) X(LOOP, PRE, LIST, X5) X(LOOP, BODY, LIST, X1)          \
  X(LOOP, STEP, LIST, X3)                                                         \
  X(RETURN, VALUE, EXPR, X0)                                                      \
  X(ALLOC, LHS, EXPR, X0) X(ALLOC, COUNT, EXPR, X1) X(ALLOC, BLOCK, EXPR, X2)      \
  X(FREE, PTR, EXPR, X0)                                                          \
  X(PASSIVE, ARGS, ARGS, X1)
/* The sorts of part (CG_KSTMT_PARTS' third column), for code that checks
 * or walks the parts by sort: CG_KP_##what. */
enum { CG_KP_EXPR, CG_KP_FUNC, CG_KP_LIST, CG_KP_ARGS };
enum {
#define CG_KST_ENUM(id, nm) CG_KST_##id,
  CG_KSTMTS(CG_KST_ENUM)
#undef CG_KST_ENUM
  CG_KST_COUNT
};
enum { CG_KL_FOR = 0, CG_KL_WHILE = 1, CG_KL_DO = 2 };
enum { CG_KH_ZERO = 1 }; /* ALLOC's FLAGS: calloc */

/* {==== passive calls ====}
 * The C library calls a kernel may make that have no derivative: output,
 * and the ends of a run.  A PASSIVE statement each (FLAGS: the row's id),
 * kept in the primal code and absent from every derivative part.  Columns:
 * id, the C function, the stream it names (NULL: none), where the stream
 * stands (1: first argument, 2: last), its text (0: none, 1: a string
 * literal after the leading stream, a printf format when nargs is -1, 2:
 * an assert's condition as written, for the message only) and its count
 * of value arguments (-1: as many as the format converts).  A new row goes
 * above the comment that ends the table. */
#define CG_KPASSIVES(X)                             \
  X(PRINTF, printf, NULL, 0, 1, -1)                 \
  X(FPRINTF_STDOUT, fprintf, "stdout", 1, 1, -1)    \
  X(FPRINTF_STDERR, fprintf, "stderr", 1, 1, -1)    \
  X(PUTS, puts, NULL, 0, 1, 0)                      \
  X(FPUTS_STDOUT, fputs, "stdout", 2, 1, 0)         \
  X(FPUTS_STDERR, fputs, "stderr", 2, 1, 0)         \
  X(PUTCHAR, putchar, NULL, 0, 0, 1)                \
  X(FFLUSH_STDOUT, fflush, "stdout", 1, 0, 0)       \
  X(FFLUSH_STDERR, fflush, "stderr", 1, 0, 0)       \
  X(EXIT, exit, NULL, 0, 0, 1)                      \
  X(ABORT, abort, NULL, 0, 0, 0)                    \
  X(ASSERT, assert, NULL, 0, 2, 1)                  \
  /* (the end of the table: a new row goes above this line) */
enum {
#define CG_KP_ENUM(id, fn, stream, at, text, nargs) CG_KPC_##id,
  CG_KPASSIVES(CG_KP_ENUM)
#undef CG_KP_ENUM
  CG_KPC_COUNT
};
#define CG_KSTMT_FIELDS(X) \
  X(KIND) X(FUNC) X(LINE) X(COL) X(PRAGMA) X(FLAGS) X(X0) X(X1) X(X2) X(X3) X(X4) X(X5) X(X6)

/* A file whose code goes case by case over the statement kinds or the
 * expression operators (a switch whose default stands for "the others")
 * states, at file scope, the numbers of kinds it was written for:
 * CG_KKINDS_SEEN(10, 32).  A kind added to CG_KSTMTS or CG_KEXPRS then stops
 * the compilation of every such file ("size of array 'cg_kkinds_seen' is
 * negative"), to be read again for the new kind, as cgwb.ir.cases stops
 * every Lua back end (doc/hacking.md, "Adding a kernel construct");
 * spec/17-hacking_spec.lua checks that every file with such a switch says so. */
#define CG_KKINDS_SEEN(nstmt, nexpr) \
  typedef char cg_kkinds_seen[(CG_KST_COUNT == (nstmt) && CG_KE_COUNT == (nexpr)) ? 1 : -1]

/* {==== functions ====}
 * RET: CG_KT_VOID, INT or DOUBLE.  Symbols SYM0 .. SYM0+NSYM-1 are the
 * function's, the first NPARAM of them its parameters in order.  BODY,
 * NBODY: its body slice of list[]; BODY -1 and NBODY 0: an external
 * function (a prototype the user declared with its derivatives, defined
 * elsewhere: doc/kernels.md, "External functions"), whose symbols are its
 * parameters (CG_KFUNC_EXTERNAL). */
#define CG_KFUNC_FIELDS(X) X(NAME) X(RET) X(SYM0) X(NSYM) X(NPARAM) X(BODY) X(NBODY) X(LINE) X(COL)

/* Field offsets and row widths: CG_KSYM_NAME ... , CG_KSYM_W. */
enum {
#define F(n) CG_KSYM_##n,
  CG_KSYM_FIELDS(F) CG_KSYM_W
#undef F
};
enum {
#define F(n) CG_KEXPR_##n,
  CG_KEXPR_FIELDS(F) CG_KEXPR_W
#undef F
};
enum {
#define F(n) CG_KSTMT_##n,
  CG_KSTMT_FIELDS(F) CG_KSTMT_W
#undef F
};
enum {
#define F(n) CG_KFUNC_##n,
  CG_KFUNC_FIELDS(F) CG_KFUNC_W
#undef F
};

/* {==== the front end's arrays ====}
 * What cg_kernel_load reads (and copies: the caller keeps its arrays).
 * names: nname NUL-terminated strings (identifiers, pragma texts). */
typedef struct cg_ksrc {
  const char *file;           /* for messages; NULL: "kernel" */
  uint32_t nname;
  const char *const *names;
  uint32_t nfunc, nsym, nexpr, nstmt, nlist, narg, ndconst;
  const int32_t *func;        /* nfunc * CG_KFUNC_W */
  const int32_t *sym;         /* nsym * CG_KSYM_W */
  const int32_t *expr;        /* nexpr * CG_KEXPR_W */
  const int32_t *stmt;        /* nstmt * CG_KSTMT_W */
  const int32_t *list;        /* statement ids of the body slices */
  const int32_t *args;        /* expression ids of call arguments */
  const double *dconst;       /* double constants */
} cg_ksrc;

/* A loaded kernel: the same arrays (owned), plus derived indexes. */
typedef struct cg_kernel {
  cg_alloc *A;
  char *file;
  uint32_t nname;
  char **names;
  uint32_t nfunc, nsym, nexpr, nstmt, nlist, narg, ndconst;
  int32_t *func, *sym, *expr, *stmt, *list, *args;
  double *dconst;
  /* derived */
  int32_t *expr_stmt;   /* the statement an expression belongs to */
  int32_t *expr_parent; /* the parent expression, -1 at a statement or argument */
  int32_t *stmt_parent; /* the enclosing IF or LOOP statement, -1 at a function body */
  int32_t *stmt_loop;   /* BREAK/CONTINUE: its loop; -1 otherwise */
} cg_kernel;

enum {
#define F(kind, name, what, slot) CG_KSTMT_##kind##_##name = CG_KSTMT_##slot,
  CG_KSTMT_PARTS(F)
#undef F
};

/* Field access: CG_KSYM(k, s, NAME) and so on; CG_KSTMT_N the count of a
 * LIST or ARGS part (the slot after its start). */
#define CG_KSYM(k, s, f) ((k)->sym[(size_t)(s) * CG_KSYM_W + CG_KSYM_##f])
#define CG_KEXPR(k, x, f) ((k)->expr[(size_t)(x) * CG_KEXPR_W + CG_KEXPR_##f])
#define CG_KSTMT(k, s, f) ((k)->stmt[(size_t)(s) * CG_KSTMT_W + CG_KSTMT_##f])
#define CG_KFUNC(k, g, f) ((k)->func[(size_t)(g) * CG_KFUNC_W + CG_KFUNC_##f])
#define CG_KFUNC_EXTERNAL(k, g) (CG_KFUNC(k, g, BODY) == -1)
#define CG_KSTMT_N(k, s, f) ((k)->stmt[(size_t)(s) * CG_KSTMT_W + CG_KSTMT_##f + 1])
/* A LIST or ARGS part as the two arguments (start, count) of a function
 * that takes a slice: walk(b, CG_KSTMT_SLICE(k, s, LOOP_BODY)). */
#define CG_KSTMT_SLICE(k, s, f) CG_KSTMT(k, s, f), CG_KSTMT_N(k, s, f)

/* Names of the enumerations (NULL out of range). */
const char *cg_ktype_name(int t);
const char *cg_kexpr_name(int op);
const char *cg_kstmt_name(int kind);
const char *cg_kintrinsic_name(int id);
int cg_kintrinsic_arity(int id);
int cg_kintrinsic_gop(int id); /* the CG_G_* row of its partials (-1 out of range) */
const char *cg_kintrinsic_xaif(int id); /* its XAIF name */

/* The passive calls (CG_KPASSIVES, csrc/kernel/cg_kpassive.c): the C
 * function (NULL out of range), the stream (NULL: none), where it stands,
 * the text column and the value arguments' count (-1: the format's). */
const char *cg_kpassive_fn(int id);
const char *cg_kpassive_stream(int id);
int cg_kpassive_at(int id);
int cg_kpassive_text(int id);
int cg_kpassive_nargs(int id);
/* One conversion of a printf format: the bytes [start, end) of its
 * specification, the int arguments its `*`s take (0-2), and the type of the
 * value it converts (CG_KT_INT, CG_KT_DOUBLE, or CG_KT_VOID for `%%`). */
typedef struct cg_kconv {
  uint32_t start, end;
  int nstar, type;
} cg_kconv;
#define CG_KFMT_MAX_CONV 64 /* conversions in one format */
/* Scans printf format fmt: the conversions into conv (at most
 * CG_KFMT_MAX_CONV), their count in *nconv, and the value arguments it takes
 * (their types in order into types, up to CG_KFMT_MAX_CONV * 3), or -1 and
 * why (a conversion the subset has no value for, such as %p, a length
 * modifier that names another type, a width over 4 digits).  A plain %s
 * (flags, width and precision digits, no `*`) is type CG_KFMT_STRING: the
 * front end folds a string literal argument into the format; a format a
 * PASSIVE statement holds has none left (the loader checks). */
#define CG_KFMT_STRING (-1)
int cg_kformat_scan(const char *fmt, cg_kconv *conv, int *nconv, int *types, char *why,
                    size_t nwhy);

/* The C integer types (CG_KCTYPES): the C spelling (NULL out of range),
 * bits, signedness; the int v converted to type ct (C99 6.3.1.2-3, wrapping
 * as gcc does); whether v lies in ct's range. */
const char *cg_kctype_name(int ct);
int cg_kctype_bits(int ct);
int cg_kctype_signed(int ct);
int32_t cg_kctype_wrap(int ct, int64_t v);
int cg_kctype_fits(int ct, int64_t v);

/* The value type of symbol s: its base, or the pointer to it (ptr 1), or
 * the pointer to pointers (ptr 2). */
int cg_ksym_type(const cg_kernel *k, int32_t s);
/* The cells of symbol s: dim0 * dim1 * dim2 for an array (as many factors
 * as dims; 0 for an unknown dim0), 1 for a scalar, 0 for a plain pointer. */
int64_t cg_ksym_cells(const cg_kernel *k, int32_t s);
/* Dim d (0 .. CG_KMAX_DIM-1) of symbol s: DIM0, DIM1 or DIM2 (0 past its
 * ndim), and the cells one step of subscript d moves over (the product of
 * the dims after d that the symbol has; 1 for its last dim). */
int32_t cg_ksym_dim(const cg_kernel *k, int32_t s, int d);
int64_t cg_ksym_stride(const cg_kernel *k, int32_t s, int d);
/* The subscripts of ELEM or ADDR x: the A, B, C fields that are not -1 (a
 * prefix), into out; returns their number (0..CG_KMAX_DIM). */
int cg_kexpr_subscripts(const cg_kernel *k, int32_t x, int32_t out[CG_KMAX_DIM]);
/* The operand expressions A, B, C expression x uses into out (-1 where
 * unused or absent); returns how many slots its operator has (0..3). */
int cg_kexpr_operands(const cg_kernel *k, int32_t x, int32_t out[3]);

/* Loads (checks and copies) the front end's arrays.  NULL with e set
 * (CG_EFORMAT naming table, row and field; CG_ENOMEM) on failure.  O(size). */
cg_kernel *cg_kernel_load(cg_alloc *A, const cg_ksrc *src, cg_error *e);
void cg_kernel_free(cg_kernel *k);
/* The function called name, or -1. */
int32_t cg_kernel_find(const cg_kernel *k, const char *name);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
