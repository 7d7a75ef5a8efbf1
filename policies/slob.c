/* slob.c - a model of SLOB (mm/slob.c, Linux 5.4): one K&R-style heap of order-0
 * pages shared by every cache and by kmalloc, cut in 2-byte units.
 *
 * Invariants (slob_check): a page's free blocks are in address order and
 * never touch (a free merges with both neighbours; an alignment fragment is
 * cut next to the block it makes room for); sp->units is their sum; a page is
 * on one of the three lists iff it has a free unit, and goes back to the buddy
 * allocator when its last block is freed; free and allocated blocks tile each
 * page exactly; every block of a page came from the page's own list.
 */

/* One SLOB page (2048 units) and the blocks in it:
 *
 *   page base                                                     base + 4096
 *   | frag | hdr | kmalloc object | cache object | free ... | hdr | object |
 *          ^ kmalloc block: 8-byte header (requested size in the first 4
 *            bytes), then the object; size + 8 bytes rounded up to a unit
 *                                ^ cache block = the object, object_size
 *                                  [+ 24-byte struct slob_rcu for
 *                                  TYPESAFE_BY_RCU] rounded up to a unit
 *   free blocks: an address-ordered list, each with its size in units
 *   ("frag": the head of a free block split off to align the next block).
 *
 * Kernel functions followed: slob_page_alloc, slob_alloc (list choice, the
 * sp->units skip, next fit by list_rotate_to_front, a fresh page at the list
 * head), slob_free, __do_kmalloc_node, kfree, __kmem_cache_create,
 * slob_alloc_node, kmem_cache_free. Read in the 5.4-era text of 59bb47985c1d
 * (which adds align_offset; its context shows 5.4's slob_alloc with the
 * rotation) and in mm/slob.c of 5.10 (Rtoax/linux-5.10.13) for slob_free and
 * the cache paths, which the reference's 5.4 reading (jashawnyu/linux-5.4)
 * describes identically. Under cfg.kernel 6.1 only caches change: 6.1 rounds
 * c->size to units at creation and traces c->size as bytes_alloc, pages
 * included (read in the 6.1 tracepoint rework series, not in a 6.1 tree).
 * One NUMA node: the kernel's node match never skips a page.
 */
#include "buddy.h"
#include "grow.h"
#include "layout.h"
#include "policies_int.h"
#include "slob.h"
#include "u64map.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SLOB_UNIT	2u
#define SLOB_PAGE_UNITS (POLICY_PAGE_SIZE / SLOB_UNIT) /* 2048 */
#define SLOB_BREAK1	256u
#define SLOB_BREAK2	1024u
#define SLOB_MINALIGN	8u  /* max(ARCH_KMALLOC_MINALIGN, ARCH_SLAB_MINALIGN): the header */
#define SLOB_RCU_BYTES	24u /* sizeof(struct slob_rcu): rcu_head (16) + int, padded */
#define SLOB_KMALLOC_ID 0u  /* the pseudo-cache every small kmalloc is accounted to */

/* A free block, in units from the page base (2048 fits 16 bits). */
struct fblock {
	uint16_t off;
	uint16_t units;
};

/* An allocated block; klass is the list its size chose (see check_page). */
struct ablock {
	uint16_t off;
	uint16_t units;
	uint8_t klass;
};

/* A run of consecutive pages of one list's ring, with an upper bound of
 * their free units: the first-fit walk skips a whole run whose bound is
 * below the request, which the kernel's walk would only have stepped
 * through (its `sp->units < SLOB_UNITS(size)` test fails on every one), so
 * the page it stops at, and the order of everything, are the same. The
 * bound is raised when a page gains units and made exact when a walk
 * passes a whole run; runs split above CHUNK_MAX pages. */
struct chunk {
	struct spage *first, *last; /* in ring order */
	uint32_t n;
	uint32_t maxu; /* >= every member's units */
};

#define CHUNK_MAX 64

struct spage {
	uint64_t base;
	struct chunk *ch;	   /* its run while on a list, else NULL */
	uint32_t units;		   /* free units: the kernel's sp->units */
	uint8_t list;		   /* enum slob_list; SLOB_LIST_NONE when full */
	uint8_t klass;		   /* the list the page was created for (see check_page) */
	struct spage *prev, *next; /* ring of the page's list */
	struct fblock *free;	   /* in address order */
	uint32_t nr_free, cap_free;
	struct ablock *used; /* in address order */
	uint32_t nr_used, cap_used;
};

struct cache {
	char *name;
	uint32_t object_size;
	uint32_t size; /* bytes passed to the block allocator (+ slob_rcu) */
	uint32_t align;
	uint32_t flags;
	uint64_t live;
};

struct slob {
	struct policy base;
	struct buddy buddy;
	struct u64map pages; /* page base -> struct spage * */
	struct spage *head[SLOB_NR_LISTS];
	uint64_t nr_on_list[SLOB_NR_LISTS];
	struct cache *caches;
	uint32_t nr_caches;
	size_t cap_caches;
	uint64_t slob_pages;  /* pages of the block allocator */
	uint64_t cache_pages; /* pages of cache objects of a page or more */
	/* stats()'s slab pages (slob_pages + cache_pages) and large-kmalloc
	 * pages, kept for policy_ops.page_counts */
	struct policy_pages counts;
	uint64_t large_objs;
	uint32_t last_frag_bytes; /* the free block the last block_alloc left before itself */
};

