/* ktrace.c - the running kernel's kmem: events through a tracefs instance of
 * our own (ktrace.h), read with libtracefs and decoded with libtraceevent.
 *
 * Records are read page by page from each CPU's trace_pipe_raw (consuming, so the
 * memory held is the pages read at a time, whatever the run's length) and
 * their fields are read as numbers and strings, never printed and parsed:
 * ptr, bytes_req, bytes_alloc, node and the cache's name= as the event
 * stores them; the gfp bits the model uses (DMA, RECLAIMABLE, ACCOUNT) by
 * the values the event format's own __print_flags table gives those names,
 * so a kernel that renumbers its gfp bits is read right; accounted= from
 * its field, or, where the format prints it from gfp_flags (kmalloc since
 * 6.3), from __GFP_ACCOUNT, as the text the kernel would print says. Call
 * sites are "func+0xoff" from /proc/kallsyms, as the kernel's %pS prints
 * them, or the address in hex when it has no symbol. Times are the ring
 * buffer's, in the instance's trace clock ("mono" where the kernel has it:
 * CLOCK_MONOTONIC, comparable with what user space reads).
 */
#define _GNU_SOURCE /* cpu_set_t in tracefs.h */
#include "ktrace.h"
#include "tepgfp.h"
#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef SLABSIM_HAVE_TRACEFS

bool ktrace_supported(void)
{
	return false;
}

int ktrace_open(const struct ktrace_opts *o, struct ktrace **out, struct err *e)
{
	*out = NULL;
	return err_set(e, SLABSIM_EUSAGE,
		       "this slabsim was built without libtracefs: live tracing needs "
		       "libtracefs-dev (scripts/deps.sh) at build time");
}

int ktrace_start(struct ktrace *k, struct err *e)
{
	return err_set(e, SLABSIM_EUSAGE, "built without libtracefs");
}

int ktrace_stop(struct ktrace *k, struct err *e)
{
	return err_set(e, SLABSIM_EUSAGE, "built without libtracefs");
}

int ktrace_read(struct ktrace *k, bool all, ktrace_event_fn fn, void *ctx, struct err *e)
{
	return err_set(e, SLABSIM_EUSAGE, "built without libtracefs");
}

uint64_t ktrace_lost(struct ktrace *k)
{
	return 0;
}

const char *ktrace_instance(const struct ktrace *k)
{
	return "";
}

const char *ktrace_enabled(const struct ktrace *k)
{
	return "";
}

void ktrace_close(struct ktrace *k)
{
}

#else

#include <sys/mount.h>
#include <traceevent/kbuffer.h>
#include <tracefs.h>

#define NAME_MAX_LEN 256
#define SITE_CACHE   4096 /* call-site strings by address, direct-mapped */
#define SITE_LEN     120

/* Where the fields of one slab event are (looked up once per event id). */
struct evinfo {
	int id;
	enum trace_ev_type type;
	struct tep_format_field *call_site, *ptr, *bytes_req, *bytes_alloc, *gfp_flags, *node,
		*accounted, *name;
	struct tep_format_field *pfn, *order; /* mm_page_free, mm_page_alloc */
	bool accounted_in_fmt;		      /* accounted= printed from gfp_flags, no field */
	uint64_t dma_bit, rcl_bit, account_bit, hardwall_bit, nowarn_bit;
};

struct site_slot {
	uint64_t addr;
	char str[SITE_LEN]; /* "" = empty slot */
};

struct ktrace {
	struct tracefs_instance *inst;
	char name[64];
	char *mount_path; /* tracefs mounted by ktrace_open: unmounted at close */
	struct tep_handle *tep;
	struct evinfo info[TRACE_EV_MARKER + 2]; /* the slab events, mm_page_free and _alloc */
	uint32_t ninfo;
	char enabled[200];
	long ncpus;
	struct site_slot *sites;
	char site[SITE_LEN];
	char cname[NAME_MAX_LEN];
	bool mono;		  /* the instance's trace clock is CLOCK_MONOTONIC */
	bool page_free;		  /* trace kmem:mm_page_free and _alloc too (ktrace_opts) */
	struct tracefs_cpu **cpu; /* each CPU's trace_pipe_raw, non-blocking */
	struct kbuffer *kbuf;
	void *page;
	int page_size;
	/* events read but not handed over yet (the reorder window) */
	struct pending *pend;
	size_t npend, cap;
	uint64_t seq;
	int rc;
};

