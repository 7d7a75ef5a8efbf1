/* datfile.h - the container of a trace-cmd trace.dat, read in process.
 *
 * Internal to traces/ (tracedat.c): the parts of a file of version 6 or 7
 * that replaying its kmem events needs, found without parsing what it does
 * not need: the ring-buffer page header's format, the event formats by
 * system and id (as text, for evformat.c or libtraceevent to parse the few
 * that matter), the kernel symbol table, the per-CPU statistics, and every
 * CPU's pages in order, decompressed a chunk at a time. Nothing here trusts
 * the file: every length is checked against what holds it. A file of a
 * shape this reader does not claim (another version, a latency trace,
 * timestamps to shift or convert, a compression it lacks, CPUs not numbered
 * 0..N-1) is "not handled": the caller reads it through libtracecmd
 * instead.
 */
#ifndef SLABSIM_DATFILE_H
#define SLABSIM_DATFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct datfile;

/* One event format file of the trace: its system, name and id as its
 * text says ("name: N", "ID: N"), the text itself (not NUL-terminated). */
struct datfile_format {
	const char *system; /* NUL-terminated, in the file's buffer */
	const char *name;   /* NUL-terminated copy */
	int id;		    /* -1: no ID line */
	const char *text;
	size_t len;
};

/* Open the trace.dat at fd (not owned). Returns 0 with *out, 1 when the
 * file is not one this reader handles (*out NULL; malformed files are
 * among them: libtracecmd's reader then says what is wrong), or
 * SLABSIM_ENOMEM. */
int datfile_open(int fd, struct datfile **out);

/* The tracing data a perf.data stores (its HEADER_TRACING_DATA feature
 * section), [p, p + n), borrowed until datfile_close: the same formats,
 * headers and byte order, and no CPU data (datfile_cpus 0). Returns 0 with
 * *out, 1 when it is not of that shape, or SLABSIM_ENOMEM. */
int datfile_open_tracing(const uint8_t *p, size_t n, struct datfile **out);
void datfile_close(struct datfile *d);

/* The file's byte order, the traced kernel's long size and page size. */
bool datfile_big_endian(const struct datfile *d);
int datfile_long_size(const struct datfile *d);
int datfile_page_size(const struct datfile *d);

/* The header_page format text (what tep_parse_header_page takes). */
const char *datfile_header_page(const struct datfile *d, size_t *len);

/* The event formats, the ftrace system's first. */
size_t datfile_nformats(const struct datfile *d);
const struct datfile_format *datfile_format(const struct datfile *d, size_t i);

/* The kernel symbol table's text (kallsyms lines), NUL-terminated; NULL
 * when the file has none. */
const char *datfile_kallsyms(const struct datfile *d);

/* The per-CPU statistics texts, one after the other (each ends in a
 * newline), NUL-terminated; NULL when the file stores none. */
const char *datfile_cpustats(const struct datfile *d);

/* The number of CPUs with data (numbered 0..N-1). */
int datfile_cpus(const struct datfile *d);

/* The next page of cpu's data: 1 with *page (datfile_page_size bytes, then
 * at least 64 zero bytes, valid until the next call for that cpu), 0 at the
 * end of its data, -1 when the data is corrupt (a chunk that does not
 * decompress to what its header says) or memory ran out. */
int datfile_next_page(struct datfile *d, int cpu, const uint8_t **page);

#endif
