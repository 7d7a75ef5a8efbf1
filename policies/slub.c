/* slub.c - a model of SLUB (mm/slub.c) as of Linux 5.4, with the 6.1
 * differences selected by cfg.kernel.
 *
 * What is modelled is what decides how many pages a cache holds: the per-CPU
 * slab and its lockless freelist, the per-CPU partial list, the node partial
 * list with min_partial, debug caches' slow paths, and when an empty slab goes
 * back to the (simulated) buddy allocator. One NUMA node; no memory pressure
 * (slabs always get their preferred order); no CONFIG_SLAB_FREELIST_RANDOM
 * (it permutes objects inside a slab, which changes no page count).
 *
 * Object layout of one slot (computed by layout_slub, see layout.c):
 *
 *   slab start + i * size
 *   | red_left_pad | object_size | RZ / word slack .. inuse |
 *   | free pointer (if moved out) | track alloc | track free | [orig_size] |
 *   | padding word (Z) | round up to align |  = size
 *
 * Invariants (checked by slub_check): a slab is on exactly one of: a CPU's
 * slab, a CPU's partial stack (both "frozen"), the node partial list, the
 * full list (debug caches only), or no list (full, non-debug); slab->inuse
 * is the kernel's: objects not on the slab's own freelist, so a CPU slab's
 * lockless freelist counts as in use.
 *
 * Kernel functions followed (5.4 unless noted): ___slab_alloc, get_partial_node
 * (6.1: counts slabs, not objects), acquire_slab, put_cpu_partial (6.1:
 * cpu_partial_slabs), unfreeze_partials, deactivate_slab (5.4 pushes the CPU
 * freelist back one by one, reversing it; 6.1 splices it), __slab_free,
 * discard_slab, find_mergeable and __kmem_cache_alias.
 */
#include "buckets.h"
#include "buddy.h"
#include "cache_facts.h"
#include "grow.h"
#include "layout.h"
#include "policies_int.h"
#include "sheaves.h"
#include "u64map.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How far down the node partial list place_unseen looks for an unbound
 * slab (a bound on the work per allocation). */
#define PLACE_PARTIAL_SCAN 256

enum where {
	ON_NONE = 0,	 /* full, unfrozen, on no list */
	ON_NODE_PARTIAL, /* n->partial */
	ON_FULL,	 /* n->full (debug caches) */
	ON_CPU,		 /* some CPU's c->slab */
	ON_CPU_PARTIAL,	 /* some CPU's c->partial stack */
};

struct slab {
	uint64_t base;
	uint64_t bound; /* the kernel's slab its objects' trace addresses lie in
			   (place_by_address), 0 for none */
	uint32_t cache; /* root cache id */
	uint32_t objects;
	uint32_t inuse;	  /* objects not on this slab's own freelist */
	int32_t freelist; /* head of the slab's freelist, -1 when empty */
	uint8_t where;
	uint8_t frozen;
	uint8_t start; /* made for the start state (prepopulate, start_slab) */
	uint32_t cpu;
	struct slab *prev, *next; /* node partial or full list */
	struct slab *pnext;	  /* per-CPU partial stack */
	uint32_t pobjects;	  /* 5.4: free objects of the stack from here down, at push time */
	uint32_t pslabs;	  /* slabs of the stack from here down */
	int32_t next_free[];	  /* per object: next free index, -1 ends */
};

struct cpu_state {
	struct slab *slab; /* c->slab (c->page in 5.4) */
	int32_t freelist;  /* c->freelist, objects of c->slab */
	struct slab *partial;
};

struct slab_list {
	struct slab *head, *tail;
	uint64_t nr;
};

struct cache {
	char *name;
	uint32_t root;
	bool kmalloc;
	bool no_merge;
	bool ctor;
	uint32_t usersize;
	struct policy_geom g;
	/* root caches only: */
	struct cpu_state *cpus;
	struct slab_list partial, full;
	uint64_t partial_free; /* free objects on node-partial slabs */
	uint64_t nr_cpu_slabs; /* slabs that are CPU slabs or on per-CPU partial stacks */
	uint64_t nr_slabs, live, slabs_allocated, slabs_freed;
	struct sheaves *sh; /* per-CPU sheaves and the barn (6.18+), or NULL */
	/* place_addr: the kernel's slab (the base of the slab its trace
	 * addresses lie in) -> the model's slab given to it (place_by_address) */
	struct u64map bound;
	bool place_addr; /* place_by_address applies */
	/* SLAB_TYPESAFE_BY_RCU, by its flags or, for a cache the trace alone
	 * names (no flags), the source's: free_slab() hands its pages back
	 * after a grace period (call_rcu -> rcu_free_slab) */
	bool rcu_pages;
	bool started; /* given a start state (prepopulate, start_slab) */
};

struct slub {
	struct policy base;
	struct buddy buddy;
	struct cache *caches;
	uint32_t nr_caches;
	size_t cap_caches;
	uint32_t kmalloc_ids[POLICY_KMALLOC_NR_TYPES][LAYOUT_SLUB_KMALLOC_SHIFT_HIGH + 1];
	/* per kmalloc type, its kmalloc_ids row after layout_kmalloc_type, and
	 * layout_kmalloc_index of sizes up to 192 by (size - 1) / 8: the
	 * lookup of every kmalloc without calls */
	const uint32_t *kmalloc_row[POLICY_KMALLOC_NR_TYPES];
	uint8_t small_index[24];
	/* kmem_buckets sets and random kmalloc copies (buckets.h), by
	 * kmalloc index; NULL until the profile creates them */
	uint32_t (*bucket_ids)[LAYOUT_SLUB_KMALLOC_SHIFT_HIGH + 1]; /* [POLICY_BUCKETS_NR] */
	uint32_t (*rnd_ids)[LAYOUT_SLUB_KMALLOC_SHIFT_HIGH + 1];    /* [random_kmalloc + 1] */
	/* slab base address -> struct slab *, by the base's page in the buddy
	 * arena (slab_find): one load at a free, where a hashed map took a
	 * hash, a probe and a cache miss more (the arena is dense) */
	struct slab **slab_at;
	size_t slab_at_cap;
	struct policy_pages pages; /* slab and large-kmalloc pages */
	uint64_t large_objs;
	/* the root caches place_by_address applies to (a few) */
	uint32_t *place_ids;
	uint32_t nplace;
	bool no_cpu; /* no_cpu_slabs(), fixed by the profile */
	/* the trace shows the kernel's slab page frees (policy_ops.pages_traced):
	 * a bound slab lives until its kernel slab's page is freed */
	bool pages_traced;
	struct policy_pages_ahead ahead; /* freed_soon NULL: none */
	/* policy_ops.start_moves: NULL none */
	bool (*start_move)(void *ctx, uint64_t from, uint64_t to);
	void *move_ctx;
	uint64_t parked_rehomed; /* policy_stats */
	/* emptied slabs kept for their kernel slab (keeps_bound), by base,
	 * for rehome_kept after the operation that emptied them */
	uint64_t *kept;
	uint32_t nkept, kept_cap;
	bool rehoming;
};

static bool is_61(const struct slub *s)
{
	return s->base.cfg.kernel >= POLICY_KERNEL_6_1;
}

static bool cache_debug(const struct cache *k)
{
	return (k->g.flags & POLICY_F_DEBUG_MASK) != 0;
}

/* 7.0: struct kmem_cache_cpu and CONFIG_SLUB_CPU_PARTIAL are gone: no CPU
 * slabs, no per-CPU partial lists (policies/sheaves.h) */
static bool is_70(const struct slub *s)
{
	return s->base.cfg.kernel >= POLICY_KERNEL_7_0;
}

/* SLUB_TINY (6.2+) has no struct kmem_cache_cpu either
 * (alloc_kmem_cache_cpus is under #ifndef CONFIG_SLUB_TINY) and no per-CPU
 * partial lists (SLUB_CPU_PARTIAL depends on !SLUB_TINY): 6.12's TINY
 * __slab_alloc_node takes one object from the first node partial slab
 * (get_partial_node, alloc_single_from_partial), else from a new slab put
 * at the head of the partial list (alloc_single_from_new_slab), as 7.0
 * does without sheaves; a free goes to the slab (__slab_free), and with
 * MIN_PARTIAL 0 an emptied slab goes back to the page allocator. */
static bool no_cpu_slabs(const struct slub *s)
{
	return s->no_cpu; /* is_70(s) || slub_tiny, read on every event */
}

static bool has_cpu_partial(const struct slub *s, const struct cache *k)
{
	return s->base.cfg.cpu_partial && !cache_debug(k) && !no_cpu_slabs(s);
}

static uint64_t slab_bytes(const struct cache *k)
{
	return (uint64_t)POLICY_PAGE_SIZE << k->g.order;
}

/* ---- lists ---- */

static void list_add(struct slab_list *l, struct slab *sl, bool tail)
{
	sl->prev = sl->next = NULL;
	if (!l->head) {
		l->head = l->tail = sl;
	} else if (tail) {
		sl->prev = l->tail;
		l->tail->next = sl;
		l->tail = sl;
	} else {
		sl->next = l->head;
		l->head->prev = sl;
		l->head = sl;
	}
	l->nr++;
}

static void list_del(struct slab_list *l, struct slab *sl)
{
	if (sl->prev)
		sl->prev->next = sl->next;
	else
		l->head = sl->next;
	if (sl->next)
		sl->next->prev = sl->prev;
	else
		l->tail = sl->prev;
	sl->prev = sl->next = NULL;
	l->nr--;
}

static bool on_cpu(uint8_t where)
{
	return where == ON_CPU || where == ON_CPU_PARTIAL;
}

/* Every change of a slab's place goes through here, so the per-cache counts
 * that slabinfo needs stay O(1) to read. */
static void set_where(struct cache *k, struct slab *sl, enum where w)
{
	if (on_cpu(sl->where) && !on_cpu(w))
		k->nr_cpu_slabs--;
	else if (!on_cpu(sl->where) && on_cpu(w))
		k->nr_cpu_slabs++;
	sl->where = (uint8_t)w;
}

static void add_partial(struct cache *k, struct slab *sl, bool tail)
{
	set_where(k, sl, ON_NODE_PARTIAL);
	list_add(&k->partial, sl, tail);
	k->partial_free += sl->objects - sl->inuse;
}

static void remove_partial(struct cache *k, struct slab *sl)
{
	list_del(&k->partial, sl);
	k->partial_free -= sl->objects - sl->inuse;
	set_where(k, sl, ON_NONE);
}

/* ---- slabs and pages ---- */

/* The slab whose base is base, or NULL (no slab starts there, or base is
 * not a page of the buddy arena). */
static inline struct slab *slab_find(const struct slub *s, uint64_t base)
{
	uint64_t i = (base - BUDDY_BASE) >> POLICY_PAGE_SHIFT;
	if (i >= s->slab_at_cap || (base & (POLICY_PAGE_SIZE - 1)))
		return NULL;
	return s->slab_at[i];
}

static int slab_enter(struct slub *s, struct slab *sl)
{
	uint64_t i = (sl->base - BUDDY_BASE) >> POLICY_PAGE_SHIFT;
	if (i >= s->slab_at_cap) {
		struct slab **n = grow_to(s->slab_at, &s->slab_at_cap, i, sizeof(*n), 1024);
		if (!n)
			return SLABSIM_ENOMEM;
		s->slab_at = n;
	}
	s->slab_at[i] = sl;
	return 0;
}

