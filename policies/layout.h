/* layout.h - size, order and alignment arithmetic shared by the models
 * (the kernel's mm/slab_common.c split): kmalloc size classes and names,
 * calculate_alignment, create_boot_cache's alignment rule, SLUB's
 * calculate_sizes/calculate_order and SLAB's __kmem_cache_create layout,
 * calculate_slab_order and enable_cpucache. Pure functions of their arguments.
 */
#ifndef SLABSIM_LAYOUT_H
#define SLABSIM_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

/* SLUB kmalloc limits on x86_64 (reference 1). */
#define LAYOUT_SLUB_KMALLOC_SHIFT_LOW  3
#define LAYOUT_SLUB_KMALLOC_SHIFT_HIGH 13	  /* kmalloc-8k is the largest cache */
#define LAYOUT_KMALLOC_MAX_SIZE	       (1u << 22) /* 4 MiB: larger kmallocs fail */

/* get_order(): smallest order with PAGE_SIZE << order >= size (size >= 1). */
uint32_t layout_get_order(uint64_t size);

/* fls(): 1-based position of the highest set bit, 0 for 0. */
uint32_t layout_fls(uint64_t x);

/* kmalloc_index() for SLUB: 1 (96), 2 (192), or n for 2^n; size in
 * 1..8192. Returns 0 for size 0 and for sizes above the largest cache. */
uint32_t layout_kmalloc_index(uint64_t size);

/* Object size of kmalloc index i (1 -> 96, 2 -> 192, n -> 2^n). */
uint32_t layout_kmalloc_size(uint32_t index);

/* Kernel name of a kmalloc cache: "kmalloc-1k", "kmalloc-rcl-96",
 * "dma-kmalloc-8k", "kmalloc-cg-64". Writes into buf (>= 32 bytes). */
const char *layout_kmalloc_name(enum policy_kmalloc_type t, uint32_t index, char *buf);

/* Flags a kmalloc cache of type t is created with under SLUB (before
 * slub_debug): RECLAIM_ACCOUNT, CACHE_DMA or ACCOUNT, plus KMALLOC. */
uint32_t layout_kmalloc_flags(enum policy_kmalloc_type t);

/* The kmalloc type whose caches serve type t under cfg->kernel: 5.4 has no
 * kmalloc-cg caches, so POLICY_KMALLOC_CGROUP maps to NORMAL there (the
 * kernel's kmalloc_type() has no CGROUP case before 5.14). Out-of-range
 * types map to NORMAL. */
enum policy_kmalloc_type layout_kmalloc_type(const struct policy_cfg *cfg,
					     enum policy_kmalloc_type t);

/* calculate_alignment(flags, align, size) with the configured cache line. */
uint32_t layout_calculate_alignment(const struct policy_cfg *cfg, uint32_t flags, uint32_t align,
				    uint32_t size);

/* The alignment create_boot_cache() asks for a kmalloc cache of `size`
 * under cfg->align, before calculate_alignment: 8 (off), or max(8, size) for
 * power-of-two sizes (natural). */
uint32_t layout_kmalloc_align(const struct policy_cfg *cfg, uint32_t size);

/* SLUB: compute the full geometry of a cache created with spec under cfg
 * (slub_debug bits of cfg are ORed into the spec's flags; align passes
 * through calculate_alignment). Implements calculate_sizes, calculate_order,
 * set_min_partial and set_cpu_partial for cfg->kernel. Returns 0, or
 * SLABSIM_EUSAGE if no order up to MAX_ORDER-1 can hold one object, and for
 * object_size 0, an alignment that is not a power of two, an unknown
 * cfg->kernel, nr_cpus 0 or slub_min_order >= MAX_ORDER. *out is written
 * only on success. */
int layout_slub(const struct policy_cfg *cfg, const struct policy_cache_spec *spec,
		struct policy_geom *out, struct err *e);

/* SLUB: the geometry of kmalloc cache (t, index) under cfg; t goes through
 * layout_kmalloc_type() first. SLABSIM_EUSAGE for an index outside 1..13. */
int layout_slub_kmalloc(const struct policy_cfg *cfg, enum policy_kmalloc_type t, uint32_t index,
			struct policy_geom *out, struct err *e);

