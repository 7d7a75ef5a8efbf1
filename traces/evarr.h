/* evarr.h - a trace parsed once into a compact in-memory event array.
 *
 * A sweep replays the same trace many times; parsing the text dominates a
 * replay, so the trace is read once into 32-byte events and every run reads
 * the array through a struct trace_source. Strings (call sites, cache names,
 * marker texts) are interned, and the rarely varying fields of an event (type,
 * CPU, node, gfp bits, call site, name, bytes_alloc) are interned together as
 * one "key", so an event is only its time, pointer, bytes_req, pid, key and
 * line. The array is
 * read-only after evarr_load(): forked workers share it copy-on-write.
 */
#ifndef SLABSIM_EVARR_H
#define SLABSIM_EVARR_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "trace.h"

struct trace_source;
struct evarr;

/* Read every slab event of path (as trace_open() does, malformed lines
 * counted and skipped) into a new array. OUT: *out, freed with evarr_free().
 * Errors: those of trace_open()/trace_next(), SLABSIM_ENOMEM. */
int evarr_load(const char *path, struct evarr **out, struct err *e);
/* evarr_load, a perf.data's call sites named by the kallsyms text at
 * kallsyms (trace_opts.kallsyms; NULL: perf's own search). */
int evarr_load_kallsyms(const char *path, const char *kallsyms, struct evarr **out, struct err *e);
void evarr_free(struct evarr *a);

/* Build an array event by event in memory (evarr_push, then
 * evarr_spill_finish). label names it in messages. Errors: SLABSIM_ENOMEM. */
int evarr_open(const char *label, struct evarr **out, struct err *e);
/* Room for n events in an array being built in memory, in one mapping of
 * whole 2 MiB pages (bigmem.h): a head known to be large is then filled
 * without a doubling's copy and with a fault per 2 MiB, not per 4 KiB (a
 * 100,000-event head: 3 faults instead of about 800). Nothing for a
 * spilled array. Errors: SLABSIM_ENOMEM. */
int evarr_reserve(struct evarr *a, uint64_t n, struct err *e);
/* Build an array event by event, its events written to an unlinked
 * temporary file in dir rather than kept in memory: a replay's first read of
 * a trace keeps what it parsed (32 bytes per event on disk; keys and strings
 * in memory) and the replay reads that back instead of parsing the text a
 * second time. label names the trace in messages. Events are written
 * buf_events at a time (0: 65536, 2 MiB), and a cursor gives back the pages
 * it has passed every 2 x buf_events events. OUT: *out, freed with
 * evarr_free(). Errors: SLABSIM_EIO (no file in dir), SLABSIM_ENOMEM. */
int evarr_spill_open(const char *label, const char *dir, uint32_t buf_events, struct evarr **out,
		     struct err *e);
/* Append one event (strings copied). With id_space non-NULL, events carry
 * site_id in that space (trace_source.id_space) and a call site's string is
 * interned once per id. Errors: SLABSIM_EIO (the file could not be
 * written: a full disk), SLABSIM_ENOMEM. */
int evarr_push(struct evarr *a, const struct trace_event *ev, const void *id_space, struct err *e);
/* evarr_push of every event of from (an in-memory array), in order, without
 * making each a struct trace_event again. Errors: those of evarr_push. */
int evarr_append(struct evarr *a, const struct evarr *from, struct err *e);
/* evarr_push of ev[0..n), stopping at the first error. stable_strings:
 * the events' names stay at their addresses, unchanged, as long as
 * id_space (trace_source.stable_strings), so that a name met before costs
 * a comparison of addresses. */
int evarr_push_batch(struct evarr *a, const struct trace_event *ev, uint32_t n,
		     const void *id_space, bool stable_strings, struct err *e);
/* End the building: stats are the reader's final line counts. The array is
 * read-only from here on; a cursor over it gives back the pages it has
 * passed, so a replay's memory does not grow with the trace. Errors:
 * SLABSIM_EIO, SLABSIM_ENOMEM. */
int evarr_spill_finish(struct evarr *a, const struct trace_stats *stats, struct err *e);

/* Number of events. */
uint64_t evarr_len(const struct evarr *a);
/* Event i (< evarr_len) into *ev; strings point into a and live as long.
 * reader: any address naming one reader that reads on from where it read
 * (a spilled array keeps a window of events for each of the last few:
 * two readers with one name would refill each other's). 0, or
 * SLABSIM_EIO / SLABSIM_ENOMEM with e set: a spilled array's events could
 * not be read back. */
int evarr_get(const struct evarr *a, const void *reader, uint64_t i, struct trace_event *ev,
	      struct err *e);
/* The reader's line counts at the end of the parse. */
const struct trace_stats *evarr_stats(const struct evarr *a);
/* Set them, for an array finished before its reader reached the end (the
 * head of a trace that turned out to be all of it). */
