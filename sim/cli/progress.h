/* progress.h - the command line's progress bar on stderr, drawn from what the
 * engine reports (sim_opts.on_progress). */
#ifndef SLABSIM_PROGRESS_H
#define SLABSIM_PROGRESS_H

#include "sim.h"

/* A sim_progress_fn: redraws one line of stderr ('\r'), ends it on the
 * pass's last report. ctx is unused. */
void progress_stderr(void *ctx, const struct sim_progress *p);

#endif
