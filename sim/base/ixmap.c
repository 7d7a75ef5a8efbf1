/* ixmap.c - growth and deletion of the record index; see ixmap.h. */
#include "ixmap.h"
#include "bigmem.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

void ixmap_init(struct ixmap *m)
{
	*m = (struct ixmap){0};
}

void ixmap_fini(struct ixmap *m)
{
	bigmem_free(m->slots, m->cap * sizeof(*m->slots));
	*m = (struct ixmap){0};
}

/* Put record ix (hash h) in the first free slot from its home. */
static void place(struct ixmap *m, uint64_t h, uint32_t ix)
{
	size_t mask = m->cap - 1, i = (size_t)(h >> m->shift);
	while (m->slots[i])
		i = (i + 1) & mask;
	m->slots[i] = ixmap_slot_val(m, h, ix);
}

/* Place the records the old slots name, in slot order. */
static void rehash_slots(struct ixmap *m, const uint32_t *old, size_t ocap,
			 const struct ixmap_keys *k)
{
	/* the records' keys are read in slot order, a random walk over the
	 * records: fetch a few ahead so that the misses overlap */
	enum { AHEAD = 8 };
	for (size_t i = 0; i < ocap; i++) {
		if (i + AHEAD < ocap && old[i + AHEAD])
			__builtin_prefetch(k->base +
					   (size_t)((old[i + AHEAD] & IXMAP_IX_MASK) - 1) *
						   k->stride);
		if (!old[i])
			continue;
		uint32_t ix = (old[i] & IXMAP_IX_MASK) - 1;
		place(m, ixmap_hash(ixmap_key_of(k, ix)), ix);
	}
}

/* Place the records k->held names, in index order: their keys are read
 * in memory order, and the new slot of a record a few on is fetched
 * ahead so that the slots' misses overlap. */
static void rehash_records(struct ixmap *m, const struct ixmap_keys *k)
{
	enum { AHEAD = 16 };
	for (uint32_t ix = 0; ix < k->nrec; ix++) {
		if (ix + AHEAD < k->nrec)
			__builtin_prefetch(
				&m->slots[ixmap_hash(ixmap_key_of(k, ix + AHEAD)) >> m->shift], 1);
		const char *key = k->base + (size_t)ix * k->stride;
		if (k->held(key))
			place(m, ixmap_hash(ixmap_key_of(k, ix)), ix);
	}
}

__attribute__((noinline, cold)) static int grow(struct ixmap *m, const struct ixmap_keys *k)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	uint32_t *old = m->slots;
	size_t ocap = m->cap;
	/* records the map does not hold (a replay's start-state objects) can
	 * outnumber those it does: then the slots are the shorter walk */
	bool by_records = k->held && k->nrec <= 4 * (uint64_t)m->len;
	uint32_t *n;
	if (by_records) {
		/* The records say what the map holds: the array grows where
		 * it is (mremap) and is cleared and filled again, so that only
		 * its new half is memory the process never touched. A new
		 * array of twice the size took the old one's pages fresh as
		 * well: each first touch of a page costs a fault (some
		 * microseconds in this project's virtual machine: the
		 * growth's page clearing was 5 % of a recorded replay whose
		 * live set reaches 0.5 M objects, issue 28). */
		if (!(n = bigmem_resize(old, ocap * sizeof(*n), ncap * sizeof(*n))))
			return SLABSIM_ENOMEM;
		memset(n, 0, ocap * sizeof(*n));
	} else if (!(n = bigmem_resize(NULL, 0, ncap * sizeof(*n)))) { /* zeroed */
		return SLABSIM_ENOMEM;
	}
	m->slots = n;
	m->cap = ncap;
	m->limit = ncap / 2;
	m->shift = (uint8_t)(64 - __builtin_ctzll((unsigned long long)ncap));
	if (by_records) {
		rehash_records(m, k);
	} else {
		rehash_slots(m, old, ocap, k);
		bigmem_free(old, ocap * sizeof(*old));
	}
	return 0;
}

int ixmap_insert_at(struct ixmap *m, size_t pos, uint32_t ix, const struct ixmap_keys *k)
{
	uint64_t h = ixmap_hash(ixmap_key_of(k, ix));
	if (m->len + 1 > m->limit) {
		if (grow(m, k))
			return SLABSIM_ENOMEM;
		place(m, h, ix);
	} else {
		m->slots[pos] = ixmap_slot_val(m, h, ix);
	}
	m->len++;
	return 0;
}

void ixmap_del(struct ixmap *m, uint32_t ix, const struct ixmap_keys *k)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)(ixmap_hash(ixmap_key_of(k, ix)) >> m->shift);
	while ((m->slots[i] & IXMAP_IX_MASK) != ix + 1)
		i = (i + 1) & mask;
	/* backward shift: move each later entry of the run into the gap when
	 * its home does not lie cyclically in (gap, its slot] */
	size_t j = i;
	for (;;) {
		j = (j + 1) & mask;
		uint32_t v = m->slots[j];
		if (!v)
			break;
		size_t home =
			(size_t)(ixmap_hash(ixmap_key_of(k, (v & IXMAP_IX_MASK) - 1)) >> m->shift);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = v;
			i = j;
		}
	}
	m->slots[i] = 0;
	m->len--;
}