static int new_slab(struct slub *s, struct cache *k, struct slab **out, struct err *e)
{
	uint32_t n = k->g.objs_per_slab;
	struct slab *sl = malloc(sizeof(*sl) + n * sizeof(int32_t));
	if (!sl)
		return err_set(e, SLABSIM_ENOMEM, "out of memory for a slab of %s", k->name);
	int rc = buddy_alloc(&s->buddy, k->g.order, &sl->base);
	if (!rc)
		rc = slab_enter(s, sl);
	if (rc) {
		free(sl);
		return err_set(e, SLABSIM_ENOMEM, "out of memory for a slab of %s", k->name);
	}
	sl->cache = (uint32_t)(k - s->caches);
	sl->objects = n;
	sl->inuse = 0;
	sl->where = ON_NONE;
	sl->frozen = 0;
	sl->start = 0;
	sl->cpu = 0;
	sl->prev = sl->next = sl->pnext = NULL;
	sl->pobjects = sl->pslabs = 0;
	sl->bound = 0;
	/* address order: the first allocation gets the lowest address */
	for (uint32_t i = 0; i < n; i++)
		sl->next_free[i] = i + 1 < n ? (int32_t)(i + 1) : -1;
	sl->freelist = n ? 0 : -1;
	k->nr_slabs++;
	k->slabs_allocated++;
	s->pages.slab += 1ULL << k->g.order;
	*out = sl;
	return 0;
}

/* Forget sl's kernel slab (place_by_address): its slab went away, in the
 * kernel or in the model. */
static void unbind(struct cache *k, struct slab *sl)
{
	uint64_t v;
	if (sl->bound && u64map_get(&k->bound, sl->bound, &v) && v == (uint64_t)(uintptr_t)sl)
		(void)u64map_del(&k->bound, sl->bound, NULL);
	sl->bound = 0;
}

/* Whether an emptied slab goes back to the page allocator.
 *
 * By the rules, when the node partial list holds min_partial slabs. Once
 * the trace shows the page frees (pages_traced), not one bound to a kernel
 * slab whose page has not been freed: the kernel discards a slab the moment
 * it holds no object in use and frees its page at once (discard_slab ->
 * free_slab -> __free_slab -> free_frozen_pages, traced as mm_page_free),
 * so that kernel slab still held one, an object the model has elsewhere
 * (parked, or a start object). It goes when its page does
 * (slub_unpark_slab).
 *
 * A SLAB_TYPESAFE_BY_RCU cache's (vm_area_struct) pages go a grace period
 * after the discard (free_slab: call_rcu -> rcu_free_slab), so there a page
 * not freed yet proves nothing. Under the look-ahead such a slab goes when
 * its page is freed within the window, wherever the model holds it (node
 * partial list under min_partial, or a per-CPU partial stack: rcu_gone),
 * since the kernel discarded it then (the page follows the slab's last
 * traced free by 14 ms at the median, 26 ms at p99 on a capture of this
 * kind); else it is kept until its page free. Without a look-ahead it
 * goes by the rules (read in torvalds/linux v6.18, mm/slub.c). */
static bool keeps_bound(const struct slub *s, const struct cache *k)
{
	return s->pages_traced && (!k->rcu_pages || s->ahead.freed_soon);
}

/* out of line: they run only for an emptied slab, and inline they cost
 * every free a larger frame (15 instructions per free on the bench trace) */
__attribute__((noinline)) static bool rcu_gone(const struct slub *s, const struct cache *k,
					       const struct slab *sl)
{
	return k->rcu_pages && sl->bound && s->ahead.freed_soon &&
	       s->ahead.freed_soon(s->ahead.ctx, sl->bound);
}

/* An emptied bound slab that the rules would give back (the node partial
 * list holds min_partial slabs) but that empty_goes keeps because its
 * kernel slab's page has not been freed (keeps_bound): noted for
 * rehome_kept, for a cache with sheaves. */
static void note_kept(struct slub *s, const struct cache *k, const struct slab *sl)
{
	if (s->rehoming || !k->sh)
		return;
	if (s->nkept == s->kept_cap) {
		uint32_t ncap = s->kept_cap ? s->kept_cap * 2 : 16;
		uint64_t *n = realloc(s->kept, ncap * sizeof(*n));
		if (!n)
			return; /* a hint: dropping it loses nothing but the move */
		s->kept = n;
		s->kept_cap = ncap;
	}
	s->kept[s->nkept++] = sl->base;
}

/* Reached only when the rules would give sl back (min_partial) or for a
 * SLAB_TYPESAFE_BY_RCU cache: a slab kept here for its kernel slab is
 * noted (note_kept). */
__attribute__((noinline)) static bool empty_goes_slow(struct slub *s, const struct cache *k,
						      const struct slab *sl)
{
	if (sl->bound && keeps_bound(s, k)) {
		if (k->rcu_pages)
			return rcu_gone(s, k, sl);
		note_kept(s, k, sl);
		return false;
	}
	return k->partial.nr >= k->g.min_partial;
}

/* the common case (the rules keep it) decided without a call; an emptied
 * slab kept for its kernel slab is noted for rehome_kept */
static inline bool empty_goes(struct slub *s, const struct cache *k, const struct slab *sl)
{
	return (k->partial.nr >= k->g.min_partial || k->rcu_pages) && empty_goes_slow(s, k, sl);
}

static void discard_slab(struct slub *s, struct cache *k, struct slab *sl)
{
	set_where(k, sl, ON_NONE);
	unbind(k, sl);
	s->slab_at[(sl->base - BUDDY_BASE) >> POLICY_PAGE_SHIFT] = NULL;
	(void)buddy_free(&s->buddy, sl->base, k->g.order);
	k->nr_slabs--;
	k->slabs_freed++;
	s->pages.slab -= 1ULL << k->g.order;
	free(sl);
}

static uint64_t obj_addr(const struct cache *k, const struct slab *sl, int32_t idx)
{
	return sl->base + k->g.red_left_pad + (uint64_t)idx * k->g.size;
}

/* ---- per-CPU partial lists ---- */

/* Unfreeze a detached per-CPU partial stack: each slab, top first, is freed
 * if empty while the node already holds min_partial partial slabs, else it
 * goes to the tail of the node partial list. */
static void unfreeze_partials(struct slub *s, struct cache *k, struct slab *top)
{
	while (top) {
		struct slab *sl = top;
		top = sl->pnext;
		sl->pnext = NULL;
		sl->frozen = 0;
		if (sl->inuse == 0 && empty_goes(s, k, sl))
			discard_slab(s, k, sl);
		else
			add_partial(k, sl, true);
	}
}

/* put_cpu_partial, inline in the free path (free_obj_in), where a full
 * slab's first free takes it: more than half the frees of a trace */
static inline __attribute__((always_inline)) void
put_cpu_partial_in(struct slub *s, struct cache *k, struct slab *sl, uint32_t cpu, bool drain)
{
	struct cpu_state *c = &k->cpus[cpu];
	struct slab *old = c->partial;
	struct slab *to_unfreeze = NULL;
	uint32_t pobjects = 0, pslabs = 0;

	if (old) {
		if (is_61(s)) {
			if (drain && old->pslabs >= k->g.cpu_partial_slabs) {
				to_unfreeze = old;
				old = NULL;
			} else {
				pslabs = old->pslabs;
			}
		} else {
			pobjects = old->pobjects;
			pslabs = old->pslabs;
			if (drain && pobjects > k->g.cpu_partial) {
				to_unfreeze = old;
				old = NULL;
				pobjects = pslabs = 0;
			}
		}
	}
	c->partial = NULL;
	if (to_unfreeze)
		unfreeze_partials(s, k, to_unfreeze);
	pslabs++;
	pobjects += sl->objects - sl->inuse;
	sl->pslabs = pslabs;
	sl->pobjects = pobjects;
	sl->pnext = old;
	sl->frozen = 1;
	set_where(k, sl, ON_CPU_PARTIAL);
	sl->cpu = cpu;
	c->partial = sl;
}

static void put_cpu_partial(struct slub *s, struct cache *k, struct slab *sl, uint32_t cpu,
			    bool drain)
{
	put_cpu_partial_in(s, k, sl, cpu, drain);
}

/* Take sl off its CPU's partial stack (a slab the kernel discarded): the
 * slabs above it counted it, and its free objects at its push. */
static void remove_cpu_partial(struct cache *k, struct slab *sl)
{
	uint32_t own = sl->pobjects - (sl->pnext ? sl->pnext->pobjects : 0);
	struct slab **pp = &k->cpus[sl->cpu].partial;
	while (*pp && *pp != sl) {
		(*pp)->pslabs--;
		(*pp)->pobjects -= own;
		pp = &(*pp)->pnext;
	}
	if (*pp)
		*pp = sl->pnext;
	sl->pnext = NULL;
	sl->frozen = 0;
	set_where(k, sl, ON_NONE);
}

/* acquire_slab() for the CPU slab: freeze it and move its whole freelist to
 * the CPU's lockless freelist (all its objects now count as in use). */
static void make_cpu_slab(struct cache *k, struct cpu_state *c, struct slab *sl, uint32_t cpu)
{
	sl->frozen = 1;
	set_where(k, sl, ON_CPU);
	sl->cpu = cpu;
	c->slab = sl;
	c->freelist = sl->freelist;
	sl->freelist = -1;
	sl->inuse = sl->objects;
}

/* get_partial_node: the head slab becomes the CPU slab with its whole
 * freelist; further slabs are frozen onto the CPU's partial stack until
 * enough free objects (5.4) or slabs (6.1) were taken. */
static bool get_partial(struct slub *s, struct cache *k, uint32_t cpu)
{
	struct cpu_state *c = &k->cpus[cpu];
	struct slab *sl = k->partial.head;
	uint32_t available = 0, partial_slabs = 0;
	bool first = true;

	if (!sl)
		return false;
	while (sl) {
		struct slab *next = sl->next;
		uint32_t nfree = sl->objects - sl->inuse;
		remove_partial(k, sl);
		if (first) {
			make_cpu_slab(k, c, sl, cpu);
			first = false;
		} else {
			put_cpu_partial(s, k, sl, cpu, false);
			partial_slabs++;
		}
		available += nfree;
		if (!has_cpu_partial(s, k))
			break;
		if (is_61(s) ? partial_slabs > k->g.cpu_partial_slabs / 2
			     : available > k->g.cpu_partial / 2)
			break;
		sl = next;
	}
	return true;
}

/* deactivate_slab: give a CPU freelist back to its slab and put the slab
 * where it belongs. */
static void deactivate_slab(struct slub *s, struct cache *k, struct slab *sl, int32_t cpu_free)
{
	bool tail = sl->freelist >= 0; /* remote frees arrived: DEACTIVATE_TO_TAIL */

	if (is_61(s)) {
		if (cpu_free >= 0) {
			int32_t last = cpu_free;
			uint32_t cnt = 1;
			while (sl->next_free[last] >= 0) {
				last = sl->next_free[last];
				cnt++;
			}
			sl->next_free[last] = sl->freelist;
			sl->freelist = cpu_free;
			sl->inuse -= cnt;
		}
	} else {
		while (cpu_free >= 0) {
			int32_t nx = sl->next_free[cpu_free];
			sl->next_free[cpu_free] = sl->freelist;
			sl->freelist = cpu_free;
			sl->inuse--;
			cpu_free = nx;
		}
	}
	sl->frozen = 0;
	if (sl->inuse == 0 && empty_goes(s, k, sl)) {
		discard_slab(s, k, sl);
	} else if (sl->freelist >= 0) {
		add_partial(k, sl, tail);
	} else if (cache_debug(k)) {
		set_where(k, sl, ON_FULL);
		list_add(&k->full, sl, true);
	} else {
		set_where(k, sl, ON_NONE);
	}
}

/* ---- allocation and free ---- */

static int alloc_debug(struct slub *s, struct cache *k, struct slab **osl, int32_t *oidx,
		       struct err *e)
{
	struct slab *sl = k->partial.head;
	if (sl) {
		remove_partial(k, sl);
	} else {
		int rc = new_slab(s, k, &sl, e);
		if (rc)
			return rc;
	}
	/* acquire_slab takes the whole freelist; the first object is handed
	 * out and the rest goes back through deactivate_slab */
	int32_t idx = sl->freelist;
	int32_t rest = sl->next_free[idx];
	sl->freelist = -1;
	sl->inuse = sl->objects;
	sl->frozen = 1;
	deactivate_slab(s, k, sl, rest);
	*osl = sl;
	*oidx = idx;
	return 0;
}

