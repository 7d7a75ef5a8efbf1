/* test_prefetch_chunks.c - the chunked reader (trace_prefetch_open_opts on a
 * plain file: byte ranges parsed on several threads, taken in file order)
 * gives exactly what trace_next() gives on the same file.
 *
 * Usage: test_prefetch_chunks <boot-excerpt.trace> <file or dir>...
 * Every trace file given (a directory: its files ending in .trace or .trace.gz,
 * .trace.xz, .trace.zst, and its capture subdirectories' trace.txt[.zst]; a
 * compressed one is decompressed into a plain copy first) and files made
 * here (empty, blank lines only, no final newline, lines longer than the
 * reader's 1 MiB buffer, a malformed line far into a long trace) are read
 * lax and strict, with 1 to 5 threads and chunk sizes from 1 byte up (so
 * that chunk edges fall in the header, inside lines, right before and after
 * newlines). Each read must give trace_next()'s return codes, every event
 * field (line numbers of the file, strings), call-site ids handed out in
 * the order of first appearance (equal ids for equal strings), the same
 * error code and message (strict: "path:line: ..." of the file) after the
 * same events, the end repeated by a second call, and every line count,
 * including the first malformed line and its message.
 */
#define _DEFAULT_SOURCE /* realpath */
#include "check.h"
#include "prefetch.h"
#include "strtab.h"
#include "trace.h"
#include "trace_files.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static const char *ev_differs(const struct trace_event *a, const struct trace_event *b)
{
	if (a->type != b->type || a->t_ns != b->t_ns || a->cpu != b->cpu || a->pid != b->pid)
		return "type, time, cpu or pid";
	if (a->ptr != b->ptr || a->bytes_req != b->bytes_req || a->bytes_alloc != b->bytes_alloc)
		return "ptr or sizes";
	if (a->node != b->node || a->accounted != b->accounted || a->gfp != b->gfp)
		return "node, accounted or gfp";
	if (a->line != b->line)
		return "line";
	if (!str_eq(a->call_site ? a->call_site : "", b->call_site) || !str_eq(a->name, b->name) ||
	    !str_eq(a->text, b->text))
		return "strings";
	return NULL;
}

static const char *stats_differ(const struct trace_stats *a, const struct trace_stats *b)
{
	if (a->lines != b->lines || a->header_lines != b->header_lines ||
	    a->other_events != b->other_events)
		return "lines, header or other lines";
	if (memcmp(a->events, b->events, sizeof(a->events)) != 0)
		return "events by type";
	if (a->malformed != b->malformed || a->lost_markers != b->lost_markers ||
	    a->lost_events != b->lost_events)
		return "malformed or lost counts";
	if (a->malformed && (a->first_malformed_line != b->first_malformed_line ||
			     strcmp(a->first_malformed_msg, b->first_malformed_msg) != 0))
		return "first malformed line";
	return NULL;
}

struct tally {
	uint64_t runs, failed, events, errors, chunked;
};

/* One read of path both ways. Fails the test on any difference. */
static void compare(const char *path, bool strict, unsigned threads, uint64_t chunk,
		    struct tally *t)
{
	struct trace_opts o = {.strict = strict};
	struct trace_prefetch_opts po = {.threads = threads, .chunk_bytes = chunk};
	struct trace_reader *a = NULL, *b = NULL;
	struct trace_prefetch *p = NULL;
	struct strtab ids;
	struct err e1, e2;
	const char *why = NULL;
	uint64_t n = 0;
	int r1 = 0, r2 = 0;

	err_clear(&e1);
	err_clear(&e2);
	strtab_init(&ids);
	t->runs++;
	if (trace_open(path, &o, &a, &e1) || trace_open(path, &o, &b, &e2) ||
	    trace_prefetch_open_opts(b, &po, &p, &e2)) {
		why = "open";
		goto out;
	}
	if (trace_prefetch_threads(p) != threads) {
		why = "not chunked on the threads asked for";
		goto out;
	}
	t->chunked++;
	for (;;) {
		struct trace_event x, y;
		uint32_t id;
		r1 = trace_next(a, &x, &e1);
		r2 = trace_prefetch_next(p, &y, &e2);
		if (r1 != r2) {
			why = "return code";
			break;
		}
		if (r1 != 1)
			break;
		n++;
		if ((why = ev_differs(&x, &y)))
			break;
		/* ids in order of first appearance: the single producer's */
		if (strtab_intern(&ids, y.call_site, &id) || y.site_id != id + 1) {
			why = "site_id";
			break;
		}
	}
	if (!why && r1 < 0 && (e1.code != e2.code || strcmp(e1.msg, e2.msg) != 0))
		why = "error message";
	if (!why) {
		struct trace_event z;
		struct err e3;
		err_clear(&e3);
		if (trace_prefetch_next(p, &z, &e3) != r2 || (r2 < 0 && strcmp(e3.msg, e2.msg)))
			why = "a second call after the end";
	}
	if (!why)
		why = stats_differ(trace_stats(a), trace_prefetch_stats(p));
	if (!why && r1 == 0) {
		uint64_t done, total, d2, t2;
		trace_progress(a, &d2, &t2);
		trace_prefetch_progress(p, &done, &total);
		if (total != t2 || done != total)
			why = "progress at the end";
	}
out:
	t->events += n;
	t->errors += r1 < 0;
	if (why) {
		t->failed++;
		if (t->failed <= 8)
			printf("# %s: %s, %u threads, chunk %" PRIu64 ": %s differs after %" PRIu64
			       " events (rc %d/%d: '%s' / '%s')\n",
			       path, strict ? "strict" : "lax", threads, chunk, why, n, r1, r2,
			       e1.msg, e2.msg);
	}
	trace_prefetch_close(p);
	trace_close(a);
	trace_close(b);
	strtab_fini(&ids);
}

