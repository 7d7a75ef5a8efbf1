/* plot.c - the five figures of a results database (see plot.h). */
#include "plot.h"
#include "query.h"

#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Both terminals: every script draws its figure twice. */
static const char *const terms[2][2] = {
	{"pngcairo size 960,600 noenhanced font 'Sans,10'", "png"},
	{"svg size 960,600 noenhanced font 'Sans,10' dynamic", "svg"},
};

struct ctx {
	sqlite3 *db;
	const char *dir;
	struct err *e;
	char trace[1024];
};

/* One run of the chosen trace. */
struct pol {
	long long run_id;
	char allocator[16], align[16], debug[16];
	char label[96];
};

static FILE *open_out(struct ctx *c, const char *name, const char *ext)
{
	char p[4096];
	(void)snprintf(p, sizeof(p), "%s/%s.%s", c->dir, name, ext);
	FILE *f = fopen(p, "w");
	if (!f)
		err_set(c->e, SLABSIM_EIO, "%s: %s", p, strerror(errno));
	return f;
}

/* A figure's NAME.dat, for the rows of its query st (finalized if the
 * file cannot be made). */
static FILE *open_dat(struct ctx *c, const char *name, sqlite3_stmt *st)
{
	FILE *d = open_out(c, name, "dat");
	if (!d)
		sqlite3_finalize(st);
	return d;
}

static int close_out(struct ctx *c, FILE *f, const char *name, const char *ext)
{
	if (fclose(f) != 0)
		return err_set(c->e, SLABSIM_EIO, "%s/%s.%s: write error", c->dir, name, ext);
	return 0;
}

static int prep(struct ctx *c, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(c->db, sql, -1, st, NULL) != SQLITE_OK)
		return err_set(c->e, SLABSIM_EIO, "plot query: %s", sqlite3_errmsg(c->db));
	return 0;
}

static int prep_latest(struct ctx *c, const char *rest, sqlite3_stmt **st)
{
	size_t n = strlen(query_latest_cte) + strlen(rest) + 1;
	char *sql = malloc(n);
	if (!sql)
		return err_set(c->e, SLABSIM_ENOMEM, "out of memory");
	(void)snprintf(sql, n, "%s%s", query_latest_cte, rest);
	int rc = prep(c, sql, st);
	free(sql);
	return rc;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? (const char *)t : "";
}

