/* test_fit.c - the estimators of traces/fit.h on hand-computed cases and on
 * samples drawn with GSL from known distributions. TAP output.
 *
 * Tolerances come from the sample size:
 * - exponential with right censoring: the MLE of the mean is (Σ t + Σ c) / d
 *   with d the number of events; its asymptotic standard error is
 *   mean / sqrt(d) (Fisher information d / mean^2). We accept 4 SE.
 * - lognormal with censoring: the asymptotic standard errors are the square
 *   roots of the diagonal of the inverse observed information, the Hessian
 *   of -logL at the MLE, taken here by central differences of
 *   fit_life_lognormal_ll (independent of the Nelder-Mead search). 4 SE.
 * - Poisson counts: N arrivals in T seconds estimate the rate with standard
 *   error sqrt(N) / T. 4 SE.
 * Samples use a fixed seed, so a pass is reproducible; 4 SE would fail by
 * chance with probability about 6e-5 for a fresh seed.
 */
#include "check.h"
#include "fit.h"
#include "trace.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define CLOSE(name, got, want, tol)                                                                \
	do {                                                                                       \
		double g_ = (got), w_ = (want), t_ = (tol);                                        \
		if (!CHECK(name, fabs(g_ - w_) <= t_))                                             \
			printf("#   got %.10g, want %.10g +- %.3g\n", g_, w_, t_);                 \
	} while (0)

static void test_exp_closed_form(void)
{
	/* events 1, 2, 3 s; one object censored at 4 s. Time at risk 10 s,
	 * 3 events: mean 10/3 s; logL = 3 ln(3/10) - (3/10) 10
	 * = 3 (-1.2039728043) - 3 = -6.6119184129. */
	struct fit_life l;
	struct fit_life_result r;
	fit_life_init(&l);
	fit_life_event(&l, 1);
	fit_life_event(&l, 2);
	fit_life_event(&l, 3);
	CHECK("censored time stored", fit_life_censored(&l, 4) == 0);
	fit_life_estimate(&l, true, &r);
	CLOSE("exp closed form: mean 10/3", r.exp_mean, 10.0 / 3.0, 1e-12);
	CLOSE("exp closed form: logL", r.exp_ll, -6.6119184129, 1e-9);
	CLOSE("exp closed form: AIC = 2 - 2 logL", r.exp_aic, 2 + 2 * 6.6119184129, 1e-8);
	CHECK_EQ_U64("exp closed form: 3 events", r.events, 3);
	CHECK_EQ_U64("exp closed form: 1 censored", r.censored, 1);

	/* lognormal logL at (mu 0, sigma 1) of events 1 and e, censored at e^2:
	 * ln f(t) = -ln t - ln(2 pi)/2 - (ln t)^2 / 2, so the events give
	 * -(0 + 1) - ln(2 pi) - (0 + 1)/2 = -1 - 1.8378770664 - 0.5, and the
	 * censored one ln Q(2) = ln(erfc(sqrt 2) / 2) = -3.7831843337:
	 * total -7.1210614001. */
	struct fit_life l2;
	fit_life_init(&l2);
	fit_life_event(&l2, 1.0);
	fit_life_event(&l2, M_E);
	CHECK("censored time stored", fit_life_censored(&l2, M_E * M_E) == 0);
	CLOSE("lognormal logL by hand", fit_life_lognormal_ll(&l2, 0.0, 1.0), -7.1210614001, 1e-8);
	/* without censoring the lognormal MLE is closed form: mu = mean ln t,
	 * sigma^2 = mean (ln t - mu)^2. Events e^0, e^1, e^2, e^3: mu = 1.5,
	 * sigma^2 = (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25. */
	struct fit_life l3;
	fit_life_init(&l3);
	for (int k = 0; k < 4; k++)
		fit_life_event(&l3, exp(k));
	fit_life_estimate(&l3, true, &r);
	CHECK("uncensored lognormal fitted", r.ln_ok);
	CLOSE("uncensored lognormal: mu = mean ln t", r.ln_mu, 1.5, 1e-6);
	CLOSE("uncensored lognormal: sigma^2 = mean square", r.ln_sigma * r.ln_sigma, 1.25, 1e-6);
	fit_life_fini(&l);
	fit_life_fini(&l2);
	fit_life_fini(&l3);
}

