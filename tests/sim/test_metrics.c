/* test_metrics.c - the figures of docs/metrics.md that are cheaper to check
 * from C than through the command line:
 *  - the waste identity L + rounding + layout + tail + free = S after every
 *    event (every possible sample) of every trace given on the command line,
 *    for every allocator and alignment policy, with L counted by this test
 *    from the trace and the parts derived from the policy's own counts, not
 *    from the engine's sums;
 *  - the unusable free space index on a hand-built buddy state;
 *  - slabinfo's per-cache arithmetic on a hand-filled cache_info.
 */
#include "buddy.h"
#include "check.h"
#include "metrics.h"
#include "policy.h"
#include "sim.h"
#include "slob.h"
#include "trace.h"
#include "u64map.h"

#include <stdlib.h>

/* The test's own ledger of live requested bytes, following the engine's
 * documented rules (README: allocations of NULL, of 0 bytes and above 4 MiB
 * are skipped; an allocation at a live address frees the old object first;
 * frees of unknown pointers are ignored). */
struct ledger {
	struct u64map live; /* ptr -> req << 1 | large */
	uint64_t req, large_req;
};

static void ledger_event(struct ledger *l, const struct policy *p, const struct trace_event *ev)
{
	uint64_t v;
	bool alloc = ev->type <= TRACE_EV_CACHE_ALLOC_NODE;
	bool freeing = ev->type == TRACE_EV_KFREE || ev->type == TRACE_EV_CACHE_FREE;
	if (alloc && (!ev->ptr || !ev->bytes_req || ev->bytes_req > (4u << 20)))
		return;
	if (freeing && ev->ptr <= 16)
		return;
	if ((alloc || freeing) && u64map_del(&l->live, ev->ptr, &v)) {
		l->req -= v >> 1;
		if (v & 1)
			l->large_req -= v >> 1;
	}
	if (!alloc)
		return;
	bool kmalloc = ev->type == TRACE_EV_KMALLOC || ev->type == TRACE_EV_KMALLOC_NODE;
	bool large = kmalloc && p->ops->kmalloc_cache(p, ev->bytes_req, POLICY_KMALLOC_NORMAL) ==
					POLICY_NO_CACHE;
	(void)u64map_put(&l->live, ev->ptr, ev->bytes_req << 1 | large);
	l->req += ev->bytes_req;
	if (large)
		l->large_req += ev->bytes_req;
}

/* SLOB: bytes of the free units on its page lists (full pages have none). */
static uint64_t slob_free_bytes(const struct policy *p)
{
	uint64_t total = 0;
	for (int l = 0; l < SLOB_NR_LISTS; l++) {
		uint64_t n = slob_list_pages(p, (enum slob_list)l, NULL, 0);
		uint64_t *bases = calloc(n ? n : 1, sizeof(*bases));
		if (!bases)
			return UINT64_MAX;
		slob_list_pages(p, (enum slob_list)l, bases, n);
		for (uint64_t i = 0; i < n; i++) {
			struct slob_page_info pi;
			if (slob_page_info(p, bases[i], &pi, NULL, 0))
				total += 2ull * pi.units;
		}
		free(bases);
	}
	return total;
}

