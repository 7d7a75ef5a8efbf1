#!/bin/sh
# kernel-marks.sh - in the line figures (memory-time, occupancy-cdf), runs
# that differ only by kernel profile are told apart by a point mark of their
# profile, on the line and in the key; a panel of one profile has none. On
# the boot excerpt, replayed under 6.18 and 7.0 with a sample every 20
# events (and 6.18 alone in a second database). TAP.
#   $1 slabsim binary, $2 trace
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") trace=$(abs_path "$2")
tap_scratch

for k in 6.18 7.0; do
	"$bin" replay "$trace" --kernel $k --sample-every 20ev --db two.db -q 2>err || tap_not_ok "replay --kernel $k" "$(cat err)"
done
"$bin" replay "$trace" --kernel 6.18 --sample-every 20ev --db one.db -q 2>err || tap_not_ok "replay --kernel 6.18 (one)" "$(cat err)"
"$bin" plot --db two.db --out two --no-render >/dev/null 2>err || tap_not_ok "plot two.db" "$(cat err)"
"$bin" plot --db one.db --out one --no-render >/dev/null 2>err || tap_not_ok "plot one.db" "$(cat err)"

# rows of block B of a .dat (gnuplot's index: blocks split by two blank lines)
rows() { awk -v b="$2" '/^$/ { if (prev == "") blk++; prev = ""; next } { prev = $0 } !/^#/ && blk == b { n++ } END { print n + 0 }' "$1"; }

for fig in memory-time occupancy-cdf; do
	# the PNG pass of the script (the SVG pass repeats it)
	gp=two/$fig.png.gp
	sed '/^set terminal svg/q' "two/$fig.gp" >"$gp"
	tap_is "$fig: the profiles' marks named in the script" \
		"$(grep -c '^# point mark = kernel profile: 6.18 pt 7, 7.0 pt 5$' "$gp")" 1
	# each run's key entry: its title's kernel= and its mark agree
	tap_is "$fig: key entries, mark by the title's kernel" \
		"$(sed -n "s/.*keyentry with linespoints.* pt \([0-9]*\) ps 1.2 title 'slub kernel=\([0-9.]*\) .*/\2 \1/p" "$gp")" \
		"6.18 7
7.0 5"
	# the points: every Nth row of the run's own block, N = rows / 8,
	# 7.0's shifted by half a step
	got=$(sed -n "s/.*index \([0-9]*\) using 1:2 every \([0-9]*\)::\([0-9]*\) with points pt \([0-9]*\).*/\1 \2 \3 \4/p" "$gp")
	r0=$(rows "two/$fig.dat" 0) r1=$(rows "two/$fig.dat" 1)
	s0=$((r0 > 8 ? r0 / 8 : 1)) s1=$((r1 > 8 ? r1 / 8 : 1))
	tap_is "$fig: points every rows/8 of the run's block" "$got" "0 $s0 0 7
1 $s1 $((s1 / 2)) 5"
	tap_is "$fig: one profile, no marks" \
		"$(grep -c 'with points pt\|point mark\|keyentry with linespoints' "one/$fig.gp")" 0
done
tap_done
