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
#include "sat.h"
#include "progress.h"
#include "sim.h"
#include "summary.h"
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
	OPT_KALLSYMS,
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
	OPT_EMPTY_START,
};

/* Options of the docs/metrics.md views (kept apart from the run options). */
struct replay_views {
	bool caller, alloc, perf, slabinfo_totals;
	int slabinfo_list; /* 0 none, 1 by name, 2 by loss */
	enum metrics_sort_key keys[METRICS_SORT_MAX];
	int nkeys, lines;
	const char *sort; /* -s as given: perf keys with a perf view, else the cache table's */
	struct sim_table_view table;
	const char *sysfs; /* --final-sysfs FILE */
	uint64_t mem_mib;
};

/* Returns 1 if c was a view option, 0 if not, -1 on a bad value (message
 * printed). */
static int views_opt(struct replay_views *v, int c, const char *arg)
{
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
		v->sort = arg; /* parsed once every view option is known */
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
		"Replay the kmem: events of TRACE through an allocator model, record the run\n"
		"in SQLite and print a summary. A capture directory (docs/capture-format.md)\n"
		"configures the model from its metadata (the allocator its kernel ran,\n"
		"kernel profile, possible CPUs, slub_debug and slub_* parameters); model\n"
		"options given here override it, and the replay starts from the state the\n"
		"capture recorded before its trace (slabinfo-start.txt,\n"
		"slab-attrs-start.tsv: as validate does; --empty-start starts empty). The\n"
		"summary says so ('start:' line, JSON \"start\"): the reason why its pages\n"
		"differ from those of the capture's trace file replayed alone.\n"
		"Trace markers (trace_marker writes) are labelled samples.\n"
		"\n"
		"Inputs (told apart by their first bytes, not their names):\n"
		"  tracefs text       /sys/kernel/tracing/trace or trace_pipe, kmem: events\n"
		"  trace-cmd report   its text output (trace-cmd report -i trace.dat)\n"
		"  trace.dat          trace-cmd record's binary file, read through libtracecmd\n"
		"                     (when built with it: meson -Dtracedat=enabled)\n"
		"  perf.data          perf record -e 'kmem:*' -o FILE: as its perf script text;\n"
		"                     call sites named by the kernel's symbols (--kallsyms)\n"
		"  perf script        its text output\n"
		"  compressed         any of those compressed with gzip, xz, zstd or bzip2\n"
		"                     (.gz .xz .zst .bz2), through that program in PATH\n"
		"  CAPTURE_DIR        a capture directory: trace.txt.zst, trace.txt, .gz or .xz\n"
		"                     with its metadata and start state (docs/capture-format.md)\n"
		"  '-', FIFO, <(...)  standard input, a named pipe or a process substitution,\n"
		"                     any of the above but a capture directory, as a stream\n"
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
		"  --kallsyms FILE       a perf.data's kernel symbols (a copy of /proc/kallsyms\n"
		"                        of the recorded boot; default as perf script: the\n"
		"                        build-id cache ~/.debug, then /proc/kallsyms when\n"
		"                        the running kernel is the recorded one)\n"
		"  --empty-start         with a CAPTURE_DIR: start with no object, not from\n"
		"                        its recorded start state\n"
		"  --phase-summary       print, per phase between markers, the change of slab\n"
		"                        pages, waste and live objects per cache (on stderr\n"
		"                        with --format json)\n"
		"  --check               walk the model's invariants after every event (slow)\n"
		"  --progress, --no-progress  progress bar on stderr (default: when a terminal)\n"
		"  -q, --quiet           no summary on stdout\n"
		"  -o, --output FILE     write the summary (or the views) to FILE instead of\n"
		"                        stdout\n"
		"\n");
	fprintf(f,
		"Metrics views (every figure is defined in docs/metrics.md; the views replace\n"
		"the summary table on stdout; with --format json, the summary stays and\n"
		"--caller and --alloc add their tables as its members \"caller\" and \"alloc\",\n"
		"sorted and cut by -s and -l; perf's SUMMARY is its member \"perf_kmem\"):\n"
		"  --caller              per call site table, as perf kmem stat --caller\n"
		"  --alloc               per allocation pointer table, as perf kmem stat --alloc\n"
		"                        (also records the table perf_ptrs in the database;\n"
		"                        keeps every pointer's record, as perf: exact figures\n"
		"                        even for double frees, memory grows with the pointers)\n"
		"  --perf                perf kmem stat's SUMMARY alone\n"
		"  -s, --sort KEYS       sort keys of those tables: ptr, callsite, bytes, hit,\n"
		"                        pingpong, frag (default frag,hit,bytes, as perf);\n"
		"                        without them, the summary's cache table: pages (the\n"
		"                        default), waste, live or name\n"
		"  -l, --lines N         print at most N rows per table (default all; the\n"
		"                        summary's cache table: 20, JSON all)\n"
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

/* Everything `slabsim replay` was told. */
struct replay_args {
	struct run_model m;
	struct run_read read;
	struct sim_opts so;
	struct replay_views views;
	const char *path; /* TRACE or CAPTURE_DIR */
	const char *db, *slabinfo, *sample_spec, *caches;
	const char *output; /* -o: stdout goes there */
	const char *workload, *seed, *duration;
	uint32_t repeat;
	bool json, quiet, phase_summary, empty_start;
	int progress; /* -1: when stderr is a terminal */
};

/* The options of reading, sampling and --workload (case c of
 * getopt_long, its argument arg): 1 taken, 0 not one of them, -1 a usage
 * error (printed). */
static int read_opt(struct replay_args *a, int c, const char *arg)
{
	switch (c) {
	case OPT_SAMPLE_EVERY:
		if (cli_parse_sample_every(arg, &a->so.sample_every_ns,
					   &a->so.sample_every_events)) {
			fprintf(stderr,
				"slabsim: --sample-every expects N, Nev, Nns, Nus, Nms or "
				"Ns with N > 0, got '%s'\n",
				arg);
			return -1;
		}
		a->sample_spec = arg;
		return 1;
	case OPT_NO_SAMPLE_CACHES:
		a->so.sample_caches = false;
		return 1;
	case OPT_STRICT:
		a->read.strict = true;
		return 1;
	case OPT_NO_NAME_PASS:
		a->read.no_name_pass = true;
		return 1;
	case OPT_NO_SPILL:
		a->read.no_spill = true;
		return 1;
	case OPT_NO_PREFETCH:
		a->read.no_prefetch = true;
		return 1;
	case OPT_PARSE_THREADS:
		if (cli_parse_u32("--parse-threads", arg, 1, 64, &a->read.parse_threads))
			return -1;
		return 1;
	case OPT_KALLSYMS:
		a->read.kallsyms = arg;
		return 1;
	case OPT_NAME_THREADS:
		if (cli_parse_u32("--name-threads", arg, 1, 64, &a->read.name_threads))
			return -1;
		return 1;
	case OPT_CHECK:
		a->so.check = true;
		return 1;
	case OPT_PROGRESS:
		a->progress = 1;
		return 1;
	case OPT_NO_PROGRESS:
		a->progress = 0;
		return 1;
	case OPT_WORKLOAD:
		a->workload = arg;
		return 1;
	case OPT_SEED:
		a->seed = arg;
		return 1;
	case OPT_DURATION:
		a->duration = arg;
		return 1;
	case OPT_REPEAT:
		if (cli_parse_u32("--repeat", arg, 1, 1000000, &a->repeat))
			return -1;
		return 1;
	case OPT_CACHES:
		a->caches = arg;
		return 1;
	default:
		return 0;
	}
}

/* What is checked once every option is read: sort keys, --workload or a
 * TRACE. 0 or the exit status of a usage error (printed). */
static int replay_check(int argc, char **argv, struct replay_args *a)
{
	struct replay_views *v = &a->views;
	struct err e;
	err_clear(&e);
	v->table.lines = v->lines;
	if (v->sort && ((v->caller || v->alloc || v->perf)
				? metrics_parse_sort(v->sort, v->keys, &v->nkeys, &e)
				: sim_parse_cache_sort(v->sort, &v->table.key, &e))) {
		fprintf(stderr, "slabsim: %s\n", e.msg);
		return cli_bad_usage("replay");
	}
	a->so.progress = a->progress < 0 ? isatty(STDERR_FILENO) : a->progress;
	a->so.on_progress = progress_stderr;
	a->so.metrics.mem_mib = a->views.mem_mib;
	a->so.metrics.record_ptrs = a->views.alloc;
	if (a->workload) {
		if (optind != argc || a->caches) {
			fprintf(stderr, "slabsim: --workload replaces the TRACE argument%s\n",
				a->caches ? " and --caches" : "");
			return cli_bad_usage("replay");
		}
		return 0;
	}
	if (a->seed || a->duration || a->repeat != 1) {
		fprintf(stderr, "slabsim: --seed, --duration and --repeat need --workload\n");
		return cli_bad_usage("replay");
	}
	if (!(a->path = cli_one_arg(argc, argv, optind, "replay", "TRACE argument", "")))
		return cli_bad_usage("replay");
	return 0;
}

/* Parse argv into a; 0, or the exit status of a usage error (printed) or
 * of --help (-1: print nothing more, exit 0). */
static int replay_parse(int argc, char **argv, struct replay_args *a)
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
		{"kallsyms", required_argument, NULL, OPT_KALLSYMS},
		{"check", no_argument, NULL, OPT_CHECK},
		{"progress", no_argument, NULL, OPT_PROGRESS},
		{"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
		{"phase-summary", no_argument, NULL, OPT_PHASE_SUMMARY},
		{"empty-start", no_argument, NULL, OPT_EMPTY_START},
		{"quiet", no_argument, NULL, 'q'},
		{"output", required_argument, NULL, 'o'},
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
	int c, r;
	memset(a, 0, sizeof(*a));
	run_model_default(&a->m);
	a->views.lines = -1;
	a->db = "slabsim.db";
	a->sample_spec = "1000ev";
	a->repeat = 1;
	a->progress = -1;
	a->so.sample_every_events = 1000;
	a->so.sample_caches = true;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hqs:l:o:", longopts, NULL)) != -1) {
		if ((r = cli_model_opt(&a->m, c, optarg)) < 0)
			return cli_bad_usage("replay");
		if (r)
			continue;
		if (c == 's' || c == 'l')
			c = c == 's' ? OPT_SORT : OPT_LINES;
		if ((r = views_opt(&a->views, c, optarg)) < 0)
			return cli_bad_usage("replay");
		if (r)
			continue;
		if ((r = read_opt(a, c, optarg)) < 0)
			return cli_bad_usage("replay");
		if (r)
			continue;
		switch (c) {
		case OPT_EMPTY_START:
			a->empty_start = true;
			break;
		case OPT_PHASE_SUMMARY:
			a->phase_summary = true;
			break;
		case 'h':
			usage_replay(stdout);
			return -1;
		case 'q':
			a->quiet = true;
			break;
		case 'o':
			a->output = optarg;
			break;
		case OPT_DB:
			if (!*optarg) {
				fprintf(stderr,
					"slabsim: --db needs a file name (or use --no-db)\n");
				return cli_bad_usage("replay");
			}
			a->db = optarg;
			break;
		case OPT_NO_DB:
			a->db = NULL;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "json") == 0)
				a->json = true;
			else if (strcmp(optarg, "table") != 0) {
				fprintf(stderr,
					"slabsim: --format expects table or json, got '%s'\n",
					optarg);
				return cli_bad_usage("replay");
			}
			break;
		case OPT_SLABINFO:
			a->slabinfo = optarg;
			break;
		default:
			return cli_bad_usage("replay");
		}
	}
	return replay_check(argc, argv, a);
}

