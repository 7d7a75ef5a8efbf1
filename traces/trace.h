/* trace.h - streaming reader for traces of the kmem: slab events.
 *
 * Reads what tracefs `trace`/`trace_pipe`, `trace-cmd report` and
 * `perf script` print for kmalloc, kmalloc_node, kmem_cache_alloc,
 * kmem_cache_alloc_node, kfree and kmem_cache_free, in the field layouts of
 * Linux 5.x and 6.x, and trace-cmd's binary trace.dat (through libtracecmd).
 * Input is a path or "-" for stdin, recognised by its first bytes, not its
 * name: text, a trace.dat, or either compressed with gzip, xz, zstd or bzip2
 * (decompressed through those programs, streaming); a perf.data, an empty
 * input and binary data that is none of these are refused. Memory is bounded
 * by the longest line, never by the trace length.
 *
 * Lines of a trace.dat: those `trace-cmd report` prints for it (3.x, default
 * options), without printing them: its "cpus=N" header (line 1), one per
 * record, and a "CPU:N [M EVENTS DROPPED]" note before a record that
 * follows lost events. So a trace.dat and its report text give the same
 * events, line numbers and counts, and a message's file:line is the line of
 * the report. Events are as the report text parses: times rounded to the
 * microsecond it prints. Only the top-level buffer is read (report also
 * prints buffer instances).
 */
#ifndef SLABSIM_TRACE_H
#define SLABSIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

enum trace_ev_type {
	TRACE_EV_KMALLOC = 0,
	TRACE_EV_KMALLOC_NODE,
	TRACE_EV_CACHE_ALLOC,	   /* kmem_cache_alloc */
	TRACE_EV_CACHE_ALLOC_NODE, /* kmem_cache_alloc_node */
	TRACE_EV_KFREE,
	TRACE_EV_CACHE_FREE, /* kmem_cache_free */
	TRACE_EV_MARKER,     /* tracing_mark_write: (user-space phase marker) */
	/* mm_page_free: the page allocator took back 4096 << order bytes at
	 * physical address pfn << 12 (ptr: that address; bytes_alloc: the
	 * length). Not a slab event: the evidence of frees the trace does not
	 * show (sim/pgfree.h). */
	TRACE_EV_PAGE_FREE,
	/* mm_page_alloc: the page allocator gave out 4096 << order bytes at
	 * physical address pfn << 12 (ptr, bytes_alloc as for mm_page_free).
	 * Not a slab event: a slab whose page the trace saw given out was made
	 * during the trace, not one of the start state (sim/pgfree.h). */
	TRACE_EV_PAGE_ALLOC,
	TRACE_EV_NR,
};

/* Names as they appear in traces, indexed by enum trace_ev_type. */
extern const char *const trace_ev_names[TRACE_EV_NR];

/* gfp bits that choose the kmalloc cache type. */
enum {
	TRACE_GFP_RECLAIMABLE = 1u << 0, /* __GFP_RECLAIMABLE: kmalloc-rcl-N */
	TRACE_GFP_DMA = 1u << 1,	 /* GFP_DMA / __GFP_DMA: dma-kmalloc-N */
	TRACE_GFP_ACCOUNT = 1u << 2,	 /* __GFP_ACCOUNT (or accounted=true): kmalloc-cg-N (6.1) */
	TRACE_GFP_ACCOUNT_ONLY = 1u << 3, /* ACCOUNT came from accounted=true alone: gfp_flags=
					     had no __GFP_ACCOUNT (the cache's SLAB_ACCOUNT) */
	/* not type bits: kmalloc routing by flags (policies/buckets.h) */
	TRACE_GFP_HARDWALL = 1u << 4, /* __GFP_HARDWALL (GFP_USER): memdup_user's kmem_buckets */
	TRACE_GFP_NOWARN = 1u << 5,   /* __GFP_NOWARN */
	TRACE_GFP_KNOWN = 1u << 7,    /* gfp_flags= was present and understood */
};

/* trace_event.pid with this bit: the thread group's id (tracefs'
 * record-tgid column, perf's "pid/tid"), which every thread of a process
 * shares, rather than the task's own pid. Pids stay below 2^22
 * (PID_MAX_LIMIT), so the bit never meets one. */
#define TRACE_PID_GROUP (INT32_C(1) << 30)

/* One parsed event. String members point into the reader's line buffer and
 * are valid until the next trace_next() call. */
