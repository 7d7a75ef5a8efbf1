# tap.sh - TAP helpers for the shell tests, sourced (not run) by
# tests/cli/*.sh and tests/golden/*.sh. POSIX sh; no bashisms.
#
# Each check prints one "ok N - name" or "not ok N - name" line, followed on
# failure by "# " diagnostic lines; tap_done prints the plan and returns
# non-zero if any check failed. A known slabsim bug is written as tap_todo:
# while it fails it is reported "not ok ... # TODO" (not a failure); once the
# bug is fixed meson reports an unexpected pass, and the check should become
# an ordinary tap_is.

tap_n=0
tap_fail=0

tap_ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1"
}

# tap_not_ok NAME [DIAGNOSTIC...]: each diagnostic may span lines. The
# failure is also written to stderr: meson's TAP parser consumes stdout and
# `meson test --print-errorlogs` (test.sh) shows a failed test's stderr, so
# what was wanted and what was got reach the log.
tap_not_ok() {
	tap_n=$((tap_n + 1))
	tap_fail=$((tap_fail + 1))
	echo "not ok $tap_n - $1"
	echo "not ok $tap_n - $1" >&2
	shift
	for tap_d in "$@"; do
		printf '%s\n' "$tap_d" | sed 's/^/#   /'
		printf '%s\n' "$tap_d" | sed 's/^/#   /' >&2
	done
}

# tap_is NAME GOT WANT: string equality.
tap_is() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1" "got:" "$2" "want:" "$3"
	fi
}

# tap_like NAME TEXT SUBSTRING: TEXT contains SUBSTRING (fixed string).
tap_like() {
	case $2 in
	*"$3"*) tap_ok "$1" ;;
	*) tap_not_ok "$1" "got:" "$2" "want a text containing:" "$3" ;;
	esac
}

# tap_todo NAME REASON GOT WANT: as tap_is, for a known bug.
tap_todo() {
	tap_n=$((tap_n + 1))
	if [ "$3" = "$4" ]; then
		echo "ok $tap_n - $1 # TODO $2"
	else
		echo "not ok $tap_n - $1 # TODO $2"
		printf '%s\n' "got:" "$3" "want:" "$4" | sed 's/^/#   /'
	fi
}

# tap_skip NAME REASON: a check that cannot run here (e.g. needs root).
tap_skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

tap_diag() {
	printf '%s\n' "$@" | sed 's/^/# /'
}

tap_done() {
	echo "1..$tap_n"
	[ "$tap_fail" -eq 0 ]
}

# json_num TEXT KEY: the number after "KEY": in TEXT (one line of slabsim's
# JSON summary; the last match if the key repeats on that line).
json_num() {
	printf '%s\n' "$1" | sed -n "s/.*\"$2\": \\([0-9][0-9]*\\).*/\\1/p"
}

# abs_path PATH: PATH made absolute (the scripts cd into a scratch directory).
abs_path() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s\n' "$PWD/$1" ;;
	esac
}

# tap_scratch: the C locale, and a scratch directory $tmp, removed at exit,
# as the current directory (after abs_path has fixed the arguments).
tap_scratch() {
	LC_ALL=C
	export LC_ALL
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	cd "$tmp" || exit 1
}