/* The output files, opened before the replay so that a bad path is refused
 * before anything is recorded. 0 or an exit status (message printed). */
static int open_outputs(const struct replay_args *a, const char *trace, FILE **slabinfo_f,
			FILE **sysfs_f)
{
	struct stat st_in, st_out;
	if (a->slabinfo && stat(trace, &st_in) == 0 && stat(a->slabinfo, &st_out) == 0 &&
	    st_in.st_dev == st_out.st_dev && st_in.st_ino == st_out.st_ino) {
		/* fopen "w" would truncate the trace before it is read */
		fprintf(stderr, "slabsim: --final-slabinfo %s is the trace itself\n", a->slabinfo);
		return cli_bad_usage("replay");
	}
	if (a->slabinfo && !(*slabinfo_f = fopen(a->slabinfo, "w"))) {
		fprintf(stderr, "slabsim: %s: %s\n", a->slabinfo, strerror(errno));
		return SLABSIM_EXIT_IO;
	}
	if (a->output && stat(trace, &st_in) == 0 && stat(a->output, &st_out) == 0 &&
	    st_in.st_dev == st_out.st_dev && st_in.st_ino == st_out.st_ino) {
		fprintf(stderr, "slabsim: --output %s is the trace itself\n", a->output);
		return cli_bad_usage("replay");
	}
	int st;
	if (a->output && (st = cli_output(a->output)))
		return st;
	if (a->views.sysfs && !(*sysfs_f = fopen(a->views.sysfs, "w"))) {
		fprintf(stderr, "slabsim: %s: %s\n", a->views.sysfs, strerror(errno));
		return SLABSIM_EXIT_IO;
	}
	return 0;
}

