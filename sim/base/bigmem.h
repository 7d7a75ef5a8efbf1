/* bigmem.h - large arrays that grow in place, in transparent huge pages.
 *
 * A replay's live table grows by doubling to tens of MiB (32 bytes per live
 * object, its index 8 bytes more). Through malloc every doubling copied the
 * array into fresh memory and every new 4-KiB page cost a page fault: on a
 * 2.16 M-event trace whose live set grows to 0.5 M objects, 14,000 faults, a
 * tenth of the replay's CPU in a virtual machine. Here an array of 1 MiB or
 * more is a mapping of its own, a whole number of 2 MiB long (so that the
 * kernel puts it on a huge-page boundary), grown with mremap (the pages
 * move, nothing is copied) and marked MADV_HUGEPAGE, so that where the
 * kernel has transparent huge pages ("always" or "madvise") a fault maps
 * 2 MiB.
 * Smaller arrays stay on the heap. Memory still follows the array's size:
 * nothing is reserved ahead.
 *
 * Under AddressSanitizer every size stays on the heap, so that its checks
 * still see the arrays' bounds.
 */
#ifndef SLABSIM_BIGMEM_H
#define SLABSIM_BIGMEM_H

#include <stddef.h>

/* p (NULL, or an array bigmem_resize returned for old bytes) resized to
 * new bytes (> 0), its first min(old, new) bytes kept and the rest zeroed.
 * Returns the array, moved or not; NULL when out of memory, p then
 * unchanged. */
void *bigmem_resize(void *p, size_t old, size_t new);

/* grow_to (grow.h) for an array of *cap records of elem bytes that
 * bigmem_resize holds: index need made to exist, the capacity doubling
 * from first, the new records zeroed. NULL when out of memory (arr and
 * *cap then unchanged). */
void *bigmem_grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first);

/* Free p (NULL, or an array of bytes bytes from bigmem_resize). */
void bigmem_free(void *p, size_t bytes);

#endif