/* Every combination of modes, threads and chunk sizes fitted to the size. */
static void test_file(const char *path, const char *label)
{
	static const uint64_t tiny[] = {1, 2, 3, 7, 61, 256, 4096};
	static const uint64_t mid[] = {97, 1000, 4099, 65536};
	static const uint64_t big[] = {999983, TRACE_PREFETCH_CHUNK};
	static const unsigned th_tiny[] = {1, 2, 3, 5}, th_mid[] = {1, 2, 4}, th_big[] = {2, 3};
	struct stat st;
	struct tally t = {0};
	const uint64_t *cs;
	const unsigned *th;
	size_t ncs, nth;
	uint64_t extra[2];
	char name[1200];

	if (stat(path, &st) != 0)
		return;
	uint64_t size = (uint64_t)st.st_size;
	if (size == 0) { /* refused when opened, before any reading */
		struct trace_reader *r = NULL;
		struct err e;
		(void)snprintf(name, sizeof(name), "%s: empty, refused by trace_open", label);
		CHECK(name, trace_open(path, NULL, &r, &e) == SLABSIM_EINPUT && !r);
		return;
	}
	if (size <= 64 * 1024) {
		cs = tiny, ncs = sizeof(tiny) / sizeof(*tiny);
		th = th_tiny, nth = sizeof(th_tiny) / sizeof(*th_tiny);
	} else if (size <= 1024 * 1024) {
		cs = mid, ncs = sizeof(mid) / sizeof(*mid);
		th = th_mid, nth = sizeof(th_mid) / sizeof(*th_mid);
	} else {
		cs = big, ncs = sizeof(big) / sizeof(*big);
		th = th_big, nth = sizeof(th_big) / sizeof(*th_big);
	}
	/* one chunk ending right at the end of the file, and one past it */
	extra[0] = size ? size : 1;
	extra[1] = size + 1;
	for (int strict = 0; strict < 2; strict++)
		for (size_t i = 0; i < nth; i++) {
			/* chunks under 8 bytes cost a seek, a read and a
			 * wake-up each: on two thread counts, small files */
			for (size_t k = 0; k < ncs; k++)
				if (cs[k] >= 8 || ((th[i] == 2 || th[i] == 3) &&
						   size <= (cs[k] < 3 ? 4096u : 16384u)))
					compare(path, strict, th[i], cs[k], &t);
			for (size_t k = 0; k < 2 && size <= 1024 * 1024; k++)
				compare(path, strict, th[i], extra[k], &t);
		}
	(void)snprintf(name, sizeof(name),
		       "%s: %" PRIu64 " reads (%" PRIu64 " events, %" PRIu64
		       " ending in an error) chunked as trace_next reads it",
		       label, t.runs, t.events, t.errors);
	CHECK(name, t.failed == 0 && t.chunked == t.runs);
}

/* ---- Inputs --------------------------------------------------------------- */

static char tmpdir[] = "/tmp/slabsim-chunks-XXXXXX";
static unsigned nfiles;

/* A plain copy of path (decompressed by the reader's program if need be). */
static bool plain_copy(const char *path, const char *dst)
{
	const char *prog = trace_decompressor_for(path);
	char cmd[4400];
	size_t k;
	if (!prog) {
		k = (size_t)snprintf(cmd, sizeof(cmd), "cp -- '");
	} else {
		k = (size_t)snprintf(cmd, sizeof(cmd), "%s -dc <'", prog);
	}
	k = trace_files_quote(cmd, k, sizeof(cmd), path);
	/* a truncated archive still gives a file: what it decompressed to */
	(void)snprintf(cmd + k, sizeof(cmd) - k, prog ? "' >'%s' 2>/dev/null" : "' '%s'", dst);
	int rc = system(cmd);
	struct stat st;
	return (prog || rc == 0) && stat(dst, &st) == 0;
}

