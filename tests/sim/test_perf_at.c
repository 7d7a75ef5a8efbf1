/* test_perf_at.c - perf kmem stat's figures with the pointer records kept
 * by the caller (metrics_perf_alloc_at/free_at; without --alloc also
 * metrics_perf_alloc_ix/free_ix, what the replay does with its live table)
 * equal those of metrics' own table (metrics_perf_alloc/free) and those of
 * a plain per-pointer model written here, under a random stream of
 * allocations (some of 4 GiB or more) and frees (pointers 0 and
 * ZERO_SIZE_PTR included, frees of pointers never allocated, double
 * frees), with and without the per-pointer record (--alloc). */
#include "check.h"
#include "metrics.h"
#include "summary.h"
#include "strtab.h"
#include "trace.h"

#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NPTR = 3000, OPS = 300000, NSITE = 5 };

/* the model: perf keeps, per pointer, its last allocation's bytes and CPU */
struct ref_ptr {
	bool rec;	 /* a record exists */
	uint64_t last;	 /* bytes_alloc of the last allocation */
	int32_t cpu;	 /* CPU of the last allocation, -1 once freed */
	uint32_t at_rec; /* the caller-kept record for the _at functions */
	/* the caller's part of the _ix record (the pointer's index is its own) */
	bool ix_rec;
	uint32_t ix_site, ix_cpu;
};

