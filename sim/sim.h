/* sim.h - the replay engine: drives a policy with trace events, keeps the
 * clock, the live-object table and the accounting, and takes samples.
 *
 * One struct sim owns one policy instance and everything measured about it.
 * Memory follows the live set (live pointers, caches, call sites), never the
 * trace length; only --alloc (metrics_opts.record_ptrs) keeps perf kmem
 * stat's record of every distinct pointer (docs/metrics.md), and the pointers
 * freed and not allocated since are kept (an entry of the live-pointer
 * table each, bounded by the addresses the kernel's slabs hold) to
 * recognise an allocation the trace did not show. Trace anomalies are counted, never fatal.
 */
#ifndef SLABSIM_SIM_H
#define SLABSIM_SIM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "metrics.h"
#include "policy.h"
#include "source.h"

struct trace_reader;
struct trace_event;
struct sink;
struct sink_totals;
struct strtab;

/* Anomalies of real traces (counted by kind, reported, never fatal). */
enum sim_anomaly {
	SIM_AN_FREE_UNKNOWN = 0, /* free of a pointer never seen allocated */
	SIM_AN_FREE_NULL,	 /* kfree(NULL) */
	SIM_AN_FREE_ZERO_SIZE,	 /* kfree(ZERO_SIZE_PTR) (raw pointers only) */
	SIM_AN_ALLOC_LIVE,	 /* allocation at a still-live address: a missed free */
	SIM_AN_ALLOC_NULL,	 /* allocation event with ptr 0 (failed allocation) */
	SIM_AN_ALLOC_ZERO,	 /* allocation of 0 bytes */
	SIM_AN_ALLOC_TOO_BIG,	 /* kmalloc above 4 MiB */
	SIM_AN_ALLOC_LT_REQ,	 /* bytes_alloc < bytes_req in the trace */
	SIM_AN_TIME_BACKWARDS,	 /* timestamp older than the previous event */
	SIM_AN_CPU_FOLDED,	 /* event CPU >= --nr-cpus, folded modulo nr_cpus */
	SIM_AN_CACHE_GUESSED, /* cache geometry not inferable: object_size taken as bytes_alloc */
	SIM_AN_FREE_OTHER_CACHE, /* kmem_cache_free name= differs from the allocating cache */
	SIM_AN_NR,
};

/* Stable names of the anomaly kinds ("free_unknown_ptr", ...). */
extern const char *const sim_anomaly_names[SIM_AN_NR];

struct sim;

/* How far a pass over the input is, for a progress bar. */
struct sim_progress {
	const char *what;     /* "names", "replay" */
	uint64_t events;      /* events so far (0: a parallel pass counting bytes) */
	uint64_t done, total; /* input bytes read and the input's size (0: not known) */
	unsigned threads;     /* > 0: a parallel name pass on that many threads */
	double elapsed;	      /* seconds since the pass began */
	bool final;	      /* the pass is over: the bar's last drawing */
};
typedef void (*sim_progress_fn)(void *ctx, const struct sim_progress *p);
/* Report p to sim_opts.on_progress when the bar is on (for sim/learn.c). */
void sim_progress_report(const struct sim *s, const struct sim_progress *p);

/* Called at every marker event, after its labelled sample: validation
 * compares the model with a snapshot there, --phase-summary closes a phase. */
typedef int (*sim_marker_fn)(void *ctx, struct sim *s, const struct trace_event *ev, struct err *e);

/* Called after an allocation event whose call site's function is
 * sim_opts.watch_sites[which] (the text before '+'), with the model as the
 * event left it. */
typedef int (*sim_watch_fn)(void *ctx, struct sim *s, const struct trace_event *ev, uint32_t which,
			    struct err *e);

