/* run.c - one run: input, name pass, source, replay, record (run.h). The
 * choice among the equivalent ways of reading a trace is made in
 * open_source() alone. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "run.h"
#include "sites.h"
#include "evarr.h"
#include "learn.h"
#include "peekread.h"
#include "prefetch.h"
#include "rec.h"
#include "sink.h"
#include "trace.h"
#include "workload.h"
#include "capture.h"
#include "validate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

struct run {
	struct sim *s;
	struct run_model model;	 /* o->model with what the trace decided (run_detect) */
	struct trace_stats pass; /* the counts of the name pass's whole read */
	bool have_pass;
	const char *kallsyms; /* o->read.kallsyms: every reader of a perf.data */
	/* the input as it is still open: the line counts live there */
	struct trace_reader *tr;
	struct trace_prefetch *pf;
	struct evarr *spill; /* the parsed events kept by the name pass */
	struct evarr_cursor cur;
	/* the events the head's read parsed (prescan), when the name pass
	 * goes on from there with the same reader (tr) instead of reading
	 * them again; head_bytes of head_total read then, for its progress */
	struct evarr *head;
	struct evarr_cursor head_cur;
	uint64_t head_bytes, head_total;
	struct trace_source head_src; /* the head's events ahead of a single read */
	bool head_whole;	      /* the head is all of the trace */
	/* the replay's source over a file read as it comes (src wraps it):
	 * the look-ahead's random access */
	struct trace_peekread *peek;
	struct trace_source src;
	const struct trace_stats *stats; /* of a parsed array */
	struct rec *rec, *own_rec;	 /* where the run is recorded; own_rec: opened here */
	int64_t run_id;
	struct policy_sites *sites; /* model.sites_path loaded, for model.cfg.sites */
	/* A trace file read more than once (its head, then the name pass,
	 * then, unspilled, the replay): the file as it was at the first open,
	 * so that a file cut or rewritten between the reads is an error, not
	 * a run of part of it (check_unchanged). */
	bool reread;
	struct stat first;
	/* Not recorded, and read once (spilled, or stdin): no reader hashes
	 * the trace for an identity nobody reads. Should the spill fail and
	 * the file be read again, check_unchanged has its size, time and
	 * inode to go by, not the two reads' identities. */
	bool no_identity;
	char hash[TRACE_HASH_HEX + 1]; /* the identity recorded at begin_record */
	struct sink push_sink;	       /* the recorder as the sink of a pushed run */
	double t0;		       /* when a pushed run began */
};

double run_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void run_model_default(struct run_model *m)
{
	m->allocator = POLICY_DEFAULT_NAME;
	policy_cfg_default(&m->cfg);
	m->given = 0;
	m->kernel_from = m->nr_cpus_from = NULL;
	m->config_given = 0;
	m->config_from = NULL;
	m->sites_path = NULL;
}

int run_model_load_sites(struct run_model *m, struct policy_sites **owned, struct err *e)
{
	*owned = NULL;
	if (!m->sites_path || m->cfg.sites)
		return 0;
	int rc = policy_sites_load(m->sites_path, owned, e);
	if (!rc)
		m->cfg.sites = *owned;
	return rc;
}

const char *run_kernel_name(const struct run_model *m)
{
	return policy_kernel_name(m->cfg.kernel);
}

int run_model_json(const struct run_model *m, char *buf, size_t n)
{
	char dbg[8];
	policy_slub_debug_str(m->cfg.slub_debug, dbg);
	/* an align not given is the profile's rule, whether or not the model
	 * was settled yet (5.4 and 6.1: natural, the key they always had) */
	enum policy_align al =
		m->given & RUN_GIVEN_ALIGN ? m->cfg.align : policy_kernel_align(m->cfg.kernel);
	int w = snprintf(buf, n,
			 "\"allocator\":\"%s\",\"kernel\":\"%s\",\"align\":\"%s\","
			 "\"slub_debug\":\"%s\",\"nr_cpus\":%u,\"slub_min_order\":%u,"
			 "\"slub_max_order\":%u,\"slub_min_objects\":%u,\"cpu_partial\":%s,"
			 "\"slab_debug\":%s,\"slab_max_order\":%u",
			 m->allocator, run_kernel_name(m), policy_align_name(al), dbg,
			 m->cfg.nr_cpus, m->cfg.slub_min_order, m->cfg.slub_max_order,
			 m->cfg.slub_min_objects, m->cfg.cpu_partial ? "true" : "false",
			 m->cfg.slab_debug ? "true" : "false", m->cfg.slab_max_order);
	/* only when set, so that configurations without it keep their key */
	if (w >= 0 && (size_t)w < n && m->cfg.no_kmalloc_cg)
		w += snprintf(buf + w, n - (size_t)w, ",\"kmalloc_cg\":false");
	/* the newer switches, likewise only when not the default */
	if (w >= 0 && (size_t)w < n && m->cfg.slub_tiny)
		w += snprintf(buf + w, n - (size_t)w, ",\"slub_tiny\":true");
	if (w >= 0 && (size_t)w < n && m->cfg.no_zone_dma)
		w += snprintf(buf + w, n - (size_t)w, ",\"zone_dma\":false");
	if (w >= 0 && (size_t)w < n && m->cfg.slab_buckets)
		w += snprintf(buf + w, n - (size_t)w, ",\"slab_buckets\":true");
	/* slab_nomerge (a capture's cmdline, a sweep's slab_nomerge axis) */
	if (w >= 0 && (size_t)w < n && m->cfg.nomerge)
		w += snprintf(buf + w, n - (size_t)w, ",\"slab_nomerge\":true");
	if (w >= 0 && (size_t)w < n && m->cfg.random_kmalloc)
		w += snprintf(buf + w, n - (size_t)w,
			      ",\"random_kmalloc\":%u,\"random_kmalloc_seed\":\"0x%016" PRIx64 "\"",
			      m->cfg.random_kmalloc, m->cfg.random_seed);
	/* the sheaves' what-ifs (0: the kernel's own, no key) */
	if (w >= 0 && (size_t)w < n && m->cfg.sheaf_capacity)
		w += snprintf(buf + w, n - (size_t)w, ",\"sheaf_capacity\":%u",
			      m->cfg.sheaf_capacity);
	if (w >= 0 && (size_t)w < n && m->cfg.barn_limit)
		w += snprintf(buf + w, n - (size_t)w, ",\"barn_limit\":%u", m->cfg.barn_limit);
	if (w < 0 || (size_t)w >= n)
		return -1;
	if (m->sites_path) {
		/* only when given, so the keys of runs without one stay as they
		 * were; the path as a JSON string (control bytes dropped) */
		size_t at = (size_t)w;
		const char *pre = ",\"align_sites\":\"";
		for (const char *c = pre; *c && at < n; c++)
			buf[at++] = *c;
		for (const char *c = m->sites_path; *c; c++) {
			if (at + 4 > n)
				return -1;
			if ((unsigned char)*c < 0x20)
				continue;
			if (*c == '"' || *c == '\\')
				buf[at++] = '\\';
			buf[at++] = *c;
		}
		if (at + 2 > n)
			return -1;
		buf[at++] = '"';
		buf[at] = '\0';
	}
	return 0;
}

