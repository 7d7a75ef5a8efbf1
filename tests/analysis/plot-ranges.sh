#!/bin/sh
# plot-ranges.sh - every panel of every figure is scaled on its own data.
# Two traces of very different sizes (the boot excerpt, 113 pages; the 2-CPU
# qemu capture, about 5000) in one database, in both panel orders: each
# panel's y range in the .gp (a number, in the PNG pass and in the SVG pass)
# must hold the largest (and smallest) value of the .dat blocks that panel
# plots, and must not be more than half that span again above it (a range
# taken from another panel's data fails one or the other). Before, the
# memory figure's ranges came from gnuplot `stats` run under the previous
# panel's `set yrange`: panels were clipped or had no point in range. TAP.
#   $1 slabsim binary, $2 source root
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") root=$(abs_path "$2")
tap_scratch

boot=$root/traces/samples/linux-6.1-boot-excerpt.trace
cap=$root/traces/samples/linux-6.1-qemu-2cpu/trace.txt.zst

# check FIG COLS DIR: one line per panel of DIR/FIG.gp that plots FIG.dat,
# "ok" or what is wrong. COLS: the y columns of the .dat ("5+6": the sum).
check() {
	awk -v fig="$1" -v cols="$2" '
	function flush(   b, mx, mn, base, bad) {
		if (!nb) return
		for (b in use) {
			if (!((b, "n") in d)) { print "block " b ": not in the .dat"; bad = 1; continue }
			if (mx == "" || d[b, "max"] > mx) mx = d[b, "max"]
			if (mn == "" || d[b, "min"] < mn) mn = d[b, "min"]
		}
		delete use; nb = 0
		if (bad) return
		base = mn < 0 ? mn : 0
		if (hi !~ /^-?[0-9.]+$/ || lo !~ /^-?[0-9.]+$/)
			print "y range [" lo ":" hi "] is not numbers"
		else if (hi + 0 < mx || lo + 0 > base)
			print "data " mn ".." mx " outside [" lo ":" hi "]"
		else if (mx > base && hi - mx > 0.5 * (mx - base) + 1e-6)
			print "top " hi " far above the data max " mx
		else
			print "ok"
	}
	BEGIN { blk = 0 }
	FNR == NR {
		if ($0 ~ /^$/) { blank++; next }
		if (blank >= 2) blk++
		blank = 0
		if ($0 ~ /^#/) next
		line = $0; gsub(/"[^"]*"/, "S", line); split(line, f, " ")
		nc = split(cols, cc, ",")
		for (i = 1; i <= nc; i++) {
			m = split(cc[i], parts, "+"); v = 0
			for (j = 1; j <= m; j++) v += f[parts[j]]
			if (!((blk, "n") in d) || v > d[blk, "max"]) d[blk, "max"] = v
			if (!((blk, "n") in d) || v < d[blk, "min"]) d[blk, "min"] = v
			d[blk, "n"] = 1
		}
		next
	}
	/^set title/ || /^unset multiplot/ { flush() }
	/^set yrange/ {
		r = $0; sub(/^set yrange \[/, "", r); sub(/\].*/, "", r)
		split(r, lh, ":"); lo = lh[1]; hi = lh[2]; next
	}
	index($0, "\047" fig ".dat\047 index ") {
		s = $0; sub(".*\047" fig ".dat\047 index ", "", s); use[s + 0] = 1; nb++
	}
	END { flush() }' "$3/$1.dat" "$3/$1.gp"
}

for order in boot-first qemu-first; do
	if [ $order = boot-first ]; then lb=a-boot lc=b-qemu; else lb=z-boot lc=b-qemu; fi
	cat > $order.sweep <<EOF
trace = $boot
label = $lb
trace = $cap
label = $lc
kernel = 6.1
nr_cpus = 2
allocator = slub, slob
align = none, natural, cap512
slub_debug = -, FZPU
sample_every = 200ev
EOF
	"$bin" sweep $order.sweep --db $order.db -j 2 -q > out 2> err
	tap_is "$order: sweep exits 0" "$?" 0
	"$bin" plot --db $order.db --out $order > out 2> err
	tap_is "$order: plot exits 0, renders every figure, nothing on stderr" "$? $(cat err)" "0 "
	for fc in memory-time:2 align-overhead:5+6,5 align-options:5 top-caches:2; do
		f=${fc%%:*} c=${fc#*:}
		check "$f" "$c" $order > res
		# 2 traces: memory, overhead, options 2 panels each, top-caches 3
		# (slub off, slub FZPU, slob) each, in 2 passes (PNG, SVG)
		panels=4
		[ "$f" = top-caches ] && panels=12
		tap_is "$order: $f: $panels panels" "$(grep -c '^set title' $order/$f.gp)" $panels
		tap_is "$order: $f: every panel's y range holds its own data, and only about it" \
			"$(sort res | uniq -c | sed 's/^ *//')" "$panels ok"
	done
	tap_is "$order: memory-time: 2 panels, each drawn twice (PNG, SVG), its x range set" \
		"$(grep -c '^set xrange \[0:[0-9.]*\]$' $order/memory-time.gp)" 4
done

# the report names each trace once: a Traces legend (short name, label,
# path), short names in the tables over all traces, no trace column in a
# trace's own section (it repeated the path in every row before)
"$bin" report --db boot-first.db --out rep > out 2> err
tap_is "report: exits 0, nothing on stderr" "$? $(cat err)" "0 "
rows() { # rows HEADING: the first cell of each row of the table after HEADING
	sed -n "/$1/,/<\/table>/p" rep/index.html | grep '^<tr><td' | sed 's/^<tr><td[^>]*>\([^<]*\)<.*/\1/'
}
tap_is "report: the Traces legend" "$(rows '<h2>Traces' | tr '\n' ' ')" "T1 T2 "
tap_is "report: the overview names traces by short name" "$(rows 'Overview' | sort -u | tr '\n' ' ')" "T1 T2 "
tap_is "report: the runs table names traces by short name" "$(rows '<h2>Runs' | sort | uniq -c | awk '{ printf "%s %s ", $1, $2 }')" \
	"9 T1 9 T2 "
tap_is "report: the boot trace's path twice (legend, its section), not in rows" \
	"$(grep -o "$boot" rep/index.html | wc -l)" 2
tap_is "report: a trace column only in the 3 tables over all traces" \
	"$(grep -c '^<tr><th>trace</th>' rep/index.html)" 3

# the panels of one trace are the same whichever trace comes first
tap_is "both orders: the boot trace's memory panel has the same ranges" \
	"$(grep -A3 "^set title 'a-boot'" boot-first/memory-time.gp | head -4 | tail -3)" \
	"$(grep -A3 "^set title 'z-boot'" qemu-first/memory-time.gp | head -4 | tail -3)"
tap_done
