/* test_evq.c - the event queue pops in (time, insertion) order: compared
 * with a stable sort of the same GSL-generated items. */
#include "check.h"
#include "evq.h"

#include <gsl/gsl_rng.h>
#include <stdlib.h>

struct item {
	uint64_t t, idx;
};

static int cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int main(void)
{
	enum { N = 100000 };
	static struct item items[N];
	struct evq q;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 3);
	evq_init(&q);
	bool pushed = true;
	for (uint64_t i = 0; i < N; i++) {
		/* few distinct times, so ties are common */
		items[i].t = gsl_rng_uniform_int(rng, 1000);
		items[i].idx = i;
		pushed &= evq_push(&q, items[i].t, 7, (uint32_t)i) == 0;
	}
	CHECK("100000 pushes", pushed);
	CHECK_EQ_U64("length", evq_len(&q), N);
	qsort(items, N, sizeof(items[0]), cmp);
	bool order = true;
	struct evq_item it;
	for (size_t i = 0; i < N; i++) {
		if (!evq_pop(&q, &it) || it.t_ns != items[i].t || it.data != items[i].idx ||
		    it.kind != 7) {
			order = false;
			break;
		}
	}
	CHECK("pops follow (time, insertion order)", order);
	CHECK("empty afterwards", !evq_pop(&q, &it) && !evq_peek(&q, &it));
	/* interleaved push/pop keeps the order too */
	evq_push(&q, 5, 1, 1);
	evq_push(&q, 3, 1, 2);
	evq_pop(&q, &it);
	evq_push(&q, 4, 1, 3);
	evq_push(&q, 5, 1, 4);
	uint64_t got[3];
	for (int i = 0; i < 3; i++) {
		evq_pop(&q, &it);
		got[i] = it.data;
	}
	CHECK("first pop is the earliest", it.data == 4 && got[0] == 3 && got[1] == 1);
	evq_fini(&q);

	/* Millions pending: 4 M items over 64 distinct times (62 500 ties per
	 * instant), pushed in random time order; every pop must be at a time >=
	 * the previous one, and within one time the sequence numbers (and the
	 * payloads, which follow the push order modulo 2^20) must increase. */
	enum { M = 4000000 };
	evq_init(&q);
	bool ok = true;
	uint64_t count_at[64] = {0};
	for (uint32_t i = 0; i < M; i++) {
		uint64_t t = gsl_rng_uniform_int(rng, 64) * 1000;
		count_at[t / 1000]++;
		ok &= evq_push(&q, t, i & EVQ_KIND_MAX, i & EVQ_DATA_MAX) == 0;
	}
	CHECK("4 M pushes", ok);
	CHECK_EQ_U64("4 M pending", evq_len(&q), M);
	CHECK_EQ_U64("16 bytes per entry", sizeof(struct evq_ent), 16);
	/* growth by half: capacity is under 1.5 times the length */
	CHECK("capacity under 1.5 x length", evq_bytes(&q) <= (size_t)M * 16 * 3 / 2);
	uint64_t prev_t = 0, prev_seq = 0, n_at = 0, n = 0;
	bool sorted = true, fifo = true, counts = true, payload = true;
	while (evq_pop(&q, &it)) {
		if (n && it.t_ns < prev_t)
			sorted = false;
		if (n && it.t_ns == prev_t && it.seq <= prev_seq)
			fifo = false;
		if (n && it.t_ns != prev_t) {
			counts &= n_at == count_at[prev_t / 1000];
			n_at = 0;
		}
		payload &= it.kind == (it.seq & EVQ_KIND_MAX) && it.data == (it.seq & EVQ_DATA_MAX);
		prev_t = it.t_ns;
		prev_seq = it.seq;
		n_at++;
		n++;
	}
	counts &= n_at == count_at[prev_t / 1000];
	CHECK_EQ_U64("4 M pops", n, M);
	CHECK("times never decrease", sorted);
	CHECK("ties come out first-in first-out", fifo);
	CHECK("every instant keeps all its items", counts);
	CHECK("kind and payload come back with their item", payload);
	CHECK("kind above the limit refused", evq_push(&q, 1, EVQ_KIND_MAX + 1, 0) != 0);
	CHECK("payload above the limit refused", evq_push(&q, 1, 0, EVQ_DATA_MAX + 1) != 0);
	evq_fini(&q);
	gsl_rng_free(rng);
	return check_done();
}