/* alloc_obj's other cases, inline too: half the allocations of a trace
 * take them (the CPU freelist drained), and the call cost more than the
 * code it saved from slub_alloc's fast path */
static inline __attribute__((always_inline)) int alloc_obj_slow(struct slub *s, struct cache *k,
								uint32_t cpu, struct slab **osl,
								int32_t *oidx, struct err *e)
{
	if (cache_debug(k))
		return alloc_debug(s, k, osl, oidx, e);

	struct cpu_state *c = &k->cpus[cpu];
	for (;;) {
		if (c->freelist >= 0) {
			struct slab *sl = c->slab;
			int32_t idx = c->freelist;
			c->freelist = sl->next_free[idx];
			*osl = sl;
			*oidx = idx;
			return 0;
		}
		if (c->slab) {
			struct slab *sl = c->slab;
			if (sl->freelist >= 0) { /* get_freelist */
				c->freelist = sl->freelist;
				sl->freelist = -1;
				sl->inuse = sl->objects;
				continue;
			}
			/* full: unfrozen, on no list */
			sl->frozen = 0;
			set_where(k, sl, ON_NONE);
			c->slab = NULL;
		}
		if (c->partial) {
			struct slab *sl = c->partial;
			c->partial = sl->pnext;
			sl->pnext = NULL;
			set_where(k, sl, ON_CPU);
			c->slab = sl;
			continue;
		}
		if (get_partial(s, k, cpu))
			continue;
		struct slab *sl;
		int rc = new_slab(s, k, &sl, e);
		if (rc)
			return rc;
		make_cpu_slab(k, c, sl, cpu);
	}
}

/* An object of k's CPU slab for cpu: its freelist's first (the fast
 * path), else alloc_obj_slow. */
static inline int alloc_obj(struct slub *s, struct cache *k, uint32_t cpu, struct slab **osl,
			    int32_t *oidx, struct err *e)
{
	struct cpu_state *c = &k->cpus[cpu];
	if (__builtin_expect(!cache_debug(k) && c->freelist >= 0, 1)) {
		struct slab *sl = c->slab;
		int32_t idx = c->freelist;
		c->freelist = sl->next_free[idx];
		*osl = sl;
		*oidx = idx;
		return 0;
	}
	return alloc_obj_slow(s, k, cpu, osl, oidx, e);
}

/* free_obj, inline in the free path of every kfree and kmem_cache_free
 * without sheaves (free_any): the calls cost a tenth of it */
static inline __attribute__((always_inline)) void
free_obj_in(struct slub *s, struct cache *k, struct slab *sl, int32_t idx, uint32_t cpu)
{
	struct cpu_state *c = &k->cpus[cpu];

	if (sl == c->slab) { /* fast path */
		sl->next_free[idx] = c->freelist;
		c->freelist = idx;
		return;
	}
	bool was_frozen = sl->frozen;
	bool prior = sl->freelist >= 0;
	sl->next_free[idx] = sl->freelist;
	sl->freelist = idx;
	sl->inuse--;
	if (sl->where == ON_NODE_PARTIAL)
		k->partial_free++;
	if (was_frozen) {
		/* emptied on a per-CPU partial stack, where the rules keep it */
		if (sl->inuse == 0 && sl->where == ON_CPU_PARTIAL && rcu_gone(s, k, sl)) {
			remove_cpu_partial(k, sl);
			discard_slab(s, k, sl);
		}
		return;
	}
	if (has_cpu_partial(s, k) && !prior) {
		put_cpu_partial_in(s, k, sl, cpu, true);
		return;
	}
	if (sl->inuse == 0 && empty_goes(s, k, sl)) {
		if (prior)
			remove_partial(k, sl);
		else if (sl->where == ON_FULL)
			list_del(&k->full, sl);
		discard_slab(s, k, sl);
		return;
	}
	if (!prior) { /* only without per-CPU partial lists */
		if (sl->where == ON_FULL)
			list_del(&k->full, sl);
		add_partial(k, sl, true);
	}
}

static void free_obj(struct slub *s, struct cache *k, struct slab *sl, int32_t idx, uint32_t cpu)
{
	free_obj_in(s, k, sl, idx, cpu);
}

/* ---- 7.0: no CPU slabs ---- */

/* Take the first free object of sl (get_freepointer of its freelist). */
static int32_t pop_free(struct slab *sl)
{
	int32_t idx = sl->freelist;
	sl->freelist = sl->next_free[idx];
	sl->inuse++;
	return idx;
}

/* 7.0 ___slab_alloc for a cache with neither sheaves nor debugging (the
 * boot caches, SLAB_NOLEAKTRACE ones, a node-bound request): one object
 * from the head slab of the node partial list, which leaves the list when
 * it has no free object left (get_from_partial_node); else a new slab, put
 * at the head of the partial list if it has more objects than the one
 * taken (alloc_from_new_slab with count 1). */
static int alloc_single_70(struct slub *s, struct cache *k, struct slab **osl, int32_t *oidx,
			   struct err *e)
{
	struct slab *sl = k->partial.head;
	if (sl) {
		*oidx = pop_free(sl);
		k->partial_free--;
		if (sl->freelist < 0)
			remove_partial(k, sl);
		*osl = sl;
		return 0;
	}
	int rc = new_slab(s, k, &sl, e);
	if (rc)
		return rc;
	*oidx = pop_free(sl);
	if (sl->objects > 1)
		add_partial(k, sl, false);
	*osl = sl;
	return 0;
}

/* 7.0 refill_objects(min = max = n): __refill_objects_node takes slabs off
 * the head of the node partial list until they hold n free objects
 * (get_partial_node_bulk) and takes each one's whole freelist
 * (get_freelist_nofreeze); what the last one has over is freed back as a
 * detached freelist, and __slab_free puts that slab, full until then, at
 * the tail of the partial list. Then new slabs (alloc_from_new_slab), each
 * put at the head of the partial list when it has more objects than were
 * still wanted. */
static int refill_70(struct slub *s, struct cache *k, struct sheaf_obj *out, uint32_t n,
		     struct err *e)
{
	uint32_t got = 0;
	while (got < n && k->partial.head) {
		struct slab *sl = k->partial.head;
		remove_partial(k, sl);
		while (got < n && sl->freelist >= 0) {
			out[got].slab = sl;
			out[got++].idx = pop_free(sl);
		}
		if (sl->freelist >= 0)
			add_partial(k, sl, true);
	}
	while (got < n) {
		struct slab *sl;
		uint32_t want = n - got;
		int rc = new_slab(s, k, &sl, e);
		if (rc)
			return rc;
		while (got < n && sl->freelist >= 0) {
			out[got].slab = sl;
			out[got++].idx = pop_free(sl);
		}
		if (sl->objects > want)
			add_partial(k, sl, false);
	}
	return 0;
}

/* ---- sheaves (policies/sheaves.h) ---- */

struct sheaf_ctx {
	struct slub *s;
	struct cache *k;
	uint64_t gone_base; /* sheaf_gone: the base of the slab unparked */
};

/* refill_sheaf's objects: 6.18 __kmem_cache_alloc_bulk takes them one by
 * one through the CPU slab (its lockless freelist, then ___slab_alloc);
 * 7.0 refill_objects takes whole slabs from the node list. */
static int sheaf_refill(void *ctx, uint32_t cpu, struct sheaf_obj *out, uint32_t n, struct err *e)
{
	struct sheaf_ctx *cx = ctx;
	if (is_70(cx->s))
		return refill_70(cx->s, cx->k, out, n, e);
	for (uint32_t i = 0; i < n; i++) {
		struct slab *sl;
		int rc = alloc_obj(cx->s, cx->k, cpu, &sl, &out[i].idx, e);
		if (rc)
			return rc;
		out[i].slab = sl;
	}
	return 0;
}

/* sheaf_flush_unused's __kmem_cache_free_bulk: each object back to its
 * slab as a free on this CPU would (6.18 do_slab_free: the fast path when
 * it is in the CPU slab; 7.0 __slab_free). The kernel frees objects of one
 * slab found close together in the array as one detached freelist; one at
 * a time ends in the same slabs, lists and pages. */
static void sheaf_flush(void *ctx, uint32_t cpu, const struct sheaf_obj *objs, uint32_t n)
{
	struct sheaf_ctx *cx = ctx;
	for (uint32_t i = 0; i < n; i++)
		free_obj(cx->s, cx->k, objs[i].slab, objs[i].idx, cpu);
}

/* Whether model slab y may stand for a kernel slab made when age says: a
 * start slab for one of before the trace, another for one made during it
 * (either when the trace does not tell). */
static bool age_fits(const struct slab *y, enum policy_slab_age age)
{
	return age == POLICY_SLAB_UNKNOWN || (age == POLICY_SLAB_OLD) == (y->start != 0);
}

/* The first slab on k's node partial list, within PLACE_PARTIAL_SCAN of
 * its head, that no kernel slab is bound to, has a free object and may
 * stand for a kernel slab of that age. */
static struct slab *unbound_partial(const struct cache *k, enum policy_slab_age age)
{
	uint32_t looked = 0;
	for (struct slab *y = k->partial.head; y && looked < PLACE_PARTIAL_SCAN;
	     y = y->next, looked++)
		if (!y->bound && y->freelist >= 0 && age_fits(y, age))
			return y;
	return NULL;
}

/* place_by_address for an object of a kernel slab no model slab is bound
 * to yet, when the allocator's object o lies in a slab bound to another
 * (or in one that cannot stand for it, age_fits): the kernel took it from
 * a slab the model has not seen, an untouched slab of the start state or a
 * new one. Objects of two kernel slabs sharing one model slab is what
 * packed the model's live objects into fewer slabs than the kernel's (a
 * third of the placed allocations of a 35-s mapping capture). So the
 * kernel slab gets its own model slab: the first unbound one on the node
 * partial list with a free object that can stand for it (the start state's
 * untouched partial slabs are there, get_partial_node takes from the
 * head), else, for a cache given a start state, a new slab; a kernel slab
 * made during the trace always gets a new one. o goes back to its slab. */
static int place_unseen(struct slub *s, struct cache *k, uint32_t cpu, uint64_t key,
			enum policy_slab_age age, struct sheaf_obj *o, struct err *e)
{
	/* a kernel slab made during the trace gets a new one (binding slabs
	 * the model made and had not met yet to them lost pages on the
	 * captures without page allocations); one of before it a start slab */
	struct slab *w = age == POLICY_SLAB_NEW ? NULL : unbound_partial(k, age);
	int32_t idx;
	if (!w && !k->started)
		return 0; /* no start state: the kernel slab was one the trace
			     never showed, not a new one; the object stays */
	if (w) {
		idx = pop_free(w);
		k->partial_free--;
		if (w->freelist < 0)
			remove_partial(k, w);
	} else {
		int rc = new_slab(s, k, &w, e);
		if (rc)
			return rc;
		idx = pop_free(w);
		if (w->freelist >= 0)
			add_partial(k, w, true);
	}
	if (u64map_put(&k->bound, key, (uint64_t)(uintptr_t)w))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	w->bound = key;
	free_obj(s, k, o->slab, o->idx, cpu);
	o->slab = w;
	o->idx = idx;
	return 0;
}

/* The free object of y that a move into y takes (start_out,
 * rehome_parked), taken only where no list but the node partial one
 * changes: a node partial slab's, a CPU slab's lockless freelist or its
 * own, a per-CPU partial slab's but never its last (__put_partials would
 * move it to the node partial list). With take, it is taken. Returns its
 * index, or -1. */
static int32_t free_for_move(struct cache *k, struct slab *y, bool take)
{
	struct cpu_state *c = y->where == ON_CPU ? &k->cpus[y->cpu] : NULL;
	int32_t idx;
	if (y->where == ON_NODE_PARTIAL && y->freelist >= 0) {
		if (!take)
			return y->freelist;
		idx = pop_free(y);
		k->partial_free--;
		if (y->freelist < 0)
			remove_partial(k, y);
		return idx;
	}
	if (c && c->slab == y && c->freelist >= 0) {
		idx = c->freelist;
		if (take)
			c->freelist = y->next_free[idx];
		return idx;
	}
	if (y->freelist >= 0 &&
	    (y->where == ON_CPU || (y->where == ON_CPU_PARTIAL && y->next_free[y->freelist] >= 0)))
		return take ? pop_free(y) : y->freelist;
	return -1;
}

