/* aligned.c - kmalloc_aligned() under the policies of options 1-3 of the
 * 2019 alignment debate, on top of any allocator's own operations.
 *
 * policy_alloc is the one entry point for allocations. Under a
 * policy_align_by_site() policy a kmalloc whose caller a sites file lists
 * (policy_alloc_req.align_need) is served as that policy says:
 *   own-caches   kmem_cache_create("<site>:<class>:a<align>", class, align)
 *                per (call site, kmalloc type, size class, alignment), with
 *                no merging: what XFS did before 5.4;
 *   merged       the same caches through the allocator's cache_create with
 *                its merge rules (find_mergeable in SLUB and SLAB; SLOB has
 *                no merging, so there it equals own-caches);
 *   kmalloc-aligned-caches   one extra kmalloc cache per (type, class,
 *                alignment), created as the allocator creates its kmalloc
 *                caches (their flags, usersize = size: never a merge
 *                target); SLOB, which has no kmalloc caches, passes the
 *                alignment to its __do_kmalloc_node instead;
 *   kmalloc-aligned-overalloc   kmalloc(size + align - 8) (every kmalloc is
 *                8-aligned, so align - 8 extra bytes always hold an aligned
 *                part) and the first aligned address in it handed out.
 * The layout of every cache made here is the allocator's own: its
 * cache_create applies calculate_alignment, slub_debug and the merge rules.
 * A request whose alignment need is at most 8 (ARCH_KMALLOC_MINALIGN), or
 * that the page allocator serves (naturally aligned blocks), is a plain
 * kmalloc. Everything else goes straight to ops->alloc.
 */
#include "policies_int.h"
#include "u64map.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct policy_aligned {
	struct u64map caches; /* cache key -> cache id + 1 */
};

void policy_destroy(struct policy *p)
{
	if (!p)
		return;
	if (p->aligned) {
		u64map_fini(&p->aligned->caches);
		free(p->aligned);
		p->aligned = NULL;
	}
	p->ops->destroy(p);
}

static uint32_t ilog2_u32(uint64_t x)
{
	uint32_t r = 0;
	while (x >>= 1)
		r++;
	return r;
}

/* The cache an aligned request of class bytes goes to, made on first use.
 * per_site: own-caches and merged (keyed by call site too), else the
 * extra kmalloc caches. */
static int aligned_cache(struct policy *p, const struct policy_alloc_req *r, uint32_t kcache,
			 uint32_t class, uint64_t need, bool per_site, uint32_t *id, struct err *e)
{
	enum policy_kmalloc_type t = layout_kmalloc_type(&p->cfg, r->ktype);
	uint64_t key = ((uint64_t)t << 24) | ((uint64_t)layout_fls(class) << 8) | ilog2_u32(need);
	if (per_site)
		key |= (uint64_t)r->site << 32 | 1ULL << 30;
	uint64_t v;
	if (!p->aligned) {
		if (!(p->aligned = calloc(1, sizeof(*p->aligned))))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		u64map_init(&p->aligned->caches);
	}
	if (u64map_get(&p->aligned->caches, key, &v)) {
		*id = (uint32_t)(v - 1);
		return 0;
	}
	/* the flags of the kmalloc cache the request would have used (its
	 * type's RECLAIM_ACCOUNT, CACHE_DMA, ACCOUNT; SLAB's HWCACHE_ALIGN),
	 * without the debug bits the allocator adds itself */
	uint32_t kflags = layout_kmalloc_flags(t);
	if (kcache != POLICY_NO_CACHE) {
		struct policy_cache_info ci;
		p->ops->cache_info(p, kcache, &ci);
		kflags = ci.g.flags & ~(uint32_t)POLICY_F_DEBUG_MASK;
	}
	char name[600], cls[16];
	if (class % 1024 == 0)
		(void)snprintf(cls, sizeof(cls), "%uk", class / 1024);
	else
		(void)snprintf(cls, sizeof(cls), "%u", class);
	struct policy_cache_spec spec = {
		.name = name,
		.object_size = class,
		.align = (uint32_t)need,
	};
	if (per_site) {
		(void)snprintf(name, sizeof(name), "%s:%s:a%" PRIu64 "%s",
			       r->site_name ? r->site_name : "?", cls, need,
			       t == POLICY_KMALLOC_RECLAIM  ? ":rcl"
			       : t == POLICY_KMALLOC_DMA    ? ":dma"
			       : t == POLICY_KMALLOC_CGROUP ? ":cg"
							    : "");
		spec.flags = kflags & LAYOUT_MERGE_SAME;
		spec.no_merge = p->cfg.align == POLICY_ALIGN_OWN_CACHES;
	} else {
		(void)snprintf(name, sizeof(name), "%skmalloc-%sa%" PRIu64 "-%s",
			       t == POLICY_KMALLOC_DMA ? "dma-" : "",
			       t == POLICY_KMALLOC_RECLAIM  ? "rcl-"
			       : t == POLICY_KMALLOC_CGROUP ? "cg-"
							    : "",
			       need, cls);
		spec.flags = kflags;
		spec.usersize = t == POLICY_KMALLOC_DMA ? 0 : class;
		spec.no_merge = true;
	}
	int rc = p->ops->cache_create(p, &spec, id, e);
	if (rc)
		return rc;
	if (u64map_put(&p->aligned->caches, key, (uint64_t)*id + 1))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	return 0;
}

