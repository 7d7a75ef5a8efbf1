/* prefetch.c - parser threads fill events ahead of the consumer; see
 * prefetch.h. One producer: blocks go round a ring of NBLK under one mutex,
 * the lock is taken once per block, not per event. Chunked (a plain file on
 * several threads): workers take byte ranges in file order, each parses a
 * whole chunk into a slot of a ring of nslots, and the consumer reads the
 * slots in chunk order; what a chunk cannot know alone (its first line's
 * number, the line of a strict-mode error, the counts so far, the ids of
 * call sites other chunks met first) is settled by the consumer as it takes
 * the chunk or the event. trace_next()'s parse is a function of the line
 * alone, so nothing else crosses a chunk's edge.
 */
#include "prefetch.h"
#include "bigmem.h"
#include "sat.h"
#include "source.h"
#include "grow.h"
#include "strtab.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	NBLK = 4,
	/* The producer wakes a waiting consumer once WAKE_AT blocks are
	 * ready (or at the last): a consumer faster than the parser (a
	 * spilled name pass) otherwise waited for every block, and each
	 * wake-up of a sleeping thread is a system call and an
	 * inter-processor interrupt (about 1,500 futex calls for a
	 * 2 M-event text replay, issue 28). */
	WAKE_AT = 2,
	BLK_EVENTS = 4096,
	SAME_THREAD_EVENTS = 256,
	MAX_THREADS = 64,
	SITE_CACHE_BITS = 10
};
#define NO_STR UINT32_MAX
_Static_assert(WAKE_AT >= 1 && WAKE_AT <= NBLK, "a full ring wakes the consumer");

/* The call sites a producer met last, by a cheap hash of their length and
 * last 8 bytes: a hit costs a memcmp, where interning hashes the whole
 * string and probes the table (a quarter of a producer's time). Entries
 * point at the strtab's own copies, which never move. */
struct site_cache {
	struct site_hit {
		const char *str;
		uint32_t len, sid;
	} e[1u << SITE_CACHE_BITS];
};

/* In front of a site_cache when the reader's strings are interned
 * (trace_strings_interned): the strings met last, by address, which is
 * then the string's identity. A hit costs no strlen, hash or compare (a
 * perf.data's call sites: 170 M instructions of 4,231 M, issue 28). */
struct ptr_cache {
	struct ptr_hit {
		const char *key; /* the reader's string */
		const char *str; /* its copy in the strtab */
		uint32_t sid;
	} e[1u << SITE_CACHE_BITS];
};

/* Strings copied out of the reader's line buffer; they may move while the
 * arena fills, so events keep offsets until the consumer takes them. */
struct arena {
	char *p;
	size_t len, cap;
};

/* A block's events are complete as they are filled: call_site and name
 * point at the producer's interned copies (which never move), text into
 * the block's arena (take_strings: a growing arena moves it along). */
struct blk {
	struct trace_event ev[BLK_EVENTS];
	struct arena arena;
	uint32_t n;
	int end_rc; /* 1: more blocks follow; 0: end of input; < 0: error after these */
	struct err err;
	uint64_t done, total; /* trace_progress() when the block was published */
};

/* One byte range of the file, parsed: a slot of the chunked ring. Events
 * carry the worker's own call-site id in site_id and the line number in the
 * chunk; site[i] holds the string at the worker's first event of each site.
 * A worker takes its chunks in file order, so that is where the consumer
 * first meets the id. */
struct chunk {
	struct trace_event *ev;
	uint32_t *site, *name, *text; /* offsets in arena, or NO_STR */
	uint32_t n, cap;
	struct arena arena;
	uint64_t ready; /* 1 + the chunk number once parsed (under mu) */
	unsigned worker;
	int end_rc; /* 0: the chunk's end; < 0: error after these events */
	struct err err;
	struct trace_stats stats; /* of the chunk alone, lines counted from 1 */
};

struct worker {
	struct trace_prefetch *p;
	unsigned id;
	pthread_t thread;
	struct trace_reader *r; /* opened on the first chunk, moved to the next */
	struct strtab sites;	/* this worker's call-site ids */
	struct site_cache cache;
};

/* The consumer's map of one worker's call-site ids to 1 + prefetch ids
 * (0: not met yet) and their strings. */
struct idmap {
	struct site {
		uint32_t id;
		const char *str;
	} * v;
	size_t n; /* capacity of v */
};

#define TMEMO_SLOTS 256 /* a power of two */

