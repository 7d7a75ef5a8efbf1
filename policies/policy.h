/* policy.h - the one interface every allocator model implements.
 *
 * Glossary (the kernel's words; a "page" here is always a 4 KiB page frame):
 *   cache   a struct kmem_cache: one object geometry, its own slabs. A cache
 *           may be an alias of another (SLUB merging); aliases share slabs.
 *   slab    2^order contiguous, naturally aligned pages from the (simulated)
 *           buddy allocator, cut into objs_per_slab slots of `size` bytes.
 *   order   log2 of the pages per slab (PAGE_SIZE << order bytes).
 *   object  what the caller gets: object_size usable bytes inside a slot.
 *           size (sysfs slab_size, slabinfo objsize, trace bytes_alloc) is the
 *           stride: object + red zones + free pointer + tracking + padding.
 *   kmalloc cache  kmalloc-N / kmalloc-rcl-N / dma-kmalloc-N / kmalloc-cg-N.
 *   large kmalloc  above the largest kmalloc cache: whole pages, no cache.
 * Waste kinds (per cache and in total; they add up exactly):
 *   page bytes = live requested
 *              + rounding  Σ (object_bytes - requested)   size classes, page rounding
 *              + layout    Σ meta_bytes + internal_bytes  red zones, tracking, headers
 *              + tail      tail_bytes                     slab tails, colour left-over
 *              + free      the rest: free slots (SLUB/SLAB: free objects * size),
 *                          free units and alignment fragments (SLOB).
 * Policies report per object (policy_obj) and per cache (tail, internal);
 * the engine sums. For slab allocators, free must equal
 * (total_objects - inuse_objects) * size: tests check it.
 *
 * A policy is an ops table (const, shared) plus an instance (all state). Find
 * one by name with policy_find(); configuration travels in policy_cfg, never
 * in globals, so one process can run many configurations.
 */
#ifndef SLABSIM_POLICY_H
#define SLABSIM_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define POLICY_PAGE_SHIFT 12
#define POLICY_PAGE_SIZE  (1u << POLICY_PAGE_SHIFT)
#define POLICY_MAX_ORDER  11 /* buddy orders 0..10 on x86_64 */

/* Kernel rule profiles (reference section 8). */
enum policy_kernel {
	POLICY_KERNEL_5_4 = 0, /* the seed commit's kernel; default */
	POLICY_KERNEL_6_1,     /* mid-object free pointer, 32-byte track, kmalloc-cg-N... */
	POLICY_KERNEL_6_6,     /* + random kmalloc caches (CONFIG_RANDOM_KMALLOC_CACHES) */
	POLICY_KERNEL_6_12,    /* + kmem_buckets, the 6.11 kmalloc alignment, freeptr_offset */
	POLICY_KERNEL_6_18,    /* + sheaves for the caches created with a capacity */
	POLICY_KERNEL_7_0,     /* sheaves for (almost) every cache, no per-CPU slabs */
	POLICY_KERNEL_NR,
};
/* Profiles are ordered by release: "kernel >= POLICY_KERNEL_6_1" reads
 * "follows the 6.1 rules or newer ones". */

/* kmalloc alignment policies: the options of the 2019 debate (LSF/MM 2019,
 * commit 59bb47985c1d's message; docs/models.md "Alignment policies").
 * The last four give alignment only to the callers a sites file lists
 * (policy_cfg.sites, policies/sites.h), through kmalloc_aligned()
 * (policy_alloc below); every other kmalloc gets no guarantee, as under
 * NONE. */
enum policy_align {
	POLICY_ALIGN_NONE = 0,	     /* option 1 without the callers' caches: before 59bb47985c1d
					(Linux 5.3) */
	POLICY_ALIGN_NATURAL = 1,    /* option 4: power-of-two sizes aligned to their size (5.4+) */
	POLICY_ALIGN_CAP512 = 2,     /* option 5, LSF/MM 2019 (Bottomley): natural up to 512 bytes,
					512 below a page, page-aligned from a page up */
	POLICY_ALIGN_OWN_CACHES = 3, /* option 1: each listed caller has its own kmem_cache per
					(call site, size class) with an explicit align, never
					merged (as XFS did) */
	POLICY_ALIGN_MERGED = 4,     /* option 2 (Hansen): those caches, merged by the
					allocator's find_mergeable() rules */
	POLICY_ALIGN_KMALLOC_CACHES = 5, /* option 3a: kmalloc_aligned() served by extra aligned
					    kmalloc caches, one per (type, size class, align) */
	POLICY_ALIGN_OVERALLOC = 6,	 /* option 3b: kmalloc_aligned() as kmalloc(size + align -
					    8) and the aligned part of it handed out */
	POLICY_ALIGN_POW2_DIVISOR = 7,	 /* the 2024 widening (6.11, commit ad59baa31695): every
					    kmalloc cache aligned to the largest power of two
					    dividing its size (kmalloc-96 32, kmalloc-192 64) */
	POLICY_ALIGN_NR,
};

/* Does policy a serve the callers of a sites file (OWN_CACHES to
 * OVERALLOC)? */
static inline int policy_align_by_site(enum policy_align a)
{
	return a >= POLICY_ALIGN_OWN_CACHES && a <= POLICY_ALIGN_OVERALLOC;
}

/* The kmalloc alignment rule kernel profile k follows: natural (5.4 to
 * 6.10: 59bb47985c1d) up to the 6.6 profile, pow2-divisor (6.11's
 * create_boot_cache) from 6.12. A run whose --align is not its profile's
 * rule is a what-if. */
enum policy_align policy_kernel_align(enum policy_kernel k);

/* policy_alloc_req.align_need: a listed caller wants its power-of-two
 * kmallocs aligned to their size (a sites file's "natural"). */
#define POLICY_NEED_NATURAL UINT32_MAX

/* The alignment in bytes a request of size bytes by a caller with rule need
 * (0, POLICY_NEED_NATURAL, or a power of two) must get: the rule's bytes, or
 * for natural the size when it is a power of two; 8 (ARCH_KMALLOC_MINALIGN,
 * what every kmalloc gets) when that is less or the caller is not listed. */
static inline uint64_t policy_need_bytes(uint32_t need, uint64_t size)
{
	uint64_t a = need == POLICY_NEED_NATURAL ? (size && !(size & (size - 1)) ? size : 8) : need;
	return a < 8 ? 8 : a;
}

