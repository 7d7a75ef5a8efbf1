/* fit.c - fit a workload spec to a trace (see fit.h and docs/fit.md). */
#include "fit.h"

#include "strtab.h"
#include "trace.h"
#include "u64map.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_randist.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- lifetimes ---- */

static size_t life_bin(double t)
{
	double k = floor((log10(t) + 9.0) * FIT_LIFE_PER_DECADE);
	if (!(k > 0)) /* also NaN */
		return 0;
	if (k >= FIT_LIFE_BINS - 1)
		return FIT_LIFE_BINS - 1;
	return (size_t)k;
}

/* Upper edge of bin k in seconds (the last bin is open). */
static double life_edge(size_t k)
{
	return pow(10.0, (double)(k + 1) / FIT_LIFE_PER_DECADE - 9.0);
}

void fit_life_init(struct fit_life *l)
{
	memset(l, 0, sizeof(*l));
}

void fit_life_fini(struct fit_life *l)
{
	free(l->cens);
	fit_life_init(l);
}

void fit_life_event(struct fit_life *l, double t)
{
	double lt = log(t);
	l->events++;
	l->sum_t += t;
	l->sum_lt += lt;
	l->sum_lt2 += lt * lt;
	l->ev_bins[life_bin(t)]++;
}

int fit_life_censored(struct fit_life *l, double c)
{
	if (l->n_cens == l->cap_cens) {
		size_t ncap = l->cap_cens ? 2 * l->cap_cens : 8;
		double *p = realloc(l->cens, ncap * sizeof(*p));
		if (!p)
			return SLABSIM_ENOMEM;
		l->cens = p;
		l->cap_cens = ncap;
	}
	l->cens[l->n_cens++] = c;
	l->sum_cens += c;
	return 0;
}

int fit_life_merge(struct fit_life *dst, const struct fit_life *src)
{
	dst->events += src->events;
	dst->sum_t += src->sum_t;
	dst->sum_lt += src->sum_lt;
	dst->sum_lt2 += src->sum_lt2;
	for (size_t k = 0; k < FIT_LIFE_BINS; k++)
		dst->ev_bins[k] += src->ev_bins[k];
	for (size_t i = 0; i < src->n_cens; i++)
		if (fit_life_censored(dst, src->cens[i]))
			return SLABSIM_ENOMEM;
	return 0;
}

/* ln Q(z), Q the standard normal upper tail, without underflow: beyond
 * z = 30 the first term of the Mills ratio (relative error < 1/z^2). */
static double log_q(double z)
{
	if (z < 30.0)
		return log(gsl_cdf_gaussian_Q(z, 1.0));
	return -0.5 * z * z - log(z) - 0.5 * log(2.0 * M_PI);
}

/* The weight of censoring time i (1 unless compacted). */
#define CW(l, i) ((l)->cens_w ? (l)->cens_w[i] : 1.0)

/* Beyond FIT_CENS_EXACT censored objects the likelihoods use the censoring
 * times binned 1000 to a decade (each bin at the mean of its times, with their
 * count as weight: a relative error under 0.23% in a time), so that a fit
 * costs O(bins), not O(live set), per evaluation. */
#define FIT_CENS_EXACT	4096
#define CENS_PER_DECADE 1000

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* A copy of l whose censoring times are binned; *out shares nothing with l.
 * Returns 0 or SLABSIM_ENOMEM. */
static int compact_cens(const struct fit_life *l, struct fit_life *out)
{
	*out = *l;
	out->cens = malloc(l->n_cens * sizeof(double));
	out->cens_w = malloc(l->n_cens * sizeof(double));
	if (!out->cens || !out->cens_w) {
		free(out->cens);
		free(out->cens_w);
		return SLABSIM_ENOMEM;
	}
	memcpy(out->cens, l->cens, l->n_cens * sizeof(double));
	qsort(out->cens, l->n_cens, sizeof(double), cmp_double);
	size_t n = 0;
	for (size_t i = 0; i < l->n_cens;) {
		double k = floor(log10(out->cens[i]) * CENS_PER_DECADE), sum = 0;
		size_t j = i;
		while (j < l->n_cens && floor(log10(out->cens[j]) * CENS_PER_DECADE) == k)
			sum += out->cens[j++];
		out->cens[n] = sum / (double)(j - i);
		out->cens_w[n++] = (double)(j - i);
		i = j;
	}
	out->n_cens = n;
	return 0;
}

double fit_life_lognormal_ll(const struct fit_life *l, double mu, double sigma)
{
	double d = (double)l->events;
	/* Σ ln f(t) with f the lognormal density, from the sufficient statistics */
	double ss = l->sum_lt2 - 2.0 * mu * l->sum_lt + d * mu * mu;
	double ll = -l->sum_lt - d * log(sigma) - 0.5 * d * log(2.0 * M_PI) -
		    ss / (2.0 * sigma * sigma);
	for (size_t i = 0; i < l->n_cens; i++)
		ll += CW(l, i) * log_q((log(l->cens[i]) - mu) / sigma);
	return ll;
}

/* ln(p + (1 - p) S) without cancelling when p is tiny: S is given by its
 * log (ln Q or -c/mean). */
static double log_mix(double p, double log_s)
{
	double a = log(p), b = log1p(-p) + log_s;
	double m = a > b ? a : b;
	return m + log(exp(a - m) + exp(b - m));
}

double fit_life_exp_cure_ll(const struct fit_life *l, double mean, double p)
{
	double d = (double)l->events;
	double ll = d * log1p(-p) - d * log(mean) - l->sum_t / mean;
	for (size_t i = 0; i < l->n_cens; i++)
		ll += CW(l, i) * log_mix(p, -l->cens[i] / mean);
	return ll;
}

double fit_life_lognormal_cure_ll(const struct fit_life *l, double mu, double sigma, double p)
{
	struct fit_life ev = *l;
	ev.n_cens = 0; /* the events' part of the plain lognormal */
	ev.cens_w = NULL;
	double ll = (double)l->events * log1p(-p) + fit_life_lognormal_ll(&ev, mu, sigma);
	for (size_t i = 0; i < l->n_cens; i++)
		ll += CW(l, i) * log_mix(p, log_q((log(l->cens[i]) - mu) / sigma));
	return ll;
}

static double logistic(double x)
{
	return 1.0 / (1.0 + exp(-x));
}

/* logit p below this is p < 2e-9: as good as no immortal fraction, and a
 * wall keeps the simplex from walking to p = 0 for ever */
#define LOGIT_P_MIN (-20.0)

/* -logL of each family on unconstrained coordinates: sigma and the
 * exponential mean through exp(), the immortal fraction p through the
 * logistic function. */
static double neg(double ll)
{
	return isfinite(ll) ? -ll : GSL_POSINF;
}

static double ln_objective(const gsl_vector *x, void *p)
{
	double sigma = exp(gsl_vector_get(x, 1));
	if (!(sigma > 1e-9) || !isfinite(sigma))
		return GSL_POSINF;
	return neg(fit_life_lognormal_ll(p, gsl_vector_get(x, 0), sigma));
}

static double ec_objective(const gsl_vector *x, void *p)
{
	double mean = exp(gsl_vector_get(x, 0)), q = logistic(gsl_vector_get(x, 1));
	if (gsl_vector_get(x, 1) < LOGIT_P_MIN || !(mean > 0) || !isfinite(mean) || !(q > 0) ||
	    !(q < 1))
		return GSL_POSINF;
	return neg(fit_life_exp_cure_ll(p, mean, q));
}

static double lc_objective(const gsl_vector *x, void *p)
{
	double sigma = exp(gsl_vector_get(x, 1)), q = logistic(gsl_vector_get(x, 2));
	if (gsl_vector_get(x, 2) < LOGIT_P_MIN || !(sigma > 1e-9) || !isfinite(sigma) || !(q > 0) ||
	    !(q < 1))
		return GSL_POSINF;
	return neg(fit_life_lognormal_cure_ll(p, gsl_vector_get(x, 0), sigma, q));
}

/* Nelder-Mead (gsl_multimin nmsimplex2) from x0 with initial steps st, to a
 * simplex size of 1e-10. Returns the iterations, x0 holds the minimum; -1 if
 * GSL could not allocate. */
