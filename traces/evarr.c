/* evarr.c - the parsed event array (see evarr.h). */
#include "evarr.h"
#include "sim.h"
#include "strtab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NO_STR UINT32_MAX
#define BIG    UINT32_MAX /* a size that did not fit: the key holds it */

/* One event: 32 bytes. */
struct evarr_ev {
	uint64_t t_ns;
	uint64_t ptr;
	uint32_t bytes_req, bytes_alloc; /* BIG: see the key */
	uint32_t key;
	uint32_t line; /* saturates at UINT32_MAX (a 4-billion-line trace) */
};

/* What events share: bounded by call sites x CPUs x types, not by length. */
struct evarr_key {
	uint64_t big_req, big_alloc; /* sizes of 2^32 or more, else 0 */
	uint32_t site, name;	     /* strtab ids; name NO_STR = NULL */
	uint32_t cpu, gfp;
	int32_t node;
	int8_t accounted;
	uint8_t type;
};

struct evarr {
	struct evarr_ev *ev;
	uint64_t n, cap;
	struct evarr_key *keys;
	uint32_t nkeys, keys_cap;
	uint32_t *slots; /* open addressing: key id + 1, 0 = empty */
	uint32_t nslots; /* power of two */
	struct strtab strs;
	/* per key, the event with every field a key fixes (sizes of 2^32 or
	 * more too): evarr_get copies it and sets the rest */
	struct trace_event *tmpl;
	struct trace_stats stats;
	char *path;
};

static bool key_eq(const struct evarr_key *a, const struct evarr_key *b)
{
	return a->big_req == b->big_req && a->big_alloc == b->big_alloc && a->site == b->site &&
	       a->name == b->name && a->cpu == b->cpu && a->gfp == b->gfp && a->node == b->node &&
	       a->accounted == b->accounted && a->type == b->type;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

static uint64_t key_hash(const struct evarr_key *k)
{
	uint64_t h = 0;
	h = mix(h, k->big_req);
	h = mix(h, k->big_alloc);
	h = mix(h, ((uint64_t)k->site << 32) | k->name);
	h = mix(h, ((uint64_t)k->cpu << 32) | k->gfp);
	h = mix(h, ((uint64_t)(uint32_t)k->node << 16) | ((uint64_t)(uint8_t)k->accounted << 8) |
			   k->type);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static int rehash(struct evarr *a, uint32_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));
	if (!s)
		return SLABSIM_ENOMEM;
	for (uint32_t id = 0; id < a->nkeys; id++) {
		uint32_t j = (uint32_t)key_hash(&a->keys[id]) & (nslots - 1);
		while (s[j])
			j = (j + 1) & (nslots - 1);
		s[j] = id + 1;
	}
	free(a->slots);
	a->slots = s;
	a->nslots = nslots;
	return 0;
}

static int intern_key(struct evarr *a, const struct evarr_key *k, uint32_t *id)
{
	if ((uint64_t)(a->nkeys + 1) * 2 > a->nslots && rehash(a, a->nslots ? a->nslots * 2 : 256))
		return SLABSIM_ENOMEM;
	uint32_t j = (uint32_t)key_hash(k) & (a->nslots - 1);
	for (; a->slots[j]; j = (j + 1) & (a->nslots - 1)) {
		if (key_eq(&a->keys[a->slots[j] - 1], k)) {
			*id = a->slots[j] - 1;
			return 0;
		}
	}
	if (a->nkeys == a->keys_cap) {
		uint32_t ncap = a->keys_cap ? a->keys_cap * 2 : 256;
		struct evarr_key *n = realloc(a->keys, ncap * sizeof(*n));
		if (!n)
			return SLABSIM_ENOMEM;
		a->keys = n;
		a->keys_cap = ncap;
	}
	a->keys[a->nkeys] = *k;
	a->slots[j] = a->nkeys + 1;
	*id = a->nkeys++;
	return 0;
}

