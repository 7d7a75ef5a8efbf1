/* u64map.h - open-addressing hash map from uint64_t keys to uint64_t values.
 *
 * Used for the live-pointer table of a replay and for address -> slab lookups
 * in the policies. Linear probing with backward-shift deletion (no
 * tombstones), so memory and probe lengths follow the live set, not the
 * history: a replay of any length keeps the table at about 2x the live count.
 *
 * Maps grow at a load of 3/4 by default; u64map_init_sparse() maps grow at
 * 1/2, for the tables hit at every event (shorter probes and shifts on
 * delete, for twice the memory). The load changes the slot order, so
 * iteration order depends on it: a map whose iteration order reaches an
 * output keeps the default. The lookups are inline: they run per event.
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
	size_t limit;		   /* len may reach limit before the map grows */
	bool sparse;		   /* grow at load 1/2 instead of 3/4, Fibonacci hash */
	uint8_t shift;		   /* sparse: 64 - log2(cap) */
	bool has_empty_key;	   /* the key U64MAP_EMPTY itself is stored ... */
	uint64_t empty_key_val;	   /* ... with this value, outside the slots */
};

/* The key value that marks free slots (any key may still be stored). */
#define U64MAP_EMPTY UINT64_MAX

/* Initialise an empty map (allocates nothing); it grows at a load of 3/4. */
void u64map_init(struct u64map *m);
/* The same, growing at a load of 1/2 (for per-event tables). */
void u64map_init_sparse(struct u64map *m);
/* Free the map's memory; m may be reused after u64map_init. */
void u64map_fini(struct u64map *m);

/* Insert or overwrite. Returns 0, or SLABSIM_ENOMEM (m unchanged). */
int u64map_put(struct u64map *m, uint64_t key, uint64_t val);
/* Find or insert: the value slot of key, inserted with value 0 when absent
 * (*found tells which). NULL when out of memory (m unchanged). Valid until
 * the next put/del/upsert. Inline below. */
static inline uint64_t *u64map_upsert(struct u64map *m, uint64_t key, bool *found);
/* u64map_upsert's cases that are not a probe of the slots: the key
 * U64MAP_EMPTY, an empty map, an insert that grows the map. */
uint64_t *u64map_upsert_slow(struct u64map *m, uint64_t key, bool *found);
/* Remove key; returns true if it was present (its value in *val if non-NULL). */
bool u64map_del(struct u64map *m, uint64_t key, uint64_t *val);
/* Remove the entry whose value slot v is (from u64map_ref or u64map_upsert,
 * still valid): a delete without a second lookup. Inline below. */
static inline void u64map_del_ref(struct u64map *m, uint64_t *v);
/* Empty slot i (occupied) and close the gap (backward shift). */
void u64map_del_at(struct u64map *m, size_t i);

/* The slot index a key hashes to. Both hashes take the high bits of a
 * product, since hashed trace pointers and page-aligned simulated addresses
 * have low-entropy low bits: sparse maps multiply once (Fibonacci hashing,
 * the top log2(cap) bits), the others keep the splitmix64 finaliser (their
 * iteration order, which follows the hash, may reach an output). */
static inline size_t u64map_home(const struct u64map *m, uint64_t x)
{
	if (m->sparse)
		return (size_t)((x * 0x9e3779b97f4a7c15ULL) >> m->shift);
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return (size_t)x & (m->cap - 1);
}

/* Pointer to the value slot of key, or NULL. Valid until the next put/del. */
static inline uint64_t *u64map_ref(const struct u64map *m, uint64_t key)
{
	if (__builtin_expect(key == U64MAP_EMPTY, 0))
		return m->has_empty_key ? (uint64_t *)&m->empty_key_val : NULL;
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = u64map_home(m, key);; i = (i + 1) & mask) {
		uint64_t k = m->slots[i].key;
		if (k == key)
			return &m->slots[i].val;
		if (k == U64MAP_EMPTY)
			return NULL;
	}
}

/* Look up key; on hit stores the value in *val (if non-NULL) and returns true. */
static inline bool u64map_get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	const uint64_t *v = u64map_ref(m, key);
	if (v && val)
		*val = *v;
	return v != NULL;
}

static inline uint64_t *u64map_upsert(struct u64map *m, uint64_t key, bool *found)
{
	if (__builtin_expect(key == U64MAP_EMPTY || !m->cap, 0))
		return u64map_upsert_slow(m, key, found);
	size_t mask = m->cap - 1;
	for (size_t i = u64map_home(m, key);; i = (i + 1) & mask) {
		uint64_t k = m->slots[i].key;
		if (k == key) {
			*found = true;
			return &m->slots[i].val;
		}
		if (k == U64MAP_EMPTY) {
			if (m->len + 1 > m->limit)
				break;
			*found = false;
			m->slots[i].key = key;
			m->slots[i].val = 0;
			m->len++;
			return &m->slots[i].val;
		}
	}
	return u64map_upsert_slow(m, key, found);
}

static inline void u64map_del_ref(struct u64map *m, uint64_t *v)
{
	if (v == &m->empty_key_val) {
		m->has_empty_key = false;
		m->len--;
		return;
	}
	size_t i = (size_t)((struct u64map_slot *)((char *)v - offsetof(struct u64map_slot, val)) -
			    m->slots);
	/* the common case: no run continues after the slot, nothing shifts */
	if (m->slots[(i + 1) & (m->cap - 1)].key == U64MAP_EMPTY) {
		m->slots[i].key = U64MAP_EMPTY;
		m->len--;
		return;
	}
	u64map_del_at(m, i);
}

/* Hint that key will be looked up soon: fetch its home slot's cache line
 * (always inline, as ixmap_prefetch). */
static inline __attribute__((always_inline)) void u64map_prefetch(const struct u64map *m,
								  uint64_t key)
{
	if (m->cap)
		__builtin_prefetch(&m->slots[u64map_home(m, key)], 1, 3);
}

static inline size_t u64map_len(const struct u64map *m)
{
	return m->len;
}

/* Iterate: start with *pos = 0; returns false at the end. Do not modify the
 * map while iterating. */
bool u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val);

#endif
