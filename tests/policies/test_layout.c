/* test_layout.c - layout arithmetic against real kernel figures.
 *
 * 1. Every kmalloc cache and every other root cache of a real Debian 6.1
 *    /sys/kernel/slab dump (argv[1]), recomputed from object_size and flags.
 * 2. The worked examples of the reference (kernel-slab-rules.md 7.1 and 8),
 *    each value checked on its own.
 * 3. slub_debug parsing, kmalloc index/size/name, get_order and
 *    calculate_alignment, and the error paths.
 */
#include "check.h"
#include "layout.h"
#include "policy.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FZPU	      (POLICY_F_CONSISTENCY | POLICY_F_RED_ZONE | POLICY_F_POISON | POLICY_F_STORE_USER)

static struct policy_cfg make_cfg(enum policy_kernel k, enum policy_align a, uint32_t debug,
				  uint32_t nr_cpus)
{
	struct policy_cfg c;
	policy_cfg_default(&c);
	c.kernel = k;
	c.align = a;
	c.slub_debug = debug;
	c.nr_cpus = nr_cpus;
	return c;
}

static void check_u(const char *ctx, const char *field, uint64_t got, uint64_t want)
{
	char name[256];
	(void)snprintf(name, sizeof(name), "%s %s", ctx, field);
	CHECK_EQ_U64(name, got, want);
}

/* layout_slub_kmalloc for the cache of `size` bytes; reports a failed call
 * as a failed check and leaves *g zeroed. */
static void kgeom(const struct policy_cfg *c, enum policy_kmalloc_type t, uint32_t size,
		  struct policy_geom *g, const char *ctx)
{
	struct err e;
	char name[256];
	memset(g, 0, sizeof(*g));
	err_clear(&e);
	int rc = layout_slub_kmalloc(c, t, layout_kmalloc_index(size), g, &e);
	(void)snprintf(name, sizeof(name), "%s layout_slub_kmalloc succeeds", ctx);
	if (!CHECK(name, rc == 0))
		printf("#   rc %d: %s\n", rc, e.msg);
}

/* ---------------------------------------------------------------- 1. TSV */

enum col {
	C_NAME,
	C_LINK,
	C_OBJECT_SIZE,
	C_SLAB_SIZE,
	C_ORDER,
	C_OBJS,
	C_ALIGN,
	C_HWCACHE,
	C_DMA,
	C_RECLAIM,
	C_RCU,
	C_MIN_PARTIAL,
	C_CPU_PARTIAL,
	C_CTOR,
	C_NR
};

static const char *const col_names[C_NR] = {
	"name",		  "link_target", "object_size",	  "slab_size", "order",
	"objs_per_slab",  "align",	 "hwcache_align", "cache_dma", "reclaim_account",
	"destroy_by_rcu", "min_partial", "cpu_partial",	  "ctor",
};

#define MAX_FIELDS 64

/* Split line in place at tabs; returns the number of fields. */
static int split_tabs(char *line, char **f)
{
	int n = 0;
	line[strcspn(line, "\r\n")] = '\0';
	for (char *p = line;; p++) {
		if (n < MAX_FIELDS)
			f[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p = '\0';
	}
	return n;
}

static uint32_t num(const char *s)
{
	return (uint32_t)strtoul(s, NULL, 10);
}

/* "kmalloc-rcl-1k" -> RECLAIM, 1024. false for other names. */
static bool kmalloc_row(const char *name, enum policy_kmalloc_type *t, uint32_t *size)
{
	static const struct {
		const char *prefix;
		enum policy_kmalloc_type t;
	} prefixes[] = {
		/* longest first: "kmalloc-" is a prefix of the first two */
		{"kmalloc-rcl-", POLICY_KMALLOC_RECLAIM},
		{"kmalloc-cg-", POLICY_KMALLOC_CGROUP},
		{"dma-kmalloc-", POLICY_KMALLOC_DMA},
		{"kmalloc-", POLICY_KMALLOC_NORMAL},
	};
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t n = strlen(prefixes[i].prefix);
		if (strncmp(name, prefixes[i].prefix, n) != 0)
			continue;
		char *end;
		unsigned long v = strtoul(name + n, &end, 10);
		if (*end == 'k') {
			v *= 1024UL;
			end++;
		} else if (*end == 'M') {
			v *= 1024UL * 1024UL;
			end++;
		}
		if (*end || v == 0)
			return false;
		*t = prefixes[i].t;
		*size = (uint32_t)v;
		return true;
	}
	return false;
}

static void check_tsv_row(const struct policy_geom *g, char **f, const int *col, const char *ctx)
{
	check_u(ctx, "object_size", g->object_size, num(f[col[C_OBJECT_SIZE]]));
	check_u(ctx, "slab_size", g->size, num(f[col[C_SLAB_SIZE]]));
	check_u(ctx, "align", g->align, num(f[col[C_ALIGN]]));
	check_u(ctx, "order", g->order, num(f[col[C_ORDER]]));
	check_u(ctx, "objs_per_slab", g->objs_per_slab, num(f[col[C_OBJS]]));
	check_u(ctx, "min_partial", g->min_partial, num(f[col[C_MIN_PARTIAL]]));
	check_u(ctx, "cpu_partial", g->cpu_partial, num(f[col[C_CPU_PARTIAL]]));
}

