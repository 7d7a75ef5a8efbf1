/* grow.c - growable arrays (see grow.h). */
#include "grow.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t grow_cap(size_t cap, size_t need, size_t elem, size_t first)
{
	size_t ncap = cap ? cap : first;
	while (ncap <= need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return 0;
		ncap *= 2;
	}
	return ncap;
}

static void *grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first, bool zero)
{
	if (need < *cap)
		return arr;
	size_t ncap = grow_cap(*cap, need, elem, first);
	if (!ncap)
		return NULL;
	char *n = realloc(arr, ncap * elem);
	if (!n)
		return NULL;
	if (zero)
		memset(n + *cap * elem, 0, (ncap - *cap) * elem);
	*cap = ncap;
	return n;
}

void *grow_to(void *arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	return grow(arr, cap, need, elem, first, true);
}

void *grow_room(void *arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	return grow(arr, cap, need, elem, first, false);
}
