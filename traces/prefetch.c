/* prefetch.c - a producer thread parses blocks of events ahead of the
 * consumer; see prefetch.h. Blocks go round a ring of NBLK under one mutex:
 * the lock is taken once per block, not per event. */
#include "prefetch.h"
#include "strtab.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { NBLK = 4, BLK_EVENTS = 4096 };
#define NO_STR UINT32_MAX

struct blk {
	struct trace_event ev[BLK_EVENTS];
	/* strings live in arena (it may move while the block fills, so the
	 * events keep offsets until the consumer takes them) */
	uint32_t site[BLK_EVENTS], name[BLK_EVENTS], text[BLK_EVENTS];
	char *arena;
	size_t arena_len, arena_cap;
	uint32_t n;
	int end_rc; /* 1: more blocks follow; 0: end of input; < 0: error after these */
	struct err err;
	uint64_t done, total; /* trace_progress() when the block was published */
};

struct trace_prefetch {
	struct trace_reader *r;
	pthread_t thread;
	bool running;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned head, tail; /* blocks taken / published; tail - head <= NBLK */
	bool stop;
	struct blk *blk;
	/* producer side: call-site strings interned here, so the consumer maps
	 * ids instead of hashing strings (sim_source.id_space) */
	struct strtab sites;
	/* consumer side; sites: the call-site strings by id, copied from the
	 * events that brought them (stable until close) */
	char **site_str;
	uint32_t nsite_str, site_cap;
	struct blk *cur;
	uint32_t pos;
	bool finished;
	int final_rc;
	struct err final_err;
	uint64_t done, total;
};

static int put_str_n(struct blk *b, const char *s, size_t len, uint32_t *off)
{
	size_t n = len + 1;
	if (b->arena_len + n > b->arena_cap) {
		size_t cap = b->arena_cap ? b->arena_cap : 1 << 16;
		while (cap < b->arena_len + n)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -1;
		char *a = realloc(b->arena, cap);
		if (!a)
			return -1;
		b->arena = a;
		b->arena_cap = cap;
	}
	memcpy(b->arena + b->arena_len, s, n);
	*off = (uint32_t)b->arena_len;
	b->arena_len += n;
	return 0;
}

static int put_str(struct blk *b, const char *s, uint32_t *off)
{
	if (!s) {
		*off = NO_STR;
		return 0;
	}
	return put_str_n(b, s, strlen(s), off);
}

static void fill(struct trace_prefetch *p, struct blk *b)
{
	int rc = 1;
	b->n = 0;
	b->arena_len = 0;
	err_clear(&b->err);
	while (b->n < BLK_EVENTS) {
		struct trace_event *ev = &b->ev[b->n];
		rc = trace_next(p->r, ev, &b->err);
		if (rc != 1)
			break;
		/* a call site's string goes to the consumer once, with the
		 * first event naming it; later events carry only the id */
		const char *cs = ev->call_site ? ev->call_site : "";
		size_t len = strlen(cs);
		uint32_t sid, known = p->sites.n;
		if (strtab_intern_n(&p->sites, cs, len, &sid)) {
			rc = err_set(&b->err, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		ev->site_id = sid + 1;
		b->site[b->n] = NO_STR;
		if ((sid >= known && put_str_n(b, cs, len, &b->site[b->n])) ||
		    put_str(b, ev->name, &b->name[b->n]) || put_str(b, ev->text, &b->text[b->n])) {
			rc = err_set(&b->err, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		b->n++;
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
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		if (b->end_rc != 1)
			break;
	}
	return NULL;
}

int trace_prefetch_open(struct trace_reader *r, struct trace_prefetch **out, struct err *e)
{
	struct trace_prefetch *p = calloc(1, sizeof(*p));
	if (!p || !(p->blk = calloc(NBLK, sizeof(*p->blk)))) {
		free(p);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	p->r = r;
	strtab_init(&p->sites);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (pthread_create(&p->thread, NULL, producer, p)) {
		trace_prefetch_close(p);
		return err_set(e, SLABSIM_EIO, "cannot start the trace reader thread");
	}
	p->running = true;
	*out = p;
	return 0;
}

int trace_prefetch_next(struct trace_prefetch *p, struct trace_event *ev, struct err *e)
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
			pthread_mutex_lock(&p->mu);
			p->head++;
			pthread_cond_broadcast(&p->cv);
			pthread_mutex_unlock(&p->mu);
			continue;
		}
		pthread_mutex_lock(&p->mu);
		while (p->head == p->tail)
			pthread_cond_wait(&p->cv, &p->mu);
		p->cur = &p->blk[p->head % NBLK];
		pthread_mutex_unlock(&p->mu);
		p->pos = 0;
		p->done = p->cur->done;
		p->total = p->cur->total;
	}
	const struct blk *b = p->cur;
	uint32_t i = p->pos++;
	*ev = b->ev[i];
	uint32_t sid = ev->site_id - 1;
	if (b->site[i] != NO_STR) { /* the first event of this call site */
		if (p->nsite_str == p->site_cap) {
			uint32_t ncap = p->site_cap ? p->site_cap * 2 : 256;
			char **n =
				ncap > p->site_cap ? realloc(p->site_str, ncap * sizeof(*n)) : NULL;
			if (!n)
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			p->site_str = n;
			p->site_cap = ncap;
		}
		char *str = strdup(b->arena + b->site[i]);
		if (!str || sid != p->nsite_str) {
			free(str);
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		}
		p->site_str[p->nsite_str++] = str;
	}
	ev->call_site = p->site_str[sid];
	ev->name = b->name[i] == NO_STR ? NULL : b->arena + b->name[i];
	ev->text = b->text[i] == NO_STR ? NULL : b->arena + b->text[i];
	return 1;
}

void trace_prefetch_progress(const struct trace_prefetch *p, uint64_t *done, uint64_t *total)
{
	*done = p->done;
	*total = p->total;
}

static void stop_producer(struct trace_prefetch *p)
{
	if (!p->running)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	p->running = false;
}

const struct trace_stats *trace_prefetch_stats(struct trace_prefetch *p)
{
	stop_producer(p);
	return trace_stats(p->r);
}

void trace_prefetch_close(struct trace_prefetch *p)
{
	if (!p)
		return;
	stop_producer(p);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	if (p->blk)
		for (int i = 0; i < NBLK; i++)
			free(p->blk[i].arena);
	free(p->blk);
	strtab_fini(&p->sites);
	for (uint32_t i = 0; i < p->nsite_str; i++)
		free(p->site_str[i]);
	free(p->site_str);
	free(p);
}
