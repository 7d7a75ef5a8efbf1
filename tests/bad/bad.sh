#!/bin/sh
# bad.sh - the malformed-input corpus: every row of tests/bad/cases replays a
# file of tests/bad/data/ and checks the exit code and a substring of stdout
# or stderr (file:line and what was expected); then the results database and
# output files under failure: read-only database, read-only output
# directory, full disk (a small tmpfs, when root may mount one), truncated
# database, stdout on a full device. Every run must end by itself within
# $limit seconds, without a signal or a sanitizer report, and the database
# cases check that the run recorded first is still there afterwards.
# TAP output.
#   $1 slabsim binary, $2 tests/bad (holds cases and data/), $3 a small good
#   trace, $4 the bundled boot trace (3000 events)
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") here=$(abs_path "$2") good=$(abs_path "$3") big=$(abs_path "$4")
LC_ALL=C # strerror() wording
export LC_ALL
limit=60
tmp=$(mktemp -d) || exit 1
mounted=""
cleanup() {
	for m in $mounted; do umount "$m" 2>/dev/null; done
	chmod -R u+w "$tmp" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
cd "$tmp" || exit 1 # a stray default slabsim.db lands here

# run ARGS...: slabsim under a time limit; rc, $tmp/out, $tmp/err.
run() {
	timeout -k 5 "$limit" "$bin" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
}

# verdict: "" when the last run ended by itself with a documented exit code
# and no sanitizer report, else what went wrong.
verdict() {
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "hang: killed after ${limit}s"
	elif [ "$rc" -gt 5 ]; then
		echo "crash or undocumented exit code $rc"
	elif grep -q -e 'Sanitizer' -e 'runtime error:' "$tmp/err"; then
		echo "sanitizer report"
	fi
}

# expect NAME RC WHERE SUBSTRING ARGS...: run, then one check of the exit
# code, the substring in stdout (WHERE=out) or stderr (err), and verdict.
expect() {
	x_name=$1 x_rc=$2 x_where=$3 x_sub=$4
	shift 4
	run "$@"
	x_bad=$(verdict)
	x_text=$(cat "$tmp/$x_where")
	x_found=no
	case $x_text in *"$x_sub"*) x_found=yes ;; esac
	if [ -z "$x_bad" ] && [ "$rc" -eq "$x_rc" ] && [ $x_found = yes ]; then
		tap_ok "$x_name"
	else
		tap_not_ok "$x_name" "exit $rc (want $x_rc)${x_bad:+, $x_bad}" \
			"want in std$x_where: $x_sub" "stdout:" "$(head -c 2000 "$tmp/out")" \
			"stderr:" "$(head -c 2000 "$tmp/err")"
	fi
}

# runs DB: "count|max(run_id)" of the runs table.
runs() { sqlite3 "$1" "SELECT count(*), max(run_id) FROM runs"; }

# ---- the table --------------------------------------------------------------

nl='
'
while IFS='|' read -r c_file c_opts c_rc c_where c_sub; do
	case $c_file in '#'* | '') continue ;; esac
	c_file=$(echo $c_file) c_opts=$(echo $c_opts) c_rc=$(echo $c_rc) c_where=$(echo $c_where)
	c_sub=${c_sub# } # one blank after the bar; the rest is literal
	path=$here/data/$c_file
	# @F@ -> the path; \n -> newline
	while :; do
		case $c_sub in
		*@F@*) c_sub=${c_sub%%@F@*}$path${c_sub#*@F@} ;;
		*'\n'*) c_sub=${c_sub%%\\n*}$nl${c_sub#*\\n} ;;
		*) break ;;
		esac
	done
	# Traces go to `replay FILE --no-db`, workload specs (*.wl) to `synth
	# --workload FILE -o /dev/null`, sweep specs (*.sweep) to `sweep FILE`
	# with a scratch database and one worker, capture directories (cap-*/)
	# to the command that begins the options (validate or replay), --no-db.
	c_label="$c_file ${c_opts:+$c_opts }"
	case $c_file in
	cap-*)
		c_cmd=${c_opts%% *}
		c_opts=${c_opts#"$c_cmd"}
		set -- "$c_cmd" "$path" --no-db
		;;
	*.wl) set -- synth --workload "$path" -o /dev/null ;;
	*.sweep) rm -f "$tmp/sweep.db" && set -- sweep "$path" --db "$tmp/sweep.db" -j 1 -q ;;
	*) set -- replay "$path" --no-db ;;
	esac
	# shellcheck disable=SC2086 # options are words
	expect "$c_label-> exit $c_rc, std$c_where: $(printf '%s' "$c_sub" |
		sed "s|$here/data/||g" | tr '\n' ' ' | cut -c 1-70)" \
		"$c_rc" "$c_where" "$c_sub" "$@" $c_opts
