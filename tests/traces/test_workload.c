/* test_workload.c - the workload spec parser and the generator: parse
 * errors name file:line; every distribution's sample mean and variance
 * match moments computed independently (closed forms, or sums over the
 * pmf for the rounded and truncated ones); arrivals, bursts, phases and the
 * CPU mix; determinism; the written trace reads back as the same events.
 *
 * Tolerances: with N independent draws, the sample mean has standard error
 * sqrt(var/N) and the sample variance sqrt((mu4 - var^2)/N) (mu4 the fourth
 * central moment; the large-N standard error of s^2). Checks allow 5
 * standard errors: a correct generator fails one with probability below
 * 6e-7, while a wrong parameter (a mean off by 1%, a variance off by 5%)
 * fails by tens of standard errors at N = 200 000. The seeds are fixed, so
 * the test is reproducible either way. */
#include "check.h"
#include "synth.h"
#include "trace.h"
#include "workload.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *data_dir = ".";

struct mom {
	double mean, var, mu4;
};

/* Moments of a pmf given as (value, weight) pairs; weights normalised here. */
static struct mom pmf_moments(const double *x, const double *p, size_t n)
{
	double tot = 0, m = 0, v = 0, m4 = 0;
	for (size_t i = 0; i < n; i++)
		tot += p[i];
	for (size_t i = 0; i < n; i++)
		m += x[i] * p[i] / tot;
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - m;
		v += d * d * p[i] / tot;
		m4 += d * d * d * d * p[i] / tot;
	}
	return (struct mom){m, v, m4};
}

/* From raw moments E[X], E[X^2], E[X^3], E[X^4]. */
static struct mom raw_moments(double e1, double e2, double e3, double e4)
{
	double v = e2 - e1 * e1;
	double m4 = e4 - 4 * e1 * e3 + 6 * e1 * e1 * e2 - 3 * e1 * e1 * e1 * e1;
	return (struct mom){e1, v, m4};
}

static struct workload *parse(const char *text)
{
	struct workload *w = NULL;
	struct err e;
	char name[512];
	(void)snprintf(name, sizeof(name), "%s/inline.wl", data_dir);
	if (workload_parse(name, text, strlen(text), &w, &e)) {
		printf("# parse failed: %s\n", e.msg);
		return NULL;
	}
	return w;
}

enum { N = 200000 };
static double sample[N];

/* Draw N values of stream 0 (sizes or lifetimes) and compare moments. */
static void check_moments(const char *name, const char *spec, bool lifetime, struct mom want)
{
	struct workload *w = parse(spec);
	if (!CHECK(name, w != NULL))
		return;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 12345);
	for (size_t i = 0; i < N; i++)
		sample[i] = (double)(lifetime ? synth_draw_lifetime(w, 0, r)
					      : synth_draw_size(w, 0, r));
	double mean = gsl_stats_mean(sample, 1, N);
	double var = gsl_stats_variance_m(sample, 1, N, mean);
	double se_mean = sqrt(want.var / N), se_var = sqrt((want.mu4 - want.var * want.var) / N);
	char buf[256];
	(void)snprintf(buf, sizeof(buf), "%s: mean %.4g within 5 SE (%.3g) of %.4g", name, mean,
		       se_mean, want.mean);
	CHECK(buf, fabs(mean - want.mean) <= 5 * se_mean);
	(void)snprintf(buf, sizeof(buf), "%s: variance %.4g within 5 SE (%.3g) of %.4g", name, var,
		       se_var, want.var);
	CHECK(buf, fabs(var - want.var) <= 5 * se_var);
	gsl_rng_free(r);
	workload_free(w);
}

#define STREAM_HDR "[workload]\nduration = 1s\n[stream s]\ntarget = kmalloc\n"