int run_config_json(const struct run_model *m, const char *sample_every,
		    const struct run_workload *wl, uint64_t seed, const char *extra, char *buf,
		    size_t n)
{
	char model[512], wl_json[800] = "";
	if (run_model_json(m, model, sizeof(model)) ||
	    (wl && run_workload_json(wl, seed, wl_json, sizeof(wl_json))))
		return -1;
	int w = snprintf(buf, n, "{%s,\"sample_every\":\"%s\"%s%s%s%s}", model, sample_every,
			 wl ? "," : "", wl_json, extra ? "," : "", extra ? extra : "");
	return w < 0 || (size_t)w >= n ? -1 : 0;
}

void run_model_settle(struct run_model *m)
{
	if (!(m->given & RUN_GIVEN_ALIGN))
		m->cfg.align = policy_kernel_align(m->cfg.kernel);
	/* mm/slub.c: slub_max_order defaults to 1 under CONFIG_SLUB_TINY */
	if (m->cfg.slub_tiny && !(m->given & RUN_GIVEN_MAX_ORDER))
		m->cfg.slub_max_order = 1;
}

bool run_detect(struct run_model *m, const struct trace_stats *st)
{
	bool changed = false;
	uint64_t allocs = st->events[TRACE_EV_KMALLOC] + st->events[TRACE_EV_KMALLOC_NODE] +
			  st->events[TRACE_EV_CACHE_ALLOC] + st->events[TRACE_EV_CACHE_ALLOC_NODE];
	if (!m->kernel_from && allocs) {
		/* the newest thing the event format shows decides: name= in
		 * kmem_cache_alloc (6.18; 6.12's event has none), accounted=
		 * (5.19), else nothing */
		enum policy_kernel k = st->named_cache_allocs ? POLICY_KERNEL_6_18
				       : st->accounted_events ? POLICY_KERNEL_6_1
							      : POLICY_KERNEL_5_4;
		changed |= k != m->cfg.kernel;
		m->cfg.kernel = k;
		m->kernel_from = st->named_cache_allocs
					 ? "the trace (kmem_cache_alloc name= fields: Linux 6.18+)"
				 : st->accounted_events
					 ? "the trace (accounted= fields: Linux 5.19+)"
					 : "the trace (no accounted= field: before 5.19)";
	}
	if (!m->nr_cpus_from && (st->header_cpus || st->cpus_seen)) {
		/* the header's count, unless events ran on CPUs above it */
		uint32_t n = st->header_cpus > st->cpus_seen ? st->header_cpus : st->cpus_seen;
		changed |= n != m->cfg.nr_cpus;
		m->cfg.nr_cpus = n;
		m->nr_cpus_from = st->header_cpus >= st->cpus_seen
					  ? "the trace's header"
					  : "the trace (1 + its highest CPU)";
	}
	enum policy_align was = m->cfg.align;
	run_model_settle(m);
	return changed || was != m->cfg.align;
}

int run_capture_setup(const struct run_capture *c, struct sim *s, struct err *e)
{
	int rc;
	if (c->cap->has_lost)
		sim_set_capture_lost(s, c->cap->lost_events);
	rc = val_capture_caches(s, c->cap, e);
	if (!rc && c->start)
		rc = val_capture_start(s, c->cap, c->notes, e);
	return rc;
}

const char *run_capture_config_extra(const struct run_capture *c)
{
	return c->cap && c->cap->has_start && c->start ? "\"start_state\":\"capture\"" : NULL;
}

/* ---- the source ---- */

/* The name pass's source when it spills: every event it reads also goes
 * into the spilled array. A failed write (a full $TMPDIR) only ends the
 * spilling: the replay then reads the trace again. */
struct spill {
	struct evarr *a;
	bool failed;
	struct err why;
};

