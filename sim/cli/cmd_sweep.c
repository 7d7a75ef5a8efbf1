/* cmd_sweep.c - `slabsim sweep SPEC`: the Cartesian product of a sweep spec
 * (docs/sweeps.md), each trace parsed once, runs in forked workers.
 *
 * Who writes the database: the parent only. Each worker records its run in
 * its own scratch file (one rec transaction, as `replay` does) and exits;
 * the parent then copies that run into the database in one short
 * transaction (merge_file, the code `slabsim merge` uses) and deletes the
 * scratch file. Workers never wait on the database's write lock (a run holds
 * its transaction open for the whole replay, so workers sharing one file
 * would serialise), SQLite sees one writer, and a kill at any moment loses
 * only runs whose scratch file was not merged yet: the parent's copy is one
 * transaction in a rollback journal.
 */
#include "capture.h"
#include "cli.h"
#include "sites.h"
#include "err.h"
#include "evarr.h"
#include "merge.h"
#include "policy.h"
#include "rec.h"
#include "sim.h"
#include "sweep.h"
#include "trace.h"
#include "validate.h"
#include "workload.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

enum {
	OPT_DB = CLI_OPT_CMD,
	OPT_SHARD,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_DRY_RUN,
};

void usage_sweep(FILE *f)
{
	fprintf(f,
		"Usage: slabsim sweep SPEC [--db FILE] [-j N] [--shard I/N]\n"
		"\n"
		"Run every configuration of the sweep spec SPEC (docs/sweeps.md): the Cartesian\n"
		"product of its traces, allocators, kernels, CPU counts, alignment policies,\n"
		"debug settings and order limits. Each trace is parsed once; runs execute in\n"
		"forked worker processes and are recorded in FILE, one transaction per run.\n"
		"A 'trace =' line names a trace file or a capture directory; a directory runs\n"
		"as 'slabsim replay DIR' does (the capture's allocator, kernel, CPUs, slub_*\n"
		"settings, caches and start state, unless an axis of the spec sets them).\n"
		"kernel and nr_cpus default to 'auto' (also written 'kernel = auto'): each\n"
		"trace's own, found as replay finds them (a capture directory's uname.txt\n"
		"and ncpus.txt, a trace file's event format and CPUs), and recorded with where\n"
		"they came from (config_json kernel_from, nr_cpus_from).\n"
		"Runs whose configuration (runs.config_hash) is already done in FILE are\n"
		"skipped, so an interrupted sweep resumes where it stopped. A spec line\n"
		"'align-sites = FILE' names the sites file of the alignment policies that\n"
		"serve listed callers (own-caches, merged, kmalloc-aligned-*; see --align in\n"
		"'slabsim replay --help'); a bad FILE stops the sweep before any run.\n"
		"\n"
		"Options:\n"
		"  --db FILE             results database (default slabsim.db)\n"
		"  -j, --jobs N          worker processes (default: online CPUs)\n"
		"  --shard I/N           run only the I-th of N disjoint parts (1 <= I <= N);\n"
		"                        combine the parts' files with 'slabsim merge'\n"
		"  --dry-run             list the runs (index, done, todo or error, trace,\n"
		"                        configuration, hash) after checking every input the\n"
		"                        spec names (traces, capture directories, sites file);\n"
		"                        a bad one is named with its spec line and sets the\n"
		"                        exit status\n"
		"  --progress, --no-progress  progress bar on stderr (default: when a terminal;\n"
		"                        otherwise one log line per run)\n"
		"  -q, --quiet           no log lines and no summary\n"
		"  -h, --help            this help\n"
		"\n"
		"A run that fails (bad input, model invariant) is reported and the others go on;\n"
		"the exit status is then that of the first failure. SIGINT or SIGTERM stops the\n"
		"workers and exits with 130; finished runs are kept.\n\n%s",
		cli_exit_codes_help);
}

/* A planned run. */
struct job {
	struct sweep_run r;
	struct run_model model; /* r's settings with what its input decided (plan_model) */
	const char *file;	/* the trace file read (a capture's), or the workload */
	char hash[REC_CONFIG_HASH_LEN + 1];
	char *json; /* malloc'ed: a sweep may plan a million jobs */
	char label[200];
	uint64_t seed; /* workload runs: the seed used */
	pid_t pid;
	double t0;
	uint64_t nev; /* events of its trace */
};

/* Set by the SIGINT/SIGTERM handler: a signal handler can only reach a
 * global, so this is the one piece of global state (read by the parent's
 * wait loop). */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* The run's settings: the run-wide ones, then the debug setting its
 * allocator reads. */
