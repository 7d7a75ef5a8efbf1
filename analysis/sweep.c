/* sweep.c - sweep specifications (see sweep.h, docs/sweeps.md). */
#include "sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `auto` in the kernel, nr_cpus and align axes: resolved per input by the
 * caller, never a policy_cfg value. */
#define SWEEP_AUTO UINT32_MAX

enum axis {
	AX_ALLOCATOR = SWEEP_AX_ALLOCATOR,
	AX_KERNEL = SWEEP_AX_KERNEL,
	AX_NR_CPUS = SWEEP_AX_NR_CPUS,
	AX_ALIGN = SWEEP_AX_ALIGN,
	AX_SLUB_DEBUG = SWEEP_AX_SLUB_DEBUG,
	AX_SLAB_DEBUG = SWEEP_AX_SLAB_DEBUG,
	AX_SLUB_MIN_ORDER = SWEEP_AX_SLUB_MIN_ORDER,
	AX_SLUB_MAX_ORDER = SWEEP_AX_SLUB_MAX_ORDER,
	AX_SLUB_MIN_OBJECTS = SWEEP_AX_SLUB_MIN_OBJECTS,
	AX_CPU_PARTIAL = SWEEP_AX_CPU_PARTIAL,
	AX_SLAB_MAX_ORDER = SWEEP_AX_SLAB_MAX_ORDER,
	AX_SLAB_NOMERGE = SWEEP_AX_SLAB_NOMERGE,
	AX_SLUB_TINY = SWEEP_AX_SLUB_TINY,
	AX_RANDOM_KMALLOC = SWEEP_AX_RANDOM_KMALLOC,
	AX_SLAB_BUCKETS = SWEEP_AX_SLAB_BUCKETS,
	AX_SHEAF_CAPACITY = SWEEP_AX_SHEAF_CAPACITY,
	AX_BARN_LIMIT = SWEEP_AX_BARN_LIMIT,
	AX_NR = SWEEP_AX_NR,
};

static const char *const axis_names[AX_NR] = {
	"allocator",	    "kernel",	      "nr_cpus",	"align",
	"slub_debug",	    "slab_debug",     "slub_min_order", "slub_max_order",
	"slub_min_objects", "cpu_partial",    "slab_max_order", "slab_nomerge",
	"slub_tiny",	    "random_kmalloc", "slab_buckets",	"sheaf_capacity",
	"barn_limit",
};
/* The policy_cfg field an axis sets, which only allocators reading it
 * (policy_ops.settings) vary. 0: a setting of every run, varied for every
 * allocator: the engine maps CPUs with nr_cpus, and runs are compared
 * across allocators by kernel and align. */
static const uint32_t axis_setting[AX_NR] = {
	[AX_SLUB_DEBUG] = POLICY_SET_SLUB_DEBUG,
	[AX_SLAB_DEBUG] = POLICY_SET_SLAB_DEBUG,
	[AX_SLUB_MIN_ORDER] = POLICY_SET_SLUB_MIN_ORDER,
	[AX_SLUB_MAX_ORDER] = POLICY_SET_SLUB_MAX_ORDER,
	[AX_SLUB_MIN_OBJECTS] = POLICY_SET_SLUB_MIN_OBJECTS,
	[AX_CPU_PARTIAL] = POLICY_SET_CPU_PARTIAL,
	[AX_SLAB_MAX_ORDER] = POLICY_SET_SLAB_MAX_ORDER,
	/* slab_nomerge: find_mergeable() (mm/slab_common.c), which SLUB and
	 * SLAB share; SLOB never merges */
	[AX_SLAB_NOMERGE] = POLICY_SET_NOMERGE,
	/* SLUB only: SLUB_TINY is a SLUB option, and only SLUB's kmalloc takes
	 * the bucket and random-copy routes (policies/buckets.h) */
	[AX_SLUB_TINY] = POLICY_SET_SLUB_TINY,
	[AX_RANDOM_KMALLOC] = POLICY_SET_RANDOM_KMALLOC,
	[AX_SLAB_BUCKETS] = POLICY_SET_SLAB_BUCKETS,
	/* SLUB only: the sheaves are SLUB's (6.18+) */
	[AX_SHEAF_CAPACITY] = POLICY_SET_SHEAVES,
	[AX_BARN_LIMIT] = POLICY_SET_SHEAVES,
};

