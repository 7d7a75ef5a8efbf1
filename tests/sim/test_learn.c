/* test_learn.c - the name pass on several threads (sim/learn.c) learns
 * exactly what the serial pass learns: the same call-site ids, cache-name
 * ids and key -> name map, for every bundled trace (compressed ones are
 * decompressed to a temporary file first) and for constructed traces whose
 * pointers cross range boundaries, are reallocated in a later range, freed
 * several ranges later and named differently in different ranges. A hand
 * trace also checks the learned names against ones derived by hand, and
 * trace_open_range's ranges against the line and event counts of the
 * constructed files (also with a line longer than the reader's buffer cut
 * by range boundaries).
 */
#include "check.h"
#include "learn.h"
#include "policy.h"
#include "sim.h"
#include "summary.h"
#include "trace.h"

#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <unistd.h>

static const unsigned nthreads[] = {2, 3, 4, 7};

static struct sim *make_sim(void)
{
	struct sim_opts o = {0};
	struct sim *s;
	struct err e;
	o.ops = policy_find("slub");
	policy_cfg_default(&o.cfg);
	o.cfg.kernel = POLICY_KERNEL_6_1;
	if (sim_create(&o, &s, &e)) {
		printf("Bail out! sim_create: %s\n", e.msg);
		exit(1);
	}
	return s;
}

static char *dump(struct sim *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f || summary_learned_dump(s, f)) {
		printf("Bail out! dump\n");
		exit(1);
	}
	fclose(f);
	return buf;
}

/* The name pass as cmd_replay runs it: kmalloc fields unparsed. */
static const struct trace_opts lax = {
	.strict = false, .skip_fields = (1u << TRACE_EV_KMALLOC) | (1u << TRACE_EV_KMALLOC_NODE)};

static char *serial(const char *path)
{
	struct sim *s = make_sim();
	struct trace_reader *r;
	struct err e;
	if (trace_open(path, &lax, &r, &e) || sim_learn_names(s, r, &e)) {
		printf("Bail out! serial pass on %s: %s\n", path, e.msg);
		exit(1);
	}
	trace_close(r);
	char *d = dump(s);
	sim_destroy(s);
	return d;
}

static char *parallel(const char *path, unsigned n, bool *done)
{
	struct sim *s = make_sim();
	struct err e;
	if (learn_names_file(s, path, &lax, n, false, done, &e)) {
		printf("Bail out! parallel pass on %s: %s\n", path, e.msg);
		exit(1);
	}
	char *d = dump(s);
	sim_destroy(s);
	return d;
}

static size_t count_lines(const char *d, const char *prefix)
{
	size_t n = 0, k = strlen(prefix);
	for (const char *p = d; *p; p = strchr(p, '\n') + 1) {
		n += strncmp(p, prefix, k) == 0;
		if (!strchr(p, '\n'))
			break;
	}
	return n;
}

/* Parallel == serial for every thread count; returns the serial dump. */
static char *compare_all(const char *path, const char *label)
{
	char *want = serial(path), name[256];
	for (size_t i = 0; i < sizeof(nthreads) / sizeof(nthreads[0]); i++) {
		bool done;
		char *got = parallel(path, nthreads[i], &done);
		snprintf(name, sizeof(name), "%s: %u threads ran in parallel", label, nthreads[i]);
		CHECK(name, done);
		snprintf(name, sizeof(name), "%s: %u threads learn what the serial pass learns",
			 label, nthreads[i]);
		if (!CHECK(name, strcmp(got, want) == 0)) {
			/* the first differing line */
			const char *a = got, *b = want;
			while (*a && *a == *b)
				a++, b++;
			while (a > got && a[-1] != '\n')
				a--, b--;
			printf("#   got  %.*s\n#   want %.*s\n", (int)strcspn(a, "\n"), a,
			       (int)strcspn(b, "\n"), b);
		}
		free(got);
	}
	return want;
}

/* ---- constructed traces ---- */

static char tmpdir[] = "/tmp/slabsim-learn-XXXXXX";

