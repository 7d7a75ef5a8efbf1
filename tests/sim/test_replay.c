/* test_replay.c - the replay engine on the bundled real trace and on
 * hand-made and GSL-generated event sequences.
 *
 * The expected counts of the real trace were derived with awk, independently
 * of slabsim (the command is in the comment above them).
 */
#include "check.h"
#include "policy.h"
#include "sim.h"
#include "trace.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

static struct sim *make_sim(const char *allocator, enum policy_kernel kernel, enum policy_align al,
			    uint32_t debug, bool check)
{
	struct sim_opts o = {0};
	struct sim *s;
	struct err e;
	o.ops = policy_find(allocator);
	policy_cfg_default(&o.cfg);
	o.cfg.kernel = kernel;
	o.cfg.align = al;
	o.cfg.slub_debug = debug;
	o.check = check;
	o.sample_every_events = 100;
	if (sim_create(&o, &s, &e)) {
		printf("Bail out! sim_create: %s\n", e.msg);
		exit(1);
	}
	return s;
}

/* The free part of the waste is what remains of the pages once live bytes,
 * rounding, layout and tail are taken out; for slab allocators it must equal
 * the free objects the policy counts times their size. */
static void check_identity(struct sim *s, const char *name)
{
	struct sim_totals t;
	sim_totals(s, &t);
	if (!check_report(t.waste_free_slots == t.free_slots_by_count, name, __FILE__, __LINE__))
		printf("#   free bytes by remainder %" PRIu64
		       ", by the policy's object counts %" PRIu64 "\n",
		       t.waste_free_slots, t.free_slots_by_count);
	uint64_t parts = t.live_req_bytes + t.waste_rounding + t.waste_layout + t.waste_free_slots +
			 t.waste_tail;
	if (!check_report(parts == t.slab_bytes, name, __FILE__, __LINE__))
		printf("#   slab+large bytes %" PRIu64 ", live %" PRIu64 " + rounding %" PRIu64
		       " + layout %" PRIu64 " + free %" PRIu64 " + tail %" PRIu64 " = %" PRIu64
		       "\n",
		       t.slab_bytes, t.live_req_bytes, t.waste_rounding, t.waste_layout,
		       t.waste_free_slots, t.waste_tail, parts);
}

static void test_sample_trace(const char *path)
{
	struct sim *s = make_sim("slub", POLICY_KERNEL_6_1, POLICY_ALIGN_NATURAL, 0, true);
	struct trace_reader *r;
	struct trace_opts to = {.strict = true};
	struct err e;
	int rc;
	CHECK("open sample (name pass)", trace_open(path, &to, &r, &e) == 0);
	CHECK("learn names", sim_learn_names(s, r, &e) == 0);
	trace_close(r);
	CHECK("open sample", trace_open(path, &to, &r, &e) == 0);
	rc = sim_replay(s, r, NULL, &e);
	CHECK("replay with --check after every event", rc == 0);
	if (rc)
		printf("#   %s\n", e.msg);
	struct sim_totals t;
	sim_totals(s, &t);
	/* awk '/^#/{next} {for(i=1;i<=NF;i++) if($i~/^(kmalloc|kmem_cache_alloc|kfree|
	 *   kmem_cache_free):$/) n[$i]++} END{for(k in n) print k, n[k]}' */
	CHECK_EQ_U64("kmalloc events", t.events[TRACE_EV_KMALLOC], 646);
	CHECK_EQ_U64("kmem_cache_alloc events", t.events[TRACE_EV_CACHE_ALLOC], 1006);
	CHECK_EQ_U64("kfree events", t.events[TRACE_EV_KFREE], 570);
	CHECK_EQ_U64("kmem_cache_free events", t.events[TRACE_EV_CACHE_FREE], 778);
	/* awk keeping a live set keyed by ptr= (see tests/README.md): frees of
	 * ptr 0 are kfree(NULL); frees of pointers not live are unknown */
	CHECK_EQ_U64("kfree(NULL)", t.anomalies[SIM_AN_FREE_NULL], 53);
	CHECK_EQ_U64("frees of unknown pointers", t.anomalies[SIM_AN_FREE_UNKNOWN], 42);
	CHECK_EQ_U64("allocations at live addresses", t.anomalies[SIM_AN_ALLOC_LIVE], 0);
	CHECK_EQ_U64("live objects at the end", t.live_objs, 399);
	CHECK_EQ_U64("live requested bytes at the end", t.live_req_bytes, 77778);
	CHECK_EQ_U64("no CPU folding with 2 CPUs", t.anomalies[SIM_AN_CPU_FOLDED], 0);
	/* natural alignment holds for every kmalloc under SLUB without debug */
	CHECK_EQ_U64("no alignment violations (SLUB, natural)", t.align_violations, 0);
	check_identity(s, "waste identity on the sample trace");
	/* the model runs the recorded kernel's configuration: every slot size it
	 * computes must equal the bytes_alloc the kernel traced (sum from
	 * awk: 315552, see tests/traces/test_trace.c) */
	CHECK_EQ_U64("model bytes_alloc equals the trace's on every allocation",
		     t.alloc_size_mismatch, 0);
	CHECK_EQ_U64("sum of traced bytes_alloc", t.bytes_alloc_trace_total, 315552);
	CHECK_EQ_U64("sum of model bytes_alloc", t.bytes_alloc_model_total, 315552);
	trace_close(r);
	sim_destroy(s);
}