/* What a move looks for (move_slab): a slab with a free object for it
 * (free_for_move), other than `except`, a start slab (start_out: unbound ones
 * first) or one bound to a kernel slab (rehome_parked). */
struct move_want {
	const struct slab *except;
	bool start;
};

/* 2: y is the one; 1: a fallback (a bound start slab); 0: not. */
static int move_rank(struct cache *k, struct slab *y, const struct move_want *w)
{
	if (!y || y == w->except || free_for_move(k, y, false) < 0)
		return 0;
	if (!w->start)
		return y->bound ? 2 : 0;
	return !y->start ? 0 : y->bound ? 1 : 2;
}

/* move_slab's look at y (may be NULL): true when it is the one; the first
 * fallback is kept in *fallback. */
static bool move_better(struct cache *k, struct slab *y, const struct move_want *w,
			struct slab **fallback)
{
	int r = move_rank(k, y, w);
	if (r == 1 && !*fallback)
		*fallback = y;
	return r == 2;
}

/* The slab a move goes to: the first ranked 2, else the first ranked 1,
 * on the node partial list (within PLACE_PARTIAL_SCAN), then each CPU's
 * CPU slab and per-CPU partial stack. NULL: none. */
static struct slab *move_slab(const struct slub *s, struct cache *k, const struct move_want *w)
{
	struct slab *fallback = NULL;
	uint32_t looked = 0;
	for (struct slab *y = k->partial.head; y && looked < PLACE_PARTIAL_SCAN;
	     y = y->next, looked++)
		if (move_better(k, y, w, &fallback))
			return y;
	for (uint32_t c = 0; c < s->base.cfg.nr_cpus; c++) {
		if (move_better(k, k->cpus[c].slab, w, &fallback))
			return k->cpus[c].slab;
		for (struct slab *y = k->cpus[c].partial; y; y = y->pnext)
			if (move_better(k, y, w, &fallback))
				return y;
	}
	return fallback;
}

/* place_by_address, after an object of x went into the sheaves in place of
 * one of the bound slab the allocation took (sheaves_swap): when x stands
 * for no kernel slab (the model made it and the trace never showed its
 * objects: no start slab either), the object parked in it lies, in the
 * kernel, in a slab the trace has shown, since every object the kernel
 * parks comes from its slabs. So one of x's parked objects trades places
 * with a free object of a bound slab (move_slab), and goes back to x,
 * which SLUB's rules give back once empty. Every count of objects and
 * sheaves stays as it was. */
static void rehome_parked(struct slub *s, struct cache *k, uint32_t cpu, struct slab *x)
{
	if (x->bound || x->start)
		return;
	struct move_want w = {.except = x, .start = false};
	struct slab *home = move_slab(s, k, &w);
	if (!home)
		return;
	int32_t idx = free_for_move(k, home, true);
	struct sheaf_obj z;
	if (!sheaves_swap(k->sh, cpu, x, (struct sheaf_obj){home, idx}, &z)) {
		free_obj(s, k, home, idx, cpu); /* none of x's parked: undo */
		return;
	}
	free_obj(s, k, x, z.idx, cpu);
	s->parked_rehomed++;
}

/* sheaves_for_each's callback for rehome_kept: the first slab found that
 * stands for no kernel slab (neither bound nor a start slab). */
static void find_unbound(void *arg, struct sheaf_obj o)
{
	const struct slab **x = arg;
	const struct slab *y = o.slab;
	if (!*x && !y->bound && !y->start)
		*x = y;
}

/* The slabs note_kept noted: an emptied slab kept because its kernel slab's
 * page has not been freed stands for a kernel slab that still holds an
 * object, one the model holds elsewhere. When an object is parked in a
 * slab that stands for no kernel slab, that one is the likely one (every
 * object the kernel parks comes from its slabs): it trades places with a
 * free object of the kept slab (as rehome_parked), and goes back to its
 * slab, which SLUB's rules give back once empty. */
static void rehome_kept(struct slub *s, uint32_t cpu)
{
	s->rehoming = true;
	while (s->nkept) {
		struct slab *sl = slab_find(s, s->kept[--s->nkept]);
		if (!sl || sl->inuse || !sl->bound)
			continue;
		struct cache *k = &s->caches[sl->cache];
		const struct slab *x = NULL;
		if (!k->sh)
			continue;
		sheaves_for_each(k->sh, find_unbound, &x);
		if (!x)
			continue;
		int32_t idx = free_for_move(k, sl, true);
		if (idx < 0)
			continue;
		struct sheaf_obj z;
		if (!sheaves_swap(k->sh, cpu, x, (struct sheaf_obj){sl, idx}, &z)) {
			free_obj(s, k, sl, idx, cpu);
			continue;
		}
		free_obj(s, k, (struct slab *)(uintptr_t)x, z.idx, cpu);
		s->parked_rehomed++;
	}
	s->rehoming = false;
}

/* place_by_address when the model slab `want` bound to the allocation's
 * kernel slab has no free object but is a start slab: the kernel's slab
 * had a free slot, so a start object put in `want` by the start state's
 * guess (it counts a cache's objects, not a slab's) lies in another kernel
 * slab of the start state. It moves (policy_ops.start_moves) to a
 * free slot of another start slab (move_slab), one no kernel slab is bound
 * to first (an untouched one), else one bound (its kernel slab's free
 * slots are as unknown). When no start slab has one, the start state
 * counted more live objects than the kernel's start slabs held: slabinfo
 * and sysfs count the free objects of CPU slabs and per-CPU partial slabs
 * as in use (the start state guesses them: half a slab where the trace
 * has not shown them), and objects parked in the sheaves the CPUs refilled
 * between record's shrink and its reading of the start state. The start
 * object was not live, and is dropped (the move to address 0). The slot
 * it leaves is the allocation's. Returns that slot, or -1 (no start
 * object there: the allocation stays outside). */
static int32_t start_out(struct slub *s, struct cache *k, struct slab *want)
{
	if (!s->start_move || !want->start)
		return -1;
	struct move_want w = {.except = want, .start = true};
	struct slab *to = move_slab(s, k, &w);
	uint64_t dest = to ? obj_addr(k, to, free_for_move(k, to, false)) : 0;
	for (uint32_t i = 0; i < want->objects; i++) {
		if (!s->start_move(s->move_ctx, obj_addr(k, want, (int32_t)i), dest))
			continue;
		if (to)
			(void)free_for_move(k, to, true);
		return (int32_t)i;
	}
	return -1;
}

/* Placement from the trace's addresses, for a place_addr cache (the
 * caches the 6.18 kernel gives sheaves, under the 6.18 and 7.0 profiles),
 * after the allocator chose object o (from the sheaves or the CPU slab
 * path). Which
 * objects share a slab is the page allocator's and, with
 * CONFIG_SLAB_FREELIST_RANDOM, a random permutation's choice: no rule of
 * the allocator tells it, but the trace's addresses show it. So the first
 * model slab an object of a kernel slab lands in is bound to that kernel
 * slab, and a later object of the same kernel slab is taken from the bound
 * slab when it has one free: one parked in a sheaf is swapped for o
 * (sheaves_swap), else one on a freelist (the CPU slab's lockless one, a
 * node partial slab's, a frozen slab's own but never a per-CPU partial
 * slab's last), for which o goes back to its slab. Counts of objects, sheaves and slabs are what
 * the allocator's rules made them; only which slab holds which object follows the addresses. */
static int place_by_address(struct slub *s, struct cache *k, uint32_t cpu,
			    const struct policy_alloc_req *r, struct sheaf_obj *o, struct err *e)
{
	uint64_t key = r->trace_ptr & ~(slab_bytes(k) - 1);
	struct slab *x = o->slab;
	uint64_t v;
	if (!u64map_get(&k->bound, key, &v)) {
		enum policy_slab_age age =
			r->trace_fresh ? r->trace_fresh(r->fresh_ctx, key, slab_bytes(k))
				       : POLICY_SLAB_UNKNOWN;
		/* a start slab stands for a kernel slab of before the trace,
		 * not for one the trace shows was made since (its page freed
		 * or given out before): that one gets a slab made since, as
		 * the kernel made; and where the trace shows every page given
		 * out, a kernel slab of before gets a start slab */
		if (!x->bound && age_fits(x, age)) {
			if (u64map_put(&k->bound, key, (uint64_t)(uintptr_t)x))
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			x->bound = key;
			return 0;
		}
		return place_unseen(s, k, cpu, key, age, o, e);
	}
	struct slab *want = (struct slab *)(uintptr_t)v;
	if (want == x)
		return 0;
	struct sheaf_obj y;
	if (k->sh && sheaves_swap(k->sh, cpu, want, *o, &y)) {
		rehome_parked(s, k, cpu, x);
		*o = y;
		return 0;
	}
	/* a free object of want where taking it changes no list but the
	 * node partial one (free_for_move), else a start object's slot */
	int32_t idx = free_for_move(k, want, true);
	if (idx < 0 && (idx = start_out(s, k, want)) < 0)
		return 0; /* no free object in it: the allocator's object stays */
	free_obj(s, k, x, o->idx, cpu);
	o->slab = want;
	o->idx = idx;
	return 0;
}

/* slab_alloc_node: a cache with sheaves allocates from them (alloc_from_pcs)
 * unless the request names a node other than the model's one (node 0:
 * ALLOC_NODE_MISMATCH); otherwise the slab paths of the profile. */
static int alloc_any(struct slub *s, struct cache *k, const struct policy_alloc_req *r,
		     struct slab **osl, int32_t *oidx, struct err *e)
{
	uint32_t cpu = r->cpu;
	int32_t node = r->node;
	uint64_t trace_ptr = r->trace_ptr;
	if (k->sh && node <= 0) {
		struct sheaf_ctx cx = {s, k};
		const struct sheaves_ops ops = {sheaf_refill, sheaf_flush, &cx};
		struct sheaf_obj o;
		bool got;
		int rc = sheaves_alloc(k->sh, &ops, cpu, &o, &got, e);
		if (rc)
			return rc;
		if (got) {
			if (trace_ptr && k->place_addr &&
			    (rc = place_by_address(s, k, cpu, r, &o, e)))
				return rc;
			*osl = o.slab;
			*oidx = o.idx;
			return 0;
		}
	}
	if (no_cpu_slabs(s) && !cache_debug(k))
		return alloc_single_70(s, k, osl, oidx, e);
	int rc = alloc_obj(s, k, cpu, osl, oidx, e);
	if (!rc && k->place_addr && trace_ptr && !cache_debug(k)) {
		struct sheaf_obj o = {*osl, *oidx};
		rc = place_by_address(s, k, cpu, r, &o, e);
		*osl = o.slab;
		*oidx = o.idx;
	}
	return rc;
}

/* How free_any frees (slub_free, slub_free_rcu, slub_free_to_slab). */
enum free_path { FREE_PCS, FREE_RCU, FREE_SLAB, FREE_BULK };

/* slab_free: into the sheaves when the cache has them (free_to_pcs; every
 * slab is on the local node here, so no remote free goes straight to its
 * slab), or through kfree_rcu's __kfree_rcu_sheaf; else, and for an
 * object the kernel freed long ago (FREE_SLAB), to the slab. */
static void free_any(struct slub *s, struct cache *k, struct slab *sl, int32_t idx, uint32_t cpu,
		     enum free_path path)
{
	if (!k->sh || path == FREE_SLAB) {
		free_obj_in(s, k, sl, idx, cpu);
		return;
	}
	struct sheaf_ctx cx = {s, k};
	const struct sheaves_ops ops = {sheaf_refill, sheaf_flush, &cx};
	struct sheaf_obj o = {sl, idx};
	if (path == FREE_RCU)
		sheaves_free_rcu(k->sh, &ops, cpu, o);
	else if (path == FREE_BULK)
		(void)sheaves_free_bulk(k->sh, &ops, cpu, o);
	else
		sheaves_free(k->sh, &ops, cpu, o);
}

