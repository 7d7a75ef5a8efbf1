/* strtab.c - string interning; collisions of the 64-bit hash are resolved by
 * probing hash+1, hash+2, ... in the u64 map. */
#include "strtab.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

void strtab_init(struct strtab *t)
{
	t->strs = NULL;
	t->n = t->cap = 0;
	u64map_init(&t->index);
}

void strtab_fini(struct strtab *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	u64map_fini(&t->index);
	strtab_init(t);
}

uint64_t strtab_hash(const char *s, uint64_t seed)
{
	/* eight bytes per step (call-site strings are hashed once per event):
	 * load a word, fold it in with a multiply, finish with a mixer. The
	 * value is internal, never stored in a file. */
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;
	size_t n = strlen(s);
	const unsigned char *p = (const unsigned char *)s;
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	uint64_t w = 0;
	memcpy(&w, p, n);
	h = (h ^ w ^ ((uint64_t)n << 56)) * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

static int lookup(const struct strtab *t, const char *s, uint64_t *key, uint32_t *id)
{
	uint64_t k = strtab_hash(s, 0), v;
	for (;; k++) {
		if (!u64map_get(&t->index, k, &v)) {
			*key = k;
			return 0;
		}
		if (strcmp(t->strs[v], s) == 0) {
			*id = (uint32_t)v;
			return 1;
		}
	}
}

int strtab_find(const struct strtab *t, const char *s, uint32_t *id)
{
	uint64_t k;
	return lookup(t, s, &k, id);
}

int strtab_intern(struct strtab *t, const char *s, uint32_t *id)
{
	uint64_t k;
	if (lookup(t, s, &k, id))
		return 0;
	if (t->n == t->cap) {
		uint32_t ncap = t->cap ? t->cap * 2 : 64;
		char **n = realloc(t->strs, ncap * sizeof(*n));
		if (!n)
			return SLABSIM_ENOMEM;
		t->strs = n;
		t->cap = ncap;
	}
	char *copy = strdup(s);
	if (!copy)
		return SLABSIM_ENOMEM;
	if (u64map_put(&t->index, k, t->n)) {
		free(copy);
		return SLABSIM_ENOMEM;
	}
	t->strs[t->n] = copy;
	*id = t->n++;
	return 0;
}
