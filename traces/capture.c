/* capture.c - capture directories behind capture.h. Small files, read whole
 * with stdio; nothing here knows about models. */
#include "capture.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const capture_attr_names[CAPTURE_A_NR] = {
	[CAPTURE_A_OBJECT_SIZE] = "object_size",
	[CAPTURE_A_SLAB_SIZE] = "slab_size",
	[CAPTURE_A_ORDER] = "order",
	[CAPTURE_A_OBJS_PER_SLAB] = "objs_per_slab",
	[CAPTURE_A_ALIGN] = "align",
	[CAPTURE_A_RED_ZONE] = "red_zone",
	[CAPTURE_A_POISON] = "poison",
	[CAPTURE_A_STORE_USER] = "store_user",
	[CAPTURE_A_HWCACHE_ALIGN] = "hwcache_align",
	[CAPTURE_A_SANITY_CHECKS] = "sanity_checks",
	[CAPTURE_A_TRACE] = "trace",
	[CAPTURE_A_CACHE_DMA] = "cache_dma",
	[CAPTURE_A_RECLAIM_ACCOUNT] = "reclaim_account",
	[CAPTURE_A_DESTROY_BY_RCU] = "destroy_by_rcu",
	[CAPTURE_A_USERSIZE] = "usersize",
	[CAPTURE_A_MIN_PARTIAL] = "min_partial",
	[CAPTURE_A_CPU_PARTIAL] = "cpu_partial",
	[CAPTURE_A_OBJECTS] = "objects",
	[CAPTURE_A_TOTAL_OBJECTS] = "total_objects",
	[CAPTURE_A_SLABS] = "slabs",
	[CAPTURE_A_PARTIAL] = "partial",
	[CAPTURE_A_CPU_SLABS] = "cpu_slabs",
	[CAPTURE_A_OBJECTS_PARTIAL] = "objects_partial",
	[CAPTURE_A_SHEAF_CAPACITY] = "sheaf_capacity",
};

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

static char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (p)
		(void)snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool capture_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void chomp(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* Lines of a text file, numbered from 1, without their line ends. A NUL
 * byte ends the reading with an error naming file:line (rc): C strings would
 * cut the line there and take the rest as absent. */
struct lines {
	FILE *f;
	char *line;
	size_t cap;
	uint64_t lno;
	const char *path;
	struct err *e;
	int rc;
};

static int lines_open(struct lines *l, const char *path, struct err *e)
{
	*l = (struct lines){.f = fopen(path, "r"), .path = path, .e = e};
	if (!l->f)
		return err_at(e, SLABSIM_EIO, path, 0, "cannot open: %s", strerror(errno));
	return 0;
}

/* The error for a NUL byte at offset col (from 0) of line lno of path. */
static int nul_error(const char *path, uint64_t lno, size_t col, struct err *e)
{
	return err_at(e, SLABSIM_EINPUT, path, lno, "expected text, got a NUL byte at column %zu",
		      col + 1);
}

/* The next line (valid until the next call), or NULL at the end and at a
 * NUL byte (l->rc set). */
static char *lines_next(struct lines *l)
{
	ssize_t n = getline(&l->line, &l->cap, l->f);
	if (n <= 0)
		return NULL;
	l->lno++;
	const char *nul = memchr(l->line, '\0', (size_t)n);
	if (nul) {
		l->rc = nul_error(l->path, l->lno, (size_t)(nul - l->line), l->e);
		return NULL;
	}
	chomp(l->line);
	return l->line;
}

/* Close l; rc, or the NUL byte's error when rc is 0. */
static int lines_close(struct lines *l, int rc)
{
	free(l->line);
	(void)fclose(l->f);
	return rc ? rc : l->rc;
}

/* Whole file into a NUL-terminated buffer (metadata files are small). */
static int slurp(const char *path, char **out, struct err *e)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return err_at(e, SLABSIM_EIO, path, 0, "cannot open: %s", strerror(errno));
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t r = fread(buf + len, 1, cap - len - 1, f);
		len += r;
		if (len < cap - 1)
			break;
		char *n = realloc(buf, cap * 2);
		if (!n) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = n;
		cap *= 2;
	}
	int bad = ferror(f);
	(void)fclose(f);
	if (!buf)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	if (bad) {
		free(buf);
		return err_at(e, SLABSIM_EIO, path, 0, "read error");
	}
	buf[len] = '\0';
	const char *nul = memchr(buf, '\0', len);
	if (nul) {
		uint64_t lno = 1;
		const char *bol = buf;
		for (const char *q = buf; q < nul; q++)
			if (*q == '\n') {
				lno++;
				bol = q + 1;
			}
		size_t col = (size_t)(nul - bol);
		free(buf);
		return nul_error(path, lno, col, e);
	}
	*out = buf;
	return 0;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

/* ---- /proc/slabinfo ---- */

void capture_slabinfo_free(struct capture_slabinfo *si)
{
	if (!si)
		return;
	for (uint32_t i = 0; i < si->n; i++)
		free(si->rows[i].name);
	free(si->rows);
	si->rows = NULL;
	si->n = 0;
}

