/* layout.h - size, order and alignment arithmetic shared by the models
 * (the kernel's mm/slab_common.c split): kmalloc size classes and names,
 * calculate_alignment, create_boot_cache's alignment rule, and SLUB's
 * calculate_sizes/calculate_order. Pure functions of their arguments.
 */
#ifndef SLABSIM_LAYOUT_H
#define SLABSIM_LAYOUT_H

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

#endif
