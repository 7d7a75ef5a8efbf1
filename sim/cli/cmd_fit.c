/* cmd_fit.c - `slabsim fit TRACE`: a workload spec fitted to a trace. */
#include "cli.h"
#include "err.h"
#include "fit.h"
#include "policy.h"
#include "trace.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_BY = CLI_OPT_CMD,
	OPT_MIN_ALLOCS,
	OPT_MAX_SIZES,
	OPT_MIN_PAIRS,
	OPT_PERIODIC_BELOW,
	OPT_NAME,
	OPT_STRICT,
	OPT_KALLSYMS,
};

void usage_fit(FILE *f)
{
	fprintf(f,
		"Usage: slabsim fit TRACE [OPTIONS]\n"
		"\n"
		"Measure TRACE (ftrace text of kmem: events; .gz/.xz/.zst; '-' reads stdin) per\n"
		"call site or per cache and write a workload spec (docs/workloads.md) that\n"
		"`slabsim synth` and `slabsim replay --workload` read: sizes as an empirical\n"
		"histogram, Poisson or burst arrivals at the traced rate, the CPU mix, the\n"
		"target, and lifetimes fitted by censored maximum likelihood (exponential or\n"
		"lognormal, each with or without an immortal fraction, chosen by AIC). The\n"
		"fits are comments in the spec and a table on stderr. The method is in\n"
		"docs/fit.md.\n"
		"\n"
		"Options:\n"
		"  --by site|cache       one stream per call site (default) or per cache\n"
		"  --min-allocs N        fold streams with fewer than N allocations into one\n"
		"                        'other-TARGET' stream per target (default 1: none)\n"
		"  --max-sizes N         distinct sizes kept per stream, 1..16384 (default 64;\n"
		"                        the lightest merges into a neighbour, preferably\n"
		"                        one of its kmalloc class)\n"
		"  --min-pairs N         fewer matched alloc/free pairs: the pooled fit, or\n"
		"                        'forever' with none (default 5)\n"
		"  --periodic-below N    streams with fewer than N allocations arrive\n"
		"                        'periodic SPAN/N': exactly the traced count\n"
		"                        (default 10; 0: never)\n"
		"  --name NAME           workload name, one word (default: the trace's file\n"
		"                        name, other characters as '_')\n"
		"  --strict              stop at the first malformed line\n"
		"  --kallsyms FILE       a perf.data's kernel symbols (as replay --kallsyms)\n"
		"  -o, --output FILE     write the spec to FILE (default stdout)\n"
		"  -q, --quiet           no table on stderr\n"
		"  -h, --help            this help\n\n%s",
		cli_exit_codes_help);
}

/* The creation flags that give a traced (object size, slot size), as the
 * replay infers them (policy_guess_spec). fit takes no model options, so
 * the default configuration: no slub_debug, whose pass the guess then
 * skips. */
static bool infer_geom(void *ctx, uint32_t osz, uint32_t slot, struct fit_cache_geom *g)
{
	struct policy_cfg cfg;
	struct policy_cache_spec t = {.name = "fit"};
	policy_cfg_default(&cfg);
	if (!policy_guess_spec(&cfg, osz, slot, &t))
		return false;
	g->align = t.align;
	g->hwcache = (t.flags & POLICY_F_HWCACHE_ALIGN) != 0;
	g->ctor = t.ctor;
	return true;
}

static const char *base_name(const char *path, char *buf, size_t n)
{
	if (strcmp(path, "-") == 0)
		return "stdin";
	const char *b = strrchr(path, '/');
	(void)snprintf(buf, n, "%s", b ? b + 1 : path);
	static const char *const sfx[] = {".gz", ".xz", ".zst", ".trace", ".txt"};
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		size_t l = strlen(buf), s = strlen(sfx[i]);
		if (l > s && strcmp(buf + l - s, sfx[i]) == 0)
			buf[l - s] = '\0';
	}
	fit_name_word(buf); /* a name synth reads back */
	return *buf ? buf : "fitted";
}

/* --name: a name the spec can hold (synth reads it back). */
static bool name_arg(const char *v)
{
	if (fit_name_ok(v))
		return true;
	fprintf(stderr,
		"slabsim: --name expects one word of printable ASCII without [ ] = , # ;, "
		"got '%s'\n",
		v);
	return false;
}

