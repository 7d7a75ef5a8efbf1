/* evq.c - binary heap ordered by (t_ns, seq); see evq.h. */
#include "evq.h"
#include "err.h"

#include <stdlib.h>

static bool before(const struct evq_item *a, const struct evq_item *b)
{
	return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->seq < b->seq);
}

void evq_init(struct evq *q)
{
	q->heap = NULL;
	q->len = q->cap = 0;
	q->next_seq = 0;
}

void evq_fini(struct evq *q)
{
	free(q->heap);
	evq_init(q);
}

int evq_push(struct evq *q, uint64_t t_ns, uint32_t kind, uint64_t data)
{
	if (q->len == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 64;
		struct evq_item *n = realloc(q->heap, ncap * sizeof(*n));
		if (!n)
			return SLABSIM_ENOMEM;
		q->heap = n;
		q->cap = ncap;
	}
	struct evq_item it = {.t_ns = t_ns, .seq = q->next_seq++, .kind = kind, .data = data};
	size_t i = q->len++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!before(&it, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = it;
	return 0;
}

const struct evq_item *evq_peek(const struct evq *q)
{
	return q->len ? &q->heap[0] : NULL;
}

bool evq_pop(struct evq *q, struct evq_item *out)
{
	if (!q->len)
		return false;
	*out = q->heap[0];
	struct evq_item last = q->heap[--q->len];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->len)
			break;
		if (c + 1 < q->len && before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->len)
		q->heap[i] = last;
	return true;
}
