/* plot.c - the five figures of a results database (see plot.h). */
#include "plot.h"
#include "policy.h"
#include "query.h"

#include <ctype.h>
#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Both terminals: every script draws its figure twice. */
static const char *const terms[2][2] = {
	{"pngcairo noenhanced font 'Sans,10'", "png"},
	{"svg noenhanced font 'Sans,10' dynamic", "svg"},
};

/*
 * One visual encoding in every figure (docs/sweeps.md, "The figures"):
 * colour = allocator, dash = alignment, line width (lines) or hatching
 * (bars) = debug setting; in a line figure's panel whose runs follow more
 * than one kernel profile, a point mark = kernel profile. The waste kinds
 * of figure 3 have colours of their own, none of them an allocator's.
 */
/* An allocator's position in policy_table (policies/policy.h), which
 * orders the colours; a name this build does not know (a database from
 * another) gets a key of its own past the table, and grey. */
static int alloc_pos(const char *allocator)
{
	const struct policy_ops *o = policy_find(allocator);
	int i;
	for (i = 0; policy_table[i]; i++)
		if (policy_table[i] == o)
			return i;
	uint64_t h = 0xcbf29ce484222325u;
	for (const unsigned char *q = (const unsigned char *)allocator; *q; q++)
		h = (h ^ *q) * 0x100000001b3u;
	return i + 1 + (int)(h % 1000003u);
}

static const char *alloc_rgb(const char *allocator)
{
	/* by position in policy_table: SLUB blue, SLAB orange, SLOB green,
	 * the exact baseline grey, then the rest of a ten-colour palette */
	static const char *const rgb[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#7f7f7f", "#9467bd",
					  "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#d62728"};
	int k = alloc_pos(allocator), n = 0;
	while (policy_table[n])
		n++;
	return k < n && k < (int)(sizeof(rgb) / sizeof(rgb[0])) ? rgb[k] : "#7f7f7f";
}

static int align_dt(const char *align)
{
	if (!strcmp(align, "none"))
		return 2;
	if (!strcmp(align, "natural"))
		return 1;
	return 3;
}

/* At most this many traces get a panel each (the rest are named in the
 * figure's note). */
enum { MAXTR = 16 };

struct trace_id {
	char label[512]; /* latest.trace */
	char path[1024];
};

struct ctx {
	sqlite3 *db;
	const char *dir;
	struct err *e;
	struct trace_id tr[MAXTR];
	size_t ntr;
	const char *trace; /* the panel being written: tr[k].label */
};

/* One run of a trace. */
struct pol {
	long long run_id;
	char allocator[16], align[32], debug[16], kernel[16];
	char label[200];
	uint64_t sig; /* hash of the series drawn for it (identical series) */
	int same_as;  /* index of an earlier run with the same series, or -1 */
	size_t rows;  /* line figures: the rows of its block in the .dat */
};

static int oom(struct ctx *c)
{
	return err_set(c->e, SLABSIM_ENOMEM, "out of memory");
}

/* DIR/NAME.EXT for writing into *f: 0, or the error (set on c->e). */
static int open_out(struct ctx *c, const char *name, const char *ext, FILE **f)
{
	char p[4096];
	(void)snprintf(p, sizeof(p), "%s/%s.%s", c->dir, name, ext);
	if (!(*f = fopen(p, "w")))
		return err_set(c->e, SLABSIM_EIO, "%s: %s", p, strerror(errno));
	return 0;
}

/* Closes *f and forgets it (the cleanup of a figure closes what is left
 * open on an error, once). */
static int close_out(struct ctx *c, FILE **f, const char *name, const char *ext)
{
	int bad = fclose(*f) != 0;
	*f = NULL;
	if (bad)
		return err_set(c->e, SLABSIM_EIO, "%s/%s.%s: write error", c->dir, name, ext);
	return 0;
}

/* Writes a figure's data into *d once the header is out: 0 or an error. */
typedef int dat_body_fn(struct ctx *c, FILE *d, void *arg);

/* NAME.dat: header (its '#' lines), then what body writes. */
static int write_dat(struct ctx *c, const char *name, const char *header, dat_body_fn *body,
		     void *arg)
{
	FILE *d;
	int rc = open_out(c, name, "dat", &d);
	if (rc)
		return rc;
	fputs(header, d);
	if ((rc = body(c, d, arg))) {
		fclose(d);
		return rc;
	}
	return close_out(c, &d, name, "dat");
}

/* The blank lines before the block of a .dat that has blocks before it
 * (gnuplot's index counts blocks between two blank lines). */
static void dat_block(FILE *d, size_t before)
{
	if (before)
		fprintf(d, "\n\n");
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
		return oom(c);
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

/* A label as a gnuplot data string: double-quoted, a '"' in it shown as
 * "'" (gnuplot's data strings cannot escape it). */
static void dat_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		fputc(*s == '"' ? '\'' : *s, f);
	fputc('"', f);
}

void plot_gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/* The terminal and output of drawing t (0 png, 1 svg), h pixels high. */
static void gp_head(FILE *f, const char *name, int t, int h)
{
	fprintf(f, "set terminal %s size 960,%d\nset output '%s.%s'\n", terms[t][0], h, name,
		terms[t][1]);
}

/* Height of a figure of n panels. */
static int fig_height(size_t n, int per)
{
	return n <= 1 ? 600 : (int)n * per + 60;
}

/* The title of the next panel. */
static void gp_title(FILE *g, const char *label)
{
	fprintf(g, "set title ");
	plot_gp_str(g, label);
	fputc('\n', g);
}

/* Writes one terminal's drawing of a figure after its multiplot header:
 * the settings its panels share, then the panels. */
typedef void gp_panels_fn(FILE *g, const struct plot_fig *fig, const void *arg);

/* How a figure's script draws it (the same for both terminals). */
struct gp_layout {
	/* the script's header: "# NAME: " comment more, '#' lines; more is
	 * what the data add to it ("" for nothing) */
	const char *comment, *more;
	int height;	   /* pixels */
	size_t rows;	   /* panels, one above the other */
	const char *title; /* of the whole figure */
	gp_panels_fn *panels;
	const void *arg; /* the figure's data, for panels */
};

/* NAME.gp: the figure drawn once per terminal; then it counts as drawn. */
static int write_gp(struct ctx *c, struct plot_fig *fig, const struct gp_layout *l)
{
	FILE *g;
	int rc = open_out(c, fig->name, "gp", &g);
	if (rc)
		return rc;
	fprintf(g, "# %s: %s%s", fig->name, l->comment, l->more);
	for (int t = 0; t < 2; t++) {
		gp_head(g, fig->name, t, l->height);
		fprintf(g, "set multiplot layout %zu,1 title ", l->rows);
		plot_gp_str(g, l->title);
		fputc('\n', g);
		l->panels(g, fig, l->arg);
		fprintf(g, "unset multiplot\n");
	}
	fig->drawn = true;
	return close_out(c, &g, fig->name, "gp");
}

/* Bar charts: a y range with room above (and below, for negative bars)
 * for the bars' value labels. */
static void gp_bar_yrange(FILE *g, double lo, double hi, double room)
{
	double pad = (hi - lo) > 0 ? (hi - lo) * room : 1.0;
	fprintf(g, "set yrange [%.6f:%.6f]\n", lo - (lo < 0 ? pad : 0), hi + pad);
}

/* The b-th label of a "set xtics (...)" list; its position follows. */
static void gp_xtic(FILE *g, size_t b, const char *tic)
{
	fprintf(g, "%s", b ? ", " : "");
	plot_gp_str(g, tic);
}

/* The leading string columns of a bar's data row, space-separated. */
static void dat_strs(FILE *d, size_t n, const char *const *s)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(' ', d);
		dat_str(d, s[i]);
	}
}

/* Index of the trace labelled label, or c->ntr: not drawn (--trace). */
static size_t trace_index(const struct ctx *c, const char *label)
{
	size_t k;
	for (k = 0; k < c->ntr && strcmp(c->tr[k].label, label); k++)
		;
	return k;
}

/* Rewinds a per-run statement to the rows of another run. */
static void bind_run(sqlite3_stmt *st, long long run_id)
{
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, run_id);
}

/* The runs of trace c->trace, labelled "allocator align=A debug=D", with
 * "kernel=K" after the allocator when the runs follow more than one kernel
 * profile (a study over 6.1, 6.18 and 7.0 is read by its kernels). */