static void test_sizes(void)
{
	static double x[5000], p[5000];
	size_t n;

	/* uniform 10..50: 41 equally likely values */
	n = 0;
	for (int k = 10; k <= 50; k++)
		x[n] = k, p[n++] = 1;
	check_moments("uniform 10 50",
		      STREAM_HDR "size = uniform 10 50\nlifetime = forever\narrival = poisson 1\n",
		      false, pmf_moments(x, p, n));

	/* normal 100 30 truncated to [60, 200], rounded: P(k) = Phi((k+.5-100)/30)
	 * - Phi((k-.5-100)/30) on 60..200, renormalised */
	n = 0;
	for (int k = 60; k <= 200; k++)
		x[n] = k, p[n++] = gsl_cdf_gaussian_P(k + 0.5 - 100, 30) -
				   gsl_cdf_gaussian_P(k - 0.5 - 100, 30);
	check_moments("normal 100 30 60 200",
		      STREAM_HDR
		      "size = normal 100 30 60 200\nlifetime = forever\narrival = poisson 1\n",
		      false, pmf_moments(x, p, n));

	/* the same without a range: [1, 4 MiB] cuts nothing that matters */
	n = 0;
	for (int k = 1; k <= 400; k++)
		x[n] = k, p[n++] = gsl_cdf_gaussian_P(k + 0.5 - 200, 40) -
				   gsl_cdf_gaussian_P(k - 0.5 - 200, 40);
	check_moments("normal 200 40",
		      STREAM_HDR "size = normal 200 40\nlifetime = forever\narrival = poisson 1\n",
		      false, pmf_moments(x, p, n));

	/* lognormal median 256 sigma 0.5, truncated to [32, 1024], rounded:
	 * P(k) = F(k+.5) - F(k-.5) with F the lognormal cdf */
	n = 0;
	for (int k = 32; k <= 1024; k++)
		x[n] = k, p[n++] = gsl_cdf_lognormal_P(k + 0.5, log(256), 0.5) -
				   gsl_cdf_lognormal_P(k - 0.5, log(256), 0.5);
	check_moments("lognormal 256 0.5 32 1024",
		      STREAM_HDR "size = lognormal 256 0.5 32 1024\nlifetime = forever\narrival "
				 "= poisson 1\n",
		      false, pmf_moments(x, p, n));

	/* pow2 0.4 16 1024: 16 * 2^(k-1), P(k) = 0.4 * 0.6^(k-1), capped: the
	 * 7th value 1024 takes the whole tail 0.6^6 */
	n = 0;
	for (int k = 1; k <= 6; k++)
		x[n] = 16 << (k - 1), p[n++] = 0.4 * pow(0.6, k - 1);
	x[n] = 1024, p[n++] = pow(0.6, 6);
	check_moments("pow2 0.4 16 1024",
		      STREAM_HDR
		      "size = pow2 0.4 16 1024\nlifetime = forever\narrival = poisson 1\n",
		      false, pmf_moments(x, p, n));

	/* empirical inline */
	double ex[] = {32, 64, 128, 4096}, ep[] = {1, 2, 3, 0.5};
	check_moments("empirical 32:1,64:2,128:3,4096:0.5",
		      STREAM_HDR "size = empirical 32:1, 64:2,128:3,4096:0.5\nlifetime = "
				 "forever\narrival = poisson 1\n",
		      false, pmf_moments(ex, ep, 4));

	/* empirical from data/sizes.hist: 24 x5, 40 x3, 100 x2 */
	double fx[] = {24, 40, 100}, fp[] = {5, 3, 2};
	check_moments("empirical @sizes.hist",
		      STREAM_HDR
		      "size = empirical @sizes.hist\nlifetime = forever\narrival = poisson 1\n",
		      false, pmf_moments(fx, fp, 3));
}

