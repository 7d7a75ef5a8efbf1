#!/bin/sh
# sweep-auto.sh - sweeps follow the trace as replay does (issue 25): kernel
# and nr_cpus default to `auto`, resolved per trace by replay's detection;
# a capture directory as `trace =` runs as `replay DIR` (same model, caches
# and start state: same figures); --dry-run checks every input it names;
# resume keys of specs naming both axes are unchanged, and runs of the old
# silent defaults are not taken as done for an auto spec. Expected values
# come from `slabsim replay` runs and sqlite3, never from the sweep. TAP.
#   $1 slabsim binary, $2 the source tree
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") src=$(abs_path "$2")
tap_scratch
# relative paths, as specs are usually written (and recorded as written)
ln -s "$src/traces/samples" samples
s8=samples/linux-6.1-qemu-8cpu
wo=samples/workload-only

q() { sqlite3 -cmd '.timeout 5000' "$1" "$2"; }
figs="SELECT trace_label, allocator, kernel, nr_cpus, final_slab_pages, peak_slab_pages, trace_path FROM runs ORDER BY trace_label, allocator"

# ---- the 8-CPU 6.1 capture's trace, no kernel or nr_cpus axis ----
printf 'trace = %s/trace.txt.zst\n' "$s8" > t8.sweep
"$bin" sweep t8.sweep --db t8.db --dry-run > plan 2> err
tap_is "dry-run of an auto spec: exit 0" "$?" 0
tap_like "dry-run: kernel and nr_cpus resolved from the trace, marked auto" "$(cat plan)" \
	"slub kernel=6.1(auto) nr_cpus=8(auto) align=natural"
tap_like "dry-run: where they came from, in replay's words" "$(cat err)" \
	"auto: kernel 6.1 from the trace (accounted= fields: Linux 5.19+); nr_cpus 8 from the trace's header"
"$bin" sweep t8.sweep --db t8.db -j 1 -q 2> err
tap_is "auto sweep: exit 0" "$? $(cat err)" "0 "
tap_is "recorded: kernel 6.1 on 8 CPUs, as the trace says" \
	"$(q t8.db "SELECT kernel, nr_cpus, trace_kernel, trace_nr_cpus FROM runs")" "6.1|8|6.1|8"
tap_is "recorded: the source of each auto value in config_json" \
	"$(q t8.db "SELECT json_extract(config_json, '\$.kernel') || ' ' || json_extract(config_json, '\$.nr_cpus') || '; ' || json_extract(config_json, '\$.kernel_from') || '; ' || json_extract(config_json, '\$.nr_cpus_from') FROM runs")" \
	"6.1 8; the trace (accounted= fields: Linux 5.19+); the trace's header"
"$bin" replay "$s8/trace.txt.zst" --db r8.db -q 2> err
tap_is "the same end and peak slab pages as replay TRACE" \
	"$(q t8.db "SELECT kernel, nr_cpus, final_slab_pages, peak_slab_pages FROM runs")" \
	"$(q r8.db "SELECT kernel, nr_cpus, final_slab_pages, peak_slab_pages FROM runs")"
"$bin" sweep t8.sweep --db t8.db -j 1 2> err
tap_like "an auto run is resumed by its own key" "$(cat err)" "1 already done, 0 to run"

# ---- resume keys ----
# A spec naming both axes keeps today's key: the one replay gives the same
# options. The old silent default (5.4, 2 CPUs) is such a key, and is not
# taken as done for the auto spec.
printf 'trace = %s/trace.txt.zst\nkernel = 5.4\nnr_cpus = 2\n' "$s8" > old.sweep
"$bin" sweep old.sweep --db old.db -j 1 -q 2> err
tap_is "both axes named: exit 0" "$? $(cat err)" "0 "
"$bin" replay "$s8/trace.txt.zst" --kernel 5.4 --nr-cpus 2 --db rold.db -q 2> err
tap_is "both axes named: replay's configuration hash, as before auto" \
	"$(q old.db "SELECT config_hash, kernel, nr_cpus FROM runs")" \
	"$(q rold.db "SELECT config_hash, kernel, nr_cpus FROM runs")"
