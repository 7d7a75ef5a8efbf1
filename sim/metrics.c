/* metrics.c - the figures of docs/metrics.md; see metrics.h.
 *
 * perf kmem stat is followed event for event (tools/perf/builtin-kmem.c):
 * a pointer's record survives its free, so a second free of it still adds
 * its last bytes_alloc to "freed" and, its CPU being reset to -1 by the first
 * free, counts as a ping-pong again. That record is kept for every distinct
 * pointer only with --alloc (record_ptrs); by default a record lives from
 * an allocation to the free of its pointer, so memory follows the live set,
 * and the frees that find no record are counted (unmatched): only among them
 * can the figures differ from perf's (docs/metrics.md). slabinfo's figures use its integer
 * arithmetic (tools/mm/slabinfo.c totals() and the report line), and the
 * unusable index mm/vmstat.c's (permille, printed with 3 decimals).
 */
#include "metrics.h"
#include "bigmem.h"
#include "sat.h"
#include "sink.h"
#include "strtab.h"
#include "trace.h"
#include "u64map.h"

#include <assert.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* What perf needs of every pointer it has seen, for "freed" and ping-pong
 * (12 bytes; kept for every distinct pointer, as perf does). */
struct perf_ptr {
	uint32_t last_alloc; /* bytes_alloc of the last allocation; UINT32_MAX: 4 GiB or
				more, whole in metrics.big_alloc */
	uint32_t site;	     /* call site of the last allocation; free list link once
				dropped (bounded record) */
	int32_t alloc_cpu;   /* -1 once freed */
};

/* The per-pointer table of perf kmem stat --alloc, kept only when asked
 * (metrics_opts.record_ptrs): index-parallel to ptrs. */
struct perf_ptr_stat {
	uint64_t ptr;
	uint64_t bytes_req, bytes_alloc;
	uint64_t hit, pingpong; /* 64-bit: a pointer may be reused 2^32 times */
};

struct metrics {
	struct metrics_opts o;
	const struct strtab *sites;
	/* perf kmem */
	struct u64map ptr_index; /* ptr -> index into ptrs */
	struct perf_ptr *ptrs;
	struct perf_ptr_stat *pstats; /* NULL unless o.record_ptrs */
	uint32_t nptrs, ptrs_cap;
	uint32_t ptrs_free; /* bounded record: dropped records to reuse, UINT32_MAX = none */
	/* the totals, the call sites' rows and metrics_perf_alloc_ix's
	 * bytes_alloc by index (UINT32_MAX: whole in big_alloc under IX_BIG |
	 * index) */
	struct metrics_perf_acc perf;
	uint64_t unmatched; /* frees of a pointer with no record */
	/* bytes_alloc of the records whose last_alloc is UINT32_MAX: one of
	 * 4 GiB or more (a crafted trace's), kept whole for "freed" */
	struct u64map big_alloc;
	struct metrics_jw_acc jw; /* Johnstone & Wilson */
};

int metrics_create(const struct metrics_opts *o, const struct strtab *sites, struct metrics **out,
		   struct err *e)
{
	struct metrics *m = calloc(1, sizeof(*m));
	if (!m)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	m->o = *o;
	if (!m->o.mem_mib)
		m->o.mem_mib = METRICS_MEM_MIB_DEFAULT;
	m->sites = sites;
	u64map_init_sparse(&m->ptr_index);
	u64map_init(&m->big_alloc);
	m->ptrs_free = UINT32_MAX;
	*out = m;
	return 0;
}

void metrics_destroy(struct metrics *m)
{
	if (!m)
		return;
	u64map_fini(&m->ptr_index);
	u64map_fini(&m->big_alloc);
	free(m->ptrs);
	bigmem_free(m->perf.ix_alloc, (size_t)m->perf.ix_cap * sizeof(*m->perf.ix_alloc));
	free(m->pstats);
	free(m->perf.callers);
	free(m);
}

/* ---- perf kmem stat ---- */

static struct metrics_perf_caller *caller_ref(struct metrics *m, uint32_t site)
{
	if (site >= m->perf.callers_cap) {
		uint32_t ncap = m->perf.callers_cap ? m->perf.callers_cap : 256;
		while (ncap <= site)
			ncap *= 2;
		struct metrics_perf_caller *n = realloc(m->perf.callers, (size_t)ncap * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + m->perf.callers_cap, 0,
		       (size_t)(ncap - m->perf.callers_cap) * sizeof(*n));
		m->perf.callers = n;
		m->perf.callers_cap = ncap;
	}
	return &m->perf.callers[site];
}

