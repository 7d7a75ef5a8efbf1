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
#include "json.h"
#include "sink.h"
#include "strtab.h"
#include "trace.h"
#include "u64map.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* What perf needs of every pointer it has seen, for "freed" and ping-pong
 * (12 bytes; kept for every distinct pointer, as perf does). */
struct perf_ptr {
	uint32_t last_alloc; /* bytes_alloc of the last allocation (sizes are < 4 GiB) */
	uint32_t site;	     /* call site of the last allocation; free list link once
				dropped (bounded record) */
	int32_t alloc_cpu;   /* -1 once freed */
};

/* The per-pointer table of perf kmem stat --alloc, kept only when asked
 * (metrics_opts.record_ptrs): index-parallel to ptrs. */
struct perf_ptr_stat {
	uint64_t ptr;
	uint64_t bytes_req, bytes_alloc;
	uint32_t hit, pingpong;
};

/* One call site as perf keeps it. */
struct perf_caller {
	uint64_t bytes_req, bytes_alloc;
	uint32_t hit, pingpong;
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
	uint64_t unmatched; /* frees of a pointer with no record */
	struct perf_caller *callers; /* by call-site id */
	uint32_t callers_cap;
	uint64_t allocs, frees, bytes_req, bytes_alloc, bytes_freed, cross_node, pingpong;
	struct metrics_jw_acc jw; /* Johnstone & Wilson */
};

/* The CPU -> NUMA node map: the models have one node, so every CPU is on
 * node 0 (docs/metrics.md). */
static int32_t cpu_node(uint32_t cpu)
{
	(void)cpu;
	return 0;
}

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
	m->ptrs_free = UINT32_MAX;
	*out = m;
	return 0;
}

void metrics_destroy(struct metrics *m)
{
	if (!m)
		return;
	u64map_fini(&m->ptr_index);
	free(m->ptrs);
	free(m->pstats);
	free(m->callers);
	free(m);
}

/* ---- perf kmem stat ---- */

static struct perf_caller *caller_ref(struct metrics *m, uint32_t site)
{
	if (site >= m->callers_cap) {
		uint32_t ncap = m->callers_cap ? m->callers_cap : 256;
		while (ncap <= site)
			ncap *= 2;
		struct perf_caller *n = realloc(m->callers, (size_t)ncap * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + m->callers_cap, 0, (size_t)(ncap - m->callers_cap) * sizeof(*n));
		m->callers = n;
		m->callers_cap = ncap;
	}
	return &m->callers[site];
}

