/* test_sweep.c - the parsed event array (traces/evarr.h) and the sweep spec
 * parser (analysis/sweep.h).
 *
 * The array is checked against the text reader event by event, and a replay
 * from it against a replay of the text; spec expansions are counted by hand
 * from the axes in each spec. */
#include "check.h"
#include "evarr.h"
#include "policy.h"
#include "sim.h"
#include "sweep.h"
#include "trace.h"

#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

static int str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_events(const char *path, const struct evarr *a)
{
	struct trace_reader *r;
	struct trace_event x, y;
	struct err e;
	uint64_t i = 0, bad = 0;
	int rc;
	if (trace_open(path, NULL, &r, &e)) {
		CHECK("reopen the trace", 0);
		return;
	}
	while ((rc = trace_next(r, &x, &e)) == 1) {
		if (i >= evarr_len(a)) {
			bad++;
			break;
		}
		if (evarr_get(a, NULL, i++, &y, &e)) {
			bad++;
			break;
		}
		if (x.type != y.type || x.t_ns != y.t_ns || x.cpu != y.cpu || x.ptr != y.ptr ||
		    x.bytes_req != y.bytes_req || x.bytes_alloc != y.bytes_alloc ||
		    x.node != y.node || x.accounted != y.accounted || x.gfp != y.gfp ||
		    x.line != y.line || !str_eq(x.call_site, y.call_site) ||
		    !str_eq(x.name, y.name) || !str_eq(x.text, y.text))
			bad++;
	}
	CHECK_EQ_U64("evarr: as many events as the reader", i, evarr_len(a));
	CHECK_EQ_U64("evarr: every field of every event equals the reader's", bad, 0);
	const struct trace_stats *ts = trace_stats(r), *as = evarr_stats(a);
	CHECK_EQ_U64("evarr: line counts kept", as->lines, ts->lines);
	CHECK_EQ_U64("evarr: header lines kept", as->header_lines, ts->header_lines);
	trace_close(r);
}

static struct sim *make(const char *alloc, enum policy_align al)
{
	struct sim_opts o = {0};
	struct sim *s;
	struct err e;
	o.ops = policy_find(alloc);
	policy_cfg_default(&o.cfg);
	o.cfg.kernel = POLICY_KERNEL_6_1;
	o.cfg.align = al;
	o.sample_every_events = 500;
	if (sim_create(&o, &s, &e)) {
		printf("Bail out! %s\n", e.msg);
		exit(1);
	}
	return s;
}

static void check_replay(const char *path, const struct evarr *a, const char *alloc)
{
	struct sim *s1 = make(alloc, POLICY_ALIGN_NONE), *s2 = make(alloc, POLICY_ALIGN_NONE);
	struct trace_reader *r;
	struct trace_source src;
	struct evarr_cursor cur;
	struct sim_totals t1, t2;
	struct err e;
	char name[96];
	int ok = !trace_open(path, NULL, &r, &e) && !sim_learn_names(s1, r, &e);
	trace_close(r);
	ok = ok && !trace_open(path, NULL, &r, &e) && !sim_replay(s1, r, NULL, &e);
	trace_close(r);
	evarr_source(&src, &cur, a);
	ok = ok && !sim_learn_names_source(s2, &src, &e);
	evarr_source(&src, &cur, a);
	ok = ok && !sim_replay_source(s2, &src, NULL, &e);
	(void)snprintf(name, sizeof(name), "%s: both replays run", alloc);
	CHECK(name, ok);
	sim_totals(s1, &t1);
	sim_totals(s2, &t2);
	(void)snprintf(name, sizeof(name), "%s: totals from the array equal the text's", alloc);
	CHECK(name, memcmp(&t1, &t2, sizeof(t1)) == 0);
	(void)snprintf(name, sizeof(name), "%s: slab pages at the end (nonzero) agree", alloc);
	CHECK(name,
	      t1.slab_pages == t2.slab_pages && (t1.slab_pages > 0 || !strcmp(alloc, "slob")));
	sim_destroy(s1);
	sim_destroy(s2);
}

static size_t expand(const char *text, struct err *e, int *rc)
{
	struct sweep_spec *s;
	struct sweep_run *runs;
	size_t n = 0;
	*rc = sweep_spec_parse(text, strlen(text), "t.sweep", &s, e);
	if (*rc)
		return 0;
	*rc = sweep_expand(s, &runs, &n, e);
	free(runs);
	sweep_spec_free(s);
	return n;
}

