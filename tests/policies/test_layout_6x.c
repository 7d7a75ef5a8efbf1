/* test_layout_6x.c - the layout rules of the 6.6, 6.12 and 6.18 profiles,
 * worked by hand from the kernel source (Debian linux-source-6.12, 6.12.118;
 * torvalds/linux at a4a508df2aa3 for 6.18's vm_area_struct):
 *
 * 1. create_boot_cache() (mm/slab_common.c, 6.11+): a kmalloc cache's align
 *    is max(8, 1 << (ffs(size) - 1)): kmalloc-96 32, kmalloc-192 64, every
 *    kmalloc type; pow2-divisor gives it under any profile and allocator.
 * 2. calculate_sizes() (mm/slub.c) under slab_debug Z and F Z P U with
 *    that alignment, and 6.2's slub_debug_orig_size() rule (Z + U on a
 *    kmalloc cache moves the free pointer out of the object).
 * 3. freeptr_offset: a TYPESAFE_BY_RCU cache created with it keeps the
 *    pointer inside (vm_area_struct 192 bytes a slot, 21 a slab on 6.18).
 * 4. Configuration switches: SLUB_TINY (MIN_PARTIAL/MAX_PARTIAL 0, no
 *    per-CPU partial lists, kmalloc-rcl-N folded into kmalloc-N), no
 *    ZONE_DMA, no MEMCG; the default --align of each profile; what-ifs.
 */
#include "cache_facts.h"
#include "check.h"
#include "layout.h"
#include "policy.h"

#include <stdio.h>
#include <string.h>

#define FZPU (POLICY_F_CONSISTENCY | POLICY_F_RED_ZONE | POLICY_F_POISON | POLICY_F_STORE_USER)

static struct policy_cfg cfg_of(enum policy_kernel k, uint32_t debug)
{
	struct policy_cfg c;
	policy_cfg_default(&c);
	c.kernel = k;
	c.align = policy_kernel_align(k);
	c.slub_debug = debug;
	c.nr_cpus = 2;
	return c;
}

static struct policy_geom kgeom(const struct policy_cfg *c, enum policy_kmalloc_type t,
				uint32_t size)
{
	struct policy_geom g;
	struct err e;
	memset(&g, 0, sizeof(g));
	err_clear(&e);
	if (layout_slub_kmalloc(c, t, layout_kmalloc_index(size), &g, &e))
		printf("# layout_slub_kmalloc: %s\n", e.msg);
	return g;
}

static void test_align_rule(void)
{
	static const enum policy_kmalloc_type types[] = {POLICY_KMALLOC_NORMAL,
							 POLICY_KMALLOC_RECLAIM, POLICY_KMALLOC_DMA,
							 POLICY_KMALLOC_CGROUP};
	char name[96];
	for (int k = POLICY_KERNEL_6_12; k <= POLICY_KERNEL_6_18; k++) {
		struct policy_cfg c = cfg_of((enum policy_kernel)k, 0);
		for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
			struct policy_geom g96 = kgeom(&c, types[t], 96);
			struct policy_geom g192 = kgeom(&c, types[t], 192);
			/* ffs(96) = 6: 1 << 5 = 32; ffs(192) = 7: 64. No debug: the
			 * slot stays the object (96 and 192 are multiples). */
			(void)snprintf(name, sizeof(name), "%s type %zu kmalloc-96 align 32",
				       policy_kernel_name((enum policy_kernel)k), t);
			CHECK_EQ_U64(name, g96.align, 32);
			(void)snprintf(name, sizeof(name), "%s type %zu kmalloc-192 align 64",
				       policy_kernel_name((enum policy_kernel)k), t);
			CHECK_EQ_U64(name, g192.align, 64);
			CHECK_EQ_U64("kmalloc-96 slot 96, 42 a slab",
				     g96.size * 1000 + g96.objs_per_slab, 96 * 1000 + 42);
			CHECK_EQ_U64("kmalloc-192 slot 192, 21 a slab",
				     g192.size * 1000 + g192.objs_per_slab, 192 * 1000 + 21);
		}
		/* powers of two keep natural alignment; 8 stays 8 */
		CHECK_EQ_U64("kmalloc-8 align 8", kgeom(&c, POLICY_KMALLOC_NORMAL, 8).align, 8);
		CHECK_EQ_U64("kmalloc-2k align 2048", kgeom(&c, POLICY_KMALLOC_NORMAL, 2048).align,
			     2048);
	}
	/* 6.6 predates the rule: 8 */
	struct policy_cfg c66 = cfg_of(POLICY_KERNEL_6_6, 0);
	CHECK_EQ_U64("6.6 kmalloc-96 align 8", kgeom(&c66, POLICY_KMALLOC_NORMAL, 96).align, 8);
	/* the what-if under 5.4 */
	struct policy_cfg c54 = cfg_of(POLICY_KERNEL_5_4, 0);
	c54.align = POLICY_ALIGN_POW2_DIVISOR;
	CHECK_EQ_U64("5.4 pow2-divisor kmalloc-192 align 64",
		     kgeom(&c54, POLICY_KMALLOC_NORMAL, 192).align, 64);
	CHECK_EQ_U64("layout_kmalloc_align(pow2-divisor, 24) = 8", layout_kmalloc_align(&c54, 24),
		     8);
	CHECK_EQ_U64("layout_kmalloc_align(pow2-divisor, 96) = 32", layout_kmalloc_align(&c54, 96),
		     32);
}

