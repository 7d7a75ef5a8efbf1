#!/bin/sh
# perfdata.sh - a perf.data replays as its `perf script` text does: every
# result table of the bundled 6.18 recording equal, plain or compressed,
# with the kernel symbols given by --kallsyms; its lost events counted;
# files it cannot read refused naming the file and what was expected. TAP.
#   $1 slabsim binary, $2 traces/samples
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") samples=$(abs_path "$2")
tap_scratch
TMPDIR=$tmp
export TMPDIR
cd "$tmp" || exit 1
d=$samples/linux-6.18-perf
zstd -dcq "$d/perf.data.zst" >p.data
zstd -dcq "$d/perf-script.txt.zst" >p.txt

# tables DB: every table but runs (its paths, times, hashes), one line per
# row, in each table's order
tables() {
	for t in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('runs', 'sqlite_sequence') ORDER BY name"); do
		echo "== $t"
		sqlite3 "$1" "SELECT * FROM $t"
	done
}

"$bin" replay p.txt --db txt.db -q --no-progress 2>txt.err
tap_is "the perf script text replays" "$?" 0
"$bin" replay p.data --kallsyms "$d/kallsyms" --db dat.db -q --no-progress 2>dat.err
tap_is "the perf.data replays" "$?" 0
tap_is "with its symbols: no warning" "$(cat dat.err)" ""
tables txt.db >txt.tables
tables dat.db >dat.tables
if [ "$(wc -l <txt.tables)" -gt 100 ] && cmp -s txt.tables dat.tables; then
	tap_ok "every result table of the perf.data equals its text's ($(wc -l <txt.tables) rows)"
else
	tap_not_ok "every result table of the perf.data equals its text's" "$(cat dat.err)" \
		"$(diff txt.tables dat.tables | head -8)"
fi
tap_is "its events and lines" \
	"$(sqlite3 dat.db "SELECT events || ' ' || (SELECT count FROM counts WHERE tbl = 'line' AND kind = 'total') FROM runs")" \
	"7753 8635"
tap_is "its call sites named" \
	"$(sqlite3 dat.db "SELECT call_site FROM sites WHERE call_site LIKE 'sched_setaffinity+%'")" \
	"sched_setaffinity+0x127"
tap_is "its CPUs from the header" "$(sqlite3 dat.db "SELECT trace_nr_cpus FROM runs")" 2

# compressed, and through a pipe: spooled, the same results and identity
"$bin" replay "$d/perf.data.zst" --kallsyms "$d/kallsyms" --db zst.db -q --no-progress 2>zst.err
tap_is "perf.data.zst replays" "$?" 0
tables zst.db >zst.tables
if cmp -s dat.tables zst.tables; then
	tap_ok "perf.data.zst: the same tables"
else
	tap_not_ok "perf.data.zst: the same tables" "$(diff dat.tables zst.tables | head -5)"
fi
"$bin" replay - --kallsyms "$d/kallsyms" --db pipe.db -q --no-progress <p.data 2>pipe.err
tables pipe.db >pipe.tables
tap_is "perf.data on stdin: the same tables" "$(cmp -s dat.tables pipe.tables && echo same)" same
tap_is "perf.data on stdin: the file's identity" "$(sqlite3 pipe.db "SELECT trace_hash FROM runs")" \
	"$(sqlite3 dat.db "SELECT trace_hash FROM runs")"

# fit reads it as its text too (the spec's name and source aside)
"$bin" fit p.data --kallsyms "$d/kallsyms" --name w -q -o dat.wl 2>fit.err
"$bin" fit p.txt --name w -q -o txt.wl 2>>fit.err
grep -v '^# source' dat.wl >dat.spec
grep -v '^# source' txt.wl >txt.spec
if [ -s txt.spec ] && cmp -s dat.spec txt.spec; then
	tap_ok "fit: the perf.data's spec is its text's ($(grep -c '^\[' txt.spec) sections)"
