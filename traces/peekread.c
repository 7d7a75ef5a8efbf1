/* peekread.c - random access ahead for a trace file read as it comes
 * (peekread.h). */
#include "peekread.h"

#include "bigmem.h"

#include <stdlib.h>
#include <string.h>

#include "trace.h"

enum {
	/* events the queue keeps behind the replay's read position: a peek
	 * is never further behind than the replay's batch (64 events) */
	KEEP_BEHIND = 4096,
	/* the queue's most events for peeks (27 MiB of events); a peek
	 * beyond them reads the second reader */
	QUEUE_MAX = 1u << 18,
	/* events taken from in at a time */
	FILL_BATCH = 256,
	/* the head's events lent at a time (pr_borrow_batch) */
	HEAD_BATCH = 64,
};

struct trace_peekread {
	struct trace_source head; /* read first, while in_head */
	bool in_head;
	uint64_t hlen;		/* head's events: in's first is stream index hlen */
	struct trace_source in; /* what the replay reads */
	char *path;
	struct trace_opts opts;
	/* The second read (from the first peek the queue cannot serve) */
	struct trace_reader *tr;
	uint64_t pos; /* stream index of the event tr gives next */
	bool failed;  /* tr could not be opened or read on */
	/* The queue: in's events [qlo, qhi) in its own numbering, in a ring
	 * of qcap (a power of two, or 0) slots, when in's strings stay put
	 * (stable_strings); rd is the next one the replay gets. A marker's
	 * text is copied into qtext (in's copy lasts one batch). */
	bool queue;
	struct trace_event *q;
	char **qtext;
	uint64_t qcap, qlo, qhi, rd;
	uint64_t qmax; /* QUEUE_MAX, or SLABSIM_PEEK_QUEUE for the tests */
	/* the ring the replay's borrowed batch lies in (pr_borrow_batch),
	 * and that ring once a peek grew the queue out of it: kept until the
	 * replay's next call */
	const struct trace_event *lent;
	struct trace_event *stale;
	uint64_t stale_cap;
	struct trace_event hbuf[HEAD_BATCH]; /* the head's lent events */
	/* in ended (in_rc 0) or failed (in_rc < 0, in_err) while the queue
	 * read ahead: the replay meets it after the queued events */
	bool in_end;
	int in_rc;
	struct err in_err;
};

/* The ring a peek grew the queue out of goes. */
static void q_release_stale(struct trace_peekread *p)
{
	bigmem_free(p->stale, p->stale_cap * sizeof(*p->stale));
	p->stale = NULL;
}

/* Room for the queue to hold need events. false: out of memory, or more
 * than max. */
static bool q_room(struct trace_peekread *p, uint64_t need, uint64_t max)
{
	if (need > max)
		return false;
	if (need <= p->qcap)
		return true;
	uint64_t cap = p->qcap ? p->qcap : 1024;
	while (cap < need)
		cap *= 2;
	/* in huge pages (bigmem.h): the queue of a perf.data read once grows
	 * to 2^18 events, 27 MiB, and its first touches in 4 KiB pages were
	 * 7 % of the replay's CPU in this project's virtual machine */
	struct trace_event *q = bigmem_resize(NULL, 0, cap * sizeof(*q));
	char **t = bigmem_resize(NULL, 0, cap * sizeof(*t));
	if (!q || !t) {
		bigmem_free(q, cap * sizeof(*q));
		bigmem_free(t, cap * sizeof(*t));
		return false;
	}
	for (uint64_t j = p->qlo; j < p->qhi; j++) { /* unwrapped to the new ring */
		q[j & (cap - 1)] = p->q[j & (p->qcap - 1)];
		t[j & (cap - 1)] = p->qtext[j & (p->qcap - 1)];
	}
	for (uint64_t j = 0; j < p->qcap; j++) { /* the texts of slots no longer held */
		bool held = ((j - p->qlo) & (p->qcap - 1)) < p->qhi - p->qlo;
		if (!held)
			free(p->qtext[j]);
	}
	if (p->q && p->q == p->lent) { /* the replay still reads its batch there */
		q_release_stale(p);
		p->stale = p->q;
		p->stale_cap = p->qcap;
	} else {
		bigmem_free(p->q, p->qcap * sizeof(*p->q));
	}
	bigmem_free(p->qtext, p->qcap * sizeof(*p->qtext));
	p->q = q;
	p->qtext = t;
	p->qcap = cap;
	return true;
}