static int plain(struct policy *p, const struct policy_alloc_req *r, struct policy_obj *out,
		 struct err *e)
{
	struct policy_alloc_req q = *r;
	q.align_need = 0;
	return p->ops->alloc(p, &q, out, e);
}

int policy_alloc_aligned(struct policy *p, const struct policy_alloc_req *r, struct policy_obj *out,
			 struct err *e)
{
	enum policy_align a = p->cfg.align;
	out->align_shift = out->frag_bytes = 0;
	if (!policy_align_by_site(a))
		return plain(p, r, out, e);
	if (p->ops->kmalloc_aligned == POLICY_KA_ALWAYS_ARG)
		return p->ops->alloc(p, r, out, e);
	uint64_t size = r->size;
	uint64_t need = policy_need_bytes(r->align_need, size);
	uint32_t kcache = p->ops->kmalloc_cache(p, size, r->ktype);
	uint64_t kbytes = p->ops->kmalloc_bytes(p, size, r->ktype);
	bool large = kcache == POLICY_NO_CACHE && kbytes % POLICY_PAGE_SIZE == 0;
	if (need <= 8 || large || size > LAYOUT_KMALLOC_MAX_SIZE)
		return plain(p, r, out, e);
	if (a == POLICY_ALIGN_OVERALLOC) {
		struct policy_alloc_req q = *r;
		q.align_need = 0;
		q.size = size + need - 8;
		if (q.size > LAYOUT_KMALLOC_MAX_SIZE)
			return plain(p, r, out, e);
		int rc = p->ops->alloc(p, &q, out, e);
		if (rc)
			return rc;
		uint64_t aligned = (out->addr + need - 1) & ~(need - 1);
		out->align_shift = (uint32_t)(aligned - out->addr);
		out->addr = aligned;
		out->size = size + need - 8;
		return 0;
	}
	if (a == POLICY_ALIGN_KMALLOC_CACHES && p->ops->kmalloc_aligned == POLICY_KA_ARG)
		return p->ops->alloc(p, r, out, e);
	/* the kmalloc size class: the kmalloc cache's object size, or for an
	 * allocator without kmalloc caches (SLOB) SLUB's classes */
	uint32_t class;
	if (kcache != POLICY_NO_CACHE) {
		struct policy_cache_info ci;
		p->ops->cache_info(p, kcache, &ci);
		class = ci.g.object_size;
	} else {
		uint32_t idx = layout_kmalloc_index(size);
		if (!idx)
			return plain(p, r, out, e);
		class = layout_kmalloc_size(idx);
	}
	uint32_t id;
	int rc = aligned_cache(p, r, kcache, class, need, a != POLICY_ALIGN_KMALLOC_CACHES, &id, e);
	if (rc)
		return rc;
	struct policy_alloc_req q = *r;
	q.align_need = 0;
	q.cache = id;
	return p->ops->alloc(p, &q, out, e);
}

int policy_free_shifted(struct policy *p, const struct policy_obj *o, uint32_t cpu, struct err *e)
{
	struct policy_obj q = *o;
	q.addr -= o->align_shift;
	return p->ops->free(p, &q, cpu, e);
}
