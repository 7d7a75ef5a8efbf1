/* test_policy_ops.c - the ops that carry what differs between allocators
 * (kmalloc_bytes, get_slabinfo, free_blocks, layout, settings, figures,
 * sysfs) and policy_guess_spec, for every row of policy_table.
 *
 * Expected figures are worked out by hand from the kernel rules
 * (kernel-slab-rules reference, mm/slub.c and mm/slab.c get_slabinfo of
 * v6.1) in the comment above each check, not taken from the model. The SLUB
 * and SLAB sequences are those of test_slub.c and test_slab.c, whose
 * comments derive the lists' contents step by step.
 */
#include "check.h"
#include "policy.h"

#include <stdlib.h>

static struct policy *create(const struct policy_ops *ops, enum policy_kernel kernel,
			     uint32_t nr_cpus)
{
	struct policy_cfg cfg;
	struct policy *p;
	struct err e;
	policy_cfg_default(&cfg);
	cfg.kernel = kernel;
	cfg.nr_cpus = nr_cpus;
	if (!ops || ops->create(&cfg, &p, &e)) {
		printf("Bail out! cannot create %s: %s\n", ops ? ops->name : "?",
		       ops ? e.msg : "no such policy");
		exit(1);
	}
	return p;
}

static struct policy_obj kmalloc_on(struct policy *p, uint64_t size, uint32_t cpu)
{
	struct policy_alloc_req r = {.cache = POLICY_KMALLOC, .size = size, .cpu = cpu, .node = -1};
	struct policy_obj o = {0};
	struct err e;
	if (p->ops->alloc(p, &r, &o, &e))
		printf("# kmalloc(%" PRIu64 ") failed: %s\n", size, e.msg);
	return o;
}

static void free_on(struct policy *p, const struct policy_obj *o, uint32_t cpu)
{
	struct err e;
	if (p->ops->free(p, o, cpu, &e))
		printf("# free failed: %s\n", e.msg);
}

static uint64_t kbytes(const struct policy *p, uint64_t size)
{
	return p->ops->kmalloc_bytes(p, size, POLICY_KMALLOC_NORMAL);
}

static struct policy_slabinfo slabinfo(const struct policy *p, uint64_t kmalloc_size)
{
	struct policy_slabinfo si;
	p->ops->get_slabinfo(p, p->ops->kmalloc_cache(p, kmalloc_size, POLICY_KMALLOC_NORMAL), &si);
	return si;
}

/* ---- kmalloc_bytes: the bytes_alloc the kernel traces ---- */

