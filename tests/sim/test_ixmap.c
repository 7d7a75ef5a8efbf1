/* test_ixmap.c - the record index against a plain array model, under a
 * GSL-driven random mix of finds, inserts and deletes (backward-shift
 * deletion and growth read the records' keys, which is where an index
 * that keeps no key goes wrong), with the records' array moving. */
#include "check.h"
#include "ixmap.h"

#include <gsl/gsl_rng.h>
#include <stdbool.h>
#include <stdlib.h>

/* the caller's record: the key, then something else */
struct rec {
	uint64_t other;
	uint64_t key;
};

enum { N = 1 << 17, OPS = 2000000 };

/* a record the map holds has other == ~key (a freed one: other == key) */
static bool rec_held(const char *key)
{
	const struct rec *r = (const struct rec *)(const void *)(key - offsetof(struct rec, key));
	return r->other == ~r->key;
}

/* by_record: the map is told which records it holds, and grows by
 * walking them in index order instead of its slots */
static struct ixmap_keys keys_of(const struct rec *r, uint32_t nrecs, bool by_record)
{
	return (struct ixmap_keys){(const char *)r + offsetof(struct rec, key), sizeof(*r),
				   by_record ? rec_held : NULL, by_record ? nrecs : 0};
}

/* key number k: hashed-pointer-like, page addresses, and the extremes
 * (0 and UINT64_MAX are ordinary keys here) */
static uint64_t key_of(size_t k)
{
	if (k == 0)
		return 0;
	if (k == 1)
		return UINT64_MAX;
	return k & 1 ? 0xffff888100000000ULL + ((uint64_t)k << 12) : (uint64_t)k * 0x9e3779b1ULL;
}

static void random_mix(bool by_record)
{
	/* model[k]: the record index of key k + 1, 0 = absent */
	uint32_t *model = calloc(N, sizeof(*model));
	uint32_t *free_ix = malloc(N * sizeof(*free_ix)); /* record indexes not in use */
	uint32_t nrecs = 0, nfree = 0, cap = 16;
	struct rec *recs = malloc(cap * sizeof(*recs));
	struct ixmap m;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 5);
	ixmap_init(&m);
	bool agree = model && free_ix && recs, load_ok = true;
	size_t present = 0, max_len = 0, moves = 0;
	for (int i = 0; agree && i < OPS; i++) {
		size_t k = gsl_rng_uniform_int(rng, N);
		uint64_t key = key_of(k);
		struct ixmap_keys ks = keys_of(recs, nrecs, by_record);
		size_t pos = 0;
		uint32_t ix = ixmap_find(&m, key, &ks, &pos);
		agree &= model[k] ? ix == model[k] - 1 : ix == IXMAP_NONE;
		/* the live set grows for the first half, then shrinks */
		double p_in = i < OPS / 2 ? 0.6 : 0.4;
		if (ix == IXMAP_NONE && gsl_rng_uniform(rng) < p_in) {
			if (nfree) {
				ix = free_ix[--nfree];
			} else {
				if (nrecs == cap) { /* the records move, as the pool does */
					cap *= 2;
					struct rec *n = realloc(recs, cap * sizeof(*n));
					if (!n) {
						agree = false;
						break;
					}
					moves += n != recs;
					recs = n;
				}
				ix = nrecs++;
			}
			/* not held until inserted, as the replay's live table */
			recs[ix] = (struct rec){.other = key, .key = key};
			ks = keys_of(recs, nrecs, by_record);
			agree &= ixmap_insert_at(&m, pos, ix, &ks) == 0;
			recs[ix].other = ~key;
			model[k] = ix + 1;
			present++;
		} else if (ix != IXMAP_NONE && gsl_rng_uniform(rng) >= p_in) {
			ixmap_del(&m, ix, &ks);
			recs[ix].key = 0x5555; /* the record is reused: its key goes */
			recs[ix].other = 0x5555;
			free_ix[nfree++] = ix;
			model[k] = 0;
			present--;
		}
		load_ok &= m.len == present && m.len <= m.limit && m.limit == m.cap / 2;
		if (m.len > max_len)
			max_len = m.len;
	}
	CHECK("ixmap agrees with an array model over 2 M random finds, inserts and deletes", agree);
	CHECK("ixmap: len counts the entries, load stays <= 1/2", load_ok);
	CHECK("ixmap: the mix filled and emptied a large map (> 50 000 entries, records moved)",
	      max_len > 50000 && moves > 0);
	/* every key the model holds is found; every other is not */
	struct ixmap_keys ks = keys_of(recs, nrecs, by_record);
	bool all = true;
	for (size_t k = 0; k < N; k++) {
		uint32_t ix = ixmap_find(&m, key_of(k), &ks, NULL);
		all &= model[k] ? ix == model[k] - 1 : ix == IXMAP_NONE;
	}
	CHECK("ixmap: a final pass over all keys agrees", all);
	/* the prefetch guess: a record in use, most often the key's own */
	size_t hits = 0, in_map = 0;
	bool sane = true;
	for (size_t k = 0; k < N; k++) {
		uint32_t g = ixmap_home_guess(&m, key_of(k));
		in_map += model[k] != 0;
		hits += model[k] && g == model[k] - 1;
		sane &= g == IXMAP_NONE || (g < nrecs && recs[g].key != 0x5555);
	}
	CHECK("ixmap_home_guess names records in use, the key's own for most keys",
	      sane && in_map > 1000 && hits * 10 > in_map * 6);
	ixmap_fini(&m);
	CHECK("ixmap: an empty map finds nothing",
	      ixmap_find(&m, 0, &ks, NULL) == IXMAP_NONE && m.cap == 0);
	free(recs);
	free(model);
	free(free_ix);
	gsl_rng_free(rng);
}

