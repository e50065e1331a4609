/*
 * cgwb_adstack.h: the stacks of generated adjoint code (cgwb adjoint,
 * doc/adjoint-code.md).  Header only, static functions: each translation
 * unit that includes it has its own tape (the values the forward sweep
 * saves for the reverse sweep) and its own snapshot stack (what a dry-run
 * loop overwrites, restored before the loop is re-run; Hascoet, Fidanova &
 * Held, Fig. 5).  Both count bytes pushed and their high-water marks.
 * The frame registry: the local storage of each g_fwd and g_rev whose
 * address a pointer may hold, so that a pointer saved in g_fwd is restored
 * in g_rev as the same place in g_rev's own locals (g_fwd's are dead then).
 * A failed allocation prints a message and aborts: generated code has no
 * error path to return through.
 */
#ifndef CGWB_ADSTACK_H
#define CGWB_ADSTACK_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  size_t pushed;        /* bytes pushed on the tape since the last reset */
  size_t high_water;    /* the most bytes the tape held at once */
  size_t snapshot;      /* bytes pushed on the snapshot stack */
  size_t snapshot_high; /* the most bytes the snapshot stack held at once */
} cgwb_adstats;

typedef struct {
  unsigned char *buf;
  size_t top, cap;
} cgwb_adstack_;

static cgwb_adstack_ cgwb_tape_, cgwb_snaps_;
static cgwb_adstats cgwb_stats_;

static inline void cgwb_grow_(cgwb_adstack_ *s, size_t n) {
  size_t cap = s->cap ? s->cap : 4096;
  unsigned char *p;
  while (cap - s->top < n) {
    if (cap > (size_t)-1 / 2) { fprintf(stderr, "cgwb_adstack: stack too large\n"); abort(); }
    cap *= 2;
  }
  p = (unsigned char *)realloc(s->buf, cap);
  if (!p) { fprintf(stderr, "cgwb_adstack: out of memory (%lu bytes)\n", (unsigned long)cap); abort(); }
  s->buf = p;
  s->cap = cap;
}

static inline void cgwb_put_(cgwb_adstack_ *s, const void *v, size_t n, size_t *count, size_t *high) {
  if (s->cap - s->top < n) cgwb_grow_(s, n);
  memcpy(s->buf + s->top, v, n);
  s->top += n;
  *count += n;
  if (s->top > *high) *high = s->top;
}

static inline void cgwb_get_(cgwb_adstack_ *s, void *v, size_t n) {
  if (s->top < n) { fprintf(stderr, "cgwb_adstack: pop from an empty stack\n"); abort(); }
  s->top -= n;
  memcpy(v, s->buf + s->top, n);
}

/* The frame registry: a stack of frames, each a list of regions (a local
 * array, or a local whose address is taken).  g_fwd and g_rev register the
 * same regions in the same order, and their frames nest as the calls do, so
 * a pointer into a region is saved as (frames down from the top, region,
 * byte offset) and restored into the region of the frame that is there when
 * it is popped.  Any other pointer (a parameter's array, the heap, a global)
 * is saved as it is. */
typedef struct {
  uintptr_t base;
  size_t size;
} cgwb_region_;

typedef struct {
  cgwb_region_ *r;
  size_t nr, capr;
  size_t *first; /* first[k]: frame k's first region */
  size_t nf, capf;
} cgwb_frames_t_;
static cgwb_frames_t_ cgwb_frames_;

