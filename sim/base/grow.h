/* grow.h - growable arrays: the one doubling step of every table of records
 * that grows by appending (grow_room) or by index (grow_to). */
#ifndef SLABSIM_GROW_H
#define SLABSIM_GROW_H

#include <stddef.h>

/* Make index need of arr, an array of *cap records of elem bytes, exist:
 * the capacity doubles from first (or from *cap) until it does. Returns the
 * array, moved or not, with *cap updated; NULL when out of memory, arr and
 * *cap then unchanged. grow_to zeroes the new records (a table indexed by
 * id, 0 = not set); grow_room leaves them as realloc does (an array filled
 * in order: untouched room costs no memory). */
void *grow_to(void *arr, size_t *cap, size_t need, size_t elem, size_t first);
/* The capacity those take for index need from cap (doubling from first
 * when cap is 0), or 0 when it would overflow size_t (bigmem_grow). */
size_t grow_cap(size_t cap, size_t need, size_t elem, size_t first);
void *grow_room(void *arr, size_t *cap, size_t need, size_t elem, size_t first);

#endif
