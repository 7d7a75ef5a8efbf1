/* test_trace.c - the ftrace text reader against real and hand-made lines.
 *
 * Usage: test_trace <sample.trace> <data dir> <sample.gz> <sample.xz> <sample.zst>
 * (an empty compressed path skips that format). Single lines go through
 * trace_parse_line() and every field is checked; files go through
 * trace_open()/trace_next() and the counters are checked against numbers
 * derived independently with grep/awk. Files that cannot live in git (CRLF,
 * NUL bytes, a 2 MiB line, a truncated .gz) are made in a temporary dir.
 */
#include "check.h"
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF 2048

/* Parse a copy of text (trace_parse_line writes into its buffer). */
static int parse(const char *text, char buf[BUF], struct trace_event *ev,
		 enum trace_line_kind *kind, uint64_t *lost, struct err *e)
{
	(void)snprintf(buf, BUF, "%s", text);
	err_clear(e);
	return trace_parse_line(buf, ev, kind, lost, e);
}

/* Parse a line that must be a slab event or a marker (that is a check too). */
static void parse_event(const char *text, char buf[BUF], struct trace_event *ev)
{
	enum trace_line_kind kind;
	uint64_t lost;
	struct err e;
	char name[96];
	int rc = parse(text, buf, ev, &kind, &lost, &e);

	(void)snprintf(name, sizeof(name), "is an event: '%.60s'", text + strspn(text, " "));
	if (!CHECK(name, rc == 1 && kind == TRACE_LINE_EVENT))
		printf("#   rc %d, kind %d, '%s'\n", rc, (int)kind, rc < 0 ? e.msg : "");
}

/* Expect a malformed line with exactly this message. */
static void check_bad(const char *name, const char *text, const char *want)
{
	char buf[BUF];
	struct trace_event ev;
	enum trace_line_kind kind;
	uint64_t lost;
	struct err e;
	int rc = parse(text, buf, &ev, &kind, &lost, &e);

	CHECK_EQ_U64(name, (uint64_t)(int64_t)rc, (uint64_t)(int64_t)SLABSIM_EINPUT);
	CHECK_EQ_STR(name, e.msg, want);
}

