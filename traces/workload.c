/* workload.c - parser of workload specs (docs/workloads.md). */
#include "workload_int.h"

#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LINE_MAX_LEN (1 << 20) /* long inline histograms */
#define COPY_LEN     256       /* of a value, for messages */
#define MAX_WORDS    8

struct parser {
	const char *name;
	char *dir; /* directory of name, for @FILE */
	unsigned long line;
	struct workload *w;
	struct err *e;
	enum { SEC_NONE, SEC_WORKLOAD, SEC_CACHE, SEC_STREAM, SEC_PHASE } sec;
	uint32_t seen; /* keys seen in the current section (bit per key) */
	bool had_workload;
	/* `rate STREAM = X` lines, resolved at the end (streams may follow) */
	struct pending_rate {
		char *stream;
		uint32_t phase;
		double mult;
		unsigned long line;
	} * rates;
	uint32_t nrates;
	unsigned long nlines; /* of the whole text, for errors about what is missing */
};

static int bad(struct parser *ps, const char *what, const char *got)
{
	return err_at(ps->e, SLABSIM_EINPUT, ps->name, ps->line, "expected %s, got '%s'", what,
		      got);
}

/* A stream's CPU at or above the workload's cpus: name both numbers. */
static int bad_cpu(struct parser *ps, uint32_t cpus, const char *got)
{
	char what[64];
	(void)snprintf(what, sizeof(what), "a CPU below the workload's cpus (%" PRIu32 ")", cpus);
	return bad(ps, what, got);
}

static int oom(struct parser *ps)
{
	return err_set(ps->e, SLABSIM_ENOMEM, "out of memory");
}

static char *dupstr(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static char *trim(char *s)
{
	while (is_blank(*s))
		s++;
	char *end = s + strlen(s);
	while (end > s && is_blank(end[-1]))
		*--end = '\0';
	return s;
}

/* Split s in place into blank-separated words. Returns the count, or -1 if
 * there are more than max. */
static int split_words(char *s, char **w, int max)
{
	int n = 0;
	for (;;) {
		while (is_blank(*s))
			s++;
		if (!*s)
			return n;
		if (n == max)
			return -1;
		w[n++] = s;
		while (*s && !is_blank(*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
}

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 127 || strchr("[]=,#;", *s))
			return false;
	return true;
}

static bool parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (*s < '0' || *s > '9')
		return false;
	uint64_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static bool parse_double(const char *s, double *out)
{
	char *end;
	if (!*s || is_blank(*s))
		return false;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || errno || !isfinite(v))
		return false;
	*out = v;
	return true;
}

bool workload_parse_time(const char *s, uint64_t *ns)
{
	static const struct {
		const char *u;
		uint64_t mul;
	} units[] = {{"ns", 1},		{"us", 1000},	       {"ms", 1000000},
		     {"s", 1000000000}, {"m", 60000000000ull}, {"h", 3600000000000ull}};
	const char *p = s;
	uint64_t ip = 0, frac = 0, fscale = 1;
	bool digits = false;
	for (; *p >= '0' && *p <= '9'; p++, digits = true) {
		if (ip > (UINT64_MAX / 10) - 1)
			return false;
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		for (; *p >= '0' && *p <= '9'; p++, digits = true) {
			if (fscale > UINT64_MAX / 100)
				return false; /* more fraction digits than any unit needs */
			frac = frac * 10 + (uint64_t)(*p - '0');
			fscale *= 10;
		}
	}
	if (!digits)
		return false;
	if (!*p) { /* a bare number: only 0 */
		if (ip || frac)
			return false;
		*ns = 0;
		return true;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].u) != 0)
			continue;
		uint64_t mul = units[i].mul;
		if (ip > (UINT64_MAX >> 1) / mul)
			return false;
		uint64_t v = ip * mul;
		/* frac/fscale * mul must be a whole number of ns: cancel the
		 * common powers of ten first (mul is 1, 6 or 36 times one), so
		 * the product cannot overflow */
		uint64_t m = mul, scale = fscale;
		while (scale > 1 && m % 10 == 0) {
			m /= 10;
			scale /= 10;
		}
		if ((frac * m) % scale)
			return false;
		uint64_t add = frac * m / scale;
		if (v + add > (UINT64_MAX >> 1))
			return false;
		*ns = v + add;
		return true;
	}
	return false;
}

/* ---- values ---- */

static const char size_forms[] =
	"a size distribution (fixed N | uniform LO HI | normal MEAN SD [LO HI] | lognormal "
	"MEDIAN SIGMA [LO HI] | pow2 P LO HI | empirical S:W,... | empirical @FILE)";

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static int add_empirical(struct parser *ps, struct wl_size *sz, uint64_t s, double wgt)
{
	if ((sz->n & (sz->n - 1)) == 0 || sz->n == 0) {
		uint32_t cap = sz->n ? sz->n * 2 : 8;
		uint64_t *ns = realloc(sz->sizes, cap * sizeof(*ns));
		if (!ns)
			return oom(ps);
		sz->sizes = ns;
		double *nw = realloc(sz->weights, cap * sizeof(*nw));
		if (!nw)
			return oom(ps);
		sz->weights = nw;
	}
	sz->sizes[sz->n] = s;
	sz->weights[sz->n] = wgt;
	sz->n++;
	return 0;
}

static int finish_empirical(struct parser *ps, struct wl_size *sz, const char *got)
{
	double sum = 0;
	for (uint32_t i = 0; i < sz->n; i++)
		sum += sz->weights[i];
	if (!sz->n || !(sum > 0))
		return bad(ps, "an empirical histogram with a positive total weight", got);
	sz->d = gsl_ran_discrete_preproc(sz->n, sz->weights);
	return sz->d ? 0 : oom(ps);
}

