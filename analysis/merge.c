/* merge.c - copy finished runs between results files (see merge.h). */
#include "merge.h"
#include "rec.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct merge {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *has;
};

static int db_err(struct merge *m, struct err *e, const char *what)
{
	return err_set(e, SLABSIM_EIO, "%s: %s: %s", m->path, what, sqlite3_errmsg(m->db));
}

int merge_open(const char *out_path, struct merge **out, struct err *e)
{
	struct rec *r;
	int rc;
	*out = NULL;
	/* rec_open creates or checks (and upgrades) the schema */
	if ((rc = rec_open(out_path, &r, e)))
		return rc;
	rec_close(r);
	struct merge *m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(out_path))) {
		free(m);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	if (sqlite3_open_v2(out_path, &m->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		rc = db_err(m, e, "open");
		merge_close(m);
		return rc;
	}
	(void)sqlite3_busy_timeout(m->db, 5000);
	if (sqlite3_exec(m->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(m->db,
			       "SELECT 1 FROM main.runs WHERE config_hash = ?1 AND status = 'done' "
			       "LIMIT 1",
			       -1, &m->has, NULL) != SQLITE_OK) {
		rc = db_err(m, e, "prepare");
		merge_close(m);
		return rc;
	}
	*out = m;
	return 0;
}

void merge_close(struct merge *m)
{
	if (!m)
		return;
	sqlite3_finalize(m->has);
	sqlite3_close(m->db);
	free(m->path);
	free(m);
}

int merge_has_config(struct merge *m, const char *config_hash, struct err *e)
{
	sqlite3_reset(m->has);
	sqlite3_bind_text(m->has, 1, config_hash, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(m->has);
	sqlite3_reset(m->has);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return db_err(m, e, "query");
}

static int64_t pragma_int(sqlite3 *db, const char *sql, bool *ok)
{
	sqlite3_stmt *st;
	int64_t v = 0;
	*ok = false;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		v = sqlite3_column_int64(st, 0);
		*ok = true;
	}
	sqlite3_finalize(st);
	return v;
}

/* A growing string. */
struct sbuf {
	char *s;
	size_t n, cap;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *s)
{
	size_t l = strlen(s);
	if (b->oom)
		return;
	if (b->n + l + 1 > b->cap) {
		size_t ncap = (b->n + l + 1) * 2;
		char *n = realloc(b->s, ncap);
		if (!n) {
			b->oom = true;
			return;
		}
		b->s = n;
		b->cap = ncap;
	}
	memcpy(b->s + b->n, s, l + 1);
	b->n += l;
}

static void sb_ident(struct sbuf *b, const char *id)
{
	sb_add(b, "\"");
	for (const char *p = id; *p; p++) {
		char c[3] = {*p, *p == '"' ? '"' : '\0', '\0'};
		sb_add(b, c);
	}
	sb_add(b, "\"");
}

/* A table's copy statement: INSERT INTO main.T (cols) SELECT cols FROM src.T
 * WHERE run_id = ?2, with ?1 in place of run_id (runs: without run_id). */
struct tcopy {
	sqlite3_stmt *st;
	bool is_runs;
};

static int build_copy(sqlite3 *db, const char *table, struct tcopy *tc, bool *skip)
{
	sqlite3_stmt *q;
	struct sbuf cols = {0}, sel = {0}, sql = {0};
	bool has_run_id = false;
	int n = 0, rc = SQLITE_OK;

	*skip = true;
	tc->st = NULL;
	tc->is_runs = !strcmp(table, "runs");
	/* columns of main.T that src.T has too, in main's order */
	rc = sqlite3_prepare_v2(db,
				"SELECT m.name FROM pragma_table_info(?1, 'main') m "
				"JOIN pragma_table_info(?1, 'src') s ON s.name = m.name "
				"ORDER BY m.cid",
				-1, &q, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(q, 0);
		if (!strcmp(c, "run_id")) {
			has_run_id = true;
			if (tc->is_runs)
				continue;
		}
		if (n++) {
			sb_add(&cols, ", ");
			sb_add(&sel, ", ");
		}
		sb_ident(&cols, c);
		if (!strcmp(c, "run_id"))
			sb_add(&sel, "?1");
		else
			sb_ident(&sel, c);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		goto out;
	rc = SQLITE_OK;
	if (!has_run_id || !n)
		goto out; /* not a per-run table, or absent from src */
	sb_add(&sql, "INSERT INTO main.");
	sb_ident(&sql, table);
	sb_add(&sql, " (");
	sb_add(&sql, cols.s);
	sb_add(&sql, ") SELECT ");
	sb_add(&sql, sel.s);
	sb_add(&sql, " FROM src.");
	sb_ident(&sql, table);
	sb_add(&sql, " WHERE run_id = ?2");
	if (cols.oom || sel.oom || sql.oom) {
		rc = SQLITE_NOMEM;
		goto out;
	}
	rc = sqlite3_prepare_v2(db, sql.s, -1, &tc->st, NULL);
	if (rc == SQLITE_OK)
		*skip = false;
out:
	free(cols.s);
	free(sel.s);
	free(sql.s);
	return rc;
}

/* One input file being merged: its per-table copy statements, its
 * finished runs (id and configuration hash), what the merge counts. */
struct merge_in {
	const char *path;
	struct tcopy *tc;
	size_t ntc;
	int64_t *ids;
	char (*hashes)[REC_CONFIG_HASH_LEN + 1];
	size_t nids, cap;
	struct merge_stats add;
	bool v3_in; /* a version 3 input: labels filled as the upgrade does */
};

/* Attaches the input as src and checks that it is a slabsim file of a
 * schema version the output can take. *attached says whether to detach. */
static int merge_attach(struct merge *m, struct merge_in *in, bool *attached, struct err *e)
{
	sqlite3 *db = m->db;
	sqlite3_stmt *att = NULL;
	bool ok;
	int rc = 0;
	if (sqlite3_prepare_v2(db, "ATTACH ?1 AS src", -1, &att, NULL) != SQLITE_OK)
		return db_err(m, e, "attach");
	sqlite3_bind_text(att, 1, in->path, -1, SQLITE_STATIC);
	if (sqlite3_step(att) != SQLITE_DONE)
		rc = err_set(e, SLABSIM_EIO, "%s: cannot open: %s", in->path, sqlite3_errmsg(db));
	sqlite3_finalize(att);
	if (rc)
		return rc;
	*attached = true;
	int64_t app_in = pragma_int(db, "PRAGMA src.application_id", &ok);
	if (!ok)
		return err_set(e, SLABSIM_EIO, "%s: not a SQLite database (%s)", in->path,
			       sqlite3_errmsg(db));
	int64_t app_out = pragma_int(db, "PRAGMA main.application_id", &ok);
	int64_t ver_in = pragma_int(db, "PRAGMA src.user_version", &ok);
	int64_t ver_out = pragma_int(db, "PRAGMA main.user_version", &ok);
	if (app_in != app_out)
		return err_set(e, SLABSIM_EIO, "%s: not a slabsim results database", in->path);
	/* version 3 differs from 4 only by the trace identity columns of runs,
	 * which the copy fills as the upgrade does (below); 4 from 5 only by
	 * the align_cost table and 5 from 6 only by the sheaves' tables, which
	 * an older input lacks (no rows to copy) */
	in->v3_in = ver_in == 3 && ver_out >= 4;
	bool v4_in = ver_in >= 4 && ver_in < ver_out;
	if (ver_in != ver_out && !in->v3_in && !v4_in)
		return err_set(e, SLABSIM_EIO,
			       "%s: schema version %lld, but %s has %lld (upgrade the older file "
			       "first: merge into it, or replay into it)",
			       in->path, (long long)ver_in, m->path, (long long)ver_out);
	return 0;
}

/* The copy statements of the per-run tables, runs first (children
 * reference it). */
static int merge_copiers(struct merge *m, struct merge_in *in, struct err *e)
{
	sqlite3 *db = m->db;
	sqlite3_stmt *q = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT name FROM main.sqlite_master WHERE type = 'table' "
			       "AND name NOT LIKE 'sqlite_%' ORDER BY name <> 'runs', name",
			       -1, &q, NULL) != SQLITE_OK)
		return db_err(m, e, "tables");
	while (!rc && sqlite3_step(q) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(q, 0);
		struct tcopy *n = realloc(in->tc, (in->ntc + 1) * sizeof(*n));
		bool skip;
		if (!n) {
			rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		in->tc = n;
		if (build_copy(db, t, &in->tc[in->ntc], &skip) != SQLITE_OK)
			rc = err_set(e, SLABSIM_EIO, "%s: table %s: %s", in->path, t,
				     sqlite3_errmsg(db));
		else if (!skip)
			in->ntc++;
	}
	sqlite3_finalize(q);
	if (!rc && (!in->ntc || !in->tc[0].is_runs))
		rc = err_set(e, SLABSIM_EIO, "%s: no runs table", in->path);
	return rc;
}

/* The input's finished runs into in->ids and in->hashes; unfinished ones
 * are counted. */
static int merge_src_runs(struct merge *m, struct merge_in *in, struct err *e)
{
	sqlite3_stmt *q = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(m->db,
			       "SELECT run_id, status = 'done', config_hash FROM src.runs "
			       "ORDER BY run_id",
			       -1, &q, NULL) != SQLITE_OK)
		return db_err(m, e, "runs");
	while (!rc && sqlite3_step(q) == SQLITE_ROW) {
		if (!sqlite3_column_int(q, 1)) {
			in->add.unfinished++;
			continue;
		}
		if (in->nids == in->cap) {
			in->cap = in->cap ? in->cap * 2 : 64;
			int64_t *ni = realloc(in->ids, in->cap * sizeof(*ni));
			if (ni)
				in->ids = ni;
			void *nh = realloc(in->hashes, in->cap * sizeof(*in->hashes));
			if (nh)
				in->hashes = nh;
			if (!ni || !nh) {
				rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
				break;
			}
		}
		const char *h = (const char *)sqlite3_column_text(q, 2);
		in->ids[in->nids] = sqlite3_column_int64(q, 0);
		(void)snprintf(in->hashes[in->nids], sizeof(in->hashes[0]), "%s", h ? h : "");
		in->nids++;
	}
	sqlite3_finalize(q);
	return rc;
}

/* Copies every run the output does not have yet, table by table. */
static int merge_copy_runs(struct merge *m, struct merge_in *in, struct err *e)
{
	for (size_t i = 0; i < in->nids; i++) {
		int has = merge_has_config(m, in->hashes[i], e);
		if (has < 0)
			return has;
		if (has && in->hashes[i][0]) {
			in->add.duplicates++;
			continue;
		}
		int64_t new_id = 0;
		for (size_t t = 0; t < in->ntc; t++) {
			sqlite3_stmt *s = in->tc[t].st;
			sqlite3_reset(s);
			if (!in->tc[t].is_runs)
				sqlite3_bind_int64(s, 1, new_id);
			sqlite3_bind_int64(s, 2, in->ids[i]);
			if (sqlite3_step(s) != SQLITE_DONE)
				return err_set(e, SLABSIM_EIO, "%s: copying run %lld: %s", in->path,
					       (long long)in->ids[i], sqlite3_errmsg(m->db));
			if (in->tc[t].is_runs)
				new_id = sqlite3_last_insert_rowid(m->db);
		}
		in->add.copied++;
	}
	return 0;
}

int merge_file(struct merge *m, const char *in_path, struct merge_stats *st, struct err *e)
{
	sqlite3 *db = m->db;
	struct merge_in in = {.path = in_path};
	bool in_tx = false, attached = false;
	int rc;

	if (access(in_path, R_OK) != 0)
		return err_set(e, SLABSIM_EIO, "%s: cannot read the file", in_path);
	if ((rc = merge_attach(m, &in, &attached, e)))
		goto out;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		rc = db_err(m, e, "begin");
		goto out;
	}
	in_tx = true;
	if ((rc = merge_copiers(m, &in, e)) || (rc = merge_src_runs(m, &in, e)) ||
	    (rc = merge_copy_runs(m, &in, e)))
		goto out;
	if (in.v3_in && sqlite3_exec(db,
				     "UPDATE main.runs SET trace_label = trace_path"
				     " WHERE trace_label IS NULL",
				     NULL, NULL, NULL) != SQLITE_OK) {
		rc = db_err(m, e, "label");
		goto out;
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		rc = db_err(m, e, "commit");
		goto out;
	}
	in_tx = false;
	if (st) {
		st->copied += in.add.copied;
		st->duplicates += in.add.duplicates;
		st->unfinished += in.add.unfinished;
	}
out:
	for (size_t t = 0; t < in.ntc; t++)
		sqlite3_finalize(in.tc[t].st);
	free(in.tc);
	free(in.ids);
	free(in.hashes);
	if (in_tx)
		(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	if (attached)
		(void)sqlite3_exec(db, "DETACH src", NULL, NULL, NULL);
	return rc;
}
