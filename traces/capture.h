/* capture.h - read a capture directory (the format of docs/capture-format.md):
 * the trace, the kernel that recorded it (uname.txt, cmdline.txt, ncpus.txt)
 * and the kernel's own view of its caches (slab-attrs.tsv, slabinfo.txt,
 * slabinfo-start.txt, snapshots/ID.slabinfo). Every part but the trace is
 * optional; what is absent is reported as absent, never guessed. Parsing
 * only: turning the metadata into a model configuration is the caller's job.
 * Errors name file:line and what was expected.
 */
#ifndef SLABSIM_CAPTURE_H
#define SLABSIM_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buckets.h"
#include "err.h"

/* One line of /proc/slabinfo 2.1 (SLUB prints 0 for the tunables). */
struct capture_slabinfo_row {
	char *name;
	uint64_t active_objs, num_objs;
	uint32_t objsize, objperslab, pagesperslab;
	uint32_t limit, batchcount, sharedfactor; /* tunables (SLAB's; 0 under SLUB) */
	uint64_t active_slabs, num_slabs;
	uint64_t sharedavail;
};

struct capture_slabinfo {
	struct capture_slabinfo_row *rows;
	uint32_t n;
};

/* Read a /proc/slabinfo file (version 2.1). Errors: SLABSIM_EIO (cannot
 * open), SLABSIM_EINPUT "path:line: expected ..." (also for a NUL byte: every
 * file of a capture but the trace is text, read line by line). */
int capture_read_slabinfo(const char *path, struct capture_slabinfo *out, struct err *e);
void capture_slabinfo_free(struct capture_slabinfo *si);
/* The row named name, or NULL. */
const struct capture_slabinfo_row *capture_slabinfo_find(const struct capture_slabinfo *si,
							 const char *name);
/* Σ num_slabs * pagesperslab. */
uint64_t capture_slabinfo_pages(const struct capture_slabinfo *si);

/* The lines of a /proc/meminfo a replay compares with, in kB; -1 where the
 * file has no such line. Slab: is the kernel's count of slab memory (every
 * slab page, and in 6.1 the page-allocator kmallocs): SLOB's only figure. */
struct capture_meminfo {
	int64_t slab_kb, sreclaimable_kb, sunreclaim_kb, memtotal_kb, memfree_kb;
};

/* Read a /proc/meminfo file ("Key:   value kB" lines; other lines and keys
 * are skipped). Errors: SLABSIM_EIO (cannot read), SLABSIM_EINPUT (a key
 * above whose value is not a number, named with its line). */
int capture_read_meminfo(const char *path, struct capture_meminfo *out, struct err *e);

/* One /sys/kernel/slab entry. Numeric attributes keep the leading number of
 * what the kernel printed ("340 N0=340" -> 340); -1 when the column is
 * absent or not a number. */
enum capture_attr {
	CAPTURE_A_OBJECT_SIZE = 0,
	CAPTURE_A_SLAB_SIZE,
	CAPTURE_A_ORDER,
	CAPTURE_A_OBJS_PER_SLAB,
	CAPTURE_A_ALIGN,
	CAPTURE_A_RED_ZONE,
	CAPTURE_A_POISON,
	CAPTURE_A_STORE_USER,
	CAPTURE_A_HWCACHE_ALIGN,
	CAPTURE_A_SANITY_CHECKS,
	CAPTURE_A_TRACE,
	CAPTURE_A_CACHE_DMA,
	CAPTURE_A_RECLAIM_ACCOUNT,
	CAPTURE_A_DESTROY_BY_RCU,
	CAPTURE_A_USERSIZE,
	CAPTURE_A_MIN_PARTIAL,
	CAPTURE_A_CPU_PARTIAL,
	CAPTURE_A_OBJECTS,
	CAPTURE_A_TOTAL_OBJECTS,
	CAPTURE_A_SLABS,
	CAPTURE_A_PARTIAL,	   /* slabs on the node partial lists */
	CAPTURE_A_CPU_SLABS,	   /* CPU slabs + per-CPU partial slabs */
	CAPTURE_A_OBJECTS_PARTIAL, /* objects in use on node-partial slabs */
	/* 6.18: the per-CPU sheaf size of a cache created with
	 * kmem_cache_args.sheaf_capacity (0: no sheaves); -1 before 6.18 */
	CAPTURE_A_SHEAF_CAPACITY,
	CAPTURE_A_NR,
};