static bool parse_sw(char *item, char sep, uint64_t *s, double *wgt)
{
	char *c = strchr(item, sep);
	if (!c)
		return false;
	*c = '\0';
	return parse_u64(item, 1, WL_MAX_SIZE, s) && parse_double(c + 1, wgt) && *wgt >= 0;
}

static int read_empirical_file(struct parser *ps, struct wl_size *sz, const char *file)
{
	char path[4096];
	if (file[0] == '/' || !ps->dir)
		(void)snprintf(path, sizeof(path), "%s", file);
	else
		(void)snprintf(path, sizeof(path), "%s/%s", ps->dir, file);
	FILE *f = fopen(path, "r");
	if (!f)
		return err_at(ps->e, SLABSIM_EIO, ps->name, ps->line, "cannot read %s: %s", path,
			      strerror(errno));
	/* a regular file only: never block on a FIFO or read /dev/zero forever */
	struct stat stt;
	if (fstat(fileno(f), &stt) || !S_ISREG(stt.st_mode) || stt.st_size > (64 << 20)) {
		fclose(f);
		return err_at(ps->e, SLABSIM_EIO, ps->name, ps->line,
			      "cannot read %s: not a regular file under 64 MiB", path);
	}
	char *buf = NULL;
	size_t cap = 0;
	unsigned long ln = 0;
	int rc = 0;
	while (getline(&buf, &cap, f) >= 0) {
		ln++;
		char *h = strpbrk(buf, "#\n");
		if (h)
			*h = '\0';
		char *words[3];
		int n = split_words(buf, words, 3);
		if (n == 0)
			continue;
		uint64_t s;
		double wgt;
		if (n != 2 || !parse_u64(words[0], 1, WL_MAX_SIZE, &s) ||
		    !parse_double(words[1], &wgt) || wgt < 0) {
			rc = err_at(ps->e, SLABSIM_EINPUT, path, ln,
				    "expected 'SIZE WEIGHT' (size 1..%u, weight >= 0), got '%s'",
				    WL_MAX_SIZE, n > 0 ? words[0] : "");
			break;
		}
		if ((rc = add_empirical(ps, sz, s, wgt)))
			break;
	}
	free(buf);
	fclose(f);
	if (rc)
		return rc;
	return finish_empirical(ps, sz, file);
}

/* Probability that a rounded draw lands in [lo, hi]: must be worth redrawing. */
static bool range_ok(const struct wl_size *sz)
{
	double lo = (double)sz->lo - 0.5, hi = (double)sz->hi + 0.5, p;
	if (sz->kind == WL_SZ_NORMAL)
		p = gsl_cdf_gaussian_P(hi - sz->mu, sz->sigma) -
		    gsl_cdf_gaussian_P(lo - sz->mu, sz->sigma);
	else
		p = gsl_cdf_lognormal_P(hi, sz->mu, sz->sigma) -
		    gsl_cdf_lognormal_P(lo, sz->mu, sz->sigma);
	return p >= 1e-3;
}

/* "empirical" has been read; rest is "@FILE" or "S:W, S:W, ..." (any
 * length, blanks allowed after commas). */
static int parse_empirical(struct parser *ps, struct wl_size *sz, char *rest, const char *copy)
{
	sz->kind = WL_SZ_EMPIRICAL;
	rest = trim(rest);
	if (*rest == '@') {
		if (!rest[1] || strpbrk(rest, " \t"))
			return bad(ps, "empirical @FILE", copy);
		return read_empirical_file(ps, sz, rest + 1);
	}
	char *o = rest;
	for (char *i = rest; *i; i++)
		if (!is_blank(*i))
			*o++ = *i;
	*o = '\0';
	if (!*rest)
		return bad(ps, "empirical S:W,S:W,... or empirical @FILE", copy);
	for (char *sv, *item = strtok_r(rest, ",", &sv); item; item = strtok_r(NULL, ",", &sv)) {
		uint64_t s;
		double wgt;
		if (!parse_sw(item, ':', &s, &wgt))
			return bad(ps,
				   "empirical S:W,S:W,... with sizes 1..4194304 and weights >= 0",
				   copy);
		int rc = add_empirical(ps, sz, s, wgt);
		if (rc)
			return rc;
	}
	return finish_empirical(ps, sz, copy);
}

