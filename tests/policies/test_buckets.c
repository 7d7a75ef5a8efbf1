/* test_buckets.c - kmalloc routing of the newer profiles (policies/buckets.h):
 * the kernel's hash_64 on worked values, the random kmalloc copy a caller
 * and seed get, the call sites routed to kmem_buckets, and SLUB's bucket
 * caches against a real 6.18 /sys/kernel/slab (argv[1]:
 * tests/data/sysfs-6.18-buckets.tsv, made by the .sh beside it). */
#include "buckets.h"
#include "check.h"
#include "policy.h"

#include <stdlib.h>
#include <string.h>

static struct policy *make(enum policy_kernel k, bool buckets, uint32_t rnd, uint64_t seed)
{
	struct policy_cfg cfg;
	struct err e = {0};
	struct policy *p = NULL;
	policy_cfg_default(&cfg);
	cfg.kernel = k;
	cfg.slab_buckets = buckets;
	cfg.random_kmalloc = rnd;
	cfg.random_seed = seed;
	const struct policy_ops *ops = policy_find("slub");
	if (!ops || ops->create(&cfg, &p, &e)) {
		printf("Bail out! cannot create slub: %s\n", e.msg);
		exit(1);
	}
	return p;
}

static bool find(const struct policy *p, const char *name, struct policy_cache_info *ci)
{
	uint32_t n = p->ops->nr_caches(p);
	for (uint32_t i = 0; i < n; i++) {
		p->ops->cache_info(p, i, ci);
		if (strcmp(ci->name, name) == 0)
			return true;
	}
	return false;
}

static uint32_t ci_id(const struct policy *p, const char *name)
{
	uint32_t n = p->ops->nr_caches(p);
	struct policy_cache_info ci;
	for (uint32_t i = 0; i < n; i++) {
		p->ops->cache_info(p, i, &ci);
		if (strcmp(ci.name, name) == 0)
			return i;
	}
	return UINT32_MAX;
}

static void test_hash(void)
{
	/* include/linux/hash.h: hash_64(val, bits) = val * GOLDEN_RATIO_64
	 * (0x61C8864680B583EB) >> (64 - bits). By hand, 4 bits (ilog2(15 + 1)):
	 * 1 -> 0x6.., 2 -> 2 * G = 0xC3910C8D016B07D6 -> 0xC, all ones -> -G
	 * mod 2^64 = 0x9E3779B97F4A7C15 -> 0x9. */
	CHECK_EQ_U64("hash_64(0, 4)", policy_hash_64(0, 4), 0);
	CHECK_EQ_U64("hash_64(1, 4)", policy_hash_64(1, 4), 6);
	CHECK_EQ_U64("hash_64(2, 4)", policy_hash_64(2, 4), 12);
	CHECK_EQ_U64("hash_64(~0, 4)", policy_hash_64(~0ull, 4), 9);
	CHECK_EQ_U64("hash_64(1, 64) is the product", policy_hash_64(1, 64), 0x61C8864680B583EBull);
	CHECK_EQ_U64("hash_64(2, 8)", policy_hash_64(2, 8), 0xC3);
	/* kmalloc_type(): KMALLOC_RANDOM_START + hash_64(caller ^ seed, 4) */
	CHECK_EQ_U64("copy of caller 3, seed 2 (3 ^ 2 = 1)", policy_random_copy(3, 2, 15), 6);
	CHECK_EQ_U64("copy of caller ~0, seed 0", policy_random_copy(~0ull, 0, 15), 9);
	CHECK_EQ_U64("copy of caller 5, seed 5 is kmalloc-N", policy_random_copy(5, 5, 15), 0);
	/* the caller stand-in hashes symbol+offset, not the function size */
	CHECK("caller of a site ignores /size",
	      policy_caller_of("load_msg+0x3c/0x1a0") == policy_caller_of("load_msg+0x3c/0x200"));
	CHECK("caller of two offsets differ",
	      policy_caller_of("load_msg+0x3c/0x1a0") != policy_caller_of("load_msg+0x40/0x1a0"));
}