"$bin" sweep t8.sweep --db old.db --dry-run > plan 2> err
tap_is "a run of the old silent defaults is not done for the auto spec" "$(cut -f2 plan)" "todo"
"$bin" sweep old.sweep --db t8.db --dry-run > plan 2> err
tap_is "nor is the auto run done for the fixed 5.4/2 spec" "$(cut -f2 plan)" "todo"

# auto next to a fixed value: two runs, two keys
printf 'trace = %s/trace.txt.zst\nkernel = auto, 5.4\nnr_cpus = 2\n' "$s8" > mix.sweep
"$bin" sweep mix.sweep --db mix.db --dry-run > plan 2> err
tap_is "kernel = auto, 5.4: two runs, resolved and fixed" "$(cut -f4 plan | cut -d' ' -f2,3)" \
	"kernel=6.1(auto) nr_cpus=2
kernel=5.4 nr_cpus=2"
tap_is "kernel = auto, 5.4: two keys" "$(cut -f5 plan | sort -u | wc -l)" 2

# ---- capture directories as traces: each run = replay DIR ----
# the 8-CPU capture (no start state), a workload-only capture with a start
# state (SLUB), and a SLAB one (its allocator from the capture)
cat > dirs.sweep <<EOS
trace = $s8
trace = $wo/linux-6.1-qemu-2cpu-work
trace = $wo/linux-6.1-slab-2cpu-work
sample_every = 2000ev
EOS
"$bin" sweep dirs.sweep --db dirs.db --dry-run > plan 2> err
tap_is "capture directories: dry-run exit 0" "$? $(cut -f2 plan | tr '\n' ' ')" "0 todo todo todo "
"$bin" sweep dirs.sweep --db dirs.db -j 2 -q 2> err
tap_is "capture directories: exit 0" "$? $(cat err)" "0 "
for d in "$s8" "$wo/linux-6.1-qemu-2cpu-work" "$wo/linux-6.1-slab-2cpu-work"; do
	"$bin" replay "$d" --sample-every 2000ev --db rdirs.db -q 2> err || tap_diag "replay $d: $(cat err)"
done
tap_is "capture directories: 3 runs" "$(q dirs.db "SELECT count(*) FROM runs WHERE status = 'done'")" 3
tap_is "each run: allocator, kernel, CPUs, end and peak slab pages and trace of replay DIR" \
	"$(q dirs.db "$figs")" "$(q rdirs.db "$figs")"
tap_is "the values checked are the captures' (8 and 2 CPUs, SLAB for the SLAB capture)" \
	"$(q dirs.db "SELECT group_concat(allocator || ' ' || kernel || ' ' || nr_cpus, ', ') FROM (SELECT * FROM runs ORDER BY trace_label)")" \
	"slub 6.1 2, slub 6.1 8, slab 6.1 2"
tap_is "config_json: replay DIR's (start state included) plus where auto came from" \
	"$(q dirs.db "SELECT trace_label || ' ' || json_remove(config_json, '\$.kernel_from', '\$.nr_cpus_from') FROM runs ORDER BY trace_label")" \
	"$(q rdirs.db "SELECT trace_label || ' ' || json(config_json) FROM runs ORDER BY trace_label")"
tap_is "the start-state capture's run starts from its state" \
	"$(q dirs.db "SELECT json_extract(config_json, '\$.start_state') || ' ' || json_extract(config_json, '\$.kernel_from') FROM runs WHERE trace_label = 'linux-6.1-qemu-2cpu-work'")" \
	"capture the capture's uname.txt"
# every row the run recorded, not only its headline figures
for t in counts caches samples sample_caches; do
	a=$(q rdirs.db "SELECT t.* FROM $t t JOIN runs r USING (run_id) WHERE r.trace_label = 'linux-6.1-qemu-2cpu-work'" |
		cut -d'|' -f2- | sort | cksum)
	b=$(q dirs.db "SELECT t.* FROM $t t JOIN runs r USING (run_id) WHERE r.trace_label = 'linux-6.1-qemu-2cpu-work'" |
		cut -d'|' -f2- | sort | cksum)
	tap_is "start-state capture: $t rows = replay DIR's" "$b" "$a"
done

