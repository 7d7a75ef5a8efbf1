/* test_sheaves.c - per-CPU sheaves and the barn (policies/sheaves.c) and
 * SLUB with sheaves under the 6.18 and 7.0 profiles (policies/slub.c).
 *
 * Every expected figure is worked by hand in the comment above its check,
 * from the mm/slub.c function named there (7.0 series; 6.18 where it
 * differs), not taken from the model's output.
 */
#include "check.h"
#include "policy.h"
#include "sheaves.h"

#include <stdlib.h>
#include <string.h>

/* ---- the sheaves module against a fake slab layer ---- */

/* refill hands out ids 0, 1, 2, ... in order; flush records what came
 * back. */
struct fake {
	int32_t next_id;
	uint32_t refilled, flushed;
	int32_t last_flushed[64];
	/* sheaves_ops.gone: the slab told, and the counts then */
	const void *gone;
	uint32_t gone_calls, refilled_at_gone, flushed_at_gone;
};

static int fake_refill(void *ctx, uint32_t cpu, struct sheaf_obj *out, uint32_t n, struct err *e)
{
	struct fake *f = ctx;
	(void)cpu;
	(void)e;
	for (uint32_t i = 0; i < n; i++) {
		out[i].slab = NULL;
		out[i].idx = f->next_id++;
	}
	f->refilled += n;
	return 0;
}

static void fake_flush(void *ctx, uint32_t cpu, const struct sheaf_obj *objs, uint32_t n)
{
	struct fake *f = ctx;
	(void)cpu;
	for (uint32_t i = 0; i < n; i++)
		f->last_flushed[i < 64 ? i : 63] = objs[i].idx;
	f->flushed += n;
}

static void fake_gone(void *ctx, uint32_t cpu, const void *slab)
{
	struct fake *f = ctx;
	(void)cpu;
	f->gone = slab;
	f->gone_calls++;
	f->refilled_at_gone = f->refilled;
	f->flushed_at_gone = f->flushed;
}

static struct sheaf_obj obj(int32_t id)
{
	struct sheaf_obj o = {NULL, id};
	return o;
}

static int32_t take(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu)
{
	struct sheaf_obj o;
	bool got = false;
	struct err e;
	if (sheaves_alloc(sh, ops, cpu, &o, &got, &e) || !got)
		return -1;
	return o.idx;
}

static void check_sizes(const struct sheaves *sh, uint32_t cpu, int32_t main, int32_t spare,
			int32_t rcu, const char *what)
{
	int32_t s[3];
	char name[128];
	sheaves_cpu_sizes(sh, cpu, s);
	snprintf(name, sizeof(name), "%s: main %d spare %d rcu_free %d", what, main, spare, rcu);
	CHECK(name, s[0] == main && s[1] == spare && s[2] == rcu);
	if (s[0] != main || s[1] != spare || s[2] != rcu)
		printf("#   got main %d spare %d rcu_free %d\n", s[0], s[1], s[2]);
}

static void check_model(const struct sheaves *sh, const char *what)
{
	struct err e;
	int rc = sheaves_check(sh, what, &e);
	CHECK(what, rc == 0);
	if (rc)
		printf("#   %s\n", e.msg);
}

/* Capacity 4, one CPU, 6.18's rule, following alloc_from_pcs /
 * __pcs_replace_empty_main and free_to_pcs / __pcs_replace_full_main. */
static void test_fill_and_swap(void)
{
	struct sheaves sh;
	struct fake f = {0};
	const struct sheaves_ops ops = {fake_refill, fake_flush, &f};
	struct err e;
	if (sheaves_init(&sh, 4, 1, SHEAVES_6_18, &e)) {
		printf("Bail out! %s\n", e.msg);
		exit(1);
	}
	/* init_percpu_sheaves: an empty main sheaf S0, no spare */
	check_sizes(&sh, 0, 0, -1, -1, "init");
	/* first alloc: no spare, no full sheaf in the barn, no empty one
	 * there either: alloc_full_sheaf makes S1 with ids 0..3; 6.18 puts the
	 * empty S0 into the barn; the allocation pops the last id, 3 */
	CHECK_EQ_U64("first alloc takes the sheaf's last object, id 3", take(&sh, &ops, 0), 3);
	CHECK_EQ_U64("one refill of 4 objects", f.refilled, 4);
	CHECK_EQ_U64("6.18: the empty main went to the barn", sh.nr_empty, 1);
	check_sizes(&sh, 0, 3, -1, -1, "after the first alloc");
	/* frees 100..109: 100 fills S1 (4); 101 finds main full and no
	 * spare: barn_get_empty gives S0, S1 becomes the spare; 101..104 fill
	 * S0; 105: main and spare full, the barn has no empty sheaf
	 * (barn_replace_full_sheaf -ENOMEM): a new sheaf S2, and
	 * __pcs_install_empty_sheaf puts the full main S0 in the barn; 105..108
	 * fill S2; 109: the same, S2 to the barn, a new S3 holds 109 */
	for (int32_t i = 100; i < 110; i++)
		sheaves_free(&sh, &ops, 0, obj(i));
	check_sizes(&sh, 0, 1, 4, -1, "after 10 frees");
	CHECK_EQ_U64("two full sheaves in the barn", sh.nr_full, 2);
	CHECK_EQ_U64("no empty sheaf in the barn", sh.nr_empty, 0);
	CHECK_EQ_U64("parked: 1 + 4 + 2 * 4", sh.parked, 13);
	CHECK_EQ_U64("four sheaves exist", sh.nr_sheaves, 4);
	check_model(&sh, "model after 10 frees");
	/* six allocs: 109 from S3; S3 empty, the spare S1 is full: swap, 100,
	 * 2, 1, 0; then main S1 empty, spare S3 empty: the barn's newest full
	 * sheaf S2 (list_add puts at the head) replaces it, S1 goes to the
	 * barn's empty list; 108 */
	static const int32_t want[6] = {109, 100, 2, 1, 0, 108};
	int ok = 1;
	for (int i = 0; i < 6; i++)
		ok &= take(&sh, &ops, 0) == want[i];
	CHECK("allocs take 109, 100, 2, 1, 0, 108", ok);
	check_sizes(&sh, 0, 3, 0, -1, "after 6 allocs");
	CHECK_EQ_U64("barn: one full (S0), one empty (S1)", sh.nr_full * 10 + sh.nr_empty, 11);
	CHECK_EQ_U64("no refill since the first", f.refilled, 4);
	CHECK_EQ_U64("nothing flushed", f.flushed, 0);
	check_model(&sh, "model after 6 allocs");
	sheaves_fini(&sh);

	/* 7.0's rule for the same first alloc: the emptied main S0 becomes
	 * the spare (the CPU has none) instead of going to the barn */
	if (sheaves_init(&sh, 4, 1, SHEAVES_7_0, &e)) {
		printf("Bail out! %s\n", e.msg);
		exit(1);
	}
	memset(&f, 0, sizeof(f));
	CHECK_EQ_U64("7.0 first alloc takes id 3", take(&sh, &ops, 0), 3);
	check_sizes(&sh, 0, 3, 0, -1, "7.0: the empty main is the spare");
	CHECK_EQ_U64("7.0: the barn stays empty", sh.nr_empty + sh.nr_full, 0);
	sheaves_fini(&sh);
}