static void check_spec(void)
{
	struct err e;
	int rc;
	size_t n;

	/* 3 allocators: slub 2 align x 2 slub_debug, slab 2 x 2 slab_debug, slob 2 */
	n = expand("trace = a\nallocator = slub, slab, slob\nalign = none, natural\n"
		   "slub_debug = -, FZPU\nslab_debug = off, on\n",
		   &e, &rc);
	CHECK_EQ_U64("default sweep: 4 + 4 + 2 runs", n, 10);
	/* 2 traces x 2 kernels x 3 nr_cpus x (slub 2 max orders) */
	n = expand("# c\n\ntrace = a\ntrace = b,c\nkernel = 5.4, 6.1\nnr_cpus = 1,2 ,4\n"
		   "slub_max_order = 1, 3\nslab_max_order = 0, 1\n",
		   &e, &rc);
	CHECK_EQ_U64("traces x kernels x cpus x slub orders (slab orders not for slub)", n, 24);
	/* keys add up over lines */
	n = expand("trace = a\nallocator = slab\nallocator = slob\n", &e, &rc);
	CHECK_EQ_U64("an axis over two lines", n, 2);

	n = expand("trace = a\nallocator = slub\nalign = none, nat\n", &e, &rc);
	CHECK("bad value: EINPUT", rc == SLABSIM_EINPUT);
	CHECK_EQ_STR("bad value: file:line and what was expected", e.msg,
		     "t.sweep:3: align: expected auto, none, natural, cap512, own-caches, merged, "
		     "kmalloc-aligned-caches, kmalloc-aligned-overalloc or pow2-divisor, got "
		     "'nat'");
	n = expand("trace = a\n\nfoo = 1\n", &e, &rc);
	CHECK("unknown key: line 3",
	      rc == SLABSIM_EINPUT && strstr(e.msg, "t.sweep:3: unknown key 'foo'"));
	n = expand("trace = a\nalign\n", &e, &rc);
	CHECK("no '='", rc == SLABSIM_EINPUT && strstr(e.msg, "t.sweep:2: expected 'key = value"));
	n = expand("allocator = slub\n", &e, &rc);
	CHECK("no trace", rc == SLABSIM_EINPUT &&
				  strstr(e.msg, "t.sweep:1: expected at least one 'trace = PATH'"));
	n = expand("trace = a\nalign = none, none\n", &e, &rc);
	CHECK("duplicate value",
	      rc == SLABSIM_EINPUT &&
		      strstr(e.msg,
			     "t.sweep:2: align: expected each value once, got 'none' again"));
	n = expand("trace = a\nworkload = w\nseed = 3, 5..7\nallocator = slub, slob\n", &e, &rc);
	/* trace: 2 runs (the seed axis is ignored); workload: 2 x 4 seeds */
	CHECK("workload x 4 seeds + trace: 10 runs", rc == 0 && n == 10);
	n = expand("workload = w\nseed = 1..3, 3\n", &e, &rc);
	CHECK("overlapping seeds refused",
	      rc == SLABSIM_EINPUT && strstr(e.msg, "t.sweep:2: seed: '3' repeats a seed"));
	n = expand("workload = w\nseed = 5..4\n", &e, &rc);
	CHECK("seed range E < S refused",
	      rc == SLABSIM_EINPUT && strstr(e.msg, "t.sweep:2: seed: expected a whole number"));
	n = expand("workload = w\nseed = 18446744073709551616\n", &e, &rc);
	CHECK("seed above 2^64-1 refused", rc == SLABSIM_EINPUT && strstr(e.msg, "seed: expected"));
	n = expand("workload = w\nseed = 0..18446744073709551615\n", &e, &rc);
	CHECK("seed range of 2^64 refused", rc == SLABSIM_EINPUT && strstr(e.msg, "more than"));
	n = expand("workload = w\nworkload = w\n", &e, &rc);
	CHECK("workload listed twice",
	      rc == SLABSIM_EINPUT && strstr(e.msg, "t.sweep:2: expected each workload once"));
	n = expand("workload = w\nduration = 1s\nduration = 2s\n", &e, &rc);
	CHECK("duration twice",
	      rc == SLABSIM_EINPUT && strstr(e.msg, "t.sweep:3: expected duration once"));
	n = expand("workload = w\nworkload = v\nseed = 0..999999\n", &e, &rc);
	CHECK("2 workloads x 10^6 seeds refused",
	      rc == SLABSIM_EINPUT && strstr(e.msg, "t.sweep:2: expected a sweep of at most"));
	{
		/* order: trace runs first, then the workload's, seeds innermost */
		static const char t[] = "trace = a\nworkload = w\nseed = 3, 5..7\nalign = none, "
					"natural\n";
		struct sweep_spec *sp;
		struct sweep_run *rr = NULL;
		size_t nn = 0;
		char got[200] = "";
		if (!sweep_spec_parse(t, strlen(t), "t.sweep", &sp, &e) &&
		    !sweep_expand(sp, &rr, &nn, &e)) {
			for (size_t i = 0; i < nn; i++) {
				size_t l = strlen(got);
				(void)snprintf(got + l, sizeof(got) - l, "%s%s:%s:%d ",
					       rr[i].workload ? "w" : "t",
					       rr[i].seed_set ? "s" : "-",
					       policy_align_name(rr[i].cfg.align), (int)rr[i].seed);
			}
			sweep_spec_free(sp);
		}
		free(rr);
		CHECK_EQ_STR("workload runs: seeds innermost, traces ignore seeds", got,
			     "t-:none:0 t-:natural:0 ws:none:3 ws:none:5 ws:none:6 ws:none:7 "
			     "ws:natural:3 ws:natural:5 ws:natural:6 ws:natural:7 ");
	}
	n = expand("trace = a\nnr_cpus = 1,2,3,4,5,6,7,8,9,10\nslub_min_objects = "
		   "1,2,3,4,5,6,7,8,9,10\nslub_max_order = 0,1,2,3,4,5,6,7,8,9\nkernel = 5.4, "
		   "6.1\nalign = none, natural, cap512\nslub_min_order = 0,1,2,3,4,5,6,7,8\n"
		   "slub_debug = -, F, Z, P, U\ncpu_partial = on, off\nslab_max_order = 0, 1\n",
		   &e, &rc);
	CHECK("more than SWEEP_MAX_RUNS runs refused", rc == SLABSIM_EINPUT);
	/* 2 x 10 x 3 x 5 x 9 x 10 x 10 x 2 = 540000 runs before slab_max_order
	 * (axis order of sweep.c), which doubles it past 10^6 on line 10 */
	CHECK("too many runs: names the line of the axis that crosses the limit",
	      rc == SLABSIM_EINPUT &&
		      strstr(e.msg, "t.sweep:10: expected a sweep of at most 1000000 runs, got "
				    "more with the slab_max_order values"));
	static const char nul[] = "trace = a\nalign = no\0ne\n";
	struct sweep_spec *s;
	rc = sweep_spec_parse(nul, sizeof(nul) - 1, "t.sweep", &s, &e);
	CHECK("NUL byte: line 2",
	      rc == SLABSIM_EINPUT && strstr(e.msg, "t.sweep:2: expected text"));
	/* not NUL-terminated: only len bytes are read */
	static const char cut[] = "trace = a\nallocator = slab\nallocator = nosuch";
	rc = sweep_spec_parse(cut, strlen("trace = a\nallocator = slab\n"), "t.sweep", &s, &e);
	CHECK("reads only len bytes", rc == 0);
	if (!rc)
		sweep_spec_free(s);

	uint32_t i, k;
	CHECK("shard 2/3", !sweep_parse_shard("2/3", &i, &k, &e) && i == 2 && k == 3);
	CHECK("shard 0/3 refused", sweep_parse_shard("0/3", &i, &k, &e) == SLABSIM_EUSAGE);
	CHECK("shard 4/3 refused", sweep_parse_shard("4/3", &i, &k, &e) == SLABSIM_EUSAGE);
	CHECK("shard 1/ refused", sweep_parse_shard("1/", &i, &k, &e) == SLABSIM_EUSAGE);
	size_t cnt[4] = {0};
	for (size_t x = 0; x < 10; x++)
		for (uint32_t sh = 1; sh <= 3; sh++)
			cnt[sh] += sweep_in_shard(x, sh, 3);
	CHECK("shards of 10 runs: 4, 3, 3", cnt[1] == 4 && cnt[2] == 3 && cnt[3] == 3);
}

