/* replay.c - the replay engine behind sim.h.
 *
 * Each trace event becomes a policy call. The live table maps the trace's
 * pointer (hashed or raw) to the policy's object, so allocations pair with
 * frees whatever the policy's own addresses are. Accounting is kept per root
 * cache and per call site; the waste kinds are derived from counts (live
 * objects, live requested bytes) and the policy's slab figures, so that
 *   slab bytes = live requested + rounding + layout + free slots + tail
 * holds exactly at every sample (tests assert it).
 */
#include "sim.h"
#include "mmfree.h"
#include "ahead.h"
#include "pgfree.h"
#include "json.h"
#include "evq.h"
#include "evarr.h"
#include "bigmem.h"
#include "grow.h"
#include "layout.h"
#include "metrics.h"
#include "sink.h"
#include "strtab.h"
#include "prefetch.h"
#include "sat.h"
#include "sites.h"
#include "buckets.h"
#include "capture.h"
_Static_assert(SINK_NEED_NATURAL == POLICY_NEED_NATURAL, "natural");
#include "trace.h"
#include "ixmap.h"
#include "u64map.h"

#include <assert.h>
#include <gsl/gsl_rng.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const sim_anomaly_names[SIM_AN_NR] = {
	[SIM_AN_FREE_UNKNOWN] = "free_unknown_ptr",
	[SIM_AN_FREE_NULL] = "free_null",
	[SIM_AN_FREE_ZERO_SIZE] = "free_zero_size_ptr",
	[SIM_AN_ALLOC_LIVE] = "alloc_of_live_ptr",
	[SIM_AN_ALLOC_NULL] = "alloc_returned_null",
	[SIM_AN_ALLOC_ZERO] = "alloc_zero_bytes",
	[SIM_AN_ALLOC_TOO_BIG] = "kmalloc_above_4MiB",
	[SIM_AN_ALLOC_LT_REQ] = "bytes_alloc_below_bytes_req",
	[SIM_AN_TIME_BACKWARDS] = "time_backwards",
	[SIM_AN_CPU_FOLDED] = "cpu_folded",
	[SIM_AN_CACHE_GUESSED] = "cache_geometry_guessed",
	[SIM_AN_FREE_OTHER_CACHE] = "free_names_other_cache",
};

#define ZERO_SIZE_PTR 16

/* A raw kernel address (no_hash_pointers, slub_debug, nohash-ptr): the
 * direct map and vmalloc live in the top half. Hashed pointers are 32-bit. */
static bool is_raw_ptr(uint64_t p)
{
	return p >> 47 == 0x1ffff;
}

enum { SHAPE_HINTS = 1024 };
/* slots of struct sim's name_memo (a power of two): caches named by a trace */
enum { NAME_MEMO_BITS = 6, NAME_MEMO = 1u << NAME_MEMO_BITS };

/* One record of the pool: a live object, or a trace pointer's entry of
 * the live table (in_index: sim.live_index finds it by its pointer), or
 * both: a pointer's live object is its entry. The entry of a pointer stays
 * while it has a live object, a perf record or was freed with no
 * allocation since; start-state objects and untraced allocations are live
 * objects outside the index.
 *
 * The policy_obj is kept as the address and an index into sim.shapes, the
 * policy_obj's other fields (56 bytes), which objects of one cache and
 * request size share; the root cache is the shape's (sim.shape_acct). A
 * kmalloc's "who pays" entry and growth are not kept either: the free
 * finds them again from (root, site) and (req, kmalloc type). perf kmem
 * stat's record of the pointer is the call site and CPU here (site and
 * pcpu, unless perf_div) and its bytes_alloc in metrics, under the entry's
 * index (metrics_perf_alloc_ix). 32 bytes per live object, two to a cache
 * line, and 4 per slot of the index (issue 28: bytes per live object). */
struct live {
	uint64_t ptr;	   /* in_index: the trace pointer (the index's key); a
			      live start-state object: its index in its cache's
			      pre array; a free record: the next free one */
	uint64_t addr;	   /* policy_obj.addr */
	uint32_t req : 23; /* bytes requested (<= LAYOUT_KMALLOC_MAX_SIZE) */
	uint32_t kt : 4;   /* 1 + the kmalloc type of a kmalloc counted in
			      sim.cost (account_cost), 0 for other objects */
	uint32_t in_index : 1;
	uint32_t has_obj : 1;  /* in_index: a live object is here */
	uint32_t freed : 1;    /* in_index: freed with no allocation since
				  (untraced_note_free) */
	uint32_t has_rec : 1;  /* in_index: perf's record of the pointer */
	uint32_t perf_div : 1; /* has_rec: its call site and CPU are in
				  sim.perf_div, not site and pcpu */
	uint32_t shape;	       /* the rest of the policy_obj: sim.shapes[shape] */
	uint32_t site;	       /* call-site id (with no object: perf's) */
	uint32_t cpu : 16;     /* allocating CPU (after folding) */
	uint32_t pcpu : 16;    /* has_rec: perf's (the event's) CPU */
};

_Static_assert(sizeof(struct live) == 32, "struct live: 32 bytes per live object");
_Static_assert(SIM_MAX_CPUS <= 0xffff, "struct live.cpu keeps the CPU in 16 bits");
_Static_assert(LAYOUT_KMALLOC_MAX_SIZE < 1u << 23, "struct live.req keeps 23 bits");
_Static_assert(POLICY_KMALLOC_NR_TYPES < 15, "struct live.kt keeps 4 bits");

#define LIVE_CPU(l)   ((uint32_t)(l)->cpu)
#define LIVE_KT_OF(l) ((uint32_t)(l)->kt)
_Static_assert(sizeof(struct policy_obj) == 64, "set_obj compares whole policy_objs: no padding");
_Static_assert(offsetof(struct policy_obj, addr) == 0, "set_obj compares all after addr");

/* What an allocation of one key of an event array (evarr.h: the fields
 * its events share) resolved, for the key's later events: replay_evarr
 * keeps one per key. The call site and the cache of an unnamed
 * kmem_cache_alloc depend only on the key and bytes_req, and neither map
 * changes an entry once made. */
struct key_memo {
	uint32_t site;	/* event_site's + 1; 0: not yet */
	uint32_t req;	/* the bytes_req cache is for; 0: none yet */
	uint64_t cache; /* cache_by_key's value for (site, req, the key's bytes_alloc) */
};

/* A root cache of the recorded kernel that shares its geometry with
 * another (sim_name_candidate). */
struct name_cand {
	uint64_t geom;	/* geom_key(object_size, slot_size) */
	uint32_t nid;	/* name id */
	int8_t account; /* SLAB_ACCOUNT: 1 yes, 0 no, -1 not known */
	bool empty;	/* took no objects in the recorded states */
};

/* What allocations of a cache showed of its SLAB_ACCOUNT flag: accounted=
 * false (no flag), accounted=true with a gfp_flags= without __GFP_ACCOUNT
 * (the flag). */
enum { ACC_NO = 1, ACC_YES = 2 };

/* A slab of the start state made by sim_start_slab: the start-state
 * objects it still holds, and whether a slab of the traced kernel was
 * bound to it (pre_bind). */
struct pre_slab {
	uint64_t base; /* the model's slab address */
	uint32_t left; /* start-state objects still live in it */
	bool bound;
};

/* Per root cache. */
struct cache_acct {
	/* each counter an allocation or a free changes next to one it
	 * leaves alone (site_acct says why) */
	uint64_t allocs, peak_pages;
	uint64_t frees, peak_pages_t_ns;
	uint64_t live_objs, peak_live_objs;
	uint64_t live_req, violations;
	/* live_slot, live_meta, live_object: Σ of the policy_obj figures */
	uint64_t live_slot, untraced_frees; /* frees naming this cache with no traced allocation */
	uint64_t live_meta, pre_by_slab;    /* start objects freed through a bound slab */
	uint64_t live_object, pre_freed;
	uint32_t *pre; /* pool indices of the start state's live objects */
	uint32_t npre;
	size_t cap_pre;
	struct pre_slab *pslabs; /* sim_start_slab's slabs of this root */
	uint32_t npslabs, cap_pslabs;
	const char *name;	/* the root's name (policy-owned), once a named free looked */
	const char *name_seen;	/* an event string found equal to name: interned by the
				   source's id space (ids_of), so compared by address */
	const void *name_space; /* the ids_of name_seen belongs to */
	int32_t red_left_pad;	/* the root's, + 1; 0 = not read yet */
	/* of untraced_frees, those proven by a pointer freed again with no
	 * allocation between (untraced_alloc) */
	uint64_t untraced_refreed;
	/* frees the trace did not show, inferred (mmfree.h): at an allocation
	 * of a pointer still live, and at the teardown of an mm */
	uint64_t freed_at_reuse, freed_at_teardown, freed_at_dup, freed_at_page_free;
	uint64_t freed_at_full_slab, freed_at_bound;
	uint64_t start_parked; /* start objects found parked (start_unseen) */
	uint8_t mmf_kind;      /* 1 + enum mmf_kind of the root; 0: not looked yet */
};

struct site_acct {
	/* live_objs, live_req and frees apart (a free changes the three): GCC
	 * paired adjacent ones in vectors, dearer than the scalar updates */
	uint64_t live_objs, violations, live_req, pingpong, frees;
	uint64_t allocs, bytes_req, bytes_alloc, bytes_alloc_trace;
	uint32_t need; /* the sites file's rule for this site (sites.h), when need_known */
	bool need_known;
	uint8_t watch; /* sim_opts.watch_sites index + 1, 0 = not watched */
	bool watch_known;
	bool route_known;
	uint32_t route_class; /* policy_route_site(), when route_known */
};

/* What the alignment policy costs, by (root cache, call site), over the
 * kmallocs: bytes_alloc against a kmalloc of the same size under align
 * none (sim.none), the part of it that is the left red zone's growth, the
 * alignment fragments SLOB left, and the listed callers' misalignments. */
struct cost_acct {
	uint32_t acct, site; /* root cache id (UINT32_MAX: page allocator), call site */
	uint64_t allocs, violations;
	uint64_t bytes_alloc, bytes_alloc_none;
	uint64_t redzone_shift, fragments;
	int64_t live_growth;
};

/* The per-cache rows a sample last handed to the sink for one root cache
 * (zeros before the first, as the recorder's change logs start): a row
 * equal to its cache's last one is not handed on again (take_sample). */
struct sample_last {
	const char *name;     /* the cache's name then (NULL: none yet) */
	uint64_t c[4];	      /* sink_sample_cache: slabs, pages, live_objs, live_req_bytes */
	uint64_t si[6];	      /* sink_sample_slabinfo: slabs, partial, objects,
				 objects_partial, space, used */
	bool send_c, send_si; /* changed at the sample being taken */
};

/* What a root cache added to the last sample's sums, and the counters it
 * was worked out from (policy_ops.cache_counts, the engine's sums over its
 * live objects): while they stay the same, so does everything else the
 * sample takes from the cache, which is then not worked out again. */
struct sample_memo {
	struct sample_key {
		struct policy_cache_counts cnt;
		uint64_t live_objs, live_req, live_slot, live_meta, live_object;
	} key;
	struct waste_sums {
		uint64_t rounding, layout, tail, live_slot, free_slots, parked;
	} sum;
	struct metrics_slabinfo si; /* for slabinfo -T's sums (slab_root) */
	bool valid, alias, slab_root, sheaf;
};

struct sim {
	struct sim_opts o;
	struct policy *p;
	const struct policy_pages *pages; /* the policy's page counts, or NULL */
	/* live set */
	struct ixmap live_index; /* trace ptr -> its pool record (in_index) */
	struct live *pool;
	/* perf's call site and CPU of records whose entry cannot keep them
	 * (perf_div): pool index -> site << 32 | CPU */
	struct u64map perf_div;
	bool perf_own; /* --alloc: perf's records in metrics' own table */
	uint32_t pool_len, pool_cap, pool_free;
	uint32_t alloc_entry; /* the entry on_alloc took last: mmf_on_alloc's hint */
	/* the distinct policy_obj of live objects, address 0 (struct live) */
	struct policy_obj *shapes;
	size_t nshapes, shapes_cap;
	uint32_t *shape_acct; /* by shape: its root cache id, UINT32_MAX: none */
	size_t shape_acct_cap;
	struct u64map shape_index;	  /* shape_hash() -> index into shapes */
	uint32_t shape_hint[SHAPE_HINTS]; /* by cache and size: the shape last used + 1 */
	/* caches as the trace names them */
	struct strtab names;	    /* cache names seen */
	struct u64map name_cache;   /* name id -> policy cache id */
	struct u64map learned;	    /* learn_key(site, osz, slot) -> name id + 1 */
	struct u64map cache_by_key; /* learn_key(site, osz, slot) -> policy cache id */
	struct u64map defined;	    /* learn_key(0, osz, slot) -> sim_define_cache id */
	struct u64map geom_name;    /* geom_key(osz, slot) -> name id + 1 (sim_name_geometry) */
	struct u64map trace_slab;   /* raw pointers: the trace's slab base -> root cache id + 1 */
	uint64_t trace_slab_put[4096][2]; /* by slab base's hash: a (base, value) put last */
	struct u64map pre_addr; /* start_slab objects still live: model address -> pool index */
	/* objects of caches placed by address that lie in a model slab not
	 * bound to their kernel slab (place_swap): model address -> pool index */
	struct u64map misplaced;
	uint64_t placed_outside, placed_traded, placed_start_moved; /* sim_totals */
	uint64_t placed_start_dropped;				    /* sim_totals */
	bool start_moves_on;	/* policy_ops.start_moves was told */
	bool placing;		/* profiles that place objects by address (6.18, 7.0) */
	struct u64map pslab_of; /* model slab base of a pre_slab -> (root << 32 | index) + 1 */
	struct u64map pre_bind; /* the trace's slab base -> (root << 32 | pre_slab index) + 1 */
	/* naming by elimination (sim_name_candidate) */
	struct name_cand *cands;
	size_t ncands, cap_cands;
	struct u64map name_slab; /* raw pointers: the trace's slab base -> root id + 1, from
				    named frees */
	uint8_t *account_seen;	 /* per root id: ACC_* bits its allocations showed */
	size_t account_cap;
	uint64_t named_by[SIM_NAMED_NR];
	uint32_t *root_of; /* policy cache id -> its root id + 1 (0: not known yet) */
	size_t root_cap;
	struct cache_acct *acct;
	size_t acct_cap;
	/* call sites */
	struct strtab sites;
	struct site_acct *site;
	size_t site_cap;
	/* source site_id - 1 -> our site id + 1 (0: not mapped yet), for the
	 * id_space of the source being read (trace_source.id_space) */
	const void *ids_of;
	bool strings_stable; /* its strings may be compared by address (trace_source) */
	/* kmem_cache_alloc name= (6.18) -> cache, by the string's address while
	 * strings_stable: interning the name on every named allocation cost
	 * about 700 instructions an event; forgotten with ids_of */
	struct name_memo {
		const char *name;
		uint32_t id;
	} name_memo[NAME_MEMO];
	uint32_t *site_map;
	size_t site_map_cap;
	/* the alignment policies (sim.h "who pays"): the allocator under align
	 * none as the baseline, its caches' red_left_pad + 1 by id, the costs */
	struct policy *none;
	int32_t *none_rlp;
	size_t none_rlp_cap;
	struct u64map cost_index; /* (acct + 1) << 40 | site -> index into cost */
	struct cost_acct *cost;
	size_t cost_n, cost_cap;
	uint64_t listed_allocs, listed_violations;
	uint32_t listed_sites;
	struct u64map violations;     /* (acct, site, log2 size) -> count */
	struct u64map violation_addr; /* same key -> first misaligned address */
	/* totals */
	uint64_t events[TRACE_EV_NR];
	uint64_t anomalies[SIM_AN_NR];
	uint64_t anomaly_first_line[SIM_AN_NR];
	uint64_t nevents;
	/* live_objs and live_req apart, as in site_acct */
	uint64_t live_objs, large_live_req, live_req, large_live_bytes;
	uint64_t peak_slab_pages, peak_slab_pages_t_ns;
	uint64_t violations_total;
	uint64_t alloc_size_mismatch; /* allocations whose model slot differs from the trace's */
	/* scheduled work: the policy's timers (has_timer: it has any) */
	struct evq q;
	bool has_timer;
	uint64_t timer_runs;
	/* clock and sampling */
	uint64_t now_ns, t_first_ns;
	bool started;
	/* apply_event has work before the event: not started, timers or the
	 * page frees ahead (note_pre_event keeps it) */
	bool pre_event;
	uint64_t next_sample_ns, next_sample_ev, nsamples;
	/* the policy's pages read at the end of an allocation, for the
	 * observation right after it (pages_fresh: not read since) */
	bool pages_fresh;
	uint64_t slab_after, large_after;
	/* the slab pages of the last observation, while nothing changed the
	 * policy since (seen_valid): the pages before the next allocation */
	bool seen_valid;
	uint64_t slab_seen;
	const struct sink *sink; /* where samples go during a replay, or NULL */
	/* take_sample's per-cache rows last handed to the sink, by root
	 * cache id */
	struct sample_last *slast;
	size_t slast_cap;
	/* take_sample's memo by cache id (with cache_counts), made while the
	 * policy had smemo_caches caches: another count makes it anew */
	struct sample_memo *smemo;
	size_t smemo_cap;
	uint32_t smemo_caches;
	const char *src; /* input name for messages: the trace path, or "events" */
	const struct trace_stats *line_stats; /* of the last text trace replayed, or NULL */
	struct metrics *m;		      /* the figures of docs/metrics.md (metrics.c) */
	struct metrics_jw_acc *jw;	      /* m's J&W state, observed inline per event */
	struct metrics_perf_acc *perf;	      /* m's perf state, recorded inline per event */
	gsl_rng *rng;			      /* picks start-state objects to free */
	uint64_t npre_all;		      /* Σ cache_acct.npre: start objects live */
	uint64_t unattributed_frees;
	/* a capture's lost-events.txt count, when sim_set_capture_lost gave one */
	bool has_capture_lost;
	uint64_t capture_lost;
	/* the mm teardown model (mmfree.h): on for the 6.18+ profiles, whose
	 * bulk and kfree_rcu frees of maple nodes emit no event */
	bool mmf_on;
	struct mmf mmf;
	/* per CPU (mmf_on), the task whose VMA work the last slab event but a
	 * node's was (a VMA or companion allocated or freed), else -1
	 * (mmf_vma_work) */
	int32_t *vma_work;
	/* frees proven by the page allocator (pgfree.h): on once the trace
	 * shows an mm_page_free */
	struct pgf pgf;
	bool pages_told;    /* policy_ops.pages_traced called */
	struct ahead ahead; /* the page frees ahead, while a source is replayed */
};

/* Whether apply_event runs pre_event: after any change of started,
 * has_timer or the page frees ahead. */
static void note_pre_event(struct sim *s)
{
	s->pre_event = !s->started || s->has_timer || ahead_on(&s->ahead);
}

static void anomaly(struct sim *s, enum sim_anomaly a, uint64_t line)
{
	if (!s->anomalies[a]++)
		s->anomaly_first_line[a] = line;
}

static int grow_acct(struct sim *s, uint32_t id)
{
	struct cache_acct *n = grow_to(s->acct, &s->acct_cap, id, sizeof(*s->acct), 256);
	if (!n)
		return SLABSIM_ENOMEM;
	s->acct = n;
	return 0;
}

static int intern_site(struct sim *s, const char *cs, uint32_t *id)
{
	int rc = strtab_intern(&s->sites, cs && *cs ? cs : "?", id);
	if (rc)
		return rc;
	struct site_acct *n = grow_to(s->site, &s->site_cap, *id, sizeof(*s->site), 256);
	if (!n)
		return SLABSIM_ENOMEM;
	s->site = n;
	if (!n[*id].watch_known) {
		const char *str = strtab_str(&s->sites, *id);
		size_t len = strcspn(str, "+");
		n[*id].watch_known = true;
		for (uint32_t i = 0; s->o.watch_sites && s->o.watch_sites[i] && i < 254; i++)
			if (strlen(s->o.watch_sites[i]) == len &&
			    memcmp(s->o.watch_sites[i], str, len) == 0)
				n[*id].watch = (uint8_t)(i + 1);
	}
	return 0;
}

/* The call-site id of ev: through the source's ids when it gives them (no
 * string hashing), else by interning the string. Same ids either way. */
static int event_site_slow(struct sim *s, const struct trace_event *ev, uint32_t *id);

static inline int event_site(struct sim *s, const struct trace_event *ev, uint32_t *id)
{
	uint32_t sid = ev->site_id;
	/* no test of ids_of or of sid 0 (no id): use_ids_of clears the map,
	 * and only a source with an id space fills it, never at 0
	 * (event_site_slow) */
	if (sid < s->site_map_cap && s->site_map[sid]) {
		*id = s->site_map[sid] - 1;
		return 0;
	}
	return event_site_slow(s, ev, id);
}

/* event_site for a string, or an id not mapped yet */
__attribute__((noinline)) static int event_site_slow(struct sim *s, const struct trace_event *ev,
						     uint32_t *id)
{
	uint32_t sid = ev->site_id;
	if (!sid || !s->ids_of)
		return intern_site(s, ev->call_site, id);
	int rc = intern_site(s, ev->call_site, id);
	if (rc)
		return rc;
	uint32_t *n = grow_to(s->site_map, &s->site_map_cap, sid, sizeof(*s->site_map), 256);
	if (!n)
		return SLABSIM_ENOMEM;
	s->site_map = n;
	n[sid] = *id + 1;
	return 0;
}