/* The identity after one event; returns NULL or what failed. */
static const char *identity(const struct sim *s, const struct ledger *l, const char *alloc,
			    char *why, size_t n)
{
	const struct policy *p = sim_policy(s);
	struct sim_totals t;
	struct policy_stats st;
	sim_totals(s, &t);
	p->ops->stats(p, &st);
	uint64_t S = (st.slab_pages + st.large_pages) * POLICY_PAGE_SIZE;
	if (t.live_req_bytes != l->req) {
		snprintf(why, n, "L: engine %" PRIu64 ", ledger %" PRIu64, t.live_req_bytes,
			 l->req);
		return why;
	}
	if (t.slab_bytes != S || t.live_req_bytes + t.waste_rounding + t.waste_layout +
						 t.waste_tail + t.waste_free_slots !=
					 S) {
		snprintf(why, n, "engine parts do not add up to S = %" PRIu64, S);
		return why;
	}
	if (strcmp(alloc, "exact") == 0) {
		/* no layout: the only waste is the rounding of the total to pages */
		if (t.waste_free_slots >= POLICY_PAGE_SIZE || t.waste_layout || t.waste_tail) {
			snprintf(why, n, "exact: free %" PRIu64 " layout %" PRIu64,
				 t.waste_free_slots, t.waste_layout);
			return why;
		}
		return NULL;
	}
	if (strcmp(alloc, "slob") == 0) {
		uint64_t fb = slob_free_bytes(p);
		if (fb != t.waste_free_slots) {
			snprintf(why, n, "slob: free units %" PRIu64 " bytes, engine free %" PRIu64,
				 fb, t.waste_free_slots);
			return why;
		}
		return NULL;
	}
	/* SLUB, SLAB: every part from the policy's per-cache counts */
	uint64_t object = 0, layout = 0, tail = 0, free_b = 0;
	uint32_t nc = p->ops->nr_caches(p);
	for (uint32_t id = 0; id < nc; id++) {
		struct policy_cache_info ci;
		p->ops->cache_info(p, id, &ci);
		if (ci.alias_of != id || !ci.g.size)
			continue;
		uint64_t internal = ci.internal_bytes / ci.g.size; /* SLAB off-slab freelists */
		uint64_t live = ci.inuse_objects - internal;
		uint64_t B = (uint64_t)POLICY_PAGE_SIZE << ci.g.order;
		object += live * ci.g.object_size;
		layout += live * (ci.g.size - ci.g.object_size) + internal * ci.g.size;
		tail += ci.nr_slabs * (B - (uint64_t)ci.g.objs_per_slab * ci.g.size);
		free_b += (ci.total_objects - ci.inuse_objects) * ci.g.size;
	}
	uint64_t rounding =
		object - (l->req - l->large_req) + st.large_pages * POLICY_PAGE_SIZE - l->large_req;
	if (rounding != t.waste_rounding || layout != t.waste_layout || tail != t.waste_tail ||
	    free_b != t.waste_free_slots) {
		snprintf(why, n,
			 "parts: rounding %" PRIu64 "/%" PRIu64 " layout %" PRIu64 "/%" PRIu64
			 " tail %" PRIu64 "/%" PRIu64 " free %" PRIu64 "/%" PRIu64 " (test/engine)",
			 rounding, t.waste_rounding, layout, t.waste_layout, tail, t.waste_tail,
			 free_b, t.waste_free_slots);
		return why;
	}
	if (l->req + rounding + layout + tail + free_b != S) {
		snprintf(why, n, "L + parts != S");
		return why;
	}
	return NULL;
}

