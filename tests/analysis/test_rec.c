/* test_rec.c - the SQLite recorder, checked by reading its files back.
 *
 * Every case writes through rec.h and reads the result with the plain
 * sqlite3 API, so a value lost or mangled on the way in shows up as a wrong
 * number, not as a recorder that agrees with itself. Cases use one fresh
 * directory from mkdtemp(), removed at the end.
 *
 * `test_rec --bench [rows]` instead times sample rows written in one run
 * (meson benchmark).
 */
#include "rec.h"
#include "check.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#define PATH_MAX_LEN 512
#define ADDR_HIGH    0xffff888012345660u /* a kernel direct-map address, >= 2^63 */

struct tmp {
	char dir[PATH_MAX_LEN];
};

static const char *tmp_path(const struct tmp *t, const char *name, char *buf, size_t n)
{
	(void)snprintf(buf, n, "%s/%s", t->dir, name);
	return buf;
}

static int tmp_create(struct tmp *t)
{
	const char *base = getenv("TMPDIR");

	(void)snprintf(t->dir, sizeof(t->dir), "%s/slabsim-rec-XXXXXX", base ? base : "/tmp");
	return mkdtemp(t->dir) ? 0 : -1;
}

static void tmp_destroy(const struct tmp *t)
{
	char path[PATH_MAX_LEN * 2];
	struct dirent *d;
	DIR *dir = opendir(t->dir);

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		(void)snprintf(path, sizeof(path), "%s/%s", t->dir, d->d_name);
		(void)unlink(path);
	}
	(void)closedir(dir);
	(void)rmdir(t->dir);
}

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* A rollback journal counts as hot once its header magic is non-zero. */
static int journal_is_hot(const char *path)
{
	unsigned char magic[8] = {0};
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(magic, 1, sizeof(magic), f);
	(void)fclose(f);
	for (size_t i = 0; i < n; i++)
		if (magic[i])
			return 1;
	return 0;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	(void)fputs(text, f);
	return fclose(f);
}

/* ---- reading back with the plain sqlite3 API ---- */

static sqlite3 *db_open_ro(const char *path)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		printf("# cannot open %s: %s\n", path, db ? sqlite3_errmsg(db) : "?");
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

/* First column of the first row as an integer; INT64_MIN on error or no
 * row, which no checked value equals. */
static int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = INT64_MIN;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		printf("# %s: %s\n", sql, sqlite3_errmsg(db));
	else if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static double q_double(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	double v = -1.0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* First column of the first row as text in buf; "(null)" for SQL NULL,
 * "(error)" if the query failed or returned nothing. */
static const char *q_text(sqlite3 *db, const char *sql, char *buf, size_t n)
{
	sqlite3_stmt *st = NULL;

	(void)snprintf(buf, n, "(error)");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		printf("# %s: %s\n", sql, sqlite3_errmsg(db));
	} else if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *s = sqlite3_column_text(st, 0);
		(void)snprintf(buf, n, "%s", s ? (const char *)s : "(null)");
	}
	sqlite3_finalize(st);
	return buf;
}

/* Rows of `table` belonging to run_id. */
static int64_t rows_of(sqlite3 *db, const char *table, int64_t run_id)
{
	char sql[128];

	(void)snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE run_id = %" PRId64, table,
		       run_id);
	return q_int(db, sql);
}

static const char *const child_tables[] = {"counts",	 "caches",  "sites",
					   "violations", "samples", "sample_caches"};
#define NR_CHILD_TABLES (sizeof(child_tables) / sizeof(child_tables[0]))

/* ---- fixture: one run with a few rows of every kind ---- */

static const char config_json[] = "{\"allocator\":\"slub\",\"align\":\"natural\",\"nr_cpus\":4}";
static const char trace_path[] = "traces/samples/boot.trace";

static const struct rec_run_info run_info = {
	.command = "replay",
	.trace_path = trace_path,
	.allocator = "slub",
	.kernel = "6.1",
	.align = "natural",
	.slub_debug = "-",
	.nr_cpus = 4,
	.slub_min_order = 0,
	.slub_max_order = 3,
	.slub_min_objects = 0,
	.sample_every = "1000ev",
	.config_json = config_json,
	.version = "0.1.0-test",
};

static const struct sink_count counts[] = {
	{.table = "event", .kind = "kmalloc", .count = 120, .first_line = 1},
	{.table = "event", .kind = "kfree", .count = 100, .first_line = 3},
	{.table = "anomaly", .kind = "free_unknown", .count = 2, .first_line = 57},
};

static const struct sink_cache caches[] = {
	{.cache = "kmalloc-64",
	 .kmalloc = true,
	 .object_size = 64,
	 .slab_size = 64,
	 .align = 64,
	 .order = 0,
	 .objs_per_slab = 64,
	 .allocs = 100,
	 .frees = 80,
	 .live_objs = 20,
	 .live_req_bytes = 900,
	 .slabs = 1,
	 .pages = 1,
	 .peak_pages = 2,
	 .peak_pages_t_ns = 5000,
	 .peak_live_objs = 40,
	 .waste_rounding = 380,
	 .waste_layout = 0,
	 .waste_free_slots = 2816,
	 .waste_tail = 0,
	 .align_violations = 0},
	{.cache = "dentry",
	 .object_size = 192,
	 .slab_size = 192,
	 .align = 8,
	 .order = 0,
	 .objs_per_slab = 21,
	 .allocs = 30,
	 .frees = 9,
	 .live_objs = 21,
	 .live_req_bytes = 4032,
	 .slabs = 1,
	 .pages = 1,
	 .peak_pages = 1,
	 .peak_pages_t_ns = 7000,
	 .peak_live_objs = 21,
	 .waste_tail = 64},
	{.cache = "ext4_io_end", .alias_of = "kmalloc-64", .object_size = 64, .slab_size = 64},
};

static const struct sink_site sites[] = {
	{.call_site = "ext4_fill_super+0x10",
	 .allocs = 7,
	 .frees = 2,
	 .bytes_req = 700,
	 .bytes_alloc = 896,
	 .bytes_alloc_trace = 896,
	 .live_objs = 5,
	 .live_req_bytes = 500,
	 .align_violations = 3,
	 .pingpong = 1},
	{.call_site = "d_alloc+0x2c", .allocs = 30, .frees = 9, .bytes_req = 5760},
};

static const struct sink_violation violations[] = {
	{.cache = "kmalloc-96",
	 .call_site = "ext4_fill_super+0x10",
	 .size = 64,
	 .count = 3,
	 .example_addr = ADDR_HIGH},
};

#define NR_SAMPLES	 3
#define NR_SAMPLE_CACHES 4

static const struct sink_totals totals = {
	.events = 220,
	.t_first_ns = 1000,
	.t_last_ns = 987654321,
	.final_slab_pages = 10,
	.peak_slab_pages = 12,
	.peak_slab_pages_t_ns = 5000,
	.final_large_pages = 2,
	.final_live_objs = 41,
	.final_live_req_bytes = 4932,
	.align_violations = 3,
	.wall_seconds = 0.25,
};

