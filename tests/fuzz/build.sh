#!/bin/sh
# build.sh [BUILD_DIR] - configure and build the libFuzzer harnesses with
# clang, AddressSanitizer and UndefinedBehaviorSanitizer (any UB report
# aborts) in BUILD_DIR (default build-fuzz at the top of the tree).
# Needs Debian's clang and libclang-rt-14-dev (scripts/deps.sh).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$top/build-fuzz}
if [ ! -f "$dir/build.ninja" ]; then
	# -fsanitize=fuzzer-no-link: coverage instrumentation for the libraries;
	# the harnesses add -fsanitize=fuzzer (libFuzzer's main) themselves.
	CC=clang meson setup "$dir" "$top" -Dfuzzing=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbuildtype=debugoptimized \
		-Dc_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer -gline-tables-only' \
		>/dev/null
fi
ninja -C "$dir" -j2 $(cd "$dir" && ninja -t targets all | sed -n 's/^\(tests\/fuzz\/fuzz_[a-z_]*\): .*/\1/p')
