/* test_fastpath.c - the reader's fast path against its general parser.
 *
 * Usage: test_fastpath <boot-excerpt.trace> <file or dir>...
 * trace_next() parses the common line layouts with a fast path and falls
 * back to the general parser (the specification) on anything else. Every line
 * of every trace given (a directory: its *.trace files and its capture
 * subdirectories' trace.txt[.gz|.xz|.zst]) goes through both
 * (trace_parse_line_test) and must give the same return code, line kind, lost
 * count, every trace_event field (strings by text and by offset in the
 * line), error message, and the same bytes left in the line buffer; the same
 * holds for mechanically perturbed variants of a sample of those lines
 * (truncated at each byte, a byte replaced, its high bit flipped or a NUL
 * put in at each byte, tokens dropped, duplicated and swapped, blanks and
 * tabs added, numbers changed or made to overflow, other field values and
 * event names). Each file
 * and its perturbed variants are also read through trace_open()/trace_next()
 * and must give the events and counters that the general parser gives line
 * by line. The fast path must take every event line of the bundled tracefs
 * sample (3000, counted with grep in test_trace.c), and N event lines of each
 * FILE given as "--fast FILE N" (every slab event line of the 6.18 layouts:
 * trace-cmd report's and perf script's).
 */
#define _DEFAULT_SOURCE /* realpath */
#include "check.h"
#include "trace.h"
#include "trace_files.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINE_MAX_TEST 4096 /* longer lines are only read, not perturbed */
#define SAMPLE_LINES  120  /* lines per file whose variants are tried */
#define MAX_FAILS     8	   /* mismatches printed per file */

/* ---- Lines of a file ------------------------------------------------------ */

struct lines {
	char **v;
	size_t *len;
	size_t n, cap;
};

static void lines_add(struct lines *l, const char *s, size_t n)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		l->len = realloc(l->len, l->cap * sizeof(*l->len));
		if (!l->v || !l->len)
			abort();
	}
	l->v[l->n] = malloc(n + 1);
	if (!l->v[l->n])
		abort();
	memcpy(l->v[l->n], s, n);
	l->v[l->n][n] = '\0';
	l->len[l->n++] = n;
}

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->len);
	memset(l, 0, sizeof(*l));
}

/* The raw lines of path (split at '\n' only, NUL bytes kept), decompressed
 * with the same programs the reader uses. */
static bool read_lines(const char *path, struct lines *l)
{
	const char *prog = trace_decompressor_for(path);
	char cmd[4200];
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int c;

	if (prog) {
		size_t k = (size_t)snprintf(cmd, sizeof(cmd), "%s -dc -- '", prog);
		k = trace_files_quote(cmd, k, sizeof(cmd), path);
		memcpy(cmd + k, "'", 2);
		f = popen(cmd, "r");
	} else {
		f = fopen(path, "rb");
	}
	if (!f)
		return false;
	for (;;) {
		c = getc(f);
		if (c == EOF || c == '\n') {
			if (c == '\n' || n)
				lines_add(l, buf ? buf : "", n);
			n = 0;
			if (c == EOF)
				break;
			continue;
		}
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		buf[n++] = (char)c;
	}
	free(buf);
	return (prog ? pclose(f) : fclose(f)) == 0;
}

/* ---- One line through both paths ---------------------------------------- */

struct result {
	int rc;
	enum trace_line_kind kind;
	uint64_t lost;
	bool fast;
	struct trace_event ev;
	struct err e;
	char *buf; /* the line buffer after parsing */
	size_t len;
};

static void parse_one(const char *line, size_t len, uint32_t skip, bool general_only,
		      struct result *r)
{
	r->buf = malloc(len + 1 + TRACE_LINE_PAD);
	if (!r->buf)
		abort();
	memcpy(r->buf, line, len);
	memset(r->buf + len, 0, 1 + TRACE_LINE_PAD);
	r->len = len;
	memset(&r->ev, 0x5a, sizeof(r->ev)); /* the same garbage on both sides */
	r->ev.call_site = r->ev.name = r->ev.text = NULL;
	err_clear(&r->e);
	r->kind = (enum trace_line_kind) - 1;
	r->lost = 12345;
	r->rc = trace_parse_line_test(r->buf, len, skip, general_only, &r->ev, &r->kind, &r->lost,
				      &r->fast, &r->e);
}

