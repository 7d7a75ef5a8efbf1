/* vrec.c - validation tables behind vrec.h. Statements are prepared per
 * row: a validation writes a few hundred rows at most. */
#include "vrec.h"
#include "rec.h"

#include <sqlite3.h>
#include <stdio.h>

static const char vrec_schema_sql[] =
	"CREATE TABLE IF NOT EXISTS validations ("
	" run_id INTEGER PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,"
	" capture_dir TEXT NOT NULL,"
	" kernel_release TEXT,"
	" start_state INTEGER NOT NULL,"
	" layout_compared INTEGER NOT NULL,"
	" layout_mismatched INTEGER NOT NULL,"
	" caches_compared INTEGER NOT NULL,"
	" real_pages INTEGER NOT NULL,"
	" predicted_pages INTEGER NOT NULL,"
	" weighted_page_error REAL,"
	" real_objs INTEGER NOT NULL,"
	" predicted_objs INTEGER NOT NULL,"
	" real_active INTEGER NOT NULL,"
	" predicted_active INTEGER NOT NULL,"
	" snapshots INTEGER NOT NULL,"
	" pages_mae_over_swing REAL,"
	" untraced_frees INTEGER NOT NULL,"
	" unattributed_frees INTEGER NOT NULL,"
	" anchor_id TEXT,"
	" pages_mae_over_swing_unanchored REAL"
	");"
	"CREATE TABLE IF NOT EXISTS validation_layout ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" cache TEXT NOT NULL,"
	" mismatch INTEGER NOT NULL,"
	" pred_object_size INTEGER, real_object_size INTEGER,"
	" pred_slab_size INTEGER, real_slab_size INTEGER,"
	" pred_align INTEGER, real_align INTEGER,"
	" pred_order INTEGER, real_order INTEGER,"
	" pred_objs_per_slab INTEGER, real_objs_per_slab INTEGER,"
	" PRIMARY KEY (run_id, cache)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS validation_caches ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" cache TEXT NOT NULL,"
	" in_real INTEGER NOT NULL,"
	" in_model INTEGER NOT NULL,"
	" real_active INTEGER NOT NULL, real_objs INTEGER NOT NULL,"
	" real_slabs INTEGER NOT NULL, real_pages INTEGER NOT NULL,"
	" pred_active INTEGER NOT NULL, pred_objs INTEGER NOT NULL,"
	" pred_slabs INTEGER NOT NULL, pred_pages INTEGER NOT NULL,"
	" live_objs INTEGER NOT NULL,"
	" untraced_frees INTEGER NOT NULL,"
	" pre_freed INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, cache)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS validation_snapshots ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL,"
	" id TEXT NOT NULL,"
	" t_ns INTEGER NOT NULL,"
	" real_pages INTEGER NOT NULL,"
	" predicted_pages INTEGER NOT NULL,"
	" anchor INTEGER NOT NULL,"
	" predicted_unanchored INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, seq)"
	") WITHOUT ROWID;";

/* Prepare sql on the open run's connection; binds ?1 to the run id. */
static int prep(struct rec *r, const char *sql, sqlite3_stmt **st, struct err *e)
{
	int64_t run_id;
	sqlite3 *db = rec_run_db(r, &run_id);
	if (!db)
		return err_set(e, SLABSIM_EUSAGE, "validation rows need an open run");
	int rc = sqlite3_exec(db, vrec_schema_sql, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);
	if (rc != SQLITE_OK)
		return err_set(e, SLABSIM_EIO, "cannot write the validation tables: %s",
			       sqlite3_errmsg(db));
	sqlite3_bind_int64(*st, 1, run_id);
	return 0;
}

static int step(sqlite3_stmt *st, struct err *e)
{
	int rc = sqlite3_step(st);
	int ret = rc == SQLITE_DONE ? 0
				    : err_set(e, SLABSIM_EIO, "cannot write a validation row: %s",
					      sqlite3_errmsg(sqlite3_db_handle(st)));
	sqlite3_finalize(st);
	return ret;
}

