/* test_slob.c - the SLOB model on hand-made sequences.
 *
 * Every expected figure is worked out by hand from the kernel rules
 * (reference sections 5 and 7.3; SLOB units are 2 bytes, a page has 2048) in
 * the comment above its check, not taken from the model's output. Offsets are
 * bytes from the page base; a free block is written {offset, units}.
 */
#include "check.h"
#include "policy.h"
#include "slob.h"

#include <stdlib.h>

struct fixture {
	struct policy *p;
	const struct policy_ops *ops;
};

static void setup(struct fixture *f, enum policy_align align, enum policy_kernel kernel)
{
	struct policy_cfg cfg;
	struct err e;
	policy_cfg_default(&cfg);
	cfg.align = align;
	cfg.kernel = kernel;
	f->ops = policy_find("slob");
	if (!f->ops || f->ops->create(&cfg, &f->p, &e)) {
		printf("Bail out! cannot create slob: %s\n", f->ops ? e.msg : "not registered");
		exit(1);
	}
}

static void teardown(struct fixture *f)
{
	f->ops->destroy(f->p);
}

static struct policy_obj kmalloc_n(struct fixture *f, uint64_t size)
{
	struct policy_alloc_req r = {.cache = POLICY_KMALLOC, .size = size, .node = -1};
	struct policy_obj o = {0};
	struct err e;
	if (f->ops->alloc(f->p, &r, &o, &e))
		printf("# kmalloc(%" PRIu64 ") failed: %s\n", size, e.msg);
	return o;
}

static uint32_t new_cache(struct fixture *f, const char *name, uint32_t object_size, uint32_t flags)
{
	struct policy_cache_spec spec = {.name = name, .object_size = object_size, .flags = flags};
	struct err e;
	uint32_t id = 0;
	if (f->ops->cache_create(f->p, &spec, &id, &e))
		printf("# cache_create(%s) failed: %s\n", name, e.msg);
	return id;
}

static struct policy_obj cache_alloc(struct fixture *f, uint32_t id)
{
	struct policy_alloc_req r = {.cache = id, .node = -1};
	struct policy_obj o = {0};
	struct err e;
	if (f->ops->alloc(f->p, &r, &o, &e))
		printf("# cache alloc failed: %s\n", e.msg);
	return o;
}

static int free_obj(struct fixture *f, const struct policy_obj *o)
{
	struct err e;
	int rc = f->ops->free(f->p, o, 0, &e);
	if (rc)
		printf("# free failed: %s\n", e.msg);
	return rc;
}

static void check_ok(struct fixture *f, const char *name)
{
	struct err e;
	int rc = f->ops->check(f->p, &e);
	CHECK(name, rc == 0);
	if (rc)
		printf("#   %s\n", e.msg);
}

static struct policy_stats stats(struct fixture *f)
{
	struct policy_stats st;
	f->ops->stats(f->p, &st);
	return st;
}

/* The largest power of two dividing addr, capped at a page. */
static uint64_t alignment_of(uint64_t addr)
{
	uint64_t a = 1;
	while (a < 4096 && !(addr & a))
		a <<= 1;
	return a;
}

/* "{off,units} {off,units} ... u=<units> list=<l>" of the page holding addr. */
static const char *page_str(struct fixture *f, uint64_t addr)
{
	static char buf[512];
	struct slob_free_block b[16];
	struct slob_page_info pi;
	if (!slob_page_info(f->p, addr, &pi, b, 16))
		return "no page";
	size_t n = 0;
	for (uint32_t i = 0; i < pi.nr_free && i < 16; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "{%u,%u} ", b[i].offset,
				      b[i].units);
	(void)snprintf(buf + n, sizeof(buf) - n, "u=%u list=%d", pi.units, (int)pi.list);
	return buf;
}

static uint64_t base_of(uint64_t addr)
{
	return addr & ~4095ULL;
}

/* "p0 p1 ..." of list l, pages named by index into bases[]. */
static const char *list_str(struct fixture *f, enum slob_list l, const uint64_t *pages, int n)
{
	static char buf[128];
	uint64_t got[16];
	uint64_t len = slob_list_pages(f->p, l, got, 16);
	size_t k = 0;
	buf[0] = '\0';
	for (uint64_t i = 0; i < len && i < 16; i++) {
		int name = -1;
		for (int j = 0; j < n; j++)
			if (pages[j] == got[i])
				name = j;
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%sP%d", i ? " " : "", name);
	}
	return buf;
}

/* Reference table 7.3, on a fresh page each. A kmalloc(n) block is n + 8
 * bytes: units = ceil((n + 8) / 2); list by n + 8 against 256 and 1024. Off:
 * the block starts at offset 0, the object at 8. On: the block goes where
 * block + 8 is a multiple of align = max(8, n) for power-of-two n, the first
 * such place being n - 8 (n >= 8), so the object is at n; other sizes keep
 * align 8 and the off placement. bytes_alloc = n + 8 (not unit-rounded). */
