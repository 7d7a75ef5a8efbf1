/* trace.c - streaming reader for the ftrace text of the kmem: slab events.
 *
 * One parser serves tracefs `trace`/`trace_pipe`, `trace-cmd report` and
 * `perf script`: all print "<task><sep><pid> [<cpu>] <flags>? <sec>.<frac>:
 * <event>: <fields>" and differ only in the separator ('-' or blanks), perf's
 * "kmem:" prefix and trace-cmd's "(sym+off)" token. Lines are split in one
 * fixed buffer (read(2) + memchr) and parsed in place by pointer scanning, so
 * memory is that buffer (TRACE_LINE_MAX) whatever the trace length; longer
 * lines are counted malformed and skipped. Slab event lines in the kernel's
 * own field order (nearly all of a tracefs or trace-cmd trace) take a fast
 * path, parse_fast(), at under half the cost; any other line, and any line it
 * is unsure of, goes to the general parser, parse_line(), whose results it
 * must reproduce exactly (tests/traces/test_fastpath.c). Compressed files are
 * piped through gzip/xz/zstd started with posix_spawnp; a decompressor that
 * fails is an I/O error at end of input, never a silently short trace.
 */
#include "trace.h"
#include "bigmem.h"
#include "sat.h"
#include "source.h"
#include "load.h"
#include "perfdata.h"
#include "tracedat.h"
#include "xxh_avx2.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* posix_spawnp needs it; POSIX has no header that must declare it. */
extern char **environ;

/* Longest line kept, newline included. Kernel event lines are a few hundred
 * bytes and a trace_marker write is at most a page, so anything longer is
 * not a trace line; skipping it keeps memory bounded on hostile input. */
#ifndef TRACE_LINE_MAX /* the fuzz harness builds this file with a small one */
#define TRACE_LINE_MAX (1u << 20)
#endif
/* The line buffer: a full line, the NUL after it and TRACE_LINE_PAD bytes
 * for parse_fast()'s word reads; BUF_HUGE when it is a huge page. */
#define BUF_BYTES ((size_t)TRACE_LINE_MAX + 1 + TRACE_LINE_PAD)
#define BUF_HUGE  ((size_t)2 << 20)
_Static_assert(BUF_BYTES <= BUF_HUGE, "the line buffer fits a huge page");

#define MSG_MAX	    256 /* parse messages, as in trace_stats */
#define EXCERPT_MAX 64	/* bytes of input quoted in a message */

const char *const trace_ev_names[TRACE_EV_NR] = {
	[TRACE_EV_KMALLOC] = "kmalloc",
	[TRACE_EV_KMALLOC_NODE] = "kmalloc_node",
	[TRACE_EV_CACHE_ALLOC] = "kmem_cache_alloc",
	[TRACE_EV_CACHE_ALLOC_NODE] = "kmem_cache_alloc_node",
	[TRACE_EV_KFREE] = "kfree",
	[TRACE_EV_CACHE_FREE] = "kmem_cache_free",
	[TRACE_EV_MARKER] = "tracing_mark_write",
	[TRACE_EV_PAGE_FREE] = "mm_page_free",
	[TRACE_EV_PAGE_ALLOC] = "mm_page_alloc",
};

struct trace_reader {
	char *path;
	bool strict;
	uint32_t skip_fields;  /* trace_opts.skip_fields */
	int fd;		       /* lines come from here: the file, stdin or the child's stdout */
	bool own_fd;	       /* false for stdin */
	int src_fd;	       /* compressed file, the child's stdin (shared offset); -1 */
	int err_fd;	       /* the child's stderr; -1 */
	pid_t child;	       /* decompressor, -1 when none or reaped */
	const char *prog;      /* "gzip", "xz", "zstd", "bzip2" or NULL */
	bool plain;	       /* a regular file read as is: byte ranges work */
	bool ranged;	       /* reads a byte range (trace_set_range) */
	struct tracedat *dat;  /* a trace.dat: records, not lines, come from here */
	struct perfdata *perf; /* a perf.data: samples, not lines, come from here */
	char *kallsyms;	       /* trace_opts.kallsyms, copied */
	bool at_eof;
	bool skipping; /* inside a line longer than TRACE_LINE_MAX */
	uint64_t line_no;
	uint64_t bytes_read;
	uint64_t size_bytes; /* st_size of a regular file, else 0 */
	uint64_t base;	     /* file offset of the first byte read (trace_open_range) */
	uint64_t limit;	     /* no line starting at or after this offset is read */
	char *buf;	     /* BUF_BYTES, or BUF_HUGE (buf_huge) */
	bool buf_huge;
	size_t start, end; /* unparsed bytes are buf[start, end) */
	struct err fail;   /* sticky I/O error */
	struct trace_stats stats;
	/* The input's identity, on the read that parses it: the bytes of fd
	 * while they are the input as stored (hash_stream), from its start.
	 * A compressed file or a trace.dat is read by another (the
	 * decompressor, libtracecmd): hash_fd is then that file, hashed
	 * from hash_from at the end. NULL: no hash (a byte range, no memory). */
	XXH3_state_t *hash;
	bool hash_stream;
	bool hash_avx2; /* xxh_avx2_update hashes (the same digest, fewer instructions) */
	int hash_fd;
	uint64_t hash_from;
	/* trace_next_batch(): what ended a batch after some events, for the
	 * next call (held_rc < 0 only) */
	int held_rc;
	struct err held_err;
	/* text_run's line templates, made on its first call; tpl_off: none */
	struct line_tpls *tpl;
	bool tpl_off;
};

/* ---- Small scanning helpers ---------------------------------------------- */

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

/* A hex digit's value with bit 4 set, 0 for any other byte. The set bit lets
 * scan_hex() check 16 digits with one AND instead of a branch per digit. */
static const uint8_t hex_tab[256] = {
	['0'] = 0x10, ['1'] = 0x11, ['2'] = 0x12, ['3'] = 0x13, ['4'] = 0x14, ['5'] = 0x15,
	['6'] = 0x16, ['7'] = 0x17, ['8'] = 0x18, ['9'] = 0x19, ['a'] = 0x1a, ['b'] = 0x1b,
	['c'] = 0x1c, ['d'] = 0x1d, ['e'] = 0x1e, ['f'] = 0x1f, ['A'] = 0x1a, ['B'] = 0x1b,
	['C'] = 0x1c, ['D'] = 0x1d, ['E'] = 0x1e, ['F'] = 0x1f,
};

/* Bytes that end a token: a blank or the NUL at the end of the line (a table:
 * one load instead of three compares, at the end of every value). */
static const bool ends_token[256] = {['\0'] = true, [' '] = true, ['\t'] = true};

static inline bool is_end(char c)
{
	return ends_token[(unsigned char)c];
}

