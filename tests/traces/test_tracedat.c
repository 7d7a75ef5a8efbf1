/* test_tracedat.c - a trace.dat read through libtracecmd against the text
 * `trace-cmd report` printed for the same file, event by event.
 *
 * argv: the samples folder. Each bundled trace.dat (traces/samples/README.md
 * says how it was made) is read with trace_open()/trace_next() next to its
 * bundled report text, and every field of every event, its line number and
 * the final line counts must be equal. Then what only a trace.dat has: the
 * lost-event counts trace-cmd stored (from `trace-cmd report --stat`), the
 * file version 6 copy (compressed as a whole with xz), the same bytes on a
 * pipe, and the content-sniffing errors. Without libtracecmd the test checks
 * the refusal message and skips the rest.
 */
#include "check.h"
#include "prefetch.h"
#include "source.h"
#include "trace.h"
#include "tracedat.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *samples;

static void path_of(char *buf, size_t n, const char *name)
{
	(void)snprintf(buf, n, "%s/%s", samples, name);
}

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/* The first field where x and y differ, or NULL. */
static const char *differs(const struct trace_event *x, const struct trace_event *y)
{
	if (x->type != y->type)
		return "type";
	if (x->t_ns != y->t_ns)
		return "t_ns";
	if (x->cpu != y->cpu)
		return "cpu";
	if (x->pid != y->pid)
		return "pid";
	if (x->ptr != y->ptr)
		return "ptr";
	if (x->bytes_req != y->bytes_req)
		return "bytes_req";
	if (x->bytes_alloc != y->bytes_alloc)
		return "bytes_alloc";
	if (x->node != y->node)
		return "node";
	if (x->accounted != y->accounted)
		return "accounted";
	if (x->gfp != y->gfp)
		return "gfp";
	if (!str_eq(x->call_site, y->call_site))
		return "call_site";
	if (!str_eq(x->name, y->name))
		return "name";
	if (!str_eq(x->text, y->text))
		return "text";
	if (x->line != y->line)
		return "line";
	return NULL;
}

/* dat against report, both read with opts; *st_dat: the trace.dat's counts. */
static void compare(const char *dat, const char *report, const char *label, bool skip,
		    struct trace_stats *st_dat)
{
	struct trace_opts o = {.skip_fields = skip ? 1u << TRACE_EV_KMALLOC : 0};
	struct trace_reader *a = NULL, *b = NULL;
	struct err e1, e2;
	char name[1200];
	uint64_t n = 0;
	const char *why = NULL;
	int r1 = 0, r2 = 0;

	if (trace_open(dat, &o, &a, &e1) || trace_open(report, &o, &b, &e2)) {
		(void)snprintf(name, sizeof(name), "%s: open (%s%s)", label, a ? "" : e1.msg,
			       b ? "" : e2.msg);
		CHECK(name, false);
		trace_close(a);
		trace_close(b);
		return;
	}
	for (;;) {
		struct trace_event x, y;
		r1 = trace_next(a, &x, &e1);
		r2 = trace_next(b, &y, &e2);
		if (r1 != r2) {
			why = "return code";
			break;
		}
		if (r1 != 1)
			break;
		n++;
		if ((why = differs(&x, &y))) {
			printf("# event %" PRIu64 " (line %" PRIu64 " / %" PRIu64
			       ") differs in %s\n",
			       n, x.line, y.line, why);
			break;
		}
	}
	(void)snprintf(name, sizeof(name), "%s: %" PRIu64 " events equal to the report's%s", label,
		       n, skip ? " (kmalloc fields skipped)" : "");
	CHECK(name, !why && r1 == 0 && n > 0);
	const struct trace_stats *s1 = trace_stats(a), *s2 = trace_stats(b);
	bool same = s1->lines == s2->lines && s1->header_lines == s2->header_lines &&
		    s1->other_events == s2->other_events && s1->malformed == s2->malformed &&
		    s1->lost_markers == s2->lost_markers && s1->lost_events == s2->lost_events &&
		    memcmp(s1->events, s2->events, sizeof(s1->events)) == 0;
	(void)snprintf(name, sizeof(name), "%s: line counts equal the report's (%" PRIu64 " lines)",
		       label, s1->lines);
	CHECK(name, same);
	if (st_dat)
		*st_dat = *s1;
	trace_close(a);
	trace_close(b);
}

