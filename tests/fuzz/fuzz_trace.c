/* fuzz_trace.c - libFuzzer harness for the ftrace reader (traces/trace.h).
 *
 * The input is a trace file. Each line goes through trace_parse_line() in a
 * buffer of its exact size (ASan sees any read past it); then the whole input
 * is read by the stream reader from a memfd, lax and strict, and the two must
 * agree: the same events with the same fields, the same line counts, and
 * under --strict an error naming "path:line" of the first malformed line.
 * Inputs whose length is a multiple of 8 are also read, both modes, by the
 * chunked prefetch (prefetch.h: 2 threads, chunks of 1 to 64 bytes chosen by
 * the first byte), which must give trace_next()'s events, error message and
 * line counts exactly.
 * This harness compiles trace.c itself with a 256-byte TRACE_LINE_MAX, so
 * short inputs exercise the refill, carry-over and too-long-line paths that
 * need a megabyte with the real buffer.
 */
#define _GNU_SOURCE /* memfd_create */
#include "prefetch.h"
#include "trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_EVENTS 4096

/* The fields of an event that do not point into the line buffer, plus a
 * hash of the strings (they die with the next read). */
struct ev_key {
	int type;
	uint64_t t_ns, ptr, bytes_req, bytes_alloc, line, str_hash;
	uint32_t cpu, gfp;
	int32_t pid, node;
	int8_t accounted;
};

static uint64_t hash_str(uint64_t h, const char *s)
{
	if (!s)
		return h * 31 + 7;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return h * 31 + 1;
}

static struct ev_key key_of(const struct trace_event *ev, uint64_t line)
{
	/* strings must be valid C strings: hashing walks them to the NUL */
	uint64_t h = hash_str(hash_str(0, ev->call_site), ev->name);
	if (ev->type == TRACE_EV_MARKER)
		h = hash_str(h, ev->text);
	if ((unsigned)ev->type >= TRACE_EV_NR || !ev->call_site)
		abort();
	return (struct ev_key){.type = (int)ev->type,
			       .t_ns = ev->t_ns,
			       .ptr = ev->ptr,
			       .bytes_req = ev->bytes_req,
			       .bytes_alloc = ev->bytes_alloc,
			       .line = line,
			       .str_hash = h,
			       .cpu = ev->cpu,
			       .gfp = ev->gfp,
			       .pid = ev->pid,
			       .node = ev->node,
			       .accounted = ev->accounted};
}

static bool key_eq(const struct ev_key *a, const struct ev_key *b)
{
	return a->type == b->type && a->t_ns == b->t_ns && a->ptr == b->ptr &&
	       a->bytes_req == b->bytes_req && a->bytes_alloc == b->bytes_alloc &&
	       a->line == b->line && a->str_hash == b->str_hash && a->cpu == b->cpu &&
	       a->gfp == b->gfp && a->pid == b->pid && a->node == b->node &&
	       a->accounted == b->accounted;
}

static struct ev_key want[MAX_EVENTS], got[MAX_EVENTS];

static void fail(const char *what, uint64_t a, uint64_t b)
{
	fprintf(stderr, "fuzz_trace: %s: line parser %" PRIu64 ", stream reader %" PRIu64 "\n",
		what, a, b);
	abort();
}

/* What the stream reader should report, line by line, from trace_parse_line.
 * Returns false when the input has a line the two treat differently on
 * purpose (trace_parse_line strips every trailing CR, the reader one). */
static bool expect(const uint8_t *data, size_t size, struct trace_stats *st, size_t *nwant)
{
	size_t pos = 0;
	bool comparable = true;

	memset(st, 0, sizeof(*st));
	*nwant = 0;
	while (pos < size) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t n = nl ? (size_t)(nl - (data + pos)) : size - pos;
		size_t full = n;
		char *line;
		struct trace_event ev;
		enum trace_line_kind kind;
		uint64_t lost;
		struct err e;
		int rc;

		st->lines++;
		if (n && data[pos + n - 1] == '\r')
			n--;
		if (n && data[pos + n - 1] == '\r')
			comparable = false;
		line = malloc(n + 1); /* exact size: ASan catches reads past the NUL */
		if (!line)
			abort();
		memcpy(line, data + pos, n);
		line[n] = '\0';
		if (full >= TRACE_LINE_MAX || memchr(line, '\0', n)) {
			rc = -1; /* too long, or a NUL byte: malformed */
		} else {
			rc = trace_parse_line(line, &ev, &kind, &lost, &e);
			if (rc < 0 && (rc != SLABSIM_EINPUT || !e.msg[0] ||
				       strncmp(e.msg, "expected ", 9) != 0)) {
				fprintf(stderr, "fuzz_trace: bad error %d '%s'\n", rc, e.msg);
				abort();
			}
		}
		if (rc == 1) {
			if (*nwant == MAX_EVENTS)
				comparable = false;
			else
				want[(*nwant)++] = key_of(&ev, st->lines);
			st->events[ev.type]++;
		} else if (rc < 0) {
			if (!st->malformed++)
				st->first_malformed_line = st->lines;
		} else if (kind == TRACE_LINE_LOST) {
			st->lost_markers++;
			st->lost_events += lost;
		} else if (kind == TRACE_LINE_OTHER_EVENT) {
			st->other_events++;
		} else {
			st->header_lines++;
		}
		free(line);
		pos += full + (nl != NULL);
	}
	return comparable;
}