struct sim_opts {
	const struct policy_ops *ops;
	struct policy_cfg cfg;
	uint64_t sample_every_ns;     /* 0 = not by time */
	uint64_t sample_every_events; /* 0 = not by count */
	bool sample_caches;	      /* also write per-cache samples */
	bool check;		      /* run the policy's invariant walk after every event */
	bool progress;		      /* report progress to on_progress */
	/* Draws the progress bar (the engine prints nothing): called with
	 * progress_ctx every 65536 events of a pass and at its end; NULL =
	 * no bar. The command line's is progress_stderr (sim/cli/progress.h). */
	sim_progress_fn on_progress;
	void *progress_ctx;
	struct metrics_opts metrics; /* docs/metrics.md figures */
	sim_marker_fn on_marker;     /* NULL = none */
	void *marker_ctx;
	/* call-site functions to watch (NULL-terminated, at most 254, borrowed
	 * for the sim's lifetime; NULL = none) and what to call, with
	 * marker_ctx, at each allocation they make */
	const char *const *watch_sites;
	sim_watch_fn on_watch;
	/* Seed of the generator that picks which start-state object a free of
	 * an unknown pointer takes (sim_prepopulate): GSL's mt19937, whose
	 * seed 0 is its default, 4357. Record it with the run. */
	uint64_t seed;
	/* Set from a signal handler by the caller (`live`): when it reads
	 * nonzero, building the start state (sim_prepopulate, sim_start_slab)
	 * stops with SLABSIM_ESTOP at its next call. NULL = never. */
	const volatile sig_atomic_t *stop;
	/* Where cfg.kernel and cfg.nr_cpus came from ("--kernel", "the
	 * trace's accounted= fields", ...), printed with the summary; NULL =
	 * not said. */
	const char *kernel_from, *nr_cpus_from;
};

/* Say where cfg.kernel and cfg.nr_cpus came from (sim_opts.kernel_from),
 * once it is known; the strings are borrowed for the sim's lifetime. */
void sim_set_config_from(struct sim *s, const char *kernel_from, const char *nr_cpus_from);

/* The most CPUs the models take (policies/slub.c, slab.c: a distribution
 * kernel's NR_CPUS). */
#define SIM_MAX_CPUS 8192

/* Create the engine and its policy. Errors: SLABSIM_EUSAGE, SLABSIM_ENOMEM;
 * SLABSIM_EINPUT when cfg.nr_cpus came from the input (nr_cpus_from other
 * than "--nr-cpus") and is above SIM_MAX_CPUS: the message names the count
 * and its source, not an option the user never gave. */
int sim_create(const struct sim_opts *o, struct sim **out, struct err *e);
void sim_destroy(struct sim *s);

/* Learn cache names from a first pass over a trace: kmem_cache_alloc events
 * of 6.1 name no cache, but the matching kmem_cache_free does, so (call site,
 * object size, slot size) -> name is learned here and used by sim_replay.
 * Optional; without it names are learned as the replay goes. */
int sim_learn_names(struct sim *s, struct trace_reader *r, struct err *e);
int sim_learn_names_source(struct sim *s, const struct trace_source *src, struct err *e);
/* One name pass over srcs[0], then srcs[1]...: a trace read in parts. */
int sim_learn_names_sources(struct sim *s, const struct trace_source *const *srcs, size_t nsrc,
			    struct err *e);

/* The name pass's two steps, for a pass that reads the trace elsewhere
 * (sim/learn.c, in parallel): intern a call site as the pass does (same ids
 * in the same order), and learn (site, bytes_req, bytes_alloc) -> name
 * unless that key has a name already (first name wins). Errors:
 * SLABSIM_ENOMEM. */
int sim_learn_site(struct sim *s, const char *call_site, uint32_t *site);
/* Does the name pass learn from this allocation event: an unnamed
 * kmem_cache_alloc of a real pointer with sizes the replay accepts (larger
 * ones must not alias a good key)? */
bool sim_learns_from(const struct trace_event *ev);
int sim_learn_name(struct sim *s, uint32_t site, uint64_t bytes_req, uint64_t bytes_alloc,
		   const char *name);
/* What a name pass left, for tests (printed by summary_learned_dump in
 * sim/cli): every learned key (site id, bytes_req, bytes_alloc -> name id)
 * in key order, into *out (caller frees) and *n; the ids index sim_sites
 * and sim_names. Errors: SLABSIM_ENOMEM. */