/* A free of a record's pointer (rec: its --alloc row): its last
 * allocation's bytes freed, a ping-pong when the CPUs differ. */
static inline void count_free(struct metrics *m, const struct trace_event *ev, uint64_t last,
			      uint32_t site, int32_t alloc_cpu, uint32_t rec)
{
	if (metrics_perf_count_free(&m->perf, ev, last, site, alloc_cpu) && m->pstats)
		m->pstats[rec].pingpong++;
}

int metrics_perf_alloc_at(struct metrics *m, const struct trace_event *ev, uint32_t site,
			  uint32_t *rec)
{
	struct metrics_perf_caller *c = caller_ref(m, site);
	uint32_t idx = *rec;
	if (!c)
		return SLABSIM_ENOMEM;
	if (idx != METRICS_NO_REC) {
		/* the pointer's record, from an earlier allocation */
	} else if (m->ptrs_free != UINT32_MAX) { /* bounded: reuse a dropped record */
		idx = m->ptrs_free;
		m->ptrs_free = m->ptrs[idx].site;
	} else {
		if (m->nptrs == m->ptrs_cap) {
			uint32_t ncap = m->ptrs_cap ? m->ptrs_cap * 2 : 4096;
			struct perf_ptr *n = realloc(m->ptrs, (size_t)ncap * sizeof(*n));
			if (!n)
				return SLABSIM_ENOMEM;
			m->ptrs = n;
			if (m->o.record_ptrs) {
				struct perf_ptr_stat *ns =
					realloc(m->pstats, (size_t)ncap * sizeof(*ns));
				if (!ns)
					return SLABSIM_ENOMEM;
				m->pstats = ns;
			}
			m->ptrs_cap = ncap;
		}
		idx = m->nptrs++;
		if (m->pstats)
			m->pstats[idx] = (struct perf_ptr_stat){.ptr = ev->ptr};
	}
	*rec = idx;
	struct perf_ptr *p = &m->ptrs[idx];
	p->site = site;
	p->alloc_cpu = (int32_t)ev->cpu;
	if (ev->bytes_alloc >= UINT32_MAX) {
		if (u64map_put(&m->big_alloc, idx, ev->bytes_alloc))
			return SLABSIM_ENOMEM;
		p->last_alloc = UINT32_MAX;
	} else {
		p->last_alloc = (uint32_t)ev->bytes_alloc;
	}
	if (m->pstats) {
		struct perf_ptr_stat *ps = &m->pstats[idx];
		ps->hit++;
		ps->bytes_req = sat_add(ps->bytes_req, ev->bytes_req);
		ps->bytes_alloc = sat_add(ps->bytes_alloc, ev->bytes_alloc);
	}
	metrics_perf_count_alloc(&m->perf, c, ev);
	return 0;
}

void metrics_perf_free_at(struct metrics *m, const struct trace_event *ev, uint32_t *rec)
{
	uint32_t idx = *rec;
	if (idx == METRICS_NO_REC) {
		m->unmatched++;
		return;
	}
	struct perf_ptr *p = &m->ptrs[idx];
	uint64_t last = p->last_alloc;
	if (last == UINT32_MAX)
		(void)u64map_get(&m->big_alloc, idx, &last);
	count_free(m, ev, last, p->site, p->alloc_cpu, idx);
	p->alloc_cpu = -1;
	if (!m->o.record_ptrs) { /* dropped: a later free of this pointer is unmatched */
		p->site = m->ptrs_free;
		m->ptrs_free = idx;
		*rec = METRICS_NO_REC;
	}
}

/* big_alloc's keys of the _ix records, apart from the _at records' */
#define IX_BIG (1ULL << 32)