/* A string member: both NULL, or the same text at the same offset in the
 * line (or both outside it, as the constant ""). */
static bool same_str(const char *a, const struct result *ra, const char *b, const struct result *rb,
		     char *why, const char *what)
{
	bool in_a, in_b;

	if (!a || !b) {
		if (a == b)
			return true;
		(void)snprintf(why, 128, "%s: one is NULL", what);
		return false;
	}
	in_a = a >= ra->buf && a <= ra->buf + ra->len;
	in_b = b >= rb->buf && b <= rb->buf + rb->len;
	if (strcmp(a, b) != 0 || in_a != in_b || (in_a && a - ra->buf != b - rb->buf)) {
		(void)snprintf(why, 128, "%s: '%.40s' vs '%.40s'", what, a, b);
		return false;
	}
	return true;
}

/* Why general (g) and fast-or-general (f) differ, or NULL. */
static const char *differ(const struct result *g, const struct result *f, char why[128])
{
	const struct trace_event *a = &g->ev, *b = &f->ev;

	if (g->rc != f->rc)
		return snprintf(why, 128, "rc %d vs %d", g->rc, f->rc), why;
	if (g->rc < 0 && strcmp(g->e.msg, f->e.msg) != 0)
		return snprintf(why, 128, "message '%.50s' vs '%.50s'", g->e.msg, f->e.msg), why;
	if (g->kind != f->kind || g->lost != f->lost)
		return snprintf(why, 128, "kind %d/%d lost %llu/%llu", (int)g->kind, (int)f->kind,
				(unsigned long long)g->lost, (unsigned long long)f->lost),
		       why;
	if (memcmp(g->buf, f->buf, g->len + 1) != 0)
		return "line buffer bytes";
	if (a->type != b->type || a->t_ns != b->t_ns || a->cpu != b->cpu || a->pid != b->pid)
		return "type, t_ns, cpu or pid";
	if (a->ptr != b->ptr || a->bytes_req != b->bytes_req || a->bytes_alloc != b->bytes_alloc)
		return "ptr, bytes_req or bytes_alloc";
	if (a->node != b->node || a->accounted != b->accounted || a->gfp != b->gfp)
		return snprintf(why, 128, "node %d/%d accounted %d/%d gfp %#x/%#x", a->node,
				b->node, a->accounted, b->accounted, a->gfp, b->gfp),
		       why;
	if (a->line != b->line || a->site_id != b->site_id)
		return "line or site_id";
	if (g->rc == 1 || g->rc < 0) { /* rc 0 leaves them reset, checked too */
		if (!same_str(a->call_site, g, b->call_site, f, why, "call_site") ||
		    !same_str(a->name, g, b->name, f, why, "name") ||
		    !same_str(a->text, g, b->text, f, why, "text"))
			return why;
	} else if (!same_str(a->call_site, g, b->call_site, f, why, "call_site") || a->name ||
		   b->name || a->text || b->text) {
		return "reset string members";
	}
	return NULL;
}

struct tally {
	uint64_t variants, differ, fast, events, fast_events;
	unsigned printed;
};

static void print_line(const char *line, size_t len)
{
	printf("#   line: '");
	for (size_t i = 0; i < len && i < 200; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c >= 0x20 && c < 0x7f)
			putchar(c);
		else
			printf("\\x%02x", c);
	}
	printf("'\n");
}