struct vec {
	uint32_t *v;
	size_t n, cap;
};

/* Seeds as inclusive ranges (a range of a million seeds is one entry). */
struct seed_range {
	uint64_t lo, hi;
};
/* Listed seed ranges are checked pairwise for overlap: keep that bounded. */
#define SWEEP_MAX_SEED_RANGES 4096

struct sweep_spec {
	char **traces;
	size_t *trace_lines; /* line of each trace */
	size_t ntraces;
	char **workloads;
	size_t nworkloads;
	char **trace_labels, **workload_labels; /* `label =`, or NULL */
	const char **trace_alloc;		/* sweep_spec_set_trace_allocator, or NULL */
	bool last_wl;				/* the last input listed is a workload */
	struct seed_range *seeds;
	size_t nseed_ranges;
	uint64_t nseeds;
	struct vec ax[AX_NR];
	char *sample_every;
	char *align_sites; /* align-sites = FILE, or NULL */
	size_t align_sites_line;
	char *kallsyms; /* kallsyms = FILE, or NULL */
	char *duration;
	size_t ax_line[AX_NR]; /* last line that gave values to an axis */
	size_t trace_line;     /* last 'trace =' or 'workload =' line */
};

static int vec_push(struct vec *x, uint32_t v)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i] == v)
			return 1; /* duplicate */
	if (x->n == x->cap) {
		size_t ncap = x->cap ? x->cap * 2 : 8;
		uint32_t *n = realloc(x->v, ncap * sizeof(*n));
		if (!n)
			return SLABSIM_ENOMEM;
		x->v = n;
		x->cap = ncap;
	}
	x->v[x->n++] = v;
	return 0;
}

void sweep_spec_free(struct sweep_spec *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ntraces; i++)
		free(s->traces[i]);
	free(s->traces);
	for (size_t i = 0; i < s->nworkloads; i++)
		free(s->workloads[i]);
	free(s->workloads);
	for (size_t i = 0; s->trace_labels && i < s->ntraces; i++)
		free(s->trace_labels[i]);
	free(s->trace_labels);
	free(s->trace_alloc);
	for (size_t i = 0; s->workload_labels && i < s->nworkloads; i++)
		free(s->workload_labels[i]);
	free(s->workload_labels);
	free(s->seeds);
	free(s->trace_lines);
	for (int a = 0; a < AX_NR; a++)
		free(s->ax[a].v);
	free(s->sample_every);
	free(s->align_sites);
	free(s->kallsyms);
	free(s->duration);
	free(s);
}

size_t sweep_spec_ntraces(const struct sweep_spec *s)
{
	return s->ntraces;
}

const char *sweep_spec_trace(const struct sweep_spec *s, size_t i)
{
	return s->traces[i];
}

size_t sweep_spec_nworkloads(const struct sweep_spec *s)
{
	return s->nworkloads;
}

const char *sweep_spec_workload(const struct sweep_spec *s, size_t i)
{
	return s->workloads[i];
}

const char *sweep_spec_trace_label(const struct sweep_spec *s, size_t i)
{
	return s->trace_labels[i];
}

const char *sweep_spec_workload_label(const struct sweep_spec *s, size_t i)
{
	return s->workload_labels[i];
}

const char *sweep_spec_align_sites(const struct sweep_spec *s, size_t *line)
{
	if (line)
		*line = s->align_sites_line;
	return s->align_sites;
}

const char *sweep_spec_kallsyms(const struct sweep_spec *s)
{
	return s->kallsyms;
}

const char *sweep_spec_duration(const struct sweep_spec *s)
{
	return s->duration;
}

size_t sweep_spec_trace_line(const struct sweep_spec *s, size_t i)
{
	return s->trace_lines[i];
}

bool sweep_spec_has_axis(const struct sweep_spec *s, enum sweep_axis a)
{
	return s->ax[a].n > 0;
}

int sweep_spec_set_trace_allocator(struct sweep_spec *s, size_t i, const char *name, struct err *e)
{
	if (i >= s->ntraces || !policy_find(name))
		return err_set(e, SLABSIM_EUSAGE, "no trace %zu or no allocator '%s'", i, name);
	if (!s->trace_alloc && !(s->trace_alloc = calloc(s->ntraces, sizeof(*s->trace_alloc))))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	s->trace_alloc[i] = name;
	return 0;
}

