/* sites.c - the sites file parser and matcher behind sites.h.
 *
 * A sites file names the callers that need alignment, for the policies of
 * options 1-3 of the 2019 debate. Parsing is strict (a typo must not turn
 * a listed caller into an unlisted one silently): every error names
 * path:line and what was expected. Matching is fnmatch(3) without flags,
 * so '*' also crosses the '/' of "func+0x1f/0x200".
 */
#include "sites.h"
#include "policy.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SITES_LINE_MAX 4096

struct site_rule {
	char *pattern;
	uint32_t need;
};

struct policy_sites {
	char *path;
	char hash[17];
	struct site_rule *rules;
	size_t n, cap;
};

void policy_sites_destroy(struct policy_sites *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->rules[i].pattern);
	free(s->rules);
	free(s->path);
	free(s);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* One field of line at *p; NUL-terminates it in place. NULL at the end. */
static char *next_field(char **p)
{
	char *s = *p;
	while (is_blank(*s))
		s++;
	if (!*s)
		return NULL;
	char *f = s;
	while (*s && !is_blank(*s))
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return f;
}

static int parse_need(const char *f, uint32_t *need)
{
	if (strcmp(f, "natural") == 0) {
		*need = POLICY_NEED_NATURAL;
		return 0;
	}
	if (*f < '1' || *f > '9')
		return -1;
	char *end;
	errno = 0;
	unsigned long v = strtoul(f, &end, 10);
	if (errno || *end || v < 8 || v > 4096 || (v & (v - 1)))
		return -1;
	*need = (uint32_t)v;
	return 0;
}

static int add_rule(struct policy_sites *s, const char *pat, uint32_t need)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct site_rule *r = realloc(s->rules, cap * sizeof(*r));
		if (!r)
			return SLABSIM_ENOMEM;
		s->rules = r;
		s->cap = cap;
	}
	if (!(s->rules[s->n].pattern = strdup(pat)))
		return SLABSIM_ENOMEM;
	s->rules[s->n++].need = need;
	return 0;
}

/* One line (NUL-terminated copy, comment not yet cut). */
static int parse_line(struct policy_sites *s, char *line, unsigned long lineno, struct err *e)
{
	for (char *c = line; *c; c++) {
		if (*c == '#' && (c == line || is_blank(c[-1]))) {
			*c = '\0';
			break;
		}
	}
	char *p = line;
	char *pat = next_field(&p);
	if (!pat)
		return 0;
	char *al = next_field(&p);
	if (!al)
		return err_at(e, SLABSIM_EINPUT, s->path, lineno,
			      "expected 'PATTERN ALIGN' (ALIGN: natural, or a power of two "
			      "from 8 to 4096), got '%s' alone",
			      pat);
	uint32_t need;
	if (parse_need(al, &need))
		return err_at(e, SLABSIM_EINPUT, s->path, lineno,
			      "expected an alignment after '%s' (natural, or a power of two "
			      "from 8 to 4096), got '%s'",
			      pat, al);
	char *extra = next_field(&p);
	if (extra)
		return err_at(e, SLABSIM_EINPUT, s->path, lineno,
			      "expected the end of the line after '%s %s', got '%s'", pat, al,
			      extra);
	if (add_rule(s, pat, need))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	return 0;
}

int policy_sites_parse(const char *name, const char *text, size_t len, struct policy_sites **out,
		       struct err *e)
{
	*out = NULL;
	struct policy_sites *s = calloc(1, sizeof(*s));
	char *line = malloc(SITES_LINE_MAX + 1);
	int rc = 0;
	if (!s || !line || !(s->path = strdup(name))) {
		rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
		goto fail;
	}
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 0x100000001b3ULL;
	(void)snprintf(s->hash, sizeof(s->hash), "%016" PRIx64, h);
	unsigned long lineno = 0;
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text - pos) : len - pos;
		lineno++;
		if (n > SITES_LINE_MAX) {
			rc = err_at(e, SLABSIM_EINPUT, s->path, lineno, "line longer than %d bytes",
				    SITES_LINE_MAX);
			goto fail;
		}
		if (memchr(text + pos, '\0', n)) {
			rc = err_at(e, SLABSIM_EINPUT, s->path, lineno,
				    "NUL byte: expected text lines 'PATTERN ALIGN'");
			goto fail;
		}
		memcpy(line, text + pos, n);
		line[n] = '\0';
		if ((rc = parse_line(s, line, lineno, e)))
			goto fail;
		pos += n + (nl != NULL);
	}
	if (s->n == 0) {
		rc = err_at(e, SLABSIM_EINPUT, s->path, 0,
			    "no call-site pattern: expected lines 'PATTERN ALIGN'");
		goto fail;
	}
	free(line);
	*out = s;
	return 0;
fail:
	free(line);
	policy_sites_destroy(s);
	return rc;
}

int policy_sites_load(const char *path, struct policy_sites **out, struct err *e)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(e, SLABSIM_EIO, "%s: %s", path, strerror(errno));
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? 2 * cap : 65536;
			char *nb = ncap > (64u << 20) ? NULL : realloc(buf, ncap);
			if (!nb) {
				rc = err_set(e, SLABSIM_EINPUT, "%s: larger than 64 MiB", path);
				break;
			}
			buf = nb;
			cap = ncap;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			if (ferror(f))
				rc = err_set(e, SLABSIM_EIO, "%s: read error", path);
			break;
		}
	}
	(void)fclose(f);
	if (!rc)
		rc = policy_sites_parse(path, buf ? buf : "", len, out, e);
	free(buf);
	return rc;
}

uint32_t policy_sites_need(const struct policy_sites *s, const char *site)
{
	if (!s || !site)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (fnmatch(s->rules[i].pattern, site, 0) == 0)
			return s->rules[i].need;
	return 0;
}

const char *policy_sites_path(const struct policy_sites *s)
{
	return s->path;
}

const char *policy_sites_hash(const struct policy_sites *s)
{
	return s->hash;
}

size_t policy_sites_count(const struct policy_sites *s)
{
	return s->n;
}

const char *policy_sites_pattern(const struct policy_sites *s, size_t i, uint32_t *need)
{
	*need = s->rules[i].need;
	return s->rules[i].pattern;
}
