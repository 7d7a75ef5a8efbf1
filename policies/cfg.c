/* cfg.c - policy_cfg defaults and the slub_debug letters.
 *
 * The parser follows setup_slub_debug() (v5.4) and parse_slub_debug_flags()
 * (v6.1) in mm/slub.c for what a letter means, and, like both, ignores case.
 * It is stricter than the kernel where the kernel would silently do
 * something the model cannot: the kernel logs "option unknown. skipped" and
 * carries on, we refuse, so a typo cannot turn into a run without the
 * intended debug flags. What is refused and why:
 *   O     disable_higher_order_debug: drop Z P U for caches whose minimum
 *         order they would raise. A global switch with no POLICY_F_ bit to
 *         carry it; not modelled.
 *   , ;   per-cache lists ("FZ,dentry") and 6.1's ';'-separated blocks:
 *         cfg->slub_debug applies to every cache.
 *   -     only accepted alone: 5.4 reads a leading '-' as "off" and ignores
 *         the rest, 6.1 reads any '-' as "reset so far"; alone both agree.
 * A (SLAB_FAILSLAB) is accepted and dropped: it changes no layout, and on a
 * kernel without CONFIG_FAILSLAB (Debian's) the flag is 0 anyway. On a
 * kernel with it, A would also block merging (SLAB_NEVER_MERGE); we lose that.
 * Our own spellings: "" means not given (the kernel's bare "slub_debug=" is
 * full debugging) and "1"/"all" stand for the bare "slub_debug" = F Z P U.
 */
#include "policy.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DEBUG_DEFAULT_FLAGS: what a bare slub_debug switches on */
#define DEBUG_DEFAULT_FLAGS                                                                        \
	(POLICY_F_CONSISTENCY | POLICY_F_RED_ZONE | POLICY_F_POISON | POLICY_F_STORE_USER)

void policy_cfg_default(struct policy_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->kernel = POLICY_KERNEL_5_4;
	c->align = POLICY_ALIGN_NATURAL;
	c->slub_debug = 0;
	c->nr_cpus = 2;
	c->slub_min_order = 0;
	c->slub_max_order = 3; /* PAGE_ALLOC_COSTLY_ORDER */
	c->slub_min_objects = 0;
	c->nomerge = false;
	c->cpu_partial = true;
	c->cache_line = 64;
	c->slab_debug = false;
	c->slab_max_order = 1;
}

static bool is_word(const char *s, const char *word)
{
	for (; *s && *word; s++, word++)
		if (tolower((unsigned char)*s) != *word)
			return false;
	return !*s && !*word;
}

int policy_parse_slub_debug(const char *s, uint32_t *flags, struct err *e)
{
	uint32_t f = 0;

	if (!s || !*s || strcmp(s, "-") == 0) {
		*flags = 0;
		return 0;
	}
	if (strcmp(s, "1") == 0 || is_word(s, "all")) {
		*flags = DEBUG_DEFAULT_FLAGS;
		return 0;
	}
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		switch (tolower(c)) {
		case 'f':
			f |= POLICY_F_CONSISTENCY;
			break;
		case 'z':
			f |= POLICY_F_RED_ZONE;
			break;
		case 'p':
			f |= POLICY_F_POISON;
			break;
		case 'u':
			f |= POLICY_F_STORE_USER;
			break;
		case 't':
			f |= POLICY_F_TRACE;
			break;
		case 'a':
			break; /* failslab: no layout effect (see top of file) */
		case 'o':
			return err_set(e, SLABSIM_EUSAGE, "slub_debug option '%c' is not modelled",
				       c);
		case ',':
		case ';':
			return err_set(e, SLABSIM_EUSAGE,
				       "slub_debug '%s': per-cache lists (',' and ';') are not "
				       "modelled; the letters apply to every cache",
				       s);
		default:
			if (isprint(c))
				return err_set(
					e, SLABSIM_EUSAGE,
					"slub_debug option '%c' unknown in '%s' (letters F Z "
					"P U T A, or '-' alone for none)",
					c, s);
			return err_set(
				e, SLABSIM_EUSAGE,
				"slub_debug option byte 0x%02x unknown (letters F Z P U T A, "
				"or '-' alone for none)",
				c);
		}
	}
	*flags = f;
	return 0;
}

