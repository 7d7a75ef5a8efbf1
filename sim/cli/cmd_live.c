/* cmd_live.c - `slabsim live`: the running kernel replayed as it runs,
 * beside its what-ifs (sim/run/live.h does the work; this file parses the
 * options, handles the signals that end a session, and prints).
 *
 * Every exit path goes through live_close, which removes the tracefs
 * instance: the end of -d, SIGINT, SIGTERM and SIGHUP (which only set a
 * flag the loop reads), an error, and a closed stdout (SIGPIPE ignored,
 * the failed write ends the loop).
 */
#define _XOPEN_SOURCE 700 /* sigaction, nanosleep */
#include "capture.h"
#include "cli.h"
#include "err.h"
#include "ktrace.h"
#include "live.h"
#include "run.h"
#include "sim.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
	OPT_INTERVAL = CLI_OPT_CMD,
	OPT_FORMAT,
	OPT_DB,
	OPT_NO_SHRINK,
	OPT_NO_PAGE_FREE,
};

#define LIVE_MAX_MODELS 16
#define LIVE_TOP	12
#define LIVE_BUFFER_KB	16384 /* ring buffer per CPU: ~200,000 events, seconds of a busy kernel */
#define LIVE_POLL_S	0.1

/* Set by the signal handler, read by the loop: the one piece of state a
 * handler can share (sig_atomic_t), so it is file-scope by necessity. */
static volatile sig_atomic_t live_signal;

static void on_signal(int sig)
{
	live_signal = sig;
}

void usage_live(FILE *f)
{
	fprintf(f,
		"Usage: slabsim live [-d SECONDS] [--interval SECONDS] [--allocator LIST]\n"
		"                    [--align LIST] [--slub-debug FLAGS] [--kernel X.Y]\n"
		"                    [--format table|json] [--db FILE]\n"
		"\n"
		"Replay the running kernel's slab events as they happen through one model per\n"
		"allocator and alignment of the lists (--allocator slub,slob --align\n"
		"natural,none: four models), beside the kernel's own slab pages. Needs root:\n"
		"the kmem: events are traced in a tracefs instance of slabsim's own\n"
		"(instances/slabsim-live-PID, never the top-level buffer; tracefs is mounted\n"
		"if it is not), removed at the end, on SIGINT, SIGTERM or an error. Each model\n"
		"starts from the kernel's state when tracing begins (/proc/slabinfo and\n"
		"/sys/kernel/slab, as `replay DIR` starts from a capture, the free slots of CPU\n"
		"slabs estimated) and is configured from the running kernel (uname: kernel\n"
		"profile; possible CPUs; slub_debug and slub_*_order of /proc/cmdline) except\n"
		"for what the options give.\n"
		"\n"
		"Options:\n"
		"  -d, --duration SECONDS  stop SECONDS after the models are live (default: at\n"
		"                        SIGINT or SIGTERM); the events while they are built\n"
		"                        (seconds: a million start objects each) are kept\n"
		"  --interval SECONDS    refresh (and sampling) period, default 1\n"
		"  --allocator LIST      comma-separated allocator models (default slub)\n"
		"  --align LIST          comma-separated alignment rules (default natural)\n"
		"  --slub-debug FLAGS    slub_debug letters for every model (default: the\n"
		"                        kernel command line's)\n"
		"  --kernel X.Y          kernel profile (default: the running kernel's)\n"
		"  --format table|json   table: on a terminal a screen refreshed every\n"
		"                        interval (real and model slab pages, the top caches\n"
		"                        by real pages with the first model's pages and waste,\n"
		"                        lost events); otherwise plain tables every interval.\n"
		"                        json: one object at the end: events, lost_events,\n"
		"                        real (slab pages at start and end) and models\n"
		"                        (allocator, align, slub_debug, kernel, slab_pages,\n"
		"                        peak_slab_pages)\n"
		"  --db FILE             record each model's run (samples every interval,\n"
		"                        end state) in FILE, as replay does\n"
		"  --no-shrink           leave the per-CPU sheaves as they are at the start\n"
		"                        (by default every cache that has them is shrunk,\n"
		"                        /sys/kernel/slab/CACHE/shrink, just before the start\n"
		"                        state is read: objects parked in sheaves count as in\n"
		"                        use there, and the start state cannot tell them apart)\n"
		"  --no-page-free        do not trace kmem:mm_page_free and mm_page_alloc\n"
		"                        (traced by default: a slab the page allocator takes\n"
		"                        back proves every object in it freed, also those freed\n"
		"                        with no slab event; a slab on a page it gave out since\n"
		"                        is none of the start state's)\n"
		"  -h, --help            this help\n"
		"\n"
		"Events the ring buffer lost (its per-CPU overrun and dropped counts) are\n"
		"counted and shown. Without -d, SIGINT or SIGTERM ends the session normally\n"
		"(exit 0); with -d, before the time, with exit 130; the results are printed\n"
		"and recorded either way. While the models are still being built (the\n"
		"start state of each), a signal ends the session at once with exit 130 and\n"
		"nothing printed. Cannot trace (not root, no tracefs): exit 3.\n"
		"\n%s",
		cli_exit_codes_help);
}

