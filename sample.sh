#!/bin/sh
# Install what is missing, build slabsim, and replay the bundled real kernel
# trace (Linux 6.1, SLUB, 2 CPUs) through the SLUB model. Results go to
# slabsim.db; the summary is printed. Extra arguments go to `slabsim replay`.
set -eu
cd "$(dirname "$0")"
sh scripts/deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec ./build/slabsim replay traces/samples/linux-6.1-boot-excerpt.trace \
	--allocator slub --kernel 6.1 --nr-cpus 2 --db slabsim.db "$@"
