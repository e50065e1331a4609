/*
 * cg_map.h: a hash map from 32-bit keys to dense indices, for location
 * spaces too sparse for an array indexed by location (a tape that uses
 * location 3000000000 and a handful of others).
 *
 * Open addressing with linear probing in two index arrays (arrays of
 * indices, not of pointers, as everywhere in the core: doc/hacking.md):
 * slot s holds key[s] and idx[s], or idx[s] == CG_MAP_NONE when it is free.
 * Invariants: cap is 0 or a power of 2; n < cap * 3/4 after every insertion
 * (so a probe always ends at a free slot); the indices are 0 .. n-1, each
 * once, in the order the keys were first inserted; nothing is ever removed.
 * Memory is 8 bytes per slot, at most 16 bytes per key after growth.
 */
#ifndef CG_MAP_H
#define CG_MAP_H

#ifdef __GNUC__ /* the public API: exported from libcgwb.so (doc/c-api.md) */
#pragma GCC visibility push(default)
#endif

#include "cg_util.h"

#define CG_MAP_NONE UINT32_MAX

typedef struct cg_map {
  cg_alloc *A;
  uint32_t *key; /* key[s]: the key of slot s (meaningless when free) */
  uint32_t *idx; /* idx[s]: the key's index, or CG_MAP_NONE */
  size_t cap;    /* slots */
  size_t n;      /* keys */
} cg_map;

/* An empty map (no allocation yet). */
void cg_map_init(cg_map *m, cg_alloc *A);
void cg_map_free(cg_map *m);
/* Room for `n` keys in all, so that inserting up to n keys neither grows
 * nor fails.  CG_ENOMEM (map unchanged) when the memory is not there. */
int cg_map_reserve(cg_map *m, size_t n);
/* The index of `key`, inserted with index n if absent: returns 1 when the
 * key is new, 0 when it was there, CG_ENOMEM (map unchanged) when growing
 * failed.  Expected O(1). */
int cg_map_put(cg_map *m, uint32_t key, uint32_t *idx);
/* The index of `key`, or CG_MAP_NONE.  Expected O(1). */
uint32_t cg_map_get(const cg_map *m, uint32_t key);
/* Renumbers the indices by key order (the smallest key gets 0), so that
 * keys that are consecutive integers get consecutive indices.  With keys
 * != NULL, *keys gets the keys in increasing order (n entries, at least 1
 * allocated, through m->A: the caller frees them).  CG_ENOMEM leaves the map
 * unchanged.  O(n + cap): a radix sort. */
int cg_map_rank(cg_map *m, uint32_t **keys);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif
