/* sheaves.c - per-CPU sheaves and the barn (see sheaves.h).
 *
 * Read in mm/slub.c of the 7.0 series (sheaves for every cache; the stored
 * copy is named in docs/models.md, "Sheaves") and in the 6.18 series that
 * brought them (lore 20250723-slub-percpu-caches-v5): alloc_from_pcs,
 * __pcs_replace_empty_main, free_to_pcs, __pcs_replace_full_main,
 * __pcs_install_empty_sheaf, __kfree_rcu_sheaf, rcu_free_sheaf and the
 * barn_* helpers. Described and re-implemented; one NUMA node, no
 * concurrency, so the kernel's recovery paths for races and migration
 * (lock dropped while a sheaf is allocated or refilled) never run, except
 * where they are the normal path (noted below).
 */
#include "sheaves.h"

#include <stdlib.h>
#include <string.h>

static struct sheaf *sheaf_new(struct sheaves *sh)
{
	struct sheaf *f = calloc(1, sizeof(*f) + sh->capacity * sizeof(struct sheaf_obj));
	if (f)
		sh->nr_sheaves++;
	return f;
}

static void sheaf_free(struct sheaves *sh, struct sheaf *f)
{
	if (f) {
		sh->nr_sheaves--;
		free(f);
	}
}

int sheaves_init(struct sheaves *sh, uint32_t capacity, uint32_t nr_cpus, enum sheaves_rule rule,
		 struct err *e)
{
	memset(sh, 0, sizeof(*sh));
	if (!capacity || !nr_cpus)
		return err_set(e, SLABSIM_EUSAGE, "sheaves need a capacity and CPUs, got %u and %u",
			       capacity, nr_cpus);
	sh->capacity = capacity;
	sh->nr_cpus = nr_cpus;
	sh->max_full = SHEAVES_MAX_FULL;
	sh->max_empty = SHEAVES_MAX_EMPTY;
	sh->rule = rule;
	sh->pcs = calloc(nr_cpus, sizeof(*sh->pcs));
	if (!sh->pcs)
		return err_set(e, SLABSIM_ENOMEM, "out of memory for sheaves");
	for (uint32_t c = 0; c < nr_cpus; c++) {
		if (!(sh->pcs[c].main = sheaf_new(sh))) {
			sheaves_fini(sh);
			return err_set(e, SLABSIM_ENOMEM, "out of memory for sheaves");
		}
	}
	return 0;
}

static void free_list(struct sheaves *sh, struct sheaf *f)
{
	while (f) {
		struct sheaf *n = f->next;
		sheaf_free(sh, f);
		f = n;
	}
}

void sheaves_fini(struct sheaves *sh)
{
	if (!sh)
		return;
	for (uint32_t c = 0; sh->pcs && c < sh->nr_cpus; c++) {
		sheaf_free(sh, sh->pcs[c].main);
		sheaf_free(sh, sh->pcs[c].spare);
		sheaf_free(sh, sh->pcs[c].rcu_free);
	}
	free(sh->pcs);
	free_list(sh, sh->full);
	free_list(sh, sh->empty);
	memset(sh, 0, sizeof(*sh));
}

/* ---- the barn: two LIFO lists (list_add puts at the head,
 * list_first_entry takes the head) ---- */

static void barn_put_empty(struct sheaves *sh, struct sheaf *f)
{
	f->next = sh->empty;
	sh->empty = f;
	sh->nr_empty++;
}

static void barn_put_full(struct sheaves *sh, struct sheaf *f)
{
	f->next = sh->full;
	sh->full = f;
	sh->nr_full++;
}

static struct sheaf *barn_get_empty(struct sheaves *sh)
{
	struct sheaf *f = sh->empty;
	if (f) {
		sh->empty = f->next;
		f->next = NULL;
		sh->nr_empty--;
	}
	return f;
}