/* One part of the name pass's read (the head's events, the rest). */
struct spill_tee {
	struct trace_source in;
	struct spill *sp;	   /* NULL: the part is in the spill already */
	const struct run *head_of; /* the head part of r: progress in bytes */
};

static int tee_next(void *ctx, struct trace_event *ev, struct err *e)
{
	struct spill_tee *t = ctx;
	int rc = t->in.next(t->in.ctx, ev, e);
	if (rc == 1 && t->sp && !t->sp->failed &&
	    evarr_push(t->sp->a, ev, t->in.id_space, &t->sp->why))
		t->sp->failed = true;
	return rc;
}

/* tee_next in batches, from a source that gives them */
static int tee_next_batch(void *ctx, struct trace_event *ev, uint32_t n, struct err *e)
{
	struct spill_tee *t = ctx;
	int rc = t->in.next_batch(t->in.ctx, ev, n, e);
	if (rc > 0 && t->sp && !t->sp->failed &&
	    evarr_push_batch(t->sp->a, ev, (uint32_t)rc, t->in.id_space, t->in.stable_strings,
			     &t->sp->why))
		t->sp->failed = true;
	return rc;
}

/* tee_next_batch in place, from a source that lends its events */
static int tee_borrow_batch(void *ctx, const struct trace_event **ev, uint32_t n, struct err *e)
{
	struct spill_tee *t = ctx;
	int rc = t->in.borrow_batch(t->in.ctx, ev, n, e);
	if (rc > 0 && t->sp && !t->sp->failed &&
	    evarr_push_batch(t->sp->a, *ev, (uint32_t)rc, t->in.id_space, t->in.stable_strings,
			     &t->sp->why))
		t->sp->failed = true;
	return rc;
}

static void tee_progress(void *ctx, uint64_t *done, uint64_t *total)
{
	struct spill_tee *t = ctx;
	const struct run *r = t->head_of;
	if (!r) {
		t->in.progress(t->in.ctx, done, total);
		return;
	}
	uint64_t n = evarr_len(r->head);
	*done = n ? (uint64_t)((double)r->head_bytes * (double)r->head_cur.i / (double)n) : 0;
	*total = r->head_total;
}

/* The name pass's source for one part of the read, through t. */
static struct trace_source tee_source(struct spill_tee *t)
{
	struct trace_source src = t->in;
	src.ctx = t;
	src.next = tee_next;
	src.progress = t->in.progress ? tee_progress : NULL;
	src.stats = NULL;
	src.peek_ptrs = NULL;
	src.next_batch = t->in.next_batch ? tee_next_batch : NULL;
	src.borrow_batch = t->in.borrow_batch ? tee_borrow_batch : NULL;
	return src;
}

