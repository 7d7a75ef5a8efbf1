/* evq.c - binary heap ordered by (t_ns, seq); see evq.h. */
#include "evq.h"
#include "err.h"

#include <stdlib.h>

static inline bool before(const struct evq_ent *a, const struct evq_ent *b)
{
	return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->key < b->key);
}

static void unpack(const struct evq_ent *en, struct evq_item *out)
{
	out->t_ns = en->t_ns;
	out->seq = en->key >> (EVQ_KIND_BITS + EVQ_DATA_BITS);
	out->kind = (uint32_t)(en->key >> EVQ_DATA_BITS) & EVQ_KIND_MAX;
	out->data = (uint32_t)en->key & EVQ_DATA_MAX;
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

int evq_push(struct evq *q, uint64_t t_ns, uint32_t kind, uint32_t data)
{
	if (kind > EVQ_KIND_MAX || data > EVQ_DATA_MAX)
		return SLABSIM_EUSAGE;
	if (q->next_seq > EVQ_SEQ_MAX)
		return SLABSIM_ENOMEM;
	if (q->len == q->cap) {
		/* grow by half: less slack than doubling at tens of millions */
		size_t ncap = q->cap ? q->cap + q->cap / 2 : 64;
		struct evq_ent *n = realloc(q->heap, ncap * sizeof(*n));
		if (!n)
			return SLABSIM_ENOMEM;
		q->heap = n;
		q->cap = ncap;
	}
	struct evq_ent it = {
		.t_ns = t_ns,
		.key = q->next_seq++ << (EVQ_KIND_BITS + EVQ_DATA_BITS) |
		       (uint64_t)kind << EVQ_DATA_BITS | data,
	};
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

bool evq_peek(const struct evq *q, struct evq_item *out)
{
	if (!q->len)
		return false;
	unpack(&q->heap[0], out);
	return true;
}

bool evq_pop(struct evq *q, struct evq_item *out)
{
	if (!q->len)
		return false;
	unpack(&q->heap[0], out);
	struct evq_ent last = q->heap[--q->len];
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
