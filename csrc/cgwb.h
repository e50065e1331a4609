/*
 * cgwb.h: the umbrella header of the cgwb C library (libcgwb, doc/c-api.md).
 * Installed as <cgwb/cgwb.h> beside the headers it includes, which keep the
 * folder layout of csrc/ (one folder per stage of the data flow).  Every
 * declaration here is exported from libcgwb.so; the core has no Lua in it.
 *
 *   cc prog.c $(pkg-config --cflags --libs cgwb)
 */
#ifndef CGWB_H
#define CGWB_H

#define CGWB_VERSION "0.1.0"

/* util: the allocator (cg_alloc), errors (cg_error), %.17g, the index map */
#include "util/cg_util.h"
#include "util/cg_fmt.h"
#include "util/cg_map.h"
/* tape: readers, writers, forward evaluation, statistics */
#include "tape/cg_ops.h"
#include "tape/cg_tape.h"
/* graph: the graph, its operations, the building interface, tapes to graphs */
#include "graph/cg_gops.h"
#include "graph/cg_graph.h"
#include "graph/cg_gbuild.h"
#include "graph/cg_gtape.h"
/* sched: levels, storage slots, C code */
#include "sched/cg_sched.h"
/* elim: linearized graphs, eliminations, orderings, Jacobians */
#include "elim/cg_lin.h"
#include "elim/cg_order.h"
#include "elim/cg_mtx.h"
#include "elim/cg_jplan.h"
#include "elim/cg_colour.h"
#include "elim/cg_search.h"
/* kernel: kernels in the C subset, their analyses, flattening, the interpreter */
#include "kernel/cg_kernel.h"
#include "kernel/cg_kcfg.h"
#include "kernel/cg_kalias.h"
#include "kernel/cg_kchains.h"
#include "kernel/cg_kactive.h"
#include "kernel/cg_kflat.h"
#include "kernel/cg_kinterp.h"
/* adjoint: data dependences of parallel loops */
#include "adjoint/cg_addg.h"

#endif
