/*
 * cg_ops.h: the tape opcode set of cgwb.
 *
 * One table holds every operation a cgwb tape can contain.  Codes below 150
 * are ADOL-C 2.7.2's own numbers and names (doc/adolc-format.md,
 * section 5), so an ADOL-C tape needs no renaming and statistics show ADOL-C's
 * names.  Codes from 150 on are the operations of Bischof & Hu's appendix that
 * ADOL-C 2.x no longer writes (`plus_a_d`, `div_a_d`, `eq_div_a`, `tan_op`, ...):
 * the Lua tracer and hand-written tapes use them.
 *
 * Operand order.  Inside cgwb every record lists its locations in one
 * canonical order, the order of Bischof & Hu's tables: the locations written
 * first (`nout` of them), then the locations read, then the constants.  So
 * `plus_a_a 5 1 2` is L5 = L1 + L2 and `assign_d 3 3.0` is L3 = 3.0.  An
 * in-place record (`eq_plus_a 5 1`: L5 += L1) names its result once, first.
 * ADOL-C's files use another order per opcode; `perm` maps canonical operand
 * i to ADOL-C's file position perm[i].
 *
 * Columns: code, name, nloc (-1: variable), nval (-1: variable), nout,
 * flags, ADOL-C file permutation (as a string of digits, "" = identity).
 */
#ifndef CG_OPS_H
#define CG_OPS_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include <stdint.h>

/* flags */
#define CG_OPF_ADOLC 0x01   /* an opcode of ADOL-C 2.x's table */
#define CG_OPF_MARKER 0x02  /* block/tape marker: never stored in a cgwb tape */
#define CG_OPF_INPLACE 0x04 /* the first (output) location is also read */
#define CG_OPF_REJECT 0x08  /* ADOL-C opcode that cgwb refuses (AMPI, ...) */
#define CG_OPF_PARAM 0x10   /* reads a pdouble parameter (lowered on reading) */
#define CG_OPF_REF 0x20     /* first location holds a location number */
#define CG_OPF_BRANCH 0x40  /* a branch record: checks the sign of its input */
#define CG_OPF_VARLEN 0x80  /* nloc or nval depend on the operands */

