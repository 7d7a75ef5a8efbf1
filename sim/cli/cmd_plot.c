/* cmd_plot.c - `slabsim plot` and `slabsim report`: the same options
 * (--db, --out, --trace, --no-render), one draws the figures, the other
 * writes the HTML page around them. */
#include "cli.h"
#include "err.h"
#include "plot.h"
#include "report.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

enum {
	OPT_DB = CLI_OPT_CMD,
	OPT_OUT,
	OPT_TRACE,
	OPT_NO_RENDER,
	OPT_STUDY,
};

/* --study may be given this many times (there are fewer studies) */
enum { MAX_STUDIES = 16 };

/* The options of both commands, as their help lists them. */
static const char opts_help[] =
	"Options:\n"
	"  --db FILE       results database (default slabsim.db)\n"
	"  -o, --output DIR  output directory (created if missing; required; --out\n"
	"                  is the same)\n"
	"  --trace PATH    trace_path of the runs the per-trace figures show (default:\n"
	"                  the trace with the most runs)\n"
	"  --no-render     write the .dat and .gp files only, do not run gnuplot\n"
	"  -h, --help      this help\n\n";

void usage_plot(FILE *f)
{
	fprintf(f,
		"Usage: slabsim plot --db FILE --out DIR [--trace PATH]\n"
		"\n"
		"Draw the graphs of a results database with gnuplot into DIR: for each figure\n"
		"NAME.dat (the numbers), NAME.gp (the script, to restyle), NAME.png (pngcairo)\n"
		"and NAME.svg. Figures: memory-time (slab memory over virtual time, one line\n"
		"per policy), align-overhead (natural vs none per allocator and debug setting),\n"
		"waste-by-kind (stacked), top-caches (per allocator), occupancy-cdf (CDF of\n"
		"slab occupancy from the per-cache samples).\n"
		"\n"
		"%s%s",
		opts_help, cli_exit_codes_help);
}

void usage_report(FILE *f)
{
	fprintf(f,
		"Usage: slabsim report --db FILE --out DIR [--trace PATH] [--study ID]...\n"
		"\n"
		"Write DIR/index.html: one self-contained page (images embedded) with the\n"
		"plots of 'slabsim plot' (also left in DIR) and the summary tables of the\n"
		"named queries.\n"
		"\n"
		"%s"
		"  --study ID      instead, the page of study ID (repeatable): its question,\n"
		"                  table (query study-ID), figure (DIR/study-ID.png) and what is\n"
		"                  validated; ID one of align-2024, random-kmalloc, isolation,\n"
		"                  slob-tiny (README \"Studies\": the sweep spec of each)\n\n"
		"%s",
		opts_help, cli_exit_codes_help);
}

/* What both commands are given, and where their error goes. */
struct plot_args {
	const char *db, *out;
	struct plot_opts po;
	const char *study[MAX_STUDIES]; /* report --study */
	size_t nstudy;
	struct err e;
};

/* Parse the options both commands take into a (its error cleared).
 * Returns -1 when the command is done (help printed: *status 0; bad
 * usage: *status set), 0 to go on. */
static int parse_opts(const char *cmd, void (*usage)(FILE *), int argc, char **argv,
		      struct plot_args *a, int *status)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, OPT_DB},
		{"out", required_argument, NULL, OPT_OUT},
		{"output", required_argument, NULL, 'o'},
		{"trace", required_argument, NULL, OPT_TRACE},
		{"no-render", no_argument, NULL, OPT_NO_RENDER},
		{"study", required_argument, NULL, OPT_STUDY},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	a->db = "slabsim.db";
	a->out = NULL;
	a->po = (struct plot_opts){.render = true};
	a->nstudy = 0;
	*status = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return -1;
		case OPT_DB:
			a->db = optarg;
			break;
		case 'o':
		case OPT_OUT:
			a->out = optarg;
			break;
		case OPT_TRACE:
			a->po.trace = optarg;
			break;
		case OPT_NO_RENDER:
			a->po.render = false;
			break;
		case OPT_STUDY:
			if (strcmp(cmd, "report") != 0) {
				fprintf(stderr, "slabsim: %s: --study is an option of report\n",
					cmd);
				*status = cli_bad_usage(cmd);
				return -1;
			}
			if (a->nstudy == MAX_STUDIES) {
				fprintf(stderr, "slabsim: report: --study at most %d times\n",
					MAX_STUDIES);
				*status = cli_bad_usage(cmd);
				return -1;
			}
			a->study[a->nstudy++] = optarg;
			break;
		default:
			*status = cli_bad_usage(cmd);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "slabsim: %s takes no arguments besides its options\n", cmd);
		*status = cli_bad_usage(cmd);
		return -1;
	}
	if (!a->out || !*a->out) {
		fprintf(stderr, "slabsim: %s needs --out DIR\n", cmd);
		*status = cli_bad_usage(cmd);
		return -1;
	}
	err_clear(&a->e);
	return 0;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_args a;
	struct plot_result pr;
	int status;
	if (parse_opts("plot", usage_plot, argc, argv, &a, &status))
		return status;
	if (plot_all(a.db, a.out, &a.po, &pr, &a.e))
		return cli_fail(&a.e);
	for (int i = 0; i < PLOT_NFIGS; i++) {
		if (pr.figs[i].drawn)
			printf("%s/%s.%s\n", a.out, pr.figs[i].name, a.po.render ? "png" : "gp");
		else if (!pr.figs[i].optional)
			fprintf(stderr, "slabsim: plot %s not drawn: %s\n", pr.figs[i].name,
				pr.figs[i].note);
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct plot_args a;
	int status;
	if (parse_opts("report", usage_report, argc, argv, &a, &status))
		return status;
	if (a.nstudy ? report_write_studies(a.db, a.out, a.study, a.nstudy, &a.po, &a.e)
		     : report_write(a.db, a.out, &a.po, &a.e))
		return cli_fail(&a.e);
	printf("%s/index.html\n", a.out);
	return 0;
}
