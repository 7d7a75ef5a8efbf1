/* test_slab_layout.c - SLAB layout arithmetic (layout_slab) against the
 * reference's worked examples and cases computed by hand.
 *
 * 1. Every row of kernel-slab-rules.md table 7.2 (kmalloc caches, 2 CPUs,
 *    slab_max_order 1), for --align none and natural, with and without
 *    CONFIG_DEBUG_SLAB.
 * 2. Non-kmalloc caches: the reference's DEBUG example (object 100, align 8:
 *    128-byte slots, object at +8) and hand-worked cases for OFF_SLAB,
 *    ON_SLAB, colouring, RECLAIM_ACCOUNT, slab_max_order and the debug
 *    rules (FORCED_DEBUG's power-of-two bracket, align > 8, RCU).
 * 3. The SLAB kmalloc index, CPU counts, and the error paths.
 * The working of each hand-computed figure is in the comment above it.
 */
#include "check.h"
#include "layout.h"
#include "policy.h"

#include <stdio.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define OBJ	      POLICY_FREELIST_OBJ
#define OFF	      POLICY_FREELIST_OFF_SLAB
#define ON	      POLICY_FREELIST_ON_SLAB

static struct policy_cfg make_cfg(enum policy_align a, bool debug, uint32_t nr_cpus)
{
	struct policy_cfg c;
	policy_cfg_default(&c);
	c.align = a;
	c.slab_debug = debug;
	c.nr_cpus = nr_cpus;
	return c;
}

static void check_u(const char *ctx, const char *field, uint64_t got, uint64_t want)
{
	char name[256];
	(void)snprintf(name, sizeof(name), "%s %s", ctx, field);
	CHECK_EQ_U64(name, got, want);
}

/* The figures of one cache, in the order of the reference's tables. */
struct expect {
	uint32_t size, align, mode, objs, order, left, colour, colour_off;
	uint32_t limit, batch, shared, free_limit;
};

static void check_geom(const char *ctx, const struct policy_geom *g, const struct expect *x)
{
	check_u(ctx, "size", g->size, x->size);
	check_u(ctx, "align", g->align, x->align);
	check_u(ctx, "freelist", g->freelist_mode, x->mode);
	check_u(ctx, "objs_per_slab", g->objs_per_slab, x->objs);
	check_u(ctx, "order", g->order, x->order);
	check_u(ctx, "left_over", g->left_over, x->left);
	check_u(ctx, "colour", g->colour, x->colour);
	check_u(ctx, "colour_off", g->colour_off, x->colour_off);
	check_u(ctx, "limit", g->limit, x->limit);
	check_u(ctx, "batchcount", g->batchcount, x->batch);
	check_u(ctx, "shared", g->shared, x->shared);
	check_u(ctx, "free_limit", g->free_limit, x->free_limit);
}

static bool geom_of(const struct policy_cfg *c, const struct policy_cache_spec *spec,
		    struct policy_geom *g, const char *ctx)
{
	struct err e;
	char name[256];
	err_clear(&e);
	memset(g, 0, sizeof(*g));
	int rc = layout_slab(c, spec, g, &e);
	(void)snprintf(name, sizeof(name), "%s: layout_slab succeeds", ctx);
	if (!CHECK(name, rc == 0))
		printf("#   rc %d: %s\n", rc, e.msg);
	return rc == 0;
}

static bool kgeom(const struct policy_cfg *c, enum policy_kmalloc_type t, uint32_t size,
		  struct policy_geom *g, const char *ctx)
{
	struct err e;
	char name[256];
	err_clear(&e);
	memset(g, 0, sizeof(*g));
	int rc = layout_slab_kmalloc(c, t, layout_slab_kmalloc_index(size), g, &e);
	(void)snprintf(name, sizeof(name), "%s: layout_slab_kmalloc succeeds", ctx);
	if (!CHECK(name, rc == 0))
		printf("#   rc %d: %s\n", rc, e.msg);
	return rc == 0;
}