static struct sheaf *barn_get_full(struct sheaves *sh)
{
	struct sheaf *f = sh->full;
	if (f) {
		sh->full = f->next;
		f->next = NULL;
		sh->nr_full--;
	}
	return f;
}

/* sheaf_flush_unused: every object back to its slab; the sheaf is empty. */
static void flush_sheaf(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
			struct sheaf *f)
{
	if (!f->size)
		return;
	/* __kmem_cache_free_bulk takes the array from its end
	 * (build_detached_freelist: p[--size]) */
	struct sheaf_obj tmp;
	for (uint32_t i = 0, j = f->size - 1; i < j; i++, j--) {
		tmp = f->objs[i];
		f->objs[i] = f->objs[j];
		f->objs[j] = tmp;
	}
	sh->parked -= f->size;
	sh->flushes++;
	ops->flush(ops->ctx, cpu, f->objs, f->size);
	f->size = 0;
}

/* refill_sheaf: fill f up to capacity from slabs. */
static int refill(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu, struct sheaf *f,
		  struct err *e)
{
	uint32_t n = sh->capacity - f->size;
	if (!n)
		return 0;
	int rc = ops->refill(ops->ctx, cpu, f->objs + f->size, n, e);
	if (rc)
		return rc;
	f->size += n;
	sh->parked += n;
	sh->refills++;
	return 0;
}

/* __pcs_replace_empty_main, for an allocating task that may block: a
 * non-empty spare becomes main; else a full sheaf from the barn replaces
 * main (barn_replace_empty_sheaf: main goes to the barn's empty list, its
 * limit not checked since the count of sheaves does not change); else the
 * spare, or an empty sheaf from the barn, or a new one, is refilled from
 * slabs and becomes main. The emptied main then goes into the barn
 * (6.18) or becomes the spare when there is none (7.0). */
static int replace_empty_main(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
			      struct err *e)
{
	struct sheaves_pcs *p = &sh->pcs[cpu];
	if (p->spare && p->spare->size > 0) {
		struct sheaf *t = p->main;
		p->main = p->spare;
		p->spare = t;
		return 0;
	}
	struct sheaf *full = barn_get_full(sh);
	if (full) {
		sh->barn_get++;
		barn_put_empty(sh, p->main);
		p->main = full;
		return 0;
	}
	struct sheaf *empty = p->spare;
	if (empty)
		p->spare = NULL;
	else
		empty = barn_get_empty(sh);
	if (!empty && !(empty = sheaf_new(sh))) /* alloc_full_sheaf */
		return err_set(e, SLABSIM_ENOMEM, "out of memory for a sheaf");
	int rc = refill(sh, ops, cpu, empty, e);
	if (rc) {
		barn_put_empty(sh, empty);
		return rc;
	}
	/* main is empty here (no one ran in between) */
	if (sh->rule == SHEAVES_7_0 && !p->spare)
		p->spare = p->main;
	else
		barn_put_empty(sh, p->main);
	p->main = empty;
	return 0;
}

int sheaves_alloc(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
		  struct sheaf_obj *out, bool *got, struct err *e)
{
	struct sheaves_pcs *p = &sh->pcs[cpu];
	*got = false;
	if (p->main->size == 0) {
		int rc = replace_empty_main(sh, ops, cpu, e);
		if (rc)
			return rc;
	}
	*out = p->main->objs[--p->main->size];
	sh->parked--;
	*got = true;
	return 0;
}

/* __pcs_install_empty_sheaf with the spare present and full: the case of
 * a failed barn_replace_full_sheaf (no empty sheaf in the barn) followed by
 * a successful alloc_empty_sheaf. The full main goes to the barn, its
 * limit not checked again (it was below it). */
static void install_empty(struct sheaves *sh, struct sheaves_pcs *p, struct sheaf *empty)
{
	if (!p->spare) {
		p->spare = p->main;
		p->main = empty;
		return;
	}
	barn_put_full(sh, p->main);
	sh->barn_put++;
	p->main = empty;
}

