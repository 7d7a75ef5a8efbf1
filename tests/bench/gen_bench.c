/* gen_bench.c - the pinned inputs of tests/bench/targets.sh (issue 28).
 *
 * Writes an ftrace text trace (the 6.1 event format of the sample) to
 * stdout, deterministic from its parameters: the same arguments give the
 * same bytes on any machine (own PRNG, no time, no locale).
 *
 *   gen_bench --shape real   --sample S --events N [--seed X] [--live L]
 *   gen_bench --shape leak   --sample S --events N [--seed X]
 *   gen_bench --shape repeat --sample S --events N
 *
 * real:   N events of the sample's shape. Every allocation line of the
 *         sample whose pointer the sample later frees makes a template pair
 *         (its allocation line and its free line, e.g. kmem_cache_alloc with
 *         the kmem_cache_free that names its cache), so the mix of events,
 *         call sites, sizes, gfp flags and CPUs is the sample's. Each step
 *         allocates from a template drawn at random or frees a random live
 *         object, with the allocation probability pulled towards a live set
 *         of L objects (default 50000). Pointers are slots of a per-cache
 *         region (objects of two caches never share a page), freed slots
 *         reused last-in first-out as the kernel's per-CPU freelists do.
 * leak:   N kmalloc lines drawn from the sample's kmalloc lines, each at a
 *         new pointer, never freed: N live objects at the end.
 * repeat: the sample's event lines repeated until at least N events (whole
 *         repetitions), repetition k with k in bits 48-55 of every kernel
 *         pointer (ffff...: those bits are all ones in the sample, so two
 *         repetitions never share a pointer; NULL and small values are kept)
 *         and its timestamps shifted past the previous repetition's.
 *
 * Timestamps of real and leak advance 1 us per event. The sample must be
 * uncompressed text (the script decompresses it). Exit status 0, 1 usage,
 * 2 a sample line it cannot use, 3 I/O.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A sample event line cut around its timestamp and its pointer:
 * head TS mid PTR tail. */
struct line {
	char *head, *mid, *tail;
	uint64_t ptr, ts_us; /* ts in microseconds */
	uint64_t bytes_alloc;
	bool alloc, free, kmalloc;
	char *region; /* allocations: the cache (kmem_cache_free's name=) or "k<bytes_alloc>" */
};

struct pair {
	size_t a, f;	 /* line indexes */
	uint32_t region; /* region id */
};

struct region {
	char *name;
	uint64_t stride, next; /* slot size, next unused slot */
	uint64_t *freed;       /* freed slots, LIFO */
	size_t nfreed, capfreed;
};

struct live {
	uint32_t pair;
	uint64_t ptr;
};

static uint64_t rng_state;
/* splitmix64: small, and the same on every machine */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);
	if (!q) {
		(void)fprintf(stderr, "gen_bench: out of memory\n");
		exit(3);
	}
	return q;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xrealloc(NULL, n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

static void bad(unsigned long ln, const char *why)
{
	(void)fprintf(stderr, "gen_bench: sample line %lu: %s\n", ln, why);
	exit(2);
}

/* Cut one event line; false for lines without a ptr= (markers). */
static bool cut(char *s, unsigned long ln, struct line *l)
{
	char *p = strstr(s, ": ");
	char *ts, *dot, *ev, *pp, *ba;
	memset(l, 0, sizeof(*l));
	/* the timestamp is the last field before the first ": " */
	if (!p)
		bad(ln, "no timestamp");
	ts = p;
	while (ts > s && ts[-1] != ' ')
		ts--;
	dot = strchr(ts, '.');
	if (!dot || dot > p || p - dot != 7)
		bad(ln, "timestamp without 6 decimals");
	l->ts_us = strtoull(ts, NULL, 10) * 1000000ULL + strtoull(dot + 1, NULL, 10);
	ev = p + 2;
	pp = strstr(ev, " ptr=");
	if (!pp)
		return false;
	pp += 5;
	if (strspn(pp, "0123456789abcdef") != 16)
		bad(ln, "ptr= is not 16 hex digits");
	l->ptr = strtoull(pp, NULL, 16);
	l->head = xstrndup(s, (size_t)(ts - s));
	l->mid = xstrndup(p, (size_t)(pp - p));
	l->tail = xstrndup(pp + 16, strlen(pp + 16));
	l->kmalloc = !strncmp(ev, "kmalloc: ", 9);
	l->alloc = l->kmalloc || !strncmp(ev, "kmem_cache_alloc: ", 18);
	l->free = !strncmp(ev, "kfree: ", 7) || !strncmp(ev, "kmem_cache_free: ", 17);
	ba = strstr(ev, " bytes_alloc=");
	if (l->alloc && !ba)
		bad(ln, "an allocation without bytes_alloc=");
	if (ba)
		l->bytes_alloc = strtoull(ba + 13, NULL, 10);
	return true;
}

static struct line *lines;
static size_t nlines;

static void read_sample(const char *path, char ***hdr, size_t *nhdr)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, caplines = 0, caphdr = 0;
	ssize_t len;
	unsigned long ln = 0;
	if (!f) {
		perror(path);
		exit(3);
	}
	while ((len = getline(&buf, &cap, f)) > 0) {
		ln++;
		if (buf[len - 1] == '\n')
			buf[--len] = 0;
		if (buf[0] == '#') {
			if (nlines)
				continue;
			if (*nhdr == caphdr)
				*hdr = xrealloc(*hdr, (caphdr = caphdr * 2 + 16) * sizeof(**hdr));
			(*hdr)[(*nhdr)++] = xstrndup(buf, (size_t)len);
			continue;
		}
		if (!len)
			continue;
		if (nlines == caplines)
			lines = xrealloc(lines, (caplines = caplines * 2 + 1024) * sizeof(*lines));
		if (cut(buf, ln, &lines[nlines]))
			nlines++;
	}
	free(buf);
	(void)fclose(f);
}

