#!/bin/sh
# slurm.sh - analysis/sweep-slurm.sh on a real single-node Slurm started here:
# munged, slurmctld and slurmd run as root from a scratch directory, on free
# ports, with a slurm.conf for this host (its CPUs and memory, one partition,
# no accounting). A job array of 3 shards and its afterany merge job are
# submitted as the README writes them; shard 2 is cancelled after its first
# run; the merge job reports it unfinished and exits 4; shard 2 is
# resubmitted alone (a one-task array) with 2 CPUs, the merge is submitted
# again and passes, and every table of the merged database has exactly the
# rows of the unsharded sweep. Every wait is bounded; the daemons are stopped
# at exit whatever happened. Skipped when Slurm or munge is not installed or
# we are not root. TAP.
#   $1 slabsim binary, $2 the source tree
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") src=$(abs_path "$2")
script=$src/analysis/sweep-slurm.sh

skip_all() {
	echo "ok 1 # SKIP $1"
	echo "1..1"
	exit 0
}
for p in munged slurmctld slurmd sbatch scancel squeue scontrol sinfo; do
	command -v "$p" >/dev/null 2>&1 || skip_all "slurm not installed ($p not found)"
done
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 not installed"
[ "$(id -u)" -eq 0 ] || skip_all "starting slurmd needs root"