/* Write the fixture rows into the open run; 0 or the first error. */
static int write_rows(struct rec *r, struct err *e)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < sizeof(counts) / sizeof(counts[0]); i++)
		ret = rec_count(r, &counts[i], e);
	for (size_t i = 0; !ret && i < sizeof(caches) / sizeof(caches[0]); i++)
		ret = rec_cache(r, &caches[i], e);
	for (size_t i = 0; !ret && i < sizeof(sites) / sizeof(sites[0]); i++)
		ret = rec_site(r, &sites[i], e);
	for (size_t i = 0; !ret && i < sizeof(violations) / sizeof(violations[0]); i++)
		ret = rec_violation(r, &violations[i], e);
	for (uint64_t seq = 0; !ret && seq < NR_SAMPLES; seq++) {
		struct sink_sample s = {
			.seq = seq,
			.t_ns = 1000 + seq * 1000000,
			.event_idx = seq * 100,
			.label = seq == 1 ? "phase:mount" : NULL,
			.slab_pages = 8 + seq,
			.large_pages = 2,
			.live_objs = 10 * seq,
			.live_req_bytes = 1000 * seq,
			.waste_rounding = 3 * seq,
			.waste_layout = 5 * seq,
			.waste_free_slots = 7 * seq,
			.waste_tail = 11 * seq,
		};
		ret = rec_sample(r, &s, e);
	}
	for (uint64_t i = 0; !ret && i < NR_SAMPLE_CACHES; i++) {
		struct sink_sample_cache sc = {
			.seq = i / 2,
			.cache = i % 2 ? "dentry" : "kmalloc-64",
			.slabs = i + 1,
			.pages = i + 1,
			.live_objs = 4 * i,
			.live_req_bytes = 100 * i,
		};
		ret = rec_sample_cache(r, &sc, e);
	}
	return ret;
}

/* Run counts of each child table for run_id, to compare before/after. */
static void snapshot(sqlite3 *db, int64_t run_id, int64_t out[NR_CHILD_TABLES])
{
	for (size_t i = 0; i < NR_CHILD_TABLES; i++)
		out[i] = rows_of(db, child_tables[i], run_id);
}

/* ---- cases ---- */

static void test_config_hash(void)
{
	char a[REC_CONFIG_HASH_LEN + 1], b[REC_CONFIG_HASH_LEN + 1];

	/* Published FNV-1a 64 test vectors. */
	rec_config_hash("", NULL, a);
	CHECK_EQ_STR("hash of empty config is the FNV offset basis", a, "cbf29ce484222325");
	rec_config_hash(NULL, NULL, a);
	CHECK_EQ_STR("NULL config hashes like empty", a, "cbf29ce484222325");
	rec_config_hash("a", NULL, a);
	CHECK_EQ_STR("FNV-1a 64 of \"a\"", a, "af63dc4c8601ec8c");
	rec_config_hash("foobar", NULL, a);
	CHECK_EQ_STR("FNV-1a 64 of \"foobar\"", a, "85944171f73967e8");
	rec_config_hash("ab", "c", a);
	rec_config_hash("a", "bc", b);
	CHECK("config/trace boundary is part of the hash", strcmp(a, b) != 0);
	rec_config_hash("a", "", b);
	rec_config_hash("a", NULL, a);
	CHECK("empty trace path differs from none", strcmp(a, b) != 0);
}

