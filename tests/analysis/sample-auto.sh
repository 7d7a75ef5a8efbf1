#!/bin/sh
# sample-auto.sh - a sweep without sample_every samples each trace about
# 500 times (sample_every = auto, docs/sweeps.md): the 3,000-event boot
# excerpt every 6 events (501 samples; it had 4 at the old 1000-event
# default), the 269,811-event qemu capture every 540 (bounded rows), the
# resolved period in runs.sample_every, `auto` in the resume key (a spec
# saying `sample_every = auto` finds the runs done). TAP.
#   $1 slabsim binary, $2 source root
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") root=$(abs_path "$2")
tap_scratch

q() { sqlite3 -batch -init /dev/null "$@"; }
boot=$root/traces/samples/linux-6.1-boot-excerpt.trace
cap=$root/traces/samples/linux-6.1-qemu-2cpu/trace.txt.zst
printf 'trace = %s\ntrace = %s\nkernel = 6.1\nnr_cpus = 2\nallocator = slub\n' \
	"$boot" "$cap" > a.sweep
"$bin" sweep a.sweep --db a.db -j 2 -q > out 2> err
tap_is "sweep without sample_every: exit 0" "$?" 0
tap_is "per trace: events, the period recorded, samples (end and markers included)" \
	"$(q a.db "SELECT events, sample_every, json_extract(config_json, '\$.sample_every'),
		(SELECT count(*) FROM samples s WHERE s.run_id = r.run_id AND s.label IS NULL)
		FROM runs r ORDER BY events")" \
	"3000|6ev|auto|500
269811|540ev|auto|499"
{ cat a.sweep; echo 'sample_every = auto'; } > b.sweep
"$bin" sweep b.sweep --db a.db -j 2 > out 2> err
tap_is "sample_every = auto: the same runs, found done" \
	"$? $(q a.db "SELECT count(*) FROM runs")" "0 2"
{ cat a.sweep; echo 'sample_every = 100ev'; } > c.sweep
"$bin" sweep c.sweep --db c.db -q > out 2> err
tap_is "sample_every = 100ev: as given" \
	"$? $(q c.db "SELECT sample_every FROM runs ORDER BY events" | tr '\n' ' ')" "0 100ev 100ev "
{ cat a.sweep; echo 'sample_every = often'; } > d.sweep
"$bin" sweep d.sweep --db d.db -q > out 2> err
tap_is "sample_every = often: exit 2, says what it expects" \
	"$? $(grep -c "sample_every expects auto, N, Nev" err)" "2 1"
tap_done