static void test_debug_sizes(void)
{
	struct policy_cfg z = cfg_of(POLICY_KERNEL_6_18, POLICY_F_RED_ZONE);
	struct policy_geom g = kgeom(&z, POLICY_KMALLOC_NORMAL, 96);
	/* calculate_sizes, Z only, kmalloc-96 (align 32):
	 *   ALIGN(96, 8) = 96 = object_size: one word for the red zone -> 104
	 *   inuse = 104; free pointer mid-object: ALIGN_DOWN(96 / 2, 8) = 48
	 *   red zone padding word: 112; red_left_pad = ALIGN(8, 32) = 32: 144
	 *   ALIGN(144, 32) = 160 (6.1's align 8 gave 120). calculate_order:
	 *   min_objects 4 * (fls(2) + 1) = 12, get_order(12 * 160) = 0, 4096 %
	 *   160 = 96 <= 4096 / 16: order 0, 25 objects. */
	CHECK_EQ_U64("Z kmalloc-96 inuse 104", g.inuse, 104);
	CHECK_EQ_U64("Z kmalloc-96 offset 48", g.offset, 48);
	CHECK_EQ_U64("Z kmalloc-96 red_left_pad 32", g.red_left_pad, 32);
	CHECK_EQ_U64("Z kmalloc-96 slot 160", g.size, 160);
	CHECK_EQ_U64("Z kmalloc-96 order 0", g.order, 0);
	CHECK_EQ_U64("Z kmalloc-96 25 a slab", g.objs_per_slab, 25);
	/* kmalloc-192 (align 64): 200, offset 96, 208, + red_left_pad 64 =
	 * 272, ALIGN 64 = 320; 4096 % 320 = 256 <= 256: order 0, 12 */
	g = kgeom(&z, POLICY_KMALLOC_NORMAL, 192);
	CHECK_EQ_U64("Z kmalloc-192 slot 320", g.size, 320);
	CHECK_EQ_U64("Z kmalloc-192 12 a slab", g.objs_per_slab, 12);

	struct policy_cfg f = cfg_of(POLICY_KERNEL_6_18, FZPU);
	/* F Z P U, kmalloc-96: 104 (Z); P moves the pointer out: offset 104,
	 * 112; U: two 32-byte tracks + the orig_size word (unsigned long in
	 * 6.12) = 184; Z: 192, red_left_pad 32 = 224, ALIGN 32 = 224.
	 * 12 * 224 = 2688: order 0; 4096 % 224 = 64: 18 objects. */
	g = kgeom(&f, POLICY_KMALLOC_NORMAL, 96);
	CHECK_EQ_U64("FZPU kmalloc-96 offset 104", g.offset, 104);
	CHECK_EQ_U64("FZPU kmalloc-96 slot 224", g.size, 224);
	CHECK_EQ_U64("FZPU kmalloc-96 18 a slab", g.objs_per_slab, 18);
	/* kmalloc-192: 200, 208, 280, 288 + 64 = 352, ALIGN 64 = 384;
	 * get_order(12 * 384) = 1, 8192 % 384 = 128 <= 512: order 1, 21 */
	g = kgeom(&f, POLICY_KMALLOC_NORMAL, 192);
	CHECK_EQ_U64("FZPU kmalloc-192 slot 384", g.size, 384);
	CHECK_EQ_U64("FZPU kmalloc-192 order 1", g.order, 1);
	CHECK_EQ_U64("FZPU kmalloc-192 21 a slab", g.objs_per_slab, 21);
	/* 6.1, same flags (align 8): 104, 112, 176 + 4 = 180, 188, 196 ->
	 * 200 */
	struct policy_cfg f61 = cfg_of(POLICY_KERNEL_6_1, FZPU);
	CHECK_EQ_U64("6.1 FZPU kmalloc-96 slot 200", kgeom(&f61, POLICY_KMALLOC_NORMAL, 96).size,
		     200);

	/* Z U without P: 6.2's slub_debug_orig_size() moves the pointer out
	 * (6.18 natural what-if, align 8): 104, offset 104 -> 112, + 64 + 8 =
	 * 184, + 8 = 192, + red_left_pad 8 = 200. 6.1 keeps it at 48: 104 +
	 * 64 + 4 = 172, 180, 188 -> 192. */
	struct policy_cfg zu = cfg_of(POLICY_KERNEL_6_18, POLICY_F_RED_ZONE | POLICY_F_STORE_USER);
	zu.align = POLICY_ALIGN_NATURAL;
	g = kgeom(&zu, POLICY_KMALLOC_NORMAL, 96);
	CHECK_EQ_U64("6.18 ZU kmalloc-96 offset 104", g.offset, 104);
	CHECK_EQ_U64("6.18 ZU kmalloc-96 slot 200", g.size, 200);
	struct policy_cfg zu61 = cfg_of(POLICY_KERNEL_6_1, POLICY_F_RED_ZONE | POLICY_F_STORE_USER);
	g = kgeom(&zu61, POLICY_KMALLOC_NORMAL, 96);
	CHECK_EQ_U64("6.1 ZU kmalloc-96 offset 48", g.offset, 48);
	CHECK_EQ_U64("6.1 ZU kmalloc-96 slot 192", g.size, 192);
}