/* Case 1: write a run, commit, read every kind of row back. */
static void test_commit_and_read_back(const char *db_path)
{
	struct err e = {0};
	struct rec *r = NULL;
	int64_t run_id = -1;
	char buf[256], hash[REC_CONFIG_HASH_LEN + 1], journal[PATH_MAX_LEN + 64];
	sqlite3 *db;
	int ret;

	ret = rec_open(db_path, &r, &e);
	CHECK("rec_open creates a new database", ret == 0 && r);
	if (ret) {
		printf("# %s\n", e.msg);
		return;
	}
	ret = rec_run_begin(r, &run_info, &run_id, &e);
	CHECK_EQ_U64("rec_run_begin succeeds", (uint64_t)-ret, 0);
	CHECK_EQ_U64("first run gets run_id 1", run_id, 1);
	ret = write_rows(r, &e);
	CHECK("every row writer succeeds", ret == 0);
	if (ret)
		printf("# %s\n", e.msg);
	ret = rec_run_end(r, &totals, true, &e);
	CHECK("rec_run_end commits", ret == 0);
	rec_close(r);

	(void)snprintf(journal, sizeof(journal), "%s-journal", db_path);
	CHECK("no journal left after commit and close", !file_exists(journal));
	(void)snprintf(journal, sizeof(journal), "%s-wal", db_path);
	CHECK("no WAL file (rollback journal mode)", !file_exists(journal));

	db = db_open_ro(db_path);
	if (!CHECK("database reopens with sqlite3", db))
		return;
	CHECK_EQ_STR("integrity_check", q_text(db, "PRAGMA integrity_check", buf, sizeof(buf)),
		     "ok");
	CHECK_EQ_U64("foreign_key_check finds nothing",
		     q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	CHECK_EQ_U64("user_version is the schema version", q_int(db, "PRAGMA user_version"),
		     REC_SCHEMA_VERSION);
	CHECK_EQ_U64("application_id is 'slab'", q_int(db, "PRAGMA application_id"), 0x736c6162);
	CHECK_EQ_STR("journal mode is delete", q_text(db, "PRAGMA journal_mode", buf, sizeof(buf)),
		     "delete");

	/* runs */
	CHECK_EQ_U64("one run", q_int(db, "SELECT count(*) FROM runs"), 1);
	CHECK_EQ_STR("status done",
		     q_text(db, "SELECT status FROM runs WHERE run_id = 1", buf, sizeof(buf)),
		     "done");
	CHECK_EQ_STR("command", q_text(db, "SELECT command FROM runs", buf, sizeof(buf)), "replay");
	CHECK_EQ_STR("trace_path", q_text(db, "SELECT trace_path FROM runs", buf, sizeof(buf)),
		     trace_path);
	CHECK_EQ_STR("allocator", q_text(db, "SELECT allocator FROM runs", buf, sizeof(buf)),
		     "slub");
	CHECK_EQ_STR("kernel", q_text(db, "SELECT kernel FROM runs", buf, sizeof(buf)), "6.1");
	CHECK_EQ_STR("align", q_text(db, "SELECT align FROM runs", buf, sizeof(buf)), "natural");
	CHECK_EQ_STR("slub_debug", q_text(db, "SELECT slub_debug FROM runs", buf, sizeof(buf)),
		     "-");
	CHECK_EQ_STR("sample_every", q_text(db, "SELECT sample_every FROM runs", buf, sizeof(buf)),
		     "1000ev");
	CHECK_EQ_STR("version", q_text(db, "SELECT version FROM runs", buf, sizeof(buf)),
		     "0.1.0-test");
	CHECK_EQ_STR("config_json", q_text(db, "SELECT config_json FROM runs", buf, sizeof(buf)),
		     config_json);
	rec_config_hash(config_json, trace_path, hash);
	CHECK_EQ_STR("config_hash", q_text(db, "SELECT config_hash FROM runs", buf, sizeof(buf)),
		     hash);
	CHECK_EQ_U64("nr_cpus", q_int(db, "SELECT nr_cpus FROM runs"), 4);
	CHECK_EQ_U64("slub_max_order", q_int(db, "SELECT slub_max_order FROM runs"), 3);
	CHECK_EQ_U64("created_utc is an ISO-8601 UTC time",
		     q_int(db, "SELECT created_utc GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-*T*Z'"
			       " AND finished_utc >= created_utc FROM runs"),
		     1);
	CHECK_EQ_U64("totals: events", q_int(db, "SELECT events FROM runs"), 220);
	CHECK_EQ_U64("totals: t_first_ns", q_int(db, "SELECT t_first_ns FROM runs"), 1000);
	CHECK_EQ_U64("totals: t_last_ns", q_int(db, "SELECT t_last_ns FROM runs"), 987654321);
	CHECK_EQ_U64("totals: final_slab_pages", q_int(db, "SELECT final_slab_pages FROM runs"),
		     10);
	CHECK_EQ_U64("totals: peak_slab_pages", q_int(db, "SELECT peak_slab_pages FROM runs"), 12);
	CHECK_EQ_U64("totals: peak_slab_pages_t_ns",
		     q_int(db, "SELECT peak_slab_pages_t_ns FROM runs"), 5000);
	CHECK_EQ_U64("totals: final_large_pages", q_int(db, "SELECT final_large_pages FROM runs"),
		     2);
	CHECK_EQ_U64("totals: final_live_objs", q_int(db, "SELECT final_live_objs FROM runs"), 41);
	CHECK_EQ_U64("totals: final_live_req_bytes",
		     q_int(db, "SELECT final_live_req_bytes FROM runs"), 4932);
	CHECK_EQ_U64("totals: align_violations", q_int(db, "SELECT align_violations FROM runs"), 3);
	CHECK("totals: wall_seconds", q_double(db, "SELECT wall_seconds FROM runs") == 0.25);

	/* counts */
	CHECK_EQ_U64("counts rows", rows_of(db, "counts", 1), 3);
	CHECK_EQ_U64("count of event/kmalloc",
		     q_int(db, "SELECT count FROM counts WHERE tbl = 'event' AND kind = 'kmalloc'"),
		     120);
	CHECK_EQ_U64("count of event/kfree",
		     q_int(db, "SELECT count FROM counts WHERE tbl = 'event' AND kind = 'kfree'"),
		     100);
	CHECK_EQ_U64("first_line of anomaly/free_unknown",
		     q_int(db, "SELECT first_line FROM counts WHERE tbl = 'anomaly'"), 57);

	/* caches: every column of the first row, in schema order */
	{
		static const struct {
			const char *col;
			uint64_t want;
		} cols[] = {
			{"kmalloc", 1},		{"object_size", 64},
			{"slab_size", 64},	{"align", 64},
			{"slab_order", 0},	{"objs_per_slab", 64},
			{"allocs", 100},	{"frees", 80},
			{"live_objs", 20},	{"live_req_bytes", 900},
			{"slabs", 1},		{"pages", 1},
			{"peak_pages", 2},	{"peak_pages_t_ns", 5000},
			{"peak_live_objs", 40}, {"waste_rounding", 380},
			{"waste_layout", 0},	{"waste_free_slots", 2816},
			{"waste_tail", 0},	{"align_violations", 0},
		};
		char sql[160], name[96];

		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
			(void)snprintf(
				sql, sizeof(sql),
				"SELECT %s FROM caches WHERE run_id = 1 AND cache = 'kmalloc-64'",
				cols[i].col);
			(void)snprintf(name, sizeof(name), "caches kmalloc-64 %s", cols[i].col);
			CHECK_EQ_U64(name, q_int(db, sql), cols[i].want);
		}
	}
	CHECK_EQ_U64("caches rows", rows_of(db, "caches", 1), 3);
	CHECK_EQ_STR("alias_of NULL stays NULL",
		     q_text(db, "SELECT alias_of FROM caches WHERE cache = 'kmalloc-64'", buf,
			    sizeof(buf)),
		     "(null)");
	CHECK_EQ_STR("alias_of names the root cache",
		     q_text(db, "SELECT alias_of FROM caches WHERE cache = 'ext4_io_end'", buf,
			    sizeof(buf)),
		     "kmalloc-64");
	CHECK_EQ_U64("dentry waste_tail",
		     q_int(db, "SELECT waste_tail FROM caches WHERE cache = 'dentry'"), 64);
	CHECK_EQ_U64("dentry kmalloc 0",
		     q_int(db, "SELECT kmalloc FROM caches WHERE cache = 'dentry'"), 0);

	/* sites */
	CHECK_EQ_U64("sites rows", rows_of(db, "sites", 1), 2);
	CHECK_EQ_U64(
		"site bytes_alloc",
		q_int(db, "SELECT bytes_alloc FROM sites WHERE call_site = 'ext4_fill_super+0x10'"),
		896);
	CHECK_EQ_U64(
		"site pingpong",
		q_int(db, "SELECT pingpong FROM sites WHERE call_site = 'ext4_fill_super+0x10'"),
		1);
	CHECK_EQ_U64("site bytes_req",
		     q_int(db, "SELECT bytes_req FROM sites WHERE call_site = 'd_alloc+0x2c'"),
		     5760);

	/* violations: an address >= 2^63 keeps its bits */
	CHECK_EQ_U64("violations rows", rows_of(db, "violations", 1), 1);
	CHECK_EQ_U64("example_addr round-trips as uint64",
		     (uint64_t)q_int(db, "SELECT example_addr FROM violations"), ADDR_HIGH);
	CHECK_EQ_STR(
		"example_addr prints as hex",
		q_text(db, "SELECT printf('%x', example_addr) FROM violations", buf, sizeof(buf)),
		"ffff888012345660");
	CHECK_EQ_U64("example_addr & (size - 1) gives the misalignment",
		     q_int(db, "SELECT example_addr & (size - 1) FROM violations"), 32);
	CHECK_EQ_U64("violation count", q_int(db, "SELECT count FROM violations"), 3);

	/* samples */
	CHECK_EQ_U64("samples rows", rows_of(db, "samples", 1), NR_SAMPLES);
	CHECK_EQ_STR("sample label",
		     q_text(db, "SELECT label FROM samples WHERE seq = 1", buf, sizeof(buf)),
		     "phase:mount");
	CHECK_EQ_STR("sample without label is NULL",
		     q_text(db, "SELECT label FROM samples WHERE seq = 0", buf, sizeof(buf)),
		     "(null)");
	CHECK_EQ_U64("sample slab_pages sum", q_int(db, "SELECT sum(slab_pages) FROM samples"),
		     8 + 9 + 10);
	CHECK_EQ_U64("sample waste_tail of seq 2",
		     q_int(db, "SELECT waste_tail FROM samples WHERE seq = 2"), 22);
	CHECK_EQ_U64("sample t_ns of seq 2", q_int(db, "SELECT t_ns FROM samples WHERE seq = 2"),
		     2001000);

	/* sample_caches */
	CHECK_EQ_U64("sample_caches rows", rows_of(db, "sample_caches", 1), NR_SAMPLE_CACHES);
	CHECK_EQ_U64("sample_caches live_req_bytes of (1, dentry)",
		     q_int(db, "SELECT live_req_bytes FROM sample_caches"
			       " WHERE seq = 1 AND cache = 'dentry'"),
		     300);
	sqlite3_close(db);
}

