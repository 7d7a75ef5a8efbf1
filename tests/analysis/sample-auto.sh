#!/bin/sh
# sample-auto.sh - `sample_every = auto` in a sweep spec samples each trace
# about 500 times (docs/sweeps.md): the 3,000-event boot excerpt every 6
# events (500 samples and the end; the default 1000 events gives it 3), the
# 269,811-event qemu capture every 540 (bounded rows), the resolved period
# in runs.sample_every, `auto` in the resume key (a rerun finds the runs
# done); without the key the default stays 1000ev, the key replay gives. TAP.
#   $1 slabsim binary, $2 source root
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") root=$(abs_path "$2")
tap_scratch

q() { sqlite3 -batch -init /dev/null "$@"; }
boot=$root/traces/samples/linux-6.1-boot-excerpt.trace
cap=$root/traces/samples/linux-6.1-qemu-2cpu/trace.txt.zst
printf 'trace = %s\ntrace = %s\nkernel = 6.1\nnr_cpus = 2\nallocator = slub\n' \
	"$boot" "$cap" > base.sweep
{ cat base.sweep; echo 'sample_every = auto'; } > a.sweep
"$bin" sweep a.sweep --db a.db -j 2 -q > out 2> err
tap_is "sample_every = auto: exit 0" "$?" 0
tap_is "per trace: events, the period recorded, samples (markers left out)" \
	"$(q a.db "SELECT events, sample_every, json_extract(config_json, '\$.sample_every'),
		(SELECT count(*) FROM samples s WHERE s.run_id = r.run_id AND s.label IS NULL)
		FROM runs r ORDER BY events")" \
	"3000|6ev|auto|500
269811|540ev|auto|499"
"$bin" sweep a.sweep --db a.db -j 2 > out 2> err
tap_is "rerun: the same runs, found done" "$? $(q a.db "SELECT count(*) FROM runs")" "0 2"
"$bin" sweep base.sweep --db b.db -q > out 2> err
tap_is "no sample_every: 1000ev, 3 samples of the boot excerpt before its end" \
	"$? $(q b.db "SELECT sample_every, (SELECT count(*) FROM samples s WHERE s.run_id = r.run_id
		AND s.label IS NULL) FROM runs r ORDER BY events" | tr '\n' ' ')" "0 1000ev|3 1000ev|269 "
"$bin" replay "$boot" --kernel 6.1 --nr-cpus 2 --db b.db -q 2> err
tap_is "no sample_every: the key replay gives" \
	"$? $(q b.db "SELECT count(DISTINCT config_hash) FROM runs WHERE events = 3000")" "0 1"
{ cat base.sweep; echo 'sample_every = often'; } > d.sweep
"$bin" sweep d.sweep --db d.db -q > out 2> err
tap_is "sample_every = often: exit 2, says what it expects" \
	"$? $(grep -c "sample_every expects auto, N, Nev" err)" "2 1"
tap_done