static void make_label(const struct job *j, char *buf, size_t n)
{
	const struct sweep_run *r = &j->r;
	/* the settled model: an align the spec left out is the kernel
	 * profile's rule, as the run takes it (run_model_settle) */
	struct run_model settled = j->model;
	run_model_settle(&settled);
	const struct run_model *m = &settled;
	uint64_t seed = j->seed;
	char dbg[8];
	uint32_t set = policy_find(m->allocator)->settings;
	/* (auto): resolved from the input, as replay does */
	bool ka = r->kernel_auto && !r->workload, ca = r->nr_cpus_auto && !r->workload;
	policy_slub_debug_str(m->cfg.slub_debug, dbg);
	int w = snprintf(buf, n, "%s kernel=%s%s nr_cpus=%u%s align=%s", m->allocator,
			 run_kernel_name(m), ka ? "(auto)" : "", m->cfg.nr_cpus, ca ? "(auto)" : "",
			 policy_align_name(m->cfg.align));
	if (w < 0 || (size_t)w >= n)
		return;
	/* not added to w: a workload run's seed overwrites it, as labels have
	 * always read (kept so that the output does not change) */
	if (set & POLICY_SET_SLUB_DEBUG)
		(void)snprintf(buf + w, n - (size_t)w, " slub_debug=%s", dbg);
	if (set & POLICY_SET_SLAB_DEBUG)
		w += snprintf(buf + w, n - (size_t)w, " slab_debug=%s",
			      m->cfg.slab_debug ? "on" : "off");
	if (r->workload && w > 0 && (size_t)w < n)
		(void)snprintf(buf + w, n - (size_t)w, " seed=%" PRIu64, seed);
	/* the switches a run turns on (off is every other run's default) */
	static const struct {
		enum sweep_axis a;
		const char *name;
	} sw[] = {{SWEEP_AX_SLAB_NOMERGE, "slab_nomerge"},
		  {SWEEP_AX_SLUB_TINY, "slub_tiny"},
		  {SWEEP_AX_RANDOM_KMALLOC, "random_kmalloc"},
		  {SWEEP_AX_SLAB_BUCKETS, "slab_buckets"}};
	const bool on[] = {m->cfg.nomerge, m->cfg.slub_tiny, m->cfg.random_kmalloc != 0,
			   m->cfg.slab_buckets};
	/* last: after the slub_debug words or the seed, which w does not count */
	size_t at = strlen(buf);
	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++)
		if ((r->given & 1u << sw[i].a) && at < n) {
			int k = snprintf(buf + at, n - at, " %s=%s", sw[i].name,
					 on[i] ? "on" : "off");
			at = k < 0 ? n : at + (size_t)k;
		}
	/* the sheaves' what-ifs: `kernel` or the number */
	const struct {
		enum sweep_axis a;
		const char *name;
		uint32_t v;
	} num[] = {{SWEEP_AX_SHEAF_CAPACITY, "sheaf_capacity", m->cfg.sheaf_capacity},
		   {SWEEP_AX_BARN_LIMIT, "barn_limit", m->cfg.barn_limit}};
	for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++) {
		char v[16] = "kernel";
		if (!(r->given & 1u << num[i].a) || at >= n)
			continue;
		if (num[i].v)
			(void)snprintf(v, sizeof(v), "%u", num[i].v);
		int k = snprintf(buf + at, n - at, " %s=%s", num[i].name, v);
		at = k < 0 ? n : at + (size_t)k;
	}
}

static int capture_setup(void *ctx, struct sim *s, struct err *e)
{
	return run_capture_setup(ctx, s, e);
}

/* The worker: replay one run from the parsed events (with a capture's
 * caches and start state, as `replay DIR`), or from the workload's
 * generator (as `replay --workload` does: no name pass, the spec defines
 * the caches), into a scratch file. */
static int run_one(const struct job *j, const struct evarr *ev, const struct capture *cap,
		   struct run_workload *wl, const struct run_trace_id *id, const char *scratch)
{
	struct rec *rec = NULL;
	struct run *r = NULL;
	struct err e;
	int rc;
	err_clear(&e);
	struct run_capture rcap = {.cap = cap, .start = true};
	struct run_opts ro = {
		.command = "sweep",
		.model = j->model,
		.so = {.sample_caches = true},
		.sample_spec = j->r.sample_every,
		.config_json = j->json,
		.setup = cap ? capture_setup : NULL,
		.ctx = &rcap,
	};
	(void)cli_parse_sample_every(j->r.sample_every, &ro.so.sample_every_ns,
				     &ro.so.sample_every_events);
	/* sample_every = auto: about 500 samples of a trace whatever its
	 * length (a line, not steps, on a small one; bounded rows on a big
	 * one); workloads: every 1000 events. The resolved period is recorded
	 * (runs.sample_every), the key keeps auto. Not the default: the key
	 * holds the period, and a spec must keep today's keys (= replay's). */
	enum { AUTO_SAMPLES = 500 };
	char auto_spec[32];
	if (!strcmp(j->r.sample_every, "auto")) {
		uint64_t n = !wl && ev ? evarr_len(ev) : 0;
		ro.so.sample_every_events = n ? (n + AUTO_SAMPLES - 1) / AUTO_SAMPLES : 1000;
		(void)snprintf(auto_spec, sizeof(auto_spec), "%" PRIu64 "ev",
			       ro.so.sample_every_events);
		ro.sample_spec = auto_spec;
	}
	struct run_input in = {.path = j->file, .id = id};
	if (wl) {
		in.kind = RUN_WORKLOAD;
		in.wl = wl;
		in.seed = j->seed;
	} else {
		in.kind = RUN_EVENTS;
		in.events = ev;
	}
	if (!(rc = rec_open(scratch, &rec, &e))) {
		ro.rec = rec;
		rc = run_exec(&ro, &in, &r, &e);
	}
	if (rc)
		fprintf(stderr, "slabsim: sweep run %zu (%s): %s\n", j->r.index, j->label, e.msg);
	run_free(r);
	rec_close(rec);
	return rc ? err_exit_code(rc) : 0;
}

/* Remove dir/<files> and dir. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		char p[4096];
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			(void)snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			(void)unlink(p);
		}
		closedir(d);
	}
	(void)rmdir(dir);
}

/* Scratch directories of sweeps on the same database whose process is gone
 * (killed): "<db>.sweep.<pid>". */
static void clean_stale(const char *db)
{
	const char *slash = strrchr(db, '/');
	char dir[4096];
	const char *base = slash ? slash + 1 : db;
	if (slash)
		(void)snprintf(dir, sizeof(dir), "%.*s", (int)(slash - db) + 1, db);
	else
		(void)snprintf(dir, sizeof(dir), ".");
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t bl = strlen(base);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, base, bl) != 0 || strncmp(de->d_name + bl, ".sweep.", 7))
			continue;
		char *end;
		long pid = strtol(de->d_name + bl + 7, &end, 10);
		if (*end || pid <= 0 || (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		char p[4400];
		(void)snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		remove_dir(p);
	}
	closedir(d);
}