/* Case 2: a rolled-back run leaves nothing; the next committed run reuses
 * its id and run 1 is untouched. */
static void test_rollback(const char *db_path)
{
	int64_t before[NR_CHILD_TABLES], after[NR_CHILD_TABLES];
	struct err e = {0};
	struct rec *r = NULL;
	int64_t run_id = -1;
	sqlite3 *db;
	int ret;

	db = db_open_ro(db_path);
	if (!db)
		return;
	snapshot(db, 1, before);

	ret = rec_open(db_path, &r, &e);
	CHECK("rec_open reopens an existing database", ret == 0);
	if (ret) {
		printf("# %s\n", e.msg);
		sqlite3_close(db);
		return;
	}
	CHECK("rec_run_begin", rec_run_begin(r, &run_info, &run_id, &e) == 0);
	CHECK_EQ_U64("second run gets run_id 2", run_id, 2);
	CHECK("rows of the doomed run are written", write_rows(r, &e) == 0);
	CHECK("rec_run_end(commit=false) succeeds", rec_run_end(r, NULL, false, &e) == 0);

	CHECK_EQ_U64("rolled-back run has no runs row",
		     q_int(db, "SELECT count(*) FROM runs WHERE run_id = 2"), 0);
	for (size_t i = 0; i < NR_CHILD_TABLES; i++) {
		char name[64];
		(void)snprintf(name, sizeof(name), "rolled-back run has no %s rows",
			       child_tables[i]);
		CHECK_EQ_U64(name, rows_of(db, child_tables[i], 2), 0);
	}

	ret = rec_run_begin(r, &run_info, &run_id, &e);
	CHECK("a new run begins after a rollback", ret == 0);
	CHECK_EQ_U64("it reuses the rolled-back id", run_id, 2);
	CHECK("its rows are written", write_rows(r, &e) == 0);
	CHECK("and committed", rec_run_end(r, &totals, true, &e) == 0);
	rec_close(r);

	CHECK_EQ_U64("two runs now", q_int(db, "SELECT count(*) FROM runs"), 2);
	CHECK_EQ_U64("both done", q_int(db, "SELECT count(*) FROM runs WHERE status = 'done'"), 2);
	CHECK_EQ_U64("run 2 has its samples", rows_of(db, "samples", 2), NR_SAMPLES);
	snapshot(db, 1, after);
	CHECK("run 1 rows are untouched", memcmp(before, after, sizeof(before)) == 0);
	sqlite3_close(db);
}

/* Case 3: closing with a run open (an interrupted replay) rolls it back. */
static void test_close_interrupted(const char *db_path)
{
	struct err e = {0};
	struct rec *r = NULL;
	int64_t run_id = -1;
	char journal[PATH_MAX_LEN + 64];
	sqlite3 *db;

	if (rec_open(db_path, &r, &e)) {
		CHECK("rec_open for the interrupted run", 0);
		printf("# %s\n", e.msg);
		return;
	}
	CHECK("interrupted run begins", rec_run_begin(r, &run_info, &run_id, &e) == 0);
	CHECK_EQ_U64("interrupted run is run 3", run_id, 3);
	CHECK("interrupted run writes rows", write_rows(r, &e) == 0);
	rec_close(r);

	(void)snprintf(journal, sizeof(journal), "%s-journal", db_path);
	CHECK("no hot journal after rec_close", !file_exists(journal));
	db = db_open_ro(db_path);
	if (!db)
		return;
	CHECK_EQ_U64("interrupted run has no runs row",
		     q_int(db, "SELECT count(*) FROM runs WHERE run_id = 3"), 0);
	for (size_t i = 0; i < NR_CHILD_TABLES; i++) {
		char name[64];
		(void)snprintf(name, sizeof(name), "interrupted run has no %s rows",
			       child_tables[i]);
		CHECK_EQ_U64(name, rows_of(db, child_tables[i], 3), 0);
	}
	CHECK_EQ_U64("earlier runs kept", q_int(db, "SELECT count(*) FROM runs"), 2);
	CHECK_EQ_U64("run 1 samples kept", rows_of(db, "samples", 1), NR_SAMPLES);
	CHECK_EQ_U64("run 2 caches kept", rows_of(db, "caches", 2), 3);
	sqlite3_close(db);
}

/* Case 3b: a replay that dies mid-run (no rec_close) leaves a hot journal;
 * the next rec_open must roll it back. Enough samples are written that
 * SQLite spills pages into the database file before the crash; with fewer,
 * the journal's magic is still zero and SQLite rightly ignores it. */
static void test_crash(const char *db_path)
{
	char journal[PATH_MAX_LEN + 64];
	struct err e = {0};
	struct rec *r = NULL;
	int64_t runs_before, samples_before;
	sqlite3 *db;
	int status = 0;
	pid_t pid;

	db = db_open_ro(db_path);
	if (!db)
		return;
	runs_before = q_int(db, "SELECT count(*) FROM runs");
	samples_before = q_int(db, "SELECT count(*) FROM samples");
	sqlite3_close(db);

	(void)fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (rec_open(db_path, &r, &e) || rec_run_begin(r, &run_info, NULL, &e))
			_exit(2);
		for (uint64_t seq = 0; seq < 200000; seq++) {
			struct sink_sample row = {.seq = seq, .t_ns = seq, .slab_pages = seq};
			if (rec_sample(r, &row, &e))
				_exit(3);
		}
		_exit(0); /* no rec_run_end, no rec_close: the process dies */
	}
	CHECK("crashing writer ran", pid > 0 && waitpid(pid, &status, 0) == pid &&
					     WIFEXITED(status) && WEXITSTATUS(status) == 0);
	(void)snprintf(journal, sizeof(journal), "%s-journal", db_path);
	CHECK("the crash left a hot journal (magic written)", journal_is_hot(journal));

	CHECK("rec_open recovers", rec_open(db_path, &r, &e) == 0);
	rec_close(r);
	CHECK("the hot journal is gone", !file_exists(journal));
	db = db_open_ro(db_path);
	if (!db)
		return;
	CHECK_EQ_U64("the crashed run left no runs row", q_int(db, "SELECT count(*) FROM runs"),
		     runs_before);
	CHECK_EQ_U64("the crashed run left no samples", q_int(db, "SELECT count(*) FROM samples"),
		     samples_before);
	CHECK_EQ_STR("integrity_check after recovery",
		     q_text(db, "PRAGMA integrity_check", journal, sizeof(journal)), "ok");
	sqlite3_close(db);
}