static int policies(struct ctx *c, struct pol **out, size_t *n)
{
	sqlite3_stmt *st;
	struct pol *p = NULL;
	size_t k = 0;
	int rc = prep_latest(c,
			     "SELECT run_id, allocator, align, debug, "
			     "json_extract(config_json, '$.workload.seed'), kernel, "
			     "(SELECT count(DISTINCT x.kernel) FROM latest x WHERE x.trace IS ?1) "
			     "FROM latest WHERE trace IS ?1 "
			     "ORDER BY allocator, kernel, align, debug, run_id",
			     &st);
	*out = NULL;
	*n = 0;
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, c->trace, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct pol *np = realloc(p, (k + 1) * sizeof(*np));
		if (!np) {
			free(p);
			sqlite3_finalize(st);
			return oom(c);
		}
		p = np;
		memset(&p[k], 0, sizeof(p[k]));
		p[k].same_as = -1;
		p[k].run_id = sqlite3_column_int64(st, 0);
		(void)snprintf(p[k].allocator, sizeof(p[k].allocator), "%s", col_text(st, 1));
		(void)snprintf(p[k].align, sizeof(p[k].align), "%s", col_text(st, 2));
		(void)snprintf(p[k].debug, sizeof(p[k].debug), "%s", col_text(st, 3));
		(void)snprintf(p[k].kernel, sizeof(p[k].kernel), "%s", col_text(st, 5));
		int w = sqlite3_column_int(st, 6) > 1
				? snprintf(p[k].label, sizeof(p[k].label),
					   "%s kernel=%s align=%s debug=%s", p[k].allocator,
					   p[k].kernel, p[k].align, p[k].debug)
				: snprintf(p[k].label, sizeof(p[k].label), "%s align=%s debug=%s",
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
		return oom(c);
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

/* FNV-1a 64 over the bytes of a series, to find identical ones. */
static uint64_t sig_add(uint64_t h, const void *data, size_t n)
{
	const unsigned char *b = data;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3u;
	}
	return h;
}

/* Runs whose series hash alike are drawn once: same_as points to the
 * first; that one's title names them all ("slab align=natural|none
 * debug=off" when only the alignment differs, else "A = B"). */
static void mark_identical(struct pol *p, size_t np, char (*titles)[400])
{
	for (size_t i = 0; i < np; i++) {
		(void)snprintf(titles[i], sizeof(titles[0]), "%s", p[i].label);
		p[i].same_as = -1;
		for (size_t j = 0; j < i; j++)
			if (p[j].same_as < 0 && p[j].sig == p[i].sig) {
				p[i].same_as = (int)j;
				size_t l = strlen(titles[j]);
				char *dbg = strstr(titles[j], " debug=");
				if (alloc_pos(p[j].allocator) == alloc_pos(p[i].allocator) &&
				    !strcmp(p[j].debug, p[i].debug) && dbg &&
				    l + strlen(p[i].align) + 2 < sizeof(titles[0])) {
					/* insert "|align" before " debug=" */
					char tail[400];
					(void)snprintf(tail, sizeof(tail), "%s", dbg);
					(void)snprintf(
						dbg, sizeof(titles[0]) - (size_t)(dbg - titles[j]),
						"|%s%s", p[i].align, tail);
				} else {
					(void)snprintf(titles[j] + l, sizeof(titles[0]) - l,
						       " = %s", p[i].label);
				}
				break;
			}
	}
}

/* The line style of a run: colour = allocator, dash = alignment, width =
 * debug (thick when on). */
static void gp_line_style(FILE *g, const struct pol *p)
{
	fprintf(g, "lc rgb '%s' dt %d lw %s", alloc_rgb(p->allocator), align_dt(p->align),
		strcmp(p->debug, "off") ? "3" : "1.5");
}

/* How many marker numbers the figure names in its key; further markers
 * are still drawn and numbered (memory-time-phases.dat has their labels). */
enum { MARK_KEY = 24 };

/* 1a: the trace markers of one trace's runs (samples.label), as one block
 * of NAME-phases.dat: one row per distinct (time, label), so markers that
 * all runs of the trace share are drawn once; the "end" sample every run
 * closes with is left out. Columns: t_s, the label, how many runs have the
 * marker, the level of its number in the band above the data (0 = lowest;
 * a number closer than 3 % of the time axis to the previous one on its
 * level goes one level up, so numbers do not overlap), then the slab pages
 * of each run at it ('?' = not in that run). *nmark gets the number of
 * rows, *levels the levels used, marks the first MARK_KEY labels (the
 * figure's key names each marker by its number). */
static int memory_phases_dat(struct ctx *c, FILE *d, const struct pol *p, size_t np, double t_max,
			     size_t *nmark, int *levels, char (*marks)[64])
{
	enum { LEVELS = 4 };
	sqlite3_stmt *st;
	int rc;
	double last[LEVELS];
	for (int i = 0; i < LEVELS; i++)
		last[i] = -1e300;
	*nmark = 0;
	*levels = 0;
	/* the same runs as policies(); rows of one marker come together */
	if ((rc = prep_latest(
		     c,
		     ", m AS (SELECT s.run_id, s.seq, s.label, s.slab_pages,\n"
		     "    s.t_ns - l.t_first_ns AS rel FROM samples s JOIN latest l USING "
		     "(run_id)\n"
		     "  WHERE l.trace IS ?1 AND s.label IS NOT NULL\n"
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
		return oom(c);
	}
	for (bool more = true; more;) {
		int step = sqlite3_step(st);
		more = step == SQLITE_ROW;
		const char *lab = more ? col_text(st, 1) : "";
		long long r = more ? sqlite3_column_int64(st, 0) : 0;
		if (label && (!more || r != rel || strcmp(lab, label))) {
			/* the previous marker is complete */
			size_t runs = 0;
			double t = (double)rel / 1e9;
			int level = 0;
			while (level < LEVELS - 1 && t - last[level] < 0.03 * t_max)
				level++;
			last[level] = t;
			if (level + 1 > *levels)
				*levels = level + 1;
			if (*nmark < MARK_KEY)
				(void)snprintf(marks[*nmark], sizeof(marks[0]), "%s", label);
			for (size_t i = 0; i < np; i++)
				runs += pages[i] >= 0;
			if (!*nmark) {
				fprintf(d, "# trace ");
				dat_str(d, c->trace);
				fprintf(d, "\n#t_s label runs level");
				for (size_t i = 0; i < np; i++)
					fprintf(d, " pages[run %lld]", p[i].run_id);
				fputc('\n', d);
			}
			fprintf(d, "%.9f ", t);
			dat_str(d, label);
			fprintf(d, " %zu %d", runs, level);
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
				rc = oom(c);
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
	return rc;
}

/* Per trace panel of the line figures (1 and 5): the blocks of NAME.dat,
 * the block of memory-time-phases.dat (figure 1; -1: no markers), the
 * titles of its lines. */
struct mem_panel {
	size_t tr; /* index into c->tr */
	size_t first, nblocks;
	long phase_block;
	/* figure 1: the extent of the panel's own data (its axes are set from
	 * them, never left from the panel before), the levels of marker
	 * numbers, the markers' labels for the key */
	double t_max, y_max;
	int levels;
	size_t nmarks;
	char (*marks)[64];
	size_t np;
	struct pol *p;
	char (*titles)[400];
};

/* A line figure's panels, for its script. */
struct line_fig {
	const struct ctx *c;
	const struct mem_panel *pn;
	size_t npanel;
};

/* The runs of trace k as a panel; c->trace is then that trace. */
static int panel_runs(struct ctx *c, size_t k, struct mem_panel *m)
{
	int rc;
	c->trace = c->tr[k].label;
	m->tr = k;
	if ((rc = policies(c, &m->p, &m->np)))
		return rc;
	if (!(m->titles = calloc(m->np + 1, sizeof(*m->titles))))
		return oom(c);
	return 0;
}

/* A panel left out (no lines): its slot is taken by the next trace's. */
static void panel_free(struct mem_panel *m)
{
	free(m->p);
	free(m->titles);
	free(m->marks);
	m->p = NULL;
	m->titles = NULL;
	m->marks = NULL;
}

/* The header line of a run's block in a line figure's .dat, up to the
 * newline (figure 5 adds the number of values). */
static void dat_run_head(FILE *d, size_t block, const char *trace, const struct pol *p,
			 const char *title)
{
	dat_block(d, block);
	fprintf(d, "# trace ");
	dat_str(d, trace);
	fprintf(d, ", run %lld: %s", p->run_id, title);
}

/* The point marks of kernel profiles: filled circle, square, triangle,
 * diamond, pentagon. */
static const int kernel_pt[] = {7, 5, 9, 13, 15};
enum { KERNEL_MARKS = sizeof(kernel_pt) / sizeof(kernel_pt[0]), MARKS_PER_LINE = 8 };

/* The kernel profiles of panel m's runs drawn, in run order (the runs are
 * ordered by allocator, then kernel): into kern, at most KERNEL_MARKS;
 * returns how many (a profile past the last shares its mark). */
static size_t panel_kernels(const struct mem_panel *m, const char *kern[KERNEL_MARKS])
{
	size_t nk = 0;
	for (size_t i = 0; i < m->np; i++) {
		if (m->p[i].same_as != -1)
			continue;
		size_t j = 0;
		while (j < nk && strcmp(kern[j], m->p[i].kernel))
			j++;
		if (j == nk && nk < KERNEL_MARKS)
			kern[nk++] = m->p[i].kernel;
	}
	return nk;
}

static size_t kernel_mark(const char *const kern[KERNEL_MARKS], size_t nk, const char *kernel)
{
	for (size_t j = 0; j < nk; j++)
		if (!strcmp(kern[j], kernel))
			return j;
	return nk - 1;
}

/* A panel's plot command: one line per run drawn (same_as -1), in block
 * order; more: further elements follow the lines. When the panel's runs
 * follow more than one kernel profile, each line also carries
 * MARKS_PER_LINE points of its profile's mark (each profile's shifted
 * along the line, so that lines that coincide show both), and the key
 * shows line and mark. */
static void gp_run_lines(FILE *g, const char *name, const struct mem_panel *m, bool more)
{
	const char *kern[KERNEL_MARKS];
	size_t nk = panel_kernels(m, kern);
	fprintf(g, "plot \\\n");
	for (size_t i = 0, b = m->first; i < m->np; i++) {
		const struct pol *p = &m->p[i];
		if (p->same_as != -1)
			continue;
		fprintf(g, "  '%s.dat' index %zu using 1:2 with steps ", name, b);
		gp_line_style(g, p);
		if (nk > 1) {
			size_t j = kernel_mark(kern, nk, p->kernel);
			size_t every = p->rows > MARKS_PER_LINE ? p->rows / MARKS_PER_LINE : 1;
			fprintf(g,
				" notitle, \\\n  '' index %zu using 1:2 every %zu::%zu with points "
				"pt %d ps 1.2 lc rgb '%s' notitle, \\\n  keyentry with "
				"linespoints ",
				b, every, every * j / nk, kernel_pt[j], alloc_rgb(p->allocator));
			gp_line_style(g, p);
			fprintf(g, " pt %d ps 1.2", kernel_pt[j]);
		}
		b++;
		fprintf(g, " title ");
		plot_gp_str(g, m->titles[i]);
		fprintf(g, "%s\n", b < m->first + m->nblocks || more ? ", \\" : "");
	}
}

/* A comment in the script naming the marks of panel m's kernel profiles,
 * when it has more than one. */
static void gp_kernel_marks(FILE *g, const struct mem_panel *m)
{
	const char *kern[KERNEL_MARKS];
	size_t nk = panel_kernels(m, kern);
	if (nk < 2)
		return;
	fprintf(g, "# point mark = kernel profile:");
	for (size_t j = 0; j < nk; j++)
		fprintf(g, " %s pt %d%s", kern[j], kernel_pt[j], j + 1 < nk ? "," : "\n");
}

/* Figure 1's y range of panel m: its own data's maximum, and above it a
 * band with a row per level of marker numbers. OUT: *y0 the centre of the
 * lowest row, *dy a row's height. */
static double memory_top(const struct mem_panel *m, double *y0, double *dy)
{
	double y = m->y_max > 0 ? m->y_max : 1;
	*dy = 0.07 * y;
	*y0 = 1.03 * y + 0.5 * *dy;
	return m->phase_block >= 0 ? 1.05 * y + m->levels * *dy : 1.05 * y;
}

/* The key's list of panel m's markers, by number (numbers past MARK_KEY
 * are only in memory-time-phases.dat). */
static void memory_mark_key(FILE *g, const struct mem_panel *m)
{
	fprintf(g, ", \\\n  keyentry with vectors nohead dt 2 lc rgb 'gray40' title 'trace "
		   "markers:'");
	for (size_t i = 0; i < m->nmarks && i < MARK_KEY; i++) {
		char t[96];
		(void)snprintf(t, sizeof(t), "%zu  %s", i + 1, m->marks[i]);
		fprintf(g, ", \\\n  keyentry with points ps 0 title ");
		plot_gp_str(g, t);
	}
	if (m->nmarks > MARK_KEY)
		fprintf(g,
			", \\\n  keyentry with points ps 0 title '(%zu more: "
			"memory-time-phases.dat)'",
			m->nmarks - MARK_KEY);
}

/* Every panel's axes are set from its own data, as numbers: a gnuplot
 * `stats` here would run under the previous panel's ranges (and in the SVG
 * pass under the PNG pass's last ones), which clipped panels or left no
 * point in range. */
static void memory_panels(FILE *g, const struct plot_fig *fig, const void *arg)
{
	const struct line_fig *lf = arg;
	fprintf(g, "set xlabel 'virtual time since the first event (s)'\n"
		   "set ylabel 'slab memory (KiB)'\nset key outside right top\n"
		   "set grid\nset style textbox opaque noborder\n");
	for (size_t k = 0; k < lf->npanel; k++) {
		const struct mem_panel *m = &lf->pn[k];
		double y0, dy, top = memory_top(m, &y0, &dy);
		gp_title(g, lf->c->tr[m->tr].label);
		/* one instant (all samples at t = 0): a range gnuplot accepts */
		fprintf(g, "top = %.6f\nset yrange [0:%.6f]\nset xrange [0:%.9f]\n", top, top,
			m->t_max > 0 ? 1.02 * m->t_max : 1.0);
		gp_kernel_marks(g, m);
		gp_run_lines(g, fig->name, m, m->phase_block >= 0);
		if (m->phase_block < 0)
			continue;
		/* markers: a dashed line each, its number in the band above the
		 * data (boxed: the line does not cross it), its label in the key */
		fprintf(g,
			"  'memory-time-phases.dat' index %ld using 1:(0):(0):(top) "
			"with vectors nohead dt 2 lc rgb 'gray40' notitle, \\\n"
			"  '' index %ld using 1:(%.6f + $4 * %.6f):(sprintf('%%d', $0 + 1)) "
			"with labels boxed font ',8' tc rgb 'gray20' notitle",
			m->phase_block, m->phase_block, y0, dy);
		memory_mark_key(g, m);
		fputc('\n', g);
	}
}

/* Figure 1's series of one panel, hashed to find identical ones; m gets
 * the latest time and the most memory. */
static void memory_sigs(sqlite3_stmt *st, struct mem_panel *m)
{
	m->t_max = 0;
	m->y_max = 0;
	for (size_t i = 0; i < m->np; i++) {
		uint64_t h = 0xcbf29ce484222325u;
		bind_run(st, m->p[i].run_id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			double t = sqlite3_column_double(st, 0);
			long long kib = sqlite3_column_int64(st, 1);
			h = sig_add(sig_add(h, &t, sizeof(t)), &kib, sizeof(kib));
			if (t > m->t_max)
				m->t_max = t;
			if ((double)kib > m->y_max)
				m->y_max = (double)kib;
		}
		m->p[i].sig = h;
	}
}

/* 1: slab memory over virtual time, one panel per trace, one line per run
 * (identical series once). */
static int fig_memory(struct ctx *c, struct plot_fig *fig)
{
	sqlite3_stmt *st = NULL;
	FILE *d = NULL, *ph = NULL;
	struct mem_panel pn[MAXTR] = {{0}};
	size_t block = 0, nphase = 0, npanel = 0;
	int rc = 0;
	(void)snprintf(fig->title, sizeof(fig->title), "Slab memory over virtual time");
	if ((rc = prep(c,
		       "SELECT (s.t_ns - r.t_first_ns) / 1e9, s.slab_pages * 4 "
		       "FROM samples s JOIN runs r ON r.run_id = s.run_id "
		       "WHERE s.run_id = ?1 ORDER BY s.seq",
		       &st)))
		return rc;
	if ((rc = open_out(c, fig->name, "dat", &d)) ||
	    (rc = open_out(c, "memory-time-phases", "dat", &ph)))
		goto out;
	fprintf(d, "# slab memory over virtual time\n"
		   "# one block per run (gnuplot index i = the i-th block), traces one after the\n"
		   "# other; a run whose series equals an earlier one's is not repeated\n"
		   "# columns: t_s (virtual seconds since the first event) slab_kib (KiB)\n");
	fprintf(ph, "# trace markers (samples.label) of the runs in memory-time.dat, one block\n"
		    "# per trace with markers: one row per distinct (time, label); the final\n"
		    "# 'end' sample is left out. Columns: t_s (virtual seconds since the first\n"
		    "# event), label (\" shown as '), runs (how many runs have it), level (of\n"
		    "# its label, 0 = top), then slab_pages (4 KiB pages) of each run at the\n"
		    "# marker, '?' = not in that run\n");
	for (size_t k = 0; k < c->ntr; k++) {
		struct mem_panel *m = &pn[npanel];
		if ((rc = panel_runs(c, k, m)))
			goto out;
		if (!m->np) {
			panel_free(m);
			continue;
		}
		npanel++;
		memory_sigs(st, m);
		mark_identical(m->p, m->np, m->titles);
		m->first = block;
		for (size_t i = 0; i < m->np; i++) {
			if (m->p[i].same_as >= 0)
				continue;
			dat_run_head(d, block, c->trace, &m->p[i], m->titles[i]);
			fputc('\n', d);
			bind_run(st, m->p[i].run_id);
			while (sqlite3_step(st) == SQLITE_ROW) {
				fprintf(d, "%.9f %lld\n", sqlite3_column_double(st, 0),
					sqlite3_column_int64(st, 1));
				m->p[i].rows++;
			}
			block++;
		}
		m->nblocks = block - m->first;
		dat_block(ph, nphase);
		if (!(m->marks = calloc(MARK_KEY, sizeof(*m->marks)))) {
			rc = oom(c);
			goto out;
		}
		if ((rc = memory_phases_dat(c, ph, m->p, m->np, m->t_max, &m->nmarks, &m->levels,
					    m->marks)))
			goto out;
		m->phase_block = m->nmarks ? (long)nphase++ : -1;
	}
	if (!npanel) {
		(void)snprintf(fig->note, sizeof(fig->note), "no runs of a trace");
		goto out;
	}
	if ((rc = close_out(c, &d, fig->name, "dat")) ||
	    (rc = close_out(c, &ph, "memory-time-phases", "dat")))
		goto out;
	if (!nphase) {
		/* no markers: no file (nor one left from an earlier plot) */
		char path[4096];
		(void)snprintf(path, sizeof(path), "%s/memory-time-phases.dat", c->dir);
		(void)remove(path);
	}
	const char *comment =
		"slab memory over virtual time, one panel per trace, one line per run\n"
		"# colour = allocator, dash = alignment (solid natural, dashed none),\n"
		"# thick = debug on; runs with identical series are one line\n";
	const char *more = nphase ? "# trace markers (memory-time-phases.dat): dashed vertical "
				    "lines, numbered\n# above the data (by level), their labels "
				    "in the key\n"
				  : "";
	/* a panel tall enough for its key: many runs (the align-debate
	 * sweep's 35 per trace) would leave gnuplot no room to plot */
	size_t most_lines = 0;
	for (size_t k = 0; k < npanel; k++) {
		size_t keyed = pn[k].nmarks < MARK_KEY ? pn[k].nmarks : MARK_KEY + 1;
		size_t lines = pn[k].nblocks + (pn[k].nmarks ? keyed + 1 : 0);
		if (lines > most_lines)
			most_lines = lines;
	}
	int per = most_lines * 16 + 160 > 420 ? (int)most_lines * 16 + 160 : 420;
	const struct line_fig lf = {c, pn, npanel};
	const struct gp_layout l = {
		comment, more, fig_height(npanel, per), npanel, fig->title, memory_panels, &lf};
	rc = write_gp(c, fig, &l);
out:
	if (d)
		fclose(d);
	if (ph)
		fclose(ph);
	sqlite3_finalize(st);
	for (size_t k = 0; k < MAXTR; k++)
		panel_free(&pn[k]);
	return rc;
}

/* The .dat of a bar figure (2, 6): one block per trace with bars (n[k]
 * of them), its rows written by rows(d, fig, k). */
static int bar_blocks(struct ctx *c, FILE *d, const size_t *n,
		      void (*rows)(FILE *d, void *fig, size_t k), void *fig)
{
	for (size_t k = 0, blk = 0; k < c->ntr; k++)
		if (n[k]) {
			dat_block(d, blk++);
			rows(d, fig, k);
		}
	return 0;
}

/* 2: overhead of natural alignment, one panel per trace, one bar per
 * allocator (and kernel) and debug setting. */
enum { OV_MAXB = 32 };
struct ov_bar {
	char allocator[16], kernel[8], debug[16];
	double *v;
	size_t n;
};

/* Figure 2's bars, for its script. */
struct ov_fig {
	const struct ctx *c;
	struct ov_bar (*bars)[OV_MAXB];
	const size_t *nb;
	bool reps;
	double lo[MAXTR], hi[MAXTR]; /* each panel's own extent */
};

/* The bars' pairs: one row of the query a pair, summed up per bar. */
static int overhead_bars(struct ctx *c, sqlite3_stmt *st, struct ov_fig *f, size_t *nb,
			 bool *too_many)
{
	while (sqlite3_step(st) == SQLITE_ROW) {
		size_t k = trace_index(c, col_text(st, 0)), b;
		if (k == c->ntr)
			continue; /* a trace left out (--trace) */
		for (b = 0; b < nb[k]; b++)
			if (alloc_pos(f->bars[k][b].allocator) == alloc_pos(col_text(st, 1)) &&
			    !strcmp(f->bars[k][b].kernel, col_text(st, 2)) &&
			    !strcmp(f->bars[k][b].debug, col_text(st, 3)))
				break;
		if (b == OV_MAXB) {
			*too_many = true;
			continue;
		}
		struct ov_bar *x = &f->bars[k][b];
		if (b == nb[k]) {
			nb[k]++;
			(void)snprintf(x->allocator, sizeof(x->allocator), "%s", col_text(st, 1));
			(void)snprintf(x->kernel, sizeof(x->kernel), "%s", col_text(st, 2));
			(void)snprintf(x->debug, sizeof(x->debug), "%s", col_text(st, 3));
		}
		double *nv = realloc(x->v, (x->n + 1) * sizeof(double));
		if (!nv)
			return oom(c);
		x->v = nv;
		x->v[x->n++] = sqlite3_column_double(st, 4);
		if (x->n > 1)
			f->reps = true;
	}
	return 0;
}

/* Figure 2's .dat rows of trace k; widens f's y range to them. */
static void overhead_rows(FILE *d, void *arg, size_t k)
{
	struct ov_fig *f = arg;
	for (size_t b = 0; b < f->nb[k]; b++) {
		struct ov_bar *x = &f->bars[k][b];
		double mean = gsl_stats_mean(x->v, 1, x->n);
		double sd = x->n > 1 ? gsl_stats_sd_m(x->v, 1, x->n, mean) : 0.0;
		double half = query_ci95_half(sd, x->n);
		char lab[64];
		if (mean - half < f->lo[k])
			f->lo[k] = mean - half;
		if (mean + half > f->hi[k])
			f->hi[k] = mean + half;
		const char *const cols[] = {f->c->tr[k].label, x->allocator, x->kernel, x->debug};
		dat_strs(d, 4, cols);
		(void)snprintf(lab, sizeof(lab), "%+.2f%%", mean);
		if (x->n > 1)
			(void)snprintf(lab, sizeof(lab), "%+.2f%% (n=%zu)", mean, x->n);
		fprintf(d, " %.6f %.6f %zu %zu %ld %d %.6f ", mean, half, x->n, b + 1,
			strtol(alloc_rgb(x->allocator) + 1, NULL, 16), strcmp(x->debug, "off") != 0,
			mean + half > 0 ? mean + half : 0);
		dat_str(d, lab);
		fputc('\n', d);
	}
}

/* Figure 2's .dat: one block per trace with bars. */
static int overhead_dat(struct ctx *c, FILE *d, void *arg)
{
	const struct ov_fig *f = arg;
	return bar_blocks(c, d, f->nb, overhead_rows, arg);
}

/* Figure 2's plot of trace k (block blk): only series with points
 * (gnuplot warns about others). */
static void overhead_plot(FILE *g, const char *name, const struct ov_fig *f, size_t k, size_t blk)
{
	bool off = false, on = false;
	for (size_t b = 0; b < f->nb[k]; b++) {
		off |= !strcmp(f->bars[k][b].debug, "off");
		on |= strcmp(f->bars[k][b].debug, "off") != 0;
	}
	fprintf(g, "plot ");
	if (off)
		fprintf(g,
			"'%s.dat' index %zu using 8:($10 > 0 ? 1/0 : $5):9 with "
			"boxes "
			"fs solid 0.85 border -1 lc rgb variable, \\\n  ",
			name, blk);
	if (on)
		fprintf(g,
			"'%s.dat' index %zu using 8:($10 > 0 ? $5 : 1/0):9 with "
			"boxes "
			"fs pattern 4 border -1 lc rgb variable, \\\n  ",
			name, blk);
	if (f->reps)
		fprintf(g,
			"'%s.dat' index %zu using 8:5:6 with yerrorbars "
			"lc rgb 'black' pt -1, \\\n  ",
			name, blk);
	fprintf(g,
		"'%s.dat' index %zu using 8:11:12 with labels offset 0,0.7 "
		"font ',9'\n",
		name, blk);
}

static void overhead_panels(FILE *g, const struct plot_fig *fig, const void *arg)
{
	const struct ov_fig *f = arg;
	fprintf(g, "set ylabel 'extra peak slab memory (%%)'\n"
		   "set xlabel 'allocator, debug setting (hatched: debug on)'\n"
		   "set grid ytics\nunset key\nset xzeroaxis lt -1\nset boxwidth 0.7\n");
	for (size_t k = 0, blk = 0; k < f->c->ntr; k++) {
		if (!f->nb[k])
			continue;
		/* the x axis names each bar: allocator [kernel] debug */
		gp_title(g, f->c->tr[k].label);
		gp_bar_yrange(g, f->lo[k], f->hi[k], 0.18);
		fprintf(g, "set xrange [0.4:%zu.6]\nset xtics (", f->nb[k]);
		for (size_t b = 0; b < f->nb[k]; b++) {
			const struct ov_bar *x = &f->bars[k][b];
			char tic[64];
			bool kern = false;
			for (size_t j = 0; j < f->nb[k]; j++)
				kern |= strcmp(f->bars[k][j].kernel, x->kernel) != 0;
			(void)snprintf(tic, sizeof(tic), "%s%s%s %s", x->allocator, kern ? " " : "",
				       kern ? x->kernel : "", x->debug);
			gp_xtic(g, b, tic);
			fprintf(g, " %zu", b + 1);
		}
		fprintf(g, ")\n");
		overhead_plot(g, fig->name, f, k, blk++);
	}
}

static int fig_overhead(struct ctx *c, struct plot_fig *fig)
{
	sqlite3_stmt *st = NULL;
	size_t nb[MAXTR] = {0}, npanel = 0;
	struct ov_fig f = {c, calloc(MAXTR, sizeof(*f.bars)), nb, false, {0}, {0}};
	bool too_many = false;
	int rc;
	(void)snprintf(fig->title, sizeof(fig->title),
		       "Peak slab memory overhead of natural alignment (natural vs none)");
	if (!f.bars)
		return oom(c);
	/* one row per natural/none pair: the pairs of the align-overhead query */
	if ((rc = prep_latest(
		     c,
		     ", pairs AS (\n"
		     "  SELECT n.trace, n.allocator, n.kernel, n.debug,\n"
		     "    100.0 * (n.peak_slab_pages - u.peak_slab_pages) / u.peak_slab_pages AS "
		     "pct\n"
		     "  FROM latest n JOIN latest u\n"
		     "    ON u.trace_path IS n.trace_path AND u.trace IS n.trace AND u.align = "
		     "'none'\n"
		     "   AND u.config_json = replace(n.config_json, '\"align\":\"natural\"',\n"
		     "                               '\"align\":\"none\"')\n"
		     "  WHERE n.align = 'natural' AND u.peak_slab_pages > 0)\n"
		     "SELECT trace, allocator, kernel, debug, pct FROM pairs\n"
		     "ORDER BY trace, allocator, kernel, debug = 'off' DESC, debug",
		     &st)) ||
	    (rc = overhead_bars(c, st, &f, nb, &too_many)))
		goto out;
	for (size_t k = 0; k < c->ntr; k++)
		npanel += nb[k] > 0;
	if (!npanel) {
		(void)snprintf(fig->note, sizeof(fig->note),
			       "no natural/none pairs of runs with the same configuration");
		goto out;
	}
	if ((rc = write_dat(
		     c, fig->name,
		     "# peak slab pages overhead of align=natural over align=none, percent\n"
		     "# one block per trace (gnuplot index), one row per allocator, kernel "
		     "and\n"
		     "# debug setting: mean over the natural/none pairs (a workload's pairs "
		     "are\n"
		     "# paired by seed), half-width of the 95% confidence interval of that "
		     "mean\n"
		     "# (t(0.975, n-1) sd / sqrt(n); 0 with one pair), number of pairs; then "
		     "the\n"
		     "# bar's x, colour (allocator), hatched (debug on), where its label goes\n"
		     "#trace allocator kernel debug mean_pct ci95_pct n x rgb hatched label_y "
		     "label\n",
		     overhead_dat, &f)))
		goto out;
	const struct gp_layout l = {
		"one panel per trace, one bar per allocator (kernel) and debug setting\n"
		"# colour = allocator, hatched = debug on; every bar labelled with its value",
		f.reps ? "\n# error bars: 95% confidence interval of the mean (t, n-1)\n" : "\n",
		fig_height(npanel, 300),
		npanel,
		fig->title,
		overhead_panels,
		&f};
	rc = write_gp(c, fig, &l);
out:
	sqlite3_finalize(st);
	for (size_t k = 0; k < MAXTR; k++)
		for (size_t b = 0; b < OV_MAXB; b++)
			free(f.bars[k][b].v);
	free(f.bars);
	if (too_many && !rc)
		(void)snprintf(fig->note, sizeof(fig->note),
			       "more than %d bars in a panel: some left out", OV_MAXB);
	return rc;
}

/* 6: the options of the 2019 alignment debate compared: one panel per
 * trace, one group of bars per allocator and debug setting, one bar per
 * alignment policy (its colour), the extra peak slab memory over the same
 * configuration under align=none (the runs of analysis/sweeps/
 * align-debate.sweep). Drawn when some run has a policy other than none
 * and natural, so databases of the natural/none question keep their five
 * figures. */
static const char *const opt_align[] = {
	"own-caches", "merged", "kmalloc-aligned-caches", "kmalloc-aligned-overalloc",
	"natural",    "cap512",
};
static const char *const opt_rgb[] = {"#1f77b4", "#17becf", "#ff7f0e",
				      "#d62728", "#2ca02c", "#9467bd"};
#define NOPT (sizeof(opt_align) / sizeof(opt_align[0]))
enum { OPT_MAXG = 16 };

struct opt_group {
	char allocator[16], debug[16];
	double pct[NOPT];
	bool have[NOPT];
};

/* Figure 6's groups of bars, for its script. */
struct opt_fig {
	const struct ctx *c;
	struct opt_group (*grp)[OPT_MAXG];
	const size_t *ng;
	double lo[MAXTR], hi[MAXTR]; /* each panel's own extent */
};

/* The groups from the query's rows; *other: some policy other than
 * natural has a twin. */
static void options_groups(struct ctx *c, sqlite3_stmt *st, struct opt_fig *f, size_t *ng,
			   bool *other)
{
	while (sqlite3_step(st) == SQLITE_ROW) {
		size_t k = trace_index(c, col_text(st, 0)), b, o;
		for (o = 0; o < NOPT && strcmp(opt_align[o], col_text(st, 3)); o++)
			;
		if (k == c->ntr || o == NOPT)
			continue;
		*other |= strcmp(opt_align[o], "natural") != 0;
		for (b = 0; b < ng[k]; b++)
			if (alloc_pos(f->grp[k][b].allocator) == alloc_pos(col_text(st, 1)) &&
			    !strcmp(f->grp[k][b].debug, col_text(st, 2)))
				break;
		if (b == OPT_MAXG)
			continue;
		struct opt_group *x = &f->grp[k][b];
		if (b == ng[k]) {
			ng[k]++;
			(void)snprintf(x->allocator, sizeof(x->allocator), "%s", col_text(st, 1));
			(void)snprintf(x->debug, sizeof(x->debug), "%s", col_text(st, 2));
		}
		x->pct[o] = sqlite3_column_double(st, 4);
		x->have[o] = true;
	}
}

/* Figure 6's .dat rows of trace k; widens f's y range to them. */
static void options_rows(FILE *d, void *arg, size_t k)
{
	struct opt_fig *f = arg;
	for (size_t b = 0; b < f->ng[k]; b++) {
		const struct opt_group *x = &f->grp[k][b];
		for (size_t o = 0; o < NOPT; o++) {
			if (!x->have[o])
				continue;
			f->lo[k] = x->pct[o] < f->lo[k] ? x->pct[o] : f->lo[k];
			f->hi[k] = x->pct[o] > f->hi[k] ? x->pct[o] : f->hi[k];
			const char *const cols[] = {f->c->tr[k].label, x->allocator, x->debug,
						    opt_align[o]};
			dat_strs(d, 4, cols);
			fprintf(d, " %.6f %zu %ld\n", x->pct[o], b * (NOPT + 1) + o + 1,
				strtol(opt_rgb[o] + 1, NULL, 16));
		}
	}
}

/* Figure 6's .dat: one block per trace with bars. */
static int options_dat(struct ctx *c, FILE *d, void *arg)
{
	const struct opt_fig *f = arg;
	return bar_blocks(c, d, f->ng, options_rows, arg);
}

static void options_panels(FILE *g, const struct plot_fig *fig, const void *arg)
{
	const struct opt_fig *f = arg;
	fprintf(g, "set ylabel 'extra peak slab memory over none (%%)'\n"
		   "set xlabel 'allocator, debug setting'\n"
		   "set grid ytics\nset xzeroaxis lt -1\nset boxwidth 0.9\n"
		   "set key outside right top vertical font ',9'\n");
	for (size_t k = 0, blk = 0; k < f->c->ntr; k++) {
		if (!f->ng[k])
			continue;
		gp_title(g, f->c->tr[k].label);
		gp_bar_yrange(g, f->lo[k], f->hi[k], 0.1);
		fprintf(g, "set xrange [0:%zu]\nset xtics (", f->ng[k] * (NOPT + 1));
		for (size_t b = 0; b < f->ng[k]; b++) {
			char tic[48];
			(void)snprintf(tic, sizeof(tic), "%s %s", f->grp[k][b].allocator,
				       f->grp[k][b].debug);
			gp_xtic(g, b, tic);
			fprintf(g, " %.1f", (double)b * (NOPT + 1) + (NOPT + 1) / 2.0);
		}
		fprintf(g,
			")\nplot '%s.dat' index %zu using 6:5:7 with boxes "
			"fs solid 0.85 border -1 lc rgb variable notitle",
			fig->name, blk++);
		for (size_t o = 0; o < NOPT; o++)
			fprintf(g,
				", \\\n  keyentry with boxes fs solid 0.85 lc rgb '%s' "
				"title '%s'",
				opt_rgb[o], opt_align[o]);
		fprintf(g, "\n");
	}
}

static int fig_options(struct ctx *c, struct plot_fig *fig)
{
	sqlite3_stmt *st = NULL;
	size_t ng[MAXTR] = {0}, npanel = 0;
	struct opt_fig f = {c, calloc(MAXTR, sizeof(*f.grp)), ng, {0}, {0}};
	bool other = false;
	int rc;
	(void)snprintf(fig->title, sizeof(fig->title),
		       "Peak slab memory of each alignment option over none (the 2019 debate)");
	fig->optional = true;
	if (!f.grp)
		return oom(c);
	if ((rc = prep_latest(
		     c,
		     "SELECT n.trace, n.allocator, n.debug, n.align,\n"
		     "  100.0 * (n.peak_slab_pages - u.peak_slab_pages) / u.peak_slab_pages\n"
		     "FROM latest n JOIN latest u\n"
		     "  ON u.trace_path IS n.trace_path AND u.trace IS n.trace AND u.align = "
		     "'none'\n"
		     " AND u.config_json = replace(n.config_json, '\"align\":\"' || n.align || "
		     "'\"',\n"
		     "                             '\"align\":\"none\"')\n"
		     "WHERE n.align <> 'none' AND u.peak_slab_pages > 0\n"
		     "ORDER BY n.trace, n.allocator, n.debug = 'off' DESC, n.debug",
		     &st)))
		goto out;
	options_groups(c, st, &f, ng, &other);
	for (size_t k = 0; k < c->ntr; k++)
		npanel += ng[k] > 0;
	if (!npanel || !other) {
		(void)snprintf(fig->note, sizeof(fig->note),
			       "no runs of options 1-3 or 5 with an align=none twin "
			       "(analysis/sweeps/align-debate.sweep)");
		goto out;
	}
	char head[512];
	(void)snprintf(
		head, sizeof(head),
		"# extra peak slab pages of each alignment policy over align=none, percent\n"
		"# one block per trace (gnuplot index), one row per allocator, debug setting\n"
		"# and policy; x: the bar's position (groups of %zu), rgb: the policy's colour\n"
		"#trace allocator debug align pct x rgb\n",
		NOPT);
	if ((rc = write_dat(c, fig->name, head, options_dat, &f)))
		goto out;
	const struct gp_layout l = {
		"one panel per trace, one group of bars per allocator and debug setting,\n"
		"# one bar per alignment policy (colour, in the key)\n",
		"",
		fig_height(npanel, 320),
		npanel,
		fig->title,
		options_panels,
		&f};
	rc = write_gp(c, fig, &l);
out:
	sqlite3_finalize(st);
	free(f.grp);
	return rc;
}

/* Figure 3's bars: how many each trace has. */
struct waste_fig {
	const struct ctx *c;
	sqlite3_stmt *st; /* the waste of run ?1 */
	size_t nbar[MAXTR], npanel;
};

static void waste_panels(FILE *g, const struct plot_fig *fig, const void *arg)
{
	const struct waste_fig *f = arg;
	fprintf(g, "set ylabel 'waste (KiB)'\n"
		   "set style data histogram\nset style histogram rowstacked\n"
		   "set style fill solid 0.8 border -1\nset boxwidth 0.7\n"
		   "set xtics rotate by -25 left font ',8'\nset grid ytics\n"
		   "set key outside right top Left reverse font ',8'\nset yrange [0:*]\n"
		   "set bmargin 9\n");
	for (size_t k = 0, b = 0; k < f->c->ntr; k++) {
		if (!f->nbar[k])
			continue;
		gp_title(g, f->c->tr[k].label);
		fprintf(g,
			"plot '%s.dat' index %zu using 2:xtic(1) lc rgb '#8c564b' title "
			"'size-class rounding', \\\n"
			"  '' index %zu using 3 lc rgb '#9467bd' title 'layout/debug "
			"metadata', \\\n"
			"  '' index %zu using 4 lc rgb '#17becf' title 'free slots (SLOB: "
			"free space in its pages)', \\\n"
			"  '' index %zu using 5 lc rgb '#bcbd22' title 'slab tail (page "
			"level)'\n",
			fig->name, b, b, b, b);
		b++;
	}
}

/* Figure 3's rows of trace k (c->trace): one bar per run; *npanel counts
 * the traces with bars. */
static int waste_rows(struct ctx *c, sqlite3_stmt *st, FILE *d, size_t k, size_t *nbar,
		      size_t *npanel)
{
	struct pol *p = NULL;
	size_t np = 0;
	int rc;
	c->trace = c->tr[k].label;
	if ((rc = policies(c, &p, &np)))
		return rc;
	for (size_t i = 0; i < np; i++) {
		bind_run(st, p[i].run_id);
		if (sqlite3_step(st) != SQLITE_ROW)
			continue;
		if (!nbar[k]) {
			dat_block(d, *npanel);
			fprintf(d, "# trace ");
			dat_str(d, c->trace);
			fputc('\n', d);
			(*npanel)++;
		}
		nbar[k]++;
		int sh = sqlite3_column_int(st, 0) ? 4 : 0;
		char lab[256];
		(void)snprintf(lab, sizeof(lab), "%s%s", p[i].label, sh ? " [run totals]" : "");
		dat_str(d, lab);
		fprintf(d, " %.3f %.3f %.3f %.3f %lld\n",
			sqlite3_column_double(st, 1 + sh) / 1024.0,
			sqlite3_column_double(st, 2 + sh) / 1024.0,
			sqlite3_column_double(st, 3 + sh) / 1024.0,
			sqlite3_column_double(st, 4 + sh) / 1024.0, p[i].run_id);
	}
	free(p);
	return 0;
}

static int waste_dat(struct ctx *c, FILE *d, void *arg)
{
	struct waste_fig *f = arg;
	int rc = 0;
	for (size_t k = 0; k < c->ntr && !rc; k++)
		rc = waste_rows(c, f->st, d, k, f->nbar, &f->npanel);
	return rc;
}

/* 3: waste by kind, stacked, one panel per trace, one bar per run. */
static int fig_waste(struct ctx *c, struct plot_fig *fig)
{
	struct waste_fig f = {.c = c};
	int rc;
	(void)snprintf(fig->title, sizeof(fig->title), "Slab waste by kind at the end");
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
		     &f.st)))
		return rc;
	if ((rc = write_dat(
		     c, fig->name,
		     "# waste at the end of each run by kind, KiB (root caches summed), one block\n"
		     "# per trace (gnuplot index). SLOB's caches hold no pages (its pages are\n"
		     "# shared lists): its rows are the run totals of its last sample, labelled\n"
		     "# [run totals]; free_slots is then the free space inside its pages\n"
		     "#policy rounding_kib layout_kib free_slots_kib tail_kib run_id\n",
		     waste_dat, &f)))
		goto out;
	if (!f.npanel) {
		(void)snprintf(fig->note, sizeof(fig->note), "no runs of a trace");
		goto out;
	}
	const struct gp_layout l = {
		"stacked bars of waste by kind, one panel per trace, one bar per run\n"
		"# (the kinds have colours of their own, none an allocator's)\n",
		"",
		fig_height(f.npanel, 460),
		f.npanel,
		fig->title,
		waste_panels,
		&f};
	rc = write_gp(c, fig, &l);
out:
	sqlite3_finalize(f.st);
	return rc;
}

/* 4: top caches by waste: per trace, one panel per allocator. */
enum { TOP = 10, TOP_MAXP = 64 };

/* Figure 4's panels: one run each. */
struct top_fig {
	long long runs[TOP_MAXP];
	char names[TOP_MAXP][300], alloc[TOP_MAXP][16];
	bool debug[TOP_MAXP];  /* debug on: hatched */
	double ymax[TOP_MAXP]; /* the panel's largest bar */
	size_t nr;
	sqlite3_stmt *cs; /* the top caches of run ?1 */
};

/* The runs of figure 4 (st: its query), named after trace and policy. */
static void top_runs(struct ctx *c, sqlite3_stmt *st, struct top_fig *f)
{
	for (size_t k = 0; k < c->ntr; k++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, c->tr[k].label, -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW && f->nr < TOP_MAXP) {
			char *name = f->names[f->nr];
			size_t size = sizeof(f->names[0]);
			f->runs[f->nr] = sqlite3_column_int64(st, 0);
			(void)snprintf(f->alloc[f->nr], sizeof(f->alloc[0]), "%s", col_text(st, 1));
			f->debug[f->nr] = strcmp(col_text(st, 3), "off") != 0;
			int w = snprintf(name, size, "%.200s: %s align=%s debug=%s", c->tr[k].label,
					 col_text(st, 1), col_text(st, 2), col_text(st, 3));
			if (sqlite3_column_type(st, 5) != SQLITE_NULL && w > 0 && (size_t)w < size)
				w += snprintf(name + w, size - (size_t)w, " seed=%s",
					      col_text(st, 5));
			/* SLOB: no per-cache pages (see the .dat's header) */
			if (sqlite3_column_int(st, 4) && w > 0 && (size_t)w < size)
				(void)snprintf(name + w, size - (size_t)w,
					       " (caches' own waste; shared pages as one bar)");
			f->nr++;
		}
	}
}

/* Figure 4's .dat: one block per run. */
static int top_dat(struct ctx *c, FILE *d, void *arg)
{
	struct top_fig *f = arg;
	(void)c;
	for (size_t i = 0; i < f->nr; i++) {
		dat_block(d, i);
		fprintf(d, "# run %lld: %s\n", f->runs[i], f->names[i]);
		bind_run(f->cs, f->runs[i]);
		bool any = false;
		while (sqlite3_step(f->cs) == SQLITE_ROW) {
			double w = sqlite3_column_double(f->cs, 1);
			dat_str(d, col_text(f->cs, 0));
			fprintf(d, " %.3f\n", w);
			f->ymax[i] = w > f->ymax[i] ? w : f->ymax[i];
			any = true;
		}
		if (!any)
			fprintf(d, "\"(none)\" 0\n");
	}
	return 0;
}

static void top_panels(FILE *g, const struct plot_fig *fig, const void *arg)
{
	const struct top_fig *f = arg;
	fprintf(g, "set style fill solid 0.8 border -1\nset boxwidth 0.7\n"
		   "set ylabel 'waste (KiB)'\nset xtics rotate by -30 left\n"
		   "set grid ytics\nunset key\nset bmargin 6\n");
	/* the same bar width in every panel, however few caches it has; the y
	 * range of each from its own bars */
	fprintf(g, "set xrange [-0.6:%d.4]\n", TOP - 1);
	for (size_t i = 0; i < f->nr; i++) {
		gp_title(g, f->names[i]);
		fprintf(g, "set yrange [0:%.6f]\n", f->ymax[i] > 0 ? 1.08 * f->ymax[i] : 1.0);
		fprintf(g, "plot '%s.dat' index %zu using 0:2:xtic(1) with boxes %slc rgb '%s'\n",
			fig->name, i, f->debug[i] ? "fs pattern 4 border -1 " : "",
			alloc_rgb(f->alloc[i]));
	}
}

static int fig_top(struct ctx *c, struct plot_fig *fig)
{
	sqlite3_stmt *st = NULL;
	struct top_fig *f = calloc(1, sizeof(*f));
	int rc;
	(void)snprintf(fig->title, sizeof(fig->title), "Top %d caches by waste at the end", TOP);
	if (!f)
		return oom(c);
	/* per trace, allocator and debug setting one run (align natural when
	 * there is one): the debug setting's panel shows where red zones and
	 * tracking put the waste (slub_debug=FZPU is the headline result) */
	if ((rc = prep_latest(
		     c,
		     ", pick AS (SELECT allocator, run_id, align, debug, row_number() "
		     "OVER (PARTITION BY allocator, debug ORDER BY align = 'natural' DESC, "
		     "run_id DESC) AS k FROM latest l "
		     "WHERE trace IS ?1 AND final_slab_pages > 0) "
		     "SELECT p.run_id, p.allocator, p.align, p.debug, NOT EXISTS (SELECT 1 "
		     "FROM caches c WHERE c.run_id = p.run_id AND c.alias_of IS NULL AND "
		     "c.pages > 0), json_extract(l.config_json, '$.workload.seed') "
		     "FROM pick p JOIN latest l ON l.run_id = p.run_id WHERE k = 1 "
		     "ORDER BY p.allocator, p.debug = 'off' DESC, p.debug",
		     &st)))
		goto out;
	top_runs(c, st, f);
	if (!f->nr) {
		(void)snprintf(fig->note, sizeof(fig->note), "no runs of a trace");
		goto out;
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
			"WHERE w > 0 ORDER BY w DESC, cache LIMIT 10",
			query_latest_cte, query_shared_cte);
		if ((rc = prep(c, sql, &f->cs)))
			goto out;
	}
	char head[512];
	(void)snprintf(
		head, sizeof(head),
		"# top %d root caches by waste at the end (rounding + layout + free slots + "
		"tail), KiB\n# caches without waste left out; one block per trace, allocator and "
		"debug\n# setting (gnuplot index). SLOB's caches "
		"hold no pages (its\n# pages are shared lists): its block has the caches' "
		"rounding + layout and one\n# bar '(shared pages: free space)', the run total of "
		"free space in its pages\n#cache waste_kib\n",
		TOP);
	if ((rc = write_dat(c, fig->name, head, top_dat, f)))
		goto out;
	/* not fig_height: a single panel is not made taller */
	const struct gp_layout l = {"one panel per trace, allocator and debug setting; colour = "
				    "allocator,\n# hatched = debug on; caches without waste left "
				    "out\n",
				    "",
				    (int)(260 * f->nr + 60),
				    f->nr,
				    fig->title,
				    top_panels,
				    f};
	rc = write_gp(c, fig, &l);
out:
	sqlite3_finalize(st);
	sqlite3_finalize(f->cs);
	free(f);
	return rc;
}

