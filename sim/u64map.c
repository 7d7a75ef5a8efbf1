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
	m->keys = NULL;
	m->vals = NULL;
	m->used = NULL;
	m->cap = 0;
	m->len = 0;
}

void u64map_fini(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	u64map_init(m);
}

static int grow(struct u64map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct u64map n = {
		.keys = malloc(ncap * sizeof(uint64_t)),
		.vals = malloc(ncap * sizeof(uint64_t)),
		.used = calloc(ncap, 1),
		.cap = ncap,
		.len = 0,
	};
	if (!n.keys || !n.vals || !n.used) {
		free(n.keys);
		free(n.vals);
		free(n.used);
		return SLABSIM_ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		size_t j = mix(m->keys[i]) & (ncap - 1);
		while (n.used[j])
			j = (j + 1) & (ncap - 1);
		n.used[j] = 1;
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
		n.len++;
	}
	u64map_fini(m);
	*m = n;
	return 0;
}

static bool find(const struct u64map *m, uint64_t key, size_t *slot)
{
	if (!m->cap)
		return false;
	size_t mask = m->cap - 1;
	size_t i = mix(key) & mask;
	while (m->used[i]) {
		if (m->keys[i] == key) {
			*slot = i;
			return true;
		}
		i = (i + 1) & mask;
	}
	*slot = i;
	return false;
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	size_t i;
	if (find(m, key, &i)) {
		m->vals[i] = val;
		return 0;
	}
	if ((m->len + 1) * 4 > m->cap * 3) {
		int rc = grow(m);
		if (rc)
			return rc;
		(void)find(m, key, &i);
	}
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->len++;
	return 0;
}

bool u64map_get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	size_t i;
	if (!find(m, key, &i))
		return false;
	if (val)
		*val = m->vals[i];
	return true;
}

uint64_t *u64map_ref(const struct u64map *m, uint64_t key)
{
	size_t i;
	return find(m, key, &i) ? &m->vals[i] : NULL;
}

bool u64map_del(struct u64map *m, uint64_t key, uint64_t *val)
{
	size_t i;
	if (!find(m, key, &i))
		return false;
	if (val)
		*val = m->vals[i];
	size_t mask = m->cap - 1;
	size_t j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (!m->used[j])
			break;
		size_t home = mix(m->keys[j]) & mask;
		/* move j back into the hole at i unless its home lies in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->used[i] = 0;
	m->len--;
	return true;
}

bool u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (size_t i = *pos; i < m->cap; i++) {
		if (m->used[i]) {
			*key = m->keys[i];
			if (val)
				*val = m->vals[i];
			*pos = i + 1;
			return true;
		}
	}
	*pos = m->cap;
	return false;
}
