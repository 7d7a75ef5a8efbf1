/* progress.c - the progress bar on stderr; see progress.h. */
#include "progress.h"

#include <inttypes.h>
#include <stdio.h>

void progress_stderr(void *ctx, const struct sim_progress *p)
{
	static const char hashes[] = "##############################";
	const int w = 30;
	FILE *f = stderr;
	(void)ctx;
	if (p->threads) {
		/* a parallel name pass: bytes only; ranges read a little past
		 * their end to finish their last line */
		double frac =
			p->total && p->done < p->total ? (double)p->done / (double)p->total : 1.0;
		int fill = (int)(frac * w);
		fprintf(f, "\r%-8s [%.*s%*s] %5.1f%%  %u threads ", p->what, fill, hashes, w - fill,
			"", frac * 100, p->threads);
	} else if (p->total) {
		double rate = p->elapsed > 0 ? (double)p->events / p->elapsed : 0;
		double frac = (double)p->done / (double)p->total;
		int fill = (int)(frac * w);
		double eta = frac > 0 ? p->elapsed / frac - p->elapsed : 0;
		fprintf(f, "\r%-8s [%.*s%*s] %5.1f%%  %" PRIu64 " events  %.0f ev/s  ETA %.0fs ",
			p->what, fill, hashes, w - fill, "", frac * 100, p->events, rate,
			p->final ? 0.0 : eta);
	} else {
		double rate = p->elapsed > 0 ? (double)p->events / p->elapsed : 0;
		fprintf(f, "\r%-8s %" PRIu64 " events  %.0f ev/s ", p->what, p->events, rate);
	}
	if (p->final)
		fputc('\n', f);
	fflush(f);
}