/* __pcs_replace_full_main: make room in a full main sheaf. */
static void replace_full_main(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu)
{
	struct sheaves_pcs *p = &sh->pcs[cpu];
	struct sheaf *empty;
	if (!p->spare) {
		empty = barn_get_empty(sh);
		if (empty) {
			p->spare = p->main;
			p->main = empty;
			return;
		}
	} else if (p->spare->size < sh->capacity) {
		struct sheaf *t = p->main;
		p->main = p->spare;
		p->spare = t;
		return;
	} else if (sh->nr_full >= sh->max_full) {
		/* barn_replace_full_sheaf says -E2BIG: the full spare is
		 * flushed to slabs and becomes main, main the spare */
		sh->barn_put_fail++;
		struct sheaf *to_flush = p->spare;
		p->spare = NULL;
		flush_sheaf(sh, ops, cpu, to_flush);
		install_empty(sh, p, to_flush);
		return;
	} else if ((empty = barn_get_empty(sh))) {
		/* barn_replace_full_sheaf succeeds */
		sh->barn_put++;
		barn_put_full(sh, p->main);
		p->main = empty;
		return;
	}
	/* no empty sheaf anywhere: alloc_empty_sheaf(GFP_NOWAIT), taken to
	 * succeed (its failure flushes main to slabs instead) */
	empty = sheaf_new(sh);
	if (!empty) {
		flush_sheaf(sh, ops, cpu, p->main);
		return;
	}
	install_empty(sh, p, empty);
}

void sheaves_free(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
		  struct sheaf_obj o)
{
	struct sheaves_pcs *p = &sh->pcs[cpu];
	if (p->main->size == sh->capacity)
		replace_full_main(sh, ops, cpu);
	p->main->objs[p->main->size++] = o;
	sh->parked++;
}

bool sheaves_free_bulk(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
		       struct sheaf_obj o)
{
	struct sheaves_pcs *p = &sh->pcs[cpu];
	if (p->main->size == sh->capacity) {
		struct sheaf *empty;
		if (!p->spare) {
			if (!(empty = barn_get_empty(sh))) {
				ops->flush(ops->ctx, cpu, &o, 1);
				return false;
			}
			p->spare = p->main;
			p->main = empty;
		} else if (p->spare->size < sh->capacity) {
			struct sheaf *t = p->main;
			p->main = p->spare;
			p->spare = t;
		} else if (sh->nr_full >= sh->max_full || !(empty = barn_get_empty(sh))) {
			sh->barn_put_fail++; /* barn_replace_full_sheaf: E2BIG or ENOMEM */
			ops->flush(ops->ctx, cpu, &o, 1);
			return false;
		} else {
			sh->barn_put++;
			barn_put_full(sh, p->main);
			p->main = empty;
		}
	}
	p->main->objs[p->main->size++] = o;
	sh->parked++;
	return true;
}

/* rcu_free_sheaf, after the grace period: a full sheaf for the barn while
 * it holds fewer than max_full (SHEAVES_MAX_FULL), else flushed to slabs
 * and kept as an empty sheaf below max_empty (SHEAVES_MAX_EMPTY), or
 * freed. */
static void rcu_free_sheaf(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
			   struct sheaf *f)
{
	if (sh->nr_full < sh->max_full) {
		sh->barn_put++;
		barn_put_full(sh, f);
		return;
	}
	sh->barn_put_fail++;
	flush_sheaf(sh, ops, cpu, f);
	if (sh->nr_empty < sh->max_empty)
		barn_put_empty(sh, f);
	else
		sheaf_free(sh, f);
}

