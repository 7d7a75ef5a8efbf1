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
		pushed &= evq_push(&q, items[i].t, 7, i) == 0;
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
	CHECK("empty afterwards", !evq_pop(&q, &it) && evq_peek(&q) == NULL);
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
	gsl_rng_free(rng);
	return check_done();
}