static uint32_t route(enum policy_kernel k, const char *site, uint32_t gfp,
		      enum policy_kmalloc_type t)
{
	struct policy_cfg cfg;
	policy_cfg_default(&cfg);
	cfg.kernel = k;
	cfg.slab_buckets = true;
	return policy_route(&cfg, policy_route_site(&cfg, site), gfp, t);
}

static void test_route(void)
{
	const uint32_t user_nowarn = POLICY_ROUTE_GFP_HARDWALL | POLICY_ROUTE_GFP_NOWARN;
	/* 6.18 alloc_msg: the head GFP_KERNEL (msg_msg-N), segments
	 * GFP_KERNEL_ACCOUNT (kmalloc-cg-N) */
	CHECK_EQ_U64("6.18 load_msg head -> msg_msg",
		     route(POLICY_KERNEL_6_18, "load_msg+0x3c/0x1a0", 0, POLICY_KMALLOC_NORMAL),
		     POLICY_BUCKETS_MSG_MSG);
	CHECK_EQ_U64("6.18 load_msg segment -> kmalloc",
		     route(POLICY_KERNEL_6_18, "load_msg+0x97/0x1a0", POLICY_ROUTE_GFP_ACCOUNT,
			   POLICY_KMALLOC_CGROUP),
		     0);
	CHECK_EQ_U64("6.12 alloc_msg GFP_KERNEL_ACCOUNT -> msg_msg",
		     route(POLICY_KERNEL_6_12, "alloc_msg.constprop.0+0x3c/0x1a0",
			   POLICY_ROUTE_GFP_ACCOUNT, POLICY_KMALLOC_CGROUP),
		     POLICY_BUCKETS_MSG_MSG);
	/* memdup_user: the event names its caller; GFP_USER | __GFP_NOWARN */
	CHECK_EQ_U64("memdup_user's caller -> memdup_user",
		     route(POLICY_KERNEL_6_18, "strndup_user+0x4f/0x90", user_nowarn,
			   POLICY_KMALLOC_NORMAL),
		     POLICY_BUCKETS_MEMDUP_USER);
	CHECK_EQ_U64("GFP_USER without __GFP_NOWARN stays kmalloc",
		     route(POLICY_KERNEL_6_18, "br_ioctl_stub+0x4f/0x90", POLICY_ROUTE_GFP_HARDWALL,
			   POLICY_KMALLOC_NORMAL),
		     0);
	CHECK_EQ_U64("6.18 vmemdup_user -> memdup_user",
		     route(POLICY_KERNEL_6_18, "vmemdup_user+0x2e/0xb0", POLICY_ROUTE_GFP_HARDWALL,
			   POLICY_KMALLOC_NORMAL),
		     POLICY_BUCKETS_MEMDUP_USER);
	CHECK_EQ_U64("a 6.13-6.17 kernel (6.12 profile) naming vmemdup_user -> memdup_user",
		     route(POLICY_KERNEL_6_12, "vmemdup_user+0x2e/0xb0", POLICY_ROUTE_GFP_HARDWALL,
			   POLICY_KMALLOC_NORMAL),
		     POLICY_BUCKETS_MEMDUP_USER);
	CHECK_EQ_U64("6.12 kvmalloc GFP_USER (vmemdup_user) -> memdup_user",
		     route(POLICY_KERNEL_6_12, "__kvmalloc_node_noprof+0x5c/0x140",
			   POLICY_ROUTE_GFP_HARDWALL, POLICY_KMALLOC_NORMAL),
		     POLICY_BUCKETS_MEMDUP_USER);
	CHECK_EQ_U64("6.12 kvmalloc GFP_KERNEL stays kmalloc",
		     route(POLICY_KERNEL_6_12, "__kvmalloc_node_noprof+0x5c/0x140", 0,
			   POLICY_KMALLOC_NORMAL),
		     0);
	CHECK_EQ_U64("6.6 has no kmem_buckets",
		     route(POLICY_KERNEL_6_6, "load_msg+0x3c/0x1a0", 0, POLICY_KMALLOC_NORMAL), 0);
	CHECK_EQ_U64("a plain site stays kmalloc",
		     route(POLICY_KERNEL_6_18, "load_msgx+0x3c/0x1a0", 0, POLICY_KMALLOC_NORMAL),
		     0);

	/* random copies: the site's copy for NORMAL kmallocs only */
	struct policy_cfg cfg;
	policy_cfg_default(&cfg);
	cfg.kernel = POLICY_KERNEL_6_6;
	cfg.random_kmalloc = 15;
	cfg.random_seed = 0x1234;
	const char *site = "seq_open+0x2f/0xa0";
	uint32_t want = policy_random_copy(policy_caller_of(site), 0x1234, 15);
	uint32_t cls = policy_route_site(&cfg, site);
	CHECK_EQ_U64("random: a normal kmalloc takes the site's copy",
		     POLICY_ROUTE_RANDOM(policy_route(&cfg, cls, 0, POLICY_KMALLOC_NORMAL)), want);
	CHECK_EQ_U64("random: a cgroup kmalloc is not spread",
		     policy_route(&cfg, cls, POLICY_ROUTE_GFP_ACCOUNT, POLICY_KMALLOC_CGROUP), 0);
	CHECK_EQ_U64("random: a reclaimable kmalloc is not spread",
		     policy_route(&cfg, cls, 0, POLICY_KMALLOC_RECLAIM), 0);
	cfg.kernel = POLICY_KERNEL_6_1;
	CHECK_EQ_U64("random: 6.1 has none",
		     policy_route(&cfg, policy_route_site(&cfg, site), 0, POLICY_KMALLOC_NORMAL),
		     0);
}