# given axes are replay's options: both named, the key is replay's too
printf 'trace = %s\nkernel = 6.1\nnr_cpus = 4\nallocator = slab\n' "$s8" > given.sweep
"$bin" sweep given.sweep --db given.db -j 1 -q 2> err
tap_is "capture with given axes: exit 0" "$? $(cat err)" "0 "
"$bin" replay "$s8" --kernel 6.1 --nr-cpus 4 --allocator slab --db rgiven.db -q 2> err
tap_is "capture with given axes: replay DIR --kernel --nr-cpus --allocator's key and figures" \
	"$(q given.db "SELECT config_hash, allocator, nr_cpus, final_slab_pages, peak_slab_pages FROM runs")" \
	"$(q rgiven.db "SELECT config_hash, allocator, nr_cpus, final_slab_pages, peak_slab_pages FROM runs")"

# ---- --dry-run checks every input it names ----
printf 'hello\nworld\n' > junk.txt
mkdir notacapture
printf '# tracer: nop\n#\n          <idle>-0       [000] d.h1.   100.000000: sched_switch: prev_comm=a\n' > noslab.trace
dry() { # dry SPEC-TEXT: exit status, then stderr
	printf '%b' "$1" > in.sweep
	"$bin" sweep in.sweep --db in.db --dry-run > plan 2> err
	echo "$?"
	cat err
}
tap_like "dry-run: a missing trace, exit 3" "$(dry 'trace = nosuch.trace\n')" \
	"3
slabsim: in.sweep:1: expected a readable trace, got nosuch.trace: No such file or directory"
tap_like "dry-run: a file that is no trace, exit 2" "$(dry "trace = $s8/trace.txt.zst\ntrace = junk.txt\n")" \
	"2
slabsim: in.sweep:2: expected a readable trace, got junk.txt: not a kernel trace"
tap_is "dry-run: the bad trace's run is listed as an error, the other planned" \
	"$(cut -f2,3 plan)" "todo	$s8/trace.txt.zst
error	junk.txt"
tap_like "dry-run: a trace without slab events, exit 5" "$(dry 'trace = noslab.trace\nkernel = 6.1\nnr_cpus = 2\n')" \
	"5
slabsim: in.sweep:1: expected a readable trace, got noslab.trace: no slab event"
tap_like "dry-run: a directory that is no capture, exit 3" "$(dry 'trace = notacapture\n')" \
	"3
slabsim: in.sweep:1: expected a trace file or a capture directory (docs/capture-format.md), got notacapture: capture directory without trace.txt.zst or trace.txt"
tap_like "dry-run: a missing sites file names the spec line, exit 3" \
	"$(dry "trace = $s8\nalign = own-caches\nalign-sites = nosuch.sites\n")" \
	"3
slabsim: in.sweep:3: expected a readable sites file, got nosuch.sites: No such file or directory"
tap_is "dry-run: nothing recorded" "$(q in.db 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)" 0
# and the real sweep: the readable trace's run is recorded, exit 2
printf 'trace = junk.txt\ntrace = %s/trace.txt.zst\n' "$s8" > two.sweep
"$bin" sweep two.sweep --db two.db -j 1 -q 2> err
tap_is "a sweep with a bad trace: exit 2, the other trace's run recorded" \
	"$? $(q two.db "SELECT count(*) || ' ' || kernel || ' ' || nr_cpus FROM runs")" "2 1 6.1 8"

# ---- a trace.dat short of its own per-CPU statistics: warned of, as replay does ----
printf 'trace = %s/tests/bad/data/tracedat-4-bytes-corrupt.dat\n' "$src" > short.sweep
"$bin" sweep short.sweep --db short.db -j 1 -q 2> err
tap_is "a trace.dat with corrupt data: its run is recorded (exit 0)" \
	"$? $(q short.db "SELECT count(*) FROM runs WHERE status = 'done'")" "0 1"
tap_like "the sweep warns of the events its statistics count and the file lost" "$(cat err)" \
	"tracedat-4-bytes-corrupt.dat: trace.dat's per-CPU statistics count 4998 events read from the ring buffer (read events), the file gave 629: 4369 missing (corrupt or cut data), counted as lost events"
tap_done