/* The profile whose rules kernel major.minor follows: the newest profile
 * released at or below it, except that 5.16-6.0 take 6.1 (per-CPU partial
 * lists limited by slabs; the mid-object free pointer and kmalloc-cg-N came
 * before, and their events already print accounted=) and anything below
 * 5.16 takes 5.4. */
enum policy_kernel policy_kernel_for(unsigned major, unsigned minor);
/* "5.4", "6.1", "6.6", "6.12", "6.18", "7.0"; "?" for anything else. */
const char *policy_kernel_name(enum policy_kernel k);
/* Is major.minor exactly profile k's release? */
bool policy_kernel_is_exact(enum policy_kernel k, unsigned major, unsigned minor);
/* Parse a kernel version ("5.4", "6.6", "5.15.0-91-generic": major.minor
 * first) into its profile (policy_kernel_for). *exact (may be NULL) says
 * whether the version is the profile's own. 0 or SLABSIM_EUSAGE. */
int policy_parse_kernel(const char *s, enum policy_kernel *out, bool *exact, struct err *e);

struct policy_cfg;
/* What makes a run under cfg with allocator a what-if rather than a model
 * of a real kernel of cfg->kernel's profile, as one line into buf (n
 * bytes): SLOB on a profile from 6.6 (removed in 6.4), SLAB from 6.12
 * (removed in 6.8), a configuration switch the profile's kernel lacks
 * (SLUB_TINY before 6.2, RANDOM_KMALLOC_CACHES before 6.6, SLAB_BUCKETS
 * before 6.11), a sheaf_capacity or barn_limit other than the kernel's
 * (SLUB from 6.18), an --align other than the profile's rule on the
 * profiles from 6.6, and pow2-divisor on those before 6.12. NULL when none (the 5.4
 * and 6.1 profiles' other --align values are the seed question's own
 * options and are not flagged). */
const char *policy_what_if(const struct policy_cfg *cfg, const char *allocator, char *buf,
			   size_t n);

/* "none", "natural", "cap512", "own-caches", "merged", "kmalloc-aligned-caches",
 * "kmalloc-aligned-overalloc", "pow2-divisor". */
const char *policy_align_name(enum policy_align a);
/* Parse an --align value; returns 0 or SLABSIM_EUSAGE. */
int policy_parse_align(const char *s, enum policy_align *out, struct err *e);
/* A random kmalloc seed (policy_cfg.random_seed): 0x and up to 16 hex
 * digits, as random_kmalloc_seed reads in a debugger, or a decimal number
 * below 2^64. Errors: SLABSIM_EUSAGE. */
int policy_parse_random_seed(const char *s, uint64_t *out, struct err *e);

enum policy_kmalloc_type {
	POLICY_KMALLOC_NORMAL = 0, /* kmalloc-N */
	POLICY_KMALLOC_RECLAIM,	   /* kmalloc-rcl-N */
	POLICY_KMALLOC_DMA,	   /* dma-kmalloc-N */
	POLICY_KMALLOC_CGROUP,	   /* kmalloc-cg-N (6.1 only; NORMAL under 5.4) */
	POLICY_KMALLOC_NR_TYPES,
};

/* Cache flags (a subset of the kernel's SLAB_* flags, our own bit values). */
enum {
	POLICY_F_CONSISTENCY = 1u << 0, /* slub_debug F: SLAB_CONSISTENCY_CHECKS */
	POLICY_F_RED_ZONE = 1u << 1,	/* Z */
	POLICY_F_POISON = 1u << 2,	/* P */
	POLICY_F_STORE_USER = 1u << 3,	/* U */
	POLICY_F_TRACE = 1u << 4,	/* T */
	POLICY_F_HWCACHE_ALIGN = 1u << 8,
	POLICY_F_RECLAIM_ACCOUNT = 1u << 9,
	POLICY_F_CACHE_DMA = 1u << 10,
	POLICY_F_ACCOUNT = 1u << 11,
	POLICY_F_TYPESAFE_BY_RCU = 1u << 12,
	POLICY_F_KMALLOC = 1u << 13, /* 6.1 SLAB_KMALLOC; we set it under 5.4 too, harmlessly */
	POLICY_F_DEBUG_MASK = 0x1f,  /* F Z P U T */
};

struct policy_sites; /* policies/sites.h */
struct policy_aligned;

struct policy_cfg {
	enum policy_kernel kernel;
	enum policy_align align;
	uint32_t slub_debug;	   /* POLICY_F_* debug bits ORed into every cache */
	uint32_t nr_cpus;	   /* nr_cpu_ids = present CPUs; events name CPUs < nr_cpus */
	uint32_t slub_min_order;   /* default 0 */
	uint32_t slub_max_order;   /* default 3 (PAGE_ALLOC_COSTLY_ORDER) */
	uint32_t slub_min_objects; /* default 0 = automatic */
	bool nomerge;		   /* slab_nomerge */
	bool cpu_partial;	   /* CONFIG_SLUB_CPU_PARTIAL (default true) */
	uint32_t cache_line;	   /* cache_line_size(), default 64 */
	/* SLAB */
	bool slab_debug; /* CONFIG_DEBUG_SLAB */
	/* 6.1 built without CONFIG_MEMCG_KMEM: no kmalloc-cg-N caches,
	 * __GFP_ACCOUNT kmallocs use kmalloc-N (kmalloc_type() in
	 * include/linux/slab.h); set from a capture whose slabinfo lists none */
	bool no_kmalloc_cg;
	uint32_t slab_max_order; /* slab_max_order=, default 1 (> 32 MiB RAM) */
	/* Configuration switches of the newer profiles (all off by default,
	 * the 5.4/6.1 behaviour). slub_tiny: CONFIG_SLUB_TINY (6.2+; no
	 * kmalloc-rcl-N, no per-CPU partial lists). no_zone_dma: built without
	 * CONFIG_ZONE_DMA (no dma-kmalloc-N). slab_buckets: CONFIG_SLAB_BUCKETS
	 * (6.11+; the msg_msg-N and memdup_user-N bucket sets).
	 * random_kmalloc: CONFIG_RANDOM_KMALLOC_CACHES (6.6+), the number of
	 * copies beyond kmalloc-N (RANDOM_KMALLOC_CACHES_NR, 15), 0 = off;
	 * random_seed stands for the kernel's per-boot random_kmalloc_seed. */
	bool slub_tiny;
	bool no_zone_dma;
	bool slab_buckets;
	uint32_t random_kmalloc;
	uint64_t random_seed;
	/* What-ifs of the sheaves (SLUB 6.18+, policies/sheaves.h), 0 = the
	 * kernel's own. sheaf_capacity: every cache that has sheaves under the
	 * profile's rule (6.18: those created with a capacity; 7.0:
	 * calculate_sheaf_capacity) gets this capacity instead. barn_limit:
	 * the barn's MAX_FULL_SHEAVES and MAX_EMPTY_SHEAVES (10 each) both
	 * become this. Neither gives sheaves to a cache the rule leaves
	 * without. */
	uint32_t sheaf_capacity;
	uint32_t barn_limit;
	/* The callers that need alignment (a sites file, policies/sites.h),
	 * borrowed: it must outlive every instance made with this cfg. NULL =
	 * none. The engine matches call sites against it and passes each
	 * listed caller's rule in policy_alloc_req.align_need; required by the
	 * policy_align_by_site() policies. */
	const struct policy_sites *sites;
	/* The kernel's function addresses (a capture's system-map.txt,
	 * policies/buckets.h), borrowed like sites: with them a call site's
	 * symbol+offset is its _RET_IP_, the caller random kmalloc copies
	 * hash. NULL = none (a stand-in caller: policy_caller_of). */
	const struct policy_symtab *symtab;
};

