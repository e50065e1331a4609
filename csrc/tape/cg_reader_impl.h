/* cg_reader_impl.h: the calls through a reader's vtable (cg_reader.c), inline
 * for the loader (cg_load.c), whose loop makes one a record for readers
 * without batches.  Internal: not installed. */
#ifndef CG_READER_IMPL_H
#define CG_READER_IMPL_H

#include "cg_tape.h"

/* cg_reader_next_batch for max >= 1. */
static inline int cg_reader_batch_of(cg_reader *R, cg_rec *r, int max, cg_error *e) {
  return R->next_batch ? R->next_batch(R, r, max, e) : R->next(R, r, e);
}

/* cg_reader_next_run. */
static inline int cg_reader_run_of(cg_reader *R, cg_run *u, cg_error *e) {
  return R->next_run ? R->next_run(R, u, e) : 0;
}

#endif
