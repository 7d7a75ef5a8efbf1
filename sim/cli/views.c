/* views.c - the metrics views of `slabsim replay` (docs/metrics.md): perf
 * kmem stat's tables and SUMMARY, tools/mm/slabinfo's totals and cache list,
 * the sysfs attributes slabinfo reads, and the summary's metrics lines,
 * printed over the read-only accessors of metrics.h and the policy. */
#include "json.h"
#include "metrics.h"
#include "policy.h"
#include "sat.h"
#include "summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char dots[] = "-------------------------------------------------------------------"
			   "--------------------------------------";

static void print_table(FILE *out, const struct metrics_perf_row *rows, uint32_t n, bool is_caller,
			int n_lines)
{
	fprintf(out, "%.105s\n", dots);
	fprintf(out, " %-34s |", is_caller ? "Callsite" : "Alloc Ptr");
	fprintf(out, " Total_alloc/Per | Total_req/Per   | Hit      | Ping-pong | Frag\n");
	fprintf(out, "%.105s\n", dots);
	/* perf's loop: "while (next && n_lines--)", then "..." if the limit
	 * (not the rows) ended it */
	uint32_t i = 0;
	while (i < n && n_lines--) {
		const struct metrics_perf_row *r = &rows[i++];
		char buf[64];
		const char *name = r->site;
		if (!is_caller) {
			(void)snprintf(buf, sizeof(buf), "%#" PRIx64, r->ptr);
			name = buf;
		}
		fprintf(out,
			" %-34s | %9" PRIu64 "/%-5" PRIu64 " | %9" PRIu64 "/%-5" PRIu64
			" | %8" PRIu64 " | %9" PRIu64 " | %6.3f%%\n",
			name, r->bytes_alloc, r->bytes_alloc / r->hit, r->bytes_req,
			r->bytes_req / r->hit, r->hit, r->pingpong,
			metrics_frag_pct(r->bytes_req, r->bytes_alloc));
	}
	if (n_lines == -1)
		fprintf(out, " ...                                | ...             | ...          "
			     "   | ...      | ...       | ...   \n");
	fprintf(out, "%.105s\n", dots);
}

/* A printer of one perf table: rows sorted, is_caller (--caller) or not
 * (--alloc), at most lines rows (< 0: all). */
typedef void (*perf_table_fn)(FILE *out, const struct metrics_perf_row *rows, uint32_t n,
			      bool is_caller, int lines);

/* Print the --caller and --alloc tables that were asked for with pr. */
static int perf_tables(const struct metrics *m, FILE *out, bool caller, bool alloc,
		       const enum metrics_sort_key *keys, int nkeys, int lines, perf_table_fn pr)
{
	for (int t = 0; t < 2; t++) {
		bool is_caller = t == 0;
		struct metrics_perf_row *rows;
		uint32_t n;
		if ((is_caller ? !caller : !(alloc && metrics_has_ptr_table(m))))
			continue;
		if (metrics_perf_rows(m, is_caller, keys, nkeys, &rows, &n))
			return SLABSIM_ENOMEM;
		pr(out, rows, n, is_caller, lines);
		free(rows);
	}
	return 0;
}

