/* plot.h - graphs of a results database, drawn by the gnuplot program.
 *
 * Each figure NAME is written as NAME.dat (the numbers, with a header
 * comment naming the columns and units), NAME.gp (the gnuplot script, kept so
 * users can restyle it) and, rendered by gnuplot from inside the output
 * directory, NAME.png (pngcairo) and NAME.svg.
 */
#ifndef SLABSIM_PLOT_H
#define SLABSIM_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "err.h"

#define PLOT_NFIGS 6

struct plot_opts {
	const char *trace;   /* only this trace (its label or trace_path); NULL = every
				trace, one panel each */
	const char *gnuplot; /* program; NULL = "gnuplot" */
	bool render;	     /* run gnuplot (false: only .dat and .gp) */
};

struct plot_fig {
	char name[32];	 /* file stem: "memory-time", ... */
	char title[200]; /* what it shows */
	bool drawn;	 /* false: no data for it (the reason is in note); a note of a
			    drawn figure says what it leaves out */
	bool optional;	 /* drawn only for databases with its runs (align-options:
			    the align-debate sweep's); not drawn is no news */
	char note[200];
};

struct plot_result {
	struct plot_fig figs[PLOT_NFIGS];
	char trace[1024]; /* the labels of the traces drawn, ", "-separated */
	size_t ntraces;
};

/* Write (and render) every figure of the database at db_path into out_dir
 * (created if missing). Errors: SLABSIM_EIO (database, files, gnuplot
 * missing or failing), SLABSIM_ENOMEM. */
int plot_all(const char *db_path, const char *out_dir, const struct plot_opts *o,
	     struct plot_result *res, struct err *e);

/* Run gnuplot (prog, NULL = "gnuplot") on dir/NAME.gp from inside dir, as
 * plot_all does for its figures: a warning on stderr is an error, and so is
 * a missing or empty NAME.png. Errors: SLABSIM_EIO. */
int plot_render(const char *dir, const char *prog, const char *name, struct err *e);

/* Write s to f as a gnuplot string: single-quoted, quotes doubled. */
void plot_gp_str(FILE *f, const char *s);

#endif
