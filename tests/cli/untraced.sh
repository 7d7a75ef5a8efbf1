#!/bin/sh
# untraced.sh - issue 26: allocations the trace does not show. A capture
# made here (kernel 6.1, SLUB, 2 CPUs, a start state from slabinfo-start.txt
# alone: full slabs, start objects taken at random) with three caches of
# 16 objects of 256 bytes in one-page slabs (min_partial 5, cpu_partial
# 13 objects: 2 slabs on a CPU's partial stack):
#   refree_obj: 12 full slabs (192 objects) at the start. The trace frees
#     one pointer 193 times on CPU 0 with no allocation between: the first
#     free is a start object (it may be one: nothing says otherwise), the
#     192 others each prove an untraced allocation, made in the model on
#     CPU 0 right before its free: it takes the slot the previous free left
#     on CPU 0's slab, and the free gives it back. Start objects left 191:
#     the start state is not drained, 12 slabs, 12 pages. (Before issue 26
#     the 193 frees took all 192 start objects and counted the last one
#     untraced: 0 live, the emptied slabs beyond min_partial freed, 9 pages.)
#     Then a traced allocation of that pointer and its free: a plain pair,
#     nothing inferred.
#   cover_obj: 1 full slab. 10 frees of distinct pointers never seen: all
#     covered by the start state (objects older than the trace), nothing
#     inferred: 6 start objects left, still 1 slab.
#   beyond_obj: 1 full slab. 17 frees of distinct pointers never seen: 16
#     take the start objects, the 17th is beyond the start state (an
#     untraced allocation counted, the model left as it is: such an object
#     may as well predate the trace): 1 inferred, none by a pointer freed
#     again. The emptied slab stays (held by CPU 0, or on the node with
#     fewer than min_partial partial slabs).
# The real end state (slabinfo.txt) is written as SLUB would show it: the
# free slots of slabs held by CPUs count as active.
# TAP output.  $1 slabsim binary
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1")
tap_scratch
mkdir cap || exit 1
echo "Linux test 6.1.0-57-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2025-08-01) x86_64 GNU/Linux" > cap/uname.txt
printf 'nproc=2\nonline=0-1\npossible=0-1\n' > cap/ncpus.txt
echo "console=ttyS0 no_hash_pointers" > cap/cmdline.txt
hdr='slabinfo - version: 2.1
# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>'
row() { printf '%-20s %6s %6s %6s %4s %4s : tunables 0 0 0 : slabdata %6s %6s 0\n' "$@"; }
{
	echo "$hdr"
	row beyond_obj 16 16 256 16 1 1 1
	row cover_obj 16 16 256 16 1 1 1
	row refree_obj 192 192 256 16 1 12 12
} > cap/slabinfo-start.txt
{
	echo "$hdr"
	row beyond_obj 16 16 256 16 1 1 1
	row cover_obj 16 16 256 16 1 1 1
	row refree_obj 192 192 256 16 1 12 12
} > cap/slabinfo.txt
# free N PTR CACHE CPU: a kmem_cache_free line at t = 5 s + N us
free() { printf '          sh-100     [%03d] .....  5.%06d: kmem_cache_free: call_site=put_obj+0x10/0x40 ptr=%s name=%s\n' "$4" "$1" "$2" "$3"; }
{
	echo "# tracer: nop"
	n=1
	while [ $n -le 193 ]; do
		free $n ffff888007000100 refree_obj 0
		n=$((n + 1))
	done
	printf '          sh-100     [000] .....  5.000200: kmem_cache_alloc: call_site=get_obj+0x10/0x40 ptr=ffff888007000100 bytes_req=256 bytes_alloc=256 gfp_flags=GFP_KERNEL node=-1 accounted=false\n'
	free 201 ffff888007000100 refree_obj 0
	i=0
	while [ $i -lt 10 ]; do
		free $((300 + i)) ffff88800800$(printf '%02x' $i)00 cover_obj 1
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 17 ]; do
		free $((400 + i)) ffff88800900$(printf '%02x' $i)00 beyond_obj 0
		i=$((i + 1))
	done
} > cap/trace.txt

"$bin" validate cap --no-db --no-progress --format json > v.json 2> v.err
tap_is "validate of the capture succeeds" "$?" 0
j=$(cat v.json)
tap_like "refree_obj: 192 inferred, 191 start objects live, 12 slabs of 12 pages" "$j" \
	'{"name": "refree_obj", "in_real": true, "in_model": true, "real": {"active_objs": 192, "total_objs": 192, "slabs": 12, "pages": 12}, "predicted": {"active_objs": 192, "total_objs": 192, "slabs": 12, "pages": 12, "live_objs": 191}, "untraced_allocations": 192, "untraced_refreed": 192, "start_objs_freed": 1}'
tap_like "cover_obj: the start state covers the 10 frees, nothing inferred" "$j" \
	'{"name": "cover_obj", "in_real": true, "in_model": true, "real": {"active_objs": 16, "total_objs": 16, "slabs": 1, "pages": 1}, "predicted": {"active_objs": 16, "total_objs": 16, "slabs": 1, "pages": 1, "live_objs": 6}, "untraced_allocations": 0, "untraced_refreed": 0, "start_objs_freed": 10}'
tap_like "beyond_obj: the 17th free is beyond the start state" "$j" \
	'{"name": "beyond_obj", "in_real": true, "in_model": true, "real": {"active_objs": 16, "total_objs": 16, "slabs": 1, "pages": 1}, "predicted": {"active_objs": 16, "total_objs": 16, "slabs": 1, "pages": 1, "live_objs": 0}, "untraced_allocations": 1, "untraced_refreed": 0, "start_objs_freed": 16}'
tap_like "end state: the totals" "$j" '"untraced_allocations": 193, "untraced_refreed": 192, "unattributed_frees": 0'

"$bin" validate cap --no-db --no-progress > v.txt 2> /dev/null
tap_like "validate table: the untraced line" "$(cat v.txt)" \
	"untraced allocations (frees of objects never allocated in the trace nor in the start state): 193 (192 pointers freed again with no allocation between); frees naming no cache: 0"

"$bin" replay cap --no-db --no-progress > r.txt 2> /dev/null
tap_is "replay succeeds" "$?" 0
tap_like "replay table: the untraced line" "$(cat r.txt)" \
	"untraced allocations inferred 193 (192 pointers freed again with no allocation between, 1 frees beyond the start state): refree_obj 192, beyond_obj 1"
"$bin" replay cap --no-db --no-progress --format json > r.json 2> /dev/null
tap_like "replay JSON: by evidence and cache" "$(cat r.json)" \
	'"untraced_allocations": {"inferred": 193, "refreed": 192, "beyond_start": 1, "caches": [{"name": "refree_obj", "inferred": 192, "refreed": 192, "start_objs_freed": 1}, {"name": "beyond_obj", "inferred": 1, "refreed": 0, "start_objs_freed": 16}]},'

# The trace replayed alone: no start state, and no cache of those names
# (frees create none): every free names an unknown cache, so none can be
# matched to an allocation, traced or inferred.
"$bin" replay cap/trace.txt --kernel 6.1 --no-db --no-progress --format json > a.json 2> /dev/null
tap_like "trace alone: nothing inferred" "$(cat a.json)" \
	'"untraced_allocations": {"inferred": 0, "refreed": 0, "beyond_start": 0, "caches": []},'
tap_done
