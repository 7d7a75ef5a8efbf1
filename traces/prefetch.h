/* prefetch.h - parse a trace on a second thread, ahead of its consumer.
 *
 * Parsing text and modelling the allocator each take about half of a replay;
 * on two or more cores they overlap. A producer thread calls trace_next() and
 * fills blocks of events (their strings copied into the block), the consumer
 * takes them in order. The events, their order and the line counts are
 * exactly those of trace_next() on the same reader; memory is a few blocks,
 * never the trace. The producer also interns call sites: events carry
 * site_id (trace.h), equal within one prefetch, so a consumer may map ids
 * (sim_source.id_space) instead of hashing the call-site strings. A call
 * site's string crosses over once, with its first event; the consumer keeps
 * it until close.
 */
#ifndef SLABSIM_PREFETCH_H
#define SLABSIM_PREFETCH_H

#include <stdint.h>

#include "err.h"
#include "trace.h"

struct trace_prefetch;

/* Start a producer thread reading r (borrowed: close r only after
 * trace_prefetch_close). Errors: SLABSIM_ENOMEM, SLABSIM_EIO (no thread). */
int trace_prefetch_open(struct trace_reader *r, struct trace_prefetch **out, struct err *e);

/* As trace_next(): 1 with an event (name and text valid until the next call,
 * call_site until trace_prefetch_close), 0 at the end, or the reader's error
 * (message included) where it occurred. */
int trace_prefetch_next(struct trace_prefetch *p, struct trace_event *ev, struct err *e);

/* Bytes of the file parsed so far and its size, as of the last block taken. */
void trace_prefetch_progress(const struct trace_prefetch *p, uint64_t *done, uint64_t *total);

/* The reader's line counts. Stops the producer first (the counts are final
 * when the consumer has seen the end). */
const struct trace_stats *trace_prefetch_stats(struct trace_prefetch *p);

/* Stop and join the producer, free the blocks. p may be NULL. */
void trace_prefetch_close(struct trace_prefetch *p);

#endif
