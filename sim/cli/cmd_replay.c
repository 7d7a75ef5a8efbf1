/* cmd_replay.c - `slabsim replay TRACE`. */
#include "capture.h"
#include "cli.h"
#include "err.h"
#include "evarr.h"
#include "layout.h"
#include "learn.h"
#include "metrics.h"
#include "policy.h"
#include "prefetch.h"
#include "rec.h"
#include "sim.h"
#include "trace.h"
#include "validate.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	OPT_DB = CLI_OPT_CMD,
	OPT_NO_DB,
	OPT_FORMAT,
	OPT_SLABINFO,
	OPT_SAMPLE_EVERY,
	OPT_NO_SAMPLE_CACHES,
	OPT_STRICT,
	OPT_NO_NAME_PASS,
	OPT_NO_PREFETCH,
	OPT_NAME_THREADS,
	OPT_NO_SPILL,
	OPT_PARSE_THREADS,
	OPT_CHECK,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	/* docs/metrics.md views */
	OPT_CALLER,
	OPT_ALLOC,
	OPT_PERF,
	OPT_SORT,
	OPT_LINES,
	OPT_SLABINFO_TOTALS,
	OPT_SLABINFO_LIST,
	OPT_FINAL_SYSFS,
	OPT_MEM_MIB,
	OPT_WORKLOAD, /* replay --workload (replay_workload.c) */
	OPT_SEED,
	OPT_DURATION,
	OPT_REPEAT,
	OPT_CACHES,
	OPT_PHASE_SUMMARY,
};

/* Options of the docs/metrics.md views (kept apart from the run options). */
struct replay_views {
	bool caller, alloc, perf, slabinfo_totals;
	int slabinfo_list; /* 0 none, 1 by name, 2 by loss */
	enum metrics_sort_key keys[METRICS_SORT_MAX];
	int nkeys, lines;
	const char *sysfs; /* --final-sysfs FILE */
	uint64_t mem_mib;
};

/* Returns 1 if c was a view option, 0 if not, -1 on a bad value (message
 * printed). */
static int views_opt(struct replay_views *v, int c, const char *arg)
{
	struct err e;
	uint32_t u;
	switch (c) {
	case OPT_CALLER:
		v->caller = true;
		return 1;
	case OPT_ALLOC:
		v->alloc = true;
		return 1;
	case OPT_PERF:
		v->perf = true;
		return 1;
	case OPT_SORT:
		err_clear(&e);
		if (metrics_parse_sort(arg, v->keys, &v->nkeys, &e)) {
			fprintf(stderr, "slabsim: %s\n", e.msg);
			return -1;
		}
		return 1;
	case OPT_LINES:
		if (cli_parse_u32("--lines", arg, 1, UINT32_MAX / 2, &u))
			return -1;
		v->lines = (int)u;
		return 1;
	case OPT_SLABINFO_TOTALS:
		v->slabinfo_totals = true;
		return 1;
	case OPT_SLABINFO_LIST:
		if (strcmp(arg, "name") && strcmp(arg, "loss")) {
			fprintf(stderr, "slabsim: --slabinfo expects name or loss, got '%s'\n",
				arg);
			return -1;
		}
		v->slabinfo_list = strcmp(arg, "loss") ? 1 : 2;
		return 1;
	case OPT_FINAL_SYSFS:
		v->sysfs = arg;
		return 1;
	case OPT_MEM_MIB:
		if (cli_parse_u32("--mem-mib", arg, 4, 1u << 30, &u))
			return -1;
		if (u % 4) {
			fprintf(stderr,
				"slabsim: --mem-mib expects a multiple of 4 (MAX_ORDER "
				"blocks are 4 MiB), got %u\n",
				u);
			return -1;
		}
		v->mem_mib = u;
		return 1;
	default:
		return 0;
	}
}

