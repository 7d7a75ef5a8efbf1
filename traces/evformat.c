/* evformat.c - an event format file's fields, print string and gfp flag
 * table, read in process (evformat.h says which shapes are taken).
 *
 * The text (as tracefs prints it):
 *
 *   name: kmalloc
 *   ID: 658
 *   format:
 *   <TAB>field:unsigned short common_type;<TAB>offset:0;<TAB>size:2;<TAB>signed:0;
 *   ... the common fields, an empty line, the event's own fields ...
 *
 *   print fmt: "call_site=%pS ...", (void *)REC->call_site, ...
 *
 * A field's name is the last identifier of its declaration, before any
 * "[...]"; a declaration starting "__data_loc" or "__rel_loc" is a dynamic
 * one (a 32-bit offset and length, trace.h). The gfp table is found as
 * tracedat.c's walk over libtraceevent's argument tree finds it: that walk
 * enters operators and casts only, so the first __print_flags in the text
 * outside any other call's parentheses is the one it meets.
 */
#include "evformat.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "trace.h"

struct fld {
	char *name;
	struct evformat_field f;
};

struct evformat {
	struct fld *fld; /* the common fields, then the event's own */
	size_t ncommon, nfld;
	char *print;
	uint64_t *gfp_val;
	char **gfp_name;
	size_t ngfp;
	/* the table's text after "REC->gfp_flags," up to its ')', in the
	 * caller's text: a table of the same bytes parses the same */
	const char *gfp_src;
	size_t gfp_src_len;
};

/* ---- Lines and fields ---------------------------------------------------- */

enum tk { T_END, T_ID, T_NUM, T_STR, T_PUNCT, T_BAD };
struct tok {
	enum tk k;
	const char *s;
	size_t n;
	bool escaped; /* a string with a backslash or control character in it */
};

/* What is being read: [p, end); for the print arguments, the token after
 * p once peeked (at la_at, ending at la_end), so that it is scanned once. */
struct text {
	const char *p, *end;
	const char *la_at, *la_end;
	struct tok la;
};

/* The next line [*s, *e) (without its newline); false at the end. */
static bool next_line(struct text *t, const char **s, const char **e)
{
	if (t->p >= t->end)
		return false;
	const char *nl = memchr(t->p, '\n', (size_t)(t->end - t->p));
	*s = t->p;
	*e = nl ? nl : t->end;
	t->p = nl ? nl + 1 : t->end;
	return true;
}

static bool starts(const char *s, const char *e, const char *key)
{
	size_t n = strlen(key);
	return (size_t)(e - s) >= n && memcmp(s, key, n) == 0;
}