/* Case 4: misuse and constraint errors come back as codes with messages. */
static void test_misuse(const char *db_path)
{
	struct sink_cache dup = caches[0];
	struct err e = {0};
	struct rec *r = NULL;
	int64_t run_id = -1, other = -1;
	sqlite3 *db;
	int ret;

	if (rec_open(db_path, &r, &e)) {
		CHECK("rec_open for misuse cases", 0);
		printf("# %s\n", e.msg);
		return;
	}
	ret = rec_count(r, &counts[0], &e);
	CHECK_EQ_U64("row without a run fails with SLABSIM_EUSAGE", (uint64_t)-ret,
		     -SLABSIM_EUSAGE);
	CHECK("... saying no run is open", strstr(e.msg, "no run is open") != NULL);
	ret = rec_run_end(r, &totals, true, &e);
	CHECK_EQ_U64("rec_run_end without a run fails", (uint64_t)-ret, -SLABSIM_EUSAGE);

	{
		struct rec_run_info bad = run_info;

		bad.allocator = NULL;
		ret = rec_run_begin(r, &bad, &other, &e);
		CHECK("a runs row without allocator fails with SLABSIM_EIO",
		      ret == SLABSIM_EIO && strstr(e.msg, "runs.allocator") != NULL);
		printf("# %s\n", e.msg);
	}
	CHECK("a run begins after a failed begin", rec_run_begin(r, &run_info, &other, &e) == 0);
	ret = rec_run_end(r, NULL, true, &e);
	CHECK("commit without totals fails with SLABSIM_EUSAGE and ends the run",
	      ret == SLABSIM_EUSAGE && strstr(e.msg, "was rolled back") != NULL);
	printf("# %s\n", e.msg);
	other = -1;

	CHECK("first rec_run_begin", rec_run_begin(r, &run_info, &run_id, &e) == 0);
	err_clear(&e);
	ret = rec_run_begin(r, &run_info, &other, &e);
	CHECK_EQ_U64("second rec_run_begin fails with SLABSIM_EUSAGE", (uint64_t)-ret,
		     -SLABSIM_EUSAGE);
	CHECK("... saying a run is already open", strstr(e.msg, "is already open") != NULL);
	CHECK("... naming the database", strstr(e.msg, db_path) != NULL);
	printf("# %s\n", e.msg);
	CHECK_EQ_U64("... and leaves run_id alone", (uint64_t)other, (uint64_t)-1);

	CHECK("a cache row", rec_cache(r, &dup, &e) == 0);
	err_clear(&e);
	ret = rec_cache(r, &dup, &e);
	CHECK_EQ_U64("a duplicate cache row fails with SLABSIM_EIO", (uint64_t)-ret, -SLABSIM_EIO);
	CHECK("... with SQLite's message",
	      strstr(e.msg, "UNIQUE constraint failed: caches") != NULL);
	CHECK("... naming the database", strstr(e.msg, db_path) != NULL);
	printf("# %s\n", e.msg);
	dup.cache = NULL;
	ret = rec_cache(r, &dup, &e);
	CHECK("a NULL cache name fails", ret == SLABSIM_EIO && strstr(e.msg, "NOT NULL") != NULL);
	CHECK("the run survives a failed row", rec_run_end(r, &totals, true, &e) == 0);
	rec_close(r);

	db = db_open_ro(db_path);
	if (!db)
		return;
	CHECK_EQ_U64("the surviving run kept its one cache row", rows_of(db, "caches", run_id), 1);
	sqlite3_close(db);
}

/* Case 5: files that are not ours are refused and left as they were. */
static void test_foreign_files(const struct tmp *t)
{
	static const char text[] = "this is a trace, not a database\nkmalloc ...\n";
	char path[PATH_MAX_LEN + 32], buf[128];
	struct err e = {0};
	struct rec *r = (struct rec *)&e; /* must come back NULL */
	sqlite3 *db = NULL;
	FILE *f;
	int ret;

	tmp_path(t, "notes.txt", path, sizeof(path));
	if (write_file(path, text)) {
		CHECK("write a text file", 0);
		return;
	}
	ret = rec_open(path, &r, &e);
	CHECK_EQ_U64("text file: SLABSIM_EIO", (uint64_t)-ret, -SLABSIM_EIO);
	CHECK("text file: *out is NULL", r == NULL);
	CHECK("text file: message names the path", strstr(e.msg, path) != NULL);
	CHECK("text file: message says not a slabsim/SQLite database",
	      strstr(e.msg, "not a slabsim/SQLite database") != NULL);
	printf("# %s\n", e.msg);
	f = fopen(path, "r");
	buf[0] = '\0';
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		(void)fclose(f);
	}
	CHECK_EQ_STR("text file is left unchanged", buf, text);

	/* A SQLite database of something else. */
	tmp_path(t, "other.db", path, sizeof(path));
	if (sqlite3_open(path, &db) != SQLITE_OK ||
	    sqlite3_exec(db, "CREATE TABLE notes (x)", NULL, NULL, NULL) != SQLITE_OK) {
		CHECK("create another application's database", 0);
		sqlite3_close(db);
		return;
	}
	sqlite3_close(db);
	err_clear(&e);
	ret = rec_open(path, &r, &e);
	CHECK_EQ_U64("other SQLite database: SLABSIM_EIO", (uint64_t)-ret, -SLABSIM_EIO);
	CHECK("other SQLite database: message says so",
	      strstr(e.msg, path) && strstr(e.msg, "not a slabsim results database"));
	printf("# %s\n", e.msg);
	db = db_open_ro(path);
	CHECK_EQ_U64("other SQLite database gained no tables",
		     db ? q_int(db, "SELECT count(*) FROM sqlite_master") : -1, 1);
	sqlite3_close(db);

	/* A slabsim database from the future. */
	tmp_path(t, "newer.db", path, sizeof(path));
	if (rec_open(path, &r, &e)) {
		CHECK("create a database to age", 0);
		return;
	}
	rec_close(r);
	db = NULL;
	if (sqlite3_open(path, &db) != SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL) != SQLITE_OK) {
		CHECK("set a newer schema version", 0);
		sqlite3_close(db);
		return;
	}
	sqlite3_close(db);
	err_clear(&e);
	ret = rec_open(path, &r, &e);
	CHECK("newer schema: SLABSIM_EIO naming both versions",
	      ret == SLABSIM_EIO && strstr(e.msg, path) && strstr(e.msg, "99") &&
		      strstr(e.msg, "newer"));
	printf("# %s\n", e.msg);

	/* A directory. */
	err_clear(&e);
	ret = rec_open(t->dir, &r, &e);
	CHECK("directory: SLABSIM_EIO naming the path",
	      ret == SLABSIM_EIO && r == NULL && strstr(e.msg, t->dir) != NULL);
	printf("# %s\n", e.msg);
}

/* Case 6: a write-protected database. */
static void test_read_only(const char *db_path)
{
	struct err e = {0};
	struct rec *r = NULL;
	int ret;

	if (geteuid() == 0) {
		/* root ignores the mode bits, so SQLite would open it read-write */
		printf("ok %u - read-only database gives SLABSIM_EIO # SKIP running as root\n",
		       ++check_n);
		return;
	}
	if (chmod(db_path, 0444)) {
		CHECK("chmod 0444", 0);
		return;
	}
	ret = rec_open(db_path, &r, &e);
	CHECK("read-only database gives SLABSIM_EIO naming the path",
	      ret == SLABSIM_EIO && r == NULL && strstr(e.msg, db_path) != NULL);
	CHECK("... saying it is read-only", strstr(e.msg, "read-only") != NULL);
	printf("# %s\n", e.msg);
	rec_close(r);
	(void)chmod(db_path, 0644);
}

