/* validate.c - captures against the model: configuration from a capture's
 * metadata, `slabsim validate`, and replay's phase summary (validate.h). */
#include "validate.h"
#include "buckets.h"
#include "cache_facts.h"
#include "grow.h"
#include "run.h"
#include "json.h"
#include "learn.h"
#include "rec.h"
#include "trace.h"
#include "strtab.h"
#include "u64map.h"
#include "vrec.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- configuration ---- */

enum policy_kernel val_kernel_profile(uint32_t major, uint32_t minor)
{
	return policy_kernel_for(major, minor);
}

/* The letters of one slub_debug block as policy_parse_slub_debug takes
 * them: '-' resets what came before (6.1), O and A have no model (noted). */
static void debug_letters(const char *flags, char *out, bool *had_o)
{
	size_t n = 0;
	if (!*flags) {
		strcpy(out, "FZPU"); /* no letters: DEBUG_DEFAULT_FLAGS */
		return;
	}
	for (const char *p = flags; *p; p++) {
		char ch = *p;
		if (ch == '-')
			n = 0;
		else if (ch == 'o' || ch == 'O')
			*had_o = true;
		else if (ch != 'a' && ch != 'A' && n < 15)
			out[n++] = ch;
	}
	out[n] = '\0';
	if (!n)
		strcpy(out, "-");
}

/* Does any row of si carry SLAB's tunables (SLUB prints 0 for them)? */
static bool has_tunables(const struct capture_slabinfo *si)
{
	for (uint32_t i = 0; i < si->n; i++)
		if (si->rows[i].limit || si->rows[i].batchcount)
			return true;
	return false;
}

const struct policy_ops *val_capture_allocator(const struct capture *c, char *why, size_t n)
{
	const struct policy_ops *ops = NULL;
	if (c->info_allocator[0]) {
		ops = policy_find(c->info_allocator);
		if (ops && ops->truth != POLICY_TRUTH_NONE) {
			(void)snprintf(why, n, "capture-info.txt allocator=%s", c->info_allocator);
			return ops;
		}
	}
	enum policy_truth t = POLICY_TRUTH_NONE;
	const char *what = NULL;
	bool slabinfo = c->has_end || c->has_start || c->nsnapshots;
	bool tunables = has_tunables(&c->end) || has_tunables(&c->start);
	if (!c->has_end && !c->has_start && c->nsnapshots) {
		struct capture_slabinfo si;
		struct err e;
		if (!capture_read_snapshot(c, c->snapshot_ids[0], &si, &e)) {
			tunables = has_tunables(&si);
			capture_slabinfo_free(&si);
		}
	}
	if (c->has_attrs || c->attrs_missing[0]) {
		t = POLICY_TRUTH_SYSFS;
		what = "the capture has slab-attrs.tsv (/sys/kernel/slab)";
	} else if (slabinfo && tunables) {
		t = POLICY_TRUTH_SLABINFO;
		what = "the capture's /proc/slabinfo has tunables and it has no slab-attrs.tsv";
	} else if (slabinfo) {
		t = POLICY_TRUTH_SYSFS;
		what = "the capture's /proc/slabinfo has 0 tunables";
	} else if (c->has_meminfo_start || c->has_meminfo_end || c->nmeminfo) {
		t = POLICY_TRUTH_MEMINFO;
		what = "the capture has /proc/meminfo and no /proc/slabinfo";
	}
	if (!(ops = policy_find_truth(t)))
		return NULL;
	if (c->info_allocator[0])
		(void)snprintf(why, n, "%s; capture-info.txt's allocator=%s has no model", what,
			       c->info_allocator);
	else
		(void)snprintf(why, n, "%s", what);
	return ops;
}

int val_capture_model(const struct capture *c, struct run_model *m, FILE *notes, struct err *e)
{
	uint32_t given = m->given;
	char why[160];
	const struct policy_ops *ops = val_capture_allocator(c, why, sizeof(why));
	if (ops && !(given & RUN_GIVEN_ALLOCATOR)) {
		m->allocator = ops->name;
		if (notes)
			fprintf(notes, "capture: allocator %s (%s)\n", ops->name, why);
	} else if (ops && notes && policy_find(m->allocator) != ops) {
		fprintf(notes, "capture: allocator %s from --allocator (the capture's is %s: %s)\n",
			m->allocator, ops->name, why);
	}
	if (c->has_uname && !(given & RUN_GIVEN_KERNEL)) {
		m->cfg.kernel = val_kernel_profile(c->major, c->minor);
		m->kernel_from = "the capture's uname.txt";
		if (notes)
			fprintf(notes, "capture: kernel %s -> profile %s\n", c->release,
				run_kernel_name(m));
	} else if (!c->has_uname && !(given & RUN_GIVEN_KERNEL) && notes) {
		fprintf(notes, "capture: no uname.txt: the kernel profile comes from the trace's "
			       "event format, as for a bare trace file\n");
	}
	if (c->attrs_missing[0] && notes)
		fprintf(notes,
			"slabsim: warning: %s/slab-attrs.tsv: expected the columns that lay out "
			"a cache, missing %s: its layout is not compared and its caches are laid "
			"out from slabinfo\n",
			c->dir, c->attrs_missing);
	uint32_t cpus = c->possible ? c->possible : c->online ? c->online : c->nproc;
	if (cpus && !(given & RUN_GIVEN_NR_CPUS)) {
		m->cfg.nr_cpus = cpus;
		m->nr_cpus_from = "the capture's ncpus.txt";
		if (notes)
			fprintf(notes, "capture: nr_cpu_ids %u (%s)\n", cpus,
				c->possible ? "possible"
				: c->online ? "online"
					    : "nproc");
	}
	/* a 6.1 kernel without CONFIG_MEMCG_KMEM lists no kmalloc-cg-N cache;
	 * 6.1 always has kmalloc-rcl-N (create_kmalloc_caches), so a slabinfo
	 * without them lists only some caches (a hand-made one) and says
	 * nothing */
	const struct capture_slabinfo *si = c->has_end ? &c->end : c->has_start ? &c->start : NULL;
	/* without uname.txt the trace decides the profile later: the fact
	 * is the slabinfo's either way (a 5.4 profile has no kmalloc-cg-N) */
	bool may_61 = m->cfg.kernel >= POLICY_KERNEL_6_1 ||
		      (!c->has_uname && !(given & RUN_GIVEN_KERNEL));
	if (si && si->n && may_61) {
		bool cg = false, rcl = false, dma = false, km = false, bk = false, rnd = false;
		for (uint32_t i = 0; i < si->n; i++) {
			const char *nm = si->rows[i].name;
			cg |= strncmp(nm, "kmalloc-cg-", 11) == 0;
			rcl |= strncmp(nm, "kmalloc-rcl-", 12) == 0;
			dma |= strncmp(nm, "dma-kmalloc-", 12) == 0;
			km |= strcmp(nm, "kmalloc-8k") == 0;
			bk |= strncmp(nm, "msg_msg-", 8) == 0 ||
			      strncmp(nm, "memdup_user-", 12) == 0;
			rnd |= strncmp(nm, "kmalloc-rnd-", 12) == 0;
		}
		const uint32_t cgv = m->config_given;
		if (rcl && !(cgv & RUN_SWITCH_MEMCG))
			m->cfg.no_kmalloc_cg = !cg;
		/* the newer profiles' switches, from the caches they create
		 * (create_kmalloc_caches, kmem_buckets_create): SLUB_TINY makes
		 * no kmalloc-rcl-N, a kernel without ZONE_DMA no dma-kmalloc-N */
		if (km && m->cfg.kernel >= POLICY_KERNEL_6_6) {
			if (!(cgv & POLICY_SET_SLUB_TINY))
				m->cfg.slub_tiny = !rcl;
			if (!(cgv & POLICY_SET_ZONE_DMA))
				m->cfg.no_zone_dma = !dma;
			if (!(cgv & POLICY_SET_SLAB_BUCKETS))
				m->cfg.slab_buckets = bk && m->cfg.kernel >= POLICY_KERNEL_6_12;
			if (!(cgv & POLICY_SET_RANDOM_KMALLOC))
				m->cfg.random_kmalloc = rnd ? 15 : 0;
			m->config_from = "the capture's slabinfo cache names";
			if (notes)
				fprintf(notes,
					"capture: configuration from its slabinfo cache names: "
					"SLUB_TINY=%c ZONE_DMA=%c MEMCG=%c SLAB_BUCKETS=%c "
					"RANDOM_KMALLOC_CACHES=%c\n",
					m->cfg.slub_tiny ? 'y' : 'n',
					m->cfg.no_zone_dma ? 'n' : 'y',
					m->cfg.no_kmalloc_cg ? 'n' : 'y',
					m->cfg.slab_buckets ? 'y' : 'n',
					m->cfg.random_kmalloc ? 'y' : 'n');
		}
		if (rcl && !cg && notes)
			fprintf(notes,
				"capture: no kmalloc-cg-N cache in its slabinfo (a kernel "
				"without CONFIG_MEMCG_KMEM): accounted kmallocs use kmalloc-N\n");
	}
	if (m->cfg.random_kmalloc) {
		/* the seed qemu-boot read from the guest, unless --config gave
		 * one; the System.map lines turn a call site into its caller */
		if (c->has_seed && !(m->config_given & RUN_SWITCH_SEED))
			m->cfg.random_seed = c->random_seed;
		if (c->symtab.n)
			m->cfg.symtab = &c->symtab;
		if (notes)
			fprintf(notes,
				"capture: random kmalloc copies: seed 0x%016" PRIx64
				" (%s), callers %s\n",
				m->cfg.random_seed,
				m->config_given & RUN_SWITCH_SEED ? "--config"
				: c->has_seed			  ? "capture-info.txt"
								  : "not known: a stand-in",
				c->symtab.n ? "from system-map.txt"
					    : "not known: a hash of the call site's text");
	}
	run_model_settle(m);
	if (!c->has_cmdline)
		return 0;
	const struct capture_cmdline *cl = &c->cmdline;
	if (cl->slub_debug_given && !(given & RUN_GIVEN_SLUB_DEBUG)) {
		uint32_t flags = 0;
		bool had_o = false, per_cache = false;
		for (uint32_t i = 0; i < cl->ndebug; i++) {
			char letters[24];
			uint32_t f;
			if (cl->debug[i].ncaches) {
				per_cache = true;
				continue;
			}
			debug_letters(cl->debug[i].flags, letters, &had_o);
			int rc = policy_parse_slub_debug(letters, &f, e);
			if (rc)
				return err_set(e, SLABSIM_EINPUT, "%s/cmdline.txt: slub_debug: %s",
					       c->dir, e->msg);
			flags = strcmp(letters, "-") == 0 ? 0 : flags | f;
		}
		m->cfg.slub_debug = flags;
		if (notes) {
			char dbg[8];
			fprintf(notes, "capture: slub_debug %s for every cache\n",
				policy_slub_debug_str(flags, dbg));
			if (per_cache)
				fprintf(notes,
					"capture: slub_debug lists for named caches are not "
					"modelled (the model applies one set of flags to every "
					"cache); the layout check uses each cache's own flags\n");
			if (had_o)
				fprintf(notes, "capture: slub_debug flag O is not modelled\n");
		}
	}
	if (cl->slub_min_order >= 0 && !(given & RUN_GIVEN_MIN_ORDER))
		m->cfg.slub_min_order = (uint32_t)cl->slub_min_order;
	if (cl->slub_max_order >= 0 && !(given & RUN_GIVEN_MAX_ORDER))
		m->cfg.slub_max_order = (uint32_t)cl->slub_max_order;
	if (cl->slub_min_objects >= 0 && !(given & RUN_GIVEN_MIN_OBJECTS))
		m->cfg.slub_min_objects = (uint32_t)cl->slub_min_objects;
	if (m->cfg.slub_min_order >= POLICY_MAX_ORDER || m->cfg.slub_max_order >= POLICY_MAX_ORDER)
		return err_set(e, SLABSIM_EINPUT,
			       "%s/cmdline.txt: slub_min_order/slub_max_order above %d", c->dir,
			       POLICY_MAX_ORDER - 1);
	if (cl->nomerge && !(m->config_given & POLICY_SET_NOMERGE))
		m->cfg.nomerge = true;
	return 0;
}

bool val_attrs_spec(const struct capture_attrs_row *r, struct policy_cache_spec *spec)
{
	const int64_t *v = r->v;
	if (v[CAPTURE_A_OBJECT_SIZE] <= 0)
		return false;
	bool hw = v[CAPTURE_A_HWCACHE_ALIGN] > 0;
	memset(spec, 0, sizeof(*spec));
	spec->name = r->name;
	spec->object_size = (uint32_t)v[CAPTURE_A_OBJECT_SIZE];
	/* sysfs align is calculate_alignment()'s result; for a cache without
	 * HWCACHE_ALIGN it is the alignment asked for (at least 8), which
	 * calculate_alignment returns unchanged */
	spec->align = hw || v[CAPTURE_A_ALIGN] < 0 ? 0 : (uint32_t)v[CAPTURE_A_ALIGN];
	static const struct {
		enum capture_attr a;
		uint32_t f;
	} fl[] = {
		{CAPTURE_A_HWCACHE_ALIGN, POLICY_F_HWCACHE_ALIGN},
		{CAPTURE_A_CACHE_DMA, POLICY_F_CACHE_DMA},
		{CAPTURE_A_RECLAIM_ACCOUNT, POLICY_F_RECLAIM_ACCOUNT},
		{CAPTURE_A_DESTROY_BY_RCU, POLICY_F_TYPESAFE_BY_RCU},
		{CAPTURE_A_SANITY_CHECKS, POLICY_F_CONSISTENCY},
		{CAPTURE_A_RED_ZONE, POLICY_F_RED_ZONE},
		{CAPTURE_A_POISON, POLICY_F_POISON},
		{CAPTURE_A_STORE_USER, POLICY_F_STORE_USER},
		{CAPTURE_A_TRACE, POLICY_F_TRACE},
	};
	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
		if (v[fl[i].a] > 0)
			spec->flags |= fl[i].f;
	spec->ctor = r->has_ctor > 0;
	spec->usersize = v[CAPTURE_A_USERSIZE] > 0 ? (uint32_t)v[CAPTURE_A_USERSIZE] : 0;
	spec->no_merge = true; /* a root in the kernel: keep it one in the model */
	/* 6.18+ sysfs sheaf_capacity: the per-CPU sheaves the kernel gave the
	 * cache (kmem_cache_args.sheaf_capacity on 6.18; -1 when the capture
	 * has no such column: the source's value is taken) */
	if (v[CAPTURE_A_SHEAF_CAPACITY] >= 0) {
		spec->sheaf_capacity = (uint32_t)v[CAPTURE_A_SHEAF_CAPACITY];
		spec->sheaf_capacity_given = true;
	}
	/* 6.12 freeptr_offset, recognised from the slot: an RCU cache whose
	 * slab_size leaves no word after the object for the free pointer keeps
	 * it inside (calculate_sizes; vm_area_struct and filp on 6.18: 192, not
	 * 256). Without Z P U and a constructor the slot is then the object
	 * rounded to a word and to align; profiles before 6.12 ignore it. The
	 * offset is not shown and changes no size. */
	const uint32_t zpu = POLICY_F_RED_ZONE | POLICY_F_POISON | POLICY_F_STORE_USER;
	int64_t sz = v[CAPTURE_A_SLAB_SIZE], al = v[CAPTURE_A_ALIGN];
	if ((spec->flags & POLICY_F_TYPESAFE_BY_RCU) && !(spec->flags & zpu) && !spec->ctor &&
	    sz > 0 && al > 0) {
		uint64_t w = ((uint64_t)spec->object_size + 7) & ~7ULL, a = (uint64_t)al;
		uint64_t inside = (w + a - 1) / a * a, outside = (w + 8 + a - 1) / a * a;
		spec->use_freeptr_offset = (uint64_t)sz == inside && inside != outside;
	}
	return true;
}

static const struct capture_attrs_row *attrs_find(const struct capture_attrs *a, const char *name)
{
	for (uint32_t i = 0; i < a->n; i++)
		if (strcmp(a->rows[i].name, name) == 0)
			return &a->rows[i];
	return NULL;
}

/* The root row of name (following an alias link once). */
static const struct capture_attrs_row *attrs_root(const struct capture_attrs *a, const char *name)
{
	const struct capture_attrs_row *r = attrs_find(a, name);
	if (r && r->link_target)
		r = attrs_find(a, r->link_target);
	return r;
}

/* The latest reading of name's cache in a: its root row or the row of one
 * of its aliases (each alias directory is read on its own, a while after
 * the root's), whichever comes last. record's walk goes over
 * /sys/kernel/slab in glob order, which under the C and C.UTF-8 locales is
 * the order of the file (sorted with LC_ALL=C); under another locale the
 * root rows (":..." names) still come before their aliases' names. The
 * start state wants the reading nearest to the events' start (a tracefs
 * instance made during the walk shows in trace_event_file's row, read
 * after the root :0000096 of its merge). */
