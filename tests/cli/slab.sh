#!/bin/sh
# slab.sh - the SLAB model (--allocator slab) through the CLI, on hand-made
# traces. Every expected figure is worked out by hand from the kernel rules
# (shared/reference/kernel-slab-rules.md section 4: 4.1-4.3 layout, 4.4
# arrays, free_limit and cache_reap; table 7.2); the working is in the
# comment above each check. TAP output.
#   $1 slabsim binary, $2 tests/cli/data
#
# Geometry (5.4, natural alignment): kmalloc-64 holds 64 objects per order-0
# slab, limit 120, batchcount 60; with 1 CPU no shared array and free_limit
# (1 + 1) * 60 + 64 = 184, with 2 CPUs (1 + 2) * 60 + 64 = 244.
# Time: jiffies = INITIAL_JIFFIES + t / 4 ms, INITIAL_JIFFIES = 46 mod 250.
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") data=$(abs_path "$2")
tap_scratch

# replay NAME TRACE ARGS...: replay TRACE with --allocator slab --check
# --format json (plus ARGS); one TAP line for "exit 0, quiet stderr".
replay() {
	r_name=$1 r_trace=$2
	shift 2
	rm -f "$tmp/slabinfo"
	"$bin" replay "$r_trace" --allocator slab --check --format json \
		--final-slabinfo "$tmp/slabinfo" "$@" > "$tmp/json" 2> "$tmp/err"
	tap_is "$r_name: replay exits 0, nothing on stderr" "$? $(cat "$tmp/err")" "0 "
}

cache_line() { grep -F "{\"name\": \"$1\"," "$tmp/json"; }
totals_line() { grep '^  "totals": ' "$tmp/json"; }

# fields LINE KEY...: "KEY=value ..." from one JSON line.
fields() {
	f_line=$1
	shift
	f_out=
	for f_key in "$@"; do
		f_out="$f_out${f_out:+ }$f_key=$(json_num "$f_line" "$f_key")"
	done
	printf '%s\n' "$f_out"
}

# slab_pages_at DB: "label: slab_pages" at each labelled sample, in order.
slab_pages_at() {
	sqlite3 "$1" "SELECT label || ': ' || slab_pages FROM samples
		WHERE label IS NOT NULL ORDER BY seq"
}

# slabinfo NAME: columns of the /proc/slabinfo 2.1 row of NAME.
slabinfo() {
	awk -v n="$1" '$1 == n { printf "active_objs=%s num_objs=%s objsize=%s objperslab=%s pagesperslab=%s\n", $2, $3, $4, $5, $6 }' \
		"$tmp/slabinfo"
}

# ---- (a) reaping: slab-reap.trace, 1 CPU ----------------------------------------

# The first 20 kmallocs: an untouched array refills 16 from a new slab
# (objects 0..15); the 17th refill is touched and takes the slab's other 48;
# 20 handed out, 44 in CPU 0's array. The 20 frees go to the array (64 <=
# limit 120): nothing returns to the slab, 1 page, all 64 objects "active".
awk '!/tracing_mark_write: s[23]/' "$data/slab-reap.trace" > "$tmp/burst.trace"
replay "(a) the burst alone" "$tmp/burst.trace" --no-db --kernel 5.4 --nr-cpus 1
# free slots = 1 page - 0 live - tail 0 = 4096 = (64 - 0) * 64
tap_is "(a) burst: 1 page, nothing live" \
	"$(fields "$(totals_line)" live_objects slab_pages peak_slab_pages large_pages free_slots)" \
	"live_objects=0 slab_pages=1 peak_slab_pages=1 large_pages=0 free_slots=4096"
tap_is "(a) burst: slabinfo counts the array's 64 as active" "$(slabinfo kmalloc-64)" \
	"active_objs=64 num_objs=64 objsize=64 objperslab=64 pagesperslab=1"

replay "(a) with markers 10 s and 20 s later" "$data/slab-reap.trace" --db "$tmp/a.db" \
	--kernel 5.4 --nr-cpus 1