/* Capacity 1, so every free past the first two puts a full sheaf into the
 * barn, up to MAX_FULL_SHEAVES (10); then __pcs_replace_full_main gets
 * -E2BIG from barn_replace_full_sheaf and flushes the full spare to the
 * slabs, which becomes main (sheaf_flush_unused). */
static void test_barn_full_flush(void)
{
	struct sheaves sh;
	struct fake f = {0};
	const struct sheaves_ops ops = {fake_refill, fake_flush, &f};
	struct err e;
	if (sheaves_init(&sh, 1, 1, SHEAVES_6_18, &e)) {
		printf("Bail out! %s\n", e.msg);
		exit(1);
	}
	/* free 0 fills S0; free 1: no spare, no empty sheaf: new S1, S0 the
	 * spare; frees 2..11: main and spare full, the barn below 10 full and
	 * without an empty sheaf: a new main each time, the old one to the
	 * barn: 10 full sheaves after free 11 */
	for (int32_t i = 0; i < 12; i++)
		sheaves_free(&sh, &ops, 0, obj(i));
	CHECK_EQ_U64("barn holds MAX_FULL_SHEAVES", sh.nr_full, SHEAVES_MAX_FULL);
	CHECK_EQ_U64("nothing flushed below the limit", f.flushed, 0);
	CHECK_EQ_U64("12 objects parked", sh.parked, 12);
	/* free 12: -E2BIG: the spare S0 (object 0) is flushed, becomes main and
	 * takes 12; main S11 (object 11) becomes the spare */
	sheaves_free(&sh, &ops, 0, obj(12));
	CHECK_EQ_U64("one object flushed", f.flushed, 1);
	CHECK_EQ_U64("the flushed object is the spare's, 0", f.last_flushed[0], 0);
	CHECK_EQ_U64("barn still at the limit", sh.nr_full, SHEAVES_MAX_FULL);
	CHECK_EQ_U64("12 parked (13 freed, 1 flushed)", sh.parked, 12);
	/* free 13: the same with the spare S11 holding 11 */
	sheaves_free(&sh, &ops, 0, obj(13));
	CHECK_EQ_U64("second flush gives back object 11", f.last_flushed[0], 11);
	CHECK_EQ_U64("two flushed", f.flushed, 2);
	CHECK_EQ_U64("sheaves: 12 made, none freed", sh.nr_sheaves, 12);
	check_model(&sh, "model after the flushes");
	sheaves_fini(&sh);
}

/* __kfree_rcu_sheaf and rcu_free_sheaf: capacity 2. A full rcu_free sheaf
 * goes to the barn's full list, and the next allocation that finds main
 * empty takes it (barn_replace_empty_sheaf): the kfree_rcu'd objects are
 * reused without touching slabs. With the barn at MAX_FULL_SHEAVES it is
 * flushed and kept as an empty sheaf. */
static void test_rcu_sheaf(void)
{
	struct sheaves sh;
	struct fake f = {0};
	const struct sheaves_ops ops = {fake_refill, fake_flush, &f};
	struct err e;
	if (sheaves_init(&sh, 2, 1, SHEAVES_6_18, &e)) {
		printf("Bail out! %s\n", e.msg);
		exit(1);
	}
	/* 50: no rcu_free sheaf, no spare, no empty sheaf in the barn: a new
	 * one; 51 fills it: handed to RCU, then to the barn (0 < 10 full) */
	sheaves_free_rcu(&sh, &ops, 0, obj(50));
	check_sizes(&sh, 0, 0, -1, 1, "one kfree_rcu batched");
	sheaves_free_rcu(&sh, &ops, 0, obj(51));
	check_sizes(&sh, 0, 0, -1, -1, "full rcu sheaf handed on");
	CHECK_EQ_U64("rcu sheaf in the barn", sh.nr_full, 1);
	/* alloc: main empty, no spare, the barn's full sheaf replaces main
	 * (main to the empty list): 51, no refill */
	CHECK_EQ_U64("alloc reuses the kfree_rcu'd 51", take(&sh, &ops, 0), 51);
	CHECK_EQ_U64("no refill from slabs", f.refilled, 0);
	CHECK_EQ_U64("old main to the barn's empty list", sh.nr_empty, 1);
	sheaves_fini(&sh);

	/* capacity 1: each kfree_rcu hands a full sheaf on at once; the 11th
	 * finds 10 full in the barn: flushed, then kept empty (0 < 10) */
	if (sheaves_init(&sh, 1, 1, SHEAVES_6_18, &e)) {
		printf("Bail out! %s\n", e.msg);
		exit(1);
	}
	memset(&f, 0, sizeof(f));
	for (int32_t i = 0; i < 11; i++)
		sheaves_free_rcu(&sh, &ops, 0, obj(i));
	CHECK_EQ_U64("barn full at 10", sh.nr_full, SHEAVES_MAX_FULL);
	CHECK_EQ_U64("the 11th rcu sheaf flushed: object 10", f.flushed * 100 + f.last_flushed[0],
		     110);
	CHECK_EQ_U64("and kept as an empty sheaf", sh.nr_empty, 1);
	CHECK_EQ_U64("10 parked", sh.parked, 10);
	check_model(&sh, "model after rcu flush");
	sheaves_fini(&sh);
}

