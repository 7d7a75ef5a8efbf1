/* trace.h - streaming reader for ftrace text of the kmem: slab events.
 *
 * Reads what tracefs `trace`/`trace_pipe`, `trace-cmd report` and
 * `perf script` print for kmalloc, kmalloc_node, kmem_cache_alloc,
 * kmem_cache_alloc_node, kfree and kmem_cache_free, in the field layouts of
 * Linux 5.x and 6.x. Input is a path, a .gz/.xz/.zst path (decompressed
 * through the gzip/xz/zstd programs, streaming), or "-" for stdin.
 * Memory is bounded by the longest line, never by the trace length.
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
	TRACE_EV_NR,
};

/* Names as they appear in traces, indexed by enum trace_ev_type. */
extern const char *const trace_ev_names[TRACE_EV_NR];

/* gfp bits that choose the kmalloc cache type. */
enum {
	TRACE_GFP_RECLAIMABLE = 1u << 0, /* __GFP_RECLAIMABLE: kmalloc-rcl-N */
	TRACE_GFP_DMA = 1u << 1,	 /* GFP_DMA / __GFP_DMA: dma-kmalloc-N */
	TRACE_GFP_ACCOUNT = 1u << 2,	 /* __GFP_ACCOUNT (or accounted=true): kmalloc-cg-N (6.1) */
	TRACE_GFP_KNOWN = 1u << 7,	 /* gfp_flags= was present and understood */
};

/* One parsed event. String members point into the reader's line buffer and
 * are valid until the next trace_next() call. */
struct trace_event {
	enum trace_ev_type type;
	uint64_t t_ns;	       /* timestamp, converted to ns */
	uint32_t cpu;	       /* [NNN] */
	int32_t pid;	       /* -1 if absent */
	uint64_t ptr;	       /* ptr= (hashed or raw; 0 for NULL) */
	uint64_t bytes_req;    /* allocations only */
	uint64_t bytes_alloc;  /* allocations only */
	int32_t node;	       /* node=, -1 if absent or "any" */
	int8_t accounted;      /* accounted=: 1 true, 0 false, -1 absent */
	uint32_t gfp;	       /* TRACE_GFP_* bits */
	const char *call_site; /* symbolic "func+0x2e/0x40" or hex text; "" if absent */
	const char *name;      /* kmem_cache_free name= (6.1); NULL if absent */
	const char *text;      /* TRACE_EV_MARKER: the marker text */
	uint64_t line;	       /* line number in the input (1-based) */
	/* 1 + the source's own interned id of call_site, 0 = none (text
	 * readers). Lets the engine skip hashing the string: ids are only used
	 * through a trace_source whose id_space is set (source.h). */
	uint32_t site_id;
};

/* What the reader has seen so far (counts of lines by kind). */
struct trace_stats {
	uint64_t lines;	       /* every line read */
	uint64_t header_lines; /* '#' comments, trace-cmd/perf headers, blank */
	uint64_t events[TRACE_EV_NR];
	uint64_t other_events; /* well-formed event lines of other events */
	uint64_t malformed;    /* lines that could not be parsed (skipped unless strict) */
	uint64_t lost_markers; /* "CPU:N [LOST M EVENTS]" and similar lines */
	uint64_t lost_events;  /* sum of M over those lines (unknown counts add 0) */
	uint64_t first_malformed_line;
	char first_malformed_msg[256]; /* what was expected on that line */
};

struct trace_opts {
	bool strict; /* malformed line => SLABSIM_EINPUT error instead of skip+count */
	/* Events whose bit (1u << TRACE_EV_*) is set come back with only type,
	 * cpu, pid, t_ns and line: their key=value fields are neither parsed
	 * nor checked, so such a line is never malformed past its event name.
	 * For passes that ignore those events (the name pass skips kmalloc). */
	uint32_t skip_fields;
};

struct trace_reader;

/* The decompressor program trace_open runs for path by its suffix ("gzip"
 * for .gz, "xz" for .xz, "zstd" for .zst), or NULL for a plain file. */
const char *trace_decompressor_for(const char *path);

/* Open path ("-" = stdin). Compressed input is recognised by the suffix .gz,
 * .xz or .zst. OUT: *out, to be closed with trace_close(). Errors:
 * SLABSIM_EIO (cannot open/decompress), SLABSIM_ENOMEM. */
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
 * mode (message "path:line: expected ..., got ..."), SLABSIM_EIO for a read or
 * decompressor failure (including a truncated compressed stream). */
int trace_next(struct trace_reader *r, struct trace_event *ev, struct err *e);

/* Counters so far; valid until trace_close(). */
const struct trace_stats *trace_stats(const struct trace_reader *r);

/* The path as given to trace_open ("-" for stdin). */
const char *trace_path(const struct trace_reader *r);

/* The options r was opened with. */
struct trace_opts trace_options(const struct trace_reader *r);

/* Does r read a regular file as is (not stdin, a pipe, a device or through a
 * decompressor), so that byte ranges of its path can be read apart? */
bool trace_is_plain_file(const struct trace_reader *r);

/* Bytes consumed from the (compressed) file and its size, for progress bars;
 * *total is 0 when unknown (stdin, pipe). */
void trace_progress(const struct trace_reader *r, uint64_t *done, uint64_t *total);

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
