/* policies_int.h - internals shared by the models in policies/. */
#ifndef SLABSIM_POLICIES_INT_H
#define SLABSIM_POLICIES_INT_H

#include "policy.h"

/* Checks every model makes of a request from the engine: the CPU is below
 * nr_cpus, a kmalloc asks for 1..4 MiB, a cache id exists (a free of a
 * page-allocator object, POLICY_NO_CACHE, passes). SLABSIM_EUSAGE otherwise. */
int policy_check_alloc(const struct policy *p, const struct policy_alloc_req *r, uint32_t nr_caches,
		       struct err *e);
int policy_check_free(const struct policy *p, const struct policy_obj *o, uint32_t cpu,
		      uint32_t nr_caches, struct err *e);

extern const struct policy_ops slub_ops;
extern const struct policy_ops slab_ops;
extern const struct policy_ops slob_ops;
extern const struct policy_ops exact_ops;

#endif
