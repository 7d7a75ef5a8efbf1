/* live.c - `slabsim live` (live.h): a tracing session, the running kernel
 * read as a capture for the models' start state, and one pushed run per
 * model.
 *
 * Order matters at the start: the instance is made with its events
 * enabled and tracing off; then the start state is read (the slow sysfs
 * walk first, /proc/slabinfo last) and tracing is turned on at once, so
 * that the gap between the state and the first event is a few
 * milliseconds; the models are built afterwards, while the ring buffer
 * holds the first events.
 */
#define _XOPEN_SOURCE 700 /* mkstemp, strdup */
#include "live.h"
#include "evarr.h"
#include "ktrace.h"
#include "merge.h"
#include "trace.h"
#include "validate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* ---- the running kernel as a capture ---- */

/* The attribute columns after name and link_target, as
 * traces/capture/capture-lib.sh writes slab-attrs.tsv. */
static const char *const attr_cols[] = {
	"object_size",	   "slab_size",		"order",	   "objs_per_slab",
	"align",	   "red_zone",		"poison",	   "store_user",
	"hwcache_align",   "objects",		"total_objects",   "slabs",
	"partial",	   "cpu_slabs",		"aliases",	   "sanity_checks",
	"trace",	   "cache_dma",		"reclaim_account", "destroy_by_rcu",
	"usersize",	   "min_partial",	"cpu_partial",	   "ctor",
	"objects_partial", "slabs_cpu_partial",
};

/* The first line of path, tabs made spaces, into buf; "-" when it is
 * missing, unreadable or empty (capture-lib.sh's cap_read). */
static void first_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	(void)snprintf(buf, n, "-");
	if (!f)
		return;
	if (fgets(buf, (int)n, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		for (char *c = buf; *c; c++)
			if (*c == '\t')
				*c = ' ';
		if (!buf[0])
			(void)snprintf(buf, n, "-");
	} else {
		(void)snprintf(buf, n, "-");
	}
	fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of dir, sorted (C locale). OUT: *names (free each, then it). */
static int list_dir(const char *dir, char ***names, size_t *n, struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;
	*names = NULL;
	*n = 0;
	if (!d)
		return err_set(e, SLABSIM_EIO, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (*n == cap) {
			char **v = realloc(*names, (cap = cap ? cap * 2 : 256) * sizeof(*v));
			if (!v)
				break;
			*names = v;
		}
		if (!((*names)[*n] = strdup(de->d_name)))
			break;
		(*n)++;
	}
	bool short_ = de != NULL;
	closedir(d);
	if (short_)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	qsort(*names, *n, sizeof(**names), cmp_str);
	return 0;
}

/* /sys/kernel/slab as a slab-attrs.tsv into the scratch file fd (a
 * file the capture reader reads, not output: dprintf). */
static int write_attrs(int fd, struct err *e)
{
	static const char root[] = "/sys/kernel/slab";
	char **names;
	size_t n;
	int rc = list_dir(root, &names, &n, e);
	if (rc)
		return rc;
	bool ok = dprintf(fd, "name\tlink_target") > 0;
	for (size_t c = 0; c < sizeof(attr_cols) / sizeof(attr_cols[0]); c++)
		ok &= dprintf(fd, "\t%s", attr_cols[c]) > 0;
	ok &= dprintf(fd, "\n") > 0;
	for (size_t i = 0; i < n; i++) {
		char p[512], v[4096], t[512];
		(void)snprintf(p, sizeof(p), "%s/%s", root, names[i]);
		struct stat st;
		const char *target = "-";
		ssize_t w;
		if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode) &&
		    (w = readlink(p, t, sizeof(t) - 1)) > 0) {
			t[w] = '\0';
			const char *sl = strrchr(t, '/');
			target = sl ? sl + 1 : t;
		}
		ok &= dprintf(fd, "%s\t%s", names[i], target) > 0;
		for (size_t c = 0; c < sizeof(attr_cols) / sizeof(attr_cols[0]); c++) {
			char fp[600];
			(void)snprintf(fp, sizeof(fp), "%s/%s", p, attr_cols[c]);
			first_line(fp, v, sizeof(v));
			ok &= dprintf(fd, "\t%s", v) > 0;
		}
		ok &= dprintf(fd, "\n") > 0;
		free(names[i]);
	}
	free(names);
	return ok ? 0 : err_set(e, SLABSIM_EIO, "scratch file: %s", strerror(errno));
}

