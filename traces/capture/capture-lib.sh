# Shared by traces/capture/record (on the host) and qemu-boot (in the guest,
# under busybox ash): the parts of a capture directory that are read from
# /proc, /sys and tracefs. POSIX sh only; no fork in the per-file loops (the
# guest may run under TCG). The format is docs/capture-format.md.

# The attribute columns of slab-attrs.tsv after name and link_target, in the
# order of the kernel sample the format cites: always written, "-" where the
# kernel has no such file.
CAP_SLAB_COLS="object_size slab_size order objs_per_slab align red_zone poison store_user
hwcache_align objects total_objects slabs partial cpu_slabs aliases sanity_checks trace
cache_dma reclaim_account destroy_by_rcu usersize min_partial cpu_partial ctor
objects_partial slabs_cpu_partial"

# Attribute files never recorded: the write-only triggers (their show
# prints nothing: shrink empties the cache's free slabs, validate checks it
# under slab_debug) and the call-site tables of kernels before 5.14 (many
# lines each, and an error without slab_debug=U; debugfs since 5.14).
CAP_SLAB_SKIP="shrink validate alloc_calls free_calls"

# cap_read FILE: the first line of FILE with tabs made spaces, or "-" when
# it is missing, unreadable or empty. Sets $cap_v.
cap_read() {
	cap_v=-
	[ -r "$1" ] || return 0
	IFS= read -r cap_v 2>/dev/null <"$1" || [ -n "$cap_v" ] || cap_v=-
	[ -n "$cap_v" ] || cap_v=-
	case $cap_v in
	*"	"*) cap_v=$(printf '%s' "$cap_v" | tr '\t' ' ') ;;
	esac
}

# cap_known NAME: true when NAME is one of CAP_SLAB_COLS or CAP_SLAB_SKIP.
cap_known() {
	for cap_k in $CAP_SLAB_COLS $CAP_SLAB_SKIP; do
		[ "$cap_k" = "$1" ] && return 0
	done
	return 1
}

# cap_slab_cols SLABDIR: the columns of slab-attrs.tsv in $cap_cols:
# CAP_SLAB_COLS, then every other attribute file of the first cache
# directory (not an alias link) that reads without an error, by name
# (sheaf_capacity of 6.18, skip_kfence, remote_node_defrag_ratio, the
# CONFIG_SLUB_STATS counters, whatever a later kernel adds). SLUB gives
# every cache the same files, so one directory decides for all.
cap_slab_cols() {
	cap_cols=$CAP_SLAB_COLS
	for cap_d in "$1"/*; do
		[ -d "$cap_d" ] && [ ! -L "$cap_d" ] || continue
		for cap_f in "$cap_d"/*; do
			[ -f "$cap_f" ] || continue
			cap_a=${cap_f##*/}
			cap_known "$cap_a" && continue
			# one read per attribute, once: a show that fails (an
			# errno, a write-only file) leaves the column out
			cat "$cap_f" >/dev/null 2>&1 || continue
			cap_cols="$cap_cols $cap_a"
		done
		return 0
	done
}

# cap_slab_attrs SLABDIR: slab-attrs.tsv of SLABDIR (/sys/kernel/slab) on
# stdout, rows sorted by name in the C locale; the columns of cap_slab_cols.
cap_slab_attrs() {
	cap_slab_cols "$1"
	printf 'name\tlink_target'
	for c in $cap_cols; do printf '\t%s' "$c"; done
	printf '\n'
	for d in "$1"/*; do
		[ -e "$d" ] || continue
		n=${d##*/}
		t=-
		if [ -L "$d" ]; then
			t=$(readlink "$d")
			t=${t##*/}
		fi
		printf '%s\t%s' "$n" "$t"
		for c in $cap_cols; do
			cap_read "$d/$c"
			printf '\t%s' "$cap_v"
		done
		printf '\n'
	done | LC_ALL=C sort
}

# cap_shrink_sheaves SYSSLAB: write 1 to the shrink file of every cache (not
# an alias link) with a sheaf_capacity above 0; cap_n: how many, cap_names:
# their names. A cache a write fails for is left as it is.
cap_shrink_sheaves() {
	cap_n=0
	cap_names=""
	for d in "$1"/*; do
		[ -L "$d" ] && continue
		[ -r "$d/sheaf_capacity" ] && [ -w "$d/shrink" ] || continue
		cap_read "$d/sheaf_capacity"
		case $cap_v in '' | 0 | *[!0-9]*) continue ;; esac
		echo 1 >"$d/shrink" 2>/dev/null || continue
		cap_n=$((cap_n + 1))
		cap_names="$cap_names ${d##*/}"
	done
}