int metrics_perf_alloc_ix(struct metrics *m, const struct trace_event *ev, uint32_t site,
			  uint32_t ix)
{
	assert(!m->o.record_ptrs);
	struct metrics_perf_caller *c = caller_ref(m, site);
	if (!c)
		return SLABSIM_ENOMEM;
	if (ix >= m->perf.ix_cap) {
		size_t cap = m->perf.ix_cap;
		uint32_t *n = ix < UINT32_MAX / 2 /* the capacity fits ix_cap's 32 bits */
				      ? bigmem_grow(m->perf.ix_alloc, &cap, ix, sizeof(*n), 4096)
				      : NULL;
		if (!n)
			return SLABSIM_ENOMEM;
		m->perf.ix_alloc = n;
		m->perf.ix_cap = (uint32_t)cap;
	}
	if (ev->bytes_alloc >= UINT32_MAX) {
		if (u64map_put(&m->big_alloc, IX_BIG | ix, ev->bytes_alloc))
			return SLABSIM_ENOMEM;
		m->perf.ix_alloc[ix] = UINT32_MAX;
	} else {
		m->perf.ix_alloc[ix] = (uint32_t)ev->bytes_alloc;
	}
	metrics_perf_count_alloc(&m->perf, c, ev);
	return 0;
}

void metrics_perf_free_ix(struct metrics *m, const struct trace_event *ev, uint32_t ix,
			  uint32_t site, uint32_t alloc_cpu)
{
	uint64_t last = m->perf.ix_alloc[ix];
	if (last == UINT32_MAX)
		(void)u64map_get(&m->big_alloc, IX_BIG | ix, &last);
	count_free(m, ev, last, site, (int32_t)alloc_cpu, 0);
}

void metrics_perf_free_none(struct metrics *m)
{
	m->unmatched++;
}

int metrics_perf_alloc(struct metrics *m, const struct trace_event *ev, uint32_t site)
{
	bool found;
	uint64_t *slot = u64map_upsert(&m->ptr_index, ev->ptr, &found);
	if (!slot)
		return SLABSIM_ENOMEM;
	uint32_t rec = found ? (uint32_t)*slot : METRICS_NO_REC;
	int rc = metrics_perf_alloc_at(m, ev, site, &rec);
	if (rc) { /* the pointer stays unrecorded, as before the call */
		if (!found)
			(void)u64map_del(&m->ptr_index, ev->ptr, NULL);
		return rc;
	}
	*slot = rec;
	return 0;
}

void metrics_perf_free(struct metrics *m, const struct trace_event *ev)
{
	uint64_t *slot = u64map_ref(&m->ptr_index, ev->ptr);
	uint32_t rec = slot ? (uint32_t)*slot : METRICS_NO_REC;
	metrics_perf_free_at(m, ev, &rec);
	if (slot && rec == METRICS_NO_REC)
		(void)u64map_del(&m->ptr_index, ev->ptr, NULL);
}

static double frag(uint64_t req, uint64_t alloc)
{
	return alloc ? 100.0 - 100.0 * (double)req / (double)alloc : 0.0;
}

void metrics_perf_totals(const struct metrics *m, struct metrics_perf_totals *out)
{
	uint64_t allocs = 0, bytes_req = 0, bytes_alloc = 0;
	for (uint32_t i = 0; i < m->perf.callers_cap; i++) {
		const struct metrics_perf_caller *c = &m->perf.callers[i];
		allocs += c->hit;
		bytes_req = sat_add(bytes_req, c->bytes_req);
		bytes_alloc = sat_add(bytes_alloc, c->bytes_alloc);
	}
	*out = (struct metrics_perf_totals){
		.allocs = allocs,
		.frees = m->perf.frees,
		.bytes_req = bytes_req,
		.bytes_alloc = bytes_alloc,
		.bytes_freed = m->perf.bytes_freed,
		.cross_node = m->perf.cross_node,
		.pingpong = m->perf.pingpong,
		.unmatched = m->unmatched,
		.exact = m->o.record_ptrs,
		.frag_pct = frag(bytes_req, bytes_alloc),
	};
}

static const char *const sort_names[METRICS_SORT_NR] = {
	[METRICS_SORT_PTR] = "ptr",	      [METRICS_SORT_CALLSITE] = "callsite",
	[METRICS_SORT_BYTES] = "bytes",	      [METRICS_SORT_HIT] = "hit",
	[METRICS_SORT_PINGPONG] = "pingpong", [METRICS_SORT_FRAG] = "frag",
};