static inline int hex_digit(char c)
{
	unsigned x = hex_tab[(unsigned char)c];

	return x ? (int)(x & 15) : -1;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool span_is(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* Decimal digits [s, e) into *out; false if empty, not a number or > 2^64-1. */
static bool parse_dec(const char *s, const char *e, uint64_t *out)
{
	uint64_t v = 0;

	if (s == e)
		return false;
	if (e - s < 20) { /* 19 digits cannot overflow: skip the check */
		for (; s < e; s++) {
			if (!is_digit(*s))
				return false;
			v = v * 10 + (uint64_t)(*s - '0');
		}
	} else {
		for (; s < e; s++) {
			unsigned d = (unsigned)(*s - '0');
			if (!is_digit(*s) || v > (UINT64_MAX - d) / 10)
				return false;
			v = v * 10 + d;
		}
	}
	*out = v;
	return true;
}

/* Hex digits [s, e), with or without 0x; false if empty or > 64 bits. */
static bool parse_hex(const char *s, const char *e, uint64_t *out)
{
	uint64_t v = 0;

	if (e - s > 2 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	if (s == e)
		return false;
	for (; s < e; s++) {
		int d = hex_digit(*s);
		if (d < 0 || v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

/* The field parsers below read a value in place and stop at the first byte
 * that does not belong to it; the caller accepts the value only if that byte
 * ends the token (is_end), so each value is read once. They return that
 * byte's address, or NULL when the value is invalid, and write *out only on
 * success. The token ends at the latest at the NUL of the line. */

/* Decimal digits at s: NULL if none or > 2^64-1. */
static const char *scan_dec(const char *s, uint64_t *out)
{
	const char *d = s;
	uint64_t v = 0;

	for (; is_digit(*s) && s - d < 19; s++) /* 19 digits cannot overflow */
		v = v * 10 + (uint64_t)(*s - '0');
	for (; is_digit(*s); s++) {
		unsigned c = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - c) / 10)
			return NULL;
		v = v * 10 + c;
	}
	if (s == d)
		return NULL;
	*out = v;
	return s;
}

/* Hex digits at s, with or without 0x: NULL if none or > 64 bits. */
static const char *scan_hex(const char *s, const char *end, uint64_t *out)
{
	const char *d;
	uint64_t v = 0;
	unsigned x;

	if (s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	/* Hashed and raw pointers are 16 digits: check them all, branch once. */
	if (end - s >= 16 && is_end(s[16])) {
		unsigned all = 0x10;
		for (int i = 0; i < 16; i++) {
			x = hex_tab[(unsigned char)s[i]];
			all &= x;
			v = v << 4 | (x & 15);
		}
		if (all) {
			*out = v;
			return s + 16;
		}
		v = 0; /* a blank or a non-hex byte: the general loop finds which */
	}
	for (d = s; (x = hex_tab[(unsigned char)*s]) != 0; s++) {
		if (v >> 60)
			return NULL;
		v = v << 4 | (x & 15);
	}
	if (s == d)
		return NULL;
	*out = v;
	return s;
}

/* A decimal int32 with optional '-' at s. */
static const char *scan_i32(const char *s, int32_t *out)
{
	bool neg = *s == '-';
	uint64_t v;

	s = scan_dec(s + neg, &v);
	if (!s || v > (uint64_t)INT32_MAX + neg)
		return NULL;
	*out = neg ? (int32_t)(-(int64_t)v) : (int32_t)v;
	return s;
}

/* Is the token at s exactly lit? end: the line's NUL. The first byte is
 * tested inline: GCC calls memcmp for most lengths, and "(null)", "any" and
 * "none" are rare values. */
static inline bool word_is(const char *s, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(end - s) >= n && s[0] == lit[0] && memcmp(s, lit, n) == 0 && is_end(s[n]);
}

/* Quote [s, e) for a message: "'text'" (cut at EXCERPT_MAX bytes, '?' for
 * bytes that are not printable ASCII) or "end of line" when empty. */
static const char *quote(char dst[EXCERPT_MAX + 8], const char *s, const char *e)
{
	size_t n = 0;

	if (s >= e)
		return "end of line";
	dst[n++] = '\'';
	while (s < e && n <= EXCERPT_MAX) {
		unsigned char c = (unsigned char)*s++;
		dst[n++] = (char)(c >= 0x20 && c < 0x7f ? c : '?');
	}
	if (s < e) {
		memcpy(dst + n, "...", 3);
		n += 3;
	}
	dst[n++] = '\'';
	dst[n] = '\0';
	return dst;
}

/* The blank or NUL that ends the token at p; end: the line's NUL. Eight bytes
 * at a time (no NUL before end, so only blanks are looked for) while they are
 * in the line: call_site= values are 20-60 bytes on every event. */
static char *token_end(char *p, const char *end)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;

	for (; end - p >= 8; p += 8) {
		uint64_t x, sp, tab;
		memcpy(&x, p, 8);
		sp = x ^ (ones * ' ');
		tab = x ^ (ones * '\t');
		if ((((sp - ones) & ~sp) | ((tab - ones) & ~tab)) & highs)
			break; /* a blank in these 8 bytes */
	}
	while (!is_end(*p))
		p++;
	return p;
}

__attribute__((format(printf, 2, 3))) static int bad(char *msg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, MSG_MAX, fmt, ap);
	va_end(ap);
	return SLABSIM_EINPUT;
}

/* ---- gfp_flags -------------------------------------------------------------- */

/* Raw gfp bits, as printed in hex by 5.x for bits without a name, or whole by
 * libtraceevent's "[FAILED TO PARSE]" fallback. Values from the kernel's
 * ___GFP_* definitions, identical in v5.4 include/linux/gfp.h and v6.1
 * include/linux/gfp_types.h (the layout dates from "mm: shuffle GFP_* flags",
 * 2019; kernels before it put __GFP_ACCOUNT at 0x100000 and are misread). */
enum {
	RAW_GFP_DMA = 0x01u,
	RAW_GFP_RECLAIMABLE = 0x10u,
	RAW_GFP_ACCOUNT = 0x400000u,
	RAW_GFP_NOWARN = 0x2000u,
	RAW_GFP_HARDWALL = 0x100000u,
};

static uint32_t raw_gfp_bits(uint64_t raw)
{
	return (raw & RAW_GFP_DMA ? TRACE_GFP_DMA : 0u) |
	       (raw & RAW_GFP_RECLAIMABLE ? TRACE_GFP_RECLAIMABLE : 0u) |
	       (raw & RAW_GFP_ACCOUNT ? TRACE_GFP_ACCOUNT : 0u) |
	       (raw & RAW_GFP_NOWARN ? TRACE_GFP_NOWARN : 0u) |
	       (raw & RAW_GFP_HARDWALL ? TRACE_GFP_HARDWALL : 0u);
}

/* Only these names (from show_gfp_flags() in include/trace/events/mmflags.h)
 * carry a bit that picks a kmalloc cache type; the rest are ignored. */
static uint32_t named_gfp_bits(const char *s, size_t n)
{
	if (span_is(s, n, "GFP_DMA") || span_is(s, n, "__GFP_DMA"))
		return TRACE_GFP_DMA;
	if (span_is(s, n, "__GFP_RECLAIMABLE") || span_is(s, n, "GFP_TEMPORARY")) /* < 4.14 */
		return TRACE_GFP_RECLAIMABLE;
	if (span_is(s, n, "__GFP_ACCOUNT") || span_is(s, n, "GFP_KERNEL_ACCOUNT"))
		return TRACE_GFP_ACCOUNT;
	/* and the two that route memdup_user's kmallocs (GFP_USER |
	 * __GFP_NOWARN) to its kmem_buckets */
	if (span_is(s, n, "GFP_USER") || span_is(s, n, "__GFP_HARDWALL"))
		return TRACE_GFP_HARDWALL;
	if (span_is(s, n, "__GFP_NOWARN"))
		return TRACE_GFP_NOWARN;
	return 0;
}

/* Bytes that end one flag of gfp_flags=: '|' and those that end the token. */
static const bool ends_flag[256] = {['\0'] = true, [' '] = true, ['\t'] = true, ['|'] = true};

/* "A|B|0x100", "0x400cc0", "3264", "none", or "" (6.1 blanks it under the
 * nohash-ptr option: not known, not an error), at s; end: the line's NUL.
 * Returns where the value ends, NULL if it is malformed (as scan_dec). */
static const char *scan_gfp(const char *s, const char *end, uint32_t *gfp)
{
	uint32_t bits = TRACE_GFP_KNOWN;

	if (is_end(*s))
		return s;
	if (word_is(s, end, "none")) {
		*gfp |= bits;
		return s + 4;
	}
	for (;;) {
		const char *i = s;
		uint64_t raw;

		while (!ends_flag[(unsigned char)*s])
			s++;
		if (s == i)
			return NULL;
		if (is_digit(*i)) {
			bool hex = s - i > 2 && i[1] == 'x';
			if (!(hex ? parse_hex(i, s, &raw) : parse_dec(i, s, &raw)))
				return NULL;
			bits |= raw_gfp_bits(raw);
		} else {
			bits |= named_gfp_bits(i, (size_t)(s - i));
		}
		if (*s != '|')
			break;
		s++;
	}
	*gfp |= bits;
	return s;
}

/* ---- Line parser ---------------------------------------------------------- */

/* "CPU:<n> [LOST <m> EVENTS]", "CPU:<n> [LOST EVENTS]" (tracefs) or
 * "CPU:<n> [<m> EVENTS DROPPED]" (trace-cmd); p points at "CPU:". */
static bool parse_lost(const char *p, uint64_t *lost)
{
	const char *d;
	uint64_t n = 0;

	p += 4;
	if (!is_digit(*p))
		return false;
	while (is_digit(*p))
		p++;
	while (is_blank(*p))
		p++;
	if (*p++ != '[')
		return false;
	if (starts_with(p, "LOST EVENTS]")) {
		p += strlen("LOST EVENTS]");
	} else if (starts_with(p, "EVENTS DROPPED]")) { /* trace-cmd, count unknown */
		p += strlen("EVENTS DROPPED]");
	} else {
		bool lost_form = starts_with(p, "LOST ");
		if (lost_form)
			p += 5;
		for (d = p; is_digit(*p); p++)
			;
		if (!parse_dec(d, p, &n))
			return false;
		if (lost_form && starts_with(p, " EVENTS]"))
			p += strlen(" EVENTS]");
		else if (!lost_form && starts_with(p, " EVENTS DROPPED]"))
			p += strlen(" EVENTS DROPPED]");
		else
			return false;
	}
	while (is_blank(*p))
		p++;
	if (*p)
		return false;
	*lost = n;
	return true;
}

/* trace-cmd report's own header lines ("version = 6", "cpus=2",
 * "CPU 0 is empty", "CPU 1 data recorded at offset=..."). */
static bool is_tracecmd_header(const char *p)
{
	if (starts_with(p, "version = ") || starts_with(p, "cpus="))
		return true;
	if (!starts_with(p, "CPU ") || !is_digit(p[4]))
		return false;
	for (p += 4; is_digit(*p); p++)
		;
	return strcmp(p, " is empty") == 0 || starts_with(p, " data recorded");
}

/* "<sec>.<frac>:" with 1 to 9 fraction digits, to ns in integers (a double
 * loses nanoseconds after ~104 days of uptime). *endp: the ':'. */
static bool parse_timestamp(char *p, char **endp, uint64_t *t_ns)
{
	char *d = p;
	uint64_t sec, frac = 0;
	int nfrac = 0;

	while (is_digit(*p))
		p++;
	if (*p != '.' || !parse_dec(d, p, &sec) || sec > UINT64_MAX / 1000000000u)
		return false;
	for (p++; is_digit(*p); p++) {
		if (++nfrac > 9)
			return false;
		frac = frac * 10 + (uint64_t)(*p - '0');
	}
	if (nfrac == 0 || *p != ':')
		return false;
	for (; nfrac < 9; nfrac++)
		frac *= 10;
	sec *= 1000000000u;
	if (frac > UINT64_MAX - sec)
		return false;
	*t_ns = sec + frac;
	*endp = p;
	return true;
}

/* Name to event type; -1 for any other event. The names differ in length,
 * so the length picks the one candidate. */
static int event_type(const char *s, size_t n)
{
	int t;

	switch (n) {
	case 5:
		t = TRACE_EV_KFREE;
		break;
	case 7:
		t = TRACE_EV_KMALLOC;
		break;
	case 12:
		t = *s == 'm' ? TRACE_EV_PAGE_FREE : TRACE_EV_KMALLOC_NODE;
		break;
	case 13:
		t = TRACE_EV_PAGE_ALLOC;
		break;
	case 15:
		t = TRACE_EV_CACHE_FREE;
		break;
	case 16:
		t = TRACE_EV_CACHE_ALLOC;
		break;
	case 18:
		t = TRACE_EV_MARKER;
		break;
	case 21:
		t = TRACE_EV_CACHE_ALLOC_NODE;
		break;
	default:
		return -1;
	}
	return memcmp(s, trace_ev_names[t], n) == 0 ? t : -1;
}

static bool is_alloc(enum trace_ev_type t)
{
	return t == TRACE_EV_KMALLOC || t == TRACE_EV_KMALLOC_NODE || t == TRACE_EV_CACHE_ALLOC ||
	       t == TRACE_EV_CACHE_ALLOC_NODE;
}

enum field {
	F_OTHER, /* unknown key, or a token without '=' */
	F_PTR,
	F_BYTES_REQ,
	F_BYTES_ALLOC,
	F_CALL_SITE,
	F_GFP_FLAGS,
	F_NODE,
	F_ACCOUNTED,
	F_NAME,
};

/* Does the token at t start with key ("name=": so the key is the token up to
 * its first '=')? *v: the value after it. Inline so that strlen and memcmp
 * see a literal. */
static inline bool key_is(char *t, const char *end, const char *key, char **v)
{
	size_t n = strlen(key);

	if ((size_t)(end - t) < n || memcmp(t, key, n) != 0)
		return false;
	*v = t + n;
	return true;
}

/* The field the token at t names, by its first byte and then its key; *v: the
 * value. */
static enum field field_of(char *t, const char *end, char **v)
{
	switch (*t) {
	case 'a':
		if (key_is(t, end, "accounted=", v))
			return F_ACCOUNTED;
		break;
	case 'b':
		if (key_is(t, end, "bytes_req=", v))
			return F_BYTES_REQ;
		if (key_is(t, end, "bytes_alloc=", v))
			return F_BYTES_ALLOC;
		break;
	case 'c':
		if (key_is(t, end, "call_site=", v))
			return F_CALL_SITE;
		break;
	case 'g':
		if (key_is(t, end, "gfp_flags=", v))
			return F_GFP_FLAGS;
		break;
	case 'n':
		if (key_is(t, end, "node=", v))
			return F_NODE;
		if (key_is(t, end, "name=", v))
			return F_NAME;
		break;
	case 'p':
		if (key_is(t, end, "ptr=", v))
			return F_PTR;
		break;
	}
	return F_OTHER;
}

/* NUL-terminate the token at p, for a string member to point to; returns
 * where the next token may start. */
static char *cut_token(char *p, const char *end)
{
	p = token_end(p, end);
	if (*p)
		*p++ = '\0';
	return p;
}

/* The "key=value ..." part of a slab event, from p to end (the NUL). Each
 * value is parsed where it starts, stopping at the blank after it; call_site
 * and name are NUL-terminated in place so that they can point into the line. */
static int parse_fields(char *p, char *end, struct trace_event *ev, char *msg)
{
	char q[EXCERPT_MAX + 8];
	const char *call_site = NULL, *sym = NULL;
	bool have_ptr = false, have_req = false, have_alloc = false;
	const char *ev_name = trace_ev_names[ev->type];

	for (;;) {
		char *t, *v, *te;
		const char *ve;
		uint64_t n;
		int32_t node;

		while (is_blank(*p))
			p++;
		if (!*p)
			break;
		t = p;
		switch (field_of(t, end, &v)) {
		case F_PTR:
			/* NULL: "(null)" (%p before hashed pointers) or
			 * "(nil)" (libtraceevent: trace-cmd report, perf script) */
			if (word_is(v, end, "(null)") || word_is(v, end, "(nil)")) {
				ev->ptr = 0;
				ve = token_end(v, end);
			} else if (!(ve = scan_hex(v, end, &n)) || !is_end(*ve)) {
				return bad(msg, "expected 'ptr=<hex>', got %s",
					   quote(q, t, token_end(v, end)));
			} else {
				ev->ptr = n;
			}
			have_ptr = true;
			p = (char *)ve;
			break;
		case F_BYTES_REQ:
			if (!(ve = scan_dec(v, &n)) || !is_end(*ve))
				return bad(msg, "expected 'bytes_req=<n>', got %s",
					   quote(q, t, token_end(v, end)));
			ev->bytes_req = n;
			have_req = true;
			p = (char *)ve;
			break;
		case F_BYTES_ALLOC:
			if (!(ve = scan_dec(v, &n)) || !is_end(*ve))
				return bad(msg, "expected 'bytes_alloc=<n>', got %s",
					   quote(q, t, token_end(v, end)));
			ev->bytes_alloc = n;
			have_alloc = true;
			p = (char *)ve;
			break;
		case F_NODE:
			if (word_is(v, end, "any")) {
				ev->node = -1;
				p = v + 3;
				break;
			}
			if (!(ve = scan_i32(v, &node)) || !is_end(*ve))
				return bad(msg, "expected 'node=<int>', got %s",
					   quote(q, t, token_end(v, end)));
			ev->node = node;
			p = (char *)ve;
			break;
		case F_ACCOUNTED:
			if (word_is(v, end, "true") || word_is(v, end, "1"))
				ev->accounted = 1;
			else if (word_is(v, end, "false") || word_is(v, end, "0"))
				ev->accounted = 0;
			else
				return bad(msg, "expected 'accounted=true|false', got %s",
					   quote(q, t, token_end(v, end)));
			p = token_end(v, end);
			break;
		case F_GFP_FLAGS:
			ev->gfp &= ~(uint32_t)TRACE_GFP_KNOWN;
			if (!(ve = scan_gfp(v, end, &ev->gfp)))
				return bad(msg, "expected 'gfp_flags=<flag>|...', got %s",
					   quote(q, t, token_end(v, end)));
			p = (char *)ve;
			break;
		case F_CALL_SITE:
			call_site = v;
			p = cut_token(v, end);
			break;
		case F_NAME:
			ev->name = v;
			p = cut_token(v, end);
			break;
		case F_OTHER:
			te = token_end(t, end);
			/* trace-cmd's kmem plugin: "(func+0x2a)" before call_site=;
			 * skipped: other keys, and "[FAILED TO PARSE]" */
			if (*t == '(' && te - t > 2 && te[-1] == ')' &&
			    !memchr(t, '=', (size_t)(te - t))) {
				te[-1] = '\0';
				sym = t + 1;
			}
			p = te;
			break;
		}
	}

	if (!have_ptr)
		return bad(msg, "expected 'ptr=<hex>' in %s event, got no ptr field", ev_name);
	if (is_alloc(ev->type) && !have_req)
		return bad(msg, "expected 'bytes_req=<n>' in %s event, got no bytes_req field",
			   ev_name);
	if (is_alloc(ev->type) && !have_alloc)
		return bad(msg, "expected 'bytes_alloc=<n>' in %s event, got no bytes_alloc field",
			   ev_name);
	if (sym)
		ev->call_site = sym;
	else if (call_site)
		ev->call_site = call_site;
	if (ev->accounted == 1 && !(ev->gfp & TRACE_GFP_ACCOUNT))
		ev->gfp |= TRACE_GFP_ACCOUNT |
			   ((ev->gfp & TRACE_GFP_KNOWN) ? TRACE_GFP_ACCOUNT_ONLY : 0);
	return 1;
}

/* The "page=%p pfn=0x%lx order=%d" of an mm_page_free event, and the
 * same before " migratetype=%d gfp_flags=%s" of an mm_page_alloc (every
 * kernel since 4.x prints them so; trace-cmd and perf script the same):
 * ptr = pfn << 12, bytes_alloc = 4096 << order; the other fields are read
 * past (a gfp_flags= of names and '|' is one token). */
static int parse_page_event(char *p, char *end, struct trace_event *ev, char *msg)
{
	char q[EXCERPT_MAX + 8];
	bool have_pfn = false, have_order = false;
	uint64_t pfn = 0, order = 0;

	while (!have_pfn || !have_order) { /* mm_page_alloc's gfp_flags= left unread */
		char *v;
		const char *ve;
		while (is_blank(*p))
			p++;
		if (!*p)
			break;
		char *t = p;
		if (key_is(t, end, "pfn=", &v)) {
			/* a failed mm_page_alloc prints pfn -1 (trace_mm_page_alloc
			 * runs whether a page came or not) */
			if (!(ve = scan_hex(v, end, &pfn)) || !is_end(*ve) ||
			    (pfn >> 40 && !(pfn == UINT64_MAX && ev->type == TRACE_EV_PAGE_ALLOC)))
				return bad(msg, "expected 'pfn=0x<hex>' below 2^40, got %s",
					   quote(q, t, token_end(v, end)));
			have_pfn = true;
			p = (char *)ve;
		} else if (key_is(t, end, "order=", &v)) {
			if (!(ve = scan_dec(v, &order)) || !is_end(*ve) || order > 20)
				return bad(msg, "expected 'order=<0..20>', got %s",
					   quote(q, t, token_end(v, end)));
			have_order = true;
			p = (char *)ve;
		} else {
			p = token_end(t, end);
		}
	}
	if (!have_pfn || !have_order)
		return bad(msg, "expected 'pfn=0x<hex> order=<n>' in %s event, got no %s field",
			   trace_ev_names[ev->type], have_pfn ? "order" : "pfn");
	if (pfn == UINT64_MAX) { /* no page given out: marks nothing (0 bytes) */
		ev->ptr = 0;
		ev->bytes_alloc = 0;
		return 1;
	}
	ev->ptr = pfn << 12;
	ev->bytes_alloc = UINT64_C(4096) << order;
	return 1;
}

/* The body of an ftrace print event: skip the writer's address as
 * "tracing_mark_write:", "<hex>:" or "ip=<hex> buf=". Returns the text. */
static char *skip_print_ip(char *p, char *end)
{
	char *t, *te;
	while (is_blank(*p))
		p++;
	t = p;
	te = token_end(t, end);
	if (te - t > 3 && memcmp(t, "ip=", 3) == 0) {
		char *b = te;
		while (is_blank(*b))
			b++;
		return end - b >= 4 && memcmp(b, "buf=", 4) == 0 ? b + 4 : p;
	}
	if (te > t + 1 && te[-1] == ':')
		return te;
	return p;
}

/* Parse s (NUL at end, no NUL before it). Returns 1 for a slab event or a
 * marker, 0 for other recognised lines (*kind), SLABSIM_EINPUT with msg. */
static int parse_line(char *s, char *end, struct trace_event *ev, enum trace_line_kind *kind,
		      uint64_t *lost, uint32_t skip_fields, char *msg)
{
	char q[EXCERPT_MAX + 8];
	char *p = s, *lb, *rb, *te, *d, *ts, *name, *name_end, *sys = NULL;
	uint64_t v;
	int32_t tgid;
	bool group = false;
	int type;

	/* Field by field: a compound literal compiles to "rep stos", whose
	 * start-up cost was 7 % of the parse (perf annotate). */
	ev->type = 0;
	ev->t_ns = 0;
	ev->cpu = 0;
	ev->pid = -1;
	trace_event_clear_fields(ev);
	ev->text = NULL;
	ev->line = 0;
	ev->site_id = 0;
	ev->tpl = 0;
	*kind = TRACE_LINE_HEADER;
	while (is_blank(*p))
		p++;
	if (!*p || *p == '#')
		return 0;
	if (p[0] == 'C' && p[1] == 'P' && p[2] == 'U') {
		if (p[3] == ':' && parse_lost(p, lost)) {
			*kind = TRACE_LINE_LOST;
			return 0;
		}
		if (is_tracecmd_header(p))
			return 0;
	} else if ((*p == 'v' || *p == 'c') && is_tracecmd_header(p)) {
		return 0;
	}

	/* [cpu]: the first "[digits]" with a blank (or the line start) before
	 * and a blank after. Task names may hold blanks, '-' and brackets. */
	for (lb = p;; lb++) {
		lb = memchr(lb, '[', (size_t)(end - lb));
		if (!lb)
			return bad(
				msg,
				"expected '<task>-<pid> [<cpu>]' at the start of the line, got %s",
				quote(q, p, end));
		if ((lb == p || is_blank(lb[-1])) && is_digit(lb[1])) {
			for (rb = lb + 1; is_digit(*rb); rb++)
				;
			if (*rb == ']' && (is_blank(rb[1]) || !rb[1]))
				break;
		}
	}
	if (!parse_dec(lb + 1, rb, &v) || v > UINT32_MAX)
		return bad(msg, "expected '[<cpu>]', got %s", quote(q, lb, rb + 1));
	ev->cpu = (uint32_t)v;

	/* pid: the digits after the last '-' (tracefs, trace-cmd) or after
	 * blanks (perf, which may also print "pid/tid": the process's, then
	 * the thread's). tracefs' record-tgid option adds "(<tgid>)" before
	 * [cpu], "(-------)" when the kernel has none. A thread group's id
	 * (perf's pid, the tgid) is the pid, with TRACE_PID_GROUP, where the
	 * line has one: threads share their process's mm, which is what the
	 * pid is for (sim/mmfree.h). */
	te = lb;
	while (te > p && is_blank(te[-1]))
		te--;
	tgid = -1;
	if (te > p && te[-1] == ')') {
		char *o = te - 1, *g;
		while (o > p && (is_digit(o[-1]) || is_blank(o[-1]) || o[-1] == '-'))
			o--;
		if (o > p && o[-1] == '(') {
			for (g = o; g < te - 1 && is_blank(*g); g++)
				;
			if (parse_dec(g, te - 1, &v) && v > 0 && v <= INT32_MAX)
				tgid = (int32_t)v;
			te = o - 1;
			while (te > p && is_blank(te[-1]))
				te--;
		}
	}
	for (d = te; d > p && is_digit(d[-1]); d--)
		;
	if (d > p + 1 && d[-1] == '/' && d < te && is_digit(d[-2])) {
		te = d - 1;
		for (d = te; d > p && is_digit(d[-1]); d--)
			;
		group = true;
	}
	if (d < te && (d == p || d[-1] == '-' || is_blank(d[-1]))) {
		if (!parse_dec(d, te, &v) || v > INT32_MAX)
			return bad(msg, "expected '<task>-<pid>', got %s", quote(q, p, te));
		ev->pid = (int32_t)v;
		if (group && v < TRACE_PID_GROUP)
			ev->pid |= TRACE_PID_GROUP;
	}
	if (tgid > 0 && tgid < TRACE_PID_GROUP)
		ev->pid = tgid | TRACE_PID_GROUP;

	/* The irq-flags column ("d..1.") is optional; its first character
	 * (irqs-off) is never a digit, a timestamp's always is. */
	p = rb + 1;
	while (is_blank(*p))
		p++;
	if (*p && !is_digit(*p)) {
		p = token_end(p, end);
		while (is_blank(*p))
			p++;
	}

	ts = p;
	if (!parse_timestamp(ts, &p, &ev->t_ns))
		return bad(msg, "expected '<seconds>.<fraction>:' after '[<cpu>]', got %s",
			   quote(q, ts, token_end(ts, end)));

	p++;
	while (is_blank(*p))
		p++;
	name = p;
	p = token_end(p, end);
	if (p == name || p[-1] != ':')
		return bad(msg, "expected '<event>:' after the timestamp, got %s",
			   quote(q, name, p));
	name_end = p - 1;
	for (d = name_end; d > name; d--) {
		if (d[-1] == ':') { /* perf: "kmem:kmalloc:" */
			sys = name;
			name = d;
			break;
		}
	}

	type = event_type(name, (size_t)(name_end - name));
	/* trace-cmd report prints a trace_marker write as the ftrace "print"
	 * event, "print: tracing_mark_write: TEXT", perf script as
	 * "ftrace:print: ..." with the same body (or "ip=0x... buf=TEXT") */
	if (type < 0 && span_is(name, (size_t)(name_end - name), "print") &&
	    (!sys || span_is(sys, (size_t)(name - 1 - sys), "ftrace"))) {
		p = skip_print_ip(p, end);
		type = TRACE_EV_MARKER;
	}
	if (type == TRACE_EV_MARKER) {
		char *e = end;
		while (is_blank(*p))
			p++;
		while (e > p && is_blank(e[-1]))
			e--;
		*e = '\0';
		ev->type = TRACE_EV_MARKER;
		ev->text = p;
		*kind = TRACE_LINE_EVENT;
		return 1;
	}
	if (type < 0 || (sys && !span_is(sys, (size_t)(name - 1 - sys), "kmem"))) {
		*kind = TRACE_LINE_OTHER_EVENT;
		return 0;
	}
	ev->type = (enum trace_ev_type)type;
	*kind = TRACE_LINE_EVENT;
	if (skip_fields & (1u << type))
		return 1;
	if (type == TRACE_EV_PAGE_FREE || type == TRACE_EV_PAGE_ALLOC)
		return parse_page_event(p, end, ev, msg);
	return parse_fields(p, end, ev, msg);
}

/* ---- Fast path for the common layouts ---------------------------------------
 *
 * tracefs, trace-cmd and perf script print the slab events with their fields
 * in the kernel's order (call_site= ptr= [bytes_req= bytes_alloc= gfp_flags=
 * [node= [accounted=]]] [name=]; 6.18's kmem_cache_alloc has name= before
 * bytes_req=), one blank apart; perf prefixes the event name with "kmem:", and
 * trace-cmd and perf print NULL as "(nil)". parse_fast() reads such a line
 * straight through, without the token dispatch of parse_fields(), and gives
 * up (returns 0, line bytes untouched) at anything else, for parse_line() to
 * decide: parse_line() stays the specification. Every byte of the line passes
 * a check that refuses a NUL, so a line it takes needs no separate NUL scan.
 * It reads whole words past the line's NUL (TRACE_LINE_PAD bytes are there),
 * never letting a byte after the NUL decide anything: each scan stops at the
 * NUL, and a literal compared over it fails at it. */

#define ONES  UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

#define FAST __attribute__((always_inline)) static inline

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FAST_LE 1
#endif
#if defined(__SSE2__) && defined(__x86_64__)
#define FAST_SSE2 1
#endif

#if defined(FAST_LE) && !defined(FAST_SSE2)
/* High bit set in each byte of x equal to c: exact up to the first such byte
 * (later bytes may be false positives, which the callers never look at). */
FAST uint64_t bytes_eq(uint64_t x, unsigned char c)
{
	uint64_t y = x ^ (ONES * c);

	return (y - ONES) & ~y & HIGHS;
}
#endif

/* The first byte at or after p equal to a, b, c or d, where d is '\0' so that
 * the line's NUL stops the search. */
FAST char *find4(char *p, unsigned char a, unsigned char b, unsigned char c, unsigned char d)
{
#if defined(FAST_SSE2)
	for (;; p += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8((char)a)),
						      _mm_cmpeq_epi8(x, _mm_set1_epi8((char)b))),
					 _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8((char)c)),
						      _mm_cmpeq_epi8(x, _mm_set1_epi8((char)d))));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);
		if (bits)
			return p + __builtin_ctz(bits);
	}