static struct trace_event ev_kmalloc(uint64_t ptr, uint64_t size, uint32_t cpu, uint64_t t)
{
	struct trace_event ev = {
		.type = TRACE_EV_KMALLOC,
		.t_ns = t,
		.cpu = cpu,
		.ptr = ptr,
		.bytes_req = size,
		.bytes_alloc = size,
		.node = -1,
		.accounted = -1,
		.call_site = "test_site+0x1/0x10",
		.line = t,
	};
	return ev;
}

static struct trace_event ev_kfree(uint64_t ptr, uint32_t cpu, uint64_t t)
{
	struct trace_event ev = {
		.type = TRACE_EV_KFREE,
		.t_ns = t,
		.cpu = cpu,
		.ptr = ptr,
		.node = -1,
		.accounted = -1,
		.call_site = "test_free+0x1/0x10",
		.line = t,
	};
	return ev;
}

/* slub_debug=Z before the patch: kmalloc-64 slots are 88 bytes with an
 * 8-byte left red zone, so object i sits at 8 + 88 i. It is 64-aligned iff
 * 3 i = 7 (mod 8), i.e. i = 5 (mod 8): of the 46 objects of one slab, 6 are
 * aligned and 40 are not. After the patch slots are 192 bytes with a 64-byte
 * left pad: every object is aligned. */
static void test_violations(void)
{
	struct err e;
	for (int natural = 0; natural < 2; natural++) {
		struct sim *s = make_sim("slub", POLICY_KERNEL_5_4,
					 natural ? POLICY_ALIGN_NATURAL : POLICY_ALIGN_NONE,
					 POLICY_F_RED_ZONE, true);
		int rc = 0;
		for (uint64_t i = 0; i < 46 && !rc; i++) {
			struct trace_event ev = ev_kmalloc(0x1000 + i * 64, 64, 0, i + 1);
			rc = sim_event(s, &ev, &e);
		}
		CHECK("46 kmalloc(64) replayed", rc == 0);
		struct sim_totals t;
		sim_totals(s, &t);
		CHECK_EQ_U64(natural ? "Z, natural: no violations" : "Z, none: 40 violations",
			     t.align_violations, natural ? 0 : 40);
		/* 46 slots of 88 bytes fit one page; at 192 bytes a page holds 21: 3 pages */
		CHECK_EQ_U64("pages for 46 objects", t.slab_pages, natural ? 3 : 1);
		check_identity(s, "waste identity (Z)");
		sim_destroy(s);
	}
}

/* Anomalies from hand-made events: a free of an unknown pointer, kfree(NULL),
 * an allocation at a live address (the missed free is applied first). */
