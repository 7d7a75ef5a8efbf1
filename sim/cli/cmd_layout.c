/* cmd_layout.c - `slabsim layout`: the geometry of every kmalloc cache. */
#include "cli.h"
#include "err.h"
#include "policy.h"
#include "rec.h"
#include "sim.h"
#include "trace.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_FORMAT = CLI_OPT_CMD };

void usage_layout(FILE *f)
{
	fprintf(f, "Usage: slabsim layout [OPTIONS]\n"
		   "\n"
		   "Print, for every kmalloc cache, the figures /sys/kernel/slab/<cache>/ shows:\n"
		   "name, object_size, slab_size, align, order, objs_per_slab, min_partial,\n"
		   "cpu_partial.\n"
		   "\n");
	cli_usage_model_opts(f);
	fprintf(f,
		"  --format table|tsv    output format (default table; tsv has a header row)\n"
		"SLAB's freelist column: 1 inside a free object (OBJFREELIST), 2 off-slab,\n"
		"3 on-slab. SLOB has no kmalloc caches: nothing is printed.\n"
		"  -o, --output FILE     write the table to FILE instead of stdout\n"
		"  -h, --help            this help\n\n%s",
		cli_exit_codes_help);
}

/* ---- layout ---- */

/* Columns of `slabsim layout`: the /sys/kernel/slab attributes for SLUB,
 * and /proc/slabinfo's figures (with the layout behind them) for SLAB. */
enum layout_col {
	COL_OBJECT_SIZE,
	COL_SLAB_SIZE,
	COL_ALIGN,
	COL_ORDER,
	COL_OBJS_PER_SLAB,
	COL_PAGES_PER_SLAB,
	COL_MIN_PARTIAL,
	COL_CPU_PARTIAL,
	COL_COLOUR,
	COL_COLOUR_OFF,
	COL_LEFT_OVER,
	COL_FREELIST,
	COL_LIMIT,
	COL_BATCHCOUNT,
	COL_SHARED,
	COL_FREE_LIMIT,
};

static const char *const layout_col_names[] = {
	[COL_OBJECT_SIZE] = "object_size",
	[COL_SLAB_SIZE] = "slab_size",
	[COL_ALIGN] = "align",
	[COL_ORDER] = "order",
	[COL_OBJS_PER_SLAB] = "objs_per_slab",
	[COL_PAGES_PER_SLAB] = "pages_per_slab",
	[COL_MIN_PARTIAL] = "min_partial",
	[COL_CPU_PARTIAL] = "cpu_partial",
	[COL_COLOUR] = "colour",
	[COL_COLOUR_OFF] = "colour_off",
	[COL_LEFT_OVER] = "left_over",
	[COL_FREELIST] = "freelist",
	[COL_LIMIT] = "limit",
	[COL_BATCHCOUNT] = "batchcount",
	[COL_SHARED] = "sharedfactor",
	[COL_FREE_LIMIT] = "free_limit",
};

/* The figure of each column: an allocator shows those it fills
 * (policy_ops.figures). */
static const uint32_t layout_col_figure[] = {
	[COL_OBJECT_SIZE] = POLICY_FIG_OBJECT_SIZE,
	[COL_SLAB_SIZE] = POLICY_FIG_SIZE,
	[COL_ALIGN] = POLICY_FIG_ALIGN,
	[COL_ORDER] = POLICY_FIG_ORDER,
	[COL_OBJS_PER_SLAB] = POLICY_FIG_OBJS_PER_SLAB,
	[COL_PAGES_PER_SLAB] = POLICY_FIG_PAGES_PER_SLAB,
	[COL_MIN_PARTIAL] = POLICY_FIG_MIN_PARTIAL,
	[COL_CPU_PARTIAL] = POLICY_FIG_CPU_PARTIAL,
	[COL_COLOUR] = POLICY_FIG_COLOUR,
	[COL_COLOUR_OFF] = POLICY_FIG_COLOUR_OFF,
	[COL_LEFT_OVER] = POLICY_FIG_LEFT_OVER,
	[COL_FREELIST] = POLICY_FIG_FREELIST,
	[COL_LIMIT] = POLICY_FIG_LIMIT,
	[COL_BATCHCOUNT] = POLICY_FIG_BATCHCOUNT,
	[COL_SHARED] = POLICY_FIG_SHARED,
	[COL_FREE_LIMIT] = POLICY_FIG_FREE_LIMIT,
};
#define LAYOUT_NR_COLS (sizeof(layout_col_figure) / sizeof(layout_col_figure[0]))