void evarr_set_stats(struct evarr *a, const struct trace_stats *stats);
const char *evarr_path(const struct evarr *a);
/* Bytes held: events, keys and strings (for the benchmark and the log). */
size_t evarr_bytes(const struct evarr *a);
/* Distinct keys and strings. */
uint32_t evarr_nkeys(const struct evarr *a);

/* A read position; one per replay, any number over one array (over a
 * spilled array, read by one thread at a time: its events are read back
 * into windows the array owns, evarr.c "Windows"). */
struct evarr_cursor {
	const struct evarr *a;
	uint64_t i;
	uint64_t dropped; /* spilled arrays: pages before this event given back */
	/* Set by the last reader of a spilled array (the replay), after
	 * evarr_source: the pages it passes go back to the file system too
	 * (punched out of the file), so that the page cache the spill took
	 * is free for the replay's own memory as it grows. Nothing may read
	 * those events afterwards. */
	bool consume;
	bool failed; /* a spilled array's events could not be read back */
};

/* Point src at a fresh cursor *c over a (both borrowed; c reset to 0). */
void evarr_source(struct trace_source *src, struct evarr_cursor *c, const struct evarr *a);

/* ---- reading in place ----
 * The replay (sim/replay.c) reads a cursor's events where the array keeps
 * them and makes each a struct trace_event in its own copy of the key's
 * event (evarr_fill): five fields written per event instead of a 104-byte
 * event copied. */

/* One event: 32 bytes. The pid stays here and bytes_alloc goes to the key:
 * a call site allocates from one cache or a few kmalloc size classes, so
 * bytes_alloc adds 2-14 % keys on the bundled and recorded traces (6.18
 * captures: swing 627 -> 651 keys, mapping 622 -> 635, msg 502 -> 531; the
 * qemu 6.1 capture 1333 -> 1525), while a key holding the pid would number
 * 70 000-140 000 (every task x its call sites x CPUs). Public only for
 * evarr_fill. */
struct evarr_ev {
	uint64_t t_ns;
	uint64_t ptr;
	uint32_t bytes_req; /* EVARR_BIG: see the key */
	uint32_t key;
	uint32_t line; /* saturates at UINT32_MAX (a 4-billion-line trace) */
	int32_t pid;   /* the task's (-1: absent): the engine's mm model reads it */
};
_Static_assert(sizeof(struct evarr_ev) == 32, "evarr events are 32 bytes");

#define EVARR_BIG UINT32_MAX /* a bytes_req that did not fit: the key holds it */

/* The cursor of src when it is one of evarr_source's, else NULL. */
struct evarr_cursor *evarr_source_cursor(const struct trace_source *src);
/* Events in place after a take's: a take of n events has *left >= n +
 * EVARR_TAKE_AHEAD unless the array ends first or a spilled array's window
 * is smaller (only with a tiny write buffer: the tests'). */
#define EVARR_TAKE_AHEAD 16u
/* The next up to n events of c in place, as next_batch would give them
 * (and moving c as it does): OUT *ev, valid until c's next take (for an
 * array in memory, as long as the array; for a spilled one, also only
 * while at most three other readers read it: four windows); *left, the events in place from
 * *ev (see EVARR_TAKE_AHEAD). Returns how many (fewer than n only at the
 * end, or from a tiny window), 0 at the end or if a spilled array's events
 * could not be read back (then evarr_cursor_error says so). */
uint32_t evarr_cursor_take(struct evarr_cursor *c, uint32_t n, const struct evarr_ev **ev,
			   uint64_t *left);
/* After a take returned 0: SLABSIM_EIO or SLABSIM_ENOMEM with e set if c
 * could not read a spilled array's events back, 0 at the end. */
int evarr_cursor_error(const struct evarr_cursor *c, struct err *e);
/* A copy of a's event per key (evarr_nkeys of them), for one reader to
 * fill in place with evarr_fill; freed with free(). NULL: out of memory. */
struct trace_event *evarr_templates(const struct evarr *a);

/* The fields of x that its key does not fix, into ev (a copy of the key's
 * event): evarr_fill and evarr_get. */
static inline void evarr_set_fields(struct trace_event *ev, const struct evarr_ev *x)
{
	ev->t_ns = x->t_ns;
	ev->ptr = x->ptr;
	if (x->bytes_req != EVARR_BIG)
		ev->bytes_req = x->bytes_req;
	ev->line = x->line;
	ev->pid = x->pid;
}

/* Event x as evarr_get gives it, made in its key's event of tmpl (the
 * reader's evarr_templates): every field a key fixes is there already (a
 * key's sizes are all EVARR_BIG or none), and the event stays valid until
 * the next one of its key is filled. */
static inline const struct trace_event *evarr_fill(struct trace_event *tmpl,
						   const struct evarr_ev *x)
{
	struct trace_event *ev = &tmpl[x->key];
	evarr_set_fields(ev, x);
	return ev;
}

#endif
