/* test_slub.c - SLUB dynamics on hand-made alloc/free sequences.
 *
 * Every expected figure below is worked out by hand from the kernel rules
 * (reference section 3.5) in the comment above its check, not taken from the
 * model's output.
 */
#include "check.h"
#include "layout.h"
#include "policy.h"

#include <stdlib.h>

struct fixture {
	struct policy *p;
	const struct policy_ops *ops;
	uint32_t k64; /* kmalloc-64 */
};

static void setup(struct fixture *f, enum policy_kernel kernel, uint32_t debug, bool cpu_partial)
{
	struct policy_cfg cfg;
	struct err e;
	policy_cfg_default(&cfg);
	cfg.kernel = kernel;
	cfg.slub_debug = debug;
	cfg.cpu_partial = cpu_partial;
	f->ops = policy_find("slub");
	if (!f->ops || f->ops->create(&cfg, &f->p, &e)) {
		printf("Bail out! cannot create slub: %s\n", e.msg);
		exit(1);
	}
	f->k64 = f->ops->kmalloc_cache(f->p, 64, POLICY_KMALLOC_NORMAL);
}

static struct policy_obj kmalloc64(struct fixture *f, uint32_t cpu)
{
	struct policy_alloc_req r = {.cache = POLICY_KMALLOC, .size = 64, .cpu = cpu, .node = -1};
	struct policy_obj o = {0};
	struct err e;
	if (f->ops->alloc(f->p, &r, &o, &e))
		printf("# alloc failed: %s\n", e.msg);
	return o;
}

static void kfree_on(struct fixture *f, const struct policy_obj *o, uint32_t cpu)
{
	struct err e;
	if (f->ops->free(f->p, o, cpu, &e))
		printf("# free failed: %s\n", e.msg);
}

static struct policy_cache_info info64(struct fixture *f)
{
	struct policy_cache_info ci;
	f->ops->cache_info(f->p, f->k64, &ci);
	return ci;
}

static void check_ok(struct fixture *f, const char *name)
{
	struct err e;
	int rc = f->ops->check(f->p, &e);
	CHECK(name, rc == 0);
	if (rc)
		printf("#   %s\n", e.msg);
}

/* kmalloc-64: 64 objects per order-0 slab, min_partial 5; cpu_partial is 30
 * objects under 5.4 and 120 objects = ceil(2*120/64) = 4 slabs under 6.1. */
static void test_cpu_partial_drain(enum policy_kernel kernel)
{
	struct fixture f;
	static struct policy_obj o[6][64];
	bool v61 = kernel == POLICY_KERNEL_6_1;
	setup(&f, kernel, 0, true);

	/* 384 allocations on CPU 0 fill slabs S1..S6 exactly: 6 pages */
	for (int s = 0; s < 6; s++)
		for (int i = 0; i < 64; i++)
			o[s][i] = kmalloc64(&f, 0);
	struct policy_cache_info ci = info64(&f);
	CHECK_EQ_U64(v61 ? "6.1: 384 allocs -> 6 slabs" : "5.4: 384 allocs -> 6 slabs", ci.nr_slabs,
		     6);
	CHECK_EQ_U64("first object at a page boundary", o[0][0].addr % 4096, 0);
	CHECK_EQ_U64("objects in address order", o[0][1].addr - o[0][0].addr, 64);

	/* One free per full slab S1..S5 on CPU 1: each is frozen onto CPU 1's
	 * partial stack. 6.1: the push of S5 finds 4 slabs >= cpu_partial_slabs
	 * 4 and unfreezes S1..S4 to the node list first. 5.4: pobjects reaches
	 * 1..5, never above 30: no drain. */
	for (int s = 0; s < 5; s++)
		kfree_on(&f, &o[s][0], 1);
	ci = info64(&f);
	CHECK_EQ_U64("node partial after 5 remote frees", ci.nr_partial, v61 ? 4 : 0);
	CHECK_EQ_U64("cpu slabs + cpu partial", ci.cpu_slabs, v61 ? 2 : 6);
	CHECK_EQ_U64("free objects on node partial slabs", ci.free_in_partial, v61 ? 4 : 0);
	CHECK_EQ_U64("pages unchanged", ci.nr_pages, 6);
	check_ok(&f, "invariants after remote frees");

	/* Empty S1 completely from CPU 1. 6.1: S1 is on the node list and
	 * nr_partial 4 < min_partial 5, so it stays. 5.4: S1 is frozen on CPU
	 * 1's stack: never freed there. Either way 6 pages. */
	for (int i = 1; i < 64; i++)
		kfree_on(&f, &o[0][i], 1);
	ci = info64(&f);
	CHECK_EQ_U64("empty slab kept below min_partial", ci.nr_pages, 6);
	CHECK_EQ_U64("live objects", ci.inuse_objects, 384 - 64 - 4);
	check_ok(&f, "invariants after emptying S1");
	f.ops->destroy(f.p);
}

