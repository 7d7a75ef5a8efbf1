/* replay_workload.c - `slabsim replay --workload SPEC [--repeat N]`: the
 * generator feeds the engine directly (no trace file); with --repeat, seeds
 * S..S+N-1 run as ordinary recorded runs and the headline figures are
 * summarised (mean, standard deviation, 95% t confidence interval). */
#include "cli.h"
#include "err.h"
#include "policy.h"
#include "query.h"
#include "rec.h"
#include "sim.h"
#include "summary.h"
#include "workload.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	FIG_END_PAGES,
	FIG_PEAK_PAGES,
	FIG_LIVE,
	FIG_ROUND,
	FIG_LAYOUT,
	FIG_FREE,
	FIG_TAIL,
	FIG_VIOL,
	NR_FIG
};
static const char *const fig_names[NR_FIG] = {
	"final_slab_pages", "peak_slab_pages",	"final_live_objs", "waste_rounding",
	"waste_layout",	    "waste_free_slots", "waste_tail",	   "align_violations",
};

static void figures(const struct sim_totals *t, double *f)
{
	f[FIG_END_PAGES] = (double)t->slab_pages;
	f[FIG_PEAK_PAGES] = (double)t->peak_slab_pages;
	f[FIG_LIVE] = (double)t->live_objs;
	f[FIG_ROUND] = (double)t->waste_rounding;
	f[FIG_LAYOUT] = (double)t->waste_layout;
	f[FIG_FREE] = (double)t->waste_free_slots;
	f[FIG_TAIL] = (double)t->waste_tail;
	f[FIG_VIOL] = (double)t->align_violations;
}

/* One seed through the run layer, recorded in rec when not NULL; the
 * summary printed when asked, the end state into slabinfo_f. */
static int run_one(const struct cli_replay_ctl *c, struct run_workload *wl, struct rec *rec,
		   uint64_t seed, bool summary, FILE *slabinfo_f, struct sim_totals *tot,
		   int64_t *rid, struct err *e)
{
	struct run_opts ro = {
		.command = "replay",
		.model = *c->m,
		.so = c->so,
		.sample_spec = c->sample_spec,
		.rec = rec,
	};
	struct run_input in = {.kind = RUN_WORKLOAD, .wl = wl, .seed = seed};
	struct run *r = NULL;
	int rc = run_exec(&ro, &in, &r, e);
	if (rc)
		return rc;
	struct sim *s = run_sim(r);
	*rid = run_id(r);
	sim_totals(s, tot);
	if (summary)
		summary_print(s, stdout, c->json, workload_path(wl->w), NULL);
	if (slabinfo_f && summary_write_slabinfo(s, slabinfo_f))
		rc = err_set(e, SLABSIM_EIO, "%s: cannot write the slabinfo file", c->slabinfo);
	run_free(r);
	return rc;
}