static void test_kmalloc_bytes(void)
{
	/* SLUB (x86_64, 6.1): kmalloc-96 has 96-byte slots; kmalloc-8k is the
	 * largest cache, so 4097 bytes take its 8192-byte slot (2 pages' worth);
	 * 8193 bytes go to kmalloc_large: get_order(8193) = 2, 16384 bytes; a
	 * MiB is order 8. */
	struct policy *p = create(policy_find("slub"), POLICY_KERNEL_6_1, 2);
	CHECK_EQ_U64("slub: kmalloc(65) -> kmalloc-96, 96", kbytes(p, 65), 96);
	CHECK_EQ_U64("slub: kmalloc(96) -> 96", kbytes(p, 96), 96);
	CHECK_EQ_U64("slub: kmalloc(1) -> kmalloc-8, 8", kbytes(p, 1), 8);
	CHECK_EQ_U64("slub: kmalloc(100) -> kmalloc-128", kbytes(p, 100), 128);
	CHECK_EQ_U64("slub: kmalloc(4097) -> kmalloc-8k, 8192", kbytes(p, 4097), 8192);
	CHECK_EQ_U64("slub: kmalloc(8193) -> order-2 pages", kbytes(p, 8193), 16384);
	CHECK_EQ_U64("slub: kmalloc(1 MiB) -> order 8", kbytes(p, 1u << 20), 1u << 20);
	p->ops->destroy(p);

	/* SLAB (5.4): kmalloc caches are HWCACHE_ALIGNed, so kmalloc-96's slot
	 * is 128 (align 64); 1..32 bytes use kmalloc-32; kmalloc-8192 holds
	 * 4097 bytes in 8192; caches go up to 4 MiB. */
	p = create(policy_find("slab"), POLICY_KERNEL_5_4, 2);
	CHECK_EQ_U64("slab: kmalloc(65) -> kmalloc-96, slot 128", kbytes(p, 65), 128);
	CHECK_EQ_U64("slab: kmalloc(1) -> kmalloc-32", kbytes(p, 1), 32);
	CHECK_EQ_U64("slab: kmalloc(4097) -> kmalloc-8192", kbytes(p, 4097), 8192);
	CHECK_EQ_U64("slab: kmalloc(4 MiB) -> kmalloc-4M", kbytes(p, 4u << 20), 4u << 20);
	p->ops->destroy(p);

	/* SLOB: size + the 8-byte header below PAGE_SIZE - 8 = 4088, whole
	 * pages from there (no header). */
	p = create(policy_find("slob"), POLICY_KERNEL_5_4, 2);
	CHECK_EQ_U64("slob: kmalloc(100) -> 108", kbytes(p, 100), 108);
	CHECK_EQ_U64("slob: kmalloc(4087) -> 4095", kbytes(p, 4087), 4095);
	CHECK_EQ_U64("slob: kmalloc(4088) -> a page", kbytes(p, 4088), 4096);
	CHECK_EQ_U64("slob: kmalloc(4097) -> 2 pages", kbytes(p, 4097), 8192);
	p->ops->destroy(p);

	p = create(policy_find("exact"), POLICY_KERNEL_5_4, 2);
	CHECK_EQ_U64("exact: kmalloc(100) -> 100", kbytes(p, 100), 100);
	CHECK_EQ_U64("exact: kmalloc(4097) -> 4097", kbytes(p, 4097), 4097);
	p->ops->destroy(p);

	/* The contract: what alloc() traces for the same request, in every
	 * policy, both kernels, across the size classes and their edges. */
	static const uint64_t sizes[] = {1,    8,    9,	   64,	  65,	 96,	   97,
					 128,  192,  193,  1000,  4087,	 4088,	   4096,
					 4097, 8192, 8193, 12289, 65536, 1u << 20, 4u << 20};
	for (int i = 0; policy_table[i]; i++) {
		for (int k = 0; k < 2; k++) {
			p = create(policy_table[i], k ? POLICY_KERNEL_6_1 : POLICY_KERNEL_5_4, 2);
			int bad = 0;
			for (size_t j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
				struct policy_obj o = kmalloc_on(p, sizes[j], 0);
				if (o.bytes_alloc != kbytes(p, sizes[j])) {
					printf("#   %s: kmalloc(%" PRIu64 ") traces %" PRIu64
					       ", kmalloc_bytes says %" PRIu64 "\n",
					       p->ops->name, sizes[j], o.bytes_alloc,
					       kbytes(p, sizes[j]));
					bad++;
				}
			}
			char name[96];
			(void)snprintf(name, sizeof(name),
				       "%s %s: kmalloc_bytes = alloc's bytes_alloc",
				       policy_table[i]->name, k ? "6.1" : "5.4");
			CHECK(name, bad == 0);
			p->ops->destroy(p);
		}
	}
}

/* ---- get_slabinfo ---- */

/* SLUB 6.1, kmalloc-64 (64 objects per order-0 slab, cpu_partial 4 slabs):
 * 384 kmallocs on CPU 0 fill S1..S6. One free per slab S1..S5 on CPU 1:
 * each full slab goes to CPU 1's partial stack; pushing S5 finds 4 slabs
 * there and unfreezes S1..S4 to the node partial list. get_slabinfo counts
 * every slot not free on a node-partial slab as active: the free slot of
 * S5 (CPU 1's partial) is active, those of S1..S4 are not. */
