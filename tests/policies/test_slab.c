/* test_slab.c - SLAB dynamics on hand-made alloc/free sequences.
 *
 * Every expected figure is worked out by hand from the kernel rules
 * (reference section 4.4, mm/slab.c v5.4) in the comment above its check,
 * not taken from the model's output. Geometry used (5.4, natural alignment,
 * layout checked in test_slab_layout): kmalloc-64 holds 64 objects per
 * order-0 slab, limit 120, batchcount 60; with 1 CPU no shared array and
 * free_limit (1 + 1) * 60 + 64 = 184; with 2 CPUs a shared array of
 * 8 * 60 = 480 entries.
 *
 * Time: jiffies = INITIAL_JIFFIES + t / 4 ms (HZ 250), INITIAL_JIFFIES =
 * 2^32 - 75000 = 46 mod 250. A first timer call at t = 0 (J0) schedules CPU
 * 0's reap at round_jiffies(J0 + 250): 46 jiffies past a whole second is
 * under a quarter second, so it rounds down to J0 + 204 (t = 0.816 s), then
 * every 500 jiffies (2 s). A cache's first node reap is due 1000 jiffies
 * (4 s) plus its stagger, (id * 256) mod 1000, after the first timer call.
 * Cache ids follow create_kmalloc_caches: kmalloc-32 is 0, kmalloc-64 is 1.
 */
#include "check.h"
#include "layout.h"
#include "policy.h"

#include <stdlib.h>

#define REAP_NS(k) ((816ull + 2000ull * (k)) * 1000000ull) /* CPU 0's reap k, from 0 */

struct fixture {
	struct policy *p;
	const struct policy_ops *ops;
};

static void setup(struct fixture *f, uint32_t nr_cpus, bool debug)
{
	struct policy_cfg cfg;
	struct err e;
	policy_cfg_default(&cfg);
	cfg.nr_cpus = nr_cpus;
	cfg.slab_debug = debug;
	f->ops = policy_find("slab");
	if (!f->ops || f->ops->create(&cfg, &f->p, &e)) {
		printf("Bail out! cannot create slab: %s\n", f->ops ? e.msg : "no such policy");
		exit(1);
	}
}

static struct policy_obj kmalloc_on(struct fixture *f, uint64_t size, uint32_t cpu)
{
	struct policy_alloc_req r = {.cache = POLICY_KMALLOC, .size = size, .cpu = cpu, .node = -1};
	struct policy_obj o = {0};
	struct err e;
	if (f->ops->alloc(f->p, &r, &o, &e))
		printf("# kmalloc failed: %s\n", e.msg);
	return o;
}

static struct policy_obj cache_alloc_on(struct fixture *f, uint32_t id, uint32_t cpu)
{
	struct policy_alloc_req r = {.cache = id, .cpu = cpu, .node = -1};
	struct policy_obj o = {0};
	struct err e;
	if (f->ops->alloc(f->p, &r, &o, &e))
		printf("# alloc failed: %s\n", e.msg);
	return o;
}

static void free_on(struct fixture *f, const struct policy_obj *o, uint32_t cpu)
{
	struct err e;
	if (f->ops->free(f->p, o, cpu, &e))
		printf("# free failed: %s\n", e.msg);
}

static struct policy_cache_info info(struct fixture *f, uint32_t id)
{
	struct policy_cache_info ci;
	f->ops->cache_info(f->p, id, &ci);
	return ci;
}

static uint64_t slab_pages(struct fixture *f)
{
	struct policy_stats st;
	f->ops->stats(f->p, &st);
	return st.slab_pages;
}

/* Run the timer at t_ns; returns the next time it asks for. */
static uint64_t timer_at(struct fixture *f, uint64_t t_ns)
{
	uint64_t next = 0;
	struct err e;
	if (f->ops->timer(f->p, t_ns, &next, &e))
		printf("# timer failed: %s\n", e.msg);
	return next;
}

static void check_ok(struct fixture *f, const char *name)
{
	struct err e;
	int rc = f->ops->check(f->p, &e);
	CHECK(name, rc == 0);
	if (rc)
		printf("#   %s\n", e.msg);
}

/* ---- the first allocations, kmalloc-96's slots -------------------------- */

