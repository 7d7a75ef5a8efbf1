/* synth.h - the synthetic workload generator: turns a parsed spec
 * (workload.h) and a seed into kmem: events in time order.
 *
 * Arrivals, frees and phase changes are events of one discrete-event queue
 * (sim/base/evq.h, ordered by time then insertion), so memory follows the pending
 * frees (16 bytes each), never the number of events generated. All random
 * numbers come from one gsl_rng; see docs/workloads.md for the draw order
 * that makes the output identical on every machine.
 */
#ifndef SLABSIM_SYNTH_H
#define SLABSIM_SYNTH_H

#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "trace.h"
#include "workload.h"

struct synth;

/* What the model says about sizes, for the events' bytes_alloc. */
struct synth_model {
	void *ctx;
	/* bytes_alloc of a kmalloc of size with TRACE_GFP_* bits gfp; NULL:
	 * bytes_alloc = size */
	uint64_t (*kmalloc_bytes)(void *ctx, uint64_t size, uint32_t gfp);
	/* per workload cache i: bytes_req (object size) and bytes_alloc (slot);
	 * NULL: both the spec's object_size */
	const uint64_t *cache_req, *cache_alloc;
};

/* Create a generator over w (borrowed; must outlive it) with seed and
 * duration. model may be NULL. Errors: SLABSIM_EUSAGE (duration 0, too many
 * streams), SLABSIM_ENOMEM. */
int synth_create(const struct workload *w, uint64_t seed, uint64_t duration_ns,
		 const struct synth_model *model, struct synth **out, struct err *e);
void synth_destroy(struct synth *g);

/* The next event in time order: 1 with *ev, 0 at the end. String members of
 * ev point into w. Kmem_cache_alloc events carry the cache's name (the
 * replay needs no name pass); ev->line is the event's 1-based number. */
int synth_next(struct synth *g, struct trace_event *ev, struct err *e);

/* g as an event source for the replay engine (source.h): next is
 * synth_next, progress the virtual time reached out of the duration; name
 * is used in messages as "NAME:EVENT-NUMBER" (borrowed). */
struct trace_source;
void synth_source(struct synth *g, const char *name, struct trace_source *src);

/* Write ev as a tracefs text line (Linux 6.1 fields, ns timestamps). */
int synth_write_event(FILE *f, const struct trace_event *ev);
/* The header lines of a written trace. */
int synth_write_header(FILE *f, const struct workload *w, uint64_t seed, uint64_t duration_ns,
		       uint32_t nr_cpus);

/* Counters: events generated, frees pending now and at most, queue bytes. */
struct synth_stats {
	uint64_t events, allocs, frees;
	uint64_t pending, peak_pending;
	uint64_t peak_queue_bytes;
};
void synth_stats(const struct synth *g, struct synth_stats *out);

/* Virtual time reached and the duration, for progress bars. */
void synth_progress(const struct synth *g, uint64_t *done_ns, uint64_t *total_ns);

/* Draw one value from stream i's size or lifetime distribution with rng r
 * (a gsl_rng *), as the generator does; for the distribution tests. The
 * lifetime is in ns, UINT64_MAX for forever/phase. */
uint64_t synth_draw_size(const struct workload *w, uint32_t i, void *r);
uint64_t synth_draw_lifetime(const struct workload *w, uint32_t i, void *r);

#endif
