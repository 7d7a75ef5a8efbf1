/* report.c - the HTML report (see report.h). */
#include "report.h"
#include "query.h"
#include "study.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dir/name as base64 (RFC 4648) on f; returns 0 or -1 if unreadable. */
static int base64_file(FILE *f, const char *dir, const char *name)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char p[4096];
	unsigned char in[3];
	size_t n;
	(void)snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *src = fopen(p, "rb");
	if (!src)
		return -1;
	while ((n = fread(in, 1, 3, src)) > 0) {
		uint32_t v = (uint32_t)in[0] << 16 | (n > 1 ? (uint32_t)in[1] << 8 : 0) |
			     (n > 2 ? in[2] : 0);
		fputc(tab[v >> 18 & 63], f);
		fputc(tab[v >> 12 & 63], f);
		fputc(n > 1 ? tab[v >> 6 & 63] : '=', f);
		fputc(n > 2 ? tab[v & 63] : '=', f);
		if (n < 3)
			break;
	}
	int bad = ferror(src);
	fclose(src);
	return bad ? -1 : 0;
}

/* How a table names the trace of its rows: a section per trace says it in
 * its heading, so its tables leave the column out; the tables over all
 * traces show a short name (T1, T2, ... in the Traces legend), or nothing
 * when there is one trace (the page's first paragraph names it). */
enum trace_col { TRACE_NONE, TRACE_SHORT };

/* The named query `name` as a table under a heading; with trace, only its
 * rows of that trace (latest.trace). cols: the columns to show ("q.*": all),
 * from the query as q. An empty table says "no rows". */
static int table_cols(FILE *f, sqlite3 *db, const char *heading, const char *name,
		      const char *trace, enum trace_col tc, const char *cols, struct err *e)
{
	const struct query_def *q = query_find(name);
	unsigned long n;
	char *sql = trace ? sqlite3_mprintf("SELECT %s FROM (%s) q WHERE trace IS %Q", cols, q->sql,
					    trace)
		    : tc == TRACE_SHORT
			    ? sqlite3_mprintf("SELECT (SELECT short FROM temp.report_trace t "
					      "WHERE t.trace IS q.trace) AS trace, %s FROM (%s) q",
					      cols, q->sql)
			    : sqlite3_mprintf("SELECT %s FROM (%s) q", cols, q->sql);
	if (!sql)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	fprintf(f, trace ? "<h3>" : "<h2>");
	query_html_text(f, heading, false);
	fprintf(f, "%s\n<p class=q><code>slabsim query %s</code>: ", trace ? "</h3>" : "</h2>",
		name);
	query_html_text(f, q->desc, false);
	fprintf(f, "</p>\n<div class=t>\n");
	/* the query's own trace column: after the short name, or first */
	int skip = !strcmp(cols, "q.*") ? (tc == TRACE_SHORT && !trace ? 1 : 0) : -1;
	int rc = query_print_cols(db, sql, QUERY_HTML, skip, f, &n, e);
	sqlite3_free(sql);
	fprintf(f, "</div>\n");
	if (!rc && !n)
		fprintf(f, "<p class=none>no rows</p>\n");
	return rc;
}

static int table(FILE *f, sqlite3 *db, const char *heading, const char *name, const char *trace,
		 enum trace_col tc, struct err *e)
{
	return table_cols(f, db, heading, name, trace, tc, "q.*", e);
}

/* *tc: short names when the file has runs of several traces. */
static int count_traces(sqlite3 *db, enum trace_col *tc, struct err *e)
{
	sqlite3_stmt *st;
	char *sql = sqlite3_mprintf("%sSELECT count(DISTINCT trace) FROM latest", query_latest_cte);
	if (!sql)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return err_set(e, SLABSIM_EIO, "report query: %s", sqlite3_errmsg(db));
	*tc = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 1 ? TRACE_SHORT
										: TRACE_NONE;
	sqlite3_finalize(st);
	return 0;
}