/* kmem_cache_args.sheaf_capacity in the 6.18 source for the caches a
 * trace alone names (lib/maple_tree.c maple_tree_init, mm/vma_init.c
 * vma_state_init: 32 each; the 6.18 machine's sysfs agrees). */
static uint32_t source_sheaf_capacity(const char *name)
{
	static const struct {
		const char *name;
		uint32_t cap;
	} src[] = {{"maple_node", 32}, {"vm_area_struct", 32}};
	for (size_t i = 0; name && i < sizeof(src) / sizeof(src[0]); i++)
		if (!strcmp(name, src[i].name))
			return src[i].cap;
	return 0;
}

/* The capacity the cache was created with on a kernel that has sheaves
 * (6.18's opt-in): the capture's (spec), else the source's. */
static uint32_t kernel_sheaf_capacity(const char *name, const struct policy_cache_spec *spec)
{
	return spec && spec->sheaf_capacity_given ? spec->sheaf_capacity
						  : source_sheaf_capacity(name);
}

/* s->sheaf_capacity of a new root cache. None before 6.18, with SLUB_TINY
 * or any debug flag (both profiles). 6.18: the creation's explicit
 * capacity only. 7.0 (calculate_sheaf_capacity, and
 * bootstrap_kmalloc_sheaves for the kmalloc caches): every cache but the
 * boot caches (SLAB_NO_OBJ_EXT: kmem_cache, kmem_cache_node) and
 * SLAB_NOLEAKTRACE ones (kmemleak's), known here by name. */
static uint32_t sheaf_capacity_for(const struct slub *s, const char *name,
				   const struct policy_geom *g,
				   const struct policy_cache_spec *spec)
{
	static const char *const exempt[] = {"kmem_cache", "kmem_cache_node", "kmemleak_object",
					     "kmemleak_scan_area"};
	const struct policy_cfg *cfg = &s->base.cfg;
	if (cfg->kernel < POLICY_KERNEL_6_18 || cfg->slub_tiny || (g->flags & POLICY_F_DEBUG_MASK))
		return 0;
	uint32_t explicit_cap = kernel_sheaf_capacity(name, spec);
	uint32_t cap = explicit_cap;
	if (is_70(s)) {
		for (size_t i = 0; i < sizeof(exempt) / sizeof(exempt[0]); i++)
			if (!strcmp(name, exempt[i]))
				return 0;
		cap = sheaves_capacity_7_0(g->size, explicit_cap);
	}
	/* the sheaf_capacity what-if: the caches the rule gives sheaves get
	 * that many objects a sheaf instead; the others stay without */
	return cap && cfg->sheaf_capacity ? cfg->sheaf_capacity : cap;
}

/* Give root cache k its sheaves (capacity cap > 0). */
static int cache_sheaves_init(struct slub *s, struct cache *k, uint32_t cap, struct err *e)
{
	k->g.sheaf_capacity = cap;
	if (!cap)
		return 0;
	k->sh = calloc(1, sizeof(*k->sh));
	if (!k->sh)
		return err_set(e, SLABSIM_ENOMEM, "out of memory for the sheaves of %s", k->name);
	int rc = sheaves_init(k->sh, cap, s->base.cfg.nr_cpus,
			      is_70(s) ? SHEAVES_7_0 : SHEAVES_6_18, e);
	/* the barn_limit what-if: MAX_FULL_SHEAVES and MAX_EMPTY_SHEAVES */
	if (!rc && s->base.cfg.barn_limit)
		k->sh->max_full = k->sh->max_empty = s->base.cfg.barn_limit;
	return rc;
}

/* ---- caches ---- */

static int add_cache(struct slub *s, const char *name, const struct policy_geom *g, uint32_t root,
		     bool kmalloc, const struct policy_cache_spec *spec, uint32_t *id,
		     struct err *e)
{
	if (s->nr_caches == s->cap_caches) {
		struct cache *n =
			grow_room(s->caches, &s->cap_caches, s->nr_caches, sizeof(*n), 128);
		if (!n)
			return err_set(e, SLABSIM_ENOMEM, "out of memory for cache %s", name);
		s->caches = n;
	}
	uint32_t i = s->nr_caches;
	struct cache *k = &s->caches[i];
	memset(k, 0, sizeof(*k));
	k->name = strdup(name);
	if (root == UINT32_MAX) {
		root = i;
		k->cpus = calloc(s->base.cfg.nr_cpus, sizeof(*k->cpus));
		u64map_init(&k->bound);
		for (uint32_t c = 0; k->cpus && c < s->base.cfg.nr_cpus; c++)
			k->cpus[c].freelist = -1;
	}
	if (!k->name || (root == i && !k->cpus)) {
		free(k->name);
		free(k->cpus);
		return err_set(e, SLABSIM_ENOMEM, "out of memory for cache %s", name);
	}
	k->root = root;
	k->kmalloc = kmalloc;
	k->g = *g;
	if (spec) {
		k->no_merge = spec->no_merge;
		k->ctor = spec->ctor;
		k->usersize = spec->usersize;
	}
	if (root == i) {
		k->place_addr = s->base.cfg.kernel >= POLICY_KERNEL_6_18 &&
				kernel_sheaf_capacity(name, spec) &&
				!(g->flags & POLICY_F_DEBUG_MASK);
		if (k->place_addr) {
			uint32_t *ids = realloc(s->place_ids, (s->nplace + 1) * sizeof(*ids));
			if (!ids) {
				u64map_fini(&k->bound);
				free(k->name);
				free(k->cpus);
				return err_set(e, SLABSIM_ENOMEM, "out of memory for cache %s",
					       name);
			}
			s->place_ids = ids;
			s->place_ids[s->nplace++] = i;
		}
		int rc = cache_sheaves_init(s, k, sheaf_capacity_for(s, name, g, spec), e);
		if (rc) {
			u64map_fini(&k->bound);
			sheaves_fini(k->sh);
			free(k->sh);
			free(k->name);
			free(k->cpus);
			return rc;
		}
	}
	s->nr_caches++;
	*id = i;
	return 0;
}

static bool mergeable_target(const struct slub *s, const struct cache *k)
{
	return k->root == (uint32_t)(k - s->caches) &&
	       layout_merge_target(&s->base.cfg, &k->g, k->kmalloc, k->ctor, k->usersize,
				   k->no_merge);
}

/* find_mergeable(): the kernel walks slab_root_caches backwards and new
 * caches are added at its head, so the OLDEST compatible root wins. */
static uint32_t find_mergeable(const struct slub *s, const struct policy_cache_spec *spec)
{
	uint32_t flags = spec->flags | s->base.cfg.slub_debug, align;
	uint64_t size;
	if (!layout_merge_request(&s->base.cfg, spec, flags, &size, &align))
		return UINT32_MAX;
	/* 6.18 slab_args_unmergeable(): a creation asking for sheaves */
	if (s->base.cfg.kernel >= POLICY_KERNEL_6_18 &&
	    (spec->sheaf_capacity_given ? spec->sheaf_capacity : source_sheaf_capacity(spec->name)))
		return UINT32_MAX;
	for (uint32_t i = 0; i < s->nr_caches; i++) {
		const struct cache *k = &s->caches[i];
		if (mergeable_target(s, k) && layout_merge_fits(&k->g, size, align, flags, false))
			return i;
	}
	return UINT32_MAX;
}

static int slub_cache_create(struct policy *p, const struct policy_cache_spec *spec, uint32_t *id,
			     struct err *e)
{
	struct slub *s = (struct slub *)p;
	struct policy_geom g;
	uint32_t target = find_mergeable(s, spec);

	if (target != UINT32_MAX) {
		struct cache *t = &s->caches[target];
		if (spec->object_size > t->g.object_size)
			t->g.object_size = spec->object_size;
		uint32_t inuse = (spec->object_size + 7) & ~7u;
		if (inuse > t->g.inuse)
			t->g.inuse = inuse;
		g = t->g;
		g.object_size = spec->object_size;
		return add_cache(s, spec->name, &g, target, false, spec, id, e);
	}
	int rc = layout_slub(&s->base.cfg, spec, &g, e);
	if (!rc)
		rc = add_cache(s, spec->name, &g, UINT32_MAX, false, spec, id, e);
	if (!rc) {
		const struct policy_cache_facts *f =
			policy_cache_facts_find(s->base.cfg.kernel, spec->name);
		s->caches[*id].rcu_pages = (g.flags & POLICY_F_TYPESAFE_BY_RCU) ||
					   (f && (f->flags & POLICY_F_TYPESAFE_BY_RCU));
	}
	return rc;
}

/* layout_kmalloc_index + layout_kmalloc_type, from the tables */
static inline uint32_t kmalloc_id(const struct slub *s, uint64_t size, enum policy_kmalloc_type t)
{
	uint32_t idx;
	if (size - 1 < 192)
		idx = s->small_index[(size - 1) / 8];
	else if (size - 1 < (1u << LAYOUT_SLUB_KMALLOC_SHIFT_HIGH))
		idx = 64 - (uint32_t)__builtin_clzll(size - 1); /* fls(size - 1) */
	else
		return POLICY_NO_CACHE;
	if ((unsigned)t >= POLICY_KMALLOC_NR_TYPES)
		t = POLICY_KMALLOC_NORMAL;
	return s->kmalloc_row[t][idx];
}

static uint32_t slub_kmalloc_cache(const struct policy *p, uint64_t size,
				   enum policy_kmalloc_type t)
{
	return kmalloc_id((const struct slub *)p, size, t);
}

/* slot size of the kmalloc cache (its root's: aliases share slabs), or
 * kmalloc_large's whole pages */
static uint64_t slub_kmalloc_bytes(const struct policy *p, uint64_t size,
				   enum policy_kmalloc_type t)
{
	const struct slub *s = (const struct slub *)p;
	uint32_t id = kmalloc_id(s, size, t);
	if (id == POLICY_NO_CACHE)
		return policy_large_kmalloc_bytes(size);
	return s->caches[s->caches[id].root].g.size;
}

/* The cache of a routed kmalloc (r->route != 0): its bucket set's or its
 * random copy's cache of the size's kmalloc index, or POLICY_NO_CACHE
 * above the largest (kmalloc_large, as for kmalloc-N). */
static uint32_t kmalloc_route_id(const struct slub *s, uint64_t size, enum policy_kmalloc_type t,
				 uint32_t route)
{
	uint32_t b = POLICY_ROUTE_BUCKETS(route), c = POLICY_ROUTE_RANDOM(route);
	const uint32_t *row = NULL;
	if (b && s->bucket_ids && b < POLICY_BUCKETS_NR)
		row = s->bucket_ids[b];
	else if (!b && c && s->rnd_ids && c <= s->base.cfg.random_kmalloc)
		row = s->rnd_ids[c];
	if (!row || size - 1 >= (1u << LAYOUT_SLUB_KMALLOC_SHIFT_HIGH))
		return kmalloc_id(s, size, t);
	uint32_t idx = size - 1 < 192 ? s->small_index[(size - 1) / 8]
				      : 64 - (uint32_t)__builtin_clzll(size - 1);
	return row[idx] != POLICY_NO_CACHE ? row[idx] : kmalloc_id(s, size, t);
}

/* create_kmalloc_caches() with CONFIG_RANDOM_KMALLOC_CACHES (6.6+): the
 * types KMALLOC_RANDOM_START + 1 .. KMALLOC_RANDOM_END come right after
 * KMALLOC_NORMAL, each a copy of every normal kmalloc cache named
 * "kmalloc-rnd-NN-SIZE", created with SLAB_NO_MERGE (new_kmalloc_cache). */