static void bind_u(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int vrec_summary(struct rec *r, const struct vrec_summary *v, struct err *e)
{
	sqlite3_stmt *st;
	int rc = prep(r,
		      "INSERT INTO validations (run_id, capture_dir, kernel_release, start_state,"
		      " layout_compared, layout_mismatched, caches_compared, real_pages,"
		      " predicted_pages, weighted_page_error, real_objs, predicted_objs,"
		      " real_active, predicted_active, snapshots, pages_mae_over_swing,"
		      " untraced_frees, unattributed_frees, anchor_id,"
		      " pages_mae_over_swing_unanchored) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
		      " ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
		      &st, e);
	if (rc)
		return rc;
	bind_text(st, 2, v->capture_dir);
	bind_text(st, 3, v->kernel_release);
	bind_u(st, 4, v->start_state);
	bind_u(st, 5, v->layout_compared);
	bind_u(st, 6, v->layout_mismatched);
	bind_u(st, 7, v->caches_compared);
	bind_u(st, 8, v->real_pages);
	bind_u(st, 9, v->predicted_pages);
	if (v->real_pages)
		sqlite3_bind_double(st, 10, v->weighted_page_error);
	else
		sqlite3_bind_null(st, 10);
	bind_u(st, 11, v->real_objs);
	bind_u(st, 12, v->predicted_objs);
	bind_u(st, 13, v->real_active);
	bind_u(st, 14, v->predicted_active);
	bind_u(st, 15, v->snapshots);
	if (v->pages_mae_over_swing >= 0)
		sqlite3_bind_double(st, 16, v->pages_mae_over_swing);
	else
		sqlite3_bind_null(st, 16);
	bind_u(st, 17, v->untraced_frees);
	bind_u(st, 18, v->unattributed_frees);
	bind_text(st, 19, v->anchor_id);
	if (v->pages_mae_over_swing_unanchored >= 0)
		sqlite3_bind_double(st, 20, v->pages_mae_over_swing_unanchored);
	else
		sqlite3_bind_null(st, 20);
	return step(st, e);
}

int vrec_layout(struct rec *r, const struct vrec_layout_row *row, struct err *e)
{
	sqlite3_stmt *st;
	int rc = prep(r,
		      "INSERT INTO validation_layout (run_id, cache, mismatch, pred_object_size,"
		      " real_object_size, pred_slab_size, real_slab_size, pred_align, real_align,"
		      " pred_order, real_order, pred_objs_per_slab, real_objs_per_slab)"
		      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
		      &st, e);
	if (rc)
		return rc;
	bind_text(st, 2, row->cache);
	bind_u(st, 3, row->mismatch);
	for (int i = 0; i < 5; i++) {
		bind_u(st, 4 + 2 * i, row->pred[i]);
		bind_u(st, 5 + 2 * i, row->real[i]);
	}
	return step(st, e);
}

int vrec_cache(struct rec *r, const struct vrec_cache_row *row, struct err *e)
{
	sqlite3_stmt *st;
	int rc = prep(r,
		      "INSERT INTO validation_caches (run_id, cache, in_real, in_model,"
		      " real_active, real_objs, real_slabs, real_pages, pred_active, pred_objs,"
		      " pred_slabs, pred_pages, live_objs, untraced_frees, pre_freed) VALUES"
		      " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
		      &st, e);
	if (rc)
		return rc;
	bind_text(st, 2, row->cache);
	bind_u(st, 3, row->in_real);
	bind_u(st, 4, row->in_model);
	bind_u(st, 5, row->real_active);
	bind_u(st, 6, row->real_objs);
	bind_u(st, 7, row->real_slabs);
	bind_u(st, 8, row->real_pages);
	bind_u(st, 9, row->pred_active);
	bind_u(st, 10, row->pred_objs);
	bind_u(st, 11, row->pred_slabs);
	bind_u(st, 12, row->pred_pages);
	bind_u(st, 13, row->live_objs);
	bind_u(st, 14, row->untraced_frees);
	bind_u(st, 15, row->pre_freed);
	return step(st, e);
}

int vrec_snapshot(struct rec *r, const struct vrec_snapshot_row *row, struct err *e)
{
	sqlite3_stmt *st;
	int rc = prep(r,
		      "INSERT INTO validation_snapshots (run_id, seq, id, t_ns, real_pages,"
		      " predicted_pages, anchor, predicted_unanchored)"
		      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
		      &st, e);
	if (rc)
		return rc;
	bind_u(st, 2, row->seq);
	bind_text(st, 3, row->id);
	bind_u(st, 4, row->t_ns);
	bind_u(st, 5, row->real_pages);
	bind_u(st, 6, row->predicted_pages);
	bind_u(st, 7, row->anchor);
	bind_u(st, 8, row->predicted_unanchored);
	return step(st, e);
}