struct trace_event {
	enum trace_ev_type type;
	uint64_t t_ns;	       /* timestamp, converted to ns */
	uint32_t cpu;	       /* [NNN] */
	int32_t pid;	       /* -1 if absent; | TRACE_PID_GROUP: a thread group */
	uint64_t ptr;	       /* ptr= (hashed or raw; 0 for NULL) */
	uint64_t bytes_req;    /* allocations only */
	uint64_t bytes_alloc;  /* allocations only */
	int32_t node;	       /* node=, -1 if absent or "any" */
	int8_t accounted;      /* accounted=: 1 true, 0 false, -1 absent */
	uint32_t gfp;	       /* TRACE_GFP_* bits */
	const char *call_site; /* symbolic "func+0x2e/0x40" or hex text; "" if absent */
	const char *name;      /* kmem_cache_free name= (6.1); NULL if absent */
	const char *text;      /* TRACE_EV_MARKER: the marker text */
	/* TRACE_EV_PAGE_FREE, TRACE_EV_PAGE_ALLOC: ptr is the physical
	 * address, bytes_alloc the length; the other fields are absent */
	uint64_t line; /* line number in the input (1-based) */
	/* 1 + the source's own interned id of call_site, 0 = none (text
	 * readers). Lets the engine skip hashing the string: ids are only used
	 * through a trace_source whose id_space is set (source.h). */
	uint32_t site_id;
	/* A text reader's line template the event came through or made (0:
	 * none, and from any other reader): two events of one reader with the
	 * same tpl had the same line but for the timestamp and the pointer, so
	 * every other field and string is the same. A consumer may keep what
	 * it makes of those by it (prefetch.c keeps the interned strings). */
	uint32_t tpl;
};

/* Where the lost-event counts of struct trace_stats came from. */
enum {
	TRACE_LOST_MARKERS = 1u << 0,	   /* "CPU:N [LOST M EVENTS]"-style lines (lost_events) */
	TRACE_LOST_HEADER = 1u << 1,	   /* a tracefs header's entries-written (lost_in_header) */
	TRACE_LOST_BUFFER_STATS = 1u << 2, /* trace.dat's per-CPU stats (lost_in_buffer_stats) */
	TRACE_LOST_PERF = 1u << 3,	   /* a perf.data's LOST records (lost_in_perf) */
};

/* Reset ev's key=value fields to "absent" (ptr 0, node -1, accounted -1,
 * call_site "", no name), as every reader does before it reads them
 * (inline: the text parser calls it once per line). */
static inline void trace_event_clear_fields(struct trace_event *ev)
{
	ev->ptr = 0;
	ev->bytes_req = 0;
	ev->bytes_alloc = 0;
	ev->node = -1;
	ev->accounted = -1;
	ev->gfp = 0;
	ev->call_site = "";
	ev->name = NULL;
}

/* Hex digits of trace_stats.input_hash. */
#define TRACE_HASH_HEX 32

/* What the reader has seen so far (counts of lines by kind). */
struct trace_stats {
	uint64_t lines;	       /* every line read */
	uint64_t header_lines; /* '#' comments, trace-cmd/perf headers, blank */
	uint64_t events[TRACE_EV_NR];
	uint64_t other_events; /* well-formed event lines of other events */
	uint64_t malformed;    /* lines that could not be parsed (skipped unless strict) */
	uint64_t lost_markers; /* "CPU:N [LOST M EVENTS]" and similar lines */
	uint64_t lost_events;  /* sum of M over those lines (unknown counts add 0) */
	/* tracefs header "# entries-in-buffer/entries-written: E/W": W - E,
	 * summed over the headers of the input */
	uint64_t lost_in_header;
	/* trace.dat: overrun + commit overrun + dropped events of the per-CPU
	 * ring-buffer statistics trace-cmd stored */
	uint64_t lost_in_buffer_stats;
	/* trace.dat: records its per-CPU statistics say were read from the
	 * ring buffer ("read events:") but the file did not give (corrupt or
	 * cut data; also in lost_in_buffer_stats), and that expected count */
	uint64_t dat_unread, dat_expected;
	/* perf.data: the events its LOST records count (the kernel's ring
	 * buffer was full; its LOST_SAMPLES records, the larger) */
	uint64_t lost_in_perf;
	/* perf.data: no kernel symbols were found for it (perfdata_symbols):
	 * its call sites are addresses */
	bool sites_unnamed;
	uint32_t lost_sources; /* TRACE_LOST_* bits: the sources present (even if 0) */
	/* What the input tells of the machine that recorded it, for defaults
	 * (sim/run/run.c): CPUs its header states (tracefs "#P:N", trace-cmd
	 * "cpus=N", a trace.dat's CPU count), 0 if none; 1 + the highest CPU
	 * of a slab event or marker, 0 if none; slab events with an
	 * accounted= field (kernels from 5.19 print it); kmem_cache_alloc
	 * events naming their cache (name=, printed from 6.18: 6.12's event
	 * has no such field, 6.18's format has it). */
	uint32_t header_cpus, cpus_seen;
	uint64_t accounted_events;
	uint64_t named_cache_allocs;
	/* a trace.dat whose event formats name the cache of every
	 * kmem_cache_alloc (tracedat_names_caches): set at the open */
	bool names_in_format;
	uint64_t first_malformed_line;
	char first_malformed_msg[256]; /* what was expected on that line */
	/* The input's identity (runs.trace_hash): XXH3-128 of its bytes as
	 * stored (compressed or not) as 32 lowercase hex digits, set once the
	 * whole input was read from its start, on the same read that parsed
	 * it; "" before that, and for a byte range. */
	char input_hash[TRACE_HASH_HEX + 1];
};

