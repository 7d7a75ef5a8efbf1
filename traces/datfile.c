/* datfile.c - a trace.dat's container, read from a mapping of the file.
 *
 * The layout (trace-cmd.dat(5), versions 6 and 7, as trace-cmd 3.x writes
 * them): 10 magic bytes ("\027\010Dtracing"), the version as a string, a
 * byte saying big endian, the user space's long size, a 32-bit page size;
 * every number after that in the file's byte order.
 *
 * Version 6 runs on in a fixed order: "header_page" and "header_event" (each
 * a 64-bit size and text), the ftrace formats (a count, then a 64-bit size
 * and text each), the event systems (a count; each a name, a count, then
 * sizes and texts), the symbol table and the printk formats (a 32-bit size
 * and text each), the saved command lines (a 64-bit size and text), the
 * CPU count, "options  " and options (a 16-bit id, a 32-bit size, data;
 * id 0 with no size ends them), then "flyrecord" and a 64-bit offset and
 * size per CPU: its pages, uncompressed.
 *
 * Version 7 puts the compression's name and version after the page size,
 * then the offset of the first options section; everything else is in
 * sections (a 16-bit id, 16-bit flags, a 32-bit string id, a 64-bit size)
 * that the options point to. A compressed section (flag 1) holds a 32-bit
 * compressed and uncompressed size and the compressed bytes. The last
 * option of a section (0) holds the next options section's offset, 0 at
 * the end. The BUFFER option of the top instance (name "") gives each
 * CPU's id, data offset and size (after the sub-buffer size, in files of
 * trace-cmd 3.x); compressed data is a 32-bit chunk count,
 * then per chunk a 32-bit compressed and uncompressed size and the bytes.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE */
#include "datfile.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "err.h"

#ifdef SLABSIM_HAVE_ZSTD
#include <zstd.h>
#endif

/* Option ids the reader acts on (trace-cmd.dat(5)). */
enum {
	OPT_DONE = 0,
	OPT_DATE = 1,
	OPT_CPUSTAT = 2,
	OPT_BUFFER = 3,
	OPT_TRACECLOCK = 4,
	OPT_OFFSET = 7,
	OPT_CPUCOUNT = 8,
	OPT_TIME_SHIFT = 12,
	OPT_TSC2NSEC = 14,
	OPT_HEADER_INFO = 16,
	OPT_FTRACE_EVENTS = 17,
	OPT_EVENT_FORMATS = 18,
	OPT_KALLSYMS = 19,
	OPT_BUFFER_TEXT = 22,
};

/* Page padding: the page walk (or kbuffer) reads an event's header words
 * before it knows the event's length. */
#define PAD 64
/* The largest uncompressed section and data chunk believed: a corrupt size
 * must not become an allocation of gigabytes (trace-cmd writes sections of
 * a few MiB and chunks of a few pages). */
#define SECTION_MAX (256u << 20)
#define CHUNK_MAX   (64u << 20)

/* A decompressed section: malloc'd, or (mapped) a mapping of len bytes. */
struct secbuf {
	uint8_t *p;
	size_t len;
	bool mapped;
};

/* Sections from this size on are mapped with their pages populated at
 * once: the event formats of a 6.18 kernel decompress to 2 MiB, and
 * faulting in its 500 pages one by one as zstd wrote them cost a twentieth
 * of the CPU time of a replay of a small trace. */
#define SECTION_MAP (256u << 10)

/* What is being read: [p, p + n), at off. */
struct cur {
	const uint8_t *p;
	size_t n, off;
	bool big;
	bool bad; /* read past the end */
};

struct cpu {
	uint64_t off, size; /* in the file */
	/* uncompressed data: the next page's offset in the file */
	uint64_t next;
	/* compressed: chunks left, the next chunk's offset, the current
	 * chunk decompressed and the next page in it */
	uint32_t chunks;
	uint8_t *chunk;
	size_t chunk_len, chunk_cap, chunk_at;
	uint8_t *page; /* page_size + PAD: the page handed out */
};

