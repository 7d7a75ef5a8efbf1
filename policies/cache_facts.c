/* cache_facts.c - lookup of the creation facts tables (cache_facts.h); the
 * tables themselves are generated from kernel sources by
 * scripts/cache-facts.py. */
#include "cache_facts.h"

#include <stdlib.h>
#include <string.h>

static int cmp_name(const void *key, const void *elem)
{
	const struct policy_cache_facts *f = elem;
	return strcmp(key, f->name);
}

const struct policy_cache_facts *policy_cache_facts_find(enum policy_kernel k, const char *name)
{
	const struct policy_cache_facts *t = policy_cache_facts_6_1;
	unsigned n = policy_cache_facts_6_1_n;
	if (k < POLICY_KERNEL_6_1 || !name)
		return NULL;
	/* 6.6 has no table of its own: 6.1's is the nearer source */
	if (k == POLICY_KERNEL_6_12) {
		t = policy_cache_facts_6_12;
		n = policy_cache_facts_6_12_n;
	} else if (k >= POLICY_KERNEL_6_18) {
		t = policy_cache_facts_6_18;
		n = policy_cache_facts_6_18_n;
	}
	return bsearch(name, t, n, sizeof(t[0]), cmp_name);
}

void policy_cache_facts_apply(const struct policy_cache_facts *f, struct policy_cache_spec *spec)
{
	const uint32_t layout_bits =
		POLICY_F_HWCACHE_ALIGN | POLICY_F_RECLAIM_ACCOUNT | POLICY_F_TYPESAFE_BY_RCU;
	if (!f)
		return;
	spec->flags |= f->flags & layout_bits;
	spec->ctor = spec->ctor || f->ctor;
	if (f->align >= 0)
		spec->align = (uint32_t)f->align;
	if (f->freeptr) {
		spec->use_freeptr_offset = true;
		spec->freeptr_offset = 0;
	}
}
