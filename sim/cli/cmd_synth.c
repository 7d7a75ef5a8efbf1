/* cmd_synth.c - `slabsim synth --workload SPEC`: write a synthetic workload
 * as ftrace text; and the glue that sets a workload up on an engine (shared
 * with `replay --workload`). */
#include "cli.h"
#include "err.h"
#include "layout.h"
#include "policy.h"
#include "sim.h"
#include "synth.h"
#include "trace.h"
#include "workload.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the glue ---- */

int cli_workload_open(struct cli_workload *cw, const char *path, const char *seed,
		      const char *duration, struct err *e)
{
	memset(cw, 0, sizeof(*cw));
	int rc = workload_load(path, &cw->w, e);
	if (rc)
		return rc;
	bool has;
	cw->seed = workload_seed(cw->w, &has);
	if (seed && cli_parse_seed(seed, &cw->seed))
		return err_set(e, SLABSIM_EUSAGE,
			       "--seed expects a whole number from 0 to 2^64-1, got '%s'", seed);
	cw->duration_ns = workload_duration_ns(cw->w, &has);
	if (duration && (!workload_parse_time(duration, &cw->duration_ns) || !cw->duration_ns))
		return err_set(e, SLABSIM_EUSAGE,
			       "--duration expects a time > 0 with a unit (e.g. 60s, 250ms), got "
			       "'%s'",
			       duration);
	if (!cw->duration_ns)
		return err_set(e, SLABSIM_EUSAGE,
			       "%s: no duration: give --duration or 'duration =' in [workload]",
			       path);
	return 0;
}

static uint64_t kmalloc_bytes(void *ctx, uint64_t size, uint32_t gfp)
{
	return sim_kmalloc_bytes(ctx, size, gfp);
}

/* Create w's caches on s; req/alloc (n entries) get their traced sizes. */
static int define_caches(const struct workload *w, struct sim *s, uint64_t *req, uint64_t *alloc,
			 struct err *e)
{
	uint32_t n = workload_nr_caches(w);
	for (uint32_t i = 0; i < n; i++) {
		struct workload_cache wc;
		workload_cache(w, i, &wc);
		struct policy_cache_spec spec = {
			.name = wc.name,
			.object_size = wc.object_size,
			.align = wc.align,
			.usersize = wc.usersize,
			.ctor = (wc.flags & WORKLOAD_CF_CTOR) != 0,
		};
		if (wc.flags & WORKLOAD_CF_HWCACHE)
			spec.flags |= POLICY_F_HWCACHE_ALIGN;
		if (wc.flags & WORKLOAD_CF_RECLAIM)
			spec.flags |= POLICY_F_RECLAIM_ACCOUNT;
		if (wc.flags & WORKLOAD_CF_ACCOUNT)
			spec.flags |= POLICY_F_ACCOUNT;
		if (wc.flags & WORKLOAD_CF_DMA)
			spec.flags |= POLICY_F_CACHE_DMA;
		if (wc.flags & WORKLOAD_CF_TYPESAFE_BY_RCU)
			spec.flags |= POLICY_F_TYPESAFE_BY_RCU;
		int rc = sim_define_cache(s, &spec, &req[i], &alloc[i], e);
		if (rc) {
			char why[SLABSIM_ERR_MSG_MAX];
			(void)snprintf(why, sizeof(why), "%s", e->msg);
			return err_set(e, rc == SLABSIM_ENOMEM ? rc : SLABSIM_EINPUT,
				       "%s: [cache %s]: %s", workload_path(w), wc.name, why);
		}
	}
	return 0;
}

int cli_define_workload_caches(const char *path, struct sim *s, struct err *e)
{
	struct workload *w = NULL;
	int rc = workload_load(path, &w, e);
	if (rc)
		return rc;
	uint32_t n = workload_nr_caches(w);
	uint64_t *req = calloc(n + 1, sizeof(*req)), *alloc = calloc(n + 1, sizeof(*alloc));
	rc = req && alloc ? define_caches(w, s, req, alloc, e)
			  : err_set(e, SLABSIM_ENOMEM, "out of memory");
	free(req);
	free(alloc);
	workload_free(w);
	return rc;
}

