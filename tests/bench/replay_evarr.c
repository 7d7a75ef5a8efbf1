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
 * Usage: replay_evarr TRACE [--no-name-pass]
 * Prints one line of key=value pairs (seconds, counts, bytes).
 */
#include "evarr.h"
#include "policy.h"
#include "sim.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
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

int main(int argc, char **argv)
{
	bool name_pass = true;
	struct sim_opts so = {0};
	struct sim *s = NULL;
	struct evarr *a = NULL;
	struct evarr_cursor cur;
	struct trace_source src;
	struct sim_totals tot;
	struct err e;
	double t0, c0, t_load, t_names = 0, t_model, c_model;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--no-name-pass") != 0)) {
		(void)fprintf(stderr, "usage: %s TRACE [--no-name-pass]\n", argv[0]);
		return 1;
	}
	name_pass = argc == 2;
	err_clear(&e);
	so.ops = policy_find("slub");
	policy_cfg_default(&so.cfg);
	so.cfg.kernel = POLICY_KERNEL_6_1;
	so.cfg.nr_cpus = 2;
	so.sample_every_events = 1000; /* the CLI default, 1000ev */
	so.sample_caches = true;
	if (!so.ops || sim_create(&so, &s, &e))
		return fail(&e);
	t0 = now_s();
	if (evarr_load(argv[1], &a, &e))
		return fail(&e);
	t_load = now_s() - t0;
	if (name_pass) {
		t0 = now_s();
		evarr_source(&src, &cur, a);
		if (sim_learn_names_source(s, &src, &e))
			return fail(&e);
		t_names = now_s() - t0;
	}
	t0 = now_s();
	c0 = cpu_s();
	evarr_source(&src, &cur, a);
	if (sim_replay_source(s, &src, NULL, &e))
		return fail(&e);
	t_model = now_s() - t0;
	c_model = cpu_s() - c0;
	sim_totals(s, &tot);
	printf("events=%" PRIu64
	       " load_s=%.6f name_pass_s=%.6f model_s=%.6f model_cpu_s=%.6f live_objs=%" PRIu64
	       " slab_pages=%" PRIu64 " evarr_bytes=%zu\n",
	       evarr_len(a), t_load, t_names, t_model, c_model, tot.live_objs, tot.slab_pages,
	       evarr_bytes(a));
	sim_destroy(s);
	evarr_free(a);
	return 0;
}