static const char *spill_dir(void)
{
	const char *d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

/* r->src reading r->tr, through parser threads unless told not to, or in
 * blocks the replay's own thread fills (same_thread, prefetch.h). */
static int attach_reader(struct run *r, const struct run_read *rd, bool same_thread, struct err *e)
{
	int rc;
	if (rd->no_prefetch) {
		trace_as_source(&r->src, r->tr);
		return 0;
	}
	struct trace_prefetch_opts po = {.threads = rd->parse_threads, .same_thread = same_thread};
	if ((rc = trace_prefetch_open_opts(r->tr, &po, &r->pf, e)))
		return rc;
	trace_prefetch_as_source(&r->src, r->pf, trace_path(r->tr));
	return 0;
}

/* Open path for reading into r->tr, through parser threads unless told
 * not to; r->src reads it. */
static int open_reader(struct run *r, const char *path, const struct trace_opts *to,
		       const struct run_read *rd, bool same_thread, struct err *e)
{
	int rc = trace_open(path, to, &r->tr, e);
	return rc ? rc : attach_reader(r, rd, same_thread, e);
}

static void close_reader(struct run *r)
{
	trace_peekread_close(r->peek);
	r->peek = NULL;
	trace_prefetch_close(r->pf);
	r->pf = NULL;
	trace_close(r->tr);
	r->tr = NULL;
}

/* r->src with random access ahead (peekread.h) for the engine's
 * look-ahead, from a second read of path; the head's events (r->head, when
 * the reader r->src reads on from them) first. */
static int peek_ahead(struct run *r, const char *path, struct err *e)
{
	const struct trace_opts lax = {
		.strict = false, .kallsyms = r->kallsyms, .no_identity = r->no_identity};
	const struct trace_source *head = NULL;
	if (r->head) {
		evarr_source(&r->head_src, &r->head_cur, r->head);
		head = &r->head_src;
	}
	struct trace_source in = r->src;
	return trace_peekread_open(head, &in, path, &lax, &r->peek, &r->src, e);
}

/* The spilled name pass: one read of the text, the parsed events kept in an
 * unlinked file for the replay. OUT: *spilled, false when the spill failed
 * (the note says why) and the trace must be read again. */
static int learn_spilling(struct run *r, const char *path, const struct run_read *rd, FILE *notes,
			  bool can_reread, bool *spilled, struct err *e)
{
	/* strict only when the text cannot be read again for a strict replay
	 * (stdin): the name pass then stops at the first malformed line */
	struct trace_opts to = {.strict = rd->strict && !can_reread,
				.kallsyms = r->kallsyms,
				.no_identity = r->no_identity};
	struct spill sp = {0};
	struct spill_tee head = {.head_of = r}, rest = {.sp = &sp};
	struct trace_source src[2];
	size_t nsrc = 0;
	/* the head's events first, then the rest through its reader */
	int rc = r->head ? attach_reader(r, rd, false, e) : open_reader(r, path, &to, rd, false, e);
	if (rc)
		return rc;
	if (evarr_spill_open(path, spill_dir(), 0, &r->spill, &sp.why))
		sp.failed = true;
	sp.a = r->spill;
	/* the head's events go to the spill as they are, then the name pass
	 * learns from them */
	if (r->head && !sp.failed && evarr_append(sp.a, r->head, &sp.why))
		sp.failed = true;
	if (r->head) {
		evarr_source(&head.in, &r->head_cur, r->head);
		head.in.stable_strings = false; /* the head is freed below */
		src[nsrc++] = tee_source(&head);
	}
	rest.in = r->src;
	src[nsrc++] = tee_source(&rest);
	const struct trace_source *srcs[2] = {&src[0], &src[1]};
	rc = sim_learn_names_sources(r->s, srcs, nsrc, e);
	evarr_free(r->head);
	r->head = NULL;
	if (rc)
		return rc;
	/* the chunked prefetch keeps the counts: tr read nothing */
	if (!sp.failed &&
	    evarr_spill_finish(r->spill, r->pf ? trace_prefetch_stats(r->pf) : trace_stats(r->tr),
			       &sp.why))
		sp.failed = true;
	r->pass = *(r->pf ? trace_prefetch_stats(r->pf) : trace_stats(r->tr));
	r->have_pass = true;
	close_reader(r);
	if (sp.failed && !can_reread)
		return err_set(e, SLABSIM_EIO,
			       "%s: %s; stdin cannot be read twice: replay a file, or give "
			       "--no-name-pass",
			       path, sp.why.msg);
	if (sp.failed) {
		if (notes)
			fprintf(notes, "slabsim: note: %s; reading the trace again\n", sp.why.msg);
		evarr_free(r->spill);
		r->spill = NULL;
	}
	*spilled = !sp.failed;
	return 0;
}

/* The name pass over the file on its own (--no-spill, --strict, ranges),
 * lax. Every field is parsed although names are learned from cache events
 * only: the counts it leaves (accounted= fields) decide the defaults, as
 * the spilled pass's do. */
static int learn_reading(struct run *r, const char *path, const struct run_read *rd, bool progress,
			 struct err *e)
{
	struct trace_opts lax = {
		.strict = false, .kallsyms = r->kallsyms, .no_identity = r->no_identity};
	bool done = false;
	unsigned threads = rd->name_threads ? rd->name_threads : 1;
	int rc = learn_names_file(r->s, path, &lax, threads, progress, &done, e);
	if (!rc && !done && !(rc = open_reader(r, path, &lax, rd, false, e)) &&
	    !(rc = sim_learn_names_source(r->s, &r->src, e))) {
		r->pass = *(r->pf ? trace_prefetch_stats(r->pf) : trace_stats(r->tr));
		r->have_pass = true;
	}
	close_reader(r);
	return rc;
}

/* The counts of the first lines of a trace file: its header and up to
 * PRESCAN_EVENTS events, for a first guess of the model before the name
 * pass, and the model itself when no pass reads it all (--no-name-pass,
 * the name pass in ranges). */
static int prescan(struct run *r, const char *path, bool keep, struct err *e)
{
	enum { PRESCAN_EVENTS = 100000, BATCH = 64 };
	/* SLABSIM_HEAD_EVENTS: a shorter head, for the tests of the reads
	 * that go on from it (tests/cli/readahead.sh) */
	const char *he = getenv("SLABSIM_HEAD_EVENTS");
	long want_head = he ? strtol(he, NULL, 10) : 0;
	uint32_t head_events =
		want_head > 0 && want_head < PRESCAN_EVENTS ? (uint32_t)want_head : PRESCAN_EVENTS;
	struct trace_opts lax = {
		.strict = false, .kallsyms = r->kallsyms, .no_identity = r->no_identity};
	struct trace_event ev[BATCH];
	int rc = trace_open(path, &lax, &r->tr, e);
	if (!rc && keep)
		rc = evarr_open(path, &r->head, e);
	if (!rc && keep) {
		/* a file that holds the whole head even at 64 bytes a line */
		uint64_t done, total;
		trace_progress(r->tr, &done, &total);
		if (total / 64 >= head_events)
			rc = evarr_reserve(r->head, head_events, e);
	}
	for (uint32_t n = 0; !rc && n < head_events;) {
		uint32_t want = head_events - n < BATCH ? head_events - n : BATCH;
		int k = trace_next_batch(r->tr, ev, want, e);
		if (k <= 0) {
			rc = k;
			r->head_whole = k == 0;
			break;
		}
		if (keep && (rc = evarr_push_batch(r->head, ev, (uint32_t)k, NULL, false, e)))
			break;
		n += (uint32_t)k;
		/* a trace.dat whose formats name every cache: its first named
		 * allocation decides the model (open_source reads it once) */
		const struct trace_stats *st = trace_stats(r->tr);
		if (st->names_in_format && st->named_cache_allocs)
			break;
	}
	if (rc >= 0 && r->tr)
		r->pass = *trace_stats(r->tr);
	if (rc >= 0 && keep && !(rc = evarr_spill_finish(r->head, NULL, e))) {
		trace_progress(r->tr, &r->head_bytes, &r->head_total);
		return 0; /* the name pass reads on from here */
	}
	evarr_free(r->head);
	r->head = NULL;
	close_reader(r);
	return rc < 0 ? rc : 0;
}

/* The engine for r->model, with the command's setup (again, when the
 * trace changed the model after a first engine learned its names). */
static int make_sim(struct run *r, const struct run_opts *o, struct err *e)
{
	struct sim_opts so = o->so;
	if (!(so.ops = policy_find(r->model.allocator)))
		return err_set(e, SLABSIM_EUSAGE, "unknown allocator '%s'", r->model.allocator);
	if (!r->sites) {
		int rc = run_model_load_sites(&r->model, &r->sites, e);
		if (rc)
			return rc;
	}
	run_model_settle(&r->model);
	so.cfg = r->model.cfg;
	so.kernel_from = r->model.kernel_from;
	so.nr_cpus_from = r->model.nr_cpus_from;
	sim_destroy(r->s);
	r->s = NULL;
	int rc = sim_create(&so, &r->s, e);
	if (!rc && o->setup)
		rc = o->setup(o->ctx, r->s, e);
	return rc;
}

/* The model of o that r->pass (the counts read so far) decides; a new
 * engine when it differs from the one r has. 1 when the engine was made
 * again, 0 when not, or an error code. */
static int decide_model(struct run *r, const struct run_opts *o, struct err *e)
{
	struct run_model m = o->model;
	run_detect(&m, &r->pass);
	m.cfg.sites = r->model.cfg.sites;
	bool same = m.cfg.kernel == r->model.cfg.kernel && m.cfg.nr_cpus == r->model.cfg.nr_cpus &&
		    m.cfg.align == r->model.cfg.align;
	r->model = m;
	if (same)
		return 0;
	int rc = make_sim(r, o, e);
	return rc ? rc : 1;
}

static uint64_t slab_events(const struct trace_stats *st)
{
	uint64_t n = 0;
	for (int t = 0; t < TRACE_EV_MARKER; t++) /* the slab events */
		n += st->events[t];
	return n;
}

static uint64_t replayed_events(const struct sim *s)
{
	struct sim_totals t;
	uint64_t n = 0;
	sim_totals(s, &t);
	for (int k = 0; k < TRACE_EV_MARKER; k++) /* the slab events */
		n += t.events[k];
	return n;
}

/* A trace that holds no slab event is nothing to replay. */
static int no_events(const char *path, const struct trace_stats *st, struct err *e)
{
	return err_set(e, SLABSIM_ENODATA,
		       "%s: no slab event (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free) in "
		       "%" PRIu64 " lines: nothing to replay",
		       path, st->lines);
}

/* The name pass and the source the replay reads, for every kind of input.
 * Stdin cannot be read twice and gets no name pass. */
static int open_source(struct run *r, const struct run_opts *o, const struct run_input *in,
		       struct err *e)
{
	const struct run_read *rd = &o->read;
	int rc;
	switch (in->kind) {
	case RUN_WORKLOAD:
		if ((rc = run_workload_start(in->wl, r->s, in->seed, e)))
			return rc;
		run_workload_source(in->wl, &r->src);
		return 0;
	case RUN_EVENTS:
		if (!rd->no_name_pass) {
			evarr_source(&r->src, &r->cur, in->events);
			if ((rc = sim_learn_names_source(r->s, &r->src, e)))
				return rc;
		}
		evarr_source(&r->src, &r->cur, in->events);
		r->stats = evarr_stats(in->events);
		return 0;
	case RUN_TRACE:
		break;
	}
	/* only a regular file can be read again: a FIFO, a pipe (<(...),
	 * /dev/fd/N) or a device is read once, as stdin is */
	bool can_reread = strcmp(in->path, "-") != 0 && stat(in->path, &r->first) == 0 &&
			  S_ISREG(r->first.st_mode);
	bool spilled = false, full = false;
	r->reread = can_reread;
	/* a first guess of the model from the file's head, so that the name
	 * pass rarely has to be made again for the model the whole trace
	 * decides (stdin has no head to read twice) */
	/* the spilled name pass on one parser thread (or none) can read on
	 * from the head's reader, its events kept: the head is parsed once */
	unsigned parsers = rd->parse_threads ? rd->parse_threads : trace_prefetch_default_threads();
	bool spill = !rd->no_name_pass && !rd->no_spill && !rd->strict && rd->name_threads <= 1;
	r->no_identity = !o->rec && !o->db && (spill || !can_reread);
	if (can_reread) {
		if ((rc = prescan(r, in->path, spill && (rd->no_prefetch || parsers <= 1), e)))
			return rc;
		if ((rc = decide_model(r, o, e)) < 0)
			return rc;
	}
	/* a trace.dat whose formats name the cache of every kmem_cache_alloc
	 * leaves a name pass nothing to learn (sim_learns_from), and once its
	 * head held one such allocation the model it decided is final (the
	 * newest format, the file's CPU count): it is read once, on from the
	 * head */
	bool once = can_reread && !rd->no_name_pass && !rd->strict && r->pass.names_in_format &&
		    r->pass.named_cache_allocs;
	if (!rd->no_name_pass && !once) {
		/* one read of the text when the name pass can keep what it
		 * parsed: not in strict mode, whose replay must stop at the
		 * first malformed line although the name pass reads past it;
		 * always for stdin, which cannot be read twice */
		r->have_pass = false;
		if (!can_reread || (!rd->no_spill && !rd->strict && rd->name_threads <= 1))
			rc = learn_spilling(r, in->path, rd, o->notes, can_reread, &spilled, e);
		else
			rc = learn_reading(r, in->path, rd, o->so.progress, e);
		if (rc)
			return rc;
		full = r->have_pass;
	}
	if (full && !slab_events(&r->pass))
		return no_events(in->path, &r->pass, e);
	if ((rc = decide_model(r, o, e)) > 0) {
		/* the whole trace decided another model: learn its names again */
		if (spilled) {
			evarr_source(&r->src, &r->cur, r->spill);
			rc = sim_learn_names_source(r->s, &r->src, e);
		} else if (!rd->no_name_pass) {
			rc = learn_reading(r, in->path, rd, o->so.progress, e);
		}
	}
	if (rc < 0)
		return rc;
	sim_set_config_from(r->s, r->model.kernel_from, r->model.nr_cpus_from);
	if (spilled) {
		evarr_source(&r->src, &r->cur, r->spill);
		r->cur.consume = true; /* the replay is its last reader */
		r->stats = evarr_stats(r->spill);
		return 0;
	}
	if (o->between_passes)
		o->between_passes(o->ctx);
	if (once && r->head && r->head_whole) {
		/* all of it in the head: replayed as a spilled pass's array */
		evarr_set_stats(r->head, trace_stats(r->tr));
		close_reader(r);
		evarr_source(&r->src, &r->head_cur, r->head);
		r->stats = evarr_stats(r->head);
		return 0;
	}
	/* the trace.dat read once costs less to read than to replay: with
	 * one parser thread by default (fewer than three cores), the replay's
	 * own thread reads it, as the events handed over between the two
	 * cores cost more CPU than the overlap saves (tests/bench/README.md) */
	bool same = once && !rd->parse_threads && trace_prefetch_default_threads() <= 1;
	if (once && r->head) {
		rc = attach_reader(r, rd, same, e);
	} else {
		struct trace_opts to = {.strict = rd->strict,
					.kallsyms = r->kallsyms,
					.no_identity = r->no_identity};
		evarr_free(r->head);
		r->head = NULL;
		close_reader(r);
		rc = open_reader(r, in->path, &to, rd, same, e);
	}
	return rc || !can_reread ? rc : peek_ahead(r, in->path, e);
}

/* A trace read more than once must have been the same file each time: its
 * size, modification time and inode as at the first open, and, where two
 * reads hashed it whole, the same identity. Otherwise the name pass and
 * the replay saw different traces (one cut or still being written) and
 * the run is refused rather than recorded as done with part of it. */
static int check_unchanged(const struct run *r, const char *path, struct err *e)
{
	struct stat now;
	if (!r->reread)
		return 0;
	const char *h = run_line_stats((struct run *)r)->input_hash;
	if (stat(path, &now) != 0)
		return err_set(e, SLABSIM_EIO, "%s: gone while it was read: %s", path,
			       strerror(errno));
	if (now.st_size != r->first.st_size || now.st_ino != r->first.st_ino ||
	    now.st_dev != r->first.st_dev || now.st_mtim.tv_sec != r->first.st_mtim.tv_sec ||
	    now.st_mtim.tv_nsec != r->first.st_mtim.tv_nsec)
		return err_set(e, SLABSIM_EIO,
			       "%s: the file changed while it was read (%lld bytes at the first "
			       "read, %lld after the replay): its passes read different traces; "
			       "replay it once it is complete",
			       path, (long long)r->first.st_size, (long long)now.st_size);
	if (r->pass.input_hash[0] && h[0] && strcmp(r->pass.input_hash, h) != 0)
		return err_set(e, SLABSIM_EIO,
			       "%s: the name pass and the replay read different bytes (identity "
			       "%s, then %s); replay it once it is complete",
			       path, r->pass.input_hash, h);
	return 0;
}

/* ---- the input's identity ---- */

static bool is_capture_dir(const char *dir)
{
	static const char *const marks[] = {"uname.txt", "ncpus.txt", "capture-info.txt"};
	char p[4200];
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		(void)snprintf(p, sizeof(p), "%s/%s", dir, marks[i]);
		FILE *f = fopen(p, "r");
		if (f) {
			fclose(f);
			return true;
		}
	}
	return false;
}

