/* slob.h - read-only inspection of the SLOB model's pages (policies/slob.c),
 * for tests and debugging. The model itself is reached through policy.h.
 */
#ifndef SLABSIM_SLOB_H
#define SLABSIM_SLOB_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

/* The three lists of partially free pages, chosen by the size passed to the
 * block allocator (kmalloc: the request + its 8-byte header). */
enum slob_list {
	SLOB_LIST_SMALL = 0, /* size < 256 */
	SLOB_LIST_MEDIUM,    /* size < 1024 */
	SLOB_LIST_LARGE,     /* the rest, below a page */
	SLOB_NR_LISTS,
	SLOB_LIST_NONE = SLOB_NR_LISTS, /* a full page is on no list */
};

/* One free block of a page. */
struct slob_free_block {
	uint32_t offset; /* bytes from the page base */
	uint32_t units;	 /* 2-byte SLOB units */
};

struct slob_page_info {
	uint64_t base;	/* simulated address of the page */
	uint32_t units; /* free units (the kernel's sp->units) */
	enum slob_list list;
	uint32_t nr_free;   /* free blocks */
	uint32_t nr_blocks; /* allocated blocks */
};

/* The SLOB page holding addr. OUT: *out, and the first max free blocks in
 * address order into blocks (may be NULL when max is 0). Returns false if p
 * is not a SLOB instance or no SLOB page holds addr (whole-page objects
 * included). */
bool slob_page_info(const struct policy *p, uint64_t addr, struct slob_page_info *out,
		    struct slob_free_block *blocks, uint32_t max);

/* OUT: the bases of the first max pages of list l, head first. Returns how
 * many pages the list holds (0 if p is not a SLOB instance). */
uint64_t slob_list_pages(const struct policy *p, enum slob_list l, uint64_t *bases, uint64_t max);

#endif
