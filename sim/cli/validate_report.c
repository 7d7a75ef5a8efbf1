/* validate_report.c - `slabsim validate`'s report, table or JSON, over the
 * run layer's read-only result (validate.h, struct val_report). */
#include "validate_report.h"
#include "json.h"
#include "policy.h"

#include <inttypes.h>
#include <string.h>

/* The end-state section of the table for a capture with slabinfo.txt. */
static void print_end_table(FILE *out, const struct val_report *res)
{
	const struct capture *c = res->c;
	const struct vrec_summary *sum = &res->sum;
	const struct val_end_row *rows = res->rows;
	uint32_t nrows = res->nrows;
	fprintf(out, "\nend state (%s): %u caches in slabinfo.txt\n",
		c->has_start ? "the model started from slabinfo-start.txt"
		: res->anchor && res->nsnaps
			? "no slabinfo-start.txt: the model starts empty and takes "
			  "the first snapshot as its start state"
			: "no slabinfo-start.txt: the model starts empty, objects "
			  "allocated before the trace are the pre-trace remainder",
		sum->caches_compared);
	if (res->end_read_t_ns)
		fprintf(out,
			"  the model as it was when slabinfo.txt was read after the END marker "
			"(%.6f s); the trace after it only shows page frees to come\n",
			(double)res->end_read_t_ns / 1e9);
	fprintf(out,
		"  total pages: real %" PRIu64 ", predicted %" PRIu64
		" (memory-weighted error %.1f%%)\n"
		"  total objects: real %" PRIu64 ", predicted %" PRIu64
		"; active objects: real %" PRIu64 ", predicted %" PRIu64 "\n",
		sum->real_pages, sum->predicted_pages, 100 * sum->weighted_page_error,
		sum->real_objs, sum->predicted_objs, sum->real_active, sum->predicted_active);
	if (!c->has_start && res->anchor && res->nsnaps)
		fprintf(out,
			"  pre-trace remainder: %" PRIu64 " pages (%" PRIu64
			" objects) added at snapshot %s\n",
			res->anchor_pages, res->anchor_objs, res->snaps[0].id);
	else if (!c->has_start)
		fprintf(out, "  pre-trace remainder: %" PRId64 " pages (real - predicted)\n",
			(int64_t)(sum->real_pages - sum->predicted_pages));
	fprintf(out,
		"  untraced allocations (frees of objects never allocated in the trace "
		"nor in the start state): %" PRIu64 " (%" PRIu64
		" pointers freed again with no allocation between); frees naming no cache: %" PRIu64
		"\n",
		sum->untraced_frees, res->untraced_refreed, sum->unattributed_frees);
	fprintf(out, "  %-24s %9s %9s %9s %9s %7s %7s %7s %9s\n", "cache", "act.real", "act.pred",
		"objs.real", "objs.pred", "pg.real", "pg.pred", "pg.err", "untraced");
	uint32_t shown = nrows < 30 ? nrows : 30;
	for (uint32_t i = 0; i < shown; i++) {
		const struct val_end_row *er = &rows[i];
		fprintf(out,
			"  %-24s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %7" PRIu64
			" %7" PRIu64 " %+7" PRId64 " %9" PRIu64 "%s\n",
			er->name, er->real_active, er->m.active_objs, er->real_objs,
			er->m.total_objects, er->real_pages, er->m.pages,
			(int64_t)(er->m.pages - er->real_pages), er->m.untraced_frees,
			er->in_real ? "" : "  (model only)");
	}
	if (nrows > shown)
		fprintf(out, "  ... %u more caches (see --format json)\n", nrows - shown);
}

