/* xxh_avx2.h - the trace identity's XXH3-128 update with AVX2 when the CPU
 * has it (the input's bytes are hashed as they are read: issue 28). */
#ifndef SLABSIM_XXH_AVX2_H
#define SLABSIM_XXH_AVX2_H

#include <stdbool.h>
#include <stddef.h>

/* Whether this CPU runs xxh_avx2_update (checked once per reader). */
/* Defined here, compiled with its caller's flags: xxh_avx2.c is compiled
 * for AVX2 and may use AVX2 anywhere in it. */
static inline bool xxh_avx2_usable(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
#else
	return false;
#endif
}
/* XXH3_128bits_update of libxxhash on st (an XXH3_state_t *), computed with AVX2: the same state
 * and the same digest (XXH3 is defined independently of its vector width), about a third of the
 * instructions of the library's SSE2 build. */
void xxh_avx2_update(void *st, const void *p, size_t n);

#endif
