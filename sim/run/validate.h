/* validate.h - the model against the kernel that recorded a capture
 * (traces/capture.h): configuring a model from the capture's metadata,
 * `slabsim validate` (layout, end state, snapshots over time) and the phase
 * summary of `slabsim replay --phase-summary`.
 *
 * Nothing here fits the model to what it is compared with: the end state and
 * the snapshots are read only to compare; the model starts from the capture's
 * start snapshot (counts taken before the trace) and its configuration.
 */
#ifndef SLABSIM_VALIDATE_H
#define SLABSIM_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "run.h"
#include "err.h"
#include "sim.h"

/* Configure m from the capture c, except for the fields in m->given
 * (RUN_GIVEN_* bits), which the command line set and which win. What was
 * taken, and what could not be modelled (per-cache slub_debug lists, the O
 * flag), is written to notes as "capture: ..." lines (notes may be NULL). */
int val_capture_model(const struct capture *c, struct run_model *m, FILE *notes, struct err *e);

/* The allocator model of the kernel that recorded c: the policy that
 * capture-info.txt's allocator= names, else the one whose ground truth
 * (policy_ops.truth) the capture's files hold: slab-attrs.tsv -> sysfs
 * (SLUB), /proc/slabinfo with tunables -> slabinfo (SLAB), with 0 tunables
 * -> sysfs, meminfo alone -> meminfo (SLOB). OUT: why (what decided, for
 * notes). NULL when nothing says. val_capture_model takes it unless
 * --allocator was given. */
const struct policy_ops *val_capture_allocator(const struct capture *c, char *why, size_t n);

/* The kernel profile for kernel version major.minor, the closer of the two
 * the models have: 6.1 from 5.16 up, 5.4 below. */
enum policy_kernel val_kernel_profile(uint32_t major, uint32_t minor);

/* The spec kmem_cache_create() must have had for a /sys/kernel/slab row:
 * flags from its attribute files, its alignment (none when hwcache_align:
 * calculate_alignment derives it), ctor. false if object_size is missing. */
bool val_attrs_spec(const struct capture_attrs_row *r, struct policy_cache_spec *spec);

/* Create in s the caches the capture's slabinfo files name, laid out from
 * slab-attrs.tsv, and name unnamed allocations by a geometry unique among
 * the recorded kernel's root caches (sim_name_geometry). Without
 * slab-attrs.tsv (SLAB) a cache's flags, constructor and alignment come
 * from the kernel source's table (cache_facts.h), and, in a capture without
 * slabinfo-start.txt, its creation size from the trace, which this reads
 * once (errors: the trace reader's). Before a replay. */
int val_capture_caches(struct sim *s, const struct capture *c, struct err *e);

/* Start s from the state the capture recorded before its trace
 * (slabinfo-start.txt; under SLUB with slab-attrs-start.tsv slab by slab,
 * refined by the trace's raw addresses; docs/models.md), after
 * val_capture_caches and before the replay. Notes (what was made, from
 * what) go to notes when not NULL. Nothing to do without a start state.
 * Errors: those of sim_prepopulate and sim_start_slab, reading the trace. */
int val_capture_start(struct sim *s, const struct capture *c, FILE *notes, struct err *e);

/* ---- phase summary (replay --phase-summary) ---- */

struct val_phases;
int val_phases_create(struct val_phases **out, struct err *e);
void val_phases_destroy(struct val_phases *p);
/* A sim_marker_fn: ctx is the struct val_phases. */
int val_phases_marker(void *ctx, struct sim *s, const struct trace_event *ev, struct err *e);
/* Print every phase (start..first marker, marker..marker, last marker..end):
 * the change of slab pages, waste bytes and live objects per cache and in
 * total, caches sorted by page change. Call after the replay. */
int val_phases_print(struct val_phases *p, const struct sim *s, FILE *out, struct err *e);

/* ---- validate ---- */

struct val_opts {
	const char *dir;
	struct run_model model; /* after val_capture_model */
	bool json;
	const char *db; /* NULL = no database */
	bool progress;
	sim_progress_fn on_progress; /* draws the bar (sim_opts.on_progress) */
	/* without slabinfo-start.txt, take the first snapshot as the start
	 * state (the pre-trace remainder found there is added to the model) */
	bool anchor;
	uint64_t seed; /* sim_opts.seed: the start state's random picks (recorded) */
	/* compare the model at each SNAP marker, not when its /proc/slabinfo
	 * was read (validate.c, snap_read) */
	bool at_marker;
	FILE *out, *notes;
};

/* The whole validation of opts->dir, printed to opts->out and recorded in
 * opts->db. Returns 0 or an SLABSIM_E* code with e set. */
int val_run(const struct val_opts *o, struct capture *c, struct err *e);

#endif