const char *policy_slub_debug_str(uint32_t flags, char *buf)
{
	static const struct {
		uint32_t bit;
		char letter;
	} letters[] = {
		{POLICY_F_CONSISTENCY, 'F'}, {POLICY_F_RED_ZONE, 'Z'}, {POLICY_F_POISON, 'P'},
		{POLICY_F_STORE_USER, 'U'},  {POLICY_F_TRACE, 'T'},
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(letters) / sizeof(letters[0]); i++)
		if (flags & letters[i].bit)
			buf[n++] = letters[i].letter;
	if (n == 0)
		buf[n++] = '-';
	buf[n] = '\0';
	return buf;
}

const char *policy_align_name(enum policy_align a)
{
	switch (a) {
	case POLICY_ALIGN_NONE:
		return "none";
	case POLICY_ALIGN_NATURAL:
		return "natural";
	case POLICY_ALIGN_CAP512:
		return "cap512";
	case POLICY_ALIGN_OWN_CACHES:
		return "own-caches";
	case POLICY_ALIGN_MERGED:
		return "merged";
	case POLICY_ALIGN_KMALLOC_CACHES:
		return "kmalloc-aligned-caches";
	case POLICY_ALIGN_OVERALLOC:
		return "kmalloc-aligned-overalloc";
	case POLICY_ALIGN_POW2_DIVISOR:
		return "pow2-divisor";
	case POLICY_ALIGN_NR:
		break;
	}
	return "?";
}

/* Each profile's release, in enum order. */
static const struct {
	unsigned major, minor;
	const char *name;
} kernel_rel[POLICY_KERNEL_NR] = {
	[POLICY_KERNEL_5_4] = {5, 4, "5.4"},	[POLICY_KERNEL_6_1] = {6, 1, "6.1"},
	[POLICY_KERNEL_6_6] = {6, 6, "6.6"},	[POLICY_KERNEL_6_12] = {6, 12, "6.12"},
	[POLICY_KERNEL_6_18] = {6, 18, "6.18"}, [POLICY_KERNEL_7_0] = {7, 0, "7.0"},
};

enum policy_kernel policy_kernel_for(unsigned major, unsigned minor)
{
	unsigned v = major * 1000 + minor;
	if (v < 5016)
		return POLICY_KERNEL_5_4;
	enum policy_kernel k = POLICY_KERNEL_6_1;
	for (int i = POLICY_KERNEL_6_1 + 1; i < POLICY_KERNEL_NR; i++)
		if (v >= kernel_rel[i].major * 1000 + kernel_rel[i].minor)
			k = (enum policy_kernel)i;
	return k;
}

const char *policy_kernel_name(enum policy_kernel k)
{
	return k >= 0 && k < POLICY_KERNEL_NR ? kernel_rel[k].name : "?";
}

bool policy_kernel_is_exact(enum policy_kernel k, unsigned major, unsigned minor)
{
	return k >= 0 && k < POLICY_KERNEL_NR && kernel_rel[k].major == major &&
	       kernel_rel[k].minor == minor;
}

int policy_parse_kernel(const char *s, enum policy_kernel *out, bool *exact, struct err *e)
{
	char *end;
	unsigned long major = strtoul(s, &end, 10), minor;
	if (end == s || *s < '0' || *s > '9' || *end != '.' || end[1] < '0' || end[1] > '9')
		goto bad;
	minor = strtoul(end + 1, &end, 10);
	if ((*end && *end != '.' && *end != '-' && *end != '+') || major < 2 || major > 99 ||
	    minor > 999)
		goto bad;
	*out = policy_kernel_for((unsigned)major, (unsigned)minor);
	if (exact)
		*exact = policy_kernel_is_exact(*out, (unsigned)major, (unsigned)minor);
	return 0;
bad:
	return err_set(
		e, SLABSIM_EUSAGE,
		"expected a kernel version MAJOR.MINOR (e.g. 5.4, 6.1, 6.12, 6.18), got '%s'", s);
}