static int create_random_copies(struct slub *s, const uint8_t *order, size_t n, struct err *e)
{
	const struct policy_cfg *cfg = &s->base.cfg;
	uint32_t nr = cfg->random_kmalloc;
	if (!policy_random_enabled(cfg))
		return 0;
	if (nr > 15)
		return err_set(e, SLABSIM_EUSAGE, "random kmalloc copies must be 0..15, got %u",
			       nr);
	s->rnd_ids = calloc(nr + 1, sizeof(*s->rnd_ids));
	if (!s->rnd_ids)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	for (uint32_t c = 0; c <= nr; c++)
		for (int i = 0; i <= LAYOUT_SLUB_KMALLOC_SHIFT_HIGH; i++)
			s->rnd_ids[c][i] =
				c ? POLICY_NO_CACHE : s->kmalloc_ids[POLICY_KMALLOC_NORMAL][i];
	for (uint32_t c = 1; c <= nr; c++) {
		for (size_t j = 0; j < n; j++) {
			struct policy_geom g;
			char kname[32], name[48];
			int rc = layout_slub_kmalloc(cfg, POLICY_KMALLOC_NORMAL, order[j], &g, e);
			if (rc)
				return rc;
			/* "kmalloc-96" -> "kmalloc-rnd-01-96" */
			const char *sz = strchr(
				layout_kmalloc_name(POLICY_KMALLOC_NORMAL, order[j], kname), '-');
			(void)snprintf(name, sizeof(name), "kmalloc-rnd-%02u-%s", c, sz + 1);
			struct policy_cache_spec spec = {
				.object_size = g.object_size,
				.usersize = g.object_size,
				.no_merge = true,
			};
			if ((rc = add_cache(s, name, &g, UINT32_MAX, true, &spec,
					    &s->rnd_ids[c][order[j]], e)))
				return rc;
		}
	}
	return 0;
}

/* kmem_buckets_create() for every set the profile has (buckets.h): per
 * kmalloc index in array order (96 and 192 first: indexes 1 and 2), a cache
 * "PREFIX-SIZE" of the normal kmalloc cache's object size, created by
 * kmem_cache_create_usercopy with align 0 (so 8, ARCH_SLAB_MINALIGN: the
 * 6.11 kmalloc alignment is create_boot_cache's, for SLAB_KMALLOC caches
 * only), the set's flags plus SLAB_NO_MERGE (never merged, never a merge
 * target), and kmem_buckets_create's usersize. The kernel makes them at
 * subsys_initcall, long after the kmalloc caches: policy_cache_create
 * calls in between only see them as non-targets, so creating them here
 * changes no merge. */
static int create_buckets(struct slub *s, struct err *e)
{
	const struct policy_cfg *cfg = &s->base.cfg;
	if (!policy_buckets_enabled(cfg, POLICY_BUCKETS_MSG_MSG))
		return 0;
	s->bucket_ids = calloc(POLICY_BUCKETS_NR, sizeof(*s->bucket_ids));
	if (!s->bucket_ids)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	for (int b = 0; b < POLICY_BUCKETS_NR; b++)
		for (int i = 0; i <= LAYOUT_SLUB_KMALLOC_SHIFT_HIGH; i++)
			s->bucket_ids[b][i] = POLICY_NO_CACHE;
	for (int b = 1; b < POLICY_BUCKETS_NR; b++) {
		const struct policy_bucket_info *bi = policy_bucket_info(b);
		for (uint32_t idx = 1; idx <= LAYOUT_SLUB_KMALLOC_SHIFT_HIGH; idx++) {
			uint32_t kid = s->kmalloc_ids[POLICY_KMALLOC_NORMAL][idx];
			if (kid == POLICY_NO_CACHE)
				continue;
			char kname[32], name[64];
			const char *sz =
				strchr(layout_kmalloc_name(POLICY_KMALLOC_NORMAL, idx, kname), '-');
			(void)snprintf(name, sizeof(name), "%s-%s", bi->prefix, sz + 1);
			uint32_t size = s->caches[kid].g.object_size;
			struct policy_cache_spec spec = {
				.name = name,
				.object_size = size,
				.align = 0,
				.flags = bi->flags,
				.usersize = policy_bucket_usersize(b, size),
				.no_merge = true,
			};
			struct policy_geom g;
			int rc = layout_slub(cfg, &spec, &g, e);
			/* kmalloc = true: served by kmalloc events, made at boot,
			 * never named by a kmem_cache_alloc (policy_cache_info) */
			if (rc || (rc = add_cache(s, name, &g, UINT32_MAX, true, &spec,
						  &s->bucket_ids[b][idx], e)))
				return rc;
		}
	}
	return 0;
}

static void slub_destroy(struct policy *p);

static int slub_create(const struct policy_cfg *cfg, struct policy **out, struct err *e)
{
	if (cfg->nr_cpus == 0 || cfg->nr_cpus > 8192)
		return err_set(e, SLABSIM_EUSAGE, "--nr-cpus must be 1..8192, got %u",
			       cfg->nr_cpus);
	struct slub *s = calloc(1, sizeof(*s));
	if (!s)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	s->base.ops = &slub_ops;
	s->base.cfg = *cfg;
	s->no_cpu = is_70(s) || cfg->slub_tiny;
	buddy_init(&s->buddy);
	for (int t = 0; t < POLICY_KMALLOC_NR_TYPES; t++) {
		for (int i = 0; i <= LAYOUT_SLUB_KMALLOC_SHIFT_HIGH; i++)
			s->kmalloc_ids[t][i] = POLICY_NO_CACHE;
		s->kmalloc_row[t] = s->kmalloc_ids[layout_kmalloc_type(cfg, t)];
	}
	for (uint32_t i = 0; i < sizeof(s->small_index); i++)
		s->small_index[i] = (uint8_t)layout_kmalloc_index(8 * i + 8);

	/* create_kmalloc_caches(): per type, index 3..13 with 96 after 64 and
	 * 192 after 128 */
	static const uint8_t order_of_creation[] = {3, 4, 5, 6, 1, 7, 2, 8, 9, 10, 11, 12, 13};
	for (int t = 0; t < POLICY_KMALLOC_NR_TYPES; t++) {
		/* a type the configuration folds into NORMAL (5.4's or a
		 * MEMCG-less CGROUP, SLUB_TINY's RECLAIM, DMA without ZONE_DMA)
		 * has no caches of its own */
		if ((int)layout_kmalloc_type(cfg, (enum policy_kmalloc_type)t) != t)
			continue;
		for (size_t j = 0; j < sizeof(order_of_creation); j++) {
			uint32_t idx = order_of_creation[j];
			struct policy_geom g;
			char name[32];
			int rc = layout_slub_kmalloc(cfg, (enum policy_kmalloc_type)t, idx, &g, e);
			if (!rc) {
				struct policy_cache_spec spec = {
					.object_size = g.object_size,
					/* 5.4 DMA caches have no usersize; the rest do */
					.usersize = (t == POLICY_KMALLOC_DMA && !is_61(s))
							    ? 0
							    : g.object_size,
				};
				rc = add_cache(
					s,
					layout_kmalloc_name((enum policy_kmalloc_type)t, idx, name),
					&g, UINT32_MAX, true, &spec, &s->kmalloc_ids[t][idx], e);
			}
			if (rc) {
				slub_destroy(&s->base);
				return rc;
			}
		}
		int rc = t == POLICY_KMALLOC_NORMAL
				 ? create_random_copies(s, order_of_creation,
							sizeof(order_of_creation), e)
				 : 0;
		if (rc) {
			slub_destroy(&s->base);
			return rc;
		}
	}
	int rc = create_buckets(s, e);
	if (rc) {
		slub_destroy(&s->base);
		return rc;
	}
	*out = &s->base;
	return 0;
}

static void slub_destroy(struct policy *p)
{
	struct slub *s = (struct slub *)p;
	if (!s)
		return;
	for (size_t i = 0; i < s->slab_at_cap; i++)
		free(s->slab_at[i]);
	free(s->slab_at);
	free(s->kept);
	for (uint32_t i = 0; i < s->nr_caches; i++) {
		free(s->caches[i].name);
		free(s->caches[i].cpus);
		u64map_fini(&s->caches[i].bound);
		sheaves_fini(s->caches[i].sh);
		free(s->caches[i].sh);
	}
	free(s->caches);
	free(s->place_ids);
	free(s->bucket_ids);
	free(s->rnd_ids);
	buddy_fini(&s->buddy);
	free(s);
}

static int slub_alloc(struct policy *p, const struct policy_alloc_req *r, struct policy_obj *out,
		      struct err *e)
{
	struct slub *s = (struct slub *)p;
	uint32_t id = r->cache;

	int rc0 = policy_check_alloc(p, r, s->nr_caches, e);
	if (rc0)
		return rc0;
	if (id == POLICY_KMALLOC) {
		id = __builtin_expect(r->route == 0, 1)
			     ? kmalloc_id(s, r->size, r->ktype)
			     : kmalloc_route_id(s, r->size, r->ktype, r->route);
		if (id == POLICY_NO_CACHE) /* kmalloc_large: whole pages */
			return buddy_kmalloc_large(&s->buddy, r->size, out, &s->pages.large,
						   &s->large_objs, e);
	}
	struct cache *k = &s->caches[s->caches[id].root];
	struct slab *sl;
	int32_t idx;
	int rc = alloc_any(s, k, r, &sl, &idx, e);
	if (rc)
		return rc;
	if (s->nkept)
		rehome_kept(s, r->cpu);
	k->live++;
	out->addr = obj_addr(k, sl, idx);
	out->cache = id;
	out->order = k->g.order;
	out->bytes_alloc = k->g.size;
	out->size = r->cache == POLICY_KMALLOC ? r->size : s->caches[id].g.object_size;
	out->slot_bytes = k->g.size;
	out->object_bytes = s->caches[id].g.object_size;
	out->meta_bytes = k->g.size - out->object_bytes;
	return 0;
}

/* slub_free, slub_free_rcu and slub_free_to_slab: kfree, kmem_cache_free
 * or kfree_rcu of o, or o to its slab. Not inline: GCC split off its
 * argument checks into each caller, and slub_free saved and restored four
 * registers around them (21 instructions per free); whole, the callers
 * jump to it. */
__attribute__((noinline)) static int free_common(struct policy *p, const struct policy_obj *o,
						 uint32_t cpu, enum free_path path, struct err *e)
{
	struct slub *s = (struct slub *)p;
	int rc0 = policy_check_free(p, o, cpu, s->nr_caches, e);
	if (rc0)
		return rc0;
	if (o->cache == POLICY_NO_CACHE) {
		s->pages.large -= 1ULL << o->order;
		s->large_objs--;
		return buddy_free(&s->buddy, o->addr, o->order);
	}
	struct cache *k = &s->caches[s->caches[o->cache].root];
	uint64_t bytes = slab_bytes(k);
	uint64_t base = BUDDY_BASE + ((o->addr - BUDDY_BASE) & ~(bytes - 1));
	struct slab *sl = slab_find(s, base);
	if (!sl)
		return err_set(e, SLABSIM_EMODEL, "free of 0x%" PRIx64 ": no slab of %s there",
			       o->addr, k->name);
	uint64_t off = o->addr - base - k->g.red_left_pad;
	/* off below objects * size (at most a slab) first: then one 32-bit
	 * division, much cheaper than a 64-bit one, gives index and rest */
	if (sl->cache != k->root || off >= (uint64_t)sl->objects * k->g.size ||
	    (uint32_t)off % k->g.size)
		return err_set(e, SLABSIM_EMODEL, "free of 0x%" PRIx64 ": not an object of %s",
			       o->addr, k->name);
	k->live--;
	free_any(s, k, sl, (int32_t)((uint32_t)off / k->g.size), cpu, path);
	if (s->nkept)
		rehome_kept(s, cpu);
	return 0;
}

static int slub_free(struct policy *p, const struct policy_obj *o, uint32_t cpu, struct err *e)
{
	return free_common(p, o, cpu, FREE_PCS, e);
}

/* kfree_rcu(): a large kmalloc and an object of a cache without sheaves
 * are freed as by kfree (the time of the call stands for the end of the
 * grace period); with sheaves, __kfree_rcu_sheaf. */
