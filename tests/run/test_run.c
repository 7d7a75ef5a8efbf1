/* test_run.c - whole runs through the run layer (sim/run/run.h), as the
 * commands make them: a trace recorded into SQLite, every way of reading it
 * (the fast paths must never change a figure), a parsed event array, a
 * workload, a sink other than the recorder, the stage a failed run stopped
 * at, the start-state seed, and validate on the hand-made capture.
 *   argv[1] the bundled boot excerpt, argv[2] tests/cli/data/capture-a,
 *   argv[3] a workload spec; databases go to a directory made in $TMPDIR
 */
#include "capture.h"
#include "check.h"
#include "evarr.h"
#include "rec.h"
#include "run.h"
#include "sim.h"
#include "summary.h"
#include "sink.h"
#include "source.h"
#include "trace.h"
#include "validate.h"
#include "validate_report.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *boot, *cap_dir, *wl_spec, *scratch;

static void model_61(struct run_model *m)
{
	run_model_default(m);
	m->cfg.kernel = POLICY_KERNEL_6_1;
}

/* The summary JSON of a run, into buf (the whole output is compared). */
static void summary(struct run *r, char *buf, size_t n)
{
	FILE *f = fmemopen(buf, n, "w");
	summary_print(run_sim(r), f, true, "trace", run_line_stats(r));
	fclose(f);
	buf[n - 1] = '\0';
}

/* One integer from the database at path. */
static int64_t q1(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

/* A recorded run of the boot excerpt: the counts the golden test derives
 * from the trace with awk (tests/golden/README.md), in the engine and in
 * the database. */
static void test_recorded(void)
{
	char db[512];
	struct err e;
	struct run *r = NULL;
	(void)snprintf(db, sizeof(db), "%s/run.db", scratch);
	struct run_opts o = {.command = "replay", .so = {.sample_every_events = 1000}, .db = db};
	model_61(&o.model);
	struct run_input in = {.kind = RUN_TRACE, .path = boot};
	err_clear(&e);
	CHECK("a recorded run of the boot excerpt", run_exec(&o, &in, &r, &e) == 0);
	if (!r)
		return;
	struct sim_totals t;
	sim_totals(run_sim(r), &t);
	CHECK_EQ_U64("kmalloc events", t.events[TRACE_EV_KMALLOC], 646);
	CHECK_EQ_U64("kmem_cache_alloc events", t.events[TRACE_EV_CACHE_ALLOC], 1006);
	CHECK_EQ_U64("kfree events", t.events[TRACE_EV_KFREE], 570);
	CHECK_EQ_U64("kmem_cache_free events", t.events[TRACE_EV_CACHE_FREE], 778);
	CHECK_EQ_U64("live objects at the end", t.live_objs, 399);
	CHECK_EQ_U64("live requested bytes", t.live_req_bytes, 77778);
	CHECK_EQ_U64("the model's bytes_alloc equals the trace's", t.alloc_size_mismatch, 0);
	CHECK("the run has an id", run_id(r) == 1);
	CHECK_EQ_U64("line counts: 3012 lines", run_line_stats(r)->lines, 3012);
	run_free(r); /* closes the database it opened */
	CHECK_EQ_U64("database: one run, done, 3000 events",
		     q1(db, "SELECT events FROM runs WHERE status = 'done'"), 3000);
	CHECK_EQ_U64("database: final live objects", q1(db, "SELECT final_live_objs FROM runs"),
		     399);
	CHECK_EQ_U64("database: samples at 1000, 2000, 3000 events and the end",
		     q1(db, "SELECT count(*) FROM samples"), 4);
	CHECK_EQ_U64("database: config_json names the model",
		     q1(db, "SELECT instr(config_json, '\"kernel\":\"6.1\"') > 0 FROM runs"), 1);
}

/* Every way of reading the trace gives the same summary, byte for byte. */
static void test_fast_paths(void)
{
	static char want[1 << 16], got[1 << 16];
	static const struct {
		const char *name;
		struct run_read rd;
	} ways[] = {
		{"no spill (two reads)", {.no_spill = true}},
		{"no prefetch", {.no_prefetch = true}},
		{"no prefetch, no spill", {.no_prefetch = true, .no_spill = true}},
		{"strict", {.strict = true}},
		{"name pass in 3 ranges", {.name_threads = 3}},
		{"2 parser threads", {.parse_threads = 2}},
		{"2 parser threads, no spill", {.parse_threads = 2, .no_spill = true}},
	};
	struct err e;
	struct run *r = NULL;
	struct run_opts o = {.command = "replay", .so = {.sample_every_events = 1000}};
	model_61(&o.model);
	struct run_input in = {.kind = RUN_TRACE, .path = boot};
	err_clear(&e);
	if (!CHECK("the default path", run_exec(&o, &in, &r, &e) == 0))
		return;
	summary(r, want, sizeof(want));
	run_free(r);
	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		o.read = ways[i].rd;
		r = NULL;
		int rc = run_exec(&o, &in, &r, &e);
		if (!rc)
			summary(r, got, sizeof(got));
		run_free(r);
		char name[128];
		(void)snprintf(name, sizeof(name), "%s: the same summary", ways[i].name);
		CHECK(name, rc == 0 && strcmp(got, want) == 0);
	}
	/* a parsed event array: the same model figures (it has no text lines
	 * of its own to compare, so the totals are) */
	struct evarr *a = NULL;
	struct sim_totals t0, t1;
	o.read = (struct run_read){0};
	CHECK("parse the trace into an event array", evarr_load(boot, &a, &e) == 0);
	if (!a)
		return;
	r = NULL;
	if (!run_exec(&o, &in, &r, &e)) {
		sim_totals(run_sim(r), &t0);
		run_free(r);
	}
	struct run_input ia = {.kind = RUN_EVENTS, .events = a};
	r = NULL;
	int rc = run_exec(&o, &ia, &r, &e);
	if (!rc) {
		sim_totals(run_sim(r), &t1);
		run_free(r);
	}
	CHECK("event array: the same totals as the text",
	      rc == 0 && memcmp(&t0, &t1, sizeof(t0)) == 0);
	evarr_free(a);
}