static bool is_id(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* "key:N;" at *s (a decimal of up to 9 digits): its value, or -1. */
static int num_item(const char **s, const char *e, const char *key)
{
	size_t n = strlen(key);
	int v = 0, digits = 0;
	if ((size_t)(e - *s) < n || memcmp(*s, key, n) != 0)
		return -1;
	const char *p = *s + n;
	for (; p < e && *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
		v = v * 10 + (*p - '0');
	if (!digits || p >= e || *p != ';')
		return -1;
	*s = p + 1;
	return v;
}

/* One "<TAB>field:DECL;<TAB>offset:N;<TAB>size:N;[<TAB>signed:N;]" line. */
static bool field_line(const char *s, const char *e, char **name, struct evformat_field *f)
{
	if (!starts(s, e, "\tfield:"))
		return false;
	s += 7;
	const char *semi = memchr(s, ';', (size_t)(e - s));
	if (!semi)
		return false;
	/* a declaration of words, pointers and array sizes only: anything else
	 * (libtraceevent's tokens: a quote, a comma, a colon) it reads
	 * another way */
	for (const char *p = s; p < semi; p++) {
		if (*p == '[') { /* "[N]" or "[]" */
			while (p + 1 < semi && p[1] >= '0' && p[1] <= '9')
				p++;
			if (p + 1 >= semi || p[1] != ']')
				return false;
			p++;
		} else if (!is_id(*p) && *p != ' ' && *p != '*') {
			return false;
		}
	}
	const char *ne = semi;
	while (ne > s && ne[-1] == ' ')
		ne--;
	if (ne > s && ne[-1] == ']') { /* an array: the name is before its '[' */
		while (ne > s && ne[-1] != '[')
			ne--;
		if (ne == s)
			return false;
		ne--;
		while (ne > s && ne[-1] == ' ')
			ne--;
	}
	const char *nb = ne;
	while (nb > s && is_id(nb[-1]))
		nb--;
	const char *ts = s;
	while (ts < nb && *ts == ' ')
		ts++;
	if (nb == ne || ts == nb || (nb[-1] != ' ' && nb[-1] != '*') || (*nb >= '0' && *nb <= '9'))
		return false;
	/* the type: only at its start may it say how the field is stored */
	f->flags = 0;
	f->found = true;
	if (starts(ts, nb, "__data_loc "))
		f->flags = EVFORMAT_DYNAMIC;
	else if (starts(ts, nb, "__rel_loc "))
		f->flags = EVFORMAT_DYNAMIC | EVFORMAT_RELATIVE;
	for (const char *p = ts + 1; p < semi; p++)
		if (starts(p, semi, "__data_loc") || starts(p, semi, "__rel_loc"))
			return false;
	const char *p = semi + 1;
	if (p >= e || *p++ != '\t' || (f->offset = num_item(&p, e, "offset:")) < 0 || p >= e ||
	    *p++ != '\t' || (f->size = num_item(&p, e, "size:")) < 0)
		return false;
	if (p < e && (*p++ != '\t' || num_item(&p, e, "signed:") < 0))
		return false;
	if (p != e)
		return false;
	*name = strndup(nb, (size_t)(ne - nb));
	return true;
}

/* ---- The print arguments --------------------------------------------------- */

static bool tok_is(const struct tok *t, const char *s)
{
	return (t->k == T_PUNCT || t->k == T_ID || t->k == T_NUM) && strlen(s) == t->n &&
	       memcmp(t->s, s, t->n) == 0;
}

static struct tok scan_tok(struct text *t)
{
	static const char *const two[] = {"->", "<<", ">>", "&&", "||", "==", "!=", "<=", ">="};
	const char *p = t->p, *e = t->end;
	struct tok k = {.k = T_END};
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	k.s = p;
	if (p >= e) {
		t->p = p;
		return k;
	}
	if (is_id(*p)) {
		k.k = *p >= '0' && *p <= '9' ? T_NUM : T_ID;
		while (p < e && is_id(*p))
			p++;
	} else if (*p == '"' || *p == '\'') {
		char q = *p++;
		k.k = T_STR;
		while (p < e && *p != q) {
			/* libtraceevent cuts a string at a tab (seen in the maple
			 * tree's formats): any control character, and escapes, are
			 * not taken */
			if (*p == '\\' || (unsigned char)*p < 0x20)
				k.escaped = true;
			if (*p == '\\')
				p++;
			p++;
		}
		if (p >= e) { /* unterminated (an escape may have stepped past e) */
			k.k = T_BAD;
			p = e;
		} else {
			p++;
		}
	} else {
		k.k = T_PUNCT;
		p++;
		for (size_t i = 0;
		     p < e && strchr("-<>&|=!", *k.s) && i < sizeof(two) / sizeof(two[0]); i++)
			if (memcmp(k.s, two[i], 2) == 0) {
				p = k.s + 2;
				break;
			}
		if (!strchr("()[]{},?:|&^~!+-*/%<>=.;", *k.s))
			k.k = T_BAD;
	}
	k.n = (size_t)(p - k.s);
	t->p = p;
	return k;
}

static struct tok next_tok(struct text *t)
{
	if (t->la_at == t->p && t->p) {
		t->p = t->la_end;
		return t->la;
	}
	return scan_tok(t);
}

static struct tok peek_tok(struct text *t)
{
	if (t->la_at != t->p || !t->p) {
		const char *at = t->p;
		t->la = scan_tok(t);
		t->la_at = at;
		t->la_end = t->p;
		t->p = at;
	}
	return t->la;
}

#define VAL_MAX UINT64_C(0xffffffff)

/* A number token: decimal (no leading 0) or 0x hex, then u/l suffixes. */
static bool num_value(const struct tok *k, uint64_t *v)
{
	const char *p = k->s, *e = k->s + k->n;
	unsigned base = 10;
	uint64_t x = 0;
	int digits = 0;
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (; p < e; p++, digits++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (digits > 16)
			return false;
		x = x * base + d;
	}
	if (!digits || (base == 10 && digits > 1 && k->s[0] == '0'))
		return false;
	for (; p < e; p++)
		if (!strchr("uUlL", *p))
			return false;
	*v = x;
	return true;
}

static bool cast_type(const struct tok *k)
{
	return tok_is(k, "unsigned") || tok_is(k, "long") || tok_is(k, "int") || tok_is(k, "gfp_t");
}

static bool eval_expr(struct text *t, int depth, uint64_t *v);

/* A number, a parenthesised expression, a cast or ~ of one. Values other
 * than ~'s stay within 32 bits, so that whatever width an evaluator gives
 * a cast, the result is the same. */
static bool eval_unary(struct text *t, int depth, uint64_t *v)
{
	struct tok k = next_tok(t);
	if (depth > 200)
		return false;
	if (k.k == T_NUM)
		return num_value(&k, v) && *v <= VAL_MAX;
	if (tok_is(&k, "~")) {
		if (!eval_unary(t, depth + 1, v))
			return false;
		*v = ~*v;
		return true;
	}
	if (!tok_is(&k, "("))
		return false;
	struct tok n = peek_tok(t);
	if (cast_type(&n)) {
		while (cast_type(&n)) {
			(void)next_tok(t);
			n = peek_tok(t);
		}
		if (!tok_is(&n, ")"))
			return false;
		(void)next_tok(t);
		return eval_unary(t, depth + 1, v) && *v <= VAL_MAX;
	}
	if (!eval_expr(t, depth + 1, v))
		return false;
	k = next_tok(t);
	return tok_is(&k, ")");
}

/* Operands joined by one binary operator (|, & or <<): another operator at
 * the same level would make precedence matter; not taken. */
static bool eval_expr(struct text *t, int depth, uint64_t *v)
{
	struct tok op = {.k = T_END};
	if (!eval_unary(t, depth, v))
		return false;
	for (;;) {
		struct tok k = peek_tok(t);
		if (!tok_is(&k, "|") && !tok_is(&k, "&") && !tok_is(&k, "<<"))
			return true;
		if (op.k != T_END && !(op.n == k.n && memcmp(op.s, k.s, k.n) == 0))
			return false;
		op = next_tok(t);
		uint64_t r;
		if (!eval_unary(t, depth, &r))
			return false;
		if (*op.s == '|')
			*v |= r;
		else if (*op.s == '&')
			*v &= r;
		else if (r < 32 && *v <= VAL_MAX)
			*v <<= r;
		else
			return false;
		if (*v > VAL_MAX)
			return false;
	}
}

static int add_flag(struct evformat *f, uint64_t v, const char *name)
{
	uint64_t *nv = realloc(f->gfp_val, (f->ngfp + 1) * sizeof(*nv));
	if (!nv)
		return SLABSIM_ENOMEM;
	f->gfp_val = nv;
	char **nn = realloc(f->gfp_name, (f->ngfp + 1) * sizeof(*nn));
	if (!nn)
		return SLABSIM_ENOMEM;
	f->gfp_name = nn;
	if (!(nn[f->ngfp] = strdup(name)))
		return SLABSIM_ENOMEM;
	nv[f->ngfp++] = v;
	return 0;
}

/* The rest of a __print_flags(REC->gfp_flags, after its first ',': the
 * delimiter and the {value, "name"} entries up to its ')'. 0, 1 not taken,
 * SLABSIM_ENOMEM. */
static int flag_table(struct evformat *f, struct text *t)
{
	struct tok k = next_tok(t);
	if (k.k != T_STR || k.escaped || *k.s != '"')
		return 1;
	k = next_tok(t);
	if (!tok_is(&k, ","))
		return 1;
	for (;;) {
		uint64_t v;
		k = next_tok(t);
		if (!tok_is(&k, "{") || !eval_expr(t, 0, &v) || v > VAL_MAX)
			return 1;
		k = next_tok(t);
		if (!tok_is(&k, ","))
			return 1;
		struct tok name = next_tok(t);
		if (v == 0 && tok_is(&name, "(")) {
			/* the table's end, { 0, ((void *)0) }: a name that no
			 * value selects */
			static const char *const null[] = {"(", "void", "*", ")", "0", ")"};
			for (size_t i = 0; i < sizeof(null) / sizeof(null[0]); i++)
				if (k = next_tok(t), !tok_is(&k, null[i]))
					return 1;
			name = (struct tok){.k = T_STR, .s = "\"\"", .n = 2};
		} else if (name.k != T_STR || name.escaped || *name.s != '"') {
			return 1;
		}
		k = next_tok(t);
		if (!tok_is(&k, "}"))
			return 1;
		char *str = strndup(name.s + 1, name.n - 2);
		int rc = str ? add_flag(f, v, str) : SLABSIM_ENOMEM;
		free(str);
		if (rc)
			return rc;
		k = next_tok(t);
		if (tok_is(&k, ")"))
			return 0;
		if (!tok_is(&k, ","))
			return 1;
	}
}

static bool has_field(const struct evformat *f, const struct tok *name)
{
	for (size_t i = 0; i < f->nfld; i++)
		if (strlen(f->fld[i].name) == name->n &&
		    memcmp(f->fld[i].name, name->s, name->n) == 0)
			return true;
	return false;
}

/* Find the gfp table in the arguments [t): 0 (found or none), 1 not taken,
 * SLABSIM_ENOMEM. Parentheses after an identifier are a call's and are not
 * entered; other parentheses (grouping, casts) are. The arguments must be
 * balanced and name only fields the format has: libtraceevent's parser
 * crashes on a flag table over a field that is not there (the probe in
 * tracedat.c then says the file is corrupt, as it does not here). */
static int find_gfp(struct evformat *f, const struct evformat *like, struct text t)
{
	int calls = 0, depth = 0; /* open calls (and brackets), open parentheses */
	bool open_is_call[256];
	char open[256];
	bool table = false;
	struct tok prev = {.k = T_END};
	for (;;) {
		struct tok k = next_tok(&t);
		if (k.k == T_END)
			return depth ? 1 : 0;
		if (k.k == T_BAD)
			return 1;
		if (k.k == T_ID && tok_is(&k, "REC")) {
			struct text c = t;
			struct tok arrow = next_tok(&c), name = next_tok(&c);
			if (!tok_is(&arrow, "->") || name.k != T_ID || !has_field(f, &name))
				return 1;
		}
		if (k.k == T_ID && !calls && !table && tok_is(&k, "__print_flags")) {
			struct text c = t;
			struct tok a[5];
			for (int i = 0; i < 5; i++)
				a[i] = next_tok(&c);
			if (tok_is(&a[0], "(") && tok_is(&a[1], "REC") && tok_is(&a[2], "->") &&
			    tok_is(&a[3], "gfp_flags") && tok_is(&a[4], ",")) {
				if (!has_field(f, &a[3]))
					return 1;
				const char *from = c.p;
				int rc = 0;
				size_t n = like ? like->gfp_src_len : 0;
				if (n && (size_t)(c.end - c.p) >= n &&
				    memcmp(c.p, like->gfp_src, n) == 0) {
					for (size_t i = 0; !rc && i < like->ngfp; i++)
						rc = add_flag(f, like->gfp_val[i],
							      like->gfp_name[i]);
					c.p += n;
					c.la_at = NULL;
				} else {
					rc = flag_table(f, &c);
				}
				if (rc)
					return rc;
				f->gfp_src = from;
				f->gfp_src_len = (size_t)(c.p - from);
				table = true;
				t = c;
				prev = (struct tok){.k = T_PUNCT};
				continue;
			}
			/* a first argument naming gfp_flags otherwise: not taken */
			for (struct text s = t; s.p < t.end;) {
				struct tok x = next_tok(&s);
				if (x.k == T_END || tok_is(&x, ","))
					break;
				if (tok_is(&x, "gfp_flags"))
					return 1;
			}
		}
		if (tok_is(&k, "(") || tok_is(&k, "[") || tok_is(&k, "{")) {
			if (depth == 256)
				return 1;
			bool call = !tok_is(&k, "(") || prev.k == T_ID;
			open[depth] = *k.s;
			open_is_call[depth++] = call;
			calls += call;
		} else if (tok_is(&k, ")") || tok_is(&k, "]") || tok_is(&k, "}")) {
			char want = *k.s == ')' ? '(' : *k.s == ']' ? '[' : '{';
			if (!depth || open[depth - 1] != want)
				return 1;
			calls -= open_is_call[--depth];
		}
		prev = k;
	}
}

/* ---- The format ------------------------------------------------------------- */

static int add_field(struct evformat *f, char *name, struct evformat_field fl)
{
	struct fld *n = realloc(f->fld, (f->nfld + 1) * sizeof(*n));
	if (!n) {
		free(name);
		return SLABSIM_ENOMEM;
	}
	f->fld = n;
	n[f->nfld++] = (struct fld){.name = name, .f = fl};
	return 0;
}

static int parse(struct evformat *f, const struct evformat *like, const char *text, size_t len)
{
	struct text t = {.p = text, .end = text + len};
	const char *s = NULL, *e;
	bool print = false;
	int part = 0; /* 0 before format:, 1 common fields, 2 own fields, 3 after */
	while (next_line(&t, &s, &e)) {
		if (part == 0) {
			if (starts(s, e, "format:") && e - s == 7)
				part = 1;
			else if (!starts(s, e, "name: ") && !starts(s, e, "ID: "))
				return 1;
			continue;
		}
		if (s == e) {
			if (part == 1 && !f->ncommon)
				return 1;
			part = part == 1 ? 2 : 3;
			continue;
		}
		if (starts(s, e, "print fmt: ")) {
			if (part != 3)
				return 1;
			print = true;
			break;
		}
		if (part == 3)
			return 1;
		char *name = NULL;
		struct evformat_field fl;
		if (!field_line(s, e, &name, &fl))
			return 1;
		if (!name)
			return SLABSIM_ENOMEM;
		int rc = add_field(f, name, fl);
		if (rc)
			return rc;
		if (part == 1)
			f->ncommon++;
	}
	if (!print || f->nfld == f->ncommon)
		return 1;
	/* one string literal, then the arguments after a comma */
	struct text a = {.p = s + 11, .end = t.end};
	struct tok k = next_tok(&a);
	if (k.k != T_STR || k.escaped || *k.s != '"')
		return 1;
	if (!(f->print = strndup(k.s + 1, k.n - 2)))
		return SLABSIM_ENOMEM;
	k = next_tok(&a);
	if (k.k == T_END)
		return 0;
	if (!tok_is(&k, ","))
		return 1;
	return find_gfp(f, like, a);
}

int evformat_parse(const char *text, size_t len, const struct evformat *like, struct evformat **out)
{
	struct evformat *f = calloc(1, sizeof(*f));
	*out = NULL;
	if (!f)
		return SLABSIM_ENOMEM;
	int rc = parse(f, like, text, len);
	if (rc) {
		evformat_free(f);
		return rc;
	}
	*out = f;
	return 0;
}

void evformat_free(struct evformat *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nfld; i++)
		free(f->fld[i].name);
	free(f->fld);
	for (size_t i = 0; i < f->ngfp; i++)
		free(f->gfp_name[i]);
	free(f->gfp_name);
	free(f->gfp_val);
	free(f->print);
	free(f);
}

struct evformat_field evformat_field(const struct evformat *f, const char *name, bool common)
{
	size_t from = common ? 0 : f->ncommon, to = common ? f->ncommon : f->nfld;
	for (size_t i = from; i < to; i++)
		if (strcmp(f->fld[i].name, name) == 0)
			return f->fld[i].f;
	return (struct evformat_field){.offset = -1, .size = -1};
}

const char *evformat_print(const struct evformat *f)
{
	return f->print;
}

size_t evformat_gfp_table(const struct evformat *f, const uint64_t **val, const char *const **name)
{
	*val = f->gfp_val;
	*name = (const char *const *)f->gfp_name;
	return f->ngfp;
}

int evformat_header_commit_size(const char *text, size_t len)
{
	struct text t = {.p = text, .end = text + len};
	const char *s, *e;
	int n = 0, size = -1;
	while (next_line(&t, &s, &e)) {
		if (s == e)
			continue;
		/* the header's lines say "field: TYPE NAME" */
		char *name = NULL;
		struct evformat_field f;
		if (!field_line(s, e, &name, &f) || !name) {
			free(name);
			return -1;
		}
		bool want = strcmp(name, n == 0 ? "timestamp" : "commit") == 0;
		free(name);
		if (n < 2 && !want)
			return -1;
		if (n == 1)
			size = f.size;
		n++;
	}
	return n >= 2 ? size : -1;
}

/* ---- gfp bits (trace.h's TRACE_GFP_*) ---- */

uint32_t evformat_gfp_raw(uint64_t raw)
{
	return (raw & 0x01u ? TRACE_GFP_DMA : 0u) | (raw & 0x10u ? TRACE_GFP_RECLAIMABLE : 0u) |
	       (raw & 0x400000u ? TRACE_GFP_ACCOUNT : 0u) |
	       (raw & 0x2000u ? TRACE_GFP_NOWARN : 0u) |
	       (raw & 0x100000u ? TRACE_GFP_HARDWALL : 0u);
}

uint32_t evformat_gfp_named(const char *s)
{
	if (strcmp(s, "GFP_DMA") == 0 || strcmp(s, "__GFP_DMA") == 0)
		return TRACE_GFP_DMA;
	if (strcmp(s, "__GFP_RECLAIMABLE") == 0 || strcmp(s, "GFP_TEMPORARY") == 0)
		return TRACE_GFP_RECLAIMABLE;
	if (strcmp(s, "__GFP_ACCOUNT") == 0 || strcmp(s, "GFP_KERNEL_ACCOUNT") == 0)
		return TRACE_GFP_ACCOUNT;
	if (strcmp(s, "GFP_USER") == 0 || strcmp(s, "__GFP_HARDWALL") == 0)
		return TRACE_GFP_HARDWALL;
	if (strcmp(s, "__GFP_NOWARN") == 0)
		return TRACE_GFP_NOWARN;
	return 0;
}

/* libtraceevent takes each table entry whose bits are all in what is left,
 * in table order; what no entry takes is printed in hex, which the text
 * parser reads as raw bits. */
uint32_t evformat_gfp_walk(const uint64_t *fval, const uint32_t *fbits, int n, uint64_t val)
{
	uint32_t bits = TRACE_GFP_KNOWN;
	uint64_t v = val;

	for (int i = 0; i < n && v; i++) {
		uint64_t fv = fval[i];
		if (fv && (v & fv) == fv) {
			bits |= fbits[i];
			v &= ~fv;
		}
	}
	return bits | evformat_gfp_raw(v);
}
