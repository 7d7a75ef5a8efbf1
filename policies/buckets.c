/* buckets.c - kmalloc routing by call site: kmem_buckets and the random
 * kmalloc caches (buckets.h). */
#include "buckets.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Site classes (bits 0-7 of a site class; bits 8-15 carry the random copy). */
enum {
	SITE_PLAIN = 0,
	SITE_MSG,      /* load_msg / alloc_msg: alloc_msg's kmem_buckets_alloc */
	SITE_VMEMDUP,  /* vmemdup_user (after 6.12: __kvmalloc_node passes its _RET_IP_) */
	SITE_KVMALLOC, /* __kvmalloc_node_noprof: every kvmalloc up to 6.12 */
};

/* kmem_buckets_create() calls, from the source: v6.11..v6.18
 * ipc/msgutil.c init_msg_buckets: ("msg_msg", SLAB_ACCOUNT,
 * sizeof(struct msg_msg) = 48, DATALEN_MSG = PAGE_SIZE - 48, NULL);
 * mm/util.c init_user_buckets: ("memdup_user", 0, 0, INT_MAX, NULL). Both
 * subsys_initcall; ipc/ links before mm/, so msg_msg-* come first. */
static const struct policy_bucket_info bucket_info[POLICY_BUCKETS_NR] = {
	[POLICY_BUCKETS_MSG_MSG] = {"msg_msg", POLICY_F_ACCOUNT, 48, POLICY_PAGE_SIZE - 48},
	[POLICY_BUCKETS_MEMDUP_USER] = {"memdup_user", 0, 0, 0x7fffffffu},
};

bool policy_buckets_enabled(const struct policy_cfg *cfg, enum policy_bucket_set b)
{
	/* kmem_buckets came in 6.11: the 6.12 profile is the first with them */
	return cfg->slab_buckets && cfg->kernel >= POLICY_KERNEL_6_12 && b > POLICY_BUCKETS_NONE &&
	       b < POLICY_BUCKETS_NR;
}

const struct policy_bucket_info *policy_bucket_info(enum policy_bucket_set b)
{
	return b > POLICY_BUCKETS_NONE && b < POLICY_BUCKETS_NR ? &bucket_info[b] : NULL;
}

uint32_t policy_bucket_usersize(enum policy_bucket_set b, uint32_t size)
{
	const struct policy_bucket_info *bi = policy_bucket_info(b);
	/* kmem_buckets_create: a useroffset at or past the object gives no
	 * window; else min(size - useroffset, usersize) */
	if (!bi || bi->useroffset >= size)
		return 0;
	uint32_t room = size - bi->useroffset;
	return room < bi->usersize ? room : bi->usersize;
}

/* Does the symbol of call_site (before '+', a '.' clone suffix such as
 * ".constprop.0" ignored) equal name? */
static bool site_is(const char *call_site, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(call_site, name, n) != 0)
		return false;
	char c = call_site[n];
	return c == '+' || c == '.' || c == '\0' || c == ' ';
}

bool policy_random_enabled(const struct policy_cfg *cfg)
{
	/* mm/Kconfig: RANDOM_KMALLOC_CACHES depends on !SLUB_TINY (6.6: and
	 * on SLUB); the copies came in 6.6 */
	return cfg->random_kmalloc && cfg->kernel >= POLICY_KERNEL_6_6 && !cfg->slub_tiny;
}

uint64_t policy_caller_of(const char *call_site)
{
	/* symbol+offset: the "/size" part says nothing of the call */
	size_t n = strcspn(call_site, "/ ");
	return XXH3_64bits(call_site, n);
}

bool policy_symtab_caller(const struct policy_symtab *t, const char *call_site, uint64_t *out)
{
	if (!t || !t->n || !call_site)
		return false;
	/* "func+0xOFF/0xSIZE": %pS of the return address, func's name as
	 * kallsyms has it (a GCC clone keeps its ".constprop.0" suffix
	 * there and in System.map alike) */
	const char *plus = strchr(call_site, '+');
	if (!plus || plus == call_site || strncmp(plus + 1, "0x", 2) != 0)
		return false;
	char *end;
	unsigned long long off = strtoull(plus + 3, &end, 16);
	if (end == plus + 3)
		return false;
	size_t len = (size_t)(plus - call_site);
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(t->v[mid].name, call_site, len);
		if (c == 0 && t->v[mid].name[len] != '\0')
			c = 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= t->n || strncmp(t->v[lo].name, call_site, len) != 0 ||
	    t->v[lo].name[len] != '\0' || t->v[lo].dup)
		return false;
	*out = t->v[lo].addr + off;
	return true;
}