/* Read in's events until the queue holds index upto - 1 (or in ends),
 * in a queue of at most max events. false: it cannot grow that far. */
static bool q_fill(struct trace_peekread *p, uint64_t upto, uint64_t max)
{
	/* what lies further behind than any peek is given up */
	if (p->rd > p->qlo + KEEP_BEHIND)
		p->qlo = p->rd - KEEP_BEHIND;
	while (p->qhi < upto && !p->in_end) {
		uint64_t want = upto - p->qhi < FILL_BATCH ? FILL_BATCH : upto - p->qhi;
		if (!q_room(p, p->qhi + want - p->qlo, max))
			return false;
		uint64_t at = p->qhi & (p->qcap - 1);
		uint64_t room = p->qcap - at; /* to the ring's end */
		uint32_t n = (uint32_t)(want < room ? want : room);
		struct trace_event *ev = &p->q[at];
		int rc = p->in.next_batch ? p->in.next_batch(p->in.ctx, ev, n, &p->in_err)
					  : p->in.next(p->in.ctx, ev, &p->in_err);
		if (rc <= 0) {
			p->in_end = true;
			p->in_rc = rc;
			break;
		}
		for (int i = 0; i < rc; i++) {
			char **t = &p->qtext[at + (uint64_t)i];
			if (*t) { /* a marker's, earlier in this slot */
				free(*t);
				*t = NULL;
			}
			if (ev[i].text && !(*t = strdup(ev[i].text))) {
				/* out of memory: the event goes as a failure */
				err_set(&p->in_err, SLABSIM_ENOMEM, "out of memory");
				p->in_end = true;
				p->in_rc = SLABSIM_ENOMEM;
				return true;
			}
			if (*t)
				ev[i].text = *t;
		}
		p->qhi += (uint64_t)rc;
	}
	return true;
}

/* The head's events carry call-site ids of its own id space, not in's:
 * the engine reads their call-site strings instead. */
static int head_next_batch(struct trace_peekread *p, struct trace_event *ev, uint32_t n,
			   struct err *e)
{
	int rc = p->head.next_batch ? p->head.next_batch(p->head.ctx, ev, n, e)
				    : p->head.next(p->head.ctx, ev, e);
	for (int i = 0; i < rc; i++)
		ev[i].site_id = 0;
	if (!rc)
		p->in_head = false;
	return rc;
}

/* The replay's last batch is done with: a ring a peek grew the queue out
 * of while the replay read it in place goes. */
static void q_release(struct trace_peekread *p)
{
	q_release_stale(p);
	p->lent = NULL;
}

/* The queue holds the replay's next event (1), or in ended there: 0, or
 * its error (e set). */
static int q_ready(struct trace_peekread *p, struct err *e)
{
	if (p->rd == p->qhi && !q_fill(p, p->rd + 1, UINT64_MAX))
		return err_set(e, SLABSIM_ENOMEM, "out of memory"); /* no room for a batch */
	if (p->rd < p->qhi)
		return 1;
	if (p->in_rc < 0 && e)
		*e = p->in_err;
	return p->in_rc;
}