/* The Traces legend (several traces): each trace's short name, label and
 * path, kept in temp.report_trace for the tables over all traces. */
static int trace_legend(FILE *f, sqlite3 *db, struct err *e)
{
	char *sql = sqlite3_mprintf(
		"CREATE TEMP TABLE IF NOT EXISTS report_trace AS %s"
		"SELECT 'T' || row_number() OVER (ORDER BY trace) AS short, trace,"
		" min(trace_path) AS path, count(*) AS runs FROM latest GROUP BY trace",
		query_latest_cte);
	if (!sql)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return err_set(e, SLABSIM_EIO, "report query: %s", sqlite3_errmsg(db));
	fprintf(f, "<h2>Traces</h2>\n<p class=q>The tables over all traces name each by its "
		   "short name; each trace has a section below.</p>\n<div class=t>\n");
	rc = query_print_cols(db,
			      "SELECT short, trace, path, runs FROM temp.report_trace "
			      "ORDER BY trace",
			      QUERY_HTML, -1, f, NULL, e);
	fprintf(f, "</div>\n");
	return rc;
}

/* One line per figure: what it shows (the figures' definitions are in
 * docs/metrics.md). */
static const char *fig_desc(const char *name)
{
	static const char *const d[][2] = {
		{"memory-time",
		 "Slab memory (slab pages x 4 KiB) of each run at every sample, over "
		 "virtual time since the trace's first event; dashed lines are the "
		 "trace markers (phases) of the runs."},
		{"align-overhead", "Extra peak slab memory of align=natural over align=none, in "
				   "percent of the none run, per allocator and debug setting, "
				   "over the pairs of runs that differ only in alignment."},
		{"waste-by-kind", "Waste at the end of each run by kind (size-class rounding, "
				  "layout, free slots, slab tail: the waste decomposition), "
				  "root caches summed."},
		{"top-caches", "The root caches with the most waste at the end (the four kinds "
			       "summed), one panel per allocator."},
		{"occupancy-cdf", "Empirical CDF of slab occupancy (live objects / (slabs x "
				  "objects per slab)) over every (sample, cache) point of each "
				  "run."},
		{"align-options",
		 "The options of the 2019 alignment debate side by side: extra peak slab "
		 "memory of each alignment policy over align=none, in percent of the none "
		 "run of the same trace and configuration, one group per allocator and "
		 "debug setting (the runs of analysis/sweeps/align-debate.sweep)."},
	};
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (!strcmp(d[i][0], name))
			return d[i][1];
	return NULL;
}

/* The definitions of every figure and column the page shows, so that it
 * stands alone wherever it is copied (docs/metrics.md and docs/schema.md
 * of the slabsim sources have the full text). */