struct datfile {
	const uint8_t *map;
	size_t size;
	bool big;
	int long_size, page_size, version;
	bool compressed; /* data and flagged sections are zstd */
	const char *hpage;
	size_t hpage_len;
	struct datfile_format *fmt;
	size_t nfmt, fmt_cap;
	/* the formats' names, NUL-terminated, packed in blocks (a 6.18
	 * kernel's 2,300 names were as many mallocs and frees) */
	char **name_blk;
	size_t nname_blk, name_used, name_cap; /* the last block's */
	char *kallsyms;
	char *cpustats;
	size_t cpustats_len;
	int ncpu;      /* CPUCOUNT (v7) / the count (v6) */
	int data_cpus; /* CPUs with data */
	struct cpu *cpu;
	struct secbuf *bufs; /* decompressed sections, freed at close */
	size_t nbufs;
	/* v7 section offsets from the options */
	uint64_t sec_header, sec_ftrace, sec_events, sec_kallsyms;
	bool have_buffer;
	bool unsupported;
	bool borrowed; /* map is the caller's (datfile_open_tracing) */
#ifdef SLABSIM_HAVE_ZSTD
	ZSTD_DCtx *zctx; /* one for all chunks: ZSTD_decompress makes one per call */
#endif
};

static uint64_t rd(struct cur *c, size_t w)
{
	uint64_t v = 0;
	if (c->bad || w > c->n - c->off || c->off > c->n) {
		c->bad = true;
		return 0;
	}
	const uint8_t *q = c->p + c->off;
	for (size_t i = 0; i < w; i++)
		v |= (uint64_t)q[c->big ? w - 1 - i : i] << (8 * i);
	c->off += w;
	return v;
}

/* A NUL-terminated string at the cursor, or NULL. */
static const char *rd_str(struct cur *c)
{
	if (c->bad || c->off >= c->n) {
		c->bad = true;
		return NULL;
	}
	const char *s = (const char *)c->p + c->off;
	const char *z = memchr(s, '\0', c->n - c->off);
	if (!z) {
		c->bad = true;
		return NULL;
	}
	c->off += (size_t)(z - s) + 1;
	return s;
}

/* n bytes at the cursor, or NULL. */
static const uint8_t *rd_bytes(struct cur *c, uint64_t n)
{
	if (c->bad || c->off > c->n || n > c->n - c->off) {
		c->bad = true;
		return NULL;
	}
	const uint8_t *q = c->p + c->off;
	c->off += (size_t)n;
	return q;
}

/* ---- Event formats ----------------------------------------------------- */

/* The value after "key" at a line's start in text, as a string (name) or a
 * number (ID). */
static const char *line_value(const char *text, size_t len, const char *key, size_t *vlen)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i + kl <= len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;
		if (end - i >= kl && memcmp(text + i, key, kl) == 0) {
			*vlen = end - i - kl;
			return text + i + kl;
		}
		i = end + 1;
	}
	return NULL;
}

#define NAME_BLOCK 16384

/* A NUL-terminated copy of [s, s + n) in the name blocks, or NULL. */
static const char *keep_name(struct datfile *d, const char *s, size_t n)
{
	if (n + 1 > d->name_cap - d->name_used) {
		size_t sz = n + 1 > NAME_BLOCK ? n + 1 : NAME_BLOCK;
		char **b = realloc(d->name_blk, (d->nname_blk + 1) * sizeof(*b));
		if (!b)
			return NULL;
		d->name_blk = b;
		if (!(b[d->nname_blk] = malloc(sz)))
			return NULL;
		d->nname_blk++;
		d->name_used = 0;
		d->name_cap = sz;
	}
	char *p = d->name_blk[d->nname_blk - 1] + d->name_used;
	memcpy(p, s, n);
	p[n] = '\0';
	d->name_used += n + 1;
	return p;
}

static int add_format(struct datfile *d, const char *system, const uint8_t *text, size_t len)
{
	const char *t = (const char *)text, *v;
	size_t vl;
	if (d->nfmt == d->fmt_cap) {
		size_t n = d->fmt_cap ? 2 * d->fmt_cap : 256;
		struct datfile_format *f = realloc(d->fmt, n * sizeof(*f));
		if (!f)
			return SLABSIM_ENOMEM;
		d->fmt = f;
		d->fmt_cap = n;
	}
	struct datfile_format *f = &d->fmt[d->nfmt];
	*f = (struct datfile_format){.system = system, .id = -1, .text = t, .len = len};
	/* as tracefs writes them, "name: " is the first line and "ID: " the
	 * second: looked for there first */
	const char *nl = len > 6 && memcmp(t, "name: ", 6) == 0 ? memchr(t, '\n', len) : NULL;
	if (nl) {
		v = t + 6;
		vl = (size_t)(nl - v);
	} else {
		v = line_value(t, len, "name: ", &vl);
	}
	if (!(f->name = keep_name(d, v ? v : "", v ? vl : 0)))
		return SLABSIM_ENOMEM;
	size_t rest = nl ? len - (size_t)(nl + 1 - t) : 0;
	if (rest >= 4 && memcmp(nl + 1, "ID: ", 4) == 0) {
		v = nl + 5;
		const char *e = memchr(v, '\n', rest - 4);
		vl = e ? (size_t)(e - v) : rest - 4;
	} else {
		v = line_value(t, len, "ID: ", &vl);
	}
	if (v) {
		long id = 0;
		size_t i = 0;
		for (; i < vl && i < 9 && v[i] >= '0' && v[i] <= '9'; i++)
			id = id * 10 + (v[i] - '0');
		f->id = i ? (int)id : -1;
	}
	d->nfmt++;
	return 0;
}

