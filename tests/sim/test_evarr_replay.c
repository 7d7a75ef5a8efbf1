/* test_evarr_replay.c - a replay from the parsed event array (traces/evarr,
 * whose events carry interned call-site ids, so the engine maps ids instead
 * of hashing strings) gives exactly the summary of a replay of the text
 * trace: the JSON summaries and perf kmem stat --caller tables are compared
 * byte for byte, for SLUB, SLAB and
 * SLOB, with and without the name pass, on every trace given. The text side
 * runs through the plain reader (no id space), so the two paths differ in
 * how call sites are looked up and nowhere else.
 *
 * A spilled array (evarr_spill_open, what `replay` builds during its name
 * pass) holds the same events as the loaded one, read back through its file
 * with a tiny write buffer so that every flush and page drop is exercised.
 *
 * Usage: test_evarr_replay TRACE...
 */
#include "check.h"
#include "evarr.h"
#include "policy.h"
#include "prefetch.h"
#include "sim.h"
#include "summary.h"
#include "trace.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct sim *make(const char *alloc, struct err *e)
{
	struct sim_opts so = {0};
	struct sim *s = NULL;
	so.ops = policy_find(alloc);
	policy_cfg_default(&so.cfg);
	so.cfg.kernel = POLICY_KERNEL_6_1;
	so.cfg.nr_cpus = 2;
	so.sample_every_events = 1000;
	so.sample_caches = true;
	if (!so.ops || sim_create(&so, &s, e))
		return NULL;
	return s;
}

/* The JSON summary and perf kmem stat's per-call-site table (which shows
 * whether call sites were told apart as the strings do). */
static void append(const struct sim *s, FILE *f, const char *path, const void *stats)
{
	struct sim_totals t;
	sim_totals(s, &t);
	summary_print(s, f, true, path, stats);
	(void)view_perf(sim_metrics(s), f, true, false, NULL, 0, -1, t.bytes_alloc_model_total);
}

/* The output of one replay (malloc'ed), or NULL on any error. */
static char *summary_text(const char *path, const char *alloc, bool names, uint32_t skip)
{
	struct err e;
	struct trace_reader *r = NULL;
	struct trace_opts lax = {.strict = false};
	struct trace_opts names_opts = {.strict = false, .skip_fields = skip};
	char *buf = NULL;
	size_t len = 0;
	err_clear(&e);
	struct sim *s = make(alloc, &e);
	if (!s)
		return NULL;
	int rc = 0;
	if (names) {
		rc = trace_open(path, &names_opts, &r, &e) || sim_learn_names(s, r, &e);
		trace_close(r);
		r = NULL;
	}
	if (!rc)
		rc = trace_open(path, &lax, &r, &e) || sim_replay(s, r, NULL, &e);
	FILE *f = open_memstream(&buf, &len);
	if (!rc && f)
		append(s, f, path, trace_stats(r));
	if (f)
		fclose(f);
	trace_close(r);
	sim_destroy(s);
	if (rc) {
		printf("# %s: %s\n", path, e.msg);
		free(buf);
		return NULL;
	}
	return buf;
}

static char *summary_evarr(const struct evarr *a, const char *alloc, bool names)
{
	struct err e;
	struct trace_source src;
	struct evarr_cursor cur;
	char *buf = NULL;
	size_t len = 0;
	err_clear(&e);
	struct sim *s = make(alloc, &e);
	if (!s)
		return NULL;
	int rc = 0;
	if (names) {
		evarr_source(&src, &cur, a);
		rc = sim_learn_names_source(s, &src, &e);
	}
	evarr_source(&src, &cur, a);
	if (!rc)
		rc = sim_replay_source(s, &src, NULL, &e);
	FILE *f = open_memstream(&buf, &len);
	if (!rc && f)
		append(s, f, evarr_path(a), evarr_stats(a));
	if (f)
		fclose(f);
	sim_destroy(s);
	if (rc) {
		printf("# %s: %s\n", evarr_path(a), e.msg);
		free(buf);
		return NULL;
	}
	return buf;
}

/* The look-ahead (trace_source.peek_ptrs) gives, at every position, the
 * pointers of the events next() returns later: checked against the
 * pointers of the text reader's events, for several skips and counts. */