static int parse_size(struct parser *ps, struct wl_size *sz, char *val)
{
	char copy[COPY_LEN];
	(void)snprintf(copy, sizeof(copy), "%s", val);
	memset(sz, 0, sizeof(*sz));
	if (strncmp(val, "empirical", 9) == 0 && (is_blank(val[9]) || !val[9]))
		return parse_empirical(ps, sz, val + 9, copy);
	char *w[MAX_WORDS];
	int n = split_words(val, w, MAX_WORDS);
	if (n < 1)
		return bad(ps, size_forms, copy);
	if (strcmp(w[0], "fixed") == 0) {
		if (n != 2 || !parse_u64(w[1], 1, WL_MAX_SIZE, &sz->a))
			return bad(ps, "fixed N with N in 1..4194304", copy);
		sz->kind = WL_SZ_FIXED;
	} else if (strcmp(w[0], "uniform") == 0) {
		if (n != 3 || !parse_u64(w[1], 1, WL_MAX_SIZE, &sz->a) ||
		    !parse_u64(w[2], sz->a, WL_MAX_SIZE, &sz->b))
			return bad(ps, "uniform LO HI with 1 <= LO <= HI <= 4194304", copy);
		sz->kind = WL_SZ_UNIFORM;
	} else if (strcmp(w[0], "normal") == 0 || strcmp(w[0], "lognormal") == 0) {
		bool ln = w[0][0] == 'l';
		const char *what =
			ln ? "lognormal MEDIAN SIGMA [LO HI] with MEDIAN > 0, SIGMA > 0, "
			     "1 <= LO <= HI <= 4194304"
			   : "normal MEAN SD [LO HI] with SD > 0, 1 <= LO <= HI <= "
			     "4194304";
		sz->lo = 1;
		sz->hi = WL_MAX_SIZE;
		if ((n != 3 && n != 5) || !parse_double(w[1], &sz->mu) ||
		    !parse_double(w[2], &sz->sigma) || !(sz->sigma > 0) || (ln && !(sz->mu > 0)) ||
		    (n == 5 && (!parse_u64(w[3], 1, WL_MAX_SIZE, &sz->lo) ||
				!parse_u64(w[4], sz->lo, WL_MAX_SIZE, &sz->hi))))
			return bad(ps, what, copy);
		sz->kind = ln ? WL_SZ_LOGNORMAL : WL_SZ_NORMAL;
		if (ln)
			sz->mu = log(sz->mu);
		if (!range_ok(sz))
			return bad(ps, "a range [LO, HI] holding at least 0.1% of the distribution",
				   copy);
	} else if (strcmp(w[0], "pow2") == 0) {
		if (n != 4 || !parse_double(w[1], &sz->p) || !(sz->p >= 1e-6 && sz->p <= 1) ||
		    !parse_u64(w[2], 1, WL_MAX_SIZE, &sz->a) ||
		    !parse_u64(w[3], sz->a, WL_MAX_SIZE, &sz->b) || !is_pow2(sz->a) ||
		    !is_pow2(sz->b))
			return bad(
				ps,
				"pow2 P LO HI with 1e-6 <= P <= 1 and powers of two 1 <= LO <= HI "
				"<= 4194304",
				copy);
		sz->kind = WL_SZ_POW2;
	} else {
		return bad(ps, size_forms, copy);
	}
	return 0;
}

static int parse_lifetime(struct parser *ps, struct wl_life *lt, char *val)
{
	static const char forms[] = "a lifetime (exponential MEAN | lognormal MEDIAN SIGMA | "
				    "pareto ALPHA XM | fixed T | phase | forever)";
	char copy[COPY_LEN];
	(void)snprintf(copy, sizeof(copy), "%s", val);
	char *w[MAX_WORDS];
	int n = split_words(val, w, MAX_WORDS);
	memset(lt, 0, sizeof(*lt));
	if (n < 1)
		return bad(ps, forms, copy);
	uint64_t t;
	if (strcmp(w[0], "exponential") == 0) {
		if (n != 2 || !workload_parse_time(w[1], &lt->t_ns) || !lt->t_ns)
			return bad(ps, "exponential MEAN with a time MEAN > 0 (e.g. 10ms)", copy);
		lt->kind = WL_LT_EXP;
	} else if (strcmp(w[0], "lognormal") == 0) {
		if (n != 3 || !workload_parse_time(w[1], &t) || !t ||
		    !parse_double(w[2], &lt->sigma) || !(lt->sigma > 0))
			return bad(ps,
				   "lognormal MEDIAN SIGMA with a time MEDIAN > 0 and SIGMA > 0",
				   copy);
		lt->mu = log((double)t);
		lt->kind = WL_LT_LOGNORMAL;
	} else if (strcmp(w[0], "pareto") == 0) {
		if (n != 3 || !parse_double(w[1], &lt->alpha) || !(lt->alpha > 0) ||
		    !workload_parse_time(w[2], &t) || !t)
			return bad(ps, "pareto ALPHA XM with ALPHA > 0 and a time XM > 0", copy);
		lt->xm = (double)t;
		lt->kind = WL_LT_PARETO;
	} else if (strcmp(w[0], "fixed") == 0) {
		if (n != 2 || !workload_parse_time(w[1], &lt->t_ns))
			return bad(ps, "fixed T with a time T (e.g. 5s, or 0)", copy);
		lt->kind = WL_LT_FIXED;
	} else if (strcmp(w[0], "phase") == 0 && n == 1) {
		lt->kind = WL_LT_PHASE;
	} else if (strcmp(w[0], "forever") == 0 && n == 1) {
		lt->kind = WL_LT_FOREVER;
	} else {
		return bad(ps, forms, copy);
	}
	return 0;
}

