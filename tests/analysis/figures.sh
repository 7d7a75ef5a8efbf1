#!/bin/sh
# figures.sh - the figures README shows are what the current code draws:
# the sample sweep (analysis/sweeps/default.sweep) replayed and plotted
# again, every .gp and .dat equal to the committed copies in
# docs/figures/sample/ (text, not PNG bytes). When a figure changes on
# purpose, run docs/figures/regen.sh and commit what it writes (it also
# redraws docs/sweep-memory-time.png). TAP.
#   $1 slabsim binary, $2 source root
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") root=$(abs_path "$2")
tap_scratch
out=$PWD

# from the source root: the spec's trace path is relative, and so are the
# labels in the figures; one worker, so run ids follow the spec
(cd "$root" && "$bin" sweep analysis/sweeps/default.sweep --db "$out/s.db" -j 1 -q) > out 2> err
tap_is "the sample sweep: exit 0" "$?" 0
"$bin" plot --db s.db --out p --no-render > out 2> err
tap_is "plot --no-render: exit 0, nothing on stderr" "$? $(cat err)" "0 "
tap_is "the same files as docs/figures/sample/" \
	"$(cd p && ls *.gp *.dat | sort | tr '\n' ' ')" \
	"$(cd "$root/docs/figures/sample" && ls | sort | tr '\n' ' ')"
for f in "$root"/docs/figures/sample/*; do
	n=${f##*/}
	if cmp -s "$f" "p/$n"; then
		tap_ok "$n: equal to docs/figures/sample/$n"
	else
		tap_not_ok "$n: equal to docs/figures/sample/$n (run docs/figures/regen.sh)" \
			"$(diff "$f" "p/$n" | head -20)"
	fi
done

# One trace replayed under two kernel profiles: every line's title says
# which (the labels alone would differ only by a run id otherwise); under
# one profile, as above, the titles do not name it.
t=$root/traces/samples/linux-6.1-qemu-2cpu/trace.txt.zst
"$bin" replay "$t" --db k.db -q --kernel 6.1 >/dev/null 2>&1
"$bin" replay "$t" --db k.db -q --kernel 6.18 >/dev/null 2>&1
"$bin" plot --db k.db --out k --no-render >/dev/null 2>&1
tap_is "two kernels: memory-time's titles name them" \
	"$(grep -o "title 'slub [^']*'" k/memory-time.gp | sort -u | tr '\n' ';')" \
	"title 'slub kernel=6.1 align=natural debug=off';title 'slub kernel=6.18 align=pow2-divisor debug=off';"
tap_is "one kernel: titles without it" "$(grep -c 'kernel=' p/memory-time.gp)" 0
tap_done
