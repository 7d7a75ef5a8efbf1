/* synth.c - the workload generator behind synth.h. */
#include "synth.h"
#include "evq.h"
#include "source.h"
#include "workload_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Kinds of queue events. */
enum { K_FREE = 0, K_ARRIVAL, K_CONT, K_PHASE };

#define NONE UINT64_MAX

/* Synthetic pointers: objects whose free is scheduled are named by the
 * queue sequence number of that free, the others by a counter, in two
 * disjoint ranges (seq < 2^40, shifted by 5: below 2^45). */
#define PTR_FREED UINT64_C(0xffff800000000000)
#define PTR_LIVE  UINT64_C(0xffffa00000000000)

struct sstate {
	uint64_t arr_seq;  /* seq of the valid pending arrival, NONE if none */
	uint64_t cont_seq; /* seq of the pending burst continuation */
	uint64_t left;	   /* allocations left in the running burst */
	double mean_gap;   /* ns between arrivals (burst starts) in this phase */
	uint64_t period;   /* periodic: ns between arrivals in this phase */
	bool active;
	bool cache_account;
};

struct synth {
	const struct workload *w;
	gsl_rng *r;
	struct evq q;
	uint64_t dur, now;
	uint32_t phase;
	uint64_t phase_end[WL_MAX_PHASES];
	struct sstate *st;
	uint64_t *req, *alloc; /* per cache */
	struct synth_model model;
	uint64_t live_ctr;
	struct synth_stats stats;
	bool done;
	bool marker_due; /* phase marker of g->phase not yet emitted */
	uint64_t marker_t;
	char marker[80]; /* its text */
};

/* A non-negative double of ns to whole ns, rounding to nearest; values that
 * do not fit are "never" (UINT64_MAX). Plain IEEE arithmetic: the same on
 * every machine. */
static uint64_t to_ns(double x)
{
	if (!(x < 9.2e18))
		return UINT64_MAX;
	if (!(x > 0))
		return 0;
	return (uint64_t)(x + 0.5);
}

static uint64_t draw_size(const struct wl_size *sz, gsl_rng *r)
{
	switch (sz->kind) {
	case WL_SZ_UNIFORM:
		return sz->a + gsl_rng_uniform_int(r, sz->b - sz->a + 1);
	case WL_SZ_NORMAL:
	case WL_SZ_LOGNORMAL:
		for (;;) {
			double x = sz->kind == WL_SZ_NORMAL
					   ? sz->mu + gsl_ran_gaussian(r, sz->sigma)
					   : gsl_ran_lognormal(r, sz->mu, sz->sigma);
			double k = floor(x + 0.5);
			if (k >= (double)sz->lo && k <= (double)sz->hi)
				return (uint64_t)k;
		}
	case WL_SZ_POW2: {
		unsigned k = gsl_ran_geometric(r, sz->p) - 1;
		if (k >= 23 || (sz->a << k) > sz->b)
			return sz->b;
		return sz->a << k;
	}
	case WL_SZ_EMPIRICAL:
		return sz->sizes[gsl_ran_discrete(r, sz->d)];
	default:
		return sz->a;
	}
}

/* Lifetime in ns; UINT64_MAX for phase/forever (the caller handles phase). */
static uint64_t draw_life(const struct wl_life *lt, gsl_rng *r)
{
	switch (lt->kind) {
	case WL_LT_EXP:
		return to_ns(gsl_ran_exponential(r, (double)lt->t_ns));
	case WL_LT_LOGNORMAL:
		return to_ns(gsl_ran_lognormal(r, lt->mu, lt->sigma));
	case WL_LT_PARETO:
		return to_ns(gsl_ran_pareto(r, lt->alpha, lt->xm));
	case WL_LT_FIXED:
		return lt->t_ns;
	default:
		return UINT64_MAX;
	}
}

uint64_t synth_draw_size(const struct workload *w, uint32_t i, void *r)
{
	return draw_size(&w->streams[i].size, r);
}

uint64_t synth_draw_lifetime(const struct workload *w, uint32_t i, void *r)
{
	return draw_life(&w->streams[i].life, r);
}

