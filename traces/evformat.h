/* evformat.h - a trace event's format file (tracefs events/SYS/NAME/format,
 * as a trace.dat stores it) read in process.
 *
 * Internal to traces/ (tracedat.c): what replaying the kmem events needs of
 * a format, found without libtraceevent's format parser (about 3 M
 * instructions for one kmem allocation format, most of them in its gfp flag
 * table, and run twice: in a forked probe, then for real): the fields'
 * places, the print format's string, and the __print_flags table over
 * gfp_flags with its values worked out. Only formats of a plain shape are
 * taken (fields one to a line, one string literal, flag values built of
 * numbers, casts, parentheses, ~, |, & and <<, no operators mixed unbracketed,
 * every value within 32 bits), so that what is read here is what
 * libtraceevent makes of them; anything else is "not taken" and the caller
 * parses the file's formats through libtraceevent as before. Nothing here
 * trusts the text: every read is bounded by its length.
 */
#ifndef SLABSIM_EVFORMAT_H
#define SLABSIM_EVFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct evformat;

/* A field's place in a record; found false (offset -1): no such field. */
enum { EVFORMAT_DYNAMIC = 1, EVFORMAT_RELATIVE = 2 };
struct evformat_field {
	int offset, size;
	unsigned flags; /* EVFORMAT_*: "__data_loc", "__rel_loc" */
	bool found;
};

/* Parse the format text[0, len). like: NULL, or a format parsed before
 * whose text is still there: a gfp table of the same bytes as its table
 * (the slab allocation events share one) is copied from it, not worked
 * out again. Returns 0 with *out, 1 when the text is not of a shape taken
 * here (*out NULL), or SLABSIM_ENOMEM. */
int evformat_parse(const char *text, size_t len, const struct evformat *like,
		   struct evformat **out);

void evformat_free(struct evformat *f);

/* The field called name, among the event's own fields or (common) its
 * common ones (the first of that name). */
struct evformat_field evformat_field(const struct evformat *f, const char *name, bool common);

/* The print format's string (NUL-terminated, without its quotes). */
const char *evformat_print(const struct evformat *f);

/* The first __print_flags over REC->gfp_flags in the print arguments
 * (outside any other call): its entries' values and names, in order.
 * Returns their count, 0 when there is no such table. */
size_t evformat_gfp_table(const struct evformat *f, const uint64_t **val, const char *const **name);

/* The commit field's size in a header_page format text (the kernel's long
 * size), or -1 when the text is not of the usual shape. */
int evformat_header_commit_size(const char *text, size_t len);

/* gfp_flags as the text parser reads them (trace.h's TRACE_GFP_* bits):
 * the bit a flag name of a __print_flags table stands for (0: none kept);
 * the bits of a raw value in v5.4+ numbering (a value no table entry
 * names is printed in hex); and the bits of the names a table of n entries
 * (values fval, their bits fbits) gives val, TRACE_GFP_KNOWN included. */
uint32_t evformat_gfp_named(const char *name);
uint32_t evformat_gfp_raw(uint64_t raw);
uint32_t evformat_gfp_walk(const uint64_t *fval, const uint32_t *fbits, int n, uint64_t val);

#endif