/* A sink other than the recorder sees the rows the engine emits. */
struct counting {
	uint64_t samples, caches, last_seq, sites;
	/* sample_cache rows: each cache's last (by name), how many, and how
	 * many came equal to that cache's previous one (or all zeros first) */
	struct {
		const char *name;
		uint64_t v[4];
	} last[512];
	uint32_t nlast;
	uint64_t cache_rows, unchanged_rows, end_mismatch;
};

static uint64_t *last_row(struct counting *c, const char *name)
{
	for (uint32_t i = 0; i < c->nlast; i++)
		if (!strcmp(c->last[i].name, name))
			return c->last[i].v;
	if (c->nlast == sizeof(c->last) / sizeof(c->last[0]))
		return NULL;
	c->last[c->nlast].name = name; /* the policy's: lives as long as the sim */
	return c->last[c->nlast++].v;
}

static int count_sample_cache(void *ctx, const struct sink_sample_cache *row, struct err *e)
{
	struct counting *c = ctx;
	uint64_t *l = last_row(c, row->cache);
	const uint64_t v[4] = {row->slabs, row->pages, row->live_objs, row->live_req_bytes};
	c->cache_rows++;
	if (!l || !memcmp(l, v, sizeof(v)))
		c->unchanged_rows++;
	else
		memcpy(l, v, sizeof(v));
	return 0;
}

static int count_sample(void *ctx, const struct sink_sample *row, struct err *e)
{
	struct counting *c = ctx;
	c->samples++;
	c->last_seq = row->seq;
	return 0;
}

static int count_cache(void *ctx, const struct sink_cache *row, struct err *e)
{
	struct counting *c = ctx;
	c->caches++;
	/* a root cache's last sample row is its end state (the "end" sample) */
	if (!row->alias_of) {
		uint64_t *l = last_row(c, row->cache);
		bool held = row->slabs || row->live_objs;
		if (!l || l[0] != (held ? row->slabs : 0) || l[1] != (held ? row->pages : 0) ||
		    l[2] != (held ? row->live_objs : 0) || l[3] != (held ? row->live_req_bytes : 0))
			c->end_mismatch++;
	}
	return 0;
}

static int count_site(void *ctx, const struct sink_site *row, struct err *e)
{
	((struct counting *)ctx)->sites++;
	return 0;
}