int capture_read_slabinfo(const char *path, struct capture_slabinfo *out, struct err *e)
{
	struct lines l;
	char *line;
	size_t rcap = 0;
	int rc = 0;
	memset(out, 0, sizeof(*out));
	if ((rc = lines_open(&l, path, e)))
		return rc;
	while ((line = lines_next(&l))) {
		if (l.lno == 1) {
			if (strncmp(line, "slabinfo - version: 2.", 22) != 0) {
				rc = err_at(e, SLABSIM_EINPUT, path, l.lno,
					    "expected 'slabinfo - version: 2.1', got '%.60s'",
					    line);
				break;
			}
			continue;
		}
		char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		/* name active num objsize objperslab pagesperslab : tunables l b s :
		 * slabdata active_slabs num_slabs sharedavail */
		char *tok[24];
		int nt = 0;
		char *save = NULL;
		for (char *t = strtok_r(p, " \t", &save); t && nt < 24;
		     t = strtok_r(NULL, " \t", &save))
			tok[nt++] = t;
		uint64_t v[5], as, ns, tu[3], sa;
		bool ok = nt >= 16 && strcmp(tok[6], ":") == 0 && strcmp(tok[7], "tunables") == 0 &&
			  strcmp(tok[11], ":") == 0 && strcmp(tok[12], "slabdata") == 0 &&
			  parse_u64(tok[13], &as) && parse_u64(tok[14], &ns) &&
			  parse_u64(tok[15], &sa);
		for (int i = 0; ok && i < 5; i++)
			ok = parse_u64(tok[1 + i], &v[i]);
		for (int i = 0; ok && i < 3; i++)
			ok = parse_u64(tok[8 + i], &tu[i]) && tu[i] <= UINT32_MAX;
		if (!ok || v[2] > UINT32_MAX || v[3] > UINT32_MAX || v[4] > UINT32_MAX) {
			rc = err_at(e, SLABSIM_EINPUT, path, l.lno,
				    "expected '<name> <active_objs> <num_objs> <objsize> "
				    "<objperslab> <pagesperslab> : tunables <l> <b> <s> : slabdata "
				    "<active_slabs> <num_slabs> <sharedavail>'");
			break;
		}
		if (out->n == rcap) {
			size_t nc = rcap ? rcap * 2 : 64;
			void *n = realloc(out->rows, nc * sizeof(*out->rows));
			if (!n) {
				rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
				break;
			}
			out->rows = n;
			rcap = nc;
		}
		struct capture_slabinfo_row *r = &out->rows[out->n];
		r->name = xstrdup(tok[0]);
		if (!r->name) {
			rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		out->n++;
		r->active_objs = v[0];
		r->num_objs = v[1];
		r->objsize = (uint32_t)v[2];
		r->objperslab = (uint32_t)v[3];
		r->pagesperslab = (uint32_t)v[4];
		r->active_slabs = as;
		r->num_slabs = ns;
		r->limit = (uint32_t)tu[0];
		r->batchcount = (uint32_t)tu[1];
		r->sharedfactor = (uint32_t)tu[2];
		r->sharedavail = sa;
	}
	if (!rc && l.lno == 0)
		rc = err_at(e, SLABSIM_EINPUT, path, 1,
			    "expected 'slabinfo - version: 2.1', got an empty file");
	rc = lines_close(&l, rc);
	if (rc)
		capture_slabinfo_free(out);
	return rc;
}

const struct capture_slabinfo_row *capture_slabinfo_find(const struct capture_slabinfo *si,
							 const char *name)
{
	for (uint32_t i = 0; i < si->n; i++)
		if (strcmp(si->rows[i].name, name) == 0)
			return &si->rows[i];
	return NULL;
}

uint64_t capture_slabinfo_pages(const struct capture_slabinfo *si)
{
	uint64_t p = 0;
	for (uint32_t i = 0; i < si->n; i++)
		p += si->rows[i].num_slabs * si->rows[i].pagesperslab;
	return p;
}

/* ---- /proc/meminfo ---- */

int capture_read_meminfo(const char *path, struct capture_meminfo *out, struct err *e)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{"Slab", offsetof(struct capture_meminfo, slab_kb)},
		{"SReclaimable", offsetof(struct capture_meminfo, sreclaimable_kb)},
		{"SUnreclaim", offsetof(struct capture_meminfo, sunreclaim_kb)},
		{"MemTotal", offsetof(struct capture_meminfo, memtotal_kb)},
		{"MemFree", offsetof(struct capture_meminfo, memfree_kb)},
	};
	*out = (struct capture_meminfo){-1, -1, -1, -1, -1};
	struct lines l;
	int rc = lines_open(&l, path, e);
	if (rc)
		return rc;
	char *line;
	while ((line = lines_next(&l))) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			if (strcmp(line, keys[i].key) != 0)
				continue;
			char *v = colon + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			char *end = v;
			while (isdigit((unsigned char)*end))
				end++;
			char *unit = end;
			while (*unit == ' ' || *unit == '\t')
				unit++;
			uint64_t x;
			char save = *end;
			*end = '\0';
			bool ok = parse_u64(v, &x) && x <= INT64_MAX &&
				  (*unit == '\0' || strcmp(unit, "kB") == 0);
			*end = save;
			if (!ok) {
				rc = err_at(e, SLABSIM_EINPUT, path, l.lno,
					    "expected '%s: <number> kB', got '%.40s'", keys[i].key,
					    colon + 1);
				return lines_close(&l, rc);
			}
			*(int64_t *)(void *)((char *)out + keys[i].off) = (int64_t)x;
		}
	}
	return lines_close(&l, 0);
}

