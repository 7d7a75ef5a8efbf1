/* rec.h - the SQLite results store.
 *
 * The recorder owns the sqlite3 handle, the schema (docs/schema.md) and the
 * prepared statements. Every run is written inside one transaction opened by
 * rec_run_begin() and closed by rec_run_end(): an interrupted run leaves no
 * half-run behind, and runs committed earlier are never touched. All sizes are
 * bytes, all times virtual nanoseconds. A struct rec must be used by one
 * thread at a time.
 */
#ifndef SLABSIM_REC_H
#define SLABSIM_REC_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

/* The configuration and input of one run (the `runs` row). Strings are
 * borrowed for the duration of the call. */
struct rec_run_info {
	const char *command;	/* "replay", "synth", ... */
	const char *trace_path; /* input as given, or NULL */
	const char *allocator;	/* policy name */
	const char *kernel;	/* "5.4" or "6.1" */
	const char *align;	/* "natural", "none", ... */
	const char *slub_debug; /* letters or "-" */
	uint32_t nr_cpus;
	uint32_t slub_min_order, slub_max_order, slub_min_objects;
	const char *sample_every; /* as given, e.g. "1000ev" or "10ms" */
	const char *config_json;  /* the full configuration, for humans and hashing */
	const char *version;	  /* slabsim version string */
};

/* Final totals of a run (an UPDATE of the `runs` row by rec_run_end). */
struct rec_run_totals {
	uint64_t events; /* slab events replayed */
	uint64_t t_first_ns, t_last_ns;
	uint64_t final_slab_pages, peak_slab_pages, peak_slab_pages_t_ns;
	uint64_t final_large_pages;
	uint64_t final_live_objs, final_live_req_bytes;
	uint64_t align_violations;
	double wall_seconds;
};

/* A count by name: events by type, anomalies by kind, lines by kind. */
struct rec_count {
	const char *table; /* "event" | "anomaly" | "line" */
	const char *kind;
	uint64_t count;
	uint64_t first_line; /* input line of the first occurrence, 0 if none */
};

/* Per-cache final and peak figures (the `caches` table). */
struct rec_cache_row {
	const char *cache;    /* name */
	const char *alias_of; /* root cache name, or NULL */
	bool kmalloc;
	uint32_t object_size, slab_size, align, order, objs_per_slab;
	uint64_t allocs, frees;
	uint64_t live_objs, live_req_bytes;
	uint64_t slabs, pages; /* at the end */
	uint64_t peak_pages, peak_pages_t_ns;
	uint64_t peak_live_objs;
	uint64_t waste_rounding;   /* Σ(object_size - req) over live objects */
	uint64_t waste_layout;	   /* live * (slab_size - object_size) */
	uint64_t waste_free_slots; /* free slots * slab_size */
	uint64_t waste_tail;	   /* slabs * (slab bytes - objs_per_slab * slab_size) */
	uint64_t align_violations;
};

/* Per-call-site figures (the `sites` table). */
struct rec_site_row {
	const char *call_site;
	uint64_t allocs, frees;
	uint64_t bytes_req, bytes_alloc, bytes_alloc_trace; /* sums over allocations */
	uint64_t live_objs, live_req_bytes;
	uint64_t align_violations;
	uint64_t pingpong; /* frees on another CPU than the allocation */
};

/* Alignment violations by (cache, call site, size) (the `violations` table). */
struct rec_violation_row {
	const char *cache;
	const char *call_site;
	uint64_t size; /* the power-of-two request size */
	uint64_t count;
	uint64_t example_addr;
};

/* One point of the time series (the `samples` table). */
struct rec_sample_row {
	uint64_t seq;
	uint64_t t_ns;
	uint64_t event_idx; /* slab events replayed before this sample */
	const char *label;  /* phase marker text, or NULL */
	uint64_t slab_pages, large_pages;
	uint64_t live_objs, live_req_bytes;
	uint64_t waste_rounding, waste_layout, waste_free_slots, waste_tail;
};