done < "$here/cases"

# gzip data on stdin: recognised by its magic like a file's
timeout -k 5 "$limit" "$bin" replay - --no-db < "$here/data/gzip-for-stdin.gz" \
	> "$tmp/out" 2> "$tmp/err"
rc=$?
case $(cat "$tmp/out") in *"events: kmalloc 65$nl"*) x_found=yes ;; *) x_found=no ;; esac
if [ -z "$(verdict)" ] && [ "$rc" -eq 0 ] && [ $x_found = yes ]; then
	tap_ok "gzip data on stdin -> exit 0, stdout: events: kmalloc 65"
else
	tap_not_ok "gzip data on stdin -> exit 0, stdout: events: kmalloc 65" "exit $rc: $(head -c 300 "$tmp/err")"
fi

# A workload spec with a line over 1 MiB (an inline histogram of 220001
# entries of 5 bytes, made here rather than stored): bad input naming it.
awk 'BEGIN { printf "[workload]\nduration = 1s\n[stream s]\ntarget = kmalloc\nsize = empirical ";
	for (i = 0; i < 220000; i++) printf "64:1,"; printf "64:1\nlifetime = forever\narrival = poisson 10\n" }' \
	> "$tmp/long-line.wl"
expect "workload spec with a 1100021-byte line: exit 2, names line 5" 2 err \
	"slabsim: $tmp/long-line.wl:5: expected a line of at most 1048575 bytes, got 1100021 bytes" \
	synth --workload "$tmp/long-line.wl" -o /dev/null

# ---- results database and output files under failure -----------------------

# A database with one recorded run, which no failure below may lose.
first_run() { # DB
	run replay "$good" --db "$1" -q
	tap_is "$2: a first run is recorded" "rc=$rc $(runs "$1")" "rc=0 1|1"
}

# Root ignores file permissions: read-only and full file systems are then
# made with a small tmpfs, mounted here if root may (not in every container).
can_mount=no
if [ "$(id -u)" -eq 0 ]; then
	mkdir "$tmp/probe"
	if mount -t tmpfs -o size=64k tmpfs "$tmp/probe" 2>/dev/null; then
		umount "$tmp/probe"
		can_mount=yes
	fi
fi
# tmpfs DIR SIZE: mount one (remembered for cleanup)
tmpfs() {
	mkdir -p "$1" && mount -t tmpfs -o "size=$2" tmpfs "$1" && mounted="$1 $mounted"
}

# read-only database file, read-only output directory
ro=$tmp/ro
if [ "$(id -u)" -ne 0 ]; then
	mkdir "$ro"
	first_run "$ro/r.db" "read-only database"
	chmod a-w "$ro/r.db" "$ro"
	ro_why="Permission denied"
elif [ $can_mount = yes ] && tmpfs "$ro" 1m; then
	first_run "$ro/r.db" "read-only database"
	mount -o remount,ro "$ro"
	ro_why="Read-only file system"
else
	ro_why=""
fi
if [ -n "$ro_why" ]; then
	sum0=$(cksum < "$ro/r.db")
	expect "read-only database: exit 3, says so" 3 err \
		"slabsim: $ro/r.db: database is read-only" replay "$good" --db "$ro/r.db"
	tap_is "read-only database: the recorded run is still there, file unchanged" \
		"$(runs "$ro/r.db") $(cksum < "$ro/r.db")" "1|1 $sum0"
	expect "new database in a read-only directory: exit 3" 3 err \
		"slabsim: $ro/new.db: cannot open database: unable to open database file" \
		replay "$good" --db "$ro/new.db"
	first_run "$tmp/w.db" "slabinfo into a read-only directory"
	expect "--final-slabinfo into a read-only directory: exit 3, strerror" 3 err \
		"slabsim: $ro/slabinfo: $ro_why" \
		replay "$good" --db "$tmp/w.db" --final-slabinfo "$ro/slabinfo"
	tap_is "--final-slabinfo refused before the run: nothing recorded" "$(runs "$tmp/w.db")" "1|1"
