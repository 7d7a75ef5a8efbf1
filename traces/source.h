/* source.h - a stream of slab events, the one interface between the
 * inputs (a text trace read in place or parsed ahead on other threads, an
 * already parsed event array, a synthetic workload) and whatever consumes
 * them (the replay engine, the name pass). Each input implements it in its
 * own module: trace_as_source (trace.h), trace_prefetch_as_source
 * (prefetch.h), evarr_source (evarr.h), the workload generator (synth.h).
 */
#ifndef SLABSIM_SOURCE_H
#define SLABSIM_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

struct trace_event;
struct trace_stats;

/* A stream of events in time order: a text trace, a synthetic workload, an
 * already parsed event array. next returns 1 with an event, 0 at the end, or
 * a negative error code with e set. */
struct trace_source {
	void *ctx;
	int (*next)(void *ctx, struct trace_event *ev, struct err *e);
	/* done/total units of the source (bytes, events); NULL or total 0 =
	 * unknown. For the progress bar. */
	void (*progress)(void *ctx, uint64_t *done, uint64_t *total);
	/* line counts of a text trace, valid until the source is closed; NULL
	 * for sources that have no lines */
	const struct trace_stats *(*stats)(void *ctx);
	/* Optional look-ahead, for prefetching the engine's tables (results
	 * are the same without it): the ptr fields of up to n events, from
	 * skip places after the next one next() would return, into ptrs.
	 * Returns how many (fewer at the end of the stream). */
	uint32_t (*peek_ptrs)(void *ctx, uint32_t skip, uint32_t n, uint64_t *ptrs);
	/* Optional random access, for reading ahead: up to n events from the
	 * i-th of the stream (0: the first next() gave) into ev, as next
	 * gives them, without moving the stream. Returns how many (0 past
	 * the end). NULL for a stream read as it comes. */
	uint32_t (*peek_at)(void *ctx, uint64_t i, uint32_t n, struct trace_event *ev);
	/* Optional: up to n next events into ev[0..), as n calls of next
	 * would give them (one indirect call per batch, not per event).
	 * Returns how many (0 at the end), or a negative error code with e
	 * set. */
	int (*next_batch)(void *ctx, struct trace_event *ev, uint32_t n, struct err *e);
	/* Optional: next_batch without the copy: *ev points at the events in
	 * the source's own memory, valid until the next call. */
	int (*borrow_batch)(void *ctx, const struct trace_event **ev, uint32_t n, struct err *e);
	const char *name; /* path or label used in messages; NULL = "events" */
	/* Non-NULL when events carry site_id: equal site_ids within one
	 * id_space name the same call-site string, so the engine maps ids
	 * instead of hashing strings (results are identical). */
	const void *id_space;
	/* true when the call_site and name strings of its events stay at
	 * their addresses, unchanged, as long as the id space (the event
	 * array, the single-producer prefetch), so the engine may compare
	 * them by address; false when they live in reused buffers (the
	 * chunked prefetch's). A sim that read one such source must not meet
	 * another one at the same address (free the array only after the
	 * sim, or use a new sim). */
	bool stable_strings;
};

#endif
