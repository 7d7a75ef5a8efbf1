/* perfdata.c - a perf.data of kmem tracepoints, read as perf script prints
 * it (perf 6.1, tools/perf/util/{header,session,ordered-events}.c).
 *
 * The file: a header (magic, the attrs, the data section, a bitmap of the
 * feature sections that follow the data), the attrs (perf_event_attr and
 * the sample ids of each), the records of the data section, and features
 * of which three are read here: the tracing data (the event formats, as a
 * trace.dat's head holds them: datfile.c), the build ids (the kernel's, to
 * find its symbols) and the CPU count.
 *
 * Order: perf script does not print the records in file order. Every
 * record with a time (a sample's, or the sample_id_all trailer's of other
 * records) goes into a queue kept sorted by time, an equal time after
 * those already there; a FINISHED_ROUND record hands on the queued records
 * of time <= the largest time queued when the round before it ended (a
 * round that finds the queue empty changes nothing); the end of the file
 * hands on the rest. Records without a time (0 or all ones) are handed on
 * at once. The queue here does the same, so samples come out in perf's
 * order, even a late one (time below the last handed on), which perf
 * counts as "out of order" and prints all the same.
 *
 * A sample: time truncated to the microsecond (perf script prints
 * "%lu.%06lu" of it), the task id of its TID word (perf script's tid
 * column), its CPU word; the tracepoint's record (its RAW data) read by the
 * event's format as tracedat.c reads a trace.dat's (evformat.c), the gfp
 * flags by the format's __print_flags table. call_site: libtraceevent's
 * %pS with perf's resolver, "name+0xoff" of the kernel symbol that holds
 * the address, "0x..." when none does.
 *
 * Symbols (tools/perf/util/symbol.c, __dso__load_kallsyms): from a kallsyms
 * text, the symbols of types T, W, D and B in either case
 * (symbol_type__filter). Each runs to the next one's start, the last
 * before a change between kernel and module symbols and the very last to
 * the page after their start's (symbols__fixup_end); of several at one
 * address only the last in the file then has a length, and
 * symbols__fixup_duplicate keeps it (choose_best_symbol's first rule). The
 * recorded kernel's place is the address of its reference symbol (the
 * "[kernel.kallsyms]_text" map record's pgoff): kallsyms of another boot
 * are shifted by the difference. A module's symbols name addresses only
 * in the recorded boot (no shift) and when the recording maps the module
 * (perf drops those of a module it has no map of).
 */
#define _GNU_SOURCE
#include "perfdata.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigmem.h"
#include "datfile.h"
#include "evformat.h"
#include "load.h"
#include "strtab.h"

#define MSG_MAX	     256
#define NAME_MAX_LEN 255
#define GFP_MEMO     16
#define NAME_MEMO    1024	/* cache names by a hash of their bytes */
#define SITE_MEMO    4096	/* call-site strings by address */
#define BUF_BYTES    (1u << 20) /* the data section read so much at a time */
#define BUF_PAD	     64		/* after it: num()'s loads past a record's end */

/* perf_event.h and tools/perf/util/header.h numbers */
enum {
	REC_MMAP = 1,
	REC_LOST = 2,
	REC_SAMPLE = 9,
	REC_MMAP2 = 10,
	REC_LOST_SAMPLES = 13,
	REC_USER_START = 64,
	REC_FINISHED_ROUND = 68,
	REC_COMPRESSED = 81,
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID = 2,
	FEAT_NRCPUS = 7,
	ATTR_TRACEPOINT = 2,
};
#define S_IP	     (1u << 0)
#define S_TID	     (1u << 1)
#define S_TIME	     (1u << 2)
#define S_ADDR	     (1u << 3)
#define S_READ	     (1u << 4)
#define S_CALLCHAIN  (1u << 5)
#define S_ID	     (1u << 6)
#define S_CPU	     (1u << 7)
#define S_PERIOD     (1u << 8)
#define S_STREAM_ID  (1u << 9)
#define S_RAW	     (1u << 10)
#define S_IDENTIFIER (1u << 16)
#define RF_ENABLED   (1u << 0)
#define RF_RUNNING   (1u << 1)
#define RF_ID	     (1u << 2)
#define RF_GROUP     (1u << 3)
#define RF_LOST	     (1u << 4)

/* A number field of a record: bytes [off, end), an 8-byte load at off
 * masked to its size (mask 0: the format has no such number). The load
 * may read up to 7 bytes past the record, never past buf's padding. */
struct nf {
	uint32_t off, end;
	uint64_t mask;
};

/* What a tracepoint's samples are, by its format (as tracedat.c's evinfo). */
struct kind {
	int type; /* TRACE_EV_*, -1: another event */
	bool alloc, page;
	/* the fields at their places (nf); name is a __data_loc word */
	struct nf site, ptr, req, alloc_b, gfp, node, acc, name, pfn, order;
	bool name_rel;	 /* __rel_loc: the offset counts from the word's end */
	bool acc_in_fmt; /* accounted= printed from gfp_flags */
	bool site_sym;	 /* call_site printed by %pS: symbolised */
	uint64_t account_bit;
	uint64_t *fval;
	uint32_t *fbits;
	int nflags;
	/* the gfp bits of the values met, direct-mapped (bits 0: empty) */
	uint64_t gfp_val[GFP_MEMO];
	uint32_t gfp_bits[GFP_MEMO];
	struct evformat *fmt;
};

struct attr {
	uint64_t sample_type, read_format, config;
	uint32_t type;
	bool id_all;
	int kind; /* index in kinds, -1 none */
	/* a sample type without READ or CALLCHAIN puts every field at a
	 * fixed place: TID's, TIME's, CPU's and the RAW size's offsets in
	 * the record (0: not in it), and the bytes they need */
	bool fixed;
	uint32_t tid_at, time_at, cpu_at, raw_at, need;
};

struct idmap {
	uint64_t id;
	uint32_t attr;
};

enum { Q_SITE = 1, Q_SITE_SYM = 2, Q_BAD = 4 };

/* A queued record: a sample decoded, or (ghost) another record's time. */
struct qent {
	uint64_t ts, ptr, site, req, balloc;
	uint32_t cpu, gfp, name; /* name: 1 + index in names, 0 none */
	int32_t pid, node;
	int8_t type, accounted; /* type -2: ghost, -1: another event's sample */
	uint8_t flags;		/* Q_* */
	const char *miss;	/* Q_BAD: the field missing */
	uint32_t prev, next;	/* the list (0 is the head) */
};

#define NO_MOD UINT32_MAX
struct sym {
	uint64_t addr, end;
	uint32_t name; /* offset in symtext */
	uint32_t mod;  /* offset in symtext of its module's name, NO_MOD */
};

/* A call site's string by its address (key: the address, its low bit
 * flipped for a site printed by %pS). */
struct site_slot {
	uint64_t key;
	const char *str; /* in site_strs; NULL: empty */
};