struct sim_learned_key {
	uint32_t site;
	uint64_t bytes_req, bytes_alloc;
	uint32_t name;
};
int sim_learned(const struct sim *s, struct sim_learned_key **out, size_t *n);
/* The call sites and cache names the engine interned (borrowed). */
const struct strtab *sim_sites(const struct sim *s);
const struct strtab *sim_names(const struct sim *s);

/* Replay every event of r. With k non-NULL, every sample goes to k as it is
 * taken (sink.h). Returns 0, or the first input/model/sink error (rows
 * already handed to k stay there; the caller decides what becomes of them). */
int sim_replay(struct sim *s, struct trace_reader *r, const struct sink *k, struct err *e);
/* The same for any source. Line counts are reported when src->stats is set;
 * the source must stay open until sim_report. */
int sim_replay_source(struct sim *s, const struct trace_source *src, const struct sink *k,
		      struct err *e);

/* Apply one event (what sim_replay does per event). */
int sim_event(struct sim *s, const struct trace_event *ev, struct err *e);

/* Events pushed one by one as they happen (slabsim live), instead of read
 * from a source: sim_push_begin says where samples go (k, borrowed until
 * sim_push_end; NULL = counted only) and names the input in messages;
 * then sim_event per event; sim_push_end takes the "end" sample, as
 * sim_replay_source does at its end. */
void sim_push_begin(struct sim *s, const struct sink *k, const char *name);
int sim_push_end(struct sim *s, struct err *e);

/* Pushed events with the look-ahead of page frees that a replay from a
 * spilled array has (sim/ahead.h), when the profile wants one (6.18, 7.0):
 * src->peek_at's index i is the i-th event given to sim_event since
 * sim_push_begin, and the caller holds events back so that, when one at
 * t_ns is given, src already holds one later than t_ns +
 * sim_ahead_window_ns() (else the window ends there for good). src is
 * borrowed until sim_push_end. Returns whether the profile takes one: if
 * not, events need not be held back. Call before the first event. */
bool sim_push_ahead(struct sim *s, const struct trace_source *src);
uint64_t sim_ahead_window_ns(void);

/* Hand the run's end state to k: counts, caches, sites, violations and the
 * docs/metrics.md rows, in the order sink.h gives. Returns 0 or the sink's
 * error. */
int sim_report(struct sim *s, const struct sink *k, struct err *e);

/* The run's totals (the `runs` row); wall_seconds is left 0. */
void sim_run_totals(const struct sim *s, struct sink_totals *out);

/* Events lost before they reached the trace (the ring buffer overwrote or
 * dropped them), by source: the trace's own counts (struct trace_stats,
 * TRACE_LOST_* in trace.h) and a capture's lost-events.txt. The sources
 * count the same lost events, so the total is the largest, not the sum. */
enum { SIM_LOST_CAPTURE = 1u << 8 }; /* lost-events.txt, besides TRACE_LOST_* */
struct sim_lost {
	uint32_t sources;      /* TRACE_LOST_* | SIM_LOST_CAPTURE: present, even if 0 */
	uint64_t markers;      /* Σ M of "CPU:N [LOST M EVENTS]" lines */
	uint64_t header;       /* tracefs header: entries-written - entries-in-buffer */
	uint64_t buffer_stats; /* trace.dat's stored per-CPU ring-buffer stats */
	uint64_t perf;	       /* a perf.data's LOST and LOST_SAMPLES records */
	uint64_t capture;      /* the capture's lost-events.txt */
	uint64_t total;	       /* the largest of those present */
};

/* The capture's lost-events.txt count (struct capture.lost_events), reported
 * with the trace's sources by sim_report, the summary (sim/cli) and
 * sim_lost_events. For a capture's setup hook, before the replay. */
void sim_set_capture_lost(struct sim *s, uint64_t lost_events);

/* The lost events of s's input: trace_stats (a struct trace_stats, NULL =
 * none) and the capture's count. OUT: *out. */
void sim_lost_events(const struct sim *s, const void *trace_stats, struct sim_lost *out);

/* The sources of l with their counts, as the summary names them ("tracefs
 * header 54020, lost-events.txt 37"), into buf of n bytes; "" with none. */
void sim_lost_str(const struct sim_lost *l, char *buf, size_t n);