/* A count of format files, each a 64-bit size and its text. */
static int read_format_files(struct datfile *d, struct cur *c, const char *system)
{
	uint32_t n = (uint32_t)rd(c, 4);
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		uint64_t len = rd(c, 8);
		const uint8_t *t = rd_bytes(c, len);
		if (t && add_format(d, system, t, (size_t)len))
			return SLABSIM_ENOMEM;
	}
	return 0;
}

static int read_event_systems(struct datfile *d, struct cur *c)
{
	uint32_t n = (uint32_t)rd(c, 4);
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		const char *system = rd_str(c);
		if (system && read_format_files(d, c, system))
			return SLABSIM_ENOMEM;
	}
	return 0;
}

static int read_header_info(struct datfile *d, struct cur *c)
{
	const uint8_t *tag = rd_bytes(c, 12);
	if (!tag || memcmp(tag, "header_page", 12) != 0) {
		c->bad = true;
		return 0;
	}
	uint64_t len = rd(c, 8);
	d->hpage = (const char *)rd_bytes(c, len);
	d->hpage_len = (size_t)len;
	tag = rd_bytes(c, 13);
	if (!tag || memcmp(tag, "header_event", 13) != 0) {
		c->bad = true;
		return 0;
	}
	len = rd(c, 8);
	(void)rd_bytes(c, len);
	return 0;
}

/* A 32-bit size and text: kallsyms, copied NUL-terminated. */
static int read_kallsyms(struct datfile *d, struct cur *c)
{
	uint32_t len = (uint32_t)rd(c, 4);
	const uint8_t *t = rd_bytes(c, len);
	if (!t)
		return 0;
	free(d->kallsyms);
	if (!(d->kallsyms = malloc((size_t)len + 1)))
		return SLABSIM_ENOMEM;
	memcpy(d->kallsyms, t, len);
	d->kallsyms[len] = '\0';
	return 0;
}

/* ---- Options --------------------------------------------------------------- */

static int add_cpustat(struct datfile *d, const uint8_t *s, size_t n)
{
	char *p = realloc(d->cpustats, d->cpustats_len + n + 2);
	if (!p)
		return SLABSIM_ENOMEM;
	d->cpustats = p;
	memcpy(p + d->cpustats_len, s, n);
	d->cpustats_len += n;
	/* the text is NUL-terminated in the file: end it in a newline */
	while (d->cpustats_len && p[d->cpustats_len - 1] == '\0')
		d->cpustats_len--;
	if (d->cpustats_len && p[d->cpustats_len - 1] != '\n')
		p[d->cpustats_len++] = '\n';
	p[d->cpustats_len] = '\0';
	return 0;
}

/* The selected clock ("[local] global ..." or a bare name) is one whose
 * timestamps libtracecmd hands over as they are. */
static bool plain_clock(const char *s, size_t n)
{
	static const char *const ok[] = {"local", "global", "mono", "mono_raw", "boot", "perf"};
	const char *b = memchr(s, '[', n), *e;
	size_t len;
	if (b) {
		e = memchr(b, ']', n - (size_t)(b - s));
		if (!e)
			return false;
		b++;
		len = (size_t)(e - b);
	} else {
		b = s;
		len = strnlen(s, n);
		while (len && (b[len - 1] == '\n' || b[len - 1] == ' '))
			len--;
	}
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strlen(ok[i]) == len && memcmp(ok[i], b, len) == 0)
			return true;
	return false;
}