/* Every event of path through the prefetch (one producer, or none:
 * same_thread) against trace_next(). */
static void prefetch_equal(const char *path, const char *label, bool same_thread)
{
	struct trace_reader *a = NULL, *b = NULL;
	struct trace_prefetch *p = NULL;
	struct trace_prefetch_opts po = {.threads = 3, .same_thread = same_thread};
	struct err e1, e2;
	char name[512];
	uint64_t n = 0;
	int r1 = 0, r2 = 0;
	bool ok = trace_open(path, NULL, &a, &e1) == 0 && trace_open(path, NULL, &b, &e2) == 0 &&
		  trace_prefetch_open_opts(b, &po, &p, &e2) == 0 &&
		  trace_prefetch_threads(p) == (same_thread ? 0u : 1u);

	while (ok) {
		struct trace_event x, y;
		r1 = trace_next(a, &x, &e1);
		r2 = trace_prefetch_next(p, &y, &e2);
		if (r1 != r2 || r1 != 1)
			break;
		y.site_id = x.site_id;
		ok = !differs(&x, &y);
		n++;
	}
	(void)snprintf(name, sizeof(name), "%s: prefetch%s gives the same %" PRIu64 " events",
		       label, same_thread ? " on the same thread" : "", n);
	CHECK(name, ok && r1 == 0 && r2 == 0 && n > 0);
	trace_prefetch_close(p);
	trace_close(a);
	trace_close(b);
}

/* The same with no thread, taken as the replay takes them: batches of the
 * source (read into the caller's events), with single events between them
 * (from a block) every third time. */
static void same_thread_batches_equal(const char *path, const char *label)
{
	struct trace_reader *a = NULL, *b = NULL;
	struct trace_prefetch *p = NULL;
	struct trace_prefetch_opts po = {.same_thread = true};
	struct trace_source src;
	struct err e1, e2;
	char name[512];
	uint64_t n = 0;
	int r1 = 0, r2 = 0;
	bool ok = trace_open(path, NULL, &a, &e1) == 0 && trace_open(path, NULL, &b, &e2) == 0 &&
		  trace_prefetch_open_opts(b, &po, &p, &e2) == 0;
	if (ok)
		trace_prefetch_as_source(&src, p, path);
	for (uint32_t round = 0; ok; round++) {
		struct trace_event x, y[7];
		int k = round % 3 == 2 ? trace_prefetch_next(p, y, &e2)
				       : src.next_batch(src.ctx, y, 7, &e2);
		for (int i = 0; ok && i < k; i++, n++) {
			ok = trace_next(a, &x, &e1) == 1;
			y[i].site_id = x.site_id;
			ok = ok && !differs(&x, &y[i]);
		}
		if (k <= 0) {
			r2 = k;
			r1 = trace_next(a, &x, &e1);
			break;
		}
	}
	(void)snprintf(name, sizeof(name),
		       "%s: prefetch on the same thread gives the same %" PRIu64
		       " events in batches",
		       label, n);
	CHECK(name, ok && r1 == 0 && r2 == 0 && n > 0 &&
			    src.next_batch(src.ctx, (struct trace_event[1]){{0}}, 1, &e2) == 0);
	trace_prefetch_close(p);
	trace_close(a);
	trace_close(b);
}

static void events_on_stdin(const char *path, const char *label, uint64_t want)
{
	int saved = dup(STDIN_FILENO), fds[2];
	char cmd[1200], name[512];
	struct trace_reader *r = NULL;
	struct trace_event ev;
	struct err e;
	uint64_t n = 0;
	FILE *f;
	int rc = -1;

	/* a pipe, not the file: what `cat FILE | slabsim replay -` gives */
	(void)snprintf(cmd, sizeof(cmd), "cat '%s'", path);
	f = popen(cmd, "r");
	if (f && saved >= 0 && dup2(fileno(f), STDIN_FILENO) == STDIN_FILENO &&
	    trace_open("-", NULL, &r, &e) == 0) {
		while ((rc = trace_next(r, &ev, &e)) == 1)
			n++;
	}
	(void)snprintf(name, sizeof(name), "%s on a pipe: %" PRIu64 " events", label, want);
	CHECK(name, rc == 0 && n == want);
	trace_close(r);
	if (f)
		pclose(f);
	if (saved >= 0) {
		(void)dup2(saved, STDIN_FILENO);
		close(saved);
	}
	(void)fds;
}

