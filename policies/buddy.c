/* buddy.c - simulated buddy allocator; see buddy.h.
 *
 * Free blocks of each order are kept twice: in a hash set (to find a buddy
 * when coalescing) and on a LIFO stack (to pick the block to hand out, most
 * recently freed first as the kernel's free lists do). Blocks removed by
 * coalescing stay on the stack and are skipped when popped; the stack is
 * compacted when stale entries outnumber live ones, so memory follows the
 * number of free blocks.
 */
#include "buddy.h"
#include "err.h"
#include "layout.h"
#include "policy.h"

#include <stdlib.h>

#define TOP_ORDER (POLICY_MAX_ORDER - 1)

static uint64_t block_bytes(uint32_t order)
{
	return (uint64_t)POLICY_PAGE_SIZE << order;
}

void buddy_init(struct buddy *b)
{
	b->top = BUDDY_BASE;
	for (int o = 0; o < POLICY_MAX_ORDER; o++) {
		u64map_init(&b->free[o]);
		b->stack[o] = (struct buddy_stack){0};
	}
	b->pages_out = 0;
	b->peak_pages_out = 0;
	for (int o = 0; o < POLICY_MAX_ORDER; o++)
		b->held[o] = 0;
}

void buddy_fini(struct buddy *b)
{
	for (int o = 0; o < POLICY_MAX_ORDER; o++) {
		u64map_fini(&b->free[o]);
		free(b->stack[o].addr);
		b->stack[o] = (struct buddy_stack){0};
	}
}

static void compact(struct buddy *b, uint32_t o)
{
	struct buddy_stack *st = &b->stack[o];
	size_t j = 0;
	for (size_t i = 0; i < st->len; i++) {
		/* keep one entry per free block: the latest push wins */
		uint64_t *seen = u64map_ref(&b->free[o], st->addr[i]);
		if (seen && *seen == i + 1)
			st->addr[j++] = st->addr[i];
	}
	st->len = j;
	for (size_t i = 0; i < st->len; i++)
		*u64map_ref(&b->free[o], st->addr[i]) = i + 1;
}

/* The map value is the block's 1-based position on the stack, so stale
 * duplicates (a block freed, coalesced, split and freed again) are skipped. */
static int push_free(struct buddy *b, uint32_t o, uint64_t addr)
{
	struct buddy_stack *st = &b->stack[o];
	if (st->len > 64 && st->len > 2 * u64map_len(&b->free[o]))
		compact(b, o);
	if (st->len == st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 64;
		uint64_t *n = realloc(st->addr, ncap * sizeof(*n));
		if (!n)
			return SLABSIM_ENOMEM;
		st->addr = n;
		st->cap = ncap;
	}
	st->addr[st->len++] = addr;
	return u64map_put(&b->free[o], addr, st->len);
}

static bool pop_free(struct buddy *b, uint32_t o, uint64_t *addr)
{
	struct buddy_stack *st = &b->stack[o];
	while (st->len) {
		uint64_t a = st->addr[--st->len];
		uint64_t pos;
		if (u64map_get(&b->free[o], a, &pos) && pos == st->len + 1) {
			u64map_del(&b->free[o], a, NULL);
			*addr = a;
			return true;
		}
	}
	return false;
}

int buddy_alloc(struct buddy *b, uint32_t order, uint64_t *addr)
{
	uint32_t o = order;
	uint64_t a = 0;
	while (o <= TOP_ORDER && !pop_free(b, o, &a))
		o++;
	if (o > TOP_ORDER) {
		a = b->top;
		b->top += block_bytes(TOP_ORDER);
		o = TOP_ORDER;
	}
	while (o > order) {
		o--;
		int rc = push_free(b, o, a + block_bytes(o));
		if (rc)
			return rc;
	}
	b->pages_out += 1ULL << order;
	b->held[order]++;
	if (b->pages_out > b->peak_pages_out)
		b->peak_pages_out = b->pages_out;
	*addr = a;
	return 0;
}

int buddy_free(struct buddy *b, uint64_t addr, uint32_t order)
{
	b->pages_out -= 1ULL << order;
	b->held[order]--;
	while (order < TOP_ORDER) {
		uint64_t buddy = BUDDY_BASE + ((addr - BUDDY_BASE) ^ block_bytes(order));
		if (!u64map_del(&b->free[order], buddy, NULL))
			break;
		if (buddy < addr)
			addr = buddy;
		order++;
	}
	return push_free(b, order, addr);
}

void buddy_orders(const struct buddy *b, struct policy_page_orders *out)
{
	for (int o = 0; o < POLICY_MAX_ORDER; o++) {
		out->held_blocks[o] = b->held[o];
		out->free_blocks[o] = u64map_len(&b->free[o]);
	}
	out->grown_pages = (b->top - BUDDY_BASE) / POLICY_PAGE_SIZE;
}

int buddy_kmalloc_large(struct buddy *b, uint64_t size, struct policy_obj *out,
			uint64_t *large_pages, uint64_t *large_objs, struct err *e)
{
	uint32_t order = layout_get_order(size);
	if (buddy_alloc(b, order, &out->addr))
		return err_set(e, SLABSIM_ENOMEM, "out of memory for a large kmalloc (order %u)",
			       order);
	out->cache = POLICY_NO_CACHE;
	out->order = order;
	out->bytes_alloc = (uint64_t)POLICY_PAGE_SIZE << order;
	out->size = size;
	out->slot_bytes = out->object_bytes = out->bytes_alloc;
	out->meta_bytes = 0;
	*large_pages += 1ULL << order;
	(*large_objs)++;
	return 0;
}
