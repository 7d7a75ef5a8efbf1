/* perfdata.h - a perf.data of kmem tracepoints as the lines `perf script`
 * prints.
 *
 * Internal to traces/: trace.c hands a perf.data (recognised by its magic,
 * "PERFILE2") to this reader and counts what it returns as it counts the
 * lines of text, so that `slabsim replay perf.data` gives what `perf script
 * -i perf.data | slabsim replay -` gives, without perf script's printing
 * and the text parser's reading (perfdata.c says how each field is made as
 * perf 6.1 prints it). A "line" is one perf script prints: one per sample,
 * in its order. Only the file form (`perf record -o FILE`, not `-o -`) of a
 * little-endian 64-bit recording without `-z` is read; anything else is
 * refused with a message naming the file and what was expected.
 */
#ifndef SLABSIM_PERFDATA_H
#define SLABSIM_PERFDATA_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "trace.h"

struct perfdata;

/* Open the perf.data at fd (a regular file at offset 0, owned from here
 * on). kallsyms: a kernel symbol table to name call sites by (the text of
 * /proc/kallsyms), or NULL for perf's own search: the build-id cache
 * ($HOME/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms, which perf record
 * fills), then /proc/kallsyms when the running kernel is the recorded one
 * (same build id). OUT: *out. Errors: SLABSIM_EINPUT (not a perf.data of
 * that form, or a kallsyms that cannot be read), SLABSIM_ENOMEM. */
int perfdata_open(int fd, const char *path, const char *kallsyms, struct perfdata **out,
		  struct err *e);

/* Hand every byte of the file, in order, to hash(ctx, p, n) as it is read:
 * what comes before the data section now, the data section as it is read,
 * the rest at its end (perfdata_next's 0). For the input's identity
 * without a second read of the file. */
void perfdata_hash(struct perfdata *d, void (*hash)(void *ctx, const void *p, size_t n), void *ctx);

/* The next line: 1 with *kind (TRACE_LINE_EVENT with *ev filled, its
 * strings valid until perfdata_close; TRACE_LINE_OTHER_EVENT for a sample
 * of another event), 0 at the end, SLABSIM_ENOMEM, SLABSIM_EINPUT with the reason in msg (256
 * bytes) for a slab sample that lacks a field (the next call goes on), or, when perfdata_failure()
 * is then not NULL, for a file that cannot be read on. skip_fields as in trace_opts. */
int perfdata_next(struct perfdata *d, struct trace_event *ev, enum trace_line_kind *kind,
		  uint32_t skip_fields, char *msg);

/* Not NULL once the file cannot be read on (cut or corrupt records). */
const struct err *perfdata_failure(const struct perfdata *d);

/* Events lost: the larger of what the LOST records count (the kernel's
 * ring buffer was full) and what the LOST_SAMPLES records perf record
 * writes at its exit count (the same events again); false when the file
 * has neither. */
bool perfdata_lost(const struct perfdata *d, uint64_t *lost);
/* Whether every kmem_cache_alloc(_node) of the recording names its cache
 * (the format has name=, 6.18+), and it holds such events. */
bool perfdata_names_caches(const struct perfdata *d);

/* CPUs the file's header records (nrcpus avail), 0 if none. */
uint32_t perfdata_cpus(const struct perfdata *d);

/* Where call sites are named from: the kallsyms path, or NULL when none
 * was found (call sites are then addresses, "0x..." as perf prints them). */
const char *perfdata_symbols(const struct perfdata *d);

/* Bytes of the data section read so far and its size (progress). */
void perfdata_progress(const struct perfdata *d, uint64_t *done, uint64_t *total);

/* Close and free; d may be NULL. */
void perfdata_close(struct perfdata *d);

#endif