static void test_sink(void)
{
	static const struct sink_ops ops = {.sample = count_sample,
					    .sample_cache = count_sample_cache,
					    .cache = count_cache,
					    .site = count_site};
	static struct counting c;
	struct sink k = {&ops, &c};
	struct sim_opts so = {
		.ops = policy_find("slub"), .sample_every_events = 500, .sample_caches = true};
	policy_cfg_default(&so.cfg);
	so.cfg.kernel = POLICY_KERNEL_6_1;
	struct sim *s = NULL;
	struct trace_reader *tr = NULL;
	struct err e;
	err_clear(&e);
	int rc = sim_create(&so, &s, &e) || trace_open(boot, NULL, &tr, &e) ||
		 sim_replay(s, tr, &k, &e) || sim_report(s, &k, &e);
	CHECK("a replay into a counting sink", rc == 0);
	/* 3000 events, a sample every 500 and one at the end */
	CHECK_EQ_U64("samples: 6 periodic and the end", c.samples, 7);
	CHECK_EQ_U64("samples are numbered from 0", c.last_seq, 6);
	struct sim_totals t;
	sim_totals(s, &t);
	CHECK_EQ_U64("the engine counted the same samples", t.samples, 7);
	CHECK("the end state has cache and site rows", c.caches > 0 && c.sites > 0);
	/* the per-cache rows are change logs (sink.h): a row only when the
	 * cache's figures changed, and the last one is the end state */
	CHECK("sample_cache rows came", c.cache_rows > 0);
	CHECK_EQ_U64("no cache row repeats that cache's previous one", c.unchanged_rows, 0);
	CHECK_EQ_U64("every cache's last row is its end state", c.end_mismatch, 0);
	CHECK("fewer rows than samples x caches seen",
	      c.cache_rows < (uint64_t)c.samples * c.nlast);
	trace_close(tr);
	sim_destroy(s);
}

/* Where a failed run stops, and that a missing trace creates no database. */
static void test_failures(void)
{
	char db[512], missing[512];
	(void)snprintf(db, sizeof(db), "%s/never.db", scratch);
	(void)snprintf(missing, sizeof(missing), "%s/no-such.trace", scratch);
	enum run_stage at = RUN_STAGE_RECORD;
	struct run_opts o = {.command = "replay", .db = db, .failed_at = &at};
	model_61(&o.model);
	struct run_input in = {.kind = RUN_TRACE, .path = missing};
	struct run *r = NULL;
	struct err e;
	err_clear(&e);
	CHECK("a missing trace fails with an input error",
	      run_exec(&o, &in, &r, &e) == SLABSIM_EIO || e.code == SLABSIM_EINPUT);
	CHECK("... at the input stage", at == RUN_STAGE_INPUT && r == NULL);
	CHECK("... and creates no database", access(db, F_OK) != 0);
	o.model.allocator = "no-such-allocator";
	CHECK("an unknown allocator is a usage error",
	      run_exec(&o, &in, &r, &e) == SLABSIM_EUSAGE && at == RUN_STAGE_MODEL);
}

/* A workload through the run layer: the same seed, the same run. */
static void test_workload(void)
{
	struct run_workload wl;
	struct err e;
	err_clear(&e);
	if (!CHECK("load the workload", run_workload_open(&wl, wl_spec, "3", "1s", &e) == 0)) {
		run_workload_close(&wl);
		return;
	}
	struct run_opts o = {.command = "replay"};
	run_model_default(&o.model);
	struct run_input in = {.kind = RUN_WORKLOAD, .wl = &wl, .seed = 3};
	struct sim_totals t[3];
	uint64_t seeds[3] = {3, 3, 4};
	int ok = 1;
	for (int i = 0; i < 3; i++) {
		struct run *r = NULL;
		in.seed = seeds[i];
		ok &= run_exec(&o, &in, &r, &e) == 0;
		if (r)
			sim_totals(run_sim(r), &t[i]);
		run_free(r);
	}
	CHECK("three workload runs", ok);
	CHECK("seed 3 twice: the same totals", ok && memcmp(&t[0], &t[1], sizeof(t[0])) == 0);
	CHECK("seed 4: other events",
	      ok && t[0].events[TRACE_EV_KMALLOC] + t[0].events[TRACE_EV_CACHE_ALLOC] !=
			      t[2].events[TRACE_EV_KMALLOC] + t[2].events[TRACE_EV_CACHE_ALLOC]);
	run_workload_close(&wl);
}