/* calculate_sheaf_capacity (7.0): base 60 / 26 / 12 / 4 by s->size, then
 * (kmalloc_size_roundup(32 + 8 * cap) - 32) / 8, then max with the
 * explicit capacity:
 *   size 64   -> 60: 32 + 480 = 512, a kmalloc size -> 60
 *   size 192  -> 60 (below 256)
 *   size 256  -> 26: 32 + 208 = 240 -> 256 -> (256 - 32) / 8 = 28
 *   size 1024 -> 12: 32 + 96 = 128 -> 12
 *   size 4096 -> 4: 32 + 32 = 64 -> 4
 *   size 256, explicit 32 (maple_node) -> 32; size 192 explicit 32 -> 60 */
static void test_capacity(void)
{
	CHECK_EQ_U64("size 64: 60", sheaves_capacity_7_0(64, 0), 60);
	CHECK_EQ_U64("size 192: 60", sheaves_capacity_7_0(192, 0), 60);
	CHECK_EQ_U64("size 255: 60", sheaves_capacity_7_0(255, 0), 60);
	CHECK_EQ_U64("size 256: 28", sheaves_capacity_7_0(256, 0), 28);
	CHECK_EQ_U64("size 704: 28", sheaves_capacity_7_0(704, 0), 28);
	CHECK_EQ_U64("size 1024: 12", sheaves_capacity_7_0(1024, 0), 12);
	CHECK_EQ_U64("size 4096: 4", sheaves_capacity_7_0(4096, 0), 4);
	CHECK_EQ_U64("size 8192: 4", sheaves_capacity_7_0(8192, 0), 4);
	CHECK_EQ_U64("maple_node 256 asking 32: 32", sheaves_capacity_7_0(256, 32), 32);
	CHECK_EQ_U64("vm_area_struct 192 asking 32: 60", sheaves_capacity_7_0(192, 32), 60);
}

/* sheaves_unpark: capacity 4, one CPU, 6.18. Four kfree_rcu()s of slab
 * A's 5 and 7 and slab B's 4 and 6 fill the rcu_free sheaf, which goes to
 * the barn full (rcu_free_sheaf: 0 full < 10); three frees put A0, B1, A2
 * in main. Unparking A: main keeps B1; the barn's sheaf loses A5 and A7
 * and is refilled with two objects from the slabs (the fake's ids 0 and
 * 1) to stay full; A0, A2, A5, A7 go back to their slab. Parked: 7 - 4 +
 * 2 = 5. The owner is told A is gone (ops.gone) once its four objects are
 * back and before the barn's refill, which must not take them again (the
 * kernel discarded A's kernel slab). */
static void test_unpark(void)
{
	static char slab_a, slab_b;
	struct sheaves sh;
	struct fake f = {0};
	const struct sheaves_ops ops = {fake_refill, fake_flush, &f, fake_gone};
	struct err e;
	if (sheaves_init(&sh, 4, 1, SHEAVES_6_18, &e)) {
		printf("Bail out! sheaves_init: %s\n", e.msg);
		exit(1);
	}
	const struct {
		char *slab;
		int32_t id;
	} rcu[] = {{&slab_b, 4}, {&slab_a, 5}, {&slab_b, 6}, {&slab_a, 7}},
	  pcs[] = {{&slab_a, 0}, {&slab_b, 1}, {&slab_a, 2}};
	for (int i = 0; i < 4; i++)
		sheaves_free_rcu(&sh, &ops, 0, (struct sheaf_obj){rcu[i].slab, rcu[i].id});
	for (int i = 0; i < 3; i++)
		sheaves_free(&sh, &ops, 0, (struct sheaf_obj){pcs[i].slab, pcs[i].id});
	CHECK_EQ_U64("unpark: 7 parked before", sh.parked, 7);
	CHECK_EQ_U64("unpark: one full sheaf in the barn", sh.nr_full, 1);
	CHECK("unpark: returns 0", sheaves_unpark(&sh, &ops, 0, &slab_a, &e) == 0);
	check_sizes(&sh, 0, 1, -1, -1, "unpark: main keeps B1");
	CHECK_EQ_U64("unpark: the barn's sheaf still full", sh.full ? sh.full->size : 0, 4);
	CHECK_EQ_U64("unpark: 2 objects refilled into it", f.refilled, 2);
	CHECK_EQ_U64("unpark: 4 objects back to slab A", f.flushed, 4);
	int32_t sum = 0;
	for (int i = 0; i < 4; i++)
		sum += f.last_flushed[i];
	CHECK_EQ_U64("unpark: A0, A2, A5, A7 (ids sum 14)", (uint64_t)sum, 14);
	CHECK_EQ_U64("unpark: 5 parked after", sh.parked, 5);
	CHECK("unpark: gone told of slab A", f.gone == &slab_a);
	CHECK_EQ_U64("unpark: gone told once", f.gone_calls, 1);
	CHECK_EQ_U64("unpark: gone after A's 4 objects were back", f.flushed_at_gone, 4);
	CHECK_EQ_U64("unpark: gone before the barn's refill", f.refilled_at_gone, 0);
	check_model(&sh, "unpark: sheaves consistent");
	sheaves_fini(&sh);
	/* nothing parked at all: the owner is still told */
	struct fake g = {0};
	const struct sheaves_ops gops = {fake_refill, fake_flush, &g, fake_gone};
	if (sheaves_init(&sh, 4, 1, SHEAVES_6_18, &e)) {
		printf("Bail out! sheaves_init: %s\n", e.msg);
		exit(1);
	}
	CHECK("unpark, none parked: returns 0", sheaves_unpark(&sh, &gops, 0, &slab_b, &e) == 0);
	CHECK("unpark, none parked: gone told of slab B", g.gone == &slab_b && g.gone_calls == 1);
	CHECK_EQ_U64("unpark, none parked: nothing flushed or refilled", g.flushed + g.refilled, 0);
	sheaves_fini(&sh);
}