static int nm_minimise(double (*f)(const gsl_vector *, void *), void *params, size_t n, double *x0,
		       const double *st)
{
	gsl_multimin_fminimizer *m =
		gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, n);
	gsl_vector *x = gsl_vector_alloc(n), *step = gsl_vector_alloc(n);
	int it = -1;
	if (m && x && step) {
		for (size_t i = 0; i < n; i++) {
			gsl_vector_set(x, i, x0[i]);
			gsl_vector_set(step, i, st[i]);
		}
		gsl_multimin_function fn = {.f = f, .n = n, .params = params};
		gsl_multimin_fminimizer_set(m, &fn, x, step);
		int status = GSL_CONTINUE;
		it = 0;
		while (status == GSL_CONTINUE && it < 3000) {
			it++;
			if (gsl_multimin_fminimizer_iterate(m))
				break;
			status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), 1e-10);
		}
		for (size_t i = 0; i < n; i++)
			x0[i] = gsl_vector_get(m->x, i);
	}
	gsl_vector_free(x);
	gsl_vector_free(step);
	gsl_multimin_fminimizer_free(m);
	return it;
}

static double surv_fit(const struct fit_life_result *r, double t)
{
	double s0 = r->chosen == FIT_DIST_EXP
			    ? exp(-t / r->sel_mean)
			    : gsl_cdf_gaussian_Q(log(t) - r->sel_mu, r->sel_sigma);
	return r->sel_p + (1.0 - r->sel_p) * s0;
}

/* Kolmogorov-Smirnov distance between the Kaplan-Meier estimate and the
 * chosen fit, at the upper edges of the histogram bins. Censored times are
 * taken to fall after the events of their bin (still at risk for them). */
static double ks_km(const struct fit_life *l, const struct fit_life_result *r)
{
	uint64_t cbins[FIT_LIFE_BINS] = {0};
	for (size_t i = 0; i < l->n_cens; i++)
		cbins[life_bin(l->cens[i])]++;
	double at_risk = (double)(l->events + l->n_cens), s = 1.0, ks = 0.0;
	for (size_t k = 0; k + 1 < FIT_LIFE_BINS && at_risk > 0; k++) {
		if (l->ev_bins[k])
			s *= 1.0 - (double)l->ev_bins[k] / at_risk;
		double dist = fabs(s - surv_fit(r, life_edge(k)));
		if (dist > ks)
			ks = dist;
		at_risk -= (double)(l->ev_bins[k] + cbins[k]);
	}
	return ks;
}

static void estimate(const struct fit_life *l, bool cure, struct fit_life_result *r);

void fit_life_estimate(const struct fit_life *l, bool cure, struct fit_life_result *r)
{
	struct fit_life c;
	if (l->n_cens > FIT_CENS_EXACT && l->events && compact_cens(l, &c) == 0) {
		estimate(&c, cure, r);
		free(c.cens);
		free(c.cens_w);
	} else {
		estimate(l, cure, r);
	}
	r->censored = l->n_cens;
	r->ks = ks_km(l, r);
}

static void estimate(const struct fit_life *l, bool cure, struct fit_life_result *r)
{
	memset(r, 0, sizeof(*r));
	r->events = l->events;
	r->censored = l->n_cens;
	if (l->events == 0)
		return;
	double d = (double)l->events, best;
	/* exponential: d / λ = total time at risk */
	r->exp_mean = (l->sum_t + l->sum_cens) / d;
	r->exp_ll = -d * log(r->exp_mean) - d;
	r->exp_aic = 2.0 - 2.0 * r->exp_ll;
	r->chosen = FIT_DIST_EXP;
	r->sel_mean = r->exp_mean;
	best = r->exp_aic;

	/* lognormal: start from the moments of the observed ln t */
	double mu0 = l->sum_lt / d;
	double var0 = l->sum_lt2 / d - mu0 * mu0;
	double sd0 = var0 > 1e-6 ? sqrt(var0) : 1.0;
	if (var0 >= 1e-12 || l->n_cens) { /* else no spread: σ -> 0 */
		double x[2] = {mu0, log(sd0)}, st[2] = {sd0, 0.5};
		int it = nm_minimise(ln_objective, (void *)l, 2, x, st);
		double sigma = exp(x[1]), ll = fit_life_lognormal_ll(l, x[0], sigma);
		if (it >= 0 && isfinite(ll) && sigma > 1e-9) {
			r->ln_ok = true;
			r->ln_mu = x[0];
			r->ln_sigma = sigma;
			r->ln_ll = ll;
			r->ln_aic = 4.0 - 2.0 * ll;
			r->ln_iter = it;
			if (r->ln_aic < best) {
				best = r->ln_aic;
				r->chosen = FIT_DIST_LOGNORMAL;
				r->sel_mu = x[0];
				r->sel_sigma = sigma;
			}
		}
	}
	if (cure && l->n_cens) {
		/* with an immortal fraction p: start at half the censored share */
		double p0 = 0.5 * (double)l->n_cens / (d + (double)l->n_cens);
		double xe[2] = {log(l->sum_t / d), log(p0 / (1 - p0))}, se[2] = {1.0, 1.0};
		if (nm_minimise(ec_objective, (void *)l, 2, xe, se) >= 0) {
			double mean = exp(xe[0]), q = logistic(xe[1]);
			double ll = fit_life_exp_cure_ll(l, mean, q);
			if (isfinite(ll)) {
				r->ec_ok = true;
				r->ec_mean = mean;
				r->ec_p = q;
				r->ec_ll = ll;
				r->ec_aic = 4.0 - 2.0 * ll;
				if (r->ec_aic < best) {
					best = r->ec_aic;
					r->chosen = FIT_DIST_EXP;
					r->sel_mean = mean;
					r->sel_p = q;
				}
			}
		}
		double xl[3] = {mu0, log(sd0), log(p0 / (1 - p0))}, sl[3] = {sd0, 0.5, 1.0};
		if ((var0 >= 1e-12 || l->n_cens > 1) &&
		    nm_minimise(lc_objective, (void *)l, 3, xl, sl) >= 0) {
			double sigma = exp(xl[1]), q = logistic(xl[2]);
			double ll = fit_life_lognormal_cure_ll(l, xl[0], sigma, q);
			if (isfinite(ll) && sigma > 1e-9) {
				r->lc_ok = true;
				r->lc_mu = xl[0];
				r->lc_sigma = sigma;
				r->lc_p = q;
				r->lc_ll = ll;
				r->lc_aic = 6.0 - 2.0 * ll;
				if (r->lc_aic < best) {
					best = r->lc_aic;
					r->chosen = FIT_DIST_LOGNORMAL;
					r->sel_mu = xl[0];
					r->sel_sigma = sigma;
					r->sel_p = q;
				}
			}
		}
	}
}

/* ---- formatting ---- */

/* v with about sig significant digits, fixed notation (no exponent). */
static void fmt_num(double v, int sig, char *buf, size_t n)
{
	int dec = 0;
	if (v > 0) {
		int mag = (int)floor(log10(v)) + 1;
		dec = sig - mag;
		if (dec < 0)
			dec = 0;
		if (dec > 12)
			dec = 12;
	}
	(void)snprintf(buf, n, "%.*f", dec, v);
	/* trim trailing zeros of a fraction */
	if (strchr(buf, '.')) {
		char *p = buf + strlen(buf) - 1;
		while (*p == '0')
			*p-- = '\0';
		if (*p == '.')
			*p = '\0';
	}
}

void fit_fmt_time(double s, char *buf, size_t n)
{
	/* whole ns (the spec's times are exact decimal ns), 6 significant digits */
	static const struct {
		const char *unit;
		uint64_t div;
		int dec;
	} units[] = {{"ns", 1, 0}, {"us", 1000, 3}, {"ms", 1000000, 6}, {"s", 1000000000, 9}};
	double x = s * 1e9;
	uint64_t t = x < 1.0 ? 1 : x > 9e18 ? (uint64_t)9e18 : (uint64_t)llround(x);
	uint64_t p = 1;
	while (t / p >= 1000000)
		p *= 10;
	t = (t + p / 2) / p * p;
	size_t u = 0;
	while (u + 1 < sizeof(units) / sizeof(units[0]) && t >= units[u + 1].div)
		u++;
	uint64_t whole = t / units[u].div, frac = t % units[u].div;
	int dec = units[u].dec;
	while (dec > 0 && frac % 10 == 0) {
		frac /= 10;
		dec--;
	}
	if (dec)
		(void)snprintf(buf, n, "%" PRIu64 ".%0*" PRIu64 "%s", whole, dec, frac,
			       units[u].unit);
	else
		(void)snprintf(buf, n, "%" PRIu64 "%s", whole, units[u].unit);
}

