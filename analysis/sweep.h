/* sweep.h - sweep specifications: axes of configurations, their Cartesian
 * product, and shards of it (docs/sweeps.md).
 *
 * A spec is text, parsed from a buffer (the fuzzer feeds it arbitrary
 * bytes). Axes that a model does not read (slub_debug for SLAB, ...) apply
 * only to the allocators that read them, so the product holds no two runs
 * that would model the same thing.
 */
#ifndef SLABSIM_SWEEP_H
#define SLABSIM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "policy.h"

/* A spec may not expand to more runs than this (a typo in a range should
 * not plan a billion runs). */
#define SWEEP_MAX_RUNS 1000000u

/* The axes of a spec, in the order of the product (sweep_expand). */
enum sweep_axis {
	SWEEP_AX_ALLOCATOR,
	SWEEP_AX_KERNEL,
	SWEEP_AX_NR_CPUS,
	SWEEP_AX_ALIGN,
	SWEEP_AX_SLUB_DEBUG,
	SWEEP_AX_SLAB_DEBUG,
	SWEEP_AX_SLUB_MIN_ORDER,
	SWEEP_AX_SLUB_MAX_ORDER,
	SWEEP_AX_SLUB_MIN_OBJECTS,
	SWEEP_AX_CPU_PARTIAL,
	SWEEP_AX_SLAB_MAX_ORDER,
	/* boot parameter and kernel configuration switches (on/off) */
	SWEEP_AX_SLAB_NOMERGE,
	SWEEP_AX_SLUB_TINY,
	SWEEP_AX_RANDOM_KMALLOC,
	SWEEP_AX_SLAB_BUCKETS,
	/* the sheaves' what-ifs (SLUB 6.18+): `kernel` or a number */
	SWEEP_AX_SHEAF_CAPACITY,
	SWEEP_AX_BARN_LIMIT,
	SWEEP_AX_NR,
};

struct sweep_spec;

/* One run of the product. Strings point into the spec. */
struct sweep_run {
	size_t index;	       /* position in the full product, from 0 */
	const char *trace;     /* trace or workload path as written in the spec */
	size_t trace_idx;      /* index into the spec's traces, or its workloads */
	bool workload;	       /* trace is a workload spec (trace_idx: workloads) */
	bool seed_set;	       /* workload: seed comes from the seed axis */
	uint64_t seed;	       /* workload: the seed when seed_set */
	const char *allocator; /* policy name */
	struct policy_cfg cfg;
	/* 1u << SWEEP_AX_* of the axes the spec set for this run (an axis it
	 * lists and this run's allocator reads; `auto` is not a setting): the
	 * others are the input's (a capture's metadata) or the defaults */
	uint32_t given;
	/* kernel, nr_cpus: `auto` (the default): cfg holds the default until
	 * the caller resolves it from the input, as `replay` does */
	bool kernel_auto, nr_cpus_auto;
	/* align = auto under a kernel the run leaves to its input: resolved
	 * with the kernel (the profile's rule); under a given kernel the
	 * expansion resolves it and drops the run when the axis also lists the
	 * value it resolves to */
	bool align_auto;
	const char *sample_every; /* e.g. "1000ev"; checked by the caller */
	const char *align_sites;  /* the spec's `align-sites =` file, or NULL */
};

/* Parse len bytes of buf (need not be NUL-terminated). name is used in
 * messages ("name:line: ..."). OUT: *out, freed with sweep_spec_free().
 * Errors: SLABSIM_EINPUT (a message naming the line and what was expected),
 * SLABSIM_ENOMEM. */
int sweep_spec_parse(const char *buf, size_t len, const char *name, struct sweep_spec **out,
		     struct err *e);
/* Read and parse a file. Errors: SLABSIM_EIO, and those of the parser. */
int sweep_spec_load(const char *path, struct sweep_spec **out, struct err *e);
void sweep_spec_free(struct sweep_spec *s);

size_t sweep_spec_ntraces(const struct sweep_spec *s);
const char *sweep_spec_trace(const struct sweep_spec *s, size_t i);
size_t sweep_spec_nworkloads(const struct sweep_spec *s);
const char *sweep_spec_workload(const struct sweep_spec *s, size_t i);
/* `label =` of trace i or workload i as written, or NULL (none given). */
const char *sweep_spec_trace_label(const struct sweep_spec *s, size_t i);
const char *sweep_spec_workload_label(const struct sweep_spec *s, size_t i);
/* `align-sites =` as written (the sites file of every run), or NULL; OUT:
 * *line, its spec line (line may be NULL). */
const char *sweep_spec_align_sites(const struct sweep_spec *s, size_t *line);
/* `kallsyms =` as written (the kernel symbols of the spec's perf.data
 * traces, as `replay --kallsyms`), or NULL. */
const char *sweep_spec_kallsyms(const struct sweep_spec *s);
/* `duration =` as written (for the workloads), or NULL. */
const char *sweep_spec_duration(const struct sweep_spec *s);
/* The spec line that names trace i (for messages about the trace). */
size_t sweep_spec_trace_line(const struct sweep_spec *s, size_t i);
/* Whether the spec lists the axis at all. */
bool sweep_spec_has_axis(const struct sweep_spec *s, enum sweep_axis a);
/* The allocator of trace i's runs when the spec has no allocator axis
 * (default POLICY_DEFAULT_NAME): a capture directory's own, as `replay DIR`
 * takes it. name must be a policy_table name; it is borrowed until
 * sweep_spec_free. Set before sweep_expand. Errors: SLABSIM_EUSAGE. */
int sweep_spec_set_trace_allocator(struct sweep_spec *s, size_t i, const char *name, struct err *e);

/* The product in a fixed order (traces outermost, then workloads, then
 * allocator, kernel, nr_cpus, align, the debug axes, the order limits, and
 * for workloads the seeds innermost: runs that differ only by seed are
 * adjacent). Traces ignore the seed axis. A spec without a kernel or an
 * nr_cpus axis has one `auto` value there (sweep_run.kernel_auto). OUT: *runs (free()), *n. Errors:
 * SLABSIM_ENOMEM. */
int sweep_expand(const struct sweep_spec *s, struct sweep_run **runs, size_t *n, struct err *e);

/* --shard I/N: run index k belongs to shard I (1-based) when k % N == I - 1.
 * Parses "I/N"; returns 0 or SLABSIM_EUSAGE with a message. */
int sweep_parse_shard(const char *arg, uint32_t *i, uint32_t *n, struct err *e);
static inline bool sweep_in_shard(size_t index, uint32_t i, uint32_t n)
{
	return n == 0 || index % n == i - 1;
}

#endif
