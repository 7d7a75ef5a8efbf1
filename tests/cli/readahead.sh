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
#     then the look-ahead), with --no-spill and with --no-name-pass: the
#     same JSON summary each time;
#   - a file read once peeks ahead from the events its reader read ahead
#     (a queue) where its strings stay put, else through a second read: the
#     bundled trace.dats and the bundled perf.data (read once: its formats
#     name every cache) give the same summary with --no-prefetch (the
#     second read), with a queue of 64 events (SLABSIM_PEEK_QUEUE: every
#     peek beyond it from the second read) and, for the perf.data, with
#     --strict (a name pass, then a second read).
# TAP.  $1 slabsim binary, $2 traces/samples
set -u
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1")
samples=$(abs_path "$2")
ks=$(abs_path "$(dirname "$0")/data/keepslab.awk")
tap_scratch

awk -v cache=vm_area_struct -v size=192 -v per=21 -v np=40 -v pf=1 -v gap=15 -f "$ks" >"$tmp/ks.trace"
# --no-spill: peeks from the queue; with --no-prefetch (the strings of a
# text read in place do not stay put) or a queue of 64 events, from the
# second read
for opt in "" --no-spill --no-name-pass --strict "--name-threads 2" "--no-spill --no-prefetch" \
	"--no-spill SLABSIM_PEEK_QUEUE=64"; do
	rm -f "$tmp/ks.db"
	case $opt in *SLABSIM_PEEK_QUEUE=64) q=64 o=${opt% *} ;; *) q='' o=$opt ;; esac
	# shellcheck disable=SC2086 # opt is one option, or two words
	SLABSIM_PEEK_QUEUE=$q "$bin" replay "$tmp/ks.trace" --kernel 6.18 --nr-cpus 1 \
		--db "$tmp/ks.db" -q $o >/dev/null 2>"$tmp/ks.err"
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
	for opt in --no-spill --no-name-pass --no-prefetch; do
		"$bin" replay "$samples/$dat" --no-db --no-progress --format json $opt \
			>"$tmp/opt.json" 2>/dev/null
		tap_is "$dat: with $opt, the same summary" \
			"$(cmp -s "$tmp/ref.json" "$tmp/opt.json" && echo same)" same
	done
	SLABSIM_PEEK_QUEUE=64 "$bin" replay "$samples/$dat" --no-db --no-progress \
		--format json >"$tmp/q.json" 2>/dev/null
	tap_is "$dat: peeks beyond a queue of 64 events read again, the same summary" \
		"$(cmp -s "$tmp/ref.json" "$tmp/q.json" && echo same)" same
done

pd=$samples/linux-6.18-perf
zstd -dcq "$pd/perf.data.zst" >"$tmp/p.data"
pdrun() { # pdrun OUT ARGS...: the bundled perf.data's JSON summary
	out=$1
	shift
	"$bin" replay "$tmp/p.data" --kallsyms "$pd/kallsyms" --no-db --no-progress \
		--format json "$@" >"$out" 2>/dev/null
}
pdrun "$tmp/pref.json"
tap_is "perf.data: a summary with page frees" \
	"$(grep -c '"mm_page_free": 183' "$tmp/pref.json")" 1
for opt in --no-prefetch --strict --no-name-pass; do
	pdrun "$tmp/popt.json" $opt
	tap_is "perf.data: with $opt, the same summary" \
		"$(cmp -s "$tmp/pref.json" "$tmp/popt.json" && echo same)" same
done
SLABSIM_PEEK_QUEUE=64 pdrun "$tmp/pq.json"
tap_is "perf.data: peeks beyond a queue of 64 events read again, the same summary" \
	"$(cmp -s "$tmp/pref.json" "$tmp/pq.json" && echo same)" same
SLABSIM_HEAD_EVENTS=100 pdrun "$tmp/ph.json"
tap_is "perf.data: read on from a head of 100 events, the same summary" \
	"$(cmp -s "$tmp/pref.json" "$tmp/ph.json" && echo same)" same
tap_done