static char *trim(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		p[--n] = '\0';
	return p;
}

static int parse_num(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int parse_bool(const char *s, uint32_t *out)
{
	if (!strcmp(s, "on") || !strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "1"))
		*out = 1;
	else if (!strcmp(s, "off") || !strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "0"))
		*out = 0;
	else
		return -1;
	return 0;
}

/* One value of an axis; returns 0, or -1 with what was expected in why. */
static int parse_value(enum axis a, const char *v, uint32_t *out, char *why, size_t wn)
{
	struct err e;
	switch (a) {
	case AX_ALLOCATOR:
		for (uint32_t i = 0; policy_table[i]; i++) {
			if (!strcmp(policy_table[i]->name, v)) {
				*out = i;
				return 0;
			}
		}
		(void)snprintf(why, wn, "an allocator (");
		for (int i = 0; policy_table[i]; i++) {
			size_t l = strlen(why);
			(void)snprintf(why + l, wn - l, "%s%s", i ? ", " : "",
				       policy_table[i]->name);
		}
		strncat(why, ")", wn - strlen(why) - 1);
		return -1;
	case AX_KERNEL:
		if (!strcmp(v, "auto"))
			*out = SWEEP_AUTO;
		else {
			/* a profile's own name only: a sweep's axis values are
			 * its resume keys, so "6.10" is not silently 6.6 */
			for (int k = 0; k < POLICY_KERNEL_NR; k++)
				if (!strcmp(v, policy_kernel_name((enum policy_kernel)k))) {
					*out = k;
					return 0;
				}
			(void)snprintf(why, wn, "auto, 5.4, 6.1, 6.6, 6.12, 6.18 or 7.0");
			return -1;
		}
		return 0;
	case AX_ALIGN: {
		enum policy_align al;
		/* auto: the kernel profile's own rule (natural up to 6.6,
		 * pow2-divisor from 6.12), as with no align axis */
		if (!strcmp(v, "auto")) {
			*out = SWEEP_AUTO;
			return 0;
		}
		if (policy_parse_align(v, &al, &e)) {
			(void)snprintf(why, wn,
				       "auto, none, natural, cap512, own-caches, merged, "
				       "kmalloc-aligned-caches, kmalloc-aligned-overalloc or "
				       "pow2-divisor");
			return -1;
		}
		*out = al;
		return 0;
	}
	case AX_SLUB_DEBUG:
		if (policy_parse_slub_debug(v, out, &e)) {
			(void)snprintf(why, wn, "slub_debug letters F Z P U T or '-' (%.100s)",
				       e.msg);
			return -1;
		}
		return 0;
	case AX_SLAB_DEBUG:
	case AX_CPU_PARTIAL:
	case AX_SLAB_NOMERGE:
	case AX_SLUB_TINY:
	case AX_RANDOM_KMALLOC:
	case AX_SLAB_BUCKETS:
		if (parse_bool(v, out)) {
			(void)snprintf(why, wn, "on or off");
			return -1;
		}
		return 0;
	case AX_SHEAF_CAPACITY:
	case AX_BARN_LIMIT: {
		/* kernel: the kernel's own rule (policy_cfg's 0) */
		uint32_t max =
			a == AX_SHEAF_CAPACITY ? POLICY_SHEAF_CAPACITY_MAX : POLICY_BARN_LIMIT_MAX;
		if (!strcmp(v, "kernel"))
			*out = 0;
		else if (parse_num(v, 1, max, out)) {
			(void)snprintf(why, wn, "kernel or a whole number from 1 to %u", max);
			return -1;
		}
		return 0;
	}
	case AX_NR_CPUS:
		if (!strcmp(v, "auto"))
			*out = SWEEP_AUTO;
		else if (parse_num(v, 1, 8192, out)) {
			(void)snprintf(why, wn, "auto or a whole number from 1 to 8192");
			return -1;
		}
		return 0;
	case AX_SLUB_MIN_OBJECTS:
		if (parse_num(v, 0, 32767, out)) {
			(void)snprintf(why, wn, "a whole number from 0 to 32767");
			return -1;
		}
		return 0;
	default: /* page orders */
		if (parse_num(v, 0, POLICY_MAX_ORDER - 1, out)) {
			(void)snprintf(why, wn, "a page order from 0 to %d", POLICY_MAX_ORDER - 1);
			return -1;
		}
		return 0;
	}
}