static int slub_free_rcu(struct policy *p, const struct policy_obj *o, uint32_t cpu, struct err *e)
{
	return free_common(p, o, cpu, FREE_RCU, e);
}

/* One object of kmem_cache_free_bulk (policy.h). */
static int slub_free_bulk(struct policy *p, const struct policy_obj *o, uint32_t cpu, struct err *e)
{
	return free_common(p, o, cpu, FREE_BULK, e);
}

/* The model slab bound to the kernel slab raw address real lies in, in
 * any placed cache (its cache in *kp), or NULL. */
static struct slab *bound_at(const struct slub *s, uint64_t real, struct cache **kp)
{
	for (uint32_t i = 0; i < s->nplace; i++) {
		struct cache *k = &s->caches[s->place_ids[i]];
		uint64_t v;
		if (u64map_get(&k->bound, real & ~(slab_bytes(k) - 1), &v)) {
			*kp = k;
			return (struct slab *)(uintptr_t)v;
		}
	}
	return NULL;
}

/* An empty slab whose kernel slab is gone or going: discarded from the
 * node partial list or a per-CPU partial stack, whatever min_partial says
 * (the kernel's was on neither: an empty slab on a stack stays there until
 * drained); a CPU slab stays. */
static void discard_listed_empty(struct slub *s, struct cache *k, struct slab *sl)
{
	if (sl->inuse != 0)
		return;
	if (sl->where == ON_NODE_PARTIAL)
		remove_partial(k, sl);
	else if (sl->where == ON_CPU_PARTIAL)
		remove_cpu_partial(k, sl);
	else
		return;
	discard_slab(s, k, sl);
}

/* A slab whose kernel slab the trace shows discarded (its page freed,
 * slub_unpark_slab) goes once it holds nothing, wherever the model holds
 * it; a CPU slab too (its objects all on the CPU's freelist), since the
 * kernel never discards its CPU slab: that slab stood for another. Left
 * there, it stood for no kernel slab and served refills, whose objects
 * then stayed parked in it (the allocations are placed in the slabs the
 * trace shows). */
static void discard_gone_empty(struct slub *s, struct cache *k, struct slab *sl)
{
	struct cpu_state *c = &k->cpus[sl->cpu];
	if (sl->where != ON_CPU || c->slab != sl) {
		discard_listed_empty(s, k, sl);
		return;
	}
	uint32_t nfree = 0;
	for (int32_t q = c->freelist; q >= 0; q = sl->next_free[q])
		nfree++;
	if (sl->inuse != nfree)
		return;
	c->slab = NULL;
	c->freelist = -1;
	sl->frozen = 0;
	sl->inuse = 0;
	discard_slab(s, k, sl);
}

/* sheaves_ops.gone (sheaves_unpark): the slab's parked objects are back.
 * The flush may have discarded it already (slab is then freed memory):
 * it is found again by its base, which no slab took since (flushes make
 * no slab). */
static void sheaf_gone(void *ctx, uint32_t cpu, const void *slab)
{
	struct sheaf_ctx *cx = ctx;
	struct slab *sl = slab_find(cx->s, cx->gone_base);
	(void)cpu;
	(void)slab;
	if (sl && keeps_bound(cx->s, cx->k))
		discard_gone_empty(cx->s, cx->k, sl);
}

/* An object freed earlier by an untraced path whose slab the kernel has
 * discarded since (policy.h): past the sheaves, do_slab_free's slab paths
 * (the CPU slab's freelist when it is the CPU's, else __slab_free). */
static bool slub_bound_slab(const struct policy *p, uint64_t real, uint64_t *base, uint32_t *cache)
{
	const struct slub *s = (const struct slub *)p;
	struct cache *k;
	const struct slab *sl = bound_at(s, real, &k);
	if (!sl)
		return false;
	*base = sl->base;
	*cache = (uint32_t)(k - s->caches);
	return true;
}

static int slub_unpark_slab(struct policy *p, uint32_t cache, uint64_t base, uint32_t cpu,
			    struct err *e)
{
	struct slub *s = (struct slub *)p;
	struct slab *sl = cache < s->nr_caches ? slab_find(s, base) : NULL;
	if (!sl)
		return 0; /* gone already: nothing of it was parked */
	struct cache *k = &s->caches[sl->cache];
	unbind(k, sl);
	if (k->sh) {
		/* its objects back, it goes when empty (sheaf_gone) */
		struct sheaf_ctx cx = {s, k, base};
		const struct sheaves_ops ops = {sheaf_refill, sheaf_flush, &cx, sheaf_gone};
		return sheaves_unpark(k->sh, &ops, cpu, sl, e);
	}
	/* its kernel slab is gone, so it goes when empty */
	if (keeps_bound(s, k))
		discard_gone_empty(s, k, sl);
	return 0;
}

/* policy_ops.page_free_ahead: an emptied slab of a SLAB_TYPESAFE_BY_RCU
 * cache kept because its page had not been freed (empty_goes_slow) goes
 * once the free of that page comes within the window: the kernel's
 * discard_slab ran up to a grace period before it (free_slab: call_rcu ->
 * rcu_free_slab), and its objects were elsewhere until then (parked in
 * the sheaves), which is why the model emptied it sooner
 * (discard_listed_empty). */
static void slub_page_free_ahead(struct policy *p, uint64_t kaddr)
{
	struct slub *s = (struct slub *)p;
	struct cache *k;
	struct slab *sl = bound_at(s, kaddr, &k);
	if (sl && k->rcu_pages)
		discard_listed_empty(s, k, sl);
}

static void slub_pages_traced(struct policy *p, const struct policy_pages_ahead *ahead)
{
	struct slub *s = (struct slub *)p;
	s->pages_traced = true;
	if (ahead)
		s->ahead = *ahead;
}

static void slub_start_moves(struct policy *p, bool (*move)(void *ctx, uint64_t from, uint64_t to),
			     void *ctx)
{
	struct slub *s = (struct slub *)p;
	s->start_move = move;
	s->move_ctx = ctx;
}

static bool slub_unseen_needs_slab(const struct policy *p, uint32_t cache, uint64_t real,
				   enum policy_slab_age age)
{
	const struct slub *s = (const struct slub *)p;
	if (cache >= s->nr_caches)
		return false;
	const struct cache *k = &s->caches[s->caches[cache].root];
	uint64_t v;
	if (!k->place_addr || cache_debug(k) ||
	    u64map_get(&k->bound, real & ~(slab_bytes(k) - 1), &v))
		return false;
	return !unbound_partial(k, age);
}

static int slub_bind_slab(struct policy *p, uint32_t cache, uint64_t real, uint64_t base)
{
	struct slub *s = (struct slub *)p;
	if (cache >= s->nr_caches)
		return -1;
	struct cache *k = &s->caches[s->caches[cache].root];
	uint64_t key = real & ~(slab_bytes(k) - 1), v;
	if (!k->place_addr || cache_debug(k))
		return -1;
	struct slab *sl = slab_find(s, base);
	if (!sl || sl->cache != (uint32_t)(k - s->caches))
		return 0;
	if (u64map_get(&k->bound, key, &v))
		return v == (uint64_t)(uintptr_t)sl;
	if (sl->bound || u64map_put(&k->bound, key, (uint64_t)(uintptr_t)sl))
		return 0;
	sl->bound = key;
	return 1;
}

static int slub_free_to_slab(struct policy *p, const struct policy_obj *o, uint32_t cpu,
			     struct err *e)
{
	return free_common(p, o, cpu, FREE_SLAB, e);
}

static uint32_t slub_nr_caches(const struct policy *p)
{
	return ((const struct slub *)p)->nr_caches;
}

static void slub_cache_info(const struct policy *p, uint32_t id, struct policy_cache_info *out)
{
	const struct slub *s = (const struct slub *)p;
	const struct cache *a = &s->caches[id];
	const struct cache *k = &s->caches[a->root];
	memset(out, 0, sizeof(*out));
	out->name = a->name;
	out->g = k->g;
	out->g.object_size = a->g.object_size;
	out->kmalloc = a->kmalloc;
	out->alias_of = a->root;
	out->nr_slabs = k->nr_slabs;
	out->nr_pages = k->nr_slabs << k->g.order;
	out->total_objects = k->nr_slabs * k->g.objs_per_slab;
	out->inuse_objects = k->live;
	out->nr_partial = k->partial.nr;
	out->free_in_partial = k->partial_free;
	out->cpu_slabs = k->nr_cpu_slabs;
	out->slabs_allocated = k->slabs_allocated;
	out->slabs_freed = k->slabs_freed;
	out->parked_objects = k->sh ? k->sh->parked : 0;
	out->tail_bytes = k->nr_slabs * (slab_bytes(k) - (uint64_t)k->g.objs_per_slab * k->g.size);
}

/* Every counter slub_cache_info reads; the rest of its figures are the
 * root's geometry, name and alias, which only cache_create changes (a
 * merge widens the root's object_size and inuse). */
static void slub_cache_counts(const struct policy *p, uint32_t id, struct policy_cache_counts *out)
{
	const struct slub *s = (const struct slub *)p;
	const struct cache *k = &s->caches[s->caches[id].root];
	*out = (struct policy_cache_counts){{k->nr_slabs, k->live, k->partial.nr, k->partial_free,
					     k->nr_cpu_slabs, k->slabs_allocated, k->slabs_freed,
					     k->sh ? k->sh->parked : 0}};
}

/* mm/slub.c get_slabinfo(): every slot not free on a node-partial slab is
 * active (free slots of CPU slabs and per-CPU partial slabs count); all
 * slabs are active; no tunables. */
static void slub_get_slabinfo(const struct policy *p, uint32_t id, struct policy_slabinfo *out)
{
	const struct slub *s = (const struct slub *)p;
	const struct cache *k = &s->caches[s->caches[id].root];
	memset(out, 0, sizeof(*out));
	out->num_objs = k->nr_slabs * k->g.objs_per_slab;
	out->active_objs = out->num_objs - k->partial_free;
	out->active_slabs = out->num_slabs = k->nr_slabs;
	out->objects_per_slab = k->g.objs_per_slab;
	out->cache_order = k->g.order;
}

static void slub_stats(const struct policy *p, struct policy_stats *out)
{
	const struct slub *s = (const struct slub *)p;
	memset(out, 0, sizeof(*out));
	out->slab_pages = s->pages.slab;
	out->large_pages = s->pages.large;
	out->large_objs = s->large_objs;
	out->buddy_pages = s->buddy.pages_out;
	out->parked_rehomed = s->parked_rehomed;
}

static const struct policy_pages *slub_pages_ref(const struct policy *p)
{
	return &((const struct slub *)p)->pages;
}

static uint32_t count_chain(const struct slab *sl, int32_t i, uint32_t limit)
{
	uint32_t n = 0;
	while (i >= 0 && n <= limit) {
		n++;
		i = sl->next_free[i];
	}
	return n;
}

static int check_slab(const struct slub *s, const struct cache *k, const struct slab *sl,
		      uint8_t where, uint64_t *free_objs, struct err *e)
{
	if (sl->where != where)
		return err_set(e, SLABSIM_EMODEL, "%s: slab 0x%" PRIx64 " on list %d says %d",
			       k->name, sl->base, where, sl->where);
	bool frozen = where == ON_CPU || where == ON_CPU_PARTIAL;
	if (sl->frozen != frozen)
		return err_set(e, SLABSIM_EMODEL, "%s: slab 0x%" PRIx64 " frozen=%d on list %d",
			       k->name, sl->base, sl->frozen, where);
	uint32_t nfree = count_chain(sl, sl->freelist, sl->objects);
	if (nfree != sl->objects - sl->inuse)
		return err_set(e, SLABSIM_EMODEL,
			       "%s: slab 0x%" PRIx64 " has %u free objects, inuse says %u", k->name,
			       sl->base, nfree, sl->objects - sl->inuse);
	if ((where == ON_NONE || where == ON_FULL) && nfree)
		return err_set(e, SLABSIM_EMODEL, "%s: full slab 0x%" PRIx64 " has free objects",
			       k->name, sl->base);
	if (where == ON_NODE_PARTIAL && !nfree)
		return err_set(e, SLABSIM_EMODEL, "%s: partial slab 0x%" PRIx64 " is full", k->name,
			       sl->base);
	*free_objs += nfree;
	return 0;
}

