#!/bin/sh
# exec.sh: short processes of different sizes, one after another, about 30
# seconds: 80 rounds of /bin/true, sh -c 'ls /usr/bin', python3 -c
# 'import os' and a three-stage pipeline (echo | sed | awk). Each one is a
# fork and an exec, so an mm is copied, thrown away at the exec, built
# again and torn down at the exit: maple_node and vm_area_struct come and
# go in bursts of one process each, mostly on frees the trace does not
# show (mmfree.h), with nothing held across rounds. Deterministic.
#   traces/capture/record -o DIR -b 400000 --snapshot-every 3 -- sh traces/capture/workloads/exec.sh
# (the larger -b: 64 MiB per CPU lost events of a 133-s run of 300 rounds)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/wl-lib.sh"
i=0
while [ "$i" -lt 80 ]; do
	/bin/true
	sh -c 'ls /usr/bin >/dev/null'
	python3 -c 'import os' 2>/dev/null
	echo "$i" | sed 's/0/x/' | awk '{ print $1 }' >/dev/null
	i=$((i + 1))
done
wl_log done
