#!/bin/sh
# small.sh: the workload of the bundled 6.18 capture
# (traces/samples/live-6.18/linux-6.18-record-small): about 4 seconds of
# files made and removed in a tmpfs directory, forks, SysV messages held for
# a second, anonymous mappings. Run it under record:
#   traces/capture/record -o DIR -b 65536 --snapshot-every 3 -- sh traces/capture/workloads/small.sh
# $1: a directory to work in (default: a new one under /dev/shm), removed
# at the end.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/wl-lib.sh"
base=${1:-$(mktemp -d /dev/shm/slabsim-wl.XXXXXX)}
wl_log "files in $base"
wl_files "$base" 10 100
sleep 1
wl_forks 20
wl_msgs 300 1
wl_maps 2 200
rm -rf "$base"
wl_log "files removed"
sleep 1
wl_log done