else
	tap_not_ok "fit: the perf.data's spec is its text's" "$(cat fit.err)" "$(diff dat.spec txt.spec | head -5)"
fi

# a sweep reads it too, its symbols named by the spec's kallsyms line
printf 'trace = p.data\ntrace = p.txt\nkallsyms = %s\nalign = none\n' "$d/kallsyms" >sw.spec
"$bin" sweep sw.spec --db sw.db -q 2>sw.err
tap_is "sweep: exit 0" "$?" 0
sites() { sqlite3 sw.db "SELECT s.call_site, s.allocs, s.frees, s.bytes_alloc FROM sites s JOIN runs r USING (run_id) WHERE r.trace_path = '$1' ORDER BY s.call_site"; }
sites p.data >sw.dat
sites p.txt >sw.txt
if [ "$(wc -l <sw.txt)" -gt 30 ] && cmp -s sw.dat sw.txt; then
	tap_ok "sweep: the perf.data's call sites are its text's ($(wc -l <sw.txt))"
else
	tap_not_ok "sweep: the perf.data's call sites are its text's" "$(cat sw.err)" "$(diff sw.dat sw.txt | head -5)"
fi
printf 'trace = p.data\nkallsyms = %s\nkallsyms = %s\n' "$d/kallsyms" "$d/kallsyms" >sw2.spec
"$bin" sweep sw2.spec --db sw2.db -q 2>sw2.err
tap_is "sweep: two kallsyms lines, exit 2" "$?" 2
tap_like "sweep: two kallsyms lines, said" "$(cat sw2.err)" "sw2.spec:3: expected kallsyms once"

# kernel symbols that name nothing: the call sites are addresses, as perf
# script prints them then
: >empty.kallsyms
"$bin" replay p.data --kallsyms empty.kallsyms --db hex.db -q --no-progress 2>hex.err
tap_like "no symbols: a warning says so" "$(cat hex.err)" "no kernel symbol names its call sites"
tap_is "no symbols: call sites as addresses" \
	"$(sqlite3 hex.db "SELECT count(*) FROM sites WHERE call_site NOT LIKE '0xffffffff%' AND call_site != '(untraced)'") of $(sqlite3 hex.db "SELECT count(*) > 30 FROM sites")" "0 of 1"
"$bin" replay p.data --kallsyms missing.kallsyms --no-db -q --no-progress 2>miss.err
rc=$?
tap_is "a missing --kallsyms: exit 2" "$rc" 2
tap_like "a missing --kallsyms: named" "$(cat miss.err)" "missing.kallsyms: cannot read kernel symbols"

# files it cannot read
head -c 60000 p.data >cut.data
"$bin" replay cut.data --no-db -q --no-progress 2>cut.err
rc=$?
tap_is "a cut perf.data: exit 2" "$rc" 2
tap_like "a cut perf.data: named, and why" "$(cat cut.err)" "cut.data: perf.data: its data section runs past the end"
{ printf 'PERFILE2'; printf '\020\000\000\000\000\000\000\000'; head -c 200 /dev/zero; } >pipe.data
"$bin" replay pipe.data --no-db -q --no-progress 2>pm.err
tap_is "a pipe-mode perf.data: exit 2" "$?" 2
tap_like "a pipe-mode perf.data: says so" "$(cat pm.err)" "pipe.data: perf.data: a pipe-mode recording"
# a record of size 0 in the data section (its header's size field)
off=$(od -An -t u8 -j 40 -N 8 p.data | tr -d ' ')
cp p.data zero.data
printf '\000\000' | dd of=zero.data bs=1 seek=$((off + 6)) conv=notrunc 2>/dev/null
"$bin" replay zero.data --no-db -q --no-progress 2>zero.err
tap_is "a record of size 0: exit 2" "$?" 2
tap_like "a record of size 0: named, with its place" "$(cat zero.err)" "zero.data: perf.data: a record of size below 8 at byte 0"

tap_done