static void test_freeptr(void)
{
	/* vm_area_struct on the 6.18 machine: object_size 192, HWCACHE_ALIGN
	 * (align 64), TYPESAFE_BY_RCU with freeptr_offset. Inside: ALIGN(192,
	 * 64) = 192, 21 a slab; the 6.1 rule adds a word: 200 -> 256, 16. */
	struct policy_cache_spec spec = {
		.name = "vm_area_struct",
		.object_size = 192,
		.flags = POLICY_F_HWCACHE_ALIGN | POLICY_F_TYPESAFE_BY_RCU | POLICY_F_ACCOUNT,
		.use_freeptr_offset = true,
		.freeptr_offset = 64,
	};
	struct policy_geom g;
	struct err e;
	struct policy_cfg c = cfg_of(POLICY_KERNEL_6_18, 0);
	CHECK("vm_area_struct lays out", layout_slub(&c, &spec, &g, &e) == 0);
	CHECK_EQ_U64("vm_area_struct slot 192", g.size, 192);
	CHECK_EQ_U64("vm_area_struct 21 a slab", g.objs_per_slab, 21);
	CHECK_EQ_U64("vm_area_struct pointer at its offset", g.offset, 64);
	c = cfg_of(POLICY_KERNEL_6_6, 0);
	CHECK("6.6 lays out", layout_slub(&c, &spec, &g, &e) == 0);
	CHECK_EQ_U64("6.6 (no freeptr_offset) slot 256", g.size, 256);
	CHECK_EQ_U64("6.6 16 a slab", g.objs_per_slab, 16);
	/* P still moves it out (calculate_sizes tests POISON first):
	 * 192 + 8 = 200 -> 256 */
	c = cfg_of(POLICY_KERNEL_6_18, POLICY_F_POISON);
	CHECK("P lays out", layout_slub(&c, &spec, &g, &e) == 0);
	CHECK_EQ_U64("P: slot 256", g.size, 256);

	/* the facts tables: filp from 6.12's fs/file_table.c, vm_area_struct
	 * only from 6.18 (kernel/fork.c's KMEM_CACHE in 6.12) */
	const struct policy_cache_facts *f = policy_cache_facts_find(POLICY_KERNEL_6_12, "filp");
	CHECK("6.12 filp: freeptr_offset", f && f->freeptr);
	f = policy_cache_facts_find(POLICY_KERNEL_6_12, "vm_area_struct");
	CHECK("6.12 vm_area_struct: none", f && !f->freeptr);
	f = policy_cache_facts_find(POLICY_KERNEL_6_18, "vm_area_struct");
	CHECK("6.18 vm_area_struct: freeptr_offset, RCU",
	      f && f->freeptr && (f->flags & POLICY_F_TYPESAFE_BY_RCU));
	f = policy_cache_facts_find(POLICY_KERNEL_6_1, "filp");
	CHECK("6.1 filp: none", f && !f->freeptr);
}

