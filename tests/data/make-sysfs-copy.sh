#!/bin/sh
# make-sysfs-copy.sh - copy this machine's slab state into tests/data, as the
# layout test against a real kernel reads it:
#   PREFIX-slab-attrs.tsv  every cache of /sys/kernel/slab (aliases too: the
#                          link column names the root), one column per
#                          readable attribute (write-only triggers such as
#                          shrink and validate, and unreadable ones, are left
#                          out; a multi-word value keeps its first word)
#   PREFIX-slabinfo.txt    /proc/slabinfo
#   PREFIX-config.txt      the slab configuration switches of /proc/config.gz
#                          (SLUB_TINY, SLUB_CPU_PARTIAL, MEMCG, ZONE_DMA,
#                          SLAB_BUCKETS, RANDOM_KMALLOC_CACHES, ...) and uname -r
# Run as root (some attributes are root-only):
#   tests/data/make-sysfs-copy.sh tests/data/linux-6.18
set -eu
[ $# -eq 1 ] || { echo "usage: make-sysfs-copy.sh PREFIX" >&2; exit 1; }
prefix=$1
sys=/sys/kernel/slab
# the attribute names: every readable regular file of one cache
first=$(ls "$sys" | head -n 1)
attrs=$(cd "$sys/$first" && for a in *; do
	# root may open anything: the owner's read bit says what is readable
	# shrink and validate are triggers: readable, but they show nothing
	case $a in shrink | validate) continue ;; esac
	case $(stat -c %A "$a") in -r*) echo "$a" ;; esac; done | sort | tr '\n' ' ')
{
	printf 'name\tlink'
	for a in $attrs; do printf '\t%s' "$a"; done
	printf '\n'
	for d in $(ls "$sys" | LC_ALL=C sort); do
		link=-
		[ -L "$sys/$d" ] && link=$(basename "$(readlink "$sys/$d")")
		printf '%s\t%s' "$d" "$link"
		for a in $attrs; do
			# the shell's read: no process per attribute
			v=
			read -r v rest <"$sys/$d/$a" 2>/dev/null || :
			printf '\t%s' "${v:--}"
		done
		printf '\n'
	done
} >"$prefix-slab-attrs.tsv"
cat /proc/slabinfo >"$prefix-slabinfo.txt"
{
	echo "uname -r: $(uname -r)"
	zcat /proc/config.gz | grep -E '^(# )?CONFIG_(SLUB|SLAB|SLOB|MEMCG|ZONE_DMA|RANDOM_KMALLOC|HARDENED_USERCOPY|KASAN|NUMA)[A-Z0-9_]*[ =]'
} >"$prefix-config.txt"
