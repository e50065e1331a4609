// cg_colpack.cpp: the extern "C" shim over ColPack's partial distance-2
// colouring (cg_colpack.h); the only C++ file of the core.  No exception
// leaves it: out of memory is 1, anything else 2 with a message.
#include <ColPack/ColPackHeaders.h>
#include <omp.h>

#include <cstdio>
#include <new>
#include <vector>

#include "cg_colpack.h"

// The pattern in ADOL-C's format (row i: count, then the columns), which
// ColPack's SRC_MEM_ADOLC input takes; ColPack copies it into its graph.
static void adolc_rows(uint32_t m, const size_t *start, const uint32_t *col,
                       std::vector<std::vector<unsigned int> > &rows,
                       std::vector<unsigned int *> &ptrs) {
  rows.resize(m);
  ptrs.resize(m);
  for (uint32_t i = 0; i < m; i++) {
    rows[i].push_back((unsigned int)(start[i + 1] - start[i]));
    for (size_t p = start[i]; p < start[i + 1]; p++) rows[i].push_back(col[p]);
    ptrs[i] = rows[i].data();
  }
}

// ColPack's partial distance-2 colouring runs serially, but inside OpenMP
// regions whose idle threads spin: on Bratu 40x80 they took four fifths of the
// CPU time.  One thread while ColPack runs, the caller's setting restored
// after (also when an exception leaves).
struct one_thread {
  int saved;
  one_thread() : saved(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~one_thread() { omp_set_num_threads(saved); }
};

extern "C" int cg_colpack_raw(uint32_t m, uint32_t n, const size_t *start, const uint32_t *col,
                              int row_side, const char *order, int32_t *colour, char *msg,
                              size_t msgsize) {
  try {
    one_thread single;
    std::vector<std::vector<unsigned int> > rows;
    std::vector<unsigned int *> ptrs;
    adolc_rows(m, start, col, rows, ptrs);
    ColPack::BipartiteGraphPartialColoringInterface g(SRC_MEM_ADOLC, ptrs.data(), (int)m, (int)n);
    g.PartialDistanceTwoColoring(order, row_side ? "ROW_PARTIAL_DISTANCE_TWO"
                                                 : "COLUMN_PARTIAL_DISTANCE_TWO");
    std::vector<int> c;
    if (row_side) g.GetLeftVertexColors(c); else g.GetRightVertexColors(c);
    uint32_t count = row_side ? m : n;
    if (c.size() < count) {
      std::snprintf(msg, msgsize, "ColPack coloured %zu of %u %s", c.size(), count,
                    row_side ? "rows" : "columns");
      return 2;
    }
    for (uint32_t k = 0; k < count; k++) colour[k] = c[k];
    return 0;
  } catch (const std::bad_alloc &) {
    std::snprintf(msg, msgsize, "out of memory in ColPack");
    return 1;
  } catch (...) {
    std::snprintf(msg, msgsize, "ColPack failed");
    return 2;
  }
}
