#!/bin/sh
# Compare `slabsim layout --kernel 6.18 --format tsv` with a committed copy of
# /sys/kernel/slab of a real 6.18 kernel (tests/data/linux-6.18-slab-attrs.tsv,
# made by tests/data/make-sysfs-copy.sh; its configuration, in
# linux-6.18-config.txt, is the model's default: SLUB_CPU_PARTIAL, MEMCG,
# ZONE_DMA, no SLUB_TINY, no RANDOM_KMALLOC_CACHES), column by column, for
# every kmalloc-N, kmalloc-rcl-N, kmalloc-cg-N and dma-kmalloc-N cache.
# The kmem_buckets caches (msg_msg-N, memdup_user-N: CONFIG_SLAB_BUCKETS) are
# the bucket model's: compared where its layout lists them (BUCKETS below),
# skipped until it does. TAP output.
#   $1 slabsim binary, $2 the kernel TSV
set -u
bin=$1 ref=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$bin" layout --kernel 6.18 --format tsv >"$tmp/sim" 2>"$tmp/err" || {
	echo "not ok 1 - slabsim layout --kernel 6.18 failed: $(cat "$tmp/err")"
	echo "1..1"
	exit 1
}
# kmalloc caches, and the bucket caches where slabsim lists them
awk -F'\t' '
NR == FNR {
	if (FNR == 1) { for (i = 1; i <= NF; i++) sc[$i] = i; next }
	for (c in sc) sim[$1, c] = $(sc[c]); have[$1] = 1; next
}
FNR == 1 { for (i = 1; i <= NF; i++) kc[$i] = i; ncols = split("object_size slab_size align order objs_per_slab min_partial cpu_partial", cl, " "); next }
{
	kmalloc = $1 ~ /^(kmalloc-|kmalloc-rcl-|kmalloc-cg-|dma-kmalloc-)[0-9]+k?$/
	bucket = $1 ~ /^(msg_msg|memdup_user)-[0-9]+k?$/
	if (!kmalloc && !(bucket && ($1 in have))) next
	if (kmalloc) want++
	if (!($1 in have)) { printf "not ok %d - %s: not in slabsim layout\n", ++n, $1; next }
	bad = ""
	for (j = 1; j <= ncols; j++) { c = cl[j]; v = $(kc[c]); sub(/ .*/, "", v)
		if (sim[$1, c] != v) bad = bad sprintf(" %s: slabsim %s, kernel %s", c, sim[$1, c], v) }
	rows += kmalloc
	printf "%s %d - 6.18 %s%s\n", bad == "" ? "ok" : "not ok", ++n, $1, bad == "" ? "" : " #" bad
}
END {
	printf "%s %d - %d kmalloc caches of the kernel compared, want 52\n", rows == 52 && want == 52 ? "ok" : "not ok", ++n, rows
	printf "1..%d\n", n
}' "$tmp/sim" "$ref" >"$tmp/tap"
cat "$tmp/tap"
grep "^not ok" "$tmp/tap" >&2 && exit 1
exit 0
