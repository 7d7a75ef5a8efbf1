/* slab.c - a model of SLAB (mm/slab.c) as of Linux 5.4, for one NUMA node.
 *
 * What is modelled is what decides how many pages a cache holds: the per-CPU
 * array caches (LIFO stacks of free objects), the node's shared array, the
 * node's three slab lists (full, partial, free) with free_limit, the growth
 * of a cache by one slab at a time with colouring, and cache_reap, the
 * periodic work that drains idle arrays and gives free slabs back (run from
 * the policy timer). No alien caches (one node), no pfmemalloc slabs, no
 * CONFIG_SLAB_FREELIST_RANDOM (it permutes the initial freelist, which
 * changes addresses but no page count), no memory pressure.
 *
 * Object layout (layout_slab in layout.c; slot i of a slab):
 *
 *   page + colour_next * colour_off             (s_mem, the colour offset)
 *     + i * size                                 (slot)
 *     | RZ1 8 | object_size ... | RZ2 8 | user 8 | pad to align |  DEBUG_SLAB
 *     | object_size ... | pad to align |                           otherwise
 *   the caller's pointer is slot + obj_offset (8 with red zones, else 0).
 *   The freelist (one byte per object) lives after the slots (ON_SLAB), in a
 *   kmalloc object (OFF_SLAB), or in the slab's last free object
 *   (OBJFREELIST).
 *
 * Invariants (slab_check): every slab is on exactly one list and the list
 * matches page->active (full: num, partial: 1..num-1, free: 0); the node's
 * free_objects is the sum of num - active; objects taken out of slabs are
 * exactly the live objects, the off-slab freelist arrays hosted by the cache
 * and the array-cache entries, each once; a free slab stays only while
 * free_objects <= free_limit.
 *
 * Kernel functions followed (mm/slab.c v5.4): ____cache_alloc,
 * cache_alloc_refill, transfer_objects, get_first_slab, alloc_block,
 * fixup_slab_list, cache_grow_begin/end (colour_next), alloc_slabmgmt,
 * ___cache_free, cache_flusharray, free_block, slab_destroy (frees an
 * off-slab freelist back to its kmalloc cache), cache_reap, drain_array,
 * drain_array_locked, drain_freelist, start_cpu_timer and round_jiffies
 * (kernel/time/timer.c); find_mergeable and __kmem_cache_alias
 * (mm/slab_common.c, mm/slab.c).
 */
#include "buddy.h"
#include "grow.h"
#include "layout.h"
#include "policies_int.h"
#include "u64map.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- time: jiffies at HZ = 250 ---- */

#define HZ		 250u
#define NS_PER_JIFFY	 (1000000000ull / HZ)
#define REAPTIMEOUT_AC	 (2 * HZ) /* per-CPU cache_reap period */
#define REAPTIMEOUT_NODE (4 * HZ) /* node-wide part of cache_reap */
/* INITIAL_JIFFIES on 64 bits: (unsigned long)(unsigned int)(-300 * HZ). Trace
 * time 0 is boot, where jiffies start; the value only sets where the whole
 * seconds that round_jiffies() aims for fall (46 jiffies into a second). */
#define INITIAL_JIFFIES ((uint64_t)(uint32_t)(-300 * (int64_t)HZ))
/* The kernel staggers each cache's node reap by the address of its struct
 * kmem_cache modulo 4 s of jiffies. We have no such address; we take the
 * cache id times 256 bytes (a HWCACHE-aligned struct kmem_cache). */
#define KMEM_CACHE_STRIDE 256u

#define BATCHREFILL_LIMIT 16u /* refill size of an array not touched since the last reap */

static uint64_t jiffies_at(uint64_t t_ns)
{
	return INITIAL_JIFFIES + t_ns / NS_PER_JIFFY;
}

static uint64_t ns_at(uint64_t j)
{
	return (j - INITIAL_JIFFIES) * NS_PER_JIFFY;
}

/* round_jiffies_common(j, cpu, false) evaluated at jiffies now: to a whole
 * second, skewed by 3 jiffies per CPU; rounded down when within a quarter
 * second after it, and the original j if rounding would not be in the
 * future. */
static uint64_t round_jiffies_at(uint64_t j, uint32_t cpu, uint64_t now)
{
	uint64_t original = j;
	j += 3ull * cpu;
	uint64_t rem = j % HZ;
	if (rem < HZ / 4)
		j -= rem;
	else
		j = j - rem + HZ;
	j -= 3ull * cpu;
	return j > now ? j : original;
}

/* ---- data ---- */

enum list_id {
	L_FULL = 0,
	L_PARTIAL,
	L_FREE,
	L_NR,
	L_NONE = L_NR, /* being grown or destroyed */
};

struct slab {
	uint64_t base;		  /* page address: 2^order naturally aligned pages */
	uint64_t freelist_obj;	  /* OFF_SLAB: the index array's object in its kmalloc cache */
	struct slab *prev, *next; /* on one of the cache's lists */
	uint32_t cache;		  /* root cache id */
	uint32_t s_mem;		  /* colour offset of slot 0 */
	uint32_t active;	  /* page->active: objects taken out of the slab */
	uint8_t list;		  /* enum list_id */
	/* the freelist: freelist[active..num) are the free object indexes, the
	 * next one handed out first (slab_get_obj/slab_put_obj) */
	uint8_t freelist[];
};

struct slab_list {
	struct slab *head, *tail;
	uint64_t nr;
};

struct array_cache {
	uint32_t avail, limit, batchcount;
	bool touched;
	uint64_t *entry; /* object addresses; allocated on first use */
};

struct cache {
	char *name;
	uint32_t root;
	bool kmalloc;
	bool ctor;
	bool no_merge;
	uint32_t usersize;
	struct policy_geom g; /* an alias keeps its own object_size here */
	/* root caches only: */
	struct array_cache *cpu; /* cfg.nr_cpus per-CPU arrays */
	struct array_cache shared;
	struct slab_list lists[L_NR];
	uint64_t free_objects; /* n->free_objects: free slots on the lists */
	uint64_t next_reap;    /* n->next_reap, jiffies */
	uint32_t colour_next;
	bool free_touched;	 /* a refill took a slab from slabs_free */
	bool reap_armed;	 /* next_reap set (caches made before the first timer wait) */
	uint32_t freelist_cache; /* OFF_SLAB: id of the kmalloc cache of the index arrays */
	uint64_t live;		 /* objects handed to callers */
	uint64_t internal;	 /* objects holding other caches' off-slab freelists */
	uint64_t slabs_allocated, slabs_freed;
};

struct slab_model {
	struct policy base;
	struct buddy buddy;
	struct cache *caches;
	uint32_t nr_caches;
	size_t cap_caches;
	uint32_t kmalloc_ids[POLICY_KMALLOC_NR_TYPES][LAYOUT_SLAB_KMALLOC_SHIFT_HIGH + 1];
	struct u64map slabs;	    /* slab base address -> struct slab * */
	struct policy_pages counts; /* slab pages, and 6.1's large-kmalloc pages */
	uint64_t large_objs;	    /* live large kmallocs (6.1) */
	/* cache_reap */
	bool timer_started;
	uint64_t now_j;	       /* jiffies of the latest reap (or first timer call) */
	uint64_t *reap_next_j; /* per CPU: when its reap work runs next */
	uint64_t asked_ns;     /* the time the timer last asked for (UINT64_MAX: none) */
};

static uint64_t slab_bytes(const struct cache *k)
{
	return (uint64_t)POLICY_PAGE_SIZE << k->g.order;
}

static uint64_t nr_slabs(const struct cache *k)
{
	return k->lists[L_FULL].nr + k->lists[L_PARTIAL].nr + k->lists[L_FREE].nr;
}