/* 5: CDF of slab occupancy (per-cache samples), one panel per trace, one
 * line per run (identical series once; SLOB has no fixed slots). */
enum { CDF_MAXPTS = 2000 };

/* What figure 5 gathers over its panels. */
struct cdf_fig {
	sqlite3_stmt *st; /* the occupancy values of run ?1 */
	double *v;	  /* a run's values, sorted */
	size_t cap;
	/* allocators with a run that has no value: an allocator without fixed
	 * object slots (SLOB) has no occupancy; they are named in the title */
	char unshown[200];
	int unshown_pos[16];
	size_t nunshown;
	struct mem_panel pn[MAXTR];
	size_t npanel, block;
};

/* Counts the values of each run of panel m into nval; a run without any
 * names its allocator in a->unshown. */
static void cdf_count(struct cdf_fig *a, const struct mem_panel *m, size_t *nval)
{
	for (size_t i = 0; i < m->np; i++) {
		size_t n = 0;
		bind_run(a->st, m->p[i].run_id);
		while (sqlite3_step(a->st) == SQLITE_ROW)
			n++;
		nval[i] = n;
		int ap = alloc_pos(m->p[i].allocator);
		size_t u = 0;
		while (u < a->nunshown && a->unshown_pos[u] != ap)
			u++;
		if (!n && u == a->nunshown &&
		    a->nunshown < sizeof(a->unshown_pos) / sizeof(a->unshown_pos[0])) {
			size_t l = strlen(a->unshown);
			a->unshown_pos[a->nunshown++] = ap;
			(void)snprintf(a->unshown + l, sizeof(a->unshown) - l, "%s%s",
				       l ? ", " : "", m->p[i].allocator);
		}
	}
}

