/* bench_prefetch.c - events per second through the prefetch (prefetch.h):
 * parse only, the consumer takes each event and drops it.
 *
 * Usage: bench_prefetch <trace> <threads> [chunk_bytes]. threads 1 is the
 * single producer, more the chunked reader of a plain file (chunk_bytes: 0
 * or absent for the default). Prints lines, events and the wall time (the
 * figure of interest: the threads run in parallel); exits non-zero if the
 * reader fails. Built with the project, not a test.
 */
#include "prefetch.h"
#include "trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		(void)fprintf(stderr, "usage: %s <trace> <threads> [chunk_bytes]\n", argv[0]);
		return 2;
	}
	struct trace_prefetch_opts po = {
		.threads = (unsigned)strtoul(argv[2], NULL, 10),
		.chunk_bytes = argc > 3 ? strtoull(argv[3], NULL, 10) : 0,
	};
	struct trace_reader *r;
	struct trace_prefetch *p;
	struct trace_event ev;
	struct err e;
	uint64_t events = 0;
	double t0 = now_s();
	int rc;

	if (trace_open(argv[1], NULL, &r, &e) || trace_prefetch_open_opts(r, &po, &p, &e)) {
		(void)fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	while ((rc = trace_prefetch_next(p, &ev, &e)) == 1)
		events++;
	if (rc < 0) {
		(void)fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	double dt = now_s() - t0;
	uint64_t lines = trace_prefetch_stats(p)->lines;
	printf("%u thread(s): %" PRIu64 " lines, %" PRIu64 " events in %.3f s wall: %.2f M "
	       "events/s\n",
	       trace_prefetch_threads(p), lines, events, dt, (double)events / dt / 1e6);
	trace_prefetch_close(p);
	trace_close(r);
	return 0;
}
