/* fit.h - fit a workload spec (docs/workloads.md) to a recorded trace.
 *
 * One pass over the events measures, per stream (a call site, or a cache):
 * the size histogram, the arrival rate and the burstiness of arrivals, the
 * CPU mix, the allocation target, and the lifetimes of matched alloc/free
 * pairs, with the objects still live at the end right-censored. Exponential
 * and lognormal lifetimes are fitted by maximum likelihood (GSL) and chosen by
 * AIC. Memory follows the live set and the number of streams: lifetimes are
 * kept as sufficient statistics plus a log-binned histogram, never one
 * number per event. The method and its rules are in docs/fit.md.
 */
#ifndef SLABSIM_FIT_H
#define SLABSIM_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

struct trace_event;

/* The largest size a spec states (docs/workloads.md): 4 MiB. */
#define FIT_SIZE_MAX 4194304u
/* The CPUs a spec can name: 0..8191 (its cpus is 1..8192, docs/workloads.md;
 * Linux's NR_CPUS is at most 8192 too). A trace event on a higher CPU is bad
 * input: fit_event fails naming its line. */
#define FIT_CPU_MAX 8191u

/* ---- lifetime estimation (public for the tests) ---- */

/* Log-binned histogram of lifetimes in seconds: FIT_LIFE_PER_DECADE bins a
 * decade from 1 ns (bin edges 10^(k/20 - 9) s), the last bin open. */
#define FIT_LIFE_PER_DECADE 20
#define FIT_LIFE_BINS	    (16 * FIT_LIFE_PER_DECADE)

/* Censored lifetimes: sufficient statistics of the observed (event)
 * lifetimes, each censoring time (the live set at the end: bounded by it),
 * and the histogram of both for the Kaplan-Meier comparison. */
struct fit_life {
	uint64_t events;
	double sum_t, sum_lt, sum_lt2; /* Σ t, Σ ln t, Σ (ln t)^2 over events */
	double *cens;		       /* censoring times */
	double *cens_w;		       /* their weights (NULL: all 1) */
	size_t n_cens, cap_cens;
	double sum_cens;
	uint64_t ev_bins[FIT_LIFE_BINS];
};

enum fit_dist {
	FIT_DIST_NONE = 0, /* no event: nothing to fit */
	FIT_DIST_EXP,
	FIT_DIST_LOGNORMAL,
};

/* Four models: exponential, lognormal, and each with an immortal fraction
 * p (a cure model: S(t) = p + (1 - p) S0(t); needs censored objects). */
struct fit_life_result {
	uint64_t events, censored;
	double exp_mean, exp_ll, exp_aic;      /* seconds */
	bool ln_ok;			       /* lognormal fitted (needs spread) */
	double ln_mu, ln_sigma, ln_ll, ln_aic; /* ln(seconds) */
	int ln_iter;			       /* Nelder-Mead iterations */
	bool ec_ok;			       /* exponential + immortal fraction */
	double ec_mean, ec_p, ec_ll, ec_aic;
	bool lc_ok; /* lognormal + immortal fraction */
	double lc_mu, lc_sigma, lc_p, lc_ll, lc_aic;
	/* the model of smallest AIC: its family, parameters and p (0: none) */
	enum fit_dist chosen;
	double sel_mean, sel_mu, sel_sigma, sel_p;
	double ks; /* sup |KM - fitted survival| at the histogram's bin edges */
};

void fit_life_init(struct fit_life *l);
void fit_life_fini(struct fit_life *l);
/* Add an observed lifetime / a censoring time (seconds, > 0); the latter
 * returns 0 or SLABSIM_ENOMEM. */
void fit_life_event(struct fit_life *l, double t);
int fit_life_censored(struct fit_life *l, double c);
/* dst += src. Returns 0 or SLABSIM_ENOMEM. */
int fit_life_merge(struct fit_life *dst, const struct fit_life *src);
/* Fit the four models (two without cure) and choose by AIC. Exponential: closed form mean =
 * (Σ t + Σ c) / events. The others: Nelder-Mead (gsl_multimin) on
 * (μ, ln σ), (ln mean, logit p), (μ, ln σ, logit p). */