static void test_switches(void)
{
	struct policy_cfg c = cfg_of(POLICY_KERNEL_6_12, 0);
	c.slub_tiny = true;
	/* MIN_PARTIAL/MAX_PARTIAL 0, SLUB_CPU_PARTIAL depends on !SLUB_TINY */
	struct policy_geom g = kgeom(&c, POLICY_KMALLOC_NORMAL, 4096);
	CHECK_EQ_U64("tiny min_partial 0", g.min_partial, 0);
	CHECK_EQ_U64("tiny cpu_partial 0", g.cpu_partial, 0);
	CHECK_EQ_U64("tiny: RECLAIM is NORMAL", layout_kmalloc_type(&c, POLICY_KMALLOC_RECLAIM),
		     POLICY_KMALLOC_NORMAL);
	CHECK_EQ_U64("tiny: DMA stays", layout_kmalloc_type(&c, POLICY_KMALLOC_DMA),
		     POLICY_KMALLOC_DMA);
	c.slub_tiny = false;
	c.no_zone_dma = true;
	c.no_kmalloc_cg = true;
	CHECK_EQ_U64("no ZONE_DMA: DMA is NORMAL", layout_kmalloc_type(&c, POLICY_KMALLOC_DMA),
		     POLICY_KMALLOC_NORMAL);
	CHECK_EQ_U64("no MEMCG: CGROUP is NORMAL", layout_kmalloc_type(&c, POLICY_KMALLOC_CGROUP),
		     POLICY_KMALLOC_NORMAL);
	CHECK_EQ_U64("6.1 align rule natural", policy_kernel_align(POLICY_KERNEL_6_1),
		     POLICY_ALIGN_NATURAL);
	CHECK_EQ_U64("6.6 align rule natural", policy_kernel_align(POLICY_KERNEL_6_6),
		     POLICY_ALIGN_NATURAL);
	CHECK_EQ_U64("6.12 align rule pow2-divisor", policy_kernel_align(POLICY_KERNEL_6_12),
		     POLICY_ALIGN_POW2_DIVISOR);
	enum policy_align a;
	struct err e;
	CHECK("parse pow2-divisor",
	      policy_parse_align("pow2-divisor", &a, &e) == 0 && a == POLICY_ALIGN_POW2_DIVISOR);
	CHECK("pow2-divisor is not by site", !policy_align_by_site(POLICY_ALIGN_POW2_DIVISOR));

	char buf[320];
	struct policy_cfg w = cfg_of(POLICY_KERNEL_6_18, 0);
	CHECK("6.18 slub default: no what-if",
	      policy_what_if(&w, "slub", buf, sizeof(buf)) == NULL);
	const char *m = policy_what_if(&w, "slab", buf, sizeof(buf));
	CHECK("6.18 slab: what-if", m && strstr(m, "SLAB was removed in Linux 6.8"));
	w.align = POLICY_ALIGN_NATURAL;
	m = policy_what_if(&w, "slub", buf, sizeof(buf));
	CHECK("6.18 natural: what-if naming the rule",
	      m && strstr(m, "--align natural, where the 6.18 profile's rule is pow2-divisor"));
	struct policy_cfg w6 = cfg_of(POLICY_KERNEL_6_6, 0);
	m = policy_what_if(&w6, "slob", buf, sizeof(buf));
	CHECK("6.6 slob: what-if", m && strstr(m, "SLOB was removed in Linux 6.4"));
	struct policy_cfg w54 = cfg_of(POLICY_KERNEL_5_4, 0);
	w54.align = POLICY_ALIGN_NONE;
	CHECK("5.4 none: the seed question's own option",
	      policy_what_if(&w54, "slob", buf, sizeof(buf)) == NULL);
}

int main(void)
{
	test_align_rule();
	test_debug_sizes();
	test_freeptr();
	test_switches();
	return check_done();
}