static void test_table_7_3(void)
{
	static const struct {
		uint32_t size, units;
		enum slob_list list;
		uint64_t align_off, align_on, bytes_alloc;
	} rows[] = {
		{8, 8, SLOB_LIST_SMALL, 8, 8, 16},	   /* 16 bytes */
		{64, 36, SLOB_LIST_SMALL, 8, 64, 72},	   /* 72 */
		{100, 54, SLOB_LIST_SMALL, 8, 8, 108},	   /* 108 */
		{128, 68, SLOB_LIST_SMALL, 8, 128, 136},   /* 136 */
		{250, 129, SLOB_LIST_MEDIUM, 8, 8, 258},   /* 258 >= 256 */
		{256, 132, SLOB_LIST_MEDIUM, 8, 256, 264}, /* 264 */
		{4000, 2004, SLOB_LIST_LARGE, 8, 8, 4008}, /* 4008 >= 1024 */
	};
	char name[96];
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		for (int on = 0; on < 2; on++) {
			struct fixture f;
			struct slob_page_info pi;
			struct policy_cache_info ci;
			setup(&f, on ? POLICY_ALIGN_NATURAL : POLICY_ALIGN_NONE, POLICY_KERNEL_5_4);
			struct policy_obj o = kmalloc_n(&f, rows[i].size);
			(void)snprintf(name, sizeof(name), "7.3 kmalloc(%u) %s: block units",
				       rows[i].size, on ? "on" : "off");
			CHECK_EQ_U64(name, o.slot_bytes, rows[i].units * 2);
			(void)snprintf(name, sizeof(name),
				       "7.3 kmalloc(%u) %s: header 8, object = block - 8",
				       rows[i].size, on ? "on" : "off");
			CHECK(name, o.meta_bytes == 8 && o.object_bytes == rows[i].units * 2 - 8);
			(void)snprintf(name, sizeof(name), "7.3 kmalloc(%u) %s: bytes_alloc",
				       rows[i].size, on ? "on" : "off");
			CHECK_EQ_U64(name, o.bytes_alloc, rows[i].bytes_alloc);
			(void)snprintf(name, sizeof(name), "7.3 kmalloc(%u) %s: list", rows[i].size,
				       on ? "on" : "off");
			CHECK(name,
			      slob_page_info(f.p, o.addr, &pi, NULL, 0) && pi.list == rows[i].list);
			(void)snprintf(name, sizeof(name), "7.3 kmalloc(%u) %s: object alignment",
				       rows[i].size, on ? "on" : "off");
			CHECK_EQ_U64(name, alignment_of(o.addr),
				     on ? rows[i].align_on : rows[i].align_off);
			f.ops->cache_info(f.p, o.cache, &ci);
			(void)snprintf(name, sizeof(name),
				       "7.3 kmalloc(%u) %s: accounted to the kmalloc pseudo-cache",
				       rows[i].size, on ? "on" : "off");
			CHECK(name, o.cache != POLICY_NO_CACHE && !ci.kmalloc &&
					    strcmp(ci.name, "kmalloc") == 0 &&
					    ci.inuse_objects == 1 && ci.nr_pages == 0);
			check_ok(&f, "7.3 check");
			teardown(&f);
		}
	}
	/* kmalloc(4088): 4088 >= PAGE_SIZE - 8, so whole pages of get_order =
	 * 0, no header: bytes_alloc 4096, page-aligned, not a SLOB page. */
	for (int on = 0; on < 2; on++) {
		struct fixture f;
		struct slob_page_info pi;
		setup(&f, on ? POLICY_ALIGN_NATURAL : POLICY_ALIGN_NONE, POLICY_KERNEL_5_4);
		struct policy_obj o = kmalloc_n(&f, 4088);
		CHECK("7.3 kmalloc(4088): whole page, no cache, order 0",
		      o.cache == POLICY_NO_CACHE && o.order == 0);
		CHECK("7.3 kmalloc(4088): bytes_alloc = slot = object = 4096, no header",
		      o.bytes_alloc == 4096 && o.slot_bytes == 4096 && o.object_bytes == 4096 &&
			      o.meta_bytes == 0);
		CHECK_EQ_U64("7.3 kmalloc(4088): page-aligned", alignment_of(o.addr), 4096);
		CHECK("7.3 kmalloc(4088): no SLOB page",
		      !slob_page_info(f.p, o.addr, &pi, NULL, 0));
		struct policy_stats st = stats(&f);
		CHECK("7.3 kmalloc(4088): 1 large page, 0 slab pages",
		      st.large_pages == 1 && st.large_objs == 1 && st.slab_pages == 0 &&
			      st.buddy_pages == 1);
		free_obj(&f, &o);
		st = stats(&f);
		CHECK("7.3 kfree of a whole-page kmalloc gives the page back",
		      st.large_pages == 0 && st.large_objs == 0 && st.buddy_pages == 0);
		check_ok(&f, "7.3 kmalloc(4088) check");
		teardown(&f);
	}
}

