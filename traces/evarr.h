/* evarr.h - a trace parsed once into a compact in-memory event array.
 *
 * A sweep replays the same trace many times; parsing the text dominates a
 * replay, so the trace is read once into 32-byte events and every run reads
 * the array through a struct sim_source. Strings (call sites, cache names,
 * marker texts) are interned, and the rarely varying fields of an event (type,
 * CPU, node, gfp bits, call site, name) are interned together as one "key",
 * so an event is only its time, pointer, sizes, key and line. The array is
 * read-only after evarr_load(): forked workers share it copy-on-write.
 */
#ifndef SLABSIM_EVARR_H
#define SLABSIM_EVARR_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "trace.h"

struct sim_source;
struct evarr;

/* Read every slab event of path (as trace_open() does, malformed lines
 * counted and skipped) into a new array. OUT: *out, freed with evarr_free().
 * Errors: those of trace_open()/trace_next(), SLABSIM_ENOMEM. */
int evarr_load(const char *path, struct evarr **out, struct err *e);
void evarr_free(struct evarr *a);

/* Number of events. */
uint64_t evarr_len(const struct evarr *a);
/* Event i (< evarr_len) into *ev; strings point into a and live as long. */
void evarr_get(const struct evarr *a, uint64_t i, struct trace_event *ev);
/* The reader's line counts at the end of the parse. */
const struct trace_stats *evarr_stats(const struct evarr *a);
const char *evarr_path(const struct evarr *a);
/* Bytes held: events, keys and strings (for the benchmark and the log). */
size_t evarr_bytes(const struct evarr *a);
/* Distinct keys and strings. */
uint32_t evarr_nkeys(const struct evarr *a);

/* A read position; one per replay, any number over one array. */
struct evarr_cursor {
	const struct evarr *a;
	uint64_t i;
};

/* Point src at a fresh cursor *c over a (both borrowed; c reset to 0). */
void evarr_source(struct sim_source *src, struct evarr_cursor *c, const struct evarr *a);

#endif
