/* study.c - the studies and their figures (see study.h). */
#include "study.h"
#include "plot.h"
#include "query.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Series colours: none of them an allocator's colour in plot.c (SLUB blue,
 * SLAB orange, SLOB green), so that a study's bars are not read as
 * allocators. */
static const char *const series_rgb[4] = {"#7b3294", "#c2a5cf", "#008837", "#a6dba0"};

/* Study 1's bars: SLUB before SLOB, 6.1 before 6.18, debug off, Z, FZPU;
 * a pair of bars (natural, pow2-divisor) per label. */
#define STUDY1_ORDER                                                                               \
	"(CASE q.allocator WHEN 'slub' THEN 0 ELSE 1 END) || q.kernel || ' ' || "                  \
	"(CASE q.debug WHEN 'off' THEN 0 WHEN 'Z' THEN 1 ELSE 2 END)"
#define STUDY1_LABEL "upper(q.allocator) || ' ' || q.kernel || ' debug ' || q.debug"
/* Kernel profiles in release order (6.18 after 6.1). */
#define STUDY_KORDER                                                                               \
	"printf('%03d%03d', CAST(substr(q.kernel, 1, instr(q.kernel, '.') - 1) AS INTEGER), "      \
	"CAST(substr(q.kernel, instr(q.kernel, '.') + 1) AS INTEGER))"