/* Start reading src: forget the ids of the source read before, even at the
 * same address (a prefetch freed after the name pass and the replay's new
 * one may share it while numbering call sites differently). */
static void use_ids_of(struct sim *s, const struct trace_source *src)
{
	s->ids_of = src->id_space;
	s->strings_stable = src->id_space && src->stable_strings;
	memset(s->name_memo, 0, sizeof(s->name_memo));
	if (s->site_map)
		memset(s->site_map, 0, s->site_map_cap * sizeof(*s->site_map));
}

/* ---- create/destroy ---- */

int sim_create(const struct sim_opts *o, struct sim **out, struct err *e)
{
	uint32_t ncpu = o->cfg.nr_cpus;
	if (ncpu > SIM_MAX_CPUS && o->nr_cpus_from && strcmp(o->nr_cpus_from, "--nr-cpus") != 0)
		return err_set(e, SLABSIM_EINPUT,
			       "the input's CPUs exceed what the models support: nr_cpus %" PRIu32
			       "%s from %s, at most %u; give --nr-cpus N (1 to %u) to fold the "
			       "input's CPUs modulo N",
			       ncpu, ncpu == UINT32_MAX ? " or more" : "", o->nr_cpus_from,
			       SIM_MAX_CPUS, SIM_MAX_CPUS);
	struct sim *s = calloc(1, sizeof(*s));
	if (!s)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	s->o = *o;
	evq_init(&s->q);
	ixmap_init(&s->live_index);
	u64map_init(&s->perf_div);
	s->perf_own = o->metrics.record_ptrs;
	u64map_init_sparse(&s->shape_index);
	u64map_init(&s->name_cache);
	u64map_init(&s->learned);
	mmf_init(&s->mmf);
	pgf_init(&s->pgf);
	s->mmf_on = o->cfg.kernel >= POLICY_KERNEL_6_18;
	u64map_init_sparse(&s->cache_by_key);
	u64map_init(&s->defined);
	u64map_init(&s->geom_name);
	u64map_init(&s->trace_slab);
	u64map_init_sparse(&s->pre_addr);
	u64map_init_sparse(&s->misplaced);
	ahead_init(&s->ahead);
	u64map_init(&s->pslab_of);
	u64map_init(&s->pre_bind);
	u64map_init(&s->name_slab);
	u64map_init(&s->violations);
	u64map_init(&s->violation_addr);
	u64map_init(&s->cost_index);
	strtab_init(&s->names);
	strtab_init(&s->sites);
	s->pool_free = UINT32_MAX;
	s->src = "events";
	int rc = metrics_create(&o->metrics, &s->sites, &s->m, e);
	if (rc) {
		sim_destroy(s);
		return rc;
	}
	s->jw = metrics_jw_state(s->m);
	s->perf = metrics_perf_state(s->m);
	rc = o->ops->create(&o->cfg, &s->p, e);
	if (rc) {
		sim_destroy(s);
		return rc;
	}
	if (o->ops->page_counts)
		s->pages = o->ops->page_counts(s->p);
	s->has_timer = s->p->ops->timer != NULL;
	note_pre_event(s);
	s->placing = s->o.cfg.kernel >= POLICY_KERNEL_6_18 && s->p->ops->bind_slab &&
		     s->p->ops->bound_slab;
	if (policy_align_by_site(o->cfg.align) && !o->cfg.sites) {
		sim_destroy(s);
		return err_set(e, SLABSIM_EUSAGE,
			       "align %s serves the callers of a sites file: name one "
			       "(--align-sites FILE)",
			       policy_align_name(o->cfg.align));
	}
	struct policy_cfg none = o->cfg;
	none.align = POLICY_ALIGN_NONE;
	none.sites = NULL;
	if ((rc = o->ops->create(&none, &s->none, e))) {
		sim_destroy(s);
		return rc;
	}
	if (grow_acct(s, o->ops->nr_caches(s->p)) ||
	    (s->mmf_on && !(s->vma_work = malloc((size_t)ncpu * sizeof(*s->vma_work))))) {
		sim_destroy(s);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; s->mmf_on && i < ncpu; i++)
		s->vma_work[i] = -1;
	*out = s;
	return 0;
}

void sim_destroy(struct sim *s)
{
	if (!s)
		return;
	policy_destroy(s->p);
	policy_destroy(s->none);
	mmf_fini(&s->mmf);
	free(s->vma_work);
	pgf_fini(&s->pgf);
	free(s->none_rlp);
	free(s->cost);
	u64map_fini(&s->cost_index);
	evq_fini(&s->q);
	ixmap_fini(&s->live_index);
	u64map_fini(&s->perf_div);
	u64map_fini(&s->shape_index);
	free(s->shapes);
	free(s->shape_acct);
	u64map_fini(&s->name_cache);
	u64map_fini(&s->learned);
	u64map_fini(&s->cache_by_key);
	u64map_fini(&s->defined);
	u64map_fini(&s->geom_name);
	u64map_fini(&s->trace_slab);
	u64map_fini(&s->pre_addr);
	u64map_fini(&s->misplaced);
	ahead_fini(&s->ahead);
	u64map_fini(&s->pslab_of);
	u64map_fini(&s->pre_bind);
	u64map_fini(&s->name_slab);
	free(s->cands);
	free(s->account_seen);
	free(s->root_of);
	u64map_fini(&s->violations);
	u64map_fini(&s->violation_addr);
	strtab_fini(&s->names);
	strtab_fini(&s->sites);
	bigmem_free(s->pool, (size_t)s->pool_cap * sizeof(*s->pool));
	for (size_t i = 0; s->acct && i < s->acct_cap; i++) {
		free(s->acct[i].pre);
		free(s->acct[i].pslabs);
	}
	if (s->rng)
		gsl_rng_free(s->rng);
	free(s->acct);
	free(s->site);
	free(s->site_map);
	free(s->slast);
	free(s->smemo);
	metrics_destroy(s->m);
	free(s);
}

struct policy *sim_policy(const struct sim *s)
{
	return s->p;
}

const struct metrics *sim_metrics(const struct sim *s)
{
	return s->m;
}

/* ---- metrics hooks (sim/metrics.c, docs/metrics.md) ---- */

/* Whether the pool record whose ptr is at key is in the live index: the
 * index's growth walks the pool in order (ixmap_keys.held). */
static bool live_held(const char *key)
{
	const struct live *l =
		(const struct live *)(const void *)(key - offsetof(struct live, ptr));
	return l->in_index;
}

/* The live table: one probe per event finds a pointer's entry, which
 * serves the engine's live object, the freed-pointer flag and perf's
 * record. */
static inline struct ixmap_keys live_keys(const struct sim *s)
{
	/* no arithmetic on a NULL pool (no record yet: the map is empty) */
	const char *base = s->pool ? (const char *)s->pool + offsetof(struct live, ptr) : NULL;
	return (struct ixmap_keys){base, sizeof(struct live), live_held, s->pool_len};
}

/* Hint that ptr's entry will be looked up soon: fetch its record when
 * its slot, fetched before, names one (always inline, as ixmap_prefetch:
 * GCC dropped the calls once it did not inline them). */
static inline __attribute__((always_inline)) void live_prefetch(const struct sim *s, uint64_t ptr)
{
	uint32_t ix = ixmap_home_guess(&s->live_index, ptr);
	if (ix != IXMAP_NONE)
		__builtin_prefetch(&s->pool[ix], 1, 3);
}

/* The pool index of ptr's entry, or IXMAP_NONE. */
static inline uint32_t live_find(const struct sim *s, uint64_t ptr)
{
	struct ixmap_keys k = live_keys(s);
	return ixmap_find(&s->live_index, ptr, &k, NULL);
}

/* The entry of ptr, hint when it still is (a record in the index under
 * ptr is ptr's entry, the index holding one per pointer: the check costs
 * no probe), else looked up. For a pointer looked up by the event before. */
static inline uint32_t live_find_hint(const struct sim *s, uint64_t ptr, uint32_t hint)
{
	if (hint < s->pool_len && s->pool[hint].in_index && s->pool[hint].ptr == ptr)
		return hint;
	return live_find(s, ptr);
}

/* perf kmem stat counts every allocation event, before any of the
 * engine's filters: the record of entry ix, whose call site and CPU are
 * kept in the entry when it has no live object or the object's are the
 * same, else in sim.perf_div. */
static int live_perf_alloc(struct sim *s, uint32_t ix, const struct trace_event *ev, uint32_t site)
{
	if (s->perf_own)
		return metrics_perf_alloc(s->m, ev, site);
	int rc = metrics_perf_alloc_ix_in(s->perf, s->m, ev, site, ix);
	if (rc)
		return rc;
	struct live *l = &s->pool[ix];
	if (!l->has_obj)
		l->site = site;
	bool div = l->site != site || ev->cpu > 0xffff;
	if (div && u64map_put(&s->perf_div, ix, (uint64_t)site << 32 | ev->cpu))
		return SLABSIM_ENOMEM; /* the run ends */
	if (l->perf_div && !div)
		(void)u64map_del(&s->perf_div, ix, NULL);
	l->pcpu = (uint16_t)ev->cpu;
	l->perf_div = div;
	l->has_rec = true;
	return 0;
}

/* perf sees every free: entry ix's record (IXMAP_NONE: ptr has no entry)
 * counts and goes, unless --alloc keeps it. */
static inline void live_perf_free(struct sim *s, uint32_t ix, const struct trace_event *ev)
{
	if (s->perf_own) {
		metrics_perf_free(s->m, ev);
		return;
	}
	struct live *l = ix == IXMAP_NONE ? NULL : &s->pool[ix];
	if (!l || !l->has_rec) {
		metrics_perf_free_none(s->m);
		return;
	}
	uint64_t sc = (uint64_t)l->site << 32 | l->pcpu;
	if (l->perf_div) {
		(void)u64map_del(&s->perf_div, ix, &sc);
		l->perf_div = false;
	}
	metrics_perf_free_ix_in(s->perf, s->m, ev, ix, (uint32_t)(sc >> 32), (uint32_t)sc);
	l->has_rec = false;
}

/* The policy's slab and large-kmalloc pages now, read around every event:
 * in place when the policy says where it keeps them. */
static inline void pages_now(const struct sim *s, uint64_t *slab, uint64_t *large)
{
	if (s->pages) {
		*slab = s->pages->slab;
		*large = s->pages->large;
		return;
	}
	struct policy_stats st;
	s->p->ops->stats(s->p, &st);
	*slab = st.slab_pages;
	*large = st.large_pages;
}

static inline uint64_t slab_pages_now(const struct sim *s)
{
	uint64_t slab, large;
	pages_now(s, &slab, &large);
	return slab;
}

/* Johnstone & Wilson: heap (slab + large kmalloc pages) and live requested
 * bytes after every change of state (events and timers). */
static inline __attribute__((always_inline)) void metrics_observe_now(struct sim *s)
{
	uint64_t slab, large;
	if (s->pages_fresh) {
		slab = s->slab_after;
		large = s->large_after;
		s->pages_fresh = false;
	} else {
		pages_now(s, &slab, &large);
	}
	s->slab_seen = slab;
	s->seen_valid = true;
	metrics_jw_observe(s->jw, s->now_ns, (slab + large) * POLICY_PAGE_SIZE, s->live_req);
}

/* ---- cache resolution ---- */

/* (call site, object size, slot size) packed into one key: sizes are at most
 * 4 MiB (23 bits; larger ones are refused before a cache is made) and call
 * sites number far fewer than 2^18. */
static uint64_t learn_key(uint32_t site, uint64_t osz, uint64_t slot)
{
	const uint64_t m = (1u << 23) - 1;
	return ((uint64_t)site << 46) | ((osz & m) << 23) | (slot & m);
}

static uint64_t geom_key(uint64_t osz, uint64_t slot)
{
	return ((osz & ((1u << 23) - 1)) << 23) | (slot & ((1u << 23) - 1));
}

static int root_of(struct sim *s, uint32_t id, uint32_t *root);
static uint32_t take_pre(struct sim *s, struct cache_acct *a, uint32_t j);
static enum mmf_kind mmf_kind_of_acct(struct sim *s, uint32_t acct);

/* Which root cache owns the trace's slab that raw pointer ptr lies in, if
 * its order is order: one seen in a named free or a resolved allocation. */
static bool slab_owner(const struct sim *s, uint64_t ptr, uint32_t order, uint32_t *root)
{
	uint64_t v, base = ptr & ~(((uint64_t)POLICY_PAGE_SIZE << order) - 1);
	if (u64map_get(&s->name_slab, base, &v) || u64map_get(&s->trace_slab, base, &v)) {
		*root = (uint32_t)(v - 1);
		return true;
	}
	return false;
}

/* Name an unnamed kmem_cache_alloc whose geometry several root caches of
 * the recorded kernel share (sim_name_candidate), by elimination, in this
 * order; the first rule that leaves one candidate names it:
 *   accounted  6.1 traces accounted = the cache's SLAB_ACCOUNT or the
 *              gfp's __GFP_ACCOUNT: accounted=false rules out caches with
 *              the flag, accounted=true with a gfp_flags= without
 *              __GFP_ACCOUNT those without. The flag is known from the
 *              capture (a merged root's name: ":A-"), else from what the
 *              cache's resolved allocations showed so far (all alike);
 *   slabs      caches idle in the recorded states (no slab, or the same
 *              slabinfo line at start and end: sim_name_candidate's empty);
 *   address    the one candidate that owns the real slab the raw pointer
 *              lies in (named frees and resolved allocations there).
 * OUT: *nid, *rule. *bind false: the key's later events must be looked at
 * again (the address rule decides per event). */
static bool name_by_elimination(struct sim *s, const struct trace_event *ev, uint32_t *nid,
				enum sim_named *rule, bool *bind)
{
	enum { MAXC = 16 };
	const struct name_cand *c[MAXC];
	uint32_t n = 0;
	uint64_t g = geom_key(ev->bytes_req, ev->bytes_alloc);
	for (size_t i = 0; i < s->ncands && n < MAXC; i++)
		if (s->cands[i].geom == g)
			c[n++] = &s->cands[i];
	if (n < 2)
		return false;
	*bind = false;
	bool gfp_no_account = (ev->gfp & TRACE_GFP_ACCOUNT_ONLY) != 0;
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		int account = c[i]->account;
		uint32_t id, root;
		if (account < 0 && sim_find_cache(s, strtab_str(&s->names, c[i]->nid), &id) &&
		    !root_of(s, id, &root) && root < s->account_cap &&
		    (s->account_seen[root] == ACC_NO || s->account_seen[root] == ACC_YES))
			account = s->account_seen[root] == ACC_YES;
		if ((ev->accounted == 0 && account == 1) ||
		    (ev->accounted == 1 && gfp_no_account && account == 0))
			continue;
		c[m++] = c[i];
	}
	if (m == 1) {
		*nid = c[0]->nid;
		*rule = SIM_NAMED_ACCOUNTED;
		*bind = true;
		return true;
	}
	uint32_t k = 0;
	for (uint32_t i = 0; i < m; i++)
		if (!c[i]->empty)
			c[k++] = c[i];
	if (k == 1) {
		*nid = c[0]->nid;
		*rule = SIM_NAMED_SLABS;
		*bind = true;
		return true;
	}
	if (!is_raw_ptr(ev->ptr))
		return false;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t id, root, owner;
		struct policy_cache_info ci;
		if (!sim_find_cache(s, strtab_str(&s->names, c[i]->nid), &id) ||
		    root_of(s, id, &root))
			continue;
		s->p->ops->cache_info(s->p, root, &ci);
		if (slab_owner(s, ev->ptr, ci.g.order, &owner) && owner == root) {
			*nid = c[i]->nid;
			*rule = SIM_NAMED_ADDRESS;
			return true;
		}
	}
	return false;
}

static inline struct name_memo *name_memo_of(struct sim *s, const char *name)
{
	return &s->name_memo[((uintptr_t)name * 0x9e3779b97f4a7c15ULL) >> (64 - NAME_MEMO_BITS)];
}

__attribute__((noinline)) static int cache_for_slow(struct sim *s, const struct trace_event *ev,
						    uint32_t site, uint32_t *id, struct err *e)
{
	char buf[64];
	const char *name = ev->name;
	uint64_t osz = ev->bytes_req, slot = ev->bytes_alloc;
	uint32_t nid;
	int rc;

	/* Before any lookup: learn_key keeps 23 bits of each size, so a
	 * bytes_alloc above 4 MiB would alias a small cache seen earlier and
	 * be accepted or refused depending on what came before. */
	if (osz == 0 || osz > LAYOUT_KMALLOC_MAX_SIZE || slot > LAYOUT_KMALLOC_MAX_SIZE)
		return err_set(
			e, SLABSIM_EINPUT,
			"expected kmem_cache_alloc sizes of 1..%u bytes, got bytes_req=%" PRIu64
			" bytes_alloc=%" PRIu64,
			LAYOUT_KMALLOC_MAX_SIZE, osz, slot);
	uint64_t key = learn_key(site, osz, slot);
	uint64_t rule = 0; /* SIM_NAMED_* of an unnamed event, kept with its key */
	bool bind = true;  /* keep key -> cache for the key's later events */
	if (!name) {
		uint64_t v;
		if (u64map_get(&s->cache_by_key, key, &v)) { /* the common case: seen before */
			*id = (uint32_t)v;
			s->named_by[v >> 32]++;
			return 0;
		}
		uint32_t nid2;
		enum sim_named r2;
		if (u64map_get(&s->learned, key, &v)) {
			name = strtab_str(&s->names, (uint32_t)(v - 1));
			rule = SIM_NAMED_LEARNED;
		} else if (u64map_get(&s->geom_name, geom_key(ev->bytes_req, ev->bytes_alloc),
				      &v)) {
			name = strtab_str(&s->names, (uint32_t)(v - 1));
			rule = SIM_NAMED_GEOMETRY;
		} else if (u64map_get(&s->defined, learn_key(0, ev->bytes_req, ev->bytes_alloc),
				      &v)) {
			*id = (uint32_t)v; /* a defined cache whose name no free told */
			if (u64map_put(&s->cache_by_key, key, v))
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			return 0;
		} else if (name_by_elimination(s, ev, &nid2, &r2, &bind)) {
			name = strtab_str(&s->names, nid2);
			rule = r2;
		} else {
			(void)snprintf(buf, sizeof(buf), ":unnamed-%" PRIu64 "-%" PRIu64,
				       ev->bytes_req, ev->bytes_alloc);
			name = buf;
			rule = SIM_NAMED_UNNAMED;
		}
		s->named_by[rule]++;
	}
	uint64_t tagged = rule << 32;
	if ((rc = strtab_intern(&s->names, name, &nid)))
		return err_set(e, rc, "out of memory");
	uint64_t cid;
	uint32_t c;
	if (u64map_get(&s->name_cache, nid, &cid)) {
		*id = (uint32_t)cid;
		if (ev->name && s->strings_stable)
			*name_memo_of(s, ev->name) = (struct name_memo){ev->name, *id};
		return ev->name || !bind ? 0 : u64map_put(&s->cache_by_key, key, cid | tagged);
	}
	if (sim_find_cache(s, name, &c)) {
		/* a kmem_cache_alloc naming a kmalloc cache (kmalloc-64): the
		 * policy's own, not a second cache of that name */
		if (u64map_put(&s->name_cache, nid, c) ||
		    (!ev->name && bind && u64map_put(&s->cache_by_key, key, c | tagged)))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		*id = c;
		return 0;
	}
	struct policy_cache_spec spec = {.name = name, .no_merge = true};
	if (!policy_guess_spec(&s->o.cfg, (uint32_t)osz, (uint32_t)slot, &spec)) {
		anomaly(s, SIM_AN_CACHE_GUESSED, ev->line);
		spec.object_size = (uint32_t)(slot >= osz ? slot : osz);
		spec.align = 8;
	}
	s->seen_valid = false;
	rc = s->p->ops->cache_create(s->p, &spec, &c, e);
	if (rc == SLABSIM_EUSAGE) {
		/* The trace's sizes make the cache impossible under this model
		 * (4 MiB objects plus slub_debug metadata exceed an order-10
		 * slab): bad input naming the line (exit 2), not a usage error.
		 * Found by tests/fuzz/fuzz_replay. */
		char why[SLABSIM_ERR_MSG_MAX];
		(void)snprintf(why, sizeof(why), "%s", e ? e->msg : "");
		return err_set(
			e, SLABSIM_EINPUT,
			"expected a kmem_cache_alloc the model can lay out, got bytes_req=%" PRIu64
			" bytes_alloc=%" PRIu64 " (%s)",
			osz, slot, why);
	}
	if (rc)
		return rc;
	if (u64map_put(&s->name_cache, nid, c) || grow_acct(s, s->p->ops->nr_caches(s->p)) ||
	    (!ev->name && bind && u64map_put(&s->cache_by_key, key, c | tagged)))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	*id = c;
	return 0;
}

/* The policy cache of a kmem_cache_alloc: inline when its key was seen
 * (km: the event's key_memo, NULL for none) */
static inline int cache_for(struct sim *s, const struct trace_event *ev, uint32_t site,
			    struct key_memo *km, uint32_t *id, struct err *e)
{
	uint64_t osz = ev->bytes_req, slot = ev->bytes_alloc, v;
	if (km && km->req == osz) { /* set below, sizes checked (on_alloc took bytes_req 0) */
		*id = (uint32_t)km->cache;
		s->named_by[km->cache >> 32]++;
		return 0;
	}
	bool sizes_ok = osz - 1 < LAYOUT_KMALLOC_MAX_SIZE && slot <= LAYOUT_KMALLOC_MAX_SIZE;
	if (!ev->name && sizes_ok && u64map_get(&s->cache_by_key, learn_key(site, osz, slot), &v)) {
		*id = (uint32_t)v;
		s->named_by[v >> 32]++;
		if (km) {
			km->req = (uint32_t)osz;
			km->cache = v;
		}
		return 0;
	}
	if (ev->name && sizes_ok && s->strings_stable) {
		const struct name_memo *m = name_memo_of(s, ev->name);
		if (m->name == ev->name) {
			*id = m->id;
			return 0;
		}
	}
	return cache_for_slow(s, ev, site, id, e);
}