struct perfdata {
	char *path;
	int fd;
	const uint8_t *map;
	size_t size;
	uint64_t data_off, data_size, at; /* at: the next record's offset in data */
	/* the data section is read into buf (the mapping holds the rest):
	 * buf[0, blen) is the data at [bat, bat + blen) */
	uint8_t *buf;
	size_t blen;
	uint64_t bat;
	void (*hash)(void *ctx, const void *p, size_t n); /* perfdata_hash */
	void *hash_ctx;
	struct attr *attrs;
	size_t nattrs;
	struct idmap *ids;
	size_t nids;
	uint32_t *by_id; /* 1 + the attr of each id below nby_id (ids are small) */
	uint64_t nby_id;
	struct kind *kinds;
	size_t nkinds;
	struct datfile *df;
	uint32_t ncpus;
	char kbuild[41]; /* the kernel's build id (hex), "" unknown */
	/* the queue */
	struct qent *q;
	uint32_t qcap, qfree, qlast; /* qfree: a free list through next */
	uint64_t max_ts, next_flush, limit;
	bool flushing, at_end;
	struct qent now; /* a record without a time, handed on at once */
	bool have_now;
	/* call-site strings by address, direct-mapped: a few hundred sites
	 * make millions of events */
	struct site_slot *sites;
	/* every call-site string made, kept until close: what perfdata_next
	 * hands out stays valid (trace_next_batch takes many events at once) */
	struct strtab site_strs;
	char site[NAME_MAX_LEN + 24];
	/* cache names, interned, and 1 + the index of the last one met by a
	 * hash of its bytes */
	char **names;
	uint32_t *name_len;
	uint32_t nnames, names_cap;
	uint32_t name_memo[NAME_MEMO];
	/* symbols */
	char *symtext;
	size_t symtext_bytes; /* its bigmem size */
	struct sym *syms;
	size_t nsyms;
	char *symfile;
	char **mods; /* the modules the recording maps, "ext4" */
	size_t nmods;
	uint64_t ref_rec;  /* the reference symbol's recorded address */
	char ref_name[64]; /* its name ("_text"), "" none seen */
	int64_t delta;	   /* kallsyms address - recorded address */
	bool delta_set;
	uint64_t lost, lost_samples;
	bool have_lost;
	struct err fatal;
};

static int bad_file(struct perfdata *d, struct err *e, const char *what)
{
	return err_at(e, SLABSIM_EINPUT, d->path, 0, "perf.data: %s", what);
}

/* [off, off + len) within the file */
static bool in_file(const struct perfdata *d, uint64_t off, uint64_t len)
{
	return off <= d->size && len <= d->size - off;
}

/* ---- Kinds: what a tracepoint's samples are -------------------------------- */

static int slab_type(const char *name)
{
	for (int t = 0; t < TRACE_EV_NR; t++)
		if (t != TRACE_EV_MARKER && strcmp(name, trace_ev_names[t]) == 0)
			return t;
	return -1;
}

static struct nf nf_of(const struct evformat *x, const char *name)
{
	struct evformat_field f = evformat_field(x, name, false);
	if (!f.found || f.offset < 0 || (f.size != 1 && f.size != 2 && f.size != 4 && f.size != 8))
		return (struct nf){0};
	return (struct nf){.off = (uint32_t)f.offset,
			   .end = (uint32_t)(f.offset + f.size),
			   .mask = f.size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * f.size)) - 1};
}

static int make_kind(struct kind *k, const struct datfile_format *f, const struct evformat *like)
{
	memset(k, 0, sizeof(*k));
	k->type = -1;
	int t = strcmp(f->system, "kmem") == 0 ? slab_type(f->name) : -1;
	if (t < 0)
		return 0;
	int rc = evformat_parse(f->text, f->len, like, &k->fmt);
	if (rc == SLABSIM_ENOMEM)
		return rc;
	if (rc)
		return 1; /* not of a shape evformat takes */
	k->type = t;
	k->page = t == TRACE_EV_PAGE_FREE || t == TRACE_EV_PAGE_ALLOC;
	k->alloc = t == TRACE_EV_KMALLOC || t == TRACE_EV_KMALLOC_NODE ||
		   t == TRACE_EV_CACHE_ALLOC || t == TRACE_EV_CACHE_ALLOC_NODE;
	const struct evformat *x = k->fmt;
	k->pfn = nf_of(x, "pfn");
	k->order = nf_of(x, "order");
	k->site = nf_of(x, "call_site");
	k->ptr = nf_of(x, "ptr");
	k->req = nf_of(x, "bytes_req");
	k->alloc_b = nf_of(x, "bytes_alloc");
	k->gfp = nf_of(x, "gfp_flags");
	k->node = nf_of(x, "node");
	k->acc = nf_of(x, "accounted");
	struct evformat_field name = evformat_field(x, "name", false);
	if (name.found && (name.flags & EVFORMAT_DYNAMIC)) {
		k->name = nf_of(x, "name");
		k->name_rel = (name.flags & EVFORMAT_RELATIVE) != 0;
	}
	const char *fmt = evformat_print(x);
	k->acc_in_fmt = !k->acc.mask && strstr(fmt, "accounted=") && k->gfp.mask;
	k->site_sym = strstr(fmt, "call_site=%pS") != NULL;
	const uint64_t *val;
	const char *const *str;
	size_t n = evformat_gfp_table(x, &val, &str);
	if (n) {
		k->fval = calloc(n, sizeof(*k->fval));
		k->fbits = calloc(n, sizeof(*k->fbits));
		if (!k->fval || !k->fbits)
			return SLABSIM_ENOMEM;
		for (size_t i = 0; i < n; i++) {
			k->fval[i] = val[i];
			k->fbits[i] = str[i] ? evformat_gfp_named(str[i]) : 0;
			if (str[i] && strcmp(str[i], "__GFP_ACCOUNT") == 0)
				k->account_bit = val[i];
		}
		k->nflags = (int)n;
	}
	/* a kernel without memcg prints IS_ENABLED(CONFIG_MEMCG) as 0 */
	if (k->acc_in_fmt && strstr(fmt, "(0 &&"))
		k->account_bit = 0;
	return 0;
}

/* ---- Reading a record's fields ---------------------------------------------- */

/* The number f of raw[0, n). */
static inline bool num(const uint8_t *raw, uint32_t n, const struct nf *f, uint64_t *v)
{
	if (!f->mask || f->end > n)
		return false;
	*v = load8(raw + f->off) & f->mask;
	return true;
}

/* A byte of w that is zero, as the lowest set bit of the result. */
static inline uint64_t zero_byte(uint64_t w)
{
	return (w - UINT64_C(0x0101010101010101)) & ~w & UINT64_C(0x8080808080808080);
}

/* The cache name (a __data_loc string) as the text parser's name= token:
 * up to a NUL, blank or tab. Interned: 1 + its index, 0 when absent. */
