/* rec.c - the SQLite results recorder behind rec.h.
 *
 * Owns one sqlite3 connection, the schema (kept in step with docs/schema.md)
 * and one prepared statement per kind of row, prepared in rec_open() and
 * reused for every row. A run is one transaction: rec_run_begin() runs BEGIN
 * IMMEDIATE and the `runs` INSERT, rec_run_end() the totals UPDATE and COMMIT
 * or ROLLBACK, so millions of sample rows cost one journal sync and an
 * interrupted run leaves nothing behind. Nothing here prints or aborts: every
 * SQLite failure comes back as SLABSIM_EIO naming the database path.
 *
 * The per-sample rows go to SQLite on a writer thread while the run is open
 * (see "The writer" below): a replay leaves a core idle once the trace is
 * parsed, and the INSERTs cost as much as a fifth of the model's work.
 */
#include "rec.h"

#include <assert.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#ifndef SLABSIM_VERSION
#define SLABSIM_VERSION "unknown"
#endif

/* PRAGMA application_id: "slab" in ASCII. Marks a file as ours, so that
 * rec_open() never adds tables to somebody else's database. */
#define REC_APPLICATION_ID 0x736c6162

/* Readers (the sqlite3 shell, plot scripts) hold short shared locks; wait for
 * them rather than fail. A run holds the write lock for its whole replay, so
 * no timeout lets two replays share one file: parallel sweeps write one
 * database each and merge them afterwards (docs/schema.md). */
#define REC_BUSY_TIMEOUT_MS 5000

/*
 * Version 1 schema. Every child table is keyed by run_id first, so deleting a
 * run (ON DELETE CASCADE) and joining by run are index lookups. Tables with a
 * composite key and small rows are WITHOUT ROWID: the key is stored once,
 * as the clustered b-tree key, instead of once in a rowid table and again in
 * its primary-key index. STRICT tables would need SQLite 3.37 to open and
 * results files travel, so column types are declared but not enforced.
 * AUTOINCREMENT keeps the run_id of a deleted run from being handed out again
 * (notes and plots cite run ids); a rolled-back run's id is reused since
 * nothing can cite it.
 */
static const char schema_v1_sql[] =
	"CREATE TABLE IF NOT EXISTS runs ("
	" run_id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" created_utc TEXT NOT NULL,"
	" finished_utc TEXT,"
	" status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done')),"
	" version TEXT NOT NULL,"
	" command TEXT NOT NULL,"
	" trace_path TEXT,"
	" allocator TEXT NOT NULL,"
	" kernel TEXT,"
	" align TEXT,"
	" slub_debug TEXT,"
	" nr_cpus INTEGER NOT NULL,"
	" slub_min_order INTEGER NOT NULL,"
	" slub_max_order INTEGER NOT NULL,"
	" slub_min_objects INTEGER NOT NULL,"
	" sample_every TEXT,"
	" config_json TEXT,"
	" config_hash TEXT NOT NULL,"
	" events INTEGER,"
	" t_first_ns INTEGER,"
	" t_last_ns INTEGER,"
	" final_slab_pages INTEGER,"
	" peak_slab_pages INTEGER,"
	" peak_slab_pages_t_ns INTEGER,"
	" final_large_pages INTEGER,"
	" final_live_objs INTEGER,"
	" final_live_req_bytes INTEGER,"
	" align_violations INTEGER,"
	" wall_seconds REAL"
	");"
	"CREATE INDEX IF NOT EXISTS runs_by_config ON runs (config_hash);"
	"CREATE TABLE IF NOT EXISTS counts ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" tbl TEXT NOT NULL,"
	" kind TEXT NOT NULL,"
	" count INTEGER NOT NULL,"
	" first_line INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, tbl, kind)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS caches ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" cache TEXT NOT NULL,"
	" alias_of TEXT,"
	" kmalloc INTEGER NOT NULL CHECK (kmalloc IN (0, 1)),"
	" object_size INTEGER NOT NULL,"
	" slab_size INTEGER NOT NULL,"
	" align INTEGER NOT NULL,"
	" slab_order INTEGER NOT NULL,"
	" objs_per_slab INTEGER NOT NULL,"
	" allocs INTEGER NOT NULL,"
	" frees INTEGER NOT NULL,"
	" live_objs INTEGER NOT NULL,"
	" live_req_bytes INTEGER NOT NULL,"
	" slabs INTEGER NOT NULL,"
	" pages INTEGER NOT NULL,"
	" peak_pages INTEGER NOT NULL,"
	" peak_pages_t_ns INTEGER NOT NULL,"
	" peak_live_objs INTEGER NOT NULL,"
	" waste_rounding INTEGER NOT NULL,"
	" waste_layout INTEGER NOT NULL,"
	" waste_free_slots INTEGER NOT NULL,"
	" waste_tail INTEGER NOT NULL,"
	" align_violations INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, cache)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS sites ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" call_site TEXT NOT NULL,"
	" allocs INTEGER NOT NULL,"
	" frees INTEGER NOT NULL,"
	" bytes_req INTEGER NOT NULL,"
	" bytes_alloc INTEGER NOT NULL,"
	" bytes_alloc_trace INTEGER NOT NULL,"
	" live_objs INTEGER NOT NULL,"
	" live_req_bytes INTEGER NOT NULL,"
	" align_violations INTEGER NOT NULL,"
	" pingpong INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, call_site)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS violations ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" cache TEXT NOT NULL,"
	" call_site TEXT NOT NULL,"
	" size INTEGER NOT NULL,"
	" count INTEGER NOT NULL,"
	" example_addr INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, cache, call_site, size)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS samples ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL,"
	" t_ns INTEGER NOT NULL,"
	" event_idx INTEGER NOT NULL,"
	" label TEXT,"
	" slab_pages INTEGER NOT NULL,"
	" large_pages INTEGER NOT NULL,"
	" live_objs INTEGER NOT NULL,"
	" live_req_bytes INTEGER NOT NULL,"
	" waste_rounding INTEGER NOT NULL,"
	" waste_layout INTEGER NOT NULL,"
	" waste_free_slots INTEGER NOT NULL,"
	" waste_tail INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, seq)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS sample_caches ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL,"
	" cache TEXT NOT NULL,"
	" slabs INTEGER NOT NULL,"
	" pages INTEGER NOT NULL,"
	" live_objs INTEGER NOT NULL,"
	" live_req_bytes INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, seq, cache)"
	") WITHOUT ROWID;";

/*
 * Version 2 adds the tables of docs/metrics.md (the figures of perf kmem
 * stat, tools/mm/slabinfo, Johnstone & Wilson and the unusable free space
 * index). Additive: a version 1 file is upgraded by creating them.
 */
static const char schema_v2_sql[] =
	"CREATE TABLE IF NOT EXISTS run_metrics ("
	" run_id INTEGER NOT NULL PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,"
	" perf_allocs INTEGER NOT NULL,"
	" perf_frees INTEGER NOT NULL,"
	" perf_bytes_req INTEGER NOT NULL,"
	" perf_bytes_alloc INTEGER NOT NULL,"
	" perf_bytes_alloc_model INTEGER NOT NULL,"
	" perf_bytes_freed INTEGER NOT NULL,"
	" perf_frag_pct REAL NOT NULL,"
	" perf_cross_node INTEGER NOT NULL,"
	" perf_pingpong INTEGER NOT NULL,"
	" si_caches INTEGER NOT NULL,"
	" si_active INTEGER NOT NULL,"
	" si_space INTEGER NOT NULL,"
	" si_used INTEGER NOT NULL,"
	" si_loss INTEGER NOT NULL,"
	" si_objects INTEGER NOT NULL,"
	" si_partobj INTEGER NOT NULL,"
	" si_slabs INTEGER NOT NULL,"
	" si_partial INTEGER NOT NULL,"
	" si_mratio INTEGER NOT NULL,"
	" si_oratio INTEGER NOT NULL,"
	" jw_heap_peak INTEGER NOT NULL,"
	" jw_heap_peak_t_ns INTEGER NOT NULL,"
	" jw_live_peak INTEGER NOT NULL,"
	" jw_live_peak_t_ns INTEGER NOT NULL,"
	" jw1 REAL, jw2 REAL, jw3 REAL, jw4 REAL,"
	" mem_mib INTEGER NOT NULL,"
	" free_pages INTEGER"
	");"
	"CREATE TABLE IF NOT EXISTS perf_callers ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" call_site TEXT NOT NULL,"
	" hit INTEGER NOT NULL,"
	" bytes_req INTEGER NOT NULL,"
	" bytes_alloc INTEGER NOT NULL,"
	" pingpong INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, call_site)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS perf_ptrs ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" ptr INTEGER NOT NULL,"
	" call_site TEXT NOT NULL,"
	" hit INTEGER NOT NULL,"
	" bytes_req INTEGER NOT NULL,"
	" bytes_alloc INTEGER NOT NULL,"
	" pingpong INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, ptr)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS sample_metrics ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL,"
	" heap_bytes INTEGER NOT NULL,"
	" si_space INTEGER NOT NULL,"
	" si_used INTEGER NOT NULL,"
	" si_objects INTEGER NOT NULL,"
	" si_partobj INTEGER NOT NULL,"
	" si_slabs INTEGER NOT NULL,"
	" si_partial INTEGER NOT NULL,"
	" free_pages INTEGER,"
	" PRIMARY KEY (run_id, seq)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS sample_orders ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL,"
	" page_order INTEGER NOT NULL,"
	" held_blocks INTEGER NOT NULL,"
	" free_blocks INTEGER NOT NULL,"
	" unusable_permille INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, seq, page_order)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS sample_slabinfo ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL,"
	" cache TEXT NOT NULL,"
	" slabs INTEGER NOT NULL,"
	" partial INTEGER NOT NULL,"
	" objects INTEGER NOT NULL,"
	" objects_partial INTEGER NOT NULL,"
	" space INTEGER NOT NULL,"
	" used INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, seq, cache)"
	") WITHOUT ROWID;";

/*
 * Version 3 turns the per-key time series (sample_caches, sample_slabinfo,
 * sample_orders) into change logs: a key's row is written only at the
 * samples where its values differ from its previous row in the run (see
 * log_row()): on the benchmark trace a quarter of the rows version 2
 * wrote. The value of a key at sample seq is its latest row with seq' <=
 * seq; before its first row it is all zeros. A cache that comes to hold
 * nothing gets one row of zeros, and in the cache tables rows of zeros are
 * not part of the series (the old writers left such caches out); every
 * order is (sample_orders starts with all 11). The *_full views give the
 * series every earlier version stored: one row per sample and key. They use
 * window functions (SQLite 3.25 or later). A row's interval is
 * [seq, next seq), with INT64_MAX for the last row rather than NULL, so
 * that both ends bound the search of samples' primary key (with an OR the
 * search ran to the end of the run for every row: ten times slower).
 */
#define REC_SEQ_END "9223372036854775807"
/* Version 5: what an alignment policy costs, by (run, cache, call site)
 * (sink.h struct sink_align_cost). cache '' is the page allocator; need is
 * the sites file's rule ('natural', the bytes as text) or NULL when the
 * site is not listed. Version 4 files get the table, empty, on opening. */
static const char schema_v5_sql[] =
	"CREATE TABLE IF NOT EXISTS align_cost ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" cache TEXT NOT NULL,"
	" call_site TEXT NOT NULL,"
	" need TEXT,"
	" allocs INTEGER NOT NULL,"
	" violations INTEGER NOT NULL,"
	" bytes_alloc INTEGER NOT NULL,"
	" bytes_alloc_none INTEGER NOT NULL,"
	" redzone_shift_bytes INTEGER NOT NULL,"
	" fragment_bytes INTEGER NOT NULL,"
	" live_growth_bytes INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, cache, call_site)"
	") WITHOUT ROWID;";

