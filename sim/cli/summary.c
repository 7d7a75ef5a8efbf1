/* summary.c - the replay's summary (table or JSON), its end state as
 * /proc/slabinfo and the name pass's dump, printed over the engine's
 * read-only accessors (summary.h). */
#include "summary.h"
#include "json.h"
#include "policy.h"
#include "sat.h"
#include "sink.h"
#include "sites.h"
#include "strtab.h"
#include "trace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int cmp_pages_desc(const void *a, const void *b)
{
	const struct sink_cache *x = a, *y = b;
	if (x->pages != y->pages)
		return x->pages < y->pages ? 1 : -1;
	return strcmp(x->cache, y->cache);
}

static uint64_t cache_waste_sum(const struct sink_cache *r)
{
	return r->waste_rounding + r->waste_layout + r->waste_free_slots + r->waste_tail;
}

static int cmp_waste_desc(const void *a, const void *b)
{
	const struct sink_cache *x = a, *y = b;
	uint64_t wx = cache_waste_sum(x), wy = cache_waste_sum(y);
	if (wx != wy)
		return wx < wy ? 1 : -1;
	return strcmp(x->cache, y->cache);
}

static int cmp_live_desc(const void *a, const void *b)
{
	const struct sink_cache *x = a, *y = b;
	if (x->live_objs != y->live_objs)
		return x->live_objs < y->live_objs ? 1 : -1;
	return strcmp(x->cache, y->cache);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct sink_cache *)a)->cache, ((const struct sink_cache *)b)->cache);
}

/* The rows of the summary's cache table, sorted as tv asks. OUT: *rows
 * (caller frees; NULL when out of memory: no rows), *nrows the rows to
 * show, *all_rows all of them. */
static void summary_rows(const struct sim *s, const struct sim_table_view *tv,
			 struct sink_cache **rows_out, uint32_t *nrows_out, uint32_t *all_rows)
{
	const struct policy *p = sim_policy(s);
	uint32_t n = p->ops->nr_caches(p), nrows = 0;
	struct sink_cache *rows = calloc(n ? n : 1, sizeof(*rows));
	for (uint32_t id = 0; rows && id < n; id++)
		if (sim_cache_row(s, id, &rows[nrows]))
			nrows++;
	static int (*const cmp[])(const void *, const void *) = {cmp_pages_desc, cmp_waste_desc,
								 cmp_live_desc, cmp_name};
	if (rows)
		qsort(rows, nrows, sizeof(*rows), cmp[tv ? tv->key : SIM_SORT_PAGES]);
	*all_rows = nrows;
	if (tv && tv->lines >= 0 && (uint32_t)tv->lines < nrows)
		nrows = (uint32_t)tv->lines; /* -l: the first rows, the rest counted */
	*rows_out = rows;
	*nrows_out = nrows;
}

/* The configuration's names, as the summary prints them. */
struct cfg_names {
	const char *allocator, *kernel, *align, *kernel_from, *nr_cpus_from;
	char dbg[8];
};

static void cfg_names(const struct sim *s, struct cfg_names *c)
{
	const struct policy_cfg *cfg = sim_cfg(s);
	c->allocator = sim_policy(s)->ops->name;
	c->kernel = policy_kernel_name(cfg->kernel);
	c->align = policy_align_name(cfg->align);
	policy_slub_debug_str(cfg->slub_debug, c->dbg);
	sim_config_from(s, &c->kernel_from, &c->nr_cpus_from);
}

/* JSON: "trace", "config", "config_from", "start", "events", "anomalies",
 * "anomaly_first_lines". */