/* ---------------------------------------------------------- 1. table 7.2 */

/* Reference 7.2, one row per cache: objsize, align off -> on, freelist,
 * objs/slab, pages/slab (as order), left, colour, tunables, free_limit; the
 * last column is free_limit with CONFIG_DEBUG_SLAB (see test_table_debug). */
static const struct row72 {
	uint32_t kmalloc_size, objsize, align_off, align_on, mode, objs, order, left, colour;
	uint32_t limit, batch, shared, free_limit, debug_free_limit;
} table72[] = {
	{32, 32, 32, 32, ON, 124, 0, 4, 0, 120, 60, 8, 304, 172},
	{64, 64, 64, 64, OBJ, 64, 0, 0, 0, 120, 60, 8, 244, 112},
	{96, 128, 64, 64, OBJ, 32, 0, 0, 0, 120, 60, 8, 212, 80},
	{128, 128, 64, 128, OBJ, 32, 0, 0, 0, 120, 60, 8, 212, 80},
	{192, 192, 64, 64, OBJ, 21, 0, 64, 1, 120, 60, 8, 201, 69},
	{256, 256, 64, 256, OBJ, 16, 0, 0, 0, 120, 60, 8, 196, 64},
	{512, 512, 64, 512, OBJ, 8, 0, 0, 0, 54, 27, 8, 89, 56},
	{1024, 1024, 64, 1024, OBJ, 4, 0, 0, 0, 54, 27, 8, 85, 52},
	{2048, 2048, 64, 2048, OBJ, 2, 0, 0, 0, 24, 12, 8, 38, 38},
	{4096, 4096, 64, 4096, OBJ, 1, 0, 0, 0, 24, 12, 8, 37, 37},
	{8192, 8192, 64, 8192, OBJ, 1, 1, 0, 0, 8, 4, 0, 13, 13},
	{16384, 16384, 64, 16384, OBJ, 1, 2, 0, 0, 8, 4, 0, 13, 13},
	{32768, 32768, 64, 32768, OBJ, 1, 3, 0, 0, 8, 4, 0, 13, 13},
	{65536, 65536, 64, 65536, OBJ, 1, 4, 0, 0, 8, 4, 0, 13, 13},
	{131072, 131072, 64, 131072, OBJ, 1, 5, 0, 0, 8, 4, 0, 13, 13},
	{262144, 262144, 64, 262144, OBJ, 1, 6, 0, 0, 1, 1, 0, 4, 4},
	{524288, 524288, 64, 524288, OBJ, 1, 7, 0, 0, 1, 1, 0, 4, 4},
	{1048576, 1048576, 64, 1048576, OBJ, 1, 8, 0, 0, 1, 1, 0, 4, 4},
	{2097152, 2097152, 64, 2097152, OBJ, 1, 9, 0, 0, 1, 1, 0, 4, 4},
	{4194304, 4194304, 64, 4194304, OBJ, 1, 10, 0, 0, 1, 1, 0, 4, 4},
};

static void test_table72(void)
{
	for (int on = 0; on < 2; on++) {
		struct policy_cfg c =
			make_cfg(on ? POLICY_ALIGN_NATURAL : POLICY_ALIGN_NONE, false, 2);
		for (size_t i = 0; i < ARRAY_SIZE(table72); i++) {
			const struct row72 *r = &table72[i];
			char ctx[96];
			struct policy_geom g;
			(void)snprintf(ctx, sizeof(ctx), "7.2 %s kmalloc-%u",
				       on ? "natural" : "none", r->kmalloc_size);
			if (!kgeom(&c, POLICY_KMALLOC_NORMAL, r->kmalloc_size, &g, ctx))
				continue;
			uint32_t align = on ? r->align_on : r->align_off;
			/* colour_off = max(cache line 64, align) */
			struct expect x = {r->objsize, align,	 r->mode,   r->objs,
					   r->order,   r->left,	 r->colour, align > 64 ? align : 64,
					   r->limit,   r->batch, r->shared, r->free_limit};
			check_u(ctx, "object_size", g.object_size, r->kmalloc_size);
			check_geom(ctx, &g, &x);
			check_u(ctx, "obj_offset", g.obj_offset, 0);
		}
	}
}

