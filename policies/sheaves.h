/* sheaves.h - per-CPU sheaves and the per-node barn of SLUB (mm/slub.c:
 * opt-in in Linux 6.18, every cache but a few in 7.0), for policies/slub.c.
 *
 * A sheaf is an array of up to `capacity` free objects. Each CPU has a main
 * sheaf (never absent), an optional spare (empty or full) and an rcu_free
 * sheaf that batches kfree_rcu(). The node's barn keeps whole sheaves: full
 * ones up to SHEAVES_MAX_FULL and empty ones up to SHEAVES_MAX_EMPTY
 * (MAX_FULL_SHEAVES, MAX_EMPTY_SHEAVES). The model has one NUMA node, so
 * one barn per cache.
 *
 * Objects held in sheaves are allocated in their slabs (not on any slab
 * freelist) but free for the kernel: `parked` counts them, so a cache's
 * pages include them while its live objects do not.
 *
 * The module keeps only the arrays and the state machine of
 * alloc_from_pcs / __pcs_replace_empty_main, free_to_pcs /
 * __pcs_replace_full_main / __pcs_install_empty_sheaf, __kfree_rcu_sheaf /
 * rcu_free_sheaf and the barn_* helpers. Taking objects from slabs
 * (refill_sheaf) and giving them back (sheaf_flush_unused) are the
 * caller's, through struct sheaves_ops, since they differ between 6.18
 * (through the per-CPU slab) and 7.0 (straight from the node lists).
 *
 * Not modelled: prefilled sheaves (kmem_cache_prefill_sheaf, used by the
 * maple tree; its objects reach the trace only when handed out, like any
 * other), oversize sheaves, pfmemalloc slabs, GFP_NOWAIT and atomic
 * allocations failing to get a sheaf (every request may block), the memory
 * of the sheaves themselves (they are kmalloc()s the trace already shows),
 * and cache shrinking and CPU hotplug flushes.
 */
#ifndef SLABSIM_SHEAVES_H
#define SLABSIM_SHEAVES_H

#include "err.h"

#include <stdbool.h>
#include <stdint.h>

#define SHEAVES_MAX_FULL  10 /* MAX_FULL_SHEAVES (6.18 and 7.0) */
#define SHEAVES_MAX_EMPTY 10 /* MAX_EMPTY_SHEAVES */

/* One object as the caller names it: its slab (opaque here) and slot. */
struct sheaf_obj {
	void *slab;
	int32_t idx;
};

struct sheaf {
	struct sheaf *next; /* barn list link */
	uint32_t size;
	struct sheaf_obj objs[];
};

struct sheaves_pcs {
	struct sheaf *main;	/* never NULL */
	struct sheaf *spare;	/* empty or full, may be NULL */
	struct sheaf *rcu_free; /* kfree_rcu batch, may be NULL */
};

/* How the replacement of an empty main sheaf after a refill puts the
 * emptied main sheaf away (__pcs_replace_empty_main's last step). */
enum sheaves_rule {
	SHEAVES_6_18 = 0, /* into the barn as an empty sheaf */
	SHEAVES_7_0,	  /* kept as the spare when the CPU has none */
};

struct sheaves {
	uint32_t capacity; /* s->sheaf_capacity */
	uint32_t nr_cpus;
	enum sheaves_rule rule;
	struct sheaves_pcs *pcs;
	struct sheaf *full, *empty; /* the barn's lists, newest first (list_add) */
	uint32_t nr_full, nr_empty;
	/* the barn's limits where the kernel checks them: SHEAVES_MAX_FULL and
	 * SHEAVES_MAX_EMPTY from sheaves_init; a what-if may change them
	 * (policy_cfg.barn_limit) before the first operation */
	uint32_t max_full, max_empty;
	uint64_t parked;     /* objects in all sheaves and the barn */
	uint64_t nr_sheaves; /* sheaves that exist */
	/* counters, for tests and reports (CONFIG_SLUB_STATS names) */
	uint64_t refills, flushes, barn_get, barn_put, barn_put_fail;
};

/* Where objects come from and go to. Both get the CPU the operation runs
 * on. refill: take n objects from slabs into out[0..n-1] (refill_sheaf);
 * returns 0 or SLABSIM_ENOMEM. flush: give n objects back to their slabs,
 * in the order given (sheaf_flush_unused, __kmem_cache_free_bulk). */
struct sheaves_ops {
	int (*refill)(void *ctx, uint32_t cpu, struct sheaf_obj *out, uint32_t n, struct err *e);
	void (*flush)(void *ctx, uint32_t cpu, const struct sheaf_obj *objs, uint32_t n);
	void *ctx;
	/* sheaves_unpark only, optional: slab has every object it had parked
	 * back; the slab's kernel slab is gone, so the owner may discard it
	 * now, before any refill could take its objects again. The flush may
	 * have freed slab: it is an identity here, not to be dereferenced */
	void (*gone)(void *ctx, uint32_t cpu, const void *slab);
};

