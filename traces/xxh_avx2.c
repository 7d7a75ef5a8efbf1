/* xxh_avx2.c - see xxh_avx2.h. This file alone is compiled for AVX2
 * (-mavx2 on x86-64, traces/meson.build: a pragma is not enough for clang,
 * which builds the fuzz harnesses), with xxhash.h's implementation inlined
 * and its AVX2 path chosen;
 * the state it updates is the library's (the same header, the same
 * layout). Callers check xxh_avx2_usable() first. */
#include "xxh_avx2.h"

#include <stdint.h>

#if defined(__x86_64__) && defined(__AVX2__)
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