/* "With CONFIG_DEBUG_SLAB: same geometry (Z and U are stripped because every
 * kmalloc cache has align >= 32; P does not change the size), tunables
 * 32 16 8 for caches <= 1024 bytes (then 24 12 8, 8 4 0, 1 1 0), so
 * free_limit 3*16 + num": 48 + 124 = 172 (kmalloc-32), 48 + 64 = 112,
 * 48 + 32 = 80 (-96, -128), 48 + 21 = 69, 48 + 16 = 64, 48 + 8 = 56,
 * 48 + 4 = 52; the others keep their limit (24, 8, 1 <= 32) and free_limit. */
static void test_table72_debug(void)
{
	for (int on = 0; on < 2; on++) {
		struct policy_cfg c =
			make_cfg(on ? POLICY_ALIGN_NATURAL : POLICY_ALIGN_NONE, true, 2);
		for (size_t i = 0; i < ARRAY_SIZE(table72); i++) {
			const struct row72 *r = &table72[i];
			char ctx[96];
			struct policy_geom g;
			(void)snprintf(ctx, sizeof(ctx), "7.2 DEBUG_SLAB %s kmalloc-%u",
				       on ? "natural" : "none", r->kmalloc_size);
			if (!kgeom(&c, POLICY_KMALLOC_NORMAL, r->kmalloc_size, &g, ctx))
				continue;
			uint32_t align = on ? r->align_on : r->align_off;
			uint32_t limit = r->limit > 32 ? 32 : r->limit;
			struct expect x = {
				r->objsize, align,	     r->mode,	r->objs,
				r->order,   r->left,	     r->colour, align > 64 ? align : 64,
				limit,	    (limit + 1) / 2, r->shared, r->debug_free_limit};
			check_geom(ctx, &g, &x);
			check_u(ctx, "obj_offset (no red zone)", g.obj_offset, 0);
			/* FORCED_DEBUG adds Z U P; Z and U go again (align > 8) */
			check_u(ctx, "flags: P only", g.flags & POLICY_F_DEBUG_MASK,
				POLICY_F_POISON);
		}
	}
}

/* "The kmalloc-rcl-* and dma-kmalloc-* copies have the same geometry
 * (reclaimable ones stop at the first fitting order, which is the chosen
 * order anyway for these sizes)." */
static void test_other_types(void)
{
	struct policy_cfg c = make_cfg(POLICY_ALIGN_NATURAL, false, 2);
	static const enum policy_kmalloc_type types[] = {POLICY_KMALLOC_RECLAIM,
							 POLICY_KMALLOC_DMA};
	for (size_t t = 0; t < ARRAY_SIZE(types); t++) {
		for (size_t i = 0; i < ARRAY_SIZE(table72); i++) {
			const struct row72 *r = &table72[i];
			char ctx[96];
			struct policy_geom g;
			(void)snprintf(ctx, sizeof(ctx), "7.2 %s-%u",
				       t ? "dma-kmalloc" : "kmalloc-rcl", r->kmalloc_size);
			if (!kgeom(&c, types[t], r->kmalloc_size, &g, ctx))
				continue;
			check_u(ctx, "size", g.size, r->objsize);
			check_u(ctx, "objs_per_slab", g.objs_per_slab, r->objs);
			check_u(ctx, "order", g.order, r->order);
		}
	}
}

/* ------------------------------------------------- 2. non-kmalloc caches */