/* The n values of a run into a->v, sorted (a->v holds n). */
static size_t cdf_values(struct cdf_fig *a, long long run_id, size_t n)
{
	size_t got = 0;
	bind_run(a->st, run_id);
	while (sqlite3_step(a->st) == SQLITE_ROW && got < n)
		a->v[got++] = sqlite3_column_double(a->st, 0);
	gsl_sort(a->v, 1, got);
	return got;
}

/* The sorted values of each run, hashed to find identical ones. */
static int cdf_sigs(struct ctx *c, struct cdf_fig *a, struct mem_panel *m, const size_t *nval)
{
	for (size_t i = 0; i < m->np; i++) {
		if (!nval[i]) {
			m->p[i].sig = (uint64_t)i; /* not drawn */
			continue;
		}
		if (nval[i] > a->cap) {
			double *nv = realloc(a->v, nval[i] * sizeof(*nv));
			if (!nv)
				return oom(c);
			a->v = nv;
			a->cap = nval[i];
		}
		size_t n = cdf_values(a, m->p[i].run_id, nval[i]);
		m->p[i].sig = sig_add(0xcbf29ce484222325u, a->v, n * sizeof(*a->v)) ^ 1;
	}
	return 0;
}

/* Panel m's blocks of the .dat, from *block on: one per run drawn. */
static void cdf_blocks(struct ctx *c, struct cdf_fig *a, FILE *d, struct mem_panel *m,
		       const size_t *nval, size_t *block)
{
	for (size_t i = 0; i < m->np; i++) {
		if (!nval[i] || m->p[i].same_as >= 0) {
			if (!nval[i])
				m->p[i].same_as = -2; /* no values: not drawn */
			continue;
		}
		size_t n = cdf_values(a, m->p[i].run_id, nval[i]);
		dat_run_head(d, *block, c->trace, &m->p[i], m->titles[i]);
		fprintf(d, " (%zu values)\n", n);
		size_t step = n > CDF_MAXPTS ? (n + CDF_MAXPTS - 1) / CDF_MAXPTS : 1;
		for (size_t j = 0; j < n; j++)
			if (j % step == step - 1 || j == n - 1) {
				fprintf(d, "%.6f %.6f\n", a->v[j], (double)(j + 1) / (double)n);
				m->p[i].rows++;
			}
		(*block)++;
	}
}