void run_trace_identify(const char *path, const char *label, struct run_trace_id *id)
{
	memset(id, 0, sizeof(*id));
	(void)snprintf(id->label, sizeof(id->label), "%s", label ? label : path ? path : "-");
	if (!path || !strcmp(path, "-"))
		return;
	/* no read of the trace here: its identity (hash) comes from the read
	 * that parses it (trace_stats.input_hash), so that a FIFO or a pipe is
	 * opened once and a large file is not read twice.
	 * A capture's trace: the directory names it, its metadata describes it */
	char dir[4096];
	(void)snprintf(dir, sizeof(dir), "%s", path);
	char *sl = strrchr(dir, '/');
	if (sl)
		*sl = '\0';
	else
		(void)snprintf(dir, sizeof(dir), ".");
	if (!is_capture_dir(dir))
		return;
	char abs[4096];
	const char *name = strrchr(dir, '/');
	name = name ? name + 1 : dir;
	if ((!*name || !strcmp(name, ".") || !strcmp(name, "..")) && realpath(dir, abs)) {
		name = strrchr(abs, '/');
		name = name && name[1] ? name + 1 : abs;
	}
	if (!label)
		(void)snprintf(id->label, sizeof(id->label), "%.*s", (int)sizeof(id->label) - 1,
			       name);
	struct capture *c = NULL;
	struct err e;
	err_clear(&e);
	if (capture_open(dir, &c, &e) == 0) {
		if (c->has_uname)
			(void)snprintf(id->kernel, sizeof(id->kernel), "%s",
				       policy_kernel_name(val_kernel_profile(c->major, c->minor)));
		id->nr_cpus = c->possible ? c->possible : c->online ? c->online : c->nproc;
	}
	capture_close(c);
}