static uint64_t events_of(const struct trace_stats *st)
{
	uint64_t n = 0;
	for (int i = 0; i < TRACE_EV_NR; i++)
		n += st->events[i];
	return n;
}

/* Lost events in text: the tracefs header's entries-written, and
 * trace-cmd's dropped-events note without a count. Not trace.dat, but the
 * same trace_stats fields. */
static void text_lost(void)
{
	static const char text[] =
		"# tracer: nop\n"
		"#\n"
		"# entries-in-buffer/entries-written: 445980/500000   #P:2\n"
		"#\n"
		"            init-1       [000] .....     1.000001: kfree: call_site=f+0x1/0x10 "
		"ptr=(nil)\n"
		"CPU:1 [EVENTS DROPPED]\n"
		"CPU:0 [LOST 7 EVENTS]\n"
		"# entries-in-buffer/entries-written: 10/12   #P:2\n";
	char path[] = "/tmp/slabsim-lost-XXXXXX";
	int fd = mkstemp(path);
	struct trace_reader *r = NULL;
	struct trace_event ev;
	struct err e;
	int rc = -1, n = 0;

	if (fd >= 0 && write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1) &&
	    trace_open(path, NULL, &r, &e) == 0) {
		while ((rc = trace_next(r, &ev, &e)) == 1) {
			n++;
			CHECK_EQ_U64("text: kfree ptr=(nil) is NULL", ev.ptr, 0);
		}
	}
	CHECK("text: read to the end, one event", rc == 0 && n == 1);
	if (r) {
		const struct trace_stats *st = trace_stats(r);
		/* 500000 - 445980 + 12 - 10 */
		CHECK_EQ_U64("text: lost by the headers", st->lost_in_header, 54020 + 2);
		CHECK_EQ_U64("text: two lost-event notes", st->lost_markers, 2);
		CHECK_EQ_U64("text: their counts (one unknown)", st->lost_events, 7);
		CHECK_EQ_U64("text: sources", st->lost_sources,
			     TRACE_LOST_HEADER | TRACE_LOST_MARKERS);
		CHECK_EQ_U64("text: trace_stats_lost, the larger", trace_stats_lost(st), 54022);
	}
	trace_close(r);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
}