enum policy_align policy_kernel_align(enum policy_kernel k)
{
	/* 6.11 (ad59baa31695) widened create_boot_cache's rule; the 6.6
	 * profile predates it */
	return k >= POLICY_KERNEL_6_12 ? POLICY_ALIGN_POW2_DIVISOR : POLICY_ALIGN_NATURAL;
}

const char *policy_what_if(const struct policy_cfg *cfg, const char *allocator, char *buf, size_t n)
{
	const char *why[8];
	size_t k = 0;
	enum policy_kernel kr = cfg->kernel;
	if (allocator && strcmp(allocator, "slob") == 0 && kr >= POLICY_KERNEL_6_6)
		why[k++] = "SLOB was removed in Linux 6.4";
	if (allocator && strcmp(allocator, "slab") == 0 && kr >= POLICY_KERNEL_6_12)
		why[k++] = "SLAB was removed in Linux 6.8";
	if (cfg->slub_tiny && kr < POLICY_KERNEL_6_6)
		why[k++] = "SLUB_TINY came in Linux 6.2";
	if (cfg->random_kmalloc && kr < POLICY_KERNEL_6_6)
		why[k++] = "RANDOM_KMALLOC_CACHES came in Linux 6.6";
	if (cfg->slab_buckets && kr < POLICY_KERNEL_6_12)
		why[k++] = "SLAB_BUCKETS came in Linux 6.11";
	/* the sheaves' what-ifs change nothing before 6.18 (no sheaves) */
	bool sheaves = kr >= POLICY_KERNEL_6_18 && (!allocator || !strcmp(allocator, "slub"));
	if (cfg->sheaf_capacity && sheaves)
		why[k++] = "sheaf_capacity other than the kernel's rule";
	if (cfg->barn_limit && sheaves)
		why[k++] = "barn limits other than the kernel's (10 full, 10 empty)";
	bool align_new = kr >= POLICY_KERNEL_6_6 || cfg->align == POLICY_ALIGN_POW2_DIVISOR;
	if (align_new && cfg->align != policy_kernel_align(kr))
		why[k++] = "align";
	if (!k)
		return NULL;
	size_t w = 0;
	for (size_t i = 0; i < k && w < n; i++) {
		int r = strcmp(why[i], "align")
				? snprintf(buf + w, n - w, "%s%s", i ? "; " : "", why[i])
				: snprintf(buf + w, n - w,
					   "%s--align %s, where the %s profile's rule is %s",
					   i ? "; " : "", policy_align_name(cfg->align),
					   policy_kernel_name(kr),
					   policy_align_name(policy_kernel_align(kr)));
		if (r < 0)
			break;
		w += (size_t)r;
	}
	return buf;
}

int policy_parse_random_seed(const char *s, uint64_t *out, struct err *e)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *d = hex ? s + 2 : s;
	size_t n = strspn(d, hex ? "0123456789abcdefABCDEF" : "0123456789");
	char *end;
	errno = 0;
	unsigned long long v = n ? strtoull(d, &end, hex ? 16 : 10) : 0;
	/* strtoull alone would take a sign, spaces and an overflow */
	if (!n || d[n] || errno || (hex && n > 16))
		return err_set(e, SLABSIM_EUSAGE,
			       "expected a seed: 0x and 1 to 16 hex digits, or a decimal number "
			       "below 2^64, got '%s'",
			       s);
	*out = v;
	return 0;
}

int policy_parse_align(const char *s, enum policy_align *out, struct err *e)
{
	for (int i = 0; i < POLICY_ALIGN_NR; i++) {
		if (strcmp(s, policy_align_name((enum policy_align)i)) == 0) {
			*out = (enum policy_align)i;
			return 0;
		}
	}
	return err_set(e, SLABSIM_EUSAGE,
		       "expected none, natural, cap512, own-caches, merged, "
		       "kmalloc-aligned-caches, kmalloc-aligned-overalloc or pow2-divisor, got "
		       "'%s'",
		       s);
}