/* Parse path (named on line `line` of the spec) into *a, adding the time to
 * *secs; 0 or an error code (message printed, naming the spec's line too). */
static int load_trace(const char *path, const char *kallsyms, const char *spec, size_t line,
		      struct evarr **a, double *secs, bool quiet)
{
	struct err e;
	double t0 = run_now();
	int rc;
	err_clear(&e);
	if ((rc = evarr_load_kallsyms(path, kallsyms, a, &e))) {
		fprintf(stderr,
			"slabsim: %s:%zu: expected a readable trace, got %s (its runs are "
			"skipped)\n",
			spec, line, e.msg);
		return rc;
	}
	double dt = run_now() - t0;
	*secs += dt;
	uint64_t n = evarr_len(*a);
	size_t b = evarr_bytes(*a);
	/* as replay warns (run.c): a trace.dat that gave fewer records than
	 * its own per-CPU statistics count; each run counts them as lost */
	const struct trace_stats *st = evarr_stats(*a);
	if (st->dat_unread)
		fprintf(stderr,
			"slabsim: warning: %s: trace.dat's per-CPU statistics count %" PRIu64
			" events read from the ring buffer (read events), the file gave %" PRIu64
			": %" PRIu64 " missing (corrupt or cut data), counted as lost events\n",
			path, st->dat_expected, st->dat_expected - st->dat_unread, st->dat_unread);
	if (st->sites_unnamed)
		fprintf(stderr,
			"slabsim: warning: %s: no kernel symbol names its call sites, which stay "
			"addresses: the model's rules by call-site name do not see them; name "
			"the recorded boot's /proc/kallsyms with a 'kallsyms = FILE' line\n",
			path);
	if (!quiet)
		fprintf(stderr,
			"sweep: parsed %" PRIu64 " events of %s in %.3f s (%.1f MiB in memory, "
			"%.1f bytes/event)\n",
			n, path, dt, (double)b / 1048576.0, n ? (double)b / (double)n : 0.0);
	return 0;
}

/* The events a worker replayed, from its scratch file (a workload's count
 * is known only after it ran); 0 if unreadable: it is only for progress. */
static uint64_t scratch_events(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	uint64_t n = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT sum(events) FROM runs WHERE status = 'done'", -1, &st,
			       NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
		n = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

static void scratch_path(char *buf, size_t n, const char *tmp, size_t index)
{
	(void)snprintf(buf, n, "%s/run-%zu.db", tmp, index);
}

static void unlink_scratch(const char *tmp, size_t index)
{
	char p[4200], pj[4300];
	scratch_path(p, sizeof(p), tmp, index);
	(void)snprintf(pj, sizeof(pj), "%s-journal", p);
	(void)unlink(p);
	(void)unlink(pj);
}

struct progress {
	bool bar, quiet;
	size_t total, done, failed;
	uint64_t events;
	double t0;
};

static void progress_show(const struct progress *pg, const struct job *j, double secs, bool ok,
			  uint64_t nev)
{
	double el = run_now() - pg->t0;
	double rate = el > 0 ? (double)pg->events / el : 0;
	double eta = pg->done ? el / (double)pg->done * (double)(pg->total - pg->done) : 0;
	if (pg->quiet)
		return;
	if (pg->bar) {
		int w = 30, fill = pg->total ? (int)((double)pg->done / (double)pg->total * w) : w;
		fprintf(stderr, "\rsweep [%.*s%*s] %zu/%zu runs  %.0f ev/s  ETA %.0fs%s ", fill,
			"##############################", w - fill, "", pg->done, pg->total, rate,
			eta, pg->failed ? "  (failures)" : "");
		if (pg->done == pg->total)
			fputc('\n', stderr);
	} else if (j) {
		fprintf(stderr,
			"sweep: [%zu/%zu] %s run %zu: %s (%" PRIu64
			" events, %.2f s); %.0f ev/s, ETA %.0f s\n",
			pg->done, pg->total, ok ? "done" : "FAILED", j->r.index, j->label, nev,
			secs, rate, eta);
	}
	fflush(stderr);
}

/* A `trace =` of the spec as its runs read it. */
struct sweep_trace {
	struct capture *cap; /* trace = DIR: the capture (as `replay DIR`), else NULL */
	const char *file;    /* the trace file: the capture's, or the path as written */
	bool bad;	     /* could not be read: its runs are skipped */
	bool detected;	     /* st: the counts of the whole trace (for `auto`) */
	bool said;	     /* its `auto` resolution was printed */
	struct trace_stats st;
};

/* One `slabsim sweep`: its options, the plan and the workers' state. */
struct sweep_cmd {
	const char *db, *spec_path;
	uint32_t jobs, shard_i, shard_n;
	int progress;
	bool quiet, dry;
	struct sweep_spec *spec;
	struct sweep_run *runs;
	size_t nruns;
	struct job *jobs_v;
	size_t njobs, nshard_other, ndone;
	struct evarr **arr;	  /* each trace parsed once, freed after its last run */
	size_t *left;		  /* runs left per trace */
	struct run_workload *wls; /* loaded at plan time, shared by forks */
	bool *wl_bad;
	struct run_trace_id *ids; /* the traces', then the workloads' */
	size_t ntr;
	struct sweep_trace *tr; /* per trace of the spec */
	size_t plan_held;	/* the trace whose array planning parsed, or SIZE_MAX */
	size_t nbad;		/* runs of inputs that could not be read */
	struct merge *m;
	double t_parse, replay_secs;
	char tmp[4096]; /* the workers' scratch directory */
	struct progress pg;
	size_t next, running;
	struct sigaction old_int, old_term;
	int status;
};

/* 0, an exit status, or -1 after --help. */
static int sweep_args(int argc, char **argv, struct sweep_cmd *c)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, OPT_DB},
		{"jobs", required_argument, NULL, 'j'},
		{"shard", required_argument, NULL, OPT_SHARD},
		{"progress", no_argument, NULL, OPT_PROGRESS},
		{"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
		{"dry-run", no_argument, NULL, OPT_DRY_RUN},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct err e;
	int ch;
	c->db = "slabsim.db";
	c->jobs = ncpu > 0 ? (uint32_t)ncpu : 1;
	c->progress = -1;
	err_clear(&e);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "hqj:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage_sweep(stdout);
			return -1;
		case 'q':
			c->quiet = true;
			break;
		case 'j':
			if (cli_parse_u32("-j", optarg, 1, 1024, &c->jobs))
				return cli_bad_usage("sweep");
			break;
		case OPT_DB:
			if (!*optarg) {
				fprintf(stderr, "slabsim: --db needs a file name\n");
				return cli_bad_usage("sweep");
			}
			c->db = optarg;
			break;
		case OPT_SHARD:
			if (sweep_parse_shard(optarg, &c->shard_i, &c->shard_n, &e)) {
				fprintf(stderr, "slabsim: %s\n", e.msg);
				return cli_bad_usage("sweep");
			}
			break;
		case OPT_PROGRESS:
			c->progress = 1;
			break;
		case OPT_NO_PROGRESS:
			c->progress = 0;
			break;
		case OPT_DRY_RUN:
			c->dry = true;
			break;
		default:
			return cli_bad_usage("sweep");
		}
	}
	if (!(c->spec_path = cli_one_arg(argc, argv, optind, "sweep", "SPEC argument", "")))
		return cli_bad_usage("sweep");
	return 0;
}