/* Every row of the committed /sys/kernel/slab excerpt equals the model's. */
static void test_sysfs(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!CHECK("open the 6.18 bucket excerpt", f != NULL))
		return;
	struct policy *p = make(POLICY_KERNEL_6_18, true, 0, 0);
	char line[512];
	unsigned rows = 0, bad = 0;
	while (fgets(line, sizeof(line), f)) {
		char name[128];
		unsigned osz, size, align, order, objs, usersize, merged;
		if (line[0] == '#' || sscanf(line, "%127s %u %u %u %u %u %u %u", name, &osz, &size,
					     &align, &order, &objs, &usersize, &merged) != 8)
			continue;
		rows++;
		struct policy_cache_info ci;
		if (!find(p, name, &ci)) {
			check_diag("# %s: not in the model\n", name);
			bad++;
			continue;
		}
		if (ci.g.object_size != osz || ci.g.size != size || ci.g.align != align ||
		    ci.g.order != order || ci.g.objs_per_slab != objs || merged != 0 ||
		    !ci.kmalloc || ci.alias_of != ci_id(p, name)) {
			check_diag("# %s: model %u %u %u %u %u, sysfs %u %u %u %u %u merged %u\n",
				   name, ci.g.object_size, ci.g.size, ci.g.align, ci.g.order,
				   ci.g.objs_per_slab, osz, size, align, order, objs, merged);
			bad++;
		}
		/* kmem_buckets_create's min(size - useroffset, usersize) */
		enum policy_bucket_set set = strncmp(name, "msg_msg-", 8) == 0
						     ? POLICY_BUCKETS_MSG_MSG
						     : POLICY_BUCKETS_MEMDUP_USER;
		if (policy_bucket_usersize(set, osz) != usersize) {
			check_diag("# %s: usersize model %u, sysfs %u\n", name,
				   policy_bucket_usersize(set, osz), usersize);
			bad++;
		}
		/* msg_msg-* are SLAB_ACCOUNT (kmem_buckets_create's flags) */
		if (strncmp(name, "msg_msg-", 8) == 0 && !(ci.g.flags & POLICY_F_ACCOUNT)) {
			check_diag("# %s: not SLAB_ACCOUNT\n", name);
			bad++;
		}
	}
	fclose(f);
	CHECK_EQ_U64("26 bucket caches in the excerpt", rows, 26);
	CHECK_EQ_U64("bucket caches as /sys/kernel/slab shows them", bad, 0);

	/* routed allocations land in the bucket cache of their size */
	struct policy_alloc_req r = {.cache = POLICY_KMALLOC, .size = 150, .route = 1};
	struct policy_obj o;
	struct err e = {0};
	struct policy_cache_info ci;
	CHECK("alloc routed to msg_msg", policy_alloc(p, &r, &o, &e) == 0);
	p->ops->cache_info(p, o.cache, &ci);
	CHECK_EQ_STR("150 bytes by load_msg -> msg_msg-192", ci.name, "msg_msg-192");
	CHECK_EQ_U64("bytes_alloc 192", o.bytes_alloc, 192);
	r.route = POLICY_BUCKETS_MEMDUP_USER;
	r.size = 9000; /* above kmalloc-8k: kmalloc_large, as for kmalloc-N */
	CHECK("large routed alloc", policy_alloc(p, &r, &o, &e) == 0);
	CHECK_EQ_U64("9000 bytes -> the page allocator", o.cache, POLICY_NO_CACHE);
	CHECK_EQ_U64("9000 bytes -> 4 pages", o.bytes_alloc, 16384);
	policy_destroy(p);

	p = make(POLICY_KERNEL_6_18, false, 0, 0);
	CHECK("no bucket caches with slab_buckets off", !find(p, "msg_msg-192", &ci));
	policy_destroy(p);
}

