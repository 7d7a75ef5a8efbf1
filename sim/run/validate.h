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
#include "vrec.h"

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
/* Take the last snapshot ("end") after the replay. Errors: SLABSIM_ENOMEM. */
int val_phases_end(struct val_phases *p, const struct sim *s, struct err *e);
/* Read access for the printer (sim/cli): snapshot i < val_phases_count, in
 * trace order (the markers, then "end"), each with its label, its total
 * and its figures per policy cache id (roots only; 0 for ids it did not
 * have, id < val_phases_caches(p, i) or not). */
struct val_phase_fig {
	uint64_t pages, waste, live; /* slab pages, waste bytes (pages - requested), live objects */
};
uint32_t val_phases_count(const struct val_phases *p);
const char *val_phases_label(const struct val_phases *p, uint32_t i);
uint32_t val_phases_caches(const struct val_phases *p, uint32_t i);
struct val_phase_fig val_phases_total(const struct val_phases *p, uint32_t i);
struct val_phase_fig val_phases_cache(const struct val_phases *p, uint32_t i, uint32_t id);

/* ---- validate ---- */

struct val_opts {
	const char *dir;
	struct run_model model; /* after val_capture_model */
	const char *db;		/* NULL = no database */
	bool progress;
	sim_progress_fn on_progress; /* draws the bar (sim_opts.on_progress) */
	/* without slabinfo-start.txt, take the first snapshot as the start
	 * state (the pre-trace remainder found there is added to the model) */
	bool anchor;
	uint64_t seed; /* sim_opts.seed: the start state's random picks (recorded) */
	/* compare the model at each SNAP marker, not when its /proc/slabinfo
	 * was read (validate.c, snap_read) */
	bool at_marker;
	FILE *notes; /* "capture: ..." notes during the run, or NULL */
	/* validate --exclude: caches left out of every figure (layout counts,
	 * end-state totals, snapshot totals and pages_mae_over_swing), for
	 * caches the trace is known to miss; names as the capture's slabinfo
	 * shows them (val_exclude_check), borrowed for the run and the report */
	const char *const *exclude;
	uint32_t nexclude;
};

/* What --exclude NAME means in capture c: VAL_EXCL_CACHE, a cache of its
 * slabinfo files or a root cache of slab-attrs.tsv; VAL_EXCL_ALIAS, an
 * alias link of slab-attrs.tsv (merged into *root, whose pages hold it);
 * VAL_EXCL_UNKNOWN, none of these (the command line warns, not an error:
 * a list kept for several captures may name caches one of them lacks). */
enum val_excl { VAL_EXCL_CACHE, VAL_EXCL_ALIAS, VAL_EXCL_UNKNOWN };
enum val_excl val_exclude_check(const struct capture *c, const char *name, const char **root);

/* ---- validate's result (printed by the command line, validate_report.h) ----
 *
 * A plain struct, not an opaque type with accessors: the report reads some
 * fifty figures over four kinds of rows (layout, end state, snapshots and
 * their caches), and an accessor for each would only copy a field out.
 * Contract: val_run fills it and hands it over const; the caller only
 * reads it and frees it with val_report_free. Every pointer inside (rows,
 * names, ids) stays valid until then, except those into the capture (c,
 * names of its rows), which stay valid while the capture is open. Nothing
 * in it refers to the replayed model: names the model alone had are
 * copies. */

#define VAL_LAYOUT_NR 9 /* the layout figures compared (validate.c, L_NR) */

/* One cache of the layout comparison. */
struct val_layout_row {
	const char *name;
	uint32_t pred[VAL_LAYOUT_NR];
	int64_t real[VAL_LAYOUT_NR]; /* -1: not shown by the kernel, not compared */
	uint32_t bad;		     /* bit per figure that differs */
	bool failed;		     /* the model's layout refused the spec */
	char why[128];		     /* why, when failed */
};

