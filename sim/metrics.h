/* metrics.h - figures that mean what the tools users already know mean:
 * perf kmem stat (slab mode), tools/mm/slabinfo (-T, the report view),
 * /proc/slabinfo, Johnstone & Wilson's fragmentation, and the kernel's
 * unusable free space index (/sys/kernel/debug/extfrag/unusable_index).
 * docs/metrics.md defines every figure once; this module computes them.
 *
 * The engine (replay.c) feeds it every allocation and free event as perf
 * sees them, and the heap and live bytes after every change; the slabinfo
 * and page-level figures are read from the policy when asked. Memory: the
 * per-call-site table follows the call sites; the per-pointer record follows
 * the live pointers, or with record_ptrs (--alloc) every distinct pointer of
 * the trace, which is what perf keeps (perf never forgets a pointer: a later
 * free of it still counts).
 */
#ifndef SLABSIM_METRICS_H
#define SLABSIM_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "policy.h"
#include "sat.h"
#include "trace.h"

struct strtab;
struct sink;
struct trace_event;

/* Zone size (MiB) that defines the free memory of the unusable index when
 * --mem-mib is not given. */
#define METRICS_MEM_MIB_DEFAULT 4096

struct metrics_opts {
	uint64_t mem_mib;  /* simulated zone size in MiB, a multiple of 4; 0 = default */
	bool record_ptrs;  /* keep the per-pointer table (--alloc): print and record it */
};

struct metrics;

/* sites: the engine's call-site names (borrowed; ids given to
 * metrics_perf_alloc index it). Errors: SLABSIM_ENOMEM. */
int metrics_create(const struct metrics_opts *o, const struct strtab *sites, struct metrics **out,
		   struct err *e);
void metrics_destroy(struct metrics *m);

/* ---- perf kmem stat ---- */

/* Every allocation event, before any filtering, as perf counts it; site is
 * the call-site id. Returns 0 or SLABSIM_ENOMEM. */
int metrics_perf_alloc(struct metrics *m, const struct trace_event *ev, uint32_t site);
/* Every free event (kfree, kmem_cache_free). */
void metrics_perf_free(struct metrics *m, const struct trace_event *ev);
/* The same two, for a caller that keeps its own table keyed by the event's
 * pointer (the replay's live table): *rec is the pointer's record, or
 * METRICS_NO_REC, kept by the caller instead of in the table of metrics;
 * alloc sets it, free may reset it to METRICS_NO_REC (the record dropped).
 * The figures are those of the functions above. */
#define METRICS_NO_REC UINT32_MAX
int metrics_perf_alloc_at(struct metrics *m, const struct trace_event *ev, uint32_t site,
			  uint32_t *rec);
void metrics_perf_free_at(struct metrics *m, const struct trace_event *ev, uint32_t *rec);
/* The same without --alloc (record_ptrs false), for a caller whose own
 * table holds, for every pointer with a record (from an allocation event to
 * the next free event of the pointer), the call site and CPU (ev->cpu) of its
 * last allocation, and names the record by an index of its own, ix (dense:
 * metrics keeps the rest, the bytes_alloc, in an array indexed by it).
 * metrics_perf_alloc_ix: every allocation event (the pointer's record, made
 * or overwritten). metrics_perf_free_ix: a free of a pointer with a record,
 * after which the caller drops it; metrics_perf_free_none: of a pointer with
 * none. The figures are those of the functions above. */
int metrics_perf_alloc_ix(struct metrics *m, const struct trace_event *ev, uint32_t site,
			  uint32_t ix);
void metrics_perf_free_ix(struct metrics *m, const struct trace_event *ev, uint32_t ix,
			  uint32_t site, uint32_t alloc_cpu);
void metrics_perf_free_none(struct metrics *m);

/* One call site as perf keeps it. */
struct metrics_perf_caller {
	uint64_t bytes_req, bytes_alloc;
	uint64_t hit, pingpong; /* 64-bit: a long trace passes 2^32 events of one site */
};

/* perf's totals, its rows by call site and metrics_perf_alloc_ix's
 * bytes_alloc by index. Public only so that the engine's record of every
 * event is inline (metrics_perf_alloc_ix_in and metrics_perf_free_ix_in
 * on metrics_perf_state(m)); nothing else reads or writes its fields. */
