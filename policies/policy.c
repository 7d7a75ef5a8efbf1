/* policy.c - the table of allocator models: a new model is one file and one
 * row here. Also what is common to them all: the guess of a traced cache's
 * creation and the checks of a request. */
#include "policies_int.h"

#include "layout.h"

#include <inttypes.h>
#include <string.h>

const struct policy_ops *const policy_table[] = {
	&slub_ops, &slab_ops, &slob_ops, &exact_ops, NULL,
};

const struct policy_ops *policy_find(const char *name)
{
	for (int i = 0; policy_table[i]; i++)
		if (strcmp(policy_table[i]->name, name) == 0)
			return policy_table[i];
	return NULL;
}

const struct policy_ops *policy_find_truth(enum policy_truth t)
{
	for (int i = 0; t != POLICY_TRUTH_NONE && policy_table[i]; i++)
		if (policy_table[i]->truth == t)
			return policy_table[i];
	return NULL;
}

bool policy_guess_spec(const struct policy_cfg *model, uint32_t object_size, uint32_t slot,
		       struct policy_cache_spec *spec)
{
	static const uint32_t flag_try[] = {0, POLICY_F_HWCACHE_ALIGN};
	struct policy_cfg rec;
	policy_cfg_default(&rec);
	rec.kernel = POLICY_KERNEL_6_1; /* the layout rules the recogniser knows */
	rec.nr_cpus = model->nr_cpus;
	rec.slub_debug = model->slub_debug;
	for (int pass = 0; pass < 2; pass++, rec.slub_debug = 0) {
		if (pass && !model->slub_debug)
			break;
		for (int ctor = 0; ctor < 2; ctor++) {
			for (size_t f = 0; f < 2; f++) {
				for (uint32_t align = 8; align <= 4096; align *= 2) {
					if (f && align > 8)
						break;
					struct policy_cache_spec t = *spec;
					t.object_size = object_size;
					t.flags = flag_try[f];
					t.align = align;
					t.ctor = ctor;
					struct policy_geom g;
					if (layout_slub(&rec, &t, &g, NULL) == 0 &&
					    g.size == slot) {
						*spec = t;
						return true;
					}
				}
			}
		}
	}
	return false;
}

__attribute__((cold)) int policy_check_alloc_fail(const struct policy *p,
						  const struct policy_alloc_req *r,
						  uint32_t nr_caches, struct err *e)
{
	if (r->cpu >= p->cfg.nr_cpus)
		return err_set(e, SLABSIM_EUSAGE, "CPU %u is not below --nr-cpus %u", r->cpu,
			       p->cfg.nr_cpus);
	if (r->cache == POLICY_KMALLOC) {
		if (r->size == 0 || r->size > LAYOUT_KMALLOC_MAX_SIZE)
			return err_set(e, SLABSIM_EUSAGE,
				       "kmalloc of %" PRIu64 " bytes: sizes are 1..%u", r->size,
				       LAYOUT_KMALLOC_MAX_SIZE);
	} else if (r->cache >= nr_caches) {
		return err_set(e, SLABSIM_EUSAGE, "no cache with id %u", r->cache);
	}
	return 0;
}

__attribute__((cold)) int policy_check_free_fail(const struct policy *p, const struct policy_obj *o,
						 uint32_t cpu, uint32_t nr_caches, struct err *e)
{
	if (cpu >= p->cfg.nr_cpus)
		return err_set(e, SLABSIM_EUSAGE, "CPU %u is not below --nr-cpus %u", cpu,
			       p->cfg.nr_cpus);
	if (o->cache != POLICY_NO_CACHE && o->cache >= nr_caches)
		return err_set(e, SLABSIM_EUSAGE, "no cache with id %u", o->cache);
	return 0;
}
