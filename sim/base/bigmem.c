/* bigmem.c - large arrays in mappings of their own (see bigmem.h). */
#define _GNU_SOURCE /* mremap */
#include "bigmem.h"
#include "grow.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define BIGMEM_HEAP_ONLY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BIGMEM_HEAP_ONLY 1
#endif
#endif

/* A mapping's length is a whole number of huge pages: the kernel places
 * such anonymous mappings on a huge-page boundary (since 6.7; 6.13 on only
 * those), so that all of it can be huge pages. Other lengths left a 4-KiB
 * head and tail: a perf.data replay's 27 MiB look-ahead queue took 1,171
 * faults where 14 would do, each some microseconds in this project's
 * virtual machine. An array's last huge page may hold up to 2 MiB past its
 * end once touched. */
enum { BIGMEM_MIN = 1 << 20, BIGMEM_PAGE = 2 << 20 };

static bool mapped(size_t bytes)
{
#ifdef BIGMEM_HEAP_ONLY
	(void)bytes;
	return false;
#else
	return bytes >= BIGMEM_MIN;
#endif
}

static size_t pages_of(size_t bytes)
{
	return (bytes + BIGMEM_PAGE - 1) & ~(size_t)(BIGMEM_PAGE - 1);
}

static void *map(size_t bytes)
{
	void *m = mmap(NULL, pages_of(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (m == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	/* advice only: a kernel without transparent huge pages refuses it */
	(void)madvise(m, pages_of(bytes), MADV_HUGEPAGE);
#endif
	return m;
}

void *bigmem_resize(void *p, size_t old, size_t new)
{
	if (!p)
		old = 0;
	if (!mapped(new)) {
		if (mapped(old)) { /* shrunk back onto the heap */
			char *n = malloc(new);
			if (!n)
				return NULL;
			memcpy(n, p, new);
			(void)munmap(p, pages_of(old));
			return n;
		}
		char *n = realloc(p, new);
		if (n && new > old)
			memset(n + old, 0, new - old);
		return n;
	}
	if (!mapped(old)) {
		/* from the heap into a mapping: anonymous pages come zeroed */
		char *n = map(new);
		if (!n)
			return NULL;
		if (old)
			memcpy(n, p, old < new ? old : new);
		free(p);
		return n;
	}
	size_t op = pages_of(old), np = pages_of(new);
	if (np == op) {
		if (new < old)
			memset((char *)p + new, 0, old - new);
		return p;
	}
	char *n = mremap(p, op, np, MREMAP_MAYMOVE);
	if (n == MAP_FAILED)
		return NULL;
	if (new < old)
		memset(n + new, 0, np - new); /* zero the tail of the last page */
#ifdef MADV_HUGEPAGE
	else
		(void)madvise(n, np, MADV_HUGEPAGE);
#endif
	return n;
}

void *bigmem_grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	if (need < *cap)
		return arr;
	size_t ncap = grow_cap(*cap, need, elem, first);
	char *n = ncap ? bigmem_resize(arr, *cap * elem, ncap * elem) : NULL;
	if (n)
		*cap = ncap;
	return n;
}

void bigmem_free(void *p, size_t bytes)
{
	if (!p)
		return;
	if (mapped(bytes))
		(void)munmap(p, pages_of(bytes));
	else
		free(p);
}
