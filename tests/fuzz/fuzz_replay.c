/* fuzz_replay.c - libFuzzer harness for the replay engine and the models.
 *
 * The first 4 bytes choose a model configuration (allocator, kernel, align
 * among all seven policies, with a sites file listing a_site as natural and
 * b_site as 64 bytes for the four that serve listed callers,
 * slub_debug, CPUs, orders, sampling); every following 8 bytes are one event
 * (type, a pointer from a small pool so that frees meet allocations, sizes
 * from classes that include 0, powers of two, 4 MiB and beyond, bytes_alloc
 * below bytes_req, timestamps that jump or go backwards, CPUs to fold, cache
 * names that collide with kmalloc caches). Each event goes through
 * sim_event(), followed by the policy's invariant walk (--check). The
 * harness aborts when:
 *   - the invariant walk fails;
 *   - sim_event fails with anything but SLABSIM_EINPUT (bad input is allowed
 *     to stop a replay, a model invariant or a usage error is not);
 *   - the error of a failed event does not name "events:<line>: ";
 *   - the live objects and requested bytes differ from a shadow model kept
 *     here from the documented anomaly rules (sim.h);
 *   - a listed caller's kmalloc is misaligned under a policy that serves
 *     listed callers;
 *   - the waste identity breaks (free slots by remainder vs the policy's free
 *     object counts, for SLUB and SLAB), or a waste figure underflows.
 * The summary (table and JSON) and the slabinfo file are written to
 * /dev/null at the end, so their formatting runs on every model state.
 */
#include "policy.h"
#include "sim.h"
#include "summary.h"
#include "sites.h"
#include "trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NPTR	 20
#define MIB4	 (4u << 20)
#define EV_BYTES 8

static const char *const allocators[] = {"slub", "slab", "slob", "exact"};
static const char *const sites[] = {"a_site+0x1/0x10",	  "b_site+0x2/0x20", "",
				    "0xffffffff81234567", "c_site+0x3/0x30", "d_site+0x4/0x40"};
static const char *const names[] = {NULL, NULL, "kmalloc-64", "dentry", "fuzz_cache", ""};

static FILE *devnull;

static uint64_t ptr_of(unsigned slot)
{
	if (slot == 0)
		return 0;
	if (slot == 1)
		return 16; /* ZERO_SIZE_PTR */
	return 0xffff888000000000u + (uint64_t)slot * 0x40;
}

static uint64_t size_of(uint8_t a, uint8_t b)
{
	switch (a >> 5) {
	case 0:
		return b; /* 0..255, 0 included */
	case 1:
		return ((uint64_t)(a & 31) << 8 | b); /* up to 8191 */
	case 2:
		return (uint64_t)1 << (b % 24); /* powers of two to 8 MiB */
	case 3:
		switch (b & 3) {
		case 0:
			return MIB4;
		case 1:
			return MIB4 + 1;
		case 2:
			return UINT64_MAX;
		default:
			return ((uint64_t)1 << 32) + b;
		}
	default:
		return ((uint64_t)(a & 31) << 8 | b) % 2048 + 1;
	}
}

static uint64_t alloc_of(uint64_t req, uint8_t b)
{
	switch (b & 7) {
	case 4: { /* next power of two */
		uint64_t p = 8;
		while (p < req && p < ((uint64_t)1 << 62))
			p <<= 1;
		return p;
	}
	case 5:
		return req > (uint64_t)(b >> 3) ? req - (b >> 3) : 0; /* below bytes_req */
	case 6:
		return (uint64_t)b << 12;
	case 7:
		return 0;
	default:
		return req;
	}
}

/* The shadow live set: what sim.h says the replay must hold. */
struct shadow {
	bool live[NPTR];
	uint64_t req[NPTR];
	uint64_t nlive, live_req;
};

/* The invariant walk, the live set against the shadow, the waste identity.
 * line 0: at the end. */