/* Figure 5's .dat: the blocks of each trace's panel. */
static int cdf_dat(struct ctx *c, FILE *d, void *arg)
{
	struct cdf_fig *a = arg;
	int rc = 0;
	for (size_t k = 0; k < c->ntr && !rc; k++) {
		struct mem_panel *m = &a->pn[a->npanel];
		size_t *nval;
		if ((rc = panel_runs(c, k, m)))
			break;
		if (!(nval = calloc(m->np + 1, sizeof(*nval))))
			return oom(c);
		cdf_count(a, m, nval);
		if (!(rc = cdf_sigs(c, a, m, nval))) {
			mark_identical(m->p, m->np, m->titles);
			m->first = a->block;
			cdf_blocks(c, a, d, m, nval, &a->block);
			m->nblocks = a->block - m->first;
			if (m->nblocks)
				a->npanel++;
			else
				panel_free(m);
		}
		free(nval);
	}
	return rc;
}

static void cdf_panels(FILE *g, const struct plot_fig *fig, const void *arg)
{
	const struct line_fig *lf = arg;
	fprintf(g, "set xlabel 'slab occupancy (live objects / object slots, fraction)'\n"
		   "set ylabel 'fraction of (sample, cache) points at or below'\n"
		   "set xrange [0:1]\nset yrange [0:1]\nset grid\n"
		   "set key outside right top\n");
	for (size_t k = 0; k < lf->npanel; k++) {
		const struct mem_panel *m = &lf->pn[k];
		gp_title(g, lf->c->tr[m->tr].label);
		gp_kernel_marks(g, m);
		gp_run_lines(g, fig->name, m, false);
	}
}