static const struct capture_attrs_row *attrs_latest(const struct capture_attrs *a, const char *name)
{
	const struct capture_attrs_row *root = attrs_root(a, name), *r = root;
	if (!root)
		return NULL;
	for (uint32_t i = (uint32_t)(root - a->rows) + 1; i < a->n; i++)
		if (a->rows[i].link_target && strcmp(a->rows[i].link_target, root->name) == 0)
			r = &a->rows[i];
	return r;
}

/* ---- phase summary ---- */

struct phase_snap {
	char *label;
	uint64_t t_ns;
	uint32_t n;
	struct val_phase_fig *c; /* by policy cache id; roots only, others 0 */
	struct val_phase_fig total;
};

struct val_phases {
	struct phase_snap *snaps;
	uint32_t n, cap;
};

int val_phases_create(struct val_phases **out, struct err *e)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	return 0;
}

void val_phases_destroy(struct val_phases *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->n; i++) {
		free(p->snaps[i].label);
		free(p->snaps[i].c);
	}
	free(p->snaps);
	free(p);
}

static int phase_take(struct val_phases *p, const struct sim *s, const char *label, uint64_t t_ns,
		      struct err *e)
{
	if (p->n == p->cap) {
		uint32_t nc = p->cap ? p->cap * 2 : 16;
		struct phase_snap *ns = realloc(p->snaps, nc * sizeof(*ns));
		if (!ns)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		p->snaps = ns;
		p->cap = nc;
	}
	struct phase_snap *ps = &p->snaps[p->n];
	memset(ps, 0, sizeof(*ps));
	ps->n = sim_nr_caches(s);
	ps->t_ns = t_ns;
	ps->c = calloc(ps->n ? ps->n : 1, sizeof(*ps->c));
	size_t ll = strlen(label) + 1;
	ps->label = malloc(ll);
	if (!ps->c || !ps->label) {
		free(ps->c);
		free(ps->label);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	memcpy(ps->label, label, ll);
	uint64_t req = 0;
	for (uint32_t id = 0; id < ps->n; id++) {
		struct sim_cache_state cs;
		sim_cache_state(s, id, &cs);
		if (!cs.root)
			continue;
		/* SLOB's caches share pages: a cache has live objects but no
		 * pages of its own, so its waste is only known in the total */
		uint64_t waste = cs.pages_per_slab ? cs.waste_bytes : 0;
		ps->c[id] = (struct val_phase_fig){cs.pages, waste, cs.live_objs};
		ps->total.pages += cs.pages;
		ps->total.live += cs.live_objs;
		req += cs.pages * POLICY_PAGE_SIZE - cs.waste_bytes;
	}
	/* the total counts every slab page, attributed to a cache or not */
	struct sim_totals t;
	sim_totals(s, &t);
	ps->total.pages = t.slab_pages;
	ps->total.waste = t.slab_pages * POLICY_PAGE_SIZE - req;
	p->n++;
	return 0;
}

int val_phases_marker(void *ctx, struct sim *s, const struct trace_event *ev, struct err *e)
{
	return phase_take(ctx, s, ev->text ? ev->text : "", ev->t_ns, e);
}

int val_phases_end(struct val_phases *p, const struct sim *s, struct err *e)
{
	return phase_take(p, s, "end", 0, e);
}

uint32_t val_phases_count(const struct val_phases *p)
{
	return p->n;
}

const char *val_phases_label(const struct val_phases *p, uint32_t i)
{
	return p->snaps[i].label;
}

uint32_t val_phases_caches(const struct val_phases *p, uint32_t i)
{
	return p->snaps[i].n;
}

struct val_phase_fig val_phases_total(const struct val_phases *p, uint32_t i)
{
	return p->snaps[i].total;
}

struct val_phase_fig val_phases_cache(const struct val_phases *p, uint32_t i, uint32_t id)
{
	const struct phase_snap *ps = &p->snaps[i];
	return id < ps->n ? ps->c[id] : (struct val_phase_fig){0};
}

/* ---- validate ---- */

/* The layout figures compared: the first five from /sys/kernel/slab (SLUB),
 * the slab_size, objs_per_slab and the last four from /proc/slabinfo (SLAB:
 * objsize, objperslab, pagesperslab and the tunables). A figure whose real
 * value is -1 is not compared. */
enum {
	L_OBJECT_SIZE,
	L_SLAB_SIZE,
	L_ALIGN,
	L_ORDER,
	L_OBJS,
	L_FIRST_SYSFS_NR, /* the five of slab-attrs.tsv (and of validation_layout) */
	L_PAGES = L_FIRST_SYSFS_NR,
	L_LIMIT,
	L_BATCH,
	L_SHARED,
	L_NR
};
_Static_assert(L_NR == VAL_LAYOUT_NR, "validate.h VAL_LAYOUT_NR is the number of layout figures");
static const char *const lfield[L_NR] = {"object_size", "slab_size",	 "align",
					 "order",	"objs_per_slab", "pagesperslab",
					 "limit",	"batchcount",	 "sharedfactor"};
/* the same figures under their /proc/slabinfo names */
static const char *const lfield_slabinfo[L_NR] = {"object_size", "objsize",    "align",
						  "order",	 "objperslab", "pagesperslab",
						  "limit",	 "batchcount", "sharedfactor"};
static const enum capture_attr lattr[L_FIRST_SYSFS_NR] = {CAPTURE_A_OBJECT_SIZE,
							  CAPTURE_A_SLAB_SIZE, CAPTURE_A_ALIGN,
							  CAPTURE_A_ORDER, CAPTURE_A_OBJS_PER_SLAB};

/* The snapshot read window. A capture's snapshot reads /proc/slabinfo,
 * then /proc/meminfo, then writes the SNAP marker (docs/capture-format.md);
 * what happens in between (RCU callbacks freeing inodes and dentries after
 * drop_caches, other CPUs) is in the trace before the marker but not in the
 * snapshot. The kernel opens /proc/slabinfo with seq_open (a seq_file,
 * traced as a kmem_cache_alloc from seq_open), /proc/meminfo with
 * single_open (a kmalloc from single_open, then seq_open in the same task):
 * the last seq_open of no single_open before a SNAP marker is the read of
 * its slabinfo, and the model is compared as it was then. */
struct snap_read {
	bool have;	       /* a read was seen since the last SNAP marker */
	uint64_t t_ns;	       /* its time */
	uint64_t slab_pages;   /* the model's slab pages then */
	uint64_t *cache_pages; /* and per policy cache id */
	uint32_t n, cap;
	int32_t single_cpu; /* the CPU of a single_open not followed yet, -1 none */
	int32_t open_cpu;   /* the CPU of the slabinfo open whose read is awaited */
	bool at_marker;	    /* compare at the marker (validate --at-marker) */
	/* A SNAP-READ marker (record from version 4 writes one just before it
	 * reads /proc/slabinfo): the first open after it is the read, and
	 * later reads by other programs before the SNAP marker are not. */
	bool armed, fixed;
};

static const char *const snap_read_sites[] = {"single_open", "seq_open", "seq_read_iter", NULL};

static int on_read_site(void *ctx, struct sim *s, const struct trace_event *ev, uint32_t which,
			struct err *e);
static int end_read(void *ctx, struct sim *s, const struct trace_event *ev, uint32_t which,
		    struct err *e);
static int end_rows_now(const struct capture *c, struct sim *s, struct val_end_row **out,
			uint32_t *nout, struct err *e);

struct vctx {
	struct capture *c;
	const char *const *exclude; /* val_opts.exclude: left out of the totals */
	uint32_t nexclude;
	/* SLOB (POLICY_TRUTH_MEMINFO): snapshots are snapshots/ID.meminfo and
	 * the predicted total is base_pages (what the kernel held when the
	 * trace began, from meminfo-start.txt or the anchor, held constant)
	 * plus the model's slab and large-kmalloc pages */
	bool meminfo;
	int64_t base_pages;
	int64_t tiny_pages;    /* of meminfo-start.txt's, those tiny_start laid out */
	bool anchor;	       /* top up the pre-trace remainder at the first snapshot */
	uint64_t anchor_pages; /* pages added there */
	uint64_t anchor_objs;
	struct val_snap *snaps;
	uint32_t nsnaps, cap;
	uint32_t snap_markers_missing; /* SNAP markers with no snapshot file */
	uint32_t snap_markers_dup;
	struct snap_read read; /* the model when the next snapshot was read */
	uint32_t start_est;    /* START_EST_* bits: start columns estimated */
	/* The END marker (record, version 3): slabinfo.txt is read right
	 * after it, while the trace still runs; the end state is the model at
	 * that read, and what follows it is only there for the look-ahead
	 * (page frees a grace period late). end_pending: the marker was seen
	 * and the read's buffer (seq_read_iter) is awaited */
	bool end_pending;
	struct val_end_row *end_rows; /* the rows at the END read, or NULL */
	uint32_t end_nrows;
	uint64_t end_read_t_ns;
};

static bool have_snapshot(const struct capture *c, bool meminfo, const char *id)
{
	char **ids = meminfo ? c->meminfo_ids : c->snapshot_ids;
	uint32_t n = meminfo ? c->nmeminfo : c->nsnapshots;
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(ids[i], id) == 0)
			return true;
	return false;
}

/* /proc/meminfo's Slab: in pages (kB / 4), -1 without the line. */
static int64_t meminfo_pages(const struct capture_meminfo *mi)
{
	return mi->slab_kb < 0 ? -1 : mi->slab_kb / (POLICY_PAGE_SIZE / 1024);
}

/* What the SLOB model predicts /proc/meminfo's Slab: to be, in pages: its
 * slab pages and its page-allocator kmallocs (6.1 counts both), on top of
 * the pages held when the trace began. */
static uint64_t meminfo_pred(const struct vctx *v, const struct sim *s)
{
	struct sim_totals t;
	sim_totals(s, &t);
	int64_t p = v->base_pages + (int64_t)(t.slab_pages + t.large_pages);
	return p < 0 ? 0 : (uint64_t)p;
}

/* on_snap for a meminfo capture: snapshots/ID.meminfo's Slab: against the
 * model; without meminfo-start.txt the first snapshot sets base_pages (the
 * anchor) and is not scored. */
static int on_snap_meminfo(struct vctx *v, struct sim *s, struct val_snap *r, struct err *e)
{
	struct capture_meminfo mi;
	int rc = capture_read_snapshot_meminfo(v->c, r->id, &mi, e);
	if (rc)
		return rc;
	int64_t real = meminfo_pages(&mi);
	if (real < 0)
		return err_set(e, SLABSIM_EINPUT, "%s/snapshots/%s.meminfo: no Slab: line",
			       v->c->dir, r->id);
	r->real_pages = (uint64_t)real;
	if (!(r->caches = calloc(1, sizeof(*r->caches))))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	if (v->anchor && v->nsnaps == 1) {
		struct sim_totals t;
		sim_totals(s, &t);
		r->anchor = true;
		v->base_pages = real - (int64_t)(t.slab_pages + t.large_pages);
		v->anchor_pages = (uint64_t)(v->base_pages < 0 ? 0 : v->base_pages);
	}
	r->pred_pages = meminfo_pred(v, s);
	return 0;
}

static int define_cache(struct sim *s, const struct capture *c,
			const struct capture_slabinfo_row *row, uint64_t traced_req, struct err *e);

/* A new snapshot result for SNAP marker id, appended to v. OUT: *out,
 * NULL when the marker is not compared: no snapshot file of that id (its
 * count kept), or its id seen before. */
static int snap_new(struct vctx *v, const char *id, uint64_t t_ns, struct val_snap **out,
		    struct err *e)
{
	*out = NULL;
	if (!have_snapshot(v->c, v->meminfo, id)) {
		v->snap_markers_missing++;
		return 0;
	}
	for (uint32_t i = 0; i < v->nsnaps; i++)
		if (strcmp(v->snaps[i].id, id) == 0) {
			v->snap_markers_dup++;
			return 0;
		}
	if (v->nsnaps == v->cap) {
		uint32_t nc = v->cap ? v->cap * 2 : 16;
		struct val_snap *n = realloc(v->snaps, nc * sizeof(*n));
		if (!n)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		v->snaps = n;
		v->cap = nc;
	}
	struct val_snap *r = &v->snaps[v->nsnaps];
	memset(r, 0, sizeof(*r));
	size_t il = strlen(id) + 1;
	if (!(r->id = malloc(il)))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	memcpy(r->id, id, il);
	v->nsnaps++;
	r->t_ns = t_ns;
	*out = r;
	return 0;
}

/* ---- validate --exclude ---- */

static bool excluded(const struct vctx *v, const char *name)
{
	for (uint32_t i = 0; i < v->nexclude; i++)
		if (strcmp(v->exclude[i], name) == 0)
			return true;
	return false;
}

enum val_excl val_exclude_check(const struct capture *c, const char *name, const char **root)
{
	*root = NULL;
	if (capture_slabinfo_find(&c->end, name) || capture_slabinfo_find(&c->start, name))
		return VAL_EXCL_CACHE;
	for (uint32_t i = 0; i < c->attrs.n; i++) {
		if (strcmp(c->attrs.rows[i].name, name) != 0)
			continue;
		const char *id = c->attrs.rows[i].link_target;
		if (!id)
			return VAL_EXCL_CACHE;
		/* the links of one sysfs id (":0000048"): the one slabinfo lists
		 * is the root cache's name, which holds the alias's objects */
		*root = id;
		for (uint32_t j = 0; j < c->attrs.n; j++) {
			const struct capture_attrs_row *o = &c->attrs.rows[j];
			if (o->link_target && strcmp(o->link_target, id) == 0 &&
			    (capture_slabinfo_find(&c->end, o->name) ||
			     capture_slabinfo_find(&c->start, o->name)))
				*root = o->name;
		}
		return VAL_EXCL_ALIAS;
	}
	for (uint32_t i = 0; i < c->nsnapshots; i++) {
		struct capture_slabinfo si;
		struct err e;
		if (capture_read_snapshot(c, c->snapshot_ids[i], &si, &e))
			continue;
		bool found = capture_slabinfo_find(&si, name) != NULL;
		capture_slabinfo_free(&si);
		if (found)
			return VAL_EXCL_CACHE;
	}
	return VAL_EXCL_UNKNOWN;
}

/* Leave the excluded caches out of snapshot r's totals: the real pages of
 * their rows, the model's pages of the same names at the marker and, when
 * r was compared at its read (read), as they were then. */
static void snap_exclude(const struct vctx *v, struct sim *s, struct val_snap *r, bool read)
{
	for (uint32_t k = 0; k < v->nexclude; k++) {
		const struct capture_slabinfo_row *row =
			capture_slabinfo_find(&r->si, v->exclude[k]);
		if (row)
			r->real_pages -= row->num_slabs * row->pagesperslab;
		uint32_t id;
		if (!sim_find_cache(s, v->exclude[k], &id))
			continue;
		struct sim_cache_state cs;
		sim_cache_state(s, id, &cs);
		r->pred_at_marker -= cs.pages;
		if (!read)
			r->pred_pages -= cs.pages;
		else if (id < v->read.n)
			r->pred_pages -= v->read.cache_pages[id];
	}
}

/* snapshots/ID.slabinfo of r against the model now: per cache and in
 * total; the model as it was at the snapshot's /proc/slabinfo read
 * (snap_read) where the trace shows it, unless this is the anchor. */
static int snap_slabinfo(struct vctx *v, struct sim *s, struct val_snap *r, struct err *e)
{
	int rc = capture_read_snapshot(v->c, r->id, &r->si, e);
	if (rc)
		return rc;
	r->real_pages = capture_slabinfo_pages(&r->si);
	struct sim_totals t;
	sim_totals(s, &t);
	r->pred_pages = t.slab_pages;
	uint32_t n = sim_nr_caches(s);
	r->caches = calloc((size_t)r->si.n + n + 1, sizeof(*r->caches));
	if (!r->caches)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < r->si.n; i++) {
		const struct capture_slabinfo_row *row = &r->si.rows[i];
		struct val_snap_cache *sc = &r->caches[r->ncaches++];
		sc->name = row->name;
		sc->real_pages = row->num_slabs * row->pagesperslab;
		uint32_t id2;
		if (sim_find_cache(s, row->name, &id2)) {
			struct sim_cache_state cs;
			sim_cache_state(s, id2, &cs);
			sc->pred_pages = cs.pages;
		}
	}
	bool read = v->read.have && !v->read.at_marker && !(v->anchor && v->nsnaps == 1);
	v->read.have = false;
	v->read.single_cpu = -1;
	v->read.armed = v->read.fixed = false;
	r->pred_at_marker = r->pred_pages;
	if (read) {
		r->read_t_ns = v->read.t_ns;
		r->pred_pages = v->read.slab_pages;
		for (uint32_t i = 0; i < r->ncaches; i++) {
			uint32_t id2;
			if (sim_find_cache(s, r->caches[i].name, &id2))
				r->caches[i].pred_pages =
					id2 < v->read.n ? v->read.cache_pages[id2] : 0;
		}
	}
	snap_exclude(v, s, r, read);
	return 0;
}

