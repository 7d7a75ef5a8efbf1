/* cmd_merge.c - `slabsim merge OUT.db IN.db...`. */
#include "cli.h"
#include "err.h"
#include "merge.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void usage_merge(FILE *f)
{
	fprintf(f,
		"Usage: slabsim merge OUT.db IN.db...\n"
		"\n"
		"Copy the finished runs of each IN.db into OUT.db (created if missing), e.g.\n"
		"the files of the shards of a sweep (slabsim sweep --shard I/N). A run whose\n"
		"configuration (runs.config_hash) is already done in OUT.db is skipped, so\n"
		"merging twice changes nothing. Each input is copied in one transaction: all\n"
		"of its runs or none. Inputs are only read.\n"
		"\n"
		"Options:\n"
		"  -q, --quiet   no line per input\n"
		"  -h, --help    this help\n\n%s",
		cli_exit_codes_help);
}

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool quiet = false;
	int c, status = 0;
	struct err e;
	struct merge *m;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage_merge(stdout);
			return 0;
		case 'q':
			quiet = true;
			break;
		default:
			return cli_bad_usage("merge");
		}
	}
	if (argc - optind < 2) {
		fprintf(stderr, "slabsim: merge needs OUT.db and at least one IN.db\n");
		return cli_bad_usage("merge");
	}
	err_clear(&e);
	const char *out = argv[optind];
	for (int i = optind + 1; i < argc; i++) {
		if (strcmp(argv[i], out) == 0) {
			fprintf(stderr, "slabsim: merge: %s is both the output and an input\n",
				out);
			return cli_bad_usage("merge");
		}
	}
	if (merge_open(out, &m, &e))
		return cli_fail(&e);
	for (int i = optind + 1; i < argc; i++) {
		struct merge_stats st = {0};
		if (merge_file(m, argv[i], &st, &e)) {
			fprintf(stderr, "slabsim: %s (nothing copied from it)\n", e.msg);
			if (!status)
				status = err_exit_code(e.code);
			continue;
		}
		if (!quiet)
			printf("%s: %" PRIu64 " runs copied, %" PRIu64 " already in %s, %" PRIu64
			       " unfinished skipped\n",
			       argv[i], st.copied, st.duplicates, out, st.unfinished);
	}
	merge_close(m);
	return status;
}
