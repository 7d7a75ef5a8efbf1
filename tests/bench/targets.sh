#!/bin/sh
# targets.sh - issue 28's standing targets, each as a ratio measured in one run.
#
#   tests/bench/targets.sh [-B BUILDDIR] [-r RUNS] [-d SCRATCH] [-s SEED]
#                          [-D TRACE.DAT -T REPORT] [-P PERF.DATA] [-t TARGETS]
#
# -B  a build of slabsim (default build-rel; configure it with
#     --buildtype=release). -r  runs of every command (default 3): the
#     figures are medians of user + system CPU seconds (and of wall seconds),
#     peak RSS the largest. -d  scratch directory for the generated traces
#     (default $TMPDIR or /tmp; about 3.5 GB at the peak; they are kept
#     there, named by their parameters, and reused). -s  the generator's
#     seed (default 1). -D/-T  a trace.dat and its `trace-cmd report` text
#     (default: tests/bench/data/linux-6.18-kmem-500k.dat and its report,
#     made with trace-cmd; without trace-cmd the bundled 5 k-record
#     traces/samples/linux-6.18-kmem.dat and its .report.zst). -P  a
#     `perf record -e 'kmem:*'` recording (default: none, the perf kmem
#     target is skipped): perf kmem stat and slabsim each read it, their
#     runs alternating; slabsim's replay of its perf script text is shown
#     beside them. -t  a comma list of the targets to
#     run (db,mawk,evarr,live,dat,perf; default all).
#
# The inputs (gen_bench, see its header): the bundled qemu capture's trace
# repeated to >= 2 M events with distinct pointers (the real-trace case),
# 10 M events of its shape drawn from seed, and 2 M / 1,000 kmallocs never
# freed; a trace.dat of 501,377 records of this machine's 6.18 kernel
# (tests/bench/data) and its `trace-cmd report` text, made here. Nothing
# generated is committed.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
builddir=$repo/build-rel runs=3 scratch=${TMPDIR:-/tmp} seed=1
dat='' report='' perfdata='' only=db,mawk,evarr,live,dat,perf
while getopts B:r:d:s:D:T:P:t: o; do
	case $o in
	B) builddir=$(cd "$OPTARG" && pwd) ;;
	r) runs=$OPTARG ;;
	d) scratch=$OPTARG ;;
	s) seed=$OPTARG ;;
	D) dat=$OPTARG ;;
	T) report=$OPTARG ;;
	P) perfdata=$OPTARG ;;
	t) only=$OPTARG ;;
	*) echo "usage: $0 [-B BUILDDIR] [-r RUNS] [-d SCRATCH] [-s SEED] [-D DAT -T REPORT] [-P PERF.DATA] [-t LIST]" >&2; exit 1 ;;
	esac
