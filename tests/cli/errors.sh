#!/bin/sh
# errors.sh - bad invocations and bad inputs of the slabsim CLI. Each case
# asserts the exact exit code (0 ok, 1 usage, 2 bad input, 3 I/O or SQLite)
# and the exact stderr, with file:line for input errors; the database cases
# also check that the file on disk did not change. TAP output.
#   $1 slabsim binary, $2 tests/cli/data, $3 the bundled boot trace
# Binary inputs (NUL bytes, garbage, over-long lines, truncated .gz) are made
# at test time in a temporary directory, removed at exit.
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") data=$(abs_path "$2") boot=$(abs_path "$3")
LC_ALL=C # strerror() wording, awk bytes
export LC_ALL
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# A replay without --db writes ./slabsim.db: keep any such file out of the tree.
cd "$tmp" || exit 1

good=$data/dyn-a-65x64.trace
strict14=$data/err-strict-line14.trace

# run ARGS...: rc, $tmp/out, $tmp/err
run() {
	"$bin" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
}
out() { cat "$tmp/out"; }
err() { cat "$tmp/err"; }

# expect NAME RC STDERR ARGS...: exit code and whole stderr exact, stdout empty.
expect() {
	e_name=$1 e_rc=$2 e_err=$3
	shift 3
	run "$@"
	tap_is "$e_name" "rc=$rc stdout=$(out | wc -c | tr -d ' ')
$(err)" "rc=$e_rc stdout=0
$e_err"
}

# usage NAME CMD MESSAGE ARGS...: a usage error of CMD (exit 1, message, hint).
usage() {
	u_name=$1 u_cmd=$2 u_msg=$3
	shift 3
	expect "$u_name" 1 "$u_msg
Try 'slabsim $u_cmd --help'." "$@"
}

# summary_line PREFIX: the line of the table summary starting with PREFIX.
summary_line() { out | grep "^$1" ; }

# ---- command line --------------------------------------------------------

run
tap_is "no command: exit 1, nothing on stdout" "rc=$rc stdout=$(out | wc -c | tr -d ' ')" "rc=1 stdout=0"
tap_is "no command: usage on stderr" "$(err | head -n 1)" "Usage: slabsim COMMAND [OPTIONS]"
tap_like "no command: usage lists the exit codes" "$(err)" "  3  I/O or SQLite error"

run frob
tap_is "unknown command: exit 1 and the command named first" "rc=$rc $(err | head -n 1)" \
	"rc=1 slabsim: unknown command 'frob'"
expect "help of an unknown command" 1 "slabsim: unknown command 'frob'" help frob

# getopt_long's own wording (glibc), with argv[0] = "slabsim <command>"
usage "unknown option" replay "slabsim replay: unrecognized option '--frob'" replay "$good" --frob
usage "unknown layout option" layout "slabsim layout: unrecognized option '--frob'" layout --frob
usage "option without its argument" replay "slabsim replay: option '--db' requires an argument" replay "$good" --db

usage "--nr-cpus 0" replay "slabsim: --nr-cpus expects a whole number from 1 to 8192, got '0'" \
	replay "$good" --no-db --nr-cpus 0
usage "--nr-cpus 8193" replay "slabsim: --nr-cpus expects a whole number from 1 to 8192, got '8193'" \
	replay "$good" --no-db --nr-cpus 8193
usage "--nr-cpus=-1" replay "slabsim: --nr-cpus expects a whole number from 1 to 8192, got '-1'" \
	replay "$good" --no-db --nr-cpus=-1
usage "--nr-cpus 2x" layout "slabsim: --nr-cpus expects a whole number from 1 to 8192, got '2x'" \
	layout --nr-cpus 2x
usage "--slub-max-order 11" replay "slabsim: --slub-max-order expects a whole number from 0 to 10, got '11'" \
	replay "$good" --no-db --slub-max-order 11
usage "--kernel 5" replay "slabsim: --kernel expected a kernel version MAJOR.MINOR (e.g. 5.4, 6.1, 6.12, 6.18), got '5'" \
	replay "$good" --no-db --kernel 5
# any version takes the newest profile at or below it (5.16-6.0 take 6.1,
# below 5.16 5.4); a version that is not a profile's own says which it took
for kv in 4.19:5.4 5.15:5.4 5.16.0-rc1:6.1 6.6:6.6 6.11:6.6 6.12.48+deb13:6.12 6.17:6.12 6.18:6.18 6.19:6.18 7.0:7.0 7.3:7.0; do
	run replay "$good" --no-db --kernel "${kv%%:*}"
	tap_is "--kernel ${kv%%:*} is profile ${kv#*:}" "rc=$rc $(out | sed -n 2p | cut -d, -f2)" \
		"rc=0  kernel ${kv#*:}"