# The timer starts at the first event (t = 1.000001 s, J0 = INITIAL + 250).
# CPU 0 reaps at round_jiffies(J0 + 250): 46 past a second rounds down, so
# INITIAL + 454 (t = 1.816 s), then every 2 s. kmalloc-64 (cache id 1) has
# its node part due at J0 + 1000 + 256 (t = 6.024 s).
#   1.816  array touched (allocations): only cleared
#   3.816  (120 + 4) / 5 = 24 of the 64 back to the slab (it keeps 40)
#   5.816  24 more (keeps 16)
#   7.816  16 < 24: 8 back (keeps 8); node part: free_touched (set when a
#          refill found slabs_partial empty) cleared, next node part 11.816
#   9.816  4 back (keeps 4)           -> s2 at 11 s: 1 page
#  11.816  2 back (keeps 2); node part: no free slab
#  13.816  1 back;  15.816  the last one back: the slab is free, and the node
#          part drains ceil(184 / (5 * 64)) = 1 slab from slabs_free
#                                      -> s3 at 21 s: 0 pages
tap_is "(a) reaping frees the slab between 11 s and 21 s" "$(slab_pages_at "$tmp/a.db")" \
	"s1 all freed: 1
s2 10 s later: 1
s3 20 s later: 0
end: 0"
tap_is "(a) totals at the end" "$(fields "$(totals_line)" live_objects slab_pages peak_slab_pages)" \
	"live_objects=0 slab_pages=0 peak_slab_pages=1"

# A marker at 17 s, between 15.816 (1 CPU: the slab goes) and 19.804 (2 CPUs).
awk '/tracing_mark_write: s3/ { print "            init-1       [000] .....    17.000000: tracing_mark_write: s2b 16 s later" } { print }' \
	"$data/slab-reap.trace" > "$tmp/reap17.trace"
replay "(a') 1 CPU, marker at 17 s" "$tmp/reap17.trace" --db "$tmp/a1.db" --kernel 5.4 --nr-cpus 1
tap_is "(a') 1 CPU: the slab is gone at 17 s" "$(slab_pages_at "$tmp/a1.db" | grep s2b)" \
	"s2b 16 s later: 0"
replay "(a') 2 CPUs, marker at 17 s" "$tmp/reap17.trace" --db "$tmp/a2.db" --kernel 5.4 --nr-cpus 2
# CPU 1 reaps 3 jiffies earlier in each second (round_jiffies' skew): at
# t = 1.804 + 2k s. So it runs kmalloc-64's node part first: at 7.804
# (clears free_touched), 11.804 and 15.804, when the slab is not yet free
# (CPU 0 gives the last object back at 15.816); the next node part, 19.804,
# drains ceil(244 / 320) = 1 slab.
tap_is "(a') 2 CPUs: the node part on CPU 1 frees the slab at 19.804 s" \
	"$(slab_pages_at "$tmp/a2.db")" \
	"s1 all freed: 1
s2 10 s later: 1
s2b 16 s later: 1
s3 20 s later: 0
end: 0"

# ---- (b) waste decomposition: dyn-d-waste.trace (written for SLUB) --------------

replay "(b) mixed trace" "$data/dyn-d-waste.trace" --no-db --kernel 5.4
# Live at the end, per cache (2 CPUs, natural):
#   kmalloc-32 (kmalloc(10) x 2; SLAB has no -8/-16): 124 per page (on-slab
#     freelist, left 4): rounding 2 * 22 = 44, free (124 - 2) * 32 = 3904,
#     tail 4096 - 124 * 32 = 128.
#   kmalloc-128 (kmalloc(100)): rounding 28, free 31 * 128 = 3968.
#   kmalloc-192 (kmalloc(150)): 21 per page, rounding 42, free 20 * 192 =
#     3840, tail 64.
#   test_obj (object 52, align 8 as inferred from the 56-byte SLUB slot):
#     slot 56; OBJFREELIST refused (4096 / 56 = 73 indexes > 52 bytes);
#     off-slab refused (73 -> kmalloc-96, 128 > 26; 146 -> kmalloc-192;
#     292 > 255); on-slab 4096 / 57 = 71, tail 4096 - 71 * 56 = 120.
#     layout 56 - 52 = 4, free (71 - 1) * 56 = 3920.
#   kmalloc-4k (kmalloc(3000)): order 0, 1 object: rounding 1096.
#   kmalloc-16k (kmalloc(10000)): SLAB has caches up to 4 MiB: order 2,
#     4 pages, rounding 16384 - 10000 = 6384; no large kmalloc.
# Totals: pages 1 + 1 + 1 + 1 + 1 + 4 = 9; live 13322 bytes; rounding
# 44 + 28 + 42 + 1096 + 6384 = 7594; layout 4; tail 128 + 64 + 120 = 312;
# free 3904 + 3968 + 3840 + 3920 = 15632; 13322 + 7594 + 4 + 15632 + 312 =
# 36864 = 9 * 4096.
tap_is "(b) totals" \
	"$(fields "$(totals_line)" live_objects live_req_bytes slab_pages large_pages rounding layout free_slots slab_tail)" \
	"live_objects=7 live_req_bytes=13322 slab_pages=9 large_pages=0 rounding=7594 layout=4 free_slots=15632 slab_tail=312"