const struct study_def study_table[] = {
	{"align-2024",
	 1,
	 "Study 1: the 2019 question on today's kernels",
	 "What did the 2024 widening of kmalloc's alignment guarantee (Linux 6.11: every "
	 "kmalloc cache aligned to the largest power of two dividing its size, --align "
	 "pow2-divisor) cost over the 2019 guarantee (5.4: power-of-two sizes naturally "
	 "aligned, --align natural), and the 2019 guarantee over none, with slub_debug off, Z "
	 "and FZPU, under the 6.1 and the 6.18 profile; and SLOB under its own last rules, the "
	 "allocator the 2019 patch measured? Where does the widening land: which caches, which "
	 "call sites?",
	 "analysis/sweeps/study-1-align-2024.sweep",
	 "study-align-2024",
	 "study-align-2024-where",
	 {{"q.trace, " STUDY1_ORDER " || '1', " STUDY1_LABEL ", q.cost_2019_pct, 0, "
	   "q.basis NOT LIKE 'natural recorded%'",
	   "q.trace, " STUDY1_ORDER " || '2', " STUDY1_LABEL ", "
	   "round(100.0 * (q.pow2_peak - q.none_peak) / q.none_peak, 2), 1, "
	   "q.basis NOT LIKE 'pow2-divisor recorded%'"},
	  "extra peak slab pages over align none (%)",
	  {"natural (2019, Linux 5.4)", "pow2-divisor (2024, Linux 6.11)", NULL},
	  "Peak slab pages of the 2019 guarantee and of the 2024 widening over no guarantee, "
	  "per allocator, kernel profile and debug setting; the gap between a pair of bars is "
	  "what the widening added."},
	 "A bar is solid (validated) when the configuration it names is the one that recorded "
	 "the trace, hatched (what-if) otherwise. "
	 "Validated: each trace replayed under the profile of the kernel that recorded it, "
	 "SLUB without debugging, with that kernel's own rule (natural under 6.1, "
	 "pow2-divisor under 6.18) is the configuration the trace was recorded under; its "
	 "slot sizes equal the trace's bytes_alloc to the byte, and the 6.18 profile's layout "
	 "equals this machine's /sys/kernel/slab for every cache. The SLUB slub_debug=FZPU "
	 "layout rules are validated on the bundled 6.1 FZPU capture and by the seed "
	 "experiment's real kernels (README). What-ifs: every other align value under a "
	 "profile (the kernel never ran it), debugging on traces recorded without it, a trace "
	 "under the other kernel's profile, and SLOB on the 6.18 trace (SLOB was removed in "
	 "6.4); SLOB on the 6.1 trace is the model the seed experiment checked against real "
	 "SLOB kernels."},
	{"sheaves",
	 2,
	 "Study 2: sheaves against per-CPU partial lists",
	 "What do per-CPU sheaves cost in memory against the per-CPU partial lists they "
	 "replace: slab pages at the end and at the peak, and the objects parked in sheaves and "
	 "barns (allocated in slabs, free for the kernel), for the same traces under Linux 6.1 "
	 "(per-CPU slabs and partial lists), 6.18 (sheaves for the caches created with a "
	 "capacity: maple_node and vm_area_struct) and 7.0 (sheaves for every cache, "
	 "calculate_sheaf_capacity, no per-CPU partial lists)? The 7.0 series' cover letter "
	 "left this performance evaluation to do, warning that objects from sheaves come from "
	 "many slabs.",
	 "analysis/sweeps/study-2-sheaves.sweep",
	 "study-sheaves",
	 NULL,
	 {{"q.trace, " STUDY_KORDER ", 'Linux ' || q.kernel, q.vs_6_1_peak, 0, "
	   "q.basis <> 'recorded'",
	   "q.trace, " STUDY_KORDER ", 'Linux ' || q.kernel, q.parked_end_pages, 1, "
	   "q.basis <> 'recorded'"},
	  "slab pages (4 KiB)",
	  {"peak slab pages over 6.1 (per-CPU partial lists)",
	   "objects parked in sheaves and barns at the end, in pages", NULL},
	  "Per kernel profile and trace: the peak slab pages over the 6.1 profile's, and the "
	  "pages the objects parked in sheaves and barns at the end fill (each cache's parked "
	  "objects times its slot size)."},
	 "A bar is solid (validated) when the trace runs under the profile of the kernel that "
	 "recorded it (the 6.1 trace under 6.1, this machine's trace under 6.18), hatched "
	 "(what-if) otherwise. Validated: the 6.18 sheaves of maple_node and vm_area_struct "
	 "(capacity 32, this machine's /sys/kernel/slab) on this machine's trace; the 6.1 "
	 "per-CPU partial lists on the 6.1 trace. What-ifs: every trace under a kernel that did "
	 "not record it, and every 7.0 run: no 7.0 kernel has been captured; the 7.0 rules "
	 "(sheaves for every cache but kmem_cache, kmem_cache_node and kmemleak's, "
	 "calculate_sheaf_capacity, refill from whole slabs of the node partial list) are read "
	 "from its mm/slub.c (docs/models.md, Sheaves). The inputs are trace files (an empty "
	 "start), so the parked objects are those the traced allocations and frees leave in the "
	 "sheaves; frees the 6.18 trace does not show (kfree_rcu, bulk frees of maple nodes) "
	 "are inferred (docs/models.md), and the grace period of kfree_rcu is not modelled."},
	{"sheaf-capacity",
	 3,
	 "Study 3: sheaf capacity and barn limits",
	 "How much memory does the kernel's sheaf capacity rule hold against other capacities "
	 "(8, 16, 32, 64 objects a sheaf for every cache that has sheaves) and smaller barns "
	 "(2 full and 2 empty sheaves instead of MAX_FULL_SHEAVES = MAX_EMPTY_SHEAVES = 10), "
	 "under 6.18 (the capacity a cache was created with) and 7.0 "
	 "(calculate_sheaf_capacity: 4 to 60 objects by slot size)?",
	 "analysis/sweeps/study-3-sheaf-capacity.sweep",
	 "study-sheaf-capacity",
	 NULL,
	 {{"q.trace, " STUDY_KORDER " || printf('%04d', CASE WHEN q.sheaf_capacity = 'kernel' "
	   "THEN 0 ELSE CAST(q.sheaf_capacity AS INTEGER) END), 'Linux ' || q.kernel || ' cap ' "
	   "|| q.sheaf_capacity, CASE WHEN q.barn_limit = 'kernel' THEN q.vs_kernel_peak END, 0, "
	   "q.basis <> 'recorded'",
	   "q.trace, " STUDY_KORDER " || printf('%04d', CASE WHEN q.sheaf_capacity = 'kernel' "
	   "THEN 0 ELSE CAST(q.sheaf_capacity AS INTEGER) END), 'Linux ' || q.kernel || ' cap ' "
	   "|| q.sheaf_capacity, CASE WHEN q.barn_limit <> 'kernel' THEN q.vs_kernel_peak END, 1, "
	   "q.basis <> 'recorded'"},
	  "peak slab pages over the kernel's rule",
	  {"the kernel's barn limits (10 full, 10 empty)", "barn_limit = 2 (2 full, 2 empty)",
	   NULL},
	  "Per kernel profile, sheaf capacity ('kernel': the kernel's rule) and barn limit: the "
	  "peak slab pages over those of the kernel's own capacity rule and barn limits."},
	 "Solid: the kernel's own capacity and barn limits on the trace its kernel recorded "
	 "(this machine's trace under 6.18); every other bar is a what-if (hatched), and all of "
	 "7.0 (no 7.0 kernel captured). Under 6.18 on a trace alone only maple_node and "
	 "vm_area_struct have sheaves, with the capacity 32 their creation asks "
	 "(lib/maple_tree.c, mm/vma_init.c): sheaf_capacity 32 gives the kernel's figures "
	 "again, as it must (hatched only because it was asked as a what-if). The capacity and "
	 "the barn limits are the kernel's constants replaced, nothing else: a capacity the "
	 "kernel could not allocate (a sheaf is a kmalloc) is not refused, and the barn limits "
	 "apply where the kernel checks MAX_FULL_SHEAVES and MAX_EMPTY_SHEAVES "
	 "(barn_replace_full_sheaf, rcu_free_sheaf; docs/models.md, Sheaves)."},
	{"random-kmalloc",
	 4,
	 "Study 4: random kmalloc caches",
	 "What do the random kmalloc caches (CONFIG_RANDOM_KMALLOC_CACHES, 6.6: kmalloc-N and "
	 "15 copies kmalloc-rnd-NN-N, each call site's copy chosen by a hash of its address and "
	 "a per-boot seed) cost in memory against one set of kmalloc caches, per cache size?",
	 "analysis/sweeps/study-4-random-kmalloc.sweep",
	 "study-random-kmalloc",
	 NULL,
	 {{"q.trace, printf('%08d', CASE WHEN q.size = 'all' THEN 99999999 WHEN q.size LIKE '%k'"
	   " THEN 1024 * CAST(q.size AS INTEGER) ELSE CAST(q.size AS INTEGER) END), "
	   "CASE WHEN q.size = 'all' THEN 'all (/10)' ELSE 'kmalloc-' || q.size END, "
	   "CASE WHEN q.size = 'all' THEN q.extra_pages / 10.0 ELSE q.extra_pages END, "
	   "CASE WHEN q.size = 'all' THEN 1 ELSE 0 END, 1",
	   NULL},
	  "extra slab pages at the end, 16 sets - one set",
	  {"per kmalloc size (the size's 16 caches summed)", "all slab pages, divided by 10", NULL},
	  "Slab pages the 16 sets hold at the end over what one set holds, per kmalloc size "
	  "(kmalloc-N and its 15 copies against kmalloc-N), and the run's total divided by 10 "
	  "to share the scale."},
	 "Every bar is a what-if (hatched): neither trace was recorded with the random kmalloc "
	 "caches. The model of the caches is validated: on 6.12 kernels built with "
	 "CONFIG_RANDOM_KMALLOC_CACHES and booted under qemu, its 291 caches were laid out as "
	 "the kernel did and its pages over the swing workload came within pages_mae_over_swing "
	 "0.0058 (README). On these traces without a system map the call site's copy is chosen "
	 "from a hash of the trace's symbol+offset and the model's seed, not the kernel's "
	 "caller address and per-boot seed, so which copy a site takes differs from a real "
	 "boot while the number of copies a site spreads over does not. The one-set runs under "
	 "the 6.18 profile on this machine's trace are the recorded configuration (validated "
	 "layout)."},
	{"isolation",
	 5,
	 "Study 5: what isolation costs (kmem_buckets and slab_nomerge)",
	 "What do kmem_buckets (CONFIG_SLAB_BUCKETS, 6.11: the msg_msg-N and memdup_user-N "
	 "caches beside kmalloc-N for the kmallocs whose sizes user space chooses) and "
	 "slab_nomerge (no cache merged into another) cost in memory?",
	 "analysis/sweeps/study-5-isolation.sweep",
	 "study-isolation",
	 NULL,
	 {{"q.trace, q.slab_buckets || q.slab_nomerge, "
	   "'buckets ' || q.slab_buckets || ', nomerge ' || q.slab_nomerge, q.extra_peak_pct, "
	   "CASE WHEN q.slab_buckets = 'on' THEN 0 ELSE 1 END, q.basis <> 'recorded'",
	   NULL},
	  "extra peak slab pages over both off (%)",
	  {"kmem_buckets on", "kmem_buckets off", NULL},
	  "Peak slab pages of each isolation setting over neither, per trace."},
	 "A bar is solid (validated) when its run is the recorded configuration (the basis "
	 "column), hatched (what-if) otherwise. "
	 "Validated: the kmem_buckets caches equal a real 6.18 /sys/kernel/slab (all 26), and "
	 "the 6.18 profile with buckets on and merging as the kernel does is the configuration "
	 "this machine's trace was recorded under. What-ifs: buckets off, slab_nomerge on, "
	 "and every run of the 6.1 trace. slab_nomerge follows find_mergeable() and "
	 "slab_unmergeable() of mm/slab_common.c (read in 6.12: slab_nomerge refuses first); its "
	 "cost is 0 here because nothing in these inputs can merge: a trace names each merged "
	 "cache by its root (the aliases' objects are the root's in the events), so it cannot "
	 "tell which objects the separated caches would hold. The capture of this machine "
	 "lists 92 aliases of 39 root caches (slab-attrs-start.tsv, the aliases column of the root "
	 "caches): an "
	 "upper bound of the caches slab_nomerge would add, which a trace with cache-creation "
	 "events or a workload with mergeable caches can measure through the same axis."},
	{"slob-tiny",
	 6,
	 "Study 6: SLOB against SLUB_TINY",
	 "SLOB was removed in 6.4 on the argument that SLUB_TINY (6.2) serves the small "
	 "machines SLOB served. What footprint did that assume nobody needed: slab pages of "
	 "SLOB under its last rules against SLUB_TINY and SLUB on the same traces?",
	 "analysis/sweeps/study-6-slob-tiny.sweep",
	 "study-slob-tiny",
	 NULL,
	 {{"q.trace, q.model || q.kernel, q.model || ' ' || q.kernel, q.peak_pages, "
	   "CASE q.model WHEN 'slob' THEN 0 WHEN 'slub SLUB_TINY' THEN 1 ELSE 2 END, "
	   "q.basis LIKE 'what-if%'",
	   NULL},
	  "peak slab pages",
	  {"SLOB", "SLUB with SLUB_TINY", "SLUB", NULL},
	  "Peak slab pages per allocator and kernel profile, per trace."},
	 "Solid bars: SLOB's baseline and SLUB under the trace's own profile; hatched: the "
	 "what-ifs. "
	 "Baseline: SLOB under the 6.1 profile, its last rules, checked against real SLOB "
	 "kernels by the seed experiment (README). SLUB under the trace's own profile is the "
	 "recorded configuration (validated). What-ifs: SLOB under 6.18 (removed in 6.4), "
	 "SLUB_TINY under 6.1 (it came in 6.2), and SLUB_TINY under 6.18: what-if (not yet "
	 "validated) until a SLUB_TINY kernel is captured (the k612 helper's qemu runs). "
	 "SLOB's pages are its shared page lists, SLUB's its slabs: both are the slab pages "
	 "a kernel reports (Slab: in /proc/meminfo)."},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL, {{NULL, NULL}, NULL, {NULL}, NULL}, NULL},
};