static int name_of(struct perfdata *d, const uint8_t *raw, uint32_t n, const struct kind *k,
		   uint32_t *out)
{
	uint64_t loc;
	*out = 0;
	if (!num(raw, n, &k->name, &loc))
		return 0;
	uint64_t off = loc & 0xffff, len = (loc >> 16) & 0xffff;
	if (k->name_rel)
		off += k->name.end;
	if (off > n || len > n - off)
		return 0;
	const char *s = (const char *)raw + off;
	size_t m = 0, max = len < NAME_MAX_LEN ? (size_t)len : NAME_MAX_LEN;
	uint64_t h = 0;
	while (m < max) { /* a word at a time (buf's padding after the record) */
		uint64_t w = load8((const uint8_t *)s + m);
		uint64_t stop = zero_byte(w) | zero_byte(w ^ UINT64_C(0x2020202020202020)) |
				zero_byte(w ^ UINT64_C(0x0909090909090909));
		size_t b = stop ? (size_t)__builtin_ctzll(stop) / 8 : 8;
		if (b > max - m)
			b = max - m;
		w &= b == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * b)) - 1;
		h = (h ^ w) * UINT64_C(0x9e3779b97f4a7c15);
		m += b;
		if (b < 8)
			break;
	}
	uint32_t *slot = &d->name_memo[(h >> 40) % NAME_MEMO];
	if (*slot && d->name_len[*slot - 1] == m && memcmp(d->names[*slot - 1], s, m) == 0) {
		*out = *slot;
		return 0;
	}
	for (uint32_t i = d->nnames; i-- > 0;) /* a few hundred caches */
		if (d->name_len[i] == m && memcmp(d->names[i], s, m) == 0) {
			*out = *slot = i + 1;
			return 0;
		}
	if (d->nnames == d->names_cap) {
		uint32_t c = d->names_cap ? 2 * d->names_cap : 64;
		char **v = realloc(d->names, c * sizeof(*v));
		if (v)
			d->names = v;
		uint32_t *l = v ? realloc(d->name_len, c * sizeof(*l)) : NULL;
		if (!l)
			return SLABSIM_ENOMEM;
		d->name_len = l;
		d->names_cap = c;
	}
	if (!(d->names[d->nnames] = strndup(s, m)))
		return SLABSIM_ENOMEM;
	d->name_len[d->nnames] = (uint32_t)m;
	*out = *slot = ++d->nnames;
	return 0;
}

/* The gfp bits of v by k's table (or in raw numbering without one). */
static uint32_t gfp_of(struct kind *k, uint64_t v)
{
	if (!k->nflags)
		return TRACE_GFP_KNOWN | evformat_gfp_raw(v);
	size_t slot = (size_t)((v * UINT64_C(0x9e3779b97f4a7c15)) >> 60);
	if (k->gfp_bits[slot] && k->gfp_val[slot] == v)
		return k->gfp_bits[slot];
	k->gfp_val[slot] = v;
	return k->gfp_bits[slot] = evformat_gfp_walk(k->fval, k->fbits, k->nflags, v);
}

/* A slab sample's fields into q (its type set); a field the event needs
 * and the record lacks is q->miss (Q_BAD), reported when q goes out. */
static int decode(struct perfdata *d, struct kind *k, const uint8_t *raw, uint32_t n,
		  struct qent *q)
{
	uint64_t v;
	const char *miss = NULL;
	q->type = (int8_t)k->type;
	if (k->page) {
		uint64_t order;
		if (!num(raw, n, &k->pfn, &q->ptr))
			miss = "pfn";
		else if (!num(raw, n, &k->order, &order))
			miss = "order";
		else if (q->ptr >> 40) /* a failed allocation's pfn -1: 0 bytes */
			q->ptr = 0;
		else {
			q->ptr <<= 12;
			q->balloc = UINT64_C(4096) << (order < 20 ? order : 20);
		}
	} else if (!num(raw, n, &k->ptr, &q->ptr)) {
		miss = "ptr";
	} else if (k->alloc && !num(raw, n, &k->req, &q->req)) {
		miss = "bytes_req";
	} else if (k->alloc && !num(raw, n, &k->alloc_b, &q->balloc)) {
		miss = "bytes_alloc";
	} else {
		if (num(raw, n, &k->gfp, &v)) {
			q->gfp = gfp_of(k, v);
			if (k->acc_in_fmt)
				q->accounted = (int8_t)(k->account_bit &&
							(v & k->account_bit) == k->account_bit);
		}
		if (num(raw, n, &k->acc, &v))
			q->accounted = v != 0;
		if (q->accounted == 1 && !(q->gfp & TRACE_GFP_ACCOUNT))
			q->gfp |= TRACE_GFP_ACCOUNT |
				  ((q->gfp & TRACE_GFP_KNOWN) ? TRACE_GFP_ACCOUNT_ONLY : 0);
		if (num(raw, n, &k->node, &v))
			q->node = (int32_t)v;
		if (num(raw, n, &k->site, &v)) {
			q->site = v;
			q->flags |= Q_SITE | (k->site_sym ? Q_SITE_SYM : 0);
		}
		int rc = name_of(d, raw, n, k, &q->name);
		if (rc)
			return rc;
	}
	if (miss) {
		q->flags |= Q_BAD;
		q->miss = miss;
	}
	return 0;
}

/* ---- Kernel symbols ------------------------------------------------------------ */

/* The running kernel's build id (hex) from /sys/kernel/notes: ELF notes,
 * each a name size, a descriptor size and a type, then the name and the
 * descriptor padded to 4 bytes; the build id is type 3 (NT_GNU_BUILD_ID)
 * of name "GNU". */
static bool running_build_id(char out[41])
{
	uint8_t buf[4096];
	FILE *f = fopen("/sys/kernel/notes", "rb");
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f)
		fclose(f);
	for (size_t at = 0; at + 12 <= n;) {
		uint32_t nsz = load4(buf + at), dsz = load4(buf + at + 4),
			 type = load4(buf + at + 8);
		size_t name = at + 12, desc = name + ((nsz + 3u) & ~3u);
		if (nsz > n || dsz > n || desc + dsz > n)
			break;
		if (type == 3 && nsz == 4 && memcmp(buf + name, "GNU", 4) == 0 && dsz <= 20) {
			for (uint32_t i = 0; i < dsz; i++)
				(void)snprintf(out + 2 * i, 3, "%02x", buf[desc + i]);
			out[2 * dsz] = '\0';
			return dsz > 0;
		}
		at = desc + ((dsz + 3u) & ~3u);
	}
	return false;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* file order among equals: name offsets grow with it */
	return x->name < y->name ? -1 : x->name > y->name;
}

static uint64_t round_page(uint64_t x)
{
	return (x + 4095) & ~UINT64_C(4095);
}

/* Read a kallsyms text: "ADDR TYPE NAME[\t[MODULE]]" lines, the symbols of
 * types T, W, D and B in either case. Each runs to the next one's start
 * (symbols__fixup_end), but the last of the kernel before a module's (or
 * the other way round) and the very last run a page on. Of several
 * symbols at one address the last in the file is kept: only it has a
 * length after that fix, and choose_best_symbol prefers a symbol with a
 * length over any other rule. */
