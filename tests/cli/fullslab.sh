#!/bin/sh
# fullslab.sh - issue 27: start-state objects proven freed by a kernel
# slab's size (replay.c infer_full_slab), and found parked at the start
# (start_unseen). A hand-made 6.18 capture (data/capture-full-6.18, 1 CPU,
# raw pointers): maple_node starts with one full slab of 16 start objects.
# A traced free at ptr K (kernel slab K = 0xffff888005000000) binds K to
# that start slab and frees a start object (parked in the main sheaf); an
# allocation at K takes it back (15 start objects and K's in the slab, 16).
# An allocation at K + 256, a pointer the model holds no object at, then
# proves that one of the 15 start objects was freed untraced: 16 known
# objects plus this one would not fit 16 slots. It is freed (at_full_slab
# 1) to its slab (freed long before, its sheaf cycled since); the
# allocation finds the main sheaf empty and refills it (32 objects: the
# freed slot and two new slabs, 3 pages); 16 live objects. With the third
# allocation in another kernel slab (K + 4096) nothing is proven: 17 live,
# 3 pages (the start slab is bound to K by the free, so the start_unseen
# case below does not arise); and the start_unseen case again once the
# trace showed K's page freed (a kernel slab made since). TAP output.
#   $1 slabsim binary
set -u
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1")
cap=$(abs_path "$(dirname "$0")/data/capture-full-6.18")
tap_scratch
tmp=$PWD
row() { grep -o '"name": "maple_node", "object_size".*"pages": [0-9]*'; }
pages() { row | grep -o '"pages": [0-9]*$'; }
live() { row | grep -o '"live_objects": [0-9]*'; }
inferred() { grep '"untraced_frees"' | grep -o "\"$1\": [0-9]*" | head -1; }
out=$("$bin" replay "$cap" --no-db --format json 2>/dev/null)
tap_is "exit" "$?" 0
tap_is "one start object freed at a full kernel slab" \
	"$(printf '%s\n' "$out" | inferred at_full_slab)" '"at_full_slab": 1'
