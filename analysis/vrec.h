/* vrec.h - the validation tables of the results store (docs/schema.md,
 * "Validation"): what `slabsim validate` found, written into the open run of
 * a struct rec, so that it commits or rolls back with the run. The tables
 * are created on first use (CREATE TABLE IF NOT EXISTS): older files gain
 * them, nothing else changes. */
#ifndef SLABSIM_VREC_H
#define SLABSIM_VREC_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

struct rec;

/* The `validations` row: one per validate run. */
struct vrec_summary {
	const char *capture_dir;
	const char *kernel_release; /* from uname.txt, or NULL */
	bool start_state;	    /* slabinfo-start.txt was used */
	uint32_t layout_compared, layout_mismatched;
	uint32_t caches_compared; /* end state: caches in slabinfo.txt */
	uint64_t real_pages, predicted_pages;
	double weighted_page_error; /* Σ|pred - real| pages / Σ real pages */
	uint64_t real_objs, predicted_objs;
	uint64_t real_active, predicted_active;
	uint32_t snapshots;
	double pages_mae_over_swing; /* < 0: undefined (too few snapshots, no swing) */
	/* without slabinfo-start.txt: the snapshot taken as the start state
	 * (NULL if none), and the figure without it (< 0: undefined) */
	const char *anchor_id;
	double pages_mae_over_swing_unanchored;
	uint64_t untraced_frees, unattributed_frees;
};

/* One cache of the layout comparison (`validation_layout`). */
struct vrec_layout_row {
	const char *cache;
	uint32_t pred[5], real[5]; /* object_size, slab_size, align, order, objs_per_slab */
	bool mismatch;
};

/* One cache of the end state (`validation_caches`). */
struct vrec_cache_row {
	const char *cache;
	bool in_real, in_model;
	uint64_t real_active, real_objs, real_slabs, real_pages;
	uint64_t pred_active, pred_objs, pred_slabs, pred_pages;
	uint64_t live_objs, untraced_frees, pre_freed;
};

/* One snapshot (`validation_snapshots`). */
struct vrec_snapshot_row {
	uint32_t seq;
	const char *id;
	uint64_t t_ns;
	uint64_t real_pages, predicted_pages;
	bool anchor;
	uint64_t predicted_unanchored;
};

int vrec_summary(struct rec *r, const struct vrec_summary *v, struct err *e);
int vrec_layout(struct rec *r, const struct vrec_layout_row *row, struct err *e);
int vrec_cache(struct rec *r, const struct vrec_cache_row *row, struct err *e);
int vrec_snapshot(struct rec *r, const struct vrec_snapshot_row *row, struct err *e);

#endif
