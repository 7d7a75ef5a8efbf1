/* test_ahead.c - the window of page frees ahead of the replay (sim/ahead.h)
 * over a hand-made stream: which pages it holds as the replay steps. */
#include "ahead.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

enum { MS = 1000000 };

/* A stream of events at times t[i] ms; page frees where pf[i] is a
 * physical page number (0: another event), of pages[i] pages. */
struct stream {
	const uint64_t *t, *pf, *pages;
	uint32_t n;
};

static uint32_t peek_at(void *ctx, uint64_t i, uint32_t n, struct trace_event *ev)
{
	const struct stream *s = ctx;
	uint32_t k = 0;
	for (; k < n && i + k < s->n; k++) {
		memset(&ev[k], 0, sizeof(ev[k]));
		ev[k].t_ns = s->t[i + k] * MS;
		ev[k].type = s->pf[i + k] ? TRACE_EV_PAGE_FREE : TRACE_EV_KFREE;
		ev[k].ptr = s->pf[i + k] << 12;
		ev[k].bytes_alloc = 4096 * s->pages[i + k];
	}
	return k;
}

/* ahead_on_enter's callback: the pages told, in order. */
struct told {
	uint64_t page[16];
	uint32_t n;
};

static void tell(void *ctx, uint64_t phys)
{
	struct told *t = ctx;
	if (t->n < 16)
		t->page[t->n] = phys >> 12;
	t->n++;
}

/* The pages told, as "5 6 7" (at most 16). */
static const char *told_str(const struct told *t, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < t->n && i < 16 && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%llu", i ? " " : "",
				       (unsigned long long)t->page[i]);
	return buf;
}

/* ahead_on_enter over the same stream, 30 ms: each page free told once,
 * at the first step within 30 ms of it, in stream order, and not before
 * the window is armed. */
static void check_enter(struct trace_source *src)
{
	struct ahead a;
	struct err e;
	struct told t = {0};
	char buf[128];
	ahead_init(&a);
	ahead_start(&a, src, 100 * (uint64_t)MS);
	ahead_on_enter(&a, tell, &t, 30 * (uint64_t)MS);
	ahead_arm(&a);
	CHECK("enter, step 0 (0 ms): page 5 at 10 ms", !ahead_step(&a, 0, &e));
	CHECK_EQ_STR("enter: 0 ms", told_str(&t, buf, sizeof(buf)), "5");
	CHECK("enter, step 1 (10 ms)", !ahead_step(&a, 10 * MS, &e));
	CHECK_EQ_STR("enter: 10 ms: page 6 (50 ms) not yet", told_str(&t, buf, sizeof(buf)), "5");
	CHECK("enter, step 2 (20 ms)", !ahead_step(&a, 20 * MS, &e));
	CHECK_EQ_STR("enter: 20 ms: page 6 (50 ms)", told_str(&t, buf, sizeof(buf)), "5 6");
	CHECK("enter, step 3 (50 ms)", !ahead_step(&a, 50 * MS, &e));
	CHECK_EQ_STR("enter: 50 ms: 130 and 140 in the window, not within 30 ms",
		     told_str(&t, buf, sizeof(buf)), "5 6");
	CHECK("enter, step 4 (130 ms)", !ahead_step(&a, 130 * MS, &e));
	CHECK_EQ_STR("enter: 130 ms: page 5 again (140 ms), page 7's own free is behind",
		     told_str(&t, buf, sizeof(buf)), "5 6 5");
	CHECK("enter, steps 5 and 6",
	      !ahead_step(&a, 140 * MS, &e) && !ahead_step(&a, 300 * MS, &e));
	CHECK_EQ_STR("enter: 300 ms: the order-1 free at 301 ms, both pages",
		     told_str(&t, buf, sizeof(buf)), "5 6 5 8 9");
	CHECK("enter, step 7", !ahead_step(&a, 301 * MS, &e));
	CHECK("enter: each told once", t.n == 5);
	ahead_fini(&a);
}