static void definitions(FILE *f)
{
	static const char *const defs[][2] = {
		{"trace", "The input: its label (the capture directory's name for a capture's "
			  "trace, a <code>label =</code> of the sweep spec, else the path), "
			  "followed by <code>#</code> and 8 digits of its content hash when one "
			  "label names different contents. Runs are never pooled across traces."},
		{"trace_hash", "XXH3-128 of the trace's bytes as stored (compressed or "
			       "not; FNV-1a 64, 16 digits, in runs recorded before); for a "
			       "workload, the hash of its spec."},
		{"trace_kernel, trace_nr_cpus",
		 "What was detected from the input: a capture's uname.txt and ncpus.txt, "
		 "else the trace's own event format (accounted= fields: 6.1) and header "
		 "CPU count; empty when nothing was (stdin without a name pass, a workload)."},
		{"slab pages", "Pages (4 KiB) held by slabs: per cache, slabs &times; "
			       "2<sup>order</sup>; for SLOB, its shared page lists."},
		{"peak_slab_pages", "The most slab pages held at any moment of the run."},
		{"align", "<code>natural</code>: power-of-two kmalloc objects aligned to their "
			  "size (Linux 5.4 and later, option 4 of the 2019 debate); "
			  "<code>none</code>: the older rule; <code>cap512</code>: natural up "
			  "to 512 bytes, 512 below a page, a page from a page up (option 5). "
			  "Only the callers a sites file lists get alignment under "
			  "<code>own-caches</code> (their own kmem_cache per call site and "
			  "size class, option 1), <code>merged</code> (those caches merged "
			  "by the allocator's rules, option 2), "
			  "<code>kmalloc-aligned-caches</code> and "
			  "<code>kmalloc-aligned-overalloc</code> (kmalloc_aligned() by extra "
			  "aligned kmalloc caches or by over-allocating, option 3)."},
		{"paid_bytes", "What the alignment policy costs a call site: &Sigma; over its "
			       "kmallocs of (bytes_alloc &minus; bytes_alloc of the same "
			       "kmalloc under align=none) (slot_growth_bytes, of which "
			       "redzone_shift_bytes is the left red zone's growth under "
			       "slub_debug Z) plus the free fragments SLOB left before a block "
			       "to align it (fragment_bytes); live_growth_bytes: the slot "
			       "growth of the objects still live at the end."},
		{"debug", "SLUB's <code>slub_debug</code> letters (F sanity checks, Z red zones, "
			  "P poisoning, U owner tracking), <code>off</code> for none; SLAB's "
			  "CONFIG_DEBUG_SLAB as on/off."},
		{"pairs, extra_peak_pct", "Each natural run is paired with the none run of "
					  "the same trace and configuration; extra_peak_pct = "
					  "100 &times; (natural &minus; none peak pages) / none "
					  "peak pages, summed over the pairs of a row."},
		{"mean, ci95", "Over the pairs (or seeds) of one trace and configuration: the "
			       "mean and the half-width of its 95% confidence interval, "
			       "t(0.975, n&minus;1) &times; sd / &radic;n."},
		{"rounding", "Size-class rounding: &Sigma;(object size &minus; requested) over "
			     "live objects."},
		{"layout", "Bytes of each slot beyond the object: red zones, free pointer, "
			   "tracking, padding (live objects &times; (slot &minus; object size))."},
		{"free_slots", "Free slots &times; slot size; for SLOB the free space inside its "
			       "pages."},
		{"tail", "Page bytes of each slab that no slot covers."},
		{"occupancy", "Live objects / (slabs &times; objects per slab) of one cache at "
			      "one sample."},
		{"unaligned_allocs", "Power-of-two kmallocs whose address is not a multiple of "
				     "their size (align=none runs)."},
	};
	fprintf(f, "<h2 id=definitions>Definitions</h2>\n<dl>\n");
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		fprintf(f, "<dt>%s</dt><dd>%s</dd>\n", defs[i][0], defs[i][1]);
	fprintf(f, "</dl>\n<p class=q>Sizes are bytes unless a column says otherwise; times "
		   "are virtual seconds since the trace's first event. The full definitions "
		   "are in docs/metrics.md and docs/schema.md of the slabsim sources.</p>\n");
}

/* The "Phases" section: per trace whose runs have trace markers, one table
 * row per distinct marker (time, label; the final "end" sample left out) with
 * the slab pages of each policy there and the change since its previous
 * marker. */
struct phase_run {
	long long run_id;
	char name[96];
	long long pages, prev; /* -1: none */
};