static inline void *cgwb_realloc_(void *p, size_t n);
static inline void cgwb_frame_enter(void) {
  cgwb_frames_t_ *F = &cgwb_frames_;
  if (F->nf == F->capf) {
    F->capf = F->capf ? 2 * F->capf : 16;
    F->first = (size_t *)cgwb_realloc_(F->first, F->capf * sizeof *F->first);
  }
  F->first[F->nf++] = F->nr;
}
static inline void cgwb_frame_region(const void *base, size_t size) {
  cgwb_frames_t_ *F = &cgwb_frames_;
  if (F->nr == F->capr) {
    F->capr = F->capr ? 2 * F->capr : 64;
    F->r = (cgwb_region_ *)cgwb_realloc_(F->r, F->capr * sizeof *F->r);
  }
  F->r[F->nr].base = (uintptr_t)base;
  F->r[F->nr++].size = size;
}
static inline void cgwb_frame_leave(void) {
  cgwb_frames_t_ *F = &cgwb_frames_;
  if (F->nf == 0) { fprintf(stderr, "cgwb_adstack: frame_leave without frame_enter\n"); abort(); }
  F->nr = F->first[--F->nf];
}
/* w[0]: the pointer or the offset; w[1]: 0, or 1 + (depth << 32 | region). */
static inline void cgwb_frame_code_(const void *v, uint64_t w[2]) {
  const cgwb_frames_t_ *F = &cgwb_frames_;
  uintptr_t p = (uintptr_t)v;
  int pass;
  for (pass = 0; pass < 2; pass++) { /* inside a region first, then one past its end */
    size_t k = F->nf, q = F->nr;
    while (k-- > 0) {
      for (; q > F->first[k]; q--) {
        const cgwb_region_ *r = &F->r[q - 1];
        if (pass == 0 ? p - r->base < r->size : p == r->base + r->size) {
          w[0] = (uint64_t)(p - r->base);
          w[1] = 1 + ((uint64_t)(F->nf - 1 - k) << 32 | (uint64_t)(q - 1 - F->first[k]));
          return;
        }
      }
    }
  }
  w[0] = (uint64_t)p;
  w[1] = 0;
}
static inline void *cgwb_frame_decode_(const uint64_t w[2]) {
  const cgwb_frames_t_ *F = &cgwb_frames_;
  size_t depth, region, k;
  if (w[1] == 0) return (void *)(uintptr_t)w[0];
  depth = (size_t)((w[1] - 1) >> 32), region = (size_t)((w[1] - 1) & 0xffffffffu);
  if (depth >= F->nf) { fprintf(stderr, "cgwb_adstack: a saved pointer names a frame that is gone\n"); abort(); }
  k = F->nf - 1 - depth;
  if (F->first[k] + region >= (k + 1 < F->nf ? F->first[k + 1] : F->nr)) {
    fprintf(stderr, "cgwb_adstack: a saved pointer names a region its frame lacks\n");
    abort();
  }
  return (void *)(F->r[F->first[k] + region].base + (uintptr_t)w[0]);
}

/* The tape. */
static inline void cgwb_push_d(double v) { cgwb_put_(&cgwb_tape_, &v, sizeof v, &cgwb_stats_.pushed, &cgwb_stats_.high_water); }
static inline void cgwb_push_i(int v) { cgwb_put_(&cgwb_tape_, &v, sizeof v, &cgwb_stats_.pushed, &cgwb_stats_.high_water); }
static inline void cgwb_push_p(const void *v) {
  cgwb_put_(&cgwb_tape_, (const void *)&v, sizeof v, &cgwb_stats_.pushed, &cgwb_stats_.high_water);
}
static inline void cgwb_push_n(const void *p, size_t n) { /* n bytes at p (a local array) */
  cgwb_put_(&cgwb_tape_, p, n, &cgwb_stats_.pushed, &cgwb_stats_.high_water);
}
static inline double cgwb_pop_d(void) { double v; cgwb_get_(&cgwb_tape_, &v, sizeof v); return v; }
static inline int cgwb_pop_i(void) { int v; cgwb_get_(&cgwb_tape_, &v, sizeof v); return v; }
static inline void *cgwb_pop_p(void) { void *v; cgwb_get_(&cgwb_tape_, &v, sizeof v); return v; }
static inline void cgwb_pop_n(void *p, size_t n) { cgwb_get_(&cgwb_tape_, p, n); }
/* A pointer that may hold the address of a registered local. */
static inline void cgwb_push_fp(const void *v) {
  uint64_t w[2];
  cgwb_frame_code_(v, w);
  cgwb_put_(&cgwb_tape_, w, sizeof w, &cgwb_stats_.pushed, &cgwb_stats_.high_water);
}
static inline void *cgwb_pop_fp(void) { uint64_t w[2]; cgwb_get_(&cgwb_tape_, w, sizeof w); return cgwb_frame_decode_(w); }

