#!/bin/sh
# A sweep as a Slurm job array: each array task runs one shard.
#
#   sbatch --array=1-16 analysis/sweep-slurm.sh my.sweep results
#   # when the array is done (or as a dependent job):
#   sbatch --dependency=afterok:JOBID --wrap \
#       'slabsim merge results/sweep.db results/part-*.db'
#
# Task I of N runs `slabsim sweep SPEC --shard I/N` into DIR/part-I.db, with
# as many workers as Slurm gave it CPUs. Array indices must run from 1 to N
# (--array=1-N); N is the array's size. A task that was preempted or failed
# resumes where it stopped when resubmitted (sbatch --array=I ...).
#
# Environment: SLABSIM (the binary; default build/slabsim, else slabsim on
# PATH). Outside Slurm (for a try), set SLURM_ARRAY_TASK_ID and
# SLURM_ARRAY_TASK_COUNT yourself.
#SBATCH --job-name=slabsim-sweep
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
#SBATCH --output=slabsim-sweep-%A_%a.log
set -eu
if [ $# -ne 2 ]; then
	echo "usage: sbatch --array=1-N $0 SPEC DIR" >&2
	exit 1
fi
spec=$1 dir=$2
: "${SLURM_ARRAY_TASK_ID:?run as a job array: sbatch --array=1-N $0 SPEC DIR}"
i=$SLURM_ARRAY_TASK_ID
n=${SLURM_ARRAY_TASK_COUNT:-}
if [ -z "$n" ]; then
	n=$((SLURM_ARRAY_TASK_MAX - SLURM_ARRAY_TASK_MIN + 1))
fi
slabsim=${SLABSIM:-}
if [ -z "$slabsim" ]; then
	if [ -x build/slabsim ]; then slabsim=build/slabsim; else slabsim=slabsim; fi
fi
mkdir -p "$dir"
exec "$slabsim" sweep "$spec" --db "$dir/part-$i.db" --shard "$i/$n" \
	-j "${SLURM_CPUS_PER_TASK:-1}" --no-progress
