/* test_u64map.c - the hash map against a plain array model, under a
 * GSL-driven random mix of puts, gets and deletes (backward-shift deletion
 * is where linear probing goes wrong). */
#include "check.h"
#include "u64map.h"

#include <gsl/gsl_rng.h>
#include <stdlib.h>

/* A sparse map (load 1/2) under 2 million random upserts, puts, gets and
 * deletes (by key, and by the slot u64map_ref found) of 1 << 18 keys
 * against an array model, with the load bound checked after every
 * operation; and the default map's load bound. */
static void sparse_random(void)
{
	enum { N = 1 << 18, OPS = 2000000 };
	uint64_t *model = calloc(N, sizeof(*model)); /* 0 = absent, else value */
	struct u64map m;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 11);
	u64map_init_sparse(&m);
	bool agree = model != NULL, load_ok = true, zero_on_insert = true;
	size_t present = 0, max_len = 0;
	for (int i = 0; agree && i < OPS; i++) {
		size_t k = gsl_rng_uniform_int(rng, N);
		/* hashed-pointer-like keys in one half, page addresses in the other */
		uint64_t key = k & 1 ? 0xffff888100000000ULL + ((uint64_t)k << 12)
				     : (uint64_t)k * 0x9e3779b1ULL;
		uint64_t val = (uint64_t)i + 1;
		double u = gsl_rng_uniform(rng);
		/* the live set grows for the first half, then shrinks */
		double p_in = i < OPS / 2 ? 0.6 : 0.4;
		if (u < p_in / 2) {
			bool found = true;
			uint64_t *v = u64map_upsert(&m, key, &found);
			agree &= v && found == (model[k] != 0);
			if (v && found)
				agree &= *v == model[k];
			else if (v)
				zero_on_insert &= *v == 0;
			if (v)
				*v = val;
			present += !model[k];
			model[k] = val;
		} else if (u < p_in) {
			agree &= u64map_put(&m, key, val) == 0;
			present += !model[k];
			model[k] = val;
		} else if (u < 0.8) {
			uint64_t v = 0;
			bool had;
			if (i & 1) { /* as the replay deletes: the found slot itself */
				uint64_t *r = u64map_ref(&m, key);
				had = r != NULL;
				if (r) {
					v = *r;
					u64map_del_ref(&m, r);
				}
			} else {
				had = u64map_del(&m, key, &v);
			}
			agree &= had == (model[k] != 0) && (!had || v == model[k]);
			present -= model[k] != 0;
			model[k] = 0;
		} else {
			uint64_t v = 0;
			const uint64_t *r = u64map_ref(&m, key);
			bool had = u64map_get(&m, key, &v);
			agree &= had == (model[k] != 0) && (!had || v == model[k]) &&
				 (r != NULL) == had;
		}
		load_ok &= u64map_len(&m) == present && 2 * present <= m.cap;
		if (present > max_len)
			max_len = present;
	}
	CHECK("sparse map: 2000000 random operations agree with the array model", agree);
	CHECK("sparse map: upsert inserts with value 0", zero_on_insert);
	CHECK("sparse map: length follows the model, load stays at most 1/2", load_ok);
	CHECK("sparse map: the live set reached 100000 keys (the test is not trivial)",
	      max_len > 100000);
	size_t pos = 0, seen = 0;
	uint64_t key, val;
	bool iter_ok = true;
	while (u64map_next(&m, &pos, &key, &val)) {
		iter_ok &= val != 0 && val <= OPS;
		seen++;
	}
	CHECK_EQ_U64("sparse map: iteration yields every key once", seen, present);
	bool all_found = true;
	for (size_t k = 0; k < N; k++) {
		uint64_t kk = k & 1 ? 0xffff888100000000ULL + ((uint64_t)k << 12)
				    : (uint64_t)k * 0x9e3779b1ULL;
		uint64_t v = 0;
		all_found &=
			u64map_get(&m, kk, &v) == (model[k] != 0) && (!model[k] || v == model[k]);
	}
	CHECK("sparse map: every key of the model found with its value, no other",
	      all_found && iter_ok);
	u64map_fini(&m);

	/* the default map grows at 3/4: 48 entries fit 64 slots, the 49th doubles */
	struct u64map d;
	u64map_init(&d);
	for (uint64_t k = 0; k < 48; k++)
		(void)u64map_put(&d, k, k);
	CHECK_EQ_U64("default map: 48 keys in 64 slots", d.cap, 64);
	(void)u64map_put(&d, 48, 48);
	CHECK_EQ_U64("default map: the 49th key doubles it", d.cap, 128);
	u64map_fini(&d);
	/* the sparse one at 1/2: 32 fit 64 slots, the 33rd doubles */
	u64map_init_sparse(&d);
	for (uint64_t k = 0; k < 32; k++)
		(void)u64map_put(&d, k, k);
	CHECK_EQ_U64("sparse map: 32 keys in 64 slots", d.cap, 64);
	bool f = true;
	(void)u64map_upsert(&d, 32, &f);
	CHECK_EQ_U64("sparse map: the 33rd key doubles it", d.cap, 128);
	CHECK("sparse map: upsert of a new key says not found", !f);
	u64map_fini(&d);
	CHECK("fini keeps the map sparse", d.sparse && d.cap == 0);
	free(model);
	gsl_rng_free(rng);
}