/* Whether the trace file at path opens as a trace and holds a slab event,
 * as a replay of it needs: read up to its first one (a FIFO is not read:
 * its events would be gone for the run). 0 or an error code. */
static int check_trace(const char *path, struct err *e)
{
	struct trace_opts lax = {.strict = false};
	struct trace_reader *r = NULL;
	struct trace_event ev;
	struct stat st;
	int rc;
	if (stat(path, &st) != 0)
		return err_set(e, SLABSIM_EIO, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return access(path, R_OK) ? err_set(e, SLABSIM_EIO, "%s: %s", path, strerror(errno))
					  : 0;
	if ((rc = trace_open(path, &lax, &r, e)))
		return rc;
	while ((rc = trace_next(r, &ev, e)) == 1 && ev.type == TRACE_EV_MARKER)
		;
	if (rc == 0)
		rc = err_set(
			e, SLABSIM_ENODATA,
			"%s: no slab event (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free) "
			"in %" PRIu64 " lines: nothing to replay",
			path, trace_stats(r)->lines);
	trace_close(r);
	return rc == 1 ? 0 : rc;
}

/* Open the spec's traces before anything is planned: a capture directory
 * as `replay DIR` opens it (its model from its metadata; without an
 * allocator axis its runs take its allocator), every trace file checked
 * (check_trace). One that fails is named with its spec line, its runs are
 * skipped and the exit status is its error's. 0, or an exit status. */
static int open_traces(struct sweep_cmd *c)
{
	size_t nt = sweep_spec_ntraces(c->spec);
	if (!(c->tr = calloc(nt + 1, sizeof(*c->tr)))) {
		fprintf(stderr, "slabsim: out of memory\n");
		return SLABSIM_EXIT_IO;
	}
	for (size_t t = 0; t < nt; t++) {
		struct sweep_trace *tr = &c->tr[t];
		struct run_model m;
		struct err e;
		int rc = 0;
		err_clear(&e);
		tr->file = sweep_spec_trace(c->spec, t);
		if (capture_is_dir(tr->file)) {
			run_model_default(&m);
			if ((rc = capture_open(tr->file, &tr->cap, &e)) ||
			    (rc = val_capture_model(tr->cap, &m, NULL, &e))) {
				fprintf(stderr,
					"slabsim: %s:%zu: expected a trace file or a capture "
					"directory "
					"(docs/capture-format.md), got %s (its runs are skipped)\n",
					c->spec_path, sweep_spec_trace_line(c->spec, t), e.msg);
			} else {
				tr->file = tr->cap->trace;
				if (!sweep_spec_has_axis(c->spec, SWEEP_AX_ALLOCATOR) &&
				    (rc = sweep_spec_set_trace_allocator(c->spec, t, m.allocator,
									 &e)))
					return cli_fail(&e);
			}
		}
		if (!rc && (rc = check_trace(tr->file, &e)))
			fprintf(stderr,
				"slabsim: %s:%zu: expected a readable trace, got %s (its runs are "
				"skipped)\n",
				c->spec_path, sweep_spec_trace_line(c->spec, t), e.msg);
		if (rc) {
			tr->bad = true;
			if (!c->status)
				c->status = err_exit_code(rc);
		}
	}
	return 0;
}

/* Load the spec, expand it, open the database and the workloads. Their
 * hash, generator and duration are in the runs' configuration, so each is
 * loaded before planning; one that cannot be read fails only its runs, as
 * an unreadable trace does. 0 or an exit status. */
static int sweep_load(struct sweep_cmd *c)
{
	struct err e;
	int rc;
	err_clear(&e);
	if ((rc = sweep_spec_load(c->spec_path, &c->spec, &e)))
		return cli_fail(&e);
	if ((rc = open_traces(c)))
		return rc;
	if ((rc = sweep_expand(c->spec, &c->runs, &c->nruns, &e)))
		return cli_fail(&e);
	/* the sites file, read once here so that a bad one stops the sweep
	 * before any run (each run reads it again) */
	size_t sites_line;
	const char *sites_path = sweep_spec_align_sites(c->spec, &sites_line);
	if (sites_path) {
		struct policy_sites *ps;
		if ((rc = policy_sites_load(sites_path, &ps, &e))) {
			fprintf(stderr, "slabsim: %s:%zu: expected a readable sites file, got %s\n",
				c->spec_path, sites_line, e.msg);
			return err_exit_code(rc);
		}
		policy_sites_destroy(ps);
	}
	size_t nw = sweep_spec_nworkloads(c->spec);
	if (!(c->jobs_v = calloc(c->nruns ? c->nruns : 1, sizeof(*c->jobs_v))) ||
	    !(c->arr = calloc(sweep_spec_ntraces(c->spec) + 1, sizeof(*c->arr))) ||
	    !(c->left = calloc(sweep_spec_ntraces(c->spec) + 1, sizeof(*c->left))) ||
	    !(c->wls = calloc(nw + 1, sizeof(*c->wls))) ||
	    !(c->wl_bad = calloc(nw + 1, sizeof(*c->wl_bad)))) {
		fprintf(stderr, "slabsim: out of memory\n");
		return SLABSIM_EXIT_IO;
	}
	if ((rc = merge_open(c->db, &c->m, &e)))
		return cli_fail(&e);
	/* the inputs' identities (runs.trace_label, ...): each label names one
	 * input, so that queries and figures never pool two */
	c->ntr = sweep_spec_ntraces(c->spec);
	if (!(c->ids = calloc(c->ntr + nw + 1, sizeof(*c->ids)))) {
		fprintf(stderr, "slabsim: out of memory\n");
		return SLABSIM_EXIT_IO;
	}
	for (size_t t = 0; t < c->ntr; t++)
		run_trace_identify(c->tr[t].file, sweep_spec_trace_label(c->spec, t), &c->ids[t]);
	for (size_t w = 0; w < nw; w++) {
		const char *lb = sweep_spec_workload_label(c->spec, w);
		(void)snprintf(c->ids[c->ntr + w].label, sizeof(c->ids[0].label), "%s",
			       lb ? lb : sweep_spec_workload(c->spec, w));
	}
	for (size_t i = 0; i < c->ntr + nw; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(c->ids[i].label, c->ids[k].label)) {
				fprintf(stderr,
					"slabsim: %s: %s and %s would both be labelled '%s': add "
					"'label = NAME' after one of them\n",
					c->spec_path,
					k < c->ntr ? sweep_spec_trace(c->spec, k)
						   : sweep_spec_workload(c->spec, k - c->ntr),
					i < c->ntr ? sweep_spec_trace(c->spec, i)
						   : sweep_spec_workload(c->spec, i - c->ntr),
					c->ids[i].label);
				return SLABSIM_EXIT_INPUT;
			}
	const char *dur = sweep_spec_duration(c->spec);
	for (size_t w = 0; w < nw; w++) {
		const char *wp = sweep_spec_workload(c->spec, w);
		rc = run_workload_open(&c->wls[w], wp, NULL, dur, &e);
		if (rc == SLABSIM_EUSAGE) {
			/* a bad or missing duration is the sweep spec's fault */
			if (dur)
				fprintf(stderr,
					"slabsim: %s: duration expects a time > 0 with a unit "
					"(e.g. 60s, 250ms), got '%s'\n",
					c->spec_path, dur);
			else
				fprintf(stderr,
					"slabsim: %s: %s has no duration: add 'duration = T' to "
					"the sweep spec or to its [workload]\n",
					c->spec_path, wp);
			return SLABSIM_EXIT_INPUT;
		}
		if (!rc)
			(void)snprintf(c->ids[c->ntr + w].hash, sizeof(c->ids[0].hash), "%s",
				       workload_hash(c->wls[w].w));
		if (rc) {
			fprintf(stderr, "slabsim: %s (its runs are skipped)\n", e.msg);
			c->wl_bad[w] = true;
			if (!c->status)
				c->status = err_exit_code(rc);
		}
	}
	return 0;
}

/* The counts of trace t's whole text, which decide `auto` as the counts of
 * replay's name pass do: from the array the sweep parses for its runs
 * anyway (planning keeps one such array at a time). 0, or 1 when the trace
 * cannot be read (named; its runs are skipped). */
static int detect_trace(struct sweep_cmd *c, size_t t)
{
	struct sweep_trace *tr = &c->tr[t];
	if (tr->detected || tr->bad)
		return tr->bad;
	if (!c->arr[t]) {
		if (c->plan_held != SIZE_MAX) {
			evarr_free(c->arr[c->plan_held]);
			c->arr[c->plan_held] = NULL;
		}
		int rc = load_trace(tr->file, sweep_spec_kallsyms(c->spec), c->spec_path,
				    sweep_spec_trace_line(c->spec, t), &c->arr[t], &c->t_parse,
				    c->quiet);
		if (rc) {
			tr->bad = true;
			if (!c->status)
				c->status = err_exit_code(rc);
			return 1;
		}
		c->plan_held = t;
	}
	tr->st = *evarr_stats(c->arr[t]);
	tr->detected = true;
	return 0;
}

/* Parse, for `auto`, the traces whose metadata does not settle it, last
 * first: planning keeps the last array it parsed, which is then the first
 * trace's to run, and its runs use it instead of parsing it again. */
static void detect_traces(struct sweep_cmd *c)
{
	for (size_t t = c->ntr; t-- > 0;) {
		const struct capture *cap = c->tr[t].cap;
		bool has_k = cap && cap->has_uname,
		     has_c = cap && (cap->possible || cap->online || cap->nproc);
		for (size_t i = 0; i < c->nruns; i++) {
			const struct sweep_run *r = &c->runs[i];
			if (!r->workload && r->trace_idx == t &&
			    sweep_in_shard(i, c->shard_i, c->shard_n) &&
			    ((r->kernel_auto && !has_k) || (r->nr_cpus_auto && !has_c))) {
				(void)detect_trace(c, t);
				break;
			}
		}
	}
}

/* The model of job j as `replay` builds it for the same options: the
 * spec's axes as given options, a capture's metadata for what they leave
 * (val_capture_model), then `auto` from the trace's own counts
 * (run_detect). extra (n bytes): the config_json members a capture's start
 * state and each auto value add; "kernel_from" and "nr_cpus_from" are
 * absent from every key recorded before auto existed, so no such run is
 * taken as done for an auto run. A workload's auto is replay --workload's
 * model, the defaults, with its key unchanged. 0, or 1 when the input
 * cannot be read. */
static int plan_model(struct sweep_cmd *c, struct job *j, char *extra, size_t n)
{
	static const uint32_t given[SWEEP_AX_NR] = {
		[SWEEP_AX_ALLOCATOR] = RUN_GIVEN_ALLOCATOR,
		[SWEEP_AX_KERNEL] = RUN_GIVEN_KERNEL,
		[SWEEP_AX_NR_CPUS] = RUN_GIVEN_NR_CPUS,
		[SWEEP_AX_ALIGN] = RUN_GIVEN_ALIGN,
		[SWEEP_AX_SLUB_DEBUG] = RUN_GIVEN_SLUB_DEBUG,
		[SWEEP_AX_SLAB_DEBUG] = RUN_GIVEN_SLAB_DEBUG,
		[SWEEP_AX_SLUB_MIN_ORDER] = RUN_GIVEN_MIN_ORDER,
		[SWEEP_AX_SLUB_MAX_ORDER] = RUN_GIVEN_MAX_ORDER,
		[SWEEP_AX_SLUB_MIN_OBJECTS] = RUN_GIVEN_MIN_OBJECTS,
		[SWEEP_AX_CPU_PARTIAL] = RUN_GIVEN_NO_CPU_PARTIAL,
		[SWEEP_AX_SLAB_MAX_ORDER] = RUN_GIVEN_SLAB_MAX_ORDER,
		[SWEEP_AX_SLAB_NOMERGE] = RUN_GIVEN_CONFIG,
		[SWEEP_AX_SLUB_TINY] = RUN_GIVEN_CONFIG,
		[SWEEP_AX_RANDOM_KMALLOC] = RUN_GIVEN_CONFIG,
		[SWEEP_AX_SLAB_BUCKETS] = RUN_GIVEN_CONFIG,
		[SWEEP_AX_SHEAF_CAPACITY] = RUN_GIVEN_CONFIG,
		[SWEEP_AX_BARN_LIMIT] = RUN_GIVEN_CONFIG,
	};
	/* the switches as --config gives them: a capture's evidence (its
	 * slabinfo's cache names, its cmdline's slab_nomerge) does not
	 * override them */
	static const uint32_t config[SWEEP_AX_NR] = {
		[SWEEP_AX_SLAB_NOMERGE] = POLICY_SET_NOMERGE,
		[SWEEP_AX_SLUB_TINY] = POLICY_SET_SLUB_TINY,
		[SWEEP_AX_RANDOM_KMALLOC] = POLICY_SET_RANDOM_KMALLOC,
		[SWEEP_AX_SLAB_BUCKETS] = POLICY_SET_SLAB_BUCKETS,
		[SWEEP_AX_SHEAF_CAPACITY] = POLICY_SET_SHEAVES,
		[SWEEP_AX_BARN_LIMIT] = POLICY_SET_SHEAVES,
	};
	const struct sweep_run *r = &j->r;
	struct run_model *m = &j->model;
	run_model_default(m);
	m->allocator = r->allocator;
	m->cfg = r->cfg;
	m->sites_path = r->align_sites;
	for (int a = 0; a < SWEEP_AX_NR; a++)
		if (r->given & 1u << a) {
			m->given |= given[a];
			m->config_given |= config[a];
		}
	m->given |= r->align_sites ? RUN_GIVEN_ALIGN_SITES : 0;
	if (!r->kernel_auto)
		m->kernel_from = "the sweep spec";
	if (!r->nr_cpus_auto)
		m->nr_cpus_from = "the sweep spec";
	extra[0] = '\0';
	j->file = r->trace;
	if (r->workload)
		return c->wl_bad[r->trace_idx];
	struct sweep_trace *tr = &c->tr[r->trace_idx];
	struct err e;
	err_clear(&e);
	if (tr->bad)
		return 1;
	if (tr->cap) {
		struct run_capture rc = {.cap = tr->cap, .start = true};
		const char *x = run_capture_config_extra(&rc);
		j->file = tr->file;
		/* it succeeded for this capture in open_traces */
		if (val_capture_model(tr->cap, m, NULL, &e))
			return 1;
		(void)snprintf(extra, n, "%s", x ? x : "");
	}
	if ((!m->kernel_from || !m->nr_cpus_from) && detect_trace(c, r->trace_idx))
		return 1;
	if (!m->kernel_from || !m->nr_cpus_from)
		(void)run_detect(m, &tr->st);
	/* a trace that says nothing: the default, as replay's "from the default" */
	if (!m->kernel_from)
		m->kernel_from = "the default";
	if (!m->nr_cpus_from)
		m->nr_cpus_from = "the default";
	run_model_settle(m); /* align = auto: the profile's rule */
	size_t w = strlen(extra);
	if (r->kernel_auto)
		w += (size_t)snprintf(extra + w, n - w, "%s\"kernel_from\":\"%s\"", w ? "," : "",
				      m->kernel_from);
	if (r->nr_cpus_auto && w < n)
		(void)snprintf(extra + w, n - w, "%s\"nr_cpus_from\":\"%s\"", w ? "," : "",
			       m->nr_cpus_from);
	if ((r->kernel_auto || r->nr_cpus_auto) && !tr->said && !c->quiet)
		fprintf(stderr, "sweep: %s: auto: kernel %s from %s; nr_cpus %u from %s\n",
			r->trace, run_kernel_name(m), m->kernel_from, m->cfg.nr_cpus,
			m->nr_cpus_from);
	tr->said |= r->kernel_auto || r->nr_cpus_auto;
	return 0;
}

/* Plan run i into the next job slot: its configuration JSON and hash (the
 * same as `replay` writes for the same model and trace path, run.h, plus
 * where `auto` values came from), its shard, whether it is done already.
 * 0, or an exit status. */
static int plan_one(struct sweep_cmd *c, size_t i)
{
	struct job *j = &c->jobs_v[c->njobs];
	const struct sweep_run *r = &c->runs[i];
	struct err e;
	uint64_t ns, ev;
	err_clear(&e);
	if (strcmp(r->sample_every, "auto") && cli_parse_sample_every(r->sample_every, &ns, &ev)) {
		fprintf(stderr,
			"slabsim: %s: sample_every expects auto, N, Nev, Nns, Nus, Nms or Ns with "
			"N > 0, "
			"got '%s'\n",
			c->spec_path, r->sample_every);
		return SLABSIM_EXIT_INPUT;
	}
	if (!sweep_in_shard(i, c->shard_i, c->shard_n)) {
		c->nshard_other++;
		return 0;
	}
	char json[2048], extra[600];
	const struct run_workload *wl = r->workload ? &c->wls[r->trace_idx] : NULL;
	free(j->json); /* a slot reused after a done run */
	j->json = NULL;
	j->r = *r;
	if (plan_model(c, j, extra, sizeof(extra))) {
		/* named when its input failed: listed so that a plan never
		 * looks complete without it */
		if (c->dry)
			printf("%zu\terror\t%s\t(unreadable input)\t-\n", r->index, r->trace);
		c->nbad++;
		return 0;
	}
	j->seed = wl ? (r->seed_set ? r->seed : wl->seed) : 0;
	(void)run_config_json(&j->model, r->sample_every, wl, j->seed, extra[0] ? extra : NULL,
			      json, sizeof(json));
	if (!(j->json = strdup(json))) {
		fprintf(stderr, "slabsim: out of memory\n");
		return SLABSIM_EXIT_IO;
	}
	rec_config_hash(j->json, j->file, j->hash);
	make_label(j, j->label, sizeof(j->label));
	int has = merge_has_config(c->m, j->hash, &e);
	if (has < 0)
		return cli_fail(&e);
	if (c->dry)
		printf("%zu\t%s\t%s\t%s\t%s\n", j->r.index, has ? "done" : "todo", j->r.trace,
		       j->label, j->hash);
	if (has)
		c->ndone++;
	else
		c->njobs++;
	return 0;
}

/* Start the next job in a forked worker (parsing its trace first if no run
 * of it started yet). 1 when a worker started, 0 when the job's trace could
 * not be read (its runs are failed), -1 when fork failed. */
static int start_job(struct sweep_cmd *c)
{
	struct job *j = &c->jobs_v[c->next];
	size_t t = j->r.trace_idx;
	char scratch[4200];
	/* parse each trace once, when its first run starts (the workers of
	 * the previous trace keep running meanwhile) */
	int rc;
	if (!j->r.workload && !c->arr[t] &&
	    (rc = load_trace(c->tr[t].file, sweep_spec_kallsyms(c->spec), c->spec_path,
			     sweep_spec_trace_line(c->spec, t), &c->arr[t], &c->t_parse,
			     c->quiet))) {
		if (!c->status)
			c->status = err_exit_code(rc);
		for (; c->next < c->njobs && !c->jobs_v[c->next].r.workload &&
		       c->jobs_v[c->next].r.trace_idx == t;
		     c->next++) {
			c->pg.done++;
			c->pg.failed++;
			c->left[t]--;
		}
		progress_show(&c->pg, NULL, 0, false, 0);
		return 0;
	}
	j->nev = j->r.workload ? 0 : evarr_len(c->arr[t]);
	scratch_path(scratch, sizeof(scratch), c->tmp, j->r.index);
	unlink_scratch(c->tmp, j->r.index);
	j->t0 = run_now();
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "slabsim: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		/* die with the parent: a killed sweep leaves no workers writing
		 * scratch files nobody merges */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(SLABSIM_EXIT_IO);
		(void)sigaction(SIGINT, &c->old_int, NULL);
		(void)sigaction(SIGTERM, &c->old_term, NULL);
		_exit(run_one(j, j->r.workload ? NULL : c->arr[t],
			      j->r.workload ? NULL : c->tr[t].cap,
			      j->r.workload ? &c->wls[t] : NULL,
			      j->r.workload ? &c->ids[c->ntr + t] : &c->ids[t], scratch));
	}
	j->pid = pid;
	c->next++;
	c->running++;
	return 1;
}

