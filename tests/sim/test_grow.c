/* test_grow.c - growable arrays (sim/base/grow.h): the capacity doubles from
 * `first` to the first power-of-two multiple past the index asked for,
 * grow_to zeroes what it adds and keeps what was there, grow_room keeps the
 * contents, and a capacity that would overflow size_t fails with the array
 * and capacity untouched. */
#include "check.h"
#include "grow.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

int main(void)
{
	size_t cap = 0;
	uint32_t *a = grow_to(NULL, &cap, 1000, sizeof(*a), 256);
	CHECK_EQ_U64("index 1000 from nothing, first 256: capacity 1024", cap, 1024);
	bool zero = a != NULL;
	for (size_t i = 0; zero && i < cap; i++)
		zero = a[i] == 0;
	CHECK("grow_to gives zeroed records", zero);
	for (size_t i = 0; a && i < cap; i++)
		a[i] = (uint32_t)i + 7;
	uint32_t *b = grow_to(a, &cap, 1023, sizeof(*a), 256);
	CHECK("an index within the capacity: the same array", b == a && cap == 1024);
	b = grow_to(a, &cap, 1024, sizeof(*a), 256);
	bool kept = b != NULL && cap == 2048;
	for (size_t i = 0; kept && i < 1024; i++)
		kept = b[i] == i + 7;
	for (size_t i = 1024; kept && i < 2048; i++)
		kept = b[i] == 0;
	CHECK("index 1024: capacity 2048, old records kept, new ones zero", kept);
	a = b;

	size_t rcap = 3;
	uint64_t *r = malloc(3 * sizeof(*r));
	if (r)
		r[0] = 11, r[1] = 22, r[2] = 33;
	uint64_t *r2 = grow_room(r, &rcap, 3, sizeof(*r), 4096);
	CHECK("grow_room doubles the capacity it has (3 -> 6), contents kept",
	      r2 && rcap == 6 && r2[0] == 11 && r2[1] == 22 && r2[2] == 33);
	if (r2)
		r = r2;

	size_t big = 8;
	void *none = grow_to(a, &big, SIZE_MAX / 4, 16, 8);
	CHECK("a capacity past SIZE_MAX bytes: NULL, capacity unchanged", !none && big == 8);
	free(a);
	free(r);
	return check_done();
}