tap_is "(b) test_obj: on-slab, 71 per page" \
	"$(fields "$(cache_line test_obj)" object_size slab_size objs_per_slab pages layout free_slots slab_tail)" \
	"object_size=52 slab_size=56 objs_per_slab=71 pages=1 layout=4 free_slots=3920 slab_tail=120"
tap_is "(b) kmalloc(10000) in kmalloc-16k" \
	"$(fields "$(cache_line kmalloc-16k)" order objs_per_slab pages rounding)" \
	"order=2 objs_per_slab=1 pages=4 rounding=6384"
# kmalloc-32: the first refill took 16 objects out of the slab (2 live, 1
# freed to CPU 1's array, 13 in CPU 0's): 124 - 108 free on the slab = 16.
tap_is "(b) slabinfo kmalloc-32" "$(slabinfo kmalloc-32)" \
	"active_objs=16 num_objs=124 objsize=32 objperslab=124 pagesperslab=1"
tap_is "(b) no misaligned kmalloc (every SLAB kmalloc cache is HWCACHE aligned)" \
	"$(fields "$(totals_line)" align_violations)" "align_violations=0"

# ---- (c) slabinfo's tunables and slabdata columns (get_slabinfo) -----------------

# slabdata NAME: the tunables and slabdata columns of NAME's slabinfo row.
slabdata() {
	awk -v n="$1" '$1 == n { printf "active_objs=%s limit=%s batchcount=%s shared=%s active_slabs=%s num_slabs=%s sharedavail=%s\n", $2, $9, $10, $11, $14, $15, $16 }' \
		"$tmp/slabinfo"
}
# The burst of (a), 1 CPU: limit 120, batchcount 60, and no shared array
# (enable_cpucache gives the shared factor 8 only with more than one
# possible CPU). The one slab holds the array's 64 objects: in use from the
# slab's side, so it is not on slabs_free: active_slabs 1.
replay "(c) the burst, 1 CPU" "$tmp/burst.trace" --no-db --kernel 5.4 --nr-cpus 1
tap_is "(c) 1 CPU: tunables 120 60 0, slabdata 1 1 0" "$(slabdata kmalloc-64)" \
	"active_objs=64 limit=120 batchcount=60 shared=0 active_slabs=1 num_slabs=1 sharedavail=0"
# (a') with 2 CPUs, cut at the 17 s marker: CPU 0 gave the last object back
# to the slab at 15.816 (it is on slabs_free), the node part that drains it
# runs at 19.804. So the slab is counted but not active: active_slabs 0 of
# 1, active_objs 64 - 64 free = 0; shared factor 8.
awk '{ print } /s2b 16 s later/ { exit }' "$tmp/reap17.trace" > "$tmp/cut17.trace"
replay "(c) 2 CPUs, cut at 17 s" "$tmp/cut17.trace" --no-db --kernel 5.4 --nr-cpus 2
tap_is "(c) a free slab: active_slabs 0 of 1, tunables 120 60 8" "$(slabdata kmalloc-64)" \
	"active_objs=0 limit=120 batchcount=60 shared=8 active_slabs=0 num_slabs=1 sharedavail=0"
# 121 kmalloc(64) then 121 kfree on CPU 0 (2 CPUs): the 121st free finds
# CPU 0's array full (avail = limit = 120); cache_flusharray moves
# batchcount = 60 objects to the shared array (limit 8 * 60 = 480, room for
# all 60): sharedavail 60.
awk 'BEGIN {
	print "# tracer: nop"
	for (i = 0; i < 121; i++)
		printf "            init-1       [000] .....     1.%06d: kmalloc: call_site=f+0x1/0x2 ptr=%016x bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false\n", i, 4096 + i
	for (i = 0; i < 121; i++)
		printf "            init-1       [000] .....     1.%06d: kfree: call_site=g+0x1/0x2 ptr=%016x\n", 500 + i, 4096 + i
}' > "$tmp/flush.trace"
replay "(c) 121 frees on one CPU" "$tmp/flush.trace" --no-db --kernel 5.4 --nr-cpus 2
tap_is "(c) the array flushed 60 objects into the shared array" \
	"$(slabdata kmalloc-64 | sed 's/.*shared=/shared=/; s/ active_slabs=[0-9]* num_slabs=[0-9]*//')" \
	"shared=8 sharedavail=60"

tap_done