/* CONFIG_SLUB_CPU_PARTIAL=n: a free into a full slab puts it on the node
 * partial tail; a slab that becomes empty is freed once nr_partial (itself
 * included) >= min_partial 5. */
static void test_min_partial(void)
{
	struct fixture f;
	static struct policy_obj o[7][64];
	setup(&f, POLICY_KERNEL_5_4, 0, false);
	for (int s = 0; s < 7; s++)
		for (int i = 0; i < 64; i++)
			o[s][i] = kmalloc64(&f, 0);
	CHECK_EQ_U64("7 slabs", info64(&f).nr_pages, 7);
	for (int s = 0; s < 6; s++)
		kfree_on(&f, &o[s][0], 1);
	CHECK_EQ_U64("6 slabs on node partial", info64(&f).nr_partial, 6);
	/* S1 empties with nr_partial 6 >= 5: freed */
	for (int i = 1; i < 64; i++)
		kfree_on(&f, &o[0][i], 1);
	CHECK_EQ_U64("S1 freed", info64(&f).nr_pages, 6);
	CHECK_EQ_U64("5 left on node partial", info64(&f).nr_partial, 5);
	/* S2 empties with nr_partial 5 >= 5: freed */
	for (int i = 1; i < 64; i++)
		kfree_on(&f, &o[1][i], 1);
	CHECK_EQ_U64("S2 freed", info64(&f).nr_pages, 5);
	/* S3 empties with nr_partial 4 < 5: kept */
	for (int i = 1; i < 64; i++)
		kfree_on(&f, &o[2][i], 1);
	CHECK_EQ_U64("S3 kept", info64(&f).nr_pages, 5);
	CHECK_EQ_U64("4 on node partial", info64(&f).nr_partial, 4);
	struct policy_cache_info ci = info64(&f);
	CHECK_EQ_U64("slabs allocated so far", ci.slabs_allocated, 7);
	CHECK_EQ_U64("slabs freed so far", ci.slabs_freed, 2);
	/* slabinfo active_objs = total - free on node partial:
	 * 5 slabs * 64 - (64 + 1 + 1 + 1) */
	CHECK_EQ_U64("slabinfo active objects", ci.total_objects - ci.free_in_partial, 5 * 64 - 67);
	check_ok(&f, "invariants (min_partial)");
	f.ops->destroy(f.p);
}

/* Debug caches take every allocation through the slow path and deactivate
 * at once. slub_debug=F leaves kmalloc-64's layout alone (64 per slab). 5.4
 * pushes the rest of the freelist back one by one (reversing it): objects
 * come out 0, 63, 1, 62, ...; 6.1 splices it: 0, 1, 2, ... */
