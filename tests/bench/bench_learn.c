/* bench_learn.c - time the name pass alone, serial or on threads.
 *
 * Usage: bench_learn TRACE N
 * N = 1 runs the serial pass as `slabsim replay` does (sim_learn_names_source
 * reading through the prefetch thread); N > 1 runs learn_names_file in N
 * byte ranges. Prints one line: wall and CPU seconds (the process's, all
 * threads), events... and the learned names' dump size (equal for every N).
 */
#include "learn.h"
#include "policy.h"
#include "prefetch.h"
#include "sim.h"
#include "summary.h"
#include "strtab.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sim_opts so = {0};
	struct sim *s;
	struct err e;
	int rc;
	if (argc != 3) {
		fprintf(stderr, "usage: bench_learn TRACE N\n");
		return 1;
	}
	unsigned n = (unsigned)atoi(argv[2]);
	so.ops = policy_find("slub");
	policy_cfg_default(&so.cfg);
	so.cfg.kernel = POLICY_KERNEL_6_1;
	so.cfg.nr_cpus = 2;
	if (sim_create(&so, &s, &e))
		return fprintf(stderr, "bench_learn: %s\n", e.msg), 3;
	struct trace_opts lax = {.skip_fields =
					 (1u << TRACE_EV_KMALLOC) | (1u << TRACE_EV_KMALLOC_NODE)};
	double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	if (n > 1) {
		bool done;
		rc = learn_names_file(s, argv[1], &lax, n, false, &done, &e);
		if (!rc && !done)
			return fprintf(stderr, "bench_learn: not a plain file\n"), 1;
	} else {
		struct trace_reader *r = NULL;
		struct trace_prefetch *pf = NULL;
		struct trace_source src;
		if (!(rc = trace_open(argv[1], &lax, &r, &e)) &&
		    !(rc = trace_prefetch_open(r, &pf, &e))) {
			trace_prefetch_as_source(&src, pf, argv[1]);
			rc = sim_learn_names_source(s, &src, &e);
		}
		trace_prefetch_close(pf);
		trace_close(r);
	}
	double w1 = clock_s(CLOCK_MONOTONIC), c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	if (rc)
		return fprintf(stderr, "bench_learn: %s\n", e.msg), 3;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	summary_learned_dump(s, f);
	fclose(f);
	printf("threads=%u wall_s=%.3f cpu_s=%.3f dump_bytes=%zu dump_hash=%016" PRIx64 "\n", n,
	       w1 - w0, c1 - c0, len, strtab_hash(buf, 0));
	free(buf);
	sim_destroy(s);
	return 0;
}
