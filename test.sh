#!/bin/sh
# Install what is missing, build, and run the whole test suite twice: plain,
# and under AddressSanitizer + UndefinedBehaviorSanitizer (any report fails).
# Ends with one line "tests: N passed, N failed" over both runs.
set -u
cd "$(dirname "$0")"
sh scripts/deps.sh || exit 1
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
status=0

run() { # build-dir [meson setup options]
	dir=$1
	shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@" >/dev/null || return 1
	fi
	meson test -C "$dir" --print-errorlogs >"$log" 2>&1
	rc=$?
	cat "$log"
	awk '/^Ok:/ {ok += $2} /^(Fail|Timeout|Unexpected Pass):/ {bad += $NF}
	     END {print ok + 0, bad + 0}' "$log" >>"$log.sum"
	return $rc
}

rm -f "$log.sum"
run build || status=1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1 \
LSAN_OPTIONS=suppressions=$(pwd)/tests/lsan.supp \
UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1 \
	run build-asan -Db_sanitize=address,undefined || status=1
awk '{ok += $1; bad += $2} END {printf "tests: %d passed, %d failed\n", ok, bad}' "$log.sum"
rm -f "$log.sum"
exit $status