static void test_tsv(const char *path)
{
	const struct policy_cfg cfg = make_cfg(POLICY_KERNEL_6_1, POLICY_ALIGN_NATURAL, 0, 2);
	unsigned nr_kmalloc = 0, nr_root = 0;
	int col[C_NR];
	char *line = NULL, *f[MAX_FIELDS];
	size_t cap = 0;
	FILE *fp = fopen(path, "r");

	if (!fp) {
		CHECK("tsv opens", 0);
		printf("#   cannot open '%s'\n", path);
		return;
	}
	CHECK("tsv opens", 1);
	bool header_ok = getline(&line, &cap, fp) > 0;
	int nf = header_ok ? split_tabs(line, f) : 0;
	for (int c = 0; c < C_NR; c++) {
		col[c] = -1;
		for (int i = 0; i < nf; i++)
			if (strcmp(f[i], col_names[c]) == 0)
				col[c] = i;
		header_ok = header_ok && col[c] >= 0;
	}
	if (!CHECK("tsv header has every column used", header_ok)) {
		free(line);
		(void)fclose(fp);
		return;
	}

	while (getline(&line, &cap, fp) > 0) {
		char ctx[160];
		struct policy_geom g;
		enum policy_kmalloc_type t;
		uint32_t size;

		if (split_tabs(line, f) <= col[C_CTOR])
			continue;
		(void)snprintf(ctx, sizeof(ctx), "6.1 tsv %s", f[col[C_NAME]]);

		if (kmalloc_row(f[col[C_NAME]], &t, &size)) {
			char buf[32];
			uint32_t idx = layout_kmalloc_index(size);
			nr_kmalloc++;
			check_u(ctx, "index maps back to size", layout_kmalloc_size(idx), size);
			CHECK_EQ_STR("6.1 tsv kmalloc name round trip",
				     layout_kmalloc_name(t, idx, buf), f[col[C_NAME]]);
			kgeom(&cfg, t, size, &g, ctx);
			check_tsv_row(&g, f, col, ctx);
			check_u(ctx, "reclaim_account", !!(g.flags & POLICY_F_RECLAIM_ACCOUNT),
				num(f[col[C_RECLAIM]]));
			check_u(ctx, "cache_dma", !!(g.flags & POLICY_F_CACHE_DMA),
				num(f[col[C_DMA]]));
			continue;
		}
		if (strcmp(f[col[C_LINK]], "-") != 0)
			continue; /* an alias: its figures are its root's */

		/* The spec kmem_cache_create() must have had: HWCACHE_ALIGN
		 * from its column (then no explicit align), otherwise the
		 * sysfs align was the requested one; ctor and RCU move the
		 * free pointer out of the object. */
		bool hw = num(f[col[C_HWCACHE]]) != 0;
		struct policy_cache_spec spec = {
			.name = f[col[C_NAME]],
			.object_size = num(f[col[C_OBJECT_SIZE]]),
			.align = hw ? 0 : num(f[col[C_ALIGN]]),
			.flags = (hw ? POLICY_F_HWCACHE_ALIGN : 0) |
				 (num(f[col[C_DMA]]) ? POLICY_F_CACHE_DMA : 0) |
				 (num(f[col[C_RECLAIM]]) ? POLICY_F_RECLAIM_ACCOUNT : 0) |
				 (num(f[col[C_RCU]]) ? POLICY_F_TYPESAFE_BY_RCU : 0),
			.ctor = strcmp(f[col[C_CTOR]], "-") != 0,
		};
		struct err e;
		int rc = layout_slub(&cfg, &spec, &g, &e);
		nr_root++;
		char name[200];
		(void)snprintf(name, sizeof(name), "%s layout_slub succeeds", ctx);
		if (!CHECK(name, rc == 0)) {
			printf("#   rc %d: %s\n", rc, e.msg);
			continue;
		}
		check_tsv_row(&g, f, col, ctx);
	}
	free(line);
	(void)fclose(fp);
	/* 13 sizes x (kmalloc, -rcl, dma-, -cg) */
	CHECK_EQ_U64("6.1 tsv: all kmalloc rows checked", nr_kmalloc, 52);
	/* root caches (link_target '-') other than kmalloc ones, ctor and
	 * SLAB_TYPESAFE_BY_RCU included */
	CHECK_EQ_U64("6.1 tsv: all other root caches checked", nr_root, 93);
}

/* ------------------------------------------------- 2. reference examples */

static const uint32_t kmalloc_sizes[13] = {8,	16,  32,   64,	 96,   128, 192,
					   256, 512, 1024, 2048, 4096, 8192};

struct sz_ord_objs {
	uint32_t size, order, objs;
};

/* 7.1(a), no debug, for several nr_cpu_ids (5.4; 6.1 is identical with
 * num_present_cpus). slab_size == object_size in every row. */
static void test_no_debug(void)
{
	static const struct {
		uint32_t nr_cpus;
		struct sz_ord_objs row[13];
	} tab[] = {
		{2,
		 {{8, 0, 512},
		  {16, 0, 256},
		  {32, 0, 128},
		  {64, 0, 64},
		  {96, 0, 42},
		  {128, 0, 32},
		  {192, 0, 21},
		  {256, 0, 16},
		  {512, 1, 16},
		  {1024, 2, 16},
		  {2048, 3, 16},
		  {4096, 3, 8},
		  {8192, 3, 4}}},
		/* 1 CPU: min_objects 8 */
		{1,
		 {{8, 0, 512},
		  {16, 0, 256},
		  {32, 0, 128},
		  {64, 0, 64},
		  {96, 0, 42},
		  {128, 0, 32},
		  {192, 0, 21},
		  {256, 0, 16},
		  {512, 0, 8},
		  {1024, 1, 8},
		  {2048, 2, 8},
		  {4096, 3, 8},
		  {8192, 3, 4}}},
		/* 4 CPUs: min_objects 16, same as 2 */
		{4,
		 {{8, 0, 512},
		  {16, 0, 256},
		  {32, 0, 128},
		  {64, 0, 64},
		  {96, 0, 42},
		  {128, 0, 32},
		  {192, 0, 21},
		  {256, 0, 16},
		  {512, 1, 16},
		  {1024, 2, 16},
		  {2048, 3, 16},
		  {4096, 3, 8},
		  {8192, 3, 4}}},
		/* 8 CPUs: min_objects 20 */
		{8,
		 {{8, 0, 512},
		  {16, 0, 256},
		  {32, 0, 128},
		  {64, 0, 64},
		  {96, 0, 42},
		  {128, 0, 32},
		  {192, 0, 21},
		  {256, 1, 32},
		  {512, 2, 32},
		  {1024, 3, 32},
		  {2048, 3, 16},
		  {4096, 3, 8},
		  {8192, 3, 4}}},
		/* 64 CPUs: min_objects 32 */
		{64,
		 {{8, 0, 512},
		  {16, 0, 256},
		  {32, 0, 128},
		  {64, 0, 64},
		  {96, 0, 42},
		  {128, 0, 32},
		  {192, 1, 42},
		  {256, 1, 32},
		  {512, 2, 32},
		  {1024, 3, 32},
		  {2048, 3, 16},
		  {4096, 3, 8},
		  {8192, 3, 4}}},
	};
	static const struct {
		enum policy_kernel k;
		enum policy_align a;
		const char *label;
	} variants[] = {
		{POLICY_KERNEL_5_4, POLICY_ALIGN_NATURAL, "5.4 on"},
		{POLICY_KERNEL_5_4, POLICY_ALIGN_NONE, "5.4 off"},
		{POLICY_KERNEL_6_1, POLICY_ALIGN_NATURAL, "6.1 on"},
	};

	for (size_t v = 0; v < ARRAY_SIZE(variants); v++) {
		for (size_t c = 0; c < ARRAY_SIZE(tab); c++) {
			struct policy_cfg cfg =
				make_cfg(variants[v].k, variants[v].a, 0, tab[c].nr_cpus);
			for (size_t i = 0; i < 13; i++) {
				const struct sz_ord_objs *r = &tab[c].row[i];
				struct policy_geom g;
				char ctx[96];
				(void)snprintf(ctx, sizeof(ctx), "7.1a %s %u cpus kmalloc-%u",
					       variants[v].label, tab[c].nr_cpus, r->size);
				kgeom(&cfg, POLICY_KMALLOC_NORMAL, r->size, &g, ctx);
				check_u(ctx, "slab_size", g.size, r->size);
				check_u(ctx, "order", g.order, r->order);
				check_u(ctx, "objs", g.objs_per_slab, r->objs);
				check_u(ctx, "red_left_pad", g.red_left_pad, 0);
				/* only the align changes with the patch */
				bool pow2 = r->size != 96 && r->size != 192;
				check_u(ctx, "align", g.align,
					variants[v].a == POLICY_ALIGN_NATURAL && pow2 ? r->size
										      : 8);
				/* 5.4: pointer on word 0; 6.1: ALIGN_DOWN(N/2, 8) */
				check_u(ctx, "offset", g.offset,
					variants[v].k == POLICY_KERNEL_6_1 ? r->size / 2 / 8 * 8
									   : 0);
			}
		}
	}

	/* 7.1 tunables, 5.4 no debug */
	struct policy_cfg cfg = make_cfg(POLICY_KERNEL_5_4, POLICY_ALIGN_NATURAL, 0, 2);
	static const uint32_t min_partial[13] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6};
	static const uint32_t cpu_partial[13] = {30, 30, 30, 30, 30, 30, 30, 13, 13, 6, 6, 2, 2};
	for (size_t i = 0; i < 13; i++) {
		struct policy_geom g;
		char ctx[64];
		(void)snprintf(ctx, sizeof(ctx), "7.1 tunables 5.4 kmalloc-%u", kmalloc_sizes[i]);
		kgeom(&cfg, POLICY_KMALLOC_NORMAL, kmalloc_sizes[i], &g, ctx);
		check_u(ctx, "min_partial", g.min_partial, min_partial[i]);
		check_u(ctx, "cpu_partial", g.cpu_partial, cpu_partial[i]);
		check_u(ctx, "cpu_partial_slabs (none in 5.4)", g.cpu_partial_slabs, 0);
	}
}

