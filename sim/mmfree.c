/* mmfree: the maple-tree node frees a 6.18 trace does not show (mmfree.h
 * says what is modelled and from which evidence). The kernel paths, as read
 * in torvalds/linux v6.18:
 *  - kernel/fork.c dup_mm -> dup_mmap: __mt_dup copies the parent's tree
 *    into the new mm (its nodes: call sites __mt_dup and mas_dup_alloc, in
 *    the parent's context), then one vm_area_dup per VMA (VM_DONTCOPY ones
 *    are cleared from the copy with a store, mas_store_gfp); copy_process
 *    goes on to alloc_pid once copy_mm is done;
 *  - fs/exec.c: bprm_mm_init's mm_alloc makes the new mm in the exec'ing
 *    task; exec_mmap's mmput of the old mm runs exit_mmap when it was the
 *    last user (not after vfork);
 *  - mm/mmap.c exit_mmap: mt_clear_in_rcu, the VMAs freed one by one
 *    (remove_vma -> vm_area_free: traced, call site exit_mmap), then
 *    __mt_destroy -> mt_destroy_walk -> mt_free_bulk ->
 *    kmem_cache_free_bulk (no kmem event): every node still in the tree;
 *  - kernel/fork.c __mmdrop frees the mm_struct (traced) after exit_mmap.
 * Union-find over mm ids: a placeholder (the mm of a task seen before any
 * mm of its own) is joined to the real mm once a VMA links them. */
#include "mmfree.h"

#include "trace.h"

#include <stdlib.h>
#include <string.h>

struct mmf_mm {
	uint32_t parent; /* union-find */
	uint32_t next;	 /* circular list of the members of the set */
	bool placeholder;
	bool dead; /* torn down: allocations go to a fresh mm */
	/* the set's root only: made by a task whose events name its thread
	 * group and joined to no placeholder, so every VMA of its tree is a
	 * traced one of its own (the tree bound applies) */
	bool whole;
	uint32_t nvma;	 /* the set's root only: its live traced VMAs */
	uint32_t nbound; /* the set's root only: entries of bound nodes, at least those it owns */
	uint64_t *nodes; /* node pointers allocated to it, in order */
	uint32_t n, cap;
};

/* The node map's value: owner id + 1, and this bit for a node of the mm's
 * own tree: allocated where only an mm's tree allocates (mas_preallocate:
 * vma_iter_prealloc; __mt_dup, mas_dup_alloc: dup_mmap) or in the task's
 * VMA work (mmf_alloc's in_vma). Other maple trees (a tmpfs directory's
 * offsets, simple_offset_add) pop nodes from a prefilled sheaf at the same
 * sites as a VMA write does (mas_wr_bnode, mas_push_data, mas_new_ma_node,
 * mas_store_gfp): only these count against the tree bound. */
#define NODE_BOUND (UINT64_C(1) << 32)

enum mmf_kind mmf_kind_of(const char *name)
{
	if (!name)
		return MMF_OTHER;
	if (!strcmp(name, "maple_node"))
		return MMF_NODE;
	if (!strcmp(name, "vm_area_struct"))
		return MMF_VMA;
	if (!strcmp(name, "mm_struct"))
		return MMF_MM;
	if (!strcmp(name, "anon_vma") || !strcmp(name, "anon_vma_chain"))
		return MMF_VMA_AUX;
	return MMF_OTHER;
}

void mmf_init(struct mmf *m)
{
	memset(m, 0, sizeof(*m));
	u64map_init(&m->node);
	u64map_init(&m->vma);
	u64map_init(&m->mmptr);
	u64map_init(&m->task);
	u64map_init(&m->fork);
	u64map_init(&m->dup);
	m->trim_mm = UINT32_MAX;
	m->bound_mm = UINT32_MAX;
}

void mmf_fini(struct mmf *m)
{
	for (uint32_t i = 0; i < m->nr_mm; i++)
		free(m->mm[i].nodes);
	free(m->mm);
	u64map_fini(&m->node);
	u64map_fini(&m->vma);
	u64map_fini(&m->mmptr);
	u64map_fini(&m->task);
	u64map_fini(&m->fork);
	u64map_fini(&m->dup);
	memset(m, 0, sizeof(*m));
}

/* Whether call site site ("func+0x1/0x2", "func.isra.0+...", or "func") is
 * in function fn. */