static int str_id(struct evarr *a, const char *s, uint32_t *id)
{
	if (!s) {
		*id = NO_STR;
		return 0;
	}
	return strtab_intern(&a->strs, s, id);
}

static int push(struct evarr *a, const struct trace_event *ev)
{
	struct evarr_key k = {0};
	uint32_t key;
	const char *nm = ev->type == TRACE_EV_MARKER ? ev->text : ev->name;

	if (str_id(a, ev->call_site ? ev->call_site : "", &k.site) || str_id(a, nm, &k.name))
		return SLABSIM_ENOMEM;
	k.cpu = ev->cpu;
	k.gfp = ev->gfp;
	k.node = ev->node;
	k.accounted = ev->accounted;
	k.type = (uint8_t)ev->type;
	if (ev->bytes_req >= BIG)
		k.big_req = ev->bytes_req;
	if (ev->bytes_alloc >= BIG)
		k.big_alloc = ev->bytes_alloc;
	if (intern_key(a, &k, &key))
		return SLABSIM_ENOMEM;
	if (a->n == a->cap) {
		uint64_t ncap = a->cap ? a->cap * 2 : 4096;
		struct evarr_ev *n = realloc(a->ev, ncap * sizeof(*n));
		if (!n)
			return SLABSIM_ENOMEM;
		a->ev = n;
		a->cap = ncap;
	}
	a->ev[a->n++] = (struct evarr_ev){
		.t_ns = ev->t_ns,
		.ptr = ev->ptr,
		.bytes_req = ev->bytes_req >= BIG ? BIG : (uint32_t)ev->bytes_req,
		.bytes_alloc = ev->bytes_alloc >= BIG ? BIG : (uint32_t)ev->bytes_alloc,
		.key = key,
		.line = ev->line >= UINT32_MAX ? UINT32_MAX : (uint32_t)ev->line,
	};
	return 0;
}