/* ---- accumulators ---- */

#define GAP_PER_DECADE 10
#define GAP_BINS       (16 * GAP_PER_DECADE)

enum { ACC_KMALLOC = 0, ACC_CACHE = 1 };

struct cpu_count {
	uint32_t cpu;
	uint64_t n;
};

/* What one fine key (site/target/geometry) accumulates. */
struct acc {
	uint8_t kind, gfp;  /* gfp: 0 kernel, 1 reclaimable, 2 dma, 3 account */
	uint32_t req, slot; /* cache: the geometry; kmalloc by cache: slot */
	uint32_t site;	    /* strtab id in sites */
	uint32_t name;	    /* learned cache name id + 1 (0: none) */
	uint64_t allocs, first_t, last_t, zero_life;
	struct u64map sizes; /* bytes_req -> count */
	/* allocations per CPU, sorted by CPU: only the CPUs seen, so memory
	 * follows them, not the highest CPU number */
	struct cpu_count *cpu;
	uint32_t ncpu, cap_cpu;
	bool gaps_ok; /* gap statistics are of this stream's own arrivals */
	uint64_t ngaps;
	double gsum, gsum2;
	uint64_t gbin_n[GAP_BINS];
	double gbin_s[GAP_BINS];
	struct fit_life life;
};

static const char *const gfp_names[] = {"kernel", "reclaimable", "dma", "account"};

struct live {
	uint64_t t;
	uint32_t acc;
};

enum lt_rule { LT_FIT = 0, LT_POOLED, LT_FOREVER };

struct stream {
	char *name;
	struct acc a;	  /* merged */
	uint32_t rep;	  /* first fine acc: target and site label */
	uint32_t nfine;	  /* fine accs merged in */
	int32_t cache;	  /* index in caches (cache targets), else -1 */
	uint32_t nsizes0; /* distinct sizes before the cap */
	uint64_t *size_v, *size_w;
	uint32_t nsizes;
	struct fit_life_result lr;
	enum lt_rule rule;
	double cv;
	bool burst;
	bool periodic;	 /* too few allocations for a process: every span/N */
	double rate;	 /* poisson: allocations/s; burst: bursts/s */
	uint64_t bsize;	 /* burst size */
	double bgap;	 /* seconds between allocations of a burst */
	uint64_t bursts; /* bursts found */
	bool folded;	 /* "other-" stream of small ones */
};

struct cache {
	uint32_t name; /* strtab id in f->names */
	uint32_t req, slot;
	bool geom_ok;
	struct fit_cache_geom g;
	uint64_t allocs;
	uint32_t conflicts; /* fine accs of other geometries mapped to this name */
};

struct fit {
	struct fit_opts o;
	struct strtab sites, names, keys;
	struct acc *accs;
	uint32_t nacc, cap_acc;
	struct u64map live; /* ptr -> index in pool */
	struct live *pool;
	uint32_t npool, cap_pool;
	uint32_t *free_slots;
	uint32_t nfree, cap_free;
	struct fit_counts c;
	uint32_t max_cpu;
	bool any_event;
	/* after fit_finish */
	struct stream *streams;
	uint32_t nstreams;
	struct cache *caches;
	uint32_t ncaches;
	struct fit_life pooled;
	struct fit_life_result pooled_r;
	double span;
};

void fit_opts_default(struct fit_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->by = FIT_BY_SITE;
	o->min_allocs = 1;
	o->max_sizes = 64;
	o->min_pairs = 5;
	o->periodic_below = 10;
	o->name = "fitted";
}

int fit_create(const struct fit_opts *o, struct fit **out, struct err *e)
{
	struct fit *f = calloc(1, sizeof(*f));
	if (!f)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	f->o = *o;
	strtab_init(&f->sites);
	strtab_init(&f->names);
	strtab_init(&f->keys);
	u64map_init(&f->live);
	fit_life_init(&f->pooled);
	*out = f;
	return 0;
}

static void acc_fini(struct acc *a)
{
	u64map_fini(&a->sizes);
	free(a->cpu);
	fit_life_fini(&a->life);
}

void fit_destroy(struct fit *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nacc; i++)
		acc_fini(&f->accs[i]);
	for (uint32_t i = 0; i < f->nstreams; i++) {
		acc_fini(&f->streams[i].a);
		free(f->streams[i].name);
		free(f->streams[i].size_v);
		free(f->streams[i].size_w);
	}
	free(f->streams);
	free(f->caches);
	free(f->accs);
	free(f->pool);
	free(f->free_slots);
	u64map_fini(&f->live);
	strtab_fini(&f->sites);
	strtab_fini(&f->names);
	strtab_fini(&f->keys);
	fit_life_fini(&f->pooled);
	free(f);
}

const struct fit_counts *fit_counts(const struct fit *f)
{
	return &f->c;
}

static uint8_t gfp_type(const struct trace_event *ev)
{
	/* the kernel's kmalloc_type() order: DMA, reclaimable, then accounted */
	if (ev->gfp & TRACE_GFP_DMA)
		return 2;
	if (ev->gfp & TRACE_GFP_RECLAIMABLE)
		return 1;
	if ((ev->gfp & TRACE_GFP_ACCOUNT) || ev->accounted == 1)
		return 3;
	return 0;
}

static size_t gap_bin(double g)
{
	double k = floor((log10(g) + 9.0) * GAP_PER_DECADE);
	if (!(k > 0))
		return 0;
	if (k >= GAP_BINS - 1)
		return GAP_BINS - 1;
	return (size_t)k;
}

static double gap_edge(size_t k)
{
	return pow(10.0, (double)(k + 1) / GAP_PER_DECADE - 9.0);
}

/* A doubled capacity for an array indexed by uint32_t; false past 2^31
 * entries (more than any trace holds in memory: the caller says ENOMEM). */
static bool grow_cap(uint32_t cap, uint32_t first, uint32_t *ncap)
{
	if (cap > UINT32_MAX / 2)
		return false;
	*ncap = cap ? 2 * cap : first;
	return true;
}

/* a->cpu[cpu] += w, keeping the array sorted (a stream sees few CPUs;
 * binary search, then an insertion). */