/* Version 6: the sheaves of SLUB 6.18+ (policies/sheaves.h). Objects
 * parked in per-CPU sheaves and barns are allocated in their slabs but free
 * for the kernel: sample_sheaves holds their number at every sample of a
 * run in which some root cache has sheaves (no rows otherwise), and
 * cache_sheaves each such root cache's capacity and objects parked at the
 * end. New tables rather than columns of samples and caches, so that runs
 * without sheaves are stored byte for byte as by version 5. Version 5
 * files get them, empty, on opening. */
static const char schema_v6_sql[] =
	"CREATE TABLE IF NOT EXISTS sample_sheaves ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL,"
	" parked_objs INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, seq)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS cache_sheaves ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" cache TEXT NOT NULL,"
	" sheaf_capacity INTEGER NOT NULL,"
	" parked_objs INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, cache)"
	") WITHOUT ROWID;";

static const char schema_v3_sql[] =
	"CREATE VIEW IF NOT EXISTS sample_caches_full AS"
	" SELECT c.run_id AS run_id, s.seq AS seq, c.cache AS cache, c.slabs AS slabs,"
	" c.pages AS pages, c.live_objs AS live_objs, c.live_req_bytes AS live_req_bytes"
	" FROM (SELECT *, lead(seq, 1, " REC_SEQ_END ")"
	" OVER (PARTITION BY run_id, cache ORDER BY seq) AS until"
	" FROM sample_caches) c"
	" JOIN samples s ON s.run_id = c.run_id AND s.seq >= c.seq"
	" AND s.seq < c.until"
	" WHERE c.slabs <> 0 OR c.pages <> 0 OR c.live_objs <> 0 OR c.live_req_bytes <> 0;"
	"CREATE VIEW IF NOT EXISTS sample_slabinfo_full AS"
	" SELECT c.run_id AS run_id, s.seq AS seq, c.cache AS cache, c.slabs AS slabs,"
	" c.partial AS partial, c.objects AS objects, c.objects_partial AS objects_partial,"
	" c.space AS space, c.used AS used"
	" FROM (SELECT *, lead(seq, 1, " REC_SEQ_END ")"
	" OVER (PARTITION BY run_id, cache ORDER BY seq) AS until"
	" FROM sample_slabinfo) c"
	" JOIN samples s ON s.run_id = c.run_id AND s.seq >= c.seq"
	" AND s.seq < c.until"
	" WHERE c.slabs <> 0 OR c.partial <> 0 OR c.objects <> 0 OR c.objects_partial <> 0"
	" OR c.space <> 0 OR c.used <> 0;"
	"CREATE VIEW IF NOT EXISTS sample_orders_full AS"
	" SELECT c.run_id AS run_id, s.seq AS seq, c.page_order AS page_order,"
	" c.held_blocks AS held_blocks, c.free_blocks AS free_blocks,"
	" c.unusable_permille AS unusable_permille"
	" FROM (SELECT *, lead(seq, 1, " REC_SEQ_END ")"
	" OVER (PARTITION BY run_id, page_order ORDER BY seq)"
	" AS until FROM sample_orders) c"
	" JOIN samples s ON s.run_id = c.run_id AND s.seq >= c.seq"
	" AND s.seq < c.until;";

/*
 * Version 1 and 2 files hold a row for every sample and every cache that
 * held something, and no row once a cache held nothing. Read as a change log
 * such a cache would keep its last figures, so the upgrade adds the row of
 * zeros at the first sample without a row after one with a row. The rows
 * already there stay: a row equal to the previous one is a valid (redundant)
 * change log entry. sample_orders needs nothing: those versions wrote all 11
 * orders at every sample.
 */
static const char upgrade_v3_sql[] =
	"INSERT INTO sample_caches (run_id, seq, cache, slabs, pages, live_objs, live_req_bytes)"
	" SELECT run_id, next, cache, 0, 0, 0, 0 FROM"
	" (SELECT c.run_id, c.cache, (SELECT min(n.seq) FROM samples n"
	" WHERE n.run_id = c.run_id AND n.seq > c.seq) AS next FROM sample_caches c) x"
	" WHERE next IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sample_caches d"
	" WHERE d.run_id = x.run_id AND d.seq = x.next AND d.cache = x.cache);"
	"INSERT INTO sample_slabinfo (run_id, seq, cache, slabs, partial, objects,"
	" objects_partial, space, used)"
	" SELECT run_id, next, cache, 0, 0, 0, 0, 0, 0 FROM"
	" (SELECT c.run_id, c.cache, (SELECT min(n.seq) FROM samples n"
	" WHERE n.run_id = c.run_id AND n.seq > c.seq) AS next FROM sample_slabinfo c) x"
	" WHERE next IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sample_slabinfo d"
	" WHERE d.run_id = x.run_id AND d.seq = x.next AND d.cache = x.cache);";

/*
 * Version 3 -> 4: the input's identity, four columns at the end of runs
 * (added by ALTER TABLE to new files too, so every file has the same column
 * order). Runs of older files get their trace_path as label; their hash and
 * what was detected are unknown (NULL): the files may no longer be there.
 */
static const char *const upgrade_v4_cols[][2] = {
	{"trace_label", "TEXT"},
	{"trace_hash", "TEXT"},
	{"trace_kernel", "TEXT"},
	{"trace_nr_cpus", "INTEGER"},
};

#define REC_NOW_UTC "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

enum stmt_id {
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_RUN_INSERT,
	ST_RUN_FINISH,
	ST_COUNT,
	ST_CACHE,
	ST_SITE,
	ST_VIOLATION,
	ST_ALIGN_COST,
	ST_SAMPLE,
	ST_SAMPLE_CACHE,
	ST_RUN_METRICS,
	ST_PERF_CALLER,
	ST_PERF_PTR,
	ST_SAMPLE_METRICS,
	ST_SAMPLE_ORDER,
	ST_SAMPLE_SLABINFO,
	ST_SAMPLE_SHEAVES,
	ST_CACHE_SHEAVES,
	NR_STMT,
};

/* Parameters are positional: the bind_* calls in each writer follow these
 * column lists exactly, and row_step() asserts the count. */
static const char *const stmt_sql[NR_STMT] = {
	/* IMMEDIATE takes the write lock now, so a busy database fails at
	 * rec_run_begin() rather than at the first row of a long replay. */
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_RUN_INSERT] = "INSERT INTO runs (created_utc, status, version, command, trace_path,"
			  " allocator, kernel, align, slub_debug, nr_cpus, slub_min_order,"
			  " slub_max_order, slub_min_objects, sample_every, config_json,"
			  " config_hash, trace_label, trace_hash, trace_kernel, trace_nr_cpus)"
			  " VALUES (" REC_NOW_UTC ", 'running', ?, ?, ?, ?, ?, ?,"
			  " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_RUN_FINISH] = "UPDATE runs SET finished_utc = " REC_NOW_UTC ", status = 'done',"
			  " events = ?, t_first_ns = ?, t_last_ns = ?, final_slab_pages = ?,"
			  " peak_slab_pages = ?, peak_slab_pages_t_ns = ?, final_large_pages = ?,"
			  " final_live_objs = ?, final_live_req_bytes = ?, align_violations = ?,"
			  " wall_seconds = ? WHERE run_id = ?",
	[ST_COUNT] = "INSERT INTO counts (run_id, tbl, kind, count, first_line)"
		     " VALUES (?, ?, ?, ?, ?)",
	[ST_CACHE] =
		"INSERT INTO caches (run_id, cache, alias_of, kmalloc, object_size, slab_size,"
		" align, slab_order, objs_per_slab, allocs, frees, live_objs, live_req_bytes,"
		" slabs, pages, peak_pages, peak_pages_t_ns, peak_live_objs, waste_rounding,"
		" waste_layout, waste_free_slots, waste_tail, align_violations)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_SITE] = "INSERT INTO sites (run_id, call_site, allocs, frees, bytes_req, bytes_alloc,"
		    " bytes_alloc_trace, live_objs, live_req_bytes, align_violations, pingpong)"
		    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_VIOLATION] = "INSERT INTO violations (run_id, cache, call_site, size, count,"
			 " example_addr) VALUES (?, ?, ?, ?, ?, ?)",
	[ST_ALIGN_COST] = "INSERT INTO align_cost (run_id, cache, call_site, need, allocs,"
			  " violations, bytes_alloc, bytes_alloc_none, redzone_shift_bytes,"
			  " fragment_bytes, live_growth_bytes)"
			  " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_SAMPLE] = "INSERT INTO samples (run_id, seq, t_ns, event_idx, label, slab_pages,"
		      " large_pages, live_objs, live_req_bytes, waste_rounding, waste_layout,"
		      " waste_free_slots, waste_tail)"
		      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_SAMPLE_CACHE] = "INSERT INTO sample_caches (run_id, seq, cache, slabs, pages,"
			    " live_objs, live_req_bytes) VALUES (?, ?, ?, ?, ?, ?, ?)",
	[ST_RUN_METRICS] =
		"INSERT INTO run_metrics (run_id, perf_allocs, perf_frees, perf_bytes_req,"
		" perf_bytes_alloc, perf_bytes_alloc_model, perf_bytes_freed, perf_frag_pct,"
		" perf_cross_node, perf_pingpong, si_caches, si_active, si_space, si_used, si_loss,"
		" si_objects, si_partobj, si_slabs, si_partial, si_mratio, si_oratio, jw_heap_peak,"
		" jw_heap_peak_t_ns, jw_live_peak, jw_live_peak_t_ns, jw1, jw2, jw3, jw4, mem_mib,"
		" free_pages) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		"?,"
		" ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_PERF_CALLER] = "INSERT INTO perf_callers (run_id, call_site, hit, bytes_req,"
			   " bytes_alloc, pingpong) VALUES (?, ?, ?, ?, ?, ?)",
	[ST_PERF_PTR] = "INSERT INTO perf_ptrs (run_id, ptr, call_site, hit, bytes_req,"
			" bytes_alloc, pingpong) VALUES (?, ?, ?, ?, ?, ?, ?)",
	[ST_SAMPLE_METRICS] = "INSERT INTO sample_metrics (run_id, seq, heap_bytes, si_space,"
			      " si_used, si_objects, si_partobj, si_slabs, si_partial, free_pages)"
			      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_SAMPLE_ORDER] = "INSERT INTO sample_orders (run_id, seq, page_order, held_blocks,"
			    " free_blocks, unusable_permille) VALUES (?, ?, ?, ?, ?, ?)",
	[ST_SAMPLE_SLABINFO] = "INSERT INTO sample_slabinfo (run_id, seq, cache, slabs, partial,"
			       " objects, objects_partial, space, used)"
			       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_SAMPLE_SHEAVES] = "INSERT INTO sample_sheaves (run_id, seq, parked_objs)"
			      " VALUES (?, ?, ?)",
	[ST_CACHE_SHEAVES] = "INSERT INTO cache_sheaves (run_id, cache, sheaf_capacity,"
			     " parked_objs) VALUES (?, ?, ?, ?)",
};

enum rec_state {
	REC_IDLE,     /* no transaction */
	REC_RUN_OPEN, /* inside the run's transaction */
	REC_RUN_LOST, /* SQLite rolled the run back after an error; awaiting rec_run_end() */
};