struct debug_row {
	uint32_t align, rlp, offset, size, order, objs;
};

/* 7.1(b) slub_debug=FZPU, 5.4, 2 CPUs, off (v5.3) and on (v5.4) */
static void test_fzpu_5_4(void)
{
	static const struct {
		uint32_t cache;
		struct debug_row off, on;
	} tab[] = {
		{8, {8, 8, 16, 344, 1, 23}, {8, 8, 16, 344, 1, 23}},
		{16, {8, 8, 24, 352, 1, 23}, {16, 16, 24, 368, 1, 22}},
		{32, {8, 8, 40, 368, 1, 22}, {32, 32, 40, 416, 1, 19}},
		{64, {8, 8, 72, 400, 1, 20}, {64, 64, 72, 512, 1, 16}},
		{96, {8, 8, 104, 432, 1, 18}, {8, 8, 104, 432, 1, 18}},
		{128, {8, 8, 136, 464, 1, 17}, {128, 128, 136, 640, 1, 12}},
		{192, {8, 8, 200, 528, 1, 15}, {8, 8, 200, 528, 1, 15}},
		{256, {8, 8, 264, 592, 1, 13}, {256, 256, 264, 1024, 2, 16}},
		{512, {8, 8, 520, 848, 2, 19}, {512, 512, 520, 1536, 3, 21}},
		{1024, {8, 8, 1032, 1360, 2, 12}, {1024, 1024, 1032, 3072, 3, 10}},
		{2048, {8, 8, 2056, 2384, 3, 13}, {2048, 2048, 2056, 6144, 3, 5}},
		{4096, {8, 8, 4104, 4432, 3, 7}, {4096, 4096, 4104, 12288, 3, 2}},
		{8192, {8, 8, 8200, 8528, 3, 3}, {8192, 8192, 8200, 24576, 3, 1}},
	};
	for (int on = 0; on <= 1; on++) {
		struct policy_cfg cfg = make_cfg(
			POLICY_KERNEL_5_4, on ? POLICY_ALIGN_NATURAL : POLICY_ALIGN_NONE, FZPU, 2);
		for (size_t i = 0; i < ARRAY_SIZE(tab); i++) {
			const struct debug_row *r = on ? &tab[i].on : &tab[i].off;
			struct policy_geom g;
			char ctx[64];
			(void)snprintf(ctx, sizeof(ctx), "7.1b FZPU %s kmalloc-%u",
				       on ? "on" : "off", tab[i].cache);
			kgeom(&cfg, POLICY_KMALLOC_NORMAL, tab[i].cache, &g, ctx);
			check_u(ctx, "align", g.align, r->align);
			check_u(ctx, "red_left_pad", g.red_left_pad, r->rlp);
			check_u(ctx, "offset", g.offset, r->offset);
			/* P moves the pointer to exactly where metadata starts */
			check_u(ctx, "inuse", g.inuse, r->offset);
			check_u(ctx, "slab_size", g.size, r->size);
			check_u(ctx, "order", g.order, r->order);
			check_u(ctx, "objs", g.objs_per_slab, r->objs);
			check_u(ctx, "cpu_partial (debug cache)", g.cpu_partial, 0);
			check_u(ctx, "flags carry FZPU", g.flags & POLICY_F_DEBUG_MASK, FZPU);
		}
	}
	/* "Debug caches: cpu_partial 0, min_partial from the debug size (e.g.
	 * 24576 -> 7)" */
	struct policy_cfg cfg = make_cfg(POLICY_KERNEL_5_4, POLICY_ALIGN_NATURAL, FZPU, 2);
	struct policy_geom g;
	kgeom(&cfg, POLICY_KMALLOC_NORMAL, 8192, &g, "7.1 FZPU on kmalloc-8k");
	CHECK_EQ_U64("7.1 FZPU on kmalloc-8k min_partial", g.min_partial, 7);
}

