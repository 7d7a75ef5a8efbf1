/* test_random_tiny.c - Linux 6.12's random kmalloc caches and SLUB_TINY,
 * worked by hand from the 6.12 source (Debian's linux-source-6.12, 6.12.118)
 * and checked against the model: the copy a caller and seed pick, the caller
 * a capture's System.map gives a call site, and the layout and partial rules
 * of a SLUB_TINY kernel. */
#include "buckets.h"
#include "check.h"
#include "layout.h"
#include "policy.h"

#include <stdlib.h>
#include <string.h>

/* include/linux/hash.h: hash_64(val, bits) on 64-bit is hash_64_generic:
 * (val * GOLDEN_RATIO_64) >> (64 - bits), GOLDEN_RATIO_64 =
 * 0x61C8864680B583EB. include/linux/slab.h:636-637 (kmalloc_type): the copy
 * of a normal kmalloc is KMALLOC_RANDOM_START + hash_64(caller ^
 * random_kmalloc_seed, ilog2(RANDOM_KMALLOC_CACHES_NR + 1)), with
 * RANDOM_KMALLOC_CACHES_NR 15 (slab.h:570): 4 bits, copies 0..15. */
static void test_hash_by_hand(void)
{
	/* val 1: the product is the golden ratio itself, top nibble 0x6 */
	CHECK_EQ_U64("hash_64(1, 4)", policy_hash_64(1, 4), 6);
	/* val 2: 0xC3910C8D016B07D6, top nibble 0xC */
	CHECK_EQ_U64("hash_64(2, 4)", policy_hash_64(2, 4), 12);
	/* val 3: 3 * 0x61C8864680B583EB = 0x1_255992D3_82204BC1, mod 2^64
	 * 0x255992D382204BC1, top nibble 0x2 */
	CHECK_EQ_U64("hash_64(3, 4)", policy_hash_64(3, 4), 2);
	/* ilog2(15 + 1) = 4: the same nibble as hash_64(.., 4) */
	CHECK_EQ_U64("copy of val 3", policy_random_copy(3, 0, 15), 2);
	/* caller ^ seed: a caller equal to the seed hashes 0 -> kmalloc-N */
	CHECK_EQ_U64("caller == seed -> copy 0",
		     policy_random_copy(0xffffffff81000000ull, 0xffffffff81000000ull, 15), 0);
}

/* A kernel's addresses: System.map lines as qemu-boot keeps them in a
 * capture's system-map.txt, sorted by name. */
static const struct policy_symbol syms[] = {
	{"__kmalloc_noprof", 0xffffffff8112a0c0ull, false},
	{"dup_static", 0xffffffff81100000ull, true},
	{"dup_static", 0xffffffff81200000ull, true},
	{"seq_buf_alloc.constprop.0", 0xffffffff81170010ull, false},
	{"single_open", 0xffffffff811c4f60ull, false},
};
static const struct policy_symtab symtab = {syms, sizeof(syms) / sizeof(syms[0])};

/* Which address is the caller: 6.12's __kmalloc_noprof (mm/slub.c:4378)
 * passes its _RET_IP_ to __do_kmalloc_node, which picks the cache with it
 * (kmalloc_slab -> kmalloc_type(flags, caller)) and traces
 * trace_kmalloc(caller, ...) with the same address; %pS prints it as
 * symbol+offset, so symbol address + offset is the caller again. (A
 * constant-size kmalloc is inline, include/linux/slab.h:885-899, and hashes
 * the enclosing function's _RET_IP_ instead: docs/models.md.) */
static void test_caller_by_hand(void)
{
	uint64_t c = 0;
	CHECK("single_open+0x2b resolves",
	      policy_symtab_caller(&symtab, "single_open+0x2b/0x90", &c));
	CHECK_EQ_U64("0xffffffff811c4f60 + 0x2b", c, 0xffffffff811c4f8bull);
	CHECK("a clone keeps its suffix",
	      policy_symtab_caller(&symtab, "seq_buf_alloc.constprop.0+0x1a/0x40", &c));
	CHECK_EQ_U64("0xffffffff81170010 + 0x1a", c, 0xffffffff8117002aull);
	CHECK("a name held twice cannot be told",
	      !policy_symtab_caller(&symtab, "dup_static+0x10/0x20", &c));
	CHECK("a name the map lacks", !policy_symtab_caller(&symtab, "single_ope+0x2b/0x90", &c));
	CHECK("a prefix of a name is not the name",
	      !policy_symtab_caller(&symtab, "single+0x2b/0x90", &c));
	CHECK("an address without symbol",
	      !policy_symtab_caller(&symtab, "0xffffffff811c4f8b", &c));
	CHECK("no table", !policy_symtab_caller(NULL, "single_open+0x2b/0x90", &c));
}

