/* trace_files.h - for the tests of tests/traces: the trace files under the
 * paths a test is given (a file itself, or a directory's trace files and
 * those of its subdirectories one level down, capture directories, in name
 * order), and a path quoted for a shell command. Header-only: each test
 * program includes it once. */
#ifndef SLABSIM_TESTS_TRACE_FILES_H
#define SLABSIM_TESTS_TRACE_FILES_H

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A trace by its name: *.trace, a capture's trace.txt, either compressed. */
static bool trace_files_is_trace(const char *n)
{
	static const char *const ends[] = {".trace", ".trace.gz", ".trace.xz", ".trace.zst"};
	size_t k = strlen(n);
	for (size_t i = 0; i < sizeof(ends) / sizeof(*ends); i++) {
		size_t e = strlen(ends[i]);
		if (k > e && strcmp(n + k - e, ends[i]) == 0)
			return true;
	}
	return strcmp(n, "trace.txt") == 0 || strcmp(n, "trace.txt.gz") == 0 ||
	       strcmp(n, "trace.txt.xz") == 0 || strcmp(n, "trace.txt.zst") == 0;
}

static unsigned trace_files_at(const char *path, int depth, void (*fn)(const char *, void *),
			       void *ctx)
{
	struct stat st;
	struct dirent **names;
	unsigned files = 0;

	if (stat(path, &st) != 0)
		return 0;
	if (!S_ISDIR(st.st_mode)) {
		fn(path, ctx);
		return 1;
	}
	int n = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char sub[PATH_MAX];
		(void)snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(sub, &st) == 0 &&
		    ((S_ISDIR(st.st_mode) && depth < 1) ||
		     (S_ISREG(st.st_mode) && trace_files_is_trace(names[i]->d_name))))
			files += trace_files_at(sub, depth + 1, fn, ctx);
		free(names[i]);
	}
	free(names);
	return files;
}

/* Append path to the shell command cmd (k bytes so far, size in all) for use
 * inside single quotes: each ' becomes '\''. Returns the new length. */
static size_t trace_files_quote(char *cmd, size_t k, size_t size, const char *path)
{
	for (const char *s = path; *s && k + 8 < size; s++) {
		if (*s == '\'') {
			memcpy(cmd + k, "'\\''", 4);
			k += 4;
		} else {
			cmd[k++] = *s;
		}
	}
	return k;
}

/* Call fn(file, ctx) for each trace file of path; returns how many. */
static unsigned trace_files(const char *path, void (*fn)(const char *, void *), void *ctx)
{
	return trace_files_at(path, 0, fn, ctx);
}

#endif
