#!/bin/sh
# Install what is missing, build slabsim, and replay the bundled real kernel
# trace (Linux 6.1, SLUB, 2 CPUs) through the SLUB model. Results go to
# slabsim.db; the summary is printed. Extra arguments go to `slabsim replay`.
# Then run the default sweep (analysis/sweeps/default.sweep: SLUB, SLAB, SLOB
# x align none/natural x debug off/on) into sweep.db and write its report to
# report/index.html.
set -eu
cd "$(dirname "$0")"
sh scripts/deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
./build/slabsim replay traces/samples/linux-6.1-boot-excerpt.trace \
	--allocator slub --kernel 6.1 --nr-cpus 2 --db slabsim.db "$@"
echo
./build/slabsim sweep analysis/sweeps/default.sweep --db sweep.db
./build/slabsim query align-overhead --db sweep.db
./build/slabsim report --db sweep.db --out report >/dev/null
echo "report: report/index.html"