#elif defined(FAST_LE)
	for (;; p += 8) {
		uint64_t x = load8(p);
		uint64_t m = bytes_eq(x, a) | bytes_eq(x, b) | bytes_eq(x, c) | bytes_eq(x, d);
		if (m)
			return p + (__builtin_ctzll(m) >> 3);
	}
#else
	while (*p != (char)a && *p != (char)b && *p != (char)c && *p != (char)d)
		p++;
	return p;
#endif
}

static const bool blank_tab[256] = {[' '] = true, ['\t'] = true};

/* is_blank() in one load. */
FAST bool blank(char c)
{
	return blank_tab[(unsigned char)c];
}

/* The first byte at or after p that is not a blank, where few are expected. */
FAST char *skip_blanks(char *p)
{
	while (blank(*p))
		p++;
	return p;
}

/* The same where many are expected (column padding). */
FAST char *skip_pad(char *p)
{
#ifdef FAST_SSE2
	for (;; p += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned bits = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')),
				     _mm_cmpeq_epi8(x, _mm_set1_epi8('\t'))));
		if (bits != 0xffffu)
			return p + __builtin_ctz(~bits);
	}
#else
	return skip_blanks(p);
#endif
}

/* The first byte at or after p that is a control character, a blank or
 * not ASCII (that includes the line's NUL), or c. Values end at a blank; the
 * callers give up on the other bytes this stops at. */
FAST char *find_ctl(char *p, unsigned char c)
{
#if defined(FAST_SSE2)
	for (;; p += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
		/* signed: bytes >= 0x80 are below '!' */
		__m128i m = _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8('!')),
					 _mm_cmpeq_epi8(x, _mm_set1_epi8((char)c)));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);
		if (bits)
			return p + __builtin_ctz(bits);
	}
#else
	while ((unsigned char)*p > ' ' && (unsigned char)*p < 0x80 && *p != (char)c)
		p++;
	return p;
#endif
}

/* Is lit (a string literal of n bytes, n constant, so that its loads fold to
 * constants) at p? Reads n bytes; a NUL at p..p+n-1 fails the compare. */
FAST bool lit_at(const char *p, const char *lit, size_t n)
{
	uint64_t diff = 0;
	size_t i;

	if (n < 4) {
		for (i = 0; i < n; i++)
			if (p[i] != lit[i])
				return false;
		return true;
	}
	if (n < 8)
		return ((load4(p) ^ load4(lit)) | (load4(p + n - 4) ^ load4(lit + n - 4))) == 0;
	for (i = 0; i + 8 <= n; i += 8)
		diff |= load8(p + i) ^ load8(lit + i);
	if (i < n)
		diff |= load8(p + n - 8) ^ load8(lit + n - 8);
	return diff == 0;
}

#define LIT_AT(p, lit) lit_at((p), (lit), sizeof(lit) - 1)

#ifdef FAST_LE
/* High bit set in each byte of x (bytes < 0x80) within [lo, hi]. */
#define SWAR_IN(x, lo, hi) (((x) + ONES * (0x80 - (lo))) & ~((x) + ONES * (0x7f - (hi))) & HIGHS)

/* The number of leading decimal digits of the 8 bytes in x (0-8). */
FAST unsigned swar_ndigits(uint64_t x)
{
	/* SWAR_IN sees the low 7 bits: a byte with the high bit is no digit */
	uint64_t nd = (~SWAR_IN(x & ~HIGHS, '0', '9') | x) & HIGHS;

	return nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
}

/* The value of the first n (1-8) decimal digits in x. */
FAST uint64_t swar_dec(uint64_t x, unsigned n)
{
	x <<= 8 * (8 - n); /* the digits last, zero bytes before them */
	x = ((x & 0x0F0F0F0F0F0F0F0Fu) * 2561) >> 8;
	x = ((x & 0x00FF00FF00FF00FFu) * 6553601) >> 16;
	return ((x & 0x0000FFFF0000FFFFu) * 42949672960001u) >> 32;
}
#endif

/* scan_dec(), up to seven digits in one go. */
FAST const char *dec_fast(const char *s, uint64_t *out)
{
#ifdef FAST_LE
	uint64_t x = load8(s);
	unsigned n = swar_ndigits(x);

	if (n == 0)
		return NULL;
	if (n < 8) {
		*out = swar_dec(x, n);
		return s + n;
	}
#endif
	return scan_dec(s, out);
}

/* scan_dec() for short numbers (cpu, sizes, seconds): up to four digits
 * unrolled, more through scan_dec(). */
FAST const char *dec_short(const char *s, uint64_t *out)
{
	unsigned d0 = (unsigned)(unsigned char)s[0] - '0', d1, d2, d3;

	if (d0 > 9)
		return NULL;
	if ((d1 = (unsigned)(unsigned char)s[1] - '0') > 9) {
		*out = d0;
		return s + 1;
	}
	if ((d2 = (unsigned)(unsigned char)s[2] - '0') > 9) {
		*out = d0 * 10 + d1;
		return s + 2;
	}
	if ((d3 = (unsigned)(unsigned char)s[3] - '0') > 9) {
		*out = d0 * 100 + d1 * 10 + d2;
		return s + 3;
	}
	return scan_dec(s, out);
}