#define bad(e, name, line, fmt, ...)                                                               \
	err_set(e, SLABSIM_EINPUT, "%s:%zu: " fmt, name, line, __VA_ARGS__)

static int parse_u64(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	if (p == end)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9' || v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

/* seed = S | S..E [, ...]: whole numbers 0 .. 2^64-1 as `replay --seed`. */
static int parse_seeds(struct sweep_spec *s, char *val, const char *name, size_t ln, struct err *e)
{
	for (char *tok = val, *next; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		char *v = trim(tok), *dots = strstr(v, "..");
		struct seed_range r;
		if (!*v)
			return bad(e, name, ln, "%s: empty value in the list", "seed");
		/* no spaces inside a value: "1..3", not "1 .. 3" (v is trimmed) */
		const char *end = v + strlen(v);
		if (dots ? parse_u64(v, dots, &r.lo) || parse_u64(dots + 2, end, &r.hi) ||
				    r.hi < r.lo
			 : parse_u64(v, end, &r.lo))
			return bad(e, name, ln,
				   "seed: expected a whole number S or a range S..E with S <= E "
				   "(0 to 2^64-1), got '%.60s'",
				   v);
		if (!dots)
			r.hi = r.lo;
		if (r.hi - r.lo >= SWEEP_MAX_RUNS)
			return bad(e, name, ln, "seed: the range '%.60s' has more than %u seeds", v,
				   SWEEP_MAX_RUNS);
		for (size_t i = 0; i < s->nseed_ranges; i++)
			if (r.lo <= s->seeds[i].hi && s->seeds[i].lo <= r.hi)
				return bad(e, name, ln,
					   "seed: '%.60s' repeats a seed listed before", v);
		if (s->nseed_ranges == SWEEP_MAX_SEED_RANGES)
			return bad(e, name, ln, "seed: more than %d values or ranges (use S..E)",
				   SWEEP_MAX_SEED_RANGES);
		struct seed_range *n = realloc(s->seeds, (s->nseed_ranges + 1) * sizeof(*n));
		if (!n)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		s->seeds = n;
		s->seeds[s->nseed_ranges++] = r;
		s->nseeds += r.hi - r.lo + 1;
		if (s->nseeds > SWEEP_MAX_RUNS)
			return bad(e, name, ln, "seed: more than %u seeds", SWEEP_MAX_RUNS);
	}
	return 0;
}

/* A key given once with one value, not an axis (duration, align-sites,
 * kallsyms, sample_every): val copied into *slot; what names the value in
 * the message ("value", "file"). */
static int one_value(char **slot, const char *key, const char *what, const char *val,
		     const char *name, size_t ln, struct err *e)
{
	if (*slot)
		return bad(e, name, ln, "expected %s once (it is not an axis), got it again", key);
	if (strchr(val, ','))
		return bad(e, name, ln, "expected one %s %s, got '%.60s'", key, what, val);
	if (!(*slot = strdup(val)))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	return 0;
}

static int parse_line(struct sweep_spec *s, char *line, const char *name, size_t ln, struct err *e)
{
	char *p = trim(line);
	if (!*p || *p == '#')
		return 0;
	char *eq = strchr(p, '=');
	if (!eq)
		return bad(e, name, ln, "expected 'key = value[, value...]', got '%.60s'", p);
	*eq = '\0';
	char *key = trim(p), *val = trim(eq + 1);
	if (!*val)
		return bad(e, name, ln, "%s: expected a value after '='", key);
	if (!strcmp(key, "trace") || !strcmp(key, "workload")) {
		/* one path per line: paths may hold commas */
		bool wl = key[0] == 'w';
		char ***list = wl ? &s->workloads : &s->traces;
		char ***labels = wl ? &s->workload_labels : &s->trace_labels;
		size_t *nl = wl ? &s->nworkloads : &s->ntraces;
		char **lb = realloc(*labels, (*nl + 1) * sizeof(*lb));
		if (!lb)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		*labels = lb;
		lb[*nl] = NULL;
		char **n = realloc(*list, (*nl + 1) * sizeof(*n));
		if (!n)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		*list = n;
		if (!wl) {
			size_t *tl = realloc(s->trace_lines, (s->ntraces + 1) * sizeof(*tl));
			if (!tl)
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			s->trace_lines = tl;
			tl[s->ntraces] = ln;
		}
		for (size_t i = 0; i < *nl; i++)
			if (!strcmp(n[i], val))
				/* every message says what was expected (fuzz_sweep checks) */
				return bad(e, name, ln, "expected each %s once, got '%.200s' again",
					   key, val);
		if (!(n[*nl] = strdup(val)))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		(*nl)++;
		s->trace_line = ln;
		s->last_wl = wl;
		return 0;
	}
	if (!strcmp(key, "label")) {
		/* names the trace or workload of the line before */
		size_t nl = s->last_wl ? s->nworkloads : s->ntraces;
		char **labels = s->last_wl ? s->workload_labels : s->trace_labels;
		if (!nl)
			return bad(e, name, ln,
				   "expected 'label =' after the 'trace =' or 'workload =' line "
				   "it names, got it before any%s",
				   "");
		if (labels[nl - 1])
			return bad(e, name, ln, "expected one label per input, got '%.200s' too",
				   val);
		for (size_t i = 0; i < s->ntraces; i++)
			if (s->trace_labels[i] && !strcmp(s->trace_labels[i], val))
				return bad(e, name, ln,
					   "expected each label once, got '%.200s' again", val);
		for (size_t i = 0; i < s->nworkloads; i++)
			if (s->workload_labels[i] && !strcmp(s->workload_labels[i], val))
				return bad(e, name, ln,
					   "expected each label once, got '%.200s' again", val);
		if (!(labels[nl - 1] = strdup(val)))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		return 0;
	}
	if (!strcmp(key, "seed"))
		return parse_seeds(s, val, name, ln, e);
	if (!strcmp(key, "duration"))
		return one_value(&s->duration, key, "value", val, name, ln, e);
	if (!strcmp(key, "align-sites")) {
		s->align_sites_line = ln;
		return one_value(&s->align_sites, key, "file", val, name, ln, e);
	}
	if (!strcmp(key, "kallsyms"))
		return one_value(&s->kallsyms, key, "file", val, name, ln, e);
	if (!strcmp(key, "sample_every"))
		return one_value(&s->sample_every, key, "value", val, name, ln, e);
	int a;
	for (a = 0; a < AX_NR; a++)
		if (!strcmp(key, axis_names[a]))
			break;
	if (a == AX_NR)
		return bad(e, name, ln,
			   "unknown key '%.60s' (expected trace, workload, label, seed, duration, "
			   "allocator, "
			   "kernel, nr_cpus, align, slub_debug, slab_debug, slub_min_order, "
			   "slub_max_order, "
			   "slub_min_objects, cpu_partial, slab_max_order, slab_nomerge, "
			   "slub_tiny, random_kmalloc, slab_buckets, sheaf_capacity, "
			   "barn_limit, sample_every, align-sites or kallsyms)",
			   key);
	s->ax_line[a] = ln;
	for (char *tok = val, *next; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		char *v = trim(tok);
		uint32_t x;
		char why[200] = "";
		if (!*v)
			return bad(e, name, ln,
				   "%s: expected a value between commas, got an empty one", key);
		if (parse_value((enum axis)a, v, &x, why, sizeof(why))) {
			char msg[300];
			(void)snprintf(msg, sizeof(msg), "%s: expected %s, got", key, why);
			return bad(e, name, ln, "%s '%.60s'", msg, v);
		}
		int rc = vec_push(&s->ax[a], x);
		if (rc == 1)
			return bad(e, name, ln, "%s: expected each value once, got '%.60s' again",
				   key, v);
		if (rc)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	return 0;
}

int sweep_spec_parse(const char *buf, size_t len, const char *name, struct sweep_spec **out,
		     struct err *e)
{
	*out = NULL;
	struct sweep_spec *s = calloc(1, sizeof(*s));
	char *line = NULL;
	int rc = 0;
	size_t ln = 0;
	if (!s)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		ln++;
		if (memchr(buf + pos, '\0', l)) {
			rc = err_set(e, SLABSIM_EINPUT, "%s:%zu: expected text, got a NUL byte",
				     name, ln);
			goto fail;
		}
		free(line);
		if (!(line = malloc(l + 1))) {
			rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
			goto fail;
		}
		memcpy(line, buf + pos, l);
		line[l] = '\0';
		if ((rc = parse_line(s, line, name, ln, e)))
			goto fail;
		pos += l + 1;
	}
	free(line);
	line = NULL;
	/* Errors about the whole spec name a line too (found by fuzz_sweep):
	 * the last line when something is missing (1 for an empty file), the
	 * axis line that takes the product over the limit. */
	if (!s->ntraces && !s->nworkloads) {
		rc = err_set(e, SLABSIM_EINPUT,
			     "%s:%zu: expected at least one 'trace = PATH' or 'workload = PATH' "
			     "line, got none by the end of the file",
			     name, ln ? ln : 1);
		goto fail;
	}
	for (size_t i = 0; i < s->ax[AX_ALIGN].n && !s->align_sites; i++) {
		if (policy_align_by_site((enum policy_align)s->ax[AX_ALIGN].v[i])) {
			rc = err_set(
				e, SLABSIM_EINPUT,
				"%s:%zu: align %s serves the callers of a sites file: expected "
				"an 'align-sites = FILE' line, got none by the end of the file",
				name, s->ax_line[AX_ALIGN],
				policy_align_name((enum policy_align)s->ax[AX_ALIGN].v[i]));
			goto fail;
		}
	}
	/* the product's size, before anyone allocates it (an upper bound:
	 * axes of one allocator are multiplied in for all); each factor and
	 * partial product stays <= 2^20 before the next multiplication
	 * (paths <= 2^26, seeds <= 2^20): no overflow */
	uint64_t per = 1, total = 0;
	int over = -1;
	for (int a = 0; a < AX_NR && per <= SWEEP_MAX_RUNS; a++) {
		per *= s->ax[a].n ? s->ax[a].n : 1;
		if (per > SWEEP_MAX_RUNS)
			over = a;
	}
	if (per <= SWEEP_MAX_RUNS) {
		uint64_t wl = per * (s->nseeds ? s->nseeds : 1);
		total = wl > SWEEP_MAX_RUNS && s->nworkloads
				? wl
				: per * s->ntraces + wl * s->nworkloads;
	}
	if (over >= 0) {
		rc = err_set(e, SLABSIM_EINPUT,
			     "%s:%zu: expected a sweep of at most %u runs, got more with the %s "
			     "values of this line",
			     name, s->ax_line[over], SWEEP_MAX_RUNS, axis_names[over]);
		goto fail;
	}
	if (total > SWEEP_MAX_RUNS) {
		rc = err_set(e, SLABSIM_EINPUT,
			     "%s:%zu: expected a sweep of at most %u runs, got more with the "
			     "traces, workloads and seeds",
			     name, s->trace_line ? s->trace_line : (ln ? ln : 1), SWEEP_MAX_RUNS);
		goto fail;
	}
	*out = s;
	return 0;
fail:
	free(line);
	sweep_spec_free(s);
	return rc;
}

int sweep_spec_load(const char *path, struct sweep_spec **out, struct err *e)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	*out = NULL;
	if (!f)
		return err_set(e, SLABSIM_EIO, "%s: %s", path, strerror(errno));
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			if (cap > (64u << 20)) {
				fclose(f);
				free(buf);
				return err_set(e, SLABSIM_EINPUT,
					       "%s: expected a sweep spec, got more than 64 MiB",
					       path);
			}
			char *nb = realloc(buf, cap);
			if (!nb) {
				fclose(f);
				free(buf);
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	int bad_read = ferror(f);
	fclose(f);
	if (bad_read) {
		free(buf);
		return err_set(e, SLABSIM_EIO, "%s: read error", path);
	}
	int rc = sweep_spec_parse(buf, n, path, out, e);
	free(buf);
	return rc;
}

static bool applies(enum axis a, const struct policy_ops *ops)
{
	return !axis_setting[a] || (ops->settings & axis_setting[a]);
}

static void set_axis(struct sweep_run *r, enum axis a, uint32_t v)
{
	struct policy_cfg *c = &r->cfg;
	if (v == SWEEP_AUTO) {
		/* the default stays in cfg until the caller resolves it */
		r->kernel_auto |= a == AX_KERNEL;
		r->nr_cpus_auto |= a == AX_NR_CPUS;
		r->align_auto |= a == AX_ALIGN;
		return;
	}
	r->given |= 1u << a;
	switch (a) {
	case AX_KERNEL:
		c->kernel = (enum policy_kernel)v;
		break;
	case AX_NR_CPUS:
		c->nr_cpus = v;
		break;
	case AX_ALIGN:
		c->align = (enum policy_align)v;
		break;
	case AX_SLUB_DEBUG:
		c->slub_debug = v;
		break;
	case AX_SLAB_DEBUG:
		c->slab_debug = v != 0;
		break;
	case AX_SLUB_MIN_ORDER:
		c->slub_min_order = v;
		break;
	case AX_SLUB_MAX_ORDER:
		c->slub_max_order = v;
		break;
	case AX_SLUB_MIN_OBJECTS:
		c->slub_min_objects = v;
		break;
	case AX_CPU_PARTIAL:
		c->cpu_partial = v != 0;
		break;
	case AX_SLAB_MAX_ORDER:
		c->slab_max_order = v;
		break;
	case AX_SLAB_NOMERGE:
		c->nomerge = v != 0;
		break;
	case AX_SLUB_TINY:
		c->slub_tiny = v != 0;
		break;
	case AX_RANDOM_KMALLOC:
		/* RANDOM_KMALLOC_CACHES_NR copies beyond kmalloc-N, as
		 * --config RANDOM_KMALLOC_CACHES=y */
		c->random_kmalloc = v ? 15 : 0;
		break;
	case AX_SLAB_BUCKETS:
		c->slab_buckets = v != 0;
		break;
	case AX_SHEAF_CAPACITY:
		c->sheaf_capacity = v;
		break;
	case AX_BARN_LIMIT:
		c->barn_limit = v;
		break;
	default:
		break;
	}
}

/* align = auto under a given kernel is that profile's rule now: false when
 * the align axis lists that rule too (the same run twice otherwise). */
static bool settle_align(const struct sweep_spec *s, struct sweep_run *x)
{
	if (!x->align_auto || x->kernel_auto)
		return true;
	enum policy_align al = policy_kernel_align(x->cfg.kernel);
	for (size_t i = 0; i < s->ax[AX_ALIGN].n; i++)
		if (s->ax[AX_ALIGN].v[i] == (uint32_t)al)
			return false;
	x->align_auto = false;
	x->cfg.align = al;
	x->given |= 1u << AX_ALIGN;
	return true;
}

/* A sheaves what-if (sheaf_capacity or barn_limit other than `kernel`) on
 * a run whose model has no sheaves at all is the `kernel` run again: a
 * given profile before 6.18, SLUB_TINY, or slub_debug (every cache a debug
 * cache: calculate_sheaf_capacity and 6.18's do_kmem_cache_create give
 * those none). Such a run is made the `kernel` one when its value is the
 * first of an axis that lists no `kernel` (barn_limit = 72 alone under
 * kernel = 6.1 still runs that trace once), else dropped (false): the
 * same run twice otherwise. Under an `auto` kernel the input decides:
 * kept, as align is. */
static bool settle_sheaves(const struct sweep_spec *s, const size_t *idx, struct sweep_run *x)
{
	struct policy_cfg *c = &x->cfg;
	if (!c->sheaf_capacity && !c->barn_limit)
		return true;
	if (!c->slub_tiny && !c->slub_debug && (x->kernel_auto || c->kernel >= POLICY_KERNEL_6_18))
		return true;
	static const enum axis ax[2] = {AX_SHEAF_CAPACITY, AX_BARN_LIMIT};
	for (int i = 0; i < 2; i++) {
		const struct vec *v = &s->ax[ax[i]];
		if (!v->n || !v->v[idx[ax[i]]])
			continue;
		for (size_t j = 0; j < v->n; j++)
			if (!v->v[j])
				return false;
		if (idx[ax[i]])
			return false;
	}
	c->sheaf_capacity = 0;
	c->barn_limit = 0;
	return true;
}

int sweep_expand(const struct sweep_spec *s, struct sweep_run **runs, size_t *n, struct err *e)
{
	uint32_t default_idx = 0;
	size_t total = 0, cap = 0;
	struct sweep_run *r = NULL;

	*runs = NULL;
	*n = 0;
	for (size_t src = 0; src < s->ntraces + s->nworkloads; src++) {
		bool wl = src >= s->ntraces;
		size_t t = wl ? src - s->ntraces : src;
		/* no allocator axis: the input's own (a capture's), else the
		 * default; either way not a setting the spec gave */
		struct vec alloc = s->ax[AX_ALLOCATOR];
		const char *dn = !wl && s->trace_alloc && s->trace_alloc[t] ? s->trace_alloc[t]
									    : POLICY_DEFAULT_NAME;
		for (uint32_t i = 0; policy_table[i]; i++)
			if (policy_table[i] == policy_find(dn))
				default_idx = i;
		if (!alloc.n) {
			alloc.v = &default_idx;
			alloc.n = 1;
		}
		/* workloads: one run per seed, or one with the spec's own seed */
		uint64_t nseeds = wl && s->nseeds ? s->nseeds : 1;
		for (size_t ai = 0; ai < alloc.n; ai++) {
			const struct policy_ops *ops = policy_table[alloc.v[ai]];
			const char *an = ops->name;
			/* odometer over the axes after the allocator that apply */
			size_t idx[AX_NR] = {0};
			for (;;) {
				struct sweep_run x = {
					.trace = wl ? s->workloads[t] : s->traces[t],
					.trace_idx = t,
					.workload = wl,
					.allocator = an,
					.sample_every =
						s->sample_every ? s->sample_every : "1000ev",
					.align_sites = s->align_sites,
					.given = s->ax[AX_ALLOCATOR].n ? 1u << AX_ALLOCATOR : 0,
					/* an axis left out is `auto` */
					.kernel_auto = !s->ax[AX_KERNEL].n,
					.nr_cpus_auto = !s->ax[AX_NR_CPUS].n,
				};
				policy_cfg_default(&x.cfg);
				for (int a = AX_KERNEL; a < AX_NR; a++)
					if (s->ax[a].n && applies((enum axis)a, ops))
						set_axis(&x, (enum axis)a, s->ax[a].v[idx[a]]);
				if (!settle_align(s, &x) || !settle_sheaves(s, idx, &x))
					goto next;
				if (total + nseeds > cap) {
					cap = cap ? cap * 2 : 64;
					if (cap < total + nseeds)
						cap = total + nseeds;
					struct sweep_run *nr = realloc(r, cap * sizeof(*nr));
					if (!nr) {
						free(r);
						return err_set(e, SLABSIM_ENOMEM, "out of memory");
					}
					r = nr;
				}
				if (wl && s->nseeds) {
					x.seed_set = true;
					for (size_t k = 0; k < s->nseed_ranges; k++)
						for (uint64_t sd = s->seeds[k].lo;; sd++) {
							x.seed = sd;
							x.index = total;
							r[total++] = x;
							if (sd == s->seeds[k].hi)
								break;
						}
				} else {
					x.index = total;
					r[total++] = x;
				}
next:;
				int a;
				for (a = AX_NR - 1; a >= AX_KERNEL; a--) {
					if (!s->ax[a].n || !applies((enum axis)a, ops))
						continue;
					if (++idx[a] < s->ax[a].n)
						break;
					idx[a] = 0;
				}
				if (a < AX_KERNEL)
					break;
			}
		}
	}
	*runs = r;
	*n = total;
	return 0;
}

int sweep_parse_shard(const char *arg, uint32_t *i, uint32_t *n, struct err *e)
{
	unsigned long a, b;
	char *end;
	if (*arg < '0' || *arg > '9')
		goto bad;
	errno = 0;
	a = strtoul(arg, &end, 10);
	if (errno || *end != '/' || end[1] < '0' || end[1] > '9')
		goto bad;
	b = strtoul(end + 1, &end, 10);
	if (errno || *end || b < 1 || b > 1000000 || a < 1 || a > b)
		goto bad;
	*i = (uint32_t)a;
	*n = (uint32_t)b;
	return 0;
bad:
	return err_set(e, SLABSIM_EUSAGE,
		       "--shard expects I/N with 1 <= I <= N (the I-th of N parts), got '%s'", arg);
}
