#!/bin/sh
# summary.sh - what the command line prints for the engine (issue 25): the
# engine itself prints nothing (no stdio output in sim/ outside sim/cli/,
# and sim/run/validate.c only notes);
# JSON strings are valid UTF-8 whatever bytes a call site holds; the
# summary says where a replay started (a capture directory against its
# trace file alone); replay --help and the manual page name every input
# format. TAP output.
#   $1 slabsim binary, $2 the source tree, $3 tests/bad/data, $4 the built
#   slabsim.1
set -u
bin=$1 src=$2 data=$3 page=$4
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$bin")
src=$(abs_path "$src")
data=$(abs_path "$data")
page=$(abs_path "$page")
tap_scratch

# ---- the engine prints nothing ----
# stdio writes of any kind (snprintf into a buffer is not output)
hits=$(cd "$src" && find sim -path sim/cli -prune -o -name '*.[ch]' -print | sort |
	xargs grep -nE '\b(printf|fprintf|vfprintf|fputs|fputc|putc|putchar|puts|fwrite|perror)\(|\b(stdout|stderr)\b|FILE \*' |
	grep -v '^sim/base/json\.[ch]:' | grep -v '^sim/run/' )
tap_is "no stdio output in the engine (sim/ outside sim/cli and sim/run)" "$hits" ""
# sim/run/ prints no report either (sim/cli/validate_report.c and
# phases.c do, over validate.h's struct val_report and val_phases_*). What
# stays, the exceptions: notes written during the run to the caller's
# stream (FILE *notes, o->notes, c->notes: stderr from the command line,
# NULL under -q), a JSON fragment written into a buffer (fmemopen), and
# files opened for reading.
vhits=$(cd "$src" && grep -nE '\b(printf|fprintf|vfprintf|fputs|fputc|putc|putchar|puts|fwrite|perror)\(|\b(stdout|stderr)\b|FILE \*' sim/run/*.[ch] |
	grep -vE 'fprintf\(((o|c)->)?notes,|FILE \*notes\b|FILE \*f = fmemopen\(|fprintf\(f, |FILE \*[a-z]+ = fopen\([a-z]+, "r"\)')
tap_is "sim/run/ prints no report (only notes to the caller's stream)" "$vhits" ""

# ---- JSON strings are valid UTF-8 ----
utf=$data/callsite-invalid-utf8.trace
"$bin" replay "$utf" --no-db --no-progress --format json --caller > u.json
tap_is "replay exits 0 on call sites with invalid UTF-8" "$?" "0"
# the well-formed sequences (é, €) pass as they are; every other byte (ff,
# fe; ed a0 80: a surrogate; c0 af: an overlong '/') becomes \ufffd
tap_like "invalid bytes become \\ufffd, one per byte" "$(cat u.json)" \
	'"callsite": "m_é€\ufffd\ufffd\ufffd\ufffd\ufffd+0x1/0x10"'
tap_like "a lone 0xff 0xfe" "$(cat u.json)" '"callsite": "m_\ufffd\ufffd+0x1/0x10"'
if command -v python3 > /dev/null 2>&1; then
	r=$(python3 -c 'import json,sys; json.loads(sys.stdin.buffer.read().decode("utf-8")); print("valid")' < u.json 2>&1)
	tap_is "a strict parser (python3, bytes decoded as UTF-8) takes the JSON" "$r" "valid"
elif command -v jq > /dev/null 2>&1; then
	r=$(jq -e . < u.json > /dev/null 2>&1 && echo valid)
	tap_is "a strict parser (jq) takes the JSON" "$r" "valid"
else
	tap_skip "a strict parser takes the JSON" "neither python3 nor jq is installed"
fi
# a byte-level check that needs neither: no byte >= 0x80 outside a
# well-formed sequence (iconv refuses invalid UTF-8)
if command -v iconv > /dev/null 2>&1; then
	r=$(iconv -f UTF-8 -t UTF-8 < u.json > /dev/null 2>&1 && echo valid)
	tap_is "iconv -f UTF-8 reads the JSON without error" "$r" "valid"
else
	tap_skip "iconv -f UTF-8 reads the JSON" "no iconv"
fi

# ---- where the replay started ----
# (3286: the slab counts of slab-attrs-start.tsv, read after slabinfo-start.txt, which has 3277: issue 26)
cap=$src/traces/samples/workload-only/linux-6.1-qemu-2cpu-work
out=$("$bin" replay "$cap" --no-db --no-progress 2> /dev/null)
tap_like "replay DIR: its start is the capture's recorded state" "$out" \
	"start: the capture's recorded state, 3286 slabs in 145 caches (slabinfo-start.txt, slab-attrs-start.tsv); replay its trace file alone for an empty start"
out=$("$bin" replay "$cap" --no-db --no-progress --format json 2> /dev/null)
tap_like "replay DIR --format json: its \"start\" member" "$out" \
	'"start": {"state": "capture", "caches": 145, "slabs": 3286, "note": '
out=$("$bin" replay "$cap" --empty-start --no-db --no-progress 2> /dev/null)
tap_like "replay DIR --empty-start: the recorded caches, no object" "$out" \
	"start: no object, the recorded kernel's 145 caches created first (the capture's slabinfo: its geometry and merging), its recorded state left out (--empty-start)"
# the 2-CPU capture without a start state: 3925 pages from the directory,
# 3934 from its trace file, and each summary says why
cap2=$src/traces/samples/linux-6.1-qemu-2cpu
out=$("$bin" replay "$cap2" --no-db --no-progress 2> /dev/null)
tap_like "replay DIR without a start state: 3925 slab pages" "$out" "slab pages 3925 at the end"
tap_like "... created the recorded kernel's caches first" "$out" \
	"start: no object, the recorded kernel's 145 caches created first (the capture's slabinfo: its geometry and merging); replay its trace file alone for caches created as the trace names them"
cd "$src" || exit 1
out=$("$bin" replay traces/samples/linux-6.1-qemu-2cpu/trace.txt.zst --no-db --no-progress 2> /dev/null)
cd "$tmp" || exit 1
tap_like "its trace file alone: 3934 slab pages" "$out" "slab pages 3934 at the end"
tap_like "... says where its configuration came from" "$out" \
	"kernel from the trace (accounted= fields: Linux 5.19+); nr_cpus from the trace's header"
tap_like "... and that the directory starts otherwise" "$out" \
	"start: empty, 52 caches (the model's own) before the trace, the others created as it names them; configured from the trace and the options alone: replay the capture directory traces/samples/linux-6.1-qemu-2cpu for its recorded caches, start state and configuration"
out=$("$bin" replay "$src/traces/samples/linux-6.1-boot-excerpt.trace" --no-db --no-progress 2> /dev/null)
case $out in *"start:"*) r=printed ;; *) r=none ;; esac
tap_is "a trace outside any capture: no start line" "$r" "none"

# ---- every input format is documented ----
help=$("$bin" replay --help)
man=$(groff -man -Tutf8 -ww "$page" 2> /dev/null | col -b 2> /dev/null || cat "$page")
for w in "tracefs text" "trace-cmd report" "trace.dat" "perf script" "gzip, xz, zstd or bzip2" \
	".gz .xz .zst .bz2" "CAPTURE_DIR" "'-', FIFO, <(...)"; do
	tap_like "replay --help names $w" "$help" "$w"
	tap_like "the manual page names $w" "$man" "$w"
done
tap_like "the manual page says what becomes of invalid UTF-8" "$(cat "$page")" \
	"U+FFFD REPLACEMENT CHARACTER, one per byte"
tap_done