/* 7.1(c) slub_debug=Z, 5.4 off and on; 8: 6.1 Z is identical to "on" */
static void test_z(void)
{
	static const struct {
		uint32_t cache;
		struct debug_row off, on; /* offset column unused: always 0 in 5.4 */
	} tab[] = {
		{8, {8, 8, 0, 32, 0, 128}, {8, 8, 0, 32, 0, 128}},
		{16, {8, 8, 0, 40, 0, 102}, {16, 16, 0, 48, 0, 85}},
		{32, {8, 8, 0, 56, 0, 73}, {32, 32, 0, 96, 0, 42}},
		{64, {8, 8, 0, 88, 0, 46}, {64, 64, 0, 192, 0, 21}},
		{96, {8, 8, 0, 120, 0, 34}, {8, 8, 0, 120, 0, 34}},
		{128, {8, 8, 0, 152, 0, 26}, {128, 128, 0, 384, 1, 21}},
		{192, {8, 8, 0, 216, 0, 18}, {8, 8, 0, 216, 0, 18}},
		{256, {8, 8, 0, 280, 0, 14}, {256, 256, 0, 768, 2, 21}},
		{512, {8, 8, 0, 536, 1, 15}, {512, 512, 0, 1536, 3, 21}},
		{1024, {8, 8, 0, 1048, 2, 15}, {1024, 1024, 0, 3072, 3, 10}},
		{2048, {8, 8, 0, 2072, 3, 15}, {2048, 2048, 0, 6144, 3, 5}},
		{4096, {8, 8, 0, 4120, 3, 7}, {4096, 4096, 0, 12288, 3, 2}},
		{8192, {8, 8, 0, 8216, 3, 3}, {8192, 8192, 0, 24576, 3, 1}},
	};
	static const struct {
		enum policy_kernel k;
		int on;
		const char *label;
	} variants[] = {
		{POLICY_KERNEL_5_4, 0, "7.1c Z 5.4 off"},
		{POLICY_KERNEL_5_4, 1, "7.1c Z 5.4 on"},
		{POLICY_KERNEL_6_1, 1, "8 Z 6.1 on"},
	};

	for (size_t v = 0; v < ARRAY_SIZE(variants); v++) {
		struct policy_cfg cfg = make_cfg(
			variants[v].k, variants[v].on ? POLICY_ALIGN_NATURAL : POLICY_ALIGN_NONE,
			POLICY_F_RED_ZONE, 2);
		for (size_t i = 0; i < ARRAY_SIZE(tab); i++) {
			const struct debug_row *r = variants[v].on ? &tab[i].on : &tab[i].off;
			struct policy_geom g;
			char ctx[64];
			(void)snprintf(ctx, sizeof(ctx), "%s kmalloc-%u", variants[v].label,
				       tab[i].cache);
			kgeom(&cfg, POLICY_KMALLOC_NORMAL, tab[i].cache, &g, ctx);
			check_u(ctx, "align", g.align, r->align);
			check_u(ctx, "red_left_pad", g.red_left_pad, r->rlp);
			check_u(ctx, "slab_size", g.size, r->size);
			check_u(ctx, "order", g.order, r->order);
			check_u(ctx, "objs", g.objs_per_slab, r->objs);
			/* the pointer stays in the object: word 0 (5.4), middle (6.1) */
			check_u(ctx, "offset", g.offset,
				variants[v].k == POLICY_KERNEL_6_1 ? tab[i].cache / 2 / 8 * 8 : 0);
			/* object + one red-zone word (no slack in power-of-two / 96 / 192) */
			check_u(ctx, "inuse", g.inuse, tab[i].cache + 8);
		}
	}
}

/* 7.1 "Other combinations" (P, U; off -> on) and "F or T: identical to no
 * debug" (5.4, 2 CPUs) */
static void test_other_combinations(void)
{
	static const struct {
		uint32_t debug;
		const char *label;
		uint32_t cache;
		struct sz_ord_objs off, on;
	} tab[] = {
		{POLICY_F_POISON, "P", 16, {24, 0, 170}, {32, 0, 128}},
		{POLICY_F_POISON, "P", 64, {72, 0, 56}, {128, 0, 32}},
		{POLICY_F_POISON, "P", 256, {264, 0, 15}, {512, 1, 16}},
		{POLICY_F_POISON, "P", 4096, {4104, 3, 7}, {8192, 3, 4}},
		{POLICY_F_POISON, "P", 8192, {8200, 3, 3}, {16384, 3, 2}},
		{POLICY_F_STORE_USER, "U", 8, {312, 0, 13}, {312, 0, 13}},
		{POLICY_F_STORE_USER, "U", 32, {336, 0, 12}, {352, 1, 23}},
		{POLICY_F_STORE_USER, "U", 64, {368, 1, 22}, {384, 1, 21}},
		{POLICY_F_STORE_USER, "U", 128, {432, 1, 18}, {512, 1, 16}},
		{POLICY_F_STORE_USER, "U", 1024, {1328, 2, 12}, {2048, 3, 16}},
		{POLICY_F_STORE_USER, "U", 8192, {8496, 3, 3}, {16384, 3, 2}},
	};

	for (size_t i = 0; i < ARRAY_SIZE(tab); i++) {
		for (int on = 0; on <= 1; on++) {
			struct policy_cfg cfg = make_cfg(
				POLICY_KERNEL_5_4, on ? POLICY_ALIGN_NATURAL : POLICY_ALIGN_NONE,
				tab[i].debug, 2);
			const struct sz_ord_objs *r = on ? &tab[i].on : &tab[i].off;
			struct policy_geom g;
			char ctx[64];
			(void)snprintf(ctx, sizeof(ctx), "7.1 %s %s kmalloc-%u", tab[i].label,
				       on ? "on" : "off", tab[i].cache);
			kgeom(&cfg, POLICY_KMALLOC_NORMAL, tab[i].cache, &g, ctx);
			check_u(ctx, "slab_size", g.size, r->size);
			check_u(ctx, "order", g.order, r->order);
			check_u(ctx, "objs", g.objs_per_slab, r->objs);
		}
	}

	/* F, T, FT: the layout of no debug; only cpu_partial drops to 0
	 * because they make a debug cache */
	static const uint32_t no_layout[] = {POLICY_F_CONSISTENCY, POLICY_F_TRACE,
					     POLICY_F_CONSISTENCY | POLICY_F_TRACE};
	for (size_t d = 0; d < ARRAY_SIZE(no_layout); d++) {
		char letters[8];
		(void)policy_slub_debug_str(no_layout[d], letters);
		for (int on = 0; on <= 1; on++) {
			enum policy_align a = on ? POLICY_ALIGN_NATURAL : POLICY_ALIGN_NONE;
			struct policy_cfg plain = make_cfg(POLICY_KERNEL_5_4, a, 0, 2);
			struct policy_cfg dbg = make_cfg(POLICY_KERNEL_5_4, a, no_layout[d], 2);
			for (size_t i = 0; i < 13; i++) {
				struct policy_geom g0, g1;
				char ctx[64];
				(void)snprintf(ctx, sizeof(ctx), "7.1 %s %s kmalloc-%u", letters,
					       on ? "on" : "off", kmalloc_sizes[i]);
				kgeom(&plain, POLICY_KMALLOC_NORMAL, kmalloc_sizes[i], &g0, ctx);
				kgeom(&dbg, POLICY_KMALLOC_NORMAL, kmalloc_sizes[i], &g1, ctx);
				check_u(ctx, "slab_size", g1.size, kmalloc_sizes[i]);
				check_u(ctx, "order as no debug", g1.order, g0.order);
				check_u(ctx, "objs as no debug", g1.objs_per_slab,
					g0.objs_per_slab);
				check_u(ctx, "align as no debug", g1.align, g0.align);
				check_u(ctx, "offset", g1.offset, 0);
				check_u(ctx, "red_left_pad", g1.red_left_pad, 0);
				check_u(ctx, "cpu_partial (debug cache)", g1.cpu_partial, 0);
			}
		}
	}
}