static int slub_check(const struct policy *p, struct err *e)
{
	const struct slub *s = (const struct slub *)p;
	uint64_t pages = 0;
	for (uint32_t i = 0; i < s->nr_caches; i++) {
		const struct cache *k = &s->caches[i];
		if (k->root != i)
			continue;
		uint64_t seen = 0, free_objs = 0;
		int rc;
		for (const struct slab *sl = k->partial.head; sl; sl = sl->next, seen++)
			if ((rc = check_slab(s, k, sl, ON_NODE_PARTIAL, &free_objs, e)))
				return rc;
		if (free_objs != k->partial_free)
			return err_set(e, SLABSIM_EMODEL,
				       "%s: %" PRIu64
				       " free objects on node-partial slabs, counted %" PRIu64,
				       k->name, free_objs, k->partial_free);
		uint64_t on_cpus = 0;
		for (const struct slab *sl = k->full.head; sl; sl = sl->next, seen++)
			if ((rc = check_slab(s, k, sl, ON_FULL, &free_objs, e)))
				return rc;
		for (uint32_t c = 0; c < s->base.cfg.nr_cpus; c++) {
			const struct cpu_state *cs = &k->cpus[c];
			if (cs->slab) {
				seen++;
				on_cpus++;
				if ((rc = check_slab(s, k, cs->slab, ON_CPU, &free_objs, e)))
					return rc;
				free_objs += count_chain(cs->slab, cs->freelist, cs->slab->objects);
			} else if (cs->freelist >= 0) {
				return err_set(e, SLABSIM_EMODEL,
					       "%s: CPU %u has a freelist but no slab", k->name, c);
			}
			for (const struct slab *sl = cs->partial; sl;
			     sl = sl->pnext, seen++, on_cpus++)
				if ((rc = check_slab(s, k, sl, ON_CPU_PARTIAL, &free_objs, e)))
					return rc;
		}
		if (on_cpus != k->nr_cpu_slabs)
			return err_set(e, SLABSIM_EMODEL,
				       "%s: %" PRIu64 " slabs held by CPUs, counted %" PRIu64,
				       k->name, on_cpus, k->nr_cpu_slabs);
		if (seen > k->nr_slabs)
			return err_set(e, SLABSIM_EMODEL,
				       "%s: %" PRIu64 " slabs on lists, %" PRIu64 " held", k->name,
				       seen, k->nr_slabs);
		/* slabs on no list are full: they add objects but no free ones;
		 * objects parked in sheaves are allocated in their slabs */
		uint64_t total = k->nr_slabs * k->g.objs_per_slab;
		uint64_t parked = k->sh ? k->sh->parked : 0;
		if (k->sh && (rc = sheaves_check(k->sh, k->name, e)))
			return rc;
		if (total - free_objs != k->live + parked)
			return err_set(e, SLABSIM_EMODEL,
				       "%s: %" PRIu64 " objects in slabs minus %" PRIu64
				       " free is not the %" PRIu64 " live and %" PRIu64 " parked",
				       k->name, total, free_objs, k->live, parked);
		pages += k->nr_slabs << k->g.order;
	}
	if (pages != s->pages.slab)
		return err_set(e, SLABSIM_EMODEL,
			       "slab pages %" PRIu64 " != sum over caches %" PRIu64, s->pages.slab,
			       pages);
	if (s->pages.slab + s->pages.large != s->buddy.pages_out)
		return err_set(e, SLABSIM_EMODEL,
			       "buddy has %" PRIu64 " pages out, slabs+large hold %" PRIu64,
			       s->buddy.pages_out, s->pages.slab + s->pages.large);
	return 0;
}

static void slub_page_orders(const struct policy *p, struct policy_page_orders *out)
{
	buddy_orders(&((const struct slub *)p)->buddy, out);
}

/* SLUB's slabinfo counts free CPU-slab slots as active too, but where they
 * were is unknown: every active object starts live, free slots on the node
 * partial list; SLUB keeps no wholly free slab apart (free_slabs and
 * shared_avail are not used). */
/* Take the first free slot of sl (a slab of root k) as a live object of
 * cache id (a, possibly an alias of k) of a recorded start state. */
static void start_obj(struct cache *k, const struct cache *a, uint32_t id, struct slab *sl,
		      struct policy_obj *o)
{
	int32_t idx = sl->freelist;
	sl->freelist = sl->next_free[idx];
	sl->inuse++;
	k->live++;
	o->addr = obj_addr(k, sl, idx);
	o->cache = id;
	o->order = k->g.order;
	o->bytes_alloc = o->slot_bytes = k->g.size;
	o->size = o->object_bytes = a->g.object_size;
	o->meta_bytes = k->g.size - a->g.object_size;
}

static int slub_prepopulate(struct policy *p, uint32_t id, const struct policy_start *st,
			    struct policy_obj *objs, uint64_t *nr_live, struct err *e)
{
	struct slub *s = (struct slub *)p;
	uint64_t nr_objs = st->active_objs, nr_slabs = st->nr_slabs;
	*nr_live = 0;
	if (id >= s->nr_caches)
		return err_set(e, SLABSIM_EUSAGE, "prepopulate: no cache %u", id);
	struct cache *a = &s->caches[id];
	struct cache *k = &s->caches[a->root];
	if (nr_objs > nr_slabs * k->g.objs_per_slab)
		return err_set(e, SLABSIM_EUSAGE,
			       "prepopulate %s: %" PRIu64 " objects do not fit %" PRIu64
			       " slabs of %u",
			       a->name, nr_objs, nr_slabs, k->g.objs_per_slab);
	uint64_t left = nr_objs, n = 0;
	k->started = true;
	for (uint64_t i = 0; i < nr_slabs; i++) {
		struct slab *sl;
		int rc = new_slab(s, k, &sl, e);
		if (rc)
			return rc;
		sl->start = 1;
		while (left && sl->freelist >= 0) {
			start_obj(k, a, id, sl, &objs[n++]);
			left--;
		}
		if (sl->inuse < sl->objects) {
			add_partial(k, sl, true);
		} else if (cache_debug(k)) {
			set_where(k, sl, ON_FULL);
			list_add(&k->full, sl, true);
		}
	}
	*nr_live = n;
	return 0;
}

static int slub_start_slab(struct policy *p, uint32_t id, const struct policy_start_slab *ss,
			   uint64_t *base, struct policy_obj *objs, struct err *e)
{
	struct slub *s = (struct slub *)p;
	if (id >= s->nr_caches)
		return err_set(e, SLABSIM_EUSAGE, "start slab: no cache %u", id);
	struct cache *a = &s->caches[id];
	struct cache *k = &s->caches[a->root];
	uint32_t n = k->g.objs_per_slab;
	bool cpu = ss->where == POLICY_START_CPU || ss->where == POLICY_START_CPU_PARTIAL;
	struct policy_start_slab ss70;
	if (cpu && no_cpu_slabs(s) && ss->inuse <= n) {
		/* 7.0 and SLUB_TINY have no CPU slabs: a slab a capture of
		 * another kernel held on a CPU is kept where they would hold it */
		ss70 = *ss;
		ss70.where = ss->inuse < n ? POLICY_START_NODE_PARTIAL : POLICY_START_FULL;
		ss = &ss70;
		cpu = false;
	}
	const char *why = NULL;
	if (ss->inuse > n)
		why = "more objects than a slab holds";
	else if (ss->where == POLICY_START_FULL && ss->inuse != n)
		why = "a full slab with free slots";
	else if ((ss->where == POLICY_START_NODE_PARTIAL ||
		  ss->where == POLICY_START_CPU_PARTIAL) &&
		 ss->inuse == n)
		why = "a partial slab without free slots";
	else if (ss->where > POLICY_START_CPU_PARTIAL)
		why = "no such place";
	else if (cpu && ss->cpu >= s->base.cfg.nr_cpus)
		why = "no such CPU";
	else if (cpu && cache_debug(k))
		why = "a debug cache has no CPU slabs";
	else if (ss->where == POLICY_START_CPU_PARTIAL && !has_cpu_partial(s, k))
		why = "no per-CPU partial lists";
	else if (ss->where == POLICY_START_CPU && k->cpus[ss->cpu].slab)
		why = "the CPU has a slab already";
	if (why)
		return err_set(e, SLABSIM_EUSAGE, "start slab of %s: %s", a->name, why);
	struct slab *sl;
	int rc = new_slab(s, k, &sl, e);
	if (rc)
		return rc;
	sl->start = 1;
	k->started = true;
	*base = sl->base;
	for (uint32_t i = 0; i < ss->inuse; i++) {
		start_obj(k, a, id, sl, &objs[i]);
	}
	switch (ss->where) {
	case POLICY_START_FULL:
		if (cache_debug(k)) {
			set_where(k, sl, ON_FULL);
			list_add(&k->full, sl, true);
		}
		break;
	case POLICY_START_NODE_PARTIAL:
		add_partial(k, sl, true);
		break;
	case POLICY_START_CPU:
		make_cpu_slab(k, &k->cpus[ss->cpu], sl, ss->cpu);
		break;
	case POLICY_START_CPU_PARTIAL:
		put_cpu_partial(s, k, sl, ss->cpu, false);
		break;
	}
	return 0;
}

const struct policy_ops slub_ops = {
	.name = "slub",
	.desc = "SLUB (mm/slub.c): per-CPU slabs and partial lists, slub_debug F Z P U",
	.settings = POLICY_SET_KERNEL | POLICY_SET_ALIGN | POLICY_SET_NR_CPUS |
		    POLICY_SET_SLUB_DEBUG | POLICY_SET_SLUB_MIN_ORDER | POLICY_SET_SLUB_MAX_ORDER |
		    POLICY_SET_SLUB_MIN_OBJECTS | POLICY_SET_NOMERGE | POLICY_SET_CPU_PARTIAL |
		    POLICY_SET_CACHE_LINE |
		    /* the configuration switches its kmalloc and layout read */
		    POLICY_SET_SLUB_TINY | POLICY_SET_ZONE_DMA | POLICY_SET_SLAB_BUCKETS |
		    POLICY_SET_RANDOM_KMALLOC | POLICY_SET_SHEAVES,
	.figures = POLICY_FIG_OBJECT_SIZE | POLICY_FIG_SIZE | POLICY_FIG_ALIGN | POLICY_FIG_ORDER |
		   POLICY_FIG_OBJS_PER_SLAB | POLICY_FIG_MIN_PARTIAL | POLICY_FIG_CPU_PARTIAL,
	.truth = POLICY_TRUTH_SYSFS,
	.layout = layout_slub,
	.create = slub_create,
	.destroy = slub_destroy,
	.cache_create = slub_cache_create,
	.alloc = slub_alloc,
	.free = slub_free,
	.free_rcu = slub_free_rcu,
	.free_to_slab = slub_free_to_slab,
	.free_bulk = slub_free_bulk,
	.bound_slab = slub_bound_slab,
	.unpark_slab = slub_unpark_slab,
	.pages_traced = slub_pages_traced,
	.start_moves = slub_start_moves,
	.bind_slab = slub_bind_slab,
	.unseen_needs_slab = slub_unseen_needs_slab,
	.nr_caches = slub_nr_caches,
	.cache_info = slub_cache_info,
	.cache_counts = slub_cache_counts,
	.get_slabinfo = slub_get_slabinfo,
	.kmalloc_cache = slub_kmalloc_cache,
	.kmalloc_bytes = slub_kmalloc_bytes,
	.stats = slub_stats,
	.page_counts = slub_pages_ref,
	.check = slub_check,
	.page_orders = slub_page_orders,
	.prepopulate = slub_prepopulate,
	.start_slab = slub_start_slab,
	.page_free_ahead = slub_page_free_ahead,
};
