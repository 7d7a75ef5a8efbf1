/* main.c - the slabsim command line: parses options and wires the modules
 * together. No model logic lives here. */
#include "err.h"
#include "layout.h"
#include "policy.h"
#include "rec.h"
#include "sim.h"
#include "trace.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char exit_codes_help[] =
	"Exit status:\n"
	"  0  success\n"
	"  1  usage error (bad option or value)\n"
	"  2  bad input (malformed trace line with --strict, impossible event)\n"
	"  3  I/O or SQLite error (unreadable trace, unwritable database or output)\n"
	"  4  model invariant violated (--check)\n";

static void usage_main(FILE *f)
{
	fprintf(f,
		"Usage: slabsim COMMAND [OPTIONS]\n"
		"\n"
		"Simulate the Linux kernel's slab allocators on recorded or synthetic workloads.\n"
		"\n"
		"Commands:\n"
		"  replay TRACE   replay an ftrace text trace of kmem: events through a model\n"
		"  layout         print the geometry of every kmalloc cache of a model\n"
		"  help [COMMAND] show help for a command\n"
		"\n"
		"Options:\n"
		"  -h, --help     this help\n"
		"  -V, --version  print the version\n"
		"\n"
		"Run 'slabsim COMMAND --help' for a command's options.\n\n%s",
		exit_codes_help);
}

static void usage_model_opts(FILE *f)
{
	fprintf(f, "Model options:\n"
		   "  --allocator NAME      allocator model (default slub), one of:\n");
	for (int i = 0; policy_table[i]; i++)
		fprintf(f, "                          %-6s %s\n", policy_table[i]->name,
			policy_table[i]->desc);
	fprintf(f,
		"  --kernel 5.4|6.1      kernel rule profile (default 5.4; use 6.1 for traces\n"
		"                        of current kernels)\n"
		"  --align POLICY        kmalloc alignment of power-of-two sizes: natural =\n"
		"                        aligned to their size (Linux 5.4+, default); none =\n"
		"                        Linux 5.3; cap512 = natural up to 512 bytes, 512 below\n"
		"                        a page, page-aligned from a page up (LSF/MM 2019)\n"
		"  --slub-debug FLAGS    slub_debug letters for every cache: F Z P U T, '-' = "
		"none\n"
		"  --nr-cpus N           possible = present CPUs (default 2); trace CPUs >= N\n"
		"                        are folded modulo N and counted\n"
		"  --slub-min-order N    slub_min_order (default 0)\n"
		"  --slub-max-order N    slub_max_order (default 3)\n"
		"  --slub-min-objects N  slub_min_objects (default 0 = automatic)\n"
		"  --no-cpu-partial      model CONFIG_SLUB_CPU_PARTIAL=n\n"
		"  --slab-debug          SLAB: model CONFIG_DEBUG_SLAB (red zones, user word)\n"
		"  --slab-max-order N    SLAB: slab_max_order (default 1)\n");
}

static void usage_replay(FILE *f)
{
	fprintf(f,
		"Usage: slabsim replay TRACE [OPTIONS]\n"
		"\n"
		"Replay the kmem: events of TRACE (ftrace text from tracefs, trace-cmd report or\n"
		"perf script; .gz/.xz/.zst are decompressed; '-' reads stdin) through an\n"
		"allocator model, record the run in SQLite and print a summary.\n"
		"\n");
	usage_model_opts(f);
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
		"  --check               walk the model's invariants after every event (slow)\n"
		"  --progress, --no-progress  progress bar on stderr (default: when a terminal)\n"
		"  -q, --quiet           no summary on stdout\n"
		"  -h, --help            this help\n"
		"\n"
		"Anomalies of real traces (frees of pointers allocated before tracing began,\n"
		"allocations at live addresses, kfree(NULL), lost events) are counted and\n"
		"reported, never fatal.\n\n%s",
		exit_codes_help);
}