static void test_debug_order(enum policy_kernel kernel)
{
	struct fixture f;
	setup(&f, kernel, POLICY_F_CONSISTENCY, true);
	struct policy_obj a = kmalloc64(&f, 0), b = kmalloc64(&f, 0), c = kmalloc64(&f, 1);
	bool v61 = kernel == POLICY_KERNEL_6_1;
	CHECK_EQ_U64("debug: first object index", (a.addr % 4096) / 64, 0);
	CHECK_EQ_U64("debug: second object index", (b.addr % 4096) / 64, v61 ? 1 : 63);
	CHECK_EQ_U64("debug: third object index (other CPU, same slab)", (c.addr % 4096) / 64,
		     v61 ? 2 : 1);
	struct policy_cache_info ci = info64(&f);
	CHECK_EQ_U64("debug: cpu_partial is 0", ci.g.cpu_partial, 0);
	CHECK_EQ_U64("debug: no cpu slabs", ci.cpu_slabs, 0);
	CHECK_EQ_U64("debug: the slab is on the node partial list", ci.nr_partial, 1);
	/* fill the slab (61 more), then one more makes a second slab */
	for (int i = 0; i < 62; i++)
		(void)kmalloc64(&f, 0);
	ci = info64(&f);
	CHECK_EQ_U64("debug: 65 objects need 2 slabs", ci.nr_slabs, 2);
	CHECK_EQ_U64("debug: full slab leaves the partial list", ci.nr_partial, 1);
	kfree_on(&f, &a, 0);
	ci = info64(&f);
	CHECK_EQ_U64("debug: a free into a full slab puts it back on partial", ci.nr_partial, 2);
	check_ok(&f, "debug invariants");
	f.ops->destroy(f.p);
}

/* Large kmallocs go to the page allocator: 8193 bytes -> order 2 (16 KiB). */
static void test_large(void)
{
	struct fixture f;
	struct err e;
	setup(&f, POLICY_KERNEL_6_1, 0, true);
	struct policy_alloc_req r = {.cache = POLICY_KMALLOC, .size = 8193, .cpu = 0, .node = -1};
	struct policy_obj o;
	CHECK("large kmalloc succeeds", f.ops->alloc(f.p, &r, &o, &e) == 0);
	CHECK_EQ_U64("large kmalloc has no cache", o.cache, POLICY_NO_CACHE);
	CHECK_EQ_U64("large kmalloc bytes_alloc", o.bytes_alloc, 16384);
	CHECK_EQ_U64("large kmalloc is order-aligned", o.addr % 16384, 0);
	struct policy_stats st;
	f.ops->stats(f.p, &st);
	CHECK_EQ_U64("large pages", st.large_pages, 4);
	CHECK("free of large", f.ops->free(f.p, &o, 1, &e) == 0);
	f.ops->stats(f.p, &st);
	CHECK_EQ_U64("large pages after free", st.large_pages, 0);
	CHECK_EQ_U64("buddy pages after free", st.buddy_pages, 0);
	r.size = (1u << 22) + 1;
	CHECK("kmalloc above 4 MiB is refused", f.ops->alloc(f.p, &r, &o, &e) == SLABSIM_EUSAGE);
	f.ops->destroy(f.p);
}

/* Merging (find_mergeable): a 60-byte cache without flags aliases a 64-byte
 * one (size 64, 64 - 64 < 8); an 80-byte one does not (size 80 > 64). */