/* 8: 6.1 layouts, natural alignment, 2 present CPUs */
static void test_6_1_debug(void)
{
	static const struct {
		uint32_t debug;
		const char *label;
		struct sz_ord_objs row[13];
	} tab[] = {
		{FZPU,
		 "FZPU",
		 {{112, 0, 36},
		  {128, 0, 32},
		  {160, 0, 25},
		  {256, 0, 16},
		  {200, 0, 20},
		  {384, 1, 21},
		  {296, 0, 13},
		  {768, 2, 21},
		  {1536, 3, 21},
		  {3072, 3, 10},
		  {6144, 3, 5},
		  {12288, 3, 2},
		  {24576, 3, 1}}},
		{POLICY_F_STORE_USER,
		 "U",
		 {{80, 0, 51},
		  {96, 0, 42},
		  {128, 0, 32},
		  {192, 0, 21},
		  {168, 0, 24},
		  {256, 0, 16},
		  {264, 0, 15},
		  {512, 1, 16},
		  {1024, 2, 16},
		  {2048, 3, 16},
		  {4096, 3, 8},
		  {8192, 3, 4},
		  {16384, 3, 2}}},
	};

	for (size_t d = 0; d < ARRAY_SIZE(tab); d++) {
		struct policy_cfg cfg =
			make_cfg(POLICY_KERNEL_6_1, POLICY_ALIGN_NATURAL, tab[d].debug, 2);
		for (size_t i = 0; i < 13; i++) {
			const struct sz_ord_objs *r = &tab[d].row[i];
			struct policy_geom g;
			char ctx[64];
			(void)snprintf(ctx, sizeof(ctx), "8 6.1 %s kmalloc-%u", tab[d].label,
				       kmalloc_sizes[i]);
			kgeom(&cfg, POLICY_KMALLOC_NORMAL, kmalloc_sizes[i], &g, ctx);
			check_u(ctx, "slab_size", g.size, r->size);
			check_u(ctx, "order", g.order, r->order);
			check_u(ctx, "objs", g.objs_per_slab, r->objs);
			check_u(ctx, "cpu_partial (debug cache)", g.cpu_partial, 0);
			check_u(ctx, "cpu_partial_slabs (debug cache)", g.cpu_partial_slabs, 0);
		}
	}

	/* The worked FZPU kmalloc-8 line: 8 +8 RZ = 16 (inuse), pointer at 16,
	 * tracks 64 + orig_size 4, +8 pad, +8 left pad -> 112 */
	struct policy_cfg cfg = make_cfg(POLICY_KERNEL_6_1, POLICY_ALIGN_NATURAL, FZPU, 2);
	struct policy_geom g;
	kgeom(&cfg, POLICY_KMALLOC_NORMAL, 8, &g, "8 6.1 FZPU kmalloc-8");
	CHECK_EQ_U64("8 6.1 FZPU kmalloc-8 inuse", g.inuse, 16);
	CHECK_EQ_U64("8 6.1 FZPU kmalloc-8 offset", g.offset, 16);
	CHECK_EQ_U64("8 6.1 FZPU kmalloc-8 red_left_pad", g.red_left_pad, 8);

	/* orig_size only for SLAB_KMALLOC caches: a plain 8-byte cache with U
	 * is 8 + 64 = 72 */
	struct policy_cfg u =
		make_cfg(POLICY_KERNEL_6_1, POLICY_ALIGN_NATURAL, POLICY_F_STORE_USER, 2);
	struct policy_cache_spec spec = {.name = "plain-8", .object_size = 8};
	struct err e;
	CHECK("8 6.1 U plain-8 layout_slub succeeds", layout_slub(&u, &spec, &g, &e) == 0);
	CHECK_EQ_U64("8 6.1 U plain-8 slab_size (no orig_size)", g.size, 72);
	/* and never under 5.4: kmalloc-8 with U is 8 + 304 = 312 (7.1) */
}

/* 6.1 set_cpu_partial / slub_set_cpu_partial against the TSV's defaults:
 * slab limits DIV_ROUND_UP(2 * objects, objs_per_slab). */
static void test_cpu_partial_slabs(void)
{
	static const struct {
		uint32_t cache, cpu_partial, slabs;
	} tab[] = {
		{8, 120, 1},	/* 240 / 512 */
		{64, 120, 4},	/* 240 / 64 = 3.75 */
		{96, 120, 6},	/* 240 / 42 = 5.7 */
		{192, 120, 12}, /* 240 / 21 = 11.4 */
		{256, 52, 7},	/* 104 / 16 = 6.5 */
		{512, 52, 7},	/* 104 / 16 */
		{1024, 24, 3},	/* 48 / 16 */
		{4096, 6, 2},	/* 12 / 8 = 1.5 */
		{8192, 6, 3},	/* 12 / 4 */
	};
	struct policy_cfg cfg = make_cfg(POLICY_KERNEL_6_1, POLICY_ALIGN_NATURAL, 0, 2);
	for (size_t i = 0; i < ARRAY_SIZE(tab); i++) {
		struct policy_geom g;
		char ctx[64];
		(void)snprintf(ctx, sizeof(ctx), "6.1 kmalloc-%u", tab[i].cache);
		kgeom(&cfg, POLICY_KMALLOC_NORMAL, tab[i].cache, &g, ctx);
		check_u(ctx, "cpu_partial", g.cpu_partial, tab[i].cpu_partial);
		check_u(ctx, "cpu_partial_slabs", g.cpu_partial_slabs, tab[i].slabs);
	}
	/* without CONFIG_SLUB_CPU_PARTIAL there is no per-CPU partial list */
	cfg.cpu_partial = false;
	struct policy_geom g;
	kgeom(&cfg, POLICY_KMALLOC_NORMAL, 64, &g, "6.1 !CPU_PARTIAL kmalloc-64");
	CHECK_EQ_U64("6.1 !CPU_PARTIAL kmalloc-64 cpu_partial", g.cpu_partial, 0);
	CHECK_EQ_U64("6.1 !CPU_PARTIAL kmalloc-64 cpu_partial_slabs", g.cpu_partial_slabs, 0);
}