tap_is "maple_node: 16 live" "$(printf '%s\n' "$out" | live)" '"live_objects": 16'
tap_is "maple_node: 3 pages (the refill)" "$(printf '%s\n' "$out" | pages)" '"pages": 3'
mkdir -p "$tmp/other/snapshots"
cp "$cap"/*.txt "$cap"/*.tsv "$tmp/other/"
sed '$ s/ptr=ffff888005000100/ptr=ffff888005001100/' "$cap/trace.txt" >"$tmp/other/trace.txt"
out=$("$bin" replay "$tmp/other" --no-db --format json 2>/dev/null)
tap_is "another kernel slab: nothing proven" \
	"$(printf '%s\n' "$out" | inferred at_full_slab)" '"at_full_slab": 0'
tap_is "another kernel slab: 17 live" "$(printf '%s\n' "$out" | live)" '"live_objects": 17'
tap_is "another kernel slab: 3 pages" "$(printf '%s\n' "$out" | pages)" '"pages": 3'
# The start state counts objects parked in sheaves as active
# (start_unseen): the same start, and one allocation at K + 256, a kernel
# slab no model slab is bound to, with no unbound slab with a free object
# in the model. The kernel had a free object in a slab it had not made:
# the start slab is bound to K and one of its start objects was parked
# (start_parked 1); the allocation takes it: 1 page, 16 live. Without that
# the sheaf would refill from two new slabs (3 pages).
mkdir -p "$tmp/parked/snapshots"
cp "$cap"/*.txt "$cap"/*.tsv "$tmp/parked/"
head -2 "$cap/trace.txt" >"$tmp/parked/trace.txt"
tail -1 "$cap/trace.txt" >>"$tmp/parked/trace.txt"
out=$("$bin" replay "$tmp/parked" --no-db --format json 2>/dev/null)
tap_is "a start object found parked" \
	"$(printf '%s\n' "$out" | inferred start_parked)" '"start_parked": 1'
tap_is "start object found parked: 16 live" "$(printf '%s\n' "$out" | live)" '"live_objects": 16'
tap_is "start object found parked: 1 page" "$(printf '%s\n' "$out" | pages)" '"pages": 1'
# The same, but the trace first shows K's page freed (after a first page
# free, three kmalloc frees, each followed by its page's free, fix the
# direct map's base): the
# kernel slab at K was made during the trace, so it is no slab of the start
# state (sim/pgfree.h pgf_made_since): nothing is found parked, the start
# slab stays for the kernel slab the trace never touches, and the sheaf
# refills from two new slabs: 3 pages, 17 live (the 16 start objects and K's).
mkdir -p "$tmp/fresh/snapshots"
cp "$cap"/*.txt "$cap"/*.tsv "$tmp/fresh/"
{
	head -2 "$cap/trace.txt"
	# page frees are followed from the first one on
	printf '          sh-100     [000] .....  4.000001: mm_page_free: page=ffffea0000000000 pfn=0x777 order=0\n'
	for i in 0 1 2; do
		t=$((10 + i * 3))
		printf '          sh-100     [000] .....  4.0000%s: kmalloc: call_site=do_work+0x10/0x100 ptr=ffff88800010%s000 bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false\n' "$t" "$i"
		printf '          sh-100     [000] .....  4.0000%s: kfree: call_site=do_work+0x20/0x100 ptr=ffff88800010%s000\n' "$((t + 1))" "$i"
		printf '          sh-100     [000] .....  4.0000%s: mm_page_free: page=ffffea0000000000 pfn=0x10%s order=0\n' "$((t + 2))" "$i"
	done
	printf '          sh-100     [000] .....  4.000030: mm_page_free: page=ffffea0000000000 pfn=0x5000 order=0\n'
	tail -1 "$cap/trace.txt"
} >"$tmp/fresh/trace.txt"
out=$("$bin" replay "$tmp/fresh" --no-db --format json 2>/dev/null)
tap_is "a kernel slab made during the trace: nothing found parked" \
	"$(printf '%s\n' "$out" | inferred start_parked)" '"start_parked": 0'
tap_is "a kernel slab made during the trace: 17 live" "$(printf '%s\n' "$out" | live)" '"live_objects": 17'
tap_is "a kernel slab made during the trace: 3 pages" "$(printf '%s\n' "$out" | pages)" '"pages": 3'
# The same with K's page given out (mm_page_alloc) instead of freed: made
# during the trace just as well (a page that was free at the start of the
# trace has no page free in it), the same figures.
mkdir -p "$tmp/given/snapshots"
cp "$cap"/*.txt "$cap"/*.tsv "$tmp/given/"
sed 's/mm_page_free: page=ffffea0000000000 pfn=0x5000 order=0/mm_page_alloc: page=ffffea0000000000 pfn=0x5000 order=0 migratetype=0 gfp_flags=GFP_KERNEL|__GFP_COMP/' \
	"$tmp/fresh/trace.txt" >"$tmp/given/trace.txt"
out=$("$bin" replay "$tmp/given" --no-db --format json 2>/dev/null)
tap_is "K's page given out: the events line counts it" \
	"$(printf '%s\n' "$out" | grep -o '"mm_page_alloc": [0-9]*')" '"mm_page_alloc": 1'
tap_is "a kernel slab on a page given out during the trace: nothing found parked" \
	"$(printf '%s\n' "$out" | inferred start_parked)" '"start_parked": 0'
tap_is "a kernel slab on a page given out during the trace: 17 live" \
	"$(printf '%s\n' "$out" | live)" '"live_objects": 17'
tap_is "a kernel slab on a page given out during the trace: 3 pages" \
	"$(printf '%s\n' "$out" | pages)" '"pages": 3'
# And another page given out (0x6000), not K's: with the page allocator's
# allocations in the trace, K is certainly a slab of the start state, and
# the start slab stands for it (found parked, 1 page, 16 live, as above).
sed 's/pfn=0x5000 order=0 migratetype/pfn=0x6000 order=0 migratetype/' \
	"$tmp/given/trace.txt" >"$tmp/given/t2" && mv "$tmp/given/t2" "$tmp/given/trace.txt"
out=$("$bin" replay "$tmp/given" --no-db --format json 2>/dev/null)
tap_is "another page given out: a start object found parked" \
	"$(printf '%s\n' "$out" | inferred start_parked)" '"start_parked": 1'
tap_is "another page given out: 16 live" "$(printf '%s\n' "$out" | live)" '"live_objects": 16'
tap_is "another page given out: 1 page" "$(printf '%s\n' "$out" | pages)" '"pages": 1'
tap_done