static uint32_t slob_units(uint64_t bytes)
{
	return (uint32_t)((bytes + SLOB_UNIT - 1) / SLOB_UNIT);
}

static enum slob_list list_for(uint64_t size)
{
	if (size < SLOB_BREAK1)
		return SLOB_LIST_SMALL;
	return size < SLOB_BREAK2 ? SLOB_LIST_MEDIUM : SLOB_LIST_LARGE;
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static const struct slob *as_slob(const struct policy *p)
{
	return p && p->ops == &slob_ops ? (const struct slob *)p : NULL;
}

/* ---- the three page lists: rings with a head pointer, so that the kernel's
 * list_rotate_to_front is just moving the head ---- */

/* Make ch's bound the largest free units of its pages. */
static void chunk_exact(struct chunk *ch)
{
	uint32_t m = 0;
	const struct spage *sp = ch->first;
	for (uint32_t i = 0; i < ch->n; i++, sp = sp->next)
		m = sp->units > m ? sp->units : m;
	ch->maxu = m;
}

/* Split ch, grown past CHUNK_MAX, into two halves with exact bounds (out
 * of memory: it stays one run, still correct, only slower). */
static void chunk_split(struct chunk *ch)
{
	struct chunk *nc = malloc(sizeof(*nc));
	if (!nc)
		return;
	struct spage *sp = ch->first;
	for (uint32_t i = 1; i < ch->n / 2; i++)
		sp = sp->next;
	nc->first = sp->next;
	nc->last = ch->last;
	nc->n = ch->n - ch->n / 2;
	ch->last = sp;
	ch->n /= 2;
	sp = nc->first;
	for (uint32_t i = 0; i < nc->n; i++, sp = sp->next)
		sp->ch = nc;
	chunk_exact(ch);
	chunk_exact(nc);
}

/* sp joins the run of h, the page it is put before (its new first page
 * when h was that run's first), or a run of its own in an empty list. */
static int chunk_add(struct spage *sp, struct spage *h)
{
	struct chunk *ch = h ? h->ch : calloc(1, sizeof(*ch));
	if (!ch)
		return SLABSIM_ENOMEM;
	if (!h) {
		ch->first = ch->last = sp;
	} else if (ch->first == h) {
		ch->first = sp;
	}
	ch->n++;
	ch->maxu = sp->units > ch->maxu ? sp->units : ch->maxu;
	sp->ch = ch;
	if (ch->n > CHUNK_MAX)
		chunk_split(ch);
	return 0;
}

static void chunk_del(struct spage *sp)
{
	struct chunk *ch = sp->ch;
	sp->ch = NULL;
	if (!--ch->n) {
		free(ch);
		return;
	}
	if (ch->first == sp)
		ch->first = sp->next;
	if (ch->last == sp)
		ch->last = sp->prev;
}

static int list_add_head(struct slob *s, struct spage *sp, enum slob_list l)
{
	struct spage *h = s->head[l];
	if (!h) {
		sp->next = sp->prev = sp;
	} else {
		sp->next = h;
		sp->prev = h->prev;
		h->prev->next = sp;
		h->prev = sp;
	}
	/* after the links: a split walks them */
	if (chunk_add(sp, h)) { /* only a new run can fail: the list was empty */
		sp->next = sp->prev = NULL;
		return SLABSIM_ENOMEM;
	}
	s->head[l] = sp;
	s->nr_on_list[l]++;
	sp->list = (uint8_t)l;
	return 0;
}

static void list_del_page(struct slob *s, struct spage *sp)
{
	enum slob_list l = sp->list;
	chunk_del(sp);
	if (sp->next == sp) {
		s->head[l] = NULL;
	} else {
		sp->prev->next = sp->next;
		sp->next->prev = sp->prev;
		if (s->head[l] == sp)
			s->head[l] = sp->next;
	}
	s->nr_on_list[l]--;
	sp->list = SLOB_LIST_NONE;
	sp->prev = sp->next = NULL;
}

/* ---- pages ---- */

/* Room for n elements of elem bytes in *arr. */
static int reserve(void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
	if (n <= *cap)
		return 0;
	uint32_t ncap = *cap ? *cap * 2 : 8;
	while (ncap < n)
		ncap *= 2;
	void *na = realloc(*arr, ncap * elem);
	if (!na)
		return SLABSIM_ENOMEM;
	*arr = na;
	*cap = ncap;
	return 0;
}

/* Room for one more free and one more allocated block. */
static int reserve_one(struct spage *sp)
{
	if (reserve((void **)&sp->free, &sp->cap_free, sp->nr_free + 1, sizeof(*sp->free)))
		return SLABSIM_ENOMEM;
	return reserve((void **)&sp->used, &sp->cap_used, sp->nr_used + 1, sizeof(*sp->used));
}

/* Index of the first allocated block at or above unit off. */
static uint32_t used_index(const struct spage *sp, uint32_t off)
{
	uint32_t lo = 0, hi = sp->nr_used;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sp->used[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Insert at index i; room was reserved. */
static void insert_free(struct spage *sp, uint32_t i, uint32_t off, uint32_t units)
{
	memmove(&sp->free[i + 1], &sp->free[i], (sp->nr_free - i) * sizeof(*sp->free));
	sp->free[i] = (struct fblock){(uint16_t)off, (uint16_t)units};
	sp->nr_free++;
}

static void remove_free(struct spage *sp, uint32_t i)
{
	memmove(&sp->free[i], &sp->free[i + 1], (sp->nr_free - i - 1) * sizeof(*sp->free));
	sp->nr_free--;
}

static int new_page(struct slob *s, enum slob_list l, struct spage **out)
{
	struct spage *sp = calloc(1, sizeof(*sp));
	if (!sp || reserve_one(sp))
		goto nomem;
	if (buddy_alloc(&s->buddy, 0, &sp->base))
		goto nomem;
	if (u64map_put(&s->pages, sp->base, (uint64_t)(uintptr_t)sp)) {
		(void)buddy_free(&s->buddy, sp->base, 0);
		goto nomem;
	}
	sp->free[0] = (struct fblock){0, (uint16_t)SLOB_PAGE_UNITS};
	sp->nr_free = 1;
	sp->units = SLOB_PAGE_UNITS;
	sp->klass = (uint8_t)l;
	sp->list = SLOB_LIST_NONE;
	s->slob_pages++;
	s->counts.slab++;
	*out = sp;
	return 0;
nomem:
	if (sp) {
		free(sp->free);
		free(sp->used);
	}
	free(sp);
	return SLABSIM_ENOMEM;
}

static void free_page(struct slob *s, struct spage *sp)
{
	(void)u64map_del(&s->pages, sp->base, NULL);
	(void)buddy_free(&s->buddy, sp->base, 0);
	s->slob_pages--;
	s->counts.slab--;
	free(sp->free);
	free(sp->used);
	free(sp);
}

static struct spage *page_of(const struct slob *s, uint64_t addr)
{
	uint64_t v;
	if (!u64map_get(&s->pages, addr & ~(uint64_t)(POLICY_PAGE_SIZE - 1), &v))
		return NULL;
	return (struct spage *)(uintptr_t)v;
}

/* ---- the block allocator ---- */

/* slob_page_alloc(): first fit over sp's free blocks in address order. A
 * block at cur is moved up to the first place where place + align_offset is
 * a multiple of align; the skipped head stays free as its own block. A page
 * left without free units leaves its list. klass is the list the request
 * came from. OUT: *block. Returns 1 when a block was cut, 0 when none fits,
 * or SLABSIM_ENOMEM. */
static int page_alloc(struct slob *s, struct spage *sp, uint32_t units, uint32_t align,
		      uint32_t align_offset, enum slob_list klass, uint64_t *block)
{
	if (reserve_one(sp))
		return SLABSIM_ENOMEM;
	for (uint32_t i = 0; i < sp->nr_free; i++) {
		uint64_t cur = sp->base + (uint64_t)sp->free[i].off * SLOB_UNIT;
		uint64_t aligned = cur;
		if (align)
			aligned = ((cur + align_offset + align - 1) & ~((uint64_t)align - 1)) -
				  align_offset;
		uint64_t delta = (aligned - cur) / SLOB_UNIT;
		uint32_t avail = sp->free[i].units;
		if (avail < units + delta)
			continue;
		/* the cost of an alignment beyond the 8 every block gets */
		s->last_frag_bytes = align > SLOB_MINALIGN ? (uint32_t)(delta * SLOB_UNIT) : 0;
		if (delta) {
			sp->free[i].units = (uint16_t)delta;
			insert_free(sp, i + 1, sp->free[i].off + (uint32_t)delta,
				    avail - (uint32_t)delta);
			i++;
			avail -= (uint32_t)delta;
		}
		uint32_t off = sp->free[i].off;
		if (avail == units) {
			remove_free(sp, i);
		} else {
			sp->free[i].off = (uint16_t)(off + units);
			sp->free[i].units = (uint16_t)(avail - units);
		}
		uint32_t j = used_index(sp, off);
		memmove(&sp->used[j + 1], &sp->used[j], (sp->nr_used - j) * sizeof(*sp->used));
		sp->used[j] = (struct ablock){(uint16_t)off, (uint16_t)units, (uint8_t)klass};
		sp->nr_used++;
		sp->units -= units;
		if (!sp->units)
			list_del_page(s, sp);
		*block = sp->base + (uint64_t)off * SLOB_UNIT;
		return 1;
	}
	return 0;
}

/* slob_alloc(): a block of size bytes from the list chosen by size. Pages
 * with fewer free units than needed are skipped without a look at alignment;
 * the page that served the request becomes the list head (the pages before
 * it go to the tail in order) unless it left the list full. If no page fits,
 * a fresh page goes to the list head and serves it. OUT: *block. */
static int block_alloc(struct slob *s, uint64_t size, uint32_t align, uint32_t align_offset,
		       uint64_t *block, struct err *e)
{
	enum slob_list l = list_for(size);
	uint32_t units = slob_units(size);
	struct spage *sp = s->head[l];
	int rc = 0;

	s->last_frag_bytes = 0;
	struct chunk *seen_ch = NULL; /* a run walked from its first page */
	uint32_t seen_max = 0;
	for (uint64_t n = s->nr_on_list[l]; n > 0;) {
		struct chunk *ch = sp->ch;
		if (sp == ch->first) {
			if (ch->maxu < units) { /* no page of the run passes the test */
				sp = ch->last->next;
				n = n > ch->n ? n - ch->n : 0;
				continue;
			}
			seen_ch = ch;
			seen_max = 0;
		}
		struct spage *next = sp->next;
		if (sp->units >= units) {
			rc = page_alloc(s, sp, units, align, align_offset, l, block);
			if (rc < 0)
				return err_set(e, rc, "out of memory");
			if (rc) {
				if (sp->list == l)
					s->head[l] = sp;
				break;
			}
		}
		seen_max = sp->units > seen_max ? sp->units : seen_max;
		if (sp == ch->last && seen_ch == ch)
			ch->maxu = seen_max; /* the whole run seen: its bound made exact */
		sp = next;
		n--;
	}
	if (!rc) {
		if (new_page(s, l, &sp))
			return err_set(e, SLABSIM_ENOMEM, "out of memory for a SLOB page");
		if (list_add_head(s, sp, l)) {
			free_page(s, sp);
			return err_set(e, SLABSIM_ENOMEM, "out of memory for a SLOB page");
		}
		rc = page_alloc(s, sp, units, align, align_offset, l, block);
		if (rc < 0)
			return err_set(e, rc, "out of memory");
		if (!rc) /* the kernel would BUG(): cache_create rules this out */
			return err_set(e, SLABSIM_EMODEL,
				       "%" PRIu64 " bytes aligned to %u do not fit a fresh page",
				       size, align);
	}
	return 0;
}

/* slob_free(): give back the block of size bytes at block. A page that
 * becomes entirely free goes back to the buddy allocator at once; a full page
 * gets this block as its only free block and goes to the head of the list
 * chosen by size; otherwise the block is inserted in address order and merged
 * with an adjacent free block on either side. */
static int block_free(struct slob *s, uint64_t block, uint64_t size, struct err *e)
{
	uint32_t units = slob_units(size);
	struct spage *sp = page_of(s, block);
	uint32_t off = sp ? (uint32_t)((block - sp->base) / SLOB_UNIT) : 0;
	uint32_t j = sp ? used_index(sp, off) : 0;

	if (!sp || (block - sp->base) % SLOB_UNIT || j == sp->nr_used || sp->used[j].off != off)
		return err_set(e, SLABSIM_EMODEL, "free of 0x%" PRIx64 ": no SLOB block there",
			       block);
	if (sp->used[j].units != units)
		return err_set(e, SLABSIM_EMODEL,
			       "free of 0x%" PRIx64 ": %" PRIu64
			       " bytes, but the block has %u units",
			       block, size, sp->used[j].units);
	if (reserve_one(sp))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	memmove(&sp->used[j], &sp->used[j + 1], (sp->nr_used - j - 1) * sizeof(*sp->used));
	sp->nr_used--;

	if (sp->units + units == SLOB_PAGE_UNITS) {
		if (sp->list != SLOB_LIST_NONE)
			list_del_page(s, sp);
		free_page(s, sp);
		return 0;
	}
	if (sp->list == SLOB_LIST_NONE) {
		sp->free[0] = (struct fblock){(uint16_t)off, (uint16_t)units};
		sp->nr_free = 1;
		sp->units = units;
		if (list_add_head(s, sp, list_for(size)))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		return 0;
	}
	sp->units += units;
	if (sp->units > sp->ch->maxu)
		sp->ch->maxu = sp->units;
	uint32_t i = 0; /* first free block above the freed one */
	while (i < sp->nr_free && sp->free[i].off < off)
		i++;
	bool merge_next = i < sp->nr_free && off + units == sp->free[i].off;
	bool merge_prev = i > 0 && sp->free[i - 1].off + sp->free[i - 1].units == off;
	if (merge_prev && merge_next) {
		sp->free[i - 1].units += (uint16_t)(units + sp->free[i].units);
		remove_free(sp, i);
	} else if (merge_prev) {
		sp->free[i - 1].units += (uint16_t)units;
	} else if (merge_next) {
		sp->free[i].off = (uint16_t)off;
		sp->free[i].units += (uint16_t)units;
	} else {
		insert_free(sp, i, off, units);
	}
	return 0;
}

/* ---- caches ---- */

static int add_cache(struct slob *s, const char *name, uint32_t object_size, uint32_t size,
		     uint32_t align, uint32_t flags, uint32_t *id, struct err *e)
{
	if (s->nr_caches == s->cap_caches) {
		struct cache *n =
			grow_room(s->caches, &s->cap_caches, s->nr_caches, sizeof(*n), 64);
		if (!n)
			return err_set(e, SLABSIM_ENOMEM, "out of memory for cache %s", name);
		s->caches = n;
	}
	struct cache *c = &s->caches[s->nr_caches];
	memset(c, 0, sizeof(*c));
	c->name = strdup(name);
	if (!c->name)
		return err_set(e, SLABSIM_ENOMEM, "out of memory for cache %s", name);
	c->object_size = object_size;
	c->size = size;
	c->align = align;
	c->flags = flags;
	*id = s->nr_caches++;
	return 0;
}

/* kmem_cache_create() under SLOB: never merged; size = object_size, plus the
 * RCU footer for TYPESAFE_BY_RCU (__kmem_cache_create); align from
 * calculate_alignment. slub_debug does not apply. */
static int slob_cache_create(struct policy *p, const struct policy_cache_spec *spec, uint32_t *id,
			     struct err *e)
{
	struct slob *s = (struct slob *)p;
	const char *name = spec->name ? spec->name : "?";
	if (spec->object_size == 0 || spec->object_size > LAYOUT_KMALLOC_MAX_SIZE)
		return err_set(e, SLABSIM_EUSAGE, "cache %s: object size %u is not 1..%u", name,
			       spec->object_size, LAYOUT_KMALLOC_MAX_SIZE);
	uint32_t align =
		layout_calculate_alignment(&p->cfg, spec->flags, spec->align, spec->object_size);
	if (!is_pow2(align))
		return err_set(e, SLABSIM_EUSAGE, "cache %s: alignment %u is not a power of two",
			       name, align);
	uint32_t size = spec->object_size;
	if (spec->flags & POLICY_F_TYPESAFE_BY_RCU)
		size += SLOB_RCU_BYTES;
	/* 6.1 stores the size rounded to units (so 4095 bytes take a page) */
	if (p->cfg.kernel >= POLICY_KERNEL_6_1)
		size = slob_units(size) * SLOB_UNIT;
	/* A fresh page is only page-aligned: the kernel's slob_alloc would BUG
	 * on a larger alignment for a block below a page. */
	if (size < POLICY_PAGE_SIZE && align > POLICY_PAGE_SIZE)
		return err_set(e, SLABSIM_EUSAGE,
			       "cache %s: SLOB cannot align %u-byte objects to %u bytes", name,
			       size, align);
	if (size >= POLICY_PAGE_SIZE && layout_get_order(size) >= POLICY_MAX_ORDER)
		return err_set(e, SLABSIM_EUSAGE, "cache %s: %u-byte objects exceed MAX_ORDER",
			       name, size);
	return add_cache(s, name, spec->object_size, size, align,
			 spec->flags & ~(uint32_t)POLICY_F_DEBUG_MASK, id, e);
}

static void slob_destroy(struct policy *p);

static int slob_create(const struct policy_cfg *cfg, struct policy **out, struct err *e)
{
	struct slob *s = calloc(1, sizeof(*s));
	if (!s)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	s->base.ops = &slob_ops;
	s->base.cfg = *cfg;
	buddy_init(&s->buddy);
	u64map_init(&s->pages);
	/* SLOB has no kmalloc caches; this pseudo-cache only gives the engine an
	 * id to keep the small kmallocs' sums under */
	uint32_t id;
	int rc = add_cache(s, "kmalloc", 0, 0, SLOB_MINALIGN, POLICY_F_KMALLOC, &id, e);
	if (rc) {
		slob_destroy(&s->base);
		return rc;
	}
	*out = &s->base;
	return 0;
}

static void slob_destroy(struct policy *p)
{
	struct slob *s = (struct slob *)p;
	if (!s)
		return;
	size_t pos = 0;
	uint64_t key, val;
	while (u64map_next(&s->pages, &pos, &key, &val)) {
		struct spage *sp = (struct spage *)(uintptr_t)val;
		if (sp->ch && !--sp->ch->n) /* its run's last member seen */
			free(sp->ch);
		free(sp->free);
		free(sp->used);
		free(sp);
	}
	u64map_fini(&s->pages);
	for (uint32_t i = 0; i < s->nr_caches; i++)
		free(s->caches[i].name);
	free(s->caches);
	buddy_fini(&s->buddy);
	free(s);
}

/* ---- allocation and free ---- */

static int alloc_pages_obj(struct slob *s, uint32_t order, uint64_t *addr, struct err *e)
{
	int rc = buddy_alloc(&s->buddy, order, addr);
	if (rc)
		return err_set(e, rc, "out of memory for an order-%u page block", order);
	return 0;
}

/* __do_kmalloc_node(): below PAGE_SIZE - 8 a block of size + 8 whose first 8
 * bytes hold the size; from 5.4 (natural, cap512) the block is placed so that
 * the object after the header is aligned, before (none) the block itself is
 * 8-aligned. Larger requests take whole pages and carry no header. */
static int do_kmalloc(struct slob *s, const struct policy_alloc_req *r, struct policy_obj *out,
		      struct err *e)
{
	const struct policy_cfg *cfg = &s->base.cfg;
	uint64_t size = r->size;
	int rc;

	if (size == 0 || size > LAYOUT_KMALLOC_MAX_SIZE)
		return err_set(e, SLABSIM_EUSAGE, "kmalloc of %" PRIu64 " bytes: sizes are 1..%u",
			       size, LAYOUT_KMALLOC_MAX_SIZE);
	out->size = size;
	if (size < POLICY_PAGE_SIZE - SLOB_MINALIGN) {
		/* kmalloc_aligned (policy_alloc under kmalloc-aligned-caches)
		 * asks for its alignment as 5.4 asks for natural alignment */
		uint64_t need = r->align_need ? policy_need_bytes(r->align_need, size) : 0;
		uint32_t align = layout_kmalloc_align(cfg, (uint32_t)size);
		if (need > align)
			align = (uint32_t)need;
		/* 5.4 passes the header size as align_offset always; with an
		 * alignment of 8 that places the block as 5.3's offset 0 does */
		uint32_t offset = align > SLOB_MINALIGN ? SLOB_MINALIGN : 0;
		uint64_t block = 0;
		if ((rc = block_alloc(s, size + SLOB_MINALIGN, align, offset, &block, e)))
			return rc;
		out->addr = block + SLOB_MINALIGN;
		out->cache = SLOB_KMALLOC_ID;
		out->order = 0;
		out->bytes_alloc = size + SLOB_MINALIGN;
		out->slot_bytes = (uint64_t)slob_units(size + SLOB_MINALIGN) * SLOB_UNIT;
		out->meta_bytes = SLOB_MINALIGN;
		out->object_bytes = out->slot_bytes - SLOB_MINALIGN;
		out->frag_bytes = s->last_frag_bytes;
		s->caches[SLOB_KMALLOC_ID].live++;
		return 0;
	}
	return buddy_kmalloc_large(&s->buddy, size, out, &s->counts.large, &s->large_objs, e);
}

/* slob_alloc_node(): below a page a block of exactly the cache's size with
 * its start aligned (no header), else whole pages. */
static int cache_alloc(struct slob *s, uint32_t id, struct policy_obj *out, struct err *e)
{
	struct cache *c = &s->caches[id];
	bool v61 = s->base.cfg.kernel >= POLICY_KERNEL_6_1;
	uint32_t units = slob_units(c->size);
	uint32_t rcu = c->flags & POLICY_F_TYPESAFE_BY_RCU ? SLOB_RCU_BYTES : 0;
	int rc;

	out->cache = id;
	out->size = c->size;
	out->order = 0;
	if (c->size < POLICY_PAGE_SIZE) {
		if ((rc = block_alloc(s, c->size, c->align, 0, &out->addr, e)))
			return rc;
		out->bytes_alloc = (uint64_t)units * SLOB_UNIT;
		out->slot_bytes = (uint64_t)units * SLOB_UNIT;
		out->frag_bytes = s->last_frag_bytes;
	} else {
		uint32_t order = layout_get_order(c->size);
		if ((rc = alloc_pages_obj(s, order, &out->addr, e)))
			return rc;
		/* 5.4 traces the pages, 6.1 c->size */
		out->bytes_alloc = v61 ? c->size : (uint64_t)POLICY_PAGE_SIZE << order;
		out->slot_bytes = (uint64_t)POLICY_PAGE_SIZE << order;
		s->cache_pages += 1ULL << order;
		s->counts.slab += 1ULL << order;
	}
	/* the RCU footer is the allocator's, like kmalloc's header */
	out->meta_bytes = rcu;
	out->object_bytes = out->slot_bytes - rcu;
	c->live++;
	return 0;
}

static int slob_alloc(struct policy *p, const struct policy_alloc_req *r, struct policy_obj *out,
		      struct err *e)
{
	struct slob *s = (struct slob *)p;
	if (r->cache == POLICY_KMALLOC)
		return do_kmalloc(s, r, out, e);
	if (r->cache == SLOB_KMALLOC_ID || r->cache >= s->nr_caches)
		return err_set(e, SLABSIM_EUSAGE, "no cache with id %u", r->cache);
	return cache_alloc(s, r->cache, out, e);
}

/* A cache's recorded state (a start /proc/slabinfo row of another
 * allocator's kernel: `slabsim live --allocator slob`): SLOB has no slabs
 * of a cache's own, so its active objects are allocated one by one, as
 * kmem_cache_alloc would place them on the shared pages; nr_slabs and
 * free_slabs do not apply. */
static int slob_prepopulate(struct policy *p, uint32_t id, const struct policy_start *st,
			    struct policy_obj *objs, uint64_t *nr_live, struct err *e)
{
	struct slob *s = (struct slob *)p;
	*nr_live = 0;
	if (id == SLOB_KMALLOC_ID || id >= s->nr_caches)
		return err_set(e, SLABSIM_EUSAGE, "prepopulate: no cache %u", id);
	for (uint64_t i = 0; i < st->active_objs; i++) {
		int rc = cache_alloc(s, id, &objs[i], e);
		if (rc)
			return rc;
		*nr_live = i + 1;
	}
	return 0;
}

/* kfree() / kmem_cache_free(): the size slob_free needs comes from the
 * header (kmalloc: the stored request + 8) or the cache. */
static int slob_free(struct policy *p, const struct policy_obj *o, uint32_t cpu, struct err *e)
{
	struct slob *s = (struct slob *)p;
	int rc;

	if (o->cache == POLICY_NO_CACHE) {
		if ((rc = buddy_free(&s->buddy, o->addr, o->order)))
			return err_set(e, rc, "out of memory");
		s->counts.large -= 1ULL << o->order;
		s->large_objs--;
		return 0;
	}
	if (o->cache >= s->nr_caches)
		return err_set(e, SLABSIM_EUSAGE, "no cache with id %u", o->cache);
	struct cache *c = &s->caches[o->cache];
	if (o->cache == SLOB_KMALLOC_ID) {
		rc = block_free(s, o->addr - SLOB_MINALIGN, o->size + SLOB_MINALIGN, e);
	} else if (c->size < POLICY_PAGE_SIZE) {
		rc = block_free(s, o->addr, c->size, e);
	} else {
		uint32_t order = layout_get_order(c->size);
		rc = buddy_free(&s->buddy, o->addr, order);
		if (rc)
			rc = err_set(e, rc, "out of memory");
		else
			s->cache_pages -= 1ULL << order;
		s->counts.slab -= 1ULL << order;
	}
	if (!rc)
		c->live--;
	return rc;
}

/* ---- figures ---- */

static uint32_t slob_nr_caches(const struct policy *p)
{
	return ((const struct slob *)p)->nr_caches;
}

/* Pages are shared by all caches: no cache owns any, and the free units are
 * the engine's remainder (policy.h). */
static void slob_cache_info(const struct policy *p, uint32_t id, struct policy_cache_info *out)
{
	const struct slob *s = (const struct slob *)p;
	const struct cache *c = &s->caches[id];
	memset(out, 0, sizeof(*out));
	out->name = c->name;
	out->g.object_size = c->object_size;
	out->g.align = c->align;
	out->g.flags = c->flags;
	out->alias_of = id;
	out->inuse_objects = c->live;
}

static uint32_t slob_kmalloc_cache(const struct policy *p, uint64_t size,
				   enum policy_kmalloc_type t)
{
	return POLICY_NO_CACHE;
}

/* do_kmalloc's two cases: a block of size + header, or whole pages */
static uint64_t slob_kmalloc_bytes(const struct policy *p, uint64_t size,
				   enum policy_kmalloc_type t)
{
	if (size < POLICY_PAGE_SIZE - SLOB_MINALIGN)
		return size + SLOB_MINALIGN;
	return policy_large_kmalloc_bytes(size);
}

static void slob_stats(const struct policy *p, struct policy_stats *out)
{
	const struct slob *s = (const struct slob *)p;
	memset(out, 0, sizeof(*out));
	out->slab_pages = s->counts.slab;
	out->large_pages = s->counts.large;
	out->large_objs = s->large_objs;
	out->buddy_pages = s->buddy.pages_out;
}

static const struct policy_pages *slob_page_counts(const struct policy *p)
{
	return &((const struct slob *)p)->counts;
}

/* ---- invariants ---- */

static int check_lists(const struct slob *s, struct err *e)
{
	for (int l = 0; l < SLOB_NR_LISTS; l++) {
		const struct spage *sp = s->head[l];
		if (!sp != !s->nr_on_list[l])
			return err_set(e, SLABSIM_EMODEL,
				       "list %d: head and count %" PRIu64 " disagree", l,
				       s->nr_on_list[l]);
		for (uint64_t n = 0; n < s->nr_on_list[l]; n++, sp = sp->next) {
			if (sp->list != l || sp->klass != l)
				return err_set(e, SLABSIM_EMODEL,
					       "page 0x%" PRIx64
					       " on list %d says list %d, class %d",
					       sp->base, l, sp->list, sp->klass);
			if (sp->next->prev != sp)
				return err_set(e, SLABSIM_EMODEL,
					       "list %d broken at page 0x%" PRIx64, l, sp->base);
			/* the skip index: a run per page, its bound above the page's
			 * units, its members contiguous in the ring */
			if (!sp->ch || sp->units > sp->ch->maxu ||
			    (sp != sp->ch->last && sp->next->ch != sp->ch) ||
			    (sp == sp->ch->last && sp->next->ch == sp->ch && sp->ch->n > 1 &&
			     sp->next != sp->ch->first))
				return err_set(e, SLABSIM_EMODEL,
					       "list %d: page 0x%" PRIx64
					       " outside its run's bounds",
					       l, sp->base);
		}
		if (sp != s->head[l])
			return err_set(e, SLABSIM_EMODEL,
				       "list %d: %" PRIu64 " steps do not come back to the head", l,
				       s->nr_on_list[l]);
	}
	return 0;
}

/* Walk the free and the allocated blocks of a page together in address
 * order: they must tile its 2048 units exactly, two free blocks never touch
 * (they would have been merged), and every allocated block came from the
 * page's own list. The last holds because slob_free is given the size the
 * block was allocated with (kfree: the stored size + 8; caches: c->size), so
 * a full page that gets a block back returns to the list it came from:
 * under 5.4 a page never changes lists. */
static int check_page(const struct spage *sp, uint64_t on_list[SLOB_NR_LISTS], uint64_t *nr_used,
		      struct err *e)
{
	uint32_t pos = 0, i = 0, j = 0, free_units = 0;
	bool last_free = false;
	while (i < sp->nr_free || j < sp->nr_used) {
		bool take_free =
			j == sp->nr_used || (i < sp->nr_free && sp->free[i].off < sp->used[j].off);
		uint32_t off = take_free ? sp->free[i].off : sp->used[j].off;
		uint32_t units = take_free ? sp->free[i].units : sp->used[j].units;
		if (off != pos || !units)
			return err_set(e, SLABSIM_EMODEL,
				       "page 0x%" PRIx64
				       ": %s block at unit %u of %u units, expected "
				       "one at unit %u",
				       sp->base, take_free ? "free" : "allocated", off, units, pos);
		if (take_free && last_free)
			return err_set(e, SLABSIM_EMODEL,
				       "page 0x%" PRIx64 ": free blocks touch at unit %u", sp->base,
				       off);
		if (!take_free && sp->used[j].klass != sp->klass)
			return err_set(e, SLABSIM_EMODEL,
				       "page 0x%" PRIx64
				       " of list %u holds a block of list %u at %u",
				       sp->base, sp->klass, sp->used[j].klass, off);
		if (take_free) {
			free_units += units;
			i++;
		} else {
			j++;
		}
		last_free = take_free;
		pos += units;
	}
	if (pos != SLOB_PAGE_UNITS)
		return err_set(e, SLABSIM_EMODEL, "page 0x%" PRIx64 ": blocks end at unit %u",
			       sp->base, pos);
	if (free_units != sp->units)
		return err_set(e, SLABSIM_EMODEL,
			       "page 0x%" PRIx64 ": free blocks hold %u units, sp->units says %u",
			       sp->base, free_units, sp->units);
	if ((sp->list == SLOB_LIST_NONE) != (sp->units == 0) || sp->units == SLOB_PAGE_UNITS)
		return err_set(e, SLABSIM_EMODEL,
			       "page 0x%" PRIx64 " with %u free units on list %d", sp->base,
			       sp->units, sp->list);
	if (sp->list != SLOB_LIST_NONE)
		on_list[sp->list]++;
	*nr_used += sp->nr_used;
	return 0;
}

static int slob_check(const struct policy *p, struct err *e)
{
	const struct slob *s = (const struct slob *)p;
	uint64_t on_list[SLOB_NR_LISTS] = {0}, nr_used = 0;
	size_t pos = 0;
	uint64_t key, val;
	int rc;

	if ((rc = check_lists(s, e)))
		return rc;
	while (u64map_next(&s->pages, &pos, &key, &val))
		if ((rc = check_page((const struct spage *)(uintptr_t)val, on_list, &nr_used, e)))
			return rc;
	for (int l = 0; l < SLOB_NR_LISTS; l++)
		if (on_list[l] != s->nr_on_list[l])
			return err_set(e, SLABSIM_EMODEL,
				       "%" PRIu64 " pages say list %d, which holds %" PRIu64,
				       on_list[l], l, s->nr_on_list[l]);
	if (u64map_len(&s->pages) != s->slob_pages)
		return err_set(e, SLABSIM_EMODEL, "%zu SLOB pages, counted %" PRIu64,
			       u64map_len(&s->pages), s->slob_pages);
	uint64_t small_live = 0, page_objs_pages = 0;
	for (uint32_t i = 0; i < s->nr_caches; i++) {
		const struct cache *c = &s->caches[i];
		if (c->size < POLICY_PAGE_SIZE)
			small_live += c->live;
		else
			page_objs_pages += c->live << layout_get_order(c->size);
	}
	if (small_live != nr_used)
		return err_set(e, SLABSIM_EMODEL,
			       "%" PRIu64 " live block objects, %" PRIu64 " blocks", small_live,
			       nr_used);
	if (page_objs_pages != s->cache_pages)
		return err_set(e, SLABSIM_EMODEL,
			       "cache objects hold %" PRIu64 " pages, counted %" PRIu64,
			       page_objs_pages, s->cache_pages);
	if (s->counts.slab != s->slob_pages + s->cache_pages)
		return err_set(e, SLABSIM_EMODEL,
			       "slab pages %" PRIu64 ", block and cache-object pages %" PRIu64,
			       s->counts.slab, s->slob_pages + s->cache_pages);
	if (s->counts.slab + s->counts.large != s->buddy.pages_out)
		return err_set(e, SLABSIM_EMODEL,
			       "buddy has %" PRIu64 " pages out, SLOB holds %" PRIu64,
			       s->buddy.pages_out, s->counts.slab + s->counts.large);
	return 0;
}

/* ---- inspection (slob.h) ---- */

bool slob_page_info(const struct policy *p, uint64_t addr, struct slob_page_info *out,
		    struct slob_free_block *blocks, uint32_t max)
{
	const struct slob *s = as_slob(p);
	const struct spage *sp = s ? page_of(s, addr) : NULL;
	if (!sp)
		return false;
	out->base = sp->base;
	out->units = sp->units;
	out->list = (enum slob_list)sp->list;
	out->nr_free = sp->nr_free;
	out->nr_blocks = sp->nr_used;
	for (uint32_t i = 0; i < max && i < sp->nr_free; i++) {
		blocks[i].offset = sp->free[i].off * SLOB_UNIT;
		blocks[i].units = sp->free[i].units;
	}
	return true;
}

uint64_t slob_list_pages(const struct policy *p, enum slob_list l, uint64_t *bases, uint64_t max)
{
	const struct slob *s = as_slob(p);
	if (!s || (int)l < 0 || l >= SLOB_NR_LISTS)
		return 0;
	const struct spage *sp = s->head[l];
	for (uint64_t i = 0; i < max && i < s->nr_on_list[l]; i++, sp = sp->next)
		bases[i] = sp->base;
	return s->nr_on_list[l];
}

/* Full pages are on no list and have no free unit. */
static void slob_free_blocks(const struct policy *p, struct policy_free_blocks *out)
{
	const struct slob *s = (const struct slob *)p;
	memset(out, 0, sizeof(*out));
	for (int l = 0; l < SLOB_NR_LISTS; l++) {
		const struct spage *sp = s->head[l];
		for (uint64_t i = 0; i < s->nr_on_list[l]; i++, sp = sp->next) {
			out->bytes += (uint64_t)SLOB_UNIT * sp->units;
			out->blocks += sp->nr_free;
			out->pages++;
		}
	}
}

static void slob_page_orders(const struct policy *p, struct policy_page_orders *out)
{
	buddy_orders(&((const struct slob *)p)->buddy, out);
}

const struct policy_ops slob_ops = {
	.name = "slob",
	.kmalloc_aligned = POLICY_KA_ARG,
	.desc = "SLOB (mm/slob.c): first-fit blocks on shared pages, 3 size lists, kmalloc header",
	.settings = POLICY_SET_KERNEL | POLICY_SET_ALIGN,
	.figures = POLICY_FIG_OBJECT_SIZE | POLICY_FIG_ALIGN,
	.truth = POLICY_TRUTH_MEMINFO,
	.create = slob_create,
	.destroy = slob_destroy,
	.cache_create = slob_cache_create,
	.alloc = slob_alloc,
	.free = slob_free,
	.prepopulate = slob_prepopulate,
	.nr_caches = slob_nr_caches,
	.cache_info = slob_cache_info,
	.kmalloc_cache = slob_kmalloc_cache,
	.kmalloc_bytes = slob_kmalloc_bytes,
	.stats = slob_stats,
	.free_blocks = slob_free_blocks,
	.page_counts = slob_page_counts,
	.check = slob_check,
	.page_orders = slob_page_orders,
};
