/* exact.c - the zero-overhead reference policy.
 *
 * Every allocation costs exactly the bytes requested: no size classes, no
 * slabs, no free slots. Addresses come from a bump pointer aligned to 8 (or,
 * under --align natural, to the size for power-of-two sizes) and are never
 * reused, so the engine can be tested alone (wlroots' headless backend) and
 * every other model's overhead can be read against it. "Pages" are the live
 * requested bytes rounded up to whole pages.
 */
#include "layout.h"
#include "policies_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct exact {
	struct policy base;
	uint64_t next_addr;
	uint64_t live_bytes, live_objs;
	uint32_t nr_caches;
};

#define EXACT_BASE 0xffff888100000000ULL

static int exact_create(const struct policy_cfg *cfg, struct policy **out, struct err *e)
{
	struct exact *x = calloc(1, sizeof(*x));
	if (!x)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	x->base.ops = &exact_ops;
	x->base.cfg = *cfg;
	x->next_addr = EXACT_BASE;
	x->nr_caches = 1; /* id 0: everything */
	*out = &x->base;
	return 0;
}

static void exact_destroy(struct policy *p)
{
	free(p);
}

static int exact_cache_create(struct policy *p, const struct policy_cache_spec *spec, uint32_t *id,
			      struct err *e)
{
	*id = 0;
	return 0;
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static int exact_alloc(struct policy *p, const struct policy_alloc_req *r, struct policy_obj *out,
		       struct err *e)
{
	struct exact *x = (struct exact *)p;
	uint64_t size = r->size;
	if (size == 0 || size > LAYOUT_KMALLOC_MAX_SIZE)
		return err_set(e, SLABSIM_EUSAGE,
			       "allocation of %" PRIu64 " bytes: sizes are 1..%u", size,
			       LAYOUT_KMALLOC_MAX_SIZE);
	uint64_t align = 8;
	if (r->cache == POLICY_KMALLOC && is_pow2(size))
		align = size > POLICY_PAGE_SIZE ? (p->cfg.align == POLICY_ALIGN_NONE ? 8 : size)
						: layout_kmalloc_align(&p->cfg, (uint32_t)size);
	if (r->cache == POLICY_KMALLOC && r->align_need &&
	    policy_need_bytes(r->align_need, size) > align)
		align = policy_need_bytes(r->align_need, size);
	x->next_addr = (x->next_addr + align - 1) & ~(align - 1);
	out->addr = x->next_addr;
	out->cache = 0;
	out->order = 0;
	out->bytes_alloc = size;
	out->size = size;
	out->slot_bytes = out->object_bytes = size;
	out->meta_bytes = 0;
	x->next_addr += size;
	x->live_bytes += size;
	x->live_objs++;
	return 0;
}

static int exact_free(struct policy *p, const struct policy_obj *o, uint32_t cpu, struct err *e)
{
	struct exact *x = (struct exact *)p;
	x->live_bytes -= o->size;
	x->live_objs--;
	return 0;
}

static uint32_t exact_nr_caches(const struct policy *p)
{
	return 1;
}

static void exact_cache_info(const struct policy *p, uint32_t id, struct policy_cache_info *out)
{
	const struct exact *x = (const struct exact *)p;
	memset(out, 0, sizeof(*out));
	out->name = "exact";
	out->inuse_objects = x->live_objs;
	out->nr_pages = (x->live_bytes + POLICY_PAGE_SIZE - 1) / POLICY_PAGE_SIZE;
}

static uint32_t exact_kmalloc_cache(const struct policy *p, uint64_t size,
				    enum policy_kmalloc_type t)
{
	return 0;
}

static uint64_t exact_kmalloc_bytes(const struct policy *p, uint64_t size,
				    enum policy_kmalloc_type t)
{
	return size;
}

static void exact_stats(const struct policy *p, struct policy_stats *out)
{
	const struct exact *x = (const struct exact *)p;
	memset(out, 0, sizeof(*out));
	out->slab_pages = (x->live_bytes + POLICY_PAGE_SIZE - 1) / POLICY_PAGE_SIZE;
}

static int exact_check(const struct policy *p, struct err *e)
{
	return 0;
}

const struct policy_ops exact_ops = {
	.name = "exact",
	.kmalloc_aligned = POLICY_KA_ALWAYS_ARG,
	.desc = "zero overhead: each object costs its requested bytes (baseline)",
	.settings = POLICY_SET_ALIGN,
	.create = exact_create,
	.destroy = exact_destroy,
	.cache_create = exact_cache_create,
	.alloc = exact_alloc,
	.free = exact_free,
	.nr_caches = exact_nr_caches,
	.cache_info = exact_cache_info,
	.kmalloc_cache = exact_kmalloc_cache,
	.kmalloc_bytes = exact_kmalloc_bytes,
	.stats = exact_stats,
	.check = exact_check,
};
