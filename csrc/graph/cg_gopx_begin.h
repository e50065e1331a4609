/* cg_gopx_begin.h: the placeholders of CG_GOPS's expression columns
 * (cg_gops.h), defined for expanding the rows into C; cg_gopx_end.h
 * undefines them.  No include guard: include the pair around each
 * expansion.  The expressions read a[] (operands), c (the constant) and r
 * (the result) of the function they are expanded in. */
#define A0 a[0]
#define A1 a[1]
#define A2 a[2]
#define C c
#define R r
#define XI (a ? a[0] : 0.0) /* an independent: the caller supplies its value */
#define V CG_PM_VAR
#define K CG_PM_CONST
#define P CG_PM_PLUS1
#define M CG_PM_MINUS1
#define OUT CG_GF_OUTCOME
#define SEL CG_GF_SELECT
#define GA CG_GR_A
#define GR CG_GR_R