static void test_slabinfo_slub(void)
{
	static struct policy_obj o[6][64];
	struct policy *p = create(policy_find("slub"), POLICY_KERNEL_6_1, 2);
	for (int s = 0; s < 6; s++)
		for (int i = 0; i < 64; i++)
			o[s][i] = kmalloc_on(p, 64, 0);
	struct policy_slabinfo si = slabinfo(p, 64);
	CHECK_EQ_U64("slub: 6 full slabs: num_objs 384", si.num_objs, 384);
	CHECK_EQ_U64("slub: 6 full slabs: active_objs 384", si.active_objs, 384);
	for (int s = 0; s < 5; s++)
		free_on(p, &o[s][0], 1);
	si = slabinfo(p, 64);
	CHECK_EQ_U64("slub: num_objs 6 * 64", si.num_objs, 384);
	CHECK_EQ_U64("slub: active_objs 384 - 4 free on node-partial S1..S4", si.active_objs, 380);
	CHECK_EQ_U64("slub: num_slabs 6", si.num_slabs, 6);
	CHECK_EQ_U64("slub: every slab active", si.active_slabs, 6);
	CHECK_EQ_U64("slub: objperslab 64", si.objects_per_slab, 64);
	CHECK_EQ_U64("slub: order 0", si.cache_order, 0);
	CHECK("slub: no tunables, no shared array",
	      si.limit == 0 && si.batchcount == 0 && si.shared == 0 && si.shared_avail == 0);
	p->ops->destroy(p);
}

/* SLAB 5.4, kmalloc-64: 64 objects per order-0 slab, limit 120, batchcount
 * 60; shared factor 8 with 2 CPUs (none with 1), shared array 8 * 60.
 * 128 kmallocs on CPU 0 fill two slabs (16 from an untouched refill, the
 * other 48 of S1, 60 of S2 and later its last 4): h1..h64 are S1's. */
static void test_slabinfo_slab(void)
{
	static struct policy_obj h[129];

	/* 1 CPU, no shared array. CPU 0 frees all 128: frees 1..120 fill its
	 * array (limit 120); free 121 flushes the oldest 60 (h1..h60, all
	 * S1's) to S1, then 121..128 are pushed: 68 in the array. S1 has 60
	 * free on the node (partial), S2 none. active_objs = 128 - 60: the 68
	 * parked in the array count as active although none is live. */
	struct policy *p = create(policy_find("slab"), POLICY_KERNEL_5_4, 1);
	for (int i = 1; i <= 128; i++)
		h[i] = kmalloc_on(p, 64, 0);
	for (int i = 1; i <= 128; i++)
		free_on(p, &h[i], 0);
	struct policy_slabinfo si = slabinfo(p, 64);
	CHECK_EQ_U64("slab 1 CPU: num_objs 128", si.num_objs, 128);
	CHECK_EQ_U64("slab 1 CPU: active_objs 128 - 60 flushed", si.active_objs, 68);
	CHECK_EQ_U64("slab 1 CPU: num_slabs 2", si.num_slabs, 2);
	CHECK_EQ_U64("slab 1 CPU: no slab on slabs_free", si.active_slabs, 2);
	CHECK_EQ_U64("slab 1 CPU: limit 120", si.limit, 120);
	CHECK_EQ_U64("slab 1 CPU: batchcount 60", si.batchcount, 60);
	CHECK_EQ_U64("slab 1 CPU: shared factor 0", si.shared, 0);
	CHECK_EQ_U64("slab 1 CPU: sharedavail 0", si.shared_avail, 0);
	CHECK_EQ_U64("slab 1 CPU: objperslab 64", si.objects_per_slab, 64);
	CHECK_EQ_U64("slab 1 CPU: order 0", si.cache_order, 0);
	p->ops->destroy(p);

	/* 2 CPUs: CPU 1 frees all 128. Free 121 flushes h1..h60 to the shared
	 * array (room 480) instead: nothing reaches a slab, CPU 1 holds 68,
	 * the shared array 60. */
	p = create(policy_find("slab"), POLICY_KERNEL_5_4, 2);
	for (int i = 1; i <= 128; i++)
		h[i] = kmalloc_on(p, 64, 0);
	for (int i = 1; i <= 128; i++)
		free_on(p, &h[i], 1);
	si = slabinfo(p, 64);
	CHECK_EQ_U64("slab 2 CPUs: active_objs 128 (all in arrays)", si.active_objs, 128);
	CHECK_EQ_U64("slab 2 CPUs: sharedavail 60", si.shared_avail, 60);
	CHECK_EQ_U64("slab 2 CPUs: shared factor 8", si.shared, 8);
	CHECK_EQ_U64("slab 2 CPUs: active_slabs 2", si.active_slabs, 2);
	p->ops->destroy(p);
}