/* 7.3 fresh page, kmalloc(64). Off: block 0..71, object 8, free {72, 2012}.
 * On: the first start with start + 8 a multiple of 64 is 56 (delta 28
 * units); block 56..127, object 64; free {0, 28} and {128, 1984}. Both:
 * sp->units = 2048 - 36 = 2012. */
static void test_fresh_page_64(void)
{
	struct fixture f;
	setup(&f, POLICY_ALIGN_NONE, POLICY_KERNEL_5_4);
	struct policy_obj o = kmalloc_n(&f, 64);
	CHECK_EQ_U64("fresh page kmalloc(64) off: object at 8", o.addr - base_of(o.addr), 8);
	CHECK_EQ_STR("fresh page kmalloc(64) off: one free block", page_str(&f, o.addr),
		     "{72,2012} u=2012 list=0");
	check_ok(&f, "fresh page kmalloc(64) off: check");
	teardown(&f);

	setup(&f, POLICY_ALIGN_NATURAL, POLICY_KERNEL_5_4);
	o = kmalloc_n(&f, 64);
	CHECK_EQ_U64("fresh page kmalloc(64) on: object at 64", o.addr - base_of(o.addr), 64);
	CHECK_EQ_STR("fresh page kmalloc(64) on: 28-unit head fragment and the rest",
		     page_str(&f, o.addr), "{0,28} {128,1984} u=2012 list=0");
	check_ok(&f, "fresh page kmalloc(64) on: check");
	teardown(&f);
}

/* 7.3 kmalloc(100) on a fresh page: block 0..107 (54 units), object 8. The
 * next 8-aligned request (kmalloc(8), 16 bytes = 8 units; align 8 either
 * way) starts at ALIGN(108, 8) = 112, so its object is at 120 and {108, 2}
 * (4 bytes) stays free beside the tail {128, 1984}; units = 2048 - 54 - 8 =
 * 1986 = 2 + 1984. */
static void test_kmalloc100_fragment(void)
{
	for (int on = 0; on < 2; on++) {
		struct fixture f;
		setup(&f, on ? POLICY_ALIGN_NATURAL : POLICY_ALIGN_NONE, POLICY_KERNEL_5_4);
		struct policy_obj a = kmalloc_n(&f, 100);
		struct policy_obj b = kmalloc_n(&f, 8);
		CHECK_EQ_U64(on ? "kmalloc(100) on: object at 8" : "kmalloc(100) off: object at 8",
			     a.addr - base_of(a.addr), 8);
		CHECK_EQ_U64(on ? "then kmalloc(8) on: object at 120"
				: "then kmalloc(8) off: object at 120",
			     b.addr - a.addr + 8, 120);
		CHECK_EQ_STR(on ? "kmalloc(100) on: a 2-unit fragment at 108"
				: "kmalloc(100) off: a 2-unit fragment at 108",
			     page_str(&f, a.addr), "{108,2} {128,1984} u=1986 list=0");
		check_ok(&f, "kmalloc(100) fragment: check");
		teardown(&f);
	}
}

/* Next fit, full pages and the list head (5.4, natural). c200: object 200,
 * align 8, 100 units, small list; 20 per page fill 0..3999 and leave
 * {4000, 48}. c96: 48 units, small. Steps and expected state:
 *  a-c) 60 x c200: each page is full of c200 after 20 (48 left < 100), so
 *       #21 and #41 take fresh pages, each at the head: small = P2 P1 P0.
 *  d) free P0's object at 1000: P0 = {1000,100} {4000,48}, u=148; P0 stays
 *     where it is (a page that was not full keeps its place).
 *  e) c200: P2 and P1 have 48 < 100 units and are skipped; P0 fits at its
 *     hole (exact fit) -> u=48 and P0 becomes the head, the pages before it
 *     following in order: P0 P2 P1.
 *  f) kmalloc(8) (8 units): the head P0 serves it at its tail: block
 *     4000..4015, P0 = {4016,40}; no move.
 *  g) c96: P0 has 40 < 48, skipped; P2's tail {4000,48} is an exact fit, P2
 *     is full and leaves the list; no rotation: P0 P1 (a wrongly rotated
 *     list would read P1 P0).
 *  h) free P2's object at 600: P2 was full, so it gets {600,100} as its only
 *     free block and goes to the head of the small list: P2 P0 P1.
 *  i) free P2's object at 800: merged with {600,100} -> {600,200}, u=200. */