/* Objects allocated uniformly over [0, T] live X each; those with a + X > T
 * are censored at T - a, as the live set at the end of a trace is. */
static void sample(struct fit_life *l, gsl_rng *rng, size_t n, double T, int lognormal, double p1,
		   double p2)
{
	for (size_t i = 0; i < n; i++) {
		double a = gsl_ran_flat(rng, 0, T);
		double x =
			lognormal ? gsl_ran_lognormal(rng, p1, p2) : gsl_ran_exponential(rng, p1);
		if (a + x > T)
			(void)fit_life_censored(l, T - a);
		else
			fit_life_event(l, x);
	}
}

static void test_exp_recovery(gsl_rng *rng)
{
	struct fit_life l;
	struct fit_life_result r;
	const double mean = 2.0;
	fit_life_init(&l);
	sample(&l, rng, 20000, 10.0, 0, mean, 0);
	fit_life_estimate(&l, true, &r);
	double se = mean / sqrt((double)r.events);
	printf("# exponential: %llu events %llu censored, mean %.5f (SE %.5f), KS %.4f\n",
	       (unsigned long long)r.events, (unsigned long long)r.censored, r.exp_mean, se, r.ks);
	CHECK("exp sample: some censored", r.censored > 1000);
	CLOSE("exp sample: mean within 4 SE", r.exp_mean, mean, 4 * se);
	CHECK("exp sample: AIC picks exponential, no immortal fraction",
	      r.chosen == FIT_DIST_EXP && r.sel_p == 0);
	/* Kolmogorov's 1% critical value 1.63/sqrt(n), with n = events */
	CHECK("exp sample: KS vs Kaplan-Meier < 1.63/sqrt(d)",
	      r.ks < 1.63 / sqrt((double)r.events));
	fit_life_fini(&l);
}

static void test_lognormal_recovery(gsl_rng *rng)
{
	struct fit_life l;
	struct fit_life_result r;
	const double mu = log(0.5), sigma = 1.2;
	fit_life_init(&l);
	sample(&l, rng, 20000, 10.0, 1, mu, sigma);
	fit_life_estimate(&l, true, &r);
	CHECK("lognormal sample: fitted", r.ln_ok);
	/* observed information by central differences in (mu, sigma) */
	const double h = 1e-4;
	double m = r.ln_mu, s = r.ln_sigma;
	double f0 = fit_life_lognormal_ll(&l, m, s);
	double fmm = (fit_life_lognormal_ll(&l, m + h, s) - 2 * f0 +
		      fit_life_lognormal_ll(&l, m - h, s)) /
		     (h * h);
	double fss = (fit_life_lognormal_ll(&l, m, s + h) - 2 * f0 +
		      fit_life_lognormal_ll(&l, m, s - h)) /
		     (h * h);
	double fms =
		(fit_life_lognormal_ll(&l, m + h, s + h) - fit_life_lognormal_ll(&l, m + h, s - h) -
		 fit_life_lognormal_ll(&l, m - h, s + h) +
		 fit_life_lognormal_ll(&l, m - h, s - h)) /
		(4 * h * h);
	double det = fmm * fss - fms * fms; /* of the Hessian of logL (negative definite) */
	/* covariance = -H^-1; H^-1 = [fss -fms; -fms fmm] / det */
	double se_mu = sqrt(-fss / det), se_s = sqrt(-fmm / det);
	printf("# lognormal: %llu events %llu censored, mu %.5f (SE %.5f) sigma %.5f (SE %.5f), "
	       "KS %.4f, %d iterations\n",
	       (unsigned long long)r.events, (unsigned long long)r.censored, r.ln_mu, se_mu,
	       r.ln_sigma, se_s, r.ks, r.ln_iter);
	CHECK("lognormal sample: MLE is a maximum (Hessian negative definite)", fmm < 0 && det > 0);
	/* with censoring the SE exceeds the uncensored sigma/sqrt(n) */
	CHECK("lognormal sample: SE(mu) >= sigma/sqrt(n)", se_mu >= sigma / sqrt(20000.0) * 0.9);
	CLOSE("lognormal sample: mu within 4 SE", r.ln_mu, mu, 4 * se_mu);
	CLOSE("lognormal sample: sigma within 4 SE", r.ln_sigma, sigma, 4 * se_s);
	CHECK("lognormal sample: AIC picks lognormal, no immortal fraction",
	      r.chosen == FIT_DIST_LOGNORMAL && r.sel_p == 0);
	CHECK("lognormal sample: KS vs Kaplan-Meier < 1.63/sqrt(d)",
	      r.ks < 1.63 / sqrt((double)r.events));
	/* moving off the MLE lowers logL */
	CHECK("lognormal sample: logL(MLE) > logL(MLE + 3 SE)",
	      r.ln_ll > fit_life_lognormal_ll(&l, m + 3 * se_mu, s));
	fit_life_fini(&l);
}