static struct policy *make_slub(const struct policy_cfg *cfg)
{
	struct err e = {0};
	struct policy *p = NULL;
	const struct policy_ops *ops = policy_find("slub");
	if (!ops || ops->create(cfg, &p, &e)) {
		printf("Bail out! cannot create slub: %s\n", e.msg);
		exit(1);
	}
	return p;
}

static const char *cache_of_type(struct policy *p, uint32_t size, uint32_t route,
				 enum policy_kmalloc_type t)
{
	static char name[64];
	struct policy_alloc_req r = {0};
	struct policy_obj o;
	struct policy_cache_info ci;
	struct err e = {0};
	r.cache = POLICY_KMALLOC;
	r.size = size;
	r.ktype = t;
	r.node = -1;
	r.route = route;
	if (policy_alloc(p, &r, &o, &e))
		return "(alloc failed)";
	p->ops->cache_info(p, o.cache, &ci);
	snprintf(name, sizeof(name), "%s", ci.name);
	return name;
}

static const char *cache_of(struct policy *p, uint32_t size, uint32_t route)
{
	return cache_of_type(p, size, route, POLICY_KMALLOC_NORMAL);
}

/* Two call sites, two seeds, the copy each lands in, by hand:
 *   single_open+0x2b: caller 0xffffffff811c4f8b
 *     seed 0x0123456789abcdef: x = caller ^ seed = 0xfedcba9808b78264,
 *       x * 0x61C8864680B583EB mod 2^64 = 0x0c83004f18e1ddcc: copy 0x0,
 *       kmalloc-64 itself (KMALLOC_RANDOM_START is KMALLOC_NORMAL,
 *       slab.h:594)
 *     seed 0xfedcba9876543210: x = 0x01234567f7487d9b, product
 *       0x91b4796a66689e49: copy 0x9, kmalloc-rnd-09-64 (mm/slab_common.c:
 *       811-826, KMA_RAND_9: .name[KMALLOC_RANDOM_START + 9] =
 *       "kmalloc-rnd-09-" #sz)
 *   __kmalloc_noprof+0x5c: caller 0xffffffff8112a11c
 *     seed 0x0123456789abcdef: x = 0xfedcba9808b96cf3, product
 *       0x7c88f40c6cc65c11: copy 0x7, kmalloc-rnd-07-64
 * Only a normal kmalloc is spread (slab.h:634: no KMALLOC_NOT_NORMAL_BITS):
 * a reclaimable one keeps kmalloc-rcl-64. */
static void test_copy_by_hand(void)
{
	struct policy_cfg cfg;
	policy_cfg_default(&cfg);
	cfg.kernel = POLICY_KERNEL_6_12;
	cfg.align = policy_kernel_align(cfg.kernel);
	cfg.random_kmalloc = 15;
	cfg.symtab = &symtab;
	cfg.random_seed = 0x0123456789abcdefull;
	uint32_t a = policy_route_site(&cfg, "single_open+0x2b/0x90");
	uint32_t b = policy_route_site(&cfg, "__kmalloc_noprof+0x5c/0x120");
	CHECK_EQ_U64("single_open, seed 0x0123..: copy 0",
		     POLICY_ROUTE_RANDOM(policy_route(&cfg, a, 0, POLICY_KMALLOC_NORMAL)), 0);
	CHECK_EQ_U64("__kmalloc_noprof+0x5c, seed 0x0123..: copy 7",
		     POLICY_ROUTE_RANDOM(policy_route(&cfg, b, 0, POLICY_KMALLOC_NORMAL)), 7);
	struct policy *p = make_slub(&cfg);
	CHECK_EQ_STR("copy 0 is kmalloc-64",
		     cache_of(p, 64, policy_route(&cfg, a, 0, POLICY_KMALLOC_NORMAL)),
		     "kmalloc-64");
	CHECK_EQ_STR("copy 7 of 50 bytes",
		     cache_of(p, 50, policy_route(&cfg, b, 0, POLICY_KMALLOC_NORMAL)),
		     "kmalloc-rnd-07-64");
	CHECK_EQ_U64("a reclaimable kmalloc is not spread",
		     policy_route(&cfg, b, 0, POLICY_KMALLOC_RECLAIM), 0);
	CHECK_EQ_STR("a reclaimable kmalloc keeps kmalloc-rcl-64",
		     cache_of_type(p, 50, policy_route(&cfg, b, 0, POLICY_KMALLOC_RECLAIM),
				   POLICY_KMALLOC_RECLAIM),
		     "kmalloc-rcl-64");
	policy_destroy(p);

	cfg.random_seed = 0xfedcba9876543210ull;
	a = policy_route_site(&cfg, "single_open+0x2b/0x90");
	CHECK_EQ_U64("single_open, seed 0xfedc..: copy 9",
		     POLICY_ROUTE_RANDOM(policy_route(&cfg, a, 0, POLICY_KMALLOC_NORMAL)), 9);
	p = make_slub(&cfg);
	CHECK_EQ_STR("copy 9 is kmalloc-rnd-09-64",
		     cache_of(p, 64, policy_route(&cfg, a, 0, POLICY_KMALLOC_NORMAL)),
		     "kmalloc-rnd-09-64");
	policy_destroy(p);

	/* without the map the caller is a stand-in (a hash of the text), not
	 * the address: the copy is then whatever that hash gives */
	cfg.symtab = NULL;
	a = policy_route_site(&cfg, "single_open+0x2b/0x90");
	CHECK_EQ_U64("no map: the stand-in caller",
		     POLICY_ROUTE_RANDOM(policy_route(&cfg, a, 0, POLICY_KMALLOC_NORMAL)),
		     policy_random_copy(policy_caller_of("single_open+0x2b/0x90"),
					0xfedcba9876543210ull, 15));
}