static enum policy_kmalloc_type kmalloc_type(const struct trace_event *ev)
{
	/* 6.1 kmalloc_type(): DMA, then RECLAIMABLE, then ACCOUNT */
	if (ev->gfp & TRACE_GFP_DMA)
		return POLICY_KMALLOC_DMA;
	if (ev->gfp & TRACE_GFP_RECLAIMABLE)
		return POLICY_KMALLOC_RECLAIM;
	if ((ev->gfp & TRACE_GFP_ACCOUNT) || ev->accounted == 1)
		return POLICY_KMALLOC_CGROUP;
	return POLICY_KMALLOC_NORMAL;
}

/* ---- accounting ---- */

static uint32_t ilog2_u64(uint64_t x)
{
	uint32_t r = 0;
	while (x >>= 1)
		r++;
	return r;
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* A pool record, cleared: a live object outside the index until the
 * caller says otherwise. */
static int pool_get(struct sim *s, uint32_t *idx)
{
	if (s->pool_free != UINT32_MAX) {
		*idx = s->pool_free;
		s->pool_free = (uint32_t)s->pool[*idx].ptr;
	} else {
		if (s->pool_len == s->pool_cap) {
			if (s->pool_len > IXMAP_MAX_IX) /* what live_index can name */
				return SLABSIM_ENOMEM;
			size_t cap = s->pool_cap;
			struct live *n = bigmem_grow(s->pool, &cap, s->pool_len, sizeof(*n), 4096);
			if (!n)
				return SLABSIM_ENOMEM;
			s->pool = n;
			s->pool_cap = (uint32_t)cap; /* <= 2 * IXMAP_MAX_IX, checked above */
		}
		*idx = s->pool_len++;
	}
	s->pool[*idx] = (struct live){0};
	return 0;
}

static uint64_t shape_hash(const struct policy_obj *o)
{
	uint64_t h = (uint64_t)o->cache << 32 | o->order;
	const uint64_t w[] = {o->bytes_alloc,  o->size,
			      o->slot_bytes,   o->meta_bytes,
			      o->object_bytes, (uint64_t)o->align_shift << 32 | o->frag_bytes};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ULL;
	return h ^ h >> 29;
}

/* set_obj's case of a shape not in the hint: the table (entries are never
 * removed: there are about as many as distinct request sizes per cache,
 * whatever the trace's length). */
__attribute__((noinline)) static int set_obj_slow(struct sim *s, struct live *l,
						  const struct policy_obj *o, uint32_t *hint)
{
	struct policy_obj k = *o;
	k.addr = 0;
	/* a different shape with the same hash takes the next key */
	for (uint64_t h = shape_hash(&k);; h++) {
		bool found;
		uint64_t *v = u64map_upsert(&s->shape_index, h, &found);
		if (!v)
			return SLABSIM_ENOMEM;
		if (found && memcmp(&s->shapes[*v], &k, sizeof(k)))
			continue;
		if (!found) {
			uint32_t acct = UINT32_MAX;
			struct policy_obj *n = NULL;
			uint32_t *na = NULL;
			if ((k.cache == POLICY_NO_CACHE || !root_of(s, k.cache, &acct)) &&
			    (n = grow_room(s->shapes, &s->shapes_cap, s->nshapes, sizeof(*n), 64)))
				s->shapes = n;
			if (n && (na = grow_room(s->shape_acct, &s->shape_acct_cap, s->nshapes,
						 sizeof(*na), 64)))
				s->shape_acct = na;
			if (!n || !na) {
				u64map_del_ref(&s->shape_index, v);
				return SLABSIM_ENOMEM;
			}
			n[s->nshapes] = k;
			na[s->nshapes] = acct;
			*v = s->nshapes++;
		}
		l->shape = (uint32_t)*v;
		*hint = l->shape + 1;
		return 0;
	}
}

/* l's policy_obj o as (address, shape id): the shape last used for o's
 * cache and size when it is o's (inline, compared field by field), else
 * set_obj_slow. */
static inline __attribute__((always_inline)) int set_obj(struct sim *s, struct live *l,
							 const struct policy_obj *o)
{
	l->addr = o->addr;
	uint32_t *hint =
		&s->shape_hint[((o->cache * 0x9e3779b1u) ^ (uint32_t)o->size) % SHAPE_HINTS];
	if (*hint) {
		const struct policy_obj *h = &s->shapes[*hint - 1];
		/* every field but addr (the first), a policy_obj having no
		 * padding: one compare of 56 bytes */
		if (!memcmp((const char *)h + sizeof(h->addr), (const char *)o + sizeof(o->addr),
			    sizeof(*o) - sizeof(o->addr))) {
			l->shape = *hint - 1;
			return 0;
		}
	}
	return set_obj_slow(s, l, o, hint);
}

/* l's policy_obj, as the policy made it */
static inline const struct policy_obj *shape_of(const struct sim *s, const struct live *l)
{
	return &s->shapes[l->shape];
}

/* l's root cache id, UINT32_MAX for a large kmalloc */
static inline uint32_t live_acct(const struct sim *s, const struct live *l)
{
	return s->shape_acct[l->shape];
}

static void pool_put(struct sim *s, uint32_t idx)
{
	s->pool[idx].ptr = s->pool_free;
	s->pool_free = idx;
}

/* live_upsert's insert of absent ptr's entry (*ix) at the index's slot pos */
__attribute__((noinline)) static int live_insert(struct sim *s, uint64_t ptr, size_t pos,
						 uint32_t *ix)
{
	int rc = pool_get(s, ix);
	if (rc)
		return rc;
	s->pool[*ix].ptr = ptr;
	struct ixmap_keys k = live_keys(s); /* the pool may have moved */
	if ((rc = ixmap_insert_at(&s->live_index, pos, *ix, &k)))
		pool_put(s, *ix);
	else
		s->pool[*ix].in_index = true; /* after: the map's growth places held ones */
	return rc;
}

/* The entry of ptr (*ix), made when absent (*found false): a new entry has
 * no object, no record and no flag. Inline: the probe of every allocation. */
static inline __attribute__((always_inline)) int live_upsert(struct sim *s, uint64_t ptr,
							     uint32_t *ix, bool *found)
{
	struct ixmap_keys k = live_keys(s);
	size_t pos = 0;
	*ix = ixmap_find(&s->live_index, ptr, &k, &pos);
	if ((*found = *ix != IXMAP_NONE))
		return 0;
	return live_insert(s, ptr, pos, ix);
}

/* live_upsert out of line, for the paths that seldom make an entry */
__attribute__((noinline)) static int live_upsert_cold(struct sim *s, uint64_t ptr, uint32_t *ix,
						      bool *found)
{
	return live_upsert(s, ptr, ix, found);
}

/* Remove entry ix (no object, record or flag left) from the index. */
static void live_remove(struct sim *s, uint32_t ix)
{
	struct ixmap_keys k = live_keys(s);
	ixmap_del(&s->live_index, ix, &k);
	s->pool[ix].in_index = false;
	pool_put(s, ix);
}

/* After an allocation into root cache acct, whose entry is a (UINT32_MAX
 * and NULL: a large kmalloc); pages_before and slab_pages: the policy's
 * slab pages before and after it. A cache's pages can only have grown if
 * the total did. */
static inline void update_peaks_of(struct sim *s, uint32_t acct, struct cache_acct *a,
				   uint64_t pages_before, uint64_t slab_pages)
{
	if (slab_pages > s->peak_slab_pages) {
		s->peak_slab_pages = slab_pages;
		s->peak_slab_pages_t_ns = s->now_ns;
	}
	if (!a)
		return;
	if (a->live_objs > a->peak_live_objs)
		a->peak_live_objs = a->live_objs;
	if (slab_pages <= pages_before)
		return;
	struct policy_cache_info ci;
	s->p->ops->cache_info(s->p, acct, &ci);
	if (ci.nr_pages > a->peak_pages) {
		a->peak_pages = ci.nr_pages;
		a->peak_pages_t_ns = s->now_ns;
	}
}

/* update_peaks_of, the entry found from acct */
static void update_peaks(struct sim *s, uint32_t acct, uint64_t pages_before, uint64_t slab_pages)
{
	update_peaks_of(s, acct, acct == UINT32_MAX ? NULL : &s->acct[acct], pages_before,
			slab_pages);
}

/* The root (accounting) cache of policy cache id; aliases never change. */
static int root_of(struct sim *s, uint32_t id, uint32_t *root)
{
	if (id >= s->root_cap) {
		uint32_t *n = grow_to(s->root_of, &s->root_cap, id, sizeof(*s->root_of), 256);
		if (!n)
			return SLABSIM_ENOMEM;
		s->root_of = n;
	}
	if (!s->root_of[id]) {
		struct policy_cache_info ci;
		s->p->ops->cache_info(s->p, id, &ci);
		s->root_of[id] = ci.alias_of + 1;
	}
	*root = s->root_of[id] - 1;
	return 0;
}

/* "Who pays" (account_cost): the (root cache, call site) entry of a kmalloc
 * with the growth it counted for it, found again when it is freed. */
static inline uint64_t cost_key(uint32_t acct, uint32_t site)
{
	return ((uint64_t)(acct + 1) & 0xfffff) << 40 | site;
}

static int64_t cost_growth(const struct sim *s, uint64_t req, enum policy_kmalloc_type t,
			   uint64_t bytes_alloc, uint64_t *none_bytes)
{
	*none_bytes = s->none->ops->kmalloc_bytes(s->none, req, t);
	return (int64_t)bytes_alloc - (int64_t)*none_bytes;
}

/* Take kmalloc l (root acct, bytes_alloc as the model made it) out of its
 * entry's live growth: the entry exists since account_cost made it, and
 * the growth is a function of (req, kmalloc type, bytes_alloc). */
static void uncount_cost(struct sim *s, const struct live *l, uint32_t acct, uint64_t bytes_alloc)
{
	uint64_t v = 0, none_bytes;
	bool found = u64map_get(&s->cost_index, cost_key(acct, l->site), &v);
	assert(found);
	(void)found;
	int64_t g = cost_growth(s, l->req, (enum policy_kmalloc_type)(LIVE_KT_OF(l) - 1),
				bytes_alloc, &none_bytes);
	s->cost[v].live_growth -= (int32_t)g;
}

/* How do_free_via frees: kfree / kmem_cache_free, kfree_rcu (the
 * policy's free_rcu, where it has one), straight to the object's slab
 * (free_to_slab, where the policy has one: a free the kernel made earlier
 * whose slab it has since discarded, pgfree.h), or kmem_cache_free_bulk
 * (free_bulk, where the policy has one); VIA_NONE: the policy is not told
 * (an object it never held: start_move). */
enum via { VIA_FREE = 0, VIA_RCU = 1, VIA_SLAB = 2, VIA_BULK = 3, VIA_NONE = 4 };

/* The policy's free of obj on cpu, by via (not VIA_NONE). */
static inline __attribute__((always_inline)) int
policy_free_via(struct sim *s, struct policy_obj *obj, uint32_t cpu, enum via via, struct err *e)
{
	const struct policy_ops *ops = s->p->ops;
	if (via == VIA_RCU && ops->free_rcu)
		return ops->free_rcu(s->p, obj, cpu, e);
	if (via == VIA_SLAB && ops->free_to_slab)
		return ops->free_to_slab(s->p, obj, cpu, e);
	if (via == VIA_BULK && ops->free_bulk)
		return ops->free_bulk(s->p, obj, cpu, e);
	return policy_free(s->p, obj, cpu, e);
}

/* Free live object idx on cpu, by via. */
static inline __attribute__((always_inline)) int
do_free_via(struct sim *s, uint32_t idx, uint32_t cpu, enum via via, struct err *e)
{
	struct live *l = &s->pool[idx];
	s->seen_valid = false;
	/* The policy takes l's policy_obj: its shape with its address,
	 * written into the shape for the call instead of a copy of 64 bytes
	 * per free (a shape's address is 0 otherwise: set_obj compares shapes
	 * whole, and nothing a free runs looks a shape up). */
	struct policy_obj *obj = &s->shapes[l->shape];
	obj->addr = l->addr;
	int rc = via == VIA_NONE ? 0 : policy_free_via(s, obj, cpu, via, e);
	obj->addr = 0;
	if (rc)
		return rc;
	if (u64map_len(&s->misplaced))
		(void)u64map_del(&s->misplaced, l->addr, NULL);
	uint32_t acct = live_acct(s, l);
	if (LIVE_KT_OF(l))
		uncount_cost(s, l, acct, obj->bytes_alloc);
	if (acct != UINT32_MAX) {
		struct cache_acct *a = &s->acct[acct];
		a->frees++;
		a->live_objs--;
		a->live_req -= l->req;
		a->live_slot -= obj->slot_bytes;
		a->live_meta -= obj->meta_bytes;
		a->live_object -= obj->object_bytes;
	} else {
		s->large_live_req -= l->req;
		s->large_live_bytes -= obj->bytes_alloc;
	}
	struct site_acct *st = &s->site[l->site];
	st->frees++;
	st->live_objs--;
	st->live_req -= l->req;
	if (LIVE_CPU(l) != cpu)
		st->pingpong++;
	s->live_objs--;
	s->live_req -= l->req;
	if (!l->in_index) /* a pointer's entry stays: the caller says why */
		pool_put(s, idx);
	return 0;
}

static inline __attribute__((always_inline)) int do_free(struct sim *s, uint32_t idx, uint32_t cpu,
							 struct err *e)
{
	return do_free_via(s, idx, cpu, VIA_FREE, e);
}

static uint32_t fold_cpu(struct sim *s, const struct trace_event *ev)
{
	if (ev->cpu < s->o.cfg.nr_cpus)
		return ev->cpu;
	anomaly(s, SIM_AN_CPU_FOLDED, ev->line);
	return ev->cpu % s->o.cfg.nr_cpus;
}

/* The sites file's rule for call site id (0: not listed, or no file). */
static uint32_t site_need(struct sim *s, uint32_t site)
{
	struct site_acct *st = &s->site[site];
	if (__builtin_expect(st->need_known, 1))
		return st->need;
	st->need_known = true;
	st->need = policy_sites_need(s->o.cfg.sites, strtab_str(&s->sites, site));
	if (st->need)
		s->listed_sites++;
	return st->need;
}

/* The kmalloc route of an event (policies/buckets.h): 0 unless the model
 * has kmem_buckets or random kmalloc caches; the site's class is worked
 * out once. */
static inline uint32_t site_route(struct sim *s, uint32_t site, const struct trace_event *ev,
				  enum policy_kmalloc_type t)
{
	const struct policy_cfg *cfg = &s->o.cfg;
	if (__builtin_expect(!cfg->slab_buckets && !cfg->random_kmalloc, 1))
		return 0;
	struct site_acct *st = &s->site[site];
	if (!st->route_known) {
		st->route_known = true;
		st->route_class = policy_route_site(cfg, strtab_str(&s->sites, site));
	}
	uint32_t gfp = ((ev->gfp & TRACE_GFP_ACCOUNT) && !(ev->gfp & TRACE_GFP_ACCOUNT_ONLY)
				? POLICY_ROUTE_GFP_ACCOUNT
				: 0) |
		       (ev->gfp & TRACE_GFP_HARDWALL ? POLICY_ROUTE_GFP_HARDWALL : 0) |
		       (ev->gfp & TRACE_GFP_NOWARN ? POLICY_ROUTE_GFP_NOWARN : 0);
	return policy_route(cfg, st->route_class, gfp, t);
}

/* red_left_pad + 1 of cache id of p, kept in *tab (0 = not read yet) */
static int32_t rlp_of(const struct policy *p, uint32_t id, int32_t **tab, size_t *cap)
{
	if (id >= *cap) {
		int32_t *n = grow_to(*tab, cap, id, sizeof(**tab), 64);
		if (!n)
			return 1; /* out of memory: count no shift */
		*tab = n;
	}
	if (!(*tab)[id]) {
		struct policy_cache_info ci;
		p->ops->cache_info(p, id, &ci);
		(*tab)[id] = (int32_t)ci.g.red_left_pad + 1;
	}
	return (*tab)[id];
}

/* Who pays: the kmalloc just made (l, from request r) against a kmalloc of
 * the same size under align none, by (root cache, call site); and whether
 * a listed caller got the alignment its rule asks. */
static int account_cost(struct sim *s, struct live *l, uint32_t acct, const struct policy_obj *o,
			const struct policy_alloc_req *r, struct err *e)
{
	struct policy *nb = s->none;
	uint64_t none_bytes;
	int64_t growth = cost_growth(s, l->req, r->ktype, o->bytes_alloc, &none_bytes);
	uint64_t shift = 0;
	if (acct != UINT32_MAX) {
		struct cache_acct *a = &s->acct[acct];
		if (!a->red_left_pad) {
			struct policy_cache_info ci;
			s->p->ops->cache_info(s->p, acct, &ci);
			a->red_left_pad = (int32_t)ci.g.red_left_pad + 1;
		}
		uint32_t nid = nb->ops->kmalloc_cache(nb, l->req, r->ktype);
		int32_t nrlp = nid == POLICY_NO_CACHE
				       ? 1
				       : rlp_of(nb, nid, &s->none_rlp, &s->none_rlp_cap);
		if (a->red_left_pad > nrlp)
			shift = (uint64_t)(a->red_left_pad - nrlp);
	}
	bool found;
	uint64_t *slot = u64map_upsert(&s->cost_index, cost_key(acct, l->site), &found);
	if (!slot)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	if (!found) {
		struct cost_acct *n =
			grow_to(s->cost, &s->cost_cap, s->cost_n, sizeof(*s->cost), 256);
		if (!n) {
			u64map_del_ref(&s->cost_index, slot);
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		}
		s->cost = n;
		memset(&n[s->cost_n], 0, sizeof(*n));
		n[s->cost_n].acct = acct;
		n[s->cost_n].site = l->site;
		*slot = s->cost_n++;
	}
	struct cost_acct *c = &s->cost[*slot];
	c->allocs++;
	c->bytes_alloc += o->bytes_alloc;
	c->bytes_alloc_none += none_bytes;
	c->redzone_shift += shift;
	c->fragments += o->frag_bytes;
	c->live_growth += growth;
	l->kt = (uint32_t)r->ktype + 1;
	if (r->align_need) {
		s->listed_allocs++;
		if (o->addr % policy_need_bytes(r->align_need, l->req)) {
			c->violations++;
			s->listed_violations++;
		}
	}
	return 0;
}

/* What an allocation of root cache root shows of its SLAB_ACCOUNT flag. */
static int note_account(struct sim *s, uint32_t root, const struct trace_event *ev)
{
	uint8_t bit = ev->accounted == 0		   ? ACC_NO
		      : (ev->gfp & TRACE_GFP_ACCOUNT_ONLY) ? ACC_YES
							   : 0;
	if (!bit)
		return 0;
	if (root >= s->account_cap) {
		uint8_t *n = grow_to(s->account_seen, &s->account_cap, root, 1, 256);
		if (!n)
			return SLABSIM_ENOMEM;
		s->account_seen = n;
	}
	s->account_seen[root] |= bit;
	return 0;
}

/* Count a modelled allocation o of ev (call site site, root cache acct
 * and its entry a; UINT32_MAX and NULL: a large kmalloc) in the site's,
 * the cache's and the run's totals, and its misalignment if a kmalloc of
 * a power of two is not aligned to its size. */
static int count_alloc(struct sim *s, const struct trace_event *ev, const struct policy_obj *o,
		       uint32_t site, uint32_t acct, struct cache_acct *a, bool kmalloc,
		       struct err *e)
{
	int rc;
	struct site_acct *st = &s->site[site];
	st->allocs++;
	st->bytes_req = sat_add(st->bytes_req, ev->bytes_req);
	st->bytes_alloc = sat_add(st->bytes_alloc, o->bytes_alloc);
	/* the trace's bytes_alloc is any 64-bit number: its sums saturate */
	st->bytes_alloc_trace = sat_add(st->bytes_alloc_trace, ev->bytes_alloc);
	st->live_objs++;
	st->live_req += ev->bytes_req;
	if (o->bytes_alloc != ev->bytes_alloc)
		s->alloc_size_mismatch++;
	s->live_objs++;
	s->live_req += ev->bytes_req;
	if (a) {
		a->allocs++;
		a->live_objs++;
		a->live_req += ev->bytes_req;
		a->live_slot += o->slot_bytes;
		a->live_meta += o->meta_bytes;
		a->live_object += o->object_bytes;
	} else {
		s->large_live_req += ev->bytes_req;
		s->large_live_bytes += o->bytes_alloc;
	}
	/* a mask, not a 64-bit divide: the size is a power of two */
	if (kmalloc && is_pow2(ev->bytes_req) && (o->addr & (ev->bytes_req - 1))) {
		st->violations++;
		s->violations_total++;
		if (acct != UINT32_MAX)
			s->acct[acct].violations++;
		uint64_t key = ((uint64_t)(acct & 0xfffff) << 40) | ((uint64_t)site << 8) |
			       ilog2_u64(ev->bytes_req);
		uint64_t *cnt = u64map_ref(&s->violations, key);
		if (cnt)
			(*cnt)++;
		else if ((rc = u64map_put(&s->violations, key, 1)) ||
			 (rc = u64map_put(&s->violation_addr, key, o->addr)))
			return err_set(e, rc, "out of memory");
	}
	return 0;
}

/* ---- allocations the trace does not show ----
 *
 * The trace can miss allocations: events filtered by PID, events the ring
 * buffer lost, paths that emit none (6.1's kmem_cache_alloc_bulk), or a
 * task the tracing does not see (on a 6.18 capture, the /proc lookups of a
 * process outside the trace: its proc_inode_cache, dentry and
 * lsm_inode_cache allocations carry no event while their RCU frees, run
 * in softirq on whatever task is current, do). A free of a pointer the
 * trace never allocated is first taken as an object of the start state
 * (on_free), which is right for objects older than the trace and cannot be
 * told apart from an untraced one at that point. Two kinds of evidence
 * prove an untraced allocation, and only those are used (never a snapshot
 * the run is compared with):
 *  - the same pointer freed again with no allocation between: the kernel
 *    does not free an object twice, so it was allocated in between;
 *  - a free naming a cache whose start state is exhausted (counted in
 *    untraced_frees as before; the model is left as it is, since such an
 *    object may as well predate the trace, as 6.1's bulk allocations do).
 * For the first, the allocation is made in the model right before the free
 * that proves it, so that the free takes it and not a start-state object.
 * Where the kernel made it is not in the trace: SLUB serves an allocation
 * from the allocating CPU's slab (its lockless freelist, then that slab,
 * then its partial slabs, the node's, a new slab), and the object was free
 * somewhere between the pointer's previous free and this one. Approximated:
 * the CPU of the free (RCU callbacks run on the CPU that queued them,
 * unless rcu_nocbs offloads them, and that is usually where the object
 * was last used), at the time of the free, so
 * the object's life in the model is empty: the model does not hold the
 * memory it held between its allocation and its free. */

/* A pointer freed: remember it until it is allocated again (freed in its
 * live_index entry ix; IXMAP_NONE: it has none, one is made). OUT:
 * *again, whether it was freed before with no allocation since. The entry
 * must have no live object. */
static int untraced_note_free(struct sim *s, uint64_t ptr, uint32_t ix, bool *again, struct err *e)
{
	*again = false;
	if (ix == IXMAP_NONE) {
		bool found;
		if (live_upsert_cold(s, ptr, &ix, &found))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	*again = s->pool[ix].freed;
	s->pool[ix].freed = true;
	return 0;
}

/* A pointer allocated (its live_index entry l): its next free is a plain
 * one. */
static inline void untraced_note_alloc(struct live *l)
{
	l->freed = false;
}

/* Make the allocation the trace did not show before a free of a pointer
 * already freed, in cache cid (root root, geometry ci) on CPU cpu, as an
 * object of call site "(untraced)". OUT: *idx, its pool index, for the
 * free to take. */
static int untraced_alloc(struct sim *s, uint32_t cid, uint32_t root,
			  const struct policy_cache_info *ci, uint32_t cpu, uint64_t ptr,
			  uint32_t *idx, struct err *e)
{
	uint64_t pages_before = slab_pages_now(s);
	struct policy_alloc_req r = {.cache = cid,
				     .size = ci->g.object_size,
				     .cpu = cpu,
				     .node = -1,
				     .trace_ptr = is_raw_ptr(ptr) ? ptr : 0};
	uint32_t site;
	int rc = intern_site(s, "(untraced)", &site);
	if (rc || (rc = pool_get(s, idx)))
		return err_set(e, rc, "out of memory");
	struct live *l = &s->pool[*idx];
	struct policy_obj obj = {0}; /* all of it is compared (set_obj) */
	s->seen_valid = false;
	if ((rc = policy_alloc(s->p, &r, &obj, e))) {
		pool_put(s, *idx);
		return rc;
	}
	if ((rc = set_obj(s, l, &obj))) {
		pool_put(s, *idx); /* the run ends: out of memory */
		return err_set(e, rc, "out of memory");
	}
	/* the request size is not traced: count the object size */
	l->req = obj.object_bytes;
	assert(live_acct(s, l) == root);
	l->cpu = cpu;
	l->site = site;
	struct cache_acct *a = &s->acct[root];
	a->untraced_frees++;
	a->untraced_refreed++;
	a->live_objs++;
	a->live_req += l->req;
	a->live_slot += obj.slot_bytes;
	a->live_meta += obj.meta_bytes;
	a->live_object += obj.object_bytes;
	s->site[l->site].live_objs++;
	s->site[l->site].live_req += l->req;
	s->live_objs++;
	s->live_req += l->req;
	update_peaks(s, root, pages_before, slab_pages_now(s));
	return 0;
}

/* policy_alloc_req.trace_fresh: certain that a kernel slab is a start
 * slab only where the trace shows the pages the allocator gave out */
static enum policy_slab_age slab_age(const struct pgf *g, uint64_t va, uint64_t len)
{
	if (!g->base_known)
		return POLICY_SLAB_UNKNOWN;
	if (pgf_made_since(g, va, len))
		return POLICY_SLAB_NEW;
	return g->page_allocs && g->keep_renewed ? POLICY_SLAB_OLD : POLICY_SLAB_UNKNOWN;
}

static enum policy_slab_age fresh_slab(const void *ctx, uint64_t va, uint64_t len)
{
	return slab_age(ctx, va, len);
}

/* policy_ops.start_moves' move: the start object at model address from,
 * if any, now lies at to (its start slab's count moves with it); to 0: it
 * was not live, and leaves the live set as a free would, the policy told
 * nothing (it gives the slot to the allocation it is placing) */
static bool start_move(void *ctx, uint64_t from, uint64_t to)
{
	struct sim *s = ctx;
	uint64_t v, ps;
	if (!u64map_get(&s->pre_addr, from, &v))
		return false;
	struct live *l = &s->pool[v];
	uint64_t mask = ((uint64_t)POLICY_PAGE_SIZE << shape_of(s, l)->order) - 1;
	/* pslab_of: (root << 32 | index) + 1 */
	if (!u64map_get(&s->pslab_of, from & ~mask, &ps))
		return false;
	/* where the trace misses frees (maple_node), a start object beyond
	 * its kernel slab's count is dead, not elsewhere (infer_full_slab) */
	uint32_t root = (uint32_t)((ps - 1) >> 32);
	if (s->mmf_on && mmf_kind_of_acct(s, root) == MMF_NODE)
		return false;
	if (!to) {
		struct err e = {0};
		struct cache_acct *a = &s->acct[root];
		uint32_t idx = take_pre(s, a, (uint32_t)l->ptr);
		a->pre_freed++;
		s->placed_start_dropped++;
		/* no policy call, no allocation: it cannot fail */
		(void)do_free_via(s, idx, LIVE_CPU(&s->pool[idx]), VIA_NONE, &e);
		return true;
	}
	if (u64map_put(&s->pre_addr, to, v))
		return false; /* out of memory: it stays */
	(void)u64map_del(&s->pre_addr, from, NULL);
	s->acct[root].pslabs[(uint32_t)(ps - 1)].left--;
	if (u64map_get(&s->pslab_of, to & ~mask, &ps))
		s->acct[(ps - 1) >> 32].pslabs[(uint32_t)(ps - 1)].left++;
	l->addr = to;
	s->placed_start_moved++;
	return true;
}

/* An allocation at raw pointer ptr in a kernel slab no model slab is bound
 * to, when the policy has no unbound slab with a free object to give it
 * (policy_ops.unseen_needs_slab): the kernel had a free object in a slab
 * the trace had not touched, and it was not a new slab if the model still
 * has a start slab no kernel slab is bound to. The start state counts the
 * objects parked in sheaves and barns as active (slabinfo does), and has
 * no sheaves: such an object is where the kernel allocates first. So the
 * start slab with the most start objects left that the policy can bind is
 * bound to this kernel slab, and one of its start objects is freed (it
 * was parked); the allocation that follows takes it back. Without it the
 * policy made a new slab: on a 15-s capture, 12 vm_area_struct slabs more
 * than the kernel, which made none. */
static int start_unseen(struct sim *s, uint32_t cid, const struct policy_cache_info *ci,
			uint64_t ptr, struct err *e)
{
	const struct policy_ops *ops = s->p->ops;
	/* a kernel slab whose page the trace saw freed or given out was
	 * made since: the start slabs stand for the kernel slabs of before,
	 * some of which the trace never touches (full ones of long-lived
	 * objects) */
	uint64_t kmask = ((uint64_t)POLICY_PAGE_SIZE << ci->g.order) - 1;
	enum policy_slab_age age = slab_age(&s->pgf, ptr & ~kmask, kmask + 1);
	if (age == POLICY_SLAB_NEW || !ops->unseen_needs_slab ||
	    !ops->unseen_needs_slab(s->p, cid, ptr, age))
		return 0;
	uint32_t root = ci->alias_of;
	struct cache_acct *a = &s->acct[root];
	uint32_t pi;
	for (;;) {
		pi = UINT32_MAX;
		for (uint32_t i = 0; i < a->npslabs; i++)
			if (!a->pslabs[i].bound && a->pslabs[i].left &&
			    (pi == UINT32_MAX || a->pslabs[i].left > a->pslabs[pi].left))
				pi = i;
		if (pi == UINT32_MAX)
			return 0;
		/* one the policy bound to another kernel slab is not this one */
		a->pslabs[pi].bound = true;
		if (ops->bind_slab(s->p, root, ptr, a->pslabs[pi].base) == 1)
			break;
	}
	struct pre_slab *ps = &a->pslabs[pi];
	uint64_t mask = ((uint64_t)POLICY_PAGE_SIZE << ci->g.order) - 1, v;
	if (u64map_put(&s->pre_bind, ptr & ~mask, ((uint64_t)root << 32 | pi) + 1))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < ci->g.objs_per_slab; i++) {
		uint64_t at = ps->base + ci->g.red_left_pad + (uint64_t)i * ci->g.size;
		if (u64map_get(&s->pre_addr, at, &v)) {
			uint32_t idx = take_pre(s, a, (uint32_t)s->pool[v].ptr);
			a->pre_freed++;
			a->start_parked++;
			return do_free(s, idx, LIVE_CPU(&s->pool[idx]), e);
		}
	}
	return 0;
}

/* A kernel slab holds objs_per_slab objects. The start-state objects of
 * one can only be in slots no traced allocation took since (a slot
 * allocated in the trace was free then): at most objs_per_slab, less the
 * slots of the traced pointers live there, less the one an allocation at
 * raw pointer ptr takes now. Start-state objects the model holds in the
 * model slab bound to that kernel slab beyond that number were freed by
 * paths the trace does not show (on 6.18, kfree_rcu and the bulk frees of
 * maple_node): they are freed now, to their slab (as pgf_gone frees: that
 * free was long before, and the sheaves it went through have turned over
 * since). For the caches the policy places by
 * address (policy_ops.bind_slab), whose model slabs stand for kernel
 * slabs, and whose frees the trace does not show (maple_node under the
 * mm model): which start slab stands for a kernel slab is a guess (the
 * one with the most start objects left), so where the trace shows every
 * free (vm_area_struct) objects beyond the count lie in another kernel
 * slab, not dead, and freeing them took 762 live start objects of a 35-s
 * capture's 1,506. */
static int infer_full_slab(struct sim *s, const struct policy_cache_info *ci, uint64_t ptr,
			   struct err *e)
{
	const struct policy_ops *ops = s->p->ops;
	uint32_t n = ci->g.objs_per_slab, root = ci->alias_of;
	uint64_t mbase, v;
	uint32_t mcache;
	if (!n || n > 1024 || !s->mmf_on || mmf_kind_of_acct(s, root) != MMF_NODE ||
	    !ops->bound_slab || !ops->bound_slab(s->p, ptr, &mbase, &mcache) || mcache != root)
		return 0;
	uint64_t mask = ((uint64_t)POLICY_PAGE_SIZE << ci->g.order) - 1;
	uint64_t kbase = ptr & ~mask, me = ((ptr & mask) - ci->g.red_left_pad) / ci->g.size;
	uint32_t nheld = 0, pre[1024], npre = 0;
	for (uint32_t i = 0; i < n; i++)
		if (u64map_get(&s->pre_addr, mbase + ci->g.red_left_pad + (uint64_t)i * ci->g.size,
			       &v))
			pre[npre++] = (uint32_t)v;
	if (!npre)
		return 0;
	for (uint32_t i = 1; i < n; i++) {
		uint64_t q = kbase + ci->g.red_left_pad + ((me + i) % n) * ci->g.size;
		uint32_t slot = live_find(s, q);
		nheld += slot != IXMAP_NONE && s->pool[slot].has_obj;
	}
	struct cache_acct *a = &s->acct[root];
	for (uint32_t i = 0; nheld + npre - i >= n && i < npre; i++) {
		uint32_t idx = take_pre(s, a, (uint32_t)s->pool[pre[i]].ptr);
		a->pre_freed++;
		a->freed_at_full_slab++;
		int rc = do_free_via(s, idx, LIVE_CPU(&s->pool[idx]), VIA_SLAB, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* What an allocation at raw pointer ptr of cache cid shows of the start
 * state (infer_full_slab, start_unseen): only for a cache the policy
 * places by address that still has start-state objects (the caller skips
 * the call while none is left: a trace replayed without a start state
 * pays nothing here). */
static int start_evidence(struct sim *s, uint32_t cid, uint64_t ptr, struct err *e)
{
	const struct policy_ops *ops = s->p->ops;
	if (!ops->bind_slab || ops->bind_slab(s->p, cid, ptr, 0) < 0)
		return 0;
	struct policy_cache_info ci;
	ops->cache_info(s->p, cid, &ci);
	if (ci.alias_of >= s->acct_cap || !s->acct[ci.alias_of].npre)
		return 0;
	int rc = infer_full_slab(s, &ci, ptr, e);
	return rc ? rc : start_unseen(s, cid, &ci, ptr, e);
}

/* The model slab (its base) bound to the kernel slab raw pointer ptr lies
 * in, for root cache root, or 0. */
static uint64_t bound_base(const struct sim *s, uint64_t ptr, uint32_t root)
{
	uint64_t base;
	uint32_t cache;
	return s->p->ops->bound_slab(s->p, ptr, &base, &cache) && cache == root ? base : 0;
}

/* An object of a cache placed by address (SLUB's place_by_address) at
 * raw pointer ptr, which the policy put at *obj, outside the model slab
 * bound to its kernel slab (that slab had no free object): the kernel's
 * slab had one, so an object the model holds in the bound slab is not in
 * that kernel slab. When one of the objects found misplaced before lies
 * there, the two trade places: the new object takes its slot, it takes
 * the new object's (both stay allocated, so the policy's state is the same
 * either way). What stays misplaced is kept in sim.misplaced. */
static int place_swap(struct sim *s, uint64_t ptr, uint32_t idx, struct policy_obj *obj)
{
	if (s->p->ops->bind_slab(s->p, obj->cache, ptr, 0) < 0)
		return 0; /* not placed by address */
	struct policy_cache_info ci;
	s->p->ops->cache_info(s->p, obj->cache, &ci);
	uint64_t mask = ((uint64_t)POLICY_PAGE_SIZE << ci.g.order) - 1, v;
	uint64_t want = bound_base(s, ptr, ci.alias_of);
	if ((obj->addr & ~mask) == want)
		return 0;
	for (uint32_t i = 0; want && i < ci.g.objs_per_slab && u64map_len(&s->misplaced); i++) {
		uint64_t at = want + ci.g.red_left_pad + (uint64_t)i * ci.g.size;
		if (!u64map_get(&s->misplaced, at, &v))
			continue;
		struct live *q = &s->pool[v];
		struct policy_obj qo = *shape_of(s, q);
		qo.addr = obj->addr;
		if (memcmp(&qo, obj, sizeof(qo)) ||
		    bound_base(s, q->ptr, ci.alias_of) == want) /* its own slab now */
			continue;
		(void)u64map_del(&s->misplaced, at, NULL);
		q->addr = obj->addr;
		obj->addr = at;
		s->placed_traded++;
		if (bound_base(s, q->ptr, ci.alias_of) == (q->addr & ~mask))
			return 0;
		return u64map_put(&s->misplaced, q->addr, v) ? SLABSIM_ENOMEM : 0;
	}
	s->placed_outside++;
	return u64map_put(&s->misplaced, obj->addr, idx) ? SLABSIM_ENOMEM : 0;
}

/* ev's allocation; km: its key's memo (replay_evarr), NULL for none */
static int on_alloc(struct sim *s, const struct trace_event *ev, struct key_memo *km, struct err *e)
{
	bool kmalloc = ev->type == TRACE_EV_KMALLOC || ev->type == TRACE_EV_KMALLOC_NODE;
	uint32_t cpu = fold_cpu(s, ev);
	uint32_t site;
	int rc;

	/* One probe finds the pointer's entry or makes it. perf kmem stat
	 * counts every allocation event, before any of the engine's filters
	 * (NULL pointers, zero sizes): its record is kept from here on. */
	bool known;
	uint32_t idx;
	if ((rc = live_upsert(s, ev->ptr, &idx, &known)))
		return err_set(e, rc, "out of memory");
	s->alloc_entry = idx;
	if (km && km->site)
		site = km->site - 1;
	else if (!(rc = event_site(s, ev, &site)) && km)
		km->site = site + 1;
	if (!rc)
		rc = live_perf_alloc(s, idx, ev, site);
	if (rc) {
		if (!known)
			live_remove(s, idx);
		return err_set(e, rc, "out of memory");
	}
	if (ev->ptr == 0) {
		anomaly(s, SIM_AN_ALLOC_NULL, ev->line);
		return 0;
	}
	untraced_note_alloc(&s->pool[idx]);
	if (ev->bytes_req == 0) {
		anomaly(s, SIM_AN_ALLOC_ZERO, ev->line);
		return 0;
	}
	if (ev->bytes_req > LAYOUT_KMALLOC_MAX_SIZE) {
		anomaly(s, SIM_AN_ALLOC_TOO_BIG, ev->line);
		return 0;
	}
	if (ev->bytes_alloc < ev->bytes_req)
		anomaly(s, SIM_AN_ALLOC_LT_REQ, ev->line);
	struct policy_alloc_req r = {.cpu = cpu,
				     .node = ev->node,
				     .size = ev->bytes_req,
				     .trace_ptr = is_raw_ptr(ev->ptr) ? ev->ptr : 0};
	if (s->pgf.base_known) { /* a kernel slab whose page was freed is new */
		r.trace_fresh = fresh_slab;
		r.fresh_ctx = &s->pgf;
	}
	if (kmalloc) {
		r.cache = POLICY_KMALLOC;
		r.ktype = kmalloc_type(ev);
		r.align_need = site_need(s, site);
		r.site = site;
		r.site_name = r.align_need ? strtab_str(&s->sites, site) : NULL;
		r.route = site_route(s, site, ev, r.ktype);
	} else if ((rc = cache_for(s, ev, site, km, &r.cache, e))) {
		return rc;
	}
	/* After cache_for, which refuses bad input: an event that fails leaves
	 * the live set as it was (fuzz_replay found the old object freed by
	 * an allocation then refused). Creating a cache holds no pages, so
	 * the model sees the same free-then-allocate order either way. */
	/* The pointer's entry idx is its live object's record: the previous
	 * object there goes first (neither do_free nor the policy take a pool
	 * record, so l below stays valid). An event that fails from here on
	 * leaves the pointer with no live object (and its perf record). */
	if (s->pool[idx].has_obj) {
		/* the free of the previous object at this address was not traced */
		anomaly(s, SIM_AN_ALLOC_LIVE, ev->line);
		s->pool[idx].has_obj = false;
		if (s->pgf.on && (rc = pgf_live(&s->pgf, ev->ptr, -1, e)))
			return rc;
		uint32_t old = live_acct(s, &s->pool[idx]);
		if (old != UINT32_MAX)
			s->acct[old].freed_at_reuse++;
		if ((rc = do_free(s, idx, LIVE_CPU(&s->pool[idx]), e)))
			return rc;
	}
	if (s->npre_all && r.trace_ptr && !kmalloc &&
	    (rc = start_evidence(s, r.cache, r.trace_ptr, e)))
		return rc;
	uint64_t pages_before = s->seen_valid ? s->slab_seen : slab_pages_now(s);
	struct live *l = &s->pool[idx];
	struct policy_obj obj = {0}; /* all of it is compared (set_obj) */
	if ((rc = policy_alloc(s->p, &r, &obj, e)))
		return rc;
	if (s->placing && r.trace_ptr && !kmalloc && obj.cache != POLICY_NO_CACHE &&
	    (rc = place_swap(s, r.trace_ptr, idx, &obj)))
		return err_set(e, rc, "out of memory");
	l->kt = 0;
	l->req = (uint32_t)ev->bytes_req;
	if (obj.object_bytes < l->req && l->req <= obj.slot_bytes) {
		/* A cache merged into a root after its first allocations raises
		 * the root's object_size (__kmem_cache_alias), so one call site
		 * traces two bytes_req for one cache (copy_process's
		 * signal_cache: 1112, later 1152 in a 6.1 capture). The object
		 * holds the request: no rounding, the rest of the slot is
		 * layout. */
		obj.meta_bytes = obj.slot_bytes - l->req;
		obj.object_bytes = l->req;
	}
	if ((rc = set_obj(s, l, &obj)))
		return err_set(e, rc, "out of memory"); /* the run ends */
	l->has_obj = true;
	l->site = site;
	l->cpu = cpu;
	if (s->pgf.on && (rc = pgf_live(&s->pgf, ev->ptr, +1, e)))
		return rc;
	uint32_t acct = live_acct(s, l);
	if (acct != UINT32_MAX && acct >= s->acct_cap && (rc = grow_acct(s, acct)))
		return err_set(e, rc, "out of memory");
	if (s->ncands && !kmalloc && acct != UINT32_MAX && ev->accounted >= 0 &&
	    (rc = note_account(s, acct, ev)))
		return err_set(e, rc, "out of memory");
	if (acct != UINT32_MAX && is_raw_ptr(ev->ptr)) {
		/* slabs are naturally aligned blocks of the page allocator:
		 * remember which cache this one of the real kernel belongs to */
		uint64_t mask = ((uint64_t)POLICY_PAGE_SIZE << obj.order) - 1;
		uint64_t base = ev->ptr & ~mask, val = (uint64_t)acct + 1;
		/* most allocations land in a slab put not long before: skip the
		 * put that would write the same value (the map is the same
		 * either way). The slot is a hash of all of base's bits (slabs
		 * whose addresses differ only above bit 20 shared one), and
		 * 4096 slots keep the slabs a trace allocates from at once. */
		uint64_t *last = s->trace_slab_put[(base * 0x9e3779b97f4a7c15ULL) >> 52];
		if (last[0] != base || last[1] != val) {
			bool found; /* the inline probe: a put, without the call */
			uint64_t *v = u64map_upsert(&s->trace_slab, base, &found);
			if (!v)
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			*v = val;
			last[0] = base;
			last[1] = val;
		}
	}
	/* no entry of acct is added from here on: a stays valid */
	struct cache_acct *a = acct == UINT32_MAX ? NULL : &s->acct[acct];
	if ((rc = count_alloc(s, ev, &obj, site, acct, a, kmalloc, e)))
		return rc;
	if (kmalloc && (rc = account_cost(s, l, acct, &obj, &r, e)))
		return rc;
	/* sim_event observes the state right after this: the pages read here
	 * serve it too */
	pages_now(s, &s->slab_after, &s->large_after);
	s->pages_fresh = true;
	update_peaks_of(s, acct, a, pages_before, s->slab_after);
	if (s->o.on_watch && s->site[site].watch)
		return s->o.on_watch(s->o.marker_ctx, s, ev, s->site[site].watch - 1u, e);
	return 0;
}

/* The cache of a freed raw pointer the trace never allocated, from the
 * slabs of the real kernel that traced allocations were seen in. */
static bool slab_cache_of(struct sim *s, uint64_t ptr, uint32_t *cid)
{
	if (!is_raw_ptr(ptr))
		return false;
	for (uint32_t order = 0; order < POLICY_MAX_ORDER; order++) {
		uint64_t v, mask = ((uint64_t)POLICY_PAGE_SIZE << order) - 1;
		if (!u64map_get(&s->trace_slab, ptr & ~mask, &v))
			continue;
		struct policy_cache_info ci;
		s->p->ops->cache_info(s->p, (uint32_t)(v - 1), &ci);
		if (ci.g.order == order) {
			*cid = (uint32_t)(v - 1);
			return true;
		}
	}
	return false;
}

/* Take the start-state object at a->pre[j] out of the start state (the
 * swap keeps the array dense and each moved object's index right). */
static uint32_t take_pre(struct sim *s, struct cache_acct *a, uint32_t j)
{
	uint32_t idx = a->pre[j];
	a->pre[j] = a->pre[--a->npre];
	s->npre_all--;
	s->pool[a->pre[j]].ptr = j;
	struct live *l = &s->pool[idx];
	uint64_t v;
	if (a->npslabs && u64map_del(&s->pre_addr, l->addr, NULL)) {
		uint64_t mask = ((uint64_t)POLICY_PAGE_SIZE << shape_of(s, l)->order) - 1;
		if (u64map_get(&s->pslab_of, l->addr & ~mask, &v))
			a->pslabs[(uint32_t)(v - 1)].left--;
	}
	return idx;
}

/* The start-state object a free of raw pointer ptr, which the trace never
 * allocated, takes when root cache `root` was started slab by slab
 * (sim_start_slab): the real slab the pointer lies in is bound, at its
 * first such free, to the start slab with the most start objects left that
 * no real slab has yet, and its later frees take from that one, the same
 * slot first. Frees that empty a real slab so empty a model slab, as the
 * kernel's do (drop_caches). false: no such object (no start slabs, a
 * hashed pointer, the bound slab has none left): the caller picks at
 * random. */
static bool pre_from_slab(struct sim *s, uint32_t root, const struct policy_cache_info *ci,
			  uint64_t ptr, uint32_t *idx, struct err *e)
{
	struct cache_acct *a = &s->acct[root];
	(void)e;
	if (!a->npslabs || !is_raw_ptr(ptr))
		return false;
	uint64_t mask = ((uint64_t)POLICY_PAGE_SIZE << ci->g.order) - 1, v;
	uint64_t real = ptr & ~mask;
	uint32_t pi = UINT32_MAX;
	if (u64map_get(&s->pre_bind, real, &v) && (uint32_t)((v - 1) >> 32) == root)
		pi = (uint32_t)(v - 1);
	const struct policy_ops *ops = s->p->ops;
	uint64_t mbase;
	uint32_t mcache;
	if (pi == UINT32_MAX && ops->bound_slab && ops->bound_slab(s->p, ptr, &mbase, &mcache) &&
	    mcache == root) {
		/* the policy placed objects of this kernel slab in a model
		 * slab already (place_by_address): a start slab, or one the
		 * trace's allocations made (no start object there) */
		if (!u64map_get(&s->pslab_of, mbase, &v) || (uint32_t)((v - 1) >> 32) != root)
			return false;
		pi = (uint32_t)(v - 1);
		if (u64map_put(&s->pre_bind, real, ((uint64_t)root << 32 | pi) + 1))
			return false;
		a->pslabs[pi].bound = true;
	}
	while (pi == UINT32_MAX) {
		for (uint32_t i = 0; i < a->npslabs; i++)
			if (!a->pslabs[i].bound && a->pslabs[i].left &&
			    (pi == UINT32_MAX || a->pslabs[i].left > a->pslabs[pi].left))
				pi = i;
		if (pi == UINT32_MAX)
			return false;
		/* one binding for the engine's start slabs and the policy's
		 * placement: a start slab the policy bound to another kernel
		 * slab is not this one's */
		a->pslabs[pi].bound = true;
		if (ops->bind_slab && !ops->bind_slab(s->p, root, ptr, a->pslabs[pi].base)) {
			pi = UINT32_MAX;
			continue;
		}
		if (u64map_put(&s->pre_bind, real, ((uint64_t)root << 32 | pi) + 1))
			return false;
	}
	struct pre_slab *ps = &a->pslabs[pi];
	if (!ps->left)
		return false;
	uint64_t slot = ((ptr & mask) - ci->g.red_left_pad) / ci->g.size;
	uint64_t base = ps->base + ci->g.red_left_pad;
	for (uint32_t i = 0; i < ci->g.objs_per_slab; i++) {
		uint64_t at = base + ((slot + i) % ci->g.objs_per_slab) * ci->g.size;
		if (u64map_get(&s->pre_addr, at, &v)) {
			*idx = take_pre(s, a, (uint32_t)s->pool[v].ptr);
			a->pre_by_slab++;
			return true;
		}
	}
	return false;
}

/* A named free of an object the replay put in root cache acct: anomaly if
 * the name is another cache's (learned too late). Per event, so a string
 * of the source's id space already found equal is not compared again. */
__attribute__((noinline)) static void
check_free_name_slow(struct sim *s, const struct trace_event *ev, uint32_t acct)
{
	struct cache_acct *a = &s->acct[acct];
	if (!a->name) {
		struct policy_cache_info ci;
		s->p->ops->cache_info(s->p, acct, &ci);
		a->name = ci.name;
	}
	if (strcmp(a->name, ev->name) == 0) {
		a->name_seen = ev->name;
		a->name_space = s->ids_of;
		return;
	}
	uint32_t nid;
	uint64_t cid;
	if (!(strtab_find(&s->names, ev->name, &nid) && u64map_get(&s->name_cache, nid, &cid) &&
	      cid == acct))
		anomaly(s, SIM_AN_FREE_OTHER_CACHE, ev->line);
}

static inline void check_free_name(struct sim *s, const struct trace_event *ev, uint32_t acct)
{
	const struct cache_acct *a = &s->acct[acct];
	if (!(s->strings_stable && ev->name == a->name_seen && s->ids_of == a->name_space))
		check_free_name_slow(s, ev, acct);
}

static inline __attribute__((always_inline)) int
on_free(struct sim *s, const struct trace_event *ev, uint32_t hint, struct err *e)
{
	uint32_t cpu = fold_cpu(s, ev);

	/* perf sees every free; the live object goes unless the pointer is
	 * NULL or ZERO_SIZE_PTR */
	uint32_t slot = live_find_hint(s, ev->ptr, hint);
	bool obj = false;
	live_perf_free(s, slot, ev);
	if (slot != IXMAP_NONE) {
		struct live *l = &s->pool[slot];
		if (ev->ptr > ZERO_SIZE_PTR) {
			obj = l->has_obj;
			l->has_obj = false;
		} else if (!l->has_obj && !l->freed && !l->has_rec) {
			live_remove(s, slot);
		}
	}
	if (ev->ptr == 0) {
		anomaly(s, SIM_AN_FREE_NULL, ev->line);
		return 0;
	}
	if (ev->ptr <= ZERO_SIZE_PTR) {
		anomaly(s, SIM_AN_FREE_ZERO_SIZE, ev->line);
		return 0;
	}
	/* the entry stays: it says the pointer was freed */
	bool again;
	int rc = untraced_note_free(s, ev->ptr, slot, &again, e);
	if (rc)
		return rc;
	if (obj && s->pgf.on && (rc = pgf_live(&s->pgf, ev->ptr, -1, e)))
		return rc;
	/* only traces with page frees pay for the vote (from their first on) */
	if (s->pgf.on && !s->pgf.base_known && (rc = pgf_note_free(&s->pgf, ev->cpu, ev->ptr, e)))
		return rc;
	if (!obj) {
		anomaly(s, SIM_AN_FREE_UNKNOWN, ev->line);
		uint32_t cid;
		if (ev->name ? !sim_find_cache(s, ev->name, &cid)
			     : !slab_cache_of(s, ev->ptr, &cid)) {
			s->unattributed_frees++;
			return 0;
		}
		struct policy_cache_info ci;
		s->p->ops->cache_info(s->p, cid, &ci);
		struct cache_acct *a = &s->acct[ci.alias_of];
		if (ev->name && s->ncands && is_raw_ptr(ev->ptr) &&
		    u64map_put(&s->name_slab,
			       ev->ptr & ~(((uint64_t)POLICY_PAGE_SIZE << ci.g.order) - 1),
			       (uint64_t)ci.alias_of + 1))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		if (again) {
			/* freed before with no allocation between: an untraced
			 * allocation, not an object of the start state */
			uint32_t idx;
			rc = untraced_alloc(s, cid, ci.alias_of, &ci, cpu, ev->ptr, &idx, e);
			if (rc == SLABSIM_EUSAGE) {
				/* a cache the policy serves by size only
				 * (SLOB's kmalloc): counted, not modelled */
				err_clear(e);
				a->untraced_frees++;
				return 0;
			}
			if (rc)
				return rc;
			return do_free(s, idx, cpu, e);
		}
		if (!a->npre) {
			/* bulk allocations (6.1) emit no event */
			a->untraced_frees++;
			return 0;
		}
		/* an object of the start state: counts, not addresses, were
		 * recorded; a raw pointer's slab says which start slab */
		uint32_t idx;
		if (!pre_from_slab(s, ci.alias_of, &ci, ev->ptr, &idx, e)) {
			uint32_t j = (uint32_t)gsl_rng_uniform_int(s->rng, a->npre);
			idx = take_pre(s, a, j);
		}
		a->pre_freed++;
		return do_free(s, idx, cpu, e);
	}
	uint32_t acct = live_acct(s, &s->pool[slot]);
	if (ev->name && acct != UINT32_MAX)
		check_free_name(s, ev, acct);
	/* pages only fall on a free: no peak to update */
	return do_free(s, slot, cpu, e);
}

/* ---- frees the trace does not show ----
 *
 * A 6.18 trace shows no free of a maple_node: kfree_rcu (ma_free_rcu of a
 * replaced node) and kmem_cache_free_bulk (__mt_destroy at exit_mmap) emit
 * no event. The first kind is inferred where the pointer is allocated again
 * (on_alloc: freed_at_reuse). The second is modelled by mmfree.h: it tells
 * which mm each node belongs to and when that mm is torn down, and the
 * engine then frees the mm's nodes still live, on the CPU of the event that
 * showed the teardown, at its time: mt_free_bulk hands them to
 * kmem_cache_free_bulk, whose free_to_pcs_bulk fills the CPU's main sheaf
 * as free_to_pcs does one object at a time (modelled so: the policy's
 * free, object by object, in the tree's allocation order). */

/* The kind of root cache acct (mmfree.h), looked up once. */
static enum mmf_kind mmf_kind_of_acct(struct sim *s, uint32_t acct)
{
	struct cache_acct *a = &s->acct[acct];
	if (!a->mmf_kind) {
		struct policy_cache_info ci;
		s->p->ops->cache_info(s->p, acct, &ci);
		a->mmf_kind = (uint8_t)(1 + mmf_kind_of(ci.name));
	}
	return (enum mmf_kind)(a->mmf_kind - 1);
}

/* The kind of the object live at ev's pointer, else of the cache the
 * event names; *entry: in, a hint of the pointer's entry (live_find_hint);
 * out, its entry. */
static enum mmf_kind mmf_kind_at(struct sim *s, const struct trace_event *ev, uint32_t *entry)
{
	uint32_t ix = *entry = live_find_hint(s, ev->ptr, *entry);
	if (ix != IXMAP_NONE && s->pool[ix].has_obj) {
		uint32_t acct = live_acct(s, &s->pool[ix]);
		return acct == UINT32_MAX ? MMF_OTHER : mmf_kind_of_acct(s, acct);
	}
	return mmf_kind_of(ev->name);
}

static const char *mmf_site(struct sim *s, const struct trace_event *ev)
{
	uint32_t site;
	return event_site(s, ev, &site) ? "" : strtab_str(&s->sites, site);
}

/* Why mmf_free_node frees a node. */
enum mmf_why {
	MMF_TEARDOWN, /* exit_mmap's bulk free */
	MMF_TRIM,     /* beyond the tree a fork copied: kfree_rcu */
	MMF_BOUND,    /* beyond the bound of a tree that shrank: kfree_rcu */
};

struct mmf_ctx {
	struct sim *s;
	uint32_t cpu;
	enum mmf_why why;
};

/* The live object at ptr, if it is a maple node (the address may hold an
 * object of another cache by now, the node's slab freed and its page
 * reused: only a node is the tree's): its pool index, else IXMAP_NONE. */
static uint32_t mmf_live_node(struct sim *s, uint64_t ptr, uint32_t *acct)
{
	uint32_t idx = live_find(s, ptr);
	if (idx == IXMAP_NONE || !s->pool[idx].has_obj)
		return IXMAP_NONE;
	*acct = live_acct(s, &s->pool[idx]);
	if (*acct == UINT32_MAX || mmf_kind_of_acct(s, *acct) != MMF_NODE)
		return IXMAP_NONE;
	return idx;
}

static bool mmf_node_alive(void *ctx, uint64_t ptr)
{
	uint32_t acct;
	return mmf_live_node(((struct mmf_ctx *)ctx)->s, ptr, &acct) != IXMAP_NONE;
}

/* mmf_teardown's callback: free the node live at ptr, if it still is. */
static int mmf_free_node(void *ctx, uint64_t ptr, struct err *e)
{
	struct mmf_ctx *c = ctx;
	struct sim *s = c->s;
	uint32_t acct, idx = mmf_live_node(s, ptr, &acct);
	if (idx == IXMAP_NONE)
		return 0;
	s->pool[idx].has_obj = false;
	int rc0 = s->pgf.on ? pgf_live(&s->pgf, ptr, -1, e) : 0;
	if (rc0)
		return rc0;
	{
		struct cache_acct *a = &s->acct[acct];
		a->freed_at_dup += c->why == MMF_TRIM;
		a->freed_at_bound += c->why == MMF_BOUND;
		a->freed_at_teardown += c->why == MMF_TEARDOWN;
	}
	bool again;
	int rc = untraced_note_free(s, ptr, idx, &again, e);
	return rc ? rc
		  : do_free_via(s, idx, c->cpu, c->why == MMF_TEARDOWN ? VIA_BULK : VIA_RCU, e);
}

/* A fork burst showed the size of the parent's tree (mmf_trim): the traced
 * nodes the model holds beyond it were replaced and freed through
 * kfree_rcu; freed now, on the CPU of the event that ended the burst. */
static int mmf_on_trim(struct sim *s, const struct trace_event *ev, struct err *e)
{
	uint32_t mm, keep;
	if (!mmf_trim_pending(&s->mmf, &mm, &keep))
		return 0;
	struct mmf_ctx c = {.s = s, .cpu = fold_cpu(s, ev), .why = MMF_TRIM};
	return mmf_trim(&s->mmf, mm, keep, mmf_free_node, &c, e);
}

/* ---- frees proven by a page free (pgfree.h) ---- */

struct pgf_ctx {
	struct sim *s;
};

static bool pgf_live_at(void *ctx, uint64_t ptr)
{
	struct pgf_ctx *c = ctx;
	uint32_t ix = live_find(c->s, ptr);
	return ix != IXMAP_NONE && c->s->pool[ix].has_obj;
}

/* pgf_page_free's callback: the object live at ptr was freed by a path the
 * trace does not show, and its slab is gone: free it to its slab in the
 * model, on the CPU that discarded the slab. */
static int pgf_kill(void *ctx, uint64_t ptr, uint32_t cpu, struct err *e)
{
	struct pgf_ctx *c = ctx;
	struct sim *s = c->s;
	uint32_t idx = live_find(s, ptr);
	s->pool[idx].has_obj = false;
	uint32_t acct = live_acct(s, &s->pool[idx]);
	if (acct != UINT32_MAX)
		s->acct[acct].freed_at_page_free++;
	bool again;
	int rc = pgf_live(&s->pgf, ptr, -1, e);
	if (!rc)
		rc = untraced_note_free(s, ptr, idx, &again, e);
	/* the CPU of the page free (folded as its event was, with no new
	 * anomaly: that event counted it) */
	return rc ? rc : do_free_via(s, idx, cpu % s->o.cfg.nr_cpus, VIA_SLAB, e);
}

/* pgf_page_free's callback for every page freed: when a model slab holds
 * the objects placed at that kernel slab (policy_ops.bound_slab), the
 * kernel's held none in use, so its start objects died too (by paths the
 * trace does not show: they are freed to the slab, counted as page-free
 * frees), and none of its objects was parked (unpark_slab). */
static int pgf_gone(void *ctx, uint64_t page, uint32_t cpu, struct err *e)
{
	struct pgf_ctx *c = ctx;
	struct sim *s = c->s;
	uint64_t base, v;
	uint32_t cache;
	if (!s->p->ops->bound_slab || !s->p->ops->bound_slab(s->p, page, &base, &cache))
		return 0;
	cpu %= s->o.cfg.nr_cpus;
	struct policy_cache_info ci;
	s->p->ops->cache_info(s->p, cache, &ci);
	if (ci.alias_of < s->acct_cap && s->acct[ci.alias_of].npslabs) {
		struct cache_acct *a = &s->acct[ci.alias_of];
		for (uint32_t i = 0; i < ci.g.objs_per_slab && a->npre; i++) {
			uint64_t at = base + ci.g.red_left_pad + (uint64_t)i * ci.g.size;
			if (!u64map_get(&s->pre_addr, at, &v))
				continue;
			uint32_t idx = take_pre(s, a, (uint32_t)s->pool[v].ptr);
			a->pre_freed++;
			a->freed_at_page_free++;
			int rc = do_free_via(s, idx, cpu, VIA_SLAB, e);
			if (rc)
				return rc;
		}
	}
	return s->p->ops->unpark_slab ? s->p->ops->unpark_slab(s->p, cache, base, cpu, e) : 0;
}

/* The first page free: count the pointers live until now. */
static int pgf_begin(struct sim *s, struct err *e)
{
	pgf_start(&s->pgf);
	for (uint32_t i = 0; i < s->pool_len; i++) {
		const struct live *l = &s->pool[i];
		int rc = l->in_index && l->has_obj ? pgf_live(&s->pgf, l->ptr, +1, e) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

/* policy_pages_ahead.freed_soon: a free of the page at kernel address
 * kaddr in the window ahead (false once the replay ended). */
static bool page_freed_soon(const void *ctx, uint64_t kaddr)
{
	const struct sim *s = ctx;
	return ahead_page_freed(&s->ahead, kaddr - s->pgf.base);
}

/* ahead_on_enter's callback: a free of the page at physical address phys
 * came into the window (policy_ops.page_free_ahead). */
static void page_free_coming(void *ctx, uint64_t phys)
{
	struct sim *s = ctx; /* set once the base is known (on_page_free) */
	s->p->ops->page_free_ahead(s->p, phys + s->pgf.base);
}

static int on_page_free(struct sim *s, const struct trace_event *ev, struct err *e)
{
	int rc = s->pgf.on ? 0 : pgf_begin(s, e);
	if (rc)
		return rc;
	(void)fold_cpu(s, ev); /* counts a CPU beyond the model's */
	struct pgf_ctx c = {.s = s};
	uint64_t killed;
	rc = pgf_page_free(&s->pgf, ev->cpu, ev->ptr, ev->bytes_alloc, pgf_live_at, pgf_kill,
			   pgf_gone, &c, &killed, e);
	/* from the base on (the page frees kept until it was found applied
	 * first, under the old rule: none of their slabs is told gone), every
	 * kernel slab's end is in the trace */
	if (!rc && s->pgf.base_known && !s->pages_told) {
		s->pages_told = true;
		struct policy_pages_ahead pa = {page_freed_soon, s};
		ahead_arm(&s->ahead);
		if (s->p->ops->page_free_ahead && ahead_on(&s->ahead))
			ahead_on_enter(&s->ahead, page_free_coming, s, AHEAD_DISCARD_NS);
		if (s->p->ops->pages_traced)
			s->p->ops->pages_traced(s->p, ahead_on(&s->ahead) ? &pa : NULL);
	}
	return rc;
}

/* A slab event of kind k on ev's CPU: whether the task was in its VMA work
 * there (the kernel's VMA code allocates the VMA and its companions, then
 * stores into the tree, on one CPU under mmap_lock; a node changes
 * nothing, nor does a free of NULL), and the CPU's mark updated. The CPU
 * is folded as fold_cpu does, without counting the anomaly again. */
static inline bool mmf_vma_work(struct sim *s, const struct trace_event *ev, enum mmf_kind k)
{
	uint32_t cpu = ev->cpu < s->o.cfg.nr_cpus ? ev->cpu : ev->cpu % s->o.cfg.nr_cpus;
	bool in_vma = ev->pid >= 0 && s->vma_work[cpu] == ev->pid;
	if (k == MMF_VMA || k == MMF_VMA_AUX)
		s->vma_work[cpu] = ev->pid;
	else if (k != MMF_NODE && ev->ptr)
		s->vma_work[cpu] = -1;
	return in_vma;
}

/* An allocation the engine took (on_alloc): tell the mm model. */
static int mmf_on_alloc(struct sim *s, const struct trace_event *ev, struct err *e)
{
	uint32_t entry = s->alloc_entry;
	enum mmf_kind k =
		ev->type == TRACE_EV_KMALLOC || ev->type == TRACE_EV_KMALLOC_NODE || !ev->ptr
			? MMF_OTHER
			: mmf_kind_at(s, ev, &entry);
	bool in_vma = mmf_vma_work(s, ev, k);
	if (ev->pid < 0 || !ev->ptr)
		return 0;
	if ((k == MMF_OTHER || k == MMF_VMA_AUX) && !u64map_len(&s->mmf.fork))
		return 0; /* only an open fork burst looks at other allocations */
	int rc = mmf_alloc(&s->mmf, k, ev->pid, ev->ptr, mmf_site(s, ev), in_vma, e);
	return rc ? rc : mmf_on_trim(s, ev, e);
}

/* A traced free of kind k (looked up before on_free took the object): tell
 * the mm model, and free the nodes of an mm it says is torn down. */
static int mmf_on_free(struct sim *s, const struct trace_event *ev, enum mmf_kind k, struct err *e)
{
	uint32_t mm;
	int rc = mmf_free(&s->mmf, k, ev->pid, ev->ptr, mmf_site(s, ev), &mm, e);
	if (rc || (rc = mmf_on_trim(s, ev, e)))
		return rc;
	uint32_t bmm, keep;
	if (mmf_bound_pending(&s->mmf, &bmm, &keep)) {
		struct mmf_ctx c = {.s = s, .cpu = fold_cpu(s, ev), .why = MMF_BOUND};
		if ((rc = mmf_bound(&s->mmf, bmm, keep, mmf_node_alive, mmf_free_node, &c, e)))
			return rc;
	}
	if (mm == UINT32_MAX)
		return 0;
	struct mmf_ctx c = {.s = s, .cpu = fold_cpu(s, ev), .why = MMF_TEARDOWN};
	return mmf_teardown(&s->mmf, mm, mmf_free_node, &c, e);
}

/* ---- totals and sampling ---- */

struct waste {
	uint64_t rounding, layout, free, tail;
};

/* The waste of root cache id, from the engine's sums over its live objects
 * and the policy's tail and internal bytes; free is what remains of its
 * pages (0 for allocators whose pages are not per cache). */
static struct waste cache_waste(const struct sim *s, uint32_t id,
				const struct policy_cache_info *ci)
{
	const struct cache_acct *a = &s->acct[id];
	struct waste w = {
		.rounding = a->live_object - a->live_req,
		.layout = a->live_meta + ci->internal_bytes,
		.tail = ci->tail_bytes,
	};
	uint64_t bytes = ci->nr_pages * POLICY_PAGE_SIZE;
	if (bytes)
		w.free = bytes - a->live_slot - ci->tail_bytes - ci->internal_bytes;
	return w;
}

/* sim_totals in three parts, for take_sample's walk over the caches: all
 * but the root caches' and the call sites' sums (*st: the policy's stats,
 * for totals_end) */
static void totals_begin(const struct sim *s, struct sim_totals *out, struct policy_stats *st)
{
	memset(out, 0, sizeof(*out));
	_Static_assert(TRACE_EV_NR <= sizeof(out->events) / sizeof(out->events[0]),
		       "sim_totals holds every event type");
	for (int i = 0; i < TRACE_EV_NR; i++)
		out->events[i] = s->events[i];
	memcpy(out->anomalies, s->anomalies, sizeof(out->anomalies));
	out->live_objs = s->live_objs;
	out->live_req_bytes = s->live_req;
	s->p->ops->stats(s->p, st);
	out->slab_pages = st->slab_pages;
	out->large_pages = st->large_pages;
	out->placed_parked_rehomed = st->parked_rehomed;
	out->peak_slab_pages = s->peak_slab_pages;
	out->peak_slab_pages_t_ns = s->peak_slab_pages_t_ns;
	out->align_violations = s->violations_total;
	out->listed_sites = s->listed_sites;
	out->listed_allocs = s->listed_allocs;
	out->listed_violations = s->listed_violations;
	out->samples = s->nsamples;
	out->alloc_size_mismatch = s->alloc_size_mismatch;
	out->page_frees = s->pgf.page_frees;
	out->page_frees_before_base = s->pgf.before_base;
	out->page_base_known = s->pgf.base_known;
	out->placed_outside = s->placed_outside;
	out->placed_traded = s->placed_traded;
	out->placed_start_dropped = s->placed_start_dropped;
	out->placed_start_moved = s->placed_start_moved;
	out->page_base = s->pgf.base;
}

/* What root cache id (ci, its info) adds to the sums. */
static struct waste_sums cache_sums(const struct sim *s, uint32_t id,
				    const struct policy_cache_info *ci)
{
	struct waste w = cache_waste(s, id, ci);
	return (struct waste_sums){
		.rounding = w.rounding,
		.layout = w.layout,
		.tail = w.tail,
		.live_slot = s->acct[id].live_slot,
		.free_slots = ci->g.objs_per_slab
				      ? (ci->total_objects - ci->inuse_objects) * ci->g.size
				      : 0,
		.parked = ci->parked_objects,
	};
}

static void totals_add(struct sim_totals *out, const struct waste_sums *w, bool sheaf)
{
	out->waste_rounding += w->rounding;
	out->waste_layout += w->layout;
	out->waste_tail += w->tail;
	out->live_slot_bytes += w->live_slot;
	out->free_slots_by_count += w->free_slots;
	out->sheaf_caches += sheaf;
	out->parked_objs += w->parked;
}

/* Root cache id (ci, its info) into the sums. */
static void totals_cache(const struct sim *s, uint32_t id, const struct policy_cache_info *ci,
			 struct sim_totals *out)
{
	struct waste_sums w = cache_sums(s, id, ci);
	totals_add(out, &w, ci->g.sheaf_capacity != 0);
}

static void totals_end(const struct sim *s, const struct policy_stats *st, struct sim_totals *out)
{
	/* large kmallocs: the page rounding is their only waste */
	out->waste_rounding += s->large_live_bytes - s->large_live_req;
	out->waste_layout += st->shared_internal_bytes;
	out->waste_tail += st->shared_tail_bytes;
	out->slab_bytes = (st->slab_pages + st->large_pages) * POLICY_PAGE_SIZE;
	/* free is the remainder: what no live object, tail or metadata holds */
	out->waste_free_slots = out->slab_bytes - out->live_req_bytes - out->waste_rounding -
				out->waste_layout - out->waste_tail;
}

void sim_totals(const struct sim *s, struct sim_totals *out)
{
	struct policy_stats st;
	totals_begin(s, out, &st);
	/* the sites' sums (not in a sample's row): a saturating sum of
	 * saturated sums is the saturated total, and no allocation adds to
	 * them elsewhere */
	for (uint32_t i = 0; i < s->sites.n && i < s->site_cap; i++) {
		const struct site_acct *sa = &s->site[i];
		out->bytes_req_total = sat_add(out->bytes_req_total, sa->bytes_req);
		out->bytes_alloc_trace_total =
			sat_add(out->bytes_alloc_trace_total, sa->bytes_alloc_trace);
		out->bytes_alloc_model_total =
			sat_add(out->bytes_alloc_model_total, sa->bytes_alloc);
	}
	uint32_t n = s->p->ops->nr_caches(s->p);
	for (uint32_t id = 0; id < n; id++) {
		struct policy_cache_info ci;
		s->p->ops->cache_info(s->p, id, &ci);
		if (ci.alias_of == id)
			totals_cache(s, id, &ci, out);
	}
	totals_end(s, &st, out);
}

/* A sink set anew starts with no rows sent: take_sample sends every
 * cache's first row that is not all zeros. */
static void sample_forget(struct sim *s)
{
	if (s->slast)
		memset(s->slast, 0, s->slast_cap * sizeof(*s->slast));
	s->smemo_caches = 0; /* the memo does not send rows again */
}

/* Root cache id's rows last sent, under its name now: a cache seen under
 * another name starts from zeros, as a new key of the recorder's change
 * log does. NULL: out of memory. */
static struct sample_last *sample_last_of(struct sim *s, uint32_t id, const char *name)
{
	if (id >= s->slast_cap) {
		struct sample_last *n = grow_to(s->slast, &s->slast_cap, id, sizeof(*n), 64);
		if (!n)
			return NULL;
		s->slast = n; /* grow_to zeroes what it adds */
	}
	struct sample_last *sl = &s->slast[id];
	if (sl->name != name) {
		if (!sl->name || !name || strcmp(sl->name, name))
			*sl = (struct sample_last){0};
		sl->name = name;
	}
	return sl;
}

/* Whether row v[0..n) differs from last[0..n), which it then becomes. */
static bool sample_changed(uint64_t *last, const uint64_t *v, size_t n)
{
	if (!memcmp(last, v, n * sizeof(*v)))
		return false;
	memcpy(last, v, n * sizeof(*v));
	return true;
}

/* A sample: the run's totals, then, per root cache, its slabinfo figures and
 * its cache row, in one walk over the caches (one cache_info each). The
 * recorder keeps only the per-cache rows that changed (docs/schema.md), so
 * a row equal to its cache's last one is not handed on: the database is the
 * same, and a sample costs the caches that changed, not every cache, in
 * rows and SQLite statements. The rows that changed are then handed on in
 * the sink's order (sink.h), from slast. */
static int take_sample(struct sim *s, const char *label, struct err *e)
{
	struct sim_totals t;
	struct policy_stats pst;
	struct metrics_slabinfo_totals st = {0};
	uint64_t seq = s->nsamples++;
	int rc;
	if (!s->sink)
		return 0; /* counted only: the totals walk every cache */
	totals_begin(s, &t, &pst);
	uint32_t n = s->p->ops->nr_caches(s->p);
	bool rows = s->o.sample_caches;
	void (*counts)(const struct policy *, uint32_t, struct policy_cache_counts *) =
		s->p->ops->cache_counts;
	if (counts && (n != s->smemo_caches || n > s->smemo_cap)) {
		/* a cache created since: its merge may have changed a root */
		if (n > s->smemo_cap) {
			struct sample_memo *m =
				grow_to(s->smemo, &s->smemo_cap, n - 1, sizeof(*m), 64);
			if (!m)
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			s->smemo = m;
		}
		memset(s->smemo, 0, s->smemo_cap * sizeof(*s->smemo));
		s->smemo_caches = n;
	}
	for (uint32_t id = 0; id < n; id++) {
		struct sample_memo *mo = counts ? &s->smemo[id] : NULL;
		struct sample_key key;
		if (mo && mo->alias)
			continue;
		if (mo) {
			const struct cache_acct *a = &s->acct[id];
			key = (struct sample_key){.live_objs = a->live_objs,
						  .live_req = a->live_req,
						  .live_slot = a->live_slot,
						  .live_meta = a->live_meta,
						  .live_object = a->live_object};
			counts(s->p, id, &key.cnt);
		}
		if (mo && mo->valid) {
			if (!memcmp(&key, &mo->key, sizeof(key))) {
				/* as at the last sample: its rows were sent then
				 * (send_c and send_si stay false) */
				totals_add(&t, &mo->sum, mo->sheaf);
				if (mo->slab_root)
					metrics_slabinfo_total_add(&st, &mo->si);
				continue;
			}
		}
		struct policy_cache_info ci;
		s->p->ops->cache_info(s->p, id, &ci);
		if (mo) {
			mo->valid = true;
			mo->alias = ci.alias_of != id;
		}
		if (ci.alias_of != id)
			continue;
		struct waste_sums sum = cache_sums(s, id, &ci);
		totals_add(&t, &sum, ci.g.sheaf_capacity != 0);
		struct sample_last *sl = NULL;
		if (rows && !(sl = sample_last_of(s, id, ci.name)))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		bool slab_root = metrics_slab_root(s->p, &ci, id);
		if (mo) {
			mo->key = key;
			mo->sum = sum;
			mo->sheaf = ci.g.sheaf_capacity != 0;
			mo->slab_root = slab_root;
		}
		if (slab_root) {
			struct metrics_slabinfo si;
			metrics_slabinfo_cache(&ci, &si);
			metrics_slabinfo_total_add(&st, &si);
			if (mo)
				mo->si = si;
			/* a cache without slabs: a row of zeros */
			uint64_t v[6] = {0};
			if (ci.nr_slabs) {
				v[0] = si.slabs;
				v[1] = si.partial;
				v[2] = si.objects;
				v[3] = si.objects_partial;
				v[4] = si.space;
				v[5] = si.used;
			}
			if (sl)
				sl->send_si = sample_changed(sl->si, v, 6);
		}
		if (!sl)
			continue;
		/* every root cache; one that holds nothing: zeros */
		uint64_t v[4] = {0};
		if (ci.nr_slabs || s->acct[id].live_objs) {
			v[0] = ci.nr_slabs;
			v[1] = ci.nr_pages;
			v[2] = s->acct[id].live_objs;
			v[3] = s->acct[id].live_req;
		}
		sl->send_c = sample_changed(sl->c, v, 4);
	}
	totals_end(s, &pst, &t);
	struct sink_sample row = {
		.seq = seq,
		.t_ns = s->now_ns,
		.event_idx = s->nevents,
		.label = label,
		.slab_pages = t.slab_pages,
		.large_pages = t.large_pages,
		.live_objs = t.live_objs,
		.live_req_bytes = t.live_req_bytes,
		.waste_rounding = t.waste_rounding,
		.waste_layout = t.waste_layout,
		.waste_free_slots = t.waste_free_slots,
		.waste_tail = t.waste_tail,
		.sheaves = t.sheaf_caches != 0,
		.parked_objs = t.parked_objs,
	};
	/* slast covers every root cache when rows (else it is not read) */
	uint32_t m = rows ? (uint32_t)(s->slast_cap < n ? s->slast_cap : n) : 0;
	rc = SINK_EMIT(s->sink, sample, &row, e);
	for (uint32_t id = 0; !rc && id < m; id++) {
		struct sample_last *sl = &s->slast[id];
		if (!sl->send_si)
			continue;
		sl->send_si = false;
		struct sink_sample_slabinfo r = {seq,	    sl->name,  sl->si[0], sl->si[1],
						 sl->si[2], sl->si[3], sl->si[4], sl->si[5]};
		rc = SINK_EMIT(s->sink, sample_slabinfo, &r, e);
	}
	if (!rc)
		rc = metrics_sample_rest(s->m, s->p, s->sink, seq, t.slab_bytes, &st, e);
	for (uint32_t id = 0; !rc && id < m; id++) {
		struct sample_last *sl = &s->slast[id];
		if (!sl->send_c)
			continue;
		sl->send_c = false;
		struct sink_sample_cache r = {seq,	sl->name, sl->c[0],
					      sl->c[1], sl->c[2], sl->c[3]};
		rc = SINK_EMIT(s->sink, sample_cache, &r, e);
	}
	return rc;
}

static int maybe_sample(struct sim *s, struct err *e)
{
	bool due = false;
	/* the period tested second: unused, its next sample is never reached */
	if (s->nevents >= s->next_sample_ev && s->o.sample_every_events) {
		due = true;
		s->next_sample_ev = s->nevents + s->o.sample_every_events;
	}
	if (s->now_ns >= s->next_sample_ns && s->o.sample_every_ns) {
		due = true;
		/* one sample per gap, however long the gap */
		uint64_t k = (s->now_ns - s->next_sample_ns) / s->o.sample_every_ns + 1;
		s->next_sample_ns += k * s->o.sample_every_ns;
	}
	return due ? take_sample(s, NULL, e) : 0;
}

enum { SIM_EV_TIMER = 1 };

static int run_timer(struct sim *s, uint64_t t_ns, struct err *e)
{
	uint64_t next = UINT64_MAX;
	int rc = s->p->ops->timer(s->p, t_ns, &next, e);
	s->timer_runs++;
	if (!rc)
		metrics_observe_now(s);
	if (!rc && next != UINT64_MAX &&
	    evq_push(&s->q, next > t_ns ? next : t_ns + 1, SIM_EV_TIMER, 0))
		rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
	return rc;
}

/* Run the scheduled work due at or before t_ns, in time order (the caller
 * skips it for policies without timers: a call per event). */
static int advance_to(struct sim *s, uint64_t t_ns, struct err *e)
{
	struct evq_item it;
	while (evq_peek(&s->q, &it) && it.t_ns <= t_ns) {
		evq_pop(&s->q, &it);
		if (it.t_ns > s->now_ns)
			s->now_ns = it.t_ns;
		int rc = run_timer(s, it.t_ns, e);
		if (rc)
			return rc;
	}
	/* an idle timer asked for no time (UINT64_MAX): it runs at this
	 * event, before it, and catches up what is due */
	return evq_len(&s->q) || !s->started ? 0 : run_timer(s, t_ns, e);
}

/* e's message prefixed with what and the event's place in the input; out
 * of line, so that the per-event path carries no message buffer. */
__attribute__((noinline, cold)) static int event_error(struct sim *s, const struct trace_event *ev,
						       int rc, const char *what, struct err *e)
{
	char why[SLABSIM_ERR_MSG_MAX];
	(void)snprintf(why, sizeof(why), "%s", e ? e->msg : "");
	return err_at(e, rc, s->src, ev->line, "%s%s", what, why);
}

static int other_event(struct sim *s, const struct trace_event *ev, struct err *e);

/* What apply_event does before an event when pre_event says so: the
 * start of the clock, the timers due, the page frees ahead. Inline: the
 * 6.18 and 7.0 profiles read page frees ahead, so run it at every event. */
static inline __attribute__((always_inline)) int
pre_event(struct sim *s, const struct trace_event *ev, struct err *e)
{
	int rc;
	if (!s->started) {
		s->started = true;
		note_pre_event(s);
		s->t_first_ns = s->now_ns = ev->t_ns;
		s->next_sample_ns =
			s->o.sample_every_ns ? ev->t_ns + s->o.sample_every_ns : UINT64_MAX;
		s->next_sample_ev =
			s->o.sample_every_events ? s->o.sample_every_events : UINT64_MAX;
		if (s->p->ops->timer && (rc = run_timer(s, ev->t_ns, e)))
			return rc;
	}
	if (s->has_timer && (rc = advance_to(s, ev->t_ns, e)))
		return rc;
	if (ahead_on(&s->ahead) && (rc = ahead_step(&s->ahead, ev->t_ns, e)))
		return rc;
	return 0;
}

/* sim_event, inline in the replay loop; km: the memo of ev's key
 * (replay_evarr), NULL for none */
static inline __attribute__((always_inline)) int
apply_event(struct sim *s, const struct trace_event *ev, struct key_memo *km, struct err *e)
{
	int rc = 0;
	if (__builtin_expect(s->pre_event, 0) && (rc = pre_event(s, ev, e)))
		return rc;
	if (ev->t_ns < s->now_ns)
		anomaly(s, SIM_AN_TIME_BACKWARDS, ev->line);
	else
		s->now_ns = ev->t_ns;
	if (ev->type < TRACE_EV_NR)
		s->events[ev->type]++;
	/* allocations, then frees, by range (the enum orders them so): two
	 * compares where the switch took five */
	_Static_assert(TRACE_EV_KMALLOC == 0 && TRACE_EV_KMALLOC_NODE == 1 &&
			       TRACE_EV_CACHE_ALLOC == 2 && TRACE_EV_CACHE_ALLOC_NODE == 3 &&
			       TRACE_EV_KFREE == 4 && TRACE_EV_CACHE_FREE == 5,
		       "allocation and free events are two ranges");
	if (ev->type <= TRACE_EV_CACHE_ALLOC_NODE) {
		rc = on_alloc(s, ev, km, e);
		if (!rc && s->mmf_on)
			rc = mmf_on_alloc(s, ev, e);
	} else if (ev->type <= TRACE_EV_CACHE_FREE) {
		if (!s->mmf_on) { /* no hint: on_free's lookup, as a constant */
			rc = on_free(s, ev, IXMAP_NONE, e);
		} else {
			/* mmf_kind_at's lookup is on_free's hint */
			uint32_t entry = IXMAP_NONE;
			enum mmf_kind k = ev->pid >= 0 && ev->ptr > ZERO_SIZE_PTR
						  ? mmf_kind_at(s, ev, &entry)
						  : MMF_OTHER;
			if (ev->ptr > ZERO_SIZE_PTR)
				(void)mmf_vma_work(s, ev, k);
			rc = on_free(s, ev, entry, e);
			if (!rc && k != MMF_OTHER && k != MMF_VMA_AUX)
				rc = mmf_on_free(s, ev, k, e);
		}
	} else {
		return other_event(s, ev, e);
	}
	if (rc) /* name the event's place in the input */
		return event_error(s, ev, rc, "", e);
	s->nevents++;
	metrics_observe_now(s);
	if (s->o.check && (rc = s->p->ops->check(s->p, e)))
		return event_error(s, ev, rc, "model invariant broken after this event: ", e);
	return maybe_sample(s, e);
}

/* apply_event's events that are neither allocations nor frees */
__attribute__((noinline)) static int other_event(struct sim *s, const struct trace_event *ev,
						 struct err *e)
{
	int rc;
	switch (ev->type) {
	case TRACE_EV_PAGE_FREE:
		/* not a slab event: no event count, no sample by count */
		if ((rc = on_page_free(s, ev, e)))
			return event_error(s, ev, rc, "", e);
		metrics_observe_now(s);
		return 0;
	case TRACE_EV_PAGE_ALLOC:
		/* the same; a slab on this page is one made since (pgfree.h) */
		if ((rc = pgf_page_alloc(&s->pgf, ev->ptr, ev->bytes_alloc, e)))
			return event_error(s, ev, rc, "", e);
		metrics_observe_now(s);
		return 0;
	case TRACE_EV_MARKER:
		s->seen_valid = false; /* on_marker may change the model */
		/* a capture's SNAP-READ (record: its snapshot's read begins) is
		 * the capture's bookkeeping, not a phase: no sample */
		if (!capture_snap_read_id(ev->text) && (rc = take_sample(s, ev->text, e)))
			return rc;
		return s->o.on_marker ? s->o.on_marker(s->o.marker_ctx, s, ev, e) : 0;
	default:
		return 0;
	}
}

int sim_event(struct sim *s, const struct trace_event *ev, struct err *e)
{
	return apply_event(s, ev, NULL, e);
}

void sim_push_begin(struct sim *s, const struct sink *k, const char *name)
{
	sample_forget(s);
	s->sink = k;
	s->src = name ? name : "events";
}

/* The page frees ahead, for the caches placed by address whose pages go
 * back a grace period late (policy_ops.pages_traced): the 6.18 and 7.0
 * profiles'. src NULL: none. */
static bool start_ahead(struct sim *s, const struct trace_source *src)
{
	bool want = s->p->ops->pages_traced && s->o.cfg.kernel >= POLICY_KERNEL_6_18;
	ahead_start(&s->ahead, want ? src : NULL, AHEAD_WINDOW_NS);
	note_pre_event(s);
	return want;
}

bool sim_push_ahead(struct sim *s, const struct trace_source *src)
{
	return start_ahead(s, src);
}

uint64_t sim_ahead_window_ns(void)
{
	return AHEAD_WINDOW_NS;
}

int sim_push_end(struct sim *s, struct err *e)
{
	ahead_start(&s->ahead, NULL, 0); /* src goes with the caller */
	note_pre_event(s);
	return take_sample(s, "end", e);
}

/* A progress bar on a terminal: what is being done, how far through the
 * input (when its size is known), events per second and the time left. */
struct progress {
	const char *what;
	struct timespec t0;
	uint64_t last; /* event count at the last redraw */
	bool drawn;
};

static void progress_start(struct progress *pg, const char *what)
{
	pg->what = what;
	pg->last = 0;
	pg->drawn = false;
	clock_gettime(CLOCK_MONOTONIC, &pg->t0);
}

/* Hand the bar's figures to the caller's drawer (sim_opts.on_progress):
 * every 65536 events, and once at the end if it was drawn at all. */
static void progress_draw(const struct sim *s, struct progress *pg, const struct trace_source *src,
			  uint64_t n, bool final)
{
	if (!s->o.progress || !s->o.on_progress || (!final && n - pg->last < (1u << 16)) ||
	    (final && !pg->drawn))
		return;
	struct sim_progress p = {.what = pg->what, .events = n, .final = final};
	struct timespec now;
	pg->last = n;
	if (src->progress)
		src->progress(src->ctx, &p.done, &p.total);
	clock_gettime(CLOCK_MONOTONIC, &now);
	p.elapsed =
		(double)(now.tv_sec - pg->t0.tv_sec) + (double)(now.tv_nsec - pg->t0.tv_nsec) / 1e9;
	s->o.on_progress(s->o.progress_ctx, &p);
	pg->drawn = true;
}

void sim_progress_report(const struct sim *s, const struct sim_progress *p)
{
	if (s->o.progress && s->o.on_progress)
		s->o.on_progress(s->o.progress_ctx, p);
}

static inline bool learns_from(const struct trace_event *ev)
{
	return !ev->name && ev->ptr && ev->bytes_req <= LAYOUT_KMALLOC_MAX_SIZE &&
	       ev->bytes_alloc <= LAYOUT_KMALLOC_MAX_SIZE;
}

bool sim_learns_from(const struct trace_event *ev)
{
	return learns_from(ev);
}

/* key -> name unless key has one (first name wins). 0 or SLABSIM_ENOMEM. */
static int learn_name(struct sim *s, uint64_t key, const char *name)
{
	uint32_t nid;
	if (u64map_get(&s->learned, key, NULL))
		return 0;
	if (strtab_intern(&s->names, name, &nid) || u64map_put(&s->learned, key, (uint64_t)nid + 1))
		return SLABSIM_ENOMEM;
	return 0;
}

int sim_learn_names(struct sim *s, struct trace_reader *r, struct err *e)
{
	struct trace_source src;
	trace_as_source(&src, r);
	return sim_learn_names_source(s, &src, e);
}

/* The name pass's state. named: per site_id of the id space being read,
 * the sizes (geom_key | LEARN_MEMO_SET) of its last allocation whose learn
 * key had a name; a key keeps its name, so an allocation of the same sizes
 * at that site skips the site lookup and the probe of s->learned. */
struct learn_pass {
	struct u64map site_of; /* ptr -> learn key of its allocation */
	uint64_t *named;
	size_t named_cap;
};

#define LEARN_MEMO_SET (1ULL << 63)

/* Is ev's learn key (ev of a source with an id space) known to be named? */
static inline bool learn_memo_named(const struct learn_pass *lp, const struct trace_event *ev)
{
	uint32_t sid = ev->site_id;
	return sid < lp->named_cap &&
	       lp->named[sid] == (geom_key(ev->bytes_req, ev->bytes_alloc) | LEARN_MEMO_SET);
}

/* Remember that ev's learn key is named. 0 or SLABSIM_ENOMEM. */
static int learn_memo_set(struct learn_pass *lp, const struct trace_event *ev)
{
	uint32_t sid = ev->site_id;
	if (sid >= lp->named_cap) { /* per new site, not per event */
		uint64_t *n = grow_to(lp->named, &lp->named_cap, sid, sizeof(*n), 256);
		if (!n)
			return SLABSIM_ENOMEM;
		lp->named = n;
	}
	lp->named[sid] = geom_key(ev->bytes_req, ev->bytes_alloc) | LEARN_MEMO_SET;
	return 0;
}

/* One event of the name pass. 0 or SLABSIM_ENOMEM. */
static inline int learn_event(struct sim *s, struct learn_pass *lp, const struct trace_event *ev)
{
	if (ev->type == TRACE_EV_CACHE_ALLOC || ev->type == TRACE_EV_CACHE_ALLOC_NODE) {
		if (!learns_from(ev))
			return 0;
		uint32_t site;
		bool found;
		uint64_t *v;
		/* site ids mean something only through the source's id space */
		bool by_id = s->ids_of && ev->site_id;
		bool named = by_id && learn_memo_named(lp, ev);
		uint64_t key = 0;
		if (!named) {
			if (event_site(s, ev, &site))
				return SLABSIM_ENOMEM;
			key = learn_key(site, ev->bytes_req, ev->bytes_alloc);
			named = u64map_get(&s->learned, key, NULL);
			if (named && by_id && learn_memo_set(lp, ev))
				return SLABSIM_ENOMEM;
		}
		/* a key with a name keeps it (first name wins): its objects
		 * need no entry, but one left at the pointer by a missed free
		 * must not outlive this allocation */
		if (named) {
			if ((v = u64map_ref(&lp->site_of, ev->ptr)))
				u64map_del_ref(&lp->site_of, v);
			return 0;
		}
		if (!(v = u64map_upsert(&lp->site_of, ev->ptr, &found)))
			return SLABSIM_ENOMEM;
		*v = key;
	} else if (ev->type == TRACE_EV_KFREE || ev->type == TRACE_EV_CACHE_FREE) {
		uint64_t *v = u64map_ref(&lp->site_of, ev->ptr);
		if (!v)
			return 0;
		uint64_t key = *v;
		u64map_del_ref(&lp->site_of, v);
		if (ev->name)
			return learn_name(s, key, ev->name);
	}
	return 0;
}

int sim_learn_names_sources(struct sim *s, const struct trace_source *const *srcs, size_t nsrc,
			    struct err *e)
{
	enum { BATCH = 64 };
	struct learn_pass lp = {0};
	struct trace_event ev[BATCH];
	int rc = 0;
	struct progress pg;
	uint64_t n = 0;
	const struct trace_source *src = srcs[0];
	u64map_init_sparse(&lp.site_of); /* probed twice per object: the inline paths */
	progress_start(&pg, "names");
	for (size_t k = 0; k < nsrc && rc >= 0; k++) {
		src = srcs[k];
		use_ids_of(s, src);
		if (lp.named) /* the site ids of the last source */
			memset(lp.named, 0, lp.named_cap * sizeof(*lp.named));
		/* in batches when the source gives them: one indirect call
		 * per batch, and no copy when it lends them */
		const struct trace_event *b = ev;
		while ((rc = src->borrow_batch ? src->borrow_batch(src->ctx, &b, BATCH, e)
			     : src->next_batch ? src->next_batch(src->ctx, ev, BATCH, e)
					       : src->next(src->ctx, ev, e)) > 0) {
			for (int i = 0; i < rc; i++) {
				progress_draw(s, &pg, src, ++n, false);
				if (learn_event(s, &lp, &b[i])) {
					rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
					goto out;
				}
			}
		}
	}
out:
	progress_draw(s, &pg, src, n, true);
	u64map_fini(&lp.site_of);
	free(lp.named);
	return rc < 0 ? rc : 0;
}

int sim_learn_names_source(struct sim *s, const struct trace_source *src, struct err *e)
{
	return sim_learn_names_sources(s, &src, 1, e);
}

/* ---- progress ---- */

int sim_replay(struct sim *s, struct trace_reader *r, const struct sink *k, struct err *e)
{
	struct trace_source src;
	trace_as_source(&src, r);
	return sim_replay_source(s, &src, k, e);
}

/* Replay a source that hands out events in batches: one indirect call per
 * batch, and the look-ahead for prefetching is the batch itself (the
 * events after it come from peek_ptrs). Returns 0 at the end, or the first
 * error. */
static int replay_batches(struct sim *s, const struct trace_source *src, struct progress *pg,
			  struct err *e)
{
	enum { BATCH = 64, AHEAD = 8 };
	struct trace_event buf[BATCH];
	/* the pointers of the batch and of the AHEAD events after it (0 past
	 * the end: a hint for NULL's slot, harmless), so that the loop below
	 * tests no bounds */
	uint64_t ptrs[BATCH + AHEAD];
	int n;
	/* the source's own events where it lends them: no copy */
	const struct trace_event *ev = buf;
	while ((n = src->borrow_batch ? src->borrow_batch(src->ctx, &ev, BATCH, e)
				      : src->next_batch(src->ctx, buf, BATCH, e)) > 0) {
		uint32_t nnext = 0;
		for (int i = 0; i < n; i++)
			ptrs[i] = ev[i].ptr;
		if (src->peek_ptrs)
			nnext = src->peek_ptrs(src->ctx, 0, AHEAD, ptrs + n);
		for (uint32_t i = nnext; i < AHEAD; i++)
			ptrs[n + i] = 0;
		for (int i = 0; i < n; i++) {
			/* the live-table slot of the event AHEAD places on,
			 * and the record of the one half as far, whose slot
			 * came in meanwhile */
			ixmap_prefetch(&s->live_index, ptrs[i + AHEAD]);
			live_prefetch(s, ptrs[i + AHEAD / 2]);
			int rc = apply_event(s, &ev[i], NULL, e);
			if (rc)
				return rc;
			progress_draw(s, pg, src, s->nevents, false);
		}
	}
	return n;
}

/* replay_batches over an event array's cursor c, read in place: each event
 * made in the replay's copy of its key's event (evarr_fill) rather than
 * copied into a batch, and the look-ahead read from the array. */
static int replay_evarr(struct sim *s, const struct trace_source *src, struct evarr_cursor *c,
			struct progress *pg, struct err *e)
{
	enum { BATCH = 64, AHEAD = 8 };
	struct trace_event *tmpl = evarr_templates(c->a);
	struct key_memo *km = calloc((size_t)evarr_nkeys(c->a) + 1, sizeof(*km));
	/* the last events, followed by AHEAD with pointer 0 (as
	 * replay_batches: a hint for NULL's slot), so that the loop tests no
	 * bounds */
	struct evarr_ev tail[BATCH + AHEAD];
	const struct evarr_ev *x;
	uint64_t left;
	uint32_t n;
	int rc = 0;
	if (!tmpl || !km) {
		free(tmpl);
		free(km);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	while (!rc && (n = evarr_cursor_take(c, BATCH, &x, &left))) {
		if (left < (uint64_t)n + AHEAD) {
			memset(tail, 0, sizeof(tail));
			memcpy(tail, x, (size_t)left * sizeof(*x));
			x = tail;
		}
		for (uint32_t i = 0; i < n; i++) {
			ixmap_prefetch(&s->live_index, x[i + AHEAD].ptr);
			live_prefetch(s, x[i + AHEAD / 2].ptr);
			if ((rc = apply_event(s, evarr_fill(tmpl, &x[i]), &km[x[i].key], e)))
				break;
			progress_draw(s, pg, src, s->nevents, false);
		}
	}
	if (!rc)
		rc = evarr_cursor_error(c, e); /* a spilled array's read failed */
	free(tmpl);
	free(km);
	return rc;
}

int sim_replay_source(struct sim *s, const struct trace_source *src, const struct sink *k,
		      struct err *e)
{
	struct trace_event ev;
	int rc;
	struct progress pg;
	sample_forget(s);
	s->sink = k;
	s->src = src->name ? src->name : "events";
	use_ids_of(s, src);
	progress_start(&pg, "replay");
	(void)start_ahead(s, src);
	/* With a look-ahead, every PEEK_EVERY events the live table's slots
	 * of the pointers PEEK_SKIP events on are fetched, so that the cache
	 * misses of a large live set overlap the work in between. */
	enum { PEEK_EVERY = 4, PEEK_SKIP = 4 };
	uint32_t until_peek = 0;
	uint64_t ahead[PEEK_EVERY];
	struct evarr_cursor *c = evarr_source_cursor(src);
	if (c) {
		rc = replay_evarr(s, src, c, &pg, e);
	} else if (src->next_batch) {
		rc = replay_batches(s, src, &pg, e);
	} else {
		while ((rc = src->next(src->ctx, &ev, e)) == 1) {
			if (src->peek_ptrs && !until_peek--) {
				uint32_t n = src->peek_ptrs(src->ctx, PEEK_SKIP, PEEK_EVERY, ahead);
				for (uint32_t i = 0; i < n; i++)
					ixmap_prefetch(&s->live_index, ahead[i]);
				until_peek = PEEK_EVERY - 1;
			}
			if ((rc = sim_event(s, &ev, e)))
				break;
			progress_draw(s, &pg, src, s->nevents, false);
		}
	}
	progress_draw(s, &pg, src, s->nevents, true);
	ahead_start(&s->ahead, NULL, 0); /* src goes with the caller */
	note_pre_event(s);
	/* the counts stay valid until the source is closed, after sim_record */
	s->line_stats = src->stats ? src->stats(src->ctx) : NULL;
	s->src = "events";
	if (rc < 0)
		return rc;
	/* always one sample labelled "end" with the final state (it may repeat
	 * the last periodic one) */
	return take_sample(s, "end", e);
}

/* ---- results ---- */

static void cache_row(const struct sim *s, uint32_t id, const struct policy_cache_info *ci,
		      struct sink_cache *row)
{
	const struct cache_acct *a = &s->acct[id];
	memset(row, 0, sizeof(*row));
	row->cache = ci->name;
	row->kmalloc = ci->kmalloc;
	row->object_size = ci->g.object_size;
	row->slab_size = ci->g.size;
	row->align = ci->g.align;
	row->order = ci->g.order;
	row->objs_per_slab = ci->g.objs_per_slab;
	row->allocs = a->allocs;
	row->frees = a->frees;
	row->live_objs = a->live_objs;
	row->live_req_bytes = a->live_req;
	row->slabs = ci->nr_slabs;
	row->pages = ci->nr_pages;
	row->peak_pages = a->peak_pages;
	row->peak_pages_t_ns = a->peak_pages_t_ns;
	row->peak_live_objs = a->peak_live_objs;
	struct waste w = cache_waste(s, id, ci);
	row->waste_rounding = w.rounding;
	row->waste_layout = w.layout;
	row->waste_free_slots = w.free;
	row->waste_tail = w.tail;
	row->align_violations = a->violations;
	row->sheaf_capacity = ci->g.sheaf_capacity;
	row->parked_objs = ci->parked_objects;
}

static bool cache_active(const struct sim *s, uint32_t id, const struct policy_cache_info *ci)
{
	const struct cache_acct *a = &s->acct[id];
	return ci->alias_of == id && (a->allocs || a->frees || ci->nr_slabs || a->untraced_frees);
}

/* ---- lost events ---- */

void sim_set_capture_lost(struct sim *s, uint64_t lost_events)
{
	s->has_capture_lost = true;
	s->capture_lost = lost_events;
}

void sim_lost_events(const struct sim *s, const void *trace_stats_v, struct sim_lost *out)
{
	const struct trace_stats *ts = trace_stats_v;
	*out = (struct sim_lost){0};
	if (ts) {
		out->sources = ts->lost_sources;
		out->markers = ts->lost_events;
		out->header = ts->lost_in_header;
		out->buffer_stats = ts->lost_in_buffer_stats;
		out->perf = ts->lost_in_perf;
		out->total = trace_stats_lost(ts);
	}
	if (s->has_capture_lost) {
		out->sources |= SIM_LOST_CAPTURE;
		out->capture = s->capture_lost;
		if (out->capture > out->total)
			out->total = out->capture;
	}
}

/* The sources in the order the summary, JSON and counts rows give them. */
static const struct {
	uint32_t bit;
	const char *label; /* table and warnings */
	const char *json;  /* member of the JSON lost_events object */
	const char *kind;  /* counts row of table 'line' (lost_events: the markers') */
} lost_source[] = {
	{TRACE_LOST_MARKERS, "markers", "markers", "lost_events"},
	{TRACE_LOST_HEADER, "tracefs header", "header", "lost_in_header"},
	{TRACE_LOST_BUFFER_STATS, "trace.dat stats", "buffer_stats", "lost_in_buffer_stats"},
	{TRACE_LOST_PERF, "perf LOST records", "perf_records", "lost_in_perf"},
	{SIM_LOST_CAPTURE, "lost-events.txt", "capture", "lost_in_capture"},
};
#define NR_LOST_SOURCES (sizeof(lost_source) / sizeof(lost_source[0]))

static uint64_t lost_count(const struct sim_lost *l, size_t i)
{
	const uint64_t n[NR_LOST_SOURCES] = {l->markers, l->header, l->buffer_stats, l->perf,
					     l->capture};
	return n[i];
}

bool sim_lost_source(const struct sim_lost *l, size_t i, const char **json_key, bool *present,
		     uint64_t *count)
{
	if (i >= NR_LOST_SOURCES)
		return false;
	*json_key = lost_source[i].json;
	*present = (l->sources & lost_source[i].bit) != 0;
	*count = lost_count(l, i);
	return true;
}

void sim_lost_str(const struct sim_lost *l, char *buf, size_t n)
{
	size_t at = 0;
	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < NR_LOST_SOURCES && at < n; i++) {
		if (!(l->sources & lost_source[i].bit))
			continue;
		int w = snprintf(buf + at, n - at, "%s%s %" PRIu64, at ? ", " : "",
				 lost_source[i].label, lost_count(l, i));
		if (w < 0)
			break;
		at += (size_t)w;
	}
}

int sim_report(struct sim *s, const struct sink *k, struct err *e)
{
	int rc;
	for (int i = 0; i < TRACE_EV_NR; i++) {
		struct sink_count c = {"event", trace_ev_names[i], s->events[i], 0};
		if ((rc = SINK_EMIT(k, count, &c, e)))
			return rc;
	}
	for (int i = 0; i < SIM_AN_NR; i++) {
		struct sink_count c = {"anomaly", sim_anomaly_names[i], s->anomalies[i],
				       s->anomaly_first_line[i]};
		if ((rc = SINK_EMIT(k, count, &c, e)))
			return rc;
	}
	if (s->o.cfg.sites) {
		struct sink_count al[] = {
			{"align", "listed_sites", s->listed_sites, 0},
			{"align", "listed_allocs", s->listed_allocs, 0},
			{"align", "listed_violations", s->listed_violations, 0},
		};
		for (size_t i = 0; i < sizeof(al) / sizeof(al[0]); i++)
			if ((rc = SINK_EMIT(k, count, &al[i], e)))
				return rc;
	}
	if (s->line_stats) {
		const struct trace_stats *ts = s->line_stats;
		struct sink_count lines[] = {
			{"line", "total", ts->lines, 0},
			{"line", "header", ts->header_lines, 0},
			{"line", "other_event", ts->other_events, 0},
			{"line", "malformed", ts->malformed, ts->first_malformed_line},
			{"line", "lost_marker", ts->lost_markers, 0},
			{"line", "lost_events", ts->lost_events, 0},
		};
		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
			if ((rc = SINK_EMIT(k, count, &lines[i], e)))
				return rc;
		/* the markers' rows are always there; another source's only when
		 * the input has it */
		struct sim_lost l;
		sim_lost_events(s, ts, &l);
		for (size_t i = 1; i < NR_LOST_SOURCES; i++) {
			struct sink_count c = {"line", lost_source[i].kind, lost_count(&l, i), 0};
			if ((l.sources & lost_source[i].bit) && (rc = SINK_EMIT(k, count, &c, e)))
				return rc;
		}
		struct sink_count c = {"line", "lost_total", l.total, 0};
		if ((rc = SINK_EMIT(k, count, &c, e)))
			return rc;
	}
	uint32_t n = s->p->ops->nr_caches(s->p);
	for (uint32_t id = 0; id < n; id++) {
		struct policy_cache_info ci;
		s->p->ops->cache_info(s->p, id, &ci);
		if (!cache_active(s, id, &ci))
			continue;
		struct sink_cache row;
		cache_row(s, id, &ci, &row);
		if ((rc = SINK_EMIT(k, cache, &row, e)))
			return rc;
	}
	for (uint32_t i = 0; i < s->sites.n; i++) {
		const struct site_acct *st = &s->site[i];
		struct sink_site row = {
			.call_site = strtab_str(&s->sites, i),
			.allocs = st->allocs,
			.frees = st->frees,
			.bytes_req = st->bytes_req,
			.bytes_alloc = st->bytes_alloc,
			.bytes_alloc_trace = st->bytes_alloc_trace,
			.live_objs = st->live_objs,
			.live_req_bytes = st->live_req,
			.align_violations = st->violations,
			.pingpong = st->pingpong,
		};
		if ((rc = SINK_EMIT(k, site, &row, e)))
			return rc;
	}
	size_t pos = 0;
	uint64_t key, cnt;
	while (u64map_next(&s->violations, &pos, &key, &cnt)) {
		uint32_t acct = (uint32_t)(key >> 40);
		uint32_t site = (uint32_t)((key >> 8) & 0xffffffff);
		struct policy_cache_info ci;
		s->p->ops->cache_info(s->p, acct, &ci);
		struct sink_violation v = {
			.cache = ci.name,
			.call_site = strtab_str(&s->sites, site),
			.size = 1ULL << (key & 0xff),
			.count = cnt,
		};
		(void)u64map_get(&s->violation_addr, key, &v.example_addr);
		if ((rc = SINK_EMIT(k, violation, &v, e)))
			return rc;
	}
	for (size_t i = 0; i < s->cost_n; i++) {
		const struct cost_acct *c = &s->cost[i];
		const char *cache = NULL;
		if (c->acct != UINT32_MAX) {
			struct policy_cache_info ci;
			s->p->ops->cache_info(s->p, c->acct, &ci);
			cache = ci.name;
		}
		struct sink_align_cost row = {
			.cache = cache,
			.call_site = strtab_str(&s->sites, c->site),
			.need = s->site[c->site].need,
			.allocs = c->allocs,
			.violations = c->violations,
			.bytes_alloc = c->bytes_alloc,
			.bytes_alloc_none = c->bytes_alloc_none,
			.redzone_shift_bytes = c->redzone_shift,
			.fragment_bytes = c->fragments,
			.live_growth_bytes = c->live_growth,
		};
		if ((rc = SINK_EMIT(k, align_cost, &row, e)))
			return rc;
	}
	struct sim_totals t;
	sim_totals(s, &t);
	struct metrics_extra mx = {.bytes_alloc_model = t.bytes_alloc_model_total};
	return metrics_record(s->m, s->p, k, &mx, e);
}

void sim_run_totals(const struct sim *s, struct sink_totals *out)
{
	struct sim_totals t;
	sim_totals(s, &t);
	*out = (struct sink_totals){
		.events = s->nevents,
		.t_first_ns = s->t_first_ns,
		.t_last_ns = s->now_ns,
		.final_slab_pages = t.slab_pages,
		.peak_slab_pages = t.peak_slab_pages,
		.peak_slab_pages_t_ns = t.peak_slab_pages_t_ns,
		.final_large_pages = t.large_pages,
		.final_live_objs = t.live_objs,
		.final_live_req_bytes = t.live_req_bytes,
		.align_violations = t.align_violations,
	};
}

/* ---- read-only accessors for the printers (sim/cli/summary.c) ---- */

int sim_parse_cache_sort(const char *s, enum sim_cache_sort *out, struct err *e)
{
	static const char *const names[] = {"pages", "waste", "live", "name"};
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum sim_cache_sort)i;
			return 0;
		}
	return err_set(e, SLABSIM_EUSAGE,
		       "-s of the cache table expects pages, waste, live or name, got '%s' (the "
		       "perf keys go with --caller, --alloc, --perf)",
		       s);
}

void sim_set_config_from(struct sim *s, const char *kernel_from, const char *nr_cpus_from)
{
	s->o.kernel_from = kernel_from;
	s->o.nr_cpus_from = nr_cpus_from;
}

const struct policy_cfg *sim_cfg(const struct sim *s)
{
	return &s->o.cfg;
}

void sim_config_from(const struct sim *s, const char **kernel_from, const char **nr_cpus_from)
{
	*kernel_from = s->o.kernel_from;
	*nr_cpus_from = s->o.nr_cpus_from;
}

uint64_t sim_anomaly_first_line(const struct sim *s, enum sim_anomaly a)
{
	return s->anomalies[a] ? s->anomaly_first_line[a] : 0;
}

bool sim_cache_row(const struct sim *s, uint32_t id, struct sink_cache *out)
{
	struct policy_cache_info ci;
	s->p->ops->cache_info(s->p, id, &ci);
	if (!cache_active(s, id, &ci))
		return false;
	cache_row(s, id, &ci, out);
	return true;
}

/* ---- workloads ---- */

int sim_define_cache(struct sim *s, const struct policy_cache_spec *spec, uint64_t *bytes_req,
		     uint64_t *bytes_alloc, struct err *e)
{
	uint32_t c;
	uint64_t v;
	int rc;
	if (sim_find_cache(s, spec->name, &c)) {
		struct policy_cache_info ci;
		s->p->ops->cache_info(s->p, c, &ci);
		if (ci.kmalloc)
			return err_set(e, SLABSIM_EUSAGE,
				       "expected a cache name the model does not have, got %s (for "
				       "kmalloc caches use target = kmalloc)",
				       spec->name);
		return err_set(e, SLABSIM_EUSAGE, "cache %s is defined twice", spec->name);
	}
	if ((rc = sim_ensure_cache(s, spec, &c, e)))
		return rc;
	struct policy_cache_info ci;
	s->p->ops->cache_info(s->p, c, &ci);
	/* SLOB keeps no geometry for caches: the kernel traces the object size */
	*bytes_req = ci.g.object_size ? ci.g.object_size : spec->object_size;
	*bytes_alloc = ci.g.size ? ci.g.size : *bytes_req;
	uint64_t k = learn_key(0, *bytes_req, *bytes_alloc);
	if (!u64map_get(&s->defined, k, &v) && u64map_put(&s->defined, k, c))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	return 0;
}

uint64_t sim_kmalloc_bytes(struct sim *s, uint64_t size, uint32_t gfp)
{
	struct trace_event ev = {.gfp = gfp, .accounted = -1};
	return s->p->ops->kmalloc_bytes(s->p, size, kmalloc_type(&ev));
}

/* ---- starting from a recorded state ---- */

bool sim_find_cache(const struct sim *s, const char *name, uint32_t *id)
{
	uint32_t nid;
	uint64_t cid;
	if (strtab_find(&s->names, name, &nid) && u64map_get(&s->name_cache, nid, &cid)) {
		*id = (uint32_t)cid;
		return true;
	}
	/* kmalloc caches are made by the policy, never named by the trace */
	uint32_t n = s->p->ops->nr_caches(s->p);
	for (uint32_t i = 0; i < n; i++) {
		struct policy_cache_info ci;
		s->p->ops->cache_info(s->p, i, &ci);
		if (ci.kmalloc && strcmp(ci.name, name) == 0) {
			*id = i;
			return true;
		}
	}
	return false;
}

int sim_ensure_cache(struct sim *s, const struct policy_cache_spec *spec, uint32_t *id,
		     struct err *e)
{
	uint32_t nid, c;
	if (sim_find_cache(s, spec->name, id))
		return 0;
	s->seen_valid = false;
	int rc = s->p->ops->cache_create(s->p, spec, &c, e);
	if (rc)
		return rc;
	if (strtab_intern(&s->names, spec->name, &nid) || u64map_put(&s->name_cache, nid, c) ||
	    grow_acct(s, s->p->ops->nr_caches(s->p)))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	*id = c;
	return 0;
}

/* Make the rng that picks start objects (seeded once, at the first start
 * state) and room for nr_objs more in root's pre array. */
static int pre_prepare(struct sim *s, uint32_t root, uint64_t nr_objs, struct err *e)
{
	if (!s->rng) {
		if (!(s->rng = gsl_rng_alloc(gsl_rng_mt19937)))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		gsl_rng_set(s->rng, s->o.seed);
	}
	struct cache_acct *a = &s->acct[root];
	/* grown geometrically: a start state made slab by slab asks for a
	 * slab's objects at a time (130,000 calls on a real machine), and a
	 * realloc that cannot grow in place (AddressSanitizer's never does)
	 * copied the whole array each time */
	uint32_t *pre =
		grow_room(a->pre, &a->cap_pre, (size_t)a->npre + nr_objs, sizeof(*a->pre), 64);
	if (!pre)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	a->pre = pre;
	return 0;
}

/* Enter objs[0..n-1], which the policy just made live in root cache root,
 * as start-state objects (live, site "(start state)"). With by_addr, each
 * is also found by its model address (sim_start_slab's objects). */
static int pre_add(struct sim *s, uint32_t root, const struct policy_obj *objs, uint64_t n,
		   bool by_addr, struct err *e)
{
	struct cache_acct *a = &s->acct[root];
	int rc = 0;
	for (uint64_t i = 0; !rc && i < n; i++) {
		uint32_t idx;
		if ((rc = pool_get(s, &idx))) {
			rc = err_set(e, rc, "out of memory");
			break;
		}
		struct live *l = &s->pool[idx];
		if ((rc = set_obj(s, l, &objs[i]))) {
			rc = err_set(e, rc, "out of memory");
			pool_put(s, idx);
			break;
		}
		/* the request size is not recorded: count the object size */
		l->req = objs[i].object_bytes;
		assert(live_acct(s, l) == root);
		l->cpu = 0;
		if ((rc = intern_site(s, "(start state)", &l->site)) ||
		    (by_addr && (rc = u64map_put(&s->pre_addr, l->addr, idx)))) {
			rc = err_set(e, rc, "out of memory");
			pool_put(s, idx);
			break;
		}
		l->ptr = a->npre;
		a->pre[a->npre++] = idx;
		s->npre_all++;
		s->pgf.keep_renewed = true; /* slabs made since are told apart */
		if (s->p->ops->start_moves && !s->start_moves_on) {
			s->p->ops->start_moves(s->p, start_move, s);
			s->start_moves_on = true;
		}
		a->live_objs++;
		a->live_req += l->req;
		a->live_slot += objs[i].slot_bytes;
		a->live_meta += objs[i].meta_bytes;
		a->live_object += objs[i].object_bytes;
		s->site[l->site].live_objs++;
		s->site[l->site].live_req += l->req;
		s->live_objs++;
		s->live_req += l->req;
	}
	if (!rc) {
		update_peaks(s, root, 0, slab_pages_now(s));
		if (a->live_objs > a->peak_live_objs)
			a->peak_live_objs = a->live_objs;
	}
	return rc;
}

/* The caller's stop flag (sim_opts.stop) is up: e says so. */
static bool stopped(const struct sim *s, struct err *e)
{
	if (!s->o.stop || !*s->o.stop)
		return false;
	(void)err_set(e, SLABSIM_ESTOP, "stopped by a signal while the start state was built");
	return true;
}

int sim_prepopulate(struct sim *s, uint32_t id, const struct policy_start *st, uint64_t *nr_live,
		    struct err *e)
{
	uint64_t nr_objs = st->active_objs;
	*nr_live = 0;
	if (stopped(s, e))
		return SLABSIM_ESTOP;
	if (!s->p->ops->prepopulate)
		return err_set(e, SLABSIM_EUSAGE, "the %s model cannot start from a recorded state",
			       s->p->ops->name);
	if (nr_objs > UINT32_MAX / 2)
		return err_set(e, SLABSIM_EUSAGE, "start state of %" PRIu64 " objects is too big",
			       nr_objs);
	uint32_t root;
	if (root_of(s, id, &root) || grow_acct(s, root))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	int rc = pre_prepare(s, root, nr_objs, e);
	struct policy_obj *objs = rc ? NULL : calloc(nr_objs ? nr_objs : 1, sizeof(*objs));
	if (rc)
		return rc;
	if (!objs)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	s->seen_valid = false;
	/* the policy makes live only the objects its slabinfo does not count
	 * active while free (SLAB's array caches): nr_objs becomes that count */
	rc = s->p->ops->prepopulate(s->p, id, st, objs, &nr_objs, e);
	if (!rc) {
		*nr_live = nr_objs;
		rc = pre_add(s, root, objs, nr_objs, false, e);
	}
	free(objs);
	return rc;
}

int sim_start_slab(struct sim *s, uint32_t id, const struct policy_start_slab *ss, struct err *e)
{
	if (stopped(s, e))
		return SLABSIM_ESTOP;
	if (!s->p->ops->start_slab)
		return err_set(e, SLABSIM_EUSAGE, "the %s model has no per-CPU slabs to start from",
			       s->p->ops->name);
	uint32_t root;
	if (root_of(s, id, &root) || grow_acct(s, root))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	struct cache_acct *a = &s->acct[root];
	if (a->npslabs == a->cap_pslabs) {
		size_t cap = a->cap_pslabs;
		struct pre_slab *ps = grow_room(a->pslabs, &cap, a->npslabs, sizeof(*ps), 16);
		if (!ps || cap > UINT32_MAX)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		a->pslabs = ps;
		a->cap_pslabs = (uint32_t)cap;
	}
	int rc = pre_prepare(s, root, ss->inuse, e);
	struct policy_obj *objs = rc ? NULL : calloc(ss->inuse ? ss->inuse : 1, sizeof(*objs));
	if (rc)
		return rc;
	if (!objs)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	s->seen_valid = false;
	uint64_t base;
	rc = s->p->ops->start_slab(s->p, id, ss, &base, objs, e);
	if (!rc && u64map_put(&s->pslab_of, base, ((uint64_t)root << 32 | a->npslabs) + 1))
		rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
	if (!rc) {
		a->pslabs[a->npslabs++] = (struct pre_slab){.base = base, .left = ss->inuse};
		rc = pre_add(s, root, objs, ss->inuse, true, e);
	}
	free(objs);
	return rc;
}

int sim_start_slab_at(struct sim *s, uint32_t id, const struct policy_start_slab *ss, uint64_t real,
		      struct err *e)
{
	int rc = sim_start_slab(s, id, ss, e);
	if (rc)
		return rc;
	uint32_t root;
	if (root_of(s, id, &root))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	struct cache_acct *a = &s->acct[root];
	uint32_t pi = a->npslabs - 1;
	if (u64map_put(&s->pre_bind, real, ((uint64_t)root << 32 | pi) + 1))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	a->pslabs[pi].bound = true;
	if (s->p->ops->bind_slab)
		(void)s->p->ops->bind_slab(s->p, root, real, a->pslabs[pi].base);
	return 0;
}

uint32_t sim_nr_caches(const struct sim *s)
{
	return s->p->ops->nr_caches(s->p);
}

void sim_cache_state(const struct sim *s, uint32_t id, struct sim_cache_state *out)
{
	struct policy_cache_info ci;
	s->p->ops->cache_info(s->p, id, &ci);
	const struct cache_acct *a = &s->acct[ci.alias_of];
	memset(out, 0, sizeof(*out));
	out->name = ci.name;
	out->root = ci.alias_of == id;
	out->kmalloc = ci.kmalloc;
	out->object_size = ci.g.object_size;
	out->slot_size = ci.g.size;
	out->objs_per_slab = ci.g.objs_per_slab;
	out->pages_per_slab = 1u << ci.g.order;
	out->slabs = ci.nr_slabs;
	out->pages = ci.nr_pages;
	out->total_objects = ci.total_objects;
	if (s->p->ops->get_slabinfo) {
		struct policy_slabinfo si;
		s->p->ops->get_slabinfo(s->p, id, &si);
		out->active_objs = si.active_objs;
	}
	out->live_objs = a->live_objs;
	out->live_req_bytes = a->live_req;
	out->waste_bytes = ci.nr_pages * POLICY_PAGE_SIZE - a->live_req;
	out->allocs = a->allocs;
	out->frees = a->frees;
	out->untraced_frees = a->untraced_frees;
	out->untraced_refreed = a->untraced_refreed;
	out->freed_at_reuse = a->freed_at_reuse;
	out->freed_at_teardown = a->freed_at_teardown;
	out->freed_at_dup = a->freed_at_dup;
	out->freed_at_page_free = a->freed_at_page_free;
	out->freed_at_full_slab = a->freed_at_full_slab;
	out->freed_at_bound = a->freed_at_bound;
	out->start_parked = a->start_parked;
	out->pre_objs = a->npre;
	out->pre_freed = a->pre_freed;
	out->pre_by_slab = a->pre_by_slab;
}

uint64_t sim_unattributed_frees(const struct sim *s)
{
	return s->unattributed_frees;
}

int sim_name_candidate(struct sim *s, uint32_t object_size, uint32_t slot_size, const char *name,
		       int account, bool empty, struct err *e)
{
	uint32_t nid;
	if (s->ncands == s->cap_cands) {
		struct name_cand *n = grow_room(s->cands, &s->cap_cands, s->ncands, sizeof(*n), 16);
		if (!n)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		s->cands = n;
	}
	if (strtab_intern(&s->names, name, &nid))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	s->cands[s->ncands++] = (struct name_cand){
		.geom = geom_key(object_size, slot_size),
		.nid = nid,
		.account = (int8_t)(account < 0 ? -1 : account > 0),
		.empty = empty,
	};
	return 0;
}

void sim_named_counts(const struct sim *s, uint64_t *out)
{
	for (int i = 0; i < SIM_NAMED_NR; i++)
		out[i] = s->named_by[i];
}

int sim_name_geometry(struct sim *s, uint32_t object_size, uint32_t slot_size, const char *name,
		      struct err *e)
{
	uint32_t nid;
	if (strtab_intern(&s->names, name, &nid) ||
	    u64map_put(&s->geom_name, geom_key(object_size, slot_size), (uint64_t)nid + 1))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	return 0;
}

/* ---- the name pass's steps, for a pass run elsewhere (sim/learn.c) ---- */

int sim_learn_site(struct sim *s, const char *call_site, uint32_t *site)
{
	return intern_site(s, call_site, site);
}

int sim_learn_name(struct sim *s, uint32_t site, uint64_t bytes_req, uint64_t bytes_alloc,
		   const char *name)
{
	return learn_name(s, learn_key(site, bytes_req, bytes_alloc), name);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

const struct strtab *sim_sites(const struct sim *s)
{
	return &s->sites;
}

const struct strtab *sim_names(const struct sim *s)
{
	return &s->names;
}

int sim_learned(const struct sim *s, struct sim_learned_key **out, size_t *n)
{
	const uint64_t m = (1u << 23) - 1;
	size_t nk = u64map_len(&s->learned), pos = 0, i = 0;
	uint64_t *keys = malloc((nk ? nk : 1) * sizeof(*keys)), key, val;
	struct sim_learned_key *r = calloc(nk ? nk : 1, sizeof(*r));
	if (!keys || !r) {
		free(keys);
		free(r);
		return SLABSIM_ENOMEM;
	}
	while (u64map_next(&s->learned, &pos, &key, &val))
		keys[i++] = key;
	qsort(keys, nk, sizeof(*keys), cmp_u64);
	for (i = 0; i < nk; i++) {
		u64map_get(&s->learned, keys[i], &val);
		r[i] = (struct sim_learned_key){(uint32_t)(keys[i] >> 46), (keys[i] >> 23) & m,
						keys[i] & m, (uint32_t)(val - 1)};
	}
	free(keys);
	*out = r;
	*n = nk;
	return 0;
}