/* ---- SLUB with sheaves ---- */

struct fx {
	struct policy *p;
	const struct policy_ops *ops;
};

static void fx_setup(struct fx *f, enum policy_kernel k, uint32_t debug)
{
	struct policy_cfg cfg;
	struct err e;
	policy_cfg_default(&cfg);
	cfg.kernel = k;
	cfg.align = policy_kernel_align(k);
	cfg.slub_debug = debug;
	f->ops = policy_find("slub");
	if (!f->ops || f->ops->create(&cfg, &f->p, &e)) {
		printf("Bail out! cannot create slub: %s\n", e.msg);
		exit(1);
	}
}

static uint32_t fx_cache(struct fx *f, const char *name, uint32_t size, uint32_t align)
{
	struct policy_cache_spec spec = {
		.name = name, .object_size = size, .align = align, .no_merge = true};
	uint32_t id = 0;
	struct err e;
	if (f->ops->cache_create(f->p, &spec, &id, &e))
		printf("# cache_create %s failed: %s\n", name, e.msg);
	return id;
}

static struct policy_obj fx_alloc(struct fx *f, uint32_t id, uint32_t cpu)
{
	struct policy_alloc_req r = {.cache = id, .cpu = cpu, .node = -1};
	struct policy_obj o = {0};
	struct err e;
	if (f->ops->alloc(f->p, &r, &o, &e))
		printf("# alloc failed: %s\n", e.msg);
	return o;
}

static struct policy_cache_info fx_info(struct fx *f, uint32_t id)
{
	struct policy_cache_info ci;
	f->ops->cache_info(f->p, id, &ci);
	return ci;
}

static void fx_check(struct fx *f, const char *what)
{
	struct err e;
	int rc = f->ops->check(f->p, &e);
	CHECK(what, rc == 0);
	if (rc)
		printf("#   %s\n", e.msg);
}

/* 6.18, 2 CPUs: maple_node (256 bytes, align 256: 16 a slab of order 0,
 * min_objects 4 * (fls(2) + 1) = 12 fit one page), sheaf capacity 32 from
 * the source (maple_tree_init). refill_sheaf goes through
 * __kmem_cache_alloc_bulk, i.e. the CPU slab path. */
static void test_slub_618(void)
{
	struct fx f;
	struct err e;
	fx_setup(&f, POLICY_KERNEL_6_18, 0);
	uint32_t id = fx_cache(&f, "maple_node", 256, 256);
	struct policy_cache_info ci = fx_info(&f, id);
	CHECK_EQ_U64("6.18 maple_node: 16 objects a slab", ci.g.objs_per_slab, 16);
	CHECK_EQ_U64("6.18 maple_node: sheaf_capacity 32", ci.g.sheaf_capacity, 32);
	/* first alloc on CPU 0: a new sheaf refilled with 32 objects = two
	 * new slabs; one handed out */
	struct policy_obj o = fx_alloc(&f, id, 0);
	ci = fx_info(&f, id);
	CHECK_EQ_U64("refill of 32 made 2 pages", ci.nr_pages, 2);
	CHECK_EQ_U64("1 live", ci.inuse_objects, 1);
	CHECK_EQ_U64("31 parked", ci.parked_objects, 31);
	/* free on CPU 0: into main (31 < 32) */
	if (f.ops->free(f.p, &o, 0, &e))
		printf("# free failed: %s\n", e.msg);
	ci = fx_info(&f, id);
	CHECK_EQ_U64("free parks: 0 live", ci.inuse_objects, 0);
	CHECK_EQ_U64("free parks: 32 parked", ci.parked_objects, 32);
	CHECK_EQ_U64("free parks: pages kept", ci.nr_pages, 2);
	fx_check(&f, "6.18 model after the free");
	/* 33 allocs on CPU 1: its main is empty, no spare, no full sheaf in the
	 * barn; the barn's empty sheaf (CPU 0's first main) is refilled with
	 * 32 through CPU 1's slab path: 2 new slabs (CPU 0's are full, on no
	 * list); CPU 1's old main goes to the barn. The 33rd finds main empty
	 * again: that sheaf refilled: 2 more slabs */
	for (int i = 0; i < 33; i++)
		fx_alloc(&f, id, 1);
	ci = fx_info(&f, id);
	CHECK_EQ_U64("6 pages after CPU 1's 33 allocs", ci.nr_pages, 6);
	CHECK_EQ_U64("33 live", ci.inuse_objects, 33);
	CHECK_EQ_U64("63 parked (32 on CPU 0, 31 on CPU 1)", ci.parked_objects, 63);
	CHECK_EQ_U64("slabinfo counts parked objects active (96 objects, none on "
		     "node-partial slabs)",
		     ci.total_objects - ci.free_in_partial, 96);
	fx_check(&f, "6.18 model after CPU 1");

	/* kfree_rcu: 32 objects freed through free_rcu on CPU 1 fill an
	 * rcu_free sheaf (CPU 1 has no spare: the barn's empty sheaf, CPU 1's
	 * first main), which goes to the barn full; they stay parked */
	struct policy_obj os[32];
	for (int i = 0; i < 32; i++)
		os[i] = fx_alloc(&f, id, 1);
	ci = fx_info(&f, id);
	uint64_t pages_before = ci.nr_pages;
	for (int i = 0; i < 32; i++)
		if (f.ops->free_rcu(f.p, &os[i], 1, &e))
			printf("# free_rcu failed: %s\n", e.msg);
	ci = fx_info(&f, id);
	CHECK_EQ_U64("kfree_rcu: 33 live again", ci.inuse_objects, 33);
	CHECK_EQ_U64("kfree_rcu: pages unchanged", ci.nr_pages, pages_before);
	fx_check(&f, "6.18 model after kfree_rcu");
	f.ops->destroy(f.p);

	/* kmalloc caches have no sheaves in 6.18 */
	fx_setup(&f, POLICY_KERNEL_6_18, 0);
	ci = fx_info(&f, f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_NORMAL));
	CHECK_EQ_U64("6.18 kmalloc-64: no sheaves", ci.g.sheaf_capacity, 0);
	f.ops->destroy(f.p);
}