static bool site_is(const char *site, const char *fn)
{
	size_t n = strlen(fn);
	return !strncmp(site, fn, n) && (site[n] == '+' || site[n] == '.' || site[n] == '\0');
}

static int new_mm(struct mmf *m, bool placeholder, bool whole, uint32_t *id, struct err *e)
{
	if (m->nr_mm == m->cap_mm) {
		uint32_t cap = m->cap_mm ? 2 * m->cap_mm : 64;
		struct mmf_mm *r = realloc(m->mm, cap * sizeof(*r));
		if (!r)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		m->mm = r;
		m->cap_mm = cap;
	}
	*id = m->nr_mm++;
	m->mm[*id] = (struct mmf_mm){.parent = *id,
				     .next = *id,
				     .placeholder = placeholder,
				     .whole = whole && !placeholder};
	return 0;
}

static uint32_t find(struct mmf *m, uint32_t id)
{
	while (m->mm[id].parent != id) {
		m->mm[id].parent = m->mm[m->mm[id].parent].parent; /* halving */
		id = m->mm[id].parent;
	}
	return id;
}

/* Join the sets of a and b (the same mm): b's root goes under a's. The set
 * is a placeholder only when both were, dead only when both were (a live
 * member's nodes are still to be freed). */
static void join(struct mmf *m, uint32_t a, uint32_t b)
{
	a = find(m, a);
	b = find(m, b);
	if (a == b)
		return;
	m->joins++;
	m->mm[b].parent = a;
	uint32_t t = m->mm[a].next; /* splice the circular lists */
	m->mm[a].next = m->mm[b].next;
	m->mm[b].next = t;
	m->mm[a].placeholder = m->mm[a].placeholder && m->mm[b].placeholder;
	m->mm[a].dead = m->mm[a].dead && m->mm[b].dead;
	m->mm[a].whole = m->mm[a].whole && m->mm[b].whole;
	m->mm[a].nvma += m->mm[b].nvma;
	m->mm[a].nbound += m->mm[b].nbound;
}

/* The task entry of pid: cur and prev mm ids (UINT32_MAX: none). */
static void task_get(struct mmf *m, int32_t pid, uint32_t *cur, uint32_t *prev)
{
	uint64_t v = 0;
	u64map_get(&m->task, (uint64_t)(uint32_t)pid + 1, &v);
	*cur = (uint32_t)v - 1;
	*prev = (uint32_t)(v >> 32) - 1;
}

static int task_set(struct mmf *m, int32_t pid, uint32_t cur, uint32_t prev, struct err *e)
{
	uint64_t v = ((uint64_t)(prev + 1) << 32) | (uint32_t)(cur + 1);
	if (u64map_put(&m->task, (uint64_t)(uint32_t)pid + 1, v))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	return 0;
}

/* The live mm of pid's own allocations: its current one, or a new
 * placeholder when it has none or that one was torn down. */
static int task_mm(struct mmf *m, int32_t pid, uint32_t *id, struct err *e)
{
	uint32_t cur, prev;
	task_get(m, pid, &cur, &prev);
	if (cur != UINT32_MAX && !m->mm[find(m, cur)].dead) {
		*id = cur;
		return 0;
	}
	int rc = new_mm(m, true, false, id, e);
	return rc ? rc : task_set(m, pid, *id, prev, e);
}

/* The child mm pid is making (UINT32_MAX: none). */
static uint32_t fork_of(const struct mmf *m, int32_t pid)
{
	uint64_t v = 0;
	if (u64map_len(&m->fork))
		u64map_get(&m->fork, (uint64_t)(uint32_t)pid + 1, &v);
	return (uint32_t)v - 1;
}

static void fork_end(struct mmf *m, int32_t pid)
{
	uint64_t v;
	if (!u64map_len(&m->fork) || !u64map_del(&m->fork, (uint64_t)(uint32_t)pid + 1, NULL))
		return;
	if (u64map_del(&m->dup, (uint64_t)(uint32_t)pid + 1, &v) && (uint32_t)v) {
		m->trim_mm = (uint32_t)(v >> 32) - 1;
		m->trim_keep = (uint32_t)v;
	}
}

/* A node of pid's fork burst copied from the parent's tree (its current
 * mm): counted, the burst's count is the parent tree's size. */
