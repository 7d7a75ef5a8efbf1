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
# case below does not arise). TAP output.  $1 slabsim binary
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
tap_done
