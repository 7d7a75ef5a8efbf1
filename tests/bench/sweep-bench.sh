#!/bin/sh
# sweep-bench.sh - a 24-run sweep over one trace, with the time split into
# parsing (once per sweep) and replay (per run, summed over the workers), and
# for comparison one text `slabsim replay` of a configuration of the sweep
# (which parses the trace twice: name pass and replay). Not part of meson
# test; run it when you want the figures (tests/bench/README.md).
#
#   tests/bench/sweep-bench.sh [-n EVENTS] [-j JOBS] [-B BUILDDIR]
#
# The trace is the bundled sample repeated to EVENTS slab events (default
# 300000) by gen-trace.awk with balance=1 (bounded live set). The sweep:
# slub and slab x align none/natural x debug off/on x nr_cpus 1, 2, 4, kernel
# 6.1 = 24 runs, each recorded in a scratch database (per-cache samples every
# 1000 events included, as replay records them by default).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
n=300000 jobs=2 build=$top/build
while getopts n:j:B: o; do
	case $o in
	n) n=$OPTARG ;;
	j) jobs=$OPTARG ;;
	B) build=$(cd "$OPTARG" && pwd) ;;
	*) echo "usage: $0 [-n EVENTS] [-j JOBS] [-B BUILDDIR]" >&2; exit 1 ;;
	esac
done
bin=$build/slabsim
[ -x "$bin" ] || { echo "$0: no $bin (build first)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v n="$n" -v balance=1 -f "$here/gen-trace.awk" \
	"$top/traces/samples/linux-6.1-boot-excerpt.trace" >"$tmp/bench.trace"
cat >"$tmp/bench.sweep" <<EOS
trace = $tmp/bench.trace
kernel = 6.1
allocator = slub, slab
align = none, natural
slub_debug = -, FZPU
slab_debug = off, on
nr_cpus = 1, 2, 4
EOS
ms() { date +%s%N | awk '{ printf "%.3f", $1 / 1e9 }'; }
t0=$(ms)
"$bin" sweep "$tmp/bench.sweep" --db "$tmp/bench.db" -j "$jobs" --no-progress 2>"$tmp/log"
t1=$(ms)
runs=$(sqlite3 "$tmp/bench.db" "SELECT count(*) FROM runs WHERE status = 'done'")
t2=$(ms)
"$bin" replay "$tmp/bench.trace" --kernel 6.1 --nr-cpus 2 --db "$tmp/one.db" -q --no-progress
t3=$(ms)
echo "trace: $n slab events, $(wc -c <"$tmp/bench.trace") bytes; machine: $(nproc) CPUs; -j $jobs"
grep '^sweep: parsed' "$tmp/log"
grep '^sweep: [0-9]* runs' "$tmp/log"
awk -v runs="$runs" -v w="$(echo "$t1 $t0" | awk '{print $1 - $2}')" \
	-v one="$(echo "$t3 $t2" | awk '{print $1 - $2}')" \
	-v n="$(sed -n 's/^sweep: parsed \([0-9]*\) events.*/\1/p' "$tmp/log")" 'BEGIN {
	printf "sweep wall %.2f s for %d runs (%.2f s per run, %.2f M events/s over all runs)\n",
		w, runs, w / runs, runs * n / w / 1e6
	printf "one text replay (slub, 2 CPUs, with the name pass): %.2f s; 24 of them one after the other: %.1f s\n",
		one, 24 * one
}'
