#!/bin/sh
# golden.sh - replay a bundled trace into a fresh results database, compare
# the canonical dump (dump.sh) with tests/golden/expected/NAME.txt, and check
# the database against figures derived without slabsim: event and anomaly
# counts and the live set recomputed from the trace with awk, cache geometry
# against /sys values of a real 6.1 kernel or worked out by hand, and the
# accounting identities of docs/schema.md. TAP output.
#   $1 slabsim binary, $2 project source root, $3 case NAME (see ./cases)
set -u
bin=$1 root=$2 name=$3
here=$root/tests/golden
# shellcheck source=../cli/tap.sh
. "$root/tests/cli/tap.sh"
bin=$(abs_path "$bin")
LC_ALL=C
export LC_ALL
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

line=$(awk -v n="$name" '$1 == n' "$here/cases")
[ -n "$line" ] || { echo "Bail out! no case '$name' in $here/cases"; exit 1; }
# shellcheck disable=SC2086 # options are words
set -- $line
trace=$root/traces/samples/$2
shift 2
db=$tmp/golden.db

# ---- the dump against the expected file --------------------------------------

if sh "$here/dump.sh" "$bin" "$trace" "$db" "$@" > "$tmp/got.txt" 2> "$tmp/err"; then
	tap_ok "$name: replay and dump"
else
	tap_not_ok "$name: replay and dump" "$(cat "$tmp/err")"
	tap_done
	exit 1
fi
if diff -u "$here/expected/$name.txt" "$tmp/got.txt" > "$tmp/diff"; then
	tap_ok "$name: dump equals expected/$name.txt"
else
	tap_not_ok "$name: dump equals expected/$name.txt" \
		"$(head -n 200 "$tmp/diff")" \
		"($(wc -l < "$tmp/diff") diff lines.) If the change is intended, run tests/golden/update.sh" \
		"and explain in the commit/issue note why each figure moved (tests/golden/README.md)."
fi

q() { sqlite3 -batch -init /dev/null "$db" "$1"; }

# ---- counts recomputed from the trace ------------------------------------------