static void check_peek(const struct evarr *a, const char *path, const char *base)
{
	struct trace_opts lax = {.strict = false};
	struct trace_reader *r = NULL;
	struct trace_event ev;
	struct err e;
	uint64_t *ptrs = NULL, n = 0, cap = 0;
	err_clear(&e);
	bool ok = trace_open(path, &lax, &r, &e) == 0;
	while (ok && trace_next(r, &ev, &e) == 1) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			uint64_t *p = realloc(ptrs, cap * sizeof(*p));
			if (!(ok = p != NULL))
				break;
			ptrs = p;
		}
		ptrs[n++] = ev.ptr;
	}
	trace_close(r);
	struct trace_source src;
	struct evarr_cursor cur;
	evarr_source(&src, &cur, a);
	ok &= src.peek_ptrs != NULL && n == evarr_len(a);
	static const uint32_t skips[] = {0, 1, 4}, counts[] = {1, 4, 7};
	for (uint64_t i = 0; ok; i++) {
		/* i events read: the next one is event i */
		for (size_t si = 0; si < 3; si++) {
			for (size_t ci = 0; ci < 3; ci++) {
				uint64_t buf[8] = {0};
				uint32_t got = src.peek_ptrs(src.ctx, skips[si], counts[ci], buf);
				uint64_t from = i + skips[si];
				uint64_t want = from >= n		? 0
						: n - from < counts[ci] ? n - from
									: counts[ci];
				ok &= got == want;
				for (uint32_t k = 0; ok && k < got; k++)
					ok &= buf[k] == ptrs[from + k];
			}
		}
		if (src.next(src.ctx, &ev, &e) != 1) {
			ok &= i == n;
			break;
		}
		ok &= ev.ptr == ptrs[i];
	}
	char name[256];
	(void)snprintf(name, sizeof(name),
		       "%s: the evarr look-ahead gives the pointers of the events to come "
		       "(%llu events)",
		       base, (unsigned long long)n);
	CHECK(name, ok && n > 0);
	free(ptrs);
}

