/* err.c - filling struct err; never prints, never exits. */
#include "err.h"

#include <stdio.h>
#include <string.h>

void err_clear(struct err *e)
{
	if (!e)
		return;
	e->code = 0;
	e->msg[0] = '\0';
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
	if (!e)
		return code;
	va_list ap;
	va_start(ap, fmt);
	e->code = code;
	(void)vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int err_at(struct err *e, int code, const char *path, unsigned long line, const char *fmt, ...)
{
	if (!e)
		return code;
	size_t n;
	int k;
	if (line)
		k = snprintf(e->msg, sizeof(e->msg), "%s:%lu: ", path ? path : "-", line);
	else
		k = snprintf(e->msg, sizeof(e->msg), "%s: ", path ? path : "-");
	n = k < 0 ? 0 : (size_t)k;
	if (n >= sizeof(e->msg))
		n = sizeof(e->msg) - 1;
	va_list ap;
	va_start(ap, fmt);
	(void)vsnprintf(e->msg + n, sizeof(e->msg) - n, fmt, ap);
	va_end(ap);
	e->code = code;
	return code;
}

int err_exit_code(int code)
{
	switch (code) {
	case SLABSIM_OK:
		return SLABSIM_EXIT_OK;
	case SLABSIM_EUSAGE:
		return SLABSIM_EXIT_USAGE;
	case SLABSIM_EINPUT:
		return SLABSIM_EXIT_INPUT;
	case SLABSIM_ENODATA:
		return SLABSIM_EXIT_NODATA;
	case SLABSIM_EMODEL:
		return SLABSIM_EXIT_MODEL;
	case SLABSIM_ESTOP:
		return SLABSIM_EXIT_STOPPED;
	default:
		return SLABSIM_EXIT_IO;
	}
}