/* The policy_cfg fields an allocator reads (policy_ops.settings): sweeps
 * vary, and labels show, only those. */
enum {
	POLICY_SET_KERNEL = 1u << 0,
	POLICY_SET_ALIGN = 1u << 1,
	POLICY_SET_NR_CPUS = 1u << 2,
	POLICY_SET_SLUB_DEBUG = 1u << 3,
	POLICY_SET_SLUB_MIN_ORDER = 1u << 4,
	POLICY_SET_SLUB_MAX_ORDER = 1u << 5,
	POLICY_SET_SLUB_MIN_OBJECTS = 1u << 6,
	POLICY_SET_NOMERGE = 1u << 7,
	POLICY_SET_CPU_PARTIAL = 1u << 8,
	POLICY_SET_CACHE_LINE = 1u << 9,
	POLICY_SET_SLAB_DEBUG = 1u << 10,
	POLICY_SET_SLAB_MAX_ORDER = 1u << 11,
	POLICY_SET_SLUB_TINY = 1u << 12,
	POLICY_SET_ZONE_DMA = 1u << 13,
	POLICY_SET_SLAB_BUCKETS = 1u << 14,
	POLICY_SET_RANDOM_KMALLOC = 1u << 15,
	POLICY_SET_SHEAVES = 1u << 16, /* sheaf_capacity, barn_limit */
};

/* The largest sheaf_capacity and barn_limit a policy_cfg may hold (a sheaf
 * of 1024 objects is an 8 KiB + 32 byte kmalloc; a barn of 1000 sheaves
 * per cache is far beyond any kernel's). */
#define POLICY_SHEAF_CAPACITY_MAX 1024
#define POLICY_BARN_LIMIT_MAX	  1000

/* The allocator a run uses when none is named (the kernel's default). */
#define POLICY_DEFAULT_NAME "slub"

/* Fill *c with the defaults above (5.4, natural, no debug, 2 CPUs). */
void policy_cfg_default(struct policy_cfg *c);

/* Parse slub_debug letters ("FZPU", "-" or "" = none; bare "1"/"all" = FZPU).
 * Returns 0 or SLABSIM_EUSAGE naming the bad letter. */
int policy_parse_slub_debug(const char *s, uint32_t *flags, struct err *e);
/* Letters of flags in FZPUT order into buf (at least 6 bytes); "-" for none. */
const char *policy_slub_debug_str(uint32_t flags, char *buf);

/* What kmem_cache_create() is given. */
struct policy_cache_spec {
	const char *name;     /* copied by the policy */
	uint32_t object_size; /* bytes */
	uint32_t align;	      /* requested alignment (0 = none) */
	uint32_t flags;	      /* POLICY_F_*; slub_debug bits are added by the policy */
	uint32_t usersize;    /* hardened-usercopy whitelist size; != 0 blocks merging */
	bool ctor;	      /* has a constructor */
	bool no_merge;	      /* never alias (e.g. a cache seen as a distinct root in a trace) */
	/* 6.12 kmem_cache_args.use_freeptr_offset/freeptr_offset: with
	 * TYPESAFE_BY_RCU the free pointer stays inside the object at
	 * freeptr_offset (a multiple of 8) instead of after it. Ignored by
	 * profiles before 6.12 and by caches without TYPESAFE_BY_RCU. */
	bool use_freeptr_offset;
	uint32_t freeptr_offset;
	/* 6.18 kmem_cache_args.sheaf_capacity: per-CPU sheaves of that many
	 * objects (policies/sheaves.h). When sheaf_capacity_given is false
	 * (a trace alone) SLUB takes the source's value for the cache's name
	 * (maple_node and vm_area_struct: 32); a capture's sysfs
	 * sheaf_capacity sets it with sheaf_capacity_given, 0 meaning none.
	 * Ignored before 6.18; under 7.0 it is a minimum
	 * (calculate_sheaf_capacity). */
	uint32_t sheaf_capacity;
	bool sheaf_capacity_given;
};

/* Geometry of one cache: the /sys/kernel/slab/<cache>/ figures and the layout
 * internals that produce them. */
struct policy_geom {
	uint32_t object_size;	    /* sysfs object_size */
	uint32_t size;		    /* sysfs slab_size: the stride */
	uint32_t align;		    /* sysfs align (s->align) */
	uint32_t order;		    /* sysfs order */
	uint32_t objs_per_slab;	    /* sysfs objs_per_slab */
	uint32_t inuse;		    /* end of object + right red zone (SLUB s->inuse) */
	uint32_t offset;	    /* free pointer offset (SLUB s->offset) */
	uint32_t red_left_pad;	    /* bytes before the object in each slot */
	uint32_t min_partial;	    /* sysfs min_partial */
	uint32_t cpu_partial;	    /* sysfs cpu_partial (objects) */
	uint32_t cpu_partial_slabs; /* 6.1: slab limit derived from cpu_partial */
	uint32_t flags;		    /* POLICY_F_* after slub_debug */
	uint32_t sheaf_capacity;    /* SLUB 6.18+: sysfs sheaf_capacity, 0 = no sheaves */
	/* SLAB only (0 elsewhere): */
	uint32_t colour;		    /* number of colours (left-over / colour_off) */
	uint32_t colour_off;		    /* colour step: max(cache line, align) */
	uint32_t left_over;		    /* bytes of a slab not in slots nor the freelist */
	uint32_t freelist_mode;		    /* POLICY_FREELIST_* */
	uint32_t obj_offset;		    /* DEBUG_SLAB: object start inside the slot */
	uint32_t limit, batchcount, shared; /* enable_cpucache tunables */
	uint32_t free_limit;		    /* (1 + CPUs) * batchcount + objs_per_slab */
};