int metrics_parse_sort(const char *s, enum metrics_sort_key *keys, int *n, struct err *e)
{
	*n = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		int k;
		for (k = 0; k < METRICS_SORT_NR; k++)
			if (strlen(sort_names[k]) == len && strncmp(s, sort_names[k], len) == 0)
				break;
		if (k == METRICS_SORT_NR || *n == METRICS_SORT_MAX)
			return err_set(e, SLABSIM_EUSAGE,
				       "--sort expects keys ptr, callsite, bytes, hit, pingpong, "
				       "frag (at most %d, comma-separated), got '%.*s'",
				       METRICS_SORT_MAX, (int)len, s);
		keys[(*n)++] = (enum metrics_sort_key)k;
		s += len;
		if (*s == ',')
			s++;
	}
	if (!*n)
		return err_set(e, SLABSIM_EUSAGE, "--sort needs at least one key");
	return 0;
}

/* A row of either table, for sorting and printing. */
struct sort_ctx;
struct perf_row {
	const struct sort_ctx *ctx; /* the sort keys (qsort has no context argument) */
	uint64_t ptr;
	const char *site;
	uint64_t bytes_req, bytes_alloc;
	uint64_t hit, pingpong;
};

struct sort_ctx {
	const enum metrics_sort_key *keys;
	int nkeys;
};

#define CMP3(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

/* perf puts the row that compares greater first under every key (all keys
 * sort descending); rows equal under all keys keep perf's input order,
 * ascending pointer or call site. */
static int row_cmp(const void *va, const void *vb)
{
	const struct perf_row *a = va, *b = vb;
	const struct sort_ctx *sort_keys = a->ctx;
	for (int i = 0; i < sort_keys->nkeys; i++) {
		int c = 0;
		switch (sort_keys->keys[i]) {
		case METRICS_SORT_PTR:
			c = CMP3(a->ptr, b->ptr);
			break;
		case METRICS_SORT_CALLSITE:
			c = strcmp(a->site, b->site);
			c = CMP3(c, 0);
			break;
		case METRICS_SORT_BYTES:
			c = CMP3(a->bytes_alloc, b->bytes_alloc);
			break;
		case METRICS_SORT_HIT:
			c = CMP3(a->hit, b->hit);
			break;
		case METRICS_SORT_PINGPONG:
			c = CMP3(a->pingpong, b->pingpong);
			break;
		case METRICS_SORT_FRAG:
			c = CMP3(frag(a->bytes_req, a->bytes_alloc),
				 frag(b->bytes_req, b->bytes_alloc));
			break;
		default:
			break;
		}
		if (c)
			return -c;
	}
	if (a->ptr != b->ptr)
		return CMP3(a->ptr, b->ptr);
	return strcmp(a->site, b->site);
}

/* The rows of --caller (per call site, those with hits) or --alloc (per
 * pointer), sorted by ctx; OUT: *rows (caller frees), *n. */
static int perf_rows(const struct metrics *m, bool is_caller, const struct sort_ctx *ctx,
		     struct perf_row **rows, uint32_t *n)
{
	uint32_t cap =
		is_caller ? (m->sites->n < m->perf.callers_cap ? m->sites->n : m->perf.callers_cap)
			  : (m->pstats ? m->nptrs : 0);
	*n = 0;
	if (!(*rows = calloc(cap ? cap : 1, sizeof(**rows))))
		return SLABSIM_ENOMEM;
	for (uint32_t i = 0; i < cap; i++) {
		if (is_caller) {
			const struct metrics_perf_caller *c = &m->perf.callers[i];
			if (c->hit)
				(*rows)[(*n)++] = (struct perf_row){ctx,
								    0,
								    strtab_str(m->sites, i),
								    c->bytes_req,
								    c->bytes_alloc,
								    c->hit,
								    c->pingpong};
		} else {
			const struct perf_ptr_stat *q = &m->pstats[i];
			(*rows)[(*n)++] = (struct perf_row){
				ctx,	      q->ptr,	      strtab_str(m->sites, m->ptrs[i].site),
				q->bytes_req, q->bytes_alloc, q->hit,
				q->pingpong};
		}
	}
	qsort(*rows, *n, sizeof(**rows), row_cmp);
	return 0;
}