/* ---- free_blocks (SLOB) ---- */

/* A kmalloc(100) on a fresh SLOB takes a 108-byte block (54 units of 2
 * bytes) at the start of a new page on the small list: the rest, 2048 - 54
 * units = 3988 bytes, is one free block. */
static void test_free_blocks(void)
{
	struct policy *p = create(policy_find("slob"), POLICY_KERNEL_5_4, 2);
	struct policy_free_blocks fb;
	p->ops->free_blocks(p, &fb);
	CHECK("slob: nothing free before any allocation",
	      fb.bytes == 0 && fb.blocks == 0 && fb.pages == 0);
	struct policy_obj o = kmalloc_on(p, 100, 0);
	p->ops->free_blocks(p, &fb);
	CHECK_EQ_U64("slob: 3988 free bytes", fb.bytes, 3988);
	CHECK_EQ_U64("slob: one free block", fb.blocks, 1);
	CHECK_EQ_U64("slob: on one page", fb.pages, 1);
	free_on(p, &o, 0);
	p->ops->destroy(p);
}

/* ---- the rows: capabilities agree with the ops present ---- */

static void test_rows(void)
{
	for (int i = 0; policy_table[i]; i++) {
		const struct policy_ops *o = policy_table[i];
		char name[96];
		(void)snprintf(name, sizeof(name), "%s: has kmalloc_bytes", o->name);
		CHECK(name, o->kmalloc_bytes != NULL);
		(void)snprintf(name, sizeof(name),
			       "%s: a sysfs or slabinfo truth only with layout and get_slabinfo",
			       o->name);
		CHECK(name, (o->truth != POLICY_TRUTH_SYSFS && o->truth != POLICY_TRUTH_SLABINFO) ||
				    (o->layout && o->get_slabinfo));
		(void)snprintf(name, sizeof(name), "%s: slab figures only with a layout", o->name);
		CHECK(name, !(o->figures & POLICY_FIG_SIZE) == !o->layout);
		(void)snprintf(name, sizeof(name), "%s: found by its name", o->name);
		CHECK(name, policy_find(o->name) == o);
	}
	const struct policy_ops *slub = policy_find("slub"), *slab = policy_find("slab");
	const struct policy_ops *slob = policy_find("slob"), *exact = policy_find("exact");
	CHECK("the kernel's ground truth: SLUB sysfs, SLAB slabinfo, SLOB meminfo, exact none",
	      slub->truth == POLICY_TRUTH_SYSFS && slab->truth == POLICY_TRUTH_SLABINFO &&
		      slob->truth == POLICY_TRUTH_MEMINFO && exact->truth == POLICY_TRUTH_NONE);
	CHECK("policy_find_truth finds each",
	      policy_find_truth(POLICY_TRUTH_SYSFS) == slub &&
		      policy_find_truth(POLICY_TRUTH_SLABINFO) == slab &&
		      policy_find_truth(POLICY_TRUTH_MEMINFO) == slob &&
		      !policy_find_truth(POLICY_TRUTH_NONE));
	CHECK("SLOB and exact have no /proc/slabinfo", !slob->get_slabinfo && !exact->get_slabinfo);
	CHECK("only SLOB keeps free blocks",
	      slob->free_blocks && !slub->free_blocks && !slab->free_blocks && !exact->free_blocks);
	CHECK("slub_debug is read by SLUB alone",
	      (slub->settings & POLICY_SET_SLUB_DEBUG) &&
		      !(slab->settings & POLICY_SET_SLUB_DEBUG) &&
		      !(slob->settings & POLICY_SET_SLUB_DEBUG) &&
		      !(exact->settings & POLICY_SET_SLUB_DEBUG));
	CHECK("slab_debug and slab_max_order by SLAB alone",
	      (slab->settings & POLICY_SET_SLAB_DEBUG) &&
		      (slab->settings & POLICY_SET_SLAB_MAX_ORDER) &&
		      !(slub->settings & (POLICY_SET_SLAB_DEBUG | POLICY_SET_SLAB_MAX_ORDER)));
	CHECK("cpu_partial by SLUB alone",
	      (slub->settings & POLICY_SET_CPU_PARTIAL) &&
		      !((slab->settings | slob->settings | exact->settings) &
			POLICY_SET_CPU_PARTIAL));
	CHECK("every allocator reads align", (slub->settings & slab->settings & slob->settings &
					      exact->settings & POLICY_SET_ALIGN) != 0);
	CHECK("SLUB shows min_partial, SLAB its tunables",
	      (slub->figures & POLICY_FIG_MIN_PARTIAL) && !(slub->figures & POLICY_FIG_LIMIT) &&
		      (slab->figures & POLICY_FIG_LIMIT) &&
		      !(slab->figures & POLICY_FIG_MIN_PARTIAL));
	CHECK_EQ_STR("the default allocator", policy_find(POLICY_DEFAULT_NAME)->name, "slub");
}

