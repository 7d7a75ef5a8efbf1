/* sat.h - saturating sums of 64-bit counters. A trace's byte fields are
 * 64-bit, so sums of them (perf kmem's requested, allocated and freed
 * bytes, the lost-event counts) can pass 2^64 - 1 on a crafted or corrupt
 * trace: such a sum stops at SAT_MAX instead of wrapping to a small, wrong
 * figure, and the outputs print SAT_MAX as saturated (sat_str). A true sum
 * of exactly 2^64 - 1 reads as saturated too: no trace can hold one. */
#ifndef SLABSIM_SAT_H
#define SLABSIM_SAT_H

#include <stdint.h>

#define SAT_MAX UINT64_MAX

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	/* an add and a conditional move (the compare form took five) */
	return __builtin_add_overflow(a, b, &r) ? SAT_MAX : r;
}

/* What the text outputs print after a saturated sum. */
static inline const char *sat_str(uint64_t v)
{
	return v == SAT_MAX ? " (saturated: the sum exceeds 2^64 - 1)" : "";
}

#endif