static void test_lifetimes(void)
{
	/* exponential, mean m: var m^2, mu4 9 m^4 (in ns) */
	double m = 1e7;
	check_moments("lifetime exponential 10ms",
		      STREAM_HDR
		      "size = fixed 8\nlifetime = exponential 10ms\narrival = poisson 1\n",
		      true, (struct mom){m, m * m, 9 * m * m * m * m});

	/* lognormal: E[X^k] = exp(k mu + k^2 sigma^2 / 2), mu = ln 5e6 ns */
	double mu = log(5e6), s2 = 0.25, e[5];
	for (int k = 1; k <= 4; k++)
		e[k] = exp(k * mu + k * k * s2 / 2);
	check_moments("lifetime lognormal 5ms 0.5",
		      STREAM_HDR
		      "size = fixed 8\nlifetime = lognormal 5ms 0.5\narrival = poisson 1\n",
		      true, raw_moments(e[1], e[2], e[3], e[4]));

	/* Pareto alpha 6, xm 1 ms: E[X^k] = alpha xm^k / (alpha - k) for k < alpha */
	double a = 6, xm = 1e6;
	for (int k = 1; k <= 4; k++)
		e[k] = a * pow(xm, k) / (a - k);
	check_moments("lifetime pareto 6 1ms",
		      STREAM_HDR "size = fixed 8\nlifetime = pareto 6 1ms\narrival = poisson 1\n",
		      true, raw_moments(e[1], e[2], e[3], e[4]));

	struct workload *w =
		parse(STREAM_HDR "size = fixed 8\nlifetime = fixed 2.5ms\narrival = poisson 1\n");
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	CHECK_EQ_U64("lifetime fixed 2.5ms is 2500000 ns", w ? synth_draw_lifetime(w, 0, r) : 0,
		     2500000);
	CHECK_EQ_U64("size fixed 8", w ? synth_draw_size(w, 0, r) : 0, 8);
	gsl_rng_free(r);
	workload_free(w);
}

/* Generate the whole of spec with seed; counts by type and by CPU. */
struct gen {
	uint64_t allocs, frees, markers, by_cpu[8], last_t;
	bool ordered;
	double gaps_sum, gaps_sq;
	uint64_t gaps;
};

static bool generate(const char *spec, uint64_t seed, struct gen *out)
{
	memset(out, 0, sizeof(*out));
	out->ordered = true;
	struct workload *w = parse(spec);
	struct synth *g = NULL;
	struct err e;
	bool has;
	if (!w || synth_create(w, seed, workload_duration_ns(w, &has), NULL, &g, &e)) {
		workload_free(w);
		return false;
	}
	struct trace_event ev;
	uint64_t prev_alloc_t = UINT64_MAX;
	int rc;
	while ((rc = synth_next(g, &ev, &e)) == 1) {
		if (ev.t_ns < out->last_t)
			out->ordered = false;
		out->last_t = ev.t_ns;
		if (ev.type == TRACE_EV_KMALLOC || ev.type == TRACE_EV_CACHE_ALLOC) {
			out->allocs++;
			if (ev.cpu < 8)
				out->by_cpu[ev.cpu]++;
			if (prev_alloc_t != UINT64_MAX) {
				double d = (double)(ev.t_ns - prev_alloc_t);
				out->gaps_sum += d;
				out->gaps_sq += d * d;
				out->gaps++;
			}
			prev_alloc_t = ev.t_ns;
		} else if (ev.type == TRACE_EV_KFREE || ev.type == TRACE_EV_CACHE_FREE) {
			out->frees++;
		} else {
			out->markers++;
		}
	}
	synth_destroy(g);
	workload_free(w);
	return rc == 0;
}