/* Both paths on one line, lax and with kmalloc fields skipped. */
static void compare(const char *line, size_t len, struct tally *t)
{
	static const uint32_t skips[] = {0, 1u << TRACE_EV_KMALLOC};

	for (size_t k = 0; k < sizeof(skips) / sizeof(skips[0]); k++) {
		struct result g, f;
		char why_buf[128];
		const char *why;

		parse_one(line, len, skips[k], true, &g);
		parse_one(line, len, skips[k], false, &f);
		t->variants++;
		if (g.fast) { /* general_only must never take the fast path */
			why = "general_only took the fast path";
		} else {
			why = differ(&g, &f, why_buf);
		}
		if (why) {
			t->differ++;
			if (t->printed++ < MAX_FAILS) {
				printf("# differs (skip %#x): %s\n", skips[k], why);
				print_line(line, len);
			}
		}
		if (k == 0) {
			t->fast += f.fast;
			if (g.rc == 1) {
				t->events++;
				t->fast_events += f.fast;
			}
		}
		free(g.buf);
		free(f.buf);
	}
}

/* ---- Perturbations -------------------------------------------------------- */

/* A variant under construction. */
static char vbuf[2 * LINE_MAX_TEST + 256];

static void emit(const char *s, size_t n, struct tally *t, FILE *out)
{
	compare(s, n, t);
	if (out) {
		fwrite(s, 1, n, out);
		putc('\n', out);
	}
}

/* line with [at, at + cut) replaced by ins */
static void splice(const char *line, size_t len, size_t at, size_t cut, const char *ins,
		   size_t nins, struct tally *t, FILE *out)
{
	size_t n = 0;

	if (at > len || at + cut > len || len + nins + 1 > sizeof(vbuf))
		return;
	memcpy(vbuf, line, at);
	n = at;
	memcpy(vbuf + n, ins, nins);
	n += nins;
	memcpy(vbuf + n, line + at + cut, len - at - cut);
	n += len - at - cut;
	emit(vbuf, n, t, out);
}

#define SPLICE_STR(at, cut, s) splice(line, len, (at), (cut), (s), strlen(s), t, out)

/* Tokens: maximal runs of non-blank bytes. */
static size_t tokens(const char *line, size_t len, size_t *start, size_t *end, size_t max)
{
	size_t n = 0, i = 0;

	while (i < len && n < max) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			break;
		start[n] = i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		end[n++] = i;
	}
	return n;
}

/* Values to put after "key=" for each key (the current value replaced). */
static const char *const gfp_vals[] = {"",
				       "none",
				       "none|GFP_DMA",
				       "GFP_DMA",
				       "__GFP_DMA",
				       "GFP_KERNEL|__GFP_RECLAIMABLE",
				       "GFP_TEMPORARY",
				       "__GFP_ACCOUNT",
				       "GFP_KERNEL_ACCOUNT|__GFP_ZERO",
				       "__GFP_NORETRY",
				       "0x10",
				       "0x400000|__GFP_ZERO",
				       "16",
				       "GFP_KERNEL||__GFP_ZERO",
				       "GFP_KERNEL|",
				       "|GFP_KERNEL",
				       "0xzz",
				       "99999999999999999999",
				       "GFP_KERNEL|0x1",
				       "gfp_kernel",
				       "GFP_KERNEL\t|x"};
static const char *const ptr_vals[] = {"(null)",
				       "0",
				       "0x0",
				       "0xffff888003a8b000",
				       "ffff888003a8b000",
				       "FFFF888003A8B000",
				       "0Xffff888003a8b00f",
				       "fff888003a8b000",
				       "0ffff888003a8b0000",
				       "00000000000000000000001",
				       "1ffff888003a8b0000",
				       "ffff888003a8b00g",
				       "ffff888003a8b00",
				       "ffff8880 3a8b000",
				       "ffff888003a8b000x",
				       "-1",
				       "",
				       "0x",
				       "(null)x",
				       "(nul)"};
static const char *const dec_vals[] = {"0",
				       "7",
				       "8192",
				       "4194304",
				       "18446744073709551615",
				       "18446744073709551616",
				       "000000000000000000000000001",
				       "99999999999999999999",
				       "-1",
				       "",
				       "12a",
				       "0x10",
				       "+5"};