/* A share p of the objects is never freed, the rest live Exp(mean): the cure
 * model recovers (mean, p) within 4 SE (inverse observed information). */
static void test_cure_recovery(gsl_rng *rng)
{
	struct fit_life l;
	struct fit_life_result r;
	const double mean = 1.0, p = 0.3, T = 10.0;
	fit_life_init(&l);
	for (size_t i = 0; i < 20000; i++) {
		double a = gsl_ran_flat(rng, 0, T);
		bool immortal = gsl_rng_uniform(rng) < p;
		double x = gsl_ran_exponential(rng, mean);
		if (immortal || a + x > T)
			(void)fit_life_censored(&l, T - a);
		else
			fit_life_event(&l, x);
	}
	fit_life_estimate(&l, true, &r);
	CHECK("cure sample: exponential+immortal fitted", r.ec_ok);
	const double h = 1e-4;
	double m = r.ec_mean, q = r.ec_p;
	double f0 = fit_life_exp_cure_ll(&l, m, q);
	double fmm =
		(fit_life_exp_cure_ll(&l, m + h, q) - 2 * f0 + fit_life_exp_cure_ll(&l, m - h, q)) /
		(h * h);
	double fqq =
		(fit_life_exp_cure_ll(&l, m, q + h) - 2 * f0 + fit_life_exp_cure_ll(&l, m, q - h)) /
		(h * h);
	double fmq =
		(fit_life_exp_cure_ll(&l, m + h, q + h) - fit_life_exp_cure_ll(&l, m + h, q - h) -
		 fit_life_exp_cure_ll(&l, m - h, q + h) + fit_life_exp_cure_ll(&l, m - h, q - h)) /
		(4 * h * h);
	double det = fmm * fqq - fmq * fmq;
	double se_m = sqrt(-fqq / det), se_q = sqrt(-fmm / det);
	printf("# cure: %llu events %llu censored, mean %.5f (SE %.5f) p %.5f (SE %.5f), KS %.4f\n",
	       (unsigned long long)r.events, (unsigned long long)r.censored, m, se_m, q, se_q,
	       r.ks);
	CHECK("cure sample: a maximum", fmm < 0 && det > 0);
	CLOSE("cure sample: mean within 4 SE", m, mean, 4 * se_m);
	CLOSE("cure sample: p within 4 SE", q, p, 4 * se_q);
	CHECK("cure sample: AIC picks exponential+immortal",
	      r.chosen == FIT_DIST_EXP && r.sel_p == r.ec_p);
	CHECK("cure sample: KS vs Kaplan-Meier < 1.63/sqrt(d)",
	      r.ks < 1.63 / sqrt((double)r.events));
	/* the same sample without cure models: the plain exponential's mean is
	 * inflated by the immortal objects' censoring times */
	fit_life_estimate(&l, false, &r);
	CHECK("cure off: no immortal fraction", r.sel_p == 0 && !r.ec_ok && !r.lc_ok);
	CHECK("cure off: plain exponential mean > 2x the true mean", r.exp_mean > 2 * mean);
	fit_life_fini(&l);
}