static int dup_count(struct mmf *m, int32_t pid, struct err *e)
{
	uint64_t *v = u64map_ref(&m->dup, (uint64_t)(uint32_t)pid + 1);
	if (v) {
		(*v)++;
		return 0;
	}
	uint32_t cur, prev;
	task_get(m, pid, &cur, &prev);
	if (cur == UINT32_MAX || m->mm[find(m, cur)].dead)
		return 0; /* the parent's tree is not one the model holds */
	if (u64map_put(&m->dup, (uint64_t)(uint32_t)pid + 1, ((uint64_t)(cur + 1) << 32) | 1))
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	return 0;
}

bool mmf_trim_pending(struct mmf *m, uint32_t *mm, uint32_t *keep)
{
	if (m->trim_mm == UINT32_MAX)
		return false;
	*mm = m->trim_mm;
	*keep = m->trim_keep;
	m->trim_mm = UINT32_MAX;
	return true;
}

/* Drop from member id's node list the nodes it no longer owns (freed, or
 * given to another mm since), keeping the order; returns how many stay. */
static uint32_t compact_owned(struct mmf *m, uint32_t id)
{
	struct mmf_mm *x = &m->mm[id];
	uint32_t j = 0;
	for (uint32_t i = 0; i < x->n; i++) {
		uint64_t v;
		if (u64map_get(&m->node, x->nodes[i], &v) && (uint32_t)v == id + 1)
			x->nodes[j++] = x->nodes[i];
	}
	x->n = j;
	return j;
}

/* Of the nodes the set of root owns (compacted: every entry owned), the
 * extra oldest whose map value has every bit of mask: forgotten, and
 * fn(ctx, ptr) for each; members in list order, each in allocation order.
 * Stops at and returns fn's first nonzero return. */
static int free_oldest(struct mmf *m, uint32_t root, uint64_t extra, uint64_t mask,
		       int (*fn)(void *ctx, uint64_t ptr, struct err *e), void *ctx, struct err *e)
{
	uint32_t id = root;
	do {
		struct mmf_mm *x = &m->mm[id];
		uint32_t j = 0;
		for (uint32_t i = 0; i < x->n; i++) {
			uint64_t v = 0;
			if (extra && (!mask || (u64map_get(&m->node, x->nodes[i], &v) &&
						(v & mask) == mask))) {
				extra--;
				u64map_del(&m->node, x->nodes[i], NULL);
				int rc = fn(ctx, x->nodes[i], e);
				if (rc) { /* keep the list whole: the rest stay */
					memmove(x->nodes + j, x->nodes + i + 1,
						(x->n - i - 1) * sizeof(*x->nodes));
					x->n = j + (x->n - i - 1);
					return rc;
				}
				continue;
			}
			x->nodes[j++] = x->nodes[i];
		}
		x->n = j;
		id = x->next;
	} while (id != root && extra);
	return 0;
}

int mmf_trim(struct mmf *m, uint32_t mm, uint32_t keep,
	     int (*fn)(void *ctx, uint64_t ptr, struct err *e), void *ctx, struct err *e)
{
	uint32_t root = find(m, mm), id = root;
	uint64_t owned = 0;
	do { /* count, and drop the entries no longer owned */
		owned += compact_owned(m, id);
		id = m->mm[id].next;
	} while (id != root);
	if (owned <= keep)
		return 0;
	m->trims++;
	return free_oldest(m, root, owned - keep, 0, fn, ctx, e);
}

