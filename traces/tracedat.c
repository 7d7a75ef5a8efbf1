/* tracedat.c - trace-cmd's binary trace.dat, read in process or through
 * libtracecmd.
 *
 * The records come from the pages of the file (datfile.c, and a page walk
 * here or libtraceevent's kbuffer, for the usual versions 6 and 7, none or
 * zstd compressed) or from libtracecmd in a child process (any file
 * datfile.c does not take), and
 * their fields are read as numbers and strings, never
 * printed and parsed. What a record becomes is what the text parser makes of
 * the line `trace-cmd report` (3.x, default options) prints for it, so a
 * trace.dat and its report text replay alike: the CPUs are merged by
 * timestamp with the lowest CPU first on ties, as report does; the time is
 * rounded to the microsecond report prints; call_site is "func+0xoff" when
 * the file's symbol table has the function (the kmem plugin's form) and the
 * address as the event's format prints it otherwise; the gfp bits are those
 * of the flag names the event's __print_flags table gives the value; a
 * marker is the text of an ftrace print record. A "line" is one the report
 * prints: its "cpus=N" header, a "CPU:N [M EVENTS DROPPED]" note before a
 * record after a gap, and one per record. Built without libtracecmd, only
 * tracedat_supported() and an error are left.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "tracedat.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SLABSIM_HAVE_TRACECMD

bool tracedat_supported(void)
{
	return false;
}

int tracedat_open(int fd, const char *path, uint32_t skip_fields, struct tracedat **out,
		  struct err *e)
{
	close(fd);
	*out = NULL;
	return err_at(e, SLABSIM_EINPUT, path, 0,
		      "trace.dat: this slabsim was built without libtracecmd; run `trace-cmd "
		      "report -i FILE | slabsim replay -`");
}

int tracedat_next(struct tracedat *d, struct trace_event *ev, enum trace_line_kind *kind,
		  uint64_t *lost, uint32_t skip_fields, char *msg)
{
	return 0;
}

bool tracedat_buffer_lost(const struct tracedat *d, uint64_t *lost)
{
	return false;
}

uint64_t tracedat_records(const struct tracedat *d)
{
	return 0;
}

const struct err *tracedat_failure(const struct tracedat *d)
{
	return NULL;
}

bool tracedat_unread(const struct tracedat *d, uint64_t *expected, uint64_t *missing)
{
	*expected = *missing = 0;
	return false;
}

uint32_t tracedat_cpus(const struct tracedat *d)
{
	return 0;
}

bool tracedat_names_caches(const struct tracedat *d)
{
	return false;
}

bool tracedat_strings_interned(const struct tracedat *d)
{
	return false;
}

void tracedat_close(struct tracedat *d)
{
}

#else

#include <trace-cmd/trace-cmd.h>
#include <traceevent/kbuffer.h>

#include "datfile.h"
#include "evformat.h"
#include "tepgfp.h"
#include "strtab.h"

/* A wanted format parsed in process: its id, system and name (the
 * datfile's). */
struct ownfmt {
	int id;
	const char *system, *name;
	struct evformat *f;
};

static void free_own(struct ownfmt *own, size_t n);

/* LeakSanitizer: libtraceevent 1.7 loses a few bytes while it parses the
 * event formats of any trace.dat (tep_parse_event, seen on the bundled
 * samples), and libtracecmd strings it read with sscanf's %m; neither is
 * in our reach, so their allocations are not reported (the last pattern:
 * sscanf called from their frames, which the fast unwinder does not see;
 * slabsim itself never uses %m). The sanitizer calls this hook when a
 * binary defines it. */
#if defined(__SANITIZE_ADDRESS__)
#define TRACEDAT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRACEDAT_ASAN 1
#endif
#endif
#ifdef TRACEDAT_ASAN
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:libtracecmd.so\nleak:__isoc99_vsscanf\n";
}
#endif

/* Exported by libtracecmd 1.3 but declared only in trace-cmd's private
 * header: the per-CPU ring-buffer statistics the file stores ("CPU: 0\n
 * entries: ...\noverrun: ..."), NULL when it stores none. */
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);

#define MSG_MAX	   256
#define SITE_MAX   256
#define GFP_MEMO   16

/* What kind of record an event id is, and where its fields are (looked up
 * once per id). */
enum rec_kind { K_UNKNOWN = 0, K_OTHER, K_SLAB, K_PRINT };

/* A number field at a fixed place in a record: its offset and the mask of
 * its size (mask 0: the event has no such field to read). */
struct fixfield {
	uint32_t off;
	uint64_t mask;
};

struct evinfo {
	enum rec_kind kind;
	enum trace_ev_type type;
	bool alloc; /* an allocation: bytes_req and bytes_alloc are read */
	/* by value (info is reallocated); offset -1 when the format has none */
	struct evformat_field call_site, ptr, bytes_req, bytes_alloc, gfp_flags, node, accounted;
	struct evformat_field pfn, order; /* mm_page_free, mm_page_alloc */
	struct evformat_field name;	  /* the cache's name (a __string) */
	struct evformat_field buf;	  /* the print event's text */
	bool accounted_in_fmt;		  /* accounted= printed from gfp_flags, no field */
	bool site_hex_0x;		  /* call_site printed by %pS/%p: "0x..." when unresolved */
	bool gfp_table;			  /* a __print_flags of gfp_flags (flag_val, flag_bits) */
	uint64_t account_bit;		  /* __GFP_ACCOUNT's value in that table (0: unknown) */
	/* that table's entries, values parsed and names mapped once */
	uint64_t *flag_val;
	uint32_t *flag_bits;
	int nflags;
	/* gfp_bits() of the values met, direct-mapped (bits 0: empty): a
	 * trace has a few dozen values, the last one repeats 1 time in 5 */
	uint64_t gfp_val[GFP_MEMO];
	uint32_t gfp_bits[GFP_MEMO];
	/* The fields above at fixed places (fix_layout), in a file read in
	 * process whose byte order is ours: when fixed, a record of at least
	 * need bytes holds every field read, so one bound check stands for
	 * read_num's check and size switch at every field (read_num was
	 * about a seventh of a trace.dat replay's instructions). */
	bool fixed;
	uint32_t need;
	struct fixfield fx_site, fx_ptr, fx_req, fx_alloc, fx_gfp, fx_node, fx_acc, fx_name;
	struct fixfield fx_pfn, fx_order;
};

/* Call-site strings by address, direct-mapped: a few hundred sites make
 * millions of events. */
#define SITE_CACHE 4096
#define NAME_CACHE 256 /* strtab_cache_slot(.., 8) */
struct site_slot {
	uint64_t addr;
	const char *str; /* NULL: empty; interned in tdlib.strs */
	int32_t wire_id; /* its id on the pipe (put_msg), -1 not sent yet */
};

struct tdlib {
	char *path;
	int fd;
	struct tracecmd_input *h;
	struct tep_handle *tep;
	int ncpu;
	struct tep_record **next; /* by CPU: the record each CPU has next, NULL at its end */
	uint64_t *got;		  /* by CPU: records read */
	struct tep_record *cur;	  /* the record returned last (its strings are in use) */
	bool header_done;
	struct tep_record *pending; /* a record whose dropped-events note came first */
	/* what each event id seen is: info[slot[id] - 1] (slot 0: not yet
	 * looked up); a few kinds among ids up to the thousands, so the
	 * entries are kept apart from the index by id */
	uint32_t *slot;
	int nslot;
	struct evinfo *info;
	int ninfo, info_cap;
	uint64_t records;
	char site[SITE_MAX];
	int32_t *site_wire;	 /* the wire id of the last call_site returned, or NULL */
	char name[SITE_MAX + 8]; /* + a word: copy_token writes whole words */
	struct site_slot *sites; /* SITE_CACHE */
	/* the call sites and cache names handed out, interned: each stays at
	 * its address until the close (tracedat_strings_interned), the sites'
	 * cache in front of it for the call sites, names' for the names */
	struct strtab strs;
	struct name_hit {
		const char *str;
		size_t len;
	} names[NAME_CACHE];
	char *text; /* marker text */
	size_t text_cap;
	/* In process (fast_open): the file's container, a kbuffer and the
	 * record at hand by CPU (next[cpu] points there), the CPU whose
	 * record went out last (advanced at the next take_next: its data
	 * stays valid until then), the CPU whose data was corrupt. */
	struct datfile *df;
	struct kbuffer **kb;
	struct pagewalk *walk; /* by CPU, when the pages are walked here */
	struct tep_record *recs;
	int taken, bad_cpu;
	bool big_endian; /* the file's byte order */
	/* in process: the common type and pid fields (one layout for all
	 * events), read here instead of by tep_data_type/tep_data_pid */
	bool have_common;
	struct evformat_field f_type, f_pid;
	/* the same at fixed places (fix_common): records of at least
	 * common_need bytes hold both */
	bool common_fixed;
	uint32_t common_need;
	struct fixfield fx_type, fx_pid;
	/* in process, the wanted formats parsed by evformat.c (tep then has
	 * none), by id; NULL when libtraceevent parsed them */
	struct ownfmt *own;
	size_t nown;
	size_t data_off, data_max; /* a page's events: [data_off, data_off + data_max) */
};

/* Handles that failed tracecmd_init_data(): never closed (see tracedat_open),
 * kept reachable so that leak checkers do not report them. At most a few
 * per process: one per trace.dat that failed to open. */
static struct tracecmd_input *parked[16];
static unsigned nparked;

static void park(struct tracecmd_input *h)
{
	parked[nparked++ % 16] = h;
}

static void lib_close(struct tdlib *d);

