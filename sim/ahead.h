/* ahead.h - the page frees a little way ahead of the replay.
 *
 * SLUB frees the page of a SLAB_TYPESAFE_BY_RCU cache's slab a grace period
 * after it discards the slab (free_slab: call_rcu -> rcu_free_slab), so at
 * the moment the model empties a slab bound to a kernel slab, whether the
 * kernel's was discarded then too shows only later: its page free follows
 * within a grace period, or the slab was still in use. The window holds
 * the kmem:mm_page_free events of the stream from the event being
 * replayed to a fixed time after it, read through the source's random
 * access (trace_source.peek_at); memory follows the page frees of one
 * window, not the trace. Sources without random access have no window;
 * the run layer gives a trace file read as it comes a second read for it
 * (traces/peekread.h).
 */
#ifndef SLABSIM_AHEAD_H
#define SLABSIM_AHEAD_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "source.h"
#include "trace.h"
#include "u64map.h"

/* The window's length: above the longest delay seen between a traced
 * vm_area_struct free and its kernel slab's page free on the development
 * captures of this machine's 6.18 kernel (12.6 ms at the median, 84 ms at
 * the 99th percentile of 3,034), fixed before the captures it was judged
 * on were recorded (docs/models.md). */
#define AHEAD_WINDOW_NS (100 * 1000000ull)

/* How long before its page free the kernel discards a SLAB_TYPESAFE_BY_RCU
 * cache's slab (policy_ops.page_free_ahead): the median delay between a
 * traced vm_area_struct free and its kernel slab's page free on the same
 * development captures (12.6 ms; 15.3 ms on the mapping workload's),
 * measured with AHEAD_WINDOW_NS, before the captures it is judged on. */
#define AHEAD_DISCARD_NS (13 * 1000000ull)

struct ahead {
	const struct trace_source *src; /* NULL: no window */
	uint64_t window_ns;
	uint64_t cur;  /* stream index of the event being replayed */
	uint64_t next; /* stream index of the first event not yet read */
	struct trace_event buf[64];
	uint32_t nbuf, ibuf; /* events read ahead and not yet in the window */
	uint64_t buf_at;     /* stream index of buf[0] */
	bool end;
	bool armed; /* ahead_arm: reading ahead (until then only counting) */
	/* ahead_on_enter: told of each page freed within enter_ns */
	void (*enter)(void *ctx, uint64_t phys);
	void *enter_ctx;
	uint64_t enter_ns;
	uint64_t told;	     /* entries of the ring from rhead on already told */
	struct u64map pages; /* physical page -> page frees in the window */
	/* the window's page frees in stream order: their pages, indexes and
	 * times */
	uint64_t *rpage, *rix, *rts;
	uint64_t rcap, rhead, rlen; /* rcap: 0 or a power of two (a mask, not a divide) */
};

void ahead_init(struct ahead *a);
void ahead_fini(struct ahead *a);

/* Start a window over src (kept, borrowed) of window_ns, when src has
 * random access; else none (ahead_on false). */
void ahead_start(struct ahead *a, const struct trace_source *src, uint64_t window_ns);

static inline bool ahead_on(const struct ahead *a)
{
	return a->src != 0;
}

/* Start reading ahead from the next step on: until then a step only
 * counts the event, so a trace whose page frees are never needed (no
 * direct-map base found) is not read twice. */
static inline void ahead_arm(struct ahead *a)
{
	a->armed = a->src != 0;
}

/* ahead_step's work when the inline test finds any. */
int ahead_step_slow(struct ahead *a, uint64_t t_ns, struct err *e);

static inline uint64_t ahead_after(uint64_t t_ns, uint64_t d)
{
	return t_ns > UINT64_MAX - d ? UINT64_MAX : t_ns + d;
}

/* The next event of the stream, at t_ns, is being replayed: once armed,
 * the window becomes the page frees after it up to t_ns + window_ns. 0, or
 * SLABSIM_ENOMEM with e set.
 *
 * Inline, the step of most events, which changes nothing but the count:
 * no page free of the window falls behind the stream, the next event read
 * ahead is past the stream and past the window's end, and no page free of
 * the window is newly within enter_ns (ahead_step_slow would find the
 * same, a call per event later; 1.3 % of a 6.18 perf.data's replay). */
static inline int ahead_step(struct ahead *a, uint64_t t_ns, struct err *e)
{
	uint64_t cur = a->cur;
	if (!a->armed) {
		a->cur = cur + 1;
		return 0;
	}
	if ((!a->rlen || a->rix[a->rhead] > cur) && a->next > cur && a->ibuf < a->nbuf &&
	    a->buf_at + a->ibuf > cur && a->buf[a->ibuf].t_ns > ahead_after(t_ns, a->window_ns) &&
	    (!a->enter || a->told == a->rlen ||
	     a->rts[(a->rhead + a->told) & (a->rcap - 1)] > ahead_after(t_ns, a->enter_ns))) {
		a->cur = cur + 1;
		return 0;
	}
	return ahead_step_slow(a, t_ns, e);
}

/* After ahead_start (which forgets it): fn(ctx, phys) once for each page
 * (its physical address) the trace frees within within_ns (at most
 * window_ns) of the event being replayed, at the first step that finds it
 * so. fn may change anything but the window. */
static inline void ahead_on_enter(struct ahead *a, void (*fn)(void *ctx, uint64_t phys), void *ctx,
				  uint64_t within_ns)
{
	a->enter = fn;
	a->enter_ctx = ctx;
	a->enter_ns = within_ns;
}

/* Whether the window holds a free of the page at physical address phys
 * (any address in the page). */
bool ahead_page_freed(const struct ahead *a, uint64_t phys);

#endif
