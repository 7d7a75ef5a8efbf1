/* pgfree: frees the trace does not show, proven by the page allocator.
 *
 * When SLUB discards a slab (discard_slab -> __free_slab -> free_frozen_pages
 * in 6.18) the page allocator traces kmem:mm_page_free with the slab's
 * first pfn and its order, and a slab is only discarded with no object in
 * use (slab->inuse == 0; objects parked in sheaves count as in use). So
 * every pointer the model still holds live inside a freed page was freed
 * by a path that emits no kmem event (kfree_rcu, kmem_cache_free_bulk):
 * it is dead, and no constant is involved. traces/capture/record and
 * `slabsim live` trace mm_page_free beside the slab events; traces
 * without it are replayed as before.
 *
 * The event gives a physical address; slab pointers are virtual addresses
 * of the kernel's direct map, page_offset_base + physical (x86-64:
 * 0xffff888000000000 unless CONFIG_RANDOMIZE_MEMORY moves it, in whole
 * PUDs of 1 GiB, arch/x86/mm/kaslr.c). The base is not traced, so it is
 * learnt from the trace: when a free empties a slab that is then discarded
 * at once, the slab's page free follows that kmem free on the same CPU,
 * and the freed pointer lies inside the freed page; each such pair votes
 * for the base its 1-GiB-aligned difference gives (a pair of unrelated
 * events lands within the page by chance with odds of a page in a GiB).
 * The base is taken once it has PGF_VOTES votes more than twice the
 * votes for all others. Page frees before that are kept (up to
 * PGF_PENDING_MAX) and applied when it is: a page's live pointers die when
 * none of them came after the page free (a page the allocator gave out
 * again since then is left alone); beyond that they are counted, not used.
 *
 * The engine keeps, once the first page free arrived, how many live
 * pointers start in each page (pgf_live), and probes the pointers of a
 * freed page that has any (pgf_page_free). Prefix pgf_. */
#ifndef SLABSIM_PGFREE_H
#define SLABSIM_PGFREE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "u64map.h"

#define PGF_VOTES 3 /* agreeing votes that fix the direct map's base */
#define PGF_CANDS 4 /* candidate bases kept */
/* page frees kept while the base is unknown (16 bytes each): a bound on
 * memory, not a figure of the model */
#define PGF_PENDING_MAX (UINT32_C(1) << 20)

struct pgf_pending {
	uint64_t phys;	/* physical address of the freed range */
	uint64_t clock; /* pgf.clock when it was freed */
	uint32_t len;	/* bytes */
	uint32_t cpu;
};

struct pgf {
	bool on;	 /* a page free was seen: pages are counted */
	bool base_known; /* base holds the direct map's base */
	uint64_t base;
	struct {
		uint64_t base;
		uint32_t votes;
	} cand[PGF_CANDS];
	uint64_t *last_free; /* per CPU: the pointer of its last traced free, 0 none */
	uint32_t ncpu;
	/* page (pointer >> 12) -> live pointers starting in it (low 16 bits)
	 * and the clock of the latest one to come (the rest) */
	struct u64map pages;
	/* the entry of pages pgf_live found last (memo_v NULL: none): a
	 * slab's objects come and go in runs, most in the same page. Valid
	 * until an entry is deleted, which moves others. */
	uint64_t memo_page;
	uint64_t *memo_v;
	uint64_t clock; /* advances at every live pointer that comes and page free */
	/* physical pages freed or given out (mm_page_alloc) so far, 64 to an
	 * entry (pfn >> 6 -> bits): bounded by the machine's memory, not by
	 * the trace; kept only once keep_renewed is set (a replay from a
	 * start state: pgf_made_since tells its slabs from those made since) */
	struct u64map renewed;
	bool keep_renewed;
	struct pgf_pending *pending; /* page frees before the base was known */
	uint32_t npending, cap_pending;
	/* counters, for reports and tests */
	uint64_t page_frees;	  /* mm_page_free events */
	uint64_t page_allocs;	  /* mm_page_alloc events */
	uint64_t before_base;	  /* of those, before the base was known */
	uint64_t pending_dropped; /* of those, not kept (PGF_PENDING_MAX) */
	uint64_t pages_with_live; /* freed pages the model held live pointers in */
};

