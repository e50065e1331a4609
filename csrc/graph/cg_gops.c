/* cg_gops.c: the graph operation table (its rows in cg_gops.h): one value
 * and one partials function per row, compiled from the row's expressions,
 * beside their text for the code generators. */
#include <math.h>
#include <string.h>

#include "../tape/cg_tape.h" /* the tape opcodes of the table's last column */
#include "cg_gops.h"

/* {==== support functions ====} */

/* The code of each support function (cg_gops.h), once: compiled here and
 * stringized for the code generators.  Its names start with cg_, so that no
 * name of a kernel's (a global of the generated file) is shadowed. */
#define CG_SUPPORT_cg_digamma                                                       \
  {                                                                                 \
    double cg_r = 0, cg_f, cg_t;                                                    \
    if (cg_x <= 0) {                                                                \
      if (cg_x == floor(cg_x)) return 0.0 / 0.0; /* a pole: NaN */                  \
      cg_r = -3.141592653589793 / tan(3.141592653589793 * (cg_x - floor(cg_x)));    \
      cg_x = 1 - cg_x;                                                              \
    }                                                                               \
    while (cg_x < 10) cg_r -= 1 / cg_x, cg_x += 1;                                  \
    cg_f = 1 / (cg_x * cg_x);                                                       \
    cg_t = cg_f * (1.0 / 240 - cg_f * (1.0 / 132 - cg_f * (691.0 / 32760 - cg_f / 12))); \
    cg_t = cg_f * (1.0 / 12 - cg_f * (1.0 / 120 - cg_f * (1.0 / 252 - cg_t)));      \
    return cg_r + log(cg_x) - 0.5 / cg_x - cg_t;                                    \
  }

double cg_digamma(double cg_x) CG_SUPPORT_cg_digamma

#define CG_STR_(...) #__VA_ARGS__
#define CG_STR(...) CG_STR_(__VA_ARGS__)
static const struct { const char *name, *body; } support[] = {
#define CG_SUPPORT_ROW(nm) {#nm, CG_STR(CG_SUPPORT_##nm)},
    CG_GOP_SUPPORT(CG_SUPPORT_ROW)
#undef CG_SUPPORT_ROW
};
#define NSUPPORT (sizeof support / sizeof support[0])

unsigned cg_gop_support_count(void) { return (unsigned)NSUPPORT; }

const char *cg_gop_support_name(unsigned k) { return k < NSUPPORT ? support[k].name : NULL; }

/* Appends ch to buf (cap bytes) at *n, counting past the end. */
static void out_ch(char *buf, size_t cap, size_t *n, char ch) {
  if (*n + 1 < cap) buf[*n] = ch;
  (*n)++;
}

/* The definition, laid out from the one-line stringized body: a line
 * after each '{', ';' (outside parentheses) and '}', two spaces a level. */
size_t cg_gop_support_text(unsigned k, char *buf, size_t cap) {
  const char *s;
  size_t n = 0;
  int depth = 0, paren = 0, bol = 0, i;
  if (k >= NSUPPORT) {
    if (cap) buf[0] = 0;
    return 0;
  }
  for (s = "static double "; *s; s++) out_ch(buf, cap, &n, *s);
  for (s = support[k].name; *s; s++) out_ch(buf, cap, &n, *s);
  for (s = "(double cg_x) "; *s; s++) out_ch(buf, cap, &n, *s);
  for (s = support[k].body; *s; s++) {
    if (bol && *s == ' ') continue;
    if (*s == '}') depth--;
    if (bol)
      for (i = 0; i < 2 * depth; i++) out_ch(buf, cap, &n, ' ');
    bol = 0;
    out_ch(buf, cap, &n, *s);
    if (*s == '(') paren++;
    else if (*s == ')') paren--;
    if (*s == '{') depth++;
    if (*s == '{' || *s == '}' || (*s == ';' && paren == 0)) out_ch(buf, cap, &n, '\n'), bol = 1;
  }
  if (cap) buf[n < cap ? n : cap - 1] = 0;
  return n;
}

static int ident_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_';
}

int cg_gop_text_calls(const char *s, const char *name) {
  size_t n = strlen(name);
  const char *p = s;
  while ((p = strstr(p, name)) != NULL) {
    const char *q = p + n;
    int starts = p == s || !ident_char(p[-1]);
    p = q;
    if (!starts || ident_char(*q)) continue;
    while (*q == ' ' || *q == '\n' || *q == '\t') q++;
    if (*q == '(') return 1;
  }
  return 0;
}

/* {==== the functions of the rows ====} */

#include "cg_gopx_begin.h"

/* The value function of a row: its value, then its check. */
#define CG_GOP_VALUE(id, nm, ar, hc, top, fl, rd, val, chk, ...)     \
  static double value_##nm(double c, const double *a, uint64_t *sw) { \
    double r;                                                         \
    (void)c, (void)a;                                                 \
    r = (val);                                                        \
    if (chk) (*sw)++;                                                 \
    return r;                                                         \
  }
CG_GOPS(CG_GOP_VALUE)
#undef CG_GOP_VALUE

/* The partials function of a row: every column, past the arity too (0 and
 * CG_PM_VAR), so a caller needs no clearing. */
#define CG_GOP_PARTIALS(id, nm, ar, hc, top, fl, rd, val, chk, d0, m0, d1, m1, d2, m2) \
  static void partials_##nm(double c, const double *a, double r, double *d,           \
                            uint8_t *mk) {                                            \
    (void)c, (void)a, (void)r;                                                        \
    d[0] = (d0), d[1] = (d1), d[2] = (d2);                                            \
    mk[0] = (m0), mk[1] = (m1), mk[2] = (m2);                                         \
  }
CG_GOPS(CG_GOP_PARTIALS)
#undef CG_GOP_PARTIALS

/* {==== the table ====} */

/* `none` in the tape_op column: no tape opcode (cg_gops.h).  Every code of
 * cg_ops.h lies below it, so none can be mistaken for one. */
#define CG_OP_none CG_GOP_NO_TAPE_OP
typedef char tape_opcodes_below_none[CG_OP_COUNT <= CG_GOP_NO_TAPE_OP ? 1 : -1];

static const cg_gopinfo gop_table[CG_G_COUNT] = {
#define CG_GOP_INFO(id, nm, ar, hc, top, fl, rd, val, chk, d0, m0, d1, m1, d2, m2) \
  {#nm, ar, hc, CG_OP_##top, fl, rd, {m0, m1, m2}, value_##nm, partials_##nm,      \
   #val, #chk, {#d0, #d1, #d2}},
    CG_GOPS(CG_GOP_INFO)
#undef CG_GOP_INFO
};

#include "cg_gopx_end.h"

const cg_gopinfo *cg_gop(unsigned g) { return &gop_table[g < CG_G_COUNT ? g : 0]; }

int cg_gop_byname(const char *name) {
  unsigned g;
  for (g = 0; g < CG_G_COUNT; g++)
    if (strcmp(gop_table[g].name, name) == 0) return (int)g;
  return -1;
}

double cg_gop_apply(unsigned g, double c, const double *a, uint64_t *sw) {
  return cg_gop_apply_inline(g, c, a, sw);
}

void cg_gop_partials(unsigned g, double c, const double *a, double r, double *d, uint8_t *mk) {
  if (g < CG_G_COUNT) {
    gop_table[g].partials(c, a, r, d, mk);
    return;
  }
  d[0] = d[1] = d[2] = 0; /* an operation code out of range has no partials */
  mk[0] = mk[1] = mk[2] = CG_PM_VAR;
}