/* Events lost by the best count the trace has: the largest of its sources,
 * which overlap (a tracefs `trace` file's LOST notes and its header count
 * the same overwritten events; so do a trace.dat's notes and its stats). */
uint64_t trace_stats_lost(const struct trace_stats *st);

/* KMALLOC_MAX_SIZE of the kernels modelled: KMALLOC_SHIFT_MAX = MAX_ORDER +
 * PAGE_SHIFT - 1 = 22 with 4 KiB pages and MAX_ORDER 11 (v6.1
 * include/linux/slab.h); no slab object (kmalloc or cache) is larger. */
#define TRACE_KMALLOC_MAX_SIZE (1u << 22)

struct trace_opts {
	/* malformed line => SLABSIM_EINPUT error instead of skip+count; also an
	 * allocation no kernel emits (bytes_alloc < bytes_req, bytes_req above
	 * TRACE_KMALLOC_MAX_SIZE), which is otherwise returned as it is */
	bool strict;
	/* Events whose bit (1u << TRACE_EV_*) is set come back with only type,
	 * cpu, pid, t_ns and line: their key=value fields are neither parsed
	 * nor checked, so such a line is never malformed past its event name.
	 * For passes that ignore those events (the name pass skips kmalloc). */
	uint32_t skip_fields;
	/* A perf.data's kernel symbols (a kallsyms text) to name call sites
	 * by; NULL: perf's own search (perfdata.h). Borrowed. */
	const char *kallsyms;
	/* The caller wants no identity of the input (trace_stats.input_hash
	 * stays empty): the run is not recorded, and no second read is
	 * compared with this one. Saves hashing every byte (XXH3-128: about
	 * 3 % of a replay's instructions). */
	bool no_identity;
};

struct trace_reader;

/* The decompressor a name suggests ("gzip" for .gz, "xz" for .xz, "zstd"
 * for .zst, "bzip2" for .bz2), or NULL. trace_open goes by content; this is
 * for callers that decompress a file themselves. */
const char *trace_decompressor_for(const char *path);

/* Open path ("-" = stdin) and recognise what it holds (see the top). A
 * trace.dat or compressed data on a pipe is first copied to an unlinked
 * file in $TMPDIR (or /tmp). OUT: *out, to be closed with trace_close().
 * Errors: SLABSIM_EIO (cannot open/decompress), SLABSIM_EINPUT (empty, a
 * perf.data not of the form perfdata.h reads, binary data that is no
 * trace, a trace.dat libtracecmd cannot read; the message names path),
 * SLABSIM_ENOMEM. */
int trace_open(const char *path, const struct trace_opts *opts, struct trace_reader **out,
	       struct err *e);

/* Open the lines of a plain trace file that start at a byte offset in
 * [start, end): the line crossing start belongs to the range before, the
 * one crossing end to this one, so ranges that tile the file read every
 * line exactly once. Line numbers count from the range's first line.
 * Errors: SLABSIM_EUSAGE (stdin or a compressed path), SLABSIM_EIO,
 * SLABSIM_ENOMEM. */
int trace_open_range(const char *path, const struct trace_opts *opts, uint64_t start, uint64_t end,
		     struct trace_reader **out, struct err *e);

/* Move r, a reader of a plain file, to the lines starting in [start, end)
 * as trace_open_range would open them: line numbers, counts and any error
 * start again from nothing, the buffer and the open file are kept (a
 * parser thread reads many ranges through one reader). Errors:
 * SLABSIM_EUSAGE (not a plain file, see trace_is_plain_file), SLABSIM_EIO. */
int trace_set_range(struct trace_reader *r, uint64_t start, uint64_t end, struct err *e);

