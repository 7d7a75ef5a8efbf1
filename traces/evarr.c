/* evarr.c - the parsed event array (see evarr.h). */
#define _GNU_SOURCE /* madvise: posix_madvise cannot drop pages; fallocate */
#include "evarr.h"
#include "bigmem.h"
#include "grow.h"
#include "source.h"
#include "strtab.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NO_STR UINT32_MAX

/* What events share: bounded by call sites x CPUs x types x the size
 * classes of a site, not by length. */
struct evarr_key {
	uint64_t big_req; /* bytes_req of 2^32 or more, else 0 */
	uint64_t bytes_alloc;
	uint32_t site, name; /* strtab ids; name NO_STR = NULL */
	uint32_t cpu, gfp;
	int32_t node;
	int8_t accounted;
	uint8_t type;
};

#define TPL_KEYS 256 /* a power of two */

struct evarr {
	struct evarr_ev *ev;
	uint64_t n;
	size_t cap;
	struct evarr_key *keys;
	uint32_t nkeys;
	size_t keys_cap;
	uint32_t *slots; /* open addressing: key id + 1, 0 = empty */
	uint32_t nslots; /* power of two */
	struct strtab strs;
	/* per key, the event with every field a key fixes (sizes of 2^32 or
	 * more too): evarr_get copies it and sets the rest */
	struct trace_event *tmpl;
	struct trace_stats stats;
	char *path;
	/* spilled arrays: events go through buf to the unlinked file fd,
	 * and are read back through windows (see "Windows") */
	int fd;			 /* -1: in memory */
	struct evarr_wins *wins; /* spilled and finished: the read windows */
	uint32_t win_events;	 /* events per window */
	struct evarr_ev *buf;
	uint32_t nbuf, buf_events;
	/* the call sites of the id space being pushed: site_id - 1 -> strtab
	 * id + 1, so a call site's string is hashed once, not per event */
	const void *ids_of;
	/* per key id, the address of the name met as the key's in the id
	 * space names_of (stable strings), so that the next event with it
	 * costs no strcmp; NULL none */
	const char **name_at;
	size_t name_at_cap;
	const void *names_of;
	struct site_memo *site_map;
	size_t site_map_cap;
	/* events without a site_id (a reader's): their call-site strings by
	 * (length, last 8 bytes), and the memo of each by strtab id */
	struct str_hit *str_cache;
	struct site_memo *str_memo;
	size_t str_memo_cap;
	/* the names (name=, a marker's text) of the keys met, the same way */
	struct str_hit *name_cache;
	/* the key of a reader's line template's events (trace_event.tpl) in
	 * the id space tpl_of: every field a key holds is the template's */
	const void *tpl_of;
	struct {
		uint32_t tpl, key;
	} tpl_key[TPL_KEYS];
};

#define STR_CACHE_BITS 10

#define SPILL_BUF_EVENTS 32768u /* 1 MiB per write: see spill_flush */

/*
 * Windows. A finished spilled array is read back with pread into a few
 * buffers of WIN_EVENTS events, each serving one sequential reader (a
 * cursor's events, its look-ahead, evarr_get), rather than mapped: in this
 * project's virtual machine the first touch of each 4 KiB page of a file
 * mapping costs a few microseconds whether or not the page was populated
 * (MAP_POPULATE did not help), 12 % of a text replay's CPU for its 64 MiB
 * spill, where the copy out of the page cache costs far less and the
 * windows stay mapped and in cache. A reader whose events are not in its
 * window refills it from where it reads; the least recently used window
 * goes to a new reader. Windows are filled on the reading thread: a
 * spilled array is read by one thread at a time.
 */
#define WIN_EVENTS 8192u /* 256 KiB (fewer with a smaller write buffer: the tests') */
#define NR_WINS	   4
struct evarr_win {
	const void *owner; /* the reader it serves, NULL: none yet */
	uint64_t first;	   /* event index of ev[0] */
	uint64_t used;	   /* the wins' clock at its last use */
	uint32_t n;	   /* events held */
	struct evarr_ev *ev;
};
struct evarr_wins {
	int err; /* the first failed read's errno, 0: none (then no more reads) */
	uint64_t clock;
	struct evarr_win w[NR_WINS];
};