static void json_head(const struct sim *s, FILE *out, const char *trace_path,
		      const struct sim_totals *t, const struct summary_start *st)
{
	const struct policy_cfg *cfg = sim_cfg(s);
	struct cfg_names c;
	cfg_names(s, &c);
	fprintf(out, "{\n  \"trace\": ");
	json_str(out, trace_path ? trace_path : "");
	fprintf(out,
		",\n  \"config\": {\"allocator\": \"%s\", \"kernel\": \"%s\", \"align\": "
		"\"%s\", \"slub_debug\": \"%s\", \"nr_cpus\": %u, \"slab_debug\": %s, "
		"\"slab_max_order\": %u},\n",
		c.allocator, c.kernel, c.align, c.dbg, cfg->nr_cpus,
		cfg->slab_debug ? "true" : "false", cfg->slab_max_order);
	if (c.kernel_from || c.nr_cpus_from) {
		fprintf(out, "  \"config_from\": {\"kernel\": ");
		json_str(out, c.kernel_from ? c.kernel_from : "");
		fprintf(out, ", \"nr_cpus\": ");
		json_str(out, c.nr_cpus_from ? c.nr_cpus_from : "");
		fprintf(out, "},\n");
	}
	char wif[320];
	if (policy_what_if(cfg, c.allocator, wif, sizeof(wif))) {
		fprintf(out, "  \"what_if\": ");
		json_str(out, wif);
		fprintf(out, ",\n");
	}
	if (st && !st->table_only) {
		fprintf(out,
			"  \"start\": {\"state\": \"%s\", \"caches\": %" PRIu64
			", \"slabs\": %" PRIu64 ", \"note\": ",
			st->state, st->caches, st->slabs);
		json_str(out, st->text);
		fprintf(out, "},\n");
	}
	fprintf(out, "  \"events\": {");
	for (int i = 0; i < TRACE_EV_NR; i++)
		fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", trace_ev_names[i], t->events[i]);
	fprintf(out, "},\n  \"anomalies\": {");
	for (int i = 0; i < SIM_AN_NR; i++)
		fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", sim_anomaly_names[i],
			t->anomalies[i]);
	/* where each kind was first seen (input line, 0 = never) */
	fprintf(out, "},\n  \"anomaly_first_lines\": {");
	for (int i = 0; i < SIM_AN_NR; i++)
		fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", sim_anomaly_names[i],
			sim_anomaly_first_line(s, (enum sim_anomaly)i));
	fprintf(out, "},\n");
}

/* JSON: "lines" and "lost_events", from the trace's counts. */
static void json_lines(const struct sim *s, FILE *out, const struct trace_stats *ts)
{
	fprintf(out,
		"  \"lines\": {\"total\": %" PRIu64 ", \"header\": %" PRIu64
		", \"other_events\": %" PRIu64 ", \"malformed\": %" PRIu64
		", \"lost_markers\": %" PRIu64 ", \"lost_events\": %" PRIu64
		", \"first_malformed_line\": %" PRIu64 ", \"first_malformed\": ",
		ts->lines, ts->header_lines, ts->other_events, ts->malformed, ts->lost_markers,
		ts->lost_events, ts->first_malformed_line);
	json_str(out, ts->malformed ? ts->first_malformed_msg : "");
	fprintf(out, "},\n");
	/* every source: its count, null when the input has none */
	struct sim_lost l;
	sim_lost_events(s, ts, &l);
	fprintf(out, "  \"lost_events\": {");
	const char *key;
	bool present;
	uint64_t cnt;
	for (size_t i = 0; sim_lost_source(&l, i, &key, &present, &cnt); i++) {
		fprintf(out, "\"%s\": ", key);
		if (present)
			fprintf(out, "%" PRIu64 ", ", cnt);
		else
			fprintf(out, "null, ");
	}
	fprintf(out, "\"total\": %" PRIu64 "},\n", l.total);
}