/* Case 7: deleting a run cascades to its rows (the schema's foreign keys). */
static void test_cascade(const char *db_path)
{
	sqlite3 *db = NULL;
	int64_t other_before, other_after;

	if (sqlite3_open(db_path, &db) != SQLITE_OK) {
		CHECK("open for delete", 0);
		sqlite3_close(db);
		return;
	}
	other_before = rows_of(db, "samples", 2);
	CHECK("DELETE FROM runs WHERE run_id = 1",
	      sqlite3_exec(db, "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE run_id = 1", NULL,
			   NULL, NULL) == SQLITE_OK);
	for (size_t i = 0; i < NR_CHILD_TABLES; i++) {
		char name[64];
		(void)snprintf(name, sizeof(name), "delete cascades to %s", child_tables[i]);
		CHECK_EQ_U64(name, rows_of(db, child_tables[i], 1), 0);
	}
	other_after = rows_of(db, "samples", 2);
	CHECK_EQ_U64("other runs keep their rows", other_after, other_before);
	sqlite3_close(db);
}

/* Case 8: the per-sample writers buffer rows and send them in multi-row
 * INSERTs (per-cache rows a sample at a time, sorted by name); what reaches
 * the file must be every row as written, whatever the batch boundaries. */
#define BATCH_SEQS	 45 /* samples: 32 + 8 + 4 + 1, the last ones sent at commit */
#define BATCH_CACHE_SEQS 5  /* samples with per-cache rows */
#define BATCH_NAMES	 70 /* per-cache rows per sample: 64 + 4 + 2 */

static int batch_rows(struct rec *r, struct err *e)
{
	for (uint64_t seq = 0; seq < BATCH_SEQS; seq++) {
		struct sink_sample s = {.seq = seq,
					.t_ns = 100 * seq,
					.event_idx = 1000 * seq,
					.label = seq + 1 == BATCH_SEQS ? "end" : NULL};
		if (rec_sample(r, &s, e))
			return -1;
		for (uint64_t o = 0; o < 11; o++) {
			struct sink_sample_order or
				= {.seq = seq, .order = o, .held_blocks = seq * 11 + o};
			if (rec_sample_order(r, & or, e))
				return -1;
		}
		for (uint64_t j = 0; seq < BATCH_CACHE_SEQS && j < BATCH_NAMES; j++) {
			uint64_t k = j * 37 % BATCH_NAMES; /* names out of key order */
			char name[16];

			(void)snprintf(name, sizeof(name), "c%03" PRIu64, k);
			struct sink_sample_cache sc = {.seq = seq,
						       .cache = name,
						       .slabs = seq * 1000 + k,
						       .pages = 2 * (seq * 1000 + k),
						       .live_objs = k,
						       .live_req_bytes = seq};
			if (rec_sample_cache(r, &sc, e))
				return -1;
		}
	}
	return 0;
}

/* rec_repetition on run_id: fails on a run that does not exist only while
 * foreign keys are enforced. */
static int repetition_of(struct rec *r, int64_t run_id, struct err *e)
{
	const struct rec_repeat_row row = {.figure = "final_slab_pages", .mean = 1};
	const struct rec_repeat_info info = {.spec_path = "w.spec",
					     .spec_hash = "0",
					     .config_json = "{}",
					     .n = 1,
					     .run_ids = &run_id,
					     .rows = &row,
					     .nrows = 1};
	return rec_repetition(r, &info, NULL, e);
}