static bool stats_eq(const struct trace_stats *a, const struct trace_stats *b)
{
	return a->lines == b->lines && a->header_lines == b->header_lines &&
	       memcmp(a->events, b->events, sizeof(a->events)) == 0 &&
	       a->other_events == b->other_events && a->malformed == b->malformed &&
	       a->lost_markers == b->lost_markers && a->lost_events == b->lost_events &&
	       a->first_malformed_line == b->first_malformed_line &&
	       strcmp(a->first_malformed_msg, b->first_malformed_msg) == 0;
}

/* trace_next_batch(), n events at a time, against trace_next() on path (its
 * first MAX_EVENTS events in got, ngot in all, its end rc and message):
 * the same events, the same end, the same counts (st). */
static void batched(const char *path, uint32_t n, size_t ngot, int rc_want, const char *msg_want,
		    const struct trace_stats *st)
{
	struct trace_opts o = {.strict = false};
	struct trace_reader *r;
	struct trace_event ev[64];
	struct err e;
	size_t i = 0;
	int rc;

	if (trace_open(path, &o, &r, &e))
		abort();
	while ((rc = trace_next_batch(r, ev, n, &e)) > 0) {
		for (int k = 0; k < rc; k++, i++) {
			struct ev_key x = key_of(&ev[k], ev[k].line);
			if (i < MAX_EVENTS && !key_eq(&x, &got[i]))
				fail("batched: event differs at index", i, i);
		}
	}
	if (i != ngot)
		fail("batched: events", ngot, i);
	if (rc != rc_want || (rc < 0 && strcmp(e.msg, msg_want) != 0)) {
		fprintf(stderr, "fuzz_trace: batched: rc %d '%s', want %d '%s'\n", rc,
			rc < 0 ? e.msg : "", rc_want, msg_want);
		abort();
	}
	if (!stats_eq(trace_stats(r), st))
		fail("batched: line counts differ, lines", st->lines, trace_stats(r)->lines);
	trace_close(r);
}

