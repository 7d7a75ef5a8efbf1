/* tracedat.h - the records of a trace-cmd trace.dat as trace lines.
 *
 * Internal to traces/: trace.c hands a trace.dat (recognised by its magic
 * bytes) to this reader and counts what it returns exactly as it counts the
 * lines of text, so a trace.dat gives the events, line numbers and counts of
 * its `trace-cmd report` text (trace.h says what "line" means there).
 */
#ifndef SLABSIM_TRACEDAT_H
#define SLABSIM_TRACEDAT_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "trace.h"

struct tracedat;

/* Is this build able to read trace.dat (built with libtracecmd)? */
bool tracedat_supported(void);

/* Open the trace.dat at fd (seekable, positioned anywhere; owned from here
 * on: closed by tracedat_close, or here on failure). path names it in
 * messages. OUT: *out. Errors: SLABSIM_EINPUT (not a trace.dat libtracecmd
 * can read: truncated, a version it does not know), SLABSIM_ENOMEM. */
int tracedat_open(int fd, const char *path, struct tracedat **out, struct err *e);

/* The next line of the report: 1 with *kind saying which (TRACE_LINE_EVENT
 * with *ev filled, strings valid until the next call; TRACE_LINE_HEADER;
 * TRACE_LINE_OTHER_EVENT; TRACE_LINE_LOST with *lost), 0 at the end, or
 * SLABSIM_EINPUT with the reason in msg (MSG of 256 bytes) for a slab
 * event record that lacks a field. skip_fields as in trace_opts. */
int tracedat_next(struct tracedat *d, struct trace_event *ev, enum trace_line_kind *kind,
		  uint64_t *lost, uint32_t skip_fields, char *msg);

/* Events the ring buffer lost by its own per-CPU statistics stored in the
 * file (overrun + commit overrun + dropped events, over the CPUs); false
 * when the file stores none. */
bool tracedat_buffer_lost(const struct tracedat *d, uint64_t *lost);

/* Records read so far and the number of CPUs (for progress). */
uint64_t tracedat_records(const struct tracedat *d);

/* Close and free; d may be NULL. */
/* The CPU count the file records (its "cpus=N"), 0 if unknown. */
uint32_t tracedat_cpus(const struct tracedat *d);
void tracedat_close(struct tracedat *d);

#endif