static void test_tracefs_61(void)
{
	char buf[BUF];
	struct trace_event ev;
	enum trace_line_kind kind;
	uint64_t lost = 99;
	struct err e;
	int rc;

	/* Lines 13, 15 and 22 of the bundled sample. */
	rc = parse("            init-1       [001] .....     1.695477: kmem_cache_alloc: "
		   "call_site=acpi_ut_create_generic_state+0x2e/0x40 ptr=0000000093d00bf1 "
		   "bytes_req=80 bytes_alloc=80 gfp_flags=GFP_KERNEL|__GFP_ZERO node=-1 "
		   "accounted=false",
		   buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("6.1 cache_alloc: returns 1", rc, 1);
	CHECK_EQ_U64("6.1 cache_alloc: kind", kind, TRACE_LINE_EVENT);
	CHECK_EQ_U64("6.1 cache_alloc: type", ev.type, TRACE_EV_CACHE_ALLOC);
	CHECK_EQ_U64("6.1 cache_alloc: t_ns", ev.t_ns, 1695477000ull);
	CHECK_EQ_U64("6.1 cache_alloc: cpu", ev.cpu, 1);
	CHECK_EQ_U64("6.1 cache_alloc: pid", ev.pid, 1);
	CHECK_EQ_U64("6.1 cache_alloc: ptr", ev.ptr, 0x93d00bf1ull);
	CHECK_EQ_U64("6.1 cache_alloc: bytes_req", ev.bytes_req, 80);
	CHECK_EQ_U64("6.1 cache_alloc: bytes_alloc", ev.bytes_alloc, 80);
	CHECK_EQ_U64("6.1 cache_alloc: node", (uint64_t)(int64_t)ev.node, (uint64_t)-1);
	CHECK_EQ_U64("6.1 cache_alloc: accounted", ev.accounted, 0);
	CHECK_EQ_U64("6.1 cache_alloc: gfp known, no type bits", ev.gfp, TRACE_GFP_KNOWN);
	CHECK_EQ_STR("6.1 cache_alloc: call_site", ev.call_site,
		     "acpi_ut_create_generic_state+0x2e/0x40");
	CHECK("6.1 cache_alloc: no name", ev.name == NULL);
	CHECK("6.1 cache_alloc: no text", ev.text == NULL);

	rc = parse("            init-1       [001] .....     1.695480: kmem_cache_free: "
		   "call_site=acpi_os_release_object+0xa/0x20 ptr=0000000093d00bf1 name=Acpi-State",
		   buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("6.1 cache_free: returns 1", rc, 1);
	CHECK_EQ_U64("6.1 cache_free: type", ev.type, TRACE_EV_CACHE_FREE);
	CHECK_EQ_U64("6.1 cache_free: ptr", ev.ptr, 0x93d00bf1ull);
	CHECK_EQ_STR("6.1 cache_free: name", ev.name, "Acpi-State");
	CHECK_EQ_STR("6.1 cache_free: call_site", ev.call_site, "acpi_os_release_object+0xa/0x20");
	CHECK_EQ_U64("6.1 cache_free: gfp unknown", ev.gfp, 0);
	CHECK_EQ_U64("6.1 cache_free: t_ns", ev.t_ns, 1695480000ull);

	rc = parse("            init-1       [001] .....     1.695494: kmalloc: "
		   "call_site=acpi_ns_get_normalized_pathname+0x4a/0x90 ptr=000000007b10107d "
		   "bytes_req=15 bytes_alloc=16 gfp_flags=GFP_KERNEL|__GFP_ZERO node=-1 "
		   "accounted=false",
		   buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("6.1 kmalloc: returns 1", rc, 1);
	CHECK_EQ_U64("6.1 kmalloc: type", ev.type, TRACE_EV_KMALLOC);
	CHECK_EQ_U64("6.1 kmalloc: bytes_req", ev.bytes_req, 15);
	CHECK_EQ_U64("6.1 kmalloc: bytes_alloc", ev.bytes_alloc, 16);

	rc = parse("            init-1       [001] .....     1.695495: kfree: "
		   "call_site=acpi_ps_parse_aml+0xe3/0x3d0 ptr=0000000000000000",
		   buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("6.1 kfree(NULL): returns 1", rc, 1);
	CHECK_EQ_U64("6.1 kfree(NULL): type", ev.type, TRACE_EV_KFREE);
	CHECK_EQ_U64("6.1 kfree(NULL): ptr", ev.ptr, 0);
	CHECK_EQ_U64("6.1 kfree(NULL): accounted absent", (uint64_t)(int64_t)ev.accounted,
		     (uint64_t)-1);

	/* accounted=true sets ACCOUNT even when the gfp names do not. */
	parse_event("  systemd-1 [000] ..... 5.000001: kmem_cache_alloc: call_site=x+0x1/0x2 "
		    "ptr=00000000000000aa bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=0 "
		    "accounted=true",
		    buf, &ev);

	CHECK_EQ_U64("accounted=true: accounted", ev.accounted, 1);
	/* ... and says so (ACCOUNT_ONLY: the cache's SLAB_ACCOUNT, used to name
	 * caches by elimination) */
	CHECK_EQ_U64("accounted=true: gfp", ev.gfp,
		     TRACE_GFP_KNOWN | TRACE_GFP_ACCOUNT | TRACE_GFP_ACCOUNT_ONLY);
	CHECK_EQ_U64("accounted=true: node", ev.node, 0);

	/* gfp names that pick the kmalloc type. */
	parse_event("a-1 [000] 1.5: kmalloc: ptr=1 bytes_req=8 bytes_alloc=8 "
		    "gfp_flags=GFP_KERNEL|__GFP_RECLAIMABLE|GFP_DMA",
		    buf, &ev);

	CHECK_EQ_U64("gfp names: rcl + dma", ev.gfp,
		     TRACE_GFP_KNOWN | TRACE_GFP_RECLAIMABLE | TRACE_GFP_DMA);
	parse_event("a-1 [000] 1.5: kmalloc: ptr=1 bytes_req=8 bytes_alloc=8 "
		    "gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO",
		    buf, &ev);

	CHECK_EQ_U64("gfp names: GFP_KERNEL_ACCOUNT", ev.gfp, TRACE_GFP_KNOWN | TRACE_GFP_ACCOUNT);
	parse_event("a-1 [000] 1.5: kmalloc: ptr=1 bytes_req=8 bytes_alloc=8 "
		    "gfp_flags=__GFP_DMA|__GFP_ACCOUNT",
		    buf, &ev);

	CHECK_EQ_U64("gfp names: __GFP_DMA|__GFP_ACCOUNT", ev.gfp,
		     TRACE_GFP_KNOWN | TRACE_GFP_DMA | TRACE_GFP_ACCOUNT);
	parse_event("a-1 [000] 1.5: kmalloc: ptr=1 bytes_req=8 bytes_alloc=8 gfp_flags=none", buf,
		    &ev);

	CHECK_EQ_U64("gfp none: known", ev.gfp, TRACE_GFP_KNOWN);
	/* 6.1 with the nohash-ptr option prints "gfp_flags=" blank. */
	rc = parse("a-1 [000] 1.5: kmalloc: ptr=1 bytes_req=8 bytes_alloc=8 gfp_flags= node=-1",
		   buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("gfp blank: accepted", rc, 1);
	CHECK_EQ_U64("gfp blank: not known", ev.gfp, 0);

	/* The irq-flags column: 4 or 5 characters, or absent. */
	parse_event("  kthreadd-2 [000] d..1. 2.5: kfree: call_site=f+0x1/0x2 ptr=ff", buf, &ev);

	CHECK_EQ_U64("flags d..1.: t_ns", ev.t_ns, 2500000000ull);
	CHECK_EQ_U64("flags d..1.: pid", ev.pid, 2);
	CHECK_EQ_U64("flags d..1.: ptr", ev.ptr, 0xff);
	parse_event("  kthreadd-2 [000] dN.2 2.25: kfree: ptr=ff", buf, &ev);
	CHECK_EQ_U64("flags dN.2: t_ns", ev.t_ns, 2250000000ull);
	CHECK_EQ_STR("no call_site: empty", ev.call_site, "");
	rc = parse("  kthreadd-2 [003] 7.000000001: kfree: ptr=ff", buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("no flags: returns 1", rc, 1);
	CHECK_EQ_U64("no flags: cpu", ev.cpu, 3);
	CHECK_EQ_U64("no flags: t_ns", ev.t_ns, 7000000001ull);

	/* Task names with '-', ':', '/', blanks and parentheses. */
	parse_event(" kworker/u4:1-45 [001] ..... 1.0: kfree: ptr=1", buf, &ev);
	CHECK_EQ_U64("task kworker/u4:1-45: pid", ev.pid, 45);
	parse_event("          <idle>-0       [001] ..s1. 1.0: kfree: ptr=1", buf, &ev);

	CHECK_EQ_U64("task <idle>-0: pid", ev.pid, 0);
	parse_event("  (udev-worker)-123 [001] ..... 1.0: kfree: ptr=1", buf, &ev);
	CHECK_EQ_U64("task (udev-worker)-123: pid", ev.pid, 123);
	parse_event("  Web Content-4567 [001] ..... 1.0: kfree: ptr=1", buf, &ev);
	CHECK_EQ_U64("task 'Web Content'-4567: pid", ev.pid, 4567);
	rc = parse("   CPU 0/KVM-2000 [001] ..... 1.0: kfree: ptr=1", buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("task 'CPU 0/KVM' (not a header): returns 1", rc, 1);
	CHECK_EQ_U64("task 'CPU 0/KVM': pid", ev.pid, 2000);
	/* The record-tgid option adds "(tgid)" before [cpu]. */
	parse_event("  bash-300   (    300) [000] ..... 1.0: kfree: ptr=1", buf, &ev);

	CHECK_EQ_U64("record-tgid: the group 300", ev.pid, 300 | TRACE_PID_GROUP);
	parse_event("  bash-301   (-------) [000] ..... 1.0: kfree: ptr=1", buf, &ev);

	CHECK_EQ_U64("record-tgid unknown: pid", ev.pid, 301);
	/* A thread: its process's tgid is what the mm model keys tasks by. */
	parse_event("  python3-21451   (  21410) [001] ..... 1.0: kfree: ptr=1", buf, &ev);
	CHECK_EQ_U64("record-tgid of a thread: its group", ev.pid, 21410 | TRACE_PID_GROUP);
	parse_event("  python3-21451   (      0) [001] ..... 1.0: kfree: ptr=1", buf, &ev);
	CHECK_EQ_U64("record-tgid 0: the pid", ev.pid, 21451);
	/* A hex ptr with 0x, or (null). */
	rc = parse("a-1 [000] 1.0: kfree: ptr=(null)", buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("ptr=(null): returns 1", rc, 1);
	CHECK_EQ_U64("ptr=(null): 0", ev.ptr, 0);
	parse_event("a-1 [000] 1.0: kfree: ptr=0xFFFF888003C3A000\r", buf, &ev);
	CHECK_EQ_U64("ptr upper-case hex, CR stripped", ev.ptr, 0xffff888003c3a000ull);
}

static void test_tracefs_54(void)
{
	char buf[BUF];
	struct trace_event ev;
	enum trace_line_kind kind;
	uint64_t lost;
	struct err e;
	int rc;

	/* 5.4 prints the _node events with a hex call_site and node=. */
	rc = parse("     kworker/0:1-12    [000] ....    12.345678: kmalloc_node: "
		   "call_site=ffffffff8123abcd ptr=00000000c0ffee11 bytes_req=300 bytes_alloc=512 "
		   "gfp_flags=GFP_KERNEL|__GFP_ACCOUNT node=0",
		   buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("5.4 kmalloc_node: returns 1", rc, 1);
	CHECK_EQ_U64("5.4 kmalloc_node: type", ev.type, TRACE_EV_KMALLOC_NODE);
	CHECK_EQ_U64("5.4 kmalloc_node: t_ns", ev.t_ns, 12345678000ull);
	CHECK_EQ_U64("5.4 kmalloc_node: cpu", ev.cpu, 0);
	CHECK_EQ_U64("5.4 kmalloc_node: pid", ev.pid, 12);
	CHECK_EQ_U64("5.4 kmalloc_node: ptr", ev.ptr, 0xc0ffee11ull);
	CHECK_EQ_U64("5.4 kmalloc_node: bytes_req", ev.bytes_req, 300);
	CHECK_EQ_U64("5.4 kmalloc_node: bytes_alloc", ev.bytes_alloc, 512);
	CHECK_EQ_U64("5.4 kmalloc_node: node", ev.node, 0);
	CHECK_EQ_U64("5.4 kmalloc_node: accounted absent", (uint64_t)(int64_t)ev.accounted,
		     (uint64_t)-1);
	CHECK_EQ_U64("5.4 kmalloc_node: gfp", ev.gfp, TRACE_GFP_KNOWN | TRACE_GFP_ACCOUNT);
	CHECK_EQ_STR("5.4 kmalloc_node: call_site hex text", ev.call_site, "ffffffff8123abcd");
	CHECK("5.4 kmalloc_node: no name", ev.name == NULL);

	/* Raw hex gfp: 0x400cc0 = GFP_KERNEL_ACCOUNT, 0x10 reclaimable,
	 * 0x1 DMA, 0xcc0 GFP_KERNEL (5.4 and 6.1 bit values). */
	parse_event("  a-1 [001] .... 3.5: kmem_cache_alloc_node: call_site=ffffffff81000001 "
		    "ptr=0000000012345678 bytes_req=192 bytes_alloc=256 gfp_flags=0x400cc0 node=1",
		    buf, &ev);

	CHECK_EQ_U64("5.4 cache_alloc_node: type", ev.type, TRACE_EV_CACHE_ALLOC_NODE);
	CHECK_EQ_U64("5.4 cache_alloc_node: node", ev.node, 1);
	CHECK_EQ_U64("gfp 0x400cc0: account", ev.gfp, TRACE_GFP_KNOWN | TRACE_GFP_ACCOUNT);
	parse_event("a-1 [001] 3.5: kmalloc: ptr=1 bytes_req=8 bytes_alloc=8 gfp_flags=0x10", buf,
		    &ev);

	CHECK_EQ_U64("gfp 0x10: reclaimable", ev.gfp, TRACE_GFP_KNOWN | TRACE_GFP_RECLAIMABLE);
	parse_event("a-1 [001] 3.5: kmalloc: ptr=1 bytes_req=8 bytes_alloc=8 gfp_flags=0xcc1", buf,
		    &ev);

	CHECK_EQ_U64("gfp 0xcc1: dma", ev.gfp, TRACE_GFP_KNOWN | TRACE_GFP_DMA);
	parse_event("a-1 [001] 3.5: kmalloc: ptr=1 bytes_req=8 bytes_alloc=8 gfp_flags=0xcc0", buf,
		    &ev);

	CHECK_EQ_U64("gfp 0xcc0: no type bit", ev.gfp, TRACE_GFP_KNOWN);
	/* Names with leftover bits, as __print_flags prints them. */
	parse_event("a-1 [001] 3.5: kmalloc: ptr=1 bytes_req=8 bytes_alloc=8 "
		    "gfp_flags=GFP_KERNEL|0x400000",
		    buf, &ev);

	CHECK_EQ_U64("gfp names|0x400000: account", ev.gfp, TRACE_GFP_KNOWN | TRACE_GFP_ACCOUNT);
	/* 5.4 kmem_cache_free has no name=. */
	parse_event("  a-1 [001] .... 3.6: kmem_cache_free: call_site=kmem_cache_free+0x1/0x2 "
		    "ptr=0000000012345678",
		    buf, &ev);

	CHECK_EQ_U64("5.4 cache_free: type", ev.type, TRACE_EV_CACHE_FREE);
	CHECK("5.4 cache_free: name absent", ev.name == NULL);
}

static void test_tracecmd(void)
{
	char buf[BUF];
	struct trace_event ev;
	enum trace_line_kind kind;
	uint64_t lost;
	struct err e;
	int rc;

	rc = parse("          <idle>-0     [000]  1234.567890: kmalloc:              "
		   "(__kmalloc_track_caller+0x2a) call_site=ffffffff812345 "
		   "ptr=0xffff8880041a3c00 bytes_req=6 bytes_alloc=8 gfp_flags=GFP_KERNEL",
		   buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("trace-cmd kmalloc: returns 1", rc, 1);
	CHECK_EQ_U64("trace-cmd kmalloc: type", ev.type, TRACE_EV_KMALLOC);
	CHECK_EQ_U64("trace-cmd kmalloc: t_ns", ev.t_ns, 1234567890000ull);
	CHECK_EQ_U64("trace-cmd kmalloc: cpu", ev.cpu, 0);
	CHECK_EQ_U64("trace-cmd kmalloc: pid", ev.pid, 0);
	CHECK_EQ_U64("trace-cmd kmalloc: ptr", ev.ptr, 0xffff8880041a3c00ull);
	CHECK_EQ_U64("trace-cmd kmalloc: bytes_req", ev.bytes_req, 6);
	CHECK_EQ_U64("trace-cmd kmalloc: bytes_alloc", ev.bytes_alloc, 8);
	CHECK_EQ_U64("trace-cmd kmalloc: node absent", (uint64_t)(int64_t)ev.node, (uint64_t)-1);
	CHECK_EQ_U64("trace-cmd kmalloc: gfp", ev.gfp, TRACE_GFP_KNOWN);
	CHECK_EQ_STR("trace-cmd kmalloc: symbol preferred", ev.call_site,
		     "__kmalloc_track_caller+0x2a");

	/* Latency column and 9 decimals. */
	parse_event("     bash-4242  [001] d..1  1234.567890123: kfree:                "
		    "(kfree_skb+0x10) call_site=ffffffff81777777 ptr=0xffff8880041a3c00",
		    buf, &ev);

	CHECK_EQ_U64("trace-cmd 9 decimals: t_ns", ev.t_ns, 1234567890123ull);
	CHECK_EQ_U64("trace-cmd d..1: pid", ev.pid, 4242);
	CHECK_EQ_U64("trace-cmd d..1: cpu", ev.cpu, 1);
	CHECK_EQ_STR("trace-cmd kfree: call_site", ev.call_site, "kfree_skb+0x10");
	/* Only a token without '=' is the symbol; "(x=1)" is some other field. */
	parse_event("  a-1 [000] 1.5: kfree: (x=1) call_site=f+0x1/0x2 ptr=1", buf, &ev);
	CHECK_EQ_STR("trace-cmd: '(x=1)' is not a symbol", ev.call_site, "f+0x1/0x2");

	/* libtraceevent's fallback when it cannot parse the print format. */
	rc = parse("  a-7 [000] 9.000001: kmalloc: [FAILED TO PARSE] call_site=0xffffffffa0123456 "
		   "ptr=0xffff888003c3a000 bytes_req=100 bytes_alloc=128 gfp_flags=4197568 "
		   "node=-1 accounted=1",
		   buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("FAILED TO PARSE: returns 1", rc, 1);
	CHECK_EQ_U64("FAILED TO PARSE: bytes_alloc", ev.bytes_alloc, 128);
	CHECK_EQ_U64("FAILED TO PARSE: decimal gfp 4197568 = 0x400cc0", ev.gfp,
		     TRACE_GFP_KNOWN | TRACE_GFP_ACCOUNT);
	CHECK_EQ_U64("FAILED TO PARSE: accounted=1", ev.accounted, 1);
	CHECK_EQ_STR("FAILED TO PARSE: call_site", ev.call_site, "0xffffffffa0123456");

	rc = parse("CPU:0 [120 EVENTS DROPPED]", buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("trace-cmd dropped: returns 0", rc, 0);
	CHECK_EQ_U64("trace-cmd dropped: kind", kind, TRACE_LINE_LOST);
	CHECK_EQ_U64("trace-cmd dropped: count", lost, 120);

	rc = parse("version = 6", buf, &ev, &kind, &lost, &e);
	CHECK("trace-cmd 'version = 6': header", rc == 0 && kind == TRACE_LINE_HEADER);
	rc = parse("cpus=2", buf, &ev, &kind, &lost, &e);
	CHECK("trace-cmd 'cpus=2': header", rc == 0 && kind == TRACE_LINE_HEADER);
	rc = parse("CPU 0 is empty", buf, &ev, &kind, &lost, &e);
	CHECK("trace-cmd 'CPU 0 is empty': header", rc == 0 && kind == TRACE_LINE_HEADER);
	rc = parse("CPU 1 data recorded at offset=0x5a8000", buf, &ev, &kind, &lost, &e);
	CHECK("trace-cmd 'CPU 1 data recorded': header", rc == 0 && kind == TRACE_LINE_HEADER);
}

static void test_perf(void)
{
	char buf[BUF];
	struct trace_event ev;
	enum trace_line_kind kind;
	uint64_t lost;
	struct err e;
	int rc;

	rc = parse("     swapper     0 [000]     0.000123:       kmem:kmalloc: "
		   "call_site=ffffffff81234567 ptr=0xffff888003c3a000 bytes_req=4 bytes_alloc=8 "
		   "gfp_flags=GFP_KERNEL",
		   buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("perf kmalloc: returns 1", rc, 1);
	CHECK_EQ_U64("perf kmalloc: type", ev.type, TRACE_EV_KMALLOC);
	CHECK_EQ_U64("perf kmalloc: t_ns", ev.t_ns, 123000);
	CHECK_EQ_U64("perf kmalloc: cpu", ev.cpu, 0);
	CHECK_EQ_U64("perf kmalloc: pid", ev.pid, 0);
	CHECK_EQ_U64("perf kmalloc: ptr", ev.ptr, 0xffff888003c3a000ull);
	CHECK_EQ_U64("perf kmalloc: bytes_req", ev.bytes_req, 4);
	CHECK_EQ_U64("perf kmalloc: bytes_alloc", ev.bytes_alloc, 8);
	CHECK_EQ_U64("perf kmalloc: gfp", ev.gfp, TRACE_GFP_KNOWN);
	CHECK_EQ_STR("perf kmalloc: call_site", ev.call_site, "ffffffff81234567");

	parse_event("  kworker/1:2  1234 [001]   100.5: kmem:kmem_cache_alloc_node: "
		    "call_site=ffffffff81234567 ptr=0xffff888003c3a100 bytes_req=200 "
		    "bytes_alloc=256 gfp_flags=GFP_ATOMIC|__GFP_NOWARN node=0",
		    buf, &ev);

	CHECK_EQ_U64("perf _node: type", ev.type, TRACE_EV_CACHE_ALLOC_NODE);
	CHECK_EQ_U64("perf _node: node", ev.node, 0);
	CHECK_EQ_U64("perf _node: pid", ev.pid, 1234);
	CHECK_EQ_U64("perf _node: t_ns", ev.t_ns, 100500000000ull);

	parse_event("  Web Content  4567/4570 [001] 5.5: kmem:kfree: call_site=ffffffff81234567 "
		    "ptr=0xffff888003c3a000",
		    buf, &ev);

	CHECK_EQ_U64("perf pid/tid: the process, a group", ev.pid, 4567 | TRACE_PID_GROUP);
	CHECK_EQ_U64("perf pid/tid: type", ev.type, TRACE_EV_KFREE);

	/* A probe named like a slab event is not one. */
	rc = parse("  a  1 [000] 1.0: probe:kfree: (ffffffff81234567)", buf, &ev, &kind, &lost, &e);
	CHECK("perf probe:kfree: other event", rc == 0 && kind == TRACE_LINE_OTHER_EVENT);
}

static void test_non_slab_lines(void)
{
	char buf[BUF];
	struct trace_event ev;
	enum trace_line_kind kind;
	uint64_t lost;
	struct err e;
	int rc;

	rc = parse("CPU:1 [LOST 123 EVENTS]", buf, &ev, &kind, &lost, &e);
	CHECK("LOST 123: kind", rc == 0 && kind == TRACE_LINE_LOST);
	CHECK_EQ_U64("LOST 123: count", lost, 123);
	lost = 7;
	rc = parse("CPU:1 [LOST EVENTS]", buf, &ev, &kind, &lost, &e);
	CHECK("LOST (unknown): kind", rc == 0 && kind == TRACE_LINE_LOST);
	CHECK_EQ_U64("LOST (unknown): count 0", lost, 0);

	rc = parse("# tracer: nop", buf, &ev, &kind, &lost, &e);
	CHECK("'# tracer': header", rc == 0 && kind == TRACE_LINE_HEADER);
	rc = parse("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION", buf, &ev, &kind,
		   &lost, &e);
	CHECK("column header: header", rc == 0 && kind == TRACE_LINE_HEADER);
	rc = parse("", buf, &ev, &kind, &lost, &e);
	CHECK("empty line: header", rc == 0 && kind == TRACE_LINE_HEADER);
	rc = parse(" \t \r", buf, &ev, &kind, &lost, &e);
	CHECK("blank line: header", rc == 0 && kind == TRACE_LINE_HEADER);

	/* the page allocator's allocations: ptr the physical address, the
	 * length from the order (sim/pgfree.h); gfp_flags= read past */
	rc = parse("  kswapd0-50 [000] ..... 9.1: mm_page_alloc: page=000000001 pfn=0x1a2b order=1 "
		   "migratetype=0 gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP",
		   buf, &ev, &kind, &lost, &e);
	CHECK("mm_page_alloc: an event", rc == 1 && kind == TRACE_LINE_EVENT);
	CHECK_EQ_U64("mm_page_alloc: type", ev.type, TRACE_EV_PAGE_ALLOC);
	CHECK_EQ_U64("mm_page_alloc: physical address", ev.ptr, 0x1a2b000);
	CHECK_EQ_U64("mm_page_alloc: length", ev.bytes_alloc, 8192);
	/* a failed allocation (SLUB's first try at a slab's higher order,
	 * __GFP_NORETRY) is traced with pfn -1: an event of 0 bytes */
	rc = parse("  kswapd0-50 [000] ..... 9.1: mm_page_alloc: page=0000000000000000 "
		   "pfn=0xffffffffffffffff order=3 migratetype=0 "
		   "gfp_flags=GFP_NOWAIT|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP",
		   buf, &ev, &kind, &lost, &e);
	CHECK("failed mm_page_alloc: an event", rc == 1 && kind == TRACE_LINE_EVENT);
	CHECK_EQ_U64("failed mm_page_alloc: no address", ev.ptr, 0);
	CHECK_EQ_U64("failed mm_page_alloc: no length", ev.bytes_alloc, 0);
	rc = parse("  kswapd0-50 [000] ..... 9.1: mm_page_free: page=0000000000000000 "
		   "pfn=0xffffffffffffffff order=0",
		   buf, &ev, &kind, &lost, &e);
	CHECK("mm_page_free with pfn -1: malformed", rc < 0);
	rc = parse("  kswapd0-50 [000] ..... 9.1: mm_page_alloc: page=000000001 order=0 "
		   "migratetype=0 gfp_flags=GFP_KERNEL",
		   buf, &ev, &kind, &lost, &e);
	CHECK("mm_page_alloc without pfn=: malformed", rc < 0);
	CHECK_EQ_STR("mm_page_alloc without pfn=: message", e.msg,
		     "expected 'pfn=0x<hex> order=<n>' in mm_page_alloc event, got no pfn field");
	rc = parse("  kswapd0-50 [000] ..... 9.1: mm_page_alloc_zone_locked: page=000000001 "
		   "pfn=0x1 order=0 migratetype=0 percpu_refill=1",
		   buf, &ev, &kind, &lost, &e);
	CHECK("mm_page_alloc_zone_locked: other event", rc == 0 && kind == TRACE_LINE_OTHER_EVENT);
	rc = parse("  <idle>-0 [001] d..2. 9.2: sched_switch: prev_comm=swapper/1 prev_pid=0 "
		   "prev_prio=120 prev_state=R ==> next_comm=kworker/1:1 next_pid=30",
		   buf, &ev, &kind, &lost, &e);
	CHECK("sched_switch: other event", rc == 0 && kind == TRACE_LINE_OTHER_EVENT);

	rc = parse("  bash-300 [000] ..... 10.5: tracing_mark_write:  phase=start boot \t", buf,
		   &ev, &kind, &lost, &e);
	CHECK_EQ_U64("marker: returns 1", rc, 1);
	CHECK_EQ_U64("marker: type", ev.type, TRACE_EV_MARKER);
	CHECK_EQ_STR("marker: text trimmed", ev.text, "phase=start boot");
	CHECK_EQ_U64("marker: t_ns", ev.t_ns, 10500000000ull);
	CHECK_EQ_U64("marker: pid", ev.pid, 300);
	parse_event("  bash-300 [000] ..... 10.6: tracing_mark_write:", buf, &ev);
	CHECK_EQ_STR("marker: empty text", ev.text, "");

	/* trace-cmd report: the ftrace print event with the writer's address
	 * resolved, or as hex when kallsyms were not recorded */
	parse_event("            bash-300   [000]    10.700000: print:                "
		    "tracing_mark_write: SNAP 3",
		    buf, &ev);
	CHECK_EQ_U64("trace-cmd print: type", ev.type, TRACE_EV_MARKER);
	CHECK_EQ_STR("trace-cmd print: text", ev.text, "SNAP 3");
	CHECK_EQ_U64("trace-cmd print: t_ns", ev.t_ns, 10700000000ull);
	parse_event("  bash-300 [001] 10.8: print: ffffffff8120e1a0: phase two", buf, &ev);
	CHECK_EQ_STR("trace-cmd print, hex ip: text", ev.text, "phase two");
	CHECK_EQ_U64("trace-cmd print, hex ip: cpu", ev.cpu, 1);
	/* perf script: "ftrace:print:" with the same body, or raw fields */
	parse_event("            bash   300 [000]    10.900000: ftrace:print: tracing_mark_write: "
		    "SNAP 4",
		    buf, &ev);
	CHECK_EQ_STR("perf ftrace:print: text", ev.text, "SNAP 4");
	parse_event("  bash 300 [000] 11.0: ftrace:print: ip=0xffffffff8120e1a0 buf=SNAP 5", buf,
		    &ev);
	CHECK_EQ_STR("perf ftrace:print ip= buf=: text", ev.text, "SNAP 5");
	CHECK_EQ_U64("perf ftrace:print: pid", ev.pid, 300);
	/* print events of other systems are other events */
	rc = parse("  bash 300 [000] 11.1: foo:print: x", buf, &ev, &kind, &lost, &e);
	CHECK("foo:print: other event", rc == 0 && kind == TRACE_LINE_OTHER_EVENT);
}

static void test_malformed(void)
{
	char buf[BUF];
	struct trace_event ev;
	enum trace_line_kind kind;
	uint64_t lost;
	struct err e;
	int rc;

	check_bad("bytes_req=abc",
		  "  a-1 [000] ..... 1.5: kmalloc: call_site=f+0x1/0x2 ptr=01 bytes_req=abc "
		  "bytes_alloc=8 gfp_flags=GFP_KERNEL",
		  "expected 'bytes_req=<n>', got 'bytes_req=abc'");
	check_bad("negative bytes_alloc",
		  "  a-1 [000] ..... 1.5: kmalloc: ptr=01 bytes_req=8 bytes_alloc=-8",
		  "expected 'bytes_alloc=<n>', got 'bytes_alloc=-8'");
	check_bad("bytes_req = 2^64 overflows",
		  "a-1 [000] 1.5: kmalloc: ptr=01 bytes_req=18446744073709551616 bytes_alloc=8",
		  "expected 'bytes_req=<n>', got 'bytes_req=18446744073709551616'");
	rc = parse("a-1 [000] 1.5: kmalloc: ptr=01 bytes_req=18446744073709551615 bytes_alloc=8",
		   buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("bytes_req = 2^64-1: accepted", rc, 1);
	CHECK_EQ_U64("bytes_req = 2^64-1: value", ev.bytes_req, UINT64_MAX);
	check_bad("bytes_req empty", "a-1 [000] 1.5: kmalloc: ptr=01 bytes_req= bytes_alloc=8",
		  "expected 'bytes_req=<n>', got 'bytes_req='");
	check_bad("ptr not hex", "a-1 [000] 1.5: kfree: call_site=x ptr=0xzz",
		  "expected 'ptr=<hex>', got 'ptr=0xzz'");
	check_bad("ptr over 64 bits", "a-1 [000] 1.5: kfree: ptr=0x1ffffffffffffffff",
		  "expected 'ptr=<hex>', got 'ptr=0x1ffffffffffffffff'");
	/* 16 digits take a fast path, other lengths a loop: both must agree. */
	check_bad("ptr of 16 digits, one not hex", "a-1 [000] 1.5: kfree: ptr=00000000a11f67bg",
		  "expected 'ptr=<hex>', got 'ptr=00000000a11f67bg'");
	check_bad("ptr 0x without digits", "a-1 [000] 1.5: kfree: ptr=0x",
		  "expected 'ptr=<hex>', got 'ptr=0x'");
	rc = parse("a-1 [000] 1.5: kfree: ptr=000000000000000000001", buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("ptr of 21 digits, leading zeros: accepted", rc, 1);
	CHECK_EQ_U64("ptr of 21 digits, leading zeros: value", ev.ptr, 1);
	check_bad("kfree without ptr", "a-1 [000] 1.5: kfree: call_site=f+0x1/0x2",
		  "expected 'ptr=<hex>' in kfree event, got no ptr field");
	check_bad("kmalloc without bytes_alloc",
		  "a-1 [000] 1.5: kmalloc: ptr=01 bytes_req=8 gfp_flags=GFP_KERNEL",
		  "expected 'bytes_alloc=<n>' in kmalloc event, got no bytes_alloc field");
	check_bad("cache_alloc without bytes_req",
		  "a-1 [000] 1.5: kmem_cache_alloc: ptr=01 bytes_alloc=8",
		  "expected 'bytes_req=<n>' in kmem_cache_alloc event, got no bytes_req field");
	check_bad("node not a number",
		  "a-1 [000] 1.5: kmalloc: ptr=1 bytes_req=8 bytes_alloc=8 node=x",
		  "expected 'node=<int>', got 'node=x'");
	check_bad("accounted=maybe",
		  "a-1 [000] 1.5: kmalloc: ptr=1 bytes_req=8 bytes_alloc=8 accounted=maybe",
		  "expected 'accounted=true|false', got 'accounted=maybe'");
	check_bad("gfp_flags with an empty item",
		  "a-1 [000] 1.5: kmalloc: ptr=1 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL||",
		  "expected 'gfp_flags=<flag>|...', got 'gfp_flags=GFP_KERNEL||'");
	check_bad("no [cpu]", "this line is not a trace line",
		  "expected '<task>-<pid> [<cpu>]' at the start of the line, got 'this line is not "
		  "a trace line'");
	check_bad("[cpu] over 32 bits", "a-1 [4294967296] 1.5: kfree: ptr=1",
		  "expected '[<cpu>]', got '[4294967296]'");
	check_bad("timestamp with a letter", "  a-1 [001] ..... 1.69x: kfree: ptr=1",
		  "expected '<seconds>.<fraction>:' after '[<cpu>]', got '1.69x:'");
	check_bad("timestamp with 10 decimals", "  a-1 [001] 1.0123456789: kfree: ptr=1",
		  "expected '<seconds>.<fraction>:' after '[<cpu>]', got '1.0123456789:'");
	check_bad("timestamp without fraction", "  a-1 [001] 1695477: kfree: ptr=1",
		  "expected '<seconds>.<fraction>:' after '[<cpu>]', got '1695477:'");
	check_bad("timestamp missing", "  a-1 [001] .....",
		  "expected '<seconds>.<fraction>:' "
		  "after '[<cpu>]', got end of line");
	check_bad("seconds overflow ns", "  a-1 [001] 18446744074.0: kfree: ptr=1",
		  "expected '<seconds>.<fraction>:' after '[<cpu>]', got '18446744074.0:'");
	rc = parse("  a-1 [001] 18446744073.709551615: kfree: ptr=1", buf, &ev, &kind, &lost, &e);
	CHECK_EQ_U64("largest timestamp: accepted", rc, 1);
	CHECK_EQ_U64("largest timestamp: value", ev.t_ns, UINT64_MAX);
	check_bad("timestamp 1 ns past 2^64-1", "  a-1 [001] 18446744073.709551616: kfree: ptr=1",
		  "expected '<seconds>.<fraction>:' after '[<cpu>]', got "
		  "'18446744073.709551616:'");
	check_bad("no event name", "  a-1 [001] ..... 1.5: ",
		  "expected '<event>:' after the timestamp, got end of line");
	check_bad("event without colon", "  a-1 [001] ..... 1.5: kmalloc ptr=1",
		  "expected '<event>:' after the timestamp, got 'kmalloc'");
	check_bad("pid over 31 bits", "  a-99999999999 [001] 1.5: kfree: ptr=1",
		  "expected '<task>-<pid>', got 'a-99999999999'");
	check_bad("control bytes quoted as '?'", "\x01\x02 junk",
		  "expected '<task>-<pid> [<cpu>]' at the start of the line, got '?? junk'");
}

/* ---- Whole files ------------------------------------------------------------- */

struct counts {
	int rc; /* last trace_next() result */
	uint64_t events[TRACE_EV_NR];
	uint64_t sum_req, sum_alloc, account, acpi_state_frees;
	uint64_t last_line;
	char msg[SLABSIM_ERR_MSG_MAX];
};

static int read_all(const char *path, bool strict, struct counts *c, struct trace_stats *st_out,
		    uint64_t *done, uint64_t *total)
{
	struct trace_opts opts = {.strict = strict};
	struct trace_reader *r;
	struct trace_event ev;
	struct err e;
	int rc;

	memset(c, 0, sizeof(*c));
	if (st_out)
		memset(st_out, 0, sizeof(*st_out));
	if (done)
		*done = *total = UINT64_MAX;
	err_clear(&e);
	rc = trace_open(path, &opts, &r, &e);
	if (rc) {
		c->rc = rc;
		(void)snprintf(c->msg, sizeof(c->msg), "%s", e.msg);
		return rc;
	}
	while ((rc = trace_next(r, &ev, &e)) == 1) {
		c->events[ev.type]++;
		c->last_line = ev.line;
		if (ev.type == TRACE_EV_KMALLOC || ev.type == TRACE_EV_CACHE_ALLOC) {
			c->sum_req += ev.bytes_req;
			c->sum_alloc += ev.bytes_alloc;
		}
		if (ev.gfp & TRACE_GFP_ACCOUNT)
			c->account++;
		if (ev.type == TRACE_EV_CACHE_FREE && ev.name && strcmp(ev.name, "Acpi-State") == 0)
			c->acpi_state_frees++;
	}
	c->rc = rc;
	if (rc < 0)
		(void)snprintf(c->msg, sizeof(c->msg), "%s", e.msg);
	if (st_out)
		*st_out = *trace_stats(r);
	if (done)
		trace_progress(r, done, total);
	trace_close(r);
	return rc;
}

/* Numbers for the bundled sample, derived with:
 *   grep -v '^#' linux-6.1-boot-excerpt.trace | awk '{print $5}' | sort | uniq -c
 *     -> 646 kmalloc:, 1006 kmem_cache_alloc:, 570 kfree:, 778 kmem_cache_free:
 *   grep -c '^#' ... -> 12;  wc -l ... -> 3012
 *   awk '$0 !~ /^#/ && ($5=="kmalloc:" || $5=="kmem_cache_alloc:") { for (i=6;i<=NF;i++)
 *     { split($i,kv,"="); if (kv[1]=="bytes_req") r+=kv[2]; if (kv[1]=="bytes_alloc")
 *     a+=kv[2]; } } END { print r, a }' ...  -> 241036 315552
 *   grep -c -E 'accounted=true|gfp_flags=[^ ]*ACCOUNT' ... -> 23
 *   grep -c 'kmem_cache_free: .* name=Acpi-State$' ... -> 356
 */
static void check_sample_counts(const char *what, const struct counts *c, uint64_t times)
{
	char name[160];

#define SAMPLE_CHECK(field, want)                                                                  \
	do {                                                                                       \
		(void)snprintf(name, sizeof(name), "%s: %s", what, #field);                        \
		CHECK_EQ_U64(name, c->field, (uint64_t)(want)*times);                              \
	} while (0)
	(void)snprintf(name, sizeof(name), "%s: ends with 0", what);
	CHECK_EQ_U64(name, (uint64_t)(int64_t)c->rc, 0);
	SAMPLE_CHECK(events[TRACE_EV_KMALLOC], 646);
	SAMPLE_CHECK(events[TRACE_EV_CACHE_ALLOC], 1006);
	SAMPLE_CHECK(events[TRACE_EV_KFREE], 570);
	SAMPLE_CHECK(events[TRACE_EV_CACHE_FREE], 778);
	SAMPLE_CHECK(events[TRACE_EV_KMALLOC_NODE], 0);
	SAMPLE_CHECK(events[TRACE_EV_MARKER], 0);
	SAMPLE_CHECK(sum_req, 241036);
	SAMPLE_CHECK(sum_alloc, 315552);
	SAMPLE_CHECK(account, 23);
	SAMPLE_CHECK(acpi_state_frees, 356);
#undef SAMPLE_CHECK
	(void)snprintf(name, sizeof(name), "%s: last event line", what);
	CHECK_EQ_U64(name, c->last_line, 3012 * times);
}

static void check_sample_stats(const char *what, const struct trace_stats *st, uint64_t times)
{
	char name[160];
	uint64_t sum = st->header_lines + st->other_events + st->malformed + st->lost_markers;

	for (int t = 0; t < TRACE_EV_NR; t++)
		sum += st->events[t];
	(void)snprintf(name, sizeof(name), "%s: lines", what);
	CHECK_EQ_U64(name, st->lines, 3012 * times);
	(void)snprintf(name, sizeof(name), "%s: every line counted once", what);
	CHECK_EQ_U64(name, sum, st->lines);
	(void)snprintf(name, sizeof(name), "%s: header lines", what);
	CHECK_EQ_U64(name, st->header_lines, 12 * times);
	(void)snprintf(name, sizeof(name), "%s: malformed", what);
	CHECK_EQ_U64(name, st->malformed, 0);
	(void)snprintf(name, sizeof(name), "%s: lost markers", what);
	CHECK_EQ_U64(name, st->lost_markers, 0);
	(void)snprintf(name, sizeof(name), "%s: other events", what);
	CHECK_EQ_U64(name, st->other_events, 0);
}

static bool write_file(const char *path, const char *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(data, 1, n, f) == n;

	if (f && fclose(f) != 0)
		ok = false;
	return ok;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		data = malloc((size_t)len + 1);
		if (data && fread(data, 1, (size_t)len, f) != (size_t)len) {
			free(data);
			data = NULL;
		}
		*n = (size_t)len;
	}
	(void)fclose(f);
	return data;
}

static void test_sample(const char *sample, const char *tmpdir)
{
	struct counts c;
	struct trace_stats st;
	uint64_t done, total;
	char path[512];
	size_t n = 0;
	char *data;
	int fd, saved;

	read_all(sample, false, &c, &st, &done, &total);
	check_sample_counts("sample", &c, 1);
	check_sample_stats("sample", &st, 1);
	CHECK_EQ_U64("sample: progress total = file size", total, 540683);
	CHECK_EQ_U64("sample: progress done = total at end", done, total);

	read_all(sample, true, &c, &st, NULL, NULL);
	check_sample_counts("sample, strict", &c, 1);

	/* Three copies: 1.6 MB, more than the 1 MiB buffer, so lines cross
	 * refills; and no trailing newline on the last line. */
	data = slurp(sample, &n);
	CHECK("sample: read for copies", data != NULL && n == 540683);
	if (data) {
		FILE *f;
		(void)snprintf(path, sizeof(path), "%s/x3.trace", tmpdir);
		f = fopen(path, "wb");
		for (int i = 0; f && i < 3; i++)
			(void)fwrite(data, 1, i == 2 ? n - 1 : n, f);
		CHECK("write x3.trace", f && fclose(f) == 0);
		read_all(path, false, &c, &st, NULL, NULL);
		check_sample_counts("sample x3, no final newline", &c, 3);
		check_sample_stats("sample x3, no final newline", &st, 3);
		unlink(path);
		free(data);
	}

	/* stdin as "-". */
	saved = dup(STDIN_FILENO);
	fd = open(sample, O_RDONLY);
	if (saved >= 0 && fd >= 0 && dup2(fd, STDIN_FILENO) == STDIN_FILENO) {
		read_all("-", false, &c, &st, &done, &total);
		check_sample_counts("stdin", &c, 1);
		/* stdin redirected from a file: its size is known */
		CHECK_EQ_U64("stdin: progress total", total, 540683);
		CHECK_EQ_U64("stdin: progress done", done, 540683);
		CHECK("stdin: restore", dup2(saved, STDIN_FILENO) == STDIN_FILENO);
	} else {
		CHECK("stdin: redirect", false);
	}
	if (fd >= 0)
		close(fd);
	if (saved >= 0)
		close(saved);
}

static void test_compressed(const char *what, const char *path, const char *tmpdir)
{
	struct counts c;
	struct trace_stats st;
	uint64_t done, total;
	struct stat sb;
	char name[128], tpath[512], want[700];
	size_t n = 0;
	char *data;

	if (!path[0]) {
		printf("ok %u - %s # SKIP program not found at configure time\n", ++check_n, what);
		return;
	}
	read_all(path, false, &c, &st, &done, &total);
	check_sample_counts(what, &c, 1);
	check_sample_stats(what, &st, 1);
	(void)snprintf(name, sizeof(name), "%s: progress total = compressed size", what);
	CHECK_EQ_U64(name, total, stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 1);
	(void)snprintf(name, sizeof(name), "%s: progress done = total at end", what);
	CHECK_EQ_U64(name, done, total);

	/* Closing early: the child, blocked on a full pipe (the trace is 540 kB,
	 * a pipe holds 64 kB), must die of SIGPIPE and be reaped, not hang. */
	{
		struct trace_reader *r;
		struct trace_event ev;
		struct err e;
		(void)snprintf(name, sizeof(name), "%s: close after one event", what);
		CHECK(name, trace_open(path, NULL, &r, &e) == 0 && trace_next(r, &ev, &e) == 1 &&
				    ev.line == 13);
		trace_close(r);
	}

	/* The first half of the file: the decompressor fails at EOF. */
	data = slurp(path, &n);
	(void)snprintf(tpath, sizeof(tpath), "%s/truncated%s", tmpdir, strrchr(path, '.'));
	if (data && write_file(tpath, data, n / 2)) {
		read_all(tpath, false, &c, &st, NULL, NULL);
		(void)snprintf(name, sizeof(name), "%s truncated: SLABSIM_EIO", what);
		CHECK_EQ_U64(name, (uint64_t)(int64_t)c.rc, (uint64_t)(int64_t)SLABSIM_EIO);
		(void)snprintf(want, sizeof(want), "%s: decompressor '%s' failed (exit ", tpath,
			       strcmp(what, "gz") == 0	 ? "gzip"
			       : strcmp(what, "xz") == 0 ? "xz"
							 : "zstd");
		(void)snprintf(name, sizeof(name), "%s truncated: message", what);
		if (!CHECK(name, strncmp(c.msg, want, strlen(want)) == 0))
			printf("#   got '%s', want prefix '%s'\n", c.msg, want);
		(void)snprintf(name, sizeof(name), "%s truncated: some events before the error",
			       what);
		CHECK(name, c.events[TRACE_EV_KMALLOC] > 0);
		unlink(tpath);
	} else {
		CHECK("write truncated copy", false);
	}
	free(data);
}

static void test_files(const char *data_dir, const char *tmpdir)
{
	struct counts c;
	struct trace_stats st;
	char path[512], want[700];
	struct trace_reader *r;
	struct trace_event ev;
	struct trace_opts strict = {.strict = true};
	struct err e;
	int rc;

	/* Missing files, compressed or not, fail in trace_open. */
	(void)snprintf(path, sizeof(path), "%s/no-such.trace", tmpdir);
	rc = read_all(path, false, &c, NULL, NULL, NULL);
	CHECK_EQ_U64("missing file: SLABSIM_EIO", (uint64_t)(int64_t)rc,
		     (uint64_t)(int64_t)SLABSIM_EIO);
	(void)snprintf(want, sizeof(want), "%s: No such file or directory", path);
	CHECK_EQ_STR("missing file: message", c.msg, want);
	(void)snprintf(path, sizeof(path), "%s/no-such.trace.xz", tmpdir);
	rc = read_all(path, false, &c, NULL, NULL, NULL);
	CHECK_EQ_U64("missing .xz: SLABSIM_EIO", (uint64_t)(int64_t)rc,
		     (uint64_t)(int64_t)SLABSIM_EIO);
	(void)snprintf(want, sizeof(want), "%s: No such file or directory", path);
	CHECK_EQ_STR("missing .xz: message", c.msg, want);
	rc = read_all(tmpdir, false, &c, NULL, NULL, NULL);
	CHECK_EQ_U64("directory: SLABSIM_EIO", (uint64_t)(int64_t)rc,
		     (uint64_t)(int64_t)SLABSIM_EIO);
	(void)snprintf(want, sizeof(want), "%s: Is a directory", tmpdir);
	CHECK_EQ_STR("directory: message", c.msg, want);

	/* A decompressor that is not installed. */
	{
		const char *old_path = getenv("PATH");
		char *saved = old_path ? strdup(old_path) : NULL;
		(void)snprintf(path, sizeof(path), "%s/nothing.gz", tmpdir);
		/* gzip's magic and header: recognised, then gzip is needed */
		CHECK("write nothing.gz",
		      write_file(path, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10));
		setenv("PATH", tmpdir, 1);
		rc = read_all(path, false, &c, NULL, NULL, NULL);
		if (saved)
			setenv("PATH", saved, 1);
		free(saved);
		CHECK_EQ_U64("no gzip in PATH: SLABSIM_EIO", (uint64_t)(int64_t)rc,
			     (uint64_t)(int64_t)SLABSIM_EIO);
		(void)snprintf(want, sizeof(want),
			       "%s: cannot run 'gzip': No such file or directory", path);
		CHECK_EQ_STR("no gzip in PATH: message", c.msg, want);
		unlink(path);
	}

	/* Not xz data behind an .xz name: read by content, text that is no
	 * trace. */
	(void)snprintf(path, sizeof(path), "%s/garbage.xz", tmpdir);
	CHECK("write garbage.xz", write_file(path, "not xz at all\n", 14));
	rc = read_all(path, false, &c, NULL, NULL, NULL);
	CHECK_EQ_U64("garbage .xz: SLABSIM_EINPUT", (uint64_t)(int64_t)rc,
		     (uint64_t)(int64_t)SLABSIM_EINPUT);
	CHECK("garbage .xz: not a kernel trace",
	      strstr(c.msg, "not a kernel trace: none of its 1 lines") != NULL);
	unlink(path);

	/* Malformed line 3: counted and skipped by default... */
	(void)snprintf(path, sizeof(path), "%s/strict-line3.trace", data_dir);
	read_all(path, false, &c, &st, NULL, NULL);
	CHECK_EQ_U64("line 3 lenient: ends with 0", (uint64_t)(int64_t)c.rc, 0);
	CHECK_EQ_U64("line 3 lenient: kfree events", c.events[TRACE_EV_KFREE], 2);
	CHECK_EQ_U64("line 3 lenient: malformed", st.malformed, 1);
	CHECK_EQ_U64("line 3 lenient: first_malformed_line", st.first_malformed_line, 3);
	CHECK_EQ_STR("line 3 lenient: first_malformed_msg", st.first_malformed_msg,
		     "expected 'bytes_req=<n>', got 'bytes_req=abc'");
	/* ...and an error with path:line in strict mode. */
	rc = trace_open(path, &strict, &r, &e);
	CHECK_EQ_U64("line 3 strict: open", (uint64_t)(int64_t)rc, 0);
	if (rc == 0) {
		CHECK_EQ_U64("line 3 strict: line 2 is an event", trace_next(r, &ev, &e), 1);
		CHECK_EQ_U64("line 3 strict: event line", ev.line, 2);
		rc = trace_next(r, &ev, &e);
		CHECK_EQ_U64("line 3 strict: SLABSIM_EINPUT", (uint64_t)(int64_t)rc,
			     (uint64_t)(int64_t)SLABSIM_EINPUT);
		(void)snprintf(want, sizeof(want),
			       "%s:3: expected 'bytes_req=<n>', got 'bytes_req=abc'", path);
		CHECK_EQ_STR("line 3 strict: message", e.msg, want);
		CHECK_EQ_U64("line 3 strict: continues after the error", trace_next(r, &ev, &e), 1);
		CHECK_EQ_U64("line 3 strict: next event line", ev.line, 4);
		CHECK_EQ_U64("line 3 strict: then EOF", trace_next(r, &ev, &e), 0);
		CHECK_EQ_STR("trace_path", trace_path(r), path);
		trace_close(r);
	}

	/* Formats, headers, lost markers, other events, a marker, garbage. */
	(void)snprintf(path, sizeof(path), "%s/mixed.trace", data_dir);
	read_all(path, false, &c, &st, NULL, NULL);
	CHECK_EQ_U64("mixed: ends with 0", (uint64_t)(int64_t)c.rc, 0);
	CHECK_EQ_U64("mixed: lines", st.lines, 15);
	CHECK_EQ_U64("mixed: header lines", st.header_lines, 6);
	CHECK_EQ_U64("mixed: kmalloc", c.events[TRACE_EV_KMALLOC], 1);
	CHECK_EQ_U64("mixed: kfree", c.events[TRACE_EV_KFREE], 1);
	CHECK_EQ_U64("mixed: kmem_cache_free", c.events[TRACE_EV_CACHE_FREE], 1);
	CHECK_EQ_U64("mixed: markers", c.events[TRACE_EV_MARKER], 1);
	CHECK_EQ_U64("mixed: stats agree", st.events[TRACE_EV_MARKER], 1);
	CHECK_EQ_U64("mixed: other events", st.other_events, 1);
	CHECK_EQ_U64("mixed: lost markers", st.lost_markers, 3);
	CHECK_EQ_U64("mixed: lost events", st.lost_events, 123 + 120);
	CHECK_EQ_U64("mixed: malformed", st.malformed, 1);
	CHECK_EQ_U64("mixed: first malformed line", st.first_malformed_line, 12);

	/* CRLF, a NUL byte, a 2 MiB line and a 100 kB marker, made here. */
	{
		static const char ok[] = "  a-1 [000] ..... 1.5: kfree: call_site=f+0x1/0x2 ptr=1";
		static const char nul_prefix[] = "  a-1 [000] 1.7: kfree: ptr="; /* 28 bytes */
		size_t big = 2u << 20, mid = 100000;
		size_t cap = 4 * sizeof(ok) + 2 * big + mid + 256, n = 0;
		char *d = malloc(cap);

		if (!d) {
			CHECK("allocate test file", false);
			return;
		}
		n += (size_t)sprintf(d + n, "%s\r\n", ok);			  /* 1: CRLF */
		n += (size_t)sprintf(d + n, "  a-1 [000] 1.6: kfree: ptr=1\r\n"); /* 2 */
		n += (size_t)sprintf(d + n, "%s", nul_prefix);			  /* 3: NUL */
		d[n++] = '\0';
		d[n++] = '1';
		d[n++] = '\n';
		memset(d + n, 'x', big); /* 4: too long */
		n += big;
		d[n++] = '\n';
		n += (size_t)sprintf(d + n, "%s\n", ok); /* 5 */
		n += (size_t)sprintf(d + n, "  a-1 [000] 1.8: tracing_mark_write: ");
		memset(d + n, 'm', mid); /* 6: long but fine */
		n += mid;
		d[n++] = '\n';
		memset(d + n, 'y', big); /* 7: too long, last, no newline */
		n += big;
		(void)snprintf(path, sizeof(path), "%s/odd.trace", tmpdir);
		CHECK("write odd.trace", write_file(path, d, n));
		free(d);

		read_all(path, false, &c, &st, NULL, NULL);
		CHECK_EQ_U64("odd: ends with 0", (uint64_t)(int64_t)c.rc, 0);
		CHECK_EQ_U64("odd: lines", st.lines, 7);
		CHECK_EQ_U64("odd: CRLF lines parse", c.events[TRACE_EV_KFREE], 3);
		CHECK_EQ_U64("odd: long marker parses", c.events[TRACE_EV_MARKER], 1);
		CHECK_EQ_U64("odd: NUL and two long lines malformed", st.malformed, 3);
		CHECK_EQ_U64("odd: first malformed line", st.first_malformed_line, 3);
		CHECK_EQ_STR("odd: NUL message", st.first_malformed_msg,
			     "expected text, got a NUL byte at column 29");

		rc = trace_open(path, &strict, &r, &e);
		CHECK_EQ_U64("odd strict: open", (uint64_t)(int64_t)rc, 0);
		if (rc)
			return;
		while ((rc = trace_next(r, &ev, &e)) == 1)
			;
		(void)snprintf(want, sizeof(want),
			       "%s:3: expected text, got a NUL byte at column 29", path);
		CHECK_EQ_U64("odd strict: NUL gives SLABSIM_EINPUT", (uint64_t)(int64_t)rc,
			     (uint64_t)(int64_t)SLABSIM_EINPUT);
		CHECK_EQ_STR("odd strict: NUL error", e.msg, want);
		while ((rc = trace_next(r, &ev, &e)) == 1)
			;
		(void)snprintf(want, sizeof(want),
			       "%s:4: expected a line of at most 1048576 bytes, got a longer one",
			       path);
		CHECK_EQ_U64("odd strict: long line gives SLABSIM_EINPUT", (uint64_t)(int64_t)rc,
			     (uint64_t)(int64_t)SLABSIM_EINPUT);
		CHECK_EQ_STR("odd strict: long line error", e.msg, want);
		trace_close(r);
		unlink(path);
	}
	trace_close(NULL);
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/slabsim-test-trace-XXXXXX";
	char *tmpdir;

	if (argc < 6) {
		(void)fprintf(stderr, "usage: %s sample data-dir sample.gz sample.xz sample.zst\n",
			      argv[0]);
		return 2;
	}
	tmpdir = mkdtemp(tmpl);
	if (!tmpdir) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_tracefs_61();
	test_tracefs_54();
	test_tracecmd();
	test_perf();
	test_non_slab_lines();
	test_malformed();
	test_sample(argv[1], tmpdir);
	test_compressed("gz", argv[3], tmpdir);
	test_compressed("xz", argv[4], tmpdir);
	test_compressed("zst", argv[5], tmpdir);
	test_files(argv[2], tmpdir);
	rmdir(tmpdir);
	return check_done();
}
