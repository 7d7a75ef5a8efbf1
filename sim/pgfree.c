/* pgfree: frees proven by the page allocator (pgfree.h). */
#include "pgfree.h"

#include <stdlib.h>
#include <string.h>

#define GIB	  (UINT64_C(1) << 30)
#define PAGE	  UINT64_C(4096)
#define MIN_ALIGN 8 /* ARCH_SLAB_MINALIGN on x86-64: every object pointer */
/* a page holds at most PAGE / MIN_ALIGN = 512 object starts */
#define COUNT_BITS PGF_COUNT_BITS
#define COUNT_MASK PGF_COUNT_MASK

void pgf_init(struct pgf *g)
{
	memset(g, 0, sizeof(*g));
	u64map_init_sparse(&g->pages);
	u64map_init_sparse(&g->renewed);
}

void pgf_fini(struct pgf *g)
{
	free(g->last_free);
	free(g->pending);
	u64map_fini(&g->pages);
	u64map_fini(&g->renewed);
	memset(g, 0, sizeof(*g));
}

void pgf_start(struct pgf *g)
{
	g->on = true;
}

/* The direct map is in the kernel's half (as replay's raw pointers). */
static bool kernel_half(uint64_t p)
{
	return p >> 47 == 0x1ffff;
}

int pgf_note_free(struct pgf *g, uint32_t cpu, uint64_t ptr, struct err *e)
{
	if (g->base_known || !kernel_half(ptr))
		return 0;
	if (cpu >= g->ncpu) {
		uint32_t n = cpu + 1 > 2 * g->ncpu ? cpu + 1 : 2 * g->ncpu;
		uint64_t *a = realloc(g->last_free, (size_t)n * sizeof(*a));
		if (!a)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		memset(a + g->ncpu, 0, (size_t)(n - g->ncpu) * sizeof(*a));
		g->last_free = a;
		g->ncpu = n;
	}
	g->last_free[cpu] = ptr;
	return 0;
}

int pgf_live_slow(struct pgf *g, uint64_t ptr, int delta, struct err *e)
{
	if (!g->on || !kernel_half(ptr))
		return 0;
	uint64_t page = ptr >> 12, *v = g->memo_v;
	if (!v || g->memo_page != page) {
		bool found;
		/* an insert that grows the map moves every entry, the memo's
		 * too: it is set again here */
		if (!(v = u64map_upsert(&g->pages, page, &found)))
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		if (!found)
			*v = 0;
		g->memo_page = page;
		g->memo_v = v;
	}
	if (delta > 0) {
		*v = (++g->clock << COUNT_BITS) | ((*v & COUNT_MASK) + 1);
		return 0;
	}
	if (*v & COUNT_MASK)
		--*v;
	if (!(*v & COUNT_MASK)) {
		u64map_del_ref(&g->pages, v);
		g->memo_v = NULL;
	}
	return 0;
}

/* The vote of a page free on cpu: the CPU's last traced free inside the
 * freed range for some 1-GiB-aligned base. */
static void vote(struct pgf *g, uint32_t cpu, uint64_t phys, uint64_t len)
{
	if (cpu >= g->ncpu || !g->last_free[cpu])
		return;
	uint64_t d = g->last_free[cpu] - phys;
	if ((d & (GIB - 1)) >= len || !kernel_half(d))
		return;
	uint64_t b = d & ~(GIB - 1);
	int at = -1, low = 0;
	for (int i = 0; i < PGF_CANDS; i++) {
		if (g->cand[i].votes && g->cand[i].base == b)
			at = i;
		if (g->cand[i].votes < g->cand[low].votes)
			low = i;
	}
	if (at < 0) {
		at = low; /* a new candidate takes the weakest place */
		g->cand[at].base = b;
		g->cand[at].votes = 0;
	}
	g->cand[at].votes++;
	uint32_t others = 0;
	for (int i = 0; i < PGF_CANDS; i++)
		others += i != at ? g->cand[i].votes : 0;
	if (g->cand[at].votes >= PGF_VOTES + 2 * others) {
		g->base = b;
		g->base_known = true;
	}
}

/* Kill the live pointers of the freed range [va, va + len) on cpu, in a
 * page with any that came before clock (UINT64_MAX: every page). */