void pgf_init(struct pgf *g);
void pgf_fini(struct pgf *g);

/* A traced free of ptr on cpu (a raw pointer; others are ignored), noted
 * by the engine once the trace has shown a page free (g->on): a trace
 * without page frees does no voting work. Errors: SLABSIM_ENOMEM. */
int pgf_note_free(struct pgf *g, uint32_t cpu, uint64_t ptr, struct err *e);

/* An entry of pgf.pages: the live pointers starting in the page (the low
 * bits) and the clock of the latest to come (the rest). */
#define PGF_COUNT_BITS 16
#define PGF_COUNT_MASK ((UINT64_C(1) << PGF_COUNT_BITS) - 1)

/* pgf_live's work when the inline test finds any. */
int pgf_live_slow(struct pgf *g, uint64_t ptr, int delta, struct err *e);

/* A live pointer came (delta +1) or went (-1); nothing before g->on.
 * Errors: SLABSIM_ENOMEM. Inline, a pointer in the page of the memo (set
 * only for a kernel-half page once g->on) whose count neither starts nor
 * ends, the commonest case. */
static inline int pgf_live(struct pgf *g, uint64_t ptr, int delta, struct err *e)
{
	uint64_t *v = g->memo_v;
	if (v && g->memo_page == ptr >> 12 && g->on) {
		if (delta > 0) {
			*v = (++g->clock << PGF_COUNT_BITS) | ((*v & PGF_COUNT_MASK) + 1);
			return 0;
		}
		if ((*v & PGF_COUNT_MASK) > 1) {
			--*v;
			return 0;
		}
	}
	return pgf_live_slow(g, ptr, delta, e);
}

/* The engine's callback: kill the live object at ptr (known live in the
 * engine's table when called). */
typedef int (*pgf_kill_fn)(void *ctx, uint64_t ptr, uint32_t cpu, struct err *e);

/* A page of a range freed while the base was known: the engine's
 * callback for what it keeps of the page beyond live pointers (a model
 * slab placed there, its start objects, its parked ones). */
typedef int (*pgf_gone_fn)(void *ctx, uint64_t page, uint32_t cpu, struct err *e);

/* Probe the live pointers at ptr of the engine (true: one is live). */
typedef bool (*pgf_live_at_fn)(void *ctx, uint64_t ptr);

/* Turn page counting on (at the first page free): the engine then counts
 * every pointer it holds live with pgf_live(+1). */
void pgf_start(struct pgf *g);

/* mm_page_free of len bytes at physical address phys on cpu (g->on).
 * Votes for the base until it is known, keeping the page free; then every
 * live pointer of the engine in the freed range is killed through kill,
 * which calls pgf_live(-1) for it, and so are, when this one made the
 * base known, those of the page frees kept (on their CPUs); then gone
 * (may be NULL) is called for every page of the range (not for the kept
 * ones: a page given out again since cannot be told from one that was
 * not). OUT: *killed, how many. Errors: kill's, gone's, SLABSIM_ENOMEM. */
int pgf_page_free(struct pgf *g, uint32_t cpu, uint64_t phys, uint64_t len, pgf_live_at_fn live_at,
		  pgf_kill_fn kill, pgf_gone_fn gone, void *ctx, uint64_t *killed, struct err *e);
/* mm_page_alloc of len bytes at physical address phys (0 bytes: a failed
 * one): noted when keep_renewed is set. Need not wait for the base, nor
 * turn page counting on. Errors: SLABSIM_ENOMEM. */
int pgf_page_alloc(struct pgf *g, uint64_t phys, uint64_t len, struct err *e);
/* Whether the trace freed or gave out a page of the len bytes at virtual
 * address va (the direct map's) before now: a slab there was made since,
 * it is not one of the start state. With mm_page_alloc traced (filtered as
 * traces/capture/record does, or not) this is exact: a start slab's page
 * was given out before the trace, every later slab's page in it (the
 * page frees alone miss the pages that were free at the start). false
 * while the base is unknown. */
bool pgf_made_since(const struct pgf *g, uint64_t va, uint64_t len);

#endif
