/* cmd_query.c - `slabsim query NAME`: the named queries of analysis/query.c. */
#include "cli.h"
#include "err.h"
#include "query.h"

#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

enum {
	OPT_DB = CLI_OPT_CMD,
	OPT_FORMAT,
	OPT_LIST,
	OPT_SQL,
};

void usage_query(FILE *f)
{
	fprintf(f,
		"Usage: slabsim query NAME [--db FILE] [--format table|csv|json|text]\n"
		"       slabsim query --list\n"
		"\n"
		"Run a named query on a results database and print its rows. Queries use the\n"
		"newest finished run of every configuration (runs.config_hash). Their SQL is in\n"
		"docs/schema.md; --sql prints it.\n"
		"\n"
		"Options:\n"
		"  --db FILE                 results database (default slabsim.db)\n"
		"  --format table|csv|json|text  output format (default table); text: each\n"
		"                            row's cells joined by a space, no header (the\n"
		"                            lines of sites-file: --format text -o my.sites)\n"
		"  --list                    list the named queries\n"
		"  --sql                     print the query's SQL instead of running it\n"
		"  -o, --output FILE         write the result to FILE instead of stdout\n"
		"  -h, --help                this help\n"
		"\n"
		"Queries:\n");
	for (const struct query_def *q = query_table; q->name; q++)
		fprintf(f, "  %-16s %s\n", q->name, q->desc);
	fprintf(f, "\n%s", cli_exit_codes_help);
}

int cmd_query(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, OPT_DB},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"list", no_argument, NULL, OPT_LIST},
		{"sql", no_argument, NULL, OPT_SQL},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *db = "slabsim.db";
	enum query_format fmt = QUERY_TABLE;
	bool list = false, sql = false;
	const char *output = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage_query(stdout);
			return 0;
		case 'o':
			output = optarg;
			break;
		case OPT_DB:
			db = optarg;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "table"))
				fmt = QUERY_TABLE;
			else if (!strcmp(optarg, "csv"))
				fmt = QUERY_CSV;
			else if (!strcmp(optarg, "json"))
				fmt = QUERY_JSON;
			else if (!strcmp(optarg, "text"))
				fmt = QUERY_TEXT;
			else {
				fprintf(stderr,
					"slabsim: --format expects table, csv, json or text, got "
					"'%s'\n",
					optarg);
				return cli_bad_usage("query");
			}
			break;
		case OPT_LIST:
			list = true;
			break;
		case OPT_SQL:
			sql = true;
			break;
		default:
			return cli_bad_usage("query");
		}
	}
	int st_out;
	if (output && (st_out = cli_output(output)))
		return st_out;
	if (list) {
		if (optind != argc) {
			fprintf(stderr, "slabsim: query --list takes no NAME\n");
			return cli_bad_usage("query");
		}
		for (const struct query_def *q = query_table; q->name; q++)
			printf("%-16s %s\n", q->name, q->desc);
		return 0;
	}
	const char *name = cli_one_arg(argc, argv, optind, "query", "NAME", " (see --list)");
	if (!name)
		return cli_bad_usage("query");
	const struct query_def *q = query_find(name);
	if (!q) {
		fprintf(stderr, "slabsim: unknown query '%s' (known:", name);
		for (const struct query_def *k = query_table; k->name; k++)
			fprintf(stderr, " %s", k->name);
		fprintf(stderr, ")\n");
		return cli_bad_usage("query");
	}
	if (sql) {
		printf("%s;\n", q->sql);
		return 0;
	}
	struct err e;
	sqlite3 *h;
	err_clear(&e);
	if (query_open(db, &h, &e))
		return cli_fail(&e);
	/* a file older than the table the query reads: no rows, and why */
	if (!strncmp(q->name, "align-pay", 9) && !query_has_table(h, "align_cost"))
		fprintf(stderr,
			"slabsim: note: %s is schema version %lld: align_cost (who pays, version "
			"5) was not recorded; no rows\n",
			db, query_schema_version(h));
	int rc = query_print(h, q->sql, fmt, stdout, NULL, &e);
	sqlite3_close(h);
	if (rc)
		return cli_fail(&e);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "slabsim: error writing output\n");
		return SLABSIM_EXIT_IO;
	}
	return 0;
}
