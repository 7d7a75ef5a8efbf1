/* buckets.h - kmalloc routing of the newer kernels: kmem_buckets (6.11,
 * CONFIG_SLAB_BUCKETS) and the random kmalloc caches (6.6,
 * CONFIG_RANDOM_KMALLOC_CACHES).
 *
 * A kmalloc event names no cache: which cache served it follows from its
 * call site and gfp flags. The engine asks once per call site for the
 * site's class (policy_route_site), then per event for its route
 * (policy_route), and passes the route in policy_alloc_req.route; SLUB's
 * alloc then takes the bucket cache or the random copy instead of
 * kmalloc-N. docs/models.md ("kmem_buckets", "Random kmalloc caches") has
 * the call sites and what a trace cannot tell.
 */
#ifndef SLABSIM_BUCKETS_H
#define SLABSIM_BUCKETS_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

/* The bucket sets a kernel creates with kmem_buckets_create(), in the order
 * of their subsys_initcalls (ipc/ before mm/ in the link order). */
enum policy_bucket_set {
	POLICY_BUCKETS_NONE = 0,
	POLICY_BUCKETS_MSG_MSG,	    /* ipc/msgutil.c init_msg_buckets: "msg_msg", SLAB_ACCOUNT */
	POLICY_BUCKETS_MEMDUP_USER, /* mm/util.c init_user_buckets: "memdup_user" */
	POLICY_BUCKETS_NR,
};

/* policy_alloc_req.route: bits 0-7 a bucket set (0 = none), bits 8-15 the
 * random kmalloc copy (0 = kmalloc-N itself, 1..15 = kmalloc-rnd-NN-). A
 * bucket set wins: __do_kmalloc_node takes (*b)[index] whatever the type. */
#define POLICY_ROUTE_BUCKETS(r) ((r)&0xffu)
#define POLICY_ROUTE_RANDOM(r)	(((r) >> 8) & 0xffu)

/* What a bucket set's caches are made of: kmem_buckets_create(name, flags,
 * useroffset, usersize, NULL). */
struct policy_bucket_info {
	const char *prefix; /* "msg_msg" */
	uint32_t flags;	    /* POLICY_F_* given to kmem_buckets_create */
	uint32_t useroffset, usersize;
};

/* Does profile cfg create bucket set b (cfg->slab_buckets and a kernel
 * that has it)? */
bool policy_buckets_enabled(const struct policy_cfg *cfg, enum policy_bucket_set b);
/* Does cfg have random kmalloc copies (random_kmalloc, a 6.6+ profile,
 * not SLUB_TINY)? */
bool policy_random_enabled(const struct policy_cfg *cfg);
/* The creation arguments of set b (1..POLICY_BUCKETS_NR-1). */
const struct policy_bucket_info *policy_bucket_info(enum policy_bucket_set b);
/* The usersize of the cache of set b holding objects of size bytes, as
 * kmem_buckets_create computes it from useroffset and usersize. */
uint32_t policy_bucket_usersize(enum policy_bucket_set b, uint32_t size);

/* The class of a call site ("load_msg+0x3c/0x1a0"; "" or hex text when not
 * symbolic) under cfg: which bucket rule its symbol matches and, with
 * random kmalloc caches, the copy its normal kmallocs take. Computed once
 * per site; the result feeds policy_route. */
uint32_t policy_route_site(const struct policy_cfg *cfg, const char *call_site);
/* What policy_route needs of an event's gfp_flags (the engine translates
 * the trace's bits): __GFP_ACCOUNT, and GFP_USER's __GFP_HARDWALL with or
 * without __GFP_NOWARN. */
enum {
	POLICY_ROUTE_GFP_ACCOUNT = 1u << 0,
	POLICY_ROUTE_GFP_HARDWALL = 1u << 1,
	POLICY_ROUTE_GFP_NOWARN = 1u << 2,
};
/* The route of one kmalloc event of a site of class site_class, with the
 * event's POLICY_ROUTE_GFP_* bits gfp and kmalloc type t (NORMAL only is
 * spread over the random copies). */
uint32_t policy_route(const struct policy_cfg *cfg, uint32_t site_class, uint32_t gfp,
		      enum policy_kmalloc_type t);

/* include/linux/hash.h hash_64() on a 64-bit machine (hash_64_generic):
 * val * GOLDEN_RATIO_64, top bits. bits 1..64. */
uint64_t policy_hash_64(uint64_t val, unsigned bits);
/* The stand-in for the kernel's caller (_RET_IP_): XXH3-64 of the call
 * site's text, symbol+offset/size as the trace prints it. */
uint64_t policy_caller_of(const char *call_site);

/* Function addresses from a kernel's System.map ("ffffffff8112a0c0 T
 * __kmalloc_noprof"), sorted by name (strcmp); dup marks a name the map
 * holds more than once (static functions of the same name), whose address
 * a trace's symbol+offset cannot pick. */
struct policy_symbol {
	const char *name;
	uint64_t addr;
	bool dup;
};
struct policy_symtab {
	const struct policy_symbol *v;
	size_t n;
};
/* The address call_site ("func+0x3c/0x1a0", a ".constprop.0" clone name
 * included) stands for: func's address + 0x3c, which %pS printed from the
 * return address itself (mm/slub.c's trace_kmalloc(_RET_IP_, ...)). False
 * when t lacks func, holds it twice, or the text has no +offset. */
bool policy_symtab_caller(const struct policy_symtab *t, const char *call_site, uint64_t *out);
/* kmalloc_type()'s random copy of a normal kmalloc by caller under seed,
 * for nr copies (RANDOM_KMALLOC_CACHES_NR, 15): hash_64(caller ^ seed,
 * ilog2(nr + 1)). 0 = kmalloc-N. */
uint32_t policy_random_copy(uint64_t caller, uint64_t seed, uint32_t nr);

#endif