/* SLUB_TINY in 6.12, by hand:
 * - mm/slub.c:5114-5115: slub_max_order = IS_ENABLED(CONFIG_SLUB_TINY) ? 1 :
 *   PAGE_ALLOC_COSTLY_ORDER. kmalloc-4k: calculate_order's min_objects
 *   4 * (fls(2) + 1) = 12 is cut to order_objects(1, 4096) = 2, min_order
 *   get_order(2 * 4096) = 1: order 1, 2 objects (order 3, 8 objects without
 *   SLUB_TINY). kmalloc-8k: order 1, 1 object (order 3, 4).
 * - mm/slub.c:281-282: MIN_PARTIAL and MAX_PARTIAL are 0: min_partial 0.
 * - mm/Kconfig: SLUB_CPU_PARTIAL depends on !SLUB_TINY: cpu_partial 0.
 * - include/linux/slab.h:597-598: KMALLOC_RECLAIM = KMALLOC_NORMAL (no
 *   kmalloc-rcl-N); mm/Kconfig: RANDOM_KMALLOC_CACHES depends on
 *   !SLUB_TINY. */
static void test_tiny_by_hand(void)
{
	struct policy_cfg cfg;
	policy_cfg_default(&cfg);
	cfg.kernel = POLICY_KERNEL_6_12;
	cfg.align = policy_kernel_align(cfg.kernel);
	cfg.nr_cpus = 2;
	cfg.slub_tiny = true;
	cfg.slub_max_order = 1; /* run_model_settle's default under SLUB_TINY */
	struct policy_geom g;
	struct err e = {0};
	CHECK("tiny kmalloc-4k lays out",
	      layout_slub_kmalloc(&cfg, POLICY_KMALLOC_NORMAL, layout_kmalloc_index(4096), &g,
				  &e) == 0);
	CHECK_EQ_U64("tiny kmalloc-4k order 1", g.order, 1);
	CHECK_EQ_U64("tiny kmalloc-4k 2 objects", g.objs_per_slab, 2);
	CHECK_EQ_U64("tiny kmalloc-4k min_partial 0", g.min_partial, 0);
	CHECK_EQ_U64("tiny kmalloc-4k cpu_partial 0", g.cpu_partial, 0);
	CHECK("tiny kmalloc-8k lays out",
	      layout_slub_kmalloc(&cfg, POLICY_KMALLOC_NORMAL, layout_kmalloc_index(8192), &g,
				  &e) == 0);
	CHECK_EQ_U64("tiny kmalloc-8k order 1", g.order, 1);
	CHECK_EQ_U64("tiny kmalloc-8k 1 object", g.objs_per_slab, 1);
	CHECK_EQ_U64("tiny: RECLAIM is NORMAL", layout_kmalloc_type(&cfg, POLICY_KMALLOC_RECLAIM),
		     POLICY_KMALLOC_NORMAL);
	cfg.random_kmalloc = 15;
	CHECK("tiny: no random copies", !policy_random_enabled(&cfg));
	struct policy *p = make_slub(&cfg);
	CHECK_EQ_STR("tiny: a reclaimable kmalloc takes kmalloc-64",
		     cache_of_type(p, 64, 0, POLICY_KMALLOC_RECLAIM), "kmalloc-64");
	policy_destroy(p);

	/* the same kernel without SLUB_TINY: order 3 */
	cfg.slub_tiny = false;
	cfg.slub_max_order = 3;
	CHECK("kmalloc-4k lays out", layout_slub_kmalloc(&cfg, POLICY_KMALLOC_NORMAL,
							 layout_kmalloc_index(4096), &g, &e) == 0);
	CHECK_EQ_U64("kmalloc-4k order 3", g.order, 3);
	CHECK_EQ_U64("kmalloc-4k 8 objects", g.objs_per_slab, 8);
	CHECK_EQ_U64("kmalloc-4k min_partial 6 (ilog2(4096) / 2)", g.min_partial, 6);
}

int main(void)
{
	test_hash_by_hand();
	test_caller_by_hand();
	test_copy_by_hand();
	test_tiny_by_hand();
	return check_done();
}
