/* u64map.c - linear probing with backward-shift deletion; see u64map.h. */
#include "u64map.h"
#include "bigmem.h"
#include "err.h"

#include <stdlib.h>

void u64map_init(struct u64map *m)
{
	*m = (struct u64map){0};
}

void u64map_init_sparse(struct u64map *m)
{
	*m = (struct u64map){.sparse = true};
}

void u64map_fini(struct u64map *m)
{
	bool sparse = m->sparse;
	bigmem_free(m->slots, m->cap * sizeof(*m->slots));
	*m = (struct u64map){.sparse = sparse};
}

static struct u64map_slot *alloc_slots(size_t cap)
{
	struct u64map_slot *s = bigmem_resize(NULL, 0, cap * sizeof(*s));
	if (s)
		for (size_t i = 0; i < cap; i++)
			s[i].key = U64MAP_EMPTY;
	return s;
}

__attribute__((noinline, cold)) static int grow(struct u64map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct u64map_slot *n = alloc_slots(ncap);
	if (!n)
		return SLABSIM_ENOMEM;
	struct u64map_slot *old = m->slots;
	size_t ocap = m->cap;
	m->slots = n;
	m->cap = ncap;
	m->limit = m->sparse ? ncap / 2 : ncap / 4 * 3;
	m->shift = (uint8_t)(64 - __builtin_ctzll((unsigned long long)ncap));
	for (size_t i = 0; i < ocap; i++) {
		if (old[i].key == U64MAP_EMPTY)
			continue;
		size_t j = u64map_home(m, old[i].key);
		while (n[j].key != U64MAP_EMPTY)
			j = (j + 1) & (ncap - 1);
		n[j] = old[i];
	}
	bigmem_free(old, ocap * sizeof(*old));
	return 0;
}

/* Slot of key (true), or the free slot where it would go (false); cap > 0. */
static inline bool find(const struct u64map *m, uint64_t key, size_t *slot)
{
	size_t mask = m->cap - 1;
	size_t i = u64map_home(m, key);
	for (;;) {
		uint64_t k = m->slots[i].key;
		if (k == key) {
			*slot = i;
			return true;
		}
		if (k == U64MAP_EMPTY)
			break;
		i = (i + 1) & mask;
	}
	*slot = i;
	return false;
}

uint64_t *u64map_upsert_slow(struct u64map *m, uint64_t key, bool *found)
{
	size_t i = 0;
	if (key == U64MAP_EMPTY) {
		*found = m->has_empty_key;
		if (!m->has_empty_key) {
			m->len++;
			m->has_empty_key = true;
			m->empty_key_val = 0;
		}
		return &m->empty_key_val;
	}
	if (m->cap && find(m, key, &i)) {
		*found = true;
		return &m->slots[i].val;
	}
	*found = false;
	if (m->len + 1 > m->limit) {
		if (grow(m))
			return NULL;
		(void)find(m, key, &i);
	}
	m->slots[i].key = key;
	m->slots[i].val = 0;
	m->len++;
	return &m->slots[i].val;
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	bool found;
	uint64_t *v = u64map_upsert(m, key, &found);
	if (!v)
		return SLABSIM_ENOMEM;
	*v = val;
	return 0;
}

bool u64map_del(struct u64map *m, uint64_t key, uint64_t *val)
{
	size_t i;
	if (key == U64MAP_EMPTY) {
		if (!m->has_empty_key)
			return false;
		if (val)
			*val = m->empty_key_val;
		m->has_empty_key = false;
		m->len--;
		return true;
	}
	if (!m->cap || !find(m, key, &i))
		return false;
	if (val)
		*val = m->slots[i].val;
	u64map_del_at(m, i);
	return true;
}

void u64map_del_at(struct u64map *m, size_t i)
{
	size_t mask = m->cap - 1;
	/* Backward shift: each following entry of the run moves into the hole
	 * unless its home lies cyclically in (hole, j]; distances mod cap. */
	for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
		uint64_t k = m->slots[j].key;
		if (k == U64MAP_EMPTY)
			break;
		if (((j - u64map_home(m, k)) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].key = U64MAP_EMPTY;
	m->len--;
}

bool u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (size_t i = *pos; i < m->cap; i++) {
		if (m->slots[i].key != U64MAP_EMPTY) {
			*key = m->slots[i].key;
			if (val)
				*val = m->slots[i].val;
			*pos = i + 1;
			return true;
		}
	}
	/* the key U64MAP_EMPTY comes last, at position cap */
	if (m->has_empty_key && *pos <= m->cap) {
		*key = U64MAP_EMPTY;
		if (val)
			*val = m->empty_key_val;
		*pos = m->cap + 1;
		return true;
	}
	*pos = m->cap + 1;
	return false;
}