done
want() { case ",$only," in *",$1,"*) return 0 ;; esac; return 1; }
die() { echo "targets.sh: $*" >&2; exit 1; }
S=$builddir/slabsim G=$builddir/tests/bench/gen_bench E=$builddir/tests/bench/replay_evarr
for x in "$S" "$G" "$E" /usr/bin/time; do [ -x "$x" ] || die "missing $x (ninja -C BUILDDIR; apt-get install time)"; done
mkdir -p "$scratch"
work=$(mktemp -d "$scratch/targets.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# ---- inputs -----------------------------------------------------------------
sample=$scratch/qemu-2cpu.trace
[ -s "$sample" ] || zstd -dcq "$repo/traces/samples/linux-6.1-qemu-2cpu/trace.txt.zst" >"$sample"
gen() { # gen FILE ARGS...: generate once per parameter set
	f=$1; shift
	[ -s "$f" ] || { echo "targets.sh: generating $(basename "$f") ..." >&2; "$G" --sample "$sample" "$@" >"$f.tmp" && mv "$f.tmp" "$f"; }
}
rep=$scratch/bench-repeat-2M.trace
real10=$scratch/bench-real-10M-s$seed.trace
leak2m=$scratch/bench-leak-2M-s$seed.trace
leak1k=$scratch/bench-leak-1k-s$seed.trace
if want db || want mawk; then gen "$rep" --shape repeat --events 2000000; fi
if want evarr; then gen "$real10" --shape real --events 10000000 --seed "$seed"; fi
if want live; then
	gen "$leak2m" --shape leak --events 2000000 --seed "$seed"
	gen "$leak1k" --shape leak --events 1000 --seed "$seed"
fi

# ---- measuring ----------------------------------------------------------------
# run KEY CMD...: runs the command $runs times under GNU time; sets
# KEY_cpu, KEY_wall (medians) and KEY_rss (largest, KiB). Its stdout goes to
# $work/KEY.out. Exit status 0 required. run_once and summary are its
# halves, for two commands whose ratio is a target: their runs alternate,
# so that what else the machine does drifts over both alike.
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
run_once() {
	key=$1; shift
	rm -f "$work/rec.db" "$work/rec.db-journal" "$work/rec.db-wal"
	/usr/bin/time -f '%e %U %S %M' -o "$work/t" "$@" >"$work/$key.out" 2>"$work/$key.err" ||
		die "$key failed: $* (see $(tail -n 1 "$work/$key.err"))"
	cat "$work/t" >>"$work/$key.t"
}
summary() {
	key=$1
	eval "${key}_wall=\$(awk '{ print \$1 }' \"\$work/\$key.t\" | median)"
	eval "${key}_cpu=\$(awk '{ print \$2 + \$3 }' \"\$work/\$key.t\" | median)"
	eval "${key}_rss=\$(awk '\$4 > m { m = \$4 } END { print m }' \"\$work/\$key.t\")"
}
run() {
	key=$1
	: >"$work/$key.t"
	i=0
	while [ "$i" -lt "$runs" ]; do
		i=$((i + 1))
		run_once "$@"
	done
	summary "$key"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
verdict() { awk -v v="$1" -v g="$2" -v op="$3" 'BEGIN { ok = op == "<=" ? v <= g : v >= g; print ok ? "met" : "MISSED" }'; }
row() { printf '  %-52s %10s  %-8s %s\n' "$1" "$2" "$3 $4" "$(verdict "$2" "$4" "$3")"; }

echo "slabsim targets (issue 28), $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, $(uname -r)"
echo "build: $builddir ($(sed -n "s/^buildtype *= *//p;s/^ *buildtype *//p" "$builddir/meson-info/intro-buildoptions.json" 2>/dev/null | head -n 1))"
echo "medians of $runs runs, CPU = user + system seconds (GNU time)"
echo
MAWK='$5 == "kmalloc:" || $5 == "kmalloc_node:" { for (i = 6; i <= NF; i++) { f = $i; if (substr(f, 1, 10) == "bytes_req=") r = substr(f, 11); else if (substr(f, 1, 12) == "bytes_alloc=") a = substr(f, 13) } s += a - r; k++ } END { printf "%d %.0f\n", k, s }'

if want db || want mawk; then
	cat "$rep" >/dev/null
	: >"$work/rec.t"
	: >"$work/nodb.t"
	i=0
	while [ "$i" -lt "$runs" ]; do
		i=$((i + 1))
		run_once rec "$S" replay "$rep" --db "$work/rec.db"
		run_once nodb "$S" replay "$rep" --no-db
	done
	summary rec
	summary nodb
	run mawk mawk "$MAWK" "$rep"
	run wc wc -l "$rep"
	echo "real-trace case: $(basename "$rep"), $(($(wc -l <"$rep") - 12)) events, $(($(wc -c <"$rep") / 1048576)) MiB"
	printf '  %-40s %8s %8s %10s\n' command "CPU s" "wall s" "RSS KiB"
	for k in rec nodb mawk wc; do
		eval "printf '  %-40s %8s %8s %10s\n' $k \"\$${k}_cpu\" \"\$${k}_wall\" \"\$${k}_rss\""
	done
fi
if want evarr; then
	# one replay thread over the parsed event array that sweep runs share
	: >"$work/ev.t"
	i=0
	while [ "$i" -lt "$runs" ]; do
		i=$((i + 1))
		"$E" "$real10" >>"$work/ev.t" || die "replay_evarr failed"
	done
	ev_n=$(sed -n '1s/.*events=\([0-9]*\).*/\1/p' "$work/ev.t")
	ev_cpu=$(sed 's/.*model_cpu_s=\([0-9.]*\).*/\1/' "$work/ev.t" | median)
	ev_wall=$(sed 's/.*model_s=\([0-9.]*\).*/\1/' "$work/ev.t" | median)
	ev_rate=$(awk -v n="$ev_n" -v c="$ev_cpu" 'BEGIN { printf "%.1f", n / c / 1e6 }')
	# the array's bytes (events, keys and strings) per event: 32 per event plus the keys
	ev_bpe=$(sed -n '1s/.*evarr_bytes=\([0-9]*\).*/\1/p' "$work/ev.t" | awk -v n="$ev_n" '{ printf "%.1f", $1 / n }')
	echo "parsed array: $(basename "$real10"), $ev_n events ($ev_bpe bytes per event in memory): replay CPU $ev_cpu s, wall $ev_wall s"
fi
if want live; then
	run l2m "$S" replay "$leak2m" --no-db -q
	run l1k "$S" replay "$leak1k" --no-db -q
	bpl=$(awk -v a="$l2m_rss" -v b="$l1k_rss" 'BEGIN { printf "%.1f", (a - b) * 1024 / 1999000 }')
	echo "live objects: peak RSS $l2m_rss KiB with 2 M live, $l1k_rss KiB with 1,000 live"
fi
if want dat; then
	if [ -z "$dat" ] && command -v trace-cmd >/dev/null 2>&1; then
		# the pinned 501,377-record trace.dat (tests/bench/README.md) and
		# the text trace-cmd report prints of it
		dat=$repo/tests/bench/data/linux-6.18-kmem-500k.dat
		report=$work/kmem-500k.report
		trace-cmd report -i "$dat" >"$report" 2>/dev/null || die "trace-cmd report -i $dat failed"
	elif [ -z "$dat" ]; then
		echo "targets.sh: no trace-cmd (apt-get install trace-cmd): the trace.dat target on the bundled 5 k-record sample, whose figures are start-up costs" >&2
		dat=$repo/traces/samples/linux-6.18-kmem.dat
		report=$work/kmem.report
		zstd -dcq "$repo/traces/samples/linux-6.18-kmem.report.zst" >"$report"
	fi
	[ -n "$report" ] || die "-D needs -T (the trace.dat's trace-cmd report text)"
	: >"$work/dat.t"
	: >"$work/txt.t"
	i=0
	while [ "$i" -lt "$runs" ]; do
		i=$((i + 1))
		run_once dat "$S" replay "$dat" --no-db
		run_once txt "$S" replay "$report" --no-db
	done
	summary dat
	summary txt
	if awk -v t="$txt_cpu" 'BEGIN { exit !(t < 0.1) }'; then
		# below GNU time's 10 ms: each measured over 50 runs in one shell
		loop='i=0; while [ $i -lt 50 ]; do "$@" >/dev/null || exit 1; i=$((i + 1)); done'
		run datl sh -c "$loop" sh "$S" replay "$dat" --no-db
		run txtl sh -c "$loop" sh "$S" replay "$report" --no-db
		dat_cpu=$(awk -v t="$datl_cpu" 'BEGIN { printf "%.4f", t / 50 }')
		txt_cpu=$(awk -v t="$txtl_cpu" 'BEGIN { printf "%.4f", t / 50 }')
	fi
	echo "trace.dat: $(basename "$dat") CPU $dat_cpu s, its report text CPU $txt_cpu s"
fi
if want perf && [ -n "$perfdata" ]; then
	# slabsim reads the recording itself, as perf kmem does; its perf
	# script text, for comparison
	perf script -i "$perfdata" >"$work/perf.txt" 2>/dev/null
	: >"$work/pk.t"
	: >"$work/ps.t"
	i=0
	while [ "$i" -lt "$runs" ]; do
		i=$((i + 1))
		run_once pk perf kmem -i "$perfdata" --slab stat
		run_once ps "$S" replay "$perfdata" --no-db
	done
	summary pk
	summary ps
	run pt "$S" replay "$work/perf.txt" --no-db
	echo "perf kmem: $(basename "$perfdata") ($(wc -l <"$work/perf.txt") perf script lines): perf kmem --slab stat CPU $pk_cpu s, slabsim replay of the perf.data CPU $ps_cpu s (of its perf script text $pt_cpu s)"
fi

echo
printf '  %-52s %10s  %-8s %s\n' target measured goal ""
if want db || want mawk; then
	row "recorded replay CPU / mawk one-liner CPU" "$(ratio "$rec_cpu" "$mawk_cpu")" "<=" 0.5
	row "recorded replay CPU / wc -l CPU" "$(ratio "$rec_cpu" "$wc_cpu")" "<=" 5
	row "recorded replay wall / wc -l wall" "$(ratio "$rec_wall" "$wc_wall")" "<=" 5
	row "replay --db CPU / replay --no-db CPU" "$(ratio "$rec_cpu" "$nodb_cpu")" "<=" 1.15
fi
! want evarr || row "M events/s from the parsed array (CPU)" "$ev_rate" ">=" 25
! want live || row "bytes per live object" "$bpl" "<=" 64
! want dat || row "trace.dat CPU / its report text CPU" "$(ratio "$dat_cpu" "$txt_cpu")" "<=" 1
if want perf && [ -n "$perfdata" ]; then
	row "slabsim CPU / perf kmem stat CPU" "$(ratio "$ps_cpu" "$pk_cpu")" "<=" 0.5
fi
