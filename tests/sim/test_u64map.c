/* test_u64map.c - the hash map against a plain array model, under a
 * GSL-driven random mix of puts, gets and deletes (backward-shift deletion
 * is where linear probing goes wrong). */
#include "check.h"
#include "u64map.h"

#include <gsl/gsl_rng.h>
#include <stdlib.h>

int main(void)
{
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
