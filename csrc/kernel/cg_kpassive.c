/*
 * cg_kpassive.c: the passive calls of kernels (CG_KPASSIVES) and the printf
 * formats they may take, checked once here for the loader, the front end
 * (through the bindings) and the interpreter, which formats each
 * conversion with the C library's snprintf on the value of the type the
 * conversion names (so no format reaches it that C would not define).
 */
#include "cg_kernel.h"

#include <stdio.h>
#include <string.h>

static const struct {
  const char *fn, *stream;
  int at, text, nargs;
} passives[] = {
#define N(id, fn, stream, at, text, nargs) {#fn, stream, at, text, nargs},
    CG_KPASSIVES(N)
#undef N
};

const char *cg_kpassive_fn(int id) { return id >= 0 && id < CG_KPC_COUNT ? passives[id].fn : NULL; }
const char *cg_kpassive_stream(int id) { return id >= 0 && id < CG_KPC_COUNT ? passives[id].stream : NULL; }
int cg_kpassive_at(int id) { return id >= 0 && id < CG_KPC_COUNT ? passives[id].at : -1; }
int cg_kpassive_text(int id) { return id >= 0 && id < CG_KPC_COUNT ? passives[id].text : -1; }
int cg_kpassive_nargs(int id) { return id >= 0 && id < CG_KPC_COUNT ? passives[id].nargs : -1; }

static int why_set(char *why, size_t nwhy, const char *fmt, const char *spec, size_t n) {
  if (nwhy) snprintf(why, nwhy, fmt, (int)n, spec);
  return -1;
}

/* A field of digits or a `*` at *p: 1 for a `*`, 0 otherwise; -1 for more
 * than 4 digits (a width of 10^4 bytes and more is no one's output). */
static int field(const char **p) {
  int nd = 0;
  if (**p == '*') return (*p)++, 1;
  while (**p >= '0' && **p <= '9') (*p)++, nd++;
  return nd > 4 ? -1 : 0;
}

int cg_kformat_scan(const char *fmt, cg_kconv *conv, int *nconv, int *types, char *why,
                    size_t nwhy) {
  const char *p = fmt;
  int nc = 0, nt = 0;
  while (*p) {
    const char *s = p, *len;
    int st, f, dbl;
    if (*p++ != '%') continue;
    if (*p == '%') {
      p++;
      if (nc == CG_KFMT_MAX_CONV) return why_set(why, nwhy, "more than 64 conversions (at %.*s)", s, 2);
      conv[nc].start = (uint32_t)(s - fmt), conv[nc].end = (uint32_t)(p - fmt), conv[nc].nstar = 0;
      conv[nc++].type = CG_KT_VOID;
      continue;
    }
    while (*p && strchr("-+ #0", *p)) p++;
    if ((st = field(&p)) < 0) return why_set(why, nwhy, "a width of more than 4 digits in '%.*s'", s, (size_t)(p - s));
    if (*p == '.') {
      p++;
      if ((f = field(&p)) < 0) return why_set(why, nwhy, "a precision of more than 4 digits in '%.*s'", s, (size_t)(p - s));
      st += f;
    }
    len = p;
    while (*p == 'h' || *p == 'l' || *p == 'L' || *p == 'j' || *p == 'z' || *p == 't' || *p == 'q') p++;
    if (!*p) return why_set(why, nwhy, "the conversion '%.*s' has no conversion character", s, (size_t)(p - s));
    if (*p == 's' && p == len && !st) { /* a string: the front end folds a literal argument into the format */
      p++;
      if (nc == CG_KFMT_MAX_CONV) return why_set(why, nwhy, "more than 64 conversions (at %.*s)", s, (size_t)(p - s));
      conv[nc].start = (uint32_t)(s - fmt), conv[nc].end = (uint32_t)(p - fmt), conv[nc].nstar = 0;
      conv[nc++].type = types[nt++] = CG_KFMT_STRING;
      continue;
    }
    dbl = strchr("fFeEgGaA", *p) != NULL;
    if (!dbl && !strchr("diouxXc", *p))
      return why_set(why, nwhy, "the conversion '%.*s' (the subset's values are ints and doubles)", s, (size_t)(p + 1 - s));
    if (p > len && !(dbl ? (p - len == 1 && *len == 'l')
                         : ((p - len == 1 && *len == 'h') || (p - len == 2 && len[0] == 'h' && len[1] == 'h'))))
      return why_set(why, nwhy, "the length modifier of '%.*s' names a type other than int or double", s, (size_t)(p + 1 - s));
    p++;
    if (nc == CG_KFMT_MAX_CONV) return why_set(why, nwhy, "more than 64 conversions (at %.*s)", s, (size_t)(p - s));
    conv[nc].start = (uint32_t)(s - fmt), conv[nc].end = (uint32_t)(p - fmt), conv[nc].nstar = st;
    conv[nc++].type = dbl ? CG_KT_DOUBLE : CG_KT_INT;
    while (st-- > 0) types[nt++] = CG_KT_INT;
    types[nt++] = dbl ? CG_KT_DOUBLE : CG_KT_INT;
  }
  *nconv = nc;
  return nt;
}
