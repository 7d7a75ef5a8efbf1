/* cache_facts.h - what kmem_cache_create() was given for a named cache, as
 * read from the kernel source (scripts/cache-facts.py), for captures that
 * cannot show it: a SLAB kernel has no /sys/kernel/slab, and its
 * /proc/slabinfo gives a cache's stride and slab geometry but not its flags,
 * constructor or alignment. Only facts that do not depend on the kernel's
 * configuration are kept; sizes are not among them.
 */
#ifndef SLABSIM_CACHE_FACTS_H
#define SLABSIM_CACHE_FACTS_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

struct policy_cache_facts {
	const char *name; /* the cache name (KMEM_CACHE*: the struct's name) */
	uint32_t flags;	  /* POLICY_F_{HWCACHE_ALIGN,RECLAIM_ACCOUNT,TYPESAFE_BY_RCU,
			   * ACCOUNT,CACHE_DMA} named in the flags argument */
	int32_t align;	  /* the align argument if a literal (0 = none), else -1 */
	bool ctor;	  /* a constructor is passed */
	bool partial;	  /* the flags argument also holds bits the source
			   * alone does not tell (a variable, a condition) */
	bool freeptr;	  /* 6.12+: kmem_cache_args.use_freeptr_offset (with
			   * TYPESAFE_BY_RCU the free pointer stays inside) */
};

/* The generated table of Linux 6.1 (policies/cache_facts_6_1.c), sorted by
 * name (strcmp order). */
extern const struct policy_cache_facts policy_cache_facts_6_1[];
extern const unsigned policy_cache_facts_6_1_n;

/* Linux 6.12 (Debian linux-source-6.12) and 6.18 (6.12 plus the creations
 * that changed, read in torvalds/linux; the file's header names them). */
extern const struct policy_cache_facts policy_cache_facts_6_12[];
extern const unsigned policy_cache_facts_6_12_n;
extern const struct policy_cache_facts policy_cache_facts_6_18[];
extern const unsigned policy_cache_facts_6_18_n;

/* The facts of the cache called name in kernel profile k (6.1 and 6.6: the
 * 6.1 table; 6.12; 6.18), or NULL when the
 * profile has no table or the source creates no cache of that name with a
 * literal name (or creates it in several ways). Valid for the process. */
const struct policy_cache_facts *policy_cache_facts_find(enum policy_kernel k, const char *name);

/* Put into spec what the facts say about its layout: HWCACHE_ALIGN,
 * RECLAIM_ACCOUNT (SLAB takes the first slab order that fits),
 * TYPESAFE_BY_RCU and a constructor (both keep SLAB's freelist out of free
 * objects), a literal alignment, and freeptr_offset (use_freeptr_offset;
 * the offset itself is not known: 0, which changes no size). ACCOUNT and CACHE_DMA are left out:
 * they depend on CONFIG_MEMCG_KMEM and CONFIG_ZONE_DMA, and only decide
 * merging. f may be NULL (nothing changes). */
void policy_cache_facts_apply(const struct policy_cache_facts *f, struct policy_cache_spec *spec);

#endif