static void test_fmt_time(void)
{
	char b[64];
	fit_fmt_time(0.0025, b, sizeof(b));
	CHECK_EQ_STR("2.5 ms", b, "2.5ms");
	fit_fmt_time(1.5e-6, b, sizeof(b));
	CHECK_EQ_STR("1.5 us", b, "1.5us");
	fit_fmt_time(3.0, b, sizeof(b));
	CHECK_EQ_STR("3 s", b, "3s");
	fit_fmt_time(500e-9, b, sizeof(b));
	CHECK_EQ_STR("500 ns", b, "500ns");
	fit_fmt_time(1234.5678, b, sizeof(b));
	CHECK_EQ_STR("1234.57 s (6 digits, no exponent)", b, "1234.57s");
	fit_fmt_time(17.0175e-6, b, sizeof(b));
	CHECK_EQ_STR("17017.5 ns rounds to whole ns", b, "17.018us");
	fit_fmt_time(0.2e-9, b, sizeof(b));
	CHECK_EQ_STR("at least 1 ns", b, "1ns");
}

/* Feed one kmalloc site's arrivals at the given times (ns) to a fit and
 * return its spec text. */
static char *fit_times(const uint64_t *t, size_t n, uint64_t end)
{
	struct fit_opts o;
	struct fit *f;
	struct err e;
	fit_opts_default(&o);
	if (fit_create(&o, &f, &e))
		return NULL;
	for (size_t i = 0; i <= n; i++) {
		struct trace_event ev = {
			.type = TRACE_EV_KMALLOC,
			.t_ns = i < n ? t[i] : end,
			.ptr = 0x1000 + 64 * (uint64_t)i,
			.bytes_req = 64,
			.bytes_alloc = 64,
			.call_site = "site+0x1/0x10",
			.node = -1,
			.accounted = -1,
		};
		if (i == n) { /* a free at the end fixes the span */
			ev.type = TRACE_EV_KFREE;
			ev.ptr = 0x1000;
		}
		if (fit_event(f, &ev, &e)) {
			fit_destroy(f);
			return NULL;
		}
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (fit_finish(f, &e) == 0 && m)
		fit_write_spec(f, m, "test");
	if (m)
		fclose(m);
	fit_destroy(f);
	return buf;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_arrivals(gsl_rng *rng)
{
	const double T = 10.0;
	size_t cap = 20000, n = 0;
	uint64_t *t = malloc(cap * sizeof(*t));
	/* Poisson at 500/s: times are uniform order statistics */
	size_t np = gsl_ran_poisson(rng, 500 * T);
	for (n = 0; n < np && n < cap; n++)
		t[n] = 1000 * (uint64_t)(gsl_ran_flat(rng, 0, T) * 1e6);
	qsort(t, n, sizeof(*t), cmp_u64);
	char *spec = fit_times(t, n, (uint64_t)(T * 1e9));
	double rate = 0;
	const char *p = spec ? strstr(spec, "arrival = poisson ") : NULL;
	CHECK("poisson stream: arrival = poisson", p != NULL);
	if (p)
		rate = atof(p + strlen("arrival = poisson "));
	/* span: first arrival .. T; n arrivals; rate SE sqrt(n)/T */
	double span = T - (double)t[0] * 1e-9;
	CLOSE("poisson stream: rate = n/span", rate, (double)n / span, 1e-3 * rate);
	CLOSE("poisson stream: rate within 4 SE of 500/s", rate, 500, 4 * sqrt(500 * T) / T);
	free(spec);

	/* bursts: Poisson(100/s) bursts of 8 allocations 10 us apart */
	n = 0;
	double b = gsl_ran_exponential(rng, 0.01);
	size_t nb = 0;
	while (b < T - 0.001 && n + 8 <= cap) {
		for (int k = 0; k < 8; k++)
			t[n++] = 1000 * (uint64_t)(b * 1e6) + 10000 * (uint64_t)k;
		nb++;
		b += gsl_ran_exponential(rng, 0.01);
	}
	qsort(t, n, sizeof(*t), cmp_u64);
	spec = fit_times(t, n, (uint64_t)(T * 1e9));
	p = spec ? strstr(spec, "arrival = burst ") : NULL;
	CHECK("burst stream: arrival = burst", p != NULL);
	if (p) {
		double brate = 0, gap = 0;
		unsigned size = 0;
		char unit[8] = "";
		if (sscanf(p, "arrival = burst %lf %u %lf%7s", &brate, &size, &gap, unit) != 4)
			size = 0;
		CHECK_EQ_U64("burst stream: size 8", size, 8);
		CLOSE("burst stream: burst rate within 4 SE of 100/s", brate, 100,
		      4 * sqrt(100 * T) / T);
		CHECK_EQ_STR("burst stream: gap unit", unit, "us");
		/* overlapping bursts shorten a few gaps: within 1 us */
		CLOSE("burst stream: gap 10 us", gap, 10.0, 1.0);
		printf("# %zu bursts drawn; %.*s\n", nb, (int)strcspn(p, "\n"), p);
	}
	free(spec);
	free(t);
}

/* The size line of a kmalloc site allocating the given sizes, with the
 * histogram capped at max_sizes. */
static void size_line(const uint64_t *sizes, size_t n, uint32_t max_sizes, char *out, size_t len)
{
	struct fit_opts o;
	struct fit *f;
	struct err e;
	out[0] = '\0';
	fit_opts_default(&o);
	o.max_sizes = max_sizes;
	if (fit_create(&o, &f, &e))
		return;
	for (size_t i = 0; i < n; i++) {
		struct trace_event ev = {.type = TRACE_EV_KMALLOC,
					 .t_ns = 1000 * (uint64_t)(i + 1),
					 .ptr = 0x1000 + 64 * (uint64_t)i,
					 .bytes_req = sizes[i],
					 .bytes_alloc = sizes[i],
					 .call_site = "s+0x1/0x2",
					 .node = -1,
					 .accounted = -1};
		(void)fit_event(f, &ev, &e);
	}
	char *buf = NULL;
	size_t blen = 0;
	FILE *m = open_memstream(&buf, &blen);
	if (m && fit_finish(f, &e) == 0)
		fit_write_spec(f, m, "test");
	if (m)
		fclose(m);
	const char *p = buf ? strstr(buf, "\nsize = ") : NULL;
	if (p) {
		size_t k = strcspn(p + 1, "\n");
		(void)snprintf(out, len, "%.*s", (int)k, p + 1);
	}
	free(buf);
	fit_destroy(f);
}

static void test_size_cap(void)
{
	char line[256];
	/* 60 x5, 64 x1, 65 x5, cap 2: the lightest, 64, merges into 60 (same
	 * kmalloc class 64), not into 65 (class 96) */
	uint64_t a[11] = {60, 60, 60, 60, 60, 64, 65, 65, 65, 65, 65};
	size_line(a, 11, 2, line, sizeof(line));
	CHECK_EQ_STR("size cap keeps the kmalloc class", line, "size = empirical 60:6,65:5");
	/* 90 x1, 96 x3, 100 x3, cap 2: 90 merges up into 96 (both class 96) */
	uint64_t b[7] = {90, 96, 96, 96, 100, 100, 100};
	size_line(b, 7, 2, line, sizeof(line));
	CHECK_EQ_STR("size cap merges up within a class", line, "size = empirical 96:4,100:3");
	/* 8 x2, 64 x1, 512 x2, cap 2: no neighbour shares 64's class: up */
	uint64_t c[5] = {8, 8, 64, 512, 512};
	size_line(c, 5, 2, line, sizeof(line));
	CHECK_EQ_STR("size cap without a same-class neighbour merges up", line,
		     "size = empirical 8:2,512:3");
	size_line(c, 5, 3, line, sizeof(line));
	CHECK_EQ_STR("under the cap: exact", line, "size = empirical 8:2,64:1,512:2");
}

int main(void)
{
	gsl_rng_env_setup();
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 42);
	test_exp_closed_form();
	test_exp_recovery(rng);
	test_lognormal_recovery(rng);
	test_cure_recovery(rng);
	test_fmt_time();
	test_size_cap();
	test_arrivals(rng);
	gsl_rng_free(rng);
	return check_done();
}