static bool key_eq(const struct evarr_key *a, const struct evarr_key *b)
{
	return a->big_req == b->big_req && a->bytes_alloc == b->bytes_alloc && a->site == b->site &&
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
	h = mix(h, k->bytes_alloc);
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
	struct evarr_key *n = grow_room(a->keys, &a->keys_cap, a->nkeys, sizeof(*n), 256);
	if (!n)
		return SLABSIM_ENOMEM;
	a->keys = n;
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

/* A call site's string (strtab id + 1) and the key of its last event on
 * each CPU slot (key id + 1): consecutive events of one call site on one
 * CPU mostly share their key, which then costs a comparison, not a hash
 * (keys hold the CPU: one memo per site missed at each change of CPU). By
 * site_id in the id space being pushed, or by the string for events
 * without one. */
#define MEMO_WAYS 4u
struct site_memo {
	uint32_t str, key[MEMO_WAYS];
};

/* The string of a recent call site: a hit costs a comparison, where
 * interning hashes the whole string and probes the table. */
struct str_hit {
	const char *str; /* the strtab's copy, which never moves */
	uint32_t len, id;
};

/* site_memo for an event without a site_id: by the call site's string. */
static int str_memo(struct evarr *a, const char *cs, struct site_memo **out)
{
	size_t len = strlen(cs);
	if (!a->str_cache && !(a->str_cache = calloc(1u << STR_CACHE_BITS, sizeof(*a->str_cache))))
		return SLABSIM_ENOMEM;
	struct str_hit *x = &a->str_cache[strtab_cache_slot(cs, len, STR_CACHE_BITS)];
	uint32_t id;
	if (x->str && x->len == len && memcmp(x->str, cs, len) == 0) {
		id = x->id;
	} else {
		if (len >= UINT32_MAX || strtab_intern_n(&a->strs, cs, len, &id))
			return SLABSIM_ENOMEM;
		*x = (struct str_hit){strtab_str(&a->strs, id), (uint32_t)len, id};
	}
	if (id >= a->str_memo_cap) { /* per new site, not per event */
		struct site_memo *n = grow_to(a->str_memo, &a->str_memo_cap, id, sizeof(*n), 256);
		if (!n)
			return SLABSIM_ENOMEM;
		a->str_memo = n;
	}
	*out = &a->str_memo[id];
	(*out)->str = id + 1;
	return 0;
}

/* str_id() for a key's name, through name_cache: where an event's key is
 * not its call site's last one, its name mostly is one met before (a site
 * that frees objects of many caches), which then costs a comparison, not
 * hashing it whole. */
static int name_id(struct evarr *a, const char *nm, uint32_t *id)
{
	if (!nm) {
		*id = NO_STR;
		return 0;
	}
	size_t len = strlen(nm);
	if (!a->name_cache &&
	    !(a->name_cache = calloc(1u << STR_CACHE_BITS, sizeof(*a->name_cache))))
		return SLABSIM_ENOMEM;
	struct str_hit *x = &a->name_cache[strtab_cache_slot(nm, len, STR_CACHE_BITS)];
	if (x->str && x->len == len && memcmp(x->str, nm, len) == 0) {
		*id = x->id;
		return 0;
	}
	if (len >= UINT32_MAX || strtab_intern_n(&a->strs, nm, len, id))
		return SLABSIM_ENOMEM;
	*x = (struct str_hit){strtab_str(&a->strs, *id), (uint32_t)len, *id};
	return 0;
}

/* The memo of ev's call site (its string interned). Errors: SLABSIM_ENOMEM. */
static inline int site_memo(struct evarr *a, const struct trace_event *ev, const void *id_space,
			    struct site_memo **out)
{
	*out = NULL;
	if (!id_space || !ev->site_id)
		return str_memo(a, ev->call_site ? ev->call_site : "", out);
	if (id_space != a->ids_of) {
		if (a->site_map)
			memset(a->site_map, 0, a->site_map_cap * sizeof(*a->site_map));
		a->ids_of = id_space;
	}
	uint32_t i = ev->site_id - 1;
	if (i >= a->site_map_cap) { /* a call: per new site, not per event */
		struct site_memo *n = grow_to(a->site_map, &a->site_map_cap, i, sizeof(*n), 256);
		if (!n)
			return SLABSIM_ENOMEM;
		a->site_map = n;
	}
	struct site_memo *m = &a->site_map[i];
	if (!m->str) {
		uint32_t id;
		if (str_id(a, ev->call_site ? ev->call_site : "", &id))
			return SLABSIM_ENOMEM;
		m->str = id + 1;
	}
	*out = m;
	return 0;
}

/* Remember nm as key id's name at its address (name_at). Fails only for
 * memory, and then remembers nothing: a memo. */
static __attribute__((noinline)) void name_at_set(struct evarr *a, uint32_t id, const char *nm)
{
	if (id >= a->name_at_cap) { /* per key, not per event */
		const char **n = grow_to(a->name_at, &a->name_at_cap, id, sizeof(*n), 256);
		if (!n)
			return;
		a->name_at = n;
	}
	a->name_at[id] = nm;
}

/* Is ev (its name nm, not interned) of the key id? Read from the event as
 * it is: building an evarr_key first cost a third of a push. stable: nm
 * stays at its address, unchanged, for the id space being pushed, which
 * name_at then remembers (a named free's strcmp, per event). */
static inline __attribute__((always_inline)) bool
ev_is_key(struct evarr *a, uint32_t id, const struct trace_event *ev, const char *nm, bool stable)
{
	const struct evarr_key *p = &a->keys[id];
	if (p->cpu != ev->cpu || p->gfp != ev->gfp || p->node != ev->node ||
	    p->accounted != ev->accounted || p->type != (uint8_t)ev->type ||
	    p->bytes_alloc != ev->bytes_alloc ||
	    p->big_req != (ev->bytes_req >= EVARR_BIG ? ev->bytes_req : 0))
		return false;
	if (p->name == NO_STR)
		return !nm;
	if (!nm)
		return false;
	if (stable && id < a->name_at_cap && a->name_at[id] == nm)
		return true;
	if (strcmp(strtab_str(&a->strs, p->name), nm) != 0)
		return false;
	if (stable)
		name_at_set(a, id, nm);
	return true;
}

/* Write the buffered events of a spilled array. A write of 2 MiB or more
 * lets the file's page cache take 2 MiB folios, which in this project's
 * virtual machine cost ten times the system time of smaller ones after the
 * memory sat free (80 MiB written: 0.12-0.16 s in 2 MiB writes, 0.012-0.017 s
 * in 0.25-1.5 MiB ones): hence writes of 1 MiB (SPILL_BUF_EVENTS). */
static int spill_flush(struct evarr *a)
{
	const char *p = (const char *)a->buf;
	size_t left = (size_t)a->nbuf * sizeof(*a->buf);
	while (left) {
		ssize_t w = write(a->fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return SLABSIM_EIO;
		p += w;
		left -= (size_t)w;
	}
	a->nbuf = 0;
	return 0;
}

/* Room for one more event: *x, counted. 0, SLABSIM_EIO or SLABSIM_ENOMEM. */
static inline __attribute__((always_inline)) int slot(struct evarr *a, struct evarr_ev **x)
{
	if (a->fd >= 0) {
		if (a->nbuf == a->buf_events && spill_flush(a))
			return SLABSIM_EIO;
		*x = &a->buf[a->nbuf++];
	} else {
		if (a->n == a->cap) {
			/* a mapping of its own once large: a 10 M-event
			 * array grows in place, in huge pages (bigmem.h) */
			struct evarr_ev *n = bigmem_grow(a->ev, &a->cap, a->n, sizeof(*n), 4096);
			if (!n)
				return SLABSIM_ENOMEM;
			a->ev = n;
		}
		*x = &a->ev[a->n];
	}
	a->n++;
	return 0;
}

/* The key of ev (its name nm) at site memo m, interned; *mk its memo. A
 * call per key change of a site, not per event. Errors: SLABSIM_ENOMEM. */
static __attribute__((noinline)) int key_of(struct evarr *a, const struct trace_event *ev,
					    const char *nm, const struct site_memo *m, uint32_t *mk)
{
	struct evarr_key k = {
		.big_req = ev->bytes_req >= EVARR_BIG ? ev->bytes_req : 0,
		.bytes_alloc = ev->bytes_alloc,
		.site = m->str - 1,
		.cpu = ev->cpu,
		.gfp = ev->gfp,
		.node = ev->node,
		.accounted = ev->accounted,
		.type = (uint8_t)ev->type,
	};
	uint32_t key;
	if (name_id(a, nm, &k.name) || intern_key(a, &k, &key))
		return SLABSIM_ENOMEM;
	*mk = key + 1;
	return 0;
}

/* stable: ev's name (not a marker's text) stays at its address for
 * id_space (trace_source.stable_strings) */
static inline __attribute__((always_inline)) int push(struct evarr *a, const struct trace_event *ev,
						      const void *id_space, bool stable)
{
	bool marker = ev->type == TRACE_EV_MARKER;
	const char *nm = marker ? ev->text : ev->name;
	uint32_t key;
	/* a line template's event after its first: the first's key */
	uint32_t t = ev->tpl & (TPL_KEYS - 1);
	if (ev->tpl && id_space && a->tpl_of == id_space && a->tpl_key[t].tpl == ev->tpl) {
		key = a->tpl_key[t].key;
	} else {
		struct site_memo *m;
		if (site_memo(a, ev, id_space, &m))
			return SLABSIM_ENOMEM;
		uint32_t *mk = &m->key[ev->cpu & (MEMO_WAYS - 1)];
		if (!(*mk && ev_is_key(a, *mk - 1, ev, nm, stable && !marker)) &&
		    key_of(a, ev, nm, m, mk))
			return SLABSIM_ENOMEM;
		key = *mk - 1;
		if (ev->tpl && id_space) {
			if (a->tpl_of != id_space) { /* another space's serials */
				memset(a->tpl_key, 0, sizeof(a->tpl_key));
				a->tpl_of = id_space;
			}
			a->tpl_key[t].tpl = ev->tpl;
			a->tpl_key[t].key = key;
		}
	}
	struct evarr_ev *x;
	int rc = slot(a, &x);
	if (rc)
		return rc;
	*x = (struct evarr_ev){
		.t_ns = ev->t_ns,
		.ptr = ev->ptr,
		.bytes_req = ev->bytes_req >= EVARR_BIG ? EVARR_BIG : (uint32_t)ev->bytes_req,
		.key = key,
		.line = ev->line >= UINT32_MAX ? UINT32_MAX : (uint32_t)ev->line,
		.pid = ev->pid,
	};
	return 0;
}

static struct evarr *create(const char *path)
{
	struct evarr *a = calloc(1, sizeof(*a));
	if (!a || !(a->path = strdup(path))) {
		free(a);
		return NULL;
	}
	strtab_init(&a->strs);
	a->fd = -1;
	return a;
}

/* Per key, the template evarr_get starts from. */
static int make_templates(struct evarr *a)
{
	if (a->nkeys && !(a->tmpl = malloc((size_t)a->nkeys * sizeof(*a->tmpl))))
		return SLABSIM_ENOMEM;
	for (uint32_t id = 0; id < a->nkeys; id++) {
		const struct evarr_key *k = &a->keys[id];
		const char *nm = k->name == NO_STR ? NULL : strtab_str(&a->strs, k->name);
		a->tmpl[id] = (struct trace_event){
			.type = (enum trace_ev_type)k->type,
			.cpu = k->cpu,
			.pid = -1,
			.bytes_req = k->big_req,
			.bytes_alloc = k->bytes_alloc,
			.node = k->node,
			.accounted = k->accounted,
			.gfp = k->gfp,
			.call_site = strtab_str(&a->strs, k->site),
			.name = k->type == TRACE_EV_MARKER ? NULL : nm,
			.text = k->type == TRACE_EV_MARKER ? nm : NULL,
			.site_id = k->site + 1,
		};
	}
	return 0;
}

int evarr_load(const char *path, struct evarr **out, struct err *e)
{
	return evarr_load_kallsyms(path, NULL, out, e);
}

int evarr_load_kallsyms(const char *path, const char *kallsyms, struct evarr **out, struct err *e)
{
	struct trace_opts lax = {.strict = false, .kallsyms = kallsyms};
	struct trace_reader *r = NULL;
	struct trace_event ev;
	int rc;

	*out = NULL;
	struct evarr *a = create(path);
	if (!a)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	if ((rc = trace_open(path, &lax, &r, e)))
		goto fail;
	while ((rc = trace_next(r, &ev, e)) == 1) {
		if (push(a, &ev, NULL, false)) {
			rc = err_set(e, SLABSIM_ENOMEM, "%s: out of memory after %llu events", path,
				     (unsigned long long)a->n);
			goto fail;
		}
	}
	if (rc < 0)
		goto fail;
	a->stats = *trace_stats(r);
	trace_close(r);
	r = NULL;
	if (make_templates(a)) {
		rc = err_set(e, SLABSIM_ENOMEM, "%s: out of memory after %llu events", path,
			     (unsigned long long)a->n);
		goto fail;
	}
	/* give back the doubling slack: workers share what is left */
	if (a->n && a->n < a->cap) {
		struct evarr_ev *n = bigmem_resize(a->ev, a->cap * sizeof(*n), a->n * sizeof(*n));
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

int evarr_open(const char *label, struct evarr **out, struct err *e)
{
	*out = create(label);
	return *out ? 0 : err_set(e, SLABSIM_ENOMEM, "out of memory");
}

int evarr_reserve(struct evarr *a, uint64_t n, struct err *e)
{
	const size_t huge = (size_t)2 << 20;
	if (a->fd >= 0 || n <= a->cap)
		return 0;
	if (n > (SIZE_MAX - huge) / sizeof(*a->ev))
		return err_set(e, SLABSIM_ENOMEM, "%s: out of memory", a->path);
	/* whole huge pages: a mapping of such a size starts on one */
	size_t bytes = (n * sizeof(*a->ev) + huge - 1) & ~(huge - 1);
	struct evarr_ev *m = bigmem_resize(a->ev, a->cap * sizeof(*a->ev), bytes);
	if (!m)
		return err_set(e, SLABSIM_ENOMEM, "%s: out of memory", a->path);
	a->ev = m;
	a->cap = bytes / sizeof(*a->ev);
	return 0;
}

int evarr_spill_open(const char *label, const char *dir, uint32_t buf_events, struct evarr **out,
		     struct err *e)
{
	*out = NULL;
	struct evarr *a = create(label);
	if (a) {
		a->buf_events = buf_events ? buf_events : SPILL_BUF_EVENTS;
		a->win_events = a->buf_events < WIN_EVENTS ? a->buf_events : WIN_EVENTS;
	}
	if (!a || !(a->buf = bigmem_resize(NULL, 0, (size_t)a->buf_events * sizeof(*a->buf)))) {
		evarr_free(a);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	size_t len = strlen(dir) + sizeof("/slabsim-spill-XXXXXX");
	char *tmpl = malloc(len);
	if (!tmpl) {
		evarr_free(a);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	(void)snprintf(tmpl, len, "%s/slabsim-spill-XXXXXX", dir);
	a->fd = mkstemp(tmpl);
	if (a->fd < 0) {
		int rc = err_set(e, SLABSIM_EIO, "%s: cannot create a temporary file: %s", dir,
				 strerror(errno));
		free(tmpl);
		evarr_free(a);
		return rc;
	}
	/* nameless from now on: the space goes back when fd closes, even
	 * if the process is killed */
	(void)unlink(tmpl);
	free(tmpl);
	*out = a;
	return 0;
}

/* evarr_push's message for push's rc */
static int push_error(const struct evarr *a, int rc, struct err *e)
{
	if (rc == SLABSIM_EIO)
		return err_set(e, rc, "%s: cannot write the parsed events to a temporary file: %s",
			       a->path, strerror(errno ? errno : EIO));
	return err_set(e, rc, "%s: out of memory after %llu events", a->path,
		       (unsigned long long)a->n);
}

int evarr_push(struct evarr *a, const struct trace_event *ev, const void *id_space, struct err *e)
{
	int rc = push(a, ev, id_space, false);
	return rc ? push_error(a, rc, e) : 0;
}

int evarr_push_batch(struct evarr *a, const struct trace_event *ev, uint32_t n,
		     const void *id_space, bool stable_strings, struct err *e)
{
	bool stable = stable_strings && id_space;
	if (stable && id_space != a->names_of) { /* the addresses of another space */
		if (a->name_at)
			memset(a->name_at, 0, a->name_at_cap * sizeof(*a->name_at));
		a->names_of = id_space;
	}
	for (uint32_t i = 0; i < n; i++) {
		int rc = push(a, &ev[i], id_space, stable);
		if (rc)
			return push_error(a, rc, e);
	}
	return 0;
}

/* evarr_append without the message. */
static int append(struct evarr *a, const struct evarr *from)
{
	uint32_t *map = malloc((from->nkeys ? from->nkeys : 1) * sizeof(*map));
	int rc = map ? 0 : SLABSIM_ENOMEM;
	/* from's keys in a's ids, in their order: as pushing its events would
	 * have met them */
	for (uint32_t j = 0; !rc && j < from->nkeys; j++) {
		struct evarr_key k = from->keys[j];
		const char *nm = k.name == NO_STR ? NULL : strtab_str(&from->strs, k.name);
		if (str_id(a, strtab_str(&from->strs, k.site), &k.site) || str_id(a, nm, &k.name) ||
		    intern_key(a, &k, &map[j]))
			rc = SLABSIM_ENOMEM;
	}
	for (uint64_t i = 0; !rc && i < from->n; i++) {
		struct evarr_ev *x;
		if (!(rc = slot(a, &x))) {
			*x = from->ev[i];
			x->key = map[x->key];
		}
	}
	free(map);
	return rc;
}

int evarr_append(struct evarr *a, const struct evarr *from, struct err *e)
{
	int rc = append(a, from);
	return rc ? push_error(a, rc, e) : 0;
}

int evarr_spill_finish(struct evarr *a, const struct trace_stats *stats, struct err *e)
{
	if (stats)
		a->stats = *stats;
	if (make_templates(a))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	if (a->fd < 0)
		return 0;
	if (spill_flush(a))
		return err_set(e, SLABSIM_EIO,
			       "%s: cannot write the parsed events to a temporary file: %s",
			       a->path, strerror(errno ? errno : EIO));
	bigmem_free(a->buf, (size_t)a->buf_events * sizeof(*a->buf));
	a->buf = NULL;
	if (!(a->wins = calloc(1, sizeof(*a->wins))))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	return 0;
}

void evarr_free(struct evarr *a)
{
	if (!a)
		return;
	if (a->fd >= 0) {
		for (int i = 0; a->wins && i < NR_WINS; i++)
			free(a->wins->w[i].ev);
		free(a->wins);
		(void)close(a->fd);
	} else {
		bigmem_free(a->ev, a->cap * sizeof(*a->ev));
	}
	bigmem_free(a->buf, (size_t)a->buf_events * sizeof(*a->buf));
	free(a->site_map);
	free(a->name_at);
	free(a->str_cache);
	free(a->str_memo);
	free(a->name_cache);
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
	size_t b = (a->fd >= 0 ? (a->wins ? NR_WINS * (size_t)a->win_events : 0) : a->cap) *
			   sizeof(struct evarr_ev) +
		   a->keys_cap * sizeof(*a->keys) + a->nslots * sizeof(*a->slots) +
		   a->nkeys * sizeof(*a->tmpl);
	for (uint32_t i = 0; i < a->strs.n; i++)
		b += strlen(a->strs.strs[i]) + 1;
	return b;
}

/* Read events [first, first + n) of spilled array a into ev. 0, or errno. */
static int win_read(const struct evarr *a, uint64_t first, uint32_t n, struct evarr_ev *ev)
{
	char *p = (char *)ev;
	size_t left = (size_t)n * sizeof(*ev);
	off_t off = (off_t)(first * sizeof(*ev));
	while (left) {
		ssize_t r = pread(a->fd, p, left, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? errno : EIO; /* short: the file lost events */
		p += r;
		off += r;
		left -= (size_t)r;
	}
	return 0;
}

/* Event i of a spilled array for reader owner, with the need - 1 after it
 * (as many as there are, up to a window) in place after it: *avail, the
 * events in place from it. NULL if a read failed
 * (a->wins->err, and every later call fails too) or out of memory. */
static const struct evarr_ev *win_at(const struct evarr *a, const void *owner, uint64_t i,
				     uint32_t need, uint64_t *avail)
{
	struct evarr_wins *ws = a->wins;
	struct evarr_win *w = NULL, *lru = &ws->w[0];
	uint64_t rest = a->n - i;
	if (ws->err)
		return NULL;
	for (int k = 0; k < NR_WINS; k++) {
		if (ws->w[k].owner == owner && ws->w[k].ev) {
			w = &ws->w[k];
			break;
		}
		if (ws->w[k].used < lru->used)
			lru = &ws->w[k];
	}
	if (!w) {
		w = lru;
		w->owner = owner;
		w->n = 0;
	}
	w->used = ++ws->clock;
	if (need > a->win_events)
		need = a->win_events;
	if (i < w->first || i - w->first + (rest < need ? rest : need) > w->n) {
		uint32_t n = rest < a->win_events ? (uint32_t)rest : a->win_events;
		if (!w->ev && !(w->ev = malloc((size_t)a->win_events * sizeof(*w->ev)))) {
			ws->err = ENOMEM;
			return NULL;
		}
		w->first = i;
		w->n = 0;
		if ((ws->err = win_read(a, i, n, w->ev)))
			return NULL;
		w->n = n;
	}
	*avail = w->first + w->n - i;
	return &w->ev[i - w->first];
}

/* Event i (< a->n) and *avail >= min(need, events from i, a window) in
 * place from it, for reader owner; NULL: a spilled array's read failed. */
static inline const struct evarr_ev *at(const struct evarr *a, const void *owner, uint64_t i,
					uint32_t need, uint64_t *avail)
{
	if (a->fd < 0) {
		*avail = a->n - i;
		return &a->ev[i];
	}
	return win_at(a, owner, i, need, avail);
}

/* The message of a spilled array's failed read (SLABSIM_EIO or ENOMEM). */
static int win_error(const struct evarr *a, struct err *e)
{
	int er = a->wins->err;
	if (er == ENOMEM)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	return err_set(e, SLABSIM_EIO,
		       "%s: cannot read the parsed events back from a temporary file: %s", a->path,
		       strerror(er));
}

static inline void get_ev(const struct evarr *a, const struct evarr_ev *x, struct trace_event *ev)
{
	*ev = a->tmpl[x->key];
	evarr_set_fields(ev, x);
}

/* The readers of a cursor c: its events, its peeks at pointers, its
 * look-ahead (peek_at). */
#define OWN_TAKE(c)  ((const void *)(c))
#define OWN_PEEK(c)  ((const void *)((const char *)(c) + 1))
#define OWN_AHEAD(c) ((const void *)((const char *)(c) + 2))

/* Give back the file's pages of a spilled array that c has passed, when
 * it consumes them (the page cache the spill took is free for the
 * replay's own memory as it grows). */
static void cursor_drop(struct evarr_cursor *c)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t from = c->dropped * sizeof(struct evarr_ev), to = c->i * sizeof(struct evarr_ev);
	from = (from + (uint64_t)pg - 1) & ~((uint64_t)pg - 1);
	to &= ~((uint64_t)pg - 1);
	/* a file system without holes keeps the pages: no harm */
	if (to > from)
		(void)fallocate(c->a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)from,
				(off_t)(to - from));
	c->dropped = c->i;
}

/* Before c reads on: a system call per 64 K events, not per page. */
static inline void cursor_passed(struct evarr_cursor *c)
{
	if (c->consume && c->a->fd >= 0 && c->i - c->dropped >= 2 * (uint64_t)c->a->buf_events)
		cursor_drop(c);
}

static int cursor_next(void *ctx, struct trace_event *ev, struct err *e)
{
	struct evarr_cursor *c = ctx;
	uint64_t avail;
	if (c->i >= c->a->n)
		return 0;
	cursor_passed(c);
	const struct evarr_ev *x = at(c->a, OWN_TAKE(c), c->i, 1, &avail);
	if (!x)
		return win_error(c->a, e);
	get_ev(c->a, x, ev);
	c->i++;
	return 1;
}

uint32_t evarr_cursor_take(struct evarr_cursor *c, uint32_t n, const struct evarr_ev **ev,
			   uint64_t *left)
{
	uint64_t rest = c->a->n - c->i;
	uint32_t k = rest < n ? (uint32_t)rest : n;
	if (!k)
		return 0;
	cursor_passed(c);
	const struct evarr_ev *x = at(c->a, OWN_TAKE(c), c->i, n + EVARR_TAKE_AHEAD, left);
	if (!x) {
		c->failed = true;
		return 0;
	}
	if (k > *left)
		k = (uint32_t)*left; /* a window smaller than n (the tests') */
	*ev = x;
	c->i += k;
	return k;
}

int evarr_cursor_error(const struct evarr_cursor *c, struct err *e)
{
	return c->failed ? win_error(c->a, e) : 0;
}

static int cursor_next_batch(void *ctx, struct trace_event *ev, uint32_t n, struct err *e)
{
	struct evarr_cursor *c = ctx;
	const struct evarr_ev *x;
	uint64_t left;
	uint32_t k = evarr_cursor_take(c, n, &x, &left);
	if (!k)
		return evarr_cursor_error(c, e);
	for (uint32_t j = 0; j < k; j++)
		get_ev(c->a, &x[j], &ev[j]);
	return (int)k;
}

struct trace_event *evarr_templates(const struct evarr *a)
{
	struct trace_event *t = malloc(((size_t)a->nkeys + 1) * sizeof(*t)); /* never 0 bytes */
	if (t && a->nkeys)
		memcpy(t, a->tmpl, (size_t)a->nkeys * sizeof(*t));
	return t;
}

struct evarr_cursor *evarr_source_cursor(const struct trace_source *src)
{
	return src->next_batch == cursor_next_batch ? src->ctx : NULL;
}

int evarr_get(const struct evarr *a, const void *reader, uint64_t i, struct trace_event *ev,
	      struct err *e)
{
	uint64_t avail;
	const struct evarr_ev *x = at(a, reader, i, 1, &avail);
	if (!x)
		return win_error(a, e);
	get_ev(a, x, ev);
	return 0;
}

/* Hints only: a failed read gives fewer (the replay's read of the same
 * events reports it). */
static uint32_t cursor_peek(void *ctx, uint32_t skip, uint32_t n, uint64_t *ptrs)
{
	const struct evarr_cursor *c = ctx;
	uint64_t from = c->i + skip, end = c->a->n, avail;
	uint32_t k = 0;
	while (k < n && from + k < end) {
		const struct evarr_ev *x = at(c->a, OWN_PEEK(c), from + k, n - k, &avail);
		if (!x)
			break;
		for (uint64_t j = 0; j < avail && k < n; j++)
			ptrs[k++] = x[j].ptr;
	}
	return k;
}

/* The look-ahead: a failed read ends it early, and the replay's read of
 * the same events reports the failure. */
static uint32_t cursor_peek_at(void *ctx, uint64_t i, uint32_t n, struct trace_event *ev)
{
	const struct evarr_cursor *c = ctx;
	uint64_t avail;
	uint32_t k = 0;
	while (k < n && i + k < c->a->n) {
		const struct evarr_ev *x = at(c->a, OWN_AHEAD(c), i + k, n - k, &avail);
		if (!x)
			break;
		for (uint64_t j = 0; j < avail && k < n; j++, x++)
			get_ev(c->a, x, &ev[k++]);
	}
	return k;
}

static void cursor_progress(void *ctx, uint64_t *done, uint64_t *total)
{
	const struct evarr_cursor *c = ctx;
	*done = c->i;
	*total = c->a->n;
}

void evarr_set_stats(struct evarr *a, const struct trace_stats *stats)
{
	a->stats = *stats;
}

static const struct trace_stats *cursor_stats(void *ctx)
{
	const struct evarr_cursor *c = ctx;
	return &c->a->stats;
}

void evarr_source(struct trace_source *src, struct evarr_cursor *c, const struct evarr *a)
{
	c->a = a;
	c->i = 0;
	c->dropped = 0;
	c->consume = false;
	c->failed = false;
	*src = (struct trace_source){
		.ctx = c,
		.next = cursor_next,
		.next_batch = cursor_next_batch,
		.peek_ptrs = cursor_peek,
		.peek_at = cursor_peek_at,
		.progress = cursor_progress,
		.stats = cursor_stats,
		.name = a->path,
		.id_space = a,
		.stable_strings = true, /* the array's string table */
	};
}
