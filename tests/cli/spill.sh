#!/bin/sh
# spill.sh - replay's one-read path: the name pass keeps the events it parsed
# in an unlinked file in $TMPDIR (traces/evarr.h, evarr_spill_open) and the
# replay reads them back. Its output is byte for byte that of reading the
# trace twice (--no-spill): JSON summaries, the --caller table, the results
# database (tests/golden/dump.sh), on the bundled traces, the compressed
# capture directories and the hand-made CLI traces. When the spill file
# cannot be created or written (no $TMPDIR, a file size limit standing in
# for a full disk) the replay says so and reads the trace again: same
# output, exit 0. TAP.
#   $1 slabsim binary, $2 traces/samples, $3 tests/cli/data, $4 tests/golden,
#   $5 tests/bench/gen-trace.awk
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") samples=$(abs_path "$2") data=$(abs_path "$3") golden=$(abs_path "$4")
gen=$(abs_path "$5")
tap_scratch
TMPDIR=$tmp
export TMPDIR

# same NAME INPUT ARGS...: spilled and --no-spill outputs are identical, and
# the spilled run did not fall back (no note on stderr).
same() {
	s_name=$1 s_in=$2
	shift 2
	"$bin" replay "$s_in" --no-db --no-progress --no-spill "$@" >twice.out 2>twice.err
	t_rc=$?
	"$bin" replay "$s_in" --no-db --no-progress "$@" >once.out 2>once.err
	o_rc=$?
	if [ "$t_rc" -eq 0 ] && [ "$o_rc" -eq 0 ] && [ -s once.out ] && ! grep -q "note:" once.err &&
		cmp -s twice.out once.out; then
		tap_ok "$s_name: one read, output identical to reading twice"
	else
		tap_not_ok "$s_name: one read, output identical to reading twice" \
			"exit $o_rc (twice: $t_rc)" "$(cat once.err)" \
			"$(diff twice.out once.out | head -5)"
	fi
}

boot=$samples/linux-6.1-boot-excerpt.trace
same "boot excerpt" "$boot" --format json
same "boot excerpt --caller" "$boot" --caller
same "boot excerpt, SLAB" "$boot" --format json --allocator slab
same "boot excerpt, SLOB" "$boot" --format json --allocator slob
same "boot excerpt, no prefetch" "$boot" --format json --no-prefetch
for d in "$samples"/*/; do
	[ -f "$d/trace.txt.zst" ] || continue
	same "capture $(basename "$d") (zstd)" "$d" --format json
done
same "capture-a" "$data/capture-a" --format json
# 30000 events, 5.4 MB: parsed in 2 MiB chunks by two threads (--parse-threads),
# whose line counts the spilled array must keep
awk -v n=30000 -f "$gen" "$boot" >big.trace || exit 1
same "30000 events, 2 parser threads" big.trace --format json --parse-threads 2
same "30000 events, 1 parser thread" big.trace --format json --parse-threads 1
for t in dyn-b-remote-free perf-hand jw-hand slab-reap dyn-f-alias-grows dyn-g-named-kmalloc; do
	same "$t" "$data/$t.trace" --format json
done

# every table of the results database
sh "$golden/dump.sh" "$bin" "$boot" once.db >once.dump 2>&1
o_rc=$?
sh "$golden/dump.sh" "$bin" "$boot" twice.db --no-spill >twice.dump 2>&1
t_rc=$?
if [ "$o_rc" -eq 0 ] && [ "$t_rc" -eq 0 ] && grep -q "sample_caches" once.dump &&
	cmp -s once.dump twice.dump; then
	tap_ok "boot excerpt: database rows identical to reading twice"
else
	tap_not_ok "boot excerpt: database rows identical to reading twice" \
		"exit $o_rc (twice: $t_rc)" "$(diff twice.dump once.dump | head -5)"
fi

# fallbacks: the note, then the same output
"$bin" replay "$boot" --no-db --no-progress --format json --no-spill >ref.out 2>/dev/null
TMPDIR=$tmp/none "$bin" replay "$boot" --no-db --no-progress --format json >nodir.out 2>nodir.err
tap_is "no \$TMPDIR: exit 0, output of reading twice" "$? $(cmp -s ref.out nodir.out && echo same)" "0 same"
tap_is "no \$TMPDIR: the note says why" "$(cat nodir.err)" \
	"slabsim: note: $tmp/none: cannot create a temporary file: No such file or directory; reading the trace again"
# 3000 events are 96000 bytes of spill; a 50 KiB file size limit stops the
# write (EFBIG, SIGXFSZ ignored) as a full disk would
(
	trap '' XFSZ
	ulimit -f 50
	exec "$bin" replay "$boot" --no-db --no-progress --format json >full.out 2>full.err
)
tap_is "spill file cannot be written: exit 0, output of reading twice" \
	"$? $(cmp -s ref.out full.out && echo same)" "0 same"
tap_like "spill file cannot be written: the note says why" "$(cat full.err)" \
	"cannot write the parsed events to a temporary file: File too large; reading the trace again"
"$bin" replay "$boot" --no-db --no-progress --format json -q >quiet.out 2>quiet.err
TMPDIR=$tmp/none "$bin" replay "$boot" --no-db --no-progress -q >/dev/null 2>quiet.err
tap_is "-q: no note" "$(wc -c <quiet.err)" 0
tap_done