/* An event held in the reorder window, with its strings. */
struct pending {
	struct trace_event ev;
	uint64_t seq; /* read order: ties keep it */
	char site[SITE_LEN];
	char name[64]; /* a cache name (kmem_cache_create's, short) */
	bool has_name;
};

bool ktrace_supported(void)
{
	return true;
}

/* ---- the formats ---- */


/* The bits of __GFP_DMA, __GFP_RECLAIMABLE, __GFP_ACCOUNT, and of
 * __GFP_HARDWALL and __GFP_NOWARN (which route memdup_user's GFP_USER
 * kmallocs to its kmem_buckets, as the text reader's gfp names do), by the
 * format's flag table; without one, the numbering of 5.4 to 6.x. */
static void gfp_bits_of(struct tep_event *ev, struct evinfo *x)
{
	x->dma_bit = 0x01;
	x->rcl_bit = 0x10;
	x->account_bit = 0x400000;
	x->hardwall_bit = 0x100000;
	x->nowarn_bit = 0x2000;
	struct tep_print_arg *t = x->gfp_flags ? tepgfp_table(ev->print_fmt.args) : NULL;
	for (struct tep_print_flag_sym *f = t ? t->flags.flags : NULL; f; f = f->next) {
		uint64_t v = f->value ? strtoull(f->value, NULL, 0) : 0;
		if (!f->str || !v)
			continue;
		if (strcmp(f->str, "__GFP_DMA") == 0)
			x->dma_bit = v;
		else if (strcmp(f->str, "__GFP_RECLAIMABLE") == 0)
			x->rcl_bit = v;
		else if (strcmp(f->str, "__GFP_ACCOUNT") == 0)
			x->account_bit = v;
		else if (strcmp(f->str, "__GFP_HARDWALL") == 0)
			x->hardwall_bit = v;
		else if (strcmp(f->str, "__GFP_NOWARN") == 0)
			x->nowarn_bit = v;
	}
}

static void info_of(struct ktrace *k, struct tep_event *ev, enum trace_ev_type t)
{
	struct evinfo *x = &k->info[k->ninfo++];
	memset(x, 0, sizeof(*x));
	x->id = ev->id;
	x->type = t;
	x->call_site = tep_find_field(ev, "call_site");
	x->ptr = tep_find_field(ev, "ptr");
	x->bytes_req = tep_find_field(ev, "bytes_req");
	x->bytes_alloc = tep_find_field(ev, "bytes_alloc");
	x->gfp_flags = tep_find_field(ev, "gfp_flags");
	x->node = tep_find_field(ev, "node");
	x->accounted = tep_find_field(ev, "accounted");
	x->name = tep_find_field(ev, "name");
	x->pfn = tep_find_field(ev, "pfn");
	x->order = tep_find_field(ev, "order");
	const char *fmt = ev->print_fmt.format ? ev->print_fmt.format : "";
	x->accounted_in_fmt = !x->accounted && x->gfp_flags && strstr(fmt, "accounted=");
	gfp_bits_of(ev, x);
	/* a kernel built without memcg prints IS_ENABLED(CONFIG_MEMCG) as 0 */
	const char *a = strstr(fmt, "accounted=");
	if (x->accounted_in_fmt && a && strstr(a, "(0 &&"))
		x->account_bit = 0;
}

/* ---- decoding ---- */

static bool num(struct tep_format_field *f, struct tep_record *rec, uint64_t *v)
{
	unsigned long long x;
	if (!f || tep_read_number_field(f, rec->data, &x))
		return false;
	*v = x;
	return true;
}

static const char *site_str(struct ktrace *k, uint64_t addr)
{
	struct site_slot *s = &k->sites[(addr * UINT64_C(0x9e3779b97f4a7c15)) >> 52];
	if (s->str[0] && s->addr == addr)
		return s->str;
	const char *fn = tep_find_function(k->tep, addr);
	if (fn)
		(void)snprintf(s->str, sizeof(s->str), "%s+0x%x", fn,
			       (unsigned)(addr - tep_find_function_address(k->tep, addr)));
	else
		(void)snprintf(s->str, sizeof(s->str), "0x%" PRIx64, addr);
	s->addr = addr;
	return s->str;
}

