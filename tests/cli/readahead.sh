#!/bin/sh
# readahead.sh - every way of reading a trace gives the engine's look-ahead
# (sim/ahead.h) and the same figures: a trace read as it comes (--no-spill,
# --no-name-pass, --strict, --name-threads 2) peeks ahead through a second
# read of the file (traces/peekread.h), and a trace.dat whose formats name
# every cache is read once, on from its head.
#   - data/keepslab.awk with gap=15: 40 vm_area_struct pages freed 15 ms
#     after their last objects (a grace period), a marker between: at the
#     marker the model holds 22 pages, 16 at the end (tests/cli/pgfree.sh);
#     without the look-ahead it held 36 and 23, which --no-spill and the
#     other reads as it comes gave before;
#   - the bundled trace.dat with page frees, and the bundled trace.dat of
#     the first capture, replayed by default, with a head of 100 events
#     (SLABSIM_HEAD_EVENTS: the head, then the reader going on from it,
#     then the second read for the look-ahead), with --no-spill and with
#     --no-name-pass: the same JSON summary each time.
# TAP.  $1 slabsim binary, $2 traces/samples
set -u
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1")
samples=$(abs_path "$2")
ks=$(abs_path "$(dirname "$0")/data/keepslab.awk")
tap_scratch

awk -v cache=vm_area_struct -v size=192 -v per=21 -v np=40 -v pf=1 -v gap=15 -f "$ks" >"$tmp/ks.trace"
for opt in "" --no-spill --no-name-pass --strict "--name-threads 2"; do
	rm -f "$tmp/ks.db"
	# shellcheck disable=SC2086 # opt is one option, or two words
	"$bin" replay "$tmp/ks.trace" --kernel 6.18 --nr-cpus 1 --db "$tmp/ks.db" -q $opt \
		>/dev/null 2>"$tmp/ks.err"
	tap_is "kept slabs${opt:+ with $opt}: 22 pages at the marker, 16 at the end" \
		"$(sqlite3 -batch -init /dev/null "$tmp/ks.db" "SELECT s.label, c.pages FROM sample_caches c JOIN samples s USING (run_id, seq) WHERE c.cache = 'vm_area_struct' AND s.label IS NOT NULL ORDER BY s.seq" | tr '\n' ' ')" \
		"freed|22 end|16 "
done

for dat in linux-6.18-kmem-pagefree.dat linux-6.18-kmem.dat; do
	"$bin" replay "$samples/$dat" --no-db --no-progress --format json >"$tmp/ref.json" 2>/dev/null
	tap_is "$dat: a summary" "$(grep -c '"totals"' "$tmp/ref.json")" 1
	SLABSIM_HEAD_EVENTS=100 "$bin" replay "$samples/$dat" --no-db --no-progress \
		--format json >"$tmp/head.json" 2>/dev/null
	tap_is "$dat: read on from a head of 100 events, the same summary" \
		"$(cmp -s "$tmp/ref.json" "$tmp/head.json" && echo same)" same
	for opt in --no-spill --no-name-pass; do
		"$bin" replay "$samples/$dat" --no-db --no-progress --format json $opt \
			>"$tmp/opt.json" 2>/dev/null
		tap_is "$dat: with $opt, the same summary" \
			"$(cmp -s "$tmp/ref.json" "$tmp/opt.json" && echo same)" same
	done
done
tap_done