/* The runs of the chosen trace, labelled "allocator align debug". */
static int policies(struct ctx *c, struct pol **out, size_t *n)
{
	sqlite3_stmt *st;
	struct pol *p = NULL;
	size_t k = 0;
	int rc = prep_latest(c,
			     "SELECT run_id, allocator, align, debug, "
			     "json_extract(config_json, '$.workload.seed') FROM latest "
			     "WHERE trace_path IS ?1 ORDER BY allocator, align, debug, run_id",
			     &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, c->trace, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct pol *np = realloc(p, (k + 1) * sizeof(*np));
		if (!np) {
			free(p);
			sqlite3_finalize(st);
			return err_set(c->e, SLABSIM_ENOMEM, "out of memory");
		}
		p = np;
		memset(&p[k], 0, sizeof(p[k]));
		p[k].run_id = sqlite3_column_int64(st, 0);
		(void)snprintf(p[k].allocator, sizeof(p[k].allocator), "%s", col_text(st, 1));
		(void)snprintf(p[k].align, sizeof(p[k].align), "%s", col_text(st, 2));
		(void)snprintf(p[k].debug, sizeof(p[k].debug), "%s", col_text(st, 3));
		int w = snprintf(p[k].label, sizeof(p[k].label), "%s align=%s debug=%s",
				 p[k].allocator, p[k].align, p[k].debug);
		/* workload runs: the seed tells repetitions apart */
		if (sqlite3_column_type(st, 4) != SQLITE_NULL && w > 0 &&
		    (size_t)w < sizeof(p[k].label))
			(void)snprintf(p[k].label + w, sizeof(p[k].label) - (size_t)w, " seed=%s",
				       col_text(st, 4));
		k++;
	}
	sqlite3_finalize(st);
	/* same label twice (other axes differ): add the run id to every one of
	 * them (marked first: the last of a kind must get it too) */
	bool *dup = calloc(k + 1, sizeof(*dup));
	if (!dup) {
		free(p);
		return err_set(c->e, SLABSIM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < k; i++)
		for (size_t j = i + 1; j < k; j++)
			if (!strcmp(p[i].label, p[j].label))
				dup[i] = dup[j] = true;
	for (size_t i = 0; i < k; i++)
		if (dup[i]) {
			size_t l = strlen(p[i].label);
			(void)snprintf(p[i].label + l, sizeof(p[i].label) - l, " run %lld",
				       p[i].run_id);
		}
	free(dup);
	*out = p;
	*n = k;
	return 0;
}

/* gnuplot strings are single-quoted: double the quotes. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static void gp_head(FILE *f, const char *name, int t)
{
	fprintf(f, "set terminal %s\nset output '%s.%s'\n", terms[t][0], name, terms[t][1]);
}

/* 1a: the trace markers of the runs of figure 1 (samples.label), written to
 * NAME-phases.dat: one row per distinct (time, label), so markers that all
 * runs of the trace share are drawn once; the "end" sample every run closes
 * with is left out. Columns: t_s, the label (double quotes in it become
 * single ones: gnuplot's data strings cannot escape them), how many runs have
 * the marker, then the slab pages of each run at it ('?' = not in that run).
 * *nmark gets the number of rows; without markers the file is removed. */
static int memory_phases_dat(struct ctx *c, const struct pol *p, size_t np, const char *name,
			     size_t *nmark)
{
	sqlite3_stmt *st;
	FILE *d;
	char stem[64];
	int rc;
	*nmark = 0;
	/* the same runs as policies(); rows of one marker come together */
	if ((rc = prep_latest(
		     c,
		     ", m AS (SELECT s.run_id, s.seq, s.label, s.slab_pages,\n"
		     "    s.t_ns - l.t_first_ns AS rel FROM samples s JOIN latest l USING "
		     "(run_id)\n"
		     "  WHERE l.trace_path IS ?1 AND s.label IS NOT NULL\n"
		     "    AND NOT (s.label = 'end' AND s.seq = (SELECT max(x.seq) FROM samples x\n"
		     "                                         WHERE x.run_id = s.run_id)))\n"
		     "SELECT rel, label, run_id, slab_pages FROM m\n"
		     "ORDER BY rel, min(seq) OVER (PARTITION BY rel, label), label, run_id, seq",
		     &st)))
		return rc;
	sqlite3_bind_text(st, 1, c->trace, -1, SQLITE_STATIC);
	long long *pages = malloc((np ? np : 1) * sizeof(*pages));
	char *label = NULL;
	long long rel = 0;
	if (!pages) {
		sqlite3_finalize(st);
		return err_set(c->e, SLABSIM_ENOMEM, "out of memory");
	}
	(void)snprintf(stem, sizeof(stem), "%s-phases", name);
	if (!(d = open_out(c, stem, "dat"))) {
		sqlite3_finalize(st);
		free(pages);
		return c->e->code;
	}
	fprintf(d,
		"# trace markers (samples.label) of the runs in %s.dat, trace %s\n"
		"# one row per distinct (time, label); the final 'end' sample is left out\n"
		"# columns: t_s (virtual seconds since the first event) label (text of the\n"
		"# marker, \" shown as ') runs (how many runs have it) then slab_pages (4 KiB\n"
		"# pages) of each run at the marker, '?' = not in that run:\n#t_s label runs",
		name, c->trace);
	for (size_t i = 0; i < np; i++)
		fprintf(d, " pages[run %lld]", p[i].run_id);
	fputc('\n', d);
	for (bool more = true; more;) {
		int step = sqlite3_step(st);
		more = step == SQLITE_ROW;
		const char *lab = more ? col_text(st, 1) : "";
		long long r = more ? sqlite3_column_int64(st, 0) : 0;
		if (label && (!more || r != rel || strcmp(lab, label))) {
			/* the previous marker is complete */
			size_t runs = 0;
			for (size_t i = 0; i < np; i++)
				runs += pages[i] >= 0;
			fprintf(d, "%.9f \"", (double)rel / 1e9);
			for (const char *q = label; *q; q++)
				fputc(*q == '"' ? '\'' : *q, d);
			fprintf(d, "\" %zu", runs);
			for (size_t i = 0; i < np; i++)
				if (pages[i] < 0)
					fprintf(d, " ?");
				else
					fprintf(d, " %lld", pages[i]);
			fputc('\n', d);
			(*nmark)++;
			free(label);
			label = NULL;
		}
		if (!more) {
			if (step != SQLITE_DONE)
				rc = err_set(c->e, SLABSIM_EIO, "plot query: %s",
					     sqlite3_errmsg(c->db));
			break;
		}
		if (!label) {
			if (!(label = strdup(lab))) {
				rc = err_set(c->e, SLABSIM_ENOMEM, "out of memory");
				break;
			}
			rel = r;
			for (size_t i = 0; i < np; i++)
				pages[i] = -1;
		}
		long long id = sqlite3_column_int64(st, 2);
		for (size_t i = 0; i < np; i++)
			if (p[i].run_id == id)
				pages[i] = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	free(label);
	free(pages);
	if (rc) {
		fclose(d);
		return rc;
	}
	if ((rc = close_out(c, d, stem, "dat")))
		return rc;
	if (!*nmark) {
		/* no markers: no file (nor one left from an earlier plot) */
		char path[4096];
		(void)snprintf(path, sizeof(path), "%s/%s.dat", c->dir, stem);
		(void)remove(path);
	}
	return 0;
}

/* 1b: the markers as labelled dashed vertical lines over figure 1, from
 * NAME-phases.dat; the y range starts at 0 and leaves room for the labels.
 * pre: the settings before "plot"; else the plot elements. */
static void memory_phases_gp(FILE *g, const char *name, bool pre)
{
	if (pre) {
		fprintf(g,
			"stats '%s.dat' using 2 nooutput\n"
			"phase_top = STATS_max > 0 ? STATS_max * 1.25 : 1\n"
			"set yrange [0:phase_top]\n",
			name);
		return;
	}
	fprintf(g,
		"  '%s-phases.dat' using 1:(0):(0):(phase_top) with vectors nohead dt 2 "
		"lc rgb 'gray40' title 'trace markers', \\\n"
		"  '' using 1:(phase_top):2 with labels rotate by 90 right offset -0.8,-0.5 "
		"font ',8' tc rgb 'gray30' notitle\n",
		name);
}

/* 1: slab memory over virtual time, one line per policy. */
static int fig_memory(struct ctx *c, const struct pol *p, size_t np, struct plot_fig *fig)
{
	sqlite3_stmt *st;
	FILE *d, *g;
	int rc;
	(void)snprintf(fig->title, sizeof(fig->title), "Slab memory over virtual time (%.120s)",
		       c->trace);
	if (!np) {
		(void)snprintf(fig->note, sizeof(fig->note), "no runs of the trace");
		return 0;
	}
	if ((rc = prep(c,
		       "SELECT (s.t_ns - r.t_first_ns) / 1e9, s.slab_pages * 4 "
		       "FROM samples s JOIN runs r ON r.run_id = s.run_id "
		       "WHERE s.run_id = ?1 ORDER BY s.seq",
		       &st)))
		return rc;
	if (!(d = open_dat(c, fig->name, st)))
		return c->e->code;
	fprintf(d,
		"# slab memory over virtual time, trace %s\n"
		"# one block per run (gnuplot index i = the i-th block)\n"
		"# columns: t_s (virtual seconds since the first event) slab_kib (KiB)\n",
		c->trace);
	for (size_t i = 0; i < np; i++) {
		fprintf(d, "%s# run %lld: %s\n", i ? "\n\n" : "", p[i].run_id, p[i].label);
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, p[i].run_id);
		while (sqlite3_step(st) == SQLITE_ROW)
			fprintf(d, "%.9f %lld\n", sqlite3_column_double(st, 0),
				sqlite3_column_int64(st, 1));
	}
	sqlite3_finalize(st);
	if ((rc = close_out(c, d, fig->name, "dat")))
		return rc;
	size_t nmark;
	if ((rc = memory_phases_dat(c, p, np, fig->name, &nmark)))
		return rc;
	if (!(g = open_out(c, fig->name, "gp")))
		return c->e->code;
	fprintf(g, "# %s: slab memory over virtual time, one line per policy\n", fig->name);
	if (nmark)
		fprintf(g, "# trace markers (%s-phases.dat): dashed vertical lines\n", fig->name);
	for (int t = 0; t < 2; t++) {
		gp_head(g, fig->name, t);
		fprintf(g, "set title ");
		gp_str(g, fig->title);
		fprintf(g, "\nset xlabel 'virtual time since the first event (s)'\n"
			   "set ylabel 'slab memory (KiB)'\nset key outside right top\n"
			   "set grid\n");
		if (nmark)
			memory_phases_gp(g, fig->name, true);
		fprintf(g, "plot \\\n");
		for (size_t i = 0; i < np; i++) {
			/* 8 colours, then dashes: lines stay distinct */
			fprintf(g,
				"  '%s.dat' index %zu using 1:2 with steps lw 1.5 lc %zu dt %zu "
				"title ",
				fig->name, i, i % 8 + 1, i / 8 + 1);
			gp_str(g, p[i].label);
			fprintf(g, "%s\n", i + 1 < np || nmark ? ", \\" : "");
		}
		if (nmark)
			memory_phases_gp(g, fig->name, false);
	}
	fig->drawn = true;
	return close_out(c, g, fig->name, "gp");
}

/* 2: overhead of natural alignment per allocator and debug setting. */
static int fig_overhead(struct ctx *c, struct plot_fig *fig)
{
	sqlite3_stmt *st;
	int rc;
	/* one row per natural/none pair, all traces */
	if ((rc = prep_latest(
		     c,
		     ", pairs AS (\n"
		     "  SELECT n.allocator, n.kernel, n.debug, n.trace_path,\n"
		     "    100.0 * (n.peak_slab_pages - u.peak_slab_pages) / u.peak_slab_pages AS "
		     "pct\n"
		     "  FROM latest n JOIN latest u\n"
		     "    ON u.trace_path IS n.trace_path AND u.align = 'none'\n"
		     "   AND u.config_json = replace(n.config_json, '\"align\":\"natural\"',\n"
		     "                               '\"align\":\"none\"')\n"
		     "  WHERE n.align = 'natural' AND u.peak_slab_pages > 0)\n"
		     "SELECT allocator || CASE WHEN (SELECT count(DISTINCT kernel) FROM pairs) > "
		     "1\n"
		     "         THEN ' ' || kernel ELSE '' END\n"
		     "    || CASE WHEN (SELECT count(DISTINCT trace_path) FROM pairs) > 1\n"
		     "         THEN ' ' || replace(trace_path, rtrim(trace_path,\n"
		     "           replace(trace_path, '/', '')), '') ELSE '' END AS grp,\n"
		     "       CASE WHEN debug = 'off' THEN 0 ELSE 1 END AS on_, debug, pct\n"
		     "FROM pairs ORDER BY grp, on_, debug",
		     &st)))
		return rc;
	(void)snprintf(fig->title, sizeof(fig->title),
		       "Peak slab memory overhead of natural alignment (natural vs none)");
	/* groups x debug columns; values collected per cell */
	enum { MAXG = 32, MAXD = 8 };
	char grp[MAXG][40], dbg[MAXD][16];
	size_t ng = 0, nd = 0;
	double *vals[MAXG][MAXD] = {{0}};
	size_t nv[MAXG][MAXD] = {{0}};
	bool too_many = false;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *gname = col_text(st, 0), *dname = col_text(st, 2);
		size_t gi, di;
		for (gi = 0; gi < ng && strcmp(grp[gi], gname); gi++)
			;
		for (di = 0; di < nd && strcmp(dbg[di], dname); di++)
			;
		if (gi == MAXG || di == MAXD) {
			too_many = true;
			continue;
		}
		if (gi == ng)
			(void)snprintf(grp[ng++], sizeof(grp[0]), "%s", gname);
		if (di == nd)
			(void)snprintf(dbg[nd++], sizeof(dbg[0]), "%s", dname);
		double *nvp = realloc(vals[gi][di], (nv[gi][di] + 1) * sizeof(double));
		if (!nvp) {
			rc = err_set(c->e, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		vals[gi][di] = nvp;
		vals[gi][di][nv[gi][di]++] = sqlite3_column_double(st, 3);
	}
	sqlite3_finalize(st);
	bool reps = false, nonzero = false;
	FILE *d = NULL, *g = NULL;
	if (rc)
		goto out;
	if (!ng) {
		(void)snprintf(fig->note, sizeof(fig->note),
			       "no natural/none pairs of runs with the same configuration");
		goto out;
	}
	if (!(d = open_out(c, fig->name, "dat"))) {
		rc = c->e->code;
		goto out;
	}
	fprintf(d, "# peak slab pages overhead of align=natural over align=none, percent\n"
		   "# per group (allocator [kernel] [input, when there are several]) and debug\n"
		   "# setting: mean over the natural/none pairs (a workload's pairs are paired\n"
		   "# by seed), half-width of the 95%% confidence interval of that mean\n"
		   "# (t(0.975, n-1) sd / sqrt(n); 0 with one pair), number of pairs. A sweep\n"
		   "# whose only further axis is the seed makes each cell one seed group.\n"
		   "# '?' = no pair\n#group");
	for (size_t j = 0; j < nd; j++)
		fprintf(d, " mean_pct[%s] ci95_pct[%s] n[%s]", dbg[j], dbg[j], dbg[j]);
	fputc('\n', d);
	for (size_t i = 0; i < ng; i++) {
		fprintf(d, "%s", grp[i]);
		for (size_t j = 0; j < nd; j++) {
			size_t n = nv[i][j];
			if (!n) {
				fprintf(d, " ? ? 0");
				continue;
			}
			double mean = gsl_stats_mean(vals[i][j], 1, n);
			double sd = n > 1 ? gsl_stats_sd_m(vals[i][j], 1, n, mean) : 0.0;
			double half = query_ci95_half(sd, n);
			if (n > 1)
				reps = true;
			if (mean != 0 || half != 0)
				nonzero = true;
			fprintf(d, " %.6f %.6f %zu", mean, half, n);
		}
		fputc('\n', d);
	}
	if ((rc = close_out(c, d, fig->name, "dat")))
		goto out;
	if (!(g = open_out(c, fig->name, "gp"))) {
		rc = c->e->code;
		goto out;
	}
	fprintf(g, "# %s: grouped bars, one group per allocator, one bar per debug setting%s\n",
		fig->name,
		reps ? "; error bars: 95% confidence interval of the mean (t, n-1)" : "");
	for (int t = 0; t < 2; t++) {
		gp_head(g, fig->name, t);
		fprintf(g, "set title ");
		gp_str(g, fig->title);
		fprintf(g,
			"\nset ylabel 'extra peak slab memory, natural vs none (%%)'\n"
			"set xlabel 'allocator'\nset datafile missing '?'\n"
			"set style data histogram\nset style histogram %s gap 1\n"
			"set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
			"set grid ytics\nset key outside right top\nset xzeroaxis\n%s"
			"plot \\\n",
			reps ? "errorbars lw 1" : "clustered",
			nonzero ? "" : "set yrange [-1:1]\n");
		for (size_t j = 0; j < nd; j++) {
			char title[64];
			(void)snprintf(title, sizeof(title), "debug %s", dbg[j]);
			if (reps)
				fprintf(g, "  '%s.dat' using %zu:%zu%s title ", fig->name,
					2 + 3 * j, 3 + 3 * j, j ? "" : ":xtic(1)");
			else
				fprintf(g, "  '%s.dat' using %zu%s title ", fig->name, 2 + 3 * j,
					j ? "" : ":xtic(1)");
			gp_str(g, title);
			fprintf(g, "%s\n", j + 1 < nd ? ", \\" : "");
		}
	}
	rc = close_out(c, g, fig->name, "gp");
	fig->drawn = rc == 0;
out:
	for (size_t i = 0; i < MAXG; i++)
		for (size_t j = 0; j < MAXD; j++)
			free(vals[i][j]);
	if (too_many && !rc)
		(void)snprintf(fig->note, sizeof(fig->note),
			       "more than %d groups or %d debug settings: some left out", MAXG,
			       MAXD);
	return rc;
}

/* 3: waste by kind, stacked, one bar per policy. */
static int fig_waste(struct ctx *c, const struct pol *p, size_t np, struct plot_fig *fig)
{
	sqlite3_stmt *st;
	FILE *d, *g;
	int rc;
	(void)snprintf(fig->title, sizeof(fig->title), "Slab waste by kind at the end (%.120s)",
		       c->trace);
	if (!np) {
		(void)snprintf(fig->note, sizeof(fig->note), "no runs of the trace");
		return 0;
	}
	/* SLOB: its caches hold no pages: the run totals of its last sample (the
	 * rule of query_shared_cte) */
	if ((rc = prep_latest(
		     c,
		     ", "
		     "sh AS (SELECT * FROM latest WHERE run_id = ?1), "
		     "r AS (SELECT sum(waste_rounding) AS a, sum(waste_layout) AS b, "
		     "sum(waste_free_slots) AS f, sum(waste_tail) AS t, sum(pages) AS p "
		     "FROM caches WHERE run_id = ?1 AND alias_of IS NULL), "
		     "s AS (SELECT * FROM samples WHERE run_id = ?1 ORDER BY seq DESC "
		     "LIMIT 1) "
		     "SELECT CASE WHEN r.p = 0 AND sh.final_slab_pages > 0 THEN 1 ELSE 0 "
		     "END AS shared, r.a, r.b, r.f, r.t, s.waste_rounding, s.waste_layout, "
		     "s.waste_free_slots, s.waste_tail FROM r, sh LEFT JOIN s",
		     &st)))
		return rc;
	if (!(d = open_dat(c, fig->name, st)))
		return c->e->code;
	fprintf(d,
		"# waste at the end of each run by kind, KiB (root caches summed), trace %s\n"
		"# SLOB's caches hold no pages (its pages are shared lists): its rows are the\n"
		"# run totals of its last sample, labelled [run totals]; free_slots is then the\n"
		"# free space inside its pages\n"
		"#policy rounding_kib layout_kib free_slots_kib tail_kib run_id\n",
		c->trace);
	for (size_t i = 0; i < np; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, p[i].run_id);
		if (sqlite3_step(st) != SQLITE_ROW)
			continue;
		int sh = sqlite3_column_int(st, 0) ? 4 : 0;
		fprintf(d, "\"%s%s\" %.3f %.3f %.3f %.3f %lld\n", p[i].label,
			sh ? " [run totals]" : "", sqlite3_column_double(st, 1 + sh) / 1024.0,
			sqlite3_column_double(st, 2 + sh) / 1024.0,
			sqlite3_column_double(st, 3 + sh) / 1024.0,
			sqlite3_column_double(st, 4 + sh) / 1024.0, p[i].run_id);
	}
	sqlite3_finalize(st);
	if ((rc = close_out(c, d, fig->name, "dat")))
		return rc;
	if (!(g = open_out(c, fig->name, "gp")))
		return c->e->code;
	fprintf(g, "# %s: stacked bars of waste by kind, one bar per policy\n", fig->name);
	for (int t = 0; t < 2; t++) {
		gp_head(g, fig->name, t);
		fprintf(g, "set title ");
		gp_str(g, fig->title);
		fprintf(g,
			"\nset ylabel 'waste (KiB)'\nset xlabel 'policy'\n"
			"set style data histogram\nset style histogram rowstacked\n"
			"set style fill solid 0.8 border -1\nset boxwidth 0.7\n"
			"set xtics rotate by -35 left\nset grid ytics\n"
			"set key above\nset bmargin 14\n"
			"plot '%s.dat' using 2:xtic(1) title 'size-class rounding', \\\n"
			"  '' using 3 title 'layout/debug metadata', \\\n"
			"  '' using 4 title 'free slots (SLOB: free space in its pages)', \\\n"
			"  '' using 5 title 'slab tail (page level)'\n",
			fig->name);
	}
	fig->drawn = true;
	return close_out(c, g, fig->name, "gp");
}

/* 4: top caches by waste, one panel per allocator. */
static int fig_top(struct ctx *c, struct plot_fig *fig)
{
	enum { TOP = 10 };
	sqlite3_stmt *st, *cs;
	FILE *d, *g;
	int rc;
	long long runs[16];
	char names[16][160];
	size_t nr = 0;
	(void)snprintf(fig->title, sizeof(fig->title), "Top %d caches by waste (%.120s)", TOP,
		       c->trace);
	/* per allocator one run: align natural and debug off when there is one */
	if ((rc = prep_latest(
		     c,
		     ", pick AS (SELECT allocator, run_id, align, debug, row_number() "
		     "OVER (PARTITION BY allocator ORDER BY align = 'natural' DESC, "
		     "debug = 'off' DESC, run_id DESC) AS k FROM latest l "
		     "WHERE trace_path IS ?1 AND final_slab_pages > 0) "
		     "SELECT p.run_id, p.allocator, p.align, p.debug, NOT EXISTS (SELECT 1 "
		     "FROM caches c WHERE c.run_id = p.run_id AND c.alias_of IS NULL AND "
		     "c.pages > 0), json_extract(l.config_json, '$.workload.seed') "
		     "FROM pick p JOIN latest l ON l.run_id = p.run_id WHERE k = 1 "
		     "ORDER BY p.allocator",
		     &st)))
		return rc;
	sqlite3_bind_text(st, 1, c->trace, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW && nr < 16) {
		runs[nr] = sqlite3_column_int64(st, 0);
		int w = snprintf(names[nr], sizeof(names[nr]), "%s align=%s debug=%s",
				 col_text(st, 1), col_text(st, 2), col_text(st, 3));
		if (sqlite3_column_type(st, 5) != SQLITE_NULL && w > 0 &&
		    (size_t)w < sizeof(names[nr]))
			w += snprintf(names[nr] + w, sizeof(names[nr]) - (size_t)w, " seed=%s",
				      col_text(st, 5));
		/* SLOB: no per-cache pages (see the .dat's header) */
		if (sqlite3_column_int(st, 4) && w > 0 && (size_t)w < sizeof(names[nr]))
			(void)snprintf(names[nr] + w, sizeof(names[nr]) - (size_t)w,
				       " (caches' own waste; shared pages as one bar)");
		nr++;
	}
	sqlite3_finalize(st);
	if (!nr) {
		(void)snprintf(fig->note, sizeof(fig->note), "no runs of the trace");
		return 0;
	}
	/* SLOB (query_shared_cte): its caches' rounding + layout, and the free
	 * space of its shared pages as one bar */
	{
		char sql[2048];
		(void)snprintf(
			sql, sizeof(sql),
			"%s, %s SELECT cache, w FROM ("
			"SELECT cache, (waste_rounding + waste_layout + waste_free_slots + "
			"waste_tail) / 1024.0 AS w FROM caches WHERE run_id = ?1 AND alias_of IS "
			"NULL AND (pages > 0 OR (allocs > 0 AND ?1 IN (SELECT run_id FROM "
			"shared))) UNION ALL SELECT '(shared pages: free space)', "
			"(waste_free_slots + waste_tail) / 1024.0 FROM shared WHERE run_id = ?1) "
			"ORDER BY w DESC, cache LIMIT 10",
			query_latest_cte, query_shared_cte);
		if ((rc = prep(c, sql, &cs)))
			return rc;
	}
	if (!(d = open_dat(c, fig->name, cs)))
		return c->e->code;
	fprintf(d,
		"# top %d root caches by waste at the end (rounding + layout + free slots + "
		"tail), KiB\n# one block per allocator (gnuplot index). SLOB's caches hold no "
		"pages (its pages\n# are shared lists): its block has the caches' rounding + "
		"layout and one bar\n# '(shared pages: free space)', the run total of free "
		"space in its pages\n#cache waste_kib\n",
		TOP);
	for (size_t i = 0; i < nr; i++) {
		fprintf(d, "%s# run %lld: %s\n", i ? "\n\n" : "", runs[i], names[i]);
		sqlite3_reset(cs);
		sqlite3_bind_int64(cs, 1, runs[i]);
		bool any = false;
		while (sqlite3_step(cs) == SQLITE_ROW) {
			fprintf(d, "\"%s\" %.3f\n", col_text(cs, 0), sqlite3_column_double(cs, 1));
			any = true;
		}
		if (!any)
			fprintf(d, "\"(none)\" 0\n");
	}
	sqlite3_finalize(cs);
	if ((rc = close_out(c, d, fig->name, "dat")))
		return rc;
	if (!(g = open_out(c, fig->name, "gp")))
		return c->e->code;
	fprintf(g, "# %s: one panel per allocator\n", fig->name);
	for (int t = 0; t < 2; t++) {
		fprintf(g, "set terminal %s size 960,%zu\nset output '%s.%s'\n",
			t ? "svg noenhanced font 'Sans,10' dynamic"
			  : "pngcairo noenhanced font 'Sans,10'",
			260 * nr + 60, fig->name, terms[t][1]);
		fprintf(g, "set multiplot layout %zu,1 title ", nr);
		gp_str(g, fig->title);
		fprintf(g, "\nset style fill solid 0.8 border -1\nset boxwidth 0.7\n"
			   "set ylabel 'waste (KiB)'\nset xtics rotate by -30 left\n"
			   "set grid ytics\nunset key\nset yrange [0:*]\nset bmargin 6\n");
		for (size_t i = 0; i < nr; i++) {
			fprintf(g, "set title ");
			gp_str(g, names[i]);
			fprintf(g, "\nplot '%s.dat' index %zu using 0:2:xtic(1) with boxes\n",
				fig->name, i);
		}
		fprintf(g, "unset multiplot\n");
	}
	fig->drawn = true;
	return close_out(c, g, fig->name, "gp");
}

/* 5: CDF of slab occupancy (per-cache samples), one line per policy. */
static int fig_cdf(struct ctx *c, const struct pol *p, size_t np, struct plot_fig *fig)
{
	enum { MAXPTS = 2000 };
	sqlite3_stmt *st;
	FILE *d, *g;
	int rc;
	double *v = NULL;
	size_t cap = 0, lines = 0;
	char(*titles)[96] = calloc(np ? np : 1, sizeof(*titles));
	(void)snprintf(fig->title, sizeof(fig->title),
		       "CDF of slab occupancy over per-cache samples (%.120s)", c->trace);
	if (!titles)
		return err_set(c->e, SLABSIM_ENOMEM, "out of memory");
	if ((rc = prep(c,
		       "SELECT 1.0 * sc.live_objs / (sc.slabs * c.objs_per_slab) "
		       "FROM sample_caches_full sc JOIN caches c "
		       "  ON c.run_id = sc.run_id AND c.cache = sc.cache "
		       "WHERE sc.run_id = ?1 AND sc.slabs > 0 AND c.objs_per_slab > 0",
		       &st))) {
		free(titles);
		return rc;
	}
	if (!(d = open_dat(c, fig->name, st))) {
		free(titles);
		return c->e->code;
	}
	fprintf(d,
		"# slab occupancy = live objects / (slabs x objects per slab), one value per\n"
		"# (sample, cache) with slabs; empirical CDF, one block per policy (SLOB has\n"
		"# no fixed slots and is left out); at most %d points per block\n"
		"#occupancy cdf\n",
		MAXPTS);
	for (size_t i = 0; i < np; i++) {
		size_t n = 0;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, p[i].run_id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				double *nv = realloc(v, cap * sizeof(*nv));
				if (!nv) {
					rc = err_set(c->e, SLABSIM_ENOMEM, "out of memory");
					goto out;
				}
				v = nv;
			}
			v[n++] = sqlite3_column_double(st, 0);
		}
		if (!n)
			continue;
		gsl_sort(v, 1, n);
		fprintf(d, "%s# run %lld: %s (%zu values)\n", lines ? "\n\n" : "", p[i].run_id,
			p[i].label, n);
		size_t step = n > MAXPTS ? (n + MAXPTS - 1) / MAXPTS : 1;
		for (size_t k = 0; k < n; k++)
			if (k % step == step - 1 || k == n - 1)
				fprintf(d, "%.6f %.6f\n", v[k], (double)(k + 1) / (double)n);
		(void)snprintf(titles[lines++], sizeof(titles[0]), "%s", p[i].label);
	}