/* The JSON end_state object of a capture with slabinfo.txt (no line end). */
static void print_end_json(FILE *out, const struct val_report *res)
{
	const struct capture *c = res->c;
	const struct vrec_summary *sum = &res->sum;
	const struct val_end_row *rows = res->rows;
	uint32_t nrows = res->nrows;
	uint64_t real_slabs = res->real_slabs, pred_slabs = res->pred_slabs;
	fprintf(out,
		"  \"end_state\": {\"has_slabinfo\": %s, \"start_state\": %s, "
		"\"end_read_t_ns\": %" PRIu64 ", \"caches_compared\": %u, "
		"\"real\": {\"active_objs\": %" PRIu64 ", \"total_objs\": %" PRIu64
		", \"slabs\": %" PRIu64 ", \"pages\": %" PRIu64
		"}, \"predicted\": {\"active_objs\": %" PRIu64 ", \"total_objs\": %" PRIu64
		", \"slabs\": %" PRIu64 ", \"pages\": %" PRIu64
		"}, \"weighted_page_error\": %.6f, \"untraced_allocations\": %" PRIu64
		", \"untraced_refreed\": %" PRIu64 ", \"unattributed_frees\": %" PRIu64,
		c->has_end ? "true" : "false", c->has_start ? "true" : "false", res->end_read_t_ns,
		sum->caches_compared, sum->real_active, sum->real_objs, real_slabs, sum->real_pages,
		sum->predicted_active, sum->predicted_objs, pred_slabs, sum->predicted_pages,
		sum->weighted_page_error, sum->untraced_frees, res->untraced_refreed,
		sum->unattributed_frees);
	/* the objects made before tracing began: what the anchor added, or
	 * without one what the model lacks at the end */
	if (!c->has_start)
		fprintf(out, ", \"pre_trace_remainder_pages\": %" PRId64,
			res->anchor && res->nsnaps
				? (int64_t)res->anchor_pages
				: (int64_t)(sum->real_pages - sum->predicted_pages));
	fprintf(out, ",\n    \"caches\": [");
	for (uint32_t i = 0; i < nrows; i++) {
		const struct val_end_row *er = &rows[i];
		fprintf(out, "%s\n      {\"name\": ", i ? "," : "");
		json_str(out, er->name);
		fprintf(out,
			", \"in_real\": %s, \"in_model\": %s, \"real\": {\"active_objs\": "
			"%" PRIu64 ", \"total_objs\": %" PRIu64 ", \"slabs\": %" PRIu64
			", \"pages\": %" PRIu64 "}, \"predicted\": {\"active_objs\": %" PRIu64
			", \"total_objs\": %" PRIu64 ", \"slabs\": %" PRIu64 ", \"pages\": %" PRIu64
			", \"live_objs\": %" PRIu64 "}, \"untraced_allocations\": %" PRIu64
			", \"untraced_refreed\": %" PRIu64 ", \"start_objs_freed\": %" PRIu64 "}",
			er->in_real ? "true" : "false", er->in_model ? "true" : "false",
			er->real_active, er->real_objs, er->real_slabs, er->real_pages,
			er->m.active_objs, er->m.total_objects, er->m.slabs, er->m.pages,
			er->m.live_objs, er->m.untraced_frees, er->m.untraced_refreed,
			er->m.pre_freed);
	}
	fprintf(out, "\n    ]}");
}
static const char *const named_keys[SIM_NAMED_NR] = {
	[SIM_NAMED_OTHER] = "other",	   [SIM_NAMED_LEARNED] = "learned",
	[SIM_NAMED_GEOMETRY] = "geometry", [SIM_NAMED_ACCOUNTED] = "accounted",
	[SIM_NAMED_SLABS] = "idle",	   [SIM_NAMED_ADDRESS] = "address",
	[SIM_NAMED_UNNAMED] = "unnamed",
};

/* How the allocations that named no cache (6.1 kmem_cache_alloc) were
 * named, one line of the table. */
static void print_names_table(FILE *out, const struct val_report *res)
{
	const uint64_t *n = res->named;
	fprintf(out,
		"\nnames of kmem_cache_alloc events: %" PRIu64 " learned from frees, %" PRIu64
		" by a geometry one cache has; by elimination: %" PRIu64 " by accounted=, %" PRIu64
		" by idle caches, %" PRIu64 " by address; %" PRIu64 " left unnamed\n",
		n[SIM_NAMED_LEARNED], n[SIM_NAMED_GEOMETRY], n[SIM_NAMED_ACCOUNTED],
		n[SIM_NAMED_SLABS], n[SIM_NAMED_ADDRESS], n[SIM_NAMED_UNNAMED]);
}
static void print_read_window_table(FILE *out, const struct val_report *res)
{
	const struct val_read_window w = res->window;
	if (!w.found) {
		fprintf(out, "read window: no /proc/slabinfo read found in the trace: compared at "
			     "the markers\n");
		return;
	}
	fprintf(out,
		"read window: %u of %u snapshots compared when /proc/slabinfo was read; from "
		"there to the marker the model moved %.1f pages on average, at most %" PRIu64
		" (%s)\n",
		w.found, res->nsnaps, w.mean_pages, w.max_pages, w.max_id);
}