/* JSON: "totals" and "align_sites". */
static void json_totals(const struct sim *s, FILE *out, const struct sim_totals *t)
{
	const struct policy_cfg *cfg = sim_cfg(s);
	fprintf(out,
		"  \"totals\": {\"live_objects\": %" PRIu64 ", \"live_req_bytes\": %" PRIu64
		", \"slab_pages\": %" PRIu64 ", \"peak_slab_pages\": %" PRIu64
		", \"peak_slab_pages_t_ns\": %" PRIu64 ", \"large_pages\": %" PRIu64
		", \"waste\": {\"rounding\": %" PRIu64 ", \"layout\": %" PRIu64
		", \"free_slots\": %" PRIu64 ", \"slab_tail\": %" PRIu64
		"}, \"align_violations\": %" PRIu64 ", \"samples\": %" PRIu64
		", \"bytes_req_total\": %" PRIu64 ", \"bytes_alloc_trace_total\": %" PRIu64
		", \"bytes_alloc_model_total\": %" PRIu64 ", \"bytes_alloc_mismatches\": %" PRIu64
		"},\n",
		t->live_objs, t->live_req_bytes, t->slab_pages, t->peak_slab_pages,
		t->peak_slab_pages_t_ns, t->large_pages, t->waste_rounding, t->waste_layout,
		t->waste_free_slots, t->waste_tail, t->align_violations, t->samples,
		t->bytes_req_total, t->bytes_alloc_trace_total, t->bytes_alloc_model_total,
		t->alloc_size_mismatch);
	if (cfg->sites) {
		fprintf(out, "  \"align_sites\": {\"file\": ");
		json_str(out, policy_sites_path(cfg->sites));
		fprintf(out,
			", \"hash\": \"%s\", \"patterns\": %zu, \"listed_sites\": %u, "
			"\"listed_allocs\": %" PRIu64 ", \"listed_violations\": %" PRIu64 "},\n",
			policy_sites_hash(cfg->sites), policy_sites_count(cfg->sites),
			t->listed_sites, t->listed_allocs, t->listed_violations);
	}
}

/* JSON: "caches" (and "caches_total" when cut by -l). */
static void json_caches(FILE *out, const struct sink_cache *rows, uint32_t nrows, uint32_t all_rows)
{
	fprintf(out, "  \"caches\": [");
	for (uint32_t i = 0; i < nrows; i++) {
		const struct sink_cache *r = &rows[i];
		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		json_str(out, r->cache);
		fprintf(out,
			", \"object_size\": %u, \"slab_size\": %u, \"align\": %u, "
			"\"order\": %u, \"objs_per_slab\": %u, \"live_objects\": %" PRIu64
			", \"live_req_bytes\": %" PRIu64 ", \"slabs\": %" PRIu64
			", \"pages\": %" PRIu64 ", \"peak_pages\": %" PRIu64
			", \"waste\": {\"rounding\": %" PRIu64 ", \"layout\": %" PRIu64
			", \"free_slots\": %" PRIu64 ", \"slab_tail\": %" PRIu64
			"}, \"align_violations\": %" PRIu64 "}",
			r->object_size, r->slab_size, r->align, r->order, r->objs_per_slab,
			r->live_objs, r->live_req_bytes, r->slabs, r->pages, r->peak_pages,
			r->waste_rounding, r->waste_layout, r->waste_free_slots, r->waste_tail,
			r->align_violations);
	}
	fprintf(out, "\n  ]");
	if (all_rows > nrows) /* cut by -l */
		fprintf(out, ",\n  \"caches_total\": %u", all_rows);
}

/* The root caches whose count(cs) is nonzero, most first (stable). OUT:
 * *rows (caller frees; NULL with none or out of memory: a row that finds
 * no room is left out), *n. */
static void rows_by(const struct sim *s, uint64_t (*count)(const struct sim_cache_state *),
		    struct sim_cache_state **rows, uint32_t *n)
{
	uint32_t nc = sim_nr_caches(s);
	*rows = NULL;
	*n = 0;
	for (uint32_t id = 0; id < nc; id++) {
		struct sim_cache_state cs;
		sim_cache_state(s, id, &cs);
		if (!cs.root || !count(&cs))
			continue;
		struct sim_cache_state *r = realloc(*rows, (*n + 1) * sizeof(**rows));
		if (!r)
			continue;
		*rows = r;
		r[(*n)++] = cs;
	}
	for (uint32_t i = 1; i < *n; i++) /* insertion sort: few rows */
		for (uint32_t j = i; j > 0 && count(&(*rows)[j]) > count(&(*rows)[j - 1]); j--) {
			struct sim_cache_state t = (*rows)[j];
			(*rows)[j] = (*rows)[j - 1];
			(*rows)[j - 1] = t;
		}
}