static void decode(struct ktrace *k, const struct evinfo *x, struct tep_event *event,
		   struct tep_record *rec, struct trace_event *ev)
{
	uint64_t v;
	memset(ev, 0, sizeof(*ev));
	trace_event_clear_fields(ev);
	ev->type = x->type;
	ev->t_ns = rec->ts;
	ev->cpu = (uint32_t)rec->cpu;
	ev->pid = tep_data_pid(k->tep, rec);
	if (x->type == TRACE_EV_PAGE_FREE || x->type == TRACE_EV_PAGE_ALLOC) { /* trace.h */
		uint64_t pfn = 0, order = 0;
		(void)num(x->pfn, rec, &pfn);
		(void)num(x->order, rec, &order);
		if (pfn >> 40) /* a failed allocation's -1 */
			return;
		ev->ptr = pfn << 12;
		ev->bytes_alloc = UINT64_C(4096) << (order < 20 ? order : 20);
		return;
	}
	(void)num(x->ptr, rec, &ev->ptr);
	(void)num(x->bytes_req, rec, &ev->bytes_req);
	(void)num(x->bytes_alloc, rec, &ev->bytes_alloc);
	if (num(x->gfp_flags, rec, &v)) {
		ev->gfp = TRACE_GFP_KNOWN | ((v & x->dma_bit) ? TRACE_GFP_DMA : 0u) |
			  ((v & x->rcl_bit) ? TRACE_GFP_RECLAIMABLE : 0u) |
			  ((x->account_bit && (v & x->account_bit)) ? TRACE_GFP_ACCOUNT : 0u) |
			  ((v & x->hardwall_bit) ? TRACE_GFP_HARDWALL : 0u) |
			  ((v & x->nowarn_bit) ? TRACE_GFP_NOWARN : 0u);
		if (x->accounted_in_fmt)
			ev->accounted = (ev->gfp & TRACE_GFP_ACCOUNT) != 0;
	}
	if (num(x->accounted, rec, &v))
		ev->accounted = v != 0;
	/* accounted=true without __GFP_ACCOUNT: the cache's SLAB_ACCOUNT (as
	 * the text parser reads the same fields) */
	if (ev->accounted == 1 && !(ev->gfp & TRACE_GFP_ACCOUNT))
		ev->gfp |= TRACE_GFP_ACCOUNT |
			   ((ev->gfp & TRACE_GFP_KNOWN) ? TRACE_GFP_ACCOUNT_ONLY : 0u);
	if (num(x->node, rec, &v))
		ev->node = (int32_t)v;
	if (num(x->call_site, rec, &v))
		ev->call_site = site_str(k, v);
	if (x->name) {
		int len = 0;
		const char *s = tep_get_field_raw(NULL, event, "name", rec, &len, 0);
		if (s && len > 0) {
			size_t n = strnlen(s, (size_t)len);
			n = n < sizeof(k->cname) - 1 ? n : sizeof(k->cname) - 1;
			memcpy(k->cname, s, n);
			k->cname[n] = '\0';
			ev->name = k->cname;
		}
	}
}

static int on_record(struct tep_event *event, struct tep_record *rec, int cpu, void *ctx)
{
	struct ktrace *k = ctx;
	if (k->rc)
		return 1;
	for (uint32_t i = 0; i < k->ninfo; i++) {
		if (k->info[i].id != event->id)
			continue;
		if (k->npend == k->cap) {
			size_t nc = k->cap ? k->cap * 2 : 4096;
			struct pending *v = realloc(k->pend, nc * sizeof(*v));
			if (!v) {
				k->rc = SLABSIM_ENOMEM;
				return 1;
			}
			k->pend = v;
			k->cap = nc;
		}
		struct pending *p = &k->pend[k->npend++];
		decode(k, &k->info[i], event, rec, &p->ev);
		p->seq = k->seq++;
		(void)snprintf(p->site, sizeof(p->site), "%s", p->ev.call_site);
		p->has_name = p->ev.name != NULL;
		if (p->has_name)
			(void)snprintf(p->name, sizeof(p->name), "%s", p->ev.name);
		return 0;
	}
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	if (x->ev.t_ns != y->ev.t_ns)
		return x->ev.t_ns < y->ev.t_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- the instance ---- */

static int remove_stale(const char *name, void *ctx)
{
	unsigned long pid;
	char rest;
	if (sscanf(name, "slabsim-live-%lu%c", &pid, &rest) != 1 || !pid || (pid_t)pid == getpid())
		return 0;
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0; /* its session still runs */
	struct tracefs_instance *i = tracefs_instance_alloc(NULL, name);
	if (i) {
		(void)tracefs_instance_destroy(i);
		tracefs_instance_free(i);
	}
	return 0;
}

/* /proc/kallsyms into the event handle, for symbolic call sites; without
 * it (unreadable, hidden addresses) sites stay hex, which changes no
 * figure of the model. */
static void load_kallsyms(struct tep_handle *tep)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t cap = 1 << 20, n = 0;
	char *buf = f ? malloc(cap) : NULL;
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
		if (cap - n - 1 == 0) {
			char *b = realloc(buf, cap * 2);
			if (!b) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
			cap *= 2;
		}
	}
	if (buf) {
		buf[n] = '\0';
		(void)tep_parse_kallsyms(tep, buf);
	}
	free(buf);
	if (f)
		fclose(f);
}