/* The runs of text as "allocator:kernel:nr_cpus:given " each, kernel and
 * nr_cpus "auto" where the run leaves them to its input; trace 0's default
 * allocator set to alloc0 when not NULL. */
static void runs_str(const char *text, const char *alloc0, char *got, size_t n)
{
	struct sweep_spec *sp;
	struct sweep_run *rr = NULL;
	size_t nn = 0;
	struct err e;
	got[0] = '\0';
	if (sweep_spec_parse(text, strlen(text), "t.sweep", &sp, &e)) {
		(void)snprintf(got, n, "%.300s", e.msg);
		return;
	}
	if ((!alloc0 || !sweep_spec_set_trace_allocator(sp, 0, alloc0, &e)) &&
	    !sweep_expand(sp, &rr, &nn, &e))
		for (size_t i = 0; i < nn; i++) {
			char k[8], c[16];
			size_t l = strlen(got);
			(void)snprintf(k, sizeof(k), "%s",
				       rr[i].kernel_auto		       ? "auto"
				       : rr[i].cfg.kernel == POLICY_KERNEL_6_1 ? "6.1"
									       : "5.4");
			(void)snprintf(c, sizeof(c), "%u", rr[i].cfg.nr_cpus);
			(void)snprintf(got + l, n - l, "%s:%s:%s:%x ", rr[i].allocator, k,
				       rr[i].nr_cpus_auto ? "auto" : c, rr[i].given);
		}
	free(rr);
	sweep_spec_free(sp);
}