/* The snapshot stack: scalars by value, array cells with their address. */
static inline void cgwb_snap_(const void *v, size_t n) {
  cgwb_put_(&cgwb_snaps_, v, n, &cgwb_stats_.snapshot, &cgwb_stats_.snapshot_high);
}
static inline void cgwb_snap_d(double v) { cgwb_snap_(&v, sizeof v); }
static inline void cgwb_snap_i(int v) { cgwb_snap_(&v, sizeof v); }
static inline void cgwb_snap_p(const void *v) { cgwb_snap_((const void *)&v, sizeof v); }
static inline void cgwb_snap_fp(const void *v) { uint64_t w[2]; cgwb_frame_code_(v, w); cgwb_snap_(w, sizeof w); }
/* Which cells one dry run has saved: a bitmap per array id, over the
 * offsets seen (a cell saved once holds its value before the loop; saving
 * it again, as each increment of the same cell would, only grows the
 * snapshot).  Cleared by cgwb_snap_count from the run's own entries. */
typedef struct {
  unsigned char **bits;
  size_t *nbits; /* bytes of each bitmap */
  size_t nid, bytes;
} cgwb_seen_t_;
static cgwb_seen_t_ cgwb_seen_;

static inline void *cgwb_realloc_(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q) { fprintf(stderr, "cgwb_adstack: out of memory (%lu bytes)\n", (unsigned long)n); abort(); }
  return q;
}

/* The byte of bitmap id holding offset off, after growing the bitmaps
 * (the slow path of cgwb_snap_cell_, apart so that the fast path inlines). */
static inline unsigned char *cgwb_seen_grow_(int id, size_t off) {
  size_t i = off / 8;
  if ((size_t)id >= cgwb_seen_.nid) {
    size_t n = (size_t)id + 1, k;
    cgwb_seen_.bits = (unsigned char **)cgwb_realloc_(cgwb_seen_.bits, n * sizeof *cgwb_seen_.bits);
    cgwb_seen_.nbits = (size_t *)cgwb_realloc_(cgwb_seen_.nbits, n * sizeof *cgwb_seen_.nbits);
    for (k = cgwb_seen_.nid; k < n; k++) cgwb_seen_.bits[k] = NULL, cgwb_seen_.nbits[k] = 0;
    cgwb_seen_.nid = n;
  }
  if (i >= cgwb_seen_.nbits[id]) {
    size_t n = cgwb_seen_.nbits[id] ? cgwb_seen_.nbits[id] : 64;
    while (n <= i) n *= 2;
    cgwb_seen_.bits[id] = (unsigned char *)cgwb_realloc_(cgwb_seen_.bits[id], n);
    memset(cgwb_seen_.bits[id] + cgwb_seen_.nbits[id], 0, n - cgwb_seen_.nbits[id]);
    cgwb_seen_.bytes += n - cgwb_seen_.nbits[id];
    cgwb_seen_.nbits[id] = n;
    if (cgwb_snaps_.top + cgwb_seen_.bytes > cgwb_stats_.snapshot_high) /* the bitmaps are dry-running memory too */
      cgwb_stats_.snapshot_high = cgwb_snaps_.top + cgwb_seen_.bytes;
  }
  return cgwb_seen_.bits[id] + i;
}

/* The tags of a snapshot's cells: its C type (the kernel's CG_KCTYPES
 * spelled out), and each one's size. */
enum { CGWB_T_DOUBLE_, CGWB_T_INT_, CGWB_T_CHAR_, CGWB_T_SCHAR_, CGWB_T_UCHAR_, CGWB_T_SHORT_, CGWB_T_USHORT_,
       CGWB_T_BOOL_ };