static void test_debug_example(void)
{
	struct policy_cfg c = make_cfg(POLICY_ALIGN_NATURAL, true, 2);
	struct policy_cache_spec s = {.name = "obj100", .object_size = 100, .align = 8};
	struct policy_geom g;
	/* Reference 7.2: "object 100 with align 8: 104 + 16 (red zones) + 8
	 * (user word) = 128-byte slots, object at slot + 8". 4096 / 128 = 32
	 * per page, left 0 (<= 1/8: order 0); OBJFREELIST since 32 indexes fit
	 * in the 100-byte object; colour_off 64, colour 0. Tunables: 128 <= 256
	 * gives 120, capped at 32 by DEBUG: 32 16 8; free_limit 3 * 16 + 32. */
	if (geom_of(&c, &s, &g, "DEBUG object 100 align 8")) {
		struct expect x = {128, 8, OBJ, 32, 0, 0, 0, 64, 32, 16, 8, 80};
		check_geom("DEBUG object 100 align 8", &g, &x);
		check_u("DEBUG object 100 align 8", "obj_offset", g.obj_offset, 8);
		check_u("DEBUG object 100 align 8", "red_left_pad", g.red_left_pad, 8);
		check_u("DEBUG object 100 align 8", "flags Z P U", g.flags & POLICY_F_DEBUG_MASK,
			POLICY_F_RED_ZONE | POLICY_F_POISON | POLICY_F_STORE_USER);
	}
	/* The same without DEBUG: ALIGN(100, 8) = 104; 4096 / 104 = 39, left
	 * 4096 - 4056 = 40 (40 * 8 <= 4096: order 0); 39 <= 100: OBJFREELIST;
	 * colour 40 / 64 = 0. 120 60 8, free_limit 3 * 60 + 39 = 219. */
	c.slab_debug = false;
	if (geom_of(&c, &s, &g, "object 100 align 8")) {
		struct expect x = {104, 8, OBJ, 39, 0, 40, 0, 64, 120, 60, 8, 219};
		check_geom("object 100 align 8", &g, &x);
		check_u("object 100 align 8", "obj_offset", g.obj_offset, 0);
	}
	/* Z P U asked for without DEBUG_SLAB: CACHE_CREATE_MASK drops them */
	s.flags = POLICY_F_RED_ZONE | POLICY_F_POISON | POLICY_F_STORE_USER;
	if (geom_of(&c, &s, &g, "object 100, Z P U without DEBUG"))
		check_u("object 100, Z P U without DEBUG", "size", g.size, 104);
}