int cli_replay_workload(const struct cli_replay_ctl *c, const char *spec, const char *seed_opt,
			const char *duration_opt, uint32_t repeat)
{
	struct err e;
	struct run_workload cw;
	struct rec *rec = NULL;
	FILE *slabinfo_f = NULL;
	int rc, status = 0;
	double *vals = NULL;
	int64_t *run_ids = NULL;
	err_clear(&e);
	if ((rc = run_workload_open(&cw, spec, seed_opt, duration_opt, &e))) {
		fprintf(stderr, "slabsim: %s\n", e.msg);
		status = rc == SLABSIM_EUSAGE ? cli_bad_usage("replay") : err_exit_code(rc);
		goto out;
	}
	vals = calloc((size_t)repeat * NR_FIG, sizeof(*vals));
	run_ids = calloc(repeat, sizeof(*run_ids));
	if (!vals || !run_ids) {
		err_set(&e, SLABSIM_ENOMEM, "out of memory");
		status = cli_fail(&e);
		goto out;
	}
	if (c->slabinfo && !(slabinfo_f = fopen(c->slabinfo, "w"))) {
		fprintf(stderr, "slabsim: %s: cannot open for writing\n", c->slabinfo);
		status = SLABSIM_EXIT_IO;
		goto out;
	}
	if (c->db && (rc = rec_open(c->db, &rec, &e))) {
		status = cli_fail(&e);
		goto out;
	}
	for (uint32_t k = 0; k < repeat; k++) {
		struct sim_totals t;
		uint64_t seed = cw.seed + k;
		bool last = k + 1 == repeat;
		if ((rc = run_one(c, &cw, rec, seed, !c->quiet && repeat == 1,
				  last ? slabinfo_f : NULL, &t, &run_ids[k], &e))) {
			status = cli_fail(&e);
			if (rec)
				fprintf(stderr,
					"slabsim: the run of seed %" PRIu64
					" was not recorded; earlier seeds are\n",
					seed);
			goto out;
		}
		figures(&t, &vals[(size_t)k * NR_FIG]);
		if (repeat > 1 && !c->quiet && !c->json) {
			printf("seed %" PRIu64 ":", seed);
			for (int f = 0; f < NR_FIG; f++)
				printf(" %s %.0f", fig_names[f], vals[(size_t)k * NR_FIG + f]);
			printf("\n");
		}
	}
	if (repeat > 1) {
		struct rec_repeat_row rows[NR_FIG];
		if (!c->quiet && !c->json)
			printf("\nworkload %s, %u seeds %" PRIu64 "..%" PRIu64
			       ": mean, sd, 95%% confidence interval of the mean\n",
			       workload_path(cw.w), repeat, cw.seed, cw.seed + repeat - 1);
		if (!c->quiet && c->json)
			printf("{\"workload\":\"%s\",\"seed_first\":%" PRIu64
			       ",\"n\":%u,\"figures\":{",
			       workload_path(cw.w), cw.seed, repeat);
		for (int f = 0; f < NR_FIG; f++) {
			double mean = gsl_stats_mean(vals + f, NR_FIG, repeat);
			double sd = gsl_stats_sd_m(vals + f, NR_FIG, repeat, mean);
			double half = query_ci95_half(sd, repeat); /* = tq * sd / sqrt(n) */
			rows[f] = (struct rec_repeat_row){fig_names[f], mean, sd, mean - half,
							  mean + half};
			if (c->quiet)
				continue;
			if (c->json)
				printf("%s\"%s\":{\"mean\":%.6g,\"sd\":%.6g,\"ci95\":[%.6g,%.6g]}",
				       f ? "," : "", fig_names[f], mean, sd, mean - half,
				       mean + half);
			else
				printf("  %-18s %14.2f  sd %12.2f  [%.2f, %.2f]\n", fig_names[f],
				       mean, sd, mean - half, mean + half);
		}
		if (!c->quiet && c->json)
			printf("}}\n");
		if (rec) {
			char cfg_json[2048], extra[32];
			(void)snprintf(extra, sizeof(extra), "\"repeat\":%u", repeat);
			(void)run_config_json(c->m, c->sample_spec, &cw, cw.seed, extra, cfg_json,
					      sizeof(cfg_json));
			struct rec_repeat_info ri = {
				.spec_path = workload_path(cw.w),
				.spec_hash = workload_hash(cw.w),
				.config_json = cfg_json,
				.seed_first = cw.seed,
				.n = repeat,
				.run_ids = run_ids,
				.rows = rows,
				.nrows = NR_FIG,
			};
			if ((rc = rec_repetition(rec, &ri, NULL, &e))) {
				status = cli_fail(&e);
				goto out;
			}
		}
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "slabsim: error writing output\n");
		status = SLABSIM_EXIT_IO;
	}
out:
	if (slabinfo_f && fclose(slabinfo_f) && !status) {
		fprintf(stderr, "slabsim: %s: write error\n", c->slabinfo);
		status = SLABSIM_EXIT_IO;
	}
	rec_close(rec);
	free(vals);
	free(run_ids);
	run_workload_close(&cw);
	return status;
}