static inline size_t cgwb_tag_size_(int t) {
  static const size_t n[] = {sizeof(double), sizeof(int), sizeof(char), sizeof(signed char),
                             sizeof(unsigned char), sizeof(short), sizeof(unsigned short), sizeof(_Bool)};
  return n[t];
}
/* A cell of array `id` of a loop's snapshot, unless this run saved it
 * already: its value, its offset from the array's first cell, the id, a tag
 * (its type: CGWB_T_*_), as one entry; 1 if saved.  By offset, not address: a
 * local array of the forward sweep is another object in the reverse sweep's
 * frame. */
static inline int cgwb_snap_cell_(int id, ptrdiff_t off, const void *cell, size_t size, int t) {
  unsigned char e[sizeof(double) + sizeof(ptrdiff_t) + 2 * sizeof(int)];
  size_t n = 0;
  if (off >= 0) {
    size_t i = (size_t)off / 8;
    unsigned char *b = (size_t)id < cgwb_seen_.nid && i < cgwb_seen_.nbits[id] ? cgwb_seen_.bits[id] + i
                                                                                : cgwb_seen_grow_(id, (size_t)off);
    unsigned char m = (unsigned char)(1u << ((size_t)off % 8));
    if (*b & m) return 0;
    *b |= m;
  }
  memcpy(e, cell, size), n += size;
  memcpy(e + n, &off, sizeof off), n += sizeof off;
  memcpy(e + n, &id, sizeof id), n += sizeof id;
  memcpy(e + n, &t, sizeof t), n += sizeof t;
  cgwb_put_(&cgwb_snaps_, e, n, &cgwb_stats_.snapshot, &cgwb_stats_.snapshot_high);
  if (cgwb_seen_.bytes && cgwb_snaps_.top + cgwb_seen_.bytes > cgwb_stats_.snapshot_high)
    cgwb_stats_.snapshot_high = cgwb_snaps_.top + cgwb_seen_.bytes;
  return 1;
}
static inline int cgwb_snap_cd(int id, const double *base, const double *cell) {
  return cgwb_snap_cell_(id, cell - base, cell, sizeof *cell, 0);
}
static inline int cgwb_snap_ci(int id, const int *base, const int *cell) {
  return cgwb_snap_cell_(id, cell - base, cell, sizeof *cell, CGWB_T_INT_);
}
/* The same for cells of the integer types narrower than int. */
static inline int cgwb_snap_cc(int id, const char *base, const char *cell) {
  return cgwb_snap_cell_(id, cell - base, cell, sizeof *cell, CGWB_T_CHAR_);
}
static inline int cgwb_snap_csc(int id, const signed char *base, const signed char *cell) {
  return cgwb_snap_cell_(id, cell - base, cell, sizeof *cell, CGWB_T_SCHAR_);
}
static inline int cgwb_snap_cuc(int id, const unsigned char *base, const unsigned char *cell) {
  return cgwb_snap_cell_(id, cell - base, cell, sizeof *cell, CGWB_T_UCHAR_);
}
static inline int cgwb_snap_cs(int id, const short *base, const short *cell) {
  return cgwb_snap_cell_(id, cell - base, cell, sizeof *cell, CGWB_T_SHORT_);
}
static inline int cgwb_snap_cus(int id, const unsigned short *base, const unsigned short *cell) {
  return cgwb_snap_cell_(id, cell - base, cell, sizeof *cell, CGWB_T_USHORT_);
}
static inline int cgwb_snap_cb(int id, const _Bool *base, const _Bool *cell) {
  return cgwb_snap_cell_(id, cell - base, cell, sizeof *cell, CGWB_T_BOOL_);
}
/* Ends a dry run that saved n cells: clears their bits (walking its own
 * entries, newest first), then pushes n. */
