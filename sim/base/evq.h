/* evq.h - the discrete-event queue: a binary min-heap keyed by (virtual time,
 * sequence number). The sequence number is the insertion order, so events at
 * the same instant come out first-in first-out and every run is
 * deterministic. Memory follows the number of pending events: 16 bytes each
 * (the time, and the sequence number, kind and payload packed in one word),
 * so tens of millions of pending frees fit in a few hundred MiB.
 */
#ifndef SLABSIM_EVQ_H
#define SLABSIM_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits of the packed word: seq (40 bits) | kind (4 bits) | data (20 bits). */
#define EVQ_SEQ_BITS  40
#define EVQ_KIND_BITS 4
#define EVQ_DATA_BITS 20
#define EVQ_KIND_MAX  ((1u << EVQ_KIND_BITS) - 1)
#define EVQ_DATA_MAX  ((1u << EVQ_DATA_BITS) - 1)
#define EVQ_SEQ_MAX   ((UINT64_C(1) << EVQ_SEQ_BITS) - 1)

/* An event as pushed and popped. */
struct evq_item {
	uint64_t t_ns; /* when */
	uint64_t seq;  /* tie-break: insertion order (0, 1, 2, ...) */
	uint32_t kind; /* what (the caller's enumeration, <= EVQ_KIND_MAX) */
	uint32_t data; /* with what (the caller's payload, <= EVQ_DATA_MAX) */
};

struct evq_ent {
	uint64_t t_ns;
	uint64_t key; /* seq << 24 | kind << 20 | data: orders like seq */
};

struct evq {
	struct evq_ent *heap;
	size_t len, cap;
	uint64_t next_seq;
};

void evq_init(struct evq *q);
void evq_fini(struct evq *q);
/* Schedule (t_ns, kind, data). Returns 0, SLABSIM_EUSAGE if kind or data is
 * out of range, or SLABSIM_ENOMEM (also after 2^40 pushes). */
int evq_push(struct evq *q, uint64_t t_ns, uint32_t kind, uint32_t data);
/* The earliest item into *out without removing it; false when empty. */
bool evq_peek(const struct evq *q, struct evq_item *out);
/* Remove the earliest item into *out; false when empty. */
bool evq_pop(struct evq *q, struct evq_item *out);
static inline size_t evq_len(const struct evq *q)
{
	return q->len;
}
/* The sequence number the next push will get (callers use it as an id). */
static inline uint64_t evq_next_seq(const struct evq *q)
{
	return q->next_seq;
}
/* Bytes the queue holds (the heap's capacity). */
static inline size_t evq_bytes(const struct evq *q)
{
	return q->cap * sizeof(struct evq_ent);
}

#endif