int view_perf(const struct metrics *m, FILE *out, bool caller, bool alloc,
	      const enum metrics_sort_key *keys, int nkeys, int lines, uint64_t bytes_alloc_model)
{
	if (perf_tables(m, out, caller, alloc, keys, nkeys, lines, print_table))
		return SLABSIM_ENOMEM;
	struct metrics_perf_totals pt;
	metrics_perf_totals(m, &pt);
	fprintf(out, "\nSUMMARY (SLAB allocator)");
	fprintf(out, "\n========================\n");
	fprintf(out, "Total bytes requested: %" PRIu64 "%s\n", pt.bytes_req, sat_str(pt.bytes_req));
	fprintf(out, "Total bytes allocated: %" PRIu64 "%s\n", pt.bytes_alloc,
		sat_str(pt.bytes_alloc));
	fprintf(out, "Total bytes freed:     %" PRIu64 "%s\n", pt.bytes_freed,
		sat_str(pt.bytes_freed));
	/* a difference of saturated sums would be a wrong figure */
	bool sat = pt.bytes_req == SAT_MAX || pt.bytes_alloc == SAT_MAX;
	if (pt.bytes_alloc > pt.bytes_freed && !sat && pt.bytes_freed != SAT_MAX)
		fprintf(out, "Net total bytes allocated: %" PRIu64 "\n",
			pt.bytes_alloc - pt.bytes_freed);
	if (sat)
		fprintf(out, "Total bytes wasted on internal fragmentation: unknown (a sum is "
			     "saturated)\n");
	else
		fprintf(out, "Total bytes wasted on internal fragmentation: %" PRIu64 "\n",
			pt.bytes_alloc - pt.bytes_req);
	if (sat)
		fprintf(out, "Internal fragmentation: unknown (a sum is saturated)\n");
	else
		fprintf(out, "Internal fragmentation: %f%%\n",
			metrics_frag_pct(pt.bytes_req, pt.bytes_alloc));
	fprintf(out, "Cross CPU allocations: %" PRIu64 "/%" PRIu64 "\n", pt.cross_node, pt.allocs);
	fprintf(out, "Ping-pong frees: %" PRIu64 "\n", pt.pingpong);
	if (!pt.exact)
		fprintf(out,
			"Unmatched frees: %" PRIu64
			" (no live record; perf counts those of pointers freed before: "
			"use --alloc for perf's exact figures)\n",
			pt.unmatched);
	fprintf(out, "Total bytes allocated (model): %" PRIu64 "\n", bytes_alloc_model);
	return 0;
}

/* One perf table as a JSON member (perf_table_fn). */
static void json_table(FILE *out, const struct metrics_perf_row *rows, uint32_t n, bool is_caller,
		       int lines)
{
	uint32_t shown = lines >= 0 && (uint32_t)lines < n ? (uint32_t)lines : n;
	fprintf(out, ",\n  \"%s\": {\"rows\": %" PRIu32 ", \"shown\": %" PRIu32 ", \"table\": [",
		is_caller ? "caller" : "alloc", n, shown);
	for (uint32_t i = 0; i < shown; i++) {
		const struct metrics_perf_row *r = &rows[i];
		fprintf(out, "%s\n    {", i ? "," : "");
		if (!is_caller)
			fprintf(out, "\"ptr\": \"%#" PRIx64 "\", ", r->ptr);
		fprintf(out, "\"callsite\": ");
		json_str(out, r->site);
		fprintf(out,
			", \"bytes_alloc\": %" PRIu64 ", \"bytes_req\": %" PRIu64
			", \"hit\": %" PRIu64 ", \"pingpong\": %" PRIu64 ", \"frag_pct\": %.3f}",
			r->bytes_alloc, r->bytes_req, r->hit, r->pingpong,
			metrics_frag_pct(r->bytes_req, r->bytes_alloc));
	}
	fprintf(out, "%s]}", shown ? "\n  " : "");
}

int view_perf_json(const struct metrics *m, FILE *out, bool caller, bool alloc,
		   const enum metrics_sort_key *keys, int nkeys, int lines)
{
	return perf_tables(m, out, caller, alloc, keys, nkeys, lines, json_table);
}

void view_slabinfo_totals(const struct policy *p, FILE *out)
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

int view_slabinfo_caches(const struct policy *p, FILE *out, bool by_loss)
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
		if (!(p->ops->get_slabinfo && x->ci.alias_of == id) || !x->ci.nr_slabs)
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