uint64_t policy_hash_64(uint64_t val, unsigned bits)
{
	/* include/linux/hash.h: GOLDEN_RATIO_64, hash_64_generic() */
	const uint64_t golden_ratio_64 = 0x61C8864680B583EBull;
	if (bits == 0)
		return 0;
	return (val * golden_ratio_64) >> (64 - (bits > 64 ? 64 : bits));
}

uint32_t policy_random_copy(uint64_t caller, uint64_t seed, uint32_t nr)
{
	/* ilog2(nr + 1): 4 for the kernel's 15 copies */
	unsigned bits = 0;
	while ((2u << bits) <= nr + 1)
		bits++;
	return (uint32_t)policy_hash_64(caller ^ seed, bits);
}

uint32_t policy_route_site(const struct policy_cfg *cfg, const char *call_site)
{
	const char *cs = call_site ? call_site : "";
	uint32_t cls = SITE_PLAIN;
	if (site_is(cs, "load_msg") || site_is(cs, "alloc_msg"))
		cls = SITE_MSG;
	else if (site_is(cs, "vmemdup_user"))
		cls = SITE_VMEMDUP;
	else if (site_is(cs, "__kvmalloc_node_noprof") || site_is(cs, "__kvmalloc_node"))
		cls = SITE_KVMALLOC;
	if (policy_random_enabled(cfg)) {
		/* the kernel's caller when the capture gave its System.map,
		 * else the stand-in (docs/models.md, "Random kmalloc caches":
		 * what each approximates) */
		uint64_t caller;
		if (!policy_symtab_caller(cfg->symtab, cs, &caller))
			caller = policy_caller_of(cs);
		cls |= policy_random_copy(caller, cfg->random_seed, cfg->random_kmalloc) << 8;
	}
	return cls;
}

/* The bucket set of an event (0 = none): see docs/models.md "kmem_buckets"
 * for each rule's source. */
static uint32_t bucket_of(const struct policy_cfg *cfg, uint32_t cls, uint32_t gfp)
{
	bool user = gfp & POLICY_ROUTE_GFP_HARDWALL;
	switch (cls & 0xff) {
	case SITE_MSG:
		/* alloc_msg: the message head through kmem_buckets_alloc; the
		 * segments of messages over DATALEN_MSG through kmalloc with
		 * GFP_KERNEL_ACCOUNT. The 6.18 head asks GFP_KERNEL (its cache
		 * is SLAB_ACCOUNT), so __GFP_ACCOUNT marks a segment; 6.12 asks
		 * GFP_KERNEL_ACCOUNT for both and a trace cannot tell them. */
		if (cfg->kernel >= POLICY_KERNEL_6_18 && (gfp & POLICY_ROUTE_GFP_ACCOUNT))
			return POLICY_BUCKETS_NONE;
		return POLICY_BUCKETS_MSG_MSG;
	case SITE_VMEMDUP:
		/* kmem_buckets_valloc(user_buckets, len, GFP_USER): vmemdup_user
		 * is the call site only once __kvmalloc_node passes its own
		 * _RET_IP_ (after 6.12), whatever profile such a kernel maps to */
		return POLICY_BUCKETS_MEMDUP_USER;
	case SITE_KVMALLOC:
		/* up to 6.12 every kvmalloc shows __kvmalloc_node_noprof's own
		 * return address; vmemdup_user's is the one asking GFP_USER */
		return user ? POLICY_BUCKETS_MEMDUP_USER : POLICY_BUCKETS_NONE;
	default:
		break;
	}
	/* memdup_user: kmem_buckets_alloc_track_caller(user_buckets, len,
	 * GFP_USER | __GFP_NOWARN) with memdup_user's _RET_IP_, so the event
	 * names memdup_user's caller: only the flags tell */
	if (user && (gfp & POLICY_ROUTE_GFP_NOWARN) && !(gfp & POLICY_ROUTE_GFP_ACCOUNT))
		return POLICY_BUCKETS_MEMDUP_USER;
	return POLICY_BUCKETS_NONE;
}

uint32_t policy_route(const struct policy_cfg *cfg, uint32_t site_class, uint32_t gfp,
		      enum policy_kmalloc_type t)
{
	if (cfg->slab_buckets && cfg->kernel >= POLICY_KERNEL_6_12) {
		uint32_t b = bucket_of(cfg, site_class, gfp);
		if (b)
			return b;
	}
	/* kmalloc_type(): only a kmalloc with none of KMALLOC_NOT_NORMAL_BITS
	 * is spread; __GFP_ACCOUNT is one of them only with CONFIG_MEMCG */
	bool normal =
		t == POLICY_KMALLOC_NORMAL || (t == POLICY_KMALLOC_CGROUP && cfg->no_kmalloc_cg);
	if (policy_random_enabled(cfg) && normal)
		return site_class & 0xff00u;
	return 0;
}