int cli_workload_start(struct cli_workload *cw, struct sim *s, uint64_t seed, struct err *e)
{
	uint32_t n = workload_nr_caches(cw->w);
	free(cw->req);
	free(cw->alloc);
	cw->req = calloc(n + 1, sizeof(*cw->req));
	cw->alloc = calloc(n + 1, sizeof(*cw->alloc));
	if (!cw->req || !cw->alloc)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	int rc = define_caches(cw->w, s, cw->req, cw->alloc, e);
	if (rc)
		return rc;
	struct synth_model model = {
		.ctx = s,
		.kmalloc_bytes = kmalloc_bytes,
		.cache_req = cw->req,
		.cache_alloc = cw->alloc,
	};
	synth_destroy(cw->g);
	cw->g = NULL;
	return synth_create(cw->w, seed, cw->duration_ns, &model, &cw->g, e);
}

void cli_workload_source(struct cli_workload *cw, struct trace_source *src)
{
	(void)snprintf(cw->label, sizeof(cw->label), "%s event", workload_path(cw->w));
	synth_source(cw->g, cw->label, src);
}

void cli_workload_close(struct cli_workload *cw)
{
	synth_destroy(cw->g);
	workload_free(cw->w);
	free(cw->req);
	free(cw->alloc);
	memset(cw, 0, sizeof(*cw));
}

int cli_workload_json(const struct cli_workload *cw, uint64_t seed, char *buf, size_t n)
{
	/* names are one word without quotes or backslashes (the parser's
	 * rule); the path is escaped */
	char path[600];
	size_t o = 0;
	for (const char *p = workload_path(cw->w); *p && o + 7 < sizeof(path); p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\')
			path[o++] = '\\', path[o++] = (char)c;
		else if (c < 0x20)
			o += (size_t)snprintf(path + o, sizeof(path) - o, "\\u%04x", c);
		else
			path[o++] = (char)c;
	}
	path[o] = '\0';
	int w = snprintf(buf, n,
			 "\"workload\":{\"path\":\"%s\",\"hash\":\"%s\",\"name\":\"%s\","
			 "\"rng\":\"%s\",\"seed\":%" PRIu64 ",\"duration_ns\":%" PRIu64 "}",
			 path, workload_hash(cw->w), workload_name(cw->w), workload_rng_name(cw->w),
			 seed, cw->duration_ns);
	return w < 0 || (size_t)w >= n ? -1 : 0;
}

int cli_parse_seed(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || errno)
		return -1;
	*out = v;
	return 0;
}

/* ---- the command ---- */

enum {
	OPT_WORKLOAD = CLI_OPT_CMD,
	OPT_SEED,
	OPT_DURATION,
	OPT_STATS,
};

void usage_synth(FILE *f)
{
	fprintf(f,
		"Usage: slabsim synth --workload SPEC [--seed S] [--duration T] [-o FILE]\n"
		"                     [MODEL OPTIONS]\n"
		"\n"
		"Generate the synthetic workload SPEC (docs/workloads.md) and write it as ftrace\n"
		"text (tracefs, Linux 6.1 fields, ns timestamps) that `slabsim replay` and other\n"
		"trace tools read. The same SPEC, seed and duration give the same bytes on every\n"
		"machine. bytes_alloc is what the chosen model would trace; replay the file with\n"
		"`slabsim replay FILE --caches SPEC` to get the results of `replay --workload`.\n"
		"\n"
		"Options:\n"
		"  --workload SPEC       the workload specification (required)\n"
		"  --seed S              seed of the generator (default: the spec's, else 1)\n"
		"  --duration T          virtual time to generate, e.g. 60s, 250ms, 2h\n"
		"                        (default: the spec's)\n"
		"  -o, --output FILE     write here (default, or FILE '-': stdout)\n"
		"  --stats               print the generator's counts on stderr at the end\n"
		"                        (events, peak pending frees, peak queue bytes)\n"
		"  -h, --help            this help\n"
		"\n");
	cli_usage_model_opts(f);
	fprintf(f, "\n%s", cli_exit_codes_help);
}