const struct study_def *study_find(const char *id)
{
	for (const struct study_def *s = study_table; s->id; s++)
		if (!strcmp(s->id, id))
			return s;
	return NULL;
}

/* One bar of the figure. */
struct bar {
	char panel[256], label[128];
	double v;
	int series;
	bool whatif; /* hatched */
};

/* The bars, in panel and order. */
static int fig_bars(sqlite3 *db, const struct study_def *s, struct bar **out, size_t *n,
		    struct err *e)
{
	const struct query_def *q = query_find(s->query);
	if (!q)
		return err_set(e, SLABSIM_EIO, "study %s: no query %s", s->id, s->query);
	char *sql = sqlite3_mprintf("SELECT * FROM (SELECT %s FROM (%s) q", s->fig.cols[0], q->sql);
	if (sql && s->fig.cols[1]) {
		char *more = sqlite3_mprintf("%s UNION ALL SELECT %s FROM (%s) q", sql,
					     s->fig.cols[1], q->sql);
		sqlite3_free(sql);
		sql = more;
	}
	char *all = sql ? sqlite3_mprintf("%s) ORDER BY 1, 2", sql) : NULL;
	sqlite3_free(sql);
	if (!all)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, all, -1, &st, NULL);
	sqlite3_free(all);
	if (rc != SQLITE_OK)
		return err_set(e, SLABSIM_EIO, "study %s: %s", s->id, sqlite3_errmsg(db));
	struct bar *b = NULL;
	size_t nb = 0, cap = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 3) == SQLITE_NULL)
			continue; /* no value: no bar */
		if (nb == cap) {
			cap = cap ? cap * 2 : 32;
			struct bar *nbp = realloc(b, cap * sizeof(*b));
			if (!nbp) {
				free(b);
				sqlite3_finalize(st);
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			}
			b = nbp;
		}
		const unsigned char *p = sqlite3_column_text(st, 0),
				    *l = sqlite3_column_text(st, 2);
		(void)snprintf(b[nb].panel, sizeof(b[nb].panel), "%s", p ? (const char *)p : "");
		(void)snprintf(b[nb].label, sizeof(b[nb].label), "%s", l ? (const char *)l : "");
		b[nb].v = sqlite3_column_double(st, 3);
		int sr = sqlite3_column_int(st, 4);
		b[nb].series = sr < 0 || sr > 3 ? 0 : sr;
		b[nb].whatif = sqlite3_column_int(st, 5) != 0;
		nb++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(b);
		return err_set(e, SLABSIM_EIO, "study %s: %s", s->id, sqlite3_errmsg(db));
	}
	*out = b;
	*n = nb;
	return 0;
}