static void usage_layout(FILE *f)
{
	fprintf(f, "Usage: slabsim layout [OPTIONS]\n"
		   "\n"
		   "Print, for every kmalloc cache, the figures /sys/kernel/slab/<cache>/ shows:\n"
		   "name, object_size, slab_size, align, order, objs_per_slab, min_partial,\n"
		   "cpu_partial.\n"
		   "\n");
	usage_model_opts(f);
	fprintf(f,
		"  --format table|tsv    output format (default table; tsv has a header row)\n"
		"SLAB's freelist column: 1 inside a free object (OBJFREELIST), 2 off-slab,\n"
		"3 on-slab. SLOB has no kmalloc caches: nothing is printed.\n"
		"  -h, --help            this help\n\n%s",
		exit_codes_help);
}

enum {
	OPT_ALLOCATOR = 256,
	OPT_KERNEL,
	OPT_ALIGN,
	OPT_SLUB_DEBUG,
	OPT_NR_CPUS,
	OPT_MIN_ORDER,
	OPT_MAX_ORDER,
	OPT_MIN_OBJECTS,
	OPT_NO_CPU_PARTIAL,
	OPT_SLAB_DEBUG,
	OPT_SLAB_MAX_ORDER,
	OPT_DB,
	OPT_NO_DB,
	OPT_FORMAT,
	OPT_SLABINFO,
	OPT_SAMPLE_EVERY,
	OPT_NO_SAMPLE_CACHES,
	OPT_STRICT,
	OPT_NO_NAME_PASS,
	OPT_CHECK,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
};

#define MODEL_LONGOPTS                                                                             \
	{"allocator", required_argument, NULL, OPT_ALLOCATOR},                                     \
		{"kernel", required_argument, NULL, OPT_KERNEL},                                   \
		{"align", required_argument, NULL, OPT_ALIGN},                                     \
		{"slub-debug", required_argument, NULL, OPT_SLUB_DEBUG},                           \
		{"nr-cpus", required_argument, NULL, OPT_NR_CPUS},                                 \
		{"slub-min-order", required_argument, NULL, OPT_MIN_ORDER},                        \
		{"slub-max-order", required_argument, NULL, OPT_MAX_ORDER},                        \
		{"slub-min-objects", required_argument, NULL, OPT_MIN_OBJECTS},                    \
		{"no-cpu-partial", no_argument, NULL, OPT_NO_CPU_PARTIAL},                         \
		{"slab-debug", no_argument, NULL, OPT_SLAB_DEBUG},                                 \
		{"slab-max-order", required_argument, NULL, OPT_SLAB_MAX_ORDER},                   \
	{                                                                                          \
		"help", no_argument, NULL, 'h'                                                     \
	}

struct model_args {
	const char *allocator;
	struct policy_cfg cfg;
};

static int parse_u32(const char *opt, const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long v;
	if (!*s || *s == '-')
		goto bad;
	v = strtoul(s, &end, 10);
	if (*end || v < lo || v > hi)
		goto bad;
	*out = (uint32_t)v;
	return 0;
bad:
	fprintf(stderr, "slabsim: %s expects a whole number from %u to %u, got '%s'\n", opt, lo, hi,
		s);
	return -1;
}