struct metrics_perf_acc {
	struct metrics_perf_caller *callers; /* by call-site id */
	uint32_t callers_cap;
	uint32_t ix_cap;
	/* bytes_alloc of the last allocation by the caller's index
	 * (UINT32_MAX: 4 GiB or more, kept whole by metrics) */
	uint32_t *ix_alloc;
	/* the allocation totals are the callers' sums (metrics_perf_totals):
	 * a saturating sum of saturated sums is the saturated total */
	uint64_t frees, bytes_freed, cross_node, pingpong;
};

/* The perf state of m (valid until metrics_destroy). */
struct metrics_perf_acc *metrics_perf_state(struct metrics *m);

/* The CPU -> NUMA node map: the models have one node, so every CPU is on
 * node 0 (docs/metrics.md). */
static inline int32_t metrics_cpu_node(uint32_t cpu)
{
	(void)cpu;
	return 0;
}

/* An allocation event in perf's totals and its call site's row c. */
static inline void metrics_perf_count_alloc(struct metrics_perf_acc *a,
					    struct metrics_perf_caller *c,
					    const struct trace_event *ev)
{
	c->hit++;
	c->bytes_req = sat_add(c->bytes_req, ev->bytes_req);
	c->bytes_alloc = sat_add(c->bytes_alloc, ev->bytes_alloc);
	if (ev->node != -1 && ev->node != metrics_cpu_node(ev->cpu))
		a->cross_node++;
}

/* A free of a record's pointer: its last allocation's bytes freed, a
 * ping-pong of call site site when the CPUs differ. */
static inline bool metrics_perf_count_free(struct metrics_perf_acc *a, const struct trace_event *ev,
					   uint64_t last, uint32_t site, int32_t alloc_cpu)
{
	a->frees++;
	a->bytes_freed = sat_add(a->bytes_freed, last);
	if ((int32_t)ev->cpu == alloc_cpu)
		return false;
	a->callers[site].pingpong++; /* exists: the allocation made it */
	a->pingpong++;
	return true;
}

/* metrics_perf_alloc_ix and metrics_perf_free_ix of m (a: its
 * metrics_perf_state) inline, when no table grows and bytes_alloc fits 32
 * bits. */
static inline int metrics_perf_alloc_ix_in(struct metrics_perf_acc *a, struct metrics *m,
					   const struct trace_event *ev, uint32_t site, uint32_t ix)
{
	if (__builtin_expect(
		    site >= a->callers_cap || ix >= a->ix_cap || ev->bytes_alloc >= UINT32_MAX, 0))
		return metrics_perf_alloc_ix(m, ev, site, ix);
	a->ix_alloc[ix] = (uint32_t)ev->bytes_alloc;
	metrics_perf_count_alloc(a, &a->callers[site], ev);
	return 0;
}

static inline void metrics_perf_free_ix_in(struct metrics_perf_acc *a, struct metrics *m,
					   const struct trace_event *ev, uint32_t ix, uint32_t site,
					   uint32_t alloc_cpu)
{
	uint32_t last = a->ix_alloc[ix];
	if (__builtin_expect(last == UINT32_MAX, 0))
		metrics_perf_free_ix(m, ev, ix, site, alloc_cpu);
	else
		(void)metrics_perf_count_free(a, ev, last, site, (int32_t)alloc_cpu);
}

/* perf's totals. */
struct metrics_perf_totals {
	uint64_t allocs, frees; /* allocation events; frees of a known pointer */
	uint64_t bytes_req, bytes_alloc, bytes_freed;
	uint64_t cross_node; /* allocations asking for a node != the CPU's (all CPUs: node 0) */
	uint64_t pingpong;   /* frees on another CPU than the pointer's last allocation */
	/* frees of a pointer with no record: never allocated in the trace, or
	 * (bounded record, !exact) already freed, which perf would count as a
	 * free of its last bytes_alloc and a ping-pong (docs/metrics.md) */
	uint64_t unmatched;
	bool exact;	 /* every pointer's record kept (--alloc): perf's figures exactly */
	double frag_pct; /* 100 - 100 * bytes_req / bytes_alloc (0 if nothing allocated) */
};
void metrics_perf_totals(const struct metrics *m, struct metrics_perf_totals *out);