void usage_replay(FILE *f)
{
	fprintf(f,
		"Usage: slabsim replay TRACE|CAPTURE_DIR [OPTIONS]\n"
		"       slabsim replay --workload SPEC [--seed S] [--duration T] [--repeat N]\n"
		"                      [OPTIONS]\n"
		"\n"
		"Replay the kmem: events of TRACE (ftrace text from tracefs, trace-cmd report or\n"
		"perf script; .gz/.xz/.zst are decompressed; '-' reads stdin) through an\n"
		"allocator model, record the run in SQLite and print a summary. A capture\n"
		"directory (docs/capture-format.md) configures the model from its metadata\n"
		"(kernel profile, possible CPUs, slub_debug and slub_* parameters); model\n"
		"options given here override it. Trace markers (trace_marker writes) are\n"
		"labelled samples.\n"
		"\n");
	cli_usage_model_opts(f);
	fprintf(f,
		"\n"
		"Run options:\n"
		"  --db FILE             results database (default slabsim.db)\n"
		"  --no-db               do not record the run\n"
		"  --format table|json   summary format on stdout (default table)\n"
		"  --final-slabinfo FILE write the simulated end state as /proc/slabinfo 2.1\n"
		"  --sample-every SPEC   sampling period: N or Nev (events), or a virtual time\n"
		"                        Nns, Nus, Nms, Ns (default 1000ev)\n"
		"  --no-sample-caches    do not record the per-cache time series\n"
		"  --strict              stop at the first malformed line (default: count and\n"
		"                        skip it, and report the count)\n"
		"  --no-name-pass        do not read the trace twice to learn cache names\n"
		"  --name-threads N      read a plain trace file's name pass in N byte ranges\n"
		"                        on N threads, 1 to 64 (default 1: one parser\n"
		"                        thread; same results; N > 1 is faster but its memory\n"
		"                        grows with the trace's frees, see README)\n"
		"  --no-spill            read the trace file a second time for the replay\n"
		"                        (default: the name pass keeps the parsed events in\n"
		"                        an unlinked file in $TMPDIR, 32 bytes per event,\n"
		"                        and the replay reads them back; same results)\n"
		"  --no-prefetch         parse on the replay thread (default: a second thread\n"
		"                        parses ahead; same results, one core)\n"
		"  --parse-threads N     threads parsing ahead a plain trace file, 1 to 64, in\n"
		"                        chunks taken in file order (default: 2 with three\n"
		"                        cores or more, else 1; same results)\n"
		"  --phase-summary       print, per phase between markers, the change of slab\n"
		"                        pages, waste and live objects per cache (on stderr\n"
		"                        with --format json)\n"
		"  --check               walk the model's invariants after every event (slow)\n"
		"  --progress, --no-progress  progress bar on stderr (default: when a terminal)\n"
		"  -q, --quiet           no summary on stdout\n"
		"\n"
		"Metrics views (every figure is defined in docs/metrics.md; the views replace\n"
		"the summary table on stdout):\n"
		"  --caller              per call site table, as perf kmem stat --caller\n"
		"  --alloc               per allocation pointer table, as perf kmem stat --alloc\n"
		"                        (also records the table perf_ptrs in the database;\n"
		"                        keeps every pointer's record, as perf: exact figures\n"
		"                        even for double frees, memory grows with the pointers)\n"
		"  --perf                perf kmem stat's SUMMARY alone\n"
		"  -s, --sort KEYS       sort keys of those tables: ptr, callsite, bytes, hit,\n"
		"                        pingpong, frag (default frag,hit,bytes, as perf)\n"
		"  -l, --lines N         print at most N rows per table (default all)\n"
		"  --slabinfo-totals     totals as tools/mm/slabinfo -T prints them\n"
		"  --slabinfo name|loss  the cache list as slabinfo prints it, by name or, as\n"
		"                        slabinfo -L, by loss\n"
		"  --final-sysfs FILE    write the sysfs attributes slabinfo reads (TSV), end "
		"state\n"
		"  --mem-mib N           simulated zone size for the unusable free space index\n"
		"                        (MiB, a multiple of 4; default %d)\n"
		"Synthetic workloads (docs/workloads.md), generated as they are replayed:\n"
		"  --workload SPEC       replay the workload SPEC instead of a TRACE\n"
		"  --seed S              its seed (default: the spec's, else 1)\n"
		"  --duration T          virtual time, e.g. 60s (default: the spec's)\n"
		"  --repeat N            run seeds S..S+N-1, each recorded as a run, and report\n"
		"                        mean, sd and 95%% confidence interval of the headline\n"
		"                        figures (table repetitions in the database)\n"
		"  --caches SPEC         with a TRACE: create SPEC's caches first (replays a\n"
		"                        `slabsim synth` trace exactly as --workload does)\n"
		"  -h, --help            this help\n"
		"\n"
		"Anomalies of real traces (frees of pointers allocated before tracing began,\n"
		"allocations at live addresses, kfree(NULL), lost events) are counted and\n"
		"reported, never fatal.\n\n%s",
		METRICS_MEM_MIB_DEFAULT, cli_exit_codes_help);
}

