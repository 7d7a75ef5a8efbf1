#!/bin/sh
# mapping.sh: fork/exec and mmap/munmap heavy, about 16 seconds: rounds of
# 3,000 anonymous mappings made and unmapped (vm_area_struct, anon_vma,
# maple_node) alternating with rounds of 100 fork+exec of /bin/true, with
# pauses so that snapshots (record --snapshot-every 3) see both.
#   traces/capture/record -o DIR -b 65536 --snapshot-every 3 -- sh traces/capture/workloads/mapping.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/wl-lib.sh"
r=0
while [ "$r" -lt 4 ]; do
	wl_maps 3 3000
	wl_forks 100
	sleep 2
	r=$((r + 1))
done
wl_log done