static uint64_t untraced_count(const struct sim_cache_state *cs)
{
	return cs->untraced_frees;
}

/* The caches with allocations the replay inferred the trace did not show
 * (sim_cache_state.untraced_frees), most first. OUT: *rows (caller frees;
 * NULL with none or out of memory), *n; *total and *refreed summed over
 * every one. */
static void untraced_rows(const struct sim *s, struct sim_cache_state **rows, uint32_t *n,
			  uint64_t *total, uint64_t *refreed)
{
	uint32_t nc = sim_nr_caches(s);
	*total = *refreed = 0;
	for (uint32_t id = 0; id < nc; id++) {
		struct sim_cache_state cs;
		sim_cache_state(s, id, &cs);
		if (cs.root) {
			*total += cs.untraced_frees;
			*refreed += cs.untraced_refreed;
		}
	}
	rows_by(s, untraced_count, rows, n);
}

/* JSON: "untraced_allocations": the allocations inferred, by the evidence
 * and by cache (replay.c, "allocations the trace does not show"). */
static void json_untraced(const struct sim *s, FILE *out)
{
	struct sim_cache_state *rows;
	uint32_t n;
	uint64_t total, refreed;
	untraced_rows(s, &rows, &n, &total, &refreed);
	fprintf(out,
		"  \"untraced_allocations\": {\"inferred\": %" PRIu64 ", \"refreed\": %" PRIu64
		", \"beyond_start\": %" PRIu64 ", \"caches\": [",
		total, refreed, total - refreed);
	for (uint32_t i = 0; i < n; i++) {
		fprintf(out, "%s{\"name\": ", i ? ", " : "");
		json_str(out, rows[i].name);
		fprintf(out,
			", \"inferred\": %" PRIu64 ", \"refreed\": %" PRIu64
			", \"start_objs_freed\": %" PRIu64 "}",
			rows[i].untraced_frees, rows[i].untraced_refreed, rows[i].pre_freed);
	}
	fprintf(out, "]},\n");
	free(rows);
}

/* Table: one line of the allocations inferred, when there are any. */
static void table_untraced(const struct sim *s, FILE *out)
{
	struct sim_cache_state *rows;
	uint32_t n;
	uint64_t total, refreed;
	untraced_rows(s, &rows, &n, &total, &refreed);
	if (total) {
		fprintf(out,
			"untraced allocations inferred %" PRIu64 " (%" PRIu64
			" pointers freed again with no allocation between, %" PRIu64
			" frees beyond the start state):",
			total, refreed, total - refreed);
		uint32_t shown = n < 8 ? n : 8;
		for (uint32_t i = 0; i < shown; i++)
			fprintf(out, "%s %s %" PRIu64, i ? "," : "", rows[i].name,
				rows[i].untraced_frees);
		if (n > shown)
			fprintf(out, ", %u more caches", n - shown);
		fputc('\n', out);
	}
	free(rows);
}

static uint64_t inferred_total(const struct sim_cache_state *c)
{
	return c->freed_at_reuse + c->freed_at_teardown + c->freed_at_dup + c->freed_at_page_free +
	       c->freed_at_full_slab + c->start_parked + c->freed_at_bound;
}

/* The frees the replay inferred the trace did not show, by how. */
struct inferred {
	uint64_t reuse, teardown, dup, page, full, parked, bound, total;
};

/* The frees the replay inferred the trace did not show (sim_cache_state
 * freed_at_*), summed, and the caches with any, most first. OUT: *rows
 * (caller frees; NULL with none), *n, *sum. */
static void inferred_rows(const struct sim *s, struct sim_cache_state **rows, uint32_t *n,
			  struct inferred *sum)
{
	uint32_t nc = sim_nr_caches(s);
	memset(sum, 0, sizeof(*sum));
	for (uint32_t id = 0; id < nc; id++) {
		struct sim_cache_state cs;
		sim_cache_state(s, id, &cs);
		if (cs.root) {
			sum->reuse += cs.freed_at_reuse;
			sum->teardown += cs.freed_at_teardown;
			sum->dup += cs.freed_at_dup;
			sum->page += cs.freed_at_page_free;
			sum->full += cs.freed_at_full_slab;
			sum->parked += cs.start_parked;
			sum->bound += cs.freed_at_bound;
		}
	}
	sum->total = sum->reuse + sum->teardown + sum->dup + sum->page + sum->full + sum->parked +
		     sum->bound;
	rows_by(s, inferred_total, rows, n);
}