static void test_arrivals(void)
{
	struct gen g;
	char buf[200];
	/* Poisson 1000/s for 100 s: count ~ Poisson(100000), sd 316 */
	CHECK("poisson workload generates",
	      generate("[workload]\nduration = 100s\n[stream s]\ntarget = kmalloc\nsize = fixed "
		       "8\nlifetime = forever\narrival = poisson 1000\n",
		       1, &g));
	(void)snprintf(buf, sizeof(buf),
		       "poisson 1000/s x 100 s: %" PRIu64 " within 5 sd of 100000", g.allocs);
	CHECK(buf, fabs((double)g.allocs - 1e5) <= 5 * sqrt(1e5));
	CHECK("events in time order", g.ordered);
	/* gaps: exponential with mean 1e6 ns, variance 1e12 (mu4 = 9e24) */
	double gm = g.gaps_sum / g.gaps, gv = g.gaps_sq / g.gaps - gm * gm;
	CHECK("poisson gaps: mean within 5 SE of 1 ms", fabs(gm - 1e6) <= 5 * sqrt(1e12 / g.gaps));
	CHECK("poisson gaps: variance within 5 SE of 1e12 ns^2",
	      fabs(gv - 1e12) <= 5 * sqrt(8e24 / g.gaps));

	/* bursts of 8 with gap 0 at 100/s for 100 s: 8 x Poisson(10000) */
	CHECK("burst workload generates",
	      generate("[workload]\nduration = 100s\n[stream s]\ntarget = kmalloc\nsize = fixed "
		       "8\nlifetime = forever\narrival = burst 100 8 0\n",
		       2, &g));
	CHECK("bursts: a multiple of 8 allocations", g.allocs % 8 == 0);
	CHECK("bursts: 8 x Poisson(10000) within 5 sd",
	      fabs((double)g.allocs / 8 - 1e4) <= 5 * sqrt(1e4));

	/* phases: 50 s at 2x then 50 s at 1x of 1000/s: Poisson(150000) */
	CHECK("phase workload generates",
	      generate("[workload]\nduration = 100s\n[stream s]\ntarget = kmalloc\nsize = fixed "
		       "8\nlifetime = phase\narrival = poisson 1000\n[phase a]\nduration = "
		       "50s\nrate s = 2\n[phase b]\n",
		       3, &g));
	CHECK("phases: rate x2 then x1 within 5 sd of 150000",
	      fabs((double)g.allocs - 1.5e5) <= 5 * sqrt(1.5e5));
	/* phase lifetime: phase a's objects are freed at 50 s, b's never */
	CHECK("phases: frees are phase a's allocations (Poisson(100000))",
	      fabs((double)g.frees - 1e5) <= 5 * sqrt(1e5) && g.frees < g.allocs);
	CHECK_EQ_U64("phases: one marker per phase", g.markers, 2);

	/* CPU mix 0:3,1:1 -> P(cpu 0) = 0.75 */
	CHECK("cpu mix workload generates",
	      generate("[workload]\nduration = 100s\n[stream s]\ntarget = kmalloc\nsize = fixed "
		       "8\nlifetime = forever\narrival = poisson 1000\ncpu = 0:3,1:1\n",
		       4, &g));
	double f0 = (double)g.by_cpu[0] / g.allocs;
	CHECK("cpu mix: share of CPU 0 within 5 SE of 0.75",
	      fabs(f0 - 0.75) <= 5 * sqrt(0.75 * 0.25 / g.allocs) &&
		      g.by_cpu[0] + g.by_cpu[1] == g.allocs);
	/* cpu all over 4 CPUs: each 1/4 */
	CHECK("cpu all workload generates",
	      generate("[workload]\nduration = 100s\ncpus = 4\n[stream s]\ntarget = "
		       "kmalloc\nsize = fixed 8\nlifetime = forever\narrival = poisson 1000\n",
		       5, &g));
	bool quarter = true;
	for (int c = 0; c < 4; c++)
		quarter &= fabs((double)g.by_cpu[c] / g.allocs - 0.25) <=
			   5 * sqrt(0.25 * 0.75 / g.allocs);
	CHECK("cpu all: each of 4 CPUs within 5 SE of 1/4", quarter);

	/* periodic 10ms for 1 s, lifetime fixed 25ms: 100 allocations at 0, 10,
	 * ..., 990 ms; those at t + 25 ms < 1 s (t <= 970 ms) are freed: 98 */
	CHECK("periodic workload generates",
	      generate("[workload]\nduration = 1s\n[stream s]\ntarget = kmalloc\nsize = fixed "
		       "8\nlifetime = fixed 25ms\narrival = periodic 10ms\n",
		       6, &g));
	CHECK_EQ_U64("periodic: 100 allocations", g.allocs, 100);
	CHECK_EQ_U64("periodic: 98 frees before the end", g.frees, 98);
	CHECK_EQ_U64("periodic: last event, the free of the 970 ms one, at 995 ms", g.last_t,
		     995000000);
}