/* Per-cache point of the time series (the `sample_caches` table; zeros when
 * the cache holds no slabs and no live objects). */
struct rec_sample_cache_row {
	uint64_t seq;
	const char *cache;
	uint64_t slabs, pages, live_objs, live_req_bytes;
};

struct rec;

/* Schema version stored in PRAGMA user_version (docs/schema.md). */
#define REC_SCHEMA_VERSION 3

/* Open (creating if needed) the database at path and create/upgrade the
 * schema. OUT: *out, owned by the caller, released with rec_close(); NULL on
 * error. Errors: SLABSIM_EIO with the path and the SQLite message, including
 * a file that is not a SQLite database, a SQLite database that is not a
 * slabsim one, a newer schema, and a read-only file. */
int rec_open(const char *path, struct rec **out, struct err *e);

/* BEGIN a run: inserts the `runs` row (status 'running'). OUT: *run_id (may
 * be NULL); the id is only kept if the run commits, a rolled-back id is
 * reused. Errors: SLABSIM_EUSAGE if a run is already open, SLABSIM_EIO. */
int rec_run_begin(struct rec *r, const struct rec_run_info *info, int64_t *run_id, struct err *e);

/* Row writers: one INSERT into the open run. Strings are borrowed for the
 * call. uint64_t values are stored as SQLite's signed 64-bit integers; values
 * of 2^63 or more are not expected except addresses, which keep their bit
 * pattern (docs/schema.md). Errors: SLABSIM_EUSAGE without an open run,
 * SLABSIM_EIO (e.g. a duplicate key); after an error that made SQLite roll the
 * transaction back, every later call fails until rec_run_end().
 * The per-sample writers (rec_sample, rec_sample_cache, rec_sample_metrics,
 * rec_sample_order, rec_sample_slabinfo) buffer their rows and send them in
 * batches, inserted on a writer thread while the run is open: a bad row of
 * theirs (duplicate key, NULL name) fails a later call of a per-sample writer
 * or rec_run_end(), which then rolls the run back (the rows after it are
 * dropped: such a run cannot commit).
 * rec_sample_cache, rec_sample_slabinfo and rec_sample_order keep change logs
 * (docs/schema.md, schema version 3): pass every key at every sample, a root
 * cache that holds nothing as a row of zeros; a row equal to its key's
 * previous one in the run (for a cache's first row: all zeros) is not
 * written. A key's rows must come in increasing seq: SLABSIM_EUSAGE (the row
 * is dropped, the run stays open) otherwise. */
int rec_count(struct rec *r, const struct rec_count *c, struct err *e);
int rec_cache(struct rec *r, const struct rec_cache_row *c, struct err *e);
int rec_site(struct rec *r, const struct rec_site_row *s, struct err *e);
int rec_violation(struct rec *r, const struct rec_violation_row *v, struct err *e);
int rec_sample(struct rec *r, const struct rec_sample_row *s, struct err *e);
int rec_sample_cache(struct rec *r, const struct rec_sample_cache_row *s, struct err *e);

/* End the run: with commit, send the buffered sample rows, write the totals,
 * set status 'done' and COMMIT;
 * otherwise ROLLBACK (nothing of the run remains; t may be NULL). The run is
 * over whatever the result: a failed commit is rolled back. Errors:
 * SLABSIM_EUSAGE without an open run, SLABSIM_EIO. */
int rec_run_end(struct rec *r, const struct rec_run_totals *t, bool commit, struct err *e);

/* ---- schema version 2: the figures of docs/metrics.md ---- */