/* Table: one line of the frees inferred, when there are any. */
static void table_inferred(const struct sim *s, FILE *out)
{
	struct sim_cache_state *rows;
	uint32_t n;
	struct inferred sum;
	inferred_rows(s, &rows, &n, &sum);
	if (sum.total) {
		fprintf(out,
			"untraced frees inferred %" PRIu64 " (%" PRIu64
			" at an allocation of a live pointer, %" PRIu64
			" at an mm's teardown, %" PRIu64 " beyond a forked tree's size",
			sum.total, sum.reuse, sum.teardown, sum.dup);
		if (sum.page)
			fprintf(out, ", %" PRIu64 " in a page the page allocator took back",
				sum.page);
		if (sum.full)
			fprintf(out,
				", %" PRIu64 " start objects in a kernel slab the model held full",
				sum.full);
		if (sum.parked)
			fprintf(out, ", %" PRIu64 " start objects found parked at the start",
				sum.parked);
		if (sum.bound)
			fprintf(out, ", %" PRIu64 " beyond the bound of an mm's tree", sum.bound);
		fputs("):", out);
		uint32_t shown = n < 8 ? n : 8;
		for (uint32_t i = 0; i < shown; i++) {
			fprintf(out, "%s %s %" PRIu64 "+%" PRIu64 "+%" PRIu64, i ? "," : "",
				rows[i].name, rows[i].freed_at_reuse, rows[i].freed_at_teardown,
				rows[i].freed_at_dup);
			if (sum.page)
				fprintf(out, "+%" PRIu64, rows[i].freed_at_page_free);
			if (sum.full)
				fprintf(out, "+%" PRIu64, rows[i].freed_at_full_slab);
			if (sum.parked)
				fprintf(out, "+%" PRIu64, rows[i].start_parked);
			if (sum.bound)
				fprintf(out, "+%" PRIu64, rows[i].freed_at_bound);
		}
		if (n > shown)
			fprintf(out, ", %u more caches", n - shown);
		fputc('\n', out);
	}
	free(rows);
}

/* JSON: "untraced_frees": the frees inferred, by how and by cache. */
static void json_inferred(const struct sim *s, FILE *out)
{
	struct sim_cache_state *rows;
	uint32_t n;
	struct inferred sum;
	inferred_rows(s, &rows, &n, &sum);
	struct sim_totals t;
	sim_totals(s, &t);
	fprintf(out,
		"  \"untraced_frees\": {\"at_reuse\": %" PRIu64 ", \"at_teardown\": %" PRIu64
		", \"beyond_fork\": %" PRIu64 ", \"at_page_free\": %" PRIu64
		", \"at_full_slab\": %" PRIu64 ", \"start_parked\": %" PRIu64
		", \"beyond_tree_bound\": %" PRIu64 ", \"page_frees\": %" PRIu64
		", \"page_frees_before_base\": %" PRIu64 ", \"caches\": [",
		sum.reuse, sum.teardown, sum.dup, sum.page, sum.full, sum.parked, sum.bound,
		t.page_frees, t.page_frees_before_base);
	for (uint32_t i = 0; i < n; i++) {
		fprintf(out, "%s{\"name\": ", i ? ", " : "");
		json_str(out, rows[i].name);
		fprintf(out,
			", \"at_reuse\": %" PRIu64 ", \"at_teardown\": %" PRIu64
			", \"beyond_fork\": %" PRIu64 ", \"at_page_free\": %" PRIu64
			", \"at_full_slab\": %" PRIu64 ", \"start_parked\": %" PRIu64
			", \"beyond_tree_bound\": %" PRIu64 "}",
			rows[i].freed_at_reuse, rows[i].freed_at_teardown, rows[i].freed_at_dup,
			rows[i].freed_at_page_free, rows[i].freed_at_full_slab,
			rows[i].start_parked, rows[i].freed_at_bound);
	}
	fprintf(out, "]},\n");
	free(rows);
}