/* ---- options ---- */

struct live_cli {
	double duration, interval; /* duration 0 = until a signal */
	const char *alloc_list, *align_list, *db;
	struct run_model base;
	bool json, no_shrink, no_page_free;
	struct run_model models[LIVE_MAX_MODELS];
	uint32_t nmodels;
};

static int parse_seconds(const char *opt, const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v <= 0 || v > 1e9) {
		fprintf(stderr, "slabsim: %s expects a positive number of seconds, got '%s'\n", opt,
			s);
		return -1;
	}
	*out = v;
	return 0;
}

/* The models: every allocator of the list with every alignment. */
static int make_models(struct live_cli *c)
{
	char alloc[256], align[256];
	(void)snprintf(alloc, sizeof(alloc), "%s", c->alloc_list ? c->alloc_list : "");
	(void)snprintf(align, sizeof(align), "%s", c->align_list ? c->align_list : "");
	char *sa = NULL, *a = c->alloc_list ? strtok_r(alloc, ",", &sa) : NULL;
	do {
		char *sl = NULL, *l = c->align_list ? strtok_r(align, ",", &sl) : NULL;
		do {
			struct run_model m = c->base;
			if (c->nmodels == LIVE_MAX_MODELS) {
				fprintf(stderr, "slabsim: live takes at most %d models\n",
					LIVE_MAX_MODELS);
				return -1;
			}
			if ((a && cli_model_opt(&m, CLI_OPT_ALLOCATOR, a) < 0) ||
			    (l && cli_model_opt(&m, CLI_OPT_ALIGN, l) < 0))
				return -1;
			/* the allocator name must outlive the list's copy */
			if (a)
				m.allocator = policy_find(a)->name;
			c->models[c->nmodels++] = m;
		} while (l && (l = strtok_r(NULL, ",", &sl)));
		(void)snprintf(align, sizeof(align), "%s", c->align_list ? c->align_list : "");
	} while (a && (a = strtok_r(NULL, ",", &sa)));
	return 0;
}

static int parse_opts(int argc, char **argv, struct live_cli *c)
{
	static const struct option longopts[] = {
		{"duration", required_argument, NULL, 'd'},
		{"interval", required_argument, NULL, OPT_INTERVAL},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"db", required_argument, NULL, OPT_DB},
		{"no-shrink", no_argument, NULL, OPT_NO_SHRINK},
		{"no-page-free", no_argument, NULL, OPT_NO_PAGE_FREE},
		CLI_MODEL_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	int ch, r;
	c->interval = 1;
	run_model_default(&c->base);
	while ((ch = getopt_long(argc, argv, "d:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			if (parse_seconds("-d", optarg, &c->duration))
				return cli_bad_usage("live");
			break;
		case OPT_INTERVAL:
			if (parse_seconds("--interval", optarg, &c->interval))
				return cli_bad_usage("live");
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "json") && strcmp(optarg, "table")) {
				fprintf(stderr,
					"slabsim: --format expects table or json, got '%s'\n",
					optarg);
				return cli_bad_usage("live");
			}
			c->json = strcmp(optarg, "json") == 0;
			break;
		case OPT_DB:
			c->db = optarg;
			break;
		case OPT_NO_SHRINK:
			c->no_shrink = true;
			break;
		case OPT_NO_PAGE_FREE:
			c->no_page_free = true;
			break;
		case CLI_OPT_ALLOCATOR:
			c->alloc_list = optarg;
			break;
		case CLI_OPT_ALIGN:
			c->align_list = optarg;
			break;
		case 'h':
			usage_live(stdout);
			return -2;
		default:
			if ((r = cli_model_opt(&c->base, ch, optarg)) != 1)
				return cli_bad_usage("live");
		}
	}
	if (optind < argc) {
		fprintf(stderr, "slabsim: live takes no operand, got '%s'\n", argv[optind]);
		return cli_bad_usage("live");
	}
	if (make_models(c))
		return cli_bad_usage("live");
	return 0;
}

/* ---- printing ---- */

static void model_label(const struct run_model *m, char *buf, size_t n)
{
	char dbg[8];
	policy_slub_debug_str(m->cfg.slub_debug, dbg);
	(void)snprintf(buf, n, "%s %s debug=%s", m->allocator, policy_align_name(m->cfg.align),
		       dbg);
}

static uint64_t si_pages(const struct capture_slabinfo_row *r)
{
	return r->num_slabs * r->pagesperslab;
}

