#!/bin/sh
# phases.sh - trace markers in the memory-over-time figure
# (memory-time-phases.dat) and the report's Phases table, on a hand trace
# (expected pages worked out by hand) and on the bundled 2-CPU qemu capture
# (markers from grep of the trace, pages from the samples table). TAP.
#   $1 slabsim binary, $2 the capture directory linux-6.1-qemu-2cpu
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") cap=$(abs_path "$2")
tap_scratch

q() { sqlite3 "$1" "$2"; }
# rows of a phases .dat without the comments: label between the quotes
dat_rows() { grep -v '^#' "$1"; }
dat_labels() { dat_rows "$1" | sed 's/^[^"]*"\([^"]*\)".*/\1/'; }
# report rows: <tr class=phase><td>t</td><td>label</td><td>pages</td><td>change</td>...
rep_rows() { grep '^<tr class=phase>' "$1" | sed 's/<tr class=phase>//; s/<\/tr>//; s/<td[^>]*>//g; s/<\/td>/|/g'; }

# ---- a hand trace: 4 markers, one of them "end", one with a double quote,
# one text twice (at two times), then the automatic "end" sample ----
L='            init-1       [000] .....'
A='call_site=f+0x0/0x10'
G='gfp_flags=GFP_KERNEL node=-1 accounted=false'
cat > hand.trace <<EOF
# tracer: nop
$L     1.000000: kmalloc: $A ptr=0000000000001000 bytes_req=4096 bytes_alloc=4096 $G
$L     1.500000: tracing_mark_write: phase=a
$L     2.000000: kmalloc: $A ptr=0000000000002000 bytes_req=4096 bytes_alloc=4096 $G
$L     2.000000: kmalloc: $A ptr=0000000000003000 bytes_req=4096 bytes_alloc=4096 $G
$L     2.500000: tracing_mark_write: say "hi"
$L     3.000000: kfree: call_site=g+0x0/0x10 ptr=0000000000002000
$L     3.500000: tracing_mark_write: end
$L     4.000000: kmalloc: $A ptr=0000000000004000 bytes_req=64 bytes_alloc=64 $G
$L     4.500000: tracing_mark_write: phase=a
$L     5.000000: kfree: call_site=g+0x0/0x10 ptr=0000000000001000
EOF
for a in slub slab; do
	"$bin" replay hand.trace --kernel 6.1 --allocator $a --db hand.db -q 2> err
done
"$bin" plot --db hand.db --out hp --no-render > out 2> err
tap_is "hand: plot exits 0" "$?" 0
tap_is "hand: one row per marker, the final 'end' sample left out" "$(dat_rows hp/memory-time-phases.dat | wc -l)" 4
tap_is "hand: labels in order (a user 'end' kept, \" shown as ')" \
	"$(dat_labels hp/memory-time-phases.dat | tr '\n' ,)" "phase=a,say 'hi',end,phase=a,"
tap_is "hand: times since the first event (1.0 s)" \
	"$(dat_rows hp/memory-time-phases.dat | awk '{ printf "%s ", $1 }')" \
	"0.500000000 1.500000000 2.500000000 3.500000000 "