static void test_lists(void)
{
	struct fixture f;
	struct policy_obj o[3][20];
	uint64_t pg[3];
	setup(&f, POLICY_ALIGN_NATURAL, POLICY_KERNEL_5_4);
	uint32_t c200 = new_cache(&f, "c200", 200, 0);
	uint32_t c96 = new_cache(&f, "c96", 96, 0);

	for (int p = 0; p < 3; p++) {
		for (int i = 0; i < 20; i++)
			o[p][i] = cache_alloc(&f, c200);
		pg[p] = base_of(o[p][0].addr);
	}
	CHECK("lists: 20 c200 per page at 200-byte steps", o[0][19].addr - pg[0] == 3800 &&
								   o[1][0].addr == pg[1] &&
								   o[2][5].addr == pg[2] + 1000);
	CHECK_EQ_U64("lists: 3 pages", stats(&f).slab_pages, 3);
	CHECK_EQ_STR("lists: fresh pages go to the head", list_str(&f, SLOB_LIST_SMALL, pg, 3),
		     "P2 P1 P0");
	CHECK_EQ_STR("lists: a full-of-c200 page keeps 48 units", page_str(&f, pg[1]),
		     "{4000,48} u=48 list=0");

	free_obj(&f, &o[0][5]);
	CHECK_EQ_STR("lists (d): P0 has a hole", page_str(&f, pg[0]),
		     "{1000,100} {4000,48} u=148 list=0");
	CHECK_EQ_STR("lists (d): no move on a free", list_str(&f, SLOB_LIST_SMALL, pg, 3),
		     "P2 P1 P0");

	struct policy_obj x = cache_alloc(&f, c200);
	CHECK_EQ_U64("lists (e): pages with too few units skipped, first fit in P0", x.addr,
		     pg[0] + 1000);
	CHECK_EQ_STR("lists (e): the serving page becomes the head, order kept",
		     list_str(&f, SLOB_LIST_SMALL, pg, 3), "P0 P2 P1");

	struct policy_obj k8 = kmalloc_n(&f, 8);
	CHECK_EQ_U64("lists (f): kmalloc(8) at P0's tail", k8.addr, pg[0] + 4008);
	CHECK_EQ_STR("lists (f): P0 keeps 40 units", page_str(&f, pg[0]), "{4016,40} u=40 list=0");

	struct policy_obj y = cache_alloc(&f, c96);
	CHECK_EQ_U64("lists (g): c96 fills P2's tail", y.addr, pg[2] + 4000);
	CHECK_EQ_STR("lists (g): P2 is full, on no list", page_str(&f, pg[2]), "u=0 list=3");
	CHECK_EQ_STR("lists (g): no rotation when the page left the list",
		     list_str(&f, SLOB_LIST_SMALL, pg, 3), "P0 P1");

	free_obj(&f, &o[2][3]);
	CHECK_EQ_STR("lists (h): a full page gets one free block", page_str(&f, pg[2]),
		     "{600,100} u=100 list=0");
	CHECK_EQ_STR("lists (h): ... and goes to the list head",
		     list_str(&f, SLOB_LIST_SMALL, pg, 3), "P2 P0 P1");
	free_obj(&f, &o[2][4]);
	CHECK_EQ_STR("lists (i): merged with the block before it", page_str(&f, pg[2]),
		     "{600,200} u=200 list=0");
	CHECK_EQ_U64("lists: still 3 pages", stats(&f).slab_pages, 3);
	check_ok(&f, "lists: check");
	teardown(&f);
}

/* Coalescing (5.4, natural; c200 = 100 units, blocks at 0, 200, 400, ...).
 * A: alloc a b c (free {600,1748}); free b -> {200,100} {600,1748} u=1848;
 *    free a (below the first free block and touching it: merged) -> {0,200}
 *    {600,1748} u=1948; free c -> 1948 + 100 = 2048: the page goes back.
 * B: alloc a b c d (free {800,1648}); free a -> {0,100} {800,1648}; free c
 *    -> {0,100} {400,100} {800,1648}; free b merges both sides -> {0,300}
 *    {800,1648} u=1948; free d -> the page goes back. */
static void test_coalescing(void)
{
	struct fixture f;
	struct policy_obj o[4];
	setup(&f, POLICY_ALIGN_NATURAL, POLICY_KERNEL_5_4);
	uint32_t c = new_cache(&f, "c200", 200, 0);
	for (int i = 0; i < 3; i++)
		o[i] = cache_alloc(&f, c);
	uint64_t base = base_of(o[0].addr);
	free_obj(&f, &o[1]);
	CHECK_EQ_STR("coalesce A: free b", page_str(&f, base),
		     "{200,100} {600,1748} u=1848 list=0");
	free_obj(&f, &o[0]);
	CHECK_EQ_STR("coalesce A: free a merges with the next block", page_str(&f, base),
		     "{0,200} {600,1748} u=1948 list=0");
	check_ok(&f, "coalesce A: check");
	free_obj(&f, &o[2]);
	CHECK_EQ_STR("coalesce A: free c empties the page", page_str(&f, base), "no page");
	struct policy_stats st = stats(&f);
	CHECK("coalesce A: the page is back in the buddy allocator at once",
	      st.slab_pages == 0 && st.buddy_pages == 0);
	CHECK_EQ_U64("coalesce A: no page on any list",
		     slob_list_pages(f.p, SLOB_LIST_SMALL, NULL, 0), 0);

	for (int i = 0; i < 4; i++)
		o[i] = cache_alloc(&f, c);
	base = base_of(o[0].addr);
	free_obj(&f, &o[0]);
	free_obj(&f, &o[2]);
	CHECK_EQ_STR("coalesce B: free a, c", page_str(&f, base),
		     "{0,100} {400,100} {800,1648} u=1848 list=0");
	free_obj(&f, &o[1]);
	CHECK_EQ_STR("coalesce B: free b merges both sides", page_str(&f, base),
		     "{0,300} {800,1648} u=1948 list=0");
	check_ok(&f, "coalesce B: check");
	free_obj(&f, &o[3]);
	st = stats(&f);
	CHECK("coalesce B: last free returns the page", st.slab_pages == 0 && st.buddy_pages == 0);

	/* a double free is a model error, never silent */
	struct err e;
	CHECK("coalesce: a second free of the same block is refused",
	      f.ops->free(f.p, &o[3], 0, &e) == SLABSIM_EMODEL);
	check_ok(&f, "coalesce: check");
	teardown(&f);
}

