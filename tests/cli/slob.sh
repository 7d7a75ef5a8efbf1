#!/bin/sh
# slob.sh - the SLOB model through the CLI: the hand-made 5.4 trace
# tests/cli/data/slob-a.trace under --align none, natural and cap512, and the
# bundled boot excerpt replayed with --check. Every expected figure is worked
# out by hand from shared/reference/kernel-slab-rules.md section 5 (SLOB:
# 2-byte units, first fit with align/align_offset, list rotation, slob_free)
# in the comment above its check. TAP output.
#   $1 slabsim binary, $2 tests/cli/data, $3 the bundled boot trace
#
# The trace (5.4, so the kmalloc_node / kmem_cache_alloc_node events SLOB
# fires): 33 kmalloc(64) (block 72 bytes = 36 units, small list), 3
# kmem_cache_alloc of an unnamed 200-byte cache (100 units, align 8, small),
# kmalloc(1024) (1032 bytes = 516 units, large list), kmalloc(4096) (whole
# page); then kfree(4096), kfree of kmalloc(64) 0..9, kmem_cache_free of
# cache object 1, kfree(1024). Live at the end in every case: 23 kmalloc(64)
# and 2 cache objects = 25 objects, 23 * 64 + 2 * 200 = 1872 bytes; layout
# waste = 23 headers of 8 = 184; no unit rounding (72 and 200 are even).
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") data=$(abs_path "$2") boot=$(abs_path "$3")
tap_scratch

# replay NAME TRACE ARGS...: replay with the SLOB model, --check and JSON.
replay() {
	r_name=$1 r_trace=$2
	shift 2
	"$bin" replay "$r_trace" --allocator slob --check --no-db --format json "$@" \
		> "$tmp/json" 2> "$tmp/err"
	tap_is "$r_name: replay exits 0, nothing on stderr" "$? $(cat "$tmp/err")" "0 "
}

totals_line() { grep '^  "totals": ' "$tmp/json"; }
cache_line() { grep -F "{\"name\": \"$1\"," "$tmp/json"; }

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

totals() {
	fields "$(totals_line)" live_objects live_req_bytes slab_pages peak_slab_pages large_pages \
		rounding layout free_slots slab_tail align_violations bytes_alloc_mismatches
}

# ---- --align none (5.3) ------------------------------------------------------

replay "none" "$data/slob-a.trace" --kernel 5.4 --align none
# Blocks are 8-aligned with no offset: kmalloc(64) k at 72 k, object at
# 72 k + 8 (the first, on a fresh page, at 8: misaligned). Object k is
# 64-aligned iff 8 k + 8 = 0 mod 64, k = 7, 15, 23, 31: 29 of 33 violate.
# The cache objects follow at 2376, 2576, 2776 (free {2976, 560 units}).
# kmalloc(1024) takes a fresh page of the large list, object at 8: one more
# violation (30); 2 slab pages at the peak. kmalloc(4096) is a whole page
# (large, page-aligned) and goes back at once. Frees: objects 0..9 merge into
# {0, 360}; cache object 1 at 2576 touches no free block: {2576, 100};
# kfree(1024) empties its page, which goes back. End: 1 page, free =
# (360 + 100 + 560) * 2 = 2040 = 4096 - 1872 - 184.
tap_is "none: totals" "$(totals)" \
	"live_objects=25 live_req_bytes=1872 slab_pages=1 peak_slab_pages=2 large_pages=0 rounding=0 layout=184 free_slots=2040 slab_tail=0 align_violations=30 bytes_alloc_mismatches=0"
# Small kmallocs are kept under the "kmalloc" pseudo-cache; SLOB caches own
# no pages (slab_size 0, pages 0): free space is only a total.
tap_is "none: the kmalloc pseudo-cache" \
	"$(fields "$(cache_line kmalloc)" live_objects live_req_bytes pages layout align_violations)" \
	"live_objects=23 live_req_bytes=1472 pages=0 layout=184 align_violations=30"
tap_is "none: the 200-byte cache" \
	"$(fields "$(cache_line :unnamed-200-200)" object_size slab_size align live_objects pages)" \
	"object_size=200 slab_size=0 align=8 live_objects=2 pages=0"

# ---- --align natural (5.4) ---------------------------------------------------

replay "natural" "$data/slob-a.trace" --kernel 5.4 --align natural
# kmalloc(64) blocks are placed so that block + 8 is 64-aligned: block k of
# a page at 56 + 128 k, object at 64 + 128 k, each leaving a 28-unit fragment
# below it; 32 per page, then no 64-aligned object fits the fragments: the
# 33rd takes a fresh page P2 (object at 64, free {0,28} {128,1984}), now the
# list head. The cache objects go to P2 at 128, 328, 528 (free {0,28}
# {728,1684}). kmalloc(1024): a fresh large-list page, object at 1024. Peak
# 3 slab pages, no violation. Frees: objects 0..9 of P1 merge with the
# fragments around them into {0, 668}, 21 fragments remain: 668 + 21 * 28 =
# 1256 units; cache object 1 at 328 -> P2 has 28 + 100 + 1684 = 1812; the
# 1024 page goes back. End: 2 pages, free = (1256 + 1812) * 2 = 6136 =
# 8192 - 1872 - 184.
tap_is "natural: totals" "$(totals)" \
	"live_objects=25 live_req_bytes=1872 slab_pages=2 peak_slab_pages=3 large_pages=0 rounding=0 layout=184 free_slots=6136 slab_tail=0 align_violations=0 bytes_alloc_mismatches=0"

# ---- --align cap512 ----------------------------------------------------------

replay "cap512" "$data/slob-a.trace" --kernel 5.4 --align cap512
# kmalloc(64) and the cache objects as under natural (64 <= 512). kmalloc(1024)
# is aligned to 512 only: on its fresh page the block starts at
# ALIGN(8, 512) - 8 = 504, the object at 512, which is not 1024-aligned: one
# violation. Pages as under natural.
tap_is "cap512: totals" "$(totals)" \
	"live_objects=25 live_req_bytes=1872 slab_pages=2 peak_slab_pages=3 large_pages=0 rounding=0 layout=184 free_slots=6136 slab_tail=0 align_violations=1 bytes_alloc_mismatches=0"

# ---- the bundled 6.1 boot excerpt --------------------------------------------

# A SLUB trace replayed through SLOB: no expected page count by hand, but the
# invariant walk after every event must stay quiet under every policy, the
# waste must add up to the pages, and natural alignment must leave no
# violation.
for align in none natural cap512; do
	replay "boot excerpt, $align" "$boot" --kernel 6.1 --align "$align"
	tap_is "boot excerpt, $align: slab bytes = live + rounding + layout + free + tail" \
		"$(fields "$(totals_line)" slab_pages large_pages live_req_bytes rounding layout free_slots slab_tail |
			awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			print (v["slab_pages"] + v["large_pages"]) * 4096 == v["live_req_bytes"] + v["rounding"] + v["layout"] + v["free_slots"] + v["slab_tail"] }')" \
		"1"
	[ "$align" = natural ] &&
		tap_is "boot excerpt, natural: no violations" \
			"$(fields "$(totals_line)" align_violations)" "align_violations=0"
done

tap_done