/* The policy_geom figures an allocator fills (policy_ops.figures), in the
 * order `slabsim layout` prints them: its /sys/kernel/slab attributes
 * (SLUB), or its /proc/slabinfo figures with the layout behind them (SLAB). */
enum {
	POLICY_FIG_OBJECT_SIZE = 1u << 0,
	POLICY_FIG_SIZE = 1u << 1,
	POLICY_FIG_ALIGN = 1u << 2,
	POLICY_FIG_ORDER = 1u << 3,
	POLICY_FIG_OBJS_PER_SLAB = 1u << 4,
	POLICY_FIG_PAGES_PER_SLAB = 1u << 5, /* 1 << order, slabinfo's pagesperslab */
	POLICY_FIG_MIN_PARTIAL = 1u << 6,
	POLICY_FIG_CPU_PARTIAL = 1u << 7,
	POLICY_FIG_COLOUR = 1u << 8,
	POLICY_FIG_COLOUR_OFF = 1u << 9,
	POLICY_FIG_LEFT_OVER = 1u << 10,
	POLICY_FIG_FREELIST = 1u << 11,
	POLICY_FIG_LIMIT = 1u << 12,
	POLICY_FIG_BATCHCOUNT = 1u << 13,
	POLICY_FIG_SHARED = 1u << 14,
	POLICY_FIG_FREE_LIMIT = 1u << 15,
};

/* Where SLAB keeps a slab's freelist index array. */
enum {
	POLICY_FREELIST_NONE = 0, /* not SLAB */
	POLICY_FREELIST_OBJ,	  /* OBJFREELIST: inside a free object */
	POLICY_FREELIST_OFF_SLAB, /* in an object of a kmalloc cache */
	POLICY_FREELIST_ON_SLAB,  /* at the end of the slab */
};

/* Figures of one cache at the current instant. */
struct policy_cache_info {
	const char *name; /* valid for the policy's lifetime */
	struct policy_geom g;
	bool kmalloc;		  /* one of the kmalloc caches */
	uint32_t alias_of;	  /* id of the root cache, or its own id */
	uint64_t nr_slabs;	  /* slabs held (all lists, cpu slabs included) */
	uint64_t nr_pages;	  /* nr_slabs << order */
	uint64_t total_objects;	  /* nr_slabs * objs_per_slab */
	uint64_t inuse_objects;	  /* objects handed out and not freed */
	uint64_t nr_partial;	  /* slabs on the node partial list */
	uint64_t free_in_partial; /* free objects in node-partial slabs (slabinfo active_objs) */
	uint64_t cpu_slabs;	  /* cpu slabs + per-CPU partial slabs */
	uint64_t slabs_allocated; /* slabs taken from the page allocator so far */
	uint64_t slabs_freed;	  /* slabs given back so far */
	/* Objects held in per-CPU sheaves and barns (SLUB 6.18+): allocated in
	 * slabs (not free slots, so counted in total_objects and pages) but
	 * free for the kernel (not in inuse_objects). Their bytes count as
	 * free space in the waste identity above. 0 without sheaves. */
	uint64_t parked_objects;
	/* Waste the policy alone knows (the engine derives the rest from the
	 * objects it handed out; see the identity at the top of this file): */
	uint64_t tail_bytes;	 /* bytes of this cache's pages outside any slot (slab
				    tail, colour left-over, on-slab freelists) */
	uint64_t internal_bytes; /* slot bytes of this cache used by the allocator
				    itself (SLAB's off-slab freelist arrays) */
};

/* The counters of a cache that move as it is used (policy_ops.cache_counts):
 * a policy's own choice of them, compared whole. */
#define POLICY_CACHE_COUNTS 8
struct policy_cache_counts {
	uint64_t v[POLICY_CACHE_COUNTS];
};

/* One cache's line of /proc/slabinfo: the kernel's struct slabinfo
 * (mm/slab.h), which each allocator fills in its get_slabinfo() and
 * cache_show() (mm/slab_common.c) prints with the cache's name and size. */
struct policy_slabinfo {
	uint64_t active_objs;  /* num_objs less the free objects the allocator counts */
	uint64_t num_objs;     /* slots in all slabs */
	uint64_t active_slabs; /* SLAB: slabs not on slabs_free; SLUB: all */
	uint64_t num_slabs;
	uint64_t shared_avail;	   /* SLAB: objects in the node's shared array */
	uint32_t limit;		   /* SLAB's tunables (0 for SLUB): array limit, */
	uint32_t batchcount;	   /* refill/flush batch, */
	uint32_t shared;	   /* and shared array factor */
	uint32_t objects_per_slab; /* oo_objects / cachep->num */
	uint32_t cache_order;	   /* oo_order / cachep->gfporder */
};

/* Free space kept as free blocks on partially free pages rather than as
 * free slots (policy_ops.free_blocks). */
struct policy_free_blocks {
	uint64_t bytes;	 /* free bytes, alignment fragments included */
	uint64_t blocks; /* free blocks */
	uint64_t pages;	 /* partially free pages holding them */
};

/* Totals across the whole policy. */
struct policy_stats {
	uint64_t slab_pages;  /* pages in slabs of all caches */
	uint64_t large_pages; /* pages of large kmallocs (no cache) */
	uint64_t large_objs;  /* live large kmallocs */
	uint64_t buddy_pages; /* pages the simulated buddy allocator has handed out */
	/* For allocators whose pages are shared by all caches (SLOB), cache_info
	 * reports no pages; these give the totals instead (0 elsewhere). */
	uint64_t shared_tail_bytes, shared_internal_bytes;
	/* placement by address (SLUB): objects parked in a slab the trace
	 * never showed that traded places with a free object of a slab it
	 * showed (rehome_parked) */
	uint64_t parked_rehomed;
};

/* The simulated buddy allocator per order (policy_ops.page_orders). Free
 * blocks are those on its free lists inside the address range grown so far
 * (grown_pages, in MAX_ORDER steps); memory never touched is not counted. */
