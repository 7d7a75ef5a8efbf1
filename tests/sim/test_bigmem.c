/* test_bigmem.c - large arrays (sim/base/bigmem.h): an array grown from the
 * heap past 1 MiB into a mapping of its own, and on by doubling, keeps its
 * contents and reads zero in every byte it gained; shrinking keeps the
 * head, and bytes regained after a shrink read zero again. Under
 * AddressSanitizer every size stays on the heap and the same must hold. */
#include "bigmem.h"
#include "check.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* bytes [from, to) of p read zero */
static bool zero(const unsigned char *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (p[i])
			return false;
	return true;
}

/* bytes [0, n) of p hold the pattern put */
static bool pattern(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 131 + 7))
			return false;
	return true;
}

static void put(unsigned char *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		p[i] = (unsigned char)(i * 131 + 7);
}

int main(void)
{
	/* 4 KiB -> 64 MiB by doubling, filling each array as it grows */
	size_t n = 4096;
	unsigned char *p = bigmem_resize(NULL, 0, n);
	bool ok = p && zero(p, 0, n), kept = true, zeroed = ok;
	if (p)
		put(p, 0, n);
	while (ok && n < (64u << 20)) {
		unsigned char *q = bigmem_resize(p, n, n * 2);
		if (!q) {
			ok = false;
			break;
		}
		kept &= pattern(q, n);
		zeroed &= zero(q, n, n * 2);
		put(q, n, n * 2);
		p = q;
		n *= 2;
	}
	CHECK("bigmem: 4 KiB grown to 64 MiB by doubling, across the 1 MiB line", ok);
	CHECK("bigmem: every doubling keeps the contents", kept);
	CHECK("bigmem: every doubling's new bytes read zero", zeroed);

	/* an odd size: not a multiple of the page */
	size_t odd = (3u << 20) + 123;
	unsigned char *q = ok ? bigmem_resize(p, n, odd) : NULL;
	ok = q && pattern(q, odd);
	CHECK("bigmem: shrunk to 3 MiB + 123 bytes, the head kept", ok);
	if (q)
		p = q, n = odd;
	q = ok ? bigmem_resize(p, n, 5u << 20) : NULL;
	ok = q && pattern(q, odd) && zero(q, odd, 5u << 20);
	CHECK("bigmem: grown again to 5 MiB, the bytes past the shrink read zero", ok);
	if (q)
		p = q, n = 5u << 20;

	/* back under 1 MiB: onto the heap */
	q = ok ? bigmem_resize(p, n, 100000) : NULL;
	ok = q && pattern(q, 100000);
	CHECK("bigmem: shrunk under 1 MiB, the head kept", ok);
	if (q)
		p = q, n = 100000;
	q = ok ? bigmem_resize(p, n, 200000) : NULL;
	ok = q && pattern(q, 100000) && zero(q, 100000, 200000);
	CHECK("bigmem: grown on the heap, the new bytes read zero", ok);
	if (q)
		p = q, n = 200000;
	bigmem_free(p, n);
	bigmem_free(NULL, 0);

	/* bigmem_grow: grow_to's doubling from `first` */
	size_t cap = 0;
	uint32_t *g = bigmem_grow(NULL, &cap, 5000, sizeof(*g), 4096);
	CHECK_EQ_U64("bigmem_grow: index 5000 from nothing, first 4096: capacity 8192", cap, 8192);
	ok = g && zero((const unsigned char *)g, 0, cap * sizeof(*g));
	for (size_t i = 0; g && i < cap; i++)
		g[i] = (uint32_t)i;
	uint32_t *h = g ? bigmem_grow(g, &cap, 8191, sizeof(*g), 4096) : NULL;
	ok = ok && h == g && cap == 8192;
	h = h ? bigmem_grow(h, &cap, 600000, sizeof(*h), 4096) : NULL;
	ok = ok && h && cap == 1048576 && zero((const unsigned char *)h, 8192 * 4, cap * 4);
	for (size_t i = 0; ok && i < 8192; i++)
		ok = h[i] == i;
	CHECK("bigmem_grow: the same array within the capacity; past it 1 Mi records (4 MiB), "
	      "the old ones kept, the new ones zero",
	      ok);
	bigmem_free(h ? h : g, cap * sizeof(*g));

	/* straight into a mapping */
	p = bigmem_resize(NULL, 0, 8u << 20);
	ok = p && zero(p, 0, 8u << 20);
	CHECK("bigmem: 8 MiB from nothing reads zero", ok);
	bigmem_free(p, 8u << 20);
	return check_done();
}