# never talk to a Slurm we did not start
unset SLURM_CONF
tap_scratch
t_start=$(date +%s)
pids="" ours=false
cleanup() {
	if $ours; then
		scancel --user=root >/dev/null 2>&1
		wait_for 15 no_jobs
	fi
	for pid in $pids; do
		kill "$pid" 2>/dev/null
	done
	for pid in $pids; do
		wait_for 10 gone "$pid" || kill -9 "$pid" 2>/dev/null
	done
	cd / && rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# wait_for SECONDS CMD [ARGS...]: run CMD every 0.2 s until it succeeds
# (return 0) or SECONDS have passed (return 1).
wait_for() {
	wf_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -ge "$wf_end" ] && return 1
		sleep 0.2
	done
	return 0
}
# gone PID: exited (a zombie counts: its parent, not us, reaps it)
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(sed 's/.*) //; s/ .*//' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
no_jobs() { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }
state() { # state JOB: its JobState and ExitCode, e.g. "FAILED 4:0"
	scontrol -o show job "$1" 2>/dev/null |
		sed -n 's/.*JobState=\([A-Z_]*\).* ExitCode=\([0-9:]*\).*/\1 \2/p'
}
ended() { case $(state "$1") in PENDING* | RUNNING* | CONFIGURING* | COMPLETING* | "") return 1 ;; esac; }
idle() { [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; }
# pidfile FILE: the daemon's pid, stopped at exit before those started earlier
pidfile() { [ -s "$1" ] && pids="$(cat "$1") $pids"; }
elapsed() { echo "$(($(date +%s) - t_start)) s"; }
# used_ports: the local ports of this host's TCP sockets, in decimal
used_ports() {
	awk 'FNR > 1 { split($2, a, ":"); p = 0
		for (i = 1; i <= length(a[2]); i++)
			p = p * 16 + index("0123456789ABCDEF", substr(a[2], i, 1)) - 1
		print p }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
# free_port FROM [TAKEN]: the first port from FROM up that is neither in use
# nor TAKEN
free_port() {
	fp=$1
	while [ "$fp" = "${2:-}" ] || used_ports | grep -qx "$fp"; do
		fp=$((fp + 1))
	done
	echo "$fp"
}
logs() { tail -n 20 log/* 2>&1; }

# ---- a Slurm of our own ----
for v in SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SLURM_CPUS_PER_TASK SLURM_JOB_ID \
	SBATCH_PARTITION SBATCH_ACCOUNT SBATCH_TIMELIMIT SLABSIM; do
	unset "$v"
done
# munged wants every directory above its socket searchable by all
chmod 711 "$tmp"
mkdir -p state spool log
dd if=/dev/urandom of=munge.key bs=1024 count=1 2>/dev/null
chmod 600 munge.key
munged --socket="$tmp/munge.sock" --key-file="$tmp/munge.key" --pid-file="$tmp/munged.pid" \
	--log-file="$tmp/log/munged.log" --seed-file="$tmp/munged.seed" >log/munged.out 2>&1
wait_for 10 test -s munged.pid && pidfile munged.pid
if ! wait_for 10 test -S munge.sock; then
	tap_not_ok "munged started" "$(cat log/munged.out log/munged.log 2>&1)"
	tap_done
	exit 1
fi
tap_ok "munged started"

# this host as slurmd sees it: its name, CPUs, sockets, cores, memory
node=$(slurmd -C | head -n 1)
host=$(printf '%s\n' "$node" | sed -n 's/^NodeName=\([^ ]*\).*/\1/p')
# ports from a per-process start, so two runs of this test do not collide
ctld_port=$(free_port $((20000 + $$ % 20000)))
slurmd_port=$(free_port $((ctld_port + 1)) "$ctld_port")
cat >slurm.conf <<EOF
ClusterName=slabsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
KillWait=2
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
SLURM_CONF=$tmp/slurm.conf
export SLURM_CONF
slurmctld -f "$SLURM_CONF" >log/slurmctld.out 2>&1
wait_for 10 test -s slurmctld.pid && pidfile slurmctld.pid && ours=true
slurmd -f "$SLURM_CONF" >log/slurmd.out 2>&1
wait_for 10 test -s slurmd.pid && pidfile slurmd.pid
if ! wait_for 30 idle; then
	tap_not_ok "slurmctld and slurmd started, the node is idle" "$(sinfo 2>&1)" "$(logs)"
	tap_done
	exit 1
fi
tap_ok "slurmctld and slurmd started, the node is idle"
tap_diag "Slurm up after $(elapsed)"

# ---- the sweep: 12 workload runs, 4 per shard, about 0.3 s each ----
cat >w.sweep <<EOF
workload = $src/traces/workloads/netbuf.wl
duration = 10s
seed = 1..6
kernel = 6.1
allocator = slub, slab
align = natural
sample_every = 10000ev
EOF
"$bin" sweep w.sweep --db ref.db -j 2 -q
tap_is "the unsharded sweep exits 0" "$?" 0
tap_diag "unsharded sweep done after $(elapsed)"

export SLABSIM="$bin"
jid=$(sbatch --parsable --array=1-3 "$script" w.sweep res 3)
mid=$(sbatch --parsable --dependency=afterany:"$jid" "$script" --merge w.sweep res 3)
if ! expr "$jid $mid" : '[0-9][0-9]* [0-9][0-9]*$' >/dev/null; then
	tap_not_ok "array and merge job submitted" "$jid $mid" "$(logs)"
	tap_done
	exit 1
fi
tap_ok "array and merge job submitted"

# cancel shard 2 mid-sweep: running, with at least one run done
part2_started() {
	case $(state "${jid}_2") in RUNNING*) ;; *) return 1 ;; esac
	[ "$(sqlite3 -cmd '.timeout 2000' res/part-2.db \
		"SELECT count(*) FROM runs WHERE status = 'done'" 2>/dev/null || echo 0)" -ge 1 ]
}
if wait_for 60 part2_started; then
	scancel "${jid}_2"
	tap_ok "shard 2 caught running after its first run, cancelled"
else
	tap_not_ok "shard 2 caught running after its first run, cancelled" \
		"$(state "${jid}_2")" "$(squeue 2>&1)" "$(logs)"
fi
wait_for 90 ended "$mid"
tap_is "the afterany merge job ran after the array and exited 4" "$(state "$mid")" "FAILED 4:0"
tap_is "the array's tasks: done, cancelled, done" \
	"$(state "${jid}_1" | cut -d' ' -f1) $(state "${jid}_2" | cut -d' ' -f1) $(state "${jid}_3" | cut -d' ' -f1)" \
	"COMPLETED CANCELLED COMPLETED"