/* kernel and nr_cpus: `auto` by default and when written, next to fixed
 * values; a fixed value is a given setting, auto is not (cmd_sweep then
 * resolves it per input, as replay does). */
static void check_auto(void)
{
	char got[400];
	const unsigned k = 1u << SWEEP_AX_KERNEL, c = 1u << SWEEP_AX_NR_CPUS;
	char want[200];
	runs_str("trace = a\n", NULL, got, sizeof(got));
	CHECK_EQ_STR("no kernel or nr_cpus axis: both auto, nothing given", got,
		     "slub:auto:auto:0 ");
	runs_str("trace = a\nkernel = auto\nnr_cpus = auto\n", NULL, got, sizeof(got));
	CHECK_EQ_STR("auto written: the same run", got, "slub:auto:auto:0 ");
	runs_str("trace = a\nkernel = auto, 6.1\nnr_cpus = 4, auto\n", NULL, got, sizeof(got));
	(void)snprintf(want, sizeof(want),
		       "slub:auto:4:%x slub:auto:auto:0 slub:6.1:4:%x slub:6.1:auto:%x ", c, k | c,
		       k);
	CHECK_EQ_STR("auto next to fixed values: 2 x 2 runs, fixed ones given", got, want);
	runs_str("trace = a\nkernel = 5.4\nnr_cpus = 2\n", NULL, got, sizeof(got));
	(void)snprintf(want, sizeof(want), "slub:5.4:2:%x ", k | c);
	CHECK_EQ_STR("both axes named: given, not auto (today's keys)", got, want);
	runs_str("trace = a\nkernel = auto, auto\n", NULL, got, sizeof(got));
	CHECK_EQ_STR("auto twice refused", got,
		     "t.sweep:2: kernel: expected each value once, got 'auto' again");
	runs_str("trace = a\nnr_cpus = automatic\n", NULL, got, sizeof(got));
	CHECK_EQ_STR("a bad nr_cpus names auto", got,
		     "t.sweep:2: nr_cpus: expected auto or a whole number from 1 to 8192, got "
		     "'automatic'");
	/* a capture's allocator where the spec has no allocator axis: its
	 * own axes apply (slab_debug), SLUB's do not */
	runs_str("trace = a\nslub_debug = -, FZPU\nslab_debug = off, on\n", "slab", got,
		 sizeof(got));
	(void)snprintf(want, sizeof(want), "slab:auto:auto:%x slab:auto:auto:%x ",
		       1u << SWEEP_AX_SLAB_DEBUG, 1u << SWEEP_AX_SLAB_DEBUG);
	CHECK_EQ_STR("a trace's own allocator without an allocator axis", got, want);
	runs_str("trace = a\nallocator = slob\n", "slab", got, sizeof(got));
	(void)snprintf(want, sizeof(want), "slob:auto:auto:%x ", 1u << SWEEP_AX_ALLOCATOR);
	CHECK_EQ_STR("an allocator axis wins over the trace's own", got, want);
}

/* The align of each run as "NAME[auto] " (auto: left to the kernel the
 * input settles), "" on an error. */
static void aligns_str(const char *text, char *got, size_t n)
{
	struct sweep_spec *sp;
	struct sweep_run *rr = NULL;
	size_t nn = 0;
	struct err e;
	got[0] = '\0';
	if (sweep_spec_parse(text, strlen(text), "t.sweep", &sp, &e))
		return;
	if (!sweep_expand(sp, &rr, &nn, &e))
		for (size_t i = 0; i < nn; i++) {
			size_t l = strlen(got);
			(void)snprintf(got + l, n - l, "%s%s ", policy_align_name(rr[i].cfg.align),
				       rr[i].align_auto ? "[auto]" : "");
		}
	free(rr);
	sweep_spec_free(sp);
}