/* The top instance's BUFFER option (v7): its CPUs' data. */
static int read_buffer(struct datfile *d, struct cur *o)
{
	(void)rd(o, 8); /* the section's offset: the CPUs' offsets suffice */
	const char *name = rd_str(o);
	const char *clock = rd_str(o);
	if (o->bad || !name || !clock)
		return 0;
	if (*name) /* another instance: not read by the report either */
		return 0;
	if (!plain_clock(clock, strlen(clock))) {
		d->unsupported = true;
		return 0;
	}
	/* trace-cmd 3.x (libtracecmd 1.3+) writes the instance's sub-buffer
	 * size before the count: told apart by what is left, 20 bytes a CPU */
	if (o->n >= o->off && (o->n - o->off) % 20 == 8 && rd(o, 4) != (uint64_t)d->page_size) {
		d->unsupported = true;
		return 0;
	}
	uint32_t n = (uint32_t)rd(o, 4);
	if (o->bad || n > 4096 || d->have_buffer) {
		d->unsupported = true;
		return 0;
	}
	free(d->cpu);
	if (!(d->cpu = calloc((size_t)n + 1, sizeof(*d->cpu))))
		return SLABSIM_ENOMEM;
	d->data_cpus = (int)n;
	d->have_buffer = true;
	for (uint32_t i = 0; i < n && !o->bad; i++) {
		uint32_t id = (uint32_t)rd(o, 4);
		d->cpu[i].off = rd(o, 8);
		d->cpu[i].size = rd(o, 8);
		if (id != i)
			d->unsupported = true;
	}
	return 0;
}

/* One run of options up to DONE; *next: the v7 DONE's next offset. */
static int read_options(struct datfile *d, struct cur *c, uint64_t *next)
{
	*next = 0;
	for (int guard = 0; guard < 1 << 20 && !c->bad; guard++) {
		uint16_t id = (uint16_t)rd(c, 2);
		if (id == OPT_DONE && d->version < 7)
			return 0;
		uint32_t size = (uint32_t)rd(c, 4);
		const uint8_t *data = rd_bytes(c, size);
		if (!data)
			return 0;
		struct cur o = {.p = data, .n = size, .big = d->big};
		int rc = 0;
		switch (id) {
		case OPT_DONE:
			*next = rd(&o, 8);
			return 0;
		case OPT_CPUSTAT:
			rc = add_cpustat(d, data, size);
			break;
		case OPT_BUFFER:
			if (d->version >= 7)
				rc = read_buffer(d, &o);
			break;
		case OPT_TRACECLOCK:
			if (!plain_clock((const char *)data, size))
				d->unsupported = true;
			break;
		case OPT_DATE:
		case OPT_OFFSET:
		case OPT_TIME_SHIFT:
		case OPT_TSC2NSEC:
		case OPT_BUFFER_TEXT:
			/* timestamps libtracecmd would shift or convert; a latency trace */
			d->unsupported = true;
			break;
		case OPT_CPUCOUNT:
			d->ncpu = (int)rd(&o, 4);
			break;
		case OPT_HEADER_INFO:
			d->sec_header = rd(&o, 8);
			break;
		case OPT_FTRACE_EVENTS:
			d->sec_ftrace = rd(&o, 8);
			break;
		case OPT_EVENT_FORMATS:
			d->sec_events = rd(&o, 8);
			break;
		case OPT_KALLSYMS:
			d->sec_kallsyms = rd(&o, 8);
			break;
		default:
			break;
		}
		if (rc)
			return rc;
		if (o.bad)
			c->bad = true;
	}
	return 0;
}

/* ---- Version 7 sections ------------------------------------------------------ */

static int decompress(struct datfile *d, const uint8_t *src, size_t n, uint8_t *dst, size_t want)
{
#ifdef SLABSIM_HAVE_ZSTD
	if (!d->zctx && !(d->zctx = ZSTD_createDCtx()))
		return -1;
	size_t r = ZSTD_decompressDCtx(d->zctx, dst, want, src, n);
	return !ZSTD_isError(r) && r == want ? 0 : -1;
#else
	(void)d, (void)src, (void)n, (void)dst, (void)want;
	return -1;
#endif
}