void sheaves_free_rcu(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
		      struct sheaf_obj o)
{
	struct sheaves_pcs *p = &sh->pcs[cpu];
	if (!p->rcu_free) {
		if (p->spare && p->spare->size == 0) {
			p->rcu_free = p->spare;
			p->spare = NULL;
		} else if (!(p->rcu_free = barn_get_empty(sh))) {
			p->rcu_free = sheaf_new(sh);
			if (!p->rcu_free) { /* __kfree_rcu_sheaf fails: the caller's
					       kfree_rcu path frees to the slab */
				struct sheaf_obj one = o;
				ops->flush(ops->ctx, cpu, &one, 1);
				return;
			}
		}
	}
	struct sheaf *f = p->rcu_free;
	f->objs[f->size++] = o;
	sh->parked++;
	if (f->size < sh->capacity)
		return;
	p->rcu_free = NULL;
	rcu_free_sheaf(sh, ops, cpu, f);
}

static bool swap_in(struct sheaf *f, const void *slab, struct sheaf_obj repl, struct sheaf_obj *out)
{
	if (!f)
		return false;
	for (uint32_t i = f->size; i-- > 0;) {
		if (f->objs[i].slab == slab) {
			*out = f->objs[i];
			f->objs[i] = repl;
			return true;
		}
	}
	return false;
}

bool sheaves_swap(struct sheaves *sh, uint32_t cpu, const void *slab, struct sheaf_obj repl,
		  struct sheaf_obj *out)
{
	for (uint32_t n = 0; n < sh->nr_cpus; n++) {
		const struct sheaves_pcs *p = &sh->pcs[(cpu + n) % sh->nr_cpus];
		if (swap_in(p->main, slab, repl, out) || swap_in(p->spare, slab, repl, out) ||
		    swap_in(p->rcu_free, slab, repl, out))
			return true;
	}
	for (struct sheaf *f = sh->full; f; f = f->next)
		if (swap_in(f, slab, repl, out))
			return true;
	return false;
}

/* Move f's objects of slab to out (n so far), closing the gaps. */
static uint32_t take_slab(struct sheaf *f, const void *slab, struct sheaf_obj *out, uint32_t n)
{
	if (!f)
		return n;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < f->size; i++) {
		if (f->objs[i].slab == slab)
			out[n++] = f->objs[i];
		else
			f->objs[kept++] = f->objs[i];
	}
	f->size = kept;
	return n;
}

int sheaves_unpark(struct sheaves *sh, const struct sheaves_ops *ops, uint32_t cpu,
		   const void *slab, struct err *e)
{
	if (!sh->parked) {
		if (ops->gone)
			ops->gone(ops->ctx, cpu, slab);
		return 0;
	}
	struct sheaf_obj *out = malloc(sh->parked * sizeof(*out));
	if (!out)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	uint32_t n = 0;
	for (uint32_t c = 0; c < sh->nr_cpus; c++) {
		struct sheaves_pcs *p = &sh->pcs[c];
		n = take_slab(p->main, slab, out, n);
		n = take_slab(p->spare, slab, out, n);
		n = take_slab(p->rcu_free, slab, out, n);
	}
	sh->parked -= n;
	int rc = 0;
	bool short_full = false;
	for (struct sheaf *f = sh->full; f; f = f->next) {
		uint32_t before = n;
		n = take_slab(f, slab, out, n);
		sh->parked -= n - before;
		short_full |= n != before;
	}
	if (n)
		ops->flush(ops->ctx, cpu, out, n);
	free(out);
	if (ops->gone)
		ops->gone(ops->ctx, cpu, slab);
	/* a barn's full sheaf stays full: what it held of slab is taken from
	 * the slabs again (refill_sheaf), once slab is gone from them */
	for (struct sheaf *f = sh->full; f && short_full && !rc; f = f->next)
		rc = refill(sh, ops, cpu, f, e);
	return rc;
}

void sheaves_cpu_sizes(const struct sheaves *sh, uint32_t cpu, int32_t out[3])
{
	const struct sheaves_pcs *p = &sh->pcs[cpu];
	out[0] = (int32_t)p->main->size;
	out[1] = p->spare ? (int32_t)p->spare->size : -1;
	out[2] = p->rcu_free ? (int32_t)p->rcu_free->size : -1;
}