# SLUB 6.1: kmalloc-4096 has order-3 slabs of 8 objects (8 pages for the
# first 3 objects), kmalloc-64 adds one order-0 slab; SLAB: kmalloc-4096 one
# object per order-0 slab, the slab emptied at 3.0 s stays cached (3 pages)
slub=$(q hand.db "SELECT run_id FROM runs WHERE allocator = 'slub'")
slab=$(q hand.db "SELECT run_id FROM runs WHERE allocator = 'slab'")
col() { # col FILE RUN_ID: that run's pages column of a phases .dat (the header
	# "#t_s label runs level pages[run A] pages[run B]" splits each name in two
	# fields; the file is one block per trace, each with its header)
	awk -v id="$2" '/^#t_s/ { c = 0; for (i = 1; i <= NF; i++) if ($i == id "]") c = (i + 4) / 2 }
		!/^#/ && c { sub(/"[^"]*"/, "L"); printf "%s ", $c }' "$1"
}
tap_is "hand: SLUB pages at the markers (by hand)" "$(col hp/memory-time-phases.dat "$slub")" "8 8 8 9 "
tap_is "hand: SLAB pages at the markers (by hand)" "$(col hp/memory-time-phases.dat "$slab")" "1 3 3 4 "
tap_is "hand: labels 25% of the axis apart all stay on level 0" \
	"$(dat_rows hp/memory-time-phases.dat | sed 's/"[^"]*"/L/' | awk '{ printf "%s", $4 }')" 0000
tap_is "hand: both runs have every marker" "$(dat_rows hp/memory-time-phases.dat | sed 's/"[^"]*"/L/' | awk '{ printf "%s", $3 }')" 2222
"$bin" report --db hand.db --out hr > out 2> err
tap_is "hand: report exits 0" "$?" 0
# columns: t, label, then (pages, change) per run ordered slab, slub
tap_is "hand: Phases table rows (pages and change since the previous marker)" \
	"$(rep_rows hr/index.html)" "$(printf '%s\n' \
	'0.500000|phase=a|1||8||' \
	'1.500000|say "hi"|3|+2|8|+0|' \
	'2.500000|end|3|+0|8|+0|' \
	'3.500000|phase=a|4|+1|9|+1|')"

# one kernel: its runs' headers name no kernel; two: each names its own
tap_is "hand: one kernel, no kernel in the Phases headers" \
	"$(grep -o '<th>sl[au]b [^<]*(run [0-9]*): slab pages' hr/index.html | tr '\n' ,)" \
	"<th>slab align=natural debug=off (run $slab): slab pages,<th>slub align=natural debug=off (run $slub): slab pages,"
"$bin" replay hand.trace --kernel 7.0 --db hand.db -q 2> err
k7=$(q hand.db "SELECT run_id FROM runs WHERE kernel = '7.0'")
"$bin" report --db hand.db --out hr2 > out 2> err
tap_is "hand: two kernels, each run's kernel in the Phases headers" \
	"$(grep -o '<th>sl[au]b [^<]*(run [0-9]*): slab pages' hr2/index.html | tr '\n' ,)" \
	"<th>slab kernel=6.1 align=natural debug=off (run $slab): slab pages,<th>slub kernel=6.1 align=natural debug=off (run $slub): slab pages,<th>slub kernel=7.0 align=pow2-divisor debug=off (run $k7): slab pages,"

# ---- the 2-CPU qemu capture: two policies ----
for a in slub slab; do
	"$bin" replay "$cap" --allocator $a --db cap.db -q 2> err
done
tap_is "capture: two runs" "$(q cap.db "SELECT count(*) FROM runs WHERE status = 'done'")" 2
"$bin" plot --db cap.db --out cp > out 2> err
tap_is "capture: plot exits 0 (gnuplot draws the markers)" "$?" 0
tap_like "capture: the script draws memory-time-phases.dat" "$(cat cp/memory-time.gp)" "'memory-time-phases.dat' index 0 using 1:(0):(0):(top) with vectors"
zstd -dc "$cap/trace.txt.zst" | grep 'tracing_mark_write: ' > marks
tap_is "capture: the trace has 8 markers" "$(wc -l < marks)" 8
tap_is "capture: one .dat row per marker of the trace" "$(dat_rows cp/memory-time-phases.dat | wc -l)" "$(wc -l < marks)"
tap_is "capture: labels = the markers' text" "$(dat_labels cp/memory-time-phases.dat)" \
	"$(sed 's/.*tracing_mark_write: //' marks)"
t0=$(q cap.db "SELECT DISTINCT t_first_ns FROM runs")
tap_is "capture: times = trace timestamps - first event" \
	"$(dat_rows cp/memory-time-phases.dat | awk '{ printf "%.6f\n", $1 }')" \
	"$(awk -v t0="$t0" '{ for (i = 1; i <= NF; i++) if ($i == "tracing_mark_write:") { ts = $(i - 1); sub(":", "", ts); printf "%.6f\n", ts - t0 / 1e9 } }' marks)"
for r in $(q cap.db "SELECT run_id FROM runs ORDER BY run_id"); do
	want=$(q cap.db "SELECT slab_pages FROM samples WHERE run_id = $r AND label IS NOT NULL
			 AND seq < (SELECT max(seq) FROM samples WHERE run_id = $r) ORDER BY seq" | tr '\n' ' ')
	tap_is "capture: run $r pages at the markers = samples.slab_pages" \
		"$(col cp/memory-time-phases.dat "$r")" "$want"
done
"$bin" report --db cap.db --out cr > out 2> err
tap_is "capture: report exits 0" "$?" 0
rep_rows cr/index.html > rows
tap_is "capture: Phases table, one row per marker" "$(wc -l < rows)" 8
tap_is "capture: Phases table labels" "$(cut -d'|' -f2 rows)" "$(sed 's/.*tracing_mark_write: //' marks)"
# expected pages and changes from the samples table, awk doing the differences
want=$(for r in $(q cap.db "SELECT run_id FROM runs ORDER BY allocator"); do
	q cap.db "SELECT slab_pages FROM samples WHERE run_id = $r AND label IS NOT NULL
		  AND seq < (SELECT max(seq) FROM samples WHERE run_id = $r) ORDER BY seq" |
		awk '{ d = NR > 1 ? sprintf("%+d", $1 - p) : ""; printf "%s|%s\n", $1, d; p = $1 }' > "w$r"
	echo "w$r"
done | xargs paste -d'|')
tap_is "capture: Phases pages and changes per policy = samples.slab_pages" \
	"$(cut -d'|' -f3-6 rows)" "$want"
# the page stands alone when moved: definitions inside, no link out of its
# directory (it linked ../../docs/metrics.md before)
tap_is "report: a Definitions section with the figures' terms" \
	"$(sed -n '/<h2 id=definitions>/,/<\/dl>/p' cr/index.html | grep -oE '<dt>(slab pages|rounding|layout|free_slots|tail|occupancy)</dt>' | tr '\n' ' ')" \
	"<dt>slab pages</dt> <dt>rounding</dt> <dt>layout</dt> <dt>free_slots</dt> <dt>tail</dt> <dt>occupancy</dt> "
tap_is "report: every link stays in its directory" \
	"$(grep -o 'href="[^"]*"' cr/index.html | grep -cE 'href="(/|\.\.|[a-z]+:)')" 0
tap_is "report: one description line under each of the 5 figures" \
	"$(grep -A1 '</figcaption>' cr/index.html | grep -c '^<p class=q>')" 5

# ---- no markers: no phases file, the report says so ----
printf '# tracer: nop\n%s     1.000000: kmalloc: %s ptr=0000000000001000 bytes_req=8 bytes_alloc=8 %s\n' \
	"$L" "$A" "$G" > plain.trace
"$bin" replay plain.trace --kernel 6.1 --db plain.db -q 2> err
mkdir np && : > np/memory-time-phases.dat
"$bin" plot --db plain.db --out np --no-render > out 2> err
tap_is "no markers: no (and no stale) memory-time-phases.dat" "$(ls np | grep -c phases)" 0
tap_is "no markers: no marker lines in the script" "$(grep -c phases np/memory-time.gp)" 0
"$bin" report --db plain.db --out npr > out 2> err
tap_like "no markers: the report says so" "$(cat npr/index.html)" "<h3>Phases</h3>
<p class=none>No run of this trace has trace markers.</p>"
tap_done
