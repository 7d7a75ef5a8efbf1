/* xxh_avx2.c - see xxh_avx2.h. This file alone is compiled for AVX2 (the
 * pragma), with xxhash.h's implementation inlined and its AVX2 path chosen;
 * the state it updates is the library's (the same header, the same
 * layout). Callers check xxh_avx2_usable() first. */
#include "xxh_avx2.h"

#include <stdint.h>

bool xxh_avx2_usable(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
#else
	return false;
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2")
#define XXH_INLINE_ALL
#define XXH_VECTOR XXH_AVX2
#include <xxhash.h>

void xxh_avx2_update(void *st, const void *p, size_t n)
{
	(void)XXH3_128bits_update((XXH3_state_t *)st, p, n);
}
#else
void xxh_avx2_update(void *st, const void *p, size_t n)
{
	(void)st;
	(void)p;
	(void)n;
}
#endif