static struct policy_obj fx_alloc_at(struct fx *f, uint32_t id, uint32_t cpu, uint64_t ptr)
{
	struct policy_alloc_req r = {.cache = id, .cpu = cpu, .node = -1, .trace_ptr = ptr};
	struct policy_obj o = {0};
	struct err e;
	if (f->ops->alloc(f->p, &r, &o, &e))
		printf("# alloc failed: %s\n", e.msg);
	return o;
}

/* Placement from the trace's addresses (place_by_address), 6.18
 * maple_node on CPU 0. The first allocation refills main with 32 objects:
 * slab S1's 16, then S2's 16 (alloc_obj in address order), so pops take
 * S2's from the top. Kernel page A's 16 pointers get S2's objects, and S2
 * is bound to A; B's first pointer gets S1's top object and binds S1 to B.
 * a0 freed goes back on top of main; B's next pointer pops it, but S1 is
 * B's slab and holds parked objects: one of them is swapped in
 * (sheaves_swap), a0's object stays parked. Without a trace pointer the
 * allocator's object (S2's) is kept. */
static void test_place_by_address(void)
{
	struct fx f;
	struct err e;
	const uint64_t A = UINT64_C(0xffff888100000000), B = A + 4096;
	for (int with = 0; with < 2; with++) {
		fx_setup(&f, POLICY_KERNEL_6_18, 0);
		uint32_t id = fx_cache(&f, "maple_node", 256, 256);
		struct policy_obj a[16], b0, b1;
		for (int i = 0; i < 16; i++)
			a[i] = fx_alloc_at(&f, id, 0, with ? A + 256 * (uint64_t)i : 0);
		b0 = fx_alloc_at(&f, id, 0, with ? B : 0);
		uint64_t s2 = a[0].addr & ~UINT64_C(4095), s1 = b0.addr & ~UINT64_C(4095);
		bool a_in_s2 = true;
		for (int i = 1; i < 16; i++)
			a_in_s2 = a_in_s2 && (a[i].addr & ~UINT64_C(4095)) == s2;
		CHECK(with ? "addresses: A's 16 objects in one slab"
			   : "no addresses: 16 in one slab",
		      a_in_s2);
		CHECK(with ? "addresses: B's first object in the other slab"
			   : "no addresses: the 17th in the other slab",
		      s1 != s2);
		if (f.ops->free(f.p, &a[0], 0, &e))
			printf("# free failed: %s\n", e.msg);
		b1 = fx_alloc_at(&f, id, 0, with ? B + 256 : 0);
		if (with)
			CHECK_EQ_U64("addresses: B's second object swapped into B's slab",
				     b1.addr & ~UINT64_C(4095), s1);
		else
			CHECK_EQ_U64("no addresses: the freed object is taken again", b1.addr,
				     a[0].addr);
		struct policy_cache_info ci = fx_info(&f, id);
		CHECK_EQ_U64(with ? "addresses: 17 live" : "no addresses: 17 live",
			     ci.inuse_objects, 17);
		CHECK_EQ_U64(with ? "addresses: 15 parked" : "no addresses: 15 parked",
			     ci.parked_objects, 15);
		CHECK_EQ_U64(with ? "addresses: 2 pages" : "no addresses: 2 pages", ci.nr_pages, 2);
		fx_check(&f,
			 with ? "addresses: model consistent" : "no addresses: model consistent");
		f.ops->destroy(f.p);
	}
}

/* rehome_parked: an object parked in a slab that stands for no kernel
 * slab trades places with a free object of a slab bound to one. 6.18
 * maple_node, 2 CPUs, an (empty) start state, kernel slabs A and C = A +
 * 8192:
 *   - CPU 0 at A: the refill takes S1's 16 and S2's 16 and pops S2's last,
 *     so S2 is bound to A (main: S1's 16, S2's 15);
 *   - CPU 0 at C: the pop is S2's, bound to A: C gets a slab of its own,
 *     S3 (place_unseen; its first object), and the pop goes back to S2;
 *   - CPU 0 at A + 256 .. A + 14 * 256: S2's other 14 (main: S1's 16);
 *   - CPU 1 frees C's object: it is parked in CPU 1's main sheaf;
 *   - CPU 0 at C + 256: the pop is S1's, a slab no kernel slab is bound
 *     to; C's slab S3 has that parked object, which the allocation takes
 *     (sheaves_swap), S1's going into CPU 1's sheaf in its place. In the
 *     kernel every parked object lies in one of its slabs, so one of S1's
 *     parked objects trades places with a free object of a bound slab (S3,
 *     on the node partial list) and goes back to S1: 1 moved, S1 has a
 *     free object, and the counts stay (17 in use, 16 of them allocated,
 *     3 pages). Without addresses nothing moves. */