int evarr_load(const char *path, struct evarr **out, struct err *e)
{
	struct trace_opts lax = {.strict = false};
	struct trace_reader *r = NULL;
	struct trace_event ev;
	int rc;

	*out = NULL;
	struct evarr *a = calloc(1, sizeof(*a));
	if (!a || !(a->path = strdup(path))) {
		free(a);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	strtab_init(&a->strs);
	if ((rc = trace_open(path, &lax, &r, e)))
		goto fail;
	while ((rc = trace_next(r, &ev, e)) == 1) {
		if (push(a, &ev)) {
			rc = err_set(e, SLABSIM_ENOMEM, "%s: out of memory after %llu events", path,
				     (unsigned long long)a->n);
			goto fail;
		}
	}
	if (rc < 0)
		goto fail;
	a->stats = *trace_stats(r);
	trace_close(r);
	if (a->nkeys && !(a->tmpl = malloc((size_t)a->nkeys * sizeof(*a->tmpl)))) {
		rc = err_set(e, SLABSIM_ENOMEM, "%s: out of memory after %llu events", path,
			     (unsigned long long)a->n);
		r = NULL;
		goto fail;
	}
	for (uint32_t id = 0; id < a->nkeys; id++) {
		const struct evarr_key *k = &a->keys[id];
		const char *nm = k->name == NO_STR ? NULL : strtab_str(&a->strs, k->name);
		a->tmpl[id] = (struct trace_event){
			.type = (enum trace_ev_type)k->type,
			.cpu = k->cpu,
			.pid = -1,
			.bytes_req = k->big_req,
			.bytes_alloc = k->big_alloc,
			.node = k->node,
			.accounted = k->accounted,
			.gfp = k->gfp,
			.call_site = strtab_str(&a->strs, k->site),
			.name = k->type == TRACE_EV_MARKER ? NULL : nm,
			.text = k->type == TRACE_EV_MARKER ? nm : NULL,
			.site_id = k->site + 1,
		};
	}
	/* give back the doubling slack: workers share what is left */
	if (a->n && a->n < a->cap) {
		struct evarr_ev *n = realloc(a->ev, a->n * sizeof(*n));
		if (n) {
			a->ev = n;
			a->cap = a->n;
		}
	}
	*out = a;
	return 0;
fail:
	trace_close(r);
	evarr_free(a);
	return rc;
}

void evarr_free(struct evarr *a)
{
	if (!a)
		return;
	free(a->ev);
	free(a->keys);
	free(a->tmpl);
	free(a->slots);
	strtab_fini(&a->strs);
	free(a->path);
	free(a);
}

uint64_t evarr_len(const struct evarr *a)
{
	return a->n;
}

uint32_t evarr_nkeys(const struct evarr *a)
{
	return a->nkeys;
}

const struct trace_stats *evarr_stats(const struct evarr *a)
{
	return &a->stats;
}

const char *evarr_path(const struct evarr *a)
{
	return a->path;
}

size_t evarr_bytes(const struct evarr *a)
{
	size_t b = a->cap * sizeof(*a->ev) + a->keys_cap * sizeof(*a->keys) +
		   a->nslots * sizeof(*a->slots) + a->nkeys * sizeof(*a->tmpl);
	for (uint32_t i = 0; i < a->strs.n; i++)
		b += strlen(a->strs.strs[i]) + 1;
	return b;
}

static inline void get(const struct evarr *a, uint64_t i, struct trace_event *ev)
{
	const struct evarr_ev *x = &a->ev[i];
	*ev = a->tmpl[x->key];
	ev->t_ns = x->t_ns;
	ev->ptr = x->ptr;
	if (x->bytes_req != BIG)
		ev->bytes_req = x->bytes_req;
	if (x->bytes_alloc != BIG)
		ev->bytes_alloc = x->bytes_alloc;
	ev->line = x->line;
}

static int cursor_next(void *ctx, struct trace_event *ev, struct err *e)
{
	struct evarr_cursor *c = ctx;
	(void)e;
	if (c->i >= c->a->n)
		return 0;
	get(c->a, c->i++, ev);
	return 1;
}

static int cursor_next_batch(void *ctx, struct trace_event *ev, uint32_t n, struct err *e)
{
	struct evarr_cursor *c = ctx;
	(void)e;
	uint64_t left = c->a->n - c->i;
	uint32_t k = left < n ? (uint32_t)left : n;
	for (uint32_t j = 0; j < k; j++)
		get(c->a, c->i + j, &ev[j]);
	c->i += k;
	return (int)k;
}

void evarr_get(const struct evarr *a, uint64_t i, struct trace_event *ev)
{
	get(a, i, ev);
}

static uint32_t cursor_peek(void *ctx, uint32_t skip, uint32_t n, uint64_t *ptrs)
{
	const struct evarr_cursor *c = ctx;
	uint64_t from = c->i + skip, end = c->a->n;
	uint32_t k = 0;
	for (; k < n && from + k < end; k++)
		ptrs[k] = c->a->ev[from + k].ptr;
	return k;
}

static void cursor_progress(void *ctx, uint64_t *done, uint64_t *total)
{
	const struct evarr_cursor *c = ctx;
	*done = c->i;
	*total = c->a->n;
}

static const struct trace_stats *cursor_stats(void *ctx)
{
	const struct evarr_cursor *c = ctx;
	return &c->a->stats;
}

void evarr_source(struct sim_source *src, struct evarr_cursor *c, const struct evarr *a)
{
	c->a = a;
	c->i = 0;
	*src = (struct sim_source){
		.ctx = c,
		.next = cursor_next,
		.next_batch = cursor_next_batch,
		.peek_ptrs = cursor_peek,
		.progress = cursor_progress,
		.stats = cursor_stats,
		.name = a->path,
		.id_space = a,
		.stable_strings = true, /* the array's string table */
	};
}