static int fig_cdf(struct ctx *c, struct plot_fig *fig)
{
	struct cdf_fig *a = calloc(1, sizeof(*a));
	int rc;
	(void)snprintf(fig->title, sizeof(fig->title),
		       "CDF of slab occupancy over per-cache samples");
	if (!a)
		return oom(c);
	if ((rc = prep(c,
		       "SELECT 1.0 * sc.live_objs / (sc.slabs * c.objs_per_slab) "
		       "FROM sample_caches_full sc JOIN caches c "
		       "  ON c.run_id = sc.run_id AND c.cache = sc.cache "
		       "WHERE sc.run_id = ?1 AND sc.slabs > 0 AND c.objs_per_slab > 0",
		       &a->st)))
		goto out;
	char head[512];
	(void)snprintf(
		head, sizeof(head),
		"# slab occupancy = live objects / (slabs x objects per slab), one value per\n"
		"# (sample, cache) with slabs; empirical CDF, one block per run, traces one\n"
		"# after the other (SLOB has no fixed slots and is left out; a run whose\n"
		"# values equal an earlier one's is not repeated); at most %d points per block\n"
		"#occupancy cdf\n",
		CDF_MAXPTS);
	if ((rc = write_dat(c, fig->name, head, cdf_dat, a)))
		goto out;
	if (!a->npanel) {
		(void)snprintf(fig->note, sizeof(fig->note),
			       "no per-cache samples of slab allocators for a trace");
		goto out;
	}
	char full[sizeof(fig->title) + sizeof(a->unshown) + 64];
	for (char *q = a->unshown; *q; q++)
		*q = (char)toupper((unsigned char)*q);
	(void)snprintf(full, sizeof(full),
		       "%s (%s not shown: no samples of caches with fixed object slots)",
		       fig->title, a->unshown);
	const struct line_fig lf = {c, a->pn, a->npanel};
	const struct gp_layout l = {"empirical CDF, one panel per trace, one line per run\n"
				    "# colour = allocator, dash = alignment, thick = debug on\n",
				    "",
				    fig_height(a->npanel, 420),
				    a->npanel,
				    a->nunshown ? full : fig->title,
				    cdf_panels,
				    &lf};
	rc = write_gp(c, fig, &l);
out:
	sqlite3_finalize(a->st);
	free(a->v);
	for (size_t k = 0; k < MAXTR; k++)
		panel_free(&a->pn[k]);
	free(a);
	return rc;
}

