/* buddy.h - a simulated buddy page allocator (internal to policies/).
 *
 * Hands out naturally aligned blocks of 2^order pages (orders 0..10) from a
 * simulated address range that grows in MAX_ORDER blocks as needed, and
 * coalesces freed buddies as mm/page_alloc.c does. Only addresses and page
 * counts are modelled: no zones, migrate types or watermarks.
 */
#ifndef SLABSIM_BUDDY_H
#define SLABSIM_BUDDY_H

#include <stdint.h>

#include "u64map.h"

/* First simulated address: where x86_64's direct map puts physical 4 GiB. */
#define BUDDY_BASE 0xffff888100000000ULL

struct buddy_stack {
	uint64_t *addr;
	size_t len, cap;
};

struct buddy {
	uint64_t top;		      /* next never-used MAX_ORDER block */
	struct u64map free[11];	      /* block address -> 1, per order */
	struct buddy_stack stack[11]; /* LIFO of free blocks (lazily pruned) */
	uint64_t pages_out;	      /* pages handed out and not returned */
	uint64_t peak_pages_out;
	uint64_t held[11]; /* blocks handed out and not returned, per order */
};

void buddy_init(struct buddy *b);
void buddy_fini(struct buddy *b);
/* Allocate 2^order pages. OUT: *addr. Returns 0 or SLABSIM_ENOMEM. */
int buddy_alloc(struct buddy *b, uint32_t order, uint64_t *addr);
/* Return a block obtained from buddy_alloc with the same order. */
int buddy_free(struct buddy *b, uint64_t addr, uint32_t order);

struct policy_obj;
struct err;
/* kmalloc_large(): a kmalloc of size bytes served by the page allocator as
 * one block of get_order(size) pages, with no cache and no header (SLUB
 * above 8 KiB, SLAB above its largest kmalloc cache, SLOB from a page).
 * OUT: *out (cache POLICY_NO_CACHE, every byte figure the block's); the
 * block's pages are added to *large_pages and 1 to *large_objs. Errors:
 * SLABSIM_ENOMEM. */
int buddy_kmalloc_large(struct buddy *b, uint64_t size, struct policy_obj *out,
			uint64_t *large_pages, uint64_t *large_objs, struct err *e);

struct policy_page_orders;
/* Blocks held and free per order, and the pages grown so far (metrics). */
void buddy_orders(const struct buddy *b, struct policy_page_orders *out);

#endif
