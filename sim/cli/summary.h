/* summary.h - the replay's printed outputs, written by the command line over
 * the engine's read-only accessors (sim.h, metrics.h): the summary (table or
 * JSON), the perf kmem and slabinfo views, the end state as /proc/slabinfo
 * and as sysfs, and the name pass's dump. The engine itself prints nothing. */
#ifndef SLABSIM_SUMMARY_H
#define SLABSIM_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "metrics.h"
#include "sim.h"

/* What the summary says of the run's start when a capture is involved, so
 * that a reader comparing `replay DIR` with `replay DIR/trace.txt.zst`
 * knows why their pages differ: the directory starts from the recorded
 * kernel's caches (and its recorded state, if any), the trace file alone
 * from nothing, its caches created as the trace names them. */
struct summary_start {
	const char *state; /* "capture" (recorded state), "capture-caches", "empty" */
	uint64_t caches;   /* caches that exist before the first event */
	uint64_t slabs;	   /* slabs they hold */
	const char *text;  /* the sentence the table prints after "start: " */
	/* the table's line alone: a trace file inside a capture directory,
	 * whose JSON must equal that of the same trace on stdin */
	bool table_only;
};

/* Print the summary: "table" or "json". trace_stats (a struct trace_stats)
 * may be NULL. */
void summary_print(const struct sim *s, FILE *out, bool json, const char *trace_path,
		   const void *trace_stats);

/* The same, with more members of the JSON object written by more(ctx, out)
 * after the last one (each starting with ",\n"); more is not called for the
 * table. tv, more and start may be NULL. */
typedef void (*summary_json_more_fn)(void *ctx, FILE *out);
struct summary_opts {
	const struct sim_table_view *tv;
	summary_json_more_fn more;
	void *ctx;
	const struct summary_start *start;
};
void summary_print_more(const struct sim *s, FILE *out, bool json, const char *trace_path,
			const void *trace_stats, const struct summary_opts *o);

/* Write the end state as /proc/slabinfo version 2.1. 0 or SLABSIM_EIO. */
int summary_write_slabinfo(const struct sim *s, FILE *out);

/* What a name pass left, for tests: the call sites and cache names by id,
 * then every learned key (site, bytes_req, bytes_alloc -> name id, name) in
 * key order. Errors: SLABSIM_ENOMEM. */
int summary_learned_dump(const struct sim *s, FILE *out);

/* ---- the metrics views (docs/metrics.md) ---- */

/* Print as `perf kmem stat --caller/--alloc` does: the tables asked for
 * (sorted by keys, nkeys 0 = perf's default frag,hit,bytes; lines < 0 = all),
 * then perf's SUMMARY, then the model's bytes_alloc total. Returns 0 or
 * SLABSIM_ENOMEM. */
int view_perf(const struct metrics *m, FILE *out, bool caller, bool alloc,
	      const enum metrics_sort_key *keys, int nkeys, int lines, uint64_t bytes_alloc_model);
/* The --caller and --alloc tables as JSON members of the summary
 * (",\n  \"caller\": {\"rows\": N, \"shown\": M, \"table\": [...]}", likewise
 * "alloc"), sorted and cut as the text tables. */
int view_perf_json(const struct metrics *m, FILE *out, bool caller, bool alloc,
		   const enum metrics_sort_key *keys, int nkeys, int lines);
/* As `slabinfo -T` prints its first block, with exact byte counts. */
void view_slabinfo_totals(const struct policy *p, FILE *out);
/* The cache list as `slabinfo` prints it (caches with slabs; by name, or
 * with by_loss as `slabinfo -L`: by Loss, descending, Loss in the Space
 * column), exact bytes instead of K/M/G. 0, SLABSIM_ENOMEM or SLABSIM_EIO. */
int view_slabinfo_caches(const struct policy *p, FILE *out, bool by_loss);
/* The sysfs attributes slabinfo reads, one root cache per line (TSV with a
 * header), for checking slabinfo's arithmetic on a simulated state. */
int view_write_sysfs(const struct policy *p, FILE *out);
/* The summary's headline lines (table format). */
void view_metrics_table(const struct metrics *m, const struct policy *p, FILE *out,
			const struct metrics_extra *x);
/* The summary's "metrics" member (JSON), ending with ",\n". */
void view_metrics_json(const struct metrics *m, const struct policy *p, FILE *out,
		       const struct metrics_extra *x);

/* replay --phase-summary: every phase (start..first marker, marker..marker,
 * last marker..end), the change of slab pages, waste bytes and live objects
 * in total and for the 10 caches that changed most (by pages). p holds the
 * "end" snapshot (val_phases_end). 0 or SLABSIM_ENOMEM. */
struct val_phases;
int phases_print(const struct val_phases *p, const struct sim *s, FILE *out, struct err *e);

#endif