static void test_freelist_modes(void)
{
	struct policy_cfg c = make_cfg(POLICY_ALIGN_NATURAL, false, 2);
	struct policy_geom g;

	/* OFF_SLAB: object 512 with a constructor (no OBJFREELIST). Off-slab
	 * order 0: 4096 / 512 = 8, left 0; the 8-byte index array comes from
	 * kmalloc-32 (size 32 <= 512 / 2) and is not off-slab itself; left 0
	 * <= 1/8: stop. left 0 < 8 (the array does not fit the left-over):
	 * OFF_SLAB, 8 objects instead of on-slab's 4096 / 513 = 7. Tunables
	 * 257..1024: 54 27 8; free_limit 3 * 27 + 8 = 89. */
	struct policy_cache_spec s = {
		.name = "ctor512", .object_size = 512, .align = 8, .ctor = true};
	if (geom_of(&c, &s, &g, "ctor 512")) {
		struct expect x = {512, 8, OFF, 8, 0, 0, 0, 64, 54, 27, 8, 89};
		check_geom("ctor 512", &g, &x);
	}

	/* OFF_SLAB for an RCU cache: object 1024 RCU: 4 per page, left 0,
	 * array of 4 bytes in kmalloc-32 (32 <= 512). 54 27 8, 81 + 4 = 85. */
	s = (struct policy_cache_spec){.name = "rcu1k",
				       .object_size = 1024,
				       .align = 8,
				       .flags = POLICY_F_TYPESAFE_BY_RCU};
	if (geom_of(&c, &s, &g, "RCU 1024")) {
		struct expect x = {1024, 8, OFF, 4, 0, 0, 0, 64, 54, 27, 8, 85};
		check_geom("RCU 1024", &g, &x);
	}

	/* Off-slab possible but the left-over holds the array: object 200 with
	 * a ctor. Off-slab order 0: 4096 / 200 = 20, left 96 (96 * 8 <= 4096);
	 * 96 >= 20, so on-slab: 4096 / 201 = 20, left 4096 - 4020 = 76;
	 * colour 76 / 64 = 1. 120 60 8, free_limit 180 + 20 = 200. */
	s = (struct policy_cache_spec){
		.name = "ctor200", .object_size = 200, .align = 8, .ctor = true};
	if (geom_of(&c, &s, &g, "ctor 200")) {
		struct expect x = {200, 8, ON, 20, 0, 76, 1, 64, 120, 60, 8, 200};
		check_geom("ctor 200", &g, &x);
	}

	/* On-slab because every off-slab array cache is too big: object 100
	 * with a ctor, slots ALIGN(100, 8) = 104. Off-slab: order 0 holds 39
	 * -> kmalloc-64 (64 > 100 / 2 = 50: skip); order 1 holds 78 ->
	 * kmalloc-96 (size 128: skip); order 2 holds 157 -> kmalloc-192 (skip);
	 * order 3 would hold 315 > 255: stop with nothing. On-slab: 4096 / 105
	 * = 39, left 1: order 0, colour 0. 120 60 8, 180 + 39 = 219. */
	s = (struct policy_cache_spec){
		.name = "ctor100", .object_size = 100, .align = 8, .ctor = true};
	if (geom_of(&c, &s, &g, "ctor 100")) {
		struct expect x = {104, 8, ON, 39, 0, 1, 0, 64, 120, 60, 8, 219};
		check_geom("ctor 100", &g, &x);
	}

	/* OBJFREELIST refused when the indexes do not fit the object: object
	 * 24 (no flags, align 8): 4096 / 24 = 170 > 24 bytes. Off-slab: the
	 * 170-byte array would come from kmalloc-192 (192 > 12: skip); order 1
	 * holds 341 > 255: stop. On-slab: 4096 / 25 = 163, left 21; colour 0.
	 * 120 60 8, 180 + 163 = 343. */
	s = (struct policy_cache_spec){.name = "obj24", .object_size = 24, .align = 8};
	if (geom_of(&c, &s, &g, "object 24")) {
		struct expect x = {24, 8, ON, 163, 0, 21, 0, 64, 120, 60, 8, 343};
		check_geom("object 24", &g, &x);
	}

	/* The smallest slot is 16 bytes (SLAB_OBJ_MIN_SIZE): object 4 -> 8 ->
	 * 16. OBJFREELIST: 256 > 255 at order 0: no order. Off-slab: same
	 * break. On-slab: 4096 / 17 = 240, left 16. */
	s = (struct policy_cache_spec){.name = "obj4", .object_size = 4, .align = 8};
	if (geom_of(&c, &s, &g, "object 4")) {
		check_u("object 4", "size", g.size, 16);
		check_u("object 4", "objs_per_slab", g.objs_per_slab, 240);
		check_u("object 4", "freelist", g.freelist_mode, ON);
		check_u("object 4", "left_over", g.left_over, 16);
	}
}