static int parse_arrival(struct parser *ps, struct wl_arrival *a, char *val)
{
	char copy[COPY_LEN];
	(void)snprintf(copy, sizeof(copy), "%s", val);
	char *w[MAX_WORDS];
	int n = split_words(val, w, MAX_WORDS);
	memset(a, 0, sizeof(*a));
	uint64_t sz;
	if (n == 2 && strcmp(w[0], "poisson") == 0) {
		if (!parse_double(w[1], &a->rate) || !(a->rate > 0) || a->rate > 1e9)
			return bad(ps, "poisson RATE with 0 < RATE <= 1e9 per second", copy);
		a->kind = WL_AR_POISSON;
	} else if (n == 4 && strcmp(w[0], "burst") == 0) {
		if (!parse_double(w[1], &a->rate) || !(a->rate > 0) || a->rate > 1e9 ||
		    !parse_u64(w[2], 1, UINT32_MAX, &sz) || !workload_parse_time(w[3], &a->gap_ns))
			return bad(ps,
				   "burst RATE SIZE GAP with 0 < RATE <= 1e9, SIZE >= 1 and a "
				   "time GAP",
				   copy);
		a->size = (uint32_t)sz;
		a->kind = WL_AR_BURST;
		/* Bursts that start while one runs join it, and a burst's
		 * allocations are GAP apart: at RATE x SIZE x GAP >= 1 they pile
		 * up without bound and the mean is not RATE x SIZE (the
		 * generator then spends its time on arrivals that emit
		 * nothing; found while bounding fuzz_workload's work) */
		if (a->rate * (double)a->size * ((double)a->gap_ns / 1e9) >= 1)
			return bad(ps,
				   "burst RATE SIZE GAP with RATE x SIZE x GAP below 1 (bursts "
				   "GAP apart that keep up)",
				   copy);
	} else if (n == 2 && strcmp(w[0], "periodic") == 0) {
		if (!workload_parse_time(w[1], &a->gap_ns) || !a->gap_ns)
			return bad(ps, "periodic INTERVAL with a time INTERVAL > 0", copy);
		a->rate = 1e9 / (double)a->gap_ns;
		a->kind = WL_AR_PERIODIC;
	} else {
		return bad(ps,
			   "an arrival process (poisson RATE | burst RATE SIZE GAP | periodic "
			   "INTERVAL)",
			   copy);
	}
	return 0;
}

static int parse_cpu(struct parser *ps, struct wl_cpu *c, char *val)
{
	static const char what[] = "a CPU (all | N | N:W,N:W,...) with N < 8192 and W >= 0";
	char copy[COPY_LEN];
	(void)snprintf(copy, sizeof(copy), "%s", val);
	uint64_t v;
	c->line = ps->line;
	/* blanks after commas are allowed: drop every blank */
	char *o = val;
	for (char *i = val; *i; i++)
		if (!is_blank(*i))
			*o++ = *i;
	*o = '\0';
	if (strcmp(val, "all") == 0) {
		c->kind = WL_CPU_ALL;
		return 0;
	}
	if (parse_u64(val, 0, 8191, &v)) {
		c->kind = WL_CPU_FIXED;
		c->cpu = (uint32_t)v;
		return 0;
	}
	c->kind = WL_CPU_MIX;
	double sum = 0;
	for (char *sv, *item = strtok_r(val, ",", &sv); item; item = strtok_r(NULL, ",", &sv)) {
		char *colon = strchr(item, ':');
		double wgt;
		if (!colon)
			return bad(ps, what, copy);
		*colon = '\0';
		if (!parse_u64(item, 0, 8191, &v) || !parse_double(colon + 1, &wgt) || wgt < 0)
			return bad(ps, what, copy);
		if ((c->n & (c->n - 1)) == 0 || c->n == 0) {
			uint32_t cap = c->n ? c->n * 2 : 8;
			uint32_t *nc = realloc(c->cpus, cap * sizeof(*nc));
			if (!nc)
				return oom(ps);
			c->cpus = nc;
			double *nw = realloc(c->weights, cap * sizeof(*nw));
			if (!nw)
				return oom(ps);
			c->weights = nw;
		}
		c->cpus[c->n] = (uint32_t)v;
		c->weights[c->n++] = wgt;
		sum += wgt;
	}
	if (!c->n || !(sum > 0))
		return bad(ps, "a CPU mix with a positive total weight", copy);
	c->d = gsl_ran_discrete_preproc(c->n, c->weights);
	return c->d ? 0 : oom(ps);
}

/* ---- sections ---- */