static int lib_open(int fd, const char *path, struct tdlib **out, struct err *e)
{
	struct tdlib *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d || !(d->path = strdup(path))) {
		free(d);
		close(fd);
		return err_set(e, SLABSIM_ENOMEM, "out of memory opening %s", path);
	}
	d->fd = fd;
	/* Its warnings would go to stderr; the message is ours. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	/* libtracecmd opens the file again by name: the descriptor's, which
	 * also names an unlinked copy. Headers first, then the data: when the
	 * data is cut short, tracecmd_init_data() fails and the handle cannot
	 * be closed (libtracecmd 1.3.1's tracecmd_close() then crashes, as
	 * tracecmd_open_fd() does on its own failure path), so it is parked. */
	char name[64];
	(void)snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	if (!(d->h = tracecmd_open_head(name, TRACECMD_FL_LOAD_NO_PLUGINS))) {
		lib_close(d);
		return err_at(e, SLABSIM_EINPUT, path, 0,
			      "trace.dat: libtracecmd cannot read its headers (truncated, or a "
			      "file version or compression it does not know)");
	}
	if (tracecmd_init_data(d->h) < 0) {
		park(d->h);
		d->h = NULL;
		lib_close(d);
		return err_at(e, SLABSIM_EINPUT, path, 0,
			      "trace.dat: libtracecmd cannot read its data (truncated?)");
	}
	d->tep = tracecmd_get_tep(d->h);
	d->big_endian = d->tep && tep_is_file_bigendian(d->tep);
	d->ncpu = d->tep ? tep_get_cpus(d->tep) : 0;
	if (d->ncpu < 0)
		d->ncpu = 0;
	d->next = calloc((size_t)d->ncpu + 1, sizeof(*d->next));
	d->got = calloc((size_t)d->ncpu + 1, sizeof(*d->got));
	d->sites = calloc(SITE_CACHE, sizeof(*d->sites));
	strtab_init(&d->strs);
	if (!d->tep || !d->next || !d->got || !d->sites) {
		lib_close(d);
		return err_set(e, SLABSIM_ENOMEM, "out of memory opening %s", path);
	}
	for (int cpu = 0; cpu < d->ncpu; cpu++)
		d->next[cpu] = tracecmd_read_cpu_first(d->h, cpu);
	*out = d;
	return 0;
}

/* ---- What an event id is ------------------------------------------------- */

/* The format file of event id in df (any system), or NULL. */
static const struct datfile_format *format_by_id(const struct datfile *df, int id)
{
	for (size_t i = 0; i < datfile_nformats(df); i++)
		if (datfile_format(df, i)->id == id)
			return datfile_format(df, i);
	return NULL;
}

static int slab_type(const char *name)
{
	for (int t = 0; t < TRACE_EV_MARKER; t++)
		if (strcmp(name, trace_ev_names[t]) == 0)
			return t;
	return -1;
}

static uint64_t flag_value(const struct tep_print_flag_sym *f)
{
	return f->value ? strtoull(f->value, NULL, 0) : 0;
}

static uint32_t named_gfp(const char *s);

/* By the record's type id: what the id is was found once, so a record
 * costs one read of its type field, not libtraceevent's event search. */
static inline bool read_num(const struct tdlib *d, const struct evformat_field *f,
			    const struct tep_record *rec, uint64_t *v);

/* The number at f in data: an 8-byte load masked to the field's size. It
 * may read up to 7 bytes past the record, never past the page's memory: a
 * page handed out has 64 zero bytes after it (datfile_next_page), which is
 * why only records of pages read in process are read so. */
static inline uint64_t fixed_num(const void *data, const struct fixfield *f)
{
	uint64_t x;
	memcpy(&x, (const uint8_t *)data + f->off, 8);
	return x & f->mask;
}

/* f at a fixed place, when it is a number read_num reads (found, of 1, 2,
 * 4 or 8 bytes); *need grows to hold it. false: it is not (fx's mask 0). */
static bool fix_field(const struct evformat_field *f, struct fixfield *fx, uint32_t *need)
{
	*fx = (struct fixfield){0};
	if (!f->found || f->offset < 0 ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return false;
	fx->off = (uint32_t)f->offset;
	fx->mask = f->size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * f->size)) - 1;
	if (fx->off + (uint32_t)f->size > *need)
		*need = fx->off + (uint32_t)f->size;
	return true;
}

/* Do the fixed reads give what read_num gives here? Only for pages read in
 * process (fixed_num's padding), in our byte order. */
static bool can_fix(const struct tdlib *d)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return d->df && !d->big_endian;
#else
	(void)d;
	return false;
#endif
}

/* The common type and pid fields at fixed places, when both are numbers. */
static void fix_common(struct tdlib *d)
{
	d->common_need = 0;
	d->common_fixed = can_fix(d) && d->have_common &&
			  fix_field(&d->f_type, &d->fx_type, &d->common_need) &&
			  fix_field(&d->f_pid, &d->fx_pid, &d->common_need);
}

/* The type id of rec (-1: unreadable). */
static int rec_type(struct tdlib *d, struct tep_record *rec)
{
	uint64_t type;
	return !d->have_common			     ? tep_data_type(d->tep, rec)
	       : read_num(d, &d->f_type, rec, &type) ? (int)type
						     : -1;
}

static struct evformat_field field_of(const struct tep_format_field *f)
{
	if (!f)
		return (struct evformat_field){.offset = -1, .size = -1};
	return (struct evformat_field){
		.offset = f->offset,
		.size = f->size,
		.found = true,
		.flags = ((f->flags & TEP_FIELD_IS_DYNAMIC) ? EVFORMAT_DYNAMIC : 0u) |
			 ((f->flags & TEP_FIELD_IS_RELATIVE) ? EVFORMAT_RELATIVE : 0u),
	};
}

/* What info_of reads of an event's format: libtraceevent's parse of it, or
 * evformat's. */
struct fmtsrc {
	const char *system, *name;
	struct tep_event *ev;
	const struct evformat *own;
};

static struct evformat_field src_field(const struct fmtsrc *s, const char *name)
{
	return s->own ? evformat_field(s->own, name, false) : field_of(tep_find_field(s->ev, name));
}

static const struct ownfmt *own_by_id(const struct tdlib *d, int id)
{
	for (size_t i = 0; i < d->nown; i++)
		if (d->own[i].id == id)
			return &d->own[i];
	return NULL;
}

static bool set_flags(struct evinfo *x, const struct fmtsrc *s)
{
	const uint64_t *val = NULL;
	const char *const *str = NULL;
	size_t n = 0;
	struct tep_print_arg *table = NULL;
	if (s->own) {
		n = evformat_gfp_table(s->own, &val, &str);
	} else if ((table = tepgfp_table(s->ev->print_fmt.args))) {
		for (struct tep_print_flag_sym *f = table->flags.flags; f; f = f->next)
			n++;
	}
	if (!table && !n)
		return true;
	x->gfp_table = true;
	x->flag_val = calloc(n + 1, sizeof(*x->flag_val));
	x->flag_bits = calloc(n + 1, sizeof(*x->flag_bits));
	if (!x->flag_val || !x->flag_bits)
		return false;
	struct tep_print_flag_sym *f = table ? table->flags.flags : NULL;
	for (size_t i = 0; i < n; i++, f = f ? f->next : NULL) {
		uint64_t v = table ? flag_value(f) : val[i];
		const char *name = table ? f->str : str[i];
		x->flag_val[x->nflags] = v;
		x->flag_bits[x->nflags++] = name ? named_gfp(name) : 0;
		if (name && strcmp(name, "__GFP_ACCOUNT") == 0)
			x->account_bit = v;
	}
	return true;
}

/* The slab fields of x at fixed places, when every one read_num would read
 * is a number there (or absent, when it is optional) and the name is a
 * __data_loc (or absent): else x stays on slab_event's reads. */
static void fix_layout(const struct tdlib *d, struct evinfo *x)
{
	uint32_t need = 0;
	x->fixed = false;
	if (!can_fix(d))
		return;
	if (x->type == TRACE_EV_PAGE_FREE || x->type == TRACE_EV_PAGE_ALLOC) {
		x->fixed = fix_field(&x->pfn, &x->fx_pfn, &need) &&
			   fix_field(&x->order, &x->fx_order, &need);
		x->need = need;
		return;
	}
	if (!fix_field(&x->ptr, &x->fx_ptr, &need))
		return;
	if (x->alloc && !(fix_field(&x->bytes_req, &x->fx_req, &need) &&
			  fix_field(&x->bytes_alloc, &x->fx_alloc, &need)))
		return;
	(void)fix_field(&x->gfp_flags, &x->fx_gfp, &need);
	(void)fix_field(&x->accounted, &x->fx_acc, &need);
	(void)fix_field(&x->node, &x->fx_node, &need);
	(void)fix_field(&x->call_site, &x->fx_site, &need);
	if (x->name.found &&
	    (!(x->name.flags & EVFORMAT_DYNAMIC) || !fix_field(&x->name, &x->fx_name, &need)))
		return;
	x->need = need;
	x->fixed = true;
}

/* What event id (rec's) is, looked up once per id. */
static struct evinfo *info_of(struct tdlib *d, struct tep_record *rec, int id)
{
	struct fmtsrc src = {0};
	struct evinfo *x;
	int t;

