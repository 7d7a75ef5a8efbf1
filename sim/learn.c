/* learn.c - the name pass on several threads; see learn.h.
 *
 * The serial pass (sim_learn_names_source) keeps ptr -> key of each unnamed
 * kmem_cache_alloc until the pointer's next free, and the first free with a
 * name teaches key -> name. A range read alone does the same with what it
 * sees, and keeps what it cannot decide for the merge:
 *  - the first naming free of each of its keys (later ones never win);
 *  - frees of pointers it had not allocated before (first touches): they
 *    match an allocation still pending from an earlier range, if any;
 *  - its end state: pointers allocated in it, pending or freed since (a
 *    freed one must erase what an earlier range left pending).
 * The merge walks the ranges in order with one ptr -> key table of pending
 * allocations and learns each range's candidates in trace order. Call sites
 * are interned per thread and mapped to the sim's ids range by range, which
 * is the order in which the serial pass meets them.
 */
#include "learn.h"
#include "grow.h"

#include "sim.h"
#include "strtab.h"
#include "u64map.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SIZE_MASK ((UINT64_C(1) << 23) - 1)
#define SITE_MAX  (UINT32_C(1) << 18) /* site ids that fit a key */
#define FREED	  UINT64_MAX	      /* site_of: allocated in this range, freed since */

/* (site, object size, slot size) as one key: the layout of replay.c's
 * learn_key; sizes are at most LAYOUT_KMALLOC_MAX_SIZE. */
static uint64_t pack(uint64_t site, uint64_t osz, uint64_t slot)
{
	return (site << 46) | ((osz & SIZE_MASK) << 23) | (slot & SIZE_MASK);
}

/* A free the merge must look at: a first naming free of a key (key set) or
 * a first touch of a pointer (ptr set). */
struct cand {
	uint64_t pos;  /* event number in the range: trace order within it */
	uint64_t what; /* local key, or the pointer */
	uint32_t name; /* local name id + 1; 0 = the free named no cache */
};

struct vec {
	struct cand *v;
	size_t n, cap;
};

static int vec_push(struct vec *a, struct cand c)
{
	if (a->n == a->cap) {
		struct cand *n = grow_room(a->v, &a->cap, a->n, sizeof(*n), 1024);
		if (!n)
			return SLABSIM_ENOMEM;
		a->v = n;
	}
	a->v[a->n++] = c;
	return 0;
}

/* Threads tell the waiting caller when they end. */
struct pass {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned finished;
};

struct range {
	struct pass *pass;
	const char *path;
	const struct trace_opts *opts;
	uint64_t start, end;
	struct trace_reader *r; /* opened by the caller for range 0, else NULL */
	bool first;		/* range 0: nothing pending before it */
	struct strtab sites, names;
	struct u64map site_of; /* ptr -> local key of its allocation, or FREED */
	struct u64map named;   /* local keys with a naming free in cands */
	struct vec cands;      /* first naming frees of local keys */
	struct vec touches;    /* frees of pointers not allocated before in the range */
	_Atomic uint64_t done; /* bytes read so far, for the progress bar */
	int rc;
	struct err e;
};

static int range_free(struct range *g, const struct trace_event *ev, uint64_t pos)
{
	uint64_t *v = u64map_ref(&g->site_of, ev->ptr);
	uint32_t nid = 0;
	if (!v) {
		/* range 0 starts with nothing pending: such a free matches nothing */
		if (g->first)
			return 0;
		if (ev->name && strtab_intern(&g->names, ev->name, &nid))
			return SLABSIM_ENOMEM;
		/* a second such free of the pointer finds nothing in the merge,
		 * the first one having taken what was pending */
		return vec_push(
			&g->touches,
			(struct cand){.pos = pos, .what = ev->ptr, .name = ev->name ? nid + 1 : 0});
	}
	uint64_t key = *v;
	if (key == FREED)
		return 0;
	if (g->first)
		u64map_del(&g->site_of, ev->ptr, NULL); /* as the serial pass */
	else
		*v = FREED;
	if (!ev->name || u64map_get(&g->named, key, NULL))
		return 0;
	if (strtab_intern(&g->names, ev->name, &nid) || u64map_put(&g->named, key, 1) ||
	    vec_push(&g->cands, (struct cand){.pos = pos, .what = key, .name = nid + 1}))
		return SLABSIM_ENOMEM;
	return 0;
}

