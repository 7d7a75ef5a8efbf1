#!/bin/sh
# validate_tiny.sh - issue 26: a SLUB_TINY capture (meminfo only: no
# slabinfo, no /sys/kernel/slab) started from the slabs its trace's raw
# addresses show, and SLUB_TINY's allocation without CPU slabs, on a
# hand-made 6.12 capture worked out by hand below. TAP output.
#   $1 slabsim binary
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1")
tap_scratch

# ---------------------------------------------------------------------------
# Kernel 6.12 with SLUB_TINY, 1 CPU. test_cache: 480-byte objects in
# 512-byte slots, order 0 (calculate_order: min_objects 4 * (fls(1) + 1) = 8,
# get_order(8 * 512) = 0, no waste), 8 objects a slab; MIN_PARTIAL is 0
# under SLUB_TINY (6.12 mm/slub.c), so an emptied slab is always freed.
# Its allocations name no cache (6.12 kmem_cache_alloc prints no name=), its
# frees do: the walk learns the name as the name pass does.
#
# Start (meminfo-start.txt): Slab: 400 kB = 100 pages, of which the trace
# shows, at its raw addresses:
#   A (ffff888005000000): first event an allocation at slot 6 (a new slab's
#     first object is slot 0: SLUB_TINY has no SLAB_FREELIST_RANDOM), so A
#     existed; slots 6 and 7 first allocated (free at the start), slots 0-5
#     never touched before their frees: 6 live -> node partial, 2 free;
#   C1..C5 (ffff888005010000 + i pages): first event a free of slot 0 (a
#     start object); no slot allocated: 8 live each -> full.
# 6 slabs, 6 pages, 46 objects, 1 partial; 94 pages stay untracked.
# Trace: 2 allocations (A's free slots: 6.12 TINY __slab_alloc_node takes
#   the first partial slab, get_partial_node) -> SNAP 1: 94 + 6 = 100
#   (real 400 kB = 100); then slot 0 of each C freed (each to the partial
#   list, __slab_free), then A's 8 objects: A empty, freed (MIN_PARTIAL 0)
#   -> SNAP 2: 94 + 5 = 99 (real 396 kB = 99); end meminfo.txt 396 kB.
# Before (model started empty, CPU slabs under SLUB_TINY): the 2 allocations
#   took a new slab, kept as the CPU slab when emptied, and the 13 frees of
#   start objects were unknown: 101 and 101, pages_mae_over_swing 1.5.
# ---------------------------------------------------------------------------
mkdir -p tiny/snapshots
echo "Linux (none) 6.12.118-tiny #1 SMP x86_64 GNU/Linux" >tiny/uname.txt
printf 'nproc=1\nonline=1\npossible=1\n' >tiny/ncpus.txt
printf 'tool=qemu-boot\nallocator=slub\n' >tiny/capture-info.txt
echo "Slab:             400 kB" >tiny/meminfo-start.txt
echo "Slab:             400 kB" >tiny/snapshots/1.meminfo
echo "Slab:             396 kB" >tiny/snapshots/2.meminfo
echo "Slab:             396 kB" >tiny/meminfo.txt
{
	n=0
	ev() {
		n=$((n + 1))
		printf '            sh-100     [000] .....  5.%06d: %s\n' "$n" "$1"
	}
	echo "# tracer: nop"
	for a in ffff888005000c00 ffff888005000e00; do
		ev "kmem_cache_alloc: call_site=f+0x1/0x2 ptr=$a bytes_req=480 bytes_alloc=512 gfp_flags=GFP_KERNEL node=-1 accounted=false"
	done
	ev "tracing_mark_write: SNAP 1"
	for c in 0 1 2 3 4; do
		ev "kmem_cache_free: call_site=g+0x1/0x2 ptr=ffff88800501${c}000 name=test_cache"
	done
	for o in 000 200 400 600 800 a00 c00 e00; do
		ev "kmem_cache_free: call_site=g+0x1/0x2 ptr=ffff888005000$o name=test_cache"
	done
	ev "tracing_mark_write: SNAP 2"
} >tiny/trace.txt
"$bin" validate tiny --config SLUB_TINY=y --no-db --no-progress --format json >t.json 2>t.err
tap_is "hand SLUB_TINY: validate succeeds" "$?" 0
tap_like "hand SLUB_TINY: the start slabs the trace's addresses show" "$(cat t.err)" \
	"capture: of them from the trace's addresses (SLUB_TINY: slabs the trace shows held before it): 6 slabs, 6 pages, 46 objects, 1 partial"
snaps=$(grep -o '"real_pages": [0-9]*, "predicted_pages": [0-9]*' t.json | grep -o '[0-9][0-9]*' |
	tr '\n' ' ')
tap_is "hand SLUB_TINY: real and predicted pages at SNAP 1, 2" "$snaps" "100 100 99 99 "
j=$(cat t.json)
tap_like "hand SLUB_TINY: end state, meminfo-start.txt's pages as the start" "$j" \
	'"start_pages": 100, "real": {"pages": 99}, "predicted": {"pages": 99}'
tap_like "hand SLUB_TINY: no error" "$j" '"pages_mae_over_swing": 0.000000'

# Without SLUB_TINY (the same capture as SLUB): no walk, CPU slabs: the two
# allocations take a new slab (101), and emptied it stays the CPU slab (101).
"$bin" validate tiny --config SLUB_TINY=n --no-db --no-progress --format json >s.json 2>s.err
tap_is "same capture as SLUB: validate succeeds" "$?" 0
snaps=$(grep -o '"real_pages": [0-9]*, "predicted_pages": [0-9]*' s.json | grep -o '[0-9][0-9]*' |
	tr '\n' ' ')
tap_is "same capture as SLUB: 101 and 101 (a CPU slab kept empty)" "$snaps" "100 101 99 101 "
tap_done