/* The page boundary (5.4). kmalloc(4087): 4087 < 4088 so a block of 4095
 * bytes = 2048 units, the whole of a fresh page: full at once, on no list;
 * bytes_alloc 4095, slot 4096, object 4088 (1 byte of unit rounding).
 * kmalloc(10000): get_order(10000) = 2, 4 pages. */
static void test_page_boundary(void)
{
	struct fixture f;
	setup(&f, POLICY_ALIGN_NATURAL, POLICY_KERNEL_5_4);
	struct policy_obj a = kmalloc_n(&f, 4087);
	CHECK("kmalloc(4087): a SLOB block of 4095 bytes",
	      a.cache != POLICY_NO_CACHE && a.bytes_alloc == 4095 && a.slot_bytes == 4096 &&
		      a.object_bytes == 4088);
	CHECK_EQ_STR("kmalloc(4087): fills a fresh page", page_str(&f, a.addr), "u=0 list=3");
	CHECK_EQ_U64("kmalloc(4087): 1 slab page", stats(&f).slab_pages, 1);
	struct policy_obj b = kmalloc_n(&f, 10000);
	CHECK("kmalloc(10000): order 2, 16384 bytes",
	      b.cache == POLICY_NO_CACHE && b.order == 2 && b.bytes_alloc == 16384);
	CHECK_EQ_U64("kmalloc(10000): 4 large pages", stats(&f).large_pages, 4);
	check_ok(&f, "page boundary: check");
	free_obj(&f, &a);
	free_obj(&f, &b);
	struct policy_stats st = stats(&f);
	CHECK("page boundary: all pages back", st.slab_pages == 0 && st.large_pages == 0 &&
						       st.buddy_pages == 0 && st.large_objs == 0);
	teardown(&f);
}

/* kmalloc(1024): 1032 bytes = 516 units, large list.
 * cap512 (align 512, offset 8): fresh page ALIGN(8, 512) - 8 = 504 (delta
 *   252): object 512, free {0,252} {1536,1280}. Second: {0,252} is too
 *   small; at 1536, ALIGN(1544, 512) - 8 = 2040 (delta 252), 1280 >= 768:
 *   object 2048, free {0,252} {1536,252} {3072,512}. Third: at 3072 the
 *   aligned start is 3576 (delta 252), 512 < 768: a fresh page, object 512.
 * natural (align 1024): fresh page ALIGN(8, 1024) - 8 = 1016: object 1024,
 *   free {0,508} {2048,1024}; second at 2048: 3064 (delta 508), 1024 >= 1024
 *   exactly: object 3072, free {0,508} {2048,508} u=1016; third: new page.
 * none: blocks at 0, 1032, 2064 (objects 8, 1040, 2072), free {3096,500};
 *   the fourth needs a new page. */
