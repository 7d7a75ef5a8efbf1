/* peekread.c - random access ahead for a trace file read as it comes
 * (peekread.h). */
#include "peekread.h"

#include <stdlib.h>
#include <string.h>

struct trace_peekread {
	struct trace_source head; /* read first, while in_head */
	bool in_head;
	struct trace_source in; /* what the replay reads */
	char *path;
	struct trace_opts opts;
	struct trace_reader *tr; /* the second read, from the first peek */
	uint64_t pos;		 /* stream index of the event tr gives next */
	bool failed;		 /* tr could not be opened or read on */
};

/* The head's events carry call-site ids of its own id space, not in's:
 * the engine reads their call-site strings instead. */
static int pr_next(void *ctx, struct trace_event *ev, struct err *e)
{
	struct trace_peekread *p = ctx;
	if (p->in_head) {
		int rc = p->head.next(p->head.ctx, ev, e);
		if (rc == 1)
			ev->site_id = 0;
		if (rc)
			return rc;
		p->in_head = false;
	}
	return p->in.next(p->in.ctx, ev, e);
}

static int pr_next_batch(void *ctx, struct trace_event *ev, uint32_t n, struct err *e)
{
	struct trace_peekread *p = ctx;
	if (p->in_head) {
		int rc = p->head.next_batch(p->head.ctx, ev, n, e);
		for (int i = 0; i < rc; i++)
			ev[i].site_id = 0;
		if (rc)
			return rc;
		p->in_head = false;
	}
	return p->in.next_batch(p->in.ctx, ev, n, e);
}

static int pr_borrow_batch(void *ctx, const struct trace_event **ev, uint32_t n, struct err *e)
{
	struct trace_peekread *p = ctx;
	return p->in.borrow_batch(p->in.ctx, ev, n, e);
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
	return p->in_head ? 0 : p->in.peek_ptrs(p->in.ctx, skip, n, ptrs);
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

static uint32_t pr_peek_at(void *ctx, uint64_t i, uint32_t n, struct trace_event *ev)
{
	struct trace_peekread *p = ctx;
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
	if (head) { /* an event array's source: it reads in batches */
		p->head = *head;
		p->in_head = true;
	}
	p->in = *in;
	p->opts = *opts;
	*src = *in;
	src->ctx = p;
	src->next = pr_next;
	src->next_batch = in->next_batch ? pr_next_batch : NULL;
	src->borrow_batch = in->borrow_batch && !head ? pr_borrow_batch : NULL;
	src->progress = in->progress ? pr_progress : NULL;
	src->stats = in->stats ? pr_stats : NULL;
	src->peek_ptrs = in->peek_ptrs ? pr_peek_ptrs : NULL;
	src->peek_at = pr_peek_at;
	*out = p;
	return 0;
}

void trace_peekread_close(struct trace_peekread *p)
{
	if (!p)
		return;
	trace_close(p->tr);
	free(p->path);
	free(p);
}