static uint64_t count_list(const struct sheaf *f, uint64_t *nr, bool full, uint32_t cap, bool *bad)
{
	uint64_t objs = 0;
	for (; f; f = f->next) {
		(*nr)++;
		objs += f->size;
		if (full ? f->size == 0 : f->size != 0)
			*bad = true;
		if (f->size > cap)
			*bad = true;
	}
	return objs;
}

int sheaves_check(const struct sheaves *sh, const char *name, struct err *e)
{
	uint64_t objs = 0, nr = 0, lf = 0, le = 0;
	bool bad = false;
	for (uint32_t c = 0; c < sh->nr_cpus; c++) {
		const struct sheaves_pcs *p = &sh->pcs[c];
		if (!p->main)
			return err_set(e, SLABSIM_EMODEL, "%s: CPU %u has no main sheaf", name, c);
		const struct sheaf *f[3] = {p->main, p->spare, p->rcu_free};
		for (int i = 0; i < 3; i++) {
			if (!f[i])
				continue;
			nr++;
			objs += f[i]->size;
			bad |= f[i]->size > sh->capacity;
		}
	}
	objs += count_list(sh->full, &lf, true, sh->capacity, &bad);
	objs += count_list(sh->empty, &le, false, sh->capacity, &bad);
	if (bad)
		return err_set(e, SLABSIM_EMODEL,
			       "%s: a sheaf above capacity or a barn sheaf on "
			       "the wrong list",
			       name);
	if (lf != sh->nr_full || le != sh->nr_empty)
		return err_set(e, SLABSIM_EMODEL,
			       "%s: barn holds %llu full and %llu empty sheaves, counted %u and %u",
			       name, (unsigned long long)lf, (unsigned long long)le, sh->nr_full,
			       sh->nr_empty);
	if (objs != sh->parked || nr + lf + le != sh->nr_sheaves)
		return err_set(
			e, SLABSIM_EMODEL,
			"%s: sheaves hold %llu objects in %llu sheaves, counted %llu in %llu", name,
			(unsigned long long)objs, (unsigned long long)(nr + lf + le),
			(unsigned long long)sh->parked, (unsigned long long)sh->nr_sheaves);
	return 0;
}

static void each(const struct sheaf *f, void (*fn)(void *, struct sheaf_obj), void *arg)
{
	for (uint32_t i = 0; f && i < f->size; i++)
		fn(arg, f->objs[i]);
}

void sheaves_for_each(const struct sheaves *sh, void (*fn)(void *arg, struct sheaf_obj o),
		      void *arg)
{
	for (uint32_t c = 0; c < sh->nr_cpus; c++) {
		each(sh->pcs[c].main, fn, arg);
		each(sh->pcs[c].spare, fn, arg);
		each(sh->pcs[c].rcu_free, fn, arg);
	}
	for (const struct sheaf *f = sh->full; f; f = f->next)
		each(f, fn, arg);
}

/* kmalloc_size_roundup() on x86_64: the kmalloc-8 .. kmalloc-8k sizes,
 * with 96 and 192 between the powers of two. */
static uint64_t kmalloc_roundup(uint64_t n)
{
	if (n > 64 && n <= 96)
		return 96;
	if (n > 128 && n <= 192)
		return 192;
	uint64_t r = 8;
	while (r < n)
		r <<= 1;
	return r;
}

uint32_t sheaves_capacity_7_0(uint32_t size, uint32_t explicit_capacity)
{
	/* struct slab_sheaf: a union of rcu_head / barn_list / {capacity,
	 * pfmemalloc} (16 bytes), the cache pointer (8), size and node (4 + 4),
	 * then the object pointers */
	const uint64_t header = 32, word = 8;
	uint32_t cap = size >= 4096 ? 4 : size >= 1024 ? 12 : size >= 256 ? 26 : 60;
	cap = (uint32_t)((kmalloc_roundup(header + word * cap) - header) / word);
	return cap > explicit_capacity ? cap : explicit_capacity;
}
