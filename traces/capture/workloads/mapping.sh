#!/bin/sh
# mapping.sh: fork/exec and mmap/munmap heavy, 15 to 25 seconds: five
# times, two rounds of 1,500 anonymous mappings made and unmapped
# (vm_area_struct, anon_vma, maple_node), then 60 fork+exec of /bin/true,
# then a pause, so that snapshots (record --snapshot-every 3) see both.
# (Three times as many took 43 s on a loaded 2-CPU machine and overran a
# 64 MiB per-CPU ring buffer.)
#   traces/capture/record -o DIR -b 65536 --snapshot-every 3 -- sh traces/capture/workloads/mapping.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/wl-lib.sh"
r=0
while [ "$r" -lt 5 ]; do
	wl_maps 2 1500
	wl_forks 60
	sleep 1
	r=$((r + 1))
done
wl_log done