/* The chunked prefetch against trace_next() on path. */
static void chunked(const char *path, bool strict, uint64_t chunk)
{
	struct trace_opts o = {.strict = strict};
	struct trace_prefetch_opts po = {.threads = 2, .chunk_bytes = chunk};
	struct trace_reader *a, *b;
	struct trace_prefetch *p;
	struct trace_event x, y;
	struct err e1, e2;
	int r1, r2;
	uint64_t n = 0;

	if (trace_open(path, &o, &a, &e1) || trace_open(path, &o, &b, &e2) ||
	    trace_prefetch_open_opts(b, &po, &p, &e2) || trace_prefetch_threads(p) != 2)
		abort();
	do {
		r1 = trace_next(a, &x, &e1);
		r2 = trace_prefetch_next(p, &y, &e2);
		if (r1 != r2)
			fail("chunked: return code at event", n, n);
		if (r1 == 1) {
			struct ev_key kx = key_of(&x, x.line), ky = key_of(&y, y.line);
			if (!key_eq(&kx, &ky))
				fail("chunked: event differs at index", n, n);
			n++;
		}
	} while (r1 == 1);
	if (r1 < 0 && (e1.code != e2.code || strcmp(e1.msg, e2.msg) != 0)) {
		fprintf(stderr, "fuzz_trace: chunked: '%s', want '%s'\n", e2.msg, e1.msg);
		abort();
	}
	if (!stats_eq(trace_stats(a), trace_prefetch_stats(p)))
		fail("chunked: line counts differ, lines", trace_stats(a)->lines,
		     trace_prefetch_stats(p)->lines);
	trace_prefetch_close(p);
	trace_close(a);
	trace_close(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_stats st_want;
	size_t nwant, ngot = 0;
	bool comparable = expect(data, size, &st_want, &nwant);
	char path[64];
	int fd = memfd_create("fuzz_trace", MFD_CLOEXEC);
	struct trace_reader *r;
	struct trace_event ev;
	struct err e;
	int rc;

	if (fd < 0)
		abort();
	/* A trace.dat goes to libtracecmd, whose parsing of corrupt files is
	 * not ours to fuzz (it asks malloc for sizes read from a corrupt
	 * header, which the sanitizer stops): the text reader is the target. */
	if (size >= 10 && memcmp(data, "\x17\x08\x44tracing", 10) == 0) {
		close(fd);
		return 0;
	}
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	/* Refused when opened (empty, binary, a perf.data of another form, a trace.dat that
	 * libtracecmd cannot read, compressed data the decompressor refuses):
	 * an input or I/O error naming the file, and nothing else to check. */
	char named[80];
	(void)snprintf(named, sizeof(named), "%s: ", path);
	struct trace_opts lax = {.strict = false};
	if ((rc = trace_open(path, &lax, &r, &e))) {
		if ((rc != SLABSIM_EINPUT && rc != SLABSIM_EIO) ||
		    strncmp(e.msg, named, strlen(named)) != 0) {
			fprintf(stderr, "fuzz_trace: open: rc %d '%s'\n", rc, e.msg);
			abort();
		}
		close(fd);
		return 0;
	}
	bool text = trace_is_plain_file(r);
	/* lax: every line counted, every event returned */
	while ((rc = trace_next(r, &ev, &e)) == 1) {
		if (ngot < MAX_EVENTS)
			got[ngot] = key_of(&ev, ev.line);
		ngot++;
	}
	/* at the end, text none of whose lines is an event is refused */
	char junk[96];
	(void)snprintf(junk, sizeof(junk), "%s: not a kernel trace: ", path);
	bool not_trace = rc == SLABSIM_EINPUT && strncmp(e.msg, junk, strlen(junk)) == 0;
	/* a perf.data (read by samples, not lines) may end in an input error
	 * naming the file: a record cut short or corrupt */
	bool bad_records =
		!text && rc == SLABSIM_EINPUT && strncmp(e.msg, named, strlen(named)) == 0;
	if (rc != 0 && !not_trace && !bad_records && !(!text && rc == SLABSIM_EIO)) {
		fprintf(stderr, "fuzz_trace: lax read failed: %s\n", e.msg);
		abort();
	}
	if (!text) { /* decompressed or a trace.dat: the model below is of text */
		trace_close(r);
		close(fd);
		return 0;
	}
	const struct trace_stats *st = trace_stats(r);
	char end_msg[sizeof(e.msg)];
	(void)snprintf(end_msg, sizeof(end_msg), "%s", rc < 0 ? e.msg : "");
	batched(path, size ? 1 + data[size - 1] % 64 : 1, ngot, rc, end_msg, st);
	uint64_t sum = st->header_lines + st->other_events + st->malformed + st->lost_markers;
	for (int t = 0; t < TRACE_EV_NR; t++)
		sum += st->events[t];
	if (sum != st->lines)
		fail("stream: lines by kind do not add up", sum, st->lines);
	if (comparable) {
		if (st->lines != st_want.lines)
			fail("lines", st_want.lines, st->lines);
		if (st->header_lines != st_want.header_lines)
			fail("header lines", st_want.header_lines, st->header_lines);
		if (st->other_events != st_want.other_events)
			fail("other events", st_want.other_events, st->other_events);
		if (st->malformed != st_want.malformed)
			fail("malformed", st_want.malformed, st->malformed);
		if (st->lost_markers != st_want.lost_markers ||
		    st->lost_events != st_want.lost_events)
			fail("lost events", st_want.lost_events, st->lost_events);
		if (st->malformed && st->first_malformed_line != st_want.first_malformed_line)
			fail("first malformed line", st_want.first_malformed_line,
			     st->first_malformed_line);
		if (ngot != nwant)
			fail("events", nwant, ngot);
		for (size_t i = 0; i < nwant; i++)
			if (!key_eq(&want[i], &got[i]))
				fail("event differs at index", i, i);
	}
	uint64_t first_bad = st->malformed ? st->first_malformed_line : 0;
	trace_close(r);

	/* strict: stops at the first malformed line, naming it */
	struct trace_opts strict = {.strict = true};
	if (trace_open(path, &strict, &r, &e))
		abort();
	while ((rc = trace_next(r, &ev, &e)) == 1)
		;
	/* strict also stops earlier, at an allocation no kernel emits
	 * (bytes_alloc < bytes_req, bytes_req above 4 MiB), which lax returns */
	uint64_t at = 0;
	if (rc == SLABSIM_EINPUT && strncmp(e.msg, path, strlen(path)) == 0 &&
	    e.msg[strlen(path)] == ':')
		at = strtoull(e.msg + strlen(path) + 1, NULL, 10);
	if (rc == SLABSIM_EINPUT && at && (!first_bad || at < first_bad) &&
	    strstr(e.msg, ": expected bytes_")) {
		/* an impossible event before any malformed line */
	} else if (first_bad) {
		char prefix[96];
		(void)snprintf(prefix, sizeof(prefix), "%s:%" PRIu64 ": expected ", path,
			       first_bad);
		if (rc != SLABSIM_EINPUT || strncmp(e.msg, prefix, strlen(prefix)) != 0) {
			fprintf(stderr, "fuzz_trace: strict: rc %d '%s', want '%s...'\n", rc, e.msg,
				prefix);
			abort();
		}
	} else if (rc != 0) {
		fprintf(stderr, "fuzz_trace: strict: rc %d '%s' on a clean input\n", rc, e.msg);
		abort();
	}
	trace_close(r);

	/* threads cost 8 times the rest: one input in 8 (by its length) */
	if (size % 8 == 0) {
		uint64_t chunk = size ? 1 + data[0] % 64 : 1;
		chunked(path, false, chunk);
		chunked(path, true, chunk);
	}
	close(fd);
	return 0;
}
