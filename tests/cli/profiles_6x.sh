#!/bin/sh
# The newer kernel profiles at the command line: --config switches in
# `slabsim layout`, the profile's default --align and a what-if said by the
# summary. TAP output.
#   $1 slabsim binary, $2 a small 6.1 trace, $3 a capture of a 6.18 kernel
set -u
bin=$1 trace=$2 cap618=${3:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
tap() { # tap NAME GOT WANT
	n=$((n + 1))
	if [ "$2" = "$3" ]; then echo "ok $n - $1"; else
		echo "not ok $n - $1 # got '$2', want '$3'"
		echo "not ok $n - $1 # got '$2', want '$3'" >&2
		fail=$((fail + 1))
	fi
}
col() { # col FILE CACHE COLUMN
	awk -F'\t' -v c="$2" -v k="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$1 == c { print $(h[k]) }' "$1"
}
"$bin" layout --kernel 6.18 --format tsv >"$tmp/d"
tap "6.18 default: kmalloc-96 align 32 (pow2-divisor)" "$(col "$tmp/d" kmalloc-96 align)" 32
tap "6.18 default: 52 kmalloc caches" "$(($(wc -l <"$tmp/d") - 1))" 52
"$bin" layout --kernel 6.6 --format tsv >"$tmp/d66"
tap "6.6 default: kmalloc-96 align 8 (natural)" "$(col "$tmp/d66" kmalloc-96 align)" 8
"$bin" layout --kernel 6.18 --align natural --format tsv >"$tmp/n"
tap "6.18 --align natural: kmalloc-192 align 8" "$(col "$tmp/n" kmalloc-192 align)" 8
"$bin" layout --kernel 6.12 --config SLUB_TINY=y --format tsv >"$tmp/t"
tap "SLUB_TINY: no kmalloc-rcl-N" "$(grep -c '^kmalloc-rcl-' "$tmp/t")" 0
tap "SLUB_TINY: min_partial 0" "$(col "$tmp/t" kmalloc-4k min_partial)" 0
tap "SLUB_TINY: cpu_partial 0" "$(col "$tmp/t" kmalloc-64 cpu_partial)" 0
# slub_max_order 1: kmalloc-8k (order 3 otherwise) takes get_order(8192) = 1
tap "SLUB_TINY: kmalloc-8k order 1" "$(col "$tmp/t" kmalloc-8k order)" 1
"$bin" layout --kernel 6.18 --config CONFIG_ZONE_DMA=n --config MEMCG=n --format tsv >"$tmp/z"
tap "ZONE_DMA=n MEMCG=n: 26 caches" "$(($(wc -l <"$tmp/z") - 1))" 26
"$bin" layout --config SLUB_TINY=maybe >/dev/null 2>"$tmp/e"
tap "--config bad value: exit 1" "$?" 1
tap "--config bad value: message" "$(head -c 61 "$tmp/e")" \
	"slabsim: --config expects SWITCH=y or SWITCH=n, SWITCH one of"
"$bin" replay "$trace" --kernel 6.18 --allocator slab --no-db >"$tmp/r" 2>/dev/null
tap "SLAB on 6.18: the summary says what-if" \
	"$(grep -c '^what-if (no such kernel): SLAB was removed in Linux 6.8' "$tmp/r")" 1
tap "SLAB on 6.18: align pow2-divisor" "$(grep -c 'align pow2-divisor' "$tmp/r")" 1
"$bin" replay "$trace" --kernel 6.1 --align none --no-db >"$tmp/r61" 2>/dev/null
tap "6.1 --align none: no what-if line" "$(grep -c '^what-if' "$tmp/r61")" 0
if [ -n "${ASAN_OPTIONS:-}" ] && [ "${SLABSIM_HEAVY_SANITIZED:-0}" != 1 ]; then
	# under the sanitizers a whole machine's start state (2.5 M objects)
	# takes longer than the timeout: the plain pass runs these two
	n=$((n + 1)); echo "ok $n # SKIP 6.18 trace alone, under the sanitizers"
	n=$((n + 1)); echo "ok $n # SKIP 6.18 capture, under the sanitizers"
else
# a 6.18 trace alone: its kmem_cache_alloc events print name= (6.12's do
# not), so the trace says 6.18; the capture's uname says so too, and the
# model's slot size equals the traced bytes_alloc on every allocation
"$bin" replay "$cap618/trace.txt.zst" --no-db --no-progress >"$tmp/r1" 2>&1
tap "6.18 trace alone: profile 6.18 from its name= fields" \
	"$(grep -c '^kernel from the trace (kmem_cache_alloc name= fields: Linux 6.18+)' "$tmp/r1") $(grep -c '^allocator slub, kernel 6.18, align pow2-divisor' "$tmp/r1")" "1 1"
"$bin" replay "$cap618" --no-db --no-progress >"$tmp/r2" 2>&1
tap "6.18 capture: profile 6.18, bytes_alloc equal on every allocation" \
	"$(grep -c '^allocator slub, kernel 6.18' "$tmp/r2") $(grep -o 'differs on [0-9]* allocations' "$tmp/r2")" \
	"1 differs on 0 allocations"
fi
echo "1..$n"
[ "$fail" -eq 0 ]