static int count_add(struct acc *a, uint32_t cpu, uint64_t w)
{
	uint32_t lo = 0, hi = a->ncpu;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (a->cpu[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < a->ncpu && a->cpu[lo].cpu == cpu) {
		a->cpu[lo].n += w;
		return 0;
	}
	if (a->ncpu == a->cap_cpu) {
		uint32_t ncap;
		if (!grow_cap(a->cap_cpu, 4, &ncap))
			return SLABSIM_ENOMEM;
		struct cpu_count *p = realloc(a->cpu, (size_t)ncap * sizeof(*p));
		if (!p)
			return SLABSIM_ENOMEM;
		a->cpu = p;
		a->cap_cpu = ncap;
	}
	memmove(a->cpu + lo + 1, a->cpu + lo, (size_t)(a->ncpu - lo) * sizeof(*a->cpu));
	a->cpu[lo] = (struct cpu_count){.cpu = cpu, .n = w};
	a->ncpu++;
	return 0;
}

static int size_add(struct u64map *m, uint64_t size, uint64_t w)
{
	uint64_t *v = u64map_ref(m, size);
	if (v) {
		*v += w;
		return 0;
	}
	return u64map_put(m, size, w);
}

/* The fine key of an allocation: the stream it belongs to before merging. */
static int acc_for(struct fit *f, const struct trace_event *ev, uint32_t *id)
{
	char key[512];
	bool cache = ev->type == TRACE_EV_CACHE_ALLOC || ev->type == TRACE_EV_CACHE_ALLOC_NODE;
	uint8_t gfp = cache ? 0 : gfp_type(ev);
	const char *site = ev->call_site ? ev->call_site : "";
	if (cache)
		(void)snprintf(key, sizeof(key), "c %" PRIu64 " %" PRIu64 " %s", ev->bytes_req,
			       ev->bytes_alloc, site);
	else if (f->o.by == FIT_BY_CACHE)
		(void)snprintf(key, sizeof(key), "K %u %" PRIu64, gfp, ev->bytes_alloc);
	else
		(void)snprintf(key, sizeof(key), "k %u %s", gfp, site);
	uint32_t k;
	if (strtab_find(&f->keys, key, &k)) {
		*id = k;
		return 0;
	}
	if (strtab_intern(&f->keys, key, &k))
		return SLABSIM_ENOMEM;
	if (f->nacc == f->cap_acc) {
		uint32_t ncap;
		struct acc *p = NULL;
		if (grow_cap(f->cap_acc, 64, &ncap))
			p = realloc(f->accs, (size_t)ncap * sizeof(*p));
		if (!p)
			return SLABSIM_ENOMEM;
		f->accs = p;
		f->cap_acc = ncap;
	}
	struct acc *a = &f->accs[f->nacc];
	memset(a, 0, sizeof(*a));
	u64map_init(&a->sizes);
	fit_life_init(&a->life);
	a->kind = cache ? ACC_CACHE : ACC_KMALLOC;
	a->gfp = gfp;
	a->gaps_ok = true;
	if (cache || f->o.by == FIT_BY_CACHE) {
		a->req = cache ? (uint32_t)ev->bytes_req : 0;
		a->slot = (uint32_t)ev->bytes_alloc;
	}
	if (strtab_intern(&f->sites, site, &a->site))
		return SLABSIM_ENOMEM;
	*id = f->nacc++;
	return 0;
}

static int live_add(struct fit *f, uint64_t ptr, uint64_t t, uint32_t acc)
{
	uint32_t slot;
	if (f->nfree) {
		slot = f->free_slots[--f->nfree];
	} else {
		if (f->npool == f->cap_pool) {
			uint32_t ncap;
			struct live *p = NULL;
			if (grow_cap(f->cap_pool, 1024, &ncap))
				p = realloc(f->pool, (size_t)ncap * sizeof(*p));
			if (!p)
				return SLABSIM_ENOMEM;
			f->pool = p;
			f->cap_pool = ncap;
		}
		slot = f->npool++;
	}
	f->pool[slot] = (struct live){.t = t, .acc = acc};
	return u64map_put(&f->live, ptr, slot);
}

static int live_release(struct fit *f, uint32_t slot)
{
	if (f->nfree == f->cap_free) {
		uint32_t ncap;
		uint32_t *p = NULL;
		if (grow_cap(f->cap_free, 1024, &ncap))
			p = realloc(f->free_slots, (size_t)ncap * sizeof(*p));
		if (!p)
			return SLABSIM_ENOMEM;
		f->free_slots = p;
		f->cap_free = ncap;
	}
	f->free_slots[f->nfree++] = slot;
	return 0;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static int on_alloc(struct fit *f, const struct trace_event *ev)
{
	uint32_t id;
	if (!ev->ptr) {
		f->c.alloc_null++;
		return 0;
	}
	if (ev->bytes_req == 0 || ev->bytes_req > FIT_SIZE_MAX || ev->bytes_alloc > FIT_SIZE_MAX) {
		f->c.alloc_bad_size++; /* sizes the spec cannot state */
		return 0;
	}
	if (acc_for(f, ev, &id))
		return SLABSIM_ENOMEM;
	struct acc *a = &f->accs[id];
	f->c.allocs++;
	if (a->allocs) {
		double g = (double)(ev->t_ns - a->last_t) * 1e-9;
		if (ev->t_ns < a->last_t)
			g = 0;
		a->ngaps++;
		a->gsum += g;
		a->gsum2 += g * g;
		size_t k = g > 0 ? gap_bin(g) : 0;
		a->gbin_n[k]++;
		a->gbin_s[k] += g;
	} else {
		a->first_t = ev->t_ns;
	}
	a->allocs++;
	a->last_t = ev->t_ns;
	if (ev->cpu > f->max_cpu)
		f->max_cpu = ev->cpu;
	if (size_add(&a->sizes, ev->bytes_req, 1) || count_add(a, ev->cpu, 1))
		return SLABSIM_ENOMEM;
	uint64_t old;
	if (u64map_del(&f->live, ev->ptr, &old)) {
		/* a missed free (lost event): its lifetime is unknown, drop it */
		f->c.alloc_live++;
		if (live_release(f, (uint32_t)old))
			return SLABSIM_ENOMEM;
	}
	return live_add(f, ev->ptr, ev->t_ns, id);
}

static int on_free(struct fit *f, const struct trace_event *ev)
{
	uint64_t slot;
	f->c.frees++;
	if (!ev->ptr) {
		f->c.free_null++;
		return 0;
	}
	if (!u64map_del(&f->live, ev->ptr, &slot)) {
		f->c.free_unknown++;
		return 0;
	}
	struct live *lv = &f->pool[slot];
	struct acc *a = &f->accs[lv->acc];
	if (ev->name && a->kind == ACC_CACHE && !a->name) {
		uint32_t nid;
		if (strtab_intern(&f->names, ev->name, &nid))
			return SLABSIM_ENOMEM;
		a->name = nid + 1; /* the first name wins, as in the replay */
	}
	f->c.pairs++;
	if (ev->t_ns > lv->t) {
		fit_life_event(&a->life, (double)(ev->t_ns - lv->t) * 1e-9);
	} else {
		/* below the timestamp resolution: floored in fit_finish */
		if (ev->t_ns < lv->t)
			f->c.time_backwards++;
		a->zero_life++;
	}
	return live_release(f, (uint32_t)slot);
}

int fit_event(struct fit *f, const struct trace_event *ev, struct err *e)
{
	int rc = 0;
	if (ev->type >= TRACE_EV_MARKER) /* a marker, the page allocator's */
		return 0;
	/* a CPU no spec can name (and no kernel has): refused rather than
	 * folded, which would put another CPU's share in the mix */
	if (ev->cpu > FIT_CPU_MAX)
		return err_at(e, SLABSIM_EINPUT, f->o.source, ev->line,
			      "expected a CPU from 0 to %u (a workload's cpus is at most %u), "
			      "got %" PRIu32,
			      FIT_CPU_MAX, FIT_CPU_MAX + 1, ev->cpu);
	if (!f->any_event) {
		f->c.first_ns = ev->t_ns;
		f->any_event = true;
	}
	if (ev->t_ns > f->c.last_ns)
		f->c.last_ns = ev->t_ns;
	f->c.resolution_ns = gcd64(f->c.resolution_ns, ev->t_ns);
	switch (ev->type) {
	case TRACE_EV_KMALLOC:
	case TRACE_EV_KMALLOC_NODE:
	case TRACE_EV_CACHE_ALLOC:
	case TRACE_EV_CACHE_ALLOC_NODE:
		rc = on_alloc(f, ev);
		break;
	case TRACE_EV_KFREE:
	case TRACE_EV_CACHE_FREE:
		rc = on_free(f, ev);
		break;
	default:
		break;
	}
	return rc ? err_set(e, rc, "out of memory") : 0;
}

/* ---- building the streams ---- */

static int acc_merge(struct acc *dst, const struct acc *src)
{
	size_t pos = 0;
	uint64_t k, v;
	while (u64map_next(&src->sizes, &pos, &k, &v))
		if (size_add(&dst->sizes, k, v))
			return SLABSIM_ENOMEM;
	for (uint32_t i = 0; i < src->ncpu; i++)
		if (count_add(dst, src->cpu[i].cpu, src->cpu[i].n))
			return SLABSIM_ENOMEM;
	if (!dst->allocs || src->first_t < dst->first_t)
		dst->first_t = src->first_t;
	if (src->last_t > dst->last_t)
		dst->last_t = src->last_t;
	/* the gaps of two streams do not add up to the gaps of their union */
	if (dst->allocs) {
		dst->gaps_ok = false;
	} else {
		dst->gaps_ok = src->gaps_ok;
		dst->ngaps = src->ngaps;
		dst->gsum = src->gsum;
		dst->gsum2 = src->gsum2;
		memcpy(dst->gbin_n, src->gbin_n, sizeof(dst->gbin_n));
		memcpy(dst->gbin_s, src->gbin_s, sizeof(dst->gbin_s));
	}
	dst->allocs += src->allocs;
	dst->zero_life += src->zero_life;
	return fit_life_merge(&dst->life, &src->life);
}

static void sanitize(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_.+-", *s)))
			*s = '_';
}

/* The cache name of a cache acc: learned from kmem_cache_free, or made from
 * its geometry as the replay does (without the leading ':'). */
/* A spec's names (workload, cache, stream) are one word of printable ASCII
 * without [ ] = , # ; (workload.c valid_name). */
static bool name_char_ok(char c)
{
	unsigned char u = (unsigned char)c;
	return u > ' ' && u < 127 && !strchr("[]=,#;", c);
}

bool fit_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!name_char_ok(*s))
			return false;
	return true;
}