static void test_colour_and_orders(void)
{
	struct policy_cfg c = make_cfg(POLICY_ALIGN_NATURAL, false, 2);
	struct policy_geom g;

	/* Colour 3: object 1288 (align 8): 3 per page, left 4096 - 3864 = 232
	 * (232 * 8 <= 4096: order 0); 3 <= 1288: OBJFREELIST; colour
	 * 232 / 64 = 3. 1025..4096: 24 12 8; free_limit 3 * 12 + 3 = 39. */
	struct policy_cache_spec s = {.name = "c3", .object_size = 1288, .align = 8};
	if (geom_of(&c, &s, &g, "object 1288")) {
		struct expect x = {1288, 8, OBJ, 3, 0, 232, 3, 64, 24, 12, 8, 39};
		check_geom("object 1288", &g, &x);
	}

	/* slab_max_order: object 3000 (align 8). Order 0: 1 object, left 1096
	 * (1096 * 8 > 4096: go on, 0 < slab_max_order 1); order 1: 2 objects,
	 * left 8192 - 6000 = 2192, order 1 >= 1: stop. colour 2192 / 64 = 34.
	 * 24 12 8, free_limit 36 + 2 = 38. */
	s = (struct policy_cache_spec){.name = "o3000", .object_size = 3000, .align = 8};
	if (geom_of(&c, &s, &g, "object 3000")) {
		struct expect x = {3000, 8, OBJ, 2, 1, 2192, 34, 64, 24, 12, 8, 38};
		check_geom("object 3000", &g, &x);
	}
	/* slab_max_order=0: order 0, 1 object, left 1096, colour 17, 36 + 1 */
	c.slab_max_order = 0;
	if (geom_of(&c, &s, &g, "object 3000, slab_max_order 0")) {
		struct expect x = {3000, 8, OBJ, 1, 0, 1096, 17, 64, 24, 12, 8, 37};
		check_geom("object 3000, slab_max_order 0", &g, &x);
	}
	/* slab_max_order=3: order 1's 2192 * 8 > 8192; order 2: 16384 / 3000 =
	 * 5, left 1384, 1384 * 8 <= 16384: stop. colour 21; 36 + 5 = 41. */
	c.slab_max_order = 3;
	if (geom_of(&c, &s, &g, "object 3000, slab_max_order 3")) {
		struct expect x = {3000, 8, OBJ, 5, 2, 1384, 21, 64, 24, 12, 8, 41};
		check_geom("object 3000, slab_max_order 3", &g, &x);
	}
	/* slab_max_order= above 10 is clamped to 10 (slab_max_order_setup):
	 * the same answer as 3 here */
	c.slab_max_order = 40;
	if (geom_of(&c, &s, &g, "object 3000, slab_max_order 40"))
		check_u("object 3000, slab_max_order 40", "order", g.order, 2);
	c.slab_max_order = 1;

	/* SLAB_RECLAIM_ACCOUNT takes the first order that fits: order 0,
	 * 1 object, left 1096, colour 17 */
	s.flags = POLICY_F_RECLAIM_ACCOUNT;
	if (geom_of(&c, &s, &g, "object 3000, reclaimable")) {
		struct expect x = {3000, 8, OBJ, 1, 0, 1096, 17, 64, 24, 12, 8, 37};
		check_geom("object 3000, reclaimable", &g, &x);
	}

	/* HWCACHE_ALIGN object 100: calculate_alignment gives 64, slot
	 * ALIGN(100, 64) = 128, 32 per page, left 0. */
	s = (struct policy_cache_spec){
		.name = "hw100", .object_size = 100, .flags = POLICY_F_HWCACHE_ALIGN};
	if (geom_of(&c, &s, &g, "HWCACHE object 100")) {
		struct expect x = {128, 64, OBJ, 32, 0, 0, 0, 64, 120, 60, 8, 212};
		check_geom("HWCACHE object 100", &g, &x);
	}

	/* A caller alignment above the cache line sets colour_off: object 100
	 * align 128 -> slot 128, colour_off max(64, 128) = 128 */
	s = (struct policy_cache_spec){.name = "a128", .object_size = 100, .align = 128};
	if (geom_of(&c, &s, &g, "object 100 align 128"))
		check_u("object 100 align 128", "colour_off", g.colour_off, 128);
}

