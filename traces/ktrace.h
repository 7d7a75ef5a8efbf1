/* ktrace.h - the kmem: events of the running kernel, read as they happen.
 *
 * A tracing session of slabsim's own: a tracefs instance named
 * "slabsim-live-PID" (never the top-level buffer, which other users share),
 * with the kernel's slab events enabled in it, read from its per-CPU
 * trace_pipe_raw through libtracefs and decoded field by field into the
 * struct trace_event the text and trace.dat readers produce, so that the
 * engine takes them as it takes a trace's. The instance is removed by
 * ktrace_close on every path; a session that died without closing (SIGKILL)
 * leaves its instance, which the next ktrace_open removes once its process
 * is gone. Memory is bounded by the ring-buffer pages read at a time.
 */
#ifndef SLABSIM_KTRACE_H
#define SLABSIM_KTRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

struct trace_event;
struct ktrace;

/* Is this build able to trace (built with libtracefs)? */
bool ktrace_supported(void);

struct ktrace_opts {
	uint32_t buffer_kb; /* ring buffer per CPU, KiB; 0 = the instance's default */
	/* also trace kmem:mm_page_free (where the kernel has it), handed over
	 * as TRACE_EV_PAGE_FREE: a freed slab proves its objects freed; and
	 * kmem:mm_page_alloc with KTRACE_PAGE_ALLOC_FILTER, as
	 * TRACE_EV_PAGE_ALLOC: a slab on a page given out since was made
	 * since */
	bool page_free;
};

/* The tracefs filter on kmem:mm_page_alloc that keeps the allocations a
 * slab's page can be: none has __GFP_MOVABLE (0x8). traces/capture/record
 * sets the same. */
#define KTRACE_PAGE_ALLOC_FILTER "!(gfp_flags & 8)"

/* Mount tracefs if it is not (and unmount it at close), remove the
 * instances of earlier sessions whose process is gone, create this
 * process's instance with the kmem slab events enabled and tracing off,
 * and load the events' formats. OUT: *out (ktrace_close in every case).
 * Errors: SLABSIM_EIO (no tracefs, not allowed: the message says which
 * file and why), SLABSIM_EUSAGE (built without libtracefs), SLABSIM_ENOMEM. */
int ktrace_open(const struct ktrace_opts *o, struct ktrace **out, struct err *e);

/* Turn tracing on in the instance: events from here on are recorded. */
int ktrace_start(struct ktrace *k, struct err *e);

/* Turn tracing off in the instance (the session's end; a last ktrace_read
 * with all takes what is left). */
int ktrace_stop(struct ktrace *k, struct err *e);

/* Called with each slab event in time order; the event's strings are
 * valid during the call. Nonzero stops the read and is returned by it. */
typedef int (*ktrace_event_fn)(void *ctx, const struct trace_event *ev, struct err *e);

/* Consume what the ring buffer holds now and hand the slab events to fn in
 * time order across the CPUs: those older than a few milliseconds before
 * the read began (the reorder window, ktrace.c), the others at a later
 * read; with all, every event read (the last read, tracing off). Returns
 * 0, fn's error, SLABSIM_EIO when the buffer cannot be read, or
 * SLABSIM_ENOMEM. */
int ktrace_read(struct ktrace *k, bool all, ktrace_event_fn fn, void *ctx, struct err *e);

/* Events the ring buffer lost so far: Σ over CPUs of its per_cpu/cpuN/stats
 * overrun, commit overrun and dropped events. */
uint64_t ktrace_lost(struct ktrace *k);

/* The instance's name ("slabsim-live-PID"); "" before ktrace_open succeeded. */
const char *ktrace_instance(const struct ktrace *k);

/* Events of each kind enabled in the instance (trace.h's names, "kmalloc"
 * ...), ", "-separated. */
const char *ktrace_enabled(const struct ktrace *k);

/* Turn tracing off, remove the instance (and unmount tracefs if
 * ktrace_open mounted it), free. k may be NULL. Safe to call once from any
 * exit path. */
void ktrace_close(struct ktrace *k);

#endif