void fit_name_word(char *s)
{
	for (; *s; s++)
		if (!name_char_ok(*s))
			*s = '_';
}

static void acc_cache_name(const struct fit *f, const struct acc *a, char *buf, size_t n)
{
	/* an empty name= (a cut line) names nothing: the geometry does */
	if (a->name && *strtab_str(&f->names, a->name - 1))
		(void)snprintf(buf, n, "%s", strtab_str(&f->names, a->name - 1));
	else
		(void)snprintf(buf, n, "unnamed-%u-%u", a->req, a->slot);
	fit_name_word(buf);
}

static void kmalloc_cache_name(uint8_t gfp, uint32_t slot, char *buf, size_t n)
{
	static const char *const pfx[] = {"kmalloc-", "kmalloc-rcl-", "dma-kmalloc-",
					  "kmalloc-cg-"};
	if (slot > 8192)
		(void)snprintf(buf, n, "%slarge-%u", pfx[gfp], slot);
	else if (slot >= 1024 && slot % 1024 == 0)
		(void)snprintf(buf, n, "%s%uk", pfx[gfp], slot / 1024);
	else
		(void)snprintf(buf, n, "%s%u", pfx[gfp], slot);
}

/* The merge key of a fine acc: its stream (before folding small ones). */
static void stream_key(const struct fit *f, uint32_t i, char *buf, size_t n)
{
	const struct acc *a = &f->accs[i];
	if (f->o.by == FIT_BY_SITE || a->kind == ACC_KMALLOC) {
		(void)snprintf(buf, n, "#%u", i); /* its own stream */
		return;
	}
	char name[256];
	acc_cache_name(f, a, name, sizeof(name));
	(void)snprintf(buf, n, "c %s", name);
}

/* The fold key of a stream: its target. */
static void target_key(const struct fit *f, const struct stream *s, char *buf, size_t n)
{
	const struct acc *a = &f->accs[s->rep];
	if (a->kind == ACC_KMALLOC) {
		(void)snprintf(buf, n, "kmalloc-%s", gfp_names[a->gfp]);
	} else {
		char name[256];
		acc_cache_name(f, a, name, sizeof(name));
		(void)snprintf(buf, n, "%s", name);
	}
}

static int stream_new(struct fit *f, uint32_t rep, uint32_t *idx)
{
	struct stream *p = realloc(f->streams, (f->nstreams + 1) * sizeof(*p));
	if (!p)
		return SLABSIM_ENOMEM;
	f->streams = p;
	struct stream *s = &p[f->nstreams];
	memset(s, 0, sizeof(*s));
	u64map_init(&s->a.sizes);
	fit_life_init(&s->a.life);
	s->rep = rep;
	s->cache = -1;
	s->a.kind = f->accs[rep].kind;
	s->a.gfp = f->accs[rep].gfp;
	s->a.site = f->accs[rep].site;
	*idx = f->nstreams++;
	return 0;
}

static void stream_free(struct stream *s)
{
	acc_fini(&s->a);
	free(s->name);
	free(s->size_v);
	free(s->size_w);
}

/* Group the fine accs into streams; fold the small ones per target. */
static int build_streams(struct fit *f)
{
	struct strtab keys;
	struct u64map of; /* key id -> stream index */
	char key[512];
	int rc = SLABSIM_ENOMEM;
	strtab_init(&keys);
	u64map_init(&of);
	for (uint32_t i = 0; i < f->nacc; i++) {
		uint32_t kid, si;
		uint64_t v;
		stream_key(f, i, key, sizeof(key));
		if (strtab_intern(&keys, key, &kid))
			goto out;
		if (u64map_get(&of, kid, &v)) {
			si = (uint32_t)v;
		} else {
			if (stream_new(f, i, &si) || u64map_put(&of, kid, si))
				goto out;
		}
		f->streams[si].nfine++;
		if (acc_merge(&f->streams[si].a, &f->accs[i]))
			goto out;
	}
	if (f->o.min_allocs > 1) {
		/* fold: every stream under min_allocs joins the first small one of
		 * its target, unless it is alone there */
		struct strtab tk;
		struct u64map first, nsmall;
		strtab_init(&tk);
		u64map_init(&first);
		u64map_init(&nsmall);
		uint32_t *tid = calloc(f->nstreams ? f->nstreams : 1, sizeof(*tid));
		int frc = tid ? 0 : SLABSIM_ENOMEM;
		for (uint32_t i = 0; !frc && i < f->nstreams; i++) {
			if (f->streams[i].a.allocs >= f->o.min_allocs)
				continue;
			target_key(f, &f->streams[i], key, sizeof(key));
			uint64_t *n;
			if (strtab_intern(&tk, key, &tid[i]))
				frc = SLABSIM_ENOMEM;
			else if ((n = u64map_ref(&nsmall, tid[i])))
				(*n)++;
			else if (u64map_put(&nsmall, tid[i], 1) || u64map_put(&first, tid[i], i))
				frc = SLABSIM_ENOMEM;
		}
		uint32_t w = 0;
		for (uint32_t i = 0; !frc && i < f->nstreams; i++) {
			struct stream *s = &f->streams[i];
			uint64_t n = 0, fi = 0;
			if (s->a.allocs >= f->o.min_allocs ||
			    (u64map_get(&nsmall, tid[i], &n), n < 2)) {
				f->streams[w++] = *s;
				continue;
			}
			u64map_get(&first, tid[i], &fi);
			if (fi == i) {
				s->folded = true;
				f->c.folded++;
				f->streams[w++] = *s;
				/* the later ones merge into it at its new place */
				u64map_put(&first, tid[i], w - 1);
				continue;
			}
			struct stream *d = &f->streams[fi];
			d->nfine += s->nfine;
			f->c.folded++;
			if (acc_merge(&d->a, &s->a))
				frc = SLABSIM_ENOMEM;
			stream_free(s);
		}
		if (!frc)
			f->nstreams = w;
		free(tid);
		strtab_fini(&tk);
		u64map_fini(&first);
		u64map_fini(&nsmall);
		if (frc)
			goto out;
	}
	rc = 0;
out:
	strtab_fini(&keys);
	u64map_fini(&of);
	return rc;
}

/* The [cache] sections: one per name, geometry of the first acc seen. */
static int build_caches(struct fit *f)
{
	char name[256];
	for (uint32_t i = 0; i < f->nstreams; i++) {
		struct stream *s = &f->streams[i];
		const struct acc *a = &f->accs[s->rep];
		if (a->kind != ACC_CACHE)
			continue;
		acc_cache_name(f, a, name, sizeof(name));
		uint32_t nid;
		if (strtab_intern(&f->names, name, &nid))
			return SLABSIM_ENOMEM;
		int32_t c = -1;
		for (uint32_t k = 0; k < f->ncaches; k++)
			if (f->caches[k].name == nid)
				c = (int32_t)k;
		if (c < 0) {
			struct cache *p = realloc(f->caches, (f->ncaches + 1) * sizeof(*p));
			if (!p)
				return SLABSIM_ENOMEM;
			f->caches = p;
			struct cache *nc = &p[f->ncaches];
			memset(nc, 0, sizeof(*nc));
			nc->name = nid;
			nc->req = a->req;
			nc->slot = a->slot;
			if (f->o.infer)
				nc->geom_ok = f->o.infer(f->o.infer_ctx, a->req, a->slot, &nc->g);
			c = (int32_t)f->ncaches++;
		} else if (f->caches[c].req != a->req || f->caches[c].slot != a->slot) {
			f->caches[c].conflicts++;
		}
		s->cache = c;
		f->caches[c].allocs += s->a.allocs;
	}
	f->c.caches = f->ncaches;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The kmalloc size class of a request (x86-64: 96 and 192 exist). */
static uint64_t kclass(uint64_t size)
{
	static const uint64_t small[] = {8, 16, 32, 64, 96, 128, 192};
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
		if (size <= small[i])
			return small[i];
	uint64_t c = 256;
	while (c < size)
		c <<= 1;
	return c;
}

/* Merge the sorted (size, count) pairs with equal sizes; returns the new n. */
static size_t merge_equal(uint64_t *pairs, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (w && pairs[2 * (w - 1)] == pairs[2 * i]) {
			pairs[2 * (w - 1) + 1] += pairs[2 * i + 1];
		} else {
			pairs[2 * w] = pairs[2 * i];
			pairs[2 * w + 1] = pairs[2 * i + 1];
			w++;
		}
	}
	return w;
}

