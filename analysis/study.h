/* study.h - studies: a question answered by one sweep spec
 * (analysis/sweeps/study-N-ID.sweep), one named query (its table,
 * query.c), one figure drawn from that table, and one report section
 * (`slabsim report --study ID`; README "Studies").
 *
 * Adding a study is one spec, one named query and one study_table row: the
 * figure and the section are drawn from the row alone.
 */
#ifndef SLABSIM_STUDY_H
#define SLABSIM_STUDY_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

struct sqlite3;

/* The figure: bars, one panel per value of the table's `trace` column.
 * Each select list is evaluated over the study's table (as q) and yields
 * (panel, order, bar label, value, series, what-if); several lists are
 * UNION ALLed (two bars per row of the table, say). Bars are drawn in order
 * within a panel, coloured by series (0..3), labelled with their value;
 * a bar whose what-if is 1 (its configuration never ran on a real kernel,
 * or not on the one that recorded the trace) is hatched, a validated one
 * (0: the trace under its own kernel's recorded configuration, or a model
 * checked against real kernels, as the study's basis says) solid. */
struct study_fig {
	const char *cols[2]; /* select lists; cols[1] may be NULL */
	const char *ylabel;
	const char *series[4]; /* key titles of series 0..3, NULL-ended */
	const char *caption;   /* what the figure shows, one sentence */
};

struct study_def {
	const char *id;	      /* "align-2024": --study ID, the figure's file stem */
	int number;	      /* in the list */
	const char *title;    /* heading */
	const char *question; /* what is asked (HTML-safe text) */
	const char *spec;     /* the sweep spec, from the top of the tree */
	const char *query;    /* the named query of its table */
	const char *more;     /* a second named query shown under it, or NULL */
	struct study_fig fig;
	/* which parts are validated on a real kernel, which are what-ifs,
	 * and what the inputs cannot show (HTML-safe text) */
	const char *basis;
};

/* The studies, ending with a {NULL} row. */
extern const struct study_def study_table[];
const struct study_def *study_find(const char *id);

/* Draw study s's figure from db into dir: study-ID.dat, study-ID.gp and,
 * when render, study-ID.png and .svg (gnuplot program prog, NULL =
 * "gnuplot"). OUT: *drawn (false: the table has no rows for it). Errors:
 * SLABSIM_EIO (database, files, gnuplot), SLABSIM_ENOMEM. */
int study_figure(struct sqlite3 *db, const char *dir, const struct study_def *s, bool render,
		 const char *prog, bool *drawn, struct err *e);

#endif