/* scan_hex() for ptr=: sixteen digits followed by a blank or NUL in one go
 * (anything else: scan_hex()). NULL: not taken (scan_hex() might still accept
 * a shorter value; parse_line() decides). */
FAST const char *hex_fast(const char *s, const char *end, uint64_t *out)
{
#ifdef FAST_SSE2
	uint16_t x2;
	const char *h;

	memcpy(&x2, s, 2); /* "0x" or "0X" */
	h = s + ((x2 | 0x2000) == ('0' | 'x' << 8)) * 2;

	if (h[16] == ' ' || h[16] == '\0') {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)h);
		__m128i lc = _mm_or_si128(x, _mm_set1_epi8(0x20));
		/* signed compares: bytes >= 0x80 are below '0' */
		__m128i dig = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
					    _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
		__m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(lc, _mm_set1_epi8('a' - 1)),
					      _mm_cmplt_epi8(lc, _mm_set1_epi8('f' + 1)));
		if (_mm_movemask_epi8(_mm_or_si128(dig, alpha)) != 0xffff)
			return NULL;
		__m128i nib = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)),
					   _mm_and_si128(alpha, _mm_set1_epi8(9)));
		/* each 16-bit lane: first digit in its low byte */
		__m128i pair =
			_mm_or_si128(_mm_slli_epi16(_mm_and_si128(nib, _mm_set1_epi16(0xff)), 4),
				     _mm_srli_epi16(nib, 8));
		uint64_t v = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pair, pair));
		*out = __builtin_bswap64(v);
		return h + 16;
	}
#endif
	return scan_hex(s, end, out);
}

/* named_gfp_bits() with the candidate picked by length first. */
FAST uint32_t named_gfp_bits_fast(const char *s, size_t n)
{
	switch (n) {
	case 7:
		return memcmp(s, "GFP_DMA", 7) == 0 ? TRACE_GFP_DMA : 0;
	case 8:
		return memcmp(s, "GFP_USER", 8) == 0 ? TRACE_GFP_HARDWALL : 0;
	case 12:
		return memcmp(s, "__GFP_NOWARN", 12) == 0 ? TRACE_GFP_NOWARN : 0;
	case 14:
		return memcmp(s, "__GFP_HARDWALL", 14) == 0 ? TRACE_GFP_HARDWALL : 0;
	case 9:
		return memcmp(s, "__GFP_DMA", 9) == 0 ? TRACE_GFP_DMA : 0;
	case 13:
		if (memcmp(s, "__GFP_ACCOUNT", 13) == 0)
			return TRACE_GFP_ACCOUNT;
		return memcmp(s, "GFP_TEMPORARY", 13) == 0 ? TRACE_GFP_RECLAIMABLE : 0;
	case 17:
		return memcmp(s, "__GFP_RECLAIMABLE", 17) == 0 ? TRACE_GFP_RECLAIMABLE : 0;
	case 18:
		return memcmp(s, "GFP_KERNEL_ACCOUNT", 18) == 0 ? TRACE_GFP_ACCOUNT : 0;
	}
	return 0;
}

/* The members every event has (*ev is written only when the line is taken). */
FAST void set_head(struct trace_event *ev, int type, uint64_t t_ns, uint32_t cpu, int32_t pid)
{
	ev->type = (enum trace_ev_type)type;
	ev->t_ns = t_ns;
	ev->cpu = cpu;
	ev->pid = pid;
	ev->text = NULL;
	ev->line = 0;
	ev->site_id = 0;
	ev->tpl = 0;
}

/* 1 and *ev as parse_line() would give (which would return 1 too);
 * FAST_OTHER and *ev as parse_line() gives them for a line it counts
 * TRACE_LINE_OTHER_EVENT (returning 0); or 0 with *ev and the line's bytes
 * unchanged. s..end as for parse_line(), with TRACE_LINE_PAD readable bytes
 * after end. */
enum { FAST_OTHER = 2 };
/* The fast path's pieces, in the order of a line. Each returns where the
 * line goes on, or NULL when it is not the common layout (parse_line()
 * then reads it). */

/* record-tgid's "<task>-<pid> (<tgid>)" ending at te (the ')'): *pid, the
 * tgid | TRACE_PID_GROUP, or the pid for "(-------)", as parse_line() takes
 * them; false for
 * any other form (parse_line() reads it). */
FAST bool fast_tgid(const char *p, const char *te, int32_t *pid)
{
	const char *c = te - 1, *d;
	int32_t v = 0;

	for (d = c; d > p && is_digit(d[-1]); d--)
		;
	if (d == c) { /* "(-------)": the pid before it */
		while (d > p && d[-1] == '-')
			d--;
		if (d == c)
			return false;
	} else {
		if (c - d > 9) /* 9 digits fit in int32 */
			return false;
		for (const char *q = d; q < c; q++)
			v = v * 10 + (*q - '0');
	}
	while (d > p && blank(d[-1]))
		d--;
	if (d == p || d[-1] != '(')
		return false;
	te = d - 1;
	while (te > p && blank(te[-1]))
		te--;
	for (d = te; d > p && is_digit(d[-1]); d--)
		;
	if (d == te || d == p || d[-1] != '-' || te - d > 9)
		return false;
	if (v > 0 && v < TRACE_PID_GROUP) {
		*pid = v | TRACE_PID_GROUP;
		return true;
	}
	*pid = 0;
	for (; d < te; d++)
		*pid = *pid * 10 + (*d - '0');
	return true;
}

/* "<task>-<pid> [cpu]": *cpu, *pid (-1 absent); returns the ']'. A header
 * or a lost-events line (for parse_line()) is NULL too. */
FAST char *fast_cpu_pid(char *s, uint32_t *cpu, int32_t *pid)
{
	char *p, *lb, *rb, *te, *d;
	uint64_t v;

	*pid = -1;
	p = skip_pad(s);
	switch (*p) { /* headers and lost-event lines: parse_line() */
	case '\0':
	case '#':
		return NULL;
	case 'C':
		if (p[1] == 'P' && p[2] == 'U')
			return NULL;
		break;
	case 'c':
	case 'v':
		if (is_tracecmd_header(p))
			return NULL;
		break;
	}

	/* [cpu]: the first '[' must be the one (see parse_line) */
	lb = find4(p, '[', '[', '[', '\0');
	if (*lb != '[' || (lb != p && !blank(lb[-1])))
		return NULL;
	if (!(rb = (char *)dec_short(lb + 1, &v)) || v > UINT32_MAX || *rb != ']' || !blank(rb[1]))
		return NULL;
	*cpu = (uint32_t)v;

	/* pid, as parse_line() finds it; tgid and perf's pid/tid go there */
	te = lb;
#ifdef FAST_LE
	if (te - p >= 8) { /* the blanks that pad the pid column */
		uint64_t m = load8(te - 8) ^ (ONES * ' ');
		if (m)
			te -= __builtin_clzll(m) >> 3;
	}
#endif
	while (te > p && blank(te[-1]))
		te--;
	for (d = te; d > p && is_digit(d[-1]); d--)
		;
	if (d < te && d > p && d[-1] == '-') { /* "<task>-<pid>": the rest is moot */
		if (te - d > 9)		       /* 9 digits fit in int32 */
			return NULL;
		*pid = 0;
		for (; d < te; d++)
			*pid = *pid * 10 + (*d - '0');
		return rb;
	}
	if (te > p && te[-1] == ')')
		return fast_tgid(p, te, pid) ? rb : NULL;
	if (d > p + 1 && d[-1] == '/' && d < te && is_digit(d[-2]))
		return NULL;
	if (d < te && (d == p || d[-1] == '-' || blank(d[-1]))) {
		if (te - d > 9) /* 9 digits fit in int32 */
			return NULL;
		*pid = 0;
		for (; d < te; d++)
			*pid = *pid * 10 + (*d - '0');
	}
	return rb;
}

/* "<sec>.<frac>: " at p: *t_ns; returns the ':'. The timestamp's own
 * reading, for fast_time_event and a line template's (tpl_take). */
FAST char *fast_ts(char *p, uint64_t *t_ns)
{
	static const uint32_t pow10[10] = {1,	   10,	    100,      1000,	 10000,
					   100000, 1000000, 10000000, 100000000, 1000000000};
	uint64_t sec, frac;
	char *d = p;

	if (!(p = (char *)dec_short(p, &sec)) || p - d > 10 || *p != '.')
		return NULL; /* 10 digits cannot overflow */
	d = ++p;
#ifdef FAST_LE
	uint64_t x = load8(p);
	/* "dddddd: " (microseconds, as tracefs and trace-cmd print), whole */
	if ((x & 0xFFFFF0F0F0F0F0F0u) == 0x203A303030303030u &&
	    ((x + ONES * 6) & 0x0000F0F0F0F0F0F0u) == 0x0000303030303030u) {
		frac = swar_dec(x, 6) * 1000;
		p += 6;
	} else
#endif
	{
		if (!(p = (char *)dec_fast(p, &frac)) || p - d > 9 || *p != ':' || !blank(p[1]))
			return NULL;
		frac *= pow10[9 - (p - d)];
	}
	*t_ns = sec * 1000000000u + frac;
	return p;
}

/* After "[cpu] ": irq flags (optional), "<sec>.<frac>:", the event name,
 * exactly. *t_ns, *type, ts[0] and ts[1] (the timestamp's first digit and
 * the ':' after it); returns the blank after the name. */
FAST char *fast_time_event(char *p, uint64_t *t_ns, int *type, char **name_at, char *ts[2])
{
	p = skip_blanks(p);
	if (!is_digit(*p)) {
		p = find_ctl(p, ' ');
		if (!blank(*p))
			return NULL;
		p = skip_pad(p);
	}
	ts[0] = p;
	if (!(p = ts[1] = fast_ts(p, t_ns)))
		return NULL;
	p += 2;
	if (blank(*p)) /* perf script pads the event column */
		p = skip_pad(p);
	*name_at = p;
	if (p[4] == ':' && LIT_AT(p, "kmem:")) /* perf's "kmem:kmalloc:" */
		p += 5;

	if (LIT_AT(p, "kmem_cache_")) {
		if (LIT_AT(p + 11, "alloc:")) {
			*type = TRACE_EV_CACHE_ALLOC;
			p += 17;
		} else if (LIT_AT(p + 11, "free:")) {
			*type = TRACE_EV_CACHE_FREE;
			p += 16;
		} else if (LIT_AT(p + 11, "alloc_node:")) {
			*type = TRACE_EV_CACHE_ALLOC_NODE;
			p += 22;
		} else {
			return NULL;
		}
	} else if (LIT_AT(p, "kmalloc:")) {
		*type = TRACE_EV_KMALLOC;
		p += 8;
	} else if (LIT_AT(p, "kfree:")) {
		*type = TRACE_EV_KFREE;
		p += 6;
	} else if (LIT_AT(p, "kmalloc_node:")) {
		*type = TRACE_EV_KMALLOC_NODE;
		p += 13;
	} else if (LIT_AT(p, "mm_page_free:")) {
		*type = TRACE_EV_PAGE_FREE;
		p += 13;
	} else if (LIT_AT(p, "mm_page_alloc:")) {
		*type = TRACE_EV_PAGE_ALLOC;
		p += 14;
	} else {
		return NULL;
	}
	return blank(*p) ? p : NULL;
}

/* An event line of another event (perf script's kmem:rss_stat, sched:...,
 * trace-cmd's other events), name at its event-name token: true when
 * parse_line() would count it TRACE_LINE_OTHER_EVENT, by the same reading
 * of the token (split at its last inner ':' into system and name); false
 * for anything it would read otherwise (a marker, one of ours, no ':'). */
FAST bool fast_other(char *name, const char *end)
{
	char *p = token_end(name, end), *name_end, *sys = NULL;

	if (p == name || p[-1] != ':')
		return false;
	name_end = p - 1;
	for (char *d = name_end; d > name; d--) {
		if (d[-1] == ':') {
			sys = name;
			name = d;
			break;
		}
	}
	size_t n = (size_t)(name_end - name);
	int type = event_type(name, n);
	if (type == TRACE_EV_MARKER || (type < 0 && span_is(name, n, "print")))
		return false;
	return type < 0 || (sys && !span_is(sys, (size_t)(name - 1 - sys), "kmem"));
}

/* " bytes_req=R bytes_alloc=A[ gfp_flags=F][ node=N][ accounted=B]" into
 * ev (bytes, gfp, node, accounted); p at the blank before bytes_req.
 * Returns the blank (or end) after them. */
FAST char *fast_alloc_fields(char *p, char *end, struct trace_event *ev)
{
	uint64_t v;
	uint32_t gfp = 0;

	if (!(p = (char *)dec_short(p + 11, &ev->bytes_req)) || !LIT_AT(p, " bytes_alloc=") ||
	    !(p = (char *)dec_short(p + 13, &ev->bytes_alloc)))
		return NULL;
	if (LIT_AT(p, " gfp_flags=")) {
		p += 11;
		gfp = TRACE_GFP_KNOWN;
		/* the commonest values, whole (no bits of interest) */
		if (LIT_AT(p, "GFP_KERNEL "))
			p += 10;
		else if (LIT_AT(p, "GFP_KERNEL|__GFP_ZERO "))
			p += 21;
		else
			for (;;) {
				char *f = p;
				p = find_ctl(f, '|');
				/* empty value or flag, raw bits */
				if (p == f || is_digit(*f))
					return NULL;
				gfp |= named_gfp_bits_fast(f, (size_t)(p - f));
				if (*p != '|')
					break;
				p++;
			}
	}
	if (LIT_AT(p, " node=-1 accounted=false") && p + 24 == end) {
		ev->node = -1; /* 6.x's commonest tail, whole */
		ev->accounted = 0;
		p = end;
	}
	if (LIT_AT(p, " node=")) {
		bool neg = p[6] == '-';
		/* scan_i32(): 4 digits cannot pass INT32_MAX */
		if (!(p = (char *)dec_short(p + 6 + neg, &v)) || v > 9999)
			return NULL;
		ev->node = neg ? -(int32_t)v : (int32_t)v;
	}
	if (LIT_AT(p, " accounted=")) {
		p += 11;
		if (LIT_AT(p, "false")) {
			ev->accounted = 0;
			p += 5;
		} else if (LIT_AT(p, "true")) {
			ev->accounted = 1;
			if (!(gfp & TRACE_GFP_ACCOUNT))
				gfp |= TRACE_GFP_ACCOUNT |
				       ((gfp & TRACE_GFP_KNOWN) ? TRACE_GFP_ACCOUNT_ONLY : 0);
			p += 4;
		} else {
			return NULL;
		}
	}
	ev->gfp = gfp;
	return p;
}

