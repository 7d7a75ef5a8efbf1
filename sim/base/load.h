/* load.h - words read from any byte address (a trace line, a record in a
 * file's buffer), in the machine's byte order: one load each, which the
 * compiler makes of a fixed-size memcpy, without the undefined behaviour of
 * a cast pointer. */
#ifndef SLABSIM_LOAD_H
#define SLABSIM_LOAD_H

#include <stdint.h>
#include <string.h>

static inline __attribute__((always_inline)) uint64_t load8(const void *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
	return x;
}

static inline __attribute__((always_inline)) uint32_t load4(const void *p)
{
	uint32_t x;

	memcpy(&x, p, 4);
	return x;
}

#endif