done
run replay "$good" --no-db --kernel 6.11
tap_is "--kernel 6.11 says which profile it took" "$(err | grep -c 'following the 6.6 profile (the newest at or below it)')" 1
run replay "$good" --no-db --kernel 6.12
tap_is "--kernel 6.12 is exact: no note" "$(err | grep -c 'following the')" 0
usage "--align weird" replay "slabsim: --align expected none, natural, cap512, own-caches, merged, kmalloc-aligned-caches, kmalloc-aligned-overalloc or pow2-divisor, got 'weird'" \
	replay "$good" --no-db --align weird
usage "--slub-debug X" replay \
	"slabsim: --slub-debug: slub_debug option 'X' unknown in 'X' (letters F Z P U T A, or '-' alone for none)" \
	replay "$good" --no-db --slub-debug X
usage "--slub-debug O (not modelled)" layout "slabsim: --slub-debug: slub_debug option 'O' is not modelled" \
	layout --slub-debug O
usage "--allocator nope" replay "slabsim: unknown allocator 'nope' (known: slub slab slob exact)" \
	replay "$good" --no-db --allocator nope
usage "--sample-every 0" replay \
	"slabsim: --sample-every expects N, Nev, Nns, Nus, Nms or Ns with N > 0, got '0'" \
	replay "$good" --no-db --sample-every 0
usage "--sample-every 10xs" replay \
	"slabsim: --sample-every expects N, Nev, Nns, Nus, Nms or Ns with N > 0, got '10xs'" \
	replay "$good" --no-db --sample-every 10xs
usage "replay --format xml" replay "slabsim: --format expects table or json, got 'xml'" \
	replay "$good" --no-db --format xml
usage "layout --format json" layout "slabsim: --format expects table or tsv, got 'json'" \
	layout --format json
usage "replay without TRACE" replay "slabsim: replay needs a TRACE argument" replay --no-db
usage "replay with two TRACEs" replay "slabsim: replay takes one TRACE argument" \
	replay "$good" "$good" --no-db
usage "layout with an argument" layout "slabsim: layout takes no arguments, got 'x'" layout x
[ ! -e slabsim.db ]
tap_is "usage errors create no default database" "$?" 0

# ---- unreadable traces -----------------------------------------------------

expect "missing trace: exit 3, the path named" 3 "slabsim: $tmp/missing.trace: No such file or directory" \
	replay "$tmp/missing.trace"
# a directory is read as a capture directory (docs/capture-format.md)
expect "trace is a directory without a trace file" 3 \
	"slabsim: $tmp: capture directory without trace.txt.zst or trace.txt" replay "$tmp" --no-db
[ ! -e slabsim.db ]
tap_is "a missing trace creates no default database" "$?" 0

gzip -c "$boot" > "$tmp/full.gz" || exit 1
head -c 20000 "$tmp/full.gz" > "$tmp/trunc.trace.gz"
# gzip 1.12 starts its message with a newline: the reason is its first
# non-empty line
expect "truncated .gz: exit 3 with gzip's reason" 3 \
	"slabsim: $tmp/trunc.trace.gz: decompressor 'gzip' failed (exit 1): gzip: stdin: unexpected end of file" \
	replay "$tmp/trunc.trace.gz" --no-db
xz -c "$boot" | head -c 20000 > "$tmp/trunc.trace.xz"
expect "truncated .xz: exit 3 with xz's reason" 3 \
	"slabsim: $tmp/trunc.trace.xz: decompressor 'xz' failed (exit 1): xz: (stdin): Unexpected end of input" \
	replay "$tmp/trunc.trace.xz" --no-db
cp "$tmp/full.gz" "$tmp/nogzip.trace.gz"
env PATH=/nonexistent "$bin" replay "$tmp/nogzip.trace.gz" --no-db > "$tmp/out" 2> "$tmp/err"
rc=$?
tap_is "no gzip in PATH: exit 3" "rc=$rc $(err)" \
	"rc=3 slabsim: $tmp/nogzip.trace.gz: cannot run 'gzip': No such file or directory"

# ---- malformed lines: --strict stops with path:line, the default counts ----