/* Run prog on NAME.gp in the output directory. gnuplot reports most
 * problems (a column that is not there, no valid points) as warnings on
 * stderr and exits with 0: anything it prints is an error here, and so is
 * a PNG it did not write. */
static int render(struct ctx *c, const char *prog, const char *name)
{
	char script[64], log[4096], png[4096];
	(void)snprintf(script, sizeof(script), "%s.gp", name);
	(void)snprintf(log, sizeof(log), "%s/%s.log", c->dir, name);
	(void)snprintf(png, sizeof(png), "%s/%s.png", c->dir, name);
	(void)remove(png);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return err_set(c->e, SLABSIM_EIO, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (!freopen(log, "w", stderr) || chdir(c->dir) != 0)
			_exit(126);
		execlp(prog, prog, script, (char *)NULL);
		_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return err_set(c->e, SLABSIM_EIO, "waitpid: %s", strerror(errno));
	char first[512] = "";
	FILE *lf = fopen(log, "r");
	if (lf) {
		if (!fgets(first, sizeof(first), lf))
			first[0] = '\0';
		fclose(lf);
		first[strcspn(first, "\n")] = '\0';
	}
	(void)remove(log);
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 127)
		return err_set(c->e, SLABSIM_EIO,
			       "cannot run %s (install the Debian package gnuplot-nox)", prog);
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
		return err_set(c->e, SLABSIM_EIO, "%s %s/%s failed (exit status %d)%s%s", prog,
			       c->dir, script, WIFEXITED(ws) ? WEXITSTATUS(ws) : -1,
			       first[0] ? ": " : "", first);
	if (first[0])
		return err_set(c->e, SLABSIM_EIO, "%s %s/%s: %s", prog, c->dir, script, first);
	struct stat sb;
	if (stat(png, &sb) != 0 || sb.st_size == 0)
		return err_set(c->e, SLABSIM_EIO, "%s %s/%s wrote no %s.png", prog, c->dir, script,
			       name);
	return 0;
}