out:
	sqlite3_finalize(st);
	free(v);
	if (rc) {
		fclose(d);
		free(titles);
		return rc;
	}
	if ((rc = close_out(c, d, fig->name, "dat"))) {
		free(titles);
		return rc;
	}
	if (!lines) {
		(void)snprintf(fig->note, sizeof(fig->note),
			       "no per-cache samples of slab allocators for the trace");
		free(titles);
		return 0;
	}
	if (!(g = open_out(c, fig->name, "gp"))) {
		free(titles);
		return c->e->code;
	}
	fprintf(g, "# %s: empirical CDF, one line per policy\n", fig->name);
	for (int t = 0; t < 2; t++) {
		gp_head(g, fig->name, t);
		fprintf(g, "set title ");
		gp_str(g, fig->title);
		fprintf(g, "\nset xlabel 'slab occupancy (live objects / object slots, fraction)'\n"
			   "set ylabel 'fraction of (sample, cache) points at or below'\n"
			   "set xrange [0:1]\nset yrange [0:1]\nset grid\n"
			   "set key outside right top\nplot \\\n");
		for (size_t i = 0; i < lines; i++) {
			fprintf(g,
				"  '%s.dat' index %zu using 1:2 with steps lw 1.5 lc %zu dt %zu "
				"title ",
				fig->name, i, i % 8 + 1, i / 8 + 1);
			gp_str(g, titles[i]);
			fprintf(g, "%s\n", i + 1 < lines ? ", \\" : "");
		}
	}
	free(titles);
	fig->drawn = true;
	return close_out(c, g, fig->name, "gp");
}