	if (id >= 0 && id < d->nslot && d->slot[id]) {
		x = &d->info[d->slot[id] - 1];
		if (x->kind != K_UNKNOWN)
			return x;
	}
	if (d->own) {
		const struct ownfmt *o = own_by_id(d, id);
		if (o)
			src = (struct fmtsrc){.system = o->system, .name = o->name, .own = o->f};
	} else {
		struct tep_event *ev = tep_find_event(d->tep, id);
		if (ev && (ev->id < 0 || ev->id != id))
			return NULL;
		if (ev)
			src = (struct fmtsrc){.system = ev->system, .name = ev->name, .ev = ev};
	}
	bool known = src.ev || src.own;
	if (!known && !(d->df && format_by_id(d->df, id)))
		return NULL; /* in process, formats not parsed are other events */
	if (id < 0)
		return NULL;
	if (id >= d->nslot) {
		int n = id + 64;
		uint32_t *v = realloc(d->slot, (size_t)n * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + d->nslot, 0, (size_t)(n - d->nslot) * sizeof(*v));
		d->slot = v;
		d->nslot = n;
	}
	if (!d->slot[id]) {
		if (d->ninfo == d->info_cap) {
			int n = d->info_cap ? 2 * d->info_cap : 16;
			struct evinfo *v = realloc(d->info, (size_t)n * sizeof(*v));
			if (!v)
				return NULL;
			d->info = v;
			d->info_cap = n;
		}
		memset(&d->info[d->ninfo], 0, sizeof(*d->info));
		d->slot[id] = (uint32_t)++d->ninfo;
	}
	x = &d->info[d->slot[id] - 1];
	if (x->kind != K_UNKNOWN)
		return x;
	x->kind = K_OTHER;
	if (!known)
		return x;
	if (src.system && strcmp(src.system, "ftrace") == 0 && strcmp(src.name, "print") == 0) {
		x->kind = K_PRINT;
		x->buf = src_field(&src, "buf");
		return x;
	}
	if (!src.system || strcmp(src.system, "kmem") != 0)
		return x;
	bool page_free = strcmp(src.name, trace_ev_names[TRACE_EV_PAGE_FREE]) == 0;
	if (page_free || strcmp(src.name, trace_ev_names[TRACE_EV_PAGE_ALLOC]) == 0) {
		/* the page allocator's free or allocation (sim/pgfree.h): pfn
		 * and order */
		x->kind = K_SLAB;
		x->type = page_free ? TRACE_EV_PAGE_FREE : TRACE_EV_PAGE_ALLOC;
		x->pfn = src_field(&src, "pfn");
		x->order = src_field(&src, "order");
		fix_layout(d, x);
		return x;
	}
	if ((t = slab_type(src.name)) < 0)
		return x;
	x->kind = K_SLAB;
	x->type = (enum trace_ev_type)t;
	x->alloc = x->type == TRACE_EV_KMALLOC || x->type == TRACE_EV_KMALLOC_NODE ||
		   x->type == TRACE_EV_CACHE_ALLOC || x->type == TRACE_EV_CACHE_ALLOC_NODE;
	x->call_site = src_field(&src, "call_site");
	x->ptr = src_field(&src, "ptr");
	x->bytes_req = src_field(&src, "bytes_req");
	x->bytes_alloc = src_field(&src, "bytes_alloc");
	x->gfp_flags = src_field(&src, "gfp_flags");
	x->node = src_field(&src, "node");
	x->accounted = src_field(&src, "accounted");
	x->name = src_field(&src, "name");
	const char *fmt = src.own		     ? evformat_print(src.own)
			  : src.ev->print_fmt.format ? src.ev->print_fmt.format
						     : "";
	x->accounted_in_fmt =
		!x->accounted.found && strstr(fmt, "accounted=") && x->gfp_flags.found;
	x->site_hex_0x = strstr(fmt, "call_site=%p") != NULL;
	if (x->gfp_flags.found && !set_flags(x, &src)) {
		x->kind = K_UNKNOWN;
		return NULL;
	}
	/* A kernel built without memcg prints IS_ENABLED(CONFIG_MEMCG) as 0. */
	if (x->accounted_in_fmt && strstr(fmt, "(0 &&"))
		x->account_bit = 0;
	fix_layout(d, x);
	return x;
}

/* ---- Fields --------------------------------------------------------------- */

static uint32_t named_gfp(const char *s)
{
	return evformat_gfp_named(s);
}

static uint32_t gfp_table_bits(struct evinfo *x, uint64_t val, size_t slot)
{
	uint32_t bits = evformat_gfp_walk(x->flag_val, x->flag_bits, x->nflags, val);
	x->gfp_val[slot] = val;
	x->gfp_bits[slot] = bits;
	return bits;
}

static inline uint32_t gfp_bits(struct evinfo *x, uint64_t val)
{
	if (!x->gfp_table)
		return TRACE_GFP_KNOWN | evformat_gfp_raw(val);
	size_t slot = (size_t)((val * UINT64_C(0x9e3779b97f4a7c15)) >> 60);
	if (x->gfp_bits[slot] && x->gfp_val[slot] == val)
		return x->gfp_bits[slot];
	return gfp_table_bits(x, val, slot);
}

/* A number field of rec, in the file's byte order, as an unsigned value of
 * the field's size (tep_read_number_field's result, without its calls): a
 * field the record does not hold is missing. */
static inline bool read_num(const struct tdlib *d, const struct evformat_field *f,
			    const struct tep_record *rec, uint64_t *v)
{
	const uint8_t *p;
	uint64_t x = 0;

	/* one test for both bounds (a negative size is no number's size) */
	if (f->offset < 0 || (int64_t)f->offset + f->size > (int64_t)rec->size)
		return false;
	p = (const uint8_t *)rec->data + f->offset;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (!d->big_endian) { /* the usual case: one load */
		switch (f->size) {
		case 8:
			memcpy(&x, p, 8);
			break;
		case 4: {
			uint32_t y;
			memcpy(&y, p, 4);
			x = y;
			break;
		}
		case 2: {
			uint16_t y;
			memcpy(&y, p, 2);
			x = y;
			break;
		}
		case 1:
			x = p[0];
			break;
		default:
			return false;
		}
		*v = x;
		return true;
	}
#endif
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return false;
	for (int i = 0; i < f->size; i++)
		x |= (uint64_t)p[d->big_endian ? f->size - 1 - i : i] << (8 * i);
	*v = x;
	return true;
}

static const char *call_site_new(struct tdlib *d, const struct evinfo *x, uint64_t site,
				 struct site_slot *slot)
{
	const char *fn = tep_find_function(d->tep, site);
	if (fn)
		(void)snprintf(d->site, sizeof(d->site), "%s+0x%x", fn,
			       (unsigned)(int)(site - tep_find_function_address(d->tep, site)));
	else
		(void)snprintf(d->site, sizeof(d->site), x->site_hex_0x ? "0x%llx" : "%llx",
			       (unsigned long long)site);
	uint32_t id;
	if (slot && !strtab_intern(&d->strs, d->site, &id)) {
		slot->str = strtab_str(&d->strs, id);
		slot->addr = site;
		slot->wire_id = -1;
		d->site_wire = &slot->wire_id;
		return slot->str;
	}
	return NULL; /* out of memory */
}

/* The cache name in d->name (n bytes), interned: a direct-mapped cache of
 * the names met, in front of the string table. NULL: out of memory. */
static const char *name_of(struct tdlib *d, size_t n)
{
	struct name_hit *h = &d->names[strtab_cache_slot(d->name, n, 8)];
	if (h->str && h->len == n && memcmp(h->str, d->name, n) == 0)
		return h->str;
	uint32_t id;
	if (strtab_intern_n(&d->strs, d->name, n, &id))
		return NULL;
	*h = (struct name_hit){strtab_str(&d->strs, id), n};
	return h->str;
}

/* The call site's string: "func+0xoff", or the address as printed. */
static inline const char *call_site(struct tdlib *d, const struct evinfo *x, uint64_t site)
{
	struct site_slot *slot =
		d->sites ? &d->sites[(site * UINT64_C(0x9e3779b97f4a7c15)) >> 52] : NULL;

	d->site_wire = NULL;
	if (slot && slot->str && slot->addr == site) {
		d->site_wire = &slot->wire_id;
		return slot->str;
	}
	return call_site_new(d, x, site, slot);
}

/* A string field f of rec, or NULL; *len: the bytes it may have. A flexible
 * array at the end of the record ("char buf[]", size 0: the print event's)
 * runs to the record's end. A dynamic one (__string, "__data_loc") holds a
 * 32-bit word: the string's offset in its low 16 bits, its length in the
 * high 16; the offset counts from the record's start, or, when the format
 * marks the field "__rel_loc", from the end of the field itself. Read here
 * rather than through tep_get_field_raw, which looks the field up by name
 * at every record. */
static const char *str_field(const struct tdlib *d, const struct evformat_field *f,
			     struct tep_record *rec, int *len)
{
	uint64_t loc;
	long off, n;

	if (f->offset < 0 || f->offset > rec->size)
		return NULL;
	if (!(f->flags & EVFORMAT_DYNAMIC)) {
		if (f->size != 0)
			return NULL;
		*len = rec->size - f->offset;
		return (const char *)rec->data + f->offset;
	}
	if (f->offset + f->size > rec->size || !read_num(d, f, rec, &loc))
		return NULL;
	off = (long)(loc & 0xffff);
	n = (long)((loc >> 16) & 0xffff);
	if (f->flags & EVFORMAT_RELATIVE)
		off += f->offset + f->size;
	if (off > rec->size || n > rec->size - off)
		return NULL;
	*len = (int)n;
	return (const char *)rec->data + off;
}

/* The marker text as the text parser reads it off the report line: the
 * buffer up to its first newline, without leading and trailing blanks. */
static int marker_text(struct tdlib *d, const struct evinfo *x, struct tep_record *rec,
		       const char **text)
{
	int len = 0;
	const char *s = str_field(d, &x->buf, rec, &len);
	size_t n = 0;

	if (s && len > 0) {
		const char *nl = memchr(s, '\n', (size_t)len);
		const char *z = memchr(s, '\0', (size_t)len);
		n = (size_t)len;
		if (z && (size_t)(z - s) < n)
			n = (size_t)(z - s);
		if (nl && (size_t)(nl - s) < n)
			n = (size_t)(nl - s);
	}
	if (n + 1 > d->text_cap) {
		char *t = realloc(d->text, n + 1);
		if (!t)
			return SLABSIM_ENOMEM;
		d->text = t;
		d->text_cap = n + 1;
	}
	if (n)
		memcpy(d->text, s, n);
	d->text[n] = '\0';
	char *p = d->text, *e = d->text + n;
	while (*p == ' ' || *p == '\t')
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = '\0';
	*text = p;
	return 0;
}

static int missing(char *msg, const char *what, enum trace_ev_type t)
{
	(void)snprintf(msg, MSG_MAX, "expected '%s=<%s>' in %s event, got no %s field", what,
		       strcmp(what, "ptr") == 0 ? "hex" : "n", trace_ev_names[t], what);
	return SLABSIM_EINPUT;
}

static int slab_event(struct tdlib *d, struct evinfo *x, struct tep_record *rec,
		      struct trace_event *ev, uint32_t skip_fields, char *msg)
{
	uint64_t v;
	bool alloc = x->type == TRACE_EV_KMALLOC || x->type == TRACE_EV_KMALLOC_NODE ||
		     x->type == TRACE_EV_CACHE_ALLOC || x->type == TRACE_EV_CACHE_ALLOC_NODE;

