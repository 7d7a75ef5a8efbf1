#!/bin/sh
# sample.sh - a bundled qemu-boot capture is complete and readable: every file
# of docs/capture-format.md, no lost events (per-CPU stats and the trace
# header), one snapshot file per "SNAP ID" marker in the same order, and
# `slabsim replay` reads its trace with no malformed line and the same event
# counts as awk finds. TAP output.
#   $1 slabsim binary, $2 the capture directory
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") cap=$(abs_path "$2")
tap_scratch

for f in trace.txt.zst slabinfo.txt slab-attrs.tsv uname.txt cmdline.txt ncpus.txt meminfo.txt lost-events.txt; do
	if [ -s "$cap/$f" ]; then tap_ok "$f present"; else tap_not_ok "$f present"; fi
done
zstd -dc "$cap/trace.txt.zst" >trace.txt || tap_not_ok "trace.txt.zst decompresses"

tap_is "no lost events in lost-events.txt" \
	"$(awk '/ (overrun|commit overrun|dropped events): / {n += $NF; k++} END {print (k > 0), n + 0}' "$cap/lost-events.txt")" "1 0"
tap_is "trace header: entries in buffer = entries written" \
	"$(awk '/entries-in-buffer\/entries-written:/ {split($3, a, "/"); print (a[1] == a[2] && a[1] > 0)}' trace.txt)" "1"
ncpu=$(sed -n 's/^possible=//p' "$cap/ncpus.txt")
tap_is "the trace header's #P is ncpus.txt's possible" \
	"$(sed -n 's/.*#P:\([0-9]*\).*/\1/p' trace.txt)" "$ncpu"

markers=$(awk '$5 == "tracing_mark_write:" && $6 == "SNAP" {printf "%s ", $7}' trace.txt)
files=$(cd "$cap/snapshots" && ls | sed -n 's/\.slabinfo$//p' | tr '\n' ' ')
tap_is "one snapshots/ID.slabinfo per SNAP ID marker, in order" "$markers" "$files"
tap_is "the snapshots are /proc/slabinfo" \
	"$(head -q -n 1 "$cap"/snapshots/*.slabinfo "$cap/slabinfo.txt" | sort -u)" "slabinfo - version: 2.1"
tap_is "slab-attrs.tsv: one row per cache of slabinfo.txt or more, 28 fields each" \
	"$(awk -F'\t' 'FNR == NR {split($0, a, " "); if (FNR > 2) want[a[1]] = 1; next}
	               {nf[NF]++; have[$1] = 1}
	               END {for (c in want) if (!(c in have)) miss++; for (n in nf) printf "%s ", n; print miss + 0}' \
		"$cap/slabinfo.txt" "$cap/slab-attrs.tsv")" "28 0"

# Event counts by awk, then by the replay (name pass, the whole trace).
want=$(awk '$1 != "#" {n[$5]++} END {printf "%d %d %d %d %d", n["kmalloc:"], n["kmem_cache_alloc:"], n["kfree:"], n["kmem_cache_free:"], n["tracing_mark_write:"]}' trace.txt)
"$bin" replay "$cap/trace.txt.zst" --kernel 6.1 --nr-cpus "$ncpu" --format json --no-db >out.json 2>err
tap_is "replay of the capture: exit 0, nothing on stderr" "$? $(cat err)" "0 "
ev=$(grep '"events":' out.json)
li=$(grep '"lines":' out.json)
tap_is "replay counts the events awk counts" \
	"$(json_num "$ev" kmalloc) $(json_num "$ev" kmem_cache_alloc) $(json_num "$ev" kfree) $(json_num "$ev" kmem_cache_free) $(json_num "$ev" tracing_mark_write)" \
	"$want"
tap_is "replay: no malformed line, no other event, no lost events" \
	"$(json_num "$li" malformed) $(json_num "$li" other_events) $(json_num "$li" lost_events)" "0 0 0"
tap_is "replay: every line is a header or an event" "$(json_num "$li" total)" "$(wc -l <trace.txt | tr -d ' ')"

tap_done
