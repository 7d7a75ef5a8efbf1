/* strtab.h - interned strings with dense ids (cache names, call sites).
 * Grows with the number of distinct strings, which is bounded by the traced
 * kernel's code, not by the trace length. */
#ifndef SLABSIM_STRTAB_H
#define SLABSIM_STRTAB_H

#include <stdint.h>

#include "u64map.h"

struct strtab {
	char **strs;
	uint32_t n, cap;
	struct u64map index; /* hash (+ probe) -> id */
};

void strtab_init(struct strtab *t);
void strtab_fini(struct strtab *t);
/* Id of s, interning a copy if new. Returns 0 or SLABSIM_ENOMEM. */
int strtab_intern(struct strtab *t, const char *s, uint32_t *id);
/* Id of s if present: returns 1 and sets *id, else 0. */
int strtab_find(const struct strtab *t, const char *s, uint32_t *id);
static inline const char *strtab_str(const struct strtab *t, uint32_t id)
{
	return t->strs[id];
}
/* FNV-1a 64-bit hash of a string (also used for composite keys). */
uint64_t strtab_hash(const char *s, uint64_t seed);

#endif