# cap_slab_row SYSSLAB NAME: the slab-attrs row of cache NAME (not an alias)
# with the columns of the last cap_slab_attrs, built in the shell alone: no
# process is started.
cap_slab_row() {
	printf '%s\t-' "$2"
	for c in $cap_cols; do
		cap_read "$1/$2/$c"
		printf '\t%s' "$cap_v"
	done
}

# cap_replace_rows TSV ROWS: replace the rows of TSV whose first field is
# the first field of a line of ROWS by that line.
cap_replace_rows() {
	printf '%s' "$2" | awk -F '\t' -v OFS='\t' '
		NR == FNR { if ($1 != "") row[$1] = $0; next }
		($1 in row) { print row[$1]; next }
		{ print }' - "$1" >"$1.new" && mv "$1.new" "$1"
}

# cap_count_cpus LIST: how many CPUs a kernel cpu list ("0-3,8,10-11") names.
cap_count_cpus() {
	cap_n=0
	cap_l=$1,
	while [ -n "$cap_l" ]; do
		cap_r=${cap_l%%,*}
		cap_l=${cap_l#*,}
		case $cap_r in
		"") ;;
		*-*) cap_n=$((cap_n + ${cap_r#*-} - ${cap_r%-*} + 1)) ;;
		*) cap_n=$((cap_n + 1)) ;;
		esac
	done
	echo "$cap_n"
}

# cap_ncpus SYSROOT: ncpus.txt on stdout.
cap_ncpus() {
	cap_read "$1/devices/system/cpu/online"
	on=$cap_v
	cap_read "$1/devices/system/cpu/possible"
	po=$cap_v
	echo "nproc=$(nproc 2>/dev/null || echo -)"
	if [ "$on" = - ]; then echo "online=-"; else echo "online=$(cap_count_cpus "$on")"; fi
	if [ "$po" = - ]; then echo "possible=-"; else echo "possible=$(cap_count_cpus "$po")"; fi
	echo "online_list=$on"
	echo "possible_list=$po"
}

# cap_lost_events TRACEFS: lost-events.txt on stdout, CPUs in numeric order.
cap_lost_events() {
	cap_i=0
	cap_miss=0
	# per_cpu/ may have holes (offline CPUs); stop after 64 missing in a row
	while [ "$cap_miss" -lt 64 ]; do
		f=$1/per_cpu/cpu$cap_i/stats
		if [ -r "$f" ]; then
			cap_miss=0
			while IFS= read -r line; do
				printf 'cpu%s %s\n' "$cap_i" "$line"
			done <"$f"
		else
			cap_miss=$((cap_miss + 1))
		fi
		cap_i=$((cap_i + 1))
	done
}

# cap_lost_total FILE: events lost according to a lost-events.txt.
cap_lost_total() {
	awk '{ k = $0; sub(/^cpu[0-9]+ /, "", k); v = k; sub(/: *[^:]*$/, "", k); sub(/.*: */, "", v)
	       if (k == "overrun" || k == "commit overrun" || k == "dropped events") n += v }
	     END { print n + 0 }' "$1"
}

# cap_meminfo PROC: PROC/meminfo on stdout, after folding every CPU's
# pending vmstat deltas into the global counters (reading
# PROC/sys/vm/stat_refresh, root only, where it exists): without it Slab:
# lags by up to the per-CPU stat threshold (16 pages per CPU in a 1 GB
# 2-CPU guest) until the next vmstat_update.
cap_meminfo() {
	[ -r "$1/sys/vm/stat_refresh" ] && cat "$1/sys/vm/stat_refresh" >/dev/null 2>&1
	cat "$1/meminfo"
}

# cap_snap ID PROC TRACEFS OUTDIR: write "SNAP-READ ID" to the trace
# marker, copy PROC/slabinfo to OUTDIR/snapshots/ID.slabinfo (when the
# kernel has one: SLOB has not), then PROC/meminfo (cap_meminfo) to
# OUTDIR/snapshots/ID.meminfo, then write "SNAP ID" to the trace marker.
# SNAP-READ tells the reader that the next /proc/slabinfo open is ours: other
# programs' seq_file reads in the window would look the same.
cap_snap() {
	if [ -e "$2/slabinfo" ]; then
		echo "SNAP-READ $1" >>"$3/trace_marker"
		cat "$2/slabinfo" >"$4/snapshots/$1.slabinfo" || return 1
	fi
	cap_meminfo "$2" >"$4/snapshots/$1.meminfo" || return 1
	echo "SNAP $1" >>"$3/trace_marker"
}

# cap_blank_names FILE: true when FILE (trace text) has kmem_cache_free lines
# whose name= is empty: what Linux 6.1's tracefs option nohash-ptr does to
# every string field (name=, gfp_flags=), unlike the boot option
# no_hash_pointers.
cap_blank_names() {
	grep -q -E ' kmem_cache_free: .* name=( |$)' "$1"
}
