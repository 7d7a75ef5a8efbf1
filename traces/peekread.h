/* peekread.h - random access ahead for a trace file read as it comes.
 *
 * The engine's look-ahead (sim/ahead.h) reads the events a little way ahead
 * of the replay through trace_source.peek_at. The parsed array the name
 * pass spills has it; a trace file read as it comes (--no-spill,
 * --no-name-pass, --strict, the name pass in ranges, a trace.dat read
 * once) has not, and replayed without it a 6.18 trace with page frees gave
 * other figures than by default. This source gives the events of the
 * source it wraps, and peek_at from them:
 *  - When the wrapped source's strings stay put (trace_source.
 *    stable_strings: the single-producer prefetch), its events pass
 *    through a queue, which reads ahead as far as a peek asks and keeps
 *    what the replay has not taken yet (and a few thousand events behind
 *    it): one read, and memory that follows the events of one look-ahead
 *    window (at most 2^18 of them, 27 MiB), not the trace. A marker's
 *    text is copied into the queue.
 *  - Otherwise, and for a peek beyond the queue's most events, from a
 *    second reader of the same file, opened at the first such peek: the
 *    engine peeks only once page frees are in use (ahead_arm), so a trace
 *    without them is still read once. The second reader parses every line
 *    as the first does (no skipped fields: a line malformed in its fields
 *    must be skipped by both, or the stream indexes would part), so both
 *    give the same stream of events. A second read that fails ends the
 *    look-ahead there; the replay's own read meets the same failure and
 *    reports it.
 * A perf.data recording of 2.4 M samples of this machine's 6.18 kernel,
 * read once through the queue instead of spilled: 3,794.7 M -> 3,472.7 M
 * instructions, and no 77 MB spill file.
 */
#ifndef SLABSIM_PEEKREAD_H
#define SLABSIM_PEEKREAD_H

#include "err.h"
#include "source.h"
#include "trace.h"

struct trace_peekread;

/* *src: the events of head (NULL: none; the events a first read of path
 * parsed before in read on with the same reader), then those of in, with
 * peek_at reading path again with opts from its start; head and in are
 * borrowed, with their ctx, for the life of *out. *src has in's id space:
 * head's events come with no call-site id. Errors: SLABSIM_ENOMEM. */
int trace_peekread_open(const struct trace_source *head, const struct trace_source *in,
			const char *path, const struct trace_opts *opts,
			struct trace_peekread **out, struct trace_source *src, struct err *e);
void trace_peekread_close(struct trace_peekread *p);

#endif
