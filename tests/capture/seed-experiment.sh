#!/bin/sh
# seed-experiment.sh - traces/capture/seed-experiment without a kernel build
# or a boot: an experiment directory of finished fake captures (which the
# script keeps), so only its tables run, and their figures are worked out by
# hand below. TAP output.
#   $1 traces/capture, $2 slabsim binary
set -u
. "$(dirname "$0")/../cli/tap.sh"
cap=$(abs_path "$1")
bin=$(abs_path "$2")
tap_scratch
exp=$tmp/exp

# meminfo FILE KB
meminfo() { printf 'MemTotal:         800000 kB\nSlab:           %8s kB\n' "$2" >"$1"; }
# fake_capture DIR: the files that make a capture complete, for a 6.1 SLOB
# kernel with 2 CPUs
fake_capture() {
	mkdir -p "$1/snapshots"
	echo "tool=qemu-boot" >"$1/capture-info.txt"
	echo "Linux (none) 6.1.192-slabsim-slob #1 SMP x86_64 GNU/Linux" >"$1/uname.txt"
	printf "nproc=2\nonline=2\npossible=2\n" >"$1/ncpus.txt"
	echo "console=ttyS0" >"$1/cmdline.txt"
}
# The boot trace of both kernels, replayed under SLOB (6.1 rules):
#   224 kmalloc(64) from __rb_allocate_pages (the second CPU's ring buffer)
#   and 16 kmalloc(512) from elsewhere, then SNAP 00-boot; the 16 kfree'd,
#   then SNAP 07-drop-caches.
# kmalloc(64): a 72-byte block (8-byte header) on a small-list page. With
#   --align none blocks are packed: 56 per page (56 x 72 = 4032), 224 take 4
#   pages. With natural the object is 64-aligned: a block at 64k + 56,
#   128 bytes apart (the 56-byte heads stay free and unusable): 32 per page,
#   224 take 7 pages. The ring buffer costs 3 pages, 12 kB.
# kmalloc(512): a 520-byte block on a medium-list page. none: 7 per page
#   (7 x 520 = 3640), 16 take 3 pages; natural: 512-aligned objects 1024
#   bytes apart, 4 per page, 16 take 4 pages. Cost 1 page, 4 kB.
# At 00-boot: natural 11 pages, none 7; without the ring buffer 4 and 3.
# At 07 (the 512s freed: their pages go back): natural 7, none 4.
mk_trace() {
	awk 'BEGIN {
		print "# tracer: nop"
		t = 1.0; p = 0
		for (i = 0; i < 224; i++) {
			printf "            init-1       [000] .....     %.6f: kmalloc: call_site=__rb_allocate_pages+0x79/0x180 ptr=ffff888001%06x bytes_req=64 bytes_alloc=72 gfp_flags=GFP_KERNEL node=-1 accounted=false\n", t, p
			t += 0.000001; p += 128
		}
		for (i = 0; i < 16; i++) {
			printf "            init-1       [000] .....     %.6f: kmalloc: call_site=kobject_get_path+0x40/0x90 ptr=ffff888002%06x bytes_req=512 bytes_alloc=520 gfp_flags=GFP_KERNEL node=-1 accounted=false\n", t, i * 1024
			t += 0.000001
		}
		printf "            init-1       [000] .....     %.6f: tracing_mark_write: SNAP 00-boot\n", t
		for (i = 0; i < 16; i++) {
			t += 0.000001
			printf "            init-1       [000] .....     %.6f: kfree: call_site=kobject_put+0x10/0x20 ptr=ffff888002%06x\n", t, i * 1024
		}
		printf "            init-1       [000] .....     %.6f: tracing_mark_write: SNAP 07-drop-caches\n", t + 0.000001
	}' | zstd -q -c
}
# Real figures (Slab: kB), one run each:
#   work: start 1000 / 990 (untraced cost +10); boot: 00-boot 1500 / 1400
#   (+100), 07 1600 / 1480 (the workload +100 / +80: +20).
for k in stock reverted; do
	fake_capture "$exp/$k-work-1"
	fake_capture "$exp/$k-boot-1"
	mk_trace >"$exp/$k-boot-1/trace.txt.zst"
	echo "fake $k" >"$tmp/bz-$k"