static void test_debug_rules(void)
{
	struct policy_cfg c = make_cfg(POLICY_ALIGN_NATURAL, true, 2);
	struct policy_geom g;

	/* FORCED_DEBUG above a page: object 5000: fls(4999) = fls(5023) = 13,
	 * so Z and U stay: 5000 + 16 + 8 = 5024, object at +8. Order 0 holds
	 * none; order 1: 1 object, left 8192 - 5024 = 3168, 1 >= slab_max_order:
	 * stop; colour 3168 / 64 = 49. Size > 4096: 8 4 0 (no shared array
	 * above a page), free_limit 3 * 4 + 1 = 13. */
	struct policy_cache_spec s = {.name = "o5000", .object_size = 5000, .align = 8};
	if (geom_of(&c, &s, &g, "DEBUG object 5000")) {
		struct expect x = {5024, 8, OBJ, 1, 1, 3168, 49, 64, 8, 4, 0, 13};
		check_geom("DEBUG object 5000", &g, &x);
		check_u("DEBUG object 5000", "obj_offset", g.obj_offset, 8);
	}
	/* object 4096: fls(4095) = 12 but fls(4119) = 13: no Z, no U (a 4 KiB
	 * object would become 4120 bytes); P only. 1 per page, 24 12 8, 37. */
	s.object_size = 4096;
	if (geom_of(&c, &s, &g, "DEBUG object 4096")) {
		struct expect x = {4096, 8, OBJ, 1, 0, 0, 0, 64, 24, 12, 8, 37};
		check_geom("DEBUG object 4096", &g, &x);
		check_u("DEBUG object 4096", "flags P only", g.flags & POLICY_F_DEBUG_MASK,
			POLICY_F_POISON);
	}
	/* align 16 > 8 drops Z and U: object 100 align 16 -> ALIGN(104, 16) =
	 * 112, object at 0; 4096 / 112 = 36, left 64, colour 1. */
	s = (struct policy_cache_spec){.name = "a16", .object_size = 100, .align = 16};
	if (geom_of(&c, &s, &g, "DEBUG object 100 align 16")) {
		struct expect x = {112, 16, OBJ, 36, 0, 64, 1, 64, 32, 16, 8, 84};
		check_geom("DEBUG object 100 align 16", &g, &x);
		check_u("DEBUG object 100 align 16", "obj_offset", g.obj_offset, 0);
	}
	/* RCU: no P; Z and U as usual: 104 + 16 + 8 = 128, object at +8. No
	 * OBJFREELIST (RCU); off-slab: 32 per page, left 0, the 32-byte array
	 * from kmalloc-32 (32 <= 50): OFF_SLAB. 32 16 8, 48 + 32 = 80. */
	s = (struct policy_cache_spec){.name = "rcu100",
				       .object_size = 100,
				       .align = 8,
				       .flags = POLICY_F_TYPESAFE_BY_RCU};
	if (geom_of(&c, &s, &g, "DEBUG RCU object 100")) {
		struct expect x = {128, 8, OFF, 32, 0, 0, 0, 64, 32, 16, 8, 80};
		check_geom("DEBUG RCU object 100", &g, &x);
		check_u("DEBUG RCU object 100", "flags Z U", g.flags & POLICY_F_DEBUG_MASK,
			POLICY_F_RED_ZONE | POLICY_F_STORE_USER);
	}
	/* slub_debug means nothing to SLAB */
	struct policy_cfg c2 = make_cfg(POLICY_ALIGN_NATURAL, false, 2);
	c2.slub_debug =
		POLICY_F_CONSISTENCY | POLICY_F_RED_ZONE | POLICY_F_POISON | POLICY_F_STORE_USER;
	if (kgeom(&c2, POLICY_KMALLOC_NORMAL, 64, &g, "slub_debug=FZPU under SLAB")) {
		check_u("slub_debug=FZPU under SLAB", "size", g.size, 64);
		check_u("slub_debug=FZPU under SLAB", "flags", g.flags & POLICY_F_DEBUG_MASK, 0);
	}
}

/* ------------------------------------------------------ 3. index, CPUs */