static void print_read_window_json(FILE *out, const struct val_report *res)
{
	const struct val_read_window w = res->window;
	fprintf(out, "  \"read_window\": {\"snapshots_at_read\": %u, \"mean_pages\": %.3f, ",
		w.found, w.mean_pages);
	fprintf(out, "\"max_pages\": %" PRIu64 ", \"max_at\": ", w.max_pages);
	if (w.max_id)
		json_str(out, w.max_id);
	else
		fprintf(out, "null");
	fprintf(out, ", \"predicted_pages_at_marker\": [");
	for (uint32_t i = 0; i < res->nsnaps; i++)
		fprintf(out, "%s%" PRIu64, i ? ", " : "", res->snaps[i].pred_at_marker);
	fprintf(out, "]},\n");
}

static void print_names_json(FILE *out, const struct val_report *res)
{
	fprintf(out, "  \"names\": {");
	for (int i = SIM_NAMED_LEARNED; i < SIM_NAMED_NR; i++)
		fprintf(out, "%s\"%s\": %" PRIu64, i > SIM_NAMED_LEARNED ? ", " : "", named_keys[i],
			res->named[i]);
	fprintf(out, "},\n");
}
/* The comparison as JSON on out. */
static void print_json(FILE *out, const struct val_report *res)
{
	const struct capture *c = res->c;
	fprintf(out, "{\n  \"capture\": ");
	json_str(out, c->dir);
	fprintf(out, ",\n  \"kernel_release\": ");
	json_str(out, c->has_uname ? c->release : "");
	if (c->has_lost)
		fprintf(out, ",\n  \"lost_events\": %" PRIu64, c->lost_events);
	else
		fprintf(out, ",\n  \"lost_events\": null");
	char dbg[8];
	const struct run_model *m = &res->model;
	fprintf(out,
		",\n  \"config\": {\"kernel\": \"%s\", \"nr_cpus\": %u, \"slub_debug\": "
		"\"%s\", \"slub_min_order\": %u, \"slub_max_order\": %u, "
		"\"slub_min_objects\": %u, \"nomerge\": %s",
		run_kernel_name(m), m->cfg.nr_cpus, policy_slub_debug_str(m->cfg.slub_debug, dbg),
		m->cfg.slub_min_order, m->cfg.slub_max_order, m->cfg.slub_min_objects,
		m->cfg.nomerge ? "true" : "false");
	/* the 6.6+ switches only when on, so other captures' keys stay */
	if (m->cfg.slub_tiny)
		fprintf(out, ", \"slub_tiny\": true");
	if (m->cfg.random_kmalloc)
		fprintf(out,
			", \"random_kmalloc\": %u, \"random_kmalloc_seed\": \"0x%016" PRIx64 "\"",
			m->cfg.random_kmalloc, m->cfg.random_seed);
	fprintf(out, "},\n");
	/* present only where the capture left the kernel or the start columns
	 * to be worked out (docs/capture-format.md) */
	if (!c->has_uname) {
		fprintf(out, "  \"kernel_from\": ");
		json_str(out, res->kernel_from);
		fprintf(out, ",\n");
	}
	fprintf(out, "  \"excluded\": [");
	for (uint32_t i = 0; i < res->nexcluded; i++) {
		fprintf(out, "%s", i ? ", " : "");
		json_str(out, res->excluded[i]);
	}
	fprintf(out, "],\n");
	if (res->start_est[0]) {
		fprintf(out, "  \"start_estimated\": ");
		json_str(out, res->start_est);
		fprintf(out, ",\n");
	}
	fprintf(out,
		"  \"layout\": {\"caches_compared\": %u, \"caches_mismatched\": %u, "
		"\"mismatches\": [",
		res->sum.layout_compared, res->sum.layout_mismatched);
	bool first = true;
	for (uint32_t i = 0; i < res->nlay; i++) {
		const struct val_layout_row *l = &res->lay[i];
		if (!l->bad && !l->failed)
			continue;
		fprintf(out, "%s\n    {\"cache\": ", first ? "" : ",");
		first = false;
		json_str(out, l->name);
		if (l->failed) {
			fprintf(out, ", \"error\": ");
			json_str(out, l->why);
		}
		for (int f = 0; !l->failed && f < VAL_LAYOUT_NR; f++)
			if (l->bad & (1u << f))
				fprintf(out, ", \"%s\": {\"predicted\": %u, \"real\": %" PRId64 "}",
					res->lfield[f], l->pred[f], l->real[f]);
		fputc('}', out);
	}
	fprintf(out, "%s]},\n", first ? "" : "\n  ");
	/* without slabinfo.txt nothing was compared: null, not a 0 error */
	if (res->meminfo && c->has_meminfo_end)
		fprintf(out,
			"  \"end_state\": {\"meminfo\": true, \"start_state\": %s, "
			"\"start_pages\": %" PRId64 ", \"real\": {\"pages\": %" PRIu64
			"}, \"predicted\": {\"pages\": %" PRIu64
			"}, \"weighted_page_error\": %.6f, \"untraced_allocations\": %" PRIu64
			", \"unattributed_frees\": %" PRIu64 "}",
			c->has_meminfo_start ? "true" : "false", res->base_pages,
			res->sum.real_pages, res->sum.predicted_pages, res->sum.weighted_page_error,
			res->sum.untraced_frees, res->sum.unattributed_frees);
	else if (!c->has_end)
		fprintf(out, "  \"end_state\": null");
	else
		print_end_json(out, res);
	fprintf(out, ",\n  \"snapshots\": [");
	for (uint32_t i = 0; i < res->nsnaps; i++) {
		const struct val_snap *r = &res->snaps[i];
		fprintf(out, "%s\n    {\"id\": ", i ? "," : "");
		json_str(out, r->id);
		fprintf(out,
			", \"t_ns\": %" PRIu64 ", \"real_pages\": %" PRIu64
			", \"predicted_pages\": %" PRIu64 ", \"anchor\": %s"
			", \"predicted_pages_unanchored\": %" PRIu64 ", \"caches\": [",
			r->t_ns, r->real_pages, r->pred_pages, r->anchor ? "true" : "false",
			r->pred_unanchored);
		bool f1 = true;
		for (uint32_t j = 0; j < r->ncaches; j++) {
			const struct val_snap_cache *sc = &r->caches[j];
			if (!sc->real_pages && !sc->pred_pages)
				continue;
			fprintf(out, "%s{\"name\": ", f1 ? "" : ", ");
			f1 = false;
			json_str(out, sc->name);
			fprintf(out,
				", \"real_pages\": %" PRIu64 ", \"predicted_pages\": %" PRIu64 "}",
				sc->real_pages, sc->pred_pages);
		}
		fprintf(out, "]}");
	}
	fprintf(out,
		"%s],\n  \"snap_markers_without_file\": %u,\n"
		"  \"snapshot_files_without_marker\": %u,\n",
		res->nsnaps ? "\n  " : "", res->snap_markers_missing, res->files_unmatched);
	print_names_json(out, res);
	print_read_window_json(out, res);
	fprintf(out, "  \"anchor\": ");
	if (res->anchor && res->nsnaps)
		fprintf(out,
			"{\"id\": \"%s\", \"pages_added\": %" PRIu64 ", \"objects_added\": %" PRIu64
			"},\n",
			res->snaps[0].id, res->anchor_pages, res->anchor_objs);
	else
		fprintf(out, "null,\n");
	if (res->ratio0 >= 0)
		fprintf(out, "  \"pages_mae_over_swing_unanchored\": %.6f,\n", res->ratio0);
	else
		fprintf(out, "  \"pages_mae_over_swing_unanchored\": null,\n");
	if (res->sum.pages_mae_over_swing >= 0)
		fprintf(out, "  \"pages_mae_over_swing\": %.6f\n}\n",
			res->sum.pages_mae_over_swing);
	else
		fprintf(out, "  \"pages_mae_over_swing\": null\n}\n");
}

