/* strtab.h - interned strings with dense ids (cache names, call sites).
 * Grows with the number of distinct strings, which is bounded by the traced
 * kernel's code, not by the trace length. */
#ifndef SLABSIM_STRTAB_H
#define SLABSIM_STRTAB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "u64map.h"

struct strtab {
	char **strs;
	uint32_t *lens; /* strlen of each, so lookups compare with memcmp */
	uint32_t n, cap;
	struct u64map index; /* hash (+ probe) -> id */
};

void strtab_init(struct strtab *t);
void strtab_fini(struct strtab *t);
/* Id of s, interning a copy if new. Returns 0 or SLABSIM_ENOMEM. */
int strtab_intern(struct strtab *t, const char *s, uint32_t *id);
/* As strtab_intern for the n bytes at s (no NUL among them; s[n] need not
 * be NUL): for callers that know the length. */
int strtab_intern_n(struct strtab *t, const char *s, size_t n, uint32_t *id);
/* Id of s if present: returns 1 and sets *id, else 0. */
int strtab_find(const struct strtab *t, const char *s, uint32_t *id);
static inline const char *strtab_str(const struct strtab *t, uint32_t id)
{
	return t->strs[id];
}
/* 64-bit hash of a string (also used for composite keys); internal, never
 * stored in a file. strtab_hash_n hashes n bytes, giving the same value as
 * strtab_hash of the same string. */
uint64_t strtab_hash(const char *s, uint64_t seed);
uint64_t strtab_hash_n(const char *s, size_t n, uint64_t seed);

/* The slot of the len bytes at s in a direct-mapped cache of 2^bits
 * entries in front of a strtab (the call sites of a trace, which differ
 * mostly in their last bytes: "+0x1e/0x190"): a hash of the last 8 bytes
 * (all of them when fewer) and the length. No call, one multiply. */
static inline size_t strtab_cache_slot(const char *s, size_t len, unsigned bits)
{
	uint64_t w = 0;
	if (len >= 8)
		memcpy(&w, s + len - 8, 8);
	else
		memcpy(&w, s, len);
	return (size_t)(((w ^ len) * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - bits));
}

#endif