/* How the summary's cache table is sorted and cut (replay -s, -l): by slab
 * pages (the default), waste bytes, live objects or name; at most lines
 * rows (< 0: all), the rest counted. The summary itself is printed by the
 * command line (sim/cli/summary.h) over the accessors below. */
enum sim_cache_sort { SIM_SORT_PAGES = 0, SIM_SORT_WASTE, SIM_SORT_LIVE, SIM_SORT_NAME };
struct sim_table_view {
	enum sim_cache_sort key;
	int lines;
};
/* Parse a cache-table sort key ("pages", "waste", "live", "name"). 0, or
 * SLABSIM_EUSAGE with e set. */
int sim_parse_cache_sort(const char *s, enum sim_cache_sort *out, struct err *e);

/* The model's configuration (borrowed), and where its kernel and nr_cpus
 * came from (sim_set_config_from; NULL = not said). */
const struct policy_cfg *sim_cfg(const struct sim *s);
void sim_config_from(const struct sim *s, const char **kernel_from, const char **nr_cpus_from);
/* The input line of the first anomaly of kind a (0: none, or not known). */
uint64_t sim_anomaly_first_line(const struct sim *s, enum sim_anomaly a);
/* The summary's row of cache id (its sink_cache row, as sim_report hands
 * it): false for an alias or a cache the run never touched. */
struct sink_cache;
bool sim_cache_row(const struct sim *s, uint32_t id, struct sink_cache *out);
/* Source i of l (in the order of the summary): its JSON key, whether the
 * input has it, its count; false past the last source. */
bool sim_lost_source(const struct sim_lost *l, size_t i, const char **json_key, bool *present,
		     uint64_t *count);

/* Totals now (live set and the policy's pages), for tests. */
struct sim_totals {
	uint64_t events[9]; /* by enum trace_ev_type */
	uint64_t anomalies[SIM_AN_NR];
	uint64_t live_objs, live_req_bytes;
	uint64_t slab_pages, large_pages, peak_slab_pages, peak_slab_pages_t_ns;
	uint64_t waste_rounding, waste_layout, waste_free_slots, waste_tail;
	uint64_t slab_bytes;	  /* slab_pages * PAGE_SIZE + large pages * PAGE_SIZE */
	uint64_t live_slot_bytes; /* Σ slot bytes of live objects in caches */
	/* Σ over slab caches of (total_objects - inuse_objects) * size, from the
	 * policy's own counts: must equal waste_free_slots (tests check it) */
	uint64_t free_slots_by_count;
	uint64_t align_violations;
	/* the callers a sites file lists (policy_cfg.sites): call sites seen,
	 * their kmallocs, and those not aligned as their rule asks */
	uint32_t listed_sites;
	uint64_t listed_allocs, listed_violations;
	uint64_t samples;
	/* perf kmem stat style sums over every allocation event */
	uint64_t bytes_req_total;
	uint64_t bytes_alloc_trace_total; /* bytes_alloc as the trace reports it */
	uint64_t bytes_alloc_model_total; /* bytes_alloc as the model computes it */
	/* allocations where the model's bytes_alloc differs from the trace's:
	 * 0 when the model runs the recorded kernel's configuration */
	uint64_t alloc_size_mismatch;
	/* root caches with sheaves (SLUB 6.18+) and the objects parked in
	 * their sheaves and barns (policy_cache_info.parked_objects) */
	uint32_t sheaf_caches;
	uint64_t parked_objs;
	/* kmem:mm_page_free events (sim/pgfree.h), those before the direct
	 * map's base was known (not used), and the direct map's base the
	 * trace showed (page_base_known) */
	uint64_t page_frees, page_frees_before_base;
	bool page_base_known;
	/* objects of caches placed by address whose frees the trace does not
	 * show (maple_node under the mm model), put outside the model slab of
	 * their kernel slab (that slab had no free object), and those that
	 * traded places with one found outside before (place_swap); start
	 * objects moved to another start slab, or dropped as not live (no
	 * start slab had room: policy_ops.start_moves); parked objects moved
	 * into a slab the trace showed */
	uint64_t placed_outside, placed_traded, placed_start_moved, placed_parked_rehomed;
	uint64_t placed_start_dropped;
	uint64_t page_base;
};
void sim_totals(const struct sim *s, struct sim_totals *out);