static inline void cgwb_snap_count(size_t n) {
  size_t top = cgwb_snaps_.top, k;
  for (k = 0; k < n; k++) {
    int t, id;
    ptrdiff_t off;
    memcpy(&t, cgwb_snaps_.buf + top - sizeof t, sizeof t), top -= sizeof t;
    memcpy(&id, cgwb_snaps_.buf + top - sizeof id, sizeof id), top -= sizeof id;
    memcpy(&off, cgwb_snaps_.buf + top - sizeof off, sizeof off), top -= sizeof off;
    top -= cgwb_tag_size_(t);
    if (off >= 0) cgwb_seen_.bits[id][(size_t)off / 8] = 0; /* the whole byte: all its cells were this run's */
  }
  cgwb_snap_(&n, sizeof n);
}
static inline double cgwb_unsnap_d(void) { double v; cgwb_get_(&cgwb_snaps_, &v, sizeof v); return v; }
static inline int cgwb_unsnap_i(void) { int v; cgwb_get_(&cgwb_snaps_, &v, sizeof v); return v; }
static inline void *cgwb_unsnap_p(void) { void *v; cgwb_get_(&cgwb_snaps_, &v, sizeof v); return v; }
static inline void *cgwb_unsnap_fp(void) { uint64_t w[2]; cgwb_get_(&cgwb_snaps_, w, sizeof w); return cgwb_frame_decode_(w); }
static inline size_t cgwb_unsnap_count(void) { size_t n; cgwb_get_(&cgwb_snaps_, &n, sizeof n); return n; }
/* Restores the last cell saved; bases: the loop's arrays by id. */
static inline void cgwb_unsnap_cell(void *const *bases) {
  int t = cgwb_unsnap_i(), id = cgwb_unsnap_i();
  ptrdiff_t off;
  cgwb_get_(&cgwb_snaps_, &off, sizeof off);
  switch (t) {
    case CGWB_T_DOUBLE_: ((double *)bases[id])[off] = cgwb_unsnap_d(); break;
    case CGWB_T_INT_: ((int *)bases[id])[off] = cgwb_unsnap_i(); break;
    case CGWB_T_CHAR_: cgwb_get_(&cgwb_snaps_, (char *)bases[id] + off, sizeof(char)); break;
    case CGWB_T_SCHAR_: cgwb_get_(&cgwb_snaps_, (signed char *)bases[id] + off, sizeof(signed char)); break;
    case CGWB_T_UCHAR_: cgwb_get_(&cgwb_snaps_, (unsigned char *)bases[id] + off, sizeof(unsigned char)); break;
    case CGWB_T_SHORT_: cgwb_get_(&cgwb_snaps_, (short *)bases[id] + off, sizeof(short)); break;
    case CGWB_T_USHORT_: cgwb_get_(&cgwb_snaps_, (unsigned short *)bases[id] + off, sizeof(unsigned short)); break;
    default: cgwb_get_(&cgwb_snaps_, (_Bool *)bases[id] + off, sizeof(_Bool)); break;
  }
}

/* {==== -DCGWB_CHECK_ASSUME: the caller's arrays against the assumptions ====}
 * The forward sweeps record each cell they touch through a pointer
 * parameter of F (a tag: F's parameter index, passed down to callees with
 * the arguments), and F_b then checks that no two parameters an --assume
 * 'a!=b' or a restrict said are apart share a byte; 'a==b' is checked on
 * entry.  A false assumption aborts with a message: the derivative code
 * relied on it.  A work array's adjoint (an active parameter neither
 * independent nor dependent) must come in zeroed: each cell F overwrites is
 * checked before the write (CGWB_CHK_SEED).  Without the macro every
 * CGWB_CHK_ line is empty. */
