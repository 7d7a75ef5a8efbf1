#!/bin/sh
# live.sh - `slabsim live` on this machine's kernel: short sessions while a
# workload creates files and forks, with the tracing state compared before
# and after each (instances, the top-level tracing_on, enabled events,
# tracer, clock and buffer size), the JSON checked, the plain tables, the
# database, SIGTERM, an error at the end, and a dead session's instance
# removed. Skipped (TAP "1..0 # SKIP") where live tracing cannot run: not
# root, no writable tracefs, a slabsim built without libtracefs; and under
# the sanitizers (test.sh's second pass sets ASAN_OPTIONS), where building
# each model from a real machine's start state (millions of objects) takes
# longer than the test's 600 s: the plain pass runs it, and
# SLABSIM_LIVE_SANITIZED=1 runs it under ASan by hand (meson test -t 3).
#   $1 slabsim binary
set -u
bin=$1
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$bin")
tap_scratch

skip() {
	echo "1..0 # SKIP $1"
	exit 0
}
[ "$(id -u)" = 0 ] || skip "live tracing needs root"
[ -z "${ASAN_OPTIONS:-}" ] || [ "${SLABSIM_LIVE_SANITIZED:-0}" = 1 ] ||
	skip "under the sanitizers a machine's start state takes longer than the timeout (SLABSIM_LIVE_SANITIZED=1 runs it)"
tr=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$d/instances" ] && tr=$d && break
done
[ -n "$tr" ] || skip "no tracefs mounted at /sys/kernel/tracing"
[ -w "$tr/instances" ] || skip "$tr/instances is not writable"
[ -r /proc/slabinfo ] || skip "no /proc/slabinfo"
[ -d /sys/kernel/slab ] || skip "no /sys/kernel/slab (not a SLUB kernel)"

# The tracing state other users see: instances, and the top level's
# switches, events, tracer, clock and buffer size.
instances() {
	ls "$tr/instances" | sort
}
top_level() {
	for f in tracing_on set_event current_tracer trace_clock buffer_size_kb; do
		echo "$f: $(cat "$tr/$f" 2>/dev/null | tr '\n' ' ')"
	done
}

# Processes other than slabsim holding tracefs files open (a trace-cmd or
# `cat trace_pipe` of another user): while one runs, the top level may
# change under its hands, not ours.
others_tracing() {
	for p in /proc/[0-9]*; do
		case $(cat "$p/comm" 2>/dev/null) in slabsim) continue ;; esac
		ls -l "$p/fd" 2>/dev/null | grep -q " -> $tr/" && echo "${p#/proc/}"
	done | tr '\n' ' '
}
others=$(others_tracing)

# check_state NAME: the instances exactly as before; the top level as
# before, unless another tracing user was seen during the test.
check_state() {
	tap_is "$1: the instances as before" "$(instances)" "$(cat inst-before.txt)"
	others="$others$(others_tracing)"
	if [ -n "$others" ] && [ "$(top_level)" != "$(cat top-before.txt)" ]; then
		tap_skip "$1: the top level (tracing_on, set_event, ...) as before" \
			"another tracing user changed it (PIDs $others)"
	else
		tap_is "$1: the top level (tracing_on, set_event, ...) as before" \
			"$(top_level)" "$(cat top-before.txt)"
	fi
}

# A workload of file creation and forks until stop exists.
workload() {
	mkdir -p wl
	while [ ! -e stop ]; do
		i=0
		while [ $i -lt 200 ]; do
			: > "wl/f$i"
			i=$((i + 1))
		done
		rm -f wl/f*
		sh -c true
	done
}

start_workload() {
	rm -f stop
	workload &
	wl_pid=$!
}
stop_workload() {
	: > stop
	wait "$wl_pid"
}

instances > inst-before.txt
top_level > top-before.txt
# 1. JSON, two models, while files are created; recorded in a database
start_workload
"$bin" live -d 3 --align natural,none --format json --db live.db > out.json 2> err.txt
rc=$?
stop_workload
grep -q "without libtracefs" err.txt && skip "slabsim built without libtracefs"
tap_is "live -d 3 --format json exits 0" "$rc $(grep slabsim: err.txt)" "0 "
# 6.18 here: the look-ahead of page frees for vm_area_struct's slabs,
# the models held back by its window
tap_like "the models held back by the look-ahead's window" "$(cat err.txt)" \
	"live: the models take each event 100 ms after the trace shows it"
check_state "json"
json=$(tr -d '\n' < out.json)
ev=$(printf '%s\n' "$json" | sed -n 's/.*"events": \([0-9]*\).*/\1/p')
tap_is "more than 1000 events" "$([ "${ev:-0}" -gt 1000 ] && echo yes || echo "no: ${ev:-none}")" yes
lost=$(printf '%s\n' "$json" | sed -n 's/.*"lost_events": \([0-9]*\).*/\1/p')
tap_is "lost_events counted" "$([ -n "$lost" ] && echo yes || echo no)" yes
n=$(printf '%s\n' "$json" | grep -o '"slab_pages": [1-9][0-9]*' | wc -l)
tap_is "two models, each with slab pages" "$n" 2
tap_is "models natural and none" \
	"$(printf '%s\n' "$json" | grep -o '"align": "[a-z]*"' | tr '\n' ' ')" \
	'"align": "natural" "align": "none" '
