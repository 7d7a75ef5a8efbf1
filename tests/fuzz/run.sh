#!/bin/sh
# run.sh SECONDS [BUILD_DIR] - run every libFuzzer harness of BUILD_DIR
# (default build-fuzz, built by tests/fuzz/build.sh) for SECONDS each, one
# after another on one core, starting from the seed corpus in
# tests/fuzz/corpus/NAME/. New inputs go to a scratch directory, not into the
# repository. Fails if any harness crashes, leaks, times out or breaks an
# invariant; the input that did it is kept in $FUZZ_OUT (default
# build-fuzz/fuzz-out/NAME/) and named in the message. Prints each harness's
# last status line (executions, coverage).
set -u
secs=${1:?usage: run.sh SECONDS [BUILD_DIR]}
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${2:-$top/build-fuzz}
out=${FUZZ_OUT:-$dir/fuzz-out}
status=0
found=0
for bin in "$dir"/tests/fuzz/fuzz_*; do
	[ -x "$bin" ] && [ -f "$bin" ] || continue
	name=${bin##*/fuzz_}
	found=$((found + 1))
	work=$out/$name
	rm -rf "$work"
	mkdir -p "$work/corpus" "$work/crashes"
	# -timeout: one input taking 10 s is a hang (fuzz_tracedat: 120 s, each
	# input forks a child of a sanitized process, seconds on a loaded
	# machine); -rss_limit_mb: growth with the input is a bug too.
	# detect_leaks stays on (the default).
	limit=10
	[ "$name" = tracedat ] && limit=120
	"$bin" -max_total_time="$secs" -timeout="$limit" -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$work/crashes/" "$work/corpus" "$top/tests/fuzz/corpus/$name" \
		> "$work/log" 2>&1
	rc=$?
	last=$(grep -E '^#[0-9]+' "$work/log" | tail -n 1)
	# the last: fuzz_tracedat's children print final stats of their own
	# before the harness's (at its exit)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
	echo "fuzz_$name: ${secs}s, $execs runs, exit $rc; last: $last"
	if [ "$rc" -ne 0 ]; then
		status=1
		echo "fuzz_$name FAILED; inputs kept in $work/crashes/:" >&2
		ls "$work/crashes" >&2
		grep -E 'ERROR|SUMMARY|fuzz_[a-z]*:|runtime error' "$work/log" | head -n 20 >&2
	fi
done
if [ "$found" -eq 0 ]; then
	echo "run.sh: no fuzz_* harness in $dir/tests/fuzz (run tests/fuzz/build.sh)" >&2
	exit 1
fi
exit $status