static void test_first_alloc(void)
{
	struct fixture f;
	setup(&f, 2, false);
	uint32_t k64 = f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_NORMAL);

	/* An array never touched refills BATCHREFILL_LIMIT = 16 (batchcount 60
	 * > 16). Nothing free on the node: a new slab (colour 0: offset 0) gives
	 * objects 0..15 in index order; the last pulled, 15, is returned. */
	struct policy_obj a = kmalloc_on(&f, 64, 0);
	CHECK_EQ_U64("first kmalloc(64) gets object 15 of a new slab", a.addr % 4096, 15 * 64);
	struct policy_obj b = kmalloc_on(&f, 64, 0);
	CHECK_EQ_U64("the next one object 14 (LIFO array)", a.addr - b.addr, 64);
	struct policy_cache_info ci = info(&f, k64);
	CHECK_EQ_U64("one slab", ci.nr_slabs, 1);
	/* 64 - 16 on the slab's freelist; the 14 left in the array are active */
	CHECK_EQ_U64("48 free objects on the node", ci.free_in_partial, 48);
	CHECK_EQ_U64("the slab is partial", ci.nr_partial, 1);
	CHECK_EQ_U64("2 in use", ci.inuse_objects, 2);

	/* CPU 1's array is empty and untouched: 16 more from the partial slab,
	 * objects 16..31; 31 is returned. */
	struct policy_obj c = kmalloc_on(&f, 64, 1);
	CHECK_EQ_U64("CPU 1's first kmalloc gets object 31 of the same slab", c.addr - a.addr,
		     16 * 64);
	CHECK_EQ_U64("32 free on the node", info(&f, k64).free_in_partial, 32);

	/* CPU 0 empties its array (14 more), then refills while touched:
	 * batchcount 60, but the node has only objects 32..63; the slab goes
	 * full and no slab is grown. Object 63 is returned. */
	for (int i = 0; i < 14; i++)
		(void)kmalloc_on(&f, 64, 0);
	struct policy_obj d = kmalloc_on(&f, 64, 0);
	CHECK_EQ_U64("a touched refill takes all 32 left, returns object 63", d.addr - a.addr,
		     48 * 64);
	ci = info(&f, k64);
	CHECK_EQ_U64("still one slab", ci.nr_slabs, 1);
	CHECK_EQ_U64("nothing free on the node", ci.free_in_partial, 0);
	CHECK_EQ_U64("no partial slab", ci.nr_partial, 0);
	check_ok(&f, "invariants after the first allocations");

	/* kmalloc-96 has 128-byte slots (HWCACHE_ALIGN gives align 64): a
	 * kmalloc(65) lands there too. */
	struct policy_obj e96 = kmalloc_on(&f, 65, 0);
	struct policy_obj g96 = kmalloc_on(&f, 96, 0);
	CHECK_EQ_U64("kmalloc-96: bytes_alloc 128", e96.bytes_alloc, 128);
	CHECK_EQ_U64("kmalloc-96: slot 128", e96.slot_bytes, 128);
	CHECK_EQ_U64("kmalloc-96: object 96", e96.object_bytes, 96);
	CHECK_EQ_U64("kmalloc-96: meta 32", e96.meta_bytes, 32);
	CHECK_EQ_U64("kmalloc-96: first object is 15 of its slab", e96.addr % 4096, 15 * 128);
	CHECK_EQ_U64("kmalloc-96: objects 128 bytes apart", e96.addr - g96.addr, 128);
	CHECK("both kmallocs in kmalloc-96",
	      e96.cache == g96.cache &&
		      e96.cache == f.ops->kmalloc_cache(f.p, 96, POLICY_KMALLOC_NORMAL));
	check_ok(&f, "invariants after kmalloc-96");
	f.ops->destroy(f.p);
}

/* ---- flush to the shared array, refill from it (2 CPUs) -------------------- */

static void test_shared_array(void)
{
	struct fixture f;
	static struct policy_obj h[129];
	setup(&f, 2, false);
	uint32_t k64 = f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_NORMAL);

	/* 128 kmallocs on CPU 0 fill two slabs: 16 (untouched refill), then 48
	 * (the rest of slab 1, touched), then a new slab gives 60 and later its
	 * last 4. CPU 0's array ends empty. */
	for (int i = 1; i <= 128; i++)
		h[i] = kmalloc_on(&f, 64, 0);
	struct policy_cache_info ci = info(&f, k64);
	CHECK_EQ_U64("128 kmallocs: 2 slabs", ci.nr_slabs, 2);
	CHECK_EQ_U64("128 kmallocs: none free on the node", ci.free_in_partial, 0);

	/* CPU 1 frees them in order. Frees 1..120 fill its array (limit 120);
	 * free 121 flushes the oldest 60 (h1..h60) to the shared array (room
	 * 480), then frees 121..128 are pushed: CPU 1 holds 68, shared 60,
	 * nothing went back to a slab. */
	for (int i = 1; i <= 128; i++)
		free_on(&f, &h[i], 1);
	ci = info(&f, k64);
	CHECK_EQ_U64("all freed: still 2 slabs (objects parked in arrays)", ci.nr_slabs, 2);
	CHECK_EQ_U64("no free object on the node lists", ci.free_in_partial, 0);
	CHECK_EQ_U64("slabinfo active_objs = 128", ci.total_objects - ci.free_in_partial, 128);
	CHECK_EQ_U64("nothing live", ci.inuse_objects, 0);
	check_ok(&f, "invariants after the flush to the shared array");

	/* CPU 0 refills (touched, batch 60): the node has no free object but
	 * the shared array has 60, which move over in order; the newest, h60,
	 * is handed out. */
	struct policy_obj x = kmalloc_on(&f, 64, 0);
	CHECK_EQ_U64("refill from the shared array returns the 60th freed", x.addr, h[60].addr);
	/* CPU 1 pops its newest */
	struct policy_obj y = kmalloc_on(&f, 64, 1);
	CHECK_EQ_U64("CPU 1 gets its last freed object back", y.addr, h[128].addr);
	CHECK_EQ_U64("no slab grown", info(&f, k64).nr_slabs, 2);
	check_ok(&f, "invariants after refills");
	f.ops->destroy(f.p);
}

/* ---- free_block, free_limit and cache_reap (1 CPU) ------------------------- */