static int enable_events(struct ktrace *k, struct err *e)
{
	size_t at = 0;
	for (int t = 0; t < TRACE_EV_MARKER; t++) {
		const char *n = trace_ev_names[t];
		struct tep_event *ev = tep_find_event_by_name(k->tep, "kmem", n);
		if (!ev)
			continue; /* kmalloc_node, kmem_cache_alloc_node: gone since 6.1 */
		if (tracefs_event_enable(k->inst, "kmem", n) < 0)
			return err_set(e, SLABSIM_EIO, "tracefs: cannot enable kmem:%s in %s: %s",
				       n, k->name, strerror(errno));
		info_of(k, ev, (enum trace_ev_type)t);
		int w = snprintf(k->enabled + at, sizeof(k->enabled) - at, "%s%s", at ? ", " : "",
				 n);
		if (w > 0 && (size_t)w < sizeof(k->enabled) - at)
			at += (size_t)w;
	}
	if (!k->ninfo)
		return err_set(e, SLABSIM_EIO,
			       "tracefs: this kernel has none of the kmem slab events (kmalloc, "
			       "kmem_cache_alloc, kfree, kmem_cache_free)");
	/* the evidence of the frees they do not show (sim/pgfree.h) */
	struct tep_event *pf =
		k->page_free ? tep_find_event_by_name(k->tep, "kmem", "mm_page_free") : NULL;
	if (pf && tracefs_event_enable(k->inst, "kmem", "mm_page_free") >= 0) {
		info_of(k, pf, TRACE_EV_PAGE_FREE);
		size_t n = strlen(k->enabled);
		(void)snprintf(k->enabled + n, sizeof(k->enabled) - n, ", mm_page_free");
	}
	/* which slabs the trace saw made (sim/pgfree.h): only the allocations
	 * a slab's can be (slab pages are never __GFP_MOVABLE, 0x8 in every
	 * kernel: new_slab masks the caller's gfp to GFP_RECLAIM_MASK |
	 * GFP_CONSTRAINT_MASK), which leaves out the page cache's and user
	 * memory's; unfiltered where the filter is refused */
	struct tep_event *pa = pf ? tep_find_event_by_name(k->tep, "kmem", "mm_page_alloc") : NULL;
	if (pa) {
		(void)tracefs_event_file_write(k->inst, "kmem", "mm_page_alloc", "filter",
					       KTRACE_PAGE_ALLOC_FILTER);
		if (tracefs_event_enable(k->inst, "kmem", "mm_page_alloc") >= 0) {
			info_of(k, pa, TRACE_EV_PAGE_ALLOC);
			size_t n = strlen(k->enabled);
			(void)snprintf(k->enabled + n, sizeof(k->enabled) - n, ", mm_page_alloc");
		}
	}
	return 0;
}

static int mount_tracefs(struct ktrace *k, struct err *e)
{
	const char *dir = NULL;
	if (tracefs_tracing_dir_is_mounted(false, &dir) == 1)
		return 0;
	if (tracefs_tracing_dir_is_mounted(true, &dir) != 1 || !dir)
		return err_set(e, SLABSIM_EIO, "tracefs: not mounted and cannot be mounted: %s",
			       strerror(errno));
	k->mount_path = strdup(dir);
	return 0;
}

/* Each CPU's trace_pipe_raw (a CPU the kernel has no buffer for is
 * skipped) and the page decoder. */