static const char mixed_spec[] =
	"[workload]\nduration = 2s\nseed = 9\n"
	"[cache c1]\nobject_size = 100\nflags = account\n"
	"[stream a]\ntarget = cache c1\nsite = f+0x1/0x10\nlifetime = exponential 50ms\n"
	"arrival = poisson 2000\n"
	"[stream b]\ntarget = kmalloc\ngfp = reclaimable\nsize = lognormal 300 1 8 8192\n"
	"lifetime = lognormal 20ms 1\narrival = burst 200 5 1us\ncpu = 1\n"
	"[stream c]\ntarget = kmalloc\ngfp = dma\nsize = uniform 1 64\nlifetime = phase\n"
	"arrival = poisson 500\nphases = p1\n"
	"[phase p1]\nduration = 1s\n[phase p2]\nrate a = 3\n";

static bool same_event(const struct trace_event *a, const struct trace_event *b, bool names)
{
	bool same = a->type == b->type && a->t_ns == b->t_ns && a->cpu == b->cpu &&
		    a->pid == b->pid && a->ptr == b->ptr && a->bytes_req == b->bytes_req &&
		    a->bytes_alloc == b->bytes_alloc && a->gfp == b->gfp &&
		    strcmp(a->call_site, b->call_site) == 0;
	if (a->type == TRACE_EV_KMALLOC || a->type == TRACE_EV_CACHE_ALLOC)
		same = same && a->accounted == b->accounted && a->node == b->node;
	if (a->type == TRACE_EV_MARKER)
		same = same && strcmp(a->text, b->text) == 0;
	if (names || a->type == TRACE_EV_CACHE_FREE)
		same = same && (a->name == b->name ||
				(a->name && b->name && strcmp(a->name, b->name) == 0));
	return same;
}

static void test_determinism_and_roundtrip(void)
{
	struct workload *w = parse(mixed_spec);
	if (!CHECK("mixed spec parses", w))
		return;
	struct err e;
	struct synth *g1 = NULL, *g2 = NULL, *g3 = NULL;
	CHECK("three generators", !synth_create(w, 9, 2000000000, NULL, &g1, &e) &&
					  !synth_create(w, 9, 2000000000, NULL, &g2, &e) &&
					  !synth_create(w, 10, 2000000000, NULL, &g3, &e));
	char path[] = "/tmp/slabsim-test-synth-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	CHECK("temporary trace file", f != NULL);
	if (!f || !g1 || !g2 || !g3)
		return;
	(void)synth_write_header(f, w, 9, 2000000000, 2);
	struct trace_event a, b, c;
	uint64_t n = 0, differ = 0, kinds[TRACE_EV_NR] = {0};
	bool same = true;
	int r1, r2, r3 = 1;
	while ((r1 = synth_next(g1, &a, &e)) == 1) {
		r2 = synth_next(g2, &b, &e);
		if (r2 != 1 || !same_event(&a, &b, true))
			same = false;
		if (r3 == 1 && (r3 = synth_next(g3, &c, &e)) == 1 && !same_event(&a, &c, true))
			differ++;
		kinds[a.type]++;
		(void)synth_write_event(f, &a);
		n++;
	}
	CHECK("same seed: identical event streams", same && r1 == 0 && synth_next(g2, &b, &e) == 0);
	CHECK("another seed: a different stream", differ > n / 2);
	CHECK("every event kind occurs", kinds[TRACE_EV_KMALLOC] && kinds[TRACE_EV_KFREE] &&
						 kinds[TRACE_EV_CACHE_ALLOC] &&
						 kinds[TRACE_EV_CACHE_FREE]);
	CHECK_EQ_U64("two phase markers", kinds[TRACE_EV_MARKER], 2);
	fclose(f);
	synth_destroy(g1);
	synth_destroy(g2);
	synth_destroy(g3);

	/* the written trace reads back as the same events (allocations lose
	 * their cache name, which 6.1's kmem_cache_alloc does not print) */
	struct trace_reader *tr = NULL;
	struct trace_opts to = {.strict = true};
	g1 = NULL;
	if (!CHECK("trace opens", !trace_open(path, &to, &tr, &e)) ||
	    synth_create(w, 9, 2000000000, NULL, &g1, &e)) {
		remove(path);
		return;
	}
	uint64_t m = 0;
	same = true;
	while ((r1 = synth_next(g1, &a, &e)) == 1) {
		if ((r2 = trace_next(tr, &b, &e)) != 1 || !same_event(&a, &b, false)) {
			if (same)
				printf("# event %" PRIu64 " differs (%d): %s\n", m + 1, r2, e.msg);
			same = false;
		}
		m++;
	}
	CHECK_EQ_U64("every event read back", m, n);
	CHECK("read back: same events (strict parse)", same && trace_next(tr, &b, &e) == 0);
	const struct trace_stats *ts = trace_stats(tr);
	CHECK_EQ_U64("no malformed lines", ts->malformed, 0);
	trace_close(tr);
	synth_destroy(g1);
	remove(path);
	workload_free(w);
}

