#!/bin/sh
# name-threads.sh - the name pass read in byte ranges on several threads
# (replay --name-threads N, sim/learn.c) gives byte for byte the output of
# the serial pass (--name-threads 1): the JSON summary of every bundled
# trace, the capture directories (their trace.txt.zst decompressed into a
# copy of the directory, so that the plain file is split) and the hand-made
# CLI traces, the --caller table (call-site ids) of the boot excerpt. TAP.
#   $1 slabsim binary, $2 traces/samples, $3 tests/cli/data
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") samples=$(abs_path "$2") data=$(abs_path "$3")
tap_scratch

# same NAME INPUT ARGS...: the output with 2, 3, 4 and 7 threads is the
# serial one.
same() {
	s_name=$1 s_in=$2
	shift 2
	"$bin" replay "$s_in" --no-db --no-progress --name-threads 1 "$@" >serial.out 2>&1
	s_rc=$?
	for n in 2 3 4 7; do
		"$bin" replay "$s_in" --no-db --no-progress --name-threads "$n" "$@" >par.out 2>&1
		p_rc=$?
		if [ "$s_rc" -eq 0 ] && [ "$p_rc" -eq 0 ] && cmp -s serial.out par.out; then
			tap_ok "$s_name: $n threads, output identical to the serial pass"
		else
			tap_not_ok "$s_name: $n threads, output identical to the serial pass" \
				"exit $p_rc (serial $s_rc)" "$(diff serial.out par.out | head -5)"
		fi
	done
}

boot=$samples/linux-6.1-boot-excerpt.trace
same "boot excerpt" "$boot" --format json
same "boot excerpt --caller" "$boot" --caller
same "boot excerpt, SLAB" "$boot" --format json --allocator slab
# the comparison means something: without the name pass the summary differs
"$bin" replay "$boot" --no-db --no-progress --format json >with.out 2>&1
"$bin" replay "$boot" --no-db --no-progress --format json --no-name-pass >without.out 2>&1
if cmp -s with.out without.out; then
	tap_not_ok "boot excerpt: the name pass changes the summary"
else
	tap_ok "boot excerpt: the name pass changes the summary"
fi

for d in "$samples"/*/; do
	[ -f "$d/trace.txt.zst" ] || continue
	c=$(basename "$d")
	cp -r "$d" "$c" && rm -f "$c/trace.txt.zst" &&
		zstd -dcq "$d/trace.txt.zst" >"$c/trace.txt" || exit 1
	same "capture $c" "$c" --format json
	rm -rf "$c"
done
same "capture-a" "$data/capture-a" --format json
for t in dyn-b-remote-free perf-hand jw-hand slab-reap dyn-f-alias-grows; do
	same "$t" "$data/$t.trace" --format json
done

# ---- the prefetch's strings live in reused block buffers -------------------
# 20000 kmem_cache_alloc of one key, each freed at once: the first 10000 frees
# name cache A (the name pass learns A), the last 10000 name B. Every B free
# is of an object in A: 10000 "free_names_other_cache". The pattern repeats
# with equal string lengths, so a B name lands at an address where an A name
# was in an earlier block (blocks of 4096 events go round a ring): comparing
# the names by address would skip them.
awk 'BEGIN {
	print "# tracer: nop"
	for (i = 0; i < 20000; i++) {
		printf "            init-1       [000] .....     1.%06d: kmem_cache_alloc: call_site=f+0x1/0x2 ptr=%016x bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false\n", 2 * i, 4096 + i
		printf "            init-1       [000] .....     1.%06d: kmem_cache_free: call_site=g+0x1/0x2 ptr=%016x name=%s\n", 2 * i + 1, 4096 + i, i < 10000 ? "A" : "B"
	}
}' >names-ab.trace
# (the default copies the events into its spill file as the name pass reads
# them; --no-spill replays from the prefetch's blocks themselves)
for pf in "" --no-spill --no-prefetch; do
	"$bin" replay names-ab.trace --no-db --no-progress --format json $pf >ab.json 2>&1
	tap_is "named frees of another cache, ${pf:-spilled}: all 10000 counted" \
		"$? $(grep -o '"free_names_other_cache": [0-9]*' ab.json | head -n 1)" "0 \"free_names_other_cache\": 10000"
done

"$bin" replay "$boot" --no-db --name-threads 0 >/dev/null 2>err.out
tap_is "--name-threads 0 is a usage error" "$?" 1
tap_done