/* Create a cache the workload defines (kmem_cache_create), through the
 * policy's create operation so its merging rules apply, before any event.
 * Allocations naming spec->name go to it; a trace's unnamed
 * kmem_cache_alloc whose (bytes_req, bytes_alloc) matches it and whose name
 * was not learned goes to the first such cache. OUT: *bytes_req and
 * *bytes_alloc, what the kernel would trace for it (the root's object size
 * and slot size). Errors: SLABSIM_EUSAGE (impossible geometry, name already
 * defined), SLABSIM_ENOMEM. */
int sim_define_cache(struct sim *s, const struct policy_cache_spec *spec, uint64_t *bytes_req,
		     uint64_t *bytes_alloc, struct err *e);

/* bytes_alloc the model traces for a kmalloc of size with TRACE_GFP_* bits
 * gfp: the policy's kmalloc_bytes for the kmalloc type gfp selects. */
uint64_t sim_kmalloc_bytes(struct sim *s, uint64_t size, uint32_t gfp);
/* ---- starting from a recorded state (validation of captures) ---- */

/* The policy cache id of the cache named name: a kmalloc cache, one defined
 * with sim_define_cache, or one the trace named so far. */
bool sim_find_cache(const struct sim *s, const char *name, uint32_t *id);

/* Create the cache a trace will name spec->name (before the trace, from the
 * recorded kernel's /sys/kernel/slab), so that its frees and the learned
 * names of its allocations find it. An existing one is returned as is
 * (unlike sim_define_cache, which refuses a name defined twice). */
int sim_ensure_cache(struct sim *s, const struct policy_cache_spec *spec, uint32_t *id,
		     struct err *e);

/* Name the cache of kmem_cache_alloc events of (object_size, slot_size)
 * whose name the trace does not tell (6.1 allocations name no cache, and
 * the name pass learns only from objects freed in the trace): when the
 * recorded kernel had exactly one cache of that geometry, it is that one. */
int sim_name_geometry(struct sim *s, uint32_t object_size, uint32_t slot_size, const char *name,
		      struct err *e);

/* A root cache of the recorded kernel whose (object_size, slot_size) other
 * roots share, so that an unnamed kmem_cache_alloc of that geometry (6.1
 * allocations name no cache; the name pass learns only from objects freed
 * in the trace) can be named by elimination among them: account is its
 * SLAB_ACCOUNT flag (1, 0, -1 not known: then what its named allocations
 * show is used), empty that it took no objects in the recorded states (no
 * slab, or the same slabs and active objects at start and end). Rules
 * and order: name_by_elimination in replay.c; counts: sim_named_counts.
 * Errors: SLABSIM_ENOMEM. */
int sim_name_candidate(struct sim *s, uint32_t object_size, uint32_t slot_size, const char *name,
		       int account, bool empty, struct err *e);

/* How the replay named its kmem_cache_alloc events that named no cache. */
enum sim_named {
	SIM_NAMED_OTHER = 0, /* a cache the workload defined, or a named event */
	SIM_NAMED_LEARNED,   /* the name pass: a free of the same pointer named it */
	SIM_NAMED_GEOMETRY,  /* the one root cache of its geometry */
	SIM_NAMED_ACCOUNTED, /* elimination: accounted= against SLAB_ACCOUNT */
	SIM_NAMED_SLABS,     /* elimination: the one candidate not idle (sim_name_candidate) */
	SIM_NAMED_ADDRESS,   /* elimination: the candidate owning the real slab */
	SIM_NAMED_UNNAMED,   /* none: left in an ":unnamed-OBJ-SLOT" cache */
	SIM_NAMED_NR,
};
/* Allocations named by each rule, so far. OUT: out[SIM_NAMED_NR]. */
void sim_named_counts(const struct sim *s, uint64_t *out);

/* Start cache id from a recorded state (a start /proc/slabinfo row, *st;
 * policy_ops.prepopulate). OUT: *nr_live, how many of the active objects
 * the policy made live (the others it holds free, as SLAB's arrays). A
 * later free of a pointer the trace never allocated that names the cache
 * takes one of the live ones, chosen at random (GSL, seeded by
 * sim_opts.seed), since the snapshot gives counts, not addresses.
 * SLABSIM_EUSAGE when the policy cannot start from a state. */