/* 320 kmalloc(64) on CPU 0 hand out, in order (S1..S5 the slabs as grown):
 *   h1..h16 S1 o15..o0, h17..h64 S1 o63..o16,
 *   h65..h124 S2 o59..o0 (a new slab gives 60), h125..h128 S2 o63..o60,
 *   and the same 60 + 4 pattern for S3 (h129..h192), S4 (h193..h256) and
 *   S5 (h257..h320). All five slabs end full, the array empty. */
static void test_free_limit_and_reap(void)
{
	struct fixture f;
	static struct policy_obj h[321];
	struct err e;
	setup(&f, 1, false);
	uint32_t k64 = f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_NORMAL);

	/* First timer call at the first event, t = 0: CPU 0 reaps at 0.816 s. */
	CHECK_EQ_U64("first reap asked for at 0.816 s", timer_at(&f, 0), REAP_NS(0));

	for (int i = 1; i <= 320; i++)
		h[i] = kmalloc_on(&f, 64, 0);
	CHECK_EQ_U64("320 kmallocs: 5 pages", slab_pages(&f), 5);
	CHECK_EQ_U64("h1 is object 15 of S1", h[1].addr % 4096, 15 * 64);
	CHECK_EQ_U64("h65 is object 59 of S2", h[65].addr % 4096, 59 * 64);

	/* Free all in order on CPU 0 (no shared array with 1 CPU): each
	 * overflow (frees 121, 181, 241, 301) gives the oldest 60 back to
	 * their slabs:
	 *   121: h1..h60 -> S1 keeps 4 (partial); node free 60
	 *   181: h61..h120 -> S1 empty (head of slabs_free), S2 keeps 8; 120
	 *   241: h121..h180 -> S2 empty (slabs_free: S2 S1), S3 keeps 12; 180
	 *   301: h181..h240 -> S3 empty (S3 S2 S1), S4 keeps 16; 240 > 184:
	 *        the tail, S1, is destroyed: 176 free, 4 pages.
	 * The array ends holding h241..h320 (80). */
	for (int i = 1; i <= 300; i++)
		free_on(&f, &h[i], 0);
	CHECK_EQ_U64("300 frees: 180 free on the node, no slab freed",
		     info(&f, k64).free_in_partial, 180);
	CHECK_EQ_U64("300 frees: 5 pages", slab_pages(&f), 5);
	free_on(&f, &h[301], 0);
	struct policy_cache_info ci = info(&f, k64);
	CHECK_EQ_U64("free 301: above free_limit, one slab destroyed", ci.nr_slabs, 4);
	CHECK_EQ_U64("free 301: 240 - 64 = 176 free on the node", ci.free_in_partial, 176);
	CHECK_EQ_U64("free 301: slabs_freed", ci.slabs_freed, 1);
	/* S1 (the tail of slabs_free) went: its objects are no longer objects
	 * of the cache; S2's are, but already free in their slab */
	CHECK("S1's page is gone",
	      f.ops->free(f.p, &h[1], 0, &e) == SLABSIM_EMODEL && strstr(e.msg, "not an object"));
	CHECK("S2 is still there, its object free",
	      f.ops->free(f.p, &h[65], 0, &e) == SLABSIM_EMODEL && strstr(e.msg, "already free"));
	for (int i = 302; i <= 320; i++)
		free_on(&f, &h[i], 0);
	ci = info(&f, k64);
	CHECK_EQ_U64("all freed: 4 slabs", ci.nr_slabs, 4);
	CHECK_EQ_U64("all freed: slabinfo active = the 80 in the array",
		     ci.total_objects - ci.free_in_partial, 80);
	check_ok(&f, "invariants after the frees");

	/* Reaps of CPU 0 (t = 0.816 + 2k s). kmalloc-64's node part is first
	 * due at J0 + 1000 + 256 (its stagger), i.e. at the reap of J0 + 1704.
	 *  r0 (J0+204): the array was touched (allocations): only untouched.
	 *  r1 (J0+704): drain (120 + 4) / 5 = 24 oldest, h241..h264: S4
	 *     empties (slabs_free S4 S3 S2), S5 keeps 56; 176 + 24 = 200 > 184:
	 *     S2 destroyed; 136 free, 3 pages.
	 *  r2 (J0+1204): h265..h288 back to S5 (keeps 32); 160 free.
	 *  r3 (J0+1704): h289..h312 (S5 keeps 8); 184 free, not above. Node
	 *     part: free_touched (set by the refills) is cleared, no drain.
	 *  r4 (J0+2204): 8 left < 24: (8 + 1) / 2 = 4 back (S5 keeps 4); 188 >
	 *     184: S3 destroyed; 2 pages.
	 *  r5 (J0+2704): 4 left: 2 back (S5 keeps 2). Node part: untouched
	 *     free list: drain ceil(184 / (5 * 64)) = 1 slab: S4. 1 page.
	 *  r6 (J0+3204): 1 back (S5 keeps 1).
	 *  r7 (J0+3704): the last one back, S5 empties. Node part: drain 1: S5.
	 *     0 pages. */
	static const uint64_t pages_after[] = {4, 3, 3, 3, 2, 1, 1, 0};
	static const uint64_t free_after[] = {176, 136, 160, 184, 124, 62, 63, 0};
	uint64_t next = REAP_NS(0);
	for (int k = 0; k < 8; k++) {
		char name[96];
		CHECK_EQ_U64("the timer fires when asked", next, REAP_NS(k));
		next = timer_at(&f, REAP_NS(k));
		(void)snprintf(name, sizeof(name), "reap %d at %.3f s: pages", k, REAP_NS(k) / 1e9);
		CHECK_EQ_U64(name, slab_pages(&f), pages_after[k]);
		(void)snprintf(name, sizeof(name), "reap %d: free objects on the node", k);
		CHECK_EQ_U64(name, info(&f, k64).free_in_partial, free_after[k]);
		(void)snprintf(name, sizeof(name), "reap %d: invariants", k);
		check_ok(&f, name);
	}
	/* idle (every array and free list empty): no reap can change
	 * anything until an event does, so the timer asks for none; called at
	 * the next event (here 1 ms after reap 8 was due), it catches up and
	 * asks for its next reap */
	CHECK_EQ_U64("idle after reap 7: no timer until the next event", next, UINT64_MAX);
	CHECK_EQ_U64("called at an event: next reap 2 s later", timer_at(&f, REAP_NS(8) + 1000000),
		     REAP_NS(9));

	/* The reaps left the empty array untouched: the next refill is a
	 * partial one of 16 from a new slab (object 15 returned, 48 free). */
	struct policy_obj z = kmalloc_on(&f, 64, 0);
	CHECK_EQ_U64("after the reaps a refill takes 16 again", z.addr % 4096, 15 * 64);
	CHECK_EQ_U64("48 free on the node", info(&f, k64).free_in_partial, 48);
	f.ops->destroy(f.p);
}

