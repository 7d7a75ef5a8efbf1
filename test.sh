#!/bin/sh
# Install what is missing, build, and run the whole test suite twice: plain,
# and under AddressSanitizer + UndefinedBehaviorSanitizer (any report fails).
set -eu
cd "$(dirname "$0")"
sh scripts/deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
meson test -C build --print-errorlogs
[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	meson test -C build-asan --print-errorlogs