static void check_state(struct sim *s, const struct shadow *sh, uint64_t line)
{
	struct policy *p = sim_policy(s);
	struct sim_totals tt;
	struct err e;

	if (p->ops->check(p, &e)) {
		fprintf(stderr, "fuzz_replay: event %" PRIu64 ": invariant: %s\n", line, e.msg);
		abort();
	}
	sim_totals(s, &tt);
	if (tt.live_objs != sh->nlive || tt.live_req_bytes != sh->live_req) {
		fprintf(stderr,
			"fuzz_replay: event %" PRIu64 ": live %" PRIu64 "/%" PRIu64
			" bytes, shadow %" PRIu64 "/%" PRIu64 "\n",
			line, tt.live_objs, tt.live_req_bytes, sh->nlive, sh->live_req);
		abort();
	}
	uint64_t parts = tt.live_req_bytes + tt.waste_rounding + tt.waste_layout + tt.waste_tail;
	bool slab_like = p->ops == policy_find("slub") || p->ops == policy_find("slab");
	if (parts > tt.slab_bytes || (slab_like && tt.waste_free_slots != tt.free_slots_by_count)) {
		fprintf(stderr,
			"fuzz_replay: event %" PRIu64 ": waste identity: slab bytes %" PRIu64
			", live+rounding+layout+tail %" PRIu64 ", free %" PRIu64
			" by remainder, %" PRIu64 " by count\n",
			line, tt.slab_bytes, parts, tt.waste_free_slots, tt.free_slots_by_count);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_opts o = {0};
	struct sim *s;
	struct err e;
	struct shadow sh = {0};

	if (size < 4)
		return 0;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	uint8_t c0 = data[0], c1 = data[1], c2 = data[2], c3 = data[3];
	o.ops = policy_find(allocators[c0 & 3]);
	policy_cfg_default(&o.cfg);
	o.cfg.kernel = (c0 >> 2) & 1 ? POLICY_KERNEL_6_1 : POLICY_KERNEL_5_4;
	/* bits 3-4 of c0 and 7 of c2: 0..7, folded onto the seven policies */
	o.cfg.align = (enum policy_align)((((c0 >> 3) & 3) | ((c2 >> 5) & 4)) % POLICY_ALIGN_NR);
	static const char sites_text[] = "a_site+* natural\nb_*\t64\n";
	struct policy_sites *ps = NULL;
	if (policy_sites_parse("fuzz.sites", sites_text, sizeof(sites_text) - 1, &ps, &e))
		abort();
	o.cfg.sites = ps;
	o.cfg.cpu_partial = !((c0 >> 5) & 1);
	o.cfg.slab_debug = (c0 >> 6) & 1;
	o.cfg.nomerge = (c0 >> 7) & 1;
	o.cfg.slub_debug = c1 & POLICY_F_DEBUG_MASK;
	o.cfg.nr_cpus = (uint32_t)((c1 >> 5) % 4 + 1);
	o.cfg.slub_min_order = c2 & 3;
	o.cfg.slub_max_order = (uint32_t)((c2 >> 2) & 3) + o.cfg.slub_min_order;
	o.cfg.slub_min_objects = (uint32_t)(c2 >> 4) * 4;
	o.cfg.slab_max_order = c3 % 3;
	o.sample_every_events = (c3 >> 2) & 7;
	o.sample_every_ns = (c3 >> 5) ? (uint64_t)(c3 >> 5) * 1000000 : 0;
	o.sample_caches = true;
	/* The invariant walk of --check and the totals cost more than the
	 * event; check_state runs after each of the first 64 events, then
	 * every 8th and at the end (a broken invariant stays broken). */
	o.check = false;
	err_clear(&e);
	int rc = sim_create(&o, &s, &e);
	if (rc == SLABSIM_EUSAGE) {
		policy_sites_destroy(ps);
		return 0; /* a configuration the CLI would refuse too */
	}
	if (rc)
		abort();

	uint64_t t = 1000000000;
	data += 4;
	size -= 4;
	for (uint64_t line = 1; size >= EV_BYTES; line++, data += EV_BYTES, size -= EV_BYTES) {
		const uint8_t *b = data;
		unsigned slot = b[1] % NPTR;
		struct trace_event ev = {
			.type = (enum trace_ev_type)(b[0] % 7),
			.cpu = b[5] % 6,
			.pid = 1,
			.ptr = ptr_of(slot),
			.node = (b[7] >> 4) % 3 - 1,
			.accounted = (int8_t)((b[5] >> 6) % 3 - 1),
			.gfp = TRACE_GFP_KNOWN | ((b[5] >> 3) & 7),
			.call_site = sites[b[7] % 6],
			.name = names[(b[0] >> 3) % 6],
			.text = "phase",
			.line = line,
		};
		if (b[6] < 200)
			t += (uint64_t)b[6] * 1000;
		else if (b[6] < 240)
			t += (uint64_t)(b[6] - 200) * 100000000; /* to 4 s: SLAB's reap timer */
		else
			t -= (uint64_t)(b[6] - 240) * 1000; /* backwards */
		ev.t_ns = t;
		bool alloc = ev.type <= TRACE_EV_CACHE_ALLOC_NODE;
		bool is_free = ev.type == TRACE_EV_KFREE || ev.type == TRACE_EV_CACHE_FREE;
		if (alloc) {
			ev.bytes_req = size_of(b[2], b[3]);
			ev.bytes_alloc = alloc_of(ev.bytes_req, b[4]);
		}
		if (ev.type == TRACE_EV_KMALLOC || ev.type == TRACE_EV_KMALLOC_NODE)
			ev.name = NULL; /* kmalloc events name no cache */

		rc = sim_event(s, &ev, &e);
		if (rc) {
			char want[32];
			/* sim_event outside a replay names its input "events" */
			(void)snprintf(want, sizeof(want), "events:%" PRIu64 ": ", line);
			/* bad sizes are bad input; a model failure is a bug */
			if (rc != SLABSIM_EINPUT || strncmp(e.msg, want, strlen(want)) != 0) {
				fprintf(stderr, "fuzz_replay: event %" PRIu64 ": rc %d: %s\n", line,
					rc, e.msg);
				abort();
			}
			break; /* the replay stops at bad input; nothing more to compare */
		}
		/* the shadow model, from the anomaly rules in sim.h */
		if (alloc && ev.ptr && ev.bytes_req && ev.bytes_req <= MIB4) {
			if (sh.live[slot]) {
				sh.nlive--;
				sh.live_req -= sh.req[slot];
			}
			sh.live[slot] = true;
			sh.req[slot] = ev.bytes_req;
			sh.nlive++;
			sh.live_req += ev.bytes_req;
		} else if (is_free && ev.ptr > 16 && sh.live[slot]) {
			sh.live[slot] = false;
			sh.nlive--;
			sh.live_req -= sh.req[slot];
		}
		if (line <= 64 || line % 8 == 0)
			check_state(s, &sh, line);
	}
	check_state(s, &sh, 0);
	/* the policies that serve listed callers always align them */
	struct sim_totals tot;
	sim_totals(s, &tot);
	if (policy_align_by_site(o.cfg.align) && tot.listed_violations) {
		fprintf(stderr, "fuzz_replay: %" PRIu64 " listed callers misaligned under %s\n",
			tot.listed_violations, policy_align_name(o.cfg.align));
		abort();
	}
	summary_print(s, devnull, false, "fuzz", NULL);
	summary_print(s, devnull, true, "fuzz", NULL);
	if (summary_write_slabinfo(s, devnull))
		abort();
	sim_destroy(s);
	policy_sites_destroy(ps);
	return 0;
}