static struct sort_ctx sort_keys(const enum metrics_sort_key *keys, int nkeys)
{
	static const enum metrics_sort_key def[] = {METRICS_SORT_FRAG, METRICS_SORT_HIT,
						    METRICS_SORT_BYTES};
	return nkeys ? (struct sort_ctx){keys, nkeys} : (struct sort_ctx){def, 3};
}

int metrics_perf_rows(const struct metrics *m, bool is_caller, const enum metrics_sort_key *keys,
		      int nkeys, struct metrics_perf_row **out, uint32_t *n)
{
	struct sort_ctx ctx = sort_keys(keys, nkeys);
	struct perf_row *rows;
	*out = NULL;
	*n = 0;
	if (!is_caller && !m->pstats)
		return 0;
	if (perf_rows(m, is_caller, &ctx, &rows, n))
		return SLABSIM_ENOMEM;
	if (!(*out = calloc(*n ? *n : 1, sizeof(**out)))) {
		free(rows);
		return SLABSIM_ENOMEM;
	}
	for (uint32_t i = 0; i < *n; i++)
		(*out)[i] = (struct metrics_perf_row){rows[i].ptr,	 rows[i].site,
						      rows[i].bytes_req, rows[i].bytes_alloc,
						      rows[i].hit,	 rows[i].pingpong};
	free(rows);
	return 0;
}

bool metrics_has_ptr_table(const struct metrics *m)
{
	return m->pstats != NULL;
}

double metrics_frag_pct(uint64_t bytes_req, uint64_t bytes_alloc)
{
	return frag(bytes_req, bytes_alloc);
}

/* ---- slabinfo ---- */

void metrics_slabinfo_cache(const struct policy_cache_info *ci, struct metrics_slabinfo *out)
{
	memset(out, 0, sizeof(*out));
	uint64_t n = ci->g.objs_per_slab;
	out->slabs = ci->nr_slabs;
	out->partial = ci->nr_partial;
	out->total_objects = ci->total_objects;
	out->objects = ci->total_objects - ci->free_in_partial;
	out->objects_partial = ci->nr_partial * n > ci->free_in_partial
				       ? ci->nr_partial * n - ci->free_in_partial
				       : 0;
	out->space = ci->nr_slabs * ((uint64_t)POLICY_PAGE_SIZE << ci->g.order);
	out->used = out->objects * ci->g.object_size;
	out->loss = out->space - out->used;
	out->ef = out->slabs ? (uint32_t)(out->used * 100 / out->space) : 100;
	out->fr = out->slabs ? (uint32_t)(out->partial * 100 / out->slabs) : 100;
}

/* A cache slabinfo lists: a root, of an allocator with /proc/slabinfo. */
bool metrics_slab_root(const struct policy *p, const struct policy_cache_info *ci, uint32_t id)
{
	return p->ops->get_slabinfo && ci->alias_of == id;
}

/* The walk over root caches with slabs: from *id on, the next one into
 * *id and *ci; false past the last. for (id = 0; next_root(..); id++). */
bool metrics_next_root(const struct policy *p, uint32_t *id, struct policy_cache_info *ci)
{
	for (uint32_t n = p->ops->nr_caches(p); *id < n; ++*id) {
		p->ops->cache_info(p, *id, ci);
		if (metrics_slab_root(p, ci, *id))
			return true;
	}
	return false;
}

/* Add a root cache to slabinfo -T's sums, which count caches with slabs and
 * objects only. */
void metrics_slabinfo_total_add(struct metrics_slabinfo_totals *out,
				const struct metrics_slabinfo *si)
{
	if (!si->slabs || !si->objects)
		return;
	out->active++;
	out->space += si->space;
	out->used += si->used;
	out->loss += si->loss;
	out->objects += si->objects;
	out->partobj += si->objects_partial;
	out->slabs += si->slabs;
	out->partial += si->partial;
}

void metrics_slabinfo_totals(const struct policy *p, struct metrics_slabinfo_totals *out)
{
	memset(out, 0, sizeof(*out));
	uint32_t n = p->ops->nr_caches(p);
	uint8_t *has_alias = calloc(n ? n : 1, 1);
	for (uint32_t id = 0; id < n; id++) {
		struct policy_cache_info ci;
		p->ops->cache_info(p, id, &ci);
		if (ci.alias_of != id) {
			out->aliases++;
			if (has_alias && !has_alias[ci.alias_of]++)
				out->alias_targets++;
			continue;
		}
		if (!metrics_slab_root(p, &ci, id))
			continue;
		out->caches++;
		struct metrics_slabinfo si;
		metrics_slabinfo_cache(&ci, &si);
		metrics_slabinfo_total_add(out, &si);
	}
	free(has_alias);
	out->mratio = out->used ? out->loss * 100 / out->used : 0;
	out->oratio = out->objects ? out->partobj * 100 / out->objects : 0;
}

