/* merge.h - copy finished runs from one results file into another.
 *
 * Used by `slabsim merge` and by the sweep's parent process, which is the
 * only writer of a sweep's database: each worker records its run in a
 * scratch file, and the parent merges that file in one transaction. Runs are
 * deduplicated by runs.config_hash: a run whose configuration is already
 * done in the output is not copied again. Tables are copied generically
 * (every table with a run_id column, the columns both files have), so new
 * metric tables and columns merge without changes here.
 */
#ifndef SLABSIM_MERGE_H
#define SLABSIM_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

struct merge;

struct merge_stats {
	uint64_t copied;     /* runs copied */
	uint64_t duplicates; /* done runs skipped: their config_hash was already done */
	uint64_t unfinished; /* runs not 'done' in the input, skipped */
};

/* Open (creating if needed, through rec_open) the output database. OUT: *out.
 * Errors: SLABSIM_EIO. */
int merge_open(const char *out_path, struct merge **out, struct err *e);
void merge_close(struct merge *m);

/* Whether the output holds a finished run with this config_hash. Returns 1,
 * 0, or SLABSIM_EIO. */
int merge_has_config(struct merge *m, const char *config_hash, struct err *e);

/* Copy the finished runs of in_path (a slabsim results file of the same
 * schema version) in one transaction: all or nothing. st may be NULL; its
 * counts are added to. Errors: SLABSIM_EIO (unreadable, not a slabsim file,
 * another schema version, SQLite errors). */
int merge_file(struct merge *m, const char *in_path, struct merge_stats *st, struct err *e);

#endif