# corpus FILE LINE MESSAGE: FILE under data/malformed has one bad line, LINE.
corpus() {
	c_f=$data/malformed/$1
	expect "strict $1: exit 2, $1:$2" 2 "slabsim: $c_f:$2: $3" replay "$c_f" --no-db --strict
	run replay "$c_f" --no-db
	tap_is "default $1: exit 0, counted malformed" "rc=$rc $(summary_line lines:)" \
		"rc=0 lines: 3 (header 1, other events 0, malformed 1, lost-event markers 0); lost events 0 (none reported)"
}
corpus bad-bytes-req.trace 3 "expected 'bytes_req=<n>', got 'bytes_req=abc'"
corpus bytes-req-overflow.trace 3 "expected 'bytes_req=<n>', got 'bytes_req=18446744073709551616'"
corpus no-bytes-req.trace 3 "expected 'bytes_req=<n>' in kmem_cache_alloc event, got no bytes_req field"
corpus no-bytes-alloc.trace 3 "expected 'bytes_alloc=<n>' in kmalloc event, got no bytes_alloc field"
corpus no-ptr.trace 3 "expected 'ptr=<hex>' in kmalloc event, got no ptr field"
corpus bad-ptr.trace 3 "expected 'ptr=<hex>', got 'ptr=0x12zz'"
# quoted input is cut at 64 bytes: 'ptr=' and 60 of the 72 z's, then "..."
z60=$(awk 'BEGIN { while (length(s) < 60) s = s "z"; print s }')
corpus long-ptr.trace 3 "expected 'ptr=<hex>', got 'ptr=$z60...'"
corpus bad-timestamp.trace 3 "expected '<seconds>.<fraction>:' after '[<cpu>]', got '1.0000000001:'"
corpus no-cpu.trace 3 \
	"expected '<task>-<pid> [<cpu>]' at the start of the line, got 'init-1       .....     1.000002: kmalloc: call_site=m_a+0x1/0x10...'"
corpus no-event-colon.trace 3 "expected '<event>:' after the timestamp, got 'kmalloc'"
corpus bad-node.trace 3 "expected 'node=<int>', got 'node=x'"
corpus bad-accounted.trace 3 "expected 'accounted=true|false', got 'accounted=maybe'"
corpus bad-gfp.trace 3 "expected 'gfp_flags=<flag>|...', got 'gfp_flags=GFP_KERNEL||'"

expect "strict from stdin names '-'" 2 "slabsim: -:3: expected 'node=<int>', got 'node=x'" \
	replay - --no-db --strict < "$data/malformed/bad-node.trace"

# An impossible event is bad input even without --strict.
slot=$data/malformed/slot-too-big.trace
run replay "$slot" --no-db
slot_err=$(err)
tap_is "kmem_cache slot above 4 MiB: exit 2, file:line, both sizes named" "rc=$rc $slot_err" \
	"rc=2 slabsim: $slot:3: expected kmem_cache_alloc sizes of 1..4194304 bytes, got bytes_req=100 bytes_alloc=5000000"

# Line 14 of a file with good events before and after it.
expect "strict: the first malformed line stops the replay" 2 \
	"slabsim: $strict14:14: expected 'bytes_req=<n>', got 'bytes_req=abc'" \
	replay "$strict14" --no-db --strict
run replay "$strict14" --no-db
tap_is "default: exit 0, the line counted and skipped" \
	"rc=$rc
$(summary_line events:)
$(summary_line lines:)" "rc=0
events: kmalloc 3 kmem_cache_alloc 1 kfree 2 kmem_cache_free 1
lines: 16 (header 8, other events 0, malformed 1, lost-event markers 0); lost events 0 (none reported)"

# ---- binary input ---------------------------------------------------------

kmalloc_line='            init-1       [000] .....     1.000001: kmalloc: call_site=b_a+0x1/0x10 ptr=00000000000000a1 bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false'
kfree_line='            init-1       [001] .....     1.000002: kfree: call_site=b_f+0x1/0x10 ptr=00000000000000a1'
free_line='            init-1       [000] .....     1.000003: kmem_cache_free: call_site=b_f+0x1/0x10 ptr=00000000000000ff name=foo'
{
	printf '# tracer: nop\r\n'                 # 1 header (CRLF)
	printf '%s\r\n' "$kmalloc_line"             # 2 event (CRLF)
	printf 'abc\000def\n'                       # 3 malformed: NUL at column 4
	awk 'BEGIN { for (i = 1; i <= 300; i++) { c = (i * 37) % 255 + 1; if (c != 10) printf "%c", c }; printf "\n" }'
	#                                             4 malformed: bytes 1..255
	printf '%s\r\n' "$kfree_line"               # 5 event (CRLF)
	printf '\377\376\001\002\n'                 # 6 malformed
	printf '\r\n'                               # 7 blank: header
	printf '\000\000\000\n'                     # 8 malformed: NUL at column 1
	printf '%s' "$free_line"                    # 9 event, no final newline
} > "$tmp/garbage.trace"
expect "binary garbage, --strict: NUL byte at line 3 column 4" 2 \
	"slabsim: $tmp/garbage.trace:3: expected text, got a NUL byte at column 4" \
	replay "$tmp/garbage.trace" --no-db --strict
