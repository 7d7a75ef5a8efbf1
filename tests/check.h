/* check.h - a TAP producer for slabsim's C tests.
 *
 * CHECK(name, expr) prints "ok N - name" or "not ok N - name # file:line";
 * CHECK_EQ_U64 also prints both values. A failure goes to stderr as well:
 * meson's TAP parser consumes stdout, and `meson test --print-errorlogs`
 * (test.sh) shows a failed test's stderr, so what was expected and what was
 * got reach the log. check_done() prints the plan and
 * returns the exit status. One static counter per test program (tests are
 * single-file executables).
 */
#ifndef SLABSIM_CHECK_H
#define SLABSIM_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned check_n, check_failed;

static inline int check_report(int ok, const char *name, const char *file, int line)
{
	check_n++;
	if (ok) {
		printf("ok %u - %s\n", check_n, name);
	} else {
		check_failed++;
		printf("not ok %u - %s # %s:%d\n", check_n, name, file, line);
		fprintf(stderr, "not ok %u - %s # %s:%d\n", check_n, name, file, line);
	}
	return ok;
}

/* check_diag: a diagnostic line of a failed check, on stdout (TAP) and stderr. */
#define check_diag(...)                                                                            \
	do {                                                                                       \
		printf(__VA_ARGS__);                                                               \
		fprintf(stderr, __VA_ARGS__);                                                      \
	} while (0)

#define CHECK(name, expr) check_report(!!(expr), (name), __FILE__, __LINE__)

#define CHECK_EQ_U64(name, got, want)                                                              \
	do {                                                                                       \
		uint64_t got_ = (uint64_t)(got), want_ = (uint64_t)(want);                         \
		if (!check_report(got_ == want_, (name), __FILE__, __LINE__))                      \
			check_diag("#   got %" PRIu64 ", want %" PRIu64 "\n", got_, want_);        \
	} while (0)

#define CHECK_EQ_STR(name, got, want)                                                              \
	do {                                                                                       \
		const char *got_ = (got), *want_ = (want);                                         \
		int ok_ = got_ && want_ && strcmp(got_, want_) == 0;                               \
		if (!check_report(ok_, (name), __FILE__, __LINE__))                                \
			check_diag("#   got '%s', want '%s'\n", got_ ? got_ : "(null)",            \
				   want_ ? want_ : "(null)");                                      \
	} while (0)

static inline int check_done(void)
{
	printf("1..%u\n", check_n);
	return check_failed ? 1 : 0;
}

#endif
