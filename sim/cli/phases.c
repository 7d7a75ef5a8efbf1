/* phases.c - replay --phase-summary's printed table, over the phases the run
 * layer took at the trace's markers (validate.h, val_phases_*). */
#include "summary.h"
#include "validate.h"

#include <inttypes.h>
#include <stdlib.h>

struct phase_delta {
	uint32_t id;
	int64_t pages, waste, live;
};

/* Largest page change first, then waste, then cache id: a stable order. */
static int cmp_delta(const void *a, const void *b)
{
	const struct phase_delta *x = a, *y = b;
	int64_t ax = llabs(x->pages), ay = llabs(y->pages);
	if (ax != ay)
		return ax < ay ? 1 : -1;
	if (llabs(x->waste) != llabs(y->waste))
		return llabs(x->waste) < llabs(y->waste) ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int64_t diff(uint64_t b, uint64_t a)
{
	return (int64_t)(b - a);
}

/* The caches that changed between snapshots i - 1 (or the empty start) and
 * i, into d; their number. */
static uint32_t phase_deltas(const struct val_phases *p, uint32_t i, struct phase_delta *d)
{
	uint32_t nd = 0, n = val_phases_caches(p, i);
	for (uint32_t id = 0; id < n; id++) {
		struct val_phase_fig fa =
			i ? val_phases_cache(p, i - 1, id) : (struct val_phase_fig){0};
		struct val_phase_fig fb = val_phases_cache(p, i, id);
		struct phase_delta x = {id, diff(fb.pages, fa.pages), diff(fb.waste, fa.waste),
					diff(fb.live, fa.live)};
		if (x.pages || x.waste || x.live)
			d[nd++] = x;
	}
	return nd;
}

int phases_print(const struct val_phases *p, const struct sim *s, FILE *out, struct err *e)
{
	uint32_t n = sim_nr_caches(s), count = val_phases_count(p);
	struct phase_delta *d = calloc(n ? n : 1, sizeof(*d));
	if (!d)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	fprintf(out,
		"\nphases (%u markers): change of slab pages, waste bytes (pages - requested) "
		"and live objects\n",
		count - 1);
	for (uint32_t i = 0; i < count; i++) {
		struct val_phase_fig a = i ? val_phases_total(p, i - 1) : (struct val_phase_fig){0};
		struct val_phase_fig b = val_phases_total(p, i);
		fprintf(out,
			"phase %u: %s -> %s: pages %+" PRId64 " (%" PRIu64 " -> %" PRIu64
			"), waste %+" PRId64 " bytes, live objects %+" PRId64 "\n",
			i + 1, i ? val_phases_label(p, i - 1) : "start", val_phases_label(p, i),
			diff(b.pages, a.pages), a.pages, b.pages, diff(b.waste, a.waste),
			diff(b.live, a.live));
		uint32_t nd = phase_deltas(p, i, d);
		qsort(d, nd, sizeof(*d), cmp_delta);
		uint32_t shown = nd < 10 ? nd : 10;
		for (uint32_t j = 0; j < shown; j++) {
			struct sim_cache_state cs;
			sim_cache_state(s, d[j].id, &cs);
			fprintf(out,
				"  %-24s pages %+6" PRId64 "  waste %+10" PRId64 "  live %+8" PRId64
				"\n",
				cs.name, d[j].pages, d[j].waste, d[j].live);
		}
		if (nd > shown)
			fprintf(out, "  ... %u more caches changed\n", nd - shown);
	}
	free(d);
	return 0;
}