/* Returns 1 if the option was a model option, 0 if not, -1 on a bad value. */
static int model_opt(struct model_args *m, int c, const char *arg)
{
	struct err e;
	switch (c) {
	case OPT_ALLOCATOR:
		if (!policy_find(arg)) {
			fprintf(stderr, "slabsim: unknown allocator '%s' (known:", arg);
			for (int i = 0; policy_table[i]; i++)
				fprintf(stderr, " %s", policy_table[i]->name);
			fprintf(stderr, ")\n");
			return -1;
		}
		m->allocator = arg;
		return 1;
	case OPT_KERNEL:
		if (strcmp(arg, "5.4") == 0)
			m->cfg.kernel = POLICY_KERNEL_5_4;
		else if (strcmp(arg, "6.1") == 0)
			m->cfg.kernel = POLICY_KERNEL_6_1;
		else {
			fprintf(stderr, "slabsim: --kernel expects 5.4 or 6.1, got '%s'\n", arg);
			return -1;
		}
		return 1;
	case OPT_ALIGN:
		if (policy_parse_align(arg, &m->cfg.align, &e)) {
			fprintf(stderr, "slabsim: --align %s\n", e.msg);
			return -1;
		}
		return 1;
	case OPT_SLUB_DEBUG:
		if (policy_parse_slub_debug(arg, &m->cfg.slub_debug, &e)) {
			fprintf(stderr, "slabsim: --slub-debug: %s\n", e.msg);
			return -1;
		}
		return 1;
	case OPT_NR_CPUS:
		return parse_u32("--nr-cpus", arg, 1, 8192, &m->cfg.nr_cpus) ? -1 : 1;
	case OPT_MIN_ORDER:
		return parse_u32("--slub-min-order", arg, 0, POLICY_MAX_ORDER - 1,
				 &m->cfg.slub_min_order)
			       ? -1
			       : 1;
	case OPT_MAX_ORDER:
		return parse_u32("--slub-max-order", arg, 0, POLICY_MAX_ORDER - 1,
				 &m->cfg.slub_max_order)
			       ? -1
			       : 1;
	case OPT_MIN_OBJECTS:
		return parse_u32("--slub-min-objects", arg, 0, 32767, &m->cfg.slub_min_objects) ? -1
												: 1;
	case OPT_NO_CPU_PARTIAL:
		m->cfg.cpu_partial = false;
		return 1;
	case OPT_SLAB_DEBUG:
		m->cfg.slab_debug = true;
		return 1;
	case OPT_SLAB_MAX_ORDER:
		return parse_u32("--slab-max-order", arg, 0, POLICY_MAX_ORDER - 1,
				 &m->cfg.slab_max_order)
			       ? -1
			       : 1;
	default:
		return 0;
	}
}

static void model_defaults(struct model_args *m)
{
	m->allocator = "slub";
	policy_cfg_default(&m->cfg);
}

static int bad_usage(const char *cmd)
{
	fprintf(stderr, "Try 'slabsim %s --help'.\n", cmd);
	return SLABSIM_EXIT_USAGE;
}

/* ---- layout ---- */

/* Columns of `slabsim layout`: the /sys/kernel/slab attributes for SLUB,
 * and /proc/slabinfo's figures (with the layout behind them) for SLAB. */
enum layout_col {
	COL_OBJECT_SIZE,
	COL_SLAB_SIZE,
	COL_ALIGN,
	COL_ORDER,
	COL_OBJS_PER_SLAB,
	COL_PAGES_PER_SLAB,
	COL_MIN_PARTIAL,
	COL_CPU_PARTIAL,
	COL_COLOUR,
	COL_COLOUR_OFF,
	COL_LEFT_OVER,
	COL_FREELIST,
	COL_LIMIT,
	COL_BATCHCOUNT,
	COL_SHARED,
	COL_FREE_LIMIT,
};

static const char *const layout_col_names[] = {
	[COL_OBJECT_SIZE] = "object_size",
	[COL_SLAB_SIZE] = "slab_size",
	[COL_ALIGN] = "align",
	[COL_ORDER] = "order",
	[COL_OBJS_PER_SLAB] = "objs_per_slab",
	[COL_PAGES_PER_SLAB] = "pages_per_slab",
	[COL_MIN_PARTIAL] = "min_partial",
	[COL_CPU_PARTIAL] = "cpu_partial",
	[COL_COLOUR] = "colour",
	[COL_COLOUR_OFF] = "colour_off",
	[COL_LEFT_OVER] = "left_over",
	[COL_FREELIST] = "freelist",
	[COL_LIMIT] = "limit",
	[COL_BATCHCOUNT] = "batchcount",
	[COL_SHARED] = "sharedfactor",
	[COL_FREE_LIMIT] = "free_limit",
};

static const enum layout_col slub_cols[] = {
	COL_OBJECT_SIZE,   COL_SLAB_SIZE,   COL_ALIGN,	     COL_ORDER,
	COL_OBJS_PER_SLAB, COL_MIN_PARTIAL, COL_CPU_PARTIAL,
};

static const enum layout_col slab_cols[] = {
	COL_OBJECT_SIZE,    COL_SLAB_SIZE,  COL_ALIGN,	    COL_ORDER,	    COL_OBJS_PER_SLAB,
	COL_PAGES_PER_SLAB, COL_COLOUR,	    COL_COLOUR_OFF, COL_LEFT_OVER,  COL_FREELIST,
	COL_LIMIT,	    COL_BATCHCOUNT, COL_SHARED,	    COL_FREE_LIMIT,
};

