/* run_workload.c - a synthetic workload as the input of runs (run.h): the
 * spec, its caches defined on the engine, the generator as an event
 * source. Shared by `replay --workload`, sweeps with workloads and `synth`. */
#include "run.h"
#include "err.h"
#include "policy.h"
#include "sim.h"
#include "synth.h"
#include "workload.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int run_workload_open(struct run_workload *wl, const char *path, const char *seed,
		      const char *duration, struct err *e)
{
	memset(wl, 0, sizeof(*wl));
	int rc = workload_load(path, &wl->w, e);
	if (rc)
		return rc;
	bool has;
	wl->seed = workload_seed(wl->w, &has);
	if (seed && run_parse_seed(seed, &wl->seed))
		return err_set(e, SLABSIM_EUSAGE,
			       "--seed expects a whole number from 0 to 2^64-1, got '%s'", seed);
	wl->duration_ns = workload_duration_ns(wl->w, &has);
	if (duration && (!workload_parse_time(duration, &wl->duration_ns) || !wl->duration_ns))
		return err_set(e, SLABSIM_EUSAGE,
			       "--duration expects a time > 0 with a unit (e.g. 60s, 250ms), got "
			       "'%s'",
			       duration);
	if (!wl->duration_ns)
		return err_set(e, SLABSIM_EUSAGE,
			       "%s: no duration: give --duration or 'duration =' in [workload]",
			       path);
	return 0;
}

static uint64_t kmalloc_bytes(void *ctx, uint64_t size, uint32_t gfp)
{
	return sim_kmalloc_bytes(ctx, size, gfp);
}

/* Create w's caches on s; req/alloc (n entries) get their traced sizes. */
static int define_caches(const struct workload *w, struct sim *s, uint64_t *req, uint64_t *alloc,
			 struct err *e)
{
	uint32_t n = workload_nr_caches(w);
	for (uint32_t i = 0; i < n; i++) {
		struct workload_cache wc;
		workload_cache(w, i, &wc);
		struct policy_cache_spec spec = {
			.name = wc.name,
			.object_size = wc.object_size,
			.align = wc.align,
			.usersize = wc.usersize,
			.ctor = (wc.flags & WORKLOAD_CF_CTOR) != 0,
		};
		if (wc.flags & WORKLOAD_CF_HWCACHE)
			spec.flags |= POLICY_F_HWCACHE_ALIGN;
		if (wc.flags & WORKLOAD_CF_RECLAIM)
			spec.flags |= POLICY_F_RECLAIM_ACCOUNT;
		if (wc.flags & WORKLOAD_CF_ACCOUNT)
			spec.flags |= POLICY_F_ACCOUNT;
		if (wc.flags & WORKLOAD_CF_DMA)
			spec.flags |= POLICY_F_CACHE_DMA;
		if (wc.flags & WORKLOAD_CF_TYPESAFE_BY_RCU)
			spec.flags |= POLICY_F_TYPESAFE_BY_RCU;
		int rc = sim_define_cache(s, &spec, &req[i], &alloc[i], e);
		if (rc) {
			char why[SLABSIM_ERR_MSG_MAX];
			(void)snprintf(why, sizeof(why), "%s", e->msg);
			return err_set(e, rc == SLABSIM_ENOMEM ? rc : SLABSIM_EINPUT,
				       "%s: [cache %s]: %s", workload_path(w), wc.name, why);
		}
	}
	return 0;
}

int run_define_workload_caches(const char *path, struct sim *s, struct err *e)
{
	struct workload *w = NULL;
	int rc = workload_load(path, &w, e);
	if (rc)
		return rc;
	uint32_t n = workload_nr_caches(w);
	uint64_t *req = calloc(n + 1, sizeof(*req)), *alloc = calloc(n + 1, sizeof(*alloc));
	rc = req && alloc ? define_caches(w, s, req, alloc, e)
			  : err_set(e, SLABSIM_ENOMEM, "out of memory");
	free(req);
	free(alloc);
	workload_free(w);
	return rc;
}

int run_workload_start(struct run_workload *wl, struct sim *s, uint64_t seed, struct err *e)
{
	uint32_t n = workload_nr_caches(wl->w);
	free(wl->req);
	free(wl->alloc);
	wl->req = calloc(n + 1, sizeof(*wl->req));
	wl->alloc = calloc(n + 1, sizeof(*wl->alloc));
	if (!wl->req || !wl->alloc)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	int rc = define_caches(wl->w, s, wl->req, wl->alloc, e);
	if (rc)
		return rc;
	struct synth_model model = {
		.ctx = s,
		.kmalloc_bytes = kmalloc_bytes,
		.cache_req = wl->req,
		.cache_alloc = wl->alloc,
	};
	synth_destroy(wl->g);
	wl->g = NULL;
	return synth_create(wl->w, seed, wl->duration_ns, &model, &wl->g, e);
}

void run_workload_source(struct run_workload *wl, struct trace_source *src)
{
	(void)snprintf(wl->label, sizeof(wl->label), "%s event", workload_path(wl->w));
	synth_source(wl->g, wl->label, src);
}

void run_workload_close(struct run_workload *wl)
{
	synth_destroy(wl->g);
	workload_free(wl->w);
	free(wl->req);
	free(wl->alloc);
	memset(wl, 0, sizeof(*wl));
}

int run_workload_json(const struct run_workload *wl, uint64_t seed, char *buf, size_t n)
{
	/* names are one word without quotes or backslashes (the parser's
	 * rule); the path is escaped */
	char path[600];
	size_t o = 0;
	for (const char *p = workload_path(wl->w); *p && o + 7 < sizeof(path); p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\')
			path[o++] = '\\', path[o++] = (char)c;
		else if (c < 0x20)
			o += (size_t)snprintf(path + o, sizeof(path) - o, "\\u%04x", c);
		else
			path[o++] = (char)c;
	}
	path[o] = '\0';
	int w = snprintf(buf, n,
			 "\"workload\":{\"path\":\"%s\",\"hash\":\"%s\",\"name\":\"%s\","
			 "\"rng\":\"%s\",\"seed\":%" PRIu64 ",\"duration_ns\":%" PRIu64 "}",
			 path, workload_hash(wl->w), workload_name(wl->w), workload_rng_name(wl->w),
			 seed, wl->duration_ns);
	return w < 0 || (size_t)w >= n ? -1 : 0;
}

int run_parse_seed(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || errno)
		return -1;
	*out = v;
	return 0;
}