log=$(cat "slurm-$mid.out" 2>&1)
tap_diag "the merge job's log:" "$log"
tap_like "the merge names the unfinished shard" "$log" \
	"sweep-slurm.sh: shard 2/3 (res/part-2.db): unfinished, "
tap_like "and says how to resubmit it" "$log" \
	"(sbatch --array=2 analysis/sweep-slurm.sh w.sweep res 3), then merge again"
tap_is "only shard 2 is named" "$(grep -c ': shard ' "slurm-$mid.out")" 1
done2=$(sqlite3 res/part-2.db "SELECT count(*) FROM runs WHERE status = 'done'")
tap_is "shards 1 and 3 and the $done2 finished runs of shard 2 are merged" \
	"$(sqlite3 res/sweep.db "SELECT count(*) FROM runs WHERE status = 'done'")" $((8 + done2))
tap_diag "array cancelled and merged after $(elapsed)"

# resubmit shard 2 alone (SLURM_ARRAY_TASK_COUNT=1) with 2 CPUs, merge again
rid=$(sbatch --parsable --array=2 --cpus-per-task=2 "$script" w.sweep res 3)
mid2=$(sbatch --parsable --dependency=afterany:"$rid" "$script" --merge w.sweep res 3)
wait_for 90 ended "$mid2"
tap_is "the resubmitted shard 2 completes" "$(state "${rid}_2")" "COMPLETED 0:0"
tap_like "it resumes: runs done before the cancel are skipped" \
	"$(cat "slurm-${rid}_2.out" 2>&1)" "$done2 already done, $((4 - done2)) to run"
tap_like "it runs with 2 workers (--cpus-per-task=2)" "$(cat "slurm-${rid}_2.out" 2>&1)" "to run with 2 workers"
tap_is "the second merge exits 0" "$(state "$mid2")" "COMPLETED 0:0"
tap_like "and says the sweep is complete" "$(cat "slurm-$mid2.out" 2>&1)" \
	"sweep-slurm.sh: res/sweep.db holds all 12 runs of w.sweep (3 shards)"
tap_diag "resubmitted and merged after $(elapsed)"

# ---- the merged database = the unsharded sweep, table by table ----
tables() { sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"; }
# dump DB TABLE: its rows sorted, with the run's config_hash for run_id and
# without the wall-clock columns
dump() {
	cols=$(sqlite3 "$1" "SELECT group_concat('t.\"' || name || '\"', ', ') FROM pragma_table_info('$2')
		WHERE name <> 'run_id' AND name NOT LIKE '%\\_utc' ESCAPE '\\' AND name NOT LIKE 'created%'
		AND name NOT IN ('version', 'wall_seconds')")
	if [ "$2" = runs ]; then
		sqlite3 "$1" "SELECT $cols FROM runs t"
	elif [ -n "$(sqlite3 "$1" "SELECT 1 FROM pragma_table_info('$2') WHERE name = 'run_id'")" ]; then
		sqlite3 "$1" "SELECT r.config_hash, $cols FROM \"$2\" t JOIN runs r USING (run_id)"
	else
		sqlite3 "$1" "SELECT $cols FROM \"$2\" t"
	fi | sort
}
tap_is "the merged database has the unsharded sweep's tables" "$(tables res/sweep.db)" "$(tables ref.db)"
tap_is "12 runs, each once" \
	"$(sqlite3 res/sweep.db "SELECT count(*), count(DISTINCT config_hash) FROM runs WHERE status = 'done'")" "12|12"
for t in $(tables ref.db); do
	dump ref.db "$t" >want
	dump res/sweep.db "$t" >got
	if cmp -s got want; then
		tap_ok "table $t: the unsharded sweep's rows ($(wc -l <want))"
	else
		tap_not_ok "table $t: the unsharded sweep's rows" "$(diff want got | head -n 10)"
	fi
done
tap_diag "compared after $(elapsed)"
tap_done