/* The section at off with the id wanted: *c its (decompressed) data. */
static int open_section(struct datfile *d, uint64_t off, uint16_t want, struct cur *c)
{
	struct cur h = {.p = d->map, .n = d->size, .off = (size_t)off, .big = d->big};
	*c = (struct cur){.bad = true};
	if (off >= d->size)
		return 0;
	uint16_t id = (uint16_t)rd(&h, 2);
	uint16_t flags = (uint16_t)rd(&h, 2);
	(void)rd(&h, 4); /* the description's string id */
	uint64_t size = rd(&h, 8);
	const uint8_t *data = rd_bytes(&h, size);
	if (h.bad || id != want || !data)
		return 0;
	if (!(flags & 1)) {
		*c = (struct cur){.p = data, .n = (size_t)size, .big = d->big};
		return 0;
	}
	struct cur z = {.p = data, .n = (size_t)size, .big = d->big};
	uint32_t csize = (uint32_t)rd(&z, 4), usize = (uint32_t)rd(&z, 4);
	const uint8_t *cdata = rd_bytes(&z, csize);
	if (z.bad || !d->compressed || usize > SECTION_MAX)
		return 0;
	struct secbuf *b = realloc(d->bufs, (d->nbufs + 1) * sizeof(*b));
	if (!b)
		return SLABSIM_ENOMEM;
	d->bufs = b;
	struct secbuf *sb = &b[d->nbufs];
	*sb = (struct secbuf){.len = (size_t)usize + 1};
	if (usize >= SECTION_MAP) {
		void *m = mmap(NULL, sb->len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		sb->p = m == MAP_FAILED ? NULL : m;
		sb->mapped = sb->p != NULL;
	} else {
		sb->p = malloc(sb->len);
	}
	if (!sb->p)
		return SLABSIM_ENOMEM;
	uint8_t *u = sb->p;
	d->nbufs++;
	if (decompress(d, cdata, csize, u, usize))
		return 0;
	*c = (struct cur){.p = u, .n = usize, .big = d->big};
	return 0;
}

static int read_v7(struct datfile *d, struct cur *c)
{
	const char *comp = rd_str(c);
	(void)rd_str(c); /* its version */
	uint64_t opt = rd(c, 8);
	int rc;
	if (c->bad)
		return 0;
	if (strcmp(comp, "none") == 0)
		d->compressed = false;
#ifdef SLABSIM_HAVE_ZSTD
	else if (strcmp(comp, "zstd") == 0)
		d->compressed = true;
#endif
	else {
		d->unsupported = true;
		return 0;
	}
	for (int n = 0; opt && n < 64; n++) {
		struct cur o;
		if ((rc = open_section(d, opt, 0, &o)))
			return rc;
		if (o.bad) {
			c->bad = true;
			return 0;
		}
		if ((rc = read_options(d, &o, &opt)))
			return rc;
		if (o.bad) {
			c->bad = true;
			return 0;
		}
	}
	struct cur s;
	if ((rc = open_section(d, d->sec_header, OPT_HEADER_INFO, &s)) ||
	    (rc = read_header_info(d, &s)))
		return rc;
	c->bad |= s.bad;
	if ((rc = open_section(d, d->sec_ftrace, OPT_FTRACE_EVENTS, &s)) ||
	    (rc = read_format_files(d, &s, "ftrace")))
		return rc;
	c->bad |= s.bad;
	if ((rc = open_section(d, d->sec_events, OPT_EVENT_FORMATS, &s)) ||
	    (rc = read_event_systems(d, &s)))
		return rc;
	c->bad |= s.bad;
	if (d->sec_kallsyms) {
		if ((rc = open_section(d, d->sec_kallsyms, OPT_KALLSYMS, &s)) ||
		    (rc = read_kallsyms(d, &s)))
			return rc;
		c->bad |= s.bad;
	}
	if (!d->have_buffer || d->ncpu != d->data_cpus)
		d->unsupported = true;
	return 0;
}

static int read_v6(struct datfile *d, struct cur *c)
{
	int rc;
	if ((rc = read_header_info(d, c)) || (rc = read_format_files(d, c, "ftrace")) ||
	    (rc = read_event_systems(d, c)) || (rc = read_kallsyms(d, c)))
		return rc;
	(void)rd_bytes(c, rd(c, 4)); /* printk formats */
	(void)rd_bytes(c, rd(c, 8)); /* saved command lines */
	d->ncpu = (int)rd(c, 4);
	const uint8_t *tag = rd_bytes(c, 10);
	uint64_t next;
	if (tag && memcmp(tag, "options  ", 10) == 0) {
		if ((rc = read_options(d, c, &next)))
			return rc;
		tag = rd_bytes(c, 10);
	}
	if (c->bad || !tag || memcmp(tag, "flyrecord", 10) != 0 || d->ncpu <= 0 || d->ncpu > 4096) {
		d->unsupported = true;
		return 0;
	}
	if (!(d->cpu = calloc((size_t)d->ncpu + 1, sizeof(*d->cpu))))
		return SLABSIM_ENOMEM;
	d->data_cpus = d->ncpu;
	for (int i = 0; i < d->ncpu; i++) {
		d->cpu[i].off = rd(c, 8);
		d->cpu[i].size = rd(c, 8);
	}
	d->compressed = false;
	return 0;
}

/* Every CPU's data inside the file; positioned at its start. */
static bool check_cpus(struct datfile *d)
{
	size_t ps = (size_t)d->page_size;
	for (int i = 0; i < d->data_cpus; i++) {
		struct cpu *u = &d->cpu[i];
		if (u->off > d->size || u->size > d->size - u->off)
			return false;
		if (!d->compressed && u->size % ps)
			return false;
		if (!(u->page = calloc(1, ps + PAD)))
			return false;
		u->next = u->off;
		if (d->compressed && u->size) {
			struct cur c = {.p = d->map,
					.n = (size_t)(u->off + u->size),
					.off = (size_t)u->off,
					.big = d->big};
			u->chunks = (uint32_t)rd(&c, 4);
			u->next = c.off;
			if (c.bad)
				return false;
		}
	}
	return true;
}

int datfile_open(int fd, struct datfile **out)
{
	struct stat st;
	struct datfile *d;
	int rc = 1;

	*out = NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 64)
		return 1;
	if (!(d = calloc(1, sizeof(*d))))
		return SLABSIM_ENOMEM;
	d->size = (size_t)st.st_size;
	void *m = mmap(NULL, d->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		free(d);
		return 1;
	}
	d->map = m;
	(void)posix_madvise(m, d->size, POSIX_MADV_SEQUENTIAL);
	struct cur c = {.p = d->map, .n = d->size};
	const uint8_t *magic = rd_bytes(&c, 10);
	const char *ver = rd_str(&c);
	if (!magic || memcmp(magic, "\027\010Dtracing", 10) != 0 || !ver)
		goto out;
	d->version = strcmp(ver, "6") == 0 ? 6 : strcmp(ver, "7") == 0 ? 7 : 0;
	d->big = rd(&c, 1) != 0;
	c.big = d->big;
	d->long_size = (int)rd(&c, 1);
	d->page_size = (int)rd(&c, 4);
	if (!d->version || c.bad || d->page_size < 256 || d->page_size > (1 << 24) ||
	    (d->page_size & (d->page_size - 1)))
		goto out;
	int r = d->version == 7 ? read_v7(d, &c) : read_v6(d, &c);
	if (r) {
		rc = r;
		goto out;
	}
	if (c.bad || d->unsupported || !d->hpage || d->data_cpus <= 0 || !check_cpus(d))
		goto out;
	*out = d;
	return 0;
out:
	datfile_close(d);
	return rc;
}