	ev->type = x->type;
	if (skip_fields & (1u << x->type))
		return 1;
	if (x->type == TRACE_EV_PAGE_FREE || x->type == TRACE_EV_PAGE_ALLOC) { /* trace.h */
		uint64_t order;
		if (!read_num(d, &x->pfn, rec, &ev->ptr))
			return missing(msg, "pfn", x->type);
		if (!read_num(d, &x->order, rec, &order))
			return missing(msg, "order", x->type);
		if (ev->ptr >> 40) { /* a failed allocation's pfn -1: 0 bytes */
			ev->ptr = 0;
			return 1;
		}
		ev->ptr <<= 12;
		ev->bytes_alloc = UINT64_C(4096) << (order < 20 ? order : 20);
		return 1;
	}
	if (!read_num(d, &x->ptr, rec, &ev->ptr))
		return missing(msg, "ptr", x->type);
	if (alloc && !read_num(d, &x->bytes_req, rec, &ev->bytes_req))
		return missing(msg, "bytes_req", x->type);
	if (alloc && !read_num(d, &x->bytes_alloc, rec, &ev->bytes_alloc))
		return missing(msg, "bytes_alloc", x->type);
	if (read_num(d, &x->gfp_flags, rec, &v)) {
		ev->gfp = gfp_bits(x, v);
		if (x->accounted_in_fmt)
			ev->accounted = x->account_bit && (v & x->account_bit) == x->account_bit;
	}
	if (read_num(d, &x->accounted, rec, &v))
		ev->accounted = v != 0;
	if (ev->accounted == 1 && !(ev->gfp & TRACE_GFP_ACCOUNT))
		ev->gfp |= TRACE_GFP_ACCOUNT |
			   ((ev->gfp & TRACE_GFP_KNOWN) ? TRACE_GFP_ACCOUNT_ONLY : 0);
	if (read_num(d, &x->node, rec, &v))
		ev->node = (int32_t)v;
	if (read_num(d, &x->call_site, rec, &v))
		if (!(ev->call_site = call_site(d, x, v)))
			return SLABSIM_ENOMEM;
	if (x->name.found) {
		int len = 0;
		const char *s = str_field(d, &x->name, rec, &len);
		if (s && len >= 0) {
			/* the text parser's name= token ends at a blank; one pass
			 * (a memcpy of a dozen bytes was a quarter of lib_next) */
			size_t n = 0, max = sizeof(d->name) - 1;
			if ((size_t)len < max)
				max = (size_t)len;
			for (; n < max && s[n] && s[n] != ' ' && s[n] != '\t'; n++)
				d->name[n] = s[n];
			d->name[n] = '\0';
			if (!(ev->name = name_of(d, n)))
				return SLABSIM_ENOMEM;
		}
	}
	return 1;
}

/* A byte of w that is zero, as the lowest set bit of the result (bits
 * above the first zero byte may be set too). */
static inline uint64_t zero_byte(uint64_t w)
{
	return (w - UINT64_C(0x0101010101010101)) & ~w & UINT64_C(0x8080808080808080);
}

/* The text parser's name= token of s (it ends at a NUL, blank or tab) into
 * dst, at most max bytes, a word at a time: dst has room for max rounded
 * up to a word, and s may be read as far (a page read in process, see
 * fixed_num). */
static inline size_t copy_token(char *dst, const char *s, size_t max)
{
	size_t n = 0;
	while (n < max) {
		uint64_t w, stop;
		memcpy(&w, s + n, 8);
		memcpy(dst + n, &w, 8);
		stop = zero_byte(w) | zero_byte(w ^ UINT64_C(0x2020202020202020)) |
		       zero_byte(w ^ UINT64_C(0x0909090909090909));
		if (stop) {
			n += (size_t)__builtin_ctzll(stop) / 8;
			break;
		}
		n += 8;
	}
	n = n < max ? n : max;
	dst[n] = '\0';
	return n;
}

/* slab_event for a record of at least x->need bytes of a fixed layout
 * (fix_layout): the same fields, read at their places. */
static inline int slab_fixed(struct tdlib *d, struct evinfo *x, const struct tep_record *rec,
			     struct trace_event *ev, uint32_t skip_fields)
{
	const uint8_t *p = rec->data;
	uint64_t v;

	ev->type = x->type;
	if (skip_fields & (1u << x->type))
		return 1;
	if (x->type == TRACE_EV_PAGE_FREE || x->type == TRACE_EV_PAGE_ALLOC) {
		uint64_t order = fixed_num(p, &x->fx_order);
		ev->ptr = fixed_num(p, &x->fx_pfn);
		if (ev->ptr >> 40) {
			ev->ptr = 0;
			return 1;
		}
		ev->ptr <<= 12;
		ev->bytes_alloc = UINT64_C(4096) << (order < 20 ? order : 20);
		return 1;
	}
	ev->ptr = fixed_num(p, &x->fx_ptr);
	if (x->alloc) {
		ev->bytes_req = fixed_num(p, &x->fx_req);
		ev->bytes_alloc = fixed_num(p, &x->fx_alloc);
	}
	if (x->fx_gfp.mask) {
		v = fixed_num(p, &x->fx_gfp);
		ev->gfp = gfp_bits(x, v);
		if (x->accounted_in_fmt)
			ev->accounted = x->account_bit && (v & x->account_bit) == x->account_bit;
	}
	if (x->fx_acc.mask)
		ev->accounted = fixed_num(p, &x->fx_acc) != 0;
	if (ev->accounted == 1 && !(ev->gfp & TRACE_GFP_ACCOUNT))
		ev->gfp |= TRACE_GFP_ACCOUNT |
			   ((ev->gfp & TRACE_GFP_KNOWN) ? TRACE_GFP_ACCOUNT_ONLY : 0);
	if (x->fx_node.mask)
		ev->node = (int32_t)fixed_num(p, &x->fx_node);
	if (x->fx_site.mask)
		if (!(ev->call_site = call_site(d, x, fixed_num(p, &x->fx_site))))
			return SLABSIM_ENOMEM;
	if (x->fx_name.mask) {
		/* str_field's __data_loc: offset in the low 16 bits, length in
		 * the high 16, from the record's start or (__rel_loc) the
		 * field's end */
		uint64_t loc = fixed_num(p, &x->fx_name);
		uint32_t off = (uint32_t)(loc & 0xffff), n = (uint32_t)((loc >> 16) & 0xffff);
		uint32_t size = (uint32_t)rec->size;
		if (x->name.flags & EVFORMAT_RELATIVE)
			off += (uint32_t)(x->name.offset + x->name.size);
		if (off <= size && n <= size - off) {
			if (!(ev->name =
				      name_of(d, copy_token(d->name, (const char *)p + off,
							    n < SITE_MAX - 1 ? n : SITE_MAX - 1))))
				return SLABSIM_ENOMEM;
		}
	}
	return 1;
}

/* ---- Records in report order ------------------------------------------------ */

static inline int fast_read(struct tdlib *d, int cpu);

static struct tep_record *take_next(struct tdlib *d)
{
	int best = -1;

	if (d->df && d->taken >= 0) {
		int r = fast_read(d, d->taken);
		if (r < 0) {
			d->bad_cpu = d->taken;
			return NULL;
		}
		d->taken = -1;
	}
	unsigned long long best_ts = 0;
	for (int cpu = 0; cpu < d->ncpu; cpu++) {
		const struct tep_record *n = d->next[cpu];
		if (n && (best < 0 || n->ts < best_ts)) {
			best = cpu;
			best_ts = n->ts;
		}
	}
	if (best < 0)
		return NULL;
	struct tep_record *rec = d->next[best];
	d->got[best]++;
	if (d->df)
		d->taken = best;
	else
		d->next[best] = tracecmd_read_data(d->h, best);
	return rec;
}

static int lib_next(struct tdlib *d, struct trace_event *ev, enum trace_line_kind *kind,
		    uint64_t *lost, uint32_t skip_fields, char *msg)
{
	struct tep_record *rec;
	struct evinfo *x;

	if (d->cur) {
		if (!d->df)
			tracecmd_free_record(d->cur);
		d->cur = NULL;
	}
	d->site_wire = NULL;
	*lost = 0;
	if (!d->header_done) { /* "cpus=N" */
		d->header_done = true;
		*kind = TRACE_LINE_HEADER;
		return 1;
	}
	if (d->pending) {
		rec = d->pending;
		d->pending = NULL;
	} else {
		if (!(rec = take_next(d)))
			return 0;
		d->records++;
		if (rec->missed_events) {
			d->pending = rec;
			*lost = rec->missed_events > 0 ? (uint64_t)rec->missed_events : 0;
			*kind = TRACE_LINE_LOST;
			return 1;
		}
	}
	d->cur = rec;

	ev->type = 0;
	/* report prints microseconds, rounded */
	ev->t_ns = (rec->ts + 500) / 1000 * 1000;
	ev->cpu = (uint32_t)rec->cpu;
	uint64_t pid;
	int id;
	if (d->common_fixed && (uint32_t)rec->size >= d->common_need) {
		id = (int)fixed_num(rec->data, &d->fx_type);
		ev->pid = (int)fixed_num(rec->data, &d->fx_pid);
	} else {
		id = rec_type(d, rec);
		ev->pid = !d->have_common		      ? tep_data_pid(d->tep, rec)
			  : read_num(d, &d->f_pid, rec, &pid) ? (int)pid
							      : -1;
	}
	trace_event_clear_fields(ev);
	ev->text = NULL;
	ev->line = 0;
	ev->site_id = 0;
	ev->tpl = 0;

	x = info_of(d, rec, id);
	if (!x) {
		(void)snprintf(msg, MSG_MAX, "expected a record of a known event, got event id %d",
			       d->own ? rec_type(d, rec) : tep_data_type(d->tep, rec));
		*kind = TRACE_LINE_EVENT;
		return SLABSIM_EINPUT;
	}
	switch (x->kind) {
	case K_PRINT:
		*kind = TRACE_LINE_EVENT;
		ev->type = TRACE_EV_MARKER;
		if (marker_text(d, x, rec, &ev->text))
			return SLABSIM_ENOMEM;
		return 1;
	case K_SLAB:
		*kind = TRACE_LINE_EVENT;
		if (x->fixed && (uint32_t)rec->size >= x->need)
			return slab_fixed(d, x, rec, ev, skip_fields);
		return slab_event(d, x, rec, ev, skip_fields, msg);
	default:
		*kind = TRACE_LINE_OTHER_EVENT;
		return 1;
	}
}

static const char *lib_cpustats(const struct tdlib *d)
{
	return d->df ? datfile_cpustats(d->df) : tracecmd_get_cpustats(d->h);
}

static bool lib_buffer_lost(const struct tdlib *d, uint64_t *lost)
{
	const char *s = lib_cpustats(d);
	static const char *const keys[] = {"overrun:", "commit overrun:", "dropped events:"};
	uint64_t n = 0;

	*lost = 0;
	if (!s || !*s)
		return false;
	for (const char *line = s; *line; line += strcspn(line, "\n"), line += *line == '\n') {
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t kl = strlen(keys[k]);
			if (strncmp(line, keys[k], kl) == 0)
				n += strtoull(line + kl, NULL, 10);
		}
	}
	*lost = n;
	return true;
}