/* What a cache of the anchor snapshot holds beyond the model (anchor_top_up). */
struct deficit {
	uint32_t id;
	uint64_t slabs, objs;
	int64_t osz, size; /* geometry of the recorded cache, -1 unknown */
};

/* The deficit of each row of the anchor snapshot r (d[i] for row i),
 * defining the caches the model lacks. */
static int anchor_deficits(struct vctx *v, struct sim *s, const struct val_snap *r,
			   struct deficit *d, struct err *e)
{
	for (uint32_t i = 0; i < r->si.n; i++) {
		const struct capture_slabinfo_row *row = &r->si.rows[i];
		uint32_t id2;
		int rc;
		d[i].osz = d[i].size = -1;
		if (!row->num_slabs)
			continue;
		if (!sim_find_cache(s, row->name, &id2)) {
			if ((rc = define_cache(s, v->c, row, 0, e)))
				return rc;
			if (!sim_find_cache(s, row->name, &id2))
				continue;
		}
		struct sim_cache_state cs;
		sim_cache_state(s, id2, &cs);
		if (!cs.root)
			continue;
		uint64_t real_slabs = row->num_slabs * row->pagesperslab / cs.pages_per_slab;
		if (real_slabs <= cs.slabs)
			continue;
		d[i].id = id2;
		d[i].slabs = real_slabs - cs.slabs;
		d[i].objs =
			row->active_objs > cs.active_objs ? row->active_objs - cs.active_objs : 0;
		const struct capture_attrs_row *ar =
			v->c->has_attrs ? attrs_root(&v->c->attrs, row->name) : NULL;
		if (ar) {
			d[i].osz = ar->v[CAPTURE_A_OBJECT_SIZE];
			d[i].size = ar->v[CAPTURE_A_SLAB_SIZE];
		}
	}
	return 0;
}

/* Model caches the snapshot does not name (allocations whose cache the
 * trace never named) hold part of what named caches of their geometry
 * lack: count their slabs against those deficits first. */
static void deficits_less_unnamed(struct sim *s, const struct val_snap *r, struct deficit *d)
{
	uint32_t n = sim_nr_caches(s);
	for (uint32_t id2 = 0; id2 < n; id2++) {
		struct sim_cache_state cs;
		sim_cache_state(s, id2, &cs);
		if (!cs.root || !cs.slabs || capture_slabinfo_find(&r->si, cs.name))
			continue;
		uint64_t left = cs.slabs, objs_left = cs.active_objs;
		for (uint32_t i = 0; left && i < r->si.n; i++) {
			if (!d[i].slabs || d[i].osz != cs.object_size || d[i].size != cs.slot_size)
				continue;
			uint64_t take = left < d[i].slabs ? left : d[i].slabs;
			uint64_t otake = objs_left * take / left;
			d[i].slabs -= take;
			d[i].objs -= otake < d[i].objs ? otake : d[i].objs;
			left -= take;
			objs_left -= otake;
		}
	}
}

/* No start snapshot (a boot capture): the first snapshot r is the start
 * state. What the kernel held beyond the model there (objects made before
 * tracing began) is added as live objects in slabs; later frees of
 * pointers the trace never allocated take from them. */
static int anchor_top_up(struct vctx *v, struct sim *s, struct val_snap *r, struct err *e)
{
	r->anchor = true;
	struct deficit *d = calloc(r->si.n ? r->si.n : 1, sizeof(*d));
	if (!d)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	int rc = anchor_deficits(v, s, r, d, e);
	if (!rc)
		deficits_less_unnamed(s, r, d);
	for (uint32_t i = 0; !rc && i < r->si.n; i++) {
		if (!d[i].slabs)
			continue;
		struct sim_cache_state cs;
		sim_cache_state(s, d[i].id, &cs);
		uint64_t objs = d[i].objs;
		if (objs > d[i].slabs * cs.objs_per_slab)
			objs = d[i].slabs * cs.objs_per_slab;
		struct policy_start st = {.active_objs = objs, .nr_slabs = d[i].slabs};
		uint64_t nlive;
		if ((rc = sim_prepopulate(s, d[i].id, &st, &nlive, e)))
			break;
		v->anchor_pages += d[i].slabs * cs.pages_per_slab;
		v->anchor_objs += objs;
	}
	free(d);
	if (rc)
		return rc;
	struct sim_totals t;
	sim_totals(s, &t);
	r->pred_pages = t.slab_pages;
	r->pred_at_marker = r->pred_pages;
	for (uint32_t i = 0; i < r->ncaches; i++) {
		uint32_t id2;
		if (sim_find_cache(s, r->caches[i].name, &id2)) {
			struct sim_cache_state cs;
			sim_cache_state(s, id2, &cs);
			r->caches[i].pred_pages = cs.pages;
		}
	}
	/* the real pages were already less the excluded caches' */
	uint64_t real = r->real_pages;
	snap_exclude(v, s, r, false);
	r->real_pages = real;
	return 0;
}

/* sim_marker_fn: a SNAP marker compares the model with its snapshot. */
static int on_snap(void *ctx, struct sim *s, const struct trace_event *ev, struct err *e)
{
	struct vctx *v = ctx;
	const char *id = capture_snap_id(ev->text);
	struct val_snap *r;
	int rc;
	if (ev->text && strcmp(ev->text, "END") == 0 && v->c->has_end && !v->meminfo &&
	    !v->end_read_t_ns) {
		v->end_pending = true;
		return 0;
	}
	if (!id) {
		if (capture_snap_read_id(ev->text)) {
			v->read.armed = true;
			v->read.fixed = v->read.have = false;
			v->read.open_cpu = v->read.single_cpu = -1;
		}
		return 0;
	}
	if ((rc = snap_new(v, id, ev->t_ns, &r, e)) || !r)
		return rc;
	if (v->meminfo)
		return on_snap_meminfo(v, s, r, e);
	if ((rc = snap_slabinfo(v, s, r, e)))
		return rc;
	if (!v->anchor || v->nsnaps != 1)
		return 0;
	return anchor_top_up(v, s, r, e);
}

/* sim_watch_fn: the reads of /proc files that snap_read describes. */
static int on_read_site(void *ctx, struct sim *s, const struct trace_event *ev, uint32_t which,
			struct err *e)
{
	struct snap_read *rd = &((struct vctx *)ctx)->read;
	if (rd->fixed)
		return end_read(ctx, s, ev, which, e);
	/* single_open's own seq_open follows it in the same task: the next
	 * watched event on that CPU (tasks' pids are not in every reader's
	 * events) */
	if (which == 0) {
		rd->single_cpu = (int32_t)ev->cpu;
		return 0;
	}
	if (which == 2) {
		/* the buffer of the first read(): the slabinfo text is made now */
		if (rd->open_cpu != (int32_t)ev->cpu)
			return 0;
		rd->open_cpu = -1;
	} else if (rd->single_cpu == (int32_t)ev->cpu) {
		rd->single_cpu = -1;
		rd->open_cpu = -1;
		return 0;
	} else {
		/* after SNAP-READ, the first open's read is awaited alone */
		if (rd->armed && rd->open_cpu >= 0)
			return end_read(ctx, s, ev, which, e);
		rd->open_cpu = (int32_t)ev->cpu;
	}
	uint32_t n = sim_nr_caches(s);
	if (n > rd->cap) {
		uint64_t *p = realloc(rd->cache_pages, n * sizeof(*p));
		if (!p)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		rd->cache_pages = p;
		rd->cap = n;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct sim_cache_state cs;
		sim_cache_state(s, i, &cs);
		rd->cache_pages[i] = cs.pages;
	}
	struct sim_totals t;
	sim_totals(s, &t);
	rd->n = n;
	rd->slab_pages = t.slab_pages;
	rd->t_ns = ev->t_ns;
	rd->have = true;
	rd->fixed = rd->armed && which == 2;
	return end_read(ctx, s, ev, which, e);
}

/* on_read_site's END read: the first open after the END marker, then the
 * buffer of its first read() on that CPU, as for a snapshot. */
static int end_read(void *ctx, struct sim *s, const struct trace_event *ev, uint32_t which,
		    struct err *e)
{
	struct vctx *v = ctx;
	if (!v->end_pending || (which == 1 && v->end_rows))
		return 0;
	v->end_pending = which == 1;
	v->end_read_t_ns = ev->t_ns;
	free(v->end_rows);
	v->end_rows = NULL;
	return end_rows_now(v->c, s, &v->end_rows, &v->end_nrows, e);
}

static void vctx_fini(struct vctx *v)
{
	free(v->read.cache_pages);
	free(v->end_rows);
	for (uint32_t i = 0; i < v->nsnaps; i++) {
		free(v->snaps[i].id);
		free(v->snaps[i].caches);
		capture_slabinfo_free(&v->snaps[i].si);
	}
	free(v->snaps);
}

/* val_run's result and what it points into: the snapshots (v) and the
 * names of the caches only the model had, copied from the replayed model,
 * which is freed before the report is read. */
struct val_state {
	struct val_report rep; /* first: val_report_free has only its address */
	struct vctx v;
	bool done; /* rep holds a comparison */
	char **names;
	uint32_t nnames;
};

void val_report_free(const struct val_report *r)
{
	/* rep is st's first member; the const was the caller's promise */
	struct val_state *st = (struct val_state *)r;
	if (!st)
		return;
	vctx_fini(&st->v);
	for (uint32_t i = 0; i < st->nnames; i++)
		free(st->names[i]);
	free(st->names);
	free(st->rep.rows);
	free(st->rep.lay);
	free(st);
}

static int cmp_end(const void *a, const void *b)
{
	const struct val_end_row *x = a, *y = b;
	uint64_t ax = x->real_pages > x->m.pages ? x->real_pages : x->m.pages;
	uint64_t ay = y->real_pages > y->m.pages ? y->real_pages : y->m.pages;
	if (ax != ay)
		return ax < ay ? 1 : -1;
	return strcmp(x->name, y->name);
}

static bool kmalloc_name(const char *n)
{
	return strncmp(n, "kmalloc-", 8) == 0 || strncmp(n, "dma-kmalloc-", 12) == 0;
}

/* The name /proc/slabinfo (and the trace) give root row r: its own, or for
 * a merged root (":A-0000064") the alias that slabinfo.txt lists. */
static const char *slabinfo_name(const struct capture *c, const struct capture_attrs_row *r)
{
	if (r->name[0] != ':')
		return r->name;
	for (uint32_t i = 0; i < c->attrs.n; i++) {
		const struct capture_attrs_row *a = &c->attrs.rows[i];
		if (a->link_target && strcmp(a->link_target, r->name) == 0 &&
		    capture_slabinfo_find(&c->end, a->name))
			return a->name;
	}
	return NULL;
}

/* How many root caches of the recorded kernel have this (object_size,
 * slab_size), the kmalloc caches counted or not. */
static uint32_t roots_of_geometry(const struct capture_attrs *a, int64_t osz, int64_t sz,
				  bool kmalloc_too)
{
	uint32_t same = 0;
	for (uint32_t j = 0; j < a->n; j++)
		same += !a->rows[j].link_target &&
			(kmalloc_too || !kmalloc_name(a->rows[j].name)) &&
			a->rows[j].v[CAPTURE_A_OBJECT_SIZE] == osz &&
			a->rows[j].v[CAPTURE_A_SLAB_SIZE] == sz;
	return same;
}

/* SLAB_ACCOUNT of a root row from its name: a merged root's unique id
 * (mm/slub.c create_unique_id: ':', the flag letters, '-', the size) has
 * 'A' among its letters; -1 for a named root (sysfs shows no such flag). */
static int root_account(const char *name)
{
	if (name[0] != ':')
		return -1;
	const char *dash = strchr(name, '-');
	if (!dash)
		return 0;
	for (const char *p = name + 1; p < dash; p++)
		if (*p == 'A')
			return 1;
	return 0;
}

/* Is the cache named name idle in the recorded states: no slab at the
 * end and none at the start, or the same slabinfo line (slabs and active
 * objects) at both? An unnamed allocation that the name pass could not
 * name is one whose objects the trace never frees by name, so they are
 * still live at the end: an idle cache shows no room taken by them.
 * (A cache could lose as many start objects as it gains: its frees are then
 * in the trace; the rule does not look.) */
static bool idle_cache(const struct capture *c, const char *name, const struct capture_attrs_row *r)
{
	const struct capture_slabinfo_row *st =
		c->has_start ? capture_slabinfo_find(&c->start, name) : NULL;
	const struct capture_slabinfo_row *en =
		c->has_end ? capture_slabinfo_find(&c->end, name) : NULL;
	if (r->v[CAPTURE_A_SLABS] == 0 && (!st || st->num_slabs == 0))
		return true;
	return st && en && st->num_slabs == en->num_slabs && st->active_objs == en->active_objs;
}

/* Name the trace's unnamed kmem_cache_alloc events from the recorded
 * kernel's root caches (kmalloc caches aside: 6.1 traces their allocations
 * as kmalloc events): by geometry where one root cache, kmalloc ones
 * counted, has that (object_size, slab_size) (sim_name_geometry); by
 * elimination where several non-kmalloc roots share it, each a candidate
 * (sim_name_candidate) with its SLAB_ACCOUNT flag and whether it was idle
 * (idle_cache). */
static int name_unnamed(struct sim *s, const struct capture *c, struct err *e)
{
	const struct capture_attrs *a = &c->attrs;
	for (uint32_t i = 0; i < a->n; i++) {
		const struct capture_attrs_row *r = &a->rows[i];
		int64_t osz = r->v[CAPTURE_A_OBJECT_SIZE], sz = r->v[CAPTURE_A_SLAB_SIZE];
		const char *name;
		if (r->link_target || osz <= 0 || sz <= 0 || kmalloc_name(r->name) ||
		    !(name = slabinfo_name(c, r)))
			continue;
		int rc = 0;
		if (roots_of_geometry(a, osz, sz, true) == 1)
			rc = sim_name_geometry(s, (uint32_t)osz, (uint32_t)sz, name, e);
		else if (roots_of_geometry(a, osz, sz, false) >= 2)
			rc = sim_name_candidate(s, (uint32_t)osz, (uint32_t)sz, name,
						root_account(r->name), idle_cache(c, name, r), e);
		if (rc)
			return rc;
	}
	return 0;
}

/* What a SLAB capture cannot show of a cache it names: the flags,
 * constructor and alignment kmem_cache_create() was given, from the kernel
 * source's table (cache_facts.h). The capture's slabinfo only names the
 * cache: none of its figures chooses a fact. SLUB's caches keep what their
 * /sys/kernel/slab attributes say, or nothing. */
static void slabinfo_creation_facts(const struct policy *p, const char *name,
				    struct policy_cache_spec *spec)
{
	if (p->ops->truth != POLICY_TRUTH_SLABINFO)
		return;
	policy_cache_facts_apply(policy_cache_facts_find(p->cfg.kernel, name), spec);
}

/* Define the cache of a slabinfo row from slab-attrs.tsv, or from the slot
 * size and the source's creation facts when the capture has no attributes
 * for it. traced_req, when not 0, is the smallest bytes_req the trace shows
 * for the cache (traced_creation_sizes): SLAB's creation object_size when
 * it is below the stride and lays out to that stride. A cache the model
 * cannot lay out is left to the trace. */
static int define_cache(struct sim *s, const struct capture *c,
			const struct capture_slabinfo_row *row, uint64_t traced_req, struct err *e)
{
	struct policy_cache_spec spec;
	const struct capture_attrs_row *ar = c->has_attrs ? attrs_root(&c->attrs, row->name) : NULL;
	uint32_t id;
	const struct policy *p = sim_policy(s);
	struct policy_geom g;
	if (!ar || !val_attrs_spec(ar, &spec)) {
		memset(&spec, 0, sizeof(spec));
		spec.object_size = row->objsize;
		spec.align = 8;
		spec.no_merge = true;
		slabinfo_creation_facts(p, row->name, &spec);
		if (traced_req && traced_req < row->objsize && p->ops->layout) {
			struct policy_cache_spec first = spec;
			first.object_size = (uint32_t)traced_req;
			if (!p->ops->layout(&p->cfg, &first, &g, NULL) && g.size == row->objsize)
				spec = first;
		}
	}
	spec.name = row->name;
	if (p->ops->layout && p->ops->layout(&p->cfg, &spec, &g, NULL))
		return 0;
	return sim_ensure_cache(s, &spec, &id, e);
}

/* SLAB's alias (__kmem_cache_alias in mm/slab.c) raises a cache's
 * object_size to the merged cache's size, after the layout was chosen with
 * the size it was created with; slabinfo shows only the stride, the trace
 * bytes_req = object_size as it was at each allocation. So the smallest
 * bytes_req of a cache's allocations bounds its creation size from above,
 * and is that size when the trace began before the merge: a boot-traced
 * capture (fs_cache: 56 bytes for init's and kdevtmpfs' fs_struct, never
 * freed, before a 64-byte cache merged into it). An allocation is the
 * cache's when its call site is one whose freed objects the
 * kmem_cache_free events (6.1: name=) give to that cache alone. A capture
 * with a start state was traced after boot, so it is not read. OUT:
 * min_req[i] for row i of si, 0 when no call site is known to allocate from
 * it. Errors: the trace reader's, SLABSIM_ENOMEM. */