static void test_rehome_parked(void)
{
	struct fx f;
	struct err e;
	const uint64_t A = UINT64_C(0xffff888100000000), C = A + 8192;
	for (int with = 0; with < 2; with++) {
		fx_setup(&f, POLICY_KERNEL_6_18, 0);
		uint32_t id = fx_cache(&f, "maple_node", 256, 256);
		struct policy_start st = {0};
		struct policy_obj none[1], c0;
		uint64_t nr;
		if (f.ops->prepopulate(f.p, id, &st, none, &nr, &e))
			printf("# prepopulate failed: %s\n", e.msg);
		struct policy_obj a0 = fx_alloc_at(&f, id, 0, with ? A : 0);
		c0 = fx_alloc_at(&f, id, 0, with ? C : 0);
		for (uint64_t i = 1; i <= 14; i++)
			(void)fx_alloc_at(&f, id, 0, with ? A + 256 * i : 0);
		if (f.ops->free(f.p, &c0, 1, &e))
			printf("# free failed: %s\n", e.msg);
		struct policy_obj c1 = fx_alloc_at(&f, id, 0, with ? C + 256 : 0);
		struct policy_stats ps;
		f.ops->stats(f.p, &ps);
		struct policy_cache_info ci = fx_info(&f, id);
		(void)a0;
		if (with) {
			CHECK_EQ_U64("rehome: C's second object takes the parked one's slot",
				     c1.addr, c0.addr);
			CHECK_EQ_U64("rehome: 1 parked object moved into a bound slab",
				     ps.parked_rehomed, 1);
			CHECK_EQ_U64("rehome: 3 pages", ci.nr_pages, 3);
		} else {
			CHECK_EQ_U64("no addresses: nothing moved", ps.parked_rehomed, 0);
			CHECK_EQ_U64("no addresses: 2 pages", ci.nr_pages, 2);
		}
		CHECK_EQ_U64(with ? "rehome: 16 allocated" : "no addresses: 16 allocated",
			     ci.inuse_objects, 16);
		CHECK_EQ_U64(with ? "rehome: 16 parked" : "no addresses: 16 parked",
			     ci.parked_objects, 16);
		fx_check(&f,
			 with ? "rehome: model consistent" : "rehome, no addresses: consistent");
		f.ops->destroy(f.p);
	}
}

/* place_unseen: an object of a kernel slab the model has not seen, whose
 * allocator's object lies in a slab bound to another kernel slab, gets a
 * slab of its own when the cache has a start state. maple_node (256 bytes,
 * 16 a slab, sheaves of 32): the first allocation refills the main sheaf
 * from two new slabs (32 objects, both slabs then full, on no list) and
 * takes the last object, of the second slab, which is bound to kernel slab
 * A. The second, of kernel slab C, is given the next object of that same
 * slab: no node partial slab is unbound (there is none), so with a start
 * state (here an empty one) a third slab is made, C's object is its first,
 * and the sheaf's object goes back to the bound slab: 3 pages. Without a
 * start state C is a slab the trace never showed, not a new one: the
 * object stays, 2 pages, as without addresses. */
static void test_place_unseen(void)
{
	struct fx f;
	struct err e;
	const uint64_t A = UINT64_C(0xffff888100000000), C = A + 8192;
	static const char *const what[] = {"no addresses", "addresses, no start state",
					   "addresses and a start state"};
	for (int v = 0; v < 3; v++) {
		char name[96];
		fx_setup(&f, POLICY_KERNEL_6_18, 0);
		uint32_t id = fx_cache(&f, "maple_node", 256, 256);
		if (v == 2) {
			struct policy_start st = {0};
			struct policy_obj none[1];
			uint64_t nr;
			if (f.ops->prepopulate(f.p, id, &st, none, &nr, &e))
				printf("# prepopulate failed: %s\n", e.msg);
		}
		struct policy_obj a = fx_alloc_at(&f, id, 0, v ? A : 0);
		struct policy_obj c = fx_alloc_at(&f, id, 0, v ? C + 512 : 0);
		struct policy_cache_info ci = fx_info(&f, id);
		bool apart = (a.addr & ~UINT64_C(4095)) != (c.addr & ~UINT64_C(4095));
		snprintf(name, sizeof(name), "%s: C's object %s A's slab", what[v],
			 v == 2 ? "not in" : "in");
		CHECK(name, v == 2 ? apart : !apart);
		snprintf(name, sizeof(name), "%s: %d pages", what[v], v == 2 ? 3 : 2);
		CHECK_EQ_U64(name, ci.nr_pages, v == 2 ? 3 : 2);
		snprintf(name, sizeof(name), "%s: 30 parked, 2 live", what[v]);
		CHECK(name, ci.parked_objects == 30 && ci.inuse_objects == 2);
		snprintf(name, sizeof(name), "%s: model consistent", what[v]);
		fx_check(&f, name);
		f.ops->destroy(f.p);
	}
}

/* 7.0: kmalloc caches get sheaves (bootstrap_kmalloc_sheaves with no
 * explicit capacity), refill_objects takes objects straight from slabs. */