static const char *const node_vals[] = {"-1",	       "0",
					"3",	       "any",
					"anyx",	       "2147483647",
					"2147483648",  "-2147483648",
					"-2147483649", "",
					"-",	       "--1",
					"1.5",	       "0000000000000000000000000000003"};
static const char *const acc_vals[] = {"true", "false", "1", "0", "TRUE", "", "truex", "fals", "2"};
static const char *const name_vals[] = {"", "kmalloc-64", "a b", "x=y", "(null)"};
static const char *const site_vals[] = {"", "0", "ffffffff81234567", "f+0x1/0x2", "a=b", "(x)"};
static const char *const event_names[] = {"kmalloc:",
					  "kmalloc_node:",
					  "kmem_cache_alloc:",
					  "kmem_cache_alloc_node:",
					  "kfree:",
					  "kmem_cache_free:",
					  "tracing_mark_write:",
					  "print:",
					  "kmem:kmalloc:",
					  "ftrace:print:",
					  "mm_page_alloc:",
					  "kmalloc",
					  "kmem_cache_alloc_nodes:",
					  "kfre:",
					  "kmalloc::"};
static const char *const timestamps[] = {"1.695477:",
					 "0.000001:",
					 "12345.123456789:",
					 "9999999999.999999999:",
					 "18446744073.709551615:",
					 "18446744074.0:",
					 "99999999999.5:",
					 "1.1234567890:",
					 "1.:",
					 ".5:",
					 "1.5",
					 "1.5 :",
					 "1,5:",
					 "01.000000:"};
static const char *const cpus[] = {"[000]", "[7]",  "[4294967295]", "[4294967296]",	     "[]",
				   "[0x1]", "[001", "[ 1]",	    "[99999999999999999999]"};
static const char *const tasks[] = {"init-1",	    "<idle>-0",	   "kworker/u4:1-45",
				    "a b-12",	    "-5",	   "x-2147483647",
				    "x-2147483648", "x-",	   "perf 123/456",
				    "t-12 (  12)",  "t-1 (-----)", "[x]-3",
				    "CPU-1",	    "cpus=-1",	   "version = 2-1",
				    "#x-1",	    "cat-9",	   "Chrome_IOThread-77"};

struct kv {
	const char *key;
	const char *const *vals;
	size_t n;
};

static const struct kv kvs[] = {
	{"gfp_flags=", gfp_vals, sizeof(gfp_vals) / sizeof(gfp_vals[0])},
	{"ptr=", ptr_vals, sizeof(ptr_vals) / sizeof(ptr_vals[0])},
	{"bytes_req=", dec_vals, sizeof(dec_vals) / sizeof(dec_vals[0])},
	{"bytes_alloc=", dec_vals, sizeof(dec_vals) / sizeof(dec_vals[0])},
	{"node=", node_vals, sizeof(node_vals) / sizeof(node_vals[0])},
	{"accounted=", acc_vals, sizeof(acc_vals) / sizeof(acc_vals[0])},
	{"name=", name_vals, sizeof(name_vals) / sizeof(name_vals[0])},
	{"call_site=", site_vals, sizeof(site_vals) / sizeof(site_vals[0])},
};