struct site_req {
	uint64_t min_req; /* smallest bytes_req the site asked for */
	int64_t row;	  /* the row its frees name; -1 none yet, -2 several */
};

static int traced_creation_sizes(const struct capture *c, const struct capture_slabinfo *si,
				 uint64_t *min_req, struct err *e)
{
	struct trace_opts to = {.skip_fields = 1u << TRACE_EV_KMALLOC |
					       1u << TRACE_EV_KMALLOC_NODE | 1u << TRACE_EV_KFREE |
					       1u << TRACE_EV_MARKER};
	struct trace_reader *r;
	struct trace_event ev;
	struct strtab sites;
	struct u64map site_of; /* ptr -> site id of its pending kmem_cache_alloc */
	struct site_req *sr = NULL;
	uint32_t cap = 0;
	int rc;
	if ((rc = trace_open(c->trace, &to, &r, e)))
		return rc;
	strtab_init(&sites);
	u64map_init(&site_of);
	while ((rc = trace_next(r, &ev, e)) == 1) {
		uint32_t id;
		uint64_t v;
		if ((ev.type == TRACE_EV_CACHE_ALLOC || ev.type == TRACE_EV_CACHE_ALLOC_NODE) &&
		    ev.ptr && !ev.name && ev.bytes_req) {
			if (strtab_intern(&sites, ev.call_site, &id)) {
				rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
				break;
			}
			if (id >= cap) {
				uint32_t nc = cap ? cap * 2 : 256;
				struct site_req *n = realloc(sr, nc * sizeof(*n));
				if (!n) {
					rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
					break;
				}
				for (uint32_t i = cap; i < nc; i++)
					n[i] = (struct site_req){UINT64_MAX, -1};
				sr = n;
				cap = nc;
			}
			if (ev.bytes_req < sr[id].min_req)
				sr[id].min_req = ev.bytes_req;
			if (u64map_put(&site_of, ev.ptr, id)) {
				rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
				break;
			}
		} else if (ev.type == TRACE_EV_CACHE_FREE && ev.name && ev.ptr && sr &&
			   u64map_del(&site_of, ev.ptr, &v)) {
			const struct capture_slabinfo_row *row = capture_slabinfo_find(si, ev.name);
			int64_t ri = row ? row - si->rows : -2;
			struct site_req *q = &sr[v];
			q->row = q->row == -1 || q->row == ri ? ri : -2;
		}
	}
	for (uint32_t i = 0; rc >= 0 && sr && i < sites.n; i++)
		if (sr[i].row >= 0 && (!min_req[sr[i].row] || sr[i].min_req < min_req[sr[i].row]))
			min_req[sr[i].row] = sr[i].min_req;
	free(sr);
	u64map_fini(&site_of);
	strtab_fini(&sites);
	trace_close(r);
	return rc < 0 ? rc : 0;
}

/* Define the caches the capture's slabinfo files name, from slab-attrs.tsv
 * (or, without it, from the slot size, the source's creation facts and the
 * trace's creation sizes), and start them from the start snapshot when
 * there is one. */
int val_capture_caches(struct sim *s, const struct capture *c, struct err *e)
{
	const struct capture_slabinfo *lists[2] = {&c->start, &c->end};
	uint64_t *traced = NULL;
	int rc = 0;
	if (c->has_attrs && c->has_end && (rc = name_unnamed(s, c, e)))
		return rc;
	if (sim_policy(s)->ops->truth == POLICY_TRUTH_SLABINFO && !c->has_attrs && !c->has_start &&
	    c->has_end && c->trace) {
		if (!(traced = calloc(c->end.n ? c->end.n : 1, sizeof(*traced))))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		if ((rc = traced_creation_sizes(c, &c->end, traced, e)))
			goto out;
	}
	for (int l = 0; l < 2; l++) {
		for (uint32_t i = 0; i < lists[l]->n; i++) {
			const struct capture_slabinfo_row *row = &lists[l]->rows[i];
			uint32_t id;
			if (sim_find_cache(s, row->name, &id))
				continue;
			if ((rc = define_cache(s, c, row, traced && l == 1 ? traced[i] : 0, e)))
				goto out;
		}
	}
out:
	free(traced);
	return rc;
}

/* ---- the start state slab by slab (slab-attrs-start.tsv) ----
 *
 * What 6.1's /sys/kernel/slab/<cache>/ tells of a SLUB cache at the start
 * (mm/slub.c, show_slab_objects and slabs_cpu_partial_show):
 *   slabs            every slab (= slabinfo's num_slabs);
 *   partial          slabs on the node partial list;
 *   objects_partial  objects in use on those (count_partial, count_inuse);
 *   cpu_slabs        CPU slabs (c->slab, full or not) + per-CPU partial
 *                    slabs, summed over the CPUs;
 *   slabs_cpu_partial  per CPU, the slabs on its partial stack.
 * So the node partial slabs and their free slots are known exactly, the
 * number of CPU slabs is cpu_slabs - Σ per-CPU partial slabs, and every
 * other slab is full. Not known, and estimated here:
 *   - which CPUs have a CPU slab when fewer than all do: those whose
 *     first allocation in the trace found free slots in a start slab
 *     (start_walks), then the lowest CPU ids (a CPU without one has not
 *     allocated from the cache since its slab was flushed);
 *   - the free slots of a CPU slab and of a per-CPU partial slab (all
 *     counted active by slabinfo): what the trace's raw addresses show
 *     (start_walks below), else half a slab, objs_per_slab / 2, the
 *     kernel's own estimate for per-CPU partial slabs (6.1
 *     slabs_cpu_partial_show prints slabs * objs_per_slab / 2), at least
 *     one for a partial slab (a slab with no free slot is never partial);
 *   - how the node partial free slots spread over those slabs: evenly.
 * Live objects are the rest: every slot not estimated free. */

struct start_counts {
	uint64_t slabs, objs, cpu_slabs, cpu_partial, node_partial, full, cpu_free;
	uint64_t cpu_seen; /* CPU-held slabs whose free slots the trace showed */
	uint32_t caches;
	uint32_t est;	  /* START_EST_* bits: columns estimated */
	uint32_t changed; /* caches whose node free slots came from slabinfo (node_free_slots) */
};

/* ---- what the trace's raw addresses show of the CPU-held start slabs ----
 *
 * A CPU allocates first from its CPU slab, then from the slabs on its
 * partial stack (___slab_alloc), and only then from the node list or a new
 * slab. So the real slabs a CPU's allocations of a cache fall in, in trace
 * order (slab = ptr & ~((PAGE_SIZE << order) - 1)), are its CPU slab and
 * per-CPU partial slabs of the start, as long as the attributes say it has
 * them; the slots it allocates there before moving on that no event had
 * touched before (a slot freed first was live at the start) are those
 * slabs' free slots. A slab the CPU moved on from is counted whole. One it
 * used up entirely that looks like a new slab (every slot free) tells
 * nothing: the kernel's CPU slab may have been full. Hashed pointers show
 * nothing; caches the pass cannot name (several roots of one geometry) keep
 * the estimate. */
#define WALK_MAX 8 /* slabs followed per CPU and cache */

struct cpu_walk {
	uint32_t n;		  /* slabs followed so far */
	bool stopped;		  /* WALK_MAX reached */
	uint64_t slab[WALK_MAX];  /* real slab bases, in the order used */
	uint32_t fresh[WALK_MAX]; /* slots first touched by an allocation there */
};

struct start_walks {
	struct u64map at; /* (root << 20 | cpu) -> index + 1 in w */
	struct cpu_walk *w;
	size_t n, cap;
	struct u64map seen; /* raw pointers any event touched */
	struct u64map geom; /* (object_size << 23 | slot) -> root + 1, or 0: several */
	bool any;	    /* the trace had raw pointers */
};

static void walks_fini(struct start_walks *sw)
{
	u64map_fini(&sw->at);
	u64map_fini(&sw->seen);
	u64map_fini(&sw->geom);
	free(sw->w);
}

static bool raw_ptr(uint64_t p)
{
	return p >> 47 == 0x1ffff;
}

/* The cache of a kmalloc the profile routes by call site (buckets.h: a
 * kmem_buckets set's or a random copy's), as the replay's allocation takes
 * it (sim/replay.c site_route, policies/slub.c kmalloc_route_id): the
 * cache named as SLUB names it after kmalloc-N of the size, id the
 * kmalloc-N cache; id itself when the event is not routed or the model
 * has no such cache. Without this, a load_msg kmalloc's slab joined
 * kmalloc-N's walk, and msg_msg-N's CPU slabs were started half free
 * whatever the trace showed. */
static uint32_t walk_routed(const struct sim *s, const struct trace_event *ev,
			    enum policy_kmalloc_type t, uint32_t id)
{
	const struct policy_cfg *cfg = &sim_policy((struct sim *)s)->cfg;
	if (!cfg->slab_buckets && !cfg->random_kmalloc)
		return id;
	uint32_t gfp = ((ev->gfp & TRACE_GFP_ACCOUNT) && !(ev->gfp & TRACE_GFP_ACCOUNT_ONLY)
				? POLICY_ROUTE_GFP_ACCOUNT
				: 0) |
		       (ev->gfp & TRACE_GFP_HARDWALL ? POLICY_ROUTE_GFP_HARDWALL : 0) |
		       (ev->gfp & TRACE_GFP_NOWARN ? POLICY_ROUTE_GFP_NOWARN : 0);
	uint32_t route = policy_route(cfg, policy_route_site(cfg, ev->call_site), gfp, t);
	uint32_t b = POLICY_ROUTE_BUCKETS(route), c = POLICY_ROUTE_RANDOM(route);
	const struct policy_bucket_info *bi = b ? policy_bucket_info(b) : NULL;
	if (!bi && !c)
		return id;
	struct sim_cache_state cs;
	sim_cache_state(s, id, &cs);
	const char *sz = cs.name ? strrchr(cs.name, '-') : NULL;
	char name[96];
	if (!sz)
		return id;
	if (bi)
		(void)snprintf(name, sizeof(name), "%s%s", bi->prefix, sz);
	else
		(void)snprintf(name, sizeof(name), "kmalloc-rnd-%02u%s", c, sz);
	uint32_t rid;
	return sim_find_cache(s, name, &rid) ? rid : id;
}

/* The root cache of an allocation event, as the replay would find it
 * without the name pass: kmalloc by size, type and route, kmem_cache_alloc
 * by the name it prints (6.18's name= field), else by a geometry one root
 * has. (Without the name, a cache sharing its geometry with another root,
 * such as names_cache and biovec-max, 4096 bytes a slot, kept the
 * estimate.) */
static bool walk_root(const struct sim *s, const struct start_walks *sw,
		      const struct trace_event *ev, uint32_t *root)
{
	const struct policy *p = sim_policy((struct sim *)s);
	uint64_t v;
	uint32_t nid;
	if (ev->name &&
	    (ev->type == TRACE_EV_CACHE_ALLOC || ev->type == TRACE_EV_CACHE_ALLOC_NODE) &&
	    sim_find_cache(s, ev->name, &nid)) {
		struct policy_cache_info ci;
		p->ops->cache_info(p, nid, &ci);
		*root = ci.alias_of;
		return true;
	}
	if (ev->type == TRACE_EV_KMALLOC || ev->type == TRACE_EV_KMALLOC_NODE) {
		enum policy_kmalloc_type t =
			(ev->gfp & TRACE_GFP_DMA)	    ? POLICY_KMALLOC_DMA
			: (ev->gfp & TRACE_GFP_RECLAIMABLE) ? POLICY_KMALLOC_RECLAIM
			: (ev->gfp & TRACE_GFP_ACCOUNT)	    ? POLICY_KMALLOC_CGROUP
							    : POLICY_KMALLOC_NORMAL;
		uint32_t id = p->ops->kmalloc_cache(p, ev->bytes_req, t);
		if (id == POLICY_NO_CACHE)
			return false;
		/* a routed kmalloc takes normal kmalloc-N's size class */
		if (p->cfg.slab_buckets || p->cfg.random_kmalloc) {
			uint32_t kid =
				p->ops->kmalloc_cache(p, ev->bytes_req, POLICY_KMALLOC_NORMAL);
			uint32_t rid = kid == POLICY_NO_CACHE ? kid : walk_routed(s, ev, t, kid);
			if (rid != kid)
				id = rid;
		}
		struct policy_cache_info ci;
		p->ops->cache_info(p, id, &ci);
		*root = ci.alias_of;
		return true;
	}
	if (!u64map_get(&sw->geom, (ev->bytes_req << 23) | (ev->bytes_alloc & ((1u << 23) - 1)),
			&v) ||
	    !v)
		return false;
	*root = (uint32_t)(v - 1);
	return true;
}

static int walk_alloc(const struct sim *s, struct start_walks *sw, const struct trace_event *ev)
{
	uint32_t root;
	bool fresh;
	uint64_t *seen = u64map_upsert(&sw->seen, ev->ptr, &fresh), v;
	if (!seen)
		return SLABSIM_ENOMEM;
	*seen = 1;
	fresh = !fresh;
	if (ev->bytes_req == 0 || ev->bytes_req > (1u << 22) || !walk_root(s, sw, ev, &root))
		return 0;
	struct policy_cache_info ci;
	const struct policy *p = sim_policy((struct sim *)s);
	p->ops->cache_info(p, root, &ci);
	uint64_t slab = ev->ptr & ~(((uint64_t)POLICY_PAGE_SIZE << ci.g.order) - 1);
	uint64_t key = (uint64_t)root << 20 | (ev->cpu & 0xfffff);
	struct cpu_walk *w;
	if (u64map_get(&sw->at, key, &v)) {
		w = &sw->w[v - 1];
	} else {
		if (sw->n == sw->cap) {
			size_t nc = sw->cap ? sw->cap * 2 : 256;
			struct cpu_walk *nw = realloc(sw->w, nc * sizeof(*nw));
			if (!nw)
				return SLABSIM_ENOMEM;
			sw->w = nw;
			sw->cap = nc;
		}
		w = &sw->w[sw->n];
		memset(w, 0, sizeof(*w));
		if (u64map_put(&sw->at, key, ++sw->n))
			return SLABSIM_ENOMEM;
	}
	if (w->stopped)
		return 0;
	if (!w->n || w->slab[w->n - 1] != slab) {
		if (w->n == WALK_MAX) {
			w->stopped = true;
			return 0;
		}
		w->slab[w->n++] = slab;
	}
	w->fresh[w->n - 1] += fresh;
	return 0;
}

/* The walks' maps, the geometry map filled: (object size, slot) -> root
 * cache, 0 where several roots share it. */