real=$(printf '%s\n' "$json" | sed -n 's/.*"start_slab_pages": \([1-9][0-9]*\), "end_slab_pages": \([1-9][0-9]*\).*/\1 \2/p')
tap_like "real slab pages at start and end" "real=$real" " "
# the running configuration's model ends near the kernel's own pages
m=$(printf '%s\n' "$json" | grep -o '"slab_pages": [0-9]*' | head -n 1 | sed 's/.*: //')
e=$(printf '%s\n' "$json" | sed -n 's/.*"end_slab_pages": \([0-9]*\).*/\1/p')
d=$((m > e ? m - e : e - m))
tap_is "the running configuration's model within 5% of the kernel's pages ($m vs $e)" \
	"$([ $((d * 20)) -le "$e" ] && echo yes || echo no)" yes
if command -v sqlite3 > /dev/null; then
	tap_is "--db: two live runs recorded, done" \
		"$(sqlite3 live.db "select count(*), min(status) from runs where command = 'live'")" "2|done"
	tap_is "--db: samples over time" \
		"$(sqlite3 live.db "select count(*) > 3 from samples")" 1
else
	tap_skip "--db: runs recorded" "no sqlite3"
	tap_skip "--db: samples" "no sqlite3"
fi

# 2. plain tables when stdout is not a terminal, every interval, until
# SIGTERM ends the session (no -d): exit 0, the final table, no instance
start_workload
"$bin" live --interval 0.5 > out.txt 2> err.txt &
pid=$!
i=0
while [ $i -lt 3000 ] && [ "$(grep -c '^real slab pages' out.txt)" -lt 3 ]; do
	sleep 0.1
	i=$((i + 1))
done
tap_is "table: the session's own instance while it runs" \
	"$([ -d "$tr/instances/slabsim-live-$pid" ] && echo yes || echo no)" yes
kill -TERM "$pid"
wait "$pid"
rc=$?
stop_workload
tap_is "table, SIGTERM: exit 0" "$rc $(grep slabsim: err.txt)" "0 "
tap_is "table: no control codes" "$(grep -c "$(printf '\033')" out.txt)" 0
tap_is "table: refreshed every interval, then the final one (at least 4 tables)" \
	"$([ "$(grep -c '^real slab pages' out.txt)" -ge 4 ] && echo yes || echo no)" yes
# the default --align is the running kernel's profile's rule: the 6.11
# widening (pow2-divisor) from the 6.12 profile, natural before
kv=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
if [ "$kv" -ge 6012 ]; then defalign=pow2-divisor; else defalign=natural; fi
tap_like "table: a model row" "$(cat out.txt)" "slub $defalign debug=-"
tap_like "table: lost events shown" "$(head -n 1 out.txt)" ", lost "
tap_like "table: the top caches" "$(cat out.txt)" "top caches by real pages"
check_state "table, SIGTERM"

# 2b. SIGTERM while the models are still being built (a machine's start
# state: seconds for SLUB, more for SLOB): the session ends at once, exit
# 130, nothing printed, the instance removed
"$bin" live -d 60 --allocator slub,slob --format json > out.txt 2> err.txt &
pid=$!
i=0
while [ $i -lt 300 ] && [ ! -d "$tr/instances/slabsim-live-$pid" ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -TERM "$pid"
t0=$(date +%s)
wait "$pid"
rc=$?
t1=$(date +%s)
tap_is "SIGTERM while the models are built: exit 130, said, nothing printed" \
	"$rc $(grep -c 'stopped by a signal' err.txt) $(wc -c < out.txt)" "130 1 0"
tap_is "SIGTERM while the models are built: over within 5 s" \
	"$([ $((t1 - t0)) -le 5 ] && echo yes || echo "no: $((t1 - t0)) s")" yes
check_state "SIGTERM while built"

# 3. an error at the end (a database that cannot be written): exit 3, the
# instance removed all the same; and the instance of a session that died
# unclosed (SIGKILL) is removed by this one
dead=$(sh -c 'echo $$')
mkdir "$tr/instances/slabsim-live-$dead"
"$bin" live -d 0.5 --db /nonexistent/dir/live.db > /dev/null 2> err.txt
tap_is "unwritable --db: exit 3" "$?" 3
tap_like "unwritable --db: the message names it" "$(cat err.txt)" "/nonexistent/dir/live.db"
tap_is "a dead session's instance removed" \
	"$([ -d "$tr/instances/slabsim-live-$dead" ] && echo left || echo removed)" removed
[ -d "$tr/instances/slabsim-live-$dead" ] && rmdir "$tr/instances/slabsim-live-$dead"
check_state "unwritable --db"

# 4. usage errors before any tracing
"$bin" live --format xml > /dev/null 2> err.txt
tap_is "--format xml: exit 1" "$? $(head -n 1 err.txt)" "1 slabsim: --format expects table or json, got 'xml'"
"$bin" live -d -1 > /dev/null 2> err.txt
tap_is "-d -1: exit 1" "$? $(head -n 1 err.txt)" "1 slabsim: -d expects a positive number of seconds, got '-1'"
"$bin" live --allocator slub,nosuch > /dev/null 2> err.txt
tap_like "unknown allocator in the list: exit 1" "$? $(head -n 1 err.txt)" "1 slabsim: unknown allocator 'nosuch'"
tap_done
