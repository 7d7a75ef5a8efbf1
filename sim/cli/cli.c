/* cli.c - model options and helpers shared by the subcommands. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char cli_exit_codes_help[] =
	"Exit status:\n"
	"  0  success\n"
	"  1  usage error (bad option or value)\n"
	"  2  bad input (malformed trace line with --strict, impossible event)\n"
	"  3  I/O or SQLite error (unreadable trace, unwritable database or output)\n"
	"  4  model invariant violated (--check)\n"
	"  5  nothing to work on: the input has no slab event, or a capture nothing\n"
	"     validate can compare\n"
	"  130  interrupted by SIGINT or SIGTERM (sweep: finished runs are kept)\n";

void cli_usage_model_opts(FILE *f)
{
	fprintf(f, "Model options:\n"
		   "  --allocator NAME      allocator model (default slub), one of:\n");
	for (int i = 0; policy_table[i]; i++)
		fprintf(f, "                          %-6s %s\n", policy_table[i]->name,
			policy_table[i]->desc);
	fprintf(f,
		"  --kernel VERSION      the kernel whose rules to follow: a profile (5.4, 6.1,\n"
		"                        6.6, 6.12, 6.18, 7.0) or any MAJOR.MINOR, which takes\n"
		"                        the newest profile at or below it (5.16-6.0 take\n"
		"                        6.1, and it says so; 7.x takes 7.0); default: from\n"
		"                        the capture or the trace (kmem_cache_alloc name=\n"
		"                        fields mean 6.18,\n"
		"                        accounted= fields 6.1), else 5.4\n"
		"  --align POLICY        kmalloc alignment, an option of the 2019 debate:\n"
		"                        natural = power-of-two sizes aligned to their size\n"
		"                        (Linux 5.4 to 6.10, the default of the 5.4, 6.1 and\n"
		"                        6.6 profiles); pow2-divisor = every kmalloc cache\n"
		"                        aligned to the largest power of two dividing its size\n"
		"                        (Linux 6.11+, default from the 6.12 profile); another\n"
		"                        value than the profile's is a what-if; none = Linux\n"
		"                        5.3; cap512 =\n"
		"                        natural up to 512 bytes, 512 below a page, page-aligned\n"
		"                        from a page up (LSF/MM 2019). With --align-sites, only\n"
		"                        the listed callers get alignment, everyone else none:\n"
		"                        own-caches = a kmem_cache with explicit align per call\n"
		"                        site and size class, never merged (as XFS did);\n"
		"                        merged = those caches merged by the allocator's rules\n"
		"                        (find_mergeable; SLOB: as own-caches);\n"
		"                        kmalloc-aligned-caches = kmalloc_aligned() by extra\n"
		"                        aligned kmalloc caches (SLOB: its kmalloc's align);\n"
		"                        kmalloc-aligned-overalloc = kmalloc(size + align - 8),\n"
		"                        the aligned part handed out\n"
		"  --align-sites FILE    the callers that need alignment: lines 'PATTERN ALIGN',\n"
		"                        PATTERN a glob over the call site (xfs_buf_*,\n"
		"                        bio_*+0x*), ALIGN natural or 8..4096; '#' comments.\n"
		"                        Their misaligned kmallocs are counted under any\n"
		"                        --align ('listed callers' in the summary); a bad\n"
		"                        line exits 2 naming FILE:LINE. `slabsim query\n"
		"                        sites-file` writes one from a run's violations\n"
		"  --slub-debug FLAGS    slub_debug letters for every cache: F Z P U T, '-' = "
		"none\n"
		"  --nr-cpus N           possible = present CPUs; default: the trace's header\n"
		"                        (#P:N, cpus=N) or its highest CPU + 1, else 2; trace\n"
		"                        CPUs >= N are folded modulo N, counted, and warned of\n"
		"  --slub-min-order N    slub_min_order (default 0)\n"
		"  --slub-max-order N    slub_max_order (default 3)\n"
		"  --slub-min-objects N  slub_min_objects (default 0 = automatic)\n"
		"  --no-cpu-partial      model CONFIG_SLUB_CPU_PARTIAL=n\n"
		"  --config SWITCH=y|n   a kernel configuration switch (repeatable): SLUB_TINY\n"
		"                        (6.2+: no kmalloc-rcl-N, min_partial 0, no per-CPU\n"
		"                        partial lists, slub_max_order 1), ZONE_DMA (dma-\n"
		"                        kmalloc-N), MEMCG (kmalloc-cg-N), SLUB_CPU_PARTIAL,\n"
		"                        SLAB_BUCKETS (6.11+), RANDOM_KMALLOC_CACHES (6.6+);\n"
		"                        default: a capture's cache names say, else MEMCG,\n"
		"                        ZONE_DMA, SLUB_CPU_PARTIAL y, the others n;\n"
		"                        RANDOM_KMALLOC_SEED=S: the random copies' seed (0x\n"
		"                        and hex digits, or decimal; default: a capture's\n"
		"                        random_kmalloc_seed, else 0); SHEAF_CAPACITY=N and\n"
		"                        BARN_LIMIT=N (what-ifs of SLUB 6.18+: every cache\n"
		"                        with sheaves gets N objects a sheaf; the barn holds\n"
		"                        N full and N empty sheaves; 'kernel' = the kernel's)\n"
		"  --slab-debug          SLAB: model CONFIG_DEBUG_SLAB (red zones, user word)\n"
		"  --slab-max-order N    SLAB: slab_max_order (default 1)\n");
}

int cli_parse_u32(const char *opt, const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long v;
	if (!*s || *s == '-')
		goto bad;
	v = strtoul(s, &end, 10);
	if (*end || v < lo || v > hi)
		goto bad;
	*out = (uint32_t)v;
	return 0;
bad:
	fprintf(stderr, "slabsim: %s expects a whole number from %u to %u, got '%s'\n", opt, lo, hi,
		s);
	return -1;
}

/* The RUN_GIVEN_* bit of a model option is 1 << (code - CLI_OPT_ALLOCATOR). */
_Static_assert(1u << (CLI_OPT_KERNEL - CLI_OPT_ALLOCATOR) == RUN_GIVEN_KERNEL, "given bits");
_Static_assert(1u << (CLI_OPT_NR_CPUS - CLI_OPT_ALLOCATOR) == RUN_GIVEN_NR_CPUS, "given bits");
_Static_assert(1u << (CLI_OPT_SLAB_MAX_ORDER - CLI_OPT_ALLOCATOR) == RUN_GIVEN_SLAB_MAX_ORDER,
	       "given bits");