static uint32_t draw_cpu(const struct synth *g, const struct wl_cpu *c)
{
	switch (c->kind) {
	case WL_CPU_FIXED:
		return c->cpu;
	case WL_CPU_MIX:
		return c->n == 1 ? c->cpus[0] : c->cpus[gsl_ran_discrete(g->r, c->d)];
	default:
		return g->w->cpus == 1 ? 0 : (uint32_t)gsl_rng_uniform_int(g->r, g->w->cpus);
	}
}

static int push(struct synth *g, uint64_t t, uint32_t kind, uint32_t data, struct err *e)
{
	int rc = evq_push(&g->q, t, kind, data);
	if (rc)
		return err_set(e, rc, "event queue: out of memory (%zu events pending)",
			       evq_len(&g->q));
	if (evq_bytes(&g->q) > g->stats.peak_queue_bytes)
		g->stats.peak_queue_bytes = evq_bytes(&g->q);
	return 0;
}

/* Draw stream i's next arrival (burst start) after t and schedule it;
 * periodic streams draw nothing (the first arrival of a phase is at its
 * start). */
static int schedule_arrival(struct synth *g, uint32_t i, uint64_t t, bool first, struct err *e)
{
	struct sstate *s = &g->st[i];
	s->arr_seq = NONE;
	uint64_t gap;
	if (g->w->streams[i].arr.kind == WL_AR_PERIODIC)
		gap = first ? 0 : s->period;
	else
		gap = to_ns(gsl_ran_exponential(g->r, s->mean_gap));
	if (gap >= g->dur - t)
		return 0; /* not before the end (a phase change redraws it) */
	s->arr_seq = evq_next_seq(&g->q);
	return push(g, t + gap, K_ARRIVAL, i, e);
}

/* Enter phase p at time t: rates change, arrivals are redrawn. */
static int enter_phase(struct synth *g, uint32_t p, uint64_t t, struct err *e)
{
	const struct workload *w = g->w;
	int rc;
	g->phase = p;
	/* a user-space marker names the phase in the trace (and makes the
	 * replay take a labelled sample): only for specs with [phase] sections */
	if (w->phases[0].line) {
		g->marker_due = true;
		g->marker_t = t;
		(void)snprintf(g->marker, sizeof(g->marker), "phase=%.60s", w->phases[p].name);
	}
	for (uint32_t i = 0; i < w->nstreams; i++) {
		const struct wl_stream *ws = &w->streams[i];
		struct sstate *s = &g->st[i];
		double rate = ws->arr.rate * ws->mult[p];
		s->active = (ws->phase_mask >> p & 1) && rate > 0;
		s->arr_seq = NONE;
		if (!s->active) {
			s->left = 0;
			s->cont_seq = NONE;
			continue;
		}
		s->mean_gap = 1e9 / rate;
		s->period = to_ns((double)ws->arr.gap_ns / ws->mult[p]);
		if (!s->period)
			s->period = 1;
		if ((rc = schedule_arrival(g, i, t, true, e)))
			return rc;
	}
	if (p + 1 < w->nphases && g->phase_end[p] < g->dur)
		return push(g, g->phase_end[p], K_PHASE, p + 1, e);
	return 0;
}