/* Column names of the attributes, as sysfs names the files. */
extern const char *const capture_attr_names[CAPTURE_A_NR];

struct capture_attrs_row {
	char *name;
	char *link_target; /* alias target, NULL for a root cache ("-") */
	int has_ctor;	   /* 1 ctor listed, 0 "-", -1 no ctor column */
	int64_t v[CAPTURE_A_NR];
	/* slabs_cpu_partial ("N(M) C0=a(b) C1=..."): per CPU, the slabs on its
	 * partial stack (the b), cpu_partial_slabs[cpu], 0 for CPUs not
	 * listed; ncpu_partial = highest CPU listed + 1. NULL/0 when the column
	 * is absent or unreadable (cpu_partial_total -1). The a are the
	 * kernel's estimate (6.1: slabs * objs_per_slab / 2), not read. */
	uint32_t *cpu_partial_slabs;
	uint32_t ncpu_partial;
	int64_t cpu_partial_total; /* the M: Σ over CPUs */
};

struct capture_attrs {
	struct capture_attrs_row *rows;
	uint32_t n;
	/* which columns the header names: a sysfs walk of an older script or a
	 * hand-made one may leave some out (readers say which, never guess) */
	bool has_col[CAPTURE_A_NR];
	bool has_link_target, has_ctor, has_slabs_cpu_partial;
};

/* Read a slab-attrs.tsv: a header row naming the columns (name first), one
 * row per entry, each with as many columns as the header. Errors:
 * SLABSIM_EIO, SLABSIM_EINPUT (no name column, a row with more or fewer
 * columns than the header, a NUL byte; named with its line). */
int capture_read_attrs(const char *path, struct capture_attrs *out, struct err *e);
void capture_attrs_free(struct capture_attrs *a);

/* The columns of a slab-attrs.tsv that say how a cache is laid out and
 * which the header of a does not name, ", "-separated into buf (size n):
 * link_target, ctor, object_size, slab_size, order, objs_per_slab, align
 * and the flag files (red_zone ... usersize). "" when it names them all. */
void capture_attrs_missing(const struct capture_attrs *a, char *buf, size_t n);

/* One slub_debug block of the command line: flags for every cache (ncaches
 * 0) or for the listed caches (names may end in '*' in 6.x). */
struct capture_debug_block {
	char flags[24]; /* letters as given; "" = the default F Z P U */
	char **caches;
	uint32_t ncaches;
};

/* What the kernel command line says about the slab allocator. The 6.9
 * names (slab_debug=, slab_min_order= ...) and the older slub_* ones are
 * both taken, as the kernel takes both; words after a lone "--" are the
 * init process's arguments, not the kernel's, and are not read. */
struct capture_cmdline {
	char *raw;
	bool slub_debug_given;
	struct capture_debug_block *debug;
	uint32_t ndebug;
	int64_t slub_min_order, slub_max_order, slub_min_objects; /* -1 = not given */
	bool nomerge;						  /* slab_nomerge / slub_nomerge */
	bool no_hash_pointers;
};

/* Parse a kernel command line (one line of /proc/cmdline). Never fails on
 * unknown words; SLABSIM_EINPUT for a malformed slab parameter (path and
 * line 1 named). */
int capture_parse_cmdline(const char *text, const char *path, struct capture_cmdline *out,
			  struct err *e);
void capture_cmdline_free(struct capture_cmdline *c);

/* Kernel release of `uname -a` (its third word, "6.1.0-57-amd64"): OUT
 * major and minor. Errors: SLABSIM_EINPUT. */