static void test_batches(const struct tmp *t)
{
	char path[PATH_MAX_LEN + 32], buf[64];
	struct err e = {0};
	struct rec *r = NULL;
	int64_t run_id = -1, other = -1;
	sqlite3 *db;
	int ret;

	tmp_path(t, "batch.db", path, sizeof(path));
	/* an empty run 1 first, so that the batched rows carry run_id 2 */
	if (rec_open(path, &r, &e) || rec_run_begin(r, &run_info, NULL, &e) ||
	    rec_run_end(r, &totals, true, &e) || rec_run_begin(r, &run_info, &run_id, &e)) {
		CHECK("open and begin the batch run", 0);
		printf("# %s\n", e.msg);
		rec_close(r);
		return;
	}
	CHECK("rows written in batches", batch_rows(r, &e) == 0);
	CHECK("and committed", rec_run_end(r, &totals, true, &e) == 0);
	CHECK("foreign keys are enforced again after a run: a repetition of a missing run fails",
	      repetition_of(r, 999, &e) == SLABSIM_EIO && strstr(e.msg, "FOREIGN KEY"));
	printf("# %s\n", e.msg);
	CHECK("... and one of the committed run is recorded", repetition_of(r, run_id, &e) == 0);

	/* A per-key row is checked against its key's change log at once: a
	 * second row of a key at the same seq is refused, the run goes on. */
	CHECK("a second run", rec_run_begin(r, &run_info, &other, &e) == 0);
	struct sink_sample_cache dup = {.seq = 0, .cache = "dentry", .slabs = 1};
	CHECK("a per-cache row", rec_sample_cache(r, &dup, &e) == 0);
	dup.slabs = 2;
	ret = rec_sample_cache(r, &dup, &e);
	CHECK("a second row of the key at the same seq is refused",
	      ret == SLABSIM_EUSAGE &&
		      strstr(e.msg, "a row of seq 0 after one of seq 0 for the same key"));
	printf("# %s\n", e.msg);
	/* A duplicate row of a batched table without a change log is only
	 * seen when its batch reaches SQLite, on the writer thread: a later
	 * per-sample call reports it, or at the latest rec_run_end, which then
	 * rolls the run back. */
	struct sink_sample ds = {.seq = 0};
	CHECK("a sample row", rec_sample(r, &ds, &e) == 0);
	CHECK("its duplicate is buffered", rec_sample(r, &ds, &e) == 0);
	int first = 0, nfail = 0;
	char first_msg[sizeof(e.msg)] = "";
	for (ds.seq = 1; ds.seq < 200; ds.seq++) {
		ret = rec_sample(r, &ds, &e);
		if (ret && !nfail++) {
			first = ret;
			memcpy(first_msg, e.msg, sizeof(first_msg));
		}
	}
	printf("# %s\n", first_msg);
	CHECK("the failure is reported at most once before the commit",
	      nfail == 0 || (nfail == 1 && first == SLABSIM_EIO &&
			     strstr(first_msg, "UNIQUE constraint failed: samples")));
	ret = rec_run_end(r, &totals, true, &e);
	CHECK("the commit fails: with the failure, or saying rows were lost after it",
	      ret == SLABSIM_EIO && strstr(e.msg, nfail ? "rows were lost after an earlier error"
							: "UNIQUE constraint failed: samples"));
	printf("# %s\n", e.msg);
	CHECK("foreign keys are enforced after a failed commit",
	      repetition_of(r, 998, &e) == SLABSIM_EIO && strstr(e.msg, "FOREIGN KEY"));
	rec_close(r);

	db = db_open_ro(path);
	if (!db)
		return;
	CHECK_EQ_U64("the failed commit left two runs", q_int(db, "SELECT count(*) FROM runs"), 2);
	CHECK_EQ_U64("the batched run is run 2", run_id, 2);
	CHECK_EQ_U64("every sample row is run 2's",
		     q_int(db, "SELECT (SELECT count(*) FROM samples WHERE run_id <> 2) +"
			       " (SELECT count(*) FROM sample_orders WHERE run_id <> 2) +"
			       " (SELECT count(*) FROM sample_caches WHERE run_id <> 2)"),
		     0);
	CHECK_EQ_U64("samples rows", rows_of(db, "samples", run_id), BATCH_SEQS);
	CHECK_EQ_U64("samples: seq 0..44 sum to 44*45/2", q_int(db, "SELECT sum(seq) FROM samples"),
		     990);
	CHECK_EQ_U64("samples: event_idx = 1000 seq, t_ns = 100 seq",
		     q_int(db, "SELECT count(*) FROM samples WHERE event_idx = 1000 * seq AND"
			       " t_ns = 100 * seq"),
		     BATCH_SEQS);
	CHECK_EQ_STR("samples: the last one is labelled",
		     q_text(db,
			    "SELECT group_concat(seq || ':' || label) FROM samples WHERE"
			    " label IS NOT NULL",
			    buf, sizeof(buf)),
		     "44:end");
	CHECK_EQ_U64("sample_orders rows", rows_of(db, "sample_orders", run_id), BATCH_SEQS * 11);
	CHECK_EQ_U64("sample_orders: held_blocks 0..494 sum to 494*495/2",
		     q_int(db, "SELECT sum(held_blocks) FROM sample_orders"), 122265);
	CHECK_EQ_U64("sample_orders: held_blocks = 11 seq + page_order",
		     q_int(db, "SELECT count(*) FROM sample_orders WHERE held_blocks <> 11 * seq +"
			       " page_order"),
		     0);
	/* every row differs from its key's previous one, except c000's first,
	 * all zeros: a change log leaves it out */
	CHECK_EQ_U64("sample_caches rows: all but c000 at seq 0",
		     rows_of(db, "sample_caches", run_id), BATCH_CACHE_SEQS * BATCH_NAMES - 1);
	CHECK_EQ_U64("sample_caches: 70 names per sample but the first",
		     q_int(db, "SELECT count(*) FROM (SELECT seq FROM sample_caches GROUP BY seq"
			       " HAVING count(DISTINCT cache) = 70)"),
		     BATCH_CACHE_SEQS - 1);
	CHECK_EQ_U64(
		"sample_caches: no c000 at seq 0",
		q_int(db, "SELECT count(*) FROM sample_caches WHERE seq = 0 AND cache = 'c000'"),
		0);
	/* the names keep their last values for the 40 samples without rows:
	 * 70 at seq 4..44 (41 samples), c000 at seq 1..3, the others 0..3 */
	CHECK_EQ_U64("sample_caches_full rows",
		     q_int(db, "SELECT count(*) FROM sample_caches_full"), 70 * 41 + 3 + 69 * 4);
	CHECK_EQ_U64(
		"sample_caches_full: (44, c017) is (4, c017)",
		q_int(db, "SELECT pages FROM sample_caches_full WHERE seq = 44 AND cache = 'c017'"),
		8034);
	/* sum over 5 samples of 70 rows of 1000 seq + k: 70*1000*(0+..+4) + 5*(0+..+69) */
	CHECK_EQ_U64("sample_caches: slabs sum", q_int(db, "SELECT sum(slabs) FROM sample_caches"),
		     712075);
	CHECK_EQ_U64("sample_caches: each row's own figures",
		     q_int(db, "SELECT count(*) FROM sample_caches WHERE pages <> 2 * slabs OR"
			       " slabs <> 1000 * seq + live_objs OR live_req_bytes <> seq OR"
			       " cache <> printf('c%03d', live_objs)"),
		     0);
	CHECK_EQ_U64("sample_caches: (3, c017)",
		     q_int(db, "SELECT pages FROM sample_caches WHERE seq = 3 AND cache = 'c017'"),
		     6034);
	CHECK_EQ_U64("one repetition, of run 2",
		     q_int(db, "SELECT count(*) FROM repetition_runs WHERE run_id = 2"), 1);
	CHECK_EQ_U64("foreign_key_check finds nothing",
		     q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	sqlite3_close(db);
}

/* Case 9: the per-key tables are change logs (schema version 3). Six
 * samples; the series as passed, by seq 0..5 (slabs, pages, live_objs,
 * live_req_bytes; "-" = all zeros):
 *   a: (1,1,2,20) (1,1,2,20) (1,1,3,30)  -  -  (2,2,1,8)
 *   b:     -      (1,2,1,5)  then the same to the end
 *   c: (4,4,4,4) at seq 0, never passed again (keeps its value)
 * and for the orders (held, free, unusable): order 0 (5,5,0) throughout,
 * order 1 all zeros throughout, order 2 (0,9,7) until seq 2, (1,8,7) from 3. */
static void test_change_log(const struct tmp *t)
{
	static const uint64_t a[6][4] = {{1, 1, 2, 20}, {1, 1, 2, 20}, {1, 1, 3, 30},
					 {0, 0, 0, 0},	{0, 0, 0, 0},  {2, 2, 1, 8}};
	char path[PATH_MAX_LEN + 32], buf[256];
	struct err e = {0};
	struct rec *r = NULL;
	int ok = 1;

	tmp_path(t, "log.db", path, sizeof(path));
	if (rec_open(path, &r, &e) || rec_run_begin(r, &run_info, NULL, &e)) {
		CHECK("open and begin the change-log run", 0);
		printf("# %s\n", e.msg);
		rec_close(r);
		return;
	}
	for (uint64_t seq = 0; seq < 6 && ok; seq++) {
		struct sink_sample s = {.seq = seq};
		struct sink_sample_cache ca = {seq,	  "a",	     a[seq][0],
					       a[seq][1], a[seq][2], a[seq][3]};
		struct sink_sample_cache cb = {seq, "b"};
		struct sink_sample_cache cc = {seq, "c", 4, 4, 4, 4};
		struct sink_sample_slabinfo sa = {seq,	     "a", a[seq][0],	    0,
						  a[seq][2], 0,	  4096 * a[seq][0], 64 * a[seq][2]};
		struct sink_sample_order o[3] = {{seq, 0, 5, 5, 0},
						 {seq, 1, 0, 0, 0},
						 {seq, 2, seq >= 3, 9 - (seq >= 3), 7}};
		if (seq)
			cb = (struct sink_sample_cache){seq, "b", 1, 2, 1, 5};
		ok = !rec_sample(r, &s, &e) && !rec_sample_cache(r, &ca, &e) &&
		     !rec_sample_cache(r, &cb, &e) && (seq || !rec_sample_cache(r, &cc, &e)) &&
		     !rec_sample_slabinfo(r, &sa, &e);
		for (int i = 0; i < 3 && ok; i++)
			ok = !rec_sample_order(r, &o[i], &e);
	}
	CHECK("the series is recorded", ok);
	struct sink_sample_cache late = {4, "a"};
	CHECK("a row of a key behind its last seq is refused",
	      rec_sample_cache(r, &late, &e) == SLABSIM_EUSAGE);
	CHECK("the run commits", rec_run_end(r, &totals, true, &e) == 0);
	rec_close(r);

	sqlite3 *db = db_open_ro(path);
	if (!db)
		return;
	/* written: a at 0, 2, 3 (zeros: a holds nothing), 5; b at 1; c at 0 */
	CHECK_EQ_STR("sample_caches holds the changes only",
		     q_text(db,
			    "SELECT group_concat(cache || seq || ':' || slabs || pages || live_objs"
			    " || '/' || live_req_bytes, ' ') FROM (SELECT * FROM sample_caches"
			    " ORDER BY cache, seq)",
			    buf, sizeof(buf)),
		     "a0:112/20 a2:113/30 a3:000/0 a5:221/8 b1:121/5 c0:444/4");
	CHECK_EQ_STR("sample_caches_full: every sample of every key that holds something",
		     q_text(db,
			    "SELECT group_concat(cache || seq || ':' || slabs || pages || live_objs"
			    " || '/' || live_req_bytes, ' ') FROM (SELECT * FROM sample_caches_full"
			    " ORDER BY cache, seq)",
			    buf, sizeof(buf)),
		     "a0:112/20 a1:112/20 a2:113/30 a5:221/8 b1:121/5 b2:121/5 b3:121/5 b4:121/5 "
		     "b5:121/5 c0:444/4 c1:444/4 c2:444/4 c3:444/4 c4:444/4 c5:444/4");
	CHECK_EQ_STR(
		"sample_slabinfo: a's changes, zeros at 3",
		q_text(db,
		       "SELECT group_concat(seq || ':' || slabs || '/' || objects || '/' || space"
		       " || '/' || used, ' ') FROM (SELECT * FROM sample_slabinfo ORDER BY seq)",
		       buf, sizeof(buf)),
		"0:1/2/4096/128 2:1/3/4096/192 3:0/0/0/0 5:2/1/8192/64");
	CHECK_EQ_STR("sample_slabinfo_full: a at 0, 1, 2 and 5",
		     q_text(db,
			    "SELECT group_concat(seq || ':' || objects, ' ') FROM"
			    " (SELECT * FROM sample_slabinfo_full ORDER BY seq)",
			    buf, sizeof(buf)),
		     "0:2 1:2 2:3 5:1");
	/* orders: every order at the first sample (zeros included), then order
	 * 2 at seq 3 */
	CHECK_EQ_STR("sample_orders: all at seq 0, then changes",
		     q_text(db,
			    "SELECT group_concat(seq || '.' || page_order || ':' || held_blocks ||"
			    " free_blocks || unusable_permille, ' ') FROM (SELECT * FROM"
			    " sample_orders ORDER BY seq, page_order)",
			    buf, sizeof(buf)),
		     "0.0:550 0.1:000 0.2:097 3.2:187");
	CHECK_EQ_U64("sample_orders_full: 3 orders x 6 samples",
		     q_int(db, "SELECT count(*) FROM sample_orders_full"), 18);
	CHECK_EQ_U64("sample_orders_full: order 1's zeros at every sample",
		     q_int(db, "SELECT count(*) FROM sample_orders_full WHERE page_order = 1 AND"
			       " held_blocks = 0 AND free_blocks = 0 AND unusable_permille = 0"),
		     6);
	CHECK_EQ_U64("sample_orders_full: Σ held_blocks = order 0's 6x5 + order 2's 3x1",
		     q_int(db, "SELECT sum(held_blocks) FROM sample_orders_full"), 33);
	sqlite3_close(db);
}

/* ---- benchmark ---- */

static double now_s(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench(uint64_t nr_rows)
{
	struct tmp t = {{0}};
	char path[PATH_MAX_LEN + 32];
	struct err e = {0};
	struct rec *r = NULL;
	double t0, t1, t2;
	int ret = 1;

	if (tmp_create(&t))
		return 1;
	tmp_path(&t, "bench.db", path, sizeof(path));
	if (rec_open(path, &r, &e) || rec_run_begin(r, &run_info, NULL, &e))
		goto out;
	t0 = now_s();
	for (uint64_t seq = 0; seq < nr_rows; seq++) {
		struct sink_sample s = {
			.seq = seq,
			.t_ns = seq * 1000,
			.event_idx = seq * 1000,
			.slab_pages = 5000 + seq % 97,
			.large_pages = 12,
			.live_objs = 200000 + seq % 1013,
			.live_req_bytes = 30000000 + seq,
			.waste_rounding = 1000000 + seq % 7,
			.waste_layout = 200000,
			.waste_free_slots = 3000000 + seq % 11,
			.waste_tail = 40000,
		};
		if (rec_sample(r, &s, &e))
			goto out;
	}
	t1 = now_s();
	for (uint64_t i = 0; i < nr_rows; i++) {
		static const char *const names[] = {"kmalloc-64", "kmalloc-128", "dentry",
						    "inode_cache"};
		struct sink_sample_cache sc = {
			.seq = i / 4,
			.cache = names[i % 4],
			.slabs = i % 100,
			.pages = i % 100,
			.live_objs = i % 5000,
			.live_req_bytes = i % 500000,
		};
		if (rec_sample_cache(r, &sc, &e))
			goto out;
	}
	t2 = now_s();
	if (rec_run_end(r, &totals, true, &e))
		goto out;
	printf("samples: %" PRIu64 " rows in %.3f s = %.0f rows/s\n", nr_rows, t1 - t0,
	       (double)nr_rows / (t1 - t0));
	printf("sample_caches: %" PRIu64 " rows in %.3f s = %.0f rows/s\n", nr_rows, t2 - t1,
	       (double)nr_rows / (t2 - t1));
	printf("commit: %.3f s\n", now_s() - t2);
	ret = 0;
out:
	if (ret)
		printf("bench failed: %s\n", e.msg);
	rec_close(r);
	tmp_destroy(&t);
	return ret;
}

int main(int argc, char **argv)
{
	char db_path[PATH_MAX_LEN + 32];
	struct tmp t = {{0}};

	if (argc >= 2 && !strcmp(argv[1], "--bench"))
		return bench(argc >= 3 ? strtoull(argv[2], NULL, 10) : 1000000);

	if (tmp_create(&t)) {
		printf("Bail out! mkdtemp failed\n");
		return 1;
	}
	tmp_path(&t, "results.db", db_path, sizeof(db_path));

	test_config_hash();
	test_commit_and_read_back(db_path);
	test_rollback(db_path);
	test_close_interrupted(db_path);
	test_crash(db_path);
	test_misuse(db_path);
	test_foreign_files(&t);
	test_read_only(db_path);
	test_cascade(db_path);
	test_batches(&t);
	test_change_log(&t);
	rec_close(NULL);

	tmp_destroy(&t);
	return check_done();
}
