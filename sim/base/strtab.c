/* strtab.c - string interning; collisions of the 64-bit hash are resolved by
 * probing hash+1, hash+2, ... in the u64 map. */
#include "strtab.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

void strtab_init(struct strtab *t)
{
	t->strs = NULL;
	t->lens = NULL;
	t->n = t->cap = 0;
	u64map_init_sparse(&t->index); /* looked up per event, never iterated */
}

void strtab_fini(struct strtab *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->lens);
	u64map_fini(&t->index);
	strtab_init(t);
}

uint64_t strtab_hash(const char *s, uint64_t seed)
{
	return strtab_hash_n(s, strlen(s), seed);
}

uint64_t strtab_hash_n(const char *s, size_t n, uint64_t seed)
{
	/* eight bytes per step (call-site strings are hashed once per event):
	 * load a word, fold it in with a multiply, finish with a mixer */
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;
	const unsigned char *p = (const unsigned char *)s;
	size_t len = n;
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	uint64_t w = 0;
	memcpy(&w, p, n);
	h = (h ^ w ^ ((uint64_t)len << 56)) * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

static int lookup(const struct strtab *t, const char *s, size_t n, uint64_t *key, uint32_t *id)
{
	uint64_t k = strtab_hash_n(s, n, 0), v;
	for (;; k++) {
		if (!u64map_get(&t->index, k, &v)) {
			*key = k;
			return 0;
		}
		if (t->lens[v] == n && memcmp(t->strs[v], s, n) == 0) {
			*id = (uint32_t)v;
			return 1;
		}
	}
}

int strtab_find(const struct strtab *t, const char *s, uint32_t *id)
{
	uint64_t k;
	return lookup(t, s, strlen(s), &k, id);
}

int strtab_intern(struct strtab *t, const char *s, uint32_t *id)
{
	return strtab_intern_n(t, s, strlen(s), id);
}

int strtab_intern_n(struct strtab *t, const char *s, size_t n, uint32_t *id)
{
	uint64_t k;
	if (lookup(t, s, n, &k, id))
		return 0;
	if (n > UINT32_MAX - 1)
		return SLABSIM_ENOMEM;
	if (t->n == t->cap) {
		uint32_t ncap = t->cap ? t->cap * 2 : 64;
		char **ns = realloc(t->strs, ncap * sizeof(*ns));
		if (!ns)
			return SLABSIM_ENOMEM;
		t->strs = ns;
		uint32_t *nl = realloc(t->lens, ncap * sizeof(*nl));
		if (!nl)
			return SLABSIM_ENOMEM;
		t->lens = nl;
		t->cap = ncap;
	}
	char *copy = malloc(n + 1);
	if (!copy)
		return SLABSIM_ENOMEM;
	memcpy(copy, s, n);
	copy[n] = '\0';
	if (u64map_put(&t->index, k, t->n)) {
		free(copy);
		return SLABSIM_ENOMEM;
	}
	t->strs[t->n] = copy;
	t->lens[t->n] = (uint32_t)n;
	*id = t->n++;
	return 0;
}