/* mm_page_alloc's and mm_page_free's " page=<value> pfn=0x<hex> order=<n>"
 * (perf script, trace-cmd and tracefs alike), p at the blank before page=:
 * *ptr and *bytes as parse_page_event() reads them, at a fifth of its cost
 * (a third of a perf recording's lines are page events). false for another
 * layout, and for the values it reads otherwise (a pfn of -1 or of more
 * than 10 digits, an order above 20): it then reads the line. */
FAST bool fast_page(char *p, uint64_t *ptr, uint64_t *bytes)
{
	uint64_t pfn = 0, order;
	unsigned x, n = 0;
	const char *q;

	if (!LIT_AT(p, " page="))
		return false;
	p = find_ctl(p + 6, ' ');
	if (!LIT_AT(p, " pfn=0x"))
		return false;
	for (p += 7; n <= 10 && (x = hex_tab[(unsigned char)*p]) != 0; p++, n++)
		pfn = pfn << 4 | (x & 15);
	if (!n || n > 10 || !LIT_AT(p, " order=") || !(q = dec_short(p + 7, &order)) ||
	    !is_end(*q) || order > 20)
		return false;
	*ptr = pfn << 12;
	*bytes = UINT64_C(4096) << order;
	return true;
}

/* Where parse_fast() found a taken line's timestamp and pointer, and where
 * it cut the line (with the bytes it overwrote): what a line template
 * keeps (tpl_put). ptr_at NULL: the line makes no template (a NULL
 * pointer, a page event, fields skipped). */
struct fast_marks {
	char *ts[2], *ptr_at, *ptr_end;
	char *cut[3];
	char was[3];
};

static int parse_fast(char *s, char *end, struct trace_event *ev, uint32_t skip_fields,
		      struct fast_marks *mk)
{
	char *p, *q, *cs, *cs_end, *sym = NULL, *sym_end = NULL, *name = NULL, *name_end = end;
	uint64_t t_ns, ptr;
	/* the fields as the line gives them; *ev is written only when the
	 * line is taken */
	struct trace_event f = {.node = -1, .accounted = -1};
	bool have_req = false;
	int32_t pid;
	uint32_t cpu;
	int type;

	char *name_at = NULL;
	mk->ptr_at = NULL;
	if (!(p = fast_cpu_pid(s, &cpu, &pid)))
		return 0;
	if (!(p = fast_time_event(p + 2, &t_ns, &type, &name_at, mk->ts))) {
		/* another event: parse_line() reads no further than its name */
		if (!name_at || !fast_other(name_at, end) || memchr(s, '\0', (size_t)(end - s)))
			return 0;
		set_head(ev, 0, t_ns, cpu, pid);
		trace_event_clear_fields(ev);
		return FAST_OTHER;
	}
	if (skip_fields & (1u << type)) {
		if (memchr(p, '\0', (size_t)(end - p)))
			return 0;
		set_head(ev, type, t_ns, cpu, pid);
		trace_event_clear_fields(ev);
		return 1;
	}
	if (type == TRACE_EV_PAGE_FREE || type == TRACE_EV_PAGE_ALLOC) { /* parse_line()'s own */
		uint64_t pg, bytes;
		if (memchr(s, '\0', (size_t)(end - s)))
			return 0;
		/* trace-cmd pads the event name column */
		if (!fast_page(blank(p[1]) ? skip_pad(p + 1) - 1 : p, &pg, &bytes)) {
			char msg[MSG_MAX];
			struct trace_event pf = {.type = (enum trace_ev_type)type};
			if (parse_page_event(p, end, &pf, msg) != 1)
				return 0;
			pg = pf.ptr;
			bytes = pf.bytes_alloc;
		}
		set_head(ev, type, t_ns, cpu, pid);
		trace_event_clear_fields(ev);
		ev->ptr = pg;
		ev->bytes_alloc = bytes;
		return 1;
	}
	if (blank(p[1])) /* trace-cmd pads the event name column */
		p = skip_pad(p + 1);
	else
		p++;

	/* trace-cmd's "(sym+off)" before call_site= */
	if (*p == '(') {
		sym_end = find4(p, ' ', '\t', '=', '\0');
		if (*sym_end != ' ' || sym_end - p <= 2 || sym_end[-1] != ')')
			return 0;
		sym = p + 1;
		p = sym_end + 1;
	}
	if (!LIT_AT(p, "call_site="))
		return 0;
	cs = p + 10;
	p = cs_end = find_ctl(cs, ' ');

	/* Each field: " key=value", p at the blank before the key or at end.
	 * NULL is "(nil)" in libtraceevent's output (trace-cmd, perf). */
	if (!LIT_AT(p, " ptr="))
		return 0;
	if ((q = (char *)hex_fast(p + 5, end, &ptr))) {
		mk->ptr_at = p + 5;
		mk->ptr_end = p = q;
	} else if (LIT_AT(p + 5, "(nil)") && is_end(p[10])) {
		ptr = 0;
		p += 10;
	} else {
		return 0;
	}
	/* 6.18 prints kmem_cache_alloc's name= before bytes_req= */
	if (p[1] == 'n' && LIT_AT(p, " name=")) {
		name = p + 6;
		p = name_end = find_ctl(name, ' ');
	}
	if (LIT_AT(p, " bytes_req=")) {
		if (!(p = fast_alloc_fields(p, end, &f)))
			return 0;
		have_req = true;
	}
	if (p != end) { /* name= last (6.1's kmem_cache_free), or not ours */
		if (name || !LIT_AT(p, " name="))
			return 0;
		name = p + 6;
		p = find_ctl(name, ' ');
		if (p != end)
			return 0;
	}
	if (is_alloc(type) && !have_req)
		return 0;

	/* taken: cut the strings as parse_fields() does (cs_end is the blank
	 * before ptr=, name_end a blank or the line's NUL) */
	mk->cut[0] = cs_end;
	mk->cut[1] = name_end;
	mk->cut[2] = sym ? sym_end - 1 : cs_end;
	for (int i = 0; i < 3; i++)
		mk->was[i] = *mk->cut[i];
	*cs_end = '\0';
	*name_end = '\0';
	if (sym)
		sym_end[-1] = '\0';
	set_head(ev, type, t_ns, cpu, pid);
	ev->ptr = ptr;
	ev->bytes_req = f.bytes_req;
	ev->bytes_alloc = f.bytes_alloc;
	ev->node = f.node;
	ev->accounted = f.accounted;
	ev->gfp = f.gfp;
	ev->call_site = sym ? sym : cs;
	ev->name = name;
	return 1;
}

/* One line as trace_next() reads it: len bytes (NUL bytes included) with a
 * NUL after them, one trailing '\r' dropped. */
static inline __attribute__((always_inline)) int
parse_text(char *line, size_t len, struct trace_event *ev, enum trace_line_kind *kind,
	   uint64_t *lost, uint32_t skip_fields, bool general_only, bool *fast, char *msg)
{
	char *nul;

	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	struct fast_marks mk;
	int rc = general_only ? 0 : parse_fast(line, line + len, ev, skip_fields, &mk);
	*fast = rc != 0;
	if (rc == FAST_OTHER) {
		*kind = TRACE_LINE_OTHER_EVENT;
		return 0;
	}
	if (rc) {
		*kind = TRACE_LINE_EVENT;
		return 1;
	}
	nul = memchr(line, '\0', len);
	if (nul)
		return bad(msg, "expected text, got a NUL byte at column %zu",
			   (size_t)(nul - line) + 1);
	return parse_line(line, line + len, ev, kind, lost, skip_fields, msg);
}

int trace_parse_line_test(char *line, size_t len, uint32_t skip_fields, bool general_only,
			  struct trace_event *ev, enum trace_line_kind *kind, uint64_t *lost,
			  bool *fast, struct err *e)
{
	char msg[MSG_MAX];
	int rc;

	*kind = TRACE_LINE_EVENT;
	*lost = 0;
	rc = parse_text(line, len, ev, kind, lost, skip_fields, general_only, fast, msg);
	if (rc < 0)
		return err_set(e, rc, "%s", msg);
	return rc;
}

int trace_parse_line(char *line, struct trace_event *ev, enum trace_line_kind *kind,
		     uint64_t *lost_count, struct err *e)
{
	char msg[MSG_MAX];
	size_t len = strlen(line);
	enum trace_line_kind k;
	uint64_t lost = 0;
	int rc;

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	rc = parse_line(line, line + len, ev, &k, &lost, 0, msg);
	if (kind)
		*kind = k;
	if (lost_count)
		*lost_count = lost;
	if (rc < 0)
		return err_set(e, rc, "%s", msg);
	return rc;
}

/* ---- Input: files, stdin, decompressor children ---------------------------- */

/* Move fd above 0-2 with FD_CLOEXEC: the child's dup2() onto 0-2 must never
 * meet a source that is already there (if our stdio was closed). */
static int fd_above_stdio(int fd)
{
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	int saved = errno;

	close(fd);
	errno = saved;
	return nfd;
}

/* Start "<prog> -dc" reading r->src_fd, writing into a pipe we read. The file
 * goes in as stdin, not by name: names starting with '-' stay harmless, and
 * the shared file offset tells trace_progress() how far the child got. */
static int spawn_decompressor(struct trace_reader *r)
{
	int out[2] = {-1, -1}, errp[2] = {-1, -1};
	char *argv[] = {(char *)r->prog, (char *)"-dc", NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t dflt;
	pid_t pid;
	int rc;

	if (pipe(out) || (out[0] = fd_above_stdio(out[0])) < 0 ||
	    (out[1] = fd_above_stdio(out[1])) < 0 || pipe(errp) ||
	    (errp[0] = fd_above_stdio(errp[0])) < 0 || (errp[1] = fd_above_stdio(errp[1])) < 0) {
		rc = errno;
		for (int i = 0; i < 2; i++) {
			if (out[i] >= 0)
				close(out[i]);
			if (errp[i] >= 0)
				close(errp[i]);
		}
		return err_at(&r->fail, SLABSIM_EIO, r->path, 0, "cannot create a pipe: %s",
			      strerror(rc));
	}

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, r->src_fd, STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, errp[1], STDERR_FILENO);
	/* If we ignore SIGPIPE, the child would too; it must die when
	 * trace_close() stops reading early. */
	posix_spawnattr_init(&attr);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &dflt);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawnp(&pid, r->prog, &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(errp[1]);
	if (rc) {
		close(out[0]);
		close(errp[0]);
		return err_at(&r->fail, SLABSIM_EIO, r->path, 0, "cannot run '%s': %s", r->prog,
			      strerror(rc));
	}
	r->fd = out[0];
	r->own_fd = true;
	r->err_fd = errp[0];
	r->child = pid;
	return 0;
}

/* At end of the child's output: collect its status and the first line of its
 * stderr (e.g. "gzip: stdin: unexpected end of file"). */
