#!/bin/sh
# replay-bench.sh - how fast is `slabsim replay` on a long trace, next to the
# cheapest tools that read the same file, and how does its memory grow.
# See tests/bench/README.md for what each figure means.
#
# Usage: tests/bench/replay-bench.sh [-n EVENTS] [-r N] [-o FILE] [-B BUILDDIR]
#   -n EVENTS   trace length in slab events (default 10000000)
#   -r N        run each measurement N times, report the best time (default 1)
#   -o FILE     write the generated trace to FILE (overwritten) and keep it (default: a
#               temporary directory, removed at the end)
#   -B BUILDDIR use this meson build (should be --buildtype=release) instead
#               of configuring a temporary release build
# Needs: sh, awk, date (GNU, for %N), meson + ninja + cc (for the temporary
# build), mawk (figure 3). Peak RSS comes from
# GNU time (Debian package `time`) when present, else from polling VmHWM.
# Temporary files go to ${TMPDIR:-/tmp}: about 220 bytes per event at the peak
# (a 10M-event trace is 1.8 GB).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
sample=$repo/traces/samples/linux-6.1-boot-excerpt.trace
n=10000000 reps=1 keep='' builddir=''

usage() {
	sed -n '6,12s/^# \{0,1\}//p' "$0"
}
die() {
	echo "replay-bench: $*" >&2
	exit 1
}
while getopts n:r:o:B:h opt; do
	case $opt in
	n) n=$OPTARG ;;
	r) reps=$OPTARG ;;
	o) keep=$OPTARG ;;
	B) builddir=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 1; }
case $n in '' | *[!0-9]*) die "-n expects a number of events, got '$n'" ;; esac
case $reps in '' | *[!0-9]*) die "-r expects a number, got '$reps'" ;; esac
[ "$n" -ge 10 ] || die "-n must be at least 10"
[ "$reps" -ge 1 ] || die "-r must be at least 1"
[ -r "$sample" ] || die "cannot read the sample $sample"
case $(date +%N) in *[!0-9]*) die "date +%N does not print nanoseconds (GNU coreutils needed)" ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# ---- tools --------------------------------------------------------------

gnutime=
# REPLAY_BENCH_POLL_RSS=1 forces the /proc polling fallback (to test it)
[ -n "${REPLAY_BENCH_POLL_RSS:-}" ] ||
for t in /usr/bin/time $(command -v time 2>/dev/null || :); do
	case $t in /*) ;; *) continue ;; esac
	if [ -x "$t" ] && "$t" -f %M -o "$tmp/probe" true 2>/dev/null; then
		gnutime=$t
		break
	fi
done
if [ -z "$gnutime" ]; then
	echo "replay-bench: GNU time not found; peak RSS is polled from /proc/PID/status" >&2
	echo "replay-bench: (a lower bound). For exact figures: sudo apt-get install time" >&2
fi
mawk=$(command -v mawk 2>/dev/null || :)
[ -n "$mawk" ] || echo "replay-bench: mawk not found, figure (3) skipped (sudo apt-get install mawk)" >&2

if [ -z "$builddir" ]; then
	builddir=$tmp/build
	echo "replay-bench: configuring a release build in $builddir ..." >&2
	if ! meson setup "$builddir" "$repo" --buildtype=release >"$tmp/build.log" 2>&1 ||
		! ninja -C "$builddir" >>"$tmp/build.log" 2>&1; then
		cat "$tmp/build.log" >&2
		die "build failed"
	fi
else
	builddir=$(cd "$builddir" && pwd) || die "no build directory $builddir"
	ninja -C "$builddir" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; die "build failed"; }
fi
buildtype=$(sed -n 's/.*"name": "buildtype", "value": "\([a-z]*\)".*/\1/p' \
	"$builddir/meson-info/intro-buildoptions.json" 2>/dev/null | head -n 1)
[ "$buildtype" = release ] ||
	echo "replay-bench: warning: $builddir is a '${buildtype:-unknown}' build, not release" >&2
slabsim=$builddir/slabsim
bench_trace=$builddir/tests/traces/bench_trace
[ -x "$slabsim" ] || die "no $slabsim"

# The harness of figure (2), built with the project (tests/bench/meson.build).
harness=$builddir/tests/bench/replay_evarr
harness_why=
[ -x "$harness" ] || harness_why="no $harness in the build"

# ---- measuring ----------------------------------------------------------