static void test_kmalloc1024(void)
{
	struct fixture f;
	struct policy_obj o[4];

	setup(&f, POLICY_ALIGN_CAP512, POLICY_KERNEL_5_4);
	for (int i = 0; i < 3; i++)
		o[i] = kmalloc_n(&f, 1024);
	uint64_t base = base_of(o[0].addr);
	CHECK("cap512 kmalloc(1024): objects at 512 and 2048 (512-aligned, not 1024)",
	      o[0].addr == base + 512 && o[1].addr == base + 2048);
	CHECK_EQ_STR("cap512 kmalloc(1024): fragments", page_str(&f, base),
		     "{0,252} {1536,252} {3072,512} u=1016 list=2");
	CHECK("cap512 kmalloc(1024): the third takes a new page at 512",
	      base_of(o[2].addr) != base && o[2].addr - base_of(o[2].addr) == 512);
	CHECK_EQ_U64("cap512 kmalloc(1024): 2 pages", stats(&f).slab_pages, 2);
	check_ok(&f, "cap512 kmalloc(1024): check");
	teardown(&f);

	setup(&f, POLICY_ALIGN_NATURAL, POLICY_KERNEL_5_4);
	for (int i = 0; i < 3; i++)
		o[i] = kmalloc_n(&f, 1024);
	base = base_of(o[0].addr);
	CHECK("natural kmalloc(1024): objects at 1024 and 3072",
	      o[0].addr == base + 1024 && o[1].addr == base + 3072);
	CHECK_EQ_STR("natural kmalloc(1024): fragments", page_str(&f, base),
		     "{0,508} {2048,508} u=1016 list=2");
	CHECK_EQ_U64("natural kmalloc(1024): 2 pages", stats(&f).slab_pages, 2);
	teardown(&f);

	setup(&f, POLICY_ALIGN_NONE, POLICY_KERNEL_5_4);
	for (int i = 0; i < 4; i++)
		o[i] = kmalloc_n(&f, 1024);
	base = base_of(o[0].addr);
	CHECK("none kmalloc(1024): objects at 8, 1040, 2072",
	      o[0].addr == base + 8 && o[1].addr == base + 1040 && o[2].addr == base + 2072);
	CHECK_EQ_STR("none kmalloc(1024): tail", page_str(&f, base), "{3096,500} u=500 list=2");
	CHECK_EQ_U64("none kmalloc(1024): 4 objects, 2 pages", stats(&f).slab_pages, 2);
	teardown(&f);
}

/* Cache objects: block start aligned, offset 0, no header.
 * HWCACHE_ALIGN object 100: calculate_alignment -> 64; 50 units. After a
 *   kmalloc(8) (block 0..15) the free block starts at 16: ALIGN(16, 64) = 64
 *   (delta 24), so the object is at 64 and {16,24} stays free.
 * TYPESAFE_BY_RCU object 100: size 124 (+ slob_rcu 24) = 62 units; the
 *   footer is metadata: meta 24, object 100; bytes_alloc 124.
 * Object 8392: a page or more, so whole pages of get_order(8392) = 2
 *   (8392 > 8192): 16384 bytes, counted as slab pages (the kernel accounts
 *   them as NR_SLAB_UNRECLAIMABLE). 5.4 traces PAGE_SIZE << 2 = 16384; 6.1
 *   traces c->size rounded to units = 8392. Object 201: 101 units, 202
 *   bytes traced by both. */
