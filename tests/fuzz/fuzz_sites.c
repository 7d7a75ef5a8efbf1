/* fuzz_sites.c - libFuzzer harness for the sites file parser and matcher
 * (policies/sites.h).
 *
 * The input is a sites file named "fuzz.sites". A failed parse must be bad
 * input (SLABSIM_EINPUT) naming "fuzz.sites:" (a line, or 0 for a file with
 * no pattern). A parsed file must hold at least one pattern, each with a
 * rule that is natural or a power of two from 8 to 4096, and matching any
 * string (its own patterns included) must return 0 or one of those rules.
 */
#include "policy.h"
#include "sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME "fuzz.sites"

static int rule_ok(uint32_t need)
{
	return need == POLICY_NEED_NATURAL ||
	       (need >= 8 && need <= 4096 && (need & (need - 1)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_sites *s;
	struct err e;
	err_clear(&e);
	int rc = policy_sites_parse(NAME, (const char *)data, size, &s, &e);
	if (rc) {
		if (rc == SLABSIM_ENOMEM)
			return 0;
		if (rc != SLABSIM_EINPUT || strncmp(e.msg, NAME ":", strlen(NAME) + 1) != 0) {
			fprintf(stderr, "fuzz_sites: unexpected error %d: %s\n", rc, e.msg);
			abort();
		}
		return 0;
	}
	size_t n = policy_sites_count(s);
	if (!n)
		abort();
	static const char *const probes[] = {"xfs_buf_alloc+0x10/0x100", "bio_alloc+0x20/0x80", "",
					     "0xffffffff81234567", "a"};
	for (size_t i = 0; i < n + sizeof(probes) / sizeof(probes[0]); i++) {
		uint32_t need;
		const char *str = i < n ? policy_sites_pattern(s, i, &need) : probes[i - n];
		if (i < n && !rule_ok(need))
			abort();
		need = policy_sites_need(s, str);
		if (need && !rule_ok(need))
			abort();
	}
	policy_sites_destroy(s);
	return 0;
}