static int render(struct ctx *c, const char *prog, const char *name)
{
	char script[64];
	(void)snprintf(script, sizeof(script), "%s.gp", name);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return err_set(c->e, SLABSIM_EIO, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (chdir(c->dir) != 0)
			_exit(126);
		execlp(prog, prog, script, (char *)NULL);
		_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return err_set(c->e, SLABSIM_EIO, "waitpid: %s", strerror(errno));
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 127)
		return err_set(c->e, SLABSIM_EIO,
			       "cannot run %s (install the Debian package gnuplot-nox)", prog);
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
		return err_set(c->e, SLABSIM_EIO, "%s %s/%s failed (exit status %d)", prog, c->dir,
			       script, WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
	return 0;
}

int plot_all(const char *db_path, const char *out_dir, const struct plot_opts *o,
	     struct plot_result *res, struct err *e)
{
	static const char *const stems[PLOT_NFIGS] = {
		"memory-time", "align-overhead", "waste-by-kind", "top-caches", "occupancy-cdf",
	};
	struct ctx c = {.dir = out_dir, .e = e};
	struct pol *p = NULL;
	size_t np = 0;
	int rc;

	memset(res, 0, sizeof(*res));
	for (int i = 0; i < PLOT_NFIGS; i++)
		(void)snprintf(res->figs[i].name, sizeof(res->figs[i].name), "%s", stems[i]);
	if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
		return err_set(e, SLABSIM_EIO, "%s: %s", out_dir, strerror(errno));
	if ((rc = query_open(db_path, &c.db, e)))
		return rc;
	if (o->trace) {
		(void)snprintf(c.trace, sizeof(c.trace), "%s", o->trace);
	} else {
		sqlite3_stmt *st;
		if ((rc = prep_latest(&c,
				      "SELECT trace_path FROM latest WHERE trace_path IS NOT NULL "
				      "GROUP BY trace_path ORDER BY count(*) DESC, trace_path "
				      "LIMIT 1",
				      &st)))
			goto out;
		if (sqlite3_step(st) == SQLITE_ROW)
			(void)snprintf(c.trace, sizeof(c.trace), "%s", col_text(st, 0));
		sqlite3_finalize(st);
	}
	(void)snprintf(res->trace, sizeof(res->trace), "%s", c.trace);
	if ((rc = policies(&c, &p, &np)) || (rc = fig_memory(&c, p, np, &res->figs[0])) ||
	    (rc = fig_overhead(&c, &res->figs[1])) || (rc = fig_waste(&c, p, np, &res->figs[2])) ||
	    (rc = fig_top(&c, &res->figs[3])) || (rc = fig_cdf(&c, p, np, &res->figs[4])))
		goto out;
	if (o->render)
		for (int i = 0; i < PLOT_NFIGS && !rc; i++)
			if (res->figs[i].drawn)
				rc = render(&c, o->gnuplot ? o->gnuplot : "gnuplot",
					    res->figs[i].name);
out:
	free(p);
	sqlite3_close(c.db);
	return rc;
}
