/* fuzz_sweep.c - libFuzzer harness for the sweep-spec parser and the
 * expansion of its axes (analysis/sweep.h).
 *
 * The input is a spec named "fuzz.sweep". A failed parse must be bad input
 * (SLABSIM_EINPUT) naming "fuzz.sweep:LINE: " (LINE >= 1). A parsed spec is expanded (at most
 * SWEEP_MAX_RUNS runs, the parser's own bound) and the product must be sound: runs numbered 0..n-1,
 * each naming one of the spec's traces (in order, traces outermost) and a
 * known allocator, a configuration within the documented ranges, and no two
 * runs of the same trace modelling the same thing (an axis the allocator
 * does not read must not multiply its runs). The --shard parts of the
 * product must partition it.
 */
#include "policy.h"
#include "sweep.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME "fuzz.sweep"

static void fail(const char *what, size_t i)
{
	fprintf(stderr, "fuzz_sweep: run %zu: %s\n", i, what);
	abort();
}

static void check_error(int rc, const char *msg)
{
	size_t n = strlen(NAME);
	const char *p = msg + n + 1;
	if (rc == SLABSIM_EINPUT && !strncmp(msg, NAME, n) && msg[n] == ':' && *p >= '1' &&
	    *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
		/* the wording ("expected ...") is checked by tests/bad, not here */
		if (p[0] == ':' && p[1] == ' ')
			return;
	}
	fprintf(stderr, "fuzz_sweep: parse failed with rc %d and '%s'\n", rc, msg);
	abort();
}

/* What a run models: the fields of its configuration its allocator reads
 * (all of them for SLUB and SLAB; sweep.c documents which). */
struct key {
	size_t trace;
	bool workload, seed_set, align_auto;
	uint64_t seed;
	const char *allocator;
	/* kernel_auto, nr_cpus_auto: `auto`, resolved per input later, is
	 * another value than the default cfg holds meanwhile */
	uint32_t kernel, kernel_auto, align, nr_cpus, nr_cpus_auto, slub_debug, slub_min_order,
		slub_max_order, slub_min_objects, cpu_partial, slab_debug, slab_max_order, nomerge,
		slub_tiny, random_kmalloc, slab_buckets, sheaf_capacity, barn_limit;
};

