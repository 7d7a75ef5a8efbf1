/* err.h - error codes and messages shared by every slabsim module.
 *
 * Fallible functions return 0 or a negative SLABSIM_E* code and fill a
 * caller-provided struct err (SQLite's code + message split, without a global
 * handle). When input is to blame the message starts with "file:line: ".
 * The process exit codes documented in --help map from these codes.
 */
#ifndef SLABSIM_ERR_H
#define SLABSIM_ERR_H

#include <stdarg.h>

enum {
	SLABSIM_OK = 0,
	SLABSIM_EUSAGE = -1,  /* bad command line or configuration: exit 1 */
	SLABSIM_EINPUT = -2,  /* malformed input file: exit 2 */
	SLABSIM_EIO = -3,     /* I/O or SQLite failure: exit 3 */
	SLABSIM_ENOMEM = -4,  /* out of memory: exit 3 */
	SLABSIM_EMODEL = -5,  /* a model invariant failed (--check): exit 4 */
	SLABSIM_ENODATA = -6, /* nothing to work on: no slab event, nothing to compare: exit 5 */
	SLABSIM_ESTOP = -7,   /* a signal asked to stop before the work was done: exit 130 */
};

/* Process exit codes (see slabsim --help). */
enum {
	SLABSIM_EXIT_OK = 0,
	SLABSIM_EXIT_USAGE = 1,
	SLABSIM_EXIT_INPUT = 2,
	SLABSIM_EXIT_IO = 3,
	SLABSIM_EXIT_MODEL = 4,
	SLABSIM_EXIT_NODATA = 5,
	SLABSIM_EXIT_STOPPED = 130, /* 128 + SIGINT, as shells report it */
};

#define SLABSIM_ERR_MSG_MAX 512

struct err {
	int code;
	char msg[SLABSIM_ERR_MSG_MAX];
};

/* Reset e to "no error". e may be NULL. */
void err_clear(struct err *e);

/* Store code and a printf-style message in e (may be NULL). Returns code, so
 * callers can write `return err_set(e, SLABSIM_EINPUT, "...")`. */
int err_set(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* As err_set, prefixing "path:line: " (line 0 omits the line). */
int err_at(struct err *e, int code, const char *path, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Map an SLABSIM_E* code to a process exit code. */
int err_exit_code(int code);

#endif