# measure_once OUT CMD...: run CMD (stdout to OUT); sets wall (s) and rss (KiB).
measure_once() {
	mo_out=$1
	shift
	cpu=''
	if [ -n "$gnutime" ]; then
		mo_t0=$(date +%s%N)
		"$gnutime" -f '%M %U %S' -o "$tmp/rss" "$@" >"$mo_out" 2>"$tmp/stderr" ||
			{ cat "$tmp/stderr" >&2; die "failed: $*"; }
		mo_t1=$(date +%s%N)
		rss=$(tail -n 1 "$tmp/rss" | awk '{ print $1 }')
		cpu=$(tail -n 1 "$tmp/rss" | awk '{ printf "%.2f", $2 + $3 }')
	else
		rm -f "$tmp/pid" "$tmp/rc" "$tmp/t1"
		mo_t0=$(date +%s%N)
		(
			"$@" >"$mo_out" 2>"$tmp/stderr" &
			echo $! >"$tmp/pid"
			wait $! && echo 0 >"$tmp/rc" || echo $? >"$tmp/rc"
			date +%s%N >"$tmp/t1"
		) &
		mo_sub=$!
		rss=0
		while [ ! -s "$tmp/t1" ]; do
			if [ -s "$tmp/pid" ]; then
				mo_v=$(sed -n 's/^VmHWM:[^0-9]*\([0-9]*\).*/\1/p' \
					"/proc/$(cat "$tmp/pid")/status" 2>/dev/null || :)
				[ -n "$mo_v" ] && rss=$mo_v
			fi
			sleep 0.02
		done
		wait "$mo_sub" || :
		[ "$(cat "$tmp/rc")" = 0 ] || { cat "$tmp/stderr" >&2; die "failed: $*"; }
		mo_t1=$(cat "$tmp/t1")
		[ "$rss" -gt 0 ] && rss=">=$rss" || rss="?" # "?": ended before the first poll
	fi
	wall=$(awk -v a="$mo_t0" -v b="$mo_t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
}

# fold ID: merge the last run ($wall, $rss, stdout in $tmp/out.ID) into
# w_ID (best wall time; that run's stdout kept in $tmp/out.ID.best) and r_ID
# (largest peak RSS).
fold() {
	eval "f_w=\${w_$1:-} f_r=\${r_$1:-}"
	if [ -z "$f_w" ] || awk -v a="$wall" -v b="$f_w" 'BEGIN { exit !(a < b) }'; then
		eval "w_$1=\$wall c_$1=\$cpu"
		cp "$tmp/out.$1" "$tmp/out.$1.best"
	fi
	if [ -z "$f_r" ] || awk -v a="${rss#>=}" -v b="${f_r#>=}" 'BEGIN { exit !(a + 0 > b + 0) }'; then
		eval "r_$1=\$rss"
	fi
}
# fig ID CMD...: one measured run of figure ID
fig() {
	f_id=$1
	shift
	measure_once "$tmp/out.$f_id" "$@"
	fold "$f_id"
}

# row NUM LABEL WALL RSS: one line of the results table
# row NUM LABEL WALL RSS [CPU]: one line of the results table
row() {
	awk -v num="$1" -v label="$2" -v w="$3" -v rss="$4" -v c="${5:-}" -v n="$events" 'BEGIN {
		if (c == "") c = "-"
		if (w == "") { printf "  %-3s %-46s %9s %8s %11s %13s\n", num, label, "n/a", c, "n/a", rss; exit }
		printf "  %-3s %-46s %9.3f %8s %11.3f %13s\n", num, label, w, c, (w > 0 ? n / w / 1e6 : 0), rss }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b <= 0) print "n/a"; else printf "%.1fx", a / b }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }


# ---- 1. the trace ---------------------------------------------------------

trace=${keep:-$tmp/bench.trace}
echo "replay-bench: generating $n events into $trace ..." >&2
awk -v n="$n" -v countfile="$tmp/count" -f "$here/gen-trace.awk" "$sample" >"$trace"
events=$(cat "$tmp/count")
bytes=$(wc -c <"$trace" | tr -d ' ')
lines=$(wc -l <"$trace" | tr -d ' ')
header=$((lines - events))
sample_events=$(grep -vc '^#' "$sample")
avail_kib=$(sed -n 's/^MemAvailable:[^0-9]*\([0-9]*\).*/\1/p' /proc/meminfo)
sync # no writeback of the fresh trace during the measurements
cat "$trace" >/dev/null # page cache warm-up, so the first measurement pays no disk reads

cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
echo "slabsim replay benchmark ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
vm=
grep -qw hypervisor /proc/cpuinfo && vm=" (virtual machine: expect 10-20% run-to-run noise; use -r 3)"
echo "machine: ${cpu:-unknown CPU}, nproc $(nproc), $(uname -sr), $(awk '/^MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)$vm"
# shellcheck disable=SC2012 # our own file names
newest=$(cd "$repo" && ls -t sim/*.[ch] sim/*/*.[ch] traces/*.[ch] policies/*.[ch] analysis/*.[ch] | head -n 1)
echo "slabsim: $("$slabsim" --version), $buildtype build in $builddir"
echo "         built from the tree as of $(date -u -r "$repo/$newest" +%Y-%m-%dT%H:%M:%SZ) (newest source: $newest)"
echo "trace:   $trace"
echo "         $events slab events = $lines lines ($header header), $bytes bytes ($(mib "$bytes"))"
echo "         the $sample_events events of $(basename "$sample") repeated $(( (events + sample_events - 1) / sample_events )) times, pointers and timestamps shifted"
[ "$((bytes / 1024))" -lt "$((avail_kib / 2))" ] ||
	echo "         WARNING: the trace is larger than half the available RAM: reads may hit the disk"
echo "runs:    best wall time of $reps run(s) per figure (in $reps round(s) of every figure);"
echo "         peak RSS is the largest of those runs"
[ -n "$gnutime" ] || echo "         peak RSS polled from /proc/PID/status every 20 ms (a lower bound; install package 'time')"
echo

# ---- 2./3. the measurements ----------------------------------------------

# The figures run in rounds, each round every figure once, so that a slow
# phase of the machine does not land on one figure's runs only.
w_1='' w_1t='' w_2='' w_2a='' w_2b='' w_3='' w_4='' w_5=''
r_1='' r_1t='' r_2='' r_2a='' r_2b='' r_3='' r_4='' r_5=''
w2names='' w2parse='' w2live='' w2bytes=''
rm_db() { rm -f "$tmp/bench.db" "$tmp/bench.db-journal" "$tmp/bench.db-wal" "$tmp/bench.db-shm"; }
round=0
while [ "$round" -lt "$reps" ]; do
	round=$((round + 1))
	[ "$reps" -eq 1 ] || echo "replay-bench: round $round of $reps ..." >&2
	fig 1 "$slabsim" replay "$trace" --kernel 6.1 --nr-cpus 2 --no-progress --no-db -q
	fig 1t "$slabsim" replay "$trace" --kernel 6.1 --nr-cpus 2 --no-progress --no-db -q --no-spill

	if [ -z "$harness_why" ]; then
		measure_once "$tmp/out.2" "$harness" "$trace"
		[ -n "$r_2" ] && [ "${rss#>=}" -le "${r_2#>=}" ] 2>/dev/null || r_2=$rss
		# shellcheck disable=SC2046 # six numbers
		set -- $(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			print v["model_s"], v["name_pass_s"], v["load_s"], v["events"], v["live_objs"], v["evarr_bytes"] }' "$tmp/out.2")
		[ "$4" = "$events" ] || die "replay_evarr saw $4 events, expected $events"
		if [ -z "$w_2" ] || awk -v a="$1" -v b="$w_2" 'BEGIN { exit !(a < b) }'; then
			w_2=$1 w2names=$2 w2parse=$3 w2live=$5 w2bytes=$6
		fi
	fi

	fig 2a "$slabsim" replay "$trace" --kernel 6.1 --nr-cpus 2 --no-progress --no-db -q --no-name-pass

	[ ! -x "$bench_trace" ] || fig 2b "$bench_trace" "$trace" 1

	if [ -n "$mawk" ]; then
		# shellcheck disable=SC2016 # an awk program
		fig 3 "$mawk" '
			$5 == "kmalloc:" || $5 == "kmalloc_node:" {
				for (i = 6; i <= NF; i++) {
					f = $i
					if (substr(f, 1, 10) == "bytes_req=") r = substr(f, 11)
					else if (substr(f, 1, 12) == "bytes_alloc=") a = substr(f, 13)
				}
				s += a - r; k++
			}
			END { printf "%d kmalloc lines, sum(bytes_alloc - bytes_req) = %.0f\n", k, s }' "$trace"
	fi

	fig 4 wc -l "$trace"
	wc_lines=$(awk '{ print $1 }' "$tmp/out.4")
	[ "$wc_lines" = "$lines" ] || die "wc -l counted $wc_lines lines, expected $lines"

	rm_db
	fig 5 "$slabsim" replay "$trace" --kernel 6.1 --nr-cpus 2 --no-progress --db "$tmp/bench.db" -q
done
w1=$w_1 r1=$r_1 w1t=$w_1t r1t=$r_1t w2=$w_2 r2=$r_2 w2a=$w_2a r2a=$r_2a w2b=$w_2b r2b=$r_2b w3=$w_3 r3=$r_3
w4=$w_4 r4=$r_4 w5=$w_5 r5=$r_5
bt_line=''
[ -z "$w2b" ] || bt_line=$(cat "$tmp/out.2b.best")
sum3=''
[ -z "$w3" ] || sum3=$(cat "$tmp/out.3.best")
db_bytes=$(wc -c <"$tmp/bench.db" | tr -d ' ')

printf "  %-3s %-46s %9s %8s %11s %13s\n" "#" "what (same file, $events events)" "wall s" "CPU s" "Mevents/s" "peak RSS KiB"
row 1 "slabsim replay --no-db -q (SLUB, 6.1, 2 CPUs)" "$w1" "$r1" "${c_1:-}"
row 1t "(1) --no-spill: the text parsed twice" "$w1t" "$r1t" "${c_1t:-}"
if [ -n "$w2" ]; then
	row 2 "replay from the parsed event array (evarr)" "$w2" "$r2"
else
	row 2 "replay from the parsed event array (evarr)" "" "-"
fi
row 2a "slabsim replay --no-db -q --no-name-pass" "$w2a" "$r2a" "${c_2a:-}"
row 2b "parse only: bench_trace (trace_read), 1 pass" "$w2b" "${r2b:-n/a}" "${c_2b:-}"
row 3 "mawk: sum bytes_alloc - bytes_req of kmalloc" "$w3" "${r3:-n/a}" "${c_3:-}"
row 4 "wc -l" "$w4" "$r4" "${c_4:-}"
row 5 "slabsim replay --db FILE -q (SQLite recording)" "$w5" "$r5" "${c_5:-}"
echo
echo "  ratios of wall time: (1)/(3) mawk $(ratio "$w1" "$w3"), (1)/(4) wc -l $(ratio "$w1" "$w4"),"
echo "                       (1)/(2) from the event array $(ratio "$w1" "$w2"), (5)/(1) SQLite $(ratio "$w5" "$w1")"
[ -z "${c_1:-}" ] || echo "  ratios of CPU time:  (1)/(3) mawk $(ratio "$c_1" "${c_3:-}"), (1)/(4) wc -l $(ratio "$c_1" "$c_4"), (5)/(1) SQLite $(ratio "${c_5:-}" "$c_1")"
echo
echo "  About (2): tests/bench/replay_evarr loads the file into the parsed event"
echo "  array of traces/evarr.h (what 'slabsim sweep' replays from: 32-byte events"
echo "  with interned call-site ids) and replays it with the model and options of"
echo "  (1), name pass included. Only the replay is timed (its peak RSS holds the"
echo "  whole array, so it grows with the trace)."
if [ -n "$w2" ]; then
	awk -v a="$w2names" -v b="$w2parse" -v c="$w2" -v w="$w1" -v m="$w2bytes" -v n="$events" 'BEGIN {
		printf "  Untimed: the load (parse into the array, %.1f MiB, %.1f bytes/event) %.3f s;\n", m / 1048576, m / n, b
		printf "  the name pass over the array %.3f s (%.1f Mevents/s); name pass + replay %.3f s.\n", a, (a > 0 ? n / a / 1e6 : 0), a + c }'
else
	echo "  (2) not measured: $harness_why"
fi
echo "  (1) parses the text once: its name pass keeps the parsed events in \$TMPDIR"
echo "  and the replay reads them back; (1t) parses it twice. (2a) skips the name"
echo "  pass and parses once, replaying as it goes: (1) - (2a) = $(awk -v a="$w1" -v b="$w2a" 'BEGIN { printf "%.3f", a - b }') s."
if [ -n "$w2b" ]; then
	echo "  (2b) is the trace reader alone (trace_open/trace_next, what the meson benchmark"
	echo "  'trace_read' runs on the bundled sample): $bt_line"
	echo "  (1t) parses the file twice: 2 x (2b) = $(awk -v a="$w2b" -v b="$w1t" 'BEGIN { printf "%.3f s, %.0f%% of (1t)", 2 * a, 200 * a / b }')."
fi
[ -z "$sum3" ] || echo "  (3) printed: $sum3"
echo "  (5) wrote a $(mib "$db_bytes") database (a sample every 1000 events, with per-cache rows)."
if awk -v a="$w5" -v b="$w1" 'BEGIN { exit !(a < b * 1.05) }'; then
	echo "  (5) is within 5% of (1) or below it: the SQLite cost is smaller than this"
	echo "  machine's run-to-run noise at $reps run(s); use -r 3 or more to resolve it."
fi
echo

# ---- 4. memory against trace length -------------------------------------

small=$((n / 10))
# mem_run LABEL FILE: a replay with its summary; prints one table row
mem_run() {
	measure_once "$tmp/sum" "$slabsim" replay "$2" --kernel 6.1 --nr-cpus 2 --no-progress --no-db
	set -- "$1" "$(awk 'NR > 1 && /^lines:/ { print $2 - $4 }' "$tmp/sum")" \
		"$(sed -n 's/^live objects \([0-9]*\).*/\1/p' "$tmp/sum")" \
		"$(sed -n 's/^slab pages \([0-9]*\) at the end.*/\1/p' "$tmp/sum")" "$rss"
	printf "  %-30s %11s %12s %11s %13s\n" "$1" "$2" "$3" "$4" "$5"
	mem_live=$3 mem_rss=${5#>=}
}
echo "Memory against trace length (replay --no-db, summary on; peak RSS in KiB)"
printf "  %-30s %11s %12s %11s %13s\n" "trace" "events" "live objects" "slab pages" "peak RSS KiB"
head -n "$((header + small))" "$trace" >"$tmp/small.trace"
mem_run "repeated, n/10 events" "$tmp/small.trace"
l1=$mem_live m1=$mem_rss
mem_run "repeated, n events" "$trace"
l2=$mem_live m2=$mem_rss
[ -z "$w2live" ] || [ "$w2live" = "$l2" ] ||
	echo "  WARNING: the replay of (2) ended with $w2live live objects, the CLI with $l2: (2) does not replay what (1) does"
rm -f "$tmp/small.trace"
[ -n "$keep" ] || rm -f "$trace"
awk -v n="$events" -v balance=1 -v countfile="$tmp/count" -f "$here/gen-trace.awk" "$sample" >"$tmp/bal.trace"
bal_events=$(cat "$tmp/count")
awk -v n="$small" -v balance=1 -f "$here/gen-trace.awk" "$sample" >"$tmp/bal-small.trace"
mem_run "balanced, n/10 events" "$tmp/bal-small.trace"
b1=$mem_rss
rm -f "$tmp/bal-small.trace"
mem_run "balanced, n events" "$tmp/bal.trace"
b2=$mem_rss
rm -f "$tmp/bal.trace"
leftover=$(awk -v a="$l1" -v b="$l2" -v r1="$small" -v r2="$events" -v s="$sample_events" \
	'BEGIN { printf "%.0f", (b - a) / ((r2 - r1) / s) }')
echo
echo "  The repeated trace does not free everything it allocates: each repetition"
echo "  of the sample leaves about $leftover objects live (allocated after tracing began,"
echo "  freed after it ended), so its live set grows linearly with the length and"
echo "  so must any faithful model's memory. Compare memory per live object instead:"
awk -v l1="$l1" -v l2="$l2" -v m1="$m1" -v m2="$m2" 'BEGIN {
	printf "    peak RSS / live objects: %.0f B (n/10), %.0f B (n)\n", m1 * 1024 / l1, m2 * 1024 / l2
	if (l2 > l1)
		printf "    marginal: (RSS(n) - RSS(n/10)) / (live(n) - live(n/10)) = %.0f B per extra live object\n",
			(m2 - m1) * 1024 / (l2 - l1)
}'
echo "  (the tables grow by doubling, so one pair of sizes can land on either side of"
echo "  a doubling: read these as +-2x). That RSS follows the live set and not the"
echo "  length is shown by the balanced trace: the same events plus, after every"
echo "  complete repetition, a kfree of each object it left live ($((bal_events - events)) extra"
echo "  lines at n), so the live set stays below one repetition's worth."
awk -v a="$b1" -v b="$b2" -v short="$((small < 10 * sample_events))" 'BEGIN {
	r = b / a
	printf "    balanced: peak RSS n / peak RSS n/10 = %.2f for 10x the events: %s\n", r,
		r < 1.10 ? "flat, memory does not grow with trace length" : \
		short ? "inconclusive: n/10 is under 10 repetitions of the sample (use a larger -n)" : \
		"GROWS with trace length (not explained by the live set)"
}'
[ -n "$gnutime" ] || echo "  (RSS polled: lower bounds, may miss a final peak)"
