/* cg_kactive.c: varied and useful statements over the chains (Hovland,
 * Norris, Utke & Strout, sec. 4); two worklists, forward along du, backward
 * along ud. */
#include "cg_kactive.h"

#include <string.h>

int cg_kalias_set_double(const cg_kalias *al, uint32_t s) {
  return al->set_n[s] && al->obj_base[al->addr[al->set_off[s]].obj] == CG_KT_DOUBLE;
}

static int set_touches(const cg_kalias *al, uint32_t s, const uint8_t *mark) {
  uint32_t i;
  for (i = 0; i < al->set_n[s]; i++)
    if (mark[al->addr[al->set_off[s] + i].obj]) return 1;
  return 0;
}

/* Whether statement st writes a double (or returns one). */
static int makes_double(const cg_kalias *al, int32_t st) {
  const cg_kernel *k = al->k;
  int32_t a;
  if (CG_KSTMT(k, st, KIND) == CG_KST_RETURN)
    return CG_KSTMT(k, st, RETURN_VALUE) >= 0 && CG_KEXPR(k, CG_KSTMT(k, st, RETURN_VALUE), TYPE) == CG_KT_DOUBLE;
  for (a = cg_kalias_acc0(al, st); a >= 0 && a < cg_kalias_acc0(al, st) + cg_kalias_nacc(al, st); a++)
    if (al->acc_kind[a] == CG_KA_DEF && cg_kalias_set_double(al, (uint32_t)al->acc_set[a])) return 1;
  return 0;
}

/* Whether use u may carry an independent's value. */
static int use_varied(const cg_kactive *ac, const cg_kalias *al, const cg_kchains *ch, uint32_t u) {
  uint32_t i;
  if (al->acc_kind[u] != CG_KA_USE || !cg_kalias_set_double(al, (uint32_t)al->acc_set[u])) return 0;
  for (i = ch->ud_off[u]; i < ch->ud_off[u + 1]; i++) {
    int32_t s = ch->ud[i];
    if (s < 0 ? set_touches(al, (uint32_t)al->acc_set[u], ac->indep) : ac->varied[s - ac->s_lo]) return 1;
  }
  return 0;
}

static int stmt_varied(const cg_kactive *ac, const cg_kalias *al, const cg_kchains *ch, int32_t st) {
  int32_t a;
  if (!makes_double(al, st)) return 0;
  for (a = cg_kalias_acc0(al, st); a >= 0 && a < cg_kalias_acc0(al, st) + cg_kalias_nacc(al, st); a++)
    if (use_varied(ac, al, ch, (uint32_t)a)) return 1;
  return 0;
}

/* Forward: a statement turning varied re-examines its du-chain's users. */
static void forward(cg_kactive *ac, const cg_kalias *al, const cg_kchains *ch, int32_t *stack) {
  size_t n = 0;
  uint32_t s, i;
  for (s = 0; s < ac->nstmt; s++)
    if (CG_KSTMT(al->k, ac->s_lo + (int32_t)s, FUNC) == al->func &&
        stmt_varied(ac, al, ch, ac->s_lo + (int32_t)s))
      ac->varied[s] = 1, stack[n++] = ac->s_lo + (int32_t)s;
  while (n) {
    int32_t d = stack[--n];
    for (i = ch->du_off[d - ac->s_lo]; i < ch->du_off[d - ac->s_lo + 1]; i++) {
      int32_t t = ch->du[i];
      if (t < 0 || ac->varied[t - ac->s_lo] || !stmt_varied(ac, al, ch, t)) continue;
      ac->varied[t - ac->s_lo] = 1, stack[n++] = t;
    }
  }
}

/* Backward: a useful statement makes the definitions its doubles read useful. */
static void backward(cg_kactive *ac, const cg_kalias *al, const cg_kchains *ch, int32_t *stack) {
  const cg_kernel *k = al->k;
  size_t n = 0;
  uint32_t s, i;
  int32_t a;
  for (s = 0; s < ac->nstmt; s++) {
    int32_t g = ac->s_lo + (int32_t)s;
    if (CG_KSTMT(k, g, FUNC) == al->func && CG_KSTMT(k, g, KIND) == CG_KST_RETURN &&
        ac->dep_return && makes_double(al, g))
      ac->useful[s] = 1, stack[n++] = g;
  }
  for (i = 0; i < ch->nex; i++)
    if (!ac->useful[ch->ex_stmt[i] - ac->s_lo] && set_touches(al, (uint32_t)ch->ex_set[i], ac->dep) &&
        cg_kalias_set_double(al, (uint32_t)ch->ex_set[i]))
      ac->useful[ch->ex_stmt[i] - ac->s_lo] = 1, stack[n++] = ch->ex_stmt[i];
  while (n) {
    int32_t t = stack[--n];
    for (a = cg_kalias_acc0(al, t); a >= 0 && a < cg_kalias_acc0(al, t) + cg_kalias_nacc(al, t); a++) {
      if (al->acc_kind[a] != CG_KA_USE || !cg_kalias_set_double(al, (uint32_t)al->acc_set[a])) continue;
      for (i = ch->ud_off[a]; i < ch->ud_off[a + 1]; i++) {
        int32_t d = ch->ud[i];
        if (d < 0 || ac->useful[d - ac->s_lo] || !makes_double(al, d)) continue;
        ac->useful[d - ac->s_lo] = 1, stack[n++] = d;
      }
    }
  }
}