static int kill_range(struct pgf *g, uint64_t va, uint64_t len, uint32_t cpu, uint64_t clock,
		      pgf_live_at_fn live_at, pgf_kill_fn kill, void *ctx, uint64_t *killed,
		      struct err *e)
{
	for (uint64_t pg = va; pg < va + len; pg += PAGE) {
		uint64_t v;
		if (!u64map_get(&g->pages, pg >> 12, &v) || !(v & COUNT_MASK) ||
		    (v >> COUNT_BITS) > clock)
			continue;
		g->pages_with_live++;
		for (uint64_t p = pg; p < pg + PAGE; p += MIN_ALIGN) {
			if (!live_at(ctx, p))
				continue;
			int rc = kill(ctx, p, cpu, e);
			if (rc)
				return rc;
			++*killed;
			if (!u64map_get(&g->pages, pg >> 12, &v) || !(v & COUNT_MASK))
				break;
		}
	}
	return 0;
}

/* Keep a page free that came before the base was known. */
static void keep(struct pgf *g, uint32_t cpu, uint64_t phys, uint64_t len)
{
	if (g->npending == g->cap_pending) {
		uint32_t n = g->cap_pending ? 2 * g->cap_pending : 1024;
		struct pgf_pending *a =
			n <= PGF_PENDING_MAX ? realloc(g->pending, (size_t)n * sizeof(*a)) : NULL;
		if (!a) { /* the bound, or no memory: counted, not used */
			g->pending_dropped++;
			return;
		}
		g->pending = a;
		g->cap_pending = n;
	}
	g->pending[g->npending++] = (struct pgf_pending){phys, g->clock, (uint32_t)len, cpu};
}

/* Note the pages of [phys, phys + len) freed or given out. */
static int mark_renewed(struct pgf *g, uint64_t phys, uint64_t len, struct err *e)
{
	for (uint64_t pfn = phys / PAGE, end = (phys + len + PAGE - 1) / PAGE; pfn < end;) {
		uint64_t word = pfn >> 6, upto = (word + 1) << 6 < end ? (word + 1) << 6 : end;
		uint64_t bits =
			(upto - pfn == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << (upto - pfn)) - 1))
			<< (pfn & 63);
		bool found;
		uint64_t *v = u64map_upsert(&g->renewed, word, &found);
		if (!v)
			return err_set(e, SLABSIM_ENOMEM, "out of memory");
		*v = (found ? *v : 0) | bits;
		pfn = upto;
	}
	return 0;
}

bool pgf_made_since(const struct pgf *g, uint64_t va, uint64_t len)
{
	if (!g->base_known || va < g->base)
		return false;
	for (uint64_t pfn = (va - g->base) / PAGE, end = pfn + (len + PAGE - 1) / PAGE; pfn < end;
	     pfn++) {
		uint64_t v;
		if (u64map_get(&g->renewed, pfn >> 6, &v) && (v >> (pfn & 63) & 1))
			return true;
	}
	return false;
}

int pgf_page_free(struct pgf *g, uint32_t cpu, uint64_t phys, uint64_t len, pgf_live_at_fn live_at,
		  pgf_kill_fn kill, pgf_gone_fn gone, void *ctx, uint64_t *killed, struct err *e)
{
	*killed = 0;
	g->page_frees++;
	++g->clock;
	int mrc = g->keep_renewed ? mark_renewed(g, phys, len, e) : 0;
	if (mrc)
		return mrc;
	if (!g->base_known) {
		vote(g, cpu, phys, len);
		if (!g->base_known) {
			g->before_base++;
			if (len <= UINT32_MAX)
				keep(g, cpu, phys, len);
			return 0;
		}
		/* the base is known now: the page frees kept, in order */
		for (uint32_t i = 0; i < g->npending; i++) {
			const struct pgf_pending *k = &g->pending[i];
			int rc = kill_range(g, g->base + k->phys, k->len, k->cpu, k->clock, live_at,
					    kill, ctx, killed, e);
			if (rc)
				return rc;
		}
		free(g->pending);
		g->pending = NULL;
		g->npending = g->cap_pending = 0;
	}
	int rc = kill_range(g, g->base + phys, len, cpu, UINT64_MAX, live_at, kill, ctx, killed, e);
	for (uint64_t pg = g->base + phys; !rc && gone && pg < g->base + phys + len; pg += PAGE)
		rc = gone(ctx, pg, cpu, e);
	return rc;
}

int pgf_page_alloc(struct pgf *g, uint64_t phys, uint64_t len, struct err *e)
{
	g->page_allocs++;
	return g->keep_renewed && len ? mark_renewed(g, phys, len, e) : 0;
}
