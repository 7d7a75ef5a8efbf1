/* learn.h - the name pass (sim_learn_names_source) over a plain trace file,
 * split into byte ranges read on as many threads.
 *
 * Each thread parses its range with its own reader and its own tables; the
 * merge then replays, in trace order, what crosses ranges (allocations
 * still pending at a range's end, frees whose pointer a range had not
 * allocated), so the learned names, the call-site ids and the cache-name
 * ids are exactly those of the serial pass.
 */
#ifndef SLABSIM_LEARN_H
#define SLABSIM_LEARN_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "trace.h"

struct sim;

/* Files smaller than this are read serially unless a thread count is
 * given: starting threads would cost more than it saves. */
#define LEARN_MIN_BYTES (4u << 20)
/* The default thread count is the number of online CPUs, at most this. */
#define LEARN_MAX_THREADS 8

/* The default thread count (online CPUs, 1..LEARN_MAX_THREADS). */
unsigned learn_default_threads(void);

/* The name pass over the trace file path in nthreads ranges (0: the
 * default count, and only for files of at least LEARN_MIN_BYTES). Sets
 * *done false, having read nothing, when the pass is for the serial path:
 * stdin, a compressed or not regular file, one thread, a file of fewer
 * bytes than threads. opts is meant to be lax (a strict error would give a
 * line number counted from its range's start). progress reports to the
 * sim's progress drawer (sim_opts.on_progress). Errors: those of
 * trace_open and trace_next (the first range's first), SLABSIM_ENOMEM,
 * SLABSIM_EIO (no thread could be started). */
int learn_names_file(struct sim *s, const char *path, const struct trace_opts *opts,
		     unsigned nthreads, bool progress, bool *done, struct err *e);

#endif