static void perturb(const char *line, size_t len, struct tally *t, FILE *out)
{
	static const char subst[] = " \t\r\0x|[]=:-().09afG/\x80\xff";
	enum { MAXTOK = 64 };
	size_t ts[MAXTOK], te[MAXTOK], nt;

	if (len > LINE_MAX_TEST)
		return;
	/* truncated at each byte; each byte replaced (three bytes each); a NUL,
	 * a blank and a tab put in before each byte */
	for (size_t i = 0; i < len; i++) {
		emit(line, i, t, out);
		for (size_t k = 0; k < 3; k++) {
			char c = subst[(i + k * 7) % (sizeof(subst) - 1)];
			splice(line, len, i, 1, &c, 1, t, out);
		}
		char hi = (char)(line[i] ^ 0x80); /* '8' -> 0xb8: SWAR code must see the bit */
		splice(line, len, i, 1, &hi, 1, t, out);
		splice(line, len, i, 0, "\0", 1, t, out);
		splice(line, len, i, 0, " ", 1, t, out);
		splice(line, len, i, 0, "\t", 1, t, out);
	}
	SPLICE_STR(len, 0, " ");
	SPLICE_STR(len, 0, "\t");
	SPLICE_STR(len, 0, "\r");
	SPLICE_STR(len, 0, "\r\r");
	SPLICE_STR(len, 0, " x=1");
	SPLICE_STR(len, 0, " (sym+0x1)");
	SPLICE_STR(0, 0, "\t");
	SPLICE_STR(0, 0, "   ");

	/* digits: each run of digits longer, zero, or overflowing */
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && line[j] >= '0' && line[j] <= '9')
			j++;
		if (j > i) {
			SPLICE_STR(i, 0, "9");
			SPLICE_STR(i, 0, "0000000000");
			SPLICE_STR(i, j - i, "0");
			SPLICE_STR(i, j - i, "99999999999999999999");
			SPLICE_STR(i, j - i, "4294967296");
			SPLICE_STR(i, j - i, "2147483648");
			i = j;
		} else {
			i++;
		}
	}

	/* tokens dropped, duplicated, swapped with the next, split, joined;
	 * blanks between them doubled or made tabs */
	nt = tokens(line, len, ts, te, MAXTOK);
	for (size_t k = 0; k < nt; k++) {
		size_t tl = te[k] - ts[k];
		char tok[LINE_MAX_TEST + 2];

		splice(line, len, ts[k], tl, "", 0, t, out);
		memcpy(tok, line + ts[k], tl);
		tok[tl] = ' ';
		splice(line, len, ts[k], 0, tok, tl + 1, t, out);
		if (k + 1 < nt) {
			size_t n = 0, tl2 = te[k + 1] - ts[k + 1];
			memcpy(vbuf, line, ts[k]);
			n = ts[k];
			memcpy(vbuf + n, line + ts[k + 1], tl2);
			n += tl2;
			memcpy(vbuf + n, line + te[k], ts[k + 1] - te[k]);
			n += ts[k + 1] - te[k];
			memcpy(vbuf + n, line + ts[k], tl);
			n += tl;
			memcpy(vbuf + n, line + te[k + 1], len - te[k + 1]);
			n += len - te[k + 1];
			emit(vbuf, n, t, out);
			splice(line, len, te[k], ts[k + 1] - te[k], "", 0, t, out);
			splice(line, len, te[k], ts[k + 1] - te[k], "  ", 2, t, out);
			splice(line, len, te[k], ts[k + 1] - te[k], "\t", 1, t, out);
		}
		if (tl > 2)
			splice(line, len, ts[k] + tl / 2, 0, " ", 1, t, out);
		/* the '=' of a key dropped */
		const char *eq = memchr(line + ts[k], '=', tl);
		if (eq)
			splice(line, len, (size_t)(eq - line), 1, "", 0, t, out);
	}

	/* field values, event names, timestamps, cpus and tasks replaced */
	for (size_t k = 0; k < nt; k++) {
		size_t tl = te[k] - ts[k];
		for (size_t j = 0; j < sizeof(kvs) / sizeof(kvs[0]); j++) {
			size_t kl = strlen(kvs[j].key);
			if (tl < kl || memcmp(line + ts[k], kvs[j].key, kl) != 0)
				continue;
			for (size_t v = 0; v < kvs[j].n; v++)
				SPLICE_STR(ts[k] + kl, tl - kl, kvs[j].vals[v]);
		}
		if (tl > 1 && line[te[k] - 1] == ':' && k + 1 < nt && line[ts[k]] >= 'a' &&
		    line[ts[k]] <= 'z') {
			for (size_t v = 0; v < sizeof(event_names) / sizeof(event_names[0]); v++)
				SPLICE_STR(ts[k], tl, event_names[v]);
		}
		if (tl > 2 && line[te[k] - 1] == ':' && line[ts[k]] >= '0' && line[ts[k]] <= '9') {
			for (size_t v = 0; v < sizeof(timestamps) / sizeof(timestamps[0]); v++)
				SPLICE_STR(ts[k], tl, timestamps[v]);
		}
		if (line[ts[k]] == '[' && line[te[k] - 1] == ']') {
			for (size_t v = 0; v < sizeof(cpus) / sizeof(cpus[0]); v++)
				SPLICE_STR(ts[k], tl, cpus[v]);
			if (k > 0) /* the task-pid before it */
				for (size_t v = 0; v < sizeof(tasks) / sizeof(tasks[0]); v++)
					SPLICE_STR(ts[0], te[k - 1] - ts[0], tasks[v]);
		}
	}
}