static int walks_read_geom(const struct sim *s, struct start_walks *sw, struct err *e)
{
	u64map_init(&sw->at);
	u64map_init_sparse(&sw->seen);
	u64map_init(&sw->geom);
	uint32_t n = sim_nr_caches(s);
	for (uint32_t id = 0; id < n; id++) {
		struct sim_cache_state cs;
		sim_cache_state(s, id, &cs);
		/* 6.1 traces kmalloc caches' allocations as kmalloc events */
		if (!cs.root || cs.kmalloc)
			continue;
		uint64_t key = ((uint64_t)cs.object_size << 23) | cs.slot_size, v;
		bool found = u64map_get(&sw->geom, key, &v);
		if (u64map_put(&sw->geom, key, found ? 0 : (uint64_t)id + 1))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	return 0;
}

/* Read the capture's trace once, handing every allocation and free of a
 * raw pointer to fn (free_: a free); fn returns nonzero when out of memory. */
static int read_raw_events(const struct capture *c,
			   int (*fn)(void *ctx, const struct trace_event *ev, bool free_),
			   void *ctx, struct err *e)
{
	struct trace_opts to = {.strict = false};
	struct trace_reader *r;
	struct trace_event ev;
	int rc = trace_open(c->trace, &to, &r, e);
	if (rc)
		return rc;
	while ((rc = trace_next(r, &ev, e)) == 1) {
		bool alloc = ev.type == TRACE_EV_KMALLOC || ev.type == TRACE_EV_KMALLOC_NODE ||
			     ev.type == TRACE_EV_CACHE_ALLOC ||
			     ev.type == TRACE_EV_CACHE_ALLOC_NODE;
		bool free_ = ev.type == TRACE_EV_KFREE || ev.type == TRACE_EV_CACHE_FREE;
		if ((!alloc && !free_) || !raw_ptr(ev.ptr))
			continue;
		if (fn(ctx, &ev, free_)) {
			rc = err_set(e, SLABSIM_ENOMEM, "out of memory");
			break;
		}
	}
	trace_close(r);
	return rc < 0 ? rc : 0;
}

struct walks_ctx {
	const struct sim *s;
	struct start_walks *sw;
};

static int walks_event(void *ctx, const struct trace_event *ev, bool free_)
{
	struct walks_ctx *x = ctx;
	x->sw->any = true;
	return free_ ? u64map_put(&x->sw->seen, ev->ptr, 1) : walk_alloc(x->s, x->sw, ev);
}

/* Read the capture's trace once for the walks (raw pointers only). */
static int walks_read(const struct sim *s, const struct capture *c, struct start_walks *sw,
		      struct err *e)
{
	int rc = walks_read_geom(s, sw, e);
	struct walks_ctx x = {s, sw};
	return rc ? rc : read_raw_events(c, walks_event, &x, e);
}

/* The free slots the trace showed in the j-th slab CPU cpu allocated from
 * in root cache root (objs_per_slab o), or -1 when it shows nothing. A slab
 * whose every slot the CPU allocated fresh had all o free: it is the start
 * slab the CPU held (its CPU slab, or the next slab of its partial stack),
 * entirely free, not a new slab after a full one. A per-CPU partial slab
 * always has a free object (6.18 ___slab_alloc takes it with
 * get_freelist under VM_BUG_ON(!freelist); put_cpu_partial runs on a free,
 * get_partial_node takes slabs with free objects) and a frozen slab is
 * allocated from only as c->slab, so a CPU uses up its stack, in order,
 * before any new slab: an all-free slab there is that stack slab, emptied
 * by frees. The CPU slab could instead have been full with a new slab
 * next, but that assumes o live objects the trace never shows: the
 * freed-out CPU slab is what a cache idle since its objects were freed
 * holds (msg_msg-N after SysV messages: every CPU-held slab empty). */
static int64_t walk_free(const struct start_walks *sw, uint32_t root, uint32_t cpu, uint32_t j,
			 uint32_t o)
{
	uint64_t v;
	if (!sw || !u64map_get(&sw->at, (uint64_t)root << 20 | cpu, &v))
		return -1;
	const struct cpu_walk *w = &sw->w[v - 1];
	if (j >= w->n)
		return -1;
	return w->fresh[j] < o ? w->fresh[j] : o;
}

/* The start state of a SLUB_TINY kernel, from the trace's addresses.
 *
 * Such a kernel has no SLUB_DEBUG (6.2+: SLUB_DEBUG depends on
 * !SLUB_TINY), so neither /proc/slabinfo nor /sys/kernel/slab: the capture
 * holds only meminfo's Slab:, a total. Started empty, the model put the
 * trace's first objects of every cache on new slabs where the kernel filled
 * the free slots of the slabs it held, and kept up to min_partial emptied
 * slabs per cache where the kernel, whose partial lists held its start
 * slabs too, gave them back (6.12 __slab_free: an empty slab is discarded
 * once the node holds min_partial partial slabs): +53 pages four seconds
 * into a 6.12 capture, +131 at its end.
 *
 * Raw pointers show the slabs the trace touches that existed before it:
 * the slab of a pointer freed before the trace allocated it, and a slab
 * whose first allocation is not at its first slot. SLUB_TINY has no
 * SLAB_FREELIST_RANDOM (it depends on !SLUB_TINY), so a new slab's
 * freelist runs in address order (6.12 allocate_slab, no shuffle) and its
 * first object is slot 0. Of such a slab the slots the trace first
 * allocates were free at the start, those it first frees were live, and
 * those it never touches are counted live: nothing shows them free, and a
 * slab SLUB_TINY allocated from keeps its free slots in use
 * (get_partial_node takes the first partial slab with a free object).
 * Those slabs start on the node partial list (full when no slot was free)
 * in the order the trace first touches them, bound to their real slabs
 * (sim_start_slab_at), and what meminfo-start.txt held beyond them stays
 * untracked. A slab first touched at slot 0 by an allocation is taken as
 * new; a kfree whose slab no allocation or named free places in a cache
 * tells nothing. */
struct tiny_ptr {
	uint64_t ptr;
	uint64_t key;  /* an unnamed kmem_cache_alloc's (site, bytes_req, bytes_alloc) + 1 */
	uint32_t name; /* a named free's name (tiny_walk.names id + 1) */
	uint32_t root; /* UINT32_MAX: not known (yet) */
	uint32_t slot; /* bytes_alloc of its allocations, 0 before one */
	bool freed;    /* first event a free: live at the start */
	bool refreed;  /* freed again with no allocation between */
};

struct tiny_walk {
	struct u64map seen;	 /* raw pointers: (index in p + 1) << 1 | last event a free */
	struct u64map learned;	 /* tiny_ptr.key -> name id + 1: the name its free gave */
	struct u64map slab_root; /* slab base | order -> root + 1 */
	struct strtab sites, names;
	struct tiny_ptr *p; /* first event of each pointer, in trace order */
	size_t n, cap;
};

static void tiny_fini(struct tiny_walk *tw)
{
	u64map_fini(&tw->seen);
	u64map_fini(&tw->learned);
	u64map_fini(&tw->slab_root);
	strtab_fini(&tw->sites);
	strtab_fini(&tw->names);
	free(tw->p);
}

static uint64_t slab_mask(const struct policy *p, uint32_t root, uint32_t *order)
{
	struct policy_cache_info ci;
	p->ops->cache_info((struct policy *)p, root, &ci);
	*order = ci.g.order;
	return ((uint64_t)POLICY_PAGE_SIZE << ci.g.order) - 1;
}

static uint32_t root_of_id(const struct sim *s, uint32_t id)
{
	struct policy_cache_info ci;
	sim_policy((struct sim *)s)->ops->cache_info(sim_policy((struct sim *)s), id, &ci);
	return (uint32_t)ci.alias_of;
}

/* One event of the walk: the pointer's first event kept, with what names
 * its cache; a named free teaches the name of the unnamed allocation of
 * the same pointer (the name pass's rule, sim_learn_names, done here
 * because the start is made before that pass). */
static int tiny_event(const struct sim *s, const struct start_walks *sw, struct tiny_walk *tw,
		      const struct trace_event *ev, bool free_)
{
	uint32_t root = UINT32_MAX, id, nid = 0, sid;
	uint64_t key = 0;
	if (!free_ && ev->bytes_req && ev->bytes_req < (1u << 22) && ev->bytes_alloc < (1u << 22)) {
		bool unnamed = !ev->name && (ev->type == TRACE_EV_CACHE_ALLOC ||
					     ev->type == TRACE_EV_CACHE_ALLOC_NODE);
		if (unnamed && ev->call_site) {
			if (strtab_intern(&tw->sites, ev->call_site, &sid))
				return SLABSIM_ENOMEM;
			key = ((uint64_t)sid << 46 | (uint64_t)ev->bytes_req << 23 |
			       ev->bytes_alloc) +
			      1;
		} else if (!walk_root(s, sw, ev, &root)) {
			root = UINT32_MAX;
		}
	} else if (free_ && ev->name) {
		if (strtab_intern(&tw->names, ev->name, &nid))
			return SLABSIM_ENOMEM;
		nid++;
	}
	bool seen;
	uint64_t *v = u64map_upsert(&tw->seen, ev->ptr, &seen);
	if (!v)
		return SLABSIM_ENOMEM;
	struct tiny_ptr *q = seen ? &tw->p[(*v >> 1) - 1] : NULL;
	/* an address a slab of another slot size had before: the page went
	 * back to the page allocator and came again as another cache's slab,
	 * whose first event there this is */
	if (q && !free_ && q->slot && q->slot != ev->bytes_alloc)
		seen = false;
	if (seen) {
		if (free_ && (*v & 1))
			q->refreed = true;
		bool f;
		uint64_t *lv;
		if (free_ && nid && q->key && !q->freed) {
			if (!(lv = u64map_upsert(&tw->learned, q->key, &f)))
				return SLABSIM_ENOMEM;
			if (!f)
				*lv = nid;
		}
		if (!free_ && !q->slot)
			q->slot = (uint32_t)ev->bytes_alloc;
		*v = (*v & ~(uint64_t)1) | free_;
		return 0;
	}
	*v = (uint64_t)(tw->n + 1) << 1 | free_;
	struct tiny_ptr *np = grow_room(tw->p, &tw->cap, tw->n, sizeof(*np), 1024);
	if (!np)
		return SLABSIM_ENOMEM;
	tw->p = np;
	if (nid && sim_find_cache(s, ev->name, &id))
		root = root_of_id(s, id);
	tw->p[tw->n++] = (struct tiny_ptr){.ptr = ev->ptr,
					   .key = key,
					   .name = nid,
					   .root = root,
					   .slot = free_ ? 0 : (uint32_t)ev->bytes_alloc,
					   .freed = free_};
	return 0;
}

struct tiny_ctx {
	const struct sim *s;
	const struct start_walks *sw;
	struct tiny_walk *tw;
};

static int tiny_on_event(void *ctx, const struct trace_event *ev, bool free_)
{
	struct tiny_ctx *x = ctx;
	return tiny_event(x->s, x->sw, x->tw, ev, free_);
}

/* The cache of an unnamed allocation whose free named it, made as the
 * replay makes it (sim/replay.c cache_for_slow: the learned name, a
 * cache of the trace's sizes, never merged) so the replay finds it. */
static int tiny_learned_root(struct sim *s, struct tiny_walk *tw, const struct tiny_ptr *q,
			     uint32_t *root, struct err *e)
{
	uint64_t v, k = q->key - 1;
	*root = UINT32_MAX;
	if (!u64map_get(&tw->learned, q->key, &v))
		return 0;
	const char *name = strtab_str(&tw->names, (uint32_t)(v - 1));
	uint32_t id, osz = (uint32_t)(k >> 23 & ((1u << 23) - 1)),
		     slot = (uint32_t)(k & ((1u << 23) - 1));
	if (!sim_find_cache(s, name, &id)) {
		struct policy_cache_spec spec = {.name = name, .no_merge = true};
		if (!policy_guess_spec(&sim_policy(s)->cfg, osz, slot, &spec))
			return 0;
		int rc = sim_ensure_cache(s, &spec, &id, e);
		if (rc)
			return rc == SLABSIM_EUSAGE ? 0 : rc;
	}
	*root = root_of_id(s, id);
	return 0;
}

/* Every pointer's root: allocations by their learned names, named frees by
 * theirs, then a kfree by the cache its slab was placed in. */
static int tiny_roots(struct sim *s, struct tiny_walk *tw, struct err *e)
{
	const struct policy *p = sim_policy(s);
	uint32_t id, order;
	for (size_t i = 0; i < tw->n; i++) {
		struct tiny_ptr *q = &tw->p[i];
		int rc = 0;
		if (q->root == UINT32_MAX && q->key)
			rc = tiny_learned_root(s, tw, q, &q->root, e);
		else if (q->root == UINT32_MAX && q->name &&
			 sim_find_cache(s, strtab_str(&tw->names, q->name - 1), &id))
			q->root = root_of_id(s, id);
		if (rc)
			return rc;
		if (q->root == UINT32_MAX)
			continue;
		bool f;
		uint64_t mask = slab_mask(p, q->root, &order);
		uint64_t *v = u64map_upsert(&tw->slab_root, (q->ptr & ~mask) | order, &f);
		if (!v)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		if (!f)
			*v = (uint64_t)q->root + 1;
	}
	for (size_t i = 0; i < tw->n; i++) {
		struct tiny_ptr *q = &tw->p[i];
		if (q->root != UINT32_MAX || !q->freed)
			continue;
		for (uint32_t o = 0; o <= 3 && q->root == UINT32_MAX; o++) {
			uint64_t v, mask = ((uint64_t)POLICY_PAGE_SIZE << o) - 1;
			if (u64map_get(&tw->slab_root, (q->ptr & ~mask) | o, &v) &&
			    (slab_mask(p, (uint32_t)(v - 1), &order), order == o))
				q->root = (uint32_t)(v - 1);
		}
	}
	return 0;
}

/* A start slab of the walk: its real base and root, its slots first freed
 * and first allocated, and whether it existed before the trace. */
struct tiny_slab {
	uint64_t base;
	uint32_t root, freed, allocated;
	bool pre;
};

/* The walk's slabs, in the order the trace first touches them. */
static int tiny_slabs(const struct sim *s, const struct tiny_walk *tw, struct tiny_slab **out,
		      size_t *nout)
{
	const struct policy *p = sim_policy((struct sim *)s);
	/* a cache whose trace frees a pointer twice with no allocation
	 * between allocates without events (maple_node's bulk allocations,
	 * kmem_cache_alloc_bulk): its slabs can appear, and its pointers be
	 * freed first, with nothing before the trace */
	uint32_t ncache = sim_nr_caches(s), root, order;
	bool *untraced = calloc(ncache ? ncache : 1, sizeof(*untraced));
	if (!untraced)
		return SLABSIM_ENOMEM;
	for (size_t i = 0; i < tw->n; i++)
		if (tw->p[i].refreed && tw->p[i].root < ncache)
			untraced[tw->p[i].root] = true;
	struct u64map at;
	u64map_init(&at);
	struct tiny_slab *v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (size_t i = 0; !rc && i < tw->n; i++) {
		const struct tiny_ptr *q = &tw->p[i];
		root = q->root;
		if (root >= ncache || untraced[root])
			continue;
		struct policy_cache_info ci;
		p->ops->cache_info((struct policy *)p, root, &ci);
		uint64_t mask = slab_mask(p, root, &order), base = q->ptr & ~mask;
		if (!ci.g.size || (q->ptr & mask) < ci.g.red_left_pad)
			continue;
		uint64_t slot = ((q->ptr & mask) - ci.g.red_left_pad) / ci.g.size, x;
		bool f;
		uint64_t *ref = u64map_upsert(&at, base | root, &f);
		if (!ref) {
			rc = SLABSIM_ENOMEM;
			break;
		}
		if (!f) {
			struct tiny_slab *nv = grow_room(v, &cap, n, sizeof(*nv), 256);
			if (!nv) {
				rc = SLABSIM_ENOMEM;
				break;
			}
			v = nv;
			v[n] = (struct tiny_slab){
				.base = base, .root = root, .pre = q->freed || slot != 0};
			*ref = ++n;
		}
		x = *ref;
		struct tiny_slab *ts = &v[x - 1];
		ts->freed += q->freed;
		ts->allocated += !q->freed;
	}
	u64map_fini(&at);
	free(untraced);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* Start the caches of a SLUB_TINY capture from the trace's addresses (see
 * tiny_ptr); OUT: *pages, the slab pages started. */
static int tiny_start(struct sim *s, const struct capture *c, FILE *notes, uint64_t *pages,
		      struct err *e)
{
	struct start_walks sw = {0};
	struct tiny_walk tw = {0};
	u64map_init_sparse(&tw.seen);
	u64map_init(&tw.learned);
	u64map_init(&tw.slab_root);
	strtab_init(&tw.sites);
	strtab_init(&tw.names);
	*pages = 0;
	int rc = walks_read_geom(s, &sw, e);
	if (!rc)
		rc = read_raw_events(c, tiny_on_event, &(struct tiny_ctx){s, &sw, &tw}, e);
	if (!rc)
		rc = tiny_roots(s, &tw, e);
	struct tiny_slab *v = NULL;
	size_t n = 0;
	if (!rc && (rc = tiny_slabs(s, &tw, &v, &n)))
		rc = err_set(e, rc, "out of memory");
	uint64_t slabs = 0, objs = 0, partial = 0;
	const struct policy *p = sim_policy(s);
	for (size_t i = 0; !rc && i < n; i++) {
		if (!v[i].pre)
			continue;
		struct policy_cache_info ci;
		p->ops->cache_info((struct policy *)p, v[i].root, &ci);
		uint32_t o = ci.g.objs_per_slab;
		uint32_t inuse = v[i].allocated < o ? o - v[i].allocated : 0;
		struct policy_start_slab ss = {.where = inuse < o ? POLICY_START_NODE_PARTIAL
								  : POLICY_START_FULL,
					       .inuse = inuse};
		rc = sim_start_slab_at(s, v[i].root, &ss, v[i].base, e);
		slabs++;
		objs += inuse;
		partial += inuse < o;
		*pages += 1u << ci.g.order;
	}
	if (!rc && notes && slabs)
		fprintf(notes,
			"capture: of them from the trace's addresses (SLUB_TINY: slabs the trace "
			"shows held before it): %" PRIu64 " slabs, %" PRIu64 " pages, %" PRIu64
			" objects, %" PRIu64 " partial\n",
			slabs, *pages, objs, partial);
	free(v);
	tiny_fini(&tw);
	walks_fini(&sw);
	return rc;
}

static int start_slabs(struct sim *s, uint32_t id, enum policy_start_where w, uint32_t cpu,
		       uint32_t inuse, uint64_t n, struct start_counts *sc, struct err *e)
{
	struct policy_start_slab ss = {.where = w, .cpu = cpu, .inuse = inuse};
	for (uint64_t i = 0; i < n; i++) {
		int rc = sim_start_slab(s, id, &ss, e);
		if (rc)
			return rc;
	}
	sc->slabs += n;
	sc->objs += n * inuse;
	return 0;
}

/* Columns of slab-attrs-start.tsv an older script or a hand-made sysfs
 * walk may lack, and what stood in for them (start_counts.est): */
enum {
	/* objects_partial: the node-partial free slots are total_objects -
	 * objects of the same row (6.1 show_slab_objects: objects =
	 * total_objects - count_partial(count_free)) */
	START_EST_NODE_FREE_ATTRS = 1u << 0,
	/* ... or num_objs - active_objs of slabinfo-start.txt (get_slabinfo:
	 * active_objs = nr_objs - count_partial(count_free)) */
	START_EST_NODE_FREE_SLABINFO = 1u << 1,
	/* slabs_cpu_partial: cpu_slabs split into a CPU slab on as many CPUs
	 * as it covers and per-CPU partial slabs spread evenly over them */
	START_EST_CPU_PARTIAL = 1u << 2,
};

/* The start of one root cache as its attributes give it, each missing
 * column estimated (start_plan_of). */
struct start_plan {
	uint32_t o;	      /* objs_per_slab */
	uint64_t ncs;	      /* CPU slabs */
	bool *has;	      /* [cpu]: holds one of them */
	uint64_t *pc;	      /* [cpu]: slabs on its partial stack */
	uint64_t np, np_free; /* node partial slabs, their free slots */
};

static void start_plan_fini(struct start_plan *sp)
{
	free(sp->has);
	free(sp->pc);
}

/* The free slots on the node partial slabs of row ar (slabinfo row row):
 * objects_partial where the capture has it, else what the kernel's other
 * counts imply (START_EST_NODE_FREE_*, into *est).
 *
 * They come from the reading the start's slabs and objects come from.
 * Where that is slabinfo-start.txt, read after the row
 * (slabinfo_after_row), and the cache changed between the two readings (the attribute row's
 * total_objects and objects differ from slabinfo's num_objs and
 * active_objs), the row's node list is stale: slabinfo's free slots are
 * num_objs - active_objs (get_slabinfo counts free only what
 * count_partial finds on the node lists). On a capture of this project's
 * 6.18 machine recorded beside another job's file reading, buffer_head
 * went from 127,352 objects in the walk to 183,876 in slabinfo-start.txt,
 * read after it: the walk's node list would have dropped 56,524 live
 * objects (*changed set). */
static uint64_t node_free_slots(const struct capture_attrs_row *ar,
				const struct capture_slabinfo_row *row, uint32_t o,
				bool slabinfo_later, uint32_t *est, bool *changed)
{
	const int64_t *v = ar->v;
	uint64_t np = (uint64_t)v[CAPTURE_A_PARTIAL];
	*changed = false;
	if (slabinfo_later && v[CAPTURE_A_TOTAL_OBJECTS] >= 0 && v[CAPTURE_A_OBJECTS] >= 0 &&
	    ((uint64_t)v[CAPTURE_A_TOTAL_OBJECTS] != row->num_objs ||
	     (uint64_t)v[CAPTURE_A_OBJECTS] != row->active_objs)) {
		*changed = true;
		return row->num_objs > row->active_objs ? row->num_objs - row->active_objs : 0;
	}
	if (v[CAPTURE_A_OBJECTS_PARTIAL] >= 0)
		return np * o > (uint64_t)v[CAPTURE_A_OBJECTS_PARTIAL]
			       ? np * o - (uint64_t)v[CAPTURE_A_OBJECTS_PARTIAL]
			       : 0;
	/* the same directory's counts, read with partial, before slabinfo's */
	if (v[CAPTURE_A_TOTAL_OBJECTS] >= 0 && v[CAPTURE_A_OBJECTS] >= 0) {
		*est |= START_EST_NODE_FREE_ATTRS;
		return v[CAPTURE_A_TOTAL_OBJECTS] > v[CAPTURE_A_OBJECTS]
			       ? (uint64_t)(v[CAPTURE_A_TOTAL_OBJECTS] - v[CAPTURE_A_OBJECTS])
			       : 0;
	}
	*est |= START_EST_NODE_FREE_SLABINFO;
	return row->num_objs > row->active_objs ? row->num_objs - row->active_objs : 0;
}

/* Which CPUs hold the ncs CPU slabs: those whose first allocation in the
 * trace found free slots in a start slab, then the lowest. A first slab
 * with every slot free is no sign: a CPU without a CPU slab takes a new
 * one, all free, as readily as one with an emptied CPU slab goes on. */
static void pick_cpu_slabs(const struct start_walks *sw, uint32_t root, uint32_t ncpu,
			   struct start_plan *sp)
{
	uint64_t given = 0;
	for (uint32_t c = 0; c < ncpu && given < sp->ncs; c++) {
		int64_t f = walk_free(sw, root, c, 0, sp->o);
		if (f > 0 && f < sp->o && !sp->has[c]) {
			sp->has[c] = true;
			given++;
		}
	}
	for (uint32_t c = 0; c < ncpu && given < sp->ncs; c++)
		if (!sp->has[c]) {
			sp->has[c] = true;
			given++;
		}
}

/* cpu_slabs counts, per CPU with a CPU slab (c->slab), that slab and the
 * slabs on its partial stack (6.1 show_slab_objects, SO_CPU: a CPU without
 * c->slab is skipped whole). Without slabs_cpu_partial the split is
 * estimated: a CPU slab on min(cpu_slabs, CPUs) CPUs, as a cache every CPU
 * allocates from has, and the rest on those CPUs' partial stacks, evenly
 * (lowest CPUs first), at most cpu_partial_slabs each (slub_set_cpu_partial:
 * DIV_ROUND_UP(cpu_partial * 2, objs_per_slab); put_cpu_partial drains a
 * full stack); what exceeds that is counted full. */
static void estimate_cpu_partial(const struct policy *p, const struct policy_cache_info *ci,
				 const struct capture_attrs_row *ar, uint64_t cpu_slabs,
				 struct start_plan *sp)
{
	uint32_t ncpu = p->cfg.nr_cpus;
	uint64_t rest = cpu_slabs - sp->ncs, limit = UINT64_MAX;
	if (p->cfg.kernel >= POLICY_KERNEL_6_1) {
		int64_t cp = ar->v[CAPTURE_A_CPU_PARTIAL];
		limit = cp >= 0 ? ((uint64_t)cp * 2 + sp->o - 1) / sp->o : ci->g.cpu_partial_slabs;
	}
	for (bool more = true; rest && more;) {
		more = false;
		for (uint32_t c = 0; c < ncpu && rest; c++)
			if (sp->has[c] && sp->pc[c] < limit) {
				sp->pc[c]++;
				rest--;
				more = true;
			}
	}
}

/* The plan of root cache id from attribute row ar (slabinfo row row).
 * false when the row cannot say: its geometry differs from the model's, or
 * partial or cpu_slabs is missing. */
static int start_plan_of(struct sim *s, uint32_t id, const struct capture_attrs_row *ar,
			 const struct capture_slabinfo_row *row, bool slabinfo_later,
			 const struct start_walks *sw, struct start_plan *sp, uint32_t *est,
			 bool *changed, bool *ok, struct err *e)
{
	struct sim_cache_state cs;
	sim_cache_state(s, id, &cs);
	const struct policy *p = sim_policy(s);
	struct policy_cache_info ci;
	p->ops->cache_info(p, id, &ci);
	const int64_t *v = ar->v;
	uint32_t o = cs.objs_per_slab, ncpu = p->cfg.nr_cpus;
	*ok = false;
	if (v[CAPTURE_A_OBJS_PER_SLAB] != (int64_t)o || v[CAPTURE_A_PARTIAL] < 0 ||
	    v[CAPTURE_A_CPU_SLABS] < 0 || !o || (uint64_t)(1u << ci.g.order) != cs.pages_per_slab)
		return 0;
	memset(sp, 0, sizeof(*sp));
	sp->o = o;
	sp->pc = calloc(ncpu, sizeof(*sp->pc));
	sp->has = calloc(ncpu, sizeof(*sp->has));
	if (!sp->pc || !sp->has) {
		start_plan_fini(sp);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	bool debug = (ci.g.flags & POLICY_F_DEBUG_MASK) != 0;
	bool pcp = !debug && p->cfg.cpu_partial;
	bool known = ar->cpu_partial_total >= 0;
	uint64_t cpu_slabs = (uint64_t)v[CAPTURE_A_CPU_SLABS], npc = 0;
	/* per-CPU partial slabs, by CPU (a CPU the model does not have folds) */
	for (uint32_t c = 0; pcp && known && c < ar->ncpu_partial; c++) {
		sp->pc[c % ncpu] += ar->cpu_partial_slabs[c];
		npc += ar->cpu_partial_slabs[c];
	}
	sp->ncs = debug ? 0 : cpu_slabs > npc ? cpu_slabs - npc : 0;
	if (sp->ncs > ncpu)
		sp->ncs = ncpu;
	pick_cpu_slabs(sw, (uint32_t)ci.alias_of, ncpu, sp);
	if (pcp && !known) {
		*est |= START_EST_CPU_PARTIAL;
		estimate_cpu_partial(p, &ci, ar, cpu_slabs, sp);
	}
	sp->np = (uint64_t)v[CAPTURE_A_PARTIAL];
	sp->np_free = node_free_slots(ar, row, o, slabinfo_later, est, changed);
	/* a stale node list may have too few slabs for slabinfo's free slots */
	if (*changed && sp->np < (sp->np_free + o - 1) / o)
		sp->np = (sp->np_free + o - 1) / o;
	*ok = true;
	return 0;
}

/* Start the root of cache id (nslabs slabs of the model's geometry) from
 * attribute row ar: CPU slabs, then per-CPU partial stacks, then the node
 * list, then full slabs: the kernel's counts, cut to the slabs slabinfo
 * has. *done false (nothing done) when the row cannot say (start_plan_of). */
static int start_from_attrs(struct sim *s, uint32_t id, uint64_t nslabs,
			    const struct capture_attrs_row *ar,
			    const struct capture_slabinfo_row *row, bool slabinfo_later,
			    const struct start_walks *sw, struct start_counts *sc, bool *done,
			    struct err *e)
{
	struct start_plan sp;
	const struct policy *p = sim_policy(s);
	uint32_t ncpu = p->cfg.nr_cpus, est = 0;
	bool changed = false;
	int rc = start_plan_of(s, id, ar, row, slabinfo_later, sw, &sp, &est, &changed, done, e);
	if (rc || !*done)
		return rc;
	struct policy_cache_info ci;
	p->ops->cache_info(p, id, &ci);
	uint32_t o = sp.o, half = o / 2, half1 = o / 2 ? o / 2 : 1;
	uint32_t root = (uint32_t)ci.alias_of;
	uint64_t left = nslabs;
	for (uint32_t c = 0; !rc && c < ncpu && left; c++) {
		if (!sp.has[c])
			continue;
		int64_t f = walk_free(sw, root, c, 0, o);
		uint32_t fr = f >= 0 ? (uint32_t)f : half;
		rc = start_slabs(s, id, POLICY_START_CPU, c, o - fr, 1, sc, e);
		left--;
		sc->cpu_slabs++;
		sc->cpu_free += fr;
		sc->cpu_seen += f >= 0;
	}
	for (uint32_t c = 0; !rc && c < ncpu && left; c++) {
		uint64_t n = sp.pc[c] < left ? sp.pc[c] : left;
		for (uint64_t j = 0; !rc && j < n; j++) {
			int64_t f = walk_free(sw, root, c, (uint32_t)(j + sp.has[c]), o);
			uint32_t fr = f > 0 ? (uint32_t)f : half1;
			rc = start_slabs(s, id, POLICY_START_CPU_PARTIAL, c, o - fr, 1, sc, e);
			sc->cpu_free += fr;
			sc->cpu_seen += f > 0;
		}
		left -= n;
		sc->cpu_partial += n;
	}
	uint64_t np = sp.np > left ? left : sp.np;
	for (uint64_t i = 0; !rc && i < np; i++) {
		uint64_t f = sp.np_free / np + (i < sp.np_free % np);
		if (f > o)
			f = o;
		bool full = f == 0;
		rc = start_slabs(s, id, full ? POLICY_START_FULL : POLICY_START_NODE_PARTIAL, 0,
				 o - (uint32_t)f, 1, sc, e);
		sc->node_partial += !full;
		sc->full += full;
	}
	left -= np;
	if (!rc)
		rc = start_slabs(s, id, POLICY_START_FULL, 0, o, left, sc, e);
	sc->full += left;
	sc->caches++;
	sc->est |= est;
	sc->changed += changed;
	start_plan_fini(&sp);
	*done = !rc;
	return rc;
}

/* What stood in for the missing start columns of est (START_EST_*), for
 * the notes and the report: "" when nothing was estimated. */
static void start_est_str(uint32_t est, char *buf, size_t n)
{
	size_t at = 0;
	buf[0] = '\0';
	const char *what[3] = {
		est & START_EST_NODE_FREE_ATTRS
			? "objects_partial as partial * objs_per_slab - (total_objects - objects), "
			  "the node-partial free slots of 6.1's objects count"
			: NULL,
		est & START_EST_NODE_FREE_SLABINFO
			? "objects_partial as partial * objs_per_slab - (num_objs - active_objs) "
			  "of slabinfo-start.txt, the node-partial free slots of SLUB's slabinfo"
			: NULL,
		est & START_EST_CPU_PARTIAL
			? "slabs_cpu_partial from cpu_slabs: a CPU slab on min(cpu_slabs, CPUs) "
			  "CPUs, the rest on their partial stacks evenly, at most "
			  "cpu_partial_slabs each"
			: NULL,
	};
	for (int i = 0; i < 3; i++) {
		if (!what[i])
			continue;
		int w = snprintf(buf + at, n - at, "%s%s", at ? "; " : "", what[i]);
		if (w < 0 || (size_t)w >= n - at)
			return;
		at += (size_t)w;
	}
}

static int capture_start(struct sim *s, const struct capture *c, FILE *notes, uint32_t *est,
			 struct err *e);

/* The size of struct kernfs_open_node on 64-bit (6.1 to 6.18: rcu_head,
 * event, poll wait queue, files list, nr_mmapped, nr_to_release), which
 * kernfs_get_open_node kmallocs at a sysfs file's first open and
 * kernfs_unlink_open_file frees with kfree_rcu at its last close. */
#define START_KERNFS_OPEN_NODE 72

/* The root of the kmalloc cache the capture's own sysfs walk fills, or
 * UINT32_MAX: see start_slab_count. */
static uint32_t start_walk_root(const struct sim *s)
{
	const struct policy *p = sim_policy((struct sim *)s);
	uint32_t id = p->ops->kmalloc_cache(p, START_KERNFS_OPEN_NODE, POLICY_KMALLOC_NORMAL);
	if (id == POLICY_NO_CACHE)
		return UINT32_MAX;
	struct policy_cache_info ci;
	p->ops->cache_info(p, id, &ci);
	return (uint32_t)ci.alias_of;
}

/* Whether the start counts (slabs and objects) of root cache root come
 * from its attribute row ar rather than slabinfo-start.txt.
 *
 * record reads slabinfo-start.txt, then walks /sys/kernel/slab into
 * slab-attrs-start.tsv, then enables the events (the walk takes a second or
 * more on a busy machine): where the two differ, the kernel changed the
 * cache in between with no event to show it (e.g. another tool making a
 * tracefs instance: 2,297 trace_event_file objects on this project's 6.18
 * machine), and the later reading is the state the trace starts from. Its
 * partial, cpu_slabs and objects_partial are taken from that reading
 * already (start_from_attrs); its slabs and objects count with them. Of an
 * alias, the row read last (attrs_latest). An older walk without slabs or
 * objects keeps slabinfo's.
 *
 * Except the cache the walk fills itself: it opens every file, and kernfs
 * frees each file's kernfs_open_node with kfree_rcu, which frees in
 * batches through kfree_bulk (kmem_cache_free_bulk), which emits no event.
 * Hundreds of those are still waiting for their grace period when the walk
 * reads kmalloc-96 (on the bundled 6.1 2-CPU capture 569 objects, 9 slabs
 * more than slabinfo-start.txt), and go untraced within seconds: that
 * cache's earlier reading holds fewer of them.
 *
 * Except a capture whose caches with sheaves were shrunk (c->start_shrunk:
 * record's start_shrink): record then reads those caches' rows of the walk
 * again and slabinfo-start.txt once more, last, just before it enables the
 * events, and slabinfo-start.txt is the later reading of every cache. The
 * sheaves the shrink handed to call_rcu come back a grace period later and
 * empty more slabs (h-swing's maple_node: 31 slabs in its row read again,
 * 28 in slabinfo-start.txt read after it; the trace, which begins after
 * that, touches 26 of those start slabs and slabinfo.txt's end shows 2
 * it never touched). */
static bool start_from_later(const struct capture *c, const struct capture_attrs_row *ar,
			     uint32_t root, uint32_t walk_root)
{
	return ar && !c->start_shrunk && root != walk_root && ar->v[CAPTURE_A_SLABS] >= 0 &&
	       ar->v[CAPTURE_A_OBJECTS] >= 0;
}

/* Whether slabinfo-start.txt was read after attribute row ar of root cache
 * root, with nothing read between them that stands for it: in a capture
 * whose caches with sheaves were shrunk, every row of the walk but those
 * caches', which record reads again after the shrink (their differences
 * are the grace period's, see start_from_later), and but the walk's own
 * cache, which keeps slabinfo's counts for the reason given there.
 * node_free_slots then takes a changed cache's free slots from slabinfo. */
static bool slabinfo_after_row(const struct capture *c, const struct capture_attrs_row *ar,
			       uint32_t root, uint32_t walk_root)
{
	return c->start_shrunk && root != walk_root && ar->v[CAPTURE_A_SHEAF_CAPACITY] <= 0;
}

int val_capture_start(struct sim *s, const struct capture *c, FILE *notes, struct err *e)
{
	uint32_t est;
	return capture_start(s, c, notes, &est, e);
}

/* val_capture_start; OUT: *est, the START_EST_* bits of what was estimated. */
static int capture_start(struct sim *s, const struct capture *c, FILE *notes, uint32_t *est,
			 struct err *e)
{
	int rc;
	*est = 0;
	if (!c->has_start)
		return 0;
	uint64_t objs = 0, slabs = 0, live = 0;
	uint32_t skipped = 0;
	struct start_counts sc = {0};
	bool by_slab = c->has_attrs_start && sim_policy(s)->ops->start_slab;
	struct start_walks walks = {0}, *sw = NULL;
	uint32_t walk_root = start_walk_root(s);
	/* no trace to walk ahead (slabsim live: the events are still to
	 * come): the CPU slabs' free slots are estimated */
	if (by_slab && c->trace) {
		if ((rc = walks_read(s, c, &walks, e))) {
			walks_fini(&walks);
			return rc;
		}
		sw = walks.any ? &walks : NULL;
	}
	for (uint32_t i = 0; i < c->start.n; i++) {
		const struct capture_slabinfo_row *row = &c->start.rows[i];
		uint32_t id;
		if (!sim_find_cache(s, row->name, &id)) {
			skipped += row->num_slabs != 0;
			continue;
		}
		struct sim_cache_state cs;
		sim_cache_state(s, id, &cs);
		const struct capture_attrs_row *ar =
			by_slab && cs.root ? attrs_latest(&c->attrs_start, row->name) : NULL;
		bool later = start_from_later(c, ar, id, walk_root);
		uint64_t row_slabs = later ? (uint64_t)ar->v[CAPTURE_A_SLABS] : row->num_slabs;
		if (!row_slabs)
			continue;
		/* the model's geometry decides how many objects fit: never more
		 * than its slabs hold */
		uint64_t nslabs = row_slabs * row->pagesperslab / cs.pages_per_slab;
		if (!nslabs)
			nslabs = 1;
		bool done = false;
		if (ar && (rc = start_from_attrs(s, id, nslabs, ar, row,
						 slabinfo_after_row(c, ar, id, walk_root), sw, &sc,
						 &done, e))) {
			walks_fini(&walks);
			return rc;
		}
		if (done)
			continue;
		/* the same reading as the slab count (start_from_later) */
		uint64_t n = later ? (uint64_t)ar->v[CAPTURE_A_OBJECTS] : row->active_objs;
		/* (a model without slabs of a cache's own, SLOB, has no bound) */
		if (cs.objs_per_slab && n > nslabs * cs.objs_per_slab)
			n = nslabs * cs.objs_per_slab;
		struct policy_start st = {
			.active_objs = n,
			.nr_slabs = nslabs,
			.free_slabs = row->active_slabs < row->num_slabs
					      ? (row->num_slabs - row->active_slabs) *
							row->pagesperslab / cs.pages_per_slab
					      : 0,
			.shared_avail = row->sharedavail,
		};
		uint64_t nlive;
		if ((rc = sim_prepopulate(s, id, &st, &nlive, e))) {
			walks_fini(&walks);
			return rc;
		}
		objs += n;
		live += nlive;
		slabs += nslabs;
	}
	if (by_slab)
		walks_fini(&walks);
	objs += sc.objs;
	live += sc.objs;
	slabs += sc.slabs;
	if (notes) {
		fprintf(notes,
			"capture: start state from slabinfo-start.txt: %" PRIu64
			" objects in %" PRIu64 " slabs%s\n",
			objs, slabs, skipped ? " (caches the model cannot lay out skipped)" : "");
		if (live != objs)
			fprintf(notes,
				"capture: of them %" PRIu64 " live, %" PRIu64
				" free in the allocator's array caches (counted active by its "
				"slabinfo)\n",
				live, objs - live);
	}
	if (notes && sc.caches)
		fprintf(notes,
			"capture: of them from slab-attrs-start.tsv, slab by slab: %u caches, "
			"%" PRIu64 " objects in %" PRIu64 " slabs: %" PRIu64 " CPU slabs, %" PRIu64
			" per-CPU partial, %" PRIu64 " node partial, %" PRIu64 " full; %" PRIu64
			" free slots on CPUs, in %" PRIu64 " of the %" PRIu64
			" CPU-held slabs as the trace's addresses show, half a slab in the "
			"others\n",
			sc.caches, sc.objs, sc.slabs, sc.cpu_slabs, sc.cpu_partial, sc.node_partial,
			sc.full, sc.cpu_free, sc.cpu_seen, sc.cpu_slabs + sc.cpu_partial);
	if (notes && sc.changed)
		fprintf(notes,
			"capture: %u caches changed between slab-attrs-start.tsv and "
			"slabinfo-start.txt, read after it: their node-partial free slots from "
			"slabinfo-start.txt (num_objs - active_objs)\n",
			sc.changed);
	*est = sc.est;
	if (notes && sc.est) {
		char why[512];
		start_est_str(sc.est, why, sizeof(why));
		fprintf(notes, "capture: slab-attrs-start.tsv lacks columns, estimated: %s\n", why);
	}
	if (notes && by_slab &&
	    (!c->attrs_start.has_col[CAPTURE_A_PARTIAL] ||
	     !c->attrs_start.has_col[CAPTURE_A_CPU_SLABS] ||
	     !c->attrs_start.has_col[CAPTURE_A_OBJS_PER_SLAB]))
		fprintf(notes,
			"capture: slab-attrs-start.tsv has no objs_per_slab, partial or cpu_slabs "
			"column: its caches start from slabinfo-start.txt's counts alone\n");
	return 0;
}

static int setup_caches(struct sim *s, const struct capture *c, FILE *notes, uint32_t *est,
			struct err *e)
{
	int rc = val_capture_caches(s, c, e);
	return rc ? rc : capture_start(s, c, notes, est, e);
}

static void layout_check(const struct capture *c, const struct sim *s, struct val_layout_row **out,
			 uint32_t *nout)
{
	*out = calloc(c->attrs.n ? c->attrs.n : 1, sizeof(**out));
	*nout = 0;
	if (!*out)
		return;
	struct policy_cfg cfg = sim_policy((struct sim *)s)->cfg;
	cfg.slub_debug = 0; /* each cache's own debug flags come from its attributes */
	for (uint32_t i = 0; i < c->attrs.n; i++) {
		const struct capture_attrs_row *r = &c->attrs.rows[i];
		if (r->link_target)
			continue; /* an alias: its figures are its root's */
		struct val_layout_row *lr = &(*out)[(*nout)++];
		lr->name = r->name;
		for (int f = 0; f < L_NR; f++)
			lr->real[f] = f < L_FIRST_SYSFS_NR ? r->v[lattr[f]] : -1;
		struct policy_geom g;
		uint32_t id;
		struct policy *p = sim_policy((struct sim *)s);
		struct policy_cache_info ci;
		bool km = false;
		if (sim_find_cache(s, r->name, &id)) {
			p->ops->cache_info(p, id, &ci);
			km = ci.kmalloc;
		}
		if (km) {
			/* the model's own kmalloc cache: its configuration predicts */
			g = ci.g;
		} else {
			struct policy_cache_spec spec;
			struct err e;
			if (!val_attrs_spec(r, &spec)) {
				lr->failed = true;
				(void)snprintf(lr->why, sizeof(lr->why), "no object_size");
				continue;
			}
			if (p->ops->layout(&cfg, &spec, &g, &e)) {
				lr->failed = true;
				(void)snprintf(lr->why, sizeof(lr->why), "%.120s", e.msg);
				continue;
			}
		}
		uint32_t pred[L_NR] = {g.object_size, g.size,	       g.align,
				       g.order,	      g.objs_per_slab, 1u << g.order,
				       g.limit,	      g.batchcount,    g.shared};
		for (int f = 0; f < L_NR; f++) {
			lr->pred[f] = pred[f];
			if (lr->real[f] >= 0 && (int64_t)pred[f] != lr->real[f])
				lr->bad |= 1u << f;
		}
	}
}

/* The slabinfo that shows every cache's layout: the end state, else the
 * start state, else NULL. */
static const struct capture_slabinfo *layout_slabinfo(const struct capture *c)
{
	return c->has_end ? &c->end : c->has_start ? &c->start : NULL;
}

/* SLAB's layout check: every cache of /proc/slabinfo (SLAB lists each
 * cache of slab_caches, kmalloc caches included, merged ones under their
 * root's name) against the model's cache of that name after the run: objsize
 * (the stride), objperslab, pagesperslab and the enable_cpucache tunables.
 * A cache the model does not hold is laid out from its objsize alone. */
static void layout_check_slabinfo(const struct capture *c, const struct sim *s,
				  struct val_layout_row **out, uint32_t *nout)
{
	const struct capture_slabinfo *si = layout_slabinfo(c);
	*nout = 0;
	if (!si || !(*out = calloc(si->n ? si->n : 1, sizeof(**out))))
		return;
	struct policy *p = sim_policy((struct sim *)s);
	for (uint32_t i = 0; i < si->n; i++) {
		const struct capture_slabinfo_row *r = &si->rows[i];
		struct val_layout_row *lr = &(*out)[(*nout)++];
		lr->name = r->name;
		int64_t real[L_NR] = {-1,	r->objsize,    -1,
				      -1,	r->objperslab, r->pagesperslab,
				      r->limit, r->batchcount, r->sharedfactor};
		memcpy(lr->real, real, sizeof(real));
		struct policy_geom g;
		uint32_t id;
		if (sim_find_cache(s, r->name, &id)) {
			struct policy_cache_info ci;
			p->ops->cache_info(p, id, &ci);
			g = ci.g;
		} else {
			struct policy_cache_spec spec = {.name = r->name,
							 .object_size = r->objsize,
							 .align = 8,
							 .no_merge = true};
			slabinfo_creation_facts(p, r->name, &spec);
			struct err e;
			if (!p->ops->layout || p->ops->layout(&p->cfg, &spec, &g, &e)) {
				lr->failed = true;
				(void)snprintf(lr->why, sizeof(lr->why), "%.120s",
					       p->ops->layout ? e.msg : "no layout");
				continue;
			}
		}
		uint32_t pred[L_NR] = {g.object_size, g.size,	       g.align,
				       g.order,	      g.objs_per_slab, 1u << g.order,
				       g.limit,	      g.batchcount,    g.shared};
		for (int f = 0; f < L_NR; f++) {
			lr->pred[f] = pred[f];
			if (lr->real[f] >= 0 && (int64_t)pred[f] != lr->real[f])
				lr->bad |= 1u << f;
		}
	}
}

/* One validation pass: its options, the capture and where snapshots go. */
struct vpass {
	const struct val_opts *o;
	struct capture *c;
	struct vctx *v, *v0; /* this pass's snapshots; the unanchored pass's, or NULL */
	bool notes;
	struct val_state *st; /* where the comparison goes (NULL: not compared) */
};

static int vpass_setup(void *ctx, struct sim *s, struct err *e)
{
	struct vpass *p = ctx;
	FILE *notes = p->notes ? p->o->notes : NULL;
	if (p->c->has_lost)
		sim_set_capture_lost(s, p->c->lost_events);
	int rc = setup_caches(s, p->c, notes, &p->v->start_est, e);
	const struct policy *pol = sim_policy(s);
	/* meminfo-start.txt's pages, less the slabs the trace shows */
	if (rc || !p->v->meminfo || p->v->base_pages <= 0 || !pol->cfg.slub_tiny ||
	    !pol->ops->start_slab || !p->c->trace)
		return rc;
	uint64_t pages;
	if ((rc = tiny_start(s, p->c, notes, &pages, e)))
		return rc;
	p->v->tiny_pages = pages < (uint64_t)p->v->base_pages ? (int64_t)pages : p->v->base_pages;
	p->v->base_pages -= p->v->tiny_pages;
	return 0;
}

static int val_finish(void *ctx, struct run *r, struct rec *rec, struct err *e);

/* Build the model of o for c, name its caches, start it (slabinfo-start.txt)
 * and replay the trace through the run layer, comparing at every SNAP
 * marker into p->v. With rec, the run is recorded, the comparison (printed
 * and written by val_finish) in it. OUT: *out, the run. */
static int replay_pass(struct vpass *p, struct rec *rec, struct run **out, struct err *e)
{
	char extra[400], why[160] = "";
	const struct policy_ops *cap = val_capture_allocator(p->c, why, sizeof(why));
	/* which allocator the capture's kernel had, and what said so; not for
	 * a SLUB capture validated as SLUB, whose configuration key stays what
	 * it was before validate chose models */
	size_t n = (size_t)snprintf(extra, sizeof(extra), "\"anchor\":%s,\"seed\":%" PRIu64,
				    p->v->anchor ? "true" : "false", p->o->seed);
	const struct policy_ops *dflt = policy_find(POLICY_DEFAULT_NAME);
	if (cap && n < sizeof(extra) &&
	    (cap != dflt || policy_find(p->o->model.allocator) != dflt)) {
		FILE *f = fmemopen(extra + n, sizeof(extra) - n, "w");
		if (f) {
			fprintf(f, ",\"capture_allocator\":\"%s\",\"capture_allocator_from\":",
				cap->name);
			json_str(f, why);
			fclose(f);
		}
	}
	struct run_opts ro = {
		.command = "validate",
		.model = p->o->model,
		.so = {.progress = p->o->progress,
		       .on_progress = p->o->on_progress,
		       .on_marker = on_snap,
		       .marker_ctx = p->v,
		       .watch_sites = snap_read_sites,
		       .on_watch = on_read_site,
		       .sample_every_events = 1000,
		       .sample_caches = false,
		       .seed = p->o->seed},
		.sample_spec = "1000ev",
		.config_extra = extra,
		.setup = vpass_setup,
		.finish = rec ? val_finish : NULL,
		.ctx = p,
		.rec = rec,
	};
	struct run_input in = {.kind = RUN_TRACE, .path = p->c->trace};
	return run_exec(&ro, &in, out, e);
}

int val_run(const struct val_opts *o, struct capture *c, const struct val_report **out,
	    struct err *e)
{
	*out = NULL;
	struct vctx v0 = {.c = c,
			  .exclude = o->exclude,
			  .nexclude = o->nexclude,
			  .read = {.single_cpu = -1, .open_cpu = -1, .at_marker = o->at_marker}};
	if (policy_find(o->model.allocator)->truth == POLICY_TRUTH_NONE)
		return err_set(e, SLABSIM_EUSAGE,
			       "validate compares with a kernel's allocator: %s models none (use "
			       "--allocator slub, slab or slob)",
			       o->model.allocator);
	bool meminfo = policy_find(o->model.allocator)->truth == POLICY_TRUTH_MEMINFO;
	/* SLUB without SLUB_DEBUG (CONFIG_SLUB_TINY, 6.2+: SLUB_DEBUG depends
	 * on !SLUB_TINY) has neither /proc/slabinfo nor /sys/kernel/slab: as
	 * under SLOB, /proc/meminfo's Slab: is then the only ground truth */
	if (!meminfo && !c->has_end && !c->has_start && !c->nsnapshots && !c->has_attrs &&
	    !c->attrs_missing[0] && (c->has_meminfo_end || c->nmeminfo))
		meminfo = true;
	if (meminfo && !c->has_meminfo_end && !c->nmeminfo)
		return err_at(
			e, SLABSIM_ENODATA, c->dir, 0,
			"nothing to compare: the kernel's allocator shows only /proc/meminfo's "
			"Slab:, and the capture has no meminfo.txt (end state) nor "
			"snapshots/*.meminfo (over time)");
	if (!meminfo && !c->has_end && !c->nsnapshots && !c->has_attrs)
		return err_at(e, SLABSIM_ENODATA, c->dir, 0,
			      "nothing to compare: the capture has no slabinfo.txt (end state), no "
			      "snapshots/*.slabinfo (over time) and %s (layout)",
			      c->attrs_missing[0] ? "a slab-attrs.tsv without the columns that lay "
						    "out a cache"
						  : "no slab-attrs.tsv");
	/* allocated after the checks above, which return without freeing */
	struct val_state *st = calloc(1, sizeof(*st));
	if (!st)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	st->v = v0;
	struct vctx *v = &st->v;
	struct vpass p = {.o = o, .c = c, .v = v, .v0 = &v0, .notes = true, .st = st};
	struct vpass p0 = {.o = o, .c = c, .v = &v0};
	struct run *r = NULL;
	struct rec *rec = NULL;
	int rc;
	v->meminfo = v0.meminfo = meminfo;
	bool start = meminfo ? c->has_meminfo_start && c->meminfo_start.slab_kb >= 0 : c->has_start;
	if (meminfo && start) {
		v->base_pages = v0.base_pages = meminfo_pages(&c->meminfo_start);
		if (o->notes)
			fprintf(o->notes,
				"capture: start state from meminfo-start.txt: Slab: %" PRId64
				" kB = %" PRId64 " pages, held as pages the model does not track "
				"(the kernel shows no per-cache state); the model adds its own\n",
				c->meminfo_start.slab_kb, v->base_pages);
	}
	/* a boot capture: the first snapshot is the start state (see on_snap);
	 * a first pass without it gives the unanchored series */
	v->anchor = o->anchor && !start && (meminfo ? c->nmeminfo : c->nsnapshots) > 0;
	if (v->anchor) {
		if ((rc = replay_pass(&p0, NULL, &r, e)))
			goto out;
		run_free(r);
		r = NULL;
	}
	if ((o->db && (rc = rec_open(o->db, &rec, e))) || (rc = replay_pass(&p, rec, &r, e)))
		goto out;
	/* without a database the comparison is made here */
	if (!rec)
		rc = val_finish(&p, r, NULL, e);
out:
	run_free(r);
	rec_close(rec);
	vctx_fini(&v0);
	if (st->done)
		*out = &st->rep;
	else
		val_report_free(&st->rep);
	return rc;
}

/* The read window (snap_read) over v's snapshots (validate.h). */
static struct val_read_window read_window_of(const struct vctx *v)
{
	struct val_read_window w = {0};
	for (uint32_t i = 0; i < v->nsnaps; i++) {
		const struct val_snap *r = &v->snaps[i];
		if (!r->read_t_ns)
			continue;
		uint64_t d = r->pred_at_marker > r->pred_pages ? r->pred_at_marker - r->pred_pages
							       : r->pred_pages - r->pred_at_marker;
		w.found++;
		w.mean_pages += (double)d;
		if (!w.max_id || d > w.max_pages) {
			w.max_pages = d;
			w.max_id = r->id;
		}
	}
	if (w.found)
		w.mean_pages /= w.found;
	return w;
}

/* The layout part of val_compare: each cache as the capture's kernel
 * shows it (slab-attrs.tsv, or SLAB's slabinfo) against the model's. */
static void compare_layout(const struct vpass *p, struct sim *s, struct val_report *res)
{
	const struct capture *c = p->c;
	enum policy_truth truth = policy_find(p->o->model.allocator)->truth;
	struct val_layout_row *lay = NULL;
	uint32_t nlay = 0;
	res->lfield = lfield;
	if (truth == POLICY_TRUTH_SLABINFO) {
		res->lfield = lfield_slabinfo;
		if (layout_slabinfo(c)) {
			layout_check_slabinfo(c, s, &lay, &nlay);
			res->layout_from = c->has_end ? "slabinfo.txt" : "slabinfo-start.txt";
		} else {
			res->layout_none = "no slabinfo.txt nor slabinfo-start.txt in the capture";
		}
	} else if (truth == POLICY_TRUTH_MEMINFO) {
		res->layout_none = "the kernel shows no cache of SLOB";
	} else if (c->has_attrs) {
		layout_check(c, s, &lay, &nlay);
		res->layout_from = "slab-attrs.tsv";
	} else if (c->attrs_missing[0]) {
		(void)snprintf(res->layout_why, sizeof(res->layout_why),
			       "slab-attrs.tsv lacks columns that lay out a cache: %s",
			       c->attrs_missing);
		res->layout_none = res->layout_why;
	} else {
		res->layout_none = "no slab-attrs.tsv in the capture";
	}
	res->lay = lay;
	res->nlay = nlay;
}

/* The end-state rows: every cache of slabinfo.txt, then the model's root
 * caches it does not list that hold pages or saw events; sorted by size
 * (cmp_end). */
static int end_rows_now(const struct capture *c, struct sim *s, struct val_end_row **out,
			uint32_t *nout, struct err *e)
{
	uint32_t n = sim_nr_caches(s), nrows = 0;
	struct val_end_row *rows = *out = calloc((size_t)c->end.n + n + 1, sizeof(*rows));
	if (!rows)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < c->end.n; i++) {
		const struct capture_slabinfo_row *r = &c->end.rows[i];
		struct val_end_row *er = &rows[nrows++];
		er->name = r->name;
		er->in_real = true;
		er->real_active = r->active_objs;
		er->real_objs = r->num_objs;
		er->real_slabs = r->num_slabs;
		er->real_pages = r->num_slabs * r->pagesperslab;
		uint32_t id;
		if (sim_find_cache(s, r->name, &id)) {
			sim_cache_state(s, id, &er->m);
			er->in_model = er->m.root;
			if (!er->m.root)
				memset(&er->m, 0, sizeof(er->m));
		}
	}
	for (uint32_t id = 0; id < n; id++) {
		struct sim_cache_state cs;
		sim_cache_state(s, id, &cs);
		if (!cs.root || (!cs.pages && !cs.live_objs && !cs.allocs && !cs.untraced_frees) ||
		    (c->has_end && capture_slabinfo_find(&c->end, cs.name)))
			continue;
		struct val_end_row *er = &rows[nrows++];
		er->name = cs.name;
		er->in_model = true;
		er->m = cs;
	}
	qsort(rows, nrows, sizeof(*rows), cmp_end);
	*nout = nrows;
	return 0;
}

/* The end state's rows: the model at the END read when the capture has
 * one (vctx.end_rows, handed over), else the model now. */
static int end_rows(struct vctx *v, struct sim *s, struct val_report *res, struct err *e)
{
	res->end_read_t_ns = v->end_read_t_ns;
	if (v->end_rows) {
		res->rows = v->end_rows;
		res->nrows = v->end_nrows;
		v->end_rows = NULL;
		return 0;
	}
	return end_rows_now(v->c, s, &res->rows, &res->nrows, e);
}

/* The end state's totals over res->rows and the layout's counts, into
 * res->sum; under SLOB (v->meminfo) meminfo.txt's Slab: against the
 * model's total instead of the rows. */
static void end_summary(const struct vpass *p, struct sim *s, struct val_report *res)
{
	const struct capture *c = p->c;
	struct vrec_summary sum = {
		.capture_dir = c->dir,
		.kernel_release = c->has_uname ? c->release : NULL,
		.start_state = c->has_start,
		.pages_mae_over_swing = -1,
	};
	uint64_t abs_err = 0, real_slabs = 0, pred_slabs = 0;
	res->untraced_refreed = 0;
	for (uint32_t i = 0; i < res->nrows; i++) {
		const struct val_end_row *er = &res->rows[i];
		if (excluded(p->v, er->name))
			continue;
		if (er->in_real)
			sum.caches_compared++;
		sum.real_pages += er->real_pages;
		sum.predicted_pages += er->m.pages;
		sum.real_objs += er->real_objs;
		sum.predicted_objs += er->m.total_objects;
		sum.real_active += er->real_active;
		sum.predicted_active += er->m.active_objs;
		sum.untraced_frees += er->m.untraced_frees;
		res->untraced_refreed += er->m.untraced_refreed;
		real_slabs += er->real_slabs;
		pred_slabs += er->m.slabs;
		abs_err += er->real_pages > er->m.pages ? er->real_pages - er->m.pages
							: er->m.pages - er->real_pages;
	}
	sum.weighted_page_error = sum.real_pages ? (double)abs_err / (double)sum.real_pages : 0;
	sum.unattributed_frees = sim_unattributed_frees(s);
	for (uint32_t i = 0; i < res->nlay; i++) {
		if (excluded(p->v, res->lay[i].name))
			continue;
		sum.layout_compared++;
		if (res->lay[i].bad || res->lay[i].failed)
			sum.layout_mismatched++;
	}
	if (p->v->meminfo) {
		/* SLOB: no cache in the kernel's view, the end state is Slab: of
		 * meminfo.txt against the model's total */
		res->nrows = 0;
		sum.caches_compared = 0;
		sum.real_objs = sum.predicted_objs = sum.real_active = sum.predicted_active = 0;
		real_slabs = pred_slabs = 0;
		int64_t real = c->has_meminfo_end ? meminfo_pages(&c->meminfo_end) : -1;
		sum.real_pages = real < 0 ? 0 : (uint64_t)real;
		sum.predicted_pages = meminfo_pred(p->v, s);
		uint64_t d = sum.real_pages > sum.predicted_pages
				     ? sum.real_pages - sum.predicted_pages
				     : sum.predicted_pages - sum.real_pages;
		sum.weighted_page_error = sum.real_pages ? (double)d / (double)sum.real_pages : 0;
		sum.pages_mae_over_swing = -1;
		sum.start_state = c->has_meminfo_start;
	}
	res->sum = sum;
	res->real_slabs = real_slabs;
	res->pred_slabs = pred_slabs;
}

/* The snapshots part of val_compare: MAE over the scored snapshots (all
 * but an anchor), divided by the real swing over all of them; the
 * unanchored figure over all; snapshot files no marker compared. */
static void compare_snapshots(const struct vpass *p, struct val_report *res)
{
	const struct capture *c = p->c;
	const struct vctx *v = p->v, *v0 = p->v0;
	struct vrec_summary *sum = &res->sum;
	for (uint32_t i = 0; i < v->nsnaps; i++) {
		v->snaps[i].pred_unanchored = v->snaps[i].pred_pages;
		for (uint32_t j = 0; v->anchor && j < v0->nsnaps; j++)
			if (strcmp(v0->snaps[j].id, v->snaps[i].id) == 0)
				v->snaps[i].pred_unanchored = v0->snaps[j].pred_pages;
	}
	sum->snapshots = v->nsnaps;
	uint32_t files_unmatched = 0;
	char **ids = v->meminfo ? c->meminfo_ids : c->snapshot_ids;
	uint32_t nids = v->meminfo ? c->nmeminfo : c->nsnapshots;
	for (uint32_t i = 0; i < nids; i++) {
		bool seen = false;
		for (uint32_t j = 0; j < v->nsnaps && !seen; j++)
			seen = strcmp(v->snaps[j].id, ids[i]) == 0;
		files_unmatched += !seen;
	}
	double mae = 0, mae0 = 0, swing = 0, ratio0 = -1;
	uint32_t scored = 0;
	if (v->nsnaps) {
		uint64_t lo = UINT64_MAX, hi = 0;
		for (uint32_t i = 0; i < v->nsnaps; i++) {
			const struct val_snap *r = &v->snaps[i];
			if (!r->anchor) {
				mae += fabs((double)r->pred_pages - (double)r->real_pages);
				scored++;
			}
			mae0 += fabs((double)r->pred_unanchored - (double)r->real_pages);
			if (r->real_pages < lo)
				lo = r->real_pages;
			if (r->real_pages > hi)
				hi = r->real_pages;
		}
		mae = scored ? mae / scored : 0;
		mae0 /= v->nsnaps;
		swing = (double)(hi - lo);
		if (swing > 0 && scored)
			sum->pages_mae_over_swing = mae / swing;
		if (swing > 0)
			ratio0 = mae0 / swing;
	}
	sum->pages_mae_over_swing_unanchored = ratio0;
	sum->anchor_id = v->anchor && v->nsnaps ? v->snaps[0].id : NULL;
	res->files_unmatched = files_unmatched;
	res->scored = scored;
	res->mae = mae;
	res->mae0 = mae0;
	res->swing = swing;
	res->ratio0 = ratio0;
}

/* Compare the model after the run with the capture: layout, end state,
 * snapshots. OUT: *res (its arrays freed by the caller, also on error). */
static int val_compare(struct vpass *p, struct sim *s, struct val_report *res, struct err *e)
{
	sim_named_counts(s, res->named);
	res->excluded = p->o->exclude;
	res->nexcluded = p->o->nexclude;
	compare_layout(p, s, res);
	int rc = end_rows(p->v, s, res, e);
	if (rc)
		return rc;
	end_summary(p, s, res);
	compare_snapshots(p, res);
	return 0;
}

/* The configuration the run used: the capture's, with what the trace
 * decided where the capture said nothing (run_detect: the profile from the
 * event format without uname.txt, the CPUs from the trace without
 * ncpus.txt), and res->kernel: the release, or where the profile came
 * from. */
static void run_config(const struct vpass *p, struct run *run, struct val_report *res)
{
	const struct capture *c = p->c;
	res->model = p->o->model;
	res->model.cfg = sim_policy(run_sim(run))->cfg;
	const char *name = run_kernel_name(&res->model);
	if (c->has_uname) {
		(void)snprintf(res->kernel, sizeof(res->kernel), "%s (profile %s)", c->release,
			       name);
		return;
	}
	struct run_model d;
	run_model_default(&d);
	const struct trace_stats *st = run_line_stats(run);
	if (st)
		(void)run_detect(&d, st);
	res->kernel_from = p->o->model.given & RUN_GIVEN_KERNEL			    ? "--kernel"
			   : d.kernel_from && d.cfg.kernel == res->model.cfg.kernel ? d.kernel_from
										    : "the default";
	(void)snprintf(res->kernel, sizeof(res->kernel),
		       "unknown: no uname.txt (profile %s from %s)", name, res->kernel_from);
}

/* The comparison into the open run of rec (the validation tables). */
static int val_record(const struct vpass *p, const struct val_report *res, struct rec *rec,
		      struct err *e)
{
	const struct vctx *v = p->v;
	int rc;
	if ((rc = vrec_summary(rec, &res->sum, e)))
		return rc;
	for (uint32_t i = 0; i < res->nlay; i++) {
		struct vrec_layout_row lr = {.cache = res->lay[i].name,
					     .mismatch = res->lay[i].bad || res->lay[i].failed};
		for (int f = 0; f < L_FIRST_SYSFS_NR; f++) {
			lr.pred[f] = res->lay[i].pred[f];
			lr.real[f] = res->lay[i].real[f] < 0 ? 0 : (uint32_t)res->lay[i].real[f];
		}
		if ((rc = vrec_layout(rec, &lr, e)))
			return rc;
	}
	for (uint32_t i = 0; i < res->nrows; i++) {
		const struct val_end_row *er = &res->rows[i];
		struct vrec_cache_row cr = {
			.cache = er->name,
			.in_real = er->in_real,
			.in_model = er->in_model,
			.real_active = er->real_active,
			.real_objs = er->real_objs,
			.real_slabs = er->real_slabs,
			.real_pages = er->real_pages,
			.pred_active = er->m.active_objs,
			.pred_objs = er->m.total_objects,
			.pred_slabs = er->m.slabs,
			.pred_pages = er->m.pages,
			.live_objs = er->m.live_objs,
			.untraced_frees = er->m.untraced_frees,
			.pre_freed = er->m.pre_freed,
		};
		if ((rc = vrec_cache(rec, &cr, e)))
			return rc;
	}
	for (uint32_t i = 0; i < v->nsnaps; i++) {
		struct vrec_snapshot_row sr = {i,
					       v->snaps[i].id,
					       v->snaps[i].t_ns,
					       v->snaps[i].real_pages,
					       v->snaps[i].pred_pages,
					       v->snaps[i].anchor,
					       v->snaps[i].pred_unanchored};
		if ((rc = vrec_snapshot(rec, &sr, e)))
			return rc;
	}
	return 0;
}

/* What the report reads besides the comparison: the run's lost events,
 * the estimated start columns, the snapshots; the names of the caches only
 * the model had are copied (the model is freed before the report is read). */
static int report_fill(const struct vpass *p, struct run *run, struct val_report *r, struct err *e)
{
	struct val_state *st = p->st;
	const struct vctx *v = p->v;
	struct sim_lost lost;
	sim_lost_events(run_sim(run), run_line_stats(run), &lost);
	sim_lost_str(&lost, r->lost_why, sizeof(r->lost_why));
	r->lost_total = lost.total;
	start_est_str(v->start_est, r->start_est, sizeof(r->start_est));
	r->c = p->c;
	r->meminfo = v->meminfo;
	r->base_pages = v->base_pages + v->tiny_pages;
	r->anchor = v->anchor;
	r->anchor_pages = v->anchor_pages;
	r->anchor_objs = v->anchor_objs;
	r->snaps = v->snaps;
	r->nsnaps = v->nsnaps;
	r->snap_markers_missing = v->snap_markers_missing;
	r->window = read_window_of(v);
	if (r->nrows && !(st->names = calloc(r->nrows, sizeof(*st->names))))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < r->nrows; i++) {
		struct val_end_row *er = &r->rows[i];
		if (!er->in_real) {
			char *n = strdup(er->name);
			if (!n)
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			st->names[st->nnames++] = n;
			er->name = n;
		}
		er->m.name = er->name;
	}
	return 0;
}

/* Compare the run's model with the capture into p->st's report and, with
 * rec, write the comparison into the open run. */
static int val_finish(void *ctx, struct run *run, struct rec *rec, struct err *e)
{
	struct vpass *p = ctx;
	struct val_report *r = &p->st->rep;
	run_config(p, run, r);
	int rc = val_compare(p, run_sim(run), r, e);
	if (!rc)
		rc = report_fill(p, run, r, e);
	if (!rc) {
		p->st->done = true;
		if (rec)
			rc = val_record(p, r, rec, e);
	}
	return rc;
}