/* The metrics views that replace the summary table; an exit status. */
static int print_views(const struct replay_args *a, struct sim *s)
{
	const struct replay_views *v = &a->views;
	int status = 0;
	struct sim_totals tt;
	sim_totals(s, &tt);
	bool perf = v->caller || v->alloc || v->perf;
	if (perf && view_perf(sim_metrics(s), stdout, v->caller, v->alloc, v->keys, v->nkeys,
			      v->lines, tt.bytes_alloc_model_total)) {
		fprintf(stderr, "slabsim: out of memory\n");
		status = SLABSIM_EXIT_IO;
	}
	if (v->slabinfo_totals) {
		if (perf)
			fputc('\n', stdout);
		view_slabinfo_totals(sim_policy(s), stdout);
	}
	if (v->slabinfo_list) {
		if (perf || v->slabinfo_totals)
			fputc('\n', stdout);
		if (view_slabinfo_caches(sim_policy(s), stdout, v->slabinfo_list == 2))
			status = SLABSIM_EXIT_IO;
	}
	return status;
}

/* Write the end state as /proc/slabinfo into f (closed here); on a full disk
 * the write fails in a flush: keep that errno, and remove the truncated
 * file rather than leave it looking complete (only a regular file: never a
 * device or a FIFO). An exit status. */
