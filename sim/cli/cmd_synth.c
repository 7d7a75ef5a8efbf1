/* cmd_synth.c - `slabsim synth --workload SPEC`: write a synthetic workload
 * as ftrace text (the workload is set up on an engine by sim/run/, which
 * gives the traced sizes of its allocations under the model). */
#include "cli.h"
#include "sites.h"
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
	struct run_model m;
	const char *spec = NULL, *seed = NULL, *duration = NULL, *output = NULL;
	int c, r;
	bool stats = false;
	run_model_default(&m);
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
	struct run_workload cw;
	struct sim *s = NULL;
	struct sim_opts so = {.ops = policy_find(m.allocator), .cfg = m.cfg};
	FILE *out = stdout;
	enum { BUF_BYTES = 1 << 16 };
	char *buf = NULL;
	int rc, status = 0;
	err_clear(&e);
	if ((rc = run_workload_open(&cw, spec, seed, duration, &e))) {
		status = rc == SLABSIM_EUSAGE
				 ? (fprintf(stderr, "slabsim: %s\n", e.msg), cli_bad_usage("synth"))
				 : cli_fail(&e);
		run_workload_close(&cw);
		return status;
	}
	struct policy_sites *sites = NULL;
	if ((rc = run_model_load_sites(&m, &sites, &e))) {
		status = cli_fail(&e);
		goto done;
	}
	so.cfg.sites = m.cfg.sites;
	if ((rc = sim_create(&so, &s, &e)) || (rc = run_workload_start(&cw, s, cw.seed, &e))) {
		status = cli_fail(&e);
		goto done;
	}
	if (output && !(out = fopen(output, "w"))) {
		fprintf(stderr, "slabsim: %s: %s\n", output, strerror(errno));
		status = SLABSIM_EXIT_IO;
		out = NULL;
		goto done;
	}
	/* a large buffer for the text; stdio's own if it cannot be had */
	if ((buf = malloc(BUF_BYTES)))
		(void)setvbuf(out, buf, _IOFBF, BUF_BYTES);
	bool bad = synth_write_header(out, cw.w, cw.seed, cw.duration_ns, m.cfg.nr_cpus) != 0;
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
	if (out == stdout) {
		(void)fflush(stdout);
		(void)setvbuf(stdout, NULL, _IOLBF, 0);
	}
	free(buf); /* after the stream stopped using it */
	sim_destroy(s);
	policy_sites_destroy(sites);
	run_workload_close(&cw);
	return status;
}