static int load_kallsyms(struct perfdata *d, const char *file, struct err *e)
{
	/* the whole text, its lines cut in place: names point into it. In
	 * huge pages, grown in place (bigmem.h): a 5.4 MiB kallsyms read
	 * through realloc's doublings cost 3 % of a perf.data replay's CPU in
	 * this project's virtual machine, mostly first touches of 4 KiB
	 * pages. A file in ~/.debug has its size; /proc/kallsyms says 0. */
	FILE *f = fopen(file, "r");
	struct stat st;
	size_t len = 0, cap = 1u << 20, ncap = 0;
	int rc = 0;
	if (!f)
		return err_at(e, SLABSIM_EINPUT, file, 0, "cannot read kernel symbols: %s",
			      strerror(errno));
	if (fstat(fileno(f), &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX / 2)
		cap = (size_t)st.st_size + 1; /* one more: the read that finds the end */
	for (;;) {
		char *t = bigmem_resize(d->symtext, d->symtext_bytes, cap + 1);
		if (!t) {
			rc = SLABSIM_ENOMEM;
			break;
		}
		d->symtext = t;
		d->symtext_bytes = cap + 1;
		len += fread(t + len, 1, cap - len, f);
		if (len < cap)
			break;
		cap *= 2;
	}
	bool failed = ferror(f);
	fclose(f);
	if (rc)
		return err_set(e, rc, "out of memory reading %s", file);
	if (failed)
		return err_at(e, SLABSIM_EINPUT, file, 0, "read error");
	char *t = d->symtext, *end = t + len;
	*end = '\0';
	bool any_addr = false, sorted = true;
	for (char *p = t, *nl; p < end; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			nl = end;
		*nl = '\0';
		uint64_t addr = 0;
		int nd = 0;
		for (; nd < 16; p++, nd++) {
			unsigned c = (unsigned char)*p, v;
			if (c - '0' < 10)
				v = c - '0';
			else if ((c | 0x20) - 'a' < 6)
				v = (c | 0x20) - 'a' + 10;
			else
				break;
			addr = addr << 4 | v;
		}
		if (!nd || p[0] != ' ' || !p[1] || p[2] != ' ')
			continue;
		int up = toupper((unsigned char)p[1]);
		if (up != 'T' && up != 'W' && up != 'D' && up != 'B')
			continue;
		char *name = p + 3, *tab = strchr(name, '\t');
		uint32_t mod = NO_MOD;
		if (tab) {
			*tab = '\0';
			if (tab[1] == '[') {
				char *close = strchr(tab + 2, ']');
				if (close)
					*close = '\0';
				mod = (uint32_t)(tab + 2 - t);
			}
		}
		any_addr |= addr != 0;
		if (d->nsyms == ncap) {
			ncap = ncap ? 2 * ncap : 65536;
			struct sym *v = realloc(d->syms, ncap * sizeof(*v));
			if (!v)
				return err_set(e, SLABSIM_ENOMEM, "out of memory reading %s", file);
			d->syms = v;
		}
		sorted &= !d->nsyms || d->syms[d->nsyms - 1].addr <= addr;
		d->syms[d->nsyms++] =
			(struct sym){.addr = addr, .name = (uint32_t)(name - t), .mod = mod};
	}
	if (len > UINT32_MAX)
		return err_at(e, SLABSIM_EINPUT, file, 0, "expected a kallsyms text below 4 GiB");
	if (!any_addr) { /* kptr_restrict: every address 0 */
		d->nsyms = 0;
		return 0;
	}
	if (!sorted) /* modules' symbols follow the kernel's, in their own order */
		qsort(d->syms, d->nsyms, sizeof(*d->syms), sym_cmp);
	for (size_t i = 0; i < d->nsyms; i++) {
		struct sym *y = &d->syms[i];
		if (i + 1 == d->nsyms)
			y->end = round_page(y->addr) + 4096;
		else if ((y->mod == NO_MOD) != (y[1].mod == NO_MOD))
			y->end = round_page(y->addr + 4096);
		else
			y->end = y[1].addr;
	}
	size_t k = 0;
	for (size_t i = 0; i < d->nsyms; i++) {
		if (k && d->syms[k - 1].addr == d->syms[i].addr)
			k--;
		d->syms[k++] = d->syms[i];
	}
	d->nsyms = k;
	if (!(d->symfile = strdup(file)))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	return 0;
}

/* The kallsyms address of the first symbol called name, false if none. */
static bool sym_addr(const struct perfdata *d, const char *name, uint64_t *addr)
{
	for (size_t i = 0; i < d->nsyms; i++)
		if (strcmp(d->symtext + d->syms[i].name, name) == 0) {
			*addr = d->syms[i].addr;
			return true;
		}
	return false;
}

/* Is a module of that name mapped by the recording (perf makes a map of
 * each module it records, named as the file without ".ko..." and with
 * '-' as '_'; a module symbol of no map is dropped)? */
static bool module_mapped(const struct perfdata *d, const char *mod)
{
	for (size_t i = 0; i < d->nmods; i++)
		if (strcmp(d->mods[i], mod) == 0)
			return true;
	return false;
}

/* The place of the recorded kernel against the symbols': set once, when
 * the first sample goes out (the kernel's and the modules' map records
 * come first). */
static void settle_delta(struct perfdata *d)
{
	uint64_t a;
	d->delta_set = true;
	d->delta = 0;
	if (d->ref_name[0] && sym_addr(d, d->ref_name, &a))
		d->delta = (int64_t)(a - d->ref_rec);
	/* a module's symbols name its addresses only in the boot recorded */
	size_t k = 0;
	for (size_t i = 0; i < d->nsyms; i++) {
		const struct sym *y = &d->syms[i];
		if (y->mod == NO_MOD || (!d->delta && module_mapped(d, d->symtext + y->mod)))
			d->syms[k++] = *y;
	}
	d->nsyms = k;
}

/* The call site as perf script prints it: "name+0xoff" of the symbol
 * whose [start, end) holds it, or "0x.."; into d->site. */
static void site_print(struct perfdata *d, uint64_t addr, bool sym)
{
	if (!sym) {
		(void)snprintf(d->site, sizeof(d->site), "%" PRIx64, addr);
		return;
	}
	if (!d->delta_set)
		settle_delta(d);
	uint64_t a = addr + (uint64_t)d->delta;
	size_t lo = 0, hi = d->nsyms; /* the last symbol at or below a */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct sym *y = lo ? &d->syms[lo - 1] : NULL;
	if (!y || a >= y->end) {
		(void)snprintf(d->site, sizeof(d->site), "0x%" PRIx64, addr);
		return;
	}
	(void)snprintf(d->site, sizeof(d->site), "%.*s+0x%" PRIx64, NAME_MAX_LEN,
		       d->symtext + y->name, a - y->addr);
}

/* site_print's string, kept (an event kind prints its call sites one
 * way, %pS or hex: the bit keeps the two apart), found again by address;
 * NULL: out of memory. */
static const char *site_str(struct perfdata *d, uint64_t addr, bool sym)
{
	uint64_t key = addr ^ (uint64_t)sym;
	struct site_slot *slot = &d->sites[(key * UINT64_C(0x9e3779b97f4a7c15)) >> 52];
	uint32_t id;
	if (slot->str && slot->key == key)
		return slot->str;
	site_print(d, addr, sym);
	if (strtab_intern(&d->site_strs, d->site, &id))
		return NULL;
	slot->str = strtab_str(&d->site_strs, id);
	slot->key = key;
	return slot->str;
}

/* perf's search for the recorded kernel's symbols, when none were given. */
static int find_kallsyms(struct perfdata *d, struct err *e)
{
	const char *home = getenv("HOME");
	char path[4096], run[41];
	if (d->kbuild[0] && home && *home) {
		(void)snprintf(path, sizeof(path), "%s/.debug/[kernel.kallsyms]/%s/kallsyms", home,
			       d->kbuild);
		if (access(path, R_OK) == 0)
			return load_kallsyms(d, path, e);
	}
	if (d->kbuild[0] && running_build_id(run) && strcmp(run, d->kbuild) == 0 &&
	    access("/proc/kallsyms", R_OK) == 0)
		return load_kallsyms(d, "/proc/kallsyms", e);
	return 0;
}

/* ---- The queue (perf's ordered events) ----------------------------------------- */

static int q_alloc(struct perfdata *d, uint32_t *out)
{
	if (!d->qfree) {
		uint32_t old = d->qcap, cap = old ? 2 * old : 4096;
		struct qent *v = realloc(d->q, (size_t)cap * sizeof(*v));
		if (!v)
			return SLABSIM_ENOMEM;
		d->q = v;
		if (!old) {
			memset(&d->q[0], 0, sizeof(d->q[0])); /* the head */
			old = 1;
		}
		for (uint32_t i = cap - 1; i >= old; i--) {
			d->q[i].next = d->qfree;
			d->qfree = i;
		}
		d->qcap = cap;
	}
	*out = d->qfree;
	d->qfree = d->q[*out].next;
	return 0;
}

static void q_link(struct perfdata *d, uint32_t i, uint32_t after)
{
	uint32_t nx = d->q[after].next;
	d->q[i].prev = after;
	d->q[i].next = nx;
	d->q[after].next = i;
	d->q[nx].prev = i; /* nx 0: the head's prev, the tail */
}

/* Queue entry i (taken by q_alloc, filled) as perf's queue_event() does: after every entry of time
 * <= its own, walking from the entry queued last; the largest time is the new one's when it goes to
 * the tail (or into an empty queue). */
static void q_insert(struct perfdata *d, uint32_t i)
{
	uint64_t ts = d->q[i].ts;
	uint32_t last = d->qlast;
	d->qlast = i;
	if (!d->q[0].next) {
		q_link(d, i, 0);
		d->max_ts = ts;
		return;
	}
	if (d->q[last].ts <= ts) {
		while (d->q[last].ts <= ts) {
			uint32_t nx = d->q[last].next;
			if (!nx) {
				q_link(d, i, last);
				d->max_ts = ts;
				return;
			}
			last = nx;
		}
		q_link(d, i, d->q[last].prev);
	} else {
		while (d->q[last].ts > ts) {
			uint32_t pv = d->q[last].prev;
			if (!pv) {
				q_link(d, i, 0);
				return;
			}
			last = pv;
		}
		q_link(d, i, last);
	}
}

/* Take the first entry out of the queue (it must not be empty); it stays
 * where it is until q_free. */
static uint32_t q_pop(struct perfdata *d)
{
	uint32_t i = d->q[0].next, nx = d->q[i].next;
	d->q[0].next = nx;
	d->q[nx].prev = 0;
	if (d->qlast == i) /* do_flush: the last queued went out, the tail is */
		d->qlast = d->q[0].prev;
	return i;
}

static void q_free(struct perfdata *d, uint32_t i)
{
	d->q[i].next = d->qfree;
	d->qfree = i;
}

/* ---- Records ----------------------------------------------------------------- */

static const struct attr *attr_of_id(const struct perfdata *d, uint64_t id)
{
	if (id < d->nby_id)
		return d->by_id[id] ? &d->attrs[d->by_id[id] - 1] : NULL;
	size_t lo = 0, hi = d->nids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nids && d->ids[lo].id == id ? &d->attrs[d->ids[lo].attr] : NULL;
}

/* The attr a record belongs to (evlist__event2evsel): the only one, or by
 * the id at its place by the first attr's sample type: IDENTIFIER's (first
 * in a sample, last in a trailer), else ID's (after IP, TID, TIME and ADDR
 * in a sample; before STREAM_ID and CPU at a trailer's end); an id 0, or
 * a record with no id, is the first attr's. NULL: an id no attr has. */
static const struct attr *attr_of(const struct perfdata *d, const uint8_t *r, uint32_t size,
				  bool sample)
{
	const struct attr *a0 = &d->attrs[0];
	uint64_t st = a0->sample_type;
	uint32_t at;
	if (d->nattrs == 1 || !(st & (S_IDENTIFIER | S_ID)) || (!sample && !a0->id_all))
		return a0;
	if (st & S_IDENTIFIER)
		at = sample ? 8 : size - 8;
	else if (sample)
		at = 8u * (1u + !!(st & S_IP) + !!(st & S_TID) + !!(st & S_TIME) + !!(st & S_ADDR));
	else
		at = size - 8u * (1u + !!(st & S_STREAM_ID) + !!(st & S_CPU));
	if (size < 16 || at < 8 || at > size - 8)
		return NULL;
	uint64_t id = load8(r + at);
	return id ? attr_of_id(d, id) : a0;
}

/* The time of a record other than a sample, from its sample_id_all
 * trailer (read from the end: IDENTIFIER, CPU, STREAM_ID, ID, TIME). */
static uint64_t trailer_time(const struct attr *a, const uint8_t *r, uint32_t size)
{
	uint64_t st = a->sample_type;
	if (!a->id_all || !(st & S_TIME))
		return ~UINT64_C(0);
	uint32_t back = 8u * (1u + !!(st & S_IDENTIFIER) + !!(st & S_CPU) + !!(st & S_STREAM_ID) +
			      !!(st & S_ID));
	if (back + 8 > size)
		return ~UINT64_C(0);
	return load8(r + size - back);
}

static int cut(struct perfdata *d, const char *what)
{
	char m[160];
	(void)snprintf(m, sizeof(m),
		       "perf.data: %s at byte %" PRIu64
		       " of the data section (corrupt or cut file)",
		       what, d->at);
	err_at(&d->fatal, SLABSIM_EINPUT, d->path, 0, "%s", m);
	return SLABSIM_EINPUT;
}

/* A sample: its time, task, CPU and raw record, by its attr's sample type. */
static int sample(struct perfdata *d, const struct attr *a, const uint8_t *r, uint32_t size)
{
	uint64_t st = a->sample_type, rf = a->read_format;
	const uint8_t *p = r + 8, *end = r + size;
	uint32_t i;
	int rc = q_alloc(d, &i);
	if (rc)
		return rc;
	struct qent *q = &d->q[i]; /* decoded in place: no copy in or out */
	*q = (struct qent){.type = -1, .node = -1, .accounted = -1, .pid = -1, .ts = ~UINT64_C(0)};
#define NEED(n)                                                                                    \
	do {                                                                                       \
		if ((uint64_t)(end - p) < (uint64_t)(n))                                           \
			return cut(d, "a sample shorter than its fields");                         \
	} while (0)
	if (a->fixed && size >= a->need) {
		if (a->tid_at)
			q->pid = (int32_t)load4(r + a->tid_at + 4);
		if (a->time_at)
			q->ts = load8(r + a->time_at);
		if (a->cpu_at)
			q->cpu = load4(r + a->cpu_at);
		p = r + (a->raw_at ? a->raw_at : size);
		goto raw;
	}
	if (st & S_IDENTIFIER) {
		NEED(8);
		p += 8;
	}
	if (st & S_IP) {
		NEED(8);
		p += 8;
	}
	if (st & S_TID) {
		NEED(8);
		q->pid = (int32_t)load4(p + 4);
		p += 8;
	}
	if (st & S_TIME) {
		NEED(8);
		q->ts = load8(p);
		p += 8;
	}
	if (st & S_ADDR) {
		NEED(8);
		p += 8;
	}
	if (st & S_ID) {
		NEED(8);
		p += 8;
	}
	if (st & S_STREAM_ID) {
		NEED(8);
		p += 8;
	}
	if (st & S_CPU) {
		NEED(8);
		q->cpu = load4(p);
		p += 8;
	}
	if (st & S_PERIOD) {
		NEED(8);
		p += 8;
	}
	if (st & S_READ) {
		uint64_t per = 8u * (1u + !!(rf & RF_ID) + !!(rf & RF_LOST));
		uint64_t times = 8u * (!!(rf & RF_ENABLED) + !!(rf & RF_RUNNING));
		if (rf & RF_GROUP) {
			NEED(8);
			uint64_t nr = load8(p);
			p += 8;
			if (nr > 65536)
				return cut(d, "a sample's read group too large");
			NEED(times + nr * per);
			p += times + nr * per;
		} else {
			NEED(times + per);
			p += times + per;
		}
	}
	if (st & S_CALLCHAIN) {
		NEED(8);
		uint64_t nr = load8(p);
		p += 8;
		if (nr > (uint64_t)(end - p) / 8)
			return cut(d, "a sample's call chain longer than the sample");
		p += nr * 8;
	}
raw:
	if (a->kind >= 0 && (st & S_RAW)) {
		NEED(4);
		uint32_t n = load4(p);
		p += 4;
		NEED(n);
		rc = decode(d, &d->kinds[a->kind], p, n, q);
	} else if (a->kind >= 0) {
		q->type = (int8_t)d->kinds[a->kind].type;
		q->flags |= Q_BAD;
		q->miss = "ptr";
	}
#undef NEED
	if (rc)
		return rc;
	if (q->ts == 0 || q->ts == ~UINT64_C(0)) { /* no time: handed on at once */
		d->now = *q;
		d->have_now = true;
		q_free(d, i);
		return 0;
	}
	q_insert(d, i);
	return 0;
}

/* A module map's name (kmod_path__parse_name): the file's name up to
 * ".ko", '-' as '_'. */
static int add_module(struct perfdata *d, const char *path)
{
	const char *b = strrchr(path, '/') + 1;
	const char *ko = strstr(b, ".ko");
	if (!ko)
		return 0;
	char *m = strndup(b, (size_t)(ko - b));
	char **v = m ? realloc(d->mods, (d->nmods + 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(m);
		return SLABSIM_ENOMEM;
	}
	for (char *c = m; *c; c++)
		if (*c == '-')
			*c = '_';
	d->mods = v;
	d->mods[d->nmods++] = m;
	return 0;
}

/* Read on so that buf holds the data from at for at least 64 KiB (a
 * record's largest size) or to the section's end. */
static int refill(struct perfdata *d)
{
	size_t keep = (size_t)(d->bat + d->blen - d->at);
	memmove(d->buf, d->buf + (d->blen - keep), keep);
	d->bat = d->at;
	d->blen = keep;
	while (d->blen < BUF_BYTES && d->bat + d->blen < d->data_size) {
		uint64_t left = d->data_size - d->bat - d->blen;
		size_t want = BUF_BYTES - d->blen < left ? BUF_BYTES - d->blen : (size_t)left;
		ssize_t n = pread(d->fd, d->buf + d->blen, want,
				  (off_t)(d->data_off + d->bat + d->blen));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err_at(&d->fatal, SLABSIM_EIO, d->path, 0, "perf.data: read error: %s",
			       n ? strerror(errno) : "the file got shorter");
			return SLABSIM_EIO;
		}
		if (d->hash)
			d->hash(d->hash_ctx, d->buf + d->blen, (size_t)n);
		d->blen += (size_t)n;
	}
	return 0;
}

/* The next record of the data section: 1 read, 0 at the end, or an error
 * (d->fatal set for a file that cannot be read on). */
static int step(struct perfdata *d)
{
	if (d->at >= d->data_size)
		return 0;
	if (d->data_size - d->at < 8)
		return cut(d, "a record header cut short");
	if (d->at + 65536 > d->bat + d->blen && d->bat + d->blen < d->data_size) {
		int rc = refill(d);
		if (rc)
			return rc;
	}
	const uint8_t *r = d->buf + (d->at - d->bat);
	uint32_t type = load4(r);
	uint32_t size = (uint32_t)r[6] | (uint32_t)r[7] << 8;
	if (size < 8)
		return cut(d, "a record of size below 8");
	if (size > d->data_size - d->at)
		return cut(d, "a record cut short");
	d->at += size;
	if (type >= REC_USER_START) {
		if (type == REC_FINISHED_ROUND && d->q && d->q[0].next) {
			/* an empty queue: nothing, next_flush stays */
			d->limit = d->next_flush;
			d->flushing = d->limit != 0;
			d->next_flush = d->max_ts;
		} else if (type == REC_COMPRESSED) {
			err_at(&d->fatal, SLABSIM_EINPUT, d->path, 0,
			       "perf.data: recorded compressed (perf record -z); record without "
			       "-z, "
			       "or run `perf script -i FILE | slabsim replay -`");
			return SLABSIM_EINPUT;
		}
		return 1;
	}
	if (type == REC_LOST && size >= 24) {
		d->lost += load8(r + 16);
		d->have_lost = true;
	} else if (type == REC_LOST_SAMPLES && size >= 16) {
		d->lost_samples += load8(r + 8);
		d->have_lost = true;
	} else if ((type == REC_MMAP || type == REC_MMAP2) && size >= 48 &&
		   load4(r + 8) == UINT32_MAX && !d->delta_set) {
		/* the kernel's map: "[kernel.kallsyms]" + the reference
		 * symbol's name, pgoff its address */
		uint32_t at = type == REC_MMAP ? 40 : 72;
		const char *fn = (const char *)r + at;
		size_t n = at < size ? strnlen(fn, size - at) : 0;
		static const char k[] = "[kernel.kallsyms]";
		if (n && fn[0] == '/' && n < size - at && add_module(d, fn))
			return SLABSIM_ENOMEM;
		if (!d->ref_name[0] && n > sizeof(k) - 1 &&
		    n - (sizeof(k) - 1) < sizeof(d->ref_name) &&
		    memcmp(fn, k, sizeof(k) - 1) == 0) {
			memcpy(d->ref_name, fn + sizeof(k) - 1, n - (sizeof(k) - 1));
			d->ref_name[n - (sizeof(k) - 1)] = '\0';
			d->ref_rec = load8(r + 32);
		}
	}
	const struct attr *a = attr_of(d, r, size, type == REC_SAMPLE);
	if (!a) /* perf script stops there too */
		return cut(d, "a record whose id no event of the file has");
	if (type == REC_SAMPLE) {
		int rc = sample(d, a, r, size);
		return rc ? rc : 1;
	}
	uint64_t ts = trailer_time(a, r, size);
	if (ts == 0 || ts == ~UINT64_C(0))
		return 1;
	uint32_t i;
	if (q_alloc(d, &i))
		return SLABSIM_ENOMEM;
	d->q[i] = (struct qent){.ts = ts, .type = -2};
	q_insert(d, i);
	return 1;
}

/* ---- Lines ---------------------------------------------------------------------- */

static int emit(struct perfdata *d, const struct qent *q, struct trace_event *ev,
		enum trace_line_kind *kind, uint32_t skip_fields, char *msg)
{
	ev->t_ns = q->ts / 1000 * 1000; /* perf script prints microseconds */
	ev->cpu = q->cpu;
	ev->pid = q->pid;
	ev->text = NULL;
	ev->line = 0;
	ev->site_id = 0;
	ev->tpl = 0;
	trace_event_clear_fields(ev);
	if (q->type < 0) {
		*kind = TRACE_LINE_OTHER_EVENT;
		return 1;
	}
	*kind = TRACE_LINE_EVENT;
	ev->type = (enum trace_ev_type)q->type;
	if (skip_fields & (1u << q->type))
		return 1;
	if (q->flags & Q_BAD) {
		(void)snprintf(msg, MSG_MAX, "expected '%s=<%s>' in %s event, got no %s field",
			       q->miss, strcmp(q->miss, "ptr") == 0 ? "hex" : "n",
			       trace_ev_names[q->type], q->miss);
		return SLABSIM_EINPUT;
	}
	ev->ptr = q->ptr;
	ev->bytes_alloc = q->balloc;
	if (q->type == TRACE_EV_PAGE_FREE || q->type == TRACE_EV_PAGE_ALLOC)
		return 1;
	ev->bytes_req = q->req;
	ev->gfp = q->gfp;
	ev->node = q->node;
	ev->accounted = q->accounted;
	if ((q->flags & Q_SITE) && !(ev->call_site = site_str(d, q->site, q->flags & Q_SITE_SYM)))
		return SLABSIM_ENOMEM;
	if (q->name)
		ev->name = d->names[q->name - 1];
	return 1;
}

int perfdata_next(struct perfdata *d, struct trace_event *ev, enum trace_line_kind *kind,
		  uint32_t skip_fields, char *msg)
{
	for (;;) {
		if (d->fatal.code)
			return d->fatal.code;
		if (d->have_now) {
			d->have_now = false;
			if (d->now.type != -2)
				return emit(d, &d->now, ev, kind, skip_fields, msg);
		} else if (d->flushing) {
			uint32_t h = d->q ? d->q[0].next : 0;
			if (!h || d->q[h].ts > d->limit) {
				d->flushing = false;
				if (d->at_end)
					return 0;
				continue;
			}
			uint32_t i = q_pop(d);
			int rc = d->q[i].type == -2 ? 0
						    : emit(d, &d->q[i], ev, kind, skip_fields, msg);
			q_free(d, i);
			if (rc)
				return rc;
		} else if (d->at_end) {
			return 0;
		} else {
			int rc = step(d);
			if (rc < 0)
				return rc;
			if (rc == 0) { /* the final flush: all that is queued */
				uint64_t tail = d->data_off + d->data_size;
				if (d->hash && d->bat + d->blen == d->data_size)
					d->hash(d->hash_ctx, d->map + tail,
						(size_t)(d->size - tail));
				d->at_end = true;
				d->limit = UINT64_MAX;
				d->flushing = true;
			}
		}
	}
}

/* ---- Opening ---------------------------------------------------------------------- */

static int id_cmp(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The feature sections: a table after the data section, one entry (offset,
 * size) per bit set in the header's bitmap, in bit order. false: feat is
 * not there. */
static bool feature(const struct perfdata *d, const uint8_t *bitmap, int feat, uint64_t *off,
		    uint64_t *size)
{
	uint64_t table = d->data_off + d->data_size;
	int k = 0;
	if (!(bitmap[feat / 8] >> (feat % 8) & 1))
		return false;
	for (int b = 0; b < feat; b++)
		k += bitmap[b / 8] >> (b % 8) & 1;
	if (!in_file(d, table + 16u * (uint64_t)k, 16))
		return false;
	*off = load8(d->map + table + 16u * (uint64_t)k);
	*size = load8(d->map + table + 16u * (uint64_t)k + 8);
	return in_file(d, *off, *size);
}

/* The kernel's build id among the build-id records: a header, the pid, 24
 * bytes of build id (its size in byte 20 when misc has bit 15, else 20),
 * the file name. */
static void kernel_build_id(struct perfdata *d, uint64_t off, uint64_t size)
{
	for (uint64_t at = 0; at + 36 <= size;) {
		const uint8_t *r = d->map + off + at;
		uint32_t rs = (uint32_t)r[6] | (uint32_t)r[7] << 8;
		uint16_t misc = (uint16_t)(r[4] | r[5] << 8);
		if (rs < 36 || rs > size - at)
			return;
		const char *fn = (const char *)r + 36;
		if (strnlen(fn, rs - 36) < rs - 36 && strcmp(fn, "[kernel.kallsyms]") == 0) {
			unsigned n = (misc & 0x8000) ? r[12 + 20] : 20;
			if (n > 20)
				n = 20;
			for (unsigned i = 0; i < n; i++)
				(void)snprintf(d->kbuild + 2 * i, 3, "%02x", r[12 + i]);
			d->kbuild[2 * n] = '\0';
			return;
		}
		at += rs;
	}
}

/* The fixed places of a's fields (struct attr), when it has them. */
static void fix_attr(struct attr *a)
{
	uint64_t st = a->sample_type;
	uint32_t at = 8;
	a->fixed = !(st & (S_READ | S_CALLCHAIN));
	at += 8u * (!!(st & S_IDENTIFIER) + !!(st & S_IP));
	a->tid_at = st & S_TID ? at : 0;
	at += st & S_TID ? 8 : 0;
	a->time_at = st & S_TIME ? at : 0;
	at += 8u * (!!(st & S_TIME) + !!(st & S_ADDR) + !!(st & S_ID) + !!(st & S_STREAM_ID));
	a->cpu_at = st & S_CPU ? at : 0;
	at += 8u * (!!(st & S_CPU) + !!(st & S_PERIOD));
	a->raw_at = st & S_RAW ? at : 0;
	a->need = at + (st & S_RAW ? 4 : 0);
}

static int read_attrs(struct perfdata *d, const uint8_t *h, struct err *e)
{
	uint64_t asz = load8(h + 16), aoff = load8(h + 24), alen = load8(h + 32);
	if (asz < 16 + 64 || asz > 4096 || !in_file(d, aoff, alen) || alen % asz || !alen)
		return bad_file(d, e, "expected its attributes (perf_file_attr) after the header");
	d->nattrs = (size_t)(alen / asz);
	if (!(d->attrs = calloc(d->nattrs, sizeof(*d->attrs))))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	size_t nids = 0, cap = 0;
	for (size_t i = 0; i < d->nattrs; i++) {
		const uint8_t *a = d->map + aoff + i * asz;
		struct attr *x = &d->attrs[i];
		x->type = load4(a);
		x->config = load8(a + 8);
		x->sample_type = load8(a + 24);
		x->read_format = load8(a + 32);
		x->id_all = (load8(a + 40) >> 18) & 1;
		x->kind = -1;
		fix_attr(x);
		uint64_t ioff = load8(a + asz - 16), ilen = load8(a + asz - 8);
		if (!in_file(d, ioff, ilen) || ilen % 8)
			return bad_file(d, e, "expected an attribute's ids inside the file");
		for (uint64_t k = 0; k < ilen / 8; k++) {
			if (nids == cap) {
				cap = cap ? 2 * cap : 64;
				struct idmap *v = realloc(d->ids, cap * sizeof(*v));
				if (!v)
					return err_set(e, SLABSIM_ENOMEM, "out of memory");
				d->ids = v;
			}
			d->ids[nids++] = (struct idmap){.id = load8(d->map + ioff + 8 * k),
							.attr = (uint32_t)i};
		}
	}
	d->nids = nids;
	if (nids)
		qsort(d->ids, nids, sizeof(*d->ids), id_cmp);
	if (nids && d->ids[nids - 1].id < (1u << 20)) { /* the kernel's ids count up */
		d->nby_id = d->ids[nids - 1].id + 1;
		if (!(d->by_id = calloc(d->nby_id, sizeof(*d->by_id))))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		for (size_t i = 0; i < nids; i++)
			d->by_id[d->ids[i].id] = d->ids[i].attr + 1;
	}
	return 0;
}

/* The kinds of the tracepoint attrs, from the tracing data's formats. */
static int read_formats(struct perfdata *d, const uint8_t *bitmap, struct err *e)
{
	uint64_t off, size;
	if (!feature(d, bitmap, FEAT_TRACING_DATA, &off, &size))
		return bad_file(
			d, e,
			"expected tracepoint formats (its tracing data): record tracepoints, "
			"perf record -e 'kmem:*'");
	int rc = datfile_open_tracing(d->map + off, (size_t)size, &d->df);
	if (rc == SLABSIM_ENOMEM)
		return err_set(e, rc, "out of memory");
	if (rc)
		return bad_file(d, e, "expected tracing data of perf's form (version 0.6)");
	if (datfile_big_endian(d->df) || datfile_long_size(d->df) != 8)
		return bad_file(d, e, "only little-endian 64-bit kernels are read");
	if (!(d->kinds = calloc(d->nattrs, sizeof(*d->kinds))))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	const struct evformat *like = NULL;
	for (size_t i = 0; i < d->nattrs; i++) {
		struct attr *a = &d->attrs[i];
		if (a->type != ATTR_TRACEPOINT)
			continue;
		for (size_t f = 0; f < datfile_nformats(d->df); f++) {
			const struct datfile_format *ff = datfile_format(d->df, f);
			if (ff->id < 0 || (uint64_t)ff->id != a->config)
				continue;
			struct kind *k = &d->kinds[d->nkinds];
			rc = make_kind(k, ff, like);
			if (rc == SLABSIM_ENOMEM)
				return err_set(e, rc, "out of memory");
			if (rc)
				return err_at(e, SLABSIM_EINPUT, d->path, 0,
					      "perf.data: the format of %s:%s is not one slabsim "
					      "reads; run `perf script -i FILE | slabsim replay -`",
					      ff->system, ff->name);
			if (k->type >= 0) {
				a->kind = (int)d->nkinds++;
				if (k->nflags)
					like = k->fmt;
			} else {
				evformat_free(k->fmt);
			}
			break;
		}
	}
	return 0;
}

int perfdata_open(int fd, const char *path, const char *kallsyms, struct perfdata **out,
		  struct err *e)
{
	struct perfdata *d = calloc(1, sizeof(*d));
	struct stat st;
	int rc;
	*out = NULL;
	if (!d || !(d->path = strdup(path))) {
		free(d);
		close(fd);
		return err_set(e, SLABSIM_ENOMEM, "out of memory opening %s", path);
	}
	d->fd = fd;
	strtab_init(&d->site_strs);
	if (!(d->sites = calloc(SITE_MEMO, sizeof(*d->sites))) ||
	    !(d->buf = calloc(1, BUF_BYTES + BUF_PAD))) {
		rc = err_set(e, SLABSIM_ENOMEM, "out of memory opening %s", path);
		goto fail;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rc = err_at(e, SLABSIM_EIO, path, 0, "perf.data: not a regular file");
		goto fail;
	}
	d->size = (size_t)st.st_size;
	if (d->size < 104) {
		rc = bad_file(d, e, "expected a header of 104 bytes, got a shorter file");
		goto fail;
	}
	void *m = mmap(NULL, d->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		rc = err_at(e, SLABSIM_EIO, path, 0, "cannot map: %s", strerror(errno));
		goto fail;
	}
	d->map = m;
	/* the header and the features are read here; the data through buf */
	const uint8_t *h = d->map;
	if (memcmp(h, "PERFILE2", 8) != 0) {
		rc = bad_file(d, e,
			      memcmp(h, "2ELIFREP", 8) == 0 ? "recorded on a big-endian machine: "
							      "only little-endian files are read"
							    : "expected the magic PERFILE2 (an "
							      "older perf's PERFFILE is not read)");
		goto fail;
	}
	if (load8(h + 8) == 16) {
		rc = bad_file(d, e,
			      "a pipe-mode recording (perf record -o -): record to a file, or run "
			      "`perf script -i FILE | slabsim replay -`");
		goto fail;
	}
	if (load8(h + 8) < 104) {
		rc = bad_file(d, e, "expected a header of at least 104 bytes");
		goto fail;
	}
	d->data_off = load8(h + 40);
	d->data_size = load8(h + 48);
	if (!in_file(d, d->data_off, d->data_size)) {
		rc = bad_file(d, e, "its data section runs past the end of the file (cut?)");
		goto fail;
	}
	const uint8_t *bitmap = h + 72;
	uint64_t off, size;
	if ((rc = read_attrs(d, h, e)) || (rc = read_formats(d, bitmap, e)))
		goto fail;
	if (feature(d, bitmap, FEAT_BUILD_ID, &off, &size))
		kernel_build_id(d, off, size);
	if (feature(d, bitmap, FEAT_NRCPUS, &off, &size) && size >= 8)
		d->ncpus = load4(d->map + off);
	if ((rc = kallsyms ? load_kallsyms(d, kallsyms, e) : find_kallsyms(d, e)))
		goto fail;
	*out = d;
	return 0;
fail:
	perfdata_close(d);
	return rc;
}

bool perfdata_names_caches(const struct perfdata *d)
{
	bool any = false;
	for (size_t i = 0; i < d->nkinds; i++) {
		const struct kind *k = &d->kinds[i];
		if (k->type != TRACE_EV_CACHE_ALLOC && k->type != TRACE_EV_CACHE_ALLOC_NODE)
			continue;
		if (!k->name.mask)
			return false;
		any = true;
	}
	return any;
}

void perfdata_hash(struct perfdata *d, void (*hash)(void *ctx, const void *p, size_t n), void *ctx)
{
	d->hash = hash;
	d->hash_ctx = ctx;
	hash(ctx, d->map, (size_t)d->data_off);
}

const struct err *perfdata_failure(const struct perfdata *d)
{
	return d->fatal.code ? &d->fatal : NULL;
}

bool perfdata_lost(const struct perfdata *d, uint64_t *lost)
{
	/* perf record writes a LOST_SAMPLES record per event at its exit,
	 * counting again what the LOST records counted: the larger */
	*lost = d->lost > d->lost_samples ? d->lost : d->lost_samples;
	return d->have_lost;
}

uint32_t perfdata_cpus(const struct perfdata *d)
{
	return d->ncpus;
}

const char *perfdata_symbols(const struct perfdata *d)
{
	return d->nsyms ? d->symfile : NULL;
}

void perfdata_progress(const struct perfdata *d, uint64_t *done, uint64_t *total)
{
	*done = d->at;
	*total = d->data_size;
}

void perfdata_close(struct perfdata *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nkinds; i++) {
		evformat_free(d->kinds[i].fmt);
		free(d->kinds[i].fval);
		free(d->kinds[i].fbits);
	}
	free(d->kinds);
	datfile_close(d->df);
	for (uint32_t i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	free(d->name_len);
	free(d->sites);
	strtab_fini(&d->site_strs);
	free(d->syms);
	bigmem_free(d->symtext, d->symtext_bytes);
	for (size_t i = 0; i < d->nmods; i++)
		free(d->mods[i]);
	free(d->mods);
	free(d->symfile);
	free(d->attrs);
	free(d->ids);
	free(d->by_id);
	free(d->q);
	free(d->buf);
	if (d->map)
		munmap((void *)d->map, d->size);
	if (d->fd >= 0)
		close(d->fd);
	free(d->path);
	free(d);
}