static int col_width(enum layout_col c)
{
	int w = (int)strlen(layout_col_names[c]);
	return w < 6 ? 6 : w;
}

static uint32_t layout_col_value(const struct policy_geom *g, enum layout_col c)
{
	switch (c) {
	case COL_OBJECT_SIZE:
		return g->object_size;
	case COL_SLAB_SIZE:
		return g->size;
	case COL_ALIGN:
		return g->align;
	case COL_ORDER:
		return g->order;
	case COL_OBJS_PER_SLAB:
		return g->objs_per_slab;
	case COL_PAGES_PER_SLAB:
		return 1u << g->order;
	case COL_MIN_PARTIAL:
		return g->min_partial;
	case COL_CPU_PARTIAL:
		return g->cpu_partial;
	case COL_COLOUR:
		return g->colour;
	case COL_COLOUR_OFF:
		return g->colour_off;
	case COL_LEFT_OVER:
		return g->left_over;
	case COL_FREELIST:
		return g->freelist_mode;
	case COL_LIMIT:
		return g->limit;
	case COL_BATCHCOUNT:
		return g->batchcount;
	case COL_SHARED:
		return g->shared;
	case COL_FREE_LIMIT:
		return g->free_limit;
	}
	return 0;
}

static int cmd_layout(int argc, char **argv)
{
	static const struct option longopts[] = {
		MODEL_LONGOPTS,
		{"format", required_argument, NULL, OPT_FORMAT},
		{NULL, 0, NULL, 0},
	};
	struct model_args m;
	bool tsv = false;
	int c, r;
	model_defaults(&m);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if ((r = model_opt(&m, c, optarg)) < 0)
			return bad_usage("layout");
		if (r)
			continue;
		switch (c) {
		case 'h':
			usage_layout(stdout);
			return 0;
		case OPT_FORMAT:
			if (strcmp(optarg, "tsv") == 0)
				tsv = true;
			else if (strcmp(optarg, "table") != 0) {
				fprintf(stderr,
					"slabsim: --format expects table or tsv, got '%s'\n",
					optarg);
				return bad_usage("layout");
			}
			break;
		default:
			return bad_usage("layout");
		}
	}
	if (optind < argc) {
		fprintf(stderr, "slabsim: layout takes no arguments, got '%s'\n", argv[optind]);
		return bad_usage("layout");
	}
	const struct policy_ops *ops = policy_find(m.allocator);
	struct policy *p;
	struct err e;
	err_clear(&e);
	if (ops->create(&m.cfg, &p, &e)) {
		fprintf(stderr, "slabsim: %s\n", e.msg);
		return err_exit_code(e.code);
	}
	bool slab = strcmp(ops->name, "slab") == 0;
	const enum layout_col *cols = slab ? slab_cols : slub_cols;
	size_t ncols = slab ? sizeof(slab_cols) / sizeof(slab_cols[0])
			    : sizeof(slub_cols) / sizeof(slub_cols[0]);
	uint32_t n = ops->nr_caches(p), shown = 0;
	for (uint32_t id = 0; id < n; id++) {
		struct policy_cache_info ci;
		ops->cache_info(p, id, &ci);
		shown += ci.kmalloc;
	}
	if (shown) /* a header only above rows */
		printf(tsv ? "name" : "%-18s", "name");
	for (size_t k = 0; shown && k < ncols; k++) {
		if (tsv)
			printf("\t%s", layout_col_names[cols[k]]);
		else
			printf(" %*s", col_width(cols[k]), layout_col_names[cols[k]]);
	}
	if (shown)
		printf("\n");
	for (uint32_t id = 0; id < n; id++) {
		struct policy_cache_info ci;
		ops->cache_info(p, id, &ci);
		if (!ci.kmalloc)
			continue;
		printf(tsv ? "%s" : "%-18s", ci.name);
		for (size_t k = 0; k < ncols; k++) {
			if (tsv)
				printf("\t%u", layout_col_value(&ci.g, cols[k]));
			else
				printf(" %*u", col_width(cols[k]),
				       layout_col_value(&ci.g, cols[k]));
		}
		printf("\n");
	}
	if (!shown)
		fprintf(stderr,
			"slabsim: %s has no kmalloc caches (kmalloc takes blocks from its "
			"shared pages)\n",
			ops->name);
	ops->destroy(p);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "slabsim: error writing output\n");
		return SLABSIM_EXIT_IO;
	}
	return 0;
}

