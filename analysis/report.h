/* report.h - a self-contained HTML page of a results database: the plots
 * (plot.h) embedded as data: URIs, and summary tables (the named queries). */
#ifndef SLABSIM_REPORT_H
#define SLABSIM_REPORT_H

#include "err.h"
#include "plot.h"

#include <stddef.h>

/* Draw the plots into out_dir and write out_dir/index.html. Errors: those of
 * plot_all(), SLABSIM_EIO. */
int report_write(const char *db_path, const char *out_dir, const struct plot_opts *o,
		 struct err *e);

/* The page of studies ids[0..n-1] (study.h) instead: for each its title,
 * question, table (its named query), figure and what is validated, then
 * the runs. Errors: SLABSIM_EUSAGE (an unknown study), those of
 * report_write. */
int report_write_studies(const char *db_path, const char *out_dir, const char *const *ids, size_t n,
			 const struct plot_opts *o, struct err *e);

#endif