/* Sorted size histogram, capped at max_sizes entries, keeping every
 * allocation in its kmalloc size class whenever possible: the size with the
 * smallest count merges into its larger neighbour if that is in the same
 * class, else into its smaller one if that is, else into the larger one (the
 * largest size: into the smaller one). Above 4096 distinct sizes they are
 * first rounded up to multiples of 8, 16, 32, ... bytes, never past their
 * class, so that the merging loop stays quadratic in 4096 at most. */
static int build_sizes(struct fit *f, struct stream *s)
{
	size_t n = u64map_len(&s->a.sizes), pos = 0, i = 0;
	uint64_t k, v;
	uint64_t *pairs = malloc((n ? n : 1) * 2 * sizeof(*pairs));
	if (!pairs)
		return SLABSIM_ENOMEM;
	while (u64map_next(&s->a.sizes, &pos, &k, &v)) {
		pairs[2 * i] = k;
		pairs[2 * i + 1] = v;
		i++;
	}
	qsort(pairs, n, 2 * sizeof(*pairs), cmp_u64);
	s->nsizes0 = (uint32_t)n;
	uint32_t cap = f->o.max_sizes ? f->o.max_sizes : 1;
	for (uint64_t g = 8; n > 4096 && n > cap && g <= (1u << 22); g *= 2) {
		for (size_t j = 0; j < n; j++) {
			uint64_t z = pairs[2 * j], c = kclass(z), r = (z + g - 1) / g * g;
			pairs[2 * j] = r < c ? r : c > z ? c : z;
		}
		n = merge_equal(pairs, n); /* rounding up keeps the order */
	}
	while (n > cap) {
		size_t lo = 0;
		for (size_t j = 1; j < n; j++)
			if (pairs[2 * j + 1] < pairs[2 * lo + 1])
				lo = j;
		uint64_t c = kclass(pairs[2 * lo]);
		size_t into;
		if (lo + 1 < n && kclass(pairs[2 * lo + 2]) == c)
			into = lo + 1;
		else if (lo > 0 && kclass(pairs[2 * lo - 2]) == c)
			into = lo - 1;
		else
			into = lo + 1 < n ? lo + 1 : lo - 1;
		pairs[2 * into + 1] += pairs[2 * lo + 1];
		memmove(&pairs[2 * lo], &pairs[2 * lo + 2], (n - lo - 1) * 2 * sizeof(*pairs));
		n--;
	}
	s->size_v = malloc((n ? n : 1) * sizeof(uint64_t));
	s->size_w = malloc((n ? n : 1) * sizeof(uint64_t));
	if (!s->size_v || !s->size_w) {
		free(pairs);
		return SLABSIM_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		s->size_v[i] = pairs[2 * i];
		s->size_w[i] = pairs[2 * i + 1];
	}
	s->nsizes = (uint32_t)n;
	free(pairs);
	return 0;
}

/* Arrivals: Poisson unless the inter-arrival times are clearly more variable
 * than exponential ones. For exponential gaps the sample coefficient of
 * variation has mean 1 and, by the delta method, variance 1/n (Var s^2 = 8/n,
 * Var m = 1/n, Cov(m, s^2) = 2/n at mean 1), so CV > 1 + 4/sqrt(n) with
 * n >= 10 gaps is "clearly bursty". Bursts are then the runs of gaps shorter
 * than the mean gap: in a bursty stream the long gaps between bursts are rare
 * and far above the mean. */
static void build_arrival(struct fit *f, struct stream *s)
{
	const struct acc *a = &s->a;
	s->rate = (double)a->allocs / f->span;
	s->cv = 0;
	if (!a->gaps_ok || a->ngaps < 2)
		return;
	double n = (double)a->ngaps, m = a->gsum / n;
	double var = a->gsum2 / n - m * m;
	if (m <= 0)
		return;
	s->cv = var > 0 ? sqrt(var) / m : 0;
	if (a->ngaps < 10 || s->cv <= 1.0 + 4.0 / sqrt(n))
		return;
	double theta = m, within_s = 0;
	uint64_t within_n = 0;
	size_t k = 0;
	for (; k < GAP_BINS && gap_edge(k) <= m; k++) {
		within_n += a->gbin_n[k];
		within_s += a->gbin_s[k];
	}
	theta = k ? gap_edge(k - 1) : 0; /* the split falls on a bin edge */
	/* Some gaps between bursts are shorter than theta too. Between-burst
	 * gaps are exponential (Poisson bursts) with a mean mb that the long
	 * gaps estimate without bias (memoryless: their excess over theta has
	 * mean mb); a fraction 1 - exp(-theta/mb) of them fell under theta, and
	 * those have mean mb - theta / (exp(theta/mb) - 1): take them back. */
	double longs = (double)(a->ngaps - within_n), long_s = a->gsum - within_s;
	double bursts = 1.0, within = (double)within_n;
	if (longs > 0) {
		double mb = long_s / longs - theta;
		double q = mb > 0 ? exp(fmin(theta / mb, 50.0)) : 1.0;
		double mis = longs * (q - 1.0);
		bursts = 1.0 + longs * q;
		if (mis > 0) {
			within -= mis;
			within_s -= mis * (mb - theta / (q - 1.0));
		}
	}
	uint64_t size = (uint64_t)llround((double)a->allocs / bursts);
	if (size < 2 || size > UINT32_MAX || within < 1.0 || within_s <= 0)
		return;
	double floor_s = (double)f->c.resolution_ns * 0.5e-9;
	double bgap = within_s / within;
	if (bgap < floor_s)
		bgap = floor_s;
	/* A spec refuses bursts that cannot keep up, allocations/s x GAP >=
	 * 1, and more than 1e9 allocations/s (workload.c): judged with GAP as
	 * written (whole ns, at most 6 digits rounded up) and RATE rounded up
	 * to 6 digits; such a stream stays Poisson (found by fuzz_fit). */
	double per_s = s->rate * (1.0 + 1e-5);
	if (per_s > 1e9 || per_s * fmax(1.0, ceil(bgap * 1e9)) * (1.0 + 1e-5) * 1e-9 >= 1.0)
		return;
	s->burst = true;
	s->bursts = (uint64_t)llround(bursts);
	s->bsize = size;
	s->bgap = bgap;
	/* keep the allocation rate: bursts/s x size = allocations/s */
	s->rate = (double)a->allocs / ((double)size * f->span);
}