/* Up to n of in's events from the queue, copied. */
static int q_take(struct trace_peekread *p, struct trace_event *ev, uint32_t n, struct err *e)
{
	q_release(p);
	int rc = q_ready(p, e);
	if (rc <= 0)
		return rc;
	uint64_t k = p->qhi - p->rd < n ? p->qhi - p->rd : n;
	uint64_t at = p->rd & (p->qcap - 1), first = p->qcap - at < k ? p->qcap - at : k;
	memcpy(ev, &p->q[at], first * sizeof(*ev)); /* to the ring's end, then from its start */
	memcpy(ev + first, p->q, (k - first) * sizeof(*ev));
	p->rd += k;
	return (int)k;
}

static int pr_next(void *ctx, struct trace_event *ev, struct err *e)
{
	struct trace_peekread *p = ctx;
	if (p->in_head) {
		int rc = head_next_batch(p, ev, 1, e);
		if (rc)
			return rc;
	}
	return p->queue ? q_take(p, ev, 1, e) : p->in.next(p->in.ctx, ev, e);
}

static int pr_next_batch(void *ctx, struct trace_event *ev, uint32_t n, struct err *e)
{
	struct trace_peekread *p = ctx;
	if (p->in_head) {
		int rc = head_next_batch(p, ev, n, e);
		if (rc)
			return rc;
	}
	return p->queue ? q_take(p, ev, n, e) : p->in.next_batch(p->in.ctx, ev, n, e);
}

static int pr_borrow_batch(void *ctx, const struct trace_event **ev, uint32_t n, struct err *e)
{
	struct trace_peekread *p = ctx;
	if (!p->queue)
		return p->in.borrow_batch(p->in.ctx, ev, n, e);
	q_release(p);
	if (p->in_head) {
		/* the head's events lose their call-site ids: copied */
		int rc = head_next_batch(p, p->hbuf, n < HEAD_BATCH ? n : HEAD_BATCH, e);
		*ev = p->hbuf;
		if (rc)
			return rc;
	}
	int rc = q_ready(p, e);
	if (rc <= 0)
		return rc;
	/* in place, to the ring's end: a peek that grows the queue leaves
	 * this ring as it is until the next call (stale) */
	uint64_t at = p->rd & (p->qcap - 1), k = p->qhi - p->rd;
	if (k > p->qcap - at)
		k = p->qcap - at;
	if (k > n)
		k = n;
	*ev = &p->q[at];
	p->lent = p->q;
	p->rd += k;
	return (int)k;
}

static void pr_progress(void *ctx, uint64_t *done, uint64_t *total)
{
	struct trace_peekread *p = ctx;
	p->in.progress(p->in.ctx, done, total);
}

static const struct trace_stats *pr_stats(void *ctx)
{
	struct trace_peekread *p = ctx;
	return p->in.stats(p->in.ctx);
}

static uint32_t pr_peek_ptrs(void *ctx, uint32_t skip, uint32_t n, uint64_t *ptrs)
{
	struct trace_peekread *p = ctx;
	if (p->in_head)
		return 0;
	if (!p->queue)
		return p->in.peek_ptrs(p->in.ctx, skip, n, ptrs);
	/* the queued events first, then in's next ones (a hint: any will do) */
	uint32_t k = 0;
	for (uint64_t j = p->rd + skip; k < n && j < p->qhi; j++)
		ptrs[k++] = p->q[j & (p->qcap - 1)].ptr;
	if (k < n && !p->in_end && p->in.peek_ptrs) {
		uint64_t from = p->rd + skip + k - p->qhi;
		k += p->in.peek_ptrs(p->in.ctx, from > UINT32_MAX ? UINT32_MAX : (uint32_t)from,
				     n - k, ptrs + k);
	}
	return k;
}

/* The second read at stream index i: opened again when i lies behind it
 * (the look-ahead only moves on, so that is never done twice). */
static bool seek(struct trace_peekread *p, uint64_t i)
{
	struct trace_event ev;
	struct err e;
	if (p->tr && i < p->pos) {
		trace_close(p->tr);
		p->tr = NULL;
	}
	if (!p->tr) {
		p->pos = 0;
		if (trace_open(p->path, &p->opts, &p->tr, &e)) {
			p->tr = NULL;
			return false;
		}
	}
	for (; p->pos < i; p->pos++)
		if (trace_next(p->tr, &ev, &e) != 1)
			return false;
	return true;
}

