/* replay_evarr.c - time a replay from slabsim's internal event form.
 *
 * Figure (2) of tests/bench/replay-bench.sh: the trace is parsed once into
 * the event array of traces/evarr.h (what `slabsim sweep` replays from; its
 * events carry interned call-site ids, so the engine skips string hashing),
 * then replayed as `slabsim replay TRACE --kernel 6.1 --nr-cpus 2 --no-db`
 * does: name pass, then the replay (SLUB, a sample every 1000 events, not
 * recorded). The load, the name pass and the replay are timed apart (the
 * replay in CPU time too).
 *
 * Usage: replay_evarr TRACE [--no-name-pass] [--repeat N]
 * Prints one line of key=value pairs (seconds, counts, bytes). --repeat N
 * replays the loaded array N times, each time with a new simulator, and
 * adds the fastest replay's CPU (model_cpu_min_s) and every one's
 * (model_cpu_all): on a shared machine, whose load adds time and never
 * takes any away, the least of several runs is the closest to the
 * replay's own cost, and one load serves them all.
 */
#include "evarr.h"
#include "policy.h"
#include "sim.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of the process: on a shared machine it moves less than the
 * wall time when other work takes the CPU. */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const struct err *e)
{
	(void)fprintf(stderr, "replay_evarr: %s\n", e->msg);
	return 3;
}

static void usage(const char *argv0)
{
	(void)fprintf(stderr, "usage: %s TRACE [--no-name-pass] [--repeat N]\n", argv0);
}

/* A simulator set up as `slabsim replay TRACE --kernel 6.1 --nr-cpus 2
 * --no-db` sets one up. */
static int make_sim(struct sim **s, struct err *e)
{
	struct sim_opts so = {0};
	so.ops = policy_find("slub");
	policy_cfg_default(&so.cfg);
	so.cfg.kernel = POLICY_KERNEL_6_1;
	so.cfg.nr_cpus = 2;
	so.sample_every_events = 1000; /* the CLI default, 1000ev */
	so.sample_caches = true;
	if (!so.ops)
		return err_set(e, SLABSIM_EUSAGE, "no slub policy");
	return sim_create(&so, s, e);
}

/* One replay of a over a new simulator (the name pass first unless
 * !name_pass): its times, and its totals in *tot. */
static int replay_once(const struct evarr *a, bool name_pass, double *t_names, double *t_model,
		       double *c_model, struct sim_totals *tot, struct err *e)
{
	struct sim *s = NULL;
	struct evarr_cursor cur;
	struct trace_source src;
	double t0, c0;
	int rc = make_sim(&s, e);
	if (rc)
		return rc;
	*t_names = 0;
	if (name_pass) {
		t0 = now_s();
		evarr_source(&src, &cur, (struct evarr *)a);
		if ((rc = sim_learn_names_source(s, &src, e)))
			goto out;
		*t_names = now_s() - t0;
	}
	t0 = now_s();
	c0 = cpu_s();
	evarr_source(&src, &cur, (struct evarr *)a);
	if ((rc = sim_replay_source(s, &src, NULL, e)))
		goto out;
	*t_model = now_s() - t0;
	*c_model = cpu_s() - c0;
	sim_totals(s, tot);
out:
	sim_destroy(s);
	return rc;
}

int main(int argc, char **argv)
{
	bool name_pass = true;
	long repeat = 0;
	struct evarr *a = NULL;
	struct sim_totals tot;
	struct err e;
	double t0, t_load, t_names = 0, t_model = 0, c_model = 0;

	if (argc < 2) {
		usage(argv[0]);
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		char *end = NULL;
		if (!strcmp(argv[i], "--no-name-pass")) {
			name_pass = false;
		} else if (!strcmp(argv[i], "--repeat") && i + 1 < argc &&
			   (repeat = strtol(argv[++i], &end, 10)) >= 1 && repeat <= 1000 && !*end) {
			continue;
		} else {
			usage(argv[0]);
			return 1;
		}
	}
	err_clear(&e);
	t0 = now_s();
	if (evarr_load(argv[1], &a, &e))
		return fail(&e);
	t_load = now_s() - t0;
	double c_min = 0;
	char all[1024] = "";
	size_t used = 0;
	for (long r = 0; r < (repeat ? repeat : 1); r++) {
		if (replay_once(a, name_pass, &t_names, &t_model, &c_model, &tot, &e))
			return fail(&e);
		if (!r || c_model < c_min)
			c_min = c_model;
		if (used < sizeof(all))
			used += (size_t)snprintf(all + used, sizeof(all) - used, "%s%.6f",
						 r ? "," : "", c_model);
	}
	printf("events=%" PRIu64
	       " load_s=%.6f name_pass_s=%.6f model_s=%.6f model_cpu_s=%.6f live_objs=%" PRIu64
	       " slab_pages=%" PRIu64 " evarr_bytes=%zu",
	       evarr_len(a), t_load, t_names, t_model, c_model, tot.live_objs, tot.slab_pages,
	       evarr_bytes(a));
	if (repeat)
		printf(" model_cpu_min_s=%.6f model_cpu_all=%s", c_min, all);
	printf("\n");
	evarr_free(a);
	return 0;
}