int synth_create(const struct workload *w, uint64_t seed, uint64_t duration_ns,
		 const struct synth_model *model, struct synth **out, struct err *e)
{
	if (!duration_ns)
		return err_set(e, SLABSIM_EUSAGE,
			       "%s: no duration (give --duration or duration = in [workload])",
			       w->path);
	if (duration_ns > (UINT64_MAX >> 1))
		return err_set(e, SLABSIM_EUSAGE, "duration too long");
	if (w->nstreams > EVQ_DATA_MAX)
		return err_set(e, SLABSIM_EUSAGE, "%s: at most %u streams", w->path, EVQ_DATA_MAX);
	struct synth *g = calloc(1, sizeof(*g));
	if (!g)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	g->w = w;
	g->dur = duration_ns;
	evq_init(&g->q);
	if (model)
		g->model = *model;
	g->st = calloc(w->nstreams, sizeof(*g->st));
	g->req = calloc(w->ncaches + 1, sizeof(*g->req));
	g->alloc = calloc(w->ncaches + 1, sizeof(*g->alloc));
	g->r = gsl_rng_alloc(w->rng);
	if (!g->st || !g->req || !g->alloc || !g->r) {
		synth_destroy(g);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	gsl_rng_set(g->r, (unsigned long)seed);
	for (uint32_t c = 0; c < w->ncaches; c++) {
		g->req[c] =
			model && model->cache_req ? model->cache_req[c] : w->caches[c].object_size;
		g->alloc[c] = model && model->cache_alloc ? model->cache_alloc[c]
							  : w->caches[c].object_size;
	}
	uint64_t t = 0;
	for (uint32_t p = 0; p < w->nphases; p++) {
		if (p + 1 < w->nphases && w->phases[p].duration_ns < g->dur - t)
			t += w->phases[p].duration_ns;
		else
			t = g->dur;
		g->phase_end[p] = t;
	}
	for (uint32_t i = 0; i < w->nstreams; i++) {
		g->st[i].cont_seq = g->st[i].arr_seq = NONE;
		int c = w->streams[i].cache;
		g->st[i].cache_account = c >= 0 && (w->caches[c].flags & WORKLOAD_CF_ACCOUNT);
	}
	int rc = enter_phase(g, 0, 0, e);
	if (rc) {
		synth_destroy(g);
		return rc;
	}
	*out = g;
	return 0;
}

void synth_destroy(struct synth *g)
{
	if (!g)
		return;
	evq_fini(&g->q);
	if (g->r)
		gsl_rng_free(g->r);
	free(g->st);
	free(g->req);
	free(g->alloc);
	free(g);
}

/* One allocation of stream i at time t into *ev. */
static int do_alloc(struct synth *g, uint32_t i, uint64_t t, struct trace_event *ev, struct err *e)
{
	const struct wl_stream *ws = &g->w->streams[i];
	uint64_t size = draw_size(&ws->size, g->r);
	uint64_t life = draw_life(&ws->life, g->r);
	uint64_t t_free = NONE;
	if (ws->life.kind == WL_LT_PHASE)
		t_free = g->phase_end[g->phase];
	else if (life < g->dur - t)
		t_free = t + life;
	uint32_t cpu = draw_cpu(g, &ws->cpu);
	*ev = (struct trace_event){
		.t_ns = t,
		.cpu = cpu,
		.pid = (int32_t)i + 1,
		.node = -1,
		.call_site = ws->site,
	};
	if (t_free < g->dur) {
		ev->ptr = PTR_FREED | evq_next_seq(&g->q) << 5;
		int rc = push(g, t_free, K_FREE, i, e);
		if (rc)
			return rc;
		if (++g->stats.pending > g->stats.peak_pending)
			g->stats.peak_pending = g->stats.pending;
	} else {
		ev->ptr = PTR_LIVE | g->live_ctr++ << 5;
	}
	if (ws->cache >= 0) {
		ev->type = TRACE_EV_CACHE_ALLOC;
		ev->bytes_req = g->req[ws->cache];
		ev->bytes_alloc = g->alloc[ws->cache];
		ev->name = g->w->caches[ws->cache].name;
		ev->gfp = TRACE_GFP_KNOWN | (g->st[i].cache_account ? TRACE_GFP_ACCOUNT : 0);
	} else {
		ev->type = TRACE_EV_KMALLOC;
		ev->bytes_req = size;
		ev->bytes_alloc = g->model.kmalloc_bytes
					  ? g->model.kmalloc_bytes(g->model.ctx, size, ws->gfp)
					  : size;
		ev->gfp = TRACE_GFP_KNOWN | ws->gfp;
	}
	ev->accounted = (ev->gfp & TRACE_GFP_ACCOUNT) ? 1 : 0;
	g->stats.allocs++;
	return 0;
}

int synth_next(struct synth *g, struct trace_event *ev, struct err *e)
{
	const struct workload *w = g->w;
	struct evq_item it;
	int rc;
	while (!g->done) {
		if (g->marker_due) {
			g->marker_due = false;
			*ev = (struct trace_event){
				.type = TRACE_EV_MARKER,
				.t_ns = g->marker_t,
				.pid = 0,
				.node = -1,
				.accounted = -1,
				.call_site = "",
				.text = g->marker,
			};
			goto emit;
		}
		if (!evq_pop(&g->q, &it) || it.t_ns >= g->dur) {
			g->done = true;
			g->now = g->dur;
			break;
		}
		g->now = it.t_ns;
		uint32_t i = it.data;
		struct sstate *s = &g->st[i < w->nstreams ? i : 0];
		switch (it.kind) {
		case K_FREE: {
			const struct wl_stream *ws = &w->streams[i];
			*ev = (struct trace_event){
				.type = ws->cache >= 0 ? TRACE_EV_CACHE_FREE : TRACE_EV_KFREE,
				.t_ns = it.t_ns,
				.cpu = draw_cpu(g, &ws->cpu),
				.pid = (int32_t)i + 1,
				.ptr = PTR_FREED | it.seq << 5,
				.node = -1,
				.accounted = -1,
				.call_site = ws->site,
				.name = ws->cache >= 0 ? w->caches[ws->cache].name : NULL,
			};
			g->stats.pending--;
			g->stats.frees++;
			goto emit;
		}
		case K_ARRIVAL: {
			if (it.seq != s->arr_seq)
				continue; /* redrawn at a phase change */
			s->arr_seq = NONE;
			const struct wl_stream *ws = &w->streams[i];
			if (ws->arr.kind != WL_AR_BURST) {
				if ((rc = do_alloc(g, i, it.t_ns, ev, e)) ||
				    (rc = schedule_arrival(g, i, it.t_ns, false, e)))
					return rc;
				goto emit;
			}
			s->left += ws->arr.size;
			if (s->cont_seq != NONE) { /* joins the running burst */
				if ((rc = schedule_arrival(g, i, it.t_ns, false, e)))
					return rc;
				continue;
			}
			if ((rc = do_alloc(g, i, it.t_ns, ev, e)) ||
			    (rc = schedule_arrival(g, i, it.t_ns, false, e)))
				return rc;
			if (--s->left && ws->arr.gap_ns < g->dur - it.t_ns) {
				s->cont_seq = evq_next_seq(&g->q);
				if ((rc = push(g, it.t_ns + ws->arr.gap_ns, K_CONT, i, e)))
					return rc;
			}
			goto emit;
		}
		case K_CONT: {
			if (it.seq != s->cont_seq)
				continue;
			s->cont_seq = NONE;
			if (!s->active || !s->left)
				continue;
			const struct wl_stream *ws = &w->streams[i];
			if ((rc = do_alloc(g, i, it.t_ns, ev, e)))
				return rc;
			if (--s->left && ws->arr.gap_ns < g->dur - it.t_ns) {
				s->cont_seq = evq_next_seq(&g->q);
				if ((rc = push(g, it.t_ns + ws->arr.gap_ns, K_CONT, i, e)))
					return rc;
			}
			goto emit;
		}
		case K_PHASE:
			if ((rc = enter_phase(g, i, it.t_ns, e)))
				return rc;
			continue;
		default:
			continue;
		}
emit:
		ev->line = ++g->stats.events;
		return 1;
	}
	return 0;
}

void synth_stats(const struct synth *g, struct synth_stats *out)
{
	*out = g->stats;
}

void synth_progress(const struct synth *g, uint64_t *done_ns, uint64_t *total_ns)
{
	*done_ns = g->now;
	*total_ns = g->dur;
}

static int src_next(void *ctx, struct trace_event *ev, struct err *e)
{
	return synth_next(ctx, ev, e);
}

static void src_progress(void *ctx, uint64_t *done, uint64_t *total)
{
	synth_progress(ctx, done, total);
}

void synth_source(struct synth *g, const char *name, struct trace_source *src)
{
	*src = (struct trace_source){
		.ctx = g,
		.next = src_next,
		.progress = src_progress,
		.name = name,
	};
}

static const char *gfp_text(uint32_t gfp)
{
	if (gfp & TRACE_GFP_DMA)
		return "GFP_KERNEL|GFP_DMA";
	if (gfp & TRACE_GFP_RECLAIMABLE)
		return "GFP_KERNEL|__GFP_RECLAIMABLE";
	if (gfp & TRACE_GFP_ACCOUNT)
		return "GFP_KERNEL_ACCOUNT";
	return "GFP_KERNEL";
}

int synth_write_event(FILE *f, const struct trace_event *ev)
{
	char task[32];
	(void)snprintf(task, sizeof(task), "synth-%d", ev->pid);
	int n = fprintf(f, "%16s%-8s [%03" PRIu32 "] ..... %5" PRIu64 ".%09" PRIu64 ": %s: ", "",
			task, ev->cpu, ev->t_ns / 1000000000, ev->t_ns % 1000000000,
			trace_ev_names[ev->type]);
	if (n < 0)
		return -1;
	switch (ev->type) {
	case TRACE_EV_MARKER:
		n = fprintf(f, "%s\n", ev->text);
		break;
	case TRACE_EV_PAGE_FREE: /* ptr: physical address; bytes_alloc: 4096 << order */
		n = fprintf(f, "page=0000000000000000 pfn=0x%" PRIx64 " order=%d\n", ev->ptr >> 12,
			    __builtin_ctzll(ev->bytes_alloc ? ev->bytes_alloc : 4096) - 12);
		break;
	case TRACE_EV_PAGE_ALLOC: /* the same, and the fields the kernel prints after */
		n = fprintf(f,
			    "page=0000000000000000 pfn=0x%" PRIx64
			    " order=%d migratetype=0 gfp_flags=GFP_KERNEL\n",
			    ev->ptr >> 12,
			    __builtin_ctzll(ev->bytes_alloc ? ev->bytes_alloc : 4096) - 12);
		break;
	case TRACE_EV_KMALLOC:
	case TRACE_EV_CACHE_ALLOC:
		n = fprintf(f,
			    "call_site=%s ptr=%016" PRIx64 " bytes_req=%" PRIu64
			    " bytes_alloc=%" PRIu64 " gfp_flags=%s node=-1 accounted=%s\n",
			    ev->call_site, ev->ptr, ev->bytes_req, ev->bytes_alloc,
			    gfp_text(ev->gfp), ev->accounted == 1 ? "true" : "false");
		break;
	case TRACE_EV_CACHE_FREE:
		n = fprintf(f, "call_site=%s ptr=%016" PRIx64 " name=%s\n", ev->call_site, ev->ptr,
			    ev->name);
		break;
	default:
		n = fprintf(f, "call_site=%s ptr=%016" PRIx64 "\n", ev->call_site, ev->ptr);
		break;
	}
	return n < 0 ? -1 : 0;
}

int synth_write_header(FILE *f, const struct workload *w, uint64_t seed, uint64_t duration_ns,
		       uint32_t nr_cpus)
{
	/* "#P:N" as tracefs's header gives the CPU count, which a replay
	 * takes as its default nr_cpus */
	int n = fprintf(f,
			"# tracer: nop\n"
			"# slabsim synth: workload %s spec %s seed %" PRIu64 " duration_ns %" PRIu64
			" rng %s\n"
			"# CPUs of the model: #P:%u\n"
			"#\n"
			"#                                _-----=> irqs-off/BH-disabled\n"
			"#                               / _----=> need-resched\n"
			"#                              | / _---=> hardirq/softirq\n"
			"#                              || / _--=> preempt-depth\n"
			"#                              ||| / _-=> migrate-disable\n"
			"#                              |||| /     delay\n"
			"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
			"#              | |         |   |||||     |         |\n",
			w->name, w->hash, seed, duration_ns, w->rng->name, nr_cpus);
	return n < 0 ? -1 : 0;
}
