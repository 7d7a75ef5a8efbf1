/* policies_int.h - internals shared by the models in policies/. */
#ifndef SLABSIM_POLICIES_INT_H
#define SLABSIM_POLICIES_INT_H

#include "layout.h"
#include "policy.h"

#include <stdbool.h>

/* Checks every model makes of a request from the engine: the CPU is below
 * nr_cpus, a kmalloc asks for 1..4 MiB, a cache id exists (a free of a
 * page-allocator object, POLICY_NO_CACHE, passes). SLABSIM_EUSAGE otherwise.
 * Inline, since they run at every event; the messages are out of line. */
int policy_check_alloc_fail(const struct policy *p, const struct policy_alloc_req *r,
			    uint32_t nr_caches, struct err *e);
int policy_check_free_fail(const struct policy *p, const struct policy_obj *o, uint32_t cpu,
			   uint32_t nr_caches, struct err *e);

static inline int policy_check_alloc(const struct policy *p, const struct policy_alloc_req *r,
				     uint32_t nr_caches, struct err *e)
{
	bool ok = r->cpu < p->cfg.nr_cpus &&
		  (r->cache == POLICY_KMALLOC ? r->size - 1 < LAYOUT_KMALLOC_MAX_SIZE
					      : r->cache < nr_caches);
	return __builtin_expect(ok, 1) ? 0 : policy_check_alloc_fail(p, r, nr_caches, e);
}

static inline int policy_check_free(const struct policy *p, const struct policy_obj *o,
				    uint32_t cpu, uint32_t nr_caches, struct err *e)
{
	bool ok = cpu < p->cfg.nr_cpus && (o->cache == POLICY_NO_CACHE || o->cache < nr_caches);
	return __builtin_expect(ok, 1) ? 0 : policy_check_free_fail(p, o, cpu, nr_caches, e);
}

/* bytes_alloc of a kmalloc served by the page allocator (kmalloc_large):
 * PAGE_SIZE << get_order(size). */
static inline uint64_t policy_large_kmalloc_bytes(uint64_t size)
{
	return (uint64_t)POLICY_PAGE_SIZE << layout_get_order(size);
}

extern const struct policy_ops slub_ops;
extern const struct policy_ops slab_ops;
extern const struct policy_ops slob_ops;
extern const struct policy_ops exact_ops;

#endif