/* Records the file's per-CPU statistics say were read from the ring buffer
 * ("read events:", what `trace-cmd report --stat` prints) and the file did
 * not give: over the CPUs, what each fell short. false when the file
 * stores no such count. */
static bool lib_unread(const struct tdlib *d, uint64_t *expected, uint64_t *missing)
{
	const char *s = lib_cpustats(d);
	bool any = false;
	long cpu = -1;
	*expected = *missing = 0;
	for (const char *line = s; line && *line;
	     line += strcspn(line, "\n"), line += *line == '\n') {
		if (strncmp(line, "CPU:", 4) == 0) {
			cpu = strtol(line + 4, NULL, 10);
		} else if (strncmp(line, "read events:", 12) == 0 && cpu >= 0) {
			uint64_t want = strtoull(line + 12, NULL, 10);
			uint64_t got = cpu < d->ncpu ? d->got[cpu] : 0;
			*expected += want;
			*missing += want > got ? want - got : 0;
			any = true;
		}
	}
	return any;
}

static uint32_t lib_cpus(const struct tdlib *d)
{
	return d->ncpu > 0 ? (uint32_t)d->ncpu : 0;
}

static void lib_close(struct tdlib *d)
{
	if (!d)
		return;
	if (d->cur && !d->df)
		tracecmd_free_record(d->cur);
	if (d->pending && !d->df)
		tracecmd_free_record(d->pending);
	for (int cpu = 0; d->next && cpu < d->ncpu && !d->df; cpu++)
		if (d->next[cpu])
			tracecmd_free_record(d->next[cpu]);
	for (int cpu = 0; d->kb && cpu < d->ncpu; cpu++)
		if (d->kb[cpu])
			kbuffer_free(d->kb[cpu]);
	free(d->kb);
	free(d->walk);
	free(d->recs);
	if (d->df) {
		if (d->tep)
			tep_free(d->tep);
		free_own(d->own, d->nown);
		datfile_close(d->df);
	}
	free(d->next);
	free(d->got);
	if (d->h)
		tracecmd_close(d->h);
	if (d->fd >= 0)
		close(d->fd);
	for (int i = 0; d->info && i < d->ninfo; i++) {
		free(d->info[i].flag_val);
		free(d->info[i].flag_bits);
	}
	free(d->info);
	free(d->slot);
	free(d->sites);
	strtab_fini(&d->strs);
	free(d->text);
	free(d->path);
	free(d);
}

/* ---- In process: the container and the pages read here ----------------------
 *
 * libtracecmd parses every event format of the file (about 2,300 on a 6.18
 * kernel: 0.3 s, the whole cost of a small trace) and allocates, fills and
 * frees a record for each event, keeping (1.3.1) every decompressed chunk
 * in a list it walks at every page. What a replay needs is the formats of
 * the kmem system and of ftrace's print, the symbol table, and the pages:
 * datfile.c finds them, evformat.c (or libtraceevent) parses those formats,
 * and struct pagewalk (or libtraceevent's kbuffer) walks each page (a
 * ring-buffer page: a 64-bit timestamp, a commit word of the kernel's long
 * size whose low 27 bits are the bytes of events and
 * whose top bits flag lost events, then the events). The records are merged
 * by time as libtracecmd merges them, and what a record becomes is lib_next's
 * as before: a file read here and through libtracecmd replays alike. Files
 * of other shapes (datfile.h) still go to libtracecmd in the child.
 *
 * The child existed because libtraceevent's format parser trusts its input.
 * The few formats wanted are read by evformat.c, which checks what it
 * reads; only when it does not take one of them (a shape it leaves to
 * libtraceevent) does libtraceevent parse them, first in a forked probe
 * (formats_ok): if the probe dies, the file goes the child's way, which
 * reports the crash as it did. The container and the pages are checked here
 * (datfile.c; the commit bound below), and a page walked has zeros after
 * it.
 */

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

/* The longest the libraries may work without handing over a record (or,
 * at the start, the file's opening: a sanitized build parses a 6.18 file's
 * ~2,300 event formats in about 10 s on a loaded machine). A corrupt file
 * can make libtracecmd loop for ever; the child's (or the probe's) SIGALRM
 * then ends it and the parent reports the stall (child_died) instead of
 * hanging. A healthy read hands over records every few milliseconds. */
#define TRACEDAT_STALL_S 60

/* The formats lib_next reads fields of: the slab events, the page free and
 * allocation and the marker. The file's other events (the rest of kmem too) are "other"
 * by their id alone (info_of), as they are to lib_next through libtracecmd:
 * libtraceevent's format parser costs about 0.7 M instructions a format. */
static bool wanted_format(const struct datfile_format *f)
{
	if (strcmp(f->system, "ftrace") == 0)
		return strcmp(f->name, "print") == 0;
	if (strcmp(f->system, "kmem") != 0)
		return false;
	return slab_type(f->name) >= 0 ||
	       strcmp(f->name, trace_ev_names[TRACE_EV_PAGE_FREE]) == 0 ||
	       strcmp(f->name, trace_ev_names[TRACE_EV_PAGE_ALLOC]) == 0;
}

/* The header page's format, then the wanted event formats, into tep. */
static int parse_formats(struct tep_handle *tep, const struct datfile *df)
{
	size_t len;
	const char *h = datfile_header_page(df, &len);
	char *copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, h, len);
	copy[len] = '\0';
	int rc = tep_parse_header_page(tep, copy, len, datfile_long_size(df));
	free(copy);
	if (rc)
		return -1;
	for (size_t i = 0; i < datfile_nformats(df); i++) {
		const struct datfile_format *f = datfile_format(df, i);
		if (wanted_format(f))
			(void)tep_parse_event(tep, f->text, f->len, f->system);
	}
	return 0;
}

/* Does libtraceevent parse these formats without dying or hanging? Asked
 * of a forked probe, so that a crash is the probe's. */
static bool formats_ok(const struct datfile *df)
{
	int status = 0;
	(void)fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM};
		for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
			(void)signal(faults[i], SIG_DFL);
		(void)alarm(TRACEDAT_STALL_S);
		struct tep_handle *tep = tep_alloc();
		tep_set_loglevel(TEP_LOG_NONE);
		_exit(tep && parse_formats(tep, df) == 0 ? 0 : 1);
	}
	if (pid < 0)
		return false;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void free_own(struct ownfmt *own, size_t n)
{
	for (size_t i = 0; i < n; i++)
		evformat_free(own[i].f);
	free(own);
}

/* The header page and the wanted formats parsed in process (evformat.h):
 * 0 with *own (by the file's order), *n and *commit (the commit field's
 * size), 1 when any of them is not of a shape taken there (libtraceevent
 * then parses them all), SLABSIM_ENOMEM. Saves libtraceevent's parse,
 * twice (the probe's and ours), and the probe's fork. */
static int own_formats(const struct datfile *df, struct ownfmt **own, size_t *n, int *commit)
{
	size_t len, cnt = 0;
	const char *h = datfile_header_page(df, &len);
	struct ownfmt *v = NULL;
	const struct evformat *like = NULL; /* the last with a gfp table */
	*own = NULL;
	*n = 0;
	if ((*commit = evformat_header_commit_size(h, len)) < 0)
		return 1;
	const char *sys = NULL; /* the formats come by system: asked once a system */
	bool sys_wanted = false;
	for (size_t i = 0; i < datfile_nformats(df); i++) {
		const struct datfile_format *f = datfile_format(df, i);
		if (f->system != sys) {
			sys = f->system;
			sys_wanted = strcmp(sys, "ftrace") == 0 || strcmp(sys, "kmem") == 0;
		}
		if (!sys_wanted || !wanted_format(f))
			continue;
		struct ownfmt *w = realloc(v, (cnt + 1) * sizeof(*w));
		if (!w) {
			free_own(v, cnt);
			return SLABSIM_ENOMEM;
		}
		v = w;
		int rc = f->id < 0 ? 1 : evformat_parse(f->text, f->len, like, &v[cnt].f);
		for (size_t j = 0; !rc && j < cnt; j++)
			if (v[j].id ==
			    f->id) { /* which one libtraceevent keeps: not ours to guess */
				evformat_free(v[cnt].f);
				rc = 1;
			}
		if (rc) {
			free_own(v, cnt);
			return rc;
		}
		const uint64_t *val;
		const char *const *str;
		if (evformat_gfp_table(v[cnt].f, &val, &str))
			like = v[cnt].f;
		v[cnt].id = f->id;
		v[cnt].system = f->system;
		v[cnt].name = f->name;
		cnt++;
	}
	if (!cnt) {
		free(v);
		return 1;
	}
	*own = v;
	*n = cnt;
	return 0;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* The file's symbol table into tep, as libtracecmd 1.3 reads it (the call
 * sites must resolve alike), without its sscanf per line (a tenth of the
 * CPU time of a replay when the whole 5 MiB table is stored): each line is
 * an address of up to 16 hex digits, a type letter, a name and, after a
 * tab, "[module]"; empty lines are skipped, the first line without an
 * address, type and name ends the table; absolute symbols (type A or a,
 * per-CPU offsets on x86-64) and names starting with '$' (ARM mapping
 * symbols) are left out. text is cut in place. */
static void parse_kallsyms(struct tep_handle *tep, char *text)
{
	char *next;
	for (char *line = text; *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		if (!*line)
			continue;
		char *p = line;
		unsigned long long addr = 0;
		int digits = 0;
		while (is_blank(*p))
			p++;
		for (; digits < 16 && is_hex(*p); digits++, p++)
			addr = addr * 16 + (unsigned)(*p <= '9'	  ? *p - '0'
						      : *p <= 'F' ? *p - 'A' + 10
								  : *p - 'a' + 10);
		while (is_blank(*p))
			p++;
		char type = *p;
		if (!digits || !type)
			return;
		p++;
		while (is_blank(*p))
			p++;
		char *func = p, *mod = NULL;
		while (*p && !is_blank(*p))
			p++;
		if (p == func)
			return;
		if (p[0] == '\t' && p[1] == '[' && p[2] && !is_blank(p[2])) {
			char *m = p + 2, *e = m;
			while (*e && !is_blank(*e))
				e++;
			e[-1] = '\0'; /* the ']' */
			mod = m;
		}
		*p = '\0';
		if (func[0] != '$' && type != 'A' && type != 'a')
			(void)tep_register_function(tep, func, addr, mod);
	}
}