static void emit(const struct line *l, uint64_t ts_us, uint64_t ptr)
{
	printf("%s%" PRIu64 ".%06" PRIu64 "%s%016" PRIx64 "%s\n", l->head, ts_us / 1000000,
	       ts_us % 1000000, l->mid, ptr, l->tail);
}

static void gen_repeat(uint64_t n)
{
	uint64_t t0 = lines[0].ts_us, t1 = lines[0].ts_us, out = 0;
	for (size_t i = 0; i < nlines; i++) {
		t0 = lines[i].ts_us < t0 ? lines[i].ts_us : t0;
		t1 = lines[i].ts_us > t1 ? lines[i].ts_us : t1;
	}
	for (uint64_t rep = 0; out < n; rep++) {
		if (rep > 255) {
			(void)fprintf(stderr,
				      "gen_bench: repeat needs more than 256 repetitions\n");
			exit(1);
		}
		for (size_t i = 0; i < nlines; i++, out++) {
			uint64_t p = lines[i].ptr;
			if (p >> 48 == 0xffff)
				p ^= rep << 48;
			emit(&lines[i], lines[i].ts_us + rep * (t1 - t0 + 1), p);
		}
	}
}

static uint32_t region_of(struct region **rg, size_t *nrg, const char *name, uint64_t stride)
{
	for (size_t i = 0; i < *nrg; i++)
		if (!strcmp((*rg)[i].name, name))
			return (uint32_t)i;
	*rg = xrealloc(*rg, (*nrg + 1) * sizeof(**rg));
	memset(&(*rg)[*nrg], 0, sizeof(**rg));
	(*rg)[*nrg].name = xstrndup(name, strlen(name));
	(*rg)[*nrg].stride = stride ? stride : 8;
	return (uint32_t)(*nrg)++;
}

/* For each line, the index of the next line with the same pointer (nlines:
 * none), by one backward pass over an open-addressing table. */
