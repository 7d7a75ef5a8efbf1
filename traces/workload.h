/* workload.h - synthetic workload specifications (docs/workloads.md).
 *
 * A spec is parsed once into an immutable struct workload that the generator
 * (synth.h) reads. Parse errors are SLABSIM_EINPUT with the message
 * "NAME:LINE: expected ..., got ...".
 */
#ifndef SLABSIM_WORKLOAD_H
#define SLABSIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct workload;

/* Cache flags of a [cache] section. */
enum {
	WORKLOAD_CF_HWCACHE = 1u << 0,
	WORKLOAD_CF_RECLAIM = 1u << 1,
	WORKLOAD_CF_ACCOUNT = 1u << 2,
	WORKLOAD_CF_DMA = 1u << 3,
	WORKLOAD_CF_CTOR = 1u << 4,
	WORKLOAD_CF_TYPESAFE_BY_RCU = 1u << 5,
};

/* Parse len bytes of text (need not be NUL-terminated). name is used in
 * messages and as the default workload name; `empirical @FILE` paths are
 * relative to name's directory. OUT: *out, freed with workload_free. Errors:
 * SLABSIM_EINPUT, SLABSIM_ENOMEM, SLABSIM_EIO (an @FILE that cannot be read). */
int workload_parse(const char *name, const char *text, size_t len, struct workload **out,
		   struct err *e);
/* Read and parse the file at path. SLABSIM_EIO if it cannot be read. */
int workload_load(const char *path, struct workload **out, struct err *e);
void workload_free(struct workload *w);

const char *workload_name(const struct workload *w);
const char *workload_path(const struct workload *w); /* as given to parse/load */
/* FNV-1a 64 of the spec text, as 16 hex digits. */
const char *workload_hash(const struct workload *w);
/* The spec's seed and duration; *has_* false when the spec gives none. */
uint64_t workload_seed(const struct workload *w, bool *has_seed);
uint64_t workload_duration_ns(const struct workload *w, bool *has_duration);
uint32_t workload_cpus(const struct workload *w);
const char *workload_rng_name(const struct workload *w);

struct workload_cache {
	const char *name;
	uint32_t object_size, align, flags; /* flags: WORKLOAD_CF_* */
	uint32_t usersize;		    /* usercopy whitelist; != 0 blocks merging */
};
uint32_t workload_nr_caches(const struct workload *w);
void workload_cache(const struct workload *w, uint32_t i, struct workload_cache *out);
uint32_t workload_nr_streams(const struct workload *w);
uint32_t workload_nr_phases(const struct workload *w);

/* Time "2.5s", "250us", "0": whole ns, exactly. Returns false if malformed,
 * not a whole number of ns, or above 2^63. (Shared with --duration.) */
bool workload_parse_time(const char *s, uint64_t *ns);

#endif