/*
 * Rows of the per-sample tables are buffered and sent by multi-row INSERTs
 * of REC_BATCH_ROWS rows, so that the work of a statement execution (start,
 * cursors, halt, reset: about 2,800 instructions, more than the b-tree
 * insert) is paid per batch, not per row; 16 or 64 rows measured no better.
 * Only that statement and the single-row one are used: preparing an INSERT
 * of 32 rows costs about 250,000 instructions, so the rows left over at the
 * end of a run go out one by one rather than through INSERTs of 16, 8, ...
 * rows each prepared for the purpose. Rows keyed (run_id, seq, name) are
 * sent whole samples at a time, sorted by name, so that each insert lands
 * after the previous one at the end of the table (the b-tree search for its
 * place then costs a third); the sorted rows beyond a multiple of
 * REC_BATCH_ROWS wait for the next samples' rows. Their names are the change
 * log's copies (struct keylog), which live as long as the run; other
 * borrowed strings are copied into the batch. The rows go out before the
 * run commits; a failed batch is reported by the call that sent it
 * (docs/schema.md, "Transactions").
 *
 * The writer thread gets REC_JOB_ROWS rows at a time (several INSERTs): a
 * job of one INSERT cost a malloc, a free and a lock on each side of the
 * queue per 32 rows, and the two threads met on the lock often enough to
 * make futex calls a third of the system calls of a recorded replay.
 */
#define REC_BATCH_ROWS 32
#define REC_JOB_ROWS   (8 * REC_BATCH_ROWS)

enum cell_kind { CELL_INT, CELL_TEXT, CELL_KEY, CELL_NULL };

struct cell {
	int64_t v;     /* the integer, or a CELL_TEXT's offset in batch.text */
	const char *s; /* a CELL_KEY: a change log's copy of the name */
	enum cell_kind kind;
};

struct batch {
	sqlite3_stmt *multi; /* the INSERT of REC_BATCH_ROWS rows, prepared on first use */
	sqlite3_stmt *one;   /* the single-row INSERT, owned by struct rec */
	const char *table;   /* for messages */
	int ncols;
	bool by_name;		    /* key (run_id, seq, name): sent sorted, whole samples */
	int nrows, cap;		    /* rows buffered, rows of room */
	struct cell *cells, *spare; /* cap rows of ncols; spare: room to reorder them */
	int *order, *order2;	    /* the sort's permutation and its scratch */
	char *text;		    /* NUL-terminated copies of the rows' strings */
	size_t text_len, text_cap;
};

/*
 * The change logs of the per-key tables (schema version 3): for each key (a
 * cache name, or a page order) the values of its last row in the open run,
 * so that a row equal to them is not written. An open-addressing hash table;
 * there are a few dozen keys.
 */
#define LOG_MAXV 6 /* value columns of the widest logged table (sample_slabinfo) */
#define LOG_NONE SIZE_MAX

struct log_ent {
	char *name;   /* owned copy of a text key; NULL for an integer key */
	int64_t ikey; /* an integer key */
	uint64_t hash;
	int64_t seq; /* the key's last row's seq */
	int64_t v[LOG_MAXV];
	size_t next; /* slot of the key that followed this one last time, or LOG_NONE */
	bool used;
};

struct keylog {
	struct log_ent *ent;
	size_t cap, n; /* cap is 0 or a power of two */
	/* Writers pass the keys in the same order at every sample, so the
	 * key after the last one is tried before hashing the name. */
	size_t last; /* slot of the last key passed, or LOG_NONE */
	/* a key's first row is written even if it is all zeros (sample_orders:
	 * earlier versions wrote every order, so its rows of zeros are data) */
	bool write_first;
};

enum log_id { LOG_CACHES, LOG_SLABINFO, LOG_ORDERS, NR_LOG };

/*
 * The writer: batch_flush hands a table's rows, copied in insert order, to a
 * thread that binds and steps them, started by a run's first full batch and
 * joined when the run ends. The connection is only ever used by one thread
 * at a time: the caller's thread waits for the queue to drain (wr_sync)
 * wherever it touches the connection: bind_start of a row that is not
 * batched, step_done, exec_sql, query_int and batch_flush_all. A failure is kept and reported by
 * the next per-sample call or by rec_run_end, which then rolls the run back
 * (docs/schema.md, "Transactions"); rows queued after it are dropped. Without
 * a thread (pthread_create failed) the rows go out on the caller's thread.
 */
#define WR_MAX_JOBS 64 /* queued batches before the caller waits: memory stays small */
/* queued batches that wake a writer waiting for work (or a sync, the stop):
 * a wake-up per batch costs two context switches, more than its rows */
#define WR_WAKE_JOBS 16

struct job {
	struct job *next;
	enum stmt_id id;
	int rows;
	struct cell *cells; /* rows x the table's columns, in insert order */
	char *text;	    /* the CELL_TEXT strings */
};

struct writer {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* jobs queued, a job done, stop: broadcast */
	struct job *head, *tail;
	int njobs;
	bool running, busy, stop;
	int code;  /* the run's first failure (SLABSIM_*), 0: none */
	bool told; /* it was reported */
	bool lost; /* SQLite rolled the transaction back with it */
	struct err err;
};

struct rec {
	sqlite3 *db;
	char *path; /* owned copy, for messages */
	struct writer w;
	sqlite3_stmt *stmt[NR_STMT];
	struct batch *batch[NR_STMT]; /* NULL: the table's rows go out one by one */
	struct keylog log[NR_LOG];
	enum rec_state state;
	int64_t run_id; /* valid unless REC_IDLE */
};

/* The tables written once or more per sample. */
static const char *const batch_table[NR_STMT] = {
	[ST_SAMPLE] = "samples",
	[ST_SAMPLE_CACHE] = "sample_caches",
	[ST_SAMPLE_METRICS] = "sample_metrics",
	[ST_SAMPLE_ORDER] = "sample_orders",
	[ST_SAMPLE_SLABINFO] = "sample_slabinfo",
	[ST_SAMPLE_SHEAVES] = "sample_sheaves",
};

static void wr_sync(struct rec *r);

/* Fill e from the connection's last error. SQLITE_NOTADB (raised by the first
 * statement that reads the file) gets its own wording: it means the user
 * pointed us at the wrong file, not that SQLite failed. */
static int db_error(const struct rec *r, int rc, const char *what, struct err *e)
{
	const char *msg = r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc);

	if ((rc & 0xff) == SQLITE_NOTADB)
		return err_at(e, SLABSIM_EIO, r->path, 0, "not a slabsim/SQLite database (%s)",
			      msg);
	return err_at(e, SLABSIM_EIO, r->path, 0, "%s: %s", what, msg);
}

/* Run one or more statements that return no rows we need. */
static int exec_sql(struct rec *r, const char *sql, const char *what, struct err *e)
{
	wr_sync(r);
	int rc = sqlite3_exec(r->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_error(r, rc, what, e);
}

/* Read a single integer, e.g. a PRAGMA value or a count. */
static int query_int(struct rec *r, const char *sql, int64_t *out, struct err *e)
{
	wr_sync(r);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL);

	*out = 0;
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			*out = sqlite3_column_int64(st, 0);
			rc = SQLITE_OK;
		} else if (rc == SQLITE_DONE) {
			rc = SQLITE_OK;
		}
	}
	if (rc != SQLITE_OK) {
		int ret = db_error(r, rc, "cannot read the database", e);
		sqlite3_finalize(st);
		return ret;
	}
	sqlite3_finalize(st);
	return 0;
}

/* Add the columns of version 4 that runs lacks (a file may have been
 * written by version 4 and had its user_version lowered), then give old
 * runs their path as label. */
static int upgrade_v4(struct rec *r, struct err *e)
{
	int ret = 0;
	for (size_t i = 0; !ret && i < sizeof(upgrade_v4_cols) / sizeof(upgrade_v4_cols[0]); i++) {
		char sql[200];
		int64_t have = 0;
		(void)snprintf(sql, sizeof(sql),
			       "SELECT count(*) FROM pragma_table_info('runs') WHERE name = '%s'",
			       upgrade_v4_cols[i][0]);
		ret = query_int(r, sql, &have, e);
		if (ret || have)
			continue;
		(void)snprintf(sql, sizeof(sql), "ALTER TABLE runs ADD COLUMN %s %s",
			       upgrade_v4_cols[i][0], upgrade_v4_cols[i][1]);
		ret = exec_sql(r, sql, "cannot upgrade the schema to version 4", e);
	}
	if (!ret)
		ret = exec_sql(r,
			       "UPDATE runs SET trace_label = trace_path WHERE trace_label IS NULL",
			       "cannot upgrade the schema to version 4", e);
	return ret;
}

/* Create or check the schema inside one write transaction, so two processes
 * opening a new file at once cannot both create it. */