static int col_width(enum layout_col c)
{
	int w = (int)strlen(layout_col_names[c]);
	return w < 6 ? 6 : w;
}

static uint32_t layout_col_value(const struct policy_geom *g, enum layout_col c)
{
	switch (c) {
	case COL_OBJECT_SIZE:
		return g->object_size;
	case COL_SLAB_SIZE:
		return g->size;
	case COL_ALIGN:
		return g->align;
	case COL_ORDER:
		return g->order;
	case COL_OBJS_PER_SLAB:
		return g->objs_per_slab;
	case COL_PAGES_PER_SLAB:
		return 1u << g->order;
	case COL_MIN_PARTIAL:
		return g->min_partial;
	case COL_CPU_PARTIAL:
		return g->cpu_partial;
	case COL_COLOUR:
		return g->colour;
	case COL_COLOUR_OFF:
		return g->colour_off;
	case COL_LEFT_OVER:
		return g->left_over;
	case COL_FREELIST:
		return g->freelist_mode;
	case COL_LIMIT:
		return g->limit;
	case COL_BATCHCOUNT:
		return g->batchcount;
	case COL_SHARED:
		return g->shared;
	case COL_FREE_LIMIT:
		return g->free_limit;
	}
	return 0;
}

int cmd_layout(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_MODEL_LONGOPTS,
		{"format", required_argument, NULL, OPT_FORMAT},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	struct run_model m;
	bool tsv = false;
	const char *output = NULL;
	int c, r;
	run_model_default(&m);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		if ((r = cli_model_opt(&m, c, optarg)) < 0)
			return cli_bad_usage("layout");
		if (r)
			continue;
		switch (c) {
		case 'h':
			usage_layout(stdout);
			return 0;
		case 'o':
			output = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "tsv") == 0)
				tsv = true;
			else if (strcmp(optarg, "table") != 0) {
				fprintf(stderr,
					"slabsim: --format expects table or tsv, got '%s'\n",
					optarg);
				return cli_bad_usage("layout");
			}
			break;
		default:
			return cli_bad_usage("layout");
		}
	}
	if (optind < argc) {
		fprintf(stderr, "slabsim: layout takes no arguments, got '%s'\n", argv[optind]);
		return cli_bad_usage("layout");
	}
	run_model_settle(&m); /* --align: the profile's rule unless given */
	if (output && (r = cli_output(output)))
		return r;
	const struct policy_ops *ops = policy_find(m.allocator);
	struct policy *p;
	struct err e;
	err_clear(&e);
	if (ops->create(&m.cfg, &p, &e)) {
		fprintf(stderr, "slabsim: %s\n", e.msg);
		return err_exit_code(e.code);
	}
	enum layout_col cols[LAYOUT_NR_COLS];
	size_t ncols = 0;
	for (size_t k = 0; k < LAYOUT_NR_COLS; k++)
		if (ops->figures & layout_col_figure[k])
			cols[ncols++] = (enum layout_col)k;
	uint32_t n = ops->nr_caches(p), shown = 0;
	for (uint32_t id = 0; id < n; id++) {
		struct policy_cache_info ci;
		ops->cache_info(p, id, &ci);
		shown += ci.kmalloc;
	}
	if (shown) /* a header only above rows */
		printf(tsv ? "name" : "%-18s", "name");
	for (size_t k = 0; shown && k < ncols; k++) {
		if (tsv)
			printf("\t%s", layout_col_names[cols[k]]);
		else
			printf(" %*s", col_width(cols[k]), layout_col_names[cols[k]]);
	}
	if (shown)
		printf("\n");
	for (uint32_t id = 0; id < n; id++) {
		struct policy_cache_info ci;
		ops->cache_info(p, id, &ci);
		if (!ci.kmalloc)
			continue;
		printf(tsv ? "%s" : "%-18s", ci.name);
		for (size_t k = 0; k < ncols; k++) {
			if (tsv)
				printf("\t%u", layout_col_value(&ci.g, cols[k]));
			else
				printf(" %*u", col_width(cols[k]),
				       layout_col_value(&ci.g, cols[k]));
		}
		printf("\n");
	}
	if (!shown)
		fprintf(stderr,
			"slabsim: %s has no kmalloc caches (kmalloc takes blocks from its "
			"shared pages)\n",
			ops->name);
	ops->destroy(p);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "slabsim: error writing output\n");
		return SLABSIM_EXIT_IO;
	}
	return 0;
}
