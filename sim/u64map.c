/* u64map.c - linear probing with backward-shift deletion; see u64map.h. */
#include "u64map.h"
#include "err.h"

#include <stdlib.h>

static inline uint64_t mix(uint64_t x)
{
	/* splitmix64 finaliser: hashed trace pointers and page-aligned simulated
	 * addresses both have low-entropy low bits */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

void u64map_init(struct u64map *m)
{
	m->slots = NULL;
	m->cap = 0;
	m->len = 0;
	m->has_empty_key = false;
	m->empty_key_val = 0;
}

void u64map_fini(struct u64map *m)
{
	free(m->slots);
	u64map_init(m);
}

static struct u64map_slot *alloc_slots(size_t cap)
{
	struct u64map_slot *s = malloc(cap * sizeof(*s));
	if (s)
		for (size_t i = 0; i < cap; i++)
			s[i].key = U64MAP_EMPTY;
	return s;
}

static int grow(struct u64map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct u64map_slot *n = alloc_slots(ncap);
	if (!n)
		return SLABSIM_ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->slots[i].key == U64MAP_EMPTY)
			continue;
		size_t j = mix(m->slots[i].key) & (ncap - 1);
		while (n[j].key != U64MAP_EMPTY)
			j = (j + 1) & (ncap - 1);
		n[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = n;
	m->cap = ncap;
	return 0;
}

/* Slot of key (true), or the free slot where it would go (false). */
static inline bool find(const struct u64map *m, uint64_t key, size_t *slot)
{
	if (!m->cap)
		return false;
	size_t mask = m->cap - 1;
	size_t i = mix(key) & mask;
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

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	size_t i;
	if (key == U64MAP_EMPTY) {
		m->len += !m->has_empty_key;
		m->has_empty_key = true;
		m->empty_key_val = val;
		return 0;
	}
	if (find(m, key, &i)) {
		m->slots[i].val = val;
		return 0;
	}
	if ((m->len + 1) * 4 > m->cap * 3) {
		int rc = grow(m);
		if (rc)
			return rc;
		(void)find(m, key, &i);
	}
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->len++;
	return 0;
}

bool u64map_get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	uint64_t *v = u64map_ref(m, key);
	if (v && val)
		*val = *v;
	return v != NULL;
}

uint64_t *u64map_ref(const struct u64map *m, uint64_t key)
{
	size_t i;
	if (key == U64MAP_EMPTY)
		return m->has_empty_key ? (uint64_t *)&m->empty_key_val : NULL;
	return find(m, key, &i) ? &m->slots[i].val : NULL;
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
	if (!find(m, key, &i))
		return false;
	if (val)
		*val = m->slots[i].val;
	size_t mask = m->cap - 1;
	size_t j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (m->slots[j].key == U64MAP_EMPTY)
			break;
		size_t home = mix(m->slots[j].key) & mask;
		/* move j back into the hole at i unless its home lies in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].key = U64MAP_EMPTY;
	m->len--;
	return true;
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
