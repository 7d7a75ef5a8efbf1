/* sink.h - where the figures of a run go. The engine (sim.h) hands every
 * row it measures to a sink: the time series as it samples, the end state
 * when the run is reported (sim_report). The SQLite recorder is one sink
 * (analysis/rec.h, rec_as_sink), a test's array of rows another; the engine
 * knows none of them. Every row and its units are those of the database
 * tables of the same name (docs/schema.md): sizes in bytes, times in virtual
 * nanoseconds. Strings in a row are borrowed for the call.
 */
#ifndef SLABSIM_SINK_H
#define SLABSIM_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

/* Final totals of a run (the `runs` row): sim_run_totals fills them, all but
 * wall_seconds, which whoever times the run sets. */
struct sink_totals {
	uint64_t events; /* slab events replayed */
	uint64_t t_first_ns, t_last_ns;
	uint64_t final_slab_pages, peak_slab_pages, peak_slab_pages_t_ns;
	uint64_t final_large_pages;
	uint64_t final_live_objs, final_live_req_bytes;
	uint64_t align_violations;
	double wall_seconds;
};

/* A count by name: events by type, anomalies by kind, lines by kind. */
struct sink_count {
	const char *table; /* "event" | "anomaly" | "line" */
	const char *kind;
	uint64_t count;
	uint64_t first_line; /* input line of the first occurrence, 0 if none */
};

/* Per-cache final and peak figures (the `caches` table). */
struct sink_cache {
	const char *cache;    /* name */
	const char *alias_of; /* root cache name, or NULL */
	bool kmalloc;
	uint32_t object_size, slab_size, align, order, objs_per_slab;
	uint64_t allocs, frees;
	uint64_t live_objs, live_req_bytes;
	uint64_t slabs, pages; /* at the end */
	uint64_t peak_pages, peak_pages_t_ns;
	uint64_t peak_live_objs;
	uint64_t waste_rounding;   /* Σ(object_size - req) over live objects */
	uint64_t waste_layout;	   /* live * (slab_size - object_size) */
	uint64_t waste_free_slots; /* free slots * slab_size */
	uint64_t waste_tail;	   /* slabs * (slab bytes - objs_per_slab * slab_size) */
	uint64_t align_violations;
	/* SLUB 6.18+ (the `cache_sheaves` table, a row when sheaf_capacity):
	 * objects a sheaf holds (0: no sheaves), objects parked at the end */
	uint32_t sheaf_capacity;
	uint64_t parked_objs;
};

/* Per-call-site figures (the `sites` table). */
struct sink_site {
	const char *call_site;
	uint64_t allocs, frees;
	uint64_t bytes_req, bytes_alloc, bytes_alloc_trace; /* sums over allocations */
	uint64_t live_objs, live_req_bytes;
	uint64_t align_violations;
	uint64_t pingpong; /* frees on another CPU than the allocation */
};

/* Alignment violations by (cache, call site, size) (the `violations` table). */
struct sink_violation {
	const char *cache;
	const char *call_site;
	uint64_t size; /* the power-of-two request size */
	uint64_t count;
	uint64_t example_addr;
};

/* What the run's alignment policy costs, by (root cache, call site), over
 * the kmallocs (the `align_cost` table): each allocation's bytes_alloc
 * against a kmalloc of the same size under align none, which part of it
 * is the left red zone's growth (slub_debug Z), the free fragments SLOB
 * left before blocks to align them, and, for the callers a sites file
 * lists, the allocations not aligned as their rule asks. */
#define SINK_NEED_NATURAL UINT32_MAX /* policy.h's POLICY_NEED_NATURAL */
struct sink_align_cost {
	const char *cache; /* root cache name; NULL: the page allocator */
	const char *call_site;
	uint32_t need; /* the site's rule: 0 unlisted, SINK_NEED_NATURAL, or bytes */
	uint64_t allocs;
	uint64_t violations;			/* listed callers only */
	uint64_t bytes_alloc, bytes_alloc_none; /* sums over the allocations */
	uint64_t redzone_shift_bytes;		/* Σ red_left_pad - that of the none cache */
	uint64_t fragment_bytes;		/* Σ SLOB alignment fragments */
	int64_t live_growth_bytes;		/* at the end, over the live objects */
};

/* One point of the time series (the `samples` table). */
struct sink_sample {
	uint64_t seq;
	uint64_t t_ns;
	uint64_t event_idx; /* slab events replayed before this sample */
	const char *label;  /* phase marker text, or NULL */
	uint64_t slab_pages, large_pages;
	uint64_t live_objs, live_req_bytes;
	uint64_t waste_rounding, waste_layout, waste_free_slots, waste_tail;
	/* SLUB 6.18+ (the `sample_sheaves` table, one row when sheaves): some
	 * root cache has sheaves, and the objects parked in all sheaves and
	 * barns (allocated in slabs, free for the kernel) */
	bool sheaves;
	uint64_t parked_objs;
};

