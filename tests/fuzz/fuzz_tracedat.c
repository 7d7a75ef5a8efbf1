/* fuzz_tracedat.c - libFuzzer harness for trace.dat input (traces/tracedat.c
 * through traces/trace.h).
 *
 * The input is not a file but a way of corrupting one: a copy of a bundled
 * trace.dat (traces/samples/linux-6.18-kmem*.dat, chosen by the first
 * byte's low bit), overwritten by the rest of the input in groups of 5
 * bytes (a 32-bit offset, taken modulo the file's size, and a byte XORed
 * in there) and, when the first byte's bit 1 is set, cut at the first
 * group's offset. So every run is a real trace.dat with a few bytes wrong,
 * which reaches libtracecmd's and libtraceevent's parsers of headers,
 * format text, compressed sections and records; random bytes would stop
 * at the magic. The copy is read from a memfd, lax or (bit 2) strict, as
 * slabsim reads a file. A file of the usual shape is read in this process
 * (traces/datfile.c and kbuffer, seen by libFuzzer and the sanitizers);
 * any other goes to libtracecmd in the reader's child process, so a crash
 * in it must come back as an input error naming the file, never as a
 * crash here; its coverage is not seen by libFuzzer (another process),
 * the corruption's variety stands in for it.
 */
#define _GNU_SOURCE /* memfd_create */
#include "trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* libtracecmd mallocs sizes read from a corrupt header (0x6d616e0000000000
 * seen). Outside a sanitizer that malloc returns NULL; under ASan's default
 * it ends the reader's child with a report (and libFuzzer's inherited death
 * callback writes a crash file from the child). Make it fail as slabsim's
 * users see it, so the parent's handling of the child is what is tested. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

#ifndef FUZZ_SAMPLES_DIR
#error "FUZZ_SAMPLES_DIR: the bundled traces (tests/fuzz/meson.build defines it)"
#endif

static unsigned char *sample[2];
static size_t sample_len[2];

static void load(int i, const char *name)
{
	char p[4096];
	(void)snprintf(p, sizeof(p), "%s/%s", FUZZ_SAMPLES_DIR, name);
	FILE *f = fopen(p, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (sample_len[i] = (size_t)ftell(f)) == 0 ||
	    !(sample[i] = malloc(sample_len[i])) || fseek(f, 0, SEEK_SET) ||
	    fread(sample[i], 1, sample_len[i], f) != sample_len[i]) {
		fprintf(stderr, "fuzz_tracedat: cannot read %s\n", p);
		abort();
	}
	fclose(f);
}

/* Read the whole copy at path; check how it ended. */
static void read_all(const char *path, bool strict)
{
	struct trace_opts o = {.strict = strict};
	struct trace_reader *r = NULL;
	struct trace_event ev;
	struct err e;
	size_t plen = strlen(path);
	err_clear(&e);
	int rc = trace_open(path, &o, &r, &e);
	if (!rc) {
		uint64_t n = 0;
		while ((rc = trace_next(r, &ev, &e)) == 1)
			if (++n > 10000000)
				abort(); /* the samples hold 5,000 records */
		const struct trace_stats *st = trace_stats(r);
		/* the statistics' shortfall is part of what they expected */
		if (st->dat_unread > st->dat_expected)
			abort();
		/* lax: nothing short is silent, it is counted as lost */
		if (!rc && st->dat_unread && st->lost_in_buffer_stats < st->dat_unread)
			abort();
		/* strict: never a shortfall accepted */
		if (!rc && strict && st->dat_unread)
			abort();
	}
	/* bad input, or no memory for what a corrupt header asks; named */
	if (rc && rc != SLABSIM_EINPUT && rc != SLABSIM_ENOMEM && rc != SLABSIM_EIO) {
		fprintf(stderr, "fuzz_tracedat: code %d: %s\n", rc, e.msg);
		abort();
	}
	/* The child may also end with an exit status: in this sanitized
	 * build, libtracecmd asking malloc for a size read from a corrupt
	 * header is a sanitizer report there (allocation-size-too-big; the
	 * real allocator returns NULL). It is an input error all the same;
	 * its report stays in the log. */
	if (rc && rc != SLABSIM_ENOMEM && strncmp(e.msg, path, plen) != 0) {
		fprintf(stderr, "fuzz_tracedat: message not naming %s: %s\n", path, e.msg);
		abort();
	}
	trace_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!sample[0]) {
		load(0, "linux-6.18-kmem.dat");
		load(1, "linux-6.18-kmem-lost.dat");
	}
	if (size < 1)
		return 0;
	int s = data[0] & 1;
	size_t len = sample_len[s];
	unsigned char *b = malloc(len);
	if (!b)
		return 0;
	memcpy(b, sample[s], len);
	for (size_t i = 1; i + 5 <= size && i < 1 + 5 * 64; i += 5) {
		uint32_t off;
		memcpy(&off, data + i, 4);
		b[off % len] ^= data[i + 4];
		if (i == 1 && (data[0] & 2))
			len = off % len + 1;
	}
	int fd = memfd_create("fuzz.dat", MFD_CLOEXEC);
	if (fd < 0 || write(fd, b, len) != (ssize_t)len) {
		free(b);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	free(b);
	char path[64];
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* one mode per input (bit 2): each read forks the reader's child,
	 * which is slow in a sanitized process of this size */
	read_all(path, (data[0] & 4) != 0);
	close(fd);
	return 0;
}