/* The caches of si with the most pages, into idx (at most LIVE_TOP). */
static uint32_t top_caches(const struct capture_slabinfo *si, uint32_t *idx)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < si->n; i++) {
		uint32_t at = n < LIVE_TOP ? n++ : LIVE_TOP;
		if (at == LIVE_TOP &&
		    si_pages(&si->rows[i]) <= si_pages(&si->rows[idx[LIVE_TOP - 1]]))
			continue;
		if (at == LIVE_TOP)
			at = LIVE_TOP - 1;
		while (at > 0 && si_pages(&si->rows[idx[at - 1]]) < si_pages(&si->rows[i])) {
			idx[at] = idx[at - 1];
			at--;
		}
		idx[at] = i;
	}
	return n;
}

struct live_view {
	struct live *l;
	uint64_t real_start, real_now;
	struct capture_slabinfo si; /* the last /proc/slabinfo read */
	double t_end;		    /* seconds of the session when it ended (0: running) */
};

static void print_view(FILE *f, struct live_view *v, bool screen)
{
	struct live *l = v->l;
	const struct capture *c = live_start_state(l);
	double secs = v->t_end > 0 ? v->t_end : live_seconds(l);
	uint64_t ev = live_events(l);
	if (screen)
		fputs("\033[H\033[2J", f);
	fprintf(f,
		"slabsim live: Linux %s, %.1f s, %" PRIu64 " events (%.0f/s), lost %" PRIu64
		"  [tracefs instance %s]\n",
		c->release, secs, ev, secs > 0 ? (double)ev / secs : 0.0, live_lost(l),
		live_instance(l));
	int64_t d = (int64_t)v->real_now - (int64_t)v->real_start;
	fprintf(f,
		"real slab pages (/proc/slabinfo): %" PRIu64 " (start %" PRIu64 ", %+" PRId64
		")\n\n",
		v->real_now, v->real_start, d);
	fprintf(f, "%-34s %-6s %12s %12s %12s\n", "model", "kernel", "slab pages", "peak",
		"vs real");
	for (uint32_t i = 0; i < live_nmodels(l); i++) {
		char lab[80];
		struct sim_totals t;
		const struct run_model *m = live_model(l, i);
		model_label(m, lab, sizeof(lab));
		sim_totals(live_sim(l, i), &t);
		int64_t dv = (int64_t)t.slab_pages - (int64_t)v->real_now;
		fprintf(f, "%-34s %-6s %12" PRIu64 " %12" PRIu64 " %+8" PRId64 " (%+.1f%%)\n", lab,
			run_kernel_name(m), t.slab_pages, t.peak_slab_pages, dv,
			v->real_now ? 100.0 * (double)dv / (double)v->real_now : 0.0);
	}
	uint32_t idx[LIVE_TOP], n = top_caches(&v->si, idx);
	struct sim *s0 = live_sim(l, 0);
	char lab[80];
	model_label(live_model(l, 0), lab, sizeof(lab));
	fprintf(f, "\ntop caches by real pages, beside %s:\n", lab);
	fprintf(f, "%-28s %10s %10s %10s %12s\n", "cache", "real", "model", "diff", "waste KiB");
	for (uint32_t i = 0; i < n; i++) {
		const struct capture_slabinfo_row *r = &v->si.rows[idx[i]];
		uint32_t id;
		struct sim_cache_state cs = {0};
		bool have = sim_find_cache(s0, r->name, &id);
		if (have)
			sim_cache_state(s0, id, &cs);
		fprintf(f, "%-28.28s %10" PRIu64 " %10" PRIu64 " %+10" PRId64 " %12" PRIu64 "\n",
			r->name, si_pages(r), cs.pages, (int64_t)cs.pages - (int64_t)si_pages(r),
			cs.waste_bytes / 1024);
	}
	uint64_t named[SIM_NAMED_NR];
	sim_named_counts(s0, named);
	if (named[SIM_NAMED_UNNAMED])
		fprintf(f, "allocations left unnamed (no cache name learned yet): %" PRIu64 "\n",
			named[SIM_NAMED_UNNAMED]);
	fputc('\n', f);
	fflush(f);
}

