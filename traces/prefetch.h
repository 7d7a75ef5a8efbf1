/* prefetch.h - parse a trace on a second thread, ahead of its consumer.
 *
 * Parsing text and modelling the allocator each take about half of a replay;
 * on two or more cores they overlap. A producer thread calls trace_next() and
 * fills blocks of events (marker texts copied into the block), the consumer
 * takes them in order. The events, their order and the line counts are
 * exactly those of trace_next() on the same reader; memory is a few blocks,
 * never the trace. The producer also interns call sites: events carry
 * site_id (trace.h), equal within one prefetch, so a consumer may map ids
 * (trace_source.id_space) instead of hashing the call-site strings. A call
 * site's string crosses over once, with its first event; the consumer keeps
 * it until close.
 *
 * A plain regular file can also be parsed on several threads
 * (trace_prefetch_open_opts): it is cut into chunks of a few MiB at line
 * starts (trace_open_range), worker threads parse them with readers of
 * their own, and the consumer takes them in file order. What it returns is
 * still exactly trace_next()'s sequence: the events with their file line
 * numbers, site_id given in the order call sites first appear in the file,
 * a strict-mode error with its file line and message after every event
 * before it, and the line counts; memory is a fixed number of chunks in
 * flight (threads + 2), never the trace.
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

/* Default chunk size of the chunked reader. */
#define TRACE_PREFETCH_CHUNK (UINT64_C(2) << 20)

struct trace_prefetch_opts {
	/* Parser threads for a plain regular file: 0 is
	 * trace_prefetch_default_threads(), 1 one producer, at most 64. */
	unsigned threads;
	/* Bytes per chunk (0: TRACE_PREFETCH_CHUNK). For tests: any value
	 * here chunks the file even on one thread or when it is smaller than
	 * two chunks, which otherwise go to the single producer. */
	uint64_t chunk_bytes;
	/* No thread for a reader not chunked: the consumer reads each block
	 * as it needs it (the same events, ids and strings). For a reader
	 * cheaper than its consumer on two cores (a trace.dat, run.c): events
	 * handed between cores cost more CPU than the overlap saves. */
	bool same_thread;
};

/* min(online CPUs - 1, 2), at least 1: the consumer (the model, or the
 * name pass and its spill) needs a core of its own. On two cores, two
 * parsers and the consumer made the replay slower and cost more CPU than
 * one parser (tests/bench/README.md); more than two parsers outrun any
 * consumer. */
unsigned trace_prefetch_default_threads(void);

/* As trace_prefetch_open, on po->threads threads when r reads a plain
 * regular file (trace_is_plain_file) of at least two chunks: the workers
 * open trace_path(r) again with r's options (trace_options) and r itself
 * is not read (it stays borrowed; trace_stats(r) is then not the count,
 * trace_prefetch_stats is). Anything else (stdin, a pipe, a compressed
 * file, po NULL with one core) gets the single producer on r. */
int trace_prefetch_open_opts(struct trace_reader *r, const struct trace_prefetch_opts *po,
			     struct trace_prefetch **out, struct err *e);

/* Parser threads in use: 1 for the single producer, 0 on the same thread. */
unsigned trace_prefetch_threads(const struct trace_prefetch *p);

/* The reader's path (trace_path). */
const char *trace_prefetch_path(const struct trace_prefetch *p);

/* As trace_next(): 1 with an event (text valid until the next call, call_site
 * until trace_prefetch_close, name too on the single producer), 0 at the end,
 * or the reader's error (message included) where it occurred. */
int trace_prefetch_next(struct trace_prefetch *p, struct trace_event *ev, struct err *e);

/* Bytes of the file parsed so far and its size, as of the last block taken. */
void trace_prefetch_progress(const struct trace_prefetch *p, uint64_t *done, uint64_t *total);

/* The reader's line counts. Stops the producer first (the counts are final
 * when the consumer has seen the end; chunked, until then they are those of
 * the chunks the consumer has reached, whole). */
const struct trace_stats *trace_prefetch_stats(struct trace_prefetch *p);

/* Stop and join the producer, free the blocks. p may be NULL. */
void trace_prefetch_close(struct trace_prefetch *p);

/* p as an event source (source.h; p borrowed), named name in messages;
 * its id_space is p (the producers intern call sites). */
struct trace_source;
void trace_prefetch_as_source(struct trace_source *src, struct trace_prefetch *p, const char *name);

#endif
