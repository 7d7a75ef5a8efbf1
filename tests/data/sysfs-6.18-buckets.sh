#!/bin/sh
# Regenerate sysfs-6.18-buckets.tsv: the kmem_buckets caches (msg_msg-*,
# memdup_user-*) of a running kernel's /sys/kernel/slab, in the columns of
# `slabsim layout --format tsv`, plus usersize and a "merged" column (1 when the
# entry is a symlink to another cache). Committed from a Linux 6.18 x86-64 machine with
# CONFIG_SLAB_BUCKETS=y, no slab_debug:  sh tests/data/sysfs-6.18-buckets.sh
# > tests/data/sysfs-6.18-buckets.tsv
set -eu
d=/sys/kernel/slab
printf '# %s\n' "$(uname -r)"
printf 'name\tobject_size\tslab_size\talign\torder\tobjs_per_slab\tusersize\tmerged\n'
for c in $(ls "$d" | grep -E '^(msg_msg|memdup_user)-' | sort); do
	m=0
	[ -L "$d/$c" ] && m=1
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$(cat "$d/$c/object_size")" \
		"$(cat "$d/$c/slab_size")" "$(cat "$d/$c/align")" "$(cat "$d/$c/order")" \
		"$(cat "$d/$c/objs_per_slab")" "$(cat "$d/$c/usersize")" "$m"
done