struct policy_page_orders {
	uint64_t held_blocks[POLICY_MAX_ORDER]; /* blocks handed out, by order */
	uint64_t free_blocks[POLICY_MAX_ORDER]; /* blocks on the free lists, by order */
	uint64_t grown_pages;			/* pages of the range grown so far */
};

#define POLICY_KMALLOC	UINT32_MAX /* policy_alloc_req.cache: a kmalloc */
#define POLICY_NO_CACHE UINT32_MAX /* policy_obj.cache: page-allocator object */

/* When a kernel slab was made, as the trace shows it (policy_alloc_req
 * .trace_fresh). */
enum policy_slab_age {
	POLICY_SLAB_UNKNOWN = 0,
	POLICY_SLAB_NEW, /* during the trace */
	POLICY_SLAB_OLD, /* before it: a start-state slab */
};

struct policy_alloc_req {
	uint32_t cache; /* id from cache_create, or POLICY_KMALLOC */
	uint64_t size;	/* kmalloc: bytes requested; ignored for cache allocs */
	enum policy_kmalloc_type ktype;
	uint32_t cpu; /* < cfg.nr_cpus */
	int32_t node; /* requested node, -1 = any */
	/* kmalloc_aligned() (policy_alloc): the listed caller's rule, 0 (a plain
	 * kmalloc), POLICY_NEED_NATURAL or a power of two; and its call site
	 * (id and name, borrowed for the call) for the caches of OWN_CACHES and
	 * MERGED. Only read by policy_alloc under a policy_align_by_site()
	 * policy; the allocators' alloc ignore them, except SLOB, whose
	 * __do_kmalloc_node takes an alignment, and exact. */
	uint32_t align_need;
	uint32_t site;
	const char *site_name;
	/* kmalloc: the cache set the call site's kmallocs go to instead of
	 * kmalloc-N (policies/buckets.h policy_route: a kmem_buckets set or a
	 * random kmalloc copy); 0 = kmalloc-N. Read by SLUB. */
	uint32_t route;
	/* The pointer the trace gave the allocation when it is the kernel's
	 * address (not hashed), else 0: where the kernel's slabs are. Read by
	 * SLUB under the 6.18 and 7.0 profiles for the caches the 6.18 kernel
	 * gives sheaves (place_by_address in policies/slub.c). */
	uint64_t trace_ptr;
	/* When the kernel slab of the len bytes at va (trace_ptr's) was made
	 * (sim/pgfree.h): POLICY_SLAB_NEW when the trace saw a page of it
	 * freed or given out before this allocation (made during the trace,
	 * none of the start state's), POLICY_SLAB_OLD when the trace shows
	 * every page given out (mm_page_alloc) and none of these (one of the
	 * start state's), else POLICY_SLAB_UNKNOWN. NULL when nothing tells;
	 * asked (with fresh_ctx) only when a kernel slab is first met, so an
	 * allocation pays nothing for it. */
	enum policy_slab_age (*trace_fresh)(const void *fresh_ctx, uint64_t va, uint64_t len);
	const void *fresh_ctx;
};

/* An allocated object as the policy describes it. The caller keeps it and
 * hands it back to free(). */
struct policy_obj {
	uint64_t addr;	       /* simulated address (never a host pointer) */
	uint32_t cache;	       /* serving cache id, or POLICY_NO_CACHE */
	uint32_t order;	       /* page order, for POLICY_NO_CACHE objects */
	uint64_t bytes_alloc;  /* what the kernel would trace as bytes_alloc */
	uint64_t size;	       /* bytes requested (kept for allocators that need it) */
	uint64_t slot_bytes;   /* bytes the object really occupies (its slot, SLOB
				  block, or pages) */
	uint64_t meta_bytes;   /* of slot_bytes, allocator metadata and padding
				  (red zones, tracking, SLOB's size header) */
	uint64_t object_bytes; /* of slot_bytes, the usable object (object_size):
				  slot = object + meta, and object - requested is
				  the size-class rounding */
	uint32_t align_shift;  /* KMALLOC_ALIGNED_OVERALLOC: addr is this far past the
				  block kmalloc gave (policy_free takes it back) */
	uint32_t frag_bytes;   /* SLOB: bytes of the free block this allocation left
				  before itself to align (slob_page_alloc's delta) */
};

struct policy;

/* What the replay sees ahead of the event it is at (policy_ops.pages_traced). */
struct policy_pages_ahead {
	/* whether the trace frees the page of the kernel slab at kaddr (a raw
	 * trace address in it) within the next grace period */
	bool (*freed_soon)(const void *ctx, uint64_t kaddr);
	const void *ctx;
};

/* A cache's recorded state to start from (policy_ops.prepopulate): one
 * /proc/slabinfo row, slabs counted in the model's geometry. */
struct policy_start {
	uint64_t active_objs;  /* slabinfo active_objs */
	uint64_t nr_slabs;     /* slabs to make */
	uint64_t free_slabs;   /* of them, wholly free (SLAB: num_slabs - active_slabs) */
	uint64_t shared_avail; /* SLAB: objects in the shared array (sharedavail) */
};

/* What the kernel shows of an allocator's state (policy_ops.truth). */
enum policy_truth {
	POLICY_TRUTH_NONE = 0, /* no kernel allocator (exact) */
	/* /sys/kernel/slab (the layout of every cache) and /proc/slabinfo with
	 * 0 tunables (SLUB) */
	POLICY_TRUTH_SYSFS,
	/* /proc/slabinfo with its tunables (limit, batchcount, sharedfactor)
	 * and no /sys/kernel/slab (SLAB) */
	POLICY_TRUTH_SLABINFO,
	/* /proc/meminfo's Slab: alone, no per-cache figures (SLOB) */
	POLICY_TRUTH_MEMINFO,
};

/* policy_ops.kmalloc_aligned */
enum {
	POLICY_KA_CACHES = 0, /* kmalloc caches (SLUB, SLAB): policy_alloc makes extra caches */
	POLICY_KA_ARG,	      /* no kmalloc caches, but kmalloc takes an alignment (SLOB's
				 __do_kmalloc_node): alloc honours align_need, which
				 policy_alloc passes under kmalloc-aligned-caches */
	POLICY_KA_ALWAYS_ARG, /* alloc honours align_need under every by-site policy (exact) */
};