/* One row per run (the `run_metrics` table). */
struct rec_run_metrics_row {
	uint64_t perf_allocs, perf_frees;
	uint64_t perf_bytes_req, perf_bytes_alloc, perf_bytes_alloc_model, perf_bytes_freed;
	double perf_frag_pct;
	uint64_t perf_cross_node, perf_pingpong;
	uint64_t si_caches, si_active, si_space, si_used, si_loss, si_objects, si_partobj;
	uint64_t si_slabs, si_partial, si_mratio, si_oratio;
	uint64_t jw_heap_peak, jw_heap_peak_t_ns, jw_live_peak, jw_live_peak_t_ns;
	double jw[4]; /* J&W #1..#4 as ratios; negative = undefined (stored NULL) */
	uint64_t mem_mib;
	bool have_pages; /* free_pages defined (the model has a page allocator) */
	uint64_t free_pages;
};

/* A perf kmem stat row: per call site (`perf_callers`) or per pointer
 * (`perf_ptrs`, where call_site is the last allocating call site). */
struct rec_perf_row {
	uint64_t ptr;
	const char *call_site;
	uint64_t hit, bytes_req, bytes_alloc, pingpong;
};

/* Per sample (the `sample_metrics` table). */
struct rec_sample_metrics_row {
	uint64_t seq, heap_bytes;
	uint64_t si_space, si_used, si_objects, si_partobj, si_slabs, si_partial;
	bool have_pages;
	uint64_t free_pages;
};

/* Per sample and page order (the `sample_orders` table). */
struct rec_sample_order_row {
	uint64_t seq, order, held_blocks, free_blocks, unusable_permille;
};

/* Per sample and cache, slabinfo figures (the `sample_slabinfo` table; zeros
 * when the cache holds no slabs). */
struct rec_sample_slabinfo_row {
	uint64_t seq;
	const char *cache;
	uint64_t slabs, partial, objects, objects_partial, space, used;
};

int rec_run_metrics(struct rec *r, const struct rec_run_metrics_row *m, struct err *e);
int rec_perf_caller(struct rec *r, const struct rec_perf_row *p, struct err *e);
int rec_perf_ptr(struct rec *r, const struct rec_perf_row *p, struct err *e);
int rec_sample_metrics(struct rec *r, const struct rec_sample_metrics_row *m, struct err *e);
int rec_sample_order(struct rec *r, const struct rec_sample_order_row *o, struct err *e);
int rec_sample_slabinfo(struct rec *r, const struct rec_sample_slabinfo_row *c, struct err *e);

/* A summary of N runs of one workload with seeds seed_first.. (`replay
 * --workload --repeat N`): the tables repetitions, repetition_runs and
 * repetition_stats (docs/schema.md), created on first use. */
struct rec_repeat_row {
	const char *figure; /* "final_slab_pages", ... */
	double mean, sd, ci95_lo, ci95_hi;
};
struct rec_repeat_info {
	const char *spec_path, *spec_hash, *config_json;
	uint64_t seed_first;
	uint32_t n;		/* runs */
	const int64_t *run_ids; /* n committed run ids, seed_first + i */
	const struct rec_repeat_row *rows;
	uint32_t nrows;
};
/* Record one repetition in its own transaction (no run may be open).
 * OUT: *rep_id (may be NULL). Errors: SLABSIM_EUSAGE, SLABSIM_EIO. */
int rec_repetition(struct rec *r, const struct rec_repeat_info *info, int64_t *rep_id,
		   struct err *e);
/* The connection and the open run's id, for modules that keep their own
 * tables of a run (analysis/vrec.h); NULL when no run is open. */
struct sqlite3;
struct sqlite3 *rec_run_db(struct rec *r, int64_t *run_id);

/* Close; rolls back an open run. r may be NULL. */
void rec_close(struct rec *r);

/* The runs.config_hash key: FNV-1a 64 over config_json (NULL is ""), then,
 * if trace_path is not NULL, a 0 byte and trace_path; 16 lowercase hex
 * digits. OUT: hex, NUL-terminated. */
#define REC_CONFIG_HASH_LEN 16
void rec_config_hash(const char *config_json, const char *trace_path,
		     char hex[REC_CONFIG_HASH_LEN + 1]);

#endif