struct trace_prefetch {
	struct trace_reader *r;
	pthread_t thread;
	bool running;
	/* no thread: the consumer fills blk[0] as it needs it, blk_events
	 * at a time (trace_prefetch_opts.same_thread) */
	bool same_thread;
	uint32_t blk_events; /* events per block: BLK_EVENTS, or fewer */
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* chunked: a chunk is ready (the consumer waits) */
	unsigned head, tail; /* blocks taken / published; tail - head <= NBLK */
	bool stop;
	struct blk *blk;
	/* chunked mode; head counts chunks taken */
	bool chunked;
	unsigned nthreads; /* workers allocated */
	unsigned nworkers; /* workers started, the first ones */
	unsigned nslots;
	struct worker *w;
	struct chunk *slot;
	pthread_cond_t space; /* a slot was freed (workers wait) */
	char *path;
	struct trace_opts opts;
	uint64_t size, chunk_bytes, nchunks;
	uint64_t next_chunk; /* the next chunk a worker takes (under mu) */
	uint64_t last_chunk; /* none after a chunk that failed is started */
	struct chunk *ccur;
	/* the file's identity (trace_stats.input_hash): the workers read
	 * ranges, so a thread of its own hashes the whole file in order
	 * through r (trace_hash_input), which nobody else reads */
	pthread_t hasher;
	bool hashing;
	int hash_stop;
	uint64_t line_base;	  /* lines of the chunks before ccur */
	struct trace_stats stats; /* of the chunks taken */
	struct strtab gsites;	  /* call sites by prefetch id */
	struct idmap *map;	  /* by worker */
	struct idmap *cmap;	  /* ccur's worker's */
	/* producer side: call-site strings interned here, so the consumer maps
	 * ids instead of hashing strings (trace_source.id_space) */
	struct strtab sites;
	struct site_cache cache;
	/* and the cache names (name=), so that they stay at their addresses
	 * (trace_source.stable_strings): the engine then finds a named
	 * cache by the string's address, not by hashing it at every event */
	struct strtab names;
	struct site_cache ncache;
	/* the reader's strings are interned: the caches by address */
	bool interned;
	struct ptr_cache pcache, pncache;
	/* else the strings of the reader's line templates' events, as interned
	 * above, by template (trace_event.tpl) */
	struct tpl_memo {
		uint32_t tpl, sid;
		const char *call_site, *name;
	} tmemo[TMEMO_SLOTS];
	/* consumer side */
	struct blk *cur;
	uint32_t pos;
	bool finished;
	int final_rc;
	struct err final_err;
	/* an error met in a batch after some events: the next batch's */
	int batch_rc;
	struct err batch_err;
	uint64_t done, total;
};

static int put_str_n(struct arena *a, const char *s, size_t len, uint32_t *off)
{
	size_t n = len + 1;
	if (a->len + n > a->cap) {
		size_t cap = a->cap ? a->cap : 1 << 16;
		while (cap < a->len + n)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -1;
		char *m = realloc(a->p, cap);
		if (!m)
			return -1;
		a->p = m;
		a->cap = cap;
	}
	memcpy(a->p + a->len, s, n);
	*off = (uint32_t)a->len;
	a->len += n;
	return 0;
}

static int put_str(struct arena *a, const char *s, uint32_t *off)
{
	if (!s) {
		*off = NO_STR;
		return 0;
	}
	return put_str_n(a, s, strlen(s), off);
}

/* Are the len (>= 8) bytes at a and b the same? Inline: call sites are a
 * few words long, and a hit of the cache is one per event. */
