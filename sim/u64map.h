/* u64map.h - open-addressing hash map from uint64_t keys to uint64_t values.
 *
 * Used for the live-pointer table of a replay and for address -> slab lookups
 * in the policies. Linear probing with backward-shift deletion (no
 * tombstones), so memory and probe lengths follow the live set, not the
 * history: a replay of any length keeps the table at about 2x the live count.
 */
#ifndef SLABSIM_U64MAP_H
#define SLABSIM_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Key and value side by side: a lookup touches one cache line. */
struct u64map_slot {
	uint64_t key;
	uint64_t val;
};

struct u64map {
	struct u64map_slot *slots; /* key U64MAP_EMPTY marks a free slot */
	size_t cap;		   /* power of two, or 0 */
	size_t len;		   /* entries, including the one with key U64MAP_EMPTY */
	bool has_empty_key;	   /* the key U64MAP_EMPTY itself is stored ... */
	uint64_t empty_key_val;	   /* ... with this value, outside the slots */
};

/* The key value that marks free slots (any key may still be stored). */
#define U64MAP_EMPTY UINT64_MAX

/* Initialise an empty map (allocates nothing). */
void u64map_init(struct u64map *m);
/* Free the map's memory; m may be reused after u64map_init. */
void u64map_fini(struct u64map *m);

/* Insert or overwrite. Returns 0, or SLABSIM_ENOMEM (m unchanged). */
int u64map_put(struct u64map *m, uint64_t key, uint64_t val);
/* Look up key; on hit stores the value in *val (if non-NULL) and returns true. */
bool u64map_get(const struct u64map *m, uint64_t key, uint64_t *val);
/* Pointer to the value slot of key, or NULL. Valid until the next put/del. */
uint64_t *u64map_ref(const struct u64map *m, uint64_t key);
/* Remove key; returns true if it was present (its value in *val if non-NULL). */
bool u64map_del(struct u64map *m, uint64_t key, uint64_t *val);

static inline size_t u64map_len(const struct u64map *m)
{
	return m->len;
}

/* Iterate: start with *pos = 0; returns false at the end. Do not modify the
 * map while iterating. */
bool u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val);

#endif