/* ---- colouring ------------------------------------------------------------- */

static void test_colour(void)
{
	struct fixture f;
	struct err e;
	uint32_t id;
	setup(&f, 2, false);
	/* object 1288 (align 8): 3 per page, left 232, colour 232 / 64 = 3;
	 * limit 24, batchcount 12 (test_slab_layout) */
	struct policy_cache_spec spec = {.name = "colour3", .object_size = 1288, .align = 8};
	CHECK("cache_create colour3", f.ops->cache_create(f.p, &spec, &id, &e) == 0);
	CHECK_EQ_U64("colour3 has 3 colours", info(&f, id).g.colour, 3);

	/* Each refill finds nothing free and grows a slab; a new slab gives all
	 * 3 objects (batch 12 > 3), handed out 2, 1, 0. colour_next goes 1, 2,
	 * 0, 1: object 0 of the slabs sits at 64, 128, 0, 64 in its page, and
	 * the first object handed out at 64 + 2 * 1288 = 2640. */
	static const uint64_t offs[] = {64, 128, 0, 64};
	for (int s = 0; s < 4; s++) {
		struct policy_obj o2 = cache_alloc_on(&f, id, 0);
		(void)cache_alloc_on(&f, id, 0);
		struct policy_obj o0 = cache_alloc_on(&f, id, 0);
		char name[64];
		(void)snprintf(name, sizeof(name), "slab %d: object 0 at colour offset %llu", s + 1,
			       (unsigned long long)offs[s]);
		CHECK_EQ_U64(name, o0.addr % 4096, offs[s]);
		if (s == 0)
			CHECK_EQ_U64("first object handed out: object 2", o2.addr % 4096, 2640);
	}
	struct policy_cache_info ci = info(&f, id);
	CHECK_EQ_U64("4 slabs", ci.nr_slabs, 4);
	/* tail = 4 slabs * (4096 - 3 * 1288) = 4 * 232 */
	CHECK_EQ_U64("tail bytes include the colour left-over", ci.tail_bytes, 4 * 232);
	check_ok(&f, "invariants after colouring");
	f.ops->destroy(f.p);
}

/* ---- off-slab freelists ---------------------------------------------------- */