/* A map that grows from nothing to 2^20 slots (4 MiB) with records it is
 * told it holds: its slot array grows where it is, on the heap and then
 * in mappings of huge pages (sim/base/bigmem.h, from 1 MiB), and is
 * refilled from the records. A quarter of the records are not held (freed
 * ones, as a replay's pool has), and every tenth held one is deleted on
 * the way: every held key is found, at its record, and no other. */
static void grow_in_place(void)
{
	enum { NREC = 700000 };
	struct rec *recs = calloc(NREC, sizeof(*recs));
	struct ixmap m;
	ixmap_init(&m);
	bool ok = recs != NULL, found = true;
	uint32_t nrecs = 0;
	size_t held = 0;
	for (uint32_t i = 0; ok && i < NREC; i++) {
		uint64_t key = 0xffff888100000000ULL + ((uint64_t)i << 6);
		recs[i] = (struct rec){.other = key, .key = key};
		nrecs = i + 1;
		if (i % 4 == 3)
			continue; /* never inserted: not held */
		struct ixmap_keys ks = keys_of(recs, nrecs, true);
		size_t pos = 0;
		ok &= ixmap_find(&m, key, &ks, &pos) == IXMAP_NONE;
		ok &= ixmap_insert_at(&m, pos, i, &ks) == 0;
		recs[i].other = ~key;
		held++;
		if (i % 40 == 20) { /* delete an earlier held one */
			uint32_t d = i - 20;
			ixmap_del(&m, d, &ks);
			recs[d].other = recs[d].key;
			held--;
		}
	}
	struct ixmap_keys ks = keys_of(recs, nrecs, true);
	for (uint32_t i = 0; ok && i < nrecs; i++) {
		uint32_t ix = ixmap_find(&m, recs[i].key, &ks, NULL);
		found &= recs[i].other == ~recs[i].key ? ix == i : ix == IXMAP_NONE;
	}
	CHECK("ixmap grown in place to 2^20 slots finds every held record, and no other",
	      ok && found && m.len == held && m.cap == 1u << 20);
	ixmap_fini(&m);
	free(recs);
}

int main(void)
{
	random_mix(false);
	random_mix(true);
	grow_in_place();
	return check_done();
}