/* The start-state seed: a SLUB cache of 1024-byte objects (16 a slab,
 * min_partial 5) started with 97 live objects in 12 slabs: 6 full, one
 * with 1 object, 5 empty on the node partial list. Then 80 frees of
 * pointers the trace never allocated, each taking a start object picked by
 * the generator. A slab that empties is given back (the node list holds
 * min_partial slabs already), so the slabs left are the 5 empty ones plus
 * those that still hold one of the 17 objects left: how the picks spread
 * them. The same seed must give the same state, and the seed must reach
 * the generator (some seeds leave another number of slabs). */
struct freer {
	uint32_t left;
	uint64_t ptr;
};

static int freer_next(void *ctx, struct trace_event *ev, struct err *e)
{
	struct freer *f = ctx;
	if (!f->left)
		return 0;
	f->left--;
	memset(ev, 0, sizeof(*ev));
	ev->type = TRACE_EV_CACHE_FREE;
	ev->t_ns = 1000 + f->ptr;
	ev->ptr = 0xbb000000u + f->ptr++;
	ev->call_site = "put_obj+0x5/0x20";
	ev->name = "test_obj";
	ev->node = -1;
	ev->accounted = -1;
	return 1;
}

static uint64_t slabs_after(uint64_t seed)
{
	struct sim_opts so = {.ops = policy_find("slub"), .seed = seed};
	policy_cfg_default(&so.cfg);
	so.cfg.kernel = POLICY_KERNEL_6_1;
	so.cfg.cpu_partial = false; /* freed slabs go to the node partial list */
	struct policy_cache_spec spec = {.name = "test_obj", .object_size = 1024, .align = 8};
	struct sim *s = NULL;
	struct err e;
	uint32_t id;
	err_clear(&e);
	struct freer f = {.left = 80};
	struct trace_source src = {.ctx = &f, .next = freer_next, .name = "frees"};
	uint64_t v = UINT64_MAX, nlive;
	struct policy_start st = {.active_objs = 97, .nr_slabs = 12};
	if (!sim_create(&so, &s, &e) && !sim_ensure_cache(s, &spec, &id, &e) &&
	    !sim_prepopulate(s, id, &st, &nlive, &e) && !sim_replay_source(s, &src, NULL, &e)) {
		struct sim_cache_state cs;
		sim_cache_state(s, id, &cs);
		v = cs.slabs;
	}
	sim_destroy(s);
	return v;
}

static void test_seed(void)
{
	uint64_t a = slabs_after(7), b = slabs_after(7);
	CHECK("the same seed gives the same start-state picks", a == b && a != UINT64_MAX);
	/* 5 empty slabs stay; 17 objects are in 1 to 7 others */
	CHECK("slabs left between 5 + 2 and 5 + 7", a >= 7 && a <= 12);
	int differ = 0;
	for (uint64_t sd = 0; sd < 32 && !differ; sd++)
		differ = slabs_after(sd) != a;
	CHECK("some other seed gives other picks (the seed reaches the generator)", differ);
}

/* validate through the run layer on the hand-made capture, whose figures
 * are worked out by hand in tests/cli/validate.sh. */
static void test_validate(void)
{
	char db[512], out[1 << 14];
	(void)snprintf(db, sizeof(db), "%s/v.db", scratch);
	struct capture *c = NULL;
	struct err e;
	err_clear(&e);
	if (!CHECK("open the capture", capture_open(cap_dir, &c, &e) == 0))
		return;
	FILE *f = fmemopen(out, sizeof(out), "w");
	struct val_opts o = {.dir = cap_dir, .db = db, .anchor = true};
	run_model_default(&o.model);
	int rc = val_capture_model(c, &o.model, NULL, &e);
	CHECK("the capture configures the model: kernel 6.1, 2 CPUs",
	      rc == 0 && o.model.cfg.kernel == POLICY_KERNEL_6_1 && o.model.cfg.nr_cpus == 2);
	const struct val_report *rep = NULL;
	rc = val_run(&o, c, &rep, &e);
	CHECK("validate runs", rc == 0 && rep);
	CHECK("result: pages_mae_over_swing = 8 / 16", rep && rep->sum.pages_mae_over_swing == 0.5);
	if (rep)
		val_report_print(f, rep, true);
	val_report_free(rep);
	fclose(f);
	CHECK("report: pages_mae_over_swing = 8 / 16",
	      strstr(out, "\"pages_mae_over_swing\": 0.500000") != NULL);
	CHECK_EQ_U64("database: real pages at the end",
		     q1(db, "SELECT real_pages FROM validations"), 20);
	CHECK_EQ_U64("database: predicted pages at the end",
		     q1(db, "SELECT predicted_pages FROM validations"), 40);
	CHECK_EQ_U64("database: 3 snapshots", q1(db, "SELECT snapshots FROM validations"), 3);
	CHECK_EQ_U64("database: snapshot 2 predicted 40",
		     q1(db, "SELECT predicted_pages FROM validation_snapshots WHERE id = '2'"), 40);
	CHECK_EQ_U64("database: the validate run is done",
		     q1(db, "SELECT count(*) FROM runs WHERE command = 'validate' AND status = "
			    "'done'"),
		     1);
	CHECK_EQ_U64("database: the run records its seed",
		     q1(db, "SELECT instr(config_json, '\"seed\":0') > 0 FROM runs"), 1);
	capture_close(c);
}

