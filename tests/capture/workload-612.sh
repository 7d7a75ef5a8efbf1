#!/bin/sh
# workload-612.sh - a bundled workload-only capture of a Linux 6.12 kernel
# built by build-kernel --version 6.12 with RANDOM_KMALLOC_CACHES or
# SLUB_TINY (traces/samples/workload-only/, issue 26), validated:
# - random kmalloc caches: capture-info.txt has the seed qemu-boot read,
#   system-map.txt the call sites' functions; validate takes both, lays out
#   every cache in slab-attrs.tsv as the kernel did (the 16 copies of every
#   kmalloc size included), and pages over time stay within 0.05 of the
#   swing;
# - SLUB_TINY: no /proc/slabinfo, no /sys/kernel/slab (SLUB_DEBUG depends on
#   !SLUB_TINY): validate compares /proc/meminfo's Slab: over time within
#   0.05 of the swing, and the replay's slot size equals every traced
#   bytes_alloc (the layout the trace shows).
# TAP output.
#   $1 slabsim binary, $2 the capture directory, $3 rnd or tiny
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") cap=$(abs_path "$2") kind=$3
tap_scratch

info=$cap/capture-info.txt
tap_is "capture-info: workload-only, start state after arming" \
	"$(sed -n 's/^mode=//p; s/^start_snapshot=//p' "$info" | tr '\n' ' ')" "workload after-arming "
tap_like "a 6.12 kernel of build-kernel" "$(cat "$cap/uname.txt")" " 6.12."
tap_is "no lost events" "$(awk '/ (overrun|commit overrun|dropped events): / {n += $NF} END {print n + 0}' "$cap/lost-events.txt")" "0"

# figures: "key": number (json_num takes whole numbers only)
num() { printf '%s\n' "$1" | sed -n "s/.*\"$2\": *\\([0-9.][0-9.e-]*\\).*/\\1/p" | head -n 1; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }'; }

case $kind in
rnd)
	seed=$(sed -n 's/^random_kmalloc_seed=//p' "$info")
	tap_like "capture-info.txt has the seed qemu-boot read" "$seed" "0x"
	tap_is "the seed is 16 hex digits" "$(printf '%s' "$seed" | grep -c '^0x[0-9a-f]\{16\}$')" "1"
	tap_is "system-map.txt: System.map lines" \
		"$(awk 'NF != 3 || length($1) != 16 || $1 !~ /^ffffffff[0-9a-f]*$/ {bad++} END {print (NR > 0), bad + 0}' "$cap/system-map.txt")" "1 0"
	tap_is "slab-attrs.tsv: 15 random copies of kmalloc-64" \
		"$(cut -f1 "$cap/slab-attrs.tsv" | grep -c '^kmalloc-rnd-[0-9][0-9]-64$')" "15"
	"$bin" validate "$cap" --no-db --format json -o v.json 2>notes
	tap_is "validate: exit 0" "$?" "0"
	tap_like "validate takes the capture's seed" "$(cat notes)" \
		"capture: random kmalloc copies: seed $seed (capture-info.txt), callers from system-map.txt"
	v=$(tr -d '\n' <v.json)
	tap_like "the run records the seed" "$v" "\"random_kmalloc_seed\": \"$seed\""
	lay=$(printf '%s\n' "$v" | sed -n 's/.*"layout": *{\([^}]*\)}.*/\1/p')
	tap_is "layout: every cache of slab-attrs.tsv as the kernel laid it out" \
		"$(num "$lay" caches_mismatched)" "0"
	# every root cache of slab-attrs.tsv (its link_target column '-'),
	# the kmalloc-rnd-NN-SIZE copies among them
	roots=$(awk -F'\t' 'NR > 1 && $2 == "-"' "$cap/slab-attrs.tsv" | wc -l)
	tap_is "layout: every root cache compared" "$(num "$lay" caches_compared)" "$((roots))"
	tap_is "slab-attrs.tsv: 13 sizes x 15 random copies as root caches" \
		"$(awk -F'\t' 'NR > 1 && $2 == "-" && $1 ~ /^kmalloc-rnd-/' "$cap/slab-attrs.tsv" | wc -l)" "195"
	;;
tiny)
	tap_is "SLUB_TINY: neither slabinfo nor slab-attrs" \
		"$(ls "$cap" | grep -c -e '^slabinfo' -e '^slab-attrs')" "0"
	tap_is "capture-info.txt: allocator slub" "$(sed -n 's/^allocator=//p' "$info")" "slub"
	"$bin" validate "$cap" --config SLUB_TINY=y --no-db --format json -o v.json 2>notes
	tap_is "validate --config SLUB_TINY=y: exit 0" "$?" "0"
	v=$(tr -d '\n' <v.json)
	tap_like "the run says SLUB_TINY" "$v" '"slub_tiny": true'
	tap_like "the run says slub_max_order 1" "$v" '"slub_max_order": 1,'
	"$bin" replay "$cap" --config SLUB_TINY=y --no-db --format json >r.json 2>/dev/null
	tap_is "replay: exit 0" "$?" "0"
	r=$(tr -d '\n' <r.json)
	tap_is "replay: the model's slot equals every traced bytes_alloc" \
		"$(num "$r" bytes_alloc_mismatches)" "0"
	;;
*) tap_not_ok "kind rnd or tiny" "got: $kind" ;;
esac
mae=$(num "$v" pages_mae_over_swing)
if le "$mae" 0.05; then tap_ok "pages_mae_over_swing $mae <= 0.05"; else tap_not_ok "pages_mae_over_swing <= 0.05" "got: $mae"; fi
tap_done
