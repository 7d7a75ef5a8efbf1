/* test_route.c - kmalloc events of a real 6.18 capture routed to the
 * kmem_buckets caches through the replay engine (policies/buckets.c): the
 * lines below are from a SysV-message capture of the 6.18 machine
 * (traces/capture/record around a program holding 4,500 messages and
 * calling mount(2) with a bogus file-system type, whose strndup_user
 * copies go through memdup_user). Expected caches from the kernel source
 * (docs/models.md "kmem_buckets"). */
#include "check.h"
#include "policy.h"
#include "sim.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *line, *cache_on, *cache_off;
} lines[] = {
	/* alloc_msg's head: kmem_buckets_alloc(msg_buckets, 48 + len, GFP_KERNEL) */
	{"msgwl-1601 [001] ..... 15971.196075: kmalloc: call_site=load_msg+0x41/0x1e0 "
	 "ptr=ffff88812d6bbd80 bytes_req=148 bytes_alloc=192 gfp_flags=GFP_KERNEL node=-1 "
	 "accounted=false",
	 "msg_msg-192", "kmalloc-192"},
	/* a segment of a long message: kmalloc(8 + alen, GFP_KERNEL_ACCOUNT) */
	{"msgwl-1601 [001] ..... 15971.196111: kmalloc: call_site=load_msg+0x8d/0x1e0 "
	 "ptr=ffff888157e43800 bytes_req=960 bytes_alloc=1024 gfp_flags=GFP_KERNEL_ACCOUNT node=-1 "
	 "accounted=true",
	 "kmalloc-cg-1k", "kmalloc-cg-1k"},
	/* memdup_user through strndup_user: the event names memdup_user's caller */
	{"msgwl-1601 [001] ..... 15971.259470: kmalloc: call_site=strndup_user+0x51/0x80 "
	 "ptr=ffff88819498c940 bytes_req=35 bytes_alloc=64 gfp_flags=GFP_USER|__GFP_NOWARN node=-1 "
	 "accounted=false",
	 "memdup_user-64", "kmalloc-64"},
	/* vmemdup_user: kmem_buckets_valloc(user_buckets, len, GFP_USER) */
	{"sed-1704 [000] ..... 15972.214273: kmalloc: call_site=vmemdup_user+0x2e/0xb0 "
	 "ptr=ffff888102f4f6e0 bytes_req=28 bytes_alloc=32 gfp_flags=GFP_USER node=-1 "
	 "accounted=false",
	 "memdup_user-32", "kmalloc-32"},
	/* an unrelated kmalloc stays in kmalloc-N */
	{"record-2526 [001] ..... 14503.432490: kmalloc: call_site=alloc_fdtable+0x84/0x140 "
	 "ptr=ffff8881047b9800 bytes_req=2048 bytes_alloc=2048 gfp_flags=GFP_KERNEL node=-1 "
	 "accounted=false",
	 "kmalloc-2k", "kmalloc-2k"},
};

static void run(bool buckets)
{
	struct sim_opts o = {0};
	struct sim *s;
	struct err e = {0};
	o.ops = policy_find("slub");
	policy_cfg_default(&o.cfg);
	o.cfg.kernel = POLICY_KERNEL_6_18;
	o.cfg.slab_buckets = buckets;
	o.check = true;
	if (sim_create(&o, &s, &e)) {
		printf("Bail out! sim_create: %s\n", e.msg);
		exit(1);
	}
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char buf[512];
		struct trace_event ev;
		enum trace_line_kind kind;
		uint64_t lost = 0;
		snprintf(buf, sizeof(buf), "%s", lines[i].line);
		if (!CHECK("parse a 6.18 kmalloc line",
			   trace_parse_line(buf, &ev, &kind, &lost, &e) == 1)) {
			check_diag("#   %s\n", e.msg);
			continue;
		}
		const char *want = buckets ? lines[i].cache_on : lines[i].cache_off;
		uint32_t id;
		struct sim_cache_state before, after;
		if (!CHECK("the expected cache exists", sim_find_cache(s, want, &id))) {
			check_diag("#   %s\n", want);
			continue;
		}
		sim_cache_state(s, id, &before);
		CHECK("replay the event", sim_event(s, &ev, &e) == 0);
		sim_cache_state(s, id, &after);
		char name[160];
		snprintf(name, sizeof(name), "%s: one allocation in %s (slab_buckets %s)",
			 strchr(lines[i].line, '=') + 1, want, buckets ? "on" : "off");
		CHECK_EQ_U64(name, after.allocs - before.allocs, 1);
	}
	struct sim_totals t;
	sim_totals(s, &t);
	CHECK_EQ_U64("model bytes_alloc equals the trace's", t.alloc_size_mismatch, 0);
	sim_destroy(s);
}

int main(void)
{
	run(true);
	run(false);
	return check_done();
}