int metrics_perf_alloc_at(struct metrics *m, const struct trace_event *ev, uint32_t site,
			  uint32_t *rec)
{
	struct perf_caller *c = caller_ref(m, site);
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
	p->last_alloc = ev->bytes_alloc > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->bytes_alloc;
	if (m->pstats) {
		struct perf_ptr_stat *ps = &m->pstats[idx];
		ps->hit++;
		ps->bytes_req += ev->bytes_req;
		ps->bytes_alloc += ev->bytes_alloc;
	}
	c->hit++;
	c->bytes_req += ev->bytes_req;
	c->bytes_alloc += ev->bytes_alloc;
	m->allocs++;
	m->bytes_req += ev->bytes_req;
	m->bytes_alloc += ev->bytes_alloc;
	if (ev->node != -1 && ev->node != cpu_node(ev->cpu))
		m->cross_node++;
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
	m->frees++;
	m->bytes_freed += p->last_alloc;
	if ((int32_t)ev->cpu != p->alloc_cpu) {
		if (m->pstats)
			m->pstats[idx].pingpong++;
		m->callers[p->site].pingpong++; /* exists: the allocation made it */
		m->pingpong++;
	}
	p->alloc_cpu = -1;
	if (!m->o.record_ptrs) { /* dropped: a later free of this pointer is unmatched */
		p->site = m->ptrs_free;
		m->ptrs_free = idx;
		*rec = METRICS_NO_REC;
	}
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
	*out = (struct metrics_perf_totals){
		.allocs = m->allocs,
		.frees = m->frees,
		.bytes_req = m->bytes_req,
		.bytes_alloc = m->bytes_alloc,
		.bytes_freed = m->bytes_freed,
		.cross_node = m->cross_node,
		.pingpong = m->pingpong,
		.unmatched = m->unmatched,
		.exact = m->o.record_ptrs,
		.frag_pct = frag(m->bytes_req, m->bytes_alloc),
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
	uint32_t hit, pingpong;
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

static const char dots[] = "-------------------------------------------------------------------"
			   "--------------------------------------";

static void print_table(FILE *out, struct perf_row *rows, uint32_t n, bool is_caller,
			const struct sort_ctx *ctx, int n_lines)
{
	for (uint32_t i = 0; i < n; i++)
		rows[i].ctx = ctx;
	qsort(rows, n, sizeof(*rows), row_cmp);
	fprintf(out, "%.105s\n", dots);
	fprintf(out, " %-34s |", is_caller ? "Callsite" : "Alloc Ptr");
	fprintf(out, " Total_alloc/Per | Total_req/Per   | Hit      | Ping-pong | Frag\n");
	fprintf(out, "%.105s\n", dots);
	/* perf's loop: "while (next && n_lines--)", then "..." if the limit
	 * (not the rows) ended it */
	uint32_t i = 0;
	while (i < n && n_lines--) {
		const struct perf_row *r = &rows[i++];
		char buf[64];
		const char *name = r->site;
		if (!is_caller) {
			(void)snprintf(buf, sizeof(buf), "%#" PRIx64, r->ptr);
			name = buf;
		}
		fprintf(out,
			" %-34s | %9" PRIu64 "/%-5" PRIu64 " | %9" PRIu64 "/%-5" PRIu64
			" | %8" PRIu32 " | %9" PRIu32 " | %6.3f%%\n",
			name, r->bytes_alloc, r->bytes_alloc / r->hit, r->bytes_req,
			r->bytes_req / r->hit, r->hit, r->pingpong,
			frag(r->bytes_req, r->bytes_alloc));
	}
	if (n_lines == -1)
		fprintf(out, " ...                                | ...             | ...          "
			     "   | ...      | ...       | ...   \n");
	fprintf(out, "%.105s\n", dots);
}

/* The rows of --caller (per call site, those with hits) or --alloc (per
 * pointer), sorted by ctx; OUT: *rows (caller frees), *n. */
static int perf_rows(const struct metrics *m, bool is_caller, const struct sort_ctx *ctx,
		     struct perf_row **rows, uint32_t *n)
{
	uint32_t cap = is_caller ? (m->sites->n < m->callers_cap ? m->sites->n : m->callers_cap)
				 : (m->pstats ? m->nptrs : 0);
	*n = 0;
	if (!(*rows = calloc(cap ? cap : 1, sizeof(**rows))))
		return SLABSIM_ENOMEM;
	for (uint32_t i = 0; i < cap; i++) {
		if (is_caller) {
			const struct perf_caller *c = &m->callers[i];
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

/* A printer of one perf table: rows sorted, is_caller (--caller) or not
 * (--alloc), at most lines rows (< 0: all). */
typedef void (*perf_table_fn)(FILE *out, struct perf_row *rows, uint32_t n, bool is_caller,
			      const struct sort_ctx *ctx, int lines);

/* Print the --caller and --alloc tables that were asked for with pr. */
static int perf_tables(const struct metrics *m, FILE *out, bool caller, bool alloc,
		       const enum metrics_sort_key *keys, int nkeys, int lines, perf_table_fn pr)
{
	struct sort_ctx ctx = sort_keys(keys, nkeys);
	for (int t = 0; t < 2; t++) {
		bool is_caller = t == 0;
		struct perf_row *rows;
		uint32_t n;
		if ((is_caller ? !caller : !(alloc && m->pstats)))
			continue;
		if (perf_rows(m, is_caller, &ctx, &rows, &n))
			return SLABSIM_ENOMEM;
		pr(out, rows, n, is_caller, &ctx, lines);
		free(rows);
	}
	return 0;
}

int metrics_print_perf(const struct metrics *m, FILE *out, bool caller, bool alloc,
		       const enum metrics_sort_key *keys, int nkeys, int lines,
		       uint64_t bytes_alloc_model)
{
	if (perf_tables(m, out, caller, alloc, keys, nkeys, lines, print_table))
		return SLABSIM_ENOMEM;
	fprintf(out, "\nSUMMARY (SLAB allocator)");
	fprintf(out, "\n========================\n");
	fprintf(out, "Total bytes requested: %" PRIu64 "\n", m->bytes_req);
	fprintf(out, "Total bytes allocated: %" PRIu64 "\n", m->bytes_alloc);
	fprintf(out, "Total bytes freed:     %" PRIu64 "\n", m->bytes_freed);
	if (m->bytes_alloc > m->bytes_freed)
		fprintf(out, "Net total bytes allocated: %" PRIu64 "\n",
			m->bytes_alloc - m->bytes_freed);
	fprintf(out, "Total bytes wasted on internal fragmentation: %" PRIu64 "\n",
		m->bytes_alloc - m->bytes_req);
	fprintf(out, "Internal fragmentation: %f%%\n", frag(m->bytes_req, m->bytes_alloc));
	fprintf(out, "Cross CPU allocations: %" PRIu64 "/%" PRIu64 "\n", m->cross_node, m->allocs);
	fprintf(out, "Ping-pong frees: %" PRIu64 "\n", m->pingpong);
	if (!m->o.record_ptrs)
		fprintf(out,
			"Unmatched frees: %" PRIu64
			" (no live record; perf counts those of pointers freed before: "
			"use --alloc for perf's exact figures)\n",
			m->unmatched);
	fprintf(out, "Total bytes allocated (model): %" PRIu64 "\n", bytes_alloc_model);
	return 0;
}

/* One perf table as a JSON member (perf_table_fn). */
static void json_table(FILE *out, struct perf_row *rows, uint32_t n, bool is_caller,
		       const struct sort_ctx *ctx, int lines)
{
	uint32_t shown = lines >= 0 && (uint32_t)lines < n ? (uint32_t)lines : n;
	fprintf(out, ",\n  \"%s\": {\"rows\": %" PRIu32 ", \"shown\": %" PRIu32 ", \"table\": [",
		is_caller ? "caller" : "alloc", n, shown);
	for (uint32_t i = 0; i < shown; i++) {
		const struct perf_row *r = &rows[i];
		fprintf(out, "%s\n    {", i ? "," : "");
		if (!is_caller)
			fprintf(out, "\"ptr\": \"%#" PRIx64 "\", ", r->ptr);
		fprintf(out, "\"callsite\": ");
		json_str(out, r->site);
		fprintf(out,
			", \"bytes_alloc\": %" PRIu64 ", \"bytes_req\": %" PRIu64
			", \"hit\": %" PRIu32 ", \"pingpong\": %" PRIu32 ", \"frag_pct\": %.3f}",
			r->bytes_alloc, r->bytes_req, r->hit, r->pingpong,
			frag(r->bytes_req, r->bytes_alloc));
	}
	fprintf(out, "%s]}", shown ? "\n  " : "");
}

int metrics_print_perf_json(const struct metrics *m, FILE *out, bool caller, bool alloc,
			    const enum metrics_sort_key *keys, int nkeys, int lines)
{
	return perf_tables(m, out, caller, alloc, keys, nkeys, lines, json_table);
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
static bool slab_root(const struct policy *p, const struct policy_cache_info *ci, uint32_t id)
{
	return p->ops->get_slabinfo && ci->alias_of == id;
}

/* The walk over root caches with slabs: from *id on, the next one into
 * *id and *ci; false past the last. for (id = 0; next_root(..); id++). */
static bool next_root(const struct policy *p, uint32_t *id, struct policy_cache_info *ci)
{
	for (uint32_t n = p->ops->nr_caches(p); *id < n; ++*id) {
		p->ops->cache_info(p, *id, ci);
		if (slab_root(p, ci, *id))
			return true;
	}
	return false;
}

/* Add a root cache to slabinfo -T's sums, which count caches with slabs and
 * objects only. */
static void slabinfo_total_add(struct metrics_slabinfo_totals *out,
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
		if (!slab_root(p, &ci, id))
			continue;
		out->caches++;
		struct metrics_slabinfo si;
		metrics_slabinfo_cache(&ci, &si);
		slabinfo_total_add(out, &si);
	}
	free(has_alias);
	out->mratio = out->used ? out->loss * 100 / out->used : 0;
	out->oratio = out->objects ? out->partobj * 100 / out->objects : 0;
}

void metrics_print_slabinfo_totals(const struct policy *p, FILE *out)
{
	struct metrics_slabinfo_totals t;
	metrics_slabinfo_totals(p, &t);
	fprintf(out, "Slabcache Totals\n");
	fprintf(out, "----------------\n");
	if (!t.objects) {
		fprintf(out, "No objects\n");
		return;
	}
	fprintf(out,
		"Slabcaches : %15" PRIu64 "   Aliases  : %11" PRIu64 "->%-3" PRIu64
		"  Active:    %3" PRIu64 "\n",
		t.caches, t.aliases, t.alias_targets, t.active);
	fprintf(out,
		"Memory used: %15" PRIu64 "   # Loss   : %15" PRIu64 "   MRatio:%6" PRIu64 "%%\n",
		t.space, t.loss, t.mratio);
	fprintf(out,
		"# Objects  : %15" PRIu64 "   # PartObj: %15" PRIu64 "   ORatio:%6" PRIu64 "%%\n",
		t.objects, t.partobj, t.oratio);
	fprintf(out, "\n");
	fprintf(out, "#Slabs    %15" PRIu64 "\n", t.slabs);
	fprintf(out, "#PartSlab %15" PRIu64 "\n", t.partial);
	fprintf(out, "Memory    %15" PRIu64 "\n", t.space);
	fprintf(out, "Used      %15" PRIu64 "\n", t.used);
	fprintf(out, "Loss      %15" PRIu64 "\n", t.loss);
}

/* One line of the cache list, with what sorting needs. */
struct si_line {
	const char *name;
	struct policy_cache_info ci;
	struct metrics_slabinfo si;
	uint32_t aliases;
};

static int si_by_name(const void *va, const void *vb)
{
	const struct si_line *a = va, *b = vb;
	return strcasecmp(a->name, b->name);
}

static int si_by_loss(const void *va, const void *vb)
{
	const struct si_line *a = va, *b = vb;
	if (a->si.loss != b->si.loss)
		return a->si.loss < b->si.loss ? 1 : -1;
	return strcasecmp(a->name, b->name);
}

int metrics_print_slabinfo_caches(const struct policy *p, FILE *out, bool by_loss)
{
	uint32_t n = p->ops->nr_caches(p), nl = 0;
	struct si_line *l = calloc(n ? n : 1, sizeof(*l));
	uint32_t *aliases = calloc(n ? n : 1, sizeof(*aliases));
	if (!l || !aliases) {
		free(l);
		free(aliases);
		return SLABSIM_ENOMEM;
	}
	for (uint32_t id = 0; id < n; id++) {
		struct policy_cache_info ci;
		p->ops->cache_info(p, id, &ci);
		if (ci.alias_of != id)
			aliases[ci.alias_of]++;
	}
	for (uint32_t id = 0; id < n; id++) {
		struct si_line *x = &l[nl];
		p->ops->cache_info(p, id, &x->ci);
		/* slabinfo skips caches without slabs unless -z */
		if (!slab_root(p, &x->ci, id) || !x->ci.nr_slabs)
			continue;
		x->name = x->ci.name;
		x->aliases = aliases[id];
		metrics_slabinfo_cache(&x->ci, &x->si);
		nl++;
	}
	qsort(l, nl, sizeof(*l), by_loss ? si_by_loss : si_by_name);
	fprintf(out,
		"Name                   Objects Objsize           %s Slabs/Part/Cpu  O/S O %%Fr "
		"%%Ef Flg\n",
		by_loss ? " Loss" : "Space");
	for (uint32_t i = 0; i < nl; i++) {
		const struct si_line *x = &l[i];
		char dist[64], flags[16], *f = flags;
		uint32_t fl = x->ci.g.flags;
		(void)snprintf(dist, sizeof(dist), "%" PRIu64 "/%" PRIu64 "/%" PRIu64,
			       x->si.slabs - x->ci.cpu_slabs, x->si.partial, x->ci.cpu_slabs);
		if (x->aliases)
			*f++ = '*';
		if (fl & POLICY_F_CACHE_DMA)
			*f++ = 'd';
		if (fl & POLICY_F_HWCACHE_ALIGN)
			*f++ = 'A';
		if (fl & POLICY_F_POISON)
			*f++ = 'P';
		if (fl & POLICY_F_RECLAIM_ACCOUNT)
			*f++ = 'a';
		if (fl & POLICY_F_RED_ZONE)
			*f++ = 'Z';
		if (fl & POLICY_F_CONSISTENCY)
			*f++ = 'F';
		if (fl & POLICY_F_STORE_USER)
			*f++ = 'U';
		if (fl & POLICY_F_TRACE)
			*f++ = 'T';
		*f = 0;
		fprintf(out, "%-21s %8" PRIu64 " %7u %15" PRIu64 " %14s %4u %1u %3u %3u %s\n",
			x->name, x->si.objects, x->ci.g.object_size,
			by_loss ? x->si.loss : x->si.space, dist, x->ci.g.objs_per_slab,
			x->ci.g.order, x->si.fr, x->si.ef, flags);
	}
	free(l);
	free(aliases);
	return ferror(out) ? SLABSIM_EIO : 0;
}

int metrics_write_sysfs(const struct policy *p, FILE *out)
{
	uint32_t n = p->ops->nr_caches(p);
	uint32_t *aliases = calloc(n ? n : 1, sizeof(*aliases));
	if (!aliases)
		return SLABSIM_ENOMEM;
	for (uint32_t id = 0; id < n; id++) {
		struct policy_cache_info ci;
		p->ops->cache_info(p, id, &ci);
		if (ci.alias_of != id)
			aliases[ci.alias_of]++;
	}
	fprintf(out, "name\tobject_size\tslab_size\torder\tobjs_per_slab\tslabs\tpartial\tobjects"
		     "\tobjects_partial\ttotal_objects\taliases\n");
	struct policy_cache_info ci;
	for (uint32_t id = 0; next_root(p, &id, &ci); id++) {
		struct metrics_slabinfo si;
		metrics_slabinfo_cache(&ci, &si);
		fprintf(out,
			"%s\t%u\t%u\t%u\t%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
			"\t%" PRIu64 "\t%u\n",
			ci.name, ci.g.object_size, ci.g.size, ci.g.order, ci.g.objs_per_slab,
			si.slabs, si.partial, si.objects, si.objects_partial, si.total_objects,
			aliases[id]);
	}
	free(aliases);
	return ferror(out) ? SLABSIM_EIO : 0;
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
static bool free_blocks(const struct policy *p, struct policy_free_blocks *out, char upper[16])
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

/* ---- output ---- */

static void print_ratio_pct(FILE *out, double r)
{
	if (r < 0)
		fprintf(out, "undefined");
	else
		fprintf(out, "%.4f (%.2f%%)", r, 100.0 * (r - 1.0));
}

void metrics_print_table(const struct metrics *m, const struct policy *p, FILE *out,
			 const struct metrics_extra *x)
{
	struct metrics_perf_totals pt;
	struct metrics_slabinfo_totals st;
	struct metrics_jw jw;
	struct metrics_pages pg;
	metrics_perf_totals(m, &pt);
	metrics_slabinfo_totals(p, &st);
	metrics_jw(m, &jw);
	metrics_pages(m, p, &pg);
	fprintf(out, "metrics (definitions: docs/metrics.md)\n");
	fprintf(out,
		"perf kmem: requested %" PRIu64 ", allocated %" PRIu64 " (model %" PRIu64
		"), freed %" PRIu64 ", internal fragmentation %f%%, cross-node %" PRIu64 "/%" PRIu64
		", ping-pong %" PRIu64 ", unmatched frees %" PRIu64 "%s\n",
		pt.bytes_req, pt.bytes_alloc, x->bytes_alloc_model, pt.bytes_freed, pt.frag_pct,
		pt.cross_node, pt.allocs, pt.pingpong, pt.unmatched,
		pt.exact ? "" : " (live record: see docs/metrics.md)");
	fprintf(out,
		"slabinfo -T: memory used %" PRIu64 ", loss %" PRIu64 ", MRatio %" PRIu64
		"%%, objects %" PRIu64 ", partial objects %" PRIu64 ", ORatio %" PRIu64
		"%% (%" PRIu64 " of %" PRIu64 " caches active)\n",
		st.space, st.loss, st.mratio, st.objects, st.partobj, st.oratio, st.active,
		st.caches);
	fprintf(out, "J&W heap/live: #1 time average ");
	print_ratio_pct(out, jw.f1);
	fprintf(out, ", #2 at peak live (t=%.6f s) ", (double)jw.live_peak_t_ns / 1e9);
	print_ratio_pct(out, jw.f2);
	fprintf(out, ", #3 at peak heap (t=%.6f s) ", (double)jw.heap_peak_t_ns / 1e9);
	print_ratio_pct(out, jw.f3);
	fprintf(out, ", #4 peak heap %" PRIu64 " / peak live %" PRIu64 " ", jw.heap_peak,
		jw.live_peak);
	print_ratio_pct(out, jw.f4);
	fprintf(out, "\n");
	struct policy_free_blocks fb;
	char name[16];
	if (free_blocks(p, &fb, name))
		fprintf(out,
			"%s free: %" PRIu64 " bytes in %" PRIu64 " free blocks (alignment "
			"fragments included) on %" PRIu64 " partially free pages\n",
			name, fb.bytes, fb.blocks, fb.pages);
	if (!pg.have) {
		fprintf(out, "pages: no page allocator in this model\n\n");
		return;
	}
	fprintf(out, "pages held by order:");
	for (int o = 0; o < POLICY_MAX_ORDER; o++)
		fprintf(out, " %" PRIu64, pg.held_blocks[o]);
	fprintf(out,
		"\nunusable index (zone %" PRIu64 " MiB, %" PRIu64 " pages free%s):", pg.mem_mib,
		pg.free_pages, pg.over ? ", model grew past the zone" : "");
	for (int o = 0; o < POLICY_MAX_ORDER; o++)
		fprintf(out, " %u.%03u", pg.unusable[o] / 1000, pg.unusable[o] % 1000);
	fprintf(out, "\n\n");
}

static void json_ratio(FILE *out, const char *key, double r)
{
	if (r < 0)
		fprintf(out, "\"%s\": null", key);
	else
		fprintf(out, "\"%s\": %.6f", key, r);
}

void metrics_print_json(const struct metrics *m, const struct policy *p, FILE *out,
			const struct metrics_extra *x)
{
	struct metrics_perf_totals pt;
	struct metrics_slabinfo_totals st;
	struct metrics_jw jw;
	struct metrics_pages pg;
	metrics_perf_totals(m, &pt);
	metrics_slabinfo_totals(p, &st);
	metrics_jw(m, &jw);
	metrics_pages(m, p, &pg);
	fprintf(out,
		"  \"metrics\": {\n    \"perf_kmem\": {\"allocs\": %" PRIu64 ", \"frees\": %" PRIu64
		", \"bytes_req\": %" PRIu64 ", \"bytes_alloc\": %" PRIu64
		", \"bytes_alloc_model\": %" PRIu64 ", \"bytes_freed\": %" PRIu64
		", \"bytes_wasted\": %" PRIu64 ", \"frag_pct\": %.6f, \"cross_node\": %" PRIu64
		", \"pingpong\": %" PRIu64 ", \"unmatched_frees\": %" PRIu64
		", \"ptr_record\": \"%s\", \"cpu_node_map\": \"all CPUs on node 0\"},\n",
		pt.allocs, pt.frees, pt.bytes_req, pt.bytes_alloc, x->bytes_alloc_model,
		pt.bytes_freed, pt.bytes_alloc - pt.bytes_req, pt.frag_pct, pt.cross_node,
		pt.pingpong, pt.unmatched, pt.exact ? "every pointer" : "live pointers");
	fprintf(out,
		"    \"slabinfo_totals\": {\"caches\": %" PRIu64 ", \"aliases\": %" PRIu64
		", \"alias_targets\": %" PRIu64 ", \"active\": %" PRIu64
		", \"memory_used\": %" PRIu64 ", \"used\": %" PRIu64 ", \"loss\": %" PRIu64
		", \"mratio\": %" PRIu64 ", \"objects\": %" PRIu64 ", \"partobj\": %" PRIu64
		", \"oratio\": %" PRIu64 ", \"slabs\": %" PRIu64 ", \"partial\": %" PRIu64 "},\n",
		st.caches, st.aliases, st.alias_targets, st.active, st.space, st.used, st.loss,
		st.mratio, st.objects, st.partobj, st.oratio, st.slabs, st.partial);
	fprintf(out, "    \"slabinfo\": [");
	bool first = true;
	struct policy_cache_info ci;
	for (uint32_t id = 0; next_root(p, &id, &ci); id++) {
		if (!ci.nr_slabs)
			continue;
		struct metrics_slabinfo si;
		metrics_slabinfo_cache(&ci, &si);
		fprintf(out, "%s\n      {\"cache\": ", first ? "" : ",");
		json_str(out, ci.name);
		fprintf(out,
			", \"slabs\": %" PRIu64 ", \"partial\": %" PRIu64 ", \"objects\": %" PRIu64
			", \"objects_partial\": %" PRIu64 ", \"space\": %" PRIu64
			", \"used\": %" PRIu64 ", \"loss\": %" PRIu64 ", \"ef\": %u, \"fr\": %u}",
			si.slabs, si.partial, si.objects, si.objects_partial, si.space, si.used,
			si.loss, si.ef, si.fr);
		first = false;
	}
	fprintf(out, "\n    ],\n");
	fprintf(out,
		"    \"jw\": {\"heap_peak\": %" PRIu64 ", \"heap_peak_t_ns\": %" PRIu64
		", \"live_at_heap_peak\": %" PRIu64 ", \"live_peak\": %" PRIu64
		", \"live_peak_t_ns\": %" PRIu64 ", \"heap_at_live_peak\": %" PRIu64 ", ",
		jw.heap_peak, jw.heap_peak_t_ns, jw.live_at_heap_peak, jw.live_peak,
		jw.live_peak_t_ns, jw.heap_at_live_peak);
	json_ratio(out, "f1", jw.f1);
	fprintf(out, ", ");
	json_ratio(out, "f2", jw.f2);
	fprintf(out, ", ");
	json_ratio(out, "f3", jw.f3);
	fprintf(out, ", ");
	json_ratio(out, "f4", jw.f4);
	fprintf(out, "},\n");
	struct policy_free_blocks fb;
	char name[16];
	if (free_blocks(p, &fb, name))
		fprintf(out,
			"    \"%s\": {\"free_bytes\": %" PRIu64 ", \"free_blocks\": %" PRIu64
			", \"partial_pages\": %" PRIu64 "},\n",
			p->ops->name, fb.bytes, fb.blocks, fb.pages);
	if (!pg.have) {
		fprintf(out, "    \"pages\": null\n  },\n");
		return;
	}
	fprintf(out,
		"    \"pages\": {\"mem_mib\": %" PRIu64 ", \"zone_pages\": %" PRIu64
		", \"free_pages\": %" PRIu64 ", \"over_zone\": %s, \"held_blocks\": [",
		pg.mem_mib, pg.zone_pages, pg.free_pages, pg.over ? "true" : "false");
	for (int o = 0; o < POLICY_MAX_ORDER; o++)
		fprintf(out, "%s%" PRIu64, o ? ", " : "", pg.held_blocks[o]);
	fprintf(out, "], \"free_blocks\": [");
	for (int o = 0; o < POLICY_MAX_ORDER; o++)
		fprintf(out, "%s%" PRIu64, o ? ", " : "", pg.free_blocks[o]);
	fprintf(out, "], \"unusable_index\": [");
	for (int o = 0; o < POLICY_MAX_ORDER; o++)
		fprintf(out, "%s\"%u.%03u\"", o ? ", " : "", pg.unusable[o] / 1000,
			pg.unusable[o] % 1000);
	fprintf(out, "]}\n  },\n");
}

int metrics_sample(const struct metrics *m, const struct policy *p, const struct sink *k,
		   uint64_t seq, uint64_t heap, struct err *e)
{
	/* One walk of the caches: the per-cache rows and the sums of
	 * metrics_slabinfo_totals() that sample_metrics needs. */
	struct metrics_slabinfo_totals st = {0};
	struct metrics_pages pg;
	int rc = 0;
	metrics_pages(m, p, &pg);
	struct policy_cache_info ci;
	for (uint32_t id = 0; next_root(p, &id, &ci); id++) {
		struct metrics_slabinfo si;
		metrics_slabinfo_cache(&ci, &si);
		slabinfo_total_add(&st, &si);
		if (rc || !m->o.sample_cache)
			continue;
		/* every root, a row of zeros for one without slabs: the
		 * recorder writes only changes (docs/schema.md) */
		struct sink_sample_slabinfo cr = {.seq = seq, .cache = ci.name};
		if (ci.nr_slabs) {
			cr.slabs = si.slabs;
			cr.partial = si.partial;
			cr.objects = si.objects;
			cr.objects_partial = si.objects_partial;
			cr.space = si.space;
			cr.used = si.used;
		}
		rc = SINK_EMIT(k, sample_slabinfo, &cr, e);
	}
	if (rc)
		return rc;
	struct sink_sample_metrics row = {
		.seq = seq,
		.heap_bytes = heap,
		.si_space = st.space,
		.si_used = st.used,
		.si_objects = st.objects,
		.si_partobj = st.partobj,
		.si_slabs = st.slabs,
		.si_partial = st.partial,
		.have_pages = pg.have,
		.free_pages = pg.free_pages,
	};
	rc = SINK_EMIT(k, sample_metrics, &row, e);
	for (uint32_t o = 0; !rc && pg.have && o < POLICY_MAX_ORDER; o++) {
		struct sink_sample_order orow = {seq, o, pg.held_blocks[o], pg.free_blocks[o],
						 pg.unusable[o]};
		rc = SINK_EMIT(k, sample_order, &orow, e);
	}
	return rc;
}

int metrics_record(const struct metrics *m, const struct policy *p, const struct sink *k,
		   const struct metrics_extra *x, struct err *e)
{
	struct metrics_perf_totals pt;
	struct metrics_slabinfo_totals st;
	struct metrics_jw jw;
	struct metrics_pages pg;
	metrics_perf_totals(m, &pt);
	metrics_slabinfo_totals(p, &st);
	metrics_jw(m, &jw);
	metrics_pages(m, p, &pg);
	struct sink_run_metrics row = {
		.perf_allocs = pt.allocs,
		.perf_frees = pt.frees,
		.perf_bytes_req = pt.bytes_req,
		.perf_bytes_alloc = pt.bytes_alloc,
		.perf_bytes_alloc_model = x->bytes_alloc_model,
		.perf_bytes_freed = pt.bytes_freed,
		.perf_frag_pct = pt.frag_pct,
		.perf_cross_node = pt.cross_node,
		.perf_pingpong = pt.pingpong,
		.si_caches = st.caches,
		.si_active = st.active,
		.si_space = st.space,
		.si_used = st.used,
		.si_loss = st.loss,
		.si_objects = st.objects,
		.si_partobj = st.partobj,
		.si_slabs = st.slabs,
		.si_partial = st.partial,
		.si_mratio = st.mratio,
		.si_oratio = st.oratio,
		.jw_heap_peak = jw.heap_peak,
		.jw_heap_peak_t_ns = jw.heap_peak_t_ns,
		.jw_live_peak = jw.live_peak,
		.jw_live_peak_t_ns = jw.live_peak_t_ns,
		.jw = {jw.f1, jw.f2, jw.f3, jw.f4},
		.mem_mib = pg.mem_mib,
		.have_pages = pg.have,
		.free_pages = pg.free_pages,
	};
	int rc = SINK_EMIT(k, run_metrics, &row, e);
	uint32_t ns = m->sites->n < m->callers_cap ? m->sites->n : m->callers_cap;
	for (uint32_t i = 0; !rc && i < ns; i++) {
		const struct perf_caller *c = &m->callers[i];
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