static double bar_x(const struct study_def *s, size_t group, int series);
static size_t bar_groups(const struct bar *b, const size_t *first, size_t k, size_t *grp);

/* The panels: bars [first[k], first[k + 1]) are panel k. */
static size_t fig_panels(const struct bar *b, size_t n, size_t *first, size_t max)
{
	size_t np = 0;
	for (size_t i = 0; i < n && np < max; i++)
		if (!i || strcmp(b[i].panel, b[i - 1].panel))
			first[np++] = i;
	first[np] = n;
	return np;
}

/* NAME.dat: a block per panel, a row per bar (x, value, series, label). */
static int fig_dat(const char *path, const struct study_def *s, const struct bar *b,
		   const size_t *first, size_t np, size_t *grp, struct err *e)
{
	FILE *d = fopen(path, "w");
	if (!d)
		return err_set(e, SLABSIM_EIO, "%s: %s", path, strerror(errno));
	fprintf(d,
		"# study %s: %s\n# from: slabsim query %s\n# x value series whatif label "
		"(whatif 1: a what-if bar, hatched)\n",
		s->id, s->fig.ylabel, s->query);
	for (size_t k = 0; k < np; k++) {
		fprintf(d, "%s# trace \"%s\"\n", k ? "\n\n" : "", b[first[k]].panel);
		(void)bar_groups(b, first, k, grp);
		for (size_t i = first[k]; i < first[k + 1]; i++)
			fprintf(d, "%.1f %.6f %d %d \"%s\"\n", bar_x(s, grp[i], b[i].series),
				b[i].v, b[i].series, b[i].whatif ? 1 : 0, b[i].label);
	}
	if (fclose(d) != 0)
		return err_set(e, SLABSIM_EIO, "%s: write error", path);
	return 0;
}