done
meminfo "$exp/stock-work-1/meminfo-start.txt" 1000
meminfo "$exp/reverted-work-1/meminfo-start.txt" 990
for k in stock reverted; do
	for m in work boot; do
		meminfo "$exp/$k-$m-1/meminfo.txt" 2000
		meminfo "$exp/$k-$m-1/snapshots/00-boot.meminfo" 1200
		meminfo "$exp/$k-$m-1/snapshots/07-drop-caches.meminfo" 1300
	done
done
meminfo "$exp/stock-boot-1/snapshots/00-boot.meminfo" 1500
meminfo "$exp/reverted-boot-1/snapshots/00-boot.meminfo" 1400
meminfo "$exp/stock-boot-1/snapshots/07-drop-caches.meminfo" 1600
meminfo "$exp/reverted-boot-1/snapshots/07-drop-caches.meminfo" 1480

bash "$cap/seed-experiment" -a slob -o "$exp" -n 1 -c 2 -k "$tmp/bz-stock" -K "$tmp/bz-reverted" \
	-s "$bin" >"$tmp/out" 2>"$tmp/err"
tap_is "runs on finished captures without a boot" "$?" 0
tab=$(cat "$exp/table.md")
tap_like "real cost: the untraced start" "$tab" "| work | Slab: start, untraced | 1000 ± 0 | 990 ± 0 | +10 ± 0 |"
# every trace, natural and none, full and without __rb_allocate_pages
tap_is "predictions: 2 traces x 2 alignments x 2 variants" \
	"$(awk 'NR > 1' "$exp/predictions.tsv" | wc -l | tr -d ' ')" 8
tap_is "prediction rows: stock, full trace, natural: 11 pages at 00-boot, 7 at 07, 224 ring-buffer kzallocs" \
	"$(awk -F'\t' '$1 == "stock" && $3 == "full" && $4 == "natural" { print $5, $6, $7 }' "$exp/predictions.tsv")" \
	"11 7 224"
tap_is "prediction rows: without the ring buffer, none: 3 pages at 00-boot, 0 at 07" \
	"$(awk -F'\t' '$1 == "reverted" && $3 == "without-rb" && $4 == "none" { print $5, $6 }' "$exp/predictions.tsv")" \
	"3 0"
# untraced: (4 - 3) pages = +4 kB, error 4 - 10 = -6
tap_like "untraced boot: real +10, predicted +4" "$tab" \
	"| end of an untraced boot (real: workload-only run, start; predicted: 00-boot without the ring buffer) | +10 ± 0 | +4 ± 0 | -6 |"
# boot-traced: 4 + 12 x 2/(2-1) = 28 kB against +100
tap_like "boot-traced: the boot CPU's buffer added" "$tab" \
	"| end of a boot-traced boot, 00-boot (the ring buffer of every CPU) | +100 ± 0 | +28 ± 0 | -72 |"
# workload: cost at 07 (7 - 4 pages, 12 kB) - cost at 00-boot (16 kB) = -4
tap_like "the workload: real +20, predicted -4" "$tab" \
	"| the workload, 07-drop-caches − 00-boot (boot-traced runs) | +20 ± 0 | -4 ± 0 | -24 |"
# per allocation: 12 kB / 224 = 54.9 bytes predicted; real (100 - 10) kB over
# 448 allocations = 205.7 bytes
tap_like "one ring-buffer allocation" "$tab" \
	"inside each trace: 224; the cost of each, predicted: +55 ± 0 bytes; real: 206 bytes"
tap_done
