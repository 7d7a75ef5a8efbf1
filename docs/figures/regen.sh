#!/bin/sh
# regen.sh - the figures README shows, made by the current code: the sample
# sweep (analysis/sweeps/default.sweep, what ./sample.sh runs) plotted into
# docs/figures/sample/ (.gp and .dat, the text tests/analysis/figures.sh
# compares with a fresh plot, so that they cannot drift from the code) and
# its memory figure as docs/sweep-memory-time.png; with --debate also the
# align-debate sweep (70 runs, about a minute) as docs/figures/debate/
# (align-options.gp/.dat) and docs/align-options.png. Run it from the top of
# the source tree after changing a figure, and commit what it writes.
#   docs/figures/regen.sh SLABSIM [--debate]
# Exit: 0 written, 1 usage, else the failing command's status.
set -eu
[ $# -ge 1 ] && [ -x "$1" ] && [ -f analysis/sweeps/default.sweep ] || {
	echo "usage: docs/figures/regen.sh SLABSIM [--debate] (from the top of the source tree)" >&2
	exit 1
}
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one worker: run ids, and so the .dat headers, in spec order
"$bin" sweep analysis/sweeps/default.sweep --db "$tmp/sample.db" -j 1 -q
"$bin" plot --db "$tmp/sample.db" --out "$tmp/sample" > /dev/null
mkdir -p docs/figures/sample
rm -f docs/figures/sample/*
cp "$tmp"/sample/*.gp "$tmp"/sample/*.dat docs/figures/sample/
cp "$tmp/sample/memory-time.png" docs/sweep-memory-time.png
if [ "${2:-}" = --debate ]; then
	"$bin" sweep analysis/sweeps/align-debate.sweep --db "$tmp/debate.db" -j 1 -q
	"$bin" plot --db "$tmp/debate.db" --out "$tmp/debate" > /dev/null
	mkdir -p docs/figures/debate
	cp "$tmp/debate/align-options.gp" "$tmp/debate/align-options.dat" docs/figures/debate/
	cp "$tmp/debate/align-options.png" docs/align-options.png
fi