static int setup_schema(struct rec *r, struct err *e)
{
	int64_t app_id = 0, version = 0, nr_objects = 0;
	char pragmas[128];
	int ret;

	ret = exec_sql(r, "BEGIN IMMEDIATE", "cannot lock the database", e);
	if (ret)
		return ret;
	ret = query_int(r, "PRAGMA application_id", &app_id, e);
	if (!ret)
		ret = query_int(r, "PRAGMA user_version", &version, e);
	if (!ret)
		ret = query_int(r, "SELECT count(*) FROM sqlite_master", &nr_objects, e);
	if (ret)
		goto rollback;

	if (app_id != REC_APPLICATION_ID && (app_id != 0 || nr_objects != 0)) {
		ret = err_at(e, SLABSIM_EIO, r->path, 0,
			     "a SQLite database, but not a slabsim results database "
			     "(application_id %#" PRIx64 ", %" PRId64 " schema objects)",
			     (uint64_t)app_id, nr_objects);
		goto rollback;
	}
	if (version > REC_SCHEMA_VERSION) {
		ret = err_at(e, SLABSIM_EIO, r->path, 0,
			     "schema version %" PRId64 " is newer than this slabsim's (%d)",
			     version, REC_SCHEMA_VERSION);
		goto rollback;
	}
	/* Version 1 is the first schema. A later version bumps
	 * REC_SCHEMA_VERSION and upgrades from `version` here, step by step,
	 * before the CREATE ... IF NOT EXISTS of the current tables. */
	ret = exec_sql(r, schema_v1_sql, "cannot create the schema", e);
	if (!ret) /* version 1 -> 2: new tables only */
		ret = exec_sql(r, schema_v2_sql, "cannot create the schema", e);
	if (!ret && app_id == REC_APPLICATION_ID && version >= 1 && version < 3)
		ret = exec_sql(r, upgrade_v3_sql, "cannot upgrade the schema to version 3", e);
	if (!ret) /* version 2 -> 3: views; the tables become change logs */
		ret = exec_sql(r, schema_v3_sql, "cannot create the schema", e);
	if (!ret && version < 4) /* version 3 -> 4 (and new files): the trace's identity */
		ret = upgrade_v4(r, e);
	if (!ret) /* version 4 -> 5: a new table only */
		ret = exec_sql(r, schema_v5_sql, "cannot upgrade the schema to version 5", e);
	if (!ret) /* version 5 -> 6: new tables only */
		ret = exec_sql(r, schema_v6_sql, "cannot upgrade the schema to version 6", e);
	if (ret)
		goto rollback;
	/* Leave an up-to-date file unmodified: opening must not change the
	 * bytes (or need a writable directory for the journal). */
	if (app_id == REC_APPLICATION_ID && version == REC_SCHEMA_VERSION)
		return exec_sql(r, "COMMIT", "cannot commit the schema", e);
	(void)snprintf(pragmas, sizeof(pragmas),
		       "PRAGMA application_id = %d; PRAGMA user_version = %d", REC_APPLICATION_ID,
		       REC_SCHEMA_VERSION);
	ret = exec_sql(r, pragmas, "cannot record the schema version", e);
	if (ret)
		goto rollback;
	return exec_sql(r, "COMMIT", "cannot commit the schema", e);

rollback:
	(void)sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

/* Set up the batch of a table. Returns an SQLite result code. */
static int batch_new(struct rec *r, enum stmt_id id)
{
	struct batch *bt = calloc(1, sizeof(*bt));

	if (!bt)
		return SQLITE_NOMEM;
	r->batch[id] = bt;
	bt->table = batch_table[id];
	bt->one = r->stmt[id];
	bt->ncols = sqlite3_bind_parameter_count(r->stmt[id]);
	bt->by_name = id == ST_SAMPLE_CACHE || id == ST_SAMPLE_SLABINFO;
	bt->cap = REC_JOB_ROWS;
	bt->cells = calloc((size_t)bt->cap * (size_t)bt->ncols, sizeof(*bt->cells));
	bt->spare = calloc((size_t)bt->cap * (size_t)bt->ncols, sizeof(*bt->spare));
	bt->order = calloc((size_t)bt->cap, sizeof(*bt->order));
	bt->order2 = calloc((size_t)bt->cap, sizeof(*bt->order2));
	return bt->cells && bt->spare && bt->order && bt->order2 ? SQLITE_OK : SQLITE_NOMEM;
}

/* The table's INSERT of REC_BATCH_ROWS rows: its single-row INSERT with the
 * VALUES tuple repeated. Returns an SQLite result code. */
static int batch_multi(struct rec *r, enum stmt_id id)
{
	struct batch *bt = r->batch[id];
	const char *sql = stmt_sql[id];
	const char *tuple = strstr(sql, " VALUES (");
	size_t head, tlen, n = REC_BATCH_ROWS;
	char *multi;
	int rc;

	if (bt->multi)
		return SQLITE_OK;
	assert(tuple);
	tuple += strlen(" VALUES ");
	assert(!strncmp(tuple, "(?, ", 4)); /* the run_id first */
	head = (size_t)(tuple - sql);
	tlen = strlen(tuple);
	multi = malloc(head + (tlen + 3) * n + 1);
	if (!multi)
		return SQLITE_NOMEM;
	memcpy(multi, sql, head);
	for (size_t i = 0, at = head; i < n; i++) {
		if (i) { /* every row's run_id is the first row's: "(?1, ?, ..." */
			memcpy(multi + at, ", (?1", 5);
			at += 5;
			memcpy(multi + at, tuple + 2, tlen - 1);
			at += tlen - 2;
		} else {
			memcpy(multi + at, tuple, tlen + 1);
			at += tlen;
		}
	}
	rc = sqlite3_prepare_v3(r->db, multi, -1, SQLITE_PREPARE_PERSISTENT, &bt->multi, NULL);
	free(multi);
	return rc;
}

int rec_open(const char *path, struct rec **out, struct err *e)
{
	struct rec *r;
	int64_t nr_objects;
	int rc, ret;

	*out = NULL;
	if (!path || !*path)
		return err_set(e, SLABSIM_EUSAGE, "rec_open: no database path given");
	r = calloc(1, sizeof(*r));
	if (!r)
		return err_set(e, SLABSIM_ENOMEM, "%s: out of memory", path);
	r->path = strdup(path);
	if (!r->path) {
		free(r);
		return err_set(e, SLABSIM_ENOMEM, "%s: out of memory", path);
	}
	(void)pthread_mutex_init(&r->w.mu, NULL);
	(void)pthread_cond_init(&r->w.cv, NULL);

	/* NOMUTEX: a struct rec is used by one thread at a time (rec.h), so
	 * the per-call connection mutex is pure overhead on millions of rows. */
	rc = sqlite3_open_v2(path, &r->db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			     NULL);
	if (rc != SQLITE_OK) {
		ret = db_error(r, rc, "cannot open database", e);
		goto fail;
	}
	(void)sqlite3_busy_timeout(r->db, REC_BUSY_TIMEOUT_MS);

	/* The first statement that reads the file: a text file or anything
	 * else that is not SQLite fails here with SQLITE_NOTADB. */
	ret = query_int(r, "SELECT count(*) FROM sqlite_master", &nr_objects, e);
	if (ret)
		goto fail;
	/* SQLite silently opens a write-protected file read-only; say so now
	 * rather than fail at the first run's BEGIN. */
	if (sqlite3_db_readonly(r->db, "main") == 1) {
		ret = err_at(e, SLABSIM_EIO, r->path, 0,
			     "database is read-only (check the file's permissions)");
		goto fail;
	}

	/*
	 * Rollback journal (DELETE), not WAL: results files are copied, mailed
	 * and merged. A WAL database keeps committed data in a -wal file until
	 * a checkpoint, so copying only the .db can lose runs; with DELETE the
	 * .db is complete whenever no run is open. WAL's concurrent readers
	 * buy little here, since a run is a single writer and transaction.
	 * This also turns a copied WAL database back into a one-file one.
	 *
	 * The default page cache (2 MiB) is kept on purpose: rows arrive in
	 * key order, so dirty pages spill to the file cheaply (new pages need
	 * no journal), and 16 or 64 MiB measured no faster on a million
	 * sample rows.
	 */
	ret = exec_sql(r, "PRAGMA journal_mode = DELETE; PRAGMA foreign_keys = ON",
		       "cannot configure the connection", e);
	if (ret)
		goto fail;
	ret = setup_schema(r, e);
	if (ret)
		goto fail;

	for (int i = 0; i < NR_STMT; i++) {
		rc = sqlite3_prepare_v3(r->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					&r->stmt[i], NULL);
		if (rc == SQLITE_OK && batch_table[i])
			rc = batch_new(r, (enum stmt_id)i);
		if (rc != SQLITE_OK) {
			ret = db_error(r, rc, "cannot prepare statement", e);
			goto fail;
		}
	}
	r->log[LOG_ORDERS].write_first = true;
	*out = r;
	return 0;

fail:
	rec_close(r);
	return ret;
}

/* Step a statement that returns no row, then make it reusable. Bindings are
 * cleared so no borrowed string (bound SQLITE_STATIC) outlives the call. */
static int step_done(struct rec *r, enum stmt_id id, const char *what, struct err *e)
{
	wr_sync(r);
	sqlite3_stmt *st = r->stmt[id];
	int rc = sqlite3_step(st);
	int ret = 0;

	if (rc != SQLITE_DONE)
		ret = db_error(r, rc, what, e);
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
	return ret;
}

/* Positional binding with the first failure kept, so writers read as a list
 * of columns. uint64_t goes in as its two's-complement bit pattern: counters
 * stay below 2^63 (a negative one means the model underflowed), addresses
 * round-trip exactly when read back as uint64_t. */
struct bind {
	sqlite3_stmt *st;
	struct batch *bt; /* a batched table: cells go to bt's next row */
	enum stmt_id id;
	int n;
	int rc;
};

/* Room for one more row; false if out of memory. */
static bool batch_room(struct batch *bt)
{
	if (bt->nrows < bt->cap)
		return true;
	int cap = bt->cap * 2;
	struct cell *cells = realloc(bt->cells, (size_t)cap * (size_t)bt->ncols * sizeof(*cells));
	if (!cells)
		return false;
	bt->cells = cells;
	cells = realloc(bt->spare, (size_t)cap * (size_t)bt->ncols * sizeof(*cells));
	if (!cells)
		return false;
	bt->spare = cells;
	int *order = realloc(bt->order, (size_t)cap * sizeof(*order));
	if (!order)
		return false;
	bt->order = order;
	order = realloc(bt->order2, (size_t)cap * sizeof(*order));
	if (!order)
		return false;
	bt->order2 = order;
	bt->cap = cap;
	return true;
}

static struct bind bind_start(struct rec *r, enum stmt_id id)
{
	struct bind b = {.st = r->stmt[id], .bt = r->batch[id], .id = id, .n = 0, .rc = SQLITE_OK};

	/* Without room the row goes out on its own, unsorted: the order of
	 * inserts only matters for speed. */
	if (b.bt && !batch_room(b.bt))
		b.bt = NULL;
	if (!b.bt)
		wr_sync(r); /* the writer may be stepping this statement */
	return b;
}

static struct cell *bind_cell(struct bind *b)
{
	assert(b->n <= b->bt->ncols);
	return &b->bt->cells[b->bt->nrows * b->bt->ncols + b->n - 1];
}

static int64_t u64_bits(uint64_t v)
{
	int64_t s;

	memcpy(&s, &v, sizeof(s));
	return s;
}

static void bind_i64(struct bind *b, int64_t v)
{
	b->n++;
	if (b->bt)
		*bind_cell(b) = (struct cell){.v = v, .kind = CELL_INT};
	else if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_int64(b->st, b->n, v);
}

static void bind_u64(struct bind *b, uint64_t v)
{
	bind_i64(b, u64_bits(v));
}

static void bind_double(struct bind *b, double v)
{
	assert(!b->bt); /* no batched table has a REAL column */
	b->n++;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_double(b->st, b->n, v);
}

/* A batched row keeps a copy: the caller's string is borrowed for the call. */
static void bind_text_copy(struct bind *b, const char *s)
{
	struct batch *bt = b->bt;
	struct cell *c = bind_cell(b);
	size_t len;

	if (!s) {
		*c = (struct cell){.kind = CELL_NULL};
		return;
	}
	len = strlen(s) + 1;
	if (bt->text_len + len > bt->text_cap) {
		size_t cap = bt->text_cap ? bt->text_cap : 1024;
		char *p;

		while (cap < bt->text_len + len)
			cap *= 2;
		p = realloc(bt->text, cap);
		if (!p) {
			*c = (struct cell){.kind = CELL_NULL};
			b->rc = SQLITE_NOMEM;
			return;
		}
		bt->text = p;
		bt->text_cap = cap;
	}
	memcpy(bt->text + bt->text_len, s, len);
	*c = (struct cell){.v = (int64_t)bt->text_len, .kind = CELL_TEXT};
	bt->text_len += len;
}

/* NULL binds SQL NULL; a NOT NULL column then reports which one. */
static void bind_text(struct bind *b, const char *s)
{
	b->n++;
	if (b->bt) {
		bind_text_copy(b, s);
		return;
	}
	if (b->rc != SQLITE_OK)
		return;
	if (s)
		b->rc = sqlite3_bind_text(b->st, b->n, s, -1, SQLITE_STATIC);
	else
		b->rc = sqlite3_bind_null(b->st, b->n);
}

/* A change log's name (log_row): stable until the run ends, so a batched
 * row points to it instead of copying it. */
static void bind_key(struct bind *b, const char *s)
{
	b->n++;
	if (b->bt)
		*bind_cell(b) = s ? (struct cell){.s = s, .kind = CELL_KEY}
				  : (struct cell){.kind = CELL_NULL};
	else if (b->rc == SQLITE_OK)
		b->rc = s ? sqlite3_bind_text(b->st, b->n, s, -1, SQLITE_STATIC)
			  : sqlite3_bind_null(b->st, b->n);
}

static int bind_check(struct rec *r, const struct bind *b, const char *what, struct err *e)
{
	assert(b->n == sqlite3_bind_parameter_count(b->st));
	if (b->rc == SQLITE_OK)
		return 0;
	(void)sqlite3_clear_bindings(b->st);
	return db_error(r, b->rc, what, e);
}

/* Called after a failed statement inside a run: some errors (I/O, disk
 * full, out of memory) make SQLite roll the whole transaction back. */
static void note_lost_run(struct rec *r, struct err *e)
{
	size_t n;

	if (r->state != REC_RUN_OPEN || !sqlite3_get_autocommit(r->db))
		return;
	r->state = REC_RUN_LOST;
	if (!e)
		return;
	n = strlen(e->msg);
	(void)snprintf(e->msg + n, sizeof(e->msg) - n, "; run %" PRId64 " was rolled back",
		       r->run_id);
}

static int no_run(const struct rec *r, const char *fn, struct err *e)
{
	if (r->state == REC_RUN_LOST)
		return err_at(e, SLABSIM_EIO, r->path, 0,
			      "%s: run %" PRId64 " was rolled back after an earlier error", fn,
			      r->run_id);
	return err_at(e, SLABSIM_EUSAGE, r->path, 0, "%s: no run is open (call rec_run_begin)", fn);
}

/* Step a row of the open run. The message is only formatted on failure:
 * this runs once per sample row. */
static int batch_flush(struct rec *r, enum stmt_id id, int n, bool keep, struct err *e);

/* The row just bound is complete. Other tables send their rows every
 * REC_JOB_ROWS; a table keyed by name when a new sample begins and the
 * earlier samples' rows fill REC_JOB_ROWS (the multiple of REC_BATCH_ROWS
 * among them goes). */
static int batch_add(struct rec *r, enum stmt_id id, struct err *e)
{
	struct batch *bt = r->batch[id];
	const struct cell *last = &bt->cells[bt->nrows * bt->ncols];

	bt->nrows++;
	if (!bt->by_name)
		return bt->nrows == REC_JOB_ROWS ? batch_flush(r, id, bt->nrows, false, e) : 0;
	if (bt->nrows <= REC_JOB_ROWS || last[1].v == last[1 - bt->ncols].v)
		return 0;
	return batch_flush(r, id, bt->nrows - 1, true, e);
}

static int row_step(struct rec *r, const struct bind *b, const char *table, struct err *e)
{
	int rc = b->rc;
	int ret = 0;

	if (b->bt) {
		assert(b->n == b->bt->ncols);
		if (rc != SQLITE_OK) { /* out of memory copying a string: drop the row */
			char what[64];

			(void)snprintf(what, sizeof(what),
				       "cannot insert into %s (run %" PRId64 ")", table, r->run_id);
			return err_at(e, SLABSIM_ENOMEM, r->path, 0, "%s: out of memory", what);
		}
		return batch_add(r, b->id, e);
	}

	assert(b->n == sqlite3_bind_parameter_count(b->st));
	if (rc == SQLITE_OK)
		rc = sqlite3_step(b->st);
	if (rc != SQLITE_DONE) {
		char what[64];

		(void)snprintf(what, sizeof(what), "cannot insert into %s (run %" PRId64 ")", table,
			       r->run_id);
		ret = db_error(r, rc, what, e);
	}
	(void)sqlite3_reset(b->st);
	(void)sqlite3_clear_bindings(b->st);
	if (ret)
		note_lost_run(r, e);
	return ret;
}

/* Key order of rows i and j of a by_name batch: seq, then the name as SQLite
 * compares TEXT (BINARY: bytes, then length, as strcmp), NULL first. */
static int batch_cmp(const struct batch *bt, int i, int j)
{
	const struct cell *a = &bt->cells[i * bt->ncols], *b = &bt->cells[j * bt->ncols];

	if (a[1].v != b[1].v)
		return a[1].v < b[1].v ? -1 : 1;
	if (a[2].kind != CELL_KEY || b[2].kind != CELL_KEY)
		return (a[2].kind == CELL_KEY) - (b[2].kind == CELL_KEY);
	return strcmp(a[2].s, b[2].s);
}

/* bt->order[0..n) := rows 0..n-1 in key order (a stable bottom-up merge sort). */
static void batch_sort(struct batch *bt, int n)
{
	int *src = bt->order, *dst = bt->order2;

	for (int i = 0; i < n; i++)
		src[i] = i;
	for (int w = 1; w < n; w *= 2) {
		for (int lo = 0; lo < n; lo += 2 * w) {
			int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			int i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				dst[k++] = batch_cmp(bt, src[j], src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		int *t = src;
		src = dst;
		dst = t;
	}
	if (src != bt->order)
		memcpy(bt->order, src, (size_t)n * sizeof(*src));
}

/* Bind rows from..from + rows of cells (ncols each) to st, which inserts
 * that many. */
static int cells_bind(const struct cell *cells, int ncols, const char *text, sqlite3_stmt *st,
		      int from, int rows)
{
	int rc = SQLITE_OK, p = 1;

	for (int row = from; row < from + rows && rc == SQLITE_OK; row++) {
		const struct cell *c = &cells[row * ncols];

		/* column 0, the run_id, is bound once per INSERT */
		for (int i = row > from; i < ncols && rc == SQLITE_OK; i++, p++) {
			if (c[i].kind == CELL_INT)
				rc = sqlite3_bind_int64(st, p, c[i].v);
			else if (c[i].kind == CELL_TEXT)
				rc = sqlite3_bind_text(st, p, text + c[i].v, -1, SQLITE_STATIC);
			else if (c[i].kind == CELL_KEY)
				rc = sqlite3_bind_text(st, p, c[i].s, -1, SQLITE_STATIC);
			else
				rc = sqlite3_bind_null(st, p);
		}
	}
	return rc;
}

/* Insert a job's rows: INSERTs of REC_BATCH_ROWS rows, the rest one by one.
 * Returns an SQLite result code. */
static int job_run(struct rec *r, const struct job *j)
{
	struct batch *bt = r->batch[j->id];
	int rc = SQLITE_OK, done = 0;

	if (j->rows >= REC_BATCH_ROWS)
		rc = batch_multi(r, j->id);
	for (; rc == SQLITE_OK && j->rows - done >= REC_BATCH_ROWS; done += REC_BATCH_ROWS) {
		rc = cells_bind(j->cells, bt->ncols, j->text, bt->multi, done, REC_BATCH_ROWS);
		if (rc == SQLITE_OK) {
			rc = sqlite3_step(bt->multi);
			rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
		}
		(void)sqlite3_reset(bt->multi);
	}
	for (; rc == SQLITE_OK && done < j->rows; done++) {
		rc = cells_bind(j->cells, bt->ncols, j->text, bt->one, done, 1);
		if (rc == SQLITE_OK) {
			rc = sqlite3_step(bt->one);
			rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
		}
		(void)sqlite3_reset(bt->one);
	}
	/* the job's strings go with it */
	if (bt->multi)
		(void)sqlite3_clear_bindings(bt->multi);
	(void)sqlite3_clear_bindings(bt->one);
	return rc;
}

static void job_free(struct job *j)
{
	if (j) {
		free(j->cells);
		free(j->text);
		free(j);
	}
}

/* Keep the failure rc of job j (on the thread that ran it, right after, so
 * that the connection's message is its own). */
static void wr_failed(struct rec *r, const struct job *j, int rc)
{
	struct err e;
	char what[64];

	err_clear(&e);
	(void)snprintf(what, sizeof(what), "cannot insert into %s (run %" PRId64 ")",
		       r->batch[j->id]->table, r->run_id);
	int code = db_error(r, rc, what, &e);
	bool lost = sqlite3_get_autocommit(r->db) != 0;
	pthread_mutex_lock(&r->w.mu);
	if (!r->w.code) {
		r->w.code = code;
		r->w.err = e;
		r->w.lost = lost;
	}
	pthread_mutex_unlock(&r->w.mu);
}

static void *wr_main(void *arg)
{
	struct rec *r = arg;
	struct writer *w = &r->w;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->head && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		struct job *j = w->head;
		if (!j)
			break;
		w->head = j->next;
		if (!w->head)
			w->tail = NULL;
		w->busy = true;
		bool skip = w->code != 0; /* the run failed: its later rows are dropped */
		pthread_mutex_unlock(&w->mu);
		int rc = skip ? SQLITE_OK : job_run(r, j);
		if (rc != SQLITE_OK)
			wr_failed(r, j, rc);
		job_free(j);
		pthread_mutex_lock(&w->mu);
		w->busy = false;
		w->njobs--;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Wait until every queued row is in SQLite: the caller may use the
 * connection. */
static void wr_sync(struct rec *r)
{
	struct writer *w = &r->w;

	if (!w->running)
		return;
	pthread_mutex_lock(&w->mu);
	if (w->head)
		pthread_cond_broadcast(&w->cv); /* fewer than WR_WAKE_JOBS may wait */
	while (w->head || w->busy)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

/* Drain and join the thread (the run is over, or rec is closing). */
static void wr_stop(struct rec *r)
{
	struct writer *w = &r->w;

	if (!w->running)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	(void)pthread_join(w->th, NULL);
	w->running = false;
	w->stop = false;
}

/* Report the run's failure once: its code, the message in e, and the run
 * marked lost if SQLite rolled it back. 0 if there is none to report. */
static int wr_error(struct rec *r, struct err *e)
{
	struct writer *w = &r->w;
	int code = 0;
	bool lost = false;

	pthread_mutex_lock(&w->mu);
	if (w->code && !w->told) {
		w->told = true;
		code = w->code;
		lost = w->lost;
		if (e)
			*e = w->err;
	}
	pthread_mutex_unlock(&w->mu);
	if (lost && r->state == REC_RUN_OPEN) {
		r->state = REC_RUN_LOST;
		if (e) {
			size_t n = strlen(e->msg);
			(void)snprintf(e->msg + n, sizeof(e->msg) - n,
				       "; run %" PRId64 " was rolled back", r->run_id);
		}
	}
	return code;
}

/* Queue job j (or run it here without a thread). */
static int wr_submit(struct rec *r, struct job *j, struct err *e)
{
	struct writer *w = &r->w;

	if (!w->running && pthread_create(&w->th, NULL, wr_main, r) == 0)
		w->running = true;
	if (!w->running) {
		int rc = job_run(r, j);
		if (rc != SQLITE_OK)
			wr_failed(r, j, rc);
		job_free(j);
		return wr_error(r, e);
	}
	pthread_mutex_lock(&w->mu);
	while (w->njobs >= WR_MAX_JOBS)
		pthread_cond_wait(&w->cv, &w->mu);
	if (w->tail)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	if (++w->njobs >= WR_WAKE_JOBS)
		pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

/* The first n rows of bt in order[] as a job, or NULL (out of memory). */
static struct job *job_new(const struct batch *bt, enum stmt_id id, int n)
{
	struct job *j = calloc(1, sizeof(*j));
	size_t w = (size_t)bt->ncols;

	if (!j || !(j->cells = malloc((size_t)n * w * sizeof(*j->cells))) ||
	    !(j->text = malloc(bt->text_len ? bt->text_len : 1))) {
		job_free(j);
		return NULL;
	}
	j->id = id;
	j->rows = n;
	for (int i = 0; i < n; i++)
		memcpy(&j->cells[(size_t)i * w], &bt->cells[(size_t)bt->order[i] * w],
		       w * sizeof(*j->cells));
	if (bt->text_len)
		memcpy(j->text, bt->text, bt->text_len);
	return j;
}

/*
 * Send the first n buffered rows of a table (in key order if it is keyed by
 * name) to the writer; with keep, only a multiple of REC_BATCH_ROWS of them,
 * and the others stay buffered ahead of the rows after n, in key order. The
 * sent rows are gone from the batch afterwards, whatever the result. A
 * failure of earlier rows is reported here.
 */
static int batch_flush(struct rec *r, enum stmt_id id, int n, bool keep, struct err *e)
{
	struct batch *bt = r->batch[id];
	int send = keep ? n - n % REC_BATCH_ROWS : n;
	int ret = wr_error(r, e);

	if (ret) {
		bt->nrows = 0;
		bt->text_len = 0;
		return ret;
	}
	if (bt->by_name)
		batch_sort(bt, n);
	else
		for (int i = 0; i < n; i++)
			bt->order[i] = i;
	if (send) {
		struct job *j = job_new(bt, id, send);
		if (!j) {
			bt->nrows = 0;
			bt->text_len = 0;
			return err_at(e, SLABSIM_ENOMEM, r->path, 0,
				      "cannot insert into %s (run %" PRId64 "): out of memory",
				      bt->table, r->run_id);
		}
		ret = wr_submit(r, j, e);
	}
	if (!ret && send < bt->nrows) {
		/* keep the unsent rows, sorted ones first (only keyed tables keep
		 * rows, and their names are not in bt->text) */
		int k = 0, w = bt->ncols;
		for (int i = send; i < n; i++)
			memcpy(&bt->spare[k++ * w], &bt->cells[bt->order[i] * w],
			       (size_t)w * sizeof(*bt->spare));
		for (int i = n; i < bt->nrows; i++)
			memcpy(&bt->spare[k++ * w], &bt->cells[i * w],
			       (size_t)w * sizeof(*bt->spare));
		struct cell *t = bt->cells;
		bt->cells = bt->spare;
		bt->spare = t;
		bt->nrows = k;
	} else {
		bt->nrows = 0;
		bt->text_len = 0;
	}
	return ret;
}

/* Send every buffered row of the open run and wait until they are in;
 * the first failure is reported. */
static int batch_flush_all(struct rec *r, struct err *e)
{
	int ret = 0;

	for (int i = 0; i < NR_STMT; i++) {
		if (!r->batch[i] || !r->batch[i]->nrows)
			continue;
		if (ret || r->state != REC_RUN_OPEN)
			r->batch[i]->nrows = 0, r->batch[i]->text_len = 0;
		else
			ret = batch_flush(r, (enum stmt_id)i, r->batch[i]->nrows, false, e);
	}
	wr_sync(r);
	if (!ret)
		ret = wr_error(r, e);
	return ret;
}

static void batch_discard(struct rec *r)
{
	for (int i = 0; i < NR_STMT; i++)
		if (r->batch[i])
			r->batch[i]->nrows = 0, r->batch[i]->text_len = 0;
}

/* Foreign keys back on for the connection (see rec_run_begin). A flag PRAGMA
 * acts when it is compiled, so it cannot be a prepared statement; SQLite only
 * lets it change outside a transaction. */
static void fk_on(struct rec *r)
{
	(void)sqlite3_exec(r->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
}

static const uint64_t fnv64_offset = 0xcbf29ce484222325u;
static const uint64_t fnv64_prime = 0x100000001b3u;

static uint64_t fnv1a64(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= fnv64_prime;
	}
	return h;
}

uint64_t rec_hash_bytes(uint64_t h, const void *data, size_t n)
{
	return fnv1a64(h, data, n);
}

void rec_config_hash(const char *config_json, const char *trace_path,
		     char hex[REC_CONFIG_HASH_LEN + 1])
{
	uint64_t h = fnv64_offset;

	if (config_json)
		h = fnv1a64(h, config_json, strlen(config_json));
	/* The 0 byte keeps ("ab", "c") and ("a", "bc") apart. */
	if (trace_path) {
		h = fnv1a64(h, "", 1);
		h = fnv1a64(h, trace_path, strlen(trace_path));
	}
	(void)snprintf(hex, REC_CONFIG_HASH_LEN + 1, "%016" PRIx64, h);
}

/* Forget every key: a run's change log starts from nothing. */
static void log_reset(struct rec *r)
{
	for (int i = 0; i < NR_LOG; i++) {
		struct keylog *l = &r->log[i];
		for (size_t k = 0; k < l->cap; k++)
			free(l->ent[k].name);
		if (l->cap)
			memset(l->ent, 0, l->cap * sizeof(*l->ent));
		l->n = 0;
		l->last = LOG_NONE;
	}
}

static void log_free(struct rec *r)
{
	log_reset(r);
	for (int i = 0; i < NR_LOG; i++)
		free(r->log[i].ent);
}

static uint64_t log_hash(const char *name, int64_t ikey)
{
	if (name)
		return fnv1a64(fnv64_offset, name, strlen(name));
	uint64_t h = (uint64_t)ikey * 0x9e3779b97f4a7c15u;
	return h ^ (h >> 29);
}

static bool log_is(const struct log_ent *le, const char *name, int64_t ikey)
{
	return name ? le->name && !strcmp(le->name, name) : !le->name && le->ikey == ikey;
}

static struct log_ent *log_find(struct keylog *l, const char *name, int64_t ikey, uint64_t h)
{
	for (size_t i = h & (l->cap - 1);; i = (i + 1) & (l->cap - 1)) {
		struct log_ent *le = &l->ent[i];
		if (!le->used || (le->hash == h && log_is(le, name, ikey)))
			return le;
	}
}

/* Room for one more key (load at most 1/2); false if out of memory. Growing
 * moves the keys, so the remembered order starts again. */
static bool log_room(struct keylog *l)
{
	if (2 * (l->n + 1) <= l->cap)
		return true;
	size_t cap = l->cap ? 2 * l->cap : 64;
	struct log_ent *old = l->ent, *ent = calloc(cap, sizeof(*ent));
	if (!ent)
		return false;
	size_t old_cap = l->cap;
	l->ent = ent;
	l->cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].used)
			continue;
		struct log_ent *le = log_find(l, old[i].name, old[i].ikey, old[i].hash);
		*le = old[i];
		le->next = LOG_NONE;
	}
	l->last = LOG_NONE;
	free(old);
	return true;
}

/* A key not in the log yet: added with the previous row it is compared
 * with (all zeros, or none for write_first). Kept out of log_row, which runs
 * once per key and sample. */
__attribute__((noinline)) static int log_add(struct rec *r, struct keylog *l, const char *table,
					     const char *name, int64_t ikey, int64_t seq,
					     const int64_t *v, struct log_ent **out, struct err *e)
{
	if (!log_room(l))
		return err_at(e, SLABSIM_ENOMEM, r->path, 0, "%s: out of memory", table);
	uint64_t h = log_hash(name, ikey);
	struct log_ent *le = log_find(l, name, ikey, h);
	if (!le->used) {
		char *copy = name ? strdup(name) : NULL;
		if (name && !copy)
			return err_at(e, SLABSIM_ENOMEM, r->path, 0, "%s: out of memory", table);
		*le = (struct log_ent){.name = copy,
				       .ikey = ikey,
				       .hash = h,
				       .seq = seq - 1,
				       .next = LOG_NONE,
				       .used = true};
		l->n++;
		if (l->write_first) /* unlike any row */
			le->v[0] = ~v[0];
	}
	*out = le;
	return 0;
}

__attribute__((noinline)) static int log_order_error(struct rec *r, const char *table, int64_t seq,
						     int64_t last, struct err *e)
{
	return err_at(e, SLABSIM_EUSAGE, r->path, 0,
		      "cannot insert into %s (run %" PRId64 "): a row of seq %" PRId64
		      " after one of seq %" PRId64 " for the same key",
		      table, r->run_id, seq, last);
}

/*
 * The change-log rule of a per-key table (docs/schema.md): the row (key,
 * seq, v[0..nv)) is written only if v differs from the key's previous row in
 * the run, or, for a key without one, from all zeros (unless write_first).
 * Rows of one key must come in increasing seq. A NULL name is passed through
 * for SQLite to reject (NOT NULL). Returns 1 to write the row, 0 to leave it
 * out, or an error. OUT: *key, the log's copy of name (the row may point to
 * it until the run ends).
 */
static int log_row(struct rec *r, enum log_id id, const char *table, const char *name, int64_t ikey,
		   int64_t seq, const int64_t *v, int nv, const char **key, struct err *e)
{
	struct keylog *l = &r->log[id];
	struct log_ent *le = NULL;

	assert(nv <= LOG_MAXV);
	*key = name;
	if (id != LOG_ORDERS && !name)
		return 1;
	if (l->last != LOG_NONE) {
		size_t next = l->ent[l->last].next;
		if (next != LOG_NONE && log_is(&l->ent[next], name, ikey))
			le = &l->ent[next];
	}
	if (!le) {
		int ret = log_add(r, l, table, name, ikey, seq, v, &le, e);
		if (ret)
			return ret;
	}
	if (seq <= le->seq)
		return log_order_error(r, table, seq, le->seq, e);
	size_t slot = (size_t)(le - l->ent);
	if (l->last != LOG_NONE)
		l->ent[l->last].next = slot;
	l->last = slot;
	le->seq = seq;
	*key = le->name;
	int64_t diff = 0;
	for (int i = 0; i < nv; i++)
		diff |= le->v[i] ^ v[i];
	if (!diff)
		return 0;
	memcpy(le->v, v, (size_t)nv * sizeof(*v));
	return 1;
}

int rec_run_begin(struct rec *r, const struct rec_run_info *info, int64_t *run_id, struct err *e)
{
	char hash[REC_CONFIG_HASH_LEN + 1];
	struct bind b;
	int ret;

	if (r->state != REC_IDLE)
		return err_at(e, SLABSIM_EUSAGE, r->path, 0,
			      "rec_run_begin: run %" PRId64
			      " is already open; end it with rec_run_end first",
			      r->run_id);
	/* the writer stopped with the last run: its failure was that run's */
	r->w.code = 0;
	r->w.told = r->w.lost = false;

	/*
	 * Every row of the run carries r->run_id, the runs row this transaction
	 * inserts first, so the per-row parent lookup of the foreign keys can
	 * never fail; it cost a tenth of the recording. Enforcement is back on
	 * when the run ends, for everything else done on this connection
	 * (repetitions, cascading deletes).
	 */
	ret = exec_sql(r, "PRAGMA foreign_keys = OFF", "cannot configure the connection", e);
	if (!ret)
		ret = step_done(r, ST_BEGIN, "cannot begin a run", e);
	if (ret) {
		fk_on(r);
		return ret;
	}

	rec_config_hash(info->config_json, info->trace_path, hash);
	b = bind_start(r, ST_RUN_INSERT);
	bind_text(&b, info->version ? info->version : SLABSIM_VERSION);
	bind_text(&b, info->command);
	bind_text(&b, info->trace_path);
	bind_text(&b, info->allocator);
	bind_text(&b, info->kernel);
	bind_text(&b, info->align);
	bind_text(&b, info->slub_debug);
	bind_i64(&b, info->nr_cpus);
	bind_i64(&b, info->slub_min_order);
	bind_i64(&b, info->slub_max_order);
	bind_i64(&b, info->slub_min_objects);
	bind_text(&b, info->sample_every);
	bind_text(&b, info->config_json);
	bind_text(&b, hash);
	bind_text(&b, info->trace_label ? info->trace_label : info->trace_path);
	bind_text(&b, info->trace_hash);
	bind_text(&b, info->trace_kernel);
	if (info->trace_nr_cpus)
		bind_i64(&b, info->trace_nr_cpus);
	else
		bind_text(&b, NULL);
	ret = bind_check(r, &b, "cannot insert into runs", e);
	if (!ret)
		ret = step_done(r, ST_RUN_INSERT, "cannot insert into runs", e);
	if (ret) {
		(void)step_done(r, ST_ROLLBACK, "", NULL);
		fk_on(r);
		return ret;
	}
	r->run_id = sqlite3_last_insert_rowid(r->db);
	r->state = REC_RUN_OPEN;
	log_reset(r);
	if (run_id)
		*run_id = r->run_id;
	return 0;
}

int rec_run_set_trace_hash(struct rec *r, const char *hash, struct err *e)
{
	sqlite3_stmt *st = NULL;
	if (r->state != REC_RUN_OPEN)
		return no_run(r, "rec_run_set_trace_hash", e);
	int rc = sqlite3_prepare_v2(r->db, "UPDATE runs SET trace_hash = ?1 WHERE run_id = ?2", -1,
				    &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, hash, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 2, r->run_id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(r->db);
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : db_error(r, rc, "cannot record the trace's identity", e);
}

int rec_count(struct rec *r, const struct sink_count *c, struct err *e)
{
	struct bind b;

	if (r->state != REC_RUN_OPEN)
		return no_run(r, "rec_count", e);
	b = bind_start(r, ST_COUNT);
	bind_i64(&b, r->run_id);
	bind_text(&b, c->table);
	bind_text(&b, c->kind);
	bind_u64(&b, c->count);
	bind_u64(&b, c->first_line);
	return row_step(r, &b, "counts", e);
}

int rec_cache(struct rec *r, const struct sink_cache *c, struct err *e)
{
	struct bind b;

	if (r->state != REC_RUN_OPEN)
		return no_run(r, "rec_cache", e);
	b = bind_start(r, ST_CACHE);
	bind_i64(&b, r->run_id);
	bind_text(&b, c->cache);
	bind_text(&b, c->alias_of);
	bind_i64(&b, c->kmalloc ? 1 : 0);
	bind_i64(&b, c->object_size);
	bind_i64(&b, c->slab_size);
	bind_i64(&b, c->align);
	bind_i64(&b, c->order);
	bind_i64(&b, c->objs_per_slab);
	bind_u64(&b, c->allocs);
	bind_u64(&b, c->frees);
	bind_u64(&b, c->live_objs);
	bind_u64(&b, c->live_req_bytes);
	bind_u64(&b, c->slabs);
	bind_u64(&b, c->pages);
	bind_u64(&b, c->peak_pages);
	bind_u64(&b, c->peak_pages_t_ns);
	bind_u64(&b, c->peak_live_objs);
	bind_u64(&b, c->waste_rounding);
	bind_u64(&b, c->waste_layout);
	bind_u64(&b, c->waste_free_slots);
	bind_u64(&b, c->waste_tail);
	bind_u64(&b, c->align_violations);
	int rc = row_step(r, &b, "caches", e);
	/* a root cache's sheaves (an alias reports its root's) */
	if (rc || !c->sheaf_capacity || c->alias_of)
		return rc;
	b = bind_start(r, ST_CACHE_SHEAVES);
	bind_i64(&b, r->run_id);
	bind_text(&b, c->cache);
	bind_i64(&b, c->sheaf_capacity);
	bind_u64(&b, c->parked_objs);
	return row_step(r, &b, "cache_sheaves", e);
}

int rec_site(struct rec *r, const struct sink_site *s, struct err *e)
{
	struct bind b;

	if (r->state != REC_RUN_OPEN)
		return no_run(r, "rec_site", e);
	b = bind_start(r, ST_SITE);
	bind_i64(&b, r->run_id);
	bind_text(&b, s->call_site);
	bind_u64(&b, s->allocs);
	bind_u64(&b, s->frees);
	bind_u64(&b, s->bytes_req);
	bind_u64(&b, s->bytes_alloc);
	bind_u64(&b, s->bytes_alloc_trace);
	bind_u64(&b, s->live_objs);
	bind_u64(&b, s->live_req_bytes);
	bind_u64(&b, s->align_violations);
	bind_u64(&b, s->pingpong);
	return row_step(r, &b, "sites", e);
}

int rec_violation(struct rec *r, const struct sink_violation *v, struct err *e)
{
	struct bind b;

	if (r->state != REC_RUN_OPEN)
		return no_run(r, "rec_violation", e);
	b = bind_start(r, ST_VIOLATION);
	bind_i64(&b, r->run_id);
	bind_text(&b, v->cache);
	bind_text(&b, v->call_site);
	bind_u64(&b, v->size);
	bind_u64(&b, v->count);
	bind_u64(&b, v->example_addr);
	return row_step(r, &b, "violations", e);
}

int rec_align_cost(struct rec *r, const struct sink_align_cost *c, struct err *e)
{
	struct bind b;
	char need[16];

	if (r->state != REC_RUN_OPEN)
		return no_run(r, "rec_align_cost", e);
	if (c->need == SINK_NEED_NATURAL)
		(void)snprintf(need, sizeof(need), "natural");
	else
		(void)snprintf(need, sizeof(need), "%u", c->need);
	b = bind_start(r, ST_ALIGN_COST);
	bind_i64(&b, r->run_id);
	bind_text(&b, c->cache ? c->cache : "");
	bind_text(&b, c->call_site);
	bind_text(&b, c->need ? need : NULL);
	bind_u64(&b, c->allocs);
	bind_u64(&b, c->violations);
	bind_u64(&b, c->bytes_alloc);
	bind_u64(&b, c->bytes_alloc_none);
	bind_u64(&b, c->redzone_shift_bytes);
	bind_u64(&b, c->fragment_bytes);
	bind_i64(&b, c->live_growth_bytes);
	return row_step(r, &b, "align_cost", e);
}

int rec_sample(struct rec *r, const struct sink_sample *s, struct err *e)
{
	struct bind b;

	if (r->state != REC_RUN_OPEN)
		return no_run(r, "rec_sample", e);
	b = bind_start(r, ST_SAMPLE);
	bind_i64(&b, r->run_id);
	bind_u64(&b, s->seq);
	bind_u64(&b, s->t_ns);
	bind_u64(&b, s->event_idx);
	bind_text(&b, s->label);
	bind_u64(&b, s->slab_pages);
	bind_u64(&b, s->large_pages);
	bind_u64(&b, s->live_objs);
	bind_u64(&b, s->live_req_bytes);
	bind_u64(&b, s->waste_rounding);
	bind_u64(&b, s->waste_layout);
	bind_u64(&b, s->waste_free_slots);
	bind_u64(&b, s->waste_tail);
	int rc = row_step(r, &b, "samples", e);
	if (rc || !s->sheaves)
		return rc;
	b = bind_start(r, ST_SAMPLE_SHEAVES);
	bind_i64(&b, r->run_id);
	bind_u64(&b, s->seq);
	bind_u64(&b, s->parked_objs);
	return row_step(r, &b, "sample_sheaves", e);
}

int rec_sample_cache(struct rec *r, const struct sink_sample_cache *s, struct err *e)
{
	struct bind b;

	if (r->state != REC_RUN_OPEN)
		return no_run(r, "rec_sample_cache", e);
	int64_t v[] = {u64_bits(s->slabs), u64_bits(s->pages), u64_bits(s->live_objs),
		       u64_bits(s->live_req_bytes)};
	const char *key;
	int ch = log_row(r, LOG_CACHES, "sample_caches", s->cache, 0, u64_bits(s->seq), v, 4, &key,
			 e);
	if (ch <= 0)
		return ch;
	b = bind_start(r, ST_SAMPLE_CACHE);
	bind_i64(&b, r->run_id);
	bind_u64(&b, s->seq);
	bind_key(&b, key);
	bind_u64(&b, s->slabs);
	bind_u64(&b, s->pages);
	bind_u64(&b, s->live_objs);
	bind_u64(&b, s->live_req_bytes);
	return row_step(r, &b, "sample_caches", e);
}

/* Roll back whatever is left of the run; the run is over either way. */
static void end_run(struct rec *r)
{
	wr_stop(r);
	batch_discard(r);
	if (!sqlite3_get_autocommit(r->db))
		(void)step_done(r, ST_ROLLBACK, "", NULL);
	fk_on(r);
	r->state = REC_IDLE;
}

int rec_run_end(struct rec *r, const struct sink_totals *t, bool commit, struct err *e)
{
	struct bind b;
	char what[64];
	int ret;

	if (r->state == REC_IDLE)
		return no_run(r, "rec_run_end", e);
	if (!commit) {
		end_run(r);
		return 0;
	}
	if (r->state == REC_RUN_LOST) {
		ret = no_run(r, "rec_run_end", e);
		end_run(r);
		return ret;
	}
	if (!t) {
		end_run(r);
		return err_at(e, SLABSIM_EUSAGE, r->path, 0,
			      "rec_run_end: no totals to commit; run %" PRId64 " was rolled back",
			      r->run_id);
	}

	(void)snprintf(what, sizeof(what), "cannot finish run %" PRId64, r->run_id);
	ret = batch_flush_all(r, e);
	if (!ret && r->w.code) /* reported before, and the rows after it were dropped */
		ret = err_at(e, SLABSIM_EIO, r->path, 0,
			     "%s: rows were lost after an earlier error; run %" PRId64
			     " was rolled back",
			     what, r->run_id);
	if (ret) {
		end_run(r);
		return ret;
	}
	b = bind_start(r, ST_RUN_FINISH);
	bind_u64(&b, t->events);
	bind_u64(&b, t->t_first_ns);
	bind_u64(&b, t->t_last_ns);
	bind_u64(&b, t->final_slab_pages);
	bind_u64(&b, t->peak_slab_pages);
	bind_u64(&b, t->peak_slab_pages_t_ns);
	bind_u64(&b, t->final_large_pages);
	bind_u64(&b, t->final_live_objs);
	bind_u64(&b, t->final_live_req_bytes);
	bind_u64(&b, t->align_violations);
	bind_double(&b, t->wall_seconds);
	bind_i64(&b, r->run_id);
	ret = bind_check(r, &b, what, e);
	if (!ret)
		ret = step_done(r, ST_RUN_FINISH, what, e);
	if (!ret && sqlite3_changes(r->db) != 1)
		ret = err_at(e, SLABSIM_EIO, r->path, 0, "%s: its runs row is missing", what);
	if (!ret)
		ret = step_done(r, ST_COMMIT, what, e);
	if (ret) {
		/* COMMIT can fail and leave the transaction open (SQLITE_BUSY
		 * past the timeout); the contract is that the run is over. */
		if (e && e->code == ret) {
			size_t n = strlen(e->msg);
			(void)snprintf(e->msg + n, sizeof(e->msg) - n,
				       "; run %" PRId64 " was rolled back", r->run_id);
		}
		end_run(r);
		return ret;
	}
	wr_stop(r);
	fk_on(r);
	r->state = REC_IDLE;
	return 0;
}

void rec_close(struct rec *r)
{
	if (!r)
		return;
	wr_stop(r);
	(void)pthread_cond_destroy(&r->w.cv);
	(void)pthread_mutex_destroy(&r->w.mu);
	if (r->db && !sqlite3_get_autocommit(r->db))
		(void)sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
	for (int i = 0; i < NR_STMT; i++) {
		(void)sqlite3_finalize(r->stmt[i]);
		if (r->batch[i]) {
			(void)sqlite3_finalize(r->batch[i]->multi);
			free(r->batch[i]->cells);
			free(r->batch[i]->spare);
			free(r->batch[i]->order);
			free(r->batch[i]->order2);
			free(r->batch[i]->text);
			free(r->batch[i]);
		}
	}
	log_free(r);
	/* Every statement is finalized, so close cannot be SQLITE_BUSY. */
	(void)sqlite3_close(r->db);
	free(r->path);
	free(r);
}

/* ---- metrics rows (schema version 2, docs/metrics.md) ---- */

int rec_run_metrics(struct rec *r, const struct sink_run_metrics *m, struct err *e)
{
	struct bind b;

	if (r->state != REC_RUN_OPEN)
		return no_run(r, "rec_run_metrics", e);
	b = bind_start(r, ST_RUN_METRICS);
	bind_i64(&b, r->run_id);
	bind_u64(&b, m->perf_allocs);
	bind_u64(&b, m->perf_frees);
	bind_u64(&b, m->perf_bytes_req);
	bind_u64(&b, m->perf_bytes_alloc);
	bind_u64(&b, m->perf_bytes_alloc_model);
	bind_u64(&b, m->perf_bytes_freed);
	bind_double(&b, m->perf_frag_pct);
	bind_u64(&b, m->perf_cross_node);
	bind_u64(&b, m->perf_pingpong);
	bind_u64(&b, m->si_caches);
	bind_u64(&b, m->si_active);
	bind_u64(&b, m->si_space);
	bind_u64(&b, m->si_used);
	bind_u64(&b, m->si_loss);
	bind_u64(&b, m->si_objects);
	bind_u64(&b, m->si_partobj);
	bind_u64(&b, m->si_slabs);
	bind_u64(&b, m->si_partial);
	bind_u64(&b, m->si_mratio);
	bind_u64(&b, m->si_oratio);
	bind_u64(&b, m->jw_heap_peak);
	bind_u64(&b, m->jw_heap_peak_t_ns);
	bind_u64(&b, m->jw_live_peak);
	bind_u64(&b, m->jw_live_peak_t_ns);
	for (int i = 0; i < 4; i++) {
		if (m->jw[i] >= 0)
			bind_double(&b, m->jw[i]);
		else
			bind_text(&b, NULL); /* undefined (no live bytes) */
	}
	bind_u64(&b, m->mem_mib);
	if (m->have_pages)
		bind_u64(&b, m->free_pages);
	else
		bind_text(&b, NULL);
	return row_step(r, &b, "run_metrics", e);
}

static int perf_row(struct rec *r, enum stmt_id id, const struct sink_perf *p, bool ptr,
		    struct err *e)
{
	struct bind b;

	if (r->state != REC_RUN_OPEN)
		return no_run(r, ptr ? "rec_perf_ptr" : "rec_perf_caller", e);
	b = bind_start(r, id);
	bind_i64(&b, r->run_id);
	if (ptr)
		bind_u64(&b, p->ptr);
	bind_text(&b, p->call_site);
	bind_u64(&b, p->hit);
	bind_u64(&b, p->bytes_req);
	bind_u64(&b, p->bytes_alloc);
	bind_u64(&b, p->pingpong);
	return row_step(r, &b, ptr ? "perf_ptrs" : "perf_callers", e);
}

int rec_perf_caller(struct rec *r, const struct sink_perf *p, struct err *e)
{
	return perf_row(r, ST_PERF_CALLER, p, false, e);
}

int rec_perf_ptr(struct rec *r, const struct sink_perf *p, struct err *e)
{
	return perf_row(r, ST_PERF_PTR, p, true, e);
}

int rec_sample_metrics(struct rec *r, const struct sink_sample_metrics *m, struct err *e)
{
	struct bind b;

	if (r->state != REC_RUN_OPEN)
		return no_run(r, "rec_sample_metrics", e);
	b = bind_start(r, ST_SAMPLE_METRICS);
	bind_i64(&b, r->run_id);
	bind_u64(&b, m->seq);
	bind_u64(&b, m->heap_bytes);
	bind_u64(&b, m->si_space);
	bind_u64(&b, m->si_used);
	bind_u64(&b, m->si_objects);
	bind_u64(&b, m->si_partobj);
	bind_u64(&b, m->si_slabs);
	bind_u64(&b, m->si_partial);
	if (m->have_pages)
		bind_u64(&b, m->free_pages);
	else
		bind_text(&b, NULL);
	return row_step(r, &b, "sample_metrics", e);
}

int rec_sample_order(struct rec *r, const struct sink_sample_order *o, struct err *e)
{
	struct bind b;

	if (r->state != REC_RUN_OPEN)
		return no_run(r, "rec_sample_order", e);
	int64_t v[] = {u64_bits(o->held_blocks), u64_bits(o->free_blocks),
		       u64_bits(o->unusable_permille)};
	const char *key;
	int ch = log_row(r, LOG_ORDERS, "sample_orders", NULL, u64_bits(o->order), u64_bits(o->seq),
			 v, 3, &key, e);
	if (ch <= 0)
		return ch;
	b = bind_start(r, ST_SAMPLE_ORDER);
	bind_i64(&b, r->run_id);
	bind_u64(&b, o->seq);
	bind_u64(&b, o->order);
	bind_u64(&b, o->held_blocks);
	bind_u64(&b, o->free_blocks);
	bind_u64(&b, o->unusable_permille);
	return row_step(r, &b, "sample_orders", e);
}

int rec_sample_slabinfo(struct rec *r, const struct sink_sample_slabinfo *c, struct err *e)
{
	struct bind b;

	if (r->state != REC_RUN_OPEN)
		return no_run(r, "rec_sample_slabinfo", e);
	int64_t v[] = {u64_bits(c->slabs),	     u64_bits(c->partial), u64_bits(c->objects),
		       u64_bits(c->objects_partial), u64_bits(c->space),   u64_bits(c->used)};
	const char *key;
	int ch = log_row(r, LOG_SLABINFO, "sample_slabinfo", c->cache, 0, u64_bits(c->seq), v, 6,
			 &key, e);
	if (ch <= 0)
		return ch;
	b = bind_start(r, ST_SAMPLE_SLABINFO);
	bind_i64(&b, r->run_id);
	bind_u64(&b, c->seq);
	bind_key(&b, key);
	bind_u64(&b, c->slabs);
	bind_u64(&b, c->partial);
	bind_u64(&b, c->objects);
	bind_u64(&b, c->objects_partial);
	bind_u64(&b, c->space);
	bind_u64(&b, c->used);
	return row_step(r, &b, "sample_slabinfo", e);
}

/* ---- repetitions (replay --workload --repeat N) ----
 * Self-contained: the tables are created on first use, in the transaction
 * that fills them, so databases without repetitions keep the base schema. */

static const char repeat_schema_sql[] =
	"CREATE TABLE IF NOT EXISTS repetitions ("
	" rep_id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" created TEXT NOT NULL,"
	" spec_path TEXT NOT NULL,"
	" spec_hash TEXT NOT NULL,"
	" seed_first INTEGER NOT NULL,"
	" n INTEGER NOT NULL,"
	" config_json TEXT NOT NULL"
	");"
	"CREATE TABLE IF NOT EXISTS repetition_runs ("
	" rep_id INTEGER NOT NULL REFERENCES repetitions (rep_id) ON DELETE CASCADE,"
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" seed INTEGER NOT NULL,"
	" PRIMARY KEY (rep_id, run_id)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS repetition_stats ("
	" rep_id INTEGER NOT NULL REFERENCES repetitions (rep_id) ON DELETE CASCADE,"
	" figure TEXT NOT NULL,"
	" n INTEGER NOT NULL,"
	" mean REAL NOT NULL,"
	" sd REAL NOT NULL,"
	" ci95_lo REAL NOT NULL,"
	" ci95_hi REAL NOT NULL,"
	" PRIMARY KEY (rep_id, figure)"
	") WITHOUT ROWID;";

static int rep_exec(struct rec *r, const char *sql, sqlite3_stmt **st, struct err *e)
{
	int rc = sqlite3_prepare_v2(r->db, sql, -1, st, NULL);
	return rc == SQLITE_OK ? 0 : db_error(r, rc, "cannot record the repetition", e);
}

int rec_repetition(struct rec *r, const struct rec_repeat_info *info, int64_t *rep_id,
		   struct err *e)
{
	if (r->state != REC_IDLE)
		return err_set(e, SLABSIM_EUSAGE, "rec_repetition: a run is open");
	int ret = exec_sql(r, "BEGIN IMMEDIATE", "cannot lock the database", e);
	if (ret)
		return ret;
	sqlite3_stmt *st = NULL;
	ret = exec_sql(r, repeat_schema_sql, "cannot create the repetition tables", e);
	if (!ret &&
	    !(ret = rep_exec(r,
			     "INSERT INTO repetitions (created, spec_path, spec_hash, "
			     "seed_first, n, config_json) VALUES (" REC_NOW_UTC ", ?, ?, ?, ?, ?)",
			     &st, e))) {
		sqlite3_bind_text(st, 1, info->spec_path, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, info->spec_hash, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 3, u64_bits(info->seed_first));
		sqlite3_bind_int64(st, 4, (int64_t)info->n);
		sqlite3_bind_text(st, 5, info->config_json, -1, SQLITE_TRANSIENT);
		int rc = sqlite3_step(st);
		if (rc != SQLITE_DONE)
			ret = db_error(r, rc, "cannot record the repetition", e);
		sqlite3_finalize(st);
		st = NULL;
	}
	int64_t id = sqlite3_last_insert_rowid(r->db);
	if (!ret && !(ret = rep_exec(r,
				     "INSERT INTO repetition_runs (rep_id, run_id, seed) VALUES "
				     "(?, ?, ?)",
				     &st, e))) {
		for (uint32_t i = 0; i < info->n && !ret; i++) {
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_int64(st, 2, info->run_ids[i]);
			sqlite3_bind_int64(st, 3, u64_bits(info->seed_first + i));
			int rc = sqlite3_step(st);
			if (rc != SQLITE_DONE)
				ret = db_error(r, rc, "cannot record the repetition", e);
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	if (!ret && !(ret = rep_exec(r,
				     "INSERT INTO repetition_stats (rep_id, figure, n, mean, sd, "
				     "ci95_lo, ci95_hi) VALUES (?, ?, ?, ?, ?, ?, ?)",
				     &st, e))) {
		for (uint32_t i = 0; i < info->nrows && !ret; i++) {
			const struct rec_repeat_row *row = &info->rows[i];
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_text(st, 2, row->figure, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(st, 3, (int64_t)info->n);
			sqlite3_bind_double(st, 4, row->mean);
			sqlite3_bind_double(st, 5, row->sd);
			sqlite3_bind_double(st, 6, row->ci95_lo);
			sqlite3_bind_double(st, 7, row->ci95_hi);
			int rc = sqlite3_step(st);
			if (rc != SQLITE_DONE)
				ret = db_error(r, rc, "cannot record the repetition", e);
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
	}
	if (ret) {
		(void)sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
		return ret;
	}
	if ((ret = exec_sql(r, "COMMIT", "cannot commit the repetition", e)))
		return ret;
	if (rep_id)
		*rep_id = id;
	return 0;
}

struct sqlite3 *rec_run_db(struct rec *r, int64_t *run_id)
{
	if (!r || r->state != REC_RUN_OPEN)
		return NULL;
	/* The caller may read the run's rows: send the buffered ones. */
	if (batch_flush_all(r, NULL))
		return NULL;
	*run_id = r->run_id;
	return r->db;
}

/* ---- the recorder as the engine's sink (sim/sink.h) ---- */

/* Each op is the row writer of the same name, called on the recorder. */
#define REC_SINK_OP(op, row)                                                                       \
	static int sink_##op(void *ctx, const struct row *r, struct err *e)                        \
	{                                                                                          \
		return rec_##op(ctx, r, e);                                                        \
	}
REC_SINK_OP(sample, sink_sample)
REC_SINK_OP(sample_cache, sink_sample_cache)
REC_SINK_OP(sample_slabinfo, sink_sample_slabinfo)
REC_SINK_OP(sample_metrics, sink_sample_metrics)
REC_SINK_OP(sample_order, sink_sample_order)
REC_SINK_OP(count, sink_count)
REC_SINK_OP(cache, sink_cache)
REC_SINK_OP(site, sink_site)
REC_SINK_OP(violation, sink_violation)
REC_SINK_OP(align_cost, sink_align_cost)
REC_SINK_OP(run_metrics, sink_run_metrics)
REC_SINK_OP(perf_caller, sink_perf)
REC_SINK_OP(perf_ptr, sink_perf)

static const struct sink_ops rec_sink_ops = {
	.sample = sink_sample,
	.sample_cache = sink_sample_cache,
	.sample_slabinfo = sink_sample_slabinfo,
	.sample_metrics = sink_sample_metrics,
	.sample_order = sink_sample_order,
	.count = sink_count,
	.cache = sink_cache,
	.site = sink_site,
	.violation = sink_violation,
	.align_cost = sink_align_cost,
	.run_metrics = sink_run_metrics,
	.perf_caller = sink_perf_caller,
	.perf_ptr = sink_perf_ptr,
};

struct sink rec_as_sink(struct rec *r)
{
	return (struct sink){.ops = &rec_sink_ops, .ctx = r};
}
