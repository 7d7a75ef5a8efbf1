/* cmd_report.c - `slabsim report --db FILE --out DIR`. */
#include "cli.h"
#include "err.h"
#include "report.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

enum {
	OPT_DB = CLI_OPT_CMD,
	OPT_OUT,
	OPT_TRACE,
	OPT_NO_RENDER,
};

void usage_report(FILE *f)
{
	fprintf(f,
		"Usage: slabsim report --db FILE --out DIR [--trace PATH]\n"
		"\n"
		"Write DIR/index.html: one self-contained page (images embedded) with the\n"
		"plots of 'slabsim plot' (also left in DIR) and the summary tables of the\n"
		"named queries.\n"
		"\n"
		"Options:\n"
		"  --db FILE       results database (default slabsim.db)\n"
		"  --out DIR       output directory (created if missing; required)\n"
		"  --trace PATH    trace_path of the runs the per-trace figures show (default:\n"
		"                  the trace with the most runs)\n"
		"  --no-render     write the .dat and .gp files only, do not run gnuplot\n"
		"  -h, --help      this help\n\n%s",
		cli_exit_codes_help);
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, OPT_DB},
		{"out", required_argument, NULL, OPT_OUT},
		{"trace", required_argument, NULL, OPT_TRACE},
		{"no-render", no_argument, NULL, OPT_NO_RENDER},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *db = "slabsim.db", *out = NULL;
	struct plot_opts po = {.render = true};
	struct err e;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage_report(stdout);
			return 0;
		case OPT_DB:
			db = optarg;
			break;
		case OPT_OUT:
			out = optarg;
			break;
		case OPT_TRACE:
			po.trace = optarg;
			break;
		case OPT_NO_RENDER:
			po.render = false;
			break;
		default:
			return cli_bad_usage("report");
		}
	}
	if (optind != argc) {
		fprintf(stderr, "slabsim: report takes no arguments besides its options\n");
		return cli_bad_usage("report");
	}
	if (!out || !*out) {
		fprintf(stderr, "slabsim: report needs --out DIR\n");
		return cli_bad_usage("report");
	}
	err_clear(&e);
	if (report_write(db, out, &po, &e))
		return cli_fail(&e);
	printf("%s/index.html\n", out);
	return 0;
}