static void test_off_slab(void)
{
	struct fixture f;
	struct err e;
	uint32_t id;
	setup(&f, 1, false);
	uint32_t k32 = f.ops->kmalloc_cache(f.p, 32, POLICY_KMALLOC_NORMAL);
	/* object 512 with a ctor: OFF_SLAB, 8 per page, its 8-byte index
	 * arrays in kmalloc-32; limit 54, batchcount 27, free_limit (1 + 1) *
	 * 27 + 8 = 62 (1 CPU). Its id is 60, after 3 x 20 kmalloc caches:
	 * stagger 60 * 256 mod 1000 = 360. */
	struct policy_cache_spec spec = {
		.name = "ctor512", .object_size = 512, .align = 8, .ctor = true};
	CHECK("cache_create ctor512", f.ops->cache_create(f.p, &spec, &id, &e) == 0);
	CHECK_EQ_U64("ctor512 is off-slab", info(&f, id).g.freelist_mode, POLICY_FREELIST_OFF_SLAB);
	CHECK_EQ_U64("ctor512 has id 60", id, 60);
	(void)timer_at(&f, 0);

	/* The first allocation grows a slab; its index array is a kmalloc-32
	 * object taken on the same CPU: kmalloc-32's untouched array refills 16
	 * from a new slab and the array gets object 15. The ctor512 slab then
	 * gives all 8 (batch 16 > 8) and object 7 is returned. */
	struct policy_obj o = cache_alloc_on(&f, id, 0);
	CHECK_EQ_U64("object 7 of the new slab", o.addr % 4096, 7 * 512);
	struct policy_cache_info ck = info(&f, k32);
	CHECK_EQ_U64("kmalloc-32 grew one slab for the freelist", ck.nr_slabs, 1);
	CHECK_EQ_U64("kmalloc-32: the freelist counts as in use", ck.inuse_objects, 1);
	CHECK_EQ_U64("kmalloc-32: internal bytes = one 32-byte slot", ck.internal_bytes, 32);
	CHECK_EQ_U64("kmalloc-32: 124 - 16 free on the node", ck.free_in_partial, 108);
	/* the identity: free slot bytes by count (124 - 1) * 32 = 3936 = the
	 * page 4096 - tail 4096 - 124 * 32 = 128 - internal 32 - live 0 */
	CHECK_EQ_U64("kmalloc-32: (total - inuse) * size",
		     (ck.total_objects - ck.inuse_objects) * 32,
		     ck.nr_pages * 4096 - ck.tail_bytes - ck.internal_bytes);
	CHECK_EQ_U64("2 slab pages", slab_pages(&f), 2);
	check_ok(&f, "invariants with an off-slab freelist");

	/* Free the object; reaps then drain the arrays (newest cache first):
	 *  r0: both arrays touched -> untouched.
	 *  r1: ctor512 (8 held) gives (54+4)/5 = 11 > 8 -> 4 (slab keeps 4);
	 *      kmalloc-32 (15 held) gives 8 (its slab keeps 8).
	 *  r2: ctor512 2 (keeps 2); kmalloc-32 4 (keeps 4), its node part
	 *      (due J0 + 1000) finds no free slab.
	 *  r3: ctor512 1 (keeps 1), node part (due J0 + 1360): nothing free;
	 *      kmalloc-32 2 (keeps 2, the freelist among them).
	 *  r4: ctor512's last object back: its slab is free; kmalloc-32 1.
	 *  r5: ctor512's node part destroys the free slab: the index array goes
	 *      back to kmalloc-32's CPU 0 array, which is then drained in the
	 *      same pass (untouched, 1 entry): kmalloc-32's slab is free.
	 *  r6: kmalloc-32's node part destroys it. */
	free_on(&f, &o, 0);
	for (int k = 0; k <= 4; k++)
		(void)timer_at(&f, REAP_NS(k));
	CHECK_EQ_U64("r4: ctor512's slab is free but kept", info(&f, id).nr_slabs, 1);
	CHECK_EQ_U64("r4: ctor512 free objects", info(&f, id).free_in_partial, 8);
	(void)timer_at(&f, REAP_NS(5));
	CHECK_EQ_U64("r5: ctor512's slab destroyed", info(&f, id).nr_slabs, 0);
	ck = info(&f, k32);
	CHECK_EQ_U64("r5: the freelist went back to kmalloc-32", ck.internal_bytes, 0);
	CHECK_EQ_U64("r5: kmalloc-32 in use", ck.inuse_objects, 0);
	CHECK_EQ_U64("r5: kmalloc-32's slab is free", ck.free_in_partial, 124);
	CHECK_EQ_U64("r5: 1 page left", slab_pages(&f), 1);
	check_ok(&f, "invariants after the off-slab slab went");
	(void)timer_at(&f, REAP_NS(6));
	CHECK_EQ_U64("r6: no page left", slab_pages(&f), 0);
	check_ok(&f, "invariants at the end");
	f.ops->destroy(f.p);
}

/* ---- merging, limits, errors ----------------------------------------------- */

