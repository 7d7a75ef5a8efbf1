#!/bin/sh
# parse-threads.sh - a plain trace file parsed ahead in chunks on several
# threads (replay --parse-threads N, traces/prefetch.h) gives byte for byte
# the output of one parser thread (--parse-threads 1): the JSON summary and
# the --caller table (call-site order) of a trace of several chunks made
# from the boot excerpt, lax and --strict with a malformed line far into it
# (the same error, naming the line grep finds), and of a capture directory
# with its trace.txt.zst decompressed. TAP.
#   $1 slabsim binary, $2 traces/samples, $3 tests/bench/gen-trace.awk
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") samples=$(abs_path "$2") gen=$(abs_path "$3")
tap_scratch

# same NAME INPUT ARGS...: exit status, stdout and stderr with 2, 3 and 5
# threads are those of one thread.
same() {
	s_name=$1 s_in=$2
	shift 2
	"$bin" replay "$s_in" --no-db --no-progress --parse-threads 1 "$@" >one.out 2>one.err
	s_rc=$?
	for n in 2 3 5; do
		"$bin" replay "$s_in" --no-db --no-progress --parse-threads "$n" "$@" >par.out 2>par.err
		p_rc=$?
		if [ "$s_rc" -eq "$p_rc" ] && cmp -s one.out par.out && cmp -s one.err par.err; then
			tap_ok "$s_name: $n threads, same output as one (exit $p_rc)"
		else
			tap_not_ok "$s_name: $n threads, same output as one" \
				"exit $p_rc (one thread: $s_rc)" \
				"$(diff one.out par.out | head -5)" "$(diff one.err par.err | head -5)"
		fi
	done
}

boot=$samples/linux-6.1-boot-excerpt.trace
# 30000 events, about 5.4 MB: three chunks of the default 2 MiB
awk -v n=30000 -f "$gen" "$boot" >long.trace || exit 1
size=$(wc -c <long.trace)
if [ "$size" -ge 4194304 ]; then
	tap_ok "the trace is at least two chunks ($size bytes)"
else
	tap_not_ok "the trace is at least two chunks" "$size bytes"
fi
same "30000 events" long.trace --format json
same "30000 events --caller" long.trace --caller
same "30000 events, no name pass" long.trace --format json --no-name-pass

# a malformed line in the third chunk (its number as grep counts it)
awk 'NR == 25000 { print "not a trace line" } { print }' long.trace >bad.trace
bad_line=$(grep -n '^not a trace line$' bad.trace | cut -d: -f1)
same "malformed line, lax" bad.trace --format json
tap_like "lax: the summary counts the malformed line" "$(cat one.out)" '"malformed"'
same "malformed line, --strict" bad.trace --format json --strict
tap_is "--strict: exit 2, the error names line $bad_line" \
	"$s_rc $(grep -c "bad.trace:$bad_line: expected" one.err)" "2 1"

d=$samples/linux-6.1-qemu-2cpu
if [ -f "$d/trace.txt.zst" ] && command -v zstd >/dev/null; then
	cp -r "$d" cap && rm -f cap/trace.txt.zst && zstd -dcq "$d/trace.txt.zst" >cap/trace.txt || exit 1
	same "capture linux-6.1-qemu-2cpu" cap --format json
else
	tap_ok "capture linux-6.1-qemu-2cpu # SKIP no zstd"
fi

"$bin" replay "$boot" --no-db --parse-threads 0 >/dev/null 2>err.out
tap_is "--parse-threads 0 is a usage error" "$?" 1
tap_done