static void summary_json(const struct sim *s, FILE *out, const char *trace_path,
			 const struct trace_stats *ts, const struct summary_opts *o,
			 const struct sink_cache *rows, uint32_t nrows, uint32_t all_rows)
{
	struct sim_totals t;
	sim_totals(s, &t);
	json_head(s, out, trace_path, &t, o->start);
	if (ts)
		json_lines(s, out, ts);
	json_totals(s, out, &t);
	json_untraced(s, out);
	json_inferred(s, out);
	if (t.placed_outside || t.placed_traded || t.placed_start_moved ||
	    t.placed_parked_rehomed || t.placed_start_dropped)
		fprintf(out,
			"  \"placement\": {\"outside\": %" PRIu64 ", \"traded\": %" PRIu64
			", \"start_moved\": %" PRIu64 ", \"start_dropped\": %" PRIu64
			", \"parked_rehomed\": %" PRIu64 "},\n",
			t.placed_outside, t.placed_traded, t.placed_start_moved,
			t.placed_start_dropped, t.placed_parked_rehomed);
	struct metrics_extra mx = {.bytes_alloc_model = t.bytes_alloc_model_total};
	view_metrics_json(sim_metrics(s), sim_policy(s), out, &mx);
	json_caches(out, rows, nrows, all_rows);
	if (o->more)
		o->more(o->ctx, out);
	fprintf(out, "\n}\n");
}

/* Table: the configuration, the start, events, lines and anomalies. */
static void table_head(const struct sim *s, FILE *out, const char *trace_path,
		       const struct trace_stats *ts, const struct sim_totals *t,
		       const struct summary_start *st)
{
	struct cfg_names c;
	cfg_names(s, &c);
	fprintf(out, "slabsim replay of %s\n", trace_path ? trace_path : "(events)");
	fprintf(out, "allocator %s, kernel %s, align %s, slub_debug %s, nr_cpus %u\n", c.allocator,
		c.kernel, c.align, c.dbg, sim_cfg(s)->nr_cpus);
	if (c.kernel_from || c.nr_cpus_from)
		fprintf(out, "kernel from %s; nr_cpus from %s\n",
			c.kernel_from ? c.kernel_from : "the default",
			c.nr_cpus_from ? c.nr_cpus_from : "the default");
	char wif[320];
	if (policy_what_if(sim_cfg(s), c.allocator, wif, sizeof(wif)))
		fprintf(out, "what-if (no such kernel): %s\n", wif);
	if (st)
		fprintf(out, "start: %s\n", st->text);
	fputc('\n', out);
	fprintf(out, "events:");
	bool any_ev = false;
	for (int i = 0; i < TRACE_EV_NR; i++)
		if (t->events[i]) {
			fprintf(out, " %s %" PRIu64, trace_ev_names[i], t->events[i]);
			any_ev = true;
		}
	fprintf(out, "%s\n", any_ev ? "" : " none");
	if (ts) {
		struct sim_lost l;
		char why[160];
		sim_lost_events(s, ts, &l);
		sim_lost_str(&l, why, sizeof(why));
		fprintf(out,
			"lines: %" PRIu64 " (header %" PRIu64 ", other events %" PRIu64
			", malformed %" PRIu64 ", lost-event markers %" PRIu64
			"); lost events %" PRIu64 "%s (%s)\n",
			ts->lines, ts->header_lines, ts->other_events, ts->malformed,
			ts->lost_markers, l.total, sat_str(l.total), *why ? why : "none reported");
	}
	if (ts && ts->malformed)
		fprintf(out, "first malformed line: %s:%" PRIu64 ": %s\n",
			trace_path ? trace_path : "-", ts->first_malformed_line,
			ts->first_malformed_msg);
	fprintf(out, "anomalies:");
	bool any = false;
	for (int i = 0; i < SIM_AN_NR; i++)
		if (t->anomalies[i]) {
			fprintf(out, " %s %" PRIu64, sim_anomaly_names[i], t->anomalies[i]);
			any = true;
		}
	fprintf(out, "%s\n", any ? "" : " none");
	/* Anomalies are not fatal, but a user checking a trace needs to know
	 * where to look: the input line of the first of each kind. */
	const char *sep = "first anomaly lines: ";
	for (int i = 0; i < SIM_AN_NR; i++) {
		uint64_t line = sim_anomaly_first_line(s, (enum sim_anomaly)i);
		if (line) {
			fprintf(out, "%s%s %s:%" PRIu64, sep, sim_anomaly_names[i],
				trace_path ? trace_path : "-", line);
			sep = ", ";
		}
	}
	fprintf(out, "%s\n", any && *sep == ',' ? "\n" : "");
}