static bool is_excluded(const struct val_report *res, const char *name)
{
	for (uint32_t i = 0; i < res->nexcluded; i++)
		if (strcmp(res->excluded[i], name) == 0)
			return true;
	return false;
}

/* The comparison as a table on out. */
static void print_table(FILE *out, const struct val_report *res)
{
	const struct capture *c = res->c;
	fprintf(out, "slabsim validate of %s\n", c->dir);
	if (res->lost_total)
		fprintf(out,
			"warning: the ring buffer lost %" PRIu64
			" events (%s): the trace is incomplete\n",
			res->lost_total, res->lost_why);
	char dbg[8];
	const struct run_model *m = &res->model;
	fprintf(out, "kernel %s, nr_cpus %u, slub_debug %s\n", res->kernel, m->cfg.nr_cpus,
		policy_slub_debug_str(m->cfg.slub_debug, dbg));
	if (res->start_est[0])
		fprintf(out, "start state: slab-attrs-start.tsv lacks columns, estimated: %s\n",
			res->start_est);
	if (res->nexcluded) {
		fprintf(out, "excluded (--exclude): ");
		for (uint32_t i = 0; i < res->nexcluded; i++)
			fprintf(out, "%s%s", i ? ", " : "", res->excluded[i]);
		fprintf(out, "; not in the layout counts, totals nor pages_mae_over_swing\n");
	}
	fprintf(out, "\n");
	if (res->layout_from && !c->has_attrs)
		fprintf(out, "layout (%s): %u caches compared, %u mismatched\n", res->layout_from,
			res->sum.layout_compared, res->sum.layout_mismatched);
	else if (res->layout_from)
		fprintf(out, "layout: %u caches compared, %u mismatched\n",
			res->sum.layout_compared, res->sum.layout_mismatched);
	else
		fprintf(out, "layout: not compared: %s\n", res->layout_none);
	for (uint32_t i = 0; i < res->nlay; i++) {
		const struct val_layout_row *l = &res->lay[i];
		const char *ex = is_excluded(res, l->name) ? " (excluded)" : "";
		if (l->failed)
			fprintf(out, "  %s: cannot lay out: %s%s\n", l->name, l->why, ex);
		for (int f = 0; !l->failed && f < VAL_LAYOUT_NR; f++)
			if (l->bad & (1u << f))
				fprintf(out, "  %s %s: predicted %u, real %" PRId64 "%s\n", l->name,
					res->lfield[f], l->pred[f], l->real[f], ex);
	}
	if (res->meminfo && c->has_meminfo_end)
		fprintf(out,
			"\nend state (Slab: of meminfo.txt; the kernel shows no cache): real "
			"%" PRIu64 " pages, predicted %" PRIu64
			" (error %.1f%%)\n  of them %" PRId64
			" pages held since the start (%s), the rest the model's\n"
			"  untraced allocations (frees of objects never allocated in the trace): "
			"%" PRIu64 "; frees naming no cache: %" PRIu64 "\n",
			res->sum.real_pages, res->sum.predicted_pages,
			100 * res->sum.weighted_page_error, res->base_pages,
			c->has_meminfo_start ? "meminfo-start.txt"
			: res->anchor	     ? "the first snapshot"
					     : "none: no meminfo-start.txt",
			res->sum.untraced_frees, res->sum.unattributed_frees);
	else if (res->meminfo)
		fprintf(out, "\nend state: not compared: no meminfo.txt in the capture\n");
	else if (!c->has_end)
		fprintf(out,
			"\nend state: not compared: no slabinfo.txt in the capture (the "
			"model "
			"ends with %" PRIu64 " slab pages)\n",
			res->sum.predicted_pages);
	else
		print_end_table(out, res);
	print_names_table(out, res);
	fprintf(out, "\nsnapshots: %u compared", res->nsnaps);
	if (res->snap_markers_missing)
		fprintf(out, " (%u SNAP markers without a snapshot file)",
			res->snap_markers_missing);
	if (res->files_unmatched)
		fprintf(out, " (%u snapshot files without a SNAP marker)", res->files_unmatched);
	fputc('\n', out);
	if (res->anchor && res->nsnaps)
		fprintf(out,
			"  no slabinfo-start.txt: snapshot %s is the start state; the "
			"kernel "
			"held %" PRIu64 " pages (%" PRIu64
			" objects) beyond the model there,\n  added to the model at that "
			"marker (it is not scored; --no-anchor to turn off)\n",
			res->snaps[0].id, res->anchor_pages, res->anchor_objs);
	fprintf(out, "  %-14s %12s %8s %9s %8s%s\n", "id", "t", "real", "predicted", "error",
		res->anchor ? "  unanchored" : "");
	for (uint32_t i = 0; i < res->nsnaps; i++) {
		const struct val_snap *r = &res->snaps[i];
		fprintf(out, "  %-14s %10.6f s %8" PRIu64 " %9" PRIu64 " %+8" PRId64, r->id,
			(double)r->t_ns / 1e9, r->real_pages, r->pred_pages,
			(int64_t)(r->pred_pages - r->real_pages));
		if (res->anchor)
			fprintf(out, "  %10" PRIu64 "%s", r->pred_unanchored,
				r->anchor ? "  (anchor)" : "");
		fputc('\n', out);
	}
	if (res->nsnaps)
		print_read_window_table(out, res);
	if (res->sum.pages_mae_over_swing >= 0)
		fprintf(out,
			"pages_mae_over_swing %.4f (MAE %.1f pages over %u snapshots, real "
			"swing %.0f)\n",
			res->sum.pages_mae_over_swing, res->mae, res->scored, res->swing);
	else
		fprintf(out, "pages_mae_over_swing undefined (%s)\n",
			res->scored < 1 || res->nsnaps < 2 ? "too few snapshots" : "no real swing");
	if (res->anchor && res->ratio0 >= 0)
		fprintf(out, "pages_mae_over_swing without the anchor %.4f (MAE %.1f pages)\n",
			res->ratio0, res->mae0);
}

void val_report_print(FILE *out, const struct val_report *r, bool json)
{
	if (json)
		print_json(out, r);
	else
		print_table(out, r);
}