_Static_assert(1u << (CLI_OPT_CONFIG - CLI_OPT_ALLOCATOR) == RUN_GIVEN_CONFIG, "given bits");

/* --config SWITCH=y|n: the kernel configuration switches the models read
 * (CONFIG_ prefix optional). */
static int config_opt(struct run_model *m, const char *arg)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} sw[] = {
		{"SLUB_TINY", POLICY_SET_SLUB_TINY},
		{"ZONE_DMA", POLICY_SET_ZONE_DMA},
		{"MEMCG", RUN_SWITCH_MEMCG},
		{"SLUB_CPU_PARTIAL", POLICY_SET_CPU_PARTIAL},
		{"SLAB_BUCKETS", POLICY_SET_SLAB_BUCKETS},
		{"RANDOM_KMALLOC_CACHES", POLICY_SET_RANDOM_KMALLOC},
	};
	const char *s = strncmp(arg, "CONFIG_", 7) == 0 ? arg + 7 : arg;
	const char *eq = strchr(s, '=');
	/* not a Kconfig switch: the kernel's per-boot random_kmalloc_seed
	 * (mm/slab_common.c), for the random kmalloc copies */
	if (strncmp(s, "RANDOM_KMALLOC_SEED=", 20) == 0) {
		struct err e = {0};
		if (policy_parse_random_seed(s + 20, &m->cfg.random_seed, &e)) {
			fprintf(stderr, "slabsim: --config RANDOM_KMALLOC_SEED: %s\n", e.msg);
			return -1;
		}
		m->config_given |= RUN_SWITCH_SEED;
		return 1;
	}
	/* not Kconfig switches either: the sheaves' what-ifs (policy_cfg
	 * sheaf_capacity, barn_limit), a number or `kernel` (the kernel's) */
	static const struct {
		const char *name;
		uint32_t max;
	} num[] = {{"SHEAF_CAPACITY=", POLICY_SHEAF_CAPACITY_MAX},
		   {"BARN_LIMIT=", POLICY_BARN_LIMIT_MAX}};
	for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++) {
		size_t l = strlen(num[i].name);
		uint32_t v = 0;
		if (strncmp(s, num[i].name, l))
			continue;
		if (strcmp(s + l, "kernel") && cli_parse_u32("--config", s + l, 1, num[i].max, &v))
			return -1;
		*(i ? &m->cfg.barn_limit : &m->cfg.sheaf_capacity) = v;
		m->config_given |= POLICY_SET_SHEAVES;
		return 1;
	}
	bool on = eq && (strcmp(eq + 1, "y") == 0);
	if (!eq || (!on && strcmp(eq + 1, "n") != 0))
		goto bad;
	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
		if (strlen(sw[i].name) != (size_t)(eq - s) ||
		    strncmp(s, sw[i].name, (size_t)(eq - s)))
			continue;
		switch (sw[i].bit) {
		case POLICY_SET_SLUB_TINY:
			m->cfg.slub_tiny = on;
			break;
		case POLICY_SET_ZONE_DMA:
			m->cfg.no_zone_dma = !on;
			break;
		case RUN_SWITCH_MEMCG:
			m->cfg.no_kmalloc_cg = !on;
			break;
		case POLICY_SET_CPU_PARTIAL:
			m->cfg.cpu_partial = on;
			break;
		case POLICY_SET_SLAB_BUCKETS:
			m->cfg.slab_buckets = on;
			break;
		default: /* RANDOM_KMALLOC_CACHES_NR copies */
			m->cfg.random_kmalloc = on ? 15 : 0;
			break;
		}
		m->config_given |= sw[i].bit;
		return 1;
	}