/* ---- Files ---------------------------------------------------------------- */

/* trace_next(), or (batched) trace_next_batch() 7
 * events at a time (its loop over the lines a batch finds in the buffer
 * must give the same). */
struct stream {
	struct trace_reader *r;
	bool batched;
	struct trace_event ev[7];
	int n, i;
};

static int stream_next(struct stream *s, struct trace_event *ev, struct err *e)
{
	if (!s->batched)
		return trace_next(s->r, ev, e);
	if (s->i == s->n) {
		int rc = trace_next_batch(s->r, s->ev, 7, e);
		if (rc <= 0)
			return rc;
		s->n = rc;
		s->i = 0;
	}
	*ev = s->ev[s->i++];
	return 1;
}

/* The events and counters trace_next() gives for path must be those the
 * general parser gives line by line for lines; batched, trace_next_batch()
 * gives them, through its line templates where lines repeat (returns how
 * many lines it took so). */
static uint64_t check_stream(const char *what, const char *path, const struct lines *l,
			     bool batched)
{
	struct stream sm = {.batched = batched};
	uint64_t by_template = 0;
	struct trace_opts lax = {.strict = false};
	struct trace_stats want;
	struct trace_reader *r;
	struct trace_event ev;
	struct err e;
	uint64_t bad_events = 0, next = 0;
	char name[700];
	int rc;

	memset(&want, 0, sizeof(want));
	err_clear(&e);
	rc = trace_open(path, &lax, &r, &e);
	sm.r = r;
	(void)snprintf(name, sizeof(name), "%s: trace_open", what);
	if (!CHECK(name, rc == 0)) {
		printf("#   %s\n", e.msg);
		return 0;
	}
	for (size_t i = 0; i < l->n; i++) {
		struct result g;
		want.lines++;
		parse_one(l->v[i], l->len[i], 0, true, &g);
		if (g.rc == 1) {
			want.events[g.ev.type]++;
			rc = stream_next(&sm, &ev, &e);
			/* the next event of the stream is this line's */
			if (rc != 1 || ev.line != i + 1 || ev.type != g.ev.type ||
			    ev.t_ns != g.ev.t_ns || ev.cpu != g.ev.cpu || ev.pid != g.ev.pid ||
			    ev.ptr != g.ev.ptr || ev.bytes_req != g.ev.bytes_req ||
			    ev.bytes_alloc != g.ev.bytes_alloc || ev.node != g.ev.node ||
			    ev.accounted != g.ev.accounted || ev.gfp != g.ev.gfp ||
			    strcmp(ev.call_site, g.ev.call_site) != 0 || !ev.name != !g.ev.name ||
			    (ev.name && strcmp(ev.name, g.ev.name) != 0) ||
			    !ev.text != !g.ev.text ||
			    (ev.text && strcmp(ev.text, g.ev.text) != 0)) {
				if (bad_events++ < MAX_FAILS) {
					printf("# %s: stream event differs at line %zu (rc %d)\n",
					       what, i + 1, rc);
					print_line(l->v[i], l->len[i]);
				}
				if (rc != 1)
					break;
			}
			next++;
		} else if (g.rc < 0) {
			if (!want.malformed++) {
				want.first_malformed_line = i + 1;
				memcpy(want.first_malformed_msg, g.e.msg,
				       sizeof(want.first_malformed_msg) - 1);
			}
		} else if (g.kind == TRACE_LINE_LOST) {
			want.lost_markers++;
			want.lost_events += g.lost;
		} else if (g.kind == TRACE_LINE_OTHER_EVENT) {
			want.other_events++;
		} else {
			want.header_lines++;
		}
		free(g.buf);
	}
	if (!bad_events) {
		rc = stream_next(&sm, &ev, &e);
		if (rc != 0)
			bad_events++;
	}
	by_template = trace_lines_by_template(r);
	(void)snprintf(name, sizeof(name),
		       "%s: %s gives the general parser's %llu events (%llu by line template)",
		       what, sm.batched ? "trace_next_batch" : "trace_next",
		       (unsigned long long)next, (unsigned long long)by_template);
	CHECK_EQ_U64(name, bad_events, 0);
	const struct trace_stats *st = trace_stats(r);
	bool same = st->lines == want.lines && st->header_lines == want.header_lines &&
		    st->other_events == want.other_events && st->malformed == want.malformed &&
		    st->lost_markers == want.lost_markers && st->lost_events == want.lost_events &&
		    st->first_malformed_line == want.first_malformed_line &&
		    strcmp(st->first_malformed_msg, want.first_malformed_msg) == 0;
	for (int k = 0; k < TRACE_EV_NR; k++)
		same = same && st->events[k] == want.events[k];
	(void)snprintf(name, sizeof(name),
		       "%s: trace_stats as the general parser's (%llu lines, %llu malformed)", what,
		       (unsigned long long)want.lines, (unsigned long long)want.malformed);
	if (!CHECK(name, same))
		printf("#   lines %llu/%llu malformed %llu/%llu first %llu/%llu '%s'/'%s'\n",
		       (unsigned long long)st->lines, (unsigned long long)want.lines,
		       (unsigned long long)st->malformed, (unsigned long long)want.malformed,
		       (unsigned long long)st->first_malformed_line,
		       (unsigned long long)want.first_malformed_line, st->first_malformed_msg,
		       want.first_malformed_msg);
	trace_close(r);
	return by_template;
}

