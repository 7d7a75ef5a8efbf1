/* ahead.c - the page frees a little way ahead of the replay (ahead.h). */
#include "ahead.h"

#include <stdlib.h>
#include <string.h>

enum {
	PAGE = 4096,
	/* pages of one page free put in the window: a slab is at most
	 * order 3 on these caches; a larger free is a buddy block */
	MAX_PAGES = 64,
};

void ahead_init(struct ahead *a)
{
	memset(a, 0, sizeof(*a));
	u64map_init_sparse(&a->pages);
}

void ahead_fini(struct ahead *a)
{
	u64map_fini(&a->pages);
	free(a->rpage);
	free(a->rix);
	free(a->rts);
	a->rpage = a->rix = a->rts = NULL;
}

void ahead_start(struct ahead *a, const struct trace_source *src, uint64_t window_ns)
{
	ahead_fini(a);
	ahead_init(a);
	if (!src || !src->peek_at)
		return;
	a->src = src;
	a->window_ns = window_ns;
}

static int ring_push(struct ahead *a, uint64_t page, uint64_t ix, uint64_t t_ns)
{
	if (a->rlen == a->rcap) {
		uint64_t cap = a->rcap ? a->rcap * 2 : 256;
		uint64_t *p = malloc(cap * sizeof(*p)), *x = malloc(cap * sizeof(*x)),
			 *t = malloc(cap * sizeof(*t));
		if (!p || !x || !t) {
			free(p);
			free(x);
			free(t);
			return SLABSIM_ENOMEM;
		}
		for (uint64_t i = 0; i < a->rlen; i++) {
			p[i] = a->rpage[(a->rhead + i) & (a->rcap - 1)];
			x[i] = a->rix[(a->rhead + i) & (a->rcap - 1)];
			t[i] = a->rts[(a->rhead + i) & (a->rcap - 1)];
		}
		free(a->rpage);
		free(a->rix);
		free(a->rts);
		a->rpage = p;
		a->rix = x;
		a->rts = t;
		a->rcap = cap;
		a->rhead = 0;
	}
	uint64_t at = (a->rhead + a->rlen++) & (a->rcap - 1);
	a->rpage[at] = page;
	a->rix[at] = ix;
	a->rts[at] = t_ns;
	bool found;
	uint64_t *v = u64map_upsert(&a->pages, page, &found);
	if (!v)
		return SLABSIM_ENOMEM;
	*v = found ? *v + 1 : 1;
	return 0;
}

static void ring_pop(struct ahead *a)
{
	uint64_t page = a->rpage[a->rhead];
	a->rhead = (a->rhead + 1) & (a->rcap - 1);
	a->rlen--;
	if (a->told)
		a->told--;
	uint64_t *v = u64map_ref(&a->pages, page);
	if (v && !--*v)
		u64map_del_ref(&a->pages, v);
}

/* Read ahead until the first event after until: the page frees into the
 * ring. */
static int fill(struct ahead *a, uint64_t cur, uint64_t until, struct err *e)
{
	for (;;) {
		if (a->ibuf == a->nbuf) {
			if (a->end)
				return 0;
			a->buf_at = a->next;
			a->nbuf = a->src->peek_at(a->src->ctx, a->next, 64, a->buf);
			a->ibuf = 0;
			if (!a->nbuf) {
				a->end = true;
				return 0;
			}
		}
		const struct trace_event *ev = &a->buf[a->ibuf];
		uint64_t ix = a->buf_at + a->ibuf;
		if (ix <= cur) { /* the stream went past it (a step per event) */
			a->ibuf++;
			continue;
		}
		if (ev->t_ns > until)
			return 0;
		a->ibuf++;
		a->next = ix + 1;
		if (ev->type != TRACE_EV_PAGE_FREE)
			continue;
		uint64_t n = ev->bytes_alloc / PAGE;
		for (uint64_t i = 0; i < n && i < MAX_PAGES; i++)
			if (ring_push(a, (ev->ptr & ~(uint64_t)(PAGE - 1)) + i * PAGE, ix,
				      ev->t_ns))
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
}

int ahead_step_slow(struct ahead *a, uint64_t t_ns, struct err *e)
{
	uint64_t cur = a->cur++;
	if (!a->armed)
		return 0;
	while (a->rlen && a->rix[a->rhead] <= cur)
		ring_pop(a);
	if (a->next <= cur) /* read nothing ahead of the stream yet */
		a->next = cur + 1;
	int rc = fill(a, cur, ahead_after(t_ns, a->window_ns), e);
	if (rc || !a->enter)
		return rc;
	/* the ring is in stream order, which is time order */
	uint64_t by = ahead_after(t_ns, a->enter_ns);
	while (a->told < a->rlen) {
		uint64_t at = (a->rhead + a->told) & (a->rcap - 1);
		if (a->rts[at] > by)
			break;
		a->told++;
		a->enter(a->enter_ctx, a->rpage[at]);
	}
	return 0;
}

bool ahead_page_freed(const struct ahead *a, uint64_t phys)
{
	return a->src && u64map_get(&a->pages, phys & ~(uint64_t)(PAGE - 1), NULL);
}