/* Table: totals, listed callers, bytes_alloc. */
static void table_totals(const struct sim *s, FILE *out, const struct sim_totals *t)
{
	const struct policy_cfg *cfg = sim_cfg(s);
	fprintf(out,
		"live objects %" PRIu64 " (%" PRIu64 " bytes requested)\n"
		"slab pages %" PRIu64 " at the end, %" PRIu64 " at peak (t=%.6f s); large kmalloc "
		"pages %" PRIu64 "\n"
		"waste bytes: rounding %" PRIu64 ", layout %" PRIu64 ", free slots %" PRIu64
		", slab tail %" PRIu64 "\n"
		"alignment violations %" PRIu64 "\n",
		t->live_objs, t->live_req_bytes, t->slab_pages, t->peak_slab_pages,
		(double)t->peak_slab_pages_t_ns / 1e9, t->large_pages, t->waste_rounding,
		t->waste_layout, t->waste_free_slots, t->waste_tail, t->align_violations);
	if (cfg->sites)
		fprintf(out,
			"listed callers (%s, %zu patterns): %u call sites, %" PRIu64
			" kmallocs, %" PRIu64 " not aligned as listed%s\n",
			policy_sites_path(cfg->sites), policy_sites_count(cfg->sites),
			t->listed_sites, t->listed_allocs, t->listed_violations,
			t->listed_violations == 0 ? " (every one aligned)" : "");
	fprintf(out,
		"bytes_alloc: trace %" PRIu64 "%s, model %" PRIu64 "%s (differs on %" PRIu64
		" allocations)\n\n",
		t->bytes_alloc_trace_total, sat_str(t->bytes_alloc_trace_total),
		t->bytes_alloc_model_total, sat_str(t->bytes_alloc_model_total),
		t->alloc_size_mismatch);
}

/* Table: the cache table, 20 rows unless -l says how many. */
static void table_caches(FILE *out, const struct sim_table_view *tv, const struct sink_cache *rows,
			 uint32_t nrows, uint32_t all_rows)
{
	fprintf(out, "%-24s %7s %7s %8s %6s %6s %6s %9s %8s %9s %8s %6s\n", "cache", "objsize",
		"slotsz", "live", "slabs", "pages", "peak", "rounding", "layout", "free", "tail",
		"misal");
	uint32_t shown = tv && tv->lines >= 0 ? nrows : nrows < 20 ? nrows : 20;
	for (uint32_t i = 0; i < shown; i++) {
		const struct sink_cache *r = &rows[i];
		fprintf(out,
			"%-24s %7u %7u %8" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64
			" %9" PRIu64 " %8" PRIu64 " %9" PRIu64 " %8" PRIu64 " %6" PRIu64 "\n",
			r->cache, r->object_size, r->slab_size, r->live_objs, r->slabs, r->pages,
			r->peak_pages, r->waste_rounding, r->waste_layout, r->waste_free_slots,
			r->waste_tail, r->align_violations);
	}
	if (all_rows > shown)
		fprintf(out, "... %u more caches (see --format json or the database)\n",
			all_rows - shown);
}

void summary_print(const struct sim *s, FILE *out, bool json, const char *trace_path,
		   const void *trace_stats)
{
	summary_print_more(s, out, json, trace_path, trace_stats, NULL);
}