/* /sys/kernel/slab into c->attrs and c->attrs_start, through a scratch
 * copy read by the capture reader. Without /sys/kernel/slab (not SLUB)
 * both stay absent. */
static int read_attrs(struct capture *c, struct err *e)
{
	struct stat st;
	if (stat("/sys/kernel/slab", &st) != 0)
		return 0;
	const char *d = getenv("TMPDIR");
	char tmp[4096];
	(void)snprintf(tmp, sizeof(tmp), "%s/slabsim-attrs-XXXXXX", d && *d ? d : "/tmp");
	int fd = mkstemp(tmp);
	if (fd < 0)
		return err_set(e, SLABSIM_EIO, "%s: %s", tmp, strerror(errno));
	(void)unlink(tmp);
	char path[64];
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int rc = write_attrs(fd, e);
	if (!rc && !(rc = capture_read_attrs(path, &c->attrs, e))) {
		capture_attrs_missing(&c->attrs, c->attrs_missing, sizeof(c->attrs_missing));
		c->has_attrs = !c->attrs_missing[0];
	}
	if (!rc && !(rc = capture_read_attrs(path, &c->attrs_start, e)))
		c->has_attrs_start = true;
	close(fd);
	return rc;
}

/* How many CPUs a kernel CPU list ("0-3,8") names; 0 when unreadable. */
static uint32_t count_cpus(const char *path)
{
	char buf[1024];
	uint32_t n = 0;
	first_line(path, buf, sizeof(buf));
	for (char *s = buf; *s && *s != '-';) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;
		if (end == s)
			break;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		n += b >= a ? (uint32_t)(b - a + 1) : 0;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return n;
}

static int read_kernel(struct capture *c, struct err *e)
{
	struct utsname u;
	char text[1024];
	int rc;
	if (uname(&u) == 0) {
		(void)snprintf(text, sizeof(text), "%s %s %s\n", u.sysname, u.nodename, u.release);
		if ((rc = capture_parse_uname(text, "uname(2)", c->release, sizeof(c->release),
					      &c->major, &c->minor, e)))
			return rc;
		c->has_uname = true;
	}
	const char *cmdline = "/proc/cmdline";
	FILE *f = fopen(cmdline, "r");
	if (f) {
		char *line = NULL;
		size_t cap = 0;
		if (getline(&line, &cap, f) > 0) {
			line[strcspn(line, "\n")] = '\0';
			if ((rc = capture_parse_cmdline(line, cmdline, &c->cmdline, e))) {
				free(line);
				fclose(f);
				return rc;
			}
			c->has_cmdline = true;
		}
		free(line);
		fclose(f);
	}
	long np = sysconf(_SC_NPROCESSORS_ONLN);
	c->nproc = np > 0 ? (uint32_t)np : 0;
	c->online = count_cpus("/sys/devices/system/cpu/online");
	c->possible = count_cpus("/sys/devices/system/cpu/possible");
	return 0;
}

uint32_t live_shrink_sheaves(const char *slabdir)
{
	DIR *d = opendir(slabdir);
	uint32_t n = 0;
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		char path[512], buf[32];
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		(void)snprintf(path, sizeof(path), "%s/%s", slabdir, de->d_name);
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue; /* an alias is a link to its root */
		(void)snprintf(path, sizeof(path), "%s/%s/sheaf_capacity", slabdir, de->d_name);
		first_line(path, buf, sizeof(buf));
		if (strtoul(buf, NULL, 10) == 0)
			continue;
		(void)snprintf(path, sizeof(path), "%s/%s/shrink", slabdir, de->d_name);
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		bool ok = write(fd, "1", 1) == 1;
		if (close(fd) == 0 && ok)
			n++;
	}
	closedir(d);
	return n;
}

uint32_t live_base_probe(const char *path)
{
	enum { PROBE_BYTES = 64 * 1024, PROBES = 4 };
	char *buf = malloc(PROBE_BYTES);
	uint32_t n = 0;
	for (int i = 0; buf && i < PROBES; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		if (read(fd, buf, PROBE_BYTES) >= 0)
			n++;
		(void)close(fd);
	}
	free(buf);
	return n;
}