/* Read the next slab event into *ev. Returns 1 for an event, 0 at end of
 * input, or a negative code: SLABSIM_EINPUT for a malformed line in strict
 * mode (message "path:line: expected ..., got ...") and, at the end, for text
 * none of whose lines was an event (trace_check_is_trace), SLABSIM_EIO for a
 * read or decompressor failure (including a truncated compressed stream). */
int trace_next(struct trace_reader *r, struct trace_event *ev, struct err *e);

/* Up to n events into ev[0..], as that many trace_next() calls would read
 * them, in one call: the number read (>= 1), or what trace_next() returns
 * when none is. A batch ends early where more input must be read, which
 * would move the lines its strings point into: they are valid until the
 * next call. An error met after some events is the next call's. */
int trace_next_batch(struct trace_reader *r, struct trace_event *ev, uint32_t n, struct err *e);

/* SLABSIM_EINPUT naming path when st, the counts of a whole input, say it is
 * no trace: lines, some malformed, none an event, another event or a
 * lost-events note. 0 otherwise (an input of only headers is a trace). */
int trace_check_is_trace(const struct trace_stats *st, const char *path, struct err *e);

/* Counters so far; valid until trace_close(). */
const struct trace_stats *trace_stats(const struct trace_reader *r);

/* The path as given to trace_open ("-" for stdin). */
const char *trace_path(const struct trace_reader *r);

/* The options r was opened with. */
struct trace_opts trace_options(const struct trace_reader *r);

/* Does r read a regular file as is (not stdin, a pipe, a device or through a
 * decompressor), so that byte ranges of its path can be read apart? */
bool trace_is_plain_file(const struct trace_reader *r);

/* Are the call_site and name strings of r's events interned: each stays at
 * its address until trace_close(r), and two are equal exactly when they are
 * at one address? True for a perf.data, whose reader prints a call site or
 * keeps a cache name once; a text line's strings are in the line buffer. */
bool trace_strings_interned(const struct trace_reader *r);

/* How many lines trace_next_batch() took through a line template (a line
 * that repeats an earlier one but for its timestamp and pointer, read
 * without parsing the rest again): for the tests and benchmarks. */
uint64_t trace_lines_by_template(const struct trace_reader *r);

/* Bytes consumed from the (compressed) file and its size, for progress bars;
 * *total is 0 when unknown (stdin, pipe). */
void trace_progress(const struct trace_reader *r, uint64_t *done, uint64_t *total);

/* For a reader of a plain file (trace_is_plain_file) that another reads in
 * byte ranges (the chunked prefetch): hash the file from r's start to its
 * end into trace_stats(r)->input_hash, as a whole read would; stops early,
 * leaving it "", when *stop becomes nonzero (read atomically) or a read
 * fails. r must not be read meanwhile. */
void trace_hash_input(struct trace_reader *r, const int *stop);
/* Close and free; waits for a decompressor child. r may be NULL. */
void trace_close(struct trace_reader *r);

/* Parse one line (no trailing newline needed) into *ev. For tests and the
 * fuzzer. Returns 1 for a slab event, 0 for a recognised non-slab line
 * (header, other event, lost marker: *kind says which), or SLABSIM_EINPUT with
 * the reason in e (no path prefix). The line buffer is modified in place
 * (strings in *ev point into it). */
enum trace_line_kind {
	TRACE_LINE_EVENT = 0,
	TRACE_LINE_HEADER,
	TRACE_LINE_OTHER_EVENT,
	TRACE_LINE_LOST,
};
int trace_parse_line(char *line, struct trace_event *ev, enum trace_line_kind *kind,
		     uint64_t *lost_count, struct err *e);

/* Readable bytes that must follow the NUL of a line given to
 * trace_parse_line_test() (the fast path reads whole words). */
#define TRACE_LINE_PAD 32

/* For tests only: one line as trace_next() parses it (len bytes at line, NUL
 * bytes included, line[len] == '\0' followed by TRACE_LINE_PAD readable bytes,
 * one trailing '\r' dropped; skip_fields as in trace_opts): through the fast
 * path for the common layouts with the general parser behind it, or with
 * general_only through the general parser alone, which is the specification
 * the fast path must match. *fast: the fast path took the line. Returns as
 * trace_parse_line(). */
int trace_parse_line_test(char *line, size_t len, uint32_t skip_fields, bool general_only,
			  struct trace_event *ev, enum trace_line_kind *kind, uint64_t *lost,
			  bool *fast, struct err *e);

/* r as an event source (source.h; r borrowed, stats() are its line counts). */
struct trace_source;
void trace_as_source(struct trace_source *src, struct trace_reader *r);

#endif