int main(void)
{
	sparse_random();
	enum { N = 5000 };
	static uint64_t model[N]; /* 0 = absent, else value */
	struct u64map m;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 7);
	u64map_init(&m);
	bool agree = true;
	size_t present = 0;
	for (int i = 0; i < 200000; i++) {
		size_t k = gsl_rng_uniform_int(rng, N);
		/* keys that collide in the low bits, as page addresses do */
		uint64_t key = 0xffff888100000000ULL + ((uint64_t)k << 12);
		double u = gsl_rng_uniform(rng);
		if (u < 0.5) {
			if (!model[k])
				present++;
			model[k] = (uint64_t)i + 1;
			agree &= u64map_put(&m, key, model[k]) == 0;
		} else if (u < 0.8) {
			uint64_t v = 0;
			bool had = u64map_del(&m, key, &v);
			agree &= had == (model[k] != 0) && (!had || v == model[k]);
			if (model[k])
				present--;
			model[k] = 0;
		} else {
			uint64_t v = 0;
			bool had = u64map_get(&m, key, &v);
			agree &= had == (model[k] != 0) && (!had || v == model[k]);
		}
	}
	CHECK("200000 random operations agree with the array model", agree);
	CHECK_EQ_U64("length equals present keys", u64map_len(&m), present);
	size_t pos = 0, seen = 0;
	uint64_t key, val;
	bool iter_ok = true;
	while (u64map_next(&m, &pos, &key, &val)) {
		size_t k = (size_t)((key - 0xffff888100000000ULL) >> 12);
		iter_ok &= k < N && model[k] == val;
		seen++;
	}
	CHECK("iteration yields only present keys with their values", iter_ok);
	CHECK_EQ_U64("iteration yields every key once", seen, present);
	CHECK("get of 0 on empty map", !u64map_get(&(struct u64map){0}, 0, NULL));

	/* UINT64_MAX marks free slots inside the map; it is still a valid key */
	size_t before = u64map_len(&m);
	uint64_t v = 0;
	CHECK("UINT64_MAX absent at first", !u64map_get(&m, UINT64_MAX, NULL));
	CHECK("put UINT64_MAX", u64map_put(&m, UINT64_MAX, 42) == 0);
	CHECK("get UINT64_MAX", u64map_get(&m, UINT64_MAX, &v) && v == 42);
	CHECK_EQ_U64("UINT64_MAX counts once", u64map_len(&m), before + 1);
	pos = 0;
	seen = 0;
	bool last_is_max = false;
	while (u64map_next(&m, &pos, &key, &val)) {
		seen++;
		last_is_max = key == UINT64_MAX && val == 42;
	}
	CHECK_EQ_U64("iteration includes UINT64_MAX", seen, before + 1);
	CHECK("UINT64_MAX is iterated last", last_is_max);
	CHECK("del UINT64_MAX", u64map_del(&m, UINT64_MAX, &v) && v == 42);
	CHECK("UINT64_MAX gone", !u64map_get(&m, UINT64_MAX, NULL));
	CHECK_EQ_U64("length back", u64map_len(&m), before);
	u64map_fini(&m);
	gsl_rng_free(rng);
	return check_done();
}