/* Rules read in the kernel source, beyond the reference's tables. */
static void test_source_rules(void)
{
	struct policy_geom g;
	struct err e;

	/* 6.1 calculate_sizes: Z on an object smaller than a word moves the
	 * free pointer out: 4 -> 8 (inuse; slack is the red zone), pointer at
	 * 8 -> 16, +8 pad, +8 left pad = 32. 5.4 keeps it at 0: 8 + 8 + 8 = 24. */
	struct policy_cache_spec small = {.name = "small-4", .object_size = 4};
	struct policy_cfg z61 =
		make_cfg(POLICY_KERNEL_6_1, POLICY_ALIGN_NATURAL, POLICY_F_RED_ZONE, 2);
	struct policy_cfg z54 =
		make_cfg(POLICY_KERNEL_5_4, POLICY_ALIGN_NATURAL, POLICY_F_RED_ZONE, 2);
	CHECK("6.1 Z small-4 succeeds", layout_slub(&z61, &small, &g, &e) == 0);
	CHECK_EQ_U64("6.1 Z small-4 inuse", g.inuse, 8);
	CHECK_EQ_U64("6.1 Z small-4 offset", g.offset, 8);
	CHECK_EQ_U64("6.1 Z small-4 slab_size", g.size, 32);
	CHECK("5.4 Z small-4 succeeds", layout_slub(&z54, &small, &g, &e) == 0);
	CHECK_EQ_U64("5.4 Z small-4 offset", g.offset, 0);
	CHECK_EQ_U64("5.4 Z small-4 slab_size", g.size, 24);

	/* calculate_order steps 4-5: slub_max_order=0 cannot hold an 8k
	 * object, so the first order that holds one is taken (1). */
	struct policy_cfg c = make_cfg(POLICY_KERNEL_5_4, POLICY_ALIGN_NATURAL, 0, 2);
	c.slub_max_order = 0;
	kgeom(&c, POLICY_KMALLOC_NORMAL, 8192, &g, "slub_max_order=0 kmalloc-8k");
	CHECK_EQ_U64("slub_max_order=0 kmalloc-8k order", g.order, 1);
	CHECK_EQ_U64("slub_max_order=0 kmalloc-8k objs", g.objs_per_slab, 1);
	kgeom(&c, POLICY_KMALLOC_NORMAL, 512, &g, "slub_max_order=0 kmalloc-512");
	CHECK_EQ_U64("slub_max_order=0 kmalloc-512 order", g.order, 0);
	CHECK_EQ_U64("slub_max_order=0 kmalloc-512 objs", g.objs_per_slab, 8);

	/* slab_order starts at slub_min_order */
	c = make_cfg(POLICY_KERNEL_5_4, POLICY_ALIGN_NATURAL, 0, 2);
	c.slub_min_order = 2;
	kgeom(&c, POLICY_KMALLOC_NORMAL, 8, &g, "slub_min_order=2 kmalloc-8");
	CHECK_EQ_U64("slub_min_order=2 kmalloc-8 order", g.order, 2);
	CHECK_EQ_U64("slub_min_order=2 kmalloc-8 objs", g.objs_per_slab, 2048);
	/* slub_min_objects overrides the CPU-based count: 32 x 256 needs order 1 */
	c = make_cfg(POLICY_KERNEL_5_4, POLICY_ALIGN_NATURAL, 0, 2);
	c.slub_min_objects = 32;
	kgeom(&c, POLICY_KMALLOC_NORMAL, 256, &g, "slub_min_objects=32 kmalloc-256");
	CHECK_EQ_U64("slub_min_objects=32 kmalloc-256 order", g.order, 1);

	/* A 4 MiB object (SLAB's largest kmalloc) needs order 10; one byte
	 * more fits no slab. */
	struct policy_cache_spec big = {.name = "big", .object_size = 4u << 20};
	CHECK("4 MiB object succeeds", layout_slub(&c, &big, &g, &e) == 0);
	CHECK_EQ_U64("4 MiB object order", g.order, 10);
	CHECK_EQ_U64("4 MiB object objs", g.objs_per_slab, 1);
	CHECK_EQ_U64("4 MiB object min_partial (ilog2 22 / 2 = 11 -> 10)", g.min_partial, 10);
	big.object_size++;
	err_clear(&e);
	CHECK_EQ_U64("4 MiB + 1 object fails", layout_slub(&c, &big, &g, &e), SLABSIM_EUSAGE);
	CHECK_EQ_STR("4 MiB + 1 object message", e.msg,
		     "cache big: 4194312-byte objects do not fit an order-10 slab");

	/* kmalloc-cg under 5.4 is plain kmalloc */
	struct policy_cfg c54 = make_cfg(POLICY_KERNEL_5_4, POLICY_ALIGN_NATURAL, 0, 2);
	struct policy_cfg c61 = make_cfg(POLICY_KERNEL_6_1, POLICY_ALIGN_NATURAL, 0, 2);
	CHECK_EQ_U64("5.4 CGROUP -> NORMAL", layout_kmalloc_type(&c54, POLICY_KMALLOC_CGROUP),
		     POLICY_KMALLOC_NORMAL);
	CHECK_EQ_U64("6.1 CGROUP stays", layout_kmalloc_type(&c61, POLICY_KMALLOC_CGROUP),
		     POLICY_KMALLOC_CGROUP);
	CHECK_EQ_U64("5.4 DMA stays", layout_kmalloc_type(&c54, POLICY_KMALLOC_DMA),
		     POLICY_KMALLOC_DMA);
	kgeom(&c54, POLICY_KMALLOC_CGROUP, 64, &g, "5.4 kmalloc-cg-64");
	CHECK_EQ_U64("5.4 kmalloc-cg-64 has no SLAB_ACCOUNT", g.flags & POLICY_F_ACCOUNT, 0);
	kgeom(&c61, POLICY_KMALLOC_CGROUP, 64, &g, "6.1 kmalloc-cg-64");
	CHECK_EQ_U64("6.1 kmalloc-cg-64 has SLAB_ACCOUNT", g.flags & POLICY_F_ACCOUNT,
		     POLICY_F_ACCOUNT);
}

static void test_errors(void)
{
	struct policy_cfg c = make_cfg(POLICY_KERNEL_5_4, POLICY_ALIGN_NATURAL, 0, 2);
	struct policy_geom g;
	struct err e;

	err_clear(&e);
	CHECK_EQ_U64("kmalloc index 0 fails",
		     layout_slub_kmalloc(&c, POLICY_KMALLOC_NORMAL, 0, &g, &e), SLABSIM_EUSAGE);
	CHECK_EQ_STR("kmalloc index 0 message", e.msg, "no SLUB kmalloc cache has index 0");
	err_clear(&e);
	CHECK_EQ_U64("kmalloc index 14 fails",
		     layout_slub_kmalloc(&c, POLICY_KMALLOC_NORMAL, 14, &g, &e), SLABSIM_EUSAGE);
	CHECK_EQ_STR("kmalloc index 14 message", e.msg, "no SLUB kmalloc cache has index 14");

	struct policy_cache_spec spec = {.name = "zero", .object_size = 0};
	err_clear(&e);
	CHECK_EQ_U64("object_size 0 fails", layout_slub(&c, &spec, &g, &e), SLABSIM_EUSAGE);
	CHECK_EQ_STR("object_size 0 message", e.msg, "cache zero: object_size 0");

	spec = (struct policy_cache_spec){.name = "odd", .object_size = 64, .align = 24};
	err_clear(&e);
	CHECK_EQ_U64("align 24 fails", layout_slub(&c, &spec, &g, &e), SLABSIM_EUSAGE);
	CHECK_EQ_STR("align 24 message", e.msg, "cache odd: alignment 24 is not a power of two");

	spec = (struct policy_cache_spec){.name = "ok", .object_size = 64};
	c.nr_cpus = 0;
	err_clear(&e);
	CHECK_EQ_U64("nr_cpus 0 fails", layout_slub(&c, &spec, &g, &e), SLABSIM_EUSAGE);
	CHECK_EQ_STR("nr_cpus 0 message", e.msg, "nr_cpus must be at least 1");
	c.nr_cpus = 2;
	c.slub_min_order = 11;
	err_clear(&e);
	CHECK_EQ_U64("slub_min_order 11 fails", layout_slub(&c, &spec, &g, &e), SLABSIM_EUSAGE);
	CHECK_EQ_STR("slub_min_order 11 message", e.msg, "slub_min_order must be below 11, got 11");
}

/* ------------------------------------------- 3. parsing and small helpers */