/* Where a slab of a recorded start state is held (policy_ops.start_slab). */
enum policy_start_where {
	POLICY_START_FULL = 0,	   /* full, on no list */
	POLICY_START_NODE_PARTIAL, /* the node partial list */
	POLICY_START_CPU,	   /* a CPU's slab (c->slab) */
	POLICY_START_CPU_PARTIAL,  /* a CPU's partial stack (c->partial) */
};

struct policy_start_slab {
	enum policy_start_where where;
	uint32_t cpu;	/* CPU and CPU_PARTIAL: which CPU, < cfg.nr_cpus */
	uint32_t inuse; /* live objects in it */
};

/* stats()'s slab_pages and large_pages, as a model may keep them */
struct policy_pages {
	uint64_t slab, large;
};

struct policy_ops {
	const char *name;  /* "slub", "exact", ... */
	const char *desc;  /* one line for --help */
	uint32_t settings; /* POLICY_SET_*: the policy_cfg fields it reads */
	uint32_t figures;  /* POLICY_FIG_*: the policy_geom figures cache_info fills */
	/* What a capture of a kernel running this allocator holds as its
	 * ground truth (POLICY_TRUTH_*), and so what `slabsim validate`
	 * compares the model with; NONE for a model of no kernel allocator. */
	enum policy_truth truth;
	/* How policy_alloc serves kmalloc_aligned() (POLICY_KA_*). */
	uint8_t kmalloc_aligned;
	/* What kmem_cache_create() would make of spec under cfg, without
	 * creating it: the geometry of a new root cache (no merging), slub_debug
	 * or slab_debug applied as the allocator applies them. OUT: *out, written
	 * only on success. Returns 0, or SLABSIM_EUSAGE with a message for a
	 * spec the allocator refuses. Optional: NULL when the allocator keeps
	 * no per-cache geometry (SLOB, exact). */
	int (*layout)(const struct policy_cfg *cfg, const struct policy_cache_spec *spec,
		      struct policy_geom *out, struct err *e);
	/* Create an instance; it creates the kmalloc caches at once (boot). */
	int (*create)(const struct policy_cfg *cfg, struct policy **out, struct err *e);
	/* Free everything; p may be NULL. */
	void (*destroy)(struct policy *p);
	/* kmem_cache_create(): may merge into an existing cache; OUT: *id is the
	 * id to allocate from (an alias has its own id and name, sharing the
	 * root's slabs). Errors: SLABSIM_EUSAGE for an impossible geometry. */
	int (*cache_create)(struct policy *p, const struct policy_cache_spec *spec, uint32_t *id,
			    struct err *e);
	/* Allocate. Errors: SLABSIM_EUSAGE (bad cache id, size above the
	 * allocator's kmalloc maximum), SLABSIM_ENOMEM. */
	int (*alloc)(struct policy *p, const struct policy_alloc_req *r, struct policy_obj *out,
		     struct err *e);
	/* Free an object obtained from alloc, on CPU cpu. */
	int (*free)(struct policy *p, const struct policy_obj *o, uint32_t cpu, struct err *e);
	/* Free an object through kfree_rcu() on CPU cpu: the object stops
	 * being live at once; when it becomes reusable is the allocator's
	 * (SLUB 6.18+: into the CPU's rcu_free sheaf, handed on when that
	 * sheaf is full; the model runs the RCU callback without a grace
	 * period). The same checks and errors as free. Optional: NULL when
	 * the model has no such path; callers then use free (the object is
	 * freed at the end of the grace period, the time of the call being
	 * taken for it). */
	int (*free_rcu)(struct policy *p, const struct policy_obj *o, uint32_t cpu, struct err *e);
	/* Free an object the kernel freed earlier by a path the trace did
	 * not show, whose slab the kernel has since discarded (sim/pgfree.h):
	 * it is in no per-CPU cache or sheaf any more, so it goes straight to
	 * its slab, as a free on CPU cpu would once past them. The same checks
	 * and errors as free. Optional: NULL where the model has nothing in
	 * front of its slabs; callers then use free. */
	int (*free_to_slab)(struct policy *p, const struct policy_obj *o, uint32_t cpu,
			    struct err *e);
	/* Free an object through kmem_cache_free_bulk() on CPU cpu, one
	 * object of the call at a time (SLUB 6.18+: free_to_pcs_bulk, which
	 * parks in sheaves only while the barn has room and empty sheaves).
	 * The same checks and errors as free. Optional: NULL where the bulk
	 * path frees as free does; callers then use free. */
	int (*free_bulk)(struct policy *p, const struct policy_obj *o, uint32_t cpu, struct err *e);
	/* The kernel slab at kernel address real (a raw trace pointer rounded
	 * to its slab) went back to the page allocator (sim/pgfree.h): the
	 * model slab its objects were placed in (SLUB's place_by_address), if
	 * any: its simulated base and root cache id. Optional: NULL for a
	 * model that does not place objects by address. */
	bool (*bound_slab)(const struct policy *p, uint64_t real, uint64_t *base, uint32_t *cache);
	/* After bound_slab found it, and the objects the caller holds in it
	 * that the page free proved dead were freed: since the kernel slab
	 * held no object in use, none of its objects were in a sheaf either.
	 * Give the model slab's parked objects back to it (on CPU cpu) and
	 * forget its binding. 0 or SLABSIM_ENOMEM. Optional with bound_slab. */
	int (*unpark_slab)(struct policy *p, uint32_t cache, uint64_t base, uint32_t cpu,
			   struct err *e);
	/* Bind the kernel slab at kernel address real (a raw trace pointer in
	 * it) of root cache `cache` to the model slab at simulated base `base`,
	 * as place_by_address binds the first slab an object lands in: for
	 * the engine's own evidence of which slab an object lay in (a free of
	 * a start-state object at a raw pointer). 1: bound so now or before;
	 * 0: either is bound to another (nothing changes); -1: the cache is
	 * not placed by address. Base 0 (no slab) binds nothing, so 0 or -1
	 * says whether the cache is placed. Optional with bound_slab. */
	int (*bind_slab)(struct policy *p, uint32_t cache, uint64_t real, uint64_t base);
	/* Whether an allocation at raw pointer real of cache, in a kernel
	 * slab made when age says (not POLICY_SLAB_NEW), would find no model
	 * slab for its kernel slab: none bound to it, and no unbound slab
	 * with a free object where the policy looks for one (SLUB's
	 * place_unseen, which would make a new slab; for POLICY_SLAB_OLD only
	 * start slabs). Optional with bind_slab. */
	bool (*unseen_needs_slab)(const struct policy *p, uint32_t cache, uint64_t real,
				  enum policy_slab_age age);
	/* From now on the trace shows every page the kernel's slabs give back
	 * (sim/pgfree.h: the direct map's base is known). A kernel slab goes
	 * back the moment it holds no object in use, so a model slab bound to
	 * one whose page was not freed is kept when empty (its objects in use
	 * are ones the model holds elsewhere) until unpark_slab, which then
	 * discards it. A SLAB_TYPESAFE_BY_RCU cache's pages go back a grace
	 * period after the discard: its slabs are kept only when ahead is
	 * given and says no free of the page comes within one. ahead may be
	 * NULL (no look-ahead); it stays valid for the replay. Optional with
	 * bound_slab. */
	void (*pages_traced)(struct policy *p, const struct policy_pages_ahead *ahead);
	/* With a look-ahead (pages_traced's ahead): the trace frees the page
	 * of the kernel slab at kaddr (a raw trace address in it) within the
	 * window, told once as that free comes into it. A
	 * SLAB_TYPESAFE_BY_RCU cache's slab is discarded a grace period before
	 * its page goes, so a model slab bound to it that is empty by now
	 * stands for a slab the kernel has given back or is about to. Optional
	 * with pages_traced. */
	void (*page_free_ahead)(struct policy *p, uint64_t kaddr);
	/* From now on, move: it moves the start-state object the caller holds
	 * at model address from, if it holds one there, to model address to,
	 * and says whether it did. SLUB's place_by_address asks it (with ctx)
	 * when the start slab bound to an allocation's kernel slab has no free
	 * object: the kernel's slab had one, so a start object the start state
	 * put there (by a guess: the start state counts a cache's objects, not
	 * a slab's) lies in another start slab. With to 0 (no start slab has
	 * room for it) the object was not live: the caller drops it from its
	 * live set, without a free (the policy gives its slot to the
	 * allocation). Optional with bound_slab. */
	void (*start_moves)(struct policy *p, bool (*move)(void *ctx, uint64_t from, uint64_t to),
			    void *ctx);
	/* Number of cache ids (0..n-1), aliases included. */
	uint32_t (*nr_caches)(const struct policy *p);
	/* Figures of cache id. For an alias the slab figures are the root's. */
	void (*cache_info)(const struct policy *p, uint32_t id, struct policy_cache_info *out);
	/* The counters of cache id's root that, with what cache_create fixes,
	 * decide cache_info(id) and get_slabinfo(id): two readings equal in
	 * every counter, with no cache_create between them, give equal
	 * figures. Much cheaper than cache_info: a sample reads them for every
	 * cache and cache_info only for those that moved (sim/replay.c,
	 * take_sample). Optional: NULL reads cache_info every time. */
	void (*cache_counts)(const struct policy *p, uint32_t id, struct policy_cache_counts *out);
	/* get_slabinfo() of mm/slub.c or mm/slab.c: the /proc/slabinfo figures
	 * of cache id, counted by the allocator's own rules (for an alias, its
	 * root's). Optional: NULL when the kernel's allocator has no
	 * /proc/slabinfo (SLOB) or the model has no slabs (exact); slabsim then
	 * lists none of its caches in its slabinfo and sysfs views. */
	void (*get_slabinfo)(const struct policy *p, uint32_t id, struct policy_slabinfo *out);
	/* Which cache a kmalloc of size and type would use (POLICY_NO_CACHE for a
	 * large kmalloc or an allocator without kmalloc caches). */
	uint32_t (*kmalloc_cache)(const struct policy *p, uint64_t size,
				  enum policy_kmalloc_type t);
	/* The bytes_alloc the kernel traces for a kmalloc of size bytes of type
	 * t, without allocating: what alloc() puts in policy_obj.bytes_alloc
	 * for that request (6.1 kmalloc_trace and __kmalloc: the cache's
	 * s->size; kmalloc_large: PAGE_SIZE << get_order(size); SLOB's
	 * __do_kmalloc_node: size plus its header below a page). Defined for
	 * every size, also those alloc() refuses: above the largest kmalloc
	 * cache it is whole pages. */
	uint64_t (*kmalloc_bytes)(const struct policy *p, uint64_t size,
				  enum policy_kmalloc_type t);
	void (*stats)(const struct policy *p, struct policy_stats *out);
	/* The free space as free blocks: SLOB's free units on its three page
	 * lists (mm/slob.c keeps them as sp->units; the kernel reports no
	 * total). Optional: NULL for allocators whose free space is free
	 * slots, (total_objects - inuse_objects) * size. The summary prints
	 * it as "<NAME> free" and JSON under the policy's name. */
	void (*free_blocks)(const struct policy *p, struct policy_free_blocks *out);
	/* Walk every invariant; SLABSIM_EMODEL with a message on the first
	 * violation. Costly: for tests and --check. */
	int (*check)(const struct policy *p, struct err *e);
	/* Periodic kernel work (SLAB's cache_reap). Optional: NULL when the
	 * model has none. The engine calls it once with the time of the first
	 * event, then at every time it asked for, before any event at or after
	 * that time. OUT: *next_ns, the next absolute time; UINT64_MAX = not
	 * before the next event (the engine calls it again with that event's
	 * time, before the event: an idle model skips a long gap at once). */
	int (*timer)(struct policy *p, uint64_t now_ns, uint64_t *next_ns, struct err *e);
	/* The simulated page allocator per order. Optional: NULL when the model
	 * has no buddy allocator (exact). */
	void (*page_orders)(const struct policy *p, struct policy_page_orders *out);
	/* Start from a recorded state (a /proc/slabinfo row taken before a
	 * trace began, *st): st->nr_slabs new slabs of cache id holding
	 * st->active_objs objects slabinfo counts as active, full slabs first,
	 * st->free_slabs of them wholly free where the allocator keeps free
	 * slabs, the rest of the free slots on the node partial list (what
	 * slabinfo counts as not active). Of the active objects, those the
	 * allocator's slabinfo counts as active while they are free (SLAB's
	 * array caches: st->shared_avail in the shared array, an estimate per
	 * CPU) are put there; the others are live. OUT: objs[0..*nr_live-1],
	 * the live objects (at most st->active_objs), to be freed like any
	 * allocated object. Optional: NULL when the model cannot. Errors:
	 * SLABSIM_EUSAGE (bad id, active_objs above nr_slabs * objs_per_slab),
	 * SLABSIM_ENOMEM. */
	int (*prepopulate)(struct policy *p, uint32_t id, const struct policy_start *st,
			   struct policy_obj *objs, uint64_t *nr_live, struct err *e);
	/* Start from a recorded per-slab state (/sys/kernel/slab/<cache>/
	 * cpu_slabs, slabs_cpu_partial, partial and objects_partial taken
	 * before a trace began): make one new slab of cache id's root holding
	 * ss->inuse live objects, its other slots free, and put it where
	 * ss->where says, as the kernel would hold it:
	 *   FULL          inuse == objs_per_slab; on no list (debug caches:
	 *                 the full list);
	 *   NODE_PARTIAL  inuse < objs_per_slab (0 allowed: the kernel keeps
	 *                 empty slabs while the node has < min_partial); tail
	 *                 of the node partial list, its free slots counted
	 *                 free by get_slabinfo;
	 *   CPU           the slab of CPU ss->cpu (frozen), its free slots on
	 *                 that CPU's lockless freelist (slabinfo counts them
	 *                 active); 0 free slots allowed (a CPU slab that ran
	 *                 full stays the CPU's until its next allocation);
	 *   CPU_PARTIAL   pushed on CPU ss->cpu's partial stack (frozen),
	 *                 inuse < objs_per_slab; the stack's limit is not
	 *                 enforced here (the kernel drains it on the next
	 *                 push).
	 * Under the 7.0 profile (no CPU slabs) CPU and CPU_PARTIAL slabs are
	 * put where 7.0 keeps such a slab: NODE_PARTIAL, or FULL when
	 * inuse == objs_per_slab.
	 * Free slots are the highest slot indexes, live objects the lowest.
	 * OUT: *base, the slab's address (objects at base + red_left_pad +
	 * i * size); objs[0..ss->inuse-1], to be freed like any allocated
	 * object.
	 * Optional: NULL when the model has no per-CPU slabs. Errors:
	 * SLABSIM_EUSAGE (bad id or CPU, inuse out of range for where, CPU or
	 * CPU_PARTIAL in a debug cache or without per-CPU partial lists, a CPU
	 * that has a slab already), SLABSIM_ENOMEM. */
	int (*start_slab)(struct policy *p, uint32_t id, const struct policy_start_slab *ss,
			  uint64_t *base, struct policy_obj *objs, struct err *e);
	/* Where the instance keeps stats()'s slab_pages and large_pages,
	 * valid until destroy: the engine reads them around every event, with
	 * no call. Optional: NULL = the engine takes them from stats(). */
	const struct policy_pages *(*page_counts)(const struct policy *p);
};