struct bad_case {
	const char *text, *want;
};

static void test_errors(void)
{
	static const struct bad_case cases[] = {
		{"[workload]\nduration = 5\n", "t.wl:2: expected a duration > 0 with a unit"},
		{"key = 1\n",
		 "t.wl:1: expected a [section] header before the first key, got 'key'"},
		{"[bogus x]\n", "t.wl:1: expected a section header"},
		{"[stream a]\ntarget = kmalloc\nlifetime = forever\narrival = poisson 1\n",
		 "t.wl:1: expected size in this kmalloc [stream] section, got 'nothing'"},
		{"[stream a]\n\n# c\nsize = fixed 0\n",
		 "t.wl:4: expected fixed N with N in 1..4194304, got 'fixed 0'"},
		{"[stream a]\nsize = normal 10 1 1000 2000\n",
		 "t.wl:2: expected a range [LO, HI] holding at least 0.1% of the distribution"},
		{"[stream a]\ntarget = cache nope\nsize = fixed 8\nlifetime = forever\narrival = "
		 "poisson 1\n",
		 "t.wl:2: expected a target cache defined by a [cache NAME] section, got 'nope'"},
		{"[stream a]\ncolour = red\n", "t.wl:2: expected a [stream] key"},
		{"[stream a]\nsize = fixed 8\nsize = fixed 8\n",
		 "t.wl:3: expected each key once per section, got 'size'"},
		{"[workload]\nrng = nope\n", "t.wl:2: expected a gsl_rng type name"},
		{"[stream a]\ntarget = kmalloc\nsize = fixed 8\nlifetime = forever\narrival = "
		 "poisson 1\nphases = x\n",
		 "t.wl:6: expected phase names defined by [phase NAME], got 'x'"},
		{"[stream a]\ntarget = kmalloc\nsize = fixed 8\nlifetime = forever\narrival = "
		 "poisson 1\ncpu = 5\n",
		 "t.wl:6: expected a CPU below the workload's cpus (2), got '5'"},
		{"[workload]\ncpus = 4\n[stream a]\ntarget = kmalloc\nsize = fixed 8\nlifetime = "
		 "forever\narrival = poisson 1\ncpu = 0:1,6:1\n",
		 "t.wl:8: expected a CPU below the workload's cpus (4), got '6'"},
		{"[stream a]\nlifetime = exponential 10\n",
		 "t.wl:2: expected exponential MEAN with a time MEAN > 0"},
		{"[stream a]\narrival = poisson -1\n", "t.wl:2: expected poisson RATE"},
		{"[stream a]\nlifetime = fixed 1.5ns\n", "t.wl:2: expected fixed T with a time T"},
		{"[workload]\nduration = 1s\n",
		 "t.wl:2: expected at least one [stream NAME] section, got none by the end"},
		{"[stream a]\ntarget = kmalloc\nsize = fixed 8\nlifetime = forever\narrival = "
		 "poisson 1\n[phase p]\nrate b = 2\n",
		 "t.wl:7: expected 'rate STREAM' naming a [stream] of this file, got 'b'"},
		{"[cache c]\nobject_size = 64\n[stream a]\ntarget = cache c\nsize = fixed "
		 "32\nlifetime = forever\narrival = poisson 1\n",
		 "t.wl:5: expected no size on a cache stream, or 'fixed OBJECT_SIZE'"},
		{"[cache c]\nalign = 64\n", "t.wl:1: expected object_size in this [cache] section"},
		{"[cache c]\nalign = 48\n", "t.wl:2: expected an alignment of 0 or a power of two"},
		{"[stream a]\n[stream a]\n", "t.wl:2: expected a stream name not defined before"},
		{"[phase p]\n[phase q]\n[stream a]\ntarget = kmalloc\nsize = fixed 8\nlifetime = "
		 "forever\narrival = poisson 1\n",
		 "t.wl:1: expected a duration in every [phase] but the last"},
		{"[stream a]\nsize = pow2 0.5 16 100\n", "t.wl:2: expected pow2 P LO HI"},
		{"[stream a]\nsize = empirical 8:0,16:0\n",
		 "t.wl:2: expected an empirical histogram with a positive total weight"},
		{"[stream a]\ncpu = 0:1,x\n", "t.wl:2: expected a CPU (all | N | N:W,N:W,...)"},
		{"[stream a]\ntarget = kmalloc\ngfp = atomic\n",
		 "t.wl:3: expected a gfp of kernel, reclaimable, dma or account, got 'atomic'"},
		{"[workload]\n[workload]\n", "t.wl:2: expected one [workload] section"},
		{"[stream a]\ntarget = kmalloc\nsize = fixed 8\nlifetime = forever\narrival = "
		 "poisson 1e6\n[phase p]\nrate a = 2000\n",
		 "t.wl:7: expected at most 1e9 allocations per second (rate x multiplier), got "
		 "'a'"},
		{"[stream a]\ntarget = kmalloc\nsize = fixed 8\nlifetime = forever\narrival = "
		 "burst 1e6 2000 0\n",
		 "t.wl:1: expected at most 1e9 allocations per second (RATE x SIZE), got 'a'"},
		{"[stream a]\ntarget = kmalloc\nsize = fixed 8\nlifetime = forever\narrival = "
		 "periodic 0\n",
		 "t.wl:5: expected periodic INTERVAL with a time INTERVAL > 0"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct workload *w = NULL;
		struct err e;
		err_clear(&e);
		int rc = workload_parse("t.wl", cases[i].text, strlen(cases[i].text), &w, &e);
		char name[200];
		(void)snprintf(name, sizeof(name), "error names the place: %.60s", cases[i].want);
		if (!CHECK(name, rc == SLABSIM_EINPUT && w == NULL &&
					 strncmp(e.msg, cases[i].want, strlen(cases[i].want)) == 0))
			printf("#   got rc %d: %s\n", rc, e.msg);
		workload_free(w);
	}
	/* an @FILE that is not a regular file is refused (never read forever) */
	const char *z = "[stream a]\nsize = empirical @/dev/zero\n";
	struct workload *wz = NULL;
	struct err ez;
	CHECK("@/dev/zero refused", workload_parse("t.wl", z, strlen(z), &wz, &ez) == SLABSIM_EIO &&
					    strstr(ez.msg, "not a regular file"));
	/* an @FILE that does not exist is an I/O error naming the spec line */
	const char *t = "[stream a]\nsize = empirical @no-such-file\n";
	struct workload *w = NULL;
	struct err e;
	int rc = workload_parse("dir/t.wl", t, strlen(t), &w, &e);
	CHECK("missing @FILE: I/O error at t.wl:2",
	      rc == SLABSIM_EIO && strstr(e.msg, "dir/t.wl:2: cannot read dir/no-such-file"));
	/* a line longer than 1 MiB - 1 */
	size_t biglen = (1u << 20) + 100;
	char *longl = malloc(biglen + 1);
	memset(longl, 'x', biglen);
	longl[biglen] = '\0';
	memcpy(longl, "[stream a]\n#", 12);
	rc = workload_parse("t.wl", longl, strlen(longl), &w, &e);
	CHECK("overlong line refused at t.wl:2",
	      rc == SLABSIM_EINPUT &&
		      strncmp(e.msg, "t.wl:2: expected a line of at most", 34) == 0);
	/* a long inline histogram (sizes 1..20000, 150 kB on one line, blanks
	 * after the commas) is fine: weight 1 each, mean 10000.5 */
	size_t off = (size_t)sprintf(longl, "[stream a]\ntarget = kmalloc\nlifetime = forever\n"
					    "arrival = poisson 1\nsize = empirical ");
	for (int k = 1; k <= 20000; k++)
		off += (size_t)sprintf(longl + off, "%s%d:1", k > 1 ? ", " : "", k);
	rc = workload_parse("t.wl", longl, off, &w, &e);
	if (CHECK("20000-entry inline histogram parses", rc == 0)) {
		gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
		double sum = 0;
		for (int i = 0; i < 100000; i++)
			sum += (double)synth_draw_size(w, 0, r);
		/* uniform on 1..20000: sd 5773.5, SE of the mean 18.3 */
		CHECK("its mean within 5 SE of 10000.5", fabs(sum / 100000 - 10000.5) < 5 * 18.3);
		gsl_rng_free(r);
		workload_free(w);
		w = NULL;
	}
	free(longl);
	/* a NUL byte inside the text */
	rc = workload_parse("t.wl", "[stream a]\0\n", 12, &w, &e);
	CHECK("NUL byte refused", rc == SLABSIM_EINPUT && strstr(e.msg, "t.wl:1:"));

	/* times: exact decimal conversion */
	uint64_t ns = 0;
	CHECK("time 2.5s = 2500000000 ns", workload_parse_time("2.5s", &ns) && ns == 2500000000);
	CHECK("time 250us = 250000 ns", workload_parse_time("250us", &ns) && ns == 250000);
	CHECK("time 1.5m = 90 s", workload_parse_time("1.5m", &ns) && ns == 90000000000);
	CHECK("time 0.000000001s = 1 ns", workload_parse_time("0.000000001s", &ns) && ns == 1);
	CHECK("time 2h", workload_parse_time("2h", &ns) && ns == 7200000000000);
	CHECK("time 0", workload_parse_time("0", &ns) && ns == 0);
	CHECK("time 5 (no unit) refused", !workload_parse_time("5", &ns));
	CHECK("time 0.5ns refused", !workload_parse_time("0.5ns", &ns));
	CHECK("time 1e3s refused", !workload_parse_time("1e3s", &ns));
	CHECK("time 9999999999h refused", !workload_parse_time("9999999999h", &ns));
}

/* Mutations of a valid spec never crash the parser (ASan run checks). */
static void test_mutations(void)
{
	size_t len = strlen(mixed_spec);
	char *buf = malloc(len + 1);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	static const char alphabet[] = "[]=#;:,.@ \n0123456789-abcdefghijklmnopqrstuvwxyz\0";
	unsigned ok = 0, bad = 0;
	for (int i = 0; i < 3000; i++) {
		memcpy(buf, mixed_spec, len);
		int nmut = 1 + (int)gsl_rng_uniform_int(r, 4);
		for (int k = 0; k < nmut; k++)
			buf[gsl_rng_uniform_int(r, len)] =
				alphabet[gsl_rng_uniform_int(r, sizeof(alphabet) - 1)];
		size_t l = gsl_rng_uniform_int(r, len + 1);
		struct workload *w = NULL;
		struct err e;
		int rc = workload_parse("m.wl", buf, l, &w, &e);
		if (rc == 0)
			ok++;
		else if (rc == SLABSIM_EINPUT && strncmp(e.msg, "m.wl", 4) == 0)
			bad++;
		workload_free(w);
	}
	CHECK("3000 mutated specs: parsed or refused with m.wl:LINE", ok + bad == 3000);
	gsl_rng_free(r);
	free(buf);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		data_dir = argv[1];
	test_errors();
	test_mutations();
	test_sizes();
	test_lifetimes();
	test_arrivals();
	test_determinism_and_roundtrip();
	return check_done();
}