static void run(bool record_ptrs)
{
	struct metrics_opts mo = {.record_ptrs = record_ptrs};
	struct strtab sites;
	struct metrics *own = NULL, *at = NULL, *ix = NULL;
	struct err e;
	static struct ref_ptr ref[NPTR];
	struct metrics_perf_totals want = {0}, a, b;
	char name[160];
	strtab_init(&sites);
	for (uint32_t k = 0, id; k < NSITE; k++) {
		char nm[32];
		(void)snprintf(nm, sizeof(nm), "site_%u+0x0/0x10", k);
		(void)strtab_intern(&sites, nm, &id);
	}
	err_clear(&e);
	if (metrics_create(&mo, &sites, &own, &e) || metrics_create(&mo, &sites, &at, &e) ||
	    (!record_ptrs && metrics_create(&mo, &sites, &ix, &e))) {
		CHECK("metrics created", false);
		return;
	}
	for (size_t i = 0; i < NPTR; i++)
		ref[i] = (struct ref_ptr){.cpu = -1, .at_rec = METRICS_NO_REC};
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, record_ptrs ? 3 : 4);
	bool calls_ok = true;
	for (int i = 0; i < OPS && calls_ok; i++) {
		size_t k = gsl_rng_uniform_int(rng, NPTR);
		/* pointer 0 and 1..16 (ZERO_SIZE_PTR) among them */
		uint64_t ptr = k < 17 ? k : 0xffff888000000000ULL + k * 64;
		struct trace_event ev = {
			.ptr = ptr,
			.cpu = (uint32_t)gsl_rng_uniform_int(rng, 2),
			.node = -1,
		};
		struct ref_ptr *r = &ref[k];
		if (gsl_rng_uniform(rng) < 0.5) {
			ev.type = TRACE_EV_KMALLOC;
			ev.bytes_req = 1 + gsl_rng_uniform_int(rng, 500);
			ev.bytes_alloc = ev.bytes_req + gsl_rng_uniform_int(rng, 64);
			if (gsl_rng_uniform(rng) < 0.01) /* kept whole apart */
				ev.bytes_alloc += 1ULL << 32;
			uint32_t site = (uint32_t)gsl_rng_uniform_int(rng, NSITE);
			calls_ok &= metrics_perf_alloc(own, &ev, site) == 0 &&
				    metrics_perf_alloc_at(at, &ev, site, &r->at_rec) == 0;
			if (ix) {
				calls_ok &= metrics_perf_alloc_ix(ix, &ev, site, (uint32_t)k) == 0;
				r->ix_rec = true;
				r->ix_site = site;
				r->ix_cpu = ev.cpu;
			}
			want.allocs++;
			want.bytes_req += ev.bytes_req;
			want.bytes_alloc += ev.bytes_alloc;
			r->rec = true;
			r->last = ev.bytes_alloc;
			r->cpu = (int32_t)ev.cpu;
		} else {
			ev.type = TRACE_EV_KFREE;
			metrics_perf_free(own, &ev);
			metrics_perf_free_at(at, &ev, &r->at_rec);
			if (ix && r->ix_rec)
				metrics_perf_free_ix(ix, &ev, (uint32_t)k, r->ix_site, r->ix_cpu);
			else if (ix)
				metrics_perf_free_none(ix);
			r->ix_rec = false;
			if (!r->rec) {
				want.unmatched++;
				continue;
			}
			want.frees++;
			want.bytes_freed += r->last;
			if ((int32_t)ev.cpu != r->cpu)
				want.pingpong++;
			r->cpu = -1;
			r->rec = record_ptrs; /* without --alloc the record goes */
		}
		calls_ok &= (r->at_rec != METRICS_NO_REC) == r->rec;
	}
	struct metrics_perf_totals c = {0};
	metrics_perf_totals(own, &a);
	metrics_perf_totals(at, &b);
	if (ix)
		metrics_perf_totals(ix, &c);
	const char *mode = record_ptrs ? "with --alloc" : "bounded";
	(void)snprintf(name, sizeof(name), "%s: calls succeed, caller records follow the model",
		       mode);
	CHECK(name, calls_ok);
	(void)snprintf(name, sizeof(name),
		       "%s: own table and caller-kept records give the model's totals "
		       "(%llu frees, %llu unmatched, %llu ping-pong)",
		       mode, (unsigned long long)want.frees, (unsigned long long)want.unmatched,
		       (unsigned long long)want.pingpong);
	bool same = true;
	const struct metrics_perf_totals *t[3] = {&a, &b, &c};
	for (int j = 0; j < (ix ? 3 : 2); j++)
		same &= t[j]->allocs == want.allocs && t[j]->frees == want.frees &&
			t[j]->bytes_req == want.bytes_req &&
			t[j]->bytes_alloc == want.bytes_alloc &&
			t[j]->bytes_freed == want.bytes_freed && t[j]->pingpong == want.pingpong &&
			t[j]->unmatched == want.unmatched && t[j]->cross_node == 0;
	CHECK(name, same && want.frees > 10000 && want.unmatched > 1000 &&
			    (record_ptrs || want.pingpong > 1000));
	/* the same perf tables, byte for byte */
	char *pa = NULL, *pb = NULL;
	size_t la = 0, lb = 0;
	FILE *fa = open_memstream(&pa, &la), *fb = open_memstream(&pb, &lb);
	if (fa && fb) {
		(void)view_perf(own, fa, true, true, NULL, 0, -1, want.bytes_alloc);
		(void)view_perf(at, fb, true, true, NULL, 0, -1, want.bytes_alloc);
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	(void)snprintf(name, sizeof(name), "%s: perf's tables are the same text", mode);
	CHECK(name, pa && pb && la > 100 && la == lb && memcmp(pa, pb, la) == 0);
	if (ix) { /* the caller's call sites: the same ping-pong by site */
		char *pc = NULL;
		size_t lc = 0;
		FILE *fc = open_memstream(&pc, &lc);
		if (fc) {
			(void)view_perf(ix, fc, true, false, NULL, 0, -1, want.bytes_alloc);
			fclose(fc);
		}
		char *pd = NULL;
		size_t ld = 0;
		FILE *fd = open_memstream(&pd, &ld);
		if (fd) {
			(void)view_perf(own, fd, true, false, NULL, 0, -1, want.bytes_alloc);
			fclose(fd);
		}
		CHECK("bounded: _ix records give the own table's --caller table",
		      pc && pd && lc > 100 && lc == ld && memcmp(pc, pd, lc) == 0);
		free(pc);
		free(pd);
	}
	free(pa);
	free(pb);
	gsl_rng_free(rng);
	metrics_destroy(own);
	metrics_destroy(at);
	metrics_destroy(ix);
	strtab_fini(&sites);
}

int main(void)
{
	run(false);
	run(true);
	return check_done();
}