/* A bar's x: its group (the run of equal labels it is in: one xtic) and,
 * with several select lists, its series' place beside the others. */
static double bar_x(const struct study_def *s, size_t group, int series)
{
	if (!s->fig.cols[1])
		return (double)group;
	return (double)group + (series ? 0.2 : -0.2);
}

/* The groups of panel k: *ng, and each bar's group in grp. */
static size_t bar_groups(const struct bar *b, const size_t *first, size_t k, size_t *grp)
{
	size_t g = 0;
	for (size_t i = first[k]; i < first[k + 1]; i++) {
		if (i > first[k] && strcmp(b[i].label, b[i - 1].label))
			g++;
		grp[i] = g;
	}
	return first[k + 1] > first[k] ? g + 1 : 0;
}

/* One terminal's drawing: a panel per trace, its y range from its own bars. */
static void fig_gp_panels(FILE *g, const struct study_def *s, const struct bar *b,
			  const size_t *first, size_t np, size_t *grp)
{
	fprintf(g,
		"set style fill solid 0.85 border lc rgb '#333333'\nset boxwidth %s\n"
		"set grid ytics lc rgb '#dddddd'\nset xtics rotate by 30 right nomirror\n"
		"set lmargin 16\nset key top left Left reverse samplen 1.5\nset ylabel ",
		s->fig.cols[1] ? "0.4" : "0.7");
	plot_gp_str(g, s->fig.ylabel);
	fputc('\n', g);
	for (size_t k = 0; k < np; k++) {
		double lo = 0, hi = 0;
		size_t ng = bar_groups(b, first, k, grp);
		/* a series with no value in this panel (study 2 without a 6.1
		 * run has no change over 6.1) is named in the title, not keyed */
		bool has[4] = {false, false, false, false};
		for (size_t i = first[k]; i < first[k + 1]; i++)
			has[b[i].series] = true;
		char title[512];
		int missing = 0;
		size_t tl = (size_t)snprintf(title, sizeof(title), "%s", b[first[k]].panel);
		for (int sr = 0; sr < 4 && s->fig.series[sr]; sr++)
			if (!has[sr] && tl < sizeof(title))
				tl += (size_t)snprintf(
					title + tl, sizeof(title) - tl, "%s%s",
					missing++ ? "; " : " (no value: ", s->fig.series[sr]);
		if (missing && tl < sizeof(title))
			(void)snprintf(title + tl, sizeof(title) - tl, ")");
		fprintf(g, "set title ");
		plot_gp_str(g, title);
		fprintf(g, "\nset xtics (");
		for (size_t i = first[k]; i < first[k + 1]; i++) {
			lo = b[i].v < lo ? b[i].v : lo;
			hi = b[i].v > hi ? b[i].v : hi;
			if (i > first[k] && grp[i] == grp[i - 1])
				continue;
			fprintf(g, "%s", i > first[k] ? ", " : "");
			plot_gp_str(g, b[i].label);
			fprintf(g, " %zu", grp[i]);
		}
		/* room above (and below) for the value labels and the key: a
		 * line of it per series and one for the hatching */
		int nkey = 1;
		while (nkey <= 4 && s->fig.series[nkey - 1])
			nkey++;
		double pad = hi - lo > 0 ? (hi - lo) * (0.1 + 0.12 * nkey) : 1.0;
		fprintf(g, ")\nset xrange [-0.6:%.1f]\nset yrange [%.6f:%.6f]\n", (double)ng - 0.4,
			lo < 0 ? lo - pad : 0.0, hi + pad);
		fprintf(g, "plot ");
		/* the key first (keyentry: a series with no bar of a kind in this
		 * panel draws nothing, and gnuplot would warn of an element
		 * without points); then per series its validated bars solid and
		 * its what-ifs hatched in the same colour, where there are some */
		for (int sr = 0; sr < 4 && s->fig.series[sr]; sr++) {
			if (!has[sr])
				continue;
			fprintf(g, "keyentry with boxes lc rgb '%s' title ", series_rgb[sr]);
			plot_gp_str(g, s->fig.series[sr]);
			fprintf(g, ", \\\n     ");
		}
		fprintf(g, "keyentry with boxes lc rgb '#333333' fs pattern 4 border title "
			   "'hatched: what-if (solid: validated)', \\\n     ");
		for (int sr = 0; sr < 4 && s->fig.series[sr]; sr++)
			for (int w = 0; w < 2; w++) {
				bool any = false;
				for (size_t i = first[k]; i < first[k + 1]; i++)
					any |= b[i].series == sr && b[i].whatif == (w == 1);
				if (!any)
					continue;
				fprintf(g,
					"'study-%s.dat' index %zu using 1:($3 == %d && $4 == %d ? "
					"$2 "
					": 1/0) with boxes lc rgb '%s'%s notitle, \\\n     ",
					s->id, k, sr, w, series_rgb[sr],
					w ? " fs pattern 4 border" : "");
			}
		/* a value's label just beyond its bar's end */
		double d = (hi - lo > 0 ? hi - lo : 1.0) * 0.05;
		fprintf(g,
			"'study-%s.dat' index %zu using 1:($2 < 0 ? $2 - %.6f : $2 + %.6f):"
			"(sprintf('%%.4g', $2)) with labels font ',8' notitle\n",
			s->id, k, d, d);
	}
}