static int write_slabinfo(const struct replay_args *a, struct sim *s, FILE *f, bool recorded)
{
	struct stat st;
	bool regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
	errno = 0;
	int bad = summary_write_slabinfo(s, f) || fflush(f);
	int why = errno;
	if (fclose(f) && !bad) {
		bad = 1;
		why = errno;
	}
	if (!bad)
		return 0;
	if (regular)
		(void)unlink(a->slabinfo);
	fprintf(stderr, "slabsim: %s: cannot write the slabinfo file: %s%s\n", a->slabinfo,
		why ? strerror(why) : "write error", recorded ? " (the run is recorded)" : "");
	return SLABSIM_EXIT_IO;
}

/* The --caller and --alloc tables as members of the JSON summary. */
struct views_json {
	const struct replay_args *a;
	struct sim *s;
	int rc;
};

static void views_json(void *ctx, FILE *out)
{
	struct views_json *vj = ctx;
	const struct replay_views *v = &vj->a->views;
	vj->rc = view_perf_json(sim_metrics(vj->s), out, v->caller, v->alloc, v->keys, v->nkeys,
				v->lines);
}

/* Everything printed or written after the run; an exit status. */
static int replay_output(const struct replay_args *a, struct run *r, struct val_phases *phases,
			 const struct summary_start *start, FILE *slabinfo_f, FILE *sysfs_f,
			 bool recorded)
{
	struct sim *s = run_sim(r);
	const struct replay_views *v = &a->views;
	int status = 0;
	struct err e;
	bool views_on = v->caller || v->alloc || v->perf || v->slabinfo_totals || v->slabinfo_list;
	if (!a->quiet && (a->json || !views_on)) {
		struct views_json vj = {a, s, 0};
		struct summary_opts so = {&v->table,
					  a->json && (v->caller || v->alloc) ? views_json : NULL,
					  &vj, start};
		summary_print_more(s, stdout, a->json, a->path, run_line_stats(r), &so);
		if (vj.rc) {
			fprintf(stderr, "slabsim: out of memory\n");
			status = SLABSIM_EXIT_IO;
		}
	}
	if (!a->quiet && !a->json && views_on)
		status = print_views(a, s);
	if (sysfs_f) {
		int bad = view_write_sysfs(sim_policy(s), sysfs_f);
		bad |= fclose(sysfs_f);
		if (bad) {
			fprintf(stderr, "slabsim: %s: cannot write the sysfs file%s\n", v->sysfs,
				recorded ? " (the run is recorded)" : "");
			status = SLABSIM_EXIT_IO;
		}
	}
	err_clear(&e);
	if (phases && (val_phases_end(phases, s, &e) ||
		       phases_print(phases, s, a->json ? stderr : stdout, &e)))
		return cli_fail(&e);
	if (slabinfo_f && write_slabinfo(a, s, slabinfo_f, recorded))
		status = SLABSIM_EXIT_IO;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "slabsim: error writing output\n");
		status = SLABSIM_EXIT_IO;
	}
	return status;
}

