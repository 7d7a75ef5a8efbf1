/* tepgfp.h - the gfp flag table of an event's print format, as
 * libtraceevent parses it.
 *
 * kmalloc and kmem_cache_alloc print gfp_flags through __print_flags; the
 * readers that go through libtraceevent (tracedat.c for a trace.dat,
 * ktrace.c for `slabsim live`, tests/traces/test_evformat.c as the
 * reference of evformat.h) take their flag names from that table.
 * Compiled only with libtraceevent (SLABSIM_HAVE_TRACECMD or
 * SLABSIM_HAVE_TRACEFS).
 */
#ifndef SLABSIM_TEPGFP_H
#define SLABSIM_TEPGFP_H

#if defined(SLABSIM_HAVE_TRACECMD) || defined(SLABSIM_HAVE_TRACEFS)
#include <traceevent/event-parse.h>

/* The __print_flags argument over the field gfp_flags anywhere in the
 * argument list arg (through operators and casts), or NULL. */
struct tep_print_arg *tepgfp_table(struct tep_print_arg *arg);
#endif

#endif