static void test_merge(void)
{
	struct fixture f;
	struct err e;
	setup(&f, POLICY_KERNEL_5_4, 0, true);
	struct policy_cache_spec a = {.name = "a64", .object_size = 64};
	struct policy_cache_spec b = {.name = "b60", .object_size = 60};
	struct policy_cache_spec c = {.name = "c60ctor", .object_size = 60, .ctor = true};
	uint32_t ia, ib, ic;
	CHECK("create a64", f.ops->cache_create(f.p, &a, &ia, &e) == 0);
	CHECK("create b60", f.ops->cache_create(f.p, &b, &ib, &e) == 0);
	CHECK("create c60ctor", f.ops->cache_create(f.p, &c, &ic, &e) == 0);
	struct policy_cache_info ci;
	f.ops->cache_info(f.p, ib, &ci);
	CHECK_EQ_U64("b60 aliases a64", ci.alias_of, ia);
	f.ops->cache_info(f.p, ic, &ci);
	CHECK_EQ_U64("a cache with a ctor is never merged", ci.alias_of, ic);
	f.ops->destroy(f.p);
	/* with slub_debug=Z nothing merges */
	setup(&f, POLICY_KERNEL_5_4, POLICY_F_RED_ZONE, true);
	CHECK("create a64 (Z)", f.ops->cache_create(f.p, &a, &ia, &e) == 0);
	CHECK("create b60 (Z)", f.ops->cache_create(f.p, &b, &ib, &e) == 0);
	f.ops->cache_info(f.p, ib, &ci);
	CHECK_EQ_U64("slub_debug=Z disables merging", ci.alias_of, ib);
	f.ops->destroy(f.p);
}

/* Start state (a slabinfo before the trace): 70 live objects in 3 slabs of
 * kmalloc-64 (64 per slab) = one full slab + one with 6 objects on the node
 * partial list (58 free) + one empty slab there (64 free). Freeing the 6
 * objects of the second slab empties it: 2 partial slabs < min_partial 5, so
 * it stays; the first allocation on CPU 0 then takes a node-partial slab. */
static void test_prepopulate(void)
{
	struct fixture f;
	struct err e;
	setup(&f, POLICY_KERNEL_6_1, 0, true);
	struct policy_obj *objs = calloc(70, sizeof(*objs));
	struct policy_start st = {.active_objs = 70, .nr_slabs = 3};
	uint64_t nlive = 0;
	int rc = f.ops->prepopulate(f.p, f.k64, &st, objs, &nlive, &e);
	CHECK_EQ_U64("prepopulate: 70 live", nlive, 70);
	CHECK_EQ_U64("prepopulate: succeeds", rc, 0);
	struct policy_cache_info ci = info64(&f);
	CHECK_EQ_U64("prepopulate: 3 slabs", ci.nr_slabs, 3);
	CHECK_EQ_U64("prepopulate: 70 in use", ci.inuse_objects, 70);
	CHECK_EQ_U64("prepopulate: 2 node-partial slabs", ci.nr_partial, 2);
	CHECK_EQ_U64("prepopulate: 58 + 64 free on them", ci.free_in_partial, 122);
	CHECK_EQ_U64("prepopulate: objects in slab 1 and 2 (addresses 64 apart)",
		     objs[69].addr - objs[0].addr, 69 * 64);
	check_ok(&f, "prepopulate: invariants");
	for (int i = 64; i < 70; i++)
		kfree_on(&f, &objs[i], 0);
	ci = info64(&f);
	CHECK_EQ_U64("prepopulate: emptied slab kept (min_partial)", ci.nr_slabs, 3);
	CHECK_EQ_U64("prepopulate: 64 in use", ci.inuse_objects, 64);
	check_ok(&f, "prepopulate: invariants after frees");
	(void)kmalloc64(&f, 0);
	CHECK_EQ_U64("prepopulate: an allocation reuses a partial slab", info64(&f).nr_slabs, 3);
	st.active_objs = 200;
	rc = f.ops->prepopulate(f.p, f.k64, &st, objs, &nlive, &e);
	CHECK("prepopulate: 200 objects do not fit 3 slabs", rc == SLABSIM_EUSAGE);
	free(objs);
	f.ops->destroy(f.p);
}