int study_figure(sqlite3 *db, const char *dir, const struct study_def *s, bool render,
		 const char *prog, bool *drawn, struct err *e)
{
	enum { MAXP = 16 };
	struct bar *b = NULL;
	size_t n = 0, first[MAXP + 1];
	char path[4096], name[64];
	*drawn = false;
	int rc = fig_bars(db, s, &b, &n, e);
	if (rc || !n) {
		free(b);
		return rc;
	}
	size_t np = fig_panels(b, n, first, MAXP);
	size_t *grp = malloc(n * sizeof(*grp));
	if (!grp) {
		free(b);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	(void)snprintf(name, sizeof(name), "study-%s", s->id);
	(void)snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	if ((rc = fig_dat(path, s, b, first, np, grp, e)))
		goto out;
	(void)snprintf(path, sizeof(path), "%s/%s.gp", dir, name);
	FILE *g = fopen(path, "w");
	if (!g) {
		rc = err_set(e, SLABSIM_EIO, "%s: %s", path, strerror(errno));
		goto out;
	}
	static const char *const term[2][2] = {
		{"pngcairo noenhanced font 'Sans,10'", "png"},
		{"svg noenhanced font 'Sans,10' dynamic", "svg"},
	};
	fprintf(g, "# %s: %s\n", name, s->fig.caption);
	for (int t = 0; t < 2; t++) {
		fprintf(g, "set terminal %s size 960,%zu\nset output '%s.%s'\n", term[t][0],
			np * 420 + 40, name, term[t][1]);
		fprintf(g, "set multiplot layout %zu,1 title ", np);
		plot_gp_str(g, s->title);
		fputc('\n', g);
		fig_gp_panels(g, s, b, first, np, grp);
		fprintf(g, "unset multiplot\n");
	}
	if (fclose(g) != 0) {
		rc = err_set(e, SLABSIM_EIO, "%s: write error", path);
		goto out;
	}
	if (render && (rc = plot_render(dir, prog, name, e)))
		goto out;
	*drawn = true;
out:
	free(grp);
	free(b);
	return rc;
}