/* SLAB kmalloc limits on x86_64 (reference 1): KMALLOC_MIN_SIZE is 32, so
 * kmallocs of 1..32 bytes use kmalloc-32; kmalloc-4M is the largest cache
 * and larger kmallocs fail (SLAB has no page-allocator path). */
#define LAYOUT_SLAB_KMALLOC_SHIFT_LOW  5
#define LAYOUT_SLAB_KMALLOC_SHIFT_HIGH 22

/* kmalloc_index() for SLAB: as layout_kmalloc_index, but 1..32 -> 5
 * (setup_kmalloc_cache_index_table) and sizes up to 4 MiB (index 22).
 * Returns 0 for size 0 and above 4 MiB. */
uint32_t layout_slab_kmalloc_index(uint64_t size);

/* SLAB: the full geometry of a cache created with spec under cfg:
 * __kmem_cache_create's layout (with cfg->slab_debug: CONFIG_DEBUG_SLAB's
 * forced red zone, user word and poisoning), the freelist placement
 * (OBJFREELIST, OFF_SLAB, ON_SLAB), calculate_slab_order with
 * cfg->slab_max_order (clamped to 0..10 as slab_max_order= is), colouring
 * and enable_cpucache's tunables with free_limit for one node of
 * cfg->nr_cpus CPUs. cfg->slub_debug is ignored (SLAB's kmem_cache_flags
 * adds nothing); without slab_debug the spec's Z P U bits are dropped, and F
 * and T always are (CACHE_CREATE_MASK). The SLUB-only fields (inuse, offset,
 * min_partial, cpu_partial*) are 0; red_left_pad = obj_offset. Returns 0, or
 * SLABSIM_EUSAGE for object_size 0, an alignment that is not a power of two,
 * an unknown cfg->kernel, nr_cpus 0, or an object no order up to 10 holds
 * (the kernel's -E2BIG). *out is written only on success. */
int layout_slab(const struct policy_cfg *cfg, const struct policy_cache_spec *spec,
		struct policy_geom *out, struct err *e);

/* SLAB: the geometry of kmalloc cache (t, index) under cfg, created as
 * create_kmalloc_caches does (ARCH_KMALLOC_FLAGS = HWCACHE_ALIGN plus the
 * type's flags, create_boot_cache's alignment); t goes through
 * layout_kmalloc_type() first. SLABSIM_EUSAGE for an index that is neither
 * 1, 2 nor 5..22. */
int layout_slab_kmalloc(const struct policy_cfg *cfg, enum policy_kmalloc_type t, uint32_t index,
			struct policy_geom *out, struct err *e);

/* ---- merging (find_mergeable, mm/slab_common.c), shared by SLAB and SLUB ---- */

/* Flags that forbid merging, and flags both caches must agree on. */
#define LAYOUT_NEVER_MERGE                                                                         \
	(POLICY_F_RED_ZONE | POLICY_F_POISON | POLICY_F_STORE_USER | POLICY_F_TRACE |              \
	 POLICY_F_TYPESAFE_BY_RCU)
#define LAYOUT_MERGE_SAME (POLICY_F_RECLAIM_ACCOUNT | POLICY_F_CACHE_DMA | POLICY_F_ACCOUNT)

/* The request side: a cache created with spec and (after the allocator's
 * debug options) flags may merge at all? If so, OUT: the size and alignment
 * a target must fit. */
bool layout_merge_request(const struct policy_cfg *cfg, const struct policy_cache_spec *spec,
			  uint32_t flags, uint64_t *size, uint32_t *align);

/* slab_unmergeable(): may an existing root cache be a merge target at all? */
bool layout_merge_target(const struct policy_cfg *cfg, const struct policy_geom *g, bool kmalloc,
			 bool ctor, uint32_t usersize, bool no_merge);

/* The candidate side: does target geometry g take a request of (size, align,
 * flags)? slab: SLAB's extra rule that g's alignment is a multiple of align. */
bool layout_merge_fits(const struct policy_geom *g, uint64_t size, uint32_t align, uint32_t flags,
		       bool slab);

#endif