/* perf kmem stat sort keys (--caller / --alloc -s KEY,...). */
enum metrics_sort_key {
	METRICS_SORT_PTR = 0,
	METRICS_SORT_CALLSITE,
	METRICS_SORT_BYTES,
	METRICS_SORT_HIT,
	METRICS_SORT_PINGPONG,
	METRICS_SORT_FRAG,
	METRICS_SORT_NR,
};
#define METRICS_SORT_MAX 8
/* Parse "frag,hit,bytes". OUT: keys, *n. Errors: SLABSIM_EUSAGE naming the
 * bad key. */
int metrics_parse_sort(const char *s, enum metrics_sort_key *keys, int *n, struct err *e);

/* One row of perf kmem stat's --caller (per call site with hits) or
 * --alloc (per pointer) table; site is borrowed from the engine. */
struct metrics_perf_row {
	uint64_t ptr; /* 0 in the --caller table */
	const char *site;
	uint64_t bytes_req, bytes_alloc;
	uint64_t hit, pingpong;
};
/* The rows of the --caller (is_caller) or --alloc table, sorted as perf
 * sorts them by keys (nkeys 0 = perf's default frag,hit,bytes). OUT: *rows
 * (caller frees; NULL and *n 0 for --alloc without the pointer table),
 * *n. Returns 0 or SLABSIM_ENOMEM. Printed by sim/cli/views.c. */
int metrics_perf_rows(const struct metrics *m, bool is_caller, const enum metrics_sort_key *keys,
		      int nkeys, struct metrics_perf_row **rows, uint32_t *n);
/* Whether the per-pointer table of --alloc is kept (metrics_opts.record_ptrs). */
bool metrics_has_ptr_table(const struct metrics *m);
/* perf's internal fragmentation: 100 - 100 * req / alloc (0 if alloc is 0). */
double metrics_frag_pct(uint64_t bytes_req, uint64_t bytes_alloc);

/* ---- tools/mm/slabinfo and /proc/slabinfo ---- */

/* One cache as slabinfo reads it from sysfs. */
struct metrics_slabinfo {
	uint64_t slabs, partial;    /* all slabs; node-partial slabs */
	uint64_t objects;	    /* sysfs objects: total - free objects on node lists */
	uint64_t objects_partial;   /* in-use objects of node-partial slabs */
	uint64_t total_objects;	    /* slabs * objs_per_slab */
	uint64_t space, used, loss; /* slabs*B; objects*object_size; space - used */
	uint32_t ef, fr;	    /* %Ef = 100*used/space (100 if no slabs); %Fr */
};
void metrics_slabinfo_cache(const struct policy_cache_info *ci, struct metrics_slabinfo *out);

struct metrics_slabinfo_totals {
	uint64_t caches, aliases, alias_targets, active; /* active: slabs and objects > 0 */
	uint64_t space, used, loss, objects, partobj, slabs, partial;
	uint64_t mratio, oratio; /* 100*loss/used, 100*partobj/objects (integer, as slabinfo) */
};
void metrics_slabinfo_totals(const struct policy *p, struct metrics_slabinfo_totals *out);
/* The walk over the root caches slabinfo lists (an allocator with
 * /proc/slabinfo): from *id on, the next one into *id and *ci; false past
 * the last. for (id = 0; metrics_next_root(p, &id, &ci); id++). */
bool metrics_next_root(const struct policy *p, uint32_t *id, struct policy_cache_info *ci);
/* Whether cache id (ci, its info) is one slabinfo lists: a root, of an
 * allocator with /proc/slabinfo. */
bool metrics_slab_root(const struct policy *p, const struct policy_cache_info *ci, uint32_t id);
/* Add one such cache's figures to slabinfo -T's sums (which count caches
 * with slabs and objects only). */
void metrics_slabinfo_total_add(struct metrics_slabinfo_totals *out,
				const struct metrics_slabinfo *si);

/* ---- Johnstone & Wilson ---- */

/* After every change of state: heap = slab + large kmalloc bytes, live =
 * live requested bytes, at virtual time t_ns. */
void metrics_observe(struct metrics *m, uint64_t t_ns, uint64_t heap, uint64_t live);

/* What metrics_observe accumulates. Public only so that the engine's
 * observation after every event is inline (metrics_jw_observe on
 * metrics_jw_state(m)); nothing else reads or writes its fields. */