run replay "$tmp/garbage.trace" --no-db --format json
tap_is "binary garbage: exit 0, nothing on stderr" "rc=$rc $(err)" "rc=0 "
tap_is "binary garbage: line counts" "$(out | grep '"lines"' | sed 's/ "first_malformed_line.*//')" \
	'  "lines": {"total": 9, "header": 2, "other_events": 0, "malformed": 4, "lost_markers": 0, "lost_events": 0,'
tap_is "binary garbage: CRLF and unterminated lines are events" "$(out | grep '"events"')" \
	'  "events": {"kmalloc": 1, "kmalloc_node": 0, "kmem_cache_alloc": 0, "kmem_cache_alloc_node": 0, "kfree": 1, "kmem_cache_free": 1, "tracing_mark_write": 0, "mm_page_free": 0, "mm_page_alloc": 0},'
tap_like "binary garbage: the first malformed line is reported" "$(out | grep '"lines"')" \
	'"first_malformed_line": 3, "first_malformed": "expected text, got a NUL byte at column 4"}'
tap_like "binary garbage: the unknown free counted" "$(out | grep '"anomalies"')" '{"free_unknown_ptr": 1, "free_null": 0,'

# TRACE_LINE_MAX is 1 MiB, newline included: 1048575 bytes + '\n' is read
# (and fails to parse), one byte more is skipped as too long.
awk 'BEGIN { s = "x"; while (length(s) < 1048576) s = s s
	print substr(s, 1, 1048575); print substr(s, 1, 1048576) }' > "$tmp/long.trace"
printf '%s\n' "$kmalloc_line" >> "$tmp/long.trace"
run replay "$tmp/long.trace" --no-db --format json
json=$(out | grep '"totals"')
tap_is "over-long lines: exit 0, both counted malformed" "rc=$rc $(out | grep '"lines"' | sed 's/ "first_malformed_line.*//')" \
	'rc=0   "lines": {"total": 3, "header": 0, "other_events": 0, "malformed": 2, "lost_markers": 0, "lost_events": 0,'
tap_is "over-long lines: the event after them is read" "$(json_num "$json" live_objects) $(json_num "$json" live_req_bytes)" "1 64"
sed -n 2,3p "$tmp/long.trace" > "$tmp/long2.trace"
expect "strict: a 1048576-byte line is too long" 2 \
	"slabsim: $tmp/long2.trace:1: expected a line of at most 1048576 bytes, got a longer one" \
	replay "$tmp/long2.trace" --no-db --strict
x64=$(awk 'BEGIN { while (length(s) < 64) s = s "x"; print s }')
expect "strict: a 1048575-byte line is parsed" 2 \
	"slabsim: $tmp/long.trace:1: expected '<task>-<pid> [<cpu>]' at the start of the line, got '$x64...'" \
	replay "$tmp/long.trace" --no-db --strict

# ---- traces without events -------------------------------------------------

head -n 12 "$boot" > "$tmp/headers.trace"
run replay "$tmp/headers.trace" --db "$tmp/h.db" --format json
tap_is "headers only: exit 5, said so, nothing on stdout" "rc=$rc $(err) $(out | wc -c)" \
	"rc=5 slabsim: $tmp/headers.trace: no slab event (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free) in 12 lines: nothing to replay 0"
tap_is "headers only: no database file created" "$(test -e "$tmp/h.db" && echo exists)" ""
# the same through stdin (one read, the spilled name pass) and without the name pass
"$bin" replay - --no-db < "$tmp/headers.trace" > /dev/null 2> "$tmp/err"
tap_is "headers only on stdin: exit 5" "rc=$?" "rc=5"
run replay "$tmp/headers.trace" --no-db --no-name-pass
tap_is "headers only without the name pass: exit 5" "rc=$rc" "rc=5"
: > "$tmp/empty.trace"
run replay "$tmp/empty.trace" --no-db
tap_is "empty file: exit 2, said so" "rc=$rc $(cat "$tmp/err")" \
	"rc=2 slabsim: $tmp/empty.trace: empty file: no trace in it"