/* ---- Johnstone & Wilson ---- */

void metrics_observe(struct metrics *m, uint64_t t, uint64_t heap, uint64_t live)
{
	metrics_jw_observe(&m->jw, t, heap, live);
}

struct metrics_jw_acc *metrics_jw_state(struct metrics *m)
{
	return &m->jw;
}

struct metrics_perf_acc *metrics_perf_state(struct metrics *m)
{
	return &m->perf;
}

static double ratio(uint64_t h, uint64_t l)
{
	return l ? (double)h / (double)l : -1.0;
}

void metrics_jw(const struct metrics *m, struct metrics_jw *out)
{
	*out = (struct metrics_jw){
		.heap_peak = m->jw.heap_peak,
		.heap_peak_t_ns = m->jw.heap_peak_t,
		.live_at_heap_peak = m->jw.live_at_heap_peak,
		.live_peak = m->jw.live_peak,
		.live_peak_t_ns = m->jw.live_peak_t,
		.heap_at_live_peak = m->jw.heap_at_live_peak,
		.f2 = ratio(m->jw.heap_at_live_peak, m->jw.live_peak),
		.f3 = ratio(m->jw.heap_peak, m->jw.live_at_heap_peak),
		.f4 = ratio(m->jw.heap_peak, m->jw.live_peak),
	};
	/* no time elapsed with live bytes: the last instant is the average */
	out->f1 = m->jw.weight ? m->jw.weighted / (double)m->jw.weight
			       : ratio(m->jw.last_heap, m->jw.last_live);
}

/* ---- page level ---- */

uint32_t metrics_unusable_index(const uint64_t free_blocks[POLICY_MAX_ORDER], uint32_t order)
{
	uint64_t free_pages = 0, suitable = 0;
	for (uint32_t o = 0; o < POLICY_MAX_ORDER; o++) {
		free_pages += free_blocks[o] << o;
		if (o >= order)
			suitable += free_blocks[o] << (o - order);
	}
	if (!free_pages)
		return 1000;
	return (uint32_t)((free_pages - (suitable << order)) * 1000 / free_pages);
}

void metrics_pages(const struct metrics *m, const struct policy *p, struct metrics_pages *out)
{
	memset(out, 0, sizeof(*out));
	out->mem_mib = m->o.mem_mib;
	out->zone_pages = m->o.mem_mib * (1024 * 1024 / POLICY_PAGE_SIZE);
	if (!p->ops->page_orders)
		return;
	struct policy_page_orders po;
	p->ops->page_orders(p, &po);
	out->have = true;
	const uint32_t top = POLICY_MAX_ORDER - 1;
	for (uint32_t o = 0; o < POLICY_MAX_ORDER; o++) {
		out->held_blocks[o] = po.held_blocks[o];
		out->free_blocks[o] = po.free_blocks[o];
	}
	/* the zone's memory the model never touched: whole MAX_ORDER blocks */
	if (po.grown_pages <= out->zone_pages)
		out->free_blocks[top] += (out->zone_pages - po.grown_pages) >> top;
	else
		out->over = true;
	for (uint32_t o = 0; o < POLICY_MAX_ORDER; o++) {
		out->free_pages += out->free_blocks[o] << o;
		out->unusable[o] = metrics_unusable_index(out->free_blocks, o);
	}
}

/* ---- free blocks (SLOB): the free part is free units, not free slots ---- */

/* The policy's free blocks, if it keeps its free space so. OUT: *out, and
 * its name in capitals ("SLOB") in upper (16 bytes). */
bool metrics_free_blocks(const struct policy *p, struct policy_free_blocks *out, char upper[16])
{
	if (!p->ops->free_blocks)
		return false;
	p->ops->free_blocks(p, out);
	size_t i = 0;
	for (const char *c = p->ops->name; *c && i < 15; c++)
		upper[i++] = (char)toupper((unsigned char)*c);
	upper[i] = '\0';
	return true;
}