int main(void)
{
	/* event:  0   1   2    3    4    5    6    7
	 * ms:     0   10  20   50   130  140  300  301
	 * free:   -   p5  -    p6   p7   p5   -    p8 and p9 (order 1) */
	static const uint64_t t[] = {0, 10, 20, 50, 130, 140, 300, 301};
	static const uint64_t pf[] = {0, 5, 0, 6, 7, 5, 0, 8};
	static const uint64_t pages[] = {1, 1, 1, 1, 1, 1, 1, 2};
	struct stream st = {t, pf, pages, 8};
	struct trace_source src = {.ctx = &st, .peek_at = peek_at};
	struct ahead a;
	struct err e;
	ahead_init(&a);
	ahead_start(&a, &src, 100 * (uint64_t)MS);
	CHECK("on with random access", ahead_on(&a));
	/* not armed yet: the first event is counted, nothing read ahead */
	CHECK("step 0, unarmed", !ahead_step(&a, 0, &e));
	CHECK("unarmed: nothing ahead", !ahead_page_freed(&a, 5 << 12));
	ahead_start(&a, &src, 100 * (uint64_t)MS); /* again, from event 0 */
	ahead_arm(&a);
	/* at event 0 (0 ms): the window is events 1..3 (10, 20, 50 ms) */
	CHECK("step 0", !ahead_step(&a, 0, &e));
	CHECK("0 ms: page 5 ahead", ahead_page_freed(&a, 5 << 12));
	CHECK("0 ms: page 6 ahead (any address in it)", ahead_page_freed(&a, (6 << 12) + 100));
	CHECK("0 ms: page 7 not yet (130 ms)", !ahead_page_freed(&a, 7 << 12));
	/* at event 1 (10 ms, page 5's free itself): past it; 2..3 and 130 is
	 * beyond 110 */
	CHECK("step 1", !ahead_step(&a, 10 * MS, &e));
	CHECK("10 ms: page 5 is behind", !ahead_page_freed(&a, 5 << 12));
	CHECK("10 ms: page 7 still beyond", !ahead_page_freed(&a, 7 << 12));
	/* at event 2 (20 ms): 50; 130 is beyond 120 */
	CHECK("step 2", !ahead_step(&a, 20 * MS, &e));
	CHECK("20 ms: page 6 ahead", ahead_page_freed(&a, 6 << 12));
	CHECK("20 ms: page 7 beyond", !ahead_page_freed(&a, 7 << 12));
	/* at event 3 (50 ms): 130 and 140, up to 150 */
	CHECK("step 3", !ahead_step(&a, 50 * MS, &e));
	CHECK("50 ms: page 6 is behind", !ahead_page_freed(&a, 6 << 12));
	CHECK("50 ms: page 7 ahead", ahead_page_freed(&a, 7 << 12));
	CHECK("50 ms: page 5 ahead again", ahead_page_freed(&a, 5 << 12));
	/* at event 4 (130 ms): 140; at 5 (140 ms): nothing up to 240 */
	CHECK("step 4", !ahead_step(&a, 130 * MS, &e));
	CHECK("step 5", !ahead_step(&a, 140 * MS, &e));
	CHECK("140 ms: nothing ahead", !ahead_page_freed(&a, 5 << 12) &&
						   !ahead_page_freed(&a, 7 << 12) &&
						   !ahead_page_freed(&a, 8 << 12));
	/* at event 6 (300 ms): 301, an order-1 free of pages 8 and 9 */
	CHECK("step 6", !ahead_step(&a, 300 * MS, &e));
	CHECK("300 ms: pages 8 and 9 (order 1), not 10",
	      ahead_page_freed(&a, 8 << 12) && ahead_page_freed(&a, 9 << 12) &&
		      !ahead_page_freed(&a, 10 << 12));
	CHECK("step 7", !ahead_step(&a, 301 * MS, &e));
	CHECK("at the end: nothing", !ahead_page_freed(&a, 8 << 12));
	ahead_start(&a, NULL, 0);
	CHECK("off without a source", !ahead_on(&a) && !ahead_page_freed(&a, 8 << 12));
	struct trace_source plain = {.ctx = &st};
	ahead_start(&a, &plain, 100 * (uint64_t)MS);
	CHECK("off without random access", !ahead_on(&a));
	ahead_fini(&a);
	check_enter(&src);
	return check_done();
}