static void test_caches(void)
{
	struct fixture f;
	setup(&f, POLICY_ALIGN_NATURAL, POLICY_KERNEL_5_4);
	uint32_t hw = new_cache(&f, "hw100", 100, POLICY_F_HWCACHE_ALIGN);
	uint32_t rcu = new_cache(&f, "rcu100", 100, POLICY_F_TYPESAFE_BY_RCU);
	uint32_t big = new_cache(&f, "big", 8392, 0);
	uint32_t odd = new_cache(&f, "odd", 201, 0);
	struct policy_cache_info ci;
	f.ops->cache_info(f.p, hw, &ci);
	CHECK("hw100: align 64, own id, no pages, no slab geometry",
	      ci.g.align == 64 && ci.alias_of == hw && ci.nr_pages == 0 && ci.g.size == 0 &&
		      ci.g.objs_per_slab == 0 && ci.g.object_size == 100);

	struct policy_obj k = kmalloc_n(&f, 8);
	struct policy_obj h = cache_alloc(&f, hw);
	CHECK_EQ_U64("hw100: object at 64 of the page", h.addr - base_of(k.addr), 64);
	CHECK_EQ_STR("hw100: alignment fragment {16,24}", page_str(&f, k.addr),
		     "{16,24} {164,1966} u=1990 list=0");
	CHECK("hw100: 100 bytes, no header", h.slot_bytes == 100 && h.meta_bytes == 0 &&
						     h.object_bytes == 100 && h.bytes_alloc == 100);

	struct policy_obj r = cache_alloc(&f, rcu);
	CHECK("rcu100: 124-byte block, 24 of them the RCU footer",
	      r.slot_bytes == 124 && r.meta_bytes == 24 && r.object_bytes == 100 &&
		      r.bytes_alloc == 124);

	struct policy_obj b = cache_alloc(&f, big);
	CHECK("big (8392): order-2 pages, 5.4 traces 16384",
	      b.bytes_alloc == 16384 && b.slot_bytes == 16384 && b.cache == big);
	struct policy_stats st = stats(&f);
	CHECK("big (8392): counted as slab pages (1 SLOB page + 4)",
	      st.slab_pages == 5 && st.large_pages == 0 && st.buddy_pages == 5);
	struct policy_obj d = cache_alloc(&f, odd);
	CHECK("odd (201): 101 units, 202 bytes", d.slot_bytes == 202 && d.bytes_alloc == 202);
	check_ok(&f, "caches: check");
	free_obj(&f, &b);
	CHECK_EQ_U64("big: its pages go back on free", stats(&f).slab_pages, 1);

	struct err e;
	struct policy_cache_spec bad = {.name = "bad", .object_size = 64, .align = 24};
	uint32_t id;
	CHECK("cache with a non-power-of-two alignment refused",
	      f.ops->cache_create(f.p, &bad, &id, &e) == SLABSIM_EUSAGE);
	bad.align = 8192;
	CHECK("sub-page cache aligned above a page refused (the kernel would BUG)",
	      f.ops->cache_create(f.p, &bad, &id, &e) == SLABSIM_EUSAGE);
	struct policy_alloc_req rq = {.cache = 0, .node = -1};
	struct policy_obj o;
	CHECK("the kmalloc pseudo-cache cannot be allocated from directly",
	      f.ops->alloc(f.p, &rq, &o, &e) == SLABSIM_EUSAGE);
	rq = (struct policy_alloc_req){.cache = POLICY_KMALLOC, .size = 0, .node = -1};
	CHECK("kmalloc(0) refused", f.ops->alloc(f.p, &rq, &o, &e) == SLABSIM_EUSAGE);
	CHECK("no kmalloc caches",
	      f.ops->kmalloc_cache(f.p, 64, POLICY_KMALLOC_NORMAL) == POLICY_NO_CACHE);
	teardown(&f);

	setup(&f, POLICY_ALIGN_NATURAL, POLICY_KERNEL_6_1);
	big = new_cache(&f, "big", 8392, 0);
	b = cache_alloc(&f, big);
	CHECK("big (8392) under 6.1: traced as 8392, still 4 pages",
	      b.bytes_alloc == 8392 && b.slot_bytes == 16384 && stats(&f).slab_pages == 4);
	teardown(&f);

	/* Object 4095: 5.4 keeps c->size 4095 < PAGE_SIZE, a block of
	 * SLOB_UNITS(4095) = 2048 units that fills a fresh SLOB page; 6.1 rounds
	 * c->size to 4096 at creation, so the object takes a whole order-0 page
	 * outside the SLOB heap. One page and 4096 traced bytes either way. */
	struct slob_page_info pi;
	for (int v61 = 0; v61 < 2; v61++) {
		setup(&f, POLICY_ALIGN_NATURAL, v61 ? POLICY_KERNEL_6_1 : POLICY_KERNEL_5_4);
		uint32_t c4095 = new_cache(&f, "c4095", 4095, 0);
		struct policy_obj x = cache_alloc(&f, c4095);
		CHECK(v61 ? "object 4095 under 6.1: a page object, 4096 traced"
			  : "object 4095 under 5.4: a 2048-unit block, 4096 traced",
		      x.bytes_alloc == 4096 && x.slot_bytes == 4096 && stats(&f).slab_pages == 1);
		CHECK(v61 ? "object 4095 under 6.1: no SLOB page"
			  : "object 4095 under 5.4: a full SLOB page",
		      v61 ? !slob_page_info(f.p, x.addr, &pi, NULL, 0)
			  : slob_page_info(f.p, x.addr, &pi, NULL, 0) && pi.units == 0);
		check_ok(&f, "object 4095: check");
		teardown(&f);
	}
}

/* Sum of free units * 2 over the pages on the lists (full pages have none). */
static uint64_t free_bytes(struct fixture *f)
{
	uint64_t sum = 0, bases[64];
	for (int l = 0; l < SLOB_NR_LISTS; l++) {
		uint64_t n = slob_list_pages(f->p, (enum slob_list)l, bases, 64);
		for (uint64_t i = 0; i < n && i < 64; i++) {
			struct slob_page_info pi;
			if (slob_page_info(f->p, bases[i], &pi, NULL, 0))
				sum += pi.units * 2ULL;
		}
	}
	return sum;
}

/* A hand-made sequence of kmalloc(64) (72-byte blocks, 36 units).
 * natural: each object costs a 56-byte fragment plus its block, objects at
 *   64 + 128 k (blocks at 56 + 128 k), so 32 per page (block 31 ends at
 *   4096), leaving 32 fragments of 28 units (896) where no 64-aligned
 *   object fits.
 *   64 allocations: 2 pages (P0, P1). Free the 32 of P0: its last free
 *   makes it entirely free and it goes back: 1 page. 40 more: P1 has 896
 *   units but no fit, so P2 takes 32 and P3 8: 3 pages. Live: 72 objects of
 *   72 bytes = 5184; free = 3 * 4096 - 5184 = 7104 = (896 + 896 + 8 * 28 +
 *   (2048 - 8 * 64)) * 2 = (896 + 896 + 1760) * 2.
 * none: blocks at 72 k: 56 per page (4032 used, 32 units left). 64
 *   allocations: P0 56, P1 8. Free the first 32 (all in P0): 2 pages. 40
 *   more: P1 is the head with 2048 - 8 * 36 = 1760 units, first fit puts all
 *   40 there (40 * 36 = 1440): 2 pages. free = 2 * 4096 - 72 * 72 = 3008 =
 *   (P0: 32 * 36 + 32 = 1184; P1: 1760 - 1440 = 320) * 2. */