int plot_render(const char *dir, const char *prog, const char *name, struct err *e)
{
	struct ctx c = {.dir = dir, .e = e};
	return render(&c, prog ? prog : "gnuplot", name);
}

int plot_all(const char *db_path, const char *out_dir, const struct plot_opts *o,
	     struct plot_result *res, struct err *e)
{
	static const char *const stems[PLOT_NFIGS] = {
		"memory-time", "align-overhead", "waste-by-kind",
		"top-caches",  "occupancy-cdf",	 "align-options",
	};
	struct ctx c = {.dir = out_dir, .e = e};
	sqlite3_stmt *st = NULL;
	size_t left_out = 0;
	int rc;

	memset(res, 0, sizeof(*res));
	for (int i = 0; i < PLOT_NFIGS; i++)
		(void)snprintf(res->figs[i].name, sizeof(res->figs[i].name), "%s", stems[i]);
	if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
		return err_set(e, SLABSIM_EIO, "%s: %s", out_dir, strerror(errno));
	if ((rc = query_open(db_path, &c.db, e)))
		return rc;
	/* the traces: all of them, or the one --trace names (label or path) */
	if ((rc = prep_latest(&c,
			      "SELECT trace, min(trace_path) FROM latest WHERE trace IS NOT NULL "
			      "AND (?1 IS NULL OR trace = ?1 OR trace_path = ?1) "
			      "GROUP BY trace ORDER BY trace",
			      &st)))
		goto out;
	if (o->trace)
		sqlite3_bind_text(st, 1, o->trace, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (c.ntr == MAXTR) {
			left_out++;
			continue;
		}
		(void)snprintf(c.tr[c.ntr].label, sizeof(c.tr[0].label), "%s", col_text(st, 0));
		(void)snprintf(c.tr[c.ntr].path, sizeof(c.tr[0].path), "%s", col_text(st, 1));
		c.ntr++;
	}
	sqlite3_finalize(st);
	if (o->trace && !c.ntr) {
		rc = err_set(e, SLABSIM_EUSAGE, "%s: no runs of a trace labelled or at '%s'",
			     db_path, o->trace);
		goto out;
	}
	for (size_t k = 0, n = 0; k < c.ntr; k++) {
		int w = snprintf(res->trace + n, sizeof(res->trace) - n, "%s%s", k ? ", " : "",
				 c.tr[k].label);
		if (w < 0 || (size_t)w >= sizeof(res->trace) - n)
			break;
		n += (size_t)w;
	}
	res->ntraces = c.ntr;
	if ((rc = fig_memory(&c, &res->figs[0])) || (rc = fig_overhead(&c, &res->figs[1])) ||
	    (rc = fig_waste(&c, &res->figs[2])) || (rc = fig_top(&c, &res->figs[3])) ||
	    (rc = fig_cdf(&c, &res->figs[4])) || (rc = fig_options(&c, &res->figs[5])))
		goto out;
	if (left_out)
		for (int i = 0; i < PLOT_NFIGS; i++)
			if (res->figs[i].drawn)
				(void)snprintf(res->figs[i].note, sizeof(res->figs[i].note),
					       "%zu more traces not drawn (at most %d panels; "
					       "choose one with --trace)",
					       left_out, MAXTR);
	if (o->render)
		for (int i = 0; i < PLOT_NFIGS && !rc; i++)
			if (res->figs[i].drawn)
				rc = render(&c, o->gnuplot ? o->gnuplot : "gnuplot",
					    res->figs[i].name);
out:
	sqlite3_close(c.db);
	return rc;
}
