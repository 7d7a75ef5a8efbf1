/* cmd_validate.c - `slabsim validate CAPTURE_DIR`. */
#include "capture.h"
#include "cli.h"
#include "err.h"
#include "progress.h"
#include "validate.h"
#include "validate_report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	OPT_DB = CLI_OPT_CMD,
	OPT_NO_DB,
	OPT_FORMAT,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_NO_ANCHOR,
	OPT_AT_MARKER,
	OPT_SEED,
	OPT_EXCLUDE,
};

void usage_validate(FILE *f)
{
	fprintf(f,
		"Usage: slabsim validate CAPTURE_DIR [OPTIONS]\n"
		"\n"
		"Compare the model with the kernel that recorded CAPTURE_DIR (the directory\n"
		"traces/capture/record or qemu-boot writes; docs/capture-format.md). The\n"
		"model is the allocator the kernel ran: capture-info.txt's allocator=, else\n"
		"what the files hold (slab-attrs.tsv: SLUB; /proc/slabinfo with tunables and\n"
		"no slab-attrs.tsv: SLAB; /proc/meminfo alone: SLOB); --allocator overrides.\n"
		"What is compared follows what that kernel shows:\n"
		"  layout     SLUB: for every root cache of slab-attrs.tsv, object_size,\n"
		"             slab_size, align, order and objs_per_slab predicted vs real;\n"
		"             SLAB: for every cache of slabinfo.txt (else slabinfo-start.txt),\n"
		"             objsize, objperslab, pagesperslab, limit, batchcount and\n"
		"             sharedfactor; SLOB: none (the kernel shows no cache);\n"
		"  end state  the trace replayed from the start state vs the end: SLUB and\n"
		"             SLAB slabinfo.txt, active and total objects, slabs and pages per\n"
		"             cache and in total (error weighted by memory); SLOB meminfo.txt's\n"
		"             Slab: (pages = kB / 4) vs the model's slab and page-allocator\n"
		"             kmalloc pages;\n"
		"  snapshots  at every 'SNAP ID' marker, the model's pages vs\n"
		"             snapshots/ID.slabinfo (SLUB, SLAB) or Slab: of\n"
		"             snapshots/ID.meminfo (SLOB), and pages_mae_over_swing = mean\n"
		"             absolute error of total pages / (largest - smallest real total).\n"
		"             The model is compared as it was when the snapshot's\n"
		"             /proc/slabinfo was read (the first read() after its open, found\n"
		"             in the trace: the first open after record's 'SNAP-READ ID'\n"
		"             marker, else the last open before 'SNAP ID'), not at the marker\n"
		"             written after it (the report says how far the model moved in\n"
		"             between: the read window); --at-marker compares at the marker.\n"
		"Start state: slabinfo-start.txt (SLUB, SLAB: each cache's slabs and active\n"
		"objects; under SLUB, slab by slab from slab-attrs-start.tsv where present,\n"
		"read later, which gives the counts too (docs/capture-format.md): CPU\n"
		"slabs, per-CPU and node partial slabs with their free slots, refined by the\n"
		"trace's raw addresses; under SLAB, sharedavail objects in the shared array, one "
		"batch in\n"
		"one CPU's array, or in every CPU's when the shared array is not empty, the\n"
		"rest live) or meminfo-start.txt (SLOB: its Slab: total held as pages the\n"
		"model does not track). Without one (a boot capture) the model starts empty\n"
		"and the first snapshot is its start state: what the kernel held beyond the\n"
		"model there (objects made before tracing began) is added at that marker,\n"
		"and that snapshot is not scored; the figures without this anchor are\n"
		"reported too.\n"
		"The model is configured from uname.txt (kernel profile), ncpus.txt (possible\n"
		"CPUs), cmdline.txt (slub_debug, slub_min/max_order, slub_min_objects,\n"
		"slab_nomerge) and slabinfo (no kmalloc-cg-N cache: a kernel without\n"
		"CONFIG_MEMCG_KMEM); model options given here override them. Nothing is\n"
		"fitted to the state it is compared with. A capture with nothing the kernel's\n"
		"allocator shows (no slab-attrs.tsv, slabinfo.txt nor snapshots; for SLOB no\n"
		"meminfo.txt nor snapshots/*.meminfo) is refused (exit 5).\n"
		"\n");
	cli_usage_model_opts(f);
	fprintf(f,
		"\n"
		"Run options:\n"
		"  --db FILE             results database (default slabsim.db)\n"
		"  --no-db               do not record the validation\n"
		"  --format table|json   report format on stdout (default table)\n"
		"  --no-anchor           without slabinfo-start.txt (a boot capture), do not take\n"
		"                        the first snapshot as the start state\n"
		"  --at-marker           compare each snapshot with the model at its SNAP marker\n"
		"                        rather than when its /proc/slabinfo was read\n"
		"  --exclude CACHE,...   leave these caches out of every figure (layout counts,\n"
		"                        end-state totals, snapshot totals and\n"
		"                        pages_mae_over_swing), e.g. caches the trace is known to\n"
		"                        miss; named in the report; may be repeated. A name that\n"
		"                        is no cache of the capture (or an alias merged into\n"
		"                        another) is warned about and ignored, not an error\n"
		"  --seed S              seed of the random picks of start-state objects that\n"
		"                        frees of pointers allocated before the trace take\n"
		"                        (default 0, GSL's default seed; recorded)\n"
		"  --progress, --no-progress  progress bar on stderr (default: when a terminal)\n"
		"  -q, --quiet           no notes on stderr about the configuration taken\n"
		"  -o, --output FILE     write what goes to stdout to FILE instead\n"
		"  -h, --help            this help\n\n%s",
		cli_exit_codes_help);
}

