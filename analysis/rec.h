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
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "sink.h"

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
	/* The input's identity (schema version 4, docs/schema.md): a label that
	 * names it in queries and figures (NULL = trace_path), the XXH3-128
	 * hash of its bytes as 32 hex digits (schema version 4 wrote FNV-1a 64
	 * as 16; NULL = unknown), and
	 * what was detected from it: kernel profile (NULL = nothing detected)
	 * and CPUs (0 = nothing detected). */
	const char *trace_label;
	const char *trace_hash;
	const char *trace_kernel;
	uint32_t trace_nr_cpus;
};

struct rec;

/* Schema version stored in PRAGMA user_version (docs/schema.md). */
#define REC_SCHEMA_VERSION 6

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
int rec_count(struct rec *r, const struct sink_count *c, struct err *e);
int rec_cache(struct rec *r, const struct sink_cache *c, struct err *e);
int rec_site(struct rec *r, const struct sink_site *s, struct err *e);
int rec_violation(struct rec *r, const struct sink_violation *v, struct err *e);
/* One align_cost row (schema version 5). */
int rec_align_cost(struct rec *r, const struct sink_align_cost *c, struct err *e);
int rec_sample(struct rec *r, const struct sink_sample *s, struct err *e);
int rec_sample_cache(struct rec *r, const struct sink_sample_cache *s, struct err *e);

/* End the run: with commit, send the buffered sample rows, write the totals,
 * set status 'done' and COMMIT;
 * otherwise ROLLBACK (nothing of the run remains; t may be NULL). The run is
 * over whatever the result: a failed commit is rolled back. Errors:
 * SLABSIM_EUSAGE without an open run, SLABSIM_EIO. */
int rec_run_end(struct rec *r, const struct sink_totals *t, bool commit, struct err *e);

/* ---- schema version 2: the figures of docs/metrics.md ---- */

int rec_run_metrics(struct rec *r, const struct sink_run_metrics *m, struct err *e);
int rec_perf_caller(struct rec *r, const struct sink_perf *p, struct err *e);
int rec_perf_ptr(struct rec *r, const struct sink_perf *p, struct err *e);
int rec_sample_metrics(struct rec *r, const struct sink_sample_metrics *m, struct err *e);
int rec_sample_order(struct rec *r, const struct sink_sample_order *o, struct err *e);
int rec_sample_slabinfo(struct rec *r, const struct sink_sample_slabinfo *c, struct err *e);

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
/* Set the open run's trace_hash (32 hex digits of XXH3-128, run.h), known
 * only once the replay read the trace to its end (no name pass read it
 * whole). Errors: SLABSIM_EUSAGE (no run open), SLABSIM_EIO. */
int rec_run_set_trace_hash(struct rec *r, const char *hash, struct err *e);
/* Record one repetition in its own transaction (no run may be open).
 * OUT: *rep_id (may be NULL). Errors: SLABSIM_EUSAGE, SLABSIM_EIO. */
int rec_repetition(struct rec *r, const struct rec_repeat_info *info, int64_t *rep_id,
		   struct err *e);
/* The connection and the open run's id, for modules that keep their own
 * tables of a run (analysis/vrec.h); NULL when no run is open. */
struct sqlite3;
struct sqlite3 *rec_run_db(struct rec *r, int64_t *run_id);

/* The recorder as the engine's sink (sim/sink.h): every row goes to the
 * writer of the same name above, into the open run. r is borrowed. */
struct sink rec_as_sink(struct rec *r);

/* Close; rolls back an open run. r may be NULL. */
void rec_close(struct rec *r);

/* The runs.config_hash key: FNV-1a 64 over config_json (NULL is ""), then,
 * if trace_path is not NULL, a 0 byte and trace_path; 16 lowercase hex
 * digits. OUT: hex, NUL-terminated. */
#define REC_CONFIG_HASH_LEN 16
void rec_config_hash(const char *config_json, const char *trace_path,
		     char hex[REC_CONFIG_HASH_LEN + 1]);

/* FNV-1a 64 over the n bytes of data, continuing from h (start with
 * REC_HASH_INIT): what runs.trace_hash held before it became XXH3-128 of
 * the trace (trace.h, trace_stats.input_hash). */
#define REC_HASH_INIT 0xcbf29ce484222325u
uint64_t rec_hash_bytes(uint64_t h, const void *data, size_t n);

#endif