/* Make the sheaves of one cache: every CPU's main sheaf empty
 * (init_percpu_sheaves), no spare, an empty barn. capacity >= 1.
 * 0 or SLABSIM_ENOMEM / SLABSIM_EUSAGE. */
int sheaves_init(struct sheaves *sh, uint32_t capacity, uint32_t nr_cpus, enum sheaves_rule rule,
		 struct err *e);
/* Free the arrays (objects still parked are simply dropped). */
void sheaves_fini(struct sheaves *sh);

/* alloc_from_pcs on cpu: OUT *got = true and *out when the sheaves served
 * the allocation (refilling from slabs through ops if needed). Returns 0 or
 * an error of ops->refill. */
int sheaves_alloc(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
		  struct sheaf_obj *out, bool *got, struct err *e);
/* free_to_pcs on cpu: the object is parked in the CPU's main sheaf, after
 * making room (spare, barn, a new sheaf, flushing the spare when the barn
 * holds SHEAVES_MAX_FULL full sheaves). */
void sheaves_free(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
		  struct sheaf_obj o);
/* One object of kmem_cache_free_bulk on cpu (free_to_pcs_bulk): into the
 * main sheaf while it has room; a full main is swapped with an empty sheaf
 * of the barn (no spare), or with a spare that has room, or given to the
 * barn for an empty one (barn_replace_full_sheaf); where none of these can
 * be (no empty sheaf in the barn, or SHEAVES_MAX_FULL full ones there) the
 * object goes straight to its slab. Unlike sheaves_free, no sheaf is made.
 * Returns true when parked, false when ops->flush took it. Objects of one
 * bulk call taken one at a time end as the kernel's batches do: once an
 * object goes to its slab, every later one of the call does too. */
bool sheaves_free_bulk(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
		       struct sheaf_obj o);
/* __kfree_rcu_sheaf on cpu: the object goes into the CPU's rcu_free sheaf;
 * when that is full it is handed to RCU, and after the grace period
 * rcu_free_sheaf puts it in the barn as a full sheaf, or, with
 * SHEAVES_MAX_FULL there, flushes it to the slabs and keeps it as an empty
 * sheaf (below SHEAVES_MAX_EMPTY) or frees it. The model runs the RCU
 * callback at once: a grace period is not modelled here. */
void sheaves_free_rcu(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
		      struct sheaf_obj o);

/* Placement from the trace's addresses (policies/slub.c, place_by_address):
 * find an object of slab parked anywhere (CPU cpu's main, spare and
 * rcu_free sheaves, then the other CPUs', then the barn's full sheaves),
 * put repl in its place and return it in *out. Every count stays as it
 * was (both objects are allocated in their slabs). False when none of
 * slab's objects is parked. */
bool sheaves_swap(struct sheaves *sh, uint32_t cpu, const void *slab, struct sheaf_obj repl,
		  struct sheaf_obj *out);

/* The kernel discarded the slab these objects' kernel slab is (a page free,
 * sim/pgfree.h), so its sheaves held none of them: take every object of
 * slab out of the sheaves and the barn on cpu's behalf and give them back
 * to their slab (ops->flush), then tell ops->gone (also when none was
 * parked). Main, spare and
 * rcu_free sheaves shrink; a full sheaf of the barn is refilled from
 * slabs to stay full, after ops->gone (the refill must not take the gone
 * slab's objects again). 0 or SLABSIM_ENOMEM. */
int sheaves_unpark(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
		   const void *slab, struct err *e);

/* Objects held in sheaf sh of cpu (main, spare or rcu_free) or in the barn,
 * for tests: main size, spare size (-1 = none), rcu_free size (-1). */
void sheaves_cpu_sizes(const struct sheaves *sh, uint32_t cpu, int32_t out[3]);
/* Recount parked objects and sheaves; SLABSIM_EMODEL on a mismatch. */
int sheaves_check(const struct sheaves *sh, const char *name, struct err *e);
/* Call fn for every parked object (check walks). */
void sheaves_for_each(const struct sheaves *sh, void (*fn)(void *arg, struct sheaf_obj o),
		      void *arg);

/* 7.0 calculate_sheaf_capacity() for a cache of slot size `size` (s->size)
 * that the source does not exempt: 4 objects from PAGE_SIZE up, 12 from
 * 1024, 26 from 256, else 60; then raised until the sheaf (a 32-byte
 * header and 8 bytes an object) fills the kmalloc size it rounds up to;
 * an explicit kmem_cache_args.sheaf_capacity wins when larger. */
uint32_t sheaves_capacity_7_0(uint32_t size, uint32_t explicit_capacity);

#endif
