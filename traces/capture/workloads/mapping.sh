#!/bin/sh
# mapping.sh: fork/exec and mmap/munmap heavy, about 20 seconds: twice,
# 1,500 private anonymous mappings made and unmapped (churn), then 12,000
# held 3 seconds (vm_area_struct, maple_node, anon_vma, anon_vma_chain: about
# a thousand slab pages up and down again), then 60 fork+exec of /bin/true
# and a pause, so that snapshots (record --snapshot-every 3) fall on both
# levels. (A first version without the held mappings moved slab memory by
# 300 pages only, too little to judge a model by.)
#   traces/capture/record -o DIR -b 65536 --snapshot-every 3 -- sh traces/capture/workloads/mapping.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/wl-lib.sh"
r=0
while [ "$r" -lt 2 ]; do
	wl_maps 1 1500
	wl_maps_hold 12000 3
	wl_forks 60
	sleep 1
	r=$((r + 1))
done
wl_log done
