#!/bin/sh
# readonce.sh - a trace is read once where it can only be read once, and its
# identity (runs.trace_hash, XXH3-128 of its bytes as stored) comes from the
# read that parses it: a named FIFO and a pipe given as a path (bash's
# <(...), /dev/fd/N) replay and sweep like the file they carry, never hang
# (each command runs under a time limit) and record the file's identity; so
# do stdin and a compressed file, whose identity is that of its compressed
# bytes. TAP.
#   $1 slabsim binary, $2 traces/samples
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") samples=$(abs_path "$2")
tap_scratch
TMPDIR=$tmp
export TMPDIR
cd "$tmp" || exit 1
boot=$samples/linux-6.1-boot-excerpt.trace
limit=60

# The identity the file's own bytes give, through the recorded replay of the
# plain file (its 32 hex digits are checked once, by their form).
"$bin" replay "$boot" --db ref.db -q --no-progress >/dev/null 2>ref.err
want=$(sqlite3 ref.db "SELECT trace_hash FROM runs")
case $want in
????????????????????????????????) tap_like "the file's identity: 32 hex digits" "$want" "" ;;
*) tap_not_ok "the file's identity: 32 hex digits" "got: '$want'" "$(cat ref.err)" ;;
esac
"$bin" replay "$boot" --no-db --no-progress >ref.out 2>/dev/null

# fifo NAME ARGS...: replay a named FIFO written by a background cat.
fifo() {
	f_name=$1
	shift
	rm -f in.fifo run.db
	mkfifo in.fifo
	cat "$boot" >in.fifo &
	timeout "$limit" "$bin" replay in.fifo --db run.db --no-progress "$@" >fifo.out 2>fifo.err
	f_rc=$?
	kill $! 2>/dev/null
	wait 2>/dev/null
	tap_is "$f_name: exit 0 within ${limit}s" "$f_rc" 0
	tap_is "$f_name: the file's identity" "$(sqlite3 run.db "SELECT trace_hash FROM runs")" "$want"
	tap_is "$f_name: all 3000 events" "$(sqlite3 run.db "SELECT events FROM runs")" 3000
}
fifo "a named FIFO"
fifo "a named FIFO, --no-spill" --no-spill
fifo "a named FIFO, --strict" --strict

# <(...) as bash gives it: a /dev/fd path to a pipe (no "empty input")
if command -v bash >/dev/null 2>&1; then
	BIN=$bin BOOT=$boot timeout "$limit" bash -c \
		'"$BIN" replay <(cat "$BOOT") --no-db --no-progress' >ps.out 2>ps.err
	tap_is "replay <(cat TRACE): exit 0" "$?" 0
	# the same summary, but the name of the input where it is named
	sed "s|/dev/fd/[0-9]*|$boot|g" ps.out >ps.named
	if [ -s ps.out ] && cmp -s ref.out ps.named; then
		tap_ok "replay <(cat TRACE): the summary of the file"
	else
		tap_not_ok "replay <(cat TRACE): the summary of the file" "$(cat ps.err)" \
			"$(diff ref.out ps.named | head -5)"
	fi
else
	tap_skip "replay <(cat TRACE)" "no bash"
	tap_skip "replay <(cat TRACE): the summary of the file" "no bash"
fi
# /dev/fd/N without bash: a pipe on descriptor 3
cat "$boot" | timeout "$limit" "$bin" replay /dev/fd/3 --db fd.db -q --no-progress 3<&0 \
	>/dev/null 2>fd.err
tap_is "replay /dev/fd/3 (a pipe): exit 0" "$?" 0
tap_is "replay /dev/fd/3: the file's identity" "$(sqlite3 fd.db "SELECT trace_hash FROM runs")" \
	"$want"

# stdin, and a compressed file: the identity of the bytes as stored
cat "$boot" | "$bin" replay - --db in.db -q --no-progress >/dev/null 2>&1
tap_is "stdin: the file's identity" "$(sqlite3 in.db "SELECT trace_hash FROM runs")" "$want"
if command -v gzip >/dev/null 2>&1; then
	gzip -c "$boot" >t.gz
	"$bin" replay t.gz --db gz.db -q --no-progress >/dev/null 2>&1
	gzip -c "$boot" | "$bin" replay - --db gz.db -q --no-progress >/dev/null 2>&1
	gz=$(sqlite3 gz.db "SELECT count(DISTINCT trace_hash) || ' ' || length(min(trace_hash)) FROM runs")
	tap_is "gzip file and gzip on stdin: one identity of 32 digits" "$gz" "1 32"
	tap_like "... not the uncompressed file's" \
		"$(sqlite3 gz.db "SELECT count(*) FROM runs WHERE trace_hash <> '$want'")" 2
else
	tap_skip "gzip identity" "no gzip"
	tap_skip "gzip identity" "no gzip"
fi

# a sweep over a FIFO: the trace parsed once for all its runs
rm -f in.fifo
mkfifo in.fifo
printf 'trace = in.fifo\nallocator = slub, slab\n' >fifo.spec
cat "$boot" >in.fifo &
timeout "$limit" "$bin" sweep fifo.spec --db sw.db -q >sw.out 2>sw.err
s_rc=$?
kill $! 2>/dev/null
wait 2>/dev/null
tap_is "sweep over a FIFO: exit 0 within ${limit}s" "$s_rc" 0
tap_is "sweep over a FIFO: both runs, the file's identity, all events" \
	"$(sqlite3 sw.db "SELECT count(*), min(trace_hash) = '$want', min(events) FROM runs")" "2|1|3000"
tap_done