int main(int argc, char **argv)
{
	char dat[1024], rep[1024], v6[1024], lost[1024], lrep[1024];
	struct trace_stats st, st6, stl;
	struct trace_reader *r = NULL;
	struct err e;

	if (argc != 2) {
		printf("Bail out! usage: test_tracedat SAMPLES_DIR\n");
		return 1;
	}
	samples = argv[1];
	text_lost();
	path_of(dat, sizeof(dat), "linux-6.18-kmem.dat");
	path_of(rep, sizeof(rep), "linux-6.18-kmem.report.zst");
	path_of(v6, sizeof(v6), "linux-6.18-kmem-v6.dat.xz");
	path_of(lost, sizeof(lost), "linux-6.18-kmem-lost.dat");
	path_of(lrep, sizeof(lrep), "linux-6.18-kmem-lost.report.zst");

	if (!tracedat_supported()) {
		int rc = trace_open(dat, NULL, &r, &e);
		CHECK("without libtracecmd: SLABSIM_EINPUT", rc == SLABSIM_EINPUT);
		CHECK("without libtracecmd: says what to run",
		      strstr(e.msg, "trace-cmd report") != NULL);
		printf("# SKIP the rest: built without libtracecmd\n");
		return check_done();
	}

	compare(dat, rep, "version 7, zstd sections", false, &st);
	compare(dat, rep, "version 7, zstd sections", true, NULL);
	compare(v6, rep, "version 6 in xz", false, &st6);
	compare(lost, lrep, "version 7, 8 KiB buffer", false, &stl);

	/* Counts of the report text, by awk (traces/samples/README.md):
	 * 4999 lines, "cpus=2" and 4998 records: 386 kmalloc, 2003
	 * kmem_cache_alloc, 1112 kfree, 1495 kmem_cache_free, 2 markers. */
	CHECK_EQ_U64("sample: lines", st.lines, 4999);
	CHECK_EQ_U64("sample: header", st.header_lines, 1);
	CHECK_EQ_U64("sample: kmalloc", st.events[TRACE_EV_KMALLOC], 386);
	CHECK_EQ_U64("sample: kmem_cache_alloc", st.events[TRACE_EV_CACHE_ALLOC], 2003);
	CHECK_EQ_U64("sample: kfree", st.events[TRACE_EV_KFREE], 1112);
	CHECK_EQ_U64("sample: kmem_cache_free", st.events[TRACE_EV_CACHE_FREE], 1495);
	CHECK_EQ_U64("sample: markers", st.events[TRACE_EV_MARKER], 2);
	CHECK_EQ_U64("sample: nothing lost (stats stored)", st.lost_in_buffer_stats, 0);
	CHECK("sample: the stats were there", st.lost_sources & TRACE_LOST_BUFFER_STATS);
	CHECK_EQ_U64("v6 copy: same events", events_of(&st6), events_of(&st));

	/* The 8 KiB buffer overwrote events: two "[N EVENTS DROPPED]" notes
	 * in the report, and `trace-cmd report --stat` says overrun 636 on
	 * CPU 0 and 3991 on CPU 1. */
	CHECK_EQ_U64("lost: two dropped-events notes", stl.lost_markers, 2);
	CHECK_EQ_U64("lost: stored stats, 636 + 3991", stl.lost_in_buffer_stats, 636 + 3991);
	CHECK("lost: sources",
	      (stl.lost_sources & (TRACE_LOST_MARKERS | TRACE_LOST_BUFFER_STATS)) ==
		      (TRACE_LOST_MARKERS | TRACE_LOST_BUFFER_STATS));
	CHECK_EQ_U64("lost: trace_stats_lost, the larger", trace_stats_lost(&stl),
		     stl.lost_events > 4627 ? stl.lost_events : 4627);

	prefetch_equal(dat, "version 7", false);
	prefetch_equal(v6, "version 6 in xz", false);
	prefetch_equal(dat, "version 7", true);
	same_thread_batches_equal(dat, "version 7");
	events_on_stdin(dat, "version 7", events_of(&st));
	events_on_stdin(v6, "version 6 in xz", events_of(&st));

	/* Byte ranges are for text: a trace.dat is refused, so callers fall
	 * back to one reader. */
	CHECK("trace_open_range refuses a trace.dat",
	      trace_open_range(dat, NULL, 0, 100, &r, &e) == SLABSIM_EUSAGE && !r);

	/* A trace.dat cut short: refused when opened, naming the file. */
	{
		char cut[] = "/tmp/slabsim-tracedat-XXXXXX";
		char want[128];
		int fd = mkstemp(cut), in = open(dat, O_RDONLY);
		char buf[8192];
		ssize_t k = in >= 0 ? read(in, buf, sizeof(buf)) : -1;
		bool ok = fd >= 0 && k == (ssize_t)sizeof(buf) && write(fd, buf, 4096) == 4096;
		if (fd >= 0)
			close(fd);
		if (in >= 0)
			close(in);
		int rc = ok ? trace_open(cut, NULL, &r, &e) : 0;
		(void)snprintf(want, sizeof(want), "%s: trace.dat: libtracecmd cannot read", cut);
		CHECK("truncated trace.dat: SLABSIM_EINPUT", rc == SLABSIM_EINPUT && !r);
		if (!CHECK("truncated trace.dat: message names the file",
			   strncmp(e.msg, want, strlen(want)) == 0))
			printf("#   got '%s'\n", e.msg);
		unlink(cut);
	}
	return check_done();
}
