/* bench_trace.c - lines per second through trace_open()/trace_next().
 *
 * Usage: bench_trace <trace> [repeat]. Reads the file repeat times (default 1)
 * and prints lines, events and lines/s on one core; exits non-zero if the
 * reader fails. Registered with `meson benchmark`, not `meson test`.
 */
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
	uint64_t lines = 0, events = 0, bytes = 0;
	long repeat = argc > 2 ? strtol(argv[2], NULL, 10) : 1;
	double t0, dt;

	if (argc < 2 || repeat < 1) {
		(void)fprintf(stderr, "usage: %s <trace> [repeat]\n", argv[0]);
		return 2;
	}
	t0 = now_s();
	for (long i = 0; i < repeat; i++) {
		struct trace_reader *r;
		struct trace_event ev;
		struct err e;
		uint64_t done, total;
		int rc = trace_open(argv[1], NULL, &r, &e);

		if (rc) {
			(void)fprintf(stderr, "%s\n", e.msg);
			return 1;
		}
		while ((rc = trace_next(r, &ev, &e)) == 1)
			events++;
		if (rc < 0) {
			(void)fprintf(stderr, "%s\n", e.msg);
			trace_close(r);
			return 1;
		}
		lines += trace_stats(r)->lines;
		trace_progress(r, &done, &total);
		bytes += done;
		trace_close(r);
	}
	dt = now_s() - t0;
	printf("%" PRIu64 " lines, %" PRIu64 " events, %.1f MB in %.3f s: %.2f M lines/s, "
	       "%.0f MB/s\n",
	       lines, events, (double)bytes / 1e6, dt, (double)lines / dt / 1e6,
	       (double)bytes / dt / 1e6);
	return 0;
}