/* A worker ended: merge its scratch file into the database, count it. */
static void reap_job(struct sweep_cmd *c, pid_t pid, int ws)
{
	struct job *j = NULL;
	struct err e;
	err_clear(&e);
	for (size_t i = 0; i < c->next; i++)
		if (c->jobs_v[i].pid == pid)
			j = &c->jobs_v[i];
	if (!j)
		return;
	c->running--;
	j->pid = 0;
	double secs = run_now() - j->t0;
	c->replay_secs += secs;
	bool ok = WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
	if (ok) {
		char scratch[4200];
		int rc;
		scratch_path(scratch, sizeof(scratch), c->tmp, j->r.index);
		if (j->r.workload)
			j->nev = scratch_events(scratch);
		if ((rc = merge_file(c->m, scratch, NULL, &e))) {
			fprintf(stderr, "slabsim: sweep run %zu (%s): %s\n", j->r.index, j->label,
				e.msg);
			ok = false;
			if (!c->status)
				c->status = err_exit_code(rc);
		}
	} else if (!c->status) {
		c->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : SLABSIM_EXIT_IO;
		if (!WIFEXITED(ws) && !stop_signal)
			fprintf(stderr, "slabsim: sweep run %zu (%s): worker killed by signal %d\n",
				j->r.index, j->label, WTERMSIG(ws));
	}
	unlink_scratch(c->tmp, j->r.index);
	c->pg.done++;
	if (!ok)
		c->pg.failed++;
	else
		c->pg.events += j->nev;
	progress_show(&c->pg, j, secs, ok, j->nev);
	if (!j->r.workload && --c->left[j->r.trace_idx] == 0) {
		evarr_free(c->arr[j->r.trace_idx]);
		c->arr[j->r.trace_idx] = NULL;
	}
}

