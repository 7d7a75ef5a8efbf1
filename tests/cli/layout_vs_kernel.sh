#!/bin/sh
# Compare `slabsim layout --format tsv` with /sys/kernel/slab of a real Debian
# 6.1 kernel (tests/data/linux-6.1-slab-attrs-default.tsv), column by column,
# for every kmalloc cache of the kernel file. TAP output.
#   $1 slabsim binary, $2 the kernel TSV
set -u
bin=$1 ref=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

# compare OUT COLUMNS... : for every kmalloc row of the kernel file whose
# name is in OUT, each listed column must be equal; prints one TAP line per
# cache and a count line.
compare() {
	out=$1 label=$2 expect_rows=$3
	shift 3
	awk -F'\t' -v cols="$*" -v label="$label" -v want="$expect_rows" '
	NR == FNR {
		if (FNR == 1) { for (i = 1; i <= NF; i++) sc[$i] = i; next }
		for (c in sc) sim[$1, c] = $(sc[c]); have[$1] = 1; next
	}
	FNR == 1 { for (i = 1; i <= NF; i++) kc[$i] = i; next }
	$1 ~ /^(kmalloc-|kmalloc-rcl-|kmalloc-cg-|dma-kmalloc-)[0-9]+k?$/ {
		if (!($1 in have)) next
		split(cols, cl, " "); bad = ""
		for (j in cl) { c = cl[j]; v = $(kc[c]); sub(/ .*/, "", v)
			if (sim[$1, c] != v) bad = bad sprintf(" %s: slabsim %s, kernel %s", c, sim[$1, c], v) }
		rows++
		printf "%s %d - %s %s%s\n", bad == "" ? "ok" : "not ok", ++n + base, label, $1, bad == "" ? "" : " #" bad
	}
	END { printf "%s %d - %s: %d kmalloc caches compared (want %d)\n", rows == want ? "ok" : "not ok", ++n + base, label, rows, want }
	' base="$n" "$out" "$ref" > "$tmp/tap"
	cat "$tmp/tap"
	grep "^not ok" "$tmp/tap" >&2 || : # what differed, for meson --print-errorlogs
	n=$((n + $(wc -l < "$tmp/tap")))
	fail=$((fail + $(grep -c '^not ok' "$tmp/tap")))
}

# The 6.1 profile: every sysfs column we print, all 52 kmalloc caches.
"$bin" layout --allocator slub --kernel 6.1 --nr-cpus 2 --format tsv > "$tmp/61.tsv" || { echo "not ok 1 - slabsim layout failed"; echo "1..1"; exit 1; }
compare "$tmp/61.tsv" "6.1" 52 object_size slab_size align order objs_per_slab min_partial cpu_partial

# The command (default profile 5.4): its kmalloc, -rcl- and dma-
# caches have the 6.1 layout (5.4 has no kmalloc-cg-N, and counts
# cpu_partial in 5.4's units), so the layout columns must equal the kernel's.
"$bin" layout --allocator slub --nr-cpus 2 --format tsv > "$tmp/54.tsv" || { echo "not ok - slabsim layout failed"; exit 1; }
compare "$tmp/54.tsv" "5.4" 39 object_size slab_size align order objs_per_slab min_partial

echo "1..$n"
[ "$fail" -eq 0 ]
