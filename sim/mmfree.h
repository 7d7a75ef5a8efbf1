/* mmfree: the maple-tree node frees a 6.18 trace does not show.
 *
 * On 6.18 a maple_node is freed either through kfree_rcu (ma_free_rcu of a
 * node a store replaced: into the CPU's rcu_free sheaf, after a grace
 * period) or, when the tree of an mm is destroyed (exit_mmap, which takes
 * the tree out of RCU mode and calls __mt_destroy), by
 * kmem_cache_free_bulk: neither emits a kmem event. The engine catches the
 * first kind when the pointer is allocated again (replay.c,
 * alloc_of_live_ptr). This module tracks which mm each node belongs to,
 * from the evidence the trace carries, so that the engine can free an
 * mm's nodes when the trace shows its teardown:
 *  - an mm is made by a traced mm_struct allocation: at call site
 *    copy_process / dup_mm (fork: the parent then duplicates its tree,
 *    __mt_dup / mas_dup_alloc, and its VMAs, vm_area_dup, for the child, in
 *    the parent's context, until alloc_pid), or elsewhere (mm_alloc, exec:
 *    the task's current mm from then on, the old one kept as its previous);
 *  - a task is its thread group where the trace has it (the tracefs
 *    option record-tgid, which record sets: the reader gives the tgid as
 *    the event's pid), so the threads of a process share its mm; else the
 *    thread itself;
 *  - a node or VMA allocated by a task belongs to its current mm; a task
 *    with none known (older than the trace, a child, a thread of a trace
 *    without tgids) gets a placeholder, joined to a real mm when the task
 *    frees a VMA of it (munmap, exit_mmap): a task only unmaps VMAs of its
 *    own mm;
 *  - a tree that shrank (a VMA freed but at exit_mmap) holds no more nodes
 *    than mmf_tree_bound of its VMAs: in an mm known to hold every VMA of
 *    its tree, the tree-only nodes beyond it were freed (mmf_bound);
 *  - the teardown: the first kmem_cache_free of a vm_area_struct at call
 *    site exit_mmap (remove_vma of that mm's VMAs; the mm is the VMA's, or
 *    the task's previous then current one when the VMA is older than the
 *    trace), or at the latest the traced free of its mm_struct (__mmdrop
 *    comes after exit_mmap).
 * What cannot be told: in a trace without tgids, the mm of a thread that
 * never unmaps a VMA of its process (its nodes stay in its placeholder,
 * live), and of a task whose events carry no pid. Prefix mmf_. */
#ifndef SLABSIM_MMFREE_H
#define SLABSIM_MMFREE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "u64map.h"

/* The caches the model follows (by root cache name). */
enum mmf_kind {
	MMF_OTHER = 0,
	MMF_NODE, /* maple_node */
	MMF_VMA,  /* vm_area_struct */
	MMF_MM,	  /* mm_struct */
	/* anon_vma, anon_vma_chain: a VMA's companions, allocated in the same
	 * VMA work (anon_vma_clone, anon_vma_prepare) as the tree's stores;
	 * neither owned nor counted: they only mark that work */
	MMF_VMA_AUX,
};

struct mmf_mm;

struct mmf {
	struct mmf_mm *mm;
	uint32_t nr_mm, cap_mm;
	struct u64map node;  /* node ptr -> mm id + 1 */
	struct u64map vma;   /* VMA ptr -> mm id + 1 */
	struct u64map mmptr; /* mm_struct ptr -> mm id + 1 */
	struct u64map task;  /* pid + 1 -> (prev id + 1) << 32 | (cur id + 1) */
	struct u64map fork;  /* pid + 1 -> mm id + 1 of the child being made */
	struct u64map dup;   /* pid + 1 -> (parent mm id + 1) << 32 | nodes copied */
	/* a fork burst just ended: the parent's tree held trim_keep nodes
	 * (UINT32_MAX trim_mm: none pending) */
	uint32_t trim_mm, trim_keep;
	/* an mm's tree shrank below the nodes the model gives it
	 * (UINT32_MAX bound_mm: none pending) */
	uint32_t bound_mm, bound_keep;
	/* counters, for tests and reports */
	uint64_t teardowns, teardowns_late, joins, trims, bounds;
};

