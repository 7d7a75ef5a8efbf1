#!/bin/sh
# startmove.sh - issue 27: a start object moves to another start slab when
# its kernel slab shows a free slot the model's start slab does not have
# (policies/slub.c start_out, sim/replay.c start_move). A hand-made 6.18
# capture (1 CPU, raw pointers) of vm_area_struct, 21 objects to a slab,
# sheaves of 32: the start state has 3 slabs, 23 objects: one full (W,
# 21) and two partial (1 each). The trace:
#   - a free at K (kernel slab 0xffff888005000000) of an object it never
#     allocated: a start object, taken from the start slab with the most
#     left (W), which is bound to K; it is parked in the main sheaf;
#   - an allocation at K: the sheaf gives it back (W: 20 start objects
#     and this one, full);
#   - an allocation at K + 192: the sheaf refills (32 objects from the two
#     partial start slabs, 40 free), and gives one of a partial slab. K's
#     model slab W is full, but the kernel had a free slot in K: one of
#     W's start objects lies in another start slab. It moves to a free
#     slot of the start slab that still has one, and the new object takes
#     its slot in W: nothing put outside, 1 start object moved, 3 slabs,
#     24 objects live.
# Without the other start slabs' free slots (a start state of W alone),
# no start slab has room for it: the start state counted an object the
# kernel's slabs did not hold, and it is dropped from the live set (no
# free: its slot in W is the new object's). Nothing is put outside, 21
# live; the refill's 2 new slabs hold the 31 parked objects. TAP output.
# $1 slabsim binary
set -u
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1")
data=$(abs_path "$(dirname "$0")/data/capture-full-6.18")
tap_scratch
tmp=$PWD
# capture DIR SLABS OBJECTS PARTIAL OBJECTS_PARTIAL
capture() {
	mkdir -p "$1/snapshots"
	cp "$data/cmdline.txt" "$data/ncpus.txt" "$data/uname.txt" "$1/"
	{
		printf 'slabinfo - version: 2.1\n'
		printf '# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\n'
		printf 'vm_area_struct    %6d %6d    192   21    1 : tunables    0    0    0 : slabdata %6d %6d      0\n' \
			"$3" "$(($2 * 21))" "$2" "$2"
	} >"$1/slabinfo-start.txt"
	cp "$1/slabinfo-start.txt" "$1/slabinfo.txt"
	{
		head -1 "$data/slab-attrs-start.tsv"
		printf 'vm_area_struct\t-\t192\t192\t0\t21\t64\t0\t0\t0\t1\t%d N0=%d\t%d N0=%d\t%d N0=%d\t%d N0=%d\t0\t0\t0\t0\t0\t0\t1\t0\t5\t120\t-\t%d N0=%d\t0(0)\t100\t32\n' \
			"$3" "$3" "$(($2 * 21))" "$(($2 * 21))" "$2" "$2" "$4" "$4" "$5" "$5"
	} >"$1/slab-attrs-start.tsv"
	{
		printf '# tracer: nop\n#\n'
		printf '          sh-100     [000] .....  5.000100: kmem_cache_free: call_site=vm_area_free+0x10/0x40 ptr=ffff888005000000 name=vm_area_struct\n'
		for p in ffff888005000000 ffff8880050000c0; do
			printf '          sh-100     [000] .....  5.000101: kmem_cache_alloc: call_site=vm_area_alloc+0x10/0x40 ptr=%s name=vm_area_struct bytes_req=192 bytes_alloc=192 gfp_flags=GFP_KERNEL node=-1 accounted=false\n' "$p"
		done
	} >"$1/trace.txt"
}
row() { awk '$1 == "vm_area_struct" { print "live", $4, "slabs", $6 }'; }
# check CAP LABEL MOVED DROPPED LIVE: the placement line and its JSON (nothing
# put outside, MOVED start objects moved, DROPPED found not live) and the
# cache's live objects in 3 slabs
check() {
	out=$("$bin" replay "$1" --no-db 2>/dev/null)
	tap_is "$2: exit" "$?" 0
	tap_is "$2: placement" "$(printf '%s\n' "$out" | grep '^placement')" \
		"placement by address: 0 objects put outside their kernel slab's model slab, 0 traded places with one put outside before, $3 start objects moved to another start slab, $4 found not live (no start slab had room), 0 parked objects moved into a slab the trace showed"
	tap_is "$2: $5 live in 3 slabs" "$(printf '%s\n' "$out" | row)" "live $5 slabs 3"
	out=$("$bin" replay "$1" --no-db --format json 2>/dev/null)
	tap_is "$2: JSON" "$(printf '%s\n' "$out" | grep '"placement"')" \
		"  \"placement\": {\"outside\": 0, \"traded\": 0, \"start_moved\": $3, \"start_dropped\": $4, \"parked_rehomed\": 0},"
}
# a start object moved; 24 live in the 3 start slabs
capture "$tmp/three" 3 23 2 2
check "$tmp/three" "three start slabs" 1 0 24
# W alone: a start object dropped; W and the refill's 2 new slabs
capture "$tmp/one" 1 21 0 0
check "$tmp/one" "W alone" 0 1 21
tap_done