/* perf's tracing data (the HEADER_TRACING_DATA section of a perf.data,
 * tools/perf/util/trace-event-info.c): the head of a version 6 trace.dat
 * under version "0.6" (perf's own numbering) and without CPU data: magic,
 * version, byte order, long size, page size, the two headers, the ftrace
 * and event formats, kallsyms (perf writes an empty one), printk formats
 * and, from 0.6, the saved command lines. */
int datfile_open_tracing(const uint8_t *p, size_t n, struct datfile **out)
{
	struct datfile *d;
	int rc = 1;

	*out = NULL;
	if (!(d = calloc(1, sizeof(*d))))
		return SLABSIM_ENOMEM;
	d->map = p;
	d->size = n;
	d->borrowed = true;
	struct cur c = {.p = p, .n = n};
	const uint8_t *magic = rd_bytes(&c, 10);
	const char *ver = rd_str(&c);
	if (!magic || memcmp(magic, "\027\010Dtracing", 10) != 0 || !ver)
		goto out;
	d->version = 6;
	d->big = rd(&c, 1) != 0;
	c.big = d->big;
	d->long_size = (int)rd(&c, 1);
	d->page_size = (int)rd(&c, 4);
	if (c.bad)
		goto out;
	if ((rc = read_header_info(d, &c)) || (rc = read_format_files(d, &c, "ftrace")) ||
	    (rc = read_event_systems(d, &c)) || (rc = read_kallsyms(d, &c)))
		goto out;
	rc = 1;
	if (c.bad || !d->hpage)
		goto out;
	*out = d;
	return 0;
out:
	datfile_close(d);
	return rc;
}