static void test_merge(void)
{
	struct fixture f;
	struct err e;
	uint32_t q, p, r, a, b;
	setup(&f, 2, false);
	/* q: 64 bytes align 8; p: 64 bytes align 64 cannot alias q (SLAB wants
	 * q's align 8 to be a multiple of 64). r (64, align 8) fits both; the
	 * kernel walks the root caches oldest first: q. */
	struct policy_cache_spec sq = {.name = "q", .object_size = 64, .align = 8};
	struct policy_cache_spec sp = {.name = "p", .object_size = 64, .align = 64};
	struct policy_cache_spec sr = {.name = "r", .object_size = 64, .align = 8};
	CHECK("create q", f.ops->cache_create(f.p, &sq, &q, &e) == 0);
	CHECK("create p", f.ops->cache_create(f.p, &sp, &p, &e) == 0);
	CHECK("create r", f.ops->cache_create(f.p, &sr, &r, &e) == 0);
	CHECK_EQ_U64("p is its own cache (alignment)", info(&f, p).alias_of, p);
	CHECK_EQ_U64("r aliases the oldest fit, q", info(&f, r).alias_of, q);
	/* a (60 -> 64-byte slots) is no_merge, so b (57, align 4: ALIGN(57, 8)
	 * = 64, calculate_alignment 8) aliases q, the oldest fit; q's
	 * object_size stays max(64, 57). b's objects keep b's object_size:
	 * slot 64, object 57, meta 7. */
	struct policy_cache_spec sa = {
		.name = "a", .object_size = 60, .align = 8, .no_merge = true};
	struct policy_cache_spec sb = {.name = "b", .object_size = 57, .align = 4};
	CHECK("create a (no_merge)", f.ops->cache_create(f.p, &sa, &a, &e) == 0);
	CHECK("create b", f.ops->cache_create(f.p, &sb, &b, &e) == 0);
	CHECK_EQ_U64("a is its own cache", info(&f, a).alias_of, a);
	CHECK_EQ_U64("b aliases q", info(&f, b).alias_of, q);
	CHECK_EQ_U64("q's object_size stays 64", info(&f, q).g.object_size, 64);
	struct policy_obj ob = cache_alloc_on(&f, b, 0);
	CHECK_EQ_U64("b object: slot 64", ob.slot_bytes, 64);
	CHECK_EQ_U64("b object: object 57", ob.object_bytes, 57);
	CHECK_EQ_U64("b object: meta 7", ob.meta_bytes, 7);
	struct policy_obj o = cache_alloc_on(&f, r, 0);
	CHECK_EQ_U64("alias object: object 64", o.object_bytes, 64);
	CHECK_EQ_U64("alias objects: counted on q", info(&f, q).inuse_objects, 2);
	check_ok(&f, "invariants with aliases");
	f.ops->destroy(f.p);

	/* DEBUG_SLAB poisons every cache: nothing merges */
	setup(&f, 2, true);
	CHECK("debug: create q", f.ops->cache_create(f.p, &sq, &q, &e) == 0);
	CHECK("debug: create r", f.ops->cache_create(f.p, &sr, &r, &e) == 0);
	CHECK_EQ_U64("debug: r is its own cache", info(&f, r).alias_of, r);
	/* the reference's DEBUG example: object 100, 128-byte slots, object at
	 * slot + 8. DEBUG caps the limit at 32, batchcount 16: the first refill
	 * takes 16 and hands out object 15, at 15 * 128 + 8. */
	struct policy_cache_spec s100 = {.name = "o100", .object_size = 100, .align = 8};
	uint32_t d;
	CHECK("debug: create o100", f.ops->cache_create(f.p, &s100, &d, &e) == 0);
	o = cache_alloc_on(&f, d, 0);
	CHECK_EQ_U64("debug: object at slot + 8", o.addr % 4096, 15 * 128 + 8);
	CHECK_EQ_U64("debug: slot 128", o.slot_bytes, 128);
	CHECK_EQ_U64("debug: meta 28", o.meta_bytes, 28);
	check_ok(&f, "debug: invariants");
	f.ops->destroy(f.p);
}

static void test_limits(void)
{
	struct fixture f;
	struct err e;
	struct policy_obj o;
	setup(&f, 2, false);
	/* SLAB's largest cache is kmalloc-4M (order 10): no page path */
	struct policy_alloc_req r = {.cache = POLICY_KMALLOC, .size = 4u << 20, .cpu = 0};
	CHECK("kmalloc(4 MiB) succeeds", f.ops->alloc(f.p, &r, &o, &e) == 0);
	CHECK_EQ_U64("kmalloc(4 MiB): 1024 slab pages", slab_pages(&f), 1024);
	CHECK_EQ_U64("kmalloc(4 MiB): bytes_alloc", o.bytes_alloc, 4u << 20);
	struct policy_stats st;
	f.ops->stats(f.p, &st);
	CHECK_EQ_U64("no large pages under SLAB", st.large_pages, 0);
	r.size = (4u << 20) + 1;
	CHECK("kmalloc(4 MiB + 1) fails", f.ops->alloc(f.p, &r, &o, &e) == SLABSIM_EUSAGE);
	CHECK_EQ_U64("no cache above 4 MiB",
		     f.ops->kmalloc_cache(f.p, (4u << 20) + 1, POLICY_KMALLOC_NORMAL),
		     POLICY_NO_CACHE);
	r.size = 0;
	CHECK("kmalloc(0) is refused", f.ops->alloc(f.p, &r, &o, &e) == SLABSIM_EUSAGE);
	r.size = 8;
	r.cpu = 2;
	CHECK("CPU 2 of 2 is refused", f.ops->alloc(f.p, &r, &o, &e) == SLABSIM_EUSAGE);
	r = (struct policy_alloc_req){.cache = 9999, .cpu = 0};
	CHECK("unknown cache id is refused", f.ops->alloc(f.p, &r, &o, &e) == SLABSIM_EUSAGE);
	/* kmalloc(8) uses kmalloc-32 under SLAB */
	CHECK_EQ_U64("kmalloc(8) -> kmalloc-32",
		     f.ops->kmalloc_cache(f.p, 8, POLICY_KMALLOC_NORMAL),
		     f.ops->kmalloc_cache(f.p, 32, POLICY_KMALLOC_NORMAL));
	/* 5.4: no kmalloc-cg, __GFP_ACCOUNT uses kmalloc-N */
	CHECK_EQ_U64("5.4: CGROUP kmalloc -> kmalloc-64",
		     f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_CGROUP),
		     f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_NORMAL));
	check_ok(&f, "invariants after a 4 MiB kmalloc");
	f.ops->destroy(f.p);
}

/* ---- 6.1: kmalloc caches up to 8 KiB, the page allocator above --------- */