int fit_finish(struct fit *f, struct err *e)
{
	if (!f->c.allocs)
		return err_at(e, SLABSIM_EINPUT, f->o.source, 0,
			      "expected allocation events, found none");
	if (f->c.last_ns <= f->c.first_ns)
		return err_at(e, SLABSIM_EINPUT, f->o.source, 0,
			      "expected a trace spanning some time, all events at %" PRIu64 " ns",
			      f->c.first_ns);
	f->span = (double)(f->c.last_ns - f->c.first_ns) * 1e-9;
	if (!f->c.resolution_ns)
		f->c.resolution_ns = 1;
	double floor_s = (double)f->c.resolution_ns * 0.5e-9;
	/* lifetimes under the resolution, then the live set as censored */
	for (uint32_t i = 0; i < f->nacc; i++)
		for (uint64_t z = 0; z < f->accs[i].zero_life; z++)
			fit_life_event(&f->accs[i].life, floor_s);
	size_t pos = 0;
	uint64_t ptr, slot;
	while (u64map_next(&f->live, &pos, &ptr, &slot)) {
		const struct live *lv = &f->pool[slot];
		double c = (double)(f->c.last_ns - lv->t) * 1e-9;
		if (fit_life_censored(&f->accs[lv->acc].life, c > floor_s ? c : floor_s))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		f->c.censored++;
	}
	/* the pooled lifetimes: of the objects of sites that free (the others
	 * are `forever`), without an immortal fraction (a site's own) */
	for (uint32_t i = 0; i < f->nacc; i++)
		if (f->accs[i].life.events && fit_life_merge(&f->pooled, &f->accs[i].life))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
	fit_life_estimate(&f->pooled, false, &f->pooled_r);
	if (build_streams(f) || build_caches(f))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	f->c.streams = f->nstreams;
	/* a spec's arrival rates are at most 1e9 a second (workload.c) */
	for (uint32_t i = 0; i < f->nstreams; i++)
		if ((double)f->streams[i].a.allocs > 1e9 * f->span)
			return err_at(
				e, SLABSIM_EINPUT, f->o.source, 0,
				"expected a trace spanning at least 1 ns per allocation of a "
				"stream (a spec's rates are at most 1e9 a second), got %" PRIu64
				" allocations of call site %s in %" PRIu64 " ns",
				f->streams[i].a.allocs,
				strtab_str(&f->sites, f->accs[f->streams[i].rep].site),
				f->c.last_ns - f->c.first_ns);

	struct strtab names;
	strtab_init(&names);
	int rc = 0;
	for (uint32_t i = 0; i < f->nstreams && !rc; i++) {
		struct stream *s = &f->streams[i];
		const struct acc *r = &f->accs[s->rep];
		char base[320], name[340];
		if (s->folded) {
			char t[256];
			target_key(f, s, t, sizeof(t));
			(void)snprintf(base, sizeof(base), "other-%s", t);
		} else if (f->o.by == FIT_BY_CACHE) {
			if (r->kind == ACC_CACHE)
				acc_cache_name(f, r, base, sizeof(base));
			else
				kmalloc_cache_name(r->gfp, r->slot, base, sizeof(base));
		} else {
			(void)snprintf(base, sizeof(base), "%s", strtab_str(&f->sites, r->site));
			if (!base[0])
				(void)snprintf(base, sizeof(base), "nosite");
		}
		sanitize(base);
		/* unique section names: NAME, NAME-2, NAME-3, ... */
		uint32_t id, n = f->sites.n;
		(void)snprintf(name, sizeof(name), "%s", base);
		for (uint32_t k = 2; strtab_find(&names, name, &id) && k < n + f->nstreams + 2; k++)
			(void)snprintf(name, sizeof(name), "%s-%u", base, k);
		if (strtab_intern(&names, name, &id) || !(s->name = strdup(name)) ||
		    build_sizes(f, s)) {
			rc = SLABSIM_ENOMEM;
			break;
		}
		build_arrival(f, s);
		s->periodic = s->a.allocs < f->o.periodic_below;
		if (s->periodic)
			s->burst = false;
		/* an immortal fraction would split a periodic stream's count */
		fit_life_estimate(&s->a.life, !s->periodic, &s->lr);
		if (s->a.life.events == 0)
			s->rule = LT_FOREVER;
		else if (s->a.life.events < f->o.min_pairs)
			s->rule = LT_POOLED;
		else
			s->rule = LT_FIT;
	}
	strtab_fini(&names);
	return rc ? err_set(e, rc, "out of memory") : 0;
}

/* ---- output ---- */

static void fmt_life(const struct fit_life_result *r, char *buf, size_t n)
{
	char a[64];
	if (r->chosen == FIT_DIST_LOGNORMAL) {
		char sg[64];
		fit_fmt_time(exp(r->sel_mu), a, sizeof(a));
		fmt_num(r->sel_sigma, 6, sg, sizeof(sg));
		(void)snprintf(buf, n, "lognormal %s %s", a, sg);
	} else if (r->chosen == FIT_DIST_EXP) {
		fit_fmt_time(r->sel_mean, a, sizeof(a));
		(void)snprintf(buf, n, "exponential %s", a);
	} else {
		(void)snprintf(buf, n, "forever");
	}
}

static void write_fit_comment(FILE *out, const char *what, const struct fit_life_result *r)
{
	char a[64], b[64];
	if (!r->events) {
		fprintf(out, "# %s: no matched pair (%" PRIu64 " censored)\n", what, r->censored);
		return;
	}
	fit_fmt_time(r->exp_mean, a, sizeof(a));
	fprintf(out,
		"# %s: %" PRIu64 " pairs, %" PRIu64 " censored; exponential mean %s "
		"logL %.4f AIC %.4f",
		what, r->events, r->censored, a, r->exp_ll, r->exp_aic);
	if (r->ln_ok) {
		fit_fmt_time(exp(r->ln_mu), b, sizeof(b));
		fprintf(out, "; lognormal median %s sigma %.6g logL %.4f AIC %.4f", b, r->ln_sigma,
			r->ln_ll, r->ln_aic);
	} else {
		fprintf(out, "; lognormal not fitted (no spread)");
	}
	if (r->ec_ok) {
		fit_fmt_time(r->ec_mean, b, sizeof(b));
		fprintf(out, "; exponential+immortal mean %s p %.4f logL %.4f AIC %.4f", b, r->ec_p,
			r->ec_ll, r->ec_aic);
	}
	if (r->lc_ok) {
		fit_fmt_time(exp(r->lc_mu), b, sizeof(b));
		fprintf(out, "; lognormal+immortal median %s sigma %.6g p %.4f logL %.4f AIC %.4f",
			b, r->lc_sigma, r->lc_p, r->lc_ll, r->lc_aic);
	}
	fprintf(out, "; chosen %s%s, KS vs Kaplan-Meier %.4f\n",
		r->chosen == FIT_DIST_LOGNORMAL ? "lognormal" : "exponential",
		r->sel_p > 0 ? "+immortal" : "", r->ks);
}

/* One stream. part 0: the stream (at rate x (1 - p) when an immortal
 * fraction p was fitted); part 1: its immortal fraction, rate x p, forever. */
static void write_stream(const struct fit *f, const struct stream *s, FILE *out, int part, double p)
{
	const struct fit_counts *c = &f->c;
	char num[64];
	const struct acc *a = &s->a;
	const struct acc *r = &f->accs[s->rep];
	char f0[64], f1[64];
	fit_fmt_time((double)(a->first_t - c->first_ns) * 1e-9, f0, sizeof(f0));
	fit_fmt_time((double)(a->last_t - c->first_ns) * 1e-9, f1, sizeof(f1));
	double factor = part ? p : 1.0 - p;
	fprintf(out, "\n[stream %s%s]\n", s->name, part ? "-forever" : "");
	if (part)
		fprintf(out, "# the immortal fraction p = %.4f of stream %s\n", p, s->name);
	else if (p > 0)
		fprintf(out, "# its immortal fraction p = %.4f is stream %s-forever (rate x p)\n",
			p, s->name);
	if (!part) {
		fprintf(out, "# %" PRIu64 " allocations from %s to %s after the start", a->allocs,
			f0, f1);
		if (s->nfine > 1)
			fprintf(out, "; %u %s merged", s->nfine,
				s->folded ? "streams under --min-allocs" : "sites/geometries");
		fprintf(out, "\n");
	}
	if (a->kind == ACC_KMALLOC) {
		fprintf(out, "target = kmalloc\ngfp = %s\n", gfp_names[a->gfp]);
	} else {
		fprintf(out, "target = cache %s\n",
			strtab_str(&f->names, f->caches[s->cache].name));
	}
	char site[256];
	(void)snprintf(site, sizeof(site), "%s",
		       strtab_str(&f->sites, r->site)[0] ? strtab_str(&f->sites, r->site)
							 : s->name);
	for (char *q = site; *q; q++)
		if (*q <= ' ' || *q == '#' || *q == ';')
			*q = '_';
	fprintf(out, "site = %s\n", site);
	if (a->kind == ACC_KMALLOC) {
		if (s->nsizes0 > s->nsizes)
			fprintf(out,
				"# %u distinct sizes, capped at %u (lightest merged into "
				"a neighbour in its kmalloc class)\n",
				s->nsizes0, s->nsizes);
		if (s->nsizes == 1) {
			fprintf(out, "size = fixed %" PRIu64 "\n", s->size_v[0]);
		} else {
			fprintf(out, "size = empirical ");
			for (uint32_t j = 0; j < s->nsizes; j++)
				fprintf(out, "%s%" PRIu64 ":%" PRIu64, j ? "," : "", s->size_v[j],
					s->size_w[j]);
			fprintf(out, "\n");
		}
	} else if (s->nsizes0 > 1 || (s->nsizes && s->size_v[0] != f->caches[s->cache].req)) {
		fprintf(out, "# traced object sizes differ from object_size:");
		for (uint32_t j = 0; j < s->nsizes; j++)
			fprintf(out, " %" PRIu64 ":%" PRIu64, s->size_v[j], s->size_w[j]);
		fprintf(out, "\n");
	}
	char life[192];
	if (part) {
		fprintf(out, "lifetime = forever\n");
	} else {
		write_fit_comment(out, "lifetimes", &s->lr);
	}
	switch (part ? (enum lt_rule) - 1 : s->rule) {
	case LT_FOREVER:
		fprintf(out, "lifetime = forever\n");
		break;
	case LT_POOLED:
		fmt_life(&f->pooled_r, life, sizeof(life));
		fprintf(out, "# fewer than %u pairs: the pooled fit\nlifetime = %s\n",
			f->o.min_pairs, life);
		break;
	case LT_FIT:
		fmt_life(&s->lr, life, sizeof(life));
		fprintf(out, "lifetime = %s\n", life);
		break;
	default:
		break;
	}
	if (!a->gaps_ok)
		fprintf(out, "# arrivals of merged streams: burstiness not measured\n");
	else if (a->ngaps >= 2)
		fprintf(out, "# inter-arrival CV %.3f over %" PRIu64 " gaps (Poisson: 1 +- %.3f)\n",
			s->cv, a->ngaps, 1.0 / sqrt((double)a->ngaps));
	if (s->periodic) {
		char iv[64];
		fit_fmt_time(f->span / (double)a->allocs, iv, sizeof(iv));
		fprintf(out,
			"# fewer than %u allocations: no process to fit; periodic gives exactly "
			"the traced count over the span\n",
			f->o.periodic_below);
		fprintf(out, "arrival = periodic %s\n", iv);
	} else if (s->burst) {
		char g[64];
		fmt_num(s->rate * factor, 6, num, sizeof(num));
		fit_fmt_time(s->bgap, g, sizeof(g));
		fprintf(out, "# about %" PRIu64 " bursts: runs of gaps under the mean gap\n",
			s->bursts);
		fprintf(out, "arrival = burst %s %" PRIu64 " %s\n", num, s->bsize, g);
	} else {
		fmt_num(s->rate * factor, 6, num, sizeof(num));
		fprintf(out, "arrival = poisson %s\n", num);
	}
	if (a->ncpu == 1) {
		fprintf(out, "cpu = %u\n", a->cpu[0].cpu);
	} else {
		fprintf(out, "cpu = ");
		for (uint32_t j = 0; j < a->ncpu; j++)
			fprintf(out, "%s%u:%" PRIu64, j ? "," : "", a->cpu[j].cpu, a->cpu[j].n);
		fprintf(out, "\n");
	}
}

