#!/bin/sh
# synth-bench.sh - how fast does `slabsim replay --workload` generate and
# replay a synthetic workload, and how much memory does it take; and how much
# does the generator's event queue hold when tens of millions of frees are
# pending. Run on demand (not in meson test); see tests/bench/README.md.
#
# Usage: tests/bench/synth-bench.sh [-n EVENTS] [-B BUILDDIR]
#   -n EVENTS   events of figure 1 (default 100000000)
#   -B BUILDDIR use this meson build (should be --buildtype=release) instead
#               of configuring a temporary release build
# Needs: sh, awk, GNU time (/usr/bin/time, Debian package `time`), meson,
# ninja, cc. Writes nothing large: the events never touch the disk.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
n=100000000 builddir=''
while getopts n:B:h opt; do
	case $opt in
	n) n=$OPTARG ;;
	B) builddir=$OPTARG ;;
	h) sed -n '7,10s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) sed -n '7,10s/^# \{0,1\}//p' "$0" >&2; exit 1 ;;
	esac
done
[ -x /usr/bin/time ] || { echo "synth-bench: needs GNU time (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/synth-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -z "$builddir" ]; then
	builddir=$tmp/build
	meson setup "$builddir" "$repo" --buildtype=release >/dev/null
	ninja -C "$builddir" -j2 slabsim >/dev/null
fi
bin=$builddir/slabsim

# Figure 1's workload: a short-lived kmalloc mix (about 2 events per
# allocation) and a long-lived dentry-like cache (1 event per allocation,
# its frees mostly after the end): 1.9 M events per second of virtual time.
cat > "$tmp/bench.wl" <<'SPEC'
[workload]
name = bench
cpus = 2
[cache obj]
object_size = 192
flags = reclaim
usersize = 32
[stream short]
target = kmalloc
size = lognormal 96 1.0 8 8192
lifetime = exponential 1ms
arrival = poisson 900000
[stream long]
target = cache obj
lifetime = exponential 1h
arrival = poisson 100000
SPEC
# Figure 3's workload: 1 M allocations per second living about 20 s (ln L ~
# N(ln 20 s, 0.1)): near 20 s about 18 M frees are pending at once.
cat > "$tmp/pending.wl" <<'SPEC'
[workload]
name = pending
[stream p]
target = kmalloc
size = fixed 64
lifetime = lognormal 20s 0.1
arrival = poisson 1000000
SPEC

# measure NAME CMD...: wall s, user s, peak RSS KiB from GNU time
measure() {
	m_name=$1
	shift
	/usr/bin/time -f '%e %U %M' -o "$tmp/time" "$@" > "$tmp/out" 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
	read -r wall user rss < "$tmp/time"
	echo "$m_name $wall $user $rss"
}

dur_ms=$(awk -v n="$n" 'BEGIN {printf "%d", n / 1.9e6 * 1000}')
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -m), $(nproc) CPUs; workload bench.wl for ${dur_ms}ms"
echo "# figure wall_s user_s peak_rss_KiB events events_per_s(wall) events_per_s(user)"
r=$(measure replay "$bin" replay --workload "$tmp/bench.wl" --duration "${dur_ms}ms" --kernel 6.1 \
	--no-db --format json --no-progress --sample-every 100000000ev)
ev=$(awk -F'[:,{}]' '/"events"/ {s = 0; for (i = 1; i <= NF; i++) if ($i ~ /^ *[0-9]+ *$/) s += $i; print s}' "$tmp/out")
echo "$r" | awk -v ev="$ev" '{printf "1-replay-workload %s %s %s %d %.0f %.0f\n", $2, $3, $4, ev, ev / $2, ev / $3}'
grep '"totals"' "$tmp/out" | sed 's/^/#   /'

# 2: the generator alone, formatting text to /dev/null (synth), on a tenth
r=$(measure synth "$bin" synth --workload "$tmp/bench.wl" --duration "$((dur_ms / 10))ms" -o /dev/null)
echo "$r" | awk -v ev="$((ev / 10))" '{printf "2-synth-text-to-devnull %s %s %s ~%d %.0f %.0f\n", $2, $3, $4, ev, ev / $2, ev / $3}'

# 3: pending frees: the generator alone with ~18 M frees in its queue
r=$(measure pending "$bin" synth --workload "$tmp/pending.wl" --duration 40s -o /dev/null --stats)
echo "$r" | awk '{printf "3-synth-pending %s %s %s\n", $2, $3, $4}'
sed 's/^/#   /' "$tmp/err"