static int range_read(struct range *g)
{
	struct trace_event ev;
	uint64_t pos = 0;
	int rc;
	if (!g->r && (rc = trace_open_range(g->path, g->opts, g->start, g->end, &g->r, &g->e)))
		return rc;
	while ((rc = trace_next(g->r, &ev, &g->e)) == 1) {
		if (!(++pos & 0x3fff)) {
			uint64_t done, total;
			trace_progress(g->r, &done, &total);
			atomic_store_explicit(&g->done, done, memory_order_relaxed);
		}
		if (ev.type == TRACE_EV_CACHE_ALLOC || ev.type == TRACE_EV_CACHE_ALLOC_NODE) {
			if (!sim_learns_from(&ev))
				continue;
			uint32_t site;
			const char *cs = ev.call_site && *ev.call_site ? ev.call_site : "?";
			if (strtab_intern(&g->sites, cs, &site) ||
			    u64map_put(&g->site_of, ev.ptr,
				       pack(site, ev.bytes_req, ev.bytes_alloc)))
				return err_set(&g->e, SLABSIM_ENOMEM, "out of memory");
		} else if (ev.type == TRACE_EV_KFREE || ev.type == TRACE_EV_CACHE_FREE) {
			if (range_free(g, &ev, pos))
				return err_set(&g->e, SLABSIM_ENOMEM, "out of memory");
		}
	}
	return rc < 0 ? rc : 0;
}

static void *range_main(void *arg)
{
	struct range *g = arg;
	g->rc = range_read(g);
	trace_close(g->r);
	g->r = NULL;
	atomic_store_explicit(&g->done, g->end - g->start, memory_order_relaxed);
	pthread_mutex_lock(&g->pass->mu);
	g->pass->finished++;
	pthread_cond_signal(&g->pass->cv);
	pthread_mutex_unlock(&g->pass->mu);
	return NULL;
}

/* ---- merge ---- */

/* One learning step of the merge: key in the sim's ids. */
struct step {
	uint64_t pos, key;
	const char *name;
};

static int cmp_step(const void *a, const void *b)
{
	uint64_t x = ((const struct step *)a)->pos, y = ((const struct step *)b)->pos;
	return (x > y) - (x < y);
}

static uint64_t to_sim(const uint32_t *site_ids, uint64_t key)
{
	return pack(site_ids[key >> 46], (key >> 23) & SIZE_MASK, key & SIZE_MASK);
}

/* Range g in trace order, pending: ptr -> sim key of what earlier ranges
 * left allocated. */
static int merge_range(struct sim *s, struct range *g, bool last, struct u64map *pending)
{
	uint32_t *ids = malloc((g->sites.n ? g->sites.n : 1) * sizeof(*ids));
	struct step *st = malloc((g->cands.n + g->touches.n + 1) * sizeof(*st));
	size_t n = 0;
	bool same = true; /* local ids are the sim's */
	int rc = 0;
	if (!ids || !st) {
		rc = SLABSIM_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < g->sites.n; i++) {
		if ((rc = sim_learn_site(s, strtab_str(&g->sites, i), &ids[i])))
			goto out;
		same = same && ids[i] == i;
	}
	for (size_t i = 0; i < g->touches.n; i++) {
		const struct cand *c = &g->touches.v[i];
		uint64_t key;
		if (u64map_del(pending, c->what, &key) && c->name)
			st[n++] = (struct step){c->pos, key, strtab_str(&g->names, c->name - 1)};
	}
	for (size_t i = 0; i < g->cands.n; i++) {
		const struct cand *c = &g->cands.v[i];
		st[n++] = (struct step){c->pos, to_sim(ids, c->what),
					strtab_str(&g->names, c->name - 1)};
	}
	qsort(st, n, sizeof(*st), cmp_step);
	for (size_t i = 0; i < n && !rc; i++)
		rc = sim_learn_name(s, (uint32_t)(st[i].key >> 46), (st[i].key >> 23) & SIZE_MASK,
				    st[i].key & SIZE_MASK, st[i].name);
	if (rc || last)
		goto out;
	if (g->first && same && !u64map_len(pending)) {
		/* range 0 keeps no FREED marks: its table is the pending set */
		struct u64map t = *pending;
		*pending = g->site_of;
		g->site_of = t;
		goto out;
	}
	size_t it = 0;
	uint64_t ptr, v;
	while (!rc && u64map_next(&g->site_of, &it, &ptr, &v)) {
		if (v == FREED)
			u64map_del(pending, ptr, NULL);
		else
			rc = u64map_put(pending, ptr, to_sim(ids, v));
	}
out:
	free(ids);
	free(st);
	return rc;
}

/* ---- driver ---- */

unsigned learn_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return 1;
	return n > LEARN_MAX_THREADS ? LEARN_MAX_THREADS : (unsigned)n;
}