/* Whether an access of this kind touches object o. */
static int accessed(const cg_kalias *al, int32_t o, int kind) {
  uint32_t a, i;
  for (a = 0; a < al->nacc; a++)
    for (i = 0; al->acc_kind[a] == kind && i < al->set_n[al->acc_set[a]]; i++)
      if (al->addr[al->set_off[al->acc_set[a]] + i].obj == o) return 1;
  return 0;
}

/* The independents' and dependents' objects: parameters' own objects (a
 * by-value double) or regions (a pointer to double). */
static int mark_params(const cg_kalias *al, const int32_t *ps, uint32_t np, int kind,
                       uint8_t *mark, cg_error *e) {
  const cg_kernel *k = al->k;
  int32_t s0 = CG_KFUNC(k, al->func, SYM0), npar = CG_KFUNC(k, al->func, NPARAM), s;
  uint32_t i;
  if (!ps) { /* the defaults: double parameters read (kind USE), or written through (DEF) */
    for (s = s0; s < s0 + npar; s++) {
      int32_t o = al->sym_obj[cg_kalias_lsym(al, s)];
      if (CG_KSYM(k, s, BASE) == CG_KT_DOUBLE && (CG_KSYM(k, s, PTR) || kind == CG_KA_USE) &&
          accessed(al, o, kind))
        mark[o] = 1;
    }
    return CG_OK;
  }
  for (i = 0; i < np; i++) {
    s = ps[i];
    if (s < s0 || s >= s0 + npar || CG_KSYM(k, s, BASE) != CG_KT_DOUBLE || al->sym_obj[cg_kalias_lsym(al, s)] < 0)
      return cg_seterr(e, CG_EUSAGE, "%s: activity: symbol %d is not a double parameter of %s",
                       k->file ? k->file : "kernel", (int)s + 1, k->names[CG_KFUNC(k, al->func, NAME)]);
    mark[al->sym_obj[cg_kalias_lsym(al, s)]] = 1;
  }
  return CG_OK;
}

void cg_kactive_free(cg_kactive *ac) {
  if (!ac) return;
  CG_FREE(ac->A, ac->indep, uint8_t, ac->nobj);
  CG_FREE(ac->A, ac->dep, uint8_t, ac->nobj);
  CG_FREE(ac->A, ac->varied, uint8_t, ac->nstmt);
  CG_FREE(ac->A, ac->useful, uint8_t, ac->nstmt);
  CG_FREE(ac->A, ac->active, uint8_t, ac->nstmt);
  CG_FREE(ac->A, ac->acc_active, uint8_t, ac->nacc);
  CG_FREE(ac->A, ac, cg_kactive, 1);
}

static void mark_accesses(cg_kactive *ac, const cg_kalias *al, const cg_kchains *ch) {
  uint32_t a;
  for (a = 0; a < ac->nacc; a++) {
    int32_t st = al->acc_stmt[a];
    if (!ac->active[st - ac->s_lo] || !cg_kalias_set_double(al, (uint32_t)al->acc_set[a])) continue;
    ac->acc_active[a] = al->acc_kind[a] == CG_KA_DEF || use_varied(ac, al, ch, a);
  }
}

cg_kactive *cg_kactive_run(cg_alloc *A, const cg_kalias *al, const cg_kchains *ch,
                           const int32_t *indep, uint32_t nindep, const int32_t *dep,
                           uint32_t ndep, int dep_return, cg_error *e) {
  cg_kactive *ac = CG_NEW(A, cg_kactive, 1);
  int32_t *stack;
  uint32_t s;
  if (!ac) { cg_seterr(e, CG_ENOMEM, "activity: out of memory"); return NULL; }
  memset(ac, 0, sizeof *ac);
  ac->A = A, ac->nstmt = al->ns, ac->s_lo = al->s_lo, ac->nacc = al->nacc, ac->nobj = al->nobj;
  ac->dep_return = dep_return >= 0 ? dep_return : CG_KFUNC(al->k, al->func, RET) == CG_KT_DOUBLE;
  ac->indep = CG_NEW(A, uint8_t, ac->nobj), ac->dep = CG_NEW(A, uint8_t, ac->nobj);
  ac->varied = CG_NEW(A, uint8_t, ac->nstmt), ac->useful = CG_NEW(A, uint8_t, ac->nstmt);
  ac->active = CG_NEW(A, uint8_t, ac->nstmt), ac->acc_active = CG_NEW(A, uint8_t, ac->nacc);
  stack = CG_NEW(A, int32_t, ac->nstmt);
  if (!ac->indep || !ac->dep || !ac->varied || !ac->useful || !ac->active || !ac->acc_active || !stack) {
    cg_seterr(e, CG_ENOMEM, "activity: out of memory");
    goto fail;
  }
  memset(ac->indep, 0, ac->nobj), memset(ac->dep, 0, ac->nobj);
  memset(ac->varied, 0, ac->nstmt), memset(ac->useful, 0, ac->nstmt);
  memset(ac->active, 0, ac->nstmt), memset(ac->acc_active, 0, ac->nacc);
  if (mark_params(al, indep, nindep, CG_KA_USE, ac->indep, e) ||
      mark_params(al, dep, ndep, CG_KA_DEF, ac->dep, e))
    goto fail;
  forward(ac, al, ch, stack);
  backward(ac, al, ch, stack);
  for (s = 0; s < ac->nstmt; s++) ac->active[s] = ac->varied[s] && ac->useful[s];
  mark_accesses(ac, al, ch);
  CG_FREE(A, stack, int32_t, ac->nstmt);
  return ac;
fail:
  CG_FREE(A, stack, int32_t, ac->nstmt);
  cg_kactive_free(ac);
  return NULL;
}
