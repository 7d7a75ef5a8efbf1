#!/bin/sh
# defaults.sh - right numbers by default: the kernel profile and the CPU
# count come from the trace when no option gives them (sim/run/run.c,
# run_detect), stdin gets the same name pass as a file, and options the
# trace contradicts are warned of. TAP output.
#   $1 slabsim binary, $2 traces/samples, $3 tests/cli/data
set -u
bin=$1 samples=$2 data=$3
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$bin")
samples=$(abs_path "$samples")
data=$(abs_path "$data")
tap_scratch

# json ARGS...: the replay's JSON without the members that name the input or
# say where the model came from (they differ between the two sides by design)
json() {
	"$bin" replay "$@" --no-db --no-progress --format json 2>/dev/null |
		grep -v '"trace":\|"config_from":'
}

# ---- without --kernel/--nr-cpus, the same JSON as with the right flags -----
# The right flags of each capture come from its own metadata, read here with
# sed: uname.txt's release (6.1.x: profile 6.1), ncpus.txt's possible CPUs.
for c in linux-6.1-qemu-2cpu linux-6.1-qemu-2cpu-fzpu linux-6.1-qemu-8cpu; do
	dir=$samples/$c
	rel=$(cut -d' ' -f3 "$dir/uname.txt" 2>/dev/null || cat "$dir/uname.txt")
	kv=$(echo "$rel" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
	ncpu=$(sed -n 's/^possible=//p' "$dir/ncpus.txt")
	dbg=-
	case $c in *fzpu) dbg=FZPU ;; esac
	json "$dir/trace.txt.zst" --slub-debug $dbg > auto.json
	json "$dir/trace.txt.zst" --slub-debug $dbg --kernel "$kv" --nr-cpus "$ncpu" > flags.json
	if [ -s auto.json ] && cmp -s auto.json flags.json; then
		tap_ok "$c: defaults from the trace = --kernel $kv --nr-cpus $ncpu"
	else
		tap_not_ok "$c: defaults from the trace = --kernel $kv --nr-cpus $ncpu" \
			"$(diff auto.json flags.json | head -n 10)"
	fi
	tap_like "$c: said where the model came from" \
		"$("$bin" replay "$dir/trace.txt.zst" --no-db --format json | grep '"config_from"')" \
		"\"kernel\": \"the trace (accounted= fields: Linux 5.19+)\", \"nr_cpus\": \"the trace's header\""
done
boot=$samples/linux-6.1-boot-excerpt.trace
json "$boot" > auto.json
json "$boot" --kernel 6.1 --nr-cpus 2 > flags.json
tap_is "boot excerpt: defaults = --kernel 6.1 --nr-cpus 2 (its header says #P:2)" \
	"$(cmp -s auto.json flags.json && echo same)" "same"
# a 6.18 trace.dat: its kmem_cache_alloc events print name= (6.18 only)
for d in linux-6.18-kmem.dat linux-6.18-kmem-lost.dat; do
	n=$(trace-cmd report -i "$samples/$d" 2>/dev/null | sed -n 's/^cpus=//p' | head -n 1)
	[ -n "$n" ] || n=$("$bin" replay "$samples/$d" --no-db --format json | sed -n 's/.*"nr_cpus": \([0-9]*\).*/\1/p' | head -n 1)
	json "$samples/$d" > auto.json
	json "$samples/$d" --kernel 6.18 --nr-cpus "$n" > flags.json
	tap_is "$d: defaults = --kernel 6.18 --nr-cpus $n (trace.dat's cpus)" \
		"$(cmp -s auto.json flags.json && echo same)" "same"
done
# a 5.x-style trace (no accounted= field): the 5.4 profile; its highest CPU
# is 0 and it has no #P header: 1 CPU
tap_is "slob-a (no accounted=, all on CPU 0): the awk count of accounted= and CPUs" \
	"$(grep -c 'accounted=' "$data/slob-a.trace") $(awk '$0 !~ /^#/ && match($0, /\[[0-9]+\]/) { c = substr($0, RSTART + 1, RLENGTH - 2) + 0; if (c > m) m = c } END { print m + 1 }' "$data/slob-a.trace")" "0 1"
tap_like "slob-a: profile 5.4, 1 CPU" \
	"$("$bin" replay "$data/slob-a.trace" --no-db | sed -n 2,3p | tr '\n' ' ')" \
	"kernel 5.4, align natural, slub_debug -, nr_cpus 1 kernel from the trace (no accounted= field: before 5.19); nr_cpus from the trace (1 + its highest CPU)"

# ---- stdin gives the same JSON as the file -----------------------------------
for t in "$boot" "$samples"/linux-6.1-qemu-*/trace.txt.zst "$samples"/*.dat "$samples"/*.dat.xz; do
	b=$(basename "$(dirname "$t")")/$(basename "$t")
	json "$t" > file.json
	json - < "$t" > stdin.json
	if [ -s file.json ] && cmp -s file.json stdin.json; then
		tap_ok "$b: stdin = file (the name pass keeps what it parsed)"
	else
		tap_not_ok "$b: stdin = file" "$(diff file.json stdin.json | head -n 10)"
	fi
done
zstd -dc "$samples/linux-6.1-qemu-2cpu/trace.txt.zst" | json - > pipe.json
json "$samples/linux-6.1-qemu-2cpu/trace.txt.zst" > file.json
tap_is "a decompressed pipe = the compressed file" "$(cmp -s pipe.json file.json && echo same)" "same"

# ---- options the trace contradicts are warned of -----------------------------
t8=$samples/linux-6.1-qemu-8cpu/trace.txt.zst
folded=$(zstd -dc "$t8" | awk '$0 !~ /^#/ && match($0, /\[[0-9]+\]/) {
	cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0
	if (cpu >= 2 && $0 ~ / (kmalloc|kmem_cache_alloc|kfree|kmem_cache_free): /) n++
} END { print n + 0 }')
"$bin" replay "$t8" --no-db --nr-cpus 2 > /dev/null 2> err
tap_is "--nr-cpus 2 on the 8-CPU trace: the folding is warned of ($folded events, awk)" \
	"$(cat err)" \
	"slabsim: warning: $folded events ran on CPUs at or above nr_cpus 2 (from --nr-cpus) and were folded"
# the FZPU capture with its own slub_debug but the 5.4 profile: 6.1's debug
# layout differs from 5.4's, so bytes_alloc differs (the issue's example)
"$bin" replay "$samples/linux-6.1-qemu-2cpu-fzpu/trace.txt.zst" --no-db --kernel 5.4 --slub-debug FZPU > out 2> err
n=$(sed -n 's/.*differs on \([0-9]*\) allocations.*/\1/p' out)
tap_is "--kernel 5.4 on a 6.1 FZPU trace: warned of, with the summary's count ($n)" "$(cat err)" \
	"slabsim: warning: --kernel 5.4 contradicts the trace, whose event format is 6.1's (the trace (accounted= fields: Linux 5.19+)); the model's bytes_alloc differs from the trace's on $n allocations"
"$bin" replay "$samples/linux-6.1-qemu-2cpu/trace.txt.zst" --no-db --kernel 5.4 > out 2> err
tap_is "--kernel 5.4 on a 6.1 trace whose slot sizes agree: no warning" \
	"$(cat err) $(grep -c 'differs on 0 allocations' out)" " 1"
"$bin" replay "$samples/linux-6.1-qemu-2cpu/trace.txt.zst" --no-db --allocator slob --align none > /dev/null 2> err
tap_is "a what-if model (SLOB, no alignment): no warning" "$(cat err)" ""
tap_done