static void test_parse(void)
{
	static const struct {
		const char *in;
		uint32_t flags;
	} ok[] = {
		{"", 0},
		{"-", 0},
		{"1", FZPU},
		{"all", FZPU},
		{"ALL", FZPU},
		{"FZPU", FZPU},
		/* setup_slub_debug lower-cases each letter */
		{"fzpu", FZPU},
		{"FZPUT", POLICY_F_DEBUG_MASK},
		{"Z", POLICY_F_RED_ZONE},
		{"u", POLICY_F_STORE_USER},
		{"T", POLICY_F_TRACE},
		{"PpP", POLICY_F_POISON},
		/* A = failslab: accepted, no layout bit */
		{"A", 0},
		{"ZA", POLICY_F_RED_ZONE},
	};
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		uint32_t f = 0xdead;
		struct err e;
		char name[96];
		err_clear(&e);
		(void)snprintf(name, sizeof(name), "parse '%s' succeeds", ok[i].in);
		CHECK(name, policy_parse_slub_debug(ok[i].in, &f, &e) == 0);
		(void)snprintf(name, sizeof(name), "parse '%s' flags", ok[i].in);
		CHECK_EQ_U64(name, f, ok[i].flags);
	}
	uint32_t f = 0xdead;
	CHECK("parse NULL is none", policy_parse_slub_debug(NULL, &f, NULL) == 0 && f == 0);

	static const struct {
		const char *in, *msg;
	} bad[] = {
		{"O", "slub_debug option 'O' is not modelled"},
		{"FZo", "slub_debug option 'o' is not modelled"},
		{"FZX", "slub_debug option 'X' unknown in 'FZX' (letters F Z P U T A, or '-' alone "
			"for none)"},
		{"-FZ", "slub_debug option '-' unknown in '-FZ' (letters F Z P U T A, or '-' alone "
			"for none)"},
		{"FZ,dentry", "slub_debug 'FZ,dentry': per-cache lists (',' and ';') are not "
			      "modelled; the letters apply to every cache"},
		{"F;Z", "slub_debug 'F;Z': per-cache lists (',' and ';') are not modelled; the "
			"letters apply to every cache"},
		{"\x01", "slub_debug option byte 0x01 unknown (letters F Z P U T A, or '-' alone "
			 "for none)"},
		{"2", "slub_debug option '2' unknown in '2' (letters F Z P U T A, or '-' alone for "
		      "none)"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct err e;
		char name[96];
		f = 0xdead;
		err_clear(&e);
		(void)snprintf(name, sizeof(name), "parse bad #%zu fails with EUSAGE", i);
		CHECK_EQ_U64(name, policy_parse_slub_debug(bad[i].in, &f, &e), SLABSIM_EUSAGE);
		(void)snprintf(name, sizeof(name), "parse bad #%zu code stored", i);
		CHECK_EQ_U64(name, e.code, SLABSIM_EUSAGE);
		(void)snprintf(name, sizeof(name), "parse bad #%zu message", i);
		CHECK_EQ_STR(name, e.msg, bad[i].msg);
		(void)snprintf(name, sizeof(name), "parse bad #%zu leaves flags alone", i);
		CHECK_EQ_U64(name, f, 0xdead);
	}

	char buf[8];
	CHECK_EQ_STR("str none", policy_slub_debug_str(0, buf), "-");
	CHECK_EQ_STR("str all", policy_slub_debug_str(POLICY_F_DEBUG_MASK, buf), "FZPUT");
	CHECK_EQ_STR("str ZU", policy_slub_debug_str(POLICY_F_STORE_USER | POLICY_F_RED_ZONE, buf),
		     "ZU");
	CHECK_EQ_STR("str ignores non-debug bits",
		     policy_slub_debug_str(POLICY_F_HWCACHE_ALIGN | POLICY_F_KMALLOC, buf), "-");
	/* round trip */
	for (uint32_t m = 0; m <= POLICY_F_DEBUG_MASK; m++) {
		uint32_t back = 0;
		if (policy_parse_slub_debug(policy_slub_debug_str(m, buf), &back, NULL) != 0 ||
		    back != m) {
			CHECK_EQ_U64("str/parse round trip", back, m);
			return;
		}
	}
	CHECK("str/parse round trip for all 32 masks", 1);
}

static void test_cfg_default(void)
{
	struct policy_cfg c;
	memset(&c, 0xff, sizeof(c));
	policy_cfg_default(&c);
	CHECK_EQ_U64("default kernel 5.4", c.kernel, POLICY_KERNEL_5_4);
	CHECK_EQ_U64("default align natural", c.align, POLICY_ALIGN_NATURAL);
	CHECK_EQ_U64("default slub_debug none", c.slub_debug, 0);
	CHECK_EQ_U64("default nr_cpus", c.nr_cpus, 2);
	CHECK_EQ_U64("default slub_min_order", c.slub_min_order, 0);
	CHECK_EQ_U64("default slub_max_order (PAGE_ALLOC_COSTLY_ORDER)", c.slub_max_order, 3);
	CHECK_EQ_U64("default slub_min_objects", c.slub_min_objects, 0);
	CHECK("default merging on", !c.nomerge);
	CHECK("default CONFIG_SLUB_CPU_PARTIAL", c.cpu_partial);
	CHECK_EQ_U64("default cache line", c.cache_line, 64);
}

