/* fuzz_workload.c - libFuzzer harness for the workload-spec parser
 * (traces/workload.h) and the generator that reads what it parsed
 * (traces/synth.h).
 *
 * The input is a spec named "fuzz.wl". A failed parse must be bad input
 * (SLABSIM_EINPUT) naming "fuzz.wl:LINE: expected "; the only exceptions
 * are `empirical @FILE` lines, which may name a file that cannot be read
 * (SLABSIM_EIO, still "fuzz.wl:LINE:") or one that is malformed (its own
 * "PATH:LINE:"). A parsed spec drives the generator for at most MAX_EVENTS
 * events and MAX_DURATION (5 ms) of virtual time, and each event must be one that
 * the spec allows and the replay accepts: times never go backwards and stay
 * below the duration, CPUs below the spec's cpus, allocation sizes in
 * 1..4 MiB with bytes_alloc == bytes_req (no model here), frees of pointers
 * allocated before and not yet freed, and the tracefs line that `synth -o`
 * writes for it parses back (trace_parse_line) into the same event.
 */
#include "synth.h"
#include "trace.h"
#include "workload.h"

#include <gsl/gsl_rng.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME	   "fuzz.wl"
#define MAX_EVENTS 2000
/* 5 ms of virtual time: a spec may ask for 5e8 burst arrivals a second that
 * emit nothing (bursts joining a running burst), so the event cap alone
 * does not bound the work; 5 ms is at most 2.5e6 arrivals (~2 s here) */
#define MAX_DURATION UINT64_C(5000000)
#define MAX_SIZE     (UINT64_C(4) << 20)
#define NLIVE	     MAX_EVENTS

static void fail(const char *what, uint64_t n)
{
	fprintf(stderr, "fuzz_workload: event %" PRIu64 ": %s\n", n, what);
	abort();
}

/* "NAME:LINE: " with LINE >= 1 at the start of msg. */
static bool names_line(const char *msg, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(msg, name, n) != 0 || msg[n] != ':' || msg[n + 1] < '1' || msg[n + 1] > '9')
		return false;
	const char *p = msg + n + 1;
	while (*p >= '0' && *p <= '9')
		p++;
	return p[0] == ':' && p[1] == ' ';
}

static void check_error(int rc, const char *msg, const uint8_t *data, size_t size)
{
	bool at_file = memchr(data, '@', size) != NULL;
	if (rc == SLABSIM_EINPUT && names_line(msg, NAME) &&
	    !strncmp(msg + strcspn(msg, " ") + 1, "expected ", 9))
		return;
	if (at_file && rc == SLABSIM_EIO && names_line(msg, NAME))
		return; /* empirical @FILE that cannot be read */
	if (at_file && rc == SLABSIM_EINPUT && strstr(msg, ": expected 'SIZE WEIGHT'"))
		return; /* a line of that file, named by its own path */
	fprintf(stderr, "fuzz_workload: parse failed with rc %d and '%s'\n", rc, msg);
	abort();
}

/* Live pointers of the generated events (a small open-addressing set). */
static uint64_t live[2 * NLIVE];
static bool live_op(uint64_t p, bool add)
{
	size_t i = (size_t)((p >> 5) * 0x9e3779b97f4a7c15u % (2 * NLIVE));
	for (;; i = (i + 1) % (2 * NLIVE)) {
		if (live[i] == p) {
			if (!add)
				live[i] = 1; /* tombstone */
			return !add;
		}
		if (!live[i]) {
			if (add)
				live[i] = p;
			return add;
		}
	}
}

/* The line synth -o writes for ev must parse back into ev. */
static void round_trip(const struct trace_event *ev, uint64_t n)
{
	static char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	if (!f)
		abort();
	int rc = synth_write_event(f, ev);
	long len = ftell(f);
	fclose(f);
	if (rc || len <= 0 || (size_t)len >= sizeof(buf) || buf[len - 1] != '\n')
		fail("synth_write_event failed or wrote no whole line", n);
	buf[len - 1] = '\0';
	struct trace_event back;
	enum trace_line_kind kind;
	uint64_t lost;
	struct err e;
	rc = trace_parse_line(buf, &back, &kind, &lost, &e);
	if (rc != 1) {
		fprintf(stderr, "fuzz_workload: written line '%s' does not parse back: %s\n", buf,
			rc < 0 ? e.msg : "not an event");
		abort();
	}
	if (back.type != ev->type || back.t_ns != ev->t_ns || back.cpu != ev->cpu ||
	    (ev->type != TRACE_EV_MARKER &&
	     (back.ptr != ev->ptr || strcmp(back.call_site, ev->call_site) != 0)) ||
	    back.bytes_req != ev->bytes_req || back.bytes_alloc != ev->bytes_alloc ||
	    (ev->type == TRACE_EV_CACHE_FREE && strcmp(back.name, ev->name) != 0)) {
		fprintf(stderr, "fuzz_workload: written line '%s' parses into another event\n",
			buf);
		abort();
	}
}