static int phases_trace(FILE *f, sqlite3 *db, const char *trace, struct err *e)
{
	/* a run's kernel profile is named when the trace's runs have more
	 * than one (the figures mark them apart too) */
	static const char runs_sql[] =
		"SELECT run_id, allocator || CASE WHEN (SELECT count(DISTINCT k.kernel) FROM "
		"latest k WHERE k.trace IS ?1) > 1 THEN ' kernel=' || kernel ELSE '' END || "
		"' align=' || align || ' debug=' || debug || "
		"coalesce(' seed=' || json_extract(config_json, '$.workload.seed'), '') FROM "
		"latest "
		"WHERE trace IS ?1 ORDER BY allocator, kernel, align, debug, run_id";
	static const char marks_sql[] =
		", m AS (SELECT s.run_id, s.seq, s.label, s.slab_pages,\n"
		"    s.t_ns - l.t_first_ns AS rel FROM samples s JOIN latest l USING (run_id)\n"
		"  WHERE l.trace IS ?1 AND s.label IS NOT NULL\n"
		"    AND NOT (s.label = 'end' AND s.seq = (SELECT max(x.seq) FROM samples x\n"
		"                                         WHERE x.run_id = s.run_id)))\n"
		"SELECT rel, label, run_id, slab_pages FROM m\n"
		"ORDER BY rel, min(seq) OVER (PARTITION BY rel, label), label, run_id, seq";
	char sql[2048];
	sqlite3_stmt *st = NULL;
	struct phase_run *r = NULL;
	size_t nr = 0;
	int rc = 0;

	(void)snprintf(sql, sizeof(sql), "%s%s", query_latest_cte, runs_sql);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return err_set(e, SLABSIM_EIO, "report query: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, trace, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct phase_run *nrp = realloc(r, (nr + 1) * sizeof(*r));
		if (!nrp) {
			rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
			goto out;
		}
		r = nrp;
		r[nr].run_id = sqlite3_column_int64(st, 0);
		(void)snprintf(r[nr].name, sizeof(r[nr].name), "%s",
			       (const char *)sqlite3_column_text(st, 1));
		r[nr].pages = r[nr].prev = -1;
		nr++;
	}
	sqlite3_finalize(st);
	(void)snprintf(sql, sizeof(sql), "%s%s", query_latest_cte, marks_sql);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		st = NULL;
		rc = err_set(e, SLABSIM_EIO, "report query: %s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_text(st, 1, trace, -1, SQLITE_STATIC);
	fprintf(f, "<h3>Phases</h3>\n<p class=q>The slab pages (4 KiB) of each run at every "
		   "trace marker (<code>samples.label</code>) and the change since its previous "
		   "marker; times are virtual seconds since the first event.</p>\n");
	fprintf(f, "<div class=t>\n<table class=phases>\n<tr><th>t (s)</th><th>marker</th>");
	for (size_t i = 0; i < nr; i++) {
		fprintf(f, "<th>");
		query_html_text(f, r[i].name, false);
		fprintf(f, " (run %lld): slab pages</th><th>change</th>", r[i].run_id);
	}
	fprintf(f, "</tr>\n");
	char *label = NULL;
	long long rel = 0;
	for (bool more = true; more;) {
		int step = sqlite3_step(st);
		more = step == SQLITE_ROW;
		const char *lab = more ? (const char *)sqlite3_column_text(st, 1) : "";
		long long t = more ? sqlite3_column_int64(st, 0) : 0;
		if (label && (!more || t != rel || strcmp(lab, label))) {
			fprintf(f, "<tr class=phase><td class=n>%.6f</td><td>", (double)rel / 1e9);
			query_html_text(f, label, false);
			fprintf(f, "</td>");
			for (size_t i = 0; i < nr; i++) {
				if (r[i].pages < 0) {
					fprintf(f, "<td class=n></td><td class=n></td>");
					continue;
				}
				fprintf(f, "<td class=n>%lld</td><td class=n>", r[i].pages);
				if (r[i].prev >= 0)
					fprintf(f, "%+lld", r[i].pages - r[i].prev);
				fprintf(f, "</td>");
				r[i].prev = r[i].pages;
			}
			fprintf(f, "</tr>\n");
			free(label);
			label = NULL;
		}
		if (!more) {
			if (step != SQLITE_DONE)
				rc = err_set(e, SLABSIM_EIO, "report query: %s",
					     sqlite3_errmsg(db));
			break;
		}
		if (!label) {
			if (!(label = strdup(lab ? lab : ""))) {
				rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
				break;
			}
			rel = t;
			for (size_t i = 0; i < nr; i++)
				r[i].pages = -1;
		}
		long long id = sqlite3_column_int64(st, 2);
		for (size_t i = 0; i < nr; i++)
			if (r[i].run_id == id)
				r[i].pages = sqlite3_column_int64(st, 3);
	}
	free(label);
	fprintf(f, "</table>\n</div>\n");
out:
	sqlite3_finalize(st);
	free(r);
	return rc;
}

/* Does the trace have markers (other than the closing "end")? */
static int has_markers(sqlite3 *db, const char *trace, bool *yes, struct err *e)
{
	static const char q[] =
		"SELECT 1 FROM latest l JOIN samples s USING (run_id)\n"
		"WHERE l.trace IS ?1 AND s.label IS NOT NULL\n"
		"  AND NOT (s.label = 'end' AND s.seq = (SELECT max(x.seq) FROM samples x\n"
		"                                       WHERE x.run_id = s.run_id)) LIMIT 1";
	char sql[2048];
	sqlite3_stmt *st;
	(void)snprintf(sql, sizeof(sql), "%s%s", query_latest_cte, q);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return err_set(e, SLABSIM_EIO, "report query: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, trace, -1, SQLITE_STATIC);
	*yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return 0;
}

/* A section per trace: what it is, its phases, and the per-run tables of
 * its runs. */
static int trace_sections(FILE *f, sqlite3 *db, struct err *e)
{
	static const char q[] =
		"SELECT trace, min(trace_path), min(trace_hash), min(trace_kernel),\n"
		"       min(trace_nr_cpus), count(*) FROM latest\n"
		"GROUP BY trace ORDER BY trace";
	char sql[2048];
	sqlite3_stmt *st;
	int rc = 0;
	size_t n = 0;
	(void)snprintf(sql, sizeof(sql), "%s%s", query_latest_cte, q);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return err_set(e, SLABSIM_EIO, "report query: %s", sqlite3_errmsg(db));
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *cols[5];
		for (int i = 0; i < 5; i++) {
			const unsigned char *t = sqlite3_column_text(st, i);
			cols[i] = t ? (const char *)t : "";
		}
		char *trace = strdup(cols[0]);
		if (!trace) {
			rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		fprintf(f, "<h2 class=trace>Trace ");
		query_html_text(f, trace, false);
		fprintf(f, "</h2>\n<table>\n<tr><th>path</th><td>");
		query_html_text(f, cols[1], false);
		fprintf(f, "</td></tr>\n<tr><th>content hash</th><td>");
		query_html_text(f, *cols[2] ? cols[2] : "unknown", false);
		fprintf(f, "</td></tr>\n<tr><th>kernel detected</th><td>");
		query_html_text(f, *cols[3] ? cols[3] : "none", false);
		fprintf(f, "</td></tr>\n<tr><th>CPUs detected</th><td>");
		query_html_text(f, *cols[4] ? cols[4] : "none", false);
		fprintf(f, "</td></tr>\n<tr><th>runs</th><td>%lld</td></tr>\n</table>\n",
			sqlite3_column_int64(st, 5));
		bool marks = false;
		if (!(rc = has_markers(db, trace, &marks, e)) && marks)
			rc = phases_trace(f, db, trace, e);
		else if (!rc)
			fprintf(f, "<h3>Phases</h3>\n<p class=none>No run of this trace has trace "
				   "markers.</p>\n");
		if (!rc)
			rc = table(f, db, "Waste by kind", "waste-by-kind", trace, TRACE_NONE, e);
		if (!rc)
			rc = table(f, db, "The caches that waste most", "top-waste", trace,
				   TRACE_NONE, e);
		if (!rc)
			rc = table(f, db, "Call sites that would see unaligned objects",
				   "unaligned-sites", trace, TRACE_NONE, e);
		if (!rc && query_has_table(db, "align_cost"))
			rc = table(f, db, "Who pays for the alignment: the call sites", "align-pay",
				   trace, TRACE_NONE, e);
		else if (!rc)
			fprintf(f,
				"<h3>Who pays for the alignment: the call sites</h3>\n<p "
				"class=none>Not recorded: this file is schema version %lld; "
				"the table align_cost came with version 5.</p>\n",
				query_schema_version(db));
		free(trace);
		n++;
	}
	sqlite3_finalize(st);
	if (!rc && !n)
		fprintf(f, "<h2>Traces</h2>\n<p class=none>no rows</p>\n");
	return rc;
}

/* The page's head, up to its first heading. */
static void page_head(FILE *f, const char *title)
{
	fprintf(f,
		"<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n"
		"<title>%s</title>\n<style>\n"
		"body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em}\n"
		"table{border-collapse:collapse;font-size:85%%}\n"
		"td,th{border:1px solid #bbb;padding:2px 6px}th{background:#eee}\n"
		"td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
		"div.t{overflow-x:auto}img{max-width:100%%;border:1px solid #ddd}\n"
		"p.q{color:#444}figcaption{font-weight:bold}\n</style>\n</head>\n<body>\n"
		"<h1>%s</h1>\n",
		title, title);
}

/* One study's section: what is asked, how to rerun it, its table, its
 * figure, and what is validated. */
static int study_section(FILE *f, sqlite3 *db, const char *out_dir, const struct study_def *s,
			 const struct plot_opts *o, struct err *e)
{
	bool drawn;
	int rc = study_figure(db, out_dir, s, o->render, o->gnuplot, &drawn, e);
	if (rc)
		return rc;
	fprintf(f, "<section id=\"study-%s\">\n<h2>", s->id);
	query_html_text(f, s->title, false);
	fprintf(f, "</h2>\n<p><b>Asked:</b> ");
	query_html_text(f, s->question, false);
	fprintf(f,
		"</p>\n<p class=q>Rerun: <code>slabsim sweep %s --db FILE -j 2</code>, then "
		"<code>slabsim report --db FILE --study %s --out DIR</code>.</p>\n",
		s->spec, s->id);
	/* "*": every column, the trace too (a study has several traces) */
	if ((rc = table_cols(f, db, "Table", s->query, NULL, TRACE_NONE, "*", e)) ||
	    (s->more && (rc = table_cols(f, db, "Where", s->more, NULL, TRACE_NONE, "*", e))))
		return rc;
	fprintf(f, "<figure id=\"fig-study-%s\">\n<figcaption>", s->id);
	query_html_text(f, s->fig.caption, false);
	fprintf(f, "</figcaption>\n");
	if (!drawn || !o->render) {
		fprintf(f, "<p>Not drawn: %s.</p>\n</figure>\n",
			drawn ? "rendering was turned off" : "the table has no rows");
	} else {
		char png[96];
		(void)snprintf(png, sizeof(png), "study-%s.png", s->id);
		fprintf(f, "<img alt=\"study-%s\" src=\"data:image/png;base64,", s->id);
		if (base64_file(f, out_dir, png))
			return err_set(e, SLABSIM_EIO, "%s/%s: cannot read", out_dir, png);
		fprintf(f,
			"\">\n<p><a href=\"study-%s.svg\">SVG</a> &middot; <a "
			"href=\"study-%s.gp\">gnuplot script</a> &middot; <a "
			"href=\"study-%s.dat\">data</a></p>\n</figure>\n",
			s->id, s->id, s->id);
	}
	fprintf(f, "<p><b>Validated and what-if:</b> ");
	query_html_text(f, s->basis, false);
	fprintf(f, "</p>\n</section>\n");
	return 0;
}

/* The runs, with the switches each turned on (config_json names a switch
 * only when it is on). */
static int study_runs(FILE *f, sqlite3 *db, struct err *e)
{
	char *sql = sqlite3_mprintf(
		"%sSELECT trace, run_id, allocator, kernel, align, debug, nr_cpus,\n"
		"  trim(CASE WHEN json_extract(config_json, '$.slub_tiny') THEN 'slub_tiny ' "
		"ELSE '' END ||\n"
		"    CASE WHEN json_extract(config_json, '$.random_kmalloc') THEN "
		"'random_kmalloc ' ELSE '' END ||\n"
		"    CASE WHEN json_extract(config_json, '$.slab_buckets') THEN 'slab_buckets ' "
		"ELSE '' END ||\n"
		"    CASE WHEN json_extract(config_json, '$.slab_nomerge') THEN 'slab_nomerge ' "
		"ELSE '' END ||\n"
		"    coalesce('sheaf_capacity=' || json_extract(config_json, '$.sheaf_capacity') || "
		"' ', '') ||\n"
		"    coalesce('barn_limit=' || json_extract(config_json, '$.barn_limit'), '')) AS "
		"switches_on,\n"
		"  trace_kernel, events, peak_slab_pages, final_slab_pages\n"
		"FROM latest ORDER BY trace, run_id",
		query_latest_cte);
	if (!sql)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	fprintf(f, "<h2>Runs</h2>\n<p class=q>The newest run of every configuration, with the "
		   "configuration switches it turned on.</p>\n<div class=t>\n");
	int rc = query_print_cols(db, sql, QUERY_HTML, -1, f, NULL, e);
	sqlite3_free(sql);
	fprintf(f, "</div>\n");
	return rc;
}

int report_write_studies(const char *db_path, const char *out_dir, const char *const *ids, size_t n,
			 const struct plot_opts *o, struct err *e)
{
	sqlite3 *db = NULL;
	char p[4096];
	int rc;
	for (size_t i = 0; i < n; i++)
		if (!study_find(ids[i])) {
			char known[256] = "";
			for (const struct study_def *s = study_table; s->id; s++) {
				size_t l = strlen(known);
				(void)snprintf(known + l, sizeof(known) - l, "%s%s", l ? ", " : "",
					       s->id);
			}
			return err_set(e, SLABSIM_EUSAGE, "--study: expected one of %s, got '%s'",
				       known, ids[i]);
		}
	if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
		return err_set(e, SLABSIM_EIO, "%s: %s", out_dir, strerror(errno));
	if ((rc = query_open(db_path, &db, e)))
		return rc;
	(void)snprintf(p, sizeof(p), "%s/index.html", out_dir);
	FILE *f = fopen(p, "w");
	if (!f) {
		sqlite3_close(db);
		return err_set(e, SLABSIM_EIO, "%s: %s", p, strerror(errno));
	}
	page_head(f, "slabsim studies");
	fprintf(f, "<p>Results database <code>");
	query_html_text(f, db_path, false);
	fprintf(f, "</code>. Slab pages are 4 KiB pages of slabs (SLOB: of its page lists) at "
		   "the end of a run and at its peak; figures and tables come from the runs the "
		   "file holds (the newest of each configuration).</p>\n");
	for (size_t i = 0; i < n && !rc; i++)
		rc = study_section(f, db, out_dir, study_find(ids[i]), o, e);
	if (!rc)
		rc = study_runs(f, db, e);
	if (!rc)
		fprintf(f, "</body>\n</html>\n");
	sqlite3_close(db);
	if (fclose(f) != 0 && !rc)
		rc = err_set(e, SLABSIM_EIO, "%s: write error", p);
	return rc;
}

int report_write(const char *db_path, const char *out_dir, const struct plot_opts *o, struct err *e)
{
	struct plot_result pr;
	sqlite3 *db = NULL;
	int rc;
	char p[4096];

	if ((rc = plot_all(db_path, out_dir, o, &pr, e)))
		return rc;
	(void)snprintf(p, sizeof(p), "%s/index.html", out_dir);
	FILE *f = fopen(p, "w");
	if (!f)
		return err_set(e, SLABSIM_EIO, "%s: %s", p, strerror(errno));
	if ((rc = query_open(db_path, &db, e))) {
		fclose(f);
		return rc;
	}
	page_head(f, "slabsim report");
	fputs("<p>Results database <code>", f);
	query_html_text(f, db_path, false);
	fprintf(f, "</code>, %zu trace%s: <code>", pr.ntraces, pr.ntraces == 1 ? "" : "s");
	query_html_text(f, pr.trace, false);
	fprintf(f, "</code>. The figures have a panel per trace; they are also in this directory "
		   "as PNG and SVG, with the gnuplot scripts (<code>*.gp</code>) and their data "
		   "(<code>*.dat</code>). Every term is defined <a href=\"#definitions\">at the "
		   "end</a>.</p>\n");
	enum trace_col tc = TRACE_NONE;
	if ((rc = count_traces(db, &tc, e)) || (tc == TRACE_SHORT && (rc = trace_legend(f, db, e))))
		goto out;
	if ((rc = table(f, db,
			"Overview: what natural alignment costs, per trace, allocator "
			"and debug setting",
			"align-overhead", NULL, tc, e)) ||
	    (rc = table(f, db, "Repetitions: mean and 95% confidence interval over seeds",
			"seed-groups", NULL, tc, e)))
		goto out;
	fprintf(f, "<h2>Figures</h2>\n<p class=q>One encoding in every figure: colour = "
		   "allocator (SLUB blue, SLAB orange, SLOB green), dash = alignment (solid "
		   "natural, dashed none), thick line or hatched bar = debug on. Runs whose "
		   "series are identical are one line, titled with all of them.</p>\n");
	for (int i = 0; i < PLOT_NFIGS; i++) {
		const struct plot_fig *fg = &pr.figs[i];
		char png[64];
		if (!fg->drawn && fg->optional)
			continue; /* runs of the natural/none question only */
		(void)snprintf(png, sizeof(png), "%s.png", fg->name);
		fprintf(f, "<figure id=\"%s\">\n<figcaption>", fg->name);
		query_html_text(f, fg->title, false);
		fprintf(f, "</figcaption>\n");
		if (fig_desc(fg->name))
			fprintf(f, "<p class=q>%s</p>\n", fig_desc(fg->name));
		if (!fg->drawn || !o->render) {
			fprintf(f, "<p>Not drawn: ");
			query_html_text(f, fg->drawn ? "rendering was turned off" : fg->note,
					false);
			fprintf(f, ".</p>\n</figure>\n");
			continue;
		}
		if (fg->note[0]) {
			fprintf(f, "<p class=q>");
			query_html_text(f, fg->note, false);
			fprintf(f, ".</p>\n");
		}
		fprintf(f, "<img alt=\"%s\" src=\"data:image/png;base64,", fg->name);
		if (base64_file(f, out_dir, png)) {
			rc = err_set(e, SLABSIM_EIO, "%s/%s: cannot read", out_dir, png);
			goto out;
		}
		fprintf(f,
			"\">\n<p><a href=\"%s.svg\">SVG</a> &middot; <a href=\"%s.gp\">gnuplot "
			"script</a> &middot; <a href=\"%s.dat\">data</a></p>\n</figure>\n",
			fg->name, fg->name, fg->name);
	}
	/* the runs without their trace's path and hash (in its section) */
	if ((rc = trace_sections(f, db, e)) ||
	    (rc = table_cols(f, db, "Runs", "runs", NULL, tc,
			     "q.run_id, q.command, q.allocator, q.kernel, q.align, q.debug, "
			     "q.nr_cpus, q.trace_kernel, q.trace_nr_cpus, q.events, "
			     "q.peak_slab_pages, q.final_slab_pages, q.align_violations, "
			     "q.wall_seconds",
			     e)))
		goto out;
	definitions(f);
	fprintf(f, "</body>\n</html>\n");
out:
	sqlite3_close(db);
	if (fclose(f) != 0 && !rc)
		rc = err_set(e, SLABSIM_EIO, "%s: write error", p);
	return rc;
}
