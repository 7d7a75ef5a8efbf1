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
tap_done