static uint64_t total_variants;
static char first_path[4096]; /* argv[1], not to be read twice */

/* Returns the number of event lines the fast path took. */
static uint64_t test_file(const char *path, const char *tmpdir)
{
	struct lines l = {0}, pl = {0};
	struct tally t = {0}, tp = {0};
	char name[700], vpath[300];
	size_t stride;
	FILE *out;

	(void)snprintf(name, sizeof(name), "%s: read", path);
	if (!CHECK(name, read_lines(path, &l) && l.n > 0))
		return 0;
	for (size_t i = 0; i < l.n; i++)
		compare(l.v[i], l.len[i], &t);
	(void)snprintf(name, sizeof(name),
		       "%s: %zu lines, fast path on %llu of %llu events, same results both ways",
		       path, l.n, (unsigned long long)t.fast_events, (unsigned long long)t.events);
	CHECK_EQ_U64(name, t.differ, 0);
	/* the file one way, alternating from file to file */
	static bool batched;
	batched = !batched;
	uint64_t by_template = check_stream(path, path, &l, batched);
	if (batched && t.fast_events >= 1000) {
		/* the bundled traces repeat most lines (74-92 %) */
		(void)snprintf(name, sizeof(name),
			       "%s: line templates take %llu of its %llu fast-path events (>= 1/2)",
			       path, (unsigned long long)by_template,
			       (unsigned long long)t.fast_events);
		CHECK(name, 2 * by_template >= t.fast_events);
	}

	/* variants of a sample of lines (the first ones and evenly spread) */
	(void)snprintf(vpath, sizeof(vpath), "%s/variants.trace", tmpdir);
	out = fopen(vpath, "wb");
	if (!out)
		abort();
	stride = l.n > SAMPLE_LINES ? l.n / SAMPLE_LINES : 1;
	for (size_t i = 0; i < l.n; i++)
		if (i < 16 || i % stride == 0)
			perturb(l.v[i], l.len[i], &tp, out);
	if (fclose(out))
		abort();
	total_variants += tp.variants;
	(void)snprintf(name, sizeof(name),
		       "%s: %llu perturbed variants (%llu through the fast path) same both ways",
		       path, (unsigned long long)tp.variants, (unsigned long long)tp.fast);
	CHECK_EQ_U64(name, tp.differ, 0);
	/* its variants both ways: batched, each variant meets the template
	 * of the line it varies, and must be read as if there were none */
	(void)snprintf(name, sizeof(name), "%s: its variants", path);
	if (read_lines(vpath, &pl)) {
		check_stream(name, vpath, &pl, false);
		check_stream(name, vpath, &pl, true);
	}
	unlink(vpath);
	lines_free(&pl);
	lines_free(&l);
	return t.fast_events;
}

