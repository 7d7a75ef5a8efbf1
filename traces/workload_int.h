/* workload_int.h - the parsed spec, shared by workload.c and synth.c only. */
#ifndef SLABSIM_WORKLOAD_INT_H
#define SLABSIM_WORKLOAD_INT_H

#include "workload.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#define WL_MAX_PHASES 64
#define WL_MAX_SIZE   4194304u

enum wl_size_kind {
	WL_SZ_NONE = 0,
	WL_SZ_FIXED,
	WL_SZ_UNIFORM,
	WL_SZ_NORMAL,
	WL_SZ_LOGNORMAL,
	WL_SZ_POW2,
	WL_SZ_EMPIRICAL
};

struct wl_size {
	enum wl_size_kind kind;
	uint64_t a, b;	       /* fixed: a; uniform/pow2: [a, b] */
	double mu, sigma;      /* normal: mean, sd; lognormal: ln(median), sigma */
	uint64_t lo, hi;       /* normal/lognormal truncation */
	double p;	       /* pow2 */
	uint32_t n;	       /* empirical */
	uint64_t *sizes;       /* empirical sizes */
	double *weights;       /* empirical weights */
	gsl_ran_discrete_t *d; /* empirical table */
};

enum wl_life_kind {
	WL_LT_NONE = 0,
	WL_LT_EXP,
	WL_LT_LOGNORMAL,
	WL_LT_PARETO,
	WL_LT_FIXED,
	WL_LT_PHASE,
	WL_LT_FOREVER
};

struct wl_life {
	enum wl_life_kind kind;
	uint64_t t_ns;	  /* fixed; exponential: mean */
	double mu, sigma; /* lognormal: ln(median in ns), sigma */
	double alpha, xm; /* pareto: shape, scale in ns */
};

enum wl_arr_kind { WL_AR_NONE = 0, WL_AR_POISSON, WL_AR_BURST, WL_AR_PERIODIC };

struct wl_arrival {
	enum wl_arr_kind kind;
	double rate;	 /* per second: allocations (poisson) or bursts */
	uint32_t size;	 /* burst size */
	uint64_t gap_ns; /* within a burst; periodic: the period */
};

enum wl_cpu_kind { WL_CPU_ALL = 0, WL_CPU_FIXED, WL_CPU_MIX };

struct wl_cpu {
	enum wl_cpu_kind kind;
	uint32_t cpu; /* fixed */
	uint32_t n;   /* mix */
	uint32_t *cpus;
	double *weights;
	gsl_ran_discrete_t *d;
	unsigned long line;
};

struct wl_stream {
	char *name;
	int32_t cache; /* index into caches, -1 = kmalloc */
	uint32_t gfp;  /* TRACE_GFP_* bits (kmalloc) */
	char *site;
	struct wl_size size;
	struct wl_life life;
	struct wl_arrival arr;
	struct wl_cpu cpu;
	uint64_t phase_mask;	    /* phases it runs in */
	double mult[WL_MAX_PHASES]; /* rate multiplier per phase */
	char *target_name;	    /* cache name until resolved */
	char *phases_text;	    /* until resolved */
	unsigned long line, target_line, phases_line, size_line;
	bool has_gfp;
};

struct wl_cache {
	char *name;
	uint32_t object_size, align, flags, usersize;
	unsigned long line;
	bool has_size;
};

struct wl_phase {
	char *name;
	uint64_t duration_ns; /* 0 = not given */
	unsigned long line;
};

struct workload {
	char *name, *path;
	char hash[17];
	uint64_t seed, duration_ns;
	bool has_seed, has_duration;
	uint32_t cpus;
	const gsl_rng_type *rng;
	struct wl_cache *caches;
	uint32_t ncaches;
	struct wl_stream *streams;
	uint32_t nstreams;
	struct wl_phase *phases;
	uint32_t nphases;
};

#endif