/* The kind of a root cache named name. */
enum mmf_kind mmf_kind_of(const char *name);

void mmf_init(struct mmf *m);
void mmf_fini(struct mmf *m);

/* An allocation of kind k (MMF_OTHER: any other, which may end a fork
 * burst) at ptr by task pid, call site site ("func+0x.." or ""). in_vma:
 * the task's VMA work allocated it (the last slab event on its CPU but a
 * node's was the same task's VMA or companion): a node a VMA write took
 * from its prefilled sheaf, which counts against the tree bound like
 * mas_preallocate's. 0 or SLABSIM_ENOMEM. */
int mmf_alloc(struct mmf *m, enum mmf_kind k, int32_t pid, uint64_t ptr, const char *site,
	      bool in_vma, struct err *e);

/* A traced free of kind k at ptr by task pid, call site site. OUT:
 * *teardown, the mm whose nodes are to be freed now (UINT32_MAX: none);
 * the caller then walks them with mmf_teardown. 0 or SLABSIM_ENOMEM. */
int mmf_free(struct mmf *m, enum mmf_kind k, int32_t pid, uint64_t ptr, const char *site,
	     uint32_t *teardown, struct err *e);

/* Destroy mm (from mmf_free): fn(ctx, ptr) for each node still owned by it
 * or an mm joined to it, in allocation order; the mm is dead from then on.
 * Stops at and returns fn's first nonzero return. */
int mmf_teardown(struct mmf *m, uint32_t mm, int (*fn)(void *ctx, uint64_t ptr, struct err *e),
		 void *ctx, struct err *e);

/* The parent's tree size a fork burst showed (__mt_dup copies every node
 * of it): OUT *mm, *keep and true once per burst, after the mmf_alloc or
 * mmf_free that ended it; the caller then calls mmf_trim. */
bool mmf_trim_pending(struct mmf *m, uint32_t *mm, uint32_t *keep);

/* mm's tree held keep nodes: of the traced nodes it still owns beyond keep,
 * the oldest are ones a store replaced and ma_free_rcu freed (kfree_rcu)
 * with no pointer allocated again since: fn(ctx, ptr) for each, oldest
 * first. Stops at and returns fn's first nonzero return. */
int mmf_trim(struct mmf *m, uint32_t mm, uint32_t keep,
	     int (*fn)(void *ctx, uint64_t ptr, struct err *e), void *ctx, struct err *e);

/* The most nodes an mm's tree holds with nvma VMAs: each VMA and each gap
 * between two is one entry (2 nvma + 1 at most), every leaf but the root
 * holds 6 entries or more and every internal node but the root 4 children
 * or more (mt_min_slots). */
uint32_t mmf_tree_bound(uint64_t nvma);

/* After an mmf_free of a VMA (munmap and the like, not exit_mmap): OUT *mm,
 * *keep and true when the mm is whole (made by a task whose events name
 * its thread group, TRACE_PID_GROUP, and joined to no placeholder: every
 * VMA of its tree traced) and may own more of its tree's own nodes
 * (allocated at mas_preallocate, __mt_dup, mas_dup_alloc, or in VMA work:
 * mmf_alloc's in_vma) than mmf_tree_bound of its VMAs; the caller then
 * calls mmf_bound. */
bool mmf_bound_pending(struct mmf *m, uint32_t *mm, uint32_t *keep);

/* Of mm's tree's own nodes still live (alive(ctx, ptr)), those beyond keep
 * were replaced by stores and freed (ma_free_rcu, kfree_rcu): fn(ctx, ptr)
 * for each of the oldest. The ones not alive are forgotten. Stops at and
 * returns fn's first nonzero return. */
int mmf_bound(struct mmf *m, uint32_t mm, uint32_t keep, bool (*alive)(void *ctx, uint64_t ptr),
	      int (*fn)(void *ctx, uint64_t ptr, struct err *e), void *ctx, struct err *e);

#endif