static int find_cache(const struct workload *w, const char *name)
{
	for (uint32_t i = 0; i < w->ncaches; i++)
		if (strcmp(w->caches[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int find_stream(const struct workload *w, const char *name)
{
	for (uint32_t i = 0; i < w->nstreams; i++)
		if (strcmp(w->streams[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int find_phase(const struct workload *w, const char *name)
{
	for (uint32_t i = 0; i < w->nphases; i++)
		if (strcmp(w->phases[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int section(struct parser *ps, char *s)
{
	struct workload *w = ps->w;
	char copy[COPY_LEN];
	(void)snprintf(copy, sizeof(copy), "%s", s);
	size_t len = strlen(s);
	static const char what[] =
		"a section header [workload], [cache NAME], [stream NAME] or [phase NAME]";
	if (len < 2 || s[len - 1] != ']')
		return bad(ps, what, copy);
	s[len - 1] = '\0';
	char *words[3];
	int n = split_words(s + 1, words, 3);
	if (n < 1 || n > 2)
		return bad(ps, what, copy);
	ps->seen = 0;
	if (strcmp(words[0], "workload") == 0) {
		if (n != 1)
			return bad(ps, "[workload] without a name", copy);
		if (ps->had_workload)
			return bad(ps, "one [workload] section", copy);
		ps->had_workload = true;
		ps->sec = SEC_WORKLOAD;
		return 0;
	}
	if (n != 2 || !valid_name(words[1]))
		return bad(ps,
			   "a section header [cache NAME], [stream NAME] or [phase NAME] with a "
			   "one-word NAME (no [ ] = , # ;)",
			   copy);
	const char *name = words[1];
	if (strcmp(words[0], "cache") == 0) {
		if (find_cache(w, name) >= 0)
			return bad(ps, "a cache name not defined before", copy);
		struct wl_cache *nc = realloc(w->caches, (w->ncaches + 1) * sizeof(*nc));
		if (!nc)
			return oom(ps);
		w->caches = nc;
		struct wl_cache *c = &w->caches[w->ncaches];
		memset(c, 0, sizeof(*c));
		if (!(c->name = dupstr(name)))
			return oom(ps);
		c->line = ps->line;
		w->ncaches++;
		ps->sec = SEC_CACHE;
	} else if (strcmp(words[0], "stream") == 0) {
		if (find_stream(w, name) >= 0)
			return bad(ps, "a stream name not defined before", copy);
		struct wl_stream *ns = realloc(w->streams, (w->nstreams + 1) * sizeof(*ns));
		if (!ns)
			return oom(ps);
		w->streams = ns;
		struct wl_stream *st = &w->streams[w->nstreams];
		memset(st, 0, sizeof(*st));
		w->nstreams++;
		if (!(st->name = dupstr(name)))
			return oom(ps);
		st->line = ps->line;
		st->cache = -1;
		st->cpu.kind = WL_CPU_ALL;
		for (int i = 0; i < WL_MAX_PHASES; i++)
			st->mult[i] = 1.0;
		ps->sec = SEC_STREAM;
	} else if (strcmp(words[0], "phase") == 0) {
		if (find_phase(w, name) >= 0)
			return bad(ps, "a phase name not defined before", copy);
		if (w->nphases == WL_MAX_PHASES)
			return bad(ps, "at most 64 phases", copy);
		struct wl_phase *np = realloc(w->phases, (w->nphases + 1) * sizeof(*np));
		if (!np)
			return oom(ps);
		w->phases = np;
		struct wl_phase *ph = &w->phases[w->nphases];
		memset(ph, 0, sizeof(*ph));
		w->nphases++;
		if (!(ph->name = dupstr(name)))
			return oom(ps);
		ph->line = ps->line;
		ps->sec = SEC_PHASE;
	} else {
		return bad(ps, what, copy);
	}
	return 0;
}

/* Mark key bit as seen; error on a repeat. */
static int once(struct parser *ps, int bit, const char *key)
{
	if (ps->seen & (1u << bit))
		return bad(ps, "each key once per section", key);
	ps->seen |= 1u << bit;
	return 0;
}

static int kv_workload(struct parser *ps, const char *key, char *val)
{
	struct workload *w = ps->w;
	static const char *const keys[] = {"name", "seed", "duration", "cpus", "rng"};
	int k = -1, rc;
	for (int i = 0; i < 5; i++)
		if (strcmp(key, keys[i]) == 0)
			k = i;
	if (k < 0)
		return bad(ps, "a [workload] key (name, seed, duration, cpus, rng)", key);
	if ((rc = once(ps, k, key)))
		return rc;
	uint64_t v;
	switch (k) {
	case 0:
		if (!valid_name(val))
			return bad(ps, "a one-word name", val);
		free(w->name);
		if (!(w->name = dupstr(val)))
			return oom(ps);
		break;
	case 1:
		if (!parse_u64(val, 0, UINT64_MAX, &w->seed))
			return bad(ps, "a seed from 0 to 18446744073709551615", val);
		w->has_seed = true;
		break;
	case 2:
		if (!workload_parse_time(val, &w->duration_ns) || !w->duration_ns)
			return bad(ps, "a duration > 0 with a unit (e.g. 60s)", val);
		w->has_duration = true;
		break;
	case 3:
		if (!parse_u64(val, 1, 8192, &v))
			return bad(ps, "a CPU count from 1 to 8192", val);
		w->cpus = (uint32_t)v;
		break;
	case 4: {
		const gsl_rng_type **t;
		for (t = gsl_rng_types_setup(); *t; t++)
			if (strcmp((*t)->name, val) == 0)
				break;
		if (!*t)
			return bad(ps, "a gsl_rng type name (e.g. mt19937, ranlxd2, taus2)", val);
		w->rng = *t;
		break;
	}
	}
	return 0;
}

static int kv_cache(struct parser *ps, const char *key, char *val)
{
	struct wl_cache *c = &ps->w->caches[ps->w->ncaches - 1];
	static const char *const keys[] = {"object_size", "align", "flags", "usersize"};
	int k = -1, rc;
	for (int i = 0; i < 4; i++)
		if (strcmp(key, keys[i]) == 0)
			k = i;
	if (k < 0)
		return bad(ps, "a [cache] key (object_size, align, flags, usersize)", key);
	if ((rc = once(ps, k, key)))
		return rc;
	uint64_t v;
	if (k == 0) {
		if (!parse_u64(val, 1, WL_MAX_SIZE, &v))
			return bad(ps, "an object size from 1 to 4194304", val);
		c->object_size = (uint32_t)v;
		c->has_size = true;
	} else if (k == 3) {
		if (!parse_u64(val, 0, WL_MAX_SIZE, &v))
			return bad(ps, "a usersize from 0 to 4194304", val);
		c->usersize = (uint32_t)v;
	} else if (k == 1) {
		if (!parse_u64(val, 0, 4096, &v) || (v && !is_pow2(v)))
			return bad(ps, "an alignment of 0 or a power of two up to 4096", val);
		c->align = (uint32_t)v;
	} else {
		static const struct {
			const char *n;
			uint32_t f;
		} fl[] = {{"hwcache", WORKLOAD_CF_HWCACHE},
			  {"reclaim", WORKLOAD_CF_RECLAIM},
			  {"account", WORKLOAD_CF_ACCOUNT},
			  {"dma", WORKLOAD_CF_DMA},
			  {"ctor", WORKLOAD_CF_CTOR},
			  {"typesafe_by_rcu", WORKLOAD_CF_TYPESAFE_BY_RCU}};
		char *o = val;
		for (char *i = val; *i; i++)
			if (!is_blank(*i))
				*o++ = *i;
		*o = '\0';
		for (char *sv, *item = strtok_r(val, ",", &sv); item;
		     item = strtok_r(NULL, ",", &sv)) {
			size_t i;
			for (i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
				if (strcmp(item, fl[i].n) == 0)
					break;
			if (i == sizeof(fl) / sizeof(fl[0]))
				return bad(ps,
					   "cache flags from hwcache, reclaim, account, dma, ctor, "
					   "typesafe_by_rcu",
					   item);
			c->flags |= fl[i].f;
		}
	}
	return 0;
}

static int kv_stream(struct parser *ps, const char *key, char *val)
{
	struct wl_stream *st = &ps->w->streams[ps->w->nstreams - 1];
	static const char *const keys[] = {"target",   "gfp",	  "site", "size",
					   "lifetime", "arrival", "cpu",  "phases"};
	int k = -1, rc;
	for (int i = 0; i < 8; i++)
		if (strcmp(key, keys[i]) == 0)
			k = i;
	if (k < 0)
		return bad(ps,
			   "a [stream] key (target, gfp, site, size, lifetime, arrival, cpu, "
			   "phases)",
			   key);
	if ((rc = once(ps, k, key)))
		return rc;
	switch (k) {
	case 0: {
		char copy[COPY_LEN];
		(void)snprintf(copy, sizeof(copy), "%s", val);
		char *w[3];
		int n = split_words(val, w, 3);
		st->target_line = ps->line;
		if (n == 1 && strcmp(w[0], "kmalloc") == 0) {
			st->cache = -1;
			return 0;
		}
		if (n != 2 || strcmp(w[0], "cache") != 0 || !valid_name(w[1]))
			return bad(ps, "a target 'cache NAME' or 'kmalloc'", copy);
		if (!(st->target_name = dupstr(w[1])))
			return oom(ps);
		return 0;
	}
	case 1:
		st->has_gfp = true;
		if (strcmp(val, "kernel") == 0)
			st->gfp = 0;
		else if (strcmp(val, "reclaimable") == 0)
			st->gfp = TRACE_GFP_RECLAIMABLE;
		else if (strcmp(val, "dma") == 0)
			st->gfp = TRACE_GFP_DMA;
		else if (strcmp(val, "account") == 0)
			st->gfp = TRACE_GFP_ACCOUNT;
		else
			return bad(ps, "a gfp of kernel, reclaimable, dma or account", val);
		return 0;
	case 2:
		if (!*val || strpbrk(val, " \t"))
			return bad(ps, "a one-word call-site label", val);
		free(st->site);
		if (!(st->site = dupstr(val)))
			return oom(ps);
		return 0;
	case 3:
		st->size_line = ps->line;
		return parse_size(ps, &st->size, val);
	case 4:
		return parse_lifetime(ps, &st->life, val);
	case 5:
		return parse_arrival(ps, &st->arr, val);
	case 6:
		return parse_cpu(ps, &st->cpu, val);
	default:
		st->phases_line = ps->line;
		if (!*val)
			return bad(ps, "a comma list of phase names", val);
		if (!(st->phases_text = dupstr(val)))
			return oom(ps);
		return 0;
	}
}

static int kv_phase(struct parser *ps, char *key, char *val)
{
	struct workload *w = ps->w;
	struct wl_phase *ph = &w->phases[w->nphases - 1];
	char *kw[3];
	int n = split_words(key, kw, 3);
	if (n == 1 && strcmp(kw[0], "duration") == 0) {
		int rc = once(ps, 0, "duration");
		if (rc)
			return rc;
		if (!workload_parse_time(val, &ph->duration_ns) || !ph->duration_ns)
			return bad(ps, "a phase duration > 0 with a unit (e.g. 10s)", val);
		return 0;
	}
	if (n == 2 && strcmp(kw[0], "rate") == 0) {
		double m;
		if (!valid_name(kw[1]))
			return bad(ps, "'rate STREAM' with a stream name", kw[1]);
		if (!parse_double(val, &m) || m < 0 || m > 1e9)
			return bad(ps, "a rate multiplier from 0 to 1e9", val);
		for (uint32_t i = 0; i < ps->nrates; i++)
			if (ps->rates[i].phase == w->nphases - 1 &&
			    strcmp(ps->rates[i].stream, kw[1]) == 0)
				return bad(ps, "one 'rate STREAM' per stream and phase", kw[1]);
		struct pending_rate *nr = realloc(ps->rates, (ps->nrates + 1) * sizeof(*nr));
		if (!nr)
			return oom(ps);
		ps->rates = nr;
		nr[ps->nrates] = (struct pending_rate){dupstr(kw[1]), w->nphases - 1, m, ps->line};
		if (!nr[ps->nrates++].stream)
			return oom(ps);
		return 0;
	}
	return bad(ps, "a [phase] key (duration, rate STREAM)", n > 0 ? kw[0] : "");
}

static int line(struct parser *ps, char *s)
{
	char *c = strpbrk(s, "#;");
	if (c)
		*c = '\0';
	s = trim(s);
	if (!*s)
		return 0;
	if (*s == '[')
		return section(ps, s);
	char *eq = strchr(s, '=');
	if (!eq)
		return bad(ps, "'key = value' or a [section] header", s);
	*eq = '\0';
	char *key = trim(s), *val = trim(eq + 1);
	if (!*key)
		return bad(ps, "a key before '='", "=");
	switch (ps->sec) {
	case SEC_WORKLOAD:
		return kv_workload(ps, key, val);
	case SEC_CACHE:
		return kv_cache(ps, key, val);
	case SEC_STREAM:
		return kv_stream(ps, key, val);
	case SEC_PHASE:
		return kv_phase(ps, key, val);
	default:
		return bad(ps, "a [section] header before the first key", key);
	}
}

/* Resolve names and check what needs the whole file. */
static int finish(struct parser *ps)
{
	struct workload *w = ps->w;
	for (uint32_t i = 0; i < w->ncaches; i++) {
		ps->line = w->caches[i].line;
		if (!w->caches[i].has_size)
			return bad(ps, "object_size in this [cache] section", "nothing");
		if (w->caches[i].usersize > w->caches[i].object_size)
			return bad(ps, "a usersize no larger than object_size", "a larger one");
	}
	if (!w->nphases) {
		w->phases = calloc(1, sizeof(*w->phases));
		if (!w->phases || !(w->phases[0].name = dupstr("main")))
			return oom(ps);
		w->nphases = 1;
	}
	for (uint32_t i = 0; i + 1 < w->nphases; i++) {
		ps->line = w->phases[i].line;
		if (!w->phases[i].duration_ns)
			return bad(ps, "a duration in every [phase] but the last", "nothing");
	}
	if (!w->nstreams) {
		/* named at the last line (1 for an empty file): every error
		 * names NAME:LINE (found by fuzz_workload) */
		ps->line = ps->nlines ? ps->nlines : 1;
		return err_at(ps->e, SLABSIM_EINPUT, ps->name, ps->line,
			      "expected at least one [stream NAME] section, got none by the end "
			      "of the file");
	}
	for (uint32_t i = 0; i < ps->nrates; i++) {
		ps->line = ps->rates[i].line;
		int st = find_stream(w, ps->rates[i].stream);
		if (st < 0)
			return bad(ps, "'rate STREAM' naming a [stream] of this file",
				   ps->rates[i].stream);
		struct wl_stream *s = &w->streams[st];
		s->mult[ps->rates[i].phase] = ps->rates[i].mult;
		/* arrivals are whole ns apart: at most one per ns on average */
		double per_s = s->arr.rate * ps->rates[i].mult *
			       (s->arr.kind == WL_AR_BURST ? s->arr.size : 1);
		if (per_s > 1e9)
			return bad(ps, "at most 1e9 allocations per second (rate x multiplier)",
				   ps->rates[i].stream);
		if (s->arr.kind == WL_AR_BURST &&
		    per_s * ((double)s->arr.gap_ns / 1e9) >= 1) /* see parse_arrival */
			return bad(ps, "RATE x multiplier x SIZE x GAP below 1 for a burst stream",
				   ps->rates[i].stream);
	}
	for (uint32_t i = 0; i < w->nstreams; i++) {
		struct wl_stream *st = &w->streams[i];
		ps->line = st->line;
		if (!st->target_line)
			return bad(ps, "target in this [stream] section", "nothing");
		if (!st->life.kind)
			return bad(ps, "lifetime in this [stream] section", "nothing");
		if (!st->arr.kind)
			return bad(ps, "arrival in this [stream] section", "nothing");
		if (st->arr.kind == WL_AR_BURST && st->arr.rate * st->arr.size > 1e9)
			return bad(ps, "at most 1e9 allocations per second (RATE x SIZE)",
				   st->name);
		if (!st->site && !(st->site = dupstr(st->name)))
			return oom(ps);
		if (st->target_name) {
			ps->line = st->target_line;
			int c = find_cache(w, st->target_name);
			if (c < 0)
				return bad(ps, "a target cache defined by a [cache NAME] section",
					   st->target_name);
			st->cache = c;
			if (st->has_gfp)
				return bad(ps, "gfp only on kmalloc streams", "a cache target");
			if (st->size.kind && !(st->size.kind == WL_SZ_FIXED &&
					       st->size.a == w->caches[c].object_size)) {
				ps->line = st->size_line;
				return bad(
					ps,
					"no size on a cache stream, or 'fixed OBJECT_SIZE' of its "
					"cache",
					"another size");
			}
			st->size.kind = WL_SZ_FIXED;
			st->size.a = w->caches[c].object_size;
		} else if (!st->size.kind) {
			return bad(ps, "size in this kmalloc [stream] section", "nothing");
		}
		ps->line = st->cpu.line;
		char got[32];
		if (st->cpu.kind == WL_CPU_FIXED && st->cpu.cpu >= w->cpus) {
			(void)snprintf(got, sizeof(got), "%" PRIu32, st->cpu.cpu);
			return bad_cpu(ps, w->cpus, got);
		}
		for (uint32_t j = 0; j < st->cpu.n; j++)
			if (st->cpu.cpus[j] >= w->cpus) {
				(void)snprintf(got, sizeof(got), "%" PRIu32, st->cpu.cpus[j]);
				return bad_cpu(ps, w->cpus, got);
			}
		if (!st->phases_text) {
			st->phase_mask = UINT64_MAX;
		} else {
			ps->line = st->phases_line;
			char *buf = st->phases_text; /* consumed here */
			char *o = buf;
			for (char *q = buf; *q; q++)
				if (!is_blank(*q))
					*o++ = *q;
			*o = '\0';
			for (char *sv, *item = strtok_r(buf, ",", &sv); item;
			     item = strtok_r(NULL, ",", &sv)) {
				int p = find_phase(w, item);
				if (p < 0)
					return bad(ps, "phase names defined by [phase NAME]", item);
				st->phase_mask |= 1ull << p;
			}
			if (!st->phase_mask)
				return bad(ps, "a comma list of phase names", st->phases_text);
		}
	}
	return 0;
}

static void fnv1a(const char *text, size_t len, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)text[i];
		h *= 0x100000001b3ull;
	}
	(void)snprintf(out, 17, "%016llx", (unsigned long long)h);
}

int workload_parse(const char *name, const char *text, size_t len, struct workload **out,
		   struct err *e)
{
	struct workload *w = calloc(1, sizeof(*w));
	struct parser ps = {.name = name, .w = w, .e = e};
	char *buf = malloc(LINE_MAX_LEN + 1);
	int rc = 0;
	if (!w || !buf) {
		free(w);
		free(buf);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	w->cpus = 2;
	w->seed = 1;
	w->rng = gsl_rng_mt19937;
	if (!(w->path = dupstr(name))) {
		rc = oom(&ps);
		goto out;
	}
	const char *slash = strrchr(name, '/');
	if (slash) {
		size_t n = (size_t)(slash - name);
		if (!(ps.dir = malloc(n + 2))) {
			rc = oom(&ps);
			goto out;
		}
		memcpy(ps.dir, name, n);
		ps.dir[n] = '\0';
		if (n == 0)
			strcpy(ps.dir, "/");
	}
	fnv1a(text, len, w->hash);
	size_t pos = 0;
	while (pos < len && !rc) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		ps.line++;
		if (end - pos > LINE_MAX_LEN - 1) {
			rc = err_at(e, SLABSIM_EINPUT, name, ps.line,
				    "expected a line of at most %d bytes, got %zu bytes",
				    LINE_MAX_LEN - 1, end - pos);
			break;
		}
		if (memchr(text + pos, '\0', end - pos)) {
			rc = err_at(e, SLABSIM_EINPUT, name, ps.line,
				    "expected text, got a NUL byte");
			break;
		}
		memcpy(buf, text + pos, end - pos);
		buf[end - pos] = '\0';
		rc = line(&ps, buf);
		pos = end + 1;
	}
	ps.nlines = ps.line;
	if (!rc)
		rc = finish(&ps);
	if (!rc && !w->name) {
		const char *base = slash ? slash + 1 : name;
		char tmp[256];
		(void)snprintf(tmp, sizeof(tmp), "%s", base);
		char *dot = strrchr(tmp, '.');
		if (dot && dot != tmp)
			*dot = '\0';
		if (!(w->name = dupstr(tmp)))
			rc = oom(&ps);
	}
out:
	free(buf);
	free(ps.dir);
	for (uint32_t i = 0; i < ps.nrates; i++)
		free(ps.rates[i].stream);
	free(ps.rates);
	if (rc) {
		workload_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int workload_load(const char *path, struct workload **out, struct err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(e, SLABSIM_EIO, "%s: %s", path, strerror(errno));
	size_t cap = 4096, len = 0;
	char *text = malloc(cap);
	int rc = 0;
	for (;;) {
		if (!text) {
			rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		size_t n = fread(text + len, 1, cap - len, f);
		len += n;
		if (len < cap)
			break;
		if (cap >= (64u << 20)) {
			rc = err_set(e, SLABSIM_EINPUT, "%s: expected a spec under 64 MiB", path);
			break;
		}
		char *nt = realloc(text, cap * 2);
		if (!nt)
			free(text);
		text = nt;
		cap *= 2;
	}
	if (!rc && ferror(f))
		rc = err_set(e, SLABSIM_EIO, "%s: read error", path);
	fclose(f);
	if (!rc)
		rc = workload_parse(path, text, len, out, e);
	free(text);
	return rc;
}

void workload_free(struct workload *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->ncaches; i++)
		free(w->caches[i].name);
	for (uint32_t i = 0; i < w->nstreams; i++) {
		struct wl_stream *st = &w->streams[i];
		free(st->name);
		free(st->site);
		free(st->target_name);
		free(st->phases_text);
		free(st->size.sizes);
		free(st->size.weights);
		if (st->size.d)
			gsl_ran_discrete_free(st->size.d);
		free(st->cpu.cpus);
		free(st->cpu.weights);
		if (st->cpu.d)
			gsl_ran_discrete_free(st->cpu.d);
	}
	for (uint32_t i = 0; i < w->nphases; i++)
		free(w->phases[i].name);
	free(w->caches);
	free(w->streams);
	free(w->phases);
	free(w->name);
	free(w->path);
	free(w);
}

const char *workload_name(const struct workload *w)
{
	return w->name;
}
const char *workload_path(const struct workload *w)
{
	return w->path;
}
const char *workload_hash(const struct workload *w)
{
	return w->hash;
}
uint64_t workload_seed(const struct workload *w, bool *has_seed)
{
	if (has_seed)
		*has_seed = w->has_seed;
	return w->seed;
}
uint64_t workload_duration_ns(const struct workload *w, bool *has_duration)
{
	if (has_duration)
		*has_duration = w->has_duration;
	return w->duration_ns;
}
uint32_t workload_cpus(const struct workload *w)
{
	return w->cpus;
}
const char *workload_rng_name(const struct workload *w)
{
	return w->rng->name;
}
uint32_t workload_nr_caches(const struct workload *w)
{
	return w->ncaches;
}
void workload_cache(const struct workload *w, uint32_t i, struct workload_cache *out)
{
	out->name = w->caches[i].name;
	out->object_size = w->caches[i].object_size;
	out->align = w->caches[i].align;
	out->flags = w->caches[i].flags;
	out->usersize = w->caches[i].usersize;
}
uint32_t workload_nr_streams(const struct workload *w)
{
	return w->nstreams;
}
uint32_t workload_nr_phases(const struct workload *w)
{
	return w->nphases;
}