#define CG_OPS(X)                                                        \
  X(0, death_not, 2, 0, 0, CG_OPF_ADOLC, "")                             \
  X(1, assign_ind, 1, 0, 1, CG_OPF_ADOLC, "")                            \
  X(2, assign_dep, 1, 0, 0, CG_OPF_ADOLC, "")                            \
  X(3, assign_a, 2, 0, 1, CG_OPF_ADOLC, "10")                            \
  X(4, assign_d, 1, 1, 1, CG_OPF_ADOLC, "")                              \
  X(5, eq_plus_d, 1, 1, 1, CG_OPF_ADOLC | CG_OPF_INPLACE, "")            \
  X(6, eq_plus_a, 2, 0, 1, CG_OPF_ADOLC | CG_OPF_INPLACE, "10")          \
  X(7, eq_min_d, 1, 1, 1, CG_OPF_ADOLC | CG_OPF_INPLACE, "")             \
  X(8, eq_min_a, 2, 0, 1, CG_OPF_ADOLC | CG_OPF_INPLACE, "10")           \
  X(9, eq_mult_d, 1, 1, 1, CG_OPF_ADOLC | CG_OPF_INPLACE, "")            \
  X(10, eq_mult_a, 2, 0, 1, CG_OPF_ADOLC | CG_OPF_INPLACE, "10")         \
  X(11, plus_a_a, 3, 0, 1, CG_OPF_ADOLC, "201")                          \
  X(12, plus_d_a, 2, 1, 1, CG_OPF_ADOLC, "10")                           \
  X(13, min_a_a, 3, 0, 1, CG_OPF_ADOLC, "201")                           \
  X(14, min_d_a, 2, 1, 1, CG_OPF_ADOLC, "10")                            \
  X(15, mult_a_a, 3, 0, 1, CG_OPF_ADOLC, "201")                          \
  X(16, mult_d_a, 2, 1, 1, CG_OPF_ADOLC, "10")                           \
  X(17, div_a_a, 3, 0, 1, CG_OPF_ADOLC, "201")                           \
  X(18, div_d_a, 2, 1, 1, CG_OPF_ADOLC, "10")                            \
  X(19, exp_op, 2, 0, 1, CG_OPF_ADOLC, "10")                             \
  X(20, cos_op, 3, 0, 2, CG_OPF_ADOLC, "210")                            \
  X(21, sin_op, 3, 0, 2, CG_OPF_ADOLC, "210")                            \
  X(22, atan_op, 3, 0, 1, CG_OPF_ADOLC, "201")                           \
  X(23, log_op, 2, 0, 1, CG_OPF_ADOLC, "10")                             \
  X(24, pow_op, 2, 1, 1, CG_OPF_ADOLC, "10")                             \
  X(25, asin_op, 3, 0, 1, CG_OPF_ADOLC, "201")                           \
  X(26, acos_op, 3, 0, 1, CG_OPF_ADOLC, "201")                           \
  X(27, sqrt_op, 2, 0, 1, CG_OPF_ADOLC, "10")                            \
  X(28, asinh_op, 3, 0, 1, CG_OPF_ADOLC, "201")                          \
  X(29, acosh_op, 3, 0, 1, CG_OPF_ADOLC, "201")                          \
  X(30, atanh_op, 3, 0, 1, CG_OPF_ADOLC, "201")                          \
  X(31, gen_quad, 3, 2, 1, CG_OPF_ADOLC, "201")                          \
  X(32, end_of_tape, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_MARKER, "")          \
  X(33, start_of_tape, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_MARKER, "")        \
  X(34, end_of_op, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_MARKER, "")            \
  X(35, end_of_int, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_MARKER, "")           \
  X(36, end_of_val, 1, 0, 0, CG_OPF_ADOLC | CG_OPF_MARKER, "")           \
  X(37, cond_assign, 4, 1, 1, CG_OPF_ADOLC, "3012")                      \
  X(38, cond_assign_s, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_INPLACE, "201")    \
  X(39, take_stock_op, 2, -1, 0, CG_OPF_ADOLC | CG_OPF_VARLEN, "")       \
  X(40, assign_d_one, 1, 0, 1, CG_OPF_ADOLC, "")                         \
  X(41, assign_d_zero, 1, 0, 1, CG_OPF_ADOLC, "")                        \
  X(42, incr_a, 1, 0, 1, CG_OPF_ADOLC | CG_OPF_INPLACE, "")              \
  X(43, decr_a, 1, 0, 1, CG_OPF_ADOLC | CG_OPF_INPLACE, "")              \
  X(44, neg_sign_a, 2, 0, 1, CG_OPF_ADOLC, "10")                         \
  X(45, pos_sign_a, 2, 0, 1, CG_OPF_ADOLC, "10")                         \
  X(46, min_op, 3, 1, 1, CG_OPF_ADOLC, "201")                            \
  X(47, abs_val, 2, 1, 1, CG_OPF_ADOLC, "10")                            \
  X(48, eq_zero, 1, 0, 0, CG_OPF_ADOLC | CG_OPF_BRANCH, "")              \
  X(49, neq_zero, 1, 0, 0, CG_OPF_ADOLC | CG_OPF_BRANCH, "")             \
  X(50, le_zero, 1, 0, 0, CG_OPF_ADOLC | CG_OPF_BRANCH, "")              \
  X(51, gt_zero, 1, 0, 0, CG_OPF_ADOLC | CG_OPF_BRANCH, "")              \
  X(52, ge_zero, 1, 0, 0, CG_OPF_ADOLC | CG_OPF_BRANCH, "")              \
  X(53, lt_zero, 1, 0, 0, CG_OPF_ADOLC | CG_OPF_BRANCH, "")              \
  X(54, eq_plus_prod, 3, 0, 1, CG_OPF_ADOLC | CG_OPF_INPLACE, "201")     \
  X(55, eq_min_prod, 3, 0, 1, CG_OPF_ADOLC | CG_OPF_INPLACE, "201")      \
  X(56, erf_op, 3, 0, 1, CG_OPF_ADOLC, "201")                            \
  X(57, ceil_op, 2, 1, 1, CG_OPF_ADOLC, "10")                            \
  X(58, floor_op, 2, 1, 1, CG_OPF_ADOLC, "10")                           \
  X(59, ext_diff, 6, 0, 0, CG_OPF_ADOLC, "")                             \
  X(60, ext_diff_iArr, -1, 0, 0, CG_OPF_ADOLC | CG_OPF_VARLEN, "")       \
  X(61, ignore_me, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")            \
  X(62, ext_diff_v2, -1, 0, 0, CG_OPF_ADOLC | CG_OPF_VARLEN, "")         \
  X(63, cond_eq_assign, 4, 1, 1, CG_OPF_ADOLC, "3012")                   \
  X(64, cond_eq_assign_s, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_INPLACE, "201") \
  X(80, subscript, 3, 1, 1, CG_OPF_ADOLC, "201")                         \
  X(81, subscript_ref, 3, 1, 1, CG_OPF_ADOLC, "201")                     \
  X(82, ref_assign_d_zero, 1, 0, 0, CG_OPF_ADOLC | CG_OPF_REF, "")       \
  X(83, ref_assign_d_one, 1, 0, 0, CG_OPF_ADOLC | CG_OPF_REF, "")        \
  X(84, ref_assign_d, 1, 1, 0, CG_OPF_ADOLC | CG_OPF_REF, "")            \
  X(85, ref_assign_a, 2, 0, 0, CG_OPF_ADOLC | CG_OPF_REF, "10")          \
  X(86, ref_assign_ind, 1, 0, 0, CG_OPF_ADOLC | CG_OPF_REF, "")          \
  X(87, ref_incr_a, 1, 0, 0, CG_OPF_ADOLC | CG_OPF_REF, "")              \
  X(88, ref_decr_a, 1, 0, 0, CG_OPF_ADOLC | CG_OPF_REF, "")              \
  X(89, ref_eq_plus_d, 1, 1, 0, CG_OPF_ADOLC | CG_OPF_REF, "")           \
  X(90, ref_eq_min_d, 1, 1, 0, CG_OPF_ADOLC | CG_OPF_REF, "")            \
  X(91, ref_eq_plus_a, 2, 0, 0, CG_OPF_ADOLC | CG_OPF_REF, "10")         \
  X(92, ref_eq_min_a, 2, 0, 0, CG_OPF_ADOLC | CG_OPF_REF, "10")          \
  X(93, ref_eq_mult_d, 1, 1, 0, CG_OPF_ADOLC | CG_OPF_REF, "")           \
  X(94, ref_eq_mult_a, 2, 0, 0, CG_OPF_ADOLC | CG_OPF_REF, "10")         \
  X(95, ref_copyout, 2, 0, 1, CG_OPF_ADOLC, "10")                        \
  X(96, ref_cond_assign, 4, 1, 0, CG_OPF_ADOLC | CG_OPF_REF, "3012")     \
  X(97, ref_cond_assign_s, 3, 1, 0, CG_OPF_ADOLC | CG_OPF_REF, "201")    \
  X(98, assign_p, 2, 0, 1, CG_OPF_ADOLC | CG_OPF_PARAM, "10")            \
  X(99, eq_plus_p, 2, 0, 1, CG_OPF_ADOLC | CG_OPF_PARAM | CG_OPF_INPLACE, "10") \
  X(100, eq_min_p, 2, 0, 1, CG_OPF_ADOLC | CG_OPF_PARAM | CG_OPF_INPLACE, "10") \
  X(101, eq_mult_p, 2, 0, 1, CG_OPF_ADOLC | CG_OPF_PARAM | CG_OPF_INPLACE, "10") \
  X(102, ref_assign_p, 2, 0, 0, CG_OPF_ADOLC | CG_OPF_PARAM | CG_OPF_REF, "10")  \
  X(103, ref_eq_plus_p, 2, 0, 0, CG_OPF_ADOLC | CG_OPF_PARAM | CG_OPF_REF, "10") \
  X(104, ref_eq_min_p, 2, 0, 0, CG_OPF_ADOLC | CG_OPF_PARAM | CG_OPF_REF, "10")  \
  X(105, ref_eq_mult_p, 2, 0, 0, CG_OPF_ADOLC | CG_OPF_PARAM | CG_OPF_REF, "10") \
  X(106, plus_a_p, 3, 0, 1, CG_OPF_ADOLC | CG_OPF_PARAM, "201")          \
  X(107, min_a_p, 3, 0, 1, CG_OPF_ADOLC | CG_OPF_PARAM, "201")           \
  X(108, mult_a_p, 3, 0, 1, CG_OPF_ADOLC | CG_OPF_PARAM, "201")          \
  X(109, div_p_a, 3, 0, 1, CG_OPF_ADOLC | CG_OPF_PARAM, "201")           \
  X(110, pow_op_p, 3, 0, 1, CG_OPF_ADOLC | CG_OPF_PARAM, "201")          \
  X(111, neg_sign_p, 2, 0, 1, CG_OPF_ADOLC | CG_OPF_PARAM, "10")         \
  X(112, recipr_p, 2, 0, 1, CG_OPF_ADOLC | CG_OPF_PARAM, "10")           \
  X(113, vec_copy, 3, 0, 1, CG_OPF_ADOLC, "201")                         \
  X(114, vec_dot, 4, 0, 1, CG_OPF_ADOLC, "3012")                         \
  X(115, vec_axpy, 5, 0, 1, CG_OPF_ADOLC, "40123")                       \
  X(116, ref_cond_eq_assign, 4, 1, 0, CG_OPF_ADOLC | CG_OPF_REF, "3012") \
  X(117, ref_cond_eq_assign_s, 3, 1, 0, CG_OPF_ADOLC | CG_OPF_REF, "201") \
  X(119, eq_a_p, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_REJECT, "")              \
  X(120, neq_a_p, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_REJECT, "")             \
  X(121, le_a_p, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_REJECT, "")              \
  X(122, gt_a_p, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_REJECT, "")              \
  X(123, ge_a_p, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_REJECT, "")              \
  X(124, lt_a_p, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_REJECT, "")              \
  X(125, eq_a_a, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_REJECT, "")              \
  X(126, neq_a_a, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_REJECT, "")             \
  X(127, le_a_a, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_REJECT, "")              \
  X(128, gt_a_a, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_REJECT, "")              \
  X(129, ge_a_a, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_REJECT, "")              \
  X(130, lt_a_a, 3, 1, 1, CG_OPF_ADOLC | CG_OPF_REJECT, "")              \
  X(131, ampi_send, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")           \
  X(132, ampi_recv, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")           \
  X(133, ampi_isend, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")          \
  X(134, ampi_irecv, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")          \
  X(135, ampi_wait, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")           \
  X(136, ampi_barrier, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")        \
  X(137, ampi_gather, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")         \
  X(138, ampi_scatter, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")        \
  X(139, ampi_allgather, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")      \
  X(140, ampi_gatherv, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")        \
  X(141, ampi_scatterv, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")       \
  X(142, ampi_allgatherv, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")     \
  X(143, ampi_bcast, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")          \
  X(144, ampi_reduce, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")         \
  X(145, ampi_allreduce, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")      \
  X(146, medi_call, 0, 0, 0, CG_OPF_ADOLC | CG_OPF_REJECT, "")           \
  X(147, cbrt_op, 2, 0, 1, CG_OPF_ADOLC, "10")                           \
  X(150, plus_a_d, 2, 1, 1, 0, "")                                       \
  X(151, min_a_d, 2, 1, 1, 0, "")                                        \
  X(152, mult_a_d, 2, 1, 1, 0, "")                                       \
  X(153, div_a_d, 2, 1, 1, 0, "")                                        \
  X(154, eq_div_d, 1, 1, 1, CG_OPF_INPLACE, "")                          \
  X(155, eq_div_a, 2, 0, 1, CG_OPF_INPLACE, "")                          \
  X(156, tan_op, 2, 0, 1, 0, "")

enum {
#define CG_OP_ENUM(code, name, nl, nv, no, fl, perm) CG_OP_##name = code,
  CG_OPS(CG_OP_ENUM)
#undef CG_OP_ENUM
  CG_OP_COUNT = 157
};

/* What the core knows of one opcode. */
typedef struct cg_opinfo {
  const char *name; /* NULL for an unused code */
  int8_t nloc;      /* locations, -1 = variable */
  int8_t nval;      /* constants, -1 = variable */
  uint8_t nout;     /* leading locations that are written */
  uint8_t flags;
  uint8_t perm[8];  /* canonical operand i is ADOL-C file operand perm[i] */
} cg_opinfo;

/* The info for code `op` (0..255); name == NULL for an unknown code. */
const cg_opinfo *cg_op(unsigned op);

/* The code for a name, or -1. */
int cg_op_byname(const char *name);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
