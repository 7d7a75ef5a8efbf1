/* sites.h - a sites file: the callers that need their kmallocs aligned.
 *
 * The alignment policies of the 2019 debate that serve named callers
 * (policy_align_by_site() in policy.h) read them from a file of lines
 *     PATTERN ALIGN        # comment
 * PATTERN is a glob (fnmatch(3): * ? [..]) matched against the whole call
 * site as the trace prints it ("xfs_buf_alloc+0x1f/0x200"): `xfs_buf_*`,
 * `bio_*+0x*`. ALIGN is `natural` (power-of-two sizes aligned to their
 * size) or a power of two from 8 to 4096 (bytes). '#' starts a comment at
 * the start of a line or after blanks; blank lines are skipped. The first
 * line whose pattern matches a site decides. docs/models.md has the format
 * and `slabsim query sites-file` writes one from a run's violations.
 */
#ifndef SLABSIM_SITES_H
#define SLABSIM_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct policy_sites;

/* Read the sites file at path. OUT: *out (policy_sites_destroy), NULL on
 * error. Errors: SLABSIM_EIO (unreadable), SLABSIM_EINPUT with
 * "path:line: " and what was expected (a bad alignment, a missing or extra
 * field, a NUL byte, a line over 4096 bytes, a file with no pattern),
 * SLABSIM_ENOMEM. */
int policy_sites_load(const char *path, struct policy_sites **out, struct err *e);
/* The same from text held in memory (for tests); name stands in for the path. */
int policy_sites_parse(const char *name, const char *text, size_t len, struct policy_sites **out,
		       struct err *e);
/* s may be NULL. */
void policy_sites_destroy(struct policy_sites *s);

/* The rule of the first line matching site: 0 (not listed),
 * POLICY_NEED_NATURAL, or the bytes. s may be NULL (0). */
uint32_t policy_sites_need(const struct policy_sites *s, const char *site);

/* The path given to load (the name given to parse), FNV-1a 64 of the
 * file's bytes as 16 hex digits, and the number of patterns; valid until
 * destroy. */
const char *policy_sites_path(const struct policy_sites *s);
const char *policy_sites_hash(const struct policy_sites *s);
size_t policy_sites_count(const struct policy_sites *s);
/* Pattern i (< count) and its rule. */
const char *policy_sites_pattern(const struct policy_sites *s, size_t i, uint32_t *need);

#endif