/* Per-cache point of the time series (the `sample_caches` table; zeros when
 * the cache holds no slabs and no live objects). */
struct sink_sample_cache {
	uint64_t seq;
	const char *cache;
	uint64_t slabs, pages, live_objs, live_req_bytes;
};

/* One row per run (the `run_metrics` table). */
struct sink_run_metrics {
	uint64_t perf_allocs, perf_frees;
	uint64_t perf_bytes_req, perf_bytes_alloc, perf_bytes_alloc_model, perf_bytes_freed;
	double perf_frag_pct;
	uint64_t perf_cross_node, perf_pingpong;
	uint64_t si_caches, si_active, si_space, si_used, si_loss, si_objects, si_partobj;
	uint64_t si_slabs, si_partial, si_mratio, si_oratio;
	uint64_t jw_heap_peak, jw_heap_peak_t_ns, jw_live_peak, jw_live_peak_t_ns;
	double jw[4]; /* J&W #1..#4 as ratios; negative = undefined (stored NULL) */
	uint64_t mem_mib;
	bool have_pages; /* free_pages defined (the model has a page allocator) */
	uint64_t free_pages;
};

/* A perf kmem stat row: per call site (`perf_callers`) or per pointer
 * (`perf_ptrs`, where call_site is the last allocating call site). */
struct sink_perf {
	uint64_t ptr;
	const char *call_site;
	uint64_t hit, bytes_req, bytes_alloc, pingpong;
};

/* Per sample (the `sample_metrics` table). */
struct sink_sample_metrics {
	uint64_t seq, heap_bytes;
	uint64_t si_space, si_used, si_objects, si_partobj, si_slabs, si_partial;
	bool have_pages;
	uint64_t free_pages;
};

/* Per sample and page order (the `sample_orders` table). */
struct sink_sample_order {
	uint64_t seq, order, held_blocks, free_blocks, unusable_permille;
};

/* Per sample and cache, slabinfo figures (the `sample_slabinfo` table; zeros
 * when the cache holds no slabs). */
struct sink_sample_slabinfo {
	uint64_t seq;
	const char *cache;
	uint64_t slabs, partial, objects, objects_partial, space, used;
};

/* What receives the rows. Each op returns 0, or an SLABSIM_E* code with e
 * set, which stops the replay (sim_replay_source) or the report (sim_report)
 * and is returned by it. An op may be NULL: its rows are dropped.
 * Per sample, in increasing seq: sample, then (sim_opts.sample_caches)
 * sample_slabinfo for root caches, sample_metrics, sample_order for every
 * page order, then (sim_opts.sample_caches) sample_cache for root caches.
 * The per-cache rows are change logs, as the recorder keeps them
 * (docs/schema.md): a cache's row comes when it differs from the last one
 * of that cache since the sink was given (sim_replay_source,
 * sim_push_begin), or from all zeros; a cache that holds nothing is a row
 * of zeros.
 * At the end (sim_report), in this order: count (events, anomalies, lines),
 * cache, site, violation, align_cost, run_metrics, perf_caller, perf_ptr. */
struct sink_ops {
	int (*sample)(void *ctx, const struct sink_sample *row, struct err *e);
	int (*sample_cache)(void *ctx, const struct sink_sample_cache *row, struct err *e);
	int (*sample_slabinfo)(void *ctx, const struct sink_sample_slabinfo *row, struct err *e);
	int (*sample_metrics)(void *ctx, const struct sink_sample_metrics *row, struct err *e);
	int (*sample_order)(void *ctx, const struct sink_sample_order *row, struct err *e);
	int (*count)(void *ctx, const struct sink_count *row, struct err *e);
	int (*cache)(void *ctx, const struct sink_cache *row, struct err *e);
	int (*site)(void *ctx, const struct sink_site *row, struct err *e);
	int (*violation)(void *ctx, const struct sink_violation *row, struct err *e);
	int (*align_cost)(void *ctx, const struct sink_align_cost *row, struct err *e);
	int (*run_metrics)(void *ctx, const struct sink_run_metrics *row, struct err *e);
	int (*perf_caller)(void *ctx, const struct sink_perf *row, struct err *e);
	int (*perf_ptr)(void *ctx, const struct sink_perf *row, struct err *e);
};

/* A sink: its ops and the context they are called with (borrowed). */
struct sink {
	const struct sink_ops *ops;
	void *ctx;
};

/* Hand row to k's op `op`; 0 when that op is NULL. */
#define SINK_EMIT(k, op, row, e) ((k)->ops->op ? (k)->ops->op((k)->ctx, (row), (e)) : 0)

#endif