static int open_cpus(struct ktrace *k, struct err *e)
{
	if (!(k->cpu = calloc((size_t)(k->ncpus > 0 ? k->ncpus : 1), sizeof(*k->cpu))))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	for (long c = 0; c < k->ncpus; c++) {
		k->cpu[c] = tracefs_cpu_open(k->inst, (int)c, true);
		int sz = k->cpu[c] ? tracefs_cpu_read_size(k->cpu[c]) : 0;
		if (sz > k->page_size)
			k->page_size = sz;
	}
	if (k->page_size <= 0)
		return err_set(e, SLABSIM_EIO, "tracefs: cannot open %s's trace_pipe_raw: %s",
			       k->name, strerror(errno));
	k->kbuf = kbuffer_alloc(
		tep_get_header_page_size(k->tep) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
		tep_is_file_bigendian(k->tep) ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!k->kbuf || !(k->page = malloc((size_t)k->page_size)))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	return 0;
}

int ktrace_open(const struct ktrace_opts *o, struct ktrace **out, struct err *e)
{
	struct ktrace *k = calloc(1, sizeof(*k));
	int rc;
	*out = k;
	if (!k || !(k->sites = calloc(SITE_CACHE, sizeof(*k->sites))))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	tracefs_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	if ((rc = mount_tracefs(k, e)))
		return rc;
	const char *dir = tracefs_tracing_dir();
	if (!dir)
		return err_set(e, SLABSIM_EIO, "tracefs: no tracing directory");
	if (access(dir, W_OK) != 0)
		return err_set(e, SLABSIM_EIO, "%s: not writable (%s): live tracing needs root",
			       dir, strerror(errno));
	(void)tracefs_instances_walk(remove_stale, NULL);
	(void)snprintf(k->name, sizeof(k->name), "slabsim-live-%ld", (long)getpid());
	if (tracefs_instance_exists(k->name))
		return err_set(e, SLABSIM_EIO, "tracefs: instance %s exists already", k->name);
	if (!(k->inst = tracefs_instance_create(k->name)))
		return err_set(e, SLABSIM_EIO, "%s/instances/%s: cannot create: %s", dir, k->name,
			       strerror(errno));
	if (tracefs_trace_off(k->inst) < 0)
		return err_set(e, SLABSIM_EIO, "tracefs: cannot turn tracing off in %s: %s",
			       k->name, strerror(errno));
	/* CLOCK_MONOTONIC where the kernel offers it: times user space can
	 * compare; the default "local" clock otherwise */
	k->mono = tracefs_instance_file_write(k->inst, "trace_clock", "mono") > 0;
	if (o->buffer_kb)
		(void)tracefs_instance_set_buffer_size(k->inst, o->buffer_kb, -1);
	k->page_free = o->page_free;
	const char *systems[] = {"kmem", NULL};
	if (!(k->tep = tracefs_local_events_system(NULL, systems)))
		return err_set(e, SLABSIM_EIO, "tracefs: cannot read the kmem event formats: %s",
			       strerror(errno));
	load_kallsyms(k->tep);
	k->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if ((rc = enable_events(k, e)))
		return rc;
	return open_cpus(k, e);
}

int ktrace_start(struct ktrace *k, struct err *e)
{
	if (tracefs_trace_on(k->inst) < 0)
		return err_set(e, SLABSIM_EIO, "tracefs: cannot turn tracing on in %s: %s", k->name,
			       strerror(errno));
	return 0;
}

int ktrace_stop(struct ktrace *k, struct err *e)
{
	if (tracefs_trace_off(k->inst) < 0)
		return err_set(e, SLABSIM_EIO, "tracefs: cannot turn tracing off in %s: %s",
			       k->name, strerror(errno));
	return 0;
}

/* The reorder window. Each CPU's events come in time order, but the CPUs
 * are read one after the other, so an event of one CPU may be read a read
 * later than a later event of another (a free read before its allocation).
 * So events are held, sorted, and handed over only up to a watermark: the
 * time before the read began, less REORDER_NS for events being written
 * then; every CPU's buffer was read after that time, so nothing earlier
 * can come later. Needs the "mono" trace clock (user space's
 * CLOCK_MONOTONIC); without it every event read is handed over. */
#define REORDER_NS   (10 * 1000 * 1000ull)

static uint64_t mono_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

/* Pages read from one CPU at a time at most (a busy CPU is read again at
 * the next call; the watermark then stops at its last event). */