# The live set as the trace shows it: pointers pair allocations with frees;
# ptr 0 is kfree(NULL); a free of a pointer not allocated in the trace is
# unknown (the excerpt starts mid-boot).
from_trace=$(awk '
{
	for (i = 1; i <= NF; i++)
		if ($i ~ /^(kmalloc|kmalloc_node|kmem_cache_alloc|kmem_cache_alloc_node|kfree|kmem_cache_free):$/)
			break
	if (i > NF)
		next
	ev = substr($i, 1, length($i) - 1)
	n[ev]++
	ptr = ""
	req = 0
	for (j = i + 1; j <= NF; j++) {
		if ($j ~ /^ptr=/) ptr = substr($j, 5)
		else if ($j ~ /^bytes_req=/) req = substr($j, 11) + 0
	}
	if (ev ~ /alloc/) {
		if (ptr in live) again++
		live[ptr] = req
	} else if (ptr ~ /^(0x)?0+$/) {
		fnull++
	} else if (ptr in live) {
		delete live[ptr]
	} else {
		funknown++
	}
}
END {
	for (p in live) { nlive++; req_live += live[p] }
	printf "kmalloc=%d kmem_cache_alloc=%d kfree=%d kmem_cache_free=%d ", n["kmalloc"], n["kmem_cache_alloc"], n["kfree"], n["kmem_cache_free"]
	printf "free_null=%d free_unknown_ptr=%d alloc_of_live_ptr=%d live_objs=%d live_req_bytes=%d\n", fnull, funknown, again, nlive, req_live
}' "$trace")
tap_is "$name: awk over the trace gives the documented counts" "$from_trace" \
	"kmalloc=646 kmem_cache_alloc=1006 kfree=570 kmem_cache_free=778 free_null=53 free_unknown_ptr=42 alloc_of_live_ptr=0 live_objs=399 live_req_bytes=77778"
c() { echo "(SELECT count FROM counts WHERE tbl = '$1' AND kind = '$2')"; }
tap_is "$name: the database agrees with awk" "$(q "SELECT
	'kmalloc=' || $(c event kmalloc) || ' kmem_cache_alloc=' || $(c event kmem_cache_alloc) ||
	' kfree=' || $(c event kfree) || ' kmem_cache_free=' || $(c event kmem_cache_free) ||
	' free_null=' || $(c anomaly free_null) || ' free_unknown_ptr=' || $(c anomaly free_unknown_ptr) ||
	' alloc_of_live_ptr=' || $(c anomaly alloc_of_live_ptr) ||
	' live_objs=' || final_live_objs || ' live_req_bytes=' || final_live_req_bytes FROM runs")" "$from_trace"
tap_is "$name: no other anomaly" \
	"$(q "SELECT total(count) FROM counts WHERE tbl = 'anomaly'
		AND kind NOT IN ('free_null', 'free_unknown_ptr')")" "0.0"
# 646 + 1006 allocations; 570 + 778 frees less 53 NULL and 42 unknown.
tap_is "$name: sites add up to the allocations and the paired frees" \
	"$(q "SELECT sum(allocs), sum(frees), sum(live_objs), sum(live_req_bytes) FROM sites")" "1652|1253|399|77778"
tap_is "$name: root caches hold every live object (no large kmalloc left)" \
	"$(q "SELECT sum(live_objs), sum(live_req_bytes), (SELECT final_large_pages FROM runs) FROM caches WHERE alias_of IS NULL")" \
	"399|77778|0"

# ---- accounting identities (docs/schema.md) --------------------------------------

tap_is "$name: pages = slabs << slab_order, for every cache" \
	"$(q "SELECT group_concat(cache || ': ' || slabs || ' slabs of order ' || slab_order || ', ' || pages || ' pages', '; ')
		FROM caches WHERE pages <> slabs << slab_order OR peak_pages < pages")" ""
tap_is "$name: pages x 4096 = live + rounding + layout + free slots + tail, per cache" \
	"$(q "SELECT group_concat(cache, ' ') FROM caches WHERE alias_of IS NULL AND pages * 4096 <>
		live_req_bytes + waste_rounding + waste_layout + waste_free_slots + waste_tail")" ""
tap_is "$name: waste slots and tail from the geometry, per cache" \
	"$(q "SELECT group_concat(cache, ' ') FROM caches WHERE alias_of IS NULL AND (
		waste_free_slots <> (slabs * objs_per_slab - live_objs) * slab_size OR
		waste_tail <> slabs * ((4096 << slab_order) - objs_per_slab * slab_size) OR
		waste_layout <> live_objs * (slab_size - object_size) OR
		waste_rounding <> live_objs * object_size - live_req_bytes)")" ""
tap_is "$name: final slab pages = sum over root caches = the end sample" \
	"$(q "SELECT (SELECT final_slab_pages FROM runs) || ' ' || (SELECT sum(pages) FROM caches WHERE alias_of IS NULL)
		|| ' ' || (SELECT slab_pages FROM samples WHERE label = 'end')")" \
	"$(q "SELECT final_slab_pages || ' ' || final_slab_pages || ' ' || final_slab_pages FROM runs")"
tap_is "$name: the end sample's bytes add up" \
	"$(q "SELECT (slab_pages + large_pages) * 4096 = live_req_bytes + waste_rounding + waste_layout + waste_free_slots + waste_tail
		FROM samples WHERE label = 'end'")" "1"
tap_is "$name: alignment violations agree across tables" \
	"$(q "SELECT (SELECT align_violations FROM runs) || ' ' || (SELECT total(count) FROM violations) || ' ' ||
		(SELECT total(align_violations) FROM caches) || ' ' || (SELECT total(align_violations) FROM sites)")" \
	"$(q "SELECT align_violations || ' ' || align_violations || '.0 ' || align_violations || '.0 ' || align_violations || '.0' FROM runs")"

# ---- cache geometry from outside slabsim ------------------------------------------

# geometry CACHE...: "cache object_size slab_size align order objs_per_slab" rows
geometry() {
	for g_c in "$@"; do
		q "SELECT cache, object_size, slab_size, align, slab_order, objs_per_slab FROM caches WHERE cache = '$g_c'" |
			tr '|' ' '
	done
}
case $name in
boot-6.1-natural)
	# Every kmalloc cache of the run against /sys/kernel/slab of Debian's 6.1.
	kcaches=$(q "SELECT group_concat(cache, ' ') FROM (SELECT cache FROM caches WHERE kmalloc = 1 ORDER BY cache)")
	tap_is "$name: 15 kmalloc caches used (12 plain, 3 kmalloc-cg)" "$(echo "$kcaches" | wc -w | tr -d ' ')" 15
	# shellcheck disable=SC2086
	tap_is "$name: kmalloc geometry = the 6.1 kernel's /sys/kernel/slab" "$(geometry $kcaches)" \
		"$(awk -F'\t' -v want=" $kcaches " '
			FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			index(want, " " $1 " ") { print $1, $(c["object_size"]), $(c["slab_size"]), $(c["align"]), $(c["order"]), $(c["objs_per_slab"]) }
			' "$root/tests/data/linux-6.1-slab-attrs-default.tsv" | sort)"
	;;
