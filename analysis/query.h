/* query.h - named queries on a results database and their output formats
 * (table for people, csv and json for scripts). The SQL of every named query
 * is printed in docs/schema.md. */
#ifndef SLABSIM_QUERY_H
#define SLABSIM_QUERY_H

#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>

#include "err.h"

struct sqlite3;

struct query_def {
	const char *name;
	const char *desc;
	const char *sql;
};

/* "WITH latest AS (...)": the newest finished run of every configuration
 * (runs.* plus a debug label column), for queries built elsewhere; append
 * ", more AS (...)" or a SELECT. */
extern const char query_latest_cte[];

/* "shared AS (...)": to follow query_latest_cte and ", ". Runs whose slab
 * pages no cache holds (SLOB) with their run totals: run_id, live_req_bytes,
 * waste_rounding, waste_layout, waste_free_slots, waste_tail, pages. */
extern const char query_shared_cte[];

/* The named queries, ending with a {NULL} row. */
extern const struct query_def query_table[];
const struct query_def *query_find(const char *name);
/* s as HTML: < > & escaped, and " too when attr (for a double-quoted
 * attribute value). Shared by the html format and the report. */
void query_html_text(FILE *f, const char *s, bool attr);

enum query_format {
	QUERY_TABLE = 0,
	QUERY_CSV,
	QUERY_JSON,
	QUERY_HTML, /* a <table> (the report) */
	QUERY_TEXT, /* each row's non-NULL cells joined by a space, no header: for
		       queries whose rows are a file's lines (sites-file) */
};

/* Register slabsim_mean(x), slabsim_sd(x) and slabsim_ci95(x) on db:
 * aggregates computed with GSL (sample sd with n - 1; ci95 is the half-width
 * of the 95% t confidence interval of the mean). query_open does it.
 * Returns an SQLite result code. */
int query_register_stats(struct sqlite3 *db);
/* t(0.975, n - 1) * sd / sqrt(n) (gsl_cdf_tdist_Pinv); 0 below n = 2. */
double query_ci95_half(double sd, size_t n);

/* Open a slabsim results file read-only. The full per-sample series are
 * sample_caches_full, sample_slabinfo_full and sample_orders_full on the
 * connection whatever the schema version (docs/schema.md). Errors:
 * SLABSIM_EIO (missing, not SQLite, not slabsim's). */
int query_open(const char *path, struct sqlite3 **db, struct err *e);

/* Whether the file (main schema, not the TEMP views query_open adds) has
 * the table name: a file of an older schema version lacks the tables that
 * came later (align_cost: version 5), which read as empty. */
bool query_has_table(struct sqlite3 *db, const char *name);
/* PRAGMA user_version of the file; -1 if it cannot be read. */
long long query_schema_version(struct sqlite3 *db);

/* Run sql and print every row in fmt. OUT: *nrows (may be NULL). Errors:
 * SLABSIM_EIO. */
int query_print(struct sqlite3 *db, const char *sql, enum query_format fmt, FILE *out,
		unsigned long *nrows, struct err *e);
/* The same, leaving out column skip (0-based; -1: none): the report shows
 * the trace once, not in every row. */
int query_print_cols(struct sqlite3 *db, const char *sql, enum query_format fmt, int skip,
		     FILE *out, unsigned long *nrows, struct err *e);

#endif