bad:
	fprintf(stderr,
		"slabsim: --config expects SWITCH=y or SWITCH=n, SWITCH one of SLUB_TINY, "
		"ZONE_DMA, MEMCG, SLUB_CPU_PARTIAL, SLAB_BUCKETS, RANDOM_KMALLOC_CACHES (or "
		"RANDOM_KMALLOC_SEED=SEED, SHEAF_CAPACITY=N, BARN_LIMIT=N); got '%s'\n",
		arg);
	return -1;
}

static int model_opt(struct run_model *m, int c, const char *arg);

int cli_model_opt(struct run_model *m, int c, const char *arg)
{
	int r = model_opt(m, c, arg);
	if (r == 1)
		m->given |= 1u << (c - CLI_OPT_ALLOCATOR);
	return r;
}

/* Returns 1 if the option was a model option, 0 if not, -1 on a bad value. */
static int model_opt(struct run_model *m, int c, const char *arg)
{
	struct err e;
	switch (c) {
	case CLI_OPT_ALLOCATOR:
		if (!policy_find(arg)) {
			fprintf(stderr, "slabsim: unknown allocator '%s' (known:", arg);
			for (int i = 0; policy_table[i]; i++)
				fprintf(stderr, " %s", policy_table[i]->name);
			fprintf(stderr, ")\n");
			return -1;
		}
		m->allocator = arg;
		return 1;
	case CLI_OPT_KERNEL: {
		bool exact;
		if (policy_parse_kernel(arg, &m->cfg.kernel, &exact, &e)) {
			fprintf(stderr, "slabsim: --kernel %s\n", e.msg);
			return -1;
		}
		if (!exact)
			fprintf(stderr,
				"slabsim: --kernel %s: following the %s profile (the newest at or "
				"below it)\n",
				arg, policy_kernel_name(m->cfg.kernel));
		m->kernel_from = "--kernel";
		return 1;
	}
	case CLI_OPT_ALIGN:
		if (policy_parse_align(arg, &m->cfg.align, &e)) {
			fprintf(stderr, "slabsim: --align %s\n", e.msg);
			return -1;
		}
		return 1;
	case CLI_OPT_ALIGN_SITES:
		m->sites_path = arg;
		return 1;
	case CLI_OPT_CONFIG:
		return config_opt(m, arg);
	case CLI_OPT_SLUB_DEBUG:
		if (policy_parse_slub_debug(arg, &m->cfg.slub_debug, &e)) {
			fprintf(stderr, "slabsim: --slub-debug: %s\n", e.msg);
			return -1;
		}
		return 1;
	case CLI_OPT_NR_CPUS:
		m->nr_cpus_from = "--nr-cpus";
		return cli_parse_u32("--nr-cpus", arg, 1, 8192, &m->cfg.nr_cpus) ? -1 : 1;
	case CLI_OPT_MIN_ORDER:
		return cli_parse_u32("--slub-min-order", arg, 0, POLICY_MAX_ORDER - 1,
				     &m->cfg.slub_min_order)
			       ? -1
			       : 1;
	case CLI_OPT_MAX_ORDER:
		return cli_parse_u32("--slub-max-order", arg, 0, POLICY_MAX_ORDER - 1,
				     &m->cfg.slub_max_order)
			       ? -1
			       : 1;
	case CLI_OPT_MIN_OBJECTS:
		return cli_parse_u32("--slub-min-objects", arg, 0, 32767, &m->cfg.slub_min_objects)
			       ? -1
			       : 1;
	case CLI_OPT_NO_CPU_PARTIAL:
		m->cfg.cpu_partial = false;
		return 1;
	case CLI_OPT_SLAB_DEBUG:
		m->cfg.slab_debug = true;
		return 1;
	case CLI_OPT_SLAB_MAX_ORDER:
		return cli_parse_u32("--slab-max-order", arg, 0, POLICY_MAX_ORDER - 1,
				     &m->cfg.slab_max_order)
			       ? -1
			       : 1;
	default:
		return 0;
	}
}