static int key_cmp(const void *pa, const void *pb)
{
	const struct key *a = pa, *b = pb;
	int c = (a->workload > b->workload) - (a->workload < b->workload);
	if (!c)
		c = (a->trace > b->trace) - (a->trace < b->trace);
	if (!c)
		c = (a->seed_set > b->seed_set) - (a->seed_set < b->seed_set);
	if (!c)
		c = (a->align_auto > b->align_auto) - (a->align_auto < b->align_auto);
	if (!c)
		c = (a->seed > b->seed) - (a->seed < b->seed);
	if (c)
		return c;
	if ((c = strcmp(a->allocator, b->allocator)))
		return c;
	/* the uint32_t fields, no padding between them */
	return memcmp(&a->kernel, &b->kernel,
		      offsetof(struct key, barn_limit) + sizeof(uint32_t) -
			      offsetof(struct key, kernel));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sweep_spec *s = NULL;
	struct sweep_run *runs = NULL;
	size_t n = 0;
	struct err e;

	err_clear(&e);
	int rc = sweep_spec_parse((const char *)data, size, NAME, &s, &e);
	if (rc) {
		check_error(rc, e.msg);
		if (s)
			fail("an error that returns a spec", 0);
		return 0;
	}
	size_t nt = sweep_spec_ntraces(s), nw = sweep_spec_nworkloads(s);
	if (!nt && !nw)
		fail("a parsed spec without a trace or a workload", 0);
	for (size_t t = 0; t < nt; t++)
		if (!sweep_spec_trace(s, t) || !*sweep_spec_trace(s, t))
			fail("an empty trace path", t);
	for (size_t w = 0; w < nw; w++)
		if (!sweep_spec_workload(s, w) || !*sweep_spec_workload(s, w))
			fail("an empty workload path", w);
	if ((rc = sweep_expand(s, &runs, &n, &e)) != 0) {
		fprintf(stderr, "fuzz_sweep: expand: rc %d '%s'\n", rc, e.msg);
		abort();
	}
	if (n < nt + nw || n > SWEEP_MAX_RUNS)
		fail("product size outside [traces + workloads, SWEEP_MAX_RUNS]", n);
	struct key *k = malloc(n * sizeof(*k));
	if (!k)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct sweep_run *r = &runs[i];
		const struct policy_cfg *c = &r->cfg;
		if (r->index != i)
			fail("index out of order", i);
		/* trace runs first, then the workloads', each in spec order */
		const struct sweep_run *q = i ? &runs[i - 1] : NULL;
		if (r->workload
			    ? (r->trace_idx >= nw ||
			       r->trace != sweep_spec_workload(s, r->trace_idx))
			    : (r->trace_idx >= nt || r->trace != sweep_spec_trace(s, r->trace_idx)))
			fail("trace or workload not one of the spec's", i);
		if (q && (q->workload > r->workload ||
			  (q->workload == r->workload && r->trace_idx < q->trace_idx)))
			fail("traces and workloads out of order", i);
		if (!r->workload && r->seed_set)
			fail("a trace run with a seed", i);
		if (!r->allocator || !policy_find(r->allocator))
			fail("unknown allocator", i);
		if (!r->sample_every || !*r->sample_every)
			fail("no sample_every", i);
		if (c->kernel < POLICY_KERNEL_5_4 || c->kernel >= POLICY_KERNEL_NR ||
		    c->nr_cpus < 1 || c->nr_cpus > 8192 || c->slub_min_order >= POLICY_MAX_ORDER ||
		    c->slub_max_order >= POLICY_MAX_ORDER ||
		    c->slab_max_order >= POLICY_MAX_ORDER || c->slub_min_objects > 32767 ||
		    (c->slub_debug & ~POLICY_F_DEBUG_MASK))
			fail("a configuration outside the documented ranges", i);
		if ((r->kernel_auto && (r->given & 1u << SWEEP_AX_KERNEL)) ||
		    (r->nr_cpus_auto && (r->given & 1u << SWEEP_AX_NR_CPUS)))
			fail("an auto axis also given a value", i);
		if (r->align_auto && ((r->given & 1u << SWEEP_AX_ALIGN) || !r->kernel_auto))
			fail("align auto left unresolved under a given kernel, or also given", i);
		if (r->given >> SWEEP_AX_NR)
			fail("a given axis that does not exist", i);
		bool slub = !strcmp(r->allocator, "slub"), slab = !strcmp(r->allocator, "slab");
		struct policy_cfg d;
		policy_cfg_default(&d);
		/* an axis the allocator does not read stays at its default */
		if (!slub &&
		    (c->slub_debug != d.slub_debug || c->slub_min_order != d.slub_min_order ||
		     c->slub_max_order != d.slub_max_order ||
		     c->slub_min_objects != d.slub_min_objects || c->cpu_partial != d.cpu_partial))
			fail("a SLUB axis set on another allocator", i);
		if (!slab &&
		    (c->slab_debug != d.slab_debug || c->slab_max_order != d.slab_max_order))
			fail("a SLAB axis set on another allocator", i);
		/* the switches: on/off, random_kmalloc as its 15 copies; the
		 * configuration switches SLUB's alone, slab_nomerge SLUB's and
		 * SLAB's (find_mergeable; SLOB never merges) */
		if (c->random_kmalloc != 0 && c->random_kmalloc != 15)
			fail("random_kmalloc neither off nor 15 copies", i);
		if (!slub &&
		    (c->slub_tiny != d.slub_tiny || c->random_kmalloc != d.random_kmalloc ||
		     c->slab_buckets != d.slab_buckets))
			fail("a SLUB configuration switch set on another allocator", i);
		if (!slub && !slab && c->nomerge != d.nomerge)
			fail("slab_nomerge set on an allocator that does not merge", i);
		/* the sheaves' what-ifs: SLUB's, in range, and never on a run
		 * whose model has no sheaves (it would be the `kernel` run) */
		if (c->sheaf_capacity > POLICY_SHEAF_CAPACITY_MAX ||
		    c->barn_limit > POLICY_BARN_LIMIT_MAX)
			fail("sheaf_capacity or barn_limit outside the documented ranges", i);
		if (!slub && (c->sheaf_capacity || c->barn_limit))
			fail("a sheaves what-if set on another allocator", i);
		if ((c->sheaf_capacity || c->barn_limit) &&
		    (c->slub_tiny || c->slub_debug ||
		     (!r->kernel_auto && c->kernel < POLICY_KERNEL_6_18)))
			fail("a sheaves what-if on a run without sheaves", i);
		k[i] = (struct key){.trace = r->trace_idx,
				    .workload = r->workload,
				    .seed_set = r->seed_set,
				    .align_auto = r->align_auto,
				    .seed = r->seed,
				    .allocator = policy_find(r->allocator)->name,
				    .kernel = (uint32_t)c->kernel,
				    .kernel_auto = r->kernel_auto,
				    .nr_cpus_auto = r->nr_cpus_auto,
				    .align = (uint32_t)c->align,
				    .nr_cpus = c->nr_cpus,
				    .slub_debug = c->slub_debug,
				    .slub_min_order = c->slub_min_order,
				    .slub_max_order = c->slub_max_order,
				    .slub_min_objects = c->slub_min_objects,
				    .cpu_partial = c->cpu_partial,
				    .slab_debug = c->slab_debug,
				    .slab_max_order = c->slab_max_order,
				    .nomerge = c->nomerge,
				    .slub_tiny = c->slub_tiny,
				    .random_kmalloc = c->random_kmalloc,
				    .slab_buckets = c->slab_buckets,
				    .sheaf_capacity = c->sheaf_capacity,
				    .barn_limit = c->barn_limit};
	}
	qsort(k, n, sizeof(*k), key_cmp);
	for (size_t i = 1; i < n; i++)
		if (!key_cmp(&k[i - 1], &k[i]))
			fail("two runs model the same thing", i);
	free(k);

	/* shards: "I/N" parsed back, and every run in exactly one part */
	uint32_t parts = (uint32_t)(n % 7) + 1, si, sn;
	size_t in = 0;
	for (uint32_t p = 1; p <= parts; p++) {
		char arg[32];
		(void)snprintf(arg, sizeof(arg), "%" PRIu32 "/%" PRIu32, p, parts);
		if (sweep_parse_shard(arg, &si, &sn, &e) || si != p || sn != parts)
			fail("a valid --shard refused", p);
		for (size_t i = 0; i < n; i++)
			in += sweep_in_shard(i, si, sn);
	}
	if (in != n)
		fail("shards do not partition the runs", in);
	free(runs);
	sweep_spec_free(s);
	return 0;
}
