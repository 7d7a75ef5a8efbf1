/* replay_parsed.c - time the replay engine on events that are already parsed.
 *
 * slabsim has no binary event format yet, so this is the closest stand-in
 * for "replay from the internal event form": it does what `slabsim replay
 * TRACE --kernel 6.1 --nr-cpus 2 --no-db` does (name pass, then one sim_event
 * per event; SLUB; sampling every 1000 events, not recorded), but reads the
 * trace in chunks of CHUNK events into memory first (strings interned, so the
 * events outlive the reader's line buffer) and times only the sim_event
 * calls over each chunk. The name pass and the parsing are timed apart.
 *
 * Usage: replay_parsed TRACE [--no-name-pass]
 * Prints one line of key=value pairs (seconds, counts). Built and run by
 * tests/bench/replay-bench.sh against a build's static libraries; not part of
 * the meson build.
 */
#include "policy.h"
#include "sim.h"
#include "strtab.h"
#include "trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK (1u << 18)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *keep(struct strtab *t, const char *s)
{
	uint32_t id;

	if (!s)
		return NULL;
	if (strtab_intern(t, s, &id)) {
		(void)fprintf(stderr, "replay_parsed: out of memory\n");
		exit(3);
	}
	return strtab_str(t, id);
}

static int fail(const struct err *e)
{
	(void)fprintf(stderr, "replay_parsed: %s\n", e->msg);
	return 3;
}

int main(int argc, char **argv)
{
	bool name_pass = true;
	struct sim_opts so = {0};
	struct sim *s = NULL;
	struct trace_reader *r = NULL;
	struct trace_event *buf;
	struct strtab strs;
	struct sim_totals tot;
	struct err e;
	double t, t_names = 0, t_parse = 0, t_model = 0;
	uint64_t n = 0;
	int rc;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--no-name-pass") != 0)) {
		(void)fprintf(stderr, "usage: %s TRACE [--no-name-pass]\n", argv[0]);
		return 1;
	}
	if (argc == 3)
		name_pass = false;
	err_clear(&e);
	so.ops = policy_find("slub");
	policy_cfg_default(&so.cfg);
	so.cfg.kernel = POLICY_KERNEL_6_1;
	so.cfg.nr_cpus = 2;
	so.sample_every_events = 1000; /* the CLI default, 1000ev */
	so.sample_caches = true;
	if (!so.ops || sim_create(&so, &s, &e))
		return fail(&e);
	strtab_init(&strs);
	buf = malloc(CHUNK * sizeof(*buf));
	if (!buf) {
		(void)fprintf(stderr, "replay_parsed: out of memory\n");
		return 3;
	}

	if (name_pass) {
		struct trace_opts lax = {.strict = false};

		t = now_s();
		if (trace_open(argv[1], &lax, &r, &e) || sim_learn_names(s, r, &e))
			return fail(&e);
		trace_close(r);
		t_names = now_s() - t;
	}
	if (trace_open(argv[1], NULL, &r, &e))
		return fail(&e);
	for (;;) {
		uint32_t k = 0;

		t = now_s();
		while (k < CHUNK && (rc = trace_next(r, &buf[k], &e)) == 1) {
			buf[k].call_site = keep(&strs, buf[k].call_site);
			buf[k].name = keep(&strs, buf[k].name);
			buf[k].text = keep(&strs, buf[k].text);
			k++;
		}
		t_parse += now_s() - t;
		if (k < CHUNK && rc < 0)
			return fail(&e);
		t = now_s();
		for (uint32_t i = 0; i < k; i++)
			if (sim_event(s, &buf[i], &e))
				return fail(&e);
		t_model += now_s() - t;
		n += k;
		if (k < CHUNK)
			break;
	}
	trace_close(r);
	sim_totals(s, &tot);
	printf("events=%" PRIu64
	       " name_pass_s=%.6f parse_copy_s=%.6f model_s=%.6f live_objs=%" PRIu64
	       " slab_pages=%" PRIu64 "\n",
	       n, t_names, t_parse, t_model, tot.live_objs, tot.slab_pages);
	free(buf);
	strtab_fini(&strs);
	sim_destroy(s);
	return 0;
}