static FILE *create(const char *name, char *path, size_t n)
{
	snprintf(path, n, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
	return f;
}

static unsigned long long t_us;

static void alloc(FILE *f, const char *site, unsigned ptr, unsigned req, unsigned slot)
{
	t_us += 7;
	fprintf(f,
		"            init-1       [001] .....     %llu.%06llu: kmem_cache_alloc: "
		"call_site=%s ptr=%016x bytes_req=%u bytes_alloc=%u gfp_flags=GFP_KERNEL "
		"node=-1 accounted=false\n",
		t_us / 1000000, t_us % 1000000, site, ptr, req, slot);
}

static void cfree(FILE *f, unsigned ptr, const char *name)
{
	t_us += 7;
	if (name)
		fprintf(f,
			"            init-1       [001] .....     %llu.%06llu: kmem_cache_free: "
			"call_site=release+0xa/0x20 ptr=%016x name=%s\n",
			t_us / 1000000, t_us % 1000000, ptr, name);
	else
		fprintf(f,
			"            init-1       [001] .....     %llu.%06llu: kfree: "
			"call_site=release+0xa/0x20 ptr=%016x\n",
			t_us / 1000000, t_us % 1000000, ptr);
}

/* Lines the name pass reads past: kmalloc, a header, a malformed line. */
static void filler(FILE *f, unsigned k)
{
	for (unsigned i = 0; i < k; i++) {
		t_us += 3;
		switch (i % 3) {
		case 0:
			fprintf(f,
				"            init-1       [000] .....     %llu.%06llu: kmalloc: "
				"call_site=fill+0x1/0x2 ptr=%016x bytes_req=15 bytes_alloc=16 "
				"gfp_flags=GFP_KERNEL node=-1 accounted=false\n",
				t_us / 1000000, t_us % 1000000, 0x7000 + i);
			break;
		case 1:
			fprintf(f, "# a comment line of the trace, %u\n", i);
			break;
		default:
			fprintf(f, "this line is not a trace line %u\n", i);
			break;
		}
	}
}

/* Lines in n ranges of path, each read by trace_open_range. */
static uint64_t range_lines(const char *path, uint64_t size, unsigned n, uint64_t *events)
{
	uint64_t lines = 0;
	*events = 0;
	for (unsigned i = 0; i < n; i++) {
		struct trace_reader *r;
		struct trace_event ev;
		struct err e;
		uint64_t a = size / n * i, b = i + 1 < n ? size / n * (i + 1) : size;
		if (trace_open_range(path, NULL, a, b, &r, &e)) {
			printf("Bail out! trace_open_range: %s\n", e.msg);
			exit(1);
		}
		while (trace_next(r, &ev, &e) == 1)
			++*events;
		lines += trace_stats(r)->lines;
		trace_close(r);
	}
	return lines;
}

/* Every event spaced by filler so that 2..7 ranges cut between them. */
static void hand_trace(void)
{
	char path[256];
	FILE *f = create("hand.trace", path, sizeof(path));
	/* range 0 */
	alloc(f, "site_a+0x1/0x10", 0x100, 32, 32); /* P1: A, freed unnamed later */
	alloc(f, "site_d+0x1/0x10", 0x500, 40, 48); /* P5: D, named "d-one" at the end */
	alloc(f, "site_e+0x1/0x10", 0x800, 16, 16); /* P8: E, kfree'd then named free */
	alloc(f, "site_f+0x1/0x10", 0x900, 24, 24); /* P9: F, reallocated as G */
	cfree(f, 0x700, "orphan");		    /* P7: nothing allocated: learns nothing */
	filler(f, 9);
	alloc(f, "site_b+0x1/0x10", 0x200, 64, 64); /* P2: B */
	filler(f, 9);
	cfree(f, 0x200, "b-first"); /* B -> b-first */
	filler(f, 9);
	cfree(f, 0x800, NULL); /* P8 freed unnamed: E learns nothing from it */
	filler(f, 9);
	alloc(f, "site_a+0x1/0x10", 0x300, 32, 32);   /* P3: A ... */
	alloc(f, "site_c+0x1/0x10", 0x300, 128, 128); /* ... overwritten by C */
	alloc(f, "site_g+0x1/0x10", 0x900, 24, 32);   /* P9 now G */
	filler(f, 9);
	cfree(f, 0x300, "c-cache"); /* C -> c-cache (not A) */
	filler(f, 9);
	alloc(f, "site_d+0x1/0x10", 0x600, 40, 48); /* P6: D */
	cfree(f, 0x100, NULL);			    /* P1 freed unnamed: A learns nothing */
	filler(f, 9);
	cfree(f, 0x800, "e-wrong"); /* P8 no longer allocated: E learns nothing */
	cfree(f, 0x600, "d-two");   /* D -> d-two, before P5's "d-one" */
	filler(f, 9);
	cfree(f, 0x100, "a-wrong"); /* P1 already freed */
	alloc(f, "site_a+0x1/0x10", 0x400, 32, 32);
	filler(f, 9);
	cfree(f, 0x900, "g-cache");  /* G -> g-cache (not F) */
	cfree(f, 0x400, "a-late");   /* A -> a-late */
	cfree(f, 0x500, "d-one");    /* D has d-two already */
	cfree(f, 0x200, "b-second"); /* P2 freed before */
	filler(f, 4);
	fclose(f);

	char *want = compare_all(path, "hand trace");
	/* by hand: sites interned in the order of their first allocation
	 * (a, d, e, f, b, c, g), names in the order they are learned */
	const char *expect = "site 0 site_a+0x1/0x10\n"
			     "site 1 site_d+0x1/0x10\n"
			     "site 2 site_e+0x1/0x10\n"
			     "site 3 site_f+0x1/0x10\n"
			     "site 4 site_b+0x1/0x10\n"
			     "site 5 site_c+0x1/0x10\n"
			     "site 6 site_g+0x1/0x10\n"
			     "name 0 b-first\n"
			     "name 1 c-cache\n"
			     "name 2 d-two\n"
			     "name 3 g-cache\n"
			     "name 4 a-late\n"
			     "learned 0 32 32 -> 4 a-late\n"
			     "learned 1 40 48 -> 2 d-two\n"
			     "learned 4 64 64 -> 0 b-first\n"
			     "learned 5 128 128 -> 1 c-cache\n"
			     "learned 6 24 32 -> 3 g-cache\n";
	CHECK_EQ_STR("hand trace: the names derived by hand", want, expect);
	free(want);

	/* trace_open_range: ranges tile the lines (by hand: 10 allocations
	 * and 12 frees, 9 x 9 + 4 filler lines of which 9 x 3 + 2 kmalloc) */
	uint64_t size;
	{
		FILE *g = fopen(path, "r");
		fseek(g, 0, SEEK_END);
		size = (uint64_t)ftell(g);
		fclose(g);
	}
	for (unsigned n = 1; n <= 9; n++) {
		uint64_t events, lines = range_lines(path, size, n, &events);
		char name[96];
		snprintf(name, sizeof(name), "hand trace in %u ranges: every line once", n);
		CHECK_EQ_U64(name, lines, 22 + 9 * 9 + 4);
		snprintf(name, sizeof(name), "hand trace in %u ranges: every event once", n);
		CHECK_EQ_U64(name, events, 22 + 9 * 3 + 2);
	}
}

/* A line longer than the reader keeps (1 MiB) between two halves of the
 * hand trace's kind of events: cut anywhere, it is still one line. */
static void long_line_trace(void)
{
	char path[256];
	FILE *f = create("long.trace", path, sizeof(path));
	for (unsigned i = 0; i < 40; i++) {
		alloc(f, i % 2 ? "site_x+0x1/0x10" : "site_y+0x1/0x10", 0x100 + 8 * i, 32, 32);
		if (i % 3 == 0)
			cfree(f, 0x100 + 8 * (i / 2), i % 2 ? "x-cache" : "y-cache");
	}
	for (unsigned i = 0; i < 1536 * 1024; i++)
		fputc('a' + i % 26, f);
	fputc('\n', f);
	for (unsigned i = 0; i < 40; i++) {
		cfree(f, 0x100 + 8 * i, i % 4 ? "late-cache" : NULL);
		alloc(f, "site_z+0x1/0x10", 0x900 + 8 * i, 64, 64);
	}
	cfree(f, 0x900, "z-cache");
	uint64_t size = (uint64_t)ftell(f);
	fclose(f);
	free(compare_all(path, "long-line trace"));
	/* by construction: 40 + 14 + 1 + 80 + 1 lines, all but one events */
	for (unsigned n = 1; n <= 9; n++) {
		uint64_t events, lines = range_lines(path, size, n, &events);
		char name[96];
		snprintf(name, sizeof(name), "long-line trace in %u ranges: every line once", n);
		CHECK_EQ_U64(name, lines, 40 + 14 + 1 + 80 + 1);
		snprintf(name, sizeof(name), "long-line trace in %u ranges: every event once", n);
		CHECK_EQ_U64(name, events, 40 + 14 + 80 + 1);
	}
}

/* Random traces: few pointers, sites and sizes, so that allocations meet
 * frees of every kind in every range: reallocated live pointers, frees
 * of never allocated or already freed pointers, named and unnamed. */
static void random_trace(unsigned long seed, unsigned events)
{
	static const char *names[] = {"n-one", "n-two", "n-three", "n-four", "n-five"};
	static const unsigned sizes[][2] = {{32, 32}, {40, 48}, {100, 128}, {5000000, 5000000}};
	char path[256], site[64], label[64];
	snprintf(label, sizeof(label), "random%lu.trace", seed);
	FILE *f = create(label, path, sizeof(path));
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	for (unsigned i = 0; i < events; i++) {
		unsigned ptr = 0x1000 + 8 * (unsigned)gsl_rng_uniform_int(rng, 40);
		unsigned long k = gsl_rng_uniform_int(rng, 10);
		if (k < 4) {
			const unsigned *sz = sizes[gsl_rng_uniform_int(rng, 4)];
			snprintf(site, sizeof(site), "site%lu+0x1/0x10",
				 gsl_rng_uniform_int(rng, 12));
			alloc(f, site, gsl_rng_uniform_int(rng, 50) ? ptr : 0, sz[0], sz[1]);
		} else if (k < 8) {
			cfree(f, ptr,
			      gsl_rng_uniform_int(rng, 4) ? names[gsl_rng_uniform_int(rng, 5)]
							  : NULL);
		} else {
			filler(f, 1 + (unsigned)gsl_rng_uniform_int(rng, 3));
		}
	}
	gsl_rng_free(rng);
	fclose(f);
	snprintf(label, sizeof(label), "random trace, seed %lu", seed);
	char *want = compare_all(path, label);
	/* the pass must have something to compare */
	snprintf(label, sizeof(label), "random trace, seed %lu: names learned", seed);
	CHECK(label, count_lines(want, "learned ") > 10);
	free(want);
}

/* ---- bundled traces ---- */

static void bundled(const char *arg)
{
	char path[512];
	size_t n = strlen(arg);
	if (n > 4 && strcmp(arg + n - 4, ".zst") == 0) {
		static unsigned k;
		snprintf(path, sizeof(path), "%s/bundled%u.trace", tmpdir, k++);
		char cmd[1200];
		snprintf(cmd, sizeof(cmd), "zstd -dcq '%s' > '%s'", arg, path);
		if (system(cmd)) {
			printf("Bail out! %s\n", cmd);
			exit(1);
		}
	} else {
		snprintf(path, sizeof(path), "%s", arg);
	}
	/* the label: the last two path components */
	const char *base = arg + n;
	for (int slashes = 0; base > arg && (slashes += base[-1] == '/') < 2;)
		base--;
	base = base > arg ? base - 1 : NULL; /* at the slash */
	char *want = compare_all(path, base ? base + 1 : arg);
	if (strstr(arg, "linux-6.1")) { /* the real 6.1 traces name caches on free */
		char name[600];
		snprintf(name, sizeof(name), "%s: names learned", base ? base + 1 : arg);
		CHECK(name, count_lines(want, "learned ") > 0);
	}
	free(want);
	if (path[0] == '/' && strncmp(path, tmpdir, strlen(tmpdir)) == 0)
		unlink(path);
}

int main(int argc, char **argv)
{
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	hand_trace();
	long_line_trace();
	for (unsigned long seed = 1; seed <= 6; seed++)
		random_trace(seed, 400 + 700 * (unsigned)seed);
	for (int i = 1; i < argc; i++)
		bundled(argv[i]);

	/* the serial path: stdin, compressed input, one thread */
	bool done = true;
	free(parallel("-", 2, &done));
	CHECK("stdin is left to the serial pass", !done);
	if (argc > 1) {
		done = true;
		free(parallel(argv[1], 1, &done));
		CHECK("one thread is the serial pass", !done);
	}
	for (int i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (n > 4 && strcmp(argv[i] + n - 4, ".zst") == 0) {
			done = true;
			free(parallel(argv[i], 2, &done));
			CHECK("compressed input is left to the serial pass", !done);
			break;
		}
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return check_done();
}
