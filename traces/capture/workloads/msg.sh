#!/bin/sh
# msg.sh: SysV messages held: 4,500 messages of 1 to 3000 bytes (every
# msg_msg-* bucket cache of 6.11 and later up to msg_msg-4k, kmalloc-* before
# 6.11) in private queues, held 10 seconds (three or four snapshots with
# record --snapshot-every 3), then removed; 3 seconds before and after.
#   traces/capture/record -o DIR -b 65536 --snapshot-every 3 -- sh traces/capture/workloads/msg.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/wl-lib.sh"
sleep 3
wl_msgs 4500 10
wl_log "messages removed"
sleep 4
wl_log done