static uint32_t cache_id(const struct slab_model *m, const struct cache *k)
{
	return (uint32_t)(k - m->caches);
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

static void slab_unlink(struct cache *k, struct slab *sl)
{
	struct slab_list *l = &k->lists[sl->list];
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
	sl->list = L_NONE;
}

static void slab_link(struct cache *k, struct slab *sl, enum list_id id, bool tail)
{
	sl->list = (uint8_t)id;
	list_add(&k->lists[id], sl, tail);
}

/* fixup_slab_list(): after taking objects, a slab goes to the head of full
 * or partial. */
static void fixup_slab_list(struct cache *k, struct slab *sl)
{
	if (sl->list != L_NONE)
		slab_unlink(k, sl);
	slab_link(k, sl, sl->active == k->g.objs_per_slab ? L_FULL : L_PARTIAL, false);
}

/* ---- objects within a slab ---- */

static uint64_t obj_addr(const struct cache *k, const struct slab *sl, uint32_t idx)
{
	return sl->base + sl->s_mem + (uint64_t)idx * k->g.size + k->g.obj_offset;
}

/* The slab of cache k holding addr, and the object's index; false if addr
 * is not an object of k. */
static bool find_obj(const struct slab_model *m, const struct cache *k, uint64_t addr,
		     struct slab **osl, uint32_t *oidx)
{
	uint64_t bytes = slab_bytes(k);
	uint64_t v;
	if (addr < BUDDY_BASE)
		return false;
	uint64_t base = BUDDY_BASE + ((addr - BUDDY_BASE) & ~(bytes - 1));
	if (!u64map_get(&m->slabs, base, &v))
		return false;
	struct slab *sl = (struct slab *)(uintptr_t)v;
	uint64_t first = base + sl->s_mem + k->g.obj_offset;
	if (sl->cache != k->root || addr < first || (addr - first) % k->g.size ||
	    (addr - first) / k->g.size >= k->g.objs_per_slab)
		return false;
	*osl = sl;
	*oidx = (uint32_t)((addr - first) / k->g.size);
	return true;
}

static uint32_t slab_get_obj(struct slab *sl)
{
	return sl->freelist[sl->active++];
}

static void slab_put_obj(struct slab *sl, uint32_t idx)
{
	sl->freelist[--sl->active] = (uint8_t)idx;
}

/* ---- array caches ---- */

static int ac_reserve(struct array_cache *ac, const char *name, struct err *e)
{
	if (ac->entry || !ac->limit)
		return 0;
	ac->entry = malloc((size_t)ac->limit * sizeof(*ac->entry));
	if (!ac->entry)
		return err_set(e, SLABSIM_ENOMEM, "out of memory for an array cache of %s", name);
	return 0;
}

/* Drop the first n entries (the oldest), keeping the order of the rest. */
static void ac_shift(struct array_cache *ac, uint32_t n)
{
	ac->avail -= n;
	memmove(ac->entry, ac->entry + n, (size_t)ac->avail * sizeof(*ac->entry));
}

/* transfer_objects(): move the newest entries of from onto to, in order. */
static uint32_t transfer_objects(struct array_cache *to, struct array_cache *from, uint32_t max)
{
	uint32_t nr = from->avail;
	if (nr > max)
		nr = max;
	if (nr > to->limit - to->avail)
		nr = to->limit - to->avail;
	if (!nr)
		return 0;
	memcpy(to->entry + to->avail, from->entry + from->avail - nr, nr * sizeof(*to->entry));
	from->avail -= nr;
	to->avail += nr;
	return nr;
}

/* ---- growing and destroying slabs ---- */

static int cache_alloc(struct slab_model *m, struct cache *k, uint32_t cpu, uint64_t *addr,
		       struct err *e);
static int cache_free(struct slab_model *m, struct cache *k, uint64_t addr, uint32_t cpu,
		      struct err *e);

/* cache_grow_begin(): a new slab, on no list yet, with the next colour and
 * every object free in index order. An off-slab freelist is allocated from
 * its kmalloc cache on the growing CPU, as alloc_slabmgmt does. */
static int cache_grow_begin(struct slab_model *m, struct cache *k, uint32_t cpu, struct slab **out,
			    struct err *e)
{
	uint32_t n = k->g.objs_per_slab;
	struct slab *sl = malloc(sizeof(*sl) + n);
	if (!sl)
		return err_set(e, SLABSIM_ENOMEM, "out of memory for a slab of %s", k->name);
	if (buddy_alloc(&m->buddy, k->g.order, &sl->base)) {
		free(sl);
		return err_set(e, SLABSIM_ENOMEM, "out of memory for a slab of %s", k->name);
	}
	/* colour_next advances before use: the first slab gets colour 1 */
	k->colour_next++;
	if (k->colour_next >= k->g.colour)
		k->colour_next = 0;
	sl->s_mem = k->colour_next * k->g.colour_off;
	sl->freelist_obj = 0;
	if (k->g.freelist_mode == POLICY_FREELIST_OFF_SLAB) {
		struct cache *host = &m->caches[k->freelist_cache];
		int rc = cache_alloc(m, host, cpu, &sl->freelist_obj, e);
		if (rc) {
			(void)buddy_free(&m->buddy, sl->base, k->g.order);
			free(sl);
			return rc;
		}
		host->internal++;
	}
	if (u64map_put(&m->slabs, sl->base, (uint64_t)(uintptr_t)sl)) {
		if (k->g.freelist_mode == POLICY_FREELIST_OFF_SLAB) {
			m->caches[k->freelist_cache].internal--;
			(void)cache_free(m, &m->caches[k->freelist_cache], sl->freelist_obj, cpu,
					 NULL);
		}
		(void)buddy_free(&m->buddy, sl->base, k->g.order);
		free(sl);
		return err_set(e, SLABSIM_ENOMEM, "out of memory for a slab of %s", k->name);
	}
	sl->cache = k->root;
	sl->active = 0;
	sl->list = L_NONE;
	sl->prev = sl->next = NULL;
	for (uint32_t i = 0; i < n; i++)
		sl->freelist[i] = (uint8_t)i;
	k->slabs_allocated++;
	m->counts.slab += 1ULL << k->g.order;
	*out = sl;
	return 0;
}

/* cache_grow_end(): count the new slab on the node. */
static void cache_grow_end(struct cache *k, struct slab *sl)
{
	if (!sl->active)
		slab_link(k, sl, L_FREE, true);
	else
		fixup_slab_list(k, sl);
	k->free_objects += k->g.objs_per_slab - sl->active;
}

/* slab_destroy() for a slab already taken off its list and its count: the
 * pages go back, and an off-slab freelist is freed on the CPU doing it. */
static int slab_destroy(struct slab_model *m, struct cache *k, struct slab *sl, uint32_t cpu,
			struct err *e)
{
	int rc = 0;
	(void)u64map_del(&m->slabs, sl->base, NULL);
	(void)buddy_free(&m->buddy, sl->base, k->g.order);
	m->counts.slab -= 1ULL << k->g.order;
	k->slabs_freed++;
	if (k->g.freelist_mode == POLICY_FREELIST_OFF_SLAB) {
		struct cache *host = &m->caches[k->freelist_cache];
		host->internal--;
		rc = cache_free(m, host, sl->freelist_obj, cpu, e);
	}
	free(sl);
	return rc;
}

/* slabs_destroy(): the list free_block or drain_freelist detached, linked
 * through ->next. */
static int slabs_destroy(struct slab_model *m, struct cache *k, struct slab *list, uint32_t cpu,
			 struct err *e)
{
	int rc = 0;
	while (list) {
		struct slab *next = list->next;
		int r = slab_destroy(m, k, list, cpu, e);
		if (r && !rc)
			rc = r;
		list = next;
	}
	return rc;
}

/* Take the slab at the tail of slabs_free off the node, onto *list. */
static void detach_free_tail(struct cache *k, struct slab **list)
{
	struct slab *sl = k->lists[L_FREE].tail;
	slab_unlink(k, sl);
	k->free_objects -= k->g.objs_per_slab;
	sl->next = *list;
	*list = sl;
}

/* free_block(): objects back to their slabs (LIFO within a slab). A slab
 * that empties goes to the head of slabs_free, one that stays partial to the
 * tail of slabs_partial ("maximum time for the other objects to be freed");
 * then free slabs are detached from the tail while the node holds more than
 * free_limit free objects. */
static struct slab *free_block(struct slab_model *m, struct cache *k, const uint64_t *objs,
			       uint32_t nr)
{
	struct slab *list = NULL;
	k->free_objects += nr;
	for (uint32_t i = 0; i < nr; i++) {
		struct slab *sl;
		uint32_t idx;
		/* entries were validated when they entered an array */
		if (!find_obj(m, k, objs[i], &sl, &idx)) {
			k->free_objects--;
			continue;
		}
		slab_unlink(k, sl);
		slab_put_obj(sl, idx);
		if (sl->active == 0)
			slab_link(k, sl, L_FREE, false);
		else
			slab_link(k, sl, L_PARTIAL, true);
	}
	while (k->free_objects > k->g.free_limit && k->lists[L_FREE].nr)
		detach_free_tail(k, &list);
	return list;
}

/* drain_freelist(): destroy up to tofree slabs from the tail of slabs_free. */
static int drain_freelist(struct slab_model *m, struct cache *k, uint64_t tofree, uint32_t cpu,
			  struct err *e)
{
	struct slab *list = NULL;
	for (uint64_t n = 0; n < tofree && k->lists[L_FREE].nr; n++)
		detach_free_tail(k, &list);
	return slabs_destroy(m, k, list, cpu, e);
}

/* ---- allocation ---- */

/* get_first_slab(): the head of slabs_partial, else of slabs_free (which
 * marks the node's free list as used since the last reap). */
static struct slab *get_first_slab(struct cache *k)
{
	if (k->lists[L_PARTIAL].head)
		return k->lists[L_PARTIAL].head;
	k->free_touched = true;
	return k->lists[L_FREE].head;
}

/* alloc_block(): up to batch objects of sl, in freelist order, onto ac;
 * returns what is left of batch. */
static uint32_t alloc_block(struct cache *k, struct array_cache *ac, struct slab *sl,
			    uint32_t batch)
{
	while (sl->active < k->g.objs_per_slab && batch) {
		ac->entry[ac->avail++] = obj_addr(k, sl, slab_get_obj(sl));
		batch--;
	}
	return batch;
}

/* cache_alloc_refill(): the CPU array is empty. Refill it with a batch from
 * the shared array, else from the node's slabs, else from a new slab; then
 * hand out the last object pulled. */
static int cache_alloc_refill(struct slab_model *m, struct cache *k, uint32_t cpu, uint64_t *addr,
			      struct err *e)
{
	struct array_cache *ac = &k->cpu[cpu];
	struct array_cache *shared = k->shared.limit ? &k->shared : NULL;
	uint32_t batch = ac->batchcount;
	int rc;

	/* little recent activity: a partial refill avoids refill bouncing */
	if (!ac->touched && batch > BATCHREFILL_LIMIT)
		batch = BATCHREFILL_LIMIT;
	if ((rc = ac_reserve(ac, k->name, e)))
		return rc;

	if (k->free_objects || (shared && shared->avail)) {
		if (shared && transfer_objects(ac, shared, batch)) {
			shared->touched = true;
		} else {
			while (batch > 0) {
				struct slab *sl = get_first_slab(k);
				if (!sl)
					break;
				batch = alloc_block(k, ac, sl, batch);
				fixup_slab_list(k, sl);
			}
			k->free_objects -= ac->avail;
		}
	}
	if (!ac->avail) {
		struct slab *sl = NULL;
		if ((rc = cache_grow_begin(m, k, cpu, &sl, e)))
			return rc;
		/* the freelist allocation may have used this CPU's array of
		 * another cache, never this one's: ac is still empty */
		alloc_block(k, ac, sl, batch);
		cache_grow_end(k, sl);
	}
	ac->touched = true;
	*addr = ac->entry[--ac->avail];
	return 0;
}

/* ____cache_alloc(): LIFO from the CPU array. */
static int cache_alloc(struct slab_model *m, struct cache *k, uint32_t cpu, uint64_t *addr,
		       struct err *e)
{
	struct array_cache *ac = &k->cpu[cpu];
	if (ac->avail) {
		ac->touched = true;
		*addr = ac->entry[--ac->avail];
		return 0;
	}
	return cache_alloc_refill(m, k, cpu, addr, e);
}

/* ---- free ---- */

/* cache_flusharray(): the CPU array is full. Its oldest batchcount entries
 * go to the shared array if that has room (as many as fit), else back to
 * their slabs. */
static int cache_flusharray(struct slab_model *m, struct cache *k, struct array_cache *ac,
			    uint32_t cpu, struct err *e)
{
	uint32_t batch = ac->batchcount;
	struct slab *list = NULL;
	int rc;

	if (k->shared.limit && k->shared.avail < k->shared.limit) {
		struct array_cache *sh = &k->shared;
		if ((rc = ac_reserve(sh, k->name, e)))
			return rc;
		if (batch > sh->limit - sh->avail)
			batch = sh->limit - sh->avail;
		memcpy(sh->entry + sh->avail, ac->entry, batch * sizeof(*ac->entry));
		sh->avail += batch;
	} else {
		list = free_block(m, k, ac->entry, batch);
	}
	ac_shift(ac, batch);
	return slabs_destroy(m, k, list, cpu, e);
}

/* ___cache_free(): push on the CPU array, flushing it first when full. */
static int cache_free(struct slab_model *m, struct cache *k, uint64_t addr, uint32_t cpu,
		      struct err *e)
{
	struct array_cache *ac = &k->cpu[cpu];
	int rc = ac_reserve(ac, k->name, e);
	if (rc)
		return rc;
	if (ac->avail >= ac->limit && (rc = cache_flusharray(m, k, ac, cpu, e)))
		return rc;
	ac->entry[ac->avail++] = addr;
	return 0;
}

/* ---- cache_reap ---- */

/* drain_array(): an array used since the last reap only loses its touched
 * mark; an idle one gives back a fifth of its limit from the oldest end (or
 * half of what it holds, if that is less). */
static int drain_array(struct slab_model *m, struct cache *k, struct array_cache *ac, uint32_t cpu,
		       struct err *e)
{
	if (!ac->avail)
		return 0;
	if (ac->touched) {
		ac->touched = false;
		return 0;
	}
	uint32_t tofree = (ac->limit + 4) / 5;
	if (tofree > ac->avail)
		tofree = (ac->avail + 1) / 2;
	struct slab *list = free_block(m, k, ac->entry, tofree);
	ac_shift(ac, tofree);
	return slabs_destroy(m, k, list, cpu, e);
}

/* Set a cache's first node reap: REAPTIMEOUT_NODE after creation plus the
 * per-cache stagger (init_cache_node / setup_cpu_cache). cache_create gets
 * no time, so "creation" is the latest reap (or the first timer call). */
static void arm_reap(struct slab_model *m, struct cache *k)
{
	k->next_reap = m->now_j + REAPTIMEOUT_NODE +
		       (uint64_t)cache_id(m, k) * KMEM_CACHE_STRIDE % REAPTIMEOUT_NODE;
	k->reap_armed = true;
}

/* cache_reap() on cpu at jiffies j: every cache, newest first (slab_caches
 * order). */
static int cache_reap(struct slab_model *m, uint32_t cpu, uint64_t j, struct err *e)
{
	int rc;
	for (uint32_t i = m->nr_caches; i-- > 0;) {
		struct cache *k = &m->caches[i];
		if (k->root != i)
			continue;
		if ((rc = drain_array(m, k, &k->cpu[cpu], cpu, e)))
			return rc;
		if (k->next_reap > j)
			continue;
		k->next_reap = j + REAPTIMEOUT_NODE;
		if ((rc = drain_array(m, k, &k->shared, cpu, e)))
			return rc;
		if (k->free_touched) {
			k->free_touched = false;
		} else {
			/* a fifth of free_limit, in slabs, rounded up */
			uint64_t per = 5ull * k->g.objs_per_slab;
			if ((rc = drain_freelist(m, k, (k->g.free_limit + per - 1) / per, cpu, e)))
				return rc;
		}
	}
	return 0;
}

/* ---- idle intervals: many reaps in O(1) each ----
 *
 * A reap that changes no state. Following cache_reap() (mm/slab.c v5.4) on
 * one CPU at jiffy j, for each cache:
 *   1. drain_array(its array on this CPU): with ac->avail == 0 it returns
 *      at once ("if (!ac || !ac->avail) return;" comes before the touched
 *      test), not even clearing ac->touched; otherwise it clears touched
 *      or frees objects: a change.
 *   2. if n->next_reap > j: nothing more. Else n->next_reap = j +
 *      REAPTIMEOUT_NODE (the schedule, treated below), then drain_array of
 *      the shared array (a no-op iff shared.avail == 0 as in 1), then
 *      n->free_touched: if set it is cleared (a change); if clear,
 *      drain_freelist(tofree = ceil(free_limit / (5 * num))) slabs, a no-op
 *      iff there is no free slab or tofree is 0.
 * So when every root cache has every per-CPU array and the shared array
 * empty, free_touched clear, and no free slab to drain (reap_idle), a reap
 * changes nothing but the schedule (reap_next_j, next_reap), and leaves the
 * model idle: every later reap until the next event is a no-op too. Between
 * events the state reaches idle after a bounded number of reaps (each reap
 * of an untouched array frees at least one entry, each node reap at least
 * one free slab, a touched mark is cleared once), and from there the
 * schedule is plain arithmetic (reap_skip): identical to stepping it.
 *
 * The schedule. A CPU's work is rescheduled at round_jiffies_at(j + 2 s):
 * once j + 3 cpu is a whole second (it is from the first reap on:
 * start_cpu_timer rounds to a whole second, and the rounding is never
 * refused because it is at least 3/4 s ahead), j + 2 s is one too and
 * rounds to itself: CPU c reaps at r_c + 500 n jiffies exactly. A cache's
 * node part runs at the first reap of any CPU at or after next_reap = N,
 * at t0 say, and sets next_reap = t0 + 1000; the CPU that reaped at t0
 * reaps again at t0 + 1000 (twice its period), and no reap of another CPU
 * falls in [t0 + 1000, t0 + 1000): the node part then runs every 1000
 * jiffies, t0 + 1000 k. Which CPU does it at a tie is immaterial when idle. */

#define REAP_PHASE_OK(j, cpu) ((((j) + 3ull * (cpu)) % HZ) == 0)

/* Would a reap now change anything but the schedule? (see above) */
static bool reap_idle(const struct slab_model *m, uint32_t ncpu)
{
	for (uint32_t i = 0; i < m->nr_caches; i++) {
		const struct cache *k = &m->caches[i];
		if (k->root != i)
			continue;
		uint64_t per = 5ull * k->g.objs_per_slab;
		if (k->shared.avail || k->free_touched ||
		    (k->lists[L_FREE].nr && (k->g.free_limit + per - 1) / per))
			return false;
		for (uint32_t c = 0; c < ncpu; c++)
			if (k->cpu[c].avail)
				return false;
	}
	return true;
}

/* Every reap due at or before now, on an idle model (reap_idle): only the
 * schedule moves. False (nothing done) if a CPU is off its whole-second
 * phase, which the rounding rules out; the caller then steps. */
static bool reap_skip(struct slab_model *m, uint32_t ncpu, uint64_t now)
{
	for (uint32_t c = 0; c < ncpu; c++)
		if (!REAP_PHASE_OK(m->reap_next_j[c], c))
			return false;
	for (uint32_t i = 0; i < m->nr_caches; i++) {
		struct cache *k = &m->caches[i];
		if (k->root != i)
			continue;
		/* t0: the first pending reap of any CPU at or after next_reap */
		uint64_t t0 = UINT64_MAX;
		for (uint32_t c = 0; c < ncpu; c++) {
			uint64_t r = m->reap_next_j[c];
			if (r < k->next_reap)
				r += (k->next_reap - r + REAPTIMEOUT_AC - 1) / REAPTIMEOUT_AC *
				     REAPTIMEOUT_AC;
			if (r < t0)
				t0 = r;
		}
		if (t0 <= now)
			k->next_reap = t0 + ((now - t0) / REAPTIMEOUT_NODE + 1) * REAPTIMEOUT_NODE;
	}
	for (uint32_t c = 0; c < ncpu; c++) {
		uint64_t r = m->reap_next_j[c];
		if (r > now)
			continue;
		uint64_t last = r + (now - r) / REAPTIMEOUT_AC * REAPTIMEOUT_AC;
		if (last > m->now_j)
			m->now_j = last; /* the latest reap, as if stepped */
		m->reap_next_j[c] = last + REAPTIMEOUT_AC;
	}
	return true;
}

/* The earliest reap due at or before now (lowest CPU at a tie), or
 * UINT32_MAX. */
static uint32_t reap_due(const struct slab_model *m, uint32_t ncpu, uint64_t now)
{
	uint32_t cpu = UINT32_MAX;
	for (uint32_t c = 0; c < ncpu; c++)
		if (m->reap_next_j[c] <= now &&
		    (cpu == UINT32_MAX || m->reap_next_j[c] < m->reap_next_j[cpu]))
			cpu = c;
	return cpu;
}

/* The timer: every reap due by now_ns in time order. Over a long interval
 * without events (more than two node periods left) the model is checked for
 * idleness before each reap and, once idle, the rest is skipped by
 * arithmetic; a model idle after a reap asks for no timer (UINT64_MAX: the
 * engine calls again at the next event, which catches up the schedule the
 * same way), so a gap of 1.8e10 s costs no more than one of a second. */
static int slab_timer(struct policy *p, uint64_t now_ns, uint64_t *next_ns, struct err *e)
{
	struct slab_model *m = (struct slab_model *)p;
	uint64_t now = jiffies_at(now_ns);
	uint32_t ncpu = p->cfg.nr_cpus;
	uint32_t cpu;

	if (!m->timer_started) {
		/* The replay starts like the kernel's cpucache_init: each CPU's
		 * reap work first runs about a second later (start_cpu_timer),
		 * and caches made so far count as created now. */
		m->timer_started = true;
		m->now_j = now;
		for (uint32_t i = 0; i < m->nr_caches; i++)
			if (m->caches[i].root == i && !m->caches[i].reap_armed)
				arm_reap(m, &m->caches[i]);
		for (uint32_t c = 0; c < ncpu; c++)
			m->reap_next_j[c] = round_jiffies_at(now + HZ, c, now);
	}
	/* a call at the time asked for, or one at an event (after an idle
	 * answer, or the first) */
	bool scheduled = now_ns == m->asked_ns;
	while ((cpu = reap_due(m, ncpu, now)) != UINT32_MAX) {
		uint64_t j = m->reap_next_j[cpu];
		if (now - j > 2 * REAPTIMEOUT_NODE && reap_idle(m, ncpu) && reap_skip(m, ncpu, now))
			break;
		/* the engine called at each reap time before the idle skip
		 * existed: now_j (a new cache's first node reap) is the latest
		 * reap's, not the event's that brought this call */
		m->now_j = j;
		int rc = cache_reap(m, cpu, j, e);
		if (rc)
			return rc;
		/* schedule_delayed_work_on(round_jiffies_relative(2 s)) */
		m->reap_next_j[cpu] = round_jiffies_at(j + REAPTIMEOUT_AC, cpu, j);
	}
	/* Idle after the reaps it asked for: not before the next event (the
	 * engine calls again then). A call at an event always asks for its
	 * next reap: the event that follows it may end the idleness, and the
	 * reaps that then change the model must run at their own times, where
	 * the engine observes the pages. */
	uint64_t next = UINT64_MAX;
	if (!scheduled || !reap_idle(m, ncpu))
		for (uint32_t c = 0; c < ncpu; c++)
			if (m->reap_next_j[c] < next)
				next = m->reap_next_j[c];
	*next_ns = next == UINT64_MAX ? UINT64_MAX : ns_at(next);
	m->asked_ns = *next_ns;
	return 0;
}

/* ---- caches ---- */

static int add_cache(struct slab_model *m, const char *name, const struct policy_geom *g,
		     uint32_t root, bool kmalloc, const struct policy_cache_spec *spec,
		     uint32_t *id, struct err *e)
{
	if (m->nr_caches == m->cap_caches) {
		struct cache *n =
			grow_room(m->caches, &m->cap_caches, m->nr_caches, sizeof(*n), 128);
		if (!n)
			return err_set(e, SLABSIM_ENOMEM, "out of memory for cache %s", name);
		m->caches = n;
	}
	uint32_t i = m->nr_caches;
	struct cache *k = &m->caches[i];
	memset(k, 0, sizeof(*k));
	k->name = strdup(name);
	k->g = *g;
	if (root == UINT32_MAX) {
		root = i;
		k->cpu = calloc(m->base.cfg.nr_cpus, sizeof(*k->cpu));
		for (uint32_t c = 0; k->cpu && c < m->base.cfg.nr_cpus; c++) {
			k->cpu[c].limit = g->limit;
			k->cpu[c].batchcount = g->batchcount;
		}
		/* the shared array holds shared * batchcount pointers */
		k->shared.limit = g->shared * g->batchcount;
		k->shared.batchcount = 0xbaadf00d; /* as the kernel's: never used */
		k->freelist_cache = POLICY_NO_CACHE;
		if (g->freelist_mode == POLICY_FREELIST_OFF_SLAB) {
			/* kmalloc_slab(freelist_size): a NORMAL kmalloc cache */
			uint32_t idx = layout_slab_kmalloc_index(g->objs_per_slab);
			k->freelist_cache =
				idx ? m->kmalloc_ids[POLICY_KMALLOC_NORMAL][idx] : POLICY_NO_CACHE;
		}
	}
	if (!k->name || (root == i && !k->cpu) ||
	    (root == i && g->freelist_mode == POLICY_FREELIST_OFF_SLAB &&
	     k->freelist_cache == POLICY_NO_CACHE)) {
		bool nomem = !k->name || !k->cpu;
		free(k->name);
		free(k->cpu);
		if (nomem)
			return err_set(e, SLABSIM_ENOMEM, "out of memory for cache %s", name);
		return err_set(e, SLABSIM_EUSAGE, "cache %s: no kmalloc cache for its freelist",
			       name);
	}
	k->root = root;
	k->kmalloc = kmalloc;
	if (spec) {
		k->no_merge = spec->no_merge;
		k->ctor = spec->ctor;
		k->usersize = spec->usersize;
	}
	m->nr_caches++;
	if (root == i && m->timer_started)
		arm_reap(m, k);
	*id = i;
	return 0;
}

/* slab_unmergeable(): under DEBUG_SLAB every cache carries P (or RCU), so
 * nothing merges then. */
static bool mergeable_target(const struct slab_model *m, const struct cache *k)
{
	return k->root == cache_id(m, k) && layout_merge_target(&m->base.cfg, &k->g, k->kmalloc,
								k->ctor, k->usersize, k->no_merge);
}

/* find_mergeable(). The kernel walks slab_root_caches backwards, and
 * memcg_link_cache adds at the head, so the oldest cache wins. SLAB also
 * needs the target's alignment to be a multiple of the new one. */
static uint32_t find_mergeable(const struct slab_model *m, const struct policy_cache_spec *spec)
{
	/* kmem_cache_flags() adds nothing under SLAB; CACHE_CREATE_MASK drops
	 * the debug bits without DEBUG_SLAB */
	uint32_t flags = spec->flags & ~POLICY_F_DEBUG_MASK, align;
	if (m->base.cfg.slab_debug)
		flags |= spec->flags & (POLICY_F_RED_ZONE | POLICY_F_POISON | POLICY_F_STORE_USER);
	uint64_t size;
	if (!layout_merge_request(&m->base.cfg, spec, flags, &size, &align))
		return UINT32_MAX;
	for (uint32_t i = 0; i < m->nr_caches; i++) {
		const struct cache *k = &m->caches[i];
		if (mergeable_target(m, k) && layout_merge_fits(&k->g, size, align, flags, true))
			return i;
	}
	return UINT32_MAX;
}

static int slab_cache_create(struct policy *p, const struct policy_cache_spec *spec, uint32_t *id,
			     struct err *e)
{
	struct slab_model *m = (struct slab_model *)p;
	struct policy_geom g;
	uint32_t target = find_mergeable(m, spec);

	if (target != UINT32_MAX) {
		/* __kmem_cache_alias(): the target's object_size grows so that
		 * kzalloc clears all of the larger object */
		struct cache *t = &m->caches[target];
		if (spec->object_size > t->g.object_size)
			t->g.object_size = spec->object_size;
		g = t->g;
		g.object_size = spec->object_size;
		return add_cache(m, spec->name ? spec->name : "(unnamed)", &g, target, false, spec,
				 id, e);
	}
	int rc = layout_slab(&p->cfg, spec, &g, e);
	if (rc)
		return rc;
	return add_cache(m, spec->name ? spec->name : "(unnamed)", &g, UINT32_MAX, false, spec, id,
			 e);
}

/* The largest kmalloc cache's index. 5.4: KMALLOC_SHIFT_HIGH = MAX_ORDER +
 * PAGE_SHIFT - 1, caches up to 4 MiB. 6.1 (include/linux/slab.h; commit
 * "mm/slab: kmalloc: pass requests larger than order-1 page to page
 * allocator", v6.1): PAGE_SHIFT + 1 as for SLUB, caches up to 8 KiB and
 * larger kmallocs to the page allocator (__kmalloc_large_node in
 * mm/slab_common.c, counted in Slab: but in no cache of /proc/slabinfo). */
static uint32_t kmalloc_shift_high(const struct policy_cfg *cfg)
{
	return cfg->kernel >= POLICY_KERNEL_6_1 ? POLICY_PAGE_SHIFT + 1
						: LAYOUT_SLAB_KMALLOC_SHIFT_HIGH;
}

static uint32_t slab_kmalloc_cache(const struct policy *p, uint64_t size,
				   enum policy_kmalloc_type t)
{
	const struct slab_model *m = (const struct slab_model *)p;
	uint32_t idx = layout_slab_kmalloc_index(size);
	if (!idx || idx > kmalloc_shift_high(&p->cfg))
		return POLICY_NO_CACHE;
	return m->kmalloc_ids[layout_kmalloc_type(&p->cfg, t)][idx];
}

/* slot size of the kmalloc cache (its root's); SLAB has caches up to 4 MiB,
 * so whole pages only for sizes alloc() refuses */
static uint64_t slab_kmalloc_bytes(const struct policy *p, uint64_t size,
				   enum policy_kmalloc_type t)
{
	const struct slab_model *m = (const struct slab_model *)p;
	uint32_t id = slab_kmalloc_cache(p, size, t);
	if (id == POLICY_NO_CACHE)
		return policy_large_kmalloc_bytes(size);
	return m->caches[m->caches[id].root].g.size;
}

static void slab_destroy_policy(struct policy *p);

static int add_kmalloc_cache(struct slab_model *m, enum policy_kmalloc_type t, uint32_t idx,
			     struct err *e)
{
	struct policy_geom g;
	char name[32];
	int rc = layout_slab_kmalloc(&m->base.cfg, t, idx, &g, e);
	if (rc)
		return rc;
	struct policy_cache_spec spec = {
		.object_size = g.object_size,
		/* 5.4 DMA caches have no usersize (so they can be merge
		 * targets); the rest do */
		.usersize = (t == POLICY_KMALLOC_DMA && m->base.cfg.kernel < POLICY_KERNEL_6_1)
				    ? 0
				    : g.object_size,
	};
	return add_cache(m, layout_kmalloc_name(t, idx, name), &g, UINT32_MAX, true, &spec,
			 &m->kmalloc_ids[t][idx], e);
}

static int slab_create(const struct policy_cfg *cfg, struct policy **out, struct err *e)
{
	if (cfg->nr_cpus == 0 || cfg->nr_cpus > 8192)
		return err_set(e, SLABSIM_EUSAGE, "--nr-cpus must be 1..8192, got %u",
			       cfg->nr_cpus);
	struct slab_model *m = calloc(1, sizeof(*m));
	if (!m)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	m->base.ops = &slab_ops;
	m->base.cfg = *cfg;
	m->now_j = INITIAL_JIFFIES;
	m->asked_ns = UINT64_MAX;
	buddy_init(&m->buddy);
	u64map_init(&m->slabs);
	for (int t = 0; t < POLICY_KMALLOC_NR_TYPES; t++)
		for (int i = 0; i <= LAYOUT_SLAB_KMALLOC_SHIFT_HIGH; i++)
			m->kmalloc_ids[t][i] = POLICY_NO_CACHE;
	m->reap_next_j = calloc(cfg->nr_cpus, sizeof(*m->reap_next_j));
	if (!m->reap_next_j) {
		slab_destroy_policy(&m->base);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}

	/* create_kmalloc_caches(): NORMAL then RECLAIM (then 6.1's CGROUP),
	 * each from 32 up with 96 after 64 and 192 after 128; then the DMA
	 * copies in index order (96, 192, 32, 64, 128, ...). Not modelled: the
	 * boot caches kmem_cache and the early kmem_cache_node kmalloc cache,
	 * which change only the creation order. */
	static const enum policy_kmalloc_type types[] = {
		POLICY_KMALLOC_NORMAL, POLICY_KMALLOC_RECLAIM, POLICY_KMALLOC_CGROUP};
	int rc = 0;
	for (size_t ti = 0; ti < sizeof(types) / sizeof(types[0]) && !rc; ti++) {
		enum policy_kmalloc_type t = types[ti];
		/* a type the configuration folds into NORMAL (5.4's or a
		 * MEMCG-less CGROUP, SLUB_TINY's RECLAIM) has no caches */
		if (layout_kmalloc_type(cfg, t) != t)
			continue;
		for (uint32_t i = LAYOUT_SLAB_KMALLOC_SHIFT_LOW;
		     i <= kmalloc_shift_high(cfg) && !rc; i++) {
			rc = add_kmalloc_cache(m, t, i, e);
			if (!rc && i == 6)
				rc = add_kmalloc_cache(m, t, 1, e);
			if (!rc && i == 7)
				rc = add_kmalloc_cache(m, t, 2, e);
		}
	}
	for (uint32_t i = 0; i <= LAYOUT_SLAB_KMALLOC_SHIFT_HIGH && !rc; i++)
		if (m->kmalloc_ids[POLICY_KMALLOC_NORMAL][i] != POLICY_NO_CACHE &&
		    layout_kmalloc_type(cfg, POLICY_KMALLOC_DMA) == POLICY_KMALLOC_DMA)
			rc = add_kmalloc_cache(m, POLICY_KMALLOC_DMA, i, e);
	if (rc) {
		slab_destroy_policy(&m->base);
		return rc;
	}
	*out = &m->base;
	return 0;
}

static void slab_destroy_policy(struct policy *p)
{
	struct slab_model *m = (struct slab_model *)p;
	if (!m)
		return;
	size_t pos = 0;
	uint64_t key, val;
	while (u64map_next(&m->slabs, &pos, &key, &val))
		free((struct slab *)(uintptr_t)val);
	u64map_fini(&m->slabs);
	for (uint32_t i = 0; i < m->nr_caches; i++) {
		struct cache *k = &m->caches[i];
		free(k->name);
		if (k->cpu)
			for (uint32_t c = 0; c < p->cfg.nr_cpus; c++)
				free(k->cpu[c].entry);
		free(k->cpu);
		free(k->shared.entry);
	}
	free(m->caches);
	free(m->reap_next_j);
	buddy_fini(&m->buddy);
	free(m);
}

/* ---- the policy interface ---- */

static int slab_alloc(struct policy *p, const struct policy_alloc_req *r, struct policy_obj *out,
		      struct err *e)
{
	struct slab_model *m = (struct slab_model *)p;
	uint32_t id = r->cache;

	int rc0 = policy_check_alloc(p, r, m->nr_caches, e);
	if (rc0)
		return rc0;
	if (id == POLICY_KMALLOC) {
		/* __do_kmalloc: 5.4 NULL above KMALLOC_MAX_CACHE_SIZE, no page
		 * path; 6.1 kmalloc_large, whole pages from the page allocator */
		id = slab_kmalloc_cache(p, r->size, r->ktype);
		if (id == POLICY_NO_CACHE && p->cfg.kernel >= POLICY_KERNEL_6_1 &&
		    r->size > (1u << kmalloc_shift_high(&p->cfg)) &&
		    layout_get_order(r->size) < POLICY_MAX_ORDER) {
			return buddy_kmalloc_large(&m->buddy, r->size, out, &m->counts.large,
						   &m->large_objs, e);
		}
		if (id == POLICY_NO_CACHE)
			return err_set(e, SLABSIM_EUSAGE, "kmalloc of %" PRIu64 " bytes: no cache",
				       r->size);
	}
	/* one node: a requested node (r->node) changes nothing */
	struct cache *k = &m->caches[m->caches[id].root];
	uint64_t addr;
	int rc = cache_alloc(m, k, r->cpu, &addr, e);
	if (rc)
		return rc;
	k->live++;
	out->addr = addr;
	out->cache = id;
	out->order = k->g.order;
	out->bytes_alloc = k->g.size;
	out->size = r->cache == POLICY_KMALLOC ? r->size : m->caches[id].g.object_size;
	out->slot_bytes = k->g.size;
	out->object_bytes = m->caches[id].g.object_size;
	out->meta_bytes = k->g.size - out->object_bytes;
	return 0;
}

static int slab_free(struct policy *p, const struct policy_obj *o, uint32_t cpu, struct err *e)
{
	struct slab_model *m = (struct slab_model *)p;
	int rc0 = policy_check_free(p, o, cpu, m->nr_caches, e);
	if (rc0)
		return rc0;
	if (o->cache == POLICY_NO_CACHE) {
		if (p->cfg.kernel < POLICY_KERNEL_6_1 || !m->large_objs)
			return err_set(e, SLABSIM_EUSAGE,
				       "no page-allocator object of SLAB is live");
		m->counts.large -= 1ULL << o->order;
		m->large_objs--;
		return buddy_free(&m->buddy, o->addr, o->order);
	}
	struct cache *k = &m->caches[m->caches[o->cache].root];
	struct slab *sl;
	uint32_t idx;
	if (!find_obj(m, k, o->addr, &sl, &idx))
		return err_set(e, SLABSIM_EMODEL, "free of 0x%" PRIx64 ": not an object of %s",
			       o->addr, k->name);
	for (uint32_t i = sl->active; i < k->g.objs_per_slab; i++)
		if (sl->freelist[i] == idx)
			return err_set(e, SLABSIM_EMODEL,
				       "free of 0x%" PRIx64 ": already free in %s", o->addr,
				       k->name);
	if (!k->live)
		return err_set(e, SLABSIM_EMODEL, "free of 0x%" PRIx64 ": %s has no live object",
			       o->addr, k->name);
	k->live--;
	return cache_free(m, k, o->addr, cpu, e);
}

static uint32_t slab_nr_caches(const struct policy *p)
{
	return ((const struct slab_model *)p)->nr_caches;
}

static void slab_cache_info(const struct policy *p, uint32_t id, struct policy_cache_info *out)
{
	const struct slab_model *m = (const struct slab_model *)p;
	const struct cache *a = &m->caches[id];
	const struct cache *k = &m->caches[a->root];
	uint64_t n = nr_slabs(k);
	memset(out, 0, sizeof(*out));
	out->name = a->name;
	out->g = k->g;
	out->g.object_size = a->g.object_size;
	out->kmalloc = a->kmalloc;
	out->alias_of = a->root;
	out->nr_slabs = n;
	out->nr_pages = n << k->g.order;
	out->total_objects = n * k->g.objs_per_slab;
	/* Off-slab freelists of other caches occupy slots here too: counting
	 * them as in use keeps (total - inuse) * size the free slot bytes. */
	out->inuse_objects = k->live + k->internal;
	out->nr_partial = k->lists[L_PARTIAL].nr;
	/* slabinfo's active_objs = total - n->free_objects: objects sitting
	 * in the per-CPU and shared arrays count as active */
	out->free_in_partial = k->free_objects;
	out->cpu_slabs = 0;
	out->slabs_allocated = k->slabs_allocated;
	out->slabs_freed = k->slabs_freed;
	out->tail_bytes = n * (slab_bytes(k) - (uint64_t)k->g.objs_per_slab * k->g.size);
	out->internal_bytes = k->internal * k->g.size;
}

/* mm/slab.c get_slabinfo(): active_objs excludes the node's free objects
 * (objects sitting in the per-CPU and shared arrays count as active),
 * active_slabs excludes slabs_free; the tunables and the shared array's
 * fill (sharedavail) come along. */
static void slab_get_slabinfo(const struct policy *p, uint32_t id, struct policy_slabinfo *out)
{
	const struct slab_model *m = (const struct slab_model *)p;
	const struct cache *k = &m->caches[m->caches[id].root];
	uint64_t n = nr_slabs(k);
	memset(out, 0, sizeof(*out));
	out->num_objs = n * k->g.objs_per_slab;
	out->active_objs = out->num_objs - k->free_objects;
	out->num_slabs = n;
	out->active_slabs = n - k->lists[L_FREE].nr;
	out->shared_avail = k->shared.avail;
	out->limit = k->g.limit;
	out->batchcount = k->g.batchcount;
	out->shared = k->g.shared;
	out->objects_per_slab = k->g.objs_per_slab;
	out->cache_order = k->g.order;
}

static void slab_stats(const struct policy *p, struct policy_stats *out)
{
	const struct slab_model *m = (const struct slab_model *)p;
	memset(out, 0, sizeof(*out));
	out->slab_pages = m->counts.slab;
	out->large_pages = m->counts.large;
	out->large_objs = m->large_objs;
	out->buddy_pages = m->buddy.pages_out;
}

static const struct policy_pages *slab_page_counts(const struct policy *p)
{
	return &((const struct slab_model *)p)->counts;
}

/* ---- invariants ---- */

struct handed {
	uint64_t addr;
	uint32_t owner; /* root cache id the object must belong to */
};

static int cmp_handed(const void *a, const void *b)
{
	const struct handed *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct handed_vec {
	struct handed *v;
	size_t len, cap;
};

static int push_handed(struct handed_vec *hv, uint64_t addr, uint32_t owner)
{
	if (hv->len == hv->cap) {
		struct handed *n = grow_room(hv->v, &hv->cap, hv->len, sizeof(*n), 1024);
		if (!n)
			return SLABSIM_ENOMEM;
		hv->v = n;
	}
	hv->v[hv->len++] = (struct handed){addr, owner};
	return 0;
}

/* The free part of a slab's freelist as a bitmap; false if an index repeats
 * or is out of range. */
static bool free_bitmap(const struct cache *k, const struct slab *sl, uint64_t bits[4])
{
	memset(bits, 0, 4 * sizeof(bits[0]));
	for (uint32_t i = sl->active; i < k->g.objs_per_slab; i++) {
		uint32_t x = sl->freelist[i];
		if (x >= k->g.objs_per_slab || (bits[x / 64] >> (x % 64) & 1))
			return false;
		bits[x / 64] |= 1ull << (x % 64);
	}
	return true;
}

static int check_lists(const struct slab_model *m, const struct cache *k, struct handed_vec *hv,
		       uint64_t *active_sum, struct err *e)
{
	static const char *const names[L_NR] = {"full", "partial", "free"};
	uint32_t num = k->g.objs_per_slab;
	uint64_t free_objs = 0, bits[4];
	*active_sum = 0;
	for (int l = 0; l < L_NR; l++) {
		uint64_t seen = 0;
		const struct slab *prev = NULL;
		for (const struct slab *sl = k->lists[l].head; sl; prev = sl, sl = sl->next) {
			seen++;
			if (sl->list != l || sl->prev != prev || sl->cache != k->root)
				return err_set(e, SLABSIM_EMODEL,
					       "%s: slab 0x%" PRIx64 " on list %s is linked wrong",
					       k->name, sl->base, names[l]);
			bool ok = l == L_FULL	? sl->active == num
				  : l == L_FREE ? sl->active == 0
						: sl->active > 0 && sl->active < num;
			if (!ok)
				return err_set(e, SLABSIM_EMODEL,
					       "%s: slab 0x%" PRIx64
					       " with %u of %u objects active "
					       "is on slabs_%s",
					       k->name, sl->base, sl->active, num, names[l]);
			if (!free_bitmap(k, sl, bits))
				return err_set(e, SLABSIM_EMODEL,
					       "%s: slab 0x%" PRIx64 " has a corrupt freelist",
					       k->name, sl->base);
			uint64_t v;
			if (!u64map_get(&m->slabs, sl->base, &v) || v != (uint64_t)(uintptr_t)sl)
				return err_set(e, SLABSIM_EMODEL,
					       "%s: slab 0x%" PRIx64 " is not in the page map",
					       k->name, sl->base);
			if (sl->s_mem % k->g.colour_off ||
			    (k->g.colour ? sl->s_mem >= k->g.colour * k->g.colour_off : sl->s_mem))
				return err_set(e, SLABSIM_EMODEL,
					       "%s: slab 0x%" PRIx64 " has colour offset %u",
					       k->name, sl->base, sl->s_mem);
			if (k->g.freelist_mode == POLICY_FREELIST_OFF_SLAB) {
				int rc = push_handed(hv, sl->freelist_obj, k->freelist_cache);
				if (rc)
					return err_set(e, rc, "out of memory");
			}
			free_objs += num - sl->active;
			*active_sum += sl->active;
		}
		if (seen != k->lists[l].nr || (seen && k->lists[l].tail != prev))
			return err_set(e, SLABSIM_EMODEL,
				       "%s: slabs_%s holds %" PRIu64 " slabs, counted %" PRIu64,
				       k->name, names[l], seen, k->lists[l].nr);
	}
	if (free_objs != k->free_objects)
		return err_set(e, SLABSIM_EMODEL,
			       "%s: %" PRIu64
			       " free objects on the slabs, free_objects says %" PRIu64,
			       k->name, free_objs, k->free_objects);
	/* free_block and drain_freelist keep no free slab above free_limit; a
	 * new slab is grown only when no slab has a free object */
	if (k->lists[L_FREE].nr && k->free_objects > k->g.free_limit)
		return err_set(e, SLABSIM_EMODEL,
			       "%s: %" PRIu64 " free objects above free_limit %u with %" PRIu64
			       " free slabs",
			       k->name, k->free_objects, k->g.free_limit, k->lists[L_FREE].nr);
	return 0;
}

static int check_arrays(const struct slab_model *m, const struct cache *k, struct handed_vec *hv,
			uint64_t *cached, struct err *e)
{
	uint32_t id = cache_id(m, k);
	*cached = 0;
	for (uint32_t c = 0; c <= m->base.cfg.nr_cpus; c++) {
		const struct array_cache *ac = c < m->base.cfg.nr_cpus ? &k->cpu[c] : &k->shared;
		uint32_t limit =
			c < m->base.cfg.nr_cpus ? k->g.limit : k->g.shared * k->g.batchcount;
		if (ac->limit != limit || ac->avail > ac->limit)
			return err_set(e, SLABSIM_EMODEL, "%s: array %u holds %u of limit %u",
				       k->name, c, ac->avail, ac->limit);
		for (uint32_t i = 0; i < ac->avail; i++) {
			int rc = push_handed(hv, ac->entry[i], id);
			if (rc)
				return err_set(e, rc, "out of memory");
		}
		*cached += ac->avail;
	}
	return 0;
}

static int slab_check(const struct policy *p, struct err *e)
{
	const struct slab_model *m = (const struct slab_model *)p;
	struct handed_vec hv = {0};
	uint64_t pages = 0, slabs = 0;
	uint64_t *active = calloc(m->nr_caches ? m->nr_caches : 1, sizeof(*active));
	uint64_t *taken = calloc(m->nr_caches ? m->nr_caches : 1, sizeof(*taken));
	uint64_t *internal = calloc(m->nr_caches ? m->nr_caches : 1, sizeof(*internal));
	int rc = 0;

	if (!active || !taken || !internal) {
		rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < m->nr_caches && !rc; i++) {
		const struct cache *k = &m->caches[i];
		uint64_t cached;
		if (k->root != i)
			continue;
		if ((rc = check_lists(m, k, &hv, &active[i], e)) ||
		    (rc = check_arrays(m, k, &hv, &cached, e)))
			break;
		taken[i] = k->live + cached;
		pages += nr_slabs(k) << k->g.order;
		slabs += nr_slabs(k);
		if (k->g.freelist_mode == POLICY_FREELIST_OFF_SLAB)
			internal[k->freelist_cache] += nr_slabs(k);
	}
	if (rc)
		goto out;
	/* every object out of a slab is live, an off-slab freelist, or in an
	 * array, exactly once */
	if (hv.len)
		qsort(hv.v, hv.len, sizeof(*hv.v), cmp_handed);
	for (size_t i = 0; i < hv.len; i++) {
		const struct cache *k = &m->caches[hv.v[i].owner];
		struct slab *sl;
		uint32_t idx;
		uint64_t bits[4];
		if (i && hv.v[i].addr == hv.v[i - 1].addr) {
			rc = err_set(e, SLABSIM_EMODEL, "%s: object 0x%" PRIx64 " held twice",
				     k->name, hv.v[i].addr);
			goto out;
		}
		if (!find_obj(m, k, hv.v[i].addr, &sl, &idx) || !free_bitmap(k, sl, bits) ||
		    (bits[idx / 64] >> (idx % 64) & 1)) {
			rc = err_set(e, SLABSIM_EMODEL,
				     "%s: array or freelist entry 0x%" PRIx64
				     " is not an allocated object of it",
				     k->name, hv.v[i].addr);
			goto out;
		}
	}
	for (uint32_t i = 0; i < m->nr_caches; i++) {
		const struct cache *k = &m->caches[i];
		if (k->root != i)
			continue;
		if (internal[i] != k->internal) {
			rc = err_set(e, SLABSIM_EMODEL,
				     "%s: hosts %" PRIu64 " off-slab freelists, counted %" PRIu64,
				     k->name, internal[i], k->internal);
			goto out;
		}
		if (active[i] != taken[i] + k->internal) {
			rc = err_set(e, SLABSIM_EMODEL,
				     "%s: %" PRIu64 " objects out of slabs, but %" PRIu64
				     " live + %" PRIu64 " freelists + %" PRIu64 " in arrays",
				     k->name, active[i], k->live, k->internal, taken[i] - k->live);
			goto out;
		}
	}
	if (slabs != u64map_len(&m->slabs)) {
		rc = err_set(e, SLABSIM_EMODEL, "%" PRIu64 " slabs on lists, %zu in the page map",
			     slabs, u64map_len(&m->slabs));
	} else if (pages != m->counts.slab) {
		rc = err_set(e, SLABSIM_EMODEL,
			     "slab pages %" PRIu64 " != sum over caches %" PRIu64, m->counts.slab,
			     pages);
	} else if (m->counts.slab + m->counts.large != m->buddy.pages_out) {
		rc = err_set(e, SLABSIM_EMODEL,
			     "buddy has %" PRIu64
			     " pages out, slabs and large kmallocs hold %" PRIu64,
			     m->buddy.pages_out, m->counts.slab + m->counts.large);
	}
out:
	free(hv.v);
	free(active);
	free(taken);
	free(internal);
	return rc;
}

static void slab_page_orders(const struct policy *p, struct policy_page_orders *out)
{
	buddy_orders(&((const struct slab_model *)p)->buddy, out);
}

/* ---- start state ---- */

/* A start state from a /proc/slabinfo row. get_slabinfo() (mm/slab.c, 6.1)
 * counts active_objs = num_objs - n->free_objects: every object outside the
 * slabs' freelists is active, those a caller holds and those free in the
 * per-CPU and shared array caches alike; active_slabs = total_slabs -
 * free_slabs. So the row gives the slabs, the wholly free ones, the free
 * slots on partial slabs (num_objs - active_objs - free slabs' slots) and
 * the shared array's fill (sharedavail, put in the shared array), but not
 * how many of the active objects sit free in the per-CPU arrays. Estimate,
 * for a start state read on an otherwise idle system (the capture script
 * running on one CPU): cache_reap drains an untouched per-CPU array by a
 * fifth of its limit every 2 s (drain_array), so the arrays of the idle
 * CPUs are taken as empty, and one array, CPU 0's (which CPU is not
 * known), holds batchcount objects, what an array holds right after its
 * last batch move either way (a refill leaves batchcount - 1 after handing
 * one out, a flush of a full array limit - batchcount + 1, and
 * enable_cpucache sets limit = 2 * batchcount). A cache whose shared array
 * holds objects was in use on every CPU (an array flushes into the shared
 * array only when full): each CPU's array holds batchcount. Never more
 * than the array's room nor than the active objects left; the rest are
 * live. Arrays start untouched (the first cache_reap drains them by limit /
 * 5), the node's free list as not used since the last reap. Measured
 * (pages_mae_over_swing, slab-2cpu-work / slab-8cpu-work): every per-CPU
 * array empty 0.0437 / 0.1091, batchcount in every CPU's array 0.048 /
 * 0.19 (8 x batchcount takes the live objects of small caches, e.g. every
 * task_struct), this estimate 0.0252 / 0.0899 (0.0256 / 0.0907 once
 * sock_inode_cache has its real 1-page slabs, cache_facts.h: its idle
 * objects, put in CPU 0's array here, are reaped in smaller slabs). */
static int slab_prepopulate(struct policy *p, uint32_t id, const struct policy_start *st,
			    struct policy_obj *objs, uint64_t *nr_live, struct err *e)
{
	struct slab_model *m = (struct slab_model *)p;
	*nr_live = 0;
	if (id >= m->nr_caches)
		return err_set(e, SLABSIM_EUSAGE, "prepopulate: no cache %u", id);
	struct cache *a = &m->caches[id];
	struct cache *k = &m->caches[a->root];
	uint64_t num = k->g.objs_per_slab, nslabs = st->nr_slabs, active = st->active_objs;
	if (active > nslabs * num)
		return err_set(e, SLABSIM_EUSAGE,
			       "prepopulate %s: %" PRIu64 " objects do not fit %" PRIu64
			       " slabs of %" PRIu64,
			       a->name, active, nslabs, num);
	/* slabs holding active objects; the model's geometry may need more than
	 * the row's active slabs */
	uint64_t used = nslabs - (st->free_slabs < nslabs ? st->free_slabs : nslabs);
	uint64_t need = (active + num - 1) / num;
	if (used < need)
		used = need;
	/* what the arrays hold: the shared array's recorded fill, then the
	 * per-CPU estimate */
	uint64_t room = k->shared.limit - k->shared.avail;
	uint64_t in_shared = st->shared_avail < room ? st->shared_avail : room;
	if (in_shared > active)
		in_shared = active;
	uint64_t left_free = active - in_shared;
	uint32_t ncpu = p->cfg.nr_cpus;
	uint64_t *in_cpu = calloc(ncpu, sizeof(*in_cpu));
	if (!in_cpu)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	for (uint32_t c = 0; c < ncpu; c++) {
		/* (a cache already in use keeps what its arrays hold) */
		uint64_t cap = k->cpu[c].limit - k->cpu[c].avail;
		uint64_t want = k->cpu[c].batchcount < cap ? k->cpu[c].batchcount : cap;
		if (!st->shared_avail && c > 0)
			want = 0; /* an idle CPU's array, drained */
		in_cpu[c] = want < left_free ? want : left_free;
		left_free -= in_cpu[c];
	}
	uint64_t live = left_free;
	int rc = 0;
	if ((rc = ac_reserve(&k->shared, k->name, e)))
		goto out;
	for (uint32_t c = 0; c < ncpu; c++)
		if (in_cpu[c] && (rc = ac_reserve(&k->cpu[c], k->name, e)))
			goto out;
	uint64_t left = active, n = 0;
	uint32_t cpu = 0;
	for (uint64_t i = 0; i < nslabs; i++) {
		struct slab *sl;
		if ((rc = cache_grow_begin(m, k, 0, &sl, e)))
			goto out;
		while (i < used && left && sl->active < num) {
			uint64_t addr = obj_addr(k, sl, slab_get_obj(sl));
			left--;
			if (n < live) {
				struct policy_obj *o = &objs[n++];
				k->live++;
				o->addr = addr;
				o->cache = id;
				o->order = k->g.order;
				o->bytes_alloc = o->slot_bytes = k->g.size;
				o->size = o->object_bytes = a->g.object_size;
				o->meta_bytes = k->g.size - a->g.object_size;
			} else if (in_shared) {
				k->shared.entry[k->shared.avail++] = addr;
				in_shared--;
			} else {
				while (cpu < ncpu && !in_cpu[cpu])
					cpu++;
				k->cpu[cpu].entry[k->cpu[cpu].avail++] = addr;
				in_cpu[cpu]--;
			}
		}
		cache_grow_end(k, sl);
	}
	*nr_live = n;
out:
	free(in_cpu);
	return rc;
}

const struct policy_ops slab_ops = {
	.name = "slab",
	.desc = "SLAB (mm/slab.c): per-CPU and shared arrays, free_limit, cache_reap",
	.truth = POLICY_TRUTH_SLABINFO,
	.settings = POLICY_SET_KERNEL | POLICY_SET_ALIGN | POLICY_SET_NR_CPUS | POLICY_SET_NOMERGE |
		    POLICY_SET_CACHE_LINE | POLICY_SET_SLAB_DEBUG | POLICY_SET_SLAB_MAX_ORDER,
	.figures = POLICY_FIG_OBJECT_SIZE | POLICY_FIG_SIZE | POLICY_FIG_ALIGN | POLICY_FIG_ORDER |
		   POLICY_FIG_OBJS_PER_SLAB | POLICY_FIG_PAGES_PER_SLAB | POLICY_FIG_COLOUR |
		   POLICY_FIG_COLOUR_OFF | POLICY_FIG_LEFT_OVER | POLICY_FIG_FREELIST |
		   POLICY_FIG_LIMIT | POLICY_FIG_BATCHCOUNT | POLICY_FIG_SHARED |
		   POLICY_FIG_FREE_LIMIT,
	.layout = layout_slab,
	.create = slab_create,
	.destroy = slab_destroy_policy,
	.cache_create = slab_cache_create,
	.alloc = slab_alloc,
	.free = slab_free,
	.nr_caches = slab_nr_caches,
	.cache_info = slab_cache_info,
	.get_slabinfo = slab_get_slabinfo,
	.kmalloc_cache = slab_kmalloc_cache,
	.kmalloc_bytes = slab_kmalloc_bytes,
	.stats = slab_stats,
	.page_counts = slab_page_counts,
	.check = slab_check,
	.page_orders = slab_page_orders,
	.timer = slab_timer,
	.prepopulate = slab_prepopulate,
};