/* ---- replay ---- */

static int parse_sample_every(const char *s, uint64_t *ns, uint64_t *ev)
{
	char *end;
	if (!*s || *s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || v == 0)
		return -1;
	uint64_t mul;
	*ns = *ev = 0;
	if (!*end || strcmp(end, "ev") == 0) {
		*ev = v;
		return 0;
	} else if (strcmp(end, "ns") == 0) {
		mul = 1;
	} else if (strcmp(end, "us") == 0) {
		mul = 1000;
	} else if (strcmp(end, "ms") == 0) {
		mul = 1000000;
	} else if (strcmp(end, "s") == 0) {
		mul = 1000000000;
	} else {
		return -1;
	}
	if (v > UINT64_MAX / mul)
		return -1;
	*ns = v * mul;
	return 0;
}

static double now_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int fail(struct err *e)
{
	fprintf(stderr, "slabsim: %s\n", e->msg);
	return err_exit_code(e->code);
}

static int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		MODEL_LONGOPTS,
		{"db", required_argument, NULL, OPT_DB},
		{"no-db", no_argument, NULL, OPT_NO_DB},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"final-slabinfo", required_argument, NULL, OPT_SLABINFO},
		{"sample-every", required_argument, NULL, OPT_SAMPLE_EVERY},
		{"no-sample-caches", no_argument, NULL, OPT_NO_SAMPLE_CACHES},
		{"strict", no_argument, NULL, OPT_STRICT},
		{"no-name-pass", no_argument, NULL, OPT_NO_NAME_PASS},
		{"check", no_argument, NULL, OPT_CHECK},
		{"progress", no_argument, NULL, OPT_PROGRESS},
		{"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
		{"quiet", no_argument, NULL, 'q'},
		{NULL, 0, NULL, 0},
	};
	struct model_args m;
	const char *db = "slabsim.db", *slabinfo = NULL, *sample_spec = "1000ev";
	bool json = false, strict = false, name_pass = true, check = false, quiet = false;
	bool sample_caches = true;
	int progress = -1;
	int c, r;
	struct sim_opts so = {0};

	model_defaults(&m);
	so.sample_every_events = 1000;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		if ((r = model_opt(&m, c, optarg)) < 0)
			return bad_usage("replay");
		if (r)
			continue;
		switch (c) {
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
				return bad_usage("replay");
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
				return bad_usage("replay");
			}
			break;
		case OPT_SLABINFO:
			slabinfo = optarg;
			break;
		case OPT_SAMPLE_EVERY:
			if (parse_sample_every(optarg, &so.sample_every_ns,
					       &so.sample_every_events)) {
				fprintf(stderr,
					"slabsim: --sample-every expects N, Nev, Nns, Nus, Nms or "
					"Ns with N > 0, got '%s'\n",
					optarg);
				return bad_usage("replay");
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
		case OPT_CHECK:
			check = true;
			break;
		case OPT_PROGRESS:
			progress = 1;
			break;
		case OPT_NO_PROGRESS:
			progress = 0;
			break;
		default:
			return bad_usage("replay");
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, optind >= argc ? "slabsim: replay needs a TRACE argument\n"
					       : "slabsim: replay takes one TRACE argument\n");
		return bad_usage("replay");
	}
	const char *path = argv[optind];
	so.ops = policy_find(m.allocator);
	so.cfg = m.cfg;
	so.sample_caches = sample_caches;
	so.check = check;
	so.progress = progress < 0 ? isatty(STDERR_FILENO) : progress;

	struct err e;
	struct sim *s = NULL;
	struct trace_reader *tr = NULL;
	struct rec *rec = NULL;
	struct trace_opts to = {.strict = strict};
	int rc, status = 0;
	double t0 = now_seconds();
	err_clear(&e);

	FILE *slabinfo_f = NULL;
	if (slabinfo && !(slabinfo_f = fopen(slabinfo, "w"))) {
		/* refuse before replaying, not after the run is recorded */
		fprintf(stderr, "slabsim: %s: %s\n", slabinfo, strerror(errno));
		return SLABSIM_EXIT_IO;
	}
	if ((rc = sim_create(&so, &s, &e))) {
		if (slabinfo_f)
			fclose(slabinfo_f);
		return fail(&e);
	}
	if (name_pass && strcmp(path, "-") != 0) {
		struct trace_opts lax = {.strict = false};
		if ((rc = trace_open(path, &lax, &tr, &e)) || (rc = sim_learn_names(s, tr, &e))) {
			status = fail(&e);
			goto out;
		}
		trace_close(tr);
		tr = NULL;
	}
	if ((rc = trace_open(path, &to, &tr, &e))) {
		status = fail(&e);
		goto out;
	}
	if (db) {
		char cfg_json[512], dbg[8];
		const char *kernel = m.cfg.kernel == POLICY_KERNEL_6_1 ? "6.1" : "5.4";
		const char *align = policy_align_name(m.cfg.align);
		policy_slub_debug_str(m.cfg.slub_debug, dbg);
		(void)snprintf(cfg_json, sizeof(cfg_json),
			       "{\"allocator\":\"%s\",\"kernel\":\"%s\",\"align\":\"%s\","
			       "\"slub_debug\":\"%s\",\"nr_cpus\":%u,\"slub_min_order\":%u,"
			       "\"slub_max_order\":%u,\"slub_min_objects\":%u,\"cpu_partial\":%s,"
			       "\"slab_debug\":%s,\"slab_max_order\":%u,\"sample_every\":\"%s\"}",
			       m.allocator, kernel, align, dbg, m.cfg.nr_cpus, m.cfg.slub_min_order,
			       m.cfg.slub_max_order, m.cfg.slub_min_objects,
			       m.cfg.cpu_partial ? "true" : "false",
			       m.cfg.slab_debug ? "true" : "false", m.cfg.slab_max_order,
			       sample_spec);
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
			status = fail(&e);
			goto out;
		}
	}
	if ((rc = sim_replay(s, tr, rec, &e))) {
		status = fail(&e);
		if (rec)
			fprintf(stderr, "slabsim: the run was not recorded in %s\n", db);
		goto out; /* rec_close rolls the open run back */
	}
	if (rec && (rc = sim_record(s, rec, now_seconds() - t0, &e))) {
		status = fail(&e);
		goto out;
	}
	if (!quiet)
		sim_print_summary(s, stdout, json, path, trace_stats(tr));
	if (slabinfo_f) {
		int bad = sim_write_slabinfo(s, slabinfo_f);
		bad |= fclose(slabinfo_f);
		slabinfo_f = NULL;
		if (bad) {
			fprintf(stderr, "slabsim: %s: cannot write the slabinfo file%s\n", slabinfo,
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
	rec_close(rec);
	trace_close(tr);
	sim_destroy(s);
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage_main(stderr);
		return SLABSIM_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		usage_main(stdout);
		return 0;
	}
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
		printf("slabsim %s\n", SLABSIM_VERSION);
		return 0;
	}
	if (strcmp(cmd, "help") == 0) {
		if (argc < 3)
			usage_main(stdout);
		else if (strcmp(argv[2], "replay") == 0)
			usage_replay(stdout);
		else if (strcmp(argv[2], "layout") == 0)
			usage_layout(stdout);
		else {
			fprintf(stderr, "slabsim: unknown command '%s'\n", argv[2]);
			return SLABSIM_EXIT_USAGE;
		}
		return 0;
	}
	/* getopt_long names argv[0] in its messages: "slabsim replay: ..." */
	static char replay_name[] = "slabsim replay", layout_name[] = "slabsim layout";
	if (strcmp(cmd, "replay") == 0) {
		argv[1] = replay_name;
		return cmd_replay(argc - 1, argv + 1);
	}
	if (strcmp(cmd, "layout") == 0) {
		argv[1] = layout_name;
		return cmd_layout(argc - 1, argv + 1);
	}
	fprintf(stderr, "slabsim: unknown command '%s'\n", cmd);
	usage_main(stderr);
	return SLABSIM_EXIT_USAGE;
}
