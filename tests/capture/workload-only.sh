#!/bin/sh
# workload-only.sh - a bundled workload-only capture (traces/samples/
# workload-only/: qemu-boot -w of a SLAB, SLOB or SLUB kernel): its files
# are there, it lost no event, every SNAP marker has its meminfo snapshot
# (SLOB's only ground truth, Slab:), and `slabsim replay CAPTURE_DIR` counts
# the events awk counts. TAP output.
#   $1 slabsim binary, $2 the capture directory
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") cap=$(abs_path "$2")
tap_scratch

alloc=$(sed -n 's/^allocator=//p' "$cap/capture-info.txt")
tap_is "capture-info: workload-only, start state after arming" \
	"$(sed -n 's/^mode=//p; s/^start_snapshot=//p' "$cap/capture-info.txt" | tr '\n' ' ')" "workload after-arming "
for f in trace.txt.zst uname.txt cmdline.txt ncpus.txt meminfo-start.txt meminfo.txt lost-events.txt; do
	if [ -s "$cap/$f" ]; then tap_ok "$f present"; else tap_not_ok "$f present"; fi
done
# /proc/slabinfo exists under SLAB and SLUB, not SLOB; /sys/kernel/slab only under SLUB
case $alloc in
slob) want="no no" ;;
slab) want="yes no" ;;
*) want="yes yes" ;;
esac
tap_is "$alloc: slabinfo-start.txt, slab-attrs-start.tsv as the allocator has them" \
	"$([ -s "$cap/slabinfo-start.txt" ] && echo yes || echo no) $([ -s "$cap/slab-attrs-start.tsv" ] && echo yes || echo no)" "$want"
tap_is "Slab: in every meminfo file" \
	"$(grep -L '^Slab:' "$cap/meminfo-start.txt" "$cap/meminfo.txt" "$cap"/snapshots/*.meminfo | wc -l)" "0"
zstd -dc "$cap/trace.txt.zst" > trace.txt || tap_not_ok "trace.txt.zst decompresses"
tap_is "no lost events in lost-events.txt" \
	"$(awk '/ (overrun|commit overrun|dropped events): / {n += $NF; k++} END {print (k > 0), n + 0}' "$cap/lost-events.txt")" "1 0"
markers=$(awk '$5 == "tracing_mark_write:" && $6 == "SNAP" {printf "%s ", $7}' trace.txt)
files=$(cd "$cap/snapshots" && ls | sed -n 's/\.meminfo$//p' | tr '\n' ' ')
tap_is "one snapshots/ID.meminfo per SNAP ID marker, in order" "$markers" "$files"
want=$(awk '$1 != "#" {n[$5]++} END {printf "%d %d %d %d %d", n["kmalloc:"], n["kmem_cache_alloc:"], n["kfree:"], n["kmem_cache_free:"], n["tracing_mark_write:"]}' trace.txt)
"$bin" replay "$cap" --allocator "$alloc" --format json --no-db -q > /dev/null 2> err
"$bin" replay "$cap" --allocator "$alloc" --format json --no-db > out.json 2>/dev/null
tap_is "replay $alloc of the capture: exit 0" "$?" "0"
ev=$(grep '"events":' out.json)
tap_is "replay counts the events awk counts" \
	"$(json_num "$ev" kmalloc) $(json_num "$ev" kmem_cache_alloc) $(json_num "$ev" kfree) $(json_num "$ev" kmem_cache_free) $(json_num "$ev" tracing_mark_write)" \
	"$want"
tap_done