static void test_sequence(void)
{
	static struct policy_obj o[104];
	for (int on = 0; on < 2; on++) {
		struct fixture f;
		setup(&f, on ? POLICY_ALIGN_NATURAL : POLICY_ALIGN_NONE, POLICY_KERNEL_5_4);
		for (int i = 0; i < 64; i++)
			o[i] = kmalloc_n(&f, 64);
		CHECK_EQ_U64(on ? "sequence on: 64 x kmalloc(64) in 2 pages"
				: "sequence off: 64 x kmalloc(64) in 2 pages",
			     stats(&f).slab_pages, 2);
		for (int i = 0; i < 32; i++)
			free_obj(&f, &o[i]);
		CHECK_EQ_U64(on ? "sequence on: freeing page 0's 32 gives it back"
				: "sequence off: page 0 keeps 24 objects",
			     stats(&f).slab_pages, on ? 1 : 2);
		for (int i = 64; i < 104; i++)
			o[i] = kmalloc_n(&f, 64);
		CHECK_EQ_U64(on ? "sequence on: 40 more take 2 fresh pages"
				: "sequence off: 40 more fit the head page",
			     stats(&f).slab_pages, on ? 3 : 2);
		uint64_t live_slot = 72 * 72ULL; /* 72 live blocks of 72 bytes */
		CHECK_EQ_U64(on ? "sequence on: free units = pages - live blocks"
				: "sequence off: free units = pages - live blocks",
			     free_bytes(&f), stats(&f).slab_pages * 4096 - live_slot);
		CHECK_EQ_U64(on ? "sequence on: free bytes by hand"
				: "sequence off: free bytes by hand",
			     free_bytes(&f), on ? 7104 : 3008);
		check_ok(&f, "sequence: check");
		for (int i = 32; i < 104; i++)
			free_obj(&f, &o[i]);
		struct policy_stats st = stats(&f);
		CHECK(on ? "sequence on: everything freed, no page left"
			 : "sequence off: everything freed, no page left",
		      st.slab_pages == 0 && st.buddy_pages == 0);
		check_ok(&f, "sequence: check when empty");
		teardown(&f);
	}
}

/* A long list (the walk's skip index: runs of 64 pages, tests the model's
 * own speed-up, not a kernel rule; slob_alloc's first fit in mm/slob.c of
 * 6.1 decides). align none, kmalloc(200): 208 bytes with the header, 104
 * units of 2 bytes; a page of 2048 units takes 19 (1976) and keeps 72.
 * 150 pages x 19 = 2850 allocations: 150 pages with 72 free units each, all
 * on the small list. Freeing one object of page 75 gives it 176 units with
 * a 104-unit hole (its neighbours stay allocated): the next kmalloc(200)
 * must land in that hole, no fresh page, as the kernel's walk past 149
 * pages of 72 units would. kmalloc(240) (248 bytes, 124 units) fits no
 * page: a fresh one. */
static void test_long_list(void)
{
	enum { PAGES = 150, PER = 19 };
	static struct policy_obj o[PAGES * PER];
	struct fixture f;
	setup(&f, POLICY_ALIGN_NONE, POLICY_KERNEL_5_4);
	for (int i = 0; i < PAGES * PER; i++)
		o[i] = kmalloc_n(&f, 200);
	CHECK_EQ_U64("long list: 2850 x kmalloc(200) in 150 pages", stats(&f).slab_pages, PAGES);
	check_ok(&f, "long list: check");
	const struct policy_obj *mid = &o[75 * PER + 7];
	uint64_t hole = mid->addr;
	free_obj(&f, mid);
	struct policy_obj again = kmalloc_n(&f, 200);
	CHECK_EQ_U64("long list: kmalloc(200) takes the one hole, 75 pages down", again.addr, hole);
	CHECK_EQ_U64("long list: no fresh page for it", stats(&f).slab_pages, PAGES);
	struct policy_obj big = kmalloc_n(&f, 240);
	CHECK_EQ_U64("long list: kmalloc(240) fits no page: a fresh one", stats(&f).slab_pages,
		     PAGES + 1);
	check_ok(&f, "long list: check after");
	free_obj(&f, &big);
	free_obj(&f, &again);
	for (int i = 0; i < PAGES * PER; i++)
		if (&o[i] != mid)
			free_obj(&f, &o[i]);
	CHECK_EQ_U64("long list: everything freed, no page left", stats(&f).slab_pages, 0);
	check_ok(&f, "long list: check when empty");
	teardown(&f);
}

int main(void)
{
	test_table_7_3();
	test_fresh_page_64();
	test_kmalloc100_fragment();
	test_lists();
	test_coalescing();
	test_page_boundary();
	test_kmalloc1024();
	test_caches();
	test_sequence();
	test_long_list();
	return check_done();
}