static void test_slub_70(void)
{
	struct fx f;
	fx_setup(&f, POLICY_KERNEL_7_0, 0);
	static const struct {
		uint32_t size, cap;
	} k[] = {{64, 60}, {192, 60}, {256, 28}, {1024, 12}, {4096, 4}};
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		char name[64];
		snprintf(name, sizeof(name), "7.0 kmalloc-%u: sheaf_capacity %u", k[i].size,
			 k[i].cap);
		struct policy_cache_info ci =
			fx_info(&f, f.ops->kmalloc_cache(f.p, k[i].size, POLICY_KMALLOC_NORMAL));
		CHECK_EQ_U64(name, ci.g.sheaf_capacity, k[i].cap);
	}
	uint32_t k64 = f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_NORMAL);
	struct policy_cache_info ci = fx_info(&f, k64);
	CHECK_EQ_U64("7.0 kmalloc-64: no per-CPU partial", ci.g.cpu_partial, 0);
	/* kmalloc(64) on CPU 0: refill_objects wants 60; the partial list is
	 * empty: a new slab of 64, 60 taken, the slab (64 > 60) to the head of
	 * the partial list with 4 free */
	struct policy_alloc_req r = {.cache = POLICY_KMALLOC, .size = 64, .cpu = 0, .node = -1};
	struct policy_obj o;
	struct err e;
	if (f.ops->alloc(f.p, &r, &o, &e))
		printf("# alloc failed: %s\n", e.msg);
	ci = fx_info(&f, k64);
	CHECK_EQ_U64("7.0: 1 page", ci.nr_pages, 1);
	CHECK_EQ_U64("7.0: slab on the partial list", ci.nr_partial, 1);
	CHECK_EQ_U64("7.0: 4 free there", ci.free_in_partial, 4);
	CHECK_EQ_U64("7.0: no CPU slab", ci.cpu_slabs, 0);
	CHECK_EQ_U64("7.0: 59 parked", ci.parked_objects, 59);
	/* kmalloc(64) on CPU 1: get_partial_node_bulk takes the slab with 4
	 * free (then full, on no list), then a new slab gives the other 56 and
	 * keeps 8 free at the head of the partial list */
	r.cpu = 1;
	if (f.ops->alloc(f.p, &r, &o, &e))
		printf("# alloc failed: %s\n", e.msg);
	ci = fx_info(&f, k64);
	CHECK_EQ_U64("7.0: 2 pages", ci.nr_pages, 2);
	CHECK_EQ_U64("7.0: one partial slab with 8 free", ci.nr_partial * 100 + ci.free_in_partial,
		     108);
	CHECK_EQ_U64("7.0: 118 parked, 2 live", ci.parked_objects * 10 + ci.inuse_objects, 1182);
	fx_check(&f, "7.0 model");
	/* boot caches have none (SLAB_NO_OBJ_EXT); maple_node asks 32 > 28 */
	ci = fx_info(&f, fx_cache(&f, "kmem_cache_node", 64, 64));
	CHECK_EQ_U64("7.0 kmem_cache_node: no sheaves", ci.g.sheaf_capacity, 0);
	ci = fx_info(&f, fx_cache(&f, "maple_node", 256, 256));
	CHECK_EQ_U64("7.0 maple_node: 32", ci.g.sheaf_capacity, 32);
	/* kmem_cache_node without sheaves: ___slab_alloc takes one object from
	 * a new slab (64 of 64 bytes), which goes to the partial list */
	uint32_t kn = fx_cache(&f, "kmem_cache_node", 64, 64);
	fx_alloc(&f, kn, 0);
	ci = fx_info(&f, kn);
	CHECK_EQ_U64("7.0 single alloc: 1 live, 63 free on the partial list",
		     ci.inuse_objects * 100 + ci.free_in_partial, 163);
	fx_check(&f, "7.0 model after single alloc");
	f.ops->destroy(f.p);

	/* slub_debug: no sheaves (calculate_sheaf_capacity: SLAB_DEBUG_FLAGS) */
	fx_setup(&f, POLICY_KERNEL_7_0, POLICY_F_CONSISTENCY);
	ci = fx_info(&f, f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_NORMAL));
	CHECK_EQ_U64("7.0 with slub_debug F: no sheaves", ci.g.sheaf_capacity, 0);
	f.ops->destroy(f.p);
}

/* Random kmalloc/kfree/kfree_rcu on 2 CPUs (a fixed LCG), the policy's
 * invariant walk after every operation: slab objects = free slots + live +
 * parked, parked = what the sheaves and barns hold, every list consistent.
 * At the end every object is freed; what stays allocated in slabs is
 * exactly what the sheaves hold. */
static void test_random(enum policy_kernel k)
{
	struct fx f;
	struct err e;
	static struct policy_obj live[512];
	uint32_t n = 0, bad = 0;
	uint64_t x = 12345;
	fx_setup(&f, k, 0);
	uint32_t mn = fx_cache(&f, "maple_node", 256, 256);
	for (int it = 0; it < 20000; it++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		uint32_t r = (uint32_t)(x >> 33), cpu = r & 1;
		if (n < 512 && (n == 0 || r % 5 < 3)) {
			struct policy_alloc_req q = {.cpu = cpu, .node = -1};
			if (r & 2) {
				q.cache = mn;
			} else {
				q.cache = POLICY_KMALLOC;
				q.size = 8 + (r >> 8) % 1500;
			}
			bad += f.ops->alloc(f.p, &q, &live[n++], &e) != 0;
		} else if (n) {
			uint32_t i = (r >> 4) % n;
			bad += ((r & 4) ? f.ops->free_rcu(f.p, &live[i], cpu, &e)
					: f.ops->free(f.p, &live[i], cpu, &e)) != 0;
			live[i] = live[--n];
		}
		if (it % 16 == 0)
			bad += f.ops->check(f.p, &e) != 0;
	}
	while (n)
		bad += f.ops->free(f.p, &live[--n], 0, &e) != 0;
	bad += f.ops->check(f.p, &e) != 0;
	char name[96];
	snprintf(name, sizeof(name), "%s: 20000 random operations keep every invariant",
		 policy_kernel_name(k));
	CHECK(name, bad == 0);
	if (bad)
		printf("#   last error: %s\n", e.msg);
	uint64_t held = 0, parked = 0, live_objs = 0;
	for (uint32_t id = 0; id < f.ops->nr_caches(f.p); id++) {
		struct policy_cache_info ci = fx_info(&f, id);
		if (ci.alias_of != id)
			continue;
		held += ci.total_objects - ci.free_in_partial;
		parked += ci.parked_objects;
		live_objs += ci.inuse_objects;
	}
	snprintf(name, sizeof(name), "%s: all freed, nothing live", policy_kernel_name(k));
	CHECK_EQ_U64(name, live_objs, 0);
	snprintf(name, sizeof(name), "%s: some objects stay parked in sheaves",
		 policy_kernel_name(k));
	CHECK(name, parked > 0 && parked <= held);
	f.ops->destroy(f.p);
}