/* A ring-buffer page walked here, as kbuffer walks it, for little-endian
 * files whose formats evformat.c read: kbuffer's calls per record (its
 * next event, size, offset, missed events) were a fifth of the reading.
 * The records: a 32-bit header word (type_len in its low 5 bits, a time
 * delta in the rest), then for type 0 a length word and the payload, 1-28
 * a payload of 4 * type_len bytes, 29 padding (a length word), 30 a time
 * extend (its high bits in the next word). Type 31, an absolute time
 * stamp, is left to kbuffer: the page is handed to it at the record
 * reached. */
struct pagewalk {
	const uint8_t *page, *data; /* the page; its records */
	uint32_t size;		    /* the records' bytes (the commit's count) */
	uint32_t curr, index, next; /* the record at hand: header, payload; the next */
	unsigned long long ts;
	long long lost; /* missed events before the page (-1: some, not counted) */
	bool kb;	/* kbuffer has the rest of this page */
};

#define RB_COMMIT_MASK ((1u << 27) - 1)
#define RB_MISSED      (1ull << 31)
#define RB_MISSED_CNT  (1ull << 30)

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le_long(const uint8_t *p, size_t ls)
{
	return ls == 8 ? le32(p) | (uint64_t)le32(p + 4) << 32 : le32(p);
}

/* The next data record of w: 1, 0 at the page's end, -1 at a type 31. */
static inline int walk_next(struct pagewalk *w)
{
	for (;;) {
		w->curr = w->next;
		if (w->next >= w->size)
			return 0;
		uint32_t h = le32(w->data + w->curr), type = h & 31, at = w->curr + 4;
		unsigned long long delta = h >> 5;
		int length;
		switch (type) {
		case 29:
			length = (int)le32(w->data + at);
			break;
		case 30:
			delta += (unsigned long long)le32(w->data + at) << 27;
			at += 4;
			length = 0;
			break;
		case 31:
			return -1;
		case 0:
			length = (int)le32(w->data + at) - 4;
			length = (length + 3) & ~3;
			at += 4;
			break;
		default:
			length = (int)type * 4;
			break;
		}
		w->ts += delta;
		w->index = at;
		w->next = at + (uint32_t)length;
		if (type < 29)
			return 1;
	}
}

/* Load page into w (its commit word checked by the caller) and go to its
 * first data record: as walk_next. */
static int walk_load(struct pagewalk *w, const uint8_t *page, size_t data_off)
{
	size_t ls = data_off - 8;
	uint64_t commit = le_long(page + 8, ls);
	*w = (struct pagewalk){.page = page, .data = page + data_off};
	w->ts = le_long(page, 8);
	w->size = (uint32_t)(commit & RB_COMMIT_MASK);
	w->lost = !(commit & RB_MISSED)	     ? 0
		  : (commit & RB_MISSED_CNT) ? (long long)le_long(w->data + w->size, ls)
					     : -1;
	return walk_next(w);
}

/* kbuffer takes w's page on from the record at w->curr (a type 31): the
 * first data record after it, or NULL. */
static void *walk_to_kbuffer(struct tdlib *d, struct pagewalk *w, struct kbuffer *kb,
			     unsigned long long *ts)
{
	int target = (int)(d->data_off + w->curr);
	w->kb = true;
	if (kbuffer_load_subbuffer(kb, (void *)w->page) < 0)
		return NULL;
	void *data = kbuffer_read_event(kb, ts);
	while (data && kbuffer_curr_offset(kb) < target)
		data = kbuffer_next_event(kb, ts);
	return data;
}

/* The record w is at, walked here, into r (fast_read's end). */
static inline int walk_record(struct tdlib *d, const struct pagewalk *w, struct tep_record *r,
			      int cpu)
{
	uint32_t size = w->next - w->index, off = w->curr + (uint32_t)d->data_off;
	if ((size_t)off + size > d->data_off + d->data_max || size > INT32_MAX)
		return -1;
	r->missed_events = (int)(w->curr ? 0 : w->lost);
	r->data = (void *)(w->data + w->index);
	r->size = (int)size;
	r->ts = w->ts;
	r->cpu = cpu;
	d->next[cpu] = r;
	return 1;
}

/* fast_read past the usual case: k is what walk_next gave on cpu's page
 * (0 or -1), or 1 when the page is not walked here. */
static int fast_read_more(struct tdlib *d, int cpu, int k)
{
	struct kbuffer *kb = d->kb[cpu];
	struct pagewalk *w = d->walk ? &d->walk[cpu] : NULL;
	struct tep_record *r = &d->recs[cpu];
	unsigned long long ts = 0;
	void *data = NULL;

	if (k <= 0) {
		data = k < 0 ? walk_to_kbuffer(d, w, kb, &ts) : NULL;
		ts = w->kb ? ts : w->ts;
	} else if (r->data) {
		data = kbuffer_next_event(kb, &ts);
	}
	while (!data) {
		const uint8_t *page;
		/* a chunk that does not decompress ends the CPU's data, as in
		 * libtracecmd: the file's statistics then say what is missing */
		if (datfile_next_page(d->df, cpu, &page) <= 0) {
			d->next[cpu] = NULL;
			r->data = NULL;
			return 0;
		}
		/* the commit word's byte count must fit the page: kbuffer reads
		 * as far as it says */
		uint64_t commit = 0;
		size_t ls = d->data_off - 8;
		for (size_t i = 0; i < ls; i++)
			commit |= (uint64_t)page[8 + (datfile_big_endian(d->df) ? ls - 1 - i : i)]
				  << (8 * i);
		if ((commit & ((1u << 27) - 1)) > d->data_max)
			return -1;
		if (w) {
			int got = walk_load(w, page, d->data_off);
			data = got > 0	 ? (void *)(w->data + w->index)
			       : got < 0 ? walk_to_kbuffer(d, w, kb, &ts)
					 : NULL;
			ts = w->kb ? ts : w->ts;
			continue;
		}
		if (kbuffer_load_subbuffer(kb, (void *)page) < 0)
			return -1;
		data = kbuffer_read_event(kb, &ts);
	}
	int size, off;
	if (w && !w->kb) {
		size = (int)(w->next - w->index);
		off = (int)(w->curr + d->data_off);
		r->missed_events = (int)(w->curr ? 0 : w->lost);
	} else {
		size = kbuffer_event_size(kb);
		off = kbuffer_curr_offset(kb);
		r->missed_events = kbuffer_missed_events(kb);
	}
	if (size < 0 || off < 0 || (size_t)off + (size_t)size > d->data_off + d->data_max)
		return -1;
	r->data = data;
	r->size = size;
	r->ts = ts;
	r->cpu = cpu;
	d->next[cpu] = r;
	return 1;
}

/* cpu's next record into d->recs[cpu] (d->next[cpu] NULL at its end): 1,
 * 0 at the end, -1 on a corrupt page (its header or an event past its
 * end: not something trace-cmd writes). Inline: the next record of the
 * page walked here. */
static inline int fast_read(struct tdlib *d, int cpu)
{
	struct pagewalk *w = d->walk ? &d->walk[cpu] : NULL;
	struct tep_record *r = &d->recs[cpu];

	if (r->data && w && !w->kb) {
		int k = walk_next(w);
		return k > 0 ? walk_record(d, w, r, cpu) : fast_read_more(d, cpu, k);
	}
	return fast_read_more(d, cpu, 1);
}

/* 0 with *out, 1 when this reader does not take the file (the child's
 * then does), SLABSIM_ENOMEM. fd stays the caller's. */
