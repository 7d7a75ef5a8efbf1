/* ixmap.h - open-addressing hash index of records kept by the caller.
 *
 * The caller keeps its records in one array, each with its uint64_t key at
 * the same offset; the index maps a key to its record's index (below
 * IXMAP_MAX_IX) and holds 4 bytes per slot: the index + 1 and a 4-bit tag
 * from the key's hash, so that a probe reads a record (a cache miss of its
 * own) only when the tag matches, about one probe in 16 of those that pass
 * another key. The key is kept once, in the record: for the replay's live
 * table, 4 bytes per slot instead of u64map's 16 (issue 28: bytes per live
 * object).
 *
 * Linear probing, Fibonacci hashing (the top bits of one multiply), growth
 * at a load of 1/2 and backward-shift deletion, as u64map_init_sparse maps.
 * Growth and deletion read the moved records' keys. No iteration: the slot
 * order never reaches an output.
 *
 * Growth walks the old slots and reads each one's record: a random walk
 * over the records, a cache miss each once they outgrow the cache. A
 * caller that can tell which of its records the map holds (ixmap_keys.held)
 * has them walked in index order instead, each read once in memory order,
 * and only the new slots' writes fall at random (issue 28: the rehash was
 * 8 % of a replay whose live set grows to 0.5 M objects). Then the slot
 * array also grows where it is (bigmem_resize) and is refilled, so that a
 * growth touches only its new half for the first time. The lookups are
 * inline: they run per event. Any key may be stored, including 0 and
 * UINT64_MAX.
 */
#ifndef SLABSIM_IXMAP_H
#define SLABSIM_IXMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the caller's records are: the key of record i is the uint64_t at
 * base + i * stride. The array may move (realloc) between calls. */
struct ixmap_keys {
	const char *base;
	size_t stride;
	/* Optional (NULL/0: growth walks the slots). held(key of record i)
	 * is true exactly for the records the map holds, i < nrec; the record
	 * ixmap_insert_at is inserting is not held yet. */
	bool (*held)(const char *key);
	uint32_t nrec;
};

struct ixmap {
	uint32_t *slots; /* 0: free; else tag << IXMAP_IX_BITS | (index + 1) */
	size_t cap;	 /* power of two, or 0 */
	size_t len;	 /* entries */
	size_t limit;	 /* len may reach limit before the map grows */
	uint8_t shift;	 /* 64 - log2(cap) */
};

#define IXMAP_IX_BITS 28
#define IXMAP_IX_MASK ((1u << IXMAP_IX_BITS) - 1)
/* the largest record index the map can hold */
#define IXMAP_MAX_IX (IXMAP_IX_MASK - 1u)
/* no record (ixmap_find) */
#define IXMAP_NONE UINT32_MAX

void ixmap_init(struct ixmap *m);
void ixmap_fini(struct ixmap *m);

static inline uint64_t ixmap_key_of(const struct ixmap_keys *k, uint32_t ix)
{
	return *(const uint64_t *)(const void *)(k->base + (size_t)ix * k->stride);
}

static inline uint64_t ixmap_hash(uint64_t key)
{
	return key * 0x9e3779b97f4a7c15ULL;
}

/* The slot value of record ix under hash h: the tag is the 4 bits of h
 * below those that pick the home slot. */
static inline uint32_t ixmap_slot_val(const struct ixmap *m, uint64_t h, uint32_t ix)
{
	return (uint32_t)((h >> (m->shift - 4)) & 15) << IXMAP_IX_BITS | (ix + 1);
}

/* The record index of key, or IXMAP_NONE. *pos (may be NULL) gets the slot
 * where an insert of key goes (ixmap_insert_at), valid until the next
 * insert or delete. */
static inline uint32_t ixmap_find(const struct ixmap *m, uint64_t key, const struct ixmap_keys *k,
				  size_t *pos)
{
	if (!m->cap) {
		if (pos)
			*pos = SIZE_MAX;
		return IXMAP_NONE;
	}
	uint64_t h = ixmap_hash(key);
	uint32_t tag = (uint32_t)((h >> (m->shift - 4)) & 15) << IXMAP_IX_BITS;
	size_t mask = m->cap - 1;
	for (size_t i = (size_t)(h >> m->shift);; i = (i + 1) & mask) {
		uint32_t v = m->slots[i];
		if (!v) {
			if (pos)
				*pos = i;
			return IXMAP_NONE;
		}
		if ((v & ~IXMAP_IX_MASK) == tag && ixmap_key_of(k, (v & IXMAP_IX_MASK) - 1) == key)
			return (v & IXMAP_IX_MASK) - 1;
	}
}

/* Insert record ix (index <= IXMAP_MAX_IX, its key absent from the map) at
 * the slot ixmap_find gave for its key; the map grows when full. Returns 0
 * or SLABSIM_ENOMEM (m unchanged). */
int ixmap_insert_at(struct ixmap *m, size_t pos, uint32_t ix, const struct ixmap_keys *k);

/* Remove record ix, which the map holds. */
void ixmap_del(struct ixmap *m, uint32_t ix, const struct ixmap_keys *k);

/* Hint that key will be looked up soon: fetch its home slot's cache line.
 * Always inline: GCC takes a function that only prefetches for one
 * without side effects (const) and drops the calls it did not inline. */
static inline __attribute__((always_inline)) void ixmap_prefetch(const struct ixmap *m,
								 uint64_t key)
{
	if (m->cap)
		__builtin_prefetch(&m->slots[ixmap_hash(key) >> m->shift], 0, 3);
}

/* The record at key's home slot when its tag is key's, else IXMAP_NONE:
 * a guess (another key of the same tag, or key further along the run),
 * read without touching a record, to prefetch the record a lookup of key
 * will read. */
static inline uint32_t ixmap_home_guess(const struct ixmap *m, uint64_t key)
{
	if (!m->cap)
		return IXMAP_NONE;
	uint64_t h = ixmap_hash(key);
	uint32_t v = m->slots[h >> m->shift];
	uint32_t tag = (uint32_t)((h >> (m->shift - 4)) & 15) << IXMAP_IX_BITS;
	return v && (v & ~IXMAP_IX_MASK) == tag ? (v & IXMAP_IX_MASK) - 1 : IXMAP_NONE;
}

#endif