/* The policy whose kernel allocator leaves the ground truth t in a capture
 * (the first in policy_table), or NULL. A capture whose capture-info.txt
 * names no allocator is matched to one by what its files hold. */
const struct policy_ops *policy_find_truth(enum policy_truth t);

/* The allocation and free every caller of a policy goes through (policies/
 * aligned.c): a kmalloc by a listed caller (r->align_need != 0) under a
 * policy_align_by_site() policy becomes kmalloc_aligned() as that policy
 * implements it, on top of the allocator's own operations (cache_create
 * with an explicit align, alloc; layout rules as the allocator applies
 * them); everything else goes to ops->alloc and ops->free unchanged.
 * Errors: those of the allocator's operations. */
static inline int policy_alloc(struct policy *p, const struct policy_alloc_req *r,
			       struct policy_obj *out, struct err *e);
static inline int policy_free(struct policy *p, const struct policy_obj *o, uint32_t cpu,
			      struct err *e);
/* Their cases of a listed caller's kmalloc and of an object allocated
 * aligned (align_shift), out of line: the two above are inline, being on
 * every event's path. */
int policy_alloc_aligned(struct policy *p, const struct policy_alloc_req *r, struct policy_obj *out,
			 struct err *e);
int policy_free_shifted(struct policy *p, const struct policy_obj *o, uint32_t cpu, struct err *e);
/* ops->destroy after what policy_alloc kept (the caches it made); p may be
 * NULL. */
