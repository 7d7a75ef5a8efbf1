/* layout.c - the size, order and alignment arithmetic of the slab allocators
 * (the kernel's mm/slab_common.c plus SLUB's calculate_sizes/calculate_order,
 * and SLAB's __kmem_cache_create layout in its own section at the end),
 * kept apart from the models so it can be checked against real /sys/kernel/slab
 * figures without running anything. Every function is a pure function of its
 * arguments; all sizes are computed in 64 bits and only narrowed once they are
 * known to fit a slab.
 *
 * SLUB object layout (one slot of s->size bytes; the object pointer a caller
 * gets is slot + red_left_pad):
 *
 *   slot start
 *     left red zone: red_left_pad bytes, only with Z (ALIGN(8, align))
 *   object (slot + red_left_pad)
 *     object_size bytes the caller owns. When nothing forbids it, the free
 *     pointer of a free object overlays them: word 0 (5.4) or the word at
 *     ALIGN_DOWN(object_size / 2, 8) (6.1).
 *   object + object_size
 *     slack up to the next word; with Z it is the right red zone, and a whole
 *     extra word is added when there is no slack.
 *   object + inuse: metadata
 *     a. free pointer, when it may not overlay the object (P, RCU, ctor;
 *        6.1 also Z with object_size < 8): offset == inuse
 *     b. two struct track (alloc, free), with U: 152 bytes each in 5.4,
 *        32 in 6.1 (stack depot handle instead of a 16-entry stack)
 *     c. 6.1, U on a kmalloc cache: the requested size, 4 bytes
 *     d. with Z, one padding word that catches writes running off the end
 *   then round up to align
 *   object - red_left_pad + size: the next slot. Nothing lives past s->size.
 *
 * Kernel functions followed (v5.4 unless noted, v6.1 differences behind
 * cfg->kernel): kmalloc_index/kmalloc_size/kmalloc_cache_name and
 * calculate_alignment, create_boot_cache, new_kmalloc_cache
 * (mm/slab_common.c); calculate_sizes, slab_order, calculate_order,
 * set_min_partial, set_cpu_partial and (6.1) slub_set_cpu_partial
 * (mm/slub.c); get_order (include/asm-generic/getorder.h). The v6.1 details
 * were read in mm/slub.c of 6.1-era trees: calculate_sizes' free pointer
 * condition "RCU or P or (Z and object_size < sizeof(void *)) or ctor",
 * the orig_size word "U and SLAB_KMALLOC", calculate_order's
 * num_present_cpus() (nr_cpu_ids when that is <= 1) and set_cpu_partial's
 * 6/24/52/120 with cpu_partial_slabs = DIV_ROUND_UP(2 * objects, objs_per_slab).
 */
#include "layout.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define WORD_BYTES	      8u /* sizeof(void *) on x86_64 */
#define ARCH_KMALLOC_MINALIGN 8u /* __alignof__(unsigned long long) */
#define ARCH_SLAB_MINALIGN    8u
#define MAX_OBJS_PER_PAGE     32767u /* the objects field of struct page is 15 bits */
#define MIN_PARTIAL	      5u
#define MAX_PARTIAL	      10u
#define TRACK_BYTES_5_4	      152u /* addr + addrs[16] + cpu + pid + when */
#define TRACK_BYTES_6_1	      32u  /* addr + depot handle + cpu + pid + pad + when */
#define ORIG_SIZE_BYTES	      4u   /* 6.1: unsigned int after the tracks */

/* The largest slab SLUB can get from the buddy allocator. */
#define MAX_SLAB_BYTES ((uint64_t)POLICY_PAGE_SIZE << (POLICY_MAX_ORDER - 1))

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

static bool is_power_of_2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static bool is_61(const struct policy_cfg *cfg)
{
	return cfg->kernel >= POLICY_KERNEL_6_1;
}

