#!/bin/sh
# record.sh - traces/capture/record without root and without a kernel: its
# argument handling and refusals (exact exit codes), and the capture it writes
# from a fake tracefs, /proc and /sys tree built here (SLABSIM_TRACEFS,
# SLABSIM_PROC, SLABSIM_SYS, SLABSIM_RECORD_TEST=1), including that the
# tracing state it found is put back, after a normal end and after SIGINT.
# Also the argument checks of traces/capture/qemu-boot. TAP output.
#   $1 traces/capture (the folder of record and qemu-boot)
set -u
. "$(dirname "$0")/../cli/tap.sh"
cap=$(abs_path "$1")
self=$(abs_path "$0")
rec=$cap/record
tap_scratch

# mk_fake DIR: a fake machine. tracefs with four of the six kmem events
# (kfree enabled, as a user might have left it), buffer 1408 KiB, tracing on,
# hash-ptr on; two CPUs' ring-buffer stats (CPU 1 overran 3 events); a
# slabinfo; /sys/kernel/slab with one cache, one alias, one attribute-less
# entry; CPU lists.
mk_fake() {
	f=$1
	T=$f/tracefs
	mkdir -p "$T/options" "$T/per_cpu/cpu0" "$T/per_cpu/cpu1" "$f/proc" \
		"$f/sys/kernel/slab/:0000064" "$f/sys/kernel/slab/empty" \
		"$f/sys/devices/system/cpu"
	for e in kmalloc kmem_cache_alloc kfree kmem_cache_free; do
		mkdir -p "$T/events/kmem/$e"
		echo 0 >"$T/events/kmem/$e/enable"
	done
	echo 1 >"$T/events/kmem/kfree/enable"
	printf '# tracer: nop\nold line\n' >"$T/trace"
	echo 1 >"$T/tracing_on"
	echo 1408 >"$T/buffer_size_kb"
	echo '[local] global counter' >"$T/trace_clock"
	echo 1 >"$T/options/hash-ptr"
	echo 0 >"$T/options/record-tgid"
	: >"$T/trace_marker"
	printf 'entries: 5\noverrun: 0\ncommit overrun: 0\ndropped events: 0\n' >"$T/per_cpu/cpu0/stats"
	printf 'entries: 7\noverrun: 3\ncommit overrun: 0\ndropped events: 0\n' >"$T/per_cpu/cpu1/stats"
	printf 'slabinfo - version: 2.1\nkmalloc-64 100 128 64 64 1 : tunables 0 0 0 : slabdata 2 2 0\n' \
		>"$f/proc/slabinfo"
	echo 'console=ttyS0 slub_debug=FZ' >"$f/proc/cmdline"
	printf 'MemTotal: 1000 kB\n' >"$f/proc/meminfo"
	s=$f/sys/kernel/slab/:0000064
	echo 64 >"$s/object_size"
	echo 64 >"$s/slab_size"
	echo 0 >"$s/order"
	echo 64 >"$s/objs_per_slab"
	echo '128 N0=128' >"$s/objects"
	printf 'a\tb\n' >"$s/ctor"
	: >"$s/partial"
	ln -s :0000064 "$f/sys/kernel/slab/kmalloc-64"
	echo 0-1 >"$f/sys/devices/system/cpu/online"
	echo 0-3,8,10-11 >"$f/sys/devices/system/cpu/possible"
}

# state DIR: the tracing state of the fake tree, one line.
state() {
	T=$1/tracefs
	echo "on=$(cat "$T/tracing_on") buf=$(cat "$T/buffer_size_kb") hash=$(cat "$T/options/hash-ptr") tgid=$(cat "$T/options/record-tgid")" \
		"en=$(cat "$T/events/kmem/kmalloc/enable" "$T/events/kmem/kmem_cache_alloc/enable" \
			"$T/events/kmem/kfree/enable" "$T/events/kmem/kmem_cache_free/enable" | tr -d '\n')"
}