static void test_one(const char *path, void *ctx)
{
	(void)ctx;
	char dst[PATH_MAX];
	nfiles++;
	if (!trace_decompressor_for(path)) {
		/* compressed without the name saying so: not a plain file */
		struct trace_reader *r = NULL;
		struct err e;
		if (trace_open(path, NULL, &r, &e) == 0 && !trace_is_plain_file(r)) {
			char what[PATH_MAX + 40];
			struct trace_prefetch_opts po = {.threads = 3, .chunk_bytes = 100};
			struct trace_prefetch *p = NULL;
			(void)snprintf(what, sizeof(what), "%s: compressed, one producer", path);
			CHECK(what, trace_prefetch_open_opts(r, &po, &p, &e) == 0 &&
					    trace_prefetch_threads(p) == 1);
			trace_prefetch_close(p);
			trace_close(r);
			return;
		}
		trace_close(r);
		test_file(path, path);
		return;
	}
	(void)snprintf(dst, sizeof(dst), "%s/copy.trace", tmpdir);
	char name[PATH_MAX + 40];
	(void)snprintf(name, sizeof(name), "%s: decompressed", path);
	if (CHECK(name, plain_copy(path, dst)))
		test_file(dst, path);
	unlink(dst);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	if (f && fseek(f, 0, SEEK_END) == 0) {
		long n = ftell(f);
		rewind(f);
		buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	if (f)
		fclose(f);
	return buf;
}

static void put(FILE *f, const char *s, size_t n)
{
	if (fwrite(s, 1, n, f) != n)
		abort();
}

static void put_run(FILE *f, char c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		putc(c, f);
}

static uint64_t count_lines(const char *s, size_t n)
{
	uint64_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

/* Files made here: the edge cases no bundled trace has. */
static void made_files(const char *sample)
{
	size_t slen = 0;
	char *s = slurp(sample, &slen);
	char path[PATH_MAX];
	FILE *f;
	if (!CHECK("sample read", s && slen > 4096 && s[slen - 1] == '\n'))
		return;
	/* the first 50 lines, the first 4096 bytes (cut inside a line) */
	const char *p50 = s;
	for (int i = 0; i < 50; i++)
		p50 = (const char *)memchr(p50, '\n', slen - (size_t)(p50 - s)) + 1;
	size_t n50 = (size_t)(p50 - s);

	static const char *const small[][2] = {
		{"empty", ""},
		{"newline", "\n"},
		{"blank-lines", "\n\n\n\n\n\n\n"},
		{"crlf-blank", "\r\n\r\n\r\n"},
	};
	for (size_t i = 0; i < sizeof(small) / sizeof(*small); i++) {
		(void)snprintf(path, sizeof(path), "%s/%s.trace", tmpdir, small[i][0]);
		if (!(f = fopen(path, "wb")))
			abort();
		put(f, small[i][1], strlen(small[i][1]));
		fclose(f);
		test_file(path, small[i][0]);
		unlink(path);
	}

	(void)snprintf(path, sizeof(path), "%s/no-final-newline.trace", tmpdir);
	if (!(f = fopen(path, "wb")))
		abort();
	put(f, s, n50 - 1);
	fclose(f);
	test_file(path, "50 lines, no final newline");
	(void)snprintf(path, sizeof(path), "%s/cut.trace", tmpdir);
	if (!(f = fopen(path, "wb")))
		abort();
	put(f, s, 4096);
	fclose(f);
	test_file(path, "4096 bytes, cut inside a line");

	/* lines of the reader's buffer size (1 MiB) and around it: dropped as
	 * too long, counted malformed; chunks start inside them */
	(void)snprintf(path, sizeof(path), "%s/long-lines.trace", tmpdir);
	if (!(f = fopen(path, "wb")))
		abort();
	static const size_t longs[] = {(1u << 20) + (1u << 19), (1u << 20) - 1, 1u << 20,
				       (1u << 20) + 1, (1u << 20) - 2};
	for (size_t i = 0; i < sizeof(longs) / sizeof(*longs); i++) {
		put(f, s, n50);
		put_run(f, 'x', longs[i]);
		putc('\n', f);
	}
	put(f, s, n50);
	put_run(f, 'y', (1u << 20) + 7); /* and the last line, without a newline */
	fclose(f);
	static const uint64_t lcs[] = {100000, 333333, 1u << 20, (1u << 20) + 1};
	struct tally t = {0};
	for (int strict = 0; strict < 2; strict++)
		for (unsigned th = 1; th <= 3; th++)
			for (size_t k = 0; k < sizeof(lcs) / sizeof(*lcs); k++)
				compare(path, strict, th, lcs[k], &t);
	CHECK("lines around the 1 MiB buffer: chunked as trace_next reads them",
	      t.failed == 0 && t.chunked == t.runs && t.errors == 4 * 3);
	unlink(path);

	/* a malformed line after two copies of the sample: strict stops there
	 * whichever chunk holds it, naming its line in the file */
	(void)snprintf(path, sizeof(path), "%s/late-error.trace", tmpdir);
	if (!(f = fopen(path, "wb")))
		abort();
	put(f, s, slen);
	put(f, s, slen);
	put(f, "not a trace line\n", 17);
	put(f, s, slen);
	fclose(f);
	uint64_t bad_line = 2 * count_lines(s, slen) + 1;
	static const uint64_t ecs[] = {4099, 65536, 999983};
	bool named = true;
	for (size_t k = 0; k < sizeof(ecs) / sizeof(*ecs); k++) {
		struct trace_opts o = {.strict = true};
		struct trace_prefetch_opts po = {.threads = 2, .chunk_bytes = ecs[k]};
		struct trace_reader *r;
		struct trace_prefetch *p = NULL;
		struct trace_event ev;
		struct err e;
		char want[PATH_MAX + 64];
		uint64_t events = 0;
		int rc;
		if (trace_open(path, &o, &r, &e) || trace_prefetch_open_opts(r, &po, &p, &e)) {
			named = false;
			continue;
		}
		while ((rc = trace_prefetch_next(p, &ev, &e)) == 1)
			events++;
		(void)snprintf(want, sizeof(want), "%s:%" PRIu64 ": expected ", path, bad_line);
		/* 3000 events per copy (grep, see test_trace.c) */
		named &= rc == SLABSIM_EINPUT && strncmp(e.msg, want, strlen(want)) == 0 &&
			 events == 6000 && trace_prefetch_stats(p)->lines == bad_line;
		trace_prefetch_close(p);
		trace_close(r);
	}
	CHECK("strict: an error 2 samples in is named at its file line after 6000 events", named);
	test_file(path, "late-error");
	unlink(path);
	free(s);
}

/* What is not a plain regular file keeps the single producer: stdin, here
 * a pipe holding a header line. */
static void not_chunked(void)
{
	struct trace_prefetch_opts po = {.threads = 3, .chunk_bytes = 100};
	struct trace_reader *r = NULL;
	struct trace_prefetch *p = NULL;
	struct err e;
	int fds[2], saved = dup(STDIN_FILENO);
	bool ok = saved >= 0 && pipe(fds) == 0;
	if (ok) {
		ok = write(fds[1], "# tracer: nop\n", 14) == 14 && close(fds[1]) == 0 &&
		     dup2(fds[0], STDIN_FILENO) == STDIN_FILENO && close(fds[0]) == 0;
	}
	ok = ok && trace_open("-", NULL, &r, &e) == 0 &&
	     trace_prefetch_open_opts(r, &po, &p, &e) == 0 && trace_prefetch_threads(p) == 1 &&
	     !trace_is_plain_file(r);
	CHECK("stdin pipe: one producer", ok);
	trace_prefetch_close(p);
	trace_close(r);
	if (saved >= 0) {
		(void)dup2(saved, STDIN_FILENO);
		close(saved);
	}
}

/* Without a chunk size, files under two chunks keep the single producer. */
static void small_not_chunked(const char *sample)
{
	struct trace_prefetch_opts po = {.threads = 2};
	struct trace_reader *r;
	struct trace_prefetch *p = NULL;
	struct err e;
	bool ok = trace_open(sample, NULL, &r, &e) == 0 && trace_is_plain_file(r) &&
		  trace_prefetch_open_opts(r, &po, &p, &e) == 0 && trace_prefetch_threads(p) == 1;
	CHECK("a file under two chunks: one producer", ok);
	trace_prefetch_close(p);
	trace_close(r);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s <boot-excerpt.trace> <file or dir>...\n", argv[0]);
		return 2;
	}
	if (!mkdtemp(tmpdir))
		return 2;
	not_chunked();
	small_not_chunked(argv[1]);
	made_files(argv[1]);
	for (int i = 2; i < argc; i++) {
		unsigned k = trace_files(argv[i], test_one, NULL);
		char name[300];
		(void)snprintf(name, sizeof(name), "%s: has trace files", argv[i]);
		CHECK(name, k > 0);
	}
	printf("# %u files\n", nfiles);
	rmdir(tmpdir);
	return check_done();
}