struct metrics_jw_acc {
	/* no two fields stored together from the same values are adjacent:
	 * GCC paired such stores in vectors, built at every observation */
	uint64_t last_t;
	double weighted; /* Σ dt * H/L over intervals with L > 0 */
	uint64_t last_heap;
	uint64_t weight; /* Σ dt of those intervals, ns */
	uint64_t last_live;
	uint64_t heap_peak, live_peak, heap_peak_t, live_peak_t;
	uint64_t live_at_heap_peak, heap_at_live_peak;
};

/* The accumulator of m (valid until metrics_destroy). */
struct metrics_jw_acc *metrics_jw_state(struct metrics *m);

static inline void metrics_jw_observe(struct metrics_jw_acc *a, uint64_t t, uint64_t heap,
				      uint64_t live)
{
	/* the accumulator starts zeroed: before the first observation
	 * last_live is 0 (no interval) and last_t 0 (any t moves it) */
	if (t > a->last_t && a->last_live) {
		uint64_t dt = t - a->last_t;
		a->weighted += (double)dt * (double)a->last_heap / (double)a->last_live;
		a->weight += dt;
	}
	if (t >= a->last_t)
		a->last_t = t;
	a->last_heap = heap;
	a->last_live = live;
	if (heap > a->heap_peak) {
		a->heap_peak = heap;
		a->heap_peak_t = t;
		a->live_at_heap_peak = live;
	}
	if (live > a->live_peak) {
		a->live_peak = live;
		a->live_peak_t = t;
		a->heap_at_live_peak = heap;
	}
}

struct metrics_jw {
	uint64_t heap_peak, heap_peak_t_ns, live_at_heap_peak;
	uint64_t live_peak, live_peak_t_ns, heap_at_live_peak;
	/* H/L ratios (1.25 = 25 % fragmentation); negative when undefined */
	double f1, f2, f3, f4;
};
void metrics_jw(const struct metrics *m, struct metrics_jw *out);

/* ---- page level ---- */

struct metrics_pages {
	bool have; /* false: the model has no page allocator (exact) */
	uint64_t mem_mib, zone_pages, free_pages;
	bool over; /* the model grew past the zone: untouched memory is 0 */
	uint64_t held_blocks[POLICY_MAX_ORDER], free_blocks[POLICY_MAX_ORDER];
	uint32_t unusable[POLICY_MAX_ORDER]; /* permille, 0..1000 */
};
void metrics_pages(const struct metrics *m, const struct policy *p, struct metrics_pages *out);

/* Every end-of-run figure at once: what the summary's tables and JSON and
 * the database's run row report, taken together so they agree. */
struct metrics_figures {
	struct metrics_perf_totals perf;
	struct metrics_slabinfo_totals si;
	struct metrics_jw jw;
	struct metrics_pages pages;
};
void metrics_figures(const struct metrics *m, const struct policy *p, struct metrics_figures *out);
/* mm/vmstat.c unusable_free_index: 1000 * (free pages - free pages in
 * blocks of order >= order) / free pages; 1000 when nothing is free. */
uint32_t metrics_unusable_index(const uint64_t free_blocks[POLICY_MAX_ORDER], uint32_t order);

/* The policy's free blocks, if it keeps its free space so (SLOB: free units,
 * not free slots). OUT: *out, and its name in capitals ("SLOB") in upper. */
bool metrics_free_blocks(const struct policy *p, struct policy_free_blocks *out, char upper[16]);

/* ---- records ---- */

/* Extra figures for the outputs that the engine passes in. */
struct metrics_extra {
	uint64_t bytes_alloc_model; /* Σ bytes_alloc as the model gave them */
};

/* A sample's rows to k after its sample_slabinfo rows, which the engine's
 * walk over the caches hands on (st: their sums, metrics_slabinfo_total_add
 * of every root): sample_metrics, then sample_order for every page order. */
int metrics_sample_rest(const struct metrics *m, const struct policy *p, const struct sink *k,
			uint64_t seq, uint64_t heap, const struct metrics_slabinfo_totals *st,
			struct err *e);
/* The run's rows to k (run_metrics, perf_caller, perf_ptr). */
int metrics_record(const struct metrics *m, const struct policy *p, const struct sink *k,
		   const struct metrics_extra *x, struct err *e);

#endif