int view_write_sysfs(const struct policy *p, FILE *out)
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
	for (uint32_t id = 0; metrics_next_root(p, &id, &ci); id++) {
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

/* ---- the summary's metrics ---- */

static void print_ratio_pct(FILE *out, double r)
{
	if (r < 0)
		fprintf(out, "undefined");
	else
		fprintf(out, "%.4f (%.2f%%)", r, 100.0 * (r - 1.0));
}

/* Did a perf kmem sum saturate (sat.h)? */
static bool perf_saturated(const struct metrics_perf_totals *pt, const struct metrics_extra *x)
{
	return pt->bytes_req == SAT_MAX || pt->bytes_alloc == SAT_MAX ||
	       pt->bytes_freed == SAT_MAX || x->bytes_alloc_model == SAT_MAX;
}

void view_metrics_table(const struct metrics *m, const struct policy *p, FILE *out,
			const struct metrics_extra *x)
{
	struct metrics_figures f;
	metrics_figures(m, p, &f);
	fprintf(out, "metrics (definitions: docs/metrics.md)\n");
	fprintf(out,
		"perf kmem: requested %" PRIu64 ", allocated %" PRIu64 " (model %" PRIu64
		"), freed %" PRIu64 ", internal fragmentation %f%%, cross-node %" PRIu64 "/%" PRIu64
		", ping-pong %" PRIu64 ", unmatched frees %" PRIu64 "%s\n",
		f.perf.bytes_req, f.perf.bytes_alloc, x->bytes_alloc_model, f.perf.bytes_freed,
		f.perf.frag_pct, f.perf.cross_node, f.perf.allocs, f.perf.pingpong,
		f.perf.unmatched, f.perf.exact ? "" : " (live record: see docs/metrics.md)");
	if (perf_saturated(&f.perf, x))
		fprintf(out,
			"perf kmem: a sum exceeds 2^64 - 1: each %" PRIu64
			" above is saturated, not a total\n",
			SAT_MAX);
	fprintf(out,
		"slabinfo -T: memory used %" PRIu64 ", loss %" PRIu64 ", MRatio %" PRIu64
		"%%, objects %" PRIu64 ", partial objects %" PRIu64 ", ORatio %" PRIu64
		"%% (%" PRIu64 " of %" PRIu64 " caches active)\n",
		f.si.space, f.si.loss, f.si.mratio, f.si.objects, f.si.partobj, f.si.oratio,
		f.si.active, f.si.caches);
	fprintf(out, "J&W heap/live: #1 time average ");
	print_ratio_pct(out, f.jw.f1);
	fprintf(out, ", #2 at peak live (t=%.6f s) ", (double)f.jw.live_peak_t_ns / 1e9);
	print_ratio_pct(out, f.jw.f2);
	fprintf(out, ", #3 at peak heap (t=%.6f s) ", (double)f.jw.heap_peak_t_ns / 1e9);
	print_ratio_pct(out, f.jw.f3);
	fprintf(out, ", #4 peak heap %" PRIu64 " / peak live %" PRIu64 " ", f.jw.heap_peak,
		f.jw.live_peak);
	print_ratio_pct(out, f.jw.f4);
	fprintf(out, "\n");
	struct policy_free_blocks fb;
	char name[16];
	if (metrics_free_blocks(p, &fb, name))
		fprintf(out,
			"%s free: %" PRIu64 " bytes in %" PRIu64 " free blocks (alignment "
			"fragments included) on %" PRIu64 " partially free pages\n",
			name, fb.bytes, fb.blocks, fb.pages);
	if (!f.pages.have) {
		fprintf(out, "pages: no page allocator in this model\n\n");
		return;
	}
	fprintf(out, "pages held by order:");
	for (int o = 0; o < POLICY_MAX_ORDER; o++)
		fprintf(out, " %" PRIu64, f.pages.held_blocks[o]);
	fprintf(out, "\nunusable index (zone %" PRIu64 " MiB, %" PRIu64 " pages free%s):",
		f.pages.mem_mib, f.pages.free_pages,
		f.pages.over ? ", model grew past the zone" : "");
	for (int o = 0; o < POLICY_MAX_ORDER; o++)
		fprintf(out, " %u.%03u", f.pages.unusable[o] / 1000, f.pages.unusable[o] % 1000);
	fprintf(out, "\n\n");
}

static void json_ratio(FILE *out, const char *key, double r)
{
	if (r < 0)
		fprintf(out, "\"%s\": null", key);
	else
		fprintf(out, "\"%s\": %.6f", key, r);
}

void view_metrics_json(const struct metrics *m, const struct policy *p, FILE *out,
		       const struct metrics_extra *x)
{
	struct metrics_figures f;
	metrics_figures(m, p, &f);
	fprintf(out,
		"  \"metrics\": {\n    \"perf_kmem\": {\"allocs\": %" PRIu64 ", \"frees\": %" PRIu64
		", \"bytes_req\": %" PRIu64 ", \"bytes_alloc\": %" PRIu64
		", \"bytes_alloc_model\": %" PRIu64 ", \"bytes_freed\": %" PRIu64
		", \"bytes_wasted\": %" PRIu64 ", \"frag_pct\": %.6f, \"cross_node\": %" PRIu64
		", \"pingpong\": %" PRIu64 ", \"unmatched_frees\": %" PRIu64
		", \"ptr_record\": \"%s\", \"cpu_node_map\": \"all CPUs on node 0\"},\n",
		f.perf.allocs, f.perf.frees, f.perf.bytes_req, f.perf.bytes_alloc,
		x->bytes_alloc_model, f.perf.bytes_freed, f.perf.bytes_alloc - f.perf.bytes_req,
		f.perf.frag_pct, f.perf.cross_node, f.perf.pingpong, f.perf.unmatched,
		f.perf.exact ? "every pointer" : "live pointers");
	if (perf_saturated(&f.perf, x)) /* a member only then: the usual output stays as it was */
		fprintf(out,
			"    \"perf_kmem_saturated\": \"a sum exceeds 2^64 - 1: each "
			"%" PRIu64 " is saturated, not a total\",\n",
			SAT_MAX);
	fprintf(out,
		"    \"slabinfo_totals\": {\"caches\": %" PRIu64 ", \"aliases\": %" PRIu64
		", \"alias_targets\": %" PRIu64 ", \"active\": %" PRIu64
		", \"memory_used\": %" PRIu64 ", \"used\": %" PRIu64 ", \"loss\": %" PRIu64
		", \"mratio\": %" PRIu64 ", \"objects\": %" PRIu64 ", \"partobj\": %" PRIu64
		", \"oratio\": %" PRIu64 ", \"slabs\": %" PRIu64 ", \"partial\": %" PRIu64 "},\n",
		f.si.caches, f.si.aliases, f.si.alias_targets, f.si.active, f.si.space, f.si.used,
		f.si.loss, f.si.mratio, f.si.objects, f.si.partobj, f.si.oratio, f.si.slabs,
		f.si.partial);
	fprintf(out, "    \"slabinfo\": [");
	bool first = true;
	struct policy_cache_info ci;
	for (uint32_t id = 0; metrics_next_root(p, &id, &ci); id++) {
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
		f.jw.heap_peak, f.jw.heap_peak_t_ns, f.jw.live_at_heap_peak, f.jw.live_peak,
		f.jw.live_peak_t_ns, f.jw.heap_at_live_peak);
	json_ratio(out, "f1", f.jw.f1);
	fprintf(out, ", ");
	json_ratio(out, "f2", f.jw.f2);
	fprintf(out, ", ");
	json_ratio(out, "f3", f.jw.f3);
	fprintf(out, ", ");
	json_ratio(out, "f4", f.jw.f4);
	fprintf(out, "},\n");
	struct policy_free_blocks fb;
	char name[16];
	if (metrics_free_blocks(p, &fb, name))
		fprintf(out,
			"    \"%s\": {\"free_bytes\": %" PRIu64 ", \"free_blocks\": %" PRIu64
			", \"partial_pages\": %" PRIu64 "},\n",
			p->ops->name, fb.bytes, fb.blocks, fb.pages);
	if (!f.pages.have) {
		fprintf(out, "    \"pages\": null\n  },\n");
		return;
	}
	fprintf(out,
		"    \"pages\": {\"mem_mib\": %" PRIu64 ", \"zone_pages\": %" PRIu64
		", \"free_pages\": %" PRIu64 ", \"over_zone\": %s, \"held_blocks\": [",
		f.pages.mem_mib, f.pages.zone_pages, f.pages.free_pages,
		f.pages.over ? "true" : "false");
	for (int o = 0; o < POLICY_MAX_ORDER; o++)
		fprintf(out, "%s%" PRIu64, o ? ", " : "", f.pages.held_blocks[o]);
	fprintf(out, "], \"free_blocks\": [");
	for (int o = 0; o < POLICY_MAX_ORDER; o++)
		fprintf(out, "%s%" PRIu64, o ? ", " : "", f.pages.free_blocks[o]);
	fprintf(out, "], \"unusable_index\": [");
	for (int o = 0; o < POLICY_MAX_ORDER; o++)
		fprintf(out, "%s\"%u.%03u\"", o ? ", " : "", f.pages.unusable[o] / 1000,
			f.pages.unusable[o] % 1000);
	fprintf(out, "]}\n  },\n");
}