static size_t *next_same_ptr(void)
{
	size_t cap = 1024, *next = xrealloc(NULL, nlines * sizeof(*next));
	size_t *tab;
	while (cap < 2 * nlines)
		cap *= 2;
	tab = xrealloc(NULL, cap * sizeof(*tab));
	for (size_t i = 0; i < cap; i++)
		tab[i] = SIZE_MAX;
	for (size_t i = nlines; i-- > 0;) {
		size_t h = (size_t)((lines[i].ptr * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
		while (tab[h] != SIZE_MAX && lines[tab[h]].ptr != lines[i].ptr)
			h = (h + 1) & (cap - 1);
		next[i] = tab[h] == SIZE_MAX ? nlines : tab[h];
		tab[h] = i;
	}
	free(tab);
	return next;
}

/* region r's address space: 2^36 bytes each, above a kernel-like base */
static uint64_t slot_ptr(uint32_t r, uint64_t stride, uint64_t slot)
{
	return 0xffff900000000000ULL + ((uint64_t)r << 36) + slot * stride;
}

static void gen_real(uint64_t n, uint64_t target, bool leak)
{
	struct pair *pairs = NULL;
	struct region *rg = NULL;
	struct live *live = NULL;
	size_t npairs = 0, nrg = 0, nlive = 0, caplive = 0;
	char key[64];

	size_t *next = next_same_ptr();

	/* template pairs: an allocation and the sample's next free of its pointer */
	for (size_t i = 0; i < nlines; i++) {
		const struct line *a = &lines[i];
		size_t f = 0;
		const char *nm;
		if (!a->alloc || a->ptr <= 16 || (leak && !a->kmalloc))
			continue;
		if (!leak) {
			f = next[i];
			if (f == nlines || !lines[f].free)
				continue;
		}
		nm = leak ? NULL : strstr(lines[f].tail, "name=");
		if (nm)
			(void)snprintf(key, sizeof(key), "%.*s", (int)strcspn(nm + 5, " "), nm + 5);
		else
			(void)snprintf(key, sizeof(key), "k%" PRIu64, a->bytes_alloc);
		pairs = xrealloc(pairs, (npairs + 1) * sizeof(*pairs));
		pairs[npairs].a = i;
		pairs[npairs].f = f;
		pairs[npairs].region = region_of(&rg, &nrg, key, a->bytes_alloc);
		npairs++;
	}
	if (!npairs) {
		(void)fprintf(stderr, "gen_bench: the sample has no usable allocation\n");
		exit(2);
	}
	for (uint64_t ev = 0; ev < n; ev++) {
		uint64_t ts = 1000000 + ev;
		/* allocate with probability 1/2 + (target - live) / (2 target),
		 * clamped: the live set wanders around the target */
		double p = 0.5 + ((double)target - (double)nlive) / (2.0 * (double)target);
		bool alloc = leak || !nlive || (double)(rnd() >> 11) / 9007199254740992.0 < p;
		if (alloc) {
			uint32_t k = (uint32_t)(rnd() % npairs);
			struct region *r = &rg[pairs[k].region];
			uint64_t slot = r->nfreed ? r->freed[--r->nfreed] : r->next++;
			uint64_t ptr = slot_ptr(pairs[k].region, r->stride, slot);
			emit(&lines[pairs[k].a], ts, ptr);
			if (leak)
				continue;
			if (nlive == caplive)
				live = xrealloc(live,
						(caplive = caplive * 2 + 1024) * sizeof(*live));
			live[nlive].pair = k;
			live[nlive++].ptr = ptr;
		} else {
			size_t j = (size_t)(rnd() % nlive);
			struct live o = live[j];
			struct region *r = &rg[pairs[o.pair].region];
			live[j] = live[--nlive];
			emit(&lines[pairs[o.pair].f], ts, o.ptr);
			if (r->nfreed == r->capfreed)
				r->freed = xrealloc(r->freed, (r->capfreed = r->capfreed * 2 + 64) *
								      sizeof(*r->freed));
			r->freed[r->nfreed++] =
				(o.ptr - slot_ptr(pairs[o.pair].region, 0, 0)) / r->stride;
		}
	}
}

static void usage(void)
{
	(void)fprintf(stderr, "usage: gen_bench --shape real|leak|repeat --sample FILE --events N "
			      "[--seed X] [--live L]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	const char *shape = NULL, *sample = NULL;
	uint64_t n = 0, seed = 1, target = 50000;
	char **hdr = NULL;
	size_t nhdr = 0;
	for (int i = 1; i < argc; i++) {
		if (i + 1 == argc)
			usage();
		if (!strcmp(argv[i], "--shape"))
			shape = argv[++i];
		else if (!strcmp(argv[i], "--sample"))
			sample = argv[++i];
		else if (!strcmp(argv[i], "--events"))
			n = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--live"))
			target = strtoull(argv[++i], NULL, 10);
		else
			usage();
	}
	if (!shape || !sample || !n || !target)
		usage();
	rng_state = seed;
	read_sample(sample, &hdr, &nhdr);
	if (!nlines) {
		(void)fprintf(stderr, "gen_bench: %s has no event lines\n", sample);
		return 2;
	}
	for (size_t i = 0; i < nhdr; i++)
		printf("%s\n", hdr[i]);
	if (!strcmp(shape, "repeat"))
		gen_repeat(n);
	else if (!strcmp(shape, "real") || !strcmp(shape, "leak"))
		gen_real(n, target, !strcmp(shape, "leak"));
	else
		usage();
	if (fflush(stdout) || ferror(stdout)) {
		perror("gen_bench: stdout");
		return 3;
	}
	return 0;
}