int sim_prepopulate(struct sim *s, uint32_t id, const struct policy_start *st, uint64_t *nr_live,
		    struct err *e);

/* Start cache id with one slab held as ss says (policy_ops.start_slab):
 * ss->inuse live start-state objects, the rest of its slots free, on a
 * CPU, a CPU's partial stack, the node partial list or no list. A free of
 * a raw pointer (no_hash_pointers) the trace never allocated takes a
 * start object by the pointer's real slab: the first such free in a real
 * slab binds it to the start slab of the cache with the most start objects
 * left and no real slab yet, later ones take from that slab (same slot
 * index first); other frees pick at random as after sim_prepopulate.
 * SLABSIM_EUSAGE when the policy cannot, or refuses ss. */
int sim_start_slab(struct sim *s, uint32_t id, const struct policy_start_slab *ss, struct err *e);

/* sim_start_slab for a slab whose real base the trace showed (real, a raw
 * slab address): it is bound to that real slab at once, so the trace's
 * frees of start objects there take from it and from no other. */
int sim_start_slab_at(struct sim *s, uint32_t id, const struct policy_start_slab *ss, uint64_t real,
		      struct err *e);

/* One cache now, by policy cache id. */
struct sim_cache_state {
	const char *name;
	bool root; /* false for an alias: its figures are its root's */
	bool kmalloc;
	uint32_t object_size, slot_size, objs_per_slab, pages_per_slab;
	uint64_t slabs, pages, total_objects;
	uint64_t active_objs; /* as its /proc/slabinfo counts them (0 without one) */
	uint64_t live_objs, live_req_bytes;
	uint64_t waste_bytes;	 /* pages * PAGE_SIZE - live requested bytes */
	uint64_t allocs, frees;	 /* traced */
	uint64_t untraced_frees; /* frees of objects with no traced or recorded allocation */
	uint64_t pre_objs;	 /* objects of the start state still live */
	uint64_t pre_freed;	 /* objects of the start state freed by the trace */
	uint64_t pre_by_slab;	 /* of those, taken from the start slab bound to their
				    real slab (sim_start_slab) */
	/* of untraced_frees (each an allocation the trace did not show,
	 * inferred: replay.c, "allocations the trace does not show"), the
	 * frees of a pointer freed before with no allocation between; the
	 * rest are frees once the start state was exhausted */
	uint64_t untraced_refreed;
	/* frees the trace did not show, inferred (replay.c, "frees the trace
	 * does not show"): at an allocation of a pointer still live, and at
	 * the teardown of an mm (6.18+ profiles: maple_node, mmfree.h), and
	 * beyond the tree size a fork copied (kfree_rcu of replaced nodes),
	 * and in a page the page allocator took back (sim/pgfree.h) */
	uint64_t freed_at_reuse, freed_at_teardown, freed_at_dup, freed_at_page_free;
	/* ... and at an allocation in a kernel slab the model holds full
	 * (replay.c infer_full_slab) */
	uint64_t freed_at_full_slab;
	/* ... and beyond the bound of an mm's tree when it shrank (mmfree.h
	 * mmf_bound: kfree_rcu of replaced nodes) */
	uint64_t freed_at_bound;
	/* start objects found parked in sheaves at the start: an allocation
	 * in a kernel slab the model had no slab for (replay.c start_unseen) */
	uint64_t start_parked;
};
uint32_t sim_nr_caches(const struct sim *s);
void sim_cache_state(const struct sim *s, uint32_t id, struct sim_cache_state *out);

/* Frees of unknown pointers that named no cache (6.1 kfree): they cannot be
 * matched to a start state or a cache. */
uint64_t sim_unattributed_frees(const struct sim *s);

/* The policy instance (borrowed; valid until sim_destroy). */
struct policy *sim_policy(const struct sim *s);

/* The docs/metrics.md figures (borrowed; valid until sim_destroy). */
const struct metrics *sim_metrics(const struct sim *s);

#endif