else
	for c in "read-only database" "read-only database: runs kept" "read-only directory" \
		"read-only output directory"; do
		tap_skip "$c" "root ignores permissions and cannot mount a tmpfs here"
	done
fi

# full disk: a 1 MiB tmpfs, a run recorded, then filled but for 184 KiB, so
# the next run (sampling every event) fails part-way through its
# transaction; then an output file on the full disk
full=$tmp/full
if [ $can_mount = yes ] && tmpfs "$full" 1m; then
	first_run "$full/r.db" "full disk"
	dd if=/dev/zero of="$full/fill" bs=4k count=200 2> /dev/null
	expect "full disk mid-run: exit 3, says the disk is full and the run was rolled back" 3 err \
		"database or disk is full; run 2 was rolled back" \
		replay "$big" --db "$full/r.db" --kernel 6.1 --sample-every 1
	tap_is "full disk: the recorded run is still there, nothing else" \
		"$(runs "$full/r.db") $(sqlite3 "$full/r.db" "SELECT count(*) FROM samples WHERE run_id <> 1")" \
		"1|1 0"
	tap_is "full disk: the database is intact, no journal left" \
		"$(sqlite3 "$full/r.db" "PRAGMA integrity_check") $(ls "$full" | tr '\n' ' ')" "ok fill r.db "
	dd if=/dev/zero of="$full/fill2" bs=4k 2> /dev/null # the rest
	first_run "$tmp/f.db" "slabinfo on a full disk"
	expect "--final-slabinfo on a full disk: exit 3, ENOSPC, the run is recorded" 3 err \
		"slabsim: $full/slabinfo: cannot write the slabinfo file: No space left on device (the run is recorded)" \
		replay "$good" --db "$tmp/f.db" --final-slabinfo "$full/slabinfo"
	tap_is "--final-slabinfo on a full disk: no truncated file left, the run recorded" \
		"$(ls "$full" | tr '\n' ' ')$(runs "$tmp/f.db")" "fill fill2 r.db 2|2"
else
	why="needs root and a mountable tmpfs"
	[ "$(id -u)" -eq 0 ] || why="not root: cannot mount a small tmpfs"
	for c in "full disk mid-run" "full disk: runs kept" "full disk: intact" \
		"slabinfo on a full disk" "slabinfo on a full disk: no truncated file"; do
		tap_skip "$c" "$why"
	done
fi

# truncated and damaged databases: exit 3, the reason named
first_run "$tmp/h.db" "truncated database"
head -c 20000 "$tmp/h.db" > "$tmp/half.db"
expect "--db truncated to 20000 bytes: exit 3, malformed" 3 err \
	"slabsim: $tmp/half.db: cannot read the database: database disk image is malformed" \
	replay "$good" --db "$tmp/half.db"
head -c 100 "$tmp/h.db" > "$tmp/hdr.db"
expect "--db of only the SQLite header: exit 3" 3 err \
	"slabsim: $tmp/hdr.db: cannot read the database: database disk image is malformed" \
	replay "$good" --db "$tmp/hdr.db"
mkdir "$tmp/dir.db"
expect "--db naming a directory: exit 3" 3 err \
	"slabsim: $tmp/dir.db: cannot open database: unable to open database file" \
	replay "$good" --db "$tmp/dir.db"

# --final-slabinfo naming the trace itself: refused before fopen("w") would
# truncate the input (the trace was lost)
cp "$good" "$tmp/same.trace"
sum0=$(cksum < "$tmp/same.trace")
expect "--final-slabinfo naming the trace itself: usage error" 1 err \
	"slabsim: --final-slabinfo $tmp/./same.trace is the trace itself" \
	replay "$tmp/same.trace" --no-db --final-slabinfo "$tmp/./same.trace"
tap_is "--final-slabinfo naming the trace itself: the trace is intact" \
	"$(cksum < "$tmp/same.trace")" "$sum0"

# stdout on a full device: the summary cannot be written
if [ -w /dev/full ]; then
	timeout -k 5 "$limit" "$bin" replay "$good" --no-db > /dev/full 2> "$tmp/err"
	rc=$?
	tap_is "stdout on /dev/full: exit 3, says so" "rc=$rc $(verdict)$(cat "$tmp/err")" \
		"rc=3 slabsim: error writing output"
else
	tap_skip "stdout on /dev/full" "no writable /dev/full"
fi

tap_done