/* ---- layout ---- */

/* A 64-byte object aligned to 8: SLUB 6.1 puts the free pointer inside it
 * (size 64), 64 per order-0 slab; SLAB 5.4 keeps the freelist in a free
 * object (OBJFREELIST), so also 64 of 64 bytes per page. */
static void test_layout(void)
{
	struct policy_cfg cfg;
	struct policy_geom g;
	struct err e;
	struct policy_cache_spec spec = {.name = "t64", .object_size = 64, .align = 8};
	policy_cfg_default(&cfg);
	cfg.kernel = POLICY_KERNEL_6_1;
	int rc = policy_find("slub")->layout(&cfg, &spec, &g, &e);
	CHECK("slub layout of 64 bytes",
	      rc == 0 && g.size == 64 && g.objs_per_slab == 64 && g.order == 0);
	cfg.kernel = POLICY_KERNEL_5_4;
	rc = policy_find("slab")->layout(&cfg, &spec, &g, &e);
	CHECK("slab layout of 64 bytes", rc == 0 && g.size == 64 && g.objs_per_slab == 64 &&
						 g.order == 0 &&
						 g.freelist_mode == POLICY_FREELIST_OBJ);
	spec.object_size = 0;
	CHECK("slub layout refuses object_size 0",
	      policy_find("slub")->layout(&cfg, &spec, &g, &e) == SLABSIM_EUSAGE);
}

/* ---- policy_guess_spec ---- */

static void test_guess(void)
{
	struct policy_cfg model;
	policy_cfg_default(&model);
	struct policy_cache_spec s = {.name = "x", .usersize = 24, .no_merge = true};

	/* 64 in 64: plain, align 8, the first tried */
	CHECK("64/64 guessed", policy_guess_spec(&model, 64, 64, &s));
	CHECK("64/64: plain, align 8",
	      s.object_size == 64 && s.align == 8 && s.flags == 0 && !s.ctor);
	CHECK("the spec's other fields kept", s.usersize == 24 && s.no_merge);

	/* 64 in 128: without a constructor, align 8..64 all give 64; align
	 * 128 gives ALIGN(64, 128) = 128, found before HWCACHE_ALIGN */
	CHECK("64/128 guessed", policy_guess_spec(&model, 64, 128, &s));
	CHECK("64/128: align 128", s.align == 128 && s.flags == 0 && !s.ctor);

	/* 64 in 72: only a constructor moves the free pointer out of the
	 * object: 64 + 8 */
	CHECK("64/72 guessed", policy_guess_spec(&model, 64, 72, &s));
	CHECK("64/72: constructor, align 8", s.ctor && s.align == 8 && s.flags == 0);

	/* 64 in 65: no creation gives an odd slot; spec untouched */
	s.align = 4242;
	CHECK("64/65 not guessed", !policy_guess_spec(&model, 64, 65, &s));
	CHECK("64/65: spec untouched", s.align == 4242);
}

int main(void)
{
	test_kmalloc_bytes();
	test_slabinfo_slub();
	test_slabinfo_slab();
	test_free_blocks();
	test_rows();
	test_layout();
	test_guess();
	return check_done();
}