static int reap_child(struct trace_reader *r)
{
	char why[160] = "";
	size_t n = 0;
	int status;
	pid_t w;

	for (;;) {
		char tmp[512];
		ssize_t k = read(r->err_fd, tmp, sizeof(tmp));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		for (ssize_t i = 0; i < k && n + 1 < sizeof(why); i++)
			why[n++] = tmp[i];
	}
	why[n] = '\0';
	/* the first non-empty line: gzip 1.12 starts its message with a newline */
	char *reason = why + strspn(why, "\n");
	reason[strcspn(reason, "\n")] = '\0';
	close(r->err_fd);
	r->err_fd = -1;

	do
		w = waitpid(r->child, &status, 0);
	while (w < 0 && errno == EINTR);
	r->child = -1;
	if (w < 0)
		return err_at(&r->fail, SLABSIM_EIO, r->path, 0,
			      "cannot wait for decompressor '%s': %s", r->prog, strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		return err_at(&r->fail, SLABSIM_EIO, r->path, 0,
			      "decompressor '%s' failed (exit %d)%s%s", r->prog,
			      WEXITSTATUS(status), reason[0] ? ": " : "", reason);
	return err_at(&r->fail, SLABSIM_EIO, r->path, 0, "decompressor '%s' killed by signal %d",
		      r->prog, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* ---- The input's identity ------------------------------------------------- */

static void hash_bytes(struct trace_reader *r, const void *p, size_t n)
{
	if (r->hash && r->hash_stream && n) {
		if (r->hash_avx2)
			xxh_avx2_update(r->hash, p, n);
		else
			(void)XXH3_128bits_update(r->hash, p, n);
	}
}

/* The digest so far into stats.input_hash, and no more hashing. */
static void hash_finish(struct trace_reader *r)
{
	XXH128_canonical_t c;
	if (!r->hash)
		return;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(r->hash));
	for (size_t i = 0; i < sizeof(c.digest); i++)
		(void)snprintf(r->stats.input_hash + 2 * i, 3, "%02x", c.digest[i]);
	XXH3_freeState(r->hash);
	r->hash = NULL;
}

/* Hash fd's bytes from offset from to its end (pread: fd's offset, which a
 * decompressor may share, stays). stop, when not NULL, ends it early. */
static void hash_file(struct trace_reader *r, int fd, uint64_t from, const int *stop)
{
	enum { CHUNK = 1 << 20 };
	unsigned char *b = r->hash ? malloc(CHUNK) : NULL;
	bool ok = b != NULL;
	r->hash_stream = true;
	for (uint64_t at = from; ok;) {
		ssize_t k = pread(fd, b, CHUNK, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0 || (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))) {
			ok = k == 0;
			break;
		}
		hash_bytes(r, b, (size_t)k);
		at += (uint64_t)k;
	}
	free(b);
	r->hash_stream = false;
	if (ok)
		hash_finish(r);
}

/* At the end of the input: its identity, unless it is known already (a
 * pipe hashed as it was spooled) or cannot be (no state, a byte range). */
static void hash_end(struct trace_reader *r)
{
	if (!r->hash || r->stats.input_hash[0])
		return;
	if (r->hash_stream)
		hash_finish(r);
	else if (r->hash_fd >= 0)
		hash_file(r, r->hash_fd, r->hash_from, NULL);
}

void trace_hash_input(struct trace_reader *r, const int *stop)
{
	if (r->plain && !r->ranged && r->fd >= 0 && !r->stats.input_hash[0])
		hash_file(r, r->fd, r->hash_from, stop);
}

/* Read more input after buf[end]. At end of a decompressor's output, its exit
 * status decides between end of input and an I/O error. */
static int fill(struct trace_reader *r)
{
	size_t want = TRACE_LINE_MAX - r->end;
	uint64_t pos = r->base + r->bytes_read;
	ssize_t n;

	if (r->limit != UINT64_MAX) {
		/* a range needs its own bytes and the rest of its last line:
		 * past the limit, read as much again as the line has so far,
		 * not a whole buffer of the next range's lines */
		uint64_t need = (pos < r->limit ? r->limit - pos : 0) + r->end + 4096;
		if (need < want)
			want = (size_t)need;
	}
	do
		n = read(r->fd, r->buf + r->end, want);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return err_at(&r->fail, SLABSIM_EIO, r->path, 0, "read error: %s", strerror(errno));
	if (n == 0) {
		r->at_eof = true;
		int rc = r->child > 0 ? reap_child(r) : 0;
		if (!rc)
			hash_end(r);
		return rc;
	}
	hash_bytes(r, r->buf + r->end, (size_t)n);
	r->end += (size_t)n;
	r->bytes_read += (uint64_t)n;
	return 0;
}

/* The next line, NUL-terminated without its newline: 1, 0 at end of input, or
 * SLABSIM_EIO. *too_long: the line exceeded TRACE_LINE_MAX and was dropped.
 * With no_fill, NEED_INPUT instead of reading (which moves the lines read
 * before). */
enum { NEED_INPUT = 2 };
static inline __attribute__((always_inline)) int
next_line(struct trace_reader *r, char **line, size_t *len, bool *too_long, bool no_fill)
{
	*too_long = false;
	/* between lines, buf[start] is at this file offset */
	if (r->base + r->bytes_read - (r->end - r->start) >= r->limit)
		return 0;
	for (;;) {
		char *s = r->buf + r->start;
		size_t avail = r->end - r->start;
		char *nl = avail ? memchr(s, '\n', avail) : NULL;
		int rc;

		if (nl || (r->at_eof && (avail || r->skipping))) {
			size_t n = nl ? (size_t)(nl - s) : avail;
			s[n] = '\0';
			*line = s;
			*len = n;
			r->start += nl ? n + 1 : n;
			*too_long = r->skipping;
			r->skipping = false;
			return 1;
		}
		if (r->at_eof)
			return 0;
		if (no_fill)
			return NEED_INPUT;
		if (r->start) {
			memmove(r->buf, s, avail);
			r->start = 0;
			r->end = avail;
		}
		if (r->end == TRACE_LINE_MAX) {
			r->skipping = true;
			r->end = 0;
		}
		rc = fill(r);
		if (rc < 0)
			return rc;
	}
}

/* ---- What the input is, by its first bytes ---------------------------------- */

/* Bytes looked at to tell the input's kind. */
#define SNIFF_BYTES 512

enum input_kind { IN_TEXT, IN_GZIP, IN_XZ, IN_ZSTD, IN_BZIP2, IN_TRACEDAT, IN_PERF, IN_BINARY };

static const char *const decompressor[] = {
	[IN_GZIP] = "gzip", [IN_XZ] = "xz", [IN_ZSTD] = "zstd", [IN_BZIP2] = "bzip2"};

static bool magic_is(const unsigned char *b, size_t n, const char *magic, size_t len)
{
	return n >= len && memcmp(b, magic, len) == 0;
}

/* The kind of the n (> 0) bytes at b, the start of an input. Binary: a NUL
 * in the first 16 bytes, or more than one byte in 10 a control character
 * that text does not hold; a few stray NULs later are malformed lines. */
static enum input_kind sniff(const unsigned char *b, size_t n)
{
	size_t ctl = 0;

	if (magic_is(b, n, "\x1f\x8b", 2))
		return IN_GZIP;
	if (magic_is(b, n,
		     "\xfd"
		     "7zXZ\0",
		     6))
		return IN_XZ;
	if (magic_is(b, n, "\x28\xb5\x2f\xfd", 4))
		return IN_ZSTD;
	/* "BZh" and the block size, then a block or the end of the stream */
	if (n >= 10 && memcmp(b, "BZh", 3) == 0 && b[3] >= '1' && b[3] <= '9' &&
	    (memcmp(b + 4, "\x31\x41\x59\x26\x53\x59", 6) == 0 ||
	     memcmp(b + 4, "\x17\x72\x45\x38\x50\x90", 6) == 0))
		return IN_BZIP2;
	if (magic_is(b, n, "\x17\x08\x44tracing", 10))
		return IN_TRACEDAT;
	if (magic_is(b, n, "PERFILE2", 8) || magic_is(b, n, "PERFFILE", 8))
		return IN_PERF;
	for (size_t i = 0; i < n; i++) {
		if (b[i] == 0 && i < 16)
			return IN_BINARY;
		if (b[i] < 0x20 && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' && b[i] != '\f' &&
		    b[i] != '\v' && b[i] != 0x1b)
			ctl++;
	}
	return ctl * 10 > n ? IN_BINARY : IN_TEXT;
}

static int not_a_trace(struct trace_reader *r, const unsigned char *b, size_t n, const char *after,
		       struct err *e)
{
	char hex[3 * 8 + 1] = "";
	size_t len = 0;

	for (size_t i = 0; i < n && i < 8; i++)
		len += (size_t)snprintf(hex + len, sizeof(hex) - len, "%s%02x", i ? " " : "", b[i]);
	return err_at(e, SLABSIM_EINPUT, r->path, 0,
		      "not a kernel trace%s: binary data starting with %s (expected ftrace text, "
		      "a trace.dat, or either compressed with gzip, xz, zstd or bzip2)",
		      after, hex);
}

const char *trace_decompressor_for(const char *path)
{
	size_t n = strlen(path);

	if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
		return "gzip";
	if (n > 3 && strcmp(path + n - 3, ".xz") == 0)
		return "xz";
	if (n > 4 && strcmp(path + n - 4, ".zst") == 0)
		return "zstd";
	if (n > 4 && strcmp(path + n - 4, ".bz2") == 0)
		return "bzip2";
	return NULL;
}

/* Read from r->fd after buf[end] until want bytes are there or the input
 * ends (*eof), without reaping a decompressor: fill() does that at the end. */
static int read_head(struct trace_reader *r, size_t want, bool *eof)
{
	*eof = false;
	/* the buffer holds TRACE_LINE_MAX bytes: the fuzz harness's is
	 * smaller than a sniff (SNIFF_BYTES), and a shorter look is enough */
	if (want > TRACE_LINE_MAX)
		want = TRACE_LINE_MAX;
	while (r->end < want) {
		ssize_t k = read(r->fd, r->buf + r->end, want - r->end);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return err_at(&r->fail, SLABSIM_EIO, r->path, 0, "read error: %s",
				      strerror(errno));
		if (k == 0) {
			*eof = true;
			break;
		}
		hash_bytes(r, r->buf + r->end, (size_t)k);
		r->end += (size_t)k;
		r->bytes_read += (uint64_t)k;
	}
	return 0;
}

/* Copy the unread bytes of the buffer and the rest of r->fd into an unlinked
 * temporary file, for an input that must be read from a file: a trace.dat
 * (libtracecmd seeks), or compressed data on a pipe (the decompressor reads
 * it from the start). Returns the file's descriptor at offset 0, or -1 with
 * r->fail set. Ends and reaps a decompressor whose output it was. */
static int spool(struct trace_reader *r)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	int fd, rc;

	if (!dir || !*dir)
		dir = "/tmp";
	(void)snprintf(tmpl, sizeof(tmpl), "%s/slabsim-input-XXXXXX", dir);
	fd = mkstemp(tmpl);
	if (fd < 0) {
		err_at(&r->fail, SLABSIM_EIO, r->path, 0, "cannot make a temporary file in %s: %s",
		       dir, strerror(errno));
		return -1;
	}
	(void)unlink(tmpl);
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	for (;;) {
		size_t off = r->start;
		while (off < r->end) {
			ssize_t k = write(fd, r->buf + off, r->end - off);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				err_at(&r->fail, SLABSIM_EIO, r->path, 0,
				       "cannot write a temporary copy in %s: %s", dir,
				       strerror(errno));
				close(fd);
				return -1;
			}
			off += (size_t)k;
		}
		r->start = r->end = 0;
		if (r->at_eof)
			break;
		if ((rc = fill(r)) < 0) {
			close(fd);
			return -1;
		}
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		err_at(&r->fail, SLABSIM_EIO, r->path, 0, "cannot seek: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Put the reader back to "nothing read", keeping path and buffer. Closing
 * the pipe first lets a child still writing die of SIGPIPE. */
static void drop_input(struct trace_reader *r)
{
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	if (r->src_fd >= 0)
		close(r->src_fd);
	if (r->child > 0) {
		int status;
		while (waitpid(r->child, &status, 0) < 0 && errno == EINTR)
			;
	}
	r->fd = r->src_fd = r->err_fd = -1;
	r->own_fd = false;
	r->child = -1;
	r->prog = NULL;
	r->at_eof = false;
	r->start = r->end = 0;
	r->bytes_read = 0;
}

static int open_tracedat(struct trace_reader *r, int fd, struct err *e)
{
	uint64_t lost;
	int rc = tracedat_open(fd, r->path, r->skip_fields, &r->dat, e);

	if (rc)
		return rc;
	if (tracedat_buffer_lost(r->dat, &lost)) {
		r->stats.lost_in_buffer_stats = lost;
		r->stats.lost_sources |= TRACE_LOST_BUFFER_STATS;
	}
	r->stats.header_cpus = tracedat_cpus(r->dat);
	r->stats.names_in_format = tracedat_names_caches(r->dat);
	return 0;
}

static void perf_hash(void *ctx, const void *p, size_t n)
{
	hash_bytes(ctx, p, n);
}

static int open_perfdata(struct trace_reader *r, int fd, struct err *e)
{
	int rc = perfdata_open(fd, r->path, r->kallsyms, &r->perf, e);
	if (rc)
		return rc;
	/* a recording whose kmem_cache_alloc format has name= (6.18+) leaves
	 * the name pass nothing to learn: it is read once, its look-ahead
	 * served from the events read ahead (peekread.h) */
	r->stats.names_in_format = perfdata_names_caches(r->perf);
	r->stats.header_cpus = perfdata_cpus(r->perf);
	r->stats.sites_unnamed = !perfdata_symbols(r->perf);
	return 0;
}

/* The input on r->fd after a decompressor: text, or a trace.dat or
 * perf.data (spooled). */
static int after_decompressor(struct trace_reader *r, struct err *e)
{
	const char *prog = r->prog;
	bool eof;
	enum input_kind k;
	int fd;

	if (read_head(r, SNIFF_BYTES, &eof) < 0)
		goto fail;
	if (r->end == 0) {
		/* at its end: a decompressor that failed says why */
		if (fill(r) < 0)
			goto fail;
		return err_at(e, SLABSIM_EINPUT, r->path, 0, "empty after decompression with %s",
			      prog);
	}
	k = sniff((const unsigned char *)r->buf, r->end);
	switch (k) {
	case IN_TEXT:
		return 0;
	case IN_TRACEDAT:
		if ((fd = spool(r)) < 0)
			goto fail;
		drop_input(r);
		return open_tracedat(r, fd, e);
	case IN_PERF:
		if ((fd = spool(r)) < 0)
			goto fail;
		drop_input(r);
		return open_perfdata(r, fd, e);
	default:
		return not_a_trace(r, (const unsigned char *)r->buf, r->end,
				   k == IN_BINARY ? " after decompression"
						  : " after decompression "
						    "(compressed twice?)",
				   e);
	}
fail:
	if (e)
		*e = r->fail;
	return r->fail.code;
}

/* A binary file read from its start by a reader of its own: a descriptor
 * of it for that reader, the text input dropped. < 0: the error (set). */
static int take_file(struct trace_reader *r, int fd, const struct stat *st, struct err *e)
{
	int dfd = dup(fd);
	if (dfd < 0)
		return err_at(e, SLABSIM_EIO, r->path, 0, "%s", strerror(errno));
	drop_input(r);
	r->size_bytes = (uint64_t)st->st_size;
	return dfd;
}

/* Recognise what fd (the file, or stdin) holds and set r up to read it.
 * fd is r's from here on. */
static int setup_input(struct trace_reader *r, int fd, bool own, const struct stat *st,
		       struct err *e)
{
	unsigned char head[SNIFF_BYTES];
	size_t n = 0;
	enum input_kind k;
	bool eof, regular = S_ISREG(st->st_mode);
	off_t at = regular ? lseek(fd, 0, SEEK_CUR) : -1;
	int rc;

	r->fd = fd;
	r->own_fd = own;
	r->hash_stream = true;
	r->hash_from = regular && at > 0 ? (uint64_t)at : 0;
	if (regular && at >= 0) {
		/* look without reading: the text reader starts where it is */
		ssize_t k2;
		do
			k2 = pread(fd, head, sizeof(head), at);
		while (k2 < 0 && errno == EINTR);
		if (k2 < 0)
			return err_at(e, SLABSIM_EIO, r->path, 0, "read error: %s",
				      strerror(errno));
		n = (size_t)k2;
		r->size_bytes = (uint64_t)st->st_size;
	} else {
		regular = false;
		if (read_head(r, SNIFF_BYTES, &eof) < 0)
			goto fail;
		n = r->end;
		memcpy(head, r->buf, n);
	}
	if (n == 0)
		return err_at(e, SLABSIM_EINPUT, r->path, 0, "empty %s: no trace in it",
			      regular ? "file" : "input");
	k = sniff(head, n);
	switch (k) {
	case IN_TEXT:
		r->plain = regular && strcmp(r->path, "-") != 0;
		return 0;
	case IN_PERF:
		if (regular && at == 0) {
			int dfd = take_file(r, fd, st, e);
			if (dfd < 0)
				return dfd;
			/* hashed as perfdata reads it (perf_hash) */
			if ((rc = open_perfdata(r, dfd, e)))
				return rc;
			perfdata_hash(r->perf, perf_hash, r);
			return 0;
		}
		if ((fd = spool(r)) < 0)
			goto fail;
		drop_input(r);
		return open_perfdata(r, fd, e);
	case IN_BINARY:
		return not_a_trace(r, head, n, "", e);
	case IN_TRACEDAT:
		if (regular && at == 0) {
			int dfd = take_file(r, fd, st, e);
			if (dfd < 0)
				return dfd;
			/* libtracecmd reads it: hashed at its end (hash_end) */
			r->hash_stream = false;
			r->hash_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
			return open_tracedat(r, dfd, e);
		}
		if ((fd = spool(r)) < 0)
			goto fail;
		drop_input(r);
		return open_tracedat(r, fd, e);
	default: /* compressed */
		r->prog = decompressor[k];
		if (!regular) {
			/* the decompressor reads a file, the pipe's bytes so far first */
			if ((fd = spool(r)) < 0)
				goto fail;
			drop_input(r);
			r->prog = decompressor[k];
		} else if (own) {
			r->own_fd = false;
			r->fd = -1;
		} else if ((fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) {
			return err_at(e, SLABSIM_EIO, r->path, 0, "%s", strerror(errno));
		} else {
			r->fd = -1;
		}
		if ((r->src_fd = fd_above_stdio(fd)) < 0) {
			err_at(&r->fail, SLABSIM_EIO, r->path, 0, "%s", strerror(errno));
			goto fail;
		}
		/* the decompressor reads the stored bytes (a pipe's were hashed
		 * as they were spooled): hash its file at the end */
		r->hash_stream = false;
		if (!r->stats.input_hash[0])
			r->hash_fd = fcntl(r->src_fd, F_DUPFD_CLOEXEC, 3);
		if ((rc = spawn_decompressor(r)) < 0)
			goto fail;
		return after_decompressor(r, e);
	}
fail:
	if (e)
		*e = r->fail;
	return r->fail.code;
}

/* r->buf for the input st: a plain file larger than the buffer fills it
 * all, so its pages are taken as one 2 MiB huge page (bigmem.h) rather than
 * in 257 faults of 4 KiB, each 15 us on the virtual machines measured; a
 * pipe or a small file touches only what it reads. */
static int alloc_buf(struct trace_reader *r, const struct stat *st, struct err *e)
{
	if (S_ISREG(st->st_mode) && (uint64_t)st->st_size >= BUF_HUGE)
		r->buf_huge = (r->buf = bigmem_resize(NULL, 0, BUF_HUGE)) != NULL;
	if (!r->buf)
		r->buf = calloc(1, BUF_BYTES);
	return r->buf ? 0 : err_set(e, SLABSIM_ENOMEM, "out of memory opening %s", r->path);
}

int trace_open(const char *path, const struct trace_opts *opts, struct trace_reader **out,
	       struct err *e)
{
	struct trace_reader *r;
	struct stat st;
	size_t len;
	int fd, saved, rc;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return err_set(e, SLABSIM_ENOMEM, "out of memory opening %s", path);
	r->fd = r->src_fd = r->err_fd = r->hash_fd = -1;
	r->child = -1;
	r->limit = UINT64_MAX;
	if (!(opts && opts->no_identity) && (r->hash = XXH3_createState()) &&
	    XXH3_128bits_reset(r->hash) != XXH_OK) {
		XXH3_freeState(r->hash);
		r->hash = NULL;
	}
	r->hash_avx2 = r->hash && xxh_avx2_usable();
	r->strict = opts && opts->strict;
	r->skip_fields = opts ? opts->skip_fields : 0;
	len = strlen(path) + 1;
	r->path = malloc(len);
	if (opts && opts->kallsyms && !(r->kallsyms = strdup(opts->kallsyms))) {
		trace_close(r);
		return err_set(e, SLABSIM_ENOMEM, "out of memory opening %s", path);
	}
	if (!r->path) {
		trace_close(r);
		return err_set(e, SLABSIM_ENOMEM, "out of memory opening %s", path);
	}
	memcpy(r->path, path, len);

	if (strcmp(path, "-") == 0) {
		if (fstat(STDIN_FILENO, &st)) {
			saved = errno;
			trace_close(r);
			return err_at(e, SLABSIM_EIO, path, 0, "%s", strerror(saved));
		}
		rc = alloc_buf(r, &st, e);
		if (!rc)
			rc = setup_input(r, STDIN_FILENO, false, &st, e);
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st) == 0) {
			/* open() accepts a directory; say so now, not at the first read */
			saved = S_ISDIR(st.st_mode) ? EISDIR : 0;
		} else {
			saved = errno ? errno : EIO;
		}
		if (saved) {
			if (fd >= 0)
				close(fd);
			trace_close(r);
			return err_at(e, SLABSIM_EIO, path, 0, "%s", strerror(saved));
		}
		rc = alloc_buf(r, &st, e);
		if (rc)
			close(fd);
		else
			rc = setup_input(r, fd, true, &st, e);
	}
	if (rc) {
		trace_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

int trace_set_range(struct trace_reader *r, uint64_t start, uint64_t end, struct err *e)
{
	char *line;
	size_t len;
	bool too_long;

	if (!r->plain)
		return err_set(e, SLABSIM_EUSAGE, "%s: byte ranges need a plain trace file",
			       r->path);
	/* the line that starts at start is ours when byte start - 1 ends the
	 * line before; a line crossing start is not */
	r->base = start > 0 ? start - 1 : 0;
	if (lseek(r->fd, (off_t)r->base, SEEK_SET) < 0)
		return err_at(e, SLABSIM_EIO, r->path, 0, "cannot seek: %s", strerror(errno));
	r->limit = end;
	r->ranged = true;
	XXH3_freeState(r->hash); /* a range has no identity of its own */
	r->hash = NULL;
	r->at_eof = r->skipping = false;
	r->line_no = r->bytes_read = 0;
	r->start = r->end = 0;
	err_clear(&r->fail);
	r->held_rc = 0;
	memset(&r->stats, 0, sizeof(r->stats));
	if (start > 0 && next_line(r, &line, &len, &too_long, false) < 0) {
		if (e)
			*e = r->fail;
		return SLABSIM_EIO;
	}
	return 0;
}

int trace_open_range(const char *path, const struct trace_opts *opts, uint64_t start, uint64_t end,
		     struct trace_reader **out, struct err *e)
{
	struct trace_reader *r;
	int rc;

	*out = NULL;
	if (strcmp(path, "-") == 0)
		return err_set(e, SLABSIM_EUSAGE, "%s: byte ranges need a plain trace file", path);
	if ((rc = trace_open(path, opts, &r, e)))
		return rc;
	/* compressed or a trace.dat: trace_set_range refuses it */
	if ((rc = trace_set_range(r, start, end, e))) {
		trace_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

static int malformed(struct trace_reader *r, const char *msg, struct err *e)
{
	struct trace_stats *st = &r->stats;

	if (st->malformed++ == 0) {
		st->first_malformed_line = r->line_no;
		(void)snprintf(st->first_malformed_msg, sizeof(st->first_malformed_msg), "%s", msg);
	}
	if (r->strict)
		return err_at(e, SLABSIM_EINPUT, r->path, r->line_no, "%s", msg);
	return 0;
}

/* "# entries-in-buffer/entries-written: 445980/500000   #P:2" (tracefs): the
 * ring buffer overwrote the difference. */
static void header_lost(struct trace_reader *r, const char *line)
{
	static const char key[] = "entries-in-buffer/entries-written:";
	const char *p = strstr(line, key);
	char *q;
	unsigned long long in, written;

	if (!p)
		return;
	p += sizeof(key) - 1;
	in = strtoull(p, &q, 10);
	if (q == p || *q != '/')
		return;
	p = q + 1;
	written = strtoull(p, &q, 10);
	if (q == p)
		return;
	r->stats.lost_sources |= TRACE_LOST_HEADER;
	if (written > in)
		r->stats.lost_in_header = sat_add(r->stats.lost_in_header, written - in);
}

/* The CPU count a header line states: tracefs "... #P:2" (the count of
 * CPUs with a buffer), trace-cmd report's "cpus=2"; and the events the
 * tracefs header says were overwritten. */
static void header_facts(struct trace_reader *r, const char *line)
{
	const char *p = line[0] == '#' ? strstr(line, "#P:") : NULL;
	if (line[0] == '#')
		header_lost(r, line);
	if (p)
		p += 3;
	else if (starts_with(line, "cpus="))
		p = line + 5;
	if (!p)
		return;
	char *q;
	unsigned long n = strtoul(p, &q, 10);
	if (q != p && n > 0 && n <= 8192)
		r->stats.header_cpus = (uint32_t)n;
}

/* Events no kernel emits (--strict refuses them; the engine counts them). */
static int impossible(const struct trace_event *ev, char *msg)
{
	if (ev->type != TRACE_EV_KMALLOC && ev->type != TRACE_EV_KMALLOC_NODE &&
	    ev->type != TRACE_EV_CACHE_ALLOC && ev->type != TRACE_EV_CACHE_ALLOC_NODE)
		return 0;
	if (ev->bytes_req > TRACE_KMALLOC_MAX_SIZE)
		return bad(msg,
			   "expected bytes_req=<n> of at most KMALLOC_MAX_SIZE (%u), got "
			   "bytes_req=%" PRIu64 ": no kernel allocates that from a slab",
			   TRACE_KMALLOC_MAX_SIZE, ev->bytes_req);
	if (ev->bytes_alloc < ev->bytes_req)
		return bad(msg,
			   "expected bytes_alloc >= bytes_req, got bytes_alloc=%" PRIu64
			   " < bytes_req=%" PRIu64 ": no kernel emits that",
			   ev->bytes_alloc, ev->bytes_req);
	return 0;
}

uint64_t trace_stats_lost(const struct trace_stats *st)
{
	uint64_t n = st->lost_events;

	if (st->lost_in_header > n)
		n = st->lost_in_header;
	if (st->lost_in_buffer_stats > n)
		n = st->lost_in_buffer_stats;
	if (st->lost_in_perf > n)
		n = st->lost_in_perf;
	return n;
}

int trace_check_is_trace(const struct trace_stats *st, const char *path, struct err *e)
{
	uint64_t events = st->other_events + st->lost_markers;

	for (int i = 0; i < TRACE_EV_NR; i++)
		events += st->events[i];
	if (events || !st->malformed)
		return 0;
	return err_at(e, SLABSIM_EINPUT, path, 0,
		      "not a kernel trace: none of its %" PRIu64 " lines is an ftrace event "
		      "(line %" PRIu64 ": %s)",
		      st->lines, st->first_malformed_line, st->first_malformed_msg);
}

/* The end of a trace.dat: records its own statistics count and it did not
 * give are an error in strict mode, lost events otherwise (counted once). */
static int dat_end(struct trace_reader *r, struct err *e)
{
	uint64_t expected, missing;
	if (!r->stats.dat_expected && tracedat_unread(r->dat, &expected, &missing)) {
		r->stats.dat_expected = expected;
		r->stats.dat_unread = missing;
		r->stats.lost_in_buffer_stats += missing;
		r->stats.lost_sources |= TRACE_LOST_BUFFER_STATS;
		if (missing && r->strict) {
			err_at(&r->fail, SLABSIM_EINPUT, r->path, 0,
			       "trace.dat: its per-CPU statistics count %" PRIu64
			       " events read from the ring buffer (read events), the file gave "
			       "%" PRIu64 ": %" PRIu64 " missing (corrupt or cut data)",
			       expected, tracedat_records(r->dat), missing);
			if (e)
				*e = r->fail;
			return SLABSIM_EINPUT;
		}
	}
	if (r->fail.code) {
		if (e)
			*e = r->fail;
		return r->fail.code;
	}
	hash_end(r);
	return 0;
}

/* An event taken: its line number and the counts. */
static inline __attribute__((always_inline)) void count_event(struct trace_reader *r,
							      struct trace_event *ev)
{
	ev->line = r->line_no;
	r->stats.events[ev->type]++;
	/* 1 + CPU 2^32-1 saturates instead of wrapping to 0 (sim_create
	 * refuses such a count, naming it) */
	if (ev->cpu >= r->stats.cpus_seen)
		r->stats.cpus_seen = ev->cpu == UINT32_MAX ? UINT32_MAX : ev->cpu + 1;
	r->stats.accounted_events += ev->accounted >= 0;
	r->stats.named_cache_allocs += ev->name && (ev->type == TRACE_EV_CACHE_ALLOC ||
						    ev->type == TRACE_EV_CACHE_ALLOC_NODE);
}

/* ---- Line templates --------------------------------------------------------
 * Most event lines of a trace repeat an earlier one but for the timestamp
 * and the pointer: the same task on the same CPU, the same event, call
 * site, sizes and flags (90 % of the bench's real-trace lines, 74-88 % of
 * this machine's 6.18 report and perf script texts). A template is such a
 * line as parse_fast() took it: its bytes before the cuts, where its
 * timestamp and pointer stood, where it was cut, and its event. A line of
 * the template's length that repeats every other byte of it, and whose
 * timestamp and pointer parse_fast()'s own readers read to the template's
 * ends, is the template's event with that timestamp and pointer, cut at the
 * same places: parse_fast() decides nothing before the timestamp from a
 * byte after it (its scans stop at their first match), and after each span
 * it goes on from the span's end through the same bytes. test_fastpath
 * checks the batches, which use them, against the general parser on every
 * bundled trace and on perturbed lines. Sets of two, found by the line's
 * first 24 bytes (the task, before any timestamp of the layouts read) and
 * its length; each reader has its own. A template's events carry its
 * serial (trace_event.tpl): the prefetch and the spilled array keep what
 * they make of the first one's strings and fields by it. */
#define TPL_BYTES 256 /* a template's line is shorter */
#define TPL_MIN	  48  /* and longer */
#define TPL_SETS  128

struct line_tpl {
	uint32_t serial;				   /* its events' tpl */
	uint16_t len;					   /* 0: none */
	uint16_t ts_at, ts_end, ptr_at, ptr_end, cs, name; /* name 0: NULL */
	uint16_t cut[3];
	/* the template of the line after this one's, the last time: tried
	 * first, before the line's end is searched for */
	struct line_tpl *next;
	struct trace_event ev;
	char text[TPL_BYTES]; /* the line before its cuts */
};

struct line_tpls {
	struct line_tpl set[TPL_SETS][2];
	uint8_t victim[TPL_SETS]; /* the way a new template takes */
	uint64_t taken;		  /* lines read through a template */
	uint32_t serial;	  /* the last template's */
	struct line_tpl *last;	  /* the last line's; NULL: none */
};

static inline uint32_t tpl_set_of(const char *s, size_t len)
{
	uint64_t h = load8(s) ^ (load8(s + 8) * 31) ^ (load8(s + 16) * 1031) ^ len;
	return (uint32_t)((h * UINT64_C(0x9e3779b97f4a7c15)) >> 57);
}

/* Whether s (len bytes) repeats t but for its timestamp and pointer: three
 * memcmp, which the C library does in the widest vectors the CPU has. */
static inline __attribute__((always_inline)) bool tpl_match(const struct line_tpl *t, const char *s,
							    size_t len)
{
	return t->len == len && memcmp(s, t->text, t->ts_at) == 0 &&
	       memcmp(s + t->ts_end, t->text + t->ts_end, t->ptr_at - t->ts_end) == 0 &&
	       memcmp(s + t->ptr_end, t->text + t->ptr_end, len - t->ptr_end) == 0;
}

/* The line s..end through t into *ev, cut as parse_fast() cuts it; false
 * (nothing written) when its timestamp or pointer do not read to t's ends. */
static bool tpl_take(const struct line_tpl *t, char *s, char *end, struct trace_event *ev)
{
	uint64_t t_ns = 0, ptr = 0;
	if (fast_ts(s + t->ts_at, &t_ns) != s + t->ts_end ||
	    hex_fast(s + t->ptr_at, end, &ptr) != s + t->ptr_end)
		return false;
	*ev = t->ev;
	ev->t_ns = t_ns;
	ev->ptr = ptr;
	ev->call_site = s + t->cs;
	ev->name = t->name ? s + t->name : NULL;
	for (int i = 0; i < 3; i++)
		s[t->cut[i]] = '\0';
	return true;
}

/* A template of the line s (len bytes) parse_fast() took into *ev, marked
 * mk, in set w's victim way. */
static struct line_tpl *tpl_put(struct line_tpls *tp, uint32_t w, const char *s, size_t len,
				struct trace_event *ev, const struct fast_marks *mk)
{
	struct line_tpl *t = &tp->set[w][tp->victim[w]];
	t->next = NULL;
	tp->victim[w] ^= 1;
	if (!++tp->serial) /* 0 is none; the serials before are long gone */
		tp->serial = 1;
	t->serial = ev->tpl = tp->serial;
	t->len = (uint16_t)len;
	t->ts_at = (uint16_t)(mk->ts[0] - s);
	t->ts_end = (uint16_t)(mk->ts[1] - s);
	t->ptr_at = (uint16_t)(mk->ptr_at - s);
	t->ptr_end = (uint16_t)(mk->ptr_end - s);
	t->cs = (uint16_t)(ev->call_site - s);
	t->name = ev->name ? (uint16_t)(ev->name - s) : 0;
	t->ev = *ev;
	memcpy(t->text, s, len);
	for (int i = 0; i < 3; i++) {
		t->cut[i] = (uint16_t)(mk->cut[i] - s);
		t->text[t->cut[i]] = mk->was[i];
	}
	return t;
}

/* parse_fast() for text_run: through a template of r's when one fits, else
 * parsing, and making one of the line when it can (not of a line ending in
 * '\r', which text_run's guess could not tell from a line that lost one).
 * *used: the template, or NULL. */
static inline __attribute__((always_inline)) int parse_run(struct trace_reader *r, char *s,
							   size_t len, struct trace_event *ev,
							   struct line_tpl **used)
{
	struct line_tpls *tp = r->tpl;
	struct fast_marks mk;
	uint32_t w = 0;

	*used = NULL;
	if (tp && len >= TPL_MIN && len < TPL_BYTES) {
		w = tpl_set_of(s, len);
		for (int i = 0; i < 2; i++) {
			struct line_tpl *t = &tp->set[w][i];
			if (tpl_match(t, s, len) && tpl_take(t, s, s + len, ev)) {
				tp->victim[w] = (uint8_t)(i ^ 1);
				tp->taken++;
				*used = t;
				return 1;
			}
		}
	}
	int rc = parse_fast(s, s + len, ev, r->skip_fields, &mk);
	if (rc == 1 && mk.ptr_at && tp && len >= TPL_MIN && len < TPL_BYTES && s[len - 1] != '\r')
		*used = tpl_put(tp, w, s, len, ev, &mk);
	return rc;
}

/* text_run's guess: the line at s (avail bytes on) through t, the template
 * that followed the last line's the last time, without searching for its
 * end: a line of t's length (its '\n' there) that t takes. Its bytes but
 * t's timestamp and pointer are t's, so it has no '\n' before and no '\r'
 * at its end (t has none: parse_run). 1, or 0 with the line as it was. */
static inline __attribute__((always_inline)) int tpl_guess(struct line_tpl *t, char *s,
							   size_t avail, struct trace_event *ev)
{
	size_t len = t->len;
	if (!len || len >= avail || s[len] != '\n' || !tpl_match(t, s, len))
		return 0;
	s[len] = '\0';
	if (tpl_take(t, s, s + len, ev))
		return 1;
	s[len] = '\n';
	return 0;
}

/* trace_next_batch()'s common case on its own: ev[k, n) filled from the
 * whole lines already in the buffer that parse_fast() takes (and the other
 * events' lines it counts), as next_event() would, without its per-line
 * checks of what cannot change within a batch (a trace.dat, strict mode,
 * an error, a line being skipped; a byte range's end it checks at each
 * line, as next_line() does). Stops before the first line
 * it does not take, leaving it to next_event(): the line as it was.
 * Returns the new k. */
static uint32_t text_run(struct trace_reader *r, struct trace_event *ev, uint32_t k, uint32_t n)
{
	if (r->dat || r->perf || r->strict || r->fail.code || r->skipping)
		return k;
	/* buf[0]'s file offset: a range (trace_set_range) ends before the
	 * first line starting at or after its limit, as in next_line() */
	uint64_t at = r->base + r->bytes_read - r->end;
	if (!r->tpl && !r->tpl_off && !(r->tpl = calloc(1, sizeof(*r->tpl))))
		r->tpl_off = true; /* no memory: parse every line */
	struct line_tpls *tp = r->tpl;
	while (k < n && at + r->start < r->limit) {
		char *s = r->buf + r->start;
		struct line_tpl *next = tp && tp->last ? tp->last->next : NULL;
		if (next && tpl_guess(next, s, r->end - r->start, &ev[k])) {
			tp->taken++;
			tp->last = next;
			r->start += (size_t)next->len + 1;
			r->line_no++;
			r->stats.lines++;
			count_event(r, &ev[k++]);
			continue;
		}
		char *nl = memchr(s, '\n', r->end - r->start);
		if (!nl)
			break;
		size_t len = (size_t)(nl - s);
		*nl = '\0';
		bool cr = len && s[len - 1] == '\r'; /* as parse_text() */
		if (cr)
			s[--len] = '\0';
		struct line_tpl *used;
		int rc = parse_run(r, s, len, &ev[k], &used);
		if (!rc) { /* the line as it was, for next_event() */
			if (cr)
				s[len] = '\r';
			*nl = '\n';
			break;
		}
		if (tp) {
			if (tp->last)
				tp->last->next = used;
			tp->last = used;
		}
		r->start += (size_t)(nl - s) + 1;
		r->line_no++;
		r->stats.lines++;
		if (rc == FAST_OTHER) {
			r->stats.other_events++;
			continue;
		}
		count_event(r, &ev[k++]);
	}
	return k;
}

/* trace_next(); with no_fill, NEED_INPUT where it would read more input
 * (nothing consumed then). */
static inline __attribute__((always_inline)) int
next_event(struct trace_reader *r, struct trace_event *ev, struct err *e, bool no_fill)
{
	for (;;) {
		char msg[MSG_MAX];
		enum trace_line_kind kind = TRACE_LINE_EVENT;
		uint64_t lost = 0;
		bool too_long = false, fast;
		char *line = NULL;
		size_t len = 0;
		int rc;

		if (r->fail.code) {
			if (e)
				*e = r->fail;
			return r->fail.code;
		}
		if (r->dat) {
			rc = tracedat_next(r->dat, ev, &kind, &lost, r->skip_fields, msg);
			if (rc == SLABSIM_ENOMEM)
				return err_set(e, rc, "out of memory reading %s", r->path);
			if (rc < 0 && tracedat_failure(r->dat)) {
				r->fail = *tracedat_failure(r->dat);
				continue; /* reported from r->fail above */
			}
			if (rc == 0)
				return dat_end(r, e);
			if (rc == 1 && kind != TRACE_LINE_EVENT)
				rc = 0;
		} else if (r->perf) {
			rc = perfdata_next(r->perf, ev, &kind, r->skip_fields, msg);
			if (rc == SLABSIM_ENOMEM)
				return err_set(e, rc, "out of memory reading %s", r->path);
			if (rc < 0 && perfdata_failure(r->perf)) {
				r->fail = *perfdata_failure(r->perf);
				continue; /* reported from r->fail above */
			}
			if (rc == 0) {
				uint64_t n;
				if (perfdata_lost(r->perf, &n)) {
					r->stats.lost_in_perf = n;
					r->stats.lost_sources |= TRACE_LOST_PERF;
				}
				hash_end(r);
				return 0;
			}
			if (rc == 1 && kind != TRACE_LINE_EVENT)
				rc = 0;
		} else {
			rc = next_line(r, &line, &len, &too_long, no_fill);
			if (rc == NEED_INPUT)
				return rc;
			if (rc < 0)
				continue; /* reported from r->fail above */
			if (rc == 0) {
				if (!r->ranged &&
				    (rc = trace_check_is_trace(&r->stats, r->path, e)))
					return rc;
				return 0;
			}
		}
		r->line_no++;
		r->stats.lines++;

		if (r->dat || r->perf) {
			/* parsed above */
		} else if (too_long) {
			rc = bad(msg, "expected a line of at most %u bytes, got a longer one",
				 TRACE_LINE_MAX);
		} else {
			rc = parse_text(line, len, ev, &kind, &lost, r->skip_fields, false, &fast,
					msg);
		}

		if (rc == 1 && r->strict && !(r->skip_fields & (1u << ev->type)))
			rc = impossible(ev, msg) ? SLABSIM_EINPUT : 1;
		if (rc == 1) {
			count_event(r, ev);
			return 1;
		}
		if (rc < 0) {
			rc = malformed(r, msg, e);
			if (rc < 0)
				return rc;
			continue;
		}
		switch (kind) {
		case TRACE_LINE_LOST:
			r->stats.lost_markers++;
			/* saturates: M of "[LOST M EVENTS]" is any 64-bit number */
			r->stats.lost_events = sat_add(r->stats.lost_events, lost);
			r->stats.lost_sources |= TRACE_LOST_MARKERS;
			break;
		case TRACE_LINE_OTHER_EVENT:
			r->stats.other_events++;
			break;
		default:
			r->stats.header_lines++;
			if (line)
				header_facts(r, line);
			break;
		}
	}
}

/* The error that ended the last batch, if any: its rc (0: none). */
static int held(struct trace_reader *r, struct err *e)
{
	int rc = r->held_rc;
	r->held_rc = 0;
	if (e)
		*e = r->held_err;
	return rc;
}

int trace_next(struct trace_reader *r, struct trace_event *ev, struct err *e)
{
	if (r->held_rc)
		return held(r, e);
	return next_event(r, ev, e, false);
}

int trace_next_batch(struct trace_reader *r, struct trace_event *ev, uint32_t n, struct err *e)
{
	uint32_t k;
	if (r->held_rc)
		return held(r, e);
	if (!n)
		return 0;
	int rc = next_event(r, ev, e, false);
	if (rc != 1 || r->dat) /* a record's strings: one at a time */
		return rc;
	if (r->perf) { /* its strings last until the close */
		for (k = 1; k < n; k++) {
			rc = next_event(r, &ev[k], &r->held_err, false);
			if (rc != 1) {
				r->held_rc = rc < 0 ? rc : 0;
				break;
			}
		}
		return (int)k;
	}
	for (k = 1; (k = text_run(r, ev, k, n)) < n; k++) {
		/* an error here is the next call's, after these events */
		rc = next_event(r, &ev[k], &r->held_err, true);
		if (rc != 1) {
			r->held_rc = rc < 0 ? rc : 0;
			break;
		}
	}
	return (int)k;
}

const struct trace_stats *trace_stats(const struct trace_reader *r)
{
	return &r->stats;
}

const char *trace_path(const struct trace_reader *r)
{
	return r->path;
}

struct trace_opts trace_options(const struct trace_reader *r)
{
	return (struct trace_opts){
		.strict = r->strict, .skip_fields = r->skip_fields, .kallsyms = r->kallsyms};
}

bool trace_is_plain_file(const struct trace_reader *r)
{
	return r->plain;
}

bool trace_strings_interned(const struct trace_reader *r)
{
	/* perfdata.c: site_str, and its names; tracedat.c: its string table */
	return r->perf != NULL || (r->dat && tracedat_strings_interned(r->dat));
}

uint64_t trace_lines_by_template(const struct trace_reader *r)
{
	return r->tpl ? r->tpl->taken : 0;
}

void trace_progress(const struct trace_reader *r, uint64_t *done, uint64_t *total)
{
	if (r->perf) { /* bytes of its data section */
		perfdata_progress(r->perf, done, total);
		return;
	}
	if (r->dat) { /* records, of a total libtracecmd does not tell */
		*done = tracedat_records(r->dat);
		*total = 0;
		return;
	}
	*done = r->bytes_read;
	*total = r->size_bytes;
	if (r->src_fd >= 0) {
		/* The child's stdin shares this open file description. */
		off_t off = lseek(r->src_fd, 0, SEEK_CUR);
		*done = off < 0 ? 0 : (uint64_t)off;
	}
}

void trace_close(struct trace_reader *r)
{
	if (!r)
		return;
	drop_input(r);
	tracedat_close(r->dat);
	perfdata_close(r->perf);
	free(r->kallsyms);
	free(r->tpl);
	if (r->hash_fd >= 0)
		close(r->hash_fd);
	XXH3_freeState(r->hash);
	if (r->buf_huge)
		bigmem_free(r->buf, BUF_HUGE);
	else
		free(r->buf);
	free(r->path);
	free(r);
}

/* ---- as an event source (source.h) ---- */

static int source_trace_next(void *ctx, struct trace_event *ev, struct err *e)
{
	return trace_next(ctx, ev, e);
}

static void source_trace_progress(void *ctx, uint64_t *done, uint64_t *total)
{
	trace_progress(ctx, done, total);
}

static const struct trace_stats *source_trace_stats(void *ctx)
{
	return trace_stats(ctx);
}

void trace_as_source(struct trace_source *src, struct trace_reader *r)
{
	*src = (struct trace_source){
		.ctx = r,
		.next = source_trace_next,
		.progress = source_trace_progress,
		.stats = source_trace_stats,
		.name = trace_path(r),
	};
}
