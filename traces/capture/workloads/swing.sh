#!/bin/sh
# swing.sh: a workload that moves slab memory by well over 1,000 pages, in
# about 18 seconds: 24,000 files in 60 directories made in a tmpfs directory
# (dentry, shmem_inode_cache, lsm_inode_cache ...), 1,500 SysV messages held
# while 200 forks run, half the files removed, then the messages, then the
# rest of the files, with pauses so that snapshots (record
# --snapshot-every 3) fall on each level. Run it under record:
#   traces/capture/record -o DIR -b 65536 --snapshot-every 3 -- sh traces/capture/workloads/swing.sh
# $1: a directory to work in (default: a new one under /dev/shm), removed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/wl-lib.sh"
base=${1:-$(mktemp -d /dev/shm/slabsim-wl.XXXXXX)}
wl_log "files in $base"
wl_files "$base/a" 30 400
wl_files "$base/b" 30 400
wl_log "24000 files made"
sleep 3
wl_msgs 1500 6 &
msg=$!
wl_forks 200
sleep 1
rm -rf "$base/a"
wl_log "half the files removed"
wait "$msg"
wl_log "messages removed"
sleep 3
rm -rf "$base"
wl_log "files removed"
sleep 3
wl_log done