/* A trace that lost events still replays (exit 0), but its figures miss
 * those events: say so on stderr, with how many and by which source. */
static void warn_lost(struct run *r)
{
	struct sim_lost l;
	char why[160];
	sim_lost_events(run_sim(r), run_line_stats(r), &l);
	if (!l.total)
		return;
	sim_lost_str(&l, why, sizeof(why));
	fprintf(stderr,
		"slabsim: warning: %" PRIu64 "%s events were lost before they reached the trace "
		"(%s): the figures are those of an incomplete trace\n",
		l.total, sat_str(l.total), why);
}

/* A perf.data read without kernel symbols replays with its call sites as
 * addresses: the model's rules that go by a call site's name (6.11's
 * kmalloc buckets, SysV messages) then do not see them. */
static void warn_sites(struct run *r, const char *path)
{
	const struct trace_stats *st = run_line_stats(r);
	if (st && st->sites_unnamed)
		fprintf(stderr,
			"slabsim: warning: %s: no kernel symbol names its call sites, which stay "
			"addresses: the model's rules by call-site name do not see them; give "
			"the recorded boot's /proc/kallsyms with --kallsyms FILE (by default "
			"perf's build-id cache in ~/.debug, or /proc/kallsyms when the running "
			"kernel is the recorded one)\n",
			path);
}

/* What the model needs before the trace: a capture's caches and start
 * state (the run layer's, shared with sweeps), --caches. */
struct replay_setup {
	struct run_capture cap;
	const char *caches;
	/* OUT: the root caches and their slabs before the first event */
	uint64_t start_caches, start_slabs;
};

/* The root caches that exist and the slabs they hold, for the summary's
 * start line. */
static void count_start(const struct sim *s, uint64_t *caches, uint64_t *slabs)
{
	const struct policy *p = sim_policy(s);
	*caches = *slabs = 0;
	for (uint32_t id = 0, n = p->ops->nr_caches(p); id < n; id++) {
		struct policy_cache_info ci;
		p->ops->cache_info(p, id, &ci);
		if (ci.alias_of != id)
			continue;
		++*caches;
		*slabs += ci.nr_slabs;
	}
}

static int replay_setup(void *ctx, struct sim *s, struct err *e)
{
	struct replay_setup *rs = ctx;
	int rc = 0;
	if (rs->cap.cap)
		rc = run_capture_setup(&rs->cap, s, e);
	if (!rc && rs->caches)
		rc = run_define_workload_caches(rs->caches, s, e);
	if (!rc)
		count_start(s, &rs->start_caches, &rs->start_slabs);
	return rc;
}

/* Is trace the trace file of the capture directory dir (the file replay
 * DIR would read)? */
