/* test_pages_op.c - the page counts a policy keeps in place
 * (policy_ops.page_counts), which the engine reads around every event, are
 * stats()'s slab_pages and large_pages, for
 * every policy that has the op, after each step of a random mix of
 * kmallocs (small, and large ones that take whole pages) and frees. */
#include "check.h"
#include "policy.h"

#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>

enum { OPS = 20000, MAXLIVE = 4096 };

static void run(const struct policy_ops *ops, gsl_rng *rng)
{
	struct policy_cfg cfg;
	struct policy *p = NULL;
	struct err e;
	static struct policy_obj live[MAXLIVE];
	uint32_t nlive = 0;
	char name[128];
	policy_cfg_default(&cfg);
	cfg.kernel = POLICY_KERNEL_6_1;
	err_clear(&e);
	if (ops->create(&cfg, &p, &e)) {
		printf("# %s: %s\n", ops->name, e.msg);
		CHECK("policy created", false);
		return;
	}
	bool agree = true, calls_ok = true;
	uint64_t max_slab = 0, max_large = 0;
	for (int i = 0; i < OPS && agree && calls_ok; i++) {
		bool do_alloc = nlive == 0 || (nlive < MAXLIVE && gsl_rng_uniform(rng) < 0.55);
		if (do_alloc) {
			/* mostly small; one in 50 above the largest kmalloc cache */
			uint64_t size = gsl_rng_uniform(rng) < 0.02
						? 9000 + gsl_rng_uniform_int(rng, 40000)
						: 1 + gsl_rng_uniform_int(rng, 2048);
			struct policy_alloc_req r = {.cache = POLICY_KMALLOC,
						     .size = size,
						     .ktype = POLICY_KMALLOC_NORMAL,
						     .cpu = (uint32_t)gsl_rng_uniform_int(rng, 2),
						     .node = -1};
			calls_ok &= ops->alloc(p, &r, &live[nlive++], &e) == 0;
		} else {
			uint32_t j = (uint32_t)gsl_rng_uniform_int(rng, nlive);
			calls_ok &= ops->free(p, &live[j], (uint32_t)gsl_rng_uniform_int(rng, 2),
					      &e) == 0;
			live[j] = live[--nlive];
		}
		struct policy_stats st;
		ops->stats(p, &st);
		uint64_t slab = ops->page_counts(p)->slab, large = ops->page_counts(p)->large;
		agree &= slab == st.slab_pages && large == st.large_pages;
		if (slab > max_slab)
			max_slab = slab;
		if (large > max_large)
			max_large = large;
	}
	(void)snprintf(name, sizeof(name), "%s: %d kmalloc/kfree calls succeed", ops->name, OPS);
	CHECK(name, calls_ok);
	(void)snprintf(
		name, sizeof(name),
		"%s: page_counts() equals stats() after every call (peaks %llu slab, %llu large)",
		ops->name, (unsigned long long)max_slab, (unsigned long long)max_large);
	CHECK(name, agree && max_slab > 0);
	ops->destroy(p);
}

int main(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 5);
	int n = 0;
	for (const struct policy_ops *const *o = policy_table; *o; o++)
		if ((*o)->page_counts) {
			run(*o, rng);
			n++;
		}
	CHECK("slub, slab and slob keep their page counts in place",
	      n >= 3 && policy_find("slub")->page_counts && policy_find("slab")->page_counts &&
		      policy_find("slob")->page_counts);
	gsl_rng_free(rng);
	return check_done();
}