/* --kernel 7.x takes the 7.0 profile */
static void test_profile(void)
{
	enum policy_kernel k = POLICY_KERNEL_5_4;
	bool exact = false;
	struct err e;
	CHECK("7.0 parses", policy_parse_kernel("7.0", &k, &exact, &e) == 0);
	CHECK("7.0 is the 7.0 profile, exactly", k == POLICY_KERNEL_7_0 && exact);
	CHECK("7.3 parses", policy_parse_kernel("7.3.1", &k, &exact, &e) == 0);
	CHECK("7.3 takes 7.0, not exactly", k == POLICY_KERNEL_7_0 && !exact);
	CHECK("6.19 parses", policy_parse_kernel("6.19", &k, &exact, &e) == 0);
	CHECK("6.19 takes 6.18", k == POLICY_KERNEL_6_18);
	CHECK_EQ_STR("name 7.0", policy_kernel_name(POLICY_KERNEL_7_0), "7.0");
	CHECK("7.0 aligns kmalloc as 6.11",
	      policy_kernel_align(POLICY_KERNEL_7_0) == POLICY_ALIGN_POW2_DIVISOR);
}

/* rehome_kept: a bound slab emptied while the node partial list holds
 * min_partial slabs goes back to the page allocator by the rules, unless
 * the trace shows the kernel's page frees and its kernel slab's page has
 * not been freed: that kernel slab still holds an object, which the model
 * holds elsewhere; one parked in a slab that stands for no kernel slab
 * moves into it. 7.0 maple_node (no CPU slabs, no per-CPU partial lists;
 * 16 a slab, sheaves of 32, min_partial 5), an (empty) start state:
 *   - CPU 0 at A .. A + 15 * 256: the refill takes S1's 16 and S2's 16,
 *     the first pop is S2's (bound to A), the 15 after take S2's other
 *     objects from the sheaf (place_by_address): S2 all allocated, the
 *     main sheaf S1's 16 (S1 stands for no kernel slab): 2 pages;
 *   - five start slabs of 8 objects on the node partial list: 7 pages;
 *   - A's 16 objects freed to their slab (past the sheaves, as a page
 *     free's inferred frees are): S2 empties with 5 slabs on the node
 *     partial list. Without the page frees traced it goes (6 pages, 5 on
 *     the list); with them it stays, and one of S1's parked objects trades
 *     places with a free object of S2 and goes back to S1: 1 moved, S2 and
 *     S1 both on the node partial list (7), 7 pages, 16 parked either way,
 *     the start slabs' 40 objects in use. */
static void test_rehome_kept(void)
{
	struct fx f;
	struct err e;
	const uint64_t A = UINT64_C(0xffff888100000000);
	for (int traced = 0; traced < 2; traced++) {
		char name[96];
		const char *what = traced ? "kept slab" : "page frees not traced";
		fx_setup(&f, POLICY_KERNEL_7_0, 0);
		uint32_t id = fx_cache(&f, "maple_node", 256, 256);
		if (traced)
			f.ops->pages_traced(f.p, NULL);
		struct policy_start st = {0};
		struct policy_obj none[1], a[16], objs[16];
		uint64_t nr, base;
		if (f.ops->prepopulate(f.p, id, &st, none, &nr, &e))
			printf("# prepopulate failed: %s\n", e.msg);
		for (int i = 0; i < 16; i++)
			a[i] = fx_alloc_at(&f, id, 0, A + 256 * (uint64_t)i);
		bool one_slab = true;
		for (int i = 1; i < 16; i++)
			one_slab &= (a[i].addr & ~UINT64_C(4095)) == (a[0].addr & ~UINT64_C(4095));
		snprintf(name, sizeof(name), "%s: A's 16 objects in one slab, 2 pages", what);
		CHECK(name, one_slab && fx_info(&f, id).nr_pages == 2);
		for (int j = 0; j < 5; j++) {
			struct policy_start_slab ss = {.where = POLICY_START_NODE_PARTIAL,
						       .inuse = 8};
			if (f.ops->start_slab(f.p, id, &ss, &base, objs, &e))
				printf("# start_slab failed: %s\n", e.msg);
		}
		for (int i = 0; i < 16; i++)
			if (f.ops->free_to_slab(f.p, &a[i], 0, &e))
				printf("# free_to_slab failed: %s\n", e.msg);
		struct policy_stats ps;
		f.ops->stats(f.p, &ps);
		struct policy_cache_info ci = fx_info(&f, id);
		snprintf(name, sizeof(name), "%s: %d moved", what, traced);
		CHECK_EQ_U64(name, ps.parked_rehomed, (uint64_t)traced);
		snprintf(name, sizeof(name), "%s: %d pages", what, traced ? 7 : 6);
		CHECK_EQ_U64(name, ci.nr_pages, traced ? 7 : 6);
		snprintf(name, sizeof(name), "%s: %d slabs on the node partial list", what,
			 traced ? 7 : 5);
		CHECK_EQ_U64(name, ci.nr_partial, traced ? 7 : 5);
		snprintf(name, sizeof(name), "%s: 16 parked, 40 in use", what);
		CHECK(name, ci.parked_objects == 16 && ci.inuse_objects == 40);
		snprintf(name, sizeof(name), "%s: model consistent", what);
		fx_check(&f, name);
		f.ops->destroy(f.p);
	}
}

int main(void)
{
	test_fill_and_swap();
	test_barn_full_flush();
	test_rcu_sheaf();
	test_capacity();
	test_unpark();
	test_slub_618();
	test_slub_70();
	test_place_by_address();
	test_place_unseen();
	test_rehome_parked();
	test_rehome_kept();
	test_random(POLICY_KERNEL_6_18);
	test_random(POLICY_KERNEL_7_0);
	test_profile();
	return check_done();
}