/* A copy of the boot excerpt cut to 58 % of its bytes, at a line start,
 * between the name pass and the replay (the between_passes hook). */
static void cut_copy(void *ctx)
{
	const char *path = ctx;
	FILE *f = fopen(path, "r+");
	if (!f)
		return;
	(void)fseek(f, 0, SEEK_END);
	long n = ftell(f) * 58 / 100, at = 0;
	char line[4096];
	rewind(f);
	while (ftell(f) < n && fgets(line, sizeof(line), f))
		at = ftell(f);
	fclose(f);
	(void)truncate(path, at);
}

static int copy_boot(const char *to)
{
	FILE *in = fopen(boot, "rb"), *out = fopen(to, "wb");
	char b[65536];
	size_t k;
	int ok = in && out;
	while (ok && (k = fread(b, 1, sizeof(b), in)) > 0)
		ok = fwrite(b, 1, k, out) == k;
	if (in)
		fclose(in);
	if (out && fclose(out))
		ok = 0;
	return ok;
}

/* A trace cut between the passes that read it (--no-spill, the name pass
 * in ranges) is refused with an I/O error naming the file, and no run is
 * recorded done with part of its events. */
static void test_cut_between_passes(void)
{
	char db[512], cut[512];
	(void)snprintf(db, sizeof(db), "%s/cut.db", scratch);
	(void)snprintf(cut, sizeof(cut), "%s/cut.trace", scratch);
	for (int mode = 0; mode < 2; mode++) {
		if (!CHECK("copy the boot excerpt", copy_boot(cut)))
			return;
		struct run_opts o = {
			.command = "replay", .db = db, .between_passes = cut_copy, .ctx = cut};
		o.read.no_spill = true;
		o.read.name_threads = mode ? 2 : 1;
		model_61(&o.model);
		struct run_input in = {.kind = RUN_TRACE, .path = cut};
		struct run *r = NULL;
		struct err e;
		err_clear(&e);
		int rc = run_exec(&o, &in, &r, &e);
		CHECK(mode ? "cut after the name pass in ranges: an I/O error"
			   : "cut after the --no-spill name pass: an I/O error",
		      rc == SLABSIM_EIO && r == NULL);
		CHECK("... naming the file and the change",
		      strstr(e.msg, cut) && strstr(e.msg, "the file changed while it was read"));
		CHECK_EQ_U64("... and no run recorded done",
			     (uint64_t)q1(db, "SELECT count(*) FROM runs WHERE status = 'done'"),
			     0);
	}
	(void)unlink(cut);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: test_run BOOT_TRACE CAPTURE_DIR WORKLOAD\n");
		return 2;
	}
	boot = argv[1];
	cap_dir = argv[2];
	wl_spec = argv[3];
	const char *tmp = getenv("TMPDIR");
	char dir[512];
	(void)snprintf(dir, sizeof(dir), "%s/test_run.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!(scratch = mkdtemp(dir))) {
		perror("mkdtemp");
		return 2;
	}
	test_recorded();
	test_fast_paths();
	test_sink();
	test_failures();
	test_workload();
	test_seed();
	test_validate();
	test_cut_between_passes();
	static const char *const files[] = {"run.db", "v.db", "never.db", "cut.db"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char p[600];
		(void)snprintf(p, sizeof(p), "%s/%s", scratch, files[i]);
		(void)unlink(p);
	}
	(void)rmdir(scratch);
	return check_done();
}