void datfile_close(struct datfile *d)
{
	if (!d)
		return;
	for (int i = 0; d->cpu && i < d->data_cpus; i++) {
		free(d->cpu[i].chunk);
		free(d->cpu[i].page);
	}
	free(d->cpu);
	for (size_t i = 0; i < d->nname_blk; i++)
		free(d->name_blk[i]);
	free(d->name_blk);
	free(d->fmt);
	for (size_t i = 0; i < d->nbufs; i++) {
		if (d->bufs[i].mapped)
			munmap(d->bufs[i].p, d->bufs[i].len);
		else
			free(d->bufs[i].p);
	}
	free(d->bufs);
	free(d->kallsyms);
	free(d->cpustats);
	if (d->map && !d->borrowed)
		munmap((void *)d->map, d->size);
#ifdef SLABSIM_HAVE_ZSTD
	ZSTD_freeDCtx(d->zctx);
#endif
	free(d);
}

bool datfile_big_endian(const struct datfile *d)
{
	return d->big;
}

int datfile_long_size(const struct datfile *d)
{
	return d->long_size;
}

int datfile_page_size(const struct datfile *d)
{
	return d->page_size;
}

const char *datfile_header_page(const struct datfile *d, size_t *len)
{
	*len = d->hpage_len;
	return d->hpage;
}

size_t datfile_nformats(const struct datfile *d)
{
	return d->nfmt;
}

const struct datfile_format *datfile_format(const struct datfile *d, size_t i)
{
	return i < d->nfmt ? &d->fmt[i] : NULL;
}

const char *datfile_kallsyms(const struct datfile *d)
{
	return d->kallsyms;
}

const char *datfile_cpustats(const struct datfile *d)
{
	return d->cpustats;
}

int datfile_cpus(const struct datfile *d)
{
	return d->data_cpus;
}

/* Decompress cpu's next chunk: 1, 0 at the end, -1 corrupt. */
static int next_chunk(struct datfile *d, struct cpu *u)
{
	if (!u->chunks)
		return 0;
	/* the chunks may run past the CPU's size in the BUFFER option (seen
	 * in trace-cmd 3.1.6's files): only the file bounds them */
	struct cur c = {.p = d->map, .n = d->size, .off = (size_t)u->next, .big = d->big};
	uint32_t csize = (uint32_t)rd(&c, 4), usize = (uint32_t)rd(&c, 4);
	const uint8_t *src = rd_bytes(&c, csize);
	if (c.bad || usize % (uint32_t)d->page_size || usize > CHUNK_MAX)
		return -1;
	if (usize > u->chunk_cap) {
		/* with PAD zero bytes after it, as a page handed out has */
		uint8_t *b = realloc(u->chunk, (size_t)usize + PAD);
		if (!b)
			return -1;
		u->chunk = b;
		u->chunk_cap = usize;
	}
	memset(u->chunk + usize, 0, PAD);
	if (usize && decompress(d, src, csize, u->chunk, usize))
		return -1;
	u->chunks--;
	u->next = c.off;
	u->chunk_len = usize;
	u->chunk_at = 0;
	return 1;
}

int datfile_next_page(struct datfile *d, int cpu, const uint8_t **page)
{
	size_t ps = (size_t)d->page_size;
	struct cpu *u;
	const uint8_t *src;

	if (cpu < 0 || cpu >= d->data_cpus)
		return 0;
	u = &d->cpu[cpu];
	if (d->compressed) {
		while (u->chunk_at >= u->chunk_len) {
			int r = next_chunk(d, u);
			if (r <= 0)
				return r;
		}
		/* decompressed memory is ours: handed out in place */
		*page = u->chunk + u->chunk_at;
		u->chunk_at += ps;
		return 1;
	} else {
		if (u->next >= u->off + u->size)
			return 0;
		src = d->map + u->next;
		u->next += ps;
	}
	/* a copy with zeros after it: a corrupt page can send the parser a
	 * few bytes past its end, never outside memory we own */
	memcpy(u->page, src, ps);
	*page = u->page;
	return 1;
}
