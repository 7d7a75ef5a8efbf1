/* test_prefetch.c - the parser thread yields exactly what trace_next()
 * yields: every event field and string, the end, a strict-mode error at its
 * line, and the line counts. Traces longer than one block (4096 events) are
 * made by repeating the sample. */
#include "check.h"
#include "prefetch.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool ev_eq(const struct trace_event *a, const struct trace_event *b)
{
	return a->type == b->type && a->t_ns == b->t_ns && a->cpu == b->cpu && a->pid == b->pid &&
	       a->ptr == b->ptr && a->bytes_req == b->bytes_req &&
	       a->bytes_alloc == b->bytes_alloc && a->node == b->node &&
	       a->accounted == b->accounted && a->gfp == b->gfp && a->line == b->line &&
	       str_eq(a->call_site, b->call_site) && str_eq(a->name, b->name) &&
	       str_eq(a->text, b->text);
}

/* site_id: 1 + an id per distinct call-site string of one prefetch. */
struct site_ids {
	char *str[4096];
	uint32_t n;
};

static bool site_id_ok(struct site_ids *t, const struct trace_event *y)
{
	const char *cs = y->call_site ? y->call_site : "";
	uint32_t id = y->site_id;
	if (id == 0 || id > 4096)
		return false;
	if (id <= t->n)
		return strcmp(t->str[id - 1], cs) == 0; /* equal ids: equal strings */
	for (uint32_t i = 0; i < t->n; i++)
		if (strcmp(t->str[i], cs) == 0)
			return false; /* a string seen before got a new id */
	if (id != t->n + 1)
		return false; /* ids are handed out in order */
	t->str[t->n++] = strdup(cs);
	return true;
}

/* Compare both readers over path; returns the number of events, or -1. */
static long compare(const char *path, bool strict, int *end_rc, char *msg, size_t msgn)
{
	struct trace_opts o = {.strict = strict};
	struct trace_reader *a = NULL, *b = NULL;
	struct trace_prefetch *p = NULL;
	struct err e1, e2;
	long n = 0;
	err_clear(&e1);
	err_clear(&e2);
	if (trace_open(path, &o, &a, &e1) || trace_open(path, &o, &b, &e2) ||
	    trace_prefetch_open(b, &p, &e2))
		return -1;
	bool same = true;
	int r1, r2;
	struct site_ids ids = {.n = 0};
	for (;;) {
		struct trace_event x, y;
		r1 = trace_next(a, &x, &e1);
		r2 = trace_prefetch_next(p, &y, &e2);
		if (r1 != r2) {
			same = false;
			break;
		}
		if (r1 != 1)
			break;
		same &= ev_eq(&x, &y) && site_id_ok(&ids, &y);
		n++;
	}
	if (r1 < 0)
		same &= strcmp(e1.msg, e2.msg) == 0 && e1.code == e2.code;
	/* a second call after the end repeats the end */
	struct trace_event z;
	same &= trace_prefetch_next(p, &z, &e2) == r2;
	const struct trace_stats *s1 = trace_stats(a), *s2 = trace_prefetch_stats(p);
	if (r1 >= 0)
		same &= s1->lines == s2->lines && s1->malformed == s2->malformed &&
			memcmp(s1->events, s2->events, sizeof(s1->events)) == 0;
	*end_rc = r1;
	snprintf(msg, msgn, "%s", e2.msg);
	trace_prefetch_close(p);
	trace_close(a);
	trace_close(b);
	for (uint32_t i = 0; i < ids.n; i++)
		free(ids.str[i]);
	return same ? n : -1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_prefetch SAMPLE STRICT_TRACE\n");
		return 2;
	}
	char msg[512];
	int rc;
	long n = compare(argv[1], false, &rc, msg, sizeof(msg));
	CHECK_EQ_U64("sample: same 3000 events as trace_next", (uint64_t)n, 3000);
	CHECK("sample: ends with 0", rc == 0);

	/* 12 copies: 36000 events, nine blocks, the last one partial */
	char big[] = "/tmp/slabsim-prefetch-XXXXXX";
	int fd = mkstemp(big);
	FILE *in = fopen(argv[1], "r"), *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	CHECK("temporary trace", in && out);
	if (in && out) {
		char *buf = NULL;
		size_t cap = 0, len;
		(void)fseek(in, 0, SEEK_END);
		len = (size_t)ftell(in);
		rewind(in);
		buf = malloc(len);
		cap = buf ? fread(buf, 1, len, in) : 0;
		for (int i = 0; i < 12 && cap == len; i++)
			fwrite(buf, 1, len, out);
		free(buf);
		fclose(out);
		n = compare(big, false, &rc, msg, sizeof(msg));
		CHECK_EQ_U64("12 copies: same 36000 events", (uint64_t)n, 36000);
		CHECK("12 copies: ends with 0", rc == 0);
		remove(big);
	}
	if (in)
		fclose(in);

	n = compare(argv[2], true, &rc, msg, sizeof(msg));
	CHECK("strict: same events before the error", n >= 0);
	CHECK("strict: same error code", rc == SLABSIM_EINPUT);
	CHECK("strict: the error names line 3", strstr(msg, ":3:") != NULL);
	return check_done();
}
