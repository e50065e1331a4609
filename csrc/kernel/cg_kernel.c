/* cg_kernel.c: the kernel's intermediate form: names of its enumerations
 * (the loader, cg_kernel_load, is added beside them). */
#include "cg_kernel.h"

#include <string.h>

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
static const struct { const char *name; int arity, gop; } intrinsics[] = {
#define N(id, nm, ar, g) {#nm, ar, CG_G_##g},
    CG_KINTRINSICS(N)
#undef N
};

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