/* align = auto is the kernel profile's rule: under a given kernel it is
 * that rule at once (one run, not two, when the axis lists it too); under
 * kernel auto it waits for the input. */
static void check_align_auto(void)
{
	char got[400];
	aligns_str("trace = a\nkernel = 6.1, 6.12\nalign = auto, natural\n", got, sizeof(got));
	CHECK_EQ_STR("6.1: auto is natural, one run; 6.12: auto is pow2-divisor", got,
		     "natural pow2-divisor natural ");
	aligns_str("trace = a\nkernel = 6.18\nalign = auto, pow2-divisor, none\n", got,
		   sizeof(got));
	CHECK_EQ_STR("6.18: auto and pow2-divisor one run", got, "pow2-divisor none ");
	aligns_str("trace = a\nkernel = 7.0\nalign = auto, natural\n", got, sizeof(got));
	CHECK_EQ_STR("7.0 is a kernel axis value; its auto is pow2-divisor", got,
		     "pow2-divisor natural ");
	aligns_str("trace = a\nalign = auto, natural\n", got, sizeof(got));
	CHECK_EQ_STR("kernel auto: align auto left to the input", got, "natural[auto] natural ");
}

/* Random byte mutations of a valid spec (GSL's generator, fixed seed): the
 * parser must answer 0 or EINPUT, never crash (ASan run), and a spec it
 * accepts must expand to 1..SWEEP_MAX_RUNS runs. */
static void check_mutations(void)
{
	static const char base[] = "# c\ntrace = a\nallocator = slub, slab, slob\n"
				   "align = none, natural\nslub_debug = -, FZPU\n"
				   "slab_debug = off, on\nnr_cpus = 1, 2\nsample_every = 100ev\n";
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	char buf[sizeof(base) + 16];
	unsigned bad = 0, accepted = 0;
	gsl_rng_set(r, 5);
	for (int it = 0; it < 5000; it++) {
		size_t len = sizeof(base) - 1;
		memcpy(buf, base, len);
		unsigned k = 1 + (unsigned)gsl_rng_uniform_int(r, 4);
		for (unsigned m = 0; m < k && len > 0; m++) {
			size_t at = gsl_rng_uniform_int(r, len);
			switch (gsl_rng_uniform_int(r, 3)) {
			case 0:
				buf[at] = (char)gsl_rng_uniform_int(r, 256);
				break;
			case 1:
				buf[at] = "=,#\n \t-0"[gsl_rng_uniform_int(r, 8)];
				break;
			default:
				len = at; /* truncate */
				break;
			}
		}
		struct sweep_spec *s;
		struct sweep_run *runs;
		size_t n;
		struct err e;
		int rc = sweep_spec_parse(buf, len, "m.sweep", &s, &e);
		if (rc == 0) {
			accepted++;
			if (sweep_expand(s, &runs, &n, &e) || n < 1 || n > SWEEP_MAX_RUNS)
				bad++;
			else
				free(runs);
			sweep_spec_free(s);
		} else if (rc != SLABSIM_EINPUT || strncmp(e.msg, "m.sweep", 7) != 0) {
			bad++;
		}
	}
	gsl_rng_free(r);
	CHECK_EQ_U64("5000 mutated specs: accepted or refused with m.sweep:...", bad, 0);
	CHECK("some mutated specs are still accepted", accepted > 0);
}

int main(int argc, char **argv)
{
	struct evarr *a;
	struct err e;
	if (argc != 2) {
		printf("Bail out! usage: test_sweep TRACE\n");
		return 1;
	}
	if (evarr_load(argv[1], &a, &e)) {
		printf("Bail out! %s\n", e.msg);
		return 1;
	}
	CHECK("evarr: the boot excerpt's 3000 slab events", evarr_len(a) == 3000);
	check_events(argv[1], a);
	check_replay(argv[1], a, "slub");
	check_replay(argv[1], a, "slab");
	check_replay(argv[1], a, "slob");
	evarr_free(a);
	CHECK("evarr: a missing file is an I/O error",
	      evarr_load("/nonexistent/x.trace", &a, &e) == SLABSIM_EIO);
	check_spec();
	check_auto();
	check_align_auto();
	check_mutations();
	return check_done();
}