int cli_bad_usage(const char *cmd)
{
	fprintf(stderr, "Try 'slabsim %s --help'.\n", cmd);
	return SLABSIM_EXIT_USAGE;
}

const char *cli_one_arg(int argc, char **argv, int ind, const char *cmd, const char *what,
			const char *hint)
{
	if (ind == argc - 1)
		return argv[ind];
	if (ind >= argc)
		fprintf(stderr, "slabsim: %s needs a %s%s\n", cmd, what, hint);
	else
		fprintf(stderr, "slabsim: %s takes one %s\n", cmd, what);
	return NULL;
}

int cli_parse_sample_every(const char *s, uint64_t *ns, uint64_t *ev)
{
	char *end;
	if (!*s || *s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || v == 0)
		return -1;
	uint64_t mul;
	*ns = *ev = 0;
	if (!*end || strcmp(end, "ev") == 0) {
		*ev = v;
		return 0;
	} else if (strcmp(end, "ns") == 0) {
		mul = 1;
	} else if (strcmp(end, "us") == 0) {
		mul = 1000;
	} else if (strcmp(end, "ms") == 0) {
		mul = 1000000;
	} else if (strcmp(end, "s") == 0) {
		mul = 1000000000;
	} else {
		return -1;
	}
	if (v > UINT64_MAX / mul)
		return -1;
	*ns = v * mul;
	return 0;
}

int cli_output(const char *path)
{
	if (freopen(path, "w", stdout))
		return 0;
	fprintf(stderr, "slabsim: %s: %s\n", path, strerror(errno));
	return SLABSIM_EXIT_IO;
}

int cli_fail(struct err *e)
{
	fprintf(stderr, "slabsim: %s\n", e->msg);
	return err_exit_code(e->code);
}