/* Run the planned jobs, at most c->jobs at once; SIGINT/SIGTERM stop them
 * (finished runs are kept). */
static void sweep_execute(struct sweep_cmd *c)
{
	for (size_t i = 0; i < c->njobs; i++)
		if (!c->jobs_v[i].r.workload)
			c->left[c->jobs_v[i].r.trace_idx]++;
	clean_stale(c->db);
	(void)snprintf(c->tmp, sizeof(c->tmp), "%s.sweep.%ld", c->db, (long)getpid());
	if (mkdir(c->tmp, 0700) != 0) {
		fprintf(stderr, "slabsim: %s: %s\n", c->tmp, strerror(errno));
		c->tmp[0] = '\0';
		c->status = SLABSIM_EXIT_IO;
		return;
	}
	struct sigaction sa = {0};
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGINT, &sa, &c->old_int);
	(void)sigaction(SIGTERM, &sa, &c->old_term);
	fflush(stdout);
	fflush(stderr);
	c->pg = (struct progress){
		.bar = c->progress < 0 ? isatty(STDERR_FILENO) : c->progress,
		.quiet = c->quiet,
		.total = c->njobs,
		.t0 = run_now(),
	};
	progress_show(&c->pg, NULL, 0, true, 0);
	bool forked_out = false;
	while ((c->next < c->njobs || c->running) && !stop_signal && !forked_out) {
		while (c->next < c->njobs && c->running < c->jobs && !stop_signal) {
			int st = start_job(c);
			if (st < 0) {
				if (!c->running) {
					c->status = SLABSIM_EXIT_IO;
					forked_out = true;
				}
				break;
			}
		}
		if (forked_out)
			break;
		int ws;
		pid_t pid = waitpid(-1, &ws, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		reap_job(c, pid, ws);
	}
	if (stop_signal) {
		for (size_t i = 0; i < c->next; i++)
			if (c->jobs_v[i].pid > 0)
				(void)kill(c->jobs_v[i].pid, SIGTERM);
		while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
			;
		if (c->pg.bar && !c->quiet)
			fputc('\n', stderr);
		fprintf(stderr,
			"slabsim: sweep interrupted; %zu of %zu runs recorded, rerun to resume\n",
			c->pg.done - c->pg.failed, c->njobs);
		c->status = 130;
	} else if (!c->quiet) {
		double wall = run_now() - c->pg.t0;
		fprintf(stderr,
			"sweep: %zu runs, %zu failed; parse %.3f s, replay %.3f s (sum over "
			"workers), wall %.3f s\n",
			c->pg.done, c->pg.failed, c->t_parse, c->replay_secs, wall);
	}
	(void)sigaction(SIGINT, &c->old_int, NULL);
	(void)sigaction(SIGTERM, &c->old_term, NULL);
}