/* The name pass's source when it spills: every event it reads also goes
 * into the spilled array. A failed write (a full $TMPDIR) only ends the
 * spilling: the replay then reads the trace again. */
struct spill_tee {
	struct trace_source in;
	struct evarr *a;
	bool failed;
	struct err why;
};

static int tee_next(void *ctx, struct trace_event *ev, struct err *e)
{
	struct spill_tee *t = ctx;
	int rc = t->in.next(t->in.ctx, ev, e);
	if (rc == 1 && !t->failed && evarr_push(t->a, ev, t->in.id_space, &t->why))
		t->failed = true;
	return rc;
}

static void tee_progress(void *ctx, uint64_t *done, uint64_t *total)
{
	struct spill_tee *t = ctx;
	t->in.progress(t->in.ctx, done, total);
}

static const char *spill_dir(void)
{
	const char *d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

/* The replay reads the trace through parser threads unless told not to. */
static int open_source(struct trace_reader *tr, bool prefetch, unsigned threads,
		       struct trace_prefetch **pf, struct trace_source *src, struct err *e)
{
	if (!prefetch) {
		trace_as_source(src, tr);
		return 0;
	}
	struct trace_prefetch_opts po = {.threads = threads};
	int rc = trace_prefetch_open_opts(tr, &po, pf, e);
	if (!rc)
		trace_prefetch_as_source(src, *pf, trace_path(tr));
	return rc;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_MODEL_LONGOPTS,
		{"db", required_argument, NULL, OPT_DB},
		{"no-db", no_argument, NULL, OPT_NO_DB},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"final-slabinfo", required_argument, NULL, OPT_SLABINFO},
		{"sample-every", required_argument, NULL, OPT_SAMPLE_EVERY},
		{"no-sample-caches", no_argument, NULL, OPT_NO_SAMPLE_CACHES},
		{"strict", no_argument, NULL, OPT_STRICT},
		{"no-name-pass", no_argument, NULL, OPT_NO_NAME_PASS},
		{"no-prefetch", no_argument, NULL, OPT_NO_PREFETCH},
		{"name-threads", required_argument, NULL, OPT_NAME_THREADS},
		{"no-spill", no_argument, NULL, OPT_NO_SPILL},
		{"parse-threads", required_argument, NULL, OPT_PARSE_THREADS},
		{"check", no_argument, NULL, OPT_CHECK},
		{"progress", no_argument, NULL, OPT_PROGRESS},
		{"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
		{"phase-summary", no_argument, NULL, OPT_PHASE_SUMMARY},
		{"quiet", no_argument, NULL, 'q'},
		{"caller", no_argument, NULL, OPT_CALLER},
		{"alloc", no_argument, NULL, OPT_ALLOC},
		{"perf", no_argument, NULL, OPT_PERF},
		{"sort", required_argument, NULL, OPT_SORT},
		{"lines", required_argument, NULL, OPT_LINES},
		{"slabinfo-totals", no_argument, NULL, OPT_SLABINFO_TOTALS},
		{"slabinfo", required_argument, NULL, OPT_SLABINFO_LIST},
		{"final-sysfs", required_argument, NULL, OPT_FINAL_SYSFS},
		{"mem-mib", required_argument, NULL, OPT_MEM_MIB},
		{"workload", required_argument, NULL, OPT_WORKLOAD},
		{"seed", required_argument, NULL, OPT_SEED},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"repeat", required_argument, NULL, OPT_REPEAT},
		{"caches", required_argument, NULL, OPT_CACHES},
		{NULL, 0, NULL, 0},
	};
	const char *workload = NULL, *seed = NULL, *duration = NULL, *caches = NULL;
	uint32_t repeat = 1;
	struct cli_model m;
	const char *db = "slabsim.db", *slabinfo = NULL, *sample_spec = "1000ev";
	bool prefetch = true, spill = true;
	/* 1: the serial pass, whose memory follows the live set (the ranges
	 * of N > 1 keep every free of a pointer they did not see allocated) */
	uint32_t name_threads = 1, parse_threads = 0;
	bool json = false, strict = false, name_pass = true, check = false, quiet = false;
	bool sample_caches = true, phase_summary = false;
	uint32_t given = 0;
	int progress = -1;
	int c, r;
	struct sim_opts so = {0};
	struct replay_views views = {.lines = -1};

	cli_model_defaults(&m);
	so.sample_every_events = 1000;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hqs:l:", longopts, NULL)) != -1) {
		if ((r = cli_model_opt(&m, c, optarg)) < 0)
			return cli_bad_usage("replay");
		if (r) {
			given |= VAL_GIVEN(c);
			continue;
		}
		if (c == 's' || c == 'l')
			c = c == 's' ? OPT_SORT : OPT_LINES;
		if ((r = views_opt(&views, c, optarg)) < 0)
			return cli_bad_usage("replay");
		if (r)
			continue;
		switch (c) {
		case OPT_PHASE_SUMMARY:
			phase_summary = true;
			break;
		case 'h':
			usage_replay(stdout);
			return 0;
		case 'q':
			quiet = true;
			break;
		case OPT_DB:
			if (!*optarg) {
				fprintf(stderr,
					"slabsim: --db needs a file name (or use --no-db)\n");
				return cli_bad_usage("replay");
			}
			db = optarg;
			break;
		case OPT_NO_DB:
			db = NULL;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "json") == 0)
				json = true;
			else if (strcmp(optarg, "table") != 0) {
				fprintf(stderr,
					"slabsim: --format expects table or json, got '%s'\n",
					optarg);
				return cli_bad_usage("replay");
			}
			break;
		case OPT_SLABINFO:
			slabinfo = optarg;
			break;
		case OPT_SAMPLE_EVERY:
			if (cli_parse_sample_every(optarg, &so.sample_every_ns,
						   &so.sample_every_events)) {
				fprintf(stderr,
					"slabsim: --sample-every expects N, Nev, Nns, Nus, Nms or "
					"Ns with N > 0, got '%s'\n",
					optarg);
				return cli_bad_usage("replay");
			}
			sample_spec = optarg;
			break;
		case OPT_NO_SAMPLE_CACHES:
			sample_caches = false;
			break;
		case OPT_STRICT:
			strict = true;
			break;
		case OPT_NO_NAME_PASS:
			name_pass = false;
			break;
		case OPT_NO_SPILL:
			spill = false;
			break;
		case OPT_NO_PREFETCH:
			prefetch = false;
			break;
		case OPT_PARSE_THREADS:
			if (cli_parse_u32("--parse-threads", optarg, 1, 64, &parse_threads))
				return cli_bad_usage("replay");
			break;
		case OPT_NAME_THREADS:
			if (cli_parse_u32("--name-threads", optarg, 1, 64, &name_threads))
				return cli_bad_usage("replay");
			break;
		case OPT_CHECK:
			check = true;
			break;
		case OPT_PROGRESS:
			progress = 1;
			break;
		case OPT_NO_PROGRESS:
			progress = 0;
			break;
		case OPT_WORKLOAD:
			workload = optarg;
			break;
		case OPT_SEED:
			seed = optarg;
			break;
		case OPT_DURATION:
			duration = optarg;
			break;
		case OPT_REPEAT:
			if (cli_parse_u32("--repeat", optarg, 1, 1000000, &repeat))
				return cli_bad_usage("replay");
			break;
		case OPT_CACHES:
			caches = optarg;
			break;
		default:
			return cli_bad_usage("replay");
		}
	}
	if (workload) {
		if (optind != argc || caches) {
			fprintf(stderr, "slabsim: --workload replaces the TRACE argument%s\n",
				caches ? " and --caches" : "");
			return cli_bad_usage("replay");
		}
		struct cli_replay_ctl ctl = {
			.m = &m,
			.so = so,
			.db = db,
			.slabinfo = slabinfo,
			.sample_spec = sample_spec,
			.json = json,
			.quiet = quiet,
		};
		ctl.so.ops = policy_find(m.allocator);
		ctl.so.cfg = m.cfg;
		ctl.so.sample_caches = sample_caches;
		ctl.so.check = check;
		ctl.so.progress = progress < 0 ? isatty(STDERR_FILENO) : progress;
		return cli_replay_workload(&ctl, workload, seed, duration, repeat);
	}
	if (seed || duration || repeat != 1) {
		fprintf(stderr, "slabsim: --seed, --duration and --repeat need --workload\n");
		return cli_bad_usage("replay");
	}
	const char *path = cli_one_arg(argc, argv, optind, "replay", "TRACE argument", "");
	if (!path)
		return cli_bad_usage("replay");
	struct err e;
	struct capture *cap = NULL;
	struct val_phases *phases = NULL;
	err_clear(&e);
	if (capture_is_dir(path)) {
		if (capture_open(path, &cap, &e) ||
		    val_capture_model(cap, &m, given, quiet ? NULL : stderr, &e)) {
			capture_close(cap);
			return cli_fail(&e);
		}
		path = cap->trace;
	}
	if (phase_summary && val_phases_create(&phases, &e)) {
		capture_close(cap);
		return cli_fail(&e);
	}
	so.on_marker = phases ? val_phases_marker : NULL;
	so.marker_ctx = phases;
	so.ops = policy_find(m.allocator);
	so.cfg = m.cfg;
	so.sample_caches = sample_caches;
	so.check = check;
	so.progress = progress < 0 ? isatty(STDERR_FILENO) : progress;
	so.metrics.mem_mib = views.mem_mib;
	so.metrics.record_ptrs = views.alloc;

	struct sim *s = NULL;
	struct trace_reader *tr = NULL;
	struct trace_prefetch *pf = NULL;
	struct evarr *spill_arr = NULL;
	struct rec *rec = NULL;
	struct trace_opts to = {.strict = strict};
	int rc, status = 0;
	double t0 = cli_now();
	FILE *slabinfo_f = NULL, *sysfs_f = NULL;
	struct stat st_in, st_out;
	if (slabinfo && stat(path, &st_in) == 0 && stat(slabinfo, &st_out) == 0 &&
	    st_in.st_dev == st_out.st_dev && st_in.st_ino == st_out.st_ino) {
		/* fopen "w" would truncate the trace before it is read */
		fprintf(stderr, "slabsim: --final-slabinfo %s is the trace itself\n", slabinfo);
		status = cli_bad_usage("replay");
		goto out;
	}
	if (slabinfo && !(slabinfo_f = fopen(slabinfo, "w"))) {
		/* refuse before replaying, not after the run is recorded */
		fprintf(stderr, "slabsim: %s: %s\n", slabinfo, strerror(errno));
		status = SLABSIM_EXIT_IO;
		goto out;
	}
	if (views.sysfs && !(sysfs_f = fopen(views.sysfs, "w"))) {
		fprintf(stderr, "slabsim: %s: %s\n", views.sysfs, strerror(errno));
		status = SLABSIM_EXIT_IO;
		goto out;
	}
	if ((rc = sim_create(&so, &s, &e)) || (cap && (rc = val_capture_caches(s, cap, &e)))) {
		status = cli_fail(&e);
		goto out;
	}
	if (caches && (rc = cli_define_workload_caches(caches, s, &e))) {
		status = cli_fail(&e);
		goto out;
	}
	/* One read of the text when the name pass can keep what it parsed:
	 * not in strict mode, whose replay must stop at the first malformed
	 * line although the name pass reads past it. */
	bool spilled = false;
	if (name_pass && strcmp(path, "-") != 0 && spill && !strict && name_threads == 1) {
		struct trace_source in;
		struct spill_tee tee = {0};
		if ((rc = trace_open(path, &to, &tr, &e)) ||
		    (rc = open_source(tr, prefetch, parse_threads, &pf, &in, &e))) {
			status = cli_fail(&e);
			goto out;
		}
		if (evarr_spill_open(path, spill_dir(), 0, &spill_arr, &tee.why)) {
			tee.failed = true;
		}
		tee.in = in;
		tee.a = spill_arr;
		struct trace_source src = in;
		src.ctx = &tee;
		src.next = tee_next;
		src.progress = in.progress ? tee_progress : NULL;
		src.stats = NULL;
		src.peek_ptrs = NULL;
		if ((rc = sim_learn_names_source(s, &src, &e))) {
			status = cli_fail(&e);
			goto out;
		}
		/* the chunked prefetch keeps the counts: tr read nothing */
		if (!tee.failed &&
		    evarr_spill_finish(spill_arr, pf ? trace_prefetch_stats(pf) : trace_stats(tr),
				       &tee.why))
			tee.failed = true;
		trace_prefetch_close(pf);
		pf = NULL;
		trace_close(tr);
		tr = NULL;
		if (tee.failed) {
			if (!quiet)
				fprintf(stderr, "slabsim: note: %s; reading the trace again\n",
					tee.why.msg);
			evarr_free(spill_arr);
			spill_arr = NULL;
		} else {
			spilled = true;
		}
	} else if (name_pass && strcmp(path, "-") != 0) {
		/* the name pass ignores kmalloc events: their fields go unparsed */
		struct trace_opts lax = {.strict = false,
					 .skip_fields = (1u << TRACE_EV_KMALLOC) |
							(1u << TRACE_EV_KMALLOC_NODE)};
		struct trace_source src;
		bool done = false;
		if ((rc = learn_names_file(s, path, &lax, name_threads, so.progress, &done, &e)) ||
		    (!done && ((rc = trace_open(path, &lax, &tr, &e)) ||
			       (rc = open_source(tr, prefetch, parse_threads, &pf, &src, &e)) ||
			       (rc = sim_learn_names_source(s, &src, &e))))) {
			status = cli_fail(&e);
			goto out;
		}
		trace_prefetch_close(pf);
		pf = NULL;
		trace_close(tr);
		tr = NULL;
	}
	struct trace_source src;
	struct evarr_cursor cur;
	if (spilled) {
		evarr_source(&src, &cur, spill_arr);
	} else if ((rc = trace_open(path, &to, &tr, &e)) ||
		   (rc = open_source(tr, prefetch, parse_threads, &pf, &src, &e))) {
		status = cli_fail(&e);
		goto out;
	}
	if (db) {
		char cfg_json[640], model_json[512], dbg[8];
		const char *kernel = cli_kernel_name(&m);
		const char *align = policy_align_name(m.cfg.align);
		policy_slub_debug_str(m.cfg.slub_debug, dbg);
		(void)cli_model_json(&m, model_json, sizeof(model_json));
		(void)snprintf(cfg_json, sizeof(cfg_json), "{%s,\"sample_every\":\"%s\"}",
			       model_json, sample_spec);
		struct rec_run_info info = {
			.command = "replay",
			.trace_path = path,
			.allocator = m.allocator,
			.kernel = kernel,
			.align = align,
			.slub_debug = dbg,
			.nr_cpus = m.cfg.nr_cpus,
			.slub_min_order = m.cfg.slub_min_order,
			.slub_max_order = m.cfg.slub_max_order,
			.slub_min_objects = m.cfg.slub_min_objects,
			.sample_every = sample_spec,
			.config_json = cfg_json,
			.version = SLABSIM_VERSION,
		};
		int64_t run_id;
		if ((rc = rec_open(db, &rec, &e)) ||
		    (rc = rec_run_begin(rec, &info, &run_id, &e))) {
			status = cli_fail(&e);
			goto out;
		}
	}
	if ((rc = sim_replay_source(s, &src, rec, &e))) {
		status = cli_fail(&e);
		if (rec)
			fprintf(stderr, "slabsim: the run was not recorded in %s\n", db);
		goto out; /* rec_close rolls the open run back */
	}
	if (rec && (rc = sim_record(s, rec, cli_now() - t0, &e))) {
		status = cli_fail(&e);
		goto out;
	}
	bool views_on = views.caller || views.alloc || views.perf || views.slabinfo_totals ||
			views.slabinfo_list;
	if (!quiet && (json || !views_on))
		sim_print_summary(s, stdout, json, path,
				  spill_arr ? evarr_stats(spill_arr)
				  : pf	    ? trace_prefetch_stats(pf)
					    : trace_stats(tr));
	if (!quiet && !json && views_on) {
		struct sim_totals tt;
		sim_totals(s, &tt);
		if ((views.caller || views.alloc || views.perf) &&
		    metrics_print_perf(sim_metrics(s), stdout, views.caller, views.alloc,
				       views.keys, views.nkeys, views.lines,
				       tt.bytes_alloc_model_total)) {
			fprintf(stderr, "slabsim: out of memory\n");
			status = SLABSIM_EXIT_IO;
		}
		if (views.slabinfo_totals) {
			if (views.caller || views.alloc || views.perf)
				fputc('\n', stdout);
			metrics_print_slabinfo_totals(sim_policy(s), stdout);
		}
		if (views.slabinfo_list) {
			if (views.caller || views.alloc || views.perf || views.slabinfo_totals)
				fputc('\n', stdout);
			if (metrics_print_slabinfo_caches(sim_policy(s), stdout,
							  views.slabinfo_list == 2))
				status = SLABSIM_EXIT_IO;
		}
	}
	if (sysfs_f) {
		int bad = metrics_write_sysfs(sim_policy(s), sysfs_f);
		bad |= fclose(sysfs_f);
		sysfs_f = NULL;
		if (bad) {
			fprintf(stderr, "slabsim: %s: cannot write the sysfs file%s\n", views.sysfs,
				rec ? " (the run is recorded)" : "");
			status = SLABSIM_EXIT_IO;
		}
	}
	if (phases && (rc = val_phases_print(phases, s, json ? stderr : stdout, &e))) {
		status = cli_fail(&e);
		goto out;
	}
	if (slabinfo_f) {
		/* On a full disk the write fails in a flush: keep that errno,
		 * and remove the truncated file rather than leave it looking
		 * complete (only a regular file: never a device or a FIFO). */
		struct stat st;
		bool regular = fstat(fileno(slabinfo_f), &st) == 0 && S_ISREG(st.st_mode);
		errno = 0;
		int bad = sim_write_slabinfo(s, slabinfo_f) || fflush(slabinfo_f);
		int why = errno;
		if (fclose(slabinfo_f) && !bad) {
			bad = 1;
			why = errno;
		}
		slabinfo_f = NULL;
		if (bad) {
			if (regular)
				(void)unlink(slabinfo);
			fprintf(stderr, "slabsim: %s: cannot write the slabinfo file: %s%s\n",
				slabinfo, why ? strerror(why) : "write error",
				rec ? " (the run is recorded)" : "");
			status = SLABSIM_EXIT_IO;
		}
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "slabsim: error writing output\n");
		status = SLABSIM_EXIT_IO;
	}
out:
	if (slabinfo_f)
		fclose(slabinfo_f);
	if (sysfs_f)
		fclose(sysfs_f);
	rec_close(rec);
	trace_prefetch_close(pf);
	trace_close(tr);
	sim_destroy(s);
	evarr_free(spill_arr); /* after the sim, which may hold its strings */
	val_phases_destroy(phases);
	capture_close(cap);
	return status;
}
