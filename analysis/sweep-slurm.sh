#!/bin/sh
# A sweep as a Slurm job array: each array task runs one shard; a merge job,
# run after the array whatever happened to its tasks, combines the shards and
# names the ones that are missing or unfinished.
#
#   jid=$(sbatch --parsable --array=1-16 analysis/sweep-slurm.sh my.sweep results 16)
#   sbatch --dependency=afterany:$jid analysis/sweep-slurm.sh --merge my.sweep results 16
#
# Task I runs `slabsim sweep SPEC --shard I/N` into DIR/part-I.db. N, the
# number of shards, is given explicitly (not taken from the array's size), so
# any subset of 1..N can be (re)submitted: `sbatch --array=7` or
# `--array=3,7` with the same SPEC DIR N. A task that was cancelled,
# preempted, timed out or failed resumes where it stopped when resubmitted.
# Each task asks for Slurm's default of one CPU, which fits any node (a
# request larger than every node stays pending for ever), and runs one run at
# a time; `sbatch --cpus-per-task=C` gives it C workers (sweep -j C). The
# time limit below can be overridden with `sbatch --time`. Logs are Slurm's
# defaults: slurm-JOBID_I.out per task, slurm-JOBID.out for the merge.
#
# --merge copies the finished runs of every DIR/part-I.db present into
# DIR/sweep.db (slabsim merge: runs already there are skipped), then plans
# the sweep against DIR/sweep.db (slabsim sweep --dry-run) and names each
# shard that still has runs to do: "missing" when its part file does not
# exist, "unfinished" otherwise. Exit status 0 when the sweep is complete;
# 4 when shards are missing or unfinished (resubmit them as printed, then
# run the merge again: it only adds what is new); 1 for a usage error, and
# slabsim's status (2 or 3) when slabsim fails. It needs no Slurm: it can
# also be run by hand.
#
# Environment: SLABSIM (the binary; default build/slabsim under the current
# directory, else slabsim on PATH). Outside
# Slurm (for a try), set SLURM_ARRAY_TASK_ID yourself.
#SBATCH --job-name=slabsim-sweep
#SBATCH --time=02:00:00
set -eu
me=sweep-slurm.sh
usage() {
	echo "usage: sbatch --array=1-N $me SPEC DIR N" >&2
	echo "       sbatch --dependency=afterany:JOBID $me --merge SPEC DIR N" >&2
	exit 1
}
merge=false
if [ "${1:-}" = --merge ]; then
	merge=true
	shift
fi
[ $# -eq 3 ] || usage
spec=$1 dir=$2 n=$3
case $n in
'' | *[!0-9]* | 0*)
	echo "$me: N (the number of shards) must be a whole number >= 1, got '$n'" >&2
	exit 1
	;;
esac
slabsim=${SLABSIM:-}
if [ -z "$slabsim" ]; then
	if [ -x build/slabsim ]; then
		slabsim=build/slabsim
	else
		slabsim=slabsim
	fi
fi

if ! $merge; then
	i=${SLURM_ARRAY_TASK_ID:-}
	if [ -z "$i" ]; then
		echo "$me: SLURM_ARRAY_TASK_ID is not set: submit as a job array" >&2
		usage
	fi
	if [ "$i" -lt 1 ] || [ "$i" -gt "$n" ]; then
		echo "$me: array index $i is not a shard of 1..$n: submit --array=1-$n or a part of it" >&2
		exit 1
	fi
	mkdir -p "$dir"
	exec "$slabsim" sweep "$spec" --db "$dir/part-$i.db" --shard "$i/$n" \
		-j "${SLURM_CPUS_PER_TASK:-1}" --no-progress
fi

# --merge
parts=""
i=1
while [ "$i" -le "$n" ]; do
	[ -f "$dir/part-$i.db" ] && parts="$parts $dir/part-$i.db"
	i=$((i + 1))
done
mkdir -p "$dir"
status=0
if [ -n "$parts" ]; then
	# a part that cannot be merged is named here, and its shard below
	# shellcheck disable=SC2086
	"$slabsim" merge "$dir/sweep.db" $parts || status=$?
fi
plan=$(mktemp) || exit 3
trap 'rm -f "$plan"' EXIT
"$slabsim" sweep "$spec" --db "$dir/sweep.db" --dry-run >"$plan"
# the plan's lines are INDEX <tab> done|todo <tab> ...; run INDEX belongs to
# shard INDEX mod N + 1 (docs/sweeps.md)
todo=$(awk -F'\t' -v n="$n" '
	{ s = $1 % n + 1; runs[s]++; if ($2 != "done") left[s]++ }
	END { for (s = 1; s <= n; s++) if (left[s]) print s, left[s], runs[s] }' "$plan")
total=$(wc -l <"$plan")
if [ -z "$todo" ]; then
	echo "$me: $dir/sweep.db holds all $total runs of $spec ($n shards)"
	exit "$status"
fi
list=""
while read -r s left runs; do
	if [ -f "$dir/part-$s.db" ]; then
		echo "$me: shard $s/$n ($dir/part-$s.db): unfinished, $left of $runs runs not done" >&2
	else
		echo "$me: shard $s/$n ($dir/part-$s.db): missing" >&2
	fi
	list="$list${list:+,}$s"
done <<EOF
$todo
EOF
echo "$me: $dir/sweep.db is incomplete; resubmit the shards above" \
	"(sbatch --array=$list analysis/$me $spec $dir $n), then merge again" >&2
[ "$status" -ne 0 ] && exit "$status"
exit 4
