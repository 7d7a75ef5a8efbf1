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
 * messages. A file of the usual shape is read in process (datfile.h says
 * which); any other, libtracecmd reads in a child process (tracedat.c says
 * why): a crash there is an input error, not ours. skip_fields as in trace_opts,
 * for every record. OUT: *out. Errors: SLABSIM_EINPUT (not a trace.dat
 * libtracecmd can read: truncated, a version it does not know, a file that
 * crashed it), SLABSIM_EIO (no pipe or process), SLABSIM_ENOMEM. */
int tracedat_open(int fd, const char *path, uint32_t skip_fields, struct tracedat **out,
		  struct err *e);

/* The next line of the report: 1 with *kind saying which (TRACE_LINE_EVENT
 * with *ev filled, strings valid until the next call; TRACE_LINE_HEADER;
 * TRACE_LINE_OTHER_EVENT; TRACE_LINE_LOST with *lost), 0 at the end, or
 * SLABSIM_EINPUT with the reason in msg (MSG of 256 bytes) for a slab
 * event record that lacks a field, or, when tracedat_failure() is then
 * not NULL, because the reader died on the file (no more lines).
 * skip_fields is the one given to tracedat_open. */
int tracedat_next(struct tracedat *d, struct trace_event *ev, enum trace_line_kind *kind,
		  uint64_t *lost, uint32_t skip_fields, char *msg);

/* Events the ring buffer lost by its own per-CPU statistics stored in the
 * file (overrun + commit overrun + dropped events, over the CPUs); false
 * when the file stores none. */
bool tracedat_buffer_lost(const struct tracedat *d, uint64_t *lost);
/* Whether the file's formats give every kmem_cache_alloc event kind it has
 * (and it has one) a name field: every such record then names its cache,
 * and a name pass has nothing to learn. */
bool tracedat_names_caches(const struct tracedat *d);
/* Whether the call sites and cache names it gives are interned (read in
 * process): each stays at its address, unchanged, until the close
 * (trace_strings_interned). */
bool tracedat_strings_interned(const struct tracedat *d);

/* Not NULL once the reader cannot go on: libtracecmd crashed or stopped
 * on the file (SLABSIM_EINPUT, the message names the file). */
const struct err *tracedat_failure(const struct tracedat *d);

/* After the end (tracedat_next returned 0): true when the file's per-CPU
 * statistics count records read from the ring buffer ("read events:", as
 * `trace-cmd report --stat` prints them) and the file gave fewer on some
 * CPU; *expected is their sum, *missing the records short over the CPUs
 * (corrupt or cut data). */
bool tracedat_unread(const struct tracedat *d, uint64_t *expected, uint64_t *missing);

/* Records read so far and the number of CPUs (for progress). */
uint64_t tracedat_records(const struct tracedat *d);

/* Close and free; d may be NULL. */
/* The CPU count the file records (its "cpus=N"), 0 if unknown. */
uint32_t tracedat_cpus(const struct tracedat *d);
void tracedat_close(struct tracedat *d);

#endif