int cmd_synth(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_MODEL_LONGOPTS,
		{"workload", required_argument, NULL, OPT_WORKLOAD},
		{"seed", required_argument, NULL, OPT_SEED},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"output", required_argument, NULL, 'o'},
		{"stats", no_argument, NULL, OPT_STATS},
		{NULL, 0, NULL, 0},
	};
	struct cli_model m;
	const char *spec = NULL, *seed = NULL, *duration = NULL, *output = NULL;
	int c, r;
	bool stats = false;
	cli_model_defaults(&m);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		if ((r = cli_model_opt(&m, c, optarg)) < 0)
			return cli_bad_usage("synth");
		if (r)
			continue;
		switch (c) {
		case 'h':
			usage_synth(stdout);
			return 0;
		case 'o':
			output = strcmp(optarg, "-") ? optarg : NULL; /* "-": stdout */
			break;
		case OPT_WORKLOAD:
			spec = optarg;
			break;
		case OPT_SEED:
			seed = optarg;
			break;
		case OPT_DURATION:
			duration = optarg;
			break;
		case OPT_STATS:
			stats = true;
			break;
		default:
			return cli_bad_usage("synth");
		}
	}
	if (optind != argc) {
		fprintf(stderr, "slabsim: synth takes no arguments, got '%s'\n", argv[optind]);
		return cli_bad_usage("synth");
	}
	if (!spec) {
		fprintf(stderr, "slabsim: synth needs --workload SPEC\n");
		return cli_bad_usage("synth");
	}
	struct err e;
	struct cli_workload cw;
	struct sim *s = NULL;
	struct sim_opts so = {.ops = policy_find(m.allocator), .cfg = m.cfg};
	FILE *out = stdout;
	int rc, status = 0;
	err_clear(&e);
	if ((rc = cli_workload_open(&cw, spec, seed, duration, &e))) {
		status = rc == SLABSIM_EUSAGE
				 ? (fprintf(stderr, "slabsim: %s\n", e.msg), cli_bad_usage("synth"))
				 : cli_fail(&e);
		cli_workload_close(&cw);
		return status;
	}
	if ((rc = sim_create(&so, &s, &e)) || (rc = cli_workload_start(&cw, s, cw.seed, &e))) {
		status = cli_fail(&e);
		goto done;
	}
	if (output && !(out = fopen(output, "w"))) {
		fprintf(stderr, "slabsim: %s: %s\n", output, strerror(errno));
		status = SLABSIM_EXIT_IO;
		out = NULL;
		goto done;
	}
	static char buf[1 << 16];
	(void)setvbuf(out, buf, _IOFBF, sizeof(buf));
	bool bad = synth_write_header(out, cw.w, cw.seed, cw.duration_ns) != 0;
	struct trace_event ev;
	while (!bad && (rc = synth_next(cw.g, &ev, &e)) == 1)
		bad = synth_write_event(out, &ev) != 0;
	if (rc < 0) {
		status = cli_fail(&e);
		goto done;
	}
	if (stats) {
		struct synth_stats st;
		synth_stats(cw.g, &st);
		fprintf(stderr,
			"synth: %" PRIu64 " events (%" PRIu64 " allocations, %" PRIu64
			" frees), peak pending frees %" PRIu64 ", peak queue %" PRIu64 " bytes\n",
			st.events, st.allocs, st.frees, st.peak_pending, st.peak_queue_bytes);
	}
	if (bad || fflush(out) || ferror(out)) {
		fprintf(stderr, "slabsim: %s: write error\n", output ? output : "stdout");
		status = SLABSIM_EXIT_IO;
	}
done:
	if (out && out != stdout && fclose(out) && !status) {
		fprintf(stderr, "slabsim: %s: write error\n", output);
		status = SLABSIM_EXIT_IO;
	}
	if (out == stdout)
		(void)setvbuf(stdout, NULL, _IOLBF, 0);
	sim_destroy(s);
	cli_workload_close(&cw);
	return status;
}