static void test_anomalies(void)
{
	struct err e;
	struct sim *s = make_sim("slub", POLICY_KERNEL_6_1, POLICY_ALIGN_NATURAL, 0, true);
	struct trace_event evs[] = {
		ev_kmalloc(0xa0, 100, 0, 1), ev_kfree(0xb0, 0, 2), ev_kfree(0, 1, 3),
		ev_kmalloc(0xa0, 30, 1, 4),  ev_kfree(0xa0, 0, 5), ev_kmalloc(0xc0, 8, 5, 6),
	};
	int rc = 0;
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]) && !rc; i++)
		rc = sim_event(s, &evs[i], &e);
	CHECK("anomalous events replay", rc == 0);
	struct sim_totals t;
	sim_totals(s, &t);
	CHECK_EQ_U64("unknown free", t.anomalies[SIM_AN_FREE_UNKNOWN], 1);
	CHECK_EQ_U64("kfree(NULL)", t.anomalies[SIM_AN_FREE_NULL], 1);
	CHECK_EQ_U64("alloc at live address", t.anomalies[SIM_AN_ALLOC_LIVE], 1);
	CHECK_EQ_U64("CPU 5 folded onto 2 CPUs", t.anomalies[SIM_AN_CPU_FOLDED], 1);
	CHECK_EQ_U64("live after", t.live_objs, 1);
	CHECK_EQ_U64("live bytes after", t.live_req_bytes, 8);
	/* kmalloc-8: one page; kmalloc-128 and kmalloc-32 slabs stay as CPU
	 * slabs after their objects went: 3 pages */
	CHECK_EQ_U64("pages", t.slab_pages, 3);
	/* rounding 0 (8 in kmalloc-8); free slots: 127*128... see identity */
	check_identity(s, "waste identity (anomalies)");
	sim_destroy(s);
}

/* A GSL-driven random workload (fixed seed): kmalloc sizes from a lognormal,
 * frees of random live objects on random CPUs; the waste identity and the
 * invariant walk must hold throughout, for every policy. */
static void test_random(const char *allocator, enum policy_kernel k, uint32_t debug)
{
	struct err e;
	struct sim *s = make_sim(allocator, k, POLICY_ALIGN_NATURAL, debug, false);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 42);
	enum { MAXLIVE = 4096 };
	static uint64_t live[MAXLIVE];
	size_t nlive = 0;
	uint64_t next_ptr = 0x10000, t = 0;
	int rc = 0;
	bool identity = true, invariants = true;
	for (int i = 0; i < 20000 && !rc; i++) {
		struct trace_event ev;
		if (nlive && (nlive == MAXLIVE || gsl_rng_uniform(rng) < 0.45)) {
			size_t j = gsl_rng_uniform_int(rng, nlive);
			ev = ev_kfree(live[j], (uint32_t)gsl_rng_uniform_int(rng, 2), ++t);
			live[j] = live[--nlive];
		} else {
			uint64_t size = (uint64_t)gsl_ran_lognormal(rng, 4.5, 1.2) + 1;
			if (size > 20000)
				size = 20000;
			ev = ev_kmalloc(next_ptr, size, (uint32_t)gsl_rng_uniform_int(rng, 2), ++t);
			live[nlive++] = next_ptr;
			next_ptr += 0x40;
		}
		rc = sim_event(s, &ev, &e);
		if (i % 1000 == 999) {
			struct sim_totals tt;
			sim_totals(s, &tt);
			identity &= tt.waste_free_slots == tt.free_slots_by_count &&
				    tt.waste_free_slots <= tt.slab_bytes;
			invariants &= sim_policy(s)->ops->check(sim_policy(s), &e) == 0;
		}
	}
	char name[96];
	snprintf(name, sizeof(name), "%s random workload replays", allocator);
	CHECK(name, rc == 0);
	if (strcmp(allocator, "exact") != 0) {
		snprintf(name, sizeof(name), "%s: waste identity at every 1000th event", allocator);
		CHECK(name, identity);
	}
	snprintf(name, sizeof(name), "%s: invariants at every 1000th event", allocator);
	CHECK(name, invariants);
	struct sim_totals tt;
	sim_totals(s, &tt);
	snprintf(name, sizeof(name), "%s: live objects match the generator", allocator);
	CHECK_EQ_U64(name, tt.live_objs, nlive);
	gsl_rng_free(rng);
	sim_destroy(s);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("Bail out! usage: test_replay SAMPLE_TRACE\n");
		return 1;
	}
	test_sample_trace(argv[1]);
	test_violations();
	test_anomalies();
	test_random("slub", POLICY_KERNEL_5_4, 0);
	test_random("slub", POLICY_KERNEL_6_1, 0);
	test_random("slub", POLICY_KERNEL_5_4,
		    POLICY_F_RED_ZONE | POLICY_F_POISON | POLICY_F_STORE_USER |
			    POLICY_F_CONSISTENCY);
	test_random("exact", POLICY_KERNEL_5_4, 0);
	return check_done();
}