boot-5.4-none-FZPU)
	# slub_debug=FZPU, 5.3 alignment (align 8), 2 CPUs (min_objects 12), worked
	# by hand with kernel-slab-rules.md 3.2/3.3: ALIGN(size, 8); Z adds a
	# word when there is no slack; P moves the free pointer out (+8); U adds
	# 2 x 152; Z adds the padding word (+8) and red_left_pad 8.
	#   kmalloc-8:   8 -> 16 -> 24 -> 328 -> 336 -> 344; order 1: 8192 % 344 = 280 <= 512, 23 objects
	#   kmalloc-16: 16 -> 24 -> 32 -> 336 -> 344 -> 352; order 1: 8192 % 352 = 96, 23
	#   kmalloc-64: 64 -> 72 -> 80 -> 384 -> 392 -> 400; order 1: 8192 % 400 = 192, 20
	#   kmalloc-96: 96 -> 104 -> 112 -> 416 -> 424 -> 432; order 1: 8192 % 432 = 416, 18
	#   kmalloc-1k: 1024 -> ... -> 1360; 12 x 1360 needs order 2: 16384 % 1360 = 64, 12
	#   kmalloc-2k: 2048 -> ... -> 2384; order 3: 32768 % 2384 = 1776 <= 2048, 13
	#   kmalloc-4k: 4096 -> ... -> 4432; min_objects min(12, 32768 / 4432 = 7) = 7,
	#               7 x 4432 needs order 3: 32768 % 4432 = 1744, 7
	tap_is "$name: slub_debug=FZPU kmalloc geometry worked by hand" \
		"$(geometry kmalloc-8 kmalloc-16 kmalloc-64 kmalloc-96 kmalloc-1k kmalloc-2k kmalloc-4k)" \
		"kmalloc-8 8 344 8 1 23
kmalloc-16 16 352 8 1 23
kmalloc-64 64 400 8 1 20
kmalloc-96 96 432 8 1 18
kmalloc-1k 1024 1360 8 2 12
kmalloc-2k 2048 2384 8 3 13
kmalloc-4k 4096 4432 8 3 7"
	# 5.4 has no kmalloc-cg-N: the accounted allocations of the 6.1 trace
	# (cg-8 2, cg-16 1, cg-192 2) land in the plain caches.
	tap_is "$name: no kmalloc-cg caches under 5.4" \
		"$(q "SELECT count(*) FROM caches WHERE cache LIKE 'kmalloc-cg-%'")" 0
	;;
esac

tap_done
