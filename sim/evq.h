/* evq.h - the discrete-event queue: a binary min-heap keyed by (virtual time,
 * sequence number). The sequence number is the insertion order, so events at
 * the same instant come out first-in first-out and every run is
 * deterministic. Memory follows the number of pending events.
 */
#ifndef SLABSIM_EVQ_H
#define SLABSIM_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct evq_item {
	uint64_t t_ns; /* when */
	uint64_t seq;  /* tie-break: insertion order */
	uint32_t kind; /* what (the caller's enumeration) */
	uint64_t data; /* with what (the caller's payload) */
};

struct evq {
	struct evq_item *heap;
	size_t len, cap;
	uint64_t next_seq;
};

void evq_init(struct evq *q);
void evq_fini(struct evq *q);
/* Schedule (t_ns, kind, data). Returns 0 or SLABSIM_ENOMEM. */
int evq_push(struct evq *q, uint64_t t_ns, uint32_t kind, uint64_t data);
/* The earliest item, or NULL when empty. Valid until the next push/pop. */
const struct evq_item *evq_peek(const struct evq *q);
/* Remove the earliest item into *out; false when empty. */
bool evq_pop(struct evq *q, struct evq_item *out);
static inline size_t evq_len(const struct evq *q)
{
	return q->len;
}

#endif