void fit_life_estimate(const struct fit_life *l, bool cure, struct fit_life_result *r);
/* Log-likelihoods with censoring: lognormal at (mu, sigma); with an
 * immortal fraction p, exponential (mean, p) and lognormal (mu, sigma, p). */
double fit_life_lognormal_ll(const struct fit_life *l, double mu, double sigma);
/* ... and with an immortal fraction p: exponential (mean, p), lognormal
 * (mu, sigma, p). */
double fit_life_exp_cure_ll(const struct fit_life *l, double mean, double p);
double fit_life_lognormal_cure_ll(const struct fit_life *l, double mu, double sigma, double p);
double fit_life_exp_cure_ll(const struct fit_life *l, double mean, double p);
double fit_life_lognormal_cure_ll(const struct fit_life *l, double mu, double sigma, double p);

/* ---- the whole-trace fit ---- */

enum fit_by {
	FIT_BY_SITE = 0,
	FIT_BY_CACHE,
};

/* How a kmem_cache seen in the trace was created, inferred from its object
 * size and slot size (the caller knows the layout rules). */
struct fit_cache_geom {
	uint32_t align;
	bool hwcache, ctor;
};

struct fit_opts {
	enum fit_by by;
	uint64_t min_allocs; /* streams with fewer allocations fold into one per target */
	uint32_t max_sizes;  /* distinct sizes kept per stream (the rest merged upwards) */
	uint32_t min_pairs;  /* fewer matched pairs: `forever` if none, else the pooled fit */
	/* streams with fewer allocations arrive `periodic span/N`: exactly the
	 * traced count (0 = never) */
	uint32_t periodic_below;
	const char *name;   /* workload name */
	const char *source; /* the trace's path, for errors (NULL: "-") */
	/* May be NULL: then no align/flags are emitted. Returns true if found. */
	bool (*infer)(void *ctx, uint32_t object_size, uint32_t slot, struct fit_cache_geom *g);
	void *infer_ctx;
};

void fit_opts_default(struct fit_opts *o);

/* Counts of what the pass saw and ignored. */
struct fit_counts {
	uint64_t allocs, frees, pairs, censored;
	uint64_t free_unknown;	 /* frees of pointers allocated before the trace began */
	uint64_t free_null;	 /* kfree(NULL) */
	uint64_t alloc_null;	 /* failed allocations (ptr 0): ignored */
	uint64_t alloc_bad_size; /* bytes_req 0 or sizes over FIT_SIZE_MAX: ignored */
	uint64_t alloc_live;	 /* allocation at a live address: the old object dropped */
	uint64_t time_backwards; /* lifetimes < 0 (clamped to the floor) */
	uint64_t first_ns, last_ns, resolution_ns;
	uint32_t streams, caches, folded;
};

struct fit;

int fit_create(const struct fit_opts *o, struct fit **out, struct err *e);
void fit_destroy(struct fit *f);
/* Account one event (in trace order). Errors: SLABSIM_EINPUT naming
 * source:line (a CPU above FIT_CPU_MAX), SLABSIM_ENOMEM. */
int fit_event(struct fit *f, const struct trace_event *ev, struct err *e);
/* End of the trace: censor the live set, build the streams, fit. Errors:
 * SLABSIM_EINPUT naming source (no allocation, or a trace spanning no time),
 * SLABSIM_ENOMEM. */
int fit_finish(struct fit *f, struct err *e);
/* The spec (after fit_finish), with the fits as comments. source names the
 * trace in the header comment. */
void fit_write_spec(const struct fit *f, FILE *out, const char *source);
/* One line per stream and the totals, for stderr. */
void fit_write_report(const struct fit *f, FILE *out);
const struct fit_counts *fit_counts(const struct fit *f);

/* A name as the spec states one (workload, cache, stream): one word of
 * printable ASCII without [ ] = , # ; (docs/workloads.md). fit_name_word
 * replaces every other byte of s by '_'. */
bool fit_name_ok(const char *s);
void fit_name_word(char *s);

/* A time in seconds as the spec writes it: a number in [1, 1000) (when
 * possible) and a unit ns/us/ms/s, never an exponent. */
void fit_fmt_time(double s, char *buf, size_t n);

#endif