uint32_t mmf_tree_bound(uint64_t nvma)
{
	/* lib/maple_tree.c (v6.18): a store that leaves a node other than
	 * the root below mt_min_slots (maple_leaf_64: 16 / 2 - 2 = 6;
	 * maple_arange_64, the internal nodes of an allocation tree: 10 / 2 - 1
	 * = 4) rebalances it; taken as counts of entries and children, one
	 * fewer than the kernel keeps, for slack */
	uint64_t entries = 2 * nvma + 1, level = entries / 6 + 1, total = level;
	while (level > 1) {
		level = level / 4 + 1;
		total += level;
	}
	return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

bool mmf_bound_pending(struct mmf *m, uint32_t *mm, uint32_t *keep)
{
	if (m->bound_mm == UINT32_MAX)
		return false;
	*mm = m->bound_mm;
	*keep = m->bound_keep;
	m->bound_mm = UINT32_MAX;
	return true;
}

int mmf_bound(struct mmf *m, uint32_t mm, uint32_t keep, bool (*alive)(void *ctx, uint64_t ptr),
	      int (*fn)(void *ctx, uint64_t ptr, struct err *e), void *ctx, struct err *e)
{
	uint32_t root = find(m, mm), id = root;
	uint64_t owned = 0, v;
	do { /* count the bound nodes owned and live; drop the rest */
		struct mmf_mm *x = &m->mm[id];
		uint32_t j = 0;
		for (uint32_t i = 0; i < x->n; i++) {
			if (!u64map_get(&m->node, x->nodes[i], &v) || (uint32_t)v != id + 1)
				continue;
			if ((v & NODE_BOUND) && !alive(ctx, x->nodes[i])) {
				u64map_del(&m->node, x->nodes[i], NULL);
				continue;
			}
			owned += (v & NODE_BOUND) != 0;
			x->nodes[j++] = x->nodes[i];
		}
		x->n = j;
		id = x->next;
	} while (id != root);
	m->mm[root].nbound = (uint32_t)owned;
	if (owned <= keep)
		return 0;
	m->bounds++;
	m->mm[root].nbound = keep;
	return free_oldest(m, root, owned - keep, NODE_BOUND, fn, ctx, e);
}

static int own(struct mmf *m, struct u64map *map, uint64_t ptr, uint32_t id, bool bound,
	       struct err *e)
{
	bool found;
	uint64_t *v = u64map_upsert(map, ptr, &found);
	if (!v)
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	if (map == &m->vma) {
		/* a VMA's free is always traced; an allocation at a live one
		 * (a lost event) moves it */
		if (found && m->mm[find(m, (uint32_t)*v - 1)].nvma)
			m->mm[find(m, (uint32_t)*v - 1)].nvma--;
		m->mm[find(m, id)].nvma++;
	}
	*v = (uint64_t)id + 1 + (bound ? NODE_BOUND : 0);
	if (map != &m->node)
		return 0;
	if (bound)
		m->mm[find(m, id)].nbound++;
	struct mmf_mm *mm = &m->mm[id];
	if (mm->n == mm->cap) {
		/* memory follows the tree, not the trace: drop the nodes it
		 * no longer owns first, and grow only when it is over half
		 * full of nodes still owned */
		if (compact_owned(m, id) > mm->cap / 2 || !mm->cap) {
			uint32_t cap = mm->cap ? 2 * mm->cap : 8;
			uint64_t *r = realloc(mm->nodes, cap * sizeof(*r));
			if (!r)
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			mm->nodes = r;
			mm->cap = cap;
		}
	}
	mm->nodes[mm->n++] = ptr;
	return 0;
}

int mmf_alloc(struct mmf *m, enum mmf_kind k, int32_t pid, uint64_t ptr, const char *site,
	      bool in_vma, struct err *e)
{
	uint32_t f = fork_of(m, pid), id = 0;
	int rc;
	if (k == MMF_VMA || k == MMF_MM)
		u64map_del(&m->node, ptr, NULL); /* the node's page went to another cache */
	switch (k) {
	case MMF_MM:
		if ((rc = new_mm(m, false, (pid & TRACE_PID_GROUP) != 0, &id, e)))
			return rc;
		if (u64map_put(&m->mmptr, ptr, (uint64_t)id + 1))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		if (site_is(site, "copy_process") || site_is(site, "dup_mm")) {
			if (u64map_put(&m->fork, (uint64_t)(uint32_t)pid + 1, (uint64_t)id + 1))
				return err_set(e, SLABSIM_ENOMEM, "out of memory");
			return 0;
		}
		/* exec (mm_alloc): the new mm is the task's from now on */
		fork_end(m, pid);
		uint32_t cur, prev;
		task_get(m, pid, &cur, &prev);
		return task_set(m, pid, id, cur, e);
	case MMF_NODE:
		if (f != UINT32_MAX &&
		    (site_is(site, "__mt_dup") || site_is(site, "mas_dup_alloc"))) {
			if ((rc = dup_count(m, pid, e)))
				return rc;
			return own(m, &m->node, ptr, f, true, e);
		}
		if (f != UINT32_MAX && site_is(site, "mas_store_gfp"))
			return own(m, &m->node, ptr, f, false, e);
		fork_end(m, pid);
		return (rc = task_mm(m, pid, &id, e))
			       ? rc
			       : own(m, &m->node, ptr, id,
				     in_vma || site_is(site, "mas_preallocate"), e);
	case MMF_VMA:
		if (f != UINT32_MAX && site_is(site, "vm_area_dup"))
			return own(m, &m->vma, ptr, f, false, e);
		fork_end(m, pid);
		return (rc = task_mm(m, pid, &id, e)) ? rc : own(m, &m->vma, ptr, id, false, e);
	default:
		/* copy_process calls alloc_pid after copy_mm: the burst is over */
		if (f != UINT32_MAX && site_is(site, "alloc_pid"))
			fork_end(m, pid);
		return 0;
	}
}

/* A VMA of mm o (UINT32_MAX: older than the trace) freed by pid at site.
 * OUT: *teardown. */
static int vma_freed(struct mmf *m, int32_t pid, uint32_t o, const char *site, uint32_t *teardown,
		     struct err *e)
{
	uint32_t cur, prev;
	task_get(m, pid, &cur, &prev);
	if (!site_is(site, "exit_mmap")) {
		/* munmap and the like: a task unmaps its own mm's VMAs */
		if (o == UINT32_MAX)
			return 0;
		if (cur == UINT32_MAX) {
			int rc = task_set(m, pid, o, prev, e);
			if (rc)
				return rc;
		} else if (m->mm[find(m, cur)].placeholder) {
			join(m, o, cur);
		}
		/* the tree shrank: the nodes beyond its bound were freed */
		uint32_t root = find(m, o);
		struct mmf_mm *r = &m->mm[root];
		if (!r->whole || r->dead)
			return 0;
		uint32_t keep = mmf_tree_bound(r->nvma);
		if (r->nbound > keep) {
			m->bound_mm = root;
			m->bound_keep = keep;
		}
		return 0;
	}
	/* exit_mmap runs for the previous mm of an exec'ing task, else for the
	 * current one */
	bool prev_live = prev != UINT32_MAX && !m->mm[find(m, prev)].dead;
	if (o != UINT32_MAX) {
		uint32_t q = prev_live ? prev : cur;
		if (q != UINT32_MAX && m->mm[find(m, q)].placeholder)
			join(m, o, q);
		*teardown = find(m, o);
		return 0;
	}
	/* a VMA older than the trace: once the task has exec'd, the old mm's
	 * (torn down at its first such free: the later ones find it dead) */
	uint32_t q = prev != UINT32_MAX ? prev : cur;
	if (q != UINT32_MAX)
		*teardown = find(m, q);
	return 0;
}

int mmf_free(struct mmf *m, enum mmf_kind k, int32_t pid, uint64_t ptr, const char *site,
	     uint32_t *teardown, struct err *e)
{
	uint64_t v = 0;
	*teardown = UINT32_MAX;
	switch (k) {
	case MMF_NODE:
		u64map_del(&m->node, ptr, NULL);
		return 0;
	case MMF_VMA:
		fork_end(m, pid);
		if (u64map_del(&m->vma, ptr, &v) && m->mm[find(m, (uint32_t)v - 1)].nvma)
			m->mm[find(m, (uint32_t)v - 1)].nvma--;
		return vma_freed(m, pid, (uint32_t)v - 1, site, teardown, e);
	case MMF_MM:
		/* __mmdrop: exit_mmap ran before, whether the trace showed it
		 * or not */
		if (u64map_del(&m->mmptr, ptr, &v) && !m->mm[find(m, (uint32_t)v - 1)].dead) {
			*teardown = find(m, (uint32_t)v - 1);
			m->teardowns_late++;
		}
		return 0;
	default:
		return 0;
	}
}

int mmf_teardown(struct mmf *m, uint32_t mm, int (*fn)(void *ctx, uint64_t ptr, struct err *e),
		 void *ctx, struct err *e)
{
	uint32_t root = find(m, mm), id = root;
	if (!m->mm[root].dead)
		m->teardowns++;
	m->mm[root].dead = true;
	do {
		struct mmf_mm *x = &m->mm[id];
		for (uint32_t i = 0; i < x->n; i++) {
			uint64_t v;
			if (!u64map_get(&m->node, x->nodes[i], &v) || (uint32_t)v != id + 1)
				continue; /* freed, or allocated again to another mm */
			u64map_del(&m->node, x->nodes[i], NULL);
			int rc = fn(ctx, x->nodes[i], e);
			if (rc)
				return rc;
		}
		x->n = 0;
		id = x->next;
	} while (id != root);
	return 0;
}