uint32_t layout_fls(uint64_t x)
{
	uint32_t n = 0;
	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

uint32_t layout_get_order(uint64_t size)
{
	/* The kernel leaves size 0 undefined; 0 is the harmless answer. */
	if (size == 0)
		return 0;
	return layout_fls((size - 1) >> POLICY_PAGE_SHIFT);
}

/* size_index[(size - 1) / 8] for sizes 1..192 (mm/slab_common.c): the
 * 96- and 192-byte caches take the sizes between the powers of two around
 * them. */
static const uint8_t size_index[24] = {
	3, /* 8 */ 4,	/* 16 */ 5,  /* 24 */ 5,  /* 32 */ 6,  /* 40 */ 6,  /* 48 */
	6, /* 56 */ 6,	/* 64 */ 1,  /* 72 */ 1,  /* 80 */ 1,  /* 88 */ 1,  /* 96 */
	7, /* 104 */ 7, /* 112 */ 7, /* 120 */ 7, /* 128 */ 2, /* 136 */ 2, /* 144 */
	2, /* 152 */ 2, /* 160 */ 2, /* 168 */ 2, /* 176 */ 2, /* 184 */ 2, /* 192 */
};

uint32_t layout_kmalloc_index(uint64_t size)
{
	if (size == 0 || size > (1u << LAYOUT_SLUB_KMALLOC_SHIFT_HIGH))
		return 0;
	if (size <= 192)
		return size_index[(size - 1) / 8];
	return layout_fls(size - 1);
}

uint32_t layout_kmalloc_size(uint32_t index)
{
	if (index == 1)
		return 96;
	if (index == 2)
		return 192;
	if (index == 0 || index >= 32)
		return 0;
	return 1u << index;
}

const char *layout_kmalloc_name(enum policy_kmalloc_type t, uint32_t index, char *buf)
{
	static const char *const prefix[POLICY_KMALLOC_NR_TYPES] = {
		[POLICY_KMALLOC_NORMAL] = "kmalloc",
		[POLICY_KMALLOC_RECLAIM] = "kmalloc-rcl",
		[POLICY_KMALLOC_DMA] = "dma-kmalloc",
		[POLICY_KMALLOC_CGROUP] = "kmalloc-cg",
	};
	static const char *const unit[] = {"", "k", "M", "G"};
	uint32_t size = layout_kmalloc_size(index);
	unsigned u = 0;

	/* kmalloc_cache_name(): divide by 1024 while it divides evenly */
	while (size >= 1024 && size % 1024 == 0 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		size /= 1024;
		u++;
	}
	(void)snprintf(buf, 32, "%s-%u%s",
		       (unsigned)t < POLICY_KMALLOC_NR_TYPES ? prefix[t] : "kmalloc", size,
		       unit[u]);
	return buf;
}

uint32_t layout_kmalloc_flags(enum policy_kmalloc_type t)
{
	/* new_kmalloc_cache() / create_kmalloc_caches(); SLUB passes no
	 * HWCACHE_ALIGN (SLAB's ARCH_KMALLOC_FLAGS would) */
	switch (t) {
	case POLICY_KMALLOC_RECLAIM:
		return POLICY_F_RECLAIM_ACCOUNT | POLICY_F_KMALLOC;
	case POLICY_KMALLOC_DMA:
		return POLICY_F_CACHE_DMA | POLICY_F_KMALLOC;
	case POLICY_KMALLOC_CGROUP:
		return POLICY_F_ACCOUNT | POLICY_F_KMALLOC;
	default:
		return POLICY_F_KMALLOC;
	}
}

enum policy_kmalloc_type layout_kmalloc_type(const struct policy_cfg *cfg,
					     enum policy_kmalloc_type t)
{
	if ((unsigned)t >= POLICY_KMALLOC_NR_TYPES)
		return POLICY_KMALLOC_NORMAL;
	/* 5.4 has no kmalloc-cg caches: __GFP_ACCOUNT kmallocs use kmalloc-N;
	 * nor has a kernel without CONFIG_MEMCG (6.1: MEMCG_KMEM). The enum
	 * kmalloc_cache_type of include/linux/slab.h (6.12) folds the types a
	 * configuration lacks into KMALLOC_NORMAL alike: KMALLOC_RECLAIM under
	 * CONFIG_SLUB_TINY, KMALLOC_DMA without CONFIG_ZONE_DMA. */
	if (t == POLICY_KMALLOC_CGROUP && (!is_61(cfg) || cfg->no_kmalloc_cg))
		return POLICY_KMALLOC_NORMAL;
	if (t == POLICY_KMALLOC_RECLAIM && cfg->slub_tiny)
		return POLICY_KMALLOC_NORMAL;
	if (t == POLICY_KMALLOC_DMA && cfg->no_zone_dma)
		return POLICY_KMALLOC_NORMAL;
	return t;
}

uint32_t layout_calculate_alignment(const struct policy_cfg *cfg, uint32_t flags, uint32_t align,
				    uint32_t size)
{
	uint64_t a = align;

	if (flags & POLICY_F_HWCACHE_ALIGN) {
		/* Small objects share a cache line rather than each padding to
		 * a whole one. The ralign > 1 guard only matters for size 0,
		 * where the kernel would spin. */
		uint32_t ralign = cfg->cache_line;
		while (ralign > 1 && size <= ralign / 2)
			ralign /= 2;
		if (ralign > a)
			a = ralign;
	}
	if (a < ARCH_SLAB_MINALIGN)
		a = ARCH_SLAB_MINALIGN;
	a = align_up(a, WORD_BYTES);
	return a > UINT32_MAX ? UINT32_MAX : (uint32_t)a;
}

uint32_t layout_kmalloc_align(const struct policy_cfg *cfg, uint32_t size)
{
	/* 6.11 create_boot_cache() (read in Debian's 6.12.118 mm/slab_common.c
	 * and torvalds/linux at 6.18): for SLAB_KMALLOC caches, align =
	 * max(ARCH_KMALLOC_MINALIGN, 1U << (ffs(size) - 1)), the largest power
	 * of two dividing the size, of every kmalloc type (create_kmalloc_cache
	 * sets SLAB_KMALLOC for all of them). A power of two gets itself, as
	 * under natural; 96 gets 32, 192 gets 64. Like natural, it is asked for
	 * whatever the debug options do to the layout. */
	if (cfg->align == POLICY_ALIGN_POW2_DIVISOR) {
		uint32_t low = size & (~size + 1u); /* 1 << (ffs(size) - 1) */
		return low > ARCH_KMALLOC_MINALIGN ? low : ARCH_KMALLOC_MINALIGN;
	}
	/* 59bb47985c1d (5.4): natural alignment for power-of-two sizes,
	 * whatever the debug options do to the layout */
	if (!is_power_of_2(size) || size <= ARCH_KMALLOC_MINALIGN)
		return ARCH_KMALLOC_MINALIGN;
	switch (cfg->align) {
	case POLICY_ALIGN_NATURAL:
		return size;
	case POLICY_ALIGN_CAP512:
		/* the LSF/MM 2019 alternative: a guarantee capped at 512 bytes
		 * below a page, page alignment from a page up */
		if (size <= 512)
			return size;
		return size < POLICY_PAGE_SIZE ? 512 : POLICY_PAGE_SIZE;
	default:
		return ARCH_KMALLOC_MINALIGN;
	}
}

/* order_objects() */
static uint64_t order_objects(uint32_t order, uint64_t size)
{
	return ((uint64_t)POLICY_PAGE_SIZE << order) / size;
}

/* slab_order() (calc_slab_order() in later kernels): the first order from
 * the one that holds min_objects that wastes at most 1/fract of the slab;
 * max_order + 1 when none does. */
static uint32_t slab_order(const struct policy_cfg *cfg, uint64_t size, uint32_t min_objects,
			   uint32_t max_order, uint32_t fract)
{
	uint32_t min_order = cfg->slub_min_order;
	uint32_t order;

	/* A huge slub_min_order with tiny objects would overflow the 15-bit
	 * object count, so the order is cut back to what 32767 objects need. */
	if (order_objects(min_order, size) > MAX_OBJS_PER_PAGE)
		return layout_get_order(size * MAX_OBJS_PER_PAGE) - 1;

	order = layout_get_order((uint64_t)min_objects * size);
	if (order < min_order)
		order = min_order;
	for (; order <= max_order; order++) {
		uint64_t slab_bytes = (uint64_t)POLICY_PAGE_SIZE << order;
		if (slab_bytes % size <= slab_bytes / fract)
			break;
	}
	return order;
}

/* calculate_order() from 6.8 (read in Debian's 6.12.118 mm/slub.c): the
 * order min_objects asks for is kept, and only the accepted waste grows
 * (1/16, 1/8, 1/4, 1/2 of the slab); calc_slab_order tries every order from
 * it up to slub_max_order. Beyond that, get_order(size). Returns
 * POLICY_MAX_ORDER when not even one object fits. */
static uint32_t calculate_order_68(const struct policy_cfg *cfg, uint64_t size)
{
	uint32_t max_order = cfg->slub_max_order;
	uint64_t min_objects = cfg->slub_min_objects;

	if (max_order > POLICY_MAX_ORDER - 1)
		max_order = POLICY_MAX_ORDER - 1;
	if (!min_objects)
		min_objects = 4 * (layout_fls(cfg->nr_cpus) + 1);
	uint64_t max_objects = order_objects(max_order, size);
	if (max_objects < 1)
		max_objects = 1;
	if (min_objects > max_objects)
		min_objects = max_objects;
	uint32_t min_order = layout_get_order(min_objects * size);
	if (min_order < cfg->slub_min_order)
		min_order = cfg->slub_min_order;
	if (order_objects(min_order, size) > MAX_OBJS_PER_PAGE)
		return layout_get_order(size * MAX_OBJS_PER_PAGE) - 1;
	for (uint32_t fract = 16; fract > 1; fract /= 2) {
		uint32_t order = min_order;
		for (; order <= max_order; order++) {
			uint64_t slab_bytes = (uint64_t)POLICY_PAGE_SIZE << order;
			if (slab_bytes % size <= slab_bytes / fract)
				break;
		}
		if (order <= max_order)
			return order;
	}
	uint32_t order = layout_get_order(size);
	return order < POLICY_MAX_ORDER ? order : POLICY_MAX_ORDER;
}

/* calculate_order(): as many objects as the CPU count suggests, giving up
 * first on waste (1/16, 1/8, 1/4 of the slab), then on objects. Returns
 * POLICY_MAX_ORDER when not even one object fits. */
static uint32_t calculate_order(const struct policy_cfg *cfg, uint64_t size)
{
	uint32_t max_order = cfg->slub_max_order;
	uint32_t min_objects = cfg->slub_min_objects;
	uint32_t order;

	/* setup_slub_max_order() clamps the boot option */
	if (max_order > POLICY_MAX_ORDER - 1)
		max_order = POLICY_MAX_ORDER - 1;
	/* 5.4 counts nr_cpu_ids, 6.1 num_present_cpus() (nr_cpu_ids if that
	 * is <= 1); the model has no hotplug, so both are cfg->nr_cpus. */
	if (!min_objects)
		min_objects = 4 * (layout_fls(cfg->nr_cpus) + 1);
	uint64_t max_objects = order_objects(max_order, size);
	if (min_objects > max_objects)
		min_objects = (uint32_t)max_objects;

	for (; min_objects > 1; min_objects--) {
		for (uint32_t fract = 16; fract >= 4; fract /= 2) {
			order = slab_order(cfg, size, min_objects, max_order, fract);
			if (order <= max_order)
				return order;
		}
	}
	order = slab_order(cfg, size, 1, max_order, 1);
	if (order <= max_order)
		return order;
	/* beyond slub_max_order: whatever holds one object */
	order = slab_order(cfg, size, 1, POLICY_MAX_ORDER, 1);
	return order < POLICY_MAX_ORDER ? order : POLICY_MAX_ORDER;
}

/* set_cpu_partial(): per-CPU partial list target in objects; none for debug
 * caches (kmem_cache_has_cpu_partial) or without CONFIG_SLUB_CPU_PARTIAL. */
static uint32_t cpu_partial_objects(const struct policy_cfg *cfg, uint32_t flags, uint32_t size)
{
	static const uint32_t target[2][4] = {
		{2, 6, 13, 30},	  /* 5.4 */
		{6, 24, 52, 120}, /* 6.1 (raised in 5.16 along with slab counting) */
	};
	const uint32_t *t = target[is_61(cfg)];

	/* SLUB_CPU_PARTIAL depends on !SLUB_TINY; 7.0 removed it (sheaves) */
	if (!cfg->cpu_partial || cfg->slub_tiny || (flags & POLICY_F_DEBUG_MASK) ||
	    cfg->kernel >= POLICY_KERNEL_7_0)
		return 0;
	if (size >= POLICY_PAGE_SIZE)
		return t[0];
	if (size >= 1024)
		return t[1];
	if (size >= 256)
		return t[2];
	return t[3];
}

static int check_cfg(const struct policy_cfg *cfg, struct err *e)
{
	if (cfg->kernel < POLICY_KERNEL_5_4 || cfg->kernel >= POLICY_KERNEL_NR)
		return err_set(e, SLABSIM_EUSAGE, "unknown kernel rule profile %d",
			       (int)cfg->kernel);
	if (cfg->nr_cpus == 0)
		return err_set(e, SLABSIM_EUSAGE, "nr_cpus must be at least 1");
	/* The kernel does not clamp slub_min_order; past MAX_ORDER - 1 its
	 * 32-bit slab size arithmetic overflows, so refuse it here. */
	if (cfg->slub_min_order >= POLICY_MAX_ORDER)
		return err_set(e, SLABSIM_EUSAGE, "slub_min_order must be below %u, got %u",
			       POLICY_MAX_ORDER, cfg->slub_min_order);
	return 0;
}

int layout_slub(const struct policy_cfg *cfg, const struct policy_cache_spec *spec,
		struct policy_geom *out, struct err *e)
{
	const bool v61 = is_61(cfg);
	const char *name = spec->name ? spec->name : "(unnamed)";
	uint32_t flags = spec->flags | (cfg->slub_debug & POLICY_F_DEBUG_MASK);
	uint64_t object_size = spec->object_size;
	uint64_t size, inuse, offset, red_left_pad = 0;
	uint32_t align, order;
	int rc = check_cfg(cfg, e);

	if (rc)
		return rc;
	if (object_size == 0)
		return err_set(e, SLABSIM_EUSAGE, "cache %s: object_size 0", name);
	align = layout_calculate_alignment(cfg, flags, spec->align, spec->object_size);
	/* The kernel's ALIGN() silently misbehaves for other alignments. */
	if (!is_power_of_2(align))
		return err_set(e, SLABSIM_EUSAGE, "cache %s: alignment %u is not a power of two",
			       name, align);

	/* calculate_sizes() */
	size = align_up(object_size, WORD_BYTES);
	if ((flags & POLICY_F_RED_ZONE) && size == object_size)
		size += WORD_BYTES; /* no slack after the object to hold the red zone */
	inuse = size;

	/* 6.12 (kmem_cache_args.freeptr_offset, Debian 6.12.118 mm/slub.c
	 * calculate_sizes): an RCU cache created with a free pointer offset
	 * keeps the pointer inside the object, at that offset */
	bool rcu_inside = (flags & POLICY_F_TYPESAFE_BY_RCU) && spec->use_freeptr_offset &&
			  cfg->kernel >= POLICY_KERNEL_6_12;
	bool ptr_outside = ((flags & POLICY_F_TYPESAFE_BY_RCU) && !rcu_inside) ||
			   (flags & POLICY_F_POISON) || spec->ctor;
	/* 6.1: a red-zoned object smaller than a word has no room for the
	 * pointer without covering the red zone */
	if (v61 && (flags & POLICY_F_RED_ZONE) && object_size < WORD_BYTES)
		ptr_outside = true;
	/* 6.2 (946fa0dbf2d8, slub_debug_orig_size()): a kmalloc cache with Z
	 * and U red-zones the slack past the requested size, which the
	 * mid-object pointer could sit in, so the pointer moves out */
	if (cfg->kernel >= POLICY_KERNEL_6_6 && (flags & POLICY_F_RED_ZONE) &&
	    (flags & POLICY_F_STORE_USER) && (flags & POLICY_F_KMALLOC))
		ptr_outside = true;
	if (ptr_outside) {
		offset = size;
		size += WORD_BYTES;
	} else if (rcu_inside) {
		offset = spec->freeptr_offset;
	} else {
		/* 5.7+ (this ALIGN_DOWN form from a later fix): mid-object, away
		 * from small overflows out of the neighbours */
		offset = v61 ? object_size / 2 / WORD_BYTES * WORD_BYTES : 0;
	}

	if (flags & POLICY_F_STORE_USER) {
		size += 2 * (uint64_t)(v61 ? TRACK_BYTES_6_1 : TRACK_BYTES_5_4);
		/* 6.12 stores it as an unsigned long (8 bytes); s->size is
		 * the same either way, since the next steps add whole words
		 * and round up to align >= 8 */
		if (v61 && (flags & POLICY_F_KMALLOC))
			size += cfg->kernel >= POLICY_KERNEL_6_12 ? WORD_BYTES : ORIG_SIZE_BYTES;
	}
	if (flags & POLICY_F_RED_ZONE) {
		size += WORD_BYTES;
		red_left_pad = align_up(WORD_BYTES, align);
		size += red_left_pad;
	}
	size = align_up(size, align);

	if (size > MAX_SLAB_BYTES)
		return err_set(e, SLABSIM_EUSAGE,
			       "cache %s: %" PRIu64 "-byte objects do not fit an order-%u slab",
			       name, size, POLICY_MAX_ORDER - 1);
	order = cfg->kernel >= POLICY_KERNEL_6_12 ? calculate_order_68(cfg, size)
						  : calculate_order(cfg, size);
	if (order >= POLICY_MAX_ORDER)
		return err_set(e, SLABSIM_EUSAGE,
			       "cache %s: no slab order below %u holds a %" PRIu64 "-byte object",
			       name, POLICY_MAX_ORDER, size);

	/* SLAB's fields (tunables) stay 0: SLUB's slabinfo prints them */
	memset(out, 0, sizeof(*out));
	out->object_size = spec->object_size;
	out->size = (uint32_t)size;
	out->align = align;
	out->order = order;
	out->objs_per_slab = (uint32_t)order_objects(order, size);
	out->inuse = (uint32_t)inuse;
	out->offset = (uint32_t)offset;
	out->red_left_pad = (uint32_t)red_left_pad;
	out->flags = flags;

	/* set_min_partial(ilog2(size) / 2); CONFIG_SLUB_TINY defines
	 * MIN_PARTIAL and MAX_PARTIAL as 0 (6.12 mm/slub.c) */
	uint32_t min_partial = (layout_fls(size) - 1) / 2;
	if (min_partial < MIN_PARTIAL)
		min_partial = MIN_PARTIAL;
	if (min_partial > MAX_PARTIAL)
		min_partial = MAX_PARTIAL;
	out->min_partial = cfg->slub_tiny ? 0 : min_partial;

	out->cpu_partial = cpu_partial_objects(cfg, flags, out->size);
	/* 6.1 slub_set_cpu_partial(): the list is limited in slabs, assuming
	 * they are half full. 5.4 limits objects and has no slab limit. */
	out->cpu_partial_slabs =
		v61 ? (2 * out->cpu_partial + out->objs_per_slab - 1) / out->objs_per_slab : 0;
	return 0;
}

int layout_slub_kmalloc(const struct policy_cfg *cfg, enum policy_kmalloc_type t, uint32_t index,
			struct policy_geom *out, struct err *e)
{
	char name[32];

	if ((unsigned)t >= POLICY_KMALLOC_NR_TYPES)
		return err_set(e, SLABSIM_EUSAGE, "unknown kmalloc type %d", (int)t);
	if (index == 0 || index > LAYOUT_SLUB_KMALLOC_SHIFT_HIGH)
		return err_set(e, SLABSIM_EUSAGE, "no SLUB kmalloc cache has index %u", index);
	t = layout_kmalloc_type(cfg, t);

	uint32_t size = layout_kmalloc_size(index);
	struct policy_cache_spec spec = {
		.name = layout_kmalloc_name(t, index, name),
		.object_size = size,
		.align = layout_kmalloc_align(cfg, size),
		.flags = layout_kmalloc_flags(t),
		/* 5.4 whitelists NORMAL and RECLAIM caches for usercopy, 6.1
		 * every type; it only matters for merging */
		.usersize = (t == POLICY_KMALLOC_DMA && !is_61(cfg)) ? 0 : size,
	};
	return layout_slub(cfg, &spec, out, e);
}

/* ---- SLAB (mm/slab.c, v5.4) ----
 *
 * SLAB object layout (one slot of cachep->size bytes, object i of a slab at
 * page + colour offset + i * size; the caller gets slot + obj_offset):
 *
 *   without CONFIG_DEBUG_SLAB:  | object_size | pad to ALIGN(size, align) |
 *   with it (Z and U survive only while align <= 8):
 *     | RZ1 8 | object_size, ALIGN 8 | RZ2 8 | last caller 8 | pad |
 *     obj_offset = 8; P poisons the object in place and adds nothing.
 *
 * Slab layout: | colour offset | num slots | left-over | [freelist] |, where
 * the freelist (num one-byte indexes) sits at the very end (ON_SLAB), in
 * a kmalloc object (OFF_SLAB), or inside the slab's last free object
 * (OBJFREELIST). colour = left_over / colour_off (colour_off = max(cache
 * line, align)); each new slab moves the first object by one more colour_off.
 *
 * Read in mm/slab.c (v5.4): __kmem_cache_create, set_objfreelist_slab_cache,
 * set_off_slab_cache, set_on_slab_cache, calculate_slab_order, cache_estimate,
 * enable_cpucache and init_cache_node (free_limit); mm/slab_common.c:
 * create_cache and create_boot_cache set cachep->size = object_size before
 * __kmem_cache_create runs, which is why the off-slab test compares the
 * freelist cache with half the *unrounded* object size.
 */

#define SLAB_OBJ_MIN_SIZE      16u  /* min(KMALLOC_MIN_SIZE, 16) */
#define SLAB_OBJ_MAX_NUM       255u /* freelist_idx_t is one byte (PAGE_SIZE >> 8 <= 16) */
#define SLAB_KMALLOC_MAX_ORDER 10u  /* KMALLOC_SHIFT_MAX - PAGE_SHIFT */
#define SLAB_REDZONE_BYTES     8u   /* one unsigned long long; REDZONE_ALIGN is 8 too */
#define SLAB_USER_WORD_BYTES   8u
#define SLAB_DEBUG_LIMIT_CAP   32u /* enable_cpucache under DEBUG */
/* FORCED_DEBUG keeps Z and U for objects of a page or more only if the 24
 * bytes they add stay in the same power-of-two bracket. */
#define SLAB_FORCED_DEBUG_GROWTH (SLAB_REDZONE_BYTES + 2 * SLAB_REDZONE_BYTES)

enum slab_mode { SLAB_MODE_ON, SLAB_MODE_OBJ, SLAB_MODE_OFF };

struct slab_estimate {
	uint32_t num, order;
	uint64_t left;
};

uint32_t layout_slab_kmalloc_index(uint64_t size)
{
	if (size == 0 || size > (1u << LAYOUT_SLAB_KMALLOC_SHIFT_HIGH))
		return 0;
	if (size <= 32)
		return LAYOUT_SLAB_KMALLOC_SHIFT_LOW;
	if (size <= 192)
		return size_index[(size - 1) / 8];
	return layout_fls(size - 1);
}

static bool slab_kmalloc_index_valid(uint32_t index)
{
	return index == 1 || index == 2 ||
	       (index >= LAYOUT_SLAB_KMALLOC_SHIFT_LOW && index <= LAYOUT_SLAB_KMALLOC_SHIFT_HIGH);
}

/* Position of kmalloc-N in create_kmalloc_caches' order for one type:
 * 32, 64, 96, 128, 192, 256, ... (96 right after 64, 192 right after 128). */
static uint32_t slab_kmalloc_rank(uint32_t index)
{
	if (index == 1)
		return 2;
	if (index == 2)
		return 4;
	if (index <= 6)
		return index - 5;
	if (index == 7)
		return 3;
	return index - 3;
}

/* The off-slab conditions of calculate_slab_order for an order holding num
 * objects: the freelist comes from kmalloc_slab(num) (a NORMAL cache), which
 * must exist already, must not be off-slab itself (cache_grow_begin would
 * recurse), and must be at most half the object. */
static bool slab_freelist_cache_fits(const struct policy_cfg *cfg,
				     const struct policy_cache_spec *spec, uint32_t num)
{
	uint32_t host = layout_slab_kmalloc_index(num);
	struct policy_geom hg;

	/* A NORMAL kmalloc cache being created at boot sees only the
	 * kmalloc caches created before it; every other cache sees them all. */
	if ((spec->flags & POLICY_F_KMALLOC) &&
	    !(spec->flags & (POLICY_F_RECLAIM_ACCOUNT | POLICY_F_CACHE_DMA | POLICY_F_ACCOUNT))) {
		uint32_t self = layout_slab_kmalloc_index(spec->object_size);
		if (self && slab_kmalloc_rank(host) >= slab_kmalloc_rank(self))
			return false;
	}
	if (layout_slab_kmalloc(cfg, POLICY_KMALLOC_NORMAL, host, &hg, NULL))
		return false;
	if (hg.freelist_mode == POLICY_FREELIST_OFF_SLAB)
		return false;
	return hg.size <= spec->object_size / 2;
}

/* cache_estimate + calculate_slab_order: the first order that is good
 * enough; num = 0 when none holds an object. */
static struct slab_estimate slab_calculate_order(const struct policy_cfg *cfg,
						 const struct policy_cache_spec *spec,
						 uint64_t size, uint32_t flags, enum slab_mode mode,
						 uint32_t max_order)
{
	struct slab_estimate best = {0, 0, 0};

	for (uint32_t order = 0; order <= SLAB_KMALLOC_MAX_ORDER; order++) {
		uint64_t slab_bytes = (uint64_t)POLICY_PAGE_SIZE << order;
		/* on-slab, each object also costs its one-byte index */
		uint64_t unit = mode == SLAB_MODE_ON ? size + 1 : size;
		uint64_t num = slab_bytes / unit;
		uint64_t left = slab_bytes % unit;

		if (!num)
			continue;
		if (num > SLAB_OBJ_MAX_NUM)
			break;
		if (mode == SLAB_MODE_OFF && !slab_freelist_cache_fits(cfg, spec, (uint32_t)num))
			continue;
		best.num = (uint32_t)num;
		best.order = order;
		best.left = left;
		/* reclaimable caches take the first order that fits */
		if (flags & POLICY_F_RECLAIM_ACCOUNT)
			break;
		if (order >= max_order)
			break;
		if (left * 8 <= slab_bytes)
			break;
	}
	return best;
}

/* enable_cpucache(): limit by object size; batchcount is half of it */
static uint32_t slab_limit(uint64_t size)
{
	if (size > 131072)
		return 1;
	if (size > POLICY_PAGE_SIZE)
		return 8;
	if (size > 1024)
		return 24;
	if (size > 256)
		return 54;
	return 120;
}

int layout_slab(const struct policy_cfg *cfg, const struct policy_cache_spec *spec,
		struct policy_geom *out, struct err *e)
{
	const char *name = spec->name ? spec->name : "(unnamed)";
	const uint32_t zpu = POLICY_F_RED_ZONE | POLICY_F_POISON | POLICY_F_STORE_USER;
	uint32_t flags = spec->flags & ~POLICY_F_DEBUG_MASK;
	uint64_t object_size = spec->object_size;
	uint32_t max_order = cfg->slab_max_order;
	int rc = check_cfg(cfg, e);

	if (rc)
		return rc;
	if (object_size == 0)
		return err_set(e, SLABSIM_EUSAGE, "cache %s: object_size 0", name);
	/* CACHE_CREATE_MASK keeps Z P U only with CONFIG_DEBUG_SLAB */
	if (cfg->slab_debug)
		flags |= spec->flags & zpu;
	uint64_t align = layout_calculate_alignment(cfg, flags, spec->align, spec->object_size);
	if (!is_power_of_2(align))
		return err_set(e, SLABSIM_EUSAGE,
			       "cache %s: alignment %" PRIu64 " is not a power of two", name,
			       align);
	if (max_order > SLAB_KMALLOC_MAX_ORDER)
		max_order = SLAB_KMALLOC_MAX_ORDER; /* slab_max_order_setup() */

	/* FORCED_DEBUG, on the size as given */
	if (cfg->slab_debug) {
		if (object_size < POLICY_PAGE_SIZE ||
		    layout_fls(object_size - 1) ==
			    layout_fls(object_size - 1 + SLAB_FORCED_DEBUG_GROWTH))
			flags |= POLICY_F_RED_ZONE | POLICY_F_STORE_USER;
		if (!(flags & POLICY_F_TYPESAFE_BY_RCU))
			flags |= POLICY_F_POISON;
	}

	uint64_t size = align_up(object_size, WORD_BYTES);
	uint64_t ralign = WORD_BYTES;
	if (flags & POLICY_F_RED_ZONE) {
		ralign = SLAB_REDZONE_BYTES;
		size = align_up(size, SLAB_REDZONE_BYTES);
	}
	if (ralign < align)
		ralign = align;
	/* The red zones and the user word are 8-byte words placed next to the
	 * object: with a larger alignment they would push it off its
	 * alignment, so SLAB drops them (every x86 kmalloc cache: align >= 32). */
	if (ralign > ARCH_KMALLOC_MINALIGN)
		flags &= ~(POLICY_F_RED_ZONE | POLICY_F_STORE_USER);
	align = ralign;
	uint64_t colour_off = cfg->cache_line > align ? cfg->cache_line : align;

	uint32_t obj_offset = 0;
	if (flags & POLICY_F_RED_ZONE) {
		obj_offset += SLAB_REDZONE_BYTES;
		size += 2 * SLAB_REDZONE_BYTES;
	}
	if (flags & POLICY_F_STORE_USER)
		size += SLAB_USER_WORD_BYTES;
	size = align_up(size, align);
	if (size < SLAB_OBJ_MIN_SIZE)
		size = align_up(SLAB_OBJ_MIN_SIZE, align);

	/* Where the freelist goes: inside a free object if it fits there
	 * (not with a ctor or RCU, whose free objects must stay intact), else
	 * off-slab if that packs better than on-slab, else on-slab. */
	struct slab_estimate est = {0, 0, 0};
	uint32_t mode = POLICY_FREELIST_NONE;
	if (!spec->ctor && !(flags & POLICY_F_TYPESAFE_BY_RCU)) {
		est = slab_calculate_order(cfg, spec, size, flags, SLAB_MODE_OBJ, max_order);
		if (est.num && est.num <= object_size)
			mode = POLICY_FREELIST_OBJ;
	}
	if (mode == POLICY_FREELIST_NONE) {
		est = slab_calculate_order(cfg, spec, size, flags, SLAB_MODE_OFF, max_order);
		/* if the left-over could hold the array, keep it on the slab */
		if (est.num && est.left < est.num)
			mode = POLICY_FREELIST_OFF_SLAB;
	}
	if (mode == POLICY_FREELIST_NONE) {
		est = slab_calculate_order(cfg, spec, size, flags, SLAB_MODE_ON, max_order);
		if (!est.num)
			return err_set(e, SLABSIM_EUSAGE,
				       "cache %s: no slab order up to %u holds a %" PRIu64
				       "-byte object",
				       name, SLAB_KMALLOC_MAX_ORDER, size);
		mode = POLICY_FREELIST_ON_SLAB;
	}

	*out = (struct policy_geom){0};
	out->object_size = spec->object_size;
	out->size = (uint32_t)size;
	out->align = (uint32_t)align;
	out->order = est.order;
	out->objs_per_slab = est.num;
	out->red_left_pad = obj_offset;
	out->flags = flags;
	out->colour_off = (uint32_t)colour_off;
	out->colour = (uint32_t)(est.left / colour_off);
	out->left_over = (uint32_t)est.left;
	out->freelist_mode = mode;
	out->obj_offset = obj_offset;

	/* enable_cpucache(); the shared array only pays off with more than one
	 * CPU, and is not used above a page */
	uint32_t limit = slab_limit(size);
	if (cfg->slab_debug && limit > SLAB_DEBUG_LIMIT_CAP)
		limit = SLAB_DEBUG_LIMIT_CAP; /* bounds irq-off time of debug checks */
	out->limit = limit;
	out->batchcount = (limit + 1) / 2;
	out->shared = size <= POLICY_PAGE_SIZE && cfg->nr_cpus > 1 ? 8 : 0;
	/* init_cache_node(): one node holding every CPU */
	out->free_limit = (1 + cfg->nr_cpus) * out->batchcount + out->objs_per_slab;
	return 0;
}

int layout_slab_kmalloc(const struct policy_cfg *cfg, enum policy_kmalloc_type t, uint32_t index,
			struct policy_geom *out, struct err *e)
{
	char name[32];

	if ((unsigned)t >= POLICY_KMALLOC_NR_TYPES)
		return err_set(e, SLABSIM_EUSAGE, "unknown kmalloc type %d", (int)t);
	if (!slab_kmalloc_index_valid(index))
		return err_set(e, SLABSIM_EUSAGE, "no SLAB kmalloc cache has index %u", index);
	t = layout_kmalloc_type(cfg, t);

	uint32_t size = layout_kmalloc_size(index);
	struct policy_cache_spec spec = {
		.name = layout_kmalloc_name(t, index, name),
		.object_size = size,
		.align = layout_kmalloc_align(cfg, size),
		.flags = layout_kmalloc_flags(t) | POLICY_F_HWCACHE_ALIGN,
		.usersize = (t == POLICY_KMALLOC_DMA && !is_61(cfg)) ? 0 : size,
	};
	return layout_slab(cfg, &spec, out, e);
}

/* ---- merging ---- */

bool layout_merge_request(const struct policy_cfg *cfg, const struct policy_cache_spec *spec,
			  uint32_t flags, uint64_t *size, uint32_t *align)
{
	if (cfg->nomerge || spec->ctor || spec->no_merge || spec->usersize ||
	    (flags & LAYOUT_NEVER_MERGE))
		return false;
	uint64_t sz = ((uint64_t)spec->object_size + 7) & ~7ULL;
	uint32_t al = layout_calculate_alignment(cfg, flags, spec->align, (uint32_t)sz);
	*size = (sz + al - 1) / al * al;
	*align = al;
	return true;
}

bool layout_merge_target(const struct policy_cfg *cfg, const struct policy_geom *g, bool kmalloc,
			 bool ctor, uint32_t usersize, bool no_merge)
{
	if (no_merge || ctor || usersize || (g->flags & LAYOUT_NEVER_MERGE))
		return false;
	/* 6.1 pins kmalloc caches (refcount -1 with MEMCG_KMEM) */
	return !(kmalloc && cfg->kernel >= POLICY_KERNEL_6_1);
}

bool layout_merge_fits(const struct policy_geom *g, uint64_t size, uint32_t align, uint32_t flags,
		       bool slab)
{
	if (size > g->size || (flags & LAYOUT_MERGE_SAME) != (g->flags & LAYOUT_MERGE_SAME))
		return false;
	if (g->size % align || g->size - size >= sizeof(void *))
		return false;
	return !slab || (align <= g->align && g->align % align == 0);
}