/* ---- slab-attrs.tsv ---- */

void capture_attrs_free(struct capture_attrs *a)
{
	if (!a)
		return;
	for (uint32_t i = 0; i < a->n; i++) {
		free(a->rows[i].name);
		free(a->rows[i].link_target);
		free(a->rows[i].cpu_partial_slabs);
	}
	free(a->rows);
	a->rows = NULL;
	a->n = 0;
}

#define MAX_COLS 128

static int split_tabs(char *line, char **f)
{
	int n = 0;
	for (char *p = line;;) {
		if (n == MAX_COLS)
			return n + 1; /* too many */
		f[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

/* slabs_cpu_partial as 6.1 prints it: "N(M)" then " Cn=a(b)" per CPU with
 * a partial stack. Anything else leaves the row without per-CPU figures. */
static int parse_cpu_partial(const char *s, struct capture_attrs_row *r, struct err *e)
{
	unsigned long long objs, slabs;
	int used;
	if (sscanf(s, "%llu(%llu)%n", &objs, &slabs, &used) != 2)
		return 0;
	r->cpu_partial_total = (int64_t)slabs;
	for (const char *p = s + used; *p == ' ';) {
		unsigned long long cpu;
		if (sscanf(p, " C%llu=%llu(%llu)%n", &cpu, &objs, &slabs, &used) != 3 ||
		    cpu >= 65536 || slabs > UINT32_MAX)
			break;
		if (cpu >= r->ncpu_partial) {
			uint32_t *n = realloc(r->cpu_partial_slabs, (cpu + 1) * sizeof(*n));
			if (!n)
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			memset(n + r->ncpu_partial, 0, (cpu + 1 - r->ncpu_partial) * sizeof(*n));
			r->cpu_partial_slabs = n;
			r->ncpu_partial = (uint32_t)cpu + 1;
		}
		r->cpu_partial_slabs[cpu] = (uint32_t)slabs;
		p += used;
	}
	return 0;
}

int capture_read_attrs(const char *path, struct capture_attrs *out, struct err *e)
{
	struct lines l;
	char *line, *fld[MAX_COLS + 1];
	size_t rcap = 0;
	int col[CAPTURE_A_NR], c_name = -1, c_link = -1, c_ctor = -1, c_scp = -1, ncols = 0, rc = 0;
	memset(out, 0, sizeof(*out));
	if ((rc = lines_open(&l, path, e)))
		return rc;
	while ((line = lines_next(&l))) {
		int n = split_tabs(line, fld);
		if (l.lno == 1) {
			ncols = n;
			for (int a = 0; a < CAPTURE_A_NR; a++)
				col[a] = -1;
			for (int i = 0; i < n && i < MAX_COLS; i++) {
				if (strcmp(fld[i], "name") == 0)
					c_name = i;
				else if (strcmp(fld[i], "link_target") == 0)
					c_link = i;
				else if (strcmp(fld[i], "ctor") == 0)
					c_ctor = i;
				else if (strcmp(fld[i], "slabs_cpu_partial") == 0)
					c_scp = i;
				for (int a = 0; a < CAPTURE_A_NR; a++)
					if (strcmp(fld[i], capture_attr_names[a]) == 0)
						col[a] = i;
			}
			for (int a = 0; a < CAPTURE_A_NR; a++)
				out->has_col[a] = col[a] >= 0;
			out->has_link_target = c_link >= 0;
			out->has_ctor = c_ctor >= 0;
			out->has_slabs_cpu_partial = c_scp >= 0;
			if (c_name != 0 || n > MAX_COLS) {
				rc = err_at(e, SLABSIM_EINPUT, path, l.lno,
					    "expected a header row of tab-separated attribute "
					    "names, 'name' first (at most %d columns)",
					    MAX_COLS);
				break;
			}
			continue;
		}
		if (n == 1 && !*fld[0])
			continue; /* blank line */
		/* a sysfs walk writes every column of every row (an unreadable
		 * value as "-"): a short row is a cut line, not absent values */
		if (n != ncols) {
			rc = err_at(e, SLABSIM_EINPUT, path, l.lno,
				    "expected %d tab-separated columns as in the header, got %d",
				    ncols, n);
			break;
		}
		if (out->n == rcap) {
			size_t nc = rcap ? rcap * 2 : 128;
			void *nr = realloc(out->rows, nc * sizeof(*out->rows));
			if (!nr) {
				rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
				break;
			}
			out->rows = nr;
			rcap = nc;
		}
		struct capture_attrs_row *r = &out->rows[out->n];
		memset(r, 0, sizeof(*r));
		r->name = xstrdup(fld[c_name]);
		if (!r->name) {
			rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		out->n++;
		if (c_link >= 0 && c_link < n && *fld[c_link] && strcmp(fld[c_link], "-") != 0 &&
		    !(r->link_target = xstrdup(fld[c_link]))) {
			rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		r->has_ctor = c_ctor < 0 || c_ctor >= n
				      ? -1
				      : (*fld[c_ctor] && strcmp(fld[c_ctor], "-") != 0);
		for (int a = 0; a < CAPTURE_A_NR; a++) {
			r->v[a] = -1;
			if (col[a] < 0 || col[a] >= n)
				continue;
			const char *s = fld[col[a]];
			char *end;
			if (!isdigit((unsigned char)*s))
				continue;
			long long x = strtoll(s, &end, 10);
			if (*end && *end != ' ')
				continue;
			r->v[a] = x;
		}
		r->cpu_partial_total = -1;
		if (c_scp >= 0 && c_scp < n && (rc = parse_cpu_partial(fld[c_scp], r, e)))
			break;
	}
	if (!rc && l.lno == 0)
		rc = err_at(e, SLABSIM_EINPUT, path, 1, "expected a header row, got an empty file");
	rc = lines_close(&l, rc);
	if (rc)
		capture_attrs_free(out);
	return rc;
}

void capture_attrs_missing(const struct capture_attrs *a, char *buf, size_t n)
{
	/* kmem_cache_create()'s inputs as sysfs shows them (object_size, align,
	 * ctor, the flag files) and what it made of them: without one, a
	 * cache's layout is not known and a model that differs is not wrong */
	static const enum capture_attr need[] = {
		CAPTURE_A_OBJECT_SIZE,	   CAPTURE_A_SLAB_SIZE,	     CAPTURE_A_ORDER,
		CAPTURE_A_OBJS_PER_SLAB,   CAPTURE_A_ALIGN,	     CAPTURE_A_RED_ZONE,
		CAPTURE_A_POISON,	   CAPTURE_A_STORE_USER,     CAPTURE_A_HWCACHE_ALIGN,
		CAPTURE_A_SANITY_CHECKS,   CAPTURE_A_TRACE,	     CAPTURE_A_CACHE_DMA,
		CAPTURE_A_RECLAIM_ACCOUNT, CAPTURE_A_DESTROY_BY_RCU, CAPTURE_A_USERSIZE,
	};
	size_t at = 0;
	buf[0] = '\0';
#define MISSING(name)                                                                              \
	do {                                                                                       \
		int w = snprintf(buf + at, n - at, "%s%s", at ? ", " : "", name);                  \
		if (w > 0 && (size_t)w < n - at)                                                   \
			at += (size_t)w;                                                           \
	} while (0)
	if (!a->has_link_target)
		MISSING("link_target");
	if (!a->has_ctor)
		MISSING("ctor");
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!a->has_col[need[i]])
			MISSING(capture_attr_names[need[i]]);
#undef MISSING
}

/* ---- cmdline ---- */

void capture_cmdline_free(struct capture_cmdline *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->ndebug; i++) {
		for (uint32_t j = 0; j < c->debug[i].ncaches; j++)
			free(c->debug[i].caches[j]);
		free(c->debug[i].caches);
	}
	free(c->debug);
	free(c->raw);
	memset(c, 0, sizeof(*c));
	c->slub_min_order = c->slub_max_order = c->slub_min_objects = -1;
}

/* slub_debug=<flags>[,<cache>,...][;<flags>[,<cache>...]]... (6.1; 5.4
 * takes one block). A block starting with ',' is the default flags for the
 * listed caches. */
static int parse_slub_debug(struct capture_cmdline *c, const char *val, const char *path,
			    struct err *e)
{
	c->slub_debug_given = true;
	if (!val)
		val = ""; /* bare slub_debug: default flags for every cache */
	char *copy = xstrdup(val);
	if (!copy)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	int rc = 0;
	char *save = NULL;
	char *blk = copy;
	do {
		char *semi = strchr(blk, ';');
		if (semi)
			*semi = '\0';
		struct capture_debug_block *nb =
			realloc(c->debug, (c->ndebug + 1) * sizeof(*c->debug));
		if (!nb) {
			rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		c->debug = nb;
		struct capture_debug_block *b = &c->debug[c->ndebug++];
		memset(b, 0, sizeof(*b));
		char *comma = strchr(blk, ',');
		size_t flen = comma ? (size_t)(comma - blk) : strlen(blk);
		if (flen >= sizeof(b->flags)) {
			rc = err_at(e, SLABSIM_EINPUT, path, 1,
				    "expected slub_debug flag letters (F Z P U T A O or -), got "
				    "'%.40s'",
				    blk);
			break;
		}
		memcpy(b->flags, blk, flen);
		b->flags[flen] = '\0';
		for (size_t i = 0; i < flen; i++)
			if (!strchr("fzputaoFZPUTAO-", b->flags[i])) {
				rc = err_at(e, SLABSIM_EINPUT, path, 1,
					    "expected slub_debug flag letters (F Z P U T A O or "
					    "-), got '%c' in '%s'",
					    b->flags[i], b->flags);
				break;
			}
		if (rc)
			break;
		if (comma) {
			for (char *t = strtok_r(comma + 1, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				char **nc = realloc(b->caches, (b->ncaches + 1) * sizeof(char *));
				if (!nc || !(nc[b->ncaches] = xstrdup(t))) {
					if (nc)
						b->caches = nc;
					rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
					break;
				}
				b->caches = nc;
				b->ncaches++;
			}
		}
		blk = semi ? semi + 1 : NULL;
	} while (!rc && blk && *blk);
	free(copy);
	return rc;
}

static int param_num(const char *key, const char *val, const char *path, int64_t *out,
		     struct err *e)
{
	uint64_t v;
	if (!val || !parse_u64(val, &v) || v > 1000000)
		return err_at(e, SLABSIM_EINPUT, path, 1, "expected %s=<number>, got '%s'", key,
			      val ? val : "");
	*out = (int64_t)v;
	return 0;
}

int capture_parse_cmdline(const char *text, const char *path, struct capture_cmdline *out,
			  struct err *e)
{
	memset(out, 0, sizeof(*out));
	out->slub_min_order = out->slub_max_order = out->slub_min_objects = -1;
	out->raw = xstrdup(text);
	char *copy = xstrdup(text);
	if (!out->raw || !copy) {
		free(copy);
		capture_cmdline_free(out);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	chomp(out->raw);
	int rc = 0;
	char *save = NULL;
	for (char *w = strtok_r(copy, " \t\r\n", &save); w && !rc;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		/* the kernel's parse_args stops at "--": the rest is init's */
		if (strcmp(w, "--") == 0)
			break;
		char *val = strchr(w, '=');
		if (val)
			*val++ = '\0';
		if (strcmp(w, "slub_debug") == 0 || strcmp(w, "slab_debug") == 0)
			rc = parse_slub_debug(out, val, path, e);
		else if (strcmp(w, "slub_min_order") == 0 || strcmp(w, "slab_min_order") == 0)
			rc = param_num(w, val, path, &out->slub_min_order, e);
		else if (strcmp(w, "slub_max_order") == 0 || strcmp(w, "slab_max_order") == 0)
			rc = param_num(w, val, path, &out->slub_max_order, e);
		else if (strcmp(w, "slub_min_objects") == 0 || strcmp(w, "slab_min_objects") == 0)
			rc = param_num(w, val, path, &out->slub_min_objects, e);
		else if (strcmp(w, "slab_nomerge") == 0 || strcmp(w, "slub_nomerge") == 0)
			out->nomerge = true;
		else if (strcmp(w, "slab_merge") == 0 || strcmp(w, "slub_merge") == 0)
			out->nomerge = false;
		else if (strcmp(w, "no_hash_pointers") == 0)
			out->no_hash_pointers = true;
	}
	free(copy);
	if (rc)
		capture_cmdline_free(out);
	return rc;
}

/* ---- uname ---- */

int capture_parse_uname(const char *text, const char *path, char *release, uint32_t release_len,
			uint32_t *major, uint32_t *minor, struct err *e)
{
	const char *p = text;
	/* "Linux <host> <release> ..." ; a bare release is accepted too */
	for (int word = 0; word < 3; word++) {
		while (*p == ' ' || *p == '\t')
			p++;
		const char *w = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (isdigit((unsigned char)*w) && strchr(w, '.') && strchr(w, '.') < p) {
			char *end;
			unsigned long ma = strtoul(w, &end, 10);
			if (*end != '.' || !isdigit((unsigned char)end[1]))
				continue;
			unsigned long mi = strtoul(end + 1, &end, 10);
			size_t n = (size_t)(p - w);
			if (n >= release_len)
				n = release_len - 1;
			memcpy(release, w, n);
			release[n] = '\0';
			*major = (uint32_t)ma;
			*minor = (uint32_t)mi;
			return 0;
		}
	}
	return err_at(e, SLABSIM_EINPUT, path, 1,
		      "expected 'uname -a' output with a kernel release like 6.1.0-57-amd64 as "
		      "its third word");
}

/* ---- ncpus.txt ---- */

/* A count ("2") or a cpulist ("0-7", "0,2-3"): the count of ids, max + 1. */
static bool parse_cpus(const char *s, uint32_t *out)
{
	uint64_t v;
	if (parse_u64(s, &v)) {
		/* a bare number is a count, never a list: "0" is no CPU at all */
		if (!v || v > 65536)
			return false;
		*out = (uint32_t)v;
		return true;
	}
	uint64_t max = 0;
	bool any = false;
	const char *p = s;
	while (*p) {
		char *end;
		if (!isdigit((unsigned char)*p))
			return false;
		unsigned long a = strtoul(p, &end, 10), b = a;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return false;
			b = strtoul(end + 1, &end, 10);
		}
		if (b < a || b > 65535)
			return false;
		if (b > max)
			max = b;
		any = true;
		if (*end == ',')
			end++;
		else if (*end)
			return false;
		p = end;
	}
	if (!any)
		return false;
	/* a single "N" without '-' or ',' was a count above; a cpulist of one id
	 * can only be written "N-N" */
	*out = (uint32_t)(max + 1);
	return true;
}

/* ---- capture-info.txt ---- */

/* random_kmalloc_seed=0x... (qemu-boot): the seed as the monitor printed
 * it, 64-bit hex. */
static int read_seed(struct capture *c, const char *p, const char *path, uint32_t lno,
		     struct err *e)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 16);
	while (isspace((unsigned char)*end))
		end++;
	if (strncmp(p, "0x", 2) != 0 || end == p + 2 || *end || errno)
		return err_at(e, SLABSIM_EINPUT, path, lno,
			      "expected random_kmalloc_seed=0x followed by up to 16 hex digits, "
			      "got '%.40s'",
			      p);
	c->has_seed = true;
	c->random_seed = v;
	return 0;
}

/* The keys naming the kernel's allocator, its random kmalloc seed and
 * whether the start state's caches were shrunk are read (the rest is for
 * people); other lines are skipped, as no reader needs them. The
 * allocator is kept as text: policies/ matches it to a model
 * (policy_find). */
static int read_info(struct capture *c, const char *path, struct err *e)
{
	static const char key[] = "allocator=", seed[] = "random_kmalloc_seed=",
			  shrink[] = "start_shrink=";
	struct lines l;
	char *line;
	int rc = 0;
	if ((rc = lines_open(&l, path, e)))
		return rc;
	while ((line = lines_next(&l))) {
		char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (strncmp(p, seed, sizeof(seed) - 1) == 0) {
			if ((rc = read_seed(c, p + sizeof(seed) - 1, path, l.lno, e)))
				break;
			continue;
		}
		if (strncmp(p, shrink, sizeof(shrink) - 1) == 0) {
			/* a count, or "no" (--no-shrink): only whether any */
			unsigned long n = strtoul(p + sizeof(shrink) - 1, NULL, 10);
			c->start_shrunk = n > 0;
			continue;
		}
		if (strncmp(p, key, sizeof(key) - 1) != 0)
			continue;
		p += sizeof(key) - 1;
		size_t n = strcspn(p, " \t\r\n");
		if (n >= sizeof(c->info_allocator))
			n = sizeof(c->info_allocator) - 1;
		memcpy(c->info_allocator, p, n);
		c->info_allocator[n] = '\0';
	}
	return lines_close(&l, rc);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct policy_symbol *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	/* equal names by address: the same table whatever the map's order */
	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

/* system-map.txt: System.map lines, "ffffffff8112a0c0 T __kmalloc_noprof",
 * one symbol each; the table is sorted by name for policy_symtab_caller,
 * and a name listed twice is marked (a trace's %pS cannot tell which). */
static int read_system_map(struct capture *c, const char *path, struct err *e)
{
	char *text = NULL;
	int rc = slurp(path, &text, e);
	if (rc)
		return rc;
	size_t cap = 0, n = 0;
	uint32_t lno = 0;
	for (char *p = text, *nl; *p; p = nl) {
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = '\0';
		else
			nl = p + strlen(p);
		lno++;
		char *s = p, *end;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			continue;
		errno = 0;
		unsigned long long addr = strtoull(s, &end, 16);
		char *t = end;
		while (*t == ' ' || *t == '\t')
			t++;
		char *name = t + 1;
		while (*name == ' ' || *name == '\t')
			name++;
		size_t nlen = strcspn(name, " \t\r");
		if (end == s || errno || !isspace((unsigned char)*end) ||
		    !isalpha((unsigned char)*t) || name == t + 1 || !nlen ||
		    name[nlen + strspn(name + nlen, " \t\r")]) {
			rc = err_at(e, SLABSIM_EINPUT, path, lno,
				    "expected a System.map line: ADDRESS TYPE NAME (e.g. "
				    "'ffffffff8112a0c0 T __kmalloc_noprof'), got '%.60s'",
				    s);
			goto out;
		}
		name[nlen] = '\0';
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 256;
			struct policy_symbol *v = realloc(c->syms, nc * sizeof(*v));
			if (!v) {
				rc = err_at(e, SLABSIM_EIO, path, lno, "out of memory");
				goto out;
			}
			c->syms = v;
			cap = nc;
		}
		/* the names point into text, which the capture keeps */
		c->syms[n++] = (struct policy_symbol){.name = name, .addr = addr};
	}
	if (n)
		qsort(c->syms, n, sizeof(*c->syms), sym_cmp);
	for (size_t i = 0; i < n; i++)
		c->syms[i].dup = (i > 0 && !strcmp(c->syms[i - 1].name, c->syms[i].name)) ||
				 (i + 1 < n && !strcmp(c->syms[i + 1].name, c->syms[i].name));
	c->symtab = (struct policy_symtab){.v = c->syms, .n = n};
	c->syms_names = text;
	text = NULL;
out:
	free(text);
	return rc;
}

static int read_ncpus(struct capture *c, const char *path, struct err *e)
{
	struct lines l;
	char *line;
	int rc = 0;
	if ((rc = lines_open(&l, path, e)))
		return rc;
	while ((line = lines_next(&l))) {
		char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		char *eq = strchr(p, '=');
		uint32_t v;
		if (!eq) {
			rc = err_at(e, SLABSIM_EINPUT, path, l.lno,
				    "expected key=value (nproc, online, possible), got '%.40s'", p);
			break;
		}
		*eq = '\0';
		char *val = eq + 1;
		while (isspace((unsigned char)*val))
			val++;
		uint32_t *dst = strcmp(p, "nproc") == 0	     ? &c->nproc
				: strcmp(p, "online") == 0   ? &c->online
				: strcmp(p, "possible") == 0 ? &c->possible
							     : NULL;
		if (!dst)
			continue; /* other keys (present, ...) are allowed */
		if (strcmp(val, "-") == 0)
			continue; /* the scripts' "could not read": absent */
		uint64_t zero;
		if (parse_u64(val, &zero) && zero == 0) {
			/* every kernel runs on a CPU: a count of 0 is a broken
			 * file, and a model of 0 CPUs (or a silent default) would
			 * be wrong */
			rc = err_at(e, SLABSIM_EINPUT, path, l.lno,
				    "expected %s=<count> of at least 1 CPU, got 0", p);
			break;
		}
		if (!parse_cpus(val, &v)) {
			rc = err_at(e, SLABSIM_EINPUT, path, l.lno,
				    "expected %s=<count> or a CPU list like 0-3, got '%.40s'", p,
				    val);
			break;
		}
		*dst = v;
	}
	return lines_close(&l, rc);
}

/* ---- lost-events.txt ---- */

/* Each CPU's ring-buffer stats (tracefs per_cpu/cpuN/stats), in either of
 * two layouts: the capture scripts' "cpuN <key>: <value>" lines, or the
 * files as tracefs prints them, "<key>: <value>" lines under "== cpuN"
 * section lines (also "==> per_cpu/cpuN/stats <==", as head(1) heads them),
 * with "buffer_size_kb: N" lines anywhere. Key is the text before the last
 * ':'. Events lost: overrun + commit overrun + dropped events, summed over
 * every line (so over CPUs); other keys (entries, bytes, timestamps,
 * buffer_size_kb) are ignored. */
static int read_lost(struct capture *c, const char *path, struct err *e)
{
	struct lines l;
	char *line;
	int rc = 0;
	if ((rc = lines_open(&l, path, e)))
		return rc;
	while ((line = lines_next(&l))) {
		char *key = line;
		while (isspace((unsigned char)*key))
			key++;
		if (!*key || strncmp(key, "==", 2) == 0)
			continue; /* blank, or a section line */
		char *colon = strrchr(key, ':');
		if (!colon) {
			rc = err_at(
				e, SLABSIM_EINPUT, path, l.lno,
				"expected 'cpuN <key>: <value>', '<key>: <value>' or a '== cpuN' "
				"section line, got '%.40s'",
				key);
			break;
		}
		*colon = '\0';
		char *sp = strchr(key, ' ');
		if (strncmp(key, "cpu", 3) == 0 && isdigit((unsigned char)key[3]) && sp)
			key = sp + 1; /* the scripts' "cpuN " prefix */
		char *val = colon + 1, *end = val + strlen(val);
		while (isspace((unsigned char)*val))
			val++;
		while (end > val && isspace((unsigned char)end[-1]))
			*--end = '\0';
		uint64_t v;
		if (strcmp(key, "overrun") != 0 && strcmp(key, "commit overrun") != 0 &&
		    strcmp(key, "dropped events") != 0)
			continue;
		if (!parse_u64(val, &v)) {
			rc = err_at(e, SLABSIM_EINPUT, path, l.lno, "expected a count after '%s:'",
				    key);
			break;
		}
		if (c->lost_events + v < v) {
			rc = err_at(e, SLABSIM_EINPUT, path, l.lno,
				    "expected lost-event counts that sum below 2^64");
			break;
		}
		c->lost_events += v;
	}
	return lines_close(&l, rc);
}

/* ---- the directory ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The IDs of snapshots/ID<suf>, sorted, into *ids / *n. */
static int list_snapshots(const struct capture *c, const char *suf, char ***ids, uint32_t *n,
			  struct err *e)
{
	char *sdir = path_join(c->dir, "snapshots");
	if (!sdir)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	DIR *d = opendir(sdir);
	free(sdir);
	if (!d)
		return 0;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len <= strlen(suf) || strcmp(de->d_name + len - strlen(suf), suf) != 0)
			continue;
		char **nl = realloc(*ids, (*n + 1) * sizeof(char *));
		if (!nl) {
			rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		*ids = nl;
		if (!(nl[*n] = xstrdup(de->d_name))) {
			rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
			break;
		}
		nl[(*n)++][len - strlen(suf)] = '\0';
	}
	(void)closedir(d);
	if (*n)
		qsort(*ids, *n, sizeof(char *), cmp_str);
	return rc;
}

int capture_open(const char *dir, struct capture **out, struct err *e)
{
	static const char *const traces[] = {"trace.txt.zst", "trace.txt", "trace.txt.gz",
					     "trace.txt.xz"};
	if (!capture_is_dir(dir))
		return err_at(e, SLABSIM_EIO, dir, 0, "not a capture directory");
	struct capture *c = calloc(1, sizeof(*c));
	if (!c || !(c->dir = xstrdup(dir))) {
		free(c);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	c->cmdline.slub_min_order = c->cmdline.slub_max_order = c->cmdline.slub_min_objects = -1;
	int rc = 0;
	char *p = NULL, *text = NULL;
	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]) && !c->trace; i++) {
		if (!(p = path_join(dir, traces[i])))
			goto nomem;
		if (file_exists(p))
			c->trace = p;
		else
			free(p);
		p = NULL;
	}
	if (!c->trace) {
		rc = err_at(e, SLABSIM_EIO, dir, 0,
			    "capture directory without trace.txt.zst or trace.txt");
		goto fail;
	}
#define PART(name)                                                                                 \
	do {                                                                                       \
		free(p);                                                                           \
		if (!(p = path_join(dir, name)))                                                   \
			goto nomem;                                                                \
	} while (0)
	PART("uname.txt");
	if (file_exists(p)) {
		if ((rc = slurp(p, &text, e)) ||
		    (rc = capture_parse_uname(text, p, c->release, sizeof(c->release), &c->major,
					      &c->minor, e)))
			goto fail;
		c->has_uname = true;
		free(text);
		text = NULL;
	}
	PART("cmdline.txt");
	if (file_exists(p)) {
		if ((rc = slurp(p, &text, e)) ||
		    (rc = capture_parse_cmdline(text, p, &c->cmdline, e)))
			goto fail;
		c->has_cmdline = true;
		free(text);
		text = NULL;
	}
	PART("ncpus.txt");
	if (file_exists(p) && (rc = read_ncpus(c, p, e)))
		goto fail;
	PART("capture-info.txt");
	if (file_exists(p) && (rc = read_info(c, p, e)))
		goto fail;
	PART("system-map.txt");
	if (file_exists(p) && (rc = read_system_map(c, p, e)))
		goto fail;
	PART("lost-events.txt");
	if (file_exists(p)) {
		if ((rc = read_lost(c, p, e)))
			goto fail;
		c->has_lost = true;
	}
	PART("slab-attrs.tsv");
	if (file_exists(p)) {
		if ((rc = capture_read_attrs(p, &c->attrs, e)))
			goto fail;
		capture_attrs_missing(&c->attrs, c->attrs_missing, sizeof(c->attrs_missing));
		c->has_attrs = !c->attrs_missing[0];
	}
	PART("slab-attrs-start.tsv");
	if (file_exists(p)) {
		if ((rc = capture_read_attrs(p, &c->attrs_start, e)))
			goto fail;
		c->has_attrs_start = true;
	}
	PART("slabinfo.txt");
	if (file_exists(p)) {
		if ((rc = capture_read_slabinfo(p, &c->end, e)))
			goto fail;
		c->has_end = true;
	}
	PART("slabinfo-start.txt");
	if (file_exists(p)) {
		if ((rc = capture_read_slabinfo(p, &c->start, e)))
			goto fail;
		c->has_start = true;
	}
	PART("meminfo-start.txt");
	if (file_exists(p)) {
		if ((rc = capture_read_meminfo(p, &c->meminfo_start, e)))
			goto fail;
		c->has_meminfo_start = true;
	}
	PART("meminfo.txt");
	if (file_exists(p)) {
		if ((rc = capture_read_meminfo(p, &c->meminfo_end, e)))
			goto fail;
		c->has_meminfo_end = true;
	}
#undef PART
	free(p);
	p = NULL;
	if ((rc = list_snapshots(c, ".slabinfo", &c->snapshot_ids, &c->nsnapshots, e)) ||
	    (rc = list_snapshots(c, ".meminfo", &c->meminfo_ids, &c->nmeminfo, e)))
		goto fail;
	*out = c;
	return 0;
nomem:
	rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
fail:
	free(p);
	free(text);
	capture_close(c);
	return rc;
}

