/* live.h - `slabsim live`: the running kernel replayed as it runs, through
 * several models at once.
 *
 *   trace      a tracefs instance of our own (traces/ktrace.h) with the
 *              kmem: events on, read every poll and pushed, event by
 *              event, into every model (run_push_event), so that memory
 *              follows the live set, never the run's length
 *   start      the kernel's state when tracing begins, read as a capture
 *              of the running kernel (its /proc/slabinfo, /sys/kernel/slab,
 *              uname, command line and CPUs): each model is configured
 *              and started from it by validate's code (val_capture_model,
 *              run_capture_setup), as `replay DIR` starts from a capture,
 *              with the CPU slabs' free slots estimated (no trace to walk
 *              ahead)
 *   record     with a database, each model's run (samples every
 *              sample_every_ns, end state) in a scratch file of its own,
 *              merged into the database when the session ends
 *
 * Nothing here prints: the command line reads the figures through the
 * accessors below.
 */
#ifndef SLABSIM_LIVE_H
#define SLABSIM_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "err.h"
#include "run.h"
#include "sim.h"

/* The running kernel as a capture without a trace: uname(2) as uname.txt,
 * /proc/cmdline, the CPUs of /sys/devices/system/cpu, /sys/kernel/slab as
 * slab-attrs.tsv and slab-attrs-start.tsv, /proc/slabinfo as
 * slabinfo-start.txt; dir is "/proc". A part that cannot be read is left
 * absent, as in a capture, except /proc/slabinfo (the start state).
 * OUT: *out (capture_close). Errors: SLABSIM_EIO, SLABSIM_EINPUT (a file
 * the kernel wrote that does not parse), SLABSIM_ENOMEM. */
int live_capture(struct capture **out, struct err *e);

/* Slab pages of a /proc/slabinfo: Σ num_slabs * pagesperslab. */
int live_real_pages(struct capture_slabinfo *si, uint64_t *pages, struct err *e);

struct live_opts {
	const struct run_model *models; /* what the command line gave; the rest
					   from the running kernel */
	uint32_t nmodels;
	struct sim_opts so;	 /* sampling (sample_every_ns), metrics */
	const char *sample_spec; /* as recorded ("1s") */
	const char *db;		 /* the database to record into, NULL = none */
	uint32_t buffer_kb;	 /* ring buffer per CPU */
	/* shrink the caches with sheaves before the start state is read
	 * (live_shrink_sheaves), trace kmem:mm_page_free (ktrace_opts) */
	bool shrink, page_free;
	FILE *notes; /* what the start state holds, or NULL */
};

struct live;

/* Set up tracing, read the start state, turn tracing on, build the
 * models. OUT: *out, to be closed with live_close in every case (NULL
 * only when out of memory). Errors: ktrace_open's, live_capture's, the
 * models' (run_push_begin), SLABSIM_ESTOP when o->so.stop was raised
 * while the models were being built. */
int live_open(const struct live_opts *o, struct live **out, struct err *e);

/* Write 1 to /sys/kernel/slab/CACHE/shrink of every cache (not an alias)
 * whose sheaf_capacity is above 0 (6.18+): __kmem_cache_do_shrink flushes
 * its per-CPU sheaves and its barn to the slabs, so that a start state read
 * next holds no object parked in them, which slabinfo and sysfs count as
 * in use. Returns how many caches were shrunk; one the write fails for is
 * left as it is. */
uint32_t live_shrink_sheaves(const char *slabdir);

/* Read path (a sysctl file: /proc/sys/kernel/ostype) four times with a
 * 64 KiB buffer, once the kmem events are on. proc_sys_call_handler
 * kvzalloc()s count + 1 bytes, a kmalloc backed by pages, and frees them
 * at once: a traced kfree followed on its CPU by the page free of its
 * pages, from which the replay learns the direct map's base
 * (sim/pgfree.h) at the start. Returns the reads made. */
uint32_t live_base_probe(const char *path);

/* Push everything the ring buffer holds into every model. */
int live_poll(struct live *l, struct err *e);

/* Slab events pushed, events the ring buffer lost, seconds since tracing
 * began. */
uint64_t live_events(const struct live *l);
uint64_t live_lost(struct live *l);
double live_seconds(const struct live *l);

/* The start state (the capture of the running kernel, borrowed). */
const struct capture *live_start_state(const struct live *l);
/* The tracefs instance's name. */
const char *live_instance(const struct live *l);

uint32_t live_nmodels(const struct live *l);
/* Model i as configured (kernel profile, CPUs and slub_debug from the
 * running kernel unless given) and its engine now (borrowed until
 * live_close). */
const struct run_model *live_model(const struct live *l, uint32_t i);
struct sim *live_sim(const struct live *l, uint32_t i);

/* End every model's run: the last events, the end sample and state, and
 * with a database the runs committed and merged into it. */
int live_finish(struct live *l, struct err *e);

/* Remove the tracefs instance and free; l may be NULL. */
void live_close(struct live *l);

#endif