static void print_json(FILE *f, struct live_view *v)
{
	struct live *l = v->l;
	fprintf(f,
		"{\"release\": \"%s\", \"seconds\": %.3f, \"events\": %" PRIu64
		", \"lost_events\": %" PRIu64 ",\n \"real\": {\"start_slab_pages\": %" PRIu64
		", \"end_slab_pages\": %" PRIu64 "},\n \"models\": [",
		live_start_state(l)->release, v->t_end, live_events(l), live_lost(l), v->real_start,
		v->real_now);
	for (uint32_t i = 0; i < live_nmodels(l); i++) {
		const struct run_model *m = live_model(l, i);
		struct sim_totals t;
		char dbg[8];
		uint64_t named[SIM_NAMED_NR];
		sim_totals(live_sim(l, i), &t);
		sim_named_counts(live_sim(l, i), named);
		policy_slub_debug_str(m->cfg.slub_debug, dbg);
		fprintf(f,
			"%s\n  {\"allocator\": \"%s\", \"align\": \"%s\", \"slub_debug\": \"%s\", "
			"\"kernel\": \"%s\", \"nr_cpus\": %u, \"slab_pages\": %" PRIu64
			", \"peak_slab_pages\": %" PRIu64 ", \"large_pages\": %" PRIu64
			", \"unnamed_allocations\": %" PRIu64 "}",
			i ? "," : "", m->allocator, policy_align_name(m->cfg.align), dbg,
			run_kernel_name(m), m->cfg.nr_cpus, t.slab_pages, t.peak_slab_pages,
			t.large_pages, named[SIM_NAMED_UNNAMED]);
	}
	fprintf(f, "\n]}\n");
	fflush(f);
}

/* ---- the session ---- */

static void sleep_s(double s)
{
	struct timespec ts = {.tv_sec = (time_t)s,
			      .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
	(void)nanosleep(&ts, NULL); /* a signal ends it early: the loop looks */
}

static int read_real(struct live_view *v, struct err *e)
{
	capture_slabinfo_free(&v->si);
	return live_real_pages(&v->si, &v->real_now, e);
}

/* Poll until the duration is over or a signal came; print every
 * interval. */
static int loop(const struct live_cli *c, struct live_view *v, bool screen, struct err *e)
{
	/* the duration counts from when the models are live: building them
	 * from the start state takes seconds (the events meanwhile are kept) */
	double ready = live_seconds(v->l), next = ready + c->interval;
	double end = ready + c->duration;
	int rc;
	while (!live_signal) {
		double now = live_seconds(v->l);
		if (c->duration && now >= end)
			break;
		if ((rc = live_poll(v->l, e)))
			return rc;
		if (now >= next) {
			next += c->interval * (floor((now - next) / c->interval) + 1);
			if ((rc = read_real(v, e)))
				return rc;
			if (!c->json) {
				print_view(stdout, v, screen);
				if (ferror(stdout))
					return err_set(e, SLABSIM_EIO, "stdout: write failed");
			}
		}
		double wait = next - live_seconds(v->l);
		if (c->duration && end - live_seconds(v->l) < wait)
			wait = end - live_seconds(v->l);
		sleep_s(wait < LIVE_POLL_S ? (wait > 0 ? wait : 0) : LIVE_POLL_S);
	}
	return 0;
}

static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the sleep ends at once */
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	(void)sigaction(SIGPIPE, &sa, NULL);
}

int cmd_live(int argc, char **argv)
{
	struct live_cli c;
	memset(&c, 0, sizeof(c));
	int r = parse_opts(argc, argv, &c);
	if (r)
		return r == -2 ? 0 : r;
	if (!ktrace_supported()) {
		fprintf(stderr, "slabsim: live: this slabsim was built without libtracefs "
				"(libtracefs-dev, scripts/deps.sh)\n");
		return SLABSIM_EXIT_USAGE;
	}
	bool screen = !c.json && isatty(STDOUT_FILENO);
	struct live_opts o = {
		.models = c.models,
		.nmodels = c.nmodels,
		.so = {.sample_every_ns = (uint64_t)(c.interval * 1e9),
		       .sample_caches = c.db != NULL,
		       .stop = &live_signal},
		.sample_spec = NULL,
		.db = c.db,
		.buffer_kb = LIVE_BUFFER_KB,
		.shrink = !c.no_shrink,
		.page_free = !c.no_page_free,
		.notes = screen ? NULL : stderr,
	};
	char spec[32];
	(void)snprintf(spec, sizeof(spec), "%gs", c.interval);
	o.sample_spec = spec;
	struct live_view v = {0};
	struct err e;
	err_clear(&e);
	live_signal = 0;
	catch_signals();
	int rc = live_open(&o, &v.l, &e);
	if (!rc && !(rc = read_real(&v, &e))) {
		/* the kernel's pages when tracing began */
		v.real_start = capture_slabinfo_pages(&live_start_state(v.l)->start);
		rc = loop(&c, &v, screen, &e);
	}
	int sig = live_signal;
	if (!rc) {
		v.t_end = live_seconds(v.l);
		rc = live_finish(v.l, &e);
		if (!rc)
			rc = read_real(&v, &e);
	}
	if (!rc) {
		if (c.json)
			print_json(stdout, &v);
		else
			print_view(stdout, &v, false);
	}
	live_close(v.l);
	capture_slabinfo_free(&v.si);
	if (rc)
		return cli_fail(&e);
	return sig && c.duration ? 130 : 0;
}