void capture_close(struct capture *c)
{
	if (!c)
		return;
	free(c->dir);
	free(c->trace);
	capture_cmdline_free(&c->cmdline);
	capture_attrs_free(&c->attrs);
	capture_attrs_free(&c->attrs_start);
	capture_slabinfo_free(&c->end);
	capture_slabinfo_free(&c->start);
	for (uint32_t i = 0; i < c->nsnapshots; i++)
		free(c->snapshot_ids[i]);
	free(c->snapshot_ids);
	for (uint32_t i = 0; i < c->nmeminfo; i++)
		free(c->meminfo_ids[i]);
	free(c->meminfo_ids);
	free(c->syms);
	free(c->syms_names);
	free(c);
}

int capture_read_snapshot(const struct capture *c, const char *id, struct capture_slabinfo *out,
			  struct err *e)
{
	size_t n = strlen(c->dir) + strlen(id) + 32;
	char *p = malloc(n);
	if (!p)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	(void)snprintf(p, n, "%s/snapshots/%s.slabinfo", c->dir, id);
	int rc = capture_read_slabinfo(p, out, e);
	free(p);
	return rc;
}

int capture_read_snapshot_meminfo(const struct capture *c, const char *id,
				  struct capture_meminfo *out, struct err *e)
{
	size_t n = strlen(c->dir) + strlen(id) + 32;
	char *p = malloc(n);
	if (!p)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	(void)snprintf(p, n, "%s/snapshots/%s.meminfo", c->dir, id);
	int rc = capture_read_meminfo(p, out, e);
	free(p);
	return rc;
}

/* "WORD ID" marker text -> ID (pointer into text), or NULL. */
static const char *marker_id(const char *text, const char *word)
{
	size_t n = strlen(word);
	if (!text || strncmp(text, word, n) != 0 || (text[n] != ' ' && text[n] != '\t'))
		return NULL;
	text += n;
	while (*text == ' ' || *text == '\t')
		text++;
	return *text ? text : NULL;
}

const char *capture_snap_read_id(const char *text)
{
	return marker_id(text, "SNAP-READ");
}

const char *capture_snap_id(const char *text)
{
	return marker_id(text, "SNAP");
}