static void test_limits_61(void)
{
	struct fixture f;
	struct err e;
	struct policy_obj o, big;
	struct policy_cfg cfg;
	policy_cfg_default(&cfg);
	cfg.kernel = POLICY_KERNEL_6_1;
	cfg.nr_cpus = 2;
	f.ops = policy_find("slab");
	if (f.ops->create(&cfg, &f.p, &e)) {
		printf("Bail out! %s\n", e.msg);
		exit(1);
	}
	/* KMALLOC_SHIFT_HIGH = PAGE_SHIFT + 1: kmalloc-8k is the largest */
	CHECK("6.1: kmalloc(8 KiB) has a cache",
	      f.ops->kmalloc_cache(f.p, 8192, POLICY_KMALLOC_NORMAL) != POLICY_NO_CACHE);
	CHECK_EQ_U64("6.1: no cache for 8 KiB + 1",
		     f.ops->kmalloc_cache(f.p, 8193, POLICY_KMALLOC_NORMAL), POLICY_NO_CACHE);
	/* kmalloc(65537): get_order = 5, 32 pages from the page allocator */
	struct policy_alloc_req r = {.cache = POLICY_KMALLOC, .size = 65537, .cpu = 1};
	CHECK("6.1: kmalloc(65537) succeeds", f.ops->alloc(f.p, &r, &big, &e) == 0);
	CHECK_EQ_U64("6.1: kmalloc(65537): bytes_alloc 128 KiB", big.bytes_alloc, 131072);
	CHECK_EQ_U64("6.1: kmalloc(65537): no cache", big.cache, POLICY_NO_CACHE);
	CHECK_EQ_U64("6.1: kmalloc_bytes agrees",
		     f.ops->kmalloc_bytes(f.p, 65537, POLICY_KMALLOC_NORMAL), 131072);
	struct policy_stats st;
	f.ops->stats(f.p, &st);
	CHECK_EQ_U64("6.1: 32 large pages, no slab page", st.large_pages * 1000 + st.slab_pages,
		     32000);
	r.size = 100;
	CHECK("6.1: kmalloc(100) succeeds", f.ops->alloc(f.p, &r, &o, &e) == 0);
	check_ok(&f, "6.1: invariants with a large kmalloc");
	free_on(&f, &big, 0);
	f.ops->stats(f.p, &st);
	CHECK_EQ_U64("6.1: the large kmalloc freed", st.large_pages + st.large_objs, 0);
	CHECK("6.1: a second free of it is refused",
	      f.ops->free(f.p, &big, 0, &e) == SLABSIM_EUSAGE);
	check_ok(&f, "6.1: invariants after the free");
	f.ops->destroy(f.p);

	/* !CONFIG_MEMCG_KMEM: accounted kmallocs use kmalloc-N */
	cfg.no_kmalloc_cg = true;
	if (f.ops->create(&cfg, &f.p, &e)) {
		printf("Bail out! %s\n", e.msg);
		exit(1);
	}
	CHECK_EQ_U64("6.1 without kmalloc-cg: CGROUP kmalloc -> kmalloc-64",
		     f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_CGROUP),
		     f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_NORMAL));
	f.ops->destroy(f.p);
}

/* ---- the start state from a slabinfo row -------------------------------- */

/* kmalloc-64 with 2 CPUs (5.4 geometry): 64 objects per page, limit 120,
 * batchcount 60, shared array 480, free_limit (1 + 2) * 60 + 64 = 244. */
static void test_prepopulate(void)
{
	struct fixture f;
	struct err e;
	setup(&f, 2, false);
	uint32_t k64 = f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_NORMAL);
	struct policy_obj *objs = calloc(640, sizeof(*objs));
	uint64_t nlive = 0;
	/* 10 slabs, 2 wholly free, 500 active, 30 in the shared array: the
	 * shared array is not empty, so each CPU's array holds batchcount 60:
	 * 500 - 30 - 2 * 60 = 350 live. 500 objects fill 7 slabs and 52 of
	 * the 8th: free_objects = 640 - 500 = 140 (12 on the partial slab, 128
	 * on the 2 free ones). */
	struct policy_start st = {
		.active_objs = 500, .nr_slabs = 10, .free_slabs = 2, .shared_avail = 30};
	CHECK("prepopulate succeeds", f.ops->prepopulate(f.p, k64, &st, objs, &nlive, &e) == 0);
	CHECK_EQ_U64("prepopulate: 350 live", nlive, 350);
	struct policy_slabinfo si;
	f.ops->get_slabinfo(f.p, k64, &si);
	CHECK_EQ_U64("prepopulate: slabinfo active 500 of 640", si.active_objs * 1000 + si.num_objs,
		     500640);
	CHECK_EQ_U64("prepopulate: 8 active slabs of 10", si.active_slabs * 100 + si.num_slabs,
		     810);
	CHECK_EQ_U64("prepopulate: sharedavail 30", si.shared_avail, 30);
	CHECK_EQ_U64("prepopulate: live objects", info(&f, k64).inuse_objects, 350);
	check_ok(&f, "prepopulate: invariants");
	/* 90 allocations on CPU 1: 60 from its array, then a refill moves
	 * the shared array's 30 (transfer_objects), which serve the other 30:
	 * no slab taken from the node, none grown, the shared array empty */
	for (int i = 0; i < 90; i++)
		(void)kmalloc_on(&f, 64, 1);
	f.ops->get_slabinfo(f.p, k64, &si);
	CHECK_EQ_U64("prepopulate: CPU 1's array then the shared array serve 90, no new slab",
		     si.num_slabs * 1000 + si.shared_avail, 10000);
	check_ok(&f, "prepopulate: invariants after allocations");
	f.ops->destroy(f.p);

	/* empty shared array: only CPU 0's array holds a batch */
	setup(&f, 2, false);
	k64 = f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_NORMAL);
	st = (struct policy_start){.active_objs = 100, .nr_slabs = 2};
	CHECK("prepopulate (idle) succeeds",
	      f.ops->prepopulate(f.p, k64, &st, objs, &nlive, &e) == 0);
	CHECK_EQ_U64("prepopulate (idle): 100 - 60 on CPU 0 = 40 live", nlive, 40);
	/* CPU 1 finds its array empty: refill from the node's 28 free slots */
	(void)kmalloc_on(&f, 64, 1);
	CHECK_EQ_U64("prepopulate (idle): CPU 1 refills from the node, no new slab", slab_pages(&f),
		     2);
	(void)kmalloc_on(&f, 64, 0);
	CHECK_EQ_U64("prepopulate (idle): CPU 0 takes from its array", slab_pages(&f), 2);
	check_ok(&f, "prepopulate (idle): invariants");
	st.active_objs = 200;
	CHECK("prepopulate: 200 objects do not fit 2 slabs",
	      f.ops->prepopulate(f.p, k64, &st, objs, &nlive, &e) == SLABSIM_EUSAGE);
	free(objs);
	f.ops->destroy(f.p);
}