/* path's lines with "\r\n" and "\r\r\n" ends mixed in, in runs of 5
 * lines: the line templates, and text_run's guess of the next line's
 * template, read them as the general parser does (it drops one '\r'). */
static void test_cr_ends(const char *path, const char *tmpdir)
{
	static const char *const ends[] = {"", "\r", "\r\r"};
	struct lines l = {0}, cl = {0};
	char vpath[300], name[700];
	FILE *out;

	if (!read_lines(path, &l))
		abort();
	(void)snprintf(vpath, sizeof(vpath), "%s/cr.trace", tmpdir);
	if (!(out = fopen(vpath, "wb")))
		abort();
	for (size_t i = 0; i < l.n; i++) {
		(void)fwrite(l.v[i], 1, l.len[i], out);
		(void)fprintf(out, "%s\n", ends[(i / 5) % 3]);
	}
	if (fclose(out) || !read_lines(vpath, &cl))
		abort();
	(void)snprintf(name, sizeof(name), "%s with CR line ends", path);
	check_stream(name, vpath, &cl, false);
	uint64_t by_template = check_stream(name, vpath, &cl, true);
	(void)snprintf(name, sizeof(name), "%s with CR line ends: line templates take some (%llu)",
		       path, (unsigned long long)by_template);
	CHECK(name, by_template > 0);
	unlink(vpath);
	lines_free(&cl);
	lines_free(&l);
}

/* One file of the walk: every one but the boot excerpt, tested first. */
static void test_walked(const char *path, void *tmpdir)
{
	char real[4096];
	if (!realpath(path, real) || strcmp(real, first_path) != 0)
		test_file(path, tmpdir);
}

int main(int argc, char **argv)
{
	char tmpdir[] = "/tmp/slabsim-fastpath-XXXXXX";
	unsigned files = 0;

	if (argc < 2) {
		fprintf(stderr,
			"usage: %s <boot-excerpt.trace> [--fast FILE N]... <file or dir>...\n",
			argv[0]);
		return 2;
	}
	if (!mkdtemp(tmpdir) || !realpath(argv[1], first_path))
		return 2;

	/* 646 kmalloc + 1006 kmem_cache_alloc + 570 kfree + 778 kmem_cache_free
	 * lines (grep, see test_trace.c): all in the kernel's field order */
	CHECK_EQ_U64("the fast path takes every event line of the tracefs sample",
		     test_file(argv[1], tmpdir), 3000);
	test_cr_ends(argv[1], tmpdir);
	int i = 2;
	for (; i + 2 < argc && strcmp(argv[i], "--fast") == 0; i += 3) {
		char name[4200];
		(void)snprintf(name, sizeof(name), "%s: the fast path takes %s event lines",
			       argv[i + 1], argv[i + 2]);
		CHECK_EQ_U64(name, test_file(argv[i + 1], tmpdir), strtoull(argv[i + 2], NULL, 10));
	}
	for (; i < argc; i++) {
		unsigned k = trace_files(argv[i], test_walked, tmpdir);
		char name[300];
		(void)snprintf(name, sizeof(name), "%s: has trace files", argv[i]);
		CHECK(name, k > 0);
		files += k;
	}
	printf("# %u more files, %llu perturbed variants in all\n", files,
	       (unsigned long long)total_variants);
	rmdir(tmpdir);
	return check_done();
}