void fit_write_spec(const struct fit *f, FILE *out, const char *source)
{
	char t[64];
	const struct fit_counts *c = &f->c;
	fit_fmt_time(f->span, t, sizeof(t));
	uint32_t split = 0;
	for (uint32_t i = 0; i < f->nstreams; i++) {
		const struct stream *s = &f->streams[i];
		const struct fit_life_result *lr = s->rule == LT_POOLED ? &f->pooled_r : &s->lr;
		split += s->rule != LT_FOREVER && lr->sel_p > 0;
	}
	fprintf(out,
		"# slabsim workload spec fitted by `slabsim fit` (docs/fit.md)\n"
		"# source: %s\n"
		"# %" PRIu64 " allocations, %" PRIu64 " frees, %" PRIu64 " matched pairs, %" PRIu64
		" live at the end (censored)\n"
		"# ignored: %" PRIu64 " frees of pointers allocated before the trace, %" PRIu64
		" kfree(NULL), %" PRIu64 " failed allocations, %" PRIu64
		" of 0 or over 4 MiB, %" PRIu64 " at a live address (old object dropped)\n"
		"# streams by %s: %u (%u folded, --min-allocs %" PRIu64
		"), and %u immortal parts (-forever); timestamp resolution %" PRIu64 " ns\n",
		source, c->allocs, c->frees, c->pairs, c->censored, c->free_unknown, c->free_null,
		c->alloc_null, c->alloc_bad_size, c->alloc_live,
		f->o.by == FIT_BY_CACHE ? "cache" : "call site", c->streams, c->folded,
		f->o.min_allocs, split, c->resolution_ns);
	write_fit_comment(out, "pooled lifetimes", &f->pooled_r);
	fprintf(out, "\n[workload]\nname = %s\nseed = 1\nduration = %s\ncpus = %u\n", f->o.name, t,
		f->max_cpu + 1);

	for (uint32_t k = 0; k < f->ncaches; k++) {
		const struct cache *ch = &f->caches[k];
		fprintf(out, "\n[cache %s]\n", strtab_str(&f->names, ch->name));
		fprintf(out, "# traced slot size %u; %" PRIu64 " allocations", ch->slot,
			ch->allocs);
		if (ch->conflicts)
			fprintf(out, "; %u more geometries under this name (merged caches)",
				ch->conflicts);
		fprintf(out, "\nobject_size = %u\n", ch->req);
		/* kmem_cache_free names the root cache: traced caches are roots, and
		 * the replay never merges them; usersize keeps SLUB from it here */
		fprintf(out, "usersize = %u\n", ch->req);
		if (ch->geom_ok) {
			if (ch->g.align > 8)
				fprintf(out, "align = %u\n", ch->g.align);
			if (ch->g.hwcache || ch->g.ctor)
				fprintf(out, "flags = %s%s%s\n", ch->g.hwcache ? "hwcache" : "",
					ch->g.hwcache && ch->g.ctor ? "," : "",
					ch->g.ctor ? "ctor" : "");
		} else if (f->o.infer) {
			fprintf(out, "# no creation flags give this slot size\n");
		}
	}

	for (uint32_t i = 0; i < f->nstreams; i++) {
		const struct stream *s = &f->streams[i];
		const struct fit_life_result *lr = s->rule == LT_POOLED ? &f->pooled_r : &s->lr;
		double p = s->rule == LT_FOREVER ? 0.0 : lr->sel_p;
		write_stream(f, s, out, 0, p);
		if (p > 0)
			write_stream(f, s, out, 1, p);
	}
}

void fit_write_report(const struct fit *f, FILE *out)
{
	const struct fit_counts *c = &f->c;
	char t[64];
	fit_fmt_time(f->span, t, sizeof(t));
	fprintf(out,
		"fit: %" PRIu64 " allocations, %" PRIu64 " frees over %s; %" PRIu64
		" pairs, %" PRIu64 " censored; ignored %" PRIu64
		" frees of pointers allocated before the trace, %" PRIu64 " kfree(NULL)\n",
		c->allocs, c->frees, t, c->pairs, c->censored, c->free_unknown, c->free_null);
	if (c->alloc_null || c->alloc_bad_size || c->alloc_live)
		fprintf(out,
			"fit: ignored allocations: %" PRIu64 " failed, %" PRIu64
			" of 0 or over 4 MiB, %" PRIu64 " at a live address\n",
			c->alloc_null, c->alloc_bad_size, c->alloc_live);
	fprintf(out, "%-44s %8s %7s %6s %-11s %12s %8s %8s %8s\n", "stream", "allocs", "pairs",
		"cens", "lifetime", "param", "sigma", "immortal", "KS");
	for (uint32_t i = 0; i < f->nstreams; i++) {
		const struct stream *s = &f->streams[i];
		const struct fit_life_result *r = s->rule == LT_POOLED ? &f->pooled_r : &s->lr;
		char p[64] = "-", sg[32] = "-", ks[32] = "-", im[32] = "-";
		const char *d = "forever";
		if (s->rule != LT_FOREVER) {
			bool ln = r->chosen == FIT_DIST_LOGNORMAL;
			if (ln) {
				fit_fmt_time(exp(r->sel_mu), p, sizeof(p));
				(void)snprintf(sg, sizeof(sg), "%.4g", r->sel_sigma);
			} else {
				fit_fmt_time(r->sel_mean, p, sizeof(p));
			}
			if (s->rule == LT_FIT)
				(void)snprintf(ks, sizeof(ks), "%.4f", s->lr.ks);
			d = s->rule == LT_FIT ? (ln ? "lognormal" : "exponential")
					      : (ln ? "pooled-ln" : "pooled-exp");
			if (r->sel_p > 0)
				(void)snprintf(im, sizeof(im), "%.4f", r->sel_p);
		}
		fprintf(out, "%-44.44s %8" PRIu64 " %7" PRIu64 " %6zu %-11s %12s %8s %8s %8s\n",
			s->name, s->a.allocs, s->a.life.events, s->a.life.n_cens, d, p, sg, im, ks);
	}
	if (f->pooled_r.events)
		write_fit_comment(out, "pooled", &f->pooled_r);
}