static bool same_str(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

static bool same_event(const struct trace_event *x, const struct trace_event *y)
{
	return x->type == y->type && x->t_ns == y->t_ns && x->cpu == y->cpu && x->pid == y->pid &&
	       x->ptr == y->ptr && x->bytes_req == y->bytes_req &&
	       x->bytes_alloc == y->bytes_alloc && x->node == y->node &&
	       x->accounted == y->accounted && x->gfp == y->gfp &&
	       same_str(x->call_site, y->call_site) && same_str(x->name, y->name) &&
	       same_str(x->text, y->text) && x->line == y->line;
}

/* Build a spilled array from path, through the prefetch (events with
 * site_id) or the plain reader. NULL on error. */
static struct evarr *spill(const char *path, bool prefetch)
{
	struct trace_opts lax = {.strict = false};
	struct trace_reader *r = NULL;
	struct trace_prefetch *p = NULL;
	struct evarr *a = NULL;
	struct trace_source src;
	struct trace_event ev;
	struct err e;
	const char *dir = getenv("TMPDIR");
	err_clear(&e);
	int rc = trace_open(path, &lax, &r, &e) ||
		 evarr_spill_open(path, dir && *dir ? dir : "/tmp", 7, &a, &e);
	if (!rc && prefetch && !(rc = trace_prefetch_open(r, &p, &e)))
		trace_prefetch_as_source(&src, p, path);
	else if (!rc)
		trace_as_source(&src, r);
	while (!rc && (rc = src.next(src.ctx, &ev, &e)) == 1)
		rc = evarr_push(a, &ev, src.id_space, &e);
	trace_prefetch_close(p);
	if (!rc)
		rc = evarr_spill_finish(a, trace_stats(r), &e);
	trace_close(r);
	if (rc) {
		printf("# %s: %s\n", path, e.msg);
		evarr_free(a);
		return NULL;
	}
	return a;
}

/* Several readers of one spilled array at once, each reading on from
 * where it read (its window of 7 events, refilled as it goes; five
 * readers share four windows): the cursor's takes, its look-ahead
 * (peek_at 37 events ahead), its pointer peeks, and two evarr_get
 * readers, one sequential and one jumping back and forth. Every event
 * equals the loaded array's. */
static void check_readers(const struct evarr *a, const struct evarr *b, const char *base)
{
	struct trace_source src;
	struct evarr_cursor cur;
	struct trace_event x, y, ahead[3];
	const struct evarr_ev *taken;
	uint64_t n = evarr_len(a), at = 0, left, jump = 0, ptrs[4];
	uint32_t k, bad = 0, reads = 0;
	char name[256];
	int seq_reader, jump_reader;
	struct err e;
	err_clear(&e);
	evarr_source(&src, &cur, b);
	struct trace_event *tmpl = evarr_templates(b);
	while (tmpl && (k = evarr_cursor_take(&cur, 5, &taken, &left)) > 0) {
		bad += k > left;
		for (uint32_t j = 0; j < k; j++, at++) {
			/* the take's events first: another reader may take
			 * its window after 3 others have read */
			if (evarr_get(a, NULL, at, &x, &e) ||
			    !same_event(evarr_fill(tmpl, &taken[j]), &x))
				bad++;
			reads++;
		}
		uint32_t m = src.peek_at(src.ctx, at + 37, 3, ahead);
		for (uint32_t j = 0; j < m; j++, reads++)
			bad += evarr_get(a, NULL, at + 37 + j, &x, &e) ||
			       !same_event(&ahead[j], &x);
		bad += at + 37 < n && m == 0;
		m = src.peek_ptrs(src.ctx, 2, 4, ptrs);
		for (uint32_t j = 0; j < m; j++, reads++)
			bad += evarr_get(a, NULL, at + 2 + j, &x, &e) || ptrs[j] != x.ptr;
		if (at - 1 < n) {
			reads++;
			bad += evarr_get(b, &seq_reader, at - 1, &y, &e) ||
			       evarr_get(a, NULL, at - 1, &x, &e) || !same_event(&x, &y);
		}
		jump = (jump * 7919 + 13) % n;
		reads++;
		bad += evarr_get(b, &jump_reader, jump, &y, &e) ||
		       evarr_get(a, NULL, jump, &x, &e) || !same_event(&x, &y);
	}
	bad += evarr_cursor_error(&cur, &e) != 0;
	(void)snprintf(name, sizeof(name),
		       "%s: spilled, five readers at once (7-event windows): %u reads, all equal",
		       base, reads);
	CHECK_EQ_U64(name, bad + (tmpl == NULL) + (at != n), 0);
	free(tmpl);
}

/* The spill file of b, found among this process's descriptors (the
 * unlinked slabsim-spill-* that b alone holds open), or -1. */
static int spill_fd(void)
{
	for (int fd = 3; fd < 1024; fd++) {
		char link[64], target[512];
		(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strstr(target, "slabsim-spill-") && strstr(target, "(deleted)"))
			return fd;
	}
	return -1;
}

/* A spilled array whose file lost its events (cut to half behind the
 * reader's back): the cursor stops where the file ends and says why,
 * evarr_get fails with the same message, and no event read before it is
 * wrong. */
static void check_lost_spill(const struct evarr *a, const char *path, const char *base)
{
	struct evarr *b = spill(path, false);
	struct trace_source src;
	struct evarr_cursor cur;
	const struct evarr_ev *x;
	struct trace_event y, z;
	uint64_t left, got = 0, half = evarr_len(a) / 2;
	uint32_t k, bad = 0;
	char name[256];
	struct err e;
	err_clear(&e);
	if (access("/proc/self/fd", R_OK) != 0) {
		CHECK("a spill file cut short: # SKIP no /proc/self/fd to find it by", 1);
		evarr_free(b);
		return;
	}
	int fd = b ? spill_fd() : -1;
	if (!CHECK("a spilled array's file is found", fd >= 0 && half > 7)) {
		evarr_free(b);
		return;
	}
	/* half the events' bytes, rounded down to a window (7 events) */
	if (ftruncate(fd, (off_t)(half - half % 7) * (off_t)sizeof(struct evarr_ev)) != 0) {
		CHECK("truncate the spill file", 0);
		evarr_free(b);
		return;
	}
	evarr_source(&src, &cur, b);
	struct trace_event *tmpl = evarr_templates(b);
	while (tmpl && (k = evarr_cursor_take(&cur, 5, &x, &left)) > 0)
		for (uint32_t j = 0; j < k; j++, got++)
			bad += evarr_get(a, NULL, got, &z, &e) ||
			       !same_event(evarr_fill(tmpl, &x[j]), &z);
	int rc = evarr_cursor_error(&cur, &e);
	uint64_t cut = half - half % 7;
	(void)snprintf(name, sizeof(name),
		       "%s: a spill file cut to %llu events: the replay reads at most those "
		       "(less a window), all right, then an I/O error",
		       base, (unsigned long long)cut);
	CHECK(name, rc == SLABSIM_EIO && got <= cut && got + 7 >= cut && bad == 0);
	if (rc != SLABSIM_EIO || got > cut || got + 7 < cut || bad)
		printf("#   rc %d, %llu events read, %u wrong\n", rc, (unsigned long long)got, bad);
	CHECK("... and says so: 'cannot read the parsed events back'",
	      strstr(e.msg, "cannot read the parsed events back") != NULL);
	err_clear(&e);
	rc = evarr_get(b, &half, evarr_len(b) - 1, &y, &e);
	CHECK_EQ_U64("... and evarr_get of its last event fails the same way", (uint64_t)rc,
		     (uint64_t)SLABSIM_EIO);
	free(tmpl);
	evarr_free(b);
}

static void check_spill(const struct evarr *a, const char *path, const char *base)
{
	for (int prefetch = 0; prefetch <= 1; prefetch++) {
		struct evarr *b = spill(path, prefetch);
		const char *how = prefetch ? "through the prefetch" : "through the reader";
		char name[256];
		bool ok = b && evarr_len(b) == evarr_len(a) && evarr_len(a) > 0 &&
			  memcmp(evarr_stats(a), evarr_stats(b), sizeof(struct trace_stats)) == 0;
		struct trace_source src;
		struct evarr_cursor cur;
		struct trace_event x, y;
		struct err e;
		err_clear(&e);
		if (ok)
			evarr_source(&src, &cur, b);
		/* read through the cursor: it gives pages back as it goes */
		for (uint64_t i = 0; ok && i < evarr_len(a); i++) {
			ok = evarr_get(a, NULL, i, &x, &e) == 0 && src.next(src.ctx, &y, &e) == 1 &&
			     same_event(&x, &y);
			if (!ok)
				printf("# event %llu differs\n", (unsigned long long)i);
		}
		ok = ok && src.next(src.ctx, &y, &e) == 0;
		(void)snprintf(name, sizeof(name),
			       "%s: spilled %s (7-event writes): same %llu events and line counts",
			       base, how, (unsigned long long)evarr_len(a));
		CHECK(name, ok);
		if (ok && !prefetch)
			check_readers(a, b, base);
		if (b && prefetch) {
			char *t = summary_text(path, "slub", true, 0);
			char *v = summary_evarr(b, "slub", true);
			(void)snprintf(name, sizeof(name),
				       "%s: replay from the spilled array = the text replay", base);
			CHECK(name, t && v && strstr(t, "\"live_objects\"") && strcmp(t, v) == 0);
			free(t);
			free(v);
		}
		evarr_free(b);
	}
}

int main(int argc, char **argv)
{
	static const char *const allocs[] = {"slub", "slab", "slob"};
	for (int i = 1; i < argc; i++) {
		struct evarr *a = NULL;
		struct err e;
		err_clear(&e);
		if (!CHECK("evarr loads the trace", evarr_load(argv[i], &a, &e) == 0)) {
			printf("# %s\n", e.msg);
			continue;
		}
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		check_peek(a, argv[i], base);
		check_spill(a, argv[i], base);
		if (i == 1)
			check_lost_spill(a, argv[i], base);
		for (size_t k = 0; k < sizeof(allocs) / sizeof(allocs[0]); k++) {
			for (int names = 1; names >= 0; names--) {
				char name[256];
				char *t = summary_text(argv[i], allocs[k], names, 0);
				char *v = summary_evarr(a, allocs[k], names);
				(void)snprintf(name, sizeof(name),
					       "%s %s%s: evarr summary JSON and --caller table "
					       "equal the text replay's",
					       base, allocs[k], names ? "" : " (no name pass)");
				/* a real summary, not two empty strings */
				int ok = t && v && strstr(t, "\"live_objects\"") &&
					 strcmp(t, v) == 0;
				CHECK(name, ok);
				if (!ok && t && v)
					printf("# text %zu bytes, evarr %zu bytes\n", strlen(t),
					       strlen(v));
				free(t);
				free(v);
			}
			/* the CLI's name pass leaves kmalloc fields unparsed
			 * (trace_opts.skip_fields): the same names are learned */
			char name[256];
			char *t = summary_text(argv[i], allocs[k], true, 0);
			char *u = summary_text(argv[i], allocs[k], true,
					       (1u << TRACE_EV_KMALLOC) |
						       (1u << TRACE_EV_KMALLOC_NODE));
			(void)snprintf(name, sizeof(name),
				       "%s %s: name pass skipping kmalloc fields, same output",
				       base, allocs[k]);
			CHECK(name, t && u && strstr(t, "\"live_objects\"") && strcmp(t, u) == 0);
			free(t);
			free(u);
		}
		evarr_free(a);
	}
	return check_done();
}
