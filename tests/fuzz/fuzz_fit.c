/* fuzz_fit.c - libFuzzer harness for `slabsim fit` (traces/fit.h): the
 * input is a trace file, read as cmd_fit reads it (trace_open on a memfd,
 * lax: malformed lines skipped), every event to fit_event, then fit_finish
 * and the spec writer, twice: one stream per call site (the default
 * options), and one per cache with small streams folded and none periodic.
 *
 * It fails on a sanitizer report; on an error other than bad input
 * (SLABSIM_EINPUT) naming the file: "PATH:LINE: expected " from an event
 * (a CPU no spec can name), "PATH: expected " from fit_finish (no
 * allocation, no time spanned), or the reader's own refusals ("PATH: ...");
 * on a written spec that workload_parse() refuses, or whose cpus is not
 * 1 + the highest CPU of an allocation fit kept; and on a spec whose text
 * differs between two writes (the writer must not depend on anything but
 * the fit).
 *
 * Compressed inputs, trace.dat and perf.data are skipped: they go to a
 * decompressor child or to libtracecmd (fuzz_trace covers the recognition),
 * and the target is what fit does with events.
 */
#define _GNU_SOURCE /* memfd_create */
#include "fit.h"
#include "policy.h"
#include "trace.h"
#include "workload.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *msg)
{
	fprintf(stderr, "fuzz_fit: %s%s%s\n", what, msg ? ": " : "", msg ? msg : "");
	abort();
}

/* The creation flags of a traced geometry, as cmd_fit infers them. */
static bool infer_geom(void *ctx, uint32_t osz, uint32_t slot, struct fit_cache_geom *g)
{
	struct policy_cfg cfg;
	struct policy_cache_spec t = {.name = "fit"};
	(void)ctx;
	policy_cfg_default(&cfg);
	if (!policy_guess_spec(&cfg, osz, slot, &t))
		return false;
	g->align = t.align;
	g->hwcache = (t.flags & POLICY_F_HWCACHE_ALIGN) != 0;
	g->ctor = t.ctor;
	return true;
}

/* Inputs that trace_open hands to a child process or to libtracecmd. */
static bool skipped(const uint8_t *d, size_t n)
{
	static const struct {
		const char *m;
		size_t n;
	} magic[] = {
		{"\x1f\x8b", 2},	     /* gzip */
		{"\xfd\x37\x7a\x58\x5a", 5}, /* xz */
		{"\x28\xb5\x2f\xfd", 4},     /* zstd */
		{"BZh", 3},		     /* bzip2 */
		{"PERFILE2", 8},	     /* perf.data */
		{"\x17\x08\x44tracing", 10}, /* trace.dat */
	};
	for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if (n >= magic[i].n && memcmp(d, magic[i].m, magic[i].n) == 0)
			return true;
	return false;
}

/* "PATH:" then digits then ": expected " (line > 0), or "PATH: expected ". */
static bool names_place(const char *msg, const char *path, bool line)
{
	size_t n = strlen(path);
	if (strncmp(msg, path, n) != 0 || msg[n] != ':')
		return false;
	const char *p = msg + n + 1;
	if (line) {
		if (*p < '1' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p++ != ':')
			return false;
	}
	return strncmp(p, " expected ", 10) == 0;
}

/* The spec as text (fit_write_spec into a memory stream); free() it. */
static char *spec_text(const struct fit *f, const char *path, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	if (!m)
		abort();
	fit_write_spec(f, m, path);
	if (fclose(m))
		abort();
	return buf;
}

/* One fit of the whole input; the reader is opened afresh. */
static void fit_once(const char *path, const struct fit_opts *fo)
{
	struct trace_opts to = {.strict = false};
	struct trace_reader *tr = NULL;
	struct trace_event ev;
	struct fit *f = NULL;
	struct err e;
	uint32_t max_cpu = 0;
	bool any_alloc = false;
	int rc;

	err_clear(&e);
	if ((rc = trace_open(path, &to, &tr, &e))) {
		/* empty, binary: refused naming the file */
		if (rc != SLABSIM_EINPUT || strncmp(e.msg, path, strlen(path)) != 0)
			fail("trace_open", e.msg);
		return;
	}
	if (fit_create(fo, &f, &e))
		fail("fit_create", e.msg);
	while ((rc = trace_next(tr, &ev, &e)) == 1) {
		if ((rc = fit_event(f, &ev, &e))) {
			if (rc != SLABSIM_EINPUT || !names_place(e.msg, path, true) ||
			    ev.cpu <= FIT_CPU_MAX)
				fail("fit_event: not bad input naming PATH:LINE and a CPU", e.msg);
			break;
		}
		/* what fit keeps (fit.c on_alloc): a pointer and a size it can state */
		bool alloc = ev.type == TRACE_EV_KMALLOC || ev.type == TRACE_EV_KMALLOC_NODE ||
			     ev.type == TRACE_EV_CACHE_ALLOC ||
			     ev.type == TRACE_EV_CACHE_ALLOC_NODE;
		if (alloc && ev.ptr && ev.bytes_req && ev.bytes_req <= FIT_SIZE_MAX &&
		    ev.bytes_alloc <= FIT_SIZE_MAX) {
			any_alloc = true;
			if (ev.cpu > max_cpu)
				max_cpu = ev.cpu;
		}
	}
	if (rc < 0 && rc != SLABSIM_EINPUT)
		fail("trace_next: not bad input", e.msg);
	if (rc < 0 && strncmp(e.msg, path, strlen(path)) != 0)
		fail("an error not naming the file", e.msg);
	if (rc == 0 && (rc = fit_finish(f, &e))) {
		if (rc != SLABSIM_EINPUT || !names_place(e.msg, path, false))
			fail("fit_finish: not bad input naming PATH", e.msg);
		if (any_alloc && strstr(e.msg, "found none"))
			fail("fit_finish: no allocation, but one was kept", e.msg);
	} else if (rc == 0) {
		size_t len, len2;
		char *text = spec_text(f, path, &len);
		char *again = spec_text(f, path, &len2);
		if (len != len2 || memcmp(text, again, len) != 0)
			fail("two writes of one fit differ", NULL);
		struct workload *w = NULL;
		rc = workload_parse("fit.wl", text, len, &w, &e);
		if (rc) {
			fprintf(stderr, "fuzz_fit: the spec:\n%s\n", text);
			fail("workload_parse refuses the fitted spec", e.msg);
		}
		if (!any_alloc || workload_cpus(w) != max_cpu + 1)
			fail("the spec's cpus is not 1 + the highest CPU of a kept allocation",
			     NULL);
		workload_free(w);
		free(text);
		free(again);
	}
	fit_destroy(f);
	trace_close(tr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	if (skipped(data, size))
		return 0;
	int fd = memfd_create("fuzz_fit", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	struct fit_opts fo;
	fit_opts_default(&fo);
	fo.infer = infer_geom;
	fo.name = "fuzz";
	fo.source = path;
	fit_once(path, &fo);

	fo.by = FIT_BY_CACHE;
	fo.min_allocs = 3;
	fo.max_sizes = 2;
	fo.min_pairs = 2;
	fo.periodic_below = 0;
	fit_once(path, &fo);
	close(fd);
	return 0;
}