static void sweep_free(struct sweep_cmd *c)
{
	if (c->tmp[0])
		remove_dir(c->tmp);
	merge_close(c->m);
	if (c->arr)
		for (size_t t = 0; t < sweep_spec_ntraces(c->spec); t++)
			evarr_free(c->arr[t]);
	free(c->arr);
	if (c->wls)
		for (size_t w = 0; w < sweep_spec_nworkloads(c->spec); w++)
			run_workload_close(&c->wls[w]);
	free(c->wls);
	free(c->wl_bad);
	free(c->ids);
	if (c->tr)
		for (size_t t = 0; t < sweep_spec_ntraces(c->spec); t++)
			capture_close(c->tr[t].cap);
	free(c->tr);
	free(c->left);
	if (c->jobs_v)
		for (size_t i = 0; i <= c->njobs && i < c->nruns; i++)
			free(c->jobs_v[i].json);
	free(c->jobs_v);
	free(c->runs);
	sweep_spec_free(c->spec);
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_cmd c = {.plan_held = SIZE_MAX};
	int rc = sweep_args(argc, argv, &c);
	if (rc)
		return rc < 0 ? 0 : rc;
	if ((rc = sweep_load(&c)))
		goto out;
	detect_traces(&c);
	for (size_t i = 0; i < c.nruns; i++)
		if ((rc = plan_one(&c, i)))
			goto out;
	if (c.dry)
		goto out;
	/* planning keeps the array it parsed last only for the first run */
	if (c.plan_held != SIZE_MAX &&
	    !(c.njobs && !c.jobs_v[0].r.workload && c.jobs_v[0].r.trace_idx == c.plan_held)) {
		evarr_free(c.arr[c.plan_held]);
		c.arr[c.plan_held] = NULL;
	}
	if (!c.quiet)
		fprintf(stderr,
			"sweep: %zu runs in %s; %zu in other shards, %zu already done, %zu to "
			"run with %u workers\n",
			c.nruns, c.spec_path, c.nshard_other, c.ndone, c.njobs, c.jobs);
	if (!c.quiet && c.nbad)
		fprintf(stderr, "sweep: %zu runs skipped: their input cannot be read\n", c.nbad);
	if (c.njobs)
		sweep_execute(&c);
out:
	sweep_free(&c);
	return rc ? rc : c.status;
}