void summary_print_more(const struct sim *s, FILE *out, bool json, const char *trace_path,
			const void *trace_stats, const struct summary_opts *o)
{
	static const struct summary_opts none = {0};
	const struct trace_stats *ts = trace_stats;
	struct sink_cache *rows;
	uint32_t nrows, all_rows;
	if (!o)
		o = &none;
	summary_rows(s, o->tv, &rows, &nrows, &all_rows);
	if (json) {
		summary_json(s, out, trace_path, ts, o, rows, nrows, all_rows);
	} else {
		struct sim_totals t;
		sim_totals(s, &t);
		table_head(s, out, trace_path, ts, &t, o->start);
		table_untraced(s, out);
		table_inferred(s, out);
		if (t.placed_outside || t.placed_traded || t.placed_start_moved ||
		    t.placed_parked_rehomed || t.placed_start_dropped)
			fprintf(out,
				"placement by address: %" PRIu64
				" objects put outside their kernel slab's model slab, %" PRIu64
				" traded places with one put outside before, %" PRIu64
				" start objects moved to another start slab, %" PRIu64
				" found not live (no start slab had room), %" PRIu64
				" parked objects moved into a slab the trace showed\n",
				t.placed_outside, t.placed_traded, t.placed_start_moved,
				t.placed_start_dropped, t.placed_parked_rehomed);
		table_totals(s, out, &t);
		struct metrics_extra mx = {.bytes_alloc_model = t.bytes_alloc_model_total};
		view_metrics_table(sim_metrics(s), sim_policy(s), out, &mx);
		table_caches(out, o->tv, rows, nrows, all_rows);
	}
	free(rows);
}

int summary_write_slabinfo(const struct sim *s, FILE *out)
{
	/* version 2.1 as mm/slab_common.c's cache_show() prints it, from the
	 * policy's get_slabinfo(); without one (SLOB, exact) the header alone.
	 * Root caches, newest first (slab_root_caches is a stack). */
	const struct policy *p = sim_policy(s);
	const struct policy_ops *ops = p->ops;
	fprintf(out, "slabinfo - version: 2.1\n");
	fprintf(out, "# name            <active_objs> <num_objs> <objsize> <objperslab> "
		     "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata "
		     "<active_slabs> <num_slabs> <sharedavail>\n");
	for (uint32_t id = ops->get_slabinfo ? ops->nr_caches(p) : 0; id-- > 0;) {
		struct policy_cache_info ci;
		struct policy_slabinfo si;
		ops->cache_info(p, id, &ci);
		if (ci.alias_of != id)
			continue;
		ops->get_slabinfo(p, id, &si);
		fprintf(out,
			"%-17s %6" PRIu64 " %6" PRIu64 " %6u %4u %4d : tunables %4u %4u %4u : "
			"slabdata %6" PRIu64 " %6" PRIu64 " %6" PRIu64 "\n",
			ci.name, si.active_objs, si.num_objs, ci.g.size, si.objects_per_slab,
			1 << si.cache_order, si.limit, si.batchcount, si.shared, si.active_slabs,
			si.num_slabs, si.shared_avail);
	}
	return ferror(out) ? SLABSIM_EIO : 0;
}

int summary_learned_dump(const struct sim *s, FILE *out)
{
	const struct strtab *sites = sim_sites(s), *names = sim_names(s);
	struct sim_learned_key *k;
	size_t n;
	if (sim_learned(s, &k, &n))
		return SLABSIM_ENOMEM;
	for (uint32_t id = 0; id < sites->n; id++)
		fprintf(out, "site %" PRIu32 " %s\n", id, strtab_str(sites, id));
	for (uint32_t id = 0; id < names->n; id++)
		fprintf(out, "name %" PRIu32 " %s\n", id, strtab_str(names, id));
	for (size_t i = 0; i < n; i++)
		fprintf(out, "learned %" PRIu32 " %" PRIu64 " %" PRIu64 " -> %" PRIu32 " %s\n",
			k[i].site, k[i].bytes_req, k[i].bytes_alloc, k[i].name,
			strtab_str(names, k[i].name));
	free(k);
	return 0;
}