int cmd_fit(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"by", required_argument, NULL, OPT_BY},
		{"min-allocs", required_argument, NULL, OPT_MIN_ALLOCS},
		{"max-sizes", required_argument, NULL, OPT_MAX_SIZES},
		{"min-pairs", required_argument, NULL, OPT_MIN_PAIRS},
		{"periodic-below", required_argument, NULL, OPT_PERIODIC_BELOW},
		{"name", required_argument, NULL, OPT_NAME},
		{"strict", no_argument, NULL, OPT_STRICT},
		{"kallsyms", required_argument, NULL, OPT_KALLSYMS},
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct fit_opts fo;
	const char *outpath = NULL, *name = NULL, *kallsyms = NULL;
	bool quiet = false, strict = false;
	uint32_t v;
	int c;

	fit_opts_default(&fo);
	fo.infer = infer_geom;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage_fit(stdout);
			return 0;
		case 'o':
			outpath = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case OPT_BY:
			if (strcmp(optarg, "site") == 0) {
				fo.by = FIT_BY_SITE;
			} else if (strcmp(optarg, "cache") == 0) {
				fo.by = FIT_BY_CACHE;
			} else {
				fprintf(stderr, "slabsim: --by expects site or cache, got '%s'\n",
					optarg);
				return cli_bad_usage("fit");
			}
			break;
		case OPT_MIN_ALLOCS:
			if (cli_parse_u32("--min-allocs", optarg, 1, UINT32_MAX, &v))
				return cli_bad_usage("fit");
			fo.min_allocs = v;
			break;
		case OPT_MAX_SIZES:
			if (cli_parse_u32("--max-sizes", optarg, 1, 16384, &v))
				return cli_bad_usage("fit");
			fo.max_sizes = v;
			break;
		case OPT_MIN_PAIRS:
			if (cli_parse_u32("--min-pairs", optarg, 1, UINT32_MAX, &v))
				return cli_bad_usage("fit");
			fo.min_pairs = v;
			break;
		case OPT_PERIODIC_BELOW:
			if (cli_parse_u32("--periodic-below", optarg, 0, UINT32_MAX, &v))
				return cli_bad_usage("fit");
			fo.periodic_below = v;
			break;
		case OPT_NAME:
			if (!name_arg(optarg))
				return cli_bad_usage("fit");
			name = optarg;
			break;
		case OPT_STRICT:
			strict = true;
			break;
		case OPT_KALLSYMS:
			kallsyms = optarg;
			break;
		default:
			return cli_bad_usage("fit");
		}
	}
	const char *path = cli_one_arg(argc, argv, optind, "fit", "TRACE argument", "");
	if (!path)
		return cli_bad_usage("fit");
	char nbuf[256];
	fo.name = name ? name : base_name(path, nbuf, sizeof(nbuf));
	fo.source = path;

	struct err e;
	struct trace_reader *tr = NULL;
	struct fit *f = NULL;
	struct trace_opts to = {.strict = strict, .kallsyms = kallsyms};
	struct trace_event ev;
	int rc, status = 0;
	err_clear(&e);
	if ((rc = trace_open(path, &to, &tr, &e)) || (rc = fit_create(&fo, &f, &e))) {
		status = cli_fail(&e);
		goto out;
	}
	while ((rc = trace_next(tr, &ev, &e)) == 1)
		if ((rc = fit_event(f, &ev, &e)))
			break;
	if (rc < 0 || (rc = fit_finish(f, &e))) {
		if (rc == SLABSIM_EINPUT && !strchr(e.msg, ':')) {
			struct err e2;
			err_at(&e2, rc, path, 0, "%s", e.msg);
			e = e2;
		}
		status = cli_fail(&e);
		goto out;
	}
	const struct trace_stats *ts = trace_stats(tr);
	FILE *out = stdout;
	if (outpath && !(out = fopen(outpath, "w"))) {
		fprintf(stderr, "slabsim: %s: %s\n", outpath, strerror(errno));
		status = SLABSIM_EXIT_IO;
		goto out;
	}
	fit_write_spec(f, out, path);
	if (ts->malformed)
		fprintf(out, "# %" PRIu64 " malformed lines skipped (first: line %" PRIu64 ")\n",
			ts->malformed, ts->first_malformed_line);
	int bad = fflush(out) || ferror(out);
	if (out != stdout)
		bad |= fclose(out);
	if (bad) {
		fprintf(stderr, "slabsim: %s: cannot write the spec\n",
			outpath ? outpath : "stdout");
		status = SLABSIM_EXIT_IO;
		goto out;
	}
	if (!quiet) {
		fit_write_report(f, stderr);
		if (ts->malformed)
			fprintf(stderr,
				"fit: %" PRIu64 " malformed lines skipped (first: %s:%" PRIu64
				": %s)\n",
				ts->malformed, path, ts->first_malformed_line,
				ts->first_malformed_msg);
	}
out:
	fit_destroy(f);
	trace_close(tr);
	return status;
}