static void test_kmalloc_index(void)
{
	/* 2.2: size_index[] up to 192, fls(size - 1) above */
	static const struct {
		uint64_t size;
		uint32_t index;
	} tab[] = {
		{0, 0},	    {1, 3},	{8, 3},	    {9, 4},	{16, 4},    {17, 5},
		{24, 5},    {32, 5},	{33, 6},    {64, 6},	{65, 1},    {96, 1},
		{97, 7},    {128, 7},	{129, 2},   {192, 2},	{193, 8},   {256, 8},
		{257, 9},   {512, 9},	{513, 10},  {1024, 10}, {1025, 11}, {2048, 11},
		{2049, 12}, {4096, 12}, {4097, 13}, {8192, 13}, {8193, 0},  {1u << 22, 0},
	};
	for (size_t i = 0; i < ARRAY_SIZE(tab); i++) {
		char name[64];
		(void)snprintf(name, sizeof(name), "kmalloc_index(%llu)",
			       (unsigned long long)tab[i].size);
		CHECK_EQ_U64(name, layout_kmalloc_index(tab[i].size), tab[i].index);
		/* every size lands in a cache at least as large */
		if (tab[i].index) {
			(void)snprintf(name, sizeof(name), "kmalloc_size(index(%llu)) >= size",
				       (unsigned long long)tab[i].size);
			CHECK(name, layout_kmalloc_size(tab[i].index) >= tab[i].size);
		}
	}
	static const uint32_t size_of_index[14] = {0,	96,  192, 8,	16,   32,   64,
						   128, 256, 512, 1024, 2048, 4096, 8192};
	for (uint32_t i = 0; i < 14; i++) {
		char name[48];
		(void)snprintf(name, sizeof(name), "kmalloc_size(%u)", i);
		CHECK_EQ_U64(name, layout_kmalloc_size(i), size_of_index[i]);
	}
	CHECK_EQ_U64("kmalloc_size(22) (SLAB kmalloc-4M)", layout_kmalloc_size(22), 4u << 20);

	static const struct {
		enum policy_kmalloc_type t;
		uint32_t index;
		const char *name;
	} names[] = {
		{POLICY_KMALLOC_NORMAL, 3, "kmalloc-8"},
		{POLICY_KMALLOC_NORMAL, 1, "kmalloc-96"},
		{POLICY_KMALLOC_NORMAL, 9, "kmalloc-512"},
		{POLICY_KMALLOC_NORMAL, 10, "kmalloc-1k"},
		{POLICY_KMALLOC_NORMAL, 13, "kmalloc-8k"},
		{POLICY_KMALLOC_RECLAIM, 1, "kmalloc-rcl-96"},
		{POLICY_KMALLOC_DMA, 10, "dma-kmalloc-1k"},
		{POLICY_KMALLOC_DMA, 2, "dma-kmalloc-192"},
		{POLICY_KMALLOC_CGROUP, 6, "kmalloc-cg-64"},
		{POLICY_KMALLOC_NORMAL, 20, "kmalloc-1M"}, /* SLAB's sizes, 2.1 */
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char buf[32];
		CHECK_EQ_STR(names[i].name, layout_kmalloc_name(names[i].t, names[i].index, buf),
			     names[i].name);
	}

	CHECK_EQ_U64("flags NORMAL", layout_kmalloc_flags(POLICY_KMALLOC_NORMAL), POLICY_F_KMALLOC);
	CHECK_EQ_U64("flags RECLAIM", layout_kmalloc_flags(POLICY_KMALLOC_RECLAIM),
		     POLICY_F_RECLAIM_ACCOUNT | POLICY_F_KMALLOC);
	CHECK_EQ_U64("flags DMA", layout_kmalloc_flags(POLICY_KMALLOC_DMA),
		     POLICY_F_CACHE_DMA | POLICY_F_KMALLOC);
	CHECK_EQ_U64("flags CGROUP", layout_kmalloc_flags(POLICY_KMALLOC_CGROUP),
		     POLICY_F_ACCOUNT | POLICY_F_KMALLOC);
}

static void test_order_and_alignment(void)
{
	static const struct {
		uint64_t size;
		uint32_t order;
	} orders[] = {
		{1, 0},	   {2304, 0},  {4096, 0},  {4097, 1},  {6144, 1},      {8192, 1},
		{8193, 2}, {24576, 3}, {32768, 3}, {32769, 4}, {4u << 20, 10}, {(4u << 20) + 1, 11},
	};
	for (size_t i = 0; i < ARRAY_SIZE(orders); i++) {
		char name[48];
		(void)snprintf(name, sizeof(name), "get_order(%llu)",
			       (unsigned long long)orders[i].size);
		CHECK_EQ_U64(name, layout_get_order(orders[i].size), orders[i].order);
	}
	CHECK_EQ_U64("fls(0)", layout_fls(0), 0);
	CHECK_EQ_U64("fls(1)", layout_fls(1), 1);
	CHECK_EQ_U64("fls(2)", layout_fls(2), 2);
	CHECK_EQ_U64("fls(3)", layout_fls(3), 2);
	CHECK_EQ_U64("fls(64)", layout_fls(64), 7);
	CHECK_EQ_U64("fls(2^63)", layout_fls(1ULL << 63), 64);

	/* 2.3: HWCACHE halves the line while the object fits in half */
	struct policy_cfg c = make_cfg(POLICY_KERNEL_5_4, POLICY_ALIGN_NATURAL, 0, 2);
	static const struct {
		uint32_t flags, align, size, want;
	} al[] = {
		{POLICY_F_HWCACHE_ALIGN, 0, 1, 8},
		{POLICY_F_HWCACHE_ALIGN, 0, 8, 8},
		{POLICY_F_HWCACHE_ALIGN, 0, 9, 16},
		{POLICY_F_HWCACHE_ALIGN, 0, 16, 16},
		{POLICY_F_HWCACHE_ALIGN, 0, 17, 32},
		{POLICY_F_HWCACHE_ALIGN, 0, 32, 32},
		{POLICY_F_HWCACHE_ALIGN, 0, 33, 64},
		{POLICY_F_HWCACHE_ALIGN, 0, 4096, 64},
		{POLICY_F_HWCACHE_ALIGN, 256, 256, 256}, /* the larger of the two */
		{0, 0, 100, 8},				 /* ARCH_SLAB_MINALIGN */
		{0, 4, 100, 8},
		{0, 16, 100, 16},
		{0, 12, 100, 16}, /* rounded to a word multiple */
		{0, 4096, 64, 4096},
	};
	for (size_t i = 0; i < ARRAY_SIZE(al); i++) {
		char name[96];
		(void)snprintf(name, sizeof(name), "calculate_alignment(%s, %u, %u)",
			       al[i].flags ? "HWCACHE" : "0", al[i].align, al[i].size);
		CHECK_EQ_U64(name,
			     layout_calculate_alignment(&c, al[i].flags, al[i].align, al[i].size),
			     al[i].want);
	}
	/* x86 NetBurst: 128-byte lines */
	c.cache_line = 128;
	CHECK_EQ_U64("calculate_alignment line 128, size 100",
		     layout_calculate_alignment(&c, POLICY_F_HWCACHE_ALIGN, 0, 100), 128);
	CHECK_EQ_U64("calculate_alignment line 128, size 64",
		     layout_calculate_alignment(&c, POLICY_F_HWCACHE_ALIGN, 0, 64), 64);

	/* 2.4: create_boot_cache's request */
	struct policy_cfg on = make_cfg(POLICY_KERNEL_5_4, POLICY_ALIGN_NATURAL, 0, 2);
	struct policy_cfg off = make_cfg(POLICY_KERNEL_5_4, POLICY_ALIGN_NONE, 0, 2);
	for (size_t i = 0; i < 13; i++) {
		uint32_t n = kmalloc_sizes[i];
		bool pow2 = (n & (n - 1)) == 0;
		char name[64];
		(void)snprintf(name, sizeof(name), "kmalloc_align on %u", n);
		CHECK_EQ_U64(name, layout_kmalloc_align(&on, n), pow2 ? n : 8);
		(void)snprintf(name, sizeof(name), "kmalloc_align off %u", n);
		CHECK_EQ_U64(name, layout_kmalloc_align(&off, n), 8);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("Bail out! usage: %s linux-6.1-slab-attrs-default.tsv\n", argv[0]);
		return 1;
	}
	test_tsv(argv[1]);
	test_no_debug();
	test_fzpu_5_4();
	test_z();
	test_other_combinations();
	test_6_1_debug();
	test_cpu_partial_slabs();
	test_source_rules();
	test_errors();
	test_parse();
	test_cfg_default();
	test_kmalloc_index();
	test_order_and_alignment();
	return check_done();
}