/* End-state row of one cache: slabinfo.txt's figures and the model's. */
struct val_end_row {
	const char *name;
	bool in_real, in_model;
	uint64_t real_active, real_objs, real_slabs, real_pages;
	struct sim_cache_state m; /* m.name is name */
};

/* One snapshot compared (a SNAP marker with its file). */
struct val_snap {
	char *id;
	uint64_t t_ns;
	uint64_t real_pages, pred_pages;
	uint64_t pred_unanchored; /* the prediction of the model without an anchor */
	bool anchor;		  /* the snapshot the pre-trace remainder was taken from */
	uint64_t read_t_ns;	  /* when its /proc/slabinfo was opened (snap_read), 0 = not
				     found: the model is compared at the marker */
	uint64_t pred_at_marker;  /* the model's pages at the marker itself */
	uint32_t ncaches;
	struct val_snap_cache {
		const char *name; /* borrowed from si */
		uint64_t real_pages, pred_pages;
	} * caches;
	struct capture_slabinfo si; /* the snapshot file, kept for the names */
};

/* The read window (snap_read) over the snapshots: how many were compared
 * at their read, and how far the model moved from there to the marker. */
struct val_read_window {
	uint32_t found;
	uint64_t max_pages;
	const char *max_id; /* NULL when found is 0 */
	double mean_pages;
};

/* What validate compared, for the report and the database. */
struct val_report {
	const struct capture *c; /* the capture compared */
	struct val_layout_row *lay;
	uint32_t nlay;
	const char *const *lfield; /* names of the layout figures */
	const char *layout_from;   /* what the layout was compared with, NULL: not compared */
	const char *layout_none;   /* why not */
	uint64_t end_read_t_ns;	   /* the end state is the model at slabinfo.txt's read
				      after the END marker, at this time; 0 = at the
				      trace's end (no END marker) */
	struct val_end_row *rows;  /* sorted by the larger of real and predicted pages */
	uint32_t nrows;
	struct vrec_summary sum;
	uint64_t real_slabs, pred_slabs;
	/* of sum.untraced_frees, the frees of a pointer freed again with no
	 * allocation between (sim_cache_state.untraced_refreed) */
	uint64_t untraced_refreed;
	uint32_t files_unmatched, scored;
	double mae, mae0, swing, ratio0; /* snapshot errors (ratio0 < 0: undefined) */
	uint64_t named[SIM_NAMED_NR];	 /* unnamed allocations by naming rule */
	struct run_model model;		 /* the run's: the trace may decide the profile */
	char kernel[200];		 /* the release, or where the profile came from */
	const char *kernel_from;	 /* without uname.txt: what decided the profile */
	char layout_why[400];		 /* layout_none when made up here */
	uint64_t lost_total;		 /* events the ring buffer lost (sim_lost_events) */
	char lost_why[160];		 /* and where that figure comes from */
	char start_est[512];		 /* start columns estimated, "" none (docs/models.md) */
	/* the snapshots: SLOB (meminfo) compares Slab: of snapshots/ID.meminfo,
	 * on top of base_pages held since the start */
	bool meminfo;
	int64_t base_pages;
	bool anchor;			    /* the first snapshot was taken as the start state */
	uint64_t anchor_pages, anchor_objs; /* what was added there */
	const struct val_snap *snaps;
	uint32_t nsnaps;
	uint32_t snap_markers_missing; /* SNAP markers with no snapshot file */
	struct val_read_window window;
	/* the caches --exclude left out of the figures (val_opts.exclude) */
	const char *const *excluded;
	uint32_t nexcluded;
};

/* The whole validation of opts->dir, recorded in opts->db. Returns 0 or an
 * SLABSIM_E* code with e set. OUT: *out, the comparison, when it was made:
 * also when recording it failed afterwards (print it, then the error);
 * NULL otherwise. Free it with val_report_free. */
int val_run(const struct val_opts *o, struct capture *c, const struct val_report **out,
	    struct err *e);
void val_report_free(const struct val_report *r);

#endif