static void generate(const struct workload *w)
{
	bool has_seed, has_dur;
	uint64_t seed = workload_seed(w, &has_seed);
	uint64_t dur = workload_duration_ns(w, &has_dur);
	uint32_t cpus = workload_cpus(w);
	struct synth *g;
	struct err e;

	if (!has_dur || dur > MAX_DURATION)
		dur = MAX_DURATION;
	if (!cpus)
		fail("a parsed spec with 0 CPUs", 0);
	int rc = synth_create(w, has_seed ? seed : 1, dur, NULL, &g, &e);
	if (rc == SLABSIM_EUSAGE && workload_nr_streams(w) > 1000)
		return; /* more streams than the generator's queue can tag */
	if (rc) {
		fprintf(stderr, "fuzz_workload: synth_create: rc %d '%s'\n", rc, e.msg);
		abort();
	}
	memset(live, 0, sizeof(live));
	struct trace_event ev;
	uint64_t n = 0, t = 0;
	while (n < MAX_EVENTS && (rc = synth_next(g, &ev, &e)) == 1) {
		n++;
		if (ev.line != n)
			fail("event numbers are not 1, 2, 3, ...", n);
		if (ev.t_ns < t || ev.t_ns >= dur)
			fail("time goes backwards or past the duration", n);
		t = ev.t_ns;
		if (ev.cpu >= cpus)
			fail("CPU not below the spec's cpus", n);
		switch (ev.type) {
		case TRACE_EV_KMALLOC:
		case TRACE_EV_CACHE_ALLOC:
			if (!ev.bytes_req || ev.bytes_req > MAX_SIZE ||
			    ev.bytes_alloc != ev.bytes_req)
				fail("allocation size outside 1..4 MiB", n);
			if (ev.type == TRACE_EV_CACHE_ALLOC && !ev.name)
				fail("kmem_cache_alloc without a cache name", n);
			if (!ev.ptr || !live_op(ev.ptr, true))
				fail("allocation of a null or live pointer", n);
			break;
		case TRACE_EV_KFREE:
		case TRACE_EV_CACHE_FREE:
			/* the allocation may lie beyond MAX_EVENTS only if it
			 * was never seen: every free follows its allocation */
			if (!live_op(ev.ptr, false))
				fail("free of a pointer not allocated or already freed", n);
			break;
		case TRACE_EV_MARKER:
			if (!ev.text)
				fail("marker without text", n);
			break;
		default:
			fail("an event type the generator does not make", n);
		}
		round_trip(&ev, n);
	}
	if (rc < 0) {
		fprintf(stderr, "fuzz_workload: synth_next: rc %d '%s'\n", rc, e.msg);
		abort();
	}
	struct synth_stats st;
	synth_stats(g, &st);
	if (st.events != n || st.allocs + st.frees > n || st.pending > st.peak_pending)
		fail("generator counters disagree with the events", n);
	synth_destroy(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gsl_rng *r;
	struct workload *w = NULL;
	struct err e;

	err_clear(&e);
	int rc = workload_parse(NAME, (const char *)data, size, &w, &e);
	if (rc) {
		check_error(rc, e.msg, data, size);
		return 0;
	}
	/* the accessors, on every parsed spec */
	const char *h = workload_hash(w);
	if (!workload_name(w) || !*workload_name(w) || strlen(h) != 16 ||
	    strspn(h, "0123456789abcdef") != 16 || strcmp(workload_path(w), NAME) != 0 ||
	    !workload_rng_name(w) || !workload_nr_streams(w) || !workload_nr_phases(w))
		fail("a parsed spec's name, hash, path, rng or counts", 0);
	for (uint32_t i = 0; i < workload_nr_caches(w); i++) {
		struct workload_cache c;
		workload_cache(w, i, &c);
		if (!c.name || !c.object_size || c.object_size > MAX_SIZE ||
		    c.usersize > c.object_size || (c.align & (c.align - 1)))
			fail("a parsed [cache] section", 0);
	}
	/* each stream's distributions directly, then the generator */
	if (!r && !(r = gsl_rng_alloc(gsl_rng_mt19937)))
		abort();
	gsl_rng_set(r, 1);
	for (uint32_t i = 0; i < workload_nr_streams(w) && i < 64; i++) {
		for (int k = 0; k < 8; k++) {
			uint64_t s = synth_draw_size(w, i, r);
			if (!s || s > MAX_SIZE)
				fail("synth_draw_size outside 1..4 MiB", 0);
			(void)synth_draw_lifetime(w, i, r);
		}
	}
	generate(w);
	workload_free(w);
	return 0;
}