/* ---- recording ---- */

static int begin_record(const struct run_opts *o, const struct run_input *in, struct run *r,
			struct err *e)
{
	char cfg[2048], dbg[8];
	const char *sample = o->sample_spec ? o->sample_spec : "1000ev";
	const char *path = in->path;
	const struct run_workload *wl = in->kind == RUN_WORKLOAD ? in->wl : NULL;
	if (wl && !path)
		path = workload_path(wl->w);
	else if (in->kind == RUN_EVENTS && !path)
		path = evarr_path(in->events);
	const char *json = o->config_json;
	if (!json &&
	    run_config_json(&o->model, sample, wl, in->seed, o->config_extra, cfg, sizeof(cfg)))
		return err_set(e, SLABSIM_EUSAGE, "the run's configuration is too long to record");
	if (!json)
		json = cfg;
	const struct run_model *m = &r->model;
	policy_slub_debug_str(m->cfg.slub_debug, dbg);
	struct run_trace_id own;
	const struct run_trace_id *id = in->id;
	if (!id) {
		if (in->kind == RUN_TRACE) {
			run_trace_identify(path, NULL, &own);
		} else {
			memset(&own, 0, sizeof(own));
			(void)snprintf(own.label, sizeof(own.label), "%s", path ? path : "-");
			if (in->kind == RUN_WORKLOAD)
				(void)snprintf(own.hash, sizeof(own.hash), "%s",
					       workload_hash(in->wl->w));
		}
		id = &own;
	}
	/* what the trace itself says (run_detect) where a capture's metadata
	 * said nothing: the kernel profile of its event format, its CPUs */
	const struct trace_stats *st = in->kind == RUN_TRACE	? &r->pass
				       : in->kind == RUN_EVENTS ? r->stats
								: NULL;
	char det_kernel[8] = "";
	uint32_t det_cpus = 0;
	if (st) {
		struct run_model d;
		run_model_default(&d);
		(void)run_detect(&d, st);
		if (d.kernel_from)
			(void)snprintf(det_kernel, sizeof(det_kernel), "%s", run_kernel_name(&d));
		if (d.nr_cpus_from)
			det_cpus = d.cfg.nr_cpus;
	}
	/* the trace's identity from the read that parsed it whole: the name
	 * pass, or the array's load; else set when the replay ends */
	(void)snprintf(r->hash, sizeof(r->hash), "%s",
		       id->hash[0] ? id->hash
		       : st	   ? st->input_hash
				   : "");
	struct rec_run_info info = {
		.command = o->command,
		.trace_path = path,
		.allocator = m->allocator,
		.kernel = run_kernel_name(m),
		.align = policy_align_name(m->cfg.align),
		.slub_debug = dbg,
		.nr_cpus = m->cfg.nr_cpus,
		.slub_min_order = m->cfg.slub_min_order,
		.slub_max_order = m->cfg.slub_max_order,
		.slub_min_objects = m->cfg.slub_min_objects,
		.sample_every = sample,
		.config_json = json,
		.version = SLABSIM_VERSION,
		.trace_label = id->label,
		.trace_hash = r->hash[0] ? r->hash : NULL,
		.trace_kernel = id->kernel[0]	? id->kernel
				: det_kernel[0] ? det_kernel
						: NULL,
		.trace_nr_cpus = id->nr_cpus ? id->nr_cpus : det_cpus,
	};
	return rec_run_begin(r->rec, &info, &r->run_id, e);
}

