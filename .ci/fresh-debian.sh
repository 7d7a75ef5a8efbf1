#!/usr/bin/env bash
# fresh-debian.sh SRC_DIR CMD... : copy a git checkout (committed files only) into a fresh Debian 12 minbase
# chroot and run CMD there as root, in the checkout, as a newcomer would. The base system is made once with
# debootstrap and cached. Prints the command's output; exits with its status.
# (A copy of the workplace's shared fresh-debian tool, kept here so that CI does not depend on a path outside
# the clone. Needs root and about 1 GB of disk per run.)
set -euo pipefail
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap; } >/dev/null
src=$1; shift
cache=/tmp/fresh; base=$cache/base.tar.zst
mkdir -p $cache
if [[ ! -s $base ]]; then
  rm -rf $cache/root
  # the Debian mirror this machine's apt already uses
  mirror=$(sed -nE 's/^URIs:[[:space:]]*([^ ]+).*/\1/p; s/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?(https?:[^ ]+)[[:space:]].*/\2/p' \
    /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1 || true)
  debootstrap --variant=minbase bookworm $cache/root "$mirror" >$cache/debootstrap.log 2>&1
  tar -C $cache/root -cf - . | zstd -q -T2 -o $base; rm -rf $cache/root
fi
r=$(mktemp -d $cache/run.XXXX)
cleanup() { for m in proc sys dev/pts dev; do umount -l "$r/$m" 2>/dev/null || true; done; rm -rf --one-file-system "$r"; }
trap cleanup EXIT
zstd -dc $base | tar -C "$r" -xf -
cp /etc/resolv.conf "$r/etc/resolv.conf"
mount -t proc proc "$r/proc"; mount --rbind /sys "$r/sys"; mount --rbind /dev "$r/dev"
git clone -q "$src" "$r/root/project"
chroot "$r" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
  bash -c "cd /root/project && $*"
