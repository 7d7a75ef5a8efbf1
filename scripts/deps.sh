#!/bin/sh
# Install the Debian packages slabsim needs to build, run and test, when any
# is missing (Debian 12). Uses sudo when not root.
set -eu
# clang and libclang-rt-14-dev: the libFuzzer harnesses (tests/fuzz/build.sh)
# parallel: the GNU parallel sweep example (tests/analysis/sweep.sh)
# slurm-wlm and munge: a single-node Slurm for tests/analysis/slurm.sh
# groff-base: the manual page test renders slabsim.1 (tests/cli/man.sh)
# bzip2, libtracecmd-dev, libtraceevent-dev, libtracefs-dev, trace-cmd: .bz2
# traces and trace.dat (traces/tracedat.c; libtracecmd.pc requires
# libtracefs; trace-cmd makes the test's report text)
# libxxhash-dev: the trace identity (XXH3, sim/run/run.c)
# libzstd-dev: compressed trace.dat read in process (traces/datfile.c;
# without it such files go through libtracecmd, slower)
# file: tests/analysis/study.sh checks what the report's files are
# make: tests/capture/build-kernel.sh runs build-kernel over a fake kernel
# tree (its Makefile answers tinyconfig, olddefconfig, bzImage)
pkgs="gcc libc6-dev pkg-config meson ninja-build libgsl-dev libsqlite3-dev sqlite3 gnuplot-nox gzip xz-utils zstd parallel clang libclang-rt-14-dev slurm-wlm munge bzip2 libtracecmd-dev libtraceevent-dev libtracefs-dev trace-cmd libxxhash-dev libzstd-dev groff-base file make"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "slabsim: installing Debian packages:$missing" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# Another apt or dpkg process (unattended-upgrades, a package manager window)
# may hold the dpkg lock: wait for it up to 10 minutes instead of failing.
lock="-o DPkg::Lock::Timeout=600"
# shellcheck disable=SC2086
$sudo apt-get $lock update -qq
# shellcheck disable=SC2086
$sudo apt-get $lock install -y -qq --no-install-recommends $missing >/dev/null
