#!/bin/sh
# snapshot.sh - run every command of slabsim over every bundled trace and
# capture and write what each printed (stdout, normalised stderr, exit code)
# and a canonical dump of every database it wrote into one directory, so that
# two builds can be compared byte for byte before and after a refactoring:
#
#   tests/golden/snapshot.sh OLD/slabsim /tmp/before
#   tests/golden/snapshot.sh build/slabsim /tmp/after
#   diff -r /tmp/before /tmp/after
#
# Not a meson test (it takes minutes); the golden suite covers the same
# paths on the small sample. Database dumps leave out the columns that vary
# from run to run (*_utc, version, wall_seconds); stderr has its timings and
# rates replaced by X. Every file is named after the command that made it.
#   $1 slabsim binary, $2 output directory (created; must not exist)
set -u
[ $# -eq 2 ] || { echo "usage: snapshot.sh SLABSIM OUTDIR" >&2; exit 1; }
bin=$1 out=$2
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
[ ! -e "$out" ] || { echo "snapshot.sh: $out exists" >&2; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
LC_ALL=C
export LC_ALL
# paths are given relative to the tree so that they print the same anywhere
cd "$root" || exit 1

# dumpdb DB: every table, volatile columns left out, rows sorted
dumpdb() {
	for tb in $(sqlite3 -batch -init /dev/null "$1" \
		"SELECT name FROM sqlite_master WHERE type IN ('table','view') ORDER BY name"); do
		cols=$(sqlite3 -batch -init /dev/null "$1" \
			"SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_table_info('$tb')
			 WHERE name NOT LIKE '%utc%' AND name NOT LIKE 'created%'
			 AND name NOT IN ('version', 'wall_seconds')
			 ORDER BY cid)")
		echo "== $tb: $cols"
		n=$(echo "$cols" | awk -F, '{print NF}')
		order=$(seq -s, 1 "$n")
		sqlite3 -batch -init /dev/null -separator '|' -nullvalue NULL "$1" \
			"SELECT $cols FROM \"$tb\" ORDER BY $order"
	done
	sqlite3 -batch -init /dev/null "$1" "PRAGMA user_version"
}

# run NAME ARGS...: run slabsim ARGS, keep stdout, stderr and the exit code
run() {
	name=$1
	shift
	"$bin" "$@" >"$out/$name.out" 2>"$work/err" </dev/null
	echo "exit $?" >>"$out/$name.out"
	sed -i "s|$work|WORK|g" "$out/$name.out"
	# timings go, and the order in which parallel sweep workers finish
	sed -E 's/[0-9]+(\.[0-9]+)? ?(s|ms|ev\/s|MiB|runs\/s)\b/X \2/g; s/ETA [0-9]+s?/ETA X/g;
		s/\.sweep\.[0-9]+/.sweep.PID/g; s/\[[0-9]+\/[0-9]+\]/[N]/' "$work/err" |
		sed "s|$work|WORK|g" | sort >"$out/$name.err"
}

# keep NAME FILE: a file a command wrote
keep() {
	if [ -f "$2" ]; then cp "$2" "$out/$1"; else echo "missing" >"$out/$1"; fi
}

# db NAME ARGS...: run with --db, then dump the database
rundb() {
	name=$1
	shift
	rm -f "$work/db"
	run "$name" "$@" --db "$work/db"
	if [ -f "$work/db" ]; then dumpdb "$work/db" >"$out/$name.db"; fi
}

boot=traces/samples/linux-6.1-boot-excerpt.trace
caps="traces/samples/linux-6.1-qemu-2cpu traces/samples/linux-6.1-qemu-2cpu-fzpu
traces/samples/linux-6.1-qemu-8cpu tests/cli/data/capture-a tests/cli/data/capture-b"
small=$(ls tests/cli/data/*.trace)

# ---- replay: every allocator, both kernels, alignments, views ----
for t in $boot $small; do
	b=$(basename "$t" .trace)
	for a in slub slab slob exact; do
		for k in 5.4 6.1; do
			for al in natural none cap512; do
				run "replay-$b-$a-$k-$al" replay "$t" --allocator $a --kernel $k \
					--align $al --no-db --format json --final-slabinfo "$work/si" \
					--no-progress
				keep "replay-$b-$a-$k-$al.slabinfo" "$work/si"
			done
		done
	done
	run "replay-$b-table" replay "$t" --kernel 6.1 --no-db --no-progress
	run "replay-$b-views" replay "$t" --kernel 6.1 --no-db --caller --alloc --perf \
		--slabinfo-totals -s bytes,hit -l 20 --no-progress
	run "replay-$b-slabinfo-loss" replay "$t" --kernel 6.1 --no-db --slabinfo loss \
		--final-sysfs "$work/sysfs" --no-progress
	keep "replay-$b.sysfs" "$work/sysfs"
	rundb "replay-$b-db" replay "$t" --kernel 6.1 --sample-every 50ev --no-progress -q
	rundb "replay-$b-db-slob" replay "$t" --kernel 6.1 --allocator slob --slub-debug - \
		--sample-every 1ms --no-progress -q
	rundb "replay-$b-db-slab" replay "$t" --allocator slab --alloc --no-progress -q
	run "replay-$b-strict" replay "$t" --kernel 6.1 --no-db --strict --format json --no-progress
	run "replay-$b-nonamepass" replay "$t" --kernel 6.1 --no-db --no-name-pass --format json \
		--no-progress
done
"$bin" replay - --kernel 6.1 --no-db --format json --no-progress <$boot >"$out/replay-stdin.out" 2>&1
echo "exit $?" >>"$out/replay-stdin.out"
rundb "replay-boot-fzpu-none" replay $boot --kernel 5.4 --align none --slub-debug FZPU \
	--no-progress --check -q
rundb "replay-boot-caches" replay $boot --caches traces/workloads/fsmeta.wl --no-progress -q

# ---- captures: replay the directory, the trace file, validate ----
for c in $caps; do
	b=$(basename "$c")
	tr=$c/trace.txt.zst
	[ -f "$tr" ] || tr=$(ls "$c"/trace* | head -n 1)
	run "cap-$b-replay" replay "$c" --no-db --format json --phase-summary --no-progress
	run "cap-$b-replay-table" replay "$c" --no-db --phase-summary --no-progress
	rundb "cap-$b-replay-db" replay "$c" --no-progress -q
	for a in slub slab slob; do
		run "cap-$b-trace-$a" replay "$tr" --allocator $a --kernel 6.1 --no-db --format json \
			--no-progress
	done
	run "cap-$b-validate" validate "$c" --no-db --no-progress
	run "cap-$b-validate-json" validate "$c" --no-db --format json --no-progress
	rundb "cap-$b-validate-db" validate "$c" --no-progress
done

# ---- the views over every bundled trace and capture (traces/samples) ----
# trace.dat (plain and xz), the tracefs captures' traces, the workload-only
# captures: perf kmem, slabinfo, --phase-summary, text and JSON
for t in traces/samples/*.dat traces/samples/*.dat.xz traces/samples/linux-6.1-qemu-*/trace.txt.zst \
	traces/samples/workload-only/*/; do
	t=${t%/}
	b=$(echo "$t" | sed 's|^traces/samples/||; s|/|_|g')
	run "views-$b-perf" replay "$t" --no-db --no-progress --caller --alloc --perf -l 30
	run "views-$b-slabinfo" replay "$t" --no-db --no-progress --slabinfo-totals --slabinfo loss
	run "views-$b-json" replay "$t" --no-db --no-progress --format json --caller --alloc --perf \
		-s bytes -l 30
	run "views-$b-phases" replay "$t" --no-db --no-progress --phase-summary
	run "views-$b-end" replay "$t" --no-db --no-progress -q --final-slabinfo "$work/si" \
		--final-sysfs "$work/sysfs"
	keep "views-$b-end.slabinfo" "$work/si"
	keep "views-$b-end.sysfs" "$work/sysfs"
done

# ---- workloads: replay --workload, --repeat, synth ----
for w in traces/workloads/*.wl tests/cli/data/hand-192.wl; do
	b=$(basename "$w" .wl)
	for a in slub slab slob; do
		run "wl-$b-$a" replay --workload "$w" --allocator $a --seed 7 --duration 2s --no-db \
			--format json --final-slabinfo "$work/si" --no-progress
		keep "wl-$b-$a.slabinfo" "$work/si"
	done
	rundb "wl-$b-repeat" replay --workload "$w" --seed 3 --duration 1s --repeat 3 --no-progress
	run "wl-$b-repeat-json" replay --workload "$w" --seed 3 --duration 1s --repeat 3 --no-db \
		--format json --no-progress
	run "synth-$b" synth --workload "$w" --seed 5 --duration 1s -o "$work/syn.trace"
	keep "synth-$b.trace" "$work/syn.trace"
done

# ---- fit, layout ----
for t in $boot tests/cli/data/fit-hand.trace; do
	b=$(basename "$t" .trace)
	run "fit-$b-site" fit "$t" -o "$work/fit.wl"
	keep "fit-$b-site.wl" "$work/fit.wl"
	run "fit-$b-cache" fit "$t" --by cache -o "$work/fit.wl"
	keep "fit-$b-cache.wl" "$work/fit.wl"
done
for a in slub slab; do
	for k in 5.4 6.1; do
		for d in - FZPU; do
			run "layout-$a-$k-$d" layout --allocator $a --kernel $k --slub-debug $d \
				--format tsv
		done
	done
	run "layout-$a-table" layout --allocator $a
done
run "layout-slab-debug" layout --allocator slab --slab-debug --format tsv

# ---- sweeps, queries, plots ----
for s in analysis/sweeps/default.sweep analysis/sweeps/netbuf-seeds.sweep; do
	b=$(basename "$s" .sweep)
	rm -f "$work/sw.db"
	# one worker: with more, run ids follow which worker finishes first
	run "sweep-$b" sweep "$s" --db "$work/sw.db" -j 1
	dumpdb "$work/sw.db" >"$out/sweep-$b.db"
	for q in $("$bin" query --list | awk '{print $1}'); do
		run "sweep-$b-query-$q" query "$q" --db "$work/sw.db" --format csv
		# the runs query ends with the wall time of each run
		[ "$q" != runs ] || sed -i -E 's/,[0-9.]+$//' "$out/sweep-$b-query-$q.out"
	done
	rm -rf "$work/plot"
	run "sweep-$b-plot" plot --db "$work/sw.db" --out "$work/plot" --no-render
	for f in "$work"/plot/*.gp; do
		[ -f "$f" ] && sed "s|$work|WORK|g" "$f" >"$out/sweep-$b-plot-$(basename "$f")"
	done
	for f in "$work"/plot/*.dat; do
		[ -f "$f" ] && cp "$f" "$out/sweep-$b-plot-$(basename "$f")"
	done
done
echo "snapshot: $(ls "$out" | wc -l) files in $out"