void policy_destroy(struct policy *p);

/* The table of all policies, NULL-terminated. */
extern const struct policy_ops *const policy_table[];

/* Look up a policy by name; NULL if unknown. */
const struct policy_ops *policy_find(const char *name);

/* Guess how a cache a trace shows only by its object size and slot size
 * (kmem_cache_alloc's bytes_req and bytes_alloc) was created. Traces come
 * from SLUB kernels, so SLUB's layout rules decide, under 6.1 (5.4 lays
 * out caches alike without slub_debug) with model's nr_cpus and slub_debug:
 * with model->slub_debug first, if any (a trace recorded under slub_debug
 * has the debug metadata in its slots; tried first since a plain layout
 * with a large alignment can give the same slot: 64 bytes aligned to 256
 * against 64 bytes with F Z P U), then without. In each, no constructor
 * before a constructor (free pointer moved out), plain before
 * HWCACHE_ALIGN, alignment 8 up to 4096. IN/OUT: *spec; on success its
 * object_size, flags, align and ctor are the first creation that gives
 * slot, its other fields (name, usersize, no_merge) kept. Returns false,
 * *spec untouched, when none does. */
bool policy_guess_spec(const struct policy_cfg *model, uint32_t object_size, uint32_t slot,
		       struct policy_cache_spec *spec);

/* Base every instance embeds first, so generic code can reach its ops and
 * configuration. */
struct policy {
	const struct policy_ops *ops;
	struct policy_cfg cfg;
	struct policy_aligned *aligned; /* policy_alloc's state, made on first use
					   (instances are calloc'ed: NULL) */
};

static inline int policy_alloc(struct policy *p, const struct policy_alloc_req *r,
			       struct policy_obj *out, struct err *e)
{
	if (__builtin_expect(!r->align_need || r->cache != POLICY_KMALLOC, 1)) {
		out->align_shift = out->frag_bytes = 0;
		return p->ops->alloc(p, r, out, e);
	}
	return policy_alloc_aligned(p, r, out, e);
}

static inline int policy_free(struct policy *p, const struct policy_obj *o, uint32_t cpu,
			      struct err *e)
{
	if (__builtin_expect(!o->align_shift, 1))
		return p->ops->free(p, o, cpu, e);
	return policy_free_shifted(p, o, cpu, e);
}

#endif