static void draw(const struct sim *s, const struct range *g, unsigned n, uint64_t total, bool final)
{
	struct sim_progress p = {.what = "names", .total = total, .threads = n, .final = final};
	for (unsigned i = 0; i < n; i++)
		p.done += atomic_load_explicit(&g[i].done, memory_order_relaxed);
	sim_progress_report(s, &p);
}

/* Until every range is read, drawing the bar every 0.1 s. */
static void wait_all(const struct sim *s, struct pass *p, struct range *g, unsigned n,
		     uint64_t total)
{
	pthread_mutex_lock(&p->mu);
	while (p->finished < n) {
		struct timespec t;
		draw(s, g, n, total, false);
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 100 * 1000 * 1000;
		if (t.tv_nsec >= 1000 * 1000 * 1000) {
			t.tv_sec++;
			t.tv_nsec -= 1000 * 1000 * 1000;
		}
		pthread_cond_timedwait(&p->cv, &p->mu, &t);
	}
	pthread_mutex_unlock(&p->mu);
	draw(s, g, n, total, true);
}

int learn_names_file(struct sim *s, const char *path, const struct trace_opts *opts,
		     unsigned nthreads, bool progress, bool *done, struct err *e)
{
	struct stat st;
	struct trace_reader *r0 = NULL;
	unsigned n = nthreads ? nthreads : learn_default_threads();
	*done = false;
	if (strcmp(path, "-") == 0 || stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	uint64_t size = (uint64_t)st.st_size;
	if (!nthreads && size < LEARN_MIN_BYTES)
		return 0;
	if (n > size)
		n = (unsigned)size;
	if (n < 2)
		return 0;
	/* compressed input: trace_open_range refuses it, the caller reads it */
	uint64_t end0 = size / n;
	int rc = trace_open_range(path, opts, 0, end0, &r0, e);
	if (rc == SLABSIM_EUSAGE)
		return 0;
	if (rc)
		return rc;

	struct range *g = calloc(n, sizeof(*g));
	pthread_t *tid = calloc(n, sizeof(*tid));
	bool *started = calloc(n, sizeof(*started));
	if (!g || !tid || !started) {
		trace_close(r0);
		free(g);
		free(tid);
		free(started);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	struct pass pass = {.finished = 0};
	pthread_mutex_init(&pass.mu, NULL);
	pthread_cond_init(&pass.cv, NULL);
	for (unsigned i = 0; i < n; i++) {
		g[i].pass = &pass;
		g[i].path = path;
		g[i].opts = opts;
		g[i].start = size / n * i;
		g[i].end = i + 1 < n ? size / n * (i + 1) : size;
		g[i].first = i == 0;
		g[i].r = i == 0 ? r0 : NULL;
		strtab_init(&g[i].sites);
		strtab_init(&g[i].names);
		u64map_init(&g[i].site_of);
		u64map_init(&g[i].named);
	}
	/* ranges whose thread cannot start are read here, after the others */
	for (unsigned i = 0; i < n; i++)
		started[i] = pthread_create(&tid[i], NULL, range_main, &g[i]) == 0;
	for (unsigned i = 0; i < n; i++)
		if (!started[i])
			range_main(&g[i]);
	if (progress)
		wait_all(s, &pass, g, n, size);
	for (unsigned i = 0; i < n; i++)
		if (started[i])
			pthread_join(tid[i], NULL);

	rc = 0;
	bool serial = false;
	for (unsigned i = 0; i < n && !rc; i++) {
		if ((rc = g[i].rc) && e)
			*e = g[i].e;
		/* local ids past the key's 18 bits would alias other keys than
		 * the serial pass's (never in a real trace): leave it to that */
		serial = serial || g[i].sites.n > SITE_MAX;
	}
	struct u64map pending;
	u64map_init(&pending);
	for (unsigned i = 0; i < n && !rc && !serial; i++)
		if ((rc = merge_range(s, &g[i], i + 1 == n, &pending)))
			err_set(e, rc, "out of memory");
	u64map_fini(&pending);
	for (unsigned i = 0; i < n; i++) {
		strtab_fini(&g[i].sites);
		strtab_fini(&g[i].names);
		u64map_fini(&g[i].site_of);
		u64map_fini(&g[i].named);
		free(g[i].cands.v);
		free(g[i].touches.v);
	}
	free(g);
	free(tid);
	free(started);
	pthread_mutex_destroy(&pass.mu);
	pthread_cond_destroy(&pass.cv);
	*done = !rc && !serial;
	return rc;
}