/* Start state slab by slab (start_slab), kmalloc-64, 64 objects a slab,
 * 2 CPUs, 6.1:
 *   A  CPU 0's slab, 60 live, 4 free (on CPU 0's freelist)
 *   B  CPU 1's partial stack, 63 live, 1 free
 *   C  node partial, 10 live, 54 free
 *   D  full, 64 live.
 * slabinfo counts free only what is free on node-partial slabs: 54, so
 * active = 256 - 54 = 202 while 197 are live. Four allocations on CPU 0 take
 * A's four free slots (no new slab); the fifth finds A full, no per-CPU
 * partial on CPU 0, and takes C from the node list: still 4 slabs. On CPU 1,
 * one allocation finds no CPU slab, takes B from its partial stack, its one
 * free slot: 4 slabs. */
static void test_start_slab(void)
{
	struct fixture f;
	struct err e;
	uint64_t base;
	setup(&f, POLICY_KERNEL_6_1, 0, true);
	static struct policy_obj objs[4][64];
	const struct policy_start_slab ss[4] = {
		{.where = POLICY_START_CPU, .cpu = 0, .inuse = 60},
		{.where = POLICY_START_CPU_PARTIAL, .cpu = 1, .inuse = 63},
		{.where = POLICY_START_NODE_PARTIAL, .inuse = 10},
		{.where = POLICY_START_FULL, .inuse = 64},
	};
	for (int i = 0; i < 4; i++)
		CHECK_EQ_U64("start_slab: succeeds",
			     f.ops->start_slab(f.p, f.k64, &ss[i], &base, objs[i], &e), 0);
	CHECK_EQ_U64("start_slab: base is the first object's slab", base, objs[3][0].addr);
	struct policy_cache_info ci = info64(&f);
	struct policy_slabinfo si;
	f.ops->get_slabinfo(f.p, f.k64, &si);
	CHECK_EQ_U64("start_slab: 4 slabs", ci.nr_slabs, 4);
	CHECK_EQ_U64("start_slab: 197 live", ci.inuse_objects, 197);
	CHECK_EQ_U64("start_slab: 2 slabs held by CPUs", ci.cpu_slabs, 2);
	CHECK_EQ_U64("start_slab: 1 node-partial slab, 54 free", ci.free_in_partial, 54);
	CHECK_EQ_U64("start_slab: slabinfo active 202", si.active_objs, 202);
	check_ok(&f, "start_slab: invariants");
	for (int i = 0; i < 4; i++)
		(void)kmalloc64(&f, 0);
	CHECK_EQ_U64("start_slab: CPU 0 uses its slab's 4 free slots", info64(&f).nr_slabs, 4);
	(void)kmalloc64(&f, 0);
	ci = info64(&f);
	CHECK_EQ_U64("start_slab: then the node-partial slab", ci.nr_slabs, 4);
	CHECK_EQ_U64("start_slab: node list empty", ci.nr_partial, 0);
	(void)kmalloc64(&f, 1);
	CHECK_EQ_U64("start_slab: CPU 1 takes its partial slab", info64(&f).nr_slabs, 4);
	check_ok(&f, "start_slab: invariants after allocations");
	struct policy_start_slab bad = {.where = POLICY_START_CPU, .cpu = 0, .inuse = 1};
	CHECK("start_slab: CPU 0 has a slab already",
	      f.ops->start_slab(f.p, f.k64, &bad, &base, objs[0], &e) == SLABSIM_EUSAGE);
	bad = (struct policy_start_slab){.where = POLICY_START_FULL, .inuse = 63};
	CHECK("start_slab: a full slab with a free slot",
	      f.ops->start_slab(f.p, f.k64, &bad, &base, objs[0], &e) == SLABSIM_EUSAGE);
	CHECK_EQ_U64("start_slab: refused ones make no slab", info64(&f).nr_slabs, 4);
	f.ops->destroy(f.p);
}

int main(void)
{
	test_prepopulate();
	test_start_slab();
	test_cpu_partial_drain(POLICY_KERNEL_6_1);
	test_cpu_partial_drain(POLICY_KERNEL_5_4);
	test_min_partial();
	test_debug_order(POLICY_KERNEL_5_4);
	test_debug_order(POLICY_KERNEL_6_1);
	test_large();
	test_merge();
	return check_done();
}
