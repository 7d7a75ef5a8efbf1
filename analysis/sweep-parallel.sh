#!/bin/sh
# Run a sweep as N shards with GNU parallel, then merge the shards' files.
#
#   analysis/sweep-parallel.sh SPEC OUT.db N [GNU-PARALLEL-OPTIONS...]
#
# On this machine: N shards, N jobs at a time, one worker each. Across hosts,
# pass GNU parallel's remote options, e.g.
#   analysis/sweep-parallel.sh my.sweep out.db 16 --sshloginfile hosts \
#       --workdir . --basefile my.sweep --return 'part-{}.db' --cleanup
# (slabsim and the traces must be at the same paths on every host, or on a
# shared file system). Each shard writes part-I.db in the current directory;
# the script merges them into OUT.db and keeps the parts (rerunning resumes
# every shard; delete them when done).
#
# Environment: SLABSIM (the binary; default build/slabsim, else slabsim on
# PATH), JOBS_PER_SHARD (sweep -j, default 1), SLABSIM_RUNNER=xargs to use
# `xargs -P` instead of GNU parallel (also the fallback when parallel is not
# installed; local only).
set -eu
if [ $# -lt 3 ]; then
	echo "usage: $0 SPEC OUT.db N [GNU-PARALLEL-OPTIONS...]" >&2
	exit 1
fi
spec=$1 out=$2 n=$3
shift 3
case $n in
'' | *[!0-9]* | 0)
	echo "$0: N must be a whole number >= 1, got '$n'" >&2
	exit 1
	;;
esac
slabsim=${SLABSIM:-}
if [ -z "$slabsim" ]; then
	if [ -x build/slabsim ]; then slabsim=build/slabsim; else slabsim=slabsim; fi
fi
jobs=${JOBS_PER_SHARD:-1}
runner=${SLABSIM_RUNNER:-parallel}
if [ "$runner" = parallel ] && ! command -v parallel >/dev/null 2>&1; then
	echo "$0: GNU parallel not found, running the shards with xargs -P on this machine" >&2
	runner=xargs
fi

status=0
if [ "$runner" = parallel ]; then
	# --halt never: every shard runs even if one fails; the exit status says
	# how many failed
	seq 1 "$n" | parallel --will-cite --halt never -j "$n" "$@" \
		"$slabsim" sweep "$spec" --db 'part-{}.db' --shard '{}/'"$n" -j "$jobs" -q ||
		status=$?
else
	seq 1 "$n" | xargs -P "$n" -I '{}' \
		"$slabsim" sweep "$spec" --db 'part-{}.db' --shard '{}/'"$n" -j "$jobs" -q ||
		status=$?
fi
parts=""
i=1
while [ "$i" -le "$n" ]; do
	[ -f "part-$i.db" ] && parts="$parts part-$i.db"
	i=$((i + 1))
done
if [ -z "$parts" ]; then
	echo "$0: no shard wrote a database" >&2
	exit 3
fi
# shellcheck disable=SC2086
"$slabsim" merge "$out" $parts
if [ "$status" -ne 0 ]; then
	echo "$0: some shards failed (status $status); rerun to resume them" >&2
	exit "$status"
fi