int live_capture(struct capture **out, struct err *e)
{
	struct capture *c = calloc(1, sizeof(*c));
	int rc;
	*out = NULL;
	if (!c || !(c->dir = strdup("/proc"))) {
		free(c);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	c->cmdline.slub_min_order = c->cmdline.slub_max_order = c->cmdline.slub_min_objects = -1;
	if ((rc = read_kernel(c, e)) || (rc = read_attrs(c, e)) ||
	    (rc = capture_read_slabinfo("/proc/slabinfo", &c->start, e))) {
		capture_close(c);
		return rc;
	}
	c->has_start = true;
	*out = c;
	return 0;
}

int live_real_pages(struct capture_slabinfo *si, uint64_t *pages, struct err *e)
{
	int rc = capture_read_slabinfo("/proc/slabinfo", si, e);
	*pages = rc ? 0 : capture_slabinfo_pages(si);
	return rc;
}

/* ---- the session ----
 *
 * A thread of its own reads the ring buffer every READ_PAUSE_NS into a
 * spilled event array (32 bytes an event, on disk: traces/evarr.h); the
 * models take the array the thread filled at each live_poll, and the
 * thread starts another. So the ring buffer is drained at the kernel's
 * pace while the models are built (seconds for a machine's million start
 * objects) and while they catch up, and a backlog waits on disk, not in
 * memory. A backlog above BACKLOG_MAX events is not read further: the
 * ring buffer then overflows and counts what it loses. The thread alone
 * reads the tracing session while it runs; the lock guards the array it
 * fills and the session's files. */

enum { BACKLOG_MAX = 8u << 20 };
#define READ_PAUSE_NS (20 * 1000 * 1000)

struct live_model {
	struct run_model m;
	struct run_opts ro;
	struct run *r;
	char *scratch; /* its database until merged, or NULL */
};

struct live {
	struct ktrace *kt;
	struct capture *cap;
	struct run_capture rcap;
	struct live_model *mod;
	uint32_t n, nmod; /* models running, models allocated */
	uint64_t events;
	double t0;
	const char *db;
	struct merge *merge; /* db, opened at the start so that a database that
				cannot be written fails the session before it runs */
	uint64_t lost;	     /* the ring buffer's count when tracing stopped */
	uint32_t shrunk;     /* caches shrunk before the start state was read */
	uint32_t probes;     /* live_base_probe's reads */
	char name[64];	     /* the instance's */
	char extra[160];
	struct run_trace_id id;
	/* the reader thread */
	pthread_t reader;
	bool reading;
	pthread_mutex_t mu;
	pthread_cond_t wake;
	struct evarr *fill; /* what the thread fills, NULL: none yet */
	bool stop;
	int read_rc;
	struct err read_err;
	/* The events taken and not yet given to the models, in the arrays the
	 * thread filled (oldest first): with a look-ahead (sim_push_ahead)
	 * an event is given once one more than the window later has been
	 * read, so the models run that far behind the kernel, and their
	 * look-ahead reads the rest (held_peek). */
	bool hold;
	struct held {
		struct evarr *a;
		uint64_t first; /* stream index of its first event */
	} * held;
	uint32_t nheld, capheld;
	uint64_t taken, given; /* stream indexes: events taken, given */
	uint64_t newest_ns;    /* the latest time among the events taken */
	struct trace_source ahead_src;
};

static int spill_push(void *ctx, const struct trace_event *ev, struct err *e)
{
	struct live *l = ctx;
	return evarr_push(l->fill, ev, NULL, e);
}

/* One read of the ring buffer into l->fill (l->mu held). */
static int read_once(struct live *l, bool last)
{
	if (!l->fill) {
		const char *dir = getenv("TMPDIR");
		int rc = evarr_spill_open("live", dir && *dir ? dir : "/tmp", 0, &l->fill,
					  &l->read_err);
		if (rc)
			return rc;
	}
	if (evarr_len(l->fill) >= BACKLOG_MAX)
		return 0;
	return ktrace_read(l->kt, last, spill_push, l, &l->read_err);
}

static void *reader_run(void *ctx)
{
	struct live *l = ctx;
	pthread_mutex_lock(&l->mu);
	for (bool last = false; !l->read_rc && !last;) {
		last = l->stop;
		l->read_rc = read_once(l, last);
		if (last)
			break;
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += READ_PAUSE_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		(void)pthread_cond_timedwait(&l->wake, &l->mu, &until);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

static int reader_start(struct live *l, struct err *e)
{
	if (pthread_mutex_init(&l->mu, NULL))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	if (pthread_cond_init(&l->wake, NULL)) {
		pthread_mutex_destroy(&l->mu);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	err_clear(&l->read_err);
	if (pthread_create(&l->reader, NULL, reader_run, l)) {
		pthread_cond_destroy(&l->wake);
		pthread_mutex_destroy(&l->mu);
		return err_set(e, SLABSIM_EIO, "cannot start a thread: %s", strerror(errno));
	}
	l->reading = true;
	return 0;
}

/* Stop the thread after one last read; the tracing session is the
 * caller's again. */
static void reader_stop(struct live *l)
{
	if (!l->reading)
		return;
	pthread_mutex_lock(&l->mu);
	l->stop = true;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->mu);
	(void)pthread_join(l->reader, NULL);
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->mu);
	l->reading = false;
}

static int push(struct live *l, const struct trace_event *ev, struct err *e)
{
	for (uint32_t i = 0; i < l->n; i++) {
		int rc = run_push_event(l->mod[i].r, ev, e);
		if (rc)
			return rc;
	}
	l->events++;
	return 0;
}

/* trace_source.peek_at over the held events: up to n from stream index
 * i, within one array. */
static uint32_t held_peek(void *ctx, uint64_t i, uint32_t n, struct trace_event *ev)
{
	const struct live *l = ctx;
	uint32_t k = 0;
	struct err e;
	for (uint32_t h = 0; h < l->nheld; h++) {
		const struct held *x = &l->held[h];
		uint64_t len = evarr_len(x->a);
		if (i < x->first || i >= x->first + len)
			continue;
		/* a failed read ends the look-ahead here; give's read of the
		 * same event reports it */
		for (uint64_t j = i - x->first; j < len && k < n; j++, k++)
			if (evarr_get(x->a, &l->held, j, &ev[k], &e))
				break;
		break;
	}
	return k;
}

/* Give the held events to every model: all of them when last, else those
 * with a later one taken beyond the look-ahead's window. */
static int give(struct live *l, bool last, struct err *e)
{
	uint64_t window = sim_ahead_window_ns();
	while (l->nheld) {
		struct held *x = &l->held[0];
		uint64_t len = evarr_len(x->a);
		struct trace_event ev;
		for (; l->given < x->first + len; l->given++) {
			int rc = evarr_get(x->a, &l->given, l->given - x->first, &ev, e);
			if (rc)
				return rc;
			if (!last && l->hold &&
			    (ev.t_ns > UINT64_MAX - window || ev.t_ns + window >= l->newest_ns))
				return 0;
			if ((rc = push(l, &ev, e)))
				return rc;
		}
		evarr_free(x->a);
		memmove(l->held, l->held + 1, --l->nheld * sizeof(*l->held));
	}
	return 0;
}

/* Take what the thread read, hold it, and give the models what they may
 * have (give). */
static int take(struct live *l, bool last, struct err *e)
{
	struct evarr *a;
	int rc = 0;
	if (l->reading)
		pthread_mutex_lock(&l->mu);
	a = l->fill;
	l->fill = NULL;
	if (l->read_rc) {
		*e = l->read_err;
		rc = l->read_rc;
	}
	if (l->reading)
		pthread_mutex_unlock(&l->mu);
	if (!rc && a)
		rc = evarr_spill_finish(a, NULL, e);
	if (!rc && a && evarr_len(a)) {
		if (l->nheld == l->capheld) {
			uint32_t cap = l->capheld ? 2 * l->capheld : 8;
			struct held *h = realloc(l->held, cap * sizeof(*h));
			if (!h) {
				evarr_free(a);
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			}
			l->held = h;
			l->capheld = cap;
		}
		if (l->hold) {
			/* the reader merges the CPUs' buffers in time order:
			 * the array's last event is its latest */
			struct trace_event ev;
			if ((rc = evarr_get(a, &l->newest_ns, evarr_len(a) - 1, &ev, e))) {
				evarr_free(a);
				return rc;
			}
			l->newest_ns = ev.t_ns > l->newest_ns ? ev.t_ns : l->newest_ns;
		}
		l->held[l->nheld++] = (struct held){a, l->taken};
		l->taken += evarr_len(a);
		a = NULL;
	}
	evarr_free(a);
	return rc ? rc : give(l, last, e);
}

static int setup_model(void *ctx, struct sim *s, struct err *e)
{
	const struct live *l = ctx;
	return run_capture_setup(&l->rcap, s, e);
}

static int scratch_db(struct live_model *lm, struct err *e)
{
	const char *d = getenv("TMPDIR");
	size_t n = strlen(d && *d ? d : "/tmp") + 32;
	if (!(lm->scratch = malloc(n)))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	(void)snprintf(lm->scratch, n, "%s/slabsim-live-XXXXXX", d && *d ? d : "/tmp");
	int fd = mkstemp(lm->scratch);
	if (fd < 0) {
		int rc = err_set(e, SLABSIM_EIO, "%s: %s", lm->scratch, strerror(errno));
		free(lm->scratch);
		lm->scratch = NULL;
		return rc;
	}
	close(fd);
	return 0;
}

/* Model i: the command line's fields, the rest from the running kernel. */
static int open_model(struct live *l, const struct live_opts *o, uint32_t i, struct err *e)
{
	struct live_model *lm = &l->mod[i];
	int rc;
	lm->m = o->models[i];
	if ((rc = val_capture_model(l->cap, &lm->m, i == 0 ? o->notes : NULL, e)))
		return rc;
	lm->ro = (struct run_opts){
		.command = "live",
		.model = lm->m,
		.so = o->so,
		.sample_spec = o->sample_spec,
		.config_extra = l->extra,
		.setup = setup_model,
		.ctx = l,
		.notes = i == 0 ? o->notes : NULL,
	};
	if (o->db) {
		if ((rc = scratch_db(lm, e)))
			return rc;
		lm->ro.db = lm->scratch;
	}
	l->rcap.notes = i == 0 ? o->notes : NULL;
	if ((rc = run_push_begin(&lm->ro, &l->id, "live", &lm->r, e)))
		return rc;
	/* the look-ahead needs the page frees */
	if (l->ahead_src.peek_at && sim_push_ahead(run_sim(lm->r), &l->ahead_src))
		l->hold = true;
	return 0;
}

/* What names the session in the database: its start time (so that a
 * merge does not take it for an earlier session's configuration), the
 * release and the CPUs. */
static void name_session(struct live *l)
{
	time_t now = time(NULL);
	struct tm tm;
	char when[32] = "";
	if (gmtime_r(&now, &tm))
		(void)strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	(void)snprintf(l->extra, sizeof(l->extra), "\"live\":{\"start\":\"%s\",\"release\":\"%s\"}",
		       when, l->cap->release);
	(void)snprintf(l->id.label, sizeof(l->id.label), "live %s %s", l->cap->release, when);
	l->id.nr_cpus = l->cap->possible ? l->cap->possible : l->cap->nproc;
}

int live_open(const struct live_opts *o, struct live **out, struct err *e)
{
	struct live *l = calloc(1, sizeof(*l));
	struct ktrace_opts ko = {.buffer_kb = o->buffer_kb, .page_free = o->page_free};
	int rc;
	*out = l;
	if (!l || !(l->mod = calloc(o->nmodels ? o->nmodels : 1, sizeof(*l->mod))))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	l->nmod = o->nmodels;
	l->db = o->db;
	if ((rc = ktrace_open(&ko, &l->kt, e)) || (o->db && (rc = merge_open(o->db, &l->merge, e))))
		return rc;
	if (o->shrink) {
		/* twice: the first hands each CPU's rcu_free sheaf to call_rcu,
		 * whose objects reach the slabs after a grace period */
		(void)live_shrink_sheaves("/sys/kernel/slab");
		nanosleep(&(struct timespec){.tv_nsec = 200000000}, NULL);
		l->shrunk = live_shrink_sheaves("/sys/kernel/slab");
	}
	if (o->shrink && o->notes)
		fprintf(o->notes,
			"live: %u caches with sheaves shrunk before the start state was read "
			"(their sheaves and barns flushed to the slabs)\n",
			l->shrunk);
	if ((rc = live_capture(&l->cap, e)) || (rc = ktrace_start(l->kt, e)) ||
	    (rc = reader_start(l, e)))
		return rc;
	if (o->page_free)
		l->probes = live_base_probe("/proc/sys/kernel/ostype");
	if (o->page_free && o->notes)
		fprintf(o->notes,
			"live: %u reads of /proc/sys/kernel/ostype with a 64 KiB buffer, whose "
			"page frees show the direct map's base\n",
			l->probes);
	l->t0 = run_now();
	(void)snprintf(l->name, sizeof(l->name), "%s", ktrace_instance(l->kt));
	name_session(l);
	l->rcap = (struct run_capture){.cap = l->cap, .start = true};
	if (o->page_free)
		l->ahead_src =
			(struct trace_source){.peek_at = held_peek, .ctx = l, .name = "live"};
	for (uint32_t i = 0; i < o->nmodels; i++) {
		/* a signal while they are built: no more models (the engine
		 * also looks between the start state's caches) */
		if (o->so.stop && *o->so.stop)
			return err_set(e, SLABSIM_ESTOP,
				       "stopped by a signal while the models were built");
		if ((rc = open_model(l, o, i, e)))
			return rc;
		l->n = i + 1;
	}
	if (l->hold && o->notes)
		fprintf(o->notes,
			"live: the models take each event %.0f ms after the trace shows it, so "
			"that "
			"they see the page frees of that window (docs/models.md, kept slabs)\n",
			(double)sim_ahead_window_ns() / 1e6);
	return 0;
}

int live_poll(struct live *l, struct err *e)
{
	return take(l, false, e);
}

uint64_t live_events(const struct live *l)
{
	return l->events;
}

uint64_t live_lost(struct live *l)
{
	if (!l->kt)
		return l->lost;
	if (l->reading)
		pthread_mutex_lock(&l->mu);
	uint64_t n = ktrace_lost(l->kt);
	if (l->reading)
		pthread_mutex_unlock(&l->mu);
	return n;
}

double live_seconds(const struct live *l)
{
	return run_now() - l->t0;
}

const struct capture *live_start_state(const struct live *l)
{
	return l->cap;
}

const char *live_instance(const struct live *l)
{
	return l->name;
}

uint32_t live_nmodels(const struct live *l)
{
	return l->n;
}

const struct run_model *live_model(const struct live *l, uint32_t i)
{
	return &l->mod[i].m;
}

struct sim *live_sim(const struct live *l, uint32_t i)
{
	return run_sim(l->mod[i].r);
}

int live_finish(struct live *l, struct err *e)
{
	/* tracing off, then the last read takes every event left */
	int rc = ktrace_stop(l->kt, e);
	reader_stop(l);
	l->lost = ktrace_lost(l->kt);
	ktrace_close(l->kt);
	l->kt = NULL;
	if (!rc)
		rc = take(l, true, e);
	for (uint32_t i = 0; !rc && i < l->n; i++) {
		sim_set_capture_lost(run_sim(l->mod[i].r), l->lost);
		rc = run_push_end(&l->mod[i].ro, l->mod[i].r, e);
	}
	for (uint32_t i = 0; !rc && l->merge && i < l->n; i++)
		rc = merge_file(l->merge, l->mod[i].scratch, NULL, e);
	return rc;
}

void live_close(struct live *l)
{
	if (!l)
		return;
	reader_stop(l);
	ktrace_close(l->kt);
	evarr_free(l->fill);
	for (uint32_t h = 0; h < l->nheld; h++)
		evarr_free(l->held[h].a);
	free(l->held);
	merge_close(l->merge);
	for (uint32_t i = 0; l->mod && i < l->n; i++)
		run_free(l->mod[i].r);
	/* a model that failed to open may have a scratch file too */
	for (uint32_t i = 0; l->mod && i < l->nmod; i++) {
		if (l->mod[i].scratch) {
			(void)unlink(l->mod[i].scratch);
			free(l->mod[i].scratch);
		}
	}
	free(l->mod);
	capture_close(l->cap);
	free(l);
}