# run NAME ARGS...: record with the fake roots of $tmp/NAME; rc, out, err.
run() {
	n=$1
	shift
	SLABSIM_TRACEFS=$tmp/$n/tracefs SLABSIM_PROC=$tmp/$n/proc SLABSIM_SYS=$tmp/$n/sys \
		SLABSIM_RECORD_TEST=1 bash "$rec" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
err() { cat "$tmp/err"; }

# ---- argument handling ----
mk_fake a
run a
tap_is "no -d and no command: usage" "$rc $(head -n 1 "$tmp/err")" \
	"1 record: nothing to record: give -d SECONDS or -- COMMAND"
run a -d 1 -- true
tap_is "-d and a command: usage" "$rc $(err)" "1 record: give either -d SECONDS or -- COMMAND, not both"
run a -d 1.5
tap_is "-d not a whole number" "$rc $(err)" "1 record: -d wants a positive whole number of seconds, not '1.5'"
run a -d 0
tap_is "-d 0" "$rc $(err)" "1 record: -d wants a positive whole number of seconds, not '0'"
run a -b x -d 1
tap_is "-b not a number" "$rc $(err)" "1 record: -b wants a positive size in KiB, not 'x'"
run a --snapshot-every -1 -d 1
tap_is "--snapshot-every negative" "$rc $(err)" \
	"1 record: --snapshot-every wants a positive whole number of seconds, not '-1'"
run a -z 20 -d 1
tap_is "-z out of range" "$rc $(err)" "1 record: -z wants a zstd level 0..19, not '20'"
run a --bogus -d 1
tap_is "unknown option" "$rc $(head -n 1 "$tmp/err")" "1 record: unknown option '--bogus'"
run a make
tap_is "command without --" "$rc $(head -n 1 "$tmp/err")" \
	"1 record: unexpected argument 'make' (a command goes after --)"
mkdir full && touch full/x
run a -o full -d 1
tap_is "non-empty output directory" "$rc $(err)" "1 record: full exists and is not an empty directory"
run a -h
tap_is "--help exits 0 and documents the exit codes" "$rc $(grep -c '130 interrupted' "$tmp/out")" "0 1"
tap_is "refusals leave the state alone" "$(state a)" "on=1 buf=1408 hash=1 tgid=0 en=0010"

# ---- refusals ----
mkdir bin
printf '#!/bin/sh\necho 1000\n' >bin/id
chmod +x bin/id
PATH=$tmp/bin:$PATH SLABSIM_RECORD_TEST=0 SLABSIM_TRACEFS=$tmp/a/tracefs bash "$rec" -d 1 \
	>"$tmp/out" 2>"$tmp/err"
tap_is "not root: exit 2" "$? $(err)" "2 record: must run as root (tracefs and /sys/kernel/slab need it)"
SLABSIM_TRACEFS=$tmp/none SLABSIM_RECORD_TEST=1 bash "$rec" -d 1 >"$tmp/out" 2>"$tmp/err"
tap_is "no tracefs: exit 3" "$? $(err)" "3 record: no tracefs at $tmp/none (no 'trace' file there)"
SLABSIM_SYS=$tmp/a/sys SLABSIM_PROC=$tmp/a/proc SLABSIM_RECORD_TEST=1 bash "$rec" -d 1 >"$tmp/out" 2>"$tmp/err"
tap_is "tracefs neither found nor mountable: exit 3" "$? $(err)" \
	"3 record: tracefs is not mounted and cannot be mounted on $tmp/a/sys/kernel/tracing (kernel without CONFIG_TRACING?)"
mk_fake noev
rm -r noev/tracefs/events
run noev -d 1
tap_is "no kmem events: exit 4" "$rc $(err)" \
	"4 record: the kernel has none of the kmem slab events (kmem:kmalloc, kmem:kfree, kmem:kmem_cache_alloc, ...) under $tmp/noev/tracefs/events/kmem"
tap_is "no output directory made on a refusal" "$(ls "$tmp" | grep -c '^capture-')" "0"

# ---- a recording of a command ----
# The command plays the kernel: it appends event lines to the fake trace,
# changes /proc/slabinfo, and notes the tracing state it saw.
mk_fake b
T=$tmp/b/tracefs
ev1='  sh-1  [000] .....  1.000001: kmalloc: call_site=x+0x1/0x2 ptr=ffff888000001000 bytes_req=60 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false'
ev2='  sh-1  [001] .....  1.000002: kfree: call_site=y+0x1/0x2 ptr=ffff888000001000'
cat >play.sh <<EOF
printf '%s\n%s\n' '$ev1' '$ev2' >>"$T/trace"
printf 'slabinfo - version: 2.1\nkmalloc-64 101 128 64 64 1 : tunables 0 0 0 : slabdata 2 2 0\n' >"$tmp/b/proc/slabinfo"
. "$tmp/state.sh"
state "$tmp/b" >"$tmp/during"
exit 3
EOF
sed -n '/^state() {/,/^}/p' "$self" >state.sh
run b -o cap -z 0 -b 4096 -- sh "$tmp/play.sh"
tap_is "a failing command still gives a capture: exit 0" "$rc" "0"
tap_is "state while recording: events on, buffer -b, hash-ptr off, record-tgid on" "$(cat during)" \
	"on=1 buf=4096 hash=0 tgid=1 en=1111"
tap_is "state put back after the recording" "$(state b)" "on=1 buf=1408 hash=1 tgid=0 en=0010"
tap_is "the files of a capture" "$(cd cap && ls | tr '\n' ' ')" \
	"capture-info.txt cmdline.txt lost-events.txt meminfo-start.txt meminfo.txt ncpus.txt slab-attrs-start.tsv slab-attrs.tsv slabinfo-start.txt slabinfo.txt trace.txt uname.txt "
tap_is "trace.txt: the old buffer discarded, the recorded events kept" "$(cat cap/trace.txt)" "$ev1
$ev2"
tap_is "slabinfo-start.txt is the slabinfo before" "$(sed -n 2p cap/slabinfo-start.txt | cut -c1-14)" "kmalloc-64 100"
tap_is "slabinfo.txt is the slabinfo after" "$(sed -n 2p cap/slabinfo.txt | cut -c1-14)" "kmalloc-64 101"
tap_is "cmdline.txt" "$(cat cap/cmdline.txt)" "console=ttyS0 slub_debug=FZ"
tap_is "meminfo.txt" "$(cat cap/meminfo.txt)" "MemTotal: 1000 kB"
tap_is "meminfo-start.txt is the meminfo before" "$(cat cap/meminfo-start.txt)" "MemTotal: 1000 kB"
tap_is "slab-attrs-start.tsv: the same table as slab-attrs.tsv, taken at the start" \
	"$(cmp cap/slab-attrs-start.tsv cap/slab-attrs.tsv && echo same)" "same"
tap_is "uname.txt" "$(cat cap/uname.txt)" "$(uname -a)"
# possible 0-3,8,10-11 is 4 + 1 + 2 CPUs
tap_is "ncpus.txt" "$(cat cap/ncpus.txt)" "nproc=$(nproc)
online=2
possible=7
online_list=0-1
possible_list=0-3,8,10-11"
tap_is "lost-events.txt: each CPU's stats, prefixed" "$(cat cap/lost-events.txt)" "cpu0 entries: 5
cpu0 overrun: 0
cpu0 commit overrun: 0
cpu0 dropped events: 0
cpu1 entries: 7
cpu1 overrun: 3
cpu1 commit overrun: 0
cpu1 dropped events: 0"
tap_like "the 3 lost events are reported" "$(err)" "3 events lost"
hdr=$(printf 'name\tlink_target\tobject_size\tslab_size\torder\tobjs_per_slab\talign\tred_zone\tpoison\tstore_user\thwcache_align\tobjects\ttotal_objects\tslabs\tpartial\tcpu_slabs\taliases\tsanity_checks\ttrace\tcache_dma\treclaim_account\tdestroy_by_rcu\tusersize\tmin_partial\tcpu_partial\tctor\tobjects_partial\tslabs_cpu_partial')
tap_is "slab-attrs.tsv header" "$(head -n 1 cap/slab-attrs.tsv)" "$hdr"
# 26 attribute columns: 4 numbers, 1 missing (align), objects, 5 missing,
# partial empty, 10 missing, ctor with its tab made a space, 2 missing
row=$(printf ':0000064\t-\t64\t64\t0\t64\t-\t-\t-\t-\t-\t128 N0=128\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\ta b\t-\t-')
tap_is "slab-attrs.tsv: rows sorted by name; values as printed; missing or empty is -; alias rows name their target" \
	"$(tail -n +2 cap/slab-attrs.tsv)" "$row
$(printf 'empty\t-')$(printf '\t-%.0s' $(seq 26))
$(printf '%s' "$row" | sed 's/^:0000064\t-/kmalloc-64\t:0000064/')"
tap_is "every slab-attrs.tsv row has 28 fields" "$(awk -F'\t' '{print NF}' cap/slab-attrs.tsv | sort -u)" "28"
tap_is "capture-info.txt" "$(grep -v -e '^date=' -e '^kernel=' -e '^duration_s=' cap/capture-info.txt)" \
	"tool=record
version=4
events=kmem:kmalloc,kmem:kmem_cache_alloc,kmem:kfree,kmem:kmem_cache_free
buffer_size_kb=4096
start_snapshot=after-arming
start_shrink=0
base_probe=0
stat_refresh=no
read=trace
hash_ptr=off
record_tgid=on
trace_clock=local
command=sh $tmp/play.sh
command_status=3
end_read=traced
end_tail_s=0.3"

# ---- -H keeps hashing; zstd by default; the unexpanded buffer form ----
mk_fake c
T=$tmp/c/tracefs
echo '7 (expanded: 1408)' >"$T/buffer_size_kb"
rm "$T/options/hash-ptr" "$T/options/record-tgid"
run c -o capc -- sh -c "echo '$ev1' >>'$T/trace'"
tap_is "no hash-ptr option: recorded as absent" "$rc $(grep '^hash_ptr=' capc/capture-info.txt)" "0 hash_ptr=absent"
tap_is "no record-tgid option: recorded as absent" "$(grep '^record_tgid=' capc/capture-info.txt)" "record_tgid=absent"
tap_is "trace.txt.zst by default, and no trace.txt" "$(zstd -dc capc/trace.txt.zst) $(ls capc | grep -c '^trace.txt$')" "$ev1 0"
tap_is "an unexpanded buffer size is put back as its expanded size" "$(cat "$T/buffer_size_kb")" "1408"
mk_fake x
echo X >x/tracefs/buffer_size_kb
echo 1408 >x/tracefs/per_cpu/cpu0/buffer_size_kb
echo '2816 (expanded: 0)' >x/tracefs/per_cpu/cpu1/buffer_size_kb
run x -o capx -z 0 -d 1
tap_is "per-CPU buffer sizes that differ (X) are put back CPU by CPU" \
	"$rc $(cat x/tracefs/per_cpu/cpu0/buffer_size_kb x/tracefs/per_cpu/cpu1/buffer_size_kb | tr '\n' ' ')" "0 1408 2816 "
mk_fake h
run h -o caph -H -z 0 -- sh -c "cat '$tmp/h/tracefs/options/hash-ptr' >'$tmp/hduring'"
tap_is "-H leaves hash-ptr on" "$(cat hduring) $(grep '^hash_ptr=' caph/capture-info.txt) $(cat h/tracefs/options/hash-ptr)" \
	"1 hash_ptr=on 1"

# ---- /proc/config.gz (CONFIG_IKCONFIG_PROC) is kept as it is ----
mk_fake g
printf 'CONFIG_SLUB=y\nCONFIG_SLAB_BUCKETS=y\n' | gzip -c >g/proc/config.gz
run g -o capg -z 0 -q -d 1
tap_is "config.gz: copied byte for byte" "$rc $(cmp g/proc/config.gz capg/config.gz && echo same)" \
	"0 same"
tap_is "config.gz: the kernel's options in it" "$(gzip -dc capg/config.gz | sed -n 2p)" \
	"CONFIG_SLAB_BUCKETS=y"

# ---- a kernel without /proc/slabinfo and /sys/kernel/slab (SLOB) ----
mk_fake n
rm n/proc/slabinfo
rm -r n/sys/kernel/slab
run n -o capn -z 0 -q -d 1
tap_is "SLOB: exit 0, the capture has meminfo but no slabinfo and no slab-attrs" \
	"$rc $(cd capn && ls | tr '\n' ' ')" \
	"0 capture-info.txt cmdline.txt lost-events.txt meminfo-start.txt meminfo.txt ncpus.txt trace.txt uname.txt "

# ---- a newer kernel's attributes (6.18: sheaf_capacity, NUMA's
# remote_node_defrag_ratio) become columns after the 26 of every capture;
# the triggers shrink and validate, the pre-5.14 alloc_calls, a
# subdirectory and a file that cannot be read do not ----
mk_fake v
d=v/sys/kernel/slab/:0000064
echo 32 >"$d/sheaf_capacity"
echo 100 >"$d/remote_node_defrag_ratio"
: >"$d/shrink"
: >"$d/validate"
echo 'No data' >"$d/alloc_calls"
mkdir "$d/power"
ln -s "$tmp/nowhere" "$d/dangling"
run v -o capv -z 0 -q -d 1
hdr6=$(printf '%s\tremote_node_defrag_ratio\tsheaf_capacity' "$hdr")
tap_is "newer attributes: exit 0, the header is the 28 columns then the kernel's others by name" \
	"$rc $(head -n 1 capv/slab-attrs.tsv)" "0 $hdr6"
tap_is "newer attributes: the cache's values, the alias's through its link, '-' where absent" \
	"$(cut -f 1,29,30 capv/slab-attrs.tsv | tail -n +2)" "$(printf ':0000064\t100\t32\nempty\t-\t-\nkmalloc-64\t100\t32')"
tap_is "newer attributes: slab-attrs-start.tsv has the same columns" \
	"$(head -n 1 capv/slab-attrs-start.tsv)" "$hdr6"
tap_is "every row of 30 fields" "$(awk -F'\t' '{print NF}' capv/slab-attrs.tsv | sort -u)" "30"
# the cache with sheaves (sheaf_capacity 32) is shrunk before the start
# state is read, its alias not again; its row is read again after
tap_is "sheaves: the cache shrunk (1 written to shrink), and said so" \
	"$(cat "$d/shrink") $(grep '^start_shrink=' capv/capture-info.txt)" "1 start_shrink=1"
tap_is "sheaves: its start row read again is the same" \
	"$(grep '^:0000064' capv/slab-attrs-start.tsv)" "$(grep '^:0000064' capv/slab-attrs.tsv)"
mk_fake v2
mkdir -p v2/proc/sys/kernel
echo Linux >v2/proc/sys/kernel/ostype
echo 32 >v2/sys/kernel/slab/:0000064/sheaf_capacity
: >v2/sys/kernel/slab/:0000064/shrink
mkdir -p v2/tracefs/events/kmem/mm_page_free
echo 0 >v2/tracefs/events/kmem/mm_page_free/enable
run v2 -o capv2 -z 0 -q --no-shrink -- sh -c "cat '$tmp/v2/tracefs/events/kmem/mm_page_free/enable' >'$tmp/pfduring'"
tap_is "--no-shrink: nothing written, start_shrink=no; mm_page_free traced, then put back" \
	"$rc [$(cat v2/sys/kernel/slab/:0000064/shrink)] $(grep '^start_shrink=' capv2/capture-info.txt) $(cat pfduring) $(cat v2/tracefs/events/kmem/mm_page_free/enable) $(grep '^events=' capv2/capture-info.txt)" \
	"0 [] start_shrink=no 1 0 events=kmem:kmalloc,kmem:kmem_cache_alloc,kmem:kfree,kmem:kmem_cache_free,kmem:mm_page_free"
tap_is "page frees traced: four reads of kernel/ostype show the direct map's base" \
	"$(grep '^base_probe=' capv2/capture-info.txt)" "base_probe=4"
mk_fake v3
mkdir -p v3/tracefs/events/kmem/mm_page_free
echo 0 >v3/tracefs/events/kmem/mm_page_free/enable
run v3 -o capv3 -z 0 -q --no-page-free -- sh -c "cat '$tmp/v3/tracefs/events/kmem/mm_page_free/enable' >'$tmp/pfduring3'"
tap_is "--no-page-free: mm_page_free left off" \
	"$rc $(cat pfduring3) $(grep '^events=' capv3/capture-info.txt)" \
	"0 0 events=kmem:kmalloc,kmem:kmem_cache_alloc,kmem:kfree,kmem:kmem_cache_free"
# mm_page_alloc beside mm_page_free, filtered to what a slab's page can be
# (no __GFP_MOVABLE) while recording; the filter and the switch put back
mk_fake v4
mkdir -p v4/tracefs/events/kmem/mm_page_free v4/tracefs/events/kmem/mm_page_alloc
echo 0 >v4/tracefs/events/kmem/mm_page_free/enable
echo 0 >v4/tracefs/events/kmem/mm_page_alloc/enable
echo 'order > 3' >v4/tracefs/events/kmem/mm_page_alloc/filter
run v4 -o capv4 -z 0 -q -- sh -c "cat '$tmp/v4/tracefs/events/kmem/mm_page_alloc/enable' '$tmp/v4/tracefs/events/kmem/mm_page_alloc/filter' >'$tmp/paduring'"
tap_is "mm_page_alloc traced with its filter, then both put back" \
	"$rc $(tr '\n' ' ' <paduring)$(cat v4/tracefs/events/kmem/mm_page_alloc/enable v4/tracefs/events/kmem/mm_page_alloc/filter | tr '\n' ' ')$(grep '^events=\|^page_alloc_filter=' capv4/capture-info.txt | tr '\n' ' ')" \
	"0 1 !(gfp_flags & 8) 0 order > 3 events=kmem:kmalloc,kmem:kmem_cache_alloc,kmem:kfree,kmem:kmem_cache_free,kmem:mm_page_free,kmem:mm_page_alloc page_alloc_filter=!(gfp_flags & 8) "
mk_fake v5
mkdir -p v5/tracefs/events/kmem/mm_page_free v5/tracefs/events/kmem/mm_page_alloc
echo 0 >v5/tracefs/events/kmem/mm_page_free/enable
echo 0 >v5/tracefs/events/kmem/mm_page_alloc/enable
run v5 -o capv5 -z 0 -q --no-page-alloc -- true
tap_is "--no-page-alloc: mm_page_free alone" \
	"$rc $(grep '^events=' capv5/capture-info.txt) $(grep -c '^page_alloc_filter=' capv5/capture-info.txt)" \
	"0 events=kmem:kmalloc,kmem:kmem_cache_alloc,kmem:kfree,kmem:kmem_cache_free,kmem:mm_page_free 0"
# busybox ash (qemu-boot's guest shell) makes the same table
if command -v busybox >/dev/null; then
	busybox ash -c ". '$cap/capture-lib.sh'; cap_slab_attrs '$tmp/v/sys/kernel/slab'" >bb.tsv
	tap_is "busybox ash: the same slab-attrs.tsv" "$(cmp bb.tsv capv/slab-attrs.tsv && echo same)" "same"
else
	tap_ok "busybox ash: the same slab-attrs.tsv # SKIP no busybox"
fi

# ---- another tracer on the instance while recording: its changes are
# named (a warning, interference= in capture-info.txt), exit still 0 ----
mk_fake w
T=$tmp/w/tracefs
run w -o capw -z 0 -- sh -c "echo 0 >'$T/events/kmem/kfree/enable'; echo 8 >'$T/buffer_size_kb';
	echo 'tracing_mark_write: SNAP 0001' >>'$T/trace'; printf 'read events: 5\n' >>'$T/per_cpu/cpu1/stats'"
tap_is "interference: exit 0, what changed in capture-info.txt" "$rc $(grep '^interference=' capw/capture-info.txt)" \
	"0 interference=kfree=0 buffer_size_kb=8 trace_pipe_read=5 snap_markers=1/0"
tap_like "interference: a warning" "$(err)" \
	"record: warning: another tracer used this tracefs instance while recording (kfree=0 buffer_size_kb=8 trace_pipe_read=5 snap_markers=1/0)"
tap_is "interference: the state found is put back" "$(state w)" "on=1 buf=1408 hash=1 tgid=0 en=0010"

# ---- the nohash-ptr check: Linux 6.1 blanks name= under nohash-ptr ----
. "$cap/capture-lib.sh"
printf '%s\n' '  ls-1 [000] .....  9.1: kmem_cache_free: call_site=__fput+0x100/0x250 ptr=ffff898201330900 name=' >blank1
printf '%s\n' '  ls-1 [000] .....  9.1: kmem_cache_free: call_site=__fput+0x100/0x250 ptr=ffff898201330900 name= x' >blank2
printf '%s\n' '  ls-1 [000] .....  9.1: kmem_cache_free: call_site=__fput+0x100/0x250 ptr=ffff898201330900 name=filp' >named
printf '%s\n' '  ls-1 [000] .....  9.2: kmalloc: call_site=a+0x1/0x2 ptr=ffff898201200810 bytes_req=16 bytes_alloc=16 gfp_flags= node=-1 accounted=true' >gfp
r=""
for f in blank1 blank2 named gfp; do
	if cap_blank_names "$f"; then r="$r $f:blank"; else r="$r $f:ok"; fi
done
tap_is "cap_blank_names: an empty name= at the end or before a space, not a named free, not gfp_flags" \
	"$r" " blank1:blank blank2:blank named:ok gfp:ok"

# ---- --stream: trace_pipe read while recording, the unread rest appended ----
# The fake trace_pipe is a file holding ev1 (what the reader consumed; cat
# ends at its end, as a reader stopped after the drain); the command appends
# ev2 to the trace file (what stayed in the buffer, unread).
mk_fake p
T=$tmp/p/tracefs
printf '%s\n' "$ev1" >"$T/trace_pipe"
cat >pplay.sh <<EOF
printf '%s\n' '$ev2' >>"$T/trace"
EOF
run p -o capp -z 0 -S -- sh "$tmp/pplay.sh"
tap_is "--stream: exit 0" "$rc" "0"
tap_is "--stream: trace.txt is a header, what trace_pipe gave, then the unread rest" \
	"$(cat capp/trace.txt)" "# tracer: nop
# slabsim record: read through trace_pipe while recording
$ev1
$ev2"
tap_is "--stream: read=trace_pipe in capture-info.txt" "$(grep '^read=' capp/capture-info.txt)" \
	"read=trace_pipe"
tap_is "--stream: state put back" "$(state p)" "on=1 buf=1408 hash=1 tgid=0 en=0010"
mk_fake q
run q -o capq -z 0 --stream -d 1
tap_is "--stream without trace_pipe: exit 3, named" "$rc $(err)" \
	"3 record: no readable $tmp/q/tracefs/trace_pipe for --stream"

# ---- snapshots ----
# The command waits (at most 60 s) for the second snapshot: no timing is asserted.
mk_fake s
T=$tmp/s/tracefs
run s -o caps -z 0 --snapshot-every 1 -- sh -c \
	"i=0; while [ ! -f '$tmp/caps/snapshots/0002.slabinfo' ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done; sleep 0.2"
tap_is "snapshot run: exit 0" "$rc" "0"
ids=$(cd caps/snapshots && ls | sed -n 's/\.slabinfo$//p' | tr '\n' ' ')
tap_like "snapshots 0001 and 0002 taken" "$ids" "0001 0002 "
tap_is "one SNAP ID marker per snapshot file, same IDs, same order" \
	"$(sed -n 's/^SNAP //p' "$T/trace_marker" | tr '\n' ' ')" "$ids"
tap_is "each SNAP ID after its SNAP-READ ID (written before the read), in turn" \
	"$(grep '^SNAP' "$T/trace_marker" | head -n 4 | tr '\n' ' ')" "SNAP-READ 0001 SNAP 0001 SNAP-READ 0002 SNAP 0002 "
tap_is "the END marker last, written once, before the end state is read" \
	"$(tail -n 1 "$T/trace_marker") $(grep -c '^END$' "$T/trace_marker")" "END 1"
tap_is "a snapshot is /proc/slabinfo" "$(cmp caps/snapshots/0001.slabinfo s/proc/slabinfo && echo same)" "same"
tap_is "and /proc/meminfo, under the same IDs" \
	"$(cd caps/snapshots && ls | sed -n 's/\.meminfo$//p' | tr '\n' ' ') $(cmp caps/snapshots/0001.meminfo s/proc/meminfo && echo same)" \
	"$ids same"
tap_is "snapshot_every_s in capture-info.txt" "$(grep '^snapshot_every_s=' caps/capture-info.txt)" "snapshot_every_s=1"

# ---- interrupted: SIGINT ends the recording, the capture is written, the state put back ----
mk_fake i
T=$tmp/i/tracefs
# its own stderr file, new: the shell may open it only after the loop below
# first looks, and the previous run's file says "recording" too
rm -f "$tmp/err-i"
SLABSIM_TRACEFS=$T SLABSIM_PROC=$tmp/i/proc SLABSIM_SYS=$tmp/i/sys SLABSIM_RECORD_TEST=1 \
	env --default-signal=INT bash "$rec" -o capi -z 0 -d 60 >"$tmp/out" 2>"$tmp/err-i" &
pid=$!
i=0
# "recording" is said once tracing is on: the state is stable from then on
# (wait up to 60 s: on a loaded machine the probe recording before it is slow)
while ! grep -q '^record: recording' "$tmp/err-i" 2>/dev/null && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
tap_is "recording started" "$(state i)" "on=1 buf=65536 hash=0 tgid=1 en=1111"
sleep 0.3
kill -INT "$pid"
wait "$pid"
tap_is "SIGINT: exit 130" "$?" "130"
tap_is "SIGINT: state put back" "$(state i)" "on=1 buf=1408 hash=1 tgid=0 en=0010"
tap_is "SIGINT: capture written" "$(ls capi | wc -l | tr -d ' ') $(grep '^interrupted=' capi/capture-info.txt)" \
	"12 interrupted=1"

# ---- qemu-boot's argument checks (it exits before looking for qemu) ----
bash "$cap/qemu-boot" >/dev/null 2>"$tmp/err"
tap_is "qemu-boot without -o: usage" "$? $(head -n 1 "$tmp/err")" "1 qemu-boot: -o OUTDIR is required"
bash "$cap/qemu-boot" -o x -c two >/dev/null 2>"$tmp/err"
tap_is "qemu-boot -c two" "$? $(err)" "1 qemu-boot: -c wants a positive number of CPUs, not 'two'"
bash "$cap/qemu-boot" -o x -A xen >/dev/null 2>"$tmp/err"
tap_is "qemu-boot -A xen" "$? $(err)" "1 qemu-boot: -A wants kvm, tcg or auto, not 'xen'"
bash "$cap/qemu-boot" -o x -w -S later >/dev/null 2>"$tmp/err"
tap_is "qemu-boot -S later" "$? $(err)" "1 qemu-boot: -S wants before or after, not 'later'"
bash "$cap/qemu-boot" -o full >/dev/null 2>"$tmp/err"
tap_is "qemu-boot into a non-empty directory" "$? $(err)" "1 qemu-boot: full exists and is not empty"

tap_done