/* The names of one --exclude CACHE,... appended to *names (duplicates
 * dropped). -1 for an empty name (usage), -2 out of memory. */
static int add_excludes(const char *arg, char ***names, uint32_t *n)
{
	for (const char *p = arg;;) {
		size_t len = strcspn(p, ",");
		if (!len)
			return -1;
		bool dup = false;
		for (uint32_t i = 0; i < *n && !dup; i++)
			dup = strlen((*names)[i]) == len && memcmp((*names)[i], p, len) == 0;
		if (!dup) {
			char **nn = realloc(*names, (*n + 1) * sizeof(*nn));
			if (!nn)
				return -2;
			*names = nn;
			if (!(nn[*n] = strndup(p, len)))
				return -2;
			(*n)++;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* Keep in names (compacted, *n updated) the --exclude names that are
 * caches of cap; a warning on stderr for each other one (not an error: a
 * list kept for several captures may name a cache one of them lacks). */
static void check_excludes(const struct capture *cap, char **names, uint32_t *n)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < *n; i++) {
		const char *root;
		switch (val_exclude_check(cap, names[i], &root)) {
		case VAL_EXCL_CACHE:
			names[kept++] = names[i];
			continue;
		case VAL_EXCL_ALIAS:
			fprintf(stderr,
				"slabsim: warning: --exclude %s: an alias merged into %s in this "
				"capture (its objects are that cache's); ignored: exclude %s to "
				"leave them out\n",
				names[i], root, root);
			break;
		case VAL_EXCL_UNKNOWN:
			fprintf(stderr,
				"slabsim: warning: --exclude %s: no such cache in %s (slabinfo "
				"files, slab-attrs.tsv); ignored\n",
				names[i], cap->dir);
			break;
		}
		free(names[i]);
	}
	*n = kept;
}

static void free_names(char **names, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* cmd_validate without the --exclude names, which it gathers into *excl
 * (*nexcl of them) for the caller to free on every return. */
static int validate_main(int argc, char **argv, char ***excl, uint32_t *nexcl)
{
	static const struct option longopts[] = {
		CLI_MODEL_LONGOPTS,
		{"db", required_argument, NULL, OPT_DB},
		{"no-db", no_argument, NULL, OPT_NO_DB},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"progress", no_argument, NULL, OPT_PROGRESS},
		{"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
		{"no-anchor", no_argument, NULL, OPT_NO_ANCHOR},
		{"at-marker", no_argument, NULL, OPT_AT_MARKER},
		{"seed", required_argument, NULL, OPT_SEED},
		{"exclude", required_argument, NULL, OPT_EXCLUDE},
		{"quiet", no_argument, NULL, 'q'},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	struct val_opts o = {.db = "slabsim.db", .notes = stderr, .anchor = true};
	int progress = -1, c, r, st_out;
	bool json = false;
	const char *output = NULL;

	run_model_default(&o.model);
	optind = 1;
	while ((c = getopt_long(argc, argv, "hqo:", longopts, NULL)) != -1) {
		if ((r = cli_model_opt(&o.model, c, optarg)) < 0)
			return cli_bad_usage("validate");
		if (r)
			continue;
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage_validate(stdout);
			return 0;
		case 'q':
			o.notes = NULL;
			break;
		case OPT_DB:
			if (!*optarg) {
				fprintf(stderr,
					"slabsim: --db needs a file name (or use --no-db)\n");
				return cli_bad_usage("validate");
			}
			o.db = optarg;
			break;
		case OPT_NO_DB:
			o.db = NULL;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "json") == 0)
				json = true;
			else if (strcmp(optarg, "table") != 0) {
				fprintf(stderr,
					"slabsim: --format expects table or json, got '%s'\n",
					optarg);
				return cli_bad_usage("validate");
			}
			break;
		case OPT_PROGRESS:
			progress = 1;
			break;
		case OPT_NO_PROGRESS:
			progress = 0;
			break;
		case OPT_SEED:
			if (run_parse_seed(optarg, &o.seed)) {
				fprintf(stderr,
					"slabsim: --seed expects a whole number from 0 to 2^64-1, "
					"got '%s'\n",
					optarg);
				return cli_bad_usage("validate");
			}
			break;
		case OPT_NO_ANCHOR:
			o.anchor = false;
			break;
		case OPT_AT_MARKER:
			o.at_marker = true;
			break;
		case OPT_EXCLUDE:
			if ((r = add_excludes(optarg, excl, nexcl)) == -2) {
				fprintf(stderr, "slabsim: out of memory\n");
				return err_exit_code(SLABSIM_ENOMEM);
			}
			if (r) {
				fprintf(stderr,
					"slabsim: --exclude expects cache names separated by "
					"commas, got '%s'\n",
					optarg);
				return cli_bad_usage("validate");
			}
			break;
		default:
			return cli_bad_usage("validate");
		}
	}
	if (!(o.dir = cli_one_arg(argc, argv, optind, "validate", "CAPTURE_DIR argument", "")))
		return cli_bad_usage("validate");
	o.progress = progress < 0 ? isatty(STDERR_FILENO) : progress;
	o.on_progress = progress_stderr;
	if (output && (st_out = cli_output(output)))
		return st_out;

	struct err e;
	struct capture *cap = NULL;
	err_clear(&e);
	if (capture_open(o.dir, &cap, &e))
		return cli_fail(&e);
	check_excludes(cap, *excl, nexcl);
	o.exclude = (const char *const *)*excl;
	o.nexclude = *nexcl;
	int status = 0;
	const struct val_report *rep = NULL;
	int rc = val_capture_model(cap, &o.model, o.notes, &e);
	if (!rc)
		rc = val_run(&o, cap, &rep, &e);
	/* the comparison is printed also when recording it failed afterwards */
	if (rep)
		val_report_print(stdout, rep, json);
	val_report_free(rep);
	if (rc) {
		status = cli_fail(&e);
		if (o.db)
			fprintf(stderr, "slabsim: the validation was not recorded in %s\n", o.db);
	} else if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "slabsim: error writing output\n");
		status = SLABSIM_EXIT_IO;
	}
	capture_close(cap);
	return status;
}

int cmd_validate(int argc, char **argv)
{
	char **excl = NULL;
	uint32_t nexcl = 0;
	int status = validate_main(argc, argv, &excl, &nexcl);
	free_names(excl, nexcl);
	return status;
}