static int fast_open(int fd, const char *path, struct tdlib **out, struct err *e)
{
	struct datfile *df = NULL;
	struct tdlib *d;
	int rc = datfile_open(fd, &df);

	*out = NULL;
	if (rc == SLABSIM_ENOMEM)
		return err_set(e, rc, "out of memory opening %s", path);
	if (rc) {
		datfile_close(df);
		return 1;
	}
	/* the formats read here, or else through libtraceevent, probed first */
	struct ownfmt *own = NULL;
	size_t nown = 0;
	int ls = 0;
	if ((rc = own_formats(df, &own, &nown, &ls)) < 0) {
		datfile_close(df);
		return err_set(e, rc, "out of memory opening %s", path);
	}
	if (rc && !formats_ok(df)) {
		datfile_close(df);
		return 1;
	}
	if (!(d = calloc(1, sizeof(*d)))) {
		free_own(own, nown);
		datfile_close(df);
		return err_set(e, SLABSIM_ENOMEM, "out of memory opening %s", path);
	}
	d->fd = -1;
	d->df = df;
	d->own = own;
	d->nown = nown;
	d->taken = d->bad_cpu = -1;
	d->ncpu = datfile_cpus(df);
	d->path = strdup(path);
	d->tep = tep_alloc();
	d->next = calloc((size_t)d->ncpu + 1, sizeof(*d->next));
	d->got = calloc((size_t)d->ncpu + 1, sizeof(*d->got));
	d->sites = calloc(SITE_CACHE, sizeof(*d->sites));
	strtab_init(&d->strs);
	d->kb = calloc((size_t)d->ncpu + 1, sizeof(*d->kb));
	/* the pages walked here when evformat.c read the formats (not the
	 * old page format, which only libtraceevent's header parse tells)
	 * of a little-endian file */
	if (own && !datfile_big_endian(df) &&
	    !(d->walk = calloc((size_t)d->ncpu + 1, sizeof(*d->walk))))
		goto nomem;
	d->recs = calloc((size_t)d->ncpu + 1, sizeof(*d->recs));
	if (!d->path || !d->tep || !d->next || !d->got || !d->sites || !d->kb || !d->recs)
		goto nomem;
	tep_set_loglevel(TEP_LOG_NONE);
	d->big_endian = datfile_big_endian(df);
	tep_set_file_bigendian(d->tep, d->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(d->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(d->tep, datfile_long_size(df));
	tep_set_page_size(d->tep, datfile_page_size(df));
	tep_set_cpus(d->tep, d->ncpu);
	if (own) {
		/* the common fields of the lowest id, as libtraceevent's first
		 * event has them */
		const struct ownfmt *first = &own[0];
		for (size_t i = 1; i < nown; i++)
			if (own[i].id < first->id)
				first = &own[i];
		d->f_type = evformat_field(first->f, "common_type", true);
		d->f_pid = evformat_field(first->f, "common_pid", true);
	} else {
		if (parse_formats(d->tep, df))
			goto nomem;
		/* the page header's commit field has the kernel's long size */
		ls = tep_get_header_page_size(d->tep);
		struct tep_event *first =
			tep_get_events_count(d->tep) > 0 ? tep_get_event(d->tep, 0) : NULL;
		if (first) {
			d->f_type = field_of(tep_find_common_field(first, "common_type"));
			d->f_pid = field_of(tep_find_common_field(first, "common_pid"));
		}
	}
	if (ls != 4 && ls != 8) {
		lib_close(d);
		return 1;
	}
	d->data_off = 8 + (size_t)ls;
	if (!d->f_type.found || !d->f_pid.found) {
		lib_close(d);
		return 1;
	}
	d->have_common = true;
	fix_common(d);
	d->data_max = (size_t)datfile_page_size(df) - d->data_off;
	const char *ks = datfile_kallsyms(df);
	if (ks)
		parse_kallsyms(d->tep, (char *)ks);
	for (int cpu = 0; cpu < d->ncpu; cpu++) {
		d->kb[cpu] = kbuffer_alloc(ls == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					   datfile_big_endian(df) ? KBUFFER_ENDIAN_BIG
								  : KBUFFER_ENDIAN_LITTLE);
		if (!d->kb[cpu])
			goto nomem;
		if (!own && tep_is_old_format(d->tep))
			kbuffer_set_old_format(d->kb[cpu]);
		if (fast_read(d, cpu) < 0) {
			/* corrupt from the first page: libtracecmd's way says so */
			lib_close(d);
			return 1;
		}
	}
	*out = d;
	return 0;
nomem:
	lib_close(d);
	return err_set(e, SLABSIM_ENOMEM, "out of memory opening %s", path);
}

/* ---- The reader in a child process ------------------------------------------
 *
 * libtraceevent and libtracecmd trust the file: corrupt format text or
 * compressed data can make them read out of bounds (a SIGSEGV seen inside
 * libtraceevent's format parser). What could be checked before handing
 * them the file is their whole parser again, so they run in a forked child
 * instead: it opens the file, reads every record and writes what
 * lib_next() made of it down a pipe; the parent reads those messages. A
 * child killed by a signal, or that stops writing before its end message,
 * is a clear SLABSIM_EINPUT naming the file and how far it got, never a
 * crash of slabsim. The cost is one copy of each event through a pipe.
 */

#include <fcntl.h>
#include <sys/prctl.h>

#include "strtab.h"

/* The fields of a struct trace_event that cross the pipe: its strings go
 * apart, its line the parent's reader counts. */
struct wire_ev {
	uint64_t t_ns, ptr, bytes_req, bytes_alloc;
	uint32_t cpu, gfp;
	int32_t pid, node;
	int32_t type;
	int8_t accounted;
};

/* One message, child to parent, then its strings. len: the string's
 * length (its bytes follow), -1 NULL; for call_site and name, which repeat
 * from a small set, a string sent before is not sent again: -2 - its id,
 * the ids counting the strings sent, by field, from 0 (both ends intern
 * them in the same order). About 90 bytes a record instead of 180: the
 * pipe's copies were a third of the CPU time of a trace.dat replay. */
struct wire {
	int32_t rc;   /* lib_next's, or WIRE_OPEN / WIRE_END */
	int32_t kind; /* enum trace_line_kind */
	uint64_t lost;
	struct wire_ev ev;
	int32_t len[4]; /* call_site, name, text, msg */
};
enum { WIRE_OPEN = 100, WIRE_END = 101, WIRE_INTERNED = 2 /* call_site, name */ };

static void ev_to_wire(const struct trace_event *ev, struct wire_ev *w)
{
	*w = (struct wire_ev){
		.t_ns = ev->t_ns,
		.ptr = ev->ptr,
		.bytes_req = ev->bytes_req,
		.bytes_alloc = ev->bytes_alloc,
		.cpu = ev->cpu,
		.gfp = ev->gfp,
		.pid = ev->pid,
		.node = ev->node,
		.type = (int32_t)ev->type,
		.accounted = ev->accounted,
	};
}

static void wire_to_ev(const struct wire_ev *w, struct trace_event *ev)
{
	*ev = (struct trace_event){
		.type = (enum trace_ev_type)w->type,
		.t_ns = w->t_ns,
		.cpu = w->cpu,
		.pid = w->pid,
		.ptr = w->ptr,
		.bytes_req = w->bytes_req,
		.bytes_alloc = w->bytes_alloc,
		.node = w->node,
		.accounted = w->accounted,
		.gfp = w->gfp,
	};
}

struct tracedat {
	char *path;
	struct tdlib *fast; /* read in process (fast_open), or NULL: the child */
	pid_t child;
	FILE *in;
	uint32_t ncpu;
	bool have_lost, have_unread, ended;
	uint64_t lost, expected, missing, records;
	char *str[4]; /* the strings of the last message, as read */
	size_t cap[4];
	const char *cur[4];		  /* ... and as they are: str or got's */
	struct strtab got[WIRE_INTERNED]; /* call_site and name strings, by id */
	struct err fatal;		  /* code 0 while the child is fine */
};

bool tracedat_supported(void)
{
	return true;
}

static bool put(FILE *f, const void *p, size_t n)
{
	return n == 0 || fwrite(p, 1, n, f) == n;
}

/* sent: the call_site and name strings sent so far, NULL to send all
 * whole (the messages before the records). site_id: NULL, or where the
 * call-site cache keeps str[0]'s id (-1 not known yet): a site seen before
 * costs no hashing of its string. */
static bool put_msg(FILE *f, struct wire *w, const char *const str[4], struct strtab *sent,
		    int32_t *site_id)
{
	bool whole[4];
	for (int i = 0; i < 4; i++) {
		w->len[i] = str[i] ? (int32_t)strlen(str[i]) : -1;
		whole[i] = str[i] != NULL;
		uint32_t id, n = sent && i < WIRE_INTERNED ? sent[i].n : 0;
		if (!sent || i >= WIRE_INTERNED || !str[i])
			continue;
		if (i == 0 && site_id && *site_id >= 0) {
			w->len[0] = -2 - *site_id;
			whole[0] = false;
			continue;
		}
		if (strtab_intern(&sent[i], str[i], &id))
			return false;
		if (i == 0 && site_id && id <= INT32_MAX - 2)
			*site_id = (int32_t)id;
		if (id < n) { /* sent before */
			w->len[i] = -2 - (int32_t)id;
			whole[i] = false;
		}
	}
	bool ok = put(f, w, sizeof(*w));
	for (int i = 0; i < 4 && ok; i++)
		ok = !whole[i] || put(f, str[i], (size_t)w->len[i]);
	return ok;
}

/* The alarm is re-armed every TRACEDAT_STALL_EVERY records, not at each:
 * a system call per record was a fifth of the CPU time of a trace.dat
 * replay (perf, 2.7 M records). 1024 records take a few ms. */
#define TRACEDAT_STALL_EVERY 1024
/* stdio buffer of each end of the pipe: the default (4 KiB, the pipe's
 * st_blksize) made a write, a read and often two context switches per
 * ~20 records */
#define TRACEDAT_PIPE_BUF    (1u << 20)

/* The child: open, then every line of the report as a message; exits. */
static void child_main(int fd, const char *path, FILE *out, uint32_t skip_fields)
{
	struct tdlib *d = NULL;
	struct err e;
	struct wire w;
	struct trace_event ev;
	struct strtab sent[WIRE_INTERNED];
	char msg[MSG_MAX] = "";
	for (int i = 0; i < WIRE_INTERNED; i++)
		strtab_init(&sent[i]); /* freed by the exit */
	err_clear(&e);
	memset(&w, 0, sizeof(w));
	(void)alarm(TRACEDAT_STALL_S);
	int rc = lib_open(fd, path, &d, &e);
	w.rc = rc ? rc : WIRE_OPEN;
	if (!rc) {
		w.kind = (int32_t)lib_cpus(d);
		w.ev.ptr = lib_buffer_lost(d, &w.lost);
	}
	const char *open_str[4] = {NULL, NULL, NULL, rc ? e.msg : NULL};
	if (!put_msg(out, &w, open_str, NULL, NULL) || rc)
		goto out;
	for (uint32_t n = 0;; n++) {
		enum trace_line_kind kind = TRACE_LINE_EVENT;
		memset(&w, 0, sizeof(w));
		msg[0] = '\0';
		if (n % TRACEDAT_STALL_EVERY == 0)
			(void)alarm(TRACEDAT_STALL_S);
		memset(&ev, 0, sizeof(ev));
		rc = lib_next(d, &ev, &kind, &w.lost, skip_fields, msg);
		if (rc == 0) {
			/* the end: what the file's statistics say it should have given */
			w.rc = WIRE_END;
			w.kind = lib_unread(d, &w.ev.bytes_req, &w.ev.bytes_alloc);
			(void)put_msg(out, &w, (const char *const[4]){NULL, NULL, NULL, NULL}, NULL,
				      NULL);
			break;
		}
		w.rc = rc;
		w.kind = (int32_t)kind;
		ev_to_wire(&ev, &w.ev);
		const char *str[4] = {NULL, NULL, NULL, rc < 0 ? msg : NULL};
		int32_t *site_id = NULL;
		if (rc == 1 && kind == TRACE_LINE_EVENT) {
			str[0] = ev.call_site;
			str[1] = ev.name;
			str[2] = ev.text;
			site_id = ev.call_site ? d->site_wire : NULL;
		}
		if (!put_msg(out, &w, str, sent, site_id) || rc == SLABSIM_ENOMEM)
			break;
	}
out:
	(void)fflush(out);
	_exit(0);
}

/* The child stopped writing before its end: how, as an input error. */
static int child_died(struct tracedat *d)
{
	int status = 0;
	char how[64];
	if (d->child > 0) {
		while (waitpid(d->child, &status, 0) < 0 && errno == EINTR)
			;
		d->child = -1;
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		(void)snprintf(how, sizeof(how), "made no progress for %d s", TRACEDAT_STALL_S);
	else if (WIFSIGNALED(status))
		(void)snprintf(how, sizeof(how), "crashed (signal %d, %s)", WTERMSIG(status),
			       strsignal(WTERMSIG(status)));
	else
		(void)snprintf(how, sizeof(how), "stopped (exit %d)",
			       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return err_at(&d->fatal, SLABSIM_EINPUT, d->path, 0,
		      "trace.dat: libtracecmd/libtraceevent %s reading it after %" PRIu64
		      " records: the file is corrupt (try `trace-cmd report -i FILE`)",
		      how, d->records);
}

/* Read one message into w and d->cur; false when the child's output ended
 * (or broke the protocol). */
static bool get_msg(struct tracedat *d, struct wire *w)
{
	if (fread(w, sizeof(*w), 1, d->in) != 1)
		return false;
	for (int i = 0; i < 4; i++) {
		d->cur[i] = NULL;
		if (w->len[i] <= -2) { /* a string sent before */
			uint32_t id = (uint32_t)(-2 - (int64_t)w->len[i]);
			if (i >= WIRE_INTERNED || id >= d->got[i].n)
				return false;
			d->cur[i] = strtab_str(&d->got[i], id);
			continue;
		}
		if (w->len[i] < 0)
			continue;
		size_t n = (size_t)w->len[i];
		if (n + 1 > d->cap[i]) {
			char *p = realloc(d->str[i], n + 1);
			if (!p)
				return false;
			d->str[i] = p;
			d->cap[i] = n + 1;
		}
		if (n && fread(d->str[i], 1, n, d->in) != n)
			return false;
		d->str[i][n] = '\0';
		d->cur[i] = d->str[i];
		uint32_t id;
		if (i < WIRE_INTERNED && w->rc != WIRE_OPEN) {
			/* a new string: its id is the next */
			if (strtab_intern(&d->got[i], d->str[i], &id) || id + 1 != d->got[i].n)
				return false;
			d->cur[i] = strtab_str(&d->got[i], id);
		}
	}
	return true;
}

static const char *str_of(const struct tracedat *d, const struct wire *w, int i)
{
	(void)w;
	return d->cur[i];
}

int tracedat_open(int fd, const char *path, uint32_t skip_fields, struct tracedat **out,
		  struct err *e)
{
	struct tracedat *d = calloc(1, sizeof(*d));
	int p[2];
	*out = NULL;
	if (!d || !(d->path = strdup(path))) {
		free(d);
		close(fd);
		return err_set(e, SLABSIM_ENOMEM, "out of memory opening %s", path);
	}
	d->child = -1;
	for (int i = 0; i < WIRE_INTERNED; i++)
		strtab_init(&d->got[i]);
	int rc = fast_open(fd, path, &d->fast, e);
	if (rc <= 0) {
		close(fd); /* mapped: the mapping outlives it */
		if (rc) {
			tracedat_close(d);
			return rc;
		}
		d->ncpu = lib_cpus(d->fast);
		d->have_lost = lib_buffer_lost(d->fast, &d->lost);
		*out = d;
		return 0;
	}
	if (pipe(p)) {
		int saved = errno;
		close(fd);
		tracedat_close(d);
		return err_at(e, SLABSIM_EIO, path, 0, "cannot create a pipe: %s", strerror(saved));
	}
#ifdef F_SETPIPE_SZ
	/* as large as the stdio buffers: fewer wake-ups of each side (may be
	 * refused above /proc/sys/fs/pipe-max-size; the default then stays) */
	(void)fcntl(p[1], F_SETPIPE_SZ, (int)TRACEDAT_PIPE_BUF);
#endif
	(void)fflush(NULL); /* the child's exit must not write our buffers twice */
	d->child = fork();
	if (d->child == 0) {
		close(p[0]);
		/* die with the parent; SIGPIPE when the parent stops reading */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		(void)signal(SIGPIPE, SIG_DFL);
		/* a fault in the libraries is reported by the parent, from the
		 * signal: no inherited handler (a sanitizer's, a fuzzer's) runs
		 * here. A sanitizer's report on our own code still comes, on
		 * stderr, and ends the child with an exit status instead. */
		static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM};
		for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
			(void)signal(faults[i], SIG_DFL);
		FILE *o = fdopen(p[1], "w");
		if (o) {
			(void)setvbuf(o, NULL, _IOFBF, TRACEDAT_PIPE_BUF);
			child_main(fd, path, o, skip_fields);
		}
		_exit(1);
	}
	close(p[1]);
	close(fd);
	if (d->child < 0 || !(d->in = fdopen(p[0], "r"))) {
		int saved = errno;
		if (!d->in)
			close(p[0]);
		tracedat_close(d);
		return err_at(e, SLABSIM_EIO, path, 0, "cannot start the trace.dat reader: %s",
			      strerror(saved));
	}
	(void)setvbuf(d->in, NULL, _IOFBF, TRACEDAT_PIPE_BUF);
	struct wire w;
	if (!get_msg(d, &w)) {
		rc = child_died(d);
		if (e)
			*e = d->fatal;
		tracedat_close(d);
		return rc;
	}
	if (w.rc != WIRE_OPEN) {
		rc = w.rc < 0 ? w.rc : SLABSIM_EINPUT;
		if (e) {
			err_clear(e);
			e->code = rc;
			(void)snprintf(e->msg, sizeof(e->msg), "%s",
				       str_of(d, &w, 3) ? d->str[3] : "");
		}
		tracedat_close(d);
		return rc;
	}
	d->ncpu = (uint32_t)w.kind;
	d->have_lost = w.ev.ptr != 0;
	d->lost = w.lost;
	*out = d;
	return 0;
}

/* tracedat_next of a file read in process: what the child's messages
 * would have given. */
static int fast_next(struct tracedat *d, struct trace_event *ev, enum trace_line_kind *kind,
		     uint64_t *lost, uint32_t skip_fields, char *msg)
{
	char m[MSG_MAX];
	*kind = TRACE_LINE_EVENT;
	m[0] = '\0';
	/* lib_next sets every field of a record's ev; a header or a note of
	 * lost events has none */
	int rc = lib_next(d->fast, ev, kind, lost, skip_fields, m);
	if (*kind == TRACE_LINE_HEADER || *kind == TRACE_LINE_LOST)
		memset(ev, 0, sizeof(*ev));
	if (rc == 0 && d->fast->bad_cpu >= 0)
		return err_at(&d->fatal, SLABSIM_EINPUT, d->path, 0,
			      "trace.dat: a corrupt ring-buffer page of CPU %d after %" PRIu64
			      " records (try `trace-cmd report -i FILE`)",
			      d->fast->bad_cpu, d->records);
	if (rc == 0) {
		d->ended = true;
		d->have_unread = lib_unread(d->fast, &d->expected, &d->missing);
		return 0;
	}
	if (*kind == TRACE_LINE_EVENT || *kind == TRACE_LINE_OTHER_EVENT)
		d->records++;
	if (!ev->call_site)
		ev->call_site = "";
	if (rc < 0 && msg)
		(void)snprintf(msg, MSG_MAX, "%s", m);
	return rc;
}

int tracedat_next(struct tracedat *d, struct trace_event *ev, enum trace_line_kind *kind,
		  uint64_t *lost, uint32_t skip_fields, char *msg)
{
	struct wire w;
	if (d->fatal.code)
		return d->fatal.code;
	if (d->ended)
		return 0;
	if (d->fast)
		return fast_next(d, ev, kind, lost, skip_fields, msg);
	if (!get_msg(d, &w))
		return child_died(d);
	if (w.rc == WIRE_END) {
		d->ended = true;
		d->have_unread = w.kind != 0;
		d->expected = w.ev.bytes_req;
		d->missing = w.ev.bytes_alloc;
		return 0;
	}
	if (w.kind == TRACE_LINE_EVENT || w.kind == TRACE_LINE_OTHER_EVENT)
		d->records++;
	*kind = (enum trace_line_kind)w.kind;
	*lost = w.lost;
	wire_to_ev(&w.ev, ev);
	ev->call_site = str_of(d, &w, 0) ? str_of(d, &w, 0) : "";
	ev->name = str_of(d, &w, 1);
	ev->text = str_of(d, &w, 2);
	if (w.rc < 0 && msg)
		(void)snprintf(msg, MSG_MAX, "%s", str_of(d, &w, 3) ? str_of(d, &w, 3) : "");
	return w.rc;
}

const struct err *tracedat_failure(const struct tracedat *d)
{
	return d->fatal.code ? &d->fatal : NULL;
}

bool tracedat_unread(const struct tracedat *d, uint64_t *expected, uint64_t *missing)
{
	*expected = d->expected;
	*missing = d->missing;
	return d->ended && d->have_unread;
}

bool tracedat_buffer_lost(const struct tracedat *d, uint64_t *lost)
{
	*lost = d->lost;
	return d->have_lost;
}

uint64_t tracedat_records(const struct tracedat *d)
{
	return d->records;
}

uint32_t tracedat_cpus(const struct tracedat *d)
{
	return d->ncpu;
}

/* In process only (the child's formats are not at hand: false). */
bool tracedat_strings_interned(const struct tracedat *d)
{
	return d->fast != NULL; /* the child's come through the pipe's buffers */
}

bool tracedat_names_caches(const struct tracedat *d)
{
	const struct tdlib *l = d->fast;
	bool any = false;
	if (!l || !l->df)
		return false;
	for (size_t i = 0; i < datfile_nformats(l->df); i++) {
		const struct datfile_format *f = datfile_format(l->df, i);
		int t = strcmp(f->system, "kmem") == 0 ? slab_type(f->name) : -1;
		if (t != TRACE_EV_CACHE_ALLOC && t != TRACE_EV_CACHE_ALLOC_NODE)
			continue;
		struct fmtsrc src = {.system = f->system, .name = f->name};
		const struct ownfmt *o = NULL;
		for (size_t k = 0; k < l->nown && !o; k++)
			if (l->own[k].system == f->system && l->own[k].name == f->name)
				o = &l->own[k];
		if (o)
			src.own = o->f;
		else if (!l->tep || !(src.ev = tep_find_event_by_name(l->tep, f->system, f->name)))
			return false;
		if (!src_field(&src, "name").found)
			return false;
		any = true;
	}
	return any;
}

void tracedat_close(struct tracedat *d)
{
	if (!d)
		return;
	if (d->in)
		fclose(d->in); /* a child still writing gets SIGPIPE */
	if (d->child > 0) {
		(void)kill(d->child, SIGKILL);
		while (waitpid(d->child, NULL, 0) < 0 && errno == EINTR)
			;
	}
	for (int i = 0; i < 4; i++)
		free(d->str[i]);
	for (int i = 0; i < WIRE_INTERNED; i++)
		strtab_fini(&d->got[i]);
	lib_close(d->fast);
	free(d->path);
	free(d);
}

#endif