static void test_kmalloc_index(void)
{
	/* reference 2.2: SLAB patches 1..32 to kmalloc-32; then 33-64 -> 6,
	 * 65-96 -> 1, 97-128 -> 7, 129-192 -> 2, then fls(size - 1) up to 4 MiB */
	static const struct {
		uint64_t size;
		uint32_t index;
	} cases[] = {
		{0, 0},
		{1, 5},
		{8, 5},
		{24, 5},
		{32, 5},
		{33, 6},
		{64, 6},
		{65, 1},
		{96, 1},
		{97, 7},
		{128, 7},
		{129, 2},
		{192, 2},
		{193, 8},
		{8193, 14},
		{1u << 22, 22},
		{(1u << 22) + 1, 0},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char name[64];
		(void)snprintf(name, sizeof(name), "SLAB kmalloc index of %llu",
			       (unsigned long long)cases[i].size);
		CHECK_EQ_U64(name, layout_slab_kmalloc_index(cases[i].size), cases[i].index);
	}
	char buf[32];
	CHECK_EQ_STR("name of index 22", layout_kmalloc_name(POLICY_KMALLOC_NORMAL, 22, buf),
		     "kmalloc-4M");
	CHECK_EQ_STR("name of rcl index 20", layout_kmalloc_name(POLICY_KMALLOC_RECLAIM, 20, buf),
		     "kmalloc-rcl-1M");
}

static void test_cpus(void)
{
	struct policy_geom g;
	/* One CPU: no shared array (num_possible_cpus() == 1), free_limit
	 * (1 + 1) * 60 + 64 = 184 for kmalloc-64 */
	struct policy_cfg c = make_cfg(POLICY_ALIGN_NATURAL, false, 1);
	if (kgeom(&c, POLICY_KMALLOC_NORMAL, 64, &g, "1 CPU kmalloc-64")) {
		check_u("1 CPU kmalloc-64", "shared", g.shared, 0);
		check_u("1 CPU kmalloc-64", "free_limit", g.free_limit, 184);
	}
	/* Four CPUs: (1 + 4) * 60 + 64 = 364 */
	c.nr_cpus = 4;
	if (kgeom(&c, POLICY_KMALLOC_NORMAL, 64, &g, "4 CPUs kmalloc-64")) {
		check_u("4 CPUs kmalloc-64", "shared", g.shared, 8);
		check_u("4 CPUs kmalloc-64", "free_limit", g.free_limit, 364);
	}
}

static void test_errors(void)
{
	struct policy_cfg c = make_cfg(POLICY_ALIGN_NATURAL, false, 2);
	struct policy_geom g;
	struct err e;
	struct policy_cache_spec s = {.name = "zero", .object_size = 0};
	CHECK("object_size 0 is refused", layout_slab(&c, &s, &g, &e) == SLABSIM_EUSAGE);
	s = (struct policy_cache_spec){.name = "a24", .object_size = 100, .align = 24};
	CHECK("alignment 24 is refused", layout_slab(&c, &s, &g, &e) == SLABSIM_EUSAGE);
	/* 5 MiB: no order up to 10 (4 MiB) holds one */
	s = (struct policy_cache_spec){.name = "huge", .object_size = 5u << 20, .align = 8};
	CHECK("a 5 MiB object is refused (E2BIG)", layout_slab(&c, &s, &g, &e) == SLABSIM_EUSAGE);
	CHECK("kmalloc index 3 does not exist under SLAB",
	      layout_slab_kmalloc(&c, POLICY_KMALLOC_NORMAL, 3, &g, &e) == SLABSIM_EUSAGE);
	CHECK("kmalloc index 23 does not exist",
	      layout_slab_kmalloc(&c, POLICY_KMALLOC_NORMAL, 23, &g, &e) == SLABSIM_EUSAGE);
	c.nr_cpus = 0;
	s = (struct policy_cache_spec){.name = "x", .object_size = 64, .align = 8};
	CHECK("nr_cpus 0 is refused", layout_slab(&c, &s, &g, &e) == SLABSIM_EUSAGE);
}

int main(void)
{
	test_table72();
	test_table72_debug();
	test_other_types();
	test_debug_example();
	test_freelist_modes();
	test_colour_and_orders();
	test_debug_rules();
	test_kmalloc_index();
	test_cpus();
	test_errors();
	return check_done();
}