#define READ_PAGES   256

/* The records of one ring-buffer page of cpu into the window. */
static void page_records(struct ktrace *k, int cpu, uint64_t *last)
{
	unsigned long long ts;
	void *data;
	if (kbuffer_load_subbuffer(k->kbuf, k->page) < 0)
		return;
	for (data = kbuffer_read_event(k->kbuf, &ts); data && !k->rc;
	     data = kbuffer_next_event(k->kbuf, &ts)) {
		struct tep_record rec = {
			.ts = ts, .cpu = cpu, .data = data, .size = kbuffer_event_size(k->kbuf)};
		struct tep_event *ev = tep_find_event(k->tep, tep_data_type(k->tep, &rec));
		if (ev)
			(void)on_record(ev, &rec, cpu, k);
		*last = ts;
	}
}

int ktrace_read(struct ktrace *k, bool all, ktrace_event_fn fn, void *ctx, struct err *e)
{
	/* each CPU read in turn until empty: nothing of it older than when
	 * the reads began can come later; one cut short at READ_PAGES moves
	 * the watermark back to its last event */
	uint64_t mark = mono_now();
	mark = all || !k->mono ? UINT64_MAX : mark > REORDER_NS ? mark - REORDER_NS : 0;
	k->rc = 0;
	for (long cpu = 0; cpu < k->ncpus; cpu++) {
		uint64_t last = 0;
		int pages = 0, r = 0;
		while (k->cpu[cpu] && !k->rc && (all || pages < READ_PAGES) &&
		       (r = tracefs_cpu_read(k->cpu[cpu], k->page, true)) > 0) {
			page_records(k, (int)cpu, &last);
			pages++;
		}
		if (r > 0 && last < mark)
			mark = last;
	}
	if (k->rc)
		return err_set(e, k->rc, "out of memory");
	qsort(k->pend, k->npend, sizeof(*k->pend), by_time);
	size_t n = 0;
	int rc = 0;
	for (; n < k->npend && k->pend[n].ev.t_ns <= mark; n++) {
		struct pending *p = &k->pend[n];
		p->ev.call_site = p->site;
		p->ev.name = p->has_name ? p->name : NULL;
		if ((rc = fn(ctx, &p->ev, e))) {
			n++;
			break;
		}
	}
	memmove(k->pend, k->pend + n, (k->npend - n) * sizeof(*k->pend));
	k->npend -= n;
	return rc;
}

static uint64_t stat_value(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

uint64_t ktrace_lost(struct ktrace *k)
{
	uint64_t n = 0;
	for (long cpu = 0; k->inst && cpu < k->ncpus; cpu++) {
		char f[64];
		(void)snprintf(f, sizeof(f), "per_cpu/cpu%ld/stats", cpu);
		char *s = tracefs_instance_file_read(k->inst, f, NULL);
		if (!s)
			continue;
		/* "overrun:" also matches inside "commit overrun:": read that
		 * one at the start of a line */
		uint64_t commit = stat_value(s, "commit overrun:");
		const char *ov = strncmp(s, "overrun:", 8) == 0 ? s : strstr(s, "\noverrun:");
		uint64_t over = ov ? strtoull(ov + (*ov == '\n' ? 9 : 8), NULL, 10) : 0;
		n += over + commit + stat_value(s, "dropped events:");
		free(s);
	}
	return n;
}

const char *ktrace_instance(const struct ktrace *k)
{
	return k ? k->name : "";
}

const char *ktrace_enabled(const struct ktrace *k)
{
	return k ? k->enabled : "";
}

void ktrace_close(struct ktrace *k)
{
	if (!k)
		return;
	/* the readers first: an instance with open files cannot be removed */
	for (long c = 0; k->cpu && c < k->ncpus; c++)
		if (k->cpu[c])
			tracefs_cpu_close(k->cpu[c]);
	free(k->cpu);
	if (k->kbuf)
		kbuffer_free(k->kbuf);
	free(k->page);
	if (k->inst) {
		(void)tracefs_trace_off(k->inst);
		(void)tracefs_instance_destroy(k->inst);
		tracefs_instance_free(k->inst);
	}
	if (k->tep)
		tep_free(k->tep);
	if (k->mount_path) {
		(void)umount(k->mount_path);
		free(k->mount_path);
	}
	free(k->sites);
	free(k->pend);
	free(k);
}

#endif