static void test_identity(const char *path, const char *alloc, enum policy_align align)
{
	struct err e;
	struct sim_opts o = {0};
	o.ops = policy_find(alloc);
	policy_cfg_default(&o.cfg);
	o.cfg.kernel = POLICY_KERNEL_6_1;
	o.cfg.align = align;
	struct sim *s = NULL;
	struct trace_reader *r = NULL;
	struct trace_opts to = {.strict = false};
	char name[256], why[256];
	const char *bad = NULL;
	uint64_t n = 0, bad_line = 0;
	struct ledger l = {0};
	u64map_init(&l.live);
	int rc = sim_create(&o, &s, &e);
	if (!rc)
		rc = trace_open(path, &to, &r, &e);
	struct trace_event ev;
	while (!rc && (rc = trace_next(r, &ev, &e)) == 1) {
		ledger_event(&l, sim_policy(s), &ev);
		if ((rc = sim_event(s, &ev, &e)))
			break;
		n++;
		if (!bad && (bad = identity(s, &l, alloc, why, sizeof(why))))
			bad_line = ev.line;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(name, sizeof(name),
		 "%s, %s, align %s: L + 4 parts = S after each of %" PRIu64 " events", base, alloc,
		 policy_align_name(align), n);
	if (!CHECK(name, rc == 0 && !bad && n > 0))
		printf("#   rc %d (%s); line %" PRIu64 ": %s\n", rc, rc ? e.msg : "", bad_line,
		       bad ? bad : "");
	trace_close(r);
	sim_destroy(s);
	u64map_fini(&l.live);
}

/* A buddy allocator of 1024 pages (one MAX_ORDER block) after two order-0
 * allocations: the first splits the block into one free block of each order
 * 9, 8, ..., 1, 0 and takes a page; the second takes the order-0 block. Free:
 * orders 1..9, 2 + 4 + ... + 512 = 1022 pages. */
static void test_unusable(void)
{
	struct buddy b;
	uint64_t a1, a2;
	buddy_init(&b);
	CHECK("buddy: two order-0 pages", !buddy_alloc(&b, 0, &a1) && !buddy_alloc(&b, 0, &a2));
	struct policy_page_orders po;
	buddy_orders(&b, &po);
	CHECK_EQ_U64("buddy: 1024 pages grown", po.grown_pages, 1024);
	CHECK_EQ_U64("buddy: 2 order-0 blocks held", po.held_blocks[0], 2);
	CHECK_EQ_U64("buddy: no free order-0 block", po.free_blocks[0], 0);
	bool one_each = true;
	for (int o = 1; o <= 9; o++)
		one_each &= po.free_blocks[o] == 1;
	CHECK("buddy: one free block of each order 1..9", one_each && po.free_blocks[10] == 0);
	/* 1000 * (free - pages in blocks >= order) / free, rounded down:
	 * order 0, 1: every free page is usable -> 0
	 * order 2: the order-1 block (2 pages) is not: 2000 / 1022 = 1.96 -> 1
	 * order 5: 2 + 4 + 8 + 16 = 30 pages: 30000 / 1022 = 29.35 -> 29
	 * order 9: 1022 - 512 = 510: 510000 / 1022 = 499.02 -> 499
	 * order 10: nothing suitable -> 1000 */
	CHECK_EQ_U64("unusable index order 0", metrics_unusable_index(po.free_blocks, 0), 0);
	CHECK_EQ_U64("unusable index order 1", metrics_unusable_index(po.free_blocks, 1), 0);
	CHECK_EQ_U64("unusable index order 2", metrics_unusable_index(po.free_blocks, 2), 1);
	CHECK_EQ_U64("unusable index order 5", metrics_unusable_index(po.free_blocks, 5), 29);
	CHECK_EQ_U64("unusable index order 9", metrics_unusable_index(po.free_blocks, 9), 499);
	CHECK_EQ_U64("unusable index order 10", metrics_unusable_index(po.free_blocks, 10), 1000);
	/* free both pages: everything coalesces back into the order-10 block */
	CHECK("buddy: free both", !buddy_free(&b, a1, 0) && !buddy_free(&b, a2, 0));
	buddy_orders(&b, &po);
	CHECK_EQ_U64("coalesced: one free order-10 block", po.free_blocks[10], 1);
	CHECK_EQ_U64("coalesced: index 0 at order 10", metrics_unusable_index(po.free_blocks, 10),
		     0);
	uint64_t none[POLICY_MAX_ORDER] = {0};
	CHECK_EQ_U64("nothing free: index 1000 (the kernel's convention)",
		     metrics_unusable_index(none, 0), 1000);
	buddy_fini(&b);
}

/* slabinfo's arithmetic on one hand-filled cache: kmalloc-192-like, order 0,
 * 21 objects per slab, 10 slabs of which 3 node-partial with 20 free objects
 * among them, 150 objects handed out (the other 40 free slots sit in CPU
 * slabs, which slabinfo counts as used). */
static void test_slabinfo_cache(void)
{
	struct policy_cache_info ci = {0};
	ci.g.object_size = 176;
	ci.g.size = 192;
	ci.g.order = 0;
	ci.g.objs_per_slab = 21;
	ci.nr_slabs = 10;
	ci.nr_partial = 3;
	ci.total_objects = 210;
	ci.inuse_objects = 150;
	ci.free_in_partial = 20;
	struct metrics_slabinfo si;
	metrics_slabinfo_cache(&ci, &si);
	CHECK_EQ_U64("slabinfo: objects = 210 - 20", si.objects, 190);
	CHECK_EQ_U64("slabinfo: space = 10 * 4096", si.space, 40960);
	CHECK_EQ_U64("slabinfo: used = 190 * 176", si.used, 33440);
	CHECK_EQ_U64("slabinfo: loss = 40960 - 33440", si.loss, 7520);
	CHECK_EQ_U64("slabinfo: %Ef = 3344000 / 40960 = 81", si.ef, 81);
	CHECK_EQ_U64("slabinfo: %Fr = 300 / 10", si.fr, 30);
	CHECK_EQ_U64("slabinfo: objects_partial = 3 * 21 - 20", si.objects_partial, 43);
	ci.nr_slabs = ci.nr_partial = ci.total_objects = ci.inuse_objects = ci.free_in_partial = 0;
	metrics_slabinfo_cache(&ci, &si);
	CHECK("slabinfo: no slabs -> %Ef 100, %Fr 100 (as the report prints)",
	      si.ef == 100 && si.fr == 100 && si.space == 0);
}

int main(int argc, char **argv)
{
	static const char *const allocs[] = {"slub", "slab", "slob", "exact"};
	static const enum policy_align aligns[] = {POLICY_ALIGN_NONE, POLICY_ALIGN_NATURAL,
						   POLICY_ALIGN_CAP512};
	if (argc < 2) {
		printf("Bail out! usage: test_metrics TRACE...\n");
		return 1;
	}
	for (int i = 1; i < argc; i++)
		for (size_t a = 0; a < sizeof(allocs) / sizeof(allocs[0]); a++)
			for (size_t g = 0; g < sizeof(aligns) / sizeof(aligns[0]); g++)
				test_identity(argv[i], allocs[a], aligns[g]);
	test_unusable();
	test_slabinfo_cache();
	return check_done();
}