static void test_random_caches(void)
{
	struct policy *p = make(POLICY_KERNEL_6_6, false, 15, 7);
	struct policy_cache_info ci;
	unsigned rnd = 0;
	uint32_t n = p->ops->nr_caches(p);
	for (uint32_t i = 0; i < n; i++) {
		p->ops->cache_info(p, i, &ci);
		rnd += strncmp(ci.name, "kmalloc-rnd-", 12) == 0 && ci.alias_of == i;
	}
	/* 15 copies of the 13 normal caches (8 .. 8k with 96 and 192) */
	CHECK_EQ_U64("195 kmalloc-rnd caches, none merged", rnd, 195);
	CHECK("kmalloc-rnd-01-96 exists", find(p, "kmalloc-rnd-01-96", &ci));
	CHECK("kmalloc-rnd-15-8k exists", find(p, "kmalloc-rnd-15-8k", &ci));
	struct policy_alloc_req r = {.cache = POLICY_KMALLOC, .size = 100, .route = 3u << 8};
	struct policy_obj o;
	struct err e = {0};
	CHECK("alloc routed to copy 3", policy_alloc(p, &r, &o, &e) == 0);
	p->ops->cache_info(p, o.cache, &ci);
	CHECK_EQ_STR("100 bytes, copy 3 -> kmalloc-rnd-03-128", ci.name, "kmalloc-rnd-03-128");
	r.route = 0;
	CHECK("alloc of copy 0", policy_alloc(p, &r, &o, &e) == 0);
	p->ops->cache_info(p, o.cache, &ci);
	CHECK_EQ_STR("copy 0 is kmalloc-128", ci.name, "kmalloc-128");
	policy_destroy(p);
	p = make(POLICY_KERNEL_6_1, false, 15, 7);
	CHECK("6.1 makes no random copies", !find(p, "kmalloc-rnd-01-8", &ci));
	policy_destroy(p);
	struct policy_cfg cfg;
	policy_cfg_default(&cfg);
	cfg.kernel = POLICY_KERNEL_6_12;
	cfg.random_kmalloc = 15;
	cfg.slub_tiny = true; /* mm/Kconfig: depends on !SLUB_TINY */
	CHECK("no random copies under SLUB_TINY", !policy_random_enabled(&cfg));
	cfg.slub_tiny = false;
	CHECK("random copies on 6.12", policy_random_enabled(&cfg));
}

int main(int argc, char **argv)
{
	test_hash();
	test_route();
	if (argc > 1)
		test_sysfs(argv[1]);
	else
		CHECK("the 6.18 bucket excerpt is given", false);
	test_random_caches();
	return check_done();
}