/* Events i.. of the stream from the second read. */
static uint32_t reread_at(struct trace_peekread *p, uint64_t i, uint32_t n, struct trace_event *ev)
{
	struct err e;
	uint32_t k = 0;
	if (p->failed)
		return 0;
	if (!seek(p, i)) {
		p->failed = true;
		return 0;
	}
	for (; k < n; k++) {
		int rc = trace_next(p->tr, &ev[k], &e);
		if (rc != 1) {
			p->failed = rc < 0;
			break;
		}
		p->pos++;
	}
	return k;
}

static uint32_t pr_peek_at(void *ctx, uint64_t i, uint32_t n, struct trace_event *ev)
{
	struct trace_peekread *p = ctx;
	if (!p->queue)
		return reread_at(p, i, n, ev);
	uint32_t k = 0;
	if (i < p->hlen) { /* the head's, from its array */
		k = p->head.peek_at(p->head.ctx, i, n, ev);
		for (uint32_t x = 0; x < k; x++)
			ev[x].site_id = 0;
		if (k == n || i + k < p->hlen)
			return k;
	}
	uint64_t j = i + k - p->hlen; /* in in's numbering */
	if (j < p->qlo || !q_fill(p, j + (n - k), p->qmax))
		return k + reread_at(p, i + k, n - k, ev + k);
	for (; k < n && j < p->qhi; k++, j++)
		ev[k] = p->q[j & (p->qcap - 1)];
	return k;
}

int trace_peekread_open(const struct trace_source *head, const struct trace_source *in,
			const char *path, const struct trace_opts *opts,
			struct trace_peekread **out, struct trace_source *src, struct err *e)
{
	struct trace_peekread *p = calloc(1, sizeof(*p));
	if (!p || !(p->path = strdup(path))) {
		free(p);
		*out = NULL;
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	/* the queue keeps in's events past the batch they came in: only
	 * strings that stay put may be kept; a head answers peeks from its
	 * array when it can say how long it is */
	p->queue = in->stable_strings && (in->next_batch || in->next) &&
		   (!head || (head->peek_at && head->progress));
	/* SLABSIM_PEEK_QUEUE: a smaller queue, for the tests of the second
	 * read beyond it (tests/cli/readahead.sh) */
	const char *qm = getenv("SLABSIM_PEEK_QUEUE");
	p->qmax = qm && strtoull(qm, NULL, 10) ? strtoull(qm, NULL, 10) : QUEUE_MAX;
	if (head) { /* an event array's source: it reads in batches */
		p->head = *head;
		p->in_head = true;
		if (p->queue) {
			uint64_t done;
			head->progress(head->ctx, &done, &p->hlen);
		}
	}
	p->in = *in;
	p->opts = *opts;
	*src = *in;
	src->ctx = p;
	src->next = pr_next;
	src->next_batch = in->next_batch || p->queue ? pr_next_batch : NULL;
	src->borrow_batch = p->queue || (in->borrow_batch && !head) ? pr_borrow_batch : NULL;
	src->progress = in->progress ? pr_progress : NULL;
	src->stats = in->stats ? pr_stats : NULL;
	src->peek_ptrs = in->peek_ptrs || p->queue ? pr_peek_ptrs : NULL;
	src->peek_at = pr_peek_at;
	*out = p;
	return 0;
}

void trace_peekread_close(struct trace_peekread *p)
{
	if (!p)
		return;
	trace_close(p->tr);
	for (uint64_t j = 0; j < p->qcap; j++)
		free(p->qtext[j]);
	q_release_stale(p);
	bigmem_free(p->q, p->qcap * sizeof(*p->q));
	bigmem_free(p->qtext, p->qcap * sizeof(*p->qtext));
	free(p->path);
	free(p);
}
