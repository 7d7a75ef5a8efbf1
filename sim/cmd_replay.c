/* cmd_replay.c - `slabsim replay TRACE`. */
#include "cli.h"
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
#include <sys/stat.h>
#include <unistd.h>

enum {
	OPT_DB = CLI_OPT_CMD,
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

void usage_replay(FILE *f)
{
	fprintf(f,
		"Usage: slabsim replay TRACE [OPTIONS]\n"
		"\n"
		"Replay the kmem: events of TRACE (ftrace text from tracefs, trace-cmd report or\n"
		"perf script; .gz/.xz/.zst are decompressed; '-' reads stdin) through an\n"
		"allocator model, record the run in SQLite and print a summary.\n"
		"\n");
	cli_usage_model_opts(f);
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
		cli_exit_codes_help);
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_MODEL_LONGOPTS,
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
	struct cli_model m;
	const char *db = "slabsim.db", *slabinfo = NULL, *sample_spec = "1000ev";
	bool json = false, strict = false, name_pass = true, check = false, quiet = false;
	bool sample_caches = true;
	int progress = -1;
	int c, r;
	struct sim_opts so = {0};

	cli_model_defaults(&m);
	so.sample_every_events = 1000;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		if ((r = cli_model_opt(&m, c, optarg)) < 0)
			return cli_bad_usage("replay");
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
				return cli_bad_usage("replay");
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
				return cli_bad_usage("replay");
			}
			break;
		case OPT_SLABINFO:
			slabinfo = optarg;
			break;
		case OPT_SAMPLE_EVERY:
			if (cli_parse_sample_every(optarg, &so.sample_every_ns,
						   &so.sample_every_events)) {
				fprintf(stderr,
					"slabsim: --sample-every expects N, Nev, Nns, Nus, Nms or "
					"Ns with N > 0, got '%s'\n",
					optarg);
				return cli_bad_usage("replay");
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
			return cli_bad_usage("replay");
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, optind >= argc ? "slabsim: replay needs a TRACE argument\n"
					       : "slabsim: replay takes one TRACE argument\n");
		return cli_bad_usage("replay");
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
	double t0 = cli_now();
	err_clear(&e);

	FILE *slabinfo_f = NULL;
	struct stat st_in, st_out;
	if (slabinfo && stat(path, &st_in) == 0 && stat(slabinfo, &st_out) == 0 &&
	    st_in.st_dev == st_out.st_dev && st_in.st_ino == st_out.st_ino) {
		/* fopen "w" would truncate the trace before it is read */
		fprintf(stderr, "slabsim: --final-slabinfo %s is the trace itself\n", slabinfo);
		return cli_bad_usage("replay");
	}
	if (slabinfo && !(slabinfo_f = fopen(slabinfo, "w"))) {
		/* refuse before replaying, not after the run is recorded */
		fprintf(stderr, "slabsim: %s: %s\n", slabinfo, strerror(errno));
		return SLABSIM_EXIT_IO;
	}
	if ((rc = sim_create(&so, &s, &e))) {
		if (slabinfo_f)
			fclose(slabinfo_f);
		return cli_fail(&e);
	}
	if (name_pass && strcmp(path, "-") != 0) {
		struct trace_opts lax = {.strict = false};
		if ((rc = trace_open(path, &lax, &tr, &e)) || (rc = sim_learn_names(s, tr, &e))) {
			status = cli_fail(&e);
			goto out;
		}
		trace_close(tr);
		tr = NULL;
	}
	if ((rc = trace_open(path, &to, &tr, &e))) {
		status = cli_fail(&e);
		goto out;
	}
	if (db) {
		char cfg_json[640], model_json[512], dbg[8];
		const char *kernel = cli_kernel_name(&m);
		const char *align = policy_align_name(m.cfg.align);
		policy_slub_debug_str(m.cfg.slub_debug, dbg);
		(void)cli_model_json(&m, model_json, sizeof(model_json));
		(void)snprintf(cfg_json, sizeof(cfg_json), "{%s,\"sample_every\":\"%s\"}",
			       model_json, sample_spec);
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
			status = cli_fail(&e);
			goto out;
		}
	}
	if ((rc = sim_replay(s, tr, rec, &e))) {
		status = cli_fail(&e);
		if (rec)
			fprintf(stderr, "slabsim: the run was not recorded in %s\n", db);
		goto out; /* rec_close rolls the open run back */
	}
	if (rec && (rc = sim_record(s, rec, cli_now() - t0, &e))) {
		status = cli_fail(&e);
		goto out;
	}
	if (!quiet)
		sim_print_summary(s, stdout, json, path, trace_stats(tr));
	if (slabinfo_f) {
		/* On a full disk the write fails in a flush: keep that errno,
		 * and remove the truncated file rather than leave it looking
		 * complete (only a regular file: never a device or a FIFO). */
		struct stat st;
		bool regular = fstat(fileno(slabinfo_f), &st) == 0 && S_ISREG(st.st_mode);
		errno = 0;
		int bad = sim_write_slabinfo(s, slabinfo_f) || fflush(slabinfo_f);
		int why = errno;
		if (fclose(slabinfo_f) && !bad) {
			bad = 1;
			why = errno;
		}
		slabinfo_f = NULL;
		if (bad) {
			if (regular)
				(void)unlink(slabinfo);
			fprintf(stderr, "slabsim: %s: cannot write the slabinfo file: %s%s\n",
				slabinfo, why ? strerror(why) : "write error",
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