# ---- results database and output files ------------------------------------

printf 'this is not a database\n' > "$tmp/notdb.db"
sum0=$(cksum < "$tmp/notdb.db")
expect "--db on a text file: exit 3, the path named" 3 \
	"slabsim: $tmp/notdb.db: not a slabsim/SQLite database (file is not a database)" \
	replay "$good" --db "$tmp/notdb.db"
tap_is "--db on a text file: file unchanged" "$(cksum < "$tmp/notdb.db")" "$sum0"

sqlite3 "$tmp/foreign.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1);" || exit 1
sum0=$(cksum < "$tmp/foreign.db")
expect "--db on another application's SQLite file: exit 3" 3 \
	"slabsim: $tmp/foreign.db: a SQLite database, but not a slabsim results database (application_id 0, 1 schema objects)" \
	replay "$good" --db "$tmp/foreign.db"
tap_is "--db on another application's SQLite file: file unchanged" "$(cksum < "$tmp/foreign.db")" "$sum0"

expect "--db in a missing directory: exit 3" 3 \
	"slabsim: $tmp/nodir/r.db: cannot open database: unable to open database file" \
	replay "$good" --db "$tmp/nodir/r.db"
[ ! -e "$tmp/nodir" ]
tap_is "--db in a missing directory: nothing created" "$?" 0
run replay "$good" --db ''
tap_is "--db '': exit 1, nothing on stdout" "rc=$rc stdout=$(out | wc -c | tr -d ' ')" "rc=1 stdout=0"
tap_like "--db '': says why" "$(err)" "slabsim: --db needs a file name (or use --no-db)"

run replay "$good" --no-db --final-slabinfo "$tmp/nodir/slabinfo"
tap_is "--final-slabinfo unwritable: exit 3, the path named" "rc=$rc $(err)" \
	"rc=3 slabsim: $tmp/nodir/slabinfo: No such file or directory"

# A replay that fails mid-way leaves the committed runs as they were.
# With --sample-every 1 each good event writes a sample row inside the open
# run, so the failing replay below has rows to roll back.
run replay "$strict14" --db "$tmp/s.db" --sample-every 1 -q
tap_is "sampling every event: 7 event samples and the end sample" \
	"rc=$rc $(sqlite3 "$tmp/s.db" "SELECT count(*), sum(label IS NULL) FROM samples")" "rc=0 8|7"
db=$tmp/r.db
run replay "$boot" --db "$db" --kernel 6.1 -q
tap_is "a first run commits" "rc=$rc $(sqlite3 "$db" "SELECT count(*), max(run_id), min(status), sum(events) FROM runs")" \
	"rc=0 1|1|done|3000"
before=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM samples), (SELECT count(*) FROM sample_caches),
	(SELECT count(*) FROM caches), (SELECT count(*) FROM counts), (SELECT count(*) FROM sites)")
sum0=$(cksum < "$db")
expect "strict failure after 5 events, sampling every event: exit 2, not recorded" 2 \
	"slabsim: $strict14:14: expected 'bytes_req=<n>', got 'bytes_req=abc'
slabsim: the run was not recorded in $db" \
	replay "$strict14" --db "$db" --strict --sample-every 1
tap_is "the failed run added no run" "$(sqlite3 "$db" "SELECT count(*), max(run_id), min(status), sum(events) FROM runs")" \
	"1|1|done|3000"
tap_is "the failed run left no rows" "$(sqlite3 "$db" "SELECT (SELECT count(*) FROM samples), (SELECT count(*) FROM sample_caches),
	(SELECT count(*) FROM caches), (SELECT count(*) FROM counts), (SELECT count(*) FROM sites)")" "$before"
tap_is "the database is intact" "$(sqlite3 "$db" "PRAGMA integrity_check")" "ok"
tap_is "the database file is byte for byte unchanged" "$(cksum < "$db")" "$sum0"
[ ! -e "$db-journal" ]
tap_is "no journal left behind" "$?" 0
run replay "$strict14" --db "$db" -q
tap_is "the next good run reuses the rolled-back id" \
	"rc=$rc $(sqlite3 "$db" "SELECT count(*), max(run_id) FROM runs WHERE status = 'done'")" "rc=0 2|2"

tap_done