#ifdef CGWB_CHECK_ASSUME
typedef struct { const char *addr; size_t size; int tag; } cgwb_chk_rec_;
static struct {
  cgwb_chk_rec_ *rec;
  size_t n, cap;
  int *tags, *pending; /* the frames' tags, stacked; the next frame's */
  size_t ntags, captags, *base, nframes, capframes;
  int npending;
  const char *fn, *work[64]; /* F_b's name; the work arrays' names by tag (NULL: none) */
} cgwb_chk_;
static inline void cgwb_chk_work_(const char *fn, int tag, const char *name) {
  cgwb_chk_.fn = fn;
  if (tag >= 0 && tag < 64) cgwb_chk_.work[tag] = name;
}
static inline void cgwb_chk_seed_(int tag, const double *adj) {
  if (tag >= 0 && tag < 64 && cgwb_chk_.work[tag] && *adj != 0.0) {
    fprintf(stderr, "%s: CGWB_CHECK_ASSUME: the adjoint of %s, a work array (active, neither independent nor "
            "dependent), is %.17g at a cell F overwrites; pass it zeroed\n", cgwb_chk_.fn, cgwb_chk_.work[tag], *adj);
    abort();
  }
}
static inline void cgwb_chk_arg_(int i, int tag) {
  if (i >= cgwb_chk_.npending) {
    cgwb_chk_.pending = (int *)cgwb_realloc_(cgwb_chk_.pending, (size_t)(i + 1) * sizeof(int));
    while (cgwb_chk_.npending <= i) cgwb_chk_.pending[cgwb_chk_.npending++] = -1;
  }
  cgwb_chk_.pending[i] = tag;
}
static inline void cgwb_chk_enter_(int n) {
  int i;
  if (cgwb_chk_.nframes == cgwb_chk_.capframes) {
    cgwb_chk_.capframes = cgwb_chk_.capframes ? 2 * cgwb_chk_.capframes : 16;
    cgwb_chk_.base = (size_t *)cgwb_realloc_(cgwb_chk_.base, cgwb_chk_.capframes * sizeof(size_t));
  }
  cgwb_chk_.base[cgwb_chk_.nframes++] = cgwb_chk_.ntags;
  if (cgwb_chk_.ntags + (size_t)n > cgwb_chk_.captags) {
    cgwb_chk_.captags = 2 * (cgwb_chk_.ntags + (size_t)n) + 16;
    cgwb_chk_.tags = (int *)cgwb_realloc_(cgwb_chk_.tags, cgwb_chk_.captags * sizeof(int));
  }
  for (i = 0; i < n; i++) cgwb_chk_.tags[cgwb_chk_.ntags++] = i < cgwb_chk_.npending ? cgwb_chk_.pending[i] : -1;
  cgwb_chk_.npending = 0;
}
static inline void cgwb_chk_leave_(void) { cgwb_chk_.ntags = cgwb_chk_.base[--cgwb_chk_.nframes]; }
static inline int cgwb_chk_tag_(int i) { return cgwb_chk_.tags[cgwb_chk_.base[cgwb_chk_.nframes - 1] + (size_t)i]; }
static inline void cgwb_chk_touch_(int tag, const void *p, size_t size) {
  if (tag < 0) return;
  if (cgwb_chk_.n == cgwb_chk_.cap) {
    cgwb_chk_.cap = cgwb_chk_.cap ? 2 * cgwb_chk_.cap : 1024;
    cgwb_chk_.rec = (cgwb_chk_rec_ *)cgwb_realloc_(cgwb_chk_.rec, cgwb_chk_.cap * sizeof *cgwb_chk_.rec);
  }
  cgwb_chk_.rec[cgwb_chk_.n].addr = (const char *)p;
  cgwb_chk_.rec[cgwb_chk_.n].size = size;
  cgwb_chk_.rec[cgwb_chk_.n++].tag = tag;
}
static inline int cgwb_chk_cmp_(const void *a, const void *b) {
  const cgwb_chk_rec_ *x = (const cgwb_chk_rec_ *)a, *y = (const cgwb_chk_rec_ *)b;
  return (x->addr > y->addr) - (x->addr < y->addr);
}
/* pairs: 2 * npairs tags that must not share a byte; names: by tag. */
static inline void cgwb_chk_verify_(const char *fn, const int *pairs, int npairs, const char *const *names) {
  size_t i, j;
  int k;
  qsort(cgwb_chk_.rec, cgwb_chk_.n, sizeof *cgwb_chk_.rec, cgwb_chk_cmp_);
  for (i = 0; i < cgwb_chk_.n; i++)
    for (j = i + 1; j < cgwb_chk_.n && cgwb_chk_.rec[j].addr < cgwb_chk_.rec[i].addr + cgwb_chk_.rec[i].size; j++)
      for (k = 0; k < npairs; k++) {
        int a = cgwb_chk_.rec[i].tag, b = cgwb_chk_.rec[j].tag;
        if ((a == pairs[2 * k] && b == pairs[2 * k + 1]) || (b == pairs[2 * k] && a == pairs[2 * k + 1])) {
          fprintf(stderr, "%s: CGWB_CHECK_ASSUME: %s and %s share the cell at %p, but the derivative code assumed "
                  "them apart (--assume %s!=%s or restrict)\n", fn, names[pairs[2 * k]], names[pairs[2 * k + 1]],
                  (const void *)cgwb_chk_.rec[i].addr, names[pairs[2 * k]], names[pairs[2 * k + 1]]);
          abort();
        }
      }
  cgwb_chk_.n = 0;
  memset(cgwb_chk_.work, 0, sizeof cgwb_chk_.work);
}
static inline void cgwb_chk_same_(const char *fn, const void *a, const void *b, const char *na, const char *nb) {
  if (a != b) {
    fprintf(stderr, "%s: CGWB_CHECK_ASSUME: %s and %s differ, but the derivative code assumed --assume %s==%s\n", fn,
            na, nb, na, nb);
    abort();
  }
}
#define CGWB_CHK_ARG(i, tag) cgwb_chk_arg_(i, tag)
#define CGWB_CHK_ENTER(n) cgwb_chk_enter_(n)
#define CGWB_CHK_LEAVE() cgwb_chk_leave_()
#define CGWB_CHK_TAG(i) cgwb_chk_tag_(i)
#define CGWB_CHK_TOUCH(tag, p) cgwb_chk_touch_(tag, p, sizeof *(p))
#define CGWB_CHK_VERIFY(fn, pairs, npairs, names) cgwb_chk_verify_(fn, pairs, npairs, names)
#define CGWB_CHK_SAME(fn, a, b, na, nb) cgwb_chk_same_(fn, a, b, na, nb)
#define CGWB_CHK_WORK(fn, tag, name) cgwb_chk_work_(fn, tag, name)
#define CGWB_CHK_SEED(tag, adj) cgwb_chk_seed_(tag, adj)
#else
#define CGWB_CHK_ARG(i, tag) ((void)0)
#define CGWB_CHK_ENTER(n) ((void)0)
#define CGWB_CHK_LEAVE() ((void)0)
#define CGWB_CHK_TAG(i) (-1)
#define CGWB_CHK_TOUCH(tag, p) ((void)0)
#define CGWB_CHK_VERIFY(fn, pairs, npairs, names) ((void)0)
#define CGWB_CHK_SAME(fn, a, b, na, nb) ((void)0)
#define CGWB_CHK_WORK(fn, tag, name) ((void)0)
#define CGWB_CHK_SEED(tag, adj) ((void)0)
#endif

/* }==== */

/* The counters; reset also frees both stacks. */
static inline void cgwb_adstats_get(cgwb_adstats *out) { *out = cgwb_stats_; }
static inline void cgwb_adstats_reset(void) {
  free(cgwb_tape_.buf);
  free(cgwb_snaps_.buf);
  while (cgwb_seen_.nid > 0) free(cgwb_seen_.bits[--cgwb_seen_.nid]);
  free(cgwb_seen_.bits);
  free(cgwb_seen_.nbits);
  free(cgwb_frames_.r);
  free(cgwb_frames_.first);
  memset(&cgwb_frames_, 0, sizeof cgwb_frames_);
  memset(&cgwb_seen_, 0, sizeof cgwb_seen_);
  memset(&cgwb_tape_, 0, sizeof cgwb_tape_);
  memset(&cgwb_snaps_, 0, sizeof cgwb_snaps_);
  memset(&cgwb_stats_, 0, sizeof cgwb_stats_);
}

#endif
