/* cg_levels.c: built-in level schemes and the level check (Bischof & Hu 1991, sec.
 * 3.1: "for all nodes the level of a child was less than the level of a
 * parent"; Bischof & Hu used heights and invited other numbering schemes). */
#include <string.h>

#include "cg_sched.h"

static const char *const scheme_names[CG_LV_COUNT] = {"height", "depth", "asap", "alap"};

const char *cg_level_scheme_name(int scheme) {
  return scheme >= 0 && scheme < CG_LV_COUNT ? scheme_names[scheme] : "?";
}

int cg_level_scheme_byname(const char *name) {
  int i;
  for (i = 0; i < CG_LV_COUNT; i++)
    if (strcmp(scheme_names[i], name) == 0) return i;
  return -1;
}

/* Lowest level among v's parents (UINT32_MAX for a root). */
static uint32_t lowest_parent(const cg_graph *g, const uint32_t *level, uint32_t v) {
  uint32_t k, m = UINT32_MAX;
  for (k = g->par_start[v]; k < g->par_start[v + 1]; k++)
    if (level[g->pars[k]] < m) m = level[g->pars[k]];
  return m;
}

/* depth: every root on the top level, each node as high as its longest path
 * to a root allows (as late as possible against the critical path). */
static void levels_depth(const cg_graph *g, uint32_t *level) {
  uint32_t v, top = 0;
  cg_graph_depths(g, level, NULL);
  for (v = 0; v < g->n; v++)
    if (level[v] > top) top = level[v];
  for (v = 0; v < g->n; v++) level[v] = top - level[v];
}

/* asap: heights, but a leaf waits until just below its lowest parent, so
 * independents and constants are loaded only when first needed. */
static void levels_asap(const cg_graph *g, uint32_t *level) {
  uint32_t v;
  cg_graph_heights(g, level, NULL);
  for (v = 0; v < g->n; v++)
    if (g->kid_start[v] == g->kid_start[v + 1] && g->par_start[v] < g->par_start[v + 1])
      level[v] = lowest_parent(g, level, v) - 1; /* parents' heights are >= 1 */
}

/* alap: roots keep their height; every other node moves up to just below its
 * lowest parent (parents first: decreasing ids).  level >= height by
 * induction, so it stays a valid scheme. */
static void levels_alap(const cg_graph *g, uint32_t *level) {
  uint32_t v;
  cg_graph_heights(g, level, NULL);
  for (v = g->n; v-- > 0;)
    if (g->par_start[v] < g->par_start[v + 1]) level[v] = lowest_parent(g, level, v) - 1;
}

int cg_levels(const cg_graph *g, int scheme, uint32_t *level, cg_error *e) {
  if (!g || !level) return cg_seterr(e, CG_EUSAGE, "cg_levels: no graph");
  switch (scheme) {
    case CG_LV_HEIGHT: cg_graph_heights(g, level, NULL); break;
    case CG_LV_DEPTH: levels_depth(g, level); break;
    case CG_LV_ASAP: levels_asap(g, level); break;
    case CG_LV_ALAP: levels_alap(g, level); break;
    default: return cg_seterr(e, CG_EUSAGE, "unknown level scheme %d", scheme);
  }
  return CG_OK;
}

int cg_levels_check(const cg_graph *g, const uint32_t *level, cg_error *e) {
  uint32_t v, k;
  for (v = 0; v < g->n; v++)
    for (k = g->kid_start[v]; k < g->kid_start[v + 1]; k++) {
      uint32_t c = g->kids[k];
      if (level[c] >= level[v])
        return cg_seterr(e, CG_EUSAGE,
                         "levels: child %lu (level %lu) is not below its parent %lu (level %lu)",
                         (unsigned long)c + 1, (unsigned long)level[c], (unsigned long)v + 1,
                         (unsigned long)level[v]);
    }
  return CG_OK;
}