int metrics_sample_rest(const struct metrics *m, const struct policy *p, const struct sink *k,
			uint64_t seq, uint64_t heap, const struct metrics_slabinfo_totals *st,
			struct err *e)
{
	struct metrics_pages pg;
	metrics_pages(m, p, &pg);
	struct sink_sample_metrics row = {
		.seq = seq,
		.heap_bytes = heap,
		.si_space = st->space,
		.si_used = st->used,
		.si_objects = st->objects,
		.si_partobj = st->partobj,
		.si_slabs = st->slabs,
		.si_partial = st->partial,
		.have_pages = pg.have,
		.free_pages = pg.free_pages,
	};
	int rc = SINK_EMIT(k, sample_metrics, &row, e);
	for (uint32_t o = 0; !rc && pg.have && o < POLICY_MAX_ORDER; o++) {
		struct sink_sample_order orow = {seq, o, pg.held_blocks[o], pg.free_blocks[o],
						 pg.unusable[o]};
		rc = SINK_EMIT(k, sample_order, &orow, e);
	}
	return rc;
}

void metrics_figures(const struct metrics *m, const struct policy *p, struct metrics_figures *out)
{
	metrics_perf_totals(m, &out->perf);
	metrics_slabinfo_totals(p, &out->si);
	metrics_jw(m, &out->jw);
	metrics_pages(m, p, &out->pages);
}

int metrics_record(const struct metrics *m, const struct policy *p, const struct sink *k,
		   const struct metrics_extra *x, struct err *e)
{
	struct metrics_figures f;
	metrics_figures(m, p, &f);
	struct sink_run_metrics row = {
		.perf_allocs = f.perf.allocs,
		.perf_frees = f.perf.frees,
		.perf_bytes_req = f.perf.bytes_req,
		.perf_bytes_alloc = f.perf.bytes_alloc,
		.perf_bytes_alloc_model = x->bytes_alloc_model,
		.perf_bytes_freed = f.perf.bytes_freed,
		.perf_frag_pct = f.perf.frag_pct,
		.perf_cross_node = f.perf.cross_node,
		.perf_pingpong = f.perf.pingpong,
		.si_caches = f.si.caches,
		.si_active = f.si.active,
		.si_space = f.si.space,
		.si_used = f.si.used,
		.si_loss = f.si.loss,
		.si_objects = f.si.objects,
		.si_partobj = f.si.partobj,
		.si_slabs = f.si.slabs,
		.si_partial = f.si.partial,
		.si_mratio = f.si.mratio,
		.si_oratio = f.si.oratio,
		.jw_heap_peak = f.jw.heap_peak,
		.jw_heap_peak_t_ns = f.jw.heap_peak_t_ns,
		.jw_live_peak = f.jw.live_peak,
		.jw_live_peak_t_ns = f.jw.live_peak_t_ns,
		.jw = {f.jw.f1, f.jw.f2, f.jw.f3, f.jw.f4},
		.mem_mib = f.pages.mem_mib,
		.have_pages = f.pages.have,
		.free_pages = f.pages.free_pages,
	};
	int rc = SINK_EMIT(k, run_metrics, &row, e);
	uint32_t ns = m->sites->n < m->perf.callers_cap ? m->sites->n : m->perf.callers_cap;
	for (uint32_t i = 0; !rc && i < ns; i++) {
		const struct metrics_perf_caller *c = &m->perf.callers[i];
		if (!c->hit)
			continue;
		struct sink_perf r = {
			0,	    strtab_str(m->sites, i), c->hit, c->bytes_req, c->bytes_alloc,
			c->pingpong};
		rc = SINK_EMIT(k, perf_caller, &r, e);
	}
	for (uint32_t i = 0; !rc && m->pstats && i < m->nptrs; i++) {
		const struct perf_ptr_stat *q = &m->pstats[i];
		struct sink_perf r = {q->ptr,	      strtab_str(m->sites, m->ptrs[i].site),
				      q->hit,	      q->bytes_req,
				      q->bytes_alloc, q->pingpong};
		rc = SINK_EMIT(k, perf_ptr, &r, e);
	}
	return rc;
}