/* The end state to the recorder, the totals, commit. */
static int end_record(const struct run_opts *o, struct run *r, double t0, struct err *e)
{
	struct sink k = rec_as_sink(r->rec);
	int rc;
	const struct trace_stats *st = run_line_stats(r);
	if (!r->hash[0] && st && st->input_hash[0] &&
	    (rc = rec_run_set_trace_hash(r->rec, st->input_hash, e)))
		return rc;
	if ((rc = sim_report(r->s, &k, e)))
		return rc;
	struct sink_totals t;
	sim_run_totals(r->s, &t);
	t.wall_seconds = run_now() - t0;
	return rec_run_end(r->rec, &t, true, e);
}

/* ---- the run ---- */

/* A model option the trace contradicts gets a warning, not silence: a
 * --kernel whose profile the trace's event format denies, when a plain
 * model then gives other bytes_alloc than the trace; events on
 * CPUs the model does not have. What-if options (another allocator,
 * alignment, debug flags) change bytes_alloc by design and are not warned
 * of; the summary counts those differences. */
static void warn_contradictions(struct run *r, const struct run_opts *o, const char *path)
{
	struct sim_totals t;
	if (!o->notes)
		return;
	/* a trace.dat that gave fewer records than its own statistics count
	 * (--strict refuses it): say so, with the count the lost events got */
	const struct trace_stats *ls = run_line_stats(r);
	if (ls && ls->dat_unread)
		fprintf(o->notes,
			"slabsim: warning: %s: trace.dat's per-CPU statistics count %" PRIu64
			" events read from the ring buffer (read events), the file gave %" PRIu64
			": %" PRIu64 " missing (corrupt or cut data), counted as lost events\n",
			path, ls->dat_expected, ls->dat_expected - ls->dat_unread, ls->dat_unread);
	sim_totals(r->s, &t);
	const struct run_model *m = &r->model;
	struct run_model d = *m;
	d.kernel_from = d.nr_cpus_from = NULL;
	/* only where the model may be the trace's own (the default
	 * allocator, natural alignment; slub_debug is a recording setting):
	 * another allocator or alignment changes bytes_alloc by design */
	bool plain = policy_find(m->allocator) == policy_find(POLICY_DEFAULT_NAME) &&
		     m->cfg.align == POLICY_ALIGN_NATURAL;
	if (plain && m->given & RUN_GIVEN_KERNEL && t.alloc_size_mismatch &&
	    run_detect(&d, &r->pass) && d.cfg.kernel != m->cfg.kernel)
		fprintf(o->notes,
			"slabsim: warning: --kernel %s contradicts the trace, whose event format "
			"is %s's (%s); the model's bytes_alloc differs from the trace's on "
			"%" PRIu64 " allocations\n",
			run_kernel_name(m), run_kernel_name(&d), d.kernel_from,
			t.alloc_size_mismatch);
	if (t.anomalies[SIM_AN_CPU_FOLDED])
		fprintf(o->notes,
			"slabsim: warning: %" PRIu64 " events ran on CPUs at or above nr_cpus %u "
			"(from %s) and were folded\n",
			t.anomalies[SIM_AN_CPU_FOLDED], m->cfg.nr_cpus,
			m->nr_cpus_from ? m->nr_cpus_from : "the default");
}