static inline bool same_words(const char *a, const char *b, size_t len)
{
	uint64_t x, y;
	for (size_t i = 0; i + 8 < len; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	memcpy(&x, a + len - 8, 8); /* the last 8, overlapping the words above */
	memcpy(&y, b + len - 8, 8);
	return x == y;
}

/* Id of the len bytes at cs in t, through cache c; *fresh: new to t; *str:
 * t's copy (it never moves). */
static inline __attribute__((always_inline)) int intern_site(struct strtab *t, struct site_cache *c,
							     const char *cs, size_t len,
							     uint32_t *sid, bool *fresh,
							     const char **str)
{
	struct site_hit *x = &c->e[strtab_cache_slot(cs, len, SITE_CACHE_BITS)];
	*fresh = false;
	if (x->str && x->len == len &&
	    (len >= 8 ? same_words(x->str, cs, len) : memcmp(x->str, cs, len) == 0)) {
		*sid = x->sid;
		*str = x->str;
		return 0;
	}
	uint32_t known = t->n;
	if (strtab_intern_n(t, cs, len, sid))
		return -1;
	*fresh = *sid >= known;
	x->str = strtab_str(t, *sid);
	x->len = (uint32_t)len;
	x->sid = *sid;
	*str = x->str;
	return 0;
}

/* intern_site for a reader whose strings are interned: by s's address
 * first. */
static inline __attribute__((always_inline)) int intern_ptr(struct strtab *t, struct site_cache *c,
							    struct ptr_cache *pc, const char *s,
							    uint32_t *sid, const char **str)
{
	struct ptr_hit *h = &pc->e[((uint64_t)(uintptr_t)s * UINT64_C(0x9e3779b97f4a7c15)) >>
				   (64 - SITE_CACHE_BITS)];
	bool fresh;
	if (h->key == s) {
		*sid = h->sid;
		*str = h->str;
		return 0;
	}
	if (intern_site(t, c, s, strlen(s), sid, &fresh, str))
		return -1;
	h->key = s;
	h->str = *str;
	h->sid = *sid;
	return 0;
}

/* Room for n more bytes in arena a. It grows by a copy while the old one is
 * still there, so that the texts of ev[0, nev) (the events taken so far)
 * follow it. Errors: -1 (out of memory). */
static int arena_grow(struct arena *a, size_t n, struct trace_event *ev, uint32_t nev)
{
	size_t cap = a->cap ? a->cap : 1 << 16;
	while (cap < a->len + n)
		cap *= 2;
	char *m = malloc(cap);
	if (!m)
		return -1;
	if (a->len)
		memcpy(m, a->p, a->len);
	for (uint32_t i = 0; i < nev; i++)
		if (ev[i].text)
			ev[i].text = m + (ev[i].text - a->p);
	free(a->p);
	a->p = m;
	a->cap = cap;
	return 0;
}

/* ev[i]'s strings made the consumer's: its call site and name interned (a
 * call site's string goes to the consumer once, with the first event
 * naming it; later events carry only the id), its text copied into a (the
 * texts of ev[0, i) follow a growing arena). interned: p->interned, a
 * constant where it is inlined (the callers test it once per batch).
 * Errors: -1 (out of memory). */
static inline __attribute__((always_inline)) int take_strings(struct trace_prefetch *p,
							      struct arena *a,
							      struct trace_event *ev, uint32_t i,
							      bool interned)
{
	struct trace_event *x = &ev[i];
	const char *cs = x->call_site ? x->call_site : "";
	uint32_t sid, nid;
	bool fresh;
	if (interned) {
		if (intern_ptr(&p->sites, &p->cache, &p->pcache, cs, &sid, &x->call_site) ||
		    (x->name &&
		     intern_ptr(&p->names, &p->ncache, &p->pncache, x->name, &nid, &x->name)))
			return -1;
	} else {
		/* a line template's event: its strings are those of the
		 * template's first, interned then */
		struct tpl_memo *m = &p->tmemo[x->tpl & (TMEMO_SLOTS - 1)];
		if (x->tpl && m->tpl == x->tpl && !x->text) {
			x->call_site = m->call_site;
			x->name = m->name;
			x->site_id = m->sid + 1;
			return 0; /* no text: a template's event is no marker */
		}
		if (intern_site(&p->sites, &p->cache, cs, strlen(cs), &sid, &fresh,
				&x->call_site) ||
		    (x->name && intern_site(&p->names, &p->ncache, x->name, strlen(x->name), &nid,
					    &fresh, &x->name)))
			return -1;
		if (x->tpl)
			*m = (struct tpl_memo){.tpl = x->tpl,
					       .sid = sid,
					       .call_site = x->call_site,
					       .name = x->name};
	}
	x->site_id = sid + 1;
	if (!x->text)
		return 0;
	size_t n = strlen(x->text) + 1;
	if (a->len + n > a->cap && arena_grow(a, n, ev, i)) /* at first, then seldom */
		return -1;
	memcpy(a->p + a->len, x->text, n);
	x->text = a->p + a->len;
	a->len += n;
	return 0;
}

/* take_strings for ev[from, to): 0, or the index of the event that failed
 * (out of memory) + 1. */
static uint32_t take_range(struct trace_prefetch *p, struct arena *a, struct trace_event *ev,
			   uint32_t from, uint32_t to)
{
	if (p->interned) {
		for (uint32_t i = from; i < to; i++)
			if (take_strings(p, a, ev, i, true))
				return i + 1;
	} else {
		for (uint32_t i = from; i < to; i++)
			if (take_strings(p, a, ev, i, false))
				return i + 1;
	}
	return 0;
}

static void fill(struct trace_prefetch *p, struct blk *b)
{
	enum { SUB = 64 }; /* events read per call: their lines still in cache */
	int rc = 1;
	b->n = 0;
	b->arena.len = 0;
	err_clear(&b->err);
	while (rc == 1 && b->n < p->blk_events) {
		uint32_t want = p->blk_events - b->n < SUB ? p->blk_events - b->n : SUB;
		int k = trace_next_batch(p->r, &b->ev[b->n], want, &b->err);
		if (k <= 0) {
			rc = k;
			break;
		}
		uint32_t bad = take_range(p, &b->arena, b->ev, b->n, b->n + (uint32_t)k);
		if (bad) {
			b->n = bad - 1;
			rc = err_set(&b->err, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		b->n += (uint32_t)k;
	}
	b->end_rc = rc;
	trace_progress(p->r, &b->done, &b->total);
}

static void *producer(void *arg)
{
	struct trace_prefetch *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (p->tail - p->head == NBLK && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		bool stop = p->stop;
		struct blk *b = &p->blk[p->tail % NBLK];
		pthread_mutex_unlock(&p->mu);
		if (stop)
			break;
		fill(p, b);
		pthread_mutex_lock(&p->mu);
		p->tail++;
		/* a consumer waits only on an empty ring: it sleeps on until
		 * WAKE_AT blocks are ready, or this one is the last. The wake
		 * comes after the unlock, so that the woken thread does not
		 * find the mutex held and wait again, on the mutex (half of
		 * the futex calls before). */
		bool wake = p->tail - p->head >= WAKE_AT || b->end_rc != 1;
		pthread_mutex_unlock(&p->mu);
		if (wake)
			pthread_cond_broadcast(&p->cv);
		if (b->end_rc != 1)
			break;
	}
	return NULL;
}

/* ---- Chunked: worker threads ---------------------------------------------- */

static int chunk_grow(struct chunk *c)
{
	uint32_t ncap = c->cap ? c->cap * 2 : 4096;
	if (ncap <= c->cap)
		return -1;
	struct trace_event *ev = realloc(c->ev, ncap * sizeof(*ev));
	if (ev)
		c->ev = ev;
	uint32_t *site = realloc(c->site, ncap * sizeof(*site));
	if (site)
		c->site = site;
	uint32_t *name = realloc(c->name, ncap * sizeof(*name));
	if (name)
		c->name = name;
	uint32_t *text = realloc(c->text, ncap * sizeof(*text));
	if (text)
		c->text = text;
	if (!ev || !site || !name || !text)
		return -1;
	c->cap = ncap;
	return 0;
}

/* Chunk j: the lines starting in its byte range, read as trace_next() reads
 * them; the last chunk reads to the end of the file, wherever that is now. */
static void parse_chunk(struct worker *w, uint64_t j, struct chunk *c)
{
	struct trace_prefetch *p = w->p;
	uint64_t start = j * p->chunk_bytes;
	uint64_t end = j + 1 == p->nchunks ? UINT64_MAX : start + p->chunk_bytes;
	int rc;

	c->n = 0;
	c->arena.len = 0;
	c->worker = w->id;
	err_clear(&c->err);
	memset(&c->stats, 0, sizeof(c->stats));
	rc = w->r ? trace_set_range(w->r, start, end, &c->err)
		  : trace_open_range(p->path, &p->opts, start, end, &w->r, &c->err);
	while (!rc) {
		if (c->n == c->cap && chunk_grow(c)) {
			rc = err_set(&c->err, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		struct trace_event *ev = &c->ev[c->n];
		rc = trace_next(w->r, ev, &c->err);
		if (rc != 1)
			break;
		rc = 0;
		const char *cs = ev->call_site ? ev->call_site : "";
		size_t len = strlen(cs);
		uint32_t sid;
		bool fresh;
		c->site[c->n] = NO_STR;
		const char *str;
		if (intern_site(&w->sites, &w->cache, cs, len, &sid, &fresh, &str) ||
		    (fresh && put_str_n(&c->arena, cs, len, &c->site[c->n])) ||
		    put_str(&c->arena, ev->name, &c->name[c->n]) ||
		    put_str(&c->arena, ev->text, &c->text[c->n])) {
			rc = err_set(&c->err, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		ev->site_id = sid;
		c->n++;
	}
	c->end_rc = rc;
	if (w->r)
		c->stats = *trace_stats(w->r);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct trace_prefetch *p = w->p;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		/* slot j % nslots is free once the consumer is past chunk j - nslots */
		while (!p->stop && p->next_chunk <= p->last_chunk &&
		       p->next_chunk >= p->head + p->nslots)
			pthread_cond_wait(&p->space, &p->mu);
		if (p->stop || p->next_chunk > p->last_chunk)
			break;
		uint64_t j = p->next_chunk++;
		struct chunk *c = &p->slot[j % p->nslots];
		pthread_mutex_unlock(&p->mu);
		parse_chunk(w, j, c);
		pthread_mutex_lock(&p->mu);
		c->ready = j + 1;
		if (c->end_rc < 0 && j < p->last_chunk)
			p->last_chunk = j; /* the consumer stops there */
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* ---- Opening -------------------------------------------------------------- */

unsigned trace_prefetch_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n >= 3 ? 2 : 1;
}

static struct trace_prefetch *prefetch_alloc(struct trace_reader *r)
{
	struct trace_prefetch *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->r = r;
	p->interned = trace_strings_interned(r);
	strtab_init(&p->sites);
	strtab_init(&p->names);
	strtab_init(&p->gsites);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_cond_init(&p->space, NULL);
	return p;
}

/* The bytes of the ring of blocks: whole 2 MiB pages for a producer
 * thread's (bigmem.h), so that its 1.7 MB fault in one huge page each, not
 * in 430 pages of 4 KiB; one block of SAME_THREAD_EVENTS stays small. */
static size_t ring_bytes(bool same_thread)
{
	const size_t huge = (size_t)2 << 20;
	size_t n = NBLK * sizeof(struct blk);
	return same_thread ? n : (n + huge - 1) & ~(huge - 1);
}

/* The single producer, or none (same_thread). */
static int open_single(struct trace_reader *r, bool same_thread, struct trace_prefetch **out,
		       struct err *e)
{
	struct trace_prefetch *p = prefetch_alloc(r);
	if (p)
		p->blk = same_thread ? calloc(NBLK, sizeof(*p->blk))
				     : bigmem_resize(NULL, 0, ring_bytes(false));
	if (!p || !p->blk) {
		free(p);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	/* filled and read back on one core: a block that stays in its
	 * cache (a 4096-event block is 416 KiB) */
	p->blk_events = same_thread ? SAME_THREAD_EVENTS : BLK_EVENTS;
	p->same_thread = same_thread;
	if (same_thread) {
		*out = p;
		return 0;
	}
	if (pthread_create(&p->thread, NULL, producer, p)) {
		trace_prefetch_close(p);
		return err_set(e, SLABSIM_EIO, "cannot start the trace reader thread");
	}
	p->running = true;
	*out = p;
	return 0;
}

int trace_prefetch_open(struct trace_reader *r, struct trace_prefetch **out, struct err *e)
{
	return open_single(r, false, out, e);
}

static void *hasher_main(void *arg)
{
	struct trace_prefetch *p = arg;
	trace_hash_input(p->r, &p->hash_stop);
	return NULL;
}

static int open_chunked(struct trace_reader *r, unsigned threads, uint64_t chunk_bytes,
			struct trace_prefetch **out, struct err *e)
{
	struct trace_prefetch *p = prefetch_alloc(r);
	uint64_t done, size;
	trace_progress(r, &done, &size);
	if (!p)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	p->size = size;
	p->chunk_bytes = chunk_bytes;
	p->nchunks = size ? (size - 1) / chunk_bytes + 1 : 1;
	p->last_chunk = p->nchunks - 1;
	p->opts = trace_options(r);
	p->chunked = true;
	p->nthreads = threads;
	/* a chunk in each worker's hands, the consumer's, one ready ahead */
	p->nslots = threads + 2;
	p->path = strdup(trace_path(r));
	p->w = calloc(threads, sizeof(*p->w));
	p->slot = calloc(p->nslots, sizeof(*p->slot));
	p->map = calloc(threads, sizeof(*p->map));
	if (!p->path || !p->w || !p->slot || !p->map) {
		trace_prefetch_close(p);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < threads; i++) {
		p->w[i].p = p;
		p->w[i].id = i;
		strtab_init(&p->w[i].sites);
	}
	p->hashing = pthread_create(&p->hasher, NULL, hasher_main, p) == 0;
	/* workers take chunks as they come: any number of them will do */
	while (p->nworkers < threads && pthread_create(&p->w[p->nworkers].thread, NULL, worker_main,
						       &p->w[p->nworkers]) == 0)
		p->nworkers++;
	p->running = p->nworkers > 0;
	if (!p->running) {
		trace_prefetch_close(p);
		return err_set(e, SLABSIM_EIO, "cannot start the trace reader thread");
	}
	*out = p;
	return 0;
}

int trace_prefetch_open_opts(struct trace_reader *r, const struct trace_prefetch_opts *po,
			     struct trace_prefetch **out, struct err *e)
{
	unsigned threads = po && po->threads ? po->threads : trace_prefetch_default_threads();
	uint64_t chunk = po && po->chunk_bytes ? po->chunk_bytes : TRACE_PREFETCH_CHUNK;
	uint64_t done, size;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	trace_progress(r, &done, &size);
	bool forced = po && po->chunk_bytes;
	if (trace_is_plain_file(r) && (forced || (threads > 1 && size / 2 >= chunk)))
		return open_chunked(r, threads, chunk, out, e);
	return open_single(r, po && po->same_thread, out, e);
}

/* ---- Consumer --------------------------------------------------------------- */

/* Add chunk c's counts, its lines numbered after base. */
static void stats_add(struct trace_stats *t, const struct trace_stats *c, uint64_t base)
{
	if (!t->malformed && c->malformed) {
		t->first_malformed_line = base + c->first_malformed_line;
		memcpy(t->first_malformed_msg, c->first_malformed_msg,
		       sizeof(t->first_malformed_msg));
	}
	t->lines += c->lines;
	t->header_lines += c->header_lines;
	for (int i = 0; i < TRACE_EV_NR; i++)
		t->events[i] += c->events[i];
	t->other_events += c->other_events;
	t->malformed += c->malformed;
	t->lost_markers += c->lost_markers;
	t->lost_events = sat_add(t->lost_events, c->lost_events);
	t->lost_in_header = sat_add(t->lost_in_header, c->lost_in_header);
	t->lost_in_buffer_stats = sat_add(t->lost_in_buffer_stats, c->lost_in_buffer_stats);
	t->lost_in_perf = sat_add(t->lost_in_perf, c->lost_in_perf);
	t->lost_sources |= c->lost_sources;
	if (c->header_cpus && !t->header_cpus)
		t->header_cpus = c->header_cpus; /* the first chunk's header */
	if (c->cpus_seen > t->cpus_seen)
		t->cpus_seen = c->cpus_seen;
	t->accounted_events += c->accounted_events;
	t->named_cache_allocs += c->named_cache_allocs;
}

/* The error that ended chunk c, as the single reader gives it. A strict-mode
 * error is the chunk's first malformed line (trace_next stops there), whose
 * number counts from the chunk's first line: say it again with the file's. */
static void chunk_error(const struct trace_prefetch *p, const struct chunk *c, struct err *e)
{
	if (c->end_rc == SLABSIM_EINPUT && c->stats.malformed)
		err_at(e, SLABSIM_EINPUT, p->path, p->line_base + c->stats.first_malformed_line,
		       "%s", c->stats.first_malformed_msg);
	else
		*e = c->err;
}

/* Learn the prefetch id of worker site id sid, met first at event i of c:
 * a worker's first event of a site carries its string. */
static int learn_site(struct trace_prefetch *p, const struct chunk *c, uint32_t i, uint32_t sid)
{
	struct idmap *m = p->cmap;
	struct site *v = grow_to(m->v, &m->n, sid, sizeof(*v), 256);
	if (!v)
		return -1;
	m->v = v;
	uint32_t g;
	if (c->site[i] == NO_STR || strtab_intern(&p->gsites, c->arena.p + c->site[i], &g))
		return -1;
	m->v[sid].id = g + 1;
	m->v[sid].str = strtab_str(&p->gsites, g);
	return 0;
}

static int next_chunked(struct trace_prefetch *p, struct trace_event *ev, struct err *e)
{
	struct chunk *c;
	while (!(c = p->ccur) || p->pos == c->n) {
		if (p->finished) {
			if (p->final_rc < 0)
				*e = p->final_err;
			return p->final_rc;
		}
		if (c) {
			if (c->end_rc < 0) {
				p->finished = true;
				p->final_rc = c->end_rc;
				chunk_error(p, c, &p->final_err);
			} else if (p->head + 1 == p->nchunks) {
				/* as trace_next() at the end of the whole file */
				p->finished = true;
				p->final_rc =
					trace_check_is_trace(&p->stats, p->path, &p->final_err);
			}
			p->ccur = NULL;
			pthread_mutex_lock(&p->mu);
			p->head++;
			pthread_cond_broadcast(&p->space);
			pthread_mutex_unlock(&p->mu);
			continue;
		}
		c = &p->slot[p->head % p->nslots];
		pthread_mutex_lock(&p->mu);
		while (c->ready != p->head + 1)
			pthread_cond_wait(&p->cv, &p->mu);
		pthread_mutex_unlock(&p->mu);
		p->ccur = c;
		p->cmap = &p->map[c->worker];
		p->pos = 0;
		p->line_base = p->stats.lines;
		stats_add(&p->stats, &c->stats, p->line_base);
		p->done = p->head + 1 < p->nchunks ? (p->head + 1) * p->chunk_bytes : p->size;
		p->total = p->size;
	}
	uint32_t i = p->pos++;
	*ev = c->ev[i];
	ev->line += p->line_base;
	uint32_t sid = ev->site_id;
	if ((sid >= p->cmap->n || !p->cmap->v[sid].id) && learn_site(p, c, i, sid))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	const struct site *x = &p->cmap->v[sid];
	ev->site_id = x->id;
	ev->tpl = 0; /* a worker's reader's template, one of many readers' */
	ev->call_site = x->str;
	ev->name = c->name[i] == NO_STR ? NULL : c->arena.p + c->name[i];
	ev->text = c->text[i] == NO_STR ? NULL : c->arena.p + c->text[i];
	return 1;
}

/* The next event of the current block (one is left): complete as the
 * producer left it. */
static inline int take_blk(struct trace_prefetch *p, struct trace_event *ev)
{
	*ev = p->cur->ev[p->pos++];
	return 1;
}

/* A current block with an event left: 1, or 0 at the end, or the error. */
static int ready_blk(struct trace_prefetch *p, struct err *e)
{
	while (!p->cur || p->pos == p->cur->n) {
		if (p->finished) {
			if (p->final_rc < 0)
				*e = p->final_err;
			return p->final_rc;
		}
		if (p->cur) {
			struct blk *b = p->cur;
			if (b->end_rc != 1) {
				p->finished = true;
				p->final_rc = b->end_rc;
				p->final_err = b->err;
			}
			p->cur = NULL;
			if (p->same_thread)
				continue;
			pthread_mutex_lock(&p->mu);
			p->head++;
			/* the producer waits only on a full ring */
			bool wake = p->tail - p->head == NBLK - 1;
			pthread_mutex_unlock(&p->mu);
			if (wake)
				pthread_cond_broadcast(&p->cv);
			continue;
		}
		if (p->same_thread) {
			fill(p, &p->blk[0]);
			p->cur = &p->blk[0];
		} else {
			pthread_mutex_lock(&p->mu);
			while (p->head == p->tail)
				pthread_cond_wait(&p->cv, &p->mu);
			p->cur = &p->blk[p->head % NBLK];
			pthread_mutex_unlock(&p->mu);
		}
		p->pos = 0;
		p->done = p->cur->done;
		p->total = p->cur->total;
	}
	return 1;
}

int trace_prefetch_next(struct trace_prefetch *p, struct trace_event *ev, struct err *e)
{
	if (p->chunked)
		return next_chunked(p, ev, e);
	int rc = ready_blk(p, e);
	return rc == 1 ? take_blk(p, ev) : rc;
}

/* The single producer's next_batch without the copy: up to n events of the
 * current block, in place; the next call hands the block back. */
static int prefetch_borrow(struct trace_prefetch *p, const struct trace_event **ev, uint32_t n,
			   struct err *e)
{
	int rc = ready_blk(p, e);
	if (rc != 1)
		return rc;
	uint32_t k = p->cur->n - p->pos < n ? p->cur->n - p->pos : n;
	*ev = &p->cur->ev[p->pos];
	p->pos += k;
	return (int)k;
}

/* same_thread's next_batch once the current block is used up: up to n
 * events read into ev itself, not into a block first (a copy of 104 bytes
 * an event), their texts in blk[0]'s arena until the next call. The end,
 * or an error after some events, is the next call's, as fill leaves it. */
static int fill_direct(struct trace_prefetch *p, struct trace_event *ev, uint32_t n, struct err *e)
{
	struct arena *a = &p->blk[0].arena;
	uint32_t k = 0;
	int rc = 1;
	if (p->cur) { /* used up by trace_prefetch_next: as ready_blk */
		if (p->cur->end_rc != 1) {
			p->finished = true;
			p->final_rc = p->cur->end_rc;
			p->final_err = p->cur->err;
		}
		p->cur = NULL;
	}
	if (p->finished) {
		if (p->final_rc < 0)
			*e = p->final_err;
		return p->final_rc;
	}
	a->len = 0;
	while (rc == 1 && k < n) {
		int got = trace_next_batch(p->r, &ev[k], n - k, &p->final_err);
		if (got <= 0) {
			rc = got;
			break;
		}
		uint32_t bad = take_range(p, a, ev, k, k + (uint32_t)got);
		if (bad) {
			k = bad - 1;
			rc = err_set(&p->final_err, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		k += (uint32_t)got;
	}
	trace_progress(p->r, &p->done, &p->total);
	if (rc != 1) {
		p->finished = true;
		p->final_rc = rc;
	}
	if (k)
		return (int)k;
	if (rc < 0)
		*e = p->final_err;
	return rc;
}

/* Up to n events, as n calls of trace_prefetch_next give them, all from
 * one block or chunk: their strings stay in it until the next call, which
 * hands it back to the producers. An error after some events is kept for
 * the next call. */
static int prefetch_next_batch(struct trace_prefetch *p, struct trace_event *ev, uint32_t n,
			       struct err *e)
{
	uint32_t k = 0;
	if (p->same_thread && (!p->cur || p->pos == p->cur->n))
		return fill_direct(p, ev, n, e);
	if (p->batch_rc) {
		*e = p->batch_err;
		return p->batch_rc;
	}
	while (k < n) {
		if (k && p->pos == (p->chunked ? p->ccur->n : p->cur->n))
			break;
		/* the rest of a block without a call */
		int rc = k && !p->chunked ? take_blk(p, &ev[k]) : trace_prefetch_next(p, &ev[k], e);
		if (rc == 1) {
			k++;
			continue;
		}
		if (rc < 0 && k) {
			p->batch_rc = rc;
			p->batch_err = *e;
		}
		return k ? (int)k : rc;
	}
	return (int)k;
}

void trace_prefetch_progress(const struct trace_prefetch *p, uint64_t *done, uint64_t *total)
{
	*done = p->done;
	*total = p->total;
}

static void stop_producer(struct trace_prefetch *p)
{
	if (!p->running)
		goto hashed;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_cond_broadcast(&p->space);
	pthread_mutex_unlock(&p->mu);
	if (p->chunked)
		for (unsigned i = 0; i < p->nworkers; i++)
			pthread_join(p->w[i].thread, NULL);
	else
		pthread_join(p->thread, NULL);
	p->running = false;
hashed:
	if (p->hashing) {
		/* a consumer that stopped early wants no hash of the rest */
		if (!p->finished || p->final_rc < 0)
			__atomic_store_n(&p->hash_stop, 1, __ATOMIC_RELAXED);
		pthread_join(p->hasher, NULL);
		p->hashing = false;
		/* the identity of a file read to its end, as one reader's */
		if (p->finished && p->final_rc == 0)
			memcpy(p->stats.input_hash, trace_stats(p->r)->input_hash,
			       sizeof(p->stats.input_hash));
	}
}

const struct trace_stats *trace_prefetch_stats(struct trace_prefetch *p)
{
	stop_producer(p);
	return p->chunked ? &p->stats : trace_stats(p->r);
}

const char *trace_prefetch_path(const struct trace_prefetch *p)
{
	return trace_path(p->r);
}

unsigned trace_prefetch_threads(const struct trace_prefetch *p)
{
	return p->chunked ? p->nworkers : p->same_thread ? 0 : 1;
}

void trace_prefetch_close(struct trace_prefetch *p)
{
	if (!p)
		return;
	stop_producer(p);
	pthread_cond_destroy(&p->cv);
	pthread_cond_destroy(&p->space);
	pthread_mutex_destroy(&p->mu);
	if (p->blk)
		for (int i = 0; i < NBLK; i++)
			free(p->blk[i].arena.p);
	if (p->same_thread)
		free(p->blk);
	else
		bigmem_free(p->blk, ring_bytes(false));
	strtab_fini(&p->sites);
	strtab_fini(&p->names);
	/* chunked */
	for (unsigned i = 0; p->w && i < p->nthreads; i++) {
		trace_close(p->w[i].r);
		strtab_fini(&p->w[i].sites);
	}
	free(p->w);
	for (unsigned i = 0; p->slot && i < p->nslots; i++) {
		struct chunk *c = &p->slot[i];
		free(c->ev);
		free(c->site);
		free(c->name);
		free(c->text);
		free(c->arena.p);
	}
	free(p->slot);
	for (unsigned i = 0; p->map && i < p->nthreads; i++)
		free(p->map[i].v);
	free(p->map);
	strtab_fini(&p->gsites);
	free(p->path);
	free(p);
}

/* ---- as an event source (source.h) ---- */

static int source_prefetch_next(void *ctx, struct trace_event *ev, struct err *e)
{
	return trace_prefetch_next(ctx, ev, e);
}

static int source_prefetch_next_batch(void *ctx, struct trace_event *ev, uint32_t n, struct err *e)
{
	return prefetch_next_batch(ctx, ev, n, e);
}

static int source_prefetch_borrow(void *ctx, const struct trace_event **ev, uint32_t n,
				  struct err *e)
{
	return prefetch_borrow(ctx, ev, n, e);
}

static void source_prefetch_progress(void *ctx, uint64_t *done, uint64_t *total)
{
	trace_prefetch_progress(ctx, done, total);
}

static const struct trace_stats *source_prefetch_stats(void *ctx)
{
	return trace_prefetch_stats(ctx);
}

void trace_prefetch_as_source(struct trace_source *src, struct trace_prefetch *p, const char *name)
{
	*src = (struct trace_source){
		.ctx = p,
		.next = source_prefetch_next,
		.next_batch = source_prefetch_next_batch,
		.borrow_batch = p->chunked ? NULL : source_prefetch_borrow,
		.progress = source_prefetch_progress,
		.stats = source_prefetch_stats,
		.name = name,
		.id_space = p, /* the producer interns call sites */
		/* and names; the workers' chunks hold theirs in arenas */
		.stable_strings = !p->chunked,
	};
}