static bool same_as_capture_trace(const char *dir, const char *trace)
{
	struct capture *c = NULL;
	struct err e;
	struct stat a, b;
	err_clear(&e);
	if (!capture_is_dir(dir) || capture_open(dir, &c, &e))
		return false;
	bool same = c->trace && stat(c->trace, &a) == 0 && stat(trace, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	capture_close(c);
	return same;
}

/* The summary's start line (summary_start) when a capture is involved:
 * replaying its directory or a trace file inside one. OUT: *st, its text
 * in buf (n bytes); false when no capture is involved. */
static bool start_note(const struct capture *cap, const char *trace, const struct replay_setup *rs,
		       bool empty_start, struct summary_start *st, char *buf, size_t n)
{
	*st = (struct summary_start){
		.caches = rs->start_caches, .slabs = rs->start_slabs, .text = buf};
	if (cap && cap->has_start && !empty_start) {
		st->state = "capture";
		(void)snprintf(buf, n,
			       "the capture's recorded state, %" PRIu64 " slab%s in %" PRIu64
			       " caches (slabinfo-start.txt%s); replay its trace file alone "
			       "for an empty start",
			       rs->start_slabs, rs->start_slabs == 1 ? "" : "s", rs->start_caches,
			       cap->has_attrs_start ? ", slab-attrs-start.tsv" : "");
		return true;
	}
	if (cap) {
		st->state = "capture-caches";
		(void)snprintf(buf, n,
			       "no object, the recorded kernel's %" PRIu64 " caches created first "
			       "(the capture's slabinfo: its geometry and merging)%s; replay its "
			       "trace file alone for caches created as the trace names them",
			       rs->start_caches,
			       cap->has_start ? ", its recorded state left out (--empty-start)"
					      : "");
		return true;
	}
	/* a trace file inside a capture directory, replayed alone */
	char dir[4096];
	const char *slash = strrchr(trace, '/');
	if (!slash || (size_t)(slash - trace) >= sizeof(dir))
		return false;
	memcpy(dir, trace, (size_t)(slash - trace));
	dir[slash - trace] = '\0';
	if (!same_as_capture_trace(dir, trace))
		return false;
	st->state = "empty";
	st->table_only = true;
	(void)snprintf(buf, n,
		       "empty, %" PRIu64 " caches (the model's own) before the trace, the others "
		       "created as it names them; configured from the trace and the options "
		       "alone: replay the capture directory %s for its recorded caches, start "
		       "state and configuration",
		       rs->start_caches, dir);
	return true;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_args a;
	int status = replay_parse(argc, argv, &a);
	if (status)
		return status < 0 ? 0 : status;
	if (a.workload && a.output && (status = cli_output(a.output)))
		return status;
	if (a.workload) {
		struct cli_replay_ctl ctl = {.m = &a.m,
					     .so = a.so,
					     .db = a.db,
					     .slabinfo = a.slabinfo,
					     .sample_spec = a.sample_spec,
					     .json = a.json,
					     .quiet = a.quiet};
		return cli_replay_workload(&ctl, a.workload, a.seed, a.duration, a.repeat);
	}
	struct err e;
	struct capture *cap = NULL;
	struct val_phases *phases = NULL;
	struct run *r = NULL;
	FILE *slabinfo_f = NULL, *sysfs_f = NULL;
	const char *trace = a.path;
	err_clear(&e);
	if (capture_is_dir(a.path)) {
		if (capture_open(a.path, &cap, &e) ||
		    val_capture_model(cap, &a.m, a.quiet ? NULL : stderr, &e)) {
			capture_close(cap);
			return cli_fail(&e);
		}
		trace = a.path = cap->trace;
	}
	if (a.phase_summary && val_phases_create(&phases, &e)) {
		capture_close(cap);
		return cli_fail(&e);
	}
	if ((status = open_outputs(&a, trace, &slabinfo_f, &sysfs_f)))
		goto out;
	struct replay_setup rs = {{cap, !a.empty_start, a.quiet ? NULL : stderr}, a.caches};
	struct run_opts ro = {
		.command = "replay",
		.model = a.m,
		.so = a.so,
		.sample_spec = a.sample_spec,
		.read = a.read,
		.setup = replay_setup,
		.ctx = &rs,
		.notes = a.quiet ? NULL : stderr,
		.config_extra = run_capture_config_extra(&rs.cap),
	};
	ro.so.on_marker = phases ? val_phases_marker : NULL;
	ro.so.marker_ctx = phases;
	enum run_stage at;
	ro.failed_at = &at;
	struct run_input in = {.kind = RUN_TRACE, .path = trace};
	ro.db = a.db;
	if (run_exec(&ro, &in, &r, &e)) {
		status = cli_fail(&e);
		if (a.db && at == RUN_STAGE_REPLAY)
			fprintf(stderr, "slabsim: the run was not recorded in %s\n", a.db);
		goto out;
	}
	warn_lost(r);
	warn_sites(r, trace);
	struct summary_start start;
	char start_text[4608];
	bool has_start =
		start_note(cap, trace, &rs, a.empty_start, &start, start_text, sizeof(start_text));
	status = replay_output(&a, r, phases, has_start ? &start : NULL, slabinfo_f, sysfs_f,
			       a.db != NULL);
	slabinfo_f = sysfs_f = NULL; /* closed there */
out:
	if (slabinfo_f)
		fclose(slabinfo_f);
	if (sysfs_f)
		fclose(sysfs_f);
	run_free(r);
	val_phases_destroy(phases);
	capture_close(cap);
	return status;
}