int run_exec(const struct run_opts *o, const struct run_input *in, struct run **out, struct err *e)
{
	double t0 = run_now();
	enum run_stage at = RUN_STAGE_MODEL;
	struct run *r = NULL;
	bool open = false;
	int rc;
	*out = NULL;
	if (!(r = calloc(1, sizeof(*r)))) {
		rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
		goto fail;
	}
	r->model = o->model;
	r->kallsyms = o->read.kallsyms;
	if ((rc = make_sim(r, o, e)))
		goto fail;
	at = RUN_STAGE_INPUT;
	if ((rc = open_source(r, o, in, e)))
		goto fail;
	at = RUN_STAGE_RECORD;
	if (!(r->rec = o->rec) && o->db) {
		if ((rc = rec_open(o->db, &r->own_rec, e)))
			goto fail;
		r->rec = r->own_rec;
	}
	if (r->rec) {
		if ((rc = begin_record(o, in, r, e)))
			goto fail;
		open = true;
	}
	at = RUN_STAGE_REPLAY;
	struct sink k = r->rec ? rec_as_sink(r->rec) : (struct sink){0};
	if ((rc = sim_replay_source(r->s, &r->src, r->rec ? &k : NULL, e)))
		goto fail;
	if (in->kind == RUN_TRACE && (rc = check_unchanged(r, in->path, e)))
		goto fail;
	if (in->kind != RUN_WORKLOAD && !replayed_events(r->s)) {
		rc = no_events(in->path ? in->path : "events", run_line_stats(r), e);
		goto fail;
	}
	warn_contradictions(r, o, in->path ? in->path : "-");
	if (o->finish && (rc = o->finish(o->ctx, r, r->rec, e)))
		goto fail;
	at = RUN_STAGE_RECORD;
	if (r->rec && (rc = end_record(o, r, t0, e)))
		goto fail;
	*out = r;
	return 0;
fail:
	if (open)
		(void)rec_run_end(r->rec, NULL, false, NULL);
	if (o->failed_at)
		*o->failed_at = at;
	run_free(r);
	return rc;
}

/* ---- a run fed event by event ---- */

int run_push_begin(const struct run_opts *o, const struct run_trace_id *id, const char *path,
		   struct run **out, struct err *e)
{
	struct run_input in = {.kind = RUN_TRACE, .path = path, .id = id};
	struct run *r = calloc(1, sizeof(*r));
	int rc;
	*out = NULL;
	if (!r)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	r->t0 = run_now();
	r->model = o->model;
	r->kallsyms = o->read.kallsyms;
	if ((rc = make_sim(r, o, e)))
		goto fail;
	sim_set_config_from(r->s, r->model.kernel_from, r->model.nr_cpus_from);
	if (!(r->rec = o->rec) && o->db) {
		if ((rc = rec_open(o->db, &r->own_rec, e)))
			goto fail;
		r->rec = r->own_rec;
	}
	if (r->rec) {
		if ((rc = begin_record(o, &in, r, e)))
			goto fail;
		r->push_sink = rec_as_sink(r->rec);
	}
	sim_push_begin(r->s, r->rec ? &r->push_sink : NULL, path);
	*out = r;
	return 0;
fail:
	run_free(r);
	return rc;
}

int run_push_event(struct run *r, const struct trace_event *ev, struct err *e)
{
	return sim_event(r->s, ev, e);
}

int run_push_end(const struct run_opts *o, struct run *r, struct err *e)
{
	int rc = sim_push_end(r->s, e);
	if (!rc && r->rec)
		rc = end_record(o, r, r->t0, e);
	if (rc && r->rec)
		(void)rec_run_end(r->rec, NULL, false, NULL);
	return rc;
}

struct sim *run_sim(const struct run *r)
{
	return r->s;
}

const struct trace_stats *run_line_stats(struct run *r)
{
	/* the prefetch's counts are final once its producers have stopped,
	 * which asking for them does: only after the replay */
	if (r->pf)
		return trace_prefetch_stats(r->pf);
	return r->tr ? trace_stats(r->tr) : r->stats;
}

int64_t run_id(const struct run *r)
{
	return r->run_id;
}

void run_free(struct run *r)
{
	if (!r)
		return;
	close_reader(r);
	rec_close(r->own_rec);
	sim_destroy(r->s);
	evarr_free(r->spill); /* after the sim, which may hold its strings */
	evarr_free(r->head);
	policy_sites_destroy(r->sites);
	free(r);
}