int capture_parse_uname(const char *text, const char *path, char *release, uint32_t release_len,
			uint32_t *major, uint32_t *minor, struct err *e);

struct capture {
	char *dir;
	char *trace;	/* path of trace.txt(.zst|.gz|.xz) */
	bool has_uname; /* uname.txt */
	char release[64];
	uint32_t major, minor;
	bool has_cmdline; /* cmdline.txt */
	struct capture_cmdline cmdline;
	/* ncpus.txt: 0 when absent */
	uint32_t nproc, online, possible;
	/* lost-events.txt, in the scripts' layout or tracefs' own (docs/
	 * capture-format.md): Σ over CPUs of overrun + commit overrun + dropped
	 * events (events the ring buffer lost) */
	bool has_lost;
	uint64_t lost_events;
	bool has_attrs, has_end, has_start;
	struct capture_attrs attrs; /* slab-attrs.tsv */
	/* slab-attrs.tsv without some column that lays out a cache
	 * (capture_attrs_missing): the columns it lacks, ", "-separated; the
	 * file is then read but has_attrs is false (its layout would be a
	 * guess); "" otherwise */
	char attrs_missing[320];
	bool has_attrs_start;
	struct capture_attrs attrs_start; /* slab-attrs-start.tsv (SLUB) */
	struct capture_slabinfo end;	  /* slabinfo.txt */
	struct capture_slabinfo start;	  /* slabinfo-start.txt */
	char **snapshot_ids;		  /* snapshots/ID.slabinfo, sorted */
	uint32_t nsnapshots;
	/* meminfo-start.txt and meminfo.txt (captures of version 2 of the
	 * scripts have both; older ones meminfo.txt only) */
	bool has_meminfo_start, has_meminfo_end;
	struct capture_meminfo meminfo_start, meminfo_end;
	char **meminfo_ids; /* snapshots/ID.meminfo, sorted (SLOB: the only snapshots) */
	uint32_t nmeminfo;
	/* capture-info.txt's allocator= ("slub", "slab", "slob"), "" when the
	 * file or the key is absent */
	char info_allocator[16];
	/* capture-info.txt's random_kmalloc_seed= (qemu-boot, of a kernel
	 * with random kmalloc caches: the per-boot seed read from the guest,
	 * hex) */
	bool has_seed;
	uint64_t random_seed;
	/* capture-info.txt's start_shrink= above 0 (record, version 3): the
	 * caches with sheaves were shrunk after the walk of /sys/kernel/slab
	 * into slab-attrs-start.tsv, their rows of it read again, and
	 * slabinfo-start.txt read last, just before the events were enabled */
	bool start_shrunk;
	/* system-map.txt: the System.map lines of the call sites' functions
	 * (qemu-boot), sorted by name, duplicates marked; symtab points at
	 * syms (policy_cfg.symtab borrows it) */
	struct policy_symbol *syms;
	char *syms_names;
	struct policy_symtab symtab;
};

/* Is path a directory (a capture rather than a trace file)? */
bool capture_is_dir(const char *path);

/* Read the capture at dir: every metadata file present, parsed. Errors:
 * SLABSIM_EIO (not a directory, no trace file, unreadable file),
 * SLABSIM_EINPUT (a malformed file, named with its line). */
int capture_open(const char *dir, struct capture **out, struct err *e);
void capture_close(struct capture *c);

/* Read snapshots/ID.slabinfo of c. */
int capture_read_snapshot(const struct capture *c, const char *id, struct capture_slabinfo *out,
			  struct err *e);

/* Read snapshots/ID.meminfo of c. */
int capture_read_snapshot_meminfo(const struct capture *c, const char *id,
				  struct capture_meminfo *out, struct err *e);

/* "SNAP ID" marker text -> ID (pointer into text), or NULL. */
const char *capture_snap_id(const char *marker_text);
/* "SNAP-READ ID" (written just before the snapshot's /proc/slabinfo read)
 * -> ID, or NULL. */
const char *capture_snap_read_id(const char *marker_text);

#endif