/* ---- a long idle gap: skipped, the same as stepped ------------------------- */

/* One event pattern on both CPUs of a 2-CPU model: allocations on CPU
 * 0 (two refills of kmalloc-64 and one of kmalloc-128), then every other one
 * freed on CPU 1, the rest on CPU 0: full arrays, the shared array, free
 * slabs. */
static void gap_events(struct fixture *f, struct policy_obj *o, int n)
{
	for (int i = 0; i < n; i++)
		o[i] = kmalloc_on(f, i % 3 ? 64 : 128, 0);
	for (int i = 0; i < n; i++)
		free_on(f, &o[i], (uint32_t)i % 2);
}

/* What a reap leaves: pages and the free slots on the node lists. */
static uint64_t gap_state(struct fixture *f)
{
	return slab_pages(f) * 1000000 + info(f, 1).free_in_partial * 1000 +
	       info(f, 2).free_in_partial;
}

/* Model A is stepped: its timer is called every 100 ms, so each call runs
 * at most one reap per CPU (what the engine did before idle gaps were
 * skipped). Model B gets one call at the end of a 10^5 s gap, as the engine
 * now does after the timer went idle. Both then see the same events and
 * 40 s of reaps: every observable after each reap must be equal, which
 * needs the schedule (each CPU's next reap, each cache's next node reap)
 * skipped exactly. */
static void test_idle_gap(void)
{
	struct fixture a, b;
	static struct policy_obj oa[300], ob[300];
	const uint64_t ms = 1000000, gap_end = 100000000ull * ms + 7 * ms;
	setup(&a, 2, false);
	setup(&b, 2, false);
	(void)timer_at(&a, 0);
	(void)timer_at(&b, 0);
	gap_events(&a, oa, 300);
	gap_events(&b, ob, 300);
	CHECK("the events leave work for the reaps", slab_pages(&a) > 0);
	uint64_t t, next_b = 0;
	bool same = true;
	for (t = 100 * ms; t < 60000 * ms; t += 100 * ms)
		(void)timer_at(&a, t);
	for (t = 100 * ms; t < 60000 * ms; t += 100 * ms)
		if (next_b != UINT64_MAX && t >= next_b)
			next_b = timer_at(&b, next_b);
	CHECK_EQ_U64("B: idle within a minute (no timer asked for)", next_b, UINT64_MAX);
	CHECK_EQ_U64("A and B alike after a minute", gap_state(&a), gap_state(&b));
	for (t = 60000 * ms; t <= gap_end; t += 100 * ms)
		(void)timer_at(&a, t);
	uint64_t nb = timer_at(&b, gap_end);
	CHECK("B: asks for its next reap after the gap", nb > gap_end && nb < gap_end + 3000 * ms);
	gap_events(&a, oa, 200);
	gap_events(&b, ob, 200);
	for (t = gap_end + 100 * ms; t <= gap_end + 40000 * ms; t += 100 * ms) {
		(void)timer_at(&a, t);
		(void)timer_at(&b, t);
		if (gap_state(&a) != gap_state(&b))
			same = false;
	}
	CHECK("A and B alike after every reap of the 40 s after the gap", same);
	CHECK("the reaps after the gap gave pages back", slab_pages(&a) == 0);
	check_ok(&b, "B: invariants");
	a.ops->destroy(a.p);
	b.ops->destroy(b.p);
}

int main(void)
{
	test_first_alloc();
	test_idle_gap();
	test_shared_array();
	test_free_limit_and_reap();
	test_colour();
	test_off_slab();
	test_merge();
	test_limits();
	test_limits_61();
	test_prepopulate();
	return check_done();
}
